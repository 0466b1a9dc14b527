import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A merge with suppressions and an exact baseline sorts each violation as it reads it again
/// (``AuditReport/sortReadAgain(_:keep:)``): what it holds does not grow with the findings, and
/// every report, and the baseline it writes, is the one a merge holding every finding makes with
/// the whole-list ``Suppressions/apply(to:today:)`` and ``Baseline/apply(to:path:today:)`` —
/// through ties in report order, occurrences of one identity split between the lists, expired
/// entries and partials merged in levels.
@Suite("A merge sorts suppressed and baselined violations as it reads them")
struct MergeSortsKnownViolationsAsItReadsTests {
    static let rules = RuleLoader.builtin().rules
    static let keep = CommandLineTool.shownFindings
    static let today = "2026-06-01"
    /// Rules with findings: one with many violations, one with inconclusive cases, one with
    /// fewer violations than a merge keeps (held whole, sorted by the whole-list functions).
    static let ids = rules.indices.filter {
        if case .classify = rules[$0].check { return false }
        return true
    }
    static let (many, undecided, few) = (ids[0], ids[1], ids[2])

    static let suppressions = Suppressions([
        Suppression(
            rule: rules[many].id, fields: [(name: "code", pattern: "4*")], reason: "fields",
            expires: "2999-12-31", origin: "c.yaml:2"),
        Suppression(
            rule: "*", message: "late 3", reason: "a message", expires: "2999-12-31",
            origin: "c.yaml:6"),
        Suppression(
            rule: "*", message: "*", reason: "expired", expires: "2001-01-01", origin: "c.yaml:9"),
        Suppression(
            rule: rules[many].id, file: "logs/2.jsonl", reason: "a file", expires: "2999-12-31",
            origin: "c.yaml:12"),
        Suppression(
            rule: "none.*", reason: "matches nothing", expires: "2999-12-31", origin: "c.yaml:15")
    ])

    /// A violation of `rule` in partial `k`'s file: its identity (source, generation, `t`) is
    /// shared by ten lines, so fingerprints count occurrences; `fields` the entries whose
    /// `fields:` held.
    static func violation(k: Int, line i: Int, message: String, fields: [Int]) -> Finding {
        var f = Finding(
            file: Int32(k - 1), line: i, t: Double(i / 10), source: SourceKey(src: "dev-\(k)"),
            gen: UInt64(i / 10), message: message, ev: "ws.close")
        f.fieldMatches = fields
        return f
    }

    /// `count` partials of one run with suppressions, each owning one file.
    static func partials(_ count: Int, findings: Int) -> [(path: String, bytes: [UInt8])] {
        let header = PartialReport.Header(
            shard: Shard(index: 1, count: count),
            rules: PartialReport.rulesHash(rules, overrides: [:]),
            suppressions: PartialReport.suppressionsHash(suppressions),
            files: "0123456789abcdef", fileCount: count, ruleCount: rules.count, inputs: "logs")
        return (1...count).map { k in
            var lines: [String] = [
                #"{"partial":{"version":\#(PartialReport.version),"tool":"\#(ConnAuditVersion.string)","shard":\#(k),"shards":\#(count),"rules":"\#(header.rules)","suppressions":"\#(header.suppressions)","files":"\#(header.files)","file_count":\#(count),"rule_count":\#(rules.count),"inputs":"logs"}}"#,
                #"{"file":{"index":\#(k - 1),"path":"logs/\#(k).jsonl","lines":\#(findings),"events":\#(findings),"malformed":0,"blank":0,"bytes":\#(100 * findings),"compressed":false}}"#,
                #"{"sources":{"sources":1,"generations":1}}"#
            ]
            func add(_ kind: String, _ rule: Int, _ list: [Finding]) {
                for f in PartialReport.inReportOrder(list) {
                    lines.append(
                        PartialReport.findingLine(
                            kind, rule: rule, f, fieldMatches: f.fieldMatches ?? []
                        ).dropLast().description)
                }
            }
            var list: [Finding] = []
            for i in 1...findings {
                list.append(
                    violation(
                        k: k, line: i, message: "late \(i % 7)", fields: i % 4 == 0 ? [0] : []))
                if i % 5 == 0 {
                    list.append(violation(k: k, line: i, message: "early", fields: []))
                }
                // A tie in report order (one line and message), of one identity, that only
                // one of the two suppressions' fields: take.
                if i % 11 == 0 {
                    list.append(
                        violation(
                            k: k, line: i, message: "late \(i % 7)", fields: i % 2 == 0 ? [0] : []))
                }
            }
            list.append(Finding(message: "no place"))
            add("violation", many, list)
            add(
                "inconclusive", undecided,
                (1...(k % 3 + 1)).map {
                    Finding(file: Int32(k - 1), line: $0, message: "undecided")
                })
            add(
                "violation", few,
                [
                    violation(k: k, line: 1, message: "late 3", fields: []),
                    violation(k: k, line: 2, message: "kept", fields: [])
                ].prefix(k == 1 ? 2 : 0).map { $0 })
            lines.append(#"{"end":{"records":\#(lines.count)}}"#)
            return (
                path: "parts/\(k).jsonl", bytes: Array((lines.joined(separator: "\n") + "\n").utf8)
            )
        }
    }

    /// A baseline of `report`'s violations (every finding held): every third entry, some of them
    /// expired, and one that matches nothing.
    static func baseline(of report: AuditReport) -> Baseline {
        var entries = Baseline.from(report).entries.enumerated().filter { $0.offset % 3 == 0 }.map {
            var e = $0.element
            if $0.offset % 9 == 0 { e.expires = "2002-02-02" }
            if $0.offset % 6 == 0 { e.reason = "reviewed" }
            return e
        }
        entries.append(Baseline.Entry(rule: rules[many].id, fingerprint: "0000000000000000"))
        return Baseline(entries: entries)
    }

    /// The merged report of `files`, with `baseline` and the suppressions applied, as `merge`
    /// applies them: every finding held (`streamed` false), or the first ones and the rest read
    /// again, sorted as they are read, merging `fanIn` at once. With the text of the baseline it
    /// writes (before the baseline is applied), and what it held.
    static func merge(
        _ files: [(path: String, bytes: [UInt8])], baseline: Baseline?, streamed: Bool,
        fanIn: Int = 64
    ) throws -> (report: AuditReport, written: String?, held: Int, stream: PartialFindingStream?) {
        var (report, held, stream) = try PartialMergeRun.assemble(
            files, rules: rules, suppressions: suppressions, keep: streamed ? Self.keep : nil,
            fanIn: fanIn)
        var used = Set<Int>()
        if streamed {
            used = report.sortReadAgain(
                Acceptance(
                    suppressions: suppressions, baseline: baseline, paths: report.filePaths,
                    today: today), keep: Self.keep)
            held = max(
                held,
                report.results.reduce(0) {
                    $0 + $1.violations.count + $1.baselined.count + $1.suppressed.count
                        + $1.inconclusive.count
                })
        }
        report.suppressions = suppressions.apply(to: &report, today: today)
        let written = Baseline.text(of: report, reviewed: baseline, limit: .max).text
        if let baseline {
            report.baseline = baseline.apply(
                to: &report, path: "base.json", today: today, alsoUsed: used)
        }
        return (report, written, held, stream)
    }

    @Test(
        "Every report and the baseline written are those of a merge that holds every finding",
        arguments: [64, 3])
    func sortedReportsEqualHeldOnes(fanIn: Int) throws {
        let files = Self.partials(12, findings: 150)
        let plain = try Self.merge(files, baseline: nil, streamed: false).report
        let baseline = Self.baseline(of: plain)
        for applied in [nil, baseline] {
            let held = try Self.merge(files, baseline: applied, streamed: false)
            let sorted = try Self.merge(files, baseline: applied, streamed: true, fanIn: fanIn)
            let expected = MergeMemoryIsBoundedTests.reports(held.report)
            let got = MergeMemoryIsBoundedTests.reports(sorted.report)
            for (format, text) in expected {
                #expect(
                    got[format] == text,
                    "\(format) differs (baseline: \(applied != nil), fan-in \(fanIn)): \(sorted.stream?.failure ?? "")"
                )
            }
            #expect(sorted.written == held.written)
            #expect(sorted.stream?.failure == nil, "\(sorted.stream?.failure ?? "")")
            // Something of each kind was sorted: else the comparison checks little.
            let r = held.report.results.first { $0.rule.id == Self.rules[Self.many].id }!
            #expect(r.violations.count > Self.keep && r.suppressedByEntry.count == 3)
            if applied != nil {
                #expect(r.baselined.count > Self.keep)
                #expect(held.report.baseline?.expired.isEmpty == false)
                #expect(held.report.baseline?.unused.count == 1)
            }
            // Rendered twice: each lane starts over.
            #expect(SARIFReport.render(sorted.report) == expected["sarif"])
        }
    }

    @Test("What a sorting merge holds stays under a bound however many findings there are")
    func heldFindingsAreBounded() throws {
        var held: [Int] = []
        for (count, findings) in [(4, 50), (24, 2_000)] {
            let files = Self.partials(count, findings: findings)
            let plain = try Self.merge(files, baseline: nil, streamed: true)
            let baseline = Baseline(
                entries: Array(Baseline.from(plain.report).entries.prefix(200)))
            let merged = try Self.merge(files, baseline: baseline, streamed: true)
            // Every violation is listed once: kept, baselined or suppressed.
            let json = JSONReport.render(merged.report)
            let total = count * (findings + findings / 5 + findings / 11 + 1) + 2
            #expect(json.components(separatedBy: #""message""#).count - 1 >= total)
            held.append(merged.held + (merged.stream?.peakHeld ?? 0))
            // Three rules with findings, kept up to twice `keep`; one finding per reader.
            #expect(merged.held <= 3 * 2 * Self.keep)
            #expect((merged.stream?.peakHeld ?? 0) <= count)
            #expect(merged.report.baseline?.accepted == baseline.entries.count)
        }
        // About 60,000 findings, a few dozen held.
        #expect(held[1] <= 3 * 2 * Self.keep + 24)
    }
}
