import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// The light first read of a big file may run on several threads, a part of the file each
/// (``SplittableSource``, ``SourceEndScan/merge``). Its answer must be the one read of the whole
/// file gives, whatever the parts: the report of a `--jobs 2` run depends on it.
@Suite struct SourceEndsFoundInPartsTests {
    private func wholeEnds(_ bytes: [UInt8]) -> [SourceKey: Int]? {
        SourceEndScan.ends(
            of: LineReader(ByteSources.memory(bytes, path: "log.jsonl"), chunkSize: 64),
            path: "log.jsonl")
    }

    /// The parts of `bytes`, and the merged ends of their scans (nil parts: not split).
    private func endsInParts(_ source: any ByteSource, count: Int, minimumPart: Int)
        -> (parts: Int, ends: [SourceKey: Int]?)?
    {
        guard let split = source as? any SplittableSource,
            let parts = split.parts(count, minimumPart: minimumPart)
        else { return nil }
        let scanned = parts.enumerated().map { i, part in
            SourceEndScan.scan(LineReader(part, chunkSize: 64, midFile: i > 0), path: "log.jsonl")
        }
        return (parts.count, SourceEndScan.merge(scanned))
    }

    private static func drawLog(_ rng: inout SplitMix64) -> [UInt8] {
        let pieces = SourceEndScanTests.pieces, rare = SourceEndScanTests.rarePieces
        var lines: [[UInt8]] = (0..<(1 + rng.below(60))).map { _ in
            if rng.chance(2) { return Array(rare[rng.below(rare.count)].utf8) }
            if rng.chance(40) {
                // Sources that come back after other sources' lines.
                let src = ["a", "b", "c", "ipad-ü"][rng.below(4)]
                return Array(#"{"t":\#(rng.below(99)),"src":"\#(src)","ev":"ws.ping"}"#.utf8)
            }
            return Array(pieces[rng.below(pieces.count)].utf8)
        }
        for k in lines.indices where rng.chance(5) && !lines[k].isEmpty {
            lines[k].insert([0xFF, 0x00, 0x0D, 0xC3][rng.below(4)], at: rng.below(lines[k].count))
        }
        var bytes = lines.joined(separator: Array((rng.chance(20) ? "\r\n" : "\n").utf8)).map {
            $0
        }
        if rng.chance(50) { bytes += [0x0A] }
        // A BOM opens the file; one at the start of a later line is that line's bytes.
        if rng.chance(10) { bytes = [0xEF, 0xBB, 0xBF] + bytes }
        if rng.chance(10) {
            bytes += [0xEF, 0xBB, 0xBF] + Array(#"{"t":1,"src":"z","ev":"a.b"}"#.utf8)
        }
        return bytes
    }

    @Test func partsGiveTheWholeReadsEnds() {
        var rng = SplitMix64(seed: 48)
        var split = 0, compared = 0
        for round in 0..<1_500 {
            let bytes = Self.drawLog(&rng)
            let count = 2 + rng.below(5)
            let minimumPart = 1 + rng.below(max(1, bytes.count / count))
            let source = ByteSources.memory(bytes, path: "log.jsonl")
            guard let (parts, ends) = endsInParts(source, count: count, minimumPart: minimumPart)
            else { continue }
            split += 1
            #expect(parts >= 2 && parts <= count)
            let whole = wholeEnds(bytes)
            if whole != nil { compared += 1 }
            #expect(ends == whole, "round \(round): \(parts) parts")
        }
        #expect(split > 1_000 && compared > 500, "\(split) split, \(compared) read lightly")
    }

    @Test func partsHoldTheBytesInOrderAndStartAfterANewline() throws {
        var rng = SplitMix64(seed: 5)
        for _ in 0..<300 {
            let bytes = Self.drawLog(&rng)
            let count = 2 + rng.below(5)
            let source = ByteSources.memory(bytes, path: "log.jsonl")
            let minimumPart = 1 + rng.below(max(1, bytes.count / count))
            guard
                let parts = (source as? any SplittableSource)?.parts(
                    count, minimumPart: minimumPart)
            else { continue }
            var joined: [UInt8] = []
            for (i, part) in parts.enumerated() {
                let read = try Self.readAll(part)
                if i > 0 { #expect(joined.last == 0x0A) }
                if i < parts.count - 1 { #expect(read.count >= minimumPart) }
                joined += read
            }
            #expect(joined == bytes)
        }
    }

    @Test func aFileOnDiskIsReadInPartsAlike() throws {
        var rng = SplitMix64(seed: 9)
        var log: [UInt8] = []
        while log.count < 200_000 { log += Self.drawLog(&rng) + [0x0A] }
        try withScratchDirectory("ends-in-parts") { dir in
            let path = dir + "/big.jsonl"
            try Data(log).write(to: URL(fileURLWithPath: path))
            let file = InputFile(path: path)
            for count in [2, 3, 8] {
                let source = try ByteSources.open(file)
                let found = try #require(
                    endsInParts(source, count: count, minimumPart: 10_000), "not split")
                #expect(found.parts == count)
                let whole = SourceEndScan.ends(
                    of: LineReader(try ByteSources.open(file)), path: "log.jsonl")
                #expect(found.ends == whole)
            }
        }
    }

    @Test func gzipPipesAndSmallOrStartedInputsAreNotSplit() throws {
        let line = Array(#"{"t":1,"src":"a","ev":"ws.ping"}"#.utf8) + [0x0A]
        let plain = Array(repeating: line, count: 100).joined().map { $0 }
        let gzip: [UInt8] = [0x1f, 0x8b] + plain
        let memory = { (bytes: [UInt8], path: String) in
            ByteSources.memory(bytes, path: path) as? any SplittableSource
        }
        #expect(memory(plain, "log.jsonl")?.parts(2, minimumPart: 100) != nil)
        #expect(memory(gzip, "log.jsonl")?.parts(2, minimumPart: 100) == nil)
        #expect(memory(plain, "log.jsonl.gz")?.parts(2, minimumPart: 100) == nil)
        #expect(memory(plain, "log.jsonl")?.parts(2, minimumPart: plain.count) == nil)
        #expect(memory(plain, "log.jsonl")?.parts(1, minimumPart: 100) == nil)
        // A source read from already gives its bytes from where it stands, in order only.
        let started = try #require(memory(plain, "log.jsonl"))
        var one: UInt8 = 0
        _ = try withUnsafeMutableBytes(of: &one) { try started.read(into: $0) }
        #expect(started.parts(2, minimumPart: 100) == nil)
    }

    @Test func aBoundaryFallsAfterALineTooLongForConnlog() throws {
        let line = Array(#"{"t":1,"src":"a","ev":"ws.ping"}"#.utf8) + [0x0A]
        let long = [UInt8](repeating: 0x61, count: LineReader.maxLineBytes + 10) + [0x0A]
        let bytes = line + long + Array(#"{"t":2,"src":"b","ev":"ws.ping"}"#.utf8) + [0x0A]
        let source = ByteSources.memory(bytes, path: "log.jsonl")
        let found = try #require(endsInParts(source, count: 2, minimumPart: 1_000))
        #expect(found.parts == 2)
        #expect(found.ends == wholeEnds(bytes))
        #expect(found.ends?[SourceKey(src: "b")] == 3)
        // A longer line across the middle leaves no boundary near it: one part fewer.
        let longer = [UInt8](repeating: 0x61, count: 3 * LineReader.maxLineBytes) + [0x0A]
        let across = line + longer + line
        let source2 = ByteSources.memory(across, path: "log.jsonl")
        #expect(endsInParts(source2, count: 2, minimumPart: 1_000) == nil)
    }

    /// Bytes whose reading fails at `failAt` (a bad block): what comes before it is read, and
    /// what comes after it by a reader that starts there.
    private final class FailingBytes: RandomAccessBytes {
        let bytes: [UInt8]
        let failAt: Int
        init(_ bytes: [UInt8], failAt: Int) {
            self.bytes = bytes
            self.failAt = failAt
        }
        var knownSize: Int? { bytes.count }
        func read(at position: Int, into buffer: UnsafeMutableRawBufferPointer)
            throws(InputError) -> Int
        {
            if position == failAt { throw InputError(path: "log.jsonl", reason: "I/O error") }
            var n = min(buffer.count, bytes.count - position)
            if position < failAt { n = min(n, failAt - position) }
            for i in 0..<n { buffer[i] = bytes[position + i] }
            return max(0, n)
        }
    }

    @Test func aReadErrorEndsTheFileWhereverItFalls() {
        let lines = (0..<40).map { i in
            i == 30
                ? #"{"t":1,"src":"a","src":"b","ev":"ws.ping"}"#
                : #"{"t":\#(i),"src":"s\#(i % 4)","ev":"ws.ping"}"#
        }
        let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        let boundary = Array(lines[0..<20].joined(separator: "\n").utf8).count + 1
        var failedBeforeTheUnusualLine = 0
        for failAt in stride(from: 1, to: bytes.count, by: 7) {
            let failing = FailingBytes(bytes, failAt: failAt)
            let whole = SourceEndScan.ends(
                of: LineReader(
                    BytePart(failing, path: "log.jsonl", from: 0, to: nil), chunkSize: 64),
                path: "log.jsonl")
            let parts = [
                BytePart(failing, path: "log.jsonl", from: 0, to: boundary),
                BytePart(failing, path: "log.jsonl", from: boundary, to: nil)
            ]
            let merged = SourceEndScan.merge(
                parts.enumerated().map { i, part in
                    SourceEndScan.scan(
                        LineReader(part, chunkSize: 64, midFile: i > 0), path: "log.jsonl")
                })
            #expect(merged == whole, "failing at byte \(failAt)")
            if whole != nil { failedBeforeTheUnusualLine += 1 }
        }
        #expect(failedBeforeTheUnusualLine > 50)
    }

    private static func readAll(_ source: any ByteSource) throws -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 37)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { return out }
            out += buffer[0..<n]
        }
    }
}
