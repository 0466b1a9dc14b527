import Testing

@testable import ConnAudit

/// `Captures` keeps its bindings in name order: lookups, names, match keys and comparisons must
/// agree with a plain sorted list of (name, event) pairs under any sequence of binds and unbinds.
@Suite struct CapturesBindingOrderTests {
    /// The reference: pairs sorted by name, the last bind of a name winning.
    struct Model {
        var pairs: [(name: String, event: Event)] = []
        mutating func set(_ name: String, _ event: Event?) {
            pairs.removeAll { $0.name == name }
            if let event {
                pairs.append((name, event))
                pairs.sort { $0.name < $1.name }
            }
        }
    }

    /// A small deterministic generator (the test must not depend on the run).
    struct SplitMix {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    @Test func randomBindsAndUnbindsMatchASortedList() {
        let names = ["q", "p", "e", "k", "zz", "a", "é", "e\u{301}"]
        let events = (0..<12).map { i -> Event in
            let e = Event(t: Double(i), ev: "x")
            e.seq = i * 7 + 1
            return e
        }
        var rng = SplitMix(state: 42)
        var checkedSpill = false
        for _ in 0..<400 {
            var c = Captures()
            var model = Model()
            for _ in 0..<rng.next(9) {
                let name = names[rng.next(names.count)]
                let event: Event? = rng.next(4) == 0 ? nil : events[rng.next(events.count)]
                c[name] = event
                model.set(name, event)
                #expect(c.names == model.pairs.map(\.name))
                #expect(c.isEmpty == model.pairs.isEmpty)
                for n in names {
                    #expect(c[n]?.seq == model.pairs.first { $0.name == n }?.event.seq)
                    #expect(c.binds(n) == model.pairs.contains { $0.name == n })
                }
                let wanted = Array(names.prefix(rng.next(names.count + 1)))
                #expect(
                    c.seqs(of: wanted, after: 3).numbers
                        == [3] + model.pairs.filter { wanted.contains($0.name) }.map(\.event.seq))
                if model.pairs.count > 2 { checkedSpill = true }
            }
            // Two bindings built in another order compare as the same events.
            var d = Captures()
            for pair in model.pairs.reversed() { d[pair.name] = pair.event }
            #expect(c.sameEvents(as: d, for: names))
            if let last = model.pairs.last {
                var e = d
                e[last.name] = events[(last.event.seq / 7 + 1) % events.count]
                #expect(!c.sameEvents(as: e, for: names))
                #expect(c.sameEvents(as: e, for: names.filter { $0 != last.name }))
            }
        }
        #expect(checkedSpill)
    }
}
