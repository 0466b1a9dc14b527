#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileLoader {
    /// A selector from a mapping (AND) or a list of mappings (OR).
    mutating func selector(_ node: YamlNode, context: inout NameContext) -> Selector? {
        if let items = node.sequenceItems {
            guard !items.isEmpty else {
                error(node, "an empty list matches nothing; give at least one selector map")
                return nil
            }
            var terms: [Selector.Term] = []
            for item in items {
                guard let t = term(item, context: &context) else { return nil }
                terms.append(t)
            }
            return Selector(terms: terms)
        }
        guard let t = term(node, context: &context) else { return nil }
        return Selector(terms: [t])
    }

    mutating func term(_ node: YamlNode, context: inout NameContext) -> Selector.Term? {
        guard let pairs = node.mappingPairs else {
            error(
                node,
                "a selector must be a map of field tests such as { ev: ws.close }, found a \(node.kindName)"
            )
            return nil
        }
        var term = Selector.Term()
        // The field tests, given to the term at once: each change of its tests makes a new box.
        var tests: [Selector.FieldTest] = []
        var whereNode: YamlNode?
        let errorsBefore = errors.count
        for pair in pairs {
            let key = pair.key.scalar ?? ""
            switch key {
            case "as":
                guard let name = pair.value.scalar, isName(name) else {
                    error(pair.value, "'as' takes a name such as p or first_ping")
                    continue
                }
                term.capture = name
            case "where":
                whereNode = pair.value
            case "not":
                // Inside an expression, each `not:` is a level more for the `where:` in it.
                let inExpression = context.depth > 0
                if inExpression { context.depth += 1 }
                term.negated = selector(pair.value, context: &context)
                if inExpression { context.depth -= 1 }
            case "":
                error(pair.key, "a selector key must be a field name")
            default:
                if let p = predicate(pair.value, field: key) {
                    tests.append(.init(field: key, predicate: p))
                    if key == "ev" { term.evNames = Self.exactNames(p) }
                }
            }
        }
        if !tests.isEmpty { term.tests = tests }
        // `where` sees the term's own capture as well as the ones bound earlier.
        if let capture = term.capture { context.captures.insert(capture) }
        if let whereNode {
            term.setParsedWhere(expression(whereNode, context: context))
            if case .literal(let v)? = term.whereExpr, case .bool = v {
            } else if case .literal(let v)? = term.whereExpr {
                error(
                    whereNode,
                    "'where' must be a condition (true or false), not the \(v.typeName) \(v.rendered(bare: false))"
                )
            }
        }
        return errors.count == errorsBefore ? term : nil
    }

    static func exactNames(_ p: Selector.Predicate) -> Set<String>? {
        switch p {
        case .equals(.string(let s)): return [s]
        case .oneOf(let options):
            var all = Set<String>()
            for o in options {
                guard let names = exactNames(o) else { return nil }
                all.formUnion(names)
            }
            return all
        default: return nil
        }
    }

    static let operators: Set<String> = [
        "exists", "in", "not_in", "eq", "ne", "gt", "gte", "lt", "lte", "matches", "glob"
    ]

    mutating func predicate(_ node: YamlNode, field: String) -> Selector.Predicate? {
        if let items = node.sequenceItems {
            var options: [Selector.Predicate] = []
            for item in items {
                guard item.scalar != nil else {
                    error(item, "a list of values must hold plain values")
                    return nil
                }
                options.append(scalarPredicate(item, field: field))
            }
            return .oneOf(options)
        }
        guard let pairs = node.mappingPairs else { return scalarPredicate(node, field: field) }
        var parts: [Selector.Predicate] = []
        for pair in pairs {
            let op = pair.key.scalar ?? ""
            let v = pair.value
            switch op {
            case "exists":
                guard case .bool(let b)? = typed(v) else {
                    error(v, "'exists' takes true or false")
                    continue
                }
                parts.append(.exists(b))
            case "in", "not_in":
                guard let items = v.sequenceItems else {
                    error(v, "'\(op)' takes a list of values")
                    continue
                }
                let values = items.compactMap { typed($0) }
                if values.count != items.count {
                    error(v, "'\(op)' takes a list of plain values")
                    continue
                }
                parts.append(op == "in" ? .oneOf(values.map { .equals($0) }) : .notIn(values))
            case "eq", "ne":
                guard let value = typed(v) else {
                    error(v, "'\(op)' takes a plain value")
                    continue
                }
                parts.append(op == "eq" ? .equals(value) : .not(.equals(value)))
            case "gt", "gte", "lt", "lte":
                guard let value = typed(v), value.number != nil || value.string != nil else {
                    error(v, "'\(op)' takes a number or a string")
                    continue
                }
                let binary: Expr.BinaryOp =
                    op == "gt"
                    ? .greater : op == "gte" ? .greaterEqual : op == "lt" ? .less : .lessEqual
                parts.append(.compare(binary, value))
            case "matches":
                guard let pattern = v.scalar else {
                    error(v, "'matches' takes a regular expression string")
                    continue
                }
                do throws(RegexSyntaxError) {
                    parts.append(.matches(try BoundedRegex(pattern)))
                } catch {
                    self.error(
                        v, "bad regular expression: \(error.message) (at offset \(error.offset))")
                }
            case "glob":
                guard let pattern = v.scalar else {
                    error(v, "'glob' takes a pattern string")
                    continue
                }
                parts.append(.glob(GlobPattern(pattern)))
            default:
                error(
                    pair.key,
                    "unknown test '\(op)' for field '\(field)' (expected one of \(Self.operators.sorted().joined(separator: ", ")))"
                )
            }
        }
        if parts.isEmpty { return nil }
        return parts.count == 1 ? parts[0] : .all(parts)
    }

    func scalarPredicate(_ node: YamlNode, field: String) -> Selector.Predicate {
        let value = typed(node) ?? .null
        if field == "ev", case .string(let s) = value, GlobPattern.isGlob(s) {
            return .glob(GlobPattern(s))
        }
        return .equals(value)
    }

    // MARK: Values

    /// A scalar as a typed value: plain `true`/`false`/`null`/numbers are typed; quoted stays text.
    func typed(_ node: YamlNode) -> Value? {
        guard case .scalar(let s, let style) = node.kind else { return nil }
        guard style == .plain else { return .string(s) }
        switch s {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        default: break
        }
        if let i = Int64(s) { return .int(i) }
        if s.first.map({ $0.isNumber || $0 == "-" || $0 == "+" || $0 == "." }) == true,
            let d = Double(s), d.isFinite
        {
            return .double(d)
        }
        return .string(s)
    }

    mutating func scalarString(_ node: YamlNode, _ key: String) -> String? {
        guard let s = node.scalar else {
            error(node, "'\(key)' must be text, found a \(node.kindName)")
            return nil
        }
        return s
    }

    mutating func params(_ node: YamlNode) -> [String: Value] {
        guard let pairs = node.mappingPairs else {
            error(node, "'params' must be a map of names to values")
            return [:]
        }
        var out: [String: Value] = [:]
        for pair in pairs {
            guard let name = pair.key.scalar, isName(name) else {
                error(pair.key, "a param name must be a name such as timeout_ms")
                continue
            }
            guard let v = typed(pair.value) else {
                error(pair.value, "param '\(name)' must be a plain value")
                continue
            }
            out[name] = v
        }
        return out
    }

    /// `let:` bindings; `params` is nil at file level (a rule may add the params they name).
    mutating func lets(
        _ node: YamlNode, params: [String: Value]?, paramsRead: ParamsRead = ParamsRead()
    ) -> [(name: String, expr: Expr)] {
        guard let pairs = node.mappingPairs else {
            error(node, "'let' must be a map of names to expressions")
            return []
        }
        // A rule reads its lets by name: a few are the rule, thousands are a generated file
        // gone wrong (and cost time to compile), so there is a limit.
        guard pairs.count <= Self.maxLets else {
            error(node, "\(pairs.count) lets in one 'let:' map; at most \(Self.maxLets)")
            return []
        }
        var out: [(name: String, expr: Expr)] = []
        // The names bound so far, grown in place (a set rebuilt per let is quadratic).
        var names = Set<String>()
        for pair in pairs {
            guard let name = pair.key.scalar, isName(name) else {
                error(pair.key, "a let name must be a name such as T")
                continue
            }
            warnIfHidesField(pair.key, name, "let")
            let e: Expr?
            do {
                // The context is gone before `names` grows, so the set is not copied.
                var context = NameContext(params: params, lets: names)
                context.paramsReadBox = paramsRead
                e = expression(pair.value, context: context)
            }
            if let e {
                out.append((name, e))
                names.insert(name)
                letTexts.append((name, pair.value.scalar ?? ""))
            }
        }
        return out
    }

    func isName(_ s: String) -> Bool {
        guard let f = s.utf8.first,
            (f >= 0x41 && f <= 0x5A) || (f >= 0x61 && f <= 0x7A) || f == 0x5F
        else { return false }
        return s.utf8.allSatisfy {
            ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39)
                || $0 == 0x5F
        }
    }
}
