import Foundation
import ConnAuditTestSupport
import Testing

@testable import ConnAudit

// MARK: - Helpers

/// The diagnostics loading rule `paths` throws, or nil when they load.
private func loadPathErrors(_ paths: [String]) -> [Diagnostic]? {
    do {
        _ = try RuleLoader.load(paths: paths)
        return nil
    } catch {
        return error.diagnostics
    }
}

/// The repository root.
private let repositoryRoot = URL(fileURLWithPath: Repository.root)

/// Runs `body` with a fresh directory (``withScratchDirectory(_:_:)``) as a file URL.
private func withRulesScratch(_ body: (URL) throws -> Void) throws {
    try withScratchDirectory("rules") { try body(URL(fileURLWithPath: $0, isDirectory: true)) }
}

private func write(_ text: String, to url: URL) throws {
    try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
}

// MARK: - Tests

extension RuleLoaderTests {
    @Test func aRulesDirectoryWithNoRuleFiles() throws {
        try withRulesScratch { dir in
            try write("not rules\n", to: dir.appendingPathComponent("README.txt"))
            try write("rules: []\n", to: dir.appendingPathComponent(".hidden.yaml"))
            let errors = try #require(
                loadPathErrors([dir.path]), "a directory without rule files loaded")
            #expect(errors.count == 1)
            let d = try #require(errors.first)
            #expect(d.path == dir.path)
            #expect(position(d) == [1, 1])
            #expect(d.message == "no rule files (*.yaml, *.yml) found here")
            #expect(
                d.description == "\(dir.path):1:1: error: no rule files (*.yaml, *.yml) found here")
        }
    }

    @Test func aDanglingLinkOrAFifoNamedLikeARuleFileIsAnError() throws {
        try withRulesScratch { dir in
            try write(
                "rules:\n  - id: a.b\n    title: T\n    never: { ev: ws.ping }\n",
                to: dir.appendingPathComponent("a.yaml"))
            let gone = dir.appendingPathComponent("b.yaml").path
            #expect(symlink("/nonexistent/conn-audit.yaml", gone) == 0)
            let fifo = dir.appendingPathComponent("c.yaml").path
            #expect(mkfifo(fifo, 0o600) == 0)
            // not a rule name: ignored
            _ = symlink("/nonexistent/x.txt", dir.appendingPathComponent("d.txt").path)
            let errors = try #require(
                loadPathErrors([dir.path]), "a pack with a missing rule file loaded")
            #expect(errors.map(\.path) == [gone, fifo])
            #expect(errors[0].message == "cannot read rules: no such file or directory")
            #expect(errors[1].message == "cannot read rules: not a regular file")
        }
    }

    @Test func aMissingRulesPath() throws {
        let errors = try #require(
            loadPathErrors(["/nonexistent/conn-audit/rules"]), "a missing path loaded")
        let d = try #require(errors.first)
        #expect(d.path == "/nonexistent/conn-audit/rules")
        #expect(d.message.contains("cannot read rules"))
    }

    @Test func aDirectoryIsSearchedRecursivelyInOrder() throws {
        try withRulesScratch { dir in
            func file(_ id: String) -> String {
                "rules:\n  - id: \(id)\n    title: T\n    never: { ev: ws.ping }\n"
            }
            try write(file("x.b"), to: dir.appendingPathComponent("b.yaml"))
            try write(file("x.a"), to: dir.appendingPathComponent("a.yml"))
            try write(file("x.c"), to: dir.appendingPathComponent("sub/c.yaml"))
            try write(file("x.hidden"), to: dir.appendingPathComponent(".hidden/d.yaml"))
            try write("not yaml: [", to: dir.appendingPathComponent("notes.txt"))
            let set = try RuleLoader.load(paths: [dir.path])
            #expect(set.rules.map(\.id) == ["x.a", "x.b", "x.c"])
            #expect(
                set.rules.map(\.file)
                    == ["a.yml", "b.yaml", "sub/c.yaml"].map { dir.path + "/" + $0 })
        }
    }

    // MARK: Built-in pack

    @Test func builtinPackIsTheRulesDirectoryOnDisk() throws {
        let dir = repositoryRoot.appendingPathComponent("rules")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        #expect(!names.isEmpty)
        #expect(BuiltinPack.files.map(\.name) == names)
        for (name, text, _) in BuiltinPack.files {
            let onDisk = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            #expect(
                text == onDisk,
                "rules/\(name) differs from the built-in pack: run script/embed-rules")
        }
    }

    @Test func builtinPackLoadsTheSameRulesAsTheDirectory() throws {
        let builtin = RuleLoader.builtin()
        let fromDisk = try RuleLoader.load(paths: [
            repositoryRoot.appendingPathComponent("rules").path
        ])
        #expect(builtin.warnings.isEmpty)
        #expect(fromDisk.warnings.isEmpty)
        #expect(builtin.rules.map(\.id) == fromDisk.rules.map(\.id))
        #expect(builtin.rules.map(\.yaml) == fromDisk.rules.map(\.yaml))
        #expect(builtin.rules.map(\.line) == fromDisk.rules.map(\.line))
        #expect(builtin.rules.allSatisfy { $0.file.hasPrefix("<built-in>/") })
        #expect(Set(builtin.rules.map(\.id)).count == builtin.rules.count)
        #expect(builtin.rules.map(\.id).contains("ws.single-close"))
        #expect(builtin.rules.map(\.id).contains("log.malformed"))
    }
}
