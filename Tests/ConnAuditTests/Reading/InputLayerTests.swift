import Foundation
import Glibc
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

// MARK: - Helpers

/// Writes `contents` to `path`, creating the folders above it.
private func write(_ path: String, _ contents: [UInt8] = Array("{\"t\":0,\"ev\":\"x.y\"}\n".utf8))
    throws
{
    let url = URL(fileURLWithPath: path)
    try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(contents).write(to: url)
}

private func link(_ path: String, to destination: String) throws {
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: destination)
}

/// Reads a source to its end or its first error, `chunk` bytes at a time.
private func drain(_ source: any ByteSource, chunk: Int = 64 * 1024) -> (
    bytes: [UInt8], error: InputError?
) {
    var bytes: [UInt8] = []
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 1)
    defer { buffer.deallocate() }
    while true {
        do {
            let count = try source.read(into: buffer)
            if count == 0 { return (bytes, nil) }
            bytes += buffer[..<count]
        } catch {
            return (bytes, error)
        }
    }
}

/// One read of up to `count` bytes.
private func readOnce(_ source: any ByteSource, upTo count: Int) throws(InputError) -> [UInt8] {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
    defer { buffer.deallocate() }
    let read = try source.read(into: buffer)
    return Array(buffer[..<read])
}

/// JSON lines of about `size` bytes, varied enough that compression is not trivial.
private func sampleLines(_ count: Int) -> [UInt8] {
    var text = ""
    for index in 0..<count {
        text +=
            "{\"t\":\(index * 7),\"src\":\"iphone-\(index % 5)\",\"ev\":\"ws.ping\",\"gen\":\(index / 13)}\n"
    }
    return Array(text.utf8)
}

private func paths(_ files: [InputFile]) -> [String] { files.map(\.path) }

// MARK: - Discovery

@Suite("Input discovery")
struct InputDiscoveryTests {
    @Test(
        "a directory is searched recursively, filtered by extension, hidden names skipped, sorted by bytes"
    )
    func recursion() throws {
        try withScratchDirectory("input") { root in
            for name in [
                "b.jsonl", "a.ndjson", "c.log", "d.jsonl.gz", "e.ndjson.gz", "f.log.gz", "B.jsonl",
                "notes.txt", "data.json", "archive.gz", "log", "x.jsonl.bak",
                ".hidden.jsonl", ".git/z.jsonl", "sub/inner.jsonl", "sub/deeper/x.log",
                "sub/.secret/y.log",
                "sub/.y.log", "dir.jsonl/k.log"
            ] {
                try write(root + "/" + name)
            }
            let found = InputDiscovery.discover([root])
            #expect(found.errors.isEmpty)
            let expected = [
                "B.jsonl", "a.ndjson", "b.jsonl", "c.log", "d.jsonl.gz", "dir.jsonl/k.log",
                "e.ndjson.gz",
                "f.log.gz", "sub/deeper/x.log", "sub/inner.jsonl"
            ]
            #expect(paths(found.files) == expected.map { root + "/" + $0 })
            #expect(found.files.allSatisfy { !$0.isStdin })
        }
    }

    @Test("names sort by UTF-8 bytes at each level, directories among files")
    func byteOrder() throws {
        try withScratchDirectory("input") { root in
            for name in ["é.log", "z.log", "a-b.log", "a.log", "a/1.log", "Z/1.log"] {
                try write(root + "/" + name)
            }
            let found = InputDiscovery.discover([root])
            let expected = ["Z/1.log", "a/1.log", "a-b.log", "a.log", "z.log", "é.log"].map {
                root + "/" + $0
            }
            #expect(paths(found.files) == expected)
        }
    }

    @Test(
        "a file named directly is read whatever its extension, even hidden; a hidden PATH directory is searched"
    )
    func namedDirectly() throws {
        try withScratchDirectory("input") { root in
            try write(root + "/notes.txt")
            try write(root + "/.quiet.json")
            try write(root + "/.logs/a.log")
            let found = InputDiscovery.discover([
                root + "/notes.txt", root + "/.quiet.json", root + "/.logs"
            ])
            #expect(found.errors.isEmpty)
            #expect(
                paths(found.files) == [
                    root + "/notes.txt", root + "/.quiet.json", root + "/.logs/a.log"
                ])
        }
    }

    @Test("paths are the PATH joined with the path below it, with or without a trailing slash")
    func joining() throws {
        try withScratchDirectory("input") { root in
            try write(root + "/logs/a/b.jsonl")
            try write(root + "/logs/c.jsonl")
            let plain = InputDiscovery.discover([root + "/logs"])
            #expect(paths(plain.files) == [root + "/logs/a/b.jsonl", root + "/logs/c.jsonl"])
            let slashed = InputDiscovery.discover([root + "/logs/"])
            #expect(paths(slashed.files) == [root + "/logs/a/b.jsonl", root + "/logs/c.jsonl"])

            // Relative PATHs stay relative (built from the working directory, which tests must not
            // change).
            let depth = FileManager.default.currentDirectoryPath.split(separator: "/").count
            let logs = String(repeating: "../", count: depth) + root.dropFirst() + "/logs"
            #expect(
                paths(InputDiscovery.discover([logs]).files) == [
                    logs + "/a/b.jsonl", logs + "/c.jsonl"
                ])
            #expect(
                paths(InputDiscovery.discover([logs + "/"]).files) == [
                    logs + "/a/b.jsonl", logs + "/c.jsonl"
                ])
            #expect(paths(InputDiscovery.discover([logs + "/a/"]).files) == [logs + "/a/b.jsonl"])
        }
    }

    @Test("- is standard input, listed once, in argument order")
    func stdin() throws {
        try withScratchDirectory("input") { root in
            try write(root + "/a.jsonl")
            let found = InputDiscovery.discover([root + "/a.jsonl", "-", "-"])
            #expect(found.errors.isEmpty)
            #expect(found.files == [InputFile(path: root + "/a.jsonl"), .stdin])
            #expect(InputFile.stdin.isStdin && InputFile.stdin.path == "-")
        }
    }

    @Test("a symlink loop terminates and each file is listed once, at its first occurrence")
    func symlinkLoop() throws {
        try withScratchDirectory("input") { root in
            try write(root + "/dir/a.jsonl")
            try write(root + "/dir/sub/b.jsonl")
            try link(root + "/dir/loop", to: root + "/dir")  // dir/loop -> dir
            try link(root + "/dir/sub/up", to: "..")  // dir/sub/up -> dir
            try link(root + "/dir/alias", to: "sub")  // another way into sub, sorted first
            try link(root + "/dir/a-link.jsonl", to: "a.jsonl")  // sorts before a.jsonl
            let found = InputDiscovery.discover([
                root + "/dir", root + "/dir/a.jsonl", root + "/dir/sub"
            ])
            #expect(found.errors.isEmpty)
            #expect(paths(found.files) == [root + "/dir/a-link.jsonl", root + "/dir/alias/b.jsonl"])
        }
    }

    @Test("the same file given twice is listed once")
    func givenTwice() throws {
        try withScratchDirectory("input") { root in
            try write(root + "/a.jsonl")
            let found = InputDiscovery.discover([root + "/a.jsonl", root + "/./a.jsonl", root])
            #expect(paths(found.files) == [root + "/a.jsonl"])
        }
    }

    @Test("a missing PATH is an error with its path, and the other paths are still found")
    func missing() throws {
        try withScratchDirectory("input") { root in
            try write(root + "/a.jsonl")
            let found = InputDiscovery.discover([
                root + "/nope", root + "/a.jsonl", root + "/a.jsonl/"
            ])
            #expect(paths(found.files) == [root + "/a.jsonl"])
            #expect(
                found.errors == [
                    InputError(path: root + "/nope", reason: "no such file or directory"),
                    InputError(path: root + "/a.jsonl/", reason: "not a directory")
                ])
            #expect(found.errors.first?.description == root + "/nope: no such file or directory")
        }
    }

    @Test("a dangling link with a log name is an error; one without is ignored")
    func danglingLink() throws {
        try withScratchDirectory("input") { root in
            try write(root + "/a.jsonl")
            try link(root + "/gone.jsonl", to: "missing.jsonl")
            try link(root + "/gone.txt", to: "missing.txt")
            try link(root + "/self.log", to: "self.log")
            let found = InputDiscovery.discover([root])
            #expect(paths(found.files) == [root + "/a.jsonl"])
            #expect(
                found.errors == [
                    InputError(path: root + "/gone.jsonl", reason: "no such file or directory"),
                    InputError(
                        path: root + "/self.log", reason: "too many levels of symbolic links")
                ])
        }
    }

    @Test("a directory that cannot be read is an error with its path; its siblings are still found")
    func permissionDenied() throws {
        try withScratchDirectory("input") { root in
            try write(root + "/a.jsonl")
            try write(root + "/locked/b.jsonl")
            try write(root + "/z.jsonl")
            #expect(chmod(root + "/locked", 0o000) == 0)
            if access(root + "/locked", R_OK) == 0 {
                try Test.cancel("chmod does not deny access here (running as root)")
            }
            let found = InputDiscovery.discover([root])
            #expect(paths(found.files) == [root + "/a.jsonl", root + "/z.jsonl"])
            #expect(
                found.errors == [InputError(path: root + "/locked", reason: "permission denied")])
        }
    }
}

// MARK: - Byte sources

@Suite("Byte sources")
struct ByteSourceTests {
    @Test("a plain file read 7 bytes at a time reproduces its content")
    func plainSmallBuffer() throws {
        try withScratchDirectory("input") { root in
            let content = sampleLines(500)
            try write(root + "/a.jsonl", content)
            let source = try ByteSources.open(InputFile(path: root + "/a.jsonl"))
            let result = drain(source, chunk: 7)
            #expect(result.error == nil)
            #expect(result.bytes == content)
            // The end is sticky.
            #expect(try readOnce(source, upTo: 1).isEmpty)
        }
    }

    @Test(
        "empty and one-byte inputs are plain",
        arguments: [[], [0x1f], [0x1f, 0x8c], [0x0a]] as [[UInt8]])
    func tiny(bytes: [UInt8]) {
        let result = drain(ByteSources.memory(bytes, path: "m"), chunk: 1)
        #expect(result.error == nil)
        #expect(result.bytes == bytes)
    }

    @Test("opening a missing file is an error with its path")
    func openMissing() throws {
        try withScratchDirectory("input") { root in
            #expect(
                throws: InputError(path: root + "/nope.jsonl", reason: "no such file or directory")
            ) {
                _ = try ByteSources.open(InputFile(path: root + "/nope.jsonl"))
            }
        }
    }

    @Test("a read that fails is an error with the path (a directory opened as a file)")
    func readFails() throws {
        try withScratchDirectory("input") { root in
            let source = try ByteSources.open(InputFile(path: root))
            let result = drain(source)
            #expect(result.error == InputError(path: root, reason: "is a directory"))
        }
    }

    @Test("a file that shrinks while being read is an error after the bytes read before")
    func shrinks() throws {
        try withScratchDirectory("input") { root in
            let content = sampleLines(20_000)  // well over one 256 KiB input buffer
            try write(root + "/a.jsonl", content)
            let source = try ByteSources.open(InputFile(path: root + "/a.jsonl"))
            let first = try readOnce(source, upTo: 1000)
            #expect(first.count == 1000)
            #expect(truncate(root + "/a.jsonl", 300_000) == 0)
            let rest = drain(source)
            #expect(
                rest.error
                    == InputError(path: root + "/a.jsonl", reason: "file shrank while being read"))
            #expect(first + rest.bytes == Array(content[..<300_000]))
        }
    }

    @Test(
        "gzip round trip, from memory and from a file, recognised by magic bytes whatever the name")
    func gzipRoundTrip() throws {
        let content = sampleLines(3000)
        let packed = Gzip.compress(content)
        #expect(packed.count < content.count / 3)
        #expect(packed.starts(with: [0x1f, 0x8b]))
        for chunk in [1, 7, 4096, 1 << 20] {
            let result = drain(ByteSources.memory(packed, path: "m.gz"), chunk: chunk)
            #expect(result.error == nil)
            #expect(result.bytes == content)
        }
        try withScratchDirectory("input") { root in
            try write(root + "/a.jsonl.gz", packed)
            try write(root + "/named-plain.jsonl", packed)
            for name in ["a.jsonl.gz", "named-plain.jsonl"] {
                let result = drain(
                    try ByteSources.open(InputFile(path: root + "/" + name)), chunk: 7)
                #expect(result.error == nil)
                #expect(result.bytes == content)
            }
        }
    }

    @Test("an empty gzip member decodes to nothing")
    func emptyMember() {
        let result = drain(ByteSources.memory(Gzip.compress([]), path: "m.gz"))
        #expect(result.error == nil)
        #expect(result.bytes.isEmpty)
    }

    @Test("concatenated gzip members decode as one stream")
    func multiMember() throws {
        let first = sampleLines(100)
        let second = Array("{\"t\":1,\"ev\":\"b.c\"}\n".utf8)
        let third = sampleLines(2000)
        let packed =
            Gzip.compress(first) + Gzip.compress(second) + Gzip.compress([]) + Gzip.compress(third)
        for chunk in [7, 65536] {
            let result = drain(ByteSources.memory(packed, path: "m.gz"), chunk: chunk)
            #expect(result.error == nil)
            #expect(result.bytes == first + second + third)
        }
        try withScratchDirectory("input") { root in
            try write(root + "/cat.log.gz", packed)
            let result = drain(
                try ByteSources.open(InputFile(path: root + "/cat.log.gz")), chunk: 4096)
            #expect(result.error == nil)
            #expect(result.bytes == first + second + third)
        }
    }

    @Test("truncated gzip: the bytes decoded are delivered, then the error")
    func truncated() {
        let content = sampleLines(5000)
        let packed = Gzip.compress(content)
        // Without the 8-byte trailer every byte is decoded, and the end is still an error.
        let noTrailer = drain(ByteSources.memory(Array(packed.dropLast(8)), path: "t.gz"), chunk: 7)
        #expect(noTrailer.bytes == content)
        #expect(noTrailer.error == InputError(path: "t.gz", reason: "truncated gzip data"))
        // Cut in the middle: a prefix arrives first.
        let half = drain(ByteSources.memory(Array(packed.prefix(packed.count / 2)), path: "t.gz"))
        #expect(!half.bytes.isEmpty)
        #expect(content.starts(with: half.bytes))
        #expect(half.error == InputError(path: "t.gz", reason: "truncated gzip data"))
        // Cut inside the next member's header.
        let second = drain(ByteSources.memory(packed + [0x1f, 0x8b, 0x08], path: "t.gz"))
        #expect(second.bytes == content)
        #expect(second.error == InputError(path: "t.gz", reason: "truncated gzip data"))
    }

    @Test("the good bytes come back from one call, the error from the next, and it stays")
    func errorOnFollowingCall() throws {
        let content = sampleLines(50)
        let source = ByteSources.memory(
            Gzip.compress(content) + Array("garbage".utf8), path: "g.gz")
        #expect(try readOnce(source, upTo: 1 << 20) == content)
        let expected = InputError(path: "g.gz", reason: "trailing garbage after gzip data")
        for _ in 0..<2 {
            #expect(throws: expected) { _ = try readOnce(source, upTo: 1 << 20) }
        }
    }

    /// Block-aligned writers pad the last member with zeros; GNU gzip ignores them.
    @Test("zeros after the last member are padding, not garbage", arguments: [1, 4, 700, 100_000])
    func zeroPadding(zeros: Int) {
        let content = sampleLines(10)
        for chunk in [3, 65536] {
            let result = drain(
                ByteSources.memory(
                    Gzip.compress(content) + [UInt8](repeating: 0, count: zeros), path: "g.gz"),
                chunk: chunk)
            #expect(result.bytes == content)
            #expect(result.error == nil)
        }
    }

    @Test(
        "bytes after a member that are not a gzip member are trailing garbage (after zeros too)",
        arguments: [
            [0x1f], Array("{}\n".utf8), [0, 0, 0, 0x41], [0, 0] + Gzip.compress(Array("{}\n".utf8))
        ] as [[UInt8]])
    func trailingGarbage(tail: [UInt8]) {
        let content = sampleLines(10)
        let result = drain(
            ByteSources.memory(Gzip.compress(content) + tail, path: "g.gz"), chunk: 3)
        #expect(result.bytes == content)
        #expect(
            result.error == InputError(path: "g.gz", reason: "trailing garbage after gzip data"))
    }

    @Test("a corrupt member is an error with zlib's reason, after the members before it")
    func corrupt() {
        let content = sampleLines(200)
        // A member whose first deflate block has the reserved type 3.
        let badBlock: [UInt8] = [0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0x03, 0x07, 0, 0, 0, 0]
        let result = drain(
            ByteSources.memory(Gzip.compress(content) + badBlock, path: "c.gz"), chunk: 7)
        #expect(result.bytes == content)
        #expect(
            result.error
                == InputError(path: "c.gz", reason: "corrupt gzip data: invalid block type"))

        // A wrong CRC in the trailer: all the data, then the error.
        var badCRC = Gzip.compress(content)
        badCRC[badCRC.count - 8] ^= 0xff
        let crc = drain(ByteSources.memory(badCRC, path: "c.gz"))
        #expect(crc.bytes == content)
        #expect(
            crc.error == InputError(path: "c.gz", reason: "corrupt gzip data: incorrect data check")
        )

        // A bad compression method in the header: nothing decoded, the error at once.
        let badMethod: [UInt8] = [0x1f, 0x8b, 0x07, 0x00, 0, 0, 0, 0, 0x00, 0x03, 0x03, 0x00]
        let method = drain(ByteSources.memory(badMethod, path: "c.gz"))
        #expect(method.bytes.isEmpty)
        #expect(
            method.error
                == InputError(path: "c.gz", reason: "corrupt gzip data: unknown compression method")
        )
    }

    @Test("a large gzip (50 MiB decoded) streams through a small buffer")
    func large() throws {
        let block = sampleLines(200)  // about 12 KiB, repeated within deflate's window
        let repeats = (50 << 20) / block.count + 1
        let packed = Gzip.compress(block, repeated: repeats)
        #expect(packed.count < 1 << 20)
        try withScratchDirectory("input") { root in
            try write(root + "/bomb.jsonl.gz", packed)
            let source = try ByteSources.open(InputFile(path: root + "/bomb.jsonl.gz"))
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4099, alignment: 1)
            defer { buffer.deallocate() }
            var total = 0
            var matches = true
            while true {
                let count = try source.read(into: buffer)
                if count == 0 { break }
                // Compare with the block at this offset, without keeping the output.
                block.withUnsafeBytes { expected in
                    var done = 0
                    while done < count {
                        let at = (total + done) % block.count
                        let span = min(count - done, block.count - at)
                        if memcmp(buffer.baseAddress! + done, expected.baseAddress! + at, span) != 0
                        {
                            matches = false
                        }
                        done += span
                    }
                }
                total += count
            }
            #expect(matches)
            #expect(total == block.count * repeats)
        }
    }
}
