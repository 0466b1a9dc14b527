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
        readAheadFrom: Int = 16 << 20, lightReadPart: Int = 4 << 20
    ) -> Auditor {
        Auditor(
            rules: rules, jobs: jobs, readAheadFrom: readAheadFrom, lightReadPart: lightReadPart,
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
