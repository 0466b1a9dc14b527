import Testing

@testable import ConnAudit

/// Retired generations share one copy of each distinct label list (``SourceEvaluation``'s
/// `labelLists`), found by a hash of the lists' rules and flags alone: lists that differ only
/// in their names must still be told apart, and equal ones found again.
@Suite struct RetiredLabelListsTests {
    private func list(_ names: [String], holds: [Bool], rule: Int = 0) -> SourceEvaluation.LabelList
    {
        SourceEvaluation.LabelList(
            results: zip(names, holds).map { LabelResult(rule: rule, name: $0, holds: $1) })
    }

    @Test func listsThatDifferOnlyInTheirNamesAreToldApart() {
        var kept: [SourceEvaluation.LabelList: Int] = [:]
        kept[list(["normal", "delayed"], holds: [true, false])] = 1
        kept[list(["delayed", "normal"], holds: [true, false])] = 2
        kept[list(["normal", "delayed"], holds: [false, true])] = 3
        kept[list(["normal", "delayed"], holds: [true, false], rule: 1)] = 4
        #expect(kept.count == 4)
        #expect(kept[list(["normal", "delayed"], holds: [true, false])] == 1)
        #expect(kept[list(["delayed", "normal"], holds: [true, false])] == 2)
        #expect(kept[list(["normal"], holds: [true])] == nil)
    }
}
