#if canImport(Glibc)
    import Glibc
#endif

/// A loopback address and port to listen on: `127.0.0.1:8080`, `localhost:0`, `[::1]:8080`.
///
/// conn-peer misbehaves on purpose, so it never listens beyond this machine: any address outside
/// 127.0.0.0/8 and `::1` is refused. Port 0 asks the system for a free port.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// An IPv4 loopback address, or IPv6's only one.
    public enum Host: Sendable, Equatable {
        /// In network byte order, as `sin_addr` holds it.
        case ipv4(in_addr_t)
        /// `::1`.
        case ipv6Loopback
    }

    public var host: Host
    public var port: UInt16

    public var description: String {
        switch host {
        case .ipv4(let address): return "\(Self.dotted(address)):\(port)"
        case .ipv6Loopback: return "[::1]:\(port)"
        }
    }

    /// Parses `HOST:PORT`, with an IPv6 host in brackets (`[::1]:PORT`).
    ///
    /// - Throws: A message for people when the text is not `HOST:PORT`, the port is out of range,
    ///   or the host is not a loopback address.
    public static func parse(_ text: String) throws(AddressError) -> ListenAddress {
        guard let colon = text.lastIndex(of: ":") else {
            throw AddressError("'\(text)' is not HOST:PORT (for example 127.0.0.1:8080)")
        }
        let hostText = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard let port = UInt16(portText) else {
            throw AddressError("'\(portText)' is not a port (0 to 65535; 0 picks a free one)")
        }
        if hostText.hasPrefix("[") && hostText.hasSuffix("]") {
            var addr = in6_addr()
            guard inet_pton(AF_INET6, String(hostText.dropFirst().dropLast()), &addr) == 1 else {
                throw AddressError("'\(hostText)' is not an IPv6 address")
            }
            let loopback = withUnsafeBytes(of: &addr) { bytes in
                bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1
            }
            guard loopback else {
                throw AddressError(
                    "refusing to listen on \(hostText): conn-peer listens on loopback only "
                        + "(127.0.0.0/8, localhost or [::1])")
            }
            return ListenAddress(host: .ipv6Loopback, port: port)
        }
        if hostText.contains(":") || hostText.contains("[") || hostText.contains("]") {
            throw AddressError("'\(hostText)': an IPv6 host goes in brackets, as in [::1]:8080")
        }
        var addr = in_addr()
        let name = hostText == "localhost" ? "127.0.0.1" : hostText
        guard inet_pton(AF_INET, name, &addr) == 1 else {
            throw AddressError("'\(hostText)' is not an IP address or localhost")
        }
        // The first byte in network order is the first octet.
        guard UInt32(bigEndian: addr.s_addr) >> 24 == 127 else {
            throw AddressError(
                "refusing to listen on \(hostText): conn-peer listens on loopback only "
                    + "(127.0.0.0/8, localhost or [::1])")
        }
        return ListenAddress(host: .ipv4(addr.s_addr), port: port)
    }

    static func dotted(_ host: in_addr_t) -> String {
        let v = UInt32(bigEndian: host)
        return "\(v >> 24).\(v >> 16 & 0xFF).\(v >> 8 & 0xFF).\(v & 0xFF)"
    }
}

public struct AddressError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
