/// The manual page, `docs/conn-audit.1`, made from the same text as `--help` (`script/man` writes
/// it; a test checks that the file in the repository is what this makes).
extension Help {
    static var manPage: String {
        var out =
            ".TH CONN-AUDIT 1 \"\" \"conn-audit \(ConnAuditVersion.string)\" \"User Commands\"\n"
        out += ".SH NAME\nconn-audit \\- "
        out += roff(String(intro.drop { $0 != "—" }.dropFirst().drop { $0 == " " })) + "\n"
        out += section("SYNOPSIS", body(usage))
        out +=
            ".SH DESCRIPTION\n" + roff(paths.split(separator: "\n").joined(separator: " ")) + "\n"
        let sections = [
            checkOptions, mergeOptions, timelineOptions, rulesOptions, exitStatus, examples
        ]
        for text in sections {
            let title = String(text.prefix { $0 != "\n" })
            out += section(title, body(text))
        }
        out += ".SH \"SEE ALSO\"\n" + roff(docs) + "\n"
        return out
    }

    /// A section's text without its title line.
    private static func body(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().joined(
            separator: "\n")
    }

    /// A section kept as laid out (`.nf`): the help text is aligned in columns.
    private static func section(_ title: String, _ text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            roff(String($0))
        }
        return ".SH \"\(title)\"\n.nf\n" + lines.joined(separator: "\n") + "\n.fi\n"
    }

    /// Text as roff reads it: backslashes and hyphens escaped, a line never read as a request.
    static func roff(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            default: out.append(c)
            }
        }
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }
}
