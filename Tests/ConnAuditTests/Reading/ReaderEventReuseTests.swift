import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// The reader fills an event of an earlier line again (``EventRing``) only once nothing else holds
/// it: an event a caller, a history list, a capture or an obligation keeps stays as it was read,
/// however many lines come after it.
@Suite struct ReaderEventReuseTests {
    /// `count` valid lines of one source, each telling its own number in `n` and `tag`.
    static func log(_ count: Int) -> String {
        (1...count).map { #"{"t":\#($0),"ev":"x.step","n":\#($0),"tag":"line-\#($0)"}"# }
            .joined(separator: "\n") + "\n"
    }

    static func reader(_ text: String) -> FileReader {
        FileReader(
            index: 0, path: "reuse.jsonl",
            source: ByteSources.memory(Array(text.utf8), path: "reuse.jsonl"),
            wantedFields: nil)
    }

    @Test func anEventKeptByItsHolderKeepsItsFieldsAfterManyMoreLines() {
        let lines = EventRing.size * 10
        let reader = Self.reader(Self.log(lines))
        var kept: [Event] = []
        while let item = reader.next() {
            guard case .event(let e, _, _) = item else { continue }
            // Every seventh event is kept; the others are let go at once.
            if e.line % 7 == 1 { kept.append(e) }
        }
        #expect(kept.count == (lines + 6) / 7)
        for e in kept {
            #expect(e.ev == "x.step")
            #expect(e.t == Double(e.line))
            #expect(e.value(of: "n") == .int(Int64(e.line)))
            #expect(e.value(of: "tag") == .string("line-\(e.line)"))
        }
        #expect(Set(kept.map(ObjectIdentifier.init)).count == kept.count)
    }

    @Test func anEventNothingElseHoldsIsFilledAgainAsItsLineReadsIt() {
        let lines = EventRing.size * 10
        let reader = Self.reader(Self.log(lines))
        var objects = Set<ObjectIdentifier>()
        var read = 0
        while let item = reader.next() {
            guard case .event(let e, _, _) = item else { continue }
            read += 1
            #expect(e.line == read)
            #expect(e.seq == 0)
            #expect(e.value(of: "tag") == .string("line-\(read)"))
            objects.insert(ObjectIdentifier(e))
        }
        #expect(read == lines)
        // The ring's events, and no more, serve every line.
        #expect(objects.count <= EventRing.size)
    }

    /// An obligation keeps its anchor (a capture) open to the end of the log: its message reads
    /// the anchor's fields after every later line was read.
    @Test(arguments: [1, 2])
    func anEventAnObligationHoldsKeepsItsFieldsToTheEnd(jobs: Int) throws {
        let rules = try RuleRuns.rules(
            [
                "id: t.reuse\ntitle: T\nfor: source\neach: { ev: x.open, as: o }\nfollowed_by: { ev: x.close, where: \"n == o.n\" }\nat_end: fail\nmessage: \"open {o.n} {o.tag} never closed\""
            ], file: "rules/reuse.yaml")
        var text = #"{"t":0,"ev":"x.open","n":0,"tag":"first"}"# + "\n"
        text += Self.log(EventRing.size * 8)
        let report = RuleRuns.audit(rules, text, path: "reuse.jsonl", jobs: jobs)
        let findings = report.results[0].violations
        #expect(findings.map { $0.message } == ["open 0 first never closed"])
        #expect(findings.map { $0.line } == [1])
    }
}
