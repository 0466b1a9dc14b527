import ConnPeer
import Testing

/// Messages cut into a first frame and continuations are put back together, with control frames
/// allowed between the fragments (RFC 6455 section 5.4).
@Suite("Fragmented WebSocket messages")
struct FragmentedMessageTests {
    static func incoming(_ frames: [Frame]) throws -> [Incoming] {
        var assembler = MessageAssembler()
        return try frames.compactMap { try assembler.accept($0) }
    }

    @Test func fragmentsMakeOneMessage() throws {
        let frames = [
            Frame(fin: false, opcode: .text, payload: Array("Hel".utf8)),
            Frame(fin: false, opcode: .continuation, payload: Array("l".utf8)),
            Frame(opcode: .continuation, payload: Array("o".utf8))
        ]
        #expect(try Self.incoming(frames) == [.text("Hello")])
    }

    @Test func aPingBetweenFragmentsComesFirst() throws {
        let frames = [
            Frame(fin: false, opcode: .binary, payload: [1, 2]),
            Frame(opcode: .ping, payload: [9]),
            Frame(opcode: .continuation, payload: [3])
        ]
        #expect(try Self.incoming(frames) == [.ping([9]), .binary([1, 2, 3])])
    }

    /// A UTF-8 sequence may be split between fragments: only the whole message must be valid.
    @Test func aCharacterSplitBetweenFragmentsIsValid() throws {
        let bytes = Array("é".utf8)
        let frames = [
            Frame(fin: false, opcode: .text, payload: [bytes[0]]),
            Frame(opcode: .continuation, payload: [bytes[1]])
        ]
        #expect(try Self.incoming(frames) == [.text("é")])
    }

    @Test func closeFramesCarryCodeAndReason() throws {
        #expect(
            try Self.incoming([Frame.close(code: 4001, reason: "bye")]) == [
                .close(code: 4001, reason: "bye")
            ])
        #expect(try Self.incoming([Frame(opcode: .close)]) == [.close(code: nil, reason: "")])
    }

    @Test(arguments: [(1, 1), (3, 3), (5, 5), (64, 13)])
    func scheduledMessagesAreCutIntoTheirFragments(fragments: Int, frames: Int) throws {
        let text = "hello, client"
        let cut = ScheduledMessage(afterMs: 0, text: text, fragments: fragments).frames
        #expect(cut.count == frames)
        #expect(
            cut.first?.opcode == .text && cut.dropFirst().allSatisfy { $0.opcode == .continuation })
        #expect(cut.dropLast().allSatisfy { !$0.fin } && cut.last?.fin == true)
        #expect(try Self.incoming(cut) == [.text(text)])
    }
}
