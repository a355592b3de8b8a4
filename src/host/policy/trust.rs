//! Which project rules files a person trusted (issue 28): `<runtime>/trusted-rules.json`,
//! `{"rules": [{"file", "sha256", "trustedAt"}]}`, written by `finch policy trust` under the
//! runtime home's lock, atomically, keeping keys finch does not know. A project's
//! `.finch/permissions.json` grants nothing until its exact bytes were trusted: a file that
//! changed since is untrusted again (its SHA-256 no longer matches). The runtime's own
//! `config/permissions.json` is the user's and needs no trust.
//!
//! This module reads and writes the trust file; it decides nothing. `rules::Rules::load` asks
//! it whether a project file is trusted and drops the file's `allow` rules when it is not.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::store::{Changes, JsonError, LockError, change_list, read_json_object};

/// One trusted rules file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trusted {
    /// The rules file, absolute.
    pub file: PathBuf,
    /// The SHA-256 of its bytes when trusted, lowercase hex.
    pub sha256: String,
    pub trusted_at: String,
}

#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    #[error("{} has an entry that is not a trusted rules file: {entry}", path.display())]
    BadEntry { path: PathBuf, entry: String },
    #[error(transparent)]
    Json(#[from] JsonError),
    #[error(transparent)]
    Lock(#[from] LockError),
}

impl From<TrustError> for crate::error::CommandError {
    fn from(err: TrustError) -> crate::error::CommandError {
        use crate::error::{CommandError, ErrorKind};
        let message = err.to_string();
        match err {
            TrustError::Lock(LockError::Held { .. }) => {
                CommandError::new(ErrorKind::Locked, message)
            }
            TrustError::Json(j) if j.is_corrupt() => CommandError::failed(message)
                .with_code("corrupt_state")
                .with_hint("fix the file by hand, or delete it (every project rules file is then untrusted)"),
            TrustError::BadEntry { .. } => CommandError::failed(message)
                .with_code("corrupt_state")
                .with_hint("each entry of \"rules\" needs a \"file\" and a \"sha256\" string"),
            _ => CommandError::failed(message),
        }
    }
}

/// What `grant` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Granted {
    /// The file was not trusted before.
    New,
    /// It was trusted with other contents; the new ones are trusted now.
    Renewed,
    /// These exact contents were trusted already.
    Already,
}

/// The trust file of a runtime home.
pub fn trust_file(runtime: &Path) -> PathBuf {
    runtime.join("trusted-rules.json")
}

/// The SHA-256 of some bytes, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Every trusted file, in file order; a missing trust file trusts nothing.
pub fn list(runtime: &Path) -> Result<Vec<Trusted>, TrustError> {
    let path = trust_file(runtime);
    let doc = read_json_object(&path)?.unwrap_or_default();
    parse(&doc, &path)
}

fn parse(doc: &Map<String, Value>, path: &Path) -> Result<Vec<Trusted>, TrustError> {
    let Some(items) = doc.get("rules") else {
        return Ok(Vec::new());
    };
    let bad = |entry: &Value| TrustError::BadEntry {
        path: path.to_path_buf(),
        entry: entry.to_string(),
    };
    let Value::Array(items) = items else {
        return Err(bad(items));
    };
    items
        .iter()
        .map(|item| {
            let text = |k: &str| item.get(k).and_then(Value::as_str);
            match (text("file"), text("sha256")) {
                (Some(file), Some(sha)) => Ok(Trusted {
                    file: PathBuf::from(file),
                    sha256: sha.to_string(),
                    trusted_at: text("trustedAt").unwrap_or_default().to_string(),
                }),
                _ => Err(bad(item)),
            }
        })
        .collect()
}

/// Whether `list` trusts these exact contents of `file`.
pub fn is_trusted(list: &[Trusted], file: &Path, sha256: &str) -> bool {
    list.iter().any(|t| t.file == file && t.sha256 == sha256)
}

/// Whether `list` names `file` at all (with any contents).
pub fn was_trusted(list: &[Trusted], file: &Path) -> bool {
    list.iter().any(|t| t.file == file)
}

/// Trusts these contents of `file` (replacing what was trusted for it before).
pub fn grant(
    runtime: &Path,
    file: &Path,
    sha256: &str,
    now: &str,
    lock_timeout: Duration,
) -> Result<Granted, TrustError> {
    change(runtime, lock_timeout, |items| {
        let at = items
            .iter()
            .position(|i| i.get("file").and_then(Value::as_str) == file.to_str());
        let granted = match at {
            Some(i) if items[i].get("sha256").and_then(Value::as_str) == Some(sha256) => {
                return Granted::Already;
            }
            Some(_) => Granted::Renewed,
            None => Granted::New,
        };
        let mut entry = match at {
            Some(i) => match items.remove(i) {
                Value::Object(map) => map,
                _ => Map::new(),
            },
            None => Map::new(),
        };
        entry.insert("file".into(), file.to_string_lossy().into());
        entry.insert("sha256".into(), sha256.into());
        entry.insert("trustedAt".into(), now.into());
        items.insert(at.unwrap_or(items.len()), Value::Object(entry));
        granted
    })
}

/// Forgets `file`; false when it was not trusted.
pub fn revoke(runtime: &Path, file: &Path, lock_timeout: Duration) -> Result<bool, TrustError> {
    change(runtime, lock_timeout, |items| {
        let before = items.len();
        items.retain(|i| i.get("file").and_then(Value::as_str) != file.to_str());
        items.len() != before
    })
}

/// Lock, read, change the `rules` list, write (only when something changed).
fn change<T: Changes>(
    runtime: &Path,
    lock_timeout: Duration,
    f: impl FnOnce(&mut Vec<Value>) -> T,
) -> Result<T, TrustError> {
    let path = trust_file(runtime);
    change_list(
        runtime,
        &path,
        "rules",
        lock_timeout,
        |doc| parse(doc, &path).map(drop),
        f,
    )
}

impl Changes for Granted {
    fn changed(&self) -> bool {
        *self != Granted::Already
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grant_list_revoke_and_keep_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        let runtime = dir.path().join("rt");
        let file = Path::new("/p/.finch/permissions.json");
        let t = Duration::from_secs(1);
        assert_eq!(list(&runtime).unwrap(), vec![]);
        assert_eq!(grant(&runtime, file, "aa", "t1", t).unwrap(), Granted::New);
        assert_eq!(
            grant(&runtime, file, "aa", "t2", t).unwrap(),
            Granted::Already
        );
        // Someone else's key, kept on rewrite.
        let path = trust_file(&runtime);
        let mut doc: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        doc["note"] = "kept".into();
        doc["rules"][0]["by"] = "me".into();
        std::fs::write(&path, doc.to_string()).unwrap();
        assert_eq!(
            grant(&runtime, file, "bb", "t3", t).unwrap(),
            Granted::Renewed
        );
        let listed = list(&runtime).unwrap();
        assert_eq!(listed.len(), 1);
        assert!(is_trusted(&listed, file, "bb"));
        assert!(!is_trusted(&listed, file, "aa"));
        assert!(was_trusted(&listed, file));
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(doc["note"], "kept");
        assert_eq!(doc["rules"][0]["by"], "me");
        assert_eq!(doc["rules"][0]["trustedAt"], "t3");
        assert!(revoke(&runtime, file, t).unwrap());
        assert!(!revoke(&runtime, file, t).unwrap());
        assert_eq!(list(&runtime).unwrap(), vec![]);
    }

    #[test]
    fn a_broken_entry_is_an_error_that_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(trust_file(dir.path()), r#"{"rules": [{"file": 3}]}"#).unwrap();
        let err = list(dir.path()).unwrap_err();
        assert!(err.to_string().contains("trusted-rules.json"), "{err}");
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
