#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A config file's problems, each at its `file:line:column`: exit 2, no verdict.
struct ConfigError: Error {
    var path: String
    var diagnostics: [Diagnostic]

    /// An error about the file as a whole (not a place in it): shown at its line 1, column 1.
    static func whole(_ path: String, _ message: String) -> ConfigError {
        ConfigError(
            path: path, diagnostics: [Diagnostic(path: path, line: 1, column: 1, message: message)])
    }
}

/// `.conn-audit.yaml`: the settings a CI job would otherwise repeat as flags, and the suppressions
/// of a fleet's known issues.
///
/// Found by walking up from the working directory to the first directory that holds one, stopping
/// after a repository's root (a directory with `.git`); or named with `--config FILE`. Paths in it
/// are relative to the file's directory. The command line wins over it: an option given there
/// replaces the file's value (a `--param` replaces one param).
struct RunConfig {
    /// The file as found or named (relative to the working directory when it was found there).
    var path: String
    /// The directory its relative paths start from, as a prefix to join (`""`, `../`, `ci/`).
    var base: String
    var paths: [String] = []
    /// Whether the file's `rules` come on top of the built-in pack (true) or replace it.
    var builtinRules = true
    var rules: [String] = []
    var only: [String] = []
    var skip: [String] = []
    /// `NAME=VALUE` texts, as `--param` takes them, and where each was written (`line`, `column`).
    var params: [String] = []
    var paramPlaces: [String: (line: Int, column: Int)] = [:]
    var failOn: String?
    var use: String?
    var format: String?
    var output: String?
    /// `FORMAT=FILE` texts, as `--report` takes them.
    var reports: [String] = []
    var exactBaseline: String?
    var jobs: String?
    var suppressions: [Suppression] = []
    /// The file's text, for the line a diagnostic shows.
    var text = ""

    static let fileName = ".conn-audit.yaml"
    /// The keys a config file may hold.
    static let keys = [
        "version", "paths", "builtin-rules", "rules", "only", "skip", "params", "fail-on", "use",
        "format", "output", "reports", "exact-baseline", "jobs", "suppressions"
    ]
    static let suppressionKeys = [
        "rule", "src", "session", "file", "message", "fields", "reason", "expires"
    ]

    /// The config file for a run from `directory`: the nearest `.conn-audit.yaml` at or above it,
    /// not above a repository's root nor above the home directory; with the prefix that leads from
    /// `directory` to it. A file someone else owns is not read (a shared `/tmp` could otherwise
    /// give any run its suppressions and outputs): the search ends there.
    static func find(
        from directory: String, home: String? = getenv("HOME").map { String(cString: $0) }
    ) -> (path: String, base: String)? {
        var dir = directory
        var base = ""
        for _ in 0..<256 {
            let prefix = dir.hasSuffix("/") ? dir : dir + "/"
            var st = stat()
            if stat(prefix + fileName, &st) == 0 {
                return st.st_uid == geteuid() ? (base + fileName, base) : nil
            }
            if access(prefix + ".git", F_OK) == 0 || dir == home { return nil }
            guard dir != "/", let slash = dir.lastIndex(of: "/") else { return nil }
            dir = slash == dir.startIndex ? "/" : String(dir[..<slash])
            base += "../"
        }
        return nil
    }

    /// The working directory, or nil when it cannot be told.
    static func workingDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(
            decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `path` (named or found) with `base`, the prefix its relative paths take.
    static func load(_ path: String, base: String) throws(ConfigError) -> RunConfig {
        var st = stat()
        if stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            throw ConfigError.whole(path, "the config file is a directory")
        }
        guard let f = fopen(path, "rb") else {
            throw ConfigError.whole(
                path,
                "cannot read the config file: \(String(cString: strerror(errno)).lowercased())")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            bytes += chunk[0..<n]
            if n < chunk.count || bytes.count > 1 << 20 { break }
        }
        fclose(f)
        guard bytes.count <= 1 << 20 else {
            throw ConfigError.whole(path, "the config file is larger than 1 MiB")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let documents: [YamlNode]
        do {
            documents = try YamlLoader.load(text, path: path)
        } catch {
            throw ConfigError(path: path, diagnostics: [error])
        }
        var reader = ConfigReader(path: path, text: text)
        var config = RunConfig(path: path, base: base)
        config.text = text
        guard documents.count <= 1 else {
            throw ConfigError(
                path: path,
                diagnostics: [
                    reader.diagnostic(documents[1], "a config file holds one YAML document")
                ])
        }
        if let root = documents.first, !root.isNull {
            reader.read(root, into: &config)
        }
        // A file pattern is relative to the file's directory, as its other paths are (one that
        // starts with `*` or `/` is taken as written).
        for k in config.suppressions.indices {
            if let f = config.suppressions[k].file, !f.hasPrefix("*"), !f.hasPrefix("/") {
                config.suppressions[k].file = config.resolved(f)
            }
        }
        if !reader.errors.isEmpty { throw ConfigError(path: path, diagnostics: reader.errors) }
        return config
    }

    /// A path of the file's, as the working directory reaches it.
    func resolved(_ p: String) -> String {
        p.hasPrefix("/") || base.isEmpty ? p : base + p
    }

    /// The file's settings as command-line options (paths resolved), for
    /// ``ArgumentParser/fill(from:paths:)``.
    var options: [String: [String]] {
        var out: [String: [String]] = [:]
        if !rules.isEmpty { out["--rules"] = rules.map(resolved) }
        out["--only"] = only
        out["--skip"] = skip
        out["--param"] = params
        if let failOn { out["--fail-on"] = [failOn] }
        if let use { out["--use"] = [use] }
        if let format { out["--format"] = [format] }
        if let output { out["--output"] = [resolved(output)] }
        out["--report"] = reports.map { item in
            guard let eq = item.firstIndex(of: "=") else { return item }
            return String(item[...eq]) + resolved(String(item[item.index(after: eq)...]))
        }
        if let exactBaseline { out["--exact-baseline"] = [resolved(exactBaseline)] }
        if let jobs { out["--jobs"] = [jobs] }
        return out
    }
}
