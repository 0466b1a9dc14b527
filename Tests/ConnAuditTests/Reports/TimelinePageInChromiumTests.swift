import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// The HTML timeline as a browser reads it: Debian's headless Chromium (which script/test
/// installs) parses the page into the structure it was written as — every timeline a part that
/// opens and closes, its lane an SVG, its rows inside its table — and draws it.
@Suite("Timeline page in Chromium")
struct TimelinePageInChromiumTests {
    static func count(_ needle: String, in s: String) -> Int {
        s.components(separatedBy: needle).count - 1
    }

    @Test func theSamplesPageParsesAsWrittenAndDraws() throws {
        let dir = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let page = dir + "/samples.html"
        let run = CommandLineRun([
            "timeline", Repository.samples, "--no-config", "-f", "html", "-o", page
        ])
        try #require(run.code == 0, "\(run.err)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let dom = try Chromium.run(["--dump-dom"], page: page)
        // The browser's DOM holds what the page wrote, nothing moved out of place.
        for needle in [
            "<details class=\"timeline\"", "<summary>", "<svg class=\"lane\"", "<table>", "<tr",
            "<td class=\"loc\">",
            "<path", "<tr class=\"finding"
        ] {
            let written = Self.count(needle, in: html)
            #expect(written > 0, "\(needle)")
            #expect(Self.count(needle, in: dom) == written, "\(needle)")
        }
        // Opened as written: the parts with a violation.
        #expect(
            Self.count("<details class=\"timeline\" id=", in: dom)
                == Self.count("<details", in: html))
        #expect(Self.count(" open=\"\"", in: dom) == Self.count(" open>", in: html))
        #expect(!dom.contains("<script"))
        let shot = dir + "/page.png"
        _ = try Chromium.run(["--screenshot=" + shot, "--window-size=1200,900"], page: page)
        let png = try Data(contentsOf: URL(fileURLWithPath: shot))
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(png.count > 10_000)
    }
}
