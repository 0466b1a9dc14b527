/// `check --shard K/N --format partial` and `merge PART...`: a run split over any batch engine and
/// merged into the report one run would have written (docs/scale-out.md).
extension CommandLineTool {
    /// The options that write what a merge writes, not a shard.
    static let mergeOutputs = ["--output", "--report", "--exact-baseline", "--write-exact-baseline"]

    /// The shard `check` writes a partial result for: `--shard K/N` (1 ≤ K ≤ N), or 1/1 for
    /// `--format partial` alone; nil for a check that writes reports.
    /// - Parameter given: which of ``mergeOutputs`` the command line gave (a config file's are
    ///   left to the merge).
    static func shard(_ p: ArgumentParser, request: ReportRequest, given: Set<String>) throws
        -> Shard?
    {
        let text = p.value("--shard")
        guard request.format == "partial" else {
            if text != nil {
                throw UsageError(
                    "--shard writes a partial result: give --format partial too, then 'conn-audit merge' the partials"
                )
            }
            return nil
        }
        var shard = Shard(index: 1, count: 1)
        if let text {
            guard let parsed = Shard(parsing: text) else {
                throw UsageError(
                    "--shard takes K/N, this shard's number K from 1 to N and the number of shards N (at most \(Shard.maxCount)), such as 2/7; not '\(text)'"
                )
            }
            shard = parsed
        }
        for option in ["--report", "--exact-baseline", "--write-exact-baseline"]
        where given.contains(option) {
            throw UsageError(
                "\(option) is for 'conn-audit merge': a partial result holds what the merge makes reports and baselines from"
            )
        }
        if shard.count > 1, p.positionals.contains("-") {
            throw UsageError(
                "--shard \(shard): every shard reads the same files; standard input cannot be read by several shards"
            )
        }
        return shard
    }

    /// The corpus rules among `rules` that cannot be judged in shards, as an error naming them.
    static func refuseUnmergeable(_ rules: [Rule], shards: Int) throws {
        guard shards > 1 else { return }
        let refused = rules.compactMap { rule in
            Shard.unmergeableReason(rule).map { "\(rule.id) (\($0))" }
        }
        guard refused.isEmpty else {
            throw UsageError(
                "cannot split the run into \(shards) shards: the corpus rule\(refused.count == 1 ? "" : "s") \(refused.joined(separator: "; ")) cannot be merged from per-shard parts; --skip \(refused.count == 1 ? "it" : "them") or run without --shard"
            )
        }
    }

    /// Runs the shard and writes its partial result; 0 once it is written.
    static func writePartial(
        _ p: ArgumentParser, shard: Shard, output: String?, prepared: PreparedRules,
        found: (files: [InputFile], errors: [InputError]),
        jobs: Int, opener: @escaping Auditor.Opener, progressMode: String, console: Console
    ) throws -> Int32 {
        try refuseUnmergeable(prepared.ruleSet.rules, shards: shard.count)
        let progress = Self.progressLine(
            progressMode, quiet: p.has("--quiet"), files: found.files, console: console)
        // Every finding is kept: the merge decides what its reports show.
        let streaming = try StreamingSettings.fromEnvironment()
        let auditor = Auditor(
            rules: prepared.ruleSet, overrides: prepared.overrides, jobs: jobs,
            readAheadFrom: streaming.readAheadFrom, lightReadPart: streaming.lightReadPart,
            retireIdleAfter: streaming.retireIdleAfter, progress: progress?.progress, shard: shard,
            opener: opener)
        let paths = Auditor.filePaths(of: found.files)
        let plan = auditor.makePlan(files: paths)
        progress?.line.start()
        let parts = auditor.runParts(found.files, discoveryErrors: found.errors, plan: plan)
        progress?.line.stop()
        let header = PartialReport.Header(
            shard: shard,
            rules: PartialReport.rulesHash(prepared.ruleSet.rules, overrides: prepared.overrides),
            suppressions: PartialReport.suppressionsHash(prepared.suppressions),
            files: PartialReport.filesHash(paths, sizes: found.files.map(\.sizeOnDisk)),
            fileCount: paths.count,
            ruleCount: prepared.ruleSet.rules.count,
            inputs: p.shownPositionals.joined(separator: ", "))
        try writing(to: output, console: console) { pieces in
            PartialReport.render(
                parts, header: header, rules: prepared.ruleSet.rules,
                suppressions: prepared.suppressions, flush: pieces.bytes)
        }
        // Unreadable inputs are named on standard error here too; the merge's status counts them.
        for (i, f) in parts.files.enumerated() where parts.owned[i] {
            if let e = f.error { console.err("conn-audit: error: \(e.headline())\n") }
        }
        return 0
    }

    // MARK: - merge

    static func mergeCommand(_ args: [String], _ bytes: [[UInt8]], _ console: Console)
        throws -> Int32
    {
        let options = Self.mergeOptions + Self.formerOptions
        guard var p = try Self.arguments(args, bytes: bytes, options, page: "merge", console) else {
            return 0
        }
        // The config file's paths name logs, not partials.
        let settings = try Self.applyConfig(&p, takesPaths: false)
        let request = try Self.reportRequest(p, partial: false)
        let opener = try Self.opener(p)
        guard !p.positionals.isEmpty else {
            throw UsageError(
                "no PART given: name the partial results of every shard ('check --shard K/N --format partial')"
            )
        }
        let prepared = try Self.prepareRules(&p, settings, console: console)
        var outputs: [(option: String, path: String)] = []
        if let path = p.value("--output") { outputs.append(("--output", path)) }
        outputs += request.extraReports.map { ("--report \($0.format)=", $0.path) }
        if let path = p.value("--write-exact-baseline") {
            outputs.append(("--write-exact-baseline", path))
        }
        let parts = p.positionalBytes.map { InputFile(bytes: $0) }
        try Self.checkOutputs(outputs, inputs: parts, baseline: p.value("--exact-baseline"))
        // Only the first findings of each rule are kept, as the text report shows them; the
        // reports that list every finding, and baselines, read them again from the partials
        // (``PartialFindingStream``), sorted by the suppressions and baseline as they are read.
        let keep = Self.shownFindings
        var merge = PartialMerge(
            rules: prepared.ruleSet.rules, overrides: prepared.overrides,
            suppressions: prepared.suppressions, keep: keep, divert: nil)
        do {
            for part in parts { try merge.read(part, opener: opener) }
        } catch {
            throw OutputError(error.message)
        }
        let merged: RunParts
        do {
            merged = try merge.parts()
        } catch {
            throw OutputError(error.message)
        }
        if merge.shards > 1 { try refuseUnmergeable(prepared.ruleSet.rules, shards: merge.shards) }
        let auditor = Auditor(
            rules: prepared.ruleSet, overrides: prepared.overrides, jobs: 1, keepFindings: keep)
        // Counted before the report is made of the totals (it takes their findings out).
        let stream = merge.stream(opener: opener)
        var report = auditor.assemble(
            merged, failOn: request.failOn, plan: auditor.makePlan(files: merged.files.map(\.path)))
        report.streamed = stream
        return try Self.conclude(
            &report, p, request, prepared, today: Baseline.today(), inputsShown: merge.inputs,
            console: console)
    }
}
