// MARK: - Values

/// A field value the seed ports write: the JSON types the connlog vocabulary uses.
enum ConnlogValue: Equatable, Sendable, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral,
    ExpressibleByBooleanLiteral
{
    case int(Int)
    case string(String)
    case bool(Bool)

    init(integerLiteral value: Int) { self = .int(value) }
    init(stringLiteral value: String) { self = .string(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }

    /// The value as JSON text.
    var json: String {
        switch self {
        case .int(let n): return String(n)
        case .bool(let b): return b ? "true" : "false"
        case .string(let s): return ConnlogValue.quote(s)
        }
    }

    var intValue: Int? {
        if case .int(let n) = self { return n }
        return nil
    }

    var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

// MARK: - Writer

/// Writes connlog v1 lines (JSON Lines) as a seed port's model acts, and remembers what it wrote.
///
/// Every line carries `t`, `src` and `ev`, then the given fields in order. The writer keeps a
/// structured copy of each line so a test can name the line a violation should point at ("the
/// first `ws.reconnect` after the first `ws.pong`") without re-parsing the text, and named marks
/// for lines a scenario step wrote.
struct ConnlogWriter: Sendable {
    /// One written line.
    struct Record: Sendable {
        /// 1-based, as `log.malformed` and every violation count lines.
        var line: Int
        var t: Int
        var ev: String
        var fields: [(key: String, value: ConnlogValue)]

        subscript(_ key: String) -> ConnlogValue? {
            fields.last { $0.key == key }?.value
        }
    }

    /// The `src` of every line (one source per log).
    let src: String
    /// The path the log is served under when it is audited.
    let path: String
    private(set) var records: [Record] = []
    private var rendered: [String] = []
    private var marks: [String: Int] = [:]

    init(src: String, path: String? = nil) {
        self.src = src
        self.path = path ?? "\(src).jsonl"
    }

    /// Appends one event and returns its line number.
    ///
    /// - Precondition: `t` never decreases (the models run on one monotonic clock).
    @discardableResult
    mutating func write(_ t: Int, _ ev: String, _ fields: KeyValuePairs<String, ConnlogValue> = [:])
        -> Int
    {
        precondition(t >= (records.last?.t ?? 0), "\(ev) at t=\(t) goes back in time")
        let line = records.count + 1
        var json = "{\"t\":\(t),\"src\":\(ConnlogValue.quote(src)),\"ev\":\(ConnlogValue.quote(ev))"
        for (key, value) in fields { json += ",\(ConnlogValue.quote(key)):\(value.json)" }
        json += "}"
        rendered.append(json)
        records.append(
            Record(line: line, t: t, ev: ev, fields: fields.map { (key: $0.key, value: $0.value) }))
        return line
    }

    /// The log as JSON Lines, each line ended by `\n`.
    var text: String { rendered.map { $0 + "\n" }.joined() }

    /// The number of lines written so far.
    var lineCount: Int { records.count }

    // MARK: Finding lines

    /// Names the line the next `write` will produce (whether or not anything is written).
    mutating func markNext(_ name: String) { marks[name] = records.count + 1 }

    /// The line named by `markNext`.
    func line(marked name: String) -> Int? { marks[name] }

    /// The lines of `ev` after line `after` whose record satisfies `predicate`, in order.
    func lines(_ ev: String, after: Int = 0, where predicate: (Record) -> Bool = { _ in true })
        -> [Int]
    {
        records.filter { $0.line > after && $0.ev == ev && predicate($0) }.map(\.line)
    }

    /// The first line of `ev` after line `after` whose record satisfies `predicate`.
    func firstLine(_ ev: String, after: Int = 0, where predicate: (Record) -> Bool = { _ in true })
        -> Int?
    {
        lines(ev, after: after, where: predicate).first
    }

    /// The record at a 1-based line.
    func record(at line: Int) -> Record? {
        records.indices.contains(line - 1) ? records[line - 1] : nil
    }
}
