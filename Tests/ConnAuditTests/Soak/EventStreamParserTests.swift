@testable import ConnSoak
import Testing

/// The SSE client's parser: an event counts only once its blank line came, however the bytes
/// are cut; comments and unknown fields are skipped.
@Suite("conn-soak's event-stream parser")
struct EventStreamParserTests {
    static let stream =
        "retry: 250\n\n: a comment\nid: 1\ndata: event 1\n\nid: 2\r\ndata:a\r\ndata: b\r\nx: y\r\n\r\nid: 3\ndata: cut"

    @Test(arguments: [1, 2, 3, 7, 1000])
    func eventsCompleteAtTheirBlankLine(chunk: Int) {
        var parser = EventStreamParser()
        let bytes = Array(Self.stream.utf8)
        var events: [EventStreamParser.Event] = []
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            events += parser.feed(Array(bytes[start..<min(start + chunk, bytes.count)]))
        }
        #expect(
            events == [
                EventStreamParser.Event(retryMs: 250),
                EventStreamParser.Event(id: "1", data: ["event 1"]),
                EventStreamParser.Event(id: "2", data: ["a", "b"])
            ])
    }

    /// A lone CR ends a line too, so an id cannot carry a line break into the
    /// `Last-Event-ID` header; an id with a NUL is ignored.
    @Test(arguments: [1, 2, 1000])
    func loneCRsEndLinesAndNULIdsAreIgnored(chunk: Int) {
        let stream = "id: 4\rdata: x\r\rid: 5\rX-Injected: 1\rdata: y\r\n\rid: 6\0z\ndata: w\n\n"
        var parser = EventStreamParser()
        let bytes = Array(stream.utf8)
        var events: [EventStreamParser.Event] = []
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            events += parser.feed(Array(bytes[start..<min(start + chunk, bytes.count)]))
        }
        #expect(
            events == [
                EventStreamParser.Event(id: "4", data: ["x"]),
                EventStreamParser.Event(id: "5", data: ["y"]),
                EventStreamParser.Event(id: nil, data: ["w"])
            ])
    }

    @Test func aLineWithoutEndBreaksTheStream() {
        var parser = EventStreamParser()
        _ = parser.feed(Array(repeating: UInt8(ascii: "x"), count: EventStreamParser.maxLine + 1))
        #expect(parser.overflowed)
    }
}
