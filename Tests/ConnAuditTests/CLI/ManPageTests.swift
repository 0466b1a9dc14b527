import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// docs/conn-audit.1 is made from the help text (script/man): it must be what the code makes now.
@Suite("Manual page")
struct ManPageTests {
    @Test func theManualPageInTheRepositoryIsCurrent() throws {
        let file = try String(contentsOfFile: Repository.path("docs/conn-audit.1"), encoding: .utf8)
        #expect(file == Help.manPage, "docs/conn-audit.1 is out of date: run script/man")
    }

    @Test func itHoldsEveryOptionOfEveryCommand() {
        let page = Help.manPage
        for option in CommandLineTool.checkOptions + CommandLineTool.timelineOptions
            + CommandLineTool.rulesOptions
        where option.name != "--help" {
            #expect(page.contains(Help.roff(option.name)), "\(option.name)")
        }
        #expect(page.hasPrefix(".TH CONN-AUDIT 1 "))
    }

    @Test func roffEscapesWhatItWouldRead() {
        #expect(Help.roff(#"a\b --x"#) == #"a\eb \-\-x"#)
        #expect(Help.roff(".start") == #"\&.start"#)
        #expect(Help.roff("'quote") == #"\&'quote"#)
    }
}
