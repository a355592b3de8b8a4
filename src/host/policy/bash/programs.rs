//! The read-only programs of §8.5, each with the rule that keeps it read-only: which options
//! and operands leave it a reader (`sed` without `e`/`w`, `git` subcommands that only show,
//! `find` without `-exec`/`-delete`, …).

use super::wrappers::*;
use crate::host::policy::destructive::INTERPRETERS;

/// The read-only programs of §8.5, each with the rule that keeps it read-only. `Ok` says why
/// the command only reads, `Err` why it may not.
pub(super) fn read_only_program(words: &[String]) -> Result<String, String> {
    let program = words[0].as_str();
    let args = &words[1..];
    if program.contains('/') {
        return Err(format!(
            "`{program}` is a path; only bare program names are known to be read-only"
        ));
    }
    let plain = || Ok(format!("`{program}` only reads"));
    match program {
        // Print, inspect or transform text and file metadata; none of them writes a file or
        // runs another program, whatever the arguments.
        "ls" | "cat" | "head" | "tail" | "wc" | "grep" | "egrep" | "fgrep" | "pwd" | "echo"
        | "printf" | "which" | "stat" | "du" | "df" | "cut" | "tr" | "diff" | "cmp" | "comm"
        | "basename" | "dirname" | "realpath" | "readlink" | "nl" | "od" | "hexdump"
        | "strings" | "true" | "false" | "rev" | "tac" | "fold" | "column" | "paste" | "join"
        | "expand" | "unexpand" | "md5sum" | "sha1sum" | "sha224sum" | "sha256sum"
        | "sha384sum" | "sha512sum" | "b2sum" | "cksum" | "seq" | "whoami" | "id" | "uname"
        | "groups" | "nproc" | "uptime" | "sleep" | "type" | "test" | "[" | "printenv"
        | "locale" | "tty" | "arch" | "getconf" | "free" | "lscpu" | "cal" | "w" | "who"
        | "tput" => plain(),
        // Without arguments `env` prints the (minimal) environment; with them it runs a command.
        "env" if args.is_empty() => plain(),
        // `command -v` and `-V` only look a name up.
        "command" if args.first().is_some_and(|a| a == "-v" || a == "-V") => {
            Ok("`command -v` only looks a name up".into())
        }
        // Wrappers that only change when or how long their command runs: read-only when what
        // they run is (`xargs wc -l`, `timeout 5 ls`).
        "xargs" | "timeout" | "gtimeout" | "nice" | "ionice" | "stdbuf" | "time" | "command" => {
            match unwrap(words).as_slice() {
                [Inner::Command(inner)] if !inner.is_empty() => read_only_program(inner)
                    .map(|why| format!("`{program}` runs what only reads ({why})"))
                    .map_err(|why| format!("`{program}` runs {why}")),
                _ => Err(format!("`{program}` is a wrapper: it runs another command")),
            }
        }
        // Asking any program or interpreter for its version runs nothing else.
        _ if version_query(program, args) => Ok(format!("`{program}` only prints its version")),
        // `env`, `$ENV`, `$__prog_args`… hand the whole environment, secrets included, to
        // whoever reads the output.
        "jq" | "gojq" | "jaq" | "yq" => {
            match args.iter().find(|a| a.contains("env") || a.contains("ENV")) {
                Some(a) => Err(format!("`{program} {a}` reads the environment")),
                None => plain(),
            }
        }
        // BSD-style `ps e`/`ps eww` prints every process's environment.
        "ps" => match args.iter().find(|a| !a.starts_with('-') && a.contains('e')) {
            Some(a) => Err(format!("`ps {a}` prints the environment of processes")),
            None => plain(),
        },
        // Changes only this shell's directory, which ends with the command.
        "cd" => Ok("`cd` changes only this command's directory".into()),
        "rg" => rg_read_only(args).map(|()| "`rg` only reads".into()),
        "find" => find_read_only(args).map(|()| "`find` only reads".into()),
        "fd" | "fdfind" => {
            let runs = args.iter().find(|a| {
                matches!(long_name(a), Some("exec" | "exec-batch"))
                    || short_cluster(a).is_some_and(|c| c.contains(['x', 'X']))
            });
            match runs {
                Some(a) => Err(format!("`{program} {a}` runs a command per match")),
                None => plain(),
            }
        }
        "sed" => {
            sed_read_only(args).map(|()| "`sed -n` with a print-only script only reads".into())
        }
        "awk" | "gawk" | "mawk" | "nawk" => awk_read_only(program, args),
        "git" => git_read_only(args),
        "sort" => {
            let writes = args.iter().find(|a| {
                matches!(long_name(a), Some(n) if abbreviates(n, "output") || n.starts_with("compress"))
                    || short_cluster(a).is_some_and(|c| c.contains('o'))
            });
            match writes {
                Some(a) => Err(format!("`sort {a}` writes a file or runs a program")),
                None => plain(),
            }
        }
        "uniq" => at_most_one_operand(
            program,
            args,
            &["-f", "-s", "-w"],
            "the second file is written",
        ),
        "xxd" => at_most_one_operand(
            program,
            args,
            &["-c", "-g", "-l", "-o", "-s", "-n", "-R", "-C"],
            "the second file is written",
        ),
        "tree" => match args
            .iter()
            .find(|a| a.as_str() == "-o" || a.starts_with("-o"))
        {
            Some(a) => Err(format!("`tree {a}` writes a file")),
            None => plain(),
        },
        "file" => match args.iter().find(|a| {
            a.as_str() == "--compile" || short_cluster(a).is_some_and(|c| c.contains('C'))
        }) {
            Some(a) => Err(format!("`file {a}` writes a magic file")),
            None => plain(),
        },
        "date" => date_read_only(args).map(|()| "`date` only prints".into()),
        "hostname" => {
            if args.iter().all(|a| {
                matches!(
                    a.as_str(),
                    "-f" | "-s" | "-i" | "-I" | "-d" | "-A" | "--fqdn" | "--short" | "--domain"
                )
            }) {
                Ok("`hostname` only prints".into())
            } else {
                Err("`hostname` with arguments can set the host name".into())
            }
        }
        "less" | "more" | "most" | "man" | "vi" | "vim" | "nano" | "emacs" => {
            Err(format!("`{program}` is interactive and can run commands"))
        }
        p if WRAPPERS.contains(&p) => Err(format!("`{p}` is a wrapper: it runs another command")),
        p if SHELLS.contains(&p) => {
            if shell_script(args).is_some() {
                Err(format!(
                    "`{p} -c` runs a script (only `bash -lc '<script>'` is looked into)"
                ))
            } else {
                Err(format!("`{p}` is a shell: it runs scripts"))
            }
        }
        p if INTERPRETERS.contains(&p) => Err(format!("`{p}` is an interpreter: it runs code")),
        p => Err(format!("`{p}` is not a known read-only program")),
    }
}

/// What lies between `[` and `]` of a single-bracket test, when `text` is one.
pub(super) fn single_bracket_test(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('[')?.strip_suffix(']')?;
    (!inner.starts_with('[')
        && inner.starts_with(char::is_whitespace)
        && inner.ends_with(char::is_whitespace))
    .then_some(inner)
}

/// `<program> --version`, and the short spellings interpreters use (`python3 -V`, `node -v`,
/// `java -version`).
pub(super) fn version_query(program: &str, args: &[String]) -> bool {
    match args {
        [only] if only == "--version" => true,
        [only] if INTERPRETERS.contains(&program) || matches!(program, "java" | "go") => {
            matches!(only.as_str(), "-V" | "-v" | "-version" | "version")
        }
        _ => false,
    }
}

pub(super) fn at_most_one_operand(
    program: &str,
    args: &[String],
    with_value: &[&str],
    why: &str,
) -> Result<String, String> {
    let mut operands = 0;
    let mut i = 0;
    let mut options_done = false;
    while let Some(a) = args.get(i) {
        if !options_done && a == "--" {
            options_done = true;
        } else if !options_done && a.starts_with('-') && a.len() > 1 {
            if with_value.contains(&a.as_str()) {
                i += 1;
            }
        } else {
            operands += 1;
        }
        i += 1;
    }
    if operands > 1 {
        Err(format!("`{program}` with two files: {why}"))
    } else {
        Ok(format!("`{program}` only reads"))
    }
}

pub(super) fn rg_read_only(args: &[String]) -> Result<(), String> {
    for a in args {
        if a == "--" {
            break;
        }
        let bad = match long_name(a) {
            Some(n) => matches!(n, "pre" | "pre-glob" | "search-zip" | "hostname-bin"),
            None => short_cluster(a).is_some_and(|c| c.contains('z')),
        };
        if bad {
            return Err(format!("`rg {a}` runs other programs on the files"));
        }
    }
    Ok(())
}

pub(super) fn find_read_only(args: &[String]) -> Result<(), String> {
    const RUNS: &[&str] = &["-exec", "-execdir", "-ok", "-okdir"];
    const WRITES: &[&str] = &["-delete", "-fls", "-fprint", "-fprint0", "-fprintf"];
    for a in args {
        if RUNS.contains(&a.as_str()) {
            return Err(format!("`find {a}` runs a command per file"));
        }
        if WRITES.contains(&a.as_str()) {
            return Err(format!("`find {a}` deletes or writes files"));
        }
    }
    Ok(())
}

pub(super) fn date_read_only(args: &[String]) -> Result<(), String> {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        // In a cluster, `d`, `f`, `I` and `r` take the rest of the word as their value.
        let sets_in_cluster = short_cluster(a).is_some_and(|c| {
            c.chars()
                .take_while(|ch| !matches!(ch, 'd' | 'f' | 'I' | 'r'))
                .any(|ch| ch == 's')
        });
        if sets_in_cluster || long_name(a).is_some_and(|n| n.len() >= 2 && abbreviates(n, "set")) {
            return Err(format!("`date {a}` sets the clock"));
        }
        if matches!(
            a.as_str(),
            "-d" | "-r" | "-f" | "--date" | "--reference" | "--file"
        ) {
            i += 2;
            continue;
        }
        if !a.starts_with('-') && !a.starts_with('+') {
            return Err(format!("`date {a}` sets the clock"));
        }
        i += 1;
    }
    Ok(())
}

pub(super) fn git_read_only(args: &[String]) -> Result<String, String> {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if !a.starts_with('-') {
            break;
        }
        let name = long_name(a);
        match a.as_str() {
            "-c" | "-p" | "--paginate" => {
                return Err(format!("`git {a}` can run configured programs"));
            }
            _ if matches!(name, Some("config-env" | "exec-path")) => {
                return Err(format!("`git {a}` can run configured programs"));
            }
            "-C" | "--git-dir" | "--work-tree" | "--namespace" => i += 2,
            "--no-pager"
            | "-P"
            | "--bare"
            | "--no-replace-objects"
            | "--literal-pathspecs"
            | "--glob-pathspecs"
            | "--noglob-pathspecs"
            | "--icase-pathspecs"
            | "--no-optional-locks" => i += 1,
            _ if matches!(name, Some("git-dir" | "work-tree" | "namespace")) => i += 1,
            _ => return Err(format!("`git {a}` is not a known safe git option")),
        }
    }
    let Some(sub) = args.get(i) else {
        return Err("`git` without a subcommand".into());
    };
    let rest = &args[i + 1..];
    for a in rest {
        if a == "--" {
            break;
        }
        if let Some(n) = long_name(a)
            && n.len() >= 3
            && ((abbreviates(n, "output") && !n.starts_with("output-"))
                || abbreviates(n, "ext-diff")
                || (abbreviates(n, "textconv") && n != "text")
                || abbreviates(n, "exec-path"))
        {
            return Err(format!(
                "`git {sub} {a}` writes a file or runs configured programs"
            ));
        }
    }
    let only = |allowed: &[&str]| {
        rest.iter()
            .find(|a| !allowed.contains(&a.as_str()))
            .map_or_else(
                || Ok(format!("`git {sub}` only reads")),
                |a| Err(format!("`git {sub} {a}` may change something")),
            )
    };
    match sub.as_str() {
        "status" | "log" | "diff" | "show" | "rev-parse" | "ls-files" | "blame" | "describe"
        | "shortlog" | "ls-tree" | "rev-list" | "merge-base" | "name-rev" | "for-each-ref"
        | "show-ref" | "check-ignore" | "count-objects" | "whatchanged" | "cherry" | "version" => {
            Ok(format!("`git {sub}` only reads"))
        }
        "branch" => git_branch_lists(rest).map(|()| "`git branch` only lists".into()),
        "cat-file" if rest.iter().any(|a| a == "--filters") => {
            Err("`git cat-file --filters` runs the configured filters".into())
        }
        "cat-file" => Ok("`git cat-file` only reads".into()),
        // `-O`/`--open-files-in-pager` runs a program.
        "grep" => match rest.iter().find(|a| {
            a.starts_with("-O")
                || long_name(a)
                    .is_some_and(|n| n.len() >= 3 && abbreviates(n, "open-files-in-pager"))
        }) {
            Some(a) => Err(format!("`git grep {a}` runs a program")),
            None => Ok("`git grep` only reads".into()),
        },
        "remote" => match rest.first().map(String::as_str) {
            None | Some("-v" | "--verbose") => only(&["-v", "--verbose"]),
            Some("get-url") => Ok("`git remote get-url` only reads".into()),
            Some(other) => Err(format!("`git remote {other}` may change the remotes")),
        },
        "config" => {
            let reads = rest.first().is_some_and(|a| {
                matches!(
                    a.as_str(),
                    "--get" | "--get-all" | "--get-regexp" | "--list" | "-l" | "get" | "list"
                )
            });
            if reads {
                Ok("`git config` only reads the configuration".into())
            } else {
                Err("`git config` without --get or --list may write the configuration".into())
            }
        }
        "tag" => match rest.first().map(String::as_str) {
            None | Some("-l" | "--list") => Ok("`git tag` only lists".into()),
            Some(other) => Err(format!("`git tag {other}` may create or delete a tag")),
        },
        "stash" | "worktree" => match rest.first().map(String::as_str) {
            Some("list") => Ok(format!("`git {sub} list` only lists")),
            _ => Err(format!("`git {sub}` without `list` changes the repository")),
        },
        other => Err(format!("`git {other}` is not a read-only git command")),
    }
}

pub(super) fn git_branch_lists(args: &[String]) -> Result<(), String> {
    const LISTING: &[&str] = &[
        "-a",
        "--all",
        "-r",
        "--remotes",
        "-v",
        "-vv",
        "--verbose",
        "--show-current",
        "--color",
        "--no-color",
        "--column",
        "--no-column",
        "-i",
        "--ignore-case",
        "--omit-empty",
        "--no-abbrev",
        "-l",
        "--list",
        "-q",
        "--quiet",
    ];
    const WITH_VALUE: &[&str] = &[
        "--contains",
        "--no-contains",
        "--merged",
        "--no-merged",
        "--points-at",
        "--sort",
        "--format",
        "--abbrev",
    ];
    let list_mode = args.iter().any(|a| a == "-l" || a == "--list");
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if LISTING.contains(&a.as_str()) {
            i += 1;
        } else if WITH_VALUE.contains(&a.as_str()) {
            i += 2;
        } else if a.starts_with("--")
            && long_name(a).is_some_and(|n| {
                WITH_VALUE.iter().any(|w| &w[2..] == n) || matches!(n, "color" | "column")
            })
        {
            i += 1;
        } else if a.starts_with('-') {
            return Err(format!("`git branch {a}` changes branches"));
        } else if list_mode {
            i += 1;
        } else {
            return Err(format!("`git branch {a}` creates a branch"));
        }
    }
    Ok(())
}

pub(super) fn sed_read_only(args: &[String]) -> Result<(), String> {
    let mut quiet = false;
    let mut scripts: Vec<&str> = Vec::new();
    let mut positional_script = None;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        match a.as_str() {
            "--" => break,
            "-n" | "--quiet" | "--silent" => quiet = true,
            "-E" | "-r" | "--regexp-extended" | "-s" | "--separate" | "-u" | "--unbuffered"
            | "-z" | "--null-data" | "--posix" | "--sandbox" => {}
            "-e" | "--expression" => match args.get(i) {
                Some(s) => {
                    scripts.push(s);
                    i += 1;
                }
                None => return Err("`sed -e` without a script".into()),
            },
            s if s.starts_with("--expression=") => scripts.push(&s["--expression=".len()..]),
            s if s.starts_with("--in-place") || s.starts_with("-i") => {
                return Err(format!("`sed {s}` edits files in place"));
            }
            s if s == "-f" || s.starts_with("--file") => {
                return Err(format!("`sed {s}` runs a script from a file"));
            }
            s if s.starts_with("--") => return Err(format!("`sed {s}` is not a known option")),
            s if s.starts_with('-') && s.len() > 1 => {
                // A cluster such as `-nE` or `-ne '1p'`.
                let cluster = &s[1..];
                for (k, c) in cluster.char_indices() {
                    match c {
                        'n' => quiet = true,
                        'E' | 'r' | 's' | 'u' | 'z' => {}
                        'e' => {
                            let attached = &cluster[k + 1..];
                            if attached.is_empty() {
                                match args.get(i) {
                                    Some(script) => {
                                        scripts.push(script);
                                        i += 1;
                                    }
                                    None => return Err("`sed -e` without a script".into()),
                                }
                            } else {
                                scripts.push(attached);
                            }
                            break;
                        }
                        'i' => return Err(format!("`sed {s}` edits files in place")),
                        'f' => return Err(format!("`sed {s}` runs a script from a file")),
                        _ => return Err(format!("`sed {s}` is not a known option")),
                    }
                }
            }
            s => {
                if scripts.is_empty() && positional_script.is_none() {
                    positional_script = Some(s);
                }
            }
        }
    }
    scripts.extend(positional_script);
    if !quiet {
        return Err("`sed` without `-n` can write files; only `sed -n` with a print-only script is read-only".into());
    }
    if scripts.is_empty() {
        return Err("`sed -n` without a script".into());
    }
    for script in scripts {
        sed_print_only(script)?;
    }
    Ok(())
}

/// A sed script made only of addresses and the commands `p`, `P`, `=`, `l`, `q`, `Q`, `{`, `}`.
pub(super) fn sed_print_only(script: &str) -> Result<(), String> {
    let b = script.as_bytes();
    let mut i = 0;
    let bad = |what: &str| Err(format!("sed script `{script}` {what}"));
    loop {
        while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b';') {
            i += 1;
        }
        if i >= b.len() {
            return Ok(());
        }
        if b[i] == b'}' {
            i += 1;
            continue;
        }
        // Address: one, or two separated by a comma, then an optional `!`.
        for n in 0..2 {
            match sed_address(b, i) {
                Some(next) => i = next,
                None if n == 0 => {}
                None => return bad("has an address finch cannot read"),
            }
            if n == 0 && i < b.len() && b[i] == b',' {
                i += 1;
                continue;
            }
            break;
        }
        while i < b.len() && matches!(b[i], b' ' | b'\t' | b'!') {
            i += 1;
        }
        let Some(&cmd) = b.get(i) else {
            return bad("ends without a command");
        };
        i += 1;
        match cmd {
            b'{' => continue,
            b'p' | b'P' | b'=' => {}
            b'l' | b'q' | b'Q' => {
                while i < b.len() && (b[i].is_ascii_digit() || b[i] == b' ') {
                    i += 1;
                }
            }
            other => {
                return bad(&format!(
                    "uses `{}`, which is not a print command",
                    other as char
                ));
            }
        }
        while i < b.len() && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        if i < b.len() && !matches!(b[i], b';' | b'\n' | b'}') {
            return bad("has more after a command");
        }
    }
}

/// One sed address at `i`: a line number (`3`, `0~4`, `+2`), `$`, `/regex/` or `\cregexc`.
pub(super) fn sed_address(b: &[u8], mut i: usize) -> Option<usize> {
    let start = i;
    match b.get(i)? {
        b'$' => Some(i + 1),
        c if c.is_ascii_digit() || *c == b'+' || *c == b'~' => {
            i += 1;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'~') {
                i += 1;
            }
            (i > start).then_some(i)
        }
        b'/' | b'\\' => {
            let delim = if b[i] == b'\\' {
                i += 1;
                *b.get(i)?
            } else {
                b'/'
            };
            i += 1;
            let mut in_class = false;
            while i < b.len() {
                match b[i] {
                    b'\\' => i += 1,
                    b'[' if !in_class => in_class = true,
                    b']' if in_class => in_class = false,
                    c if c == delim && !in_class => {
                        i += 1;
                        while i < b.len() && matches!(b[i], b'I' | b'M') {
                            i += 1;
                        }
                        return Some(i);
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => None,
    }
}

pub(super) fn awk_read_only(program: &str, args: &[String]) -> Result<String, String> {
    let mut i = 0;
    let mut source = None;
    while let Some(a) = args.get(i) {
        i += 1;
        match a.as_str() {
            "--" => {
                source = args.get(i);
                break;
            }
            "-F" | "-v" => i += 1,
            s if (s.starts_with("-F") || s.starts_with("-v")) && s.len() > 2 => {}
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(format!("`{program} {s}` may load programs or write files"));
            }
            _ => {
                source = Some(a);
                break;
            }
        }
    }
    let Some(source) = source else {
        return Err(format!("`{program}` without a program text"));
    };
    const RUNS_OR_WRITES: &[&str] = &["system", "|", ">", "getline", "close", "fflush", "@"];
    match RUNS_OR_WRITES.iter().find(|t| source.contains(**t)) {
        Some(t) => Err(format!(
            "`{program}` program uses `{t}`: it can run commands or write files"
        )),
        None => Ok(format!("`{program}` program only prints")),
    }
}
