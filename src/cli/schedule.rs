//! `finch schedule`: arguments and output; the logic is in `crate::schedule`.
//!
//! "Now" for `create`, `update` and `list` (validation, next fire times, timestamps) is the
//! `FINCH_NOW` variable when it holds an RFC 3339 time — a testing and scripting aid — else the
//! system clock. Runs and the daemon always use the system clock.

use std::path::PathBuf;
use std::time::Duration;

use crate::schedule::zone::Zone;
use chrono::{DateTime, Utc};
use clap::{Args, Subcommand};
use serde_json::{Value, json};

use crate::Context;
use crate::error::{CommandError, ErrorKind, Result};
use crate::schedule::daemon::{Daemon, DaemonEvent, DaemonOptions};
use crate::schedule::history::{self, LastRun, RunRecord, RunStatus, Trigger};
use crate::schedule::report::{
    TaskSettings, When, find_task, history_task, invalid, listed_task_json, local_zone_in, mode_of,
    outcome, runner_for, schedule_of, target_in, task_json, timeout_of,
};
use crate::schedule::runner::{Cancel, RunStarted, Runner};
use crate::schedule::signals::on_stop_signal;
use crate::schedule::tasks::{self, NewTask, Target, Task, TaskChanges, TaskFile, timestamp};
use crate::schedule::timing::parse_zone;
use crate::ui::{Table, TableArgs};

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
    /// Run once at an ISO 8601 date-time (2026-12-24T10:00+05:00; without an offset: in the
    /// task's time zone)
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
    /// Run once for a fire time missed while no daemon ran (catchUp)
    #[arg(long, conflicts_with = "no_catch_up")]
    pub catch_up: bool,
    /// Do not catch up missed fire times (the default)
    #[arg(long)]
    pub no_catch_up: bool,
}

impl TaskOptions {
    /// `--catch-up` / `--no-catch-up`, when given.
    fn catch_up(&self) -> Option<bool> {
        match (self.catch_up, self.no_catch_up) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }
}

impl From<&WhenArgs> for When {
    fn from(w: &WhenArgs) -> When {
        When {
            hourly: w.hourly.clone(),
            daily: w.daily.clone(),
            weekdays: w.weekdays.clone(),
            weekly: w.weekly.clone(),
            cron: w.cron.clone(),
            once: w.once.clone(),
        }
    }
}

impl From<&TaskOptions> for TaskSettings {
    fn from(o: &TaskOptions) -> TaskSettings {
        TaskSettings {
            tz: o.tz.clone(),
            space: o.space.clone(),
            cwd: o.cwd.clone(),
            model: o.model.clone(),
            effort: o.effort.clone(),
            mode: o.mode.clone(),
            timeout: o.timeout.clone(),
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum ScheduleCommand {
    /// List tasks with their next run and last result
    #[command(visible_alias = "ls")]
    List(TableArgs),
    /// Create a task
    ///
    /// A task runs the agent command set in `<runtime>/config/finch.toml` under `[agent]
    /// command`; there is none by default, and runs fail until one is set. Each argument is
    /// passed as written (never through a shell), with `{prompt}`, `{model}`, `{effort}`,
    /// `{cwd}`, `{session}` and `{mode}` replaced by the task's values.
    ///
    /// For pi (docs/pi.md adds the task's --model and --effort):
    ///
    ///     [agent]
    ///     command = ["pi", "--session", "{session}", "-p", "{prompt}"]
    ///
    /// For a plain shell command (here the prompt is added to a file):
    ///
    ///     [agent]
    ///     command = ["sh", "-c", "echo \"$1\" >> \"$HOME/reminders.txt\"", "sh", "{prompt}"]
    ///
    /// On a terminal, with no agent command set and pi on PATH, `create` offers to set pi's.
    #[command(verbatim_doc_comment)]
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
        /// The task: its id (t-…), its name, or the beginning of its id
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::task_ids))]
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
        /// The task: its id (t-…), its name, or the beginning of its id
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::task_ids))]
        id: String,
    },
    /// Disable a task (it stays in the list and keeps its history)
    Disable {
        /// The task: its id (t-…), its name, or the beginning of its id
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::task_ids))]
        id: String,
    },
    /// Delete a task (its history is kept)
    Delete {
        /// The task: its id (t-…), its name, or the beginning of its id
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::task_ids))]
        id: String,
    },
    /// Run a task now, in the foreground
    Run {
        /// The task: its id (t-…), its name, or the beginning of its id
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::task_ids))]
        id: String,
    },
    /// Show run history, newest first
    History {
        /// Only this task's runs (its id, its name, or the beginning of its id)
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::task_ids))]
        id: Option<String>,
        /// How many runs to show
        #[arg(long, default_value_t = 20)]
        limit: usize,
        #[command(flatten)]
        table: TableArgs,
    },
    /// Run due tasks in the foreground until SIGINT or SIGTERM
    Daemon,
}

pub fn run(ctx: &Context, command: &ScheduleCommand) -> Result<()> {
    match command {
        ScheduleCommand::List(table) => cmd_list(ctx, *table),
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
        ScheduleCommand::History { id, limit, table } => {
            cmd_history(ctx, id.as_deref(), *limit, *table)
        }
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
    let catch_up = options.catch_up().unwrap_or(false);
    let (when, options) = (&When::from(when), &TaskSettings::from(options));
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
    refuse_what_pi_misreads(ctx, prompt)?;
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
    let task = tasks::create_with(homes, new, catch_up, now, ctx.settings()?.lock_timeout)
        .map_err(CommandError::from)?;
    print_task(ctx, &task, now, "Created")?;
    offer_agent(ctx)
}

fn cmd_update(
    ctx: &Context,
    id: &str,
    name: &Option<String>,
    prompt: &Option<String>,
    when: &WhenArgs,
    options: &TaskOptions,
) -> Result<()> {
    let catch_up = options.catch_up();
    let (when, options) = (&When::from(when), &TaskSettings::from(options));
    let now = now(ctx)?;
    let homes = ctx.homes()?;
    let current = find_task(&load(ctx)?, id)?.clone();
    if let Some(prompt) = prompt {
        refuse_what_pi_misreads(ctx, prompt)?;
    }
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
    let task = tasks::update_with(
        homes,
        id,
        changes,
        catch_up,
        now,
        ctx.settings()?.lock_timeout,
    )
    .map_err(CommandError::from)?;
    print_task(ctx, &task, now, "Updated")
}

fn cmd_enable(ctx: &Context, id: &str, enabled: bool) -> Result<()> {
    let now = now(ctx)?;
    let changes = TaskChanges {
        enabled: Some(enabled),
        ..Default::default()
    };
    let task = tasks::update(ctx.homes()?, id, changes, now, ctx.settings()?.lock_timeout)
        .map_err(CommandError::from)?;
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
    let id = &file.resolve_id(id).map_err(CommandError::from)?;
    let name = file.find(id).map(|t| t.name.clone()).unwrap_or_default();
    if !ctx.ui.confirm(&format!(
        "Delete task {id} \"{name}\"? (its run history is kept)"
    ))? {
        ctx.ui.status(format!("Kept task {id}."));
        return Ok(());
    }
    let homes = ctx.homes()?;
    let removed =
        tasks::delete(homes, id, ctx.settings()?.lock_timeout).map_err(CommandError::from)?;
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
            .line(format!("    {}", zoned_time(t, task.timezone)))?;
    }
    if !task.enabled {
        ctx.ui
            .line("  The task is disabled; `finch schedule enable` turns it on.")?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// list

fn cmd_list(ctx: &Context, args: TableArgs) -> Result<()> {
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
    // On a terminal the next run comes first; times are in the user's zone, or in the task's
    // own when it has another (set with --tz), always with the offset; a disabled task or one
    // that does not fire again goes last. On a pipe the tasks keep the file's order.
    let mut rows = rows;
    if ctx.ui.stdout_tty {
        rows.sort_by_key(|(task, next, _)| (next.is_none() || !task.enabled, *next));
    }
    let local = local_zone(ctx);
    let shown_zone = |task: &Task| {
        if task.timezone.name() == local.name() {
            local
        } else {
            task.timezone
        }
    };
    let mut table = Table::new(&[
        "ID",
        "NAME",
        "NEXT RUN",
        "SCHEDULE",
        "TIME ZONE",
        "LAST RESULT",
    ])
    .cut(&["NAME"])
    .optional(&["TIME ZONE", "LAST RESULT", "SCHEDULE"]);
    for (task, next, last) in &rows {
        let piped = vec![
            ("ID", task.id.clone()),
            ("NAME", one_line(&task.name).into_owned()),
            (
                "STATE",
                if task.enabled { "enabled" } else { "disabled" }.to_string(),
            ),
            ("SCHEDULE", task.schedule.to_string()),
            ("TIME ZONE", task.timezone.name().to_string()),
            ("NEXT RUN", next.map_or("-".to_string(), timestamp)),
            (
                "LAST STATUS",
                last.as_ref().map_or("-", |r| r.status.as_str()).to_string(),
            ),
            (
                "LAST FINISHED",
                last.as_ref()
                    .map_or("-", |r| r.finished_at.as_str())
                    .to_string(),
            ),
        ];
        let next = match next {
            _ if !task.enabled => "disabled".to_string(),
            Some(t) => format!(
                "{} ({})",
                zoned_time(*t, shown_zone(task)),
                relative(now, *t)
            ),
            None => "-".to_string(),
        };
        let last = last.as_ref().map_or("-".to_string(), |r| {
            let when = DateTime::parse_from_rfc3339(&r.finished_at)
                .map(|t| zoned_time(t.with_timezone(&Utc), shown_zone(task)))
                .unwrap_or_else(|_| r.finished_at.clone());
            format!("{} {when}", r.status.as_str())
        });
        table.row_piped(
            vec![
                task.id.clone(),
                one_line(&task.name).into_owned(),
                next,
                task.schedule.to_string(),
                task.timezone.name().to_string(),
                last,
            ],
            piped,
        );
    }
    ctx.ui.table(&table, args)
}

// ---------------------------------------------------------------------------------------------
// run, history

fn cmd_run(ctx: &Context, id: &str) -> Result<()> {
    let file = load(ctx)?;
    let task = find_task(&file, id)?.clone();
    let runner = runner(ctx)?;
    runner.agent_command().map_err(CommandError::from)?;
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
        .map_err(CommandError::from);
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

fn cmd_history(ctx: &Context, id: Option<&str>, limit: usize, args: TableArgs) -> Result<()> {
    let homes = ctx.homes()?;
    let id = match id {
        Some(query) => Some(history_task(&load(ctx)?, homes, query)?),
        None => None,
    };
    let id = id.as_deref();
    let found = history::read(homes, id, limit).map_err(CommandError::from)?;
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
    ])
    .cut(&["OUTPUT"])
    // SCHEDULED FOR goes last: it tells a late or missed run from one on time.
    .optional(&["SESSION", "FINISHED", "EXIT", "TASK", "SCHEDULED FOR"]);
    for r in &found.runs {
        let piped = vec![
            ("RUN", r.run_id.clone()),
            ("TASK", r.task_id.clone()),
            (
                "SCHEDULED FOR",
                r.scheduled_for.clone().unwrap_or_else(|| "-".into()),
            ),
            ("STARTED", r.started_at.clone()),
            ("FINISHED", r.finished_at.clone()),
            ("STATUS", r.status.as_str().to_string()),
            ("EXIT", exit(r)),
            (
                "SESSION",
                r.session_id.clone().unwrap_or_else(|| "-".into()),
            ),
            ("OUTPUT", last_line(r)),
        ];
        // Times in the local zone; the session id shortened like a commit id (all of it is in
        // the piped and JSON output).
        table.row_piped(
            vec![
                r.run_id.clone(),
                r.task_id.clone(),
                time(r.scheduled_for.as_deref(), "%Y-%m-%d %H:%M %:z"),
                time(Some(&r.started_at), "%Y-%m-%d %H:%M:%S %:z"),
                time(Some(&r.finished_at), "%H:%M:%S"),
                r.status.as_str().to_string(),
                exit(r),
                r.session_id
                    .as_deref()
                    .map_or("-".to_string(), |s| s.chars().take(8).collect()),
                last_line(r),
            ],
            piped,
        );
    }
    ctx.ui.table(&table, args)
}

// ---------------------------------------------------------------------------------------------
// daemon

fn cmd_daemon(ctx: &Context) -> Result<()> {
    let daemon = Daemon::new(runner(ctx)?, DaemonOptions::default()).map_err(CommandError::from)?;
    let control = daemon.control();
    on_stop_signal(move |signal| control.stop(signal))
        .map_err(|e| CommandError::failed(format!("cannot handle signals: {e}")))?;
    let zone = local_zone(ctx);
    daemon
        .run(&mut |event| {
            let result = if ctx.ui.json {
                ctx.ui.json_line(&event_json(&event))
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
        .map_err(CommandError::from)?;
    // SIGINT and SIGTERM are both a requested, clean stop: exit 0.
    Ok(())
}

pub(crate) fn event_json(event: &DaemonEvent) -> Value {
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
            latest,
            count,
            catch_up,
        } => json!({"event": "missed", "taskId": task_id, "taskName": task_name,
                    "scheduledFor": timestamp(*scheduled_for), "latest": timestamp(*latest),
                    "count": count, "catchUp": catch_up}),
        DaemonEvent::Orphan(r) => {
            let mut v = record(r);
            v["event"] = "orphan".into();
            v
        }
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

pub(crate) fn event_text(event: &DaemonEvent, zone: Zone) -> String {
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
                Some((id, at)) => format!("; next run: {id} at {}", zoned_time(*at, zone)),
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
            latest,
            count,
            catch_up,
        } => {
            let when = match count {
                1 => format!("at {}", zoned_time(*scheduled_for, zone)),
                n => format!(
                    "{n} times, {} to {}",
                    zoned_time(*scheduled_for, zone),
                    zoned_time(*latest, zone)
                ),
            };
            let then = if *catch_up {
                "catchUp: running it once now"
            } else {
                "not caught up; --catch-up runs it once"
            };
            format!("missed   {task_id} \"{task_name}\" {when} ({then})")
        }
        DaemonEvent::Orphan(r) => format!(
            "ended    {} \"{}\": run {} left behind by a daemon that died ({})",
            r.task_id,
            r.task_name,
            r.run_id,
            outcome(r)
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

pub(crate) fn local_zone(ctx: &Context) -> Zone {
    local_zone_in(&ctx.env)
}

/// `Sun 2026-03-08 03:00 -04:00`: with the offset, never an abbreviation (`CST` is three
/// zones).
fn zoned_time(t: DateTime<Utc>, zone: Zone) -> String {
    t.with_timezone(&zone)
        .format("%a %Y-%m-%d %H:%M %:z")
        .to_string()
}

/// How far `t` is from `now`, rounded: `in 40 s`, `in 25 min`, `in 3 h`, `in 2 d` (`ago` for a
/// time past).
fn relative(now: DateTime<Utc>, t: DateTime<Utc>) -> String {
    let secs = (t - now).num_seconds();
    let (past, secs) = (secs < 0, secs.unsigned_abs());
    let round = |unit: u64| (secs + unit / 2) / unit;
    let amount = match secs {
        0..60 => format!("{secs} s"),
        60..3_570 => format!("{} min", round(60)),
        3_570..129_600 => format!("{} h", round(3_600).max(1)),
        _ => format!("{} d", round(86_400)),
    };
    if past {
        format!("{amount} ago")
    } else {
        format!("in {amount}")
    }
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
    tasks::load(ctx.homes()?).map_err(CommandError::from)
}

/// `--space` (resolved to its id) or `--cwd` (made absolute; must exist). An empty value
/// means the agent home.
fn target_of(ctx: &Context, options: &TaskSettings) -> Result<Option<Target>> {
    if options.space.is_none() && options.cwd.is_none() {
        return Ok(None);
    }
    target_in(ctx.homes()?, &ctx.cwd, options)
}

fn runner(ctx: &Context) -> Result<Runner> {
    Ok(runner_for(ctx.homes()?, ctx.settings()?))
}

/// With pi as the agent, a prompt pi's `-p` would misread (`-…`, `@…`) is refused before it is
/// stored (the runner refuses it too, for tasks written otherwise; see `schedule::pi`).
fn refuse_what_pi_misreads(ctx: &Context, prompt: &str) -> Result<()> {
    let Ok(settings) = ctx.settings() else {
        return Ok(());
    };
    let is_pi = settings
        .agent_command
        .as_ref()
        .and_then(|c| c.first())
        .is_some_and(|p| crate::schedule::pi::is_pi(p));
    match crate::schedule::pi::misread_prompt(prompt) {
        Some(why) if is_pi => Err(CommandError::usage(format!(
            "the agent command is pi, and {why}"
        ))
        .with_code("invalid_task")
        .with_hint("start the prompt with another character: pi has no `--` to end its options")),
        _ => Ok(()),
    }
}

/// pi's command line for scheduled runs (docs/pi.md), offered when pi is on `PATH`.
const PI_AGENT: [&str; 9] = [
    "pi",
    "--model",
    "{model}",
    "--thinking",
    "{effort}",
    "--session",
    "{session}",
    "-p",
    "{prompt}",
];

/// After `create`, when no `[agent] command` is set: on a terminal (not with `--json`), with
/// pi on `PATH`, asks whether to set pi's command line (`config::set_agent_command`);
/// otherwise, or when the answer is no, warns that runs fail until one is set, and how.
fn offer_agent(ctx: &Context) -> Result<()> {
    let (Ok(settings), Ok(homes)) = (ctx.settings(), ctx.homes()) else {
        return Ok(());
    };
    if settings.agent_command.is_some() {
        return Ok(());
    }
    let toml = homes.finch_toml();
    let interactive = ctx.ui.stdin_tty && ctx.ui.stderr_tty && !ctx.ui.json;
    if let Some(pi) = program_on_path(ctx, "pi").filter(|_| interactive) {
        let question = format!(
            "No agent command is set, so the task cannot run yet. Run tasks with pi ({})? \
             This sets [agent] command in {}",
            pi.display(),
            toml.display()
        );
        if ctx.ui.confirm(&question)? {
            let command: Vec<String> = PI_AGENT.iter().map(|a| a.to_string()).collect();
            crate::config::set_agent_command(&toml, &command, settings.lock_timeout).map_err(
                |e| match e {
                    crate::config::ConfigError::Lock(l) => {
                        CommandError::new(ErrorKind::Locked, l.to_string())
                    }
                    other => CommandError::failed(other.to_string()),
                },
            )?;
            return ctx.ui.done_line(format!(
                "{} Set [agent] command in {}: tasks run pi (see `finch schedule create --help`)",
                ctx.ui.green("✓"),
                toml.display()
            ));
        }
    }
    ctx.ui.warn(format!(
        "no agent command is configured yet; runs fail until `[agent] command` is set in {} \
         (for pi: command = [\"pi\", \"-p\", \"{{prompt}}\"]; `finch schedule create --help` says more)",
        toml.display()
    ));
    Ok(())
}

/// The first executable file named `program` in the directories of `PATH`.
fn program_on_path(ctx: &Context, program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = ctx.env.get("PATH")?;
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
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
