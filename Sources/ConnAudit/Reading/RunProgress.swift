import Synchronization

/// How far a run has read, for a progress line: counters that any worker adds to and any thread
/// reads at any time.
///
/// Bytes (decompressed for gzip) and events are counted by the first pass's reader of each file,
/// in steps of ``eventStep`` lines so that a line costs one branch. A file read again from its
/// start (the restart of a file with too many sources) takes back what it counted, so the counts
/// never pass the input. The second pass (sources spread over several files) is not counted: it
/// reads again what was already counted once.
public final class RunProgress: Sendable {
    /// The bytes the inputs' lines take, as near as can be told before reading (a gzip file by
    /// its trailer's size); nil when an input's size cannot be known (standard input).
    public let totalBytes: Int?
    public let files: Int
    private let bytes = Atomic<Int>(0)
    private let events = Atomic<Int>(0)
    private let filesRead = Atomic<Int>(0)
    /// Lines a reader reads between two additions to the counts (a power of two).
    static let eventStep = 4_096

    public init(totalBytes: Int?, files: Int) {
        self.totalBytes = totalBytes
        self.files = files
    }

    /// What has been read so far.
    public struct Snapshot: Sendable, Equatable {
        public var bytes: Int
        public var events: Int
        public var filesRead: Int

        public init(bytes: Int, events: Int, filesRead: Int) {
            self.bytes = bytes
            self.events = events
            self.filesRead = filesRead
        }
    }

    public var snapshot: Snapshot {
        Snapshot(
            bytes: bytes.load(ordering: .relaxed), events: events.load(ordering: .relaxed),
            filesRead: filesRead.load(ordering: .relaxed))
    }

    func add(bytes n: Int) { bytes.add(n, ordering: .relaxed) }
    func add(events n: Int) { events.add(n, ordering: .relaxed) }
    func fileRead() { filesRead.add(1, ordering: .relaxed) }
}
