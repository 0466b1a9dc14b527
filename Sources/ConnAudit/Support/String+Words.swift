/// A String's two words, on the 64-bit targets conn-audit builds for (a String is 16 bytes there).
///
/// Equal words are one String: the same short text held inline, or the same storage. The second
/// word's top bit marks an immortal String (the standard library's `_StringObject`): a short text
/// held inline or a literal, which the runtime never counts nor frees.
extension String {
    /// Whether a String is two words here. Where it is not, ``words`` is never read.
    @inline(__always) static var isTwoWords: Bool { MemoryLayout<String>.size == 16 }

    /// The two words `self` is made of. Read only where ``isTwoWords``.
    @inline(__always) var words: (UInt64, UInt64) {
        unsafeBitCast(self, to: (UInt64, UInt64).self)
    }

    /// Whether the String whose second word is `objectWord` is immortal.
    @inline(__always) static func isImmortal(objectWord: UInt64) -> Bool {
        isTwoWords && objectWord >> 63 == 1
    }
}
