import Foundation
import Testing

@testable import ConnAudit

/// `conn-audit timeline --format html`: the page built from in-memory logs with the default pack.
@Suite("TimelineHTML")
struct TimelineHTMLTests {
    // MARK: - Helpers

    typealias LogFile = TimelineViewTests.LogFile

    /// Builds the view of `files` (in this argument order) served from memory, as the view's tests
    /// do.
    static func build(_ files: [LogFile], _ query: TimelineQuery = TimelineQuery()) throws
        -> TimelineDocument
    {
        try TimelineViewTests.build(files, query)
    }

    static func lines(_ html: String) -> [String] {
        html.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The index of the table row of `file:line`.
    static func row(_ lines: [String], _ place: String) -> Int? {
        lines.firstIndex { $0.contains("<td class=\"loc\">\(place)</td>") }
    }

    static func count(_ needle: String, in s: String) -> Int {
        s.components(separatedBy: needle).count - 1
    }

    /// Every tag name the page opens or closes (`<!DOCTYPE`, `<td`, `</td`, …).
    static func tags(_ html: String) -> Set<String> {
        var out = Set<String>()
        let scalars = Array(html.unicodeScalars)
        var i = 0
        while i < scalars.count {
            if scalars[i] == "<" {
                var name = ""
                var j = i + 1
                while j < scalars.count,
                    scalars[j] == "/" || scalars[j] == "!" || scalars[j].properties.isAlphabetic
                        || ("0"..."9").contains(scalars[j])
                {
                    name.unicodeScalars.append(scalars[j])
                    j += 1
                }
                out.insert(name)
                i = j
            } else {
                i += 1
            }
        }
        return out
    }

    static let violations = TimelineViewTests.violations

    static let hostile: LogFile = (
        "logs/<evil>&'.jsonl",
        #"""
        {"t":0,"src":"x\"'&<i>","ev":"<script>alert(1)</script>","gen":1,"note":"</td></tr><script>x</script>"}
        {"t":1,"src":"x\"'&<i>","ev":"ws.close","gen":1,"reason":"\u001b[31m<b>bold</b>","k'\"":"a&amp;b"}

        """#
    )

    // MARK: - Violations

    @Test(
        "a violation's row is marked and highlighted, followed by its rule id, severity and message"
    )
    func violationRow() throws {
        let doc = try Self.build([Self.violations], TimelineQuery(src: "v"))
        let html = TimelineReport.html(doc)
        let lines = Self.lines(html)

        let at = try #require(Self.row(lines, "v.jsonl:5"))
        #expect(
            lines[at].hasPrefix("<tr id=\"t1-e5\" class=\"fail\"><td class=\"mark\">!!</td>"),
            "\(lines[at])")
        #expect(lines[at].contains("<td class=\"ev\">ws.close</td>"))
        #expect(lines[at].contains("<td class=\"fields\">reason=&quot;user&quot;</td>"))
        #expect(lines[at].contains("<td class=\"num\">510</td>"))
        let finding = lines[at + 1]
        #expect(finding.hasPrefix("<tr class=\"finding fail\">"), "\(finding)")
        #expect(finding.contains("<code class=\"rule\">ws.single-close</code>"), "\(finding)")
        #expect(finding.contains("<span class=\"severity sev-error\">error</span>"), "\(finding)")
        #expect(
            finding.contains("second ws.close in generation 1 (the first was at v.jsonl:4)"),
            "\(finding)")

        // The first close carries nothing: no highlight, no finding row after it.
        let first = try #require(Self.row(lines, "v.jsonl:4"))
        #expect(!lines[first].contains("class=\"fail\"") && !lines[first].contains("!!"))
        #expect(!lines[first + 1].contains("finding"))

        // The other violation, and the summary's links to both rows.
        let ping = try #require(Self.row(lines, "v.jsonl:8"))
        #expect(lines[ping].contains("class=\"fail\""))
        #expect(lines[ping + 1].contains("ws.timeout-closes"))
        #expect(
            html.contains(
                "<a href=\"#t1-e5\"><code>v.jsonl:5</code></a> <code class=\"rule\">ws.single-close"
            ))
        #expect(
            html.contains(
                "ws gen 1</a> · 5 events · <span class=\"count-fail\">1 violation</span>"),
            "\(html)")
        // Rows with findings are exactly those the document marks.
        let marked = doc.sections.flatMap(\.entries).filter {
            $0.findings.contains { $0.status == .fail }
        }.count
        #expect(
            Self.count("<tr class=\"finding ", in: html)
                == doc.sections.flatMap(\.entries).reduce(0) {
                    $0 + $1.findings.count
                })
        #expect(Self.count(" class=\"fail\"><td class=\"mark\">!!</td>", in: html) == marked)
    }

    @Test("an inconclusive finding is marked ?? and findings outside the view are mentioned")
    func inconclusiveRow() throws {
        let html = TimelineReport.html(
            try Self.build([TimelineViewTests.inconclusive], TimelineQuery(src: "i", gen: 2)))
        let lines = Self.lines(html)
        let at = try #require(Self.row(lines, "i.jsonl:6"))
        #expect(
            lines[at].contains(" class=\"inconclusive\"><td class=\"mark\">??</td>"), "\(lines[at])"
        )
        #expect(lines[at + 1].hasPrefix("<tr class=\"finding inconclusive\">"))
        #expect(lines[at + 1].contains("ws.timeout-closes</code>"))
        #expect(lines[at + 1].contains("<span class=\"status\">inconclusive</span>"))
        #expect(html.contains("1 more finding of this source outside this view"), "\(html)")
        #expect(!html.contains("class=\"fail\""))
    }

    // MARK: - Escaping

    @Test(
        "the escape function replaces & < > \" ' and nothing else",
        arguments: [
            ("plain text · Δ", "plain text · Δ"),
            ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
            (#"say "hi" & 'bye'"#, "say &quot;hi&quot; &amp; &#39;bye&#39;"),
            ("&amp;", "&amp;amp;"),
            ("", "")
        ])
    func escape(input: String, expected: String) {
        #expect(TimelineReport.htmlEscape(input) == expected)
    }

    @Test("hostile values from the log and the rules are escaped everywhere")
    func hostileValues() throws {
        var doc = try Self.build([Self.hostile])
        let message = #"he said "<b>x</b>" & it's <img src=x onerror=alert(1)>"#
        doc.sections[0].entries[0].findings.append(("r<ule>", .warning, .fail, message))
        doc.unplaced.append(("u'\"", .info, .inconclusive, "</li><script>u</script>"))
        doc.corpus.append(("<c>", .error, .fail, "corpus message"))
        doc.inputErrors.append(InputError(path: "<p>.jsonl", reason: "bad \"</ul>\""))
        let html = TimelineReport.html(doc)

        #expect(!html.lowercased().contains("<script"))
        #expect(
            !html.contains("<img") && !html.contains("<b>") && !html.contains("<i>")
                && !html.contains("<evil>"))
        // Only the page's own tags are there.
        let allowed: Set<String> = [
            "!DOCTYPE", "html", "/html", "head", "/head", "meta", "title", "/title", "style",
            "/style", "body",
            "/body", "h1", "/h1", "h2", "/h2", "h3", "/h3", "section", "/section", "p", "/p", "ul",
            "/ul", "li",
            "/li", "a", "/a", "code", "/code", "span", "/span", "table", "/table", "thead",
            "/thead", "tbody",
            "/tbody", "tr", "/tr", "th", "/th", "td", "/td", "details", "/details", "summary",
            "/summary", "svg",
            "/svg", "path"
        ]
        let unexpected = Self.tags(html).subtracting(allowed)
        #expect(unexpected.isEmpty, "\(unexpected)")
        // The values are shown, escaped.
        #expect(
            html.contains("<td class=\"ev\">&lt;script&gt;alert(1)&lt;/script&gt;</td>"), "\(html)")
        #expect(
            html.contains("note=&quot;&lt;/td&gt;&lt;/tr&gt;&lt;script&gt;x&lt;/script&gt;&quot;"),
            "\(html)")
        #expect(html.contains("x&quot;&#39;&amp;&lt;i&gt;"))  // the src, in headings and the title
        #expect(html.contains("logs/&lt;evil&gt;&amp;&#39;.jsonl:1"))
        #expect(html.contains("k&#39;&quot;=&quot;a&amp;amp;b&quot;"), "\(html)")
        #expect(html.contains("<code class=\"rule\">r&lt;ule&gt;</code>"))
        #expect(
            html.contains(
                "he said &quot;&lt;b&gt;x&lt;/b&gt;&quot; &amp; it&#39;s &lt;img src=x onerror=alert(1)&gt;"
            ))
        #expect(html.contains("&lt;/li&gt;&lt;script&gt;u&lt;/script&gt;"))
        #expect(html.contains("<code>&lt;c&gt;</code> (1)"))
        #expect(html.contains("<code>&lt;p&gt;.jsonl</code>: bad &quot;&lt;/ul&gt;&quot;"))
        // Control characters from the log stay escaped as in the text format.
        #expect(!html.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        #expect(html.contains(#"\u001b[31m"#))
    }

    @Test("secrets: only what the document holds, a redacted field as [redacted]")
    func secrets() throws {
        let f: LogFile = (
            "s.jsonl",
            """
            {"t":0,"src":"s","ev":"ws.connect","gen":1,"token":"hunter2-VALUE","note":"plain"}
            {"t":5,"src":"s","ev":"ws.open","gen":1,"headers":{"authorization":"Bearer abcdefgh12345678"}}

            """
        )
        let html = TimelineReport.html(try Self.build([f]))
        for secret in ["hunter2", "abcdefgh12345678"] { #expect(!html.contains(secret)) }
        #expect(
            html.contains("<td class=\"fields\">note=&quot;plain&quot; token=[redacted]</td>"),
            "\(html)")
        #expect(html.contains("log.no-secrets"))
    }

    // MARK: - Page

    @Test(
        "a self-contained, well-formed page: doctype, balanced tables, rows and sections, no script"
    )
    func wellFormed() throws {
        let heartbeat: LogFile = (
            "hb.jsonl",
            """
            {"t":100,"src":"p","ev":"ws.connect","gen":1,"interval_ms":100,"timeout_ms":1000}
            {"t":150,"src":"p","ev":"ws.open","gen":1}
            {"t":200,"src":"p","ev":"ws.ping","gen":1}
            {"t":1310,"src":"p","ev":"ws.connect","gen":2}
            {"t":1320,"src":"p","ev":"ws.closed","gen":1,"code":1006}
            {"t":1330,"src":"p","ev":"app.scene","phase":"active"}

            """
        )
        let doc = try Self.build([heartbeat, Self.violations])
        let html = TimelineReport.html(doc)
        #expect(
            html.hasPrefix(
                "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"))
        #expect(html.hasSuffix("</body>\n</html>\n"))
        #expect(doc.sections.count >= 4)
        #expect(Self.count("<table>", in: html) == doc.sections.count)
        #expect(Self.count("</table>", in: html) == doc.sections.count)
        #expect(Self.count("<tr", in: html) == Self.count("</tr>", in: html))
        #expect(Self.count("<section", in: html) == Self.count("</section>", in: html))
        #expect(Self.count("<details", in: html) == doc.sections.count)
        #expect(Self.count("</details>", in: html) == doc.sections.count)
        #expect(Self.count("<svg class=\"lane\"", in: html) == doc.sections.count)
        #expect(Self.count("<svg", in: html) == Self.count("</svg>", in: html))
        #expect(Self.count("<td", in: html) == Self.count("</td>", in: html))
        let entries = doc.sections.reduce(0) { $0 + $1.entries.count }
        #expect(Self.count("<td class=\"loc\">", in: html) == entries)
        // No script, no external resource.
        for needle in ["<script", "src=", "http://", "https://", "<link", "@import", "url("] {
            #expect(!html.contains(needle), "\(needle)")
        }
        // Sections in the document's order, with their headings.
        var from = html.startIndex
        for (s, section) in doc.sections.enumerated() {
            let anchor = "<details class=\"timeline\" id=\"t\(s + 1)\""
            let found = try #require(
                html.range(of: anchor, range: from..<html.endIndex), "\(anchor)")
            from = found.upperBound
            let head = section.gen.map { "gen \($0)" } ?? "events without gen"
            // Open when it has a violation.
            let open = section.violations > 0 ? " open" : ""
            #expect(
                html[found.upperBound...].hasPrefix(
                    "\(open)>\n<summary><h2>\(TimelineBuilder.displayName(section.source))"))
            #expect(html[found.upperBound...].prefix(200).contains(head))
        }
        // The times and the phases as the text shows them.
        let lines = Self.lines(html)
        let closed = try #require(Self.row(lines, "hb.jsonl:5"))
        #expect(
            lines[closed].contains(
                "<td class=\"num\">1320</td><td class=\"num\">+1220</td>"
                    + "<td class=\"num\">Δ1120</td><td class=\"phase stale\">stale</td>"),
            "\(lines[closed])")
        #expect(
            lines[closed].contains("<td class=\"num\">1</td><td class=\"fields\">code=1006</td>"))
        let ping = try #require(Self.row(lines, "hb.jsonl:3"))
        #expect(lines[ping].contains("<td class=\"phase\"></td>"))  // unchanged: not repeated
    }

    @Test("the --around event is marked, with the window's counts")
    func around() throws {
        let doc = try Self.build(
            [Self.violations], TimelineQuery(around: ("v.jsonl", 5), radius: 1))
        let html = TimelineReport.html(doc)
        let lines = Self.lines(html)
        #expect(
            html.contains(
                "<p class=\"focus-note\">Around <code>v.jsonl:5</code> (up to 1 events before and after).</p>"
            ))
        let at = try #require(Self.row(lines, "v.jsonl:5"))
        #expect(
            lines[at].contains(" class=\"fail focus\"><td class=\"mark\">&gt;&gt; !!</td>"),
            "\(lines[at])")
        #expect(html.contains("2 of 5 events"))
    }

    @Test("corpus-wide findings are named, not spelled out, as in the text")
    func corpus() throws {
        let doc = try Self.build([Self.violations], TimelineQuery(src: "v", gen: 1))
        let html = TimelineReport.html(doc)
        #expect(!doc.corpus.isEmpty)
        #expect(
            html.contains("Corpus-wide findings: <code>ws.required-outcomes</code> ("), "\(html)")
        #expect(
            !html.contains("no &#39;connect_failure&#39; outcome")
                && !html.contains("no 'connect_failure'"))
    }

    @Test("an empty selection renders a page saying nothing matched")
    func emptySelection() throws {
        let doc = TimelineDocument(
            sections: [], findingsElsewhere: 0, unplaced: [], corpus: [], focus: nil, radius: nil,
            inputErrors: [InputError(path: "logs/gone.jsonl", reason: "no such file or directory")])
        let html = TimelineReport.html(doc)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("No events matched the selection"))
        #expect(!html.contains("<table"))
        #expect(html.contains("<title>conn-audit timeline</title>"))
        #expect(html.contains("<code>logs/gone.jsonl</code>: no such file or directory"))
        let nonEmpty = TimelineReport.html(try Self.build([Self.violations]))
        #expect(!nonEmpty.contains("No events matched"))
    }

    @Test("the same document gives the same bytes")
    func deterministic() throws {
        let files = [Self.violations, Self.hostile]
        let a = try Self.build(files), b = try Self.build(files)
        let first = TimelineReport.html(a)
        #expect(first == TimelineReport.html(a))
        #expect(first == TimelineReport.html(b))
        #expect(first.contains("<table>"))
    }

    /// The three views handed over in pieces as they are written (`conn-audit timeline` writes
    /// them out so, never whole) are, joined, the views made whole: a view of 8,000 events that
    /// each carry findings, over two generations, with text that is not ASCII.
    @Test func viewsWrittenInPiecesAreTheViewsMadeWhole() throws {
        var lines = [
            #"{"t":0,"src":"d","ev":"ws.connect","gen":1}"#,
            #"{"t":0,"src":"d","ev":"ws.connect","gen":2}"#
        ]
        for i in 1...4_000 {
            lines.append(
                #"{"t":\#(i * 10),"src":"d","ev":"ws.ping","gen":\#(i % 2 + 1),"note":"é \#(i)"}"#)
        }
        let doc = try Self.build([("logs/d.jsonl", lines.joined(separator: "\n") + "\n")])
        final class Pieces { var texts: [String] = []; var bytes: [[UInt8]] = [] }
        let pieces = Pieces()
        #expect(TimelineReport.html(doc, flush: { pieces.texts.append($0) }).isEmpty)
        #expect(pieces.texts.count >= 3)
        #expect(pieces.texts.joined() == TimelineReport.html(doc))
        pieces.texts = []
        for color in [false, true] {
            #expect(
                TimelineReport.text(doc, color: color, flush: { pieces.texts.append($0) }).isEmpty)
            #expect(pieces.texts.count >= 2)
            #expect(pieces.texts.joined() == TimelineReport.text(doc, color: color))
            pieces.texts = []
        }
        #expect(TimelineReport.json(doc, flush: { pieces.bytes.append($0) }).isEmpty)
        #expect(pieces.bytes.count >= 3)
        #expect(
            String(decoding: Array(pieces.bytes.joined()), as: UTF8.self)
                == TimelineReport.json(doc))
    }
}
