/// Bad usage of conn-soak: a message for people, and exit status 2.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
