/// One violation, or one case a rule could not decide (inconclusive), with where it happened.
///
/// Kept small: a run can hold millions (one per malformed line of a file that is not a log at
/// all), so what every finding has — where, the message, the event's name — is stored inline (56
/// bytes) and the rest, which a reader's finding on the corpus timeline does not have (a time, a
/// source, a generation, context, event fields, the suppressions a shard matched), in one box
/// that is absent when empty and names its source by a reference shared by the source's findings.
public struct Finding: Sendable {
    private var fileIndex: Int32
    private var lineNumber: Int
    public var message: String
    /// The `ev` of the event the finding points at (for fingerprints; nil when it points at none).
    public var ev: String?
    private var rest: Rest?

    /// Index of the file in the run's file list; nil when the finding points at no line.
    public var file: Int32? {
        get { fileIndex == Self.noFile ? nil : fileIndex }
        set { fileIndex = newValue ?? Self.noFile }
    }
    public var line: Int? {
        get { lineNumber == Self.noLine ? nil : lineNumber }
        set { lineNumber = newValue ?? Self.noLine }
    }
    public var t: Double? {
        get { rest?.parts.t }
        set { update { $0.t = newValue } }
    }
    public var source: SourceKey? {
        get { rest?.parts.source?.key }
        set { update { $0.source = newValue.map(SharedSource.init) } }
    }
    public var gen: UInt64? {
        get { rest?.parts.gen }
        set { update { $0.gen = newValue } }
    }
    /// A few events of the finding's timeline around it, rendered without secret values.
    public var context: [ContextLine] {
        get { rest?.parts.context ?? [] }
        set { update { $0.context = newValue } }
    }
    /// For a finding that points at no line: what it is about (a coverage label), for fingerprints.
    public var subject: String? {
        get { rest?.parts.subject }
        set { update { $0.subject = newValue } }
    }
    /// The fields of its event that suppressions ask about (``Rule/findingFields``), as the
    /// reader kept them (a flagged value only as its redaction); never shown in a report.
    public var eventFields: [Value.ObjectEntry] {
        get { rest?.parts.eventFields ?? [] }
        set { update { $0.eventFields = newValue } }
    }
    /// In a merge of partials: the suppression entries (by index) whose `fields:` conditions
    /// held on the finding's event, as its shard judged them
    /// (``Suppressions/fieldMatches(rule:)``); nil where suppressions judge ``eventFields``
    /// themselves.
    public var fieldMatches: [Int]? {
        get { rest?.parts.fieldMatches }
        set { update { $0.fieldMatches = newValue } }
    }

    private static let noFile = Int32.min
    private static let noLine = Int.min

    /// What not every finding has, its optionals kept as flags beside plain values (optionals of
    /// their own would each take padding).
    private struct Parts: Sendable {
        private var tValue = 0.0
        private var genValue: UInt64 = 0
        var source: SharedSource?
        var context: [ContextLine] = []
        var subject: String?
        var eventFields: [Value.ObjectEntry] = []
        var fieldMatches: [Int]?
        private var hasT = false
        private var hasGen = false

        var t: Double? {
            get { hasT ? tValue : nil }
            set { (tValue, hasT) = (newValue ?? 0, newValue != nil) }
        }
        var gen: UInt64? {
            get { hasGen ? genValue : nil }
            set { (genValue, hasGen) = (newValue ?? 0, newValue != nil) }
        }

        var isEmpty: Bool {
            !hasT && source == nil && !hasGen && context.isEmpty && subject == nil
                && eventFields.isEmpty && fieldMatches == nil
        }
    }

    /// Never changed once made: a finding copied shares it, and a change makes a new one.
    private final class Rest: Sendable {
        let parts: Parts
        init(_ parts: Parts) { self.parts = parts }
    }

    private mutating func update(_ change: (inout Parts) -> Void) {
        var parts = rest?.parts ?? Parts()
        change(&parts)
        rest = parts.isEmpty ? nil : Rest(parts)
    }

    public init(
        file: Int32? = nil, line: Int? = nil, t: Double? = nil, source: SourceKey? = nil,
        gen: UInt64? = nil,
        message: String, context: [ContextLine] = [], ev: String? = nil
    ) {
        self.init(
            file: file, line: line, t: t, shared: source.map(SharedSource.init), gen: gen,
            message: message,
            context: context, ev: ev)
    }

    /// A finding naming its source by a reference its source's other findings share.
    init(
        file: Int32?, line: Int?, t: Double?, shared source: SharedSource?, gen: UInt64?,
        message: String,
        context: [ContextLine], ev: String?
    ) {
        fileIndex = file ?? Self.noFile
        lineNumber = line ?? Self.noLine
        self.message = message
        self.ev = ev
        var parts = Parts()
        parts.t = t
        parts.source = source
        parts.gen = gen
        parts.context = context
        rest = parts.isEmpty ? nil : Rest(parts)
    }

    /// Findings sort by file, line, then message, so every run and every `--jobs` prints the same.
    static func precedes(_ a: Finding, _ b: Finding) -> Bool {
        let fa = a.file ?? Int32.max, fb = b.file ?? Int32.max
        if fa != fb { return fa < fb }
        let la = a.line ?? Int.max, lb = b.line ?? Int.max
        if la != lb { return la < lb }
        return a.message < b.message
    }
}

/// A source key in one place, for the findings of the source to share (42 bytes each otherwise).
final class SharedSource: Sendable {
    let key: SourceKey
    init(_ key: SourceKey) { self.key = key }
}

/// An event shown around a finding.
public struct ContextLine: Sendable {
    // Declared widest first: 32 bytes a line instead of 40 (a finding shows up to five).
    public var line: Int
    /// `t=1100 ws.close gen=1 reason=pong_timeout` — only fields that were not redacted.
    public var text: String
    public var file: Int32
    /// True for the event the finding points at.
    public var isAnchor: Bool

    public init(file: Int32, line: Int, text: String, isAnchor: Bool) {
        self.file = file
        self.line = line
        self.text = text
        self.isAnchor = isAnchor
    }
}
