/// Stable identities of findings, for SARIF `partialFingerprints` and baselines.
///
/// A fingerprint names what was found, not where the line happens to be: the rule, the file, the
/// source, the generation, the event's `ev` and `t`, and which occurrence of that combination it
/// is. Lines added elsewhere in a log (or the file's lines shifting) leave it unchanged; a change
/// to the offending event itself makes a new one. Findings that point at no line (coverage rules)
/// are identified by the rule and their subject (the missing label).
public enum Fingerprint {
    /// Fingerprints of a rule's findings, in the order given (occurrences counted in that order).
    public static func of(_ findings: [Finding], rule: String, paths: [String]) -> [String] {
        var seen: [String: Int] = [:]
        return findings.map { f in
            let key = identity(f, rule: rule, paths: paths)
            let n = seen[key, default: 0]
            seen[key] = n + 1
            return hex(fnv1a64(key + "\u{1F}" + String(n)))
        }
    }

    /// Fingerprints of a rule's findings given one at a time in report order, as
    /// ``of(_:rule:paths:)`` gives them for a list in report order. An identity names its file's path, and report order lists a file's findings
    /// together: the occurrences counted are those of one file at a time, unless two files of the
    /// run have one path.
    struct Occurrences {
        private let rule: String
        private let paths: [String]
        private let pathsRepeat: Bool
        private var seen: [String: Int] = [:]
        private var file: Int32?

        init(rule: String, paths: [String]) {
            self.rule = rule
            self.paths = paths
            pathsRepeat = Set(paths).count != paths.count
        }

        /// The fingerprint of `f`, the next finding in report order.
        mutating func next(_ f: Finding) -> String {
            if f.file != file {
                if !pathsRepeat { seen.removeAll(keepingCapacity: true) }
                file = f.file
            }
            let key = Fingerprint.identity(f, rule: rule, paths: paths)
            let n = seen[key, default: 0]
            seen[key] = n + 1
            return Fingerprint.hex(Fingerprint.fnv1a64(key + "\u{1F}" + String(n)))
        }
    }

    static func identity(_ f: Finding, rule: String, paths: [String]) -> String {
        guard let file = f.file else {
            return [rule, "corpus", f.subject ?? f.message].joined(separator: "\u{1F}")
        }
        let path = Int(file) < paths.count ? paths[Int(file)] : ""
        return [
            rule, path, f.source?.src ?? "", f.source?.session ?? "", f.gen.map(String.init) ?? "",
            f.ev ?? "", f.t.map(NumberText.json) ?? ""
        ].joined(separator: "\u{1F}")
    }

    /// FNV-1a, 64 bits (``FNV1a``).
    static func fnv1a64(_ s: String) -> UInt64 { FNV1a.hash64(bytes: s.utf8) }

    static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}

extension Fingerprint {
    /// Fingerprints of a result's violations, baselined and suppressed violations, computed over
    /// all of them together in report order (``Finding/precedes(_:_:)``): the occurrence counts,
    /// and so every fingerprint, are the same whether or not a baseline or a suppression moved
    /// some of them aside.
    public static func of(_ r: RuleResult, paths: [String])
        -> (violations: [String], baselined: [String], suppressed: [String])
    {
        if r.baselined.isEmpty, r.suppressed.isEmpty {
            return (of(r.violations, rule: r.rule.id, paths: paths), [], [])
        }
        // (finding, list, index in that list), merged back into report order; ties keep list order.
        var all = r.violations.enumerated().map { (f: $0.element, list: 0, i: $0.offset) }
        all += r.baselined.enumerated().map { (f: $0.element, list: 1, i: $0.offset) }
        all += r.suppressed.enumerated().map { (f: $0.element, list: 2, i: $0.offset) }
        all.sort { a, b in
            if Finding.precedes(a.f, b.f) { return true }
            if Finding.precedes(b.f, a.f) { return false }
            return (a.list, a.i) < (b.list, b.i)
        }
        let fps = of(all.map(\.f), rule: r.rule.id, paths: paths)
        var lists: [[String]] = [r.violations.count, r.baselined.count, r.suppressed.count].map {
            [String](repeating: "", count: $0)
        }
        for (entry, fp) in zip(all, fps) { lists[entry.list][entry.i] = fp }
        return (lists[0], lists[1], lists[2])
    }
}
