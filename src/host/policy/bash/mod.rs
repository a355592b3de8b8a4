//! The Bash classifier of SPEC §8.5: is a command read-only, is it destructive, and what simple
//! commands (segments) does it run. A pure function over the text: the command is parsed with
//! tree-sitter-bash and the tree is walked with an allow-list of node kinds, so anything this
//! module does not understand is "not read-only" with the node kind as the reason. It must never
//! execute, expand or look up anything: no process, no file system, no environment.
//!
//! Read-only and destructive are independent. Read-only decides the fast lane (§8.3); destructive
//! marks a card as high risk and keeps every allow rule away from it. Destructive detection looks
//! everywhere — inside substitutions, subshells, `bash -c` scripts, `eval`, and behind wrappers
//! such as `sudo` — because a command that is not read-only can still hide `rm -rf`.
//!
//! No expansion runs without a card (issue 13). An unquoted here-document (`<<EOF`) expands
//! like a double-quoted string, so any backtick or `$` expansion in its body makes the command
//! not read-only, and the substitutions in it are searched for damage. Builtins that evaluate
//! an argument a second time — `printf -v`, `read`, `mapfile`, `test -v`, `let`, `declare`,
//! `[[ … ]]` — are never read-only, no command-prefix rule covers them (`printf -v` can rewrite
//! `HOME` or `PATH` for the commands after it), and substitutions hidden in their quoted array
//! subscripts count for the destructive check. A command word that is not a plain name after
//! quote removal (`$X`, `$'\x72m'`, `/bin/r[m]`, `$(…)`) hides its program, so it counts as
//! destructive: high risk, and no allow rule spares it.
//!
//! Read-only says what a command does, not where: which files it may read is the gateway's
//! question, answered from `Segment::paths` (the words that may name files) against the
//! working directory and the trusted directories.

//!
//! The module is split by concern: `walk` walks the parsed tree (node kinds, words,
//! redirections, nesting) and owns what it finds (`Classification`, `Segment`); `words` is the
//! text of words (quoting, expansion, which words name files); `programs` holds the read-only
//! programs and their argument rules, `wrappers` what wrappers and interpreters run, `damage`
//! the classic destructive checks in front of the table of `policy::destructive`, which this
//! module asks and which never asks back (it is handed the classifier as a function).

mod damage;
mod programs;
#[cfg(test)]
mod tests;
mod walk;
mod words;
mod wrappers;

pub use walk::{Classification, Segment};

/// Classifies one command line. Never executes anything.
pub fn classify(command: &str) -> Classification {
    walk::classify_at(command, 0)
}
