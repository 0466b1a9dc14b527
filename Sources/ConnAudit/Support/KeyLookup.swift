/// Membership in a list of keys, such as an event's redacted keys, asked once per field.
///
/// A short list is searched in place; a long one is looked up through a set made once beside
/// it, so asking about each of n fields costs n, not n² (a line of 40,000 top-level keys that
/// each hold a secret would otherwise take seconds in the reader, the reports' context and the
/// timelines).
/// An event without secrets has an empty list: nothing is made for it.
///
/// - Complexity: O(n) to make, for n keys; O(1) a lookup (O(n) for a list of at most
///   ``searchLimit`` keys).
struct KeyLookup {
    /// Lists up to this long are searched: a set would cost more than it saves.
    static let searchLimit = 16

    private let keys: [String]
    private let set: Set<String>?

    init(_ keys: [String]) {
        self.keys = keys
        set = keys.count > Self.searchLimit ? Set(keys) : nil
    }

    /// Whether `key` is one of the keys (String's `==`, as `Array.contains` has it).
    @inline(__always) func contains(_ key: String) -> Bool {
        if let set { return set.contains(key) }
        return keys.contains(key)
    }
}
