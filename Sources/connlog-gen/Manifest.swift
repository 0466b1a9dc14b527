/// The JSON manifest of a run: what was asked, what was written, and what was injected where, so a
/// report of conn-audit can be checked against it (`expected_violations` per rule id).
enum Manifest {
    static func render(
        options: GeneratorOptions, plan: CorpusPlan, summary: CorpusSummary, faults: FaultBook
    ) -> String {
        var s = "{\n"
        s += "  \"generator\": \"connlog-gen\",\n"
        s += "  \"version\": 1,\n"
        s += "  \"options\": {\n"
        s += "    \"seed\": \(options.seed),\n"
        s += "    \"size\": \(options.size),\n"
        s += "    \"out\": \(quote(options.out ?? "-")),\n"
        s += "    \"files\": \(plan.files.count),\n"
        s += "    \"devices\": \(plan.deviceCount),\n"
        s += "    \"interleave\": \(options.interleave),\n"
        s += "    \"gzip\": \(options.gzip),\n"
        s += "    \"faults\": \(options.faultRate)"
        if let kinds = options.faultKinds {
            let names = FaultKind.allCases.filter { kinds.contains($0) }.map { quote($0.name) }
            s += ",\n    \"fault_kinds\": [\(names.joined(separator: ", "))]"
        }
        s += "\n  },\n"
        s += "  \"output\": { \"files\": \(summary.files), \"bytes\": \(summary.bytes), "
        s += "\"lines\": \(summary.lines) },\n"

        // Per kind
        s += "  \"faults\": [\n"
        var entries: [String] = []
        var expected: [(String, Int)] = []
        func add(_ rule: String, _ n: Int) {
            if let i = expected.firstIndex(where: { $0.0 == rule }) {
                expected[i].1 += n
            } else {
                expected.append((rule, n))
            }
        }
        for kind in FaultKind.allCases {
            let enabled = faults.enabled[kind.rawValue] && options.faultRate > 0
            let n = faults.counts[kind.rawValue]
            for rule in kind.expectedRules { add(rule, enabled ? n : 0) }
            guard enabled else { continue }
            let rules = kind.expectedRules.map(quote).joined(separator: ", ")
            let examples = faults.examples[kind.rawValue].map { e in
                "{ \"file\": \(quote(plan.files[e.file - 1].path)), \"line\": \(e.line) }"
            }.joined(separator: ", ")
            entries.append(
                "    { \"kind\": \(quote(kind.name)), \"count\": \(n), \"rules\": [\(rules)],\n"
                    + "      \"what\": \(quote(kind.summary)),\n"
                    + "      \"examples\": [\(examples)] }")
        }
        s += entries.joined(separator: ",\n")
        s += entries.isEmpty ? "  ],\n" : "\n  ],\n"

        // Per rule: every rule a fault kind targets, 0 where nothing was injected, and the one rule
        // no fault can target (it judges the corpus as a whole; the generator makes it pass).
        add("ws.required-outcomes", 0)
        s += "  \"expected_violations\": {\n"
        s += expected.map { "    \(quote($0.0)): \($0.1)" }.joined(separator: ",\n")
        s += "\n  }\n}\n"
        return s
    }

    private static func quote(_ text: String) -> String {
        var out = "\""
        for u in text.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }
}
