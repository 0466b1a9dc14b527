/// A small JSON writer: objects keep the order keys are written in, so output is stable.
struct JSONWriter {
    private(set) var text = ""
    private var needsComma: [Bool] = [false]
    private let pretty: Bool
    private var depth: Int { needsComma.count - 1 }

    init(pretty: Bool = true) { self.pretty = pretty }

    private mutating func separator() {
        if needsComma[needsComma.count - 1] { text += "," }
        needsComma[needsComma.count - 1] = true
        if pretty && depth > 0 { text += "\n" + String(repeating: "  ", count: depth) }
    }

    mutating func beginObject(_ key: String? = nil) { open(key, "{") }
    mutating func endObject() { close("}") }
    mutating func beginArray(_ key: String? = nil) { open(key, "[") }
    mutating func endArray() { close("]") }

    private mutating func open(_ key: String?, _ bracket: String) {
        separator()
        if let key { text += Self.quote(key) + (pretty ? ": " : ":") }
        text += bracket
        needsComma.append(false)
    }

    private mutating func close(_ bracket: String) {
        let hadItems = needsComma.removeLast()
        if pretty && hadItems { text += "\n" + String(repeating: "  ", count: depth) }
        text += bracket
    }

    mutating func key(_ key: String, _ value: String?) { raw(key, value.map(Self.quote) ?? "null") }
    mutating func key(_ key: String, _ value: Int) { raw(key, String(value)) }
    mutating func key(_ key: String, _ value: Bool) { raw(key, value ? "true" : "false") }
    mutating func key(_ key: String, number: Double?) { raw(key, number.map(Self.number) ?? "null") }
    mutating func value(_ s: String) { raw(nil, Self.quote(s)) }

    mutating func raw(_ key: String?, _ json: String) {
        separator()
        if let key { text += Self.quote(key) + (pretty ? ": " : ":") }
        text += json
    }

    static func number(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 9e15 { return String(Int64(d)) }
        return d.isFinite ? String(d) : "null"
    }

    static func quote(_ s: String) -> String { Value.jsonString(s) }
}
