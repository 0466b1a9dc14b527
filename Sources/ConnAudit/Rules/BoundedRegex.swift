#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A regular expression that matches in time linear in the text, whatever the pattern.
///
/// Rule files use regular expressions (`{ error: { matches: "^NSURLErrorDomain:" } }`, `matches(x, re)`), and a
/// rules file must never be able to hang the checker. Swift's `Regex`, `NSRegularExpression` and POSIX `regex`
/// backtrack, so `(a+)+$` on a long line can take exponential time. This engine parses the pattern, compiles it to
/// a Thompson NFA and simulates it with a Pike VM (Russ Cox, "Regular Expression Matching: the Virtual Machine
/// Approach"): every NFA state is visited at most once per character of text.
///
/// Supported syntax:
/// - literal characters; `.` (any character except `\n`);
/// - anchors `^` (start of text) and `$` (end of text; there is no multi-line mode);
/// - classes `[abc]`, `[a-z]`, `[^...]`, with escapes inside (`[\]\-]`, `[\d_]`). A `-` is literal only first,
///   last, or escaped; `]` must be escaped inside a class; `[` must be escaped inside a class;
/// - class escapes `\d \D \w \W \s \S` (ASCII meanings: `[0-9]`, `[A-Za-z0-9_]`, `[\t\n\v\f\r ]`);
/// - escapes `\. \\ \- \^ \$ \* \+ \? \( \) \[ \] \{ \} \| \/` (the character itself) and `\t \n \r`;
/// - groups `( … )` and `(?: … )` — both only group: no captures are reported, only match or no match;
/// - alternation `|`;
/// - quantifiers `*`, `+`, `?`, their lazy forms `*?`, `+?`, `??` (same answer: only match/no match is reported),
///   and counted `{n}`, `{n,}`, `{n,m}` with n, m ≤ 1000 (and lazy forms `{n,m}?`);
/// - a leading `(?i)` that makes the whole pattern case-insensitive (ASCII letters only).
///
/// Text is worked on as Unicode scalars, so `.` and classes match whole characters (a Hangul syllable, an emoji
/// scalar). UTF-8 is decoded once while matching; each invalid byte counts as one U+FFFD.
///
/// Everything else is a ``RegexSyntaxError`` with the byte offset of the offending part: backreferences (`\1`),
/// lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`), atomic groups, possessive quantifiers (`a*+`), named groups,
/// inline flags other than a leading `(?i)`, unknown escapes (`\q`, `\b`, `\A`, `\p{…}`, `\x41`), unbalanced
/// parentheses, a quantifier with nothing to repeat (`*a`, `^*`, `a**`), `{3,2}`, a stray `{`, `}` or `]`, and an
/// unterminated or empty class.
///
/// Limits: a pattern of at most ``maxPatternBytes`` bytes, groups nested at most ``maxNestingDepth`` deep, counts
/// of at most ``maxRepetitionCount``, and at most ``maxProgramSize`` compiled instructions (counted repetition is
/// expanded, so `(a{1000}){100}` is too large).
///
/// Linear is not cheap: 20,000 instructions against a 1 MiB text is about 2·10^10 steps. A caller that must stay
/// bounded passes a budget of steps (``matches(_:budget:)-(String,_)``); ``defaultTimelineStepBudget`` is the one
/// a timeline's rule evaluation draws on.
public struct BoundedRegex: Sendable, CustomStringConvertible {
    /// The longest pattern accepted, in UTF-8 bytes.
    public static let maxPatternBytes = 4096
    /// The most instructions a pattern may compile to (counted repetition expands).
    public static let maxProgramSize = 20_000
    /// The largest `n` or `m` in `{n}`, `{n,}`, `{n,m}`.
    public static let maxRepetitionCount = 1000
    /// The deepest nesting of groups (PCRE2's default limit).
    public static let maxNestingDepth = 250
    /// The VM steps one timeline's regex searches may take: about 100 searches of a 1 MiB text at 3 steps a
    /// byte (on text they do not match, `error` takes 2.2 steps a byte, `[Tt]ime ?out` 2.0, `timeout|reset`
    /// and `(a|b)+c` 4.1). A release build takes about 2 to 4 ns a step: `(a|aa|aaa|aaaa){1000}c` on a
    /// 1 MiB text of `a`s and a `c` uses the budget up in about 0.6 s.
    public static let defaultTimelineStepBudget = 300_000_000

    /// The pattern as written.
    public let pattern: String
    private let program: [Instruction]
    private let sets: [ScalarSet]
    /// Every match must start at offset 0 (each branch begins with `^`): no need to restart at later positions.
    private let anchoredAtStart: Bool
    /// UTF-8 encodings of scalars every match consumes, rarest first (at most 3): a text without one of them
    /// cannot match, which a byte scan tells much faster than the VM.
    private let requiredBytes: [[UInt8]]

    /// Parses and compiles `pattern`.
    ///
    /// - Throws: ``RegexSyntaxError`` for unsupported or malformed syntax and for patterns over the limits, with
    ///   the 0-based byte offset of the offending part.
    public init(_ pattern: String) throws(RegexSyntaxError) {
        guard pattern.utf8.count <= Self.maxPatternBytes else {
            throw RegexSyntaxError(
                message: "pattern is longer than \(Self.maxPatternBytes) bytes", offset: Self.maxPatternBytes)
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

    /// Search semantics (like `grep` or Python's `re.search`): true if the pattern matches anywhere in `text`.
    ///
    /// - Complexity: O(*p* × *n*) time and O(*p*) memory, where *p* is the compiled program size (at most
    ///   ``maxProgramSize``) and *n* the length of `text`. No backtracking: each instruction is visited at most once
    ///   per character.
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
    /// A step is one thread visited at one position of the text (plus one per position): the work the VM does.
    /// A text that lacks a byte every match needs is answered without steps. The steps are the same for the same
    /// pattern and text on every run. When the search would need more than `budget` holds it stops, leaves
    /// `budget` at 0 and answers ``Outcome/exhausted``; otherwise its answer is ``matches(_:)-(String)``'s.
    public func matches(_ text: String, budget: inout Int) -> Outcome {
        if let result = text.utf8.withContiguousStorageIfAvailable({ matches($0, budget: &budget) }) {
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

    /// Whether `needle` (1 to 4 bytes) occurs in `bytes`: `memchr` for its first byte, then a comparison.
    private static func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard var start = bytes.baseAddress, bytes.count >= needle.count else { return false }
        var left = bytes.count
        while left >= needle.count, let hit = memchr(start, Int32(needle[0]), left - needle.count + 1) {
            let found = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self))
            if needle.count == 1 || memcmp(found, needle, needle.count) == 0 { return true }
            left -= (found - start) + 1
            start = found + 1
        }
        return false
    }

    /// The encodings of `scalars` to scan for, rarest in logs first: upper-case letters and punctuation, then
    /// digits, then lower-case letters, space and the punctuation of JSON and URLs. U+FFFD is never required:
    /// an invalid byte reads as it.
    private static func rarestFirst(_ scalars: Set<UInt32>) -> [[UInt8]] {
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

// MARK: - Syntax tree

private indirect enum Node {
    case empty
    case scalar(UInt32)
    /// Any scalar except `\n`.
    case any
    /// An index into the parser's sets.
    case set(Int)
    case begin
    case end
    case concatenation([Node])
    case alternation([Node])
    case group(Node)
    /// `max` nil means unbounded; `offset` is the quantifier's byte offset (for "pattern too large").
    case repetition(Node, min: Int, max: Int?, offset: Int)

    var isRepeatable: Bool {
        switch self {
        case .begin, .end: false
        default: true
        }
    }

    /// Scalars every match consumes: a literal of a concatenation, of every branch of an alternation, or of a
    /// repetition that must happen at least once. (A letter under `(?i)` is a set, not a literal.)
    var requiredScalars: Set<UInt32> {
        switch self {
        case .scalar(let value): [value]
        case .concatenation(let items): items.reduce(into: Set()) { $0.formUnion($1.requiredScalars) }
        case .alternation(let branches):
            branches.dropFirst().reduce(branches[0].requiredScalars) { $0.intersection($1.requiredScalars) }
        case .group(let inner): inner.requiredScalars
        case .repetition(let inner, let min, _, _): min > 0 ? inner.requiredScalars : []
        case .empty, .any, .set, .begin, .end: []
        }
    }

    /// True when every match must begin at the start of the text.
    var isAnchoredAtStart: Bool {
        switch self {
        case .begin: true
        case .concatenation(let items): items.first?.isAnchoredAtStart ?? false
        case .alternation(let branches): branches.allSatisfy(\.isAnchoredAtStart)
        case .group(let inner): inner.isAnchoredAtStart
        case .repetition(let inner, let min, _, _): min > 0 && inner.isAnchoredAtStart
        default: false
        }
    }
}

// MARK: - Parser

/// Recursive descent over the pattern's scalars; recursion depth is bounded by ``BoundedRegex/maxNestingDepth``.
private struct Parser {
    private let scalars: [Unicode.Scalar]
    /// `offsets[i]` is the UTF-8 byte offset of `scalars[i]`; one extra entry for the end of the pattern.
    private let offsets: [Int]
    private var index = 0
    private var depth = 0
    private var caseInsensitive = false
    private(set) var sets: [ScalarSet] = []
    private var foldedLetters: [UInt32: Int] = [:]

    init(_ pattern: String) {
        var scalars: [Unicode.Scalar] = []
        var offsets: [Int] = []
        var offset = 0
        for scalar in pattern.unicodeScalars {
            scalars.append(scalar)
            offsets.append(offset)
            offset += UTF8.width(scalar)
        }
        offsets.append(offset)
        self.scalars = scalars
        self.offsets = offsets
    }

    mutating func parse() throws(RegexSyntaxError) -> Node {
        if scalars.starts(with: "(?i)".unicodeScalars) {
            caseInsensitive = true
            index = 4
        }
        let tree = try parseAlternation()
        if index < scalars.count {
            // Only an unmatched ')' stops the top-level alternation early.
            throw failure("unmatched ')'", at: index)
        }
        return tree
    }

    // MARK: Structure

    private mutating func parseAlternation() throws(RegexSyntaxError) -> Node {
        var branches = [try parseConcatenation()]
        while peek() == "|" {
            index += 1
            branches.append(try parseConcatenation())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func parseConcatenation() throws(RegexSyntaxError) -> Node {
        var items: [Node] = []
        var previousQuantifier: Range<Int>?  // where the last item's quantifier was written
        while let c = peek(), c != "|", c != ")" {
            let start = index
            guard let (min, max) = try parseQuantifier() else {
                items.append(try parseAtom())
                previousQuantifier = nil
                continue
            }
            let written = text(start..<index)
            if let previous = previousQuantifier {
                if c == "+" {
                    throw failure("possessive quantifiers like '\(text(previous))+' are not supported", at: start)
                }
                throw failure("quantifier '\(written)' follows another quantifier", at: start)
            }
            guard let last = items.last else {
                let hint = c == "{" ? "; write \\{ for a literal '{'" : ""
                throw failure("quantifier '\(written)' has nothing to repeat\(hint)", at: start)
            }
            guard last.isRepeatable else {
                throw failure("quantifier '\(written)' cannot repeat an anchor", at: start)
            }
            items[items.count - 1] = .repetition(last, min: min, max: max, offset: offsets[start])
            previousQuantifier = start..<index
        }
        switch items.count {
        case 0: return .empty
        case 1: return items[0]
        default: return .concatenation(items)
        }
    }

    /// Parses `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}` and an optional lazy `?`; nil if not at a quantifier.
    private mutating func parseQuantifier() throws(RegexSyntaxError) -> (min: Int, max: Int?)? {
        let bounds: (min: Int, max: Int?)
        switch peek() {
        case "*": bounds = (0, nil)
        case "+": bounds = (1, nil)
        case "?": bounds = (0, 1)
        case "{": return try parseCountedRepetition()
        default: return nil
        }
        index += 1
        if peek() == "?" { index += 1 }  // lazy: the same answer for match/no match
        return bounds
    }

    /// Parses `{n}`, `{n,}` or `{n,m}` (and a lazy `?`) at `index`, leaving `index` just past them.
    private mutating func parseCountedRepetition() throws(RegexSyntaxError) -> (min: Int, max: Int?) {
        let open = index
        index += 1
        guard let min = try parseCount() else { throw invalidBrace(at: open) }
        var max: Int? = min
        if peek() == "," {
            index += 1
            max = try parseCount()
        }
        guard peek() == "}" else { throw invalidBrace(at: open) }
        index += 1
        if let max, max < min {
            throw failure(
                "invalid counted repetition '\(text(open..<index))': the minimum exceeds the maximum", at: open)
        }
        if peek() == "?" { index += 1 }
        return (min, max)
    }

    private func invalidBrace(at open: Int) -> RegexSyntaxError {
        failure("invalid counted repetition: use {2}, {2,} or {2,5}, or write \\{ for a literal '{'", at: open)
    }

    /// Parses a decimal count at `index`; nil if there are no digits.
    private mutating func parseCount() throws(RegexSyntaxError) -> Int? {
        let start = index
        var value = 0
        while let c = peek(), ("0"..."9").contains(c) {
            value = Swift.min(value * 10 + Int(c.value - 0x30), 1_000_000)
            index += 1
        }
        guard index > start else { return nil }
        guard value <= BoundedRegex.maxRepetitionCount else {
            throw failure(
                "repetition count \(text(start..<index)) exceeds the limit of \(BoundedRegex.maxRepetitionCount)",
                at: start)
        }
        return value
    }

    private mutating func parseAtom() throws(RegexSyntaxError) -> Node {
        let c = scalars[index]
        switch c {
        case "(":
            return try parseGroup()
        case "[":
            return try parseClass()
        case ".":
            index += 1
            return .any
        case "^":
            index += 1
            return .begin
        case "$":
            index += 1
            return .end
        case "\\":
            switch try parseEscape() {
            case .scalar(let value): return literal(value)
            case .ranges(let ranges): return .set(addSet(ranges, negated: false))
            }
        case "]":
            throw failure("unmatched ']'; write \\] for a literal ']'", at: index)
        case "}":
            throw failure("unmatched '}'; write \\} for a literal '}'", at: index)
        default:
            index += 1
            return literal(c.value)
        }
    }

    private mutating func parseGroup() throws(RegexSyntaxError) -> Node {
        let open = index
        index += 1
        if peek() == "?" {
            index += 1
            switch peek() {
            case ":":
                index += 1
            case "=", "!":
                throw failure("lookahead '\(text(open..<index + 1))' is not supported", at: open)
            case "<" where peek(1) == "=" || peek(1) == "!":
                throw failure("lookbehind '\(text(open..<index + 2))' is not supported", at: open)
            case "<", "P", "'":
                throw failure("named groups are not supported; use (?: … ) or ( … )", at: open)
            case ">":
                throw failure("atomic groups '(?>' are not supported", at: open)
            case "#":
                throw failure("comment groups '(?#' are not supported", at: open)
            case "i" where peek(1) == ")":
                throw failure("the (?i) flag is only supported at the very start of the pattern", at: open)
            case .some(let c) where c == "-" || c.properties.isAlphabetic:
                throw failure("inline flags are not supported, except a leading (?i)", at: open)
            case nil:
                throw failure("missing ')' for the group opened here", at: open)
            case .some(let c):
                throw failure("unknown group syntax '(?\(Character(c))'", at: open)
            }
        }
        depth += 1
        guard depth <= BoundedRegex.maxNestingDepth else {
            throw failure("groups are nested more than \(BoundedRegex.maxNestingDepth) deep", at: open)
        }
        let inner = try parseAlternation()
        guard peek() == ")" else {
            throw failure("missing ')' for the group opened here", at: open)
        }
        index += 1
        depth -= 1
        return .group(inner)
    }

    // MARK: Classes and escapes

    private enum Item {
        case scalar(UInt32)
        case ranges([ClosedRange<UInt32>])
    }

    private mutating func parseClass() throws(RegexSyntaxError) -> Node {
        let open = index
        index += 1
        var negated = false
        if peek() == "^" {
            negated = true
            index += 1
        }
        var ranges: [ClosedRange<UInt32>] = []
        var first = true
        while true {
            guard let c = peek() else {
                throw failure("missing ']' for the class opened here", at: open)
            }
            if c == "]" {
                if first {
                    throw failure("empty class '\(text(open..<index + 1))'; write \\] for a literal ']'", at: open)
                }
                index += 1
                break
            }
            if c == "-", !first, let after = peek(1), after != "]" {
                throw failure("a '-' in a class must be first, last, or escaped as \\-", at: index)
            }
            let start = index
            switch try parseClassItem() {
            case .ranges(let more):
                ranges += more
            case .scalar(let low):
                guard peek() == "-", let after = peek(1), after != "]" else {
                    ranges.append(low...low)
                    break
                }
                index += 1
                let highStart = index
                guard case .scalar(let high) = try parseClassItem() else {
                    throw failure(
                        "invalid class range: '\(text(highStart..<index))' cannot end a range", at: highStart)
                }
                guard low <= high else {
                    throw failure("invalid class range '\(text(start..<index))': the start is after the end", at: start)
                }
                ranges.append(low...high)
            }
            first = false
        }
        return .set(addSet(ranges, negated: negated))
    }

    private mutating func parseClassItem() throws(RegexSyntaxError) -> Item {
        let c = scalars[index]
        switch c {
        case "\\":
            return try parseEscape()
        case "[":
            if let next = peek(1), next == ":" || next == "=" || next == "." {
                throw failure("posix classes like [:alpha:] are not supported; use ranges like [a-zA-Z]", at: index)
            }
            throw failure("write \\[ for a literal '[' inside a class", at: index)
        default:
            index += 1
            return .scalar(c.value)
        }
    }

    /// Parses a backslash escape at `index` (the same set inside and outside classes).
    private mutating func parseEscape() throws(RegexSyntaxError) -> Item {
        let start = index
        index += 1
        guard let c = peek() else {
            throw failure("trailing backslash", at: start)
        }
        index += 1
        switch c {
        case "d": return .ranges(ScalarSet.digits)
        case "D": return .ranges(ScalarSet.complement(ScalarSet.digits))
        case "w": return .ranges(ScalarSet.word)
        case "W": return .ranges(ScalarSet.complement(ScalarSet.word))
        case "s": return .ranges(ScalarSet.space)
        case "S": return .ranges(ScalarSet.complement(ScalarSet.space))
        case "t": return .scalar(0x09)
        case "n": return .scalar(0x0A)
        case "r": return .scalar(0x0D)
        case ".", "\\", "-", "^", "$", "*", "+", "?", "(", ")", "[", "]", "{", "}", "|", "/":
            return .scalar(c.value)
        case "1"..."9":
            throw failure("backreferences like '\\\(Character(c))' are not supported", at: start)
        case "b", "B":
            throw failure("word boundaries (\\b, \\B) are not supported", at: start)
        case "A", "z", "Z", "G":
            throw failure("anchor '\\\(Character(c))' is not supported; use ^ and $", at: start)
        case "p", "P":
            throw failure("unicode property classes (\\p{…}, \\P{…}) are not supported", at: start)
        case "x", "u", "U", "0", "o":
            throw failure(
                "code point escape '\\\(Character(c))' is not supported; write the character itself", at: start)
        case "k", "g":
            throw failure("named backreferences are not supported", at: start)
        case "Q", "E":
            throw failure("quoting with \\Q…\\E is not supported; escape each character", at: start)
        default:
            throw failure("unknown escape '\\\(Character(c))'", at: start)
        }
    }

    // MARK: Helpers

    /// A literal scalar; under `(?i)` an ASCII letter becomes the set of both cases.
    private mutating func literal(_ value: UInt32) -> Node {
        guard caseInsensitive, ScalarSet.isASCIILetter(value) else { return .scalar(value) }
        let lower = value | 0x20
        if let known = foldedLetters[lower] { return .set(known) }
        let set = addSet([value...value], negated: false)
        foldedLetters[lower] = set
        return .set(set)
    }

    private mutating func addSet(_ ranges: [ClosedRange<UInt32>], negated: Bool) -> Int {
        sets.append(ScalarSet(ranges, negated: negated, caseInsensitive: caseInsensitive))
        return sets.count - 1
    }

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        index + ahead < scalars.count ? scalars[index + ahead] : nil
    }

    private func text(_ range: Range<Int>) -> String {
        let clamped = range.clamped(to: 0..<scalars.count)
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[clamped])
        return String(view)
    }

    private func failure(_ message: String, at index: Int) -> RegexSyntaxError {
        RegexSyntaxError(message: message, offset: offsets[Swift.min(index, scalars.count)])
    }
}

// MARK: - Scalar sets

/// A set of Unicode scalars: a bitmap for ASCII, sorted disjoint ranges above it.
private struct ScalarSet: Sendable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0
    private var ranges: [ClosedRange<UInt32>] = []

    static let maxScalar: UInt32 = 0x10FFFF
    static let digits: [ClosedRange<UInt32>] = [0x30...0x39]
    static let word: [ClosedRange<UInt32>] = [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A]
    static let space: [ClosedRange<UInt32>] = [0x09...0x0D, 0x20...0x20]

    /// Case folding (ASCII) happens before negation, so `(?i)[^a]` excludes both `a` and `A`.
    init(_ input: [ClosedRange<UInt32>], negated: Bool, caseInsensitive: Bool) {
        var all = input
        if caseInsensitive { all += Self.caseVariants(of: input) }
        all = Self.normalized(all)
        if negated { all = Self.complement(all) }
        for range in all {
            if range.lowerBound < 128 {
                for value in range.lowerBound...Swift.min(range.upperBound, 127) {
                    if value < 64 { low |= 1 << UInt64(value) } else { high |= 1 << UInt64(value - 64) }
                }
            }
            if range.upperBound >= 128 {
                ranges.append(Swift.max(range.lowerBound, 128)...range.upperBound)
            }
        }
    }

    @inline(__always)
    func contains(_ value: UInt32) -> Bool {
        if value < 64 { return low >> UInt64(value) & 1 != 0 }
        if value < 128 { return high >> UInt64(value - 64) & 1 != 0 }
        var lower = 0
        var upper = ranges.count
        while lower < upper {
            let middle = (lower + upper) / 2
            let range = ranges[middle]
            if value < range.lowerBound {
                upper = middle
            } else if value > range.upperBound {
                lower = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    static func isASCIILetter(_ value: UInt32) -> Bool {
        (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
    }

    /// The other-case ASCII letters of `ranges`.
    static func caseVariants(of ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        var out: [ClosedRange<UInt32>] = []
        let upper: ClosedRange<UInt32> = 0x41...0x5A
        let lower: ClosedRange<UInt32> = 0x61...0x7A
        for range in ranges {
            if range.overlaps(upper) {
                let part = range.clamped(to: upper)
                out.append(part.lowerBound + 0x20...part.upperBound + 0x20)
            }
            if range.overlaps(lower) {
                let part = range.clamped(to: lower)
                out.append(part.lowerBound - 0x20...part.upperBound - 0x20)
            }
        }
        return out
    }

    /// Sorted, merged ranges.
    static func normalized(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        var out: [ClosedRange<UInt32>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = out.last, range.lowerBound <= last.upperBound + 1 {
                out[out.count - 1] = last.lowerBound...Swift.max(last.upperBound, range.upperBound)
            } else {
                out.append(range)
            }
        }
        return out
    }

    /// Every scalar value not in `ranges` (which need not be normalized).
    static func complement(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        var out: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for range in normalized(ranges) {
            if range.lowerBound > next { out.append(next...range.lowerBound - 1) }
            next = range.upperBound + 1
        }
        if next <= maxScalar { out.append(next...maxScalar) }
        return out
    }
}

// MARK: - Program

private struct Instruction: Sendable {
    enum Opcode: UInt8, Sendable {
        /// Consume the scalar `x`.
        case scalar
        /// Consume any scalar except `\n`.
        case any
        /// Consume a scalar in `sets[x]`.
        case set
        /// Continue at both `x` and `y`.
        case split
        /// Continue at `x`.
        case jump
        case match
        /// Continue at the next instruction only at the start of the text.
        case assertBegin
        /// Continue at the next instruction only at the end of the text.
        case assertEnd
    }

    var opcode: Opcode
    var x: Int32
    var y: Int32

    init(_ opcode: Opcode, _ x: Int = 0, _ y: Int = 0) {
        self.opcode = opcode
        self.x = Int32(x)
        self.y = Int32(y)
    }
}

/// Compiles the tree to Thompson-NFA instructions (Cox's scheme), counted repetition expanded.
private struct Compiler {
    var program: [Instruction] = []
    /// The offset of the outermost repetition being compiled: the best place to blame for "too large".
    private var blamedOffset: Int?

    mutating func emit(_ instruction: Instruction) throws(RegexSyntaxError) -> Int {
        guard program.count < BoundedRegex.maxProgramSize else {
            throw RegexSyntaxError(
                message: "pattern too large: it compiles to more than \(BoundedRegex.maxProgramSize) instructions",
                offset: blamedOffset ?? 0)
        }
        program.append(instruction)
        return program.count - 1
    }

    /// Recursive: alternatives and concatenations are flat lists, so a tree is a few levels per
    /// group, and groups nest at most ``BoundedRegex/maxNestingDepth`` deep.
    mutating func compile(_ node: Node) throws(RegexSyntaxError) {
        switch node {
        case .empty:
            break
        case .scalar(let value):
            _ = try emit(Instruction(.scalar, Int(value)))
        case .any:
            _ = try emit(Instruction(.any))
        case .set(let index):
            _ = try emit(Instruction(.set, index))
        case .begin:
            _ = try emit(Instruction(.assertBegin))
        case .end:
            _ = try emit(Instruction(.assertEnd))
        case .concatenation(let items):
            for item in items { try compile(item) }
        case .group(let inner):
            try compile(inner)
        case .alternation(let branches):
            // split L1, L2; L1: e1; jump end; L2: split …; last: en; end:
            var jumps: [Int] = []
            for branch in branches.dropLast() {
                let split = try emit(Instruction(.split))
                program[split].x = Int32(split + 1)
                try compile(branch)
                jumps.append(try emit(Instruction(.jump)))
                program[split].y = Int32(program.count)
            }
            try compile(branches[branches.count - 1])
            for jump in jumps { program[jump].x = Int32(program.count) }
        case .repetition(let inner, let min, let max, let offset):
            let saved = blamedOffset
            blamedOffset = saved ?? offset
            defer { blamedOffset = saved }
            try compileRepetition(inner, min: min, max: max)
        }
    }

    private mutating func compileRepetition(_ inner: Node, min: Int, max: Int?) throws(RegexSyntaxError) {
        guard let max else {
            if min == 0 {
                // L: split L+1, out; e; jump L; out:
                let split = try emit(Instruction(.split))
                program[split].x = Int32(split + 1)
                try compile(inner)
                _ = try emit(Instruction(.jump, split))
                program[split].y = Int32(program.count)
            } else {
                // e{min-1}; L: e; split L, out; out:
                for _ in 0..<min - 1 { try compile(inner) }
                let loop = program.count
                try compile(inner)
                let split = try emit(Instruction(.split, loop))
                program[split].y = Int32(split + 1)
            }
            return
        }
        for _ in 0..<min { try compile(inner) }
        // Each optional copy: split next, out; e — all exits go to the end.
        var exits: [Int] = []
        for _ in min..<max {
            let split = try emit(Instruction(.split))
            program[split].x = Int32(split + 1)
            exits.append(split)
            try compile(inner)
        }
        for exit in exits { program[exit].y = Int32(program.count) }
    }
}

// MARK: - Pike VM

/// A set of program counters with O(1) insert, membership and clear (Briggs–Torczon sparse set).
private struct ThreadList {
    let dense: UnsafeMutablePointer<Int32>
    let sparse: UnsafeMutablePointer<Int32>
    var count = 0

    @inline(__always)
    func contains(_ pc: Int32) -> Bool {
        let slot = Int(sparse[Int(pc)])
        return slot < count && dense[slot] == pc
    }

    @inline(__always)
    mutating func insert(_ pc: Int32) {
        sparse[Int(pc)] = Int32(count)
        dense[count] = pc
        count += 1
    }
}

/// Simulates the NFA on all threads in lock step; each program counter is in a list at most once per position.
private struct PikeVM {
    let program: UnsafeBufferPointer<Instruction>
    let sets: UnsafeBufferPointer<ScalarSet>
    let anchoredAtStart: Bool
    var current: ThreadList
    var next: ThreadList
    /// Work stack for the epsilon closure; each pc is pushed at most once per closure, so it needs `program.count`.
    let stack: UnsafeMutablePointer<Int32>

    /// Searches `text`, taking from `budget` one step for the start and, at each position, one per thread in
    /// the list plus one (``BoundedRegex/matches(_:budget:)-(String,_)``).
    @inline(__always)
    mutating func run(_ text: UnsafeBufferPointer<UInt8>, budget: inout Int) -> BoundedRegex.Outcome {
        let end = text.count
        // A local copy stays in a register; `budget` is written once, on the way out.
        var left = budget
        defer { budget = left }
        guard left >= 1 else {
            left = 0
            return .exhausted
        }
        left &-= 1
        if Self.addThread(0, to: &current, at: 0, atEnd: end == 0, program: program, stack: stack) { return .match }
        var position = 0
        while position < end {
            if current.count == 0 && anchoredAtStart { return .noMatch }
            // At most the program's size plus one: no overflow, and `left` stays at least 0.
            let steps = current.count &+ 1
            guard left >= steps else {
                left = 0
                return .exhausted
            }
            left &-= steps
            let (scalar, width) = Self.decode(text, at: position)
            let following = position + width
            let atEnd = following == end
            next.count = 0
            for slot in 0..<current.count {
                let pc = Int(current.dense[slot])
                let instruction = program[pc]
                let consumed: Bool
                switch instruction.opcode {
                case .scalar: consumed = scalar == UInt32(truncatingIfNeeded: instruction.x)
                case .any: consumed = scalar != 0x0A
                case .set: consumed = sets[Int(instruction.x)].contains(scalar)
                default: consumed = false
                }
                guard consumed else { continue }
                if Self.addThread(
                    Int32(pc + 1), to: &next, at: following, atEnd: atEnd, program: program, stack: stack)
                {
                    return .match
                }
            }
            // Search semantics: a new thread starts at every position.
            if !anchoredAtStart,
                Self.addThread(0, to: &next, at: following, atEnd: atEnd, program: program, stack: stack)
            {
                return .match
            }
            swap(&current, &next)
            position = following
        }
        return .noMatch
    }

    /// Adds `pc` and everything reachable from it without consuming text; true if that reaches `match`.
    @inline(__always)
    private static func addThread(
        _ start: Int32, to list: inout ThreadList, at position: Int, atEnd: Bool,
        program: UnsafeBufferPointer<Instruction>, stack: UnsafeMutablePointer<Int32>
    ) -> Bool {
        guard !list.contains(start) else { return false }
        list.insert(start)
        stack[0] = start
        var top = 1
        while top > 0 {
            top -= 1
            let pc = stack[top]
            let instruction = program[Int(pc)]
            var first: Int32 = -1
            var second: Int32 = -1
            switch instruction.opcode {
            case .match: return true
            case .jump: first = instruction.x
            case .split: (first, second) = (instruction.x, instruction.y)
            case .assertBegin: if position == 0 { first = pc + 1 }
            case .assertEnd: if atEnd { first = pc + 1 }
            case .scalar, .any, .set: break  // waits in the list for the next scalar
            }
            // Priority is irrelevant without captures: any thread reaching `match` answers the question.
            if first >= 0 && !list.contains(first) {
                list.insert(first)
                stack[top] = first
                top += 1
            }
            if second >= 0 && !list.contains(second) {
                list.insert(second)
                stack[top] = second
                top += 1
            }
        }
        return false
    }

    /// Decodes one scalar at `index`; an invalid or truncated sequence yields U+FFFD for one byte.
    @inline(__always)
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (UInt32, Int) {
        let b0 = bytes[index]
        if b0 < 0x80 { return (UInt32(b0), 1) }
        let remaining = bytes.count - index
        @inline(__always) func continuation(_ offset: Int) -> UInt32? {
            let byte = bytes[index + offset]
            return byte & 0xC0 == 0x80 ? UInt32(byte & 0x3F) : nil
        }
        switch b0 {
        case 0xC2...0xDF where remaining >= 2:
            if let c1 = continuation(1) { return (UInt32(b0 & 0x1F) << 6 | c1, 2) }
        case 0xE0...0xEF where remaining >= 3:
            let b1 = bytes[index + 1]
            let valid = b0 == 0xE0 ? (0xA0...0xBF).contains(b1) : b0 == 0xED ? (0x80...0x9F).contains(b1)
                : (0x80...0xBF).contains(b1)
            if valid, let c2 = continuation(2) {
                return (UInt32(b0 & 0x0F) << 12 | UInt32(b1 & 0x3F) << 6 | c2, 3)
            }
        case 0xF0...0xF4 where remaining >= 4:
            let b1 = bytes[index + 1]
            let valid = b0 == 0xF0 ? (0x90...0xBF).contains(b1) : b0 == 0xF4 ? (0x80...0x8F).contains(b1)
                : (0x80...0xBF).contains(b1)
            if valid, let c2 = continuation(2), let c3 = continuation(3) {
                return (UInt32(b0 & 0x07) << 18 | UInt32(b1 & 0x3F) << 12 | c2 << 6 | c3, 4)
            }
        default:
            break
        }
        return (0xFFFD, 1)
    }
}
