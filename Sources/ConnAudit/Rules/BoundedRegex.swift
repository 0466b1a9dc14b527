#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A regular expression that matches in time linear in the text, whatever the pattern.
///
/// Rule files use regular expressions (`{ error: { matches: "^NSURLErrorDomain:" } }`, `matches(x,
/// re)`), and a rules file must never be able to hang the checker. Swift's `Regex`,
/// `NSRegularExpression` and POSIX `regex` backtrack, so `(a+)+$` on a long line can take
/// exponential time. This engine parses the pattern, compiles it to a Thompson NFA and simulates it
/// with a Pike VM (Russ Cox, "Regular Expression Matching: the Virtual Machine Approach"): every
/// NFA state is visited at most once per character of text.
///
/// Supported syntax:
/// - literal characters; `.` (any character except `\n`);
/// - anchors `^` (start of text) and `$` (end of text; there is no multi-line mode);
/// - classes `[abc]`, `[a-z]`, `[^...]`, with escapes inside (`[\]\-]`, `[\d_]`). A `-` is literal
///   only first, last, or escaped; `]` must be escaped inside a class; `[` must be escaped inside a
///   class;
/// - class escapes `\d \D \w \W \s \S` (ASCII meanings: `[0-9]`, `[A-Za-z0-9_]`, `[\t\n\v\f\r ]`);
/// - escapes `\. \\ \- \^ \$ \* \+ \? \( \) \[ \] \{ \} \| \/` (the character itself) and `\t \n
///   \r`;
/// - groups `( … )` and `(?: … )` — both only group: no captures are reported, only match or no
///   match;
/// - alternation `|`;
/// - quantifiers `*`, `+`, `?`, their lazy forms `*?`, `+?`, `??` (same answer: only match/no match
///   is reported), and counted `{n}`, `{n,}`, `{n,m}` with n, m ≤ 1000 (and lazy forms `{n,m}?`);
/// - a leading `(?i)` that makes the whole pattern case-insensitive (ASCII letters only).
///
/// Text is worked on as Unicode scalars, so `.` and classes match whole characters (a Hangul
/// syllable, an emoji scalar). UTF-8 is decoded once while matching; each invalid byte counts as
/// one U+FFFD.
///
/// Everything else is a ``RegexSyntaxError`` with the byte offset of the offending part:
/// backreferences (`\1`), lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`), atomic groups, possessive
/// quantifiers (`a*+`), named groups, inline flags other than a leading `(?i)`, unknown escapes
/// (`\q`, `\b`, `\A`, `\p{…}`, `\x41`), unbalanced parentheses, a quantifier with nothing to repeat
/// (`*a`, `^*`, `a**`), `{3,2}`, a stray `{`, `}` or `]`, and an unterminated or empty class.
///
/// Limits: a pattern of at most ``maxPatternBytes`` bytes, groups nested at most
/// ``maxNestingDepth`` deep, counts of at most ``maxRepetitionCount``, and at most
/// ``maxProgramSize`` compiled instructions (counted repetition is expanded, so `(a{1000}){100}` is
/// too large).
///
/// Linear is not cheap: 20,000 instructions against a 1 MiB text is about 2·10^10 steps. A caller
/// that must stay bounded passes a budget of steps (``matches(_:budget:)-(String,_)``);
/// ``defaultTimelineStepBudget`` is the one a timeline's rule evaluation draws on.
public struct BoundedRegex: Sendable, CustomStringConvertible {
    /// The longest pattern accepted, in UTF-8 bytes.
    public static let maxPatternBytes = 4096
    /// The most instructions a pattern may compile to (counted repetition expands).
    public static let maxProgramSize = 20_000
    /// The largest `n` or `m` in `{n}`, `{n,}`, `{n,m}`.
    public static let maxRepetitionCount = 1000
    /// The deepest nesting of groups (PCRE2's default limit).
    public static let maxNestingDepth = 250
    /// The VM steps one timeline's regex searches may take: about 100 searches of a 1 MiB text at 3
    /// steps a byte (on text they do not match, `error` takes 2.2 steps a byte, `[Tt]ime ?out` 2.0,
    /// `timeout|reset` and `(a|b)+c` 4.1). A release build takes about 2 to 4 ns a step:
    /// `(a|aa|aaa|aaaa){1000}c` on a 1 MiB text of `a`s and a `c` uses the budget up in about 0.6
    /// s.
    public static let defaultTimelineStepBudget = 300_000_000

    /// The pattern as written.
    public let pattern: String
    private let program: [Instruction]
    private let sets: [ScalarSet]
    /// Every match must start at offset 0 (each branch begins with `^`): no need to restart at
    /// later positions.
    private let anchoredAtStart: Bool
    /// UTF-8 encodings of scalars every match consumes, rarest first (at most 3): a text without
    /// one of them cannot match, which a byte scan tells much faster than the VM.
    private let requiredBytes: [[UInt8]]

    /// Parses and compiles `pattern`.
    ///
    /// - Throws: ``RegexSyntaxError`` for unsupported or malformed syntax and for patterns over the
    ///   limits, with the 0-based byte offset of the offending part.
    public init(_ pattern: String) throws(RegexSyntaxError) {
        guard pattern.utf8.count <= Self.maxPatternBytes else {
            throw RegexSyntaxError(
                message: "pattern is longer than \(Self.maxPatternBytes) bytes",
                offset: Self.maxPatternBytes)
        }
        var parser = Parser(pattern)
        let tree = try parser.parse()
        var compiler = Compiler()
        try compiler.compile(tree)
        _ = try compiler.emit(Instruction(.match))
        self.pattern = pattern
        self.program = compiler.program
        self.sets = parser.sets
        self.anchoredAtStart = tree.isAnchoredAtStart
        self.requiredBytes = Self.rarestFirst(tree.requiredScalars)
    }

    /// What a search answers: within its budget of steps, or not.
    public enum Outcome: Sendable, Equatable {
        case match
        case noMatch
        /// The search needed more steps than the budget held.
        case exhausted
    }

    public var description: String { pattern }

    /// Search semantics (like `grep` or Python's `re.search`): true if the pattern matches anywhere
    /// in `text`.
    ///
    /// - Complexity: O(*p* × *n*) time and O(*p*) memory, where *p* is the compiled program size
    ///   (at most ``maxProgramSize``) and *n* the length of `text`. No backtracking: each
    ///   instruction is visited at most once per character.
    public func matches(_ text: String) -> Bool {
        var unlimited = Int.max
        return matches(text, budget: &unlimited) == .match
    }

    /// The same search on UTF-8 bytes; each invalid byte counts as one U+FFFD.
    ///
    /// - Complexity: O(*p* × *n*) time and O(*p*) memory.
    public func matches(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var unlimited = Int.max
        return matches(bytes, budget: &unlimited) == .match
    }

    /// The same search within a budget of VM steps, taken from `budget`.
    ///
    /// A step is one thread visited at one position of the text (plus one per position): the work
    /// the VM does. A text that lacks a byte every match needs is answered without steps. The steps
    /// are the same for the same pattern and text on every run. When the search would need more
    /// than `budget` holds it stops, leaves `budget` at 0 and answers ``Outcome/exhausted``;
    /// otherwise its answer is ``matches(_:)-(String)``'s.
    public func matches(_ text: String, budget: inout Int) -> Outcome {
        if let result = text.utf8.withContiguousStorageIfAvailable({ matches($0, budget: &budget) })
        {
            return result
        }
        var copy = text
        return copy.withUTF8 { matches($0, budget: &budget) }
    }

    /// ``matches(_:budget:)-(String,_)`` on UTF-8 bytes.
    public func matches(_ bytes: UnsafeBufferPointer<UInt8>, budget: inout Int) -> Outcome {
        for needle in requiredBytes where !Self.contains(bytes, needle) { return .noMatch }
        return runVM(bytes, budget: &budget)
    }

    /// The VM alone, without the required-byte scan (tests compare the two).
    func runVM(_ bytes: UnsafeBufferPointer<UInt8>, budget: inout Int) -> Outcome {
        let size = program.count
        return program.withUnsafeBufferPointer { program in
            sets.withUnsafeBufferPointer { sets in
                withUnsafeTemporaryAllocation(of: Int32.self, capacity: 5 * size) { memory in
                    let base = memory.baseAddress!
                    base.initialize(repeating: 0, count: 5 * size)
                    defer { base.deinitialize(count: 5 * size) }
                    var machine = PikeVM(
                        program: program, sets: sets, anchoredAtStart: anchoredAtStart,
                        current: ThreadList(dense: base, sparse: base + size),
                        next: ThreadList(dense: base + 2 * size, sparse: base + 3 * size),
                        stack: base + 4 * size)
                    return machine.run(bytes, budget: &budget)
                }
            }
        }
    }

    // MARK: Required bytes

    /// Whether `needle` (1 to 4 bytes) occurs in `bytes`: `memchr` for its first byte, then a
    /// comparison.
    private static func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard var start = bytes.baseAddress, bytes.count >= needle.count else { return false }
        var left = bytes.count
        while left >= needle.count,
            let hit = memchr(start, Int32(needle[0]), left - needle.count + 1)
        {
            let found = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self))
            if needle.count == 1 || memcmp(found, needle, needle.count) == 0 { return true }
            left -= (found - start) + 1
            start = found + 1
        }
        return false
    }

    /// The encodings of `scalars` to scan for, rarest in logs first: upper-case letters and
    /// punctuation, then digits, then lower-case letters, space and the punctuation of JSON and
    /// URLs. U+FFFD is never required: an invalid byte reads as it.
    private static func rarestFirst(_ scalars: [UInt32]) -> [[UInt8]] {
        func commonness(_ value: UInt32) -> Int {
            switch value {
            case 0x61...0x7A, 0x20, 0x22, 0x2C, 0x2E, 0x2F, 0x3A, 0x5F, 0x2D: 2
            case 0x30...0x39: 1
            default: 0
            }
        }
        let chosen = scalars.filter { $0 != 0xFFFD && Unicode.Scalar($0) != nil }
            .sorted { (commonness($0), $0) < (commonness($1), $1) }
            .prefix(3)
        return chosen.map { Array(String(Unicode.Scalar($0)!).utf8) }
    }
}

/// A pattern that ``BoundedRegex`` does not accept.
public struct RegexSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, lowercase, e.g. `backreferences like '\1' are not supported`.
    public var message: String
    /// 0-based byte offset into the pattern of the offending part.
    public var offset: Int

    public init(message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { "\(message) (at byte \(offset) of the pattern)" }
}
