#if canImport(Glibc)
    import Glibc
#endif
import Synchronization
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// Sources spread over several files: pass 1 per file, pass 2 a k-way merge by `t` (connlog.md,
/// "Sources, sessions, timelines"), driven through ``Auditor`` over in-memory files.
@Suite("Merge")
struct MergeTests {
    // MARK: - Helpers

    typealias LogFile = (path: String, text: String)

    /// Serves in-memory files by path; paths in `unreadable` cannot be opened.
    static func auditor(
        _ files: [LogFile], rules: RuleSet, jobs: Int, unreadable: Set<String> = [],
        readAheadFrom: Int = 16 << 20
    ) -> Auditor {
        Auditor(
            rules: rules, jobs: jobs, readAheadFrom: readAheadFrom,
            opener: RuleRuns.opener(files, unreadable: unreadable))
    }

    /// Audits `files`, given in this (argument) order.
    static func run(
        _ files: [LogFile], rules: RuleSet = MergeTests.rules, jobs: Int = 1,
        unreadable: Set<String> = []
    ) -> AuditReport {
        auditor(files, rules: rules, jobs: jobs, unreadable: unreadable).run(
            files.map { InputFile(path: $0.path) })
    }

    /// A probe that reports every `x.mark` with its ordinal in its source timeline (`$seq`), so a
    /// test can read the merged order back from the findings.
    static let probeYAML = """
        rules:
          - id: probe.order
            title: Every mark is reported with its place in the source timeline
            severity: info
            for: source
            every: { ev: x.mark }
            expect: "false"
            message: "seq={$seq} t={t}"
        """

    static let rules: RuleSet = {
        do {
            let probe = try RuleLoader.load(files: [("probe.yaml", probeYAML)])
            return RuleSet(rules: RuleLoader.builtin().rules + probe.rules)
        } catch {
            fatalError("the probe rule does not load: \(error)")
        }
    }()

    /// A violation as `path:line message`.
    struct Spot: Equatable, CustomStringConvertible {
        var path: String
        var line: Int
        var message: String
        var description: String { "\(path):\(line) \(message)" }
    }

    static func violations(_ report: AuditReport, _ id: String) -> [Spot] {
        guard let result = report.results.first(where: { $0.rule.id == id }) else {
            Issue.record("no rule \(id) in the report")
            return []
        }
        return result.violations.map { f in
            Spot(
                path: f.file.map { report.files[Int($0)].path } ?? "-", line: f.line ?? 0,
                message: f.message)
        }
    }

    /// The `x.mark` events of one source, as `path:line`, in the order the source timeline saw
    /// them.
    static func order(_ report: AuditReport, source: SourceKey) -> [String] {
        guard let result = report.results.first(where: { $0.rule.id == "probe.order" }) else {
            return []
        }
        let marks = result.violations.filter { $0.source == source }.map { f -> (Int, String) in
            let seq = Int(f.message.split(separator: " ")[0].dropFirst("seq=".count)) ?? -1
            return (seq, "\(report.files[Int(f.file!)].path):\(f.line!)")
        }
        return marks.sorted { $0.0 < $1.0 }.map(\.1)
    }

    static func mark(_ t: Int, src: String? = "dev", _ extra: String = "") -> String {
        let source = src.map { #","src":"\#($0)""# } ?? ""
        return #"{"t":\#(t)\#(source),"ev":"x.mark"\#(extra)}"#
    }

    static let dev = SourceKey(src: "dev")
}

// MARK: - Rotation

extension MergeTests {
    @Suite("Rotation")
    struct Rotation {
        static let a: MergeTests.LogFile = (
            "logs/a.jsonl",
            """
            {"t":1,"src":"dev","ev":"ws.connect","gen":1}

            {"t":10,"src":"dev","ev":"ws.close","gen":1,"reason":"user"}

            """
        )
        static let b: MergeTests.LogFile = (
            "logs/b.jsonl",
            """
            {"t":2,"src":"dev","ev":"ws.ping","gen":1}
            {"t":5,"src":"dev","ev":"ws.close","gen":1,"reason":"pong_timeout"}

            """
        )

        @Test(
            "a source split over two files is merged by t: the later close is the second one",
            arguments: [true, false])
        func singleCloseAcrossFiles(aFirst: Bool) {
            let files = aFirst ? [Self.a, Self.b] : [Self.b, Self.a]
            let report = MergeTests.run(files)
            let spots = MergeTests.violations(report, "ws.single-close")
            #expect(spots.count == 1)
            #expect(spots.first?.path == "logs/a.jsonl")
            #expect(spots.first?.line == 3)
            // The first close is file b's line 2 (t=5).
            #expect(spots.first?.message.contains("logs/b.jsonl:2") == true, "\(spots)")
            // Lines of different files are never compared for time regressions.
            #expect(MergeTests.violations(report, "log.time-monotonic").isEmpty)
            #expect(report.inputs.sources == 1)
            #expect(report.exitCode == 1)
        }

        @Test("the finding carries the source, the gen and the time of the later close")
        func findingFields() throws {
            let report = MergeTests.run([Self.a, Self.b])
            let finding = try #require(
                report.results.first { $0.rule.id == "ws.single-close" }?.violations.first)
            #expect(finding.source == MergeTests.dev)
            #expect(finding.gen == 1)
            #expect(finding.t == 10)
        }

        @Test("events interleave by t across the files of one source")
        func interleaving() {
            let a: MergeTests.LogFile = (
                "logs/a.jsonl", [1, 4, 6, 9].map { MergeTests.mark($0) }.joined(separator: "\n")
            )
            let b: MergeTests.LogFile = (
                "logs/b.jsonl", [2, 3, 7, 8, 10].map { MergeTests.mark($0) }.joined(separator: "\n")
            )
            let c: MergeTests.LogFile = (
                "logs/c.jsonl", [0, 5, 11].map { MergeTests.mark($0) }.joined(separator: "\n")
            )
            let report = MergeTests.run([b, c, a])
            #expect(
                MergeTests.order(report, source: MergeTests.dev) == [
                    "logs/c.jsonl:1", "logs/a.jsonl:1", "logs/b.jsonl:1", "logs/b.jsonl:2",
                    "logs/a.jsonl:2",
                    "logs/c.jsonl:2", "logs/a.jsonl:3", "logs/b.jsonl:3", "logs/b.jsonl:4",
                    "logs/a.jsonl:4",
                    "logs/b.jsonl:5", "logs/c.jsonl:3"
                ])
        }
    }
}

// MARK: - Ties

extension MergeTests {
    @Suite("Ties in t")
    struct Ties {
        static let files: [MergeTests.LogFile] = [
            ("logs/z.jsonl", [MergeTests.mark(5), MergeTests.mark(6)].joined(separator: "\n")),
            ("logs/a/x.jsonl", MergeTests.mark(5)),
            ("logs/a.jsonl", [MergeTests.mark(5), MergeTests.mark(5)].joined(separator: "\n")),
            ("logs/B.jsonl", "\n" + MergeTests.mark(5))
        ]

        /// Argument orders: a permutation of ``files``.
        @Test(
            "ties go by file path (byte order), then line, whatever the argument order",
            arguments: [
                [0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1], [1, 3, 0, 2]
            ])
        func pathThenLine(permutation: [Int]) {
            let report = MergeTests.run(permutation.map { Self.files[$0] })
            // "B" (0x42) sorts before "a"; "a.jsonl" before "a/x.jsonl" ('.' is 0x2E, '/' 0x2F).
            #expect(
                MergeTests.order(report, source: MergeTests.dev) == [
                    "logs/B.jsonl:2", "logs/a.jsonl:1", "logs/a.jsonl:2", "logs/a/x.jsonl:1",
                    "logs/z.jsonl:1",
                    "logs/z.jsonl:2"
                ])
        }

        @Test("file path order is that of the files, however their paths are spelt")
        func pathOrderIgnoresSpelling() throws {
            // Real (empty) files, so their paths resolve; the contents are served from memory.
            var template = Array("/tmp/conn-audit-ties-XXXXXX".utf8CString)
            let dir = try #require(
                template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map {
                    String(cString: $0)
                })
            defer {
                unlink(dir + "/a.jsonl")
                unlink(dir + "/b.jsonl")
                rmdir(dir)
            }
            for name in ["a.jsonl", "b.jsonl"] {
                close(open(dir + "/" + name, O_CREAT | O_WRONLY, 0o644))
            }
            // As given, "<dir>/./b.jsonl" sorts before "<dir>/a.jsonl" ('.' < 'a'); as files, a
            // comes first.
            let b = InputFile(path: dir + "/./b.jsonl"), a = InputFile(path: dir + "//a.jsonl")
            #expect(InputFile.pathOrder(a, b))
            #expect(!InputFile.pathOrder(b, a))
            let files: [MergeTests.LogFile] = [
                (b.path, MergeTests.mark(5)), (a.path, MergeTests.mark(5))
            ]
            for given in [files, files.reversed()] {
                let report = MergeTests.run(Array(given))
                #expect(
                    MergeTests.order(report, source: MergeTests.dev) == [
                        "\(a.path):1", "\(b.path):1"
                    ])
            }
        }

        @Test(
            "ws.single-close at equal t reports the close of the later path, not the later argument"
        )
        func singleCloseTie() {
            let z: MergeTests.LogFile = (
                "logs/z.jsonl", #"{"t":5,"src":"dev","ev":"ws.close","gen":1,"reason":"user"}"#
            )
            let a: MergeTests.LogFile = (
                "logs/a.jsonl",
                "\n" + #"{"t":5,"src":"dev","ev":"ws.close","gen":1,"reason":"user"}"#
            )
            let report = MergeTests.run([z, a])
            let spots = MergeTests.violations(report, "ws.single-close")
            #expect(spots.map(\.path) == ["logs/z.jsonl"])
            #expect(spots.first?.line == 1)
            #expect(spots.first?.message.contains("logs/a.jsonl:2") == true, "\(spots)")
        }
    }
}

// MARK: - Order within a file

extension MergeTests {
    @Suite("File order")
    struct FileOrder {
        static let a: MergeTests.LogFile = (
            "logs/a.jsonl", [10, 50, 20, 30].map { MergeTests.mark($0) }.joined(separator: "\n")
        )
        static let b: MergeTests.LogFile = (
            "logs/b.jsonl", [25, 40].map { MergeTests.mark($0) }.joined(separator: "\n")
        )

        @Test(
            "a file keeps its own order in the merge even where t drops; the drop is reported once")
        func dropInASpreadSource() {
            for files in [[Self.a, Self.b], [Self.b, Self.a]] {
                let report = MergeTests.run(files)
                #expect(
                    MergeTests.order(report, source: MergeTests.dev) == [
                        "logs/a.jsonl:1", "logs/b.jsonl:1", "logs/b.jsonl:2", "logs/a.jsonl:2",
                        "logs/a.jsonl:3",
                        "logs/a.jsonl:4"
                    ])
                let drops = MergeTests.violations(report, "log.time-monotonic")
                #expect(
                    drops == [
                        Spot(
                            path: "logs/a.jsonl", line: 3,
                            message: "t went back from 50 to 20 for this source")
                    ])
            }
        }

        @Test(
            "in a single file the drop is reported once, at its line, and the event is still used")
        func dropInOneFile() {
            let report = MergeTests.run([Self.a])
            #expect(
                MergeTests.order(report, source: MergeTests.dev) == [
                    "logs/a.jsonl:1", "logs/a.jsonl:2", "logs/a.jsonl:3", "logs/a.jsonl:4"
                ])
            #expect(MergeTests.violations(report, "log.time-monotonic").map(\.line) == [3])
        }

        @Test("a dropped close still counts for the generation")
        func droppedEventStillUsed() {
            let a: MergeTests.LogFile = (
                "logs/a.jsonl",
                """
                {"t":100,"src":"dev","ev":"ws.close","gen":1,"reason":"user"}
                {"t":50,"src":"dev","ev":"ws.close","gen":1,"reason":"user"}
                """
            )
            let b: MergeTests.LogFile = (
                "logs/b.jsonl", #"{"t":70,"src":"dev","ev":"ws.ping","gen":1}"#
            )
            let report = MergeTests.run([a, b])
            #expect(
                MergeTests.violations(report, "ws.single-close").map { "\($0.path):\($0.line)" }
                    == ["logs/a.jsonl:2"])
            #expect(
                MergeTests.violations(report, "log.time-monotonic").map { "\($0.path):\($0.line)" }
                    == ["logs/a.jsonl:2"])
        }
    }
}

// MARK: - Sources

extension MergeTests {
    @Suite("Sources")
    struct Sources {
        @Test("different sources in the same files are not mixed")
        func sourcesApart() {
            let a: MergeTests.LogFile = (
                "logs/a.jsonl",
                [
                    MergeTests.mark(1, src: "p"), MergeTests.mark(2, src: "q"),
                    MergeTests.mark(3, src: "p"),
                    #"{"t":4,"src":"p","ev":"ws.close","gen":1,"reason":"user"}"#
                ].joined(separator: "\n")
            )
            let b: MergeTests.LogFile = (
                "logs/b.jsonl",
                [
                    MergeTests.mark(0, src: "q"), MergeTests.mark(2, src: "p"),
                    MergeTests.mark(9, src: "q"),
                    #"{"t":10,"src":"q","ev":"ws.close","gen":1,"reason":"user"}"#
                ].joined(separator: "\n")
            )
            let report = MergeTests.run([a, b])
            #expect(
                MergeTests.order(report, source: SourceKey(src: "p")) == [
                    "logs/a.jsonl:1", "logs/b.jsonl:2", "logs/a.jsonl:3"
                ])
            #expect(
                MergeTests.order(report, source: SourceKey(src: "q")) == [
                    "logs/b.jsonl:1", "logs/a.jsonl:2", "logs/b.jsonl:3"
                ])
            // Each source has one close of generation 1.
            #expect(MergeTests.violations(report, "ws.single-close").isEmpty)
            // q's t=0 in b after p's t=1 in a is no regression, and neither is b's q t=0 after
            // nothing.
            #expect(MergeTests.violations(report, "log.time-monotonic").isEmpty)
            #expect(report.inputs.sources == 2)
        }

        @Test("sessions of one src are different sources, across files too")
        func sessionsApart() {
            let a: MergeTests.LogFile = (
                "logs/a.jsonl",
                #"{"t":5,"src":"dev","session":"1","ev":"ws.close","gen":1,"reason":"user"}"#
            )
            let b: MergeTests.LogFile = (
                "logs/b.jsonl",
                #"{"t":1,"src":"dev","session":"2","ev":"ws.close","gen":1,"reason":"user"}"#
            )
            let report = MergeTests.run([a, b])
            #expect(MergeTests.violations(report, "ws.single-close").isEmpty)
            #expect(report.inputs.sources == 2)
        }

        @Test("lines without src are a source per file")
        func noSourcePerFile() {
            let close = #"{"t":1,"ev":"ws.close","gen":1,"reason":"user"}"#
            let report = MergeTests.run([("logs/a.jsonl", close), ("logs/b.jsonl", close)])
            #expect(MergeTests.violations(report, "ws.single-close").isEmpty)
            #expect(report.inputs.sources == 2)
        }

        @Test("src null joins the file's own source; a src spelling another file's path does not")
        func nullSourceAndPathLikeSource() {
            let a: MergeTests.LogFile = (
                "logs/a.jsonl",
                """
                {"t":1,"ev":"ws.close","gen":1,"reason":"user"}
                {"t":2,"src":null,"ev":"ws.close","gen":1,"reason":"user"}
                """
            )
            let b: MergeTests.LogFile = (
                "logs/b.jsonl",
                #"{"t":3,"src":"logs/a.jsonl","ev":"ws.close","gen":1,"reason":"user"}"#
            )
            let report = MergeTests.run([a, b])
            #expect(
                MergeTests.violations(report, "ws.single-close").map { "\($0.path):\($0.line)" }
                    == ["logs/a.jsonl:2"])
            #expect(report.inputs.sources == 2)
        }
    }
}

// MARK: - Determinism

extension MergeTests {
    /// ~20 files, five named sources (one with two sessions) spread over them plus per-file lines
    /// without src, equal and dropping times, malformed lines, secrets and repeated closes.
    static func corpus() -> [LogFile] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        let names = ["s0", "s1", "s2", "s3", "s4"]
        let events = [
            "ws.connect", "ws.open", "ws.ping", "ws.pong", "ws.close", "ws.closed", "x.mark",
            "x.mark"
        ]
        var files: [LogFile] = []
        for i in 0..<20 {
            // Names that sort differently from their argument order.
            let path = "logs/\(["b", "A", "c", "a"][i % 4])/dev-\(19 - i).jsonl"
            var t = random(50)
            var lines: [String] = []
            for n in 0..<30 {
                t += random(4)
                if n % 11 == 10 { t = max(0, t - 7) }
                let roll = random(40)
                if roll == 0 { lines.append("not json \(i)-\(n)"); continue }
                if roll == 1 { lines.append(""); continue }
                var fields = ["\"t\":\(t)"]
                if roll != 2 {
                    let src = names[random(names.count)]
                    fields.append("\"src\":\"\(src)\"")
                    if src == "s0" { fields.append("\"session\":\"\(random(2) + 1)\"") }
                }
                let ev = events[random(events.count)]
                fields.append("\"ev\":\"\(ev)\"")
                fields.append("\"gen\":\(random(3) + 1)")
                if ev == "ws.close", random(3) > 0 { fields.append("\"reason\":\"user\"") }
                if roll == 3 { fields.append("\"token\":\"SECRET\(i)\"") }
                lines.append("{" + fields.joined(separator: ",") + "}")
            }
            files.append((path, lines.joined(separator: "\n") + "\n"))
        }
        return files
    }

    /// Everything a run found, as text: rule statuses and every finding with its context.
    static func fingerprint(_ report: AuditReport) -> [String] {
        var out: [String] = []
        for r in report.results {
            out.append("\(r.rule.id) \(r.status.rawValue)")
            for (kind, findings) in [("violation", r.violations), ("inconclusive", r.inconclusive)]
            {
                for f in findings {
                    let path = f.file.map { report.files[Int($0)].path } ?? "-"
                    var line =
                        "  \(kind) \(path):\(f.line.map(String.init) ?? "-") t=\(f.t.map { "\($0)" } ?? "-")"
                    line +=
                        " source=\(f.source?.description ?? "-") gen=\(f.gen.map(String.init) ?? "-") \(f.message)"
                    out.append(line)
                    for c in f.context {
                        out.append(
                            "    \(report.files[Int(c.file)].path):\(c.line) \(c.isAnchor) \(c.text)"
                        )
                    }
                }
            }
        }
        return out
    }

    @Suite("Determinism")
    struct Determinism {
        @Test(
            "jobs: 1 and jobs: N give the same violations, in the same order, and the same reports",
            arguments: [2, 3, 8])
        func sameResultsWithJobs(jobs: Int) throws {
            let files = MergeTests.corpus()
            let one = MergeTests.run(files, jobs: 1)
            let many = MergeTests.run(files, jobs: jobs)

            // The corpus exercises what it should.
            #expect(one.inputs.files == 20)
            // s0 in two sessions, s1…s4, and one source per file that has lines without src.
            let filesWithoutSrc = files.filter { file in
                file.text.split(separator: "\n").contains {
                    $0.hasPrefix("{") && !$0.contains("\"src\"")
                }
            }
            #expect(filesWithoutSrc.count > 1)
            #expect(one.inputs.sources == 6 + filesWithoutSrc.count)
            #expect(one.inputs.malformed > 0 && one.inputs.blank > 0)
            for id in [
                "ws.single-close", "log.time-monotonic", "log.malformed", "log.no-secrets",
                "probe.order"
            ] {
                #expect(
                    !MergeTests.violations(one, id).isEmpty,
                    "\(id) found nothing: the corpus is too tame")
            }

            #expect(MergeTests.fingerprint(one) == MergeTests.fingerprint(many))
            #expect(JSONReport.render(one) == JSONReport.render(many))
            #expect(TextReport(limit: 10_000).render(one) == TextReport(limit: 10_000).render(many))
            #expect(one.exitCode == many.exitCode)
            #expect(one.inputs.generations == many.inputs.generations)
        }

        @Test(
            "one file of many sources: its sources shared among workers give the jobs: 1 results",
            arguments: [2, 3, 4])
        func oneFileSharedAmongWorkers(jobs: Int) throws {
            // The whole corpus in one collector file: sources interleaved, fewer files than jobs.
            let text = MergeTests.corpus().map(\.text).joined(separator: "\n")
            let files: [MergeTests.LogFile] = [("collector.jsonl", text)]
            let one = MergeTests.run(files, jobs: 1)
            let many = MergeTests.run(files, jobs: jobs)
            #expect(one.inputs.sources > 4, "the file should hold many sources")
            #expect(!MergeTests.violations(one, "probe.order").isEmpty)
            #expect(!MergeTests.violations(one, "ws.single-close").isEmpty)
            #expect(MergeTests.fingerprint(one) == MergeTests.fingerprint(many))
            #expect(JSONReport.render(one) == JSONReport.render(many))
            #expect(one.inputs.generations == many.inputs.generations)
        }

        @Test(
            "reading a file ahead to end each source at its last line changes no result",
            arguments: [1, 2])
        func readAheadChangesNothing(jobs: Int) throws {
            let text = MergeTests.corpus().map(\.text).joined(separator: "\n")
            let files: [MergeTests.LogFile] = [("collector.jsonl", text)]
            let plain = MergeTests.auditor(
                files, rules: MergeTests.rules, jobs: jobs, readAheadFrom: .max
            )
            .run(files.map { InputFile(path: $0.path) })
            let ahead = MergeTests.auditor(
                files, rules: MergeTests.rules, jobs: jobs, readAheadFrom: 0
            )
            .run(files.map { InputFile(path: $0.path) })
            #expect(plain.inputs.sources > 4)
            #expect(MergeTests.fingerprint(plain) == MergeTests.fingerprint(ahead))
            #expect(JSONReport.render(plain) == JSONReport.render(ahead))
        }

        @Test(
            "a small file with thousands of sources is read again with a first pass, and nothing changes",
            arguments: [1, 2])
        func manySourcesRestartWithReadAhead(jobs: Int) throws {
            // More sources than a file read in one pass may keep open: the scan starts over with a
            // read-ahead (a second open), so each source is freed at its last line.
            var lines: [String] = []
            let n = Auditor.maxOpenSources + 500
            for i in 0..<n {
                lines.append(
                    #"{"t":\#(i),"src":"d\#(i % (n - 100))","ev":"ws.close","gen":1,"reason":"user"}"#
                )
            }
            let bytes = Array(lines.joined(separator: "\n").utf8)
            func audit(_ readAheadFrom: Int) -> (AuditReport, Int) {
                let opens = Mutex(0)
                let auditor = Auditor(
                    rules: MergeTests.rules, jobs: jobs, readAheadFrom: readAheadFrom,
                    rereadable: true
                ) { file throws(InputError) in
                    opens.withLock { $0 += 1 }
                    return ByteSources.memory(bytes, path: file.path)
                }
                let report = auditor.run([InputFile(path: "fleet.jsonl")])
                return (report, opens.withLock { $0 })
            }
            let (restarted, restartOpens) = audit(.max)
            let (ahead, aheadOpens) = audit(0)
            #expect(restartOpens == 3, "read, read-ahead, read again")
            #expect(aheadOpens == 2)
            #expect(restarted.inputs.sources == n - 100)
            // The last 100 lines repeat the first 100 sources: their second close is a violation.
            #expect(MergeTests.violations(restarted, "ws.single-close").count == 100)
            #expect(JSONReport.render(restarted) == JSONReport.render(ahead))
        }

        @Test("a gzip file is read ahead by the size its trailer gives, not its size on disk")
        func gzipIsReadAheadByItsDecompressedSize() throws {
            var template = Array("/tmp/conn-audit-gz-XXXXXX".utf8CString)
            let dir = try #require(
                template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map {
                    String(cString: $0)
                })
            let names = ["fleet.jsonl.gz", "padded.jsonl.gz", "small.jsonl"]
            defer {
                for name in names { unlink(dir + "/" + name) }
                rmdir(dir)
            }
            // 20,000 lines of 500 sources: about 1.2 MB, gzipped to a few tens of KB.
            let plain = Array(
                (0..<20_000).map {
                    #"{"t":\#($0),"src":"d\#($0 % 500)","ev":"ws.close","gen":1,"reason":"user"}"#
                        + "\n"
                }.joined().utf8)
            let gz = Gzip.compress(plain)
            func write(_ name: String, _ bytes: [UInt8]) {
                let fd = open(dir + "/" + name, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
                _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
            write(names[0], gz)
            write(names[1], gz + [UInt8](repeating: 0, count: 512))
            write(names[2], Array(plain.prefix(gz.count)))
            #expect(gz.count * 10 < plain.count)
            func size(_ name: String, _ onDisk: Int) -> Int {
                Auditor.contentSize(of: InputFile(path: dir + "/" + name), onDisk: onDisk)
            }
            #expect(size(names[0], gz.count) == plain.count)
            // Zeros after the last member (padding) say nothing: the size on disk is used.
            #expect(size(names[1], gz.count + 512) == gz.count + 512)
            #expect(size(names[2], gz.count) == gz.count)
            // Between the two sizes, only the gzip file is read ahead (a second open).
            func opens(_ name: String) -> Int {
                let count = Mutex(0)
                let auditor = Auditor(rules: MergeTests.rules, jobs: 1, readAheadFrom: gz.count * 4)
                { file throws(InputError) in
                    count.withLock { $0 += 1 }
                    return try ByteSources.open(file)
                }
                let report = auditor.run([InputFile(path: dir + "/" + name)])
                #expect(report.inputErrors.isEmpty)
                return count.withLock { $0 }
            }
            #expect(opens(names[0]) == 2)
            #expect(opens(names[2]) == 1)
        }

        @Test(
            "an input that cannot be read again (a pipe) is never restarted: every line is judged once",
            arguments: [1, 2])
        func manySourcesInAPipeAreReadOnce(jobs: Int) throws {
            var lines: [String] = []
            let n = Auditor.maxOpenSources + 500
            for i in 0..<n { lines.append(#"{"t":\#(i),"src":"d\#(i)","ev":"ws.close","gen":1}"#) }
            let bytes = Array(lines.joined(separator: "\n").utf8)
            let opens = Mutex(0)
            // The second open of a pipe finds nothing: a restart would judge nothing at all.
            let auditor = Auditor(rules: MergeTests.rules, jobs: jobs, rereadable: false) {
                file throws(InputError) in
                let first = opens.withLock {
                    $0 += 1; return $0 == 1
                }
                return ByteSources.memory(first ? bytes : [], path: file.path)
            }
            let report = auditor.run([InputFile(path: "/dev/fd/63")])
            #expect(opens.withLock { $0 } == 1)
            #expect(report.inputs.events == n)
            #expect(MergeTests.violations(report, "ws.close-has-reason").count == n)
        }

        @Test(
            "a file that grew after it was read ahead is named, not silently cut", arguments: [1, 2]
        )
        func fileChangedAfterReadAhead(jobs: Int) throws {
            // Two sources, the second interleaved after the first's lines; the read-ahead sees
            // only the first half, so source "a" seems to end early.
            var lines: [String] = []
            for i in 0..<20 {
                lines.append(#"{"t":\#(i * 10),"src":"a","ev":"x.mark","gen":1}"#)
                lines.append(#"{"t":\#(i * 10),"src":"b","ev":"x.mark","gen":1}"#)
            }
            let full = Array((lines.joined(separator: "\n") + "\n").utf8)
            let half = Array((lines.prefix(20).joined(separator: "\n") + "\n").utf8)
            let opens = Mutex(0)
            let auditor = Auditor(rules: MergeTests.rules, jobs: jobs, readAheadFrom: 0) {
                file throws(InputError) in
                // The first open is the read itself, the second the read-ahead.
                let n = opens.withLock {
                    $0 += 1; return $0
                }
                return ByteSources.memory(n == 1 ? full : half, path: file.path)
            }
            let report = auditor.run([InputFile(path: "live.jsonl")])
            #expect(
                report.inputErrors.contains {
                    $0.path == "live.jsonl" && $0.reason.contains("changed while it was read")
                },
                "\(report.inputErrors)")
            #expect(report.exitCode == 2)
        }

        @Test("the merged order does not depend on the argument order")
        func argumentOrder() {
            let files = MergeTests.corpus()
            let forward = MergeTests.run(files, jobs: 2)
            let backward = MergeTests.run(files.reversed(), jobs: 2)
            for name in ["s1", "s2", "s3", "s4"] {
                let key = SourceKey(src: name)
                #expect(
                    MergeTests.order(forward, source: key)
                        == MergeTests.order(backward, source: key), "\(name)")
            }
            for session in ["1", "2"] {
                let key = SourceKey(src: "s0", session: session)
                #expect(
                    MergeTests.order(forward, source: key)
                        == MergeTests.order(backward, source: key))
            }
        }
    }
}

// MARK: - Unreadable inputs

extension MergeTests {
    @Suite("Unreadable inputs")
    struct Unreadable {
        static let files: [MergeTests.LogFile] = [
            ("logs/a.jsonl", #"{"t":1,"src":"dev","ev":"ws.close","gen":1}"#),
            ("logs/b.jsonl", #"{"t":2,"src":"dev","ev":"ws.close","gen":2,"reason":"user"}"#),
            (
                "logs/c.jsonl",
                """
                {"t":3,"src":"dev","ev":"ws.close","gen":3}
                {"t":4,"ev":"ws.close","gen":1,"reason":"user"}
                {"t":5,"ev":"ws.close","gen":1,"reason":"user"}
                """
            )
        ]

        @Test(
            "an input that cannot be opened is reported, the others are checked, and the run exits 2",
            arguments: [1, 2])
        func unopenable(jobs: Int) {
            let report = MergeTests.run(Self.files, jobs: jobs, unreadable: ["logs/b.jsonl"])
            #expect(
                report.inputErrors == [
                    InputError(path: "logs/b.jsonl", reason: "permission denied")
                ])
            #expect(report.exitCode == 2)
            #expect(report.files.map(\.path) == ["logs/a.jsonl", "logs/b.jsonl", "logs/c.jsonl"])
            #expect(report.files[1].error?.reason == "permission denied")
            #expect(report.files[1].lines == 0)
            #expect(report.files[0].lines == 1 && report.files[2].lines == 3)
            // The source spread over a and c is still merged; c's own source is still judged.
            #expect(
                MergeTests.violations(report, "ws.close-has-reason").map { "\($0.path):\($0.line)" }
                    == ["logs/a.jsonl:1", "logs/c.jsonl:1"])
            #expect(
                MergeTests.violations(report, "ws.single-close").map { "\($0.path):\($0.line)" }
                    == ["logs/c.jsonl:3"])
            let json = JSONReport.render(report)
            #expect(json.contains(#""complete":false"#) || json.contains(#""complete": false"#))
            #expect(
                TextReport().render(report).contains(
                    "could not read logs/b.jsonl: permission denied"))
        }

        @Test("lines read before a read error are kept and checked; the run still exits 2")
        func readErrorMidStream() throws {
            let text = """
                {"t":1,"src":"dev","ev":"ws.close","gen":1,"reason":"user"}
                {"t":2,"src":"dev","ev":"ws.close","gen":1,"reason":"user"}

                """
            let whole = Gzip.compress(Array(text.utf8))
            let truncated = Array(whole.dropLast(8))  // the gzip trailer is missing
            let other = Array(#"{"t":0,"src":"dev","ev":"ws.connect","gen":1}"#.utf8)
            let auditor = Auditor(rules: MergeTests.rules, jobs: 1) { file throws(InputError) in
                ByteSources.memory(file.path.hasSuffix(".gz") ? truncated : other, path: file.path)
            }
            let report = auditor.run([
                InputFile(path: "logs/cut.jsonl.gz"), InputFile(path: "logs/ok.jsonl")
            ])
            #expect(report.exitCode == 2)
            #expect(report.inputErrors.map(\.path) == ["logs/cut.jsonl.gz"])
            #expect(
                report.inputErrors.first?.reason.contains("gzip") == true, "\(report.inputErrors)")
            #expect(report.files[0].lines == 2)
            #expect(
                MergeTests.violations(report, "ws.single-close").map { "\($0.path):\($0.line)" }
                    == ["logs/cut.jsonl.gz:2"])
        }

        @Test("a file that cannot be opened again for the merge is not silently left out")
        func unreadableInPassTwo() {
            final class Opens: Sendable {
                let counts = Mutex<[String: Int]>([:])
                func next(_ path: String) -> Int {
                    counts.withLock {
                        $0[path, default: 0] += 1; return $0[path]!
                    }
                }
            }
            let opens = Opens()
            let files: [MergeTests.LogFile] = [
                ("logs/a.jsonl", #"{"t":1,"src":"dev","ev":"ws.close","gen":1,"reason":"user"}"#),
                ("logs/b.jsonl", #"{"t":2,"src":"dev","ev":"ws.close","gen":1,"reason":"user"}"#)
            ]
            let served = Dictionary(
                uniqueKeysWithValues: files.map { ($0.path, Array($0.text.utf8)) })
            let auditor = Auditor(rules: MergeTests.rules, jobs: 1) { file throws(InputError) in
                // The second open (pass 2) of b fails, as a rotated-away or deleted file would.
                if file.path == "logs/b.jsonl", opens.next(file.path) > 1 {
                    throw InputError(path: file.path, reason: "no such file or directory")
                }
                return ByteSources.memory(served[file.path]!, path: file.path)
            }
            let report = auditor.run(files.map { InputFile(path: $0.path) })
            let found = MergeTests.violations(report, "ws.single-close").map {
                "\($0.path):\($0.line)"
            }
            #expect(
                report.exitCode == 2,
                "violations \(found), exit \(report.exitCode), errors \(report.inputErrors)")
            #expect(report.inputErrors.map(\.path) == ["logs/b.jsonl"])
        }
    }
}
