import ConnAudit

/// Reads a command line's options in order, for conn-peer and conn-soak: `--name value`,
/// `--name=value`, and flags.
///
/// A message names the option but never quotes a value: a mistyped `--token=...` must not print
/// the token.
///
/// ```swift
/// var reader = OptionReader(arguments, program: "conn-peer")
/// while let name = reader.next() {
///     switch name {
///     case "--log": settings.logPath = try reader.value()
///     case "--duration": settings.durationS = try reader.number(in: 1...86_400)
///     default: throw reader.unknown()
///     }
/// }
/// ```
public struct OptionReader {
    private let arguments: [String]
    private let program: String
    /// The index of the argument that holds the current option's name.
    private var index = -1
    private var name = ""
    private var inline: String?

    /// `arguments` without the program's name; `program` names it in messages.
    public init(_ arguments: [String], program: String) {
        self.arguments = arguments
        self.program = program
    }

    /// The next option's name (`--name` of `--name=value` too), or nil after the last.
    public mutating func next() -> String? {
        index += 1
        guard index < arguments.count else { return nil }
        let argument = arguments[index]
        name = argument
        inline = nil
        if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
            name = String(argument[..<eq])
            inline = String(argument[argument.index(after: eq)...])
        }
        return name
    }

    /// The current option's value: after its `=`, else the next argument.
    public mutating func value() throws(UsageError) -> String {
        if let inline { return inline }
        index += 1
        guard index < arguments.count else { throw UsageError("\(name) needs a value") }
        return arguments[index]
    }

    /// The current option's value as a whole number in `range`.
    public mutating func number(in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let n = Int(try value()), range.contains(n) else {
            throw UsageError(
                "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    /// The error for an option the program does not know, naming it without its value.
    public func unknown() -> UsageError {
        UsageError("unknown argument '\(name)' (\(program) --help lists the options)")
    }
}
