import Testing

@testable import ConnAudit

extension ReaderTests {
    @Suite("Line accounting")
    struct Accounting {
        @Test("a BOM at the start of the file is skipped")
        func bomSkipped() throws {
            let bytes =
                ReaderTests.bom
                + Array("{\"t\":0,\"ev\":\"x.first\"}\n{\"t\":1,\"ev\":\"x.second\"}\n".utf8)
            let (lines, stats) = ReaderTests.read(bytes)
            try #require(lines.count == 2)
            #expect(lines[0].event?.ev == "x.first" && lines[0].event?.line == 1)
            #expect(lines[1].event?.line == 2)
            #expect(stats.lines == 2 && stats.events == 2)
        }

        @Test(
            "a first line holding only a BOM (and maybe \\r) is blank",
            arguments: ["\n", "\r\n", ""])
        func bomOnlyLine(end: String) throws {
            let bytes =
                ReaderTests.bom + Array(end.utf8)
                + Array((end.isEmpty ? "" : "{\"t\":0,\"ev\":\"x.y\"}\n").utf8)
            let (lines, stats) = ReaderTests.read(bytes)
            #expect(lines.first?.isBlank == true)
            #expect(stats.blank == 1)
            #expect(stats.lines == (end.isEmpty ? 1 : 2))
        }

        @Test("a BOM anywhere else is not skipped")
        func bomLater() throws {
            let bytes =
                Array("{\"t\":0,\"ev\":\"x.y\"}\n".utf8) + ReaderTests.bom
                + Array("{\"t\":1,\"ev\":\"x.y\"}\n".utf8)
            let (lines, _) = ReaderTests.read(bytes)
            try #require(lines.count == 2)
            #expect(lines[1].malformed?.line == 2)
        }

        @Test(
            "a later line holding only a BOM and white space is blank (connlog: blank after removing \\r and a BOM)",
            arguments: ["", "\r", " \t", "\r\r"])
        func bomOnlyLaterLine(rest: String) throws {
            let bytes =
                Array("{\"t\":0,\"ev\":\"x.y\"}\n".utf8) + ReaderTests.bom + Array("\(rest)\n".utf8)
                + ReaderTests.bom + ReaderTests.bom + Array("\n".utf8)
            let (lines, stats) = ReaderTests.read(bytes)
            try #require(lines.count == 3)
            #expect(lines[1].isBlank)
            // Only one BOM is removed: two are not white space.
            #expect(lines[2].malformed?.line == 3)
            #expect(stats.blank == 1 && stats.malformed == 1 && stats.events == 1)
        }

        @Test(
            "a BOM before a 1 MiB first line does not count towards the limit, whatever the read sizes",
            arguments: [[Int](), [1_048_576, 2]])
        func bomBeforeMaximalLine(plan: [Int]) throws {
            let bytes =
                ReaderTests.bom + ReaderTests.paddedLine(size: 1_048_576) + [0x0A]
                + Array("{\"t\":1,\"ev\":\"x.y\"}\n".utf8)
            let source = ReaderTests.ChunkedSource(bytes, plan: plan, rest: 1 << 20)
            let (lines, _) = ReaderTests.read(source: source)
            try #require(lines.count == 2)
            #expect(lines[0].event?.line == 1, "\(lines[0].item)")
            #expect(lines[1].event?.line == 2)
        }

        @Test("CRLF and LF line ends, mixed, give the same events")
        func crlf() throws {
            let (lines, stats) = ReaderTests.read(
                "{\"t\":0,\"ev\":\"x.a\",\"s\":\"v\"}\r\n{\"t\":1,\"ev\":\"x.b\"}\n\r\n{\"t\":2,\"ev\":\"x.c\"}\r\n"
            )
            try #require(lines.count == 4)
            #expect(lines[0].event?.value(of: "s") == .string("v"))
            #expect(lines[1].event?.line == 2)
            #expect(lines[2].isBlank)
            #expect(lines[3].event?.line == 4 && lines[3].event?.ev == "x.c")
            #expect(
                stats.lines == 4 && stats.events == 3 && stats.blank == 1 && stats.malformed == 0)
        }

        @Test(
            "blank lines are counted as blank and numbered",
            arguments: ["", "   ", "\t\t", "\r", " \t \r", "\u{0B}\u{0C}"])
        func blankLines(blank: String) throws {
            let (lines, stats) = ReaderTests.read(
                "\(blank)\n{\"t\":0,\"ev\":\"x.y\"}\n\(blank)\n\(blank)\n{\"t\":1,\"ev\":\"x.z\"}\n"
            )
            try #require(lines.count == 5)
            #expect(lines.map(\.isBlank) == [true, false, true, true, false])
            #expect(lines[1].event?.line == 2)
            #expect(lines[4].event?.line == 5)
            #expect(stats.lines == 5 && stats.blank == 3 && stats.events == 2)
        }

        @Test("non-ASCII white space is not blank")
        func nonASCIIWhiteSpace() throws {
            let (lines, stats) = ReaderTests.read("\u{00A0}\n")
            #expect(lines.first?.malformed?.line == 1)
            #expect(stats.blank == 0)
        }

        @Test(
            "physical line numbers stay right after blank and bad lines; lines == events + malformed + blank"
        )
        func mixedFile() throws {
            let text = """
                {"t":0,"ev":"x.a"}

                not json
                   \t
                {"t":1,"ev":"x.b"}
                {"t":"bad","ev":"x.c"}
                \r
                [1]
                {"t":2,"ev":"x.d"}

                {"ev":"x.e"}
                {"t":3,"ev":"x.f"}
                """ + "\n{\"t\":4,\"ev\":\"x.g\""
            let (lines, stats) = ReaderTests.read(text)
            #expect(lines.count == 13)
            let events = lines.compactMap(\.event).map { "\($0.ev)@\($0.line)" }
            #expect(events == ["x.a@1", "x.b@5", "x.d@9", "x.f@12"])
            let malformed = lines.compactMap(\.malformed).map(\.line)
            #expect(malformed == [3, 6, 8, 11, 13])
            #expect(lines.indices.filter { lines[$0].isBlank }.map { $0 + 1 } == [2, 4, 7, 10])
            #expect(stats.lines == 13)
            #expect(stats.lines == stats.events + stats.malformed + stats.blank)
            #expect(stats.events == 4 && stats.malformed == 5 && stats.blank == 4)
            #expect(stats.bytes == text.utf8.count)
        }

        @Test("line splitting does not depend on read sizes", arguments: [1, 2, 3, 7, 64])
        func readSizes(size: Int) throws {
            let text =
                ReaderTests.bom
                + Array(
                    "{\"t\":0,\"ev\":\"x.a\"}\r\n\r\n  \nbad\n{\"t\":1,\"ev\":\"x.b\"}\r\n{\"t\":2,\"ev\":\"x.c\"}"
                        .utf8)
            let expected = ReaderTests.read(text)
            let chunked = ReaderTests.read(source: ReaderTests.ChunkedSource(text, rest: size))
            #expect(chunked.lines.map { "\($0.item)" } == expected.lines.map { "\($0.item)" })
            #expect(
                chunked.stats.lines == 6 && chunked.stats.events == 3 && chunked.stats.blank == 2)
            #expect(chunked.stats.malformed == 1)
        }

        @Test("an empty input has no lines; a lone newline is one blank line")
        func emptyInputs() {
            #expect(ReaderTests.read("").stats.lines == 0)
            let newline = ReaderTests.read("\n").stats
            #expect(newline.lines == 1 && newline.blank == 1)
        }
    }
}
