import Foundation

/// Where the repository's own files are, for tests that run on them (samples/, rules/, docs/).
enum Repository {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardized.path
    static let samples = root + "/samples"

    static func path(_ relative: String) -> String { root + "/" + relative }
}

/// A new directory holding `files` (name → text); the caller removes it (`defer { removeTemporaryDirectory(dir) }`).
func makeTemporaryDirectory(_ files: [String: String] = [:]) throws -> String {
    let dir = NSTemporaryDirectory() + "conn-audit-test-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    for (name, text) in files { try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8) }
    return dir
}

func removeTemporaryDirectory(_ dir: String) { try? FileManager.default.removeItem(atPath: dir) }
