/// What tells two matches of a sequence apart: a few numbers (a partial's stage or a complete
/// match's last event, then the `$seq` of its keyed captures in name order).
///
/// Partial matches and obligations are made for many events, and each is keyed once or more:
/// up to three numbers are held inline, so making a key allocates nothing. Two keys are equal
/// exactly when they hold the same numbers in the same order, as two arrays would be.
struct MatchKey: Hashable {
    private var count = 0
    // Unused places stay 0, so equal sequences have equal fields.
    private var a = 0, b = 0, c = 0
    private var more: [Int] = []

    init() {}

    init(_ numbers: [Int]) {
        for n in numbers { append(n) }
    }

    mutating func append(_ n: Int) {
        switch count {
        case 0: a = n
        case 1: b = n
        case 2: c = n
        default: more.append(n)
        }
        count += 1
    }

    /// The numbers, in order.
    var numbers: [Int] { Array([a, b, c].prefix(count)) + more }
}
