import Testing

@testable import ConnAudit

/// An event keeps its redacted keys only when there are some (most events have none, and then
/// hold no list at all): what it reports must not depend on how it keeps them.
@Suite struct EventRedactedKeysTests {
    @Test func anEventReportsTheKeysItWasMadeWithAndItsCopyToo() {
        let e = Event(t: 1, ev: "ws.open", fields: [.init("a", .int(1))], redactedKeys: ["b", "a"])
        #expect(e.redactedKeys == ["b", "a"])
        #expect(e.isRedacted("a") && e.isRedacted("b") && !e.isRedacted("c"))
        let c = e.copy()
        #expect(c.redactedKeys == ["b", "a"])
        #expect(c.isRedacted("b"))
    }

    @Test func anEventWithoutKeysReportsNoneAndItsCopyNeither() {
        let e = Event(t: 1, ev: "ws.open", redactedKeys: [])
        #expect(e.redactedKeys.isEmpty)
        #expect(!e.isRedacted("a"))
        #expect(e.copy().redactedKeys.isEmpty)
        #expect(Event(t: 1, ev: "ws.open").redactedKeys.isEmpty)
    }

    /// The reader hands the flagged keys of a line with a secret to its event, and none to the
    /// clean lines around it, whose fields it hands on whole.
    @Test func theReaderGivesOnlyTheLineWithASecretItsKeys() {
        let log = """
            {"t":1,"ev":"ws.open","src":"d","gen":1,"a":1}
            {"t":2,"ev":"ws.message","src":"d","gen":1,"password":"hunter22","a":2}
            {"t":3,"ev":"ws.close","src":"d","gen":1,"a":3}

            """
        let reader = FileReader(
            index: 0, path: "log.jsonl",
            source: ByteSources.memory(Array(log.utf8), path: "log.jsonl"), wantedFields: nil)
        var events: [Event] = []
        while let item = reader.next() {
            if case .event(let e, _, _) = item { events.append(e) }
        }
        #expect(events.map(\.ev) == ["ws.open", "ws.message", "ws.close"])
        #expect(events.map(\.redactedKeys) == [[], ["password"], []])
        #expect(events.map { $0.value(of: "a") } == [.int(1), .int(2), .int(3)])
        // The secret's value is never held: its field says it was redacted.
        #expect(events[1].value(of: "password") != .string("hunter22"))
    }
}
