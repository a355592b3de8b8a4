//! `finch schedule`: arguments and output; the logic is in `crate::schedule`.
//!
//! "Now" for `create`, `update` and `list` (validation, next fire times, timestamps) is the
//! `FINCH_NOW` variable when it holds an RFC 3339 time — a testing and scripting aid — else the
//! system clock. Runs and the daemon always use the system clock.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::schedule::zone::Zone;
use chrono::{DateTime, Utc};
use clap::{Args, Subcommand};
use serde_json::{Value, json};

use crate::Context;
use crate::config::Settings;
use crate::env::Env;
use crate::error::{CommandError, ErrorKind, Result};
use crate::homes::{Homes, absolutize};
use crate::schedule::daemon::{Daemon, DaemonEvent, DaemonOptions};
use crate::schedule::history::{self, LastRun, RunRecord, RunStatus, Trigger};
use crate::schedule::runner::{Cancel, DEFAULT_TIMEOUT, RunStarted, Runner};
use crate::schedule::signals::on_stop_signal;
use crate::schedule::tasks::{
    self, NewTask, PermissionMode, Target, Task, TaskChanges, TaskFile, timestamp,
};
use crate::schedule::timing::parse_zone;
use crate::schedule::{FieldError, Schedule, ScheduleError, zone};
use crate::store::LockError;
use crate::ui::Table;

/// When a task fires: exactly one of these.
#[derive(Debug, Args)]
#[group(id = "when", multiple = false)]
#[command(next_help_heading = "When (one of)")]
pub struct WhenArgs {
    /// Run every hour, at minute :MM (default :00)
    #[arg(long, value_name = ":MM", num_args = 0..=1, default_missing_value = ":00")]
    pub hourly: Option<String>,
    /// Run every day at HH:MM
    #[arg(long, value_name = "HH:MM")]
    pub daily: Option<String>,
    /// Run Monday to Friday at HH:MM
    #[arg(long, value_name = "HH:MM")]
    pub weekdays: Option<String>,
    /// Run every week on DAY (mon…sun) at HH:MM
    #[arg(long, num_args = 2, value_names = ["DAY", "HH:MM"])]
    pub weekly: Option<Vec<String>>,
    /// Run on a five-field cron expression (minute hour day-of-month month day-of-week)
    #[arg(long, value_name = "EXPR")]
    pub cron: Option<String>,
    /// Run once at an ISO date-time (without an offset: in the task's time zone)
    #[arg(long, value_name = "DATETIME")]
    pub once: Option<String>,
}

/// How and where a task runs. With `update`, an empty value clears an optional setting.
#[derive(Debug, Args)]
#[command(next_help_heading = "How and where")]
pub struct TaskOptions {
    /// Time zone, an IANA name such as Europe/Berlin (default: the local zone)
    #[arg(long, value_name = "TZ")]
    pub tz: Option<String>,
    /// Run in this space's directory (space id or name)
    #[arg(long, value_name = "SPACE", conflicts_with = "cwd")]
    pub space: Option<String>,
    /// Run in this directory (default: the agent home)
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Model for the agent ({model} in the agent command)
    #[arg(long)]
    pub model: Option<String>,
    /// Reasoning effort: off, minimal, low, medium, high or xhigh ({effort})
    #[arg(long, value_name = "EFFORT")]
    pub effort: Option<String>,
    /// Permission mode: ask or acceptCalls (default acceptCalls)
    #[arg(long)]
    pub mode: Option<String>,
    /// Stop a run after this long, e.g. 45m (default 30m)
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum ScheduleCommand {
    /// List tasks with their next run and last result
    List,
    /// Create a task
    Create {
        /// A name to recognise the task by
        #[arg(long)]
        name: String,
        /// What the agent is asked to do
        #[arg(long)]
        prompt: String,
        #[command(flatten)]
        when: WhenArgs,
        #[command(flatten)]
        options: TaskOptions,
    },
    /// Change a task; only the given settings change
    ///
    /// An empty value (`--model ""`) clears --model, --effort, --timeout, --space and --cwd.
    Update {
        /// The task id (t-…)
        id: String,
        /// A new name
        #[arg(long)]
        name: Option<String>,
        /// A new prompt
        #[arg(long)]
        prompt: Option<String>,
        #[command(flatten)]
        when: WhenArgs,
        #[command(flatten)]
        options: TaskOptions,
    },
    /// Enable a task
    Enable {
        /// The task id (t-…)
        id: String,
    },
    /// Disable a task (it stays in the list and keeps its history)
    Disable {
        /// The task id (t-…)
        id: String,
    },
    /// Delete a task (its history is kept)
    Delete {
        /// The task id (t-…)
        id: String,
    },
    /// Run a task now, in the foreground
    Run {
        /// The task id (t-…)
        id: String,
    },
    /// Show run history, newest first
    History {
        /// Only this task's runs
        id: Option<String>,
        /// How many runs to show
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Run due tasks in the foreground until SIGINT or SIGTERM
    Daemon,
}

pub fn run(ctx: &Context, command: &ScheduleCommand) -> Result<()> {
    match command {
        ScheduleCommand::List => cmd_list(ctx),
        ScheduleCommand::Create {
            name,
            prompt,
            when,
            options,
        } => cmd_create(ctx, name, prompt, when, options),
        ScheduleCommand::Update {
            id,
            name,
            prompt,
            when,
            options,
        } => cmd_update(ctx, id, name, prompt, when, options),
        ScheduleCommand::Enable { id } => cmd_enable(ctx, id, true),
        ScheduleCommand::Disable { id } => cmd_enable(ctx, id, false),
        ScheduleCommand::Delete { id } => cmd_delete(ctx, id),
        ScheduleCommand::Run { id } => cmd_run(ctx, id),
        ScheduleCommand::History { id, limit } => cmd_history(ctx, id.as_deref(), *limit),
        ScheduleCommand::Daemon => cmd_daemon(ctx),
    }
}

// ---------------------------------------------------------------------------------------------
// create, update, enable, disable, delete

fn cmd_create(
    ctx: &Context,
    name: &str,
    prompt: &str,
    when: &WhenArgs,
    options: &TaskOptions,
) -> Result<()> {
    let now = now(ctx)?;
    let tz = match &options.tz {
        Some(tz) => parse_zone(tz).map_err(invalid)?,
        None => local_zone(ctx),
    };
    let schedule = schedule_of(when, tz)?.ok_or_else(|| {
        CommandError::usage("a task needs a schedule")
            .with_code("invalid_task")
            .with_hint("give one of --hourly [:MM], --daily HH:MM, --weekdays HH:MM, --weekly DAY HH:MM, --cron \"EXPR\" or --once DATETIME")
    })?;
    let target = target_of(ctx, options)?.unwrap_or_default();
    let new = NewTask {
        name: name.to_string(),
        prompt: prompt.to_string(),
        schedule,
        timezone: tz,
        target,
        model: options.model.clone().filter(|m| !m.is_empty()),
        reasoning_effort: options.effort.clone().filter(|e| !e.is_empty()),
        permission_mode: mode_of(options)?.unwrap_or_default(),
        timeout: timeout_of(options)?.flatten(),
    };
    let homes = ctx.homes()?;
    let task =
        tasks::create(homes, new, now, ctx.settings()?.lock_timeout).map_err(schedule_error)?;
    warn_without_agent(ctx);
    print_task(ctx, &task, now, "Created")
}

fn cmd_update(
    ctx: &Context,
    id: &str,
    name: &Option<String>,
    prompt: &Option<String>,
    when: &WhenArgs,
    options: &TaskOptions,
) -> Result<()> {
    let now = now(ctx)?;
    let homes = ctx.homes()?;
    let current = find_task(&load(ctx)?, id)?.clone();
    let timezone = match &options.tz {
        Some(tz) => Some(parse_zone(tz).map_err(invalid)?),
        None => None,
    };
    let changes = TaskChanges {
        name: name.clone(),
        prompt: prompt.clone(),
        schedule: schedule_of(when, timezone.unwrap_or(current.timezone))?,
        timezone,
        target: target_of(ctx, options)?,
        model: options
            .model
            .clone()
            .map(|m| Some(m).filter(|m| !m.is_empty())),
        reasoning_effort: options
            .effort
            .clone()
            .map(|e| Some(e).filter(|e| !e.is_empty())),
        permission_mode: mode_of(options)?,
        timeout: timeout_of(options)?,
        enabled: None,
    };
    let task = tasks::update(homes, id, changes, now, ctx.settings()?.lock_timeout)
        .map_err(schedule_error)?;
    print_task(ctx, &task, now, "Updated")
}

fn cmd_enable(ctx: &Context, id: &str, enabled: bool) -> Result<()> {
    let now = now(ctx)?;
    let changes = TaskChanges {
        enabled: Some(enabled),
        ..Default::default()
    };
    let task = tasks::update(ctx.homes()?, id, changes, now, ctx.settings()?.lock_timeout)
        .map_err(schedule_error)?;
    if ctx.ui.json {
        return ctx.ui.json(&task_json(&task, now));
    }
    let verb = if enabled { "Enabled" } else { "Disabled" };
    ctx.ui.line(format!(
        "{} {verb} task {} \"{}\"",
        ctx.ui.green("✓"),
        task.id,
        task.name
    ))
}

fn cmd_delete(ctx: &Context, id: &str) -> Result<()> {
    let file = load(ctx)?;
    let name = match file.find(id) {
        Some(task) => task.name.clone(),
        None if file.broken.iter().any(|b| b.id.as_deref() == Some(id)) => String::new(),
        None => return Err(schedule_error(ScheduleError::UnknownTask(id.to_string()))),
    };
    if !ctx.ui.confirm(&format!(
        "Delete task {id} \"{name}\"? (its run history is kept)"
    ))? {
        ctx.ui.status(format!("Kept task {id}."));
        return Ok(());
    }
    let homes = ctx.homes()?;
    let removed = tasks::delete(homes, id, ctx.settings()?.lock_timeout).map_err(schedule_error)?;
    if ctx.ui.json {
        return ctx.ui.json(&json!({"deleted": removed}));
    }
    ctx.ui.line(format!(
        "{} Deleted task {id} \"{name}\"",
        ctx.ui.green("✓")
    ))?;
    if history::exists(homes, id) {
        ctx.ui.status(format!(
            "  Its run history stays in {}",
            history::path_of(homes, id).display()
        ));
    }
    Ok(())
}

/// The task as `--json` shows it: the stored object plus the next fire times.
pub(crate) fn task_json(task: &Task, now: DateTime<Utc>) -> Value {
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
pub(crate) fn listed_task_json(
    task: &Task,
    next: Option<DateTime<Utc>>,
    last: Option<&LastRun>,
) -> Value {
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

fn print_task(ctx: &Context, task: &Task, now: DateTime<Utc>, verb: &str) -> Result<()> {
    if ctx.ui.json {
        return ctx.ui.json(&task_json(task, now));
    }
    ctx.ui.line(format!(
        "{} {verb} task {} \"{}\": {} ({})",
        ctx.ui.green("✓"),
        task.id,
        task.name,
        task.schedule,
        task.timezone.name()
    ))?;
    let next = task.schedule.upcoming(task.timezone, now, 3);
    if next.is_empty() {
        return ctx.ui.line("  It does not fire again.");
    }
    ctx.ui.line("  Next runs:")?;
    for t in next {
        ctx.ui
            .line(format!("    {}", local_time(t, task.timezone)))?;
    }
    if !task.enabled {
        ctx.ui
            .line("  The task is disabled; `finch schedule enable` turns it on.")?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// list

fn cmd_list(ctx: &Context) -> Result<()> {
    let now = now(ctx)?;
    let homes = ctx.homes()?;
    let file = load(ctx)?;
    for broken in &file.broken {
        ctx.ui.warn(format!(
            "task {} ({}) in {} cannot be read: {}; fix or delete the entry by hand",
            broken.index + 1,
            broken.id.as_deref().unwrap_or("no id"),
            homes.tasks_json().display(),
            broken.reason
        ));
    }
    // Each task with its next fire time and its last run.
    type Row<'a> = (&'a Task, Option<DateTime<Utc>>, Option<LastRun>);
    let ids: Vec<&str> = file.tasks.iter().map(|t| t.id.as_str()).collect();
    let mut last_runs = history::last_runs(homes, &ids);
    let rows: Vec<Row> = file
        .tasks
        .iter()
        .map(|t| {
            let next = t.enabled.then(|| t.next_after(now)).flatten();
            (t, next, last_runs.remove(&t.id))
        })
        .collect();
    if ctx.ui.json {
        let items = rows
            .iter()
            .map(|(task, next, last)| listed_task_json(task, *next, last.as_ref()))
            .collect();
        return ctx.ui.json(&Value::Array(items));
    }
    if rows.is_empty() {
        ctx.ui.status(format!(
            "No scheduled tasks in {}",
            homes.tasks_json().display()
        ));
        return Ok(());
    }
    if !ctx.ui.stdout_tty {
        // One string and one write for the whole list, not one per line.
        let mut out = String::with_capacity(rows.len() * 128);
        for (task, next, last) in &rows {
            use std::fmt::Write;
            let _ = writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                task.id,
                one_line(&task.name),
                if task.enabled { "enabled" } else { "disabled" },
                task.schedule,
                task.timezone.name(),
                next.map_or("-".to_string(), timestamp),
                last.as_ref().map_or("-", |r| r.status.as_str()),
                last.as_ref().map_or("-", |r| r.finished_at.as_str()),
            );
        }
        return ctx.ui.line(out.trim_end_matches('\n'));
    }
    let mut table = Table::new(&[
        "ID",
        "NAME",
        "SCHEDULE",
        "TIME ZONE",
        "NEXT RUN",
        "LAST RESULT",
    ]);
    for (task, next, last) in &rows {
        let next = match next {
            _ if !task.enabled => "disabled".to_string(),
            Some(t) => local_time(*t, task.timezone),
            None => "-".to_string(),
        };
        let last = last.as_ref().map_or("-".to_string(), |r| {
            let when = DateTime::parse_from_rfc3339(&r.finished_at)
                .map(|t| local_time(t.with_timezone(&Utc), task.timezone))
                .unwrap_or_else(|_| r.finished_at.clone());
            format!("{} {when}", r.status.as_str())
        });
        table.row(vec![
            task.id.clone(),
            one_line(&task.name).into_owned(),
            task.schedule.to_string(),
            task.timezone.name().to_string(),
            next,
            last,
        ]);
    }
    ctx.ui.line(table.render(ctx.ui.width()).join("\n"))
}

// ---------------------------------------------------------------------------------------------
// run, history

fn cmd_run(ctx: &Context, id: &str) -> Result<()> {
    let file = load(ctx)?;
    let task = find_task(&file, id)?.clone();
    let runner = runner(ctx)?;
    runner.agent_command().map_err(schedule_error)?;
    let cancel = Cancel::default();
    let stop = cancel.clone();
    // Ctrl-C stops the agent (its process group) and still records the run.
    on_stop_signal(move |signal| {
        stop.cancel(&format!(
            "stopped: finch schedule run received {}",
            signal.name()
        ))
    })
    .map_err(|e| CommandError::failed(format!("cannot handle signals: {e}")))?;
    let spinner = spinner(ctx, &format!("Running {} \"{}\"", task.id, task.name));
    let record = runner
        .run(&task, Trigger::Manual, None, &cancel, &mut |started| {
            spinner.set_message(format!(
                "Running {} \"{}\" (pid {}, run {})",
                started.task_id, started.task_name, started.pid, started.run_id
            ));
        })
        .map_err(schedule_error);
    spinner.finish_and_clear();
    let record = record?;
    if ctx.ui.json {
        ctx.ui
            .json(&serde_json::to_value(&record).unwrap_or_default())?;
    } else if !record.output_tail.is_empty() {
        let tail = record
            .output_tail
            .strip_suffix('\n')
            .unwrap_or(&record.output_tail);
        ctx.ui.line(tail)?;
    }
    let summary = format!(
        "run {} of task {} \"{}\" {}",
        record.run_id,
        task.id,
        task.name,
        outcome(&record)
    );
    let err = match record.status {
        RunStatus::Succeeded => {
            ctx.ui.status(format!("{} {summary}", ctx.ui.green("✓")));
            return Ok(());
        }
        RunStatus::SkippedOverlap => CommandError::new(ErrorKind::Locked, summary)
            .with_code("skipped_overlap")
            .with_hint("runs of one task never overlap; wait for the other run to finish"),
        RunStatus::Failed | RunStatus::TimedOut => CommandError::failed(summary)
            .with_code("run_failed")
            .with_hint(format!(
                "`finch schedule history {}` shows the recorded runs",
                task.id
            )),
    };
    Err(if ctx.ui.json {
        err.json_reported()
    } else {
        err
    })
}

/// `succeeded (exit code 0, 1.2s)`, `timed-out (stopped after 30m …)`, …
pub(crate) fn outcome(record: &RunRecord) -> String {
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

fn cmd_history(ctx: &Context, id: Option<&str>, limit: usize) -> Result<()> {
    let homes = ctx.homes()?;
    if let Some(id) = id {
        let file = load(ctx)?;
        let known =
            file.find(id).is_some() || file.broken.iter().any(|b| b.id.as_deref() == Some(id));
        if !known && !history::exists(homes, id) {
            return Err(schedule_error(ScheduleError::UnknownTask(id.to_string())));
        }
    }
    let found = history::read(homes, id, limit).map_err(schedule_error)?;
    for problem in &found.problems {
        ctx.ui.warn(problem);
    }
    if ctx.ui.json {
        let runs = found
            .runs
            .iter()
            .map(|r| serde_json::to_value(r).unwrap_or_default())
            .collect();
        return ctx.ui.json(&Value::Array(runs));
    }
    if found.runs.is_empty() {
        ctx.ui.status("No runs recorded yet.");
        return Ok(());
    }
    let zone = local_zone(ctx);
    let time = |t: Option<&str>, format: &str| -> String {
        t.and_then(|t| DateTime::parse_from_rfc3339(t).ok())
            .map_or("-".to_string(), |t| {
                t.with_timezone(&zone).format(format).to_string()
            })
    };
    let last_line = |r: &RunRecord| {
        one_line(
            r.output_tail
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or(""),
        )
        .into_owned()
    };
    let exit = |r: &RunRecord| {
        r.exit_code
            .map(|c| c.to_string())
            .or_else(|| r.signal.map(|s| format!("sig{s}")))
            .unwrap_or_else(|| "-".to_string())
    };
    if !ctx.ui.stdout_tty {
        let lines: Vec<String> = found
            .runs
            .iter()
            .map(|r| {
                [
                    r.run_id.clone(),
                    r.task_id.clone(),
                    r.scheduled_for.clone().unwrap_or_else(|| "-".into()),
                    r.started_at.clone(),
                    r.finished_at.clone(),
                    r.status.as_str().to_string(),
                    exit(r),
                    r.session_id.clone().unwrap_or_else(|| "-".into()),
                    last_line(r),
                ]
                .join("\t")
            })
            .collect();
        return ctx.ui.line(lines.join("\n"));
    }
    let mut table = Table::new(&[
        "RUN",
        "TASK",
        "SCHEDULED FOR",
        "STARTED",
        "FINISHED",
        "STATUS",
        "EXIT",
        "SESSION",
        "OUTPUT",
    ]);
    for r in &found.runs {
        // Times in the local zone; the session id shortened like a commit id (all of it is in
        // the piped and JSON output).
        table.row(vec![
            r.run_id.clone(),
            r.task_id.clone(),
            time(r.scheduled_for.as_deref(), "%Y-%m-%d %H:%M"),
            time(Some(&r.started_at), "%Y-%m-%d %H:%M:%S"),
            time(Some(&r.finished_at), "%H:%M:%S"),
            r.status.as_str().to_string(),
            exit(r),
            r.session_id
                .as_deref()
                .map_or("-".to_string(), |s| s.chars().take(8).collect()),
            last_line(r),
        ]);
    }
    ctx.ui.line(table.render(ctx.ui.width()).join("\n"))
}

// ---------------------------------------------------------------------------------------------
// daemon

fn cmd_daemon(ctx: &Context) -> Result<()> {
    let daemon = Daemon::new(runner(ctx)?, DaemonOptions::default()).map_err(schedule_error)?;
    let control = daemon.control();
    on_stop_signal(move |signal| control.stop(signal))
        .map_err(|e| CommandError::failed(format!("cannot handle signals: {e}")))?;
    let zone = local_zone(ctx);
    daemon
        .run(&mut |event| {
            let result = if ctx.ui.json {
                ctx.ui.line(event_json(&event).to_string())
            } else {
                ctx.ui.status(format!(
                    "{} {}",
                    Utc::now().with_timezone(&zone).format("%Y-%m-%d %H:%M:%S"),
                    event_text(&event, zone)
                ));
                Ok(())
            };
            // A closed stdout must not stop the daemon: it keeps running tasks.
            let _ = result;
        })
        .map_err(schedule_error)?;
    // SIGINT and SIGTERM are both a requested, clean stop: exit 0.
    Ok(())
}

fn event_json(event: &DaemonEvent) -> Value {
    let time = timestamp(Utc::now());
    let record = |r: &RunRecord| serde_json::to_value(r).unwrap_or_default();
    let mut value = match event {
        DaemonEvent::Ready {
            pid,
            tasks,
            broken,
            next,
        } => json!({"event": "ready", "pid": pid, "tasks": tasks, "brokenTasks": broken,
                    "nextRun": next.as_ref().map(|(id, at)| json!({"taskId": id, "at": timestamp(*at)}))}),
        DaemonEvent::Reloaded { tasks, broken } => {
            json!({"event": "reloaded", "tasks": tasks, "brokenTasks": broken})
        }
        DaemonEvent::ReloadFailed(message) => {
            json!({"event": "error", "message": format!("kept the previous tasks: {message}")})
        }
        DaemonEvent::Started(s) => started_json(s),
        DaemonEvent::Finished(r) if r.status == RunStatus::SkippedOverlap => {
            let mut v = record(r);
            v["event"] = "skipped".into();
            v
        }
        DaemonEvent::Finished(r) => {
            let mut v = record(r);
            v["event"] = "finished".into();
            v
        }
        DaemonEvent::RunFailed { task_id, message } => {
            json!({"event": "error", "taskId": task_id, "message": message})
        }
        DaemonEvent::Missed {
            task_id,
            task_name,
            scheduled_for,
        } => json!({"event": "missed", "taskId": task_id, "taskName": task_name,
                    "scheduledFor": timestamp(*scheduled_for)}),
        DaemonEvent::Stopping { signal, running } => {
            json!({"event": "stopping", "signal": signal.name(), "running": running})
        }
        DaemonEvent::Stopped => json!({"event": "stopped"}),
    };
    // `event` first, then `time`, then the rest, for people reading the log.
    let mut ordered = serde_json::Map::new();
    if let Value::Object(map) = &mut value {
        ordered.insert(
            "event".into(),
            map.shift_remove("event").unwrap_or(Value::Null),
        );
        ordered.insert("time".into(), time.into());
        ordered.extend(std::mem::take(map));
    }
    Value::Object(ordered)
}

fn started_json(s: &RunStarted) -> Value {
    json!({"event": "started", "runId": s.run_id, "taskId": s.task_id, "taskName": s.task_name,
           "trigger": "schedule", "scheduledFor": s.scheduled_for, "startedAt": s.started_at,
           "sessionId": s.session_id, "directory": s.directory, "pid": s.pid})
}

fn event_text(event: &DaemonEvent, zone: Zone) -> String {
    match event {
        DaemonEvent::Ready {
            pid,
            tasks,
            broken,
            next,
        } => {
            let broken = match broken {
                0 => String::new(),
                n => format!(" ({n} unreadable, see `finch schedule list`)"),
            };
            let next = match next {
                Some((id, at)) => format!("; next run: {id} at {}", local_time(*at, zone)),
                None => "; nothing is due".to_string(),
            };
            format!("schedule daemon started (pid {pid}), {tasks} task(s){broken}{next}")
        }
        DaemonEvent::Reloaded { tasks, .. } => format!("reloaded tasks.json: {tasks} task(s)"),
        DaemonEvent::ReloadFailed(message) => {
            format!("kept the previous tasks: {message}")
        }
        DaemonEvent::Started(s) => format!(
            "started  {} \"{}\" (run {}, pid {})",
            s.task_id, s.task_name, s.run_id, s.pid
        ),
        DaemonEvent::Finished(r) => format!(
            "{} {} \"{}\": {}",
            if r.status == RunStatus::SkippedOverlap {
                "skipped "
            } else {
                "finished"
            },
            r.task_id,
            r.task_name,
            outcome(r)
        ),
        DaemonEvent::RunFailed { task_id, message } => {
            format!("run of {task_id} failed: {message}")
        }
        DaemonEvent::Missed {
            task_id,
            task_name,
            scheduled_for,
        } => format!(
            "missed   {task_id} \"{task_name}\" at {} (fire times are not caught up)",
            local_time(*scheduled_for, zone)
        ),
        DaemonEvent::Stopping { signal, running } => {
            format!("stopping on {} ({running} run(s) going)", signal.name())
        }
        DaemonEvent::Stopped => "stopped".to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// helpers

/// This command's clock (`FINCH_NOW` or the system clock), in UTC.
fn now(ctx: &Context) -> Result<DateTime<Utc>> {
    Ok(ctx.now()?.to_utc())
}

fn local_zone(ctx: &Context) -> Zone {
    local_zone_in(&ctx.env)
}

/// The local time zone: `TZ`, else the system's.
pub(crate) fn local_zone_in(env: &Env) -> Zone {
    zone::local_zone(
        env.get("TZ").as_deref(),
        Path::new("/etc/localtime"),
        Path::new("/etc/timezone"),
    )
}

/// `Sun 2026-03-08 03:00 EDT`
fn local_time(t: DateTime<Utc>, zone: Zone) -> String {
    t.with_timezone(&zone)
        .format("%a %Y-%m-%d %H:%M %Z")
        .to_string()
}

/// `text` with its white space runs (newlines, tabs) made single spaces, for one-line output.
fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    let plain = !text.contains(|c: char| c.is_whitespace() && c != ' ')
        && !text.contains("  ")
        && text.trim() == text;
    if plain {
        return text.into();
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ").into()
}

fn load(ctx: &Context) -> Result<TaskFile> {
    tasks::load(ctx.homes()?).map_err(schedule_error)
}

pub(crate) fn find_task<'a>(file: &'a TaskFile, id: &str) -> Result<&'a Task> {
    if let Some(task) = file.find(id) {
        return Ok(task);
    }
    Err(schedule_error(
        match file.broken.iter().find(|b| b.id.as_deref() == Some(id)) {
            Some(b) => ScheduleError::BrokenTask {
                id: id.to_string(),
                reason: b.reason.clone(),
            },
            None => ScheduleError::UnknownTask(id.to_string()),
        },
    ))
}

/// The schedule the flags give, if any (clap lets at most one through).
pub(crate) fn schedule_of(when: &WhenArgs, tz: Zone) -> Result<Option<Schedule>> {
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

/// `--space` (resolved to its id) or `--cwd` (made absolute; must exist). An empty value
/// means the agent home.
fn target_of(ctx: &Context, options: &TaskOptions) -> Result<Option<Target>> {
    if options.space.is_none() && options.cwd.is_none() {
        return Ok(None);
    }
    target_in(ctx.homes()?, &ctx.cwd, options)
}

/// `target_of` with the homes and the directory a relative `cwd` starts from.
pub(crate) fn target_in(
    homes: &Homes,
    base: &Path,
    options: &TaskOptions,
) -> Result<Option<Target>> {
    if let Some(key) = &options.space {
        if key.is_empty() {
            return Ok(Some(Target::AgentHome));
        }
        let spaces =
            crate::space::list(homes).map_err(|e| schedule_error(ScheduleError::Space(e)))?;
        let space = crate::space::find(&spaces, key)
            .ok_or_else(|| schedule_error(ScheduleError::UnknownSpace(key.clone())))?;
        return Ok(Some(Target::Space(space.id.clone())));
    }
    if let Some(dir) = &options.cwd {
        if dir.as_os_str().is_empty() {
            return Ok(Some(Target::AgentHome));
        }
        let dir = absolutize(dir, base);
        if !dir.is_dir() {
            return Err(schedule_error(ScheduleError::MissingDir(dir)));
        }
        return Ok(Some(Target::Cwd(dir)));
    }
    Ok(None)
}

pub(crate) fn mode_of(options: &TaskOptions) -> Result<Option<PermissionMode>> {
    options
        .mode
        .as_deref()
        .map(PermissionMode::parse)
        .transpose()
        .map_err(invalid)
}

/// `Some(None)` for an empty `--timeout` (back to the default).
pub(crate) fn timeout_of(options: &TaskOptions) -> Result<Option<Option<Duration>>> {
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

fn runner(ctx: &Context) -> Result<Runner> {
    Ok(runner_for(ctx.homes()?, ctx.settings()?))
}

/// The runner of manual runs and the daemon: the configured agent, the system clock.
pub(crate) fn runner_for(homes: &Homes, settings: &Settings) -> Runner {
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

fn warn_without_agent(ctx: &Context) {
    if let (Ok(settings), Ok(homes)) = (ctx.settings(), ctx.homes())
        && settings.agent_command.is_none()
    {
        ctx.ui.warn(format!(
            "no agent command is configured yet; runs fail until `[agent] command` is set in {}",
            homes.finch_toml().display()
        ));
    }
}

fn spinner(ctx: &Context, message: &str) -> indicatif::ProgressBar {
    if !ctx.ui.progress_enabled() {
        return indicatif::ProgressBar::hidden();
    }
    let bar =
        indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
        bar.set_style(style);
    }
    bar.set_message(message.to_string());
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

pub(crate) fn invalid(err: FieldError) -> CommandError {
    schedule_error(ScheduleError::Invalid(err))
}

/// Maps schedule errors to exit codes: invalid input is a usage error (2), unknown ids, spaces
/// and directories are not found (3), a held lock or a running daemon is 5.
pub(crate) fn schedule_error(err: ScheduleError) -> CommandError {
    let message = err.to_string();
    match err {
        ScheduleError::Invalid(f) => {
            CommandError::usage(format!("invalid --{} {:?}: {}", f.field, f.value, f.reason))
                .with_code("invalid_task")
        }
        ScheduleError::UnknownTask(_) => CommandError::not_found(message)
            .with_hint("run `finch schedule list` to see the task ids"),
        ScheduleError::UnknownSpace(_) => {
            CommandError::not_found(message).with_hint("run `finch space list` to see the spaces")
        }
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
        ScheduleError::Space(e) => crate::cli::space::space_error(e),
        ScheduleError::NoAgent { .. } => CommandError::failed(message)
            .with_code("no_agent")
            .with_hint("add e.g.\n[agent]\ncommand = [\"pi\", \"-p\", \"{prompt}\"]"),
        _ => CommandError::failed(message),
    }
}
