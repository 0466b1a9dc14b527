import ConnAudit

/// What one in-process run of the command line printed, and its exit status.
public struct CommandLineRun {
    public var code: Int32
    public var out: String
    public var err: String

    private final class Captured: @unchecked Sendable {
        var out = ""
        var err = ""
    }

    /// Runs `arguments` through ``CommandLineTool/run(_:console:)`` with a capturing console,
    /// which may pose as a terminal (`--color auto`) in an environment that allows colour or not,
    /// and whose standard error may pose as one (`--progress auto`).
    public init(
        _ arguments: [String], terminal: Bool = false, colorAllowed: Bool = true,
        errTerminal: Bool = false
    ) {
        self.init(terminal: terminal, colorAllowed: colorAllowed, errTerminal: errTerminal) {
            CommandLineTool.run(arguments, console: $0)
        }
    }

    /// Runs `argv`, the arguments as the bytes a process gets them, through
    /// ``CommandLineTool/run(argv:console:)`` with a capturing console.
    public init(argv: [[UInt8]]) {
        self.init(terminal: false, colorAllowed: true, errTerminal: false) {
            CommandLineTool.run(argv: argv, console: $0)
        }
    }

    private init(
        terminal: Bool, colorAllowed: Bool, errTerminal: Bool, _ run: (Console) -> Int32
    ) {
        let captured = Captured()
        let console = Console(
            out: { captured.out += $0 }, err: { captured.err += $0 }, isTerminal: terminal,
            colorAllowed: colorAllowed, errIsTerminal: errTerminal)
        code = run(console)
        out = captured.out
        err = captured.err
    }
}
