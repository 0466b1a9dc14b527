import Testing

@testable import ConnAudit

/// A `where:` is compiled once, when its rule's names are resolved (``NameResolution``): the
/// parser's box compiles it only if it runs, since resolution replaces it. Every `where:` a
/// compiled rule runs must then be compiled once, resolved or not.
@Suite struct WhereIsCompiledOnceItsNamesAreResolvedTests {
    @Test func everyWhereOfACompiledRuleIsCompiled() {
        var parsedNotCompiledYet = 0
        var wheres = 0
        for (index, rule) in RuleLoader.builtin(fixtures: false).rules.enumerated() {
            NameWalker.walkTerms(rule.check, lets: rule.lets, message: rule.message) { term in
                if term.whereExpr != nil, !term.whereIsCompiled { parsedNotCompiledYet += 1 }
            }
            let compiled = CompiledRule(rule: rule, index: index, overrides: [:]).rule
            NameWalker.walkTerms(compiled.check, lets: compiled.lets, message: compiled.message) {
                term in
                guard term.whereExpr != nil else { return }
                wheres += 1
                #expect(term.whereIsCompiled, "\(rule.id): a where: compiled on each run")
            }
        }
        #expect(wheres > 0, "the pack's where: terms were found")
        #expect(parsedNotCompiledYet > 0, "the parser compiles no where: of its own")
    }

    /// A `where:` that resolution leaves as it is (it names nothing) is compiled all the same.
    @Test func aWhereWithNothingToResolveIsCompiled() throws {
        let yaml = """
            rules:
              - id: x.literal-where
                title: t
                severity: error
                for: generation
                every: { ev: ws.close, where: "true" }
                expect: "true"
                message: "m"
            """
        let set = try RuleLoader.load(files: [(path: "x.yaml", text: yaml)])
        let rule = try #require(set.rules.first)
        let compiled = CompiledRule(rule: rule, index: 0, overrides: [:]).rule
        var seen = 0
        NameWalker.walkTerms(compiled.check, lets: compiled.lets, message: compiled.message) {
            term in
            guard term.whereExpr != nil else { return }
            seen += 1
            #expect(term.whereIsCompiled)
        }
        #expect(seen == 1)
    }
}
