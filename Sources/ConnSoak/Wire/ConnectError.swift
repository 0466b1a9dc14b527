/// A failed connection attempt, named as connlog's `error` field spells POSIX errors.
struct ConnectError: Error {
    /// `POSIXError.ECONNREFUSED`, `URLError.timedOut` and the like.
    var connlog: String

    init(errno: Int32) { connlog = PosixName.spelled(errno) }
    init(urlError name: String) { connlog = "URLError." + name }
}
