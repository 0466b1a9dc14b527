/// `rules --check --format json`: what `rules --check` finds, for machines (an editor's problem
/// list, a pre-commit hook, a CI step that annotates rule files).
///
/// ```json
/// {"schema": "conn-audit/rules-check", "version": 1, "valid": false, "rules": 0,
///  "errors": 1, "warnings": 0,
///  "diagnostics": [{"severity": "error", "path": "r.yaml", "line": 4, "column": 12,
///                   "message": "..."}]}
/// ```
/// (written pretty-printed, a key per line, as the JSON report).
///
/// `rules` counts the rules loaded (0 when any error stopped the load); `diagnostics` are in the
/// order the text output gives them. A message is redacted as the text output redacts it
/// (``SecretRedaction``); the source line is not written.
extension CommandLineTool {
    static func rulesCheckJSON(rules: Int, diagnostics: [Diagnostic]) -> String {
        let errors = diagnostics.count { $0.severity == .error }
        var w = JSONWriter()
        w.beginObject()
        w.key("schema", "conn-audit/rules-check")
        w.key("version", 1)
        w.key("valid", errors == 0)
        w.key("rules", rules)
        w.key("errors", errors)
        w.key("warnings", diagnostics.count { $0.severity == .warning })
        w.beginArray("diagnostics")
        for d in diagnostics {
            w.beginObject()
            w.key("severity", d.severity.rawValue)
            w.key("path", d.path)
            w.key("line", d.line)
            w.key("column", d.column)
            w.key("message", SecretRedaction.text(d.message))
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.finish()
    }
}
