/// A JSON value as rules see it.
///
/// Numbers keep whether they were written as a JSON integer (no fraction, no exponent) because
/// connlog gives that a meaning (`gen`, `attempt`, SSE ids compare as their decimal text).
public enum Value: Sendable, Equatable, Hashable {
    case null
    case bool(Bool)
    /// A JSON integer that fits in 64 bits.
    case int(Int64)
    /// Any other JSON number (a fraction, an exponent, or an integer too large for 64 bits).
    case double(Double)
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

    /// The numeric value, if this is a number.
    @inlinable public var number: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
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
        case .int: return "int"
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
        default: return nil
        }
    }

    /// Looks up a key of an object value (the last occurrence wins, as for duplicate JSON keys).
    public subscript(key: String) -> Value? {
        guard case .object(let entries) = self else { return nil }
        return entries.last(where: { $0.key == key })?.value
    }

    /// Equality as rules mean it: numbers compare by value whatever their spelling (`1 == 1.0`).
    public func looselyEquals(_ other: Value) -> Bool {
        if let a = number, let b = other.number { return a == b }
        return self == other
    }

    /// A short JSON-like rendering for messages and reports (strings unquoted when `bare`).
    public func rendered(bare: Bool = true) -> String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d):
            if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) + (bare ? "" : ".0") }
            return String(d)
        case .string(let s): return bare ? s : "\"" + s + "\""
        case .array(let items): return "[" + items.map { $0.rendered(bare: false) }.joined(separator: ",") + "]"
        case .object(let entries):
            return "{" + entries.map { "\"\($0.key)\":" + $0.value.rendered(bare: false) }.joined(separator: ",") + "}"
        }
    }
}
