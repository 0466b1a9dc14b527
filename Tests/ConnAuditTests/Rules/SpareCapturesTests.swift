import Testing

@testable import ConnAudit

/// A sequence runner keeps the captures of dropped partials and obligations, unbound, as storage
/// for the next partials to start (``SequenceRunner/spareCaptures``). A spare binds nothing and
/// keeps no event alive, and unbinding one never touches another copy of it: captures are values.
@Suite struct SpareCapturesTests {
    private static func event(_ n: Int) -> Event {
        let e = Event(t: Double(n), ev: "x", line: n)
        e.seq = n
        return e
    }

    @Test func unbindingAllLeavesOtherCopiesBound() {
        let (e1, e2) = (Self.event(1), Self.event(2))
        var a: Captures = ["p": e1]
        let b = a
        a.unbindAll()
        #expect(a.isEmpty && a.names.isEmpty && a["p"] == nil)
        #expect(b["p"] === e1)
        a["q"] = e2
        #expect(a.names == ["q"] && a["q"] === e2)
        #expect(b.names == ["p"] && b["q"] == nil)
    }

    @Test func aSpareKeepsNoEventAlive() {
        weak var dropped: Event?
        var spare = Captures()
        do {
            let e = Self.event(1)
            dropped = e
            var c: Captures = ["p": e, "q": e]
            c.unbindAll()
            spare = c
        }
        #expect(dropped == nil)
        #expect(spare.isEmpty)
    }

    @Test func aRecycledCaptureIsUnboundAndTheSparesAreBounded() throws {
        let text = """
            rules:
              - id: t.late
                title: A pong after a ping
                for: generation
                forbid:
                  - { ev: ws.ping, as: p }
                  - { ev: ws.pong, where: "t >= p.t + 10" }
            """
        let rule = try #require(try RuleLoader.load(files: [("rules/t.yaml", text)]).rules.first)
        let runner = SequenceRunner(
            CompiledRule(rule: rule, index: 0, overrides: [:]), files: ["a.jsonl"])
        for n in 0..<(SequenceRunner.sparesKept + 3) {
            var c: Captures = ["p": Self.event(n)]
            runner.recycle(&c)
            // Taken while there is room; past it, left to the caller to drop.
            #expect(c.isEmpty == (n < SequenceRunner.sparesKept))
        }
        #expect(runner.spareCaptures.count == SequenceRunner.sparesKept)
        #expect(runner.spareCaptures.allSatisfy { $0.isEmpty })
    }
}
