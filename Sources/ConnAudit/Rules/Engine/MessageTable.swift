/// The messages one rule has given its findings, so that findings with the same message share
/// one copy of its text.
///
/// A rule's findings often say the same thing: a file of 340,000 non-JSON lines gives as many
/// `log.malformed` findings with a few dozen different reasons, and a copy of the text per
/// finding would be a large part of what a finding keeps. A message is looked up once
/// when its finding is made; the table keeps at most ``limit`` texts (a rule whose messages all
/// differ — they name a `t` or an id — fills it once and then only looks). Texts short enough
/// to be stored inside the `String` itself (15 bytes of UTF-8) take no copy and are not kept.
/// Texts are the same when their bytes are: `==` on String would hand a finding a canonically
/// equivalent text of another (`café` written two ways), not its own.
struct MessageTable {
    static let limit = 4_096
    private var texts = Set<Text>()

    private struct Text: Hashable {
        let string: String
        static func == (a: Text, b: Text) -> Bool { a.string.hasSameBytes(as: b.string) }
        // Byte-equal texts are canonically equal, so String's hash agrees with `==` above.
        func hash(into hasher: inout Hasher) { hasher.combine(string) }
    }

    /// The text last given: findings in a row with one message (which ``Runner`` then hands over
    /// as the same string) are answered without hashing it.
    private var last = ""

    mutating func shared(_ message: String) -> String {
        guard message.utf8.count > 15 else { return message }
        if last.hasSameBytes(as: message) { return last }
        let text = Text(string: message)
        if let known = texts.firstIndex(of: text) {
            last = texts[known].string
            return last
        }
        if texts.count < Self.limit { texts.insert(text) }
        last = message
        return message
    }
}
