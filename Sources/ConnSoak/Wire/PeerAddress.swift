import ConnAudit
import ConnPeer

#if canImport(Glibc)
    import Glibc
#endif

/// The loopback IPv4 address and port of the peer to soak: `127.0.0.1:8765`, `localhost:8765`.
///
/// conn-soak hammers its peer on purpose, so it never connects beyond this machine: any address
/// outside 127.0.0.0/8 is refused.
public struct PeerAddress: Sendable, Equatable, CustomStringConvertible {
    /// In network byte order, as `sin_addr` holds it.
    public var host: in_addr_t
    public var port: UInt16

    public var description: String {
        let v = UInt32(bigEndian: host)
        return "\(v >> 24).\(v >> 16 & 0xFF).\(v >> 8 & 0xFF).\(v & 0xFF):\(port)"
    }

    /// Parses `HOST:PORT`; a message for people when it is not a loopback address and a port.
    public static func parse(_ text: String) throws(UsageError) -> PeerAddress {
        guard let colon = text.lastIndex(of: ":") else {
            throw UsageError("'\(text)' is not HOST:PORT (for example 127.0.0.1:8765)")
        }
        let hostText = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard let port = UInt16(portText), port > 0 else {
            throw UsageError("'\(portText)' is not a port (1 to 65535)")
        }
        var addr = in_addr()
        let name = hostText == "localhost" ? "127.0.0.1" : hostText
        guard !hostText.contains(":"), inet_pton(AF_INET, name, &addr) == 1 else {
            throw UsageError("'\(hostText)' is not an IPv4 address or localhost")
        }
        guard UInt32(bigEndian: addr.s_addr) >> 24 == 127 else {
            throw UsageError(
                "refusing to connect to \(hostText): conn-soak connects to loopback only "
                    + "(127.0.0.0/8 or localhost)")
        }
        return PeerAddress(host: addr.s_addr, port: port)
    }

    /// A TCP connection to the address within `timeoutMs`: its socket, or the errno of the
    /// failure (ETIMEDOUT when the time ran out).
    func connect(timeoutMs: Int) -> Result<Socket, ConnectError> {
        let fd = socket(
            AF_INET,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
                | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return .failure(ConnectError(errno: errno)) }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = port.bigEndian
        sin.sin_addr = in_addr(s_addr: host)
        let started = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if started != 0 && errno != EINPROGRESS {
            let error = errno
            close(fd)
            return .failure(ConnectError(errno: error))
        }
        if started != 0 {
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&pfd, 1, Int32(clamping: max(0, timeoutMs))) > 0 else {
                close(fd)
                return .failure(ConnectError(errno: ETIMEDOUT))
            }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            guard error == 0 else {
                close(fd)
                return .failure(ConnectError(errno: error))
            }
        }
        // Back to blocking: the socket's reads and writes wait in poll, bounded in time.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return .success(Socket(fd: fd))
    }
}
