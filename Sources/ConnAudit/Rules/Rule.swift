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
    /// The same bindings as written (for `rules --explain`).
    public var letTexts: [(name: String, text: String)] = []
    public var check: Check
    /// `message:` — text with `{expression}` holes, evaluated at the violation's anchor.
    public var message: MessageTemplate?
    public var tests: [Fixture]
    /// Where the rule starts (for `--explain` and fixture failures).
    public var file: String
    public var line: Int
    /// The rule's own YAML text, as written (it may hold secrets in its fixtures: `rules --explain`
    /// shows ``redactedYAML``), made from ``text`` on each read.
    public var yaml: String { text.text }
    /// Where ``yaml`` comes from: the rule's lines in its file's bytes.
    var text: RuleText
    /// The lines of ``yaml`` (0-based) that hold its `tests:`, when they are lines of their own
    /// (the key first on its line, the next key on a later line of its own): a fixture that cannot
    /// be redacted in place is shown by rewriting them.
    public var testsLines: Range<Int>?
    /// A `count`/`classify` bound written as a param (`max: params.max_closes`): "min"/"max" → the
    /// param's name. The check holds the default's value; a `--param` override replaces it.
    public var boundParams: [String: String] = [:]
    /// Top-level fields of the event a finding points at that the finding records (as
    /// ``Finding/eventFields``): what suppressions match on besides the rule's own reads.
    public var findingFields: [String] = []

    /// The part of the id before the first dot (`ws`, `log`): the JUnit classname, the family.
    public var family: String {
        if let dot = id.firstIndex(of: ".") { return String(id[..<dot]) }
        return id
    }
}

/// What a rule checks on each timeline of its scope: the specification patterns of Dwyer,
/// Avrunin and Corbett (universality, absence, bounded existence, response, precedence) with
/// real-time bounds, plus forbidden sequences and corpus coverage.
public enum Check: Sendable {
    /// Universality: every matching event satisfies `expect`.
    case every(Selector, expect: Expectation, undecided: UndecidedPolicy)
    /// Absence: no matching event within the scope.
    case never(Selector, scope: AbsenceScope)
    /// Bounded existence: the number of matching events (per `by` key, if given) is within
    /// `[min, max]`; each event past `max` is a violation, and a timeline with fewer than `min` is
    /// one.
    case count(Selector, min: Int?, max: Int?, by: Expr?)
    /// Response: each trigger is answered by a `followed_by` event (within `within_ms` of the
    /// trigger, inclusive), unless an `unless` event releases it first.
    case response(Trigger, followedBy: Selector, within: Expr?, unless: Selector?, atEnd: AtEnd)
    /// Precedence: each trigger has an earlier `preceded_by` event.
    case precedence(Trigger, precededBy: Selector)
    /// Absence after each trigger, to the end of the trace (`never_after`).
    case neverAfter(Trigger, Selector)
    /// A forbidden sequence: steps in order, gaps allowed.
    case forbid(Sequence, without: Selector?)
    /// Coverage: label generations across the corpus and require each label.
    case classify(Classification, require: [String], min: Int, appliesIf: Selector?)

    public var kindName: String {
        switch self {
        case .every: return "every"
        case .never: return "never"
        case .count: return "count"
        case .response: return "each/followed_by"
        case .precedence: return "each/preceded_by"
        case .neverAfter: return "each/never_after"
        case .forbid: return "forbid"
        case .classify: return "classify"
        }
    }
}

/// Where `never` looks (Dwyer's scopes).
public enum AbsenceScope: Sendable {
    /// The whole timeline.
    case global
    /// After the first `after` match (to the end), optionally only before the first `before`
    /// match that follows it (or, without `after`, before the first `before` match).
    case window(after: Selector?, before: Selector?)
    /// Each interval from a `from` match to the next `to` match; with `open`, an interval that
    /// the log ends inside is judged too (`until`), else only closed ones are (`between`).
    case intervals(from: Selector, to: Selector, open: Bool)
}

/// One step of a sequence: its selector, and what may not happen in the gap before it.
public struct Step: Sendable {
    public var selector: Selector
    public var without: Selector?
}

/// Steps matched in order with gaps allowed; captures of earlier steps are visible to later ones.
public struct Sequence: Sendable {
    public var steps: [Step]
    /// The capture whose event a violation points at; nil: the last step's event.
    public var reportAt: String?
    /// The capture whose `gen` a violation carries (`report_gen:`, under `each:` only, where
    /// matches that differ in it are obligations of their own); nil: its anchor's. A source-wide
    /// rule anchored at an event without one (an `app.scene`) can say which generation each of
    /// its violations is about.
    public var reportGen: String? = nil
}

/// A response or precedence trigger: one selector, or a sequence (one obligation per match).
public typealias Trigger = Sequence

/// What an obligation still open when its timeline ends means.
public enum AtEnd: String, Sendable {
    case inconclusive, fail, pass
}

/// `classify:` — labels for each generation of one stream.
public struct Classification: Sendable {
    public var stream: String
    public var labels: [Label]

    public struct Label: Sendable {
        public var name: String
        /// The generation has an event matching this.
        public var has: Selector?
        /// The generation has no event matching this.
        public var lacks: Selector?
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
    public var parts: [Part] {
        didSet { holeKeys = Self.keys(parts) }
    }
    /// Per hole, the name of the field it reads when it reads one (`{url}`, `{e.headers}`,
    /// `{e["token"]}`): a secret key name hides the value, as it does in a context line.
    public private(set) var holeKeys: [String?]

    public init(parts: [Part]) {
        self.parts = parts
        holeKeys = Self.keys(parts)
    }

    private static func keys(_ parts: [Part]) -> [String?] {
        parts.compactMap { part -> String?? in
            guard case .expr(let x) = part else { return nil }
            switch x {
            case .name(let n, _, _), .field(let n, _), .member(_, let n, _, _): return .some(n)
            case .index(_, .literal(.string(let n))): return .some(n)
            default: return .some(nil)
            }
        }
    }
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
    /// Params this fixture runs the rule with, over the rule's own (as `--param` would set them).
    public var params: [String: Value] = [:]
    public var line: Int
    /// Where `log:`'s value starts in the rules file (its line), and whether it is a literal block
    /// (`log: |`), whose lines are the log's lines as written: `rules --explain` redacts those in
    /// place.
    public var logStartLine: Int = 0
    public var logIsLiteralBlock = false
}
