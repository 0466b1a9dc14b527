/// A small table-driven argument parser: `--k v`, `--k=v`, flags, the short forms of
/// ``shortOptions`` (`-j 2`, `-j2`), `--` and `-` for stdin.
struct ArgumentParser {
    enum Kind { case flag, value }
    struct Option {
        var name: String
        var kind: Kind
        var repeatable = false
    }

    let options: [String: Option]
    /// The short forms, each taken by a command only when it has the long option.
    static let shortOptions = [
        "-o": "--output", "-f": "--format", "-j": "--jobs", "-q": "--quiet", "-h": "--help"
    ]
    private(set) var values: [String: [String]] = [:]
    private(set) var positionals: [String] = []
    /// ``positionals`` as the bytes they were given as (a file name need not be UTF-8).
    private(set) var positionalBytes: [[UInt8]] = []

    init(_ options: [Option]) {
        var table: [String: Option] = [:]
        for o in options { table[o.name] = o }
        self.options = table
    }

    /// Parses `args`; `bytes`, when given, holds each argument's bytes as the command line had them
    /// (`args` are their text, decoded with repair), and is where ``positionalBytes`` come from.
    mutating func parse(_ args: [String], bytes: [[UInt8]]? = nil) throws(UsageError) {
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if onlyPositionals || arg == "-" || !arg.hasPrefix("-") {
                positionals.append(arg)
                positionalBytes.append(bytes.map { $0[i - 1] } ?? Array(arg.utf8))
                continue
            }
            if arg == "--" {
                onlyPositionals = true
                continue
            }
            var name = arg
            var inline: String?
            if !arg.hasPrefix("--"), arg.count >= 2,
                let long = Self.shortOptions[String(arg.prefix(2))],
                let option = options[long]
            {
                // A short option: `-j 2`, `-j2`, `-q`.
                name = long
                let rest = String(arg.dropFirst(2))
                if !rest.isEmpty {
                    guard option.kind == .value else {
                        throw UsageError("option '\(arg.prefix(2))' takes no value")
                    }
                    inline = rest
                }
            } else if let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            guard let option = options[name] else {
                let hint = Suggestions.hint(for: name, among: Array(options.keys))
                throw UsageError("unknown option '\(name)'\(hint)")
            }
            switch option.kind {
            case .flag:
                if inline != nil { throw UsageError("option '\(name)' takes no value") }
                values[name, default: []].append("")
            case .value:
                let value: String
                if let inline {
                    value = inline
                } else {
                    guard i < args.count else { throw UsageError("option '\(name)' needs a value") }
                    value = args[i]
                    i += 1
                }
                if !option.repeatable, values[name] != nil {
                    throw UsageError("option '\(name)' given more than once")
                }
                values[name, default: []].append(value)
            }
        }
    }

    /// Settings of a config file beneath the command line's: an option the command line did not
    /// give takes the file's values, except `--param`, whose file values come first (a later
    /// value of one name wins, so the command line's do); the file's PATHs when none was given.
    mutating func fill(
        from file: [String: [String]], paths: [String], only keys: Set<String>? = nil
    ) {
        for (name, items) in file
        where !items.isEmpty && options[name] != nil && keys?.contains(name) != false {
            if name == "--param" {
                // A param the command line sets, bare or for one rule, drops the file's values of
                // it (a file's `RULE_ID.NAME` would otherwise beat the command line's `NAME`).
                let given = Set(all(name).map(Self.paramName))
                let kept = items.filter { !given.contains(Self.paramName($0)) }
                fileParams = Set(kept)
                values[name] = kept + (values[name] ?? [])
            } else if values[name] == nil {
                values[name] = items
            }
        }
        if positionals.isEmpty, !paths.isEmpty {
            positionals = paths
            positionalBytes = paths.map { Array($0.utf8) }
        }
    }

    /// The `--param` values that came from a config file (see ``fill(from:paths:only:)``).
    private(set) var fileParams: Set<String> = []

    /// The param a `--param` value sets: `NAME` of `NAME=VALUE` or `RULE_ID.NAME=VALUE`.
    static func paramName(_ item: String) -> Substring {
        let name = item.prefix { $0 != "=" }
        return name.lastIndex(of: ".").map { name[name.index(after: $0)...] } ?? name
    }

    /// Leaves out the config file's params that `keep` refuses (those no selected rule has).
    mutating func dropFileParams(where drop: (String) -> Bool) {
        guard let items = values["--param"] else { return }
        values["--param"] = items.filter { !(fileParams.contains($0) && drop($0)) }
    }

    /// Reads an option given under its former name as `name` (both given: a usage error).
    mutating func alias(_ former: String, as name: String) throws(UsageError) {
        guard let items = values.removeValue(forKey: former) else { return }
        if values[name] != nil {
            throw UsageError("\(former) and \(name) are the same option: give one")
        }
        values[name] = items
    }

    /// ``positionalBytes`` as reports show file names (``InputFile/shown(_:)``).
    var shownPositionals: [String] { positionalBytes.map(InputFile.shown) }

    func has(_ name: String) -> Bool { values[name] != nil }
    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
}
