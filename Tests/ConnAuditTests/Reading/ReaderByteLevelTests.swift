import Testing
#if canImport(Glibc)
    import Glibc
#endif

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

extension ReaderTests {
    /// The word-at-a-time string scan and the table that finds repeated `ev` / `src` / `session`
    /// texts by their bytes, each checked against a plain byte-by-byte reference.
    @Suite("Byte-level scanning")
    struct ByteLevel {
        static func isSpecial(_ b: UInt8) -> Bool {
            b == 0x22 || b == 0x5C || b < 0x20 || b >= 0x80
        }

        /// Index of the first byte the word mask marks, or nil.
        static func firstMarked(_ bytes: [UInt8]) -> Int? {
            let w = bytes.withUnsafeBytes {
                UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self))
            }
            let mask = Cursor.specialBytes(w)
            return mask == 0 ? nil : mask.trailingZeroBitCount >> 3
        }

        @Test("the word mask marks the first special byte, for every byte value at every position")
        func everyByteEveryPosition() {
            for filler: UInt8 in [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x61, 0x7E, 0x7F] {
                for position in 0..<8 {
                    for value in 0...255 {
                        var bytes = [UInt8](repeating: filler, count: 8)
                        bytes[position] = UInt8(value)
                        let expected = Self.isSpecial(UInt8(value)) ? position : nil
                        #expect(
                            Self.firstMarked(bytes) == expected,
                            "filler \(filler) byte \(value) at \(position)")
                    }
                }
            }
        }

        @Test("the word mask agrees with a byte loop on random words")
        func randomWords() {
            var g = SplitMix64(seed: 42)
            // Bytes drawn mostly around the edges that matter (0x1F/0x20, quote, backslash,
            // 0x7F/0x80).
            let pool: [UInt8] = [
                0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x61, 0x7F, 0x80, 0x81,
                0xA0, 0xFF
            ]
            for _ in 0..<200_000 {
                let bytes = (0..<8).map { _ in
                    Bool.random(using: &g)
                        ? pool.randomElement(using: &g)! : UInt8.random(in: 0x20...0x7E, using: &g)
                }
                #expect(
                    Self.firstMarked(bytes) == bytes.firstIndex(where: Self.isSpecial), "\(bytes)")
            }
        }

        /// The string scan as it was before it read words: one byte at a time.
        static func referenceScan(_ line: [UInt8]) -> Result<(Int, Int, Bool), JSONSyntaxError> {
            var i = 1
            let start = 1
            var escaped = false
            while i < line.count {
                let b = line[i]
                if b == 0x22 { return .success((start, i, escaped)) }
                if b == 0x5C {
                    escaped = true
                    guard i + 1 < line.count else { break }
                    switch line[i + 1] {
                    case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: i += 2
                    case 0x75:
                        guard i + 5 < line.count else {
                            return .failure(.init(reason: "bad \\u escape", offset: i))
                        }
                        for k in 2...5 where Cursor.hexValue(line[i + k]) == nil {
                            return .failure(.init(reason: "bad \\u escape", offset: i))
                        }
                        i += 6
                    default: return .failure(.init(reason: "bad escape", offset: i))
                    }
                } else if b < 0x20 {
                    return .failure(.init(reason: "control character in string", offset: i))
                } else if b >= 0x80 {
                    let n = line.withUnsafeBufferPointer {
                        Cursor(base: $0.baseAddress!, count: $0.count).utf8SequenceLength(at: i)
                    }
                    guard n > 0 else {
                        return .failure(.init(reason: "not valid UTF-8", offset: i))
                    }
                    i += n
                } else {
                    i += 1
                }
            }
            return .failure(.init(reason: "unterminated string", offset: 0))
        }

        @Test(
            "scanning a string gives the byte loop's range, escape flag and error, on random strings"
        )
        func scanMatchesReference() {
            var g = SplitMix64(seed: 7)
            let pieces: [[UInt8]] = [
                Array("a".utf8), Array("xyz0123".utf8), Array("ws.connect_failed".utf8), [0x22],
                [0x5C, 0x22], [0x5C, 0x5C],
                Array(#"\n"#.utf8), Array(#"\u00e9"#.utf8), Array(#"\u12"#.utf8), [0x5C, 0x71],
                [0x5C], Array("é".utf8),
                Array("😀".utf8), [0xC3], [0xE2, 0x82], [0xFF], [0x09], [0x1F], [0x7F], [0x20]
            ]
            for _ in 0..<50_000 {
                var line: [UInt8] = [0x22]
                for _ in 0..<Int.random(in: 0...12, using: &g) {
                    line += pieces.randomElement(using: &g)!
                }
                if Bool.random(using: &g) { line += Array(#"","k":1}"#.utf8) }
                let got: Result<(Int, Int, Bool), JSONSyntaxError> = line.withUnsafeBufferPointer {
                    buf in
                    var c = Cursor(base: buf.baseAddress!, count: buf.count)
                    do throws(JSONSyntaxError) { return .success(try c.scanString()) } catch {
                        return .failure(error)
                    }
                }
                switch (got, Self.referenceScan(line)) {
                case (.success(let a), .success(let b)):
                    #expect(a.0 == b.0 && a.1 == b.1 && a.2 == b.2, "\(line)")
                case (.failure(let a), .failure(let b)):
                    #expect(a.reason == b.reason, "\(line)")
                    if a.reason != "unterminated string" {
                        #expect(a.offset == b.offset, "\(line)")
                    }
                default:
                    Issue.record(
                        "scan and reference disagree on \(line): \(got) vs \(Self.referenceScan(line))"
                    )
                }
            }
        }

        @Test("decimals read without strtod give strtod's double, bit for bit; integers stay exact")
        func decimals() throws {
            var g = SplitMix64(seed: 99)
            var texts = [
                "0.5", "-0.0", "0.1", "128.11", "1128.11", "999999999999999.9", "99999999999999.99",
                "0.000000000000001", "-123456789012.345", "9007199254740993.5",
                "1.0000000000000002",
                "12345678901234567890", "-9223372036854775808", "9223372036854775808", "1e3",
                "2.5E-3"
            ]
            for _ in 0..<20_000 {
                let whole = String(UInt64.random(in: 0...10_000_000_000_000, using: &g))
                let fraction = String(UInt64.random(in: 0...9_999_999, using: &g))
                texts.append((Bool.random(using: &g) ? "-" : "") + whole + "." + fraction)
            }
            for text in texts {
                let value = try JSONDocument.parse(Array(text.utf8))
                let expected = strtod(text, nil)
                switch value {
                case .double(let d):
                    #expect(d.bitPattern == expected.bitPattern, "\(text): \(d) vs \(expected)")
                case .int(let i):
                    #expect(
                        !text.contains(".") && !text.lowercased().contains("e")
                            && String(i) == text, "\(text)")
                // An integer beyond 64 bits keeps its digits; as a number it is strtod's double.
                case .bigInt(let digits):
                    #expect(digits == text, "\(text)")
                    #expect(value.number?.bitPattern == expected.bitPattern, "\(text)")
                default: Issue.record("\(text) read as \(value)")
                }
            }
        }

        static func lookup(_ table: ByteStringTable, _ key: [UInt8]) -> (
            string: String, tag: Int32
        )? {
            key.withUnsafeBufferPointer { table.lookup($0) }
        }

        @Test("the table finds every key it kept, and no key that differs in one byte or in length")
        func tableKeys() throws {
            var table = ByteStringTable(capacity: 400, maxLength: 64)
            var keys: [[UInt8]] = []
            for length in 0...40 {
                let base = (0..<length).map { UInt8(0x61 + ($0 % 26)) }
                keys.append(base)
                // Differences at the first byte, the last, and around the 8- and 16-byte words.
                for position in Set([0, length - 1, 7, 8, 15, 16])
                where position >= 0 && position < length {
                    var k = base
                    k[position] = 0x30
                    keys.append(k)
                }
            }
            for (i, k) in keys.enumerated() {
                k.withUnsafeBufferPointer {
                    table.add($0, string: String(decoding: k, as: UTF8.self), tag: Int32(i))
                }
            }
            #expect(table.count == keys.count)
            for (i, k) in keys.enumerated() {
                let hit = try #require(Self.lookup(table, k), "\(k)")
                #expect(hit.tag == Int32(i))
                #expect(hit.string == String(decoding: k, as: UTF8.self))
            }
            #expect(Self.lookup(table, Array("zzzz".utf8)) == nil)
            #expect(Self.lookup(table, Array("abcdefghijklmnopq".utf8) + [0x00]) == nil)
            // Adding a key again keeps the first entry.
            keys[3].withUnsafeBufferPointer { table.add($0, string: "other", tag: -7) }
            #expect(Self.lookup(table, keys[3])?.tag == 3)
        }

        @Test("the table is bounded: no key longer than its limit, no entry beyond its capacity")
        func tableBounds() {
            var table = ByteStringTable(capacity: 10, maxLength: 16)
            let long = [UInt8](repeating: 0x61, count: 17)
            long.withUnsafeBufferPointer { table.add($0, string: "long", tag: 1) }
            #expect(table.count == 0)
            #expect(Self.lookup(table, long) == nil)
            for i in 0..<50 {
                let k = Array("key\(i)".utf8)
                k.withUnsafeBufferPointer { table.add($0, string: "key\(i)", tag: Int32(i)) }
            }
            #expect(table.count == 10)
            #expect(Self.lookup(table, Array("key9".utf8))?.tag == 9)
            #expect(Self.lookup(table, Array("key10".utf8)) == nil)
            // It starts small and grows as it fills: every key kept is still found after each
            // growth.
            var growing = ByteStringTable(capacity: 1000, maxLength: 64)
            for i in 0..<1000 {
                let k = Array("k\(i)".utf8)
                k.withUnsafeBufferPointer { growing.add($0, string: "k\(i)", tag: Int32(i)) }
                if i % 97 == 0 {
                    for j in 0...i {
                        #expect(Self.lookup(growing, Array("k\(j)".utf8))?.tag == Int32(j))
                    }
                }
            }
            #expect(growing.count == 1000)
        }

        @Test("an ev name keeps its id however it is spelt, and the last ev of a line wins")
        func evIDs() throws {
            let open = EvNames.id("ws.open")
            let close = EvNames.id("ws.close")
            let lines = ReaderTests.read(
                """
                {"t":1,"ev":"ws.open"}
                {"t":2,"ev":"ws.\\u006fpen"}
                {"t":3,"ev":"ws.open","ev":"ws.close"}
                {"t":4,"ev":"ws.close","ev":"ws.\\u006fpen"}
                {"t":5,"ev":"ws.open","ev":7}
                {"t":6,"ev":"ws.open"}
                {"t":7,"ev":"x.never-named-by-a-rule"}
                {"t":8,"ev":"x.never-named-by-a-rule"}

                """
            ).lines
            #expect(lines.map { $0.event?.evID } == [open, open, close, open, nil, open, -1, -1])
            #expect(lines[4].reason?.contains("ev") == true)
        }

        @Test("a token in ev, src or session is found on every line it is on, not only the first")
        func tokensEveryTime() {
            let line =
                #"{"t":1,"ev":"x.Bearer abcdefghijkl","src":"Bearer abcdefghijkl","session":"eyJhbGciOi.eyJzdWIiOi.sig"}"#
            let lines = ReaderTests.read(line + "\n" + line + "\n").lines
            for read in lines {
                #expect(Set(read.secretPaths) == ["ev", "src", "session"])
                #expect(read.event?.ev == "x.[redacted]")
                #expect(read.source?.src.hasPrefix("[redacted ") == true)
            }
        }
    }
}
