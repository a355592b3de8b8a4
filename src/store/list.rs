//! A list kept under one key of a JSON object file in a state directory (the trust files:
//! `{"rules": […]}`, `{"servers": […]}`): changed under the directory's lock, checked before it
//! is touched, written atomically and only when the change says it changed something, every
//! other key kept.

use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value};

use super::{DirLock, JsonError, LockError, read_json_object, write_json};

/// Whether what a change's closure answered means the file must be written.
pub trait Changes {
    fn changed(&self) -> bool;
}

impl Changes for bool {
    fn changed(&self) -> bool {
        *self
    }
}

/// Locks `dir`, reads `file` (missing: empty), lets `check` refuse what is there, hands the
/// list under `key` to `change`, and writes the file back when `change` changed something.
pub fn change_list<T: Changes, E: From<JsonError> + From<LockError>>(
    dir: &Path,
    file: &Path,
    key: &str,
    lock_timeout: Duration,
    check: impl FnOnce(&Map<String, Value>) -> Result<(), E>,
    change: impl FnOnce(&mut Vec<Value>) -> T,
) -> Result<T, E> {
    std::fs::create_dir_all(dir).map_err(|source| JsonError::Write {
        path: dir.to_path_buf(),
        source,
    })?;
    let _lock = DirLock::acquire(dir, &file.display().to_string(), lock_timeout)?;
    let mut doc = read_json_object(file)?.unwrap_or_default();
    check(&doc)?;
    let mut items = match doc.remove(key) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    };
    let result = change(&mut items);
    doc.insert(key.into(), Value::Array(items));
    if result.changed() {
        write_json(file, &Value::Object(doc))?;
    }
    Ok(result)
}
