/// The postmortem view of the selected sources: what the renderers print (``TimelineReport``).
///
/// One ``Section`` per generation timeline `(source, stream, gen)`, and one per source for its
/// events without `gen`; sections of a source follow each other, in the order of their first event
/// shown; sources in the order they first appear in the inputs.
public struct TimelineDocument: Sendable {
    /// A finding marked on an event: rule id, severity, `fail` (a violation) or `inconclusive`,
    /// message.
    public typealias Mark = (rule: String, severity: Severity, status: RuleStatus, message: String)

    /// One event, in merged order.
    public struct Entry: Sendable {
        /// The path as found (`<stdin>` for standard input) and the 1-based line.
        public var file: String
        public var line: Int
        public var t: Double
        public var ev: String
        public var gen: UInt64?
        /// `ws.close reason="pong_timeout" code=1000`: `ev` and the fields (not `t`, `gen`, `src`,
        /// `session`), strings quoted and escaped; a redacted field shows as `key=[redacted]`,
        /// never its value.
        public var text: String
        /// The top-level fields other than `t`, `ev`, `gen`, `src` and `session`, the last of
        /// duplicate keys only; the value of a redacted key is the string `[redacted]`.
        public var fields: [Event.Field]
        /// Keys whose value is hidden: flagged by `log.no-secrets`, or a secret to
        /// ``SecretShapes`` (a key name such as `apiKey`, `Set-Cookie`).
        public var redacted: [String]
        /// `t` minus the `t` of the generation's first `<stream>.connect` (`ws.connect`); nil
        /// without one.
        public var sinceConnect: Double?
        /// `t` minus the `t` of the last `<stream>.ping` before this event in the generation; nil
        /// without one.
        public var sincePing: Double?
        /// For `ws` generations: `connecting`, `open`, `closing`, `closed` or `stale` after this
        /// event.
        public var phase: String?
        /// True when ``phase`` differs from the generation's phase before this event.
        public var phaseChanged: Bool
        /// The findings pointing at this line, in rule order (violations before inconclusive ones).
        public var findings: [Mark]
        /// True for the event `--around` names.
        public var isFocus: Bool
    }

    /// One generation timeline, or a source's events without `gen`.
    public struct Section: Sendable {
        public var source: SourceKey
        /// The stream of a generation timeline; for the events without `gen`, the `--stream` asked
        /// for, else nil (any stream).
        public var stream: String?
        /// nil: the source's events without `gen`.
        public var gen: UInt64?
        public var entries: [Entry]
        /// How many events the timeline has in the selection (more than `entries` with `--around`).
        public var total: Int

        public var violations: Int {
            entries.reduce(0) { $0 + $1.findings.filter { $0.status == .fail }.count }
        }
        public var inconclusive: Int {
            entries.reduce(0) { $0 + $1.findings.filter { $0.status == .inconclusive }.count }
        }
    }

    public var sections: [Section]
    /// Findings (with a line) of the selected sources that no shown entry carries: outside the
    /// selected streams or generations, or outside the `--around` window.
    public var findingsElsewhere: Int
    /// Findings of a selected source that point at no line (a timeline-wide finding without an
    /// event).
    public var unplaced: [Mark]
    /// Findings of the whole corpus that point at no line (`classify` coverage such as
    /// `ws.required-outcomes`): not about these sources, listed for completeness.
    public var corpus: [Mark]
    /// The `--around` event and the radius used, if any.
    public var focus: (file: String, line: Int)?
    public var radius: Int?
    /// Inputs the timeline could not read again (they are in the returned report too).
    public var inputErrors: [InputError]
    /// Timelines left out for having no finding (``keepTimelinesWithFindings()``); nil: none was
    /// left out for that, every timeline of the selection is shown.
    public var hidden: Hidden?
}
