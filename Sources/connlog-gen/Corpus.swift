import Foundation

/// Where every byte goes: the files, their budgets, and which devices write into which files.
///
/// Devices and files are split into *groups*: either one file shared by several devices (written
/// one after another, or interleaved in time order), or one device rotated over several files. A
/// group is written by one worker from start to end, so the output never depends on scheduling.
struct CorpusPlan {
    struct File {
        let path: String
        let budget: Int
    }

    struct Group {
        let files: Range<Int>
        let devices: Range<Int>
    }

    let files: [File]
    let groups: [Group]
    let deviceCount: Int
    /// Whether `--out` is a directory.
    let isDirectory: Bool

    init(_ o: GeneratorOptions) {
        let out = o.out ?? "-"
        let fileCount = o.files ?? 1
        let devices = o.devices ?? (o.files ?? max(1, o.size / 4_000_000))
        deviceCount = devices
        isDirectory = o.files != nil
        let ext = o.gzip ? ".jsonl.gz" : ".jsonl"
        let dir = out.hasSuffix("/") ? String(out.dropLast()) : out

        func budget(_ i: Int) -> Int { o.size / fileCount + (i < o.size % fileCount ? 1 : 0) }
        func padded(_ n: Int, _ width: Int) -> String {
            var s = String(n)
            while s.count < width { s = "0" + s }
            return s
        }

        var files: [File] = []
        var groups: [Group] = []
        if !isDirectory {
            files = [File(path: out, budget: o.size)]
            groups = [Group(files: 0..<1, devices: 0..<devices)]
        } else if devices >= fileCount {
            // Several devices (or exactly one) per file.
            var next = 0
            for i in 0..<fileCount {
                let n = devices / fileCount + (i < devices % fileCount ? 1 : 0)
                let name =
                    n == 1 ? Device.name(seed: o.seed, index: next) : "part-" + padded(i + 1, 6)
                files.append(File(path: "\(dir)/\(name)\(ext)", budget: budget(i)))
                groups.append(Group(files: i..<(i + 1), devices: next..<(next + n)))
                next += n
            }
        } else {
            // Fewer devices than files: each device's log is rotated over several files.
            var next = 0
            for d in 0..<devices {
                let n = fileCount / devices + (d < fileCount % devices ? 1 : 0)
                let src = Device.name(seed: o.seed, index: d)
                let width = max(3, String(n).count)
                for k in 0..<n {
                    files.append(
                        File(
                            path: "\(dir)/\(src).\(padded(k + 1, width))\(ext)",
                            budget: budget(next + k)))
                }
                groups.append(Group(files: next..<(next + n), devices: d..<(d + 1)))
                next += n
            }
        }
        self.files = files
        self.groups = groups
    }
}

/// What a run wrote.
struct CorpusSummary {
    var bytes = 0
    var lines = 0
    var files = 0
}

/// Writes a corpus according to a plan: one group after another, each with its own fault book
/// (merged in group order, so the manifest is the same whatever the number of workers).
final class CorpusWriter: @unchecked Sendable {
    let options: GeneratorOptions
    let plan: CorpusPlan
    private(set) var faults: FaultBook

    init(options: GeneratorOptions, plan: CorpusPlan) {
        self.options = options
        self.plan = plan
        faults = FaultBook(rate: options.faultRate, kinds: options.faultKinds)
    }

    /// Writes every group, on `workers` threads (groups are handed out in order).
    func run(workers: Int) throws -> CorpusSummary {
        if plan.isDirectory, let dir = options.out {
            do {
                try FileManager.default.createDirectory(
                    atPath: dir, withIntermediateDirectories: true)
            } catch {
                throw OutputError.cannotCreateDirectory(
                    path: dir, reason: error.localizedDescription)
            }
        }
        let groupCount = plan.groups.count
        let state = RunState(groups: groupCount)
        let work: @Sendable () -> Void = { [self] in
            let sink = ByteSink()
            while let g = state.take() {
                let book = FaultBook(rate: options.faultRate, kinds: options.faultKinds)
                do {
                    let s = try writeGroup(plan.groups[g], sink: sink, faults: book)
                    state.finish(g, book: book, summary: s)
                } catch {
                    state.fail(error)
                    return
                }
            }
        }
        let n = max(1, min(workers, groupCount))
        if n == 1 {
            work()
        } else {
            let group = DispatchGroup()
            for _ in 0..<n {
                group.enter()
                Thread.detachNewThread {
                    work()
                    group.leave()
                }
            }
            group.wait()
        }
        if let firstError = state.firstError { throw firstError }
        var total = CorpusSummary()
        for (i, book) in state.books.enumerated() {
            if let book { faults.merge(book) }
            total.bytes += state.summaries[i].bytes
            total.lines += state.summaries[i].lines
            total.files += state.summaries[i].files
        }
        return total
    }

    private func open(_ index: Int) throws -> OutputFile {
        try OutputFile(path: plan.files[index].path, gzip: options.gzip, level: options.gzipLevel)
    }

    /// Writes one group's files with its devices.
    private func writeGroup(_ group: CorpusPlan.Group, sink: ByteSink, faults: FaultBook) throws
        -> CorpusSummary
    {
        let startBytes = sink.position
        let startLines = sink.totalLines
        var current = group.files.lowerBound
        try sink.startFile(try open(current), index: current + 1)
        let groupBudget = group.files.reduce(0) { $0 + plan.files[$1].budget }
        let deviceCount = group.devices.count
        var devices: [Device] = []
        devices.reserveCapacity(deviceCount)
        for (k, d) in group.devices.enumerated() {
            let budget = groupBudget / deviceCount + (k < groupBudget % deviceCount ? 1 : 0)
            devices.append(
                Device(index: d, seed: options.seed, budget: budget, sink: sink, faults: faults))
        }
        let last = group.files.upperBound - 1

        @inline(__always) func rotateIfFull() throws {
            if current < last && sink.fileBytes >= plan.files[current].budget {
                current += 1
                try sink.startFile(try open(current), index: current + 1)
            }
        }

        if options.interleave && deviceCount > 1 {
            var heap = DeviceHeap(devices)
            while let i = heap.minIndex {
                if try devices[i].step() {
                    heap.update(devices[i].nextGlobal)
                } else {
                    heap.removeMin()
                }
                try rotateIfFull()
            }
        } else {
            for device in devices {
                while try device.step() {
                    try rotateIfFull()
                }
            }
        }
        // Files the devices did not reach are still written (empty), so the layout is as asked.
        while current < last {
            current += 1
            try sink.startFile(try open(current), index: current + 1)
        }
        try sink.finishFile()
        return CorpusSummary(
            bytes: sink.position - startBytes, lines: sink.totalLines - startLines,
            files: group.files.count)
    }
}

/// The work list of a run and its results, shared by the workers under a lock.
private final class RunState: @unchecked Sendable {
    private let lock = NSLock()
    private var nextGroup = 0
    private let groupCount: Int
    private(set) var books: [FaultBook?]
    private(set) var summaries: [CorpusSummary]
    private(set) var firstError: (any Error)?

    init(groups: Int) {
        groupCount = groups
        books = Array(repeating: nil, count: groups)
        summaries = Array(repeating: CorpusSummary(), count: groups)
    }

    /// The next group to write, or `nil` when all are taken or a worker failed.
    func take() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard firstError == nil, nextGroup < groupCount else { return nil }
        nextGroup += 1
        return nextGroup - 1
    }

    func finish(_ g: Int, book: FaultBook, summary: CorpusSummary) {
        lock.lock()
        books[g] = book
        summaries[g] = summary
        lock.unlock()
    }

    func fail(_ error: any Error) {
        lock.lock()
        if firstError == nil { firstError = error }
        lock.unlock()
    }
}

/// A binary min-heap of devices keyed by the global time of their next step (ties: device order).
struct DeviceHeap {
    private var keys: [Int] = []
    private var ids: [Int] = []

    init(_ devices: [Device]) {
        for (i, d) in devices.enumerated() { push(d.nextGlobal, i) }
    }

    var minIndex: Int? { ids.first }

    private func less(_ a: Int, _ b: Int) -> Bool {
        keys[a] < keys[b] || (keys[a] == keys[b] && ids[a] < ids[b])
    }

    private mutating func swapAt(_ a: Int, _ b: Int) {
        keys.swapAt(a, b)
        ids.swapAt(a, b)
    }

    mutating func push(_ key: Int, _ id: Int) {
        keys.append(key)
        ids.append(id)
        var i = keys.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            if !less(i, p) { break }
            swapAt(i, p)
            i = p
        }
    }

    /// Changes the key of the minimum and restores the order.
    mutating func update(_ key: Int) {
        keys[0] = key
        siftDown(0)
    }

    mutating func removeMin() {
        let lastIndex = keys.count - 1
        swapAt(0, lastIndex)
        keys.removeLast()
        ids.removeLast()
        if !keys.isEmpty { siftDown(0) }
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        let n = keys.count
        while true {
            let l = 2 * i + 1
            if l >= n { return }
            var m = l
            if l + 1 < n && less(l + 1, l) { m = l + 1 }
            if !less(m, i) { return }
            swapAt(m, i)
            i = m
        }
    }
}
