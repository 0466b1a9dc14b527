#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - One file

/// Turns one file's YAML nodes into rules, collecting every error.
struct FileLoader {
    let path: String
    /// What the YAML is read from (``init(path:text:parsed:)``).
    let parsed: String
    var errors: [Diagnostic] = []
    var warnings: [Diagnostic] = []
    /// The source text of every `let:` binding read so far, for `rules --explain`.
    var letTexts: [(name: String, text: String)] = []
    /// The rule being loaded: its `min`/`max` written as `params.NAME` (``Rule/boundParams``).
    var pendingBoundParams: [String: String] = [:]
    /// The rule being loaded: names read as `x.f`, and the captures its expressions bind
    /// (``noteMemberNames(_:at:source:style:)``).
    var memberReads: [MemberRead] = []
    /// Whether to look for likely misspellings (``RuleLoader/load(files:lint:)``).
    var lint = true
    var expressionCaptures: Set<String> = []
    /// The text's bytes, and where each line starts in them (a last entry past the end).
    let bytes: [UInt8]
    let lineStarts: [Int]
    /// How many lines the text has.
    var lineCount: Int { lineStarts.count - 1 }

    /// The file at `path` holding `text`, its YAML read from `parsed` (the same lines, some of
    /// them blank; by default `text` itself).
    init(path: String, text: String, parsed: String? = nil) {
        self.path = path
        self.parsed = parsed ?? text
        bytes = Array(text.utf8)
        lineStarts = bytes.withUnsafeBufferPointer { b in
            var starts = [0]
            guard let base = b.baseAddress else { return [0, 1] }
            var i = 0
            while i < b.count, let hit = memchr(base + i, 0x0A, b.count - i) {
                i = base.distance(to: hit.assumingMemoryBound(to: UInt8.self)) + 1
                starts.append(i)
            }
            starts.append(b.count + 1)
            return starts
        }
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
        // Every rule of the file reads its lets: each is walked for the depth bound once.
        let fileLetWalks = fileLets.map { Self.letWalk($0.expr) }
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
            if var loaded = rule(
                item, fileParams: fileParams, fileLets: fileLets, fileLetWalks: fileLetWalks)
            {
                loaded.0.letTexts = letTexts
                out.append(loaded)
            }
        }
        return out
    }

    // MARK: Rule

    mutating func rule(
        _ node: YamlNode, fileParams: [String: Value], fileLets: [(name: String, expr: Expr)],
        fileLetWalks: [LetWalk]
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
        let text = RuleText(bytes: bytes, lineStarts: lineStarts, node: node)
        var rule = Rule(
            id: id, title: title, severity: severity, description: description, scope: scope,
            params: ruleParams, lets: ruleLets, check: check, message: message, tests: tests,
            file: path, line: node.line, text: text)
        rule.boundParams = pendingBoundParams
        rule.testsLines = testsLines(of: node, text: text)
        if let (letName, depth) = Self.evaluationTooDeep(rule, fileLetWalks: fileLetWalks) {
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
    func testsLines(of node: YamlNode, text: RuleText) -> Range<Int>? {
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
            end = node.line + text.lines().count
        }
        // (Never an empty or inverted range, whatever the text's bounds came to.)
        guard end > key.line else { return nil }
        return (key.line - node.line)..<(end - node.line)
    }

}
