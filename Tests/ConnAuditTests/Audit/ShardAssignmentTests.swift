import Testing

@testable import ConnAudit
import ConnAuditTestSupport

/// `--shard K/N`: every source is judged in exactly one shard, whatever files hold it, so the
/// rotated files of one source are read together; every file is counted by exactly one shard;
/// a file of one source is read in full by one shard. The shard of a key is the same on every
/// machine and in every run (FNV-1a of its bytes).
@Suite("Shard assignment")
struct ShardAssignmentTests {
    typealias LogFile = MergeTests.LogFile

    static func auditor(_ files: [LogFile], shard: Shard?) -> Auditor {
        Auditor(
            rules: MergeTests.rules, jobs: 2, shard: shard,
            opener: RuleRuns.opener(files))
    }

    static func parts(_ files: [LogFile], shard: Shard?) -> RunParts {
        let auditor = auditor(files, shard: shard)
        let inputs = files.map { InputFile(path: $0.path) }
        return auditor.runParts(
            inputs, discoveryErrors: [],
            plan: auditor.makePlan(files: Auditor.filePaths(of: inputs)))
    }

    /// Every finding's source, as text, with its rule and place.
    static func findings(_ parts: RunParts) -> [String] {
        var out: [String] = []
        for (rule, list) in parts.total.violations {
            for f in list {
                out.append(
                    "\(rule) \(f.file ?? -1):\(f.line ?? -1) \(f.source?.description ?? "-")")
            }
        }
        return out.sorted()
    }

    @Test(arguments: [2, 3, 7])
    func everySourceIsJudgedInExactlyOneShard(shards n: Int) {
        let files = MergeTests.corpus()
        let whole = Self.parts(files, shard: nil)
        var sources = 0, generations = 0
        var findings: [String] = []
        var owners = [Int](repeating: 0, count: files.count)
        for k in 1...n {
            let shard = Shard(index: k, count: n)
            let part = Self.parts(files, shard: shard)
            sources += part.sources
            generations += part.generations
            findings += Self.findings(part)
            // A finding of a source comes from that source's shard only.
            for list in part.total.violations.values {
                for f in list {
                    if let key = f.source { #expect(Shard.number(of: key, count: n) == k) }
                }
            }
            for (i, owned) in part.owned.enumerated() where owned { owners[i] += 1 }
        }
        #expect(sources == whole.sources)
        #expect(generations == whole.generations)
        #expect(findings.sorted() == Self.findings(whole))
        #expect(owners.allSatisfy { $0 == 1 })
    }

    @Test func rotatedFilesOfOneSourceAreReadTogetherAndOnlyOnce() {
        var files: [LogFile] = []
        for device in 0..<12 {
            for part in 1...3 {
                let t = part * 100
                files.append(
                    (
                        "logs/dev-\(device).\(part).jsonl",
                        """
                        {"t":\(t),"src":"dev-\(device)","ev":"ws.connect","gen":\(part)}
                        {"t":\(t + 5),"src":"dev-\(device)","ev":"ws.open","gen":\(part)}

                        """
                    ))
            }
        }
        let n = 4
        let inputs = files.map { InputFile(path: $0.path) }
        var readBy = [[Int]](repeating: [], count: files.count)
        for k in 1...n {
            let roles = Self.auditor(files, shard: Shard(index: k, count: n)).fileRoles(
                of: inputs, in: Shard(index: k, count: n))
            for (i, role) in roles.enumerated() {
                if role.read { readBy[i].append(k) }
                // A file of one source is owned by the shard that reads it.
                #expect(role.read == role.owned)
            }
        }
        for device in 0..<12 {
            let expected = Shard.number(of: SourceKey(src: "dev-\(device)"), count: n)
            for part in 0..<3 {
                #expect(readBy[device * 3 + part] == [expected])
            }
        }
        // Not all in one shard: the hash spreads them.
        #expect(Set(readBy.map { $0[0] }).count > 1)
    }

    @Test func aFileInterleavingSourcesIsReadByEachOfTheirShards() {
        // Find two sources of different shards among four.
        let n = 4
        let names = (0..<40).map { "d\($0)" }
        let a = names[0]
        let b = names.first {
            Shard.number(of: SourceKey(src: $0), count: n)
                != Shard.number(of: SourceKey(src: a), count: n)
        }!
        let files: [LogFile] = [
            (
                "mixed.jsonl",
                """
                {"t":1,"src":"\(a)","ev":"ws.connect","gen":1}
                {"t":2,"src":"\(b)","ev":"ws.connect","gen":1}
                {"t":3,"src":"\(a)","ev":"ws.open","gen":1}

                """
            ),
            ("only-b.jsonl", "{\"t\":9,\"src\":\"\(b)\",\"ev\":\"ws.close\",\"gen\":1}\n"),
            ("none.jsonl", "not json\n")
        ]
        let inputs = files.map { InputFile(path: $0.path) }
        let ka = Shard.number(of: SourceKey(src: a), count: n)
        let kb = Shard.number(of: SourceKey(src: b), count: n)
        var owners: [[Int]] = [[], [], []]
        for k in 1...n {
            let shard = Shard(index: k, count: n)
            let roles = Self.auditor(files, shard: shard).fileRoles(of: inputs, in: shard)
            #expect(roles[0].read == (k == ka || k == kb))
            #expect(roles[1].read == (k == kb))
            for i in 0..<3 where roles[i].owned { owners[i].append(k) }
        }
        // The least key owns the mixed file; a file without an event, the shard its place names.
        #expect(
            owners[0] == [min(SourceKey(src: a), SourceKey(src: b)) == SourceKey(src: a) ? ka : kb])
        #expect(owners[2] == [2 % n + 1])
    }

    @Test func theHashIsFNV1aOfTheKeyAndStable() {
        // The published FNV-1a 64 test vectors.
        #expect(FNV1a.hash64(bytes: Array("".utf8)) == 0xcbf2_9ce4_8422_2325)
        #expect(FNV1a.hash64(bytes: Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
        #expect(FNV1a.hash64(bytes: Array("foobar".utf8)) == 0x8594_4171_f739_67e8)
        // The key's bytes: a tag, src, and 0xFF before a session.
        #expect(Shard.keyBytes(SourceKey(src: "ab")) == [0, 0x61, 0x62])
        #expect(Shard.keyBytes(SourceKey(src: "ab", session: "s")) == [8, 0x61, 0x62, 0xFF, 0x73])
        #expect(Shard.keyBytes(SourceKey(src: "f.jsonl", srcIsFile: true)).first == 1)
        let key = SourceKey(src: "ab", session: "s")
        #expect(
            Shard.number(of: key, count: 7)
                == Int(FNV1a.hash64(bytes: [8, 0x61, 0x62, 0xFF, 0x73]) % 7) + 1)
        // Pinned: a change here moves every fleet's sources to other shards.
        #expect(Shard.number(of: SourceKey(src: "ipad-b", session: "s7"), count: 1000) == 648)
    }

    @Test func shardsParseAsKOfN() {
        #expect(Shard(parsing: "1/1") == Shard(index: 1, count: 1))
        #expect(Shard(parsing: "7/7") == Shard(index: 7, count: 7))
        for bad in ["0/3", "4/3", "1/0", "", "/", "1/", "/3", "+1/3", " 1/3", "1/3 ", "١/٣"] {
            #expect(Shard(parsing: bad) == nil, "\(bad)")
        }
    }
}
