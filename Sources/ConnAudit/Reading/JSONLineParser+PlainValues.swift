/// The fast path's values of keys other than connlog's own (``JSONLineParser/parsePlain(_:into:)``
/// and ``JSONLineParser/readPairsAfterSpan(_:into:from:)`` read them alike): a plain string, a
/// number, `true`, `false` or `null`, stepped over or decoded. Anything else, and a string that
/// may hold a token, is the general parser's.
extension JSONLineParser {
    /// Steps `i` past the plain value at `i`, whose first byte is `first`, without making a
    /// value: a string is checked for tokens as a decoded one is. False when it is not a plain
    /// value. A string, the common case, is read inline; any other value apart.
    @inline(__always)
    static func stepOverPlainValue(
        _ p: UnsafePointer<UInt8>, _ i: inout Int, _ n: Int, _ first: UInt8
    ) -> Bool {
        guard first == UInt8(ascii: "\"") else { return stepOverPlainScalar(p, &i, n, first) }
        guard let close = plainStringEnd(p, from: i &+ 1, count: n) else { return false }
        // A token takes at least ten bytes (``mayHoldToken(_:)``).
        if close &- i &- 1 >= 10 {
            let bytes = UnsafeBufferPointer(start: p + (i &+ 1), count: close &- i &- 1)
            if mayHoldToken(bytes), containsToken(bytes) { return false }
        }
        i = close &+ 1
        return true
    }

    /// ``stepOverPlainValue(_:_:_:_:)`` of a value that is not a string.
    @inline(never)
    static func stepOverPlainScalar(
        _ p: UnsafePointer<UInt8>, _ i: inout Int, _ n: Int, _ first: UInt8
    ) -> Bool {
        switch first {
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard plainInteger(p, &i, n) != nil || skipNumber(p, &i, n) else { return false }
        case UInt8(ascii: "t"):
            guard literal(p, &i, n, 0x65_75_72_74) else { return false }
        case UInt8(ascii: "f"):
            guard i + 5 <= n, p[i + 4] == UInt8(ascii: "e"), literal(p, &i, n, 0x73_6C_61_66)
            else { return false }
            i += 1
        case UInt8(ascii: "n"):
            guard literal(p, &i, n, 0x6C_6C_75_6E) else { return false }
        default:
            return false
        }
        return true
    }

    /// The plain value at `i`, whose first byte is `first`, decoded; `i` is then past it. Nil
    /// when it is not a plain value.
    @inline(__always)
    func parsePlainValue(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ n: Int, _ first: UInt8)
        -> Value?
    {
        switch first {
        case UInt8(ascii: "\""):
            guard let close = Self.plainStringEnd(p, from: i + 1, count: n) else { return nil }
            let bytes = UnsafeBufferPointer(start: p + i + 1, count: close - i - 1)
            i = close + 1
            if Self.mayHoldToken(bytes), Self.containsToken(bytes) { return nil }
            // Plain text is ASCII: a short one is made from its words.
            if bytes.count <= 15, shortTextsByWords {
                let (w0, w1) = Self.shortWords(p, close &- bytes.count, bytes.count, n)
                return .string(ShortASCIIText.make(w0, w1, count: bytes.count))
            }
            return .string(String(decoding: bytes, as: UTF8.self))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            if let v = Self.plainInteger(p, &i, n) { return .int(v) }
            do throws(JSONSyntaxError) {
                return try parseNumber(p, &i, n, decode: true)
            } catch {
                return nil
            }
        case UInt8(ascii: "t"):
            guard Self.literal(p, &i, n, 0x65_75_72_74) else { return nil }
            return .bool(true)
        case UInt8(ascii: "f"):
            guard i + 5 <= n, p[i + 4] == UInt8(ascii: "e"), Self.literal(p, &i, n, 0x73_6C_61_66)
            else { return nil }
            i += 1
            return .bool(false)
        case UInt8(ascii: "n"):
            guard Self.literal(p, &i, n, 0x6C_6C_75_6E) else { return nil }
            return .null
        default:
            return nil
        }
    }

    /// The field a decoded value makes under `key`: named by the rules' own name of it
    /// (``wantedNames``, with its id) when `wantedIndex` is one, else by the key's bytes.
    @inline(__always)
    func plainField(_ wantedIndex: Int32, _ key: UnsafeBufferPointer<UInt8>, _ value: Value)
        -> Event.Field
    {
        wantedIndex >= 0
            ? Event.Field(wantedName(wantedIndex), value, id: wantedIDs[Int(wantedIndex)])
            : Event.Field(String(decoding: key, as: UTF8.self), value, id: -1)
    }

    /// Name `index` of ``wantedNames``. A short name is an immortal String, which the runtime
    /// never counts: its words are copied over an immortal String, with no call to count a
    /// reference.
    @inline(__always)
    func wantedName(_ index: Int32) -> String {
        var name = ""
        wantedNames.withUnsafeBufferPointer { names in
            let kept = UnsafeRawPointer(names.baseAddress.unsafelyUnwrapped + Int(index))
            if Self.isImmortal(kept) {
                withUnsafeMutableBytes(of: &name) {
                    $0.baseAddress!.copyMemory(from: kept, byteCount: 16)
                }
            } else {
                name = names[Int(index)]
            }
        }
        return name
    }
}
