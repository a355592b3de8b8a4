//! `ctx.storage` of a mini tool: a JSON object in `<runtime>/extension-data/<id>/storage.json`
//! (SPEC §1). Reads parse the file as it is (writes are atomic, so a reader never sees half of
//! one); every change takes the directory's lock, reads, changes, and writes a temp file that
//! replaces the old one. Keys the change does not touch are kept byte for byte in meaning (the
//! app may store its own). A corrupt file is an error naming it; it is never replaced.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

use crate::store::{DirLock, read_json_object, write_json};

pub(crate) const STORAGE_FILE: &str = "storage.json";

/// The storage of one mini tool.
#[derive(Debug, Clone)]
pub(crate) struct Storage {
    pub dir: PathBuf,
    pub id: String,
    pub lock_timeout: Duration,
}

impl Storage {
    pub fn file(&self) -> PathBuf {
        self.dir.join(STORAGE_FILE)
    }

    fn read(&self) -> Result<Map<String, Value>, String> {
        read_json_object(&self.file())
            .map(Option::unwrap_or_default)
            .map_err(|e| {
                format!("{e} (fix or delete the file; finch never replaces a corrupt storage file)")
            })
    }

    pub fn get(&self, key: &str) -> Result<Option<Value>, String> {
        Ok(self.read()?.get(key).cloned())
    }

    pub fn keys(&self) -> Result<Vec<String>, String> {
        Ok(self.read()?.keys().cloned().collect())
    }

    pub fn set(&self, key: &str, value: Value) -> Result<(), String> {
        self.change(|map| {
            map.insert(key.to_string(), value);
            true
        })
        .map(|_| ())
    }

    /// Removes a key; whether it was there.
    pub fn delete(&self, key: &str) -> Result<bool, String> {
        self.change(|map| map.shift_remove(key).is_some())
    }

    pub fn clear(&self) -> Result<(), String> {
        self.change(|map| {
            let had = !map.is_empty();
            map.clear();
            had
        })
        .map(|_| ())
    }

    /// Lock, read, change, write (only when `change` says something changed).
    fn change(&self, change: impl FnOnce(&mut Map<String, Value>) -> bool) -> Result<bool, String> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        let what = format!("the storage of mini tool \"{}\"", self.id);
        let _lock =
            DirLock::acquire(&self.dir, &what, self.lock_timeout).map_err(|e| e.to_string())?;
        let mut map = self.read()?;
        let changed = change(&mut map);
        if changed {
            write_json(&self.file(), &Value::Object(map)).map_err(|e| e.to_string())?;
        }
        Ok(changed)
    }
}

/// Creates the private directory of a mini tool (`ctx.storagePath`).
pub(crate) fn ensure_dir(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn storage(dir: &Path) -> Storage {
        Storage {
            dir: dir.join("extension-data").join("demo"),
            id: "demo".into(),
            lock_timeout: Duration::from_secs(5),
        }
    }

    #[test]
    fn changes_persist_and_keep_other_keys() {
        let dir = tempfile::tempdir().unwrap();
        let s = storage(dir.path());
        assert_eq!(s.get("a").unwrap(), None);
        assert!(s.keys().unwrap().is_empty());
        s.set("a", json!({"n": 1})).unwrap();
        s.set("b", json!([1, 2])).unwrap();
        assert_eq!(s.get("a").unwrap(), Some(json!({"n": 1})));
        assert_eq!(s.keys().unwrap(), ["a", "b"]);
        assert!(s.delete("a").unwrap());
        assert!(!s.delete("a").unwrap());
        let text = std::fs::read_to_string(s.file()).unwrap();
        assert_eq!(text, "{\n  \"b\": [\n    1,\n    2\n  ]\n}\n");
        s.clear().unwrap();
        assert_eq!(std::fs::read_to_string(s.file()).unwrap(), "{}\n");
    }

    #[test]
    fn a_corrupt_file_is_named_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let s = storage(dir.path());
        std::fs::create_dir_all(&s.dir).unwrap();
        std::fs::write(s.file(), "{oops").unwrap();
        let err = s.set("a", json!(1)).unwrap_err();
        assert!(err.contains("storage.json"), "{err}");
        assert_eq!(std::fs::read_to_string(s.file()).unwrap(), "{oops");
    }
}
