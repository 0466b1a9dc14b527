/// The deadlines of one source: obligations are decided as soon as an event of the source has a
/// later `t` (rules.md: the clock is the source's, whatever the timeline).
final class SourceClock {
    /// A binary heap of deadlines, with each deadline's owner (an index into ``owners``) at the
    /// same position in ``slots``: the heap moves plain numbers only, never an owner (whose copy
    /// would retain its runner and scope).
    private var deadlines: [Double] = []
    private var slots: [Int32] = []
    /// The runner and scope of each scheduled deadline; nil for a free place (listed in ``free``).
    private var owners: [(runner: Runner, scope: ContextScope)?] = []
    private var free: [Int32] = []
    /// Owners due at one `advance`, kept between calls so it allocates nothing.
    private var dueScratch: [(runner: Runner, scope: ContextScope)] = []

    func schedule(_ deadline: Double, runner: Runner, scope: ContextScope) {
        runner.clockEntries &+= 1
        let slot: Int32
        if let reused = free.popLast() {
            slot = reused
            owners[Int(slot)] = (runner, scope)
        } else {
            slot = Int32(owners.count)
            owners.append((runner, scope))
        }
        deadlines.append(deadline)
        slots.append(slot)
        var i = deadlines.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            if deadlines[parent] <= deadlines[i] { break }
            swap(parent, i)
            i = parent
        }
    }

    /// How many deadlines wait on the clock (tests: a runner keeps a few there, not one per
    /// obligation).
    var scheduledCount: Int { deadlines.count }

    @inline(__always) private func swap(_ a: Int, _ b: Int) {
        deadlines.swapAt(a, b)
        slots.swapAt(a, b)
    }

    /// The times the clock was advanced to, as suffix maxima: `(seq, t)` with `t` falling, so the
    /// first entry at or after a `seq` holds the highest `t` since then (``highest(since:)``): every
    /// entry but the last in ``peaks``, the last in ``lastPeak``. With `t` that never falls there is
    /// only the last, replaced in place without touching the array; while `t` keeps falling they
    /// grow, up to ``maxPeaks``: then the older half is forgotten.
    private var peaks: [(seq: Int, t: Double)] = []
    private var lastPeak: (seq: Int, t: Double)?
    private var forgottenThrough = Int.min
    static let maxPeaks = 4096

    /// The highest time the clock was advanced to by the event with `$seq` `seq` or a later one;
    /// -infinity if none; nil if that is no longer known (``maxPeaks``). A deadline scheduled while
    /// that event was judged has been decided since exactly when it is before this (a replay sets
    /// a clock to it: ``RetiredTimeline``).
    func highest(since seq: Int) -> Double? {
        guard seq > forgottenThrough else { return nil }
        var lo = 0, hi = peaks.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if peaks[mid].seq < seq { lo = mid + 1 } else { hi = mid }
        }
        if lo < peaks.count { return peaks[lo].t }
        if let last = lastPeak, last.seq >= seq { return last.t }
        return -.infinity
    }

    /// Advances the clock for the event with `$seq` `seq` (see ``advance(to:sink:)``).
    ///
    /// Inlined into each event's feed: most events find no peak to give way and no deadline
    /// passed, and cost a few comparisons, not two calls.
    @inline(__always) func advance(to now: Double, seq: Int, sink: FindingSink) {
        if peaks.isEmpty, let last = lastPeak, last.t <= now {
            lastPeak = (seq, now)
        } else {
            notePeak(now, seq: seq)
        }
        if let first = deadlines.first, first < now { advance(to: now, sink: sink) }
    }

    /// ``advance(to:seq:sink:)``'s peaks when some give way to `now` or it is below the last.
    @inline(never) private func notePeak(_ now: Double, seq: Int) {
        if !now.isNaN {
            // The peaks at or below `now` give way to it. Usually `t` did not fall: the last peak
            // is replaced, and the array is only read.
            if let last = lastPeak, last.t > now {
                peaks.append(last)
                if peaks.count + 1 > Self.maxPeaks {
                    forgottenThrough = peaks[Self.maxPeaks / 2 - 1].seq
                    peaks.removeFirst(Self.maxPeaks / 2)
                }
            } else {
                while let p = peaks.last, p.t <= now { peaks.removeLast() }
            }
            lastPeak = (seq, now)
        }
    }

    /// Moves every scheduled deadline to `other` (a replay's clock handing over to the source's).
    func move(to other: SourceClock) {
        for (i, deadline) in deadlines.enumerated() {
            if let owner = owners[Int(slots[i])] {
                other.schedule(deadline, runner: owner.runner, scope: owner.scope)
                owner.runner.clockEntries &-= 1
            }
        }
        deadlines = []
        slots = []
        owners = []
        free = []
    }

    /// Tells every runner with a deadline before `now` to decide; each runner checks its own.
    func advance(to now: Double, sink: FindingSink) {
        guard let first = deadlines.first, first < now else { return }
        var due = dueScratch
        dueScratch = []
        while let top = deadlines.first, top < now {
            let last = deadlines.count - 1
            swap(0, last)
            deadlines.removeLast()
            let slot = Int(slots.removeLast())
            // Moved out of its place, not copied and then cleared: no count taken or given back.
            let owner = owners[slot].take()!
            owner.runner.clockEntries &-= 1
            due.append(owner)
            free.append(Int32(slot))
            // Sifted down in place: no uniqueness check per swap.
            deadlines.withUnsafeMutableBufferPointer { deadlines in
                slots.withUnsafeMutableBufferPointer { slots in
                    var i = 0
                    let n = deadlines.count
                    while true {
                        let l = 2 * i + 1, r = l + 1
                        var m = i
                        if l < n, deadlines[l] < deadlines[m] { m = l }
                        if r < n, deadlines[r] < deadlines[m] { m = r }
                        if m == i { break }
                        deadlines.swapAt(i, m)
                        slots.swapAt(i, m)
                        i = m
                    }
                }
            }
        }
        // A runner due several times decides once (it checks all its deadlines). The owners are
        // read in place: a copy of one counts its runner, its context and its stream's text.
        due.withUnsafeBufferPointer { due in
            if due.count <= 8 {
                for k in due.indices
                where !due[..<k].contains(where: { $0.runner === due[k].runner }) {
                    due[k].runner.expire(now: now, context: due[k].scope, sink: sink)
                }
            } else {
                var seen = Set<ObjectIdentifier>()
                for k in due.indices where seen.insert(ObjectIdentifier(due[k].runner)).inserted {
                    due[k].runner.expire(now: now, context: due[k].scope, sink: sink)
                }
            }
        }
        due.truncate(to: 0)
        dueScratch = due
    }
}
