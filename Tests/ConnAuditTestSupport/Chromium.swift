import Foundation
import Testing

/// Debian's headless Chromium, which script/test installs.
public enum Chromium {
    /// Runs headless Chromium on the file `page` with `arguments`, at most `timeout` seconds;
    /// its standard output. Its profile goes in a directory beside the page.
    public static func run(_ arguments: [String], page: String, timeout: Int = 120) throws
        -> String
    {
        let path = ["/usr/bin/chromium", "/usr/local/bin/chromium"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        let binary = try #require(path, "no chromium (script/test installs Debian's)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments =
            [
                String(timeout), binary, "--headless", "--no-sandbox", "--disable-gpu",
                "--hide-scrollbars",
                "--user-data-dir=" + (page as NSString).deletingLastPathComponent
                    + "/chromium-profile"
            ]
            + arguments + ["file://" + page]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(
            process.terminationStatus == 0, "chromium exited with \(process.terminationStatus)")
        return String(decoding: data, as: UTF8.self)
    }
}
