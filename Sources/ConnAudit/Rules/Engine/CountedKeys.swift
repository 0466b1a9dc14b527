/// The text keys of one runner's counted indexes (``CountedIndex``), each given a number once:
/// its position among the keys in the order they came.
///
/// Every index of the runner files its events under these numbers, so an event's key is hashed
/// once however many indexes record it, and a call looks its key up once, not once per index.
/// Two texts are one key exactly when they are `==`. A text whose NFC form is ASCII of at most
/// 15 bytes (most ids) is numbered by that form packed (``ShortTextNumbers``), any other as a
/// ``KeyBuckets`` key (`String`'s `==`, canonical equivalence): which table a text goes to
/// depends on its NFC form alone, so `==` texts are always numbered in the same table.
///
/// The text last numbered or looked up is kept with its answer: the same text asked again (the
/// next index recording the event, the calls on it, the next event of the same id) is answered
/// by comparing the two words of the string (``Swift/String/words``), without a hash. Equal words
/// are the same text: a short string holds its bytes in them, a long one its storage, which the
/// kept text keeps alive unless it is immortal. A number, once given, stays; an answer that the
/// text has none is kept only while no key is added.
final class CountedKeys {
    private var short = ShortTextNumbers()
    /// The other texts, and the number of each by its position there.
    private var table = KeyBuckets<Void>()
    private var tableNumbers: [Int32] = []
    /// The text last asked about, its words, and its number (-1: none, as of ``lastCount``).
    private var last = ""
    private var lastWords = CountedKeys.words("")
    private var lastNumber: Int32 = -1
    private var lastCount = -1
    /// When the last text is short and had no number: the empty slot of ``short`` where its
    /// search ended (-1: none). The slots change only as a key is added, so it is that text's
    /// place while ``count`` is ``lastCount``.
    private var lastFree = -1

    /// How many keys were numbered.
    private(set) var count = 0

    /// Forgets every key, as new keys (``Runner/setBack()``): small storage is kept.
    func setBack() {
        short.setBack()
        if table.count != 0 { table = KeyBuckets() }
        tableNumbers.removeAll(keepingCapacity: tableNumbers.capacity <= Runner.listCapacityKept)
        last = ""
        lastWords = Self.words("")
        lastNumber = -1
        lastCount = -1
        lastFree = -1
        count = 0
    }

    /// The number of `text`, given it when it has none. The text last asked about is answered
    /// here; any other in ``numbering(_:_:)``.
    @inline(__always) func number(adding text: String) -> Int32 {
        let w = Self.words(text)
        if w == lastWords, lastNumber >= 0 { return lastNumber }
        return numbering(text, w)
    }

    /// ``number(adding:)`` of a text other than the last, or the last when it had no number.
    /// A short text the last lookup did not find, with no key added since, goes to the empty
    /// slot where that lookup ended (``lastFree``): it is not searched for again.
    @inline(never) private func numbering(_ text: String, _ w: (UInt64, UInt64)) -> Int32 {
        let next = Int32(count)
        let n: Int32
        if let key = short.key(of: text, words: w) {
            if w == lastWords, lastCount == count, lastFree >= 0 {
                short.add(key, number: next, free: lastFree)
                n = next
            } else {
                n = short.number(adding: key, next: next)
            }
        } else {
            let p = table.position(adding: HashedKey(.string(text)), first: ())
            if p == tableNumbers.count { tableNumbers.append(next) }
            n = tableNumbers[p]
        }
        if n == next { count += 1 }
        remember(text, w, n, free: -1)
        return n
    }

    /// ``number(adding:)`` of a text known by its words (``Swift/String/words``) alone: nil when
    /// they are not a short ASCII text held in place (``ShortTextNumbers/isSmallASCII(_:)``),
    /// which ``number(adding:)`` then numbers. Such a text is its key in ``short``, and is
    /// immortal: nothing of it is kept but its words.
    @inline(__always) func number(addingWords w: (UInt64, UInt64)) -> Int32? {
        if w == lastWords, lastNumber >= 0 { return lastNumber }
        guard short.isSmallASCII(w) else { return nil }
        return numbering(small: w)
    }

    /// ``numbering(_:_:)`` of a short ASCII text held in place, by its words.
    @inline(never) private func numbering(small w: (UInt64, UInt64)) -> Int32 {
        let next = Int32(count)
        let key = ShortTextNumbers.Key(low: w.0, high: w.1)
        let n: Int32
        if w == lastWords, lastCount == count, lastFree >= 0 {
            short.add(key, number: next, free: lastFree)
            n = next
        } else {
            n = short.number(adding: key, next: next)
        }
        if n == next { count += 1 }
        lastWords = w
        lastNumber = n
        lastCount = count
        lastFree = -1
        return n
    }

    /// The number of `text`; nil when no index filed an event under it. The text last asked
    /// about is answered here; any other in ``lookingUp(_:_:)``.
    @inline(__always) func number(of text: String) -> Int32? {
        let w = Self.words(text)
        if w == lastWords, lastNumber >= 0 || lastCount == count {
            return lastNumber >= 0 ? lastNumber : nil
        }
        return lookingUp(text, w)
    }

    /// ``number(of:)`` of a text known by its words alone: nil when they are not a short ASCII
    /// text held in place, which ``number(of:)`` then looks up; otherwise the number, or nil
    /// inside when the text has none.
    @inline(__always) func number(ofWords w: (UInt64, UInt64)) -> Int32?? {
        if w == lastWords, lastNumber >= 0 || lastCount == count {
            return .some(lastNumber >= 0 ? lastNumber : nil)
        }
        guard short.isSmallASCII(w) else { return nil }
        return .some(lookingUp(small: w))
    }

    /// ``lookingUp(_:_:)`` of a short ASCII text held in place, by its words.
    @inline(never) private func lookingUp(small w: (UInt64, UInt64)) -> Int32? {
        let (n, free) = short.search(ShortTextNumbers.Key(low: w.0, high: w.1))
        lastWords = w
        lastNumber = n
        lastCount = count
        lastFree = free
        return n >= 0 ? n : nil
    }

    /// ``number(of:)`` of a text other than the last (or the last, with keys added since).
    @inline(never) private func lookingUp(_ text: String, _ w: (UInt64, UInt64)) -> Int32? {
        let n: Int32
        var free = -1
        if let key = short.key(of: text, words: w) {
            (n, free) = short.search(key)
        } else {
            n = table.position(of: HashedKey(.string(text))).map { tableNumbers[$0] } ?? -1
        }
        remember(text, w, n, free: free)
        return n >= 0 ? n : nil
    }

    @inline(__always) private func remember(
        _ text: String, _ w: (UInt64, UInt64), _ n: Int32, free: Int
    ) {
        // Where a String is not two words, nothing is remembered: no text is answered again.
        guard String.isTwoWords else { return }
        // An immortal string (a short one, whose bytes are its words, or a literal) is never
        // freed: only a mortal one's storage is kept alive, and with it its words' meaning.
        if !String.isImmortal(objectWord: w.1) { last = text }
        lastWords = w
        lastNumber = n
        lastCount = count
        lastFree = free
    }

    /// The two words a string is made of (none where a String is not two words).
    @inline(__always) static func words(_ s: String) -> (UInt64, UInt64) {
        String.isTwoWords ? s.words : (0, 0)
    }
}
