//! The audit log of finch's proxy (issue 42): one JSON line per connection attempt — when,
//! who (`proxy::Principal::log_name`), `host:port`, the verdict and a detail (the address
//! connected to, or why not) — in `<runtime home>/logs/network.log`. At `ROTATE_AT` bytes the
//! file is renamed to `network.log.1` (the one before is dropped), so the log holds between
//! one and two files' worth. `finch sandbox log` reads both.
//!
//! Lines are appended whole with one `write` (`O_APPEND`), so the proxies of several finch
//! processes interleave lines, never bytes; a line that does not parse is skipped on reading.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};

/// Size at which the log is rotated.
pub const ROTATE_AT: u64 = 1024 * 1024;

/// What became of one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Listed (or allowed by a person), connected.
    Allowed,
    /// Not listed: refused.
    Refused,
    /// Listed, but it resolved only to addresses (loopback, private) no entry names.
    RefusedAddress,
    /// Listed, but it could not be resolved or connected to.
    Failed,
}

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub time: DateTime<Utc>,
    pub principal: String,
    pub target: String,
    pub verdict: Verdict,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The log file of a runtime home.
pub fn path(runtime: &Path) -> PathBuf {
    runtime.join("logs").join("network.log")
}

/// Appends to a runtime home's log.
pub struct AuditLog {
    path: PathBuf,
    /// One writer at a time in this process, so a rotation is not raced by its own threads.
    lock: Mutex<()>,
}

impl AuditLog {
    pub fn new(runtime: &Path) -> AuditLog {
        AuditLog {
            path: path(runtime),
            lock: Mutex::new(()),
        }
    }

    /// Appends one line; a log that cannot be written loses the line, never the connection.
    pub fn record(&self, principal: &str, target: &str, verdict: Verdict, detail: Option<String>) {
        let entry = Entry {
            time: Utc::now(),
            principal: principal.to_string(),
            target: target.to_string(),
            verdict,
            detail,
        };
        let Ok(mut line) = serde_json::to_vec(&entry) else {
            return;
        };
        line.push(b'\n');
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(dir) = self.path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if std::fs::metadata(&self.path).is_ok_and(|m| m.len() >= ROTATE_AT) {
            let _ = std::fs::rename(&self.path, rotated(&self.path));
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path);
        if let Ok(mut file) = file {
            let _ = file.write_all(&line);
        }
    }
}

fn rotated(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".1");
    PathBuf::from(name)
}

/// The entries of a runtime home's log, oldest first, of `principal` (all when `None`) at or
/// after `since`.
pub fn read(runtime: &Path, principal: Option<&str>, since: Option<DateTime<Utc>>) -> Vec<Entry> {
    let current = path(runtime);
    [rotated(&current), current]
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .flat_map(|text| {
            text.lines()
                .filter_map(|l| serde_json::from_str::<Entry>(l).ok())
                .collect::<Vec<_>>()
        })
        .filter(|e| principal.is_none_or(|p| e.principal == p))
        .filter(|e| since.is_none_or(|s| e.time >= s))
        .collect()
}

/// One entry as a line for a person: `2026-12-03T19:00:00Z finch-x api.example.com:443 allowed (1.2.3.4)`.
pub fn describe(entry: &Entry) -> String {
    let verdict = match entry.verdict {
        Verdict::Allowed => "allowed",
        Verdict::Refused => "refused",
        Verdict::RefusedAddress => "refused-address",
        Verdict::Failed => "failed",
    };
    let mut line = format!(
        "{} {} {} {verdict}",
        entry.time.to_rfc3339_opts(SecondsFormat::Secs, true),
        entry.principal,
        entry.target
    );
    if let Some(detail) = &entry.detail {
        line.push_str(&format!(" ({detail})"));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_appended_read_back_filtered_and_rotated() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path());
        log.record(
            "a",
            "x.example:443",
            Verdict::Allowed,
            Some("1.2.3.4".into()),
        );
        log.record("b", "y.example:80", Verdict::Refused, None);
        let all = read(dir.path(), None, None);
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].verdict, Verdict::Allowed);
        assert_eq!(read(dir.path(), Some("b"), None)[0].target, "y.example:80");
        let later = Utc::now() + chrono::Duration::hours(1);
        assert!(read(dir.path(), None, Some(later)).is_empty());
        // Past the size, the file becomes `.1` and a new one starts; both are read.
        let big = "z".repeat(ROTATE_AT as usize);
        std::fs::write(path(dir.path()), format!("{big}\n")).unwrap();
        log.record("c", "z.example:443", Verdict::Failed, None);
        assert!(rotated(&path(dir.path())).exists());
        let after = read(dir.path(), None, None);
        assert_eq!(after.len(), 1, "the junk line is skipped: {after:?}");
        assert_eq!(after[0].principal, "c");
        assert!(describe(&after[0]).ends_with("c z.example:443 failed"));
    }
}
