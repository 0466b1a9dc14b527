/// The unbound captures a sequence runner keeps for its next partials to start
/// (``SequenceRunner/spareCaptures``): at most ``capacity``, held in four stored slots.
///
/// Slots, not an array: a partial starts and a dropped one is recycled about once per trigger,
/// and an array's append and removal each check that its buffer is held once and call the
/// standard library's generic code. A spare moves into its slot, and out of it with `take()`,
/// with no reference counted.
struct SpareCaptures {
    static let capacity = 4
    /// The spares, the first ``count`` slots; the others hold nil.
    private var slot0: Captures?
    private var slot1: Captures?
    private var slot2: Captures?
    private var slot3: Captures?
    /// How many slots hold a spare: those below it.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Adds `captures` (the caller has room: ``count`` below ``capacity``), moved into the slot,
    /// which holds nil.
    @inline(__always) mutating func append(_ captures: consuming Captures) {
        precondition(count < Self.capacity, "no room for a spare")
        switch count {
        case 0: slot0 = consume captures
        case 1: slot1 = consume captures
        case 2: slot2 = consume captures
        default: slot3 = consume captures
        }
        count += 1
    }

    /// Takes the last spare added (the caller checked there is one); its slot is left nil.
    @inline(__always) mutating func removeLast() -> Captures {
        precondition(count > 0, "no spare to take")
        count -= 1
        switch count {
        case 0: return slot0.take()!
        case 1: return slot1.take()!
        case 2: return slot2.take()!
        default: return slot3.take()!
        }
    }

    /// Whether every spare held satisfies `test` (tests).
    func allSatisfy(_ test: (Captures) -> Bool) -> Bool {
        [slot0, slot1, slot2, slot3].prefix(count).allSatisfy { $0.map(test) ?? false }
    }
}
