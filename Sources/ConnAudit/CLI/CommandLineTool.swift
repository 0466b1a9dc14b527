#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `errno` of the first write to standard output that failed (0: none yet), for the message the
/// executable prints when it exits 2 for it (by then `errno` says something else).
nonisolated(unsafe) public var standardOutputError: Int32 = 0

/// Where the command line writes: standard output and error, or anything a test supplies.
public struct Console {
    public var out: (String) -> Void
    public var err: (String) -> Void
    /// Whether standard output is a terminal (for `--color auto`).
    public var isTerminal: Bool
    /// Whether the environment lets `--color auto` colour a terminal: not when `NO_COLOR` is set
    /// to anything but the empty text (no-color.org), nor when `TERM` is `dumb`.
    public var colorAllowed: Bool
    /// Whether standard error is a terminal (for `--progress auto`).
    public var errIsTerminal: Bool
    /// Whether that terminal erases a line on `ESC [ K` (not when `TERM` is `dumb`).
    public var erasesLines: Bool
    /// That terminal's width in columns, when it tells (nil: unknown).
    public var errColumns: Int?

    public init(
        out: @escaping (String) -> Void, err: @escaping (String) -> Void, isTerminal: Bool,
        colorAllowed: Bool = true, errIsTerminal: Bool = false, erasesLines: Bool = true,
        errColumns: Int? = nil
    ) {
        self.out = out
        self.err = err
        self.isTerminal = isTerminal
        self.colorAllowed = colorAllowed
        self.errIsTerminal = errIsTerminal
        self.erasesLines = erasesLines
        self.errColumns = errColumns
    }

    /// ``colorAllowed`` for these values of `NO_COLOR` and `TERM` (nil: not set).
    public static func colorAllowed(noColor: String?, term: String?) -> Bool {
        (noColor ?? "").isEmpty && term != "dumb"
    }

    public static var standard: Console {
        Console(
            out: { s in
                if fputs(s, stdout) < 0, standardOutputError == 0 {
                    standardOutputError = errno == 0 ? EIO : errno
                }
            },
            err: { s in fputs(s, stderr) },
            isTerminal: isatty(1) != 0,
            colorAllowed: colorAllowed(
                noColor: getenv("NO_COLOR").map { String(cString: $0) },
                term: getenv("TERM").map { String(cString: $0) }),
            errIsTerminal: isatty(2) != 0,
            erasesLines: getenv("TERM").map { String(cString: $0) } != "dumb",
            errColumns: terminalColumns(2))
    }

    /// The width of the terminal on descriptor `fd`, when it is one and tells.
    static func terminalColumns(_ fd: Int32) -> Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}

/// The `conn-audit` command line: parses arguments, runs the library, maps results to exit codes.
public enum CommandLineTool {
    public static func run(_ arguments: [String], console: Console = .standard) -> Int32 {
        run(arguments, bytes: arguments.map { Array($0.utf8) }, console: console)
    }

    /// Runs the arguments as the process got them (`argv` without the program name), byte for
    /// byte: a PATH need not be UTF-8 (Linux names are bytes), and `CommandLine.arguments` has
    /// already replaced what is not (a byte 0xFF by U+FFFD, which names another file). Options
    /// are read as text, decoded with the same repair.
    public static func run(argv: [[UInt8]], console: Console = .standard) -> Int32 {
        run(argv.map { String(decoding: $0, as: UTF8.self) }, bytes: argv, console: console)
    }

    private static func run(_ arguments: [String], bytes: [[UInt8]], console: Console) -> Int32 {
        var args = arguments
        let bytes = bytes.count == arguments.count ? bytes : arguments.map { Array($0.utf8) }
        if args.first == "--help" || args.first == "-h" || args.first == "help" {
            // `help check`: that command's page.
            if args.first == "help", args.count > 1, Self.commands.contains(args[1]) {
                console.out(Help.page(for: args[1]) + "\n")
            } else {
                console.out(Help.main + "\n")
            }
            return 0
        }
        if args.first == "--version" {
            if args.count > 1 {
                console.err(
                    "conn-audit: error: --version takes no argument: \(args[1])\nRun 'conn-audit --help' for usage.\n"
                )
                return 2
            }
            console.out("conn-audit \(ConnAuditVersion.string)\n")
            return 0
        }
        do {
            switch args.first {
            case "--man-page":
                // Hidden: what script/man writes to docs/conn-audit.1.
                console.out(Help.manPage)
                return 0
            case "completions":
                guard args.count == 2, let script = Completions.script(for: args[1]) else {
                    throw UsageError(
                        "completions takes one of \(Completions.shells.joined(separator: ", "))")
                }
                console.out(script)
                return 0
            case "rules":
                args.removeFirst()
                return try rulesCommand(args, console)
            case "check":
                args.removeFirst()
                return try checkCommand(args, Array(bytes.dropFirst()), console)
            case "timeline":
                args.removeFirst()
                return try timelineCommand(args, Array(bytes.dropFirst()), console)
            case "merge":
                args.removeFirst()
                return try mergeCommand(args, Array(bytes.dropFirst()), console)
            default:
                if let first = args.first, !first.hasPrefix("-"), access(first, F_OK) != 0 {
                    // A mistyped command reads as a PATH that does not exist: say which was meant.
                    let hint = Suggestions.hint(
                        for: first, among: Self.commands + ["help", "completions"])
                    if !hint.isEmpty {
                        throw UsageError(
                            "unknown command '\(first)'\(hint); a log of that name does not exist")
                    }
                }
                return try checkCommand(args, bytes, console)
            }
        } catch let e as UsageError {
            console.err("conn-audit: error: \(e.message)\nRun 'conn-audit --help' for usage.\n")
            return 2
        } catch let e as OutputError {
            console.err("conn-audit: error: \(e.message)\n")
            return 2
        } catch let e as ConfigError {
            console.err(e.diagnostics.map(\.description).joined(separator: "\n") + "\n")
            console.err(
                "conn-audit: \(e.diagnostics.count) error(s) in the config file \(e.path); no verdict\n"
            )
            return 2
        } catch let e as DiagnosticList {
            console.err(e.description + "\n")
            console.err(
                "conn-audit: \(e.diagnostics.filter { $0.severity == .error }.count) error(s) in the rules; no verdict\n"
            )
            return 2
        } catch {
            console.err("conn-audit: error: \(error)\n")
            return 2
        }
    }

    // MARK: - check

    private static func checkCommand(_ args: [String], _ bytes: [[UInt8]], _ console: Console)
        throws -> Int32
    {
        let options = Self.checkOptions + Self.formerOptions
        guard var p = try Self.arguments(args, bytes: bytes, options, page: "check", console) else {
            return 0
        }
        // A partial goes where the command line says: a config file's output and reports are
        // the merge's.
        let given = Set(
            Self.mergeOutputs.filter { name in
                p.has(name) || formerNames.contains { $0.value == name && p.has($0.key) }
            })
        let settings = try Self.applyConfig(&p)
        let request = try Self.reportRequest(p, partial: true)
        let shard = try Self.shard(p, request: request, given: given)
        let jobs = try Self.jobs(p)
        let opener = try Self.opener(p)
        let progressMode = try Self.progressMode(p)
        // What is in force, once every value in it is known to be valid.
        if p.has("--show-config") {
            console.out(Self.shownConfig(p, settings))
            return 0
        }
        guard !p.positionals.isEmpty else {
            throw UsageError("no PATH given: name log files, directories, or - for standard input")
        }
        if p.positionals.filter({ $0 == "-" }).count > 1 {
            throw UsageError("'-' (standard input) given more than once")
        }

        let prepared = try Self.prepareRules(&p, settings, console: console)
        let found = InputDiscovery.discover(bytes: p.positionalBytes)
        if found.files.isEmpty && found.errors.isEmpty {
            throw UsageError(
                "no log files found under \(p.shownPositionals.joined(separator: ", ")) (*.jsonl, *.ndjson, *.log, and .gz)"
            )
        }
        if let shard {
            let output = given.contains("--output") ? p.value("--output") : nil
            try Self.checkOutputs(output.map { [("--output", $0)] } ?? [], inputs: found.files)
            return try Self.writePartial(
                p, shard: shard, output: output, prepared: prepared, found: found, jobs: jobs,
                opener: opener, progressMode: progressMode, console: console)
        }
        var outputs: [(option: String, path: String)] = []
        if let path = p.value("--output") { outputs.append(("--output", path)) }
        outputs += request.extraReports.map { ("--report \($0.format)=", $0.path) }
        if let path = p.value("--write-exact-baseline") {
            outputs.append(("--write-exact-baseline", path))
        }
        try Self.checkOutputs(outputs, inputs: found.files, baseline: p.value("--exact-baseline"))
        let keep = Self.keptFindings(p, request)
        let today = Baseline.today()
        let divert =
            keep == nil || prepared.suppressions.entries.isEmpty
            ? nil
            : prepared.suppressions.filter(
                rules: prepared.ruleSet.rules.map(\.id), paths: Auditor.filePaths(of: found.files),
                today: today)
        let progress = Self.progressLine(
            progressMode, quiet: p.has("--quiet"), files: found.files, console: console)
        let streaming = try StreamingSettings.fromEnvironment()
        let auditor = Auditor(
            rules: prepared.ruleSet, overrides: prepared.overrides, jobs: jobs,
            readAheadFrom: streaming.readAheadFrom, lightReadPart: streaming.lightReadPart,
            retireIdleAfter: streaming.retireIdleAfter, keepFindings: keep, divert: divert,
            progress: progress?.progress, opener: opener)
        progress?.line.start()
        var report = auditor.run(
            found.files, discoveryErrors: found.errors, failOn: request.failOn)
        progress?.line.stop()
        return try Self.conclude(
            &report, p, request, prepared, today: today,
            inputsShown: p.shownPositionals.joined(separator: ", "), console: console)
    }

    /// What a check or a merge is to write: the formats, where, and the gate's settings.
    struct ReportRequest {
        var use: RunUse
        var format: String
        /// Extra reports from the same run: --report junit=out.xml --report sarif=out.sarif
        var extraReports: [(format: String, path: String)]
        var failOn: AuditReport.FailOn
        var colorMode: String
    }

    /// The ``ReportRequest`` of `p`; `partial`: whether `--format partial` may be asked for.
    static func reportRequest(_ p: ArgumentParser, partial: Bool) throws -> ReportRequest {
        guard let use = RunUse(rawValue: p.value("--use") ?? RunUse.corpus.rawValue) else {
            throw UsageError(
                "--use must be corpus (a soak or fleet corpus) or gate (one upload), not '\(p.value("--use")!)'"
            )
        }
        let format = p.value("--format") ?? "text"
        let allowed = Self.formats + (partial ? ["partial"] : [])
        guard allowed.contains(format) else {
            throw UsageError(
                "--format must be one of \(allowed.joined(separator: ", ")), not '\(format)'")
        }
        var extraReports: [(format: String, path: String)] = []
        for item in p.all("--report") {
            guard let eq = item.firstIndex(of: "="), eq != item.startIndex,
                item.index(after: eq) != item.endIndex
            else {
                throw UsageError(
                    "--report takes FORMAT=FILE, such as junit=report.xml, not '\(item)'")
            }
            let f = String(item[..<eq])
            guard Self.formats.contains(f) else {
                throw UsageError(
                    "--report \(f): the format must be one of \(Self.formats.joined(separator: ", "))"
                )
            }
            extraReports.append((f, String(item[item.index(after: eq)...])))
        }
        guard let failOn = AuditReport.FailOn(rawValue: p.value("--fail-on") ?? "error") else {
            throw UsageError("--fail-on must be error, warning, info or never")
        }
        return ReportRequest(
            use: use, format: format, extraReports: extraReports, failOn: failOn,
            colorMode: try Self.colorMode(p))
    }

    /// The rules a check or merge runs, and what goes with them.
    struct PreparedRules {
        var ruleSet: RuleSet
        var suppressions: Suppressions
        var overrides: [String: Value]
        /// `classify` rules that run only for the outcome counts (left out by --only/--skip).
        var background: Set<String>
    }

    /// Loads the rules `p` and the config file name, selects them, and reads their parameters.
    static func prepareRules(_ p: inout ArgumentParser, _ settings: Settings, console: Console)
        throws -> PreparedRules
    {
        var ruleSet = try loadRules(for: p, settings, fixtures: false)
        if !p.has("--quiet") {
            for w in ruleSet.warnings { console.err(w.description + "\n") }
        }
        let suppressions = Suppressions(try checkedSuppressions(settings, rules: ruleSet.rules))
        if !suppressions.fieldNames.isEmpty {
            // Findings record the fields suppressions match on (the reader then decodes them).
            ruleSet.rules = ruleSet.rules.map { rule in
                var r = rule
                r.findingFields = suppressions.fieldNames
                return r
            }
        }
        let loaded = ruleSet.rules
        ruleSet.rules = try select(ruleSet.rules, only: p.all("--only"), skip: p.all("--skip"))
        // Nothing to judge is no verdict: a gate whose --skip matches every rule must not pass.
        if ruleSet.rules.isEmpty {
            throw UsageError(
                "no rule selected: --only/--skip leave none of the \(loaded.count) loaded rules (see 'conn-audit rules --list')"
            )
        }
        // A param of the config file that no selected rule has is left out (the file serves
        // runs with any --only); one given on the command line is an error.
        let selected = ruleSet.rules
        p.dropFileParams { item in
            !Self.someRule(selected, hasParam: String(item.prefix { $0 != "=" }))
        }
        try Self.checkFileParams(p, settings, rules: ruleSet.rules)
        let overrides = try parseParams(p.all("--param"), rules: ruleSet.rules)
        // The outcome counts are a fact of the corpus, reported whatever rules are selected: a
        // classify rule left out by --only/--skip still runs, unreported, for them.
        var background: Set<String> = []
        if !ruleSet.rules.contains(where: { $0.check.kindName == "classify" }) {
            let hidden = loaded.filter { $0.check.kindName == "classify" }
            background = Set(hidden.map(\.id))
            ruleSet.rules += hidden
        }
        return PreparedRules(
            ruleSet: ruleSet, suppressions: suppressions, overrides: overrides,
            background: background)
    }

    /// How many findings per rule and kind a run keeps: the text and GitHub reports show the
    /// first findings of each rule and count the rest: when they are all the run writes, only
    /// those are kept (memory then does not grow with the findings). The others and baselines
    /// take every finding. Suppressions then apply as violations are found, counting what they
    /// accept; else to the report, afterwards.
    static func keptFindings(_ p: ArgumentParser, _ request: ReportRequest) -> Int? {
        let listsAll =
            ([request.format] + request.extraReports.map(\.format)).contains {
                !["text", "github"].contains($0)
            }
            || p.has("--exact-baseline") || p.has("--write-exact-baseline")
        return listsAll ? nil : shownFindings
    }

    /// The findings of each rule and kind the text and GitHub reports show.
    static let shownFindings = max(TextReport.defaultLimit, GitHubReport.defaultMaxPerLevel)

    /// What a run's report goes through before it is written, and its writing: the background
    /// labels, the gate, suppressions, baselines, the verdict of a run that read no event; then
    /// every report asked for. Returns the exit status. `inputsShown`: the PATHs as given.
    ///
    /// A report whose findings are read again (a merge: ``AuditReport/streamed``) has them sorted
    /// by the suppressions and baseline as they are read (``AuditReport/sortReadAgain(_:keep:)``),
    /// and its files are staged (``StagedOutputs``): put in place only when every reading found
    /// the partials unchanged.
    static func conclude(
        _ report: inout AuditReport, _ p: ArgumentParser, _ request: ReportRequest,
        _ prepared: PreparedRules, today: String, inputsShown: String, console: Console
    ) throws -> Int32 {
        let background = prepared.background
        let suppressions = prepared.suppressions
        if !background.isEmpty {
            report.backgroundLabels = report.results.filter { background.contains($0.rule.id) }
                .compactMap(\.labels)
            report.results.removeAll { background.contains($0.rule.id) }
        }
        if request.use == .gate { report.judgeAsGate() }
        let loaded = p.value("--exact-baseline").map { path in
            Result { () throws(UsageError) in try Baseline.load(path) }
        }
        let staged = report.streamed == nil ? nil : StagedOutputs()
        defer { staged?.discard() }
        var alsoUsed = Set<Int>()
        if report.streamed != nil, !suppressions.entries.isEmpty || loaded != nil {
            // A baseline that cannot be read fails below, as in a run that holds its findings.
            let acceptance = Acceptance(
                suppressions: suppressions, baseline: try? loaded?.get(), paths: report.filePaths,
                today: today)
            alsoUsed = report.sortReadAgain(acceptance, keep: Self.shownFindings)
            if let failure = report.streamed?.failure { throw OutputError(failure) }
        }
        if !suppressions.entries.isEmpty {
            let summary = suppressions.apply(to: &report, today: today)
            report.suppressions = summary
            for i in summary.expired {
                let e = summary.entries[i]
                console.err(
                    "conn-audit: the suppression at \(e.origin) for \(e.rule) expired on \(e.expires); its violations count again\n"
                )
            }
        }
        let applied = try loaded?.get()
        var baselineWritten: String?
        if let path = p.value("--write-exact-baseline") {
            // A baseline --exact-baseline could not read back is not written (nor does it replace
            // one).
            let (text, n) = Baseline.text(of: report, reviewed: applied, limit: Baseline.maxBytes)
            guard let text else {
                throw UsageError(
                    "--write-exact-baseline \(path): \(n) violations make a baseline larger than the 64 MiB "
                        + "--exact-baseline reads; nothing was written. Fix or --skip the rules that fail throughout, then record the rest"
                )
            }
            try writeFile(path, text, staged: staged)
            if !p.has("--quiet") {
                let line =
                    "conn-audit: wrote \(n) violation\(n == 1 ? "" : "s") to the baseline \(path)\n"
                // A staged baseline is written only once the merge found its partials unchanged.
                if staged == nil { console.err(line) } else { baselineWritten = line }
            }
        }
        if let path = p.value("--exact-baseline"), let baseline = applied {
            report.baseline = baseline.apply(
                to: &report, path: path, today: today, alsoUsed: alsoUsed)
            for e in report.baseline!.expired {
                console.err(
                    "conn-audit: baseline entry for \(e.rule) at \(e.file ?? "?"):\(e.line.map(String.init) ?? "?") expired on \(e.expires ?? "?"); its violations count again\n"
                )
            }
        }
        // A run that read no event judged nothing: never a pass (an empty upload, an empty stdin).
        // Malformed lines still fail it through log.malformed, as any other run.
        if report.inputs.events == 0, report.verdictName == "pass" {
            let n = report.inputs.lines
            report.inputErrors.append(
                InputError(
                    path: inputsShown,
                    reason:
                        "no event in \(n == 0 ? "it (no line at all)" : "its \(n) line\(n == 1 ? "" : "s")"): "
                        + "nothing was judged",
                    heldNoEvent: true))
        }

        if !p.has("--quiet") || p.has("--output") {
            let toTerminal =
                p.value("--output") == nil && console.isTerminal && console.colorAllowed
            let color =
                request.colorMode == "always" || (request.colorMode == "auto" && toTerminal)
            try Self.emit(
                report, format: request.format, color: color, to: p.value("--output"),
                console: console, staged: staged)
        }
        for extra in request.extraReports {
            try Self.emit(
                report, format: extra.format, color: request.colorMode == "always", to: extra.path,
                console: console, staged: staged)
        }
        // The findings a merge read again: a partial that changed under it leaves the reports
        // incomplete, and none is put in place.
        if let failure = report.streamed?.failure { throw OutputError(failure) }
        try staged?.place()
        if let baselineWritten { console.err(baselineWritten) }
        // Unreadable inputs are named on standard error whatever the format, for CI logs.
        for e in report.inputErrors { console.err("conn-audit: error: \(e.headline())\n") }
        return report.exitCode
    }

    static let formats = ["text", "json", "junit", "sarif", "github", "gitlab", "concise"]
    /// The commands, for `help COMMAND` and for what a mistyped one was meant to be.
    static let commands = ["check", "timeline", "rules", "merge"]

    /// `--jobs N` (1…256), default: the number of cores.
    static func jobs(_ p: ArgumentParser) throws(UsageError) -> Int {
        guard let j = p.value("--jobs") else { return Auditor.defaultJobs }
        guard let n = Int(j), n >= 1, n <= 256 else {
            throw UsageError("--jobs takes a whole number from 1 to 256")
        }
        return n
    }

    /// `--max-expansion RATIO` (0: no cap; default ``ByteSources/defaultMaxExpansion``): how
    /// the inputs are opened.
    static func opener(_ p: ArgumentParser) throws(UsageError) -> Auditor.Opener {
        guard let text = p.value("--max-expansion") else {
            return { f throws(InputError) in try ByteSources.open(f) }
        }
        guard let ratio = Int(text), ratio >= 0, ratio <= 1_000_000 else {
            throw UsageError(
                "--max-expansion takes a whole number from 0 (no cap) to 1000000, not '\(text)'")
        }
        return { f throws(InputError) in try ByteSources.open(f, maxExpansion: ratio) }
    }

    /// `--color auto|always|never`, default auto.
    static func colorMode(_ p: ArgumentParser) throws(UsageError) -> String {
        let mode = p.value("--color") ?? "auto"
        guard ["auto", "always", "never"].contains(mode) else {
            throw UsageError("--color must be auto, always or never")
        }
        return mode
    }

    static func render(_ report: AuditReport, format: String, color: Bool) -> String {
        switch format {
        case "json": return JSONReport.render(report)
        case "junit": return JUnitReport.render(report)
        case "sarif": return SARIFReport.render(report)
        case "github": return GitHubReport.render(report)
        case "concise": return ConciseReport.render(report)
        case "gitlab": return GitLabReport.render(report)
        default: return TextReport(color: color).render(report)
        }
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
    var trimmedTrailingNewlines: String {
        var s = self
        while s.hasSuffix("\n") { s.removeLast() }
        return s
    }
}
