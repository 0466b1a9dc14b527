/// How a runner answers each history call of its rule, decided once per rule from the rule alone:
/// the call's running aggregate or counted index, else the list it searches, its `since` list,
/// its `$seq` bound and its equality index's shape. A call reads its plan in place: the answer
/// looks nothing up and decides nothing that the rule decides.
///
/// The storage is allocated once and never changes: a runner keeps a ``View`` of it (a plain
/// pointer, no reference to count) for as long as it holds the compiled rule that owns it. Like
/// its rule, it is one worker's own (``Auditor/makePlan(files:judging:)``).
final class HistoryPlans {
    struct Plan {
        /// The call's running aggregate (its position in ``CompiledRule/staticCalls``); -1: none.
        let aggregate: Int32
        /// Whether a ``CountedIndex`` answers it (``CompiledRule/countedShapes``, on its list).
        let counted: Bool
        /// The list it searches and its `since` selector's list (``CompiledRule/listOfSlot``,
        /// ``CompiledRule/sinceListOfSlot``); -1: none.
        let list: Int32
        let sinceList: Int32
        /// Its `$seq` bound (``CompiledRule/seqSides``) and its equality index's shape
        /// (``CompiledRule/keyedShapes``), uncounted: this table and the rule hold them.
        let seq: Unmanaged<SeqBound>?
        let keyed: Unmanaged<KeyedShape>?

        /// The plan of a slot that is not the rule's: no list, so no candidates.
        static let none = Plan(
            aggregate: -1, counted: false, list: -1, sinceList: -1, seq: nil, keyed: nil)
    }

    /// A plain pointer into the table: valid while the table lives.
    struct View {
        fileprivate let base: Int
        fileprivate let count: Int
        fileprivate let plans: UnsafePointer<Plan>

        /// The plan of the call with `slot` (``Plan/none`` for a slot not of the rule's).
        @inline(__always) subscript(slot: Int) -> UnsafePointer<Plan> {
            let i = slot &- base
            return plans + (i >= 0 && i < count ? i : count)
        }
    }

    private let plans: UnsafeMutableBufferPointer<Plan>
    /// The objects the plans point at, kept alive here.
    private let seqBounds: [SeqBound]
    let view: View

    init(_ compiled: CompiledRule) {
        let slots = compiled.callSlots.filter { $0 >= 0 }
        let base = slots.min() ?? 0
        let count = slots.isEmpty ? 0 : slots.max()! - base + 1
        var seqBounds: [SeqBound] = []
        // One entry per slot of the rule's range, and ``Plan/none`` after them.
        var plans = Array(repeating: Plan.none, count: count + 1)
        for slot in slots {
            var seq: Unmanaged<SeqBound>?
            if let side = compiled.seqSides[slot] {
                let bound = SeqBound(side)
                seqBounds.append(bound)
                seq = .passUnretained(bound)
            }
            plans[slot - base] = Plan(
                aggregate: compiled.staticSlots[slot].map { Int32($0) } ?? -1,
                counted: compiled.countedShapes[slot] != nil && compiled.listOfSlot[slot] != nil,
                list: compiled.listOfSlot[slot].map { Int32($0) } ?? -1,
                sinceList: compiled.sinceListOfSlot[slot].map { Int32($0) } ?? -1,
                seq: seq,
                keyed: compiled.keyedShapes[slot].map { .passUnretained($0) })
        }
        self.seqBounds = seqBounds
        self.plans = .allocate(capacity: plans.count)
        _ = self.plans.initialize(from: plans)
        view = View(base: base, count: count, plans: UnsafePointer(self.plans.baseAddress!))
    }

    deinit {
        plans.deinitialize()
        plans.deallocate()
    }
}

/// A call's `$seq > X` bound (``CompiledRule/seqConjunct(_:)``), ready to read: X as an outer
/// side, and, when X is `CAPTURE.$seq` for a capture its rule resolved to a slot
/// (``LetSlot/capture``), that capture's name and slot, read where the context's captures hold
/// its event.
///
/// Such a capture, bound in the captures, is what X's compiled expression reads
/// (``CompiledExpression/captureMember(_:_:_:_:)``), and it binds X's one name
/// (``Runner/binds(_:_:)``): its event's seq is X's value, an integer. Anywhere else the side is
/// read as written. (`SeqBoundAgreesWithItsSideTests` compares both.)
final class SeqBound {
    let side: OuterSide
    /// The capture's name and slot; slot -1: the side is read as written. Two fields, not an
    /// optional tuple, so that reading them copies no String.
    private let captureName: String
    private let captureSlot: Int

    init(_ side: OuterSide) {
        self.side = side
        if case .member(.name(let name, _, let hint), "$seq", let id, _) = side.expr,
            id == -1 || id == FieldNames.seq, name != "params", hint.layout >= 0, hint.slot < 0,
            hint.capture >= 0, side.bindings == [name]
        {
            captureName = name
            captureSlot = Int(hint.capture)
        } else {
            captureName = ""
            captureSlot = -1
        }
    }

    /// Whether the capture is read without the side's expression where the captures hold it.
    var readsCaptureDirectly: Bool { captureSlot >= 0 }

    /// The seq at or before which no candidate can match in `context`; nil when there is none
    /// (the side reads a name not bound there, or its value is not a number within ±9e15).
    @inline(__always) func cut(_ context: EvalContext) -> Int? {
        if captureSlot >= 0, !context.captures.isEmpty,
            let seq = context.captures.withEvent(slot: captureSlot, captureName, { $0.seq })
        {
            // `.int(seq)` as a number: exact below 2^53, and whole.
            guard seq.magnitude < 9_000_000_000_000_000 else { return nil }
            return side.strict ? seq : seq - 1
        }
        return Self.cut(side, context)
    }

    /// ``cut(_:)`` from the side as written.
    static func cut(_ side: OuterSide, _ context: EvalContext) -> Int? {
        guard Runner.binds(side.bindings, context),
            case .value(let v) = side.value(context),
            let n = v.number, n.isFinite, abs(n) < 9e15
        else { return nil }
        // Candidates need seq > n (strict) or seq >= n: everything at or before the cut is cut.
        let whole = n.rounded(.down)
        return side.strict || whole != n ? Int(whole) : Int(whole) - 1
    }
}
