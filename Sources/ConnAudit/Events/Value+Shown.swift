/// A log's value as every output shows it: what ``SecretShapes`` finds in it hidden.
extension Value {
    /// The value as shown under `key` (its field's name; nil for a value with no name, such as a
    /// message hole's): nil when the whole value is hidden — a secret key name over anything but
    /// null, a boolean or nothing hidden already — else the value with what it holds hidden at
    /// any depth:
    /// - a string's secrets (``SecretShapes/text(_:)``);
    /// - in an object, the value under a secret key name, and a key that holds a secret;
    /// - a name and its value given as a pair: `["Authorization", "Basic …"]` in a list, or
    ///   `{"name": "Cookie", "value": "…"}` (also `key`/`header` for the name).
    public func shown(under key: String?) -> Value? {
        if let key, SecretShapes.isSecretKey(key) {
            switch self {
            case .null, .bool: return self
            case .string(let s) where s == SecretShapes.marker: return self
            default: return nil
            }
        }
        return shownInside
    }

    /// The value with what it holds hidden (``shown(under:)`` without a name).
    public var shownInside: Value {
        switch self {
        case .string(let s): return .string(SecretShapes.text(s))
        case .array(let items):
            var out = items
            for k in items.indices {
                if k > 0, case .string(let name) = items[k - 1], SecretShapes.isSecretKey(name) {
                    out[k] = items[k].shown(under: name) ?? .string(SecretShapes.marker)
                } else {
                    out[k] = items[k].shownInside
                }
            }
            return .array(out)
        case .object(let entries):
            let pairName = entries.first { e in
                ["name", "key", "header"].contains(e.key.lowercased())
                    && e.value.string.map(SecretShapes.isSecretKey) == true
            }
            return .object(
                entries.map { e in
                    let key = SecretShapes.text(e.key)
                    if pairName != nil, e.key.lowercased() == "value" {
                        return .init(key, .string(SecretShapes.marker))
                    }
                    return .init(key, e.value.shown(under: e.key) ?? .string(SecretShapes.marker))
                })
        default: return self
        }
    }
}
