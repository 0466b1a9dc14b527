/// A selector's `exists` test and its `equals` of a boolean, the field tests most selectors
/// make, decided where the event holds the field: its value is not copied, so a text is neither
/// retained nor released. Each gives what ``Evaluator/predicate(of:_:present:_:_:)`` gives for
/// the value ``Event/value(of:id:)`` finds. Tests: `FieldTestsInPlaceTests`.
extension Event {
    /// Whether `test` (of field id `id`, a field's: not a built-in name's) holds of the event;
    /// nil for a test of another kind, which is decided from a copy of the value.
    @inline(__always) func holds(_ test: UnsafePointer<Selector.FieldTest>, id: Int32) -> Bool? {
        switch test.pointee.predicate {
        case .exists(let wanted): return hasValue(test.pointee.field, id: id) == wanted
        case .equals(.bool(let wanted)): return isBool(wanted, test.pointee.field, id: id)
        default: return nil
        }
    }

    /// Whether the field ``Event/value(of:id:)`` finds for `name` (id `id`) is there and not
    /// null.
    @inline(__always) func hasValue(_ name: String, id: Int32) -> Bool {
        guard id >= 0 else { return (value(of: name, id: id) ?? .null) != .null }
        return fields.withUnsafeBufferPointer { fields in
            var i = fields.count
            while i > 0 {
                i -= 1
                if fields[i].id == id || (fields[i].id < 0 && fields[i].key == name) {
                    if case .null = fields[i].value { return false }
                    return true
                }
            }
            return false
        }
    }
}
