import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// The end counts the labels of retired generations once per distinct label list, times the
/// generations retired with it: what counting each generation alone would give, whether a
/// generation was rebuilt and retired again, or is live at the end.
@Suite struct RetiredLabelCountTests {
    private func generation(_ g: Int, at t: Int, reason: String = "user") -> String {
        """
        {"t":\(t),"ev":"ws.connect","gen":\(g)}
        {"t":\(t + 1),"ev":"ws.open","gen":\(g)}
        {"t":\(t + 2),"ev":"ws.close","gen":\(g),"reason":"\(reason)"}
        {"t":\(t + 3),"ev":"ws.closed","gen":\(g)}

        """
    }

    @Test func rebuiltAndRetiredAgainGenerationsAreCountedOnceEach() {
        var log = ""
        var t = 0
        for g in 0..<30 {
            log += generation(g, at: t, reason: g % 3 == 0 ? "user" : "pong_timeout")
            t += 10
        }
        // Gen 0 and gen 1 speak again (rebuilt), then more generations retire them again; gen 2
        // speaks last and is live at the end.
        log += #"{"t":\#(t),"ev":"ws.closed","gen":0}"# + "\n"
        log += #"{"t":\#(t),"ev":"ws.closed","gen":1}"# + "\n"
        t += 1
        for g in 30..<60 {
            log += generation(g, at: t)
            t += 10
        }
        log += #"{"t":\#(t),"ev":"ws.closed","gen":2}"# + "\n"
        log += #"{"t":\#(t + 1),"ev":"ws.connect","gen":99}"# + "\n"
        log +=
            #"{"t":\#(t + 2),"ev":"ws.connect_failed","gen":99,"error":"NSURLErrorDomain:-1004"}"#
            + "\n"
        let pack = RuleLoader.builtin()
        let retiring = RetirementTests.evaluate(pack, log, retireIdleAfter: 0)
        let keeping = RetirementTests.evaluate(pack, log, retireIdleAfter: RetirementTests.never)
        #expect(retiring.rebuilds >= 3)
        #expect(retiring.retirements >= 60)
        #expect(keeping.retirements == 0)
        #expect(!keeping.sink.labels.isEmpty)
        #expect(retiring.sink.labels == keeping.sink.labels)
    }

    @Test func aListCountedForManyGenerationsAddsToEachLabelAsManyTimes() {
        let sink = FindingSink(files: [])
        let list = [
            LabelResult(rule: 3, name: "clean", holds: true),
            LabelResult(rule: 3, name: "failed", holds: false)
        ]
        sink.count(list, times: 5)
        sink.count(list)
        #expect(sink.labels == [3: ["clean": 6, "failed": 0]])
    }
}
