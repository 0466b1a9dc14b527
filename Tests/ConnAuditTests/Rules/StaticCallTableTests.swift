import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A runner moves the aggregates its event's row of ``StaticCallTable`` lists, and only those:
/// each row must hold exactly the calls whose selector or `since` an event of that id may match,
/// in their order, with what the id says of each. Ids past the table and -1 share the last row.
@Suite struct StaticCallTableTests {
    @Test(arguments: [
        "count({ev: ws.ping}) > 0 and last({ev: ws.pong}) != null",
        "count({ev: ws.ping}, since: {ev: ws.open}) > 0 and maxof({ev: ws.pong}, t) > 0",
        "count({id: 1}) > 0 and last({ev: ws.ping}, since: {id: 2}) != null",
        "count({ev: [ws.ping, ws.pong]}, since: {t: 3}) > 0 and first({ev: ws.message}) != null"
    ])
    func eachIDsRowHoldsTheCallsItMayMove(_ expect: String) throws {
        let rule = try StaticCallsAskedAlikeShareOneAggregateTests.compiled(expect)
        let view = rule.staticCallTable.view
        let names = ["ws.ping", "ws.pong", "ws.open", "ws.message", "ws.close", "t.unnamed.x"]
        var ids = names.map { EvNames.id($0) } + [-1, Int32.max]
        ids += (0..<8).map { Int32($0) }
        for id in ids {
            let row = view.entries(for: id)
            let expected = rule.staticCalls.indices.filter {
                rule.staticCalls[$0].sinceMayMatch(id) || rule.staticCalls[$0].selectorMayMatch(id)
            }
            #expect(row.map { Int($0.position) } == expected, "\(expect), id \(id)")
            for entry in row {
                let call = rule.staticCalls[Int(entry.position)]
                #expect(entry.call.takeUnretainedValue() === call)
                #expect(entry.flags.contains(.sinceMay) == call.sinceMayMatch(id))
                #expect(entry.flags.contains(.selectorMay) == call.selectorMayMatch(id))
            }
        }
    }
}
