/// One shard of a run split over `count` machines or processes (`--shard K/N`,
/// docs/scale-out.md): the sources whose key hashes to it, and the files it reads for them.
///
/// A source belongs to shard `FNV-1a(key) mod N + 1`, whatever file holds it, so every file of
/// a source (rotated files, several uploads) is judged in the same shard. The hash is FNV-1a
/// over the key's bytes (``keyBytes(_:)``): the same on every machine and in every run.
///
/// A file belongs to the shard of its least source key (byte order), or for a file without an
/// event, to shard `index mod N + 1` (its place in the run's file list): that shard alone counts
/// its lines and puts its malformed lines and secrets on the corpus timeline. A shard reads in
/// full the files it owns and the files that hold one of its sources. To know which those are,
/// every shard first skims every file for its source keys (``SourceEndScan``, the light pre-pass
/// of a large file). So a file of one source is parsed by one shard; a file interleaving `m`
/// sources is parsed by up to `min(m, N)` shards; every shard skims the whole corpus.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// 1-based: `1...count`.
    public let index: Int
    public let count: Int

    public init(index: Int, count: Int) {
        precondition(count >= 1 && index >= 1 && index <= count)
        self.index = index
        self.count = count
    }

    /// At most this many shards: more would leave most of them empty on any real corpus.
    public static let maxCount = 65_536

    /// `K/N` with `1 <= K <= N <= ``maxCount```; nil for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { "0"..."9" ~= $0 } }),
            let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, n <= Self.maxCount, k >= 1,
            k <= n
        else { return nil }
        self.init(index: k, count: n)
    }

    public var description: String { "\(index)/\(count)" }

    /// The shard (1-based) `key` belongs to among `count`.
    public static func number(of key: SourceKey, count: Int) -> Int {
        Int(FNV1a.hash64(bytes: keyBytes(key)) % UInt64(count)) + 1
    }

    /// Whether this shard judges `key`.
    public func owns(_ key: SourceKey) -> Bool { Self.number(of: key, count: count) == index }

    /// The bytes hashed for `key`: a tag byte (bit 0: `src` stands for a file path, bit 1: `src`
    /// is JSON text, bit 2: `session` is JSON text, bit 3: there is a session), the UTF-8 of
    /// `src`, and when there is a session a 0xFF byte (never in UTF-8) and its UTF-8.
    static func keyBytes(_ key: SourceKey) -> [UInt8] {
        var tag: UInt8 = 0
        if key.srcIsFile { tag |= 1 }
        if key.srcIsJSON { tag |= 2 }
        if key.sessionIsJSON { tag |= 4 }
        if key.session != nil { tag |= 8 }
        var bytes = [tag]
        bytes += key.src.utf8
        if let session = key.session {
            bytes.append(0xFF)
            bytes += session.utf8
        }
        return bytes
    }

    /// The shard that owns a file holding `keys` (empty: no event), at `index` in the run.
    func fileOwner(keys: [SourceKey], index: Int) -> Int {
        guard let least = keys.min() else { return index % count + 1 }
        return Self.number(of: least, count: count)
    }
}

extension Shard {
    /// Why `rule` cannot be judged in shards and merged, or nil when it can.
    ///
    /// A generation or source rule is judged whole in the shard of its source. A corpus rule sees
    /// every file's items in one timeline: its verdict merges from per-shard parts only when each
    /// finding depends on one item alone — `classify` (label counts add up) and a `never` over the
    /// whole timeline whose selectors test fields only and whose message reads fields only. One
    /// that counts, orders or remembers items across the corpus (a `count`, a sequence, a history
    /// call, a `let`) would need every item in one place.
    public static func unmergeableReason(_ rule: Rule) -> String? {
        guard rule.scope == .corpus else { return nil }
        switch rule.check {
        case .classify:
            return nil
        case .never(let selector, .global):
            guard rule.lets.isEmpty else { return "its let: bindings may read the whole corpus" }
            guard Self.testsFieldsOnly(selector) else {
                return "its selector has a where: or not: that may read the whole corpus"
            }
            if let message = rule.message,
                zip(message.parts, message.holeKeys).contains(where: { part, key in
                    if case .expr = part { return key == nil }
                    return false
                })
            {
                return "its message computes more than an event's field"
            }
            return nil
        default:
            return "a corpus '\(rule.check.kindName)' check judges the whole corpus at once"
        }
    }

    private static func testsFieldsOnly(_ selector: Selector) -> Bool {
        selector.terms.allSatisfy { $0.whereExpr == nil && $0.negated == nil }
    }
}
