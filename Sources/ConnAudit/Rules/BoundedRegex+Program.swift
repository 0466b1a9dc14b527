// The compiled program: scalar sets, instructions, and the compiler from the syntax tree.

extension BoundedRegex {
    // MARK: - Scalar sets

    /// A set of Unicode scalars: a bitmap for ASCII, sorted disjoint ranges above it.
    struct ScalarSet: Sendable {
        private var low: UInt64 = 0
        private var high: UInt64 = 0
        private var ranges: [ClosedRange<UInt32>] = []

        static let maxScalar: UInt32 = 0x10FFFF
        static let digits: [ClosedRange<UInt32>] = [0x30...0x39]
        static let word: [ClosedRange<UInt32>] = [
            0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A
        ]
        static let space: [ClosedRange<UInt32>] = [0x09...0x0D, 0x20...0x20]

        /// Case folding (ASCII) happens before negation, so `(?i)[^a]` excludes both `a` and `A`.
        init(_ input: [ClosedRange<UInt32>], negated: Bool, caseInsensitive: Bool) {
            var all = input
            if caseInsensitive { all += Self.caseVariants(of: input) }
            all = Self.normalized(all)
            if negated { all = Self.complement(all) }
            for range in all {
                if range.lowerBound < 128 {
                    for value in range.lowerBound...Swift.min(range.upperBound, 127) {
                        if value < 64 {
                            low |= 1 << UInt64(value)
                        } else {
                            high |= 1 << UInt64(value - 64)
                        }
                    }
                }
                if range.upperBound >= 128 {
                    ranges.append(Swift.max(range.lowerBound, 128)...range.upperBound)
                }
            }
        }

        @inline(__always)
        func contains(_ value: UInt32) -> Bool {
            if value < 64 { return low >> UInt64(value) & 1 != 0 }
            if value < 128 { return high >> UInt64(value - 64) & 1 != 0 }
            var lower = 0
            var upper = ranges.count
            while lower < upper {
                let middle = (lower + upper) / 2
                let range = ranges[middle]
                if value < range.lowerBound {
                    upper = middle
                } else if value > range.upperBound {
                    lower = middle + 1
                } else {
                    return true
                }
            }
            return false
        }

        static func isASCIILetter(_ value: UInt32) -> Bool {
            (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
        }

        /// The other-case ASCII letters of `ranges`.
        static func caseVariants(of ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
            var out: [ClosedRange<UInt32>] = []
            let upper: ClosedRange<UInt32> = 0x41...0x5A
            let lower: ClosedRange<UInt32> = 0x61...0x7A
            for range in ranges {
                if range.overlaps(upper) {
                    let part = range.clamped(to: upper)
                    out.append(part.lowerBound + 0x20...part.upperBound + 0x20)
                }
                if range.overlaps(lower) {
                    let part = range.clamped(to: lower)
                    out.append(part.lowerBound - 0x20...part.upperBound - 0x20)
                }
            }
            return out
        }

        /// Sorted, merged ranges.
        static func normalized(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
            var out: [ClosedRange<UInt32>] = []
            for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
                if let last = out.last, range.lowerBound <= last.upperBound + 1 {
                    out[out.count - 1] =
                        last.lowerBound...Swift.max(last.upperBound, range.upperBound)
                } else {
                    out.append(range)
                }
            }
            return out
        }

        /// Every scalar value not in `ranges` (which need not be normalized).
        static func complement(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
            var out: [ClosedRange<UInt32>] = []
            var next: UInt32 = 0
            for range in normalized(ranges) {
                if range.lowerBound > next { out.append(next...range.lowerBound - 1) }
                next = range.upperBound + 1
            }
            if next <= maxScalar { out.append(next...maxScalar) }
            return out
        }
    }

    // MARK: - Program

    struct Instruction: Sendable {
        enum Opcode: UInt8, Sendable {
            /// Consume the scalar `x`.
            case scalar
            /// Consume any scalar except `\n`.
            case any
            /// Consume a scalar in `sets[x]`.
            case set
            /// Continue at both `x` and `y`.
            case split
            /// Continue at `x`.
            case jump
            case match
            /// Continue at the next instruction only at the start of the text.
            case assertBegin
            /// Continue at the next instruction only at the end of the text.
            case assertEnd
        }

        var opcode: Opcode
        var x: Int32
        var y: Int32

        init(_ opcode: Opcode, _ x: Int = 0, _ y: Int = 0) {
            self.opcode = opcode
            self.x = Int32(x)
            self.y = Int32(y)
        }
    }

    /// Compiles the tree to Thompson-NFA instructions (Cox's scheme), counted repetition expanded.
    struct Compiler {
        var program: [Instruction] = []
        /// The offset of the outermost repetition being compiled: the best place to blame for "too
        /// large".
        private var blamedOffset: Int?

        mutating func emit(_ instruction: Instruction) throws(RegexSyntaxError) -> Int {
            guard program.count < BoundedRegex.maxProgramSize else {
                throw RegexSyntaxError(
                    message:
                        "pattern too large: it compiles to more than \(BoundedRegex.maxProgramSize) instructions",
                    offset: blamedOffset ?? 0)
            }
            program.append(instruction)
            return program.count - 1
        }

        /// Recursive: alternatives and concatenations are flat lists, so a tree is a few levels per
        /// group, and groups nest at most ``BoundedRegex/maxNestingDepth`` deep.
        mutating func compile(_ node: Node) throws(RegexSyntaxError) {
            switch node {
            case .empty:
                break
            case .scalar(let value):
                _ = try emit(Instruction(.scalar, Int(value)))
            case .any:
                _ = try emit(Instruction(.any))
            case .set(let index):
                _ = try emit(Instruction(.set, index))
            case .begin:
                _ = try emit(Instruction(.assertBegin))
            case .end:
                _ = try emit(Instruction(.assertEnd))
            case .concatenation(let items):
                for item in items { try compile(item) }
            case .group(let inner):
                try compile(inner)
            case .alternation(let branches):
                // split L1, L2; L1: e1; jump end; L2: split …; last: en; end:
                var jumps: [Int] = []
                for branch in branches.dropLast() {
                    let split = try emit(Instruction(.split))
                    program[split].x = Int32(split + 1)
                    try compile(branch)
                    jumps.append(try emit(Instruction(.jump)))
                    program[split].y = Int32(program.count)
                }
                try compile(branches[branches.count - 1])
                for jump in jumps { program[jump].x = Int32(program.count) }
            case .repetition(let inner, let min, let max, let offset):
                let saved = blamedOffset
                blamedOffset = saved ?? offset
                defer { blamedOffset = saved }
                try compileRepetition(inner, min: min, max: max)
            }
        }

        private mutating func compileRepetition(_ inner: Node, min: Int, max: Int?)
            throws(RegexSyntaxError)
        {
            guard let max else {
                if min == 0 {
                    // L: split L+1, out; e; jump L; out:
                    let split = try emit(Instruction(.split))
                    program[split].x = Int32(split + 1)
                    try compile(inner)
                    _ = try emit(Instruction(.jump, split))
                    program[split].y = Int32(program.count)
                } else {
                    // e{min-1}; L: e; split L, out; out:
                    for _ in 0..<min - 1 { try compile(inner) }
                    let loop = program.count
                    try compile(inner)
                    let split = try emit(Instruction(.split, loop))
                    program[split].y = Int32(split + 1)
                }
                return
            }
            for _ in 0..<min { try compile(inner) }
            // Each optional copy: split next, out; e — all exits go to the end.
            var exits: [Int] = []
            for _ in min..<max {
                let split = try emit(Instruction(.split))
                program[split].x = Int32(split + 1)
                exits.append(split)
                try compile(inner)
            }
            for exit in exits { program[exit].y = Int32(program.count) }
        }
    }
}
