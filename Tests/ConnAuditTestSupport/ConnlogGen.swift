import Foundation
import Testing

/// The `connlog-gen` executable built beside the test bundle: writes seeded synthetic corpora.
public enum ConnlogGen {
    /// Runs `connlog-gen` with `arguments` (`--quiet` added) and waits for it; fails the test
    /// when it does not exit 0.
    public static func write(_ arguments: [String]) throws {
        let binary =
            (try Subprocess.binary() as NSString).deletingLastPathComponent + "/connlog-gen"
        try #require(
            FileManager.default.isExecutableFile(atPath: binary),
            "no connlog-gen at \(binary): swift build first")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments + ["--quiet"]
        let pipe = Pipe()
        process.standardError = pipe
        try process.run()
        let err = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(
            process.terminationStatus == 0,
            "connlog-gen \(arguments) failed: \(String(decoding: err, as: UTF8.self))")
    }
}
