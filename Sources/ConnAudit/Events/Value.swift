/// A JSON value as rules see it.
///
/// Numbers keep whether they were written as a JSON integer (no fraction, no exponent) because
/// connlog gives that a meaning (`gen`, `attempt`, SSE ids compare as their decimal text).
public enum Value: Sendable, Equatable, Hashable {
    case null
    case bool(Bool)
    /// A JSON integer that fits in 64 bits.
    case int(Int64)
    /// Any other JSON number (a fraction or an exponent).
    case double(Double)
    /// A JSON integer outside `Int64`'s range, as its decimal text (an optional `-`, then digits
    /// without leading zeros): it compares exactly with other JSON integers, is a number (a double,
    /// rounded) where arithmetic needs one, its digits where text is (SSE ids compare as their
    /// decimal text).
    case bigInt(String)
    case string(String)
    case array([Value])
    case object([ObjectEntry])

    public struct ObjectEntry: Sendable, Equatable, Hashable {
        public var key: String
        public var value: Value
        public init(_ key: String, _ value: Value) {
            self.key = key
            self.value = value
        }
    }

    /// A JSON integer from 0 to 2^64 − 1 (a `gen`) as rules see it: `.int` when it fits `Int64`,
    /// else `.bigInt`, as the parser reads any other field holding that integer.
    @inline(__always) public static func integer(_ u: UInt64) -> Value {
        u <= UInt64(Int64.max) ? .int(Int64(u)) : .bigInt(String(u))
    }

    /// The numeric value, if this is a number.
    @inlinable public var number: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .bigInt(let s): return Double(s)
        default: return nil
        }
    }

    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// The name `type(x)` returns.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "bool"
        case .int, .bigInt: return "int"
        case .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// `text(x)`: a string as itself, a JSON integer as its decimal text; nil for anything else.
    public var text: String? {
        switch self {
        case .string(let s): return s
        case .int(let i): return String(i)
        case .bigInt(let s): return s
        default: return nil
        }
    }

    /// Looks up a key of an object value (the last occurrence wins, as for duplicate JSON keys).
    public subscript(key: String) -> Value? {
        guard case .object(let entries) = self else { return nil }
        return entries.last(where: { $0.key == key })?.value
    }

    /// Equality as rules mean it: numbers compare by value whatever their spelling (`1 == 1.0`).
    /// Two JSON integers compare exactly, all 64 bits of them: as doubles, integers from 2^53 up
    /// round alike (a `gen` taken from a nanosecond clock, 2^53 and 2^53 + 1).
    public func looselyEquals(_ other: Value) -> Bool {
        if case .int(let i) = self, case .int(let j) = other { return i == j }
        // Integers beyond 64 bits are equal by their digits, and never equal one within them
        // (as doubles, 2^63 and Int64.max would be): decided before either is read as a double,
        // which would parse its digits (a `gen` from 2^63 up is compared on every event).
        if case .bigInt(let x) = self {
            if case .bigInt(let y) = other { return x == y }
            if case .int = other { return false }
        } else if case .bigInt = other, case .int = self {
            return false
        }
        if let a = number, let b = other.number { return a == b }
        return self == other
    }

    /// How two numbers order: -1, 0 or 1; nil when either is not a number, or is NaN. Two JSON
    /// integers compare exactly, whatever their size (see ``looselyEquals(_:)``; a `gen` of
    /// 2^63 + 1 is after one of 2^63), any other pair by value as doubles.
    @inline(__always) public func numericOrder(_ other: Value) -> Int? {
        if case .int(let i) = self, case .int(let j) = other { return i < j ? -1 : (i > j ? 1 : 0) }
        if case .bigInt = self { return Self.bigIntOrder(self, other) }
        if case .bigInt = other { return Self.bigIntOrder(self, other) }
        guard let p = number, let q = other.number, !p.isNaN, !q.isNaN else { return nil }
        return p < q ? -1 : (p > q ? 1 : 0)
    }

    /// ``numericOrder(_:)`` when `a` or `b` is a `.bigInt`: exact against another JSON integer (a
    /// `.bigInt` is outside `Int64`'s range, so a positive one is above every `.int` and a negative
    /// one below; two compare by sign, then number of digits, then digits), as doubles against any
    /// other number. Out of line: the code for the common pairs stays short.
    @inline(never) static func bigIntOrder(_ a: Value, _ b: Value) -> Int? {
        switch (a, b) {
        case (.bigInt(let x), .bigInt(let y)): return integerTextOrder(x, y)
        case (.bigInt(let x), .int): return x.utf8.first == UInt8(ascii: "-") ? -1 : 1
        case (.int, .bigInt(let y)): return y.utf8.first == UInt8(ascii: "-") ? 1 : -1
        default:
            guard let p = a.number, let q = b.number, !p.isNaN, !q.isNaN else { return nil }
            return p < q ? -1 : (p > q ? 1 : 0)
        }
    }

    /// How two JSON integers written as decimal text (an optional `-`, digits without leading
    /// zeros, no `-0`) order: -1, 0 or 1.
    static func integerTextOrder(_ x: String, _ y: String) -> Int {
        let minus = UInt8(ascii: "-")
        let xNegative = x.utf8.first == minus, yNegative = y.utf8.first == minus
        if xNegative != yNegative { return xNegative ? -1 : 1 }
        // The same sign: the longer text is the larger magnitude, texts of one length order by
        // their digits (`-` sorts alike on both).
        let magnitude: Int
        let m = x.utf8.count, n = y.utf8.count
        if m != n {
            magnitude = m < n ? -1 : 1
        } else if x.utf8.elementsEqual(y.utf8) {
            return 0
        } else {
            magnitude = x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1
        }
        return xNegative ? -magnitude : magnitude
    }

    /// How two values order for `<`, `<=`, `>`, `>=` (and a selector's `lt`/`gt` tests): numbers
    /// as ``numericOrder(_:)``, two strings by their text; nil for any other pair, or NaN.
    @inline(__always) public func order(_ other: Value) -> Int? {
        if let o = numericOrder(other) { return o }
        if case .string(let s) = self, case .string(let t) = other {
            return s < t ? -1 : (s > t ? 1 : 0)
        }
        return nil
    }

    /// A rendering for messages and reports: JSON (strings quoted and escaped, a whole double
    /// with `.0`), except that a top-level string is shown as it is when `bare`, and a whole
    /// double without `.0`. Not bare, it is the value's JSON text (non-finite numbers, which no
    /// log holds, as `null`).
    public func rendered(bare: Bool = true) -> String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .bigInt(let s): return s
        case .double(let d):
            if bare, d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
            return bare || d.isFinite ? String(d) : "null"
        case .string(let s): return bare ? s : Self.jsonString(s)
        case .array(let items):
            return "[" + items.map { $0.rendered(bare: false) }.joined(separator: ",") + "]"
        case .object(let entries):
            return "{"
                + entries.map { Self.jsonString($0.key) + ":" + $0.value.rendered(bare: false) }
                .joined(separator: ",") + "}"
        }
    }

    /// ``rendered(bare:)`` (not bare) for a line of a report, a long value clipped
    /// (``String/clipped(bytes:)``): a string's text is clipped before it is quoted and escaped —
    /// `"xxx…x"… (5302 bytes)`, `N` the string's own length, as in a message — so no escape is
    /// cut in two.
    public func renderedClipped() -> String {
        if case .string(let s) = self, let head = s.clippedHead() {
            return Self.jsonString(head) + String.clipMark(s.utf8.count)
        }
        return rendered(bare: false).clipped()
    }

    /// `s` as a JSON string: quoted, with `"`, `\\`, control characters, DEL and the line and
    /// paragraph separators escaped.
    public static func jsonString(_ s: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count + 2)
        JSONEscape.appendQuoted(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
