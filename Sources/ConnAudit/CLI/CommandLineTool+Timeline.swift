/// `conn-audit timeline`: the postmortem view of the selected sources, in text, JSON or HTML.
extension CommandLineTool {
    static func timelineCommand(_ args: [String], _ bytes: [[UInt8]], _ console: Console) throws
        -> Int32
    {
        let options = Self.timelineOptions
        guard var p = try Self.arguments(args, bytes: bytes, options, page: "timeline", console)
        else { return 0 }
        let settings = try Self.applyConfig(&p, only: ["--rules", "--param"])
        let format = p.value("--format") ?? "text"
        guard ["text", "json", "html"].contains(format) else {
            throw UsageError("timeline --format must be text, json or html, not '\(format)'")
        }
        // A page is for reading a postmortem: by default it shows the timelines with findings.
        let show = p.value("--show") ?? (format == "html" ? "findings" : "all")
        guard ["findings", "all"].contains(show) else {
            throw UsageError("--show must be findings or all, not '\(show)'")
        }
        guard !p.positionals.isEmpty else {
            throw UsageError(
                "no PATH given: name the log files or directories to rebuild timelines from")
        }
        var query = TimelineQuery(
            src: p.value("--src"), session: p.value("--session"), stream: p.value("--stream"))
        if let g = p.value("--gen") {
            guard let n = UInt64(g) else {
                throw UsageError(
                    "--gen takes a whole number from 0 to 18446744073709551615, not '\(g)'")
            }
            query.gen = n
        }
        if let a = p.value("--around") { query.around = try TimelineQuery.parseAround(a) }
        if let r = p.value("--radius") {
            guard let n = Int(r), n >= 0, n <= 100_000 else {
                throw UsageError("--radius takes a whole number from 0 to 100000")
            }
            query.radius = n
        }
        let jobs = try Self.jobs(p)
        let opener = try Self.opener(p)
        let colorMode = try Self.colorMode(p)
        var ruleSet = try loadRules(for: p, settings, fixtures: false)
        p.dropFileParams { item in
            !Self.someRule(ruleSet.rules, hasParam: String(item.prefix { $0 != "=" }))
        }
        try Self.checkFileParams(p, settings, rules: ruleSet.rules)
        let overrides = try parseParams(p.all("--param"), rules: ruleSet.rules)
        if !overrides.isEmpty {
            // The builder runs the rules itself; bake the overrides into their params.
            ruleSet.rules = ruleSet.rules.map { rule in
                var r = rule
                r.params = CompiledRule(rule: rule, index: 0, overrides: overrides).params
                return r
            }
        }
        let found = InputDiscovery.discover(bytes: p.positionalBytes)
        for e in found.errors {
            console.err("conn-audit: error: could not read \(e.path): \(e.reason)\n")
        }
        // An unreadable input was already named: no second, vaguer error for the same path (the
        // other paths, which held no log file, still are).
        if found.files.isEmpty && !found.errors.isEmpty {
            let named = Set(found.errors.map(\.path))
            let empty = p.shownPositionals.filter { !named.contains($0) }
            if !empty.isEmpty {
                console.err(
                    "conn-audit: error: no log files found under \(empty.joined(separator: ", "))\n"
                )
            }
            return 2
        }
        if found.files.isEmpty {
            throw UsageError(
                "no log files found under \(p.shownPositionals.joined(separator: ", "))")
        }
        if let path = p.value("--output") {
            try Self.checkOutputs([("--output", path)], inputs: found.files)
        }
        var (document, report) = try TimelineBuilder.build(
            inputs: found.files, rules: ruleSet, query: query, jobs: jobs, opener: opener)
        // Inputs named but not found (or unreadable directories) are in the document too.
        document.inputErrors =
            found.errors + document.inputErrors.filter { !found.errors.contains($0) }
        if show == "findings" { document.keepTimelinesWithFindings() }
        let toTerminal = p.value("--output") == nil && console.isTerminal && console.colorAllowed
        let color = colorMode == "always" || (colorMode == "auto" && toTerminal)
        // Written out as it is made, like the check's reports.
        try writing(to: p.value("--output"), console: console) { pieces in
            switch format {
            case "json": _ = TimelineReport.json(document, flush: pieces.bytes)
            case "html": _ = TimelineReport.html(document, flush: pieces.text)
            default: _ = TimelineReport.text(document, color: color, flush: pieces.text)
            }
        }
        for e in report.inputErrors where !found.errors.contains(e) {
            console.err("conn-audit: error: could not read \(e.path): \(e.reason)\n")
        }
        // The timeline is a view, not a gate: 0 when it could be shown from every input.
        return found.errors.isEmpty && report.inputErrors.isEmpty ? 0 : 2
    }
}
