//! Which `servers.json` entries a person approved (issue 39, SPEC §8.5b): configuration that
//! starts programs is trusted by content, as project rules are. `<runtime>/trusted-mcp.json`,
//! `{"servers": [{"file", "name", "sha256", "trustedAt"}]}`, records the SHA-256 of each entry
//! a person approved — `finch mcp add` (and every edit finch makes for a person), `finch mcp
//! trust <name>`, a card in the console or an elicitation under `--serve mcp`. An entry added
//! or changed by anything else (a mini tool that found its way to the file, another program)
//! does not start until a person agrees. The record lives beside the other trust files of the
//! runtime home, never in `servers.json` itself, whose writer could otherwise approve itself.
//!
//! An entry's digest is that of what decides what runs — its name, command, arguments,
//! environment, working directory, URL, headers and `"sandbox"`, as finch reads them
//! (`McpServerConfig::to_json`, keys sorted) — so keys the app keeps beside them change
//! nothing, and any change to what runs asks again.
//!
//! Written under the runtime home's lock, atomically, keys finch does not know kept. This
//! module decides nothing: `config::resolve` asks it which entries wait.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

use super::config::McpServerConfig;
pub use crate::host::policy::trust::Granted;
use crate::store::{Changes, JsonError, LockError, change_list, read_json_object};

/// One approved entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approved {
    /// The `servers.json` it is in, absolute.
    pub file: PathBuf,
    /// The server's normalized name.
    pub name: String,
    /// The digest of the entry when approved (`digest`).
    pub sha256: String,
    pub trusted_at: String,
}

#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    #[error("{} has an entry that is not an approved MCP server: {entry}", path.display())]
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
                .with_hint("fix the file by hand, or delete it (every servers.json entry then waits for a person again)"),
            TrustError::BadEntry { .. } => CommandError::failed(message)
                .with_code("corrupt_state")
                .with_hint("each entry of \"servers\" needs a \"file\", a \"name\" and a \"sha256\" string"),
            _ => CommandError::failed(message),
        }
    }
}

/// The record of a runtime home.
pub fn trust_file(runtime: &Path) -> PathBuf {
    runtime.join("trusted-mcp.json")
}

/// The digest of an entry: SHA-256 of what decides what runs, keys sorted (module docs).
pub fn digest(server: &McpServerConfig) -> String {
    crate::host::policy::trust::sha256_hex(canonical(&server.to_json()).as_bytes())
}

/// JSON with every object's keys sorted, compact.
fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", Value::String(k.clone()), canonical(&map[k])))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => {
            format!(
                "[{}]",
                items.iter().map(canonical).collect::<Vec<_>>().join(",")
            )
        }
        other => other.to_string(),
    }
}

/// Every approved entry; a missing record approves nothing.
pub fn list(runtime: &Path) -> Result<Vec<Approved>, TrustError> {
    let path = trust_file(runtime);
    let doc = read_json_object(&path)?.unwrap_or_default();
    parse(&doc, &path)
}

fn parse(doc: &Map<String, Value>, path: &Path) -> Result<Vec<Approved>, TrustError> {
    let Some(items) = doc.get("servers") else {
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
            match (text("file"), text("name"), text("sha256")) {
                (Some(file), Some(name), Some(sha)) => Ok(Approved {
                    file: PathBuf::from(file),
                    name: name.to_string(),
                    sha256: sha.to_string(),
                    trusted_at: text("trustedAt").unwrap_or_default().to_string(),
                }),
                _ => Err(bad(item)),
            }
        })
        .collect()
}

/// Whether `approved` holds this entry of `file` with these exact contents.
pub fn is_approved(approved: &[Approved], file: &Path, server: &McpServerConfig) -> bool {
    let (name, sha) = (server.normalized(), digest(server));
    approved
        .iter()
        .any(|a| a.file == file && a.name == name && a.sha256 == sha)
}

/// Records that a person approved `server` as it is in `file`.
pub fn grant(
    runtime: &Path,
    file: &Path,
    server: &McpServerConfig,
    now: &str,
    lock_timeout: Duration,
) -> Result<Granted, TrustError> {
    let (name, sha) = (server.normalized(), digest(server));
    change(runtime, lock_timeout, |items| {
        let same = |i: &Value| {
            i.get("file").and_then(Value::as_str) == file.to_str()
                && i.get("name").and_then(Value::as_str) == Some(name.as_str())
        };
        let at = items.iter().position(same);
        let granted = match at {
            Some(i) if items[i].get("sha256").and_then(Value::as_str) == Some(sha.as_str()) => {
                return Granted::Already;
            }
            Some(_) => Granted::Renewed,
            None => Granted::New,
        };
        let mut entry = match at.map(|i| items.remove(i)) {
            Some(Value::Object(map)) => map,
            _ => Map::new(),
        };
        entry.insert("file".into(), file.to_string_lossy().into());
        entry.insert("name".into(), name.clone().into());
        entry.insert("sha256".into(), sha.clone().into());
        entry.insert("trustedAt".into(), now.into());
        items.insert(at.unwrap_or(items.len()), Value::Object(entry));
        granted
    })
}

/// Forgets the approval of the entry named `name` (normalized) in `file`; whether there was one.
pub fn revoke(
    runtime: &Path,
    file: &Path,
    name: &str,
    lock_timeout: Duration,
) -> Result<bool, TrustError> {
    change(runtime, lock_timeout, |items| {
        let before = items.len();
        items.retain(|i| {
            !(i.get("file").and_then(Value::as_str) == file.to_str()
                && i.get("name").and_then(Value::as_str) == Some(name))
        });
        items.len() != before
    })
}

/// Lock, read, change the `servers` list, write (only when something changed).
fn change<T: Changes>(
    runtime: &Path,
    lock_timeout: Duration,
    f: impl FnOnce(&mut Vec<Value>) -> T,
) -> Result<T, TrustError> {
    let path = trust_file(runtime);
    change_list(
        runtime,
        &path,
        "servers",
        lock_timeout,
        |doc| parse(doc, &path).map(drop),
        f,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::mcp::Origin;
    use serde_json::json;

    fn server(entry: Value) -> McpServerConfig {
        McpServerConfig::from_json(&entry, Origin::User).unwrap()
    }

    #[test]
    fn the_digest_is_of_what_runs_and_not_of_how_it_is_written() {
        let a = server(
            json!({"name": "fs", "command": "npx", "args": ["-y", "x"], "env": {"A": "1", "B": "2"}}),
        );
        let b = server(
            json!({"env": {"B": "2", "A": "1"}, "args": ["-y", "x"], "type": "stdio", "command": "npx", "name": "fs", "note": "kept"}),
        );
        assert_eq!(digest(&a), digest(&b));
        let c = server(json!({"name": "fs", "command": "npx", "args": ["-y", "y"]}));
        assert_ne!(digest(&a), digest(&c));
        assert_eq!(digest(&a).len(), 64);
    }

    #[test]
    fn grant_list_revoke_and_keep_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        let runtime = dir.path().join("rt");
        let file = Path::new("/rt/extension-data/mcp/servers.json");
        let t = Duration::from_secs(1);
        let fs = server(json!({"name": "FS", "command": "npx"}));
        assert!(list(&runtime).unwrap().is_empty());
        assert_eq!(grant(&runtime, file, &fs, "t1", t).unwrap(), Granted::New);
        assert_eq!(
            grant(&runtime, file, &fs, "t2", t).unwrap(),
            Granted::Already
        );
        let path = trust_file(&runtime);
        let mut doc: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        doc["note"] = "kept".into();
        std::fs::write(&path, doc.to_string()).unwrap();
        let listed = list(&runtime).unwrap();
        assert!(is_approved(&listed, file, &fs));
        assert_eq!(listed[0].name, "fs");
        let changed = server(json!({"name": "fs", "command": "npx", "args": ["evil"]}));
        assert!(!is_approved(&listed, file, &changed));
        assert!(!is_approved(&listed, Path::new("/other/servers.json"), &fs));
        assert_eq!(
            grant(&runtime, file, &changed, "t3", t).unwrap(),
            Granted::Renewed
        );
        assert!(revoke(&runtime, file, "fs", t).unwrap());
        assert!(!revoke(&runtime, file, "fs", t).unwrap());
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(doc["note"], "kept");
        std::fs::write(&path, r#"{"servers": [{"file": "x"}]}"#).unwrap();
        assert!(matches!(list(&runtime), Err(TrustError::BadEntry { .. })));
    }
}
