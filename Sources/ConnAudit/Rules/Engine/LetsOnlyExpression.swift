/// Whether an expression reads nothing but literals, params and the rule's lets.
///
/// In a context whose lets are frozen (an obligation's), such an expression has one value for
/// every context that holds the same let scope, whatever its event and captures: the lets are
/// evaluated once in that scope, and params are the runner's. It reads no field of the current
/// event, no capture, no history (which would spend work and bind names) and no regex (which
/// would spend steps).
enum LetsOnlyExpression {
    /// - Parameters:
    ///   - lets: the names of the rule's let table.
    ///   - captures: every name the rule's steps capture (a capture named `params` hides the
    ///     params from `params.x`).
    static func holds(_ expr: Expr, lets: [String], captures: [String]) -> Bool {
        let reads = { (e: Expr) in holds(e, lets: lets, captures: captures) }
        switch expr {
        case .literal:
            return true
        case .name(let name, _, _):
            return lets.contains(name)
        case .field, .history, .regex:
            return false
        case .member(let base, _, _, _):
            if case .name(let name, _, _) = base, name == "params", !lets.contains(name) {
                return !captures.contains(name)
            }
            return reads(base)
        case .index(let base, let index):
            return reads(base) && reads(index)
        case .list(let items):
            return items.allSatisfy(reads)
        case .map(let entries):
            return entries.allSatisfy { reads($0.1) }
        case .unary(_, let operand):
            return reads(operand)
        case .binary(_, let l, let r, _):
            return reads(l) && reads(r)
        case .conditional(let c, let a, let b):
            return reads(c) && reads(a) && reads(b)
        case .call(_, let args, _):
            return args.allSatisfy(reads)
        }
    }
}
