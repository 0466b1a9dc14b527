import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// The JUnit report (`--format junit`), and the control characters in file names every CI
/// format keeps or shows.
extension CIReportTests {
    @Test func junitIsWellFormedWithOneTestcasePerRule() throws {
        let report = Self.audit()
        let xml = try XMLTree.parse(JUnitReport.render(report))
        #expect(
            JUnitReport.render(report).hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"))
        #expect(xml.name == "testsuites")
        let cases = xml.all("testcase")
        #expect(cases.count == report.results.count)
        for (c, r) in zip(cases, report.results) {
            #expect(c.attributes["classname"] == r.rule.family)
            #expect(c.attributes["name"] == r.rule.id)
        }
        #expect(xml.attributes["tests"] == String(report.results.count))
        #expect(xml.attributes["failures"] == String(report.count(.fail)))
        #expect(xml.attributes["errors"] == "0")
        #expect(
            xml.attributes["skipped"]
                == String(report.count(.inconclusive) + report.count(.notApplicable)))
        #expect(xml.attributes["time"] == "0")
        #expect(xml.all("testsuite").count == 1)
    }

    @Test func junitFailuresListViolationsWithFileAndLine() throws {
        let xml = try XMLTree.parse(JUnitReport.render(Self.audit()))
        let malformed = try #require(xml.testcase("log.malformed")?.child("failure"))
        #expect(malformed.attributes["message"] == "1 violation (error)")
        #expect(malformed.attributes["type"] == "error")
        #expect(malformed.text.hasPrefix("logs/app.jsonl:4 "))
        let close = try #require(xml.testcase("ws.close-has-reason")?.child("failure"))
        #expect(close.text.hasPrefix("logs/app.jsonl:6 t=500 src=app gen=2 "))
        let coverage = try #require(xml.testcase("ws.required-outcomes")?.child("failure"))
        #expect(coverage.attributes["message"] == "4 violations (error)")
        #expect(coverage.text.split(separator: "\n").count == 4)
        #expect(coverage.text.contains("no 'delayed' outcome"))
        #expect(xml.testcase("ws.single-close")?.children.isEmpty == true)
    }

    @Test func junitInconclusiveIsSkippedWithTheReason() throws {
        let xml = try XMLTree.parse(JUnitReport.render(Self.audit()))
        let testcase = try #require(xml.testcase("ws.timeout-closes"))
        #expect(testcase.child("failure") == nil)
        let skipped = try #require(testcase.child("skipped"))
        let message = try #require(skipped.attributes["message"])
        #expect(message.hasPrefix("inconclusive: 1 case could not be decided: the ping at t=110"))
        #expect(skipped.text.hasPrefix("logs/app.jsonl:5 "))
        #expect(skipped.text.contains("the log ends before"))
    }

    @Test func junitNotApplicableIsSkipped() throws {
        let report = Self.audit("{\"t\":0,\"ev\":\"sse.connect\"}\n")
        let xml = try XMLTree.parse(JUnitReport.render(report))
        let skipped = try #require(xml.testcase("ws.required-outcomes")?.child("skipped"))
        #expect(skipped.attributes["message"]?.hasPrefix("not applicable") == true)
    }

    @Test func junitUnreadableInputsAreAnErrorTestcase() throws {
        let report = Self.audit(unreadable: true)
        let xml = try XMLTree.parse(JUnitReport.render(report))
        #expect(xml.all("testcase").count == report.results.count + 1)
        #expect(xml.attributes["errors"] == "1")
        let inputs = try #require(xml.all("testcase").first { $0.attributes["name"] == "inputs" })
        #expect(inputs.attributes["classname"] == "conn-audit")
        let error = try #require(inputs.child("error"))
        #expect(error.text == "could not read logs/locked.jsonl: permission denied")
    }

    @Test func junitEscapesMarkupInMessagesAndTitles() throws {
        let text = JUnitReport.render(Self.audit(custom: true, failOn: .warning))
        #expect(text.contains("bad &lt;close&gt; &amp; &quot;quoted&quot; &apos;single&apos;"))
        let xml = try XMLTree.parse(text)
        let failure = try #require(xml.testcase("test.escaping")?.child("failure"))
        #expect(
            failure.text.contains("bad <close> & \"quoted\" 'single' 100% done, a:b\nsecond line"))
    }

    /// JUnit counts as failures only what fails the gate: a rule below `--fail-on` passes, its
    /// violations listed in `<system-out>` (so `--fail-on never` writes `failures="0"`).
    @Test func junitCountsAsFailuresOnlyWhatFailsTheGate() throws {
        let xml = try XMLTree.parse(JUnitReport.render(Self.audit(custom: true, failOn: .error)))
        let below = try #require(xml.testcase("test.escaping"))
        #expect(below.child("failure") == nil)
        let out = try #require(below.child("system-out"))
        #expect(
            out.text.hasPrefix(
                "1 violation (warning, below --fail-on error: does not fail the run):\n"))
        #expect(out.text.contains("bad <close>"))
        let gating = try XMLTree.parse(
            JUnitReport.render(Self.audit(custom: true, failOn: .warning)))
        #expect(
            gating.testcase("test.escaping")?.child("failure")?.attributes["message"]
                == "1 violation (warning)")
        #expect(
            Int(gating.attributes["failures"] ?? "") == Int(xml.attributes["failures"] ?? "")! + 1)
        let never = try XMLTree.parse(JUnitReport.render(Self.audit(custom: true, failOn: .never)))
        #expect(never.attributes["failures"] == "0")
        #expect(never.all("failure").isEmpty)
    }

    @Test func junitEscapingShowsWhatXMLCannotHold() throws {
        #expect(
            JUnitReport.text("a\u{0}b\u{1}c\u{1B}d\re\u{FFFF}f\tg\nh")
                == #"a\u{0}b\u{1}c\u{1B}d\re\u{FFFF}f"# + "\tg\nh")
        #expect(JUnitReport.attr("x\ny\tz\"'<>&") == "x&#10;y&#9;z&quot;&apos;&lt;&gt;&amp;")
        // A whole document with control characters in a message still parses, and shows them.
        let xml = "<a m=\"\(JUnitReport.attr("1\u{2}\n2"))\">\(JUnitReport.text("<\u{7}>"))</a>"
        let tree = try XMLTree.parse(xml)
        #expect(tree.attributes["m"] == #"1\u{2}"# + "\n2")
        #expect(tree.text == #"<\u{7}>"#)
    }

    /// XML 1.0 cannot hold a control character, even as `&#1;`: dropped, `a\u{1}.jsonl` read as
    /// `a.jsonl`, another file's name, and a newline in a name started a row of its own.
    @Test func junitShowsControlCharactersInFileNames() throws {
        let report = Self.audit(
            path: "logs/a\u{1}b\nc.jsonl", unreadable: true,
            unreadablePath: "logs/x\u{7}\u{1B}y.jsonl")
        let xml = try XMLTree.parse(JUnitReport.render(report))
        let malformed = try #require(xml.testcase("log.malformed")?.child("failure"))
        #expect(malformed.text.hasPrefix(#"logs/a\u{1}b\nc.jsonl:4 "#), "\(malformed.text)")
        #expect(!malformed.text.contains("\n"), "a file name started a row: \(malformed.text)")
        let close = try #require(xml.testcase("ws.close-has-reason")?.child("failure"))
        #expect(
            close.text.hasPrefix(#"logs/a\u{1}b\nc.jsonl:6 t=500 src=app gen=2 "#), "\(close.text)")
        let inputs = try #require(xml.testcase("inputs")?.child("error"))
        #expect(inputs.text == #"could not read logs/x\u{7}\u{1B}y.jsonl: permission denied"#)
    }

    /// The other CI formats keep the names apart too: SARIF percent-encodes its URIs and writes its
    /// texts as JSON; workflow commands percent-encode control characters.
    @Test func sarifAndGitHubKeepControlCharactersInFileNames() throws {
        let report = Self.audit(
            path: "logs/a\u{1}.jsonl", unreadable: true, unreadablePath: "logs/x\u{7}.jsonl")
        let run = try JSONTree(SARIFReport.render(report))["runs"][0]
        let uris = Set(
            run["results"].array.map {
                $0["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].string
            })
        #expect(uris == ["logs/a%01.jsonl"])
        #expect(
            run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"].string
                == "could not read logs/x\u{7}.jsonl: permission denied")
        let commands = Self.commands(GitHubReport.render(report))
        #expect(commands.first?.data == "could not read logs/x%07.jsonl: permission denied")
        let malformed = try #require(commands.first { $0.properties["title"] == "log.malformed" })
        #expect(malformed.properties["file"] == "logs/a%01.jsonl")
    }
}
