extension Expr {
    /// Whether every part of the expression passes `judge`.
    ///
    /// `judge` answers for a node itself (true: it passes, its operands unread; false: the whole
    /// fails) or nil to look at its operands instead. A node without operands that `judge`
    /// leaves open passes. The one walk behind the "reads only …" questions a compiled rule asks
    /// of an expression (``LetsOnlyExpression``, a sequence's kept first-step `where:`), each
    /// saying only which leaves it accepts.
    func readsOnly(_ judge: (Expr) -> Bool?) -> Bool {
        if let answer = judge(self) { return answer }
        switch self {
        case .literal, .name, .field, .history:
            return true
        case .member(let base, _, _, _):
            return base.readsOnly(judge)
        case .regex(let subject, _):
            return subject.readsOnly(judge)
        case .index(let base, let index):
            return base.readsOnly(judge) && index.readsOnly(judge)
        case .list(let items):
            return items.allSatisfy { $0.readsOnly(judge) }
        case .map(let entries):
            return entries.allSatisfy { $0.1.readsOnly(judge) }
        case .unary(_, let operand):
            return operand.readsOnly(judge)
        case .binary(_, let l, let r, _):
            return l.readsOnly(judge) && r.readsOnly(judge)
        case .conditional(let c, let a, let b):
            return c.readsOnly(judge) && a.readsOnly(judge) && b.readsOnly(judge)
        case .call(_, let args, _):
            return args.allSatisfy { $0.readsOnly(judge) }
        }
    }
}
