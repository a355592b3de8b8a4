//! Destructive commands: the classic checks (`rm -rf`, `git reset --hard`, …) before the
//! table of `policy::destructive`.

use super::words::*;
use super::wrappers::*;
use crate::host::policy;
use crate::host::policy::destructive::Scripts;

/// Why these words (one simple command, wrappers not yet removed) are destructive: the classic
/// checks here, then the table of `policy::destructive`, which asks `scripts` about the shell
/// scripts it finds inside code.
pub(super) fn destructive_words(words: &[String], scripts: Scripts) -> Option<String> {
    classic_destructive(words).or_else(|| policy::destructive::reason(words, scripts))
}

pub(super) fn classic_destructive(words: &[String]) -> Option<String> {
    let program = basename(&words[0]);
    let args = &words[1..];
    match program {
        "rm" => {
            for a in args {
                if a == "--" {
                    break;
                }
                if opaque(a) {
                    return Some(format!("`rm` with an argument finch cannot read (`{a}`)"));
                }
                let long = long_name(a).is_some_and(|n| {
                    abbreviates(n, "recursive")
                        || abbreviates(n, "force")
                        || n == "no-preserve-root"
                });
                let short = short_cluster(a).is_some_and(|c| c.contains(['r', 'R', 'f']));
                // `rm -[r]f x`: the pattern may well match an option.
                let pattern = a.starts_with('-') && a.contains(['*', '?', '[']);
                if long || short || pattern {
                    return Some(format!("`rm {a}` deletes recursively or without asking"));
                }
            }
            None
        }
        "git" => git_destructive(args),
        "dd" => args
            .iter()
            .find(|a| a.starts_with("of="))
            .map(|a| format!("`dd {a}` overwrites a file or device")),
        "chmod" | "chown" | "chgrp" => args
            .iter()
            .take_while(|a| a.as_str() != "--")
            .find(|a| {
                short_cluster(a).is_some_and(|c| c.contains('R'))
                    || long_name(a).is_some_and(|n| n.len() >= 3 && abbreviates(n, "recursive"))
            })
            .map(|a| format!("`{program} {a}` changes a whole tree")),
        p if p.starts_with("mkfs") || p == "mke2fs" || p == "wipefs" => {
            Some(format!("`{p}` formats a file system"))
        }
        "shred" | "srm" => Some(format!("`{program}` destroys file contents")),
        "truncate" => Some("`truncate` cuts files to a size, discarding their contents".into()),
        "rsync" => args
            .iter()
            .take_while(|a| a.as_str() != "--")
            .find(|a| {
                long_name(a).is_some_and(|n| {
                    n.starts_with("del") || n == "remove-source-files" || n == "remove-sent-files"
                })
            })
            .map(|a| format!("`rsync {a}` deletes files")),
        "find" => args
            .iter()
            .any(|a| a == "-delete")
            .then(|| "`find -delete` deletes files".to_string()),
        _ => None,
    }
}

pub(super) fn git_destructive(args: &[String]) -> Option<String> {
    let i = git_subcommand_index(args)?;
    let sub = args[i].as_str();
    let rest = &args[i + 1..];
    match sub {
        "reset" => rest
            .iter()
            .find(|a| long_name(a).is_some_and(|n| n.len() >= 2 && abbreviates(n, "hard")))
            .map(|_| "`git reset --hard` discards uncommitted changes".to_string()),
        "clean" => rest
            .iter()
            .find(|a| {
                short_cluster(a).is_some_and(|c| c.contains('f'))
                    || long_name(a).is_some_and(|n| abbreviates(n, "force"))
            })
            .map(|a| format!("`git clean {a}` deletes untracked files")),
        "push" => rest
            .iter()
            .find(|a| {
                short_cluster(a).is_some_and(|c| c.contains(['f', 'd']))
                    || long_name(a).is_some_and(|n| {
                        n.len() >= 3
                            && (abbreviates(n, "force")
                                || abbreviates(n, "force-with-lease")
                                || abbreviates(n, "force-if-includes")
                                || abbreviates(n, "mirror")
                                || abbreviates(n, "delete"))
                    })
                    || (a.starts_with('+') && a.len() > 1)
                    || (a.starts_with(':') && a.len() > 1)
            })
            .map(|a| format!("`git push {a}` overwrites or deletes remote history")),
        "rm" => rest
            .iter()
            .take_while(|a| a.as_str() != "--")
            .find(|a| {
                short_cluster(a).is_some_and(|c| c.contains(['r', 'f']))
                    || long_name(a).is_some_and(|n| n == "force" || n == "recursive")
            })
            .map(|a| format!("`git rm {a}` deletes files")),
        "branch" => {
            let has = |short: char, long: &str| {
                rest.iter().any(|a| {
                    short_cluster(a).is_some_and(|c| c.contains(short))
                        || long_name(a).is_some_and(|n| n.len() >= 3 && abbreviates(n, long))
                })
            };
            let forced = rest
                .iter()
                .any(|a| short_cluster(a).is_some_and(|c| c.contains(['D', 'M', 'C'])));
            (forced
                || (has('f', "force")
                    && (has('d', "delete") || has('m', "move") || has('c', "copy"))))
            .then(|| "`git branch -D` deletes or overwrites a branch".to_string())
        }
        "restore" => {
            let staged = rest
                .iter()
                .any(|a| a == "--staged" || short_cluster(a).is_some_and(|c| c.contains('S')));
            let worktree = rest
                .iter()
                .any(|a| a == "--worktree" || short_cluster(a).is_some_and(|c| c.contains('W')));
            (worktree || !staged)
                .then(|| "`git restore` discards uncommitted changes in files".to_string())
        }
        "checkout" => rest
            .iter()
            .find(|a| {
                matches!(
                    a.as_str(),
                    "--" | "." | ":/" | "-f" | "--force" | "-p" | "--patch"
                ) || short_cluster(a).is_some_and(|c| c.contains('f'))
                    || long_name(a).is_some_and(|n| n == "force")
            })
            .map(|a| format!("`git checkout {a}` discards uncommitted changes")),
        "switch" => rest
            .iter()
            .find(|a| {
                matches!(a.as_str(), "-f" | "--force" | "--discard-changes")
                    || short_cluster(a).is_some_and(|c| c.contains('f'))
            })
            .map(|a| format!("`git switch {a}` discards uncommitted changes")),
        "stash" => rest
            .iter()
            .find(|a| matches!(a.as_str(), "drop" | "clear"))
            .map(|a| format!("`git stash {a}` deletes stashed changes")),
        _ => None,
    }
}

/// Skips git's global options; `None` when there is no subcommand.
pub(super) fn git_subcommand_index(args: &[String]) -> Option<usize> {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env"
            | "--exec-path" => i += 2,
            s if s.starts_with('-') => i += 1,
            _ => return Some(i),
        }
    }
    None
}
