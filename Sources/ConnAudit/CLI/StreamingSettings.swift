#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a run streams its inputs: which files are read ahead, in what parts, and how soon a quiet
/// generation timeline is retired. Reports never depend on them, only time and memory do; the
/// differential harness checks that by setting them low on small corpora, where the defaults
/// would never read ahead or retire. So each can be set through the environment:
///
/// - `CONN_AUDIT_READ_AHEAD_FROM`: bytes; a file at least this large is read lightly first to learn
///   where each source ends (0: every file that can be read again);
/// - `CONN_AUDIT_LIGHT_READ_PART`: bytes; the least part of a file one thread reads ahead, with
///   more than one job;
/// - `CONN_AUDIT_RETIRE_IDLE_AFTER`: a source's events after which a quiet generation timeline is
///   retired (0: at every chance).
struct StreamingSettings: Equatable {
    var readAheadFrom = Auditor.defaultReadAheadFrom
    var lightReadPart = Auditor.defaultLightReadPart
    var retireIdleAfter = Auditor.defaultRetireIdleAfter

    static let readAheadFromVariable = "CONN_AUDIT_READ_AHEAD_FROM"
    static let lightReadPartVariable = "CONN_AUDIT_LIGHT_READ_PART"
    static let retireIdleAfterVariable = "CONN_AUDIT_RETIRE_IDLE_AFTER"

    /// The settings `value` gives (a variable's text, nil when it is not set): the defaults where
    /// it gives none. A value that is not a whole number from 0 up is a usage error; the message
    /// names the variable, not the value.
    static func fromEnvironment(
        _ value: (String) -> String? = { getenv($0).map { String(cString: $0) } }
    ) throws(UsageError) -> StreamingSettings {
        var settings = StreamingSettings()
        if let text = value(readAheadFromVariable) {
            settings.readAheadFrom = try count(text, readAheadFromVariable, of: "bytes")
        }
        if let text = value(lightReadPartVariable) {
            // A part of no bytes would split a file without end: one byte is the least.
            settings.lightReadPart = max(1, try count(text, lightReadPartVariable, of: "bytes"))
        }
        if let text = value(retireIdleAfterVariable) {
            settings.retireIdleAfter = try count(text, retireIdleAfterVariable, of: "events")
        }
        return settings
    }

    /// `text` as a whole number from 0 to 2^40 (decimal digits only).
    private static func count(_ text: String, _ variable: String, of unit: String)
        throws(UsageError) -> Int
    {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.count <= 13, digits.allSatisfy({ $0 &- 0x30 < 10 }),
            let n = Int(text), n <= 1 << 40
        else {
            throw UsageError("\(variable) must be a whole number of \(unit), from 0 to 2^40")
        }
        return n
    }
}
