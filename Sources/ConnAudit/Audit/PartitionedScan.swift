import Dispatch
import Synchronization

/// Evaluates the sources of one file on several threads, for a run with fewer files than
/// workers (one big collector file, say).
///
/// The reader stays on the calling thread and hands each event to the worker that owns its
/// source. A source has exactly one owner, which sees its events in file order, so each source's
/// outcome is the one a single thread would compute: results do not depend on the number of
/// workers. Events travel in batches through bounded queues, so memory stays flat however far the
/// reader runs ahead.
final class PartitionedScan {
    struct Item: Sendable {
        /// The reader's number of the source.
        var id: Int32
        /// The source's key, on its first event only (its worker then makes its evaluator).
        var newKey: SourceKey?
        var event: Event
        var regression: Event?
        /// The source's last event in the file: its owner finishes it after this one.
        var last: Bool
    }

    enum Fed { case new, known, ended }

    private let workers: [Worker]
    private var batches: [[Item]]
    private let group = DispatchGroup()
    /// The previous line's source (the reader's number), its worker and its last line: lines of
    /// one source usually come together.
    private var last: (id: Int32, worker: Int, end: Int?)?
    /// By the reader's number of each source: its worker and its last line (nil: not seen yet).
    private var owner: [(worker: Int, end: Int?)?] = []
    /// By worker: the sources given to it whose last line was not fed yet (all of them when the
    /// file was not read ahead).
    private var openSources: [Int]
    /// Where each source's last line is, when the file was read ahead.
    private let ends: [SourceKey: Int]?
    static let batchSize = 1024
    /// Up to 64 batches (65,536 events) ahead per worker: enough for the reader to move on to
    /// the next source while a worker is still on a long one, bounded all the same.
    static let queueDepth = 64

    /// The most events the reader can have handed to `workers` workers and not yet seen let go:
    /// per worker, a full queue, the batch it is on and the one being filled.
    static func eventsInFlight(workers: Int) -> Int { workers * (queueDepth + 2) * batchSize }

    /// - Parameter plans: one per worker (threads that share compiled rules contend on their
    ///   reference counts).
    /// - Parameter folds: each worker folds a finished source's sink into one of its own
    ///   (``Auditor/Fold/now``).
    init(plans: [EvaluationPlan], ends: [SourceKey: Int]? = nil, folds: Bool = false) {
        self.ends = ends
        workers = plans.map { Worker(plan: $0, folds: folds) }
        batches = Array(repeating: [], count: plans.count)
        openSources = Array(repeating: 0, count: plans.count)
        for w in workers {
            let box = WorkerBox(w)
            DispatchQueue.global().async(group: group) { box.worker.run() }
        }
    }

    /// Hands one event of the source numbered `id` (whose key `key(id)` gives) to its owner:
    /// `.new` the first time the source is seen, `.ended` (and dropped) when it comes after the
    /// line read ahead as the source's last.
    func feed(_ event: Event, source id: Int32, key: (Int32) -> SourceKey, regression: Event?)
        -> Fed
    {
        var fed = Fed.known
        let w: Int
        let end: Int?
        var newKey: SourceKey?
        if let last, last.id == id {
            (w, end) = (last.worker, last.end)
        } else if Int(id) < owner.count, let known = owner[Int(id)] {
            (w, end) = known
        } else {
            let k = key(id)
            w = leastLoaded()
            openSources[w] += 1
            end = ends?[k]
            while owner.count <= Int(id) { owner.append(nil) }
            owner[Int(id)] = (w, end)
            newKey = k
            fed = .new
        }
        if let end, event.line > end { return .ended }
        if event.line == end { openSources[w] -= 1 }
        last = (id, w, end)
        batches[w].append(
            Item(
                id: id, newKey: newKey, event: event, regression: regression,
                last: event.line == end))
        if batches[w].count >= Self.batchSize {
            workers[w].queue.push(batches[w])
            batches[w].removeAll(keepingCapacity: true)
        }
        return fed
    }

    /// The worker for a new source: the one with the fewest sources open, then the fewest events
    /// sent and not yet taken, then the first. A source's outcome is the same on any worker, so
    /// this only spreads the work. Sources open side by side go round the workers; a source that
    /// starts after others ended (a big file's devices often come one after another, of unequal
    /// lengths) goes to a worker that is not still busy with a long one, so the reader does not
    /// wait on one full queue while another worker has nothing to do.
    private func leastLoaded() -> Int {
        var best = 0, bestLoad = (Int.max, Int.max)
        for (w, worker) in workers.enumerated() {
            let load = (openSources[w], worker.queue.waiting * Self.batchSize + batches[w].count)
            if load < bestLoad { (best, bestLoad) = (w, load) }
        }
        return best
    }

    /// Sends what is left, waits for every worker, and returns each source's outcome, and with
    /// `folds` what the workers folded, merged in worker order.
    func finish() -> (outcomes: [SourceKey: SourceOutcome], folded: FindingSink?) {
        for (w, worker) in workers.enumerated() {
            if !batches[w].isEmpty { worker.queue.push(batches[w]) }
            worker.queue.push([])
        }
        group.wait()
        // Each worker's table is let go as it is merged: the first becomes the whole, the others
        // are added to it (a file of 200,000 devices held every outcome twice here).
        var all: [SourceKey: SourceOutcome] = [:]
        var folded: FindingSink?
        for worker in workers {
            let outcomes = worker.takeOutcomes()
            if all.isEmpty { all = outcomes } else { all.merge(outcomes) { a, _ in a } }
            if let f = worker.folded {
                if folded == nil { folded = f } else { folded!.merge(f) }
            }
        }
        return (all, folded)
    }

    /// One thread's share of the sources.
    private final class Worker {
        let plan: EvaluationPlan
        let queue = BatchQueue()
        /// By the reader's number of each source (nil: not one of this worker's, or ended).
        private var evaluators: [SourceEvaluator?] = []
        private(set) var outcomes: [SourceKey: SourceOutcome] = [:]
        let folds: Bool
        /// With ``folds``: the sinks of the sources finished so far, merged.
        private(set) var folded: FindingSink?

        init(plan: EvaluationPlan, folds: Bool) {
            self.plan = plan
            self.folds = folds
        }

        private func finished(_ key: SourceKey, _ outcome: SourceOutcome) {
            if folds {
                FindingSink.fold(
                    outcome.sink, into: &folded, files: plan.files, keep: plan.keepFindings)
            }
            outcomes[key] = outcome
        }

        func takeOutcomes() -> [SourceKey: SourceOutcome] {
            defer { outcomes = [:] }
            return outcomes
        }

        /// What ``touch(_:)`` read, kept so that its reads are done.
        private var touched = 0

        /// Reads a word from each event of `batch` (both cache lines of the object, and the
        /// first of its fields' storage) before any is evaluated. The reader's thread wrote
        /// them, often long ago, so each is a cache miss here: in one tight loop the processor
        /// waits for many at once, where evaluating event after event waits for each in turn.
        @inline(never) private func touch(_ batch: [Item]) {
            var sum = 0
            batch.withUnsafeBufferPointer { items in
                for i in items.indices {
                    let item = items.baseAddress.unsafelyUnwrapped + i
                    sum &+= Unmanaged.passUnretained(item.pointee.event)._withUnsafeGuaranteedRef {
                        Int($0.evID) &+ $0.line &+ $0.fields.count
                    }
                }
            }
            touched = sum
        }

        func run() {
            var lastID: Int32 = -1
            // Not counted: ``evaluators`` holds it until it finishes (then this is cleared too).
            var lastSource: Unmanaged<SourceEvaluator>?
            while let batch = queue.pop() {
                touch(batch)
                // Each item is read in place: copying it out would retain its event, key and
                // regression only to release them again at the end of the step.
                batch.withUnsafeBufferPointer { items in
                    for i in items.indices {
                        let item = items.baseAddress.unsafelyUnwrapped + i
                        let id = item.pointee.id
                        let evaluator: Unmanaged<SourceEvaluator>
                        if id == lastID, let l = lastSource {
                            evaluator = l
                        } else if item.pointee.newKey != nil {
                            let made = SourceEvaluator(key: item.pointee.newKey!, plan: plan)
                            while evaluators.count <= Int(id) { evaluators.append(nil) }
                            evaluators[Int(id)] = made
                            evaluator = Unmanaged.passUnretained(made)
                        } else {
                            evaluator = Unmanaged.passUnretained(evaluators[Int(id)]!)
                        }
                        lastID = id
                        lastSource = evaluator
                        evaluator._withUnsafeGuaranteedRef { evaluator in
                            if item.pointee.regression != nil {
                                evaluator.feed(item.pointee.regression!)
                            }
                            // The batch holds the event until the step ends: handed on as
                            // it is, not retained for the call.
                            Unmanaged.passUnretained(item.pointee.event)
                                ._withUnsafeGuaranteedRef { evaluator.feed($0) }
                        }
                        if item.pointee.last {
                            let evaluator = evaluator.takeUnretainedValue()
                            finished(evaluator.key, evaluator.finish())
                            evaluators[Int(id)] = nil
                            lastID = -1
                            lastSource = nil
                        }
                    }
                }
            }
            // In the order the sources came (their numbers).
            for case let evaluator? in evaluators { finished(evaluator.key, evaluator.finish()) }
            evaluators.removeAll()
        }
    }

    private struct WorkerBox: @unchecked Sendable {
        let worker: Worker
        init(_ worker: Worker) { self.worker = worker }
    }

    /// A bounded single-producer, single-consumer queue of batches; an empty batch ends it.
    private final class BatchQueue: @unchecked Sendable {
        private let items = Mutex<[[Item]]>([])
        private let filled = DispatchSemaphore(value: 0)
        private let free = DispatchSemaphore(value: PartitionedScan.queueDepth)

        func push(_ batch: [Item]) {
            free.wait()
            items.withLock { $0.append(batch) }
            filled.signal()
        }

        /// The batches pushed and not yet popped.
        var waiting: Int { items.withLock { $0.count } }

        func pop() -> [Item]? {
            filled.wait()
            let batch = items.withLock { $0.removeFirst() }
            free.signal()
            return batch.isEmpty ? nil : batch
        }
    }
}
