import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// ``Auditor/keepFindings``: when the only reports are the text and GitHub ones, which show the
/// first findings of each rule and count the rest, a run keeps only those — and must print exactly
/// what a run that keeps every finding prints.
@Suite struct KeptFindingsTests {
    /// Logs that break many rules many times: several sources and interleaved generations whose
    /// pings go unanswered, late pongs, closes without a reason, lines that are not JSON, secrets,
    /// findings that wait for the events after their anchor (a deadline), and many findings at one
    /// line with one message (a line that is malformed and holds secrets).
    static func log(seed: UInt64, lines count: Int) -> String {
        var rng = SplitMix64(seed: seed)
        var t = 0
        var out: [String] = []
        for i in 0..<count {
            t += [0, 1, 10, 400, 3_000][rng.below(5)]
            let src = "d\(rng.below(3))"
            let gen = 1 + rng.below(4)
            switch rng.below(14) {
            case 0: out.append(#"{"t":\#(t),"src":"\#(src)","ev":"ws.connect","gen":\#(gen)}"#)
            case 1: out.append(#"{"t":\#(t),"src":"\#(src)","ev":"ws.open","gen":\#(gen)}"#)
            case 2..<6:
                out.append(
                    #"{"t":\#(t),"src":"\#(src)","ev":"ws.ping","gen":\#(gen),"id":\#(rng.below(5))}"#
                )
            case 6:
                out.append(
                    #"{"t":\#(t),"src":"\#(src)","ev":"ws.pong","gen":\#(gen),"id":\#(rng.below(5))}"#
                )
            case 7: out.append(#"{"t":\#(t),"src":"\#(src)","ev":"ws.close","gen":\#(gen)}"#)
            case 8:
                out.append(
                    #"{"t":\#(t),"src":"\#(src)","ev":"ws.close","gen":\#(gen),"reason":"pong_timeout"}"#
                )
            case 9: out.append("not json \(i % 3)")
            case 10:
                out.append(#"{"t":"x","ev":"ws.open","token":"a\#(i)","authorization":"b\#(i)"}"#)
            case 11:
                out.append(#"{"t":\#(t),"src":"\#(src)","ev":"sse.commit","id":\#(rng.below(9))}"#)
            case 12:
                out.append(
                    #"{"t":\#(max(0, t - 50)),"src":"\#(src)","ev":"ws.ping","gen":\#(gen),"id":9}"#
                )
            default:
                out.append(
                    #"{"t":\#(t),"src":"\#(src)","ev":"reconnect.scheduled","attempt":\#(rng.below(12)),"delay_ms":\#(rng.below(90_000))}"#
                )
            }
        }
        return out.joined(separator: "\n") + "\n"
    }

    static func run(_ files: [(String, String)], keep: Int?, jobs: Int) -> AuditReport {
        let auditor = Auditor(
            rules: RuleLoader.builtin(), jobs: jobs, keepFindings: keep,
            opener: RuleRuns.opener(files.map { (path: $0.0, text: $0.1) }))
        return auditor.run(files.map { InputFile(path: $0.0) })
    }

    /// Everything of a finding a report prints.
    static func shown(_ f: Finding) -> String {
        "\(f.file ?? -1):\(f.line ?? -1) t=\(f.t ?? -1) \(f.source?.description ?? "-") gen=\(f.gen ?? 0) \(f.ev ?? "-") "
            + "\(f.message) | "
            + f.context.map { "\($0.file):\($0.line)\($0.isAnchor ? "*" : "") \($0.text)" }.joined(
                separator: " | ")
    }

    @Test(
        "the text and GitHub reports of a run that keeps a few findings are those of one that keeps all",
        arguments: [(2, 1), (2, 2), (20, 1), (20, 2), (7, 2)])
    func sameReports(keep: Int, jobs: Int) throws {
        for seed in UInt64(1)...2 {
            let files = (0..<3).map {
                ("f\($0).jsonl", Self.log(seed: seed * 10 + UInt64($0), lines: 700))
            }
            let all = Self.run(files, keep: nil, jobs: jobs)
            let kept = Self.run(files, keep: keep, jobs: jobs)
            #expect(all.keptEveryFinding && !kept.keptEveryFinding)
            let text = TextReport(limit: keep)
            #expect(text.render(kept) == text.render(all), "seed \(seed)")
            #expect(
                GitHubReport.render(kept, maxPerLevel: keep)
                    == GitHubReport.render(all, maxPerLevel: keep), "seed \(seed)")
            var omitted = 0
            for (k, a) in zip(kept.results, all.results) {
                #expect(
                    k.status == a.status && k.violationCount == a.violations.count
                        && k.inconclusiveCount == a.inconclusive.count, "\(a.rule.id)")
                // What is kept is the first findings in report order, context lines and all.
                #expect(k.violations.map(Self.shown) == a.violations.prefix(keep).map(Self.shown))
                #expect(k.violations.count == min(keep, a.violations.count))
                omitted += k.omittedViolations
            }
            #expect(omitted > 100, "seed \(seed): the logs must make rules overflow")
        }
    }

    @Test("the findings kept are the first of many files, and of one long source, in report order")
    func firstOfManyFilesAndOneSource() throws {
        // 40 sources, each a close without a reason at line 1 of its own file (merged into the
        // run's findings one file at a time), and in one more file 300 closes without a reason
        // of one source (cut while that source is read).
        var files: [(String, String)] = []
        for i in 0..<40 {
            files.append(("f\(i).jsonl", #"{"t":1,"src":"s\#(i)","ev":"ws.close","gen":1}"# + "\n"))
        }
        files.append(
            (
                "one.jsonl",
                (0..<300).map { #"{"t":\#($0),"src":"one","ev":"ws.close","gen":\#($0 + 1)}"# }
                    .joined(separator: "\n")
            ))
        for jobs in [1, 2] {
            let all = Self.run(files, keep: nil, jobs: jobs)
            let kept = Self.run(files, keep: 3, jobs: jobs)
            #expect(TextReport(limit: 3).render(kept) == TextReport(limit: 3).render(all))
            let id = "ws.close-has-reason"
            let a = try #require(all.results.first { $0.rule.id == id })
            let k = try #require(kept.results.first { $0.rule.id == id })
            #expect(
                k.violations.map { "\($0.file!):\($0.line!):\($0.gen!)" }
                    == a.violations.prefix(3).map { "\($0.file!):\($0.line!):\($0.gen!)" })
            #expect(k.violationCount == a.violations.count)
        }
    }

    /// One file of many sources, interleaved, each breaking a rule a few times: a run of one
    /// input folds each source's findings into the file's as it finishes, and keeps what a run
    /// that keeps everything shows.
    @Test(arguments: [1, 2])
    func oneFileOfManySourcesKeepsTheFirstFindings(jobs: Int) throws {
        // Even sources close each generation without a reason; odd ones see it opened and closed
        // at once (an immediate_close outcome).
        var lines: [String] = []
        for round in 0..<3 {
            for s in 0..<300 {
                let t = round * 1_000 + s, gen = round + 1
                lines.append(#"{"t":\#(t),"src":"s\#(s)","ev":"ws.connect","gen":\#(gen)}"#)
                if s % 2 == 0 {
                    lines.append(#"{"t":\#(t + 1),"src":"s\#(s)","ev":"ws.close","gen":\#(gen)}"#)
                } else {
                    lines.append(#"{"t":\#(t + 1),"src":"s\#(s)","ev":"ws.open","gen":\#(gen)}"#)
                    lines.append(#"{"t":\#(t + 2),"src":"s\#(s)","ev":"ws.closed","gen":\#(gen)}"#)
                }
            }
        }
        let files = [("one.jsonl", lines.joined(separator: "\n") + "\n")]
        let all = Self.run(files, keep: nil, jobs: jobs)
        let kept = Self.run(files, keep: 3, jobs: jobs)
        #expect(TextReport(limit: 3).render(kept) == TextReport(limit: 3).render(all))
        #expect(
            GitHubReport.render(kept, maxPerLevel: 3) == GitHubReport.render(all, maxPerLevel: 3))
        // Corpus coverage findings are made at the end, all kept.
        for (k, a) in zip(kept.results, all.results) where a.labels == nil {
            #expect(
                k.violations.map(Self.shown) == a.violations.prefix(3).map(Self.shown),
                "\(a.rule.id)")
            #expect(k.violationCount == a.violations.count && k.status == a.status, "\(a.rule.id)")
        }
        #expect(all.results.first { $0.rule.id == "ws.close-has-reason" }?.violations.count == 450)
        // Each of the 450 opened generations counted once, folded or not.
        let outcomes = try #require(all.outcomes).map { "\($0.name) \($0.count)" }
        #expect(try #require(kept.outcomes).map { "\($0.name) \($0.count)" } == outcomes)
        #expect(
            outcomes == ["normal 0", "delayed 0", "immediate_close 450", "connect_failure 0"],
            "\(outcomes)")
    }

    @Test("a sink that keeps a few findings holds a bounded number, whatever it is given")
    func sinkStaysBounded() {
        let sink = FindingSink(files: ["a"], keep: 5)
        let context = TimelineContext(source: nil, enabled: false)
        var rng = SplitMix64(seed: 9)
        var lines: [Int] = []
        var most = 0
        for _ in 0..<20_000 {
            let line = 1 + rng.below(1_000_000)
            lines.append(line)
            sink.violations[0, default: []].append(Finding(file: 0, line: line, message: "m"))
            if sink.overflows(violation: true, rule: 0) {
                context.trim(sink, violation: true, rule: 0)
            }
            most = max(most, sink.violations[0]!.count)
        }
        #expect(most <= 11)
        _ = sink.trim(violation: true, rule: 0)
        #expect(
            sink.violations[0]!.sorted(by: Finding.precedes).map { $0.line! }
                == Array(lines.sorted().prefix(5)))
        #expect(sink.omittedViolations[0]! + sink.violations[0]!.count == 20_000)
    }

    /// Each generation closed without a reason: its finding waits for events after its anchor
    /// that never come (the generation has ended) until the source ends. Cut all the same, and
    /// the kept ones still get their context lines.
    @Test func findingsWaitingForContextLinesAreCutToo() throws {
        let sink = FindingSink(files: ["a"], keep: 5)
        let context = TimelineContext(source: SourceKey(src: "s"), enabled: true)
        var most = 0
        for g in 0..<20_000 {
            // Each finding comes before the others in report order: every cut keeps the newest.
            sink.violations[0, default: []].append(Finding(file: 0, line: 20_000 - g, message: "m"))
            context.awaitAfter(
                violation: true, rule: 0, index: sink.violations[0]!.count - 1,
                scope: ContextScope(context: context, stream: "ws", gen: UInt64(g)))
            if sink.overflows(violation: true, rule: 0) {
                context.trim(sink, violation: true, rule: 0)
            }
            most = max(most, sink.violations[0]!.count)
        }
        #expect(most <= 11)
        // The newest finding (line 1, generation 19,999) is kept and still waits for its
        // neighbours.
        for (seq, gen) in [(1, UInt64(0)), (2, UInt64(19_999))] {
            let e = Event(t: 1, ev: "ws.pong", gen: gen, file: 0, line: 30_000 + seq)
            e.seq = seq
            context.record(e, sink: sink)
        }
        let kept = try #require(sink.violations[0]?.first { $0.line == 1 })
        #expect(kept.context.map(\.line) == [30_002])
        #expect(sink.violations[0]!.allSatisfy { $0.line == 1 || $0.context.isEmpty })
    }

    @Test(
        "the command line keeps every finding for the reports that list them all and for baselines")
    func commandLineKeepsWhatItsReportsNeed() throws {
        // A run that kept only the first findings would leave the rest out of a JSON, SARIF or
        // JUnit report or a baseline (they refuse such a run: a precondition); every violation
        // is listed in each.
        try withScratchDirectory("kept") { dir in
            func read(_ path: String) throws -> String {
                try String(contentsOfFile: path, encoding: .utf8)
            }
            func count(_ text: String, _ part: String) -> Int {
                text.components(separatedBy: part).count - 1
            }
            var text = ""
            for i in 0..<500 { text += "junk \(i)\n" }
            let log = dir + "/junk.jsonl"
            try Data(text.utf8).write(to: URL(fileURLWithPath: log))
            let json = dir + "/r.json", sarif = dir + "/r.sarif", junit = dir + "/r.xml",
                base = dir + "/b.json"
            let run = CommandLineRun([
                log, "--format", "github", "--report", "json=" + json, "--report", "sarif=" + sarif,
                "--report", "junit=" + junit
            ])
            #expect(run.code == 1)
            #expect(count(try read(json), "not a valid connlog event") == 500)
            #expect(count(try read(junit), "junk.jsonl:") >= 500)
            #expect(count(try read(sarif), "\"startLine\"") == 500)
            let write = CommandLineRun([log, "--quiet", "--write-exact-baseline", base])
            #expect(write.code == 1)
            let applied = CommandLineRun([log, "--exact-baseline", base])
            // Every violation is accepted; a log of no event still judged nothing: no verdict.
            #expect(applied.code == 2, "\(applied.out.suffix(400))")
            #expect(
                applied.out.contains("accepted by the baseline")
                    || applied.out.contains("baselined"))
            #expect(applied.err.contains("nothing was judged"))
            let plain = CommandLineRun([log])
            #expect(
                plain.code == 1 && plain.out.contains("500 violations")
                    && plain.out.contains("… and 480 more"))
            let github = CommandLineRun([log, "--format", "github"])
            #expect(
                github.out.contains("490 more findings were not annotated"),
                "\(github.out.suffix(600))"
            )
        }
    }
}
