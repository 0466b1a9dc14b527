/// The HTML timeline's time lane: one strip per timeline, from its first event to its last (or
/// to its last ping's deadline, when that is later), marking connects and opens, pings, pongs,
/// each ping's deadline (`timeout_ms` of the generation's connect after the ping), closes and
/// findings.
///
/// An inline SVG without script or text from the logs: marks are placed by time alone and
/// counted in its title. Marks of one kind that fall on the same one of the lane's
/// ``laneWidth`` columns are drawn once, each kind as one path, so a timeline of a million events
/// draws at most a few thousand short path segments.
extension TimelineReport {
    /// What a mark on the lane stands for, in drawing order (later ones on top).
    enum LaneMark: Int, CaseIterable {
        case connect, ping, pong, deadline, close, inconclusive, violation

        var name: String {
            switch self {
            case .connect: return "connect or open"
            case .ping: return "ping"
            case .pong: return "pong"
            case .deadline: return "ping deadline"
            case .close: return "close"
            case .inconclusive: return "inconclusive finding"
            case .violation: return "violation"
            }
        }

        /// The path segment of one mark at column `x` (the lane is ``laneWidth`` wide, 36 high).
        func segment(_ x: Int) -> String {
            switch self {
            case .connect: return "M\(x) 12v12"
            case .ping: return "M\(x) 6v12"
            case .pong: return "M\(x) 18v12"
            case .deadline, .close: return "M\(x) 2v32"
            case .inconclusive, .violation: return "M\(x) 18h0"
            }
        }

        /// How the marks of this kind are drawn: one path holds them all.
        var style: String {
            switch self {
            case .connect: return "stroke=\"#888\" stroke-width=\"1.5\""
            case .ping: return "stroke=\"#2f6fd0\" stroke-width=\"1.5\""
            case .pong: return "stroke=\"#1f8a3b\" stroke-width=\"1.5\""
            case .deadline: return "stroke=\"#d04a2f\" stroke-width=\"1\" stroke-dasharray=\"3 2\""
            case .close: return "stroke=\"#222\" stroke-width=\"3\""
            case .inconclusive:
                return "stroke=\"#e0a100\" stroke-width=\"9\" stroke-linecap=\"round\""
            case .violation: return "stroke=\"#b3161b\" stroke-width=\"9\" stroke-linecap=\"round\""
            }
        }

        /// The marks of this kind at `columns` as one SVG path.
        func path(_ columns: [Int]) -> String {
            "<path d=\"" + columns.map(segment).joined() + "\" " + style + "/>"
        }
    }

    /// The lane's width in columns: marks of a kind closer than a column are drawn once.
    static let laneWidth = 500

    /// The marks of `section`, each with its time.
    static func laneMarks(_ section: TimelineDocument.Section) -> [(mark: LaneMark, t: Double)] {
        var marks: [(mark: LaneMark, t: Double)] = []
        var timeout: Double?
        for entry in section.entries {
            let kind =
                entry.ev.split(separator: ".", maxSplits: 1).dropFirst().first.map(String.init)
                ?? ""
            switch kind {
            case "connect":
                marks.append((.connect, entry.t))
                if let value = entry.fields.last(where: { $0.key == "timeout_ms" })?.value.number,
                    value.isFinite, value > 0, !entry.redacted.contains("timeout_ms")
                {
                    timeout = value
                }
            case "open": marks.append((.connect, entry.t))
            case "ping":
                marks.append((.ping, entry.t))
                if let timeout { marks.append((.deadline, entry.t + timeout)) }
            case "pong": marks.append((.pong, entry.t))
            case "close", "closed": marks.append((.close, entry.t))
            default: break
            }
            if entry.findings.contains(where: { $0.status == .fail }) {
                marks.append((.violation, entry.t))
            } else if !entry.findings.isEmpty {
                marks.append((.inconclusive, entry.t))
            }
        }
        return marks
    }

    /// The lane of `section` as an inline SVG, or "" when it has no event.
    static func lane(_ section: TimelineDocument.Section) -> String {
        guard let first = section.entries.first?.t else { return "" }
        let marks = laneMarks(section)
        let start = min(first, marks.map(\.t).min() ?? first)
        let end = max(section.entries.last!.t, marks.map(\.t).max() ?? first)
        let span = end - start
        var columns = [Set<Int>](repeating: [], count: LaneMark.allCases.count)
        var counts = [Int](repeating: 0, count: LaneMark.allCases.count)
        for (mark, t) in marks where t.isFinite {
            let x =
                span > 0 && span.isFinite
                ? Int(((t - start) / span * Double(laneWidth - 10)).rounded()) + 5 : 5
            columns[mark.rawValue].insert(x)
            counts[mark.rawValue] += 1
        }
        let counted = LaneMark.allCases.filter { counts[$0.rawValue] > 0 }
            .map { "\(counts[$0.rawValue]) \($0.name)\(counts[$0.rawValue] == 1 ? "" : "s")" }
        let title =
            "time lane, " + NumberText.json(span.isFinite ? span : 0) + " ms"
            + (counted.isEmpty ? "" : ": " + counted.joined(separator: ", "))
        var out =
            "<svg class=\"lane\" viewBox=\"0 0 \(laneWidth) 36\" preserveAspectRatio=\"none\" role=\"img\">"
        out += "<title>" + htmlEscape(title) + "</title>"
        out += "<path d=\"M0 18H\(laneWidth)\" stroke=\"#bbb\" stroke-width=\"1\"/>"
        for mark in LaneMark.allCases where !columns[mark.rawValue].isEmpty {
            out += mark.path(columns[mark.rawValue].sorted())
        }
        return out + "</svg>\n"
    }

    /// The key to the lanes' marks, once per page.
    static var laneLegend: String {
        var out = "<p class=\"lane-legend\">Time lanes: "
        out += LaneMark.allCases.map { mark in
            "<svg viewBox=\"0 0 20 36\" role=\"img\">" + mark.path([10]) + "</svg> " + mark.name
        }.joined(separator: " · ")
        return out + "</p>\n"
    }
}
