import Testing

@testable import ConnAudit

extension ReaderTests {
    @Suite("Source keys")
    struct SourceKeys {
        /// The reader numbers a file's sources by first appearance: one number per key, whether a
        /// line's texts come through the plain path (one interned text per value) or the general
        /// parser (an escape), after other sources or not; `t` going back is judged per number.
        @Test func sourcesAreNumberedOncePerKey() throws {
            let text =
                [
                    #"{"t":5,"src":"ab","session":"s","ev":"x.y"}"#,
                    #"{"t":6,"src":"a\u0062","session":"s","ev":"x.y"}"#,
                    #"{"t":1,"src":"cd","ev":"x.y"}"#,
                    #"{"t":7,"src":"ab","session":"s","ev":"x.y"}"#,
                    #"{"t":4,"src":"ab","session":"s","ev":"x.y"}"#,
                    #"{"t":2,"src":42,"ev":"x.y"}"#,
                    #"{"t":3,"src":"42","ev":"x.y"}"#,
                    #"{"t":0,"src":"cd","ev":"x.y"}"#,
                    #"{"t":8,"src":"ab","ev":"x.y"}"#
                ].joined(separator: "\n") + "\n"
            let reader = FileReader(
                index: 0, path: "a.jsonl",
                source: ByteSources.memory(Array(text.utf8), path: "a.jsonl"),
                wantedFields: [])
            var ids: [Int32] = []
            var regressions: [Int] = []
            while let item = reader.next() {
                guard case .event(let e, let id, let regression) = item else { continue }
                ids.append(id)
                if regression != nil { regressions.append(e.line) }
            }
            #expect(ids == [0, 0, 1, 0, 0, 2, 3, 1, 4])
            #expect(reader.key(of: 0) == SourceKey(src: "ab", session: "s"))
            #expect(reader.key(of: 1) == SourceKey(src: "cd"))
            var json = SourceKey(src: "42")
            json.srcIsJSON = true
            #expect(reader.key(of: 2) == json && reader.key(of: 3) == SourceKey(src: "42"))
            #expect(reader.key(of: 4) == SourceKey(src: "ab"))
            // Line 5 goes back from 7 for "ab"/"s", line 8 from 1 for "cd"; line 3 ("cd" at 1
            // after "ab" at 6) is another source's.
            #expect(regressions == [5, 8])
        }

        @Test("src absent and src null both mean the file is the source")
        func fileIsTheSource() throws {
            let (lines, _) = ReaderTests.read(
                "{\"t\":0,\"ev\":\"x.y\"}\n{\"t\":1,\"ev\":\"x.y\",\"src\":null}\n{\"t\":2,\"ev\":\"x.y\",\"src\":\"logs/a.jsonl\"}\n",
                path: "logs/a.jsonl")
            let keys = lines.compactMap(\.source)
            try #require(keys.count == 3)
            #expect(keys[0] == SourceKey(src: "logs/a.jsonl", srcIsFile: true))
            #expect(keys[1] == keys[0])
            // A src that happens to spell the path is a named source, not the file.
            #expect(keys[2] == SourceKey(src: "logs/a.jsonl"))
            #expect(keys[2] != keys[0])
        }

        @Test(
            "a non-string src or session is keyed by its JSON text",
            arguments: [
                (#""src":42"#, "42", nil),
                (#""src":-1.5"#, "-1.5", nil),
                (#""src":true"#, "true", nil),
                (#""src":{"id":7}"#, #"{"id":7}"#, nil),
                (#""src":"a","session":3"#, "a", "3"),
                (#""src":"a","session":null"#, "a", "null")
            ] as [(String, String, String?)])
        func nonStringSource(fields: String, src: String, session: String?) throws {
            let read = ReaderTests.one(#"{"t":0,"ev":"x.y",\#(fields)}"#)
            let key = try #require(read.source, "\(read.item)")
            #expect(key.src == src)
            #expect(key.session == session)
            #expect(!key.srcIsFile)
        }

        @Test(
            "a null session is keyed by its JSON text: not the lines without a session, not the string \"null\""
        )
        func nullSession() throws {
            let none = try #require(ReaderTests.one(#"{"t":0,"ev":"x.y","src":"a"}"#).source)
            let null = try #require(
                ReaderTests.one(#"{"t":0,"ev":"x.y","src":"a","session":null}"#).source)
            let text = try #require(
                ReaderTests.one(#"{"t":0,"ev":"x.y","src":"a","session":"null"}"#).source)
            #expect(null.session == "null" && null.sessionIsJSON)
            #expect(null != none && null != text && none != text)
            // A null src is still the file (the brief's one exception).
            let file = try #require(ReaderTests.one(#"{"t":0,"ev":"x.y","src":null}"#).source)
            #expect(file.srcIsFile)
        }

        @Test("a numeric src and the string of its digits are different sources")
        func numericAndStringSources() throws {
            let number = try #require(ReaderTests.one(#"{"t":0,"ev":"x.y","src":42}"#).source)
            let text = try #require(ReaderTests.one(#"{"t":0,"ev":"x.y","src":"42"}"#).source)
            #expect(number.src == text.src)
            #expect(number != text)
        }

        @Test("session separates sources; time regressions are per source")
        func sessions() throws {
            let (lines, _) = ReaderTests.read(
                """
                {"t":100,"src":"a","session":"1","ev":"x.y"}
                {"t":5,"src":"a","session":"2","ev":"x.y"}
                {"t":50,"src":"a","ev":"x.y"}
                {"t":6,"src":"a","session":"2","ev":"x.y"}
                {"t":99,"src":"a","session":"1","ev":"x.y"}

                """)
            let keys = lines.compactMap(\.source)
            try #require(keys.count == 5)
            #expect(keys[0] == SourceKey(src: "a", session: "1"))
            #expect(keys[1] == SourceKey(src: "a", session: "2"))
            #expect(keys[2] == SourceKey(src: "a"))
            #expect(Set(keys).count == 3)
            #expect(lines.map { $0.regression != nil } == [false, false, false, false, true])
            #expect(lines[4].regression?.value(of: "previous_t") == .int(100))
            #expect(lines[4].regression?.line == 5)
        }

        @Test("a regression compares with the previous valid line of the source, not the maximum")
        func regressionAgainstPrevious() throws {
            let (lines, _) = ReaderTests.read(
                """
                {"t":10,"ev":"x.y"}
                {"t":50,"ev":"x.y"}
                {"t":1,"ev":"x.y","gen":-1}
                {"t":20,"ev":"x.y"}
                {"t":30,"ev":"x.y"}
                {"t":30,"ev":"x.y"}

                """)
            #expect(lines.map { $0.regression?.line } == [nil, nil, nil, 4, nil, nil])
            #expect(lines[3].regression?.value(of: "previous_t") == .int(50))
        }

        /// As doubles, integers from 2^53 up round alike: 2^53 after 2^53 + 1 was no regression (a
        /// `t` from a nanosecond clock), nor Int64.max - 1 after Int64.max.
        @Test("integer times compare exactly, all 64 bits")
        func regressionBeyond2To53() throws {
            let (lines, _) = ReaderTests.read(
                """
                {"t":9007199254740992,"src":"a","ev":"x.y"}
                {"t":9007199254740993,"src":"a","ev":"x.y"}
                {"t":9007199254740992,"src":"a","ev":"x.y"}
                {"t":9223372036854775807,"src":"b","ev":"x.y"}
                {"t":9223372036854775806,"src":"b","ev":"x.y"}
                {"t":9007199254740993,"src":"c","ev":"x.y"}
                {"t":9007199254740992.0,"src":"c","ev":"x.y"}
                {"t":9007199254740991.5,"src":"c","ev":"x.y"}
                {"t":9007199254740991,"src":"c","ev":"x.y"}
                {"t":9223372036854775808,"src":"d","ev":"x.y"}
                {"t":9223372036854775807,"src":"d","ev":"x.y"}
                {"t":9223372036854775808,"src":"d","ev":"x.y"}
                {"t":1e19,"src":"d","ev":"x.y"}

                """)
            #expect(
                lines.map { $0.regression?.line } == [
                    nil, nil, 3, nil, 5, nil, 7, nil, 9, nil, 11, nil, nil
                ])
            // Not an integer: the finding's `t` says it.
            #expect(lines[6].regression?.value(of: "t_exact") == nil)
            #expect(lines[2].regression?.value(of: "previous_t") == .int(9_007_199_254_740_993))
            #expect(lines[2].regression?.value(of: "t_exact") == .int(9_007_199_254_740_992))
            #expect(lines[4].regression?.value(of: "previous_t") == .int(Int64.max))
            #expect(lines[4].regression?.value(of: "t_exact") == .int(Int64.max - 1))
        }

        @Test(arguments: [
            (Int64(0), 0.5, true), (1, 0.5, false), (1, 1.0, false), (0, 1.0, true),
            (9_007_199_254_740_993, 0x1p53, false), (9_007_199_254_740_991, 0x1p53, true),
            (Int64.max, 0x1p63, true), (Int64.max, 9_223_372_036_854_774_784.0, false),
            (Int64.max - 1024, 9_223_372_036_854_774_784.0, true)
        ])
        func stampsCompareAnIntegerAndADoubleExactly(i: Int64, d: Double, below: Bool) {
            #expect(Stamp(t: Double(i), exact: i).isBefore(Stamp(t: d, exact: -1)) == below)
            #expect(
                Stamp(t: d, exact: -1).isBefore(Stamp(t: Double(i), exact: i))
                    == (!below && Double(exactly: i) != d))
        }
    }
}
