//! What holds the protected paths where the kernel cannot (SPEC §8.5a): a check after each
//! call that may write the workspace, which puts back what the call changed and says so.
//!
//! The kernel holds what exists when the call starts: each protected path that does not lie
//! in a dependency tree is bound read-only, and every directory between it and the writable
//! root is bound over itself, so that none of them can be renamed or removed (`linux.rs`).
//! What it cannot hold is found here, by comparing what a walk of the protected paths
//! (`Survey`, made by the policy's table) saw before the call with what one sees after:
//! - a protected path that appeared (a new `.npmrc`, `.git/commondir`, a `.git` file, a hook):
//!   removed, unless it lies in a repository the call made (`git clone`, `git init`, `cargo
//!   new`: its `.git` and the work tree's tracked files) — but never a git hook, nor a new
//!   repository's configuration that runs programs, nor the user's log-in and autostart files;
//! - a protected path in a dependency tree (watched, not bound: binding them would keep
//!   `npm install` from replacing a package) that was changed or removed: put back as it was;
//! - a protected file with a second name (a hard link, through which the next call would
//!   write it): given a copy of its own — before the call too, so that no link made by an
//!   earlier one (a `.git/config` linked while `git init` was not yet protected) is used.
//!
//! Each of these is a `Refusal` the call's result reports: `blocked: the call changed
//! .git/hooks/pre-commit (protected); finch restored it`.

use std::collections::{BTreeMap, HashSet};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// A protected path that exists, as a walk found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Protected {
    pub path: PathBuf,
    /// Why it is protected (the table's reason).
    pub why: &'static str,
    /// The kernel holds it during a call (a read-only bind); else it is only watched.
    pub bound: bool,
    /// The user's session runs it (a log-in or autostart file, a directory on `PATH`): it may
    /// never appear, not even in a repository the call made.
    pub session: bool,
}

/// What a walk of the writable roots found.
#[derive(Debug, Clone, Default)]
pub struct Survey {
    pub protected: Vec<Protected>,
    /// Every directory the walk saw (device, inode): a protected path that appears later in
    /// one of them was made where one could not be before.
    pub dirs: HashSet<(u64, u64)>,
    /// The walk saw everything (it stops at `MAX_DIRS` directories a root).
    pub complete: bool,
}

impl Survey {
    /// The paths the kernel binds read-only.
    pub fn bound(&self) -> Vec<PathBuf> {
        self.protected
            .iter()
            .filter(|p| p.bound)
            .map(|p| p.path.clone())
            .collect()
    }
}

/// The largest protected file (or file below a protected directory) the guard keeps a copy
/// of; a watched file larger than this cannot be put back.
const MAX_COPY: u64 = 1 << 20;
/// The most files kept below one watched protected directory.
const MAX_FILES: usize = 512;

/// What the guard did about one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub path: PathBuf,
    pub why: &'static str,
    pub what: Refused,
}

/// What happened to a protected path, and what finch did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// It was changed (or removed): put back.
    Restored,
    /// It was created: removed.
    Removed,
    /// It had another name (a hard link): given a copy of its own.
    Unlinked,
    /// It was changed and could not be put back (the reason).
    Unrestorable(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = self.path.display();
        match &self.what {
            Refused::Restored => write!(
                f,
                "blocked: the call changed {path} (protected: {}); finch restored it",
                self.why
            ),
            Refused::Removed => write!(
                f,
                "blocked: the call created {path} (protected: {}); finch removed it",
                self.why
            ),
            Refused::Unlinked => write!(
                f,
                "blocked: {path} had another name linked to it (protected: {}); finch gave it a copy of its own",
                self.why
            ),
            Refused::Unrestorable(e) => write!(
                f,
                "blocked: the call changed {path} (protected: {}); finch could not restore it: {e}",
                self.why
            ),
        }
    }
}

/// A protected path as it was before the call.
#[derive(Debug, Clone)]
enum Snapshot {
    File(FileCopy),
    Dir(BTreeMap<PathBuf, FileCopy>),
    Link(PathBuf),
    /// Bound by the kernel, or too large to copy: only its identity is kept.
    Identity(Id),
    /// Gone by the time it was recorded.
    Absent,
}

/// A file's identity: what changes when it is written, replaced or linked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Id {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Id {
    fn of(meta: &std::fs::Metadata) -> Id {
        Id {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

#[derive(Debug, Clone)]
struct FileCopy {
    id: Id,
    mode: u32,
    bytes: Vec<u8>,
}

impl FileCopy {
    fn read(path: &Path) -> Option<FileCopy> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        if !meta.is_file() || meta.size() > MAX_COPY {
            return None;
        }
        let bytes = std::fs::read(path).ok()?;
        Some(FileCopy {
            id: Id::of(&meta),
            mode: meta.permissions().mode() & 0o7777,
            bytes,
        })
    }

    /// Whether `path` still holds this: the same identity, or (when it changed or the
    /// identity cannot tell, as for a write in the clock tick the copy was made) the same
    /// bytes and mode.
    fn same_at(&self, path: &Path) -> bool {
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            return false;
        };
        if !meta.is_file() || meta.nlink() > 1 {
            return false;
        }
        if Id::of(&meta) == self.id && !racy(&self.id) {
            return true;
        }
        meta.permissions().mode() & 0o7777 == self.mode
            && std::fs::read(path).is_ok_and(|b| b == self.bytes)
    }

    /// Writes this back to `path` (through a temporary file beside it, renamed over).
    fn restore(&self, path: &Path) -> std::io::Result<()> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
            std::fs::remove_dir_all(path)?;
        }
        crate::store::write_atomic(path, &self.bytes)?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(self.mode))
    }
}

/// Whether a file's times are too recent to tell a later write: a file system's clock ticks
/// coarsely, and a write in the same tick keeps the time (git's "racy" files). Within the
/// last two seconds, nothing is trusted.
fn racy(id: &Id) -> bool {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(i64::MAX);
    id.mtime.0 >= now - 2 || id.ctime.0 >= now - 2
}

/// The protected paths before a call, kept until it has ended.
#[derive(Debug)]
pub struct Guard {
    before: BTreeMap<PathBuf, (Snapshot, &'static str)>,
    dirs: HashSet<(u64, u64)>,
}

impl Guard {
    /// Records `survey` before a call: what each protected path holds (its bytes when only
    /// watched), after giving each protected file with another name a copy of its own
    /// (reported).
    pub fn before(survey: &Survey) -> (Guard, Vec<Refusal>) {
        let mut refusals = Vec::new();
        let mut before = BTreeMap::new();
        for p in &survey.protected {
            if unlink_others(&p.path) {
                refusals.push(Refusal {
                    path: p.path.clone(),
                    why: p.why,
                    what: Refused::Unlinked,
                });
            }
            before.insert(p.path.clone(), (snapshot(&p.path, p.bound), p.why));
        }
        (
            Guard {
                before,
                dirs: survey.dirs.clone(),
            },
            refusals,
        )
    }

    /// Compares `survey` (after the call) with what was recorded, puts back what can be put
    /// back, and says what it did.
    pub fn after(self, survey: &Survey) -> Vec<Refusal> {
        let mut refusals = Vec::new();
        let now: BTreeMap<&Path, &Protected> = survey
            .protected
            .iter()
            .map(|p| (p.path.as_path(), p))
            .collect();
        // What was there: still the same?
        for (path, (snapshot, why)) in &self.before {
            let why = *why;
            let what = match snapshot {
                Snapshot::Absent => continue,
                Snapshot::Identity(id) => {
                    let same = std::fs::symlink_metadata(path)
                        .is_ok_and(|m| m.dev() == id.dev && m.ino() == id.ino);
                    if same {
                        continue;
                    }
                    // Only a path the kernel did not hold can have been replaced.
                    Refused::Unrestorable(
                        "it was replaced, and finch kept no copy of it (too large)".to_string(),
                    )
                }
                Snapshot::File(copy) => {
                    if copy.same_at(path) {
                        continue;
                    }
                    match copy.restore(path) {
                        Ok(()) => Refused::Restored,
                        Err(e) => Refused::Unrestorable(e.to_string()),
                    }
                }
                Snapshot::Link(target) => {
                    if std::fs::read_link(path).is_ok_and(|t| &t == target) {
                        continue;
                    }
                    match restore_link(path, target) {
                        Ok(()) => Refused::Restored,
                        Err(e) => Refused::Unrestorable(e.to_string()),
                    }
                }
                Snapshot::Dir(files) => match restore_dir(path, files) {
                    Ok(false) => continue,
                    Ok(true) => Refused::Restored,
                    Err(e) => Refused::Unrestorable(e.to_string()),
                },
            };
            refusals.push(Refusal {
                path: path.clone(),
                why,
                what,
            });
        }
        // What is new.
        for (path, p) in now {
            if self.before.keys().any(|b| path.starts_with(b)) {
                continue;
            }
            if !p.session && self.in_new_repository(path) {
                // It may stay, but no git hook and no configuration that runs a program.
                for inner in git_runs_within(path) {
                    if std::fs::remove_file(&inner).is_ok() {
                        refusals.push(Refusal {
                            path: inner,
                            why: p.why,
                            what: Refused::Removed,
                        });
                    }
                }
                continue;
            }
            let removed = match std::fs::symlink_metadata(path) {
                Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
                Ok(_) => std::fs::remove_file(path),
                Err(_) => continue,
            };
            refusals.push(Refusal {
                path: path.to_path_buf(),
                why: p.why,
                what: match removed {
                    Ok(()) => Refused::Removed,
                    Err(e) => Refused::Unrestorable(e.to_string()),
                },
            });
        }
        // Links made during the call to what is protected now.
        for p in &survey.protected {
            if std::fs::symlink_metadata(&p.path).is_ok_and(|m| m.is_file() && m.nlink() > 1)
                && unlink_others(&p.path)
            {
                refusals.push(Refusal {
                    path: p.path.clone(),
                    why: p.why,
                    what: Refused::Unlinked,
                });
            }
        }
        refusals
    }

    /// Whether a protected path that appeared during the call lies in a repository the call
    /// made: it is a `.git` directory the walk did not see before (`git init`), or it lies in
    /// the work tree of one, below a directory the walk did not see before either (`git
    /// clone`, `cargo new`). Such a path may stay, but what it holds that git would run may
    /// not (`git_runs_within`).
    fn in_new_repository(&self, path: &Path) -> bool {
        let new_dir = |dir: &Path| {
            std::fs::symlink_metadata(dir)
                .is_ok_and(|m| m.is_dir() && !self.dirs.contains(&(m.dev(), m.ino())))
        };
        if path
            .file_name()
            .is_some_and(|n| n.eq_ignore_ascii_case(".git"))
        {
            return new_dir(path);
        }
        path.ancestors()
            .skip(1)
            .take_while(|a| new_dir(a))
            .any(|a| new_dir(&a.join(".git")))
    }
}

/// The files at or below `path` that a git command would run or obey for a repository the
/// call made: hooks other than git's `*.sample`s, and a configuration that runs a program
/// (`config_runs_a_program`). Links are not followed.
fn git_runs_within(path: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    let mut seen = 0;
    while let Some(p) = stack.pop() {
        seen += 1;
        if seen > MAX_FILES * 8 {
            break;
        }
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if meta.is_dir() {
            stack.extend(
                std::fs::read_dir(&p)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path()),
            );
            continue;
        }
        let in_git = p.components().any(|c| {
            c.as_os_str()
                .to_str()
                .is_some_and(|n| n.eq_ignore_ascii_case(".git"))
        });
        let is_config = in_git
            && p.file_name().is_some_and(|n| n == "config")
            && std::fs::read_to_string(&p).is_ok_and(|t| config_runs_a_program(&t));
        if is_git_hook(&p) || is_config {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Whether `path` is a hook of a git directory: a file below a `hooks` directory inside a
/// `.git` directory, other than git's `*.sample`s.
fn is_git_hook(path: &Path) -> bool {
    let names: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_lowercase())
        .collect();
    match names.iter().rposition(|n| n == "hooks") {
        Some(i) => {
            i + 1 < names.len()
                && names[..i].iter().any(|n| n == ".git")
                && !names.last().is_some_and(|n| n.ends_with(".sample"))
        }
        None => false,
    }
}

/// Configuration keys that make git run a program (section and key, lowercased; `*` any
/// subsection).
const RUNS_A_PROGRAM: &[&str] = &[
    "core.fsmonitor",
    "core.hookspath",
    "core.sshcommand",
    "core.pager",
    "core.editor",
    "core.askpass",
    "core.gitproxy",
    "core.worktree",
    "diff.external",
    "sequence.editor",
    "credential.helper",
    "gpg.program",
    "uploadpack.packobjectshook",
    "include.path",
    "includeif.path",
];

/// Keys in any subsection that run a program (`diff.<driver>.textconv`, `filter.<x>.clean`…).
const RUNS_A_PROGRAM_ANY: &[&str] = &[
    "textconv", "command", "clean", "smudge", "process", "driver", "program", "helper",
];

/// Whether git configuration `text` sets a key that runs a program.
pub fn config_runs_a_program(text: &str) -> bool {
    let mut section = String::new();
    let mut subsection = false;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        let mut rest = line;
        if let Some(header) = line.strip_prefix('[') {
            let (head, after) = header.split_once(']').unwrap_or((header, ""));
            let mut words = head.split([' ', '"', '.']).filter(|w| !w.is_empty());
            section = words.next().unwrap_or("").to_ascii_lowercase();
            subsection = words.next().is_some();
            rest = after.trim();
            if rest.is_empty() {
                continue;
            }
        }
        let key = rest
            .split(['=', ' ', '\t'])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        let value = rest.split_once('=').map_or("", |(_, v)| v.trim());
        let full = format!("{section}.{key}");
        if RUNS_A_PROGRAM.contains(&full.as_str())
            || (subsection && RUNS_A_PROGRAM_ANY.contains(&key.as_str()))
            || (section == "alias" && value.trim_start_matches('"').starts_with('!'))
        {
            return true;
        }
    }
    false
}

/// What `path` holds now, for the guard: a bound path's identity only (the kernel holds it),
/// a watched one's bytes.
fn snapshot(path: &Path, bound: bool) -> Snapshot {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Snapshot::Absent;
    };
    if bound {
        return Snapshot::Identity(Id::of(&meta));
    }
    if meta.file_type().is_symlink() {
        return std::fs::read_link(path)
            .map(Snapshot::Link)
            .unwrap_or(Snapshot::Identity(Id::of(&meta)));
    }
    if meta.is_dir() {
        let mut files = BTreeMap::new();
        let mut stack = vec![path.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let p = entry.path();
                match entry.file_type() {
                    Ok(t) if t.is_dir() => stack.push(p),
                    Ok(t) if t.is_file() => {
                        if files.len() >= MAX_FILES {
                            return Snapshot::Identity(Id::of(&meta));
                        }
                        match FileCopy::read(&p) {
                            Some(copy) => {
                                files
                                    .insert(p.strip_prefix(path).unwrap_or(&p).to_path_buf(), copy);
                            }
                            None => return Snapshot::Identity(Id::of(&meta)),
                        }
                    }
                    _ => {}
                }
            }
        }
        return Snapshot::Dir(files);
    }
    match FileCopy::read(path) {
        Some(copy) => Snapshot::File(copy),
        None => Snapshot::Identity(Id::of(&meta)),
    }
}

/// Puts the files of a watched directory back as `files` says: what changed or went is
/// written again, what was added is removed. `Ok(true)` when anything had to be.
fn restore_dir(path: &Path, files: &BTreeMap<PathBuf, FileCopy>) -> std::io::Result<bool> {
    let mut changed = false;
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        if std::fs::symlink_metadata(path).is_ok() {
            std::fs::remove_file(path)?;
        }
        std::fs::create_dir_all(path)?;
        changed = true;
    }
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)?.flatten() {
            let p = entry.path();
            let rel = p.strip_prefix(path).unwrap_or(&p).to_path_buf();
            let t = entry.file_type()?;
            if t.is_dir() {
                if files.keys().any(|f| f.starts_with(&rel)) {
                    stack.push(p);
                } else {
                    std::fs::remove_dir_all(&p)?;
                    changed = true;
                }
            } else if !files.contains_key(&rel) {
                std::fs::remove_file(&p)?;
                changed = true;
            }
        }
    }
    for (rel, copy) in files {
        let p = path.join(rel);
        if !copy.same_at(&p) {
            copy.restore(&p)?;
            changed = true;
        }
    }
    Ok(changed)
}

fn restore_link(path: &Path, target: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path)?,
        Ok(_) => std::fs::remove_file(path)?,
        Err(_) => {}
    }
    std::os::unix::fs::symlink(target, path)
}

/// When `path` is a regular file with other names (hard links), gives it a copy of its own:
/// the other names keep the old file, which is no longer the protected one. Whether it did.
fn unlink_others(path: &Path) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return false;
    };
    if !meta.is_file() || meta.nlink() <= 1 {
        return false;
    }
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    crate::store::write_atomic(path, &bytes).is_ok()
        && std::fs::set_permissions(
            path,
            std::fs::Permissions::from_mode(meta.permissions().mode() & 0o7777),
        )
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protected(path: &Path, bound: bool) -> Protected {
        Protected {
            path: path.to_path_buf(),
            why: "test",
            bound,
            session: false,
        }
    }

    fn dir_ids(dirs: &[&Path]) -> HashSet<(u64, u64)> {
        dirs.iter()
            .map(|d| {
                let m = std::fs::metadata(d).unwrap();
                (m.dev(), m.ino())
            })
            .collect()
    }

    #[test]
    fn watched_changes_are_put_back_and_new_protected_paths_removed() {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path();
        let hooks = w.join("node_modules/x/.git/hooks");
        std::fs::create_dir_all(&hooks).unwrap();
        std::fs::write(hooks.join("pre-commit"), "#!/bin/sh\necho team\n").unwrap();
        std::fs::write(w.join(".envrc"), "export A=1\n").unwrap();
        let survey = Survey {
            protected: vec![
                protected(&hooks, false),
                protected(&w.join(".envrc"), false),
            ],
            dirs: dir_ids(&[w, &w.join("node_modules"), &w.join("node_modules/x")]),
            complete: true,
        };
        let (guard, linked) = Guard::before(&survey);
        assert!(linked.is_empty());
        // The call: a hook changed, one added, the .envrc removed, a new .npmrc, and a new
        // repository with a protected file of its own (allowed).
        std::fs::write(hooks.join("pre-commit"), "#!/bin/sh\ntouch /tmp/pwn\n").unwrap();
        std::fs::write(hooks.join("post-checkout"), "#!/bin/sh\n").unwrap();
        std::fs::remove_file(w.join(".envrc")).unwrap();
        std::fs::write(w.join(".npmrc"), "node-options=--require ./evil.cjs\n").unwrap();
        std::fs::create_dir_all(w.join("newpkg/.git")).unwrap();
        std::fs::write(w.join("newpkg/.npmrc"), "x\n").unwrap();
        let after = Survey {
            protected: vec![
                protected(&hooks, false),
                protected(&w.join(".npmrc"), false),
                protected(&w.join("newpkg/.npmrc"), false),
            ],
            ..Survey::default()
        };
        let refusals = guard.after(&after);
        let said: Vec<String> = refusals
            .iter()
            .map(|r| format!("{} {:?}", r.path.strip_prefix(w).unwrap().display(), r.what))
            .collect();
        assert_eq!(
            said,
            [
                ".envrc Restored",
                "node_modules/x/.git/hooks Restored",
                ".npmrc Removed"
            ]
        );
        assert_eq!(
            std::fs::read_to_string(hooks.join("pre-commit")).unwrap(),
            "#!/bin/sh\necho team\n"
        );
        assert!(!hooks.join("post-checkout").exists());
        assert_eq!(
            std::fs::read_to_string(w.join(".envrc")).unwrap(),
            "export A=1\n"
        );
        assert!(!w.join(".npmrc").exists());
        assert!(
            w.join("newpkg/.npmrc").exists(),
            "a new repository keeps its own"
        );
        assert!(
            refusals[0]
                .to_string()
                .starts_with("blocked: the call changed ")
        );
    }

    #[test]
    fn hard_links_to_protected_files_are_cut_before_and_after() {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path();
        std::fs::create_dir_all(w.join(".git")).unwrap();
        let config = w.join(".git/config");
        std::fs::write(&config, "[core]\n").unwrap();
        std::fs::hard_link(&config, w.join("innocent.txt")).unwrap();
        let survey = Survey {
            protected: vec![protected(&config, true)],
            dirs: dir_ids(&[w, &w.join(".git")]),
            complete: true,
        };
        let (guard, refusals) = Guard::before(&survey);
        assert_eq!(refusals.len(), 1, "{refusals:?}");
        assert_eq!(refusals[0].what, Refused::Unlinked);
        std::fs::write(w.join("innocent.txt"), "[core]\n\tfsmonitor = evil\n").unwrap();
        assert_eq!(std::fs::read_to_string(&config).unwrap(), "[core]\n");
        assert!(guard.after(&survey).is_empty());
    }

    #[test]
    fn new_repositories_may_stay_but_not_what_they_would_run() {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path();
        let guard = Guard {
            before: BTreeMap::new(),
            dirs: dir_ids(&[w]),
        };
        let repo = w.join("clone/.git");
        std::fs::create_dir_all(repo.join("hooks")).unwrap();
        std::fs::write(repo.join("hooks/pre-commit.sample"), "x").unwrap();
        std::fs::write(
            repo.join("config"),
            "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://h/r\n",
        )
        .unwrap();
        // A .git where the workspace had none: a repository of its own.
        let own = w.join(".git");
        std::fs::create_dir_all(own.join("hooks")).unwrap();
        std::fs::write(own.join("hooks/pre-commit"), "#!/bin/sh\n").unwrap();
        std::fs::write(own.join("config"), "[core]\n\tfsmonitor = touch pwn\n").unwrap();
        std::fs::write(w.join(".npmrc"), "x\n").unwrap();
        std::fs::create_dir_all(w.join("plain")).unwrap();
        std::fs::write(w.join("plain/.envrc"), "x\n").unwrap();
        assert!(guard.in_new_repository(&repo));
        assert!(guard.in_new_repository(&own));
        assert!(!guard.in_new_repository(&w.join(".npmrc")));
        assert!(
            !guard.in_new_repository(&w.join("plain/.envrc")),
            "a new directory is not a repository"
        );
        let now = Survey {
            protected: vec![
                protected(&repo, false),
                protected(&own, false),
                protected(&w.join(".npmrc"), false),
                protected(&w.join("plain/.envrc"), false),
            ],
            ..Survey::default()
        };
        let refusals = guard.after(&now);
        let removed: Vec<&Path> = refusals
            .iter()
            .map(|r| r.path.strip_prefix(w).unwrap())
            .collect();
        assert_eq!(
            removed,
            [
                Path::new(".git/config"),
                Path::new(".git/hooks/pre-commit"),
                Path::new(".npmrc"),
                Path::new("plain/.envrc")
            ]
        );
        assert!(repo.join("config").exists() && repo.join("hooks/pre-commit.sample").exists());
    }

    #[test]
    fn git_configuration_that_runs_programs_is_recognised() {
        for text in [
            "[core]\n\tfsmonitor = x\n",
            "[core]\n\thooksPath = h\n",
            "[diff \"d\"]\n\ttextconv = x\n",
            "[filter \"lfs\"]\n\tclean = git-lfs clean\n",
            "[alias]\n\tco = !sh -c x\n",
            "[include]\n\tpath = ../evil\n",
            "[core] sshCommand = x\n",
        ] {
            assert!(config_runs_a_program(text), "{text}");
        }
        for text in [
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n",
            "[remote \"origin\"]\n\turl = x\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
            "[branch \"main\"]\n\tremote = origin\n",
            "[alias]\n\tco = checkout\n",
        ] {
            assert!(!config_runs_a_program(text), "{text}");
        }
    }
}
