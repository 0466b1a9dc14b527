import Testing

@testable import ConnAudit

/// A runner's counted indexes share one numbering of their text keys (``CountedKeys``), and
/// file seqs by number (``SeqsByNumber``). Two texts must get one number exactly when they are
/// `==`, whatever the cache of the last text says, and a number's seqs must be those filed
/// under it alone.
@Suite struct CountedKeysTests {
    /// A text made at run time (a literal would be immortal, and never freed).
    static func made(_ s: String) -> String { String(decoding: Array(s.utf8), as: UTF8.self) }

    @Test func equalTextsShareANumberAndOthersDoNot() {
        let keys = CountedKeys()
        let long = "an id long enough to be stored apart from its string, 0001"
        let a = keys.number(adding: Self.made("1"))
        let b = keys.number(adding: Self.made(long))
        #expect(a != b)
        #expect(keys.number(adding: Self.made("1")) == a)
        #expect(keys.number(adding: Self.made(long)) == b)
        #expect(keys.number(of: Self.made(long)) == b)
        #expect(keys.number(of: Self.made("1")) == a)
        // Canonically equivalent texts are `==`: "é" precomposed and decomposed.
        let e = keys.number(adding: "caf\u{E9}")
        #expect(keys.number(of: "cafe\u{301}") == e)
        #expect(keys.count == 3)
    }

    /// A text held in storage of its own, however short.
    static func stored(_ s: String) -> String {
        var text = ""
        text.reserveCapacity(64)
        text.append(contentsOf: s)
        return text
    }

    /// A short ASCII text is one key however its String holds it (in place, or in storage of
    /// its own), and the two tables of keys share one numbering in the order keys came.
    @Test func shortTextsAreOneKeyHoweverHeld() {
        #expect(ShortTextNumbers.wordsAreKeys)
        // Both ways of holding a short text are taken here.
        #expect(Self.made("1").words.1 >> 60 == 0xE)
        #expect(Self.stored("1").words.1 >> 60 != 0xE)
        let keys = CountedKeys()
        let texts = [
            "", "1", "528694", "abcdefgh", "abcdefghijklmno", "abcdefghijklmnop", "caf\u{E9}"
        ]
        for (i, text) in texts.enumerated() {
            let held = i % 2 == 0 ? Self.made(text) : Self.stored(text)
            #expect(keys.number(adding: held) == Int32(i), "\(text)")
        }
        for (i, text) in texts.enumerated() {
            // Held the other way, and asked after another text (not answered by the cache).
            _ = keys.number(of: Self.made("another"))
            let held = i % 2 == 0 ? Self.stored(text) : Self.made(text)
            #expect(keys.number(of: held) == Int32(i), "\(text)")
            _ = keys.number(of: Self.made("another"))
            #expect(keys.number(adding: held) == Int32(i), "\(text)")
        }
        #expect(keys.count == texts.count)
        // Texts that differ in a byte, in their length only, or in a byte past 0x7F differ.
        #expect(keys.number(of: Self.made("528695")) == nil)
        #expect(keys.number(of: Self.made("52869")) == nil)
        #expect(keys.number(of: Self.made("5286940")) == nil)
        #expect(keys.number(of: Self.stored("abcdefgh\u{0}")) == nil)
        #expect(ShortTextNumbers.packed("caf\u{E9}") == nil)
        // A text whose NFC form alone is short ASCII is `==` to that form: one key.
        let kelvin = keys.number(adding: Self.made("\u{212A}"))
        #expect(keys.number(of: Self.made("K")) == kelvin)
        let semicolon = keys.number(adding: Self.made("id;"))
        #expect(keys.number(of: Self.made("id\u{37E}")) == semicolon)
        #expect(keys.number(adding: Self.stored("id\u{37E}")) == semicolon)
        #expect(keys.count == texts.count + 2)
    }

    /// Many keys, short and long in turn: each keeps its number as the tables grow.
    @Test func numbersStayAsTheTablesGrow() {
        let keys = CountedKeys()
        func text(_ i: Int) -> String {
            i % 3 == 2
                ? Self.made("a long text, stored apart from its String: \(i)") : Self.made("\(i)")
        }
        for i in 0..<5000 { #expect(keys.number(adding: text(i)) == Int32(i)) }
        for i in stride(from: 4999, through: 0, by: -1) {
            #expect(keys.number(of: text(i)) == Int32(i))
        }
        #expect(keys.number(of: Self.made("5000")) == nil)
        #expect(keys.count == 5000)
    }

    @Test func aTextWithNoNumberGetsOneOnceAdded() {
        let keys = CountedKeys()
        _ = keys.number(adding: Self.made("x"))
        #expect(keys.number(of: Self.made("y")) == nil)
        // The same text asked again, after it was added, is found (the answer "none" is stale).
        let y = keys.number(adding: Self.made("y"))
        #expect(keys.number(of: Self.made("y")) == y)
        let text = Self.made("a long text that the cache keeps alive while it remembers it")
        #expect(keys.number(of: text) == nil)
        let n = keys.number(adding: text)
        #expect(keys.number(of: text) == n)
    }

    /// A short text looked up and not found is added where its search ended, unless a key came
    /// in between (its slot may be taken, or the slots grown) or the keys were set back: then it
    /// is searched for again. Two of three lookups have another key added before their add, so
    /// other keys take remembered slots and grow the table many times over.
    @Test func aTextNotFoundIsAddedWhereItsSearchEnded() {
        let keys = CountedKeys()
        var numbers: [String: Int32] = [:]
        for i in 0..<3000 {
            let t = "k\(i % 2000)"
            let found = keys.number(of: Self.made(t))
            #expect(found == numbers[t], "\(t)")
            if i % 3 != 0 {
                let other = "o\(i)"
                let o = keys.number(adding: Self.made(other))
                #expect(numbers[other] == nil)
                numbers[other] = o
            }
            if i == 1500 {
                // A set-back between a failed lookup and its add.
                #expect(found == nil)
                keys.setBack()
                numbers = [:]
            }
            let n = keys.number(adding: Self.made(t))
            if let known = numbers[t] { #expect(n == known, "\(t)") } else { numbers[t] = n }
        }
        #expect(keys.count == numbers.count)
        for (t, n) in numbers { #expect(keys.number(of: Self.made(t)) == n, "\(t)") }
        // Every number is one text's.
        #expect(Set(numbers.values).count == numbers.count)
        keys.setBack()
        #expect(keys.number(of: Self.made("k1")) == nil)
        #expect(keys.number(adding: Self.made("k1")) == 0)
        #expect(keys.number(adding: Self.made("k2")) == 1)
        #expect(keys.number(of: Self.made("k1")) == 0)
    }

    @Test func aFreedTextsStorageReusedForAnotherIsNotTakenForIt() {
        // Long texts made and dropped one after another may get one another's storage: the
        // cache must never answer one with the other's number.
        let keys = CountedKeys()
        var numbers: [String: Int32] = [:]
        for i in 0..<200 {
            let text = Self.made("a text long enough to live in its own storage #\(i % 37)")
            let n = keys.number(adding: text)
            if let known = numbers[text] { #expect(n == known, "\(text)") }
            numbers[text] = n
            let other = Self.made("a text long enough to live in its own storage #\(i % 37 + 1)")
            #expect(keys.number(of: other) == numbers[other], "\(other)")
        }
        #expect(keys.count == 37)
    }

    @Test func aDroppedTextsStorageIsNotGivenToAnotherWhileRemembered() {
        // A text asked about and dropped, then another of its length: with nothing keeping the
        // first alive, the second mostly takes its storage, and so its words (glibc hands the
        // last freed block of a size out first). The cache must keep the text it remembers, or
        // the second would be answered as the first was: with no number, though it has one.
        let keys = CountedKeys()
        let numbered = keys.number(adding: Self.inPlace("numbered", 0))
        for round in 1..<200 {
            do { #expect(keys.number(of: Self.inPlace("never in", round)) == nil) }
            #expect(keys.number(of: Self.inPlace("numbered", 0)) == numbered, "round \(round)")
        }
    }

    /// A long text made with one allocation, its storage (no array on the way, which could take
    /// a freed text's storage first).
    static func inPlace(_ word: StaticString, _ round: Int) -> String {
        let head = "a text long enough to live in storage of its own, "
        let n = head.utf8.count + word.utf8CodeUnitCount + 4
        return String(unsafeUninitializedCapacity: n) { buffer in
            var i = 0
            for b in head.utf8 { buffer[i] = b; i += 1 }
            for k in 0..<word.utf8CodeUnitCount { buffer[i] = word.utf8Start[k]; i += 1 }
            for d in String(round + 1000).utf8 { buffer[i] = d; i += 1 }
            return i
        }
    }

    @Test func seqsAreFiledUnderTheirNumberAlone() {
        var seqs = SeqsByNumber()
        #expect(seqs.count(for: 0) == 0)
        #expect(seqs.seqs(for: 3) == nil)
        seqs.append(7, for: 3)
        #expect(seqs.count(for: 3) == 1)
        #expect(seqs.seqs(for: 3).map(Array.init) == [7])
        for n in Int32(0)..<3 {
            #expect(seqs.count(for: n) == 0, "\(n)")
            #expect(seqs.seqs(for: n) == nil, "\(n)")
        }
        seqs.append(9, for: 1)
        seqs.append(11, for: 3)
        seqs.append(12, for: 3)
        #expect(seqs.seqs(for: 3).map(Array.init) == [7, 11, 12])
        #expect(seqs.seqs(for: 1).map(Array.init) == [9])
        #expect(seqs.count(for: 3) == 3)
        #expect(seqs.count(for: 4) == 0)
    }
}
