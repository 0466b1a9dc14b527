#if canImport(Glibc)
    import Glibc
#endif

/// A connected TCP socket with reads and writes bounded in time.
///
/// Every wait goes through poll with a timeout, so no read or write can block for ever.
public final class Socket: @unchecked Sendable {
    public enum ReadResult: Equatable {
        case data([UInt8])
        /// The other side closed its half.
        case end
        case timeout
        case failed(errno: Int32)
    }

    /// How long a write waits for room before the connection counts as failed.
    public static let writeTimeoutMs = 2_000

    public let fd: Int32
    private var closed = false

    public init(fd: Int32) { self.fd = fd }

    deinit { close() }

    /// Up to `max` bytes, waiting at most `timeoutMs`.
    public func read(max: Int = 65_536, timeoutMs: Int) -> ReadResult {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&pfd, 1, Int32(clamping: Swift.max(0, timeoutMs)))
        if ready == 0 { return .timeout }
        if ready < 0 { return errno == EINTR ? .timeout : .failed(errno: errno) }
        var buffer = [UInt8](repeating: 0, count: max)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, max, 0) }
        if n == 0 { return .end }
        if n < 0 { return errno == EINTR || errno == EAGAIN ? .timeout : .failed(errno: errno) }
        return .data(Array(buffer[0..<n]))
    }

    /// Writes all of `bytes`, waiting at most `timeoutMs` for room; false when the connection
    /// failed or stayed full.
    @discardableResult
    public func write(_ bytes: [UInt8], timeoutMs: Int = Socket.writeTimeoutMs) -> Bool {
        var offset = 0
        let clock = MonotonicClock()
        while offset < bytes.count {
            let left = timeoutMs - clock.elapsedMs()
            guard left > 0 else { return false }
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&pfd, 1, Int32(clamping: left))
            if ready < 0 && errno != EINTR { return false }
            if ready <= 0 { continue }
            let n = bytes.withUnsafeBytes {
                send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return false
            }
            offset += n
        }
        return true
    }

    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }
}

/// A listening TCP socket on a loopback address.
public final class Listener: @unchecked Sendable {
    public let fd: Int32
    /// The port listened on (the one the system picked when asked for port 0).
    public let port: UInt16
    public let address: ListenAddress
    private var closed = false

    public init(_ address: ListenAddress, backlog: Int32 = 64) throws(PeerError) {
        let family = address.host == .ipv6Loopback ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .cannotListen(address: "\(address)", reason: Self.reason()) }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard let port = Self.bind(fd, address), listen(fd, backlog) == 0 else {
            let reason = Self.reason()
            Glibc.close(fd)
            throw .cannotListen(address: "\(address)", reason: reason)
        }
        self.fd = fd
        self.port = port
        self.address = ListenAddress(host: address.host, port: port)
    }

    /// Binds `fd` to `address`; the port bound (the one the system picked for port 0), or nil
    /// with errno set.
    private static func bind(_ fd: Int32, _ address: ListenAddress) -> UInt16? {
        var storage = sockaddr_storage()
        var length: socklen_t
        switch address.host {
        case .ipv4(let host):
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    $0.pointee.sin_family = sa_family_t(AF_INET)
                    $0.pointee.sin_port = address.port.bigEndian
                    $0.pointee.sin_addr = in_addr(s_addr: host)
                }
            }
        case .ipv6Loopback:
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    $0.pointee.sin6_family = sa_family_t(AF_INET6)
                    $0.pointee.sin6_port = address.port.bigEndian
                    // ::1: fifteen zero bytes, then 1.
                    withUnsafeMutableBytes(of: &$0.pointee.sin6_addr) { $0[15] = 1 }
                }
            }
        }
        let bound = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { return nil }
        // sin_port and sin6_port both follow the family, in network byte order.
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                UInt16(bigEndian: $0.pointee.sin_port)
            }
        }
    }

    deinit { close() }

    /// What one wait for a connection gave.
    public enum Accepted {
        case connection(Socket)
        /// None came in time, or the one that came was gone before it was taken.
        case none
        /// One is waiting but the process or the system has no descriptor left for it
        /// (EMFILE, ENFILE): it stays queued and the listener stays ready, so the caller must
        /// pause before it asks again.
        case noDescriptors
    }

    /// The next connection, waiting at most `timeoutMs` (0 when negative: never for ever).
    public func accept(timeoutMs: Int) -> Accepted {
        guard !closed else { return .none }
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(clamping: max(0, timeoutMs))) > 0 else { return .none }
        let client = Glibc.accept(fd, nil, nil)
        guard client >= 0 else {
            return errno == EMFILE || errno == ENFILE ? .noDescriptors : .none
        }
        // Children the tests or a shell spawn must not inherit the connection.
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        var on: Int32 = 1
        setsockopt(
            client, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return .connection(Socket(fd: client))
    }

    /// Stops listening: later clients are refused at once instead of waiting in the backlog.
    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
