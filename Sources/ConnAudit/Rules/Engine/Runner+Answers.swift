/// How a runner answers a history call from its plan (``HistoryPlans``): a running aggregate, a
/// counted index, or a search of its candidates (`Runner+Candidates.swift`).
extension Runner {
    /// The answer of a static history call, from its running aggregate (``aggregateAnswer(_:_:)``),
    /// or of a counted one, from its index; nil for other calls.
    func answer(_ call: HistoryCall, context: EvalContext) -> Eval? {
        answer(call, historyPlans[call.slot], context: context)
    }

    /// ``answer(_:context:)`` by `call`'s plan.
    @inline(__always) final func answer(
        _ call: HistoryCall, _ plan: UnsafePointer<HistoryPlans.Plan>, context: EvalContext
    ) -> Eval? {
        let aggregate = plan.pointee.aggregate
        if aggregate >= 0 {
            return call.kind == .next ? nil : aggregateAnswer(Int(aggregate), call.kind)
        }
        guard plan.pointee.counted else { return nil }
        return counted[call.slot]?._withUnsafeGuaranteedRef {
            $0.answer(context, existence: call.existence)
        }
    }

    /// The answer of `call` in `context`: its plan's, read once (``HistoryPlans``).
    @inline(__always) final func plannedAnswer(_ call: HistoryCall, _ context: EvalContext)
        -> Eval
    {
        let plan = historyPlans[call.slot]
        if let ready = answer(call, plan, context: context) { return ready }
        return Evaluator.search(
            call, context, candidates(for: call, plan, context: context), provider: self)
    }

    /// The count a ``CountedCall`` answers `call` with in `context` (for an existence test,
    /// whether it finds one: more than 0); nil when its plan answers it otherwise (a running
    /// aggregate, a search) or the cross-check is on (``plannedAnswer(_:_:)`` checks it).
    @inline(__always) final func countedAnswer(_ call: HistoryCall, _ context: EvalContext)
        -> Int?
    {
        guard crossCheck == nil else { return nil }
        let plan = historyPlans[call.slot]
        guard plan.pointee.aggregate < 0, plan.pointee.counted else { return nil }
        return counted[call.slot]?._withUnsafeGuaranteedRef { $0.count(context) }
    }
}
