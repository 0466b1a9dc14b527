import Foundation
import ConnAuditTestSupport
import Testing

@testable import ConnAudit

/// What the libFuzzer targets in `Fuzz/` found, and their seed corpora kept as inputs that must not
/// crash.
///
/// Each helper below runs an input through the same APIs, in the same order, as its target
/// (`Fuzz/LineParserFuzz.swift`, `Fuzz/RuleLoaderFuzz.swift`, `Fuzz/ExpressionFuzz.swift`); the
/// targets trap on a broken invariant, these `#expect` it. Run the fuzzers with `script/fuzz`.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    // MARK: - The committed corpora

    @Test("fuzz line: every committed seed", arguments: Corpus.files("line"))
    func lineSeed(_ name: String) throws {
        Self.line(try Corpus.bytes("line", name))
    }

    @Test("fuzz rules: every committed seed loads", arguments: Corpus.files("rules"))
    func rulesSeed(_ name: String) throws {
        // The seeds are the shipped rules, one per file: they must load without an error.
        #expect(Self.rules(try Corpus.bytes("rules", name)).errors.isEmpty)
    }

    @Test("fuzz expr: every committed seed", arguments: Corpus.files("expr"))
    func exprSeed(_ name: String) throws {
        Self.expression(try Corpus.bytes("expr", name))
    }

    @Test("the corpora are there and small")
    func corporaAreSmall() throws {
        for kind in ["line", "rules", "expr", "audit"] {
            let files = Corpus.files(kind)
            #expect(files.count >= 10, "Fuzz/corpus/\(kind) has \(files.count) files")
            for name in files {
                #expect(
                    try Corpus.bytes(kind, name).count <= 8192,
                    "Fuzz/corpus/\(kind)/\(name) is large")
            }
        }
    }

    // MARK: - Minimised fuzz inputs: rule text kept whole, gzip decoders freed

    /// fuzz rules, minimised by hand: a double-quoted title going on at column 1 (valid YAML: a
    /// quoted scalar's lines may start anywhere) must not end the rule's text at that line, before
    /// its `tests:`: the range of those lines would end before it began, a trap in the loader
    /// ("Range requires lowerBound <= upperBound").
    @Test("fuzz rules: a quoted scalar that goes on at column 1 keeps the rule's text whole")
    func aQuotedScalarAtColumnOne() throws {
        let text = """
            rules:
              - id: t.a
                title: "A
            b"
                every: { ev: ws.close }
                expect: "reason != null"
                tests:
                  - name: x
                    log: '{"t":0,"ev":"ws.close","gen":1,"reason":"Bearer abcdefghijklmnop"}'
                    expect: pass

            """
        let (rules, errors) = Self.rules(Array(text.utf8))
        #expect(errors.isEmpty)
        let rule = try #require(rules.first)
        #expect(rule.title == "A b")
        #expect(rule.yaml.contains("b\"") && rule.yaml.contains("expect: pass"), "\(rule.yaml)")
        let cut = try #require(rule.testsLines)
        let lines = rule.yaml.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[cut.lowerBound].contains("tests:"))
        // The quoted fixture log holds a token: `tests:` is written again from what was read.
        let shown = rule.redactedYAML
        #expect(!shown.contains("abcdefghijklmnop"))
        #expect(shown.contains("b\"") && shown.contains("[redacted]"), "\(shown)")
    }

    /// The smallest gzip input: one empty member (`printf '' | gzip -n`).
    static let emptyGzip: [UInt8] = [
        0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x03, 0x00, 0x00, 0x00, 0x00,
        0x00,
        0x00, 0x00, 0x00, 0x00
    ]

    /// `x\n` gzipped (`printf 'x\n' | gzip -n`).
    static let xGzip: [UInt8] = [
        0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xAB, 0xE0, 0x02, 0x00, 0x1F,
        0x08,
        0xEA, 0x46, 0x02, 0x00, 0x00, 0x00
    ]

    /// fuzz line, first input of the seed corpus (`samples/uploads/iphone-d.jsonl.gz`), minimised
    /// to ``emptyGzip``: LeakSanitizer reports the zlib decoder of every gzip input read to its
    /// end. The bytes themselves read fine (this test); the leak shows only under LeakSanitizer
    /// (`script/fuzz repro line FILE`) or in ``gzipReadToTheEndFreesItsDecoder()``.
    @Test("fuzz line: gzip inputs read to their end read whole")
    func gzipReadToTheEnd() {
        Self.line(Self.emptyGzip)
        Self.line(Self.xGzip)
        #expect(Self.drain(Self.emptyGzip) == [])
        #expect(Self.drain(Self.xGzip) == Array("x\n".utf8))
    }

    /// The line fuzzer under LeakSanitizer: `DecodingSource` ends its `z_stream` (`inflateEnd`)
    /// when the last gzip member ends; dropping it would leak 7,272 bytes per gzip input read to
    /// its end, plus zlib's 32 KiB window. Measured in a child process: the resident size after
    /// 3,000 such reads must not grow.
    @Test("gzip inputs read to their end free their decoder")
    func gzipReadToTheEndFreesItsDecoder() async {
        await #expect(processExitsWith: .success) {
            for _ in 0..<100 { FuzzRegressionTests.drain(FuzzRegressionTests.emptyGzip) }
            let before = FuzzRegressionTests.residentBytes()
            for _ in 0..<3000 { FuzzRegressionTests.drain(FuzzRegressionTests.emptyGzip) }
            // Leaking, 3,000 reads keep about 21 MB; not leaking, nothing grows.
            if FuzzRegressionTests.residentBytes() - before > 8 << 20 { exit(1) }
        }
    }

    /// Reads a source over `bytes` to its end; nil on a read error.
    @discardableResult
    static func drain(_ bytes: [UInt8]) -> [UInt8]? {
        let source = ByteSources.memory(bytes, path: "leak.gz")
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let read = try? buffer.withUnsafeMutableBytes { (b) throws(InputError) in
                try source.read(into: b)
            }
            guard let n = read else { return nil }
            if n == 0 { return out }
            out += buffer[..<n]
        }
    }

    /// This process's resident set size, from /proc/self/statm.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else {
            return 0
        }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    // MARK: - The targets' steps

    /// `Fuzz/LineParserFuzz.swift`: the bytes as one line (two parsers that must agree), as a JSON
    /// document, and as a whole log file through ``FileReader``.
    static func line(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let wanted: Set<String> = ["reason", "code", "url", "status", "headers"]
        if !bytes.isEmpty {
            bytes.withUnsafeBufferPointer { buffer in
                var everything = JSONLineParser(wantedFields: nil)
                var some = JSONLineParser(wantedFields: wanted)
                let a = everything.parse(buffer)
                let b = some.parse(buffer)
                #expect(a.isObject == b.isObject, sourceLocation: sourceLocation)
                #expect(a.malformedReason == b.malformedReason, sourceLocation: sourceLocation)
                #expect(a.secretPaths == b.secretPaths, sourceLocation: sourceLocation)
                #expect(a.redactedKeys == b.redactedKeys, sourceLocation: sourceLocation)
                if a.malformedReason == nil {
                    #expect(
                        a.t == b.t && a.ev == b.ev && a.gen == b.gen, sourceLocation: sourceLocation
                    )
                    #expect(
                        a.t.isFinite && a.t >= 0 && !a.ev.isEmpty, sourceLocation: sourceLocation)
                    #expect(
                        b.fields.allSatisfy { wanted.contains($0.key) },
                        sourceLocation: sourceLocation)
                    for field in a.fields { _ = field.value.rendered(bare: false) }
                }
            }
        }
        _ = try? JSONDocument.parse(bytes)
        let path = "fuzz/log.jsonl"
        let reader = FileReader(
            index: 0, path: path, source: ByteSources.memory(bytes, path: path), wantedFields: nil)
        var items = 0
        while let item = reader.next() {
            items += 1
            switch item {
            case .blank: break
            case .malformed(let event):
                #expect(event.value(of: "reason")?.string != nil, sourceLocation: sourceLocation)
            case .event(let event, let source, let regression):
                _ = source.description
                for field in event.fields { _ = field.value.rendered(bare: false) }
                if let regression { _ = regression.value(of: "previous_t")?.rendered() }
            }
            for secret in reader.secrets { _ = secret.value(of: "path") }
        }
        let stats = reader.stats
        #expect(stats.lines == items, sourceLocation: sourceLocation)
        #expect(
            stats.lines == stats.events + stats.malformed + stats.blank,
            sourceLocation: sourceLocation)
    }

    /// `Fuzz/RuleLoaderFuzz.swift`: one file's text through ``RuleLoader/load(files:)``, every
    /// diagnostic rendered. Returns the errors (empty when the file loaded).
    @discardableResult
    static func rules(
        _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    ) -> (rules: [Rule], errors: [Diagnostic]) {
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            let set = try RuleLoader.load(files: [(path: "fuzz/rules.yaml", text: text)])
            _ = set.fieldsRead
            for warning in set.warnings { _ = warning.description }
            for rule in set.rules {
                _ = rule.yaml
                _ = rule.check.kindName
            }
            return (set.rules, [])
        } catch {
            #expect(!error.diagnostics.isEmpty, sourceLocation: sourceLocation)
            _ = error.description
            return ([], error.diagnostics)
        }
    }

    /// `Fuzz/ExpressionFuzz.swift`: parsed with loader-compiled selectors, then evaluated against
    /// a fixed event. Returns nil when the text does not parse.
    @discardableResult
    static func expression(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation)
        -> Eval?
    {
        let source = String(decoding: bytes, as: UTF8.self)
        let expr: Expr
        do {
            expr = try ExpressionParser.parse(source, compileSelector: FixedEvent.compileSelector)
        } catch {
            #expect(error.offset >= 0, sourceLocation: sourceLocation)
            return nil
        }
        return Evaluator.evaluate(expr, FixedEvent.context())
    }
}

// MARK: - Helpers

/// The committed seed corpora, `Fuzz/corpus/KIND/`.
private enum Corpus {
    static let root = URL(fileURLWithPath: Repository.path("Fuzz/corpus"))

    static func files(_ kind: String) -> [String] {
        let names =
            (try? FileManager.default.contentsOfDirectory(
                atPath: root.appendingPathComponent(kind).path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }

    static func bytes(_ kind: String, _ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: root.appendingPathComponent(kind).appendingPathComponent(name)))
    }
}

/// The context `Fuzz/ExpressionFuzz.swift` evaluates against (keep the two the same).
private enum FixedEvent {
    static func compileSelector(_ text: String, _ offset: Int, _ depth: Int = 0)
        throws(ExpressionError) -> Selector
    {
        try FileLoader.compileSelector(text, offset, depth)
    }

    static func event(
        _ ev: String, t: Double, gen: UInt64?, line: Int, seq: Int, fields: [Event.Field] = []
    ) -> Event {
        let e = Event(
            t: t, ev: ev, gen: gen, file: 0, line: line, fields: fields, evID: EvNames.id(ev))
        e.seq = seq
        return e
    }

    static let current = event(
        "ws.close", t: 1000, gen: 2, line: 7, seq: 5,
        fields: [
            .init("reason", .string("pong_timeout")),
            .init("code", .int(1000)),
            .init("delay_ms", .double(12.5)),
            .init("big", .int(Int64.max)),
            .init("small", .int(Int64.min)),
            .init("inf", .double(.infinity)),
            .init("empty", .string("")),
            .init("none", .null),
            .init("flag", .bool(true)),
            .init("tags", .array([.string("a"), .int(1), .null])),
            .init("obj", .object([.init("k", .int(1)), .init("k", .string("last"))])),
            .init("url", .string("wss://example.test/ws?x=1"))
        ])

    static let connect = event(
        "ws.connect", t: 500, gen: 2, line: 3, seq: 2, fields: [.init("interval_ms", .int(100))])

    static let earlier = [
        connect,
        event("ws.ping", t: 100, gen: 2, line: 4, seq: 3),
        event("ws.ping", t: 300, gen: 1, line: 5, seq: 4, fields: [.init("id", .string("9"))]),
        event("ws.pong", t: 350, gen: 2, line: 6, seq: 4, fields: [.init("id", .int(9))]),
        event(
            "sse.open", t: 360, gen: nil, line: 8, seq: 6,
            fields: [.init("last_event_id", .string("41"))])
    ]

    struct FixedHistory: HistoryProvider {
        var events: [Event]
        func candidates(for call: HistoryCall, context: EvalContext) -> HistoryCandidates {
            HistoryCandidates(events: events[...], incomplete: call.kind == .next)
        }
    }

    static func context() -> EvalContext {
        var ctx = EvalContext(
            event: current,
            params: ["timeout_ms": .int(1000), "label": .string("x"), "ratio": .double(0.5)],
            history: FixedHistory(events: earlier), files: ["logs/a.jsonl"])
        ctx.captures["c"] = connect
        ctx.lets["L"] = .value(.int(5))
        let scope = LetScope([
            (name: "R", expr: .binary(.add, .name("R", at: 0), .literal(.int(1)), at: 0)),
            (name: "S", expr: .binary(.multiply, .name("R", at: 0), .name("code", at: 0), at: 0)),
            (name: "T", expr: .member(.name("c", at: 0), "interval_ms", id: -1, at: 0))
        ])
        ctx.letScope = scope
        scope.context = ctx
        return ctx
    }
}
