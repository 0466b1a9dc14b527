/// A `count … by:`'s counts: how many events came with each key, the keys in the order they came.
///
/// A text whose NFC form is short ASCII (most keys: ids, `text(id)`) is counted by its packed
/// bytes (``ShortTextNumbers``): no ``Value`` is kept, hashed by a closure, copied as the table
/// grows or destroyed for it. Any other key is counted in ``KeyBuckets`` (`Value`'s `==`, which
/// holds between a string and strings alone). Which table counts a text depends on the text
/// alone, so keys `==` to each other are counted in one table.
struct KeyCounts {
    private var short = ShortTextNumbers()
    private var others = KeyBuckets<Int>()
    /// The keys in the order they came, once ``others`` has one (before, the short texts' own
    /// order is that order): a short text's position in ``short``, or -1 - the position of
    /// another key in ``others``.
    private var order: [Int32] = []
    /// The short texts that came as a text that is not ASCII (the Kelvin sign for "K"): as they
    /// came first, as ``KeyBuckets`` keeps its keys.
    private var notASCII: [Int: String] = [:]

    /// How many distinct keys there are.
    var count: Int { short.count + others.count }

    /// Adds one to `key`'s count and returns the new count.
    mutating func increment(_ key: consuming Value) -> Int {
        if case .string(let text) = key, case let words = CountedKeys.words(text),
            let k = short.key(of: text, words: words)
        {
            let n = short.increment(k)
            if n == 1 {
                if others.count != 0 { order.append(Int32(short.count - 1)) }
                if !short.isSmallASCII(words) { keepIfNotASCII(text) }
            }
            return n
        }
        let before = others.count
        let n = others.increment(key)
        if others.count > before {
            if before == 0 { order = (0..<short.count).map { Int32($0) } }
            order.append(-1 - Int32(before))
        }
        return n
    }

    /// Keeps the short text counted last, counted for the first time, when it is not ASCII: a
    /// text whose NFC form alone is ASCII.
    @inline(never) private mutating func keepIfNotASCII(_ text: String) {
        if !text.utf8.allSatisfy({ $0 < 0x80 }) { notASCII[short.count - 1] = text }
    }

    /// Every key with its count, in the order the keys came, each as it came first.
    var counts: [(key: Value, count: Int)] {
        func shortKey(_ i: Int) -> (key: Value, count: Int) {
            (.string(notASCII[i] ?? short.text(at: i)), short.count(at: i))
        }
        guard others.count != 0 else { return (0..<short.count).map(shortKey) }
        let others = self.others.counts
        return order.map { i in i < 0 ? others[Int(-1 - i)] : shortKey(Int(i)) }
    }
}
