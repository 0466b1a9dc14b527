import Testing

@testable import ConnAudit
import ConnAuditTestSupport

extension CheckKindTests {
    @Suite struct Classify {
        private static func outcomesRule(min: Int = 2, appliesIf: String = "{ ev: ws.connect }")
            -> String
        {
            """
            id: t.outcomes
            title: Outcomes are covered
            for: corpus
            classify:
              per: generation
              stream: ws
              labels:
                normal: { has: { ev: ws.pong } }
                failed: { has: { ev: ws.connect_failed }, lacks: { ev: ws.open } }
                silent: { lacks: { ev: ws.message } }
            require: [normal, failed]
            min: \(min)
            applies_if: \(appliesIf)
            """
        }

        private static let log = """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":1,"ev":"ws.open","gen":1}
            {"t":2,"ev":"ws.pong","gen":1}
            {"t":3,"ev":"ws.connect","gen":2}
            {"t":4,"ev":"ws.connect_failed","gen":2}
            {"t":5,"ev":"ws.connect","gen":3}
            {"t":6,"ev":"ws.open","gen":3}
            {"t":7,"ev":"ws.message","gen":3}
            {"t":8,"ev":"ws.pong","gen":3}
            {"t":9,"ev":"ws.connect","gen":4}
            {"t":10,"ev":"ws.connect_failed","gen":4}
            {"t":11,"ev":"ws.open","gen":4}
            {"t":12,"ev":"path.pong","gen":5}
            {"t":13,"ev":"ws.pong"}
            """

        @Test func labelsAreCountedAndRequired() throws {
            let report = RuleRuns.audit(
                [try loadRule(Self.outcomesRule())], files: [("a.jsonl", Self.log)])
            let result = report.results[0]
            // gen 1 normal + silent; gen 2 failed + silent; gen 3 normal; gen 4 (opened after
            // failing) silent only. path gen 5 and the gen-less pong are not ws generations.
            let labels = try #require(result.labels)
            #expect(labels.map(\.name) == ["normal", "failed", "silent"])
            #expect(labels.map(\.count) == [2, 1, 3])
            let outcomes = try #require(report.outcomes)
            #expect(outcomes.map(\.name) == ["normal", "failed", "silent"])
            #expect(outcomes.map(\.count) == [2, 1, 3])
            #expect(result.status == .fail)
            #expect(result.violations.count == 1)
            #expect(result.violations.first?.line == nil)
            #expect(
                result.violations.first?.message
                    == "too few 'failed' outcomes: 1 ws generation labelled 'failed', at least 2 required (normal 2, failed 1, silent 3)"
            )
        }

        @Test func minimumMet() throws {
            let result = judge(try loadRule(Self.outcomesRule(min: 1)), Self.log)
            #expect(CheckKindVerdict(result) == CheckKindVerdict(.pass, []))
            #expect(result.labels?.map(\.count) == [2, 1, 3])
        }

        @Test func appliesIfMatchingNothingIsNotApplicable() throws {
            let result = judge(
                try loadRule(Self.outcomesRule(appliesIf: "{ ev: ws.nothing }")), Self.log)
            #expect(result.status == .notApplicable)
            #expect(result.violations.isEmpty)
            #expect(result.inconclusive.isEmpty)
        }

        @Test func appliesIfMatchesAnyEventOfTheCorpus() throws {
            // applies_if matches an event of another stream, without gen, in another file.
            let report = RuleRuns.audit(
                [try loadRule(Self.outcomesRule(appliesIf: "{ ev: app.start }"))],
                files: [
                    ("a.jsonl", Self.log),
                    ("b.jsonl", #"{"t":0,"ev":"app.start"}"#)
                ])
            #expect(report.results[0].status == .fail)
            #expect(report.results[0].violations.count == 1)
        }

        @Test func generationRulesOfTheClassifiedStreamStillRun() throws {
            let count = try loadRule(
                "id: t.one-pong\ntitle: T\ncount: { ev: [ws.pong, path.pong] }\nmax: 0")
            let both = RuleRuns.audit(
                [count, try loadRule(Self.outcomesRule())], files: [("a.jsonl", Self.log)])
            let alone = RuleRuns.audit([count], files: [("a.jsonl", Self.log)])
            #expect(CheckKindVerdict(both.results[0]) == CheckKindVerdict(.fail, [3, 9, 13]))
            #expect(CheckKindVerdict(alone.results[0]) == CheckKindVerdict(both.results[0]))
            #expect(both.results[1].labels?.map(\.count) == [2, 1, 3])
        }

        @Test func noOutcomesWithoutClassifyRules() throws {
            let report = RuleRuns.audit(
                [try loadRule("id: t.x\ntitle: T\nnever: { ev: ws.nothing }")],
                files: [("a.jsonl", Self.log)])
            #expect(report.outcomes == nil)
            #expect(report.results[0].labels == nil)
        }

        @Test func generationsOfEverySourceAreLabelled() throws {
            let report = RuleRuns.audit(
                [try loadRule(Self.outcomesRule(min: 3))],
                files: [
                    ("a.jsonl", Self.log),
                    (
                        "b.jsonl",
                        """
                        {"t":0,"src":"x","ev":"ws.connect","gen":1}
                        {"t":1,"src":"x","ev":"ws.connect_failed","gen":1}
                        {"t":0,"src":"y","ev":"ws.connect","gen":1}
                        {"t":1,"src":"y","ev":"ws.connect_failed","gen":1}
                        """
                    )
                ])
            #expect(report.results[0].labels?.map(\.count) == [2, 3, 5])
            #expect(
                report.results[0].violations.map(\.message) == [
                    "too few 'normal' outcomes: 2 ws generations labelled 'normal', at least 3 required (normal 2, failed 3, silent 5)"
                ])
        }
    }
}
