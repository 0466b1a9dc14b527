// The pattern parser: scalars to a syntax tree.

extension BoundedRegex {
    // MARK: - Syntax tree

    indirect enum Node {
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
        /// `max` nil means unbounded; `offset` is the quantifier's byte offset (for "pattern too
        /// large").
        case repetition(Node, min: Int, max: Int?, offset: Int)

        var isRepeatable: Bool {
            switch self {
            case .begin, .end: false
            default: true
            }
        }

        /// Scalars every match consumes: a literal of a concatenation, of every branch of an
        /// alternation, or of a repetition that must happen at least once. (A letter under `(?i)`
        /// is a set, not a literal.)
        /// Ascending, each once.
        var requiredScalars: [UInt32] {
            switch self {
            case .scalar(let value): [value]
            case .concatenation(let items):
                Self.union(items.map(\.requiredScalars))
            case .alternation(let branches):
                branches.dropFirst().reduce(branches[0].requiredScalars) {
                    Self.intersection($0, $1.requiredScalars)
                }
            case .group(let inner): inner.requiredScalars
            case .repetition(let inner, let min, _, _): min > 0 ? inner.requiredScalars : []
            case .empty, .any, .set, .begin, .end: []
            }
        }

        /// The values of ascending lists, ascending, each once.
        static func union(_ lists: [[UInt32]]) -> [UInt32] {
            var all = lists.flatMap { $0 }
            all.sort()
            var out: [UInt32] = []
            for v in all where out.last != v { out.append(v) }
            return out
        }

        /// The values two ascending lists share, ascending.
        static func intersection(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
            var out: [UInt32] = []
            var i = 0
            var j = 0
            while i < a.count, j < b.count {
                if a[i] < b[j] {
                    i += 1
                } else if b[j] < a[i] {
                    j += 1
                } else {
                    out.append(a[i]); i += 1; j += 1
                }
            }
            return out
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

    /// Recursive descent over the pattern's scalars; recursion depth is bounded by
    /// ``BoundedRegex/maxNestingDepth``.
    struct Parser {
        private let scalars: [Unicode.Scalar]
        /// `offsets[i]` is the UTF-8 byte offset of `scalars[i]`; one extra entry for the end of
        /// the pattern.
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
                // The quantifier as written, for the errors only.
                var written: String { text(start..<index) }
                if let previous = previousQuantifier {
                    if c == "+" {
                        throw failure(
                            "possessive quantifiers like '\(text(previous))+' are not supported",
                            at: start)
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
                items[items.count - 1] = .repetition(
                    last, min: min, max: max, offset: offsets[start])
                previousQuantifier = start..<index
            }
            switch items.count {
            case 0: return .empty
            case 1: return items[0]
            default: return .concatenation(items)
            }
        }

        /// Parses `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}` and an optional lazy `?`; nil if not at a
        /// quantifier.
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

        /// Parses `{n}`, `{n,}` or `{n,m}` (and a lazy `?`) at `index`, leaving `index` just past
        /// them.
        private mutating func parseCountedRepetition() throws(RegexSyntaxError) -> (
            min: Int, max: Int?
        ) {
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
                    "invalid counted repetition '\(text(open..<index))': the minimum exceeds the maximum",
                    at: open)
            }
            if peek() == "?" { index += 1 }
            return (min, max)
        }

        private func invalidBrace(at open: Int) -> RegexSyntaxError {
            failure(
                "invalid counted repetition: use {2}, {2,} or {2,5}, or write \\{ for a literal '{'",
                at: open)
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
                    throw failure(
                        "lookahead '\(text(open..<index + 1))' is not supported", at: open)
                case "<" where peek(1) == "=" || peek(1) == "!":
                    throw failure(
                        "lookbehind '\(text(open..<index + 2))' is not supported", at: open)
                case "<", "P", "'":
                    throw failure("named groups are not supported; use (?: … ) or ( … )", at: open)
                case ">":
                    throw failure("atomic groups '(?>' are not supported", at: open)
                case "#":
                    throw failure("comment groups '(?#' are not supported", at: open)
                case "i" where peek(1) == ")":
                    throw failure(
                        "the (?i) flag is only supported at the very start of the pattern", at: open
                    )
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
                throw failure(
                    "groups are nested more than \(BoundedRegex.maxNestingDepth) deep", at: open)
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
                        throw failure(
                            "empty class '\(text(open..<index + 1))'; write \\] for a literal ']'",
                            at: open)
                    }
                    index += 1
                    break
                }
                if c == "-", !first, let after = peek(1), after != "]" {
                    throw failure(
                        "a '-' in a class must be first, last, or escaped as \\-", at: index)
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
                            "invalid class range: '\(text(highStart..<index))' cannot end a range",
                            at: highStart)
                    }
                    guard low <= high else {
                        throw failure(
                            "invalid class range '\(text(start..<index))': the start is after the end",
                            at: start)
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
                    throw failure(
                        "posix classes like [:alpha:] are not supported; use ranges like [a-zA-Z]",
                        at: index)
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
                throw failure(
                    "backreferences like '\\\(Character(c))' are not supported", at: start)
            case "b", "B":
                throw failure("word boundaries (\\b, \\B) are not supported", at: start)
            case "A", "z", "Z", "G":
                throw failure("anchor '\\\(Character(c))' is not supported; use ^ and $", at: start)
            case "p", "P":
                throw failure(
                    "unicode property classes (\\p{…}, \\P{…}) are not supported", at: start)
            case "x", "u", "U", "0", "o":
                throw failure(
                    "code point escape '\\\(Character(c))' is not supported; write the character itself",
                    at: start)
            case "k", "g":
                throw failure("named backreferences are not supported", at: start)
            case "Q", "E":
                throw failure(
                    "quoting with \\Q…\\E is not supported; escape each character", at: start)
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
}
