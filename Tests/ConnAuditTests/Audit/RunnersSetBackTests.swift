import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// A retired generation's runners judge the source's next generations, set back to their start
/// (``RunnerSpares``, ``Runner/setBack()``). A runner set back must be one a new runner cannot be
/// told from: the reports are compared with runs that make every runner new, and each field of a
/// runner set back is compared with a new one's.
@Suite struct RunnersSetBackTests {
    /// The JSON report of `rules` over `log`, with timelines retired at every chance (so runners
    /// are set back as often as can be) and runners kept as spares (`kept`) or never.
    static func report(_ rules: RuleSet, _ log: String, kept: Int) -> String {
        RunnerSpares.$kept.withValue(kept) {
            RetirementTests.report(rules, log, retireIdleAfter: 0)
        }
    }

    /// Generations `0..<n` of a device: each connects, opens, pings and is answered, and closes,
    /// some of them twice or without an answer: short generations that retire while the next
    /// ones begin.
    static func shortGenerations(_ n: Int) -> String {
        (0..<n).map { g in
            let t = g * 7
            var lines = [
                #"{"t":\#(t),"ev":"ws.connect","gen":\#(g)}"#,
                #"{"t":\#(t + 1),"ev":"ws.open","gen":\#(g)}"#,
                #"{"t":\#(t + 2),"ev":"ws.ping","gen":\#(g),"id":"p\#(g)"}"#
            ]
            if g % 3 != 0 {
                lines.append(#"{"t":\#(t + 3),"ev":"ws.pong","gen":\#(g),"id":"p\#(g)"}"#)
            }
            lines.append(#"{"t":\#(t + 4),"ev":"ws.close","gen":\#(g),"reason":"user"}"#)
            if g % 5 == 0 {
                lines.append(#"{"t":\#(t + 5),"ev":"ws.close","gen":\#(g),"reason":"user"}"#)
            }
            lines.append(#"{"t":\#(t + 6),"ev":"ws.closed","gen":\#(g)}"#)
            return lines.joined(separator: "\n") + "\n"
        }.joined()
    }

    @Test func everyBuiltinFixtureReportsTheSameWithRunnersSetBack() {
        let pack = RuleLoader.builtin()
        var compared = 0
        for rule in pack.rules {
            for fixture in rule.tests {
                let alone = RuleSet(rules: [rule])
                #expect(
                    Self.report(alone, fixture.log, kept: 2)
                        == Self.report(alone, fixture.log, kept: 0),
                    "\(rule.id) '\(fixture.name)'")
                #expect(
                    Self.report(pack, fixture.log, kept: 2)
                        == Self.report(pack, fixture.log, kept: 0),
                    "pack over \(rule.id) '\(fixture.name)'")
                compared += 1
            }
        }
        #expect(compared > 100)
    }

    @Test func manyShortGenerationsReportTheSameWithRunnersSetBack() {
        let pack = RuleLoader.builtin()
        let log = Self.shortGenerations(300)
        #expect(Self.report(pack, log, kept: 2) == Self.report(pack, log, kept: 0))
        // The runners were set back: most generations judged with a retired one's.
        let outcome = RunnerSpares.$kept.withValue(2) {
            RetirementTests.evaluate(pack, log, retireIdleAfter: 0)
        }
        #expect(outcome.retirements > 250)
        #expect(outcome.runnersReused > 250)
        let none = RunnerSpares.$kept.withValue(0) {
            RetirementTests.evaluate(pack, log, retireIdleAfter: 0)
        }
        #expect(none.runnersReused == 0)
    }

    /// The runner of `compiled` as a timeline makes it.
    static func makeRunner(_ compiled: CompiledRule, _ plan: EvaluationPlan) -> Runner {
        Timeline.makeRunner(compiled, files: plan.files, shapes: plan.classifyShapes)
    }

    /// Each stored field of `runner` and its superclasses, by name, as text. Objects show as
    /// their type; storage made on first use and kept when set back is left out (see
    /// ``Runner/setBack()``) and looked at apart.
    static func fields(_ runner: Runner) -> [String: String] {
        let keptStorage: Set<String> = [
            "aggregateStore", "stages", "stageCount", "sharedMade", "sharedRefs",
            "spareCaptures", "counted", "$__lazy_storage_$_indexes",
            "$__lazy_storage_$_regexBudget"
        ]
        var fields: [String: String] = [:]
        var mirror: Mirror? = Mirror(reflecting: runner)
        while let m = mirror {
            for child in m.children {
                guard let label = child.label, !keptStorage.contains(label) else { continue }
                let text = String(reflecting: child.value)
                // A lazy optional read once holds nil as `Optional(nil)`: it answers as one
                // never read (a rule without a regex has no budget either way).
                fields[label] =
                    label.hasPrefix("$__lazy_storage_$_") && text == "Optional(nil)" ? "nil" : text
            }
            mirror = m.superclassMirror
        }
        return fields
    }

    /// Each stored field of a lets' cache, as text, but its count of changes (it only grows)
    /// and its runner (another object for each).
    static func cacheFields(_ cache: StaticLetCache) -> [String: String] {
        objectFields(cache, leavingOut: ["changes", "runner"])
    }

    /// Each stored field of `object` and its superclasses, as text, but those `leavingOut`.
    static func objectFields(_ object: AnyObject, leavingOut: Set<String> = []) -> [String: String]
    {
        var fields: [String: String] = [:]
        var mirror: Mirror? = Mirror(reflecting: object)
        while let m = mirror {
            for child in m.children {
                guard let label = child.label, !leavingOut.contains(label) else { continue }
                fields[label] = String(reflecting: child.value)
            }
            mirror = m.superclassMirror
        }
        return fields
    }

    @Test func aRunnerSetBackHasEveryFieldOfANewOne() throws {
        let pack = RuleLoader.builtin()
        let plan = EvaluationPlan(rules: pack.rules, overrides: [:], files: ["log.jsonl"])
        var setBack = 0
        var withIndexes = 0
        var withBudget = 0
        var withCounted = 0
        for compiled in plan.all {
            for fixture in compiled.rule.tests {
                let reader = FileReader(
                    index: 0, path: "log.jsonl",
                    source: ByteSources.memory(Array(fixture.log.utf8), path: "log.jsonl"),
                    wantedFields: pack.fieldsRead)
                let runner = Self.makeRunner(compiled, plan)
                let sink = FindingSink(files: plan.files)
                var scope: ContextScope?
                var seq = 0
                while let item = reader.next() {
                    guard case .event(let e, let id, _) = item else { continue }
                    seq += 1
                    e.seq = seq
                    if scope == nil {
                        scope = ContextScope(context: TimelineContext(source: reader.key(of: id)))
                    }
                    runner.observe(e, context: scope!, sink: sink)
                }
                guard runner.canBeSetBack else { continue }
                if !runner.madeIndexes.isEmpty { withIndexes += 1 }
                if runner.usesRegex { withBudget += 1 }
                if !runner.countedIndexes.isEmpty { withCounted += 1 }
                runner.setBack()
                let new = Self.makeRunner(compiled, plan)
                let got = Self.fields(runner), want = Self.fields(new)
                #expect(got.keys.sorted() == want.keys.sorted())
                for (label, value) in want where got[label] != value {
                    Issue.record(
                        "\(compiled.rule.id) '\(fixture.name)': \(label) is \(got[label] ?? "-"), new \(value)"
                    )
                }
                // Its lets' cache keeps no value of the generation it judged.
                if let cache = runner.letCache, let newCache = new.letCache {
                    #expect(
                        Self.cacheFields(cache) == Self.cacheFields(newCache),
                        "\(compiled.rule.id) '\(fixture.name)'")
                }
                // The keyed indexes are made again on first use, as a new runner's; its regex
                // budget, kept for the shared objects that hold it, has every step.
                #expect(runner.madeIndexes.isEmpty, "\(compiled.rule.id)")
                for slot in compiled.callSlots {
                    #expect(runner.indexes[slot] == nil, "\(compiled.rule.id)")
                }
                // Its counted indexes and their keys, field by field, as the new runner's.
                #expect(runner.countedIndexes.count == new.countedIndexes.count)
                for (index, fresh) in zip(runner.countedIndexes, new.countedIndexes) {
                    #expect(
                        Self.objectFields(index) == Self.objectFields(fresh)
                            && Self.objectFields(index.keys) == Self.objectFields(fresh.keys),
                        "\(compiled.rule.id) '\(fixture.name)'")
                }
                if let budget = runner.regexBudget {
                    #expect(
                        Self.objectFields(budget) == Self.objectFields(RegexStepBudget()),
                        "\(compiled.rule.id) '\(fixture.name)'")
                }
                // The storage kept answers as none: no aggregate moved, no partial open.
                #expect(runner.aggregateState == nil, "\(compiled.rule.id)")
                if let sequence = runner as? SequenceRunner {
                    for i in 0..<sequence.stageCount {
                        #expect(sequence.stages[i].partials.isEmpty && sequence.stages[i].live == 0)
                    }
                }
                setBack += 1
            }
        }
        #expect(setBack > 50)
        // Runners whose rules keep a keyed or counted index or search with a regex were among them.
        #expect(withIndexes > 5)
        #expect(withBudget > 5)
        #expect(withCounted > 5)
    }
}
