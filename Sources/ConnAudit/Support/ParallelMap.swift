import Dispatch
import Synchronization

/// Runs `body(i, worker)` for every `i` in `0..<count` on up to `jobs` threads and returns the
/// results in index order; `worker` is the thread's number (0..<jobs), the same for every item
/// that thread takes (so each thread can keep objects of its own). Items are handed out one at a
/// time, so a slow one holds up only its thread. One thread: plainly in order, on the caller's.
func parallelMap<T>(_ count: Int, jobs: Int, _ body: @escaping (_ index: Int, _ worker: Int) -> T)
    -> [T]
{
    guard count > 0 else { return [] }
    let workers = min(max(1, jobs), count)
    if workers == 1 { return (0..<count).map { body($0, 0) } }
    let results = Mutex<[Int: UncheckedBox<T>]>([:])
    let next = Atomic<Int>(0)
    let work = UncheckedBox(body)
    DispatchQueue.concurrentPerform(iterations: workers) { worker in
        while true {
            let i = next.add(1, ordering: .relaxed).oldValue
            if i >= count { return }
            let r = UncheckedBox(work.value(i, worker))
            results.withLock { $0[i] = r }
        }
    }
    return results.withLock { dict in (0..<count).map { dict[$0]!.value } }
}

/// A value handed between threads whose safety the caller sees to: each item's result is written
/// by one thread and read after all of them are done.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
