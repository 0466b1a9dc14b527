import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

@testable import ConnAudit
import ConnAuditTestSupport

/// The CI report formats (`--format junit|sarif|github`), over reports the real Auditor makes with
/// the built-in pack: a secret, a malformed line, an inconclusive ping, a coverage violation, an
/// unreadable input, and a custom rule whose message needs escaping in every format.
@Suite struct CIReportTests {
    // MARK: - Fixtures

    static let secret = "hunter2-SECRET-value"

    /// Line 3 holds a secret, line 4 is malformed, line 5 is a ping whose log ends before its
    /// deadline (ws.timeout-closes inconclusive), line 6 a close without a reason; no ws outcome is
    /// covered (ws.required-outcomes fails four times, with no line).
    static let log = """
        {"t":0,"src":"app","ev":"ws.connect","gen":1}
        {"t":10,"src":"app","ev":"ws.open","gen":1}
        {"t":20,"src":"app","ev":"app.scene","phase":"active","password":"\(secret)"}
        this is not json
        {"t":110,"src":"app","ev":"ws.ping","gen":1}
        {"t":500,"src":"app","ev":"ws.close","gen":2}

        """

    /// A rule whose title and message need escaping in XML, JSON and workflow commands.
    static let escapingRule = #"""
        rules:
          - id: test.escaping
            title: Escaping <title> & "quotes"
            severity: warning
            for: generation
            never: { ev: ws.close }
            message: "bad <close> & \"quoted\" 'single' 100% done, a:b\nsecond line"

        """#

    static let builtin = RuleLoader.builtin()

    static func rules(custom: Bool) -> RuleSet {
        guard custom else { return builtin }
        do {
            let extra = try RuleLoader.load(files: [("custom.yaml", escapingRule)])
            return RuleSet(rules: builtin.rules + extra.rules)
        } catch {
            Issue.record("the custom rule does not load: \(error)")
            return builtin
        }
    }

    /// Runs the rules over `logs/app.jsonl` (served from memory) and, when `unreadable`, over
    /// `logs/locked.jsonl` (or `unreadablePath`), which the opener refuses.
    static func audit(
        _ text: String = log, path: String = "logs/app.jsonl", custom: Bool = false,
        unreadable: Bool = false, unreadablePath: String = "logs/locked.jsonl",
        failOn: AuditReport.FailOn = .error
    ) -> AuditReport {
        let opener = RuleRuns.opener([(path, text)], unreadable: unreadable ? [unreadablePath] : [])
        let auditor = Auditor(rules: rules(custom: custom), jobs: 1, opener: opener)
        var inputs = [InputFile(path: path)]
        if unreadable { inputs.append(InputFile(path: unreadablePath)) }
        return auditor.run(inputs, failOn: failOn)
    }

    // MARK: - All formats

    /// JSON, SARIF and JUnit handed over in pieces as they are written are, joined, the report
    /// made whole — on a report of many findings (most pieces end mid-report), with an unreadable
    /// input and a baseline's accepted violations in it too.
    @Test func reportsWrittenInPiecesAreTheReportsMadeWhole() throws {
        var text = Self.log
        for i in 0..<4_000 {
            text +=
                #"{"t":\#(5_000 + i),"src":"app","ev":"ws.ping","gen":9,"note":"ü \#(i)"}"# + "\n"
        }
        var report = Self.audit(text, unreadable: true)
        let all = Baseline.from(report)
        // Accept every other violation, so the baselined lists are long too.
        let half = Baseline(
            entries: all.entries.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
        report.baseline = half.apply(to: &report, path: "b.json", today: "2026-12-02")
        #expect(report.results.reduce(0) { $0 + $1.violations.count + $1.baselined.count } > 8_000)
        final class Pieces { var bytes: [[UInt8]] = []; var texts: [String] = [] }
        let pieces = Pieces()
        #expect(JSONReport.render(report, flush: { pieces.bytes.append($0) }).isEmpty)
        #expect(pieces.bytes.count > 2)
        #expect(
            String(decoding: Array(pieces.bytes.joined()), as: UTF8.self)
                == JSONReport.render(report))
        pieces.bytes = []
        #expect(SARIFReport.render(report, flush: { pieces.bytes.append($0) }).isEmpty)
        #expect(pieces.bytes.count > 2)
        #expect(
            String(decoding: Array(pieces.bytes.joined()), as: UTF8.self)
                == SARIFReport.render(report))
        JUnitReport.render(report, flush: { pieces.texts.append($0) })
        #expect(pieces.texts.count >= 2)
        #expect(pieces.texts.dropLast().allSatisfy { $0.utf8.count >= JSONWriter.flushSize })
        #expect(pieces.texts.joined() == JUnitReport.render(report))
    }

    @Test func theFixtureHasWhatTheTestsNeed() {
        let report = Self.audit(unreadable: true)
        func status(_ id: String) -> RuleStatus? {
            report.results.first { $0.rule.id == id }?.status
        }
        #expect(status("log.no-secrets") == .fail)
        #expect(status("log.malformed") == .fail)
        #expect(status("ws.timeout-closes") == .inconclusive)
        #expect(status("ws.required-outcomes") == .fail)
        #expect(report.inputErrors.map(\.path) == ["logs/locked.jsonl"])
    }

    @Test(arguments: ["junit", "sarif", "github"])
    func noFormatPrintsTheSecret(format: String) {
        let report = Self.audit(custom: true, unreadable: true)
        let text = render(format, report)
        #expect(!text.isEmpty)
        #expect(!text.contains(Self.secret))
        #expect(!text.contains("hunter2"))
    }

    func render(_ format: String, _ report: AuditReport) -> String {
        switch format {
        case "junit": return JUnitReport.render(report)
        case "sarif": return SARIFReport.render(report)
        default: return GitHubReport.render(report)
        }
    }

    // MARK: - JUnit

    @Test func junitIsWellFormedWithOneTestcasePerRule() throws {
        let report = Self.audit()
        let xml = try XMLTree.parse(JUnitReport.render(report))
        #expect(
            JUnitReport.render(report).hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"))
        #expect(xml.name == "testsuites")
        let cases = xml.all("testcase")
        #expect(cases.count == report.results.count)
        for (c, r) in zip(cases, report.results) {
            #expect(c.attributes["classname"] == r.rule.family)
            #expect(c.attributes["name"] == r.rule.id)
        }
        #expect(xml.attributes["tests"] == String(report.results.count))
        #expect(xml.attributes["failures"] == String(report.count(.fail)))
        #expect(xml.attributes["errors"] == "0")
        #expect(
            xml.attributes["skipped"]
                == String(report.count(.inconclusive) + report.count(.notApplicable)))
        #expect(xml.attributes["time"] == "0")
        #expect(xml.all("testsuite").count == 1)
    }

    @Test func junitFailuresListViolationsWithFileAndLine() throws {
        let xml = try XMLTree.parse(JUnitReport.render(Self.audit()))
        let malformed = try #require(xml.testcase("log.malformed")?.child("failure"))
        #expect(malformed.attributes["message"] == "1 violation (error)")
        #expect(malformed.attributes["type"] == "error")
        #expect(malformed.text.hasPrefix("logs/app.jsonl:4 "))
        let close = try #require(xml.testcase("ws.close-has-reason")?.child("failure"))
        #expect(close.text.hasPrefix("logs/app.jsonl:6 t=500 src=app gen=2 "))
        let coverage = try #require(xml.testcase("ws.required-outcomes")?.child("failure"))
        #expect(coverage.attributes["message"] == "4 violations (error)")
        #expect(coverage.text.split(separator: "\n").count == 4)
        #expect(coverage.text.contains("no 'delayed' outcome"))
        #expect(xml.testcase("ws.single-close")?.children.isEmpty == true)
    }

    @Test func junitInconclusiveIsSkippedWithTheReason() throws {
        let xml = try XMLTree.parse(JUnitReport.render(Self.audit()))
        let testcase = try #require(xml.testcase("ws.timeout-closes"))
        #expect(testcase.child("failure") == nil)
        let skipped = try #require(testcase.child("skipped"))
        let message = try #require(skipped.attributes["message"])
        #expect(message.hasPrefix("inconclusive: 1 case could not be decided: the ping at t=110"))
        #expect(skipped.text.hasPrefix("logs/app.jsonl:5 "))
        #expect(skipped.text.contains("the log ends before"))
    }

    @Test func junitNotApplicableIsSkipped() throws {
        let report = Self.audit("{\"t\":0,\"ev\":\"sse.connect\"}\n")
        let xml = try XMLTree.parse(JUnitReport.render(report))
        let skipped = try #require(xml.testcase("ws.required-outcomes")?.child("skipped"))
        #expect(skipped.attributes["message"]?.hasPrefix("not applicable") == true)
    }

    @Test func junitUnreadableInputsAreAnErrorTestcase() throws {
        let report = Self.audit(unreadable: true)
        let xml = try XMLTree.parse(JUnitReport.render(report))
        #expect(xml.all("testcase").count == report.results.count + 1)
        #expect(xml.attributes["errors"] == "1")
        let inputs = try #require(xml.all("testcase").first { $0.attributes["name"] == "inputs" })
        #expect(inputs.attributes["classname"] == "conn-audit")
        let error = try #require(inputs.child("error"))
        #expect(error.text == "could not read logs/locked.jsonl: permission denied")
    }

    @Test func junitEscapesMarkupInMessagesAndTitles() throws {
        let text = JUnitReport.render(Self.audit(custom: true, failOn: .warning))
        #expect(text.contains("bad &lt;close&gt; &amp; &quot;quoted&quot; &apos;single&apos;"))
        let xml = try XMLTree.parse(text)
        let failure = try #require(xml.testcase("test.escaping")?.child("failure"))
        #expect(
            failure.text.contains("bad <close> & \"quoted\" 'single' 100% done, a:b\nsecond line"))
    }

    /// JUnit counts as failures only what fails the gate: a rule below `--fail-on` passes, its
    /// violations listed in `<system-out>` (so `--fail-on never` writes `failures="0"`).
    @Test func junitCountsAsFailuresOnlyWhatFailsTheGate() throws {
        let xml = try XMLTree.parse(JUnitReport.render(Self.audit(custom: true, failOn: .error)))
        let below = try #require(xml.testcase("test.escaping"))
        #expect(below.child("failure") == nil)
        let out = try #require(below.child("system-out"))
        #expect(
            out.text.hasPrefix(
                "1 violation (warning, below --fail-on error: does not fail the run):\n"))
        #expect(out.text.contains("bad <close>"))
        let gating = try XMLTree.parse(
            JUnitReport.render(Self.audit(custom: true, failOn: .warning)))
        #expect(
            gating.testcase("test.escaping")?.child("failure")?.attributes["message"]
                == "1 violation (warning)")
        #expect(
            Int(gating.attributes["failures"] ?? "") == Int(xml.attributes["failures"] ?? "")! + 1)
        let never = try XMLTree.parse(JUnitReport.render(Self.audit(custom: true, failOn: .never)))
        #expect(never.attributes["failures"] == "0")
        #expect(never.all("failure").isEmpty)
    }

    @Test func junitEscapingShowsWhatXMLCannotHold() throws {
        #expect(
            JUnitReport.text("a\u{0}b\u{1}c\u{1B}d\re\u{FFFF}f\tg\nh")
                == #"a\u{0}b\u{1}c\u{1B}d\re\u{FFFF}f"# + "\tg\nh")
        #expect(JUnitReport.attr("x\ny\tz\"'<>&") == "x&#10;y&#9;z&quot;&apos;&lt;&gt;&amp;")
        // A whole document with control characters in a message still parses, and shows them.
        let xml = "<a m=\"\(JUnitReport.attr("1\u{2}\n2"))\">\(JUnitReport.text("<\u{7}>"))</a>"
        let tree = try XMLTree.parse(xml)
        #expect(tree.attributes["m"] == #"1\u{2}"# + "\n2")
        #expect(tree.text == #"<\u{7}>"#)
    }

    /// XML 1.0 cannot hold a control character, even as `&#1;`: dropped, `a\u{1}.jsonl` read as
    /// `a.jsonl`, another file's name, and a newline in a name started a row of its own.
    @Test func junitShowsControlCharactersInFileNames() throws {
        let report = Self.audit(
            path: "logs/a\u{1}b\nc.jsonl", unreadable: true,
            unreadablePath: "logs/x\u{7}\u{1B}y.jsonl")
        let xml = try XMLTree.parse(JUnitReport.render(report))
        let malformed = try #require(xml.testcase("log.malformed")?.child("failure"))
        #expect(malformed.text.hasPrefix(#"logs/a\u{1}b\nc.jsonl:4 "#), "\(malformed.text)")
        #expect(!malformed.text.contains("\n"), "a file name started a row: \(malformed.text)")
        let close = try #require(xml.testcase("ws.close-has-reason")?.child("failure"))
        #expect(
            close.text.hasPrefix(#"logs/a\u{1}b\nc.jsonl:6 t=500 src=app gen=2 "#), "\(close.text)")
        let inputs = try #require(xml.testcase("inputs")?.child("error"))
        #expect(inputs.text == #"could not read logs/x\u{7}\u{1B}y.jsonl: permission denied"#)
    }

    /// The other CI formats keep the names apart too: SARIF percent-encodes its URIs and writes its
    /// texts as JSON; workflow commands percent-encode control characters.
    @Test func sarifAndGitHubKeepControlCharactersInFileNames() throws {
        let report = Self.audit(
            path: "logs/a\u{1}.jsonl", unreadable: true, unreadablePath: "logs/x\u{7}.jsonl")
        let run = try JSONTree(SARIFReport.render(report))["runs"][0]
        let uris = Set(
            run["results"].array.map {
                $0["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].string
            })
        #expect(uris == ["logs/a%01.jsonl"])
        #expect(
            run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"].string
                == "could not read logs/x\u{7}.jsonl: permission denied")
        let commands = Self.commands(GitHubReport.render(report))
        #expect(commands.first?.data == "could not read logs/x%07.jsonl: permission denied")
        let malformed = try #require(commands.first { $0.properties["title"] == "log.malformed" })
        #expect(malformed.properties["file"] == "logs/a%01.jsonl")
    }

    // MARK: - SARIF

    static let levels: Set<String> = ["none", "note", "warning", "error"]
    static let kinds: Set<String> = [
        "notApplicable", "pass", "fail", "review", "open", "informational"
    ]

    @Test func sarifHasTheRequiredProperties() throws {
        let report = Self.audit(custom: true)
        let sarif = try JSONTree(SARIFReport.render(report))
        #expect(sarif["version"].string == "2.1.0")
        #expect(sarif["$schema"].string == "https://json.schemastore.org/sarif-2.1.0.json")
        #expect(sarif["runs"].array.count == 1)
        let run = sarif["runs"][0]
        let driver = run["tool"]["driver"]
        #expect(driver["name"].string == "conn-audit")
        #expect(driver["version"].string == ConnAuditVersion.string)
        #expect(driver["informationUri"].isMissing)
        let rules = driver["rules"].array
        #expect(rules.map { $0["id"].string } == report.results.map(\.rule.id))
        for (rule, r) in zip(rules, report.results) {
            #expect(rule["name"].string == r.rule.title)
            #expect(rule["shortDescription"]["text"].string == r.rule.title)
            #expect(!(rule["fullDescription"]["text"].string ?? "").isEmpty)
            #expect(
                rule["defaultConfiguration"]["level"].string == SARIFReport.level(r.rule.severity))
            #expect(
                rule["help"]["text"].string?.hasPrefix(
                    "Run `conn-audit rules --explain \(r.rule.id)`") == true)
            #expect(
                rule["properties"]["tags"].array.map(\.string) == [
                    r.rule.family, r.rule.scope.rawValue
                ])
        }
        let escaping = try #require(rules.first { $0["id"].string == "test.escaping" })
        #expect(escaping["shortDescription"]["text"].string == "Escaping <title> & \"quotes\"")
        #expect(escaping["defaultConfiguration"]["level"].string == "warning")

        let results = run["results"].array
        let expected = report.results.reduce(0) { $0 + $1.violations.count + $1.inconclusive.count }
        #expect(results.count == expected)
        for result in results {
            let ruleId = try #require(result["ruleId"].string)
            let index = try #require(result["ruleIndex"].int)
            #expect(rules[index]["id"].string == ruleId)
            #expect(!(result["message"]["text"].string ?? "").isEmpty)
            let level = try #require(result["level"].string)
            let kind = try #require(result["kind"].string)
            #expect(Self.levels.contains(level))
            #expect(Self.kinds.contains(kind))
            // SARIF §3.27.9: level is none unless the result failed.
            #expect((kind == "fail") == (level != "none"))
            #expect(result["partialFingerprints"][SARIFReport.fingerprintKey].string?.count == 16)
            // GitHub code scanning refuses a result without a location.
            #expect(result["locations"].array.count == 1)
            for location in result["locations"].array {
                let artifact = location["physicalLocation"]["artifactLocation"]
                #expect(artifact["uri"].string == "logs/app.jsonl")
                #expect(artifact["uriBaseId"].isMissing)
                #expect((location["physicalLocation"]["region"]["startLine"].int ?? 0) >= 1)
            }
        }
        let escapingResult = try #require(results.first { $0["ruleId"].string == "test.escaping" })
        #expect(
            escapingResult["message"]["text"].string
                == "bad <close> & \"quoted\" 'single' 100% done, a:b\nsecond line")
        #expect(escapingResult["level"].string == "warning")
        #expect(run["invocations"][0]["executionSuccessful"].bool == true)
        #expect(run["invocations"][0]["toolExecutionNotifications"].isMissing)
        #expect(run["originalUriBaseIds"].isMissing)
    }

    @Test func sarifPlacesEachKindOfFinding() throws {
        let run = try JSONTree(SARIFReport.render(Self.audit()))["runs"][0]
        let results = run["results"].array
        func of(_ id: String) -> [JSONTree] { results.filter { $0["ruleId"].string == id } }
        let malformed = try #require(of("log.malformed").first)
        #expect(malformed["kind"].string == "fail")
        #expect(malformed["level"].string == "error")
        #expect(malformed["locations"][0]["physicalLocation"]["region"]["startLine"].int == 4)
        let inconclusive = try #require(of("ws.timeout-closes").first)
        #expect(inconclusive["kind"].string == "review")
        #expect(inconclusive["level"].string == "none")
        #expect(inconclusive["locations"][0]["physicalLocation"]["region"]["startLine"].int == 5)
        let coverage = of("ws.required-outcomes")
        #expect(coverage.count == 4)
        // Corpus-wide: placed at the first input's first line, and said to be corpus-wide.
        #expect(
            coverage.allSatisfy {
                $0["kind"].string == "fail" && $0["properties"]["corpusWide"].bool == true
            })
        #expect(
            coverage.allSatisfy {
                $0["locations"][0]["physicalLocation"]["region"]["startLine"].int == 1
            })
        #expect(
            coverage.allSatisfy {
                $0["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].string
                    == "logs/app.jsonl"
            })
        #expect(malformed["properties"]["corpusWide"].isMissing)
        #expect(
            Set(
                coverage.compactMap { $0["partialFingerprints"][SARIFReport.fingerprintKey].string }
            ).count == 4)
    }

    /// Runs the built-in pack over `inputs` in order, served from memory; a nil content is an
    /// input the opener refuses.
    static func audit(_ inputs: [(path: String, bytes: [UInt8]?)]) -> AuditReport {
        let files = inputs.compactMap { i in i.bytes.map { (path: i.path, bytes: $0) } }
        let refused = Set(inputs.filter { $0.bytes == nil }.map(\.path))
        let auditor = Auditor(
            rules: builtin, jobs: 1, opener: RuleRuns.opener(files, unreadable: refused))
        return auditor.run(inputs.map { InputFile(path: $0.path) })
    }

    /// The `artifactLocation.uri` of every corpus-wide result ("-" for one without a location).
    static func corpusURIs(_ report: AuditReport) throws -> [String] {
        try JSONTree(SARIFReport.render(report))["runs"][0]["results"].array
            .filter { $0["properties"]["corpusWide"].bool == true }
            .map { r in
                guard !r["locations"].isMissing else { return "-" }
                #expect(r["locations"][0]["physicalLocation"]["region"]["startLine"].int == 1)
                return r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].string
                    ?? "?"
            }
    }

    static let corruptGzip: [UInt8] = [0x1f, 0x8b, 0x08, 0x00] + Array("garbage".utf8)

    /// Inputs in order (nil bytes: the opener refuses it) and where corpus results should go.
    struct PlacementCase: Sendable, CustomTestStringConvertible {
        var inputs: [(path: String, bytes: [UInt8]?)]
        var expected: String
        var testDescription: String {
            inputs.map(\.path).joined(separator: " ") + " -> " + expected
        }
        init(_ inputs: [(String, [UInt8]?)], _ expected: String) {
            self.inputs = inputs.map { (path: $0.0, bytes: $0.1) }
            self.expected = expected
        }
    }

    /// A corpus-wide result sits on an input code scanning can show: never on one that could not
    /// be read (not opened, corrupt), and on a gzip file only when no plain one was read.
    @Test(arguments: [
        // An input that failed, then one that could not be opened: the third one.
        PlacementCase(
            [
                ("logs/corrupt.jsonl.gz", corruptGzip), ("logs/locked.jsonl", nil),
                ("logs/app.jsonl", Array(log.utf8))
            ], "logs/app.jsonl"),
        // A gzip upload first: the plain log after it.
        PlacementCase(
            [
                ("logs/up.jsonl.gz", Gzip.compress(Array(log.utf8))),
                ("logs/app.jsonl", Array(log.utf8))
            ],
            "logs/app.jsonl"),
        // Gzip is told by its bytes, not its name.
        PlacementCase(
            [
                ("logs/packed.jsonl", Gzip.compress(Array(log.utf8))),
                ("logs/plain.log.gz", Array(log.utf8))
            ],
            "logs/plain.log.gz"),
        // Only gzip was read: the first gzip file that was read to its end.
        PlacementCase(
            [
                ("logs/corrupt.jsonl.gz", corruptGzip),
                ("logs/up.jsonl.gz", Gzip.compress(Array(log.utf8)))
            ],
            "logs/up.jsonl.gz"),
        // No input was read cleanly (a cut-off gzip, an unopenable file): the first input, since
        // code scanning refuses a whole SARIF file with a result that has no location.
        PlacementCase(
            [
                ("logs/cut.jsonl.gz", Array(Gzip.compress(Array(log.utf8)).dropLast(6))),
                ("logs/locked.jsonl", nil)
            ], "logs/cut.jsonl.gz")
    ])
    func sarifPlacesCorpusResultsOnAReadableInput(_ c: PlacementCase) throws {
        let report = Self.audit(c.inputs)
        #expect(report.results.first { $0.rule.id == "ws.required-outcomes" }?.status == .fail)
        let uris = try Self.corpusURIs(report)
        #expect(uris.count == 4)
        #expect(uris.allSatisfy { $0 == c.expected }, "\(uris)")
    }

    @Test func fileStatsSayWhichInputsWereGzip() {
        let report = Self.audit([
            ("a.jsonl", Gzip.compress(Array(Self.log.utf8))), ("b.jsonl.gz", Array(Self.log.utf8)),
            ("c.jsonl.gz", Self.corruptGzip)
        ])
        #expect(report.files.map(\.compressed) == [true, false, true])
        #expect(report.files.map { $0.error == nil } == [true, true, false])
    }

    @Test func sarifReportsUnreadableInputsAsAnIncompleteInvocation() throws {
        let run = try JSONTree(SARIFReport.render(Self.audit(unreadable: true)))["runs"][0]
        let invocation = run["invocations"][0]
        #expect(invocation["executionSuccessful"].bool == false)
        #expect(invocation["exitCode"].int == 2)
        let notes = invocation["toolExecutionNotifications"].array
        #expect(notes.count == 1)
        #expect(notes.first?["level"].string == "error")
        #expect(
            notes.first?["message"]["text"].string
                == "could not read logs/locked.jsonl: permission denied")
    }

    /// `ruleId \u{1F} fingerprint` of a SARIF result.
    static func resultKey(_ r: JSONTree) -> String {
        (r["ruleId"].string ?? "") + "\u{1F}"
            + (r["partialFingerprints"][SARIFReport.fingerprintKey].string ?? "")
    }

    /// `ruleId \u{1F} fingerprint` → start line (0 for none) of every result.
    static func fingerprints(_ text: String) throws -> [String: Int] {
        var out: [String: Int] = [:]
        for r in try JSONTree(text)["runs"][0]["results"].array {
            let key = Self.resultKey(r)
            #expect(out[key] == nil, "fingerprints are unique within a run: \(key)")
            // A corpus-wide result sits at line 1 of the first file without being about it: 0 here.
            let corpusWide = r["properties"]["corpusWide"].bool == true
            out[key] =
                corpusWide
                ? 0 : r["locations"][0]["physicalLocation"]["region"]["startLine"].int ?? 0
        }
        return out
    }

    @Test func sarifFingerprintsAreStableAndIgnoreLineShifts() throws {
        let first = try Self.fingerprints(SARIFReport.render(Self.audit()))
        let second = try Self.fingerprints(SARIFReport.render(Self.audit()))
        #expect(first == second)
        #expect(first.count == 8)

        let shifted = "{\"t\":0,\"src\":\"other\",\"ev\":\"note.unrelated\"}\n" + Self.log
        let moved = try Self.fingerprints(SARIFReport.render(Self.audit(shifted)))
        #expect(Set(moved.keys) == Set(first.keys))
        for (key, line) in first {
            #expect(moved[key] == (line == 0 ? 0 : line + 1), "\(key)")
        }
    }

    /// GitHub code scanning matches alerts on `partialFingerprints.primaryLocationLineHash` only
    /// (and computes one from the log line's text when it is missing): it carries conn-audit's
    /// fingerprint, on every kind of result, so an alert survives lines added above it.
    @Test func sarifGivesCodeScanningTheLineIndependentFingerprint() throws {
        func keys(_ report: AuditReport) throws -> [String: Int] {
            var out: [String: Int] = [:]
            for r in try JSONTree(SARIFReport.render(report))["runs"][0]["results"].array {
                let ours = try #require(r["partialFingerprints"][SARIFReport.fingerprintKey].string)
                let github = try #require(
                    r["partialFingerprints"]["primaryLocationLineHash"].string)
                #expect(github == ours, "\(r["ruleId"].string ?? "?")")
                out[(r["ruleId"].string ?? "") + "\u{1F}" + github] =
                    r["locations"][0]["physicalLocation"]["region"]["startLine"].int
            }
            return out
        }
        var report = Self.audit()
        report.baseline = Baseline.from(report).apply(
            to: &report, path: "ci/baseline.json", today: "2026-01-01")
        let first = try keys(report)
        #expect(first.count == 8)
        let shifted = "{\"t\":0,\"src\":\"other\",\"ev\":\"note.unrelated\"}\n" + Self.log
        var moved = Self.audit(shifted)
        moved.baseline = Baseline.from(moved).apply(
            to: &moved, path: "ci/baseline.json", today: "2026-01-01")
        let second = try keys(moved)
        #expect(Set(second.keys) == Set(first.keys))
        // The lines moved; the hashes code scanning matches on did not.
        #expect(second.contains { key, line in line != first[key] })
    }

    @Test func sarifFingerprintsAgreeWithTheBaseline() throws {
        var report = Self.audit()
        let baseline = Baseline.from(report)
        let before = try Self.fingerprints(SARIFReport.render(report))
        report.baseline = baseline.apply(to: &report, path: "ci/baseline.json", today: "2026-01-01")
        let entries = Set(baseline.entries.map { $0.rule + "\u{1F}" + $0.fingerprint })
        let sarif = try JSONTree(SARIFReport.render(report))
        let results = sarif["runs"][0]["results"].array
        let suppressed = results.filter { !$0["suppressions"].isMissing }
        #expect(suppressed.count == entries.count)
        for r in suppressed {
            let key = Self.resultKey(r)
            #expect(entries.contains(key))
            #expect(r["suppressions"][0]["kind"].string == "external")
            #expect(r["suppressions"][0]["status"].string == "accepted")
            #expect(
                r["suppressions"][0]["justification"].string
                    == "accepted by the baseline ci/baseline.json")
        }
        // Baselining moves results aside but changes no fingerprint.
        #expect(try Self.fingerprints(SARIFReport.render(report)) == before)
    }

    @Test func sarifCountsOccurrencesAcrossBaselinedAndKeptViolations() throws {
        // Two findings with the same identity (same event fields, different lines): occurrences 0
        // and 1. With the first one baselined, the kept one must still be occurrence 1.
        let rule = try #require(Self.builtin.rules.first { $0.id == "ws.single-close" })
        let key = SourceKey(src: "d")
        let a = Finding(
            file: 0, line: 3, t: 10, source: key, gen: 1, message: "second close", ev: "ws.close")
        let b = Finding(
            file: 0, line: 7, t: 10, source: key, gen: 1, message: "second close", ev: "ws.close")
        let paths = ["logs/d.jsonl"]
        let both = Fingerprint.of([a, b], rule: rule.id, paths: paths)
        #expect(both[0] != both[1])
        var result = RuleResult(rule: rule, violations: [b], inconclusive: [])
        result.baselined = [a]
        let split = Fingerprint.of(result, paths: paths)
        #expect(split.baselined == [both[0]])
        #expect(split.violations == [both[1]])
    }

    @Test func sarifURIsAreThePathsAsTheReportsWriteThem() {
        func uri(_ path: String, cwd: String? = "/work/repo") -> String {
            SARIFReport.artifactURI(path, cwd: cwd)
        }
        // Relative paths stay relative to where conn-audit ran (the repository root in CI).
        #expect(uri("logs/a/b.jsonl") == "logs/a/b.jsonl")
        #expect(uri("./c.jsonl") == "c.jsonl")
        #expect(uri("single.jsonl") == "single.jsonl")
        // Two files with the same name under different PATHs stay apart.
        #expect(uri("l1/a.jsonl") != uri("l2/a.jsonl"))
        // Absolute: relative when under the working directory, else a file URI.
        #expect(uri("/work/repo/uploads/d.log.gz") == "uploads/d.log.gz")
        #expect(uri("/work/repository/x.jsonl") == "file:///work/repository/x.jsonl")
        #expect(uri("/tmp/y z.jsonl") == "file:///tmp/y%20z.jsonl")
        #expect(uri("/tmp/y.jsonl", cwd: nil) == "file:///tmp/y.jsonl")
        #expect(uri("<stdin>") == "stdin")
        #expect(uri("logs/my dir/é 100%.jsonl") == "logs/my%20dir/%C3%A9%20100%25.jsonl")
        #expect(uri("logs/a:b.jsonl") == "logs/a%3Ab.jsonl")
    }

    /// A relative URI is read against the repository's root: one that starts with `..` would name
    /// a file outside it. Dot segments go (lexically, as a URI resolves them); a path that climbs
    /// out of the working directory is named by its absolute path.
    @Test(arguments: [
        // Out of the working directory, relative or absolute: a file URI.
        ("../in/x.jsonl", "file:///work/in/x.jsonl"),
        ("a/../../x.jsonl", "file:///work/x.jsonl"),
        ("./../../../../x.jsonl", "file:///x.jsonl"),
        ("..", "file:///work"),
        ("/work/repo/../other/x.jsonl", "file:///work/other/x.jsonl"),
        ("/work/repo/a/../../repository/x.jsonl", "file:///work/repository/x.jsonl"),
        // Back inside it: relative, without the dot segments.
        ("../repo/in/x.jsonl", "in/x.jsonl"),
        ("in/./a/../x.jsonl", "in/x.jsonl"),
        ("in//x.jsonl", "in/x.jsonl"),
        ("./././x.jsonl", "x.jsonl"),
        ("/work/repo/./in/../up/d.log.gz", "up/d.log.gz"),
        ("/work/./repo/x.jsonl", "x.jsonl"),
        // Names that only look like dot segments are names.
        ("...jsonl", "...jsonl"),
        ("..x/y.jsonl", "..x/y.jsonl"),
        ("a/.b/c.jsonl", "a/.b/c.jsonl")
    ])
    func sarifURIsNeverClimbOutOfTheWorkingDirectory(_ path: String, _ expected: String) {
        #expect(SARIFReport.artifactURI(path, cwd: "/work/repo") == expected)
    }

    @Test func sarifURIsOfPathsThatClimbOutWithoutAWorkingDirectory() {
        // Not knowing where it ran, a relative path can only stay relative.
        #expect(SARIFReport.artifactURI("../x/./y.jsonl", cwd: nil) == "../x/y.jsonl")
        #expect(SARIFReport.artifactURI("a/../b.jsonl", cwd: nil) == "b.jsonl")
        // At the root, everything is below the working directory but is named absolutely, as
        // before.
        #expect(SARIFReport.artifactURI("../x.jsonl", cwd: "/") == "file:///x.jsonl")
        #expect(SARIFReport.artifactURI("x.jsonl", cwd: "/") == "x.jsonl")
    }

    // MARK: - GitHub

    /// A parsed workflow command: `::name k=v,k=v::data`.
    struct Command: Equatable {
        var name: String
        var properties: [String: String]
        var data: String

        init?(_ line: Substring) {
            guard line.hasPrefix("::") else { return nil }
            let body = line.dropFirst(2)
            guard let end = body.range(of: "::") else { return nil }
            let head = body[..<end.lowerBound]
            data = String(body[end.upperBound...])
            let parts = head.split(separator: " ", maxSplits: 1)
            name = String(parts[0])
            properties = [:]
            if parts.count == 2 {
                for kv in parts[1].split(separator: ",", omittingEmptySubsequences: false) {
                    let pair = kv.split(
                        separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    guard pair.count == 2 else { return nil }
                    properties[String(pair[0])] = String(pair[1])
                }
            }
        }
    }

    static func commands(_ text: String) -> [Command] {
        text.split(separator: "\n").compactMap(Command.init)
    }

    @Test func githubWritesOneCommandPerViolation() throws {
        let report = Self.audit(unreadable: true)
        let text = GitHubReport.render(report)
        let lines = text.split(separator: "\n")
        let commands = Self.commands(text)
        // Every line is a command or plain text that cannot be mistaken for one.
        for line in lines where line.hasPrefix("::") { #expect(Command(line) != nil, "\(line)") }
        #expect(
            commands.first
                == Command(
                    "::error title=conn-audit::could not read logs/locked.jsonl: permission denied")
        )
        let malformed = try #require(commands.first { $0.properties["title"] == "log.malformed" })
        #expect(malformed.name == "error")
        #expect(
            malformed.properties == [
                "file": "logs/app.jsonl", "line": "4", "title": "log.malformed"
            ])
        let coverage = commands.filter { $0.properties["title"] == "ws.required-outcomes" }
        #expect(coverage.count == 4)
        #expect(
            coverage.allSatisfy { $0.properties["file"] == nil && $0.properties["line"] == nil })
        // 1 input error + 7 violations, under the cap: no overflow notice.
        #expect(commands.count == 8)
        #expect(!commands.contains { $0.name == "notice" })
        // Inconclusive rules make no annotation, only a plain line.
        #expect(!commands.contains { $0.properties["title"] == "ws.timeout-closes" })
        #expect(lines.contains { $0.hasPrefix("conn-audit: ws.timeout-closes is inconclusive") })
        let passed = report.count(.pass)
        // Violations in what could be read fail the run, even with an input unread (exit 2).
        let summary =
            "conn-audit: 1 input could not be read; 4 rules failed, \(passed) passed, 1 inconclusive"
            + " — verdict FAIL"
        #expect(lines.last.map(String.init) == summary)
    }

    @Test func githubNamesTheLineOfStandardInputInTheMessage() throws {
        let commands = Self.commands(GitHubReport.render(Self.audit(path: "<stdin>")))
        let malformed = try #require(commands.first { $0.properties["title"] == "log.malformed" })
        #expect(malformed.properties["file"] == nil && malformed.properties["line"] == nil)
        #expect(malformed.data.hasPrefix("<stdin>:4: "), "\(malformed.data)")
    }

    @Test func githubLevelsFollowSeverityAndTheSummarySaysPass() throws {
        let close = "{\"t\":0,\"src\":\"s\",\"ev\":\"ws.close\",\"gen\":3,\"reason\":\"user\"}\n"
        let text = GitHubReport.render(Self.audit(close, custom: true, failOn: .error))
        let commands = Self.commands(text)
        #expect(
            commands.contains { $0.name == "warning" && $0.properties["title"] == "test.escaping" })
        // One failed rule is "1 rule failed", however many violations it has.
        let one = try #require(text.split(separator: "\n").last)
        #expect(one.hasPrefix("conn-audit: 1 rule failed, "), "\(one)")
        let report = Self.audit("{\"t\":0,\"ev\":\"sse.connect\"}\n")
        let clean = GitHubReport.render(report)
        // The coverage rule has nothing to judge in an SSE-only log: not applicable, and counted.
        #expect(report.count(.notApplicable) == 1)
        #expect(
            clean
                == "conn-audit: 0 rules failed, \(report.count(.pass)) passed, 0 inconclusive, 1 not applicable — verdict PASS\n"
        )
    }

    @Test func githubEscapesDataAndProperties() {
        #expect(GitHubReport.data("100% a\r\nb, c:d") == "100%25 a%0D%0Ab, c:d")
        #expect(GitHubReport.property("a,b:c%\n") == "a%2Cb%3Ac%25%0A")
        #expect(GitHubReport.data("%0A") == "%250A")

        let report = Self.audit(path: "logs/a,b:c.jsonl", custom: true)
        let text = GitHubReport.render(report)
        let command = Self.commands(text).first { $0.properties["title"] == "test.escaping" }
        #expect(command?.properties["file"] == "logs/a%2Cb%3Ac.jsonl")
        #expect(command?.data == "bad <close> & \"quoted\" 'single' 100%25 done, a:b%0Asecond line")
        // The newline in the message did not split the command.
        #expect(!text.contains("\nsecond line"))
    }

    @Test func githubCapsAnnotationsPerLevelAndSummarisesTheRest() throws {
        let report = Self.audit(unreadable: true)
        let commands = Self.commands(GitHubReport.render(report, maxPerLevel: 3))
        let errors = commands.filter { $0.name == "error" }
        #expect(errors.count == 3)
        let notices = commands.filter { $0.name == "notice" }
        #expect(notices.count == 1)
        let summary = try #require(notices.first)
        #expect(summary.properties["title"] == "conn-audit")
        // 8 errors in all (1 input, 7 violations), 3 written: log.no-secrets's is the third.
        #expect(summary.data.hasPrefix("5 more findings were not annotated"))
        #expect(summary.data.hasSuffix(": ws.close-has-reason 1, ws.required-outcomes 4"))
        #expect(commands.last == summary)
    }

    @Test func githubKeepsANoticeSlotForTheSummary() {
        // Info findings become notices; when something overflows, one notice slot is the summary.
        let info = #"""
            rules:
              - id: test.info
                title: Every event is noted
                severity: info
                for: corpus
                never: { ev: ws.connect }
                message: "noted"

            """#
        let rules = (try? RuleLoader.load(files: [("info.yaml", info)]))?.rules ?? []
        #expect(rules.count == 1)
        let text = (0..<4).map {
            "{\"t\":\($0),\"src\":\"s\",\"ev\":\"ws.connect\",\"gen\":\($0 + 1)}\n"
        }.joined()
        let report = RuleRuns.audit(rules, text, path: "i.jsonl")
        let exact = Self.commands(GitHubReport.render(report, maxPerLevel: 4))
        #expect(exact.filter { $0.name == "notice" }.count == 4)
        #expect(!exact.contains { $0.properties["title"] == "conn-audit" })
        let over = Self.commands(GitHubReport.render(report, maxPerLevel: 3))
        #expect(over.filter { $0.name == "notice" }.count == 3)
        #expect(over.last?.properties["title"] == "conn-audit")
        #expect(over.last?.data.hasSuffix(": test.info 2") == true)
    }
}

// MARK: - Test helpers: a tiny XML tree (Foundation's XMLParser) and JSON access

/// An element parsed with Foundation's `XMLParser`: name, attributes, text, children.
final class XMLTree {
    let name: String
    let attributes: [String: String]
    var text = ""
    var children: [XMLTree] = []

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ xml: String) throws -> XMLTree {
        let parser = XMLParser(data: Data(xml.utf8))
        let builder = Builder()
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            throw ParseError(
                description:
                    "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "no root")")
        }
        return root
    }

    func child(_ name: String) -> XMLTree? { children.first { $0.name == name } }

    /// Every element below this one with that name, in document order.
    func all(_ name: String) -> [XMLTree] {
        children.flatMap { ($0.name == name ? [$0] : []) + $0.all(name) }
    }

    func testcase(_ name: String) -> XMLTree? {
        all("testcase").first { $0.attributes["name"] == name }
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var root: XMLTree?
        var stack: [XMLTree] = []

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
        ) {
            let node = XMLTree(name: elementName, attributes: attributeDict)
            stack.last?.children.append(node)
            if root == nil { root = node }
            stack.append(node)
        }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?
        ) {
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }
    }
}

/// A JSON value parsed with `JSONSerialization`, with forgiving subscripts for assertions.
struct JSONTree {
    let value: Any?

    init(_ text: String) throws {
        value = try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    private init(value: Any?) { self.value = value }

    subscript(key: String) -> JSONTree { JSONTree(value: (value as? [String: Any])?[key]) }
    subscript(index: Int) -> JSONTree {
        guard let a = value as? [Any], index < a.count else { return JSONTree(value: nil) }
        return JSONTree(value: a[index])
    }

    var isMissing: Bool { value == nil }
    var string: String? { value as? String }
    var int: Int? { value as? Int }
    var bool: Bool? { value as? Bool }
    var array: [JSONTree] { (value as? [Any])?.map { JSONTree(value: $0) } ?? [] }
}
