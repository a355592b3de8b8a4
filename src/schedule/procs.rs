//! Processes a run leaves behind: the record of a running run kept in its task's lock file
//! (`RunLock`), finding every process that holds an open file (the run's output pipe, its task
//! lock) so that children that `setsid` away from the agent's process group can still be ended,
//! and telling whether a process is alive.
//!
//! Finding holders reads `/proc/<pid>/fd` and so works on Linux only; elsewhere it finds nothing
//! and only the agent's process group is signalled.

use serde::{Deserialize, Serialize};

use super::runner::{Signal, signal_group};

/// What a task's lock file says while a run holds it: who started the run, the agent's process
/// (group) id, and what the run's history record needs, so that the next daemon can end a run
/// whose daemon died and record it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunLock {
    /// The finch that started the run (a daemon, or `finch schedule run`).
    pub pid: u32,
    /// The agent, leader of the run's process group.
    pub agent_pid: u32,
    pub run_id: String,
    pub task_id: String,
    #[serde(default)]
    pub task_name: String,
    pub trigger: super::history::Trigger,
    pub scheduled_for: Option<String>,
    pub started_at: String,
    pub session_id: Option<String>,
    pub directory: Option<String>,
}

impl RunLock {
    /// Reads what a held task lock says; `None` for a lock taken by an older finch (a bare pid)
    /// or one whose run has not started its agent yet.
    pub fn read(path: &std::path::Path) -> Option<RunLock> {
        let text = std::fs::read_to_string(path).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// The pid a waiting run names: the agent's, else whatever the lock file says.
    pub fn holder_pid(path: &std::path::Path) -> Option<u32> {
        let text = std::fs::read_to_string(path).ok()?;
        match serde_json::from_str::<RunLock>(&text) {
            Ok(lock) => Some(lock.agent_pid),
            Err(_) => text.trim().parse().ok(),
        }
    }
}

/// The device and inode of an open file (a pipe, a lock file).
#[cfg(unix)]
pub fn file_id(fd: &impl std::os::fd::AsRawFd) -> Option<(u64, u64)> {
    // SAFETY: fstat fills a plain struct we own; the descriptor is open for the call.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::fstat(fd.as_raw_fd(), &mut stat) } == 0;
    ok.then_some((stat.st_dev as u64, stat.st_ino as u64))
}

/// Every process but this one that has the file `id` open.
#[cfg(target_os = "linux")]
pub fn holders(id: (u64, u64)) -> Vec<u32> {
    use std::os::unix::fs::MetadataExt;
    let me = std::process::id();
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for p in procs.flatten() {
        let Some(pid) = p.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(p.path().join("fd")) else {
            continue;
        };
        let holds = fds
            .flatten()
            .any(|fd| std::fs::metadata(fd.path()).is_ok_and(|m| (m.dev(), m.ino()) == id));
        if holds {
            out.push(pid);
        }
    }
    out
}

#[cfg(not(target_os = "linux"))]
pub fn holders(_id: (u64, u64)) -> Vec<u32> {
    Vec::new()
}

/// Sends SIGKILL to every process but this one that holds the file `id`, and to the process
/// group each leads; returns their pids. With `spare_finch`, processes running this finch's own
/// program are left alone (another finch may have a lock file open for a moment to try it).
pub fn kill_holders(id: (u64, u64), spare_finch: bool) -> Vec<u32> {
    let mut pids = holders(id);
    if spare_finch {
        let me = std::env::current_exe().ok();
        pids.retain(|pid| {
            let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok();
            me.is_none() || exe != me
        });
    }
    for &pid in &pids {
        kill(pid);
        signal_group(pid, Signal::Kill);
    }
    pids
}

#[cfg(unix)]
fn kill(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: kill(2) on a pid; no memory is involved.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
}

#[cfg(not(unix))]
fn kill(_pid: u32) {}

/// Whether process `pid` exists and has not exited (a zombie waiting for its parent has).
#[cfg(unix)]
pub fn alive(pid: u32) -> bool {
    let Ok(p) = i32::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists.
    if unsafe { libc::kill(p, 0) } != 0
        && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
    {
        return false;
    }
    #[cfg(target_os = "linux")]
    if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name in parentheses, which may itself hold spaces.
        let state = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next());
        return !matches!(state, Some('Z' | 'X'));
    }
    true
}

#[cfg(not(unix))]
pub fn alive(_pid: u32) -> bool {
    true
}
