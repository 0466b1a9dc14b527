import ConnAudit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Reports may be large: a fully buffered stdout keeps writing them cheap.
setvbuf(stdout, nil, _IOFBF, 1 << 16)
let status = CommandLineTool.run(Array(CommandLine.arguments.dropFirst()))
fflush(stdout)
exit(status)
