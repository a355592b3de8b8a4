//! The words of a refusal: which declaration (or which rule of the sandbox) an error of a
//! confined mini tool — or of an MCP server it brings — ran into, read from the error's text,
//! and the grant that would let it (`finch sandbox grant <id> …`) when one can. A hint, not a
//! proof: the text of an error is all there is to read, so this only speaks when the text shows
//! a kernel refusal (`EACCES`, `EPERM`, …) of something the declaration does not allow.

use std::path::Path;

use super::{Declared, Filesystem};

/// A mini tool as the kernel holds it: its id, what it declares (with grants), and its package
/// directory (read-only whatever it declares).
#[derive(Debug, Clone, Copy)]
pub struct Held<'a> {
    pub id: &'a str,
    pub declared: Declared,
    pub package: &'a Path,
}

/// What an error shows the kernel refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refused {
    /// Running a program or loading a library: `shell`.
    Exec,
    /// Signalling, renicing or limiting a process it did not start: no declaration allows it.
    Process,
    Network,
    /// A write under its own package directory.
    Package,
    Files,
}

impl Held<'_> {
    /// The error, led by what forbade it (`"blocked: … (<error>)"`); the error as it is when
    /// its text shows no refusal of something undeclared.
    pub fn explain(&self, error: &str) -> String {
        match self.blocked_by(error) {
            Some(blocked) => format!("{blocked} ({error})"),
            None => error.to_string(),
        }
    }

    /// `"blocked: <id> declares network: false; `finch sandbox grant <id> network` lets it"`
    /// for an error that shows a kernel refusal of something `declared` does not allow; `None`
    /// otherwise (or when the text already says `blocked:`).
    pub fn blocked_by(&self, error: &str) -> Option<String> {
        if error.contains("blocked: ") {
            return None; // already explained
        }
        let (id, declared) = (self.id, self.declared);
        Some(match refused(error, self.package)? {
            Refused::Package => format!(
                "blocked: {id}'s package directory is read-only (a mini tool keeps what it writes in its storagePath)"
            ),
            Refused::Process => format!(
                "blocked: {id} may signal only the processes it started (finch's sandbox keeps every other process out of a mini tool's reach, even out of its sight; no declaration or grant allows more)"
            ),
            Refused::Exec if !declared.shell => {
                format!(
                    "blocked: {id} declares shell: false; `finch sandbox grant {id} shell` lets it"
                )
            }
            Refused::Network if !declared.network => format!(
                "blocked: {id} declares network: false; `finch sandbox grant {id} network` lets it"
            ),
            Refused::Exec | Refused::Network => return None,
            Refused::Files => match declared.filesystem {
                Filesystem::None if declared.workspace() == Filesystem::None => format!(
                    "blocked: {id} declares filesystem: \"none\"; `finch sandbox grant {id} filesystem=read` (or filesystem=readwrite) lets it reach the workspace"
                ),
                Filesystem::Read if declared.workspace() == Filesystem::Read => format!(
                    "blocked: {id} declares filesystem: \"read\"; `finch sandbox grant {id} filesystem=readwrite` lets it write the workspace"
                ),
                fs => format!(
                    "blocked: {id} declares filesystem: \"{}\" (it reaches only the workspace, the trusted directories and its storagePath; protected paths stay read-only)",
                    fs.as_str()
                ),
            },
        })
    }
}

/// What `error` shows the kernel refused, if it shows a refusal: read from the first part of
/// the text (a line, or a `|`-joined line of a log's tail) that shows one, so that the words
/// of another part (`connection closed` after a server died of a refused `open`) do not count.
fn refused(error: &str, package: &Path) -> Option<Refused> {
    let part = error
        .split(['\n', '|'])
        .find(|part| shows_refusal(part))
        .or_else(|| shows_refusal(error).then_some(error))?;
    let lower = part.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    Some(
        if has(&["spawn", "exec", "dlopen", "failed to map segment", ".node"]) {
            Refused::Exec
        } else if has(&[
            "kill ",
            "kill eperm",
            "setpriority",
            "prlimit",
            "sched_set",
            "ioprio",
        ]) {
            Refused::Process
        } else if has(&[
            "connect e",
            "connect(",
            "socket",
            "getaddrinfo",
            "fetch failed",
            "listen e",
            "bind e",
            "eai_",
            "econnrefused",
        ]) {
            Refused::Network
        } else if names_a_path_under(part, package) {
            Refused::Package
        } else {
            Refused::Files
        },
    )
}

/// Whether some text shows a kernel refusal.
fn shows_refusal(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    [
        "eacces",
        "eperm",
        "erofs",
        "permission denied",
        "operation not permitted",
        "failed to map segment",
    ]
    .iter()
    .any(|w| lower.contains(w))
        // In its own PID namespace a process outside the sandbox is not there to signal.
        || (lower.contains("esrch") && (lower.contains("kill") || lower.contains("setpriority")))
}

/// Whether `error` names a path below `dir` (as given, or with its links resolved: node reports
/// the real path of its entry's directory).
fn names_a_path_under(error: &str, dir: &Path) -> bool {
    let real = std::fs::canonicalize(dir).ok();
    std::iter::once(dir)
        .chain(real.as_deref())
        .map(|d| format!("{}/", d.display()))
        .any(|prefix| prefix.len() > 1 && error.contains(&prefix))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn held(declared: Declared) -> Held<'static> {
        Held {
            id: "finch-x",
            declared,
            package: Path::new("/pkg/finch-x"),
        }
    }

    fn declared(fs: &str, network: bool, shell: bool) -> Declared {
        let p = json!({"filesystem": fs, "network": network, "shell": shell});
        Declared::from_permissions(p.as_object())
    }

    #[test]
    fn refusals_name_the_declaration_and_the_grant() {
        let h = held(declared("none", false, false));
        let net = h.explain("connect EPERM 127.0.0.1:80");
        assert!(
            net.starts_with("blocked: finch-x declares network: false; `finch sandbox grant finch-x network` lets it (connect EPERM"),
            "{net}"
        );
        let fetch = h.explain("fetch failed (cause: EPERM connect EPERM 127.0.0.1:80)");
        assert!(
            h.explain("kill ESRCH")
                .starts_with("blocked: finch-x may signal only the processes it started"),
        );
        assert_eq!(h.blocked_by("read ESRCH"), None);
        assert!(fetch.contains("declares network: false"), "{fetch}");
        let sh = h.explain("spawn /bin/sh EACCES");
        assert!(
            sh.contains("declares shell: false; `finch sandbox grant finch-x shell`"),
            "{sh}"
        );
        let fs = h.explain("EACCES: permission denied, open '/h/.ssh/id'");
        assert!(
            fs.contains(
                "declares filesystem: \"none\"; `finch sandbox grant finch-x filesystem=read`"
            ),
            "{fs}"
        );
        assert_eq!(h.blocked_by("ENOENT: no such file"), None);
        assert_eq!(h.explain("ENOENT: no such file"), "ENOENT: no such file");
        let with_net = held(declared("none", true, false));
        assert_eq!(with_net.blocked_by("connect EPERM 1.2.3.4:80"), None);
        assert_eq!(h.blocked_by("blocked: already said (EPERM)"), None);
        // The part that shows the refusal decides, not what came of it.
        let died = h.explain("handshake failed: connection closed; stderr: python3: can't open file '/x/s.py': [Errno 13] Permission denied");
        assert!(died.contains("declares filesystem: \"none\""), "{died}");
        let tail = h.explain("initialize failed | sh: 1: cannot create /x: Permission denied | sh: 1: exec: sleep: Permission denied");
        assert!(tail.contains("declares filesystem: \"none\""), "{tail}");
    }

    #[test]
    fn signals_and_the_package_directory_name_the_sandbox_not_a_declaration() {
        let rw = held(declared("readwrite", true, true));
        for error in [
            "kill EPERM",
            "A system error occurred: uv_os_setpriority returned EACCES (permission denied)",
        ] {
            let text = rw.blocked_by(error).unwrap_or_default();
            assert!(
                text.contains("may signal only the processes it started"),
                "{error}: {text}"
            );
        }
        let write = rw
            .blocked_by("EACCES: permission denied, open '/pkg/finch-x/dist/cache.json'")
            .unwrap_or_default();
        assert!(
            write.contains("finch-x's package directory is read-only"),
            "{write}"
        );
        // Outside the workspace a readwrite mini tool has no grant to ask for.
        let out = rw
            .blocked_by("EACCES: permission denied, open '/etc/passwd'")
            .unwrap_or_default();
        assert!(
            out.contains("declares filesystem: \"readwrite\" (it reaches only"),
            "{out}"
        );
        // shell writes the workspace: a refusal there is not filesystem none's.
        let shell = held(declared("none", false, true));
        let text = shell
            .blocked_by("EACCES: permission denied, open '/elsewhere/x'")
            .unwrap_or_default();
        assert!(!text.contains("filesystem=read"), "{text}");
    }
}
