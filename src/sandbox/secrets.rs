//! The user's secrets under a readable home (SPEC §8.5a): credential stores, keys, tokens and
//! shell histories that a confined tree may not read even where it may read what is around
//! them — `~/.config/git/credentials` beside the git configuration every profile reads,
//! `~/.cache/huggingface/token` inside the caches, and all of them when the workspace is the
//! home (or holds it). Landlock's rights are a union of allows, so "read the home but not
//! `~/.ssh`" needs the mount table: in the tree's private mount namespace each secret that
//! exists under a readable directory is covered (`linux.rs`), a directory by an empty
//! read-only tmpfs, a file by `/dev/null` that cannot be opened (`nodev`).
//!
//! The git configuration files (`~/.gitconfig`, `~/.config/git/config`) are read by every git
//! command and may hold tokens themselves (`https://user:token@host` in a `url.*.insteadOf`
//! or a remote, `http.extraHeader`): where one does, the tree gets a copy without them
//! (`sanitized`), bound over the original, so git keeps working on everything else it says.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use super::Access;

/// Secrets below the user's home: directories and files of keys, tokens and credentials, and
/// the histories that hold what was typed. Covered wherever the profile could read them.
pub const HOME_SECRETS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".npmrc",
    ".yarnrc",
    ".pypirc",
    ".gem/credentials",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".git-credentials",
    ".config/git/credentials",
    ".config/gh",
    ".config/hub",
    ".config/gcloud",
    ".config/op",
    ".config/rclone",
    ".cache/huggingface/token",
    ".huggingface/token",
    ".terraform.d/credentials.tfrc.json",
    ".vault-token",
    ".password-store",
    ".local/share/keyrings",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".lesshst",
    ".viminfo",
];

/// The git configuration files below the home that every git command reads.
pub const GIT_CONFIGS: &[&str] = &[".gitconfig", ".config/git/config"];

/// What covers a hidden path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Replacement {
    /// An empty read-only directory.
    Empty,
    /// A file that cannot be opened.
    Unopenable,
    /// This file, read-only (a sanitized git configuration).
    File(PathBuf),
}

/// One path covered in a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Hidden {
    pub(super) path: PathBuf,
    pub(super) replacement: Replacement,
}

/// What to cover for `access`: each secret under its home that exists beneath a directory
/// the profile may read or write, and each git configuration there that holds a token.
pub(super) fn hidden(access: &Access) -> Vec<Hidden> {
    let Some(home) = access.home.as_deref() else {
        return Vec::new();
    };
    let roots: Vec<&Path> = access
        .read_exec
        .iter()
        .chain(&access.read)
        .chain(&access.write_exec)
        .chain(&access.write)
        .map(PathBuf::as_path)
        .collect();
    let readable = |p: &Path| roots.iter().any(|r| p.starts_with(r));
    let mut out = Vec::new();
    for rel in HOME_SECRETS {
        let path = home.join(rel);
        if !readable(&path) {
            continue;
        }
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        out.push(Hidden {
            path,
            replacement: if meta.is_dir() {
                Replacement::Empty
            } else {
                Replacement::Unopenable
            },
        });
    }
    for rel in GIT_CONFIGS {
        let path = home.join(rel);
        if readable(&path)
            && let Some(copy) = sanitized(&path)
        {
            out.push(Hidden {
                path,
                replacement: Replacement::File(copy),
            });
        }
    }
    out
}

/// A copy of the git configuration `path` without its secrets, when it has any; `None` when
/// it has none or cannot be read. Made once per version of the file (its size, modification
/// time and inode) and kept in a directory of this process's for its life.
fn sanitized(path: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    type Key = (PathBuf, u64, i64, i64, u64);
    static COPIES: OnceLock<Mutex<HashMap<Key, Option<PathBuf>>>> = OnceLock::new();
    static DIR: OnceLock<Option<tempfile::TempDir>> = OnceLock::new();
    let meta = std::fs::metadata(path).ok()?;
    let key = (
        path.to_path_buf(),
        meta.size(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ino(),
    );
    let copies = COPIES.get_or_init(Default::default);
    if let Some(known) = copies.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return known.clone();
    }
    let text = std::fs::read_to_string(path).ok()?;
    let clean = strip_git_secrets(&text);
    let copy = if clean == text {
        None
    } else {
        let dir = DIR
            .get_or_init(|| {
                tempfile::Builder::new()
                    .prefix("finch-gitconfig-")
                    .tempdir()
                    .ok()
            })
            .as_ref()?;
        let file = dir.path().join(format!(
            "{}-{}-{}",
            path.file_name()?.to_string_lossy(),
            meta.ino(),
            meta.mtime_nsec()
        ));
        crate::store::write_atomic(&file, clean.as_bytes()).ok()?;
        Some(file)
    };
    let mut copies = copies.lock().unwrap_or_else(|e| e.into_inner());
    if copies.len() > 64 {
        copies.clear();
    }
    copies.insert(key, copy.clone());
    copy
}

/// Keys whose values are secrets, wherever they stand (compared without regard to case).
const SECRET_KEYS: &[&str] = &["extraheader", "password", "token", "smtppass", "oauthtoken"];

/// `text` (git configuration) without what authenticates: the password of every
/// `scheme://user:password@host` in a value, and the lines whose key names a secret
/// (`SECRET_KEYS`). Everything else is kept as written.
pub fn strip_git_secrets(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let key = line
            .trim_start()
            .split(['=', ' ', '\t'])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        let is_entry = !line.trim_start().starts_with(['[', '#', ';']);
        if is_entry && SECRET_KEYS.iter().any(|s| key.contains(s)) {
            continue;
        }
        out.push_str(&strip_url_passwords(line));
    }
    out
}

/// `line` with the userinfo of every URL in it cut back to its user name.
fn strip_url_passwords(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("://") {
        let (before, after) = rest.split_at(at + 3);
        out.push_str(before);
        let end = after
            .find(|c: char| c == '/' || c.is_whitespace() || c == '"')
            .unwrap_or(after.len());
        let authority = &after[..end];
        match authority.rfind('@') {
            Some(at) => {
                let user = authority[..at].split(':').next().unwrap_or("");
                // A bare token as user name (`https://ghp_x@github.com`) is a secret too.
                if !user.is_empty() && !looks_like_token(user) {
                    out.push_str(user);
                    out.push('@');
                }
                out.push_str(&authority[at + 1..]);
            }
            None => out.push_str(authority),
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// A user name that is a token itself: long, or with a token's known prefix.
fn looks_like_token(user: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "github_pat_",
        "glpat-",
        "x-access-token",
    ];
    user.len() >= 32 || PREFIXES.iter().any(|p| user.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_configuration_keeps_everything_but_its_secrets() {
        let text = "[user]\n\tname = A\n\temail = a@b\n\
                    [url \"https://ghp_0123456789abcdef@github.com/\"]\n\tinsteadOf = https://github.com/\n\
                    [remote \"origin\"]\n\turl = https://me:s3cret@git.example.com/r.git\n\
                    [http \"https://example.com\"]\n\textraHeader = Authorization: Bearer xyz\n\
                    [credential]\n\thelper = store\n\
                    [core]\n\teditor = vim\n";
        let clean = strip_git_secrets(text);
        assert_eq!(
            clean,
            "[user]\n\tname = A\n\temail = a@b\n\
             [url \"https://github.com/\"]\n\tinsteadOf = https://github.com/\n\
             [remote \"origin\"]\n\turl = https://me@git.example.com/r.git\n\
             [http \"https://example.com\"]\n\
             [credential]\n\thelper = store\n\
             [core]\n\teditor = vim\n"
        );
        let plain = "[user]\n\tname = A\n[remote \"o\"]\n\turl = git@github.com:a/b.git\n";
        assert_eq!(strip_git_secrets(plain), plain, "nothing to strip");
    }

    #[test]
    fn secrets_are_hidden_only_where_the_profile_could_read_them() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        for dir in [".ssh", ".config/git", ".cache/huggingface"] {
            std::fs::create_dir_all(h.join(dir)).unwrap();
        }
        for file in [
            ".config/git/credentials",
            ".cache/huggingface/token",
            ".npmrc",
        ] {
            std::fs::write(h.join(file), "x").unwrap();
        }
        std::fs::write(
            h.join(".gitconfig"),
            "[remote \"o\"]\n\turl = https://u:p@h/r\n",
        )
        .unwrap();
        let access = Access {
            read: vec![
                h.join(".config/git"),
                h.join(".cache"),
                h.join(".gitconfig"),
            ],
            home: Some(h.to_path_buf()),
            ..Access::default()
        };
        let found = hidden(&access);
        let paths: Vec<&Path> = found.iter().map(|f| f.path.as_path()).collect();
        assert_eq!(
            paths,
            [
                h.join(".config/git/credentials"),
                h.join(".cache/huggingface/token"),
                h.join(".gitconfig")
            ]
        );
        let Replacement::File(copy) = &found[2].replacement else {
            panic!("{found:?}");
        };
        assert_eq!(
            std::fs::read_to_string(copy).unwrap(),
            "[remote \"o\"]\n\turl = https://u@h/r\n"
        );
        // With the home readable whole, every secret there is covered.
        let access = Access {
            write_exec: vec![h.to_path_buf()],
            home: Some(h.to_path_buf()),
            ..Access::default()
        };
        let found = hidden(&access);
        assert!(found.contains(&Hidden {
            path: h.join(".ssh"),
            replacement: Replacement::Empty
        }));
        assert!(found.contains(&Hidden {
            path: h.join(".npmrc"),
            replacement: Replacement::Unopenable
        }));
    }
}
