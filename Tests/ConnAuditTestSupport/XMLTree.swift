import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An element parsed with Foundation's `XMLParser`: name, attributes, text, children.
public final class XMLTree {
    public let name: String
    public let attributes: [String: String]
    public var text = ""
    public var children: [XMLTree] = []

    public init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    public struct ParseError: Error, CustomStringConvertible {
        public var description: String
    }

    public static func parse(_ xml: String) throws -> XMLTree {
        let parser = XMLParser(data: Data(xml.utf8))
        let builder = Builder()
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            throw ParseError(
                description:
                    "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "no root")")
        }
        return root
    }

    public func child(_ name: String) -> XMLTree? { children.first { $0.name == name } }

    /// Every element below this one with that name, in document order.
    public func all(_ name: String) -> [XMLTree] {
        children.flatMap { ($0.name == name ? [$0] : []) + $0.all(name) }
    }

    public func testcase(_ name: String) -> XMLTree? {
        all("testcase").first { $0.attributes["name"] == name }
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var root: XMLTree?
        var stack: [XMLTree] = []

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
        ) {
            let node = XMLTree(name: elementName, attributes: attributeDict)
            stack.last?.children.append(node)
            if root == nil { root = node }
            stack.append(node)
        }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?
        ) {
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }
    }
}
