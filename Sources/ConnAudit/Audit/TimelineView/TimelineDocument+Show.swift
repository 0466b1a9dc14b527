/// `timeline --show findings|all`: which timelines a view shows.
extension TimelineDocument {
    /// Timelines a view left out, counted so that it can say so.
    public struct Hidden: Sendable, Equatable {
        /// Timelines (generations, or a source's events without `gen`) without a finding.
        public var timelines = 0
        /// Their events in the selection.
        public var events = 0

        public init(timelines: Int = 0, events: Int = 0) {
            self.timelines = timelines
            self.events = events
        }
    }

    /// Keeps the timelines with a finding on a shown event, or the `--around` event; counts the
    /// others in ``hidden`` (which is then set, even when it counts none). Findings elsewhere,
    /// unplaced and corpus-wide ones stay as they are.
    public mutating func keepTimelinesWithFindings() {
        var kept: [Section] = []
        var left = hidden ?? Hidden()
        for section in sections {
            if section.entries.contains(where: { !$0.findings.isEmpty || $0.isFocus }) {
                kept.append(section)
            } else {
                left.timelines += 1
                left.events += section.total
            }
        }
        sections = kept
        hidden = left
    }
}
