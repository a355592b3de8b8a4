//! Enabled state of every mini tool in every tier, `<runtime>/extensions.json` (SPEC §3.6):
//! `{"enabled": [sorted ids], "extensions": {"<id>": {"enabled": bool, …}}, "autoUpdate": bool}`.
//! The app writes the same file, so every key finch does not manage (`grantedPermissions`, …) is
//! kept, and the legacy top-level `plugins` map is folded into `extensions` and dropped.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::Error;
use crate::homes::Homes;
use crate::store::{DirLock, JsonError, read_json_object, write_json};

#[derive(Debug)]
pub struct EnabledState {
    path: PathBuf,
    doc: Map<String, Value>,
}

impl EnabledState {
    pub fn load(path: &Path) -> Result<EnabledState, JsonError> {
        let mut doc = read_json_object(path)?.unwrap_or_else(|| {
            // A new file gets the keys in the documented order.
            let mut fresh = Map::new();
            fresh.insert("enabled".into(), Value::Array(Vec::new()));
            fresh.insert("extensions".into(), Value::Object(Map::new()));
            fresh.insert("autoUpdate".into(), Value::Bool(false));
            fresh
        });
        fold_legacy_plugins(&mut doc);
        Ok(EnabledState {
            path: path.to_path_buf(),
            doc,
        })
    }

    /// A state that knows nothing (every id disabled), for a listing that goes on without a
    /// corrupt `extensions.json`; never saved.
    pub fn unknown(path: &Path) -> EnabledState {
        let mut doc = Map::new();
        doc.insert("enabled".into(), Value::Array(Vec::new()));
        doc.insert("extensions".into(), Value::Object(Map::new()));
        EnabledState {
            path: path.to_path_buf(),
            doc,
        }
    }

    /// An id is enabled when its record says so; a record without `enabled` defers to the
    /// top-level `enabled` list, as older app versions wrote only that.
    pub fn is_enabled(&self, id: &str) -> bool {
        match self
            .doc
            .get("extensions")
            .and_then(|e| e.get(id))
            .and_then(|r| r.get("enabled"))
            .and_then(Value::as_bool)
        {
            Some(b) => b,
            None => self.listed(id),
        }
    }

    fn listed(&self, id: &str) -> bool {
        self.doc
            .get("enabled")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|v| v.as_str() == Some(id)))
    }

    /// The `extensions` map, made an (empty) object when it is missing or not one.
    fn extensions_mut(&mut self) -> &mut Map<String, Value> {
        let extensions = self
            .doc
            .entry("extensions")
            .or_insert_with(|| Value::Object(Map::new()));
        if !extensions.is_object() {
            *extensions = Value::Object(Map::new());
        }
        match extensions {
            Value::Object(ext) => ext,
            _ => unreachable!("made an object just above"),
        }
    }

    pub fn set_enabled(&mut self, id: &str, enabled: bool) {
        let record = self
            .extensions_mut()
            .entry(id.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if !record.is_object() {
            *record = Value::Object(Map::new());
        }
        if let Value::Object(r) = record {
            r.insert("enabled".into(), enabled.into());
        }
        if !enabled {
            // Drop the id from the legacy list too, so the derived list below is exact.
            if let Some(Value::Array(list)) = self.doc.get_mut("enabled") {
                list.retain(|v| v.as_str() != Some(id));
            }
        }
    }

    /// Moves `old_id`'s record to `new_id` after an id migration, as the official CLI does:
    /// every key (`grantedPermissions` among them) goes along; where `new_id` already has a
    /// record, its keys win and only the missing ones are copied — except `enabled`: an enabled
    /// old id leaves the new id enabled (the user's last choice was made under the old id; the
    /// official CLI would keep a stale `enabled: false` there). Returns whether anything changed.
    pub fn migrate(&mut self, old_id: &str, new_id: &str) -> bool {
        let was_enabled = self.is_enabled(old_id);
        let old_record = self
            .doc
            .get_mut("extensions")
            .and_then(Value::as_object_mut)
            .and_then(|ext| ext.shift_remove(old_id));
        let listed = self.listed(old_id);
        if old_record.is_none() && !listed {
            return false;
        }
        if let Some(Value::Object(old)) = old_record {
            let ext = self.extensions_mut();
            match ext.get_mut(new_id) {
                Some(Value::Object(new)) => {
                    for (k, v) in old {
                        new.entry(k).or_insert(v);
                    }
                }
                _ => {
                    ext.insert(new_id.to_string(), Value::Object(old));
                }
            }
        }
        if let Some(Value::Array(list)) = self.doc.get_mut("enabled") {
            list.retain(|v| v.as_str() != Some(old_id));
        }
        if was_enabled && !self.is_enabled(new_id) {
            self.set_enabled(new_id, true);
        }
        true
    }

    /// Every id that is enabled, sorted.
    pub fn enabled_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .doc
            .get("extensions")
            .and_then(Value::as_object)
            .map(|e| e.keys().filter(|id| self.is_enabled(id)).cloned().collect())
            .unwrap_or_default();
        if let Some(list) = self.doc.get("enabled").and_then(Value::as_array) {
            ids.extend(
                list.iter()
                    .filter_map(Value::as_str)
                    .filter(|id| self.is_enabled(id))
                    .map(str::to_string),
            );
        }
        ids.sort();
        ids.dedup();
        ids
    }

    /// Writes the file with `enabled` re-derived. The caller holds the runtime home's lock.
    pub fn save(&mut self) -> Result<(), JsonError> {
        let enabled: Vec<Value> = self.enabled_ids().into_iter().map(Value::from).collect();
        self.doc.insert("enabled".into(), Value::Array(enabled));
        self.doc
            .entry("extensions")
            .or_insert_with(|| Value::Object(Map::new()));
        self.doc.entry("autoUpdate").or_insert(Value::Bool(false));
        write_json(&self.path, &Value::Object(self.doc.clone()))
    }
}

/// Takes the runtime home's lock and reads `extensions.json` under it.
pub fn lock(homes: &Homes, lock_timeout: Duration) -> Result<(DirLock, EnabledState), Error> {
    let what = homes.extensions_json().display().to_string();
    let lock = DirLock::acquire(&homes.runtime, &what, lock_timeout)?;
    let state = EnabledState::load(&homes.extensions_json())?;
    Ok((lock, state))
}

/// One id whose enabled state `change` set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnabledChange {
    pub id: String,
    pub enabled: bool,
    /// Whether the id is installed in either tier (enabling one that is not is allowed).
    pub installed: bool,
}

impl EnabledChange {
    /// One item of `enable --json` / `disable --json` (docs/json.md).
    pub fn to_json(&self) -> Value {
        json!({"id": self.id, "enabled": self.enabled, "installed": self.installed})
    }
}

/// Sets the enabled state of `ids` in `extensions.json` under the runtime home's lock.
pub fn change(
    homes: &Homes,
    ids: &[String],
    enabled: bool,
    lock_timeout: Duration,
) -> Result<Vec<EnabledChange>, Error> {
    let installed: Vec<bool> = ids
        .iter()
        .map(|id| super::tier::is_installed(homes, id))
        .collect();
    let (_lock, mut state) = lock(homes, lock_timeout)?;
    for id in ids {
        state.set_enabled(id, enabled);
    }
    state.save()?;
    Ok(ids
        .iter()
        .zip(installed)
        .map(|(id, installed)| EnabledChange {
            id: id.clone(),
            enabled,
            installed,
        })
        .collect())
}

/// Moves entries of a legacy `plugins` map into `extensions` (existing entries win, missing keys
/// are filled) and removes `plugins`.
fn fold_legacy_plugins(doc: &mut Map<String, Value>) {
    let Some(Value::Object(plugins)) = doc.shift_remove("plugins") else {
        return;
    };
    let extensions = doc
        .entry("extensions")
        .or_insert_with(|| Value::Object(Map::new()));
    if !extensions.is_object() {
        *extensions = Value::Object(Map::new());
    }
    let Value::Object(ext) = extensions else {
        return;
    };
    for (id, legacy) in plugins {
        match (ext.get_mut(&id), legacy) {
            (Some(Value::Object(current)), Value::Object(old)) => {
                for (k, v) in old {
                    current.entry(k).or_insert(v);
                }
            }
            (Some(_), _) => {}
            (None, legacy) => {
                ext.insert(id, legacy);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn state(text: &str) -> (tempfile::TempDir, EnabledState) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("extensions.json");
        std::fs::write(&path, text).unwrap();
        let s = EnabledState::load(&path).unwrap();
        (dir, s)
    }

    fn saved(dir: &tempfile::TempDir) -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("extensions.json")).unwrap())
            .unwrap()
    }

    #[test]
    fn enabling_keeps_other_keys_and_sorts() {
        let (dir, mut s) = state(
            r#"{"enabled":["zeta"],"extensions":{"zeta":{"enabled":true,"grantedPermissions":["network"]}},"autoUpdate":true,"theme":"x"}"#,
        );
        s.set_enabled("alpha", true);
        s.save().unwrap();
        assert_eq!(
            saved(&dir),
            json!({"enabled":["alpha","zeta"],"extensions":{"zeta":{"enabled":true,"grantedPermissions":["network"]},"alpha":{"enabled":true}},"autoUpdate":true,"theme":"x"})
        );
    }

    #[test]
    fn legacy_plugins_are_folded_in_and_dropped() {
        let (dir, mut s) = state(
            r#"{"plugins":{"old":{"enabled":true,"note":1},"both":{"enabled":true,"extra":2}},"extensions":{"both":{"enabled":false}}}"#,
        );
        assert!(s.is_enabled("old"));
        assert!(!s.is_enabled("both"));
        s.save().unwrap();
        assert_eq!(
            saved(&dir),
            json!({"extensions":{"both":{"enabled":false,"extra":2},"old":{"enabled":true,"note":1}},"enabled":["old"],"autoUpdate":false})
        );
    }

    #[test]
    fn disabling_an_id_only_in_the_list() {
        let (dir, mut s) = state(r#"{"enabled":["a","b"]}"#);
        assert!(s.is_enabled("a"));
        s.set_enabled("a", false);
        s.save().unwrap();
        assert_eq!(saved(&dir)["enabled"], json!(["b"]));
        assert_eq!(saved(&dir)["extensions"]["a"], json!({"enabled": false}));
    }
}
