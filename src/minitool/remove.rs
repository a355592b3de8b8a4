//! `finch remove`: take one mini tool out of a tier (SPEC §3.6). The tier entry goes (for a dev
//! install, only the link, never its target), then its install record, and it is marked
//! disabled. Its private data in `extension-data/<id>/` is never touched.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::install::Installer;
use super::records::LockRecords;
use super::{Error, enabled, tier};

/// What `remove` took away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removed {
    pub id: String,
    /// The tier entry that was deleted.
    pub path: PathBuf,
}

impl Removed {
    /// The document of `remove --json` (docs/json.md).
    pub fn to_json(&self) -> Value {
        json!({"id": self.id, "removed": true, "path": self.path})
    }
}

/// Removes `id` from the installer's tier.
pub fn remove(installer: &Installer, id: &str) -> Result<Removed, Error> {
    let tier_dir = installer.tier_dir();
    let path = tier_dir.join(id);
    let not_installed = || Error::NotInstalled {
        id: id.to_string(),
        tier: installer.tier.name(),
    };
    if !tier::is_entry_name(id) {
        return Err(not_installed());
    }
    // Both state files are read (and so checked) before anything is deleted: a corrupt one stops
    // the command with the install still in place. Lock order: tier, then runtime home.
    let _tier_lock = installer.lock_tier()?;
    if std::fs::symlink_metadata(&path).is_err() {
        return Err(not_installed());
    }
    let mut records = LockRecords::load(&tier_dir)?;
    let (_state_lock, mut state) = enabled::lock(installer.homes, installer.lock_timeout)?;
    tier::remove_entry(&path).map_err(|e| Error::io("remove", &path, e))?;
    if records.remove(id) {
        records.save()?;
    }
    state.set_enabled(id, false);
    state.save()?;
    Ok(Removed {
        id: id.to_string(),
        path,
    })
}
