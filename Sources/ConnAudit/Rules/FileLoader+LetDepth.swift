/// How deep evaluating a rule recurses once its lets are read: a let is evaluated where it is
/// first read, on top of the expression reading it, so a chain of lets each reading the one
/// before nests as deep as all of them together. ``ExpressionParser/maxDepth`` bounds each
/// expression, and this bounds the chains, so no evaluation can overflow the stack.
extension FileLoader {
    /// The deepest evaluation a rule may need, counting the lets read in place. The evaluator
    /// of a release build takes about 0.6 KB of stack a level (a thread's 8 MiB overflows at
    /// about 15,000): 3,000 levels take a fifth of it. A chain of 1,000 lets each reading the one
    /// before in `L + 1` is 2,000 levels. (A debug build takes 5 to 8 KB a level, and overflows
    /// from about 1,000.)
    static let maxEvaluationDepth = 3_000

    /// The first place where evaluating `rule` would go deeper than ``maxEvaluationDepth``: the
    /// let (nil: an expression of the check or message) and how deep, or nil when none does.
    /// `fileLetWalks` are the ``letWalk(_:)`` of the file's lets, the first of the rule's lets
    /// (fewer, or none: those left are walked here).
    static func evaluationTooDeep(_ rule: Rule, fileLetWalks: [LetWalk] = [])
        -> (letName: String?, depth: Int)?
    {
        // Without lets, the expressions are bounded each (and nested selectors with them).
        guard !rule.lets.isEmpty else { return nil }
        var slots: [String: Int] = [:]
        var walks: [LetWalk] = []
        var names: [String] = []
        // The last definition of a name wins, as in ``LetTable``.
        for (k, (name, expr)) in rule.lets.enumerated() {
            let w = k < fileLetWalks.count ? fileLetWalks[k] : letWalk(expr)
            if let i = slots[name] {
                walks[i] = w
            } else {
                slots[name] = walks.count
                walks.append(w)
                names.append(name)
            }
        }
        let depths = letDepths(walks, slots: slots)
        for (i, d) in depths.enumerated() where d > maxEvaluationDepth { return (names[i], d) }
        var roots: [Expr] = rule.check.expressions
        if let message = rule.message {
            for case .expr(let e) in message.parts { roots.append(e) }
        }
        var deepest = 0
        for root in roots {
            deepest = max(deepest, depth(root, from: 1, lets: slots, depths: depths))
        }
        for s in rule.check.selectors {
            for (w, level) in whereExpressions(s, from: 1) {
                deepest = max(deepest, depth(w, from: level, lets: slots, depths: depths))
            }
        }
        return deepest > maxEvaluationDepth ? (nil, deepest) : nil
    }

    /// What walking a let's expression finds, whichever rule reads it: how deep the expression
    /// goes, and each bare name in it with the level it is read at, in the walk's order.
    struct LetWalk {
        var own = 0
        var names: [(name: String, level: Int)] = []
    }

    static func letWalk(_ e: Expr) -> LetWalk {
        var out = LetWalk()
        walk(e, from: 1) { sub, l in
            out.own = max(out.own, l)
            if case .name(let n, _, _) = sub { out.names.append((n, l)) }
        }
        return out
    }

    /// The levels an expression's evaluation takes, its root at `level`: each sub-expression is
    /// a level below its parent, a `where:` inside a history call's selector one below the call
    /// (and one more per `not:`), and a let read at level L takes L + its own depth.
    private static func depth(_ root: Expr, from level: Int, lets: [String: Int], depths: [Int])
        -> Int
    {
        var deepest = 0
        walk(root, from: level) { e, l in
            deepest = max(deepest, l)
            if case .name(let n, _, _) = e, let slot = lets[n] {
                deepest = max(deepest, l + depths[slot])
            }
        }
        return deepest
    }

    /// Each let's evaluation depth, the lets it reads included. A let being evaluated that is
    /// read again answers undecided without evaluating, so a let is on the stack at most once:
    /// within a cycle of lets reading one another, the bound adds up the deepest read of each.
    private static func letDepths(_ walks: [LetWalk], slots: [String: Int]) -> [Int] {
        // Per let: its own depth, and the lets it reads with the level of each read.
        var own: [Int] = []
        var reads: [[(slot: Int, level: Int)]] = []
        var readsLets = false
        for w in walks {
            own.append(w.own)
            var r: [(slot: Int, level: Int)] = []
            for n in w.names {
                if let slot = slots[n.name] { r.append((slot, n.level)) }
            }
            readsLets = readsLets || !r.isEmpty
            reads.append(r)
        }
        // No let reads a let: each is a component of its own, whose depth is its own (none
        // read inside it, none outside).
        if !readsLets { return own }
        return componentDepths(own: own, reads: reads)
    }

    /// Each let's depth from its own depth and the lets it reads (slot, level of the read), by
    /// the components of the graph of reads.
    static func componentDepths(own: [Int], reads: [[(slot: Int, level: Int)]]) -> [Int] {
        var depths = Array(repeating: 0, count: own.count)
        var componentOf = Array(repeating: -1, count: own.count)
        for (c, component) in stronglyConnected(reads.map { $0.map(\.slot) }).enumerated() {
            for i in component { componentOf[i] = c }
            // Components come callees first: every let read from outside is done.
            var inside = 0
            var outside = 0
            for i in component {
                var deepestInside = 0
                for r in reads[i] {
                    if componentOf[r.slot] == c {
                        deepestInside = max(deepestInside, r.level)
                    } else {
                        outside = max(outside, r.level + depths[r.slot])
                    }
                }
                inside += deepestInside
                outside = max(outside, own[i])
            }
            for i in component { depths[i] = inside + outside }
        }
        return depths
    }

    /// Tarjan's strongly connected components of a graph given as edges per node, without
    /// recursion (a chain of a thousand lets would be a thousand frames), each component
    /// listed after every component it reaches.
    static func stronglyConnected(_ edges: [[Int]]) -> [[Int]] {
        let n = edges.count
        var index = Array(repeating: -1, count: n)
        var low = Array(repeating: 0, count: n)
        var onStack = Array(repeating: false, count: n)
        var stack: [Int] = []
        var out: [[Int]] = []
        var next = 0
        for start in 0..<n where index[start] < 0 {
            // (node, the next of its edges to follow)
            var work: [(node: Int, edge: Int)] = [(start, 0)]
            index[start] = next; low[start] = next; next += 1
            stack.append(start); onStack[start] = true
            while let (v, e) = work.last {
                if e < edges[v].count {
                    work[work.count - 1].edge += 1
                    let w = edges[v][e]
                    if index[w] < 0 {
                        index[w] = next; low[w] = next; next += 1
                        stack.append(w); onStack[w] = true
                        work.append((w, 0))
                    } else if onStack[w] {
                        low[v] = min(low[v], index[w])
                    }
                    continue
                }
                work.removeLast()
                if let parent = work.last { low[parent.node] = min(low[parent.node], low[v]) }
                guard low[v] == index[v] else { continue }
                var component: [Int] = []
                while let w = stack.popLast() {
                    onStack[w] = false
                    component.append(w)
                    if w == v { break }
                }
                out.append(component)
            }
        }
        return out
    }

    /// Visits every sub-expression of `root` with its level (as ``depth(_:from:lets:depths:)``
    /// counts), the `where:` of selectors in history calls included, with a stack of its own.
    private static func walk(_ root: Expr, from level: Int, _ visit: (Expr, Int) -> Void) {
        var stack: [(Expr, Int)] = [(root, level)]
        while let (e, l) = stack.popLast() {
            visit(e, l)
            switch e {
            case .literal, .name, .field: break
            case .member(let b, _, _, _): stack.append((b, l + 1))
            case .index(let a, let b): stack.append((a, l + 1)); stack.append((b, l + 1))
            case .list(let items): for i in items { stack.append((i, l + 1)) }
            case .map(let entries): for (_, v) in entries { stack.append((v, l + 1)) }
            case .unary(_, let a): stack.append((a, l + 1))
            case .binary(_, let a, let b, _): stack.append((a, l + 1)); stack.append((b, l + 1))
            case .conditional(let a, let b, let c):
                stack.append((a, l + 1)); stack.append((b, l + 1)); stack.append((c, l + 1))
            case .call(_, let args, _): for a in args { stack.append((a, l + 1)) }
            case .regex(let a, _): stack.append((a, l + 1))
            case .history(let call):
                if let v = call.value { stack.append((v, l + 1)) }
                stack += whereExpressions(call.selector, from: l + 1)
                if case .selector(let s)? = call.since { stack += whereExpressions(s, from: l + 1) }
            }
        }
    }

    /// The `where:` expressions of a selector and of the `not:` selectors in it, with the level
    /// each starts at (`level`, one more per `not:`).
    private static func whereExpressions(_ selector: Selector, from level: Int) -> [(Expr, Int)] {
        var out: [(Expr, Int)] = []
        var pending: [(Selector, Int)] = [(selector, level)]
        while let (s, l) = pending.popLast() {
            for term in s.terms {
                if let w = term.whereExpr { out.append((w, l)) }
                if let n = term.negated { pending.append((n, l + 1)) }
            }
        }
        return out
    }
}
