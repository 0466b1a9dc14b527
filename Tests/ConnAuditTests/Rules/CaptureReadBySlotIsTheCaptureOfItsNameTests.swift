import Testing

@testable import ConnAudit

/// A capture its rule resolved is read by its slot (``LetSlot/capture``: its place among the
/// rule's `as:` names in name order), confirmed by its name. Whatever is bound, a slot read gives
/// the event bound to that name, or nothing: never another capture's event, whatever the slot.
/// In a compiled expression, a capture not bound where it is read is null there, never the
/// current event's field of the same name, in the scalar form and the general form alike.
@Suite struct CaptureReadBySlotIsTheCaptureOfItsNameTests {
    typealias Agree = CompiledExpressionAgreesWithTreeWalkerTests

    @Test func aSlotReadGivesTheEventBoundToItsNameOrNothing() {
        let names = ["q", "p", "e", "k", "zz", "a", "é", "e\u{301}"]
        let sorted = Array(Set(names)).sorted()
        let events = (0..<12).map { i -> Event in
            let e = Event(t: Double(i), ev: "x")
            e.seq = i * 7 + 1
            return e
        }
        var rng = CapturesBindingOrderTests.SplitMix(state: 58)
        var slotHits = 0
        for _ in 0..<400 {
            var c = Captures()
            for _ in 0..<rng.next(9) {
                let name = names[rng.next(names.count)]
                c[name] = rng.next(4) == 0 ? nil : events[rng.next(events.count)]
                for n in names {
                    let byName = c[n]?.seq
                    // Its own slot, and every other slot: each gives the capture of the name.
                    for slot in 0...sorted.count {
                        #expect(c.withEvent(slot: slot, n, { $0.seq }) == byName, "\(n) at \(slot)")
                    }
                    if byName != nil, c.names.firstIndex(of: n) == sorted.firstIndex(of: n) {
                        slotHits += 1
                    }
                }
            }
        }
        #expect(slotHits > 100, "bindings where the slot is the entry's place")
    }

    /// A rule whose capture `c` is also a field of the events it reads.
    static let ruleText = """
        rules:
          - id: x.slots
            title: t
            severity: error
            every: { ev: ws.close, as: c }
            expect: "count({ev: ws.ping, as: p, where: 'p.t >= c.t'}) == 0"
            message: "m"
        """

    @Test func aCaptureNotBoundIsNullNeverTheFieldOfItsName() throws {
        let rule = try #require(
            try RuleLoader.load(files: [(path: "x.yaml", text: Self.ruleText)]).rules.first)
        let resolver = NameResolution.resolver(for: rule)
        // The event has fields named like both captures.
        let e = Agree.event(
            "ws.ping", t: 700, gen: 2, line: 3,
            fields: [.init("c", .int(5)), .init("p", .int(6))])
        let bound = Agree.captured  // t 500
        let cases: [(String, Outcome, Outcome)] = [
            ("c.t", .null, .int(500)),
            ("c.t >= 0", .undecided, .yes),
            ("p.t + 1", .undecided, .int(501)),
            ("c.t == null", .yes, .no),
            ("c.id ?? 'none'", .string("none"), .string("42"))
        ]
        for (source, unbound, boundAnswer) in cases {
            let expr = resolver.expr(try IndexKeyAgreesWithTreeWalkerTests.parse(source))
            let compiled = CompiledExpression(expr)
            for capture in [false, true] {
                var ctx = EvalContext(event: e, params: [:], history: nil, files: [])
                if capture {
                    // Bound with a name before it, so the slot is not the entry's place.
                    ctx.captures["a"] = e
                    ctx.captures[source.hasPrefix("p") ? "p" : "c"] = bound
                }
                let want = capture ? boundAnswer : unbound
                #expect(Outcome(compiled.run(ctx, e)) == want, "\(source), captured: \(capture)")
                #expect(
                    Outcome(Evaluator.evaluate(expr, ctx, e)) == want,
                    "\(source) walked, captured: \(capture)")
                let truth: Bool? = want == .yes ? true : want == .no ? false : nil
                #expect(compiled.holds(ctx, e) == truth, "\(source) truth, captured: \(capture)")
            }
        }
    }
}
