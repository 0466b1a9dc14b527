#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The rules of one run, loaded and validated.
public struct RuleSet: Sendable {
    public var rules: [Rule]
    public var warnings: [Diagnostic]

    public init(rules: [Rule], warnings: [Diagnostic] = []) {
        self.rules = rules
        self.warnings = warnings
    }

    /// Top-level event fields any rule can read (the reader decodes only these, plus the fixed
    /// ones).
    public var fieldsRead: Set<String> {
        var names = Set<String>()
        for rule in rules { FieldCollector.collect(rule, into: &names) }
        return names
    }
}

/// Loads rule files (YAML) into ``Rule``s, reporting every problem with file:line:column.
public enum RuleLoader {
    /// Paths are rule files or directories (searched recursively for `*.yaml`/`*.yml`, hidden
    /// names skipped, sorted). Throws every error found; warnings come back in the set.
    public static func load(paths: [String]) throws(DiagnosticList) -> RuleSet {
        var files: [(path: String, text: String)] = []
        var errors: [Diagnostic] = []
        // The same file named twice (`--rules a --rules a`, or a file and its directory) is read
        // once.
        var seenFiles = Set<String>()
        for path in paths {
            let found = RuleFiles.find(path)
            errors += found.errors
            for file in found.files where seenFiles.insert(Self.identity(of: file)).inserted {
                switch RuleFiles.read(file) {
                case .success(let text): files.append((file, text))
                case .failure(let d): errors.append(d)
                }
            }
            if found.files.isEmpty && found.errors.isEmpty {
                errors.append(
                    Diagnostic(
                        path: path, line: 1, column: 1,
                        message: "no rule files (*.yaml, *.yml) found here"))
            }
        }
        if !errors.isEmpty { throw DiagnosticList(errors) }
        return try load(files: files)
    }

    /// What makes two names of a rule file the same file: its device and inode when it can be
    /// read, else its path.
    static func identity(of path: String) -> String {
        var st = stat()
        guard stat(path, &st) == 0 else { return "path:" + path }
        return "inode:\(st.st_dev):\(st.st_ino)"
    }

    /// Loads rules from texts already read (the built-in pack, fixtures, tests). With `lint`
    /// off, the checks for likely misspellings that only look at the rules' text (members of
    /// names nothing binds, near-miss fields and `ev` names) are skipped: for the built-in pack,
    /// which the test suite loads with them on.
    public static func load(files: [(path: String, text: String)], lint: Bool = true)
        throws(DiagnosticList) -> RuleSet
    {
        try load(files: files.map { ($0.path, $0.text, $0.text) }, lint: lint)
    }

    /// ``load(files:lint:)`` of texts whose YAML is read from `parsed`: the same lines as `text`,
    /// some of them blank (the built-in pack without its fixtures). Positions, messages and each
    /// rule's YAML come from `text`.
    static func load(files: [(path: String, text: String, parsed: String)], lint: Bool)
        throws(DiagnosticList) -> RuleSet
    {
        var rules: [Rule] = []
        var errors: [Diagnostic] = []
        var warnings: [Diagnostic] = []
        var seen: [String: (String, Int)] = [:]
        var placed: [(rule: Rule, place: (String) -> Diagnostic)] = []
        for file in files {
            var loader = FileLoader(path: file.path, text: file.text, parsed: file.parsed)
            loader.lint = lint
            let loaded = loader.loadFile()
            errors += loader.errors
            warnings += loader.warnings
            for (rule, idNode) in loaded {
                let at = loader
                placed.append((rule, { at.diagnostic(idNode, $0, .warning) }))
                if let first = seen[rule.id] {
                    errors.append(
                        loader.diagnostic(
                            idNode,
                            "duplicate rule id '\(rule.id)' (first defined at \(first.0):\(first.1))"
                        ))
                    continue
                }
                seen[rule.id] = (rule.file, rule.line)
                rules.append(rule)
            }
        }
        if !errors.isEmpty { throw DiagnosticList(errors) }
        if lint { warnings += unknownEvWarnings(placed) }
        return RuleSet(rules: rules, warnings: warnings)
    }

    /// The file of the default pack that holds the reader's rules (`log.*`).
    static let readerRulesFile = "10-log.yaml"

    /// The default pack compiled into the binary (the same files as `rules/` in the repository);
    /// with `only`, just that file of it. Without `fixtures`, its rules have no `tests:`: a run
    /// never reads them, and they are two thirds of the pack's YAML. Everything else about the
    /// rules is the same either way (`BuiltinPackWithoutFixturesTests`).
    public static func builtin(only: String? = nil, fixtures: Bool = true) -> RuleSet {
        do {
            let files = BuiltinPack.files.filter { only == nil || $0.name == only }
            return try load(
                files: files.map {
                    ("<built-in>/" + $0.name, $0.text, fixtures ? $0.text : $0.withoutTests)
                }, lint: false)
        } catch {
            // The built-in pack is validated by the test suite; reaching this is a build defect.
            fatalError("the built-in rule pack does not load:\n\(error)")
        }
    }
}
