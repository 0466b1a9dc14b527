/// What stops a soak from starting.
public enum SoakError: Error, Sendable, CustomStringConvertible {
    case cannotWrite(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotWrite(let path, let reason):
            return "cannot write \(path): \(reason.lowercased())"
        }
    }
}
