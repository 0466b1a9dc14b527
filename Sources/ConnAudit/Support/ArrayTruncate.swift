extension Array {
    /// Drops the elements from `n` on, last first. For the few elements a scratch list or a
    /// partial-match list holds, much cheaper than `removeSubrange(n...)` or
    /// `removeAll(keepingCapacity: true)`, which both take the general replace path; the capacity
    /// stays.
    @inline(__always) mutating func truncate(to n: Int) {
        while count > n { removeLast() }
    }
}
