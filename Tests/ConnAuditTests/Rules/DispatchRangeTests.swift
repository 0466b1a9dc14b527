import Testing

@testable import ConnAudit

/// An event's rules are a range of one shared table: for every `ev` name, the range holds exactly
/// the rules that name it or react to any event, in rule order.
@Suite struct DispatchRangeTests {
    /// The rules an event with `name` reaches, found rule by rule.
    private static func expected(_ rules: [CompiledRule], _ name: String?) -> [Int] {
        rules.indices.filter { i in
            guard let interest = rules[i].interest else { return true }
            return name.map(interest.contains) ?? false
        }
    }

    private static func found(_ dispatch: Dispatch, _ id: Int32) -> [Int] {
        dispatch.rules(for: id).map { dispatch.entry(at: $0).rule }
    }

    @Test func everyNameOfThePackReachesTheRulesThatNameIt() {
        // The pack's own subsets, as the plan makes them: all its rules and each scope's, and none.
        let scopes = DispatchTestRules.packScopes() + [[]]
        let compiled = scopes[0]
        let names = Set(compiled.flatMap { $0.interest ?? [] }).sorted()
        #expect(names.count > 20)
        for rules in scopes {
            let dispatch = Dispatch(rules)
            for name in names {
                #expect(
                    Self.found(dispatch, EvNames.id(name)) == Self.expected(rules, name), "\(name)")
            }
            // An id no rule names, and none at all: the rules that react to any event.
            #expect(Self.found(dispatch, -1) == Self.expected(rules, nil))
            #expect(Self.found(dispatch, Int32.max) == Self.expected(rules, nil))
        }
    }

    @Test func rulesReactingToAnyEventAreInEveryRangeInRuleOrder() throws {
        let rules = try DispatchTestRules.rules(
            """
            rules:
              - { id: d.any, title: T, for: source, never: { where: "false" } }
              - { id: d.ping, title: T, for: source, never: { ev: ws.ping, where: "false" } }
              - { id: d.any2, title: T, for: source, never: { where: "t < 0" } }
              - { id: d.pong, title: T, for: source, never: { ev: [ws.pong, ws.ping], where: "false" } }
            """)
        let dispatch = Dispatch(rules)
        #expect(Self.found(dispatch, EvNames.id("ws.ping")) == [0, 1, 2, 3])
        #expect(Self.found(dispatch, EvNames.id("ws.pong")) == [0, 2, 3])
        #expect(Self.found(dispatch, -1) == [0, 2])
        #expect(dispatch.reacts(to: Event(t: 0, ev: "app.tick")))
        #expect(!Dispatch(Array(rules[1...1])).reacts(to: Event(t: 0, ev: "ws.pong")))
    }
}
