import ConnSoak

#if canImport(Glibc)
    import Glibc
#endif

// A peer that goes away mid-write must fail that write (EPIPE), not end the soak.
signal(SIGPIPE, SIG_IGN)
exit(SoakCommand.run(Array(CommandLine.arguments.dropFirst())))
