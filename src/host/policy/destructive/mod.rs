//! The table of HIGH-risk commands beside the Bash classifier (issue 28): programs and argument
//! shapes that delete, overwrite, empty or rewrite what cannot be had back — files, history,
//! databases, clusters, the machine itself. A command the table names is destructive: its card
//! shows HIGH risk, opens on Deny, offers no session allow, and no allow rule spares it.
//!
//! `bash` asks this module about every simple command it finds, after its own classic checks
//! (`rm -rf`, `git reset --hard`, `dd of=`, …), behind every wrapper it knows; `unwrap` tells it
//! what the wrappers only this table knows (`taskset`, `chrt`, `unshare`, `setpriv`, `script
//! -c`, `busybox`, …) run. Pure: words in, a reason out. Nothing runs, nothing is looked up.

use std::cell::Cell;

/// How the table asks whether a shell script it found inside code (`python3 -c
/// "os.system('…')"`, `git -c alias.x='!…'`) is destructive: the Bash classifier's answer,
/// handed in by the classifier, so that this table never calls back into it.
pub type Scripts<'a> = &'a dyn Fn(&str) -> bool;

/// The interpreters that run code given on their command line: the classifier's table of
/// programs that are never read-only, and this table's row for inline code that deletes.
pub const INTERPRETERS: &[&str] = &[
    "python",
    "python2",
    "python3",
    "node",
    "nodejs",
    "deno",
    "bun",
    "perl",
    "ruby",
    "php",
    "lua",
    "luajit",
    "Rscript",
    "julia",
    "tclsh",
    "osascript",
    "pwsh",
    "powershell",
    "irb",
    "groovy",
    "busybox",
];

/// How deep code inside code (`python3 -c "os.system('python3 -c …')"`) is classified before
/// it counts as destructive: nobody writes it by accident, and the depth bounds the recursion.
const MAX_NESTING: usize = 4;

thread_local! {
    static NESTING: Cell<usize> = const { Cell::new(0) };
}

/// Whether `script`, run by a shell, is destructive (`scripts` says); nested too deep counts
/// as destructive.
fn script_is_destructive(script: &str, scripts: Scripts) -> bool {
    let depth = NESTING.with(Cell::get);
    if depth >= MAX_NESTING {
        return true;
    }
    NESTING.with(|n| n.set(depth + 1));
    let destructive = scripts(script);
    NESTING.with(|n| n.set(depth));
    destructive
}

/// How a row recognises its command from the words after the program.
#[derive(Debug, Clone, Copy)]
pub enum Test {
    /// Every use.
    Always,
    /// These words, in order, among the arguments that are not options (`system prune`).
    Sub(&'static [&'static str]),
    /// `Sub` and one of these options.
    SubWith(&'static [&'static str], &'static [&'static str]),
    /// One of these options: a long one as written (`--force`, `--force=x`), a short one alone
    /// or in a cluster (`-f` in `-rf`).
    Option(&'static [&'static str]),
    /// An argument holds one of these words, without regard to case or spacing (SQL, Redis).
    Says(&'static [&'static str]),
    /// An argument that is not an option is one of these.
    Operand(&'static [&'static str]),
    /// git with this subcommand (and these words after it), and, when any are listed, one of
    /// these options.
    Git(&'static [&'static str], &'static [&'static str]),
    /// The odd ones, each a small function below.
    Check(fn(&[String]) -> bool),
    /// The odd ones that look into shell scripts inside code (`Scripts`).
    CheckScripts(fn(&[String], Scripts) -> bool),
}

/// One row: the programs (by bare name), the test, and what the card says.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    pub programs: &'static [&'static str],
    pub test: Test,
    pub why: &'static str,
}

const fn row(programs: &'static [&'static str], test: Test, why: &'static str) -> Row {
    Row {
        programs,
        test,
        why,
    }
}

const SQL: &[&str] = &[
    "psql",
    "mysql",
    "mariadb",
    "sqlite3",
    "sqlcmd",
    "duckdb",
    "clickhouse-client",
    "cockroach",
    "mongo",
    "mongosh",
];
const CONTAINERS: &[&str] = &["docker", "podman", "nerdctl"];
const KUBE: &[&str] = &["kubectl", "oc"];
const TERRAFORM: &[&str] = &["terraform", "tofu", "terragrunt"];

/// The table. The first row that matches gives the reason.
pub const TABLE: &[Row] = &[
    // Files.
    row(
        &["rm"],
        Test::Check(rm_unlisted),
        "`rm` deletes files nobody listed (a pattern, or what `xargs`/`find -exec` hand it)",
    ),
    row(&["unlink"], Test::Always, "`unlink` deletes a file"),
    row(
        &["mv"],
        Test::Option(&["-f", "--force"]),
        "`mv -f` overwrites files without asking",
    ),
    row(
        &["cp"],
        Test::Check(copies_nothing),
        "`cp` from an empty device empties a file",
    ),
    row(
        &["ln"],
        Test::Option(&["-f", "--force"]),
        "`ln -f` replaces an existing file",
    ),
    row(
        &["sed"],
        Test::Check(sed_deletes_in_place),
        "`sed -i` deletes lines in place",
    ),
    row(
        &["find"],
        Test::Option(&["-delete"]),
        "`find -delete` deletes files",
    ),
    // Interpreters running inline code that deletes.
    row(
        INTERPRETERS,
        Test::CheckScripts(inline_code_deletes),
        "inline code that deletes files or runs a destructive command",
    ),
    // git: history and refs rewritten or dropped.
    row(
        &["git"],
        Test::CheckScripts(git_alias_or_config_runs_damage),
        "`git -c` runs a configured command that deletes",
    ),
    row(
        &["git"],
        Test::Check(git_checkout_paths),
        "`git checkout <tree> <path>` overwrites uncommitted changes",
    ),
    row(
        &["git"],
        Test::Git(&["reset"], &["--keep", "--merge"]),
        "`git reset --keep/--merge` moves the branch and rewrites files",
    ),
    row(
        &["git"],
        Test::Git(&["update-ref"], &["-d", "--delete", "--stdin"]),
        "`git update-ref -d` deletes a ref",
    ),
    row(
        &["git"],
        Test::Git(&["reflog", "expire"], &[]),
        "`git reflog expire` drops the record of lost commits",
    ),
    row(
        &["git"],
        Test::Git(&["reflog", "delete"], &[]),
        "`git reflog delete` drops the record of lost commits",
    ),
    row(
        &["git"],
        Test::Git(&["gc"], &["--prune"]),
        "`git gc --prune` deletes unreachable commits",
    ),
    row(
        &["git"],
        Test::Git(&["prune"], &[]),
        "`git prune` deletes unreachable commits",
    ),
    row(
        &["git"],
        Test::Git(&["commit"], &["--amend"]),
        "`git commit --amend` rewrites the last commit",
    ),
    row(
        &["git"],
        Test::Git(&["rebase"], &[]),
        "`git rebase` rewrites history",
    ),
    row(
        &["git"],
        Test::Git(&["filter-branch"], &[]),
        "`git filter-branch` rewrites history",
    ),
    row(
        &["git"],
        Test::Git(&["filter-repo"], &[]),
        "`git filter-repo` rewrites history",
    ),
    row(
        &["git"],
        Test::Git(&["tag"], &["-d", "--delete", "-f", "--force"]),
        "`git tag -d/-f` deletes or moves a tag",
    ),
    row(
        &["git"],
        Test::Git(&["symbolic-ref"], &["-d", "--delete"]),
        "`git symbolic-ref -d` deletes a ref",
    ),
    // The machine and its processes.
    row(
        &["crontab"],
        Test::Option(&["-r"]),
        "`crontab -r` deletes every scheduled job",
    ),
    row(
        &["kill"],
        Test::Check(kill_every_process),
        "`kill -1` signals every process you own",
    ),
    row(
        &["killall5"],
        Test::Always,
        "`killall5` signals every process",
    ),
    row(
        &["shutdown", "reboot", "halt", "poweroff"],
        Test::Always,
        "it stops or restarts the machine",
    ),
    row(
        &["systemctl"],
        Test::Check(systemctl_stops_machine),
        "`systemctl poweroff/reboot` stops or restarts the machine",
    ),
    row(
        &["init", "telinit"],
        Test::Operand(&["0", "6"]),
        "`init 0/6` stops or restarts the machine",
    ),
    // Containers, clusters, infrastructure, storage.
    row(
        CONTAINERS,
        Test::Sub(&["system", "prune"]),
        "`docker system prune` deletes containers, images and volumes",
    ),
    row(
        CONTAINERS,
        Test::Check(container_removes),
        "it deletes containers, images or volumes",
    ),
    row(
        KUBE,
        Test::Sub(&["delete"]),
        "`kubectl delete` deletes cluster resources",
    ),
    row(
        KUBE,
        Test::Sub(&["drain"]),
        "`kubectl drain` evicts every workload from a node",
    ),
    row(
        &["helm"],
        Test::Check(helm_uninstalls),
        "`helm uninstall` deletes a release",
    ),
    row(
        TERRAFORM,
        Test::Sub(&["destroy"]),
        "`terraform destroy` deletes the infrastructure",
    ),
    row(
        TERRAFORM,
        Test::Option(&["-destroy"]),
        "`terraform apply -destroy` deletes the infrastructure",
    ),
    row(
        TERRAFORM,
        Test::Sub(&["state", "rm"]),
        "`terraform state rm` forgets managed resources",
    ),
    row(
        &["pulumi"],
        Test::Sub(&["destroy"]),
        "`pulumi destroy` deletes the infrastructure",
    ),
    row(
        &["aws"],
        Test::Sub(&["s3", "rm"]),
        "`aws s3 rm` deletes objects",
    ),
    row(
        &["aws"],
        Test::Sub(&["s3", "rb"]),
        "`aws s3 rb` deletes a bucket",
    ),
    row(
        &["aws"],
        Test::SubWith(&["s3", "sync"], &["--delete"]),
        "`aws s3 sync --delete` deletes objects",
    ),
    row(
        &["aws"],
        Test::Check(aws_deletes),
        "an `aws … delete-*`/`terminate-*` call deletes resources",
    ),
    row(
        &["gsutil"],
        Test::Check(gsutil_removes),
        "`gsutil rm/rb` deletes objects or buckets",
    ),
    row(
        &["gcloud", "az"],
        Test::Operand(&["delete"]),
        "a `delete` call deletes cloud resources",
    ),
    // Databases.
    row(
        SQL,
        Test::Says(&[
            "drop database",
            "drop table",
            "drop schema",
            "drop user",
            "truncate",
            "delete from",
            "dropdatabase(",
            ".drop(",
            "deletemany(",
        ]),
        "the SQL drops or empties data",
    ),
    row(
        &["dropdb", "dropuser"],
        Test::Always,
        "it drops a database or a role",
    ),
    row(
        &["redis-cli"],
        Test::Says(&["flushall", "flushdb"]),
        "`redis-cli FLUSHALL` deletes every key",
    ),
];

/// Why these words (one simple command, the program first) are destructive by the table.
pub fn reason(words: &[String], scripts: Scripts) -> Option<String> {
    let program = words.first().map(|w| basename(w))?;
    let args = &words[1..];
    TABLE
        .iter()
        .find(|r| r.programs.contains(&program) && passes(r.test, args, scripts))
        .map(|r| r.why.to_string())
}

fn passes(test: Test, args: &[String], scripts: Scripts) -> bool {
    match test {
        Test::Always => true,
        Test::Sub(seq) => has_sub(args, seq),
        Test::SubWith(seq, options) => has_sub(args, seq) && has_option(args, options),
        Test::Option(options) => has_option(args, options),
        Test::Says(words) => args.iter().any(|a| {
            let flat = a.split_whitespace().collect::<Vec<_>>().join(" ");
            let flat = flat.to_lowercase();
            words.iter().any(|w| flat.contains(w))
        }),
        Test::Operand(ops) => operands(args).any(|a| ops.contains(&a)),
        Test::Git(seq, options) => {
            let (_, Some(i)) = git_split(args) else {
                return false;
            };
            let after: Vec<&str> = operands(&args[i..]).collect();
            after.starts_with(seq) && (options.is_empty() || has_option(&args[i..], options))
        }
        Test::Check(f) => f(args),
        Test::CheckScripts(f) => f(args, scripts),
    }
}

/// The arguments that are not options, until `--` (after which every word is one).
fn operands(args: &[String]) -> impl Iterator<Item = &str> {
    let mut after_dashes = false;
    args.iter().filter_map(move |a| {
        if after_dashes {
            return Some(a.as_str());
        }
        if a == "--" {
            after_dashes = true;
            return None;
        }
        (!a.starts_with('-') || a == "-").then_some(a.as_str())
    })
}

fn has_sub(args: &[String], seq: &[&str]) -> bool {
    let words: Vec<&str> = operands(args).collect();
    words.windows(seq.len()).any(|w| w == seq)
}

fn has_option(args: &[String], options: &[&str]) -> bool {
    args.iter().take_while(|a| a.as_str() != "--").any(|a| {
        options.iter().any(|o| {
            if o.starts_with("--") || o.len() > 2 {
                a == o || a.starts_with(&format!("{o}="))
            } else {
                // `-f` alone, or `f` in a cluster such as `-rf`.
                let letter = &o[1..];
                a == o
                    || a.strip_prefix('-').is_some_and(|c| {
                        !c.starts_with('-')
                            && c.chars().all(|ch| ch.is_ascii_alphabetic())
                            && c.contains(letter)
                    })
            }
        })
    })
}

fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// `rm victim/*`, `find … -exec rm {} +`, `… | xargs rm`: what is deleted is not written in
/// the command (a named file, `rm notes.txt`, stays medium: the card names it).
fn rm_unlisted(args: &[String]) -> bool {
    if args.iter().any(|a| a == "--help" || a == "--version") {
        return false;
    }
    let mut files = operands(args).peekable();
    files.peek().is_none() || files.any(|f| f == "{}" || f.contains(['*', '?', '[']))
}

/// `cp /dev/null f`: a copy of an empty device over a file.
fn copies_nothing(args: &[String]) -> bool {
    operands(args).any(|a| matches!(a, "/dev/null" | "/dev/zero"))
}

/// `sed -i` whose script deletes (`d`, `D`), empties (`z`) or replaces (`c`) lines, or comes
/// from a file finch cannot see.
fn sed_deletes_in_place(args: &[String]) -> bool {
    let in_place = args.iter().any(|a| {
        a == "--in-place"
            || a.starts_with("--in-place=")
            || (a.starts_with("-i") && !a.starts_with("--"))
            || a.strip_prefix('-').is_some_and(|c| {
                !c.starts_with('-') && c.starts_with(['n', 'E', 'r', 's', 'u']) && c.contains('i')
            })
    });
    if !in_place {
        return false;
    }
    let mut scripts: Vec<&str> = Vec::new();
    let mut i = 0;
    let mut explicit = false;
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "-e" | "--expression" => {
                explicit = true;
                if let Some(s) = args.get(i + 1) {
                    scripts.push(s);
                }
                i += 2;
                continue;
            }
            "-f" | "--file" => return true,
            s if s.starts_with("--expression=") => {
                explicit = true;
                scripts.push(&s["--expression=".len()..]);
            }
            s if s.starts_with("--file=") => return true,
            _ => {}
        }
        i += 1;
    }
    if !explicit && let Some(first) = operands(args).next() {
        scripts.push(first);
    }
    scripts.iter().any(|s| sed_script_deletes(s))
}

/// A sed command of the script is `d`, `D`, `z` or `c` (after its address).
fn sed_script_deletes(script: &str) -> bool {
    script.split([';', '\n', '{', '}']).any(|piece| {
        let mut rest = piece.trim_start();
        // Skip the address: line numbers, `$`, `,`, `~`, `!`, `/regex/`.
        loop {
            rest = rest.trim_start();
            if let Some(r) = rest.strip_prefix('/') {
                rest = r.split_once('/').map_or("", |(_, after)| after);
                continue;
            }
            match rest.chars().next() {
                Some(c) if c.is_ascii_digit() || matches!(c, '$' | ',' | '~' | '!' | '+') => {
                    rest = &rest[c.len_utf8()..];
                }
                _ => break,
            }
        }
        rest.starts_with(['d', 'D', 'z', 'c'])
    })
}

/// API names that delete files, in the languages of `INTERPRETERS`.
const DELETING_CALLS: &[&str] = &[
    "rmtree",
    "rmsync",
    "rmdirsync",
    "unlink",
    "rmdir",
    "removedirs",
    "os.remove",
    "fs.rm",
    "deno.remove",
    "remove_tree",
    "rm_rf",
    "fileutils.rm",
    "file.delete",
    "dir.delete",
    "remove-item",
    "truncate",
    "shutil.move",
    "send2trash",
];
/// API names that run a shell command: their string arguments are classified as commands.
const SHELL_CALLS: &[&str] = &[
    "system",
    "subprocess",
    "popen",
    "child_process",
    "execsync",
    "spawnsync",
    "exec(",
    "spawn(",
    "deno.command",
    "bun.spawn",
    "`",
    "qx",
    "do shell script",
];
/// Programs named as a list element of a shell-out (`["rm", "-rf", "x"]`).
const DELETING_PROGRAMS: &[&str] = &["rm", "shred", "unlink", "truncate", "dd", "mkfs"];

/// Code an interpreter runs from its arguments (`-c`, `-e`, `--eval`, `-r`, `eval`) deletes,
/// or runs a shell command that is destructive.
fn inline_code_deletes(args: &[String], scripts: Scripts) -> bool {
    let code = inline_code(args);
    code.iter().any(|c| {
        let lower = c.to_lowercase();
        if DELETING_CALLS.iter().any(|d| lower.contains(d)) {
            return true;
        }
        SHELL_CALLS.iter().any(|s| lower.contains(s))
            && string_literals(c).iter().any(|lit| {
                DELETING_PROGRAMS.contains(&lit.trim()) || script_is_destructive(lit, scripts)
            })
    })
}

/// The code an interpreter takes from its arguments: the value of `-c`, `-e`, `-E`, `--eval`,
/// `-p`, `--print`, `-r`, `-Command` (also at the end of a cluster such as perl's `-le`), and
/// what follows `eval` (deno).
fn inline_code(args: &[String]) -> Vec<&str> {
    const FLAGS: &[&str] = &[
        "-c", "-e", "-E", "--eval", "-p", "--print", "-r", "-Command", "-command",
    ];
    let mut code = Vec::new();
    for (i, a) in args.iter().enumerate() {
        let cluster = a.len() > 2
            && a.starts_with('-')
            && !a.starts_with("--")
            && a[1..].chars().all(|c| c.is_ascii_alphabetic())
            && a.ends_with(['c', 'e', 'E']);
        if FLAGS.contains(&a.as_str()) || cluster || (i == 0 && a == "eval") {
            code.extend(args.get(i + 1).map(String::as_str));
        } else if let Some(value) = a.strip_prefix("--eval=") {
            code.push(value);
        }
    }
    code
}

/// The contents of the quoted strings in some code (`'…'`, `"…"`, `` `…` ``), escapes kept.
fn string_literals(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = code.chars();
    while let Some(c) = chars.next() {
        if !matches!(c, '\'' | '"' | '`') {
            continue;
        }
        let mut lit = String::new();
        let mut escaped = false;
        for d in chars.by_ref() {
            if escaped {
                lit.push(d);
                escaped = false;
            } else if d == '\\' {
                escaped = true;
            } else if d == c {
                break;
            } else {
                lit.push(d);
            }
        }
        out.push(lit);
    }
    out
}

/// git's global options before the subcommand, and the subcommand's index.
fn git_split(args: &[String]) -> (Vec<(&str, &str)>, Option<usize>) {
    let mut configs = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "-c" => {
                if let Some((k, v)) = args.get(i + 1).and_then(|kv| kv.split_once('=')) {
                    configs.push((k, v));
                }
                i += 2;
            }
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env" | "--exec-path" => {
                i += 2
            }
            s if s.starts_with('-') => i += 1,
            _ => return (configs, Some(i)),
        }
    }
    (configs, None)
}

/// Configuration keys whose value git runs as a command.
fn runs_command(key: &str) -> bool {
    let key = key.to_lowercase();
    key.starts_with("alias.")
        || matches!(
            key.as_str(),
            "core.fsmonitor"
                | "core.sshcommand"
                | "core.pager"
                | "core.editor"
                | "core.askpass"
                | "sequence.editor"
                | "diff.external"
                | "credential.helper"
                | "gpg.program"
        )
        || key.ends_with(".textconv")
        || (key.starts_with("filter.")
            && (key.ends_with(".clean") || key.ends_with(".smudge") || key.ends_with(".process")))
}

/// `git -c alias.x='!rm -rf …' x` and friends: a command-running key whose value is
/// destructive, or `core.hooksPath` pointed anywhere (git then runs whatever hooks are there).
fn git_alias_or_config_runs_damage(args: &[String], scripts: Scripts) -> bool {
    let (configs, _) = git_split(args);
    configs.iter().any(|(k, v)| {
        if k.eq_ignore_ascii_case("core.hooksPath") {
            return true;
        }
        runs_command(k) && {
            let script = v.strip_prefix('!').unwrap_or(v);
            DELETING_PROGRAMS.contains(&script.trim()) || script_is_destructive(script, scripts)
        }
    })
}

/// `git checkout <tree-ish> <path>…`: two or more operands after the subcommand.
fn git_checkout_paths(args: &[String]) -> bool {
    let (_, Some(i)) = git_split(args) else {
        return false;
    };
    if args[i] != "checkout" {
        return false;
    }
    let rest = &args[i + 1..];
    let with_value = ["-b", "-B", "--orphan", "--conflict"];
    let mut operands = 0;
    let mut j = 0;
    while let Some(a) = rest.get(j) {
        if with_value.contains(&a.as_str()) {
            // A new branch: `git checkout -b new start` names no paths.
            return false;
        }
        if !a.starts_with('-') {
            operands += 1;
        }
        j += 1;
    }
    operands >= 2
}

/// `kill -9 -1`, `kill -- -1`: every process the user may signal.
fn kill_every_process(args: &[String]) -> bool {
    let mut i = 0;
    match args.first().map(String::as_str) {
        Some("-s" | "-n") => i = 2,
        Some("--") => {}
        Some(a) if a.starts_with('-') && a.len() > 1 && args.len() > 1 => i = 1,
        _ => {}
    }
    if args.get(i).is_some_and(|a| a == "--") {
        i += 1;
    }
    args.get(i..).unwrap_or_default().iter().any(|a| a == "-1")
}

fn systemctl_stops_machine(args: &[String]) -> bool {
    operands(args).any(|a| {
        matches!(
            a,
            "poweroff" | "reboot" | "halt" | "kexec" | "emergency" | "rescue" | "soft-reboot"
        )
    })
}

/// `docker rm`, `rmi`, `… prune`, `volume rm`, `container rm`, `image rm`.
fn container_removes(args: &[String]) -> bool {
    let words: Vec<&str> = operands(args).collect();
    match words.first() {
        Some(&("rm" | "rmi")) => true,
        Some(&("volume" | "container" | "image" | "network" | "builder" | "system")) => {
            matches!(words.get(1), Some(&("rm" | "prune" | "remove")))
        }
        _ => false,
    }
}

fn helm_uninstalls(args: &[String]) -> bool {
    matches!(operands(args).next(), Some("uninstall" | "delete" | "del"))
}

/// `aws <service> delete-…`/`terminate-…`/`remove-…`.
fn aws_deletes(args: &[String]) -> bool {
    operands(args).take(2).any(|a| {
        a.starts_with("delete-") || a.starts_with("terminate-") || a.starts_with("remove-")
    })
}

fn gsutil_removes(args: &[String]) -> bool {
    operands(args)
        .next()
        .is_some_and(|a| matches!(a, "rm" | "rb"))
}

/// What a wrapper only this table knows runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wrapped {
    Command(Vec<String>),
    Script(String),
}

/// How a wrapper's own words end.
enum Ends {
    /// Options (those listed take the next word as their value), then `skip` words of its
    /// own, then the command.
    Options(&'static [&'static str], usize),
    /// The script is the value of one of these options.
    Script(&'static [&'static str]),
}

const WRAPPERS: &[(&str, Ends)] = &[
    ("busybox", Ends::Options(&[], 0)),
    ("taskset", Ends::Options(&[], 1)),
    ("chrt", Ends::Options(&["-T", "-P", "-D"], 1)),
    (
        "unshare",
        Ends::Options(
            &[
                "-S",
                "-G",
                "-R",
                "-w",
                "--setuid",
                "--setgid",
                "--root",
                "--wd",
                "--propagation",
            ],
            0,
        ),
    ),
    (
        "setpriv",
        Ends::Options(
            &[
                "--reuid",
                "--regid",
                "--ruid",
                "--euid",
                "--rgid",
                "--egid",
                "--groups",
                "--inh-caps",
                "--ambient-caps",
                "--bounding-set",
                "--securebits",
                "--pdeathsig",
                "--selinux-label",
                "--apparmor-profile",
            ],
            0,
        ),
    ),
    ("script", Ends::Script(&["-c", "--command"])),
    (
        "nsenter",
        Ends::Options(
            &[
                "-t", "--target", "-S", "--setuid", "-G", "--setgid", "-r", "-w",
            ],
            0,
        ),
    ),
    ("pkexec", Ends::Options(&["--user"], 0)),
    ("runuser", Ends::Script(&["-c", "--command"])),
    (
        "systemd-run",
        Ends::Options(
            &[
                "-p",
                "--property",
                "-u",
                "--unit",
                "-E",
                "--setenv",
                "-M",
                "--machine",
                "--uid",
                "--gid",
                "--working-directory",
                "--slice",
                "--description",
            ],
            0,
        ),
    ),
    ("cgexec", Ends::Options(&["-g"], 0)),
    (
        "numactl",
        Ends::Options(
            &[
                "-C",
                "-N",
                "-m",
                "-p",
                "-i",
                "--physcpubind",
                "--cpunodebind",
                "--membind",
                "--preferred",
                "--interleave",
            ],
            0,
        ),
    ),
    ("prlimit", Ends::Options(&["-p", "--pid"], 0)),
    ("firejail", Ends::Options(&[], 0)),
    ("fakeroot", Ends::Options(&["-l", "-s", "-i"], 0)),
    ("faketime", Ends::Options(&["-m", "-f"], 1)),
    ("torsocks", Ends::Options(&["-u", "-p", "-a", "-P"], 0)),
    ("proxychains", Ends::Options(&["-f"], 0)),
    ("proxychains4", Ends::Options(&["-f"], 0)),
];

/// The command or script a wrapper of `WRAPPERS` runs; empty when `words` is no such wrapper
/// or it runs nothing (`taskset -p 1 42`).
pub fn unwrap(words: &[String]) -> Vec<Wrapped> {
    let Some(program) = words.first().map(|w| basename(w)) else {
        return Vec::new();
    };
    let Some((_, ends)) = WRAPPERS.iter().find(|(p, _)| *p == program) else {
        return Vec::new();
    };
    let args = &words[1..];
    match ends {
        Ends::Options(with_value, skip) => {
            let mut i = 0;
            while let Some(a) = args.get(i) {
                if a == "--" {
                    i += 1;
                    break;
                }
                if !a.starts_with('-') || a == "-" {
                    break;
                }
                i += if with_value.contains(&a.as_str()) {
                    2
                } else {
                    1
                };
            }
            let command = args.get(i + skip..).unwrap_or_default().to_vec();
            if command.is_empty() {
                Vec::new()
            } else {
                vec![Wrapped::Command(command)]
            }
        }
        Ends::Script(options) => args
            .iter()
            .enumerate()
            .filter_map(|(i, a)| {
                // `-c`, or a cluster ending in it (`-qc`).
                let cluster_ends = options.iter().any(|o| {
                    o.len() == 2
                        && a.len() > 2
                        && a.starts_with('-')
                        && !a.starts_with("--")
                        && a.ends_with(&o[1..])
                });
                if options.contains(&a.as_str()) || cluster_ends {
                    return args.get(i + 1).cloned();
                }
                options.iter().find_map(|o| {
                    a.strip_prefix(&format!("{o}="))
                        .or_else(|| a.strip_prefix(o).filter(|r| !r.is_empty() && o.len() == 2))
                        .map(str::to_string)
                })
            })
            .map(Wrapped::Script)
            .collect(),
    }
}

/// An output redirection that empties a file: `> f`, `: > f`, `true > f` (`>>` appends and
/// `/dev/null` is nothing).
pub fn emptying_redirect(program: Option<&str>, op: &str, target: &str) -> Option<String> {
    let truncates = matches!(op, ">" | ">|" | "&>");
    let empty_output = program.is_none_or(|p| matches!(basename(p), ":" | "true" | "false"));
    (truncates && empty_output && target != "/dev/null")
        .then(|| format!("`{op} {target}` empties the file"))
}

#[cfg(test)]
mod tests;
