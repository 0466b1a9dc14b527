/// How serious a rule's violations are; `--fail-on` compares against it.
public enum Severity: String, Sendable, Comparable, CaseIterable {
    case info, warning, error

    var rank: Int {
        switch self {
        case .info: return 0
        case .warning: return 1
        case .error: return 2
        }
    }

    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}

/// Which timelines a rule judges, one at a time (connlog.md: sources, generations, corpus).
public enum Scope: String, Sendable {
    /// One `(source, stream, gen)`: events of one stream with one `gen`.
    case generation
    /// All events of one `(src, session)`, in merged order.
    case source
    /// The whole run: the reader's findings (`$malformed`, `$secret`) in file and line order.
    case corpus
}

/// One rule, loaded and checked.
public struct Rule: Sendable {
    public var id: String
    public var title: String
    public var severity: Severity
    public var description: String?
    public var scope: Scope
    /// Defaults: the file's `params:` overlaid with the rule's (command-line overrides come later).
    public var params: [String: Value]
    /// `let:` bindings, file-level first, in order; evaluated per trigger.
    public var lets: [(name: String, expr: Expr)]
    public var check: Check
    /// `message:` — text with `{expression}` holes, evaluated at the violation's anchor.
    public var message: MessageTemplate?
    public var tests: [Fixture]
    /// Where the rule starts (for `--explain` and fixture failures).
    public var file: String
    public var line: Int
    /// The rule's own YAML text, as written.
    public var yaml: String

    /// The part of the id before the first dot (`ws`, `log`): the JUnit classname, the family.
    public var family: String {
        if let dot = id.firstIndex(of: ".") { return String(id[..<dot]) }
        return id
    }
}

/// What a rule checks on each timeline of its scope.
public enum Check: Sendable {
    /// Universality: every matching event satisfies `expect`.
    case every(Selector, expect: Expectation, undecided: UndecidedPolicy)
    /// Absence: no matching event, optionally only after the first `after` match and/or before
    /// the first `before` match.
    case never(Selector, after: Selector?, before: Selector?)
    /// Bounded existence: the number of matching events is within `[min, max]`; each event past
    /// `max` is a violation, and a timeline with fewer than `min` is one.
    case count(Selector, min: Int?, max: Int?)

    public var kindName: String {
        switch self {
        case .every: return "every"
        case .never: return "never"
        case .count: return "count"
        }
    }
}

/// What `expect:` asks of an event: an expression, or a selector the event must match.
public enum Expectation: Sendable {
    case expression(Expr)
    case selector(Selector)
}

/// What an undecided `expect` means (missing data, see docs/rules.md).
public enum UndecidedPolicy: String, Sendable {
    case fail, pass, inconclusive
}

/// A message with `{expression}` holes.
public struct MessageTemplate: Sendable {
    public enum Part: Sendable {
        case text(String)
        case expr(Expr)
    }
    public var parts: [Part]
}

/// A rule's self-test: a small log and what the rule must say about it.
public struct Fixture: Sendable {
    public enum Expected: String, Sendable {
        case pass, fail, inconclusive
        case notApplicable = "not_applicable"
    }
    public var name: String
    public var log: String
    public var expect: Expected
    public var violations: Int?
    public var line: Int
}
