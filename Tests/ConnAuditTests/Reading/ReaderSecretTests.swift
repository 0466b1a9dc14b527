import Testing

@testable import ConnAudit

/// A line and the key paths its secret scan must report.
struct SecretCase: Sendable, CustomTestStringConvertible {
    var name: String
    var line: String
    var paths: [String]
    var testDescription: String { name }
    init(_ name: String, _ line: String, _ paths: [String]) {
        self.name = name
        self.line = line
        self.paths = paths
    }
}

extension ReaderTests {
    static let secretCases: [SecretCase] = [
        .init("token", #"{"t":0,"ev":"x.y","token":"v"}"#, ["token"]),
        .init("TOKEN", #"{"t":0,"ev":"x.y","TOKEN":"v"}"#, ["TOKEN"]),
        .init("Access_Token", #"{"t":0,"ev":"x.y","Access_Token":1}"#, ["Access_Token"]),
        .init("REFRESH_TOKEN", #"{"t":0,"ev":"x.y","REFRESH_TOKEN":null}"#, ["REFRESH_TOKEN"]),
        .init("Authorization", #"{"t":0,"ev":"x.y","Authorization":"Basic x"}"#, ["Authorization"]),
        .init("PassWord", #"{"t":0,"ev":"x.y","PassWord":"x"}"#, ["PassWord"]),
        .init("Secret", #"{"t":0,"ev":"x.y","Secret":true}"#, ["Secret"]),
        .init("COOKIE", #"{"t":0,"ev":"x.y","COOKIE":["a"]}"#, ["COOKIE"]),
        .init("Body", #"{"t":0,"ev":"x.y","Body":{}}"#, ["Body"]),
        .init("payload", #"{"t":0,"ev":"x.y","payload":""}"#, ["payload"]),
        .init("escaped key name", #"{"t":0,"ev":"x.y","p\u0061ssword":"x"}"#, ["password"]),
        .init(
            "names that only look alike",
            #"{"t":0,"ev":"x.y","token_type":"bearer","tokens":1,"my_token":1,"secrets":1,"bodyguard":1}"#,
            []),
        .init("nested path", #"{"t":0,"ev":"x.y","a":{"b":[{"token":"v"}]}}"#, ["a.b[0].token"]),
        .init(
            "nested in arrays", #"{"t":0,"ev":"x.y","a":[[1,{"Cookie":"c"}]]}"#, ["a[0][1].Cookie"]),
        .init(
            "bearer with 8 token characters", #"{"t":0,"ev":"x.y","note":"Bearer abcdefgh"}"#,
            ["note"]),
        .init("bearer with 7 token characters", #"{"t":0,"ev":"x.y","note":"Bearer abcdefg"}"#, []),
        .init(
            "bearer, 7 characters then a non-token one",
            #"{"t":0,"ev":"x.y","note":"Bearer abcdefg!hijk"}"#, []),
        .init(
            "bearer in any case, several spaces",
            #"{"t":0,"ev":"x.y","note":"auth: BEARER    Ab.c_d~e+f/g=h-"}"#, ["note"]),
        .init("bearer then a tab", #"{"t":0,"ev":"x.y","note":"bearer\tabcdefgh"}"#, ["note"]),
        .init("bearer with no white space", #"{"t":0,"ev":"x.y","note":"bearerabcdefghijkl"}"#, []),
        .init(
            "bearer then a no-break space",
            "{\"t\":0,\"ev\":\"x.y\",\"note\":\"Bearer\u{A0}abcdefgh\"}", ["note"]),
        .init(
            "bearer then an em space and an ideographic space",
            "{\"t\":0,\"ev\":\"x.y\",\"note\":\"Bearer\u{2003}\u{3000}abcdefgh\"}", ["note"]),
        .init(
            "bearer then an escaped no-break space",
            #"{"t":0,"ev":"x.y","note":"Bearer\u00a0abcdefgh"}"#, ["note"]),
        .init(
            "bearer then a non-space letter beyond ASCII",
            "{\"t\":0,\"ev\":\"x.y\",\"note\":\"Bearer\u{E9}abcdefgh\"}", []),
        .init("bearer then a colon", #"{"t":0,"ev":"x.y","note":"Bearer:abcdefghijkl"}"#, []),
        .init(
            "bearer escaped", #"{"t":0,"ev":"x.y","note":"\u0042earer\u0020abcdefghij"}"#, ["note"]),
        .init(
            "bearer in an array item", #"{"t":0,"ev":"x.y","list":["ok","Bearer abcdefgh"]}"#,
            ["list[1]"]),
        .init("JWT", #"{"t":0,"ev":"x.y","jwt":"eyJhbGciOi.eyJzdWIiOi.sig"}"#, ["jwt"]),
        .init("JWT inside text", #"{"t":0,"ev":"x.y","m":"id=eyJh.eyJz. end"}"#, ["m"]),
        .init(
            "JWT without the second dot", #"{"t":0,"ev":"x.y","jwt":"eyJhbGciOi.eyJzdWIiOi"}"#, []),
        .init("JWT with empty parts", #"{"t":0,"ev":"x.y","jwt":"eyJ.eyJ.abcdefgh"}"#, []),
        .init(
            "a flagged key whose value holds a token counts once",
            #"{"t":0,"ev":"x.y","token":"Bearer abcdefghijkl"}"#, ["token"]),
        .init(
            "nested flagged keys count on their own",
            #"{"t":0,"ev":"http.request","ok":true,"body":{"token":"Bearer abcdefghijkl","x":"Bearer abcdefghijkl"}}"#,
            ["body", "body.token"]),
        .init(
            "several on one line, in line order",
            #"{"t":0,"ev":"x.y","a":"Bearer abcdefghij","h":{"Authorization":"x"},"password":"p"}"#,
            ["a", "h.Authorization", "password"]),
        .init(
            "a token in a key is no finding (it is redacted where shown)",
            #"{"t":0,"ev":"x.y","Bearer abcdefghijkl":1}"#, []),
        // The brief: one violation per offending key path. A key with a dot is not the nested key
        // its text reads like: each is its own path, and the paths read apart.
        .init(
            "a key with a dot and the nested key it reads like are two paths",
            #"{"t":0,"ev":"x.y","a.token":"Bearer abcdefghijk","a":{"token":"x"}}"#,
            [#"["a.token"]"#, "a.token"]),
        .init(
            "a key with a bracket and an array item are two paths",
            #"{"t":0,"ev":"x.y","x":{"b[0]":"Bearer abcdefghij"},"x":{"b":["Bearer abcdefghij"]}}"#,
            [#"x["b[0]"]"#, "x.b[0]"]),
        .init(
            "a key with a dot below a key with a dot",
            #"{"t":0,"ev":"x.y","a.b":{"c.d":{"token":1}}}"#, [#"["a.b"]["c.d"].token"#]),
        .init(
            "keys beyond letters, digits, _ and - are quoted: empty, a space, quotes, backslashes, escapes, not ASCII",
            #"{"t":0,"ev":"x.y","":{"token":1},"h":{"X Auth":"Bearer abcdefghij","q\"\\\u0001":"Bearer abcdefghij","clé":{"Cookie":1}},"x-y_Z9":{"body":1}}"#,
            [
                #"[""].token"#, #"h["X Auth"]"#, #"h["q\"\\\u0001"]"#, #"h["clé"].Cookie"#,
                "x-y_Z9.body"
            ]),
        .init(
            "a nested key given twice is one path",
            #"{"t":0,"ev":"x.y","a":{"token":1},"a":{"token":2,"token":3}}"#, ["a.token"]),
        .init(
            "a key spelled with escapes is the same key",
            #"{"t":0,"ev":"x.y","token":1,"t\u006fken":2}"#, ["token"]),
        .init(
            "a malformed line (no t) that is an object is scanned",
            #"{"ev":"x.y","password":"hunter2"}"#, ["password"]),
        .init(
            "a malformed line (bad gen) is scanned",
            #"{"t":0,"ev":"x.y","gen":-1,"n":"Bearer abcdefghijkl"}"#, ["n"]),
        .init("a line that is not JSON is not scanned", #"password: Bearer abcdefghijkl"#, []),
        .init("a broken object is not scanned", #"{"t":0,"ev":"x.y","password":"hunter2","#, []),
        .init("an array is not scanned", #"[{"password":"hunter2"}]"#, [])
    ]

    /// The secret key names' lengths are written out as a constant (no lazy table per key): they
    /// are the names' lengths, and a name of each other length up to 63 bytes is not a secret key.
    @Test("the secret names' lengths are the names'")
    func secretLengthsAreTheNames() {
        let lengths = JSONLineParser.secretKeyNames.reduce(UInt64(0)) {
            $0 | (1 << UInt64($1.count))
        }
        #expect(JSONLineParser.secretLengths == lengths)
        for name in ["TOKEN", "Password", "payload", "Authorization", "refresh_token"] {
            #expect(JSONLineParser.isSecretKeyName(name), "\(name)")
        }
        for name in ["tokens", "passwd", "pay", "session", "gen", "src", "cookies"] {
            #expect(!JSONLineParser.isSecretKeyName(name), "\(name)")
        }
    }

    @Suite("Secrets")
    struct Secrets {
        @Test("the secret scan reports each offending key path", arguments: ReaderTests.secretCases)
        func scan(_ c: SecretCase) throws {
            let (lines, _) = ReaderTests.read(
                "{\"t\":0,\"ev\":\"x.before\"}\n" + c.line + "\n{\"t\":1,\"ev\":\"x.after\"}\n")
            try #require(lines.count == 3)
            #expect(lines[1].secretPaths == c.paths)
            for secret in lines[1].secrets {
                #expect(secret.ev == "$secret")
                #expect(secret.line == 2)
            }
            #expect(lines[0].secrets.isEmpty && lines[2].secrets.isEmpty)
        }

        @Test("a key path repeated by a duplicate key is one offending path")
        func duplicateFlaggedKey() throws {
            let read = ReaderTests.one(#"{"t":0,"ev":"x.y","token":"a","token":"b"}"#)
            #expect(read.secretPaths == ["token"])
        }

        @Test(
            "the value of a field holding a secret never reaches the event; tokens read as a hash of their text, secret key names as [redacted]"
        )
        func redactedFields() throws {
            let line =
                #"{"t":0,"ev":"ws.close","gen":1,"reason":"user","note":"x Bearer abcdefghijkl","#
                + #""headers":{"Authorization":"Basic zzz","x":1},"list":["eyJhbGciOi.eyJzdWIiOi.sig"],"ok":"fine"}"#
            for wanted in [nil, Set(["reason", "note", "headers", "ok"])] as [Set<String>?] {
                let read = ReaderTests.one(line, wanted: wanted)
                let event = try #require(read.event, "\(read.item)")
                #expect(read.secretPaths == ["note", "headers.Authorization", "list[0]"])
                for key in ["note", "headers", "list"] {
                    #expect(event.value(of: key)?.string?.hasPrefix("[redacted") == true, "\(key)")
                    #expect(event.isRedacted(key), "\(key)")
                }
                // A token (no secret key name in the value) keeps a hash of its text when rules
                // read the field; `headers` holds a key named Authorization: only [redacted].
                #expect(
                    event.value(of: "note")
                        == .string(FileReader.redactedName(.string("x Bearer abcdefghijkl"))))
                #expect(event.value(of: "headers") == .string("[redacted]"))
                #expect(
                    event.value(of: "list")
                        == .string(
                            wanted == nil
                                ? FileReader.redactedName(
                                    .array([.string("eyJhbGciOi.eyJzdWIiOi.sig")])) : "[redacted]"))
                #expect(event.value(of: "reason") == .string("user"))
                #expect(event.value(of: "ok") == .string("fine"))
                let shown = event.fields.map { $0.value.rendered(bare: false) }.joined(
                    separator: " ")
                for secret in ["abcdefghijkl", "zzz", "eyJ"] {
                    #expect(!shown.contains(secret), "\(secret) in \(shown)")
                }
            }
        }

        @Test("a flagged ev keeps its stream only when the whole token is after the first dot")
        func evRedaction() throws {
            let cases: [(ev: String, shown: String)] = [
                ("ws.x Bearer abcdefghijkl", "ws.[redacted]"),
                ("ws.eyJhbGciOi.eyJzdWIiOi.sig", "ws.[redacted]"),
                // The token starts before the dot (`.` is a token character): nothing of it is
                // shown.
                ("Bearer SEVNCHR.restoftoken", "[redacted]"),
                ("x Bearer ab.cdefghijkl", "[redacted]"),
                ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig", "[redacted]"),
                ("Bearer abcdefghijkl", "[redacted]")
            ]
            for c in cases {
                let event = try #require(
                    ReaderTests.one(#"{"t":0,"gen":1,"ev":"\#(c.ev)"}"#).event, "\(c.ev)")
                #expect(event.ev == c.shown, "\(c.ev)")
            }
        }

        @Test("a key given twice with a token reads [redacted], whichever occurrence held it")
        func duplicateTokenKeys() throws {
            for line in [
                #"{"t":0,"ev":"x.y","a":"Bearer SECRETAAAA9","a":"Bearer SECRETBBBB9"}"#,
                #"{"t":0,"ev":"x.y","a":"Bearer SECRETAAAA9","a":"plain"}"#,
                #"{"t":0,"ev":"x.y","a":"plain","a":"Bearer SECRETBBBB9"}"#
            ] {
                let event = try #require(ReaderTests.one(line, wanted: ["a"]).event)
                #expect(event.value(of: "a") == .string("[redacted]"), "\(line)")
            }
        }

        /// No hash of a value under a secret key name (it would help guess a weak password); the
        /// rest of the object stays, so two devices stay two sources.
        @Test(
            "a src or session holding a secret key name shows that value as [redacted], the rest as it is"
        )
        func sourceWithSecretKeyInside() throws {
            let read = ReaderTests.one(
                #"{"t":0,"ev":"x.y","src":{"id":1,"password":"SECRETPW17"},"session":"eyJa.eyJb.c"}"#
            )
            let source = try #require(read.source)
            #expect(source.src == #"{"id":1,"password":"[redacted]"}"#)
            #expect(source.srcIsJSON)
            #expect(source.session?.hasPrefix("[redacted ") == true)
            let other = try #require(
                ReaderTests.one(#"{"t":0,"ev":"x.y","src":{"id":2,"password":"SECRETPW17"}}"#)
                    .source)
            #expect(other != source)
            let nested = try #require(
                ReaderTests.one(
                    #"{"t":0,"ev":"x.y","src":["a",{"k":{"Token":"t1"},"n":"Bearer SECRETAAAA9"}]}"#
                ).source)
            #expect(
                nested.src.hasPrefix(#"["a",{"k":{"Token":"[redacted]"},"n":"[redacted "#),
                "\(nested.src)")
            #expect(!nested.src.contains("SECRET") && !nested.src.contains("t1"))
        }

        @Test(
            "the value of a top-level key flagged by its name never reaches the event",
            arguments: [
                #""password":"hunter2""#, #""Token":"hunter2""#, #""body":{"text":"hunter2"}"#,
                #""cookie":["hunter2"]"#
            ])
        func redactedFlaggedKey(field: String) throws {
            let key = String(field.dropFirst().prefix { $0 != "\"" })
            let read = ReaderTests.one(
                #"{"t":0,"ev":"x.y",\#(field),"ok":"fine"}"#, wanted: [key, "ok"])
            let event = try #require(read.event, "\(read.item)")
            #expect(read.secretPaths == [key])
            #expect(event.value(of: "ok") == .string("fine"))
            #expect(event.value(of: key) == .string("[redacted]"), "\(event.fields)")
            #expect(event.isRedacted(key))
            #expect(
                !event.fields.map { $0.value.rendered(bare: false) }.joined().contains("hunter2"))
        }

        /// The brief flags values, but keys are printed too (a field's name, a finding's path, the
        /// timeline): a key holding a token is never shown, and the value under it is not kept.
        @Test(
            "a key holding a token is shown as [redacted], at the top level, nested, and in a finding's path"
        )
        func keysHoldingTokens() throws {
            let line =
                #"{"t":0,"ev":"x.y","eyJhbGciOi.eyJzdWIiOi.sig":{"token":"a"},"#
                + #""x":{"Bearer abcdefghijkl":1},"src":{"eyJa.eyJb.c":2},"ok":"fine"}"#
            for wanted in [nil, Set(["x", "ok"])] as [Set<String>?] {
                let read = ReaderTests.one(line, wanted: wanted)
                let event = try #require(read.event, "\(read.item)")
                // Only the key named `token` is a finding; its path does not show the JWT above it,
                // only a hash of its text.
                #expect(
                    read.secretPaths == [
                        FileReader.redactedName(.string("eyJhbGciOi.eyJzdWIiOi.sig")) + ".token"
                    ])
                #expect(event.value(of: "x") == .string("[redacted]"))
                #expect(event.value(of: "[redacted]") == .string("[redacted]"))
                #expect(event.value(of: "ok") == .string("fine"))
                #expect(read.source?.src == #"{"[redacted]":"[redacted]"}"#)
                let shown = event.fields.map { $0.key + "=" + $0.value.rendered(bare: false) }
                    .joined(separator: " ")
                for secret in ["abcdefghijkl", "eyJ"] {
                    #expect(!shown.contains(secret), "\(secret) in \(shown)")
                }
            }
            // A key of fewer than ten bytes cannot hold a token; ordinary keys are untouched.
            let plain = try #require(ReaderTests.one(#"{"t":0,"ev":"x.y","x":{"eyJ":1}}"#).event)
            #expect(plain.value(of: "x") == .object([.init("eyJ", .int(1))]))
        }

        /// Two keys holding tokens are two key paths: a hash of each key's text tells them apart
        /// where `[redacted]` would print the same path twice.
        @Test("keys holding different tokens are different paths, each shown as a hash of its text")
        func pathsThroughTokenKeys() throws {
            let read = ReaderTests.one(
                #"{"t":0,"ev":"x.y","Bearer SECRETAAAA9":{"token":1},"Bearer SECRETBBBB9":{"token":1},"#
                    + #""x":{"Bearer SECRETAAAA9":{"token":1}}}"#)
            let a = FileReader.redactedName(.string("Bearer SECRETAAAA9"))
            let b = FileReader.redactedName(.string("Bearer SECRETBBBB9"))
            #expect(a != b)
            #expect(read.secretPaths == [a + ".token", b + ".token", "x" + a + ".token"])
            #expect(!read.secretPaths.joined().contains("SECRET"))
        }

        /// A finding's path is made only for findings, and looked up in a set: no quadratic work,
        /// also when each key must be quoted, and when one key path is repeated (one finding).
        @Test(
            "a line of 60,000 flagged keys is read quickly",
            arguments: [
                // 60,000 paths; one key path 60,000 times; 60,000 paths through a quoted key (under 1
                // MiB).
                (
                    #"{"t":0,"ev":"x.y","list":["#, #"{"token":1}"#, "]}", 60_000,
                    "list[59999].token"
                ),
                (#"{"t":0,"ev":"x.y","o":{"#, #""token":1"#, "}}", 1, "o.token"),
                (
                    #"{"t":0,"ev":"x.y","a.b":["#, #"{"body":1}"#, "]}", 60_000,
                    #"["a.b"][59999].body"#
                )
            ])
        func manyFlaggedKeys(head: String, item: String, tail: String, paths: Int, last: String)
            throws
        {
            let line = head + Array(repeating: item, count: 60_000).joined(separator: ",") + tail
            try #require(line.utf8.count < 1 << 20)
            var read: ReaderTests.Read?
            let elapsed = ContinuousClock().measure { read = ReaderTests.one(line) }
            let found = try #require(read).secretPaths
            #expect(found.count == paths)
            #expect(Set(found).count == paths)
            #expect(found.last == last)
            #expect(elapsed < .seconds(20), "took \(elapsed)")
        }

        @Test("a secret in ev, src or session is not kept either")
        func redactedFixedFields() throws {
            let read = ReaderTests.one(
                #"{"t":0,"ev":"x.Bearer abcdefghijkl","src":"Bearer abcdefghijkm","session":"eyJa.eyJb.c"}"#
            )
            let event = try #require(read.event)
            #expect(read.secretPaths == ["ev", "src", "session"])
            // The stream before the secret stays, so the event keeps its timeline.
            #expect(event.ev == "x.[redacted]")
            #expect(
                ReaderTests.one(#"{"t":0,"ev":"Bearer abcdefghijkl.x"}"#).event?.ev == "[redacted]")
            #expect(
                ReaderTests.one(#"{"t":0,"ev":"Bearer abcdefghijkl"}"#).event?.ev == "[redacted]")
            let source = try #require(read.source)
            // Redacted sources stay apart by a hash of the value, never the value itself.
            #expect(
                source.src.hasPrefix("[redacted ")
                    && source.session?.hasPrefix("[redacted ") == true)
            #expect(
                !source.src.contains("abcdefghijkm") && source.session?.contains("eyJ") == false)
            let other = ReaderTests.one(#"{"t":0,"ev":"x.y","src":"Bearer zzzzzzzzzzzz"}"#)
            #expect(other.source?.src.hasPrefix("[redacted ") == true)
            #expect(other.source?.src != source.src)
        }
    }
}
