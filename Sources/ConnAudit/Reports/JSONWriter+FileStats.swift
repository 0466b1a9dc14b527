extension JSONWriter {
    /// A file's line accounting, `lines` = `events` + `malformed` + `blank`, then the bytes read:
    /// as the JSON report lists its files and a partial result records them.
    mutating func lineCounts(_ f: FileStats) {
        key("lines", f.lines)
        key("events", f.events)
        key("malformed", f.malformed)
        key("blank", f.blank)
        key("bytes", f.bytes)
    }
}
