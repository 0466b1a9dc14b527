import Testing

/// The suites that soak real sockets. Their scenarios depend on timing (a pong that must land
/// inside a window of a few hundred milliseconds), so they run one at a time: on a loaded
/// machine with two cores they do not compete with each other. Each test gets at most
/// five minutes.
@Suite("conn-soak on real sockets", .serialized, .timeLimit(.minutes(5)))
struct SoakOnRealSockets {}
