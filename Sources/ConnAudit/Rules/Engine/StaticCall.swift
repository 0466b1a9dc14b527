/// A history call answered from a running aggregate: the first and last matching event, how many
/// matched, and the largest and smallest `value`, since the latest `since` match.
final class StaticCall: @unchecked Sendable {
    let kind: HistoryCall.Kind
    let selector: Selector
    let since: Selector?
    let value: Expr?

    /// The ids of `selector` and of `since` (nil: no `since`), kept apart so that asking whether
    /// an event may move the aggregate copies no selector.
    private let selectorIDs: EvIDSet
    private let sinceIDs: EvIDSet?
    /// Whether an event's id alone says if it matches the selector, or `since` (true when there
    /// is none): names only, ``Selector/matchesByIDAlone``. An aggregate such as "the last
    /// `ws.ping`" then moves without evaluating anything.
    let selectorByID: Bool
    let sinceByID: Bool

    init(kind: HistoryCall.Kind, selector: Selector, since: Selector?, value: Expr?) {
        self.kind = kind
        self.selector = selector
        self.since = since
        self.value = value
        selectorIDs = EvIDSet([selector])
        sinceIDs = since.map { EvIDSet([$0]) }
        selectorByID = selector.matchesByIDAlone
        sinceByID = since?.matchesByIDAlone ?? true
    }

    /// Whether this aggregate answers a call on `selector` (since `since`, of `value`) as one of
    /// the call's own would: the same events move both, and the same events set them back. Calls
    /// of different kinds asked alike share one aggregate of a kind that keeps what each reads
    /// (``merged(with:)``).
    ///
    /// Conservative: both selectors (and both `since`s, or neither) test plain `ev` names alone
    /// (``selectorByID``), with the same ids; neither keeps a `value`.
    func answersAlike(selector: Selector, since: Selector?, value: Expr?) -> Bool {
        guard value == nil, self.value == nil, selectorByID, selector.matchesByIDAlone,
            Self.sameIDs(self.selector, selector)
        else { return false }
        switch (self.since, since) {
        case (nil, nil): return true
        case (let a?, let b?): return sinceByID && b.matchesByIDAlone && Self.sameIDs(a, b)
        default: return false
        }
    }

    /// The aggregate that answers this one's calls and those of a call of `kind` asked alike:
    /// one that is not `first` moves on every match (a `first` stops once found), and its lets
    /// go stale with every match, which is when a `last` or `count` changes. A `count` keeps
    /// its count alone (``Runner/updateAggregates(_:)``): shared with a `first` or a `last`, the
    /// aggregate is a `last`, which keeps the first and last match and the count.
    func merged(with kind: HistoryCall.Kind) -> StaticCall {
        let merged: HistoryCall.Kind
        switch (self.kind, kind) {
        case (.first, .count), (.count, .first), (.count, .last): merged = .last
        case (.first, _): merged = kind
        default: return self
        }
        guard merged != self.kind else { return self }
        return StaticCall(kind: merged, selector: selector, since: since, value: value)
    }

    private static func sameIDs(_ a: Selector, _ b: Selector) -> Bool {
        guard let x = a.ids, let y = b.ids else { return false }
        return Set(x) == Set(y)
    }

    /// Whether an event with this ``EvNames`` id may match the selector.
    @inline(__always) func selectorMayMatch(_ id: Int32) -> Bool {
        selectorIDs.contains(id)
    }

    /// Whether an event with this id may match the `since` selector (false when there is none).
    @inline(__always) func sinceMayMatch(_ id: Int32) -> Bool {
        sinceIDs?.contains(id) ?? false
    }
}
