/// libFuzzer target `audit`: the whole engine — reader, timelines, the built-in pack, every report
/// and the timeline view — on arbitrary bytes as a log.
///
/// Built by `script/fuzz audit` into the `ConnAudit` module itself (so it reaches internal types);
/// never part of `swift build`. Each input is audited as one file (and split in two files at its
/// middle line) with the built-in default pack:
///
/// 1. at `--jobs 1` and `--jobs 2`, which must give the same JSON report (a trap here is a
///    finding);
/// 2. as one file: with generation timelines retired at every chance (`retireIdleAfter: 0`), which
///    must give the same JSON report too: retiring and rebuilding a timeline must not change a
///    verdict;
/// 3. as one file: rendered as text, JSON, SARIF, JUnit and GitHub annotations, and as the
///    timeline's text, JSON and HTML views;
/// 4. with the accounting checked: every line is an event, a malformed line or a blank one;
/// 5. with no secret printed: the letters and digits of a `Bearer ` token written plainly in the
///    input (12 or more, found nowhere else in it) appear in no report and no view.
///
/// What the unit tests do for hand-made logs this does for whatever libFuzzer makes up: the
/// `line` target stops at the reader, this one goes through the rules and reports, where context
/// windows, deadlines, retirement and message holes live.

/// Loads the pack before fuzzing starts: loaded inside the first input, its rules (held to the end
/// in a static) would read as that input's leak — LeakSanitizer does not see references Swift
/// keeps in the spare bits of an enum's payload, so it calls them unreachable.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    _ = AuditFuzz.pack
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    AuditFuzz.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

enum AuditFuzz {
    /// The letter-and-digit runs of 12 or more right after a plain `Bearer ` in `bytes` that occur
    /// nowhere else in them: each is (part of) a bearer token the reader must redact, and no other
    /// field can hold it (escapes aside, which a fuzzer rarely spells out).
    static func bearerTokens(_ bytes: [UInt8]) -> [[UInt8]] {
        let mark = Array("Bearer ".utf8)
        var out: [[UInt8]] = []
        var i = 0
        while i + mark.count <= bytes.count {
            if bytes[i..<(i + mark.count)].elementsEqual(mark) {
                var j = i + mark.count
                while j < bytes.count, isAlnum(bytes[j]) { j += 1 }
                let run = Array(bytes[(i + mark.count)..<j])
                if run.count >= 12, count(bytes, run) == 1 { out.append(run) }
                i = j
            } else {
                i += 1
            }
        }
        return out
    }

    static func isAlnum(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A)
    }

    static func count(_ hay: [UInt8], _ needle: [UInt8]) -> Int {
        guard !needle.isEmpty, hay.count >= needle.count else { return 0 }
        var n = 0
        for start in 0...(hay.count - needle.count) where hay[start] == needle[0] {
            if hay[start..<(start + needle.count)].elementsEqual(needle) { n += 1 }
        }
        return n
    }

    static func holds(_ hay: [UInt8], _ needle: [UInt8]) -> Bool { count(hay, needle) > 0 }

    static let pack = RuleLoader.builtin()

    /// Opens the in-memory `files` by their paths.
    static func opener(_ files: [(path: String, bytes: [UInt8])]) -> Auditor.Opener {
        var contents: [String: [UInt8]] = [:]
        for f in files { contents[f.path] = f.bytes }
        let frozen = contents
        return { file throws(InputError) in
            guard let bytes = frozen[file.path] else {
                throw InputError(path: file.path, reason: "no such file")
            }
            return ByteSources.memory(bytes, path: file.path)
        }
    }

    static func audit(
        _ files: [(path: String, bytes: [UInt8])], jobs: Int, retireIdleAfter: Int = 256
    ) -> AuditReport {
        let auditor = Auditor(
            rules: pack, jobs: jobs, rereadable: true, retireIdleAfter: retireIdleAfter,
            opener: opener(files))
        return auditor.run(files.map { InputFile(path: $0.path) })
    }

    static func run(_ bytes: [UInt8]) {
        // One file, and the same lines split over two files (a source spread over both).
        let newlines = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\n") }
        var layouts: [[(path: String, bytes: [UInt8])]] = [[("fuzz/a.jsonl", bytes)]]
        if newlines.count >= 2 {
            let cut = newlines[newlines.count / 2] + 1
            layouts.append([
                ("fuzz/a.jsonl", Array(bytes[..<cut])), ("fuzz/b.jsonl", Array(bytes[cut...]))
            ])
        }
        let secrets = bearerTokens(bytes)
        for (n, files) in layouts.enumerated() {
            let one = audit(files, jobs: 1)
            let json = JSONReport.render(one)
            precondition(
                JSONReport.render(audit(files, jobs: 2)) == json, "--jobs 2 changed the report")
            // Keeping only the first findings of each rule (a run whose reports are text and GitHub
            // only) prints what keeping them all prints.
            for keep in [1, 3] {
                let kept = Auditor(
                    rules: pack, jobs: keep == 1 ? 1 : 2, rereadable: true, keepFindings: keep,
                    opener: opener(files)
                ).run(files.map { InputFile(path: $0.path) })
                precondition(
                    TextReport(color: true, limit: keep).render(kept)
                        == TextReport(color: true, limit: keep).render(one),
                    "keeping \(keep) findings a rule changed the text report")
                precondition(
                    GitHubReport.render(kept, maxPerLevel: keep)
                        == GitHubReport.render(one, maxPerLevel: keep),
                    "keeping \(keep) findings a rule changed the GitHub report")
            }
            // The rest once per input (about 5 inputs a second under ASan as it is).
            guard n == 0 else { continue }
            precondition(
                JSONReport.render(audit(files, jobs: 1, retireIdleAfter: 0)) == json,
                "retiring timelines changed the report")
            var shown = [
                json, TextReport(color: true).render(one), SARIFReport.render(one),
                JUnitReport.render(one),
                GitHubReport.render(one)
            ]
            for stats in one.files {
                precondition(
                    stats.lines == stats.events + stats.malformed + stats.blank,
                    "lines != events + malformed + blank")
            }
            precondition(
                one.exitCode == (one.verdictFails ? 1 : 0), "an in-memory input could not be read")

            // The postmortem view of everything read.
            let inputs = files.map { InputFile(path: $0.path) }
            if let (doc, _) = try? TimelineBuilder.build(
                inputs: inputs, rules: pack, query: TimelineQuery(),
                opener: opener(files))
            {
                shown += [
                    TimelineReport.text(doc, color: false), TimelineReport.json(doc),
                    TimelineReport.html(doc)
                ]
            }
            for secret in secrets {
                for text in shown {
                    precondition(
                        !holds(Array(text.utf8), secret),
                        "a secret is printed: \(String(decoding: secret, as: UTF8.self))")
                }
            }
        }
    }
}
