//! The protected-paths table (issue 28): the files and directories that finch, git, a shell,
//! an editor or the user's session later runs or obeys. A Write or Edit of one of them always
//! takes a card (the gateway's `ProtectedPath` step); the kernel wall binds the ones that exist
//! read-only inside a writable workspace (`protected_paths_below`), and the sandbox's guard
//! compares them before and after each call that may write (`survey`, `sandbox::guard`).
//!
//! The walk goes to any depth, dependency trees included (`DEPENDENCY_TREES`: a planted
//! nested repository's hooks under `node_modules/` count as much as the workspace's own), but
//! what it finds in a dependency tree is watched, not bound: a bind there would keep
//! `npm install` from replacing the package. Inside a `.git` directory it lists what git runs
//! or obeys (`GIT_RUNS`, with the indirections `commondir` and `objects/info/alternates`);
//! a `.git` file is protected itself and the directory it names is walked as a `.git`
//! directory when it lies inside the root. To stay quick on large trees between calls, each
//! directory's listing is kept (`LISTINGS`) and read again only when its modification time
//! changed or was too recent to trust.
//!
//! One table (`TABLE`), data rather than `if`s, one test per row. Names match without regard to
//! case on every OS: on a case-insensitive volume (macOS, Windows) `.GIT/config` and `.Bashrc`
//! are the real files. The user's persistence points under `$HOME` (`.ssh/`, `.local/bin/`,
//! autostart and systemd user units, …) are protected wherever the workspace is.
//!
//! This module decides nothing about a call and reads nothing but what `protected_paths_below`
//! lists: facts about the disk (where `core.hooksPath` points) come in as `Extra` paths, found
//! by `probe`.

use std::collections::HashMap;
use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};
use std::sync::{LazyLock, Mutex};

pub use crate::sandbox::guard::{Protected, Survey};

/// How a row matches a path. Every comparison ignores case.
#[derive(Debug, Clone, Copy)]
pub enum Match {
    /// These consecutive components anywhere in the path; the path is them or below them
    /// (`.git`, `.hg/hgrc`, `.config/git`).
    Anywhere(&'static [&'static str]),
    /// The last component is this name, in any directory (`.bashrc`).
    Name(&'static str),
    /// The last component starts with this prefix (`.yarnrc*`).
    NamePrefix(&'static str),
    /// These components right below the user's home; the path is them or below them
    /// (`~/.local/bin`).
    Home(&'static [&'static str]),
}

/// One row of the table: what it matches and why it is protected.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    pub matches: Match,
    pub why: &'static str,
}

const FINCH: &str = "`.finch` holds finch's permission rules and state";
const GIT: &str = "git runs what `.git` configures (hooks, fsmonitor, filters)";
const HOOKS: &str = "git runs the hooks in this directory once `core.hooksPath` names it";
const CONFIG_RUNS: &str = "a program runs what this configuration says";
const STARTUP: &str = "git, shells and package managers run what this file configures";
const LOGIN: &str = "the user's session runs what is here (log-in, start-up, remote access)";
const PATH_DIR: &str = "programs here are found on the user's PATH before the system's";
const PYTHON: &str = "Python runs this file at every start";
const EDITOR: &str = "the editor runs the tasks and settings this file names";
const BUILD: &str = "the build tool runs the programs this configuration names";
const SECRETS: &str = "it holds the user's keys and who may log in";

/// The table. `protected` reads it top to bottom; the first row that matches gives the reason.
pub const TABLE: &[Row] = &[
    // finch's own rules and state, and git's.
    row(Match::Anywhere(&[".finch"]), FINCH),
    row(Match::Anywhere(&[".git"]), GIT),
    row(Match::Anywhere(&[".githooks"]), HOOKS),
    row(Match::Anywhere(&[".husky"]), HOOKS),
    row(Match::Name(".gitconfig"), STARTUP),
    row(Match::Name(".gitmodules"), GIT),
    row(Match::Anywhere(&[".hg", "hgrc"]), CONFIG_RUNS),
    row(Match::Anywhere(&[".config", "git"]), CONFIG_RUNS),
    row(Match::Anywhere(&[".config", "fish"]), CONFIG_RUNS),
    // Editors that run a project's tasks.
    row(Match::Anywhere(&[".vscode", "tasks.json"]), EDITOR),
    row(Match::Anywhere(&[".vscode", "settings.json"]), EDITOR),
    // Shell start-up files and their `*.d` directories.
    row(Match::Name(".bashrc"), STARTUP),
    row(Match::Anywhere(&[".bashrc.d"]), STARTUP),
    row(Match::Name(".bash_profile"), STARTUP),
    row(Match::Name(".bash_login"), STARTUP),
    row(Match::Name(".bash_logout"), STARTUP),
    row(Match::Name(".bash_aliases"), STARTUP),
    row(Match::Name(".profile"), STARTUP),
    row(Match::Anywhere(&[".profile.d"]), STARTUP),
    row(Match::Name(".zshrc"), STARTUP),
    row(Match::Anywhere(&[".zshrc.d"]), STARTUP),
    row(Match::Name(".zshenv"), STARTUP),
    row(Match::Name(".zprofile"), STARTUP),
    row(Match::Name(".zlogin"), STARTUP),
    row(Match::Name(".zlogout"), STARTUP),
    row(Match::Name(".kshrc"), STARTUP),
    row(Match::Name(".mkshrc"), STARTUP),
    row(Match::Name(".cshrc"), STARTUP),
    row(Match::Name(".tcshrc"), STARTUP),
    row(Match::Name(".login"), STARTUP),
    row(Match::Name(".logout"), STARTUP),
    row(Match::Name(".inputrc"), STARTUP),
    row(Match::Name(".pam_environment"), LOGIN),
    row(Match::Name(".xprofile"), LOGIN),
    row(Match::Name(".xsessionrc"), LOGIN),
    row(Match::Name(".xinitrc"), LOGIN),
    // Per-directory environments, package managers and build tools.
    row(Match::Name(".envrc"), STARTUP),
    row(Match::Name(".npmrc"), STARTUP),
    row(Match::NamePrefix(".yarnrc"), STARTUP),
    row(Match::Name(".pnpmfile.cjs"), STARTUP),
    row(Match::Name("bunfig.toml"), STARTUP),
    row(Match::Anywhere(&[".cargo", "config.toml"]), BUILD),
    row(Match::Anywhere(&[".cargo", "config"]), BUILD),
    row(Match::Name(".pre-commit-config.yaml"), HOOKS),
    row(Match::Name("lefthook.yml"), HOOKS),
    row(Match::Name(".lefthook.yml"), HOOKS),
    // Python start-up hooks.
    row(Match::Name("usercustomize.py"), PYTHON),
    row(Match::Name("sitecustomize.py"), PYTHON),
    // Remote access and keys, wherever a home is.
    row(Match::Anywhere(&[".ssh"]), SECRETS),
    row(Match::Anywhere(&[".gnupg"]), SECRETS),
    // The user's persistence points under `$HOME`.
    row(Match::Home(&[".local", "bin"]), PATH_DIR),
    row(Match::Home(&["bin"]), PATH_DIR),
    row(Match::Home(&[".config", "autostart"]), LOGIN),
    row(Match::Home(&[".config", "systemd", "user"]), LOGIN),
    row(Match::Home(&[".config", "environment.d"]), LOGIN),
    row(Match::Home(&["Library", "LaunchAgents"]), LOGIN),
];

const fn row(matches: Match, why: &'static str) -> Row {
    Row { matches, why }
}

/// Paths that are protected besides the table, with their reasons: finch's runtime home, the
/// directories `core.hooksPath` names.
#[derive(Debug, Clone, Copy)]
pub struct Extra<'a> {
    pub path: &'a Path,
    pub why: &'static str,
}

/// Why the runtime home is protected.
pub const RUNTIME_HOME: &str =
    "finch's runtime home holds its settings, rules, mini tools and MCP servers";
/// Why a `core.hooksPath` directory is protected.
pub const HOOKS_PATH: &str = "git runs the hooks in this directory (`core.hooksPath` names it)";

/// Why a Write or Edit of `path` (absolute, lexically normal) always takes a card, if it does.
pub fn protected(path: &Path, home: Option<&Path>, extra: &[Extra]) -> Option<&'static str> {
    if let Some(e) = extra.iter().find(|e| below(path, e.path)) {
        return Some(e.why);
    }
    let names = lower_names(path);
    let home_names = home.map(lower_names);
    TABLE
        .iter()
        .find(|r| row_matches(r.matches, &names, home_names.as_deref()))
        .map(|r| r.why)
}

/// What git runs or obeys inside a `.git` directory: the kernel wall keeps these read-only and
/// leaves the rest (objects, refs, the index) writable, so that an approved `git commit` works.
/// `modules` and `worktrees` hold the configuration and hooks of submodules and worktrees;
/// `commondir` and `objects/info/alternates` make git read another directory as its own (and
/// run what that one's configuration says), so they are protected where they exist and
/// watched for where they do not.
pub const GIT_RUNS: &[&str] = &[
    "hooks",
    "config",
    "config.worktree",
    "info",
    "modules",
    "worktrees",
    "commondir",
    "objects/info/alternates",
    "objects/info/http-alternates",
];

/// Dependency and build trees: walked like the rest, but a protected path found in one is
/// watched (`sandbox::guard`), not bound read-only, since installing replaces what is there.
pub const DEPENDENCY_TREES: &[&str] = &[
    "node_modules",
    "target",
    ".cache",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".gradle",
];

/// The most directories one walk reads below a root; past it, the survey says it is not
/// complete.
const MAX_DIRS: usize = 200_000;

/// Every protected path that exists at or below `root` and lies outside the dependency trees:
/// what the kernel wall binds read-only where a command may write `root` (`survey`).
pub fn protected_paths_below(root: &Path, home: &Path, extra: &[&Path]) -> Vec<PathBuf> {
    survey(&[root.to_path_buf()], home, extra).bound()
}

/// Every protected path that exists at or below `roots`: the table's rows, `home`'s
/// persistence points when they lie below a root, what git runs in each git directory, and
/// the `extra` paths that exist. A protected directory is listed once and not entered. Links
/// are listed as found, never followed.
pub fn survey(roots: &[PathBuf], home: &Path, extra: &[&Path]) -> Survey {
    let mut walk = Walk {
        roots: roots.to_vec(),
        home: lower_names(home),
        extra: extra.iter().map(|e| lower_names(e)).collect(),
        survey: Survey {
            complete: true,
            ..Survey::default()
        },
        dirs_read: 0,
    };
    let mut listings = LISTINGS.lock().unwrap_or_else(|e| e.into_inner());
    if listings.len() > MAX_DIRS * 2 {
        listings.clear();
    }
    for root in roots {
        let names = lower_names(root);
        if let Some(why) = walk.why(&names) {
            if std::fs::symlink_metadata(root).is_ok() {
                walk.found(root.clone(), why, false);
            }
            continue;
        }
        walk.dir(root, names, false, &mut listings);
    }
    // An extra path below a root that the walk could not reach through names alone.
    for e in extra {
        if roots.iter().any(|r| below(e, r))
            && std::fs::symlink_metadata(e).is_ok()
            && !walk.survey.protected.iter().any(|p| below(e, &p.path))
        {
            walk.found(e.to_path_buf(), HOOKS_PATH, false);
        }
    }
    walk.survey.protected.sort_by(|a, b| a.path.cmp(&b.path));
    walk.survey.protected.dedup_by(|a, b| a.path == b.path);
    walk.survey
}

/// One directory's entries as last read, and whether they can be believed without reading
/// it again.
struct Listing {
    /// Device, inode, and the modification and change times (seconds, nanoseconds).
    stamp: (u64, u64, i64, i64, i64, i64),
    /// The entries (name, kind).
    entries: Vec<(OsString, Kind)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Dir,
    File,
    Link,
}

/// The listings of the directories walked so far, for the next walk (see the module docs).
static LISTINGS: LazyLock<Mutex<HashMap<PathBuf, Listing>>> = LazyLock::new(Default::default);

struct Walk {
    roots: Vec<PathBuf>,
    home: Vec<String>,
    extra: Vec<Vec<String>>,
    survey: Survey,
    dirs_read: usize,
}

impl Walk {
    /// Why the path of lowercased `names` is protected, if it is.
    fn why(&self, names: &[String]) -> Option<&'static str> {
        if self
            .extra
            .iter()
            .any(|e| !e.is_empty() && names.len() >= e.len() && names[..e.len()] == e[..])
        {
            return Some(HOOKS_PATH);
        }
        TABLE
            .iter()
            .find(|r| row_matches(r.matches, names, Some(&self.home)))
            .map(|r| r.why)
    }

    fn found(&mut self, path: PathBuf, why: &'static str, in_dependency: bool) {
        // The user's session runs its log-in and autostart files, what is on its PATH, and
        // the start-up files right in the home.
        let in_home = path
            .parent()
            .is_some_and(|p| lower_names(p) == self.home && !self.home.is_empty());
        self.survey.protected.push(Protected {
            path,
            why,
            bound: !in_dependency,
            session: why == LOGIN || why == PATH_DIR || in_home,
        });
    }

    /// Walks the directory `dir` (lowercased `names`).
    fn dir(
        &mut self,
        dir: &Path,
        names: Vec<String>,
        in_dependency: bool,
        listings: &mut HashMap<PathBuf, Listing>,
    ) {
        let mut stack = vec![(dir.to_path_buf(), names, in_dependency)];
        while let Some((dir, names, in_dependency)) = stack.pop() {
            if self.dirs_read >= MAX_DIRS {
                self.survey.complete = false;
                return;
            }
            self.dirs_read += 1;
            let Some(entries) = list(&dir, listings) else {
                continue;
            };
            if let Ok(meta) = std::fs::symlink_metadata(&dir) {
                self.survey.dirs.insert((meta.dev(), meta.ino()));
            }
            for (name, kind) in entries {
                let child = dir.join(&name);
                let lower = name.to_string_lossy().to_lowercase();
                let mut child_names = names.clone();
                child_names.push(lower.clone());
                if lower == ".git" {
                    match kind {
                        Kind::Dir => self.git_dir(&child, in_dependency),
                        Kind::File => {
                            self.found(child.clone(), GIT, in_dependency);
                            if let Some(target) = gitfile_target(&child)
                                && self.roots.iter().any(|r| below(&target, r))
                            {
                                self.git_dir(&target, in_dependency);
                            }
                        }
                        Kind::Link => self.found(child, GIT, in_dependency),
                    }
                } else if let Some(why) = self.why(&child_names) {
                    self.found(child, why, in_dependency);
                } else if kind == Kind::Dir {
                    let deps = in_dependency || DEPENDENCY_TREES.contains(&lower.as_str());
                    stack.push((child, child_names, deps));
                }
            }
        }
    }

    /// What git runs in the git directory `git` (and in the one its `commondir` names).
    fn git_dir(&mut self, git: &Path, in_dependency: bool) {
        if let Ok(meta) = std::fs::symlink_metadata(git) {
            self.survey.dirs.insert((meta.dev(), meta.ino()));
        }
        for inner in GIT_RUNS {
            let path = git.join(inner);
            if std::fs::symlink_metadata(&path).is_ok() {
                self.found(path, GIT, in_dependency);
            }
        }
        if let Some(common) = std::fs::read_to_string(git.join("commondir"))
            .ok()
            .map(|c| crate::homes::absolutize(Path::new(c.trim()), git))
            .filter(|c| c != git)
        {
            for inner in ["hooks", "config", "info"] {
                let path = common.join(inner);
                if std::fs::symlink_metadata(&path).is_ok() {
                    self.found(path, GIT, in_dependency);
                }
            }
        }
    }
}

/// The directory a `.git` file names (`gitdir: <path>`), absolute.
fn gitfile_target(file: &Path) -> Option<PathBuf> {
    let text = crate::store::read_regular_text(file).ok()?;
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    Some(crate::homes::absolutize(Path::new(target), file.parent()?))
}

/// The entries of `dir`: the kept listing when the directory's stamp is the one it was read
/// at and old enough to trust, else read again (and kept). `None` when it cannot be read.
fn list(dir: &Path, listings: &mut HashMap<PathBuf, Listing>) -> Option<Vec<(OsString, Kind)>> {
    let meta = std::fs::symlink_metadata(dir).ok()?;
    let stamp = (
        meta.dev(),
        meta.ino(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(i64::MAX);
    // A directory changed in the last two seconds may change again within the same tick of
    // the file system's clock and keep its time: read it every time until it is older.
    let settled = stamp.2 < now - 2 && stamp.4 < now - 2;
    if settled
        && let Some(listing) = listings.get(dir)
        && listing.stamp == stamp
    {
        return Some(listing.entries.clone());
    }
    let entries: Vec<(OsString, Kind)> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let t = e.file_type().ok()?;
            let kind = if t.is_symlink() {
                Kind::Link
            } else if t.is_dir() {
                Kind::Dir
            } else {
                Kind::File
            };
            Some((e.file_name(), kind))
        })
        .collect();
    listings.insert(
        dir.to_path_buf(),
        Listing {
            stamp,
            entries: entries.clone(),
        },
    );
    Some(entries)
}

/// The normal components of a path, lowercased.
fn lower_names(path: &Path) -> Vec<String> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_string_lossy().to_lowercase()),
            _ => None,
        })
        .collect()
}

/// `path` is `dir` or below it, ignoring case.
pub fn below(path: &Path, dir: &Path) -> bool {
    let (p, d) = (lower_names(path), lower_names(dir));
    !d.is_empty() && p.len() >= d.len() && p[..d.len()] == d[..]
}

fn row_matches(m: Match, names: &[String], home: Option<&[String]>) -> bool {
    let eq = |a: &String, b: &&str| a.as_str() == b.to_lowercase();
    match m {
        Match::Anywhere(seq) => names
            .windows(seq.len())
            .any(|w| w.iter().zip(seq).all(|(a, b)| eq(a, b))),
        Match::Name(name) => names.last().is_some_and(|n| eq(n, &name)),
        Match::NamePrefix(prefix) => names
            .last()
            .is_some_and(|n| n.starts_with(&prefix.to_lowercase())),
        Match::Home(seq) => home.is_some_and(|h| {
            !h.is_empty()
                && names.len() >= h.len() + seq.len()
                && names[..h.len()] == h[..]
                && names[h.len()..h.len() + seq.len()]
                    .iter()
                    .zip(seq)
                    .all(|(a, b)| eq(a, b))
        }),
    }
}

/// The value of `core.hooksPath` in git config text, if set (the last one wins, as in git).
/// A plain reader: sections `[core]`, keys without regard to case, `#`/`;` comments, quotes.
pub fn hooks_path_in(config: &str) -> Option<String> {
    let mut in_core = false;
    let mut found = None;
    for line in config.lines() {
        let line = line.trim();
        if let Some(section) = line.strip_prefix('[') {
            let name = section.split([']', ' ', '"']).next().unwrap_or("");
            in_core = name.eq_ignore_ascii_case("core");
            // `[core] hooksPath = x` on one line.
            let rest = section.split_once(']').map_or("", |(_, r)| r.trim());
            if in_core && !rest.is_empty() {
                found = hooks_value(rest).or(found);
            }
            continue;
        }
        if in_core {
            found = hooks_value(line).or(found);
        }
    }
    found
}

fn hooks_value(line: &str) -> Option<String> {
    let (key, value) = line.split_once('=')?;
    if !key.trim().eq_ignore_ascii_case("hookspath") {
        return None;
    }
    let value = value.split([' ', '\t']).collect::<Vec<_>>().join(" ");
    let value = value.trim();
    let value = value
        .split_once(" #")
        .or_else(|| value.split_once(" ;"))
        .map_or(value, |(v, _)| v)
        .trim();
    let value = value.trim_matches('"');
    (!value.is_empty()).then(|| value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOME: &str = "/home/u";

    fn why(path: &str) -> Option<&'static str> {
        protected(Path::new(path), Some(Path::new(HOME)), &[])
    }

    /// One case per row of `TABLE`, in its order: a path the row protects (in a case nobody
    /// writes) and a neighbour it must not.
    #[test]
    fn every_row_protects_its_paths_in_any_case() {
        let cases: &[(&str, &str)] = &[
            (
                "/w/p/.FINCH/permissions.json",
                "/w/p/finch/permissions.json",
            ),
            ("/w/p/.GIT/config", "/w/p/git/config"),
            ("/w/p/.githooks/pre-commit", "/w/p/githooks/pre-commit"),
            ("/w/p/.Husky/pre-commit", "/w/p/husky/pre-commit"),
            ("/w/p/.GitConfig", "/w/p/gitconfig"),
            ("/w/p/.gitmodules", "/w/p/gitmodules"),
            ("/w/p/.hg/HGRC", "/w/p/.hg/store"),
            ("/home/u/.config/Git/config", "/home/u/.config/gitx"),
            ("/home/u/.config/FISH/config.fish", "/home/u/.config/fishy"),
            ("/w/p/.vscode/Tasks.json", "/w/p/.vscode/launch.json"),
            ("/w/p/.VSCode/settings.json", "/w/p/.vscode/extensions.json"),
            ("/w/p/.Bashrc", "/w/p/bashrc"),
            ("/home/u/.bashrc.d/10-x.sh", "/home/u/bashrc.d/x"),
            ("/w/.BASH_PROFILE", "/w/bash_profile"),
            ("/w/.bash_login", "/w/.bash_login.bak"),
            ("/w/.bash_logout", "/w/.bash_logout~"),
            ("/home/u/.Bash_Aliases", "/home/u/bash_aliases"),
            ("/w/.Profile", "/w/profile"),
            ("/home/u/.profile.d/x.sh", "/home/u/profile.d/x.sh"),
            ("/w/.ZSHRC", "/w/zshrc"),
            ("/home/u/.zshrc.d/a.zsh", "/home/u/zshrc.d/a.zsh"),
            ("/w/.zshenv", "/w/zshenv"),
            ("/w/.zprofile", "/w/zprofile"),
            ("/w/.zlogin", "/w/zlogin"),
            ("/w/.zlogout", "/w/zlogout"),
            ("/w/.kshrc", "/w/kshrc"),
            ("/w/.mkshrc", "/w/mkshrc"),
            ("/w/.cshrc", "/w/cshrc"),
            ("/w/.tcshrc", "/w/tcshrc"),
            ("/w/.login", "/w/login"),
            ("/w/.logout", "/w/logout"),
            ("/w/.inputrc", "/w/inputrc"),
            ("/home/u/.pam_environment", "/home/u/pam_environment"),
            ("/home/u/.xprofile", "/home/u/xprofile"),
            ("/home/u/.xsessionrc", "/home/u/xsessionrc"),
            ("/home/u/.xinitrc", "/home/u/xinitrc"),
            ("/w/p/.ENVRC", "/w/p/envrc"),
            ("/w/p/.npmrc", "/w/p/npmrc"),
            ("/w/p/.yarnrc.YML", "/w/p/yarnrc.yml"),
            ("/w/p/.pnpmfile.cjs", "/w/p/pnpmfile.cjs"),
            ("/w/p/BunFig.toml", "/w/p/bunfig.json"),
            ("/w/p/.cargo/config.TOML", "/w/p/cargo/config.toml"),
            ("/w/p/.cargo/config", "/w/p/.cargo/registry"),
            (
                "/w/p/.pre-commit-config.yaml",
                "/w/p/pre-commit-config.yaml",
            ),
            ("/w/p/lefthook.yml", "/w/p/lefthook.yaml"),
            ("/w/p/.lefthook.yml", "/w/p/.lefthook.yml~"),
            (
                "/home/u/.local/lib/python3.12/site-packages/usercustomize.py",
                "/w/customize.py",
            ),
            ("/usr/lib/python3/sitecustomize.py", "/w/sitecustomize.pyc"),
            (
                "/elsewhere/.SSH/authorized_keys",
                "/w/p/ssh/authorized_keys",
            ),
            ("/home/u/.gnupg/gpg.conf", "/home/u/gnupg/gpg.conf"),
            ("/home/u/.local/BIN/ls", "/w/p/.local/bin/ls"),
            ("/home/u/bin/git", "/w/p/bin/git"),
            (
                "/home/u/.config/autostart/x.desktop",
                "/w/p/.config/autostart/x.desktop",
            ),
            (
                "/home/u/.config/systemd/user/x.service",
                "/home/u/.config/systemd/x",
            ),
            (
                "/home/u/.config/environment.d/x.conf",
                "/w/.config/environment.d/x",
            ),
            (
                "/home/u/Library/LaunchAgents/x.plist",
                "/home/u/Library/Caches/x",
            ),
        ];
        assert_eq!(cases.len(), TABLE.len(), "one case per row");
        let mut failures = Vec::new();
        for (i, ((hit, miss), row)) in cases.iter().zip(TABLE).enumerate() {
            let names = lower_names(Path::new(hit));
            let home = lower_names(Path::new(HOME));
            if !row_matches(row.matches, &names, Some(&home)) {
                failures.push(format!("row {i} {:?} does not match {hit}", row.matches));
            }
            if why(hit).is_none() {
                failures.push(format!("{hit} is not protected"));
            }
            if let Some(w) = why(miss) {
                failures.push(format!("{miss} is protected ({w})"));
            }
        }
        assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    }

    #[test]
    fn extra_paths_are_protected_without_regard_to_case() {
        let runtime = Path::new("/home/u/.finch-dev");
        let hooks = Path::new("/w/p/tools/hooks");
        let extra = [
            Extra {
                path: runtime,
                why: RUNTIME_HOME,
            },
            Extra {
                path: hooks,
                why: HOOKS_PATH,
            },
        ];
        let p = |s: &str| protected(Path::new(s), None, &extra);
        assert_eq!(
            p("/home/u/.FINCH-dev/extension-data/mcp/servers.json"),
            Some(RUNTIME_HOME)
        );
        assert_eq!(p("/w/p/Tools/Hooks/pre-commit"), Some(HOOKS_PATH));
        assert_eq!(p("/w/p/tools/hooks-old/x"), None);
        // Without a home, the home-only rows match nothing.
        assert_eq!(p("/home/u/.local/bin/x"), None);
    }

    #[test]
    fn reads_core_hooks_path_from_git_config() {
        assert_eq!(
            hooks_path_in("[core]\n\tbare = false\n\thooksPath = .githooks\n"),
            Some(".githooks".into())
        );
        assert_eq!(
            hooks_path_in("[Core]\nHOOKSPATH = \"tools/hooks\" # team hooks\n"),
            Some("tools/hooks".into())
        );
        assert_eq!(
            hooks_path_in("[user]\nhooksPath = nope\n[core]\nhooksPath = a\nhooksPath = b\n"),
            Some("b".into())
        );
        assert_eq!(hooks_path_in("[core] hooksPath = x\n"), Some("x".into()));
        assert_eq!(hooks_path_in("[core]\nbare = true\n"), None);
    }

    #[cfg(unix)]
    #[test]
    fn lists_the_protected_paths_that_exist_below_a_directory() {
        let top = tempfile::tempdir().unwrap();
        let home = top.path().join("home");
        let work = home.join("proj");
        for d in [
            work.join(".git/hooks"),
            work.join("sub/.Husky"),
            work.join("src"),
            work.join("tools/hooks"),
            home.join(".ssh"),
            home.join(".local/bin"),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        for f in [
            work.join(".envrc"),
            work.join("src/main.rs"),
            work.join("sub/.yarnrc.yml"),
            home.join(".bashrc"),
            home.join("notes.txt"),
        ] {
            std::fs::write(f, "x").unwrap();
        }
        std::os::unix::fs::symlink("/etc", work.join("src/.gitconfig")).unwrap();
        let hooks = work.join("tools/hooks");
        let listed = protected_paths_below(&work, &home, &[&hooks]);
        let want: Vec<PathBuf> = [
            ".envrc",
            ".git/hooks",
            "src/.gitconfig",
            "sub/.Husky",
            "sub/.yarnrc.yml",
            "tools/hooks",
        ]
        .iter()
        .map(|r| work.join(r))
        .collect();
        assert_eq!(listed, want);
        // From the home itself, its persistence points show too.
        let listed = protected_paths_below(&home, &home, &[]);
        for p in [
            home.join(".ssh"),
            home.join(".local/bin"),
            home.join(".bashrc"),
            work.join(".git/hooks"),
        ] {
            assert!(listed.contains(&p), "{p:?} not in {listed:?}");
        }
        assert!(!listed.contains(&home.join("notes.txt")));
        assert!(!listed.contains(&home.join(".local")));
    }

    #[test]
    fn the_survey_goes_to_any_depth_and_watches_the_dependency_trees() {
        let top = tempfile::tempdir().unwrap();
        let home = top.path().join("home");
        let work = top.path().join("work");
        let deep = work.join("a/b/c/d/e/f/g");
        for d in [
            deep.join(".git/hooks"),
            work.join("node_modules/x/.git/hooks"),
            work.join(".git/objects/info"),
            work.join("evil"),
            work.join("wt"),
            work.join(".git/worktrees/wt"),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        for (f, text) in [
            (".git/config", "[core]\n"),
            (".git/commondir", "../evil\n"),
            ("evil/config", "[core]\n\tfsmonitor = x\n"),
            (".git/objects/info/alternates", "/elsewhere\n"),
            ("node_modules/x/.npmrc", "x\n"),
            ("wt/.git", "gitdir: ../.git/worktrees/wt\n"),
            (".cargo/config.toml", "[build]\n"),
        ] {
            let p = work.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let found = survey(std::slice::from_ref(&work), &home, &[]);
        assert!(found.complete);
        let rel = |bound: bool| -> Vec<String> {
            found
                .protected
                .iter()
                .filter(|p| p.bound == bound)
                .map(|p| p.path.strip_prefix(&work).unwrap().display().to_string())
                .collect()
        };
        assert_eq!(
            rel(true),
            [
                ".cargo/config.toml",
                ".git/commondir",
                ".git/config",
                ".git/objects/info/alternates",
                ".git/worktrees",
                "a/b/c/d/e/f/g/.git/hooks",
                "evil/config",
                "wt/.git",
            ]
        );
        assert_eq!(
            rel(false),
            ["node_modules/x/.git/hooks", "node_modules/x/.npmrc"],
            "what lies in a dependency tree is watched"
        );
        // The kept listings give the same answer, and see what changed since.
        let again = survey(std::slice::from_ref(&work), &home, &[]);
        assert_eq!(again.protected, found.protected);
        std::fs::write(work.join("a/.envrc"), "x").unwrap();
        let changed = survey(std::slice::from_ref(&work), &home, &[]);
        assert!(
            changed
                .protected
                .iter()
                .any(|p| p.path == work.join("a/.envrc")),
            "a file made just now is seen"
        );
    }
}
