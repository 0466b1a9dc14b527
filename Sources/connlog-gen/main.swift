// connlog-gen: a seeded, reproducible generator of connlog corpora for conn-audit's benchmarks and
// end-to-end checks. Depends on nothing but Foundation and zlib.
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("connlog-gen: error: \(message)\n".utf8))
    exit(code)
}

private func elapsed(since start: timespec) -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec - start.tv_sec) + Double(now.tv_nsec - start.tv_nsec) / 1e9
}

let options: GeneratorOptions
do {
    options = try OptionParser.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    fail("\(error)", code: 2)
}

if options.help {
    print(OptionParser.help)
    exit(0)
}
if options.listFaults {
    for kind in FaultKind.allCases {
        let name = kind.name.padding(toLength: 28, withPad: " ", startingAt: 0)
        print("\(name)\(kind.expectedRules.joined(separator: ", "))")
        print(String(repeating: " ", count: 28) + kind.summary)
    }
    exit(0)
}

var start = timespec()
clock_gettime(CLOCK_MONOTONIC, &start)
let plan = CorpusPlan(options)
let writer = CorpusWriter(options: options, plan: plan)
let summary: CorpusSummary
do {
    // Two workers write different files at once; a single file is always one worker.
    let cores = ProcessInfo.processInfo.activeProcessorCount
    summary = try writer.run(workers: cores)
} catch {
    fail("\(error)", code: 1)
}
let seconds = elapsed(since: start)

if let path = options.manifest {
    let text = Manifest.render(
        options: options, plan: plan, summary: summary, faults: writer.faults)
    do {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    } catch {
        fail("cannot write the manifest \(path): \(error.localizedDescription)", code: 1)
    }
}

if !options.quiet {
    let mb = Double(summary.bytes) / 1e6
    let injected = writer.faults.counts.reduce(0, +)
    var line = String(
        format: "connlog-gen: %d file(s), %d device(s), %.1f MB, %d lines in %.2f s (%.0f MB/s)",
        summary.files, plan.deviceCount, mb, summary.lines, seconds, seconds > 0 ? mb / seconds : 0)
    if options.faultRate > 0 { line += ", \(injected) faults injected" }
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
