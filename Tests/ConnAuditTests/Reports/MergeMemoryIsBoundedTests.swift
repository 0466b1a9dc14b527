import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A merge keeps only the first findings of each rule and reads the rest again from the partials
/// for the reports that list them all (``PartialFindingStream``): what it holds does not grow
/// with the findings, and every report is the one a merge holding every finding writes, byte for
/// byte, also when the partials are merged in levels through temporary files.
@Suite("A merge's memory does not follow its findings")
struct MergeMemoryIsBoundedTests {
    static let rules = RuleLoader.builtin().rules
    static let keep = max(TextReport.defaultLimit, GitHubReport.defaultMaxPerLevel)

    /// `count` partials of one run, each owning one file and holding `findings` violations of one
    /// rule in it, a few inconclusive cases of another, and violations that point at no file
    /// (equal in every partial: their order is the partials').
    static func partials(_ count: Int, findings: Int) -> [(path: String, bytes: [UInt8])] {
        let ids = rules.indices.filter {
            if case .classify = rules[$0].check { return false }
            return true
        }
        let (violating, undecided) = (ids[0], ids[1])
        let header = PartialReport.Header(
            shard: Shard(index: 1, count: count),
            rules: PartialReport.rulesHash(rules, overrides: [:]),
            suppressions: PartialReport.suppressionsHash(Suppressions([])),
            files: "0123456789abcdef", fileCount: count, ruleCount: rules.count, inputs: "logs")
        return (1...count).map { k in
            var lines: [String] = []
            var h = header
            h.shard = Shard(index: k, count: count)
            lines.append(
                #"{"partial":{"version":\#(PartialReport.version),"tool":"\#(ConnAuditVersion.string)","shard":\#(k),"shards":\#(count),"rules":"\#(h.rules)","suppressions":"\#(h.suppressions)","files":"\#(h.files)","file_count":\#(count),"rule_count":\#(rules.count),"inputs":"logs"}}"#
            )
            lines.append(
                #"{"file":{"index":\#(k - 1),"path":"logs/\#(k).jsonl","lines":\#(findings),"events":\#(findings),"malformed":0,"blank":0,"bytes":\#(100 * findings),"compressed":false}}"#
            )
            lines.append(#"{"sources":{"sources":1,"generations":1}}"#)
            var list: [Finding] = []
            for i in 1...findings {
                // Two findings on some lines, to be ordered by message.
                list.append(Finding(file: Int32(k - 1), line: i, message: "late \(i % 7)"))
                if i % 5 == 0 {
                    list.append(Finding(file: Int32(k - 1), line: i, message: "early"))
                }
            }
            list.append(Finding(message: "no place"))
            for f in PartialReport.inReportOrder(list) {
                lines.append(
                    PartialReport.findingLine("violation", rule: violating, f, fieldMatches: [])
                        .dropLast().description)
            }
            for i in 1...(k % 3 + 1) {
                let f = Finding(file: Int32(k - 1), line: i, message: "undecided")
                lines.append(
                    PartialReport.findingLine("inconclusive", rule: undecided, f, fieldMatches: [])
                        .dropLast().description)
            }
            lines.append(#"{"end":{"records":\#(lines.count)}}"#)
            return (
                path: "parts/\(k).jsonl", bytes: Array((lines.joined(separator: "\n") + "\n").utf8)
            )
        }
    }

    /// The merged report of `files`: every finding held (`streamed` false), or the first ones
    /// of each rule and the rest read again through a stream that merges `fanIn` at once.
    static func merge(
        _ files: [(path: String, bytes: [UInt8])], streamed: Bool, fanIn: Int = 64
    ) throws -> (report: AuditReport, held: Int, stream: PartialFindingStream?) {
        try PartialMergeRun.assemble(
            files, rules: rules, suppressions: Suppressions([]), keep: streamed ? Self.keep : nil,
            fanIn: fanIn)
    }

    static func reports(_ report: AuditReport) -> [String: String] {
        [
            "json": JSONReport.render(report), "sarif": SARIFReport.render(report),
            "junit": JUnitReport.render(report), "gitlab": GitLabReport.render(report),
            "concise": ConciseReport.render(report), "text": TextReport().render(report),
            "github": GitHubReport.render(report)
        ]
    }

    @Test("What a merge holds stays under a bound however many findings the partials hold")
    func heldFindingsAreBounded() throws {
        var held: [Int] = []
        for (count, findings) in [(4, 50), (40, 2_500)] {
            let merged = try Self.merge(Self.partials(count, findings: findings), streamed: true)
            // Every finding is listed, in report order.
            let concise = ConciseReport.render(merged.report).split(separator: "\n")
            let total = count * (findings + findings / 5 + 1)
            #expect(
                concise.count { $0.contains(": late ") || $0.contains(": early") }
                    + concise.count { $0.contains(": no place") } == total)
            held.append(merged.held + (merged.stream?.peakHeld ?? 0))
            // Two rules with findings, each kept up to twice `keep` before it is cut; one
            // finding per partial in the readers.
            #expect(merged.held <= 2 * 2 * Self.keep)
            #expect((merged.stream?.peakHeld ?? 0) <= count)
        }
        // About 120,000 findings, not a thousandth of them held.
        #expect(held[1] <= 2 * 2 * Self.keep + 40)
    }

    @Test(
        "Every report of a streamed merge is the one of a merge that holds every finding",
        arguments: [64, 8, 3])
    func streamedReportsEqualHeldOnes(fanIn: Int) throws {
        let files = Self.partials(20, findings: 200)
        let held = Self.reports(try Self.merge(files, streamed: false).report)
        let merged = try Self.merge(files, streamed: true, fanIn: fanIn)
        let streamed = Self.reports(merged.report)
        for (format, text) in held {
            #expect(
                streamed[format] == text,
                "\(format) differs with fan-in \(fanIn): \(merged.stream?.failure ?? "")")
        }
        // Rendered twice: the stream starts over for the second report.
        #expect(JSONReport.render(merged.report) == held["json"])
        #expect(merged.stream?.failure == nil, "\(merged.stream?.failure ?? "")")
    }

    @Test("A partial whose findings are out of report order is refused")
    func outOfOrderIsRefused() throws {
        var files = Self.partials(2, findings: 20)
        var lines = String(decoding: files[0].bytes, as: UTF8.self).split(separator: "\n")
        let at = lines.firstIndex { $0.contains(#""violation""#) }!
        lines.swapAt(at, at + 1)
        files[0].bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        let error = #expect(throws: PartialMerge.Failure.self) {
            _ = try Self.merge(files, streamed: true)
        }
        #expect(error?.message.contains("out of report order") == true)
    }

    @Test("A partial of format version 2, whose findings come in no set order, is refused")
    func versionTwoIsRefused() throws {
        var files = Self.partials(2, findings: 5)
        let text = String(decoding: files[1].bytes, as: UTF8.self)
        files[1].bytes = Array(
            text.replacingOccurrences(
                of: #""version":\#(PartialReport.version),"#, with: #""version":2,"#
            ).utf8)
        let error = #expect(throws: PartialMerge.Failure.self) {
            _ = try Self.merge(files, streamed: true)
        }
        #expect(
            error?.message.contains(
                "parts/2.jsonl is of partial format version 2; this conn-audit (\(ConnAuditVersion.string)) reads version 3"
            ) == true, "\(error?.message ?? "")")
    }
}
