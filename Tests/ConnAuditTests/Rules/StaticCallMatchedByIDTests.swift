import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A running aggregate whose selector names plain `ev` names and tests nothing else moves on an
/// event's id alone (``StaticCall/selectorByID``, ``Selector/matchesByIDAlone``); any other test
/// keeps the selector evaluated. `OptimisationEquivalence` compares such aggregates' answers with
/// the same calls answered from history lists.
@Suite struct StaticCallMatchedByIDTests {
    /// The rule's static calls, by the text of each call's selector as written in `expect`.
    private func calls(_ expect: String) throws -> [StaticCall] {
        let rule = try RuleRuns.rules(
            ["id: t.a\ntitle: T\nevery: { ev: ws.close, as: c }\nexpect: \"\(expect)\""],
            file: "rules/checks.yaml")[0]
        return CompiledRule(rule: rule, index: 0, overrides: [:]).staticCalls
    }

    @Test(arguments: [
        ("count({ev: ws.ping}) >= 0", true),
        ("count({ev: [ws.ping, ws.pong]}) >= 0", true),
        ("count([{ev: ws.ping}, {ev: ws.pong}]) >= 0", true),
        ("count({ev: ws.ping, gen: 1}) >= 0", false),
        ("count({ev: 'ws.p*'}) >= 0", false),
        ("count({ev: ws.ping, where: 'id > 1'}) >= 0", false),
        ("count({ev: ws.ping, not: {id: 1}}) >= 0", false),
        ("count([{ev: ws.ping}, {ev: ws.pong, id: 2}]) >= 0", false)
    ])
    func aSelectorOfNamesAloneMatchesByID(_ expect: String, _ byID: Bool) throws {
        let found = try calls(expect)
        try #require(found.count == 1, "\(expect) is answered from a running aggregate")
        #expect(found[0].selectorByID == byID, "\(expect)")
        // No `since`: nothing to evaluate for it.
        #expect(found[0].sinceByID)
    }

    @Test func aSinceOfNamesAloneMatchesByIDToo() throws {
        let plain = try calls("first({ev: ws.ping}, since: {ev: ws.pong}) == null")
        try #require(plain.count == 1)
        #expect(plain[0].selectorByID && plain[0].sinceByID)
        let tested = try calls("first({ev: ws.ping}, since: {ev: ws.pong, id: 3}) == null")
        try #require(tested.count == 1)
        #expect(tested[0].selectorByID && !tested[0].sinceByID)
    }
}
