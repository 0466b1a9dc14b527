import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// The SARIF report (`--format sarif`): its required properties, where each finding is placed,
/// fingerprints, and artifact URIs.
extension CIReportTests {
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
}
