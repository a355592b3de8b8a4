//! `ctx.secrets` of a mini tool: the OS keyring through `keyring-core` (SPEC §9.1) — Keychain on
//! macOS, Credential Manager on Windows, the Secret Service (pure-Rust D-Bus) on Linux and the
//! BSDs, and on Linux the kernel keyutils store where no Secret Service runs (CI, servers,
//! containers). `[runtime] keyring` in finch.toml can name one store, or `none`.
//!
//! A mini tool may touch only the keys its manifest lists in `permissions.secrets` (exact keys,
//! or `prefix.*`). There is no plaintext fallback, ever: when no store opens, every call fails
//! with an error that says which stores were tried and why, and how to get one.
//!
//! Entries are stored under the service `finch:<mini-tool-id>` with the key as the user name.

use std::sync::{Arc, OnceLock};

use keyring_core::{CredentialStore, Entry};

use crate::config::KeyringChoice;

/// The keyring of one runtime, opened on first use and shared by every mini tool.
pub(crate) struct Keyring {
    choice: KeyringChoice,
    store: OnceLock<Result<(Arc<CredentialStore>, &'static str), String>>,
}

impl Keyring {
    pub fn new(choice: KeyringChoice) -> Keyring {
        Keyring {
            choice,
            store: OnceLock::new(),
        }
    }

    fn store(&self) -> Result<&(Arc<CredentialStore>, &'static str), String> {
        self.store
            .get_or_init(|| open(self.choice))
            .as_ref()
            .map_err(|e| e.clone())
    }

    pub fn get(&self, id: &str, key: &str) -> Result<Option<String>, String> {
        let entry = self.entry(id, key)?;
        match entry.get_password() {
            Ok(v) => Ok(Some(v)),
            Err(keyring_core::Error::NoEntry) => Ok(None),
            Err(e) => Err(self.failure("read", key, &e)),
        }
    }

    pub fn set(&self, id: &str, key: &str, value: &str) -> Result<(), String> {
        let entry = self.entry(id, key)?;
        entry
            .set_password(value)
            .map_err(|e| self.failure("store", key, &e))
    }

    /// Deletes a secret; whether there was one.
    pub fn delete(&self, id: &str, key: &str) -> Result<bool, String> {
        let entry = self.entry(id, key)?;
        match entry.delete_credential() {
            Ok(()) => Ok(true),
            Err(keyring_core::Error::NoEntry) => Ok(false),
            Err(e) => Err(self.failure("delete", key, &e)),
        }
    }

    fn entry(&self, id: &str, key: &str) -> Result<Entry, String> {
        let (store, name) = self.store()?;
        Entry::new_in_store(store, &service(id), key)
            .map_err(|e| format!("the {name} cannot hold the secret \"{key}\": {e}"))
    }

    fn failure(&self, action: &str, key: &str, e: &keyring_core::Error) -> String {
        let name = self.store().map(|(_, n)| *n).unwrap_or("OS keyring");
        format!("the {name} could not {action} the secret \"{key}\": {e}")
    }
}

/// The keyring service name of a mini tool's secrets.
pub(crate) fn service(id: &str) -> String {
    format!("finch:{id}")
}

/// Whether `key` is one of `patterns` (`permissions.secrets`: exact keys or `prefix.*`).
pub(crate) fn allowed(patterns: &[String], key: &str) -> bool {
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
    fn none_is_a_clear_refusal() {
        let err = probe(KeyringChoice::None).unwrap_err();
        assert!(err.contains("keyring = \"none\""), "{err}");
        assert!(err.contains("plain files"), "{err}");
    }
}
