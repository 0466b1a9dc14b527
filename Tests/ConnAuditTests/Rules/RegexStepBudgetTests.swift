import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// A regex search within a budget of VM steps: it answers as the unbudgeted search does, or stops
/// at the budget with "exhausted" (then the budget is empty); the required-byte scan in front of
/// the VM changes no answer. Rule evaluation draws on ``EvalShared/regexBudget`` when it has one.
@Suite("Regex step budget", .timeLimit(.minutes(10)))
struct RegexStepBudgetTests {
    /// 20,000 instructions, with no way to fail early on a text of `a`s.
    static let heavy = "(a|aa|aaa|aaaa){1000}c"

    /// `count` bytes of `a`, then `tail`.
    static func text(_ count: Int, then tail: String = "") -> String {
        String(repeating: "a", count: count) + tail
    }

    @Test func aHeavySearchStopsAtItsBudget() throws {
        let regex = try BoundedRegex(Self.heavy)
        let text = Self.text(1 << 20, then: "c")
        // A debug build takes about 0.3 µs a step; the default budget is for release builds.
        var budget = 2_000_000
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = regex.matches(text, budget: &budget)
        #expect(clock.now - start < .seconds(5))
        #expect(outcome == .exhausted)
        #expect(budget == 0)
        // Empty, the budget answers nothing the VM must work out, however short the text.
        #expect(regex.matches("aac", budget: &budget) == .exhausted)
        #expect(budget == 0)
    }

    @Test func aTextWithoutARequiredByteIsAnsweredWithoutSteps() throws {
        let regex = try BoundedRegex(Self.heavy)
        var budget = 0
        let clock = ContinuousClock()
        let start = clock.now
        #expect(regex.matches(Self.text(1 << 20), budget: &budget) == .noMatch)
        #expect(!regex.matches(Self.text(1 << 20)))
        #expect(clock.now - start < .seconds(1))
        // Each branch of an alternation holds `:`; a repetition of at least one holds `x`.
        for (pattern, text) in [
            ("(a:|:b|c*:)\\d", "abc 12"), ("^(?:x[0-9]){2,}$", "01234"), ("é+\\.", "e.")
        ] {
            let regex = try BoundedRegex(pattern)
            budget = 0
            #expect(regex.matches(text, budget: &budget) == .noMatch, "/\(pattern)/")
        }
    }

    /// The steps a search takes are the budget it needs: one less is exhausted, that many is
    /// the same answer as the VM's without a budget or the byte scan.
    @Test func answersWithinTheBudgetAreTheUnbudgetedOnes() throws {
        var random = SplitMix64(seed: 0x5EED_B0D6_E7)
        var compared = 0
        var exhaustedAtOneLess = 0
        for _ in 0..<600 {
            let pattern = RandomRegex.pattern(&random)
            let regex = try BoundedRegex(pattern)
            for _ in 0..<8 {
                let text = RandomRegex.text(&random)
                var unlimited = Int.max
                let vm = text.utf8.withContiguousStorageIfAvailable {
                    regex.runVM($0, budget: &unlimited)
                }!
                #expect(vm != .exhausted)
                var budget = 1 << 40
                let outcome = regex.matches(text, budget: &budget)
                let steps = (1 << 40) - budget
                #expect(outcome == vm, "/\(pattern)/ on \(text.debugDescription)")
                #expect(
                    regex.matches(text) == (vm == .match),
                    "/\(pattern)/ on \(text.debugDescription)")
                var exact = steps
                #expect(
                    regex.matches(text, budget: &exact) == vm,
                    "/\(pattern)/ on \(text.debugDescription)")
                #expect(exact == 0)
                if steps > 0 {
                    var short = steps - 1
                    #expect(
                        regex.matches(text, budget: &short) == .exhausted,
                        "/\(pattern)/ on \(text.debugDescription)")
                    #expect(short == 0)
                    exhaustedAtOneLess += 1
                }
                compared += 1
            }
        }
        #expect(compared == 4800)
        #expect(exhaustedAtOneLess > 2000, "most searches need the VM")
    }
}

// MARK: - Random patterns and texts

/// Patterns over a few letters, `:`, `é`, classes, groups, alternation, quantifiers (counted too)
/// and anchors, and texts over the same letters (invalid UTF-8 aside: Strings hold none).
enum RandomRegex {
    static func pattern(_ random: inout SplitMix64) -> String {
        (random.chance(15) ? "(?i)" : "") + alternation(&random, depth: 0)
    }

    private static func alternation(_ random: inout SplitMix64, depth: Int) -> String {
        (0..<(random.chance(30) ? 2 + random.below(2) : 1)).map { _ in
            concatenation(&random, depth: depth)
        }
        .joined(separator: "|")
    }

    private static func concatenation(_ random: inout SplitMix64, depth: Int) -> String {
        var out = ""
        for _ in 0..<random.below(5) {
            switch random.below(16) {
            case 0: out += "^"
            case 1: out += "$"
            default:
                let atoms = [
                    "a", "b", "c", ":", "é", ".", "[ab]", "[^a]", "\\d", "\\w", "a", "b", "c"
                ]
                let atom =
                    depth < 3 && random.chance(25)
                    ? (random.chance(50) ? "(" : "(?:") + alternation(&random, depth: depth + 1)
                        + ")"
                    : atoms[random.below(atoms.count)]
                let quantifiers = [
                    "", "", "", "*", "+", "?", "{2}", "{0,2}", "{1,}", "{2,3}", "*?", "{3}"
                ]
                out += atom + quantifiers[random.below(quantifiers.count)]
            }
        }
        return out
    }

    static func text(_ random: inout SplitMix64) -> String {
        let alphabet: [Character] = ["a", "b", "c", ":", "é", "1", "A", " ", "a", "b"]
        return String((0..<random.below(24)).map { _ in alphabet[random.below(alphabet.count)] })
    }
}

// MARK: - Rule evaluation

extension RegexStepBudgetTests {
    private static func probe(_ message: String, line: Int = 7) -> Event {
        Event(
            t: 1, ev: "probe.hit", line: line, fields: [Event.Field("msg", .string(message))],
            evID: EvNames.id("probe.hit"))
    }

    private static func context(_ event: Event, budget: RegexStepBudget?) -> EvalContext {
        let shared = EvalShared(environment: EvalEnvironment(params: [:], files: []), history: nil)
        shared.regexBudget = budget
        return EvalContext(event: event, shared: shared)
    }

    private static func call(_ pattern: String) throws -> Expr {
        try ExpressionParser.parse(
            "matches(msg, '\(pattern)')", compileSelector: FileLoader.compileSelector)
    }

    @Test func aCallThatRunsOutIsUndecidedAndRecorded() throws {
        let heavy = try Self.call(Self.heavy)
        // Fewer than the 1,000 `a`s a match needs.
        let event = Self.probe(Self.text(500, then: "c"))
        let budget = RegexStepBudget(steps: 10_000)
        let ctx = Self.context(event, budget: budget)
        #expect(Evaluator.evaluate(heavy, ctx).truth == nil)
        #expect(budget.isExhausted)
        #expect(budget.exhaustedAt === event)
        #expect(budget.remaining == 0)
        // Without a budget the same call is decided.
        #expect(Evaluator.evaluate(heavy, Self.context(event, budget: nil)).truth == false)

        // A field's `matches:` in a selector: undecided is no match; the event is recorded.
        let selector = try FileLoader.compileSelector(
            "{ev: probe.hit, msg: {matches: '\(Self.heavy)'}}", 0)
        let other = Self.probe(Self.text(500, then: "c"), line: 9)
        let fresh = RegexStepBudget(steps: 10_000)
        #expect(Evaluator.matches(selector, other, Self.context(other, budget: fresh)) == nil)
        #expect(fresh.isExhausted)
        #expect(fresh.exhaustedAt === other)
    }

    @Test func withinTheBudgetCallsAnswerAsWithoutOne() throws {
        let budget = RegexStepBudget()
        #expect(budget.remaining == BoundedRegex.defaultTimelineStepBudget)
        var random = SplitMix64(seed: 0xB0D6_E7)
        for _ in 0..<300 {
            let pattern = RandomRegex.pattern(&random)
            guard !pattern.contains("'") else { continue }
            let call = try Self.call(pattern)
            let selector = try FileLoader.compileSelector("{msg: {matches: '\(pattern)'}}", 0)
            for _ in 0..<4 {
                let event = Self.probe(RandomRegex.text(&random))
                let plain = Self.context(event, budget: nil)
                let budgeted = Self.context(event, budget: budget)
                #expect(
                    Evaluator.evaluate(call, budgeted).truth
                        == Evaluator.evaluate(call, plain).truth, "/\(pattern)/")
                #expect(
                    (Evaluator.matches(selector, event, budgeted) != nil)
                        == (Evaluator.matches(selector, event, plain) != nil),
                    "/\(pattern)/")
            }
        }
        #expect(!budget.isExhausted)
        #expect(budget.exhaustedAt == nil)
        #expect(budget.remaining < BoundedRegex.defaultTimelineStepBudget)
    }
}
