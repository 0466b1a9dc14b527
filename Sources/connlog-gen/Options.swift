import Foundation

/// What `connlog-gen` was asked to do.
struct GeneratorOptions {
    var seed: UInt64 = 1
    /// Target size in bytes (uncompressed), over all files.
    var size = 10_000_000
    var out: String?
    /// Number of files (`nil`: one file at `out`).
    var files: Int?
    var devices: Int?
    var gzip = false
    var gzipLevel = 6
    var interleave = false
    var faultRate = 0.0
    var faultKinds: Set<FaultKind>?
    var manifest: String?
    var quiet = false
    var listFaults = false
    var help = false
}

/// Errors in the command line.
enum OptionError: Error, CustomStringConvertible {
    case unknownOption(argument: String)
    case missingValue(option: String)
    case invalidValue(option: String, value: String, reason: String)
    case unexpectedArgument(argument: String)
    case missingOutput

    var description: String {
        switch self {
        case let .unknownOption(argument): return "unknown option '\(argument)' (see --help)"
        case let .missingValue(option): return "option \(option) needs a value"
        case let .invalidValue(option, value, reason):
            return "invalid value '\(value)' for \(option): \(reason)"
        case let .unexpectedArgument(argument):
            return "unexpected argument '\(argument)' (see --help)"
        case .missingOutput:
            return "--out is required (a file, a directory with --files, or - for standard output)"
        }
    }
}

/// A small table-driven parser: `--k v`, `--k=v`, flags, and `--` ends the options.
enum OptionParser {
    private struct Spec {
        let name: String
        let takesValue: Bool
        let apply: (inout GeneratorOptions, String) throws -> Void
    }

    private static let specs: [Spec] = [
        Spec(name: "--seed", takesValue: true) { o, v in
            guard let n = UInt64(v) else {
                throw OptionError.invalidValue(
                    option: "--seed", value: v, reason: "not an unsigned integer")
            }
            o.seed = n
        },
        Spec(name: "--size", takesValue: true) { o, v in o.size = try parseSize(v, option: "--size")
        },
        Spec(name: "--out", takesValue: true) { o, v in o.out = v },
        Spec(name: "--files", takesValue: true) { o, v in
            o.files = try parseCount(v, option: "--files")
        },
        Spec(name: "--devices", takesValue: true) { o, v in
            o.devices = try parseCount(v, option: "--devices")
        },
        Spec(name: "--gzip", takesValue: false) { o, _ in o.gzip = true },
        Spec(name: "--gzip-level", takesValue: true) { o, v in
            guard let n = Int(v), (1...9).contains(n) else {
                throw OptionError.invalidValue(
                    option: "--gzip-level", value: v, reason: "not a level 1-9")
            }
            o.gzipLevel = n
            o.gzip = true
        },
        Spec(name: "--interleave", takesValue: false) { o, _ in o.interleave = true },
        Spec(name: "--faults", takesValue: true) { o, v in
            guard let r = Double(v), r >= 0, r <= 1 else {
                throw OptionError.invalidValue(
                    option: "--faults", value: v, reason: "not a rate between 0 and 1")
            }
            o.faultRate = r
        },
        Spec(name: "--fault-kinds", takesValue: true) { o, v in
            var kinds = Set<FaultKind>()
            for name in v.split(separator: ",") {
                guard let k = FaultKind.named(String(name)) else {
                    throw OptionError.invalidValue(
                        option: "--fault-kinds", value: String(name),
                        reason: "no such fault (see --list-faults)")
                }
                kinds.insert(k)
            }
            o.faultKinds = kinds
        },
        Spec(name: "--manifest", takesValue: true) { o, v in o.manifest = v },
        Spec(name: "--quiet", takesValue: false) { o, _ in o.quiet = true },
        Spec(name: "--list-faults", takesValue: false) { o, _ in o.listFaults = true },
        Spec(name: "--help", takesValue: false) { o, _ in o.help = true },
        Spec(name: "-h", takesValue: false) { o, _ in o.help = true }
    ]

    static func parse(_ arguments: [String]) throws -> GeneratorOptions {
        var options = GeneratorOptions()
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if arg == "--" {
                if i < arguments.count {
                    throw OptionError.unexpectedArgument(argument: arguments[i])
                }
                break
            }
            guard arg.hasPrefix("-") else { throw OptionError.unexpectedArgument(argument: arg) }
            var name = arg
            var inline: String?
            if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            guard let spec = specs.first(where: { $0.name == name }) else {
                throw OptionError.unknownOption(argument: arg)
            }
            var value = ""
            if spec.takesValue {
                if let inline {
                    value = inline
                } else {
                    guard i < arguments.count else { throw OptionError.missingValue(option: name) }
                    value = arguments[i]
                    i += 1
                }
            } else if inline != nil {
                throw OptionError.invalidValue(
                    option: name, value: inline!, reason: "this option takes no value")
            }
            try spec.apply(&options, value)
        }
        if !options.help && !options.listFaults && options.out == nil {
            throw OptionError.missingOutput
        }
        if options.files != nil && options.out == "-" {
            throw OptionError.invalidValue(
                option: "--out", value: "-", reason: "--files needs a directory")
        }
        if options.gzip && options.out == "-" {
            throw OptionError.invalidValue(
                option: "--out", value: "-", reason: "--gzip writes files only")
        }
        return options
    }

    private static func parseCount(_ v: String, option: String) throws -> Int {
        guard let n = Int(v), n >= 1 else {
            throw OptionError.invalidValue(option: option, value: v, reason: "not a count >= 1")
        }
        return n
    }

    /// `123`, `100KB`, `100MB`, `1.5GB` (powers of 1000), `64KiB`, `1MiB`, `1GiB` (powers of 1024).
    static func parseSize(_ v: String, option: String) throws -> Int {
        let s = v.trimmingCharacters(in: .whitespaces)
        var numberEnd = s.startIndex
        while numberEnd < s.endIndex, s[numberEnd].isNumber || s[numberEnd] == "." {
            numberEnd = s.index(after: numberEnd)
        }
        let unit = s[numberEnd...].uppercased()
        guard let number = Double(s[..<numberEnd]), number >= 0 else {
            throw OptionError.invalidValue(
                option: option, value: v, reason: "not a size such as 100MB or 1GB")
        }
        let multipliers: [String: Double] = [
            "": 1, "B": 1, "K": 1e3, "KB": 1e3, "M": 1e6, "MB": 1e6, "G": 1e9, "GB": 1e9,
            "KIB": 1024, "MIB": 1_048_576, "GIB": 1_073_741_824
        ]
        guard let m = multipliers[unit] else {
            throw OptionError.invalidValue(
                option: option, value: v,
                reason: "unknown unit '\(s[numberEnd...])' (use KB, MB, GB, KiB, MiB, GiB)")
        }
        let bytes = number * m
        guard bytes >= 1, bytes < 1e15 else {
            throw OptionError.invalidValue(option: option, value: v, reason: "size out of range")
        }
        return Int(bytes)
    }

    static let help = """
        connlog-gen — write a synthetic corpus of connlog JSON Lines logs, seeded and reproducible.

        USAGE
          connlog-gen --out PATH [--size SIZE] [--files N] [--devices N] [options]
          connlog-gen --list-faults | --help

        Simulates a fleet of mobile apps: a WebSocket client with a heartbeat and connection generations
        (pings, on-time, late and missing pongs, timeouts, server closes, receive errors, connect
        failures), reconnects with jittered exponential backoff and fatal-only ping errors, app scene
        changes, an SSE reader that resumes with Last-Event-ID and commits its cursor after processing,
        and a network-path monitor whose hint gates background requests. A healthy corpus (--faults 0)
        passes every rule of conn-audit's default pack; each device's first session shows all four
        outcomes ws.required-outcomes asks for.

        OPTIONS
          --out PATH            the file to write (- for standard output), or with --files a directory
          --size SIZE           total uncompressed size: 500KB, 100MB, 1GB (powers of 1000) or
                                KiB/MiB/GiB (powers of 1024); default 10MB
          --files N             write N files of about SIZE/N each into the directory --out
          --devices N           simulated devices (default: one per file with --files, else one per 4 MB).
                                More devices than files: several per file; fewer: a device's log is
                                rotated over several files (NAME.001.jsonl, NAME.002.jsonl, ...)
          --interleave          devices sharing a file are interleaved in time order, like a collector's
                                file (default: one device after another)
          --gzip                write .jsonl.gz files; --gzip-level 1-9 (default 6)
          --seed N              seed (default 1): the same seed and options give byte-identical output
          --faults RATE         inject faults: each opportunity for each kind is taken with probability
                                RATE (0.01 is a lot of faults; default 0, a healthy corpus)
          --fault-kinds LIST    only these kinds (comma-separated; see --list-faults)
          --manifest FILE       write a JSON manifest: options, sizes, and per fault kind the count, the
                                rule(s) expected to report it and example file:line places
          --quiet               print no summary on standard error
          --list-faults         list the fault kinds and the rules that catch them

        EXAMPLES
          connlog-gen --out big.jsonl --size 1GB
          connlog-gen --out corpus/ --files 1000 --size 1GB --gzip
          connlog-gen --out fleet.jsonl --size 100MB --devices 200 --interleave
          connlog-gen --out faulty.jsonl --size 20MB --faults 0.01 --manifest faults.json
          conn-audit faulty.jsonl --format json > report.json   # compare with faults.json
        """
}
