import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// Runs of the library in one process (as the tests run it, several at once) write their reports
/// at the same time: each write keeps its own temporary file, and none frees or removes
/// another's.
@Suite struct ConcurrentReportWritesTests {
    /// Many threads each put many files in place at once. A shared record of the temporary file
    /// under way, written without a lock, let two writes free the same copy of its name (the heap
    /// corruption `malloc_consolidate(): unaligned fastbin chunk detected`, or a double free under
    /// AddressSanitizer).
    @Test func writesFromManyThreadsAtOnceAreEachWhole() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let threads = 8
        let writes = 150
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for n in 0..<writes {
                do {
                    try CommandLineTool.writeFile(
                        "\(dir)/\(thread)-\(n % 5).txt", "thread \(thread) write \(n)\n")
                } catch {
                    failures.add("\(thread)-\(n): \(error)")
                }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(names.filter { $0.hasPrefix(".conn-audit") }.isEmpty, "\(names)")
        #expect(names.count == threads * 5, "\(names.sorted())")
        for thread in 0..<threads {
            for k in 0..<5 {
                let last = writes - 5 + k
                let text = try String(contentsOfFile: "\(dir)/\(thread)-\(k).txt", encoding: .utf8)
                #expect(text == "thread \(thread) write \(last)\n")
            }
        }
    }

    /// The errors the threads met, gathered under a lock.
    private final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []

        func add(_ failure: String) {
            lock.lock()
            defer { lock.unlock() }
            list.append(failure)
        }

        var all: [String] {
            lock.lock()
            defer { lock.unlock() }
            return list
        }
    }
}
