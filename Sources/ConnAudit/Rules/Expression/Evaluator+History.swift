#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Evaluator {
    static func history(_ call: HistoryCall, _ ctx: EvalContext, _ e: Event) -> Eval {
        // History providers read the current event from the context: one looking at `e` (a copy
        // only when `e` is a nested selector's candidate).
        let result =
            ctx.isLooking(at: e)
            ? historyAnswer(call, ctx) : historyAnswer(call, ctx.looking(at: e))
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

    @inline(__always) static func historyAnswer(_ call: HistoryCall, _ ctx: EvalContext) -> Eval {
        // The engine's runner is called directly; any other provider through the protocol.
        ctx.withShared { shared in
            if let answer = shared.withRunner({ runner in
                let answer = runner.plannedAnswer(call, ctx)
                if let check = runner.crossCheck { runner.crossCheck(call, answer, ctx, check) }
                return answer
            }) {
                return answer
            }
            guard let provider = shared.provider else { return .undecided }
            return historyAnswer(call, ctx, provider: provider)
        }
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
