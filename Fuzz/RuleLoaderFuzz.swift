/// libFuzzer target `rules`: one rules file's text through the whole loader.
///
/// Built by `script/fuzz rules` into the `ConnAudit` module itself; never part of `swift build`.
/// The input is decoded as UTF-8 (invalid bytes become U+FFFD: the CLI rejects such files before
/// the loader sees them) and loaded with ``RuleLoader/load(files:)``: libyaml, the tree builder
/// and its limits, rule validation, selectors, expressions, messages and fixtures. Then every
/// diagnostic is rendered (`path:line:column`, snippet and caret) as the CLI prints it, and the
/// loaded rules are walked the way the reader and `rules --explain` use them.
///
/// `Tests/ConnAuditTests/Robustness/FuzzRegressionTests.swift` feeds the committed corpus and every crash
/// found through the same steps; keep the two in step.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    RuleLoaderFuzz.run(UnsafeBufferPointer(start: data, count: size))
    return 0
}

enum RuleLoaderFuzz {
    static func run(_ bytes: UnsafeBufferPointer<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            let set = try RuleLoader.load(files: [(path: "fuzz/rules.yaml", text: text)])
            _ = set.fieldsRead
            for warning in set.warnings { _ = warning.description }
            for rule in set.rules {
                _ = rule.yaml
                _ = rule.check.kindName
                for (_, text) in rule.letTexts { _ = text }
            }
        } catch {
            precondition(!error.diagnostics.isEmpty, "a failed load without a diagnostic")
            _ = error.description
        }
    }
}
