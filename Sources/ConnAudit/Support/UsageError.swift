/// A usage problem (a bad command line, an option's value, a baseline or query that cannot be
/// used as asked): exit 2 with this message.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
