/// The options each command takes: what its parser accepts and what shell completions offer.
extension CommandLineTool {
    static let checkOptions: [ArgumentParser.Option] =
        [
            .init(name: "--rules", kind: .value, repeatable: true),
            .init(name: "--format", kind: .value),
            .init(name: "--output", kind: .value),
            .init(name: "--fail-on", kind: .value),
            .init(name: "--param", kind: .value, repeatable: true),
            .init(name: "--only", kind: .value, repeatable: true),
            .init(name: "--skip", kind: .value, repeatable: true),
            .init(name: "--jobs", kind: .value),
            .init(name: "--max-expansion", kind: .value),
            .init(name: "--color", kind: .value),
            .init(name: "--progress", kind: .value),
            .init(name: "--quiet", kind: .flag),
            .init(name: "--exact-baseline", kind: .value),
            .init(name: "--report", kind: .value, repeatable: true),
            .init(name: "--write-exact-baseline", kind: .value),
            .init(name: "--use", kind: .value),
            .init(name: "--shard", kind: .value),
            .init(name: "--show-config", kind: .flag)
        ] + everyCommandTakes

    /// `merge PART...`: the options of `check` but those of reading and sharding, which the
    /// shards had (their rule options the merge must repeat).
    static let mergeOptions = checkOptions.filter { !checkOnlyOptions.contains($0.name) }

    /// What `check` takes and `merge` does not: the merge reads no logs.
    static let checkOnlyOptions: Set = ["--jobs", "--progress", "--shard", "--show-config"]

    /// The config file's options and `--help`, which every command takes.
    static let everyCommandTakes: [ArgumentParser.Option] = [
        .init(name: "--config", kind: .value),
        .init(name: "--no-config", kind: .flag),
        .init(name: "--help", kind: .flag)
    ]

    /// Options read under their former names (see ``ArgumentParser/alias(_:as:)``); not offered
    /// by completions.
    static let formerNames = [
        "--baseline": "--exact-baseline", "--write-baseline": "--write-exact-baseline"
    ]
    /// The same as the parser's table entries.
    static let formerOptions: [ArgumentParser.Option] = formerNames.keys.sorted().map {
        .init(name: $0, kind: .value)
    }

    static let timelineOptions: [ArgumentParser.Option] =
        [
            .init(name: "--rules", kind: .value, repeatable: true),
            .init(name: "--src", kind: .value),
            .init(name: "--session", kind: .value),
            .init(name: "--stream", kind: .value),
            .init(name: "--gen", kind: .value),
            .init(name: "--around", kind: .value),
            .init(name: "--radius", kind: .value),
            .init(name: "--show", kind: .value),
            .init(name: "--format", kind: .value),
            .init(name: "--output", kind: .value),
            .init(name: "--param", kind: .value, repeatable: true),
            .init(name: "--jobs", kind: .value),
            .init(name: "--max-expansion", kind: .value),
            .init(name: "--color", kind: .value)
        ] + everyCommandTakes

    static let rulesOptions: [ArgumentParser.Option] =
        [
            .init(name: "--rules", kind: .value, repeatable: true),
            .init(name: "--check", kind: .flag),
            .init(name: "--list", kind: .flag),
            .init(name: "--explain", kind: .value),
            .init(name: "--test", kind: .flag),
            .init(name: "--format", kind: .value)
        ] + everyCommandTakes

    /// `args` parsed by `options`; nil when they ask for `--help`, once the command's `page` is
    /// printed. `bytes` as ``ArgumentParser/parse(_:bytes:)`` takes them.
    static func arguments(
        _ args: [String], bytes: [[UInt8]]? = nil, _ options: [ArgumentParser.Option],
        page: String, _ console: Console
    ) throws(UsageError) -> ArgumentParser? {
        var p = ArgumentParser(options)
        try p.parse(args, bytes: bytes)
        guard !p.has("--help") else {
            console.out(Help.page(for: page) + "\n")
            return nil
        }
        return p
    }

    /// The option table of `command` (`check` for any other name).
    static func options(of command: String) -> [ArgumentParser.Option] {
        switch command {
        case "timeline": return timelineOptions
        case "rules": return rulesOptions
        case "merge": return mergeOptions
        default: return checkOptions
        }
    }
}
