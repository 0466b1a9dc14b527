/// A rule ready to run: its params resolved (command line over rule over file) and what it
/// needs to remember about a timeline worked out once.
final class CompiledRule: @unchecked Sendable {
    let rule: Rule
    let index: Int
    let params: [String: Value]
    /// `ev` names whose events the history functions may look back at; nil: any event.
    let historyNames: Set<String>?
    /// Whether any history function is used at all (if not, nothing is retained).
    let usesHistory: Bool
    /// One history list per distinct set of `ev` names the history selectors name (nil: any
    /// event), so a look-back only walks events of the kinds it asks for.
    let historyLists: [Set<String>?]
    /// `ev` names this rule reacts to; nil: every event.
    let interest: Set<String>?

    /// Whether the rule can react to real events, not only the reader's `$` findings.
    var wantsRealEvents: Bool {
        guard let interest else { return true }
        return interest.contains { !$0.hasPrefix("$") }
    }

    init(rule: Rule, index: Int, overrides: [String: Value]) {
        self.rule = rule
        self.index = index
        var params = rule.params
        // `NAME=` first, then `RULE_ID.NAME=`, so the rule-specific value wins whatever the order.
        for (name, value) in overrides where params[name] != nil { params[name] = value }
        for (name, value) in overrides {
            if let dot = name.lastIndex(of: "."), name[..<dot] == rule.id {
                params[String(name[name.index(after: dot)...])] = value
            }
        }
        self.params = params

        var history: Set<String>? = []
        var uses = false
        var lists: [Set<String>?] = []
        func note(_ s: Selector) {
            uses = true
            let names = s.evNames
            if !lists.contains(where: { $0 == names }) { lists.append(names) }
            if let names = s.evNames, history != nil { history!.formUnion(names) } else { history = nil }
        }
        func scan(_ e: Expr) {
            NameWalker.walk(e) { sub in
                if case .history(let call) = sub {
                    note(call.selector)
                    if case .selector(let s)? = call.since { note(s) }
                }
            }
        }
        for (_, e) in rule.lets { scan(e) }
        let selectors = rule.check.selectors
        rule.check.expressions.forEach(scan)
        for s in selectors { NameWalker.walkSelector(s, scan) }
        if let message = rule.message {
            for part in message.parts { if case .expr(let e) = part { scan(e) } }
        }
        usesHistory = uses
        historyLists = lists
        historyNames = uses ? history : []

        var interest: Set<String>? = []
        for s in selectors {
            if let names = s.evNames, interest != nil { interest!.formUnion(names) } else { interest = nil }
        }
        if uses {
            if let h = historyNames, interest != nil { interest!.formUnion(h) } else { interest = nil }
        }
        self.interest = interest
    }
}

/// Lets every rule of one scope see only the events it can react to.
struct Dispatch {
    private var byName: [String: [Int]] = [:]
    private var everyEvent: [Int] = []
    let count: Int

    init(_ rules: [CompiledRule]) {
        count = rules.count
        for (i, r) in rules.enumerated() {
            if let names = r.interest {
                for n in names { byName[n, default: []].append(i) }
            } else {
                everyEvent.append(i)
            }
        }
        for key in byName.keys { byName[key]!.sort() }
    }

    /// Whether any rule of the scope reacts to `ev`.
    func reacts(to ev: String) -> Bool { !everyEvent.isEmpty || byName[ev] != nil }

    /// Indexes (into the scope's rule list) of the rules that react to `ev`, in rule order.
    func rules(for ev: String) -> [Int] {
        guard let named = byName[ev] else { return everyEvent }
        if everyEvent.isEmpty { return named }
        return (named + everyEvent).sorted()
    }
}
