//! Scheduled tasks (SPEC §6): the task file `<runtime>/automation/tasks.json`, the run history
//! `<runtime>/automation/runs/<task-id>.jsonl`, running a task through the configured agent
//! command, and the daemon that fires due tasks. Shared by `finch schedule` and the host's
//! `Schedule` dispatcher tool, so nothing here prints, parses a command line or reads a clock:
//! "now" is always a parameter.

pub mod daemon;
pub mod history;
pub mod pi;
pub mod procs;
pub mod recover;
pub mod report;
pub mod runner;
pub mod signals;
pub mod tasks;
pub mod timing;
pub mod zone;

pub use timing::{ClockTime, FieldError, Schedule};

use std::path::PathBuf;

use crate::store::{JsonError, LockError};

/// What can go wrong in scheduling, typed so the CLI and the `Schedule` tool can each say it
/// their way.
#[derive(Debug, thiserror::Error)]
pub enum ScheduleError {
    /// A field of the task is not valid; nothing was written.
    #[error("{0}")]
    Invalid(#[from] FieldError),
    #[error("no task with the id or name \"{0}\"")]
    UnknownTask(String),
    /// Several tasks answer to what was given (a name, the beginning of ids): `(id, name)`.
    #[error("\"{query}\" matches {} tasks", candidates.len())]
    AmbiguousTask {
        query: String,
        candidates: Vec<(String, String)>,
    },
    #[error("task \"{id}\" cannot be read from tasks.json: {reason}")]
    BrokenTask { id: String, reason: String },
    #[error("no space with the id or name \"{0}\"")]
    UnknownSpace(String),
    #[error("no such directory: {}", .0.display())]
    MissingDir(PathBuf),
    #[error("{} is not a task file: {reason}", path.display())]
    BadFile { path: PathBuf, reason: String },
    #[error(transparent)]
    Json(#[from] JsonError),
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error(transparent)]
    Space(#[from] crate::space::SpaceError),
    #[error("another schedule daemon is running (pid {})", pid.map_or_else(|| "unknown".to_string(), |p| p.to_string()))]
    DaemonRunning { pid: Option<u32>, path: PathBuf },
    #[error("no agent command is configured: set `[agent] command` in {}", path.display())]
    NoAgent { path: PathBuf },
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}
