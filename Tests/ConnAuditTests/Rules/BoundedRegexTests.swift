import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

// MARK: - Matching

struct RegexCase: Sendable, CustomTestStringConvertible {
    var pattern: String
    var text: String
    var expected: Bool

    init(_ pattern: String, _ text: String, _ expected: Bool) {
        self.pattern = pattern
        self.text = text
        self.expected = expected
    }

    var testDescription: String { "/\(pattern)/ on \(text.debugDescription) → \(expected)" }
}

private let matchCases: [RegexCase] = [
    // Rule-file patterns.
    RegexCase("^NSURLErrorDomain:", "NSURLErrorDomain:-1005", true),
    RegexCase("^NSURLErrorDomain:", "xNSURLErrorDomain:", false),
    RegexCase("NSURLErrorDomain:", "xNSURLErrorDomain:", true),
    RegexCase("(?i)bearer\\s+[A-Za-z0-9._~+/=-]{8,}", "Authorization: Bearer abcDEF12.34", true),
    RegexCase("(?i)bearer\\s+[A-Za-z0-9._~+/=-]{8,}", "authorization: BEARER\tZZZZZZZZ", true),
    RegexCase("(?i)bearer\\s+[A-Za-z0-9._~+/=-]{8,}", "Bearer short", false),
    RegexCase("(?i)bearer\\s+[A-Za-z0-9._~+/=-]{8,}", "bearer", false),
    RegexCase(
        "eyJ[A-Za-z0-9_-]+\\.eyJ[A-Za-z0-9_-]+\\.",
        "token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", true),
    RegexCase(
        "eyJ[A-Za-z0-9_-]+\\.eyJ[A-Za-z0-9_-]+\\.", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0", false),
    RegexCase("eyJ[A-Za-z0-9_-]+\\.eyJ[A-Za-z0-9_-]+\\.", "eyJ.eyJx.", false),
    // Empty pattern and empty text.
    RegexCase("", "", true),
    RegexCase("", "anything", true),
    RegexCase("a", "", false),
    RegexCase("^$", "", true),
    RegexCase("^$", "a", false),
    RegexCase("a*", "", true),
    RegexCase("()", "", true),
    RegexCase("(?i)", "x", true),
    // Literals and search semantics.
    RegexCase("abc", "xxabcxx", true),
    RegexCase("abc", "ab", false),
    RegexCase("abc", "abdabc", true),
    RegexCase("aab", "aaab", true),
    RegexCase("ab", "AB", false),
    // Dot.
    RegexCase("a.c", "abc", true),
    RegexCase("a.c", "a\nc", false),
    RegexCase("a.c", "a\rc", true),
    RegexCase("^.$", "", false),
    RegexCase("^...$", "abc", true),
    // Anchors.
    RegexCase("^a", "ba", false),
    RegexCase("a$", "ab", false),
    RegexCase("a$", "ba", true),
    RegexCase("^abc$", "abc", true),
    RegexCase("^abc$", "abcd", false),
    RegexCase("a$", "a\n", false),
    RegexCase("^(a|b)$", "a", true),
    RegexCase("^(a|b)$", "b", true),
    RegexCase("^(a|b)$", "ab", false),
    RegexCase("^(a|b)$", "", false),
    RegexCase("^a|b$", "ax", true),
    RegexCase("^a|b$", "xb", true),
    RegexCase("^a|b$", "xa", false),
    RegexCase("(^a|b)c", "xac", false),
    RegexCase("(^a|b)c", "ac", true),
    RegexCase("(^a|b)c", "xbc", true),
    RegexCase("x^", "x", false),
    RegexCase("$x", "x", false),
    RegexCase("^^a$$", "a", true),
    // Classes.
    RegexCase("[abc]", "xxbxx", true),
    RegexCase("[abc]", "xyz", false),
    RegexCase("^[a-z]+$", "hello", true),
    RegexCase("^[a-z]+$", "Hello", false),
    RegexCase("[^a-z]", "hello", false),
    RegexCase("[^a-z]", "hello!", true),
    RegexCase("[^a]", "\n", true),
    RegexCase("^[-a]$", "-", true),
    RegexCase("^[a-]$", "-", true),
    RegexCase("^[^-]$", "-", false),
    RegexCase("^[\\]]$", "]", true),
    RegexCase("^[\\[]$", "[", true),
    RegexCase("^[\\-]$", "-", true),
    RegexCase("^[\\^]$", "^", true),
    RegexCase("^[a^]$", "^", true),
    RegexCase("^[\\\\]$", "\\", true),
    RegexCase("^[.]$", "x", false),
    RegexCase("^[.]$", ".", true),
    RegexCase("^[*+?(){}|$]+$", "*+?(){}|$", true),
    RegexCase("^[\\d_]+$", "12_3", true),
    RegexCase("^[\\d_]+$", "12a", false),
    RegexCase("^[\\D]+$", "abc", true),
    RegexCase("^[^\\D]+$", "123", true),
    RegexCase("^[^\\D]+$", "12a", false),
    RegexCase("^[a-c\\s]+$", "a b\tc", true),
    RegexCase("^[0-9a-fA-F]+$", "DEADbeef01", true),
    RegexCase("^[\\t]$", "\t", true),
    RegexCase("^[가-힣]+$", "안녕하세요", true),
    RegexCase("^[가-힣]+$", "안녕 하세요", false),
    // Class escapes.
    RegexCase("^\\d+$", "2024", true),
    RegexCase("^\\d+$", "20x4", false),
    RegexCase("\\D", "123", false),
    RegexCase("\\D", "12.3", true),
    RegexCase("^\\w+$", "snake_case9", true),
    RegexCase("^\\w+$", "kebab-case", false),
    RegexCase("\\W", "abc_1", false),
    RegexCase("\\W", "a b", true),
    RegexCase("a\\sb", "a b", true),
    RegexCase("a\\sb", "a\tb", true),
    RegexCase("a\\sb", "a\nb", true),
    RegexCase("a\\sb", "ab", false),
    RegexCase("^\\S+$", "no-spaces", true),
    RegexCase("^\\S+$", "one space", false),
    RegexCase("^\\d$", "٣", false),  // ASCII digits only
    // Escapes.
    RegexCase("a\\.b", "a.b", true),
    RegexCase("a\\.b", "axb", false),
    RegexCase("\\\\", "a\\b", true),
    RegexCase("^\\-\\^\\$\\*\\+\\?$", "-^$*+?", true),
    RegexCase("^\\(\\)\\[\\]\\{\\}\\|\\/$", "()[]{}|/", true),
    RegexCase("^a\\tb$", "a\tb", true),
    RegexCase("^a\\nb$", "a\nb", true),
    RegexCase("^a\\rb$", "a\rb", true),
    RegexCase("https:\\/\\/api", "https://api.example.com", true),
    // Groups and alternation.
    RegexCase("(ab)+", "xababx", true),
    RegexCase("^(ab)+$", "ababa", false),
    RegexCase("^(?:ab)+$", "abab", true),
    RegexCase("^(?:ab|cd)*$", "abcdab", true),
    RegexCase("^(?:ab|cd)*$", "abca", false),
    RegexCase("cat|dog", "hotdog", true),
    RegexCase("cat|dog", "cow", false),
    RegexCase("^(cat|dog|)$", "", true),
    RegexCase("a|", "zzz", true),
    RegexCase("|a", "zzz", true),
    RegexCase("^((a|b)(c|d))+$", "acbdad", true),
    RegexCase("^((a|b)(c|d))+$", "acbda", false),
    RegexCase("^(((((a)))))$", "a", true),
    RegexCase("^()*a$", "a", true),
    RegexCase("^(a*)*$", "aaa", true),
    RegexCase("^(a*)+b$", "aaab", true),
    RegexCase("^(a?)*$", "aa", true),
    RegexCase("()+?c|b", "b", true),  // ICU (NSRegularExpression) wrongly says false
    RegexCase("^((c*)*?d){0,2}$", "", true),  // and here too
    RegexCase("(?:(?:[ab]*|([a-b]*)+)*|)*^a|bbb", "Bbbbaba", true),  // and here
    // Quantifiers.
    RegexCase("^ab*c$", "ac", true),
    RegexCase("^ab*c$", "abbbc", true),
    RegexCase("^ab+c$", "ac", false),
    RegexCase("^ab+c$", "abc", true),
    RegexCase("^ab?c$", "abc", true),
    RegexCase("^ab?c$", "abbc", false),
    RegexCase("^ab*?c$", "abbc", true),
    RegexCase("^ab+?c$", "ac", false),
    RegexCase("^ab??c$", "abc", true),
    RegexCase("^a{3}$", "aaa", true),
    RegexCase("^a{3}$", "aa", false),
    RegexCase("^a{3}$", "aaaa", false),
    RegexCase("^a{2,}$", "a", false),
    RegexCase("^a{2,}$", "aaaaa", true),
    RegexCase("^a{2,4}$", "aa", true),
    RegexCase("^a{2,4}$", "aaaa", true),
    RegexCase("^a{2,4}$", "aaaaa", false),
    RegexCase("^a{0}b$", "b", true),
    RegexCase("^a{0}b$", "ab", false),
    RegexCase("^a{0,0}b$", "b", true),
    RegexCase("^a{0,}$", "", true),
    RegexCase("^a{1,}$", "", false),
    RegexCase("^a{2,3}?$", "aaa", true),
    RegexCase("^(ab){2}$", "abab", true),
    RegexCase("^(ab){2}$", "ab", false),
    RegexCase("^(a|bc){1,3}$", "bcabc", true),
    RegexCase("^(a|bc){1,3}$", "bcabca", false),
    RegexCase("^[0-9]{1000}$", String(repeating: "7", count: 1000), true),
    RegexCase("^[0-9]{1000}$", String(repeating: "7", count: 999), false),
    RegexCase("^x{0,1000}$", String(repeating: "x", count: 1000), true),
    RegexCase("^x{0,1000}$", String(repeating: "x", count: 1001), false),
    // Case-insensitive flag.
    RegexCase("(?i)abc", "xABcx", true),
    RegexCase("(?i)^[a-c]+$", "AbC", true),
    RegexCase("(?i)^[A-C]+$", "abc", true),
    RegexCase("(?i)^[^a]$", "A", false),
    RegexCase("(?i)^[^a]$", "b", true),
    RegexCase("(?i)\\w", "_", true),
    RegexCase("(?i)é", "É", false),  // ASCII folding only
    RegexCase("(?i)[x-z]", "Y", true),
    RegexCase("(?i)^[\\[-`]$", "a", false),  // no letters in '[' … '`'
    RegexCase("(?i)^[\\[-`]$", "_", true),
    RegexCase("abc", "ABC", false),
    // UTF-8 text: `.` and classes match whole scalars.
    RegexCase("^..$", "한국", true),
    RegexCase("^.$", "한", true),
    RegexCase("^.$", "😀", true),
    RegexCase("^..$", "😀", false),
    RegexCase("^a.b$", "a😀b", true),
    RegexCase("^a.b$", "a한b", true),
    RegexCase("^[^a]$", "😀", true),
    RegexCase("^.{5}$", "안녕하세요", true),
    RegexCase("^.{5}$", "안녕하세", false),
    RegexCase("세요$", "안녕하세요", true),
    RegexCase("^😀+$", "😀😀😀", true),
    RegexCase("[😀-😂]", "x😁y", true),
    RegexCase("^\\w+$", "한국", false),
    RegexCase("^\\W\\W$", "한국", true)
]

@Test(arguments: matchCases)
func matchesTable(_ example: RegexCase) throws {
    let regex = try BoundedRegex(example.pattern)
    #expect(regex.matches(example.text) == example.expected)
    var bytes = Array(example.text.utf8)
    let viaBytes = bytes.withUnsafeMutableBufferPointer { regex.matches(UnsafeBufferPointer($0)) }
    #expect(viaBytes == example.expected)
}

@Test func describesItsPattern() throws {
    let regex = try BoundedRegex("^a(b|c)*$")
    #expect(regex.description == "^a(b|c)*$")
    #expect(regex.pattern == "^a(b|c)*$")
}

@Test func bridgedStringsMatch() throws {
    // A string that is not natively UTF-8 stored takes the copying path.
    let bridged = NSString(string: "xNSURLErrorDomain:-1005") as String
    #expect(try BoundedRegex("NSURLErrorDomain:-100\\d").matches(bridged))
}

// MARK: - Invalid UTF-8

struct ByteCase: Sendable, CustomTestStringConvertible {
    var pattern: String
    var bytes: [UInt8]
    var expected: Bool
    var testDescription: String { "/\(pattern)/ on \(bytes) → \(expected)" }
}

private let byteCases: [ByteCase] = [
    ByteCase(pattern: "^.$", bytes: [0xFF], expected: true),
    ByteCase(pattern: "^\u{FFFD}$", bytes: [0xFF], expected: true),
    ByteCase(pattern: "^..$", bytes: [0xFF], expected: false),
    // truncated sequence: 2 × U+FFFD, A
    ByteCase(pattern: "^...$", bytes: [0xE2, 0x82, 0x41], expected: true),
    ByteCase(pattern: "^\u{FFFD}\u{FFFD}A$", bytes: [0xE2, 0x82, 0x41], expected: true),
    ByteCase(pattern: "^..$", bytes: [0xC0, 0xAF], expected: true),  // overlong encoding
    ByteCase(pattern: "^...$", bytes: [0xED, 0xA0, 0x80], expected: true),  // encoded surrogate
    ByteCase(pattern: "^.$", bytes: [0xF0, 0x9F, 0x98, 0x80], expected: true),  // 😀
    ByteCase(pattern: "^.$", bytes: [0xF0, 0x9F, 0x98], expected: false),  // truncated at the end
    ByteCase(pattern: "^a.b$", bytes: [0x61, 0x80, 0x62], expected: true),
    ByteCase(pattern: "[^\u{FFFD}]", bytes: [0x80, 0x81], expected: false),
    ByteCase(pattern: "", bytes: [], expected: true)
]

@Test(arguments: byteCases)
func matchesBytes(_ example: ByteCase) throws {
    let regex = try BoundedRegex(example.pattern)
    let result = example.bytes.withUnsafeBufferPointer { regex.matches($0) }
    #expect(result == example.expected)
}

// MARK: - Syntax errors

struct BadPattern: Sendable, CustomTestStringConvertible {
    var pattern: String
    var offset: Int
    /// A part of the expected message.
    var says: String

    init(_ pattern: String, _ offset: Int, _ says: String) {
        self.pattern = pattern
        self.offset = offset
        self.says = says
    }

    var testDescription: String { "/\(pattern)/ fails at \(offset)" }
}

private let badPatterns: [BadPattern] = [
    BadPattern("(a)\\1", 3, "backreferences"),
    BadPattern("a(?=b)", 1, "lookahead"),
    BadPattern("a(?!b)", 1, "lookahead"),
    BadPattern("(?<=a)b", 0, "lookbehind"),
    BadPattern("(?<!a)b", 0, "lookbehind"),
    BadPattern("(?<name>a)", 0, "named groups"),
    BadPattern("(?P<name>a)", 0, "named groups"),
    BadPattern("x(?'n'a)", 1, "named groups"),
    BadPattern("(?>a)", 0, "atomic"),
    BadPattern("(?#note)", 0, "comment"),
    BadPattern("a(?i)b", 1, "start of the pattern"),
    BadPattern("(?s).", 0, "inline flags"),
    BadPattern("(?i:a)", 0, "inline flags"),
    BadPattern("(?", 0, "missing ')'"),
    BadPattern("(?%a)", 0, "unknown group"),
    BadPattern("a*+", 2, "possessive"),
    BadPattern("a++", 2, "possessive"),
    BadPattern("a{2}+", 4, "possessive"),
    BadPattern("a**", 2, "follows another quantifier"),
    BadPattern("a*??", 3, "follows another quantifier"),
    BadPattern("a{2}{3}", 4, "follows another quantifier"),
    BadPattern("\\q", 0, "unknown escape '\\q'"),
    BadPattern("ab\\", 2, "trailing backslash"),
    BadPattern("\\bword", 0, "word boundaries"),
    BadPattern("\\Aa", 0, "anchor"),
    BadPattern("a\\z", 1, "anchor"),
    BadPattern("\\p{L}", 0, "unicode property"),
    BadPattern("\\x41", 0, "code point escape"),
    BadPattern("\\u00e9", 0, "code point escape"),
    BadPattern("\\Q.\\E", 0, "quoting"),
    BadPattern("\\k<n>", 0, "named backreferences"),
    BadPattern("[\\q]", 1, "unknown escape"),
    BadPattern("(ab", 0, "missing ')'"),
    BadPattern("a(b(c)", 1, "missing ')'"),
    BadPattern("ab)", 2, "unmatched ')'"),
    BadPattern("(a))", 3, "unmatched ')'"),
    BadPattern(")", 0, "unmatched ')'"),
    BadPattern("*a", 0, "nothing to repeat"),
    BadPattern("+", 0, "nothing to repeat"),
    BadPattern("a|?", 2, "nothing to repeat"),
    BadPattern("(*a)", 1, "nothing to repeat"),
    BadPattern("{2}", 0, "nothing to repeat"),
    BadPattern("^*", 1, "anchor"),
    BadPattern("a$+", 2, "anchor"),
    BadPattern("a{3,2}", 1, "minimum exceeds the maximum"),
    BadPattern("a{1001}", 2, "exceeds the limit of 1000"),
    BadPattern("a{1,99999999999999999999}", 4, "exceeds the limit of 1000"),
    BadPattern("a{,3}", 1, "counted repetition"),
    BadPattern("a{x}", 1, "counted repetition"),
    BadPattern("a{2", 1, "counted repetition"),
    BadPattern("a{1, 2}", 1, "counted repetition"),
    BadPattern("{\"k\":", 0, "counted repetition"),
    BadPattern("a}", 1, "unmatched '}'"),
    BadPattern("a]", 1, "unmatched ']'"),
    BadPattern("[abc", 0, "missing ']'"),
    BadPattern("x[a-", 1, "missing ']'"),
    BadPattern("[", 0, "missing ']'"),
    BadPattern("[]a]", 0, "empty class"),
    BadPattern("[^]", 0, "empty class"),
    BadPattern("[z-a]", 1, "start is after the end"),
    BadPattern("[a-\\d]", 3, "cannot end a range"),
    BadPattern("[\\d-z]", 3, "'-' in a class"),
    BadPattern("[a-c-e]", 4, "'-' in a class"),
    BadPattern("[[:alpha:]]", 1, "posix classes"),
    BadPattern("[a[b]", 2, "\\["),
    BadPattern("é\\1", 2, "backreferences"),  // byte offsets, not character offsets
    BadPattern("한국(", 6, "missing ')'"),
    BadPattern(
        String(repeating: "(", count: 251) + String(repeating: ")", count: 251), 250, "nested"),
    BadPattern("(a{1000}){30}", 9, "pattern too large"),
    BadPattern("x(?:[ab]{1000}){1000}", 15, "pattern too large"),
    BadPattern(String(repeating: "a", count: 4097), 4096, "longer than 4096 bytes")
]

@Test(arguments: badPatterns)
func rejectsBadPattern(_ bad: BadPattern) {
    do {
        let regex = try BoundedRegex(bad.pattern)
        Issue.record("accepted /\(regex)/")
    } catch {
        #expect(error.offset == bad.offset, "\(error.message)")
        #expect(error.message.contains(bad.says), "\(error.message)")
        #expect(error.message.first?.isLowercase == true, "\(error.message)")
    }
}

@Test func acceptsPatternsAtTheLimits() throws {
    _ = try BoundedRegex(String(repeating: "a", count: BoundedRegex.maxPatternBytes))
    _ = try BoundedRegex(String(repeating: "(", count: 250) + String(repeating: ")", count: 250))
    _ = try BoundedRegex("(a{1000}){19}")  // 19,001 instructions with the final match
    let largest = try BoundedRegex("^(?:[a-z]{1000}){19}$")
    #expect(largest.matches(String(repeating: "q", count: 19_000)))
    #expect(!largest.matches(String(repeating: "q", count: 18_999)))
    #expect(!largest.matches(String(repeating: "q", count: 19_001)))
}

// MARK: - Pathological patterns

struct Pathological: Sendable, CustomTestStringConvertible {
    var pattern: String
    var text: String
    var expected: Bool
    var testDescription: String {
        "/\(pattern)/ on \(text.count) × \(text.first.map(String.init) ?? "")"
    }
}

private let hundredThousandA = String(repeating: "a", count: 100_000)
private let hundredThousandX = String(repeating: "x", count: 100_000)

private let pathological: [Pathological] = [
    Pathological(pattern: "(a+)+$", text: hundredThousandA, expected: true),
    Pathological(pattern: "(a+)+b", text: hundredThousandA, expected: false),
    Pathological(pattern: "(a|a)*b", text: hundredThousandA, expected: false),
    Pathological(pattern: "(a*)*b", text: hundredThousandA, expected: false),
    Pathological(pattern: "(x+x+)+y", text: hundredThousandX, expected: false),
    Pathological(pattern: "^(a|aa)+$", text: hundredThousandA, expected: true),
    Pathological(
        pattern: "^(a?){50}a{50}$", text: String(repeating: "a", count: 50), expected: true),
    Pathological(pattern: "(.*a){12}b", text: hundredThousandA, expected: false),
    Pathological(pattern: "^(\\w+\\s?)*$", text: hundredThousandA + "!", expected: false)
]

@Test(arguments: pathological)
func pathologicalPatternFinishesQuickly(_ example: Pathological) throws {
    let regex = try BoundedRegex(example.pattern)
    var result = !example.expected
    let elapsed = ContinuousClock().measure { result = regex.matches(example.text) }
    #expect(result == example.expected)
    #expect(elapsed < .seconds(2), "took \(elapsed)")
}

// MARK: - Cross-check with NSRegularExpression

/// Random patterns over a, b, `.`, classes, groups, `|`, quantifiers and anchors — syntax both
/// engines read alike.
private struct PatternGenerator {
    var random: SplitMix64

    mutating func pattern() -> String {
        let prefix = Int.random(in: 0..<6, using: &random) == 0 ? "(?i)" : ""
        return prefix + alternation(depth: 0)
    }

    private mutating func alternation(depth: Int) -> String {
        let count = Int.random(in: 0..<4, using: &random) == 0 ? 2 : 1
        return (0..<count).map { _ in concatenation(depth: depth) }.joined(separator: "|")
    }

    private mutating func concatenation(depth: Int) -> String {
        let count = Int.random(in: 0...3, using: &random)
        var out = ""
        for _ in 0..<count {
            switch Int.random(in: 0..<14, using: &random) {
            case 0: out += "^"
            case 1: out += "$"
            default:
                let atom = atom(depth: depth)
                out += atom + quantifier(lazyAllowed: !atom.hasPrefix("("))
            }
        }
        return out
    }

    private mutating func atom(depth: Int) -> String {
        let choices = ["a", "b", "a", "b", "A", ".", "[ab]", "[^a]", "[a-b]", "[^ab]", "\\.", "c"]
        if depth < 3 && Int.random(in: 0..<4, using: &random) == 0 {
            let open = Bool.random(using: &random) ? "(" : "(?:"
            return open + alternation(depth: depth + 1) + ")"
        }
        return choices.randomElement(using: &random)!
    }

    /// ICU gives up a whole match when a lazy quantifier's group matches empty (`()+?c|b` does not
    /// match "b"), so the cross-check puts lazy quantifiers on single-character atoms only; the
    /// tables cover the rest.
    private mutating func quantifier(lazyAllowed: Bool) -> String {
        let greedy = ["", "", "", "*", "+", "?", "{2}", "{0,2}", "{1,}", "{2,3}"]
        let lazy = ["*?", "+?", "??", "{0,2}?"]
        return (lazyAllowed ? greedy + lazy : greedy).randomElement(using: &random)!
    }

    mutating func text() -> String {
        let alphabet: [Character] = ["a", "b", "a", "b", "c", ".", "A", "B"]
        let length = Int.random(in: 0...7, using: &random)
        return String((0..<length).map { _ in alphabet.randomElement(using: &random)! })
    }
}

@Test func agreesWithNSRegularExpression() throws {
    var generator = PatternGenerator(random: SplitMix64(seed: 0xC0FF_EE15_600D))
    var compared = 0
    for _ in 0..<400 {
        let pattern = generator.pattern()
        let ours = try BoundedRegex(pattern)
        // NSRegularExpression refuses an empty pattern; an empty group means the same.
        let theirs = try NSRegularExpression(pattern: pattern.isEmpty ? "(?:)" : pattern)
        for _ in 0..<6 {
            let text = generator.text()
            let range = NSRange(location: 0, length: text.utf16.count)
            let expected = theirs.firstMatch(in: text, options: [], range: range) != nil
            #expect(ours.matches(text) == expected, "/\(pattern)/ on \(text.debugDescription)")
            compared += 1
        }
    }
    #expect(compared == 2400)
}
