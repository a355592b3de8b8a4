//! The protected-paths table (issue 28): the files and directories that finch, git, a shell,
//! an editor or the user's session later runs or obeys. A Write or Edit of one of them always
//! takes a card (the gateway's `ProtectedPath` step); the kernel wall binds the ones that exist
//! read-only inside a writable workspace (`protected_paths_below`).
//!
//! One table (`TABLE`), data rather than `if`s, one test per row. Names match without regard to
//! case on every OS: on a case-insensitive volume (macOS, Windows) `.GIT/config` and `.Bashrc`
//! are the real files. The user's persistence points under `$HOME` (`.ssh/`, `.local/bin/`,
//! autostart and systemd user units, …) are protected wherever the workspace is.
//!
//! This module decides nothing about a call and reads nothing but what `protected_paths_below`
//! lists: facts about the disk (where `core.hooksPath` points) come in as `Extra` paths, found
//! by `probe`.

use std::path::{Component, Path, PathBuf};

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
    // Per-directory environments and package managers.
    row(Match::Name(".envrc"), STARTUP),
    row(Match::Name(".npmrc"), STARTUP),
    row(Match::NamePrefix(".yarnrc"), STARTUP),
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
/// `modules` and `worktrees` hold the configuration and hooks of submodules and worktrees.
pub const GIT_RUNS: &[&str] = &[
    "hooks",
    "config",
    "config.worktree",
    "info",
    "modules",
    "worktrees",
];

/// Directories the walk of `protected_paths_below` does not enter: dependency and build trees
/// that can hold hundreds of thousands of entries and nothing a person wrote.
pub const NOT_WALKED: &[&str] = &[
    "node_modules",
    "target",
    ".cache",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".gradle",
];

/// How deep `protected_paths_below` walks below its root.
const MAX_WALK_DEPTH: usize = 6;

/// Every protected path that exists at or below `root`: the table's rows, `home`'s persistence
/// points when they lie below `root`, and the `extra` paths that exist. A protected directory
/// is listed once and not entered; of a `.git` directory, what git runs (`GIT_RUNS`). Links are
/// listed as found, never followed. The walk skips `NOT_WALKED` and stops `MAX_WALK_DEPTH`
/// levels down, so it stays quick in a large tree. For the kernel wall, which binds them
/// read-only inside a writable directory.
pub fn protected_paths_below(root: &Path, home: &Path, extra: &[&Path]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let home_names = lower_names(home);
    let is_protected = |p: &Path| {
        let names = lower_names(p);
        extra.iter().any(|e| below(p, e))
            || TABLE
                .iter()
                .any(|r| row_matches(r.matches, &names, Some(&home_names)))
    };
    if is_protected(root) {
        if std::fs::symlink_metadata(root).is_ok() {
            out.push(root.to_path_buf());
        }
        return out;
    }
    let is_dir = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
    let mut stack = vec![(root.to_path_buf(), 0)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut children: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        children.sort();
        for child in children.into_iter().rev() {
            let name = child
                .file_name()
                .map(|n| n.to_string_lossy().to_lowercase())
                .unwrap_or_default();
            if name == ".git" && is_dir(&child) {
                out.extend(
                    GIT_RUNS
                        .iter()
                        .map(|n| child.join(n))
                        .filter(|p| std::fs::symlink_metadata(p).is_ok()),
                );
            } else if is_protected(&child) {
                out.push(child);
            } else if is_dir(&child)
                && depth + 1 < MAX_WALK_DEPTH
                && !NOT_WALKED.contains(&name.as_str())
            {
                stack.push((child, depth + 1));
            }
        }
    }
    // An extra path below `root` that the walk could not reach through names alone.
    for e in extra {
        if below(e, root)
            && std::fs::symlink_metadata(e).is_ok()
            && !out.iter().any(|o| below(e, o))
        {
            out.push(e.to_path_buf());
        }
    }
    out.sort();
    out
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
}
