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
    /// aggregate, a search). With the cross-check on, the count is compared with a scan's
    /// answer as ``answer(_:_:context:)``'s would be: the path is checked where it is taken.
    @inline(__always) final func countedAnswer(_ call: HistoryCall, _ context: EvalContext)
        -> Int?
    {
        if let check = crossCheck { return checkedCount(call, context, check) }
        let plan = historyPlans[call.slot]
        guard plan.pointee.aggregate < 0, plan.pointee.counted else { return nil }
        return counted[call.slot]?._withUnsafeGuaranteedRef { $0.count(context) }
    }

    /// ``countedAnswer(_:_:)`` with the cross-check on: the count is compared with the scan's
    /// answer, in the form ``CountedCall`` answers a call.
    @inline(never) private func checkedCount(
        _ call: HistoryCall, _ context: EvalContext, _ check: HistoryCrossCheck
    ) -> Int? {
        let plan = historyPlans[call.slot]
        guard plan.pointee.aggregate < 0, plan.pointee.counted,
            let n = counted[call.slot]?._withUnsafeGuaranteedRef({ $0.count(context) })
        else { return nil }
        let answer: Eval = call.existence ? (n > 0 ? .true : .null) : .value(.int(Int64(n)))
        crossCheck(call, answer, context, check)
        return n
    }
}
