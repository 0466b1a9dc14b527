#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Evaluator {
    static func history(_ call: HistoryCall, _ ctx: EvalContext, _ e: Event) -> Eval {
        // History providers read the current event from the context: one looking at `e` (a copy
        // only when `e` is a nested selector's candidate). The engine's runner is called
        // directly, with no closure around the call; any other provider through the protocol.
        let result: Eval
        if let runner = ctx.runnerRef {
            result =
                ctx.isLooking(at: e)
                ? runnerAnswer(call, ctx, runner) : runnerAnswer(call, ctx.looking(at: e), runner)
        } else {
            result =
                ctx.isLooking(at: e)
                ? providerAnswer(call, ctx) : providerAnswer(call, ctx.looking(at: e))
        }
        if let results = ctx.historyResults {
            let names = call.resultCaptures
            if !names.isEmpty {
                // The name of the term that matched the event found is that event; the others null.
                var matched: String?
                if case .event(let found) = result {
                    matched = matches(call.selector, found, ctx)?.capture(in: call.selector)
                }
                for name in names {
                    if case .event(let e) = result, name == matched {
                        results.bind(name, e)
                    } else {
                        results.bind(name, nil)
                    }
                }
            }
        }
        return result
    }

    /// How many events a counted `call` (``CountedCall``) finds in `ctx` looking at `e`, read
    /// from its index with no ``Eval``; nil when the call is not answered so (no engine runner,
    /// another event looked at, no counted index for it): then ``history(_:_:_:)`` answers it.
    /// A counted call binds no result (``CountedShape``).
    @inline(__always) static func countedAnswer(_ call: HistoryCall, _ ctx: EvalContext, _ e: Event)
        -> Int?
    {
        guard let runner = ctx.runnerRef, ctx.isLooking(at: e) else { return nil }
        return runner._withUnsafeGuaranteedRef { $0.countedAnswer(call, ctx) }
    }

    /// The answer of the engine's `runner`, used without a retain: it owns the context's shared
    /// part (``EvalShared/runnerRef``), and so outlives the context. The closure only passes the
    /// runner on, so it is inlined: one call, with no closure, reaches the runner's answer.
    @inline(__always) private static func runnerAnswer(
        _ call: HistoryCall, _ ctx: EvalContext, _ runner: Unmanaged<Runner>
    ) -> Eval {
        runner._withUnsafeGuaranteedRef { plannedAnswer(call, ctx, $0) }
    }

    /// ``Runner/plannedAnswer(_:_:)``, checked against a plain search when the cross-check is on.
    @inline(never) private static func plannedAnswer(
        _ call: HistoryCall, _ ctx: EvalContext, _ runner: Runner
    ) -> Eval {
        let answer = runner.plannedAnswer(call, ctx)
        if let check = runner.crossCheck { runner.crossCheck(call, answer, ctx, check) }
        return answer
    }

    /// The answer of a provider other than the engine's runner (tests, fuzzing), if any.
    @inline(never) private static func providerAnswer(_ call: HistoryCall, _ ctx: EvalContext)
        -> Eval
    {
        guard let provider = ctx.withShared({ $0.provider }) else { return .undecided }
        return historyAnswer(call, ctx, provider: provider)
    }

    static func historyAnswer<P: HistoryProvider>(
        _ call: HistoryCall, _ ctx: EvalContext, provider: P
    ) -> Eval {
        if let ready = provider.answer(call, context: ctx) { return ready }
        return search(call, ctx, provider.candidates(for: call, context: ctx), provider: provider)
    }

    /// The answer of `call` from the events `found`, tried one by one with its selector.
    static func search<P: HistoryProvider>(
        _ call: HistoryCall, _ ctx: EvalContext, _ found: HistoryCandidates, provider: P
    ) -> Eval {
        // Every candidate compared is work the provider charges, in rounds of ``spendRound``
        // (a call over a long list stops early once the limit is passed: undecided).
        var tried = 0
        @inline(__always) func affordable() -> Bool {
            tried &+= 1
            return tried & (spendRound - 1) != 0 || provider.spend(spendRound)
        }
        defer { _ = provider.spend(tried & (spendRound - 1)) }
        switch call.kind {
        case .count:
            if found.incomplete { return .undecided }
            var n: Int64 = 0
            for e in found.events {
                guard affordable() else { return .undecided }
                if matches(call.selector, e, ctx) != nil { n += 1 }
            }
            return .value(.int(n))
        case .first, .next:
            for e in found.events {
                guard affordable() else { return .undecided }
                if matches(call.selector, e, ctx) != nil { return .event(e) }
            }
            if found.incomplete {
                provider.lookAheadIncomplete()
                return .undecided
            }
            return .null
        case .last:
            for e in found.events.reversed() {
                guard affordable() else { return .undecided }
                if matches(call.selector, e, ctx) != nil { return .event(e) }
            }
            return .null
        case .maxof, .minof:
            var best: Value?
            for e in found.events {
                guard affordable() else { return .undecided }
                guard matches(call.selector, e, ctx) != nil else { continue }
                guard let v = call.compiledValue.flatMap({ $0.run(ctx, e).value }),
                    v.number != nil
                else { continue }
                if let b = best, let order = v.numericOrder(b),
                    call.kind == .maxof ? order <= 0 : order >= 0
                {
                    continue
                }
                best = v
            }
            return .value(best ?? .null)
        }
    }

    /// How many candidates a history call compares between two charges of its work.
    static let spendRound = 64
}
