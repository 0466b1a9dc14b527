/// What a rule's trees say about it, worked out once when it is compiled: which lets, captures
/// and history results each part reads, and which selectors read nothing bound outside them.
/// Walks of the rule only; nothing here runs per event.
extension CompiledRule {
    /// The rule's lets that its check, selectors or message read, directly or through other lets
    /// (in their written order).
    static func letsRead(by rule: Rule) -> [(name: String, expr: Expr)] {
        guard !rule.lets.isEmpty else { return [] }
        // The names read so far: a rule reads a few dozen, which a list finds sooner than a
        // set hashes them.
        var read: [String] = []
        // Names read for the first time, still to be followed into the lets of that name.
        var pending: [String] = []
        func expr(_ e: Expr) {
            NameWalker.walk(e) {
                if case .name(let n, _, _) = $0, !read.contains(n) {
                    read.append(n)
                    pending.append(n)
                }
            }
        }
        rule.check.expressions.forEach(expr)
        for s in rule.check.selectors { NameWalker.whereExpressions(of: s).forEach(expr) }
        if let message = rule.message {
            for case .expr(let e) in message.parts { expr(e) }
        }
        if case .classify(let c, _, _, _) = rule.check {
            for label in c.labels {
                [label.has, label.lacks].compactMap { $0 }.forEach {
                    NameWalker.whereExpressions(of: $0).forEach(expr)
                }
            }
        }
        // Lets reading lets: a worklist, each let walked once (a pass per let over all of them
        // is quadratic in a chain of lets that read each other).
        var byName: [String: [Int]] = [:]
        for (i, l) in rule.lets.enumerated() { byName[l.name, default: []].append(i) }
        while let name = pending.popLast() {
            for i in byName[name] ?? [] { expr(rule.lets[i].expr) }
        }
        return rule.lets.filter { read.contains($0.name) }
    }

    /// For each step index i, the capture names read by anything evaluated after step i matched:
    /// `kept` with what the message reads, `key` without it.
    static func capturesReadLater(_ rule: Rule, _ sequence: Sequence, without: Selector?) -> (
        kept: [Set<String>], key: [Set<String>]
    ) {
        func names(_ e: Expr) -> Set<String> {
            var out = Set<String>()
            NameWalker.walk(e) { if case .name(let n, _, _) = $0 { out.insert(n) } }
            return out
        }
        func names(_ s: Selector) -> Set<String> {
            var out = Set<String>()
            for w in NameWalker.whereExpressions(of: s) { out.formUnion(names(w)) }
            return out
        }
        // Read after the whole sequence: the answer, lets, report_at, report_gen; and messages.
        var after = Set<String>()
        switch rule.check {
        case .response(_, let f, let within, let unless, _):
            after.formUnion(names(f))
            if let within { after.formUnion(names(within)) }
            if let unless { after.formUnion(names(unless)) }
        case .precedence(_, let p): after.formUnion(names(p))
        case .neverAfter(_, let n): after.formUnion(names(n))
        default: break
        }
        if let without { after.formUnion(names(without)) }
        for (_, e) in rule.lets { after.formUnion(names(e)) }
        if let r = sequence.reportAt { after.insert(r) }
        if let r = sequence.reportGen { after.insert(r) }
        var afterWithMessage = after
        if let m = rule.message {
            for case .expr(let e) in m.parts { afterWithMessage.formUnion(names(e)) }
        }
        // Walk back: step i's partial must keep what steps after i (and their withouts) read.
        var kept = Array(repeating: Set<String>(), count: sequence.steps.count)
        var key = kept
        var neededKept = afterWithMessage
        var neededKey = after
        for i in stride(from: sequence.steps.count - 1, through: 0, by: -1) {
            kept[i] = neededKept
            key[i] = neededKey
            var read = names(sequence.steps[i].selector)
            if let w = sequence.steps[i].without { read.formUnion(names(w)) }
            neededKept.formUnion(read)
            neededKey.formUnion(read)
        }
        return (kept, key)
    }

    /// The lets of `rule` with a sub-expression for which `marks` holds, given the lets found so
    /// far: reading a found let marks a let too, so the search runs until no let is added.
    static func lets(of rule: Rule, where marks: (Expr, Set<String>) -> Bool) -> Set<String> {
        var found = Set<String>()
        var grew = true
        while grew {
            grew = false
            for (name, expr) in rule.lets where !found.contains(name) {
                var marked = false
                NameWalker.walk(expr) { if marks($0, found) { marked = true } }
                if marked { found.insert(name); grew = true }
            }
        }
        return found
    }

    /// Whether `sub` itself names a history result: a call with `as:`, or a read of one of `lets`.
    static func namesResult(_ sub: Expr, lets: Set<String>) -> Bool {
        switch sub {
        case .history(let call) where !call.resultCaptures.isEmpty: return true
        case .name(let n, _, _) where lets.contains(n): return true
        default: return false
        }
    }

    /// Whether trying a candidate against `selector` may name a history result: in any term's
    /// `where:` or in a `not:` selector's, which the scan evaluates for every candidate it tries.
    func bindsResults(_ selector: Selector) -> Bool {
        var binds = false
        NameWalker.walkSelector(selector) {
            if Self.namesResult($0, lets: resultLets) { binds = true }
        }
        return binds
    }

    /// Names bound with `as:` in a selector, nested ones included.
    static func captureNames(_ s: Selector) -> [String] {
        s.terms.flatMap { term in
            (term.capture.map { [$0] } ?? []) + (term.negated.map(captureNames) ?? [])
        }
    }

    /// Whether an expression reads only the candidate event (and params).
    static func isStaticValue(_ e: Expr, outer: Set<String>) -> Bool {
        var ok = true
        NameWalker.walk(e) { sub in
            switch sub {
            case .history: ok = false
            case .name(let n, _, _): if outer.contains(n) { ok = false }
            default: break
            }
        }
        return ok
    }

    /// Whether a selector depends only on the candidate event (and params): no names bound
    /// outside it, no history calls of its own.
    static func isStatic(_ s: Selector, outer: Set<String>) -> Bool {
        for term in s.terms {
            if let w = term.whereExpr {
                var ok = true
                NameWalker.walk(w) { sub in
                    switch sub {
                    case .history: ok = false
                    case .name(let n, _, _):
                        if outer.contains(n) && n != term.capture { ok = false }
                    default: break
                    }
                }
                if !ok { return false }
            }
            if let n = term.negated, !isStatic(n, outer: outer) { return false }
        }
        return true
    }
}
