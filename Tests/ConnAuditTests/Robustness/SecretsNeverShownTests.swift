import Foundation
import Testing

@testable import ConnAudit
import ConnAuditTestSupport
import ConnSoak

/// No output shows a secret: context lines, message holes, source names and the timeline in all
/// its formats go through one detector (``SecretShapes``), which finds what secret scanners find
/// in logs, beyond the keys and tokens `log.no-secrets` flags.
@Suite struct SecretsNeverShownTests {
    // MARK: - The detector

    /// Texts with a secret, and the secret part that must be gone.
    static let hidden: [(text: String, secret: String)] = [
        ("Basic dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy"),
        ("Authorization: Bearer%20abcdEFGH1234", "abcdEFGH1234"),
        ("Authorization: Bearer+abcdEFGH1234", "abcdEFGH1234"),
        ("Proxy-Authorization: Basic cHJveHk6c2VjcmV0", "cHJveHk6c2VjcmV0"),
        (
            "Authorization: Digest username=\"u\", response=\"6629fae49393a05397450978507c4ef1\"",
            "6629fae4"
        ),
        ("GET /x?access_token=tokSECRET1&v=2 failed", "tokSECRET1"),
        ("wss://h.example/ws?token=tokSECRET2", "tokSECRET2"),
        ("https://h.example/a?api_key=keySECRET3#f", "keySECRET3"),
        ("Set-Cookie: sid=abc; Path=/; HttpOnly", "sid=abc"),
        ("cookie=xyzSECRET4", "xyzSECRET4"),
        ("{\"password\":\"hunter2\",\"user\":\"u\"}", "hunter2"),
        ("{\\\"client_secret\\\":\\\"cs-SECRET5\\\"}", "cs-SECRET5"),
        ("x-auth-token: xatSECRET6", "xatSECRET6"),
        ("refreshToken=rtSECRET7", "rtSECRET7"),
        ("passwd: pwSECRET8", "pwSECRET8"),
        ("https://user:pwSECRET9@h.example/path", "pwSECRET9"),
        ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl end", "c2lnbmF0dXJl"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.", "eyJzdWIiOiIxIn0"),
        ("key AKIAIOSFODNN7EXAMPLE used", "AKIAIOSFODNN7EXAMPLE"),
        ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnop"),
        ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "github_pat_11ABCDEFG"),
        ("glpat-abcdefghij0123456789", "glpat-abcdefghij"),
        ("xoxb-1234567890-abcdefghij", "xoxb-1234567890"),
        ("sk_live_abcdefghij0123456789", "sk_live_abcdefghij"),
        ("AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIzaSyA1234567890"),
        ("sk-proj-abcdefghij0123456789ABCDEF", "sk-proj-abcdefghij"),
        ("npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_abcdefghijklmnop"),
        ("https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX", "T000/B000/XXXX"),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
            "MIIEpAIBAAKCAQEA"
        ),
        ("bearer\u{00A0}abcdefgh12", "abcdefgh12"),
        ("xbearer abcdefgh12", "abcdefgh12")
    ]

    /// Texts that hold no secret: shown as they are.
    static let kept = [
        "pong_timeout", "token_type", "token expired", "Basic auth failed", "bearer", "user closed",
        "https://h.example/ws?v=2&gen=3", "NSURLErrorDomain:-1009", "a.b.c.d",
        "sk-learn-is-a-library",
        "session s7", "ws.close", "a:b:c:d:e", "Authorization", "retry in 5 s", "key=value",
        "token=",
        "password:", "eyJ", "", "[redacted]", "token=[redacted]"
    ]

    @Test(arguments: hidden)
    func aSecretInTextIsHidden(_ c: (text: String, secret: String)) {
        let shown = SecretShapes.text(c.text)
        #expect(!shown.contains(c.secret), "'\(c.text)' shows '\(shown)'")
        #expect(shown.contains(SecretShapes.marker))
    }

    @Test(arguments: kept)
    func textWithoutASecretIsShownAsItIs(_ text: String) {
        #expect(SecretShapes.text(text) == text)
    }

    @Test(arguments: [
        "token", "access_token", "refresh_token", "authorization", "password", "secret", "cookie",
        "body",
        "payload", "TOKEN", "Authorization", "accessToken", "refreshToken", "id_token",
        "sessionToken",
        "x-auth-token", "X-Api-Key", "apiKey", "api_key", "client_secret", "passwd", "Set-Cookie",
        "Proxy-Authorization", "aws_secret_access_key", "private_key", "credentials"
    ])
    func aSecretKeyNameInAnySpelling(_ key: String) {
        #expect(SecretShapes.isSecretKey(key))
    }

    @Test(arguments: [
        "token_type", "reason", "session", "src", "gen", "url", "tokens", "keyboard", "error",
        "headers"
    ])
    func anOrdinaryKeyName(_ key: String) {
        #expect(!SecretShapes.isSecretKey(key))
    }

    /// Everything log.no-secrets flags in a text, the shared detector hides too: random texts
    /// with bearer tokens and JWTs written among other bytes.
    @Test func theDetectorCoversWhatTheRuleFlags() {
        var random = SplitMix64(seed: 31)
        let pieces = [
            "Bearer ", "bearer\t", "BEARER  ", "eyJ", "eyJabc", ".", "eyJx.", "abcdefgh",
            "12345678", "+/=~-_",
            " ", "\u{00A0}", "x", "Authorization: ", "é", "\"", "=", "&", "eyJa.eyJb.", "token="
        ]
        for _ in 0..<3000 {
            var text = ""
            for _ in 0..<Int(random.next() % 12) {
                text += pieces[Int(random.next() % UInt64(pieces.count))]
            }
            let bytes = Array(text.utf8)
            let flagged = bytes.withUnsafeBufferPointer { JSONLineParser.tokenRanges($0) }
            let hidden = bytes.withUnsafeBufferPointer { SecretShapes.ranges($0) }
            for r in flagged {
                // The rule's match (its word and 8 bytes of token, or a JWT's two parts) lies
                // inside what is hidden.
                let covered = hidden.contains {
                    $0.lowerBound <= r.lowerBound && $0.upperBound >= r.upperBound
                }
                #expect(covered, "\(text.debugDescription): flagged \(r), hidden \(hidden)")
            }
        }
    }

    @Test func theDetectorIsLinear() {
        // Inputs shaped to make a careless scan look back or ahead again and again.
        for unit in ["a:", "eyJ", "bearer ", "token=", "://a:", "-----BEGIN ", "a.", "ghp_"] {
            let text = String(repeating: unit, count: 50_000)
            let start = ContinuousClock.now
            _ = SecretShapes.text(text)
            #expect(ContinuousClock.now - start < .seconds(5), "\(unit) repeated")
        }
    }

    // MARK: - Values

    @Test func structuredValuesHideByKeyAndByPair() {
        let v: Value = .object([
            .init("Set-Cookie", .string("sid=1")),
            .init(
                "pairs",
                .array([
                    .string("Authorization"), .string("Basic Zm9vOmJhcg=="), .string("Accept"),
                    .string("*/*")
                ])),
            .init(
                "har",
                .array([.object([.init("name", .string("Cookie")), .init("value", .string("a=1"))])]
                )),
            .init("url", .string("https://u:pw12345@h/")),
            .init("n", .int(3))
        ])
        let shown = v.shownInside.rendered(bare: false)
        for secret in ["sid=1", "Zm9vOmJhcg", "a=1", "pw12345"] {
            #expect(!shown.contains(secret), "\(shown)")
        }
        for kept in ["Accept", "*/*", "\"n\":3", "Set-Cookie"] {
            #expect(shown.contains(kept), "\(shown)")
        }
        #expect(Value.string("x").shown(under: "apiKey") == nil)
        #expect(Value.bool(true).shown(under: "hasToken") == .bool(true))
    }

    // MARK: - Every output

    /// One generation whose events hold, in fields a rule reads and in its message holes, every
    /// secret the issue found printed; a source name holding one too.
    static let log = """
        {"t":0,"src":"dev AKIAIOSFODNN7EXAMPLE","session":"s token=SESSIONSECRET","ev":"ws.connect","gen":1,"url":"wss://h.example/ws?token=URLSECRET1&access_token=URLSECRET2","headers":{"Set-Cookie":"sid=COOKIESECRET","Proxy-Authorization":"Basic UFJPWFlTRUNSRVQ=","X-Api-Key":"XAPISECRET","x-auth-token":"XAUTHSECRET"},"accessToken":"ATSECRET","refreshToken":"RTSECRET","id_token":"IDSECRET","sessionToken":"STSECRET","client_secret":"CSSECRET","apiKey":"AKSECRET","passwd":"PWSECRET","pairs":[["Authorization","Basic UEFJUlNFQ1JFVA=="],["Cookie","a=PAIRCOOKIE"]]}
        {"t":10,"src":"dev AKIAIOSFODNN7EXAMPLE","session":"s token=SESSIONSECRET","ev":"ws.open","gen":1}
        {"t":20,"src":"dev AKIAIOSFODNN7EXAMPLE","session":"s token=SESSIONSECRET","ev":"ws.close","gen":1,"reason":"Basic dXNlcjpodW50ZXIy"}
        {"t":30,"src":"dev AKIAIOSFODNN7EXAMPLE","session":"s token=SESSIONSECRET","ev":"ws.close","gen":1,"reason":"Authorization: Bearer%20BEARERSECRET1"}
        {"t":40,"src":"dev AKIAIOSFODNN7EXAMPLE","session":"s token=SESSIONSECRET","ev":"ws.close","gen":1,"reason":"x","error":"GET /x?access_token=ERRSECRET done"}

        """

    static let secrets = [
        "AKIAIOSFODNN7EXAMPLE", "SESSIONSECRET", "URLSECRET1", "URLSECRET2", "COOKIESECRET",
        "UFJPWFlTRUNSRVQ",
        "XAPISECRET", "XAUTHSECRET", "ATSECRET", "RTSECRET", "IDSECRET", "STSECRET", "CSSECRET",
        "AKSECRET",
        "PWSECRET", "UEFJUlNFQ1JFVA", "PAIRCOOKIE", "dXNlcjpodW50ZXIy", "BEARERSECRET1", "ERRSECRET"
    ]

    /// A rule that reads every field and prints each in its message.
    static let rules = """
        rules:
          - id: my.show-all
            title: Shows every field
            severity: error
            for: generation
            every: { ev: [ws.connect, ws.close] }
            expect: "url == 'no' and headers == 'no' and accessToken == 'no' and refreshToken == 'no' and id_token == 'no' and sessionToken == 'no' and client_secret == 'no' and apiKey == 'no' and passwd == 'no' and pairs == 'no' and reason == 'no' and error == 'no'"
            message: "{url} {headers} {json(headers)} {headers['Set-Cookie']} {accessToken} {refreshToken} {id_token} {sessionToken} {client_secret} {apiKey} {passwd} {pairs} {json(pairs)} {reason} {error} {src} {session} {text(error)}"

        """

    @Test func noReportFormatShowsASecret() throws {
        try withScratchDirectory("secrets") { dir in
            let logPath = dir + "/dev.jsonl"
            let rulesPath = dir + "/show.yaml"
            try Data(Self.log.utf8).write(to: URL(fileURLWithPath: logPath))
            try Data(Self.rules.utf8).write(to: URL(fileURLWithPath: rulesPath))

            var outputs: [(String, String)] = []
            for extra in [[], ["--rules", rulesPath]] {
                let reports = ["text", "junit", "sarif", "github"].map {
                    ($0, dir + "/r-\($0)-\(extra.count)")
                }
                let run = CommandLineRun(
                    ["check", logPath, "--format", "json"] + extra
                        + reports.flatMap { ["--report", "\($0.0)=\($0.1)"] })
                #expect(run.code == 1, "\(run.err)")
                outputs.append(("json \(extra)", run.out))
                outputs.append(("stderr \(extra)", run.err))
                for (format, path) in reports {
                    outputs.append(
                        ("\(format) \(extra)", try String(contentsOfFile: path, encoding: .utf8)))
                }
                // The message shows its holes (the rule ran and reported).
                if !extra.isEmpty { #expect(run.out.contains("my.show-all")) }
            }
            for format in ["text", "json", "html"] {
                let run = CommandLineRun([
                    "timeline", logPath, "--format", format, "--rules", rulesPath
                ]
                )
                #expect(run.code == 0, "\(run.err)")
                outputs.append(("timeline \(format)", run.out + run.err))
            }
            for (name, text) in outputs {
                for secret in Self.secrets {
                    #expect(!text.contains(secret), "\(name) shows \(secret):\n\(text)")
                }
            }
            // What is not secret is still shown.
            let text = try String(
                contentsOfFile: dir + "/r-text-2", encoding: .utf8)
            #expect(text.contains("wss://h.example/ws?token=[redacted]"), "\(text)")
            #expect(text.contains("src=dev [redacted]"), "\(text)")
        }
    }
}
