#if canImport(Glibc)
    import Glibc
#endif
import Synchronization
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

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
            let auditor = Auditor(
                rules: MergeTests.rules, jobs: 1,
                opener: { file throws(InputError) in
                    ByteSources.memory(
                        file.path.hasSuffix(".gz") ? truncated : other, path: file.path)
                })
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
            let auditor = Auditor(
                rules: MergeTests.rules, jobs: 1,
                opener: { file throws(InputError) in
                    // The second open (pass 2) of b fails, as a rotated-away or deleted file would.
                    if file.path == "logs/b.jsonl", opens.next(file.path) > 1 {
                        throw InputError(path: file.path, reason: "no such file or directory")
                    }
                    return ByteSources.memory(served[file.path]!, path: file.path)
                })
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
