// The rules a run judges with: the pack and the files given, --only/--skip, and --param.

extension CommandLineTool {
    /// The rules of `paths`, or the built-in pack; `fixtures`: whether the built-in pack's rules
    /// keep their `tests:` (a run never reads them; rule files keep theirs either way).
    static func loadRules(_ paths: [String], fixtures: Bool) throws(DiagnosticList) -> RuleSet {
        paths.isEmpty
            ? RuleLoader.builtin(fixtures: fixtures) : try RuleLoader.load(paths: paths)
    }

    /// The rules a run judges with: the given rules, plus the built-in reader rules (`log.*`:
    /// malformed lines, secrets, time going back) that they do not define themselves. A bad line is
    /// never silently dropped (connlog.md), whatever pack is loaded; `--skip 'log.*'` leaves them
    /// out on purpose.
    static func loadRulesForRun(_ paths: [String]) throws(DiagnosticList) -> RuleSet {
        var set = try loadRules(paths, fixtures: false)
        guard !paths.isEmpty else { return set }
        let defined = Set(set.rules.map(\.id))
        set.rules += RuleLoader.builtin(only: RuleLoader.readerRulesFile, fixtures: false).rules
            .filter {
                !defined.contains($0.id)
            }
        return set
    }

    /// `--only`/`--skip`: ids or globs; a pattern that matches no rule is a usage error.
    static func select(_ rules: [Rule], only: [String], skip: [String]) throws(UsageError) -> [Rule]
    {
        for pattern in only + skip
        where !rules.contains(where: { GlobPattern(pattern).matches($0.id) }) {
            let hint = Suggestions.hint(for: pattern, among: rules.map(\.id))
            throw UsageError("no rule matches '\(pattern)'\(hint) (see 'conn-audit rules --list')")
        }
        return rules.filter { rule in
            (only.isEmpty || only.contains { GlobPattern($0).matches(rule.id) })
                && !skip.contains { GlobPattern($0).matches(rule.id) }
        }
    }

    /// `--param NAME=VALUE` or `RULE_ID.NAME=VALUE`; the name must be a param of a selected rule.
    static func parseParams(_ items: [String], rules: [Rule]) throws(UsageError) -> [String: Value]
    {
        var out: [String: Value] = [:]
        for item in items {
            guard let eq = item.firstIndex(of: "="), eq != item.startIndex else {
                throw UsageError("--param takes NAME=VALUE, not '\(item)'")
            }
            let name = String(item[..<eq])
            let raw = String(item[item.index(after: eq)...])
            // The defaults this overrides: its value must be of their kind.
            let defaults: [(rule: String, value: Value)]
            if let dot = name.lastIndex(of: "."),
                let rule = rules.first(where: { $0.id == name[..<dot] })
            {
                defaults =
                    rule.params[String(name[name.index(after: dot)...])].map { [(rule.id, $0)] }
                    ?? []
            } else {
                defaults = rules.compactMap { r in r.params[name].map { (r.id, $0) } }
            }
            guard !defaults.isEmpty else {
                throw UsageError("--param \(name): no selected rule has a param of that name")
            }
            let value = typedParam(raw)
            for d in defaults {
                switch d.value {
                case .int, .double:
                    guard value.number != nil else {
                        throw UsageError(
                            "--param \(name)=\(raw): \(d.rule) needs a number here (default \(d.value.rendered()))"
                        )
                    }
                case .bool:
                    guard case .bool = value else {
                        throw UsageError(
                            "--param \(name)=\(raw): \(d.rule) needs true or false here (default \(d.value.rendered()))"
                        )
                    }
                default:
                    break
                }
            }
            // A param a count bound names (`max: params.n`) must stay a whole number >= 0.
            let paramName =
                name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) } ?? name
            for r in rules
            where r.boundParams.values.contains(paramName)
                && defaults.contains(where: { $0.rule == r.id })
            {
                guard FileLoader.wholeCount(value) != nil else {
                    throw UsageError(
                        "--param \(name)=\(raw): \(r.id) counts with it: it needs a whole number >= 0"
                    )
                }
            }
            // A param whose defaults are all strings takes the text as written (`--param x=42` is
            // "42").
            let allText = defaults.allSatisfy {
                if case .string = $0.value { return true } else { return false }
            }
            out[name] = allText ? .string(raw) : value
        }
        // Bounds moved by params must still leave room: min <= max, as the loader checks in a file.
        for r in rules where !r.boundParams.isEmpty {
            if case .count(_, let lo?, let hi?, _) = CompiledRule(rule: r, index: 0, overrides: out)
                .rule.check, lo > hi
            {
                throw UsageError(
                    "--param: \(r.id) would count at least \(lo) and at most \(hi) (min > max)")
            }
        }
        return out
    }

    /// Whether `name` (`NAME` or `RULE_ID.NAME`) is a param of one of `rules`.
    static func someRule(_ rules: [Rule], hasParam name: String) -> Bool {
        if let dot = name.lastIndex(of: "."),
            let rule = rules.first(where: { $0.id == name[..<dot] })
        {
            return rule.params[String(name[name.index(after: dot)...])] != nil
        }
        return rules.contains { $0.params[name] != nil }
    }

    static func typedParam(_ s: String) -> Value {
        if let i = Int64(s) { return .int(i) }
        if let d = Double(s), d.isFinite { return .double(d) }
        switch s {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        default: return .string(s)
        }
    }
}
