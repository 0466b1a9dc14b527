import ConnPeer

#if canImport(Glibc)
    import Glibc
#endif

// A client that goes away mid-write must fail that write (EPIPE), not end the peer.
signal(SIGPIPE, SIG_IGN)
exit(PeerCommand.run(Array(CommandLine.arguments.dropFirst())))
