//! `ctx.secrets` of a mini tool: the OS keyring through `keyring-core` (SPEC §9.1) — Keychain on
//! macOS, Credential Manager on Windows, the Secret Service (pure-Rust D-Bus) on Linux and the
//! BSDs, and on Linux the kernel keyutils store where no Secret Service runs (CI, servers,
//! containers). `[runtime] keyring` in finch.toml can name one store, or `none`.
//!
//! A mini tool may touch only the keys its manifest lists in `permissions.secrets` (exact keys,
//! or `prefix.*`). There is no plaintext fallback, ever: when no store opens, every call fails
//! with an error that says which stores were tried and why, and how to get one.
//!
//! Secrets are bound to the installed package, not to its id (issue 44): any package can
//! claim an id (a `--minitool` load, a copy installed elsewhere), and none of them may read what
//! a person gave the installed one. An entry is stored under the service
//! `finch:<mini-tool-id>@<owner>` with the key as the user name, where `<owner>` is the first 16
//! hex digits of a SHA-256 over where the package runs from (`Owner`): its origin (`personal`,
//! `global`, or `dir` for a `--minitool` load), the path finch loads it from, that path's
//! realpath, and its `package.json#name` (else its finch id). An update in place keeps all
//! four, so the secrets stay; the same id loaded from anywhere else (even the source directory
//! a `-d` link points at, under `--minitool`) is another owner and reads nothing.
//!
//! Beside the keyring, `<runtime>/secrets/<id>.json` records each owner (those four facts) and
//! the names of its keys — never a value — so `finch secret list` can name them (keyrings
//! cannot all be searched). It changes under a lock, atomically, unknown keys kept.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use keyring_core::{CredentialStore, Entry};

use crate::config::KeyringChoice;

/// The package a secret belongs to: one mini tool id as loaded from one place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub id: String,
    /// 16 hex digits: the binding (see the module's comment).
    pub digest: String,
    /// What the digest is made of, as `<runtime>/secrets/<id>.json` records it.
    pub record: Value,
}

impl Owner {
    /// The owner of mini tool `id` loaded from `dir` (`origin`: `personal`, `global`, `dir`),
    /// whose `package.json#name` is `package` (else its id).
    pub fn new(id: &str, origin: &str, dir: &Path, package: Option<&str>) -> Owner {
        let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let package = package.unwrap_or(id);
        let mut hash = Sha256::new();
        for part in [
            origin.as_bytes(),
            dir.as_os_str().as_encoded_bytes(),
            real.as_os_str().as_encoded_bytes(),
            package.as_bytes(),
        ] {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part);
        }
        let digest: String = hash
            .finalize()
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect();
        Owner {
            id: id.to_string(),
            digest,
            record: json!({
                "origin": origin,
                "path": dir,
                "realpath": real,
                "package": package,
            }),
        }
    }

    /// The keyring service of this owner's secrets.
    pub fn service(&self) -> String {
        format!("finch:{}@{}", self.id, self.digest)
    }
}

/// The keyring of one runtime, opened on first use and shared by every mini tool.
pub struct Keyring {
    choice: KeyringChoice,
    store: OnceLock<Result<(Arc<CredentialStore>, &'static str), String>>,
    /// `<runtime>/secrets`: the index of owners and key names.
    index: PathBuf,
    lock_timeout: Duration,
}

impl Keyring {
    pub fn new(choice: KeyringChoice, runtime: &Path, lock_timeout: Duration) -> Keyring {
        Keyring {
            choice,
            store: OnceLock::new(),
            index: runtime.join("secrets"),
            lock_timeout,
        }
    }

    fn store(&self) -> Result<&(Arc<CredentialStore>, &'static str), String> {
        self.store
            .get_or_init(|| open(self.choice))
            .as_ref()
            .map_err(|e| e.clone())
    }

    pub fn get(&self, owner: &Owner, key: &str) -> Result<Option<String>, String> {
        let entry = self.entry(owner, key)?;
        match entry.get_password() {
            Ok(v) => Ok(Some(v)),
            Err(keyring_core::Error::NoEntry) => Ok(None),
            Err(e) => Err(self.failure("read", key, &e)),
        }
    }

    pub fn set(&self, owner: &Owner, key: &str, value: &str) -> Result<(), String> {
        let entry = self.entry(owner, key)?;
        entry
            .set_password(value)
            .map_err(|e| self.failure("store", key, &e))?;
        self.note(owner, key, true)
    }

    /// Deletes a secret; whether there was one.
    pub fn delete(&self, owner: &Owner, key: &str) -> Result<bool, String> {
        let entry = self.entry(owner, key)?;
        let had = match entry.delete_credential() {
            Ok(()) => true,
            Err(keyring_core::Error::NoEntry) => false,
            Err(e) => return Err(self.failure("delete", key, &e)),
        };
        self.note(owner, key, false)?;
        Ok(had)
    }

    /// The names of the keys `owner` has set, as the index records them (sorted).
    pub fn keys(&self, owner: &Owner) -> Result<Vec<String>, String> {
        let doc = crate::store::read_json_object(&self.index_file(&owner.id))
            .map_err(|e| e.to_string())?
            .unwrap_or_default();
        Ok(doc
            .get("owners")
            .and_then(|o| o.get(&owner.digest))
            .and_then(|o| o.get("keys"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect())
    }

    fn index_file(&self, id: &str) -> PathBuf {
        self.index.join(format!("{id}.json"))
    }

    /// Records in the index that `owner` has (`present`) or no longer has the key `key`.
    fn note(&self, owner: &Owner, key: &str, present: bool) -> Result<(), String> {
        let _lock =
            crate::store::DirLock::acquire(&self.index, "the secrets index", self.lock_timeout)
                .map_err(|e| e.to_string())?;
        let path = self.index_file(&owner.id);
        let mut doc = crate::store::read_json_object(&path)
            .map_err(|e| e.to_string())?
            .unwrap_or_default();
        let owners = doc
            .entry("owners")
            .or_insert_with(|| Value::Object(Map::new()));
        if !owners.is_object() {
            *owners = Value::Object(Map::new());
        }
        let Some(owners) = owners.as_object_mut() else {
            return Ok(());
        };
        let mut entry = owners
            .remove(&owner.digest)
            .and_then(|v| v.as_object().cloned())
            .unwrap_or_default();
        if let Some(facts) = owner.record.as_object() {
            for (k, v) in facts {
                entry.insert(k.clone(), v.clone());
            }
        }
        let mut keys: Vec<String> = entry
            .get("keys")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|k| *k != key)
            .map(str::to_string)
            .collect();
        if present {
            keys.push(key.to_string());
        }
        keys.sort();
        entry.insert("keys".into(), json!(keys));
        owners.insert(owner.digest.clone(), Value::Object(entry));
        let bytes = serde_json::to_vec_pretty(&Value::Object(doc))
            .map_err(|e| format!("cannot encode the secrets index: {e}"))?;
        crate::store::write_atomic(&path, &bytes)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    fn entry(&self, owner: &Owner, key: &str) -> Result<Entry, String> {
        let (store, name) = self.store()?;
        Entry::new_in_store(store, &owner.service(), key)
            .map_err(|e| format!("the {name} cannot hold the secret \"{key}\": {e}"))
    }

    fn failure(&self, action: &str, key: &str, e: &keyring_core::Error) -> String {
        let name = self.store().map(|(_, n)| *n).unwrap_or("OS keyring");
        format!("the {name} could not {action} the secret \"{key}\": {e}")
    }
}

/// Whether `key` is one of `patterns` (`permissions.secrets`: exact keys or `prefix.*`).
pub fn allowed(patterns: &[String], key: &str) -> bool {
    patterns.iter().any(|p| match p.strip_suffix(".*") {
        Some(prefix) if !prefix.is_empty() && !prefix.contains('*') => key
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_prefix('.'))
            .is_some_and(|rest| !rest.is_empty()),
        _ => !p.contains('*') && p == key,
    })
}

/// Which store `[runtime] keyring` would use here, or why none opens: what `finch doctor`
/// reports. Opening a store may talk to D-Bus; it never writes anything.
pub fn probe(choice: KeyringChoice) -> Result<&'static str, String> {
    open(choice).map(|(_, name)| name)
}

const HOW: &str = "finch never keeps secrets in plain files. Start a Secret Service (e.g. gnome-keyring or KeePassXC), or set [runtime] keyring in finch.toml to a store this system has";

fn open(choice: KeyringChoice) -> Result<(Arc<CredentialStore>, &'static str), String> {
    let unavailable = |tried: Vec<String>| {
        Err(format!(
            "no OS keyring is available ({}). {HOW}.",
            tried.join("; ")
        ))
    };
    match choice {
        KeyringChoice::None => Err(
            "secrets are turned off: finch.toml sets [runtime] keyring = \"none\", and finch never keeps secrets in plain files".to_string(),
        ),
        KeyringChoice::SecretService => match secret_service() {
            Ok(s) => Ok(s),
            Err(e) => unavailable(vec![e]),
        },
        KeyringChoice::Keyutils => match keyutils() {
            Ok(s) => Ok(s),
            Err(e) => unavailable(vec![e]),
        },
        KeyringChoice::Keychain => match keychain() {
            Ok(s) => Ok(s),
            Err(e) => unavailable(vec![e]),
        },
        KeyringChoice::CredentialManager => match credential_manager() {
            Ok(s) => Ok(s),
            Err(e) => unavailable(vec![e]),
        },
        KeyringChoice::Auto => {
            let mut tried = Vec::new();
            for open in [keychain, credential_manager, secret_service, keyutils] {
                match open() {
                    Ok(s) => return Ok(s),
                    Err(e) if e.ends_with(NOT_HERE) => {}
                    Err(e) => tried.push(e),
                }
            }
            unavailable(tried)
        }
    }
}

/// The end of the message of a store this platform does not have.
const NOT_HERE: &str = "is not available on this platform";

type Opened = Result<(Arc<CredentialStore>, &'static str), String>;

#[cfg(target_os = "macos")]
fn keychain() -> Opened {
    apple_native_keyring_store::keychain::Store::new()
        .map(|s| (s as Arc<CredentialStore>, "macOS Keychain"))
        .map_err(|e| format!("macOS Keychain: {e}"))
}

#[cfg(not(target_os = "macos"))]
fn keychain() -> Opened {
    Err(format!("macOS Keychain {NOT_HERE}"))
}

#[cfg(target_os = "windows")]
fn credential_manager() -> Opened {
    windows_native_keyring_store::Store::new()
        .map(|s| (s as Arc<CredentialStore>, "Windows Credential Manager"))
        .map_err(|e| format!("Windows Credential Manager: {e}"))
}

#[cfg(not(target_os = "windows"))]
fn credential_manager() -> Opened {
    Err(format!("Windows Credential Manager {NOT_HERE}"))
}

#[cfg(all(unix, not(target_os = "macos")))]
fn secret_service() -> Opened {
    zbus_secret_service_keyring_store::Store::new()
        .map(|s| (s as Arc<CredentialStore>, "Secret Service"))
        .map_err(|e| format!("Secret Service: {e}"))
}

#[cfg(not(all(unix, not(target_os = "macos"))))]
fn secret_service() -> Opened {
    Err(format!("the Secret Service {NOT_HERE}"))
}

#[cfg(target_os = "linux")]
fn keyutils() -> Opened {
    // The store adds keys to the session keyring by its serial number. A process without a
    // session keyring of its own (a service, CI, a container) resolves that to the user-session
    // keyring, which it does not possess by serial, and every write fails with EACCES. Asking
    // for the session keyring with "create" gives this process one of its own; the store links
    // the user's persistent keyring into it, which is where other processes find the keys.
    // SAFETY: keyctl(KEYCTL_GET_KEYRING_ID) only reads its integer arguments.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_keyctl,
            libc::KEYCTL_GET_KEYRING_ID as libc::c_long,
            libc::KEY_SPEC_SESSION_KEYRING as libc::c_long,
            1 as libc::c_long,
        )
    };
    if rc < 0 {
        return Err(format!(
            "kernel keyutils: cannot open a session keyring: {}",
            std::io::Error::last_os_error()
        ));
    }
    linux_keyutils_keyring_store::Store::new()
        .map(|s| (s as Arc<CredentialStore>, "kernel keyutils store"))
        .map_err(|e| format!("kernel keyutils: {e}"))
}

#[cfg(not(target_os = "linux"))]
fn keyutils() -> Opened {
    Err(format!("the kernel keyutils store {NOT_HERE}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_keys_follow_the_manifest_patterns() {
        let patterns = vec!["api.key".to_string(), "github.*".to_string()];
        let cases = [
            ("api.key", true),
            ("api.key2", false),
            ("api", false),
            ("github.token", true),
            ("github.a.b", true),
            ("github.", false),
            ("github", false),
            ("githubx.token", false),
            ("*", false),
        ];
        for (key, want) in cases {
            assert_eq!(allowed(&patterns, key), want, "{key}");
        }
        assert!(!allowed(&["*".to_string()], "anything"));
        assert!(!allowed(&[], "api.key"));
    }

    #[test]
    fn an_owner_is_where_the_package_runs_from_not_its_id() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let installed = Owner::new("bot", "personal", a.path(), Some("bot"));
        assert_eq!(
            installed,
            Owner::new("bot", "personal", a.path(), Some("bot"))
        );
        for other in [
            Owner::new("bot", "dir", a.path(), Some("bot")),
            Owner::new("bot", "global", a.path(), Some("bot")),
            Owner::new("bot", "personal", b.path(), Some("bot")),
            Owner::new("bot", "personal", a.path(), Some("evil-bot")),
        ] {
            assert_ne!(installed.digest, other.digest, "{other:?}");
            assert_ne!(installed.service(), other.service());
        }
        assert_eq!(installed.digest.len(), 16);
        assert!(installed.service().starts_with("finch:bot@"));
    }

    #[test]
    fn none_is_a_clear_refusal() {
        let err = probe(KeyringChoice::None).unwrap_err();
        assert!(err.contains("keyring = \"none\""), "{err}");
        assert!(err.contains("plain files"), "{err}");
    }
}
