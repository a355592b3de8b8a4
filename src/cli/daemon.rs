//! `finch daemon`: run the daemon in the foreground (as a service manager does), ask a running
//! one for its status or to stop, read the logs it keeps, and install it as a user service. The
//! logic is in `crate::daemon`.

use std::time::Duration;

use chrono::Utc;
use clap::{Args, Subcommand, ValueEnum};
use serde_json::{Value, json};

use crate::Context;
use crate::daemon::host::{self, Event};
use crate::daemon::protocol::{DaemonStatus, Reply, Request, ScheduleStatus};
use crate::daemon::service::{Manager, ServiceSpec, shell_line};
use crate::daemon::{DaemonError, DaemonPaths, client, logs};
use crate::error::{CommandError, ErrorKind, Result};
use crate::ui::{Table, TableArgs};

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct DaemonArgs {
    #[command(subcommand)]
    pub command: Option<DaemonCommand>,
}

#[derive(Debug, Subcommand)]
pub enum DaemonCommand {
    /// Show each mini tool of the running daemon: state, pid, restarts, memory, last error
    Status(TableArgs),
    /// Stop the running daemon and wait until it has ended
    Stop,
    /// Print the last lines of a mini tool's log, or of the daemon's own log without ID
    Logs(LogsArgs),
    /// Write a user service (systemd on Linux, launchd on macOS) that runs `finch daemon`
    Install(InstallArgs),
}

#[derive(Debug, Args)]
pub struct LogsArgs {
    /// The mini tool whose log to print (default: the daemon's own log)
    #[arg(value_name = "ID", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::installed_ids))]
    pub id: Option<String>,
    /// How many lines
    #[arg(short = 'n', long, default_value_t = 50, value_name = "N")]
    pub lines: usize,
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    /// The service manager to write for (default: systemd on Linux, launchd on macOS)
    #[arg(long, value_enum, value_name = "MANAGER")]
    pub manager: Option<ManagerArg>,
    /// Print the file and where it would go; write nothing
    #[arg(long, visible_alias = "print")]
    pub dry_run: bool,
    /// Replace a file that is already there and says something else
    #[arg(long)]
    pub force: bool,
    /// Also load and start the service now (`systemctl --user enable --now`, `launchctl
    /// bootstrap`)
    #[arg(long, conflicts_with = "dry_run")]
    pub start: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ManagerArg {
    /// A systemd user unit (Linux)
    Systemd,
    /// A launchd agent (macOS)
    Launchd,
}

impl From<ManagerArg> for Manager {
    fn from(m: ManagerArg) -> Manager {
        match m {
            ManagerArg::Systemd => Manager::Systemd,
            ManagerArg::Launchd => Manager::Launchd,
        }
    }
}

pub fn run(ctx: &Context, args: &DaemonArgs) -> Result<()> {
    match &args.command {
        None => cmd_run(ctx),
        Some(DaemonCommand::Status(table)) => cmd_status(ctx, *table),
        Some(DaemonCommand::Stop) => cmd_stop(ctx),
        Some(DaemonCommand::Logs(a)) => cmd_logs(ctx, a),
        Some(DaemonCommand::Install(a)) => cmd_install(ctx, a),
    }
}

impl From<DaemonError> for CommandError {
    fn from(err: DaemonError) -> CommandError {
        let message = err.to_string();
        match err {
            DaemonError::Running { lock, .. } => CommandError::new(ErrorKind::Locked, message)
                .with_code("daemon_running")
                .with_hint(format!(
                    "`finch daemon status` shows it, `finch daemon stop` stops it (lock: {})",
                    lock.display()
                )),
            DaemonError::NotRunning { .. } => CommandError::not_found(message)
                .with_code("daemon_not_running")
                .with_hint("start it with `finch daemon`, or as a service: `finch daemon install`"),
            DaemonError::SocketPathTooLong { .. } => CommandError::failed(message)
                .with_hint("use a shorter runtime home (--runtime-home or FINCH_RUNTIME_HOME)"),
            _ => CommandError::failed(message),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// the daemon itself

fn cmd_run(ctx: &Context) -> Result<()> {
    let homes = ctx.homes()?;
    let settings = ctx.settings()?;
    let paths = DaemonPaths::of(homes);
    let zone = crate::cli::schedule::local_zone(ctx);
    let mut say = |event: Event| {
        let time = Utc::now();
        for line in event_lines(&event, zone) {
            let stamped = format!(
                "{} {line}",
                time.with_timezone(&zone).format("%Y-%m-%d %H:%M:%S")
            );
            let _ = logs::append(&paths.log, &stamped);
            if !ctx.ui.json {
                ctx.ui.status(stamped);
            }
        }
        if ctx.ui.json {
            // A closed stdout must not stop the daemon.
            let _ = ctx.ui.json_line(&event_json(&event, time));
        }
    };
    host::run(homes, settings, &ctx.env, &mut say)?;
    // SIGINT, SIGTERM and `finch daemon stop` are all a requested, clean stop: exit 0.
    Ok(())
}

fn event_lines(event: &Event, zone: crate::schedule::zone::Zone) -> Vec<String> {
    match event {
        Event::Ready {
            pid,
            socket,
            report,
            schedule,
        } => {
            let mut lines = vec![format!(
                "finch daemon {} (pid {pid}) listening on {}",
                env!("CARGO_PKG_VERSION"),
                socket.display()
            )];
            lines.extend(report.problems.iter().map(|p| format!("warning: {p}")));
            lines.extend(report.tools.iter().map(|t| t.line()));
            if report.tools.is_empty() {
                lines.push("no mini tool is enabled (`finch add`, `finch enable`)".into());
            }
            lines.push(match schedule {
                ScheduleStatus::Running => "scheduled tasks: running".into(),
                ScheduleStatus::Off { reason } => format!("scheduled tasks: off ({reason})"),
            });
            lines
        }
        Event::Fault { id, message, log } => {
            vec![format!("mini tool {id} {message} (log: {})", log.display())]
        }
        Event::Notice { id, text } => vec![format!("[{id}] {text}")],
        Event::Restarted { id, pid, restarts } => {
            vec![format!("restarted {id} (pid {pid}, restart {restarts})")]
        }
        Event::RestartFailed { id, error } => vec![format!("could not restart {id}: {error}")],
        Event::Schedule(e) => vec![format!(
            "schedule: {}",
            crate::cli::schedule::event_text(e, zone)
        )],
        Event::Stopping { why } => vec![format!("stopping ({})", why.describe())],
        Event::Stopped => vec!["stopped".into()],
    }
}

fn event_json(event: &Event, time: chrono::DateTime<Utc>) -> Value {
    let time = crate::schedule::tasks::timestamp(time);
    match event {
        Event::Ready {
            pid,
            socket,
            report,
            schedule,
        } => {
            json!({"event": "ready", "time": time, "pid": pid, "socket": socket,
                   "minitools": report.to_json()["minitools"], "problems": report.problems,
                   "schedule": schedule})
        }
        Event::Fault { id, message, log } => {
            json!({"event": "fault", "time": time, "id": id, "message": message, "log": log})
        }
        Event::Notice { id, text } => {
            json!({"event": "notice", "time": time, "id": id, "text": text})
        }
        Event::Restarted { id, pid, restarts } => {
            json!({"event": "restarted", "time": time, "id": id, "pid": pid, "restarts": restarts})
        }
        Event::RestartFailed { id, error } => {
            json!({"event": "restartFailed", "time": time, "id": id, "error": error})
        }
        Event::Schedule(e) => {
            json!({"event": "schedule", "time": time, "schedule": crate::cli::schedule::event_json(e)})
        }
        Event::Stopping { why } => {
            json!({"event": "stopping", "time": time, "why": why.describe()})
        }
        Event::Stopped => json!({"event": "stopped", "time": time}),
    }
}

// ---------------------------------------------------------------------------------------------
// status, stop

fn ask_status(ctx: &Context) -> Result<DaemonStatus> {
    let paths = DaemonPaths::of(ctx.homes()?);
    match client::ask(&paths, Request::Status)? {
        Reply::Status(status) => Ok(status),
        other => Err(DaemonError::Protocol(format!("{other:?}")).into()),
    }
}

fn cmd_status(ctx: &Context, args: TableArgs) -> Result<()> {
    let status = ask_status(ctx)?;
    if ctx.ui.json {
        let value = serde_json::to_value(&status)
            .map_err(|e| CommandError::failed(format!("cannot encode the status: {e}")))?;
        return ctx.ui.json(&value);
    }
    let total: u64 = status.rss_bytes.unwrap_or(0)
        + status
            .minitools
            .iter()
            .filter_map(|m| m.rss_bytes)
            .sum::<u64>();
    ctx.ui.status(format!(
        "finch daemon {} (pid {}) since {}, {} in all; scheduled tasks: {}",
        status.version,
        status.pid,
        status.started_at,
        mib(Some(total)),
        match &status.schedule {
            ScheduleStatus::Running => "running".to_string(),
            ScheduleStatus::Off { reason } => format!("off ({reason})"),
        }
    ));
    let mut table =
        Table::new(&["ID", "STATE", "PID", "RESTARTS", "RSS", "LAST ERROR"]).cut(&["LAST ERROR"]);
    for m in &status.minitools {
        table.row(vec![
            m.id.clone(),
            m.state.clone(),
            m.pid.map_or("-".into(), |p| p.to_string()),
            m.restarts.to_string(),
            mib(m.rss_bytes),
            m.last_error
                .as_deref()
                .map_or("-".to_string(), |e| e.replace('\n', " ")),
        ]);
    }
    ctx.ui.table(&table, args)
}

/// `41.2 MiB`.
fn mib(bytes: Option<u64>) -> String {
    match bytes {
        Some(b) => format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)),
        None => "-".into(),
    }
}

/// How long `stop` waits for the daemon to end: its mini tools' `deactivate()` and its
/// scheduled runs' agents take a few seconds.
const STOP_WAIT: Duration = Duration::from_secs(30);

fn cmd_stop(ctx: &Context) -> Result<()> {
    let paths = DaemonPaths::of(ctx.homes()?);
    let pid = match client::ask(&paths, Request::Stop)? {
        Reply::Stopping { pid } => pid,
        other => return Err(DaemonError::Protocol(format!("{other:?}")).into()),
    };
    if !client::await_exit(&paths, STOP_WAIT) {
        return Err(CommandError::failed(format!(
            "the finch daemon (pid {pid}) was asked to stop but still runs after {} s",
            STOP_WAIT.as_secs()
        ))
        .with_hint(format!("`kill {pid}` ends it")));
    }
    if ctx.ui.json {
        return ctx.ui.json(&json!({"stopped": true, "pid": pid}));
    }
    ctx.ui
        .done_line(format!("✓ Stopped the finch daemon (pid {pid})"))
}

// ---------------------------------------------------------------------------------------------
// logs

fn cmd_logs(ctx: &Context, args: &LogsArgs) -> Result<()> {
    let paths = DaemonPaths::of(ctx.homes()?);
    let path = match &args.id {
        Some(id) => {
            if !crate::minitool::tier::is_entry_name(id) {
                return Err(CommandError::usage(format!("{id:?} is not a mini tool id")));
            }
            paths.minitool_log(id)
        }
        None => paths.log.clone(),
    };
    let Some(lines) = logs::tail(&path, args.lines) else {
        let what = match &args.id {
            Some(id) => format!("mini tool {id} has no log yet"),
            None => "the finch daemon has no log yet".to_string(),
        };
        return Err(CommandError::not_found(format!("{what} ({} does not exist)", path.display()))
            .with_hint("a log appears once the daemon started (`finch daemon`); `finch list` shows the ids"));
    };
    if ctx.ui.json {
        return ctx.ui.json(&json!({"log": path, "lines": lines}));
    }
    ctx.ui.lines(lines)
}

// ---------------------------------------------------------------------------------------------
// install

fn cmd_install(ctx: &Context, args: &InstallArgs) -> Result<()> {
    let homes = ctx.homes()?;
    let manager = args.manager.map_or_else(Manager::native, Manager::from);
    let home = ctx.env.home_dir().ok_or_else(|| {
        CommandError::failed("HOME is not set: cannot tell where user services go")
    })?;
    let file = manager.file_path(&home, ctx.env.get_path("XDG_CONFIG_HOME").as_deref());
    let exe = std::env::current_exe()
        .map_err(|e| CommandError::failed(format!("cannot tell where this finch is: {e}")))?;
    let spec = ServiceSpec {
        exe,
        runtime_home: homes.runtime.clone(),
        agent_home: homes.agent.clone(),
        path: ctx.env.get("PATH").unwrap_or_default(),
        stderr_log: homes.logs_dir().join("daemon.stderr.log"),
    };
    let text = manager.render(&spec);
    let uid = current_uid();
    let start = manager.start_commands(&file, uid);
    let undo = manager.undo_commands(&file, uid);
    if args.dry_run {
        if ctx.ui.json {
            return ctx
                .ui
                .json(&install_json(manager, &file, &text, false, &start, &undo));
        }
        ctx.ui.status(format!(
            "would write {} ({}):",
            file.display(),
            manager.name()
        ));
        return ctx.ui.line(text.trim_end());
    }
    let existing = std::fs::read_to_string(&file).ok();
    let written = match existing {
        Some(old) if old == text => false,
        Some(_) if !args.force => {
            return Err(CommandError::failed(format!(
                "{} already exists and says something else",
                file.display()
            ))
            .with_hint("--force replaces it; --dry-run shows what would be written"));
        }
        _ => {
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| crate::error::io_error("create", dir, &e))?;
            }
            crate::store::write_atomic(&file, text.as_bytes())
                .map_err(|e| crate::error::io_error("write", &file, &e))?;
            true
        }
    };
    let on_path =
        crate::minitool::net::find_program(manager.program(), ctx.env.get("PATH").as_deref())
            .is_some();
    if args.start {
        if !on_path {
            return Err(CommandError::failed(format!(
                "{} was not found on PATH, so the service cannot be started; {} is written",
                manager.program(),
                file.display()
            ))
            .with_hint(
                "run `finch daemon` yourself, or start the file with your service manager",
            ));
        }
        for command in &start {
            run_manager(command)?;
        }
    }
    if ctx.ui.json {
        return ctx
            .ui
            .json(&install_json(manager, &file, &text, written, &start, &undo));
    }
    ctx.ui.done_line(if written {
        format!(
            "✓ Wrote {} ({} {})",
            file.display(),
            manager.name(),
            what(manager)
        )
    } else {
        format!("✓ {} is already installed, unchanged", file.display())
    })?;
    let mut lines = Vec::new();
    if args.start {
        lines.push("started it:".into());
        lines.extend(start.iter().map(|c| format!("  {}", shell_line(c))));
    } else {
        lines.push("start it now and at every login:".into());
        lines.extend(start.iter().map(|c| format!("  {}", shell_line(c))));
        if !on_path {
            lines.push(format!(
                "({} is not on PATH here: start the file with your service manager, or run `finch daemon` yourself)",
                manager.program()
            ));
        }
    }
    if manager == Manager::Systemd {
        lines.push("keep it running while you are logged out:".into());
        lines.push(format!(
            "  loginctl enable-linger {}",
            ctx.env.get("USER").unwrap_or_else(|| "$USER".into())
        ));
    }
    lines.push("undo:".into());
    lines.extend(undo.iter().map(|c| format!("  {}", shell_line(c))));
    for line in lines {
        ctx.ui.status(line);
    }
    Ok(())
}

fn what(manager: Manager) -> &'static str {
    match manager {
        Manager::Systemd => "user unit",
        Manager::Launchd => "agent",
    }
}

fn install_json(
    manager: Manager,
    file: &std::path::Path,
    text: &str,
    written: bool,
    start: &[Vec<String>],
    undo: &[Vec<String>],
) -> Value {
    json!({"manager": manager.name(), "path": file, "written": written, "text": text,
           "start": start, "undo": undo})
}

fn run_manager(command: &[String]) -> Result<()> {
    let Some((program, rest)) = command.split_first() else {
        return Ok(());
    };
    let status = std::process::Command::new(program)
        .args(rest)
        .status()
        .map_err(|e| CommandError::failed(format!("cannot run {}: {e}", shell_line(command))))?;
    if !status.success() {
        return Err(CommandError::failed(format!(
            "`{}` failed ({status})",
            shell_line(command)
        )));
    }
    Ok(())
}

#[cfg(unix)]
fn current_uid() -> u32 {
    // SAFETY: getuid cannot fail and touches no memory.
    unsafe { libc::getuid() }
}

#[cfg(not(unix))]
fn current_uid() -> u32 {
    0
}
