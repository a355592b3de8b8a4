//! Examples for every command (shown under `--help` and in the man pages' EXAMPLES), and the
//! man pages' EXIT STATUS, ENVIRONMENT and FILES. Kept apart from the argument definitions so
//! that the help and the pages say the same, and a test checks that every command has some.

/// `(command path, [(command line, what it does)])`; the path is the words after `finch`.
pub const EXAMPLES: &[(&str, &[(&str, &str)])] = &[
    (
        "",
        &[
            ("finch add @acme/weather", "install a mini tool from npm"),
            ("finch list", "what is installed, and whether it is enabled"),
            ("finch run", "a console to call tools by hand"),
        ],
    ),
    (
        "add",
        &[
            ("finch add @acme/weather", "the latest version from npm"),
            (
                "finch add @acme/weather@^2 -g",
                "a range, into the global tier",
            ),
            (
                "finch add ./my-tool -d",
                "link a source directory while you develop it",
            ),
        ],
    ),
    (
        "update",
        &[
            ("finch update weather", "one mini tool, from where it came"),
            (
                "finch update --all --dry-run",
                "what would change, changing nothing",
            ),
        ],
    ),
    (
        "remove",
        &[
            (
                "finch remove weather",
                "uninstall it; its data directory is kept",
            ),
            ("finch remove weather -g", "from the global tier"),
        ],
    ),
    (
        "list",
        &[
            ("finch list", "the personal tier"),
            (
                "finch list --all-tiers --long",
                "both tiers as a table, also into a pipe",
            ),
            ("finch --json list", "for scripts"),
        ],
    ),
    (
        "enable",
        &[
            ("finch enable weather", "let the agent use it"),
            ("finch enable weather devtool", "several at once"),
        ],
    ),
    (
        "disable",
        &[
            ("finch disable weather", "keep it installed but unused"),
            ("finch disable weather -g", "in the global tier"),
        ],
    ),
    (
        "reload",
        &[
            (
                "finch reload",
                "rescan, start every mini tool, rebuild the catalog",
            ),
            ("finch reload weather", "report on one mini tool only"),
        ],
    ),
    (
        "where",
        &[
            ("finch where", "every home and state file"),
            ("finch --json where", "the same for scripts"),
        ],
    ),
    (
        "doctor",
        &[
            (
                "finch doctor",
                "check the environment (or the package in this directory)",
            ),
            (
                "finch doctor ./my-tool",
                "check a mini tool package before publishing it",
            ),
            ("finch doctor --state", "check finch's state files"),
        ],
    ),
    (
        "new",
        &[
            ("finch new weather", "a mini tool package in ./weather"),
            (
                "finch new acme-mcp --id acme@mcp --template mcp",
                "the scoped package @acme/mcp, using the host's MCP client",
            ),
        ],
    ),
    (
        "test",
        &[
            ("finch test", "build if needed, then run finch.test.json"),
            (
                "finch test --reporter junit > junit.xml",
                "JUnit XML for CI",
            ),
            (
                "finch test --update",
                "take the actual answers as the new expectations",
            ),
        ],
    ),
    (
        "pack",
        &[
            (
                "finch pack",
                "build, check, write the npm tarball and install it as a check",
            ),
            ("finch --json pack", "the files and sizes, for scripts"),
        ],
    ),
    (
        "dev",
        &[
            (
                "finch dev",
                "build, load and reload the package in this directory, with a console",
            ),
            ("finch dev ./weather", "the same for another directory"),
        ],
    ),
    (
        "memory",
        &[
            (
                "finch memory remember \"Prefers metric units\"",
                "add to long-term memory",
            ),
            ("finch memory search units", "find entries"),
        ],
    ),
    (
        "memory remember",
        &[
            (
                "finch memory remember \"Prefers metric units\"",
                "into long-term memory",
            ),
            (
                "finch memory remember \"Standup moved to 10:00\" --to daily",
                "into today's file",
            ),
        ],
    ),
    (
        "memory forget",
        &[
            (
                "finch memory forget \"metric units\"",
                "the one entry that matches",
            ),
            (
                "finch memory forget --id 1234",
                "by id (from `finch memory list`)",
            ),
        ],
    ),
    (
        "memory replace",
        &[
            (
                "finch memory replace \"metric\" \"Prefers imperial units\"",
                "rewrite an entry",
            ),
            ("finch memory replace --id 1234 \"New text\"", "by id"),
        ],
    ),
    (
        "memory prune",
        &[
            (
                "finch memory prune --older-than 90d --dry-run",
                "what would go",
            ),
            (
                "finch memory prune --older-than 90d",
                "delete daily files older than 90 days",
            ),
        ],
    ),
    (
        "memory show",
        &[
            ("finch memory show long-term", "the long-term file"),
            ("finch memory show today", "today's daily file"),
        ],
    ),
    (
        "memory list",
        &[
            ("finch memory list", "every entry with its id"),
            ("finch memory ls --scope long-term", "only long-term memory"),
        ],
    ),
    (
        "memory search",
        &[
            ("finch memory search units", "entries with these words"),
            (
                "finch memory search standup --since 2026-01-01",
                "only recent entries",
            ),
        ],
    ),
    (
        "schedule",
        &[
            (
                "finch schedule create --name Digest --prompt \"Summarise my inbox\" --daily 08:00",
                "a daily task",
            ),
            ("finch schedule list", "every task, the next to run first"),
        ],
    ),
    (
        "schedule create",
        &[
            (
                "finch schedule create --name Digest --prompt \"Summarise my inbox\" --daily 08:00",
                "every day at 08:00 here",
            ),
            (
                "finch schedule create --name Report --prompt \"Weekly report\" --weekly mon 09:00 --tz Europe/Berlin",
                "in another zone",
            ),
            (
                "finch schedule create --name Reminder --prompt \"Call Sam\" --once 2026-12-24T10:00+05:00",
                "once, at an ISO 8601 time",
            ),
        ],
    ),
    (
        "schedule update",
        &[
            (
                "finch schedule update t-1a2b3c --daily 07:30",
                "move the time",
            ),
            (
                "finch schedule update t-1a2b3c --name \"Morning digest\"",
                "rename it",
            ),
        ],
    ),
    (
        "schedule list",
        &[
            (
                "finch schedule list",
                "sorted by next run, with how far off it is",
            ),
            ("finch --json schedule ls", "for scripts"),
        ],
    ),
    (
        "schedule enable",
        &[
            ("finch schedule enable t-1a2b3c", "turn a task back on"),
            ("finch schedule list", "see which are on"),
        ],
    ),
    (
        "schedule disable",
        &[
            (
                "finch schedule disable t-1a2b3c",
                "keep the task, stop its runs",
            ),
            ("finch schedule list", "see which are off"),
        ],
    ),
    (
        "schedule delete",
        &[
            (
                "finch schedule delete t-1a2b3c",
                "delete the task (its history stays)",
            ),
            ("finch schedule delete t-1a2b3c --yes", "without asking"),
        ],
    ),
    (
        "schedule run",
        &[
            ("finch schedule run t-1a2b3c", "run it now, once"),
            ("finch schedule history t-1a2b3c", "then see how it went"),
        ],
    ),
    (
        "schedule history",
        &[
            ("finch schedule history", "the latest runs of every task"),
            (
                "finch schedule history t-1a2b3c --limit 5",
                "one task's last five runs",
            ),
        ],
    ),
    (
        "schedule daemon",
        &[
            ("finch schedule daemon", "run due tasks until stopped"),
            ("finch --json schedule daemon", "events as JSON lines"),
        ],
    ),
    (
        "daemon",
        &[
            (
                "finch daemon",
                "keep the enabled mini tools and tasks running",
            ),
            (
                "finch daemon status",
                "each mini tool's state, pid and memory",
            ),
            ("finch daemon install", "run it as a user service"),
        ],
    ),
    (
        "daemon status",
        &[
            (
                "finch daemon status",
                "state, pid, restarts, memory, last error",
            ),
            (
                "finch daemon status --json",
                "the same as one JSON document",
            ),
        ],
    ),
    (
        "daemon stop",
        &[
            ("finch daemon stop", "stop it and wait until it has ended"),
            ("finch --json daemon stop", "say so as JSON"),
        ],
    ),
    (
        "daemon logs",
        &[
            ("finch daemon logs", "the daemon's own last lines"),
            (
                "finch daemon logs finch-wechat-bot -n 100",
                "a mini tool's last 100 lines",
            ),
        ],
    ),
    (
        "daemon install",
        &[
            (
                "finch daemon install",
                "write the systemd user unit (launchd agent on macOS)",
            ),
            ("finch daemon install --dry-run", "print it, write nothing"),
            (
                "finch daemon install --start",
                "write it, then enable and start it",
            ),
        ],
    ),
    (
        "session",
        &[
            ("finch session list", "the latest sessions"),
            (
                "finch session search \"weather\"",
                "sessions that mention it",
            ),
        ],
    ),
    (
        "session list",
        &[
            ("finch session list", "the latest 20 sessions"),
            (
                "finch session ls --workspace . --limit 0",
                "every session in this directory",
            ),
        ],
    ),
    (
        "session show",
        &[
            ("finch session show 3f2a", "a session by an id prefix"),
            ("finch --json session show 3f2a", "its messages as JSON"),
        ],
    ),
    (
        "session search",
        &[
            (
                "finch session search weather",
                "titles, messages, tool names and arguments",
            ),
            ("finch --json session search Bash", "for scripts"),
        ],
    ),
    (
        "session rename",
        &[
            (
                "finch session rename 3f2a \"Trip planning\"",
                "give a session a title",
            ),
            ("finch session list", "see it listed"),
        ],
    ),
    (
        "session attach",
        &[
            (
                "finch session attach 3f2a ./notes.pdf",
                "attach a file to a session",
            ),
            ("finch session show 3f2a", "see it there"),
        ],
    ),
    (
        "session extend-dir",
        &[
            (
                "finch session extend-dir 3f2a ~/projects/site",
                "let the session's tools work there",
            ),
            ("finch session show 3f2a", "its directories"),
        ],
    ),
    (
        "space",
        &[
            ("finch space create \"Home renovation\"", "a new space"),
            ("finch space list", "every space"),
        ],
    ),
    (
        "space create",
        &[
            (
                "finch space create \"Home renovation\"",
                "a space and its directory",
            ),
            (
                "finch --json space create Travel",
                "its id and directory as JSON",
            ),
        ],
    ),
    (
        "space list",
        &[
            ("finch space list", "every space with its directory"),
            ("finch space ls --json", "for scripts"),
        ],
    ),
    (
        "minitool",
        &[
            ("finch minitool menu wechat-bot", "list its settings menu"),
            (
                "finch minitool menu wechat-bot login",
                "log in: the QR code is saved and its path shown",
            ),
        ],
    ),
    (
        "minitool menu",
        &[
            (
                "finch minitool menu wechat-bot login",
                "run an item, its dialogs on the terminal",
            ),
            (
                "finch minitool menu wecom-bot credentials --set botId=B1 --set secret=\"$S\"",
                "fill its form without a terminal",
            ),
            (
                "finch --json minitool menu wecom-bot",
                "the items, for scripts",
            ),
        ],
    ),
    (
        "secret",
        &[
            (
                "finch secret set wecom-bot wecom.secret",
                "type a secret's value (not echoed)",
            ),
            (
                "finch secret list wecom-bot",
                "the keys set, never the values",
            ),
        ],
    ),
    (
        "secret set",
        &[
            (
                "finch secret set wecom-bot wecom.secret",
                "type the value on the terminal, not echoed",
            ),
            (
                "pass show wecom | finch secret set wecom-bot wecom.secret",
                "from another program, through a pipe",
            ),
        ],
    ),
    (
        "secret list",
        &[
            ("finch secret list wecom-bot", "the keys set for it"),
            ("finch secret ls wecom-bot --json", "for scripts"),
        ],
    ),
    (
        "secret delete",
        &[
            (
                "finch secret delete wecom-bot wecom.secret",
                "remove it from the keyring",
            ),
            ("finch secret rm wecom-bot wecom.botId", "the same, shorter"),
        ],
    ),
    (
        "skill",
        &[
            ("finch skill list", "every skill the agent can use"),
            ("finch skill show pdf", "one skill's instructions"),
        ],
    ),
    (
        "skill list",
        &[
            ("finch skill list", "name, source, status and description"),
            ("finch skill ls --json", "for scripts"),
        ],
    ),
    (
        "skill show",
        &[
            ("finch skill show pdf", "the skill's SKILL.md"),
            ("finch --json skill show pdf", "with its metadata"),
        ],
    ),
    (
        "mcp",
        &[
            (
                "finch mcp add fs -- npx -y @modelcontextprotocol/server-filesystem ~/docs",
                "a stdio server",
            ),
            ("finch mcp list", "every server and its status"),
        ],
    ),
    (
        "mcp add",
        &[
            (
                "finch mcp add fs -- npx -y @modelcontextprotocol/server-filesystem ~/docs",
                "a stdio server",
            ),
            (
                "finch mcp add gh --url https://mcp.example.com/mcp -H \"Authorization: Bearer ${GH_TOKEN}\"",
                "an HTTP server",
            ),
        ],
    ),
    (
        "mcp list",
        &[
            (
                "finch mcp list",
                "every server, where it comes from, and its status",
            ),
            ("finch mcp ls --json", "for scripts"),
        ],
    ),
    (
        "mcp remove",
        &[
            ("finch mcp remove fs", "forget the server"),
            ("finch mcp list", "check it is gone"),
        ],
    ),
    (
        "mcp tools",
        &[
            ("finch mcp tools fs", "the tools a server offers"),
            ("finch --json mcp tools fs", "with their schemas"),
        ],
    ),
    (
        "mcp trust",
        &[
            (
                "finch mcp trust --list",
                "each servers.json entry: trusted, changed or untrusted",
            ),
            ("finch mcp trust fs", "approve the entry as it is now"),
            ("finch mcp trust --revoke fs", "it waits for a person again"),
        ],
    ),
    (
        "tool",
        &[
            ("finch tool search \"read a pdf\"", "find a tool"),
            ("finch tool call Read file_path=notes.txt", "call one"),
        ],
    ),
    (
        "tool list",
        &[
            ("finch tool list", "every tool the host offers"),
            ("finch tool ls --json", "with their schemas"),
        ],
    ),
    (
        "tool search",
        &[
            (
                "finch tool search \"read a pdf\"",
                "tools for a task, best first",
            ),
            (
                "finch tool search weather --source minitool",
                "only mini tools' tools",
            ),
        ],
    ),
    (
        "tool info",
        &[
            ("finch tool info Read", "a tool's description and arguments"),
            ("finch --json tool info Read", "its schema"),
        ],
    ),
    (
        "tool call",
        &[
            (
                "finch tool call Read file_path=notes.txt",
                "key=value arguments",
            ),
            (
                "finch tool call Bash '{\"command\":\"ls -la\"}' --approve Bash",
                "JSON arguments, no card",
            ),
        ],
    ),
    (
        "policy",
        &[
            (
                "finch policy check Bash '{\"command\":\"rm -rf build\"}'",
                "would it ask?",
            ),
            (
                "finch policy check Read '{\"file_path\":\"~/.ssh/id_rsa\"}'",
                "a protected path",
            ),
        ],
    ),
    (
        "sandbox",
        &[
            ("finch sandbox status", "what the kernel here can enforce"),
            (
                "finch sandbox run -- make test",
                "run a command read-only, no network",
            ),
        ],
    ),
    (
        "sandbox status",
        &[
            (
                "finch sandbox status",
                "Landlock ABI, seccomp, each profile",
            ),
            ("finch sandbox status --json", "the same for scripts"),
        ],
    ),
    (
        "sandbox run",
        &[
            (
                "finch sandbox run --profile workspace-write -- npm test",
                "write the working directory only",
            ),
            (
                "finch sandbox run --network --writable /tmp/out -- ./fetch.sh",
                "with the network and one more directory",
            ),
        ],
    ),
    (
        "sandbox log",
        &[
            (
                "finch sandbox log --id wechat-bot --since 2h",
                "where one mini tool tried to connect lately, and the verdicts",
            ),
            (
                "finch sandbox log --json",
                "every attempt as JSON lines for scripts",
            ),
        ],
    ),
    (
        "sandbox grant",
        &[
            (
                "finch sandbox grant finch-helper network",
                "let a mini tool connect though its manifest says network: false",
            ),
            (
                "finch sandbox grant finch-anydoc shell",
                "let it load the native engine it downloads",
            ),
        ],
    ),
    (
        "sandbox revoke",
        &[
            (
                "finch sandbox revoke finch-helper network",
                "hold it to its manifest again",
            ),
            (
                "finch sandbox revoke finch-anydoc shell filesystem",
                "take back several grants",
            ),
        ],
    ),
    (
        "policy check",
        &[
            (
                "finch policy check Bash '{\"command\":\"ls\"}'",
                "allow, ask or deny, and why",
            ),
            (
                "finch policy check Bash '{\"command\":\"make\"}' --mode acceptCalls",
                "in another mode",
            ),
        ],
    ),
    (
        "policy trust",
        &[
            (
                "finch policy trust",
                "obey this repository's .finch/permissions.json",
            ),
            (
                "finch policy trust --list",
                "what is trusted, and what changed",
            ),
            (
                "finch policy trust ~/src/app --revoke",
                "stop obeying a project's rules",
            ),
        ],
    ),
    (
        "run",
        &[
            (
                "finch run",
                "a console: `Read file_path=notes.txt`, Tab completes",
            ),
            (
                "finch run --jsonl < calls.jsonl",
                "calls as JSON lines, for scripts",
            ),
            (
                "finch run --serve mcp",
                "an MCP server on stdio for agents and IDEs",
            ),
        ],
    ),
    (
        "completions",
        &[
            (
                "finch completions bash > ~/.local/share/bash-completion/completions/finch",
                "bash",
            ),
            (
                "finch completions fish > ~/.config/fish/completions/finch.fish",
                "fish",
            ),
        ],
    ),
    (
        "man",
        &[
            ("finch man | man -l -", "read the top page"),
            (
                "finch man --out-dir ~/.local/share/man/man1",
                "install every page",
            ),
        ],
    ),
];

/// The examples of the command at `path` (`""` for finch itself).
pub fn of(path: &str) -> Option<&'static [(&'static str, &'static str)]> {
    EXAMPLES.iter().find(|(p, _)| *p == path).map(|(_, e)| *e)
}

/// The examples as `--help` shows them, after the options.
pub fn help_text(examples: &[(&str, &str)]) -> String {
    let mut text = String::from("Examples:\n");
    for (line, what) in examples {
        text.push_str(&format!("  # {what}\n  {line}\n"));
    }
    text.trim_end().to_string()
}

/// What every page says of exit codes (SPEC §2.3).
pub const EXIT_STATUS: &[(&str, &str)] = &[
    (
        "0",
        "Success (also when stdout was closed early, as by `| head`).",
    ),
    (
        "1",
        "The command failed (a network, file or child process error); `finch run --jsonl` or \
         on a pipe: a call failed or a line was no call.",
    ),
    ("2", "Usage error: a bad argument, flag or value."),
    ("3", "Not found: no such mini tool, task, session or entry."),
    (
        "4",
        "Needs a person: a question or permission card nobody could answer, or one denied; \
         `finch run --jsonl` or on a pipe: a call was refused.",
    ),
    ("5", "Locked: another finch holds a state file's lock."),
    ("130", "Interrupted (Ctrl-C)."),
    (
        "other",
        "`finch tool call Bash` whose command ran: the command's own exit status (128 + N for \
         signal N); with --json the exit is 0 and the record's exitCode says it.",
    ),
];

pub const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "FINCH_RUNTIME_HOME",
        "The runtime home (default ~/.finch); --runtime-home overrides it.",
    ),
    (
        "FINCH_AGENT_HOME",
        "The agent home (default: the app's setting, else ~/finchnest); --agent-home overrides it.",
    ),
    ("NO_COLOR", "Set to anything: no colour with --color auto."),
    ("COLUMNS", "The width tables fit (default: the terminal's)."),
    (
        "TZ",
        "The time zone schedules are shown in, and created in without --tz.",
    ),
    (
        "FINCH_NOW",
        "A fixed RFC 3339 clock, for tests and scripts.",
    ),
];

pub const FILES: &[(&str, &str)] = &[
    (
        "~/finchnest/.finch/extensions/",
        "Personal-tier mini tools (in the agent home).",
    ),
    (
        "~/.finch/extensions/",
        "Global-tier mini tools (in the runtime home).",
    ),
    ("~/.finch/extensions.json", "Which mini tools are enabled."),
    (
        "~/.finch/config/finch.toml",
        "Settings: [host] mode, card_timeout, registries.",
    ),
    (
        "~/.finch/automation/tasks.json",
        "Scheduled tasks; their runs are in automation/runs/.",
    ),
    ("~/.finch/pi/sessions/", "Session transcripts."),
    (
        "~/.finch/console_history",
        "The history of the `finch run` console.",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(cmd: &clap::Command, path: &str, out: &mut Vec<String>) {
        out.push(path.to_string());
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let sub_path = if path.is_empty() {
                sub.get_name().to_string()
            } else {
                format!("{path} {}", sub.get_name())
            };
            paths(sub, &sub_path, out);
        }
    }

    #[test]
    fn every_command_has_two_or_three_examples_that_name_it() {
        use clap::CommandFactory;
        let mut all = Vec::new();
        paths(&crate::cli::Cli::command(), "", &mut all);
        assert!(all.len() > 50, "{all:?}");
        for path in &all {
            let examples = of(path).unwrap_or_else(|| panic!("`finch {path}` has no examples"));
            assert!(
                (2..=3).contains(&examples.len()),
                "`finch {path}`: {examples:?}"
            );
        }
        for (path, _) in EXAMPLES {
            assert!(all.contains(&path.to_string()), "no command `finch {path}`");
        }
    }

    #[test]
    fn the_help_shows_the_examples() {
        let mut cmd = crate::cli::command();
        let help = cmd
            .find_subcommand_mut("schedule")
            .and_then(|s| s.find_subcommand_mut("create"))
            .expect("schedule create")
            .render_help()
            .to_string();
        assert!(help.contains("Examples:"), "{help}");
        assert!(help.contains("--once 2026-12-24T10:00+05:00"), "{help}");
    }
}
