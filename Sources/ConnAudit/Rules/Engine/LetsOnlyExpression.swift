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
        expr.readsOnly { e in
            switch e {
            case .name(let name, _, _):
                return lets.contains(name)
            case .field, .history, .regex:
                return false
            case .member(.name("params", _, _), _, _, _) where !lets.contains("params"):
                return !captures.contains("params")
            default:
                return nil
            }
        }
    }
}
