#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard input, output and error as the process was started with them.
///
/// A closed one (`>&-`, `<&-`) would be the next descriptor a file opens: the report meant for
/// standard output would land in the file that took descriptor 1 (a report being written, the
/// copy of standard input), a log would be read as standard input, a write would fail with the
/// reason of whatever took its place ("invalid argument" for an event descriptor). So each closed
/// one is held by a stand-in before anything is opened, and is known for what it is.
public enum StandardDescriptors {
    /// Standard input was closed: reading `-` is an input error, "standard input is closed".
    nonisolated(unsafe) public private(set) static var inputClosed = false
    /// Standard output was closed: the first write to it fails (exit 2, "standard output is
    /// closed"), and so does a report to `/dev/stdout`.
    nonisolated(unsafe) public private(set) static var outputClosed = false

    /// Holds each closed standard descriptor: 0 and 2 by `/dev/null`, 1 by the read end of a pipe
    /// whose write end is closed (a write to it fails; `/dev/stdout` opens that pipe alone, so a
    /// report sent there is recognised). Call it once, first, before any file is opened.
    public static func reserve() {
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) < 0 && errno == EBADF {
            var standIn: Int32 = -1
            if fd == 1 {
                var ends: [Int32] = [-1, -1]
                if pipe(&ends) == 0 {
                    close(ends[1])
                    standIn = ends[0]
                }
                outputClosed = true
            } else {
                standIn = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY)
                if fd == 0 { inputClosed = true }
            }
            if standIn >= 0, standIn != fd {
                dup2(standIn, fd)
                close(standIn)
            }
        }
    }

    /// Whether `descriptor` leads to the stand-in for a closed standard output.
    static func isClosedOutput(_ descriptor: Int32) -> Bool {
        guard outputClosed else { return false }
        var a = stat(), b = stat()
        return fstat(descriptor, &a) == 0 && fstat(1, &b) == 0 && a.st_dev == b.st_dev
            && a.st_ino == b.st_ino
    }
}
