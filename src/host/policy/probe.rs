//! What the disk says about the paths of one call, for the gateway, which reads no file
//! itself: where a path really leads (through symbolic links) and whether a regular file has
//! more than one hard link. `probe` runs just before `decide`; it only looks (`canonicalize`,
//! `metadata`), it never opens, creates or follows anything into a read.
//!
//! A hard link is a second name for the same file, and nothing on disk says where the first
//! one is: a link in the working directory to `/etc/shadow` looks like any other file. So a
//! regular file with more than one link counts as outside the working directory (a card); the
//! rare legitimate one (a `git worktree` object, a `cp -l` backup) costs a card.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Target, Workspace, resolve, session_trust_path};

/// The facts about one path of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathFact {
    /// The path as the gateway sees it (absolute, lexically normalised).
    pub path: PathBuf,
    /// Where it really leads, when that differs from `path`.
    pub real: Option<PathBuf>,
    /// `real` lies outside the (real) working directory and trusted directories.
    pub real_outside: bool,
    /// A regular file with more than one hard link.
    pub multiply_linked: bool,
}

/// The facts about every path of a call that the disk had something to say about.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathFacts {
    facts: Vec<PathFact>,
    /// The directories git's `core.hooksPath` names for the repositories a Write or Edit
    /// touches (absolute): git runs what is in them, so they are protected.
    hooks_dirs: Vec<PathBuf>,
    /// The stored task a `Schedule` call names (`id`), when it exists.
    pub task: Option<StoredTask>,
    /// The space a `Schedule` call names (`space`), when it exists: its directory, `None`
    /// for a space without one (its tasks run in the agent home).
    pub space: Option<Option<PathBuf>>,
}

/// What `tasks.json` says about a task, for the gateway (`dispatch`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredTask {
    /// `permissionMode` as written (default `acceptCalls`, SPEC §6).
    pub mode: String,
    /// Where it runs: its `cwd`, its space's directory, or `None` (the agent home, or a space
    /// without a directory).
    pub dir: Option<PathBuf>,
}

impl PathFacts {
    pub fn new(facts: Vec<PathFact>) -> PathFacts {
        PathFacts {
            facts,
            ..PathFacts::default()
        }
    }

    /// These facts, with the `core.hooksPath` directories.
    pub fn with_hooks_dirs(mut self, dirs: Vec<PathBuf>) -> PathFacts {
        self.hooks_dirs = dirs;
        self
    }

    pub fn hooks_dirs(&self) -> &[PathBuf] {
        &self.hooks_dirs
    }

    pub fn get(&self, path: &Path) -> Option<&PathFact> {
        self.facts.iter().find(|f| f.path == path)
    }
}

/// Looks at the paths the gateway will judge for this call of `tool` (and, for `Schedule`, at
/// the stored task and the space it names).
pub fn probe(tool: &str, args: &Value, workspace: &Workspace) -> PathFacts {
    let target = Target::of(
        &crate::host::tool::ToolRef::from_name(tool),
        args,
        workspace,
    );
    probe_planned(tool, args, &target, workspace)
}

/// `probe`, for a call whose `Target` is already known: a command's paths come from its
/// classification, not from parsing it again.
pub fn probe_planned(
    tool: &str,
    args: &Value,
    target: &Target,
    workspace: &Workspace,
) -> PathFacts {
    let mut facts = probe_paths(tool, args, target, workspace);
    if tool == "Schedule" {
        schedule_facts(&mut facts, args, workspace);
    }
    facts
}

fn probe_paths(tool: &str, args: &Value, target: &Target, workspace: &Workspace) -> PathFacts {
    let paths: Vec<PathBuf> = match (tool, target) {
        (_, Target::Command(_, classification)) => super::bash_paths(classification, workspace),
        ("Read" | "Write" | "Edit" | "Grep" | "Glob", Target::Paths(paths)) => {
            paths.clone().unwrap_or_default()
        }
        ("Session", _) => session_trust_path(args)
            .and_then(|raw| resolve(raw, workspace).ok())
            .into_iter()
            .collect(),
        ("Schedule" | "AppCall", _) => super::dispatch::named_dir(tool, args)
            .and_then(|raw| resolve(raw, workspace).ok())
            .into_iter()
            .collect(),
        _ => Vec::new(),
    };
    if paths.is_empty() {
        return PathFacts::default();
    }
    let hooks_dirs = if matches!(tool, "Write" | "Edit") {
        hooks_dirs(&paths, workspace)
    } else {
        Vec::new()
    };
    // The real roots are needed only for a path that leads elsewhere than it says: one whose
    // real path is itself has no link in any prefix, its working directory's included, so the
    // gateway's lexical judgement of it already holds. The common call (a plain file in the
    // working directory) costs one `canonicalize` and one `stat` (a Read: one `stat`).
    let mut roots: Option<Vec<PathBuf>> = None;
    let mut real_roots = || {
        roots
            .get_or_insert_with(|| {
                std::iter::once(&workspace.cwd)
                    .chain(&workspace.trusted)
                    .map(|d| std::fs::canonicalize(d).unwrap_or_else(|_| d.clone()))
                    .collect()
            })
            .clone()
    };
    // Where a link leads is the reading file tools' own business (they refuse a link out and
    // name the real file to ask for), so for them only hard links are looked at.
    let reads = matches!(tool, "Read" | "Grep" | "Glob");
    let facts = paths
        .into_iter()
        .filter_map(|path| {
            let real = if reads {
                path.clone()
            } else {
                real_path(&path)
            };
            let multiply_linked = multiply_linked(&path);
            if real == path && !multiply_linked {
                return None;
            }
            let real_outside = !real_roots().iter().any(|r| real.starts_with(r));
            let real = (real != path).then_some(real);
            Some(PathFact {
                path,
                real,
                real_outside,
                multiply_linked,
            })
        })
        .collect();
    PathFacts {
        facts,
        hooks_dirs,
        ..PathFacts::default()
    }
}

/// A `Schedule` call's facts: where its `cwd` really leads, the stored task its `id` names
/// and the space its `space` names (read from `tasks.json` and `spaces.json`; a file that
/// cannot be read says nothing).
fn schedule_facts(facts: &mut PathFacts, args: &Value, workspace: &Workspace) {
    let Some(runtime) = workspace.runtime.as_deref() else {
        return;
    };
    let read = |p: PathBuf| {
        crate::store::read_regular_text(&p)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
    };
    let spaces = read(runtime.join("spaces.json"));
    let space_dir = |key: &str| -> Option<Option<PathBuf>> {
        let list = spaces.as_ref()?.get("spaces")?.as_array()?;
        let found = list.iter().find(|s| {
            let field = |k: &str| s.get(k).and_then(Value::as_str).unwrap_or_default();
            field("id") == key || field("name").to_lowercase() == key.to_lowercase()
        })?;
        Some(
            found
                .get("directory")
                .and_then(Value::as_str)
                .map(PathBuf::from),
        )
    };
    let text = |k: &str| args.get(k).and_then(Value::as_str);
    if let Some(key) = text("space").filter(|k| !k.is_empty()) {
        facts.space = space_dir(key);
    }
    if let Some(id) = text("id")
        && let Some(tasks) = read(runtime.join("automation").join("tasks.json"))
        && let Some(task) = tasks
            .get("tasks")
            .and_then(Value::as_array)
            .and_then(|list| {
                list.iter()
                    .find(|t| t.get("id").and_then(Value::as_str) == Some(id))
            })
    {
        let target = task.get("target");
        let field = |k: &str| {
            target
                .and_then(|t| t.get(k))
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let dir = match (field("cwd"), field("space")) {
            (Some(cwd), _) => Some(PathBuf::from(cwd)),
            (None, Some(space)) => space_dir(space).flatten(),
            (None, None) => None,
        };
        facts.task = Some(StoredTask {
            mode: task
                .get("permissionMode")
                .and_then(Value::as_str)
                .unwrap_or("acceptCalls")
                .to_string(),
            dir,
        });
    }
}

/// The `core.hooksPath` directories that apply to `paths`: from the repository holding each
/// path (its `.git/config`, or the config of the directory a `.git` file points to) and the
/// user's global git config. Only reads small config files; a file that cannot be read says
/// nothing.
pub(crate) fn hooks_dirs(paths: &[PathBuf], workspace: &Workspace) -> Vec<PathBuf> {
    let read = |p: &Path| crate::store::read_regular_text(p).ok();
    let mut out: Vec<PathBuf> = Vec::new();
    let mut push = |value: String, base: &Path| {
        let dir = match (value.strip_prefix("~/"), workspace.home.as_deref()) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => crate::homes::absolutize(Path::new(&value), base),
        };
        if !out.contains(&dir) {
            out.push(dir);
        }
    };
    if let Some(home) = workspace.home.as_deref() {
        for global in [home.join(".gitconfig"), home.join(".config/git/config")] {
            if let Some(v) = read(&global)
                .as_deref()
                .and_then(super::protected::hooks_path_in)
            {
                push(v, home);
            }
        }
    }
    let mut seen: Vec<PathBuf> = Vec::new();
    for path in paths.iter().chain(std::iter::once(&workspace.cwd)) {
        let Some(top) = path.ancestors().find(|d| d.join(".git").exists()) else {
            continue;
        };
        if seen.iter().any(|s| s == top) {
            continue;
        }
        seen.push(top.to_path_buf());
        let dot_git = top.join(".git");
        let git_dir = if dot_git.is_dir() {
            dot_git
        } else {
            match read(&dot_git)
                .as_deref()
                .and_then(|t| t.trim().strip_prefix("gitdir:").map(str::trim))
            {
                Some(dir) => crate::homes::absolutize(Path::new(dir), top),
                None => continue,
            }
        };
        let mut configs = vec![git_dir.join("config")];
        if let Some(common) = read(&git_dir.join("commondir")) {
            configs
                .push(crate::homes::absolutize(Path::new(common.trim()), &git_dir).join("config"));
        }
        for config in configs {
            if let Some(v) = read(&config)
                .as_deref()
                .and_then(super::protected::hooks_path_in)
            {
                push(v, top);
            }
        }
    }
    out
}

/// The real path: the longest existing prefix canonicalized, the rest appended as written
/// (what a path names once every link is followed, also for a file not made yet). Read and
/// the gateway alike use it, to name the file a call really reaches.
pub fn real_path(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut tail = Vec::new();
    loop {
        if let Ok(mut real) = std::fs::canonicalize(&existing) {
            real.extend(tail.iter().rev());
            return real;
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                tail.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

#[cfg(unix)]
fn multiply_linked(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.nlink() > 1)
}

#[cfg(not(unix))]
fn multiply_linked(_path: &Path) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn workspace(cwd: &Path) -> Workspace {
        Workspace {
            cwd: cwd.to_path_buf(),
            project: cwd.to_path_buf(),
            trusted: Vec::new(),
            home: None,
            runtime: None,
        }
    }

    #[cfg(unix)]
    #[test]
    fn finds_hard_links_and_links_that_lead_out() {
        let top = tempfile::tempdir().unwrap();
        let cwd = top.path().join("cwd");
        std::fs::create_dir(&cwd).unwrap();
        let outside = top.path().join("secret");
        std::fs::write(&outside, "s").unwrap();
        std::fs::hard_link(&outside, cwd.join("hard")).unwrap();
        std::os::unix::fs::symlink(&outside, cwd.join("soft")).unwrap();
        std::fs::write(cwd.join("plain"), "p").unwrap();
        let ws = workspace(&cwd);
        let facts = probe("Read", &json!({"file_path": "hard"}), &ws);
        assert!(facts.get(&cwd.join("hard")).unwrap().multiply_linked);
        let facts = probe("Write", &json!({"file_path": "soft"}), &ws);
        assert!(facts.get(&cwd.join("soft")).unwrap().real_outside);
        // Read refuses a link out itself, naming the real file: the probe spares the lookup
        // (here the link's target is hard-linked, which still counts).
        let facts = probe("Read", &json!({"file_path": "soft"}), &ws);
        assert!(facts.get(&cwd.join("soft")).unwrap().real.is_none());
        let facts = probe("Read", &json!({"file_path": "plain"}), &ws);
        assert_eq!(facts, PathFacts::default());
        let facts = probe("Write", &json!({"file_path": "new/file"}), &ws);
        assert!(
            facts
                .get(&cwd.join("new/file"))
                .is_none_or(|f| !f.real_outside)
        );
    }
}
