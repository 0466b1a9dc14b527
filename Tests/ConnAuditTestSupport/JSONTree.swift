import Foundation

/// A JSON value parsed with `JSONSerialization`, with forgiving subscripts for assertions.
public struct JSONTree {
    public let value: Any?

    public init(_ text: String) throws {
        value = try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    private init(value: Any?) { self.value = value }

    public subscript(key: String) -> JSONTree { JSONTree(value: (value as? [String: Any])?[key]) }
    public subscript(index: Int) -> JSONTree {
        guard let a = value as? [Any], index < a.count else { return JSONTree(value: nil) }
        return JSONTree(value: a[index])
    }

    public var isMissing: Bool { value == nil }
    public var string: String? { value as? String }
    public var int: Int? { value as? Int }
    public var bool: Bool? { value as? Bool }
    public var array: [JSONTree] { (value as? [Any])?.map { JSONTree(value: $0) } ?? [] }
}
