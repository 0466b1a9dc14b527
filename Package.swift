// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "conn-audit",
    products: [
        .executable(name: "conn-audit", targets: ["conn-audit"]),
        .library(name: "ConnAudit", targets: ["ConnAudit"]),
        .executable(name: "connlog-gen", targets: ["connlog-gen"]),
        .executable(name: "conn-peer", targets: ["conn-peer"]),
        .executable(name: "conn-soak", targets: ["conn-soak"])
    ],
    targets: [
        .systemLibrary(name: "CYaml", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "ConnAudit",
            dependencies: ["CYaml", "CZlib"],
            resources: []
        ),
        // Release builds link the Swift runtime into the executable: a run does not resolve the
        // runtime's symbols as it starts, and the binary runs on a machine without the toolchain
        // (docs/performance-limits.md, "Design decisions that hold").
        .executableTarget(
            name: "conn-audit", dependencies: ["ConnAudit"],
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]),
        // A synthetic corpus generator for benchmarks and end-to-end checks: Foundation and zlib
        // only, deliberately independent of the ConnAudit library.
        .executableTarget(name: "connlog-gen", dependencies: ["CZlib"]),
        // A controllable WebSocket and SSE test peer on loopback sockets: POSIX sockets and the
        // library's YAML loader, scripted per connection by a scenario file.
        .target(name: "ConnPeer", dependencies: ["ConnAudit"]),
        .executableTarget(name: "conn-peer", dependencies: ["ConnPeer"]),
        // A reference WebSocket client that soaks a peer and logs connlog: the seeds' heartbeat
        // and backoff on POSIX sockets, with the peer's frame codec and handshake pieces.
        .target(name: "ConnSoak", dependencies: ["ConnAudit", "ConnPeer"]),
        .executableTarget(name: "conn-soak", dependencies: ["ConnSoak"]),
        // What the test files share: runs of the command line, in memory and as a child process,
        // rules from YAML over logs in memory, JSON reports, the repository's files, scratch
        // directories, draws of conn-soak's seeded generator. Only public interfaces, so it
        // builds in any configuration; no product uses it.
        .target(
            name: "ConnAuditTestSupport", dependencies: ["ConnAudit", "ConnSoak"],
            path: "Tests/ConnAuditTestSupport"),
        // Snapshots are read from the source tree (#filePath), not bundled.
        .testTarget(
            name: "ConnAuditTests",
            dependencies: [
                "ConnAudit", "ConnAuditTestSupport", "ConnPeer", "ConnSoak"
            ],
            exclude: ["Reports/Snapshots"]
        )
    ]
)

// Release builds skip the run-time exclusivity checks (about a tenth of the engine's instructions
// went to them); debug builds, which the tests run, keep them, so a violation is still caught
// there.
for target in package.targets where target.name == "ConnAudit" {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))
        ]
}

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.swiftLanguageMode(.v5)]
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility")
        ]
}
