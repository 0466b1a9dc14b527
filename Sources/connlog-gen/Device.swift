/// "No time yet": a slot that is not scheduled.
let never = Int.max

/// Names the simulated fleet's devices are given (they only flavour `src`).
private let deviceModels = ["iphone", "ipad", "pixel", "galaxy", "sim"]

/// Heartbeat settings a device's app may run with: (interval_ms, timeout_ms). The seed's test
/// values come first and are the most common.
private let heartbeatProfiles: [(interval: Int, timeout: Int)] = [
    (100, 1000), (250, 2000), (500, 3000), (1000, 5000)
]

/// One simulated device: a mobile app with a WebSocket client (heartbeat, reconnect, app
/// lifecycle), optionally a Server-Sent Events reader and a network-path monitor, writing connlog
/// lines as it goes.
///
/// The simulation is discrete-event: each stream keeps a few *slots* (the time of its next
/// possible events) and a step runs the earliest one, writing every line of that step at that one
/// `t`. A device's lines are therefore in time order, and several devices can be interleaved by
/// always stepping the device whose next step is earliest in global time.
///
/// A device lives through several *sessions* (process runs): each has its own `session` id, its own
/// clock origin and restarts generation numbers, and ends only at a point where no rule's window is
/// open (no ping waiting for its pong, no close owed), so a healthy device's log passes every rule
/// of the default pack, and the first session of each device shows all four required outcomes.
final class Device {
    let index: Int
    let srcName: String
    var rng: Xoshiro256
    var faultRng: Xoshiro256
    let faults: FaultBook
    let sink: ByteSink

    /// Byte budget of the whole device and bytes written so far.
    let budget: Int
    private(set) var written = 0

    // MARK: Session

    private(set) var sessionCount = 0
    private var sessionBudget = 0
    private var sessionWritten = 0
    /// `,"src":"…","session":"…","ev":"` for the current session.
    private var prefix: [UInt8] = []
    /// Global time (ms) of the current session's clock origin, for interleaving devices.
    private var globalOrigin = 0
    private var sessionEndT = 0
    var endRequested = false
    /// `t` and file of the last line written (for the time-regression fault).
    var lastT = 0
    var lastFile = 0

    // MARK: Capabilities (fixed per device)

    let usesSSE: Bool
    let usesPath: Bool
    let interval: Int
    let timeout: Int
    let tickSlack = 250

    // MARK: Streams

    var ws = WebSocketState()
    var sse = SSEState()
    var path = PathState()

    init(index: Int, seed: UInt64, budget: Int, sink: ByteSink, faults: FaultBook) {
        self.index = index
        self.budget = budget
        self.sink = sink
        self.faults = faults
        rng = Xoshiro256(seed: seed, stream: UInt64(index) &* 2 &+ 1)
        faultRng = Xoshiro256(seed: seed, stream: UInt64(index) &* 2 &+ 2)
        srcName = Device.name(&rng, index: index)
        usesSSE = rng.chance(0.7)
        usesPath = rng.chance(0.85)
        let profile = heartbeatProfiles[rng.pick([70, 15, 10, 5])]
        interval = profile.interval
        timeout = profile.timeout
        globalOrigin = rng.range(0, 60_000)
        startSession(globalStart: globalOrigin)
    }

    /// The `src` of device `index`: its model and number. The first draw of the device's generator.
    static func name(_ rng: inout Xoshiro256, index: Int) -> String {
        let model = deviceModels[rng.below(deviceModels.count)]
        var number = String(index + 1)
        while number.count < 6 { number = "0" + number }
        return "\(model)-\(number)"
    }

    /// The `src` of device `index` of a corpus seeded with `seed`, without simulating it.
    static func name(seed: UInt64, index: Int) -> String {
        var rng = Xoshiro256(seed: seed, stream: UInt64(index) &* 2 &+ 1)
        return name(&rng, index: index)
    }

    /// Time of the device's next step, in its session clock (`never` when the session is over).
    var nextT: Int { min(ws.next, min(sse.next, path.next)) }

    /// Time of the device's next step on the shared clock used to interleave devices.
    var nextGlobal: Int {
        let t = nextT
        return t == never ? globalOrigin : globalOrigin + (t - sessionOrigin)
    }

    private var sessionOrigin = 0

    /// Runs one step. Returns `false` when the device has spent its budget and is finished.
    func step() throws -> Bool {
        let t = nextT
        if t == never {
            if written >= budget { return false }
            startSession(
                globalStart: globalOrigin + (sessionEndT - sessionOrigin)
                    + rng.range(1_000, 120_000))
            return true
        }
        try sink.reserve()
        let before = sink.position
        // Ties: the WebSocket first, then the path monitor, then SSE (a fixed order keeps output
        // stable).
        if ws.next == t {
            wsStep(t)
        } else if path.next == t {
            pathStep(t)
        } else {
            sseStep(t)
        }
        let n = sink.position - before
        written += n
        sessionWritten += n
        if !endRequested && (sessionWritten >= sessionBudget || written >= budget) {
            endRequested = true
        }
        if nextT == never { sessionEndT = max(t, lastT) }
        return true
    }

    // MARK: - Sessions

    private func startSession(globalStart: Int) {
        sessionCount += 1
        endRequested = false
        sessionWritten = 0
        let remaining = max(0, budget - written)
        // Sessions of a few hundred KB to a few MB; the last one takes what is left.
        let want = rng.range(256 << 10, 4 << 20)
        sessionBudget = remaining < want + (want >> 1) ? remaining : want
        // Half the sessions count from 0, half from a monotonic clock that was already running.
        let origin = rng.chance(0.5) ? 0 : rng.range(1_000, 900_000_000)
        sessionOrigin = origin
        globalOrigin = globalStart
        var p = ",\"src\":\"\(srcName)\",\"session\":\"s\(sessionCount)\",\"ev\":\""
        p.makeContiguousUTF8()
        prefix = Array(p.utf8)
        ws = WebSocketState()
        sse = SSEState()
        path = PathState()
        wsStartSession(origin, scripted: sessionCount == 1)
        if usesSSE { sseStartSession(origin) }
        pathStartSession(origin)
    }

    // MARK: - Writing lines

    /// Starts a line: `{"t":T,"src":…,"session":…,"ev":"` followed by `head` (the event name, its
    /// closing quote and usually the first key).
    @inline(__always)
    func begin(_ t: Int, _ head: StaticString) {
        sink.put("{\"t\":")
        sink.put(int: t)
        putPrefix()
        sink.put(head)
    }

    /// `,"src":"…","session":"…","ev":"` of the current session.
    @inline(__always)
    func putPrefix() {
        prefix.withUnsafeBufferPointer { sink.put($0) }
    }

    /// Ends a line started at `t`.
    @inline(__always)
    func end(_ t: Int) {
        sink.put("}\n")
        sink.fileLines &+= 1
        sink.totalLines &+= 1
        lastT = t
        lastFile = sink.fileIndex
    }

    /// `{"t":T,…,"ev":"<ev>","gen":G}`: `head` is `ev","gen":`.
    @inline(__always)
    func genLine(_ t: Int, _ head: StaticString, _ gen: Int) {
        begin(t, head)
        sink.put(int: gen)
        end(t)
    }

    /// A line with a gen and one string field: `head` is `ev","gen":`, `key` is `,"key":"`.
    @inline(__always)
    func genLine(
        _ t: Int, _ head: StaticString, _ gen: Int, _ key: StaticString, _ value: StaticString
    ) {
        begin(t, head)
        sink.put(int: gen)
        putString(key, value)
        end(t)
    }

    /// A string field: `key` is `,"key":"`, then `value` and its closing quote.
    @inline(__always)
    func putString(_ key: StaticString, _ value: StaticString) {
        sink.put(key)
        sink.put(value)
        sink.put("\"")
    }

    /// Whether to inject `kind` here; never consults the fault generator in a healthy run.
    @inline(__always)
    func fault(_ kind: FaultKind) -> Bool {
        faults.roll(kind, &faultRng)
    }

    /// Records an injected fault at the line just written.
    @inline(__always)
    func injected(_ kind: FaultKind) {
        faults.record(kind, file: sink.fileIndex, line: sink.fileLines)
    }
}
