import Testing

@testable import ConnAudit

/// A dispatch entry carries its rule's route for the span's id: what the runner would read from
/// its own table (``RunnerRoutes``) for every id of the span, including ids that only a rule
/// reacting to any event tells apart.
@Suite struct DispatchRoutesTests {
    /// Every entry of every id's span (and of an id no rule names) against the rule's table.
    private static func expectRoutesAgree(_ rules: [CompiledRule], ids: [Int32]) {
        let dispatch = Dispatch(rules)
        for id in ids {
            for k in dispatch.rules(for: id) {
                let entry = dispatch.entry(at: k)
                #expect(
                    entry.route == rules[entry.rule].routes.view.route(for: id),
                    "rule \(rules[entry.rule].rule.id), id \(id)")
            }
        }
    }

    @Test func thePacksEntriesHoldEachRulesRouteForTheID() {
        let scopes = DispatchTestRules.packScopes()
        let ids = (-1..<Int32(EvNames.count)).map { $0 } + [Int32.max]
        for rules in scopes { Self.expectRoutesAgree(rules, ids: ids) }
    }

    /// A rule that reacts to any event (its history reads every id) but handles `ws.ping`
    /// alone, with no other rule naming `ws.ping`: the ping's route differs from an unnamed
    /// id's, so the ping needs a span of its own.
    @Test func anIDOnlyARuleOfAnyEventTellsApartHasItsOwnRoute() throws {
        let rules = try DispatchTestRules.rules(
            """
            rules:
              - id: d.any
                title: T
                for: source
                never: { ev: ws.ping, where: "count({}) > 3" }
              - id: d.pong
                title: T
                for: source
                never: { ev: ws.pong, where: "false" }
            """)
        #expect(rules[0].interest == nil)
        let ping = EvNames.id("ws.ping")
        let view = rules[0].routes.view
        #expect(view.route(for: ping) != view.route(for: -1))
        let dispatch = Dispatch(rules)
        let entries = dispatch.rules(for: ping).map(dispatch.entry(at:))
        #expect(entries.map(\.rule) == [0])
        #expect(entries.first?.route.flags.contains(.handles) == true)
        let unnamed = dispatch.rules(for: -1).map(dispatch.entry(at:))
        #expect(unnamed.first?.route == view.route(for: -1))
        Self.expectRoutesAgree(rules, ids: [-1, ping, EvNames.id("ws.pong"), Int32.max])
    }
}
