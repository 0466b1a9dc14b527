/// A name read as `x.f` must be something the rule binds: a let, a capture (`as:` in any
/// selector, an expression's ones included) or a named `first`/`last`/`next` result. Anything
/// else is a misspelt or missing capture (`oo.gen` where the capture is `o`): a bare name the
/// rule does not bind is the current event's field, and `.f` of it would quietly read null for
/// every event. A load error, at the name; inside a history call's selector, at the call.
///
/// Whether a name is bound is known only once the whole rule is read (a message may read a
/// result its `expect:` names), so the names are noted as expressions are read and judged at
/// the rule's end. A key of an object field is read with brackets: `headers['host']`.
extension FileLoader {
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
            let message =
                "'\(name)' is not a capture, let or result of this rule (in \(name).\(field)); a key of an object field is read as \(name)['\(field)']"
            memberNames.append(
                (
                    name,
                    expressionDiagnostic(
                        node, source: source, style: style, offset: at, message: message)
                ))
        }
    }

    /// The errors for the noted names that neither `declared` (the rule's lets and the captures
    /// of its YAML selectors) nor its expressions bind; the notes are then cleared.
    mutating func unboundMemberNames(declared: Set<String>) -> [Diagnostic] {
        let out = memberNames.filter {
            !declared.contains($0.name) && !expressionCaptures.contains($0.name)
        }.map(\.diagnostic)
        memberNames = []
        expressionCaptures = []
        return out
    }
}
