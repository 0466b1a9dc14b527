// The rules command: list, explain, check and test rule files.

extension CommandLineTool {
    // MARK: - rules

    static func rulesCommand(_ args: [String], _ console: Console) throws -> Int32 {
        guard var p = try Self.arguments(args, Self.rulesOptions, page: "rules", console) else {
            return 0
        }
        let settings = try Self.applyConfig(&p, takesPaths: false, only: ["--rules"])
        if let extra = p.positionals.first {
            throw UsageError("unexpected argument '\(extra)' (rule paths go after --rules)")
        }
        let modes = ["--check", "--list", "--explain", "--test"].filter { p.has($0) }
        if modes.count > 1 { throw UsageError("choose one of --check, --list, --explain, --test") }
        if let format = p.value("--format") {
            guard modes == ["--check"] else { throw UsageError("rules --format goes with --check") }
            guard ["text", "json"].contains(format) else {
                throw UsageError("rules --check --format must be text or json, not '\(format)'")
            }
            if format == "json" {
                // Errors are the answer here, not a failure to give one: printed as JSON, exit 2.
                do {
                    let set = try loadRulesOfCommand(p, settings)
                    console.out(rulesCheckJSON(rules: set.rules.count, diagnostics: set.warnings))
                    return 0
                } catch {
                    console.out(rulesCheckJSON(rules: 0, diagnostics: error.diagnostics))
                    return 2
                }
            }
        }
        let set = try loadRulesOfCommand(p, settings)
        for w in set.warnings { console.err(w.description + "\n") }
        switch modes.first ?? "--list" {
        case "--check":
            console.out("\(set.rules.count) rules OK, \(set.warnings.count) warning(s)\n")
            return 0
        case "--explain":
            let id = p.value("--explain")!
            guard let rule = set.rules.first(where: { $0.id == id }) else {
                throw UsageError(
                    "no rule '\(id)'\(Suggestions.hint(for: id, among: set.rules.map(\.id))) (see 'conn-audit rules --list')"
                )
            }
            console.out(explain(rule))
            return 0
        case "--test":
            let outcomes = FixtureRunner.run(set)
            var failed = 0
            var perRule: [(String, Int)] = []
            for o in outcomes {
                if perRule.last?.0 == o.rule.id {
                    perRule[perRule.count - 1].1 += 1
                } else {
                    perRule.append((o.rule.id, 1))
                }
                guard !o.passed else { continue }
                failed += 1
                // The fixture's name is rule text, and messages may quote it (it names the
                // fixture's log as a file): a token in it is redacted. Messages hold no flagged
                // value of the log.
                let head =
                    "FAIL \(o.rule.id) fixture '\(o.fixture.name)' (\(o.rule.file):\(o.fixture.line))\n"
                if !o.badLines.isEmpty {
                    // A bad line is shown by its reason only, never its text (it may hold a
                    // secret).
                    console.out(
                        SecretRedaction.text(
                            head
                                + "  its log has lines the rule never sees (fix them, or the fixture tests nothing there):\n"
                                + o.badLines.prefix(5).map { "    \($0)\n" }.joined()
                                + (o.badLines.count > 5
                                    ? "    … and \(o.badLines.count - 5) more\n" : "")))
                    continue
                }
                let want =
                    o.fixture.expect.rawValue
                    + (o.fixture.violations.map { " with \($0) violation(s)" } ?? "")
                console.out(
                    SecretRedaction.text(
                        head
                            + "  expected: \(want)\n  actual:   \(o.status.rawValue) with \(o.violations) violation(s)\n"
                            + o.messages.prefix(5).map { "    \($0)\n" }.joined()))
            }
            for (id, n) in perRule { console.out("  \(id): \(n) fixture\(n == 1 ? "" : "s")\n") }
            let untested = set.rules.filter { $0.tests.isEmpty }.map(\.id)
            if !untested.isEmpty {
                console.out("rules without fixtures: \(untested.joined(separator: ", "))\n")
            }
            console.out("fixtures: \(outcomes.count - failed) passed, \(failed) failed\n")
            return failed == 0 ? 0 : 1
        default:
            let width = set.rules.map(\.id.count).max() ?? 0
            for r in set.rules {
                let pad = String(repeating: " ", count: width - r.id.count)
                // Ids hold no token (letters, digits, '.', '_' and '-' only); a title may.
                console.out(
                    "\(r.id)\(pad)  \(r.severity.rawValue.padding(7))  \(r.scope.rawValue.padding(10))  "
                        + "\(SecretRedaction.text(r.title))\n")
            }
            return 0
        }
    }

    static func explain(_ rule: Rule) -> String {
        var out = "\(rule.id) — \(SecretRedaction.text(rule.title))\n"
        out +=
            "severity: \(rule.severity.rawValue)   scope: \(rule.scope.rawValue)   check: \(rule.check.kindName)\n"
        out += "defined at: \(rule.file):\(rule.line)\n"
        if let d = rule.description { out += "\n" + d.trimmedTrailingNewlines + "\n" }
        if !rule.params.isEmpty {
            out += "\nparams:\n"
            for k in rule.params.keys.sorted() {
                out += "  \(k) = \(rule.params[k]!.rendered(bare: false))\n"
            }
        }
        if !rule.letTexts.isEmpty {
            out += "\nlet (file-level first):\n"
            for l in rule.letTexts { out += "  \(l.name) = \(l.text.trimmedTrailingNewlines)\n" }
        }
        // Rule text is printed, not read as a log: no reader redacted it, so it is redacted here.
        return SecretRedaction.text(out) + "\n" + rule.redactedYAML + "\n"
    }
}
