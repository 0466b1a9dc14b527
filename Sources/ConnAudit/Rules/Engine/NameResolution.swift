/// Resolves bare names once, when a rule is compiled.
///
/// A bare name is, in this order, a `let:` binding, a capture or named result, or a field of the
/// current event (docs/rules.md). Which of these a name is follows from the rule alone: a name
/// that is neither a let nor captured anywhere in the rule (nor `params`) is a field, and becomes
/// ``Expr/field(_:)``, read straight from the event. Any other name stays ``Expr/name(_:at:)``
/// and is looked up among lets, captures and results; where it is not bound (yet) it is null,
/// never a field of the same name.
enum NameResolution {
    /// - Parameter params: the rule's params as it will run with them (command line over rule
    ///   over file): `params.x` becomes that value when nothing in the rule binds the name
    ///   `params`, as the evaluator would read it at every evaluation. Nil: left to the evaluator.
    static func resolve(_ rule: Rule, params: [String: Value]? = nil) -> Rule {
        let r = resolver(for: rule, params: params)
        var out = rule
        out.lets = rule.lets.map { (name: $0.name, expr: r.expr($0.expr)) }
        out.check = r.check(rule.check)
        if let message = rule.message {
            out.message = MessageTemplate(
                parts: message.parts.map { part in
                    if case .expr(let e) = part { return .expr(r.expr(e)) }
                    return part
                })
        }
        return out
    }

    /// What resolves the names of `rule`'s trees (``resolve(_:params:)``).
    static func resolver(for rule: Rule, params: [String: Value]? = nil) -> Resolver {
        // A handful of names: an array searched in order costs less than a set hashed and made.
        var bound = rule.lets.map(\.name)
        collectCaptures(rule, into: &bound)
        // The `as:` names that are no let (those added after the lets), in name order: a
        // capture's place there is its slot.
        let captures = bound[rule.lets.count...].sorted()
        // `params` is a let or a capture of this rule? Then `params.x` is looked up at run time.
        let constants = bound.contains("params") ? nil : params
        bound.append("params")
        // Where each let sits in the rule's let table (made from these same lets).
        let letNames = LetTable.names(of: rule.lets)
        var slots: [String: Int32] = [:]
        for (i, n) in letNames.enumerated() { slots[n] = Int32(i) }
        return Resolver(
            bound: bound, layout: LetLayouts.id(letNames), letSlots: slots,
            captures: captures, params: constants)
    }

    /// Every `as:` name in the rule, wherever its selector is written.
    private static func collectCaptures(_ rule: Rule, into names: inout [String]) {
        NameWalker.walkTerms(rule.check, lets: rule.lets, message: rule.message) { term in
            if let c = term.capture, !names.contains(c) { names.append(c) }
        }
    }

    /// Resolves the names of one rule's trees. Each `resolved` answers nil when nothing in its
    /// tree changes, so a tree without names to resolve is kept as it is, not built again.
    struct Resolver {
        /// Every name the rule binds (lets, captures, results, `params`).
        let bound: [String]
        let layout: Int32
        let letSlots: [String: Int32]
        /// The rule's `as:` names that are no let, in name order (``LetSlot/capture``).
        let captures: [String]
        /// The rule's params, when `params.x` can be read once here (see ``resolve(_:params:)``).
        let params: [String: Value]?

        func expr(_ e: Expr) -> Expr { resolved(e) ?? e }

        /// `e` with its names resolved; nil when that is `e` itself.
        func resolved(_ e: Expr) -> Expr? {
            switch e {
            case .literal, .field: return nil
            case .name(let n, let at, let slot):
                guard bound.contains(n) else { return .field(n, id: FieldNames.id(n)) }
                let letSlot = letSlots[n] ?? -1
                let capture = letSlot < 0 ? captures.firstIndex(of: n).map(Int32.init) ?? -1 : -1
                let resolvedSlot = LetSlot(layout: layout, slot: letSlot, capture: capture)
                return resolvedSlot == slot ? nil : .name(n, at: at, slot: resolvedSlot)
            case .member(let b, let n, let id, let at):
                if let params, case .name("params", _, _) = b {
                    return .literal(params[n] ?? .null)
                }
                let base = resolved(b)
                let fieldID = FieldNames.id(n)
                guard base != nil || fieldID != id else { return nil }
                return .member(base ?? b, n, id: fieldID, at: at)
            case .index(let a, let b):
                let x = resolved(a), y = resolved(b)
                guard x != nil || y != nil else { return nil }
                return .index(x ?? a, y ?? b)
            case .list(let items): return resolved(items).map { .list($0) }
            case .map(let entries):
                guard let values = resolved(entries.map(\.1)) else { return nil }
                return .map(zip(entries, values).map { ($0.0, $1) })
            case .unary(let op, let a): return resolved(a).map { .unary(op, $0) }
            case .binary(let op, let a, let b, let at):
                let x = resolved(a), y = resolved(b)
                let l = x ?? a, r = y ?? b
                if let rewritten = Self.existence(op, l, r, at: at) { return rewritten }
                guard x != nil || y != nil else { return nil }
                return .binary(op, l, r, at: at)
            case .conditional(let a, let b, let c):
                let x = resolved(a), y = resolved(b), z = resolved(c)
                guard x != nil || y != nil || z != nil else { return nil }
                return .conditional(x ?? a, y ?? b, z ?? c)
            case .call(let n, let args, let at):
                return resolved(args).map { .call(n, $0, at: at) }
            case .regex(let a, let regex): return resolved(a).map { .regex($0, regex) }
            case .history(let call):
                let selector = resolved(call.selector)
                let value = call.value.flatMap(resolved)
                var since: Selector?
                if case .selector(let s)? = call.since { since = resolved(s) }
                guard selector != nil || value != nil || since != nil else { return nil }
                var out = call
                if let selector { out.selector = selector }
                if let value { out.value = value }
                if let since { out.since = .selector(since) }
                return .history(out)
            }
        }

        /// `items` with their names resolved; nil when none changes.
        private func resolved(_ items: [Expr]) -> [Expr]? {
            var out: [Expr]?
            for (i, item) in items.enumerated() {
                guard let r = resolved(item) else { continue }
                if out == nil { out = items }
                out![i] = r
            }
            return out
        }

        /// `count(S) > 0` asks only whether S has a match: it becomes `first(S) != null`, which
        /// stops at the first match instead of counting them all (`count(S) == 0`: `first(S) ==
        /// null`).
        static func existence(_ op: Expr.BinaryOp, _ l: Expr, _ r: Expr, at: Int) -> Expr? {
            guard case .history(var call) = l, call.kind == .count, case .literal(.int(let n)) = r
            else { return nil }
            let some: Bool
            switch (op, n) {
            case (.greater, 0), (.greaterEqual, 1), (.notEqual, 0): some = true
            case (.equal, 0), (.less, 1), (.lessEqual, 0): some = false
            default: return nil
            }
            call.kind = .first
            call.existence = true
            return .binary(some ? .notEqual : .equal, .history(call), .literal(.null), at: at)
        }

        func selector(_ s: Selector) -> Selector { resolved(s) ?? s }

        /// `s` with the names of its terms resolved (their tests' fields take ids); nil when no
        /// term changes. The terms keep their `ev` names, so the selector keeps its ids.
        func resolved(_ s: Selector) -> Selector? {
            var terms: [Selector.Term]?
            for (i, term) in s.terms.enumerated() {
                guard let t = resolved(term) else { continue }
                if terms == nil { terms = s.terms }
                terms![i] = t
            }
            return terms.map { s.replacingTerms(sameEvNames: $0) }
        }

        private func resolved(_ term: Selector.Term) -> Selector.Term? {
            var tests: [Selector.FieldTest]?
            for (i, test) in term.tests.enumerated() {
                var interned = test
                interned.intern()
                guard interned.fieldID != test.fieldID else { continue }
                if tests == nil { tests = term.tests }
                tests![i] = interned
            }
            // A parsed `where:` is compiled here, resolved or not.
            let whereExpr =
                term.whereExpr.flatMap(resolved) ?? (term.whereIsCompiled ? nil : term.whereExpr)
            let negated = term.negated.flatMap(resolved)
            guard tests != nil || whereExpr != nil || negated != nil else { return nil }
            var t = term
            if let tests { t.tests = tests }
            if let whereExpr { t.whereExpr = whereExpr }
            if let negated { t.negated = negated }
            return t
        }

        func sequence(_ q: Sequence) -> Sequence {
            var out = q
            out.steps = q.steps.map {
                Step(selector: selector($0.selector), without: $0.without.map(selector))
            }
            return out
        }

        func check(_ c: Check) -> Check {
            switch c {
            case .every(let s, let expect, let policy):
                let e: Expectation
                switch expect {
                case .expression(let x): e = .expression(expr(x))
                case .selector(let x): e = .selector(selector(x))
                }
                return .every(selector(s), expect: e, undecided: policy)
            case .never(let s, let scope):
                let resolved: AbsenceScope
                switch scope {
                case .global: resolved = .global
                case .window(let a, let b):
                    resolved = .window(after: a.map(selector), before: b.map(selector))
                case .intervals(let f, let t, let open):
                    resolved = .intervals(from: selector(f), to: selector(t), open: open)
                }
                return .never(selector(s), scope: resolved)
            case .count(let s, let lo, let hi, let by):
                return .count(selector(s), min: lo, max: hi, by: by.map(expr))
            case .response(let t, let f, let within, let unless, let atEnd):
                return .response(
                    sequence(t), followedBy: selector(f), within: within.map(expr),
                    unless: unless.map(selector), atEnd: atEnd)
            case .precedence(let t, let p):
                return .precedence(sequence(t), precededBy: selector(p))
            case .neverAfter(let t, let n):
                return .neverAfter(sequence(t), selector(n))
            case .forbid(let q, let without):
                return .forbid(sequence(q), without: without.map(selector))
            case .classify(let c, let require, let minimum, let appliesIf):
                var out = c
                out.labels = c.labels.map { label in
                    var l = label
                    l.has = label.has.map(selector)
                    l.lacks = label.lacks.map(selector)
                    return l
                }
                return .classify(
                    out, require: require, min: minimum, appliesIf: appliesIf.map(selector))
            }
        }
    }
}
