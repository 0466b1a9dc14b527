/// `conn-audit completions bash|zsh|fish`: a completion script made from the same option tables
/// the commands parse with (``CommandLineTool/checkOptions`` and the others), so it cannot offer an
/// option a command does not take. It completes commands, each command's options (long and short),
/// the values of `--format`, `--fail-on`, `--use`, `--color`, `--progress` and `--show`, the
/// built-in pack's rule ids after `--only`, `--skip` and `--explain`, and file names elsewhere.
/// zsh uses the bash script through `bashcompinit`.
enum Completions {
    static let shells = ["bash", "zsh", "fish"]

    static func script(for shell: String) -> String? {
        switch shell {
        case "bash": return bash
        case "zsh": return "autoload -U +X bashcompinit && bashcompinit\n" + bash
        case "fish": return fish
        default: return nil
        }
    }

    /// The option names of a command, short forms included.
    static func options(of command: String) -> [String] {
        let names = CommandLineTool.options(of: command).map(\.name)
        let shorts = ArgumentParser.shortOptions.filter { names.contains($0.value) }.keys
        return names + shorts.sorted()
    }

    /// The values `--format` takes in each command.
    static func formats(of command: String) -> [String] {
        switch command {
        case "timeline": return ["text", "json", "html"]
        case "rules": return ["text", "json"]
        // A shard writes a partial result; a merge writes what a check does.
        case "check": return CommandLineTool.formats + ["partial"]
        default: return CommandLineTool.formats
        }
    }

    static var ruleIDs: [String] { RuleLoader.builtin(fixtures: false).rules.map(\.id).sorted() }

    static let commands = CommandLineTool.commands + ["help", "completions"]
    static let failOn = AuditReport.FailOn.allCases.map(\.rawValue)
    /// The modes `--color` and `--progress` take.
    static let colors = ["auto", "always", "never"]
    static let uses = RunUse.allCases.map(\.rawValue)
    /// What `timeline --show` takes.
    static let shows = ["findings", "all"]
    /// Options whose value is a file.
    static let fileValued = [
        "--rules", "--output", "-o", "--exact-baseline", "--write-exact-baseline", "--config"
    ]
    /// Options whose value is free text: nothing to offer.
    static let freeValued = [
        "--jobs", "-j", "--param", "--src", "--session", "--stream", "--gen", "--around",
        "--radius", "--max-expansion", "--report"
    ]

    static var bash: String {
        func words(_ list: [String]) -> String { list.joined(separator: " ") }
        func perCommand(_ body: (String) -> [String]) -> String {
            CommandLineTool.commands.map {
                "                \($0)) words=\"\(words(body($0)))\" ;;"
            }.joined(separator: "\n")
        }
        return """
            # conn-audit completion for bash (conn-audit completions bash)
            _conn_audit() {
                local cur prev cmd words
                cur="${COMP_WORDS[COMP_CWORD]}"
                prev="${COMP_WORDS[COMP_CWORD-1]}"
                cmd=check
                case "${COMP_WORDS[1]}" in
                    check|timeline|rules|merge) cmd="${COMP_WORDS[1]}" ;;
                    help|completions)
                        if [ "$COMP_CWORD" -eq 2 ]; then
                            if [ "${COMP_WORDS[1]}" = help ]; then words="\(words(CommandLineTool.commands))"; else words="\(words(shells))"; fi
                            COMPREPLY=($(compgen -W "$words" -- "$cur"))
                        fi
                        return ;;
                esac
                case "$prev" in
                    --format|-f)
                        case "$cmd" in
            \(perCommand(formats))
                        esac
                        COMPREPLY=($(compgen -W "$words" -- "$cur")); return ;;
                    --fail-on) COMPREPLY=($(compgen -W "\(words(failOn))" -- "$cur")); return ;;
                    --use) COMPREPLY=($(compgen -W "\(words(uses))" -- "$cur")); return ;;
                    --color|--progress) COMPREPLY=($(compgen -W "\(words(colors))" -- "$cur")); return ;;
                    --show) COMPREPLY=($(compgen -W "\(words(shows))" -- "$cur")); return ;;
                    --only|--skip|--explain) COMPREPLY=($(compgen -W "\(words(ruleIDs))" -- "$cur")); return ;;
                    \(fileValued.joined(separator: "|"))) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                    \(freeValued.joined(separator: "|"))) return ;;
                esac
                if [[ "$cur" == -* ]]; then
                    case "$cmd" in
            \(perCommand(options))
                    esac
                    COMPREPLY=($(compgen -W "$words" -- "$cur"))
                    return
                fi
                if [ "$COMP_CWORD" -eq 1 ]; then
                    COMPREPLY=($(compgen -W "\(words(commands))" -- "$cur") $(compgen -f -- "$cur"))
                    return
                fi
                [ "$cmd" = rules ] || COMPREPLY=($(compgen -f -- "$cur"))
            }
            complete -o filenames -F _conn_audit conn-audit

            """
    }

    static var fish: String {
        var out = "# conn-audit completion for fish (conn-audit completions fish)\n"
        out +=
            "complete -c conn-audit -n '__fish_use_subcommand' -a '\(commands.joined(separator: " "))'\n"
        for command in CommandLineTool.commands {
            // `check` is also the command when none is named.
            let when =
                command == "check"
                ? "not __fish_seen_subcommand_from timeline rules merge help completions"
                : "__fish_seen_subcommand_from \(command)"
            for option in CommandLineTool.options(of: command) {
                let long = String(option.name.dropFirst(2))
                var line = "complete -c conn-audit -n '\(when)' -l \(long)"
                if let short = ArgumentParser.shortOptions.first(where: { $0.value == option.name }
                )?.key {
                    line += " -s \(short.dropFirst())"
                }
                if option.kind == .value {
                    line += " -r"
                    switch option.name {
                    case "--format":
                        line += " -f -a '\(formats(of: command).joined(separator: " "))'"
                    case "--fail-on": line += " -f -a '\(failOn.joined(separator: " "))'"
                    case "--use": line += " -f -a '\(uses.joined(separator: " "))'"
                    case "--color", "--progress":
                        line += " -f -a '\(colors.joined(separator: " "))'"
                    case "--show": line += " -f -a '\(shows.joined(separator: " "))'"
                    case "--only", "--skip", "--explain":
                        line += " -f -a '\(ruleIDs.joined(separator: " "))'"
                    case _ where freeValued.contains(option.name): line += " -f"
                    default: line += " -F"
                    }
                }
                out += line + "\n"
            }
        }
        out +=
            "complete -c conn-audit -n '__fish_seen_subcommand_from completions' -f -a '\(shells.joined(separator: " "))'\n"
        out +=
            "complete -c conn-audit -n '__fish_seen_subcommand_from help' -f -a '\(CommandLineTool.commands.joined(separator: " "))'\n"
        return out
    }
}
