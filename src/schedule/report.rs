//! How schedules reach the people and models that use them, shared by `finch schedule` and the
//! `Schedule` dispatcher tool so that both say the same: each `ScheduleError` as a
//! `CommandError` (exit code, `--json` code, hints), a task's JSON with its next runs, a run's
//! one-line outcome, and a task's schedule, place, mode and timeout given as text (`When`,
//! `TaskSettings`: what the command's flags and the tool's parameters both carry). Nothing here
//! prints.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::history::{LastRun, RunRecord, RunStatus};
use super::runner::{DEFAULT_TIMEOUT, Runner};
use super::tasks::{PermissionMode, Target, Task, TaskFile, timestamp};
use super::zone::{self, Zone};
use super::{FieldError, Schedule, ScheduleError};
use crate::config::Settings;
use crate::env::Env;
use crate::error::{CommandError, ErrorKind, Result};
use crate::homes::{Homes, absolutize};
use crate::store::LockError;

/// When a task fires, as text: at most one of these is set.
#[derive(Debug, Clone, Default)]
pub struct When {
    /// `:MM`
    pub hourly: Option<String>,
    /// `HH:MM`
    pub daily: Option<String>,
    /// `HH:MM`
    pub weekdays: Option<String>,
    /// `[DAY, HH:MM]`
    pub weekly: Option<Vec<String>>,
    pub cron: Option<String>,
    /// An ISO date-time (without an offset: in the task's time zone).
    pub once: Option<String>,
}

/// How and where a task runs, as text. When changing a task, an empty value clears an optional
/// setting.
#[derive(Debug, Clone, Default)]
pub struct TaskSettings {
    pub tz: Option<String>,
    /// A space id or name.
    pub space: Option<String>,
    pub cwd: Option<PathBuf>,
    pub model: Option<String>,
    pub effort: Option<String>,
    pub mode: Option<String>,
    pub timeout: Option<String>,
}

/// The task as `--json` shows it: the stored object plus the next fire times.
pub fn task_json(task: &Task, now: DateTime<Utc>) -> Value {
    let mut value = task.to_json();
    let next: Vec<Value> = task
        .schedule
        .upcoming(task.timezone, now, 3)
        .into_iter()
        .map(|t| timestamp(t).into())
        .collect();
    if let Value::Object(map) = &mut value {
        map.insert("nextRuns".into(), Value::Array(next));
    }
    value
}

/// A task as `list --json` shows it: the stored object plus its next run and last run.
pub fn listed_task_json(task: &Task, next: Option<DateTime<Utc>>, last: Option<&LastRun>) -> Value {
    let mut value = task.to_json();
    if let Value::Object(map) = &mut value {
        map.insert("nextRun".into(), next.map(timestamp).into());
        map.insert(
            "lastRun".into(),
            last.map_or(Value::Null, |r| {
                json!({"runId": r.run_id, "status": r.status.as_str(),
                       "startedAt": r.started_at, "finishedAt": r.finished_at,
                       "exitCode": r.exit_code})
            }),
        );
    }
    value
}

/// `succeeded (exit code 0, 1.2s)`, `timed-out (stopped after 30m …)`, …
pub fn outcome(record: &RunRecord) -> String {
    let mut parts = Vec::new();
    if let Some(code) = record.exit_code {
        parts.push(format!("exit code {code}"));
    } else if let Some(signal) = record.signal {
        parts.push(format!("signal {signal}"));
    }
    if let Some(note) = &record.note {
        parts.push(note.clone());
    }
    if record.status != RunStatus::SkippedOverlap {
        parts.push(format!("{:.1}s", record.duration_ms as f64 / 1000.0));
    }
    format!("{} ({})", record.status.as_str(), parts.join(", "))
}

/// The local time zone: `TZ`, else the system's.
pub fn local_zone_in(env: &Env) -> Zone {
    zone::local_zone(
        env.get("TZ").as_deref(),
        Path::new("/etc/localtime"),
        Path::new("/etc/timezone"),
    )
}

/// The task `query` names (its id, its name or the beginning of its id: `TaskFile::resolve_id`).
pub fn find_task<'a>(file: &'a TaskFile, query: &str) -> Result<&'a Task> {
    let id = &file.resolve_id(query).map_err(CommandError::from)?;
    if let Some(task) = file.find(id) {
        return Ok(task);
    }
    Err(CommandError::from(
        match file.broken.iter().find(|b| b.id.as_deref() == Some(id)) {
            Some(b) => ScheduleError::BrokenTask {
                id: id.to_string(),
                reason: b.reason.clone(),
            },
            None => ScheduleError::UnknownTask(id.to_string()),
        },
    ))
}

/// The id whose run history `query` asks for: a task's (`TaskFile::resolve_id`), or the whole
/// id of a deleted task whose history is kept.
pub fn history_task(file: &TaskFile, homes: &crate::homes::Homes, query: &str) -> Result<String> {
    match file.resolve_id(query) {
        Err(ScheduleError::UnknownTask(_)) if super::history::exists(homes, query) => {
            Ok(query.to_string())
        }
        found => found.map_err(CommandError::from),
    }
}

/// The schedule the flags give, if any (clap lets at most one through).
pub fn schedule_of(when: &When, tz: Zone) -> Result<Option<Schedule>> {
    let schedule = if let Some(m) = &when.hourly {
        Schedule::hourly(m)
    } else if let Some(t) = &when.daily {
        Schedule::daily(t)
    } else if let Some(t) = &when.weekdays {
        Schedule::weekdays(t)
    } else if let Some(v) = &when.weekly {
        match v.as_slice() {
            [day, at] => Schedule::weekly(day, at),
            _ => Err(FieldError::new(
                "weekly",
                &v.join(" "),
                "write --weekly DAY HH:MM",
            )),
        }
    } else if let Some(expr) = &when.cron {
        Schedule::cron(expr)
    } else if let Some(at) = &when.once {
        Schedule::once(at, tz)
    } else {
        return Ok(None);
    };
    schedule.map(Some).map_err(invalid)
}

/// `--space` (resolved to its id) or `--cwd` (made absolute against `base`; must exist). An
/// empty value means the agent home.
pub fn target_in(homes: &Homes, base: &Path, options: &TaskSettings) -> Result<Option<Target>> {
    if let Some(key) = &options.space {
        if key.is_empty() {
            return Ok(Some(Target::AgentHome));
        }
        let spaces =
            crate::space::list(homes).map_err(|e| CommandError::from(ScheduleError::Space(e)))?;
        let space = crate::space::find(&spaces, key)
            .ok_or_else(|| CommandError::from(ScheduleError::UnknownSpace(key.clone())))?;
        return Ok(Some(Target::Space(space.id.clone())));
    }
    if let Some(dir) = &options.cwd {
        if dir.as_os_str().is_empty() {
            return Ok(Some(Target::AgentHome));
        }
        let dir = absolutize(dir, base);
        if !dir.is_dir() {
            return Err(CommandError::from(ScheduleError::MissingDir(dir)));
        }
        return Ok(Some(Target::Cwd(dir)));
    }
    Ok(None)
}

pub fn mode_of(options: &TaskSettings) -> Result<Option<PermissionMode>> {
    options
        .mode
        .as_deref()
        .map(PermissionMode::parse)
        .transpose()
        .map_err(invalid)
}

/// `Some(None)` for an empty `--timeout` (back to the default).
pub fn timeout_of(options: &TaskSettings) -> Result<Option<Option<Duration>>> {
    let Some(text) = &options.timeout else {
        return Ok(None);
    };
    if text.is_empty() {
        return Ok(Some(None));
    }
    match crate::config::parse_duration(text) {
        Some(d) if d >= Duration::from_secs(1) => {
            // Stored in whole seconds; round up so a limit is never shorter than asked.
            Ok(Some(Some(Duration::from_secs(
                d.as_secs() + u64::from(d.subsec_nanos() > 0),
            ))))
        }
        Some(_) => Err(invalid(FieldError::new(
            "timeout",
            text,
            "must be at least 1s",
        ))),
        None => Err(invalid(FieldError::new(
            "timeout",
            text,
            "not a duration (write e.g. 90s, 45m, 2h)",
        ))),
    }
}

/// The runner of manual runs and the daemon: the configured agent, the system clock.
pub fn runner_for(homes: &Homes, settings: &Settings) -> Runner {
    Runner {
        homes: homes.clone(),
        agent: settings.agent_command.clone(),
        finch_toml: homes.finch_toml(),
        default_timeout: DEFAULT_TIMEOUT,
        lock_timeout: settings.lock_timeout,
        kill_grace: Duration::from_secs(5),
        clock: Utc::now,
    }
}

pub fn invalid(err: FieldError) -> CommandError {
    CommandError::from(ScheduleError::Invalid(err))
}

/// Schedule errors as exit codes: invalid input is a usage error (2), unknown ids, spaces and
/// directories are not found (3), a held lock or a running daemon is 5.
impl From<ScheduleError> for CommandError {
    fn from(err: ScheduleError) -> CommandError {
        let message = err.to_string();
        match err {
            ScheduleError::Invalid(f) => {
                CommandError::usage(format!("invalid --{} {:?}: {}", f.field, f.value, f.reason))
                    .with_code("invalid_task")
            }
            ScheduleError::UnknownTask(_) => CommandError::not_found(message)
                .with_hint("run `finch schedule list` to see the task ids"),
            ScheduleError::AmbiguousTask { candidates, .. } => {
                let lines: Vec<String> = candidates
                    .iter()
                    .map(|(id, name)| format!("  {id}  {name}"))
                    .collect();
                CommandError::usage(format!("{message}:\n{}", lines.join("\n")))
                    .with_code("ambiguous_id")
                    .with_hint("give the task's whole id, or more of it")
            }
            ScheduleError::UnknownSpace(_) => CommandError::not_found(message)
                .with_hint("run `finch space list` to see the spaces"),
            ScheduleError::MissingDir(_) => CommandError::not_found(message),
            ScheduleError::BrokenTask { .. } | ScheduleError::BadFile { .. } => {
                CommandError::failed(message)
                    .with_code("corrupt_state")
                    .with_hint("fix the entry in tasks.json by hand")
            }
            ScheduleError::Json(j) if j.is_corrupt() => CommandError::failed(message)
                .with_code("corrupt_state")
                .with_hint("fix the file by hand, or run `finch doctor --state` to move it aside"),
            ScheduleError::Lock(LockError::Held { .. }) => {
                CommandError::new(ErrorKind::Locked, message)
            }
            ScheduleError::DaemonRunning { .. } => CommandError::new(ErrorKind::Locked, message)
                .with_code("daemon_running")
                .with_hint("only one daemon runs at a time; stop the other one first"),
            ScheduleError::Space(e) => CommandError::from(e),
            ScheduleError::NoAgent { .. } => CommandError::failed(message)
                .with_code("no_agent")
                .with_hint("add e.g.\n[agent]\ncommand = [\"pi\", \"-p\", \"{prompt}\"]"),
            _ => CommandError::failed(message),
        }
    }
}
