/// A name read as `x.f` must be something the rule binds: a let, a capture (`as:` in any
/// selector, an expression's ones included) or a named `first`/`last`/`next` result. Anything
/// else is a misspelt or missing capture (`oo.gen` where the capture is `o`): a bare name the
/// rule does not bind is the current event's field, and `.f` of it would quietly read null for
/// every event. A load error, at the name; inside a history call's selector, at the call.
///
/// A capture's field is looked at too: when every event its selector names is one connlog
/// defines (``ConnlogVocabulary``), none of them carries `f`, and `f` is a near miss of a field
/// they do carry (`c.gne`), the rule gets a warning. Any other field is taken as the app's own.
///
/// Whether a name is bound is known only once the whole rule is read (a message may read a
/// result its `expect:` names), so the names are noted as expressions are read and judged at
/// the rule's end. A key of an object field is read with brackets: `headers['host']`.
extension FileLoader {
    /// A name read as `x.f`, and where.
    struct MemberRead {
        var name: String
        var field: String
        var node: YamlNode
        var source: String
        var style: YamlNode.ScalarStyle
        var at: Int
    }

    /// Notes the names `expr` reads a member of, and the captures it binds.
    mutating func noteMemberNames(
        _ expr: Expr, at node: YamlNode, source: String, style: YamlNode.ScalarStyle
    ) {
        var found: [(name: String, field: String, at: Int)] = []
        var captures: [String] = []
        NameWalker.walk(expr, intoSelectors: false) { e in
            switch e {
            case .member(.name(let name, let at, _), let field, _, _):
                found.append((name, field, at))
            case .history(let call):
                // Selectors inside the call: their captures, and their members at the call.
                var selectors = [call.selector]
                if case .selector(let s)? = call.since { selectors.append(s) }
                for s in selectors {
                    captures += CompiledRule.captureNames(s)
                    NameWalker.walkSelector(s) { inner in
                        switch inner {
                        case .member(.name(let name, _, _), let field, _, _):
                            found.append((name, field, call.at))
                        case .history(let nested):
                            captures += CompiledRule.captureNames(nested.selector)
                            if case .selector(let s)? = nested.since {
                                captures += CompiledRule.captureNames(s)
                            }
                        default: break
                        }
                    }
                }
            default: break
            }
        }
        expressionCaptures.formUnion(captures)
        for (name, field, at) in found where name != "params" {
            memberReads.append(
                MemberRead(
                    name: name, field: field, node: node, source: source, style: style, at: at))
        }
    }

    /// The errors for the noted names that neither `lets`, the captures of the rule's YAML
    /// selectors (`captures`) nor its expressions bind, and the warnings for the near-miss
    /// fields of captures of `check`'s selectors; the notes are then cleared.
    mutating func judgeMemberReads(lets: Set<String>, captures: Set<String>, check: Check?)
        -> (errors: [Diagnostic], warnings: [Diagnostic])
    {
        defer {
            memberReads = []
            expressionCaptures = []
        }
        var errors: [Diagnostic] = []
        var warnings: [Diagnostic] = []
        let events = check.map { Self.capturedEvents(of: $0) } ?? [:]
        for read in memberReads {
            let (name, field) = (read.name, read.field)
            if !lets.contains(name), !captures.contains(name), !expressionCaptures.contains(name) {
                errors.append(
                    diagnostic(
                        read,
                        "'\(name)' is not a capture, let or result of this rule (in \(name).\(field)); a key of an object field is read as \(name)['\(field)']"
                    ))
            } else if !lets.contains(name), let evs = events[name] ?? nil,
                let hint = Self.nearMissHint(field, of: evs)
            {
                var d = diagnostic(
                    read,
                    "no \(evs.sorted().joined(separator: " or ")) event carries '\(field)' in connlog (\(name).\(field))\(hint)"
                )
                d.severity = .warning
                warnings.append(d)
            }
        }
        return (errors, warnings)
    }

    private func diagnostic(_ read: MemberRead, _ message: String) -> Diagnostic {
        expressionDiagnostic(
            read.node, source: read.source, style: read.style, offset: read.at, message: message)
    }

    /// The events each capture of `check` may hold: nil for a capture whose selector leaves `ev`
    /// open or names an event connlog does not define.
    static func capturedEvents(of check: Check) -> [String: Set<String>?] {
        var out: [String: Set<String>?] = [:]
        NameWalker.walkTerms(check) { term in
            guard let c = term.capture else { return }
            // What the capture may hold so far: nothing yet when it is new, nil when open.
            let sofar: Set<String>? = out[c] ?? .some(Set())
            if let names = term.evNames, names.allSatisfy(ConnlogVocabulary.defines),
                let known = sofar
            {
                out[c] = .some(known.union(names))
            } else {
                out[c] = .some(nil)
            }
        }
        return out
    }

    /// ` (did you mean 'gen'?)` when `field` is carried by none of `events` but is a near miss of
    /// one they carry; nil otherwise (carried, or a field of the app's own).
    static func nearMissHint(_ field: String, of events: Set<String>) -> String? {
        let carried = events.reduce(into: ConnlogVocabulary.anyEventFields) {
            $0.formUnion(ConnlogVocabulary.fields[$1] ?? [])
        }
        guard !carried.contains(field) else { return nil }
        let hint = Suggestions.hint(for: field, among: Array(carried))
        return hint.isEmpty ? nil : hint
    }
}
