import ConnAudit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// A closed standard descriptor is held by a stand-in before any file can take its number.
StandardDescriptors.reserve()
// Reports may be large: a fully buffered stdout keeps writing them cheap.
setvbuf(stdout, nil, _IOFBF, 1 << 16)
// A reader of standard output that goes away (`| head`) makes a write fail with EPIPE: the run
// then ends quietly with its own status, as grep and ruff do, not by SIGPIPE (status 141).
signal(SIGPIPE, SIG_IGN)
// The arguments as bytes: a file name need not be UTF-8, and CommandLine.arguments has already
// replaced what is not (a byte 0xFF by U+FFFD, which names another file or none).
let argv = (1..<Int(CommandLine.argc)).map { i -> [UInt8] in
    guard let argument = CommandLine.unsafeArgv[i] else { return [] }
    return Array(UnsafeRawBufferPointer(start: argument, count: strlen(argument)))
}
let status = CommandLineTool.run(argv: argv)
// A report that did not reach standard output (a full disk, a closed descriptor) is no verdict:
// a gate running `conn-audit logs/ --format json > report.json` must not pass on an empty file.
errno = 0
if fflush(stdout) != 0 || ferror(stdout) != 0 {
    let code = standardOutputError != 0 ? standardOutputError : errno
    // The reader stopped reading: what it read is what it wanted.
    if code == EPIPE { exit(status) }
    let reason =
        StandardDescriptors.outputClosed
        ? "standard output is closed"
        : code != 0 ? String(cString: strerror(code)).lowercased() : "write error"
    fputs("conn-audit: error: cannot write to standard output: \(reason)\n", stderr)
    exit(2)
}
exit(status)
