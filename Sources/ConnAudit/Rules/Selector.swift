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

    private init(terms: [Term], ids: [Int32]?) {
        self.terms = terms
        self.ids = ids
    }

    /// This selector with `terms` in place of its own, each with the same ``Term/evNames`` as the
    /// term it replaces (its names resolved, ``NameResolution``): the ids stay as they are.
    func replacingTerms(sameEvNames terms: [Term]) -> Selector {
        assert(Self.union(terms) == ids, "the terms' ev names changed")
        return Selector(terms: terms, ids: ids)
    }

    private static func union(_ terms: [Term]) -> [Int32]? {
        var all: [Int32] = []
        for term in terms {
            // The term's names as ids, in the order of their bytes: nil exactly when its names
            // are (``Term/evIDs``).
            guard let ids = term.evIDs else { return nil }
            for id in ids where !all.contains(id) { all.append(id) }
        }
        return all
    }

    /// Whether an event matches exactly when its id is one of ``ids``: every term tests plain
    /// `ev` names and nothing else (no other field, no `not:`, no `where:`). Then ``mayMatch(_:)``
    /// is the whole answer.
    var matchesByIDAlone: Bool {
        guard let ids, ids.allSatisfy({ $0 >= 0 }) else { return false }
        return terms.allSatisfy {
            $0.evIDs != nil && !$0.checksFields && $0.negated == nil && $0.whereRef == nil
        }
    }

    /// Whether an event with this ``EvNames`` id can match (a cheap test before the real one).
    @inline(__always) public func mayMatch(_ id: Int32) -> Bool {
        guard let ids else { return true }
        return ids.contains(id)
    }

    /// One map of field tests. Its parts live in one shared, copy-on-write box: a term is copied
    /// wherever a selector is read while rules run, and a copy is then one reference count.
    public struct Term: Sendable {
        private final class Storage: @unchecked Sendable {
            /// The field tests, in a box of their own that is never changed (a new one replaces
            /// it): terms without tests share one empty box.
            var testsBox = TestsBox.empty {
                didSet { testsRef = Unmanaged.passUnretained(testsBox) }
            }
            /// ``testsBox``, uncounted: the box lives as long as this storage holds it.
            private(set) var testsRef = Unmanaged.passUnretained(TestsBox.empty)
            /// `where:`, in a box of its own that is never changed (a new one replaces it).
            var whereBox: WhereBox? {
                didSet { whereRef = whereBox.map { Unmanaged.passUnretained($0) } }
            }
            /// ``whereBox``, uncounted: the box lives as long as this storage holds it.
            private(set) var whereRef: Unmanaged<WhereBox>?
            var capture: String?
            var whereReadsCapture = false
            /// `where:` as counted calls keyed by the candidate, when it has that shape.
            var countedWhere: CountedWhere? {
                didSet { countedWhereRef = countedWhere.map { Unmanaged.passUnretained($0) } }
            }
            /// ``countedWhere``, uncounted: it lives as long as this storage holds it.
            private(set) var countedWhereRef: Unmanaged<CountedWhere>?
            var negated: Selector?
            var evNames: Set<String>?
            var evIDs: [Int32]?
            /// Whether a test other than the `ev` one that ``evIDs`` answers is left to check.
            var checksFields = false

            init() {}

            func updateChecksFields() {
                checksFields = testsBox.tests.contains { Term.leftToCheck($0, evIDs: evIDs) }
            }

            func copy() -> Storage {
                let c = Storage()
                c.testsBox = testsBox
                c.whereBox = whereBox
                c.capture = capture
                c.whereReadsCapture = whereReadsCapture
                c.countedWhere = countedWhere
                c.negated = negated
                c.evNames = evNames
                c.evIDs = evIDs
                c.checksFields = checksFields
                return c
            }
        }

        private var storage = Storage()

        private mutating func unique() -> Storage {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            return storage
        }

        public var tests: [FieldTest] {
            get { storage.testsBox.tests }
            set {
                let s = unique()
                s.testsBox = newValue.isEmpty ? .empty : TestsBox(newValue)
                s.updateChecksFields()
            }
        }

        /// ``tests`` in their box, uncounted: valid while this term is held unchanged. Read in
        /// place (``TestsBox/withTests(_:_:)``), for the per-candidate tests, where holding the
        /// array would count a reference each time.
        var testsRef: Unmanaged<TestsBox> { storage.testsRef }

        /// `body` with ``tests`` read in place (tests).
        func withTests<R>(_ body: (UnsafeBufferPointer<FieldTest>) -> R) -> R {
            TestsBox.withTests(testsRef, body)
        }

        /// A term's field tests, immutable: read through an uncounted reference, a `let` array
        /// is borrowed where a `var` one would be retained.
        final class TestsBox: Sendable {
            let tests: [FieldTest]
            init(_ tests: [FieldTest]) { self.tests = tests }
            /// The box of every term without field tests.
            static let empty = TestsBox([])

            /// `body` with the tests of the box at `ref`, which the caller's term holds (it is
            /// not retained, nor is the array).
            @inline(__always) static func withTests<R>(
                _ ref: Unmanaged<TestsBox>, _ body: (UnsafeBufferPointer<FieldTest>) -> R
            ) -> R {
                ref._withUnsafeGuaranteedRef { $0.tests.withUnsafeBufferPointer(body) }
            }
        }
        /// Whether a field test is left once the `ev` names are checked by id: most terms test
        /// `ev` alone, and then their tests are not read at all.
        var checksFields: Bool { storage.checksFields }

        /// Whether `test` is checked on its own: every test but the `ev` one, when ``evIDs``
        /// (the same names, as ids) already answers that.
        @inline(__always) static func leftToCheck(_ test: FieldTest, evIDs: [Int32]?) -> Bool {
            test.fieldID != FieldNames.ev || evIDs == nil
        }
        public var whereExpr: Expr? {
            get { storage.whereBox?.expr }
            set { setWhere(newValue, compiled: true) }
        }

        /// Sets `where:` as the rules file says it, compiled only when it runs: a rule's names
        /// are resolved when it compiles, and that makes a new, compiled box
        /// (``NameResolution``). Compiling the parsed one too would be thrown away.
        mutating func setParsedWhere(_ expr: Expr?) { setWhere(expr, compiled: false) }

        /// Whether `where:` is compiled (or absent).
        var whereIsCompiled: Bool { storage.whereBox?.isCompiled ?? true }

        private mutating func setWhere(_ expr: Expr?, compiled: Bool) {
            unique().whereBox = expr.map { WhereBox($0, compiled: compiled) }
            updateWhereReadsCapture()
        }

        /// `where:` as its box, uncounted: valid while this term is held unchanged. Its
        /// expression is read in place (``whereExpr`` gives a copy, and so retains it).
        var whereRef: Unmanaged<WhereBox>? { storage.whereRef }

        /// One `where:` expression, immutable: evaluated through an uncounted reference to it,
        /// it is read where it is, not copied for each candidate a selector is tried on.
        final class WhereBox: Sendable {
            let expr: Expr
            /// `expr` compiled, as candidates are tried with it; or, in a box made by the
            /// parser, compiled each time it runs (``CompiledExpression/compilingEachRun(_:)``).
            let compiled: CompiledExpression
            let isCompiled: Bool
            init(_ expr: Expr, compiled: Bool) {
                self.expr = expr
                self.compiled =
                    compiled ? CompiledExpression(expr) : .compilingEachRun(expr)
                isCompiled = compiled
            }
        }
        /// `as:` — the name the matched event is captured under.
        public var capture: String? {
            get { storage.capture }
            set {
                unique().capture = newValue
                updateWhereReadsCapture()
            }
        }
        /// Whether `where:` reads the term's own capture (else it is not bound while it runs).
        var whereReadsCapture: Bool { storage.whereReadsCapture }

        /// `where:` in its counted form (``CountedWhere``), uncounted: valid while this term is
        /// held unchanged. Only a compiled `where:` that reads the term's capture has one.
        var countedWhereRef: Unmanaged<CountedWhere>? { storage.countedWhereRef }

        private mutating func updateWhereReadsCapture() {
            guard let whereExpr, let capture else {
                let s = unique()
                s.whereReadsCapture = false
                s.countedWhere = nil
                return
            }
            var reads = false
            NameWalker.walk(whereExpr) { sub in
                switch sub {
                case .name(let n, _, _) where n == capture: reads = true
                case .history(let call):
                    if case .capture(let n)? = call.since, n == capture { reads = true }
                default: break
                }
            }
            let s = unique()
            s.whereReadsCapture = reads
            s.countedWhere =
                reads && whereIsCompiled ? CountedWhere(whereExpr, capture: capture) : nil
        }
        /// `not:` — the event must not match this selector.
        public var negated: Selector? {
            get { storage.negated }
            set { unique().negated = newValue }
        }
        /// The exact `ev` names this term can match, when its `ev` test is plain (no glob): used to
        /// skip the term quickly. Nil when any `ev` could match.
        public var evNames: Set<String>? {
            get { storage.evNames }
            set {
                let s = unique()
                s.evNames = newValue
                s.evIDs = newValue.map { Self.inOrder($0).map { EvNames.id($0) } }
                s.updateChecksFields()
            }
        }
        /// The same names as ``EvNames`` ids, in the order of the names' bytes: the same selector
        /// gives the same list, whatever order its set of names iterates in.
        public var evIDs: [Int32]? { storage.evIDs }

        /// `names` in the order of their bytes.
        static func inOrder(_ names: Set<String>) -> [String] {
            names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }

        public init() {}
    }

    public struct FieldTest: Sendable {
        public var field: String {
            didSet { fieldID = FieldNames.builtIn[field] ?? -1 }
        }
        public var predicate: Predicate
        /// How `field` is read: a built-in name's code; once the rule is compiled (``intern()``)
        /// the name's ``FieldNames`` id; -1 before that (by name). Parsing a selector registers
        /// nothing, so only the names of compiled rules take ids.
        public private(set) var fieldID: Int32

        public init(field: String, predicate: Predicate) {
            self.field = field
            self.predicate = predicate
            fieldID = FieldNames.builtIn[field] ?? -1
        }

        /// Gives `field` its ``FieldNames`` id (when its rule is compiled).
        mutating func intern() { fieldID = FieldNames.id(field) }
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

    /// Adds ``evNames`` to `names` term by term, without a union of its own: nil when this
    /// selector can match any `ev`, and a nil `names` stays nil.
    func addEvNames(to names: inout Set<String>?) {
        for term in terms {
            guard names != nil, let n = term.evNames else {
                names = nil
                return
            }
            names!.formUnion(n)
        }
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

    /// Whether `s` has a `*` or `?` character (one with a combining mark on it is another
    /// character). ASCII text is read as bytes, which are its characters.
    public static func isGlob(_ s: String) -> Bool {
        if s.utf8.allSatisfy({ $0 < 0x80 }) {
            return s.utf8.contains { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") }
        }
        return s.contains("*") || s.contains("?")
    }

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
