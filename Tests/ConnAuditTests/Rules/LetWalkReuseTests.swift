import ConnSoak
import Testing

@testable import ConnAudit

/// The depth bound of a rule's lets (``FileLoader/evaluationTooDeep(_:fileLetWalks:)``) walks a
/// file's lets once for all its rules, and skips the components of the reads when no let reads
/// a let: both give the answer of walking every let of every rule.
@Suite struct LetWalkReuseTests {
    /// The rules of `text` and the walks of its file-level lets, as the loader makes them.
    private static func rulesAndFileWalks(_ text: String) throws -> ([Rule], [FileLoader.LetWalk]) {
        let rules = try RuleLoader.load(files: [("lets.yaml", text)]).rules
        var loader = FileLoader(path: "lets.yaml", text: text)
        let root = try #require(try YamlLoader.load(text, path: "lets.yaml").first)
        let fileLets = root["let"].map { loader.lets($0, params: nil) } ?? []
        return (rules, fileLets.map { FileLoader.letWalk($0.expr) })
    }

    @Test(arguments: [0, 1, 7, 20])
    func fileLetsWalkedOnceGiveTheSameBound(fileLets: Int) throws {
        // 20 lets of 100 levels, each reading the one before: 2,000 deep, and the check reads
        // the last at level 2. The rule's own lets would refuse it past 3,000: both must agree.
        let text = LetChainDepthTests.chain(20, levels: 100, fileLets: fileLets)
        let (rules, walks) = try Self.rulesAndFileWalks(text)
        #expect(walks.count == fileLets)
        for rule in rules {
            #expect(FileLoader.evaluationTooDeep(rule) == nil)
            #expect(FileLoader.evaluationTooDeep(rule, fileLetWalks: walks) == nil)
        }
    }

    @Test func aRuleLetOfAFileLetsNameReplacesItsWalk() throws {
        // The file's `a` is shallow; the rule's `a` reads `b`, 100 levels: the rule's one counts.
        let deep = String(repeating: " + 1", count: 99)
        let text = """
            let:
              a: "1"
              b: "1\(deep)"
            rules:
              - id: probe.redefined
                title: Redefined
                for: source
                let:
                  a: "b\(deep)"
                every: { ev: probe.hit }
                expect: "a > 0"

            """
        let (rules, walks) = try Self.rulesAndFileWalks(text)
        let rule = try #require(rules.first)
        #expect(walks.map(\.own) == [1, 100])
        let own = rule.lets.map { FileLoader.letWalk($0.expr).own }
        #expect(own == [1, 100, 100])
        #expect(
            FileLoader.evaluationTooDeep(rule, fileLetWalks: walks)?.depth
                == FileLoader.evaluationTooDeep(rule)?.depth)
    }

    @Test func withoutReadsBetweenLetsEachIsItsOwnDepth() {
        var rng = SplitMix64(seed: 11)
        for _ in 0..<200 {
            let own = (0..<Int(rng.next() % 6 + 1)).map { _ in Int(rng.next() % 100) + 1 }
            let reads = own.map { _ in [(slot: Int, level: Int)]() }
            #expect(FileLoader.componentDepths(own: own, reads: reads) == own)
        }
    }

    @Test func aChainOfFileLetsPastTheBoundIsNamedTheSameWithTheirWalks() throws {
        // 40 file lets of 100 levels: l30 is 3,100 deep (LetChainDepthTests). A rule that loads
        // is given them, as the loader would before bounding them.
        let text = LetChainDepthTests.chain(40, levels: 100, fileLets: 40)
        var loader = FileLoader(path: "lets.yaml", text: text)
        let root = try #require(try YamlLoader.load(text, path: "lets.yaml").first)
        let fileLets = try #require(root["let"].map { loader.lets($0, params: nil) })
        #expect(fileLets.count == 40 && loader.errors.isEmpty)
        let (rules, _) = try Self.rulesAndFileWalks(LetChainDepthTests.chain(1, levels: 1))
        var rule = try #require(rules.first)
        rule.lets = fileLets
        let plain = try #require(FileLoader.evaluationTooDeep(rule))
        let walks = fileLets.map { FileLoader.letWalk($0.expr) }
        let reused = try #require(FileLoader.evaluationTooDeep(rule, fileLetWalks: walks))
        #expect(plain.letName == "l30" && plain.depth == 3_100)
        #expect(reused.letName == plain.letName && reused.depth == plain.depth)
    }
}
