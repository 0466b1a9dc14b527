extension Rule {
    /// ``yaml`` as `rules --explain` shows it: every secret `log.no-secrets` would flag replaced by
    /// `[redacted]` (``SecretRedaction``), in the fixture logs and anywhere else.
    ///
    /// A fixture log written as a literal block (`log: |`) has its lines in the YAML as they are in
    /// the log, so they are redacted where they stand and the rest stays as written. A log written
    /// otherwise (quoted, folded) that holds a secret may spell it with escapes or across lines, so
    /// the whole `tests:` is written again from the fixtures as read, each log a literal block of
    /// redacted lines; when `tests:` has no lines of its own, the YAML is left out for them.
    var redactedYAML: String {
        var lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if !fixturesRedactInPlace(lines) {
            let note =
                "# tests: written again as read, secrets redacted (a log that holds one is not a 'log: |' block)"
            if let cut = testsLines, cut.upperBound <= lines.count {
                let indent = String(lines[cut.lowerBound].prefix { $0 == " " })
                lines.replaceSubrange(cut, with: [indent + note] + renderedTests(indent: indent))
            } else {
                lines =
                    ["# (the rule's YAML is left out: its tests: cannot be cut from it)", note]
                    + renderedTests(indent: "")
            }
        }
        return SecretRedaction.text(lines.joined(separator: "\n"))
    }

    /// Whether every fixture log line that holds a secret is a line of a literal block, found in
    /// `lines` (the rule's YAML) where the block puts it, after its indentation.
    private func fixturesRedactInPlace(_ lines: [String]) -> Bool {
        for fixture in tests {
            for (i, text) in fixture.log.split(separator: "\n", omittingEmptySubsequences: false)
                .enumerated()
            where SecretRedaction.line(text) != text {
                // A literal block's content starts on the line after `log: |`.
                let at = fixture.logStartLine - line + 1 + i
                guard fixture.logIsLiteralBlock, lines.indices.contains(at) else { return false }
                let written = Array(lines[at].utf8), wanted = Array(text.utf8)
                guard written.count >= wanted.count,
                    written.suffix(wanted.count).elementsEqual(wanted),
                    written.dropLast(wanted.count).allSatisfy({ $0 == 0x20 || $0 == 0x09 })
                else { return false }
            }
        }
        return true
    }

    /// `tests:` as YAML, from the fixtures as read, each log line redacted.
    private func renderedTests(indent: String) -> [String] {
        var out = [indent + "tests:"]
        for f in tests {
            out.append(indent + "  - name: " + Value.jsonString(f.name))
            if !f.params.isEmpty {
                let pairs = f.params.sorted { $0.key < $1.key }.map {
                    Value.jsonString($0.key) + ": " + $0.value.rendered(bare: false)
                }
                out.append(indent + "    params: {" + pairs.joined(separator: ", ") + "}")
            }
            let redacted = f.log.split(separator: "\n", omittingEmptySubsequences: false).map(
                SecretRedaction.line)
            let log = redacted.joined(separator: "\n")
            // A literal block holds printable text only; anything else is written as a JSON string.
            let printable = !log.unicodeScalars.contains {
                ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || $0.value == 0x7F
                    || $0.value == 0xFEFF
                    || ($0.value >= 0x80 && $0.value < 0xA0) || $0.value == 0x2028
                    || $0.value == 0x2029
            }
            if log.isEmpty || !printable {
                out.append(indent + "    log: " + Value.jsonString(log))
            } else {
                var body = redacted
                if body.last == "" { body.removeLast() }
                let chomp = !log.hasSuffix("\n") ? "-" : log.hasSuffix("\n\n") ? "+" : ""
                // Content that starts with white space needs its indentation said.
                let indicator = body.contains { $0.first == " " || $0.first == "\t" } ? "2" : ""
                out.append(indent + "    log: |" + indicator + chomp)
                out += body.map { $0.isEmpty ? "" : indent + "      " + $0 }
            }
            out.append(indent + "    expect: " + f.expect.rawValue)
            if let n = f.violations { out.append(indent + "    violations: \(n)") }
        }
        return out
    }
}
