import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs `body` with a new, empty directory under the temporary directory, then removes it with
/// everything in it. `name` goes into the directory's name, to tell which suite left it.
///
/// The removal works on bytes and makes each directory writable first, so names that are not
/// UTF-8 and permissions a case took away do not leave the tree behind.
public func withScratchDirectory(_ name: String, _ body: (String) throws -> Void) throws {
    let dir =
        FileManager.default.temporaryDirectory.path + "/conn-audit-\(name)-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { removeTree(Array(dir.utf8)) }
    try body(dir)
}

/// Removes `path` and what is under it; a link is removed, never followed.
private func removeTree(_ path: [UInt8]) {
    let cPath = path.map { CChar(bitPattern: $0) } + [0]
    var info = stat()
    guard lstat(cPath, &info) == 0 else { return }
    guard info.st_mode & S_IFMT == S_IFDIR else {
        _ = unlink(cPath)
        return
    }
    _ = chmod(cPath, 0o700)
    if let stream = opendir(cPath) {
        var names: [[UInt8]] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if name != [0x2E] && name != [0x2E, 0x2E] { names.append(name) }
        }
        closedir(stream)
        for name in names { removeTree(path + [0x2F] + name) }
    }
    _ = rmdir(cPath)
}
