import Foundation
import Testing

@testable import ConnAudit

/// A message's holes are placed in the file by one walk over its scalar: the line and column of
/// each offset must be the ones a walk to that offset alone gives, in every scalar style, over
/// folded line breaks, blank lines, escapes and text beyond ASCII.
@Suite struct ScalarPositionWalkTests {
    static let documents = [
        "message: plain {a} text {b} end\n",
        "message: \"double {a} \\\"quoted\\\" \\u00e9 {b}\\x41 {c}\"\n",
        "message: 'single {a} it''s {b} é {c}'\n",
        "message: \"flow over\n  lines {a} and\n\n  a blank {b} \\\n  escaped {c}\"\n",
        "message: >-\n  folded {a} text\n  goes on {b}\n\n  after a blank {c}\n  é {d}\nnext: 1\n",
        "message: |\n  literal {a}\n    indented {b}\n\n  last {c}\n",
        "message: >\n  one\n\n\n  two {a} {b}\n",
        "x: 1\nmessage: plain\n  continued {a}\n  and {b}\n"
    ]

    @Test func oneWalkPlacesEachOffsetAsAWalkToItAlone() throws {
        for text in Self.documents {
            let root = try #require(try YamlLoader.load(text, path: "m.yaml").first)
            let node = try #require(root["message"])
            let source = try #require(node.scalar)
            let style = try #require(node.scalarStyle)
            let loader = FileLoader(path: "m.yaml", text: text)
            let offsets = Array(-1...(source.utf8.count + 2))
            let together = loader.scalarPositions(
                node, source: source, style: style, offsets: offsets)
            #expect(together.count == offsets.count)
            for (k, offset) in offsets.enumerated() {
                let alone = loader.scalarPositions(
                    node, source: source, style: style, offsets: [offset])[0]
                #expect(
                    together[k].line == alone.line && together[k].column == alone.column,
                    "\(text.debugDescription) at \(offset)")
            }
            // Every offset lands within the file and after the scalar's key.
            #expect(together.allSatisfy { $0.line >= node.line && $0.column >= 1 })
            // Each hole's name sits where the file has it: after `{`, on its line, its column
            // counted in Unicode scalars.
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let holes = FileLoader.templatePieces(source).compactMap { piece -> (String, Int)? in
                if case .hole(let name, let offset) = piece { return (name, offset) }
                return nil
            }
            #expect(!holes.isEmpty)
            let placed = loader.scalarPositions(
                node, source: source, style: style, offsets: holes.map(\.1))
            for ((name, _), at) in zip(holes, placed) {
                let line = try #require(lines.firstIndex { $0.contains("{\(name)}") })
                let prefix = try #require(lines[line].range(of: "{\(name)}"))
                let column = lines[line][..<prefix.lowerBound].unicodeScalars.count + 2
                #expect(
                    at.line == line + 1 && at.column == column,
                    "\(name) in \(text.debugDescription)")
            }
        }
    }
}
