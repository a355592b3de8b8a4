//! Run history, `<runtime>/automation/runs/<task-id>.jsonl`: one JSON object per finished run,
//! appended under the runs directory's lock with a single write and an fsync, always on a line
//! of its own (a newline first when the file ends in a torn line). Appending (rather
//! than rewriting the file through a temp file, as other state files are) keeps a run's cost
//! independent of the history's length; a reader that meets a line it cannot parse — a torn last
//! line after a power cut, an entry written by something else — skips it and says so. History
//! outlives its task: `delete` keeps the file. Next to the histories, `.last-runs.json` caches each
//! task's last run for `list`, checked against the history file's length before it is trusted.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Write;
#[cfg(not(unix))]
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ScheduleError;
use crate::homes::Homes;
use crate::store::DirLock;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunStatus {
    Succeeded,
    Failed,
    /// Another run of the same task was still going, so this one did not start.
    SkippedOverlap,
    /// The agent ran past the time limit and was stopped.
    TimedOut,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Succeeded => "succeeded",
            RunStatus::Failed => "failed",
            RunStatus::SkippedOverlap => "skipped-overlap",
            RunStatus::TimedOut => "timed-out",
        }
    }
}

/// What started a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trigger {
    /// The daemon, at a fire time.
    Schedule,
    /// `finch schedule run` (or the `Schedule` tool).
    Manual,
}

/// One line of a history file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRecord {
    pub run_id: String,
    pub task_id: String,
    #[serde(default)]
    pub task_name: String,
    pub trigger: Trigger,
    /// The fire time this run was for; `null` for a manual run.
    pub scheduled_for: Option<String>,
    pub started_at: String,
    pub finished_at: String,
    pub status: RunStatus,
    /// The agent's exit code; `null` when it did not start or was ended by a signal.
    pub exit_code: Option<i32>,
    /// The signal that ended the agent, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    pub session_id: Option<String>,
    /// The directory the agent ran in.
    pub directory: Option<String>,
    pub duration_ms: u64,
    /// The last 64 KiB of the agent's combined stdout and stderr.
    pub output_tail: String,
    /// Why the run failed or was skipped, when that is not just an exit code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Keys finch does not know, kept for display.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn history_file(homes: &Homes, task_id: &str) -> PathBuf {
    homes.runs_dir().join(format!("{task_id}.jsonl"))
}

/// Appends one record to its task's history.
pub fn append(
    homes: &Homes,
    record: &RunRecord,
    lock_timeout: Duration,
) -> Result<(), ScheduleError> {
    let dir = homes.runs_dir();
    let path = history_file(homes, &record.task_id);
    let _lock = DirLock::acquire(&dir, &dir.display().to_string(), lock_timeout)?;
    let io = |source| ScheduleError::Io {
        action: "append to",
        path: path.clone(),
        source,
    };
    // Serializing a record cannot fail: it holds only strings, numbers and maps of values.
    let mut line = serde_json::to_string(record).unwrap_or_default();
    line.push('\n');
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(&path)
        .map_err(io)?;
    // A record always starts on a line of its own: after a torn last line (a crash or power cut
    // mid-write) it would otherwise become part of that line and be lost with it.
    let len = file.metadata().map_err(io)?.len();
    if len > 0 && read_range(&file, len - 1, 1).map_err(io)? != b"\n" {
        line.insert(0, '\n');
    }
    file.write_all(line.as_bytes()).map_err(io)?;
    file.sync_data().map_err(io)?;
    // The cache is a shortcut for `list`; a failure to update it only makes `list` read the file.
    if let Ok(meta) = file.metadata() {
        let last = LastRun {
            run_id: record.run_id.clone(),
            status: record.status,
            started_at: record.started_at.clone(),
            finished_at: record.finished_at.clone(),
            exit_code: record.exit_code,
            history_bytes: Some(meta.len()),
        };
        let _ = update_cache(&dir, &record.task_id, &last);
    }
    Ok(())
}

/// `<runtime>/automation/runs/.last-runs.json`: each task's last run and the length its history
/// file had right after that run was appended, so that `list` can trust an entry after one
/// `stat` instead of reading every history file. Written under the runs lock after each append;
/// an entry whose length no longer matches (a crash between the two writes, a file edited by
/// hand) is ignored and the history file read instead.
const LAST_RUNS: &str = ".last-runs.json";

fn update_cache(dir: &std::path::Path, task_id: &str, last: &LastRun) -> std::io::Result<()> {
    let path = dir.join(LAST_RUNS);
    let mut cache: serde_json::Map<String, Value> = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    cache.insert(
        task_id.to_string(),
        serde_json::to_value(last).unwrap_or_default(),
    );
    let text = serde_json::to_vec(&cache).unwrap_or_default();
    crate::store::write_atomic(&path, &text)
}

/// The last run of each of `task_ids` that has one.
pub fn last_runs(homes: &Homes, task_ids: &[&str]) -> HashMap<String, LastRun> {
    let bytes = std::fs::read(homes.runs_dir().join(LAST_RUNS)).unwrap_or_default();
    // Borrowed from the file's bytes: only the entries used are copied.
    let cache: HashMap<&str, CachedRun> = serde_json::from_slice(&bytes).unwrap_or_default();
    let sizes = HistorySizes::open(&homes.runs_dir());
    let mut out = HashMap::with_capacity(task_ids.len());
    for id in task_ids {
        let Some(size) = sizes.size_of(id) else {
            continue;
        };
        let cached = cache
            .get(*id)
            .filter(|c| c.history_bytes == Some(size))
            .map(CachedRun::to_last_run);
        if let Some(last) = cached.or_else(|| last(homes, id)) {
            out.insert(id.to_string(), last);
        }
    }
    out
}

/// An entry of the last-run cache, borrowed from the file's bytes.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CachedRun<'a> {
    #[serde(borrow)]
    run_id: Cow<'a, str>,
    status: RunStatus,
    #[serde(borrow)]
    started_at: Cow<'a, str>,
    #[serde(borrow)]
    finished_at: Cow<'a, str>,
    exit_code: Option<i32>,
    history_bytes: Option<u64>,
}

impl CachedRun<'_> {
    fn to_last_run(&self) -> LastRun {
        LastRun {
            run_id: self.run_id.to_string(),
            status: self.status,
            started_at: self.started_at.to_string(),
            finished_at: self.finished_at.to_string(),
            exit_code: self.exit_code,
            history_bytes: self.history_bytes,
        }
    }
}

/// The lengths of history files, looked up relative to the open runs directory: one short
/// `fstatat` per task instead of a walk down the whole path.
struct HistorySizes {
    #[cfg(not(unix))]
    dir: PathBuf,
    #[cfg(unix)]
    handle: Option<std::fs::File>,
}

impl HistorySizes {
    fn open(dir: &std::path::Path) -> HistorySizes {
        HistorySizes {
            #[cfg(not(unix))]
            dir: dir.to_path_buf(),
            #[cfg(unix)]
            handle: std::fs::File::open(dir).ok(),
        }
    }

    #[cfg(unix)]
    fn size_of(&self, task_id: &str) -> Option<u64> {
        use std::os::fd::AsRawFd;
        let handle = self.handle.as_ref()?;
        let name = std::ffi::CString::new(format!("{task_id}.jsonl")).ok()?;
        // SAFETY: fstatat fills a plain struct we own; the name is a valid C string and the
        // descriptor stays open for the call.
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        let ok = unsafe { libc::fstatat(handle.as_raw_fd(), name.as_ptr(), &mut stat, 0) } == 0;
        (ok && (stat.st_mode & libc::S_IFMT) == libc::S_IFREG).then_some(stat.st_size as u64)
    }

    #[cfg(not(unix))]
    fn size_of(&self, task_id: &str) -> Option<u64> {
        let meta = std::fs::metadata(self.dir.join(format!("{task_id}.jsonl"))).ok()?;
        meta.is_file().then_some(meta.len())
    }
}

/// Runs read from history, newest first, and the lines that could not be read.
#[derive(Debug, Default)]
pub struct History {
    pub runs: Vec<RunRecord>,
    pub problems: Vec<String>,
}

/// The newest `limit` runs of one task, or of every task when `task_id` is `None`.
pub fn read(homes: &Homes, task_id: Option<&str>, limit: usize) -> Result<History, ScheduleError> {
    let dir = homes.runs_dir();
    let files: Vec<PathBuf> = match task_id {
        Some(id) => vec![history_file(homes, id)],
        None => match std::fs::read_dir(&dir) {
            Ok(read) => read
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                .collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(source) => {
                return Err(ScheduleError::Io {
                    action: "read",
                    path: dir,
                    source,
                });
            }
        },
    };
    let mut history = History::default();
    for path in files {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => {
                return Err(ScheduleError::Io {
                    action: "read",
                    path,
                    source,
                });
            }
        };
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<RunRecord>(line) {
                Ok(r) => history.runs.push(r),
                Err(e) => history.problems.push(format!(
                    "{}:{}: skipped a line that is not a run record ({e})",
                    path.display(),
                    n + 1
                )),
            }
        }
    }
    history.runs.sort_by(|a, b| {
        (b.started_at.as_str(), b.run_id.as_str()).cmp(&(a.started_at.as_str(), a.run_id.as_str()))
    });
    history.runs.truncate(limit);
    Ok(history)
}

/// Whether a task has a history file (it may have outlived the task).
pub fn exists(homes: &Homes, task_id: &str) -> bool {
    history_file(homes, task_id).is_file()
}

/// The outcome of a task's last run, as `list` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LastRun {
    pub run_id: String,
    pub status: RunStatus,
    pub started_at: String,
    pub finished_at: String,
    pub exit_code: Option<i32>,
    /// In the cache only: the history file's length after this run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_bytes: Option<u64>,
}

/// The last run of a task, read from the end of its history file so that a long history costs
/// no more than a short one.
pub fn last(homes: &Homes, task_id: &str) -> Option<LastRun> {
    let file = std::fs::File::open(history_file(homes, task_id)).ok()?;
    let len = file.metadata().ok()?.len();
    // Most records are well under 4 KiB; one with a full 64 KiB output tail takes a second read.
    let mut window: u64 = 4 * 1024;
    loop {
        let start = len.saturating_sub(window);
        let bytes = read_range(&file, start, (len - start) as usize).ok()?;
        // Lines after the first newline of the window are whole (the first may be cut).
        let whole = if start == 0 {
            &bytes[..]
        } else {
            match bytes.iter().position(|b| *b == b'\n') {
                Some(i) => &bytes[i + 1..],
                None => &[][..],
            }
        };
        let found = whole
            .split(|b| *b == b'\n')
            .rev()
            .find_map(|line| serde_json::from_slice::<LastRun>(line).ok());
        if found.is_some() || start == 0 {
            return found;
        }
        window *= 8;
    }
}

/// `len` bytes of `file` from `start`, in one read where the platform allows.
fn read_range(file: &std::fs::File, start: u64, len: usize) -> std::io::Result<Vec<u8>> {
    let mut bytes = vec![0u8; len];
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, &mut bytes, start)?;
    }
    #[cfg(not(unix))]
    {
        let mut file = file;
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut bytes)?;
    }
    Ok(bytes)
}

/// How much output a run record keeps.
pub const TAIL_BYTES: usize = 64 * 1024;

/// The history file of a task, for messages.
pub fn path_of(homes: &Homes, task_id: &str) -> PathBuf {
    history_file(homes, task_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(task: &str, run: &str, started: &str) -> RunRecord {
        RunRecord {
            run_id: run.into(),
            task_id: task.into(),
            task_name: "n".into(),
            trigger: Trigger::Manual,
            scheduled_for: None,
            started_at: started.into(),
            finished_at: started.into(),
            status: RunStatus::Succeeded,
            exit_code: Some(0),
            signal: None,
            session_id: None,
            directory: None,
            duration_ms: 1,
            // Longer than the first window `last` reads.
            output_tail: "x".repeat(6000),
            note: None,
            extra: Map::new(),
        }
    }

    #[test]
    fn append_read_and_last_skip_torn_lines() {
        let dir = tempfile::tempdir().unwrap();
        let homes = Homes {
            runtime: dir.path().to_path_buf(),
            agent: dir.path().join("agent"),
            agent_source: crate::homes::AgentHomeSource::Flag,
        };
        let second = Duration::from_secs(1);
        assert_eq!(last(&homes, "t-1"), None);
        for i in 0..50 {
            let started = format!("2026-01-01T00:{:02}:{:02}.000Z", i / 60, i % 60);
            append(
                &homes,
                &record("t-1", &format!("r-{i:04}"), &started),
                second,
            )
            .unwrap();
        }
        append(
            &homes,
            &record("t-2", "r-b", "2026-01-02T00:00:00.000Z"),
            second,
        )
        .unwrap();
        // A torn last line, as a power cut would leave it.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(path_of(&homes, "t-1"))
            .unwrap();
        f.write_all(br#"{"runId":"r-torn","task"#).unwrap();
        assert_eq!(last(&homes, "t-1").unwrap().run_id, "r-0049");
        // The next record starts on a new line instead of being swallowed by the torn one.
        append(
            &homes,
            &record("t-1", "r-0050", "2026-01-01T00:00:50.000Z"),
            second,
        )
        .unwrap();
        assert_eq!(last(&homes, "t-1").unwrap().run_id, "r-0050");
        let all = read(&homes, None, 3).unwrap();
        let ids: Vec<&str> = all.runs.iter().map(|r| r.run_id.as_str()).collect();
        assert_eq!(ids, ["r-b", "r-0050", "r-0049"]);
        assert_eq!(all.problems.len(), 1, "{:?}", all.problems);
        assert!(
            all.problems[0].contains("t-1.jsonl:51"),
            "{:?}",
            all.problems
        );
        assert_eq!(read(&homes, Some("t-2"), 10).unwrap().runs.len(), 1);

        // `last_runs` takes both from the cache; t-3 has no history.
        let cached = last_runs(&homes, &["t-1", "t-2", "t-3"]);
        assert_eq!(cached.len(), 2);
        assert_eq!(cached["t-1"].run_id, "r-0050");
        assert_eq!(cached["t-2"].run_id, "r-b");
        assert_eq!(
            cached["t-2"].history_bytes,
            Some(std::fs::metadata(path_of(&homes, "t-2")).unwrap().len())
        );
        // A stale entry is not trusted.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(path_of(&homes, "t-2"))
            .unwrap();
        let mut newer = record("t-2", "r-c", "2026-01-03T00:00:00.000Z");
        newer.status = RunStatus::Failed;
        writeln!(f, "{}", serde_json::to_string(&newer).unwrap()).unwrap();
        let fresh = last_runs(&homes, &["t-2"]);
        assert_eq!(
            (fresh["t-2"].run_id.as_str(), fresh["t-2"].status),
            ("r-c", RunStatus::Failed)
        );
        assert!(read(&homes, Some("t-3"), 10).unwrap().runs.is_empty());
    }
}
