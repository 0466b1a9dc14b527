import Testing

@testable import ConnAudit

/// Whether a rule has a key of another check kind is asked of one set of all the kinds' keys
/// (``FileLoader/checkKindKeys``): a key is there and not its own kind's exactly when it is one
/// of the keys reported for the kind (``FileLoader/foreignKeys(of:)``).
@Suite struct ForeignCheckKeySetTests {
    @Test func theSetAnswersAsTheReportedKeys() {
        let keys = FileLoader.ruleKeys.union(["", "x", "tests", "every"])
        for kind in FileLoader.checkKinds {
            let reported = Set(FileLoader.foreignKeys(of: kind))
            for key in keys {
                let asked = FileLoader.checkKindKeys.contains(key) && !kind.keys.contains(key)
                #expect(asked == reported.contains(key), "\(kind.kind): \(key)")
            }
            #expect(!reported.isEmpty, "\(kind.kind)")
        }
    }
}
