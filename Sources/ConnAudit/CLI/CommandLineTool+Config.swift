/// The config file in a command: found or named, laid beneath the command line, and shown.
extension CommandLineTool {
    /// What a command runs with once its config file is read.
    struct Settings {
        var config: RunConfig?
        /// Whether the rules came from the config file and go on top of the built-in pack.
        var extendsBuiltin = false
    }

    /// Reads the config file (`--config FILE`, else the nearest `.conn-audit.yaml`; none with
    /// `--no-config`) and fills `p` with what the command line did not give (its `paths` too
    /// when `takesPaths`; only the options in `keys` when given: a timeline takes the file's rules
    /// and params, not the check's report format or output).
    static func applyConfig(
        _ p: inout ArgumentParser, takesPaths: Bool = true, only keys: Set<String>? = nil
    ) throws -> Settings {
        for (former, name) in formerNames { try p.alias(former, as: name) }
        if p.has("--config"), p.has("--no-config") {
            throw UsageError("--config and --no-config: give one")
        }
        let config: RunConfig?
        if let named = p.value("--config") {
            let slash = named.lastIndex(of: "/")
            config = try RunConfig.load(named, base: slash.map { String(named[...$0]) } ?? "")
        } else if !p.has("--no-config"), let cwd = RunConfig.workingDirectory(),
            let found = RunConfig.find(from: cwd)
        {
            config = try RunConfig.load(found.path, base: found.base)
        } else {
            config = nil
        }
        guard let config else { return Settings() }
        let rulesGiven = p.has("--rules")
        p.fill(
            from: config.options, paths: takesPaths ? config.paths.map(config.resolved) : [],
            only: keys)
        return Settings(
            config: config,
            extendsBuiltin: !rulesGiven && !config.rules.isEmpty && config.builtinRules)
    }

    /// The rules a command runs: `--rules` (or the config's, on top of the built-in pack when it
    /// says so) plus the reader rules, or the built-in pack. `fixtures`: see
    /// ``loadRules(_:fixtures:)``.
    static func loadRules(for p: ArgumentParser, _ settings: Settings, fixtures: Bool)
        throws(DiagnosticList) -> RuleSet
    {
        guard settings.extendsBuiltin else { return try loadRulesForRun(p.all("--rules")) }
        var set = try loadRules(p.all("--rules"), fixtures: fixtures)
        let builtin = RuleLoader.builtin(fixtures: fixtures)
        // A rule of the config's that takes a built-in id would judge twice under one name.
        let clashes = set.rules.filter { r in builtin.rules.contains { $0.id == r.id } }
        if !clashes.isEmpty {
            throw DiagnosticList(
                clashes.map { r in
                    Diagnostic(
                        path: r.file, line: r.line, column: 1,
                        message:
                            "rule id '\(r.id)' is a built-in rule's: rename it, or say builtin-rules: false in the config"
                    )
                })
        }
        set.rules = builtin.rules + set.rules
        set.warnings = builtin.warnings + set.warnings
        return set
    }

    /// Checks each param the config file gave against `rules`: one they refuse is an error at its
    /// place in the file (it was never typed as a `--param`).
    static func checkFileParams(_ p: ArgumentParser, _ settings: Settings, rules: [Rule]) throws {
        guard let config = settings.config else { return }
        for item in p.all("--param") where p.fileParams.contains(item) {
            do {
                _ = try parseParams([item], rules: rules)
            } catch {
                let place = config.paramPlaces[item] ?? (1, 1)
                let message =
                    error.message.hasPrefix("--param ")
                    ? String(error.message.dropFirst(8)) : error.message
                throw ConfigError(
                    path: config.path,
                    diagnostics: [
                        Diagnostic(
                            path: config.path, line: place.line, column: place.column,
                            message: "param " + message, in: config.text)
                    ])
            }
        }
    }

    /// The rules `rules --list/--check/--test/--explain` speak of: `--rules` alone (without the
    /// reader rules a run adds), or the config's on top of the built-in pack.
    static func loadRulesOfCommand(_ p: ArgumentParser, _ settings: Settings) throws(DiagnosticList)
        -> RuleSet
    {
        settings.extendsBuiltin
            ? try loadRules(for: p, settings, fixtures: true)
            : try loadRules(p.all("--rules"), fixtures: true)
    }

    /// `--show-config`: what is in force, as a config file (YAML): read back from the same
    /// directory, it puts the same settings in force.
    static func shownConfig(_ p: ArgumentParser, _ settings: Settings) -> String {
        let suppressions = settings.config?.suppressions ?? []
        // Printed: a token written in the file is redacted (the reason already is, when loaded).
        func q(_ s: String) -> String { Value.jsonString(SecretRedaction.text(s)) }
        func list(_ items: [String]) -> String { "[" + items.map(q).joined(separator: ", ") + "]" }
        var out = "# in force: "
        out +=
            settings.config.map { "\(q($0.path)) beneath the command line" }
            ?? "the command line (no config file)"
        out += "\n"
        out += "paths: \(list(p.positionals))\n"
        let rules = p.all("--rules")
        out += "builtin-rules: \(rules.isEmpty || settings.extendsBuiltin)\n"
        out += "rules: \(list(rules))\n"
        out += "only: \(list(p.all("--only")))\n"
        out += "skip: \(list(p.all("--skip")))\n"
        var params: [(String, String)] = []
        for item in p.all("--param") {
            guard let eq = item.firstIndex(of: "=") else { continue }
            let name = String(item[..<eq]), value = String(item[item.index(after: eq)...])
            if let i = params.firstIndex(where: { $0.0 == name }) {
                params[i].1 = value
            } else {
                params.append((name, value))
            }
        }
        out += "params: {" + params.map { "\(q($0.0)): \(q($0.1))" }.joined(separator: ", ") + "}\n"
        out += "fail-on: \(p.value("--fail-on") ?? "error")\n"
        out += "use: \(p.value("--use") ?? RunUse.corpus.rawValue)\n"
        out += "format: \(p.value("--format") ?? "text")\n"
        out += p.value("--output").map { "output: \(q($0))\n" } ?? ""
        var reports: [String] = []
        for item in p.all("--report") {
            guard let eq = item.firstIndex(of: "=") else { continue }
            reports.append("\(item[..<eq]): \(q(String(item[item.index(after: eq)...])))")
        }
        out += "reports: {" + reports.joined(separator: ", ") + "}\n"
        out += p.value("--exact-baseline").map { "exact-baseline: \(q($0))\n" } ?? ""
        out += "jobs: \(p.value("--jobs") ?? String(Auditor.defaultJobs))\n"
        if suppressions.isEmpty {
            out += "suppressions: []\n"
        } else {
            out += "suppressions:\n"
            for s in suppressions {
                out += "  # \(s.origin)\n"
                out += "  - rule: \(q(s.rule))\n"
                for (key, value) in [
                    ("src", s.src), ("session", s.session), ("file", s.file), ("message", s.message)
                ] {
                    if let value { out += "    \(key): \(q(value))\n" }
                }
                if !s.fields.isEmpty {
                    out +=
                        "    fields: {"
                        + s.fields.map { "\(q($0.name)): \(q($0.pattern))" }.joined(separator: ", ")
                        + "}\n"
                }
                out += "    reason: \(q(s.reason))\n"
                out += "    expires: \(s.expires)\n"
            }
        }
        return out
    }

    /// The config's suppressions, each of whose rule patterns must name a loaded rule.
    static func checkedSuppressions(_ settings: Settings, rules: [Rule]) throws(UsageError)
        -> [Suppression]
    {
        let entries = settings.config?.suppressions ?? []
        for s in entries where !rules.contains(where: { s.covers(rule: $0.id) }) {
            throw UsageError(
                "the suppression at \(s.origin) names no loaded rule: '\(s.rule)'"
                    + Suggestions.hint(for: s.rule, among: rules.map(\.id)))
        }
        return entries
    }
}
