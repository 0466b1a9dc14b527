import Testing

@testable import ConnAudit

/// A source's generations are keyed by their stream's place in a table of stream texts and their
/// `gen` (``SourceEvaluation/GenerationKey``). An `ev` no rule names has no id, and its stream is
/// found again by its text: these tests hold that the key is the stream's text either way.
@Suite struct GenerationKeysTests {
    private static func generations(_ log: String) -> Int {
        RetirementTests.evaluate(
            RuleLoader.builtin(), log, retireIdleAfter: RetirementTests.never
        ).generations
    }

    @Test func eventsNoRuleNamesAreToldApartByTheirStreams() {
        // (foo, 1), (bar, 1), (foo, 2): alternating names, one of them met again after another.
        let log = """
            {"t":0,"ev":"foo.a","gen":1}
            {"t":1,"ev":"bar.b","gen":1}
            {"t":2,"ev":"foo.c","gen":1}
            {"t":3,"ev":"foo.a","gen":2}
            {"t":4,"ev":"bar.x","gen":1}
            {"t":5,"ev":"foo.a","gen":1}

            """
        #expect(Self.generations(log) == 3)
    }

    @Test func aNamedAndAnUnnamedEvOfOneStreamShareTheirGeneration() {
        // `ws.connect` is named by the pack, `ws.frobnicate` by no rule: one generation each gen.
        let log = """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":1,"ev":"ws.frobnicate","gen":1}
            {"t":2,"ev":"ws.connect","gen":1}
            {"t":3,"ev":"ws.frobnicate","gen":2}
            {"t":4,"ev":"ws.connect","gen":2}
            {"t":5,"ev":"wsx.frobnicate","gen":2}

            """
        #expect(Self.generations(log) == 3)
    }

    @Test func canonicallyEquivalentStreamTextsAreOneStream() {
        // "é" precomposed and as e + combining acute: `==` calls the two streams one.
        let log = """
            {"t":0,"ev":"caf\u{E9}.a","gen":1}
            {"t":1,"ev":"cafe\u{301}.b","gen":1}
            {"t":2,"ev":"caf\u{E9}.c","gen":2}

            """
        #expect(Self.generations(log) == 2)
    }
}
