import Testing

@testable import ConnAudit

// MARK: - Cases

/// One rules file with one error, and what the error must say.
struct LoaderErrorCase: Sendable, CustomTestStringConvertible {
    var name: String
    var yaml: String
    var message: String
    var testDescription: String { name }
}

private let loaderErrorCases: [LoaderErrorCase] = [
    LoaderErrorCase(
        name: "unknown key in a rule",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "reason != null"
                1️⃣colour: red
            """, message: "unknown key 'colour' in a rule"),
    LoaderErrorCase(
        name: "unknown top-level key",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
            1️⃣rulez: []
            """, message: "unknown key 'rulez' at the top of a rules file"),
    LoaderErrorCase(
        name: "missing id",
        yaml: """
            rules:
              - 1️⃣title: A
                never: { ev: ws.ping }
            """, message: "missing required key 'id'"),
    LoaderErrorCase(
        name: "missing title",
        yaml: """
            rules:
              - 1️⃣id: ws.a
                never: { ev: ws.ping }
            """, message: "rule 'ws.a': missing required key 'title'"),
    LoaderErrorCase(
        name: "empty title",
        yaml: """
            rules:
              - id: ws.a
                title: 1️⃣""
                never: { ev: ws.ping }
            """, message: "rule 'ws.a': 'title' must not be empty"),
    LoaderErrorCase(
        name: "null title",
        yaml: """
            rules:
              - id: ws.a
                title: 1️⃣~
                never: { ev: ws.ping }
            """, message: "rule 'ws.a': 'title' must not be empty"),
    LoaderErrorCase(
        name: "a second YAML document, whose rules would never run",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
            ---
            1️⃣rules:
              - id: ws.b
                title: B
                never: { ev: ws.pong }
            """,
        message:
            "a second YAML document ('---'): a rules file holds one mapping with 'rules:'; put these rules in another file"
    ),
    LoaderErrorCase(
        name: "an error in a message hole on the second line of a block scalar",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
                message: >-
                  first line {t}
                  second {t + 1️⃣}
            """, message: "unexpected end of expression"),
    LoaderErrorCase(
        name: "an error on the second line of a double-quoted expression",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "reason != null and
                  reason == 1️⃣== ''"
            """, message: "unexpected '=='"),
    LoaderErrorCase(
        name: "an error after a line with trailing spaces",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "reason != null and\u{20}\u{20}\u{20}
                  reason == 1️⃣== ''"
            """, message: "unexpected '=='"),
    LoaderErrorCase(
        name: "an error after a blank line in a quoted expression",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "reason != null and

                  reason == 1️⃣== ''"
            """, message: "unexpected '=='"),
    LoaderErrorCase(
        name: "an error after an escaped line break",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "reason != null and \\
                  reason == 1️⃣== ''"
            """, message: "unexpected '=='"),
    LoaderErrorCase(
        name: "an error in a message hole after a blank line of a folded block",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
                message: >-
                  first line {t}

                  second {t + 1️⃣}
            """, message: "unexpected end of expression"),
    LoaderErrorCase(
        name: "an error on the second line of a plain expression",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: reason != null and
                  reason == 1️⃣== 'x'
            """, message: "unexpected '=='"),
    LoaderErrorCase(
        name: "two steps binding one capture name",
        yaml: """
            rules:
              - id: ws.a
                title: A
                forbid:
                  - { ev: ws.ping, as: p }
                  - { ev: ws.ping, as: 1️⃣p }
            """,
        message: "capture 'p' is already bound by the step at line 5: give each step its own name"),
    LoaderErrorCase(
        name: "a passing fixture with violations",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
                tests:
                  - name: n
                    log: "{}"
                    expect: pass
                    violations: 1️⃣3
            """,
        message:
            "fixture 'n': 'violations: 3' with 'expect: pass' can never hold (violations make a rule fail)"
    ),
    LoaderErrorCase(
        name: "a trigger and its answer binding one capture name",
        yaml: """
            rules:
              - id: ws.a
                title: A
                each: { ev: ws.ping, as: p }
                followed_by: { ev: ws.pong, as: 1️⃣p }
            """, message: "capture 'p' is already bound at line 4: give each its own name"),
    LoaderErrorCase(
        name: "a null id",
        yaml: """
            rules:
              - id: 1️⃣null
                title: A
                never: { ev: ws.ping }
            """, message: "rule id '' must match [a-z0-9._-]+"),
    LoaderErrorCase(
        name: "upper-case id",
        yaml: """
            rules:
              - id: 1️⃣WS.Close
                title: A
                never: { ev: ws.ping }
            """, message: "rule id 'WS.Close' must match [a-z0-9._-]+"),
    LoaderErrorCase(
        name: "id with a space",
        yaml: """
            rules:
              - title: A
                id: 1️⃣"ws close"
                never: { ev: ws.ping }
            """, message: "rule id 'ws close' must match [a-z0-9._-]+"),
    LoaderErrorCase(
        name: "bad severity",
        yaml: """
            rules:
              - id: ws.a
                title: A
                severity: 1️⃣fatal
                never: { ev: ws.ping }
            """, message: "severity must be error, warning or info"),
    LoaderErrorCase(
        name: "bad for",
        yaml: """
            rules:
              - id: ws.a
                title: A
                for: 1️⃣session
                never: { ev: ws.ping }
            """, message: "'for' must be generation, source or corpus"),
    LoaderErrorCase(
        name: "two check kinds",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
                count: 1️⃣{ ev: ws.close }
                max: 1
            """, message: "rule 'ws.a' has more than one check kind (never, count)"),
    LoaderErrorCase(
        name: "no check at all",
        yaml: """
            rules:
              - 1️⃣id: ws.a
                title: A
            """, message: "rule 'ws.a' has no check: give one of every, never, count"),
    LoaderErrorCase(
        name: "every without expect",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: 1️⃣{ ev: ws.close }
            """, message: "'every' needs 'expect'"),
    LoaderErrorCase(
        name: "count without min or max",
        yaml: """
            rules:
              - id: ws.a
                title: A
                count: 1️⃣{ ev: ws.close }
            """, message: "'count' needs 'min' or 'max'"),
    LoaderErrorCase(
        name: "min greater than max",
        yaml: """
            rules:
              - id: ws.a
                title: A
                count: { ev: ws.close }
                min: 1️⃣3
                max: 1
            """, message: "'min' (3) is greater than 'max' (1)"),
    LoaderErrorCase(
        name: "negative max",
        yaml: """
            rules:
              - id: ws.a
                title: A
                count: { ev: ws.close }
                min: 0
                max: 1️⃣-1
            """, message: "'max' must be a whole number >= 0"),
    LoaderErrorCase(
        name: "a key that does not go with the check",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
                expect: 1️⃣"true"
            """, message: "'expect' does not go with 'never'"),
    LoaderErrorCase(
        name: "each without an answer",
        yaml: """
            rules:
              - id: ws.a
                title: A
                each: 1️⃣{ ev: ws.ping, as: p }
            """, message: "'each' needs exactly one of followed_by, preceded_by, never_after"),
    LoaderErrorCase(
        name: "a capture used before it is bound",
        yaml: """
            rules:
              - id: ws.a
                title: A
                forbid:
                  - { ev: ws.ping, where: "1️⃣q.t > 0" }
                  - { ev: ws.pong, as: q }
            """, message: "capture 'q' is used before it is bound"),
    LoaderErrorCase(
        name: "report_at names no capture",
        yaml: """
            rules:
              - id: ws.a
                title: A
                forbid: [{ ev: ws.ping, as: p }, { ev: ws.ping }]
                report_at: 1️⃣q
            """, message: "'report_at' must name a capture of the steps"),
    LoaderErrorCase(
        name: "report_gen names no capture",
        yaml: """
            rules:
              - id: ws.a
                title: A
                each: [{ ev: ws.ping, as: p }, { ev: ws.ping }]
                followed_by: { ev: ws.pong }
                report_gen: 1️⃣q
            """, message: "'report_gen' must name a capture of the steps"),
    LoaderErrorCase(
        name: "report_gen on a check without steps",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.ping, as: p }
                expect: "true"
                report_gen: 1️⃣p
            """, message: "'report_gen' does not go with 'every'"),
    LoaderErrorCase(
        name: "within_ms on the corpus",
        yaml: """
            rules:
              - id: ws.a
                title: A
                for: corpus
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                within_ms: 1️⃣100
            """, message: "'within_ms' needs a timeline with a clock"),
    LoaderErrorCase(
        name: "classify outside the corpus",
        yaml: """
            rules:
              - id: ws.a
                title: A
                classify: 1️⃣{ stream: ws, labels: { ok: { has: { ev: ws.pong } } } }
            """, message: "'classify' labels generations across the corpus: it needs for: corpus"),
    LoaderErrorCase(
        name: "require names no label",
        yaml: """
            rules:
              - id: ws.a
                title: A
                for: corpus
                classify: { stream: ws, labels: { ok: { has: { ev: ws.pong } } } }
                require: [ok, 1️⃣nope]
            """, message: "'require' names no label of 'classify'"),
    LoaderErrorCase(
        name: "between takes two selectors",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
                between: 1️⃣[{ ev: ws.close }]
            """, message: "'between' takes two selectors"),
    LoaderErrorCase(
        name: "a misspelt key gets a suggestion",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
                1️⃣aftr: { ev: ws.close }
            """, message: "unknown key 'aftr' in a rule (did you mean 'after'?)"),
    LoaderErrorCase(
        name: "bad undecided",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "reason != null"
                undecided: 1️⃣maybe
            """, message: "'undecided' must be fail, pass or inconclusive"),
    LoaderErrorCase(
        name: "expression error inside a double-quoted string",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "reason 1️⃣= 'x'"
            """, message: "'=' is not an operator; use '==' to compare"),
    LoaderErrorCase(
        name: "expression error inside a single-quoted string",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: 'gen > 1 or1️⃣'
            """, message: "unexpected end of expression"),
    LoaderErrorCase(
        name: "expression error inside a plain scalar",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: gen > 1️⃣)
            """, message: "unexpected ')'"),
    LoaderErrorCase(
        name: "expression error inside a literal block scalar",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: |
                  reason != null and
                  reason 1️⃣&& gen > 0
            """, message: "use 'and', 'or', 'not' instead of '&'"),
    LoaderErrorCase(
        name: "unknown function",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "gen > 0 and 1️⃣foo(1)"
            """, message: "unknown function 'foo'"),
    LoaderErrorCase(
        name: "wrong number of arguments",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "1️⃣pow(gen) > 1"
            """, message: "pow() takes 2 argument(s), not 1"),
    LoaderErrorCase(
        name: "a where that is a number",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping, where: 1️⃣5 }
            """, message: "'where' must be a condition (true or false), not the int 5"),
    LoaderErrorCase(
        name: "an expect that is a number",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.ping }
                expect: 1️⃣42
            """, message: "'expect' must be a condition (true or false), not the int 42"),
    LoaderErrorCase(
        name: "a negative within_ms",
        yaml: """
            rules:
              - id: ws.a
                title: A
                each: { ev: ws.ping }
                followed_by: { ev: ws.pong }
                within_ms: 1️⃣-5
            """, message: "'within_ms' must be a number of milliseconds >= 0, not -5"),
    LoaderErrorCase(
        name: "next() outside an every expectation",
        yaml: """
            rules:
              - id: ws.a
                title: A
                each: { ev: ws.ping, as: p }
                followed_by: { ev: ws.pong, where: "1️⃣next({ev: ws.close}) == null" }
            """,
        message:
            "next() (look-ahead) can be used only in the expect: of an every check and in its message"
    ),
    LoaderErrorCase(
        name: "next() with since",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.ping, as: p }
                expect: "1️⃣next({ev: ws.pong}, since: p) != null"
            """, message: "next() looks forward from the current event: it takes no since:"),
    LoaderErrorCase(
        name: "params.nope not defined",
        yaml: """
            rules:
              - id: ws.a
                title: A
                params: { limit: 5 }
                every: { ev: ws.close }
                expect: "gen < params.1️⃣nope"
            """, message: "unknown param 'nope' (this rule defines: limit)"),
    LoaderErrorCase(
        name: "since names no capture",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "1️⃣count({ev: ws.ping}, since: x) == 0"
            """, message: "'since: x' names no capture bound before it"),
    LoaderErrorCase(
        name: "expression error in the where of a history selector",
        yaml: """
            rules:
              - id: ws.a
                title: A
                every: { ev: ws.close }
                expect: "count({ev: ws.ping, where: 'gen 1️⃣= 1'}) == 0"
            """, message: "'=' is not an operator"),
    LoaderErrorCase(
        name: "unknown selector test",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping, delay_ms: { 1️⃣gtee: 5 } }
            """, message: "unknown test 'gtee' for field 'delay_ms'"),
    LoaderErrorCase(
        name: "selector that is not a map",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: 1️⃣ws.ping
            """, message: "a selector must be a map of field tests"),
    LoaderErrorCase(
        name: "a fixture setting a param the rule does not have",
        yaml: """
            rules:
              - id: ws.a
                title: A
                params: { n: 1 }
                count: { ev: ws.ping }
                max: params.n
                tests:
                  - name: x
                    params: { n: 2, 1️⃣m: 3 }
                    log: "{}"
                    expect: pass
            """, message: "fixture 'x': 'm' is not a param of the rule (its params: n)"),
    LoaderErrorCase(
        name: "a fixture setting a number param to text",
        yaml: """
            rules:
              - id: ws.a
                title: A
                params: { n: 1 }
                count: { ev: ws.ping }
                max: params.n
                tests:
                  - name: x
                    params: { n: 1️⃣lots }
                    log: "{}"
                    expect: pass
            """, message: "fixture 'x': param 'n' must be of its default's kind (default 1)"),
    LoaderErrorCase(
        name: "fixture with a bad expect",
        yaml: """
            rules:
              - id: ws.a
                title: A
                never: { ev: ws.ping }
                tests:
                  - name: x
                    log: "{}"
                    expect: 1️⃣maybe
            """, message: "'expect' must be pass, fail, inconclusive or not_applicable"),
    LoaderErrorCase(
        name: "a rules file that is a scalar",
        yaml: """
            1️⃣just some text
            """, message: "expected a mapping with 'rules:' at the top, found a scalar"),
    LoaderErrorCase(
        name: "rules that is not a list",
        yaml: """
            rules: 1️⃣{ id: ws.a }
            """, message: "'rules' must be a list of rules, found a mapping")
]

// MARK: - Tests

extension RuleLoaderTests {
    @Test(arguments: loaderErrorCases)
    func oneErrorIsReportedAtItsPosition(_ c: LoaderErrorCase) throws {
        let marked = MarkedRules(c.yaml)
        let errors = try #require(loadErrors([("rules/a.yaml", marked.text)]), "the file loaded")
        #expect(errors.count == 1, "\(errors)")
        let first = try #require(errors.first)
        expectDiagnostic(first, at: marked, containing: c.message)
    }
}
