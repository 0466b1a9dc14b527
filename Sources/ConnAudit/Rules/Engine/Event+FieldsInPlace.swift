/// Reads of an event's field where the event holds it, for the counted indexes
/// (``CountedIndex``): what ``Event/value(of:id:)`` finds, compared or measured in place, where
/// a copy of the value is a retain of its text, and a release when it goes.
extension Event {
    /// Whether field `name` (``FieldNames`` id `id`) is the boolean `wanted`: what
    /// `(value(of: name, id: id) ?? .null).looselyEquals(.bool(wanted))` says (only that
    /// boolean is loosely equal to it: a boolean is no number).
    @inline(__always) func isBool(_ wanted: Bool, _ name: String, id: Int32) -> Bool {
        guard id >= 0 else {
            return (value(of: name, id: id) ?? .null).looselyEquals(.bool(wanted))
        }
        return fields.withUnsafeBufferPointer { fields in
            var i = fields.count
            while i > 0 {
                i -= 1
                if fields[i].id == id || (fields[i].id < 0 && fields[i].key == name) {
                    if case .bool(let v) = fields[i].value { return v == wanted }
                    return false
                }
            }
            return false
        }
    }

    /// The two words (``Swift/String/words``) of field `name` (id `id`) when it is a string:
    /// the field ``Event/value(of:id:)`` finds. Nil when it is absent or not a string, when
    /// `id` is no field's id (a name read by name, or a built-in one), or where a String is not
    /// two words.
    @inline(__always) func stringWords(_ name: String, id: Int32) -> (UInt64, UInt64)? {
        guard id >= 0, String.isTwoWords else { return nil }
        return fields.withUnsafeBufferPointer { fields in
            var i = fields.count
            while i > 0 {
                i -= 1
                if fields[i].id == id || (fields[i].id < 0 && fields[i].key == name) {
                    if case .string(let s) = fields[i].value { return s.words }
                    return nil
                }
            }
            return nil
        }
    }
}
