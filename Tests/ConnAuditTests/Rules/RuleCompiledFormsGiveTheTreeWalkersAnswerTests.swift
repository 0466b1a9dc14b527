import Testing

@testable import ConnAudit

/// What a compiled rule evaluates beside its lets and selectors, compiled once for all its
/// runners (``CompiledRule``): the message's holes, `by:`, `within_ms:`, the static calls'
/// values, and the keys and outer sides of keyed look-ups and `$seq` bounds. Each gives what
/// the tree walker gives for the expression it was made from, on the pack's rules; and the
/// holes are the template's, in its order (a message is filled from them by position).
@Suite struct RuleCompiledFormsGiveTheTreeWalkersAnswerTests {
    typealias Fixture = CompiledExpressionAgreesWithTreeWalkerTests

    static func agree(_ compiled: CompiledExpression, _ expr: Expr, _ what: String) {
        for e in Fixture.events {
            for (walking, running) in zip(Fixture.contexts(for: e), Fixture.contexts(for: e)) {
                let walked = Outcome(Evaluator.evaluate(expr, walking))
                let run = Outcome(compiled(running))
                #expect(run == walked, "\(what) on \(e.ev) at line \(e.line)")
            }
        }
    }

    static var pack: [CompiledRule] {
        RuleLoader.builtin(fixtures: false).rules.enumerated().map {
            CompiledRule(rule: $1, index: $0, overrides: [:])
        }
    }

    @Test func messageHolesAreTheTemplatesInItsOrder() {
        var holes = 0
        for compiled in Self.pack {
            var exprs: [Expr] = []
            for case .expr(let e) in compiled.rule.message?.parts ?? [] { exprs.append(e) }
            #expect(compiled.messageHoles.count == exprs.count, "\(compiled.rule.id)")
            for (i, (hole, e)) in zip(compiled.messageHoles, exprs).enumerated() {
                holes += 1
                Self.agree(hole, e, "\(compiled.rule.id): hole \(i)")
            }
        }
        #expect(holes > 20, "the pack's message holes were found")
    }

    @Test func checkExpressionsAndStaticValuesGiveTheWalkersAnswer() {
        for compiled in Self.pack {
            let id = compiled.rule.id
            switch compiled.rule.check {
            case .count(_, _, _, let by):
                #expect((compiled.countBy == nil) == (by == nil), "\(id)")
                if let by, let run = compiled.countBy { Self.agree(run, by, "\(id): by") }
            case .response(_, _, let within, _, _):
                #expect((compiled.responseWithin == nil) == (within == nil), "\(id)")
                if let within, let run = compiled.responseWithin {
                    Self.agree(run, within, "\(id): within_ms")
                }
            default:
                #expect(compiled.countBy == nil && compiled.responseWithin == nil, "\(id)")
            }
            #expect(compiled.staticValues.count == compiled.staticCalls.count, "\(id)")
            for (call, value) in zip(compiled.staticCalls, compiled.staticValues) {
                #expect((call.value == nil) == (value == nil), "\(id)")
                if let expr = call.value, let value { Self.agree(value, expr, "\(id): value") }
            }
        }
    }

    /// Keyed look-ups and `$seq` bounds, in rules written to have them (the pack's are few).
    @Test func lookupSidesGiveTheWalkersAnswer() throws {
        let yaml = """
            rules:
              - id: x.keyed
                title: t
                severity: error
                for: generation
                every: { ev: ws.close, as: c }
                expect: "count({ev: sse.event, where: 'text(id) == text(c.id) and $seq > c.$seq'}) >= 0"
                message: "{c.id} {text(code)} {reason ?? 'none'}"
            """
        let set = try RuleLoader.load(files: [(path: "x.yaml", text: yaml)])
        var keyed = 0
        var bounds = 0
        for compiled in Self.pack + [CompiledRule(rule: set.rules[0], index: 0, overrides: [:])] {
            for slot in compiled.callSlots {
                if let shape = compiled.keyedShapes[slot] {
                    keyed += 1
                    Self.agree(shape.outer.value, shape.outer.expr, "\(compiled.rule.id): outer")
                    for e in Fixture.events {
                        for (walking, reading) in zip(
                            Fixture.contexts(for: e), Fixture.contexts(for: e))
                        {
                            #expect(
                                Outcome(shape.key(e, reading))
                                    == Outcome(Evaluator.evaluate(shape.key.expr, walking)),
                                "\(compiled.rule.id): key on \(e.ev)")
                        }
                    }
                }
                if let side = compiled.seqSides[slot] {
                    bounds += 1
                    Self.agree(side.value, side.expr, "\(compiled.rule.id): $seq bound")
                }
            }
        }
        #expect(keyed > 0 && bounds > 0, "keyed look-ups and $seq bounds were found")
    }
}
