//! Where a call's paths are, as the gateway judges them: the session's workspace (its working
//! directory and trusted directories), the protected paths inside it, paths resolved against
//! it (`~`, `..`, a Glob's literal prefix), and the file tools' lane (inside → the fast lane in
//! `acceptCalls`, outside → a card). Pure: what the disk says comes in as `PathFacts`.

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use super::protected as table;
use super::{
    DecidedBy, Decision, Mode, PathFact, PathFacts, Rules, Step, Subject, allow_for_all, probe,
};
use crate::homes::absolutize;

/// Where a call runs: the file tools are confined to `cwd` and `trusted` (SPEC §8.6).
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The session's working directory, absolute.
    pub cwd: PathBuf,
    /// The project root relative path globs are matched from (see `rules::project_root`).
    pub project: PathBuf,
    /// Directories added with `Session action=extendDir`, absolute.
    pub trusted: Vec<PathBuf>,
    /// The user's home, for `~` in paths.
    pub home: Option<PathBuf>,
    /// finch's runtime home: every file in it is protected.
    pub runtime: Option<PathBuf>,
}

impl Workspace {
    pub(super) fn contains(&self, path: &Path) -> bool {
        path.starts_with(&self.cwd) || self.trusted.iter().any(|t| path.starts_with(t))
    }

    /// Inside by its name and by what the disk says about it (`PathFacts`).
    pub(super) fn really_contains(&self, path: &Path, facts: &PathFacts) -> bool {
        self.contains(path)
            && facts
                .get(path)
                .is_none_or(|f| !f.multiply_linked && !f.real_outside)
    }
}

/// Why a Write or Edit of `path` always takes a card, when it does: the runtime home, the
/// directories `core.hooksPath` names (`facts`), and the rows of `table::TABLE`.
pub fn protected(path: &Path, workspace: &Workspace, facts: &PathFacts) -> Option<&'static str> {
    let mut extra: Vec<table::Extra> = facts
        .hooks_dirs()
        .iter()
        .map(|d| table::Extra {
            path: d,
            why: table::HOOKS_PATH,
        })
        .collect();
    if let Some(runtime) = workspace.runtime.as_deref() {
        extra.push(table::Extra {
            path: runtime,
            why: table::RUNTIME_HOME,
        });
    }
    table::protected(path, workspace.home.as_deref(), &extra)
}

/// The protected paths that exist below `root`, for the kernel wall to keep read-only where it
/// lets a command write `root` (`table::protected_paths_below`): the table's, the
/// directories `core.hooksPath` names for the repository there and in the user's git
/// configuration, and the runtime home.
pub fn protected_paths_below(root: &Path, workspace: &Workspace) -> Vec<PathBuf> {
    let hooks = probe::hooks_dirs(&[root.to_path_buf()], workspace);
    let mut extra: Vec<&Path> = hooks.iter().map(PathBuf::as_path).collect();
    if let Some(runtime) = workspace.runtime.as_deref() {
        extra.push(runtime);
    }
    let home = workspace.home.clone().unwrap_or_default();
    table::protected_paths_below(root, &home, &extra)
}

pub(super) fn file_step(
    name: &str,
    paths: &Result<Vec<PathBuf>, String>,
    subjects: &[Subject],
    mode: Mode,
    rules: &Rules,
    workspace: &Workspace,
    facts: &PathFacts,
) -> Step {
    let paths = match paths {
        Ok(p) => p,
        Err(why) => {
            return (
                Decision::Ask,
                DecidedBy::CardRequired,
                format!("`{name}`: {why}"),
                Vec::new(),
            );
        }
    };
    // A link that leads out is the file tools' own business: they refuse it and name the real
    // path to ask for (`builtins::read::real_target`). A hard link has no other name to give.
    let outside = paths
        .iter()
        .find(|p| !workspace.contains(p) || facts.get(p).is_some_and(|f| f.multiply_linked));
    if outside.is_none() && mode == Mode::AcceptCalls {
        return (
            Decision::Allow,
            DecidedBy::FastLane,
            format!(
                "`{name}` {}, and the mode is acceptCalls",
                where_inside(paths, workspace)
            ),
            Vec::new(),
        );
    }
    if let Some(used) = allow_for_all(rules, name, subjects) {
        return (
            Decision::Allow,
            DecidedBy::AllowRule,
            format!("allowed by the {}", used[0]),
            used,
        );
    }
    match outside {
        Some(path) => (
            Decision::Ask,
            DecidedBy::OutsideWorkspace,
            match facts.get(path) {
                Some(f) if workspace.contains(path) && f.multiply_linked => format!(
                    "{} has more than one hard link, so it may be a file outside the working \
                     directory and the trusted directories",
                    path.display()
                ),
                Some(PathFact {
                    real: Some(real), ..
                }) if workspace.contains(path) => format!(
                    "{} leads to {}, outside the working directory {} and the trusted directories",
                    path.display(),
                    real.display(),
                    workspace.cwd.display()
                ),
                _ => format!(
                    "{} is outside the working directory {} and the trusted directories",
                    path.display(),
                    workspace.cwd.display()
                ),
            },
            Vec::new(),
        ),
        None => (
            Decision::Ask,
            DecidedBy::AskMode,
            format!("`{name}` needs a card in ask mode (no allow rule matches)"),
            Vec::new(),
        ),
    }
}

/// Where paths all inside the workspace are, in words: the working directory, or the trusted
/// directory that holds one that is not in it (a trusted directory is a person's decision for
/// the session, and a verdict says so rather than "inside the working directory").
pub(super) fn where_inside(paths: &[PathBuf], workspace: &Workspace) -> String {
    let trusted = paths.iter().find_map(|p| {
        if p.starts_with(&workspace.cwd) {
            return None;
        }
        let dir = workspace.trusted.iter().find(|t| p.starts_with(t))?;
        Some((p, dir))
    });
    match trusted {
        Some((path, dir)) => format!(
            "on {}, inside the trusted directory {}",
            path.display(),
            dir.display()
        ),
        None => format!("inside the working directory {}", workspace.cwd.display()),
    }
}

/// The paths a file tool touches, absolute and free of `.`/`..`. `Read`, `Write`, `Edit` need
/// `file_path` (or `path`); `Grep` and `Glob` default to the working directory, and `Glob`'s
/// pattern counts too when it is absolute or climbs out with `..`.
pub(crate) fn file_paths(
    name: &str,
    args: &Value,
    workspace: &Workspace,
) -> Result<Vec<PathBuf>, String> {
    let text = |key: &str| {
        args.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let mut raw: Vec<&str> = Vec::new();
    match name {
        "Read" | "Write" | "Edit" => match text("file_path").or_else(|| text("path")) {
            Some(p) => raw.push(p),
            None => return Err("no `file_path` argument to check".into()),
        },
        _ => {
            raw.push(text("path").unwrap_or("."));
            if name == "Glob"
                && let Some(pattern) = text("pattern")
                && (pattern.starts_with('/')
                    || pattern.starts_with('~')
                    || Path::new(pattern)
                        .components()
                        .any(|c| c == Component::ParentDir))
            {
                raw.push(pattern);
            }
        }
    }
    let base = text("path").map_or_else(
        || workspace.cwd.clone(),
        |p| resolve(p, workspace).unwrap_or_else(|_| workspace.cwd.clone()),
    );
    raw.iter()
        .enumerate()
        .map(|(i, p)| {
            // A Glob pattern is relative to its `path`; everything else to the cwd.
            if i > 0 {
                let literal = glob_literal_prefix(p);
                let pattern_path = expand_home(literal, workspace)?;
                Ok(absolutize(&pattern_path, &base))
            } else {
                resolve(p, workspace)
            }
        })
        .collect()
}

/// The path a `Session` call would trust or attach: `dir` of `extendDir`, `file` of `attach`.
pub fn session_trust_path(args: &Value) -> Option<&str> {
    let key = match args.get("action").and_then(Value::as_str)? {
        "extendDir" => "dir",
        "attach" => "file",
        _ => return None,
    };
    Some(args.get(key).and_then(Value::as_str).unwrap_or(""))
}

pub(crate) fn resolve(path: &str, workspace: &Workspace) -> Result<PathBuf, String> {
    Ok(absolutize(&expand_home(path, workspace)?, &workspace.cwd))
}

pub(super) fn expand_home(path: &str, workspace: &Workspace) -> Result<PathBuf, String> {
    if path == "~" || path.starts_with("~/") {
        match &workspace.home {
            Some(home) => Ok(home.join(path.trim_start_matches('~').trim_start_matches('/'))),
            None => Err(format!("cannot resolve `{path}` without a home directory")),
        }
    } else {
        Ok(PathBuf::from(path))
    }
}

/// The directories of a glob pattern before its first wildcard: `../x/*.rs` → `../x`.
pub(super) fn glob_literal_prefix(pattern: &str) -> &str {
    let cut = pattern.find(['*', '?', '[', '{']).unwrap_or(pattern.len());
    match pattern[..cut].rfind('/') {
        Some(slash) if cut < pattern.len() => &pattern[..slash.max(1)],
        _ if cut < pattern.len() => ".",
        _ => pattern,
    }
}
