import Testing

@testable import ConnAudit

extension ReaderTests {
    @Suite("JSON details")
    struct JSONDetails {
        @Test("duplicate keys: the last wins")
        func duplicateKeys() throws {
            let event = try #require(
                ReaderTests.one(
                    #"{"t":0,"ev":"ws.open","gen":1,"gen":2,"reason":"a","reason":"b"}"#
                ).event)
            #expect(event.gen == 2)
            #expect(event.value(of: "reason") == .string("b"))

            // A bad value overridden by a good one is fine, and the other way round is not.
            #expect(
                ReaderTests.one(#"{"t":"x","t":5,"ev":"x.y","gen":"1","gen":3}"#).event?.gen == 3)
            #expect(
                ReaderTests.one(#"{"t":5,"ev":"x.y","gen":3,"gen":1.0}"#).reason?.contains("gen")
                    == true)
            #expect(
                ReaderTests.one(#"{"t":5,"t":-1,"ev":"x.y"}"#).reason?.contains("negative") == true)
            #expect(ReaderTests.one(#"{"t":5,"ev":"x.a","ev":"x.b"}"#).event?.ev == "x.b")
            #expect(ReaderTests.one(#"{"t":5,"ev":"x.a","src":"a","src":"b"}"#).source?.src == "b")
        }

        @Test("escapes in keys and values are decoded")
        func escapes() throws {
            let read = ReaderTests.one(
                #"{"\u0074":7,"\u0065v":"ws.\u006fpen","g\u0065n":3,"k\u0041":"\u0041\"\\\/\n\t","smile":"\ud83d\ude00"}"#
            )
            let event = try #require(read.event, "\(read.item)")
            #expect(event.t == 7)
            #expect(event.ev == "ws.open")
            #expect(event.gen == 3)
            #expect(event.value(of: "kA") == .string("A\"\\/\n\t"))
            #expect(event.value(of: "smile") == .string("😀"))
        }

        @Test("lone surrogate escapes become U+FFFD, not invalid text")
        func loneSurrogates() throws {
            let event = try #require(
                ReaderTests.one(
                    #"{"t":0,"ev":"x.y","a":"\ud83d","b":"\ude00x","c":"\ud83d\u0041"}"#
                ).event)
            #expect(event.value(of: "a") == .string("\u{FFFD}"))
            #expect(event.value(of: "b") == .string("\u{FFFD}x"))
            #expect(event.value(of: "c") == .string("\u{FFFD}A"))
        }

        @Test("white space around the object and between tokens is fine")
        func whiteSpace() throws {
            let read = ReaderTests.one("  \t{ \"t\" : 1 ,\t\"ev\" :\"x.y\" , \"gen\": 2 }\t  ")
            let event = try #require(read.event, "\(read.item)")
            #expect(event.t == 1 && event.ev == "x.y" && event.gen == 2)
        }

        @Test("numbers: integers keep their kind, fractions and exponents are doubles")
        func numbers() throws {
            let event = try #require(
                ReaderTests.one(#"{"t":1.5e3,"ev":"x.y","gen":0,"i":-12,"d":1.0,"e":2E-1}"#).event)
            #expect(event.t == 1500)
            #expect(event.gen == 0)
            #expect(event.value(of: "i") == .int(-12))
            #expect(event.value(of: "d") == .double(1.0))
            #expect(event.value(of: "e") == .double(0.2))
            #expect(ReaderTests.one(#"{"t":-0,"ev":"x.y"}"#).event?.t == 0)
        }

        @Test("only the wanted top-level fields are decoded")
        func wantedFields() throws {
            let event = try #require(
                ReaderTests.one(
                    #"{"t":0,"ev":"x.y","reason":"r","other":1,"src":"s"}"#,
                    wanted: ["reason"]
                ).event)
            #expect(event.fields.map(\.key) == ["reason"])
        }
    }
}
