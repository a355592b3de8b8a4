//! Keeping mini tools running with nobody calling them (`finch daemon`): what each one's
//! process is doing now (`statuses`), and starting again every one that stopped, once its
//! backoff has passed (`revive`). A host that serves calls restarts a stopped mini tool on its
//! next call instead (`lifecycle::ensure_running`, which `revive` uses too); a bot mini tool
//! gets no calls, it works from `activate()` on, so the daemon must bring it back itself.
//!
//! The backoff is the runtime's (`[runtime] restart_backoff`, doubling per consecutive failure
//! up to `restart_backoff_max`); a process that stayed up longer than `restart_backoff_max`
//! has its failures forgotten, so a bot that dies once a day restarts after the first step.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::instance::{Instance, Phase};
use super::{Inner, MiniToolRuntime};

/// What a mini tool's process is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MiniToolState {
    /// Its process is up and `activate()` settled.
    Running,
    /// Its process is up and `activate()` has not settled yet.
    Starting,
    /// It stopped for a fault (or never started) and is started again after its backoff; a
    /// mini tool the kernel cannot confine and nobody agreed to run unconfined stays here.
    Failed,
    /// It was stopped on purpose (the host is ending).
    Stopped,
}

impl MiniToolState {
    pub fn as_str(self) -> &'static str {
        match self {
            MiniToolState::Running => "running",
            MiniToolState::Starting => "starting",
            MiniToolState::Failed => "failed",
            MiniToolState::Stopped => "stopped",
        }
    }
}

/// One mini tool as `statuses` sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct MiniToolStatus {
    pub id: String,
    pub state: MiniToolState,
    /// The host's pid of its process (the `node` the kernel confines), while there is one.
    pub pid: Option<u32>,
    /// Consecutive failures not yet forgotten.
    pub failures: u32,
    /// Why it last stopped or could not start.
    pub last_error: Option<String>,
    pub log: PathBuf,
}

/// What `revive` did for one mini tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Revived {
    pub id: String,
    /// `Ok(pid)` of its new process, or why it did not come back.
    pub result: Result<u32, String>,
}

impl MiniToolRuntime {
    /// Every mini tool of the run, in start order.
    pub fn statuses(&self) -> Vec<MiniToolStatus> {
        let shut = self.inner.shut.load(Ordering::SeqCst);
        self.inner
            .instances
            .iter()
            .map(|inst| status(inst, shut))
            .collect()
    }

    /// Starts again every mini tool that is down and whose backoff has passed (one at a
    /// time, on this thread: each takes at most its activation timeout), and forgets the
    /// failures of those that have been running longer than the longest backoff.
    pub fn revive(&self) -> Vec<Revived> {
        let inner = &self.inner;
        let mut revived = Vec::new();
        for inst in &inner.instances {
            if inner.shut.load(Ordering::SeqCst) {
                break;
            }
            if inst.sandbox.refusal(&inst.id).is_some() {
                continue;
            }
            if due(inner, inst) {
                let result = inner.ensure_running(inst).map(|conn| conn.pid);
                if result.is_err() {
                    note_failed_start(inst, result.as_ref().err());
                }
                revived.push(Revived {
                    id: inst.id.clone(),
                    result,
                });
            }
        }
        revived
    }
}

fn status(inst: &Arc<Instance>, shut: bool) -> MiniToolStatus {
    let st = inst.state();
    let (state, pid, last_error) = match &st.phase {
        Phase::Active(conn) if conn.is_alive() => (MiniToolState::Running, Some(conn.pid), None),
        Phase::Starting(conn) if conn.is_alive() => (MiniToolState::Starting, Some(conn.pid), None),
        Phase::Active(_) | Phase::Starting(_) => (
            MiniToolState::Failed,
            None,
            Some("its process ended".to_string()),
        ),
        Phase::Down { reason, .. } if shut => (MiniToolState::Stopped, None, Some(reason.clone())),
        Phase::Down { reason, .. } => (MiniToolState::Failed, None, Some(reason.clone())),
        Phase::Idle => match inst.sandbox.refusal(&inst.id) {
            Some(refusal) => (MiniToolState::Failed, None, Some(refusal)),
            None => (MiniToolState::Stopped, None, None),
        },
    };
    MiniToolStatus {
        id: inst.id.clone(),
        state,
        pid,
        failures: st.failures,
        last_error,
        log: inst.log.clone(),
    }
}

/// Whether `inst` should be started now; forgets the failures of a long-running one.
fn due(inner: &Inner, inst: &Instance) -> bool {
    let mut st = inst.state();
    match &st.phase {
        Phase::Active(conn) if conn.is_alive() => {
            let settled = st
                .active_at
                .is_some_and(|at| at.elapsed() > inner.settings.restart_backoff_max);
            if settled && st.failures > 0 {
                st.failures = 0;
            }
            false
        }
        Phase::Starting(conn) if conn.is_alive() => false,
        // Its reader has not cleaned up yet: `ensure_running` stops it first.
        Phase::Active(_) | Phase::Starting(_) => true,
        Phase::Down { at, .. } => at.elapsed() >= inner.backoff(st.failures),
        Phase::Idle => true,
    }
}

/// A start that failed before its process was up (no node, no log file) leaves the mini tool
/// idle: count it as a failure, so the next attempt waits for the backoff too.
fn note_failed_start(inst: &Instance, error: Option<&String>) {
    let mut st = inst.state();
    if matches!(st.phase, Phase::Idle) {
        st.phase = Phase::Down {
            reason: error.cloned().unwrap_or_default(),
            at: Instant::now(),
        };
        st.failures = st.failures.saturating_add(1);
    }
}
