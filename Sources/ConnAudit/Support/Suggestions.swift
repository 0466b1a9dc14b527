/// "Did you mean" for a mistyped option, command or rule id.
enum Suggestions {
    /// The candidates closest to `typed`: those at the smallest edit distance (insertions,
    /// deletions, substitutions and swaps of two neighbours) when it is small for the text's
    /// length — one edit in a short word, two from six characters on — else those that `typed`
    /// begins (`--max` for `--max-expansion`). Sorted; empty when nothing is close.
    static func closest(to typed: String, among candidates: [String]) -> [String] {
        let a = Array(typed.unicodeScalars)
        let core = typed.drop { $0 == "-" }.count
        let allowed = core >= 6 ? 2 : 1
        var best = Int.max
        var found: [String] = []
        for candidate in Set(candidates) {
            let d = distance(a, Array(candidate.unicodeScalars), limit: allowed)
            guard d <= allowed else { continue }
            if d < best {
                best = d
                found = [candidate]
            } else if d == best {
                found.append(candidate)
            }
        }
        if found.isEmpty, core >= 3 {
            found = Array(Set(candidates.filter { $0.hasPrefix(typed) }))
        }
        return found.sorted()
    }

    /// ` (did you mean 'x'?)`, ` (did you mean 'x' or 'y'?)`, or nothing.
    static func hint(for typed: String, among candidates: [String]) -> String {
        let close = closest(to: typed, among: candidates).prefix(3).map { "'\($0)'" }
        guard let last = close.last else { return "" }
        let list =
            close.count == 1 ? last : close.dropLast().joined(separator: ", ") + " or " + last
        return " (did you mean \(list)?)"
    }

    /// The optimal string alignment distance between `a` and `b`, or `limit + 1` once it is sure
    /// to pass `limit` (texts whose lengths differ by more are not compared at all).
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowBest = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d = min(d, before[j - 2] + 1)
                }
                current[j] = d
                rowBest = min(rowBest, d)
            }
            if rowBest > limit { return limit + 1 }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
