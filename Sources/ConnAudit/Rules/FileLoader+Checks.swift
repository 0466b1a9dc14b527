#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileLoader {
    /// The keys of every check kind: a rule's key here that its own kind lacks belongs to
    /// another kind and does not go with it.
    static let checkKindKeys: Set<String> = checkKinds.reduce(into: []) { $0.formUnion($1.keys) }

    /// The keys of the other check kinds that do not go with `kind`, in the order they are
    /// reported: by kind as ``checkKinds`` lists them, each kind's sorted (a key of two other
    /// kinds is reported twice).
    static func foreignKeys(of kind: (kind: String, keys: Set<String>)) -> [String] {
        var ordered: [String] = []
        for other in checkKinds where other.kind != kind.kind {
            ordered += other.keys.subtracting(kind.keys).sorted()
        }
        return ordered
    }

    mutating func check(
        _ node: YamlNode, id: String, scope: Scope, context: inout NameContext
    ) -> Check? {
        let kinds = Self.checkKinds.filter { node[$0.kind] != nil }
        if kinds.count > 1 {
            error(
                node[kinds[1].kind]!,
                "rule '\(id)' has more than one check kind (\(kinds.map(\.kind).joined(separator: ", ")))"
            )
            return nil
        }
        guard let kind = kinds.first else {
            error(
                node,
                "rule '\(id)' has no check: give one of \(Self.checkKinds.map(\.kind).joined(separator: ", "))"
            )
            return nil
        }
        // Keys of other check kinds do not go with this one.
        if node.mappingPairs?.contains(where: {
            let key = $0.key.scalar ?? ""
            return Self.checkKindKeys.contains(key) && !kind.keys.contains(key)
        }) == true {
            for key in Self.foreignKeys(of: kind) {
                if let n = node[key] { error(n, "'\(key)' does not go with '\(kind.kind)'") }
            }
        }
        let head = node[kind.kind]!
        switch kind.kind {
        case "every":
            guard let sel = selector(head, context: &context) else { return nil }
            guard let expectNode = node["expect"] else {
                error(head, "'every' needs 'expect'")
                return nil
            }
            let expectation: Expectation?
            if expectNode.mappingPairs != nil || expectNode.sequenceItems != nil {
                expectation = selector(expectNode, context: &context).map { .selector($0) }
            } else {
                var lookAhead = context
                lookAhead.allowsLookAhead = true
                expectation = expression(expectNode, context: lookAhead).map { .expression($0) }
                if case .expression(.literal(let v))? = expectation, v.typeName != "bool" {
                    error(
                        expectNode,
                        "'expect' must be a condition (true or false), not the \(v.typeName) \(v.rendered(bare: false))"
                    )
                }
            }
            var policy = UndecidedPolicy.fail
            if let u = node["undecided"] {
                if let v = u.scalar, let p = UndecidedPolicy(rawValue: v) {
                    policy = p
                } else {
                    error(u, "'undecided' must be fail, pass or inconclusive")
                }
            }
            guard let expectation else { return nil }
            return .every(sel, expect: expectation, undecided: policy)

        case "never":
            var scopeContext = context
            let absence: AbsenceScope
            if let between = node["between"] {
                if node["after"] != nil || node["before"] != nil || node["until"] != nil {
                    error(between, "'between' does not go with 'after', 'before' or 'until'")
                    return nil
                }
                guard let items = between.sequenceItems, items.count == 2 else {
                    error(between, "'between' takes two selectors: [FROM, TO]")
                    return nil
                }
                guard let from = selector(items[0], context: &scopeContext),
                    let to = selector(items[1], context: &scopeContext)
                else { return nil }
                absence = .intervals(from: from, to: to, open: false)
            } else if let until = node["until"] {
                guard let afterNode = node["after"] else {
                    error(until, "'until' goes with 'after': never X after Q until R")
                    return nil
                }
                if let b = node["before"] { error(b, "'before' does not go with 'until'") }
                guard let from = selector(afterNode, context: &scopeContext),
                    let to = selector(until, context: &scopeContext)
                else { return nil }
                absence = .intervals(from: from, to: to, open: true)
            } else if node["after"] != nil || node["before"] != nil {
                let after = node["after"].flatMap { selector($0, context: &scopeContext) }
                let before = node["before"].flatMap { selector($0, context: &scopeContext) }
                absence = .window(after: after, before: before)
            } else {
                absence = .global
            }
            context.captures.formUnion(scopeContext.captures)
            guard let sel = selector(head, context: &context) else { return nil }
            return .never(sel, scope: absence)

        case "count":
            guard let sel = selector(head, context: &context) else { return nil }
            let minimum = node["min"].flatMap { bound($0, "min", context: context) }
            let maximum = node["max"].flatMap { bound($0, "max", context: context) }
            if minimum == nil && maximum == nil {
                // A bound that was given but refused has its own error already.
                if node["min"] == nil && node["max"] == nil {
                    error(head, "'count' needs 'min' or 'max'")
                }
                return nil
            }
            if let minimum, let maximum, minimum > maximum {
                error(node["min"]!, "'min' (\(minimum)) is greater than 'max' (\(maximum))")
            }
            let by = node["by"].flatMap { expression($0, context: context) }
            return .count(sel, min: minimum, max: maximum, by: by)

        case "each":
            guard
                let trigger = sequence(
                    head, reportAt: node["report_at"], reportGen: node["report_gen"],
                    context: &context, what: "each")
            else { return nil }
            let answers = ["followed_by", "preceded_by", "never_after"].filter { node[$0] != nil }
            guard answers.count == 1 else {
                error(
                    answers.count > 1 ? node[answers[1]]! : head,
                    "'each' needs exactly one of followed_by, preceded_by, never_after")
                return nil
            }
            switch answers[0] {
            case "followed_by":
                var within: Expr?
                if let w = node["within_ms"] {
                    if scope == .corpus {
                        error(
                            w,
                            "'within_ms' needs a timeline with a clock: for: generation or source")
                    }
                    within = expression(w, context: context)
                    if within == nil { return nil }
                    if case .literal(let v)? = within,
                        v.number.map({ $0 < 0 || !$0.isFinite }) ?? true
                    {
                        error(
                            w,
                            "'within_ms' must be a number of milliseconds >= 0, not \(v.rendered(bare: false))"
                        )
                    }
                }
                var responseContext = context
                let unless = node["unless"].flatMap { selector($0, context: &responseContext) }
                if node["unless"] != nil, unless == nil { return nil }
                guard let answer = selector(node["followed_by"]!, context: &responseContext) else {
                    return nil
                }
                var atEnd = AtEnd.inconclusive
                if let a = node["at_end"] {
                    if let v = a.scalar, let parsed = AtEnd(rawValue: v) {
                        atEnd = parsed
                    } else {
                        error(a, "'at_end' must be inconclusive, fail or pass")
                    }
                }
                return .response(
                    trigger, followedBy: answer, within: within, unless: unless, atEnd: atEnd)
            case "preceded_by":
                for key in ["within_ms", "unless", "at_end"] {
                    if let n = node[key] {
                        error(n, "'\(key)' goes with 'followed_by', not 'preceded_by'")
                    }
                }
                var inner = context
                guard let enabling = selector(node["preceded_by"]!, context: &inner) else {
                    return nil
                }
                return .precedence(trigger, precededBy: enabling)
            default:
                for key in ["within_ms", "unless", "at_end"] {
                    if let n = node[key] {
                        error(n, "'\(key)' goes with 'followed_by', not 'never_after'")
                    }
                }
                var inner = context
                guard let forbidden = selector(node["never_after"]!, context: &inner) else {
                    return nil
                }
                context.captures.formUnion(inner.captures)
                return .neverAfter(trigger, forbidden)
            }

        case "forbid":
            guard let items = head.sequenceItems, !items.isEmpty else {
                error(
                    head,
                    "'forbid' takes a list of steps, such as [{ ev: ws.ping, as: p }, { ev: ws.ping }]"
                )
                return nil
            }
            guard
                let steps = sequence(
                    head, reportAt: node["report_at"], reportGen: nil, context: &context,
                    what: "forbid")
            else { return nil }
            var inner = context
            let without = node["without"].flatMap { selector($0, context: &inner) }
            if node["without"] != nil, without == nil { return nil }
            return .forbid(steps, without: without)

        default:
            if scope != .corpus {
                error(
                    node["for"] ?? head,
                    "'classify' labels generations across the corpus: it needs for: corpus")
            }
            guard let classification = classification(head, context: context) else { return nil }
            var required: [String] = []
            if let r = node["require"] {
                guard let items = r.sequenceItems, !items.isEmpty else {
                    error(r, "'require' takes a list of label names")
                    return nil
                }
                for item in items {
                    guard let name = item.scalar,
                        classification.labels.contains(where: { $0.name == name })
                    else {
                        error(
                            item,
                            "'require' names no label of 'classify' (labels: \(classification.labels.map(\.name).joined(separator: ", ")))"
                        )
                        continue
                    }
                    required.append(name)
                }
            }
            let minimum = node["min"].flatMap { bound($0, "min", context: context) } ?? 1
            var applies: Selector?
            if let a = node["applies_if"] {
                var inner = context
                applies = selector(a, context: &inner)
                if applies == nil { return nil }
            }
            return .classify(classification, require: required, min: minimum, appliesIf: applies)
        }
    }

    /// A trigger or forbidden sequence: one selector map, or a list of steps (each a selector map
    /// that may carry `without:`). Captures of a step are visible to the steps after it.
    mutating func sequence(
        _ node: YamlNode, reportAt: YamlNode?, reportGen: YamlNode?, context: inout NameContext,
        what: String
    ) -> Sequence? {
        var steps: [Step] = []
        if let items = node.sequenceItems {
            // A list is a sequence of steps (for `each` too: one obligation per match of the whole
            // sequence). A one-of trigger is written with a list value: { ev: [a, b] }.
            // The engine keeps a bit per step (SequenceRunner): no one writes a longer sequence.
            if items.count > Self.maxSteps {
                error(
                    items[Self.maxSteps],
                    "'\(what)' has at most \(Self.maxSteps) steps, found \(items.count)")
                return nil
            }
            var bound: [String: Int] = [:]
            for item in items {
                guard let pairs = item.mappingPairs else {
                    error(item, "a step must be a selector map, found a \(item.kindName)")
                    return nil
                }
                // A name bound by two steps would silently mean the later one in every `where`.
                if let asNode = pairs.first(where: { $0.key.scalar == "as" })?.value,
                    let name = asNode.scalar
                {
                    if let line = bound[name] {
                        error(
                            asNode,
                            "capture '\(name)' is already bound by the step at line \(line): give each step its own name"
                        )
                        return nil
                    }
                    bound[name] = item.line
                }
                var without: Selector?
                if let w = pairs.first(where: { $0.key.scalar == "without" }) {
                    var gap = context
                    without = selector(w.value, context: &gap)
                    if without == nil { return nil }
                }
                let stripped = YamlNode(
                    .mapping(pairs.filter { $0.key.scalar != "without" }), line: item.line,
                    column: item.column)
                guard let sel = selector(stripped, context: &context) else { return nil }
                steps.append(Step(selector: sel, without: without))
            }
        } else {
            guard let sel = selector(node, context: &context) else { return nil }
            steps = [Step(selector: sel, without: nil)]
        }
        // `report_at` and `report_gen` name a capture of the steps: .some(nil) when not given, nil
        // after an error.
        func capture(_ node: YamlNode?, _ key: String) -> String?? {
            guard let node else { return .some(nil) }
            guard let name = node.scalar, context.captures.contains(name) else {
                error(node, "'\(key)' must name a capture of the steps (as: …)")
                return nil
            }
            return name
        }
        guard let at = capture(reportAt, "report_at"), let gen = capture(reportGen, "report_gen")
        else { return nil }
        return Sequence(steps: steps, reportAt: at, reportGen: gen)
    }

    mutating func classification(_ node: YamlNode, context: NameContext) -> Classification? {
        guard let pairs = node.mappingPairs else {
            error(
                node,
                "'classify' takes a map: { per: generation, stream: ws, labels: { name: { has: …, lacks: … } } }"
            )
            return nil
        }
        for pair in pairs where !["per", "stream", "labels"].contains(pair.key.scalar ?? "") {
            error(
                pair.key,
                "unknown key '\(pair.key.scalar ?? "")' in 'classify' (expected per, stream, labels)"
            )
        }
        if let per = node["per"], per.scalar != "generation" {
            error(per, "'classify' labels generations: per must be generation")
        }
        guard let stream = node["stream"]?.scalar, !stream.isEmpty else {
            error(
                node,
                "'classify' needs 'stream' (the stream whose generations are labelled, e.g. ws)")
            return nil
        }
        guard let labelPairs = node["labels"]?.mappingPairs, !labelPairs.isEmpty else {
            error(
                node["labels"] ?? node,
                "'classify' needs 'labels': a map of label names to { has: …, lacks: … }")
            return nil
        }
        var labels: [Classification.Label] = []
        for pair in labelPairs {
            let name = pair.key.scalar ?? ""
            guard let spec = pair.value.mappingPairs else {
                error(pair.value, "label '\(name)' takes { has: SELECTOR, lacks: SELECTOR }")
                continue
            }
            for p in spec where !["has", "lacks"].contains(p.key.scalar ?? "") {
                error(
                    p.key,
                    "unknown key '\(p.key.scalar ?? "")' in label '\(name)' (expected has, lacks)")
            }
            var inner = context
            let has = pair.value["has"].flatMap { selector($0, context: &inner) }
            let lacks = pair.value["lacks"].flatMap { selector($0, context: &inner) }
            if has == nil && lacks == nil {
                error(pair.value, "label '\(name)' needs 'has' or 'lacks'")
                continue
            }
            labels.append(.init(name: name, has: has, lacks: lacks))
        }
        return Classification(stream: stream, labels: labels)
    }

    /// Every name bound with `as:` anywhere in a rule (to tell "used before bound" from a field).
    static func captureNames(in node: YamlNode) -> Set<String> {
        Set(captureNodes(in: node).map(\.name))
    }

    /// Every `as:` of a rule (not of its fixtures), with its value's node.
    static func captureNodes(in node: YamlNode) -> [(node: YamlNode, name: String)] {
        var out: [(node: YamlNode, name: String)] = []
        func walk(_ n: YamlNode) {
            switch n.kind {
            case .scalar: break
            case .sequence(let items): items.forEach(walk)
            case .mapping(let pairs):
                for p in pairs {
                    if p.key.scalar == "as", let name = p.value.scalar {
                        out.append((p.value, name))
                    }
                    if p.key.scalar != "tests" { walk(p.value) }
                }
            }
        }
        walk(node)
        return out
    }

    /// Fields connlog gives a fixed meaning: a let or capture of the same name hides the event's
    /// field from the rule's expressions (`as: t` makes `t` the captured event), which reads like
    /// the field but is not.
    static let fixedFieldNames: Set<String> = [
        "t", "ev", "gen", "src", "session", "reason", "error", "state"
    ]

    mutating func warnIfHidesField(_ node: YamlNode, _ name: String, _ what: String) {
        guard Self.fixedFieldNames.contains(name) else { return }
        warn(
            node,
            "\(what) '\(name)' hides the event field '\(name)' in this rule's expressions; choose another name"
        )
    }

    static let maxLets = 1_000
    /// Steps in one sequence (`forbid`, `each`).
    static let maxSteps = 64

    /// A `min`/`max` bound: a whole number, or `params.NAME` naming one (overridable with
    /// `--param`; recorded in ``boundParams``).
    mutating func bound(_ node: YamlNode, _ key: String, context: NameContext) -> Int? {
        guard let s = node.scalar, s.hasPrefix("params.") else { return count(node, key) }
        let name = String(s.dropFirst("params.".count))
        guard let value = context.params?[name] else {
            let known =
                context.params.map {
                    $0.isEmpty
                        ? "this rule defines no params"
                        : "this rule defines: \($0.keys.sorted().joined(separator: ", "))"
                } ?? ""
            error(node, "'\(key)': unknown param '\(name)' (\(known))")
            return nil
        }
        context.paramsReadBox.names.insert(name)
        guard let n = Self.wholeCount(value) else {
            error(
                node,
                "'\(key)': param '\(name)' must be a whole number >= 0, not \(value.rendered(bare: false))"
            )
            return nil
        }
        pendingBoundParams[key] = name
        return n
    }

    /// A param value usable as a count bound: a whole number >= 0.
    static func wholeCount(_ v: Value) -> Int? {
        switch v {
        case .int(let i) where i >= 0 && i <= Int64(Int32.max): return Int(i)
        case .double(let d) where d >= 0 && d <= Double(Int32.max) && d == d.rounded():
            return Int(d)
        default: return nil
        }
    }

    mutating func count(_ node: YamlNode, _ key: String) -> Int? {
        guard let s = node.scalar, let n = Int(s), n >= 0 else {
            error(node, "'\(key)' must be a whole number >= 0")
            return nil
        }
        return n
    }
}
