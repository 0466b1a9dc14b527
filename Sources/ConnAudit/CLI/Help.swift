/// The texts of `conn-audit --help` and of each command's `--help` (`check -h`, `rules --help`).
enum Help {
    /// The whole manual: every command, its options, exit status and examples.
    static let main = [
        intro, usage, paths, checkOptions, mergeOptions, timelineOptions, rulesOptions,
        exitStatus, examples, docs
    ]
    .joined(separator: "\n\n")

    /// One command's page.
    static func page(for command: String) -> String {
        switch command {
        case "timeline":
            return page(
                "conn-audit timeline — the postmortem view: one source's events, generation by generation.",
                usage: "timeline", [paths, timelineOptions], examples(containing: " timeline "))
        case "merge":
            return page(
                "conn-audit merge — one report from the partial results of every shard of a run.",
                usage: "merge", [mergeOptions], examples(containing: " merge "))
        case "rules":
            return page(
                "conn-audit rules — validate, list, explain and test rules.",
                usage: "rules", [rulesOptions], examples(containing: " rules "))
        default:
            return page(
                "conn-audit check — check logs against rules (the default command).",
                usage: "[check]", [paths, checkOptions],
                examples(excluding: [" timeline ", " rules ", " merge "]))
        }
    }

    /// A command's page: its `title`, the usage lines that hold `word`, its `sections`, the exit
    /// status, its `examples` and where the docs are.
    private static func page(
        _ title: String, usage word: String, _ sections: [String], _ examples: String
    ) -> String {
        ([title, "USAGE\n" + usageLine(containing: word)] + sections + [exitStatus, examples, docs])
            .joined(separator: "\n\n")
    }

    /// The usage lines of one command (a line and the lines that continue it).
    private static func usageLine(containing word: String) -> String {
        var out: [Substring] = []
        var taking = false
        for line in usage.split(separator: "\n").dropFirst() {
            if line.hasPrefix("  conn-audit") { taking = line.contains(word) }
            if taking { out.append(line) }
        }
        return out.joined(separator: "\n")
    }

    private static func examples(containing word: String) -> String {
        "EXAMPLES\n"
            + examples.split(separator: "\n").dropFirst().filter { $0.contains(word) }.joined(
                separator: "\n")
    }

    private static func examples(excluding words: [String]) -> String {
        "EXAMPLES\n"
            + examples.split(separator: "\n").dropFirst()
            .filter { line in !words.contains { line.contains($0) } }.joined(separator: "\n")
    }

    static let docs = "Docs: README.md and docs/ in the repository."

    static let intro = """
        conn-audit — judge how network clients really behave, from their connlog JSON Lines logs.
        """

    static let usage = """
        USAGE
          conn-audit [check] PATH... [options]     check logs against rules (the default command)
          conn-audit timeline PATH... [--src S] [--session S] [--stream ws] [--gen N]
                             [--around FILE:LINE] [--format text|json|html]   postmortem view
          conn-audit rules [--rules DIR|FILE]... [--check | --list | --explain ID | --test]
          conn-audit merge PART... [--format FMT] [--report FMT=FILE]...   one report from shards
          conn-audit completions bash|zsh|fish      a completion script: source <(conn-audit completions bash)
          conn-audit help [COMMAND] | --help | --version
        """

    static let paths = """
        PATH is a log file, a directory (searched recursively for *.jsonl, *.ndjson, *.log and the
        same with .gz; hidden names skipped) or - for standard input. Gzip is read transparently.
        """

    static let checkOptions = """
        CHECK OPTIONS
          --rules DIR|FILE      rule files to use (repeatable); default: the built-in pack. The
                                built-in log.* rules (malformed lines, secrets, time going back)
                                run too unless these files define the same ids. A config file's
                                rules: come on top of the built-in pack (unless builtin-rules: false)
          --format FMT          report format: text (default), json, junit, sarif, github,
                                gitlab (Code Quality), concise (PATH:LINE: RULE: MESSAGE), or
                                partial (JSON Lines for 'conn-audit merge'; exit 0 once written)
          --output FILE         write the report to FILE instead of standard output
          --report FMT=FILE     also write a report in another format from the same run
                                (repeatable): --report junit=report.xml --report sarif=out.sarif
          --fail-on LEVEL       error|warning|info|never: lowest severity that fails (default error)
          --param NAME=VALUE    override a rule parameter; NAME or RULE_ID.NAME (repeatable)
          --only ID|GLOB        run only matching rules (repeatable)
          --skip ID|GLOB        do not run matching rules (repeatable)
          --jobs N              worker threads (default: number of cores)
          --max-expansion RATIO refuse a gzip input that expands more than RATIO times its size
                                (default 100; logs reach about 15, bombs 1,000; 0: no cap). A
                                refused input is named and checked up to there; exit 2
          --color auto|always|never
                                colour in the text report (default auto: only on a terminal,
                                and not when NO_COLOR is set or TERM is dumb)
          --progress auto|always|never
                                a progress line on standard error: bytes, files, events/s, time
                                left (default auto: only when standard error is a terminal and
                                not with --quiet, from one second on, cut to the terminal's width,
                                erased at the end; always: also into a log, every 5 s and a last
                                line with what was read)
          --quiet               print nothing; the exit status tells the verdict
          --use corpus|gate     what the run judges (default corpus: a soak or fleet corpus). gate:
                                one upload, where corpus coverage (ws.required-outcomes) is not
                                applicable
          --config FILE         read settings and suppressions from FILE (default: the nearest
                                .conn-audit.yaml at or above the working directory, up to the
                                repository's root); the command line wins over it
          --no-config           read no config file
          --show-config         print the settings in force (as a config file) and exit
          --shard K/N           judge only shard K of N (K from 1 to N): the sources whose key
                                hashes to K, each with all its files; with --format partial, the
                                part 'conn-audit merge' makes one report of. Every shard skims
                                every file for its sources; a file of one source is read in full
                                by one shard (docs/scale-out.md)
          --exact-baseline FILE accept the violations of this exact log recorded in FILE (shown as
                                baselined, they do not fail the gate; expired entries accept
                                nothing). For known issues on new logs, use suppressions
          --write-exact-baseline FILE
                                record every current violation in FILE, to accept them for now (at
                                most 64 MiB: a larger one is not written, exit 2)
          Short forms: -f for --format, -o --output, -j --jobs, -q --quiet, -h --help
        """

    static let mergeOptions = """
        MERGE OPTIONS
          PART is a partial result (--format partial, gzip too) of one shard; give every shard's.
          The report is the one a single check over all the logs writes, byte for byte, and so
          is the exit status. The merge loads the rules as check does: give it the --rules,
          --param, --only, --skip and config file the shards had (a partial of other rules, or
          of suppressions whose fields: differ, is refused). Partials of another format version,
          cut short, of other input files, of a different number of shards, or with a shard
          missing or given twice are refused (exit 2).
          --format, --output, --report, --fail-on, --use, --color, --quiet, --exact-baseline,
          --write-exact-baseline, --max-expansion, --config, --no-config as for check
        """

    static let timelineOptions = """
        TIMELINE OPTIONS
          --src S, --session S  the device and process run to show (a source without src: its file)
          --stream NAME         only this stream (ws, sse, path, ...)
          --gen N               only this generation
          --around FILE:LINE    centre on the event at FILE:LINE (its source and generation)
          --radius N            with --around: events shown before and after it (default 15)
          --format text|json|html  (default text; html: one self-contained page to attach to a ticket)
          --show findings|all   the timelines with findings only (the default for html, with long
                                ones cut to the rows near their findings), or all (the default for
                                text and json)
          --output FILE, --rules, --param, --jobs, --max-expansion, --color, --config,
          --no-config as for check (a config file gives its rules and params here too)
          Each event shows its file:line, t, the time since its generation's connect and since the
          last ping, the phase when it changes, and the violations that point at it.
        """

    static let rulesOptions = """
        RULES OPTIONS
          --check               validate the rules; errors and warnings with file:line:column
                                (--format json: the same as one JSON document, exit 2 on errors)
          --list                list the rules: id, severity, scope, title
          --explain ID          show one rule: title, description, severity, scope, params, YAML
                                (a secret in its fixtures or text shows as [redacted])
          --test                run every rule's fixtures (tests:); exit 1 on any mismatch
          --config FILE, --no-config as for check: a config file's rules are the ones meant
        """

    static let exitStatus = """
        EXIT STATUS
          0  every rule passed at the --fail-on level
          1  at least one violation at or above --fail-on
          2  no verdict: bad usage, invalid rules, an input that could not be read, or a
             report that could not be written (standard output included)
          Malformed log lines are violations of log.malformed, not exit 2.
        """

    static let examples = """
        EXAMPLES
          conn-audit samples/                         check the bundled samples, built-in rules
          conn-audit logs/ --rules rules/ --format json --output report.json
          conn-audit uploads/ --format github --report junit=junit.xml --report sarif=conn-audit.sarif
          conn-audit uploads/ --use gate --exact-baseline gate/baseline.json
          conn-audit --show-config
          conn-audit upload.jsonl.gz --fail-on warning --param timeout_ms=2000
          cat device.log | conn-audit - --only 'ws.*'
          conn-audit logs/ --shard 2/4 --format partial --output part-2.jsonl
          conn-audit merge part-*.jsonl --format github --report junit=junit.xml
          conn-audit timeline samples/ --src ipad-b --gen 1
          conn-audit timeline samples/ --around samples/violations/ipad-b.jsonl:7
          conn-audit rules --rules my-rules/ --check
          conn-audit rules --explain ws.single-close
        """
}
