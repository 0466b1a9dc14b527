/// A rule ready to run: its params resolved (command line over rule over file) and what it
/// needs to remember about a timeline worked out once.
final class CompiledRule: @unchecked Sendable {
    let rule: Rule
    let index: Int
    let params: [String: Value]
    /// Params and file paths, shared by every evaluation of the rule (set by the plan).
    var environment = EvalEnvironment(params: [:], files: [])
    /// `ev` names whose events the history functions may look back at; nil: any event.
    let historyNames: Set<String>?
    /// The same as ids, and the ids of each history list (nil: any).
    let historyIDs: [Int32]?
    let historyListIDs: [[Int32]?]
    /// For each correlated call (by slot): its list, and its `since` selector's list.
    let listOfSlot: [Int: Int]
    let sinceListOfSlot: [Int: Int]
    /// For `preceded_by`: the history list of the enabling selector.
    let precedenceList: Int?
    /// `let:` names whose value depends only on static history calls, params and other such lets.
    let staticLets: Set<String>
    /// Whether the message reads history (then an obligation renders it when it opens, so it
    /// describes the trigger's moment, not the moment the deadline was decided).
    let messageReadsHistory: Bool
    /// Whether any history function is used at all (if not, nothing is retained).
    let usesHistory: Bool
    /// One history list per distinct set of `ev` names the correlated history selectors name
    /// (nil: any event), so a look-back only walks events of the kinds it asks for.
    let historyLists: [Set<String>?]
    /// History calls answered from running aggregates; `staticSlots` maps a call's slot to its
    /// position here.
    let staticCalls: [StaticCall]
    let staticSlots: [Int: Int]
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
        environment = EvalEnvironment(params: params, files: [])

        // Every history call of the rule, wherever it is written (nested selectors too).
        var calls: [HistoryCall] = []
        func collect(_ e: Expr) {
            NameWalker.walk(e) { sub in
                if case .history(let call) = sub, !calls.contains(where: { $0.slot == call.slot }) { calls.append(call) }
            }
        }
        for (_, e) in rule.lets { collect(e) }
        let selectors = rule.check.selectors
        rule.check.expressions.forEach(collect)
        for s in selectors { NameWalker.walkSelector(s, collect) }
        if let message = rule.message {
            for part in message.parts { if case .expr(let e) = part { collect(e) } }
        }

        // A call that reads nothing bound outside its selector can be answered from a running
        // aggregate (first, last, count since the cut) instead of a list of past events.
        // Names bound anywhere in the rule: top-level captures, lets, and captures bound inside
        // history selectors (visible to calls nested in their `where`).
        var outer = Set(rule.lets.map(\.name)).union(selectors.flatMap(Self.captureNames))
        for call in calls {
            outer.formUnion(Self.captureNames(call.selector))
            if case .selector(let s)? = call.since { outer.formUnion(Self.captureNames(s)) }
        }
        var aggregates: [StaticCall] = []
        var slots: [Int: Int] = [:]
        var listOfSlot: [Int: Int] = [:]
        var sinceListOfSlot: [Int: Int] = [:]
        var history: Set<String>? = []
        var lists: [Set<String>?] = []
        func note(_ s: Selector) {
            if let names = s.evNames, history != nil { history!.formUnion(names) } else { history = nil }
        }
        for call in calls {
            note(call.selector)
            var since: Selector?
            var sinceIsStatic = true
            switch call.since {
            case nil: break
            case .selector(let s)?:
                note(s)
                since = s
                sinceIsStatic = Self.isStatic(s, outer: outer)
            case .capture?:
                sinceIsStatic = false
            }
            let valueIsStatic = call.value.map { Self.isStaticValue($0, outer: outer) } ?? true
            if sinceIsStatic, valueIsStatic, Self.isStatic(call.selector, outer: outer) {
                slots[call.slot] = aggregates.count
                aggregates.append(StaticCall(selector: call.selector, since: since, value: call.value))
                continue
            }
            for s in [call.selector] + (since.map { [$0] } ?? []) where !lists.contains(where: { $0 == s.evNames }) {
                lists.append(s.evNames)
            }
            listOfSlot[call.slot] = lists.firstIndex { $0 == call.selector.evNames }
            if let since { sinceListOfSlot[call.slot] = lists.firstIndex { $0 == since.evNames } }
        }
        // `preceded_by` looks back through a list of its own.
        var precedence: Int?
        if case .precedence(_, let enabling) = rule.check {
            note(enabling)
            if let i = lists.firstIndex(where: { $0 == enabling.evNames }) { precedence = i } else {
                lists.append(enabling.evNames)
                precedence = lists.count - 1
            }
        }
        precedenceList = precedence
        usesHistory = !calls.isEmpty || precedence != nil
        historyLists = lists
        staticCalls = aggregates
        staticSlots = slots
        historyNames = usesHistory ? history : []
        var messageHistory = false
        if let message = rule.message {
            for case .expr(let e) in message.parts {
                NameWalker.walk(e) { if case .history = $0 { messageHistory = true } }
            }
        }
        messageReadsHistory = messageHistory
        var staticNames = Set<String>()
        for (name, expr) in rule.lets {
            var ok = true
            NameWalker.walk(expr, intoSelectors: false) { sub in
                switch sub {
                case .history(let call): if slots[call.slot] == nil { ok = false }
                case .name(let n, _): if n != "params" && !staticNames.contains(n) { ok = false }
                default: break
                }
            }
            // A later definition of the same name replaces it: judge the last one.
            if ok { staticNames.insert(name) } else { staticNames.remove(name) }
        }
        staticLets = staticNames
        historyIDs = historyNames.map { $0.map { EvNames.id($0) } }
        historyListIDs = lists.map { $0.map { $0.map { EvNames.id($0) } } }
        self.listOfSlot = listOfSlot
        self.sinceListOfSlot = sinceListOfSlot

        var interest: Set<String>? = []
        for s in selectors {
            if let names = s.evNames, interest != nil { interest!.formUnion(names) } else { interest = nil }
        }
        if usesHistory {
            if let h = historyNames, interest != nil { interest!.formUnion(h) } else { interest = nil }
        }
        self.interest = interest
        switch rule.check {
        case .forbid(let s, let w): keptCaptures = Self.capturesReadLater(rule, s, without: w)
        case .response(let s, _, _, _, _), .precedence(let s, _), .neverAfter(let s, _):
            keptCaptures = Self.capturesReadLater(rule, s, without: nil)
        default: keptCaptures = []
        }
    }

    /// For sequence checks: per step, the captures read after it (see ``SequenceRunner``).
    /// (Computed in init: runners on several threads read it.)
    let keptCaptures: [Set<String>]

    /// For each step index i, the capture names read by anything evaluated after step i matched.
    static func capturesReadLater(_ rule: Rule, _ sequence: Sequence, without: Selector?) -> [Set<String>] {
        func names(_ e: Expr) -> Set<String> {
            var out = Set<String>()
            NameWalker.walk(e) { if case .name(let n, _) = $0 { out.insert(n) } }
            return out
        }
        func names(_ s: Selector) -> Set<String> {
            var out = Set<String>()
            NameWalker.walkSelector(s) { out.formUnion(names($0)) }
            return out
        }
        // Read after the whole sequence: the answer, messages, lets, report_at.
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
        if let m = rule.message { for case .expr(let e) in m.parts { after.formUnion(names(e)) } }
        for (_, e) in rule.lets { after.formUnion(names(e)) }
        if let r = sequence.reportAt { after.insert(r) }
        // Walk back: step i's partial must keep what steps after i (and their withouts) read.
        var out = Array(repeating: Set<String>(), count: sequence.steps.count)
        var needed = after
        for i in stride(from: sequence.steps.count - 1, through: 0, by: -1) {
            out[i] = needed
            needed.formUnion(names(sequence.steps[i].selector))
            if let w = sequence.steps[i].without { needed.formUnion(names(w)) }
        }
        return out
    }


    /// Names bound with `as:` in a selector, nested ones included.
    static func captureNames(_ s: Selector) -> [String] {
        s.terms.flatMap { term in (term.capture.map { [$0] } ?? []) + (term.negated.map(captureNames) ?? []) }
    }

    /// Whether an expression reads only the candidate event (and params).
    static func isStaticValue(_ e: Expr, outer: Set<String>) -> Bool {
        var ok = true
        NameWalker.walk(e) { sub in
            switch sub {
            case .history: ok = false
            case .name(let n, _): if outer.contains(n) { ok = false }
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
                    case .name(let n, _): if outer.contains(n) && n != term.capture { ok = false }
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

/// A history call answered from a running aggregate: the first and last matching event, how many
/// matched, and the largest and smallest `value`, since the latest `since` match.
struct StaticCall {
    let selector: Selector
    let since: Selector?
    let value: Expr?
}

/// Lets every rule of one scope see only the events it can react to.
struct Dispatch {
    /// Rule indexes by ``EvNames`` id (rules reacting to any event included), in rule order.
    private var byID: [[Int]] = []
    /// Rules that react to any event: for ids no rule names.
    private var everyEvent: [Int] = []
    let count: Int

    init(_ rules: [CompiledRule]) {
        count = rules.count
        var byName: [String: [Int]] = [:]
        for (i, r) in rules.enumerated() {
            if let names = r.interest {
                for n in names { byName[n, default: []].append(i) }
            } else {
                everyEvent.append(i)
            }
        }
        var table: [[Int]] = []
        for (name, indexes) in byName {
            let id = Int(EvNames.id(name))
            if table.count <= id { table += Array(repeating: [], count: id + 1 - table.count) }
            table[id] = indexes
        }
        byID = table.map { ($0 + everyEvent).sorted() }
    }

    /// Whether any rule of the scope reacts to the event.
    func reacts(to e: Event) -> Bool { !rules(for: e.evID).isEmpty }

    /// Indexes (into the scope's rule list) of the rules that react to an event, in rule order.
    @inline(__always) func rules(for id: Int32) -> [Int] {
        let i = Int(id)
        if i >= 0 && i < byID.count { return byID[i].isEmpty && !everyEvent.isEmpty ? everyEvent : byID[i] }
        return everyEvent
    }
}
