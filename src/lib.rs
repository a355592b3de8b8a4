//! finch: parse the command line, build the context every command receives, dispatch, and turn
//! the outcome into an exit code. Commands live in `cli/`, their domain logic in the modules below.

pub mod authoring;
pub mod capture;
pub mod cli;
pub mod config;
pub mod env;
pub mod error;
pub mod homes;
pub mod host;
pub mod ids;
pub mod memory;
pub mod minitool;
pub mod node;
pub mod redact;
pub mod sandbox;
pub mod schedule;
pub mod search;
pub mod session;
pub mod skill;
pub mod space;
pub mod store;
pub mod ui;

use std::cell::OnceCell;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::FromArgMatches;

use crate::cli::{Cli, Command, GlobalArgs};
use crate::config::{Config, Settings};
use crate::env::Env;
use crate::error::{CommandError, ErrorKind, Result};
use crate::homes::Homes;
use crate::ui::Ui;

/// What every command gets: the printer, the environment snapshot, the working directory, and
/// the homes and settings, each resolved once on first use.
pub struct Context {
    pub ui: Ui,
    pub env: Env,
    pub cwd: PathBuf,
    pub global: GlobalArgs,
    homes: OnceCell<Homes>,
    settings: OnceCell<Settings>,
}

impl Context {
    pub fn homes(&self) -> Result<&Homes> {
        if let Some(h) = self.homes.get() {
            return Ok(h);
        }
        let homes = Homes::resolve(
            self.global.runtime_home.as_deref(),
            self.global.agent_home.as_deref(),
            &self.env,
            &self.cwd,
        )
        .map_err(|e| match e {
            homes::HomesError::Settings(j) => CommandError::failed(j.to_string())
                .with_code("corrupt_state")
                .with_hint("fix the file, or run `finch doctor --state` to move it aside"),
            other => CommandError::failed(other.to_string()),
        })?;
        Ok(self.homes.get_or_init(|| homes))
    }

    /// This command's clock, read once: `FINCH_NOW` (an RFC 3339 time, a testing and scripting
    /// aid) when set, else the system clock with the local offset.
    pub fn now(&self) -> Result<chrono::DateTime<chrono::FixedOffset>> {
        match self.env.get("FINCH_NOW") {
            Some(text) => chrono::DateTime::parse_from_rfc3339(&text).map_err(|_| {
                CommandError::failed(format!("FINCH_NOW=\"{text}\" is not an RFC 3339 time"))
                    .with_hint("write e.g. FINCH_NOW=2026-11-29T09:15:00+01:00, or unset it")
            }),
            None => Ok(chrono::Local::now().fixed_offset()),
        }
    }

    /// What a host needs from this process: homes, settings, environment, and the fixed clock
    /// when `FINCH_NOW` is set.
    pub fn host_env(&self) -> Result<host::HostEnv> {
        Ok(host::HostEnv {
            homes: self.homes()?.clone(),
            settings: self.settings()?.clone(),
            env: self.env.clone(),
            fixed_now: match self.env.get("FINCH_NOW") {
                Some(_) => Some(self.now()?),
                None => None,
            },
            embed_resources: false,
        })
    }

    pub fn settings(&self) -> Result<&Settings> {
        if let Some(s) = self.settings.get() {
            return Ok(s);
        }
        let path = self.homes()?.finch_toml();
        let settings = Config::load(&path)
            .and_then(|c| c.settings(&path))
            .map_err(|e| CommandError::failed(e.to_string()))?;
        Ok(self.settings.get_or_init(|| settings))
    }
}

/// The whole program; `main.rs` only calls this.
pub fn main() -> ExitCode {
    // A confined tree's reaper (`sandbox::reaper`) is this binary under another name: it waits
    // for one process and reads nothing else.
    #[cfg(target_os = "linux")]
    if let Some(code) = sandbox::reaper::run_if_reaper() {
        return code;
    }
    // Parse with a command tree that is never dropped: the process ends right after, and freeing
    // clap's whole tree cost more than a sixth of `finch --version`.
    // `COMPLETE=<shell> finch -- <words>`: the shell asks for completions (`cli::complete`);
    // answered and exited here, before anything else reads the command line.
    clap_complete::CompleteEnv::with_factory(|| {
        cli::complete::flags_after_dash(<Cli as clap::CommandFactory>::command())
    })
    .shells(cli::complete::shells())
    .complete();
    // The examples are only read by `--help`: a run that does not ask for help skips adding
    // them to every command.
    let asks_for_help = std::env::args_os()
        .skip(1)
        .any(|a| a == "-h" || a == "--help" || a == "help");
    let command = Box::leak(Box::new(if asks_for_help {
        cli::command()
    } else {
        <Cli as clap::CommandFactory>::command()
    }));
    // `--json name,layer`: the word after `--json` is its field list where the command has no
    // place for it (`ui::fields`).
    let args = ui::fields::split_json_fields(std::env::args_os().collect(), |args| {
        match command.clone().try_get_matches_from(args) {
            Ok(_) => true,
            Err(e) => !e.use_stderr(),
        }
    });
    let parsed = command
        .try_get_matches_from_mut(args)
        .and_then(|mut matches| Cli::from_arg_matches_mut(&mut matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(err) => {
            let code = if err.use_stderr() { 2 } else { 0 };
            // Clap stops before `--json` is known, so look for it by hand: with it, a usage error
            // is a JSON document on stdout like every other error.
            if code == 2
                && std::env::args_os()
                    .any(|a| a == "--json" || a.to_string_lossy().starts_with("--json="))
            {
                let message = err
                    .kind()
                    .as_str()
                    .unwrap_or("invalid command line")
                    .to_string();
                let json = CommandError::usage(message)
                    .with_hint("run `finch --help` (or `finch <command> --help`)")
                    .to_json();
                // A closed stdout is not worth a panic; the exit code still says it.
                let mut out = std::io::stdout().lock();
                let _ =
                    std::io::Write::write_all(&mut out, store::to_pretty_json(&json).as_bytes());
            }
            if code == 0 {
                // Printing help to a closed pipe is not worth a panic.
                let _ = err.print();
            } else {
                crate::epart!("{}", usage_error_text(&err));
            }
            return ExitCode::from(code);
        }
    };
    let env = Env::from_process();
    let g = &cli.global;
    // `--jq` implies `--json`; an expression that does not compile is a usage error before the
    // command does anything.
    let jq = match g.jq.as_deref().map(ui::jq::JqFilter::compile) {
        None => None,
        Some(Ok(filter)) => Some(filter),
        Some(Err(why)) => {
            let ui = Ui::new(false, g.quiet, g.verbose, g.yes, g.color, &env);
            let err = CommandError::usage(format!("invalid --jq expression: {why}"))
                .with_hint("the expression is jq's language, as in `finch list --jq '.[].id'`");
            ui.error(&err);
            return ExitCode::from(err.exit_code());
        }
    };
    let ui = Ui::new(
        g.json.is_some() || jq.is_some(),
        g.quiet,
        g.verbose,
        g.yes,
        g.color,
        &env,
    )
    .with_fields(
        g.json
            .clone()
            .flatten()
            .as_deref()
            .map(ui::fields::JsonFields::parse),
    )
    .with_jq(jq);
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let ctx = Context {
        ui,
        env,
        cwd,
        global: cli.global.clone(),
        homes: OnceCell::new(),
        settings: OnceCell::new(),
    };
    match dispatch(&ctx, cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if err.kind == ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(CommandError {
            kind: ErrorKind::Exit(code),
            ..
        }) => ExitCode::from(code),
        Err(err) => {
            ctx.ui.error(&err);
            ExitCode::from(err.exit_code())
        }
    }
}

/// A usage error as every other error reads: `Error: <what>` (the app and scripts look for that
/// prefix), then clap's usage lines, and its tips as `hint:` lines. No command at all shows the help under its own `Error:` line.
fn usage_error_text(err: &clap::Error) -> String {
    let mut text = err.render().to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let text = match text.strip_prefix("error: ") {
        Some(rest) => format!("Error: {rest}"),
        None => format!("Error: a command is required\n\n{text}"),
    };
    // clap's tips and its closing line read as finch's own hints.
    text.lines()
        .map(|line| match line.trim_start().strip_prefix("tip: ") {
            Some(tip) => format!("hint: {tip}"),
            None if line == "For more information, try '--help'." => {
                "hint: run the command with --help for its options and examples".to_string()
            }
            None => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

fn dispatch(ctx: &Context, command: Command) -> Result<()> {
    use cli::{generate, minitool as mt};
    match command {
        Command::Add(args) => mt::cmd_add(ctx, &args),
        Command::Update(args) => mt::cmd_update(ctx, &args),
        Command::Remove(args) => mt::cmd_remove(ctx, &args),
        Command::List(args) => mt::cmd_list(ctx, &args),
        Command::Enable(args) => mt::cmd_enable(ctx, &args, true),
        Command::Disable(args) => mt::cmd_enable(ctx, &args, false),
        Command::Where => mt::cmd_where(ctx),
        Command::Doctor(args) => mt::cmd_doctor(ctx, &args),
        Command::New(args) => cli::new::cmd_new(ctx, &args),
        Command::Test(args) => cli::test::cmd_test(ctx, &args),
        Command::Pack(args) => cli::pack::cmd_pack(ctx, &args),
        Command::Dev(args) => cli::dev::cmd_dev(ctx, &args),
        Command::Completions(args) => generate::cmd_completions(ctx, &args),
        Command::Man(args) => generate::cmd_man(ctx, &args),
        Command::Reload(args) => cli::reload::cmd_reload(ctx, &args),
        Command::Memory(c) => cli::memory::run(ctx, &c),
        Command::Schedule(c) => cli::schedule::run(ctx, &c),
        Command::Session(c) => cli::session::run(ctx, &c),
        Command::Space(c) => cli::space::run(ctx, &c),
        Command::Skill(c) => cli::skill::run(ctx, &c),
        Command::Mcp(c) => cli::mcp::run(ctx, &c),
        Command::Tool(c) => cli::tool::run(ctx, &c),
        Command::Policy(c) => cli::policy::run(ctx, &c),
        Command::Sandbox(c) => cli::sandbox::run(ctx, &c),
        Command::Secret(c) => cli::secret::run(ctx, &c),
        Command::Run(args) => cli::run::cmd_run(ctx, &args),
    }
}
