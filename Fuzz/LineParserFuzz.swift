/// libFuzzer target `line`: the connlog reader on arbitrary bytes.
///
/// Built by `script/fuzz line` into the `ConnAudit` module itself (so it reaches internal types);
/// never part of `swift build`. Each input goes through:
///
/// 1. ``JSONLineParser/parse(_:)`` as one line, once decoding every field and once decoding only a
///    few; the two runs must agree on everything but the fields decoded (a trap here is a finding).
/// 2. ``JSONDocument/parse(_:)`` (baselines and partial results are read with it).
/// 3. ``FileReader`` over ``ByteSources/memory(_:path:)``: line splitting, BOM, CRLF, gzip
///    sniffing, malformed reasons, secrets and redaction, as a whole log file.
///
/// `Tests/ConnAuditTests/Robustness/FuzzRegressionTests.swift` feeds the committed corpus and every crash
/// found through the same steps; keep the two in step.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    LineParserFuzz.run(UnsafeBufferPointer(start: data, count: size))
    return 0
}

enum LineParserFuzz {
    /// The few top-level fields the second parser decodes (as if the loaded rules read only these).
    static let wanted: Set<String> = ["reason", "code", "url", "status", "headers"]

    static func run(_ bytes: UnsafeBufferPointer<UInt8>) {
        // 1. One line. FileReader never hands the parser an empty line (it is blank).
        if bytes.count > 0 {
            var everything = JSONLineParser(wantedFields: nil)
            var some = JSONLineParser(wantedFields: wanted)
            let a = everything.parse(bytes)
            let b = some.parse(bytes)
            precondition(a.isObject == b.isObject, "isObject depends on the wanted fields")
            precondition(
                a.malformedReason == b.malformedReason,
                "malformedReason depends on the wanted fields")
            precondition(a.secretPaths == b.secretPaths, "secretPaths depend on the wanted fields")
            precondition(
                a.redactedKeys == b.redactedKeys, "redactedKeys depend on the wanted fields")
            if a.malformedReason == nil {
                precondition(
                    a.t == b.t && a.ev == b.ev && a.gen == b.gen,
                    "t/ev/gen depend on the wanted fields")
                precondition(
                    a.t.isFinite && a.t >= 0 && !a.ev.isEmpty, "a valid line has a bad t or ev")
                for field in b.fields {
                    precondition(wanted.contains(field.key), "a field nobody wants was decoded")
                }
                for field in a.fields { _ = field.value.rendered(bare: false) }
            }
        }

        // 2. A whole JSON document.
        _ = try? JSONDocument.parse(Array(bytes))

        // 3. A whole log file.
        let path = "fuzz/log.jsonl"
        let reader = FileReader(
            index: 0, path: path, source: ByteSources.memory(Array(bytes), path: path),
            wantedFields: nil)
        var items = 0
        while let item = reader.next() {
            items += 1
            switch item {
            case .blank: break
            case .malformed(let event):
                precondition(
                    event.value(of: "reason")?.string != nil, "a malformed line without a reason")
            case .event(let event, let source, let regression):
                _ = source.description
                for field in event.fields { _ = field.value.rendered(bare: false) }
                if let regression { _ = regression.value(of: "previous_t")?.rendered() }
            }
            for secret in reader.secrets { _ = secret.value(of: "path") }
        }
        let stats = reader.stats
        precondition(stats.lines == items, "lines counted differ from lines handed out")
        precondition(
            stats.lines == stats.events + stats.malformed + stats.blank,
            "lines != events + malformed + blank")
    }
}
