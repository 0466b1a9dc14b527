/// `rules --check --format json`: what `rules --check` finds, for machines (an editor's problem
/// list, a pre-commit hook, a CI step that annotates rule files).
///
/// ```json
/// {"schema": "conn-audit/rules-check", "version": 1, "valid": false, "rules": 0,
///  "errors": 1, "warnings": 0,
///  "diagnostics": [{"severity": "error", "path": "r.yaml", "line": 4, "column": 12,
///                   "message": "..."}]}
/// ```
///
/// `rules` counts the rules loaded (0 when any error stopped the load); `diagnostics` are in the
/// order the text output gives them. A message is redacted as the text output redacts it
/// (``SecretRedaction``); the source line is not written.
extension CommandLineTool {
    static func rulesCheckJSON(rules: Int, diagnostics: [Diagnostic]) -> String {
        let errors = diagnostics.count { $0.severity == .error }
        var out = "{\n  \"schema\": \"conn-audit/rules-check\",\n  \"version\": 1,\n"
        out += "  \"valid\": \(errors == 0),\n  \"rules\": \(rules),\n"
        out += "  \"errors\": \(errors),\n  \"warnings\": \(diagnostics.count { $0.severity == .warning }),\n"
        out += "  \"diagnostics\": ["
        for (k, d) in diagnostics.enumerated() {
            out += (k == 0 ? "\n" : ",\n")
            out += "    {\"severity\": \(Value.jsonString(d.severity.rawValue)), \"path\": \(Value.jsonString(d.path)), "
            out += "\"line\": \(d.line), \"column\": \(d.column), "
            out += "\"message\": \(Value.jsonString(SecretRedaction.text(d.message)))}"
        }
        out += diagnostics.isEmpty ? "]\n}\n" : "\n  ]\n}\n"
        return out
    }
}
