/// `check --progress`: a line on standard error saying how far the run has read.
extension CommandLineTool {
    /// `--progress auto|always|never`, default auto: on when standard error is a terminal, never
    /// in a CI log unless asked for.
    static func progressMode(_ p: ArgumentParser) throws(UsageError) -> String {
        let mode = p.value("--progress") ?? "auto"
        guard ["auto", "always", "never"].contains(mode) else {
            throw UsageError("--progress must be auto, always or never")
        }
        return mode
    }

    /// The counters and the line drawing them, when `mode` shows progress on this console (`auto`:
    /// not with `--quiet`, which asks for nothing to be printed).
    static func progressLine(_ mode: String, quiet: Bool, files: [InputFile], console: Console)
        -> (progress: RunProgress, line: ProgressLine)?
    {
        guard mode == "always" || (mode == "auto" && console.errIsTerminal && !quiet) else {
            return nil
        }
        let progress = RunProgress(totalBytes: Auditor.progressTotal(of: files), files: files.count)
        let line = ProgressLine(
            progress: progress, terminal: console.errIsTerminal, erases: console.erasesLines,
            write: console.err, width: console.errColumns ?? 80)
        return (progress, line)
    }
}
