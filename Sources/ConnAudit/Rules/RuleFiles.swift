#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
