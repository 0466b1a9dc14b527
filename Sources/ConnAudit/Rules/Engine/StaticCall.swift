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

    /// Whether an event with this ``EvNames`` id may match the selector.
    @inline(__always) func selectorMayMatch(_ id: Int32) -> Bool {
        selectorIDs.contains(id)
    }

    /// Whether an event with this id may match the `since` selector (false when there is none).
    @inline(__always) func sinceMayMatch(_ id: Int32) -> Bool {
        sinceIDs?.contains(id) ?? false
    }
}
