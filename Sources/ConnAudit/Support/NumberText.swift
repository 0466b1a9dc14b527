/// Numbers as every report, message and fingerprint writes them: JSON number text.
///
/// Log times are milliseconds, mostly whole, so a whole number is written without a fraction
/// (`1000`, not `1000.0`); any other number in its shortest form that reads back as the same
/// `Double` (`128.11`, `1e+16`). One spelling everywhere keeps a time in a finding's message, in
/// each report and in a baseline's fingerprint the same text.
enum NumberText {
    /// `d` as JSON number text: whole numbers below 9e15 as integers, others in shortest form;
    /// `null` for NaN and the infinities, which JSON cannot write.
    static func json(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 9e15 { return String(Int64(d)) }
        return d.isFinite ? String(d) : "null"
    }
}
