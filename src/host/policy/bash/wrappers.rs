//! Wrappers and options: what `sudo`, `env`, `xargs`, `timeout`, `bash -c`, `eval` and the
//! like run, the shells and interpreters that run code, and how a program's own options are
//! read (GNU long-option abbreviations included).

use super::words::*;
use crate::host::policy;
use crate::host::policy::destructive::INTERPRETERS;

/// What a wrapper runs.
pub(super) enum Inner {
    Command(Vec<String>),
    Script(String),
}

pub(super) const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh",
];

pub(super) const WRAPPERS: &[&str] = &[
    "sudo",
    "doas",
    "su",
    "env",
    "xargs",
    "timeout",
    "gtimeout",
    "nice",
    "ionice",
    "nohup",
    "exec",
    "eval",
    "command",
    "builtin",
    "time",
    "stdbuf",
    "setsid",
    "watch",
    "flock",
    "chroot",
    "strace",
    "ltrace",
    "unbuffer",
    "chronic",
    "caffeinate",
    "parallel",
    "coproc",
];

pub(super) fn is_downloader(program: &str) -> bool {
    matches!(program, "curl" | "wget" | "fetch")
}

/// Programs that run what they read: a download piped into one of them runs unseen code.
pub(super) fn is_script_runner(program: &str) -> bool {
    SHELLS.contains(&program) || INTERPRETERS.contains(&program)
}

/// The commands and scripts a wrapper (or `find -exec`) runs.
pub(super) fn unwrap(words: &[String]) -> Vec<Inner> {
    let program = basename(&words[0]);
    let args = &words[1..];
    let rest = |from: usize| -> Vec<Inner> {
        vec![Inner::Command(
            args.get(from..).map(<[String]>::to_vec).unwrap_or_default(),
        )]
    };
    match program {
        "sudo" | "doas" => {
            let i = skip_options(
                args,
                &["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T"],
            );
            let i = skip_assignments(args, i);
            rest(i)
        }
        "env" => {
            let mut i = 0;
            while let Some(a) = args.get(i) {
                match a.as_str() {
                    "--" => {
                        i += 1;
                        break;
                    }
                    "-u" | "-C" | "-P" | "--unset" | "--chdir" => i += 2,
                    "-S" | "--split-string" => {
                        let mut script = args.get(i + 1).cloned().unwrap_or_default();
                        for more in args.iter().skip(i + 2) {
                            script.push(' ');
                            script.push_str(more);
                        }
                        return vec![Inner::Script(script)];
                    }
                    s if s.starts_with("--split-string=")
                        || (s.starts_with("-S") && s.len() > 2) =>
                    {
                        let first = s.split_once('=').map_or(&s[2..], |(_, v)| v);
                        let mut script = first.to_string();
                        for more in args.iter().skip(i + 1) {
                            script.push(' ');
                            script.push_str(more);
                        }
                        return vec![Inner::Script(script)];
                    }
                    s if s.starts_with('-') => i += 1,
                    _ => break,
                }
            }
            let i = skip_assignments(args, i);
            rest(i)
        }
        "xargs" => {
            let i = skip_options(args, &["-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a"]);
            if i >= args.len() {
                vec![Inner::Command(vec!["echo".into()])]
            } else {
                rest(i)
            }
        }
        "timeout" | "gtimeout" => {
            let i = skip_options(args, &["-s", "-k", "--signal", "--kill-after"]);
            rest(i + 1)
        }
        "nice" => rest(skip_options(args, &["-n", "--adjustment"])),
        "ionice" => rest(skip_options(args, &["-c", "-n", "-p", "-P", "-u"])),
        "stdbuf" => rest(skip_options(args, &["-i", "-o", "-e"])),
        "nohup" | "setsid" | "time" | "builtin" | "unbuffer" | "chronic" | "caffeinate"
        | "coproc" => rest(skip_options(args, &[])),
        "exec" => rest(skip_options(args, &["-a"])),
        "command" => {
            if args.iter().any(|a| a == "-v" || a == "-V") {
                Vec::new()
            } else {
                rest(skip_options(args, &[]))
            }
        }
        "strace" | "ltrace" => rest(skip_options(args, &["-e", "-o", "-p", "-s", "-u", "-E"])),
        "chroot" => {
            let i = skip_options(args, &["--userspec", "--groups"]);
            rest(i + 1)
        }
        "flock" => {
            let i = skip_options(args, &["-w", "-E", "--timeout", "--conflict-exit-code"]);
            match (args.get(i + 1).map(String::as_str), args.get(i + 2)) {
                (Some("-c" | "--command"), Some(script)) => vec![Inner::Script(script.clone())],
                _ => rest(i + 1),
            }
        }
        "watch" => {
            let i = skip_options(args, &["-n", "--interval", "-d", "-q", "--equexit"]);
            vec![Inner::Script(args.get(i..).unwrap_or_default().join(" "))]
        }
        "parallel" => vec![Inner::Script(args.join(" "))],
        "eval" => vec![Inner::Script(args.join(" "))],
        "su" => {
            let mut inner = Vec::new();
            for (i, a) in args.iter().enumerate() {
                if (a == "-c" || a == "--command")
                    && let Some(script) = args.get(i + 1)
                {
                    inner.push(Inner::Script(script.clone()));
                }
            }
            inner
        }
        p if SHELLS.contains(&p) => shell_script(args).map(Inner::Script).into_iter().collect(),
        "find" => {
            let mut inner = Vec::new();
            let mut i = 0;
            while i < args.len() {
                if matches!(args[i].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                    let start = i + 1;
                    let mut end = start;
                    while end < args.len() && args[end] != ";" && args[end] != "+" {
                        end += 1;
                    }
                    inner.push(Inner::Command(args[start.min(end)..end].to_vec()));
                    i = end;
                }
                i += 1;
            }
            inner
        }
        _ => policy::destructive::unwrap(words)
            .into_iter()
            .map(|w| match w {
                policy::destructive::Wrapped::Command(c) => Inner::Command(c),
                policy::destructive::Wrapped::Script(s) => Inner::Script(s),
            })
            .collect(),
    }
}

/// The index of the first argument that is not an option. `with_value` lists the options that
/// take the next word as their value (attached values, `-n1` or `--x=1`, need no entry).
pub(super) fn skip_options(args: &[String], with_value: &[&str]) -> usize {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if a == "--" {
            return i + 1;
        }
        if !a.starts_with('-') || a == "-" {
            return i;
        }
        i += if with_value.contains(&a.as_str()) {
            2
        } else {
            1
        };
    }
    i
}

pub(super) fn skip_assignments(args: &[String], mut i: usize) -> usize {
    while args.get(i).is_some_and(|a| is_assignment(a)) {
        i += 1;
    }
    i
}

pub(super) fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The script of `sh -c '<script>'` (any option cluster holding `c`).
pub(super) fn shell_script(args: &[String]) -> Option<String> {
    let mut wants_script = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if a == "--" {
            i += 1;
            continue;
        }
        if matches!(a.as_str(), "-o" | "+o" | "-O" | "+O") {
            i += 2;
            continue;
        }
        if (a.starts_with('-') || a.starts_with('+')) && a.len() > 1 {
            if a.starts_with('-') && !a.starts_with("--") && a.contains('c') {
                wants_script = true;
            }
            i += 1;
            continue;
        }
        return wants_script.then(|| a.clone());
    }
    None
}

/// Short options bundled in one word: `-rf` holds `r` and `f`.
pub(super) fn short_cluster(arg: &str) -> Option<&str> {
    arg.strip_prefix('-')
        .filter(|rest| !rest.is_empty() && !rest.starts_with('-'))
}

/// The name of a long option: `--force=x` → `force`.
pub(super) fn long_name(arg: &str) -> Option<&str> {
    let rest = arg.strip_prefix("--").filter(|r| !r.is_empty())?;
    Some(rest.split_once('=').map_or(rest, |(name, _)| name))
}

/// `name` is `full` or an abbreviation getopt_long would accept for it.
pub(super) fn abbreviates(name: &str, full: &str) -> bool {
    !name.is_empty() && full.starts_with(name)
}

/// An argument finch cannot see through (it came from an expansion).
pub(super) fn opaque(arg: &str) -> bool {
    arg.contains('$') || arg.contains('`')
}
