//! What a daemon does at start-up about the daemon before it: end the runs it left behind (their
//! agents hold their task's lock, which outlives the daemon that took it) and record them, and
//! know when the previous daemon was last alive (`<runtime>/automation/daemon-state.json`,
//! `lastSeen`), so that fire times missed while no daemon ran are reported once.
//!
//! A left-behind run is *ended*, not waited for: its output went to the dead daemon, so nobody
//! would read its outcome, and its agent may run for up to its time limit while the task's next
//! runs are skipped. It gets SIGTERM to its process group, SIGKILL after the runner's grace
//! period, and then every process still holding the task lock is killed (Linux; children that
//! `setsid` away). The run is recorded as `failed` with a note saying what happened.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::history::{self, RunRecord, RunStatus};
use super::procs::{self, RunLock};
use super::runner::{Runner, Signal, signal_group};
use super::tasks::timestamp;
use crate::store::{PidLock, TryLock};

fn locks_dir(runner: &Runner) -> PathBuf {
    runner.homes.runtime.join("automation").join("locks")
}

/// Ends the runs whose starter died and records each; a run still watched by a live
/// `finch schedule run` is left alone. Returns the records written, or why one could not be.
pub fn end_orphans(runner: &Runner) -> Vec<Result<RunRecord, String>> {
    let Ok(read) = std::fs::read_dir(locks_dir(runner)) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = read
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "lock"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        if let Some(result) = end_orphan(runner, &path) {
            out.push(result);
        }
    }
    out
}

fn end_orphan(runner: &Runner, path: &Path) -> Option<Result<RunRecord, String>> {
    match PidLock::try_acquire(path) {
        Ok(_) | Err(TryLock::Io(_)) => return None,
        Err(TryLock::Held { .. }) => {}
    }
    let run = RunLock::read(path)?;
    if run.pid != std::process::id() && procs::alive(run.pid) {
        return None;
    }
    signal_group(run.agent_pid, Signal::Term);
    let mut lock = wait_free(path, runner.kill_grace);
    let mut how = "SIGTERM";
    if lock.is_none() {
        signal_group(run.agent_pid, Signal::Kill);
        how = "SIGKILL";
        lock = wait_free(path, Duration::from_secs(2));
    }
    if lock.is_none()
        && let Ok(file) = std::fs::File::open(path)
        && let Some(id) = file_id(&file)
    {
        drop(file);
        procs::kill_holders(id, true);
        lock = wait_free(path, Duration::from_secs(2));
    }
    let Some(lock) = lock else {
        return Some(Err(format!(
            "run {} of {} (pid {}) still holds {} after SIGKILL",
            run.run_id,
            run.task_id,
            run.agent_pid,
            path.display()
        )));
    };
    let now = (runner.clock)();
    let duration_ms = DateTime::parse_from_rfc3339(&run.started_at)
        .map(|s| (now - s.with_timezone(&Utc)).num_milliseconds().max(0) as u64)
        .unwrap_or(0);
    let record = RunRecord {
        run_id: run.run_id,
        task_id: run.task_id,
        task_name: run.task_name,
        trigger: run.trigger,
        scheduled_for: run.scheduled_for,
        started_at: run.started_at,
        finished_at: timestamp(now),
        status: RunStatus::Failed,
        exit_code: None,
        signal: None,
        session_id: run.session_id,
        directory: run.directory,
        duration_ms,
        output_tail: String::new(),
        note: Some(format!(
            "ended with {how} when the schedule daemon started again: the finch that started it (pid {}) had died; its output was lost",
            run.pid
        )),
        extra: Map::new(),
    };
    let written = history::append(&runner.homes, &record, runner.lock_timeout)
        .map(|()| record)
        .map_err(|e| e.to_string());
    drop(lock);
    Some(written)
}

#[cfg(unix)]
fn file_id(file: &std::fs::File) -> Option<(u64, u64)> {
    procs::file_id(file)
}

#[cfg(not(unix))]
fn file_id(_file: &std::fs::File) -> Option<(u64, u64)> {
    None
}

/// Takes the lock at `path` as soon as it is free, waiting at most `limit`.
fn wait_free(path: &Path, limit: Duration) -> Option<PidLock> {
    let until = Instant::now() + limit;
    loop {
        match PidLock::try_acquire(path) {
            Ok(lock) => return Some(lock),
            Err(TryLock::Io(_)) => return None,
            Err(TryLock::Held { .. }) if Instant::now() >= until => return None,
            Err(TryLock::Held { .. }) => std::thread::sleep(Duration::from_millis(25)),
        }
    }
}

fn state_path(runner: &Runner) -> PathBuf {
    runner
        .homes
        .runtime
        .join("automation")
        .join("daemon-state.json")
}

/// When a daemon was last known to be running (`None` when none ever ran here).
pub fn last_seen(runner: &Runner) -> Option<DateTime<Utc>> {
    let state = crate::store::read_json_object(&state_path(runner)).ok()??;
    let text = state.get("lastSeen")?.as_str()?;
    Some(DateTime::parse_from_rfc3339(text).ok()?.with_timezone(&Utc))
}

/// Records that the daemon is running at `now` (keys finch does not know are kept). Only the
/// daemon, which holds the daemon lock, writes this file.
pub fn save_last_seen(runner: &Runner, now: DateTime<Utc>) -> std::io::Result<()> {
    let path = state_path(runner);
    let mut state = crate::store::read_json_object(&path)
        .ok()
        .flatten()
        .unwrap_or_default();
    state.insert("lastSeen".into(), Value::String(timestamp(now)));
    crate::store::write_json(&path, &Value::Object(state)).map_err(std::io::Error::other)
}
