//! `finch run`: its arguments, turned into the host's options, and a dispatch to one of the
//! host's front ends — the console, `--jsonl` or `--serve mcp` (`crate::host::frontend`).
//! `SessionArgs` are shared with `finch tool call`, so both build the same host
//! (`crate::host::assembly`): same catalog, gateway, cards and transcript.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::Context;
use crate::error::{CommandError, Result};
use crate::homes::absolutize;
use crate::host::assembly::{Assembly, External, HostOptions, Layers};
use crate::host::call::confine::Grants;
use crate::host::frontend;
use crate::host::policy::Mode;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Read one JSON request per stdin line ({"id","tool","arguments"}), answer one per stdout line
    #[arg(long)]
    pub jsonl: bool,
    #[command(flatten)]
    pub session: SessionArgs,
    /// Leave out the runtime built-in tools
    #[arg(long)]
    pub no_builtins: bool,
    /// Serve the session's tools to an agent over this protocol on stdin/stdout (only: mcp)
    #[arg(long, value_enum, value_name = "PROTOCOL", conflicts_with = "jsonl")]
    pub serve: Option<ServeProtocol>,
    /// With --serve mcp: also list `CallTool` {name, arguments}, which calls any active tool
    /// (those ToolSearch activated too) through the same gateway, for clients that never list
    /// tools again (Codex CLI)
    #[arg(long, requires = "serve")]
    pub call_tool: bool,
}

/// What `--serve` speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ServeProtocol {
    /// An MCP server on stdio: tools/list, tools/call, cards through elicitation
    Mcp,
}

/// What every host session takes: mode, approvals, working directory, session to continue.
#[derive(Debug, Args)]
pub struct SessionArgs {
    /// Permission mode (default: finch.toml [host] mode, else ask)
    #[arg(long, value_enum, value_name = "MODE")]
    pub mode: Option<ModeArg>,
    /// Answer the permission cards of this exact tool name with "allow" (repeatable; logged)
    #[arg(long, value_name = "TOOL", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::tool_names))]
    pub approve: Vec<String>,
    /// Working directory of the session (default: the current directory)
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Continue this session's transcript instead of starting a new one (id or unique prefix)
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Load the mini tool in this directory for this run only, without installing it (repeatable)
    #[arg(long = "minitool", value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub minitool: Vec<PathBuf>,
    /// Where the kernel cannot confine mini tools: let this one start unconfined, and record
    /// that agreement for its id (repeatable)
    #[arg(long, value_name = "ID", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::installed_ids))]
    pub approve_unconfined: Vec<String>,
    /// Let Bash commands in finch's sandbox also read this directory (repeatable)
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub allow_read: Vec<PathBuf>,
    /// Let Bash commands that run without a card write the workspace, as approved ones do;
    /// with =DIR, let every Bash command also write that directory (repeatable)
    #[arg(
        long,
        value_name = "DIR",
        num_args = 0..=1,
        require_equals = true,
        action = clap::ArgAction::Append,
        value_hint = clap::ValueHint::DirPath
    )]
    pub allow_write: Option<Vec<PathBuf>>,
    /// Let Bash commands in finch's sandbox use the network, also those that run without a card
    #[arg(long)]
    pub allow_network: bool,
    /// Run Bash commands without finch's sandbox: every Bash command then takes a card, as
    /// where the kernel cannot hold the sandbox (--approve Bash answers it)
    #[arg(long)]
    pub unsandboxed: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Cards for everything outside autoAllow
    Ask,
    /// The fast lane runs without cards
    #[value(name = "acceptCalls")]
    AcceptCalls,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Ask => Mode::Ask,
            ModeArg::AcceptCalls => Mode::AcceptCalls,
        }
    }
}

pub fn cmd_run(ctx: &Context, args: &RunArgs) -> Result<()> {
    if ctx.global.jq.is_some() && (args.jsonl || args.serve.is_some()) {
        // Their stdout is a protocol the other side parses, not `--json` output to filter.
        return Err(CommandError::usage(
            "--jq filters --json output; --jsonl and --serve speak a protocol on stdout",
        )
        .with_hint("pipe the JSON Lines through jq instead"));
    }
    let layers = Layers {
        builtins: !args.no_builtins,
        external: External::All,
        background: true,
    };
    let mut options = host_options(ctx, &args.session, layers);
    // A start under --jsonl or --serve mcp is watched by a program, not a person.
    options.ask_unconfined = args.serve.is_none() && !args.jsonl;
    let assembly = Assembly::new(options, &ctx.ui);
    let env = ctx.host_env()?;
    match args.serve {
        Some(ServeProtocol::Mcp) => frontend::mcp::run(
            env,
            &assembly,
            frontend::mcp::ServeOptions {
                call_tool: args.call_tool,
            },
        ),
        None if args.jsonl => frontend::jsonl::run(env, &assembly),
        None => frontend::console::run(env, &assembly),
    }
}

/// The host's options from the session flags (paths made absolute against the current
/// directory).
pub(crate) fn host_options(ctx: &Context, args: &SessionArgs, layers: Layers) -> HostOptions {
    HostOptions {
        mode: args.mode.map(Mode::from),
        approve: args.approve.clone(),
        cwd: absolutize(args.cwd.as_deref().unwrap_or(&ctx.cwd), &ctx.cwd),
        session: args.session.clone(),
        join_titled: None,
        minitools: args
            .minitool
            .iter()
            .map(|d| absolutize(d, &ctx.cwd))
            .collect(),
        layers,
        approve_unconfined: args.approve_unconfined.clone(),
        ask_unconfined: true,
        session_allow_owners: Vec::new(),
        command: "finch run",
        grants: grants(ctx, args),
    }
}

/// What the sandbox flags grant the run's Bash commands, their directories absolute (and real,
/// where they exist: the kernel holds a directory by what it really is).
fn grants(ctx: &Context, args: &SessionArgs) -> Grants {
    let dir = |d: &PathBuf| {
        let dir = absolutize(d, &ctx.cwd);
        std::fs::canonicalize(&dir).unwrap_or(dir)
    };
    Grants {
        read: args.allow_read.iter().map(dir).collect(),
        write: args
            .allow_write
            .as_ref()
            .map(|dirs| dirs.iter().map(dir).collect()),
        network: args.allow_network,
        unsandboxed: args.unsandboxed,
    }
}
