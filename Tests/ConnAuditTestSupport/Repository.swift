import Foundation

/// Where the repository's own files are, for tests that run on them (samples/, rules/, docs/).
public enum Repository {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardized.path
    public static let samples = root + "/samples"

    public static func path(_ relative: String) -> String { root + "/" + relative }
}

/// A new directory holding `files` (name → text); the caller removes it (`defer {
/// removeTemporaryDirectory(dir) }`).
public func makeTemporaryDirectory(_ files: [String: String] = [:]) throws -> String {
    let dir =
        NSTemporaryDirectory() + "conn-audit-test-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    for (name, text) in files {
        try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
    }
    return dir
}

public func removeTemporaryDirectory(_ dir: String) {
    try? FileManager.default.removeItem(atPath: dir)
}
