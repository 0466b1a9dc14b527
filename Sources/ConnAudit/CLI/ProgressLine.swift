import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The progress line `check` writes on standard error while it reads: bytes, files, events,
/// events per second and the time left.
///
/// On a terminal it appears once the run has lasted ``terminalDelay`` and is drawn over itself
/// every ``terminalInterval``, then erased, so a quick run writes nothing and a long one leaves
/// nothing behind. Asked for elsewhere (`--progress always` into a CI log), it writes a line every
/// ``logInterval`` and a last one saying what was read: lines a log keeps. It runs on a thread of
/// its own and only reads the ``RunProgress`` counters, so it never slows the readers.
final class ProgressLine: @unchecked Sendable {
    static let terminalDelay = 1.0
    static let terminalInterval = 0.25
    static let logInterval = 5.0

    private let progress: RunProgress
    private let write: (String) -> Void
    /// Drawn over itself on a terminal (else one line each time, in a log).
    private let redraw: Bool
    /// The terminal erases to the end of the line on `ESC [ K` (not `TERM=dumb`: spaces do it).
    private let erases: Bool
    private let delay: Double
    private let interval: Double
    /// The terminal's width: a drawn line is cut to one character less, so that it never wraps
    /// (a wrapped line is not drawn over by `\r`, and would be left behind).
    private let width: Int
    private let started = DispatchTime.now()
    private let stopSignal = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private var running = false
    /// The length of the line on the screen (0: none is).
    private var shown = 0

    init(
        progress: RunProgress, terminal: Bool, erases: Bool, write: @escaping (String) -> Void,
        width: Int = 80, delay: Double? = nil, interval: Double? = nil
    ) {
        self.progress = progress
        self.width = max(20, width)
        self.write = write
        redraw = terminal
        self.erases = erases
        self.delay = delay ?? (terminal ? Self.terminalDelay : Self.logInterval)
        self.interval = interval ?? (terminal ? Self.terminalInterval : Self.logInterval)
    }

    /// Starts the thread that draws the line.
    func start() {
        running = true
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let made = pthread_create(
            &thread, nil,
            { context in
                let line = Unmanaged<ProgressLine>.fromOpaque(context!).takeRetainedValue()
                line.run()
                return nil
            }, context)
        if made == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<ProgressLine>.fromOpaque(context).release()
            running = false
        }
    }

    /// Stops the thread, then erases the line from a terminal, or ends a log with what was read.
    func stop() {
        guard running else { return }
        running = false
        stopSignal.signal()
        done.wait()
        if redraw {
            if shown > 0 { write("\r" + blank(shown)) }
        } else {
            write(Self.summary(progress.snapshot, files: progress.files, seconds: elapsed) + "\n")
        }
    }

    private func run() {
        defer { done.signal() }
        guard stopSignal.wait(timeout: .now() + delay) == .timedOut else { return }
        repeat {
            var text = Self.text(
                progress.snapshot, total: progress.totalBytes, files: progress.files,
                seconds: elapsed)
            if redraw {
                text = Self.fitted(text, width: width - 1)
                write(
                    "\r" + text
                        + (erases
                            ? "\u{1B}[K"
                            : String(repeating: " ", count: max(0, shown - text.utf8.count))))
                shown = text.utf8.count
            } else {
                write(text + "\n")
            }
        } while stopSignal.wait(timeout: .now() + interval) == .timedOut
    }

    /// What erases a line of `n` characters, the cursor at its start.
    private func blank(_ n: Int) -> String {
        erases ? "\u{1B}[K" : String(repeating: " ", count: n) + "\r"
    }

    private var elapsed: Double {
        Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
    }

    // MARK: - Text

    /// `conn-audit: 312.4 MB of 500.0 MB (62%), 3 of 10 files, 4,100,000 events (350,000/s), about
    /// 12 s left`; without a total (standard input), no share and no time left.
    static func text(_ s: RunProgress.Snapshot, total: Int?, files: Int, seconds: Double) -> String
    {
        var out = "conn-audit: " + megabytes(s.bytes)
        if let total, total > 0 {
            let share = min(100, s.bytes * 100 / total)
            out += " of \(megabytes(total)) (\(share)%)"
        }
        out +=
            ", \(s.filesRead) of \(files) file\(files == 1 ? "" : "s"), \(grouped(s.events)) events"
        if seconds > 0 { out += " (\(grouped(Int(Double(s.events) / seconds)))/s)" }
        if let total, total > 0, s.bytes > 0, seconds > 0 {
            if s.bytes >= total {
                out += ", finishing"
            } else {
                let left = Double(total - s.bytes) / (Double(s.bytes) / seconds)
                out += ", about \(duration(left)) left"
            }
        }
        return out
    }

    /// `text` in at most `width` characters: its last `, `-separated parts dropped until it fits,
    /// and the first part cut if even that is too wide.
    static func fitted(_ text: String, width: Int) -> String {
        guard text.count > width else { return text }
        // The line's parts are joined by ", " and hold no comma followed by a space themselves
        // (numbers are grouped with bare commas).
        var parts = text.split(separator: ", ", omittingEmptySubsequences: false).map(String.init)
        while parts.count > 1, parts.joined(separator: ", ").count > width { parts.removeLast() }
        return String(parts.joined(separator: ", ").prefix(width))
    }

    /// The last line of a log: `conn-audit: read 500.0 MB, 10 files, 6,000,000 events in 14.2 s`.
    static func summary(_ s: RunProgress.Snapshot, files: Int, seconds: Double) -> String {
        let tenths = (seconds * 10).rounded() / 10
        return "conn-audit: read \(megabytes(s.bytes)), \(files) file\(files == 1 ? "" : "s"), "
            + "\(grouped(s.events)) events in \(tenths) s"
    }

    /// Bytes as megabytes with one decimal (`0.0 MB` to `1234.5 MB`).
    static func megabytes(_ bytes: Int) -> String {
        let tenths = (bytes * 10 + 500_000) / 1_000_000
        return "\(tenths / 10).\(tenths % 10) MB"
    }

    /// `4100000` as `4,100,000`.
    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out += "," }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }

    /// `12 s`, `3:05` (minutes), `1:02:05` (hours).
    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.up))
        if s < 60 { return "\(s) s" }
        let (h, m, r) = (s / 3600, s / 60 % 60, s % 60)
        let mm = h > 0 && m < 10 ? "0\(m)" : "\(m)"
        let ss = r < 10 ? "0\(r)" : "\(r)"
        return h > 0 ? "\(h):\(mm):\(ss)" : "\(mm):\(ss)"
    }
}
