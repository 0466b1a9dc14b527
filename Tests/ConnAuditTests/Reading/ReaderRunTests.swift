import Testing

@testable import ConnAudit
import ConnAuditTestSupport

extension ReaderTests {
    /// Runs an audit over in-memory files, in argument order.
    static func audit(
        _ files: [(path: String, text: String)], rules: RuleSet = RuleLoader.builtin()
    ) -> AuditReport {
        RuleRuns.audit(rules, files: files)
    }

    @Suite("Reader findings in a run")
    struct Runs {
        /// `src`, `session` and file names are told apart by their bytes: "café" written with é and
        /// with e + U+0301 are canonically equivalent (Swift's `==`), but two devices, or two
        /// files.
        @Test("sources differing only in Unicode normalization stay apart")
        func sourcesCompareByBytes() throws {
            let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
            #expect(nfc == nfd)  // what String's == says
            let log = """
                {"t":10,"ev":"ws.connect","gen":1,"src":"\(nfc)"}
                {"t":5,"ev":"ws.connect","gen":1,"src":"\(nfd)"}
                {"t":10,"ev":"ws.connect","gen":1,"src":"x","session":"\u{C5}"}
                {"t":5,"ev":"ws.connect","gen":1,"src":"x","session":"\u{212B}"}

                """
            let line = #"{"t":10,"ev":"ws.connect","gen":1}"# + "\n"
            let report = ReaderTests.audit([
                ("logs/a.jsonl", log), ("logs/\(nfc).jsonl", line), ("logs/\(nfd).jsonl", line)
            ])
            #expect(report.inputs.sources == 6)
            for id in ["log.time-monotonic", "ws.generation-increases"] {
                let result = try #require(report.results.first { $0.rule.id == id })
                #expect(result.violations.isEmpty, "\(id): \(result.violations.map(\.message))")
            }
        }

        /// `hasSameBytes` answers "the same two words" at once (one storage shared, or one small
        /// text held inline); texts in different storage, or canonically equal ones, still go
        /// through the byte comparison.
        @Test("texts compare by their bytes, shared or not, small or large")
        func sameBytes() {
            let large = String(repeating: "device-", count: 4) + "\u{E9}"
            let shared = large
            let rebuilt = String(decoding: Array(large.utf8), as: UTF8.self)
            #expect(large.hasSameBytes(as: shared))
            #expect(large.hasSameBytes(as: rebuilt))
            #expect(
                "pixel-1".hasSameBytes(as: String(decoding: Array("pixel-1".utf8), as: UTF8.self)))
            #expect("".hasSameBytes(as: ""))
            let pairs = [
                ("caf\u{E9}", "cafe\u{301}"), (large, String(large.dropLast()) + "e\u{301}"),
                ("pixel-1", "pixel-2"), ("pixel-1", "pixel-10"), (large, large + "x"), ("", "x")
            ]
            for (a, b) in pairs {
                #expect(!a.hasSameBytes(as: b), "\(Array(a.utf8)) vs \(Array(b.utf8))")
                #expect(!b.hasSameBytes(as: a))
            }
        }

        @Test("log.malformed points at each bad line with its reason")
        func malformedFindings() throws {
            let report = ReaderTests.audit([
                (
                    "logs/a.jsonl",
                    "{\"t\":0,\"ev\":\"x.y\"}\n\nnot json\n{\"t\":-1,\"ev\":\"x.y\"}\n"
                ),
                (
                    "logs/b.jsonl",
                    "{\"ev\":\"x.y\"}\n{\"t\":0,\"ev\":\"x.y\",\"gen\":1.0}\n{\"t\":1,\"ev\":\"x"
                )
            ])
            let result = try #require(report.results.first { $0.rule.id == "log.malformed" })
            let found = result.violations.map { "\(report.files[Int($0.file!)].path):\($0.line!)" }
            #expect(
                found == [
                    "logs/a.jsonl:3", "logs/a.jsonl:4", "logs/b.jsonl:1", "logs/b.jsonl:2",
                    "logs/b.jsonl:3"
                ])
            let messages = result.violations.map(\.message)
            #expect(messages[0].contains("not valid JSON"))
            #expect(messages[1].contains(#""t" is negative"#))
            #expect(messages[2].contains(#"missing "t""#))
            #expect(messages[3].contains(#""gen" is not a non-negative integer"#))
            #expect(messages[4].contains("cut off"))
            #expect(
                report.inputs.lines == 7 && report.inputs.malformed == 5
                    && report.inputs.events == 1)
            #expect(
                report.inputs.lines == report.inputs.events + report.inputs.malformed
                    + report.inputs.blank)
        }

        static let probeRules = """
            rules:
              - id: probe.show-fields
                title: Every close shows its fields
                severity: warning
                for: source
                every: { ev: ws.close }
                expect: "false"
                message: "close reason={reason} note={note} password={password} headers={headers} token={token} cookie={cookie}"
            """

        @Test("no secret value appears in any finding, context, text report or JSON report")
        func secretsNeverPrinted() throws {
            let probe = try RuleLoader.load(files: [("probe.yaml", Self.probeRules)])
            let rules = RuleSet(rules: RuleLoader.builtin().rules + probe.rules)
            // Values behind a flagged top-level key say KEYLEAK (a known issue, below); every other
            // secret says SECRET.
            let log = """
                {"t":0,"src":"dev","ev":"ws.connect","gen":1,"note":"Bearer SECRETbearer1"}
                {"t":1,"src":"dev","ev":"ws.close","gen":1,"reason":"user","password":"hunter2-KEYLEAK","headers":{"Authorization":"Basic SECRETbasic"},"note":"eyJSECRETjwt.eyJpayload.sig"}
                {"t":2,"src":"dev","ev":"ws.close","gen":1,"reason":"Bearer SECRETreason9","token":"KEYLEAKtoken"}
                {"t":3,"src":"dev","ev":"ws.ping","gen":1,"cookie":"KEYLEAKcookie"}
                {"t":4,"src":"dev","ev":"x.Bearer SECRETevname","gen":1}
                {"ev":"no.t","password":"KEYLEAKmalformed","note":"Bearer SECRETmalformed"}
                {"t":5,"src":"Bearer SECRETsrcname","ev":"ws.close","gen":1,"reason":"user"}
                {"t":6,"src":"Bearer SECRETsrcname","ev":"ws.close","gen":1,"reason":"user"}
                {"t":7,"src":"dev","session":"eyJSECRETsess.eyJx.y","ev":"ws.close","gen":1}

                """
            let report = ReaderTests.audit([("logs/dev.jsonl", log)], rules: rules)

            // The run did see what it must not print.
            let secrets = try #require(report.results.first { $0.rule.id == "log.no-secrets" })
            #expect(secrets.violations.map(\.line) == [1, 2, 2, 2, 3, 3, 4, 5, 6, 6, 7, 8, 9])
            #expect(secrets.violations.allSatisfy { $0.message.contains("the value is not shown") })
            let probeResult = try #require(
                report.results.first { $0.rule.id == "probe.show-fields" })
            #expect(probeResult.violations.count == 5)
            #expect(probeResult.violations.contains { $0.message.contains("note=[redacted ") })
            #expect(probeResult.violations.contains { $0.message.contains("reason=[redacted ") })
            let single = try #require(report.results.first { $0.rule.id == "ws.single-close" })
            #expect(single.violations.contains { !$0.context.isEmpty })

            var texts: [String] = []
            for r in report.results {
                for f in r.violations + r.inconclusive {
                    texts.append(f.message)
                    texts += f.context.map(\.text)
                    texts.append(f.source?.description ?? "")
                }
            }
            texts.append(TextReport(color: false, limit: 1000).render(report))
            texts.append(TextReport(color: true).render(report))
            texts.append(JSONReport.render(report))
            for text in texts {
                #expect(!text.contains("SECRET"), "a secret leaked into: \(text)")
            }
            for text in texts where text.contains("KEYLEAK") {
                Issue.record("a secret leaked into: \(text)")
            }
            #expect(probeResult.violations.contains { $0.message.contains("password=[redacted]") })
        }
    }
}
