/// A report that lists every finding, written as text into a ``ReportText``: returned whole, or
/// handed to a `flush` in pieces as it is written.
///
/// Such a report (a JUnit failure names each violation) is never held whole when it goes to a
/// file or a pipe: a million findings would otherwise be copied several times.
protocol PiecewiseTextReport {
    /// Writes the whole of `report` into `out`.
    static func write(_ report: AuditReport, to out: inout ReportText)
}

extension PiecewiseTextReport {
    /// The report as one string.
    static func whole(_ report: AuditReport) -> String {
        report.requireEveryFinding()
        return ReportText.made { write(report, to: &$0) }
    }

    /// The report handed to `flush` in pieces of about ``JSONWriter/flushSize`` bytes as it is
    /// written, never held whole.
    static func render(_ report: AuditReport, flush: @escaping (String) -> Void) {
        report.requireEveryFinding()
        _ = ReportText.made(flush: flush) { write(report, to: &$0) }
    }
}

/// A report that lists every finding, written as JSON with a ``JSONWriter``: returned whole, or
/// handed to a `flush` in chunks as it is written (``PiecewiseTextReport``).
protocol PiecewiseJSONReport {
    /// Writes the whole of `report` with `w`.
    static func write(_ report: AuditReport, to w: inout JSONWriter)
}

extension PiecewiseJSONReport {
    /// The report handed to `flush` in chunks as it is written (each a whole number of UTF-8
    /// characters), and the result empty; nil: returned whole.
    @discardableResult
    static func render(_ report: AuditReport, flush: (([UInt8]) -> Void)?) -> String {
        report.requireEveryFinding()
        var w = JSONWriter(flush: flush)
        write(report, to: &w)
        return w.finish()
    }
}

extension AuditReport {
    /// Stops the program unless every finding can be listed (``listsEveryFinding``): a report
    /// that lists them all is written of an audit with `keepFindings` nil, or of a merge.
    fileprivate func requireEveryFinding() {
        precondition(
            listsEveryFinding, "this report lists every finding: audit with keepFindings nil")
    }
}
