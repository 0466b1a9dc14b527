import ConnAudit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Reports may be large: a fully buffered stdout keeps writing them cheap.
setvbuf(stdout, nil, _IOFBF, 1 << 16)
let status = CommandLineTool.run(Array(CommandLine.arguments.dropFirst()))
// A report that did not reach standard output (a full disk, a closed descriptor) is no verdict:
// a gate running `conn-audit logs/ --format json > report.json` must not pass on an empty file.
errno = 0
if fflush(stdout) != 0 || ferror(stdout) != 0 {
    let reason = errno != 0 ? String(cString: strerror(errno)).lowercased() : "write error"
    fputs("conn-audit: error: cannot write to standard output: \(reason)\n", stderr)
    exit(2)
}
exit(status)
