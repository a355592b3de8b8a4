//! Deleting old daily logs, only when asked (`memory prune --older-than D`): finch never deletes
//! memory on its own, whatever the app's retention setting says.

use std::time::Duration;

use chrono::NaiveDateTime;

use super::files::{daily_date, select};
use super::{MemoryError, MemoryFile, MemoryHome, Scope, Selection};
use crate::store::DirLock;

/// The daily logs older than `older_than`: those dated before the local date `older_than` before
/// `now` (with `30d` on 2026-11-29 at any hour, the logs of 2026-10-29 and earlier).
pub fn prune_candidates(
    home: &MemoryHome,
    older_than: Duration,
    now: NaiveDateTime,
) -> Result<Vec<MemoryFile>, MemoryError> {
    let age = chrono::Duration::from_std(older_than).unwrap_or(chrono::Duration::MAX);
    let Some(cutoff) = now.checked_sub_signed(age).map(|t| t.date()) else {
        return Ok(Vec::new());
    };
    let Some(until) = cutoff.pred_opt() else {
        return Ok(Vec::new());
    };
    let selection = Selection {
        scope: Scope::Daily,
        until: Some(until),
        ..Selection::default()
    };
    Ok(select(home, &selection)?
        .into_iter()
        .map(|s| (*s.file).clone())
        .collect())
}

/// Deletes the given daily logs under the lock of the memory directory and returns those it
/// deleted (a log already gone is not an error). Anything that is not a daily log is refused.
pub fn prune(home: &MemoryHome, logs: &[MemoryFile]) -> Result<Vec<MemoryFile>, MemoryError> {
    if logs.is_empty() {
        return Ok(Vec::new());
    }
    let dir = home.memory_dir();
    let _lock = DirLock::acquire(&dir, &dir.display().to_string(), home.lock_timeout)?;
    let mut deleted = Vec::new();
    for log in logs {
        let stem = log.path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        if !log.kind.is_daily()
            || log.path.parent() != Some(dir.as_path())
            || daily_date(stem).is_none()
        {
            return Err(MemoryError::BadFile(log.name.clone()));
        }
        match std::fs::remove_file(&log.path) {
            Ok(()) => deleted.push(log.clone()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(MemoryError::io("delete", &log.path, e)),
        }
    }
    crate::store::fsync_dir(&dir).map_err(|e| MemoryError::io("sync", &dir, e))?;
    Ok(deleted)
}
