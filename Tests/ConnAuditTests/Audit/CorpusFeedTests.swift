import Synchronization
import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// The corpus timeline fed while files are read (``CorpusFeed``), and what a finding keeps
/// (``Finding``, ``MessageTable``): a file of lines that are not JSON must not cost a kept event
/// and a full-size finding per line to the end of the run.
@Suite struct CorpusFeedTests {
    /// Corpus probes that report every reader finding and every `x.mark` with its place in the
    /// corpus timeline (`$seq`), so a test can read the order it was fed in back from the findings.
    static let probeYAML = """
        rules:
          - id: probe.malformed
            title: Every malformed line, with its place
            severity: info
            for: corpus
            every: { ev: $malformed }
            expect: "false"
            message: "seq={$seq} malformed {file}:{line} {reason}"
          - id: probe.secret
            title: Every secret, with its place
            severity: info
            for: corpus
            every: { ev: $secret }
            expect: "false"
            message: "seq={$seq} secret {file}:{line}"
          - id: probe.mark
            title: Every mark, with its place
            severity: info
            for: corpus
            every: { ev: x.mark }
            expect: "false"
            message: "seq={$seq} mark {$line}"
        """

    static func rules() throws -> [Rule] {
        try RuleLoader.builtin().rules + RuleLoader.load(files: [("probe.yaml", probeYAML)]).rules
    }

    /// One corpus item as the probes name it: its file, line and kind.
    struct Item: Equatable, CustomStringConvertible {
        var file: String
        var line: Int
        var kind: String
        var description: String { "\(file):\(line) \(kind)" }
    }

    /// A log of marks, other events, lines that are not JSON, lines with a secret, and a line that
    /// is both malformed and holds a secret; and the corpus items it gives, in line order (a
    /// line's secrets before the line itself).
    static func log(_ path: String, seed: UInt64, lines count: Int, sources: Int = 3) -> (
        text: String, items: [Item]
    ) {
        var rng = SplitMix64(seed: seed)
        var lines: [String] = []
        var items: [Item] = []
        for i in 1...count {
            let src = "s\(rng.below(sources))"
            switch rng.below(10) {
            case 0..<4:
                lines.append(#"{"t":\#(i),"src":"\#(src)","ev":"x.mark"}"#)
                items.append(Item(file: path, line: i, kind: "mark"))
            case 4..<6:
                lines.append(#"{"t":\#(i),"src":"\#(src)","ev":"x.other"}"#)
            case 6:
                lines.append("junk \(rng.below(3)) at \(i)")
                items.append(Item(file: path, line: i, kind: "malformed"))
            case 7:
                lines.append(#"{"t":\#(i),"src":"\#(src)","ev":"x.mark","token":"x\#(i)"}"#)
                items.append(Item(file: path, line: i, kind: "secret"))
                items.append(Item(file: path, line: i, kind: "mark"))
            case 8:
                lines.append(#"{"t":"late","ev":"x.mark","token":"y\#(i)"}"#)
                items.append(Item(file: path, line: i, kind: "secret"))
                items.append(Item(file: path, line: i, kind: "malformed"))
            default:
                lines.append("")
            }
        }
        return (lines.joined(separator: "\n") + "\n", items)
    }

    /// The probes' findings, in the order the corpus timeline was fed (by `$seq`), which must
    /// run 1, 2, 3, ... without a gap or a repeat.
    static func fedOrder(_ report: AuditReport, sourceLocation: SourceLocation = #_sourceLocation)
        -> [Item]
    {
        var bySeq: [(Int, Item)] = []
        for id in ["probe.malformed", "probe.secret", "probe.mark"] {
            guard let result = report.results.first(where: { $0.rule.id == id }) else {
                Issue.record("no \(id) in the report", sourceLocation: sourceLocation)
                return []
            }
            for f in result.violations {
                let words = f.message.split(separator: " ")
                guard let seq = Int(words[0].dropFirst("seq=".count)) else {
                    Issue.record("no seq in \(f.message)", sourceLocation: sourceLocation)
                    continue
                }
                let path = f.file.map { report.files[Int($0)].path } ?? "-"
                bySeq.append((seq, Item(file: path, line: f.line ?? 0, kind: String(words[1]))))
            }
        }
        bySeq.sort { $0.0 < $1.0 }
        #expect(
            bySeq.map(\.0) == Array(1..<(bySeq.count + 1)),
            "the corpus timeline's $seq runs without gaps",
            sourceLocation: sourceLocation)
        return bySeq.map(\.1)
    }

    @Test(
        "the corpus timeline is fed in file order, then line order, however many workers read",
        arguments: [1, 2])
    func fedInFileAndLineOrder(jobs: Int) throws {
        let rules = try Self.rules()
        // A large first file, so that with two workers the later ones are read (and held) while
        // it is still being read.
        let sizes = [6_000, 40, 700, 5, 1_200]
        let files = sizes.enumerated().map { i, n in
            (path: "f\(i).jsonl", log: Self.log("f\(i).jsonl", seed: UInt64(i + 1), lines: n))
        }
        let report = MergeTests.auditor(
            files.map { ($0.path, $0.log.text) }, rules: RuleSet(rules: rules), jobs: jobs
        )
        .run(files.map { InputFile(path: $0.path) })
        let expected = files.flatMap(\.log.items)
        #expect(expected.count > 1_000)
        let fed = Self.fedOrder(report)
        #expect(fed == expected)
        // And the built-in reader rules saw the same lines.
        let malformed = report.results.first { $0.rule.id == "log.malformed" }!.violations
        #expect(
            malformed.map { "\(report.files[Int($0.file!)].path):\($0.line!)" }
                == expected.filter { $0.kind == "malformed" }.map { "\($0.file):\($0.line)" })
        #expect(report.inputs.malformed == malformed.count)

        // One file read by two workers (its sources shared out), and then in one: the same report.
        let one = MergeTests.auditor(
            [("one.jsonl", files[0].log.text)], rules: RuleSet(rules: rules), jobs: jobs
        )
        .run([InputFile(path: "one.jsonl")])
        let alone = MergeTests.auditor(
            [("one.jsonl", files[0].log.text)], rules: RuleSet(rules: rules), jobs: 1
        )
        .run([InputFile(path: "one.jsonl")])
        #expect(
            Self.fedOrder(one).map(\.description)
                == files[0].log.items.map { "one.jsonl:\($0.line) \($0.kind)" })
        #expect(JSONReport.render(one) == JSONReport.render(alone))
    }

    @Test(
        "a file read again from its start (too many sources) feeds each corpus item once",
        arguments: [1, 2])
    func restartFeedsEachItemOnce(jobs: Int) throws {
        let rules = try Self.rules()
        // More sources than a file read in one pass keeps open: the scan starts over with a read
        // ahead after Auditor.maxOpenSources sources, having fed the items before that point.
        let n = Auditor.maxOpenSources + 300
        var lines: [String] = []
        var expected: [Item] = []
        for i in 0..<n {
            let line = lines.count + 1
            if i % 97 == 0 {
                lines.append("not json \(i)")
                expected.append(Item(file: "fleet.jsonl", line: line, kind: "malformed"))
            } else if i % 89 == 0 {
                lines.append(#"{"t":\#(i),"src":"d\#(i)","ev":"x.mark","token":"t\#(i)"}"#)
                expected.append(Item(file: "fleet.jsonl", line: line, kind: "secret"))
                expected.append(Item(file: "fleet.jsonl", line: line, kind: "mark"))
            } else {
                lines.append(#"{"t":\#(i),"src":"d\#(i)","ev":"x.mark"}"#)
                expected.append(Item(file: "fleet.jsonl", line: line, kind: "mark"))
            }
        }
        let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        func audit(readAheadFrom: Int) -> (AuditReport, Int) {
            RuleRuns.auditCountingOpens(
                RuleSet(rules: rules), bytes, path: "fleet.jsonl", jobs: jobs,
                readAheadFrom: readAheadFrom)
        }
        let (restarted, opens) = audit(readAheadFrom: .max)
        let (ahead, _) = audit(readAheadFrom: 0)
        #expect(opens == 3, "read, read ahead, read again")
        #expect(Self.fedOrder(restarted) == expected)
        #expect(JSONReport.render(restarted) == JSONReport.render(ahead))
    }

    @Test(
        "a reader finding no corpus rule reacts to still takes its place ($seq)", arguments: [1, 2])
    func unreadReaderFindingsTakeTheirPlace(jobs: Int) throws {
        // Only $malformed is read (log.no-secrets and the secret probe are left out): a secret
        // still counts, as rules.md has the corpus timeline hold every reader finding.
        let rules = try Self.rules().filter { !["log.no-secrets", "probe.secret"].contains($0.id) }
        let (text, items) = Self.log("s.jsonl", seed: 7, lines: 400)
        let report = MergeTests.auditor(
            [("s.jsonl", text)], rules: RuleSet(rules: rules), jobs: jobs
        )
        .run([InputFile(path: "s.jsonl")])
        let probe = try #require(report.results.first { $0.rule.id == "probe.malformed" })
        // The place of each malformed line among everything the timeline holds.
        var expected: [String] = []
        for (i, item) in items.enumerated() where item.kind == "malformed" {
            expected.append("seq=\(i + 1) s.jsonl:\(item.line)")
        }
        #expect(items.contains { $0.kind == "secret" })
        #expect(
            probe.violations.map {
                $0.message.split(separator: " ").prefix(3).filter { $0 != "malformed" }.joined(
                    separator: " ")
            }
                == expected)
    }

    @Test(
        "a file that changes before it is read again gives the corpus the second reading's lines",
        arguments: [1, 2])
    func changedBeforeTheSecondReading(jobs: Int) throws {
        let rules = try Self.rules()
        // More sources than one pass keeps open, so the file is read again from its start; the
        // second time it is served, one line that is not JSON is added at its top.
        let n = Auditor.maxOpenSources + 300
        var lines: [String] = []
        for i in 0..<n {
            lines.append(
                i % 97 == 5 ? "not json \(i)" : #"{"t":\#(i),"src":"d\#(i)","ev":"x.mark"}"#)
        }
        let first = Array((lines.joined(separator: "\n") + "\n").utf8)
        let second = Array(("junk on top\n" + lines.joined(separator: "\n") + "\n").utf8)
        for unreadable in [false, true] {
            let opens = Mutex(0)
            let auditor = Auditor(
                rules: RuleSet(rules: rules), jobs: jobs, readAheadFrom: .max, rereadable: true,
                opener: { file throws(InputError) in
                    let k = opens.withLock {
                        $0 += 1; return $0
                    }
                    if k == 1 { return ByteSources.memory(first, path: file.path) }
                    if unreadable { throw InputError(path: file.path, reason: "gone") }
                    return ByteSources.memory(second, path: file.path)
                })
            let report = auditor.run([InputFile(path: "fleet.jsonl")])
            let malformed = try #require(report.results.first { $0.rule.id == "log.malformed" })
            // Every line reported is a line the report counts: the reading it gives the counts of.
            #expect(
                malformed.violations.count == report.inputs.malformed, "unreadable: \(unreadable)")
            if unreadable {
                #expect(report.inputs.malformed == 0 && !report.inputErrors.isEmpty)
            } else {
                #expect(malformed.violations.first?.line == 1)
                #expect(
                    malformed.violations.count == 1
                        + lines.filter { $0.hasPrefix("not json") }.count)
            }
        }
    }

    /// A corpus feed over `files` with the built-in rules and the probes, on one thread.
    static func feed(files: [String]) throws -> CorpusFeed {
        let plan = EvaluationPlan(rules: try rules(), overrides: [:], files: files)
        return CorpusFeed(plan: plan, files: files)
    }

    @Test(
        "a file read beside an unfinished earlier one is held, then fed after it, its lines as they were"
    )
    func heldFileIsFedAfterTheEarlierOne() throws {
        let feed = try Self.feed(files: ["a.jsonl", "b.jsonl"])
        let ids = EvNames.snapshot()
        func malformed(_ file: Int32, _ line: Int, _ reason: String) -> Event {
            FileReader.malformed(
                file: file, shownPath: file == 0 ? "a.jsonl" : "b.jsonl", line: line,
                reason: reason,
                evID: ids["$malformed"] ?? -1)
        }
        let b = feed.share(file: 1)
        b.add(malformed(1, 2, "not a JSON object"))
        b.add(malformed(1, 3, "text after the JSON value (byte 5)"))
        b.add(Event(t: 4, ev: "x.mark", file: 1, line: 4))
        b.add(malformed(1, 7, "not a JSON object"))
        feed.finish(file: 1)
        let a = feed.share(file: 0)
        a.add(malformed(0, 9, "not valid UTF-8 (byte 3)"))
        a.add(Event(t: 1, ev: "x.mark", file: 0, line: 10))
        feed.finish(file: 0)
        let sink = feed.close()
        let rules = try Self.rules()
        func messages(_ id: String) -> [String] {
            (sink.violations[rules.firstIndex { $0.id == id }!] ?? []).map(\.message)
        }
        #expect(
            messages("probe.malformed") == [
                "seq=1 malformed a.jsonl:9 not valid UTF-8 (byte 3)",
                "seq=3 malformed b.jsonl:2 not a JSON object",
                "seq=4 malformed b.jsonl:3 text after the JSON value (byte 5)",
                "seq=6 malformed b.jsonl:7 not a JSON object"
            ])
        #expect(messages("probe.mark") == ["seq=2 mark 10", "seq=5 mark 4"])
        #expect(
            messages("log.malformed") == [
                "not a valid connlog event: not valid UTF-8 (byte 3)",
                "not a valid connlog event: not a JSON object",
                "not a valid connlog event: text after the JSON value (byte 5)",
                "not a valid connlog event: not a JSON object"
            ])
        let files = (sink.violations[rules.firstIndex { $0.id == "log.malformed" }!] ?? []).map {
            "\($0.file!):\($0.line!)"
        }
        #expect(files == ["0:9", "1:2", "1:3", "1:7"])
    }

    @Test("an item of the file being read is judged as it comes and not kept")
    func liveItemsAreNotKept() throws {
        // The history cross-check keeps every event: off here, where what is kept is the point.
        try HistoryCrossCheck.$isOn.withValue(false) { try liveItemsAreNotKeptUnchecked() }
    }

    private func liveItemsAreNotKeptUnchecked() throws {
        let feed = try Self.feed(files: ["a.jsonl"])
        let share = feed.share(file: 0)
        weak var gone: Event?
        do {
            let e = FileReader.malformed(
                file: 0, shownPath: "a.jsonl", line: 1, reason: "not a JSON object",
                evID: EvNames.snapshot()["$malformed"] ?? -1)
            gone = e
            share.add(e)
        }
        #expect(gone == nil, "the $malformed event outlived its judgement")
        feed.finish(file: 0)
        let sink = feed.close()
        // log.malformed and the probe
        #expect(sink.violations.values.map(\.count).reduce(0, +) == 2)
    }

    @Test("a finding keeps what it is given, in 56 bytes and its message")
    func findingRoundTrips() {
        #expect(MemoryLayout<Finding>.stride <= 56)
        var f = Finding(message: "m")
        #expect(
            f.file == nil && f.line == nil && f.t == nil && f.source == nil && f.gen == nil
                && f.context.isEmpty
                && f.ev == nil && f.subject == nil)
        f = Finding(
            file: 0, line: 0, t: -0.5, source: SourceKey(src: "a"), gen: .max, message: "m",
            context: [ContextLine(file: 2, line: 3, text: "x", isAnchor: true)], ev: "ws.open")
        #expect(
            f.file == 0 && f.line == 0 && f.t == -0.5 && f.source == SourceKey(src: "a")
                && f.gen == .max
                && f.ev == "ws.open")
        let copy = f
        f.context.append(ContextLine(file: 2, line: 4, text: "y", isAnchor: false))
        f.subject = "normal"
        #expect(
            f.context.map(\.line) == [3, 4] && copy.context.map(\.line) == [3],
            "a copy keeps its own context")
        #expect(f.subject == "normal" && copy.subject == nil)
        f.t = nil
        f.source = nil
        f.gen = nil
        f.file = nil
        f.line = nil
        #expect(
            f.t == nil && f.source == nil && f.gen == nil && f.file == nil && f.line == nil
                && f.subject == "normal")
        f.line = Int.max
        f.file = Int32.max
        #expect(f.line == Int.max && f.file == Int32.max)
    }

    @Test(
        "findings with the same message share its text; a canonically equal one keeps its own bytes"
    )
    func messagesAreShared() {
        var table = MessageTable()
        func words(_ s: String) -> (UInt64, UInt64) { unsafeBitCast(s, to: (UInt64, UInt64).self) }
        let first = table.shared("not a valid connlog event: " + String(repeating: "x", count: 3))
        let again = table.shared("not a valid connlog event: " + String(repeating: "x", count: 3))
        #expect(
            first == again && words(first) == words(again),
            "the second message is the first one's text")
        let composed = table.shared("a message about caf\u{e9} and more")
        let decomposed = table.shared("a message about cafe\u{301} and more")
        #expect(composed == decomposed)  // canonically equivalent ...
        #expect(
            Array(decomposed.utf8) == Array("a message about cafe\u{301} and more".utf8),
            "... but not the same bytes")
        #expect(Array(composed.utf8) == Array("a message about caf\u{e9} and more".utf8))
    }

    @Test("a rule's messages are shared end to end: the report is the same")
    func sharedMessagesInAReport() throws {
        // 300 malformed lines with three reasons, and messages that all differ (a mark's line).
        var text = ""
        for i in 0..<300 { text += (i % 3 == 0 ? "junk" : i % 3 == 1 ? "[1]" : "{\"t\":1}") + "\n" }
        let report = MergeTests.auditor(
            [("j.jsonl", text)], rules: RuleSet(rules: try Self.rules()), jobs: 1
        )
        .run([InputFile(path: "j.jsonl")])
        let v = report.results.first { $0.rule.id == "log.malformed" }!.violations
        #expect(v.count == 300)
        #expect(Set(v.map(\.message)).count == 3)
        #expect(v.enumerated().allSatisfy { $0.element.line == $0.offset + 1 })
    }
}
