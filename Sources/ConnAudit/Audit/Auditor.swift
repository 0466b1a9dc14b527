import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs the rules over the logs: read → events → timelines → rules → verdicts.
///
/// Pass 1 reads every file once, in parallel (`jobs` workers), and evaluates each source of a file
/// as if the file held all of it. A source whose lines turn out to be spread over several files
/// (rotation, several uploads) is evaluated again in pass 2, from a streaming merge of just those
/// files by `t` (ties: file order, then line order). Memory follows the sources and generations
/// open at once, not the size of the input.
public final class Auditor: @unchecked Sendable {
    public typealias Opener = @Sendable (InputFile) throws(InputError) -> any ByteSource

    private let rules: RuleSet
    private let overrides: [String: Value]
    let jobs: Int
    let opener: Opener
    let wanted: Set<String>?
    /// Files at least this large are read ahead once to learn where each source's last line is,
    /// so a source is finished and freed there instead of at the end of the file (memory then
    /// follows the sources open at once, not the size of the file).
    let readAheadFrom: Int
    /// With more than one job, a file read ahead is read in parts of at least this many bytes, one
    /// thread each (``SplittableSource``).
    let lightReadPart: Int
    /// Whether inputs read the same when opened again: nil — regular files do (``isRegularFile``);
    /// true or false for every input (an in-memory opener). Only such an input is read again when
    /// it turns out to hold too many sources for one pass.
    let rereadable: Bool?
    /// Source events without one of its own after which a quiet generation timeline is retired
    /// (``RetiredTimeline``). Tests make it 0 to retire, and rebuild, at every chance.
    let retireIdleAfter: Int
    /// The defaults of ``readAheadFrom``, ``lightReadPart`` and ``retireIdleAfter``.
    public static let defaultReadAheadFrom = 16 << 20
    public static let defaultLightReadPart = 4 << 20
    public static let defaultRetireIdleAfter = 256
    /// nil: every finding is kept (the JSON, SARIF and JUnit reports and baselines list them all).
    /// A number: only that many findings per rule and kind are kept — the ones that come first in
    /// report order (file, line, message), as the text and GitHub reports show them — and the rest
    /// are counted (``RuleResult/omittedViolations``). Memory then no longer grows with the
    /// findings: a file of a billion lines that are not a log costs what one of a hundred does.
    public let keepFindings: Int?
    /// Known issues applied as violations are found: one a ``ViolationFilter`` accepts is counted
    /// by its entry (``RuleResult/omittedSuppressed``), never kept, so a run whose reports list
    /// only the first findings stays flat in memory however many known issues its logs hold.
    /// nil: every violation goes to the report, for suppressions applied to it afterwards.
    let divert: ViolationFilter?
    /// nil: every source is judged by every rule. Else the sources whose findings the caller
    /// wants (``TimelineBuilder``: the selected ones); the others run only the `classify` rules,
    /// which every report needs of every source (a corpus-wide coverage finding counts their
    /// labels): the report lists no findings of theirs, and their evaluation costs a label
    /// per generation instead of a runner per rule.
    let judged: (@Sendable (SourceKey) -> Bool)?
    /// Counts what pass 1 reads, for a progress line (nil: nothing is counted).
    let progress: RunProgress?
    /// nil: the whole run. Else the one shard of it this run judges (``Shard``): its sources, and
    /// the lines and reader findings of the files it owns.
    public let shard: Shard?

    public init(
        rules: RuleSet, overrides: [String: Value] = [:], jobs: Int = Auditor.defaultJobs,
        readAheadFrom: Int = Auditor.defaultReadAheadFrom,
        lightReadPart: Int = Auditor.defaultLightReadPart,
        rereadable: Bool? = nil,
        retireIdleAfter: Int = Auditor.defaultRetireIdleAfter,
        keepFindings: Int? = nil,
        divert: ViolationFilter? = nil,
        judged: (@Sendable (SourceKey) -> Bool)? = nil,
        progress: RunProgress? = nil,
        shard: Shard? = nil,
        opener: @escaping Opener = { f throws(InputError) in try ByteSources.open(f) }
    ) {
        self.progress = progress
        self.keepFindings = keepFindings.map { max(1, $0) }
        self.divert = divert
        self.shard = shard
        // Another shard's sources in a file read here run only their `classify` rules, and
        // their outcomes are dropped.
        if let shard {
            self.judged = { key in shard.owns(key) && (judged?(key) ?? true) }
        } else {
            self.judged = judged
        }
        self.readAheadFrom = readAheadFrom
        self.lightReadPart = max(1, lightReadPart)
        self.retireIdleAfter = max(0, retireIdleAfter)
        self.rereadable = rereadable
        self.rules = rules
        self.overrides = overrides
        self.jobs = max(1, jobs)
        self.opener = opener
        wanted = rules.fieldsRead
    }

    public static var defaultJobs: Int {
        let n = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return n > 0 ? Int(n) : 1
    }

    public func run(
        _ inputs: [InputFile], discoveryErrors: [InputError] = [],
        failOn: AuditReport.FailOn = .error
    ) -> AuditReport {
        let files = Self.filePaths(of: inputs)
        let plan = makePlan(files: files)
        let parts = runParts(inputs, discoveryErrors: discoveryErrors, plan: plan)
        return assemble(parts, failOn: failOn, plan: plan)
    }

    /// Reads and judges `inputs` (with ``shard``, only what that shard owns), up to the totals a
    /// report is made of: what ``assemble(_:failOn:plan:)`` turns into one, and what a partial
    /// result holds.
    func runParts(
        _ inputs: [InputFile], discoveryErrors: [InputError], plan: EvaluationPlan
    ) -> RunParts {
        let files = plan.files
        let spool = Spool(inputs: inputs)
        let roles =
            shard.flatMap { $0.count > 1 ? fileRoles(of: inputs, in: $0) : nil }
            ?? Array(repeating: FileRole(read: true, owned: true), count: inputs.count)

        // Pass 1: every file once, in parallel; with fewer files than workers, the sources of a
        // file are shared out among the spare workers too.
        let perFile = inputs.count < jobs ? jobs / max(1, inputs.count) : 1
        // Each worker thread evaluates with its own compiled rules: threads that share objects
        // contend on their reference counts (see docs/performance-limits.md).
        let plans = PlanPerWorker(first: plan, workers: jobs) { self.makePlan(files: files) }
        // The corpus timeline is fed as files are read (the reader's findings and the events its
        // rules react to): with several workers, from rules compiled for it alone.
        let corpusFeed = CorpusFeed(
            plan: jobs == 1 ? plan : makePlan(files: files, judging: false), files: files)
        // With a shard, a file's findings are folded at the end: only its sources' count.
        let fold: Fold = inputs.count == 1 && shard == nil ? .now : .atEnd
        let scans = parallelMap(inputs.count, jobs: jobs) { i, worker in
            // A file another shard owns puts nothing on the corpus timeline here.
            let share = corpusFeed.share(file: i, counted: roles[i].owned)
            defer {
                share.release()
                corpusFeed.finish(file: i)
                self.progress?.fileRead()
            }
            guard roles[i].read else { return FileScan(stats: FileStats(path: inputs[i].path)) }
            return self.scan(
                inputs[i], index: Int32(i), plan: plans[worker], spool: spool, workers: perFile,
                corpus: share, fold: fold)
        }

        // Which sources span several files? With a shard, only its own sources are judged (a
        // file read for one of them may hold others, which their own shards judge).
        var filesOf: [SourceKey: [Int]] = [:]
        var sourceOrder: [SourceKey] = []
        for (i, scan) in scans.enumerated() {
            for key in scan.order where shard?.owns(key) ?? true {
                if filesOf[key] == nil { sourceOrder.append(key) }
                filesOf[key, default: []].append(i)
            }
        }
        let spread = sourceOrder.filter { filesOf[$0]!.count > 1 }

        // Pass 2: merged evaluation of sources spread over several files.
        let merged: [(SourceOutcome, [InputError])] = parallelMap(spread.count, jobs: jobs) {
            i, worker in
            self.mergeEvaluate(
                spread[i], files: filesOf[spread[i]]!, inputs: inputs, plan: plans[worker],
                spool: spool)
        }
        spool.close()

        // Collect.
        let total = FindingSink(files: files, keep: keepFindings)
        var generations = 0
        for scan in scans {
            if let folded = scan.folded { total.merge(folded) }
            for key in scan.order where filesOf[key]?.count == 1 {
                let outcome = scan.sources[key]!
                total.merge(outcome.sink)
                generations += outcome.generations
            }
        }
        var mergeErrors: [InputError] = []
        for (outcome, errors) in merged {
            total.merge(outcome.sink)
            generations += outcome.generations
            for e in errors where !mergeErrors.contains(e) { mergeErrors.append(e) }
        }
        total.merge(corpusFeed.close())
        var fileStats = scans.map(\.stats)
        for i in fileStats.indices { fileStats[i].path = files[i] }
        return RunParts(
            total: total, files: fileStats, owned: roles.map(\.owned),
            sources: sourceOrder.count, generations: generations,
            discoveryErrors: discoveryErrors, mergeErrors: mergeErrors)
    }

    /// The report `parts` make: each rule's result, the inputs' totals, the errors.
    func assemble(_ parts: RunParts, failOn: AuditReport.FailOn, plan: EvaluationPlan)
        -> AuditReport
    {
        let total = parts.total
        var results: [RuleResult] = []
        for compiled in plan.all {
            if case .classify(let c, let required, let minimum, let appliesIf) = compiled.rule.check
            {
                results.append(
                    Self.coverage(
                        compiled.rule, c, required: required, minimum: minimum,
                        applicable: appliesIf == nil || total.applicable.contains(compiled.index),
                        counts: total.labels[compiled.index] ?? [:]))
                continue
            }
            // Taken out and sorted in place: a sorted copy held every finding twice.
            var v = total.violations.removeValue(forKey: compiled.index) ?? []
            v.sort(by: Finding.precedes)
            var inc = total.inconclusive.removeValue(forKey: compiled.index) ?? []
            inc.sort(by: Finding.precedes)
            var omitted = (
                violations: total.omittedViolations[compiled.index] ?? 0,
                inconclusive: total.omittedInconclusive[compiled.index] ?? 0
            )
            if let keep = keepFindings {
                if v.count > keep {
                    omitted.violations += v.count - keep; v.removeSubrange(keep...)
                }
                if inc.count > keep {
                    omitted.inconclusive += inc.count - keep; inc.removeSubrange(keep...)
                }
            }
            var result = RuleResult(rule: compiled.rule, violations: v, inconclusive: inc)
            result.omittedSuppressed = total.diverted[compiled.index] ?? [:]
            result.omittedViolations = omitted.violations
            result.omittedInconclusive = omitted.inconclusive
            results.append(result)
        }
        var stats = InputStats()
        stats.files = parts.files.count
        for f in parts.files {
            stats.lines += f.lines
            stats.events += f.events
            stats.malformed += f.malformed
            stats.blank += f.blank
            stats.bytes += f.bytes
        }
        stats.sources = parts.sources
        stats.generations = parts.generations
        var errors = parts.discoveryErrors + parts.files.compactMap(\.error)
        // A file that already failed in pass 1 is named once.
        for e in parts.mergeErrors where !errors.contains(where: { $0.path == e.path }) {
            errors.append(e)
        }
        return AuditReport(
            files: parts.files, inputs: stats, inputErrors: errors, results: results,
            failOn: failOn)
    }

    /// The rules compiled for one thread, with this run's settings, for findings in `files`.
    /// `judging` false: without ``judged`` (the corpus timeline's plan, which judges no source).
    func makePlan(files: [String], judging: Bool = true) -> EvaluationPlan {
        EvaluationPlan(
            rules: rules.rules, overrides: overrides, files: files,
            retireIdleAfter: retireIdleAfter,
            keepFindings: keepFindings, divert: divert, judged: judging ? judged : nil)
    }

    /// The inputs' paths as findings and reports name them (standard input as `<stdin>`).
    public static func filePaths(of inputs: [InputFile]) -> [String] {
        inputs.map { $0.isStdin ? "<stdin>" : $0.path }
    }

    /// A `classify` rule's result: one violation per required label seen in fewer than `minimum`
    /// generations; not applicable when nothing matched `applies_if`.
    static func coverage(
        _ rule: Rule, _ c: Classification, required: [String], minimum: Int, applicable: Bool,
        counts: [String: Int]
    ) -> RuleResult {
        let ordered = c.labels.map { (name: $0.name, count: counts[$0.name] ?? 0) }
        var violations: [Finding] = []
        if applicable {
            let summary = ordered.map { "\($0.name) \($0.count)" }.joined(separator: ", ")
            for label in required {
                let n = counts[label] ?? 0
                guard n < minimum else { continue }
                let lead = n == 0 ? "no '\(label)' outcome" : "too few '\(label)' outcomes"
                var f = Finding(
                    message:
                        "\(lead): \(n) \(c.stream) generation\(n == 1 ? "" : "s") labelled '\(label)', at least \(minimum) required (\(summary))"
                )
                f.subject = label
                violations.append(f)
            }
        }
        var result = RuleResult(
            rule: rule, violations: violations, inconclusive: [], applicable: applicable)
        result.labels = ordered
        return result
    }
}

/// What a run (or one shard of it) read and found, before it is made a report: the findings,
/// counts and labels of every rule, each file's accounting, and the input errors.
struct RunParts {
    var total: FindingSink
    /// Every file of the run, in order; only those ``owned`` were counted by this run.
    var files: [FileStats]
    var owned: [Bool]
    /// Sources judged, and their generations.
    var sources: Int
    var generations: Int
    /// Paths that named nothing readable, found before any file was read.
    var discoveryErrors: [InputError]
    /// Files that could not be read again in pass 2.
    var mergeErrors: [InputError]
}

/// One ``EvaluationPlan`` per worker thread, made when the thread first asks for it.
private final class PlanPerWorker: @unchecked Sendable {
    private let plans: Mutex<[EvaluationPlan?]>
    private let make: @Sendable () -> EvaluationPlan

    /// - Parameter make: makes the plan of a worker other than the first.
    init(first: EvaluationPlan, workers: Int, make: @escaping @Sendable () -> EvaluationPlan) {
        plans = Mutex((0..<max(1, workers)).map { $0 == 0 ? first : nil })
        self.make = make
    }

    subscript(worker: Int) -> EvaluationPlan {
        if let plan = plans.withLock({ $0[worker] }) { return plan }
        // Made outside the lock (compiling the rules takes a few milliseconds).
        let made = make()
        return plans.withLock { plans in
            if let plan = plans[worker] { return plan }
            plans[worker] = made
            return made
        }
    }
}
