/// What a session needs of its connection: the socket, its number, the log, and the bounds.
struct Connection {
    let socket: Socket
    /// The connection's number in this run, from 1: `gen` in the peer's log.
    let gen: Int
    let log: PeerLog
    let idleTimeoutMs: Int
    /// True once the peer is ending (its duration is over): sessions close at once.
    let isStopping: @Sendable () -> Bool
}
