import Foundation
import Synchronization
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// `conn-audit timeline`: the postmortem view built from in-memory logs with the default pack.
@Suite("TimelineView")
struct TimelineViewTests {
    // MARK: - Helpers

    typealias LogFile = (path: String, text: String)

    static let rules = RuleLoader.builtin()

    /// Builds the view of `files` (in this argument order) served from memory.
    static func build(
        _ files: [LogFile], _ query: TimelineQuery = TimelineQuery(), jobs: Int = 1
    ) throws -> TimelineDocument {
        try buildWithReport(files, query, jobs: jobs).0
    }

    static func buildWithReport(
        _ files: [LogFile], _ query: TimelineQuery = TimelineQuery(), jobs: Int = 1
    ) throws -> (TimelineDocument, AuditReport) {
        try TimelineBuilder.build(
            inputs: files.map { InputFile(path: $0.path) }, rules: rules, query: query, jobs: jobs,
            opener: RuleRuns.opener(files)
        )
    }

    /// The message of the UsageError `body` throws.
    static func usageError(_ body: () throws -> Void) -> String? {
        do {
            try body()
        } catch let e as UsageError {
            return e.message
        } catch {
            Issue.record("unexpected error \(error)")
        }
        return nil
    }

    /// Every entry as `file:line`, section after section.
    static func places(_ doc: TimelineDocument) -> [String] {
        doc.sections.flatMap { $0.entries.map { "\($0.file):\($0.line)" } }
    }

    static func parse(_ json: String) throws -> [String: Any]? {
        try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
    }

    static func entry(_ doc: TimelineDocument, _ file: String, _ line: Int) -> TimelineDocument
        .Entry?
    {
        doc.sections.lazy.flatMap(\.entries).first { $0.file == file && $0.line == line }
    }

    /// A second close in gen 1 (ws.single-close, line 5) and a ping of gen 2 whose deadline
    /// passes unanswered (ws.timeout-closes, line 8).
    static let violations: LogFile = (
        "v.jsonl",
        """
        {"t":0,"src":"v","ev":"ws.connect","gen":1,"interval_ms":100,"timeout_ms":1000}
        {"t":0,"src":"v","ev":"ws.open","gen":1}
        {"t":100,"src":"v","ev":"ws.ping","gen":1}
        {"t":500,"src":"v","ev":"ws.close","gen":1,"reason":"user"}
        {"t":510,"src":"v","ev":"ws.close","gen":1,"reason":"user"}
        {"t":590,"src":"v","ev":"ws.connect","gen":2,"interval_ms":100,"timeout_ms":1000}
        {"t":600,"src":"v","ev":"ws.open","gen":2}
        {"t":700,"src":"v","ev":"ws.ping","gen":2}
        {"t":3000,"src":"v","ev":"app.scene","phase":"background"}

        """
    )

    /// A second close in gen 1, and a ping of gen 2 the log ends before its deadline
    /// (ws.timeout-closes inconclusive, line 6).
    static let inconclusive: LogFile = (
        "i.jsonl",
        """
        {"t":0,"src":"i","ev":"ws.connect","gen":1}
        {"t":10,"src":"i","ev":"ws.close","gen":1,"reason":"user"}
        {"t":11,"src":"i","ev":"ws.close","gen":1,"reason":"user"}
        {"t":20,"src":"i","ev":"ws.connect","gen":2,"interval_ms":100,"timeout_ms":1000}
        {"t":20,"src":"i","ev":"ws.open","gen":2}
        {"t":120,"src":"i","ev":"ws.ping","gen":2}
        {"t":1200,"src":"i","ev":"ws.message","gen":2}

        """
    )

    /// Two devices, two sessions of one, ws and app events.
    static let fleet: LogFile = (
        "logs/fleet.jsonl",
        """
        {"t":0,"src":"a","session":"s1","ev":"app.scene","phase":"active"}
        {"t":0,"src":"a","session":"s1","ev":"ws.connect","gen":1}
        {"t":5,"src":"a","session":"s1","ev":"ws.open","gen":1}
        {"t":10,"src":"b","ev":"ws.connect","gen":1}
        {"t":20,"src":"a","session":"s1","ev":"ws.close","gen":1,"reason":"user"}
        {"t":30,"src":"a","session":"s1","ev":"ws.connect","gen":2}
        {"t":35,"src":"a","session":"s1","ev":"ws.open","gen":2}
        {"t":0,"src":"a","session":"s2","ev":"ws.connect","gen":1}
        {"t":40,"src":"b","ev":"ws.close","gen":1,"reason":"user"}

        """
    )

    // MARK: - Selection

    @Test(
        "--src selects one device, all its sessions; each generation is a section, the events without gen another"
    )
    func selectBySrc() throws {
        let doc = try Self.build([Self.fleet], TimelineQuery(src: "a"))
        #expect(doc.sections.allSatisfy { $0.source.src == "a" })
        let shape = doc.sections.map {
            "\($0.source.session ?? "-") \($0.gen.map(String.init) ?? "nogen") \($0.entries.count)"
        }
        #expect(shape == ["s1 nogen 1", "s1 1 3", "s1 2 2", "s2 1 1"])
        #expect(Array(Self.places(doc).prefix(4)) == [1, 2, 3, 5].map { "logs/fleet.jsonl:\($0)" })
    }

    @Test(
        "--session, --stream and --gen narrow the selection",
        arguments: [
            (TimelineQuery(src: "a", session: "s2"), ["logs/fleet.jsonl:8"]),
            (TimelineQuery(src: "a", session: "s1", stream: "app"), ["logs/fleet.jsonl:1"]),
            (
                TimelineQuery(src: "a", session: "s1", stream: "ws", gen: 2),
                ["logs/fleet.jsonl:6", "logs/fleet.jsonl:7"]
            ),
            (TimelineQuery(gen: 1), []),
            (TimelineQuery(src: "b"), ["logs/fleet.jsonl:4", "logs/fleet.jsonl:9"])
        ])
    func narrow(query: TimelineQuery, expected: [String]) throws {
        let doc = try Self.build([Self.fleet], query)
        if expected.isEmpty {
            // gen 1 of every source: a s1, b, a s2, in order of first appearance.
            #expect(
                doc.sections.map { "\($0.source.src) \($0.source.session ?? "-")" } == [
                    "a s1", "b -", "a s2"
                ])
            #expect(doc.sections.allSatisfy { $0.gen == 1 && $0.stream == "ws" })
        } else {
            #expect(Self.places(doc) == expected)
        }
    }

    @Test("a source without src is named by its file path")
    func fileSource() throws {
        let f: LogFile = (
            "logs/plain.jsonl",
            """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":3,"ev":"ws.open","gen":1}

            """
        )
        let doc = try Self.build([Self.fleet, f], TimelineQuery(src: "logs/plain.jsonl"))
        #expect(doc.sections.count == 1)
        #expect(doc.sections[0].source.srcIsFile)
        #expect(
            TimelineReport.text(doc, color: false).hasPrefix(
                "logs/plain.jsonl (no src) · ws gen 1 · 2 events"))
    }

    @Test("nothing matching lists the sources with their event counts")
    func noMatchListsSources() {
        let message = Self.usageError {
            _ = try Self.build([Self.fleet], TimelineQuery(src: "zzz"))
        }
        #expect(message?.contains("no events match --src zzz") == true, "\(message ?? "")")
        #expect(message?.contains("a session s1  (6 events)") == true, "\(message ?? "")")
        #expect(message?.contains("b  (2 events)") == true, "\(message ?? "")")
        #expect(message?.contains("a session s2  (1 event)") == true, "\(message ?? "")")
    }

    @Test("a source that matches without the generation asked for lists its generations")
    func noMatchListsGenerations() {
        let query = TimelineQuery(src: "a", session: "s1", gen: 7)
        let message = Self.usageError { _ = try Self.build([Self.fleet], query) }
        #expect(message?.contains("--src a --session s1 --gen 7") == true, "\(message ?? "")")
        let listed =
            "a session s1: app without gen (1 event), ws gen 1 (3 events), ws gen 2 (2 events)"
        #expect(message?.contains(listed) == true, "\(message ?? "")")
    }

    @Test("more than 20 sources: 20 are listed")
    func noMatchLimit() {
        let text = (0..<25).map { #"{"t":0,"src":"d\#($0)","ev":"ws.connect","gen":1}"# }.joined(
            separator: "\n")
        let message =
            Self.usageError { _ = try Self.build([("many.jsonl", text)], TimelineQuery(src: "x")) }
            ?? ""
        #expect(message.contains("d19  (1 event)"))
        #expect(!message.contains("d20  (1 event)"))
        #expect(message.contains("… and 5 more"))
    }

    // MARK: - Around

    /// One generation of 12 events (lines 1–12), another source's lines in between.
    static let long: LogFile = (
        "logs/long.jsonl",
        {
            var lines = [
                #"{"t":0,"src":"a","ev":"ws.connect","gen":1,"interval_ms":100,"timeout_ms":1000}"#
            ]
            for i in 1...11 {
                lines.append(#"{"t":\#(i * 10),"src":"a","ev":"ws.message","gen":1}"#)
                if i == 5 { lines.append(#"{"t":51,"src":"other","ev":"ws.connect","gen":1}"#) }
            }
            lines.insert(#"{"t":1,"src":"a","ev":"app.scene","phase":"active"}"#, at: 1)
            lines.append("not json")
            lines.append("")
            return lines.joined(separator: "\n") + "\n"
        }()
    )

    @Test("--around centres on the event in its generation, radius events either side")
    func aroundCentred() throws {
        // Line 2 is app.scene, line 8 the other source; gen 1 is lines 1, 3–7, 9–14; 15 is
        // malformed, 16 blank.
        let doc = try Self.build(
            [Self.long], TimelineQuery(around: ("logs/long.jsonl", 9), radius: 2))
        #expect(doc.sections.count == 1)
        let section = doc.sections[0]
        #expect(section.gen == 1 && section.source.src == "a")
        #expect(section.total == 12)
        #expect(section.entries.map(\.line) == [6, 7, 9, 10, 11])
        #expect(section.entries.map(\.isFocus) == [false, false, true, false, false])
        #expect(doc.focus?.file == "logs/long.jsonl" && doc.focus?.line == 9 && doc.radius == 2)
        let text = TimelineReport.text(doc, color: false)
        #expect(text.contains(">>    logs/long.jsonl:9"), "\(text)")
        // The window starts mid-generation: its first line still says the phase.
        let first = text.split(separator: "\n").first { $0.contains("logs/long.jsonl:6 ") }
        #expect(first?.contains("connecting  ws.message") == true, "\(text)")
        #expect(text.contains("5 of 12 events"), "\(text)")
    }

    @Test("--around near the start keeps what there is; the default radius is 15")
    func aroundEdges() throws {
        let doc = try Self.build(
            [Self.long], TimelineQuery(around: ("logs/long.jsonl", 1), radius: 3))
        #expect(doc.sections[0].entries.map(\.line) == [1, 3, 4, 5])
        let wide = try Self.build([Self.long], TimelineQuery(around: ("logs/long.jsonl", 1)))
        #expect(wide.sections[0].entries.count == 12)
    }

    @Test("--around an event without gen shows its source's timeline around it")
    func aroundWithoutGen() throws {
        let doc = try Self.build([Self.long], TimelineQuery(around: ("long.jsonl", 2), radius: 1))
        #expect(
            Self.places(doc).sorted() == [
                "logs/long.jsonl:1", "logs/long.jsonl:2", "logs/long.jsonl:3"
            ])
        #expect(doc.sections.map { $0.gen } == [1, nil])
    }

    @Test(
        "--around a line that is no event says why",
        arguments: [
            (15, "no event at logs/long.jsonl:15 (line 15 is malformed: not valid JSON"),
            (16, "no event at logs/long.jsonl:16 (line 16 is blank)"),
            (99, "no event at logs/long.jsonl:99 (the file has 16 lines)")
        ])
    func aroundNoEvent(line: Int, expected: String) {
        let query = TimelineQuery(around: ("logs/long.jsonl", line))
        let message = Self.usageError { _ = try Self.build([Self.long], query) }
        #expect(message?.hasPrefix(expected) == true, "\(message ?? "")")
    }

    @Test("--around a file that is not an input, or against --gen")
    func aroundBadFile() {
        let message = Self.usageError {
            _ = try Self.build([Self.long], TimelineQuery(around: ("logs/nope.jsonl", 3)))
        }
        #expect(
            message?.contains("logs/nope.jsonl is not one of the inputs: logs/long.jsonl") == true,
            "\(message ?? "")")
        let query = TimelineQuery(gen: 2, around: ("logs/long.jsonl", 3))
        let conflict = Self.usageError { _ = try Self.build([Self.long], query) }
        #expect(conflict?.contains("has gen 1, not --gen 2") == true, "\(conflict ?? "")")
    }

    @Test("FILE:LINE parsing splits at the last colon")
    func parseAround() throws {
        let a = try TimelineQuery.parseAround("c:/logs/a.jsonl:12")
        #expect(a.file == "c:/logs/a.jsonl" && a.line == 12)
        #expect(throws: UsageError.self) { try TimelineQuery.parseAround("logs/a.jsonl") }
        #expect(throws: UsageError.self) { try TimelineQuery.parseAround("logs/a.jsonl:0") }
    }

    // MARK: - Merged order

    @Test(
        "two rotated files merge by t, ties by path, each file in its own order", arguments: [1, 2])
    func mergedOrder(jobs: Int) throws {
        let one: LogFile = (
            "logs/dev.1.jsonl",
            """
            {"t":0,"src":"d","ev":"ws.connect","gen":1}
            {"t":20,"src":"d","ev":"ws.ping","gen":1}
            {"t":40,"src":"d","ev":"ws.message","gen":1}
            {"t":30,"src":"d","ev":"ws.message","gen":1,"n":"regressed"}

            """
        )
        let two: LogFile = (
            "logs/dev.0.jsonl",
            """
            {"t":10,"src":"d","ev":"ws.open","gen":1}
            {"t":20,"src":"d","ev":"ws.pong","gen":1}
            {"t":35,"src":"d","ev":"ws.message","gen":1}

            """
        )
        let doc = try Self.build([one, two], TimelineQuery(src: "d"), jobs: jobs)
        #expect(
            Self.places(doc) == [
                "logs/dev.1.jsonl:1", "logs/dev.0.jsonl:1",
                "logs/dev.0.jsonl:2", "logs/dev.1.jsonl:2",  // t=20: dev.0 sorts first
                // the file keeps its order
                "logs/dev.0.jsonl:3", "logs/dev.1.jsonl:3", "logs/dev.1.jsonl:4"
            ])
        // The time regression is marked on the real event of its line.
        let regressed = try #require(Self.entry(doc, "logs/dev.1.jsonl", 4))
        #expect(regressed.findings.map(\.rule) == ["log.time-monotonic"])
    }

    // MARK: - Times and phases

    static let heartbeat: LogFile = (
        "hb.jsonl",
        """
        {"t":100,"src":"p","ev":"ws.connect","gen":1,"interval_ms":100,"timeout_ms":1000}
        {"t":150,"src":"p","ev":"ws.open","gen":1}
        {"t":200,"src":"p","ev":"ws.ping","gen":1}
        {"t":230,"src":"p","ev":"ws.pong","gen":1}
        {"t":300,"src":"p","ev":"ws.ping","gen":1}
        {"t":1300,"src":"p","ev":"ws.close","gen":1,"reason":"pong_timeout"}
        {"t":1310,"src":"p","ev":"ws.connect","gen":2}
        {"t":1320,"src":"p","ev":"ws.closed","gen":1,"code":1006}
        {"t":1330,"src":"p","ev":"ws.open","gen":2}
        {"t":1400,"src":"p","ev":"ws.close","gen":2,"reason":"user"}
        {"t":1410,"src":"p","ev":"ws.closed","gen":2}
        {"t":1420,"src":"p","ev":"ws.message","gen":1}

        """
    )

    @Test("times are relative to the generation's connect and to the last ping before the event")
    func times() throws {
        let doc = try Self.build([Self.heartbeat], TimelineQuery(src: "p", gen: 1))
        let e = doc.sections[0].entries
        #expect(e.map(\.sinceConnect) == [0, 50, 100, 130, 200, 1200, 1220, 1320])
        #expect(e.map(\.sincePing) == [nil, nil, nil, 30, 100, 1000, 1020, 1120])
        let gen2 = try Self.build([Self.heartbeat], TimelineQuery(src: "p", gen: 2)).sections[0]
            .entries
        #expect(gen2.map(\.sinceConnect) == [0, 20, 90, 100])
        #expect(gen2.allSatisfy { $0.sincePing == nil })
    }

    @Test("the phase as it changes, and stale after a newer connect")
    func phases() throws {
        let doc = try Self.build([Self.heartbeat], TimelineQuery(src: "p"))
        let gen1 = try #require(doc.sections.first { $0.gen == 1 }).entries
        #expect(
            gen1.map { $0.phase ?? "-" }
                == ["connecting", "open", "open", "open", "open", "closing", "stale", "stale"])
        #expect(gen1.map(\.phaseChanged) == [true, true, false, false, false, true, true, false])
        let gen2 = try #require(doc.sections.first { $0.gen == 2 }).entries
        #expect(gen2.map { $0.phase ?? "-" } == ["connecting", "open", "closing", "closed"])
        let text = TimelineReport.text(doc, color: false)
        #expect(text.contains("stale"))
        // The phase column shows changes only.
        #expect(
            text.split(separator: "\n").filter { $0.contains("hb.jsonl:4 ") }.first?.contains(
                "open") == false)
    }

    @Test("other streams have no phase")
    func noPhaseElsewhere() throws {
        let f: LogFile = ("p.jsonl", #"{"t":0,"src":"x","ev":"path.start","gen":1}"# + "\n")
        let doc = try Self.build([f])
        #expect(
            doc.sections[0].entries[0].phase == nil
                && doc.sections[0].entries[0].phaseChanged == false)
    }

    // MARK: - Violations

    @Test("ws.single-close is marked on the second close, ws.timeout-closes on the ping")
    func violationsMarked() throws {
        let doc = try Self.build([Self.violations], TimelineQuery(src: "v"))
        #expect(Self.entry(doc, "v.jsonl", 4)?.findings.isEmpty == true)
        let second = try #require(Self.entry(doc, "v.jsonl", 5))
        #expect(second.findings.map(\.rule) == ["ws.single-close"])
        #expect(second.findings.first?.status == .fail && second.findings.first?.severity == .error)
        let ping = try #require(Self.entry(doc, "v.jsonl", 8))
        #expect(ping.findings.map(\.rule) == ["ws.timeout-closes"])
        #expect(ping.findings.first?.status == .fail)
        // The ping of gen 1 needs no close: the generation ended otherwise before its deadline.
        #expect(Self.entry(doc, "v.jsonl", 3)?.findings.isEmpty == true)

        let text = TimelineReport.text(doc, color: false)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let at = try #require(lines.firstIndex { $0.contains("v.jsonl:5 ") })
        #expect(lines[at].hasPrefix("   !! v.jsonl:5"), "\(text)")
        let finding =
            "         ws.single-close: second ws.close in generation 1 (the first was at v.jsonl:4)"
        #expect(lines[at + 1].hasPrefix(finding), "\(text)")
        #expect(text.contains("ws gen 1 · 5 events · 1 violation\n"), "\(text)")
        // Colour paints the marker red.
        #expect(TimelineReport.text(doc, color: true).contains("\u{1B}[1;31m!!\u{1B}[0m"))
    }

    @Test("an inconclusive finding is marked ?? and findings outside the view are counted")
    func inconclusiveAndElsewhere() throws {
        let doc = try Self.build([Self.inconclusive], TimelineQuery(src: "i", gen: 2))
        let ping = try #require(Self.entry(doc, "i.jsonl", 6))
        #expect(ping.findings.map(\.rule) == ["ws.timeout-closes"])
        #expect(ping.findings.first?.status == .inconclusive)
        #expect(doc.findingsElsewhere == 1)  // the second close of gen 1
        let text = TimelineReport.text(doc, color: false)
        #expect(text.contains("   ?? i.jsonl:6"), "\(text)")
        #expect(text.contains("ws.timeout-closes (inconclusive): "), "\(text)")
        #expect(text.contains("outside this view"), "\(text)")
        let all = try Self.build([Self.inconclusive], TimelineQuery(src: "i"))
        #expect(all.findingsElsewhere == 0)
    }

    // MARK: - Secrets

    static let secretive: LogFile = (
        "s.jsonl",
        """
        {"t":0,"src":"s","ev":"ws.connect","gen":1,"token":"hunter2-VALUE","note":"plain"}
        {"t":5,"src":"s","ev":"ws.open","gen":1,"headers":{"authorization":"Bearer abcdefgh12345678"},"misc":[1,"x"]}
        {"t":6,"src":"s","ev":"ws.message","gen":1,"hint":"Bearer qwertyuiop123456"}

        """
    )

    @Test("a secret value never reaches the text or the JSON, though every field is decoded")
    func secretsNeverShown() throws {
        let doc = try Self.build([Self.secretive])
        let text = TimelineReport.text(doc, color: false)
        let json = TimelineReport.json(doc)
        for secret in ["hunter2", "abcdefgh12345678", "qwertyuiop"] {
            #expect(!text.contains(secret), "\(secret) in \(text)")
            #expect(!json.contains(secret), "\(secret) in \(json)")
        }
        let first = try #require(Self.entry(doc, "s.jsonl", 1))
        #expect(first.text == #"ws.connect note="plain" token=[redacted]"#)
        #expect(first.redacted == ["token"])
        #expect(first.findings.contains { $0.rule == "log.no-secrets" })
        // Other fields are all there, compound ones as JSON.
        #expect(Self.entry(doc, "s.jsonl", 2)?.text.contains(#"misc=[1,"x"]"#) == true)
        #expect(
            Self.entry(doc, "s.jsonl", 2)?.findings.contains { $0.rule == "log.no-secrets" } == true
        )
    }

    @Test("control characters from the log are escaped in the text")
    func controlCharacters() throws {
        let f: LogFile = (
            "c.jsonl", #"{"t":0,"src":"c","ev":"ws.close","gen":1,"reason":"\u001b[31mred"}"# + "\n"
        )
        let text = TimelineReport.text(try Self.build([f]), color: false)
        #expect(!text.contains("\u{1B}"))
        #expect(text.contains(#"reason="\u001b[31mred""#), "\(text)")
    }

    // MARK: - JSON

    @Test("the JSON document: schema, version, sections and entries with every field")
    func jsonShape() throws {
        let doc = try Self.build(
            [Self.heartbeat, Self.secretive], TimelineQuery(around: ("hb.jsonl", 8), radius: 1))
        let object = try #require(try Self.parse(TimelineReport.json(doc)))
        #expect(object["schema"] as? String == "conn-audit/timeline")
        #expect(object["version"] as? Int == 1)
        let focus = try #require(object["focus"] as? [String: Any])
        #expect(
            focus["file"] as? String == "hb.jsonl" && focus["line"] as? Int == 8
                && focus["radius"] as? Int == 1)
        #expect(object["findings_elsewhere"] is Int)
        #expect(object["unplaced"] is [Any])
        #expect(object["corpus"] is [Any])
        #expect(object["input_errors"] is [Any])
        let sections = try #require(object["sections"] as? [[String: Any]])
        #expect(sections.count == 1)
        let s = sections[0]
        #expect(
            s["src"] as? String == "p" && s["src_is_file"] as? Bool == false
                && s["session"] is NSNull)
        #expect(s["stream"] as? String == "ws" && s["gen"] as? Int == 1)
        #expect(s["events"] as? Int == 8 && s["shown"] as? Int == 3)
        let entries = try #require(s["entries"] as? [[String: Any]])
        #expect(entries.map { $0["line"] as? Int } == [6, 8, 12])
        let e = entries[1]
        #expect(
            Set(e.keys) == [
                "file", "line", "t", "ev", "gen", "text", "fields", "redacted", "since_connect",
                "since_ping", "phase", "phase_changed", "focus", "findings"
            ])
        #expect(
            e["file"] as? String == "hb.jsonl" && e["t"] as? Int == 1320
                && e["ev"] as? String == "ws.closed")
        #expect(e["since_connect"] as? Int == 1220 && e["since_ping"] as? Int == 1020)
        #expect(
            e["phase"] as? String == "stale" && e["phase_changed"] as? Bool == true
                && e["focus"] as? Bool == true)
        #expect((e["fields"] as? [String: Any])?["code"] as? Int == 1006)
        #expect(e["findings"] is [Any])

        // A violation as the JSON carries it, and a redacted field.
        let v = try Self.build([Self.secretive])
        let vo = try #require(try Self.parse(TimelineReport.json(v)))
        let first = try #require(
            ((vo["sections"] as? [[String: Any]])?[0]["entries"] as? [[String: Any]])?[0])
        #expect((first["fields"] as? [String: Any])?["token"] as? String == "[redacted]")
        #expect(first["redacted"] as? [String] == ["token"])
        let finding = try #require((first["findings"] as? [[String: Any]])?.first)
        #expect(
            finding["rule"] as? String == "log.no-secrets"
                && finding["severity"] as? String == "error")
        #expect(finding["status"] as? String == "fail" && finding["message"] is String)
    }

    // MARK: - Inputs

    @Test("standard input is read once, and still shown")
    func stdinOnce() throws {
        let bytes = Array(Self.heartbeat.text.utf8)
        let opened = Atomic<Int>(0)
        let (doc, report) = try TimelineBuilder.build(
            inputs: [.stdin], rules: Self.rules, query: TimelineQuery(src: "p", gen: 2)
        ) { file throws(InputError) in
            guard file.isStdin else {
                throw InputError(path: file.path, reason: "no such file or directory")
            }
            if opened.add(1, ordering: .relaxed).oldValue > 0 {
                throw InputError(path: "-", reason: "already read")
            }
            return ByteSources.memory(bytes, path: "-")
        }
        #expect(report.inputErrors.isEmpty)
        #expect(report.inputs.events == 12)
        #expect(doc.sections.count == 1)
        #expect(Self.places(doc) == ["<stdin>:7", "<stdin>:9", "<stdin>:10", "<stdin>:11"])
    }

    @Test("coverage findings (no line) are listed apart, not on an event")
    func coverage() throws {
        let (doc, report) = try Self.buildWithReport(
            [Self.heartbeat], TimelineQuery(src: "p", gen: 1))
        let lineless = report.results.flatMap { r in
            (r.violations + r.inconclusive).filter { $0.line == nil }.map { _ in r.rule.id }
        }
        #expect(!lineless.isEmpty)  // ws.required-outcomes: a log this small lacks most outcomes
        #expect(doc.corpus.map(\.rule) == lineless)
        #expect(doc.unplaced.isEmpty)
        let text = TimelineReport.text(doc, color: false)
        #expect(
            text.contains("corpus-wide findings: ws.required-outcomes (\(lineless.count))"),
            "\(text)")
        #expect(!text.contains("no 'connect_failure' outcome"))
        #expect(TimelineReport.json(doc).contains("no 'connect_failure' outcome"))
    }
}
