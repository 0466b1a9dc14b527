extension Backoff {
    /// Whether a ping error means the connection is gone (seed 002, and
    /// `reconnect.fatal-errors-only`): a lost network or a dead socket is, and so is an error
    /// of any other domain or an unknown spelling. Other URL and POSIX errors are transient:
    /// the heartbeat's deadline decides. Both spellings count: `URLError.X` is
    /// `NSURLErrorDomain:X`, `POSIXError.X` is `NSPOSIXErrorDomain:X`.
    public static func isFatal(pingError: String) -> Bool {
        let fatal: [String: Set<String>] = [
            "URL": ["-1009", "-1005", "notConnectedToInternet", "networkConnectionLost"],
            "POSIX": ["32", "54", "EPIPE", "ECONNRESET"]
        ]
        for (domain, prefixes) in [
            ("URL", ["URLError.", "NSURLErrorDomain:"]),
            ("POSIX", ["POSIXError.", "NSPOSIXErrorDomain:"])
        ] {
            for prefix in prefixes where pingError.hasPrefix(prefix) {
                let code = pingError.dropFirst(prefix.count)
                let body = code.first == "-" ? code.dropFirst() : code
                let known =
                    !body.isEmpty
                    && body.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
                return !known || fatal[domain]!.contains(String(code))
            }
        }
        return true
    }
}
