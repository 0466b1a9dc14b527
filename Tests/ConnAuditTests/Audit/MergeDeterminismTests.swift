#if canImport(Glibc)
    import Glibc
#endif
import Synchronization
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

extension MergeTests {
    /// The whole ``corpus()`` in one collector file: sources interleaved, fewer files than jobs.
    static func collector() -> [LogFile] {
        [("collector.jsonl", corpus().map(\.text).joined(separator: "\n"))]
    }

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
            let files = MergeTests.collector()
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
            let files = MergeTests.collector()
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
            "a file read ahead in parts, one thread each, gives the results of one read",
            arguments: [2, 3, 5])
        func readAheadInPartsChangesNothing(jobs: Int) throws {
            let files = MergeTests.collector()
            let whole = MergeTests.auditor(
                files, rules: MergeTests.rules, jobs: 1, readAheadFrom: 0
            )
            .run(files.map { InputFile(path: $0.path) })
            for part in [1, 97, files[0].text.utf8.count / jobs] {
                let inParts = MergeTests.auditor(
                    files, rules: MergeTests.rules, jobs: jobs, readAheadFrom: 0,
                    lightReadPart: part
                )
                .run(files.map { InputFile(path: $0.path) })
                #expect(whole.inputs.sources > 4)
                #expect(MergeTests.fingerprint(whole) == MergeTests.fingerprint(inParts))
                #expect(JSONReport.render(whole) == JSONReport.render(inParts), "parts of \(part)")
            }
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
                RuleRuns.auditCountingOpens(
                    MergeTests.rules, bytes, path: "fleet.jsonl", jobs: jobs,
                    readAheadFrom: readAheadFrom)
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
                let auditor = Auditor(
                    rules: MergeTests.rules, jobs: 1, readAheadFrom: gz.count * 4,
                    opener: { file throws(InputError) in
                        count.withLock { $0 += 1 }
                        return try ByteSources.open(file)
                    })
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
            let auditor = Auditor(
                rules: MergeTests.rules, jobs: jobs, rereadable: false,
                opener: {
                    file throws(InputError) in
                    let first = opens.withLock {
                        $0 += 1; return $0 == 1
                    }
                    return ByteSources.memory(first ? bytes : [], path: file.path)
                })
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
            let auditor = Auditor(
                rules: MergeTests.rules, jobs: jobs, readAheadFrom: 0,
                opener: {
                    file throws(InputError) in
                    // The first open is the read itself, the second the read-ahead.
                    let n = opens.withLock {
                        $0 += 1; return $0
                    }
                    return ByteSources.memory(n == 1 ? full : half, path: file.path)
                })
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
