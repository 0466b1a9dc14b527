import Testing

@testable import ConnAudit

/// ``Scalar/combine(_:_:_:)`` decides comparisons and equality tests of any two scalars in place
/// (not through ``Evaluator/combine(_:_:_:)``): for every operator and every pair of scalar
/// values (null, undecided, booleans, integers near 2^53 and the ends of `Int64`, fractions,
/// NaN, signed zeros) it must give what the general evaluation gives for the same two values.
@Suite struct ScalarCombineOfAnyPairGivesTheGeneralAnswerTests {
    static let values: [Scalar] = [
        .null, .undecided, .bool(true), .bool(false),
        .int(0), .int(1), .int(-3), .int(Int64.max), .int(Int64.min), .int(9_007_199_254_740_993),
        .int(9_007_199_254_740_992),
        .double(0), .double(-0.0), .double(0.5), .double(1), .double(-3), .double(.nan),
        .double(.infinity), .double(9_007_199_254_740_992), .double(9.2233720368547758e18)
    ]

    static let operators: [Expr.BinaryOp] = [
        .equal, .notEqual, .less, .lessEqual, .greater, .greaterEqual, .add, .subtract,
        .multiply, .divide, .remainder
    ]

    @Test func everyPairGivesTheGeneralAnswer() {
        var checked = 0
        for op in Self.operators {
            for x in Self.values {
                for y in Self.values {
                    let scalar = Scalar.combine(op, x, y)
                    let general = Evaluator.combine(op, x.eval, y.eval)
                    #expect(
                        Self.same(scalar, general), "\(x) \(op) \(y): \(scalar), not \(general)")
                    checked += 1
                }
            }
        }
        #expect(checked == Self.operators.count * Self.values.count * Self.values.count)
    }

    /// A value that is no scalar is equal to no null, and ordered with nothing.
    @Test func aValueThatIsNoScalarIsNoNull() {
        for other in Self.values {
            for op in Self.operators {
                let answer = Scalar.combine(op, .nonScalar, other)
                switch (op, other) {
                case (.equal, .null): #expect(answer.truth == false)
                case (.notEqual, .null): #expect(answer.truth == true)
                default: #expect(answer.isOther, "\(op) \(other): \(answer)")
                }
            }
        }
    }

    /// Whether `s` is the answer `e` (bit for bit, for a number).
    static func same(_ s: Scalar, _ e: Eval) -> Bool {
        switch (s, e) {
        case (.undecided, .undecided): return true
        case (.null, .value(.null)): return true
        case (.bool(let a), .value(.bool(let b))): return a == b
        case (.int(let a), .value(.int(let b))): return a == b
        case (.double(let a), .value(.double(let b))): return a.bitPattern == b.bitPattern
        default: return false
        }
    }
}
