import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A runner moves a running aggregate from its ``StaticCallTable`` entry: the entry says the
/// call's kind, whether the id alone matches its selector or `since`, and whether it keeps a
/// value, and the call is read only to evaluate what the id does not decide. An aggregate set
/// back at a `since` cut while empty does not change, and the lets that read it stay fresh.
@Suite struct AggregatesMovedFromTheirTableEntryTests {
    typealias Shared = StaticCallsAskedAlikeShareOneAggregateTests

    /// Each entry says of its call what the call says of itself, for the ids its selector and
    /// `since` name and for any other id.
    @Test(arguments: [
        "first({ev: ws.pong}, since: {ev: ws.ping}) != null",
        "last({ev: ws.ping, where: 'id > 1'}, since: {ev: [ws.open, ws.close]}) != null",
        "count({ev: ws.ping}, since: {ev: ws.open, where: 'id == 2'}) > 0",
        "maxof({ev: [ws.ping, ws.pong]}, id) != null and minof({ev: ws.ping}, id) != null"
    ])
    func anEntrySaysWhatItsCallSays(_ expect: String) throws {
        let compiled = try Shared.compiled(expect)
        #expect(!compiled.staticCalls.isEmpty, "\(expect)")
        var seen = 0
        for name in ["ws.ping", "ws.pong", "ws.open", "ws.close", "app.tick"] {
            let id = EvNames.id(name)
            for entry in compiled.staticCallTable.view.entries(for: id) {
                seen += 1
                let call = compiled.staticCalls[Int(entry.position)]
                #expect(entry.kind == call.kind, "\(expect) \(name)")
                #expect(entry.flags.contains(.sinceMay) == call.sinceMayMatch(id))
                #expect(entry.flags.contains(.selectorMay) == call.selectorMayMatch(id))
                #expect(
                    entry.flags.contains(.sinceByID) == (call.sinceMayMatch(id) && call.sinceByID),
                    "\(expect) \(name)")
                #expect(
                    entry.flags.contains(.selectorByID)
                        == (call.selectorMayMatch(id) && call.selectorByID),
                    "\(expect) \(name)")
                #expect(entry.flags.contains(.hasValue) == (call.value != nil))
            }
        }
        #expect(seen > 0, "\(expect)")
    }

    /// `first({ev: ws.pong}, since: {ev: ws.ping})`: a ping after a ping finds the aggregate
    /// empty, and its lets are not made stale; a ping after a pong empties it, and they are.
    @Test func anEmptyAggregateSetBackLeavesItsLetsFresh() throws {
        let rule = try RuleRuns.rules(
            [
                "id: t.a\ntitle: T\nevery: { ev: ws.close }\n"
                    + "let: { answer: \"first({ev: ws.pong}, since: {ev: ws.ping})\" }\n"
                    + "expect: \"answer != null\""
            ],
            file: "rules/checks.yaml")[0]
        let runner = BasicRunner(CompiledRule(rule: rule, index: 0, overrides: [:]), files: [])
        let cache = try #require(runner.letCache)
        var seq = 0
        RunnerFeed.feed(runner, ["ws.ping"], seq: &seq)
        let afterPing = cache.changes
        RunnerFeed.feed(runner, ["ws.ping"], seq: &seq)
        #expect(cache.changes == afterPing)
        RunnerFeed.feed(runner, ["ws.pong"], seq: &seq)
        #expect(cache.changes == afterPing + 1)
        RunnerFeed.feed(runner, ["ws.ping"], seq: &seq)
        #expect(cache.changes == afterPing + 2)
        // Empty again: no aggregate holds anything.
        #expect(runner.aggregateState == nil)
    }

    /// Pings with ids and closes, with selectors and cuts that the id alone decides and ones it
    /// does not: each close sees the answers a plain count over the log gives.
    @Test(
        arguments: [
            ("count({ev: ws.ping}, since: {ev: ws.open}) == 2", ["b"]),
            ("count({ev: ws.ping, where: 'id < 3'}, since: {ev: ws.open}) == 2", ["b"]),
            ("count({ev: ws.ping}, since: {ev: ws.open, where: 'true'}) == 2", ["b"]),
            ("last({ev: ws.ping, where: 'id != 0'}, since: {ev: ws.open}).id == 2", ["b"]),
            ("first({ev: ws.ping}, since: {ev: ws.open, where: 'true'}).id == 3", ["a"]),
            ("maxof({ev: ws.ping}, id, since: {ev: ws.open}) == 3", ["a"])
        ] as [(String, [String])])
    func answersAreTheLogs(_ expect: String, _ failing: [String]) throws {
        #expect(try Shared.failingCloses(expect) == failing, "\(expect)")
    }
}
