/// The names a line's `ev` takes: kept once per distinct name, with their ids, and set into a
/// parsed line without counting a reference where the runtime counts none.
extension JSONLineParser {
    /// Sets `out`'s `ev` to name `number` of ``evNames``. Most names are short: a String of at
    /// most 15 bytes holds them inline, immortal, and counts no reference. When the name and the
    /// line's earlier one are both immortal, its two words are copied as they are, and no call
    /// counts a reference that the runtime skips anyway.
    @inline(__always)
    mutating func setEv(_ number: Int32, of out: inout ParsedLine) {
        evNames.withUnsafeBufferPointer { names in
            assert(number >= 0 && Int(number) < names.count, "an ev name the parser kept")
            let name = UnsafeRawPointer(names.baseAddress.unsafelyUnwrapped + Int(number))
            if Self.isImmortal(name),
                withUnsafeBytes(of: &out.ev, { Self.isImmortal($0.baseAddress!) })
            {
                withUnsafeMutableBytes(of: &out.ev) {
                    $0.baseAddress!.copyMemory(from: name, byteCount: 16)
                }
            } else {
                out.ev = names[Int(number)]
            }
        }
    }

    /// Whether the String at `p` is immortal (``Swift/String/isImmortal(objectWord:)``): the
    /// runtime counts no reference for it, so a copy of its words is the same String.
    @inline(__always) static func isImmortal(_ p: UnsafeRawPointer) -> Bool {
        String.isTwoWords
            && String.isImmortal(objectWord: p.load(fromByteOffset: 8, as: UInt64.self))
    }

    /// The id a logged line's `ev` named `text` takes: its ``EvNames`` id, or -1 for a name no
    /// rule mentions and for the name of one of the reader's findings (a log cannot forge
    /// `$time_regression`). Asked once per name the parser keeps, so no line asks again.
    func loggedEvID(_ text: String) -> Int32 {
        guard let id = evIDs[text] else { return -1 }
        return Event.startsWithDollar(text) && Event.readerFindings.contains(text) ? -1 : id
    }

    /// Keeps a new `ev` name (`bytes` decoded as `text`) in ``evTable`` and ``evNames``: its
    /// number there, or nil when the table keeps no more (or not one so long).
    @discardableResult
    mutating func keepEvName(_ bytes: UnsafeBufferPointer<UInt8>, _ text: String, id: Int32)
        -> Int32?
    {
        let number = Int32(evNames.count)
        evTable.add(bytes, string: text, tag: number)
        guard evTable.count > evNames.count else { return nil }
        evNames.append(text)
        evNameIDs.append(id)
        return number
    }
}
