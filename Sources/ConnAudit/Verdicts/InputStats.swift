/// Totals over the inputs, as the report header shows them.
public struct InputStats: Sendable {
    public var files = 0
    public var lines = 0
    public var events = 0
    public var malformed = 0
    public var blank = 0
    public var bytes = 0
    public var sources = 0
    public var generations = 0
}
