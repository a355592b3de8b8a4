//! What the kernel wall refused a call (SPEC §8.5a, "Denials are typed"): `Blocked`, read from
//! the command's own error output where it names what was refused, and from the profile where
//! nothing else can explain the failure. A tool that runs in the wall (Bash) reports it; the
//! call's record carries it (`"blocked": {"by": "sandbox", "profile", "access", "path"}`) and
//! the escalation fits it (`escalate`).
//!
//! A refusal is the wall's only when the wall explains it: a path named in an error with
//! "Permission denied" counts only when the profile does not let the call do what the error
//! says (`Reach`), so a file the user cannot read anyway is not blamed on the wall, and a
//! network failure counts only when the profile has no network. Pure: it reads no file but
//! to find where a path really leads.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::sandbox::{Access, Profile};

/// What the wall refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    Read,
    Write,
    Network,
    /// Running a program (a file in the private TMPDIR, or outside what the profile runs).
    Exec,
    /// Signalling a process outside the sandbox.
    Signal,
}

impl Refused {
    pub fn as_str(self) -> &'static str {
        match self {
            Refused::Read => "read",
            Refused::Write => "write",
            Refused::Network => "network",
            Refused::Exec => "exec",
            Refused::Signal => "signal",
        }
    }
}

/// A call the kernel wall refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocked {
    /// The profile it ran in.
    pub profile: Profile,
    pub access: Refused,
    /// The path refused, when the refusal names one (absolute).
    pub path: Option<PathBuf>,
}

impl Blocked {
    /// The record's `blocked`: `{"by": "sandbox", "profile", "access", "path"}`.
    pub fn to_json(&self) -> Value {
        let mut value = json!({
            "by": "sandbox",
            "profile": self.profile.as_str(),
            "access": self.access.as_str(),
        });
        if let (Some(path), Some(map)) = (&self.path, value.as_object_mut()) {
            map.insert("path".into(), path.display().to_string().into());
        }
        value
    }

    /// What was refused, in words: `read /home/u/notes/a.txt`, `use the network`.
    pub fn describe(&self) -> String {
        let what = match self.access {
            Refused::Read => "read",
            Refused::Write => "write",
            Refused::Network => return "use the network".to_string(),
            Refused::Exec => "run",
            Refused::Signal => return "signal a process outside it".to_string(),
        };
        match &self.path {
            Some(path) => format!("{what} {}", path.display()),
            None => format!("{what} a file"),
        }
    }
}

/// What a profile lets a call reach, as far as its refusals go: directories to read, to run
/// from, to write; files it may only write; paths kept read-only; the network.
#[derive(Debug, Clone, Default)]
pub struct Reach {
    read: Vec<PathBuf>,
    exec: Vec<PathBuf>,
    write: Vec<PathBuf>,
    write_files: Vec<PathBuf>,
    protected: Vec<PathBuf>,
    pub network: bool,
}

impl Reach {
    /// The reach of a confined call from its `Access`, and the private TMPDIR it got (written,
    /// never run from).
    pub fn of(access: &Access, tmpdir: Option<&Path>) -> Reach {
        let all = |dirs: &[PathBuf]| dirs.iter().map(|d| real(d)).collect::<Vec<_>>();
        let mut reach = Reach {
            read: all(&[
                access.read_exec.clone(),
                access.read.clone(),
                access.write_exec.clone(),
                access.write.clone(),
            ]
            .concat()),
            exec: all(&[access.read_exec.clone(), access.write_exec.clone()].concat()),
            write: all(&[access.write_exec.clone(), access.write.clone()].concat()),
            write_files: all(&access.write_files),
            protected: all(&access.protected),
            network: access.network,
        };
        reach.exec.extend(all(&access.exec_files));
        if let Some(tmp) = tmpdir {
            reach.read.push(real(tmp));
            reach.write.push(real(tmp));
        }
        reach
    }

    fn reads(&self, path: &Path) -> bool {
        under(path, &self.read)
    }

    fn writes(&self, path: &Path) -> bool {
        (under(path, &self.write) && !under(path, &self.protected))
            || self.write_files.iter().any(|f| f == path)
    }

    fn runs(&self, path: &Path) -> bool {
        under(path, &self.exec)
    }
}

fn under(path: &Path, dirs: &[PathBuf]) -> bool {
    dirs.iter().any(|d| path.starts_with(d))
}

/// Where `path` really leads: its nearest existing ancestor resolved through links, with the
/// rest appended (a file about to be created has no real path of its own yet).
fn real(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        if let Ok(found) = std::fs::canonicalize(at) {
            return rest.iter().rev().fold(found, |p, c| p.join(c));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// The wall's refusal among a failed command's `errors` (its stderr, then its stdout), when
/// there is one: the command ran in `profile` with `reach`, in `cwd`.
pub fn read(errors: &[&str], cwd: &Path, reach: &Reach, profile: Profile) -> Option<Blocked> {
    let blocked = |access, path| Blocked {
        profile,
        access,
        path,
    };
    let lines: Vec<&str> = errors.iter().flat_map(|e| e.lines()).collect();
    let mut unexplained: Option<Refused> = None;
    for (i, line) in lines.iter().enumerate() {
        if is_signal_refusal(line) {
            return Some(blocked(Refused::Signal, None));
        }
        if !reach.network && is_network_failure(line) {
            return Some(blocked(Refused::Network, None));
        }
        let Some(sign) = refusal_sign(line) else {
            continue;
        };
        // The path the line names, else one a line or two above names (cargo: "failed to
        // open: <path>" … "Caused by: Permission denied").
        let named = named_path(&line[..sign.at])
            .or_else(|| named_after(&line[sign.at..]))
            .or_else(|| {
                lines[i.saturating_sub(3)..i]
                    .iter()
                    .rev()
                    .find_map(|l| absolute_path(l))
            });
        match named {
            Some(named) => {
                let path = real(&crate::homes::absolutize(Path::new(&named), cwd));
                if let Some(access) = refused_on(&path, line, sign, reach) {
                    return Some(blocked(access, Some(path)));
                }
            }
            None => {
                unexplained = unexplained.or(match sign.kind {
                    // A socket the profile does not allow fails with EPERM and names nothing.
                    Sign::NotPermitted if !reach.network => Some(Refused::Network),
                    Sign::Denied | Sign::ReadOnlyFs if profile == Profile::ReadOnly => {
                        Some(Refused::Write)
                    }
                    _ => None,
                });
            }
        }
    }
    unexplained.map(|access| blocked(access, None))
}

/// Which of the profile's limits refused `path`, judged by what the profile lets through and
/// by the verb of the error: `None` when the profile allows what the error could be about.
fn refused_on(path: &Path, line: &str, sign: Found, reach: &Reach) -> Option<Refused> {
    let writing = sign.kind == Sign::ReadOnlyFs || writes(line) || !path.exists();
    if writing {
        return (!reach.writes(path)).then_some(Refused::Write);
    }
    if !reach.reads(path) {
        return Some(Refused::Read);
    }
    if !reach.writes(path) {
        // Readable but not writable: a refused write, or a file the profile does not run.
        return Some(if reach.runs(path) || !path.is_file() {
            Refused::Write
        } else {
            Refused::Exec
        });
    }
    (!reach.runs(path) && path.is_file()).then_some(Refused::Exec)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sign {
    /// `EACCES`.
    Denied,
    /// `EPERM`.
    NotPermitted,
    /// `EROFS`: a path bound read-only.
    ReadOnlyFs,
}

#[derive(Debug, Clone, Copy)]
struct Found {
    kind: Sign,
    /// Where the sign starts in its line.
    at: usize,
}

/// The words a refusal leaves in a line, and where.
fn refusal_sign(line: &str) -> Option<Found> {
    const SIGNS: &[(&str, Sign)] = &[
        ("Permission denied", Sign::Denied),
        ("permission denied", Sign::Denied),
        ("EACCES", Sign::Denied),
        ("Operation not permitted", Sign::NotPermitted),
        ("operation not permitted", Sign::NotPermitted),
        ("EPERM", Sign::NotPermitted),
        ("Read-only file system", Sign::ReadOnlyFs),
        ("EROFS", Sign::ReadOnlyFs),
    ];
    SIGNS
        .iter()
        .filter_map(|(text, kind)| line.find(text).map(|at| Found { kind: *kind, at }))
        .min_by_key(|f| f.at)
}

/// A verb that says the refused thing was a write: `cannot touch`, `cannot create`, …
fn writes(line: &str) -> bool {
    const VERBS: &[&str] = &[
        "cannot touch",
        "cannot create",
        "cannot remove",
        "cannot make",
        "cannot move",
        "cannot overwrite",
        "cannot write",
        "cannot open '",
        "failed to create",
        "could not create",
        "unable to create",
        "Could not create",
        "Unable to create",
        "cannot mkdir",
    ];
    VERBS.iter().any(|v| line.contains(v)) && !line.contains("cannot open directory")
}

/// `kill: (1234) - Operation not permitted`.
fn is_signal_refusal(line: &str) -> bool {
    line.contains("kill: ") && refusal_sign(line).is_some()
}

/// The words of a network failure the profile's lack of network explains.
fn is_network_failure(line: &str) -> bool {
    const SIGNS: &[&str] = &[
        "Could not resolve host",
        "Could not resolve hostname",
        "Couldn't connect to server",
        "Failed to connect to",
        "Temporary failure in name resolution",
        "Name or service not known",
        "getaddrinfo",
        "EAI_AGAIN",
        "ENOTFOUND",
        "Network is unreachable",
        "Failed to establish a new connection",
        "connect EPERM",
        "connect EACCES",
        "socket: Operation not permitted",
        "socket: Permission denied",
        "connect: Operation not permitted",
        "connect: Permission denied",
    ];
    SIGNS.iter().any(|s| line.contains(s))
}

/// The path the text before a refusal names: the last quoted one, else the last `: `-field
/// that looks like a path.
fn named_path(before: &str) -> Option<String> {
    let before = before.trim_end().trim_end_matches(':').trim_end();
    if let Some(quoted) = last_quoted(before) {
        return Some(quoted);
    }
    let field = before.rsplit(": ").next()?.trim();
    let looks_like_a_path = !field.is_empty()
        && !field.contains(' ')
        && !field.starts_with('[')
        && !field.starts_with('(')
        && !field.ends_with("Error")
        && (field.contains('/') || field.contains('.') || field.chars().all(is_name_char));
    looks_like_a_path.then(|| field.to_string())
}

/// The path a refusal names after itself: `Permission denied: 'z'` (Python).
fn named_after(from_sign: &str) -> Option<String> {
    let rest = from_sign.split_once(':')?.1;
    last_quoted(rest)
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '~')
}

/// The last string in `text` quoted with `'`, `‘…’`, `"` or `` ` ``.
fn last_quoted(text: &str) -> Option<String> {
    const PAIRS: &[(char, char)] = &[('\'', '\''), ('‘', '’'), ('"', '"'), ('`', '\'')];
    let mut best: Option<(usize, String)> = None;
    for (open, close) in PAIRS {
        let Some(end) = text.rfind(*close) else {
            continue;
        };
        let Some(start) = text[..end].rfind(*open) else {
            continue;
        };
        let inner = &text[start + open.len_utf8()..end];
        if !inner.is_empty() && best.as_ref().is_none_or(|(at, _)| end > *at) {
            best = Some((end, inner.to_string()));
        }
    }
    best.map(|(_, s)| s)
}

/// An absolute path a line names (`failed to open: /w/target/debug/.cargo-lock`).
fn absolute_path(line: &str) -> Option<String> {
    line.split_whitespace()
        .map(|w| w.trim_matches(|c| matches!(c, '\'' | '"' | '`' | ',' | ':' | '(' | ')')))
        .find(|w| w.starts_with('/') && w.len() > 1)
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A profile over a temp tree: `ws` (the workspace), `tmp` (the private TMPDIR), `sys`
    /// (read and run), `etc` (read only), `ws/.git` protected; `outside` is none of them.
    struct Scene {
        dir: tempfile::TempDir,
    }

    impl Scene {
        fn new() -> Scene {
            let dir = tempfile::tempdir().unwrap();
            for d in ["ws/.git", "tmp", "sys", "etc", "outside"] {
                std::fs::create_dir_all(dir.path().join(d)).unwrap();
            }
            std::fs::write(dir.path().join("outside/notes.txt"), "n").unwrap();
            std::fs::write(dir.path().join("tmp/tool"), "#!/bin/sh").unwrap();
            std::fs::write(dir.path().join("etc/run.sh"), "#!/bin/sh").unwrap();
            Scene { dir }
        }

        fn p(&self, rel: &str) -> PathBuf {
            real(&self.dir.path().join(rel))
        }

        fn reach(&self, profile: Profile, network: bool) -> Reach {
            let mut access = Access {
                read_exec: vec![self.p("sys")],
                read: vec![self.p("etc")],
                network,
                ..Access::default()
            };
            match profile {
                Profile::ReadOnly => access.read_exec.push(self.p("ws")),
                Profile::WorkspaceWrite => {
                    access.write_exec.push(self.p("ws"));
                    access.protected.push(self.p("ws/.git"));
                }
            }
            Reach::of(&access, Some(&self.p("tmp")))
        }

        fn read(
            &self,
            profile: Profile,
            network: bool,
            stderr: &str,
        ) -> Option<(Refused, Option<PathBuf>)> {
            let stderr = stderr.replace("{d}", &self.dir.path().display().to_string());
            read(
                &[&stderr],
                &self.p("ws"),
                &self.reach(profile, network),
                profile,
            )
            .map(|b| (b.access, b.path))
        }
    }

    use Profile::{ReadOnly as Ro, WorkspaceWrite as Ww};

    #[test]
    fn accepts_the_refusals_the_wall_explains() {
        let s = Scene::new();
        let cases: &[(Profile, bool, &str, Refused, Option<&str>)] = &[
            (
                Ro,
                false,
                "cat: {d}/outside/notes.txt: Permission denied",
                Refused::Read,
                Some("outside/notes.txt"),
            ),
            (
                Ro,
                false,
                "ls: cannot open directory '{d}/outside': Permission denied",
                Refused::Read,
                Some("outside"),
            ),
            (
                Ro,
                false,
                "touch: cannot touch 'x': Permission denied",
                Refused::Write,
                Some("ws/x"),
            ),
            (
                Ro,
                false,
                "bash: line 1: y: Permission denied",
                Refused::Write,
                Some("ws/y"),
            ),
            (
                Ro,
                false,
                "mkdir: cannot create directory ‘d’: Permission denied",
                Refused::Write,
                Some("ws/d"),
            ),
            (
                Ro,
                false,
                "PermissionError: [Errno 13] Permission denied: 'z'",
                Refused::Write,
                Some("ws/z"),
            ),
            (
                Ro,
                false,
                "PermissionError: [Errno 13] Permission denied: '{d}/outside/notes.txt'",
                Refused::Read,
                Some("outside/notes.txt"),
            ),
            (
                Ro,
                false,
                "error: failed to open: {d}/ws/target/.cargo-lock\n\nCaused by:\n  Permission denied (os error 13)",
                Refused::Write,
                Some("ws/target/.cargo-lock"),
            ),
            (
                Ro,
                false,
                "bash: line 1: {d}/tmp/tool: Permission denied",
                Refused::Exec,
                Some("tmp/tool"),
            ),
            (
                Ro,
                false,
                "bash: line 1: {d}/etc/run.sh: Permission denied",
                Refused::Exec,
                Some("etc/run.sh"),
            ),
            (
                Ww,
                true,
                "touch: cannot touch '{d}/outside/made': Permission denied",
                Refused::Write,
                Some("outside/made"),
            ),
            (
                Ww,
                true,
                "cp: cannot create regular file '{d}/outside/f.txt': Permission denied",
                Refused::Write,
                Some("outside/f.txt"),
            ),
            (
                Ww,
                true,
                "touch: cannot touch '.git/hook': Read-only file system",
                Refused::Write,
                Some("ws/.git/hook"),
            ),
            (
                Ww,
                false,
                "curl: (7) Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server",
                Refused::Network,
                None,
            ),
            (
                Ww,
                false,
                "PermissionError: [Errno 1] Operation not permitted",
                Refused::Network,
                None,
            ),
            (
                Ro,
                false,
                "curl: (6) Could not resolve host: example.com",
                Refused::Network,
                None,
            ),
            (
                Ro,
                false,
                "npm error request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org",
                Refused::Network,
                None,
            ),
            (
                Ro,
                false,
                "connect EPERM 127.0.0.1:9 - Local (undefined:undefined)",
                Refused::Network,
                None,
            ),
            (
                Ro,
                false,
                "bash: line 1: kill: (1) - Operation not permitted",
                Refused::Signal,
                None,
            ),
            (
                Ro,
                false,
                "something: Permission denied",
                Refused::Write,
                Some("ws/something"),
            ),
        ];
        for (profile, network, stderr, access, path) in cases {
            let want = (*access, path.map(|p| s.p(p)));
            assert_eq!(s.read(*profile, *network, stderr), Some(want), "{stderr}");
        }
    }

    #[test]
    fn rejects_failures_the_wall_does_not_explain() {
        let s = Scene::new();
        let cases: &[(Profile, bool, &str)] = &[
            (
                Ro,
                false,
                "ls: cannot access 'missing': No such file or directory",
            ),
            (Ro, false, "grep: x: No such file or directory"),
            // The profile reads and writes it: an ordinary permission, not the wall's.
            (Ww, true, "cat: {d}/ws/locked: Permission denied"),
            // The network is there: a failed connect is the server's.
            (
                Ww,
                true,
                "curl: (7) Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server",
            ),
            (
                Ww,
                true,
                "PermissionError: [Errno 1] Operation not permitted",
            ),
            (
                Ro,
                false,
                "error: could not compile `x` due to 2 previous errors",
            ),
        ];
        for (profile, network, stderr) in cases {
            assert_eq!(s.read(*profile, *network, stderr), None, "{stderr}");
        }
    }

    #[test]
    fn a_blocked_record_says_what_the_wall_held() {
        let blocked = Blocked {
            profile: Profile::ReadOnly,
            access: Refused::Read,
            path: Some("/home/u/notes".into()),
        };
        assert_eq!(
            blocked.to_json(),
            json!({"by": "sandbox", "profile": "read-only", "access": "read", "path": "/home/u/notes"})
        );
        assert_eq!(blocked.describe(), "read /home/u/notes");
        let network = Blocked {
            access: Refused::Network,
            path: None,
            ..blocked
        };
        assert_eq!(
            network.to_json(),
            json!({"by": "sandbox", "profile": "read-only", "access": "network"})
        );
    }
}
