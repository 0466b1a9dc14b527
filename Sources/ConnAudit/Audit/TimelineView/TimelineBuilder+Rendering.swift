/// Rendering without secrets: fields, names and log text as every view shows them.
extension TimelineBuilder {
    /// Duplicate keys: the last wins (connlog), shown once at its last place.
    static func lastOfEachKey(_ fields: [Event.Field]) -> [Event.Field] {
        guard fields.count > 1 else { return fields }
        var seen = Set<String>()
        var out: [Event.Field] = []
        for f in fields.reversed() where seen.insert(f.key).inserted { out.append(f) }
        return out.reversed()
    }

    /// The fields as every view shows them: each name and value through ``SecretShapes``, a value
    /// it hides whole as the string `[redacted]` with its key added to the redacted ones.
    static func shown(_ fields: [Event.Field], redacted: [String]) -> ([Event.Field], [String]) {
        let flagged = KeyLookup(redacted)
        var hidden = redacted
        let out = fields.map { f -> Event.Field in
            if flagged.contains(f.key) { return f }
            let key = SecretShapes.text(f.key)
            guard let value = f.value.shown(under: f.key) else {
                hidden.append(key)
                return Event.Field(key, .string(SecretShapes.marker), id: f.id)
            }
            return Event.Field(key, value, id: f.id)
        }
        return (out, hidden)
    }

    /// `ws.close reason="pong_timeout" code=1000`; a redacted field as `key=[redacted]`.
    static func render(_ ev: String, fields: [Event.Field], redacted: [String]) -> String {
        var text = safe(ev)
        let redacted = KeyLookup(redacted)
        for f in fields {
            text += " " + safe(f.key) + "="
            text += redacted.contains(f.key) ? "[redacted]" : json(f.value)
        }
        return text
    }

    /// A value as JSON text (strings quoted and escaped).
    static func json(_ v: Value) -> String { v.rendered(bare: false) }

    /// Log text made safe for a terminal: control characters (C0, DEL, C1, line separators)
    /// escaped.
    static func safe(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: isControl) else { return s }
        var out = ""
        for u in s.unicodeScalars {
            if isControl(u) {
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    private static func isControl(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (u.value >= 0x7F && u.value <= 0x9F) || u.value == 0x2028
            || u.value == 0x2029
    }

    /// `iphone-a session s1`, or `logs/a.jsonl (no src)` for a file standing for its source.
    static func displayName(_ key: SourceKey) -> String {
        var name = key.srcIsFile ? safe(key.src) + " (no src)" : safe(key.shownSrc)
        if let session = key.shownSession { name += " session " + safe(session) }
        return name
    }
}
