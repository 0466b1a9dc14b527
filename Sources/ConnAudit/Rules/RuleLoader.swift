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

// MARK: - Finding rule files

enum RuleFiles {
    static func find(_ path: String) -> (files: [String], errors: [Diagnostic]) {
        var st = stat()
        guard stat(path, &st) == 0 else {
            return (
                [],
                [
                    Diagnostic(
                        path: path, line: 1, column: 1, message: "cannot read rules: \(errnoText())"
                    )
                ]
            )
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else { return ([path], []) }
        var out: [String] = []
        var errors: [Diagnostic] = []
        var visited = Set<[UInt64]>()
        walk(path, &out, &errors, &visited)
        return (out, errors)
    }

    private static func walk(
        _ dir: String, _ out: inout [String], _ errors: inout [Diagnostic],
        _ visited: inout Set<[UInt64]>
    ) {
        var st = stat()
        guard stat(dir, &st) == 0 else { return }
        guard visited.insert([UInt64(st.st_dev), UInt64(st.st_ino)]).inserted else { return }
        guard let handle = opendir(dir) else {
            errors.append(
                Diagnostic(
                    path: dir, line: 1, column: 1,
                    message: "cannot read rules directory: \(errnoText())"))
            return
        }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasPrefix(".") { continue }
            names.append(name)
        }
        closedir(handle)
        for name in names.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            let full = dir.hasSuffix("/") ? dir + name : dir + "/" + name
            let isRuleFile = name.hasSuffix(".yaml") || name.hasSuffix(".yml")
            var child = stat()
            guard stat(full, &child) == 0 else {
                // A rule file that cannot be reached (a dangling link) is an error, not a rule
                // silently left out of the pack.
                if isRuleFile {
                    errors.append(
                        Diagnostic(
                            path: full, line: 1, column: 1,
                            message: "cannot read rules: \(errnoText())"))
                }
                continue
            }
            if (child.st_mode & S_IFMT) == S_IFDIR {
                walk(full, &out, &errors, &visited)
            } else if isRuleFile {
                // Only regular files: opening a FIFO named like a rule file would wait forever.
                guard (child.st_mode & S_IFMT) == S_IFREG else {
                    errors.append(
                        Diagnostic(
                            path: full, line: 1, column: 1,
                            message: "cannot read rules: not a regular file"))
                    continue
                }
                out.append(full)
            }
        }
    }

    static func read(_ path: String) -> Result<String, Diagnostic> {
        guard let f = fopen(path, "rb") else {
            return .failure(
                Diagnostic(
                    path: path, line: 1, column: 1, message: "cannot read rules: \(errnoText())"))
        }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        let limit = 16 << 20
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n > 0 { bytes += chunk[0..<n] }
            if bytes.count > limit {
                return .failure(
                    Diagnostic(
                        path: path, line: 1, column: 1, message: "rules file larger than 16 MiB"))
            }
            if n < chunk.count {
                if ferror(f) != 0 {
                    return .failure(
                        Diagnostic(
                            path: path, line: 1, column: 1,
                            message: "cannot read rules: \(errnoText())"))
                }
                break
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(
                Diagnostic(path: path, line: 1, column: 1, message: "rules file is not valid UTF-8")
            )
        }
        return .success(text)
    }

    static func errnoText() -> String { String(cString: strerror(errno)).lowercased() }
}

// MARK: - One file

/// Turns one file's YAML nodes into rules, collecting every error.
struct FileLoader {
    let path: String
    /// What the YAML is read from (``init(path:text:parsed:)``).
    private let parsed: String
    private(set) var errors: [Diagnostic] = []
    private(set) var warnings: [Diagnostic] = []
    /// The source text of every `let:` binding read so far, for `rules --explain`.
    private(set) var letTexts: [(name: String, text: String)] = []
    /// The rule being loaded: its `min`/`max` written as `params.NAME` (``Rule/boundParams``).
    private var pendingBoundParams: [String: String] = [:]
    /// The rule being loaded: names read as `x.f`, and the captures its expressions bind
    /// (``noteMemberNames(_:at:source:style:)``).
    var memberReads: [MemberRead] = []
    /// Whether to look for likely misspellings (``RuleLoader/load(files:lint:)``).
    var lint = true
    var expressionCaptures: Set<String> = []
    /// The text's bytes, and where each line starts in them (a last entry past the end).
    private let bytes: [UInt8]
    private let lineStarts: [Int]
    /// How many lines the text has.
    var lineCount: Int { lineStarts.count - 1 }

    /// The file at `path` holding `text`, its YAML read from `parsed` (the same lines, some of
    /// them blank; by default `text` itself).
    init(path: String, text: String, parsed: String? = nil) {
        self.path = path
        self.parsed = parsed ?? text
        bytes = Array(text.utf8)
        var starts = [0]
        for (i, b) in bytes.enumerated() where b == 0x0A { starts.append(i + 1) }
        starts.append(bytes.count + 1)
        lineStarts = starts
    }

    /// Line `n`'s bytes (1-based), without its line break (LF or CR LF); empty past the text.
    func lineBytes(_ n: Int) -> ArraySlice<UInt8> {
        guard n >= 1, n <= lineCount else { return [] }
        let line = bytes[lineStarts[n - 1]..<(lineStarts[n] - 1)]
        return line.last == 0x0D ? line.dropLast() : line
    }

    func sourceLine(_ n: Int) -> String { String(decoding: lineBytes(n), as: UTF8.self) }

    func diagnostic(_ node: YamlNode, _ message: String, _ severity: Diagnostic.Severity = .error)
        -> Diagnostic
    {
        Diagnostic(
            severity, path: path, line: node.line, column: node.column, message: message,
            sourceLine: sourceLine(node.line))
    }

    mutating func error(_ node: YamlNode, _ message: String) {
        errors.append(diagnostic(node, message))
    }
    mutating func warn(_ node: YamlNode, _ message: String) {
        warnings.append(diagnostic(node, message, .warning))
    }

    static let fileKeys: Set<String> = ["rules", "params", "let"]
    static let ruleKeys: Set<String> = [
        "id", "title", "severity", "description", "for", "params", "let", "message", "tests",
        "every", "expect", "undecided", "never", "after", "before", "between", "until", "count",
        "min", "max",
        "by", "each", "followed_by", "within_ms", "unless", "at_end", "preceded_by", "never_after",
        "forbid",
        "without", "report_at", "report_gen", "classify", "require", "applies_if"
    ]
    /// The keys that choose a check kind, and the keys that go with each.
    static let checkKinds: [(kind: String, keys: Set<String>)] = [
        ("every", ["expect", "undecided"]),
        ("never", ["after", "before", "between", "until"]),
        ("count", ["min", "max", "by"]),
        (
            "each",
            [
                "followed_by", "within_ms", "unless", "at_end", "preceded_by", "never_after",
                "report_at", "report_gen"
            ]
        ),
        ("forbid", ["without", "report_at"]),
        ("classify", ["require", "min", "applies_if"])
    ]

    /// Returns each rule with the node of its id (for duplicate-id errors).
    mutating func loadFile() -> [(Rule, YamlNode)] {
        let documents: [YamlNode]
        do {
            documents = try YamlLoader.load(parsed, path: path)
        } catch {
            errors.append(error)
            return []
        }
        guard let root = documents.first else {
            errors.append(
                Diagnostic(
                    path: path, line: 1, column: 1,
                    message: "empty rules file: expected a mapping with 'rules:'"))
            return []
        }
        // Rules after a `---` would never run: an error, not a warning a CI log hides.
        for extra in documents.dropFirst() where !extra.isNull {
            error(
                extra,
                "a second YAML document ('---'): a rules file holds one mapping with 'rules:'; put these rules in another file"
            )
        }
        guard let pairs = root.mappingPairs else {
            error(root, "expected a mapping with 'rules:' at the top, found a \(root.kindName)")
            return []
        }
        for pair in pairs {
            let key = pair.key.scalar ?? ""
            if !Self.fileKeys.contains(key) {
                error(
                    pair.key,
                    "unknown key '\(key)' at the top of a rules file (expected rules, params, let)")
            }
        }
        let fileParams = root["params"].map { params($0) } ?? [:]
        let fileLets = root["let"].map { lets($0, params: nil) } ?? []
        let fileLetTexts = letTexts
        guard let rulesNode = root["rules"] else {
            error(root, "missing required key 'rules'")
            return []
        }
        guard let items = rulesNode.sequenceItems else {
            error(rulesNode, "'rules' must be a list of rules, found a \(rulesNode.kindName)")
            return []
        }
        var out: [(Rule, YamlNode)] = []
        for item in items {
            letTexts = fileLetTexts
            if var loaded = rule(item, fileParams: fileParams, fileLets: fileLets) {
                loaded.0.letTexts = letTexts
                out.append(loaded)
            }
        }
        return out
    }

    // MARK: Rule

    private mutating func rule(
        _ node: YamlNode, fileParams: [String: Value], fileLets: [(name: String, expr: Expr)]
    ) -> (Rule, YamlNode)? {
        guard let pairs = node.mappingPairs else {
            error(node, "a rule must be a mapping, found a \(node.kindName)")
            return nil
        }
        let errorsBefore = errors.count
        memberReads = []
        expressionCaptures = []
        for pair in pairs {
            let key = pair.key.scalar ?? ""
            if !Self.ruleKeys.contains(key) {
                error(
                    pair.key,
                    "unknown key '\(key)' in a rule"
                        + Suggestions.hint(for: key, among: Array(Self.ruleKeys)))
            }
        }
        guard let idNode = node["id"] else {
            error(node, "missing required key 'id'")
            return nil
        }
        let id = idNode.isNull ? "" : idNode.scalar ?? ""
        if id.isEmpty
            || !id.utf8.allSatisfy({
                ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x5F
                    || $0 == 0x2D
            })
        {
            error(idNode, "rule id '\(id)' must match [a-z0-9._-]+")
        }
        let title =
            node["title"].flatMap { scalarString($0, "title") }
            ?? {
                error(node, "rule '\(id)': missing required key 'title'")
                return ""
            }()
        // A title is what a report says of the rule: null or blank is as good as missing.
        if let t = node["title"], t.scalar != nil, t.isNull || title.allSatisfy(\.isWhitespace) {
            error(t, "rule '\(id)': 'title' must not be empty")
        }
        var severity = Severity.error
        if let s = node["severity"] {
            if let v = s.scalar, let parsed = Severity(rawValue: v) {
                severity = parsed
            } else {
                error(s, "severity must be error, warning or info")
            }
        }
        var scope = Scope.generation
        if let s = node["for"] {
            if let v = s.scalar, let parsed = Scope(rawValue: v) {
                scope = parsed
            } else {
                error(s, "'for' must be generation, source or corpus")
            }
        }
        var ruleParams = fileParams
        if let p = node["params"] { ruleParams.merge(params(p)) { _, new in new } }
        // Params read by the rule's own lets count as read by the rule.
        let paramsRead = ParamsRead()
        let ruleLets =
            fileLets
            + (node["let"].map { lets($0, params: ruleParams, paramsRead: paramsRead) } ?? [])
        let description = node["description"].flatMap { scalarString($0, "description") }

        var context = NameContext(params: ruleParams, lets: Set(ruleLets.map(\.name)))
        context.paramsReadBox = paramsRead
        let captures = Self.captureNodes(in: node)
        context.allCaptures = Set(captures.map(\.name))
        for c in captures { warnIfHidesField(c.node, c.name, "capture") }
        // One name bound by two parts of the check (the trigger and its answer, say) would mean
        // the later one in every expression. Alternatives of one selector may share a name; the
        // steps of one list are checked where the list is read.
        var boundBy: [String: YamlNode] = [:]
        for pair in node.mappingPairs ?? [] where pair.key.scalar != "tests" {
            var names: [String: YamlNode] = [:]
            for c in Self.captureNodes(in: pair.value) where names[c.name] == nil {
                names[c.name] = c.node
            }
            for (name, at) in names.sorted(by: { $0.value.line < $1.value.line }) {
                if let earlier = boundBy[name] {
                    error(
                        at,
                        "capture '\(name)' is already bound at line \(earlier.line): give each its own name"
                    )
                } else {
                    boundBy[name] = at
                }
            }
        }
        pendingBoundParams = [:]
        let check = self.check(node, id: id, scope: scope, context: &context)
        var messageContext = context
        if case .every? = check { messageContext.allowsLookAhead = true }
        let message = node["message"].flatMap { template($0, context: messageContext) }
        let tests = node["tests"].map { fixtures($0, params: ruleParams) } ?? []

        // Params a rule defines but never reads are probably a typo somewhere.
        if let p = node["params"]?.mappingPairs {
            for pair in p {
                guard let name = pair.key.scalar, !context.paramsRead.contains(name) else {
                    continue
                }
                warn(pair.key, "param '\(name)' of rule '\(id)' is never read (params.\(name))")
            }
        }

        if lint {
            let reads = judgeMemberReads(
                lets: Set(ruleLets.map(\.name)), captures: context.allCaptures, check: check)
            errors += reads.errors
            warnings += reads.warnings
        }
        guard errors.count == errorsBefore, let check else { return nil }
        let (yaml, yamlLines) = yamlText(of: node)
        var rule = Rule(
            id: id, title: title, severity: severity, description: description, scope: scope,
            params: ruleParams, lets: ruleLets, check: check, message: message, tests: tests,
            file: path, line: node.line, yaml: yaml)
        rule.boundParams = pendingBoundParams
        rule.testsLines = testsLines(of: node, yamlLines: yamlLines)
        if let (letName, depth) = Self.evaluationTooDeep(rule) {
            let limit =
                "deeper than \(Self.maxEvaluationDepth) (\(depth) levels): each let read adds its own depth where it is read; read fewer lets through one another"
            if let letName {
                let at =
                    node["let"]?.mappingPairs?.first { $0.key.scalar == letName }?.key ?? idNode
                error(at, "rule '\(id)': let '\(letName)' with the lets it reads nests \(limit)")
            } else {
                error(idNode, "rule '\(id)': an expression with the lets it reads nests \(limit)")
            }
            return nil
        }
        return (rule, idNode)
    }

    /// ``Rule/testsLines``: from the `tests` key's line to the line before the next key of the
    /// rule (or to the rule's end), when both keys start their lines.
    private func testsLines(of node: YamlNode, yamlLines: Int) -> Range<Int>? {
        guard let pairs = node.mappingPairs,
            let i = pairs.firstIndex(where: { $0.key.scalar == "tests" })
        else {
            return nil
        }
        func startsItsLine(_ n: YamlNode) -> Bool {
            sourceLine(n.line).unicodeScalars.prefix(n.column - 1).allSatisfy { $0 == " " }
        }
        let key = pairs[i].key
        // A flow mapping (`- {id: …, tests: […]}`) has no lines of its own to rewrite.
        guard sourceLine(node.line).unicodeScalars.dropFirst(node.column - 1).first != "{" else {
            return nil
        }
        guard key.line > node.line, startsItsLine(key) else { return nil }
        let end: Int
        if i + 1 < pairs.count {
            let next = pairs[i + 1].key
            guard next.line > key.line, startsItsLine(next) else { return nil }
            end = next.line
        } else {
            end = node.line + yamlLines
        }
        // (Never an empty or inverted range, whatever the text's bounds came to.)
        guard end > key.line else { return nil }
        return (key.line - node.line)..<(end - node.line)
    }

    /// The last line any node of `node` starts on.
    private static func lastLine(_ node: YamlNode) -> Int {
        switch node.kind {
        case .scalar: return node.line
        case .sequence(let items): return items.reduce(node.line) { max($0, lastLine($1)) }
        case .mapping(let pairs):
            return pairs.reduce(node.line) { max($0, lastLine($1.key), lastLine($1.value)) }
        }
    }

    /// The rule's lines as written (from its first line to the line before the next rule), and
    /// how many they are.
    private func yamlText(of node: YamlNode) -> (String, Int) {
        let start = node.line
        var end = start
        // The rule ends where a line at or left of its dash column starts something new.
        let dashColumn = max(1, node.column - 2)
        var n = start + 1
        // Indentation is ASCII spaces: the lines are read as bytes.
        func indent(_ l: ArraySlice<UInt8>) -> Int { l.prefix(while: { $0 == 0x20 }).count }
        while n <= lineCount {
            let l = lineBytes(n)
            let blank = l.allSatisfy { $0 == 0x20 || $0 == 0x09 }
            if !blank && indent(l) < dashColumn + 1 { break }
            if !blank { end = n }
            n += 1
        }
        // A quoted scalar may go on at any indentation (`title: "A` then `b"` at column 1): the
        // rule reaches at least to the last line a node of it starts on (cut at `b"`, its tests'
        // lines would end before they begin).
        end = min(max(end, Self.lastLine(node)), lineCount)
        var trim = dashColumn - 1 + 2
        for n in start...end { trim = min(trim, indent(lineBytes(n))) }
        // Every line has at least `trim` leading spaces: what is dropped is ASCII.
        var out: [UInt8] = []
        for n in start...end {
            if n > start { out.append(0x0A) }
            out += lineBytes(n).dropFirst(trim)
        }
        return (String(decoding: out, as: UTF8.self), end - start + 1)
    }

    // MARK: Check kinds

    private mutating func check(
        _ node: YamlNode, id: String, scope: Scope, context: inout NameContext
    ) -> Check? {
        let kinds = Self.checkKinds.filter { node[$0.kind] != nil }
        if kinds.count > 1 {
            error(
                node[kinds[1].kind]!,
                "rule '\(id)' has more than one check kind (\(kinds.map(\.kind).joined(separator: ", ")))"
            )
            return nil
        }
        guard let kind = kinds.first else {
            error(
                node,
                "rule '\(id)' has no check: give one of \(Self.checkKinds.map(\.kind).joined(separator: ", "))"
            )
            return nil
        }
        // Keys of other check kinds do not go with this one.
        let allowed = kind.keys
        for other in Self.checkKinds where other.kind != kind.kind {
            for key in other.keys.subtracting(allowed).sorted() {
                if let n = node[key] { error(n, "'\(key)' does not go with '\(kind.kind)'") }
            }
        }
        let head = node[kind.kind]!
        switch kind.kind {
        case "every":
            guard let sel = selector(head, context: &context) else { return nil }
            guard let expectNode = node["expect"] else {
                error(head, "'every' needs 'expect'")
                return nil
            }
            let expectation: Expectation?
            if expectNode.mappingPairs != nil || expectNode.sequenceItems != nil {
                expectation = selector(expectNode, context: &context).map { .selector($0) }
            } else {
                var lookAhead = context
                lookAhead.allowsLookAhead = true
                expectation = expression(expectNode, context: lookAhead).map { .expression($0) }
                if case .expression(.literal(let v))? = expectation, v.typeName != "bool" {
                    error(
                        expectNode,
                        "'expect' must be a condition (true or false), not the \(v.typeName) \(v.rendered(bare: false))"
                    )
                }
            }
            var policy = UndecidedPolicy.fail
            if let u = node["undecided"] {
                if let v = u.scalar, let p = UndecidedPolicy(rawValue: v) {
                    policy = p
                } else {
                    error(u, "'undecided' must be fail, pass or inconclusive")
                }
            }
            guard let expectation else { return nil }
            return .every(sel, expect: expectation, undecided: policy)

        case "never":
            var scopeContext = context
            let absence: AbsenceScope
            if let between = node["between"] {
                if node["after"] != nil || node["before"] != nil || node["until"] != nil {
                    error(between, "'between' does not go with 'after', 'before' or 'until'")
                    return nil
                }
                guard let items = between.sequenceItems, items.count == 2 else {
                    error(between, "'between' takes two selectors: [FROM, TO]")
                    return nil
                }
                guard let from = selector(items[0], context: &scopeContext),
                    let to = selector(items[1], context: &scopeContext)
                else { return nil }
                absence = .intervals(from: from, to: to, open: false)
            } else if let until = node["until"] {
                guard let afterNode = node["after"] else {
                    error(until, "'until' goes with 'after': never X after Q until R")
                    return nil
                }
                if let b = node["before"] { error(b, "'before' does not go with 'until'") }
                guard let from = selector(afterNode, context: &scopeContext),
                    let to = selector(until, context: &scopeContext)
                else { return nil }
                absence = .intervals(from: from, to: to, open: true)
            } else if node["after"] != nil || node["before"] != nil {
                let after = node["after"].flatMap { selector($0, context: &scopeContext) }
                let before = node["before"].flatMap { selector($0, context: &scopeContext) }
                absence = .window(after: after, before: before)
            } else {
                absence = .global
            }
            context.captures.formUnion(scopeContext.captures)
            guard let sel = selector(head, context: &context) else { return nil }
            return .never(sel, scope: absence)

        case "count":
            guard let sel = selector(head, context: &context) else { return nil }
            let minimum = node["min"].flatMap { bound($0, "min", context: context) }
            let maximum = node["max"].flatMap { bound($0, "max", context: context) }
            if minimum == nil && maximum == nil {
                // A bound that was given but refused has its own error already.
                if node["min"] == nil && node["max"] == nil {
                    error(head, "'count' needs 'min' or 'max'")
                }
                return nil
            }
            if let minimum, let maximum, minimum > maximum {
                error(node["min"]!, "'min' (\(minimum)) is greater than 'max' (\(maximum))")
            }
            let by = node["by"].flatMap { expression($0, context: context) }
            return .count(sel, min: minimum, max: maximum, by: by)

        case "each":
            guard
                let trigger = sequence(
                    head, reportAt: node["report_at"], reportGen: node["report_gen"],
                    context: &context, what: "each")
            else { return nil }
            let answers = ["followed_by", "preceded_by", "never_after"].filter { node[$0] != nil }
            guard answers.count == 1 else {
                error(
                    answers.count > 1 ? node[answers[1]]! : head,
                    "'each' needs exactly one of followed_by, preceded_by, never_after")
                return nil
            }
            switch answers[0] {
            case "followed_by":
                var within: Expr?
                if let w = node["within_ms"] {
                    if scope == .corpus {
                        error(
                            w,
                            "'within_ms' needs a timeline with a clock: for: generation or source")
                    }
                    within = expression(w, context: context)
                    if within == nil { return nil }
                    if case .literal(let v)? = within,
                        v.number.map({ $0 < 0 || !$0.isFinite }) ?? true
                    {
                        error(
                            w,
                            "'within_ms' must be a number of milliseconds >= 0, not \(v.rendered(bare: false))"
                        )
                    }
                }
                var responseContext = context
                let unless = node["unless"].flatMap { selector($0, context: &responseContext) }
                if node["unless"] != nil, unless == nil { return nil }
                guard let answer = selector(node["followed_by"]!, context: &responseContext) else {
                    return nil
                }
                var atEnd = AtEnd.inconclusive
                if let a = node["at_end"] {
                    if let v = a.scalar, let parsed = AtEnd(rawValue: v) {
                        atEnd = parsed
                    } else {
                        error(a, "'at_end' must be inconclusive, fail or pass")
                    }
                }
                return .response(
                    trigger, followedBy: answer, within: within, unless: unless, atEnd: atEnd)
            case "preceded_by":
                for key in ["within_ms", "unless", "at_end"] {
                    if let n = node[key] {
                        error(n, "'\(key)' goes with 'followed_by', not 'preceded_by'")
                    }
                }
                var inner = context
                guard let enabling = selector(node["preceded_by"]!, context: &inner) else {
                    return nil
                }
                return .precedence(trigger, precededBy: enabling)
            default:
                for key in ["within_ms", "unless", "at_end"] {
                    if let n = node[key] {
                        error(n, "'\(key)' goes with 'followed_by', not 'never_after'")
                    }
                }
                var inner = context
                guard let forbidden = selector(node["never_after"]!, context: &inner) else {
                    return nil
                }
                context.captures.formUnion(inner.captures)
                return .neverAfter(trigger, forbidden)
            }

        case "forbid":
            guard let items = head.sequenceItems, !items.isEmpty else {
                error(
                    head,
                    "'forbid' takes a list of steps, such as [{ ev: ws.ping, as: p }, { ev: ws.ping }]"
                )
                return nil
            }
            guard
                let steps = sequence(
                    head, reportAt: node["report_at"], reportGen: nil, context: &context,
                    what: "forbid")
            else { return nil }
            var inner = context
            let without = node["without"].flatMap { selector($0, context: &inner) }
            if node["without"] != nil, without == nil { return nil }
            return .forbid(steps, without: without)

        default:
            if scope != .corpus {
                error(
                    node["for"] ?? head,
                    "'classify' labels generations across the corpus: it needs for: corpus")
            }
            guard let classification = classification(head, context: context) else { return nil }
            var required: [String] = []
            if let r = node["require"] {
                guard let items = r.sequenceItems, !items.isEmpty else {
                    error(r, "'require' takes a list of label names")
                    return nil
                }
                for item in items {
                    guard let name = item.scalar,
                        classification.labels.contains(where: { $0.name == name })
                    else {
                        error(
                            item,
                            "'require' names no label of 'classify' (labels: \(classification.labels.map(\.name).joined(separator: ", ")))"
                        )
                        continue
                    }
                    required.append(name)
                }
            }
            let minimum = node["min"].flatMap { bound($0, "min", context: context) } ?? 1
            var applies: Selector?
            if let a = node["applies_if"] {
                var inner = context
                applies = selector(a, context: &inner)
                if applies == nil { return nil }
            }
            return .classify(classification, require: required, min: minimum, appliesIf: applies)
        }
    }

    /// A trigger or forbidden sequence: one selector map, or a list of steps (each a selector map
    /// that may carry `without:`). Captures of a step are visible to the steps after it.
    private mutating func sequence(
        _ node: YamlNode, reportAt: YamlNode?, reportGen: YamlNode?, context: inout NameContext,
        what: String
    ) -> Sequence? {
        var steps: [Step] = []
        if let items = node.sequenceItems {
            // A list is a sequence of steps (for `each` too: one obligation per match of the whole
            // sequence). A one-of trigger is written with a list value: { ev: [a, b] }.
            // The engine keeps a bit per step (SequenceRunner): no one writes a longer sequence.
            if items.count > Self.maxSteps {
                error(
                    items[Self.maxSteps],
                    "'\(what)' has at most \(Self.maxSteps) steps, found \(items.count)")
                return nil
            }
            var bound: [String: Int] = [:]
            for item in items {
                guard let pairs = item.mappingPairs else {
                    error(item, "a step must be a selector map, found a \(item.kindName)")
                    return nil
                }
                // A name bound by two steps would silently mean the later one in every `where`.
                if let asNode = pairs.first(where: { $0.key.scalar == "as" })?.value,
                    let name = asNode.scalar
                {
                    if let line = bound[name] {
                        error(
                            asNode,
                            "capture '\(name)' is already bound by the step at line \(line): give each step its own name"
                        )
                        return nil
                    }
                    bound[name] = item.line
                }
                var without: Selector?
                if let w = pairs.first(where: { $0.key.scalar == "without" }) {
                    var gap = context
                    without = selector(w.value, context: &gap)
                    if without == nil { return nil }
                }
                let stripped = YamlNode(
                    .mapping(pairs.filter { $0.key.scalar != "without" }), line: item.line,
                    column: item.column)
                guard let sel = selector(stripped, context: &context) else { return nil }
                steps.append(Step(selector: sel, without: without))
            }
        } else {
            guard let sel = selector(node, context: &context) else { return nil }
            steps = [Step(selector: sel, without: nil)]
        }
        // `report_at` and `report_gen` name a capture of the steps: .some(nil) when not given, nil
        // after an error.
        func capture(_ node: YamlNode?, _ key: String) -> String?? {
            guard let node else { return .some(nil) }
            guard let name = node.scalar, context.captures.contains(name) else {
                error(node, "'\(key)' must name a capture of the steps (as: …)")
                return nil
            }
            return name
        }
        guard let at = capture(reportAt, "report_at"), let gen = capture(reportGen, "report_gen")
        else { return nil }
        return Sequence(steps: steps, reportAt: at, reportGen: gen)
    }

    private mutating func classification(_ node: YamlNode, context: NameContext) -> Classification?
    {
        guard let pairs = node.mappingPairs else {
            error(
                node,
                "'classify' takes a map: { per: generation, stream: ws, labels: { name: { has: …, lacks: … } } }"
            )
            return nil
        }
        for pair in pairs where !["per", "stream", "labels"].contains(pair.key.scalar ?? "") {
            error(
                pair.key,
                "unknown key '\(pair.key.scalar ?? "")' in 'classify' (expected per, stream, labels)"
            )
        }
        if let per = node["per"], per.scalar != "generation" {
            error(per, "'classify' labels generations: per must be generation")
        }
        guard let stream = node["stream"]?.scalar, !stream.isEmpty else {
            error(
                node,
                "'classify' needs 'stream' (the stream whose generations are labelled, e.g. ws)")
            return nil
        }
        guard let labelPairs = node["labels"]?.mappingPairs, !labelPairs.isEmpty else {
            error(
                node["labels"] ?? node,
                "'classify' needs 'labels': a map of label names to { has: …, lacks: … }")
            return nil
        }
        var labels: [Classification.Label] = []
        for pair in labelPairs {
            let name = pair.key.scalar ?? ""
            guard let spec = pair.value.mappingPairs else {
                error(pair.value, "label '\(name)' takes { has: SELECTOR, lacks: SELECTOR }")
                continue
            }
            for p in spec where !["has", "lacks"].contains(p.key.scalar ?? "") {
                error(
                    p.key,
                    "unknown key '\(p.key.scalar ?? "")' in label '\(name)' (expected has, lacks)")
            }
            var inner = context
            let has = pair.value["has"].flatMap { selector($0, context: &inner) }
            let lacks = pair.value["lacks"].flatMap { selector($0, context: &inner) }
            if has == nil && lacks == nil {
                error(pair.value, "label '\(name)' needs 'has' or 'lacks'")
                continue
            }
            labels.append(.init(name: name, has: has, lacks: lacks))
        }
        return Classification(stream: stream, labels: labels)
    }

    /// Every name bound with `as:` anywhere in a rule (to tell "used before bound" from a field).
    static func captureNames(in node: YamlNode) -> Set<String> {
        Set(captureNodes(in: node).map(\.name))
    }

    /// Every `as:` of a rule (not of its fixtures), with its value's node.
    static func captureNodes(in node: YamlNode) -> [(node: YamlNode, name: String)] {
        var out: [(node: YamlNode, name: String)] = []
        func walk(_ n: YamlNode) {
            switch n.kind {
            case .scalar: break
            case .sequence(let items): items.forEach(walk)
            case .mapping(let pairs):
                for p in pairs {
                    if p.key.scalar == "as", let name = p.value.scalar {
                        out.append((p.value, name))
                    }
                    if p.key.scalar != "tests" { walk(p.value) }
                }
            }
        }
        walk(node)
        return out
    }

    /// Fields connlog gives a fixed meaning: a let or capture of the same name hides the event's
    /// field from the rule's expressions (`as: t` makes `t` the captured event), which reads like
    /// the field but is not.
    static let fixedFieldNames: Set<String> = [
        "t", "ev", "gen", "src", "session", "reason", "error", "state"
    ]

    mutating func warnIfHidesField(_ node: YamlNode, _ name: String, _ what: String) {
        guard Self.fixedFieldNames.contains(name) else { return }
        warn(
            node,
            "\(what) '\(name)' hides the event field '\(name)' in this rule's expressions; choose another name"
        )
    }

    static let maxLets = 1_000
    /// Steps in one sequence (`forbid`, `each`).
    static let maxSteps = 64

    /// A `min`/`max` bound: a whole number, or `params.NAME` naming one (overridable with
    /// `--param`; recorded in ``boundParams``).
    private mutating func bound(_ node: YamlNode, _ key: String, context: NameContext) -> Int? {
        guard let s = node.scalar, s.hasPrefix("params.") else { return count(node, key) }
        let name = String(s.dropFirst("params.".count))
        guard let value = context.params?[name] else {
            let known =
                context.params.map {
                    $0.isEmpty
                        ? "this rule defines no params"
                        : "this rule defines: \($0.keys.sorted().joined(separator: ", "))"
                } ?? ""
            error(node, "'\(key)': unknown param '\(name)' (\(known))")
            return nil
        }
        context.paramsReadBox.names.insert(name)
        guard let n = Self.wholeCount(value) else {
            error(
                node,
                "'\(key)': param '\(name)' must be a whole number >= 0, not \(value.rendered(bare: false))"
            )
            return nil
        }
        pendingBoundParams[key] = name
        return n
    }

    /// A param value usable as a count bound: a whole number >= 0.
    static func wholeCount(_ v: Value) -> Int? {
        switch v {
        case .int(let i) where i >= 0 && i <= Int64(Int32.max): return Int(i)
        case .double(let d) where d >= 0 && d <= Double(Int32.max) && d == d.rounded():
            return Int(d)
        default: return nil
        }
    }

    private mutating func count(_ node: YamlNode, _ key: String) -> Int? {
        guard let s = node.scalar, let n = Int(s), n >= 0 else {
            error(node, "'\(key)' must be a whole number >= 0")
            return nil
        }
        return n
    }

    // MARK: Selectors

    /// A selector from a mapping (AND) or a list of mappings (OR).
    mutating func selector(_ node: YamlNode, context: inout NameContext) -> Selector? {
        if let items = node.sequenceItems {
            guard !items.isEmpty else {
                error(node, "an empty list matches nothing; give at least one selector map")
                return nil
            }
            var terms: [Selector.Term] = []
            for item in items {
                guard let t = term(item, context: &context) else { return nil }
                terms.append(t)
            }
            return Selector(terms: terms)
        }
        guard let t = term(node, context: &context) else { return nil }
        return Selector(terms: [t])
    }

    private mutating func term(_ node: YamlNode, context: inout NameContext) -> Selector.Term? {
        guard let pairs = node.mappingPairs else {
            error(
                node,
                "a selector must be a map of field tests such as { ev: ws.close }, found a \(node.kindName)"
            )
            return nil
        }
        var term = Selector.Term()
        var whereNode: YamlNode?
        let errorsBefore = errors.count
        for pair in pairs {
            let key = pair.key.scalar ?? ""
            switch key {
            case "as":
                guard let name = pair.value.scalar, isName(name) else {
                    error(pair.value, "'as' takes a name such as p or first_ping")
                    continue
                }
                term.capture = name
            case "where":
                whereNode = pair.value
            case "not":
                // Inside an expression, each `not:` is a level more for the `where:` in it.
                let inExpression = context.depth > 0
                if inExpression { context.depth += 1 }
                term.negated = selector(pair.value, context: &context)
                if inExpression { context.depth -= 1 }
            case "":
                error(pair.key, "a selector key must be a field name")
            default:
                if let p = predicate(pair.value, field: key) {
                    term.tests.append(.init(field: key, predicate: p))
                    if key == "ev" { term.evNames = Self.exactNames(p) }
                }
            }
        }
        // `where` sees the term's own capture as well as the ones bound earlier.
        if let capture = term.capture { context.captures.insert(capture) }
        if let whereNode {
            term.whereExpr = expression(whereNode, context: context)
            if case .literal(let v)? = term.whereExpr, case .bool = v {
            } else if case .literal(let v)? = term.whereExpr {
                error(
                    whereNode,
                    "'where' must be a condition (true or false), not the \(v.typeName) \(v.rendered(bare: false))"
                )
            }
        }
        return errors.count == errorsBefore ? term : nil
    }

    static func exactNames(_ p: Selector.Predicate) -> Set<String>? {
        switch p {
        case .equals(.string(let s)): return [s]
        case .oneOf(let options):
            var all = Set<String>()
            for o in options {
                guard let names = exactNames(o) else { return nil }
                all.formUnion(names)
            }
            return all
        default: return nil
        }
    }

    private static let operators: Set<String> = [
        "exists", "in", "not_in", "eq", "ne", "gt", "gte", "lt", "lte", "matches", "glob"
    ]

    private mutating func predicate(_ node: YamlNode, field: String) -> Selector.Predicate? {
        if let items = node.sequenceItems {
            var options: [Selector.Predicate] = []
            for item in items {
                guard item.scalar != nil else {
                    error(item, "a list of values must hold plain values")
                    return nil
                }
                options.append(scalarPredicate(item, field: field))
            }
            return .oneOf(options)
        }
        guard let pairs = node.mappingPairs else { return scalarPredicate(node, field: field) }
        var parts: [Selector.Predicate] = []
        for pair in pairs {
            let op = pair.key.scalar ?? ""
            let v = pair.value
            switch op {
            case "exists":
                guard case .bool(let b)? = typed(v) else {
                    error(v, "'exists' takes true or false")
                    continue
                }
                parts.append(.exists(b))
            case "in", "not_in":
                guard let items = v.sequenceItems else {
                    error(v, "'\(op)' takes a list of values")
                    continue
                }
                let values = items.compactMap { typed($0) }
                if values.count != items.count {
                    error(v, "'\(op)' takes a list of plain values")
                    continue
                }
                parts.append(op == "in" ? .oneOf(values.map { .equals($0) }) : .notIn(values))
            case "eq", "ne":
                guard let value = typed(v) else {
                    error(v, "'\(op)' takes a plain value")
                    continue
                }
                parts.append(op == "eq" ? .equals(value) : .not(.equals(value)))
            case "gt", "gte", "lt", "lte":
                guard let value = typed(v), value.number != nil || value.string != nil else {
                    error(v, "'\(op)' takes a number or a string")
                    continue
                }
                let binary: Expr.BinaryOp =
                    op == "gt"
                    ? .greater : op == "gte" ? .greaterEqual : op == "lt" ? .less : .lessEqual
                parts.append(.compare(binary, value))
            case "matches":
                guard let pattern = v.scalar else {
                    error(v, "'matches' takes a regular expression string")
                    continue
                }
                do throws(RegexSyntaxError) {
                    parts.append(.matches(try BoundedRegex(pattern)))
                } catch {
                    self.error(
                        v, "bad regular expression: \(error.message) (at offset \(error.offset))")
                }
            case "glob":
                guard let pattern = v.scalar else {
                    error(v, "'glob' takes a pattern string")
                    continue
                }
                parts.append(.glob(GlobPattern(pattern)))
            default:
                error(
                    pair.key,
                    "unknown test '\(op)' for field '\(field)' (expected one of \(Self.operators.sorted().joined(separator: ", ")))"
                )
            }
        }
        if parts.isEmpty { return nil }
        return parts.count == 1 ? parts[0] : .all(parts)
    }

    private func scalarPredicate(_ node: YamlNode, field: String) -> Selector.Predicate {
        let value = typed(node) ?? .null
        if field == "ev", case .string(let s) = value, GlobPattern.isGlob(s) {
            return .glob(GlobPattern(s))
        }
        return .equals(value)
    }

    // MARK: Values

    /// A scalar as a typed value: plain `true`/`false`/`null`/numbers are typed; quoted stays text.
    func typed(_ node: YamlNode) -> Value? {
        guard case .scalar(let s, let style) = node.kind else { return nil }
        guard style == .plain else { return .string(s) }
        switch s {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        default: break
        }
        if let i = Int64(s) { return .int(i) }
        if s.first.map({ $0.isNumber || $0 == "-" || $0 == "+" || $0 == "." }) == true,
            let d = Double(s), d.isFinite
        {
            return .double(d)
        }
        return .string(s)
    }

    private mutating func scalarString(_ node: YamlNode, _ key: String) -> String? {
        guard let s = node.scalar else {
            error(node, "'\(key)' must be text, found a \(node.kindName)")
            return nil
        }
        return s
    }

    private mutating func params(_ node: YamlNode) -> [String: Value] {
        guard let pairs = node.mappingPairs else {
            error(node, "'params' must be a map of names to values")
            return [:]
        }
        var out: [String: Value] = [:]
        for pair in pairs {
            guard let name = pair.key.scalar, isName(name) else {
                error(pair.key, "a param name must be a name such as timeout_ms")
                continue
            }
            guard let v = typed(pair.value) else {
                error(pair.value, "param '\(name)' must be a plain value")
                continue
            }
            out[name] = v
        }
        return out
    }

    /// `let:` bindings; `params` is nil at file level (a rule may add the params they name).
    private mutating func lets(
        _ node: YamlNode, params: [String: Value]?, paramsRead: ParamsRead = ParamsRead()
    ) -> [(name: String, expr: Expr)] {
        guard let pairs = node.mappingPairs else {
            error(node, "'let' must be a map of names to expressions")
            return []
        }
        // A rule reads its lets by name: a few are the rule, thousands are a generated file
        // gone wrong (and cost time to compile), so there is a limit.
        guard pairs.count <= Self.maxLets else {
            error(node, "\(pairs.count) lets in one 'let:' map; at most \(Self.maxLets)")
            return []
        }
        var out: [(name: String, expr: Expr)] = []
        // The names bound so far, grown in place (a set rebuilt per let is quadratic).
        var names = Set<String>()
        for pair in pairs {
            guard let name = pair.key.scalar, isName(name) else {
                error(pair.key, "a let name must be a name such as T")
                continue
            }
            warnIfHidesField(pair.key, name, "let")
            let e: Expr?
            do {
                // The context is gone before `names` grows, so the set is not copied.
                var context = NameContext(params: params, lets: names)
                context.paramsReadBox = paramsRead
                e = expression(pair.value, context: context)
            }
            if let e {
                out.append((name, e))
                names.insert(name)
                letTexts.append((name, pair.value.scalar ?? ""))
            }
        }
        return out
    }

    private func isName(_ s: String) -> Bool {
        guard let f = s.utf8.first,
            (f >= 0x41 && f <= 0x5A) || (f >= 0x61 && f <= 0x7A) || f == 0x5F
        else { return false }
        return s.utf8.allSatisfy {
            ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39)
                || $0 == 0x5F
        }
    }

    // MARK: Expressions

    /// Names in scope where an expression is written.
    struct NameContext {
        /// Params the rule defines; nil where params are not known yet (file-level `let:`).
        var params: [String: Value]?
        var lets: Set<String>
        /// Captures bound so far (visible here).
        var captures: Set<String> = []
        /// Every capture the rule binds somewhere (to report one used before it is bound).
        var allCaptures: Set<String> = []
        /// Whether `next(SEL)` (look-ahead) may be written here: only in the `expect:` of an
        /// `every` check and in its message, outside nested selectors.
        var allowsLookAhead = false
        /// Params read so far (shared through a box, so nested contexts count too).
        var paramsReadBox = ParamsRead()
        /// The nesting an expression written here starts at: 0 in the rules file, and inside an
        /// expression (a history call's selector) the depth of the call, plus one per `not:`
        /// around the term. Expression depth is bounded across selectors, so nothing that walks
        /// a rule recurses deeper than ``ExpressionParser/maxDepth`` levels of expressions.
        var depth = 0
        var paramsRead: Set<String> { paramsReadBox.names }
    }

    final class ParamsRead {
        var names = Set<String>()
    }

    /// Parses an expression scalar, reporting errors at the column inside the string.
    mutating func expression(_ node: YamlNode, context: NameContext) -> Expr? {
        guard case .scalar(let source, let style) = node.kind else {
            error(node, "expected an expression string, found a \(node.kindName)")
            return nil
        }
        let literal = typed(node)
        if style == .plain, let literal, literal.string == nil { return .literal(literal) }
        var nested: [Diagnostic] = []
        let selectorCompiler: ExpressionParser.SelectorCompiler = {
            text, offset, depth throws(ExpressionError) in
            var innerContext = context
            innerContext.allowsLookAhead = false
            innerContext.depth = depth
            return try FileLoader.compileSelector(
                text, offset: offset, context: &innerContext, warnings: &nested)
        }
        do {
            let expr = try ExpressionParser.parse(
                source, depth: context.depth, compileSelector: selectorCompiler)
            validateNames(expr, at: node, context: context, source: source, style: style)
            // A file-level let is read by rules whose captures it cannot know.
            if lint, context.params != nil {
                noteMemberNames(expr, at: node, source: source, style: style)
            }
            return expr
        } catch {
            errors.append(
                expressionDiagnostic(
                    node, source: source, style: style, offset: error.offset, message: error.message
                ))
            return nil
        }
    }

    /// Compiles a selector written inside an expression (a history function's first argument):
    /// its text as YAML, then the loader's selector rules. Errors point at `offset` plus their
    /// column in `text`; warnings are appended to `warnings`.
    static func compileSelector(
        _ text: String, offset: Int, context: inout NameContext, warnings: inout [Diagnostic]
    ) throws(ExpressionError) -> Selector {
        var inner = FileLoader(path: "<selector>", text: text)
        let docs: [YamlNode]
        do throws(Diagnostic) { docs = try YamlLoader.load(text, path: "<selector>") } catch {
            throw ExpressionError(
                message: "bad selector: \(error.message)", offset: offset + max(0, error.column - 1)
            )
        }
        guard let root = docs.first else {
            throw ExpressionError(message: "empty selector", offset: offset)
        }
        let compiled = inner.selector(root, context: &context)
        if let first = inner.errors.first {
            throw ExpressionError(message: first.message, offset: offset + max(0, first.column - 1))
        }
        warnings += inner.warnings
        guard let compiled else { throw ExpressionError(message: "bad selector", offset: offset) }
        return compiled
    }

    /// Compiles a selector with no params or lets in scope, for callers outside a rule file
    /// (tests, the expression fuzz target); `depth` as in ``ExpressionParser/SelectorCompiler``.
    static func compileSelector(_ text: String, _ offset: Int, _ depth: Int = 0)
        throws(ExpressionError) -> Selector
    {
        var context = NameContext(params: nil, lets: [])
        context.depth = depth
        var warnings: [Diagnostic] = []
        return try compileSelector(text, offset: offset, context: &context, warnings: &warnings)
    }

    /// Maps a byte offset inside a scalar to the file's line and column.
    func expressionDiagnostic(
        _ node: YamlNode, source: String, style: YamlNode.ScalarStyle, offset: Int, message: String
    ) -> Diagnostic {
        let target = min(max(0, offset), source.utf8.count)
        var line = node.line
        var column = node.column
        switch style {
        case .literal, .folded:
            // Each content line of a block scalar decodes to its text plus one byte (a newline, or
            // the space a folded break becomes), so decoded offsets can be walked line by line.
            var fileLine = node.line + 1
            var position = 0
            var blockIndent: Int?
            line = fileLine
            while fileLine <= lineCount {
                let raw = Array(sourceLine(fileLine).unicodeScalars)
                let blank = raw.allSatisfy { $0 == " " }
                if blockIndent == nil, !blank {
                    blockIndent = raw.prefix(while: { $0 == " " }).count
                }
                let indent = blockIndent ?? 0
                let content = blank ? [] : Array(raw.dropFirst(indent))
                let length = content.reduce(0) { $0 + String($1).utf8.count }
                line = fileLine
                if target <= position + length || fileLine == lineCount {
                    column = indent + 1 + Self.scalars(in: content, forBytes: target - position)
                    break
                }
                // A folded break followed by blank lines is dropped (the blank lines are the
                // breaks).
                let nextBlank =
                    fileLine < lineCount && sourceLine(fileLine + 1).allSatisfy { $0 == " " }
                position += length + (style == .folded && !blank && nextBlank ? 0 : 1)
                fileLine += 1
            }
        case .plain, .singleQuoted, .doubleQuoted:
            // Walk the raw text (after the opening quote), decoding escapes, until `target` bytes.
            // A flow scalar may go on over several lines: each line break, with the next line's
            // indentation, folds to one space.
            var fileLine = node.line
            var raw = Array(sourceLine(fileLine).unicodeScalars)
            var i = style == .plain ? node.column - 1 : node.column  // 0-based index of the text
            var decoded = 0
            /// Where the line's text ends before a break: trailing white space folds away with it.
            func textEnd(_ raw: [Unicode.Scalar]) -> Int {
                var end = raw.count
                while end > 0, raw[end - 1] == " " || raw[end - 1] == "\t" { end -= 1 }
                return end
            }
            var end = fileLine < lineCount ? textEnd(raw) : raw.count
            while decoded < target {
                if i >= end {
                    guard fileLine < lineCount else { break }
                    // A break folds to one space; a break followed by blank lines, to one newline
                    // per blank line.
                    var blanks = 0
                    fileLine += 1
                    while fileLine < lineCount,
                        textEnd(Array(sourceLine(fileLine).unicodeScalars)) == 0
                    {
                        blanks += 1
                        fileLine += 1
                    }
                    raw = Array(sourceLine(fileLine).unicodeScalars)
                    end = fileLine < lineCount ? textEnd(raw) : raw.count
                    i = raw.prefix(while: { $0 == " " || $0 == "\t" }).count
                    decoded += max(1, blanks)
                    continue
                }
                let c = raw[i]
                if style == .doubleQuoted, c == "\\", i + 1 == raw.count, fileLine < lineCount {
                    // An escaped line break: it and the next line's indentation decode to nothing.
                    fileLine += 1
                    raw = Array(sourceLine(fileLine).unicodeScalars)
                    end = fileLine < lineCount ? textEnd(raw) : raw.count
                    i = raw.prefix(while: { $0 == " " || $0 == "\t" }).count
                    continue
                }
                if style == .doubleQuoted, c == "\\", i + 1 < raw.count {
                    switch raw[i + 1] {
                    case "x": i += 4; decoded += 1
                    case "u": i += 6; decoded += 2
                    case "U": i += 10; decoded += 3
                    default: i += 2; decoded += 1
                    }
                } else if style == .singleQuoted, c == "'", i + 1 < raw.count, raw[i + 1] == "'" {
                    i += 2
                    decoded += 1
                } else {
                    i += 1
                    decoded += String(c).utf8.count
                }
            }
            line = fileLine
            column = i + 1
        }
        return Diagnostic(
            path: path, line: line, column: column, message: message, sourceLine: sourceLine(line))
    }

    /// How many scalars of `text` hold its first `bytes` UTF-8 bytes.
    static func scalars(in text: [Unicode.Scalar], forBytes bytes: Int) -> Int {
        var n = 0
        var used = 0
        while n < text.count, used < bytes {
            used += String(text[n]).utf8.count
            n += 1
        }
        return n + max(0, bytes - used)
    }

    /// Checks `params.x` names against the rule's params, and captures used before they are bound.
    private mutating func validateNames(
        _ expr: Expr, at node: YamlNode, context: NameContext, source: String? = nil,
        style: YamlNode.ScalarStyle = .plain
    ) {
        var problems: [(String, Int)] = []
        NameWalker.walk(expr, intoSelectors: false) { e in
            switch e {
            case .name(let name, let at, _):
                if context.allCaptures.contains(name), !context.captures.contains(name),
                    !context.lets.contains(name)
                {
                    problems.append(
                        (
                            "capture '\(name)' is used before it is bound (as: \(name) comes later)",
                            at
                        ))
                }
            case .member(.name("params", _, _), let name, _, let at):
                context.paramsReadBox.names.insert(name)
                if let params = context.params, params[name] == nil,
                    !context.lets.contains("params")
                {
                    let known =
                        params.isEmpty
                        ? "this rule defines no params"
                        : "this rule defines: \(params.keys.sorted().joined(separator: ", "))"
                    problems.append(("unknown param '\(name)' (\(known))", at))
                }
            case .history(let call):
                if call.kind == .next, !context.allowsLookAhead {
                    problems.append(
                        (
                            "next() (look-ahead) can be used only in the expect: of an every check and in its message; elsewhere use each/followed_by",
                            call.at
                        ))
                } else if call.kind == .next, call.since != nil {
                    problems.append(
                        ("next() looks forward from the current event: it takes no since:", call.at)
                    )
                }
                if case .capture(let name)? = call.since, !context.captures.contains(name) {
                    problems.append(("'since: \(name)' names no capture bound before it", call.at))
                }
            default: break
            }
        }
        for (message, at) in problems {
            if let source {
                errors.append(
                    expressionDiagnostic(
                        node, source: source, style: style, offset: at, message: message))
            } else {
                error(node, message)
            }
        }
    }

    // MARK: Messages and fixtures

    private mutating func template(_ node: YamlNode, context: NameContext) -> MessageTemplate? {
        guard case .scalar(let s, let style) = node.kind else {
            error(node, "'message' must be text")
            return nil
        }
        var parts: [MessageTemplate.Part] = []
        var literal = ""
        // Characters, walked by index (a brace with a combining mark on it is no brace); offsets
        // are UTF-8 bytes from the scalar's start.
        func offset(_ i: String.Index) -> Int { s.utf8.distance(from: s.startIndex, to: i) }
        var i = s.startIndex
        while i < s.endIndex {
            let c = s[i]
            let next = s.index(after: i)
            if c == "{", next < s.endIndex, s[next] == "{" {
                literal.append("{"); i = s.index(after: next); continue
            }
            if c == "}", next < s.endIndex, s[next] == "}" {
                literal.append("}"); i = s.index(after: next); continue
            }
            if c == "{" {
                var depth = 1
                var j = next
                while j < s.endIndex {
                    if s[j] == "{" { depth += 1 }
                    if s[j] == "}" { depth -= 1 }
                    if depth == 0 { break }
                    j = s.index(after: j)
                }
                guard j < s.endIndex else {
                    errors.append(
                        expressionDiagnostic(
                            node, source: s, style: style, offset: offset(i),
                            message: "unclosed '{' in message"))
                    return nil
                }
                let inner = String(s[next..<j])
                // Where the hole's text starts in the file (after the `{`), in any scalar style:
                // its errors are placed from there.
                let start = expressionDiagnostic(
                    node, source: s, style: style, offset: offset(next), message: "")
                let fake = YamlNode(
                    .scalar(inner, style: .plain), line: start.line, column: start.column)
                guard let e = expression(fake, context: context) else { return nil }
                if !literal.isEmpty { parts.append(.text(literal)); literal = "" }
                parts.append(.expr(e))
                i = s.index(after: j)
                continue
            }
            literal.append(c)
            i = next
        }
        if !literal.isEmpty { parts.append(.text(literal)) }
        return MessageTemplate(parts: parts)
    }

    /// A rule's `tests:`; `params` are the rule's, which a fixture's `params:` may set.
    private mutating func fixtures(_ node: YamlNode, params ruleParams: [String: Value])
        -> [Fixture]
    {
        guard let items = node.sequenceItems else {
            error(node, "'tests' must be a list of fixtures")
            return []
        }
        var out: [Fixture] = []
        for item in items {
            guard item.mappingPairs != nil else {
                error(item, "a fixture must be a map with name, log and expect")
                continue
            }
            for pair in item.mappingPairs! {
                let key = pair.key.scalar ?? ""
                if !["name", "log", "expect", "violations", "params"].contains(key) {
                    error(
                        pair.key,
                        "unknown key '\(key)' in a fixture (expected name, log, expect, violations, params)"
                    )
                }
            }
            let name = item["name"]?.scalar ?? "fixture at line \(item.line)"
            guard let log = item["log"]?.scalar else {
                error(item, "fixture '\(name)': missing 'log'")
                continue
            }
            guard let e = item["expect"], let s = e.scalar,
                let expected = Fixture.Expected(rawValue: s)
            else {
                error(
                    item["expect"] ?? item,
                    "fixture '\(name)': 'expect' must be pass, fail, inconclusive or not_applicable"
                )
                continue
            }
            var violations: Int?
            if let v = item["violations"] {
                violations = count(v, "violations")
                // Only a failing fixture has violations: any other expectation with some never
                // holds.
                if let n = violations, n > 0, expected != .fail {
                    error(
                        v,
                        "fixture '\(name)': 'violations: \(n)' with 'expect: \(expected.rawValue)' can never hold (violations make a rule fail)"
                    )
                }
            }
            let logNode = item["log"]!
            var fixture = Fixture(
                name: name, log: log, expect: expected, violations: violations, line: item.line,
                logStartLine: logNode.line, logIsLiteralBlock: logNode.scalarStyle == .literal)
            if let p = item["params"] {
                fixture.params = fixtureParams(p, fixture: name, rule: ruleParams)
            }
            out.append(fixture)
        }
        return out
    }

    /// A fixture's `params:`: each a param of the rule, of its default's kind (a number for a
    /// number, a boolean for a boolean; a whole number >= 0 for a count's bound), as `--param`
    /// takes them.
    private mutating func fixtureParams(_ node: YamlNode, fixture: String, rule: [String: Value])
        -> [String: Value]
    {
        var out = params(node)
        for pair in node.mappingPairs ?? [] {
            guard let name = pair.key.scalar, let value = out[name] else { continue }
            guard let given = rule[name] else {
                let known = rule.keys.sorted().joined(separator: ", ")
                error(
                    pair.key,
                    "fixture '\(fixture)': '\(name)' is not a param of the rule (\(known.isEmpty ? "it has none" : "its params: " + known))"
                )
                out[name] = nil
                continue
            }
            let sameKind: Bool
            switch given {
            case .int, .double: sameKind = value.number != nil
            case .bool: if case .bool = value { sameKind = true } else { sameKind = false }
            default: sameKind = true
            }
            if !sameKind {
                error(
                    pair.value,
                    "fixture '\(fixture)': param '\(name)' must be of its default's kind (default \(given.rendered()))"
                )
                out[name] = nil
            } else if pendingBoundParams.values.contains(name), Self.wholeCount(value) == nil {
                error(
                    pair.value,
                    "fixture '\(fixture)': the rule counts with param '\(name)': it needs a whole number >= 0"
                )
                out[name] = nil
            }
        }
        return out
    }
}

// MARK: - Walking expressions

enum NameWalker {
    /// Visits every sub-expression, each before its operands and those left to right; with
    /// `intoSelectors`, also the `where:` expressions of selectors inside history calls (after
    /// the call's value). The nodes still to visit wait on a stack of their own, so a deep tree
    /// costs memory, not call stack, and no closure is made per node.
    static func walk(_ e: Expr, intoSelectors: Bool = true, _ visit: (Expr) -> Void) {
        var pending: [Expr] = [e]
        while let x = pending.popLast() {
            visit(x)
            // Pushed last operand first, so the first is visited next.
            switch x {
            case .literal, .name, .field: break
            case .member(let b, _, _, _): pending.append(b)
            case .index(let a, let b): pending.append(b); pending.append(a)
            case .list(let items): pending.append(contentsOf: items.reversed())
            case .map(let entries): pending.append(contentsOf: entries.reversed().map(\.1))
            case .unary(_, let a): pending.append(a)
            case .binary(_, let a, let b, _): pending.append(b); pending.append(a)
            case .conditional(let a, let b, let c):
                pending.append(c); pending.append(b); pending.append(a)
            case .call(_, let args, _): pending.append(contentsOf: args.reversed())
            case .regex(let subject, _): pending.append(subject)
            case .history(let call):
                if intoSelectors {
                    if case .selector(let s)? = call.since {
                        pending.append(contentsOf: whereExpressions(of: s).reversed())
                    }
                    pending.append(contentsOf: whereExpressions(of: call.selector).reversed())
                }
                if let v = call.value { pending.append(v) }
            }
        }
    }

    static func walkSelector(_ s: Selector, _ visit: (Expr) -> Void) {
        for w in whereExpressions(of: s) { walk(w, visit) }
    }

    /// The `where:` expressions of `s`'s terms and of their `not:` selectors, in written order,
    /// each once and whole. A pass that walks each expression itself takes these: handed every
    /// sub-expression by ``walkSelector(_:_:)``, it would walk each node once per node above it.
    static func whereExpressions(of s: Selector) -> [Expr] {
        var out: [Expr] = []
        func add(_ s: Selector) {
            for term in s.terms {
                if let w = term.whereExpr { out.append(w) }
                if let n = term.negated { add(n) }
            }
        }
        add(s)
        return out
    }
}

/// Collects the event fields a rule can read, so the reader decodes only those.
enum FieldCollector {
    static func collect(_ rule: Rule, into names: inout Set<String>) {
        // Selectors are walked here (their tests name fields too), so the walk does not go into
        // them as well: each level of calls in selectors would walk the levels below it twice.
        func expr(_ e: Expr) {
            NameWalker.walk(e, intoSelectors: false) { sub in
                switch sub {
                case .name(let n, _, _), .field(let n, _): names.insert(n)
                case .member(_, let n, _, _): names.insert(n)
                case .history(let call):
                    selector(call.selector)
                    if case .selector(let s)? = call.since { selector(s) }
                default: break
                }
            }
        }
        func selector(_ s: Selector) {
            for term in s.terms {
                for test in term.tests { names.insert(test.field) }
                if let w = term.whereExpr { expr(w) }
                if let n = term.negated { selector(n) }
            }
        }
        for (_, e) in rule.lets { expr(e) }
        names.formUnion(rule.findingFields)
        rule.check.selectors.forEach(selector)
        rule.check.expressions.forEach(expr)
        if let message = rule.message {
            for part in message.parts { if case .expr(let e) = part { expr(e) } }
        }
    }
}

extension Check {
    /// Every selector the check names directly (not those inside expressions).
    var selectors: [Selector] {
        func steps(_ s: Sequence) -> [Selector] {
            s.steps.flatMap { [$0.selector] + ($0.without.map { [$0] } ?? []) }
        }
        switch self {
        case .every(let s, let expect, _):
            if case .selector(let e) = expect { return [s, e] }
            return [s]
        case .never(let s, let scope):
            switch scope {
            case .global: return [s]
            case .window(let a, let b): return [s] + [a, b].compactMap { $0 }
            case .intervals(let f, let t, _): return [s, f, t]
            }
        case .count(let s, _, _, _): return [s]
        case .response(let t, let f, _, let u, _): return steps(t) + [f] + (u.map { [$0] } ?? [])
        case .precedence(let t, let p): return steps(t) + [p]
        case .neverAfter(let t, let n): return steps(t) + [n]
        case .forbid(let q, let w): return steps(q) + (w.map { [$0] } ?? [])
        case .classify(let c, _, _, let a):
            return c.labels.flatMap { [$0.has, $0.lacks].compactMap { $0 } }
                + (a.map { [$0] } ?? [])
        }
    }

    /// Expressions the check holds outside selectors.
    var expressions: [Expr] {
        switch self {
        case .every(_, .expression(let e), _): return [e]
        case .count(_, _, _, let by?): return [by]
        case .response(_, _, let within?, _, _): return [within]
        default: return []
        }
    }
}
