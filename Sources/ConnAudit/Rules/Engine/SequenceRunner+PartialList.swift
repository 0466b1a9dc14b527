/// A stage's partial matches (``SequenceRunner/Stage/partials``), in storage of the runner's own.
///
/// A partial is marked dead, reopened or grown in place about once per event that concerns it;
/// each such write to an array checks that its buffer is held once, and each read checks the
/// index. This list is a buffer and its count, which only its stage holds: a write goes to the
/// element's address. It is a value that shares its buffer when copied, so a copy is only read,
/// while its stage is unchanged; the runner frees the buffer (``deallocate()``) where it lets go
/// of the stage.
extension SequenceRunner {
    struct PartialList: RandomAccessCollection {
        /// The elements, the first ``count`` of ``capacity`` (nil: no room made yet).
        private(set) var base: UnsafeMutablePointer<Partial>?
        private(set) var count = 0
        private(set) var capacity = 0

        var startIndex: Int { 0 }
        var endIndex: Int { count }

        /// The partial at `i`, below ``count``; changed where it lies.
        subscript(i: Int) -> Partial {
            get {
                assert(i >= 0 && i < count, "index out of range")
                return base![i]
            }
            nonmutating _modify {
                assert(i >= 0 && i < count, "index out of range")
                yield &base![i]
            }
        }

        /// Where the partial at `i` lies, for reads in place.
        func address(_ i: Int) -> UnsafeMutablePointer<Partial> {
            assert(i >= 0 && i < count, "index out of range")
            return base! + i
        }

        mutating func append(_ p: consuming Partial) {
            if count == capacity { grow() }
            (base! + count).initialize(to: p)
            count += 1
        }

        /// Twice the room (at least 4), the partials moved there.
        private mutating func grow() {
            let room = Swift.max(4, capacity * 2)
            let new = UnsafeMutablePointer<Partial>.allocate(capacity: room)
            if let base {
                new.moveInitialize(from: base, count: count)
                base.deallocate()
            }
            base = new
            capacity = room
        }

        /// Takes the last partial out (nil: none).
        mutating func popLast() -> Partial? {
            guard count > 0 else { return nil }
            count -= 1
            return (base! + count).move()
        }

        /// Swaps the partials at `i` and `j`, both below ``count``, moved.
        func swapAt(_ i: Int, _ j: Int) {
            guard i != j else { return }
            let a = address(i)
            let b = address(j)
            let p = a.move()
            a.moveInitialize(from: b, count: 1)
            b.initialize(to: p)
        }

        /// Drops the partials from `n` on; the room stays.
        mutating func truncate(to n: Int) {
            guard count > n else { return }
            (base! + n).deinitialize(count: count - n)
            count = n
        }

        /// Drops every partial and frees the room.
        mutating func deallocate() {
            truncate(to: 0)
            base?.deallocate()
            base = nil
            capacity = 0
        }
    }
}
