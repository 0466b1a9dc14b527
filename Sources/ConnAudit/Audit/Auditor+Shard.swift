/// Which files one shard of a run reads (``Shard``): the files it owns and those that hold one of
/// its sources, found by skimming every file for its source keys.
extension Auditor {
    /// What one shard does with a file of the run.
    struct FileRole: Equatable {
        /// Read in full: it owns the file or the file holds one of its sources.
        var read: Bool
        /// Its lines are counted and its reader findings judged here.
        var owned: Bool

        static let skipped = FileRole(read: false, owned: false)
    }

    /// The role of each of `inputs` in `shard`. A file that cannot be opened is owned by the shard
    /// its place names, which reads it and reports why it could not.
    func fileRoles(of inputs: [InputFile], in shard: Shard) -> [FileRole] {
        parallelMap(inputs.count, jobs: jobs) { i, _ in
            let keys = self.sourceKeys(of: inputs[i], index: Int32(i))
            let owned = shard.fileOwner(keys: keys, index: i) == shard.index
            let holdsOwn = keys.contains { shard.owns($0) }
            return FileRole(read: owned || holdsOwn, owned: owned)
        }
    }

    /// The source keys of `input`, as the full reader keys them: from the light pre-pass, or when
    /// a line needs the full reader, from reading the file in full.
    private func sourceKeys(of input: InputFile, index: Int32) -> [SourceKey] {
        if let ends = (try? opener(input)).flatMap({
            SourceEndScan.ends(of: LineReader($0), path: input.path)
        }) {
            return Array(ends.keys)
        }
        guard let source = try? opener(input) else { return [] }
        let reader = FileReader(index: index, path: input.path, source: source, wantedFields: [])
        var count: Int32 = 0
        while let item = reader.next() {
            if case .event(_, let id, _) = item, id >= count { count = id + 1 }
        }
        return (0..<count).map { reader.key(of: $0) }
    }
}
