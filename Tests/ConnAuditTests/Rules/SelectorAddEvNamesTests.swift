import Testing

@testable import ConnAudit

/// ``Selector/addEvNames(to:)`` adds a selector's `ev` names term by term: the same as the union
/// with ``Selector/evNames``, nil as soon as one side is nil.
@Suite struct SelectorAddEvNamesTests {
    private static func union(_ a: Set<String>?, _ s: Selector) -> Set<String>? {
        guard let a, let b = s.evNames else { return nil }
        return a.union(b)
    }

    @Test func itIsTheUnionWithTheSelectorsNames() throws {
        let texts = [
            "{ev: ws.ping}", "[{ev: ws.close}, {ev: [ws.closed, ws.open]}]", "{ev: 'ws.*'}",
            "[{ev: ws.ping}, {gen: 1}]", "{gen: 1}", "[{ev: a}, {ev: a, not: {ev: b}}]"
        ]
        let selectors = try texts.map { try FileLoader.compileSelector($0, 0) }
        for start: Set<String>? in [nil, [], ["ws.ping"], ["x", "y"]] {
            for s in selectors {
                var names = start
                s.addEvNames(to: &names)
                #expect(names == Self.union(start, s), "\(String(describing: start))")
            }
        }
        // Every selector of the pack, one after another, as compiling notes them.
        for rule in RuleLoader.builtin(fixtures: false).rules {
            var names: Set<String>? = []
            var expected: Set<String>? = []
            for s in rule.check.selectors {
                s.addEvNames(to: &names)
                expected = Self.union(expected, s)
            }
            #expect(names == expected, "\(rule.id)")
        }
    }
}
