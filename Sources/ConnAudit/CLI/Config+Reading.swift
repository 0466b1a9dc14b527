/// Reads a config file's YAML into a ``RunConfig``, collecting every problem at its
/// `file:line:column` (all of them, not only the first).
struct ConfigReader {
    let path: String
    let text: String
    var errors: [Diagnostic] = []

    init(path: String, text: String) {
        self.path = path
        self.text = text
    }

    func diagnostic(_ node: YamlNode, _ message: String) -> Diagnostic {
        Diagnostic(path: path, line: node.line, column: node.column, message: message, in: text)
    }

    mutating func error(_ node: YamlNode, _ message: String) {
        errors.append(diagnostic(node, message))
    }

    mutating func read(_ root: YamlNode, into config: inout RunConfig) {
        guard let pairs = root.mappingPairs else {
            error(
                root,
                "a config file is a mapping of settings (paths, rules, fail-on, suppressions, ...), not a \(root.kindName)"
            )
            return
        }
        for pair in pairs {
            guard let key = pair.key.scalar else {
                error(pair.key, "a setting's name is a plain word")
                continue
            }
            let v = pair.value
            switch key {
            case "version":
                if v.scalar != "1" { error(v, "this conn-audit reads config version 1") }
            case "paths": config.paths = texts(v, key)
            case "builtin-rules":
                if let b = bool(v, key) { config.builtinRules = b }
            case "rules": config.rules = texts(v, key)
            case "only": config.only = texts(v, key)
            case "skip": config.skip = texts(v, key)
            case "params":
                for item in mapping(v, "params is a mapping of NAME or RULE_ID.NAME to a value") {
                    guard let name = item.key.scalar, let value = item.value.scalar else {
                        error(
                            item.value,
                            "a param's value is one scalar (a number, true/false or text)")
                        continue
                    }
                    config.params.append(name + "=" + value)
                    config.paramPlaces[name + "=" + value] = (item.value.line, item.value.column)
                }
            case "fail-on":
                config.failOn = choice(v, key, AuditReport.FailOn.allCases.map(\.rawValue))
            case "use": config.use = choice(v, key, RunUse.allCases.map(\.rawValue))
            case "format": config.format = choice(v, key, CommandLineTool.formats)
            case "output": config.output = text(v, key)
            case "reports":
                for item in mapping(
                    v, "reports is a mapping of FORMAT to FILE, such as junit: out/junit.xml")
                {
                    guard
                        let format = choice(item.key, "a report's format", CommandLineTool.formats),
                        let file = text(item.value, format)
                    else { continue }
                    config.reports.append(format + "=" + file)
                }
            case "exact-baseline": config.exactBaseline = text(v, key)
            case "jobs":
                if let n = text(v, key) {
                    if let j = Int(n), j >= 1, j <= 256 {
                        config.jobs = n
                    } else {
                        error(v, "jobs is a whole number from 1 to 256")
                    }
                }
            case "suppressions":
                guard let items = v.sequenceItems else {
                    error(
                        v, "suppressions is a list of entries, each with rule, reason and expires")
                    continue
                }
                for item in items {
                    if let s = suppression(item) { config.suppressions.append(s) }
                }
            default:
                error(
                    pair.key,
                    "unknown setting '\(key)'\(Suggestions.hint(for: key, among: RunConfig.keys))")
            }
        }
    }

    // MARK: - Suppressions

    private mutating func suppression(_ node: YamlNode) -> Suppression? {
        guard let pairs = node.mappingPairs else {
            error(
                node,
                "a suppression is a mapping: rule, reason, expires, and conditions (src, session, file, message, fields)"
            )
            return nil
        }
        var values: [String: String] = [:]
        var fields: [(name: String, pattern: String)] = []
        for pair in pairs {
            guard let key = pair.key.scalar, RunConfig.suppressionKeys.contains(key) else {
                let name = pair.key.scalar ?? ""
                error(
                    pair.key,
                    "unknown suppression key '\(name)'\(Suggestions.hint(for: name, among: RunConfig.suppressionKeys))"
                )
                continue
            }
            if key == "fields" {
                let items = mapping(
                    pair.value,
                    "fields is a mapping of an event's field to a pattern, such as app_build: \"4.2.*\""
                )
                if items.isEmpty, pair.value.mappingPairs != nil {
                    error(
                        pair.value,
                        "fields names at least one field (leave it out to match any event)")
                }
                for item in items {
                    guard let name = item.key.scalar, !name.isEmpty, let pattern = item.value.scalar
                    else {
                        error(item.value, "each of fields maps a field's name to a pattern")
                        continue
                    }
                    if ["t", "ev", "gen", "src", "session"].contains(name) {
                        error(
                            item.key,
                            "'\(name)' is not a field suppressions match (src and session have their own keys; "
                                + "use the rule and message for the rest)")
                        continue
                    }
                    fields.append((name, pattern))
                }
                continue
            }
            if let t = text(pair.value, key) { values[key] = t }
        }
        guard let rule = values["rule"] else {
            error(
                node, "a suppression needs rule: the id (or a glob of ids) it accepts violations of"
            )
            return nil
        }
        guard let reason = values["reason"], reason.contains(where: { !$0.isWhitespace }) else {
            error(
                node,
                "a suppression needs reason: why the violations are accepted (a ticket, an owner)")
            return nil
        }
        guard let expires = values["expires"] else {
            error(
                node, "a suppression needs expires: the last day (YYYY-MM-DD) it accepts violations"
            )
            return nil
        }
        guard Baseline.isDate(expires) else {
            let at = pairs.first { $0.key.scalar == "expires" }?.value ?? node
            error(at, "expires must be a date written YYYY-MM-DD, not '\(expires)'")
            return nil
        }
        // The reason is printed in every report: a token in it is redacted here, once.
        return Suppression(
            rule: SecretRedaction.text(rule), src: values["src"], session: values["session"],
            file: values["file"],
            message: values["message"], fields: fields, reason: SecretRedaction.text(reason),
            expires: expires, origin: "\(path):\(node.line)")
    }

    // MARK: - Values

    /// The pairs of a mapping; none, with `expected` as the error, for anything else.
    private mutating func mapping(_ v: YamlNode, _ expected: String) -> [YamlPair] {
        guard let pairs = v.mappingPairs else {
            error(v, expected)
            return []
        }
        return pairs
    }

    private mutating func text(_ v: YamlNode, _ key: String) -> String? {
        guard let s = v.scalar, !v.isNull else {
            error(v, "\(key) takes one value, not a \(v.isNull ? "null" : v.kindName)")
            return nil
        }
        return s
    }

    /// One text or a list of texts.
    private mutating func texts(_ v: YamlNode, _ key: String) -> [String] {
        if let items = v.sequenceItems { return items.compactMap { text($0, key) } }
        return text(v, key).map { [$0] } ?? []
    }

    private mutating func bool(_ v: YamlNode, _ key: String) -> Bool? {
        switch v.scalar {
        case "true": return true
        case "false": return false
        default:
            error(v, "\(key) is true or false")
            return nil
        }
    }

    private mutating func choice(_ v: YamlNode, _ key: String, _ allowed: [String]) -> String? {
        guard let s = text(v, key) else { return nil }
        guard allowed.contains(s) else {
            error(
                v,
                "\(key) must be one of \(allowed.joined(separator: ", ")), not '\(s)'\(Suggestions.hint(for: s, among: allowed))"
            )
            return nil
        }
        return s
    }
}
