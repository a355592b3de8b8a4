//! `finch sandbox status`, `run`, `grant` and `revoke`: the kernel wall (SPEC §8.5a) for
//! people. `grant`/`revoke` record what a person lets one mini tool do beyond its manifest
//! (`minitool::confine`).
//! `status` says what this kernel can enforce; `run` runs any command under a profile, as the
//! Bash built-in would, with its exit status passed through — which also wraps an MCP stdio
//! server in `servers.json` (`"command": "finch", "args": ["sandbox", "run", "--", …]`).
//!
//! `run` keeps the caller's environment (it is the person's own command; the fast lane's minimal
//! environment is the host's rule for the model's commands, which `--minimal-env` applies — what
//! finch's pi extension asks for when it runs pi's fast-lane `bash` through it) and adds the
//! private `TMPDIR`. The
//! network is off unless `--network` is given, in either profile. Where the kernel cannot
//! enforce the profile, `run` runs nothing and exits 1: a wall that is not there is never
//! pretended.
//!
//! `--writable DIR` belongs to workspace-write: with the default read-only profile it is an
//! error naming the flag to add, not a silent no-op (the write would fail later with a bare
//! `Permission denied`) and not a quiet widening to workspace-write (which would also open the
//! working directory, more than the person asked for). This is codex's rule — its writable
//! roots are part of `workspace-write` and mean nothing in `read-only` — said out loud; a bwrap
//! user who wants exactly one `--bind` gets the flag that does it in the hint.

use std::path::PathBuf;
use std::process::Command;

use clap::{Args, Subcommand, ValueEnum};
use serde_json::json;

use crate::Context;
use crate::error::{CommandError, Result};
use crate::host::policy::{Workspace, protected_paths_below};
use crate::sandbox::{Access, Confinement, Places, Profile, ProfileState, Support};

#[derive(Debug, Subcommand)]
pub enum SandboxCommand {
    /// Show what the kernel here can enforce: Landlock, seccomp, namespaces, each profile
    Status,
    /// Run a command confined to a profile; its exit status is finch's
    Run(RunArgs),
    /// Let a mini tool do more than its manifest declares (recorded in the runtime home)
    Grant(GrantArgs),
    /// Take back what `finch sandbox grant` gave a mini tool
    Revoke(GrantArgs),
    /// Show the network audit log: each connection attempt through finch's proxy
    Log(LogArgs),
}

#[derive(Debug, Args)]
pub struct LogArgs {
    /// Only the attempts of this mini tool (or `bash`, `run`)
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    /// Only attempts since a time (RFC 3339) or for a while back (`30m`, `2h`, `1d`)
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
}

#[derive(Debug, Args)]
pub struct GrantArgs {
    /// The mini tool's id
    #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::installed_ids))]
    pub id: String,
    /// network, shell, filesystem=read, filesystem=readwrite, host=PATTERN (a host its network
    /// may reach through finch's proxy), or unconfined (run it without the kernel wall where
    /// this kernel cannot confine it)
    #[arg(required = true, value_name = "RIGHT")]
    pub rights: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProfileArg {
    /// Read the workspace and the system, write only a private TMPDIR
    ReadOnly,
    /// Also write the working directory and --writable directories (protected paths stay
    /// read-only)
    WorkspaceWrite,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The profile to confine the command to
    #[arg(long, value_enum, default_value_t = ProfileArg::ReadOnly)]
    pub profile: ProfileArg,
    /// Allow the network (TCP and sockets of every family)
    #[arg(long)]
    pub network: bool,
    /// Another directory the command may write (repeatable; needs --profile workspace-write)
    #[arg(long, value_name = "DIR")]
    pub writable: Vec<PathBuf>,
    /// A host the command may reach, through finch's proxy only (repeatable: `name`, `*.suffix`,
    /// an address, each with an optional `:port`); its network is a namespace of its own
    #[arg(long = "host", value_name = "PATTERN", conflicts_with = "network")]
    pub hosts: Vec<String>,
    /// A Unix socket the command may connect to (repeatable; none by default)
    #[arg(long = "unix-socket", value_name = "PATH")]
    pub unix_sockets: Vec<PathBuf>,
    /// The working directory, and the workspace of the profile (default: the current directory)
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Start the command with the fast lane's minimal environment (PATH, HOME, USER, LANG,
    /// LC_*, TERM, … and `[sandbox] env`) instead of this one
    #[arg(long)]
    pub minimal_env: bool,
    /// The command and its arguments (after `--`)
    #[arg(
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "CMD"
    )]
    pub command: Vec<String>,
}

pub fn run(ctx: &Context, cmd: &SandboxCommand) -> Result<()> {
    match cmd {
        SandboxCommand::Status => cmd_status(ctx),
        SandboxCommand::Run(args) => cmd_run(ctx, args),
        SandboxCommand::Grant(args) => cmd_grant(ctx, args, true),
        SandboxCommand::Revoke(args) => cmd_grant(ctx, args, false),
        SandboxCommand::Log(args) => cmd_log(ctx, args),
    }
}

/// `grant` (`on`) and `revoke`: every right is checked before anything is written.
fn cmd_grant(ctx: &Context, args: &GrantArgs, on: bool) -> Result<()> {
    use crate::minitool::confine::{self, Right};
    if !crate::minitool::tier::is_entry_name(&args.id) {
        return Err(CommandError::usage(format!(
            "{:?} is not a mini tool id",
            args.id
        )));
    }
    let rights = args
        .rights
        .iter()
        .map(|r| Right::parse(r))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(CommandError::usage)?;
    let homes = ctx.homes()?;
    let settings = ctx.settings()?;
    if !crate::minitool::tier::is_installed(homes, &args.id) {
        ctx.ui.warn(format!(
            "{} is not installed; the grant applies to a mini tool of that id (also --minitool)",
            args.id
        ));
    }
    let mut grant = confine::Grant::default();
    for right in rights {
        grant = confine::set_grant(homes, &args.id, right, on, settings.lock_timeout)?;
    }
    if ctx.ui.json {
        return ctx
            .ui
            .json(&json!({"id": args.id, "grants": grant.to_json()}));
    }
    let now = grant.to_json();
    let names: Vec<String> = now
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| match v {
            serde_json::Value::String(s) => format!("{k}={s}"),
            serde_json::Value::Array(list) => {
                format!("{k}={}", crate::minitool::confine::host_list(list))
            }
            _ => k.clone(),
        })
        .collect();
    ctx.ui.line(if names.is_empty() {
        format!("{} has no grants: it is held to its manifest", args.id)
    } else {
        format!(
            "{} is granted beyond its manifest: {}",
            args.id,
            names.join(", ")
        )
    })
}

fn cmd_log(ctx: &Context, args: &LogArgs) -> Result<()> {
    use crate::sandbox::netlog;
    let since = args
        .since
        .as_deref()
        .map(|text| parse_since(text, chrono::Utc::now()))
        .transpose()
        .map_err(CommandError::usage)?;
    let homes = ctx.homes()?;
    let entries = netlog::read(&homes.runtime, args.id.as_deref(), since);
    if ctx.ui.json {
        return ctx
            .ui
            .json(&serde_json::to_value(&entries).unwrap_or_default());
    }
    for entry in &entries {
        ctx.ui.line(netlog::describe(entry))?;
    }
    Ok(())
}

/// `--since`: an RFC 3339 time, or a while back from `now` (`30s`, `30m`, `2h`, `1d`).
fn parse_since(
    text: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> std::result::Result<chrono::DateTime<chrono::Utc>, String> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(text) {
        return Ok(t.with_timezone(&chrono::Utc));
    }
    let bad =
        || format!("--since {text:?}: use an RFC 3339 time or a while back such as 30m, 2h, 1d");
    let (digits, unit) = text.split_at(text.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?);
    let n: i64 = digits.parse().map_err(|_| bad())?;
    let seconds = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86400,
        _ => return Err(bad()),
    };
    n.checked_mul(seconds)
        .and_then(chrono::Duration::try_seconds)
        .and_then(|d| now.checked_sub_signed(d))
        .ok_or_else(bad)
}

fn cmd_status(ctx: &Context) -> Result<()> {
    let support = Support::get();
    let minitools = minitools_status(ctx)?;
    if ctx.ui.json {
        let mut v = support.to_json();
        v["minitools"] = minitools;
        v["hosts"] = if hosts_enforced(support) {
            "enforced".into()
        } else {
            format!("partial: {}", crate::sandbox::NO_NETWORK_NAMESPACES).into()
        };
        return ctx.ui.json(&v);
    }
    let agreed: Vec<&str> = minitools["unconfined"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str())
        .collect();
    let mini_line = match minitools["why"].as_str() {
        Some(why) => format!(
            "{} ({why}): a mini tool starts only once a person agreed that it runs unconfined (--approve-unconfined <id>, its card on a terminal, or `finch sandbox grant <id> unconfined`); agreed: {}",
            minitools["status"].as_str().unwrap_or_default(),
            if agreed.is_empty() {
                "none".to_string()
            } else {
                agreed.join(", ")
            }
        ),
        None => match minitools["status"].as_str() {
            Some("off") => {
                "off ([sandbox] minitools = \"off\"): mini tools run with every right of the user"
                    .to_string()
            }
            _ => "each mini tool confined to what its manifest declares".to_string(),
        },
    };
    let mut lines = Vec::new();
    for (name, state, detail) in status_lines(support) {
        let mark = match state {
            LineState::Ok => ctx.ui.green("✓"),
            LineState::Warn => ctx.ui.yellow("⚠"),
        };
        lines.extend(ctx.ui.hanging(&format!("{mark} {name:<8} "), 11, &detail));
    }
    let mark = if minitools["status"] == "enforced" {
        ctx.ui.green("✓")
    } else {
        ctx.ui.yellow("⚠")
    };
    // Wrapped at spaces on a terminal, each detail under its column.
    lines.extend(
        ctx.ui
            .hanging(&format!("{mark} {:<8} ", "minitool"), 11, &mini_line),
    );
    ctx.ui.lines(lines)
}

/// `minitools` of `finch sandbox status --json`: `[sandbox] minitools`, whether the kernel
/// here holds a mini tool that declares nothing (and why not), and the ids a person agreed to
/// run unconfined where it cannot.
fn minitools_status(ctx: &Context) -> Result<serde_json::Value> {
    use crate::config::MiniToolWall;
    use crate::minitool::confine;
    let setting = ctx.settings()?.sandbox.minitools;
    let agreed = confine::agreed_unconfined(ctx.homes()?);
    if setting == MiniToolWall::Off {
        return Ok(json!({"setting": "off", "status": "off", "unconfined": agreed}));
    }
    let strictest = confine::Declared::from_permissions(None);
    Ok(match confine::kernel_gap(&strictest) {
        None => json!({"setting": "manifest", "status": "enforced", "unconfined": agreed}),
        Some(why) => {
            json!({"setting": "manifest", "status": "unavailable", "why": why, "unconfined": agreed})
        }
    })
}

/// Whether a status line is fine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineState {
    Ok,
    Warn,
}

/// The lines of `finch sandbox status` (also shown by `finch doctor --env`).
pub fn status_lines(support: &Support) -> Vec<(String, LineState, String)> {
    let ok = |yes: bool| if yes { LineState::Ok } else { LineState::Warn };
    let mut lines = vec![
        (
            "Landlock".to_string(),
            ok(support.landlock.as_str() == "enforced"),
            match support.landlock.abi() {
                Some(abi) => format!("ABI {abi}, {}", support.landlock.as_str()),
                None => "unavailable".to_string(),
            },
        ),
        (
            "seccomp".to_string(),
            ok(support.seccomp),
            if support.seccomp { "yes" } else { "no" }.to_string(),
        ),
        (
            "trees".to_string(),
            ok(support.namespaces().is_some() && support.process_limit()),
            trees_line(support),
        ),
    ];
    // One line for both profiles, so that `finch doctor --env` keeps its columns.
    let states: Vec<ProfileState> = Profile::ALL.iter().map(|p| support.profile(*p)).collect();
    let detail = Profile::ALL
        .iter()
        .zip(&states)
        .map(|(profile, state)| match state.why() {
            Some(why) => format!("{profile} {} ({why})", state.as_str()),
            None => format!("{profile} {}", state.as_str()),
        })
        .collect::<Vec<_>>()
        .join("; ");
    lines.push((
        "sandbox".to_string(),
        ok(states.iter().all(ProfileState::is_enforced)),
        detail,
    ));
    let hosts =
        support.profile(Profile::WorkspaceWrite).is_enforced() && support.network_namespace();
    lines.push((
        "hosts".to_string(),
        ok(hosts),
        if hosts {
            "enforced: a tree with a host list gets a network namespace of its own whose only way out is finch's proxy".to_string()
        } else {
            format!(
                "partial: {}; a mini tool or command with a host list gets no network",
                crate::sandbox::NO_NETWORK_NAMESPACES
            )
        },
    ));
    lines.push((
        "sockets".to_string(),
        LineState::Ok,
        "pathname Unix sockets refused unless [sandbox] unix_sockets names one (Landlock cannot tell them apart before ABI 9, so naming one opens them all)".to_string(),
    ));
    lines
}

/// Whether a host list is held here: the wall, and a network namespace per tree.
fn hosts_enforced(support: &Support) -> bool {
    support.profile(Profile::WorkspaceWrite).is_enforced() && support.network_namespace()
}

/// What each confined process tree gets here: its namespaces, its `/proc`, its process limit.
fn trees_line(support: &Support) -> String {
    if support.namespaces().is_none() {
        return format!("no: {}", crate::sandbox::NO_NAMESPACES);
    }
    let limit = if support.process_limit() {
        format!("at most {} processes", crate::sandbox::PROCESS_LIMIT)
    } else {
        "no process limit (root, and this kernel keeps no pid_max per namespace before Linux 6.14)"
            .to_string()
    };
    format!(
        "each confined tree in a PID and mount namespace of its own, with its own /proc; {limit}"
    )
}

fn cmd_run(ctx: &Context, args: &RunArgs) -> Result<()> {
    let profile = match args.profile {
        ProfileArg::ReadOnly => Profile::ReadOnly,
        ProfileArg::WorkspaceWrite => Profile::WorkspaceWrite,
    };
    if profile == Profile::ReadOnly
        && let Some(dir) = args.writable.first()
    {
        return Err(CommandError::usage(format!(
            "--writable {} needs --profile workspace-write: the read-only profile writes nowhere but its private TMPDIR",
            dir.display()
        ))
        .with_hint(format!(
            "run `finch sandbox run --profile workspace-write --writable {} -- …` (the working directory becomes writable too; pass --cwd to choose it)",
            dir.display()
        )));
    }
    let state = Support::get().profile(profile);
    if let ProfileState::Unavailable(why) = state {
        return Err(CommandError::failed(format!(
            "cannot run `{}` in the {profile} sandbox: {why}",
            args.command.join(" ")
        ))
        .with_hint("`finch sandbox status` shows what this kernel can enforce"));
    }
    let cwd = crate::homes::absolutize(args.cwd.as_deref().unwrap_or(&ctx.cwd), &ctx.cwd);
    let cwd = std::fs::canonicalize(&cwd).map_err(|e| {
        CommandError::failed(format!(
            "cannot use {} as the working directory: {e}",
            cwd.display()
        ))
    })?;
    let mut writable = Vec::new();
    for dir in &args.writable {
        let dir = crate::homes::absolutize(dir, &ctx.cwd);
        writable.push(
            std::fs::canonicalize(&dir)
                .map_err(|e| CommandError::failed(format!("--writable {}: {e}", dir.display())))?,
        );
    }
    let home = ctx.env.home_dir();
    let runtime = ctx.homes().ok().map(|h| h.runtime.clone());
    let workspace = Workspace {
        cwd: cwd.clone(),
        project: cwd.clone(),
        trusted: writable.clone(),
        home: home.clone(),
        runtime,
    };
    let protected = std::iter::once(&cwd)
        .chain(&writable)
        .flat_map(|root| protected_paths_below(root, &workspace))
        .collect();
    let settings = ctx.settings().ok();
    let places = Places {
        roots: vec![cwd.clone()],
        protected,
        home,
        path: ctx.env.get_path("PATH").map(PathBuf::into_os_string),
        extra_read: settings.map(|s| s.sandbox.read.clone()).unwrap_or_default(),
        extra_write: writable,
        network: args.network,
        unix_sockets: Vec::new(),
    };
    let hosts = args
        .hosts
        .iter()
        .map(|h| crate::sandbox::hosts::HostPattern::parse(h))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| CommandError::usage(format!("--host {e}")))?;
    let mut access = Access::for_profile(profile, &places);
    access.network = args.network;
    access.proxied = !hosts.is_empty();
    access.unix_sockets = args
        .unix_sockets
        .iter()
        .map(|p| crate::homes::absolutize(p, &ctx.cwd))
        .collect();
    let mut confinement =
        Confinement::prepare(access).map_err(|e| CommandError::failed(e.to_string()))?;
    let (program, rest) = args
        .command
        .split_first()
        .ok_or_else(|| CommandError::usage("no command to run"))?;
    let mut command = Command::new(program);
    command.args(rest).current_dir(&cwd);
    if args.minimal_env {
        let extra = settings.map(|s| s.sandbox.env.clone()).unwrap_or_default();
        command
            .env_clear()
            .envs(crate::sandbox::env::minimal(ctx.env.iter(), &extra));
    }
    if !hosts.is_empty() {
        use crate::sandbox::proxy::{Policy, Principal};
        let mut policy = Policy::new(Principal::Run, Box::new(move || hosts.clone()));
        policy.audit = ctx
            .homes()
            .ok()
            .map(|h| crate::sandbox::netlog::AuditLog::new(&h.runtime));
        confinement.set_proxy(std::sync::Arc::new(policy));
    }
    confinement.apply(&mut command);
    if ctx.ui.verbose {
        crate::eline!(
            "finch: running `{}` in the {profile} sandbox (network {}), TMPDIR {}",
            args.command.join(" "),
            if args.network {
                "on"
            } else if !args.hosts.is_empty() {
                "through finch's proxy"
            } else {
                "off"
            },
            confinement.tmpdir().display()
        );
    }
    let cannot_run = |e: std::io::Error| {
        CommandError::failed(format!("cannot run `{program}` in the sandbox: {e}"))
            .with_hint("is it installed, and inside a directory the profile may read and execute?")
    };
    let mut child = command.spawn().map_err(cannot_run)?;
    drop(command);
    {
        if let Err(e) = confinement.serve_proxy() {
            let _ = child.kill();
            let _ = child.wait();
            return Err(CommandError::failed(format!(
                "cannot serve finch's proxy to `{program}`: {e}"
            )));
        }
    }
    let status = child.wait().map_err(cannot_run)?;
    drop(confinement);
    if ctx.ui.json {
        ctx.ui.json(&json!({
            "profile": profile.as_str(),
            "network": args.network,
            "exitCode": status.code(),
            "signal": exit_signal(&status),
        }))?;
    }
    match (status.code(), exit_signal(&status)) {
        (Some(0), _) => Ok(()),
        (Some(code), _) => Err(CommandError::exit(u8::try_from(code).unwrap_or(1))),
        (None, Some(signal)) => Err(CommandError::exit(
            u8::try_from(128 + signal).unwrap_or(255),
        )),
        (None, None) => Err(CommandError::failed("lost track of the command's process")),
    }
}

fn exit_signal(status: &std::process::ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}
