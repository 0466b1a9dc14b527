import Testing

@testable import ConnAudit

/// `Value.numericOrder`: JSON integers of any size order exactly (a `gen` past Int64 is a
/// `.bigInt`); a pair with any other number orders by value as doubles.
@Suite struct ValueOrderTests {
    private static let twoTo63 = Value.bigInt("9223372036854775808")
    private static let twoTo63Plus1 = Value.bigInt("9223372036854775809")
    private static let uint64Max = Value.bigInt("18446744073709551615")
    private static let beyondUInt64 = Value.bigInt("123456789012345678901234567890")
    private static let belowInt64 = Value.bigInt("-9223372036854775809")
    private static let furtherBelow = Value.bigInt("-9223372036854775810")
    private static let farBelow = Value.bigInt("-123456789012345678901234567890")

    /// (a, b, how a orders against b).
    static let integerPairs: [(Value, Value, Int)] = [
        // Two bigInts: as doubles each of these pairs is equal.
        (twoTo63, twoTo63Plus1, -1),
        (twoTo63Plus1, twoTo63, 1),
        (twoTo63, twoTo63, 0),
        (uint64Max, .bigInt("18446744073709551614"), 1),
        (uint64Max, beyondUInt64, -1),  // fewer digits
        (beyondUInt64, uint64Max, 1),
        (belowInt64, furtherBelow, 1),
        (furtherBelow, belowInt64, -1),
        (belowInt64, belowInt64, 0),
        (farBelow, belowInt64, -1),  // more digits, negative
        (belowInt64, farBelow, 1),
        (belowInt64, twoTo63, -1),  // the signs differ
        (twoTo63, belowInt64, 1),
        (farBelow, beyondUInt64, -1),
        // A bigInt against an int: outside Int64's range, so above or below every one.
        (twoTo63, .int(Int64.max), 1),
        (.int(Int64.max), twoTo63, -1),
        (twoTo63, .int(Int64.min), 1),
        (.int(0), uint64Max, -1),
        (belowInt64, .int(Int64.min), -1),
        (.int(Int64.min), belowInt64, 1),
        (.int(Int64.max), belowInt64, 1),
        (belowInt64, .int(0), -1),
        // Two ints, as before.
        (.int(Int64.max), .int(Int64.max - 1), 1),
        (.int(-1), .int(-1), 0)
    ]

    @Test(arguments: integerPairs)
    func integersOrderExactly(_ a: Value, _ b: Value, _ expected: Int) {
        #expect(a.numericOrder(b) == expected)
        #expect(a.order(b) == expected)
        // Equality agrees with the order.
        #expect(a.looselyEquals(b) == (expected == 0))
    }

    /// A bigInt against a number written with a fraction or exponent: by value, as doubles.
    static let mixedPairs: [(Value, Value, Int?)] = [
        (twoTo63, .double(9.223372036854775808e18), 0),
        (twoTo63Plus1, .double(9.223372036854775808e18), 0),
        (.double(1.5), twoTo63, -1),
        (uint64Max, .double(1e300), -1),
        (belowInt64, .double(-1.5), -1),
        (twoTo63, .double(.nan), nil),
        (twoTo63, .string("9223372036854775808"), nil),
        (.null, twoTo63, nil)
    ]

    @Test(arguments: mixedPairs)
    func otherNumbersOrderAsDoubles(_ a: Value, _ b: Value, _ expected: Int?) {
        #expect(a.numericOrder(b) == expected)
    }

    @Test func aGenIsAnIntWhileItFitsInt64() {
        #expect(Value.integer(0) == .int(0))
        #expect(Value.integer(UInt64(Int64.max)) == .int(Int64.max))
        #expect(Value.integer(UInt64(Int64.max) + 1) == Self.twoTo63)
        #expect(Value.integer(UInt64.max) == Self.uint64Max)
    }
}
