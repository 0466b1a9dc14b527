/// How a runner's findings are worded: the rule's message with its holes filled in, and the
/// `gen` a finding carries.
extension Runner {
    /// The `gen` a finding carries: its anchor's, or with `report_gen:` that capture's (none when
    /// the capture's event has none).
    @inline(__always) func findingGen(anchor: Event?, _ ctx: EvalContext?) -> UInt64? {
        guard let name = compiled.reportGen, let captured = ctx?.captures[name] else {
            return anchor?.gen
        }
        return captured.gen
    }

    /// The rule's `message:` with its holes filled in (the title when it has none).
    func message(for ctx: EvalContext?, note: String?) -> String {
        var text: String
        if let template = rule.message, let ctx {
            text = filled(template, ctx)
        } else {
            text = rule.title
        }
        if let note { text += " (\(note))" }
        return text
    }

    /// `template` with its holes filled in for `ctx`. A rule's findings often fill them with the
    /// same values (a file of lines that are not JSON: one reason for them all): when every hole
    /// evaluates to what it did for the last message made, that text is given again (one string,
    /// which ``MessageTable`` then answers at once) instead of being built, escaped and looked up.
    /// `template` is the rule's message: its holes run as the rule compiled them
    /// (``CompiledRule/messageHoles``).
    func filled(_ template: MessageTemplate, _ ctx: EvalContext) -> String {
        holes.truncate(to: 0)
        for hole in compiled.messageHoles { holes.append(hole(ctx)) }
        if let last = lastFilled, last.pseudo == ctx.event.isPseudo, lastHoles.count == holes.count,
            zip(lastHoles, holes).allSatisfy({ Self.renderAlike($0, $1) })
        {
            return last.text
        }
        var text = ""
        var hole = 0
        for part in template.parts {
            switch part {
            case .text(let s): text += s
            case .expr:
                // Every interpolated value is escaped (the log's, and a rule's own literals):
                // a value cannot break or forge a report line. A long one of the log's is
                // clipped; the reader's own findings hold values it bounded already (a
                // secret's key path keeps its last key, which a clip would cut off).
                // Secrets are hidden before a value is clipped: a clip could cut one in two.
                switch holes[hole] {
                case .value(let v):
                    let shown =
                        (v.shown(under: template.holeKeys[hole]) ?? .string(SecretShapes.marker))
                        .rendered()
                    text += (ctx.event.isPseudo ? shown : shown.clipped()).visibleControls
                case .event(let ev):
                    let name = SecretShapes.text(ev.ev).clipped()
                    text +=
                        "\(name) at \(Int(ev.file) < files.count ? files[Int(ev.file)] : "?"):\(ev.line)"
                        .visibleControls
                case .undecided: text += "?"
                }
                hole += 1
            }
        }
        lastFilled = (ctx.event.isPseudo, text)
        // The two lists trade places, so neither is copied when the other is emptied.
        swap(&holes, &lastHoles)
        return text
    }

    /// Whether two values of a hole are shown alike for certain: the same event, the same bytes
    /// of text, the same bits of a number. (Lists and maps are not compared: they are made again.)
    private static func renderAlike(_ a: Eval, _ b: Eval) -> Bool {
        switch (a, b) {
        case (.undecided, .undecided): return true
        case (.event(let x), .event(let y)): return x === y
        case (.value(let x), .value(let y)):
            switch (x, y) {
            case (.null, .null): return true
            case (.bool(let p), .bool(let q)): return p == q
            case (.int(let p), .int(let q)): return p == q
            case (.double(let p), .double(let q)): return p.bitPattern == q.bitPattern
            case (.bigInt(let p), .bigInt(let q)), (.string(let p), .string(let q)):
                return p.hasSameBytes(as: q)
            default: return false
            }
        default: return false
        }
    }
}
