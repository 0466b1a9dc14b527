/// How the reader shows what `log.no-secrets` flags in a line's `src`, `session` and `ev`: the
/// flagged parts replaced, so two devices stay two sources and a report names a source without
/// its secret.
extension FileReader {
    /// A `src`/`session` object or list with a secret key name (or a key holding a token)
    /// inside: its JSON with each value under such a key, and each such key, `[redacted]`, and
    /// each token a hash — so two devices stay two sources, shown without their secrets (a hash of
    /// a value under a secret key name would help guess a weak password). Any other value:
    /// `[redacted]`.
    static func redactedInside(_ v: Value?) -> Value {
        switch v {
        case .object?, .array?: return redactingSecrets(v!) { .string(redactedName($0)) }
        default: return .string("[redacted]")
        }
    }

    /// `v` with what `log.no-secrets` flags in it replaced, at any depth: the value under a secret
    /// key name by `[redacted]`, a key holding a token by `[redacted]` (its value too), and a
    /// string holding a token by `token(string)`. Other keys and values are kept.
    static func redactingSecrets(_ v: Value, token: (Value) -> Value) -> Value {
        func walk(_ v: Value) -> Value {
            switch v {
            case .object(let entries):
                return .object(
                    entries.map { e in
                        let keyHoldsToken = JSONLineParser.holdsToken(e.key)
                        let key = keyHoldsToken ? "[redacted]" : e.key
                        if keyHoldsToken || JSONLineParser.isSecretKeyName(e.key) {
                            return .init(key, .string("[redacted]"))
                        }
                        return .init(key, walk(e.value))
                    })
            case .array(let items): return .array(items.map(walk))
            case .string(let s): return JSONLineParser.holdsToken(s) ? token(v) : v
            default: return v
            }
        }
        return walk(v)
    }

    /// Whether `stream`, the part of a flagged `ev` before its first dot, may be shown: no token
    /// can reach into it from the part after the dot. A bearer token needs white space after its
    /// word, and a JWT starts with `eyJ`: a stream of printable ASCII with neither holds no start
    /// of one (`Bearer SEVNCHR.rest` is one token across the dot, and is redacted whole).
    static func streamKeepable(_ stream: Substring) -> Bool {
        let bytes = Array(stream.utf8)
        guard !bytes.isEmpty, !bytes.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else {
            return false
        }
        return !bytes.indices.dropLast(2).contains {
            bytes[$0] == 0x65 && bytes[$0 + 1] == 0x79 && bytes[$0 + 2] == 0x4A
        }
    }

    /// `[redacted 1a2b3c4d]`: an FNV-1a hash of the value's text, never the value.
    static func redactedName(_ v: Value?) -> String {
        var h: UInt32 = 2_166_136_261
        for b in (v?.rendered(bare: false) ?? "").utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
        return redactedName(hash: h)
    }

    /// `[redacted 1a2b3c4d]` for a hash made as ``redactedName(_:)`` makes it.
    static func redactedName(hash h: UInt32) -> String {
        let hex = String(h, radix: 16)
        return "[redacted " + String(repeating: "0", count: 8 - hex.count) + hex + "]"
    }
}
