//! Whether a shell command the classifier cannot prove read-only still means to change
//! something (issue 41, "fewer cards where the wall holds"): a program whose purpose is to
//! write, delete, install, signal or administer, a subcommand of that kind (`git commit`,
//! `npm install`, `cargo build`), an in-place edit (`sed -i`), or output redirected to a file.
//! A command without such intent runs first in the read-only sandbox in `acceptCalls` and
//! takes a card only when the wall refuses it; one with it takes its card before it runs.
//!
//! It decides nothing on its own and reads nothing: the wall, not this table, is what keeps
//! a command that writes anyway from writing. A command it cannot parse is taken to intend it.

use super::Classification;

/// Programs whose purpose is to change files, processes or the system.
const WRITERS: &[&str] = &[
    "touch",
    "mkdir",
    "rmdir",
    "rm",
    "cp",
    "mv",
    "ln",
    "install",
    "chmod",
    "chown",
    "chgrp",
    "truncate",
    "dd",
    "tee",
    "shred",
    "mkfifo",
    "mknod",
    "patch",
    "unlink",
    "rsync",
    "scp",
    "sftp",
    "kill",
    "pkill",
    "killall",
    "sudo",
    "su",
    "doas",
    "mount",
    "umount",
    "systemctl",
    "service",
    "reboot",
    "shutdown",
    "poweroff",
    "halt",
    "crontab",
    "useradd",
    "userdel",
    "usermod",
    "passwd",
    "chattr",
    "setfacl",
    "mkfs",
    "fdisk",
    "parted",
    "wget",
    "make",
    "cmake",
    "ninja",
    "docker",
    "podman",
    "kubectl",
    "helm",
    "terraform",
    "ansible",
    "ansible-playbook",
    "apt",
    "apt-get",
    "dpkg",
    "dnf",
    "yum",
    "rpm",
    "pacman",
    "brew",
    "snap",
    "flatpak",
    "zip",
    "gzip",
    "gunzip",
    "bzip2",
    "xz",
    "unxz",
    "unzip",
    "split",
    "csplit",
    "nohup",
    "setsid",
    "at",
    "batch",
    "curl",
    "ssh",
    "nc",
    "ncat",
    "telnet",
    "ftp",
    "hostname",
    "timedatectl",
    "open",
    "xdg-open",
    "vim",
    "vi",
    "nano",
    "emacs",
];

/// Programs some of whose subcommands change things: those subcommands (git's looking ones
/// are the classifier's read-only ones already).
const WRITING_SUBCOMMANDS: &[(&str, &[&str])] = &[("git", &[""]), ("npx", &[""]), ("gh", &[""])];

/// Package and build tools, whose every subcommand but these changes something (installs,
/// builds into the workspace, publishes): the ones that only look.
const READING_SUBCOMMANDS: &[(&str, &[&str])] = &[
    ("npm", NODE_READS),
    ("pnpm", NODE_READS),
    ("yarn", NODE_READS),
    ("bun", NODE_READS),
    (
        "cargo",
        &[
            "check",
            "c",
            "tree",
            "metadata",
            "clippy",
            "search",
            "locate-project",
            "pkgid",
            "verify-project",
            "version",
            "help",
            "read-manifest",
            "info",
        ],
    ),
    (
        "pip",
        &[
            "list", "show", "freeze", "check", "search", "index", "inspect", "debug", "help",
        ],
    ),
    (
        "pip3",
        &[
            "list", "show", "freeze", "check", "search", "index", "inspect", "debug", "help",
        ],
    ),
    ("uv", &["tree", "version", "help"]),
    (
        "poetry",
        &["show", "check", "version", "about", "help", "env"],
    ),
    ("go", &["vet", "list", "env", "version", "doc", "help"]),
    ("rustup", &["show", "which", "help", "--version"]),
    (
        "gem",
        &["list", "info", "search", "contents", "help", "environment"],
    ),
    ("bundle", &["list", "info", "outdated", "check", "help"]),
    (
        "composer",
        &["show", "outdated", "validate", "help", "licenses"],
    ),
];

const NODE_READS: &[&str] = &[
    "ls", "list", "ll", "la", "view", "info", "show", "outdated", "why", "explain", "help",
    "search", "root", "bin", "prefix", "docs", "repo", "bugs", "fund", "doctor", "query",
];

/// Whether `command` (as `c` classifies it) means to change something.
pub fn intends_change(command: &str, c: &Classification) -> bool {
    if !c.parsed || c.segments.is_empty() {
        return true;
    }
    // Only what the classifier could not prove read-only: `git log` stays a look.
    c.segments
        .iter()
        .filter(|s| !s.read_only)
        .any(|s| program_changes(&s.program, &s.words))
        || redirects_to_a_file(command)
}

/// Whether a simple command `words` of `program` is one that changes things.
fn program_changes(program: &str, words: &[String]) -> bool {
    let name = program.rsplit('/').next().unwrap_or(program);
    if WRITERS.contains(&name) {
        return true;
    }
    let args: Vec<&str> = words.iter().skip(1).map(String::as_str).collect();
    if matches!(name, "sed" | "perl" | "ruby")
        && args
            .iter()
            .any(|a| *a == "-i" || a.starts_with("-i") || a.starts_with("--in-place"))
    {
        return true;
    }
    if writes_by_option(name, &args) {
        return true;
    }
    if let Some((_, reads)) = READING_SUBCOMMANDS.iter().find(|(p, _)| *p == name) {
        // A package tool: only the subcommands that look are free of intent.
        return match args.iter().find(|a| !a.starts_with('-')) {
            Some(sub) => !reads.contains(sub),
            None => !args
                .iter()
                .any(|a| matches!(*a, "--version" | "-V" | "--help" | "-h")),
        };
    }
    let Some((_, subcommands)) = WRITING_SUBCOMMANDS.iter().find(|(p, _)| *p == name) else {
        return false;
    };
    // The first word that is no option is the subcommand (`git -C dir commit`: options
    // with a value are rare enough that taking the value for it errs towards a card).
    match args.iter().find(|a| !a.starts_with('-')) {
        Some(sub) => subcommands.contains(sub) || subcommands.contains(&""),
        None => subcommands.contains(&""),
    }
}

/// Options and forms with which an otherwise looking program writes: `sort -o`, `uniq in
/// out`, an awk program that redirects or runs commands, `find -fprint`, `tar c|x`,
/// `date -s`, and `jq` handing out the environment.
fn writes_by_option(name: &str, args: &[&str]) -> bool {
    let operands: Vec<&&str> = args.iter().filter(|a| !a.starts_with('-')).collect();
    match name {
        "sort" => args.iter().any(|a| {
            *a == "-o" || a.starts_with("--output") || (a.starts_with("-o") && a.len() > 2)
        }),
        "uniq" => operands.len() >= 2,
        "awk" | "gawk" | "mawk" => args
            .iter()
            .any(|a| a.contains("system") || a.contains('>') || a.contains('|')),
        "find" => args.iter().any(|a| {
            matches!(
                *a,
                "-fprint"
                    | "-fprint0"
                    | "-fprintf"
                    | "-fls"
                    | "-delete"
                    | "-exec"
                    | "-execdir"
                    | "-ok"
                    | "-okdir"
            )
        }),
        "tar" => args
            .first()
            .is_some_and(|mode| !mode.trim_start_matches('-').starts_with('t')),
        "date" => args.iter().any(|a| *a == "-s" || a.starts_with("--set")),
        "jq" => args.iter().any(|a| *a == "env" || a.contains("$ENV")),
        "printf" => args.iter().any(|a| a.starts_with("-v")),
        _ => false,
    }
}

/// Whether the command sends output to a file: a `>` or `>>` outside quotes whose target is
/// not a descriptor (`2>&1`) nor `/dev/null`, `/dev/stdout`, `/dev/stderr`.
fn redirects_to_a_file(command: &str) -> bool {
    let chars: Vec<char> = command.chars().collect();
    let mut quote: Option<char> = None;
    let mut i = 0;
    while i < chars.len() {
        let ch = chars[i];
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => i += 1,
            (Some(_), _) => {}
            (None, '\\') => i += 1,
            (None, '\'' | '"') => quote = Some(ch),
            (None, '>') => {
                let mut j = i + 1;
                while j < chars.len() && matches!(chars[j], '>' | '|') {
                    j += 1;
                }
                while j < chars.len() && chars[j] == ' ' {
                    j += 1;
                }
                let target: String = chars[j..]
                    .iter()
                    .take_while(|c| !c.is_whitespace() && !matches!(c, ';' | '&' | '|' | ')'))
                    .collect();
                let harmless = chars.get(j) == Some(&'&')
                    || matches!(target.as_str(), "/dev/null" | "/dev/stdout" | "/dev/stderr");
                // `<(…)`/`>(…)` process substitution feeds a command, not a file.
                let substitution = chars.get(i + 1) == Some(&'(');
                if !harmless && !substitution {
                    return true;
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::policy::classify;

    fn intends(command: &str) -> bool {
        intends_change(command, &classify(command))
    }

    #[test]
    fn accepts_commands_that_only_mean_to_look() {
        for command in [
            "cargo check",
            "cargo tree",
            "cargo metadata --format-version 1",
            "npm ls",
            "python3 -c 'print(1)'",
            "node -e 'console.log(process.version)'",
            "python3 -m json.tool package.json",
            "head -c 16 /dev/urandom | od -x",
            "diff <(sort a.txt) <(sort b.txt)",
            "ls 2>&1 | grep x",
            "cat f.txt > /dev/null",
            "echo '>' not a redirect",
            "git log --oneline | python3 -c 'import sys; print(len(sys.stdin.read()))'",
            "go vet ./...",
            "pip list",
            "python3 script.py",
        ] {
            assert!(!intends(command), "{command}");
        }
    }

    #[test]
    fn rejects_commands_that_mean_to_change_things() {
        for command in [
            "touch x",
            "echo hi > f.txt",
            "echo hi >> f.txt",
            "ls >out.txt 2>&1",
            "git commit -m x",
            "git push",
            "npm install",
            "npx create-thing",
            "pip install requests",
            "cargo build",
            "sed -i s/a/b/ f.txt",
            "make",
            "kill 1234",
            "sudo ls",
            "cp a b",
            "curl -s x | tee out.txt",
            "if then fi (",
            "npm testing",
            "cargo test",
            "sort -o out.txt in.txt",
            "uniq in.txt out.txt",
            "awk '{print > \"out\"}' f",
            "tar xzf a.tgz",
            "jq -n env",
            "curl -o x https://example.com",
        ] {
            assert!(intends(command), "{command}");
        }
    }
}
