import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A runner with counted indexes is set back for the next generation (``Runner/setBack()``): its
/// keys (``CountedKeys``) and the seqs filed under them (``SeqsByNumber``) must then be as new
/// ones are, field by field, and answer as new ones do for the keys that come after.
@Suite struct CountedStateSetBackTests {
    /// A text made at run time (a literal would be immortal, and never freed).
    static func made(_ s: String) -> String { String(decoding: Array(s.utf8), as: UTF8.self) }

    /// Short ASCII texts, long ones, one not ASCII and one whose NFC form alone is ASCII: every
    /// table of keys is used.
    static func text(_ i: Int) -> String {
        switch i % 4 {
        case 0: return made("\(i)")
        case 1: return made("an id long enough to be stored apart from its string, \(i)")
        case 2: return made("caf\u{E9} \(i % 7)")
        default: return made("\u{212A}\(i % 5)")
        }
    }

    /// Each stored field, as text, recursively (a struct's fields are printed in it).
    static func fields(_ x: Any) -> String {
        Mirror(reflecting: x).children.map { "\($0.label ?? "?")=\(String(reflecting: $0.value))" }
            .joined(separator: "; ")
    }

    @Test func keysSetBackAreNewKeys() {
        let keys = CountedKeys()
        for i in 0..<300 { _ = keys.number(adding: Self.text(i)) }
        _ = keys.number(of: Self.text(3))
        _ = keys.number(of: Self.made("never filed"))
        keys.setBack()
        let new = CountedKeys()
        #expect(Self.fields(keys) == Self.fields(new))
        #expect(keys.count == 0)
        #expect(keys.number(of: Self.text(3)) == nil)
        // The keys that come next get the numbers a new one gives them.
        for i in stride(from: 299, through: 0, by: -3) {
            let t = Self.text(i)
            #expect(keys.number(adding: t) == new.number(adding: t), "\(t)")
            #expect(keys.number(of: Self.text(i + 1)) == new.number(of: Self.text(i + 1)))
        }
        #expect(keys.count == new.count)
    }

    @Test func keysSetBackWhileSmallAreNewKeysToo() {
        let keys = CountedKeys()
        _ = keys.number(adding: Self.made("1"))
        _ = keys.number(adding: Self.made("2"))
        keys.setBack()
        #expect(Self.fields(keys) == Self.fields(CountedKeys()))
        // The text remembered last is forgotten: "1" has no number until it is given one.
        #expect(keys.number(of: Self.made("1")) == nil)
        #expect(keys.number(adding: Self.made("2")) == 0)
        #expect(keys.number(adding: Self.made("1")) == 1)
    }

    @Test func seqsSetBackAreNewSeqs() {
        var seqs = SeqsByNumber()
        for i in 0..<200 { seqs.append(i, for: Int32(i % 37)) }
        seqs.append(500, for: 90)
        _ = seqs.seqs(for: 90)
        _ = seqs.seqs(for: 3)
        seqs.setBack()
        #expect(Self.fields(seqs) == Self.fields(SeqsByNumber()))
        #expect(seqs.count(for: 3) == 0)
        #expect(seqs.seqs(for: 90) == nil)
        seqs.append(7, for: 3)
        seqs.append(9, for: 3)
        #expect(seqs.seqs(for: 3).map(Array.init) == [7, 9])
    }

    /// An SSE session cut into many short generations, ids repeating across them (a key filed by
    /// one generation must count nothing in the next), with failures, commits before processing
    /// and lost events: the SSE rules judged per generation keep counted indexes.
    static func sseGenerations(_ n: Int) -> String {
        var lines: [String] = []
        for g in 0..<n {
            let t = g * 10
            let a = g % 4, b = (g + 1) % 4
            lines.append(#"{"t":\#(t),"ev":"sse.event","gen":\#(g),"id":"\#(a)"}"#)
            let ok = g % 3 == 0 ? "false" : "true"
            lines.append(
                #"{"t":\#(t + 1),"ev":"sse.processed","gen":\#(g),"id":"\#(a)","ok":\#(ok)}"#)
            if g % 5 == 0 {
                lines.append(#"{"t":\#(t + 2),"ev":"sse.commit","gen":\#(g),"id":"\#(a)"}"#)
            }
            lines.append(#"{"t":\#(t + 3),"ev":"sse.event","gen":\#(g),"id":\#(b)}"#)
            lines.append(#"{"t":\#(t + 4),"ev":"sse.processed","gen":\#(g),"id":\#(b),"ok":true}"#)
            lines.append(#"{"t":\#(t + 5),"ev":"sse.commit","gen":\#(g),"id":"\#(b)"}"#)
            if g % 7 == 0 {
                lines.append(
                    #"{"t":\#(t + 6),"ev":"sse.processed","gen":\#(g),"id":"\#(b)","ok":true}"#)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The SSE rules judged per generation: runners with counted indexes are set back for the
    /// next generations, and report as new ones do.
    @Test func countedRunnersSetBackReportAsNewOnes() {
        // Only the two rules whose every runner keeps a counted index: each reuse counted below
        // is one of such a runner.
        let counted: Set = ["sse.commit-after-processing", "sse.no-lost-events"]
        let rules = RuleLoader.builtin().rules.filter { counted.contains($0.id) }.map {
            var rule = $0
            rule.scope = .generation
            return rule
        }
        let set = RuleSet(rules: rules)
        let log = Self.sseGenerations(120)
        let spares = RunnersSetBackTests.report(set, log, kept: 2)
        #expect(spares == RunnersSetBackTests.report(set, log, kept: 0))
        #expect(spares.contains("sse.no-lost-events"))
        let outcome = RunnerSpares.$kept.withValue(2) {
            RetirementTests.evaluate(set, log, retireIdleAfter: 0)
        }
        #expect(outcome.runnersReused > 100)
    }
}
