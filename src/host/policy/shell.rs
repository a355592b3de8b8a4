//! The gateway's lane for shell commands (SPEC §8.5): a read-only command in `acceptCalls`
//! runs in the fast lane when the kernel wall holds it and it reads nothing a tool may not
//! hand the model without a card; allow rules cover a command segment by segment; anything
//! else takes a card. Pure, as the whole gateway.

use std::path::{Path, PathBuf};

use super::paths::{expand_home, glob_literal_prefix};
use super::{
    Classification, DecidedBy, Decision, Mode, PathFacts, Rule, RuleList, Rules, Step, Wall,
    Workspace,
};
use crate::homes::absolutize;

/// What decides whether a read-only command may take the fast lane.
#[derive(Debug, Clone, Copy)]
pub(super) struct FastLane {
    pub mode: Mode,
    pub wall: Wall,
    /// The model asked for a person (`ESCALATE_ARG`).
    pub escalate: bool,
}

pub(super) fn bash_step(
    command: &str,
    c: &Classification,
    outside: Option<&str>,
    lane: FastLane,
    rules: &Rules,
) -> Step {
    // The fast lane needs the wall behind it and a model that did not ask for a person.
    let fast = lane.mode == Mode::AcceptCalls && !lane.escalate;
    let shown = one_line(command);
    if c.destructive {
        let why = c.destructive_reason.as_deref().unwrap_or("destructive");
        return (
            Decision::Ask,
            DecidedBy::CardRequired,
            format!("destructive command: {why}; it always gets a card"),
            Vec::new(),
        );
    }
    if c.read_only
        && fast
        && let Some(why) = outside
    {
        if let Ok(used) = bash_cover(c, rules) {
            let listed: Vec<String> = used.iter().map(|r| format!("{r}")).collect();
            return (
                Decision::Allow,
                DecidedBy::AllowRule,
                format!("`{shown}` ({why}) is allowed by the {}", listed.join(", ")),
                used,
            );
        }
        return (
            Decision::Ask,
            DecidedBy::OutsideWorkspace,
            format!("{}, but {why}", c.reason),
            Vec::new(),
        );
    }
    if c.read_only && fast {
        return match lane.wall {
            Wall::Holds => (
                Decision::Allow,
                DecidedBy::FastLane,
                format!(
                    "{}; the mode is acceptCalls; it runs in the read-only sandbox",
                    c.reason
                ),
                Vec::new(),
            ),
            Wall::Missing(why) => (
                Decision::Ask,
                DecidedBy::NoSandbox,
                format!(
                    "{}, but finch's kernel wall does not hold here ({why}), so every Bash call gets a card",
                    c.reason
                ),
                Vec::new(),
            ),
        };
    }
    match bash_cover(c, rules) {
        Ok(used) => {
            let listed: Vec<String> = used.iter().map(|r| format!("{r}")).collect();
            (
                Decision::Allow,
                DecidedBy::AllowRule,
                format!(
                    "every segment of `{shown}` is allowed by the {}",
                    listed.join(", ")
                ),
                used,
            )
        }
        // Nothing proves it read-only, but it means to change nothing: the wall holds it to
        // read-only, and only a refusal of the wall asks a person (codex-rs's "on failure").
        Err(_)
            if fast && lane.wall == Wall::Holds && !super::intent::intends_change(command, c) =>
        {
            (
                Decision::Allow,
                DecidedBy::SandboxFirst,
                format!(
                    "{}, but it means to change nothing; the mode is acceptCalls; it runs in the read-only sandbox, and a card comes only if the sandbox refuses it",
                    c.reason
                ),
                Vec::new(),
            )
        }
        Err(uncovered) if c.read_only && lane.escalate => (
            Decision::Ask,
            DecidedBy::Escalated,
            format!(
                "{}; the model asked for a person to run it with write access ({uncovered})",
                c.reason
            ),
            Vec::new(),
        ),
        Err(uncovered) if c.read_only => (
            Decision::Ask,
            DecidedBy::AskMode,
            format!("{}; the mode is ask and {uncovered}", c.reason),
            Vec::new(),
        ),
        Err(uncovered) => (
            Decision::Ask,
            DecidedBy::CardRequired,
            format!("not read-only: {}; {uncovered}", c.reason),
            Vec::new(),
        ),
    }
}

/// Where a read-only command reads outside the working directory and the trusted directories,
/// or something no tool may hand the model without a card (`/proc/*/environ`, a device).
/// Relative words resolve against the working directory and every directory a `cd` before
/// them names (each must fit: `cd src || cd ..` may have gone to either).
pub(super) fn read_paths_outside(
    c: &Classification,
    ws: &Workspace,
    facts: &PathFacts,
) -> Option<String> {
    if !c.read_only {
        return None;
    }
    for (word, path) in read_paths(c, ws) {
        let Some(path) = path else {
            return Some(format!("`{word}` needs a home directory to resolve"));
        };
        if HARMLESS_DEVICES.contains(&path.to_str().unwrap_or("")) {
            continue;
        }
        if let Some(why) = sensitive(&path) {
            return Some(format!("it reads {} ({why})", path.display()));
        }
        if !ws.really_contains(&path, facts) {
            return Some(format!(
                "it reads {}, outside the working directory and the trusted directories",
                path.display()
            ));
        }
    }
    None
}

/// Every path word of a command, each resolved against every base it may be relative to.
pub(super) fn read_paths(c: &Classification, ws: &Workspace) -> Vec<(String, Option<PathBuf>)> {
    let mut bases = vec![ws.cwd.clone()];
    let mut out = Vec::new();
    for segment in &c.segments {
        let mut new_bases = Vec::new();
        for word in &segment.paths {
            let literal = glob_literal_prefix(word);
            let Ok(expanded) = expand_home(literal, ws) else {
                out.push((word.clone(), None));
                continue;
            };
            for base in &bases {
                let path = absolutize(&expanded, base);
                if segment.program == "cd" {
                    new_bases.push(path.clone());
                }
                out.push((word.clone(), Some(path)));
            }
            if expanded.is_absolute() {
                // One answer whatever the base.
                out.dedup();
                new_bases.dedup();
            }
        }
        bases.extend(new_bases);
    }
    out
}

/// The resolved paths of a read-only command's path words, for `probe`.
pub(crate) fn bash_paths(c: &Classification, ws: &Workspace) -> Vec<PathBuf> {
    if !c.read_only {
        return Vec::new();
    }
    read_paths(c, ws)
        .into_iter()
        .filter_map(|(_, p)| p)
        .collect()
}

/// Devices a read-only command may read wherever the working directory is.
const HARMLESS_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/stdin",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/zero",
    "/dev/random",
    "/dev/urandom",
];

/// Files that hand out secrets or talk to hardware whatever directory they are reached from.
pub(super) fn sensitive(path: &Path) -> Option<&'static str> {
    if path.starts_with("/proc") {
        return Some("process information: environments, memory, command lines");
    }
    if path.starts_with("/sys") {
        return Some("kernel and device state");
    }
    if path.starts_with("/dev") {
        return Some("a device");
    }
    None
}

/// The allow rules that together cover every segment, or what is left uncovered.
pub(super) fn bash_cover(c: &Classification, rules: &Rules) -> Result<Vec<Rule>, String> {
    let allow: Vec<&Rule> = rules
        .iter(RuleList::Allow)
        .filter(|r| r.names(super::SHELL_TOOL))
        .collect();
    if allow.is_empty() {
        return Err("no allow rule names Bash".into());
    }
    if !c.parsed || c.segments.is_empty() {
        return Err("allow rules never cover a command that cannot be parsed".into());
    }
    if let Some(any) = allow.iter().find(|r| r.key_is_any()) {
        return Ok(vec![(*any).clone()]);
    }
    if !c.prefix_coverable {
        return Err(format!(
            "allow rules with a command prefix do not cover it ({})",
            c.reason
        ));
    }
    let mut used: Vec<Rule> = Vec::new();
    for segment in &c.segments {
        match allow.iter().find(|r| r.covers(&segment.words)) {
            Some(rule) => {
                if !used
                    .iter()
                    .any(|u| u.file == rule.file && u.index == rule.index)
                {
                    used.push((*rule).clone());
                }
            }
            None => {
                return Err(format!(
                    "no allow rule covers `{}`",
                    one_line(&segment.text)
                ));
            }
        }
    }
    Ok(used)
}

/// A command for a one-line reason: newlines shown as `⏎`, long commands cut.
pub(super) fn one_line(command: &str) -> String {
    let flat = command.trim().replace('\n', " ⏎ ");
    if flat.chars().count() > 80 {
        let cut: String = flat.chars().take(77).collect();
        format!("{cut}…")
    } else {
        flat
    }
}
