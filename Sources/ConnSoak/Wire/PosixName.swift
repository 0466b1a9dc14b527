#if canImport(Glibc)
    import Glibc
#endif

/// POSIX errors as connlog spells them: by name, since the numbers differ between systems
/// (ECONNRESET is 54 on Darwin, 104 on Linux) and the rules read Darwin's.
enum PosixName {
    static func spelled(_ code: Int32) -> String {
        let names: [Int32: String] = [
            EPIPE: "EPIPE", ECONNRESET: "ECONNRESET", ECONNREFUSED: "ECONNREFUSED",
            ETIMEDOUT: "ETIMEDOUT", ECONNABORTED: "ECONNABORTED", EHOSTUNREACH: "EHOSTUNREACH",
            ENETUNREACH: "ENETUNREACH", EMFILE: "EMFILE", ENFILE: "ENFILE"
        ]
        return "POSIXError." + (names[code] ?? "E\(code)")
    }
}
