/// The first step's `where:`s that read only params, static lets and history answered from running
/// aggregates, kept between events.
///
/// Such a `where` reads nothing of the event it is asked about, and nothing that changes while no
/// aggregate of the runner moves: its truth is the same for every event in between. So each is
/// evaluated once per move of the aggregates, not once per event the step is tried on
/// (ws.timeout-closes' trigger: no `ws.recv_error` yet, and the generation not ended otherwise).
/// It binds no name and spends no work (its history is answered from the aggregates), so keeping
/// its value changes nothing but the work done.
extension SequenceRunner {
    /// Per term of the first step's selector (the first 64): whether its `where` may be kept.
    static func startWhereKept(_ selector: Selector, _ compiled: CompiledRule) -> UInt64 {
        selector.terms.withUnsafeBufferPointer { terms in
            var kept: UInt64 = 0
            for i in terms.indices where i < 64 {
                guard let whereRef = terms[i].whereRef, !terms[i].whereReadsCapture else {
                    continue
                }
                if whereRef._withUnsafeGuaranteedRef({ readsAggregatesOnly($0.expr, compiled) }) {
                    kept |= 1 << i
                }
            }
            return kept
        }
    }

    /// Whether `expr` reads only literals, params, static lets and history calls answered from
    /// running aggregates (none of which binds an `as:` name).
    static func readsAggregatesOnly(_ expr: Expr, _ compiled: CompiledRule) -> Bool {
        expr.readsOnly { e in
            switch e {
            case .name(let name, _, _):
                guard let slot = compiled.lets.slot(of: name) else { return false }
                return compiled.lets.isStatic[slot]
            case .field, .regex:
                return false
            case .history(let call):
                return call.kind != .next && call.resultCaptures.isEmpty
                    && compiled.staticSlots[call.slot] != nil
            // `params.x`: the first step binds no capture that could hide the params.
            case .member(.name("params", _, _), _, _, _)
            where compiled.lets.slot(of: "params") == nil:
                return true
            default:
                return nil
            }
        }
    }

    /// Forgets the kept truths when `e` may move an aggregate: called as the runner is given `e`,
    /// before `e` joins its history, so the truths kept while `e` is judged still hold for it.
    @inline(__always) func startWhereSees(_ e: Event) {
        guard startWhereKept != 0 else { return }
        if aggregatesMayHaveMoved { startWhereKnown = 0 }
        aggregatesMayHaveMoved = !compiled.staticCalls(for: e.evID).isEmpty
    }

    /// ``matchesStart(_:_:_:)``, with a context made only where a test reads one. Most starts
    /// of a rule with kept `where`s need none: their terms test `ev` alone and their `where`s'
    /// truths are known. A context made and dropped costs two releases.
    func matchesStart(_ selector: Selector, _ e: Event) -> SelectorMatch? {
        guard startWhereKept != 0 else { return Evaluator.matches(selector, e, context(e)) }
        guard selector.mayMatch(e.evID) else { return nil }
        let known = selector.terms.withUnsafeBufferPointer { terms -> KnownStart in
            for i in terms.indices {
                let term = terms.baseAddress! + i
                if let ids = term.pointee.evIDs, !ids.contains(e.evID) { continue }
                if term.pointee.checksFields || term.pointee.negated != nil { return .unknown }
                if term.pointee.whereRef != nil {
                    let bit: UInt64 = i < 64 ? 1 << i : 0
                    guard startWhereKnown & bit != 0 else { return .unknown }
                    if startWhereHolds & bit == 0 { continue }
                }
                return .match(SelectorMatch(term: i))
            }
            return .noMatch
        }
        switch known {
        case .match(let m): return m
        case .noMatch: return nil
        case .unknown:
            startContextsMade += 1
            return matchesStart(selector, e, context(e))
        }
    }

    /// What ``matchesStart(_:_:)`` found without a context: the first term that matches, none,
    /// or a term a context would have to decide (then every term is tried again with one).
    enum KnownStart {
        case match(SelectorMatch)
        case noMatch
        case unknown
    }

    /// ``Evaluator/matches(_:_:_:)`` of the first step's `selector`, with the kept `where`s read
    /// from ``startWhereHolds`` once known.
    func matchesStart(_ selector: Selector, _ e: Event, _ ctx: EvalContext) -> SelectorMatch? {
        guard startWhereKept != 0 else { return Evaluator.matches(selector, e, ctx) }
        guard selector.mayMatch(e.evID) else { return nil }
        return selector.terms.withUnsafeBufferPointer { terms in
            for i in terms.indices {
                let term = terms.baseAddress! + i
                guard Evaluator.termTestsHold(term, e, ctx) else { continue }
                if let negated = term.pointee.negated, Evaluator.matches(negated, e, ctx) != nil {
                    continue
                }
                if let whereRef = term.pointee.whereRef {
                    let bit: UInt64 = i < 64 ? 1 << i : 0
                    let holds: Bool
                    if startWhereKnown & bit != 0 {
                        holds = startWhereHolds & bit != 0
                    } else {
                        holds = whereRef._withUnsafeGuaranteedRef { box in
                            if term.pointee.whereReadsCapture, let name = term.pointee.capture {
                                return ctx.binding(name, to: e) {
                                    box.compiled.holds($0, e) == true
                                }
                            }
                            return box.compiled.holds(ctx, e) == true
                        }
                        if startWhereKept & bit != 0 {
                            startWhereKnown |= bit
                            if holds { startWhereHolds |= bit } else { startWhereHolds &= ~bit }
                        }
                    }
                    guard holds else { continue }
                }
                return SelectorMatch(term: i)
            }
            return nil
        }
    }
}
