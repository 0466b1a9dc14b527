import Testing

@testable import ConnAudit

extension EngineTests {
    @Test(arguments: [
        (
            "gen {gen}: reason {reason ?? 'none'} {{literal}} at line {$line}",
            "gen 1: reason none {literal} at line 2"
        ),
        ("{ev} t={t} code={code}", "ws.close t=5 code=1006"),
        ("text {missing + 1} here", "text ? here"),
        ("{params.limit} and {c.gen}", "3 and 1"),
        ("{if code == 1006 then 'abnormal' else 'normal'}", "abnormal"),
        ("plain text", "plain text")
    ])
    func messageTemplates(_ template: String, _ expected: String) throws {
        let r = try rule(
            """
            id: t.msg
            title: Title
            params: { limit: 3 }
            every: { ev: ws.close, as: c }
            expect: "reason != null"
            message: "\(template)"
            """)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":5,"ev":"ws.close","gen":1,"code":1006}
            """)
        #expect(result.violations.first?.message == expected)
    }

    @Test(arguments: [
        ("a", 256, "a"),
        (String(repeating: "a", count: 256), 256, String(repeating: "a", count: 256)),
        (
            String(repeating: "a", count: 257), 256,
            String(repeating: "a", count: 256) + "… (257 bytes)"
        ),
        // Whole scalars only: 2-byte é fills 256 bytes exactly, 3-byte € stops at 255, a 4-byte
        // emoji at 4 bytes of a 5-byte limit.
        (
            String(repeating: "é", count: 200), 256,
            String(repeating: "é", count: 128) + "… (400 bytes)"
        ),
        (
            String(repeating: "€", count: 100), 256,
            String(repeating: "€", count: 85) + "… (300 bytes)"
        ),
        ("😀😀", 5, "😀… (8 bytes)"),
        ("😀😀", 3, "… (8 bytes)")
    ])
    func longTextsAreClippedAtWholeScalars(_ text: String, _ limit: Int, _ expected: String) {
        #expect(text.clipped(bytes: limit) == expected)
    }

    /// A value of a line (up to 1 MiB) is shown clipped in messages and context lines: a finding
    /// does not repeat it whole (three commits of a 500 KB id made a 6 MB JSON report of 1.5 MB).
    @Test func longValuesAreClippedInMessagesAndContext() throws {
        let r = try rule(
            """
            id: t.reason
            title: Closes say why briefly
            every: { ev: ws.close }
            expect: "len(reason) < 100"
            message: "reason {reason} at {$line}"
            """)
        let reason = String(repeating: "x", count: 300) + "é" + String(repeating: "y", count: 5_000)
        let result = run(
            r,
            """
            {"t":0,"ev":"ws.connect","gen":1}
            {"t":5,"ev":"ws.close","gen":1,"reason":"\(reason)"}
            """)
        let v = try #require(result.violations.first)
        #expect(v.message == "reason " + String(repeating: "x", count: 256) + "… (5302 bytes) at 2")
        let anchor = try #require(v.context.first { $0.isAnchor })
        // The value's own text is clipped, then quoted: the same length as in the message.
        #expect(
            anchor.text == "t=5 ws.close gen=1 reason=\"" + String(repeating: "x", count: 256)
                + "\"… (5302 bytes)")
    }

    /// A value is clipped before it is escaped for a context line: an escape is never cut in two
    /// (`\` alone at the end of a clipped JSON text).
    @Test func aClippedContextValueKeepsItsEscapesWhole() throws {
        // A rule that reads `reason` (the reader keeps only the fields the loaded rules read).
        let r = try rule(
            "id: t.close\ntitle: No closes with reasons\nnever: { ev: ws.close, reason: { exists: true } }"
        )
        let reason =
            String(repeating: "x", count: 255) + "\u{1B}" + String(repeating: "y", count: 10)
        let log =
            #"{"t":5,"ev":"ws.close","gen":1,"reason":"\#(String(repeating: "x", count: 255))\u001b\#(String(repeating: "y", count: 10))"}"#
        let v = try #require(run(r, log).violations.first)
        #expect(reason.utf8.count == 266)
        let anchor = try #require(v.context.first { $0.isAnchor })
        #expect(
            anchor.text == "t=5 ws.close gen=1 reason=\"" + String(repeating: "x", count: 255)
                + "\\u001b\"… (266 bytes)")
    }

    /// The reader's own findings hold values it bounded itself, and a message shows them whole: a
    /// secret's key path longer than a clip keeps its last key, the one that holds the secret, so
    /// two secrets under one long key read apart.
    @Test func aLongSecretPathIsNotClippedInItsMessage() throws {
        let pack = RuleLoader.builtin(only: "10-log.yaml")
        let secrets = try #require(pack.rules.first { $0.id == "log.no-secrets" })
        let key = String(repeating: "k", count: 300)
        let result = run(secrets, #"{"t":1,"ev":"ws.open","\#(key)":{"cookie":"a","secret":"b"}}"#)
        let messages = result.violations.map(\.message)
        #expect(messages.count == 2)
        #expect(messages.allSatisfy { !$0.contains("bytes)") && $0.contains(key) })
        #expect(messages.contains { $0.contains(".cookie") })
        #expect(messages.contains { $0.contains(".secret") })
    }
}

@Suite struct MessageReuseTests {
    /// A runner gives its last message again when every hole evaluates alike: the same bytes of
    /// text, the same bits of a number, the same event. Anything else is made anew.
    @Test("a message is given again only when its holes are the same bytes, bits or event")
    func messagesFollowTheirHoles() throws {
        let r = try rule(
            """
            id: t.holes
            title: Holes
            severity: error
            for: source
            every: { ev: x.m }
            expect: "false"
            message: "{v} | {w} | {last({ev: x.n})}"
            """)
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        let log = [
            #"{"t":1,"ev":"x.m","v":"\#(nfc)","w":1}"#,
            #"{"t":2,"ev":"x.m","v":"\#(nfc)","w":1}"#,
            #"{"t":3,"ev":"x.m","v":"\#(nfd)","w":1}"#,
            #"{"t":4,"ev":"x.m","v":"\#(nfd)","w":1.5}"#,
            #"{"t":5,"ev":"x.m","v":"\#(nfd)","w":1.25}"#,
            #"{"t":6,"ev":"x.n"}"#,
            #"{"t":7,"ev":"x.m","v":"\#(nfd)","w":1.25}"#,
            #"{"t":8,"ev":"x.n"}"#,
            #"{"t":9,"ev":"x.m","v":"\#(nfd)","w":1.25}"#,
            #"{"t":10,"ev":"x.m","v":null,"w":"1.25"}"#
        ].joined(separator: "\n")
        let messages = run(r, log).violations.map { Array($0.message.utf8) }
        let expected = [
            "\(nfc) | 1 | null", "\(nfc) | 1 | null", "\(nfd) | 1 | null", "\(nfd) | 1.5 | null",
            "\(nfd) | 1.25 | null",
            "\(nfd) | 1.25 | x.n at a.jsonl:6", "\(nfd) | 1.25 | x.n at a.jsonl:8",
            "null | 1.25 | x.n at a.jsonl:8"
        ].map { Array($0.utf8) }
        #expect(messages == expected)
        #expect(messages[1] != messages[2], "canonically equal texts are still their own bytes")
    }
}
