/// Which events a rule talks about: a map of field tests AND-ed, a list of maps OR-ed.
///
/// `{ ev: ws.close, reason: { exists: false } }`, `[{ ev: ws.closed }, { ev: ws.recv_error }]`,
/// `{ ev: "ws.*", where: "gen == c.gen", as: x }`. See docs/rules.md.
public struct Selector: Sendable {
    public var terms: [Term] {
        didSet { ids = Self.union(terms) }
    }
    /// The ``EvNames`` ids of ``evNames`` (nil: any `ev` may match).
    public private(set) var ids: [Int32]?

    public init(terms: [Term]) {
        self.terms = terms
        ids = Self.union(terms)
    }

    private static func union(_ terms: [Term]) -> [Int32]? {
        var all: [Int32] = []
        for term in terms {
            guard let names = term.evNames else { return nil }
            for n in names { let id = EvNames.id(n); if !all.contains(id) { all.append(id) } }
        }
        return all
    }

    /// Whether an event with this ``EvNames`` id can match (a cheap test before the real one).
    @inline(__always) public func mayMatch(_ id: Int32) -> Bool {
        guard let ids else { return true }
        return ids.contains(id)
    }

    public struct Term: Sendable {
        public var tests: [FieldTest] = []
        public var whereExpr: Expr? {
            didSet { updateWhereReadsCapture() }
        }
        /// `as:` — the name the matched event is captured under.
        public var capture: String? {
            didSet { updateWhereReadsCapture() }
        }
        /// Whether `where:` reads the term's own capture (else it is not bound while it runs).
        private(set) var whereReadsCapture = false

        private mutating func updateWhereReadsCapture() {
            guard let whereExpr, let capture else { whereReadsCapture = false; return }
            var reads = false
            NameWalker.walk(whereExpr) { sub in
                switch sub {
                case .name(let n, _) where n == capture: reads = true
                case .history(let call):
                    if case .capture(let n)? = call.since, n == capture { reads = true }
                default: break
                }
            }
            whereReadsCapture = reads
        }
        /// `not:` — the event must not match this selector.
        public var negated: Selector?
        /// The exact `ev` names this term can match, when its `ev` test is plain (no glob): used to
        /// skip the term quickly. Nil when any `ev` could match.
        public var evNames: Set<String>? {
            didSet { evIDs = evNames.map { $0.map { EvNames.id($0) } } }
        }
        /// The same names as ``EvNames`` ids.
        public private(set) var evIDs: [Int32]?

        public init() {}
    }

    public struct FieldTest: Sendable {
        public var field: String
        public var predicate: Predicate
    }

    public indirect enum Predicate: Sendable {
        case equals(Value)
        case glob(GlobPattern)
        case oneOf([Predicate])
        case exists(Bool)
        case notIn([Value])
        case compare(Expr.BinaryOp, Value)
        case all([Predicate])
        case not(Predicate)
        case matches(BoundedRegex)
    }

    /// The union of the `ev` names the selector can match; nil if it can match any `ev`.
    public var evNames: Set<String>? {
        var all = Set<String>()
        for term in terms {
            guard let names = term.evNames else { return nil }
            all.formUnion(names)
        }
        return all
    }

    /// Names captured with `as:` in any term.
    public var captures: [String] { terms.compactMap(\.capture) }
}

/// A glob over `ev` names: `*` any run of characters, `?` one character.
public struct GlobPattern: Sendable, CustomStringConvertible {
    public let pattern: String
    private let bytes: [UInt8]

    public init(_ pattern: String) {
        self.pattern = pattern
        bytes = Array(pattern.utf8)
    }

    public static func isGlob(_ s: String) -> Bool { s.contains("*") || s.contains("?") }

    public var description: String { pattern }

    /// Iterative wildcard match (linear in practice, no recursion).
    public func matches(_ s: String) -> Bool {
        let text = Array(s.utf8)
        var p = 0, t = 0
        var starP = -1, starT = 0
        while t < text.count {
            if p < bytes.count, bytes[p] == UInt8(ascii: "?") || bytes[p] == text[t] {
                p += 1
                t += 1
            } else if p < bytes.count, bytes[p] == UInt8(ascii: "*") {
                starP = p
                starT = t
                p += 1
            } else if starP >= 0 {
                p = starP + 1
                starT += 1
                t = starT
            } else {
                return false
            }
        }
        while p < bytes.count, bytes[p] == UInt8(ascii: "*") { p += 1 }
        return p == bytes.count
    }
}
