// The Pike VM: the program run over the text, every state at most once per scalar.

extension BoundedRegex {
    // MARK: - Pike VM

    /// A set of program counters with O(1) insert, membership and clear (Briggs–Torczon sparse
    /// set).
    struct ThreadList {
        let dense: UnsafeMutablePointer<Int32>
        let sparse: UnsafeMutablePointer<Int32>
        var count = 0

        @inline(__always)
        func contains(_ pc: Int32) -> Bool {
            let slot = Int(sparse[Int(pc)])
            return slot < count && dense[slot] == pc
        }

        @inline(__always)
        mutating func insert(_ pc: Int32) {
            sparse[Int(pc)] = Int32(count)
            dense[count] = pc
            count += 1
        }
    }

    /// Simulates the NFA on all threads in lock step; each program counter is in a list at most
    /// once per position.
    struct PikeVM {
        let program: UnsafeBufferPointer<Instruction>
        let sets: UnsafeBufferPointer<ScalarSet>
        let anchoredAtStart: Bool
        var current: ThreadList
        var next: ThreadList
        /// Work stack for the epsilon closure; each pc is pushed at most once per closure, so it
        /// needs `program.count`.
        let stack: UnsafeMutablePointer<Int32>

        /// Searches `text`, taking from `budget` one step for the start and, at each position, one
        /// per thread in the list plus one (``BoundedRegex/matches(_:budget:)-(String,_)``).
        @inline(__always)
        mutating func run(_ text: UnsafeBufferPointer<UInt8>, budget: inout Int)
            -> BoundedRegex.Outcome
        {
            let end = text.count
            // A local copy stays in a register; `budget` is written once, on the way out.
            var left = budget
            defer { budget = left }
            guard left >= 1 else {
                left = 0
                return .exhausted
            }
            left &-= 1
            if Self.addThread(
                0, to: &current, at: 0, atEnd: end == 0, program: program, stack: stack)
            {
                return .match
            }
            var position = 0
            while position < end {
                if current.count == 0 && anchoredAtStart { return .noMatch }
                // At most the program's size plus one: no overflow, and `left` stays at least 0.
                let steps = current.count &+ 1
                guard left >= steps else {
                    left = 0
                    return .exhausted
                }
                left &-= steps
                let (scalar, width) = Self.decode(text, at: position)
                let following = position + width
                let atEnd = following == end
                next.count = 0
                for slot in 0..<current.count {
                    let pc = Int(current.dense[slot])
                    let instruction = program[pc]
                    let consumed: Bool
                    switch instruction.opcode {
                    case .scalar: consumed = scalar == UInt32(truncatingIfNeeded: instruction.x)
                    case .any: consumed = scalar != 0x0A
                    case .set: consumed = sets[Int(instruction.x)].contains(scalar)
                    default: consumed = false
                    }
                    guard consumed else { continue }
                    if Self.addThread(
                        Int32(pc + 1), to: &next, at: following, atEnd: atEnd, program: program,
                        stack: stack)
                    {
                        return .match
                    }
                }
                // Search semantics: a new thread starts at every position.
                if !anchoredAtStart,
                    Self.addThread(
                        0, to: &next, at: following, atEnd: atEnd, program: program, stack: stack)
                {
                    return .match
                }
                swap(&current, &next)
                position = following
            }
            return .noMatch
        }

        /// Adds `pc` and everything reachable from it without consuming text; true if that reaches
        /// `match`.
        @inline(__always)
        private static func addThread(
            _ start: Int32, to list: inout ThreadList, at position: Int, atEnd: Bool,
            program: UnsafeBufferPointer<Instruction>, stack: UnsafeMutablePointer<Int32>
        ) -> Bool {
            guard !list.contains(start) else { return false }
            list.insert(start)
            stack[0] = start
            var top = 1
            while top > 0 {
                top -= 1
                let pc = stack[top]
                let instruction = program[Int(pc)]
                var first: Int32 = -1
                var second: Int32 = -1
                switch instruction.opcode {
                case .match: return true
                case .jump: first = instruction.x
                case .split: (first, second) = (instruction.x, instruction.y)
                case .assertBegin: if position == 0 { first = pc + 1 }
                case .assertEnd: if atEnd { first = pc + 1 }
                case .scalar, .any, .set: break  // waits in the list for the next scalar
                }
                // Priority is irrelevant without captures: any thread reaching `match` answers the
                // question.
                if first >= 0 && !list.contains(first) {
                    list.insert(first)
                    stack[top] = first
                    top += 1
                }
                if second >= 0 && !list.contains(second) {
                    list.insert(second)
                    stack[top] = second
                    top += 1
                }
            }
            return false
        }

        /// Decodes one scalar at `index`; an invalid or truncated sequence yields U+FFFD for one
        /// byte.
        @inline(__always)
        static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (UInt32, Int) {
            let b0 = bytes[index]
            if b0 < 0x80 { return (UInt32(b0), 1) }
            let remaining = bytes.count - index
            @inline(__always) func continuation(_ offset: Int) -> UInt32? {
                let byte = bytes[index + offset]
                return byte & 0xC0 == 0x80 ? UInt32(byte & 0x3F) : nil
            }
            switch b0 {
            case 0xC2...0xDF where remaining >= 2:
                if let c1 = continuation(1) { return (UInt32(b0 & 0x1F) << 6 | c1, 2) }
            case 0xE0...0xEF where remaining >= 3:
                let b1 = bytes[index + 1]
                let valid =
                    b0 == 0xE0
                    ? (0xA0...0xBF).contains(b1)
                    : b0 == 0xED
                        ? (0x80...0x9F).contains(b1)
                        : (0x80...0xBF).contains(b1)
                if valid, let c2 = continuation(2) {
                    return (UInt32(b0 & 0x0F) << 12 | UInt32(b1 & 0x3F) << 6 | c2, 3)
                }
            case 0xF0...0xF4 where remaining >= 4:
                let b1 = bytes[index + 1]
                let valid =
                    b0 == 0xF0
                    ? (0x90...0xBF).contains(b1)
                    : b0 == 0xF4
                        ? (0x80...0x8F).contains(b1)
                        : (0x80...0xBF).contains(b1)
                if valid, let c2 = continuation(2), let c3 = continuation(3) {
                    return (UInt32(b0 & 0x07) << 18 | UInt32(b1 & 0x3F) << 12 | c2 << 6 | c3, 4)
                }
            default:
                break
            }
            return (0xFFFD, 1)
        }
    }
}
