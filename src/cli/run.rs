//! `finch run`: the tool host's front ends (SPEC §8.7) — the console (`<Tool> <json>` or
//! `<Tool> key=value …` per line, `/tools`, `/search`, `/mode`, `/session`, `/reload`, `/quit`)
//! and `--jsonl` (one `{"id","tool","arguments"}` request per stdin line, one response per
//! stdout line). Both build the same `Host` as `finch tool call` (`setup`), so a call behaves
//! alike everywhere: same catalog, gateway, cards and transcript.
//!
//! Cards are asked on the controlling terminal (`/dev/tty`), never on stdin/stdout, which may
//! carry a protocol; with no terminal every card is answered deny.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde_json::{Map, Value, json};

use crate::Context;
use crate::error::{CommandError, Result};
use crate::homes::absolutize;
use crate::host::builtins::Builtins;
use crate::host::mcp::server as mcp_server;
use crate::host::policy::rules::{project_root, rules_files};
use crate::host::policy::{Mode, Rules, RulesError};
use crate::host::prompt::{Nobody, Prompter};
use crate::host::session::SessionState;
use crate::host::suites::Suites;
use crate::host::toolsearch::SourceFilter;
use crate::host::{CallRecord, Host, HostEnv, Provider, canonical_cwd};
use crate::ui::Table;

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
    #[arg(long, value_name = "TOOL")]
    pub approve: Vec<String>,
    /// Working directory of the session (default: the current directory)
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Continue this session's transcript instead of starting a new one (id or unique prefix)
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Load the mini tool in this directory for this run only, without installing it (repeatable)
    #[arg(long = "minitool", value_name = "DIR")]
    pub minitool: Vec<PathBuf>,
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
    if let Some(ServeProtocol::Mcp) = args.serve {
        return serve_mcp(ctx, args);
    }
    let mut host = setup(ctx, &args.session, Layers::of_run(args))?;
    // `finch reload` finds this run by its registration and signals it.
    let _registration = register_for_reload(ctx, &host);
    let outcome = if args.jsonl {
        serve_jsonl(ctx, &mut host, args)
    } else {
        console(ctx, &mut host, args)
    };
    host.finish()
        .map_err(|e| CommandError::failed(e.to_string()))?;
    outcome
}

/// `--serve mcp`: the host as an MCP server on stdio until the client closes stdin. Cards go
/// to the client as elicitations when it supports them, else to the terminal, else nobody.
fn serve_mcp(ctx: &Context, args: &RunArgs) -> Result<()> {
    let link = mcp_server::ClientLink::new();
    let mut host = setup_with(ctx, &args.session, Layers::of_run(args), |env, fallback| {
        let timeout = env.settings.card_timeout;
        Box::new(mcp_server::ElicitingPrompter::new(
            link.clone(),
            fallback,
            timeout,
        ))
    })?;
    if ctx.ui.stdin_tty && !ctx.ui.quiet {
        eprintln!(
            "finch run --serve mcp — session {} in {} ({} mode): speaking MCP on stdin/stdout; end with Ctrl-D.",
            host.session().id,
            host.session().cwd.display(),
            host.session().mode.as_str()
        );
    }
    let _registration = register_for_reload(ctx, &host);
    let mut reload = |host: &mut Host| {
        if let Err(e) = reload_host(ctx, host, &args.session, Layers::of_run(args)) {
            ctx.ui.error(&e);
        }
    };
    let outcome = mcp_server::serve_stdio(&mut host, &link, &mut reload).map_err(|e| match e {
        mcp_server::ServeError::NoClient => CommandError::failed(e.to_string())
            .with_hint("configure an MCP client (an agent, an IDE, the MCP inspector) to start `finch run --serve mcp`"),
        _ => CommandError::failed(e.to_string()),
    });
    host.finish()
        .map_err(|e| CommandError::failed(e.to_string()))?;
    outcome
}

/// Builds the host of one session: providers, rules, session state and transcript, prompter.
/// Which providers a host gets.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layers {
    /// The runtime built-ins (not with `--no-builtins`).
    pub builtins: bool,
    /// The mini tools (started) and MCP servers (connected): not needed by a `tool call` of a
    /// built-in or a dispatcher, and costly to start.
    pub external: bool,
}

impl Layers {
    fn of_run(args: &RunArgs) -> Layers {
        Layers {
            builtins: !args.no_builtins,
            external: true,
        }
    }
}

pub(crate) fn setup(ctx: &Context, args: &SessionArgs, layers: Layers) -> Result<Host> {
    setup_with(ctx, args, layers, |_, prompter| prompter)
}

/// `setup` with the prompter wrapped: `wrap` gets the terminal's prompter (or `Nobody`) and
/// returns the one the host asks (the MCP front end puts elicitation in front of it).
fn setup_with(
    ctx: &Context,
    args: &SessionArgs,
    layers: Layers,
    wrap: impl FnOnce(&HostEnv, Box<dyn Prompter>) -> Box<dyn Prompter>,
) -> Result<Host> {
    let homes = ctx.homes()?.clone();
    let settings = ctx.settings()?.clone();
    let mode = match (args.mode, settings.host_mode.as_deref()) {
        (Some(m), _) => Mode::from(m),
        (None, None) => Mode::Ask,
        (None, Some("ask")) => Mode::Ask,
        (None, Some("acceptCalls")) => Mode::AcceptCalls,
        (None, Some(other)) => {
            return Err(CommandError::failed(format!(
                "{}: [host] mode = {other:?} is not a permission mode",
                homes.finch_toml().display()
            ))
            .with_hint("write mode = \"ask\" or mode = \"acceptCalls\""));
        }
    };
    let cwd = absolutize(args.cwd.as_deref().unwrap_or(&ctx.cwd), &ctx.cwd);
    if !cwd.is_dir() {
        return Err(CommandError::not_found(format!(
            "--cwd {}: no such directory",
            cwd.display()
        )));
    }
    let cwd = canonical_cwd(&cwd);
    let home = ctx.env.home_dir();
    let project = project_root(&cwd, &homes.runtime);
    let rules = load_rules(&project, &homes.runtime, home.as_deref())?;
    let fixed_now = match ctx.env.get("FINCH_NOW") {
        Some(_) => Some(ctx.now()?),
        None => None,
    };
    let env = HostEnv {
        homes,
        settings,
        env: ctx.env.clone(),
        fixed_now,
    };
    let mut session = SessionState::detached(cwd, project, mode, home);
    session.approve = args.approve.clone();
    let lock_timeout = env.settings.lock_timeout;
    let recorded = match &args.session {
        Some(id) => {
            let found = crate::session::resolve(&env.homes, id)
                .map_err(crate::cli::session::session_error)?;
            session.continue_transcript(&found.path, lock_timeout)
        }
        None => session.start_transcript(&env.homes.sessions_dir(), env.now_utc(), lock_timeout),
    };
    recorded.map_err(crate::cli::session::session_error)?;
    for tool in &args.approve {
        ctx.ui.detail(format!(
            "--approve {tool}: its permission cards are answered allow"
        ));
    }
    let providers = providers(ctx, &env, &session, args, layers)?;
    let prompter = wrap(&env, prompter(ctx, &env));
    Ok(Host::new(env, providers, rules, session, prompter))
}

/// The four layers: built-ins (unless `--no-builtins`), suites, mini tools (started), MCP
/// servers (connected; with the servers mini tools registered through `mcp.client`).
fn providers(
    ctx: &Context,
    env: &HostEnv,
    session: &SessionState,
    args: &SessionArgs,
    layers: Layers,
) -> Result<Vec<Box<dyn Provider>>> {
    let mut providers: Vec<Box<dyn Provider>> = Vec::new();
    if layers.builtins {
        providers.push(Box::new(Builtins));
    }
    providers.push(Box::new(Suites::default()));
    if !layers.external {
        return Ok(providers);
    }
    let runtime = start_minitools(ctx, env, session, &args.minitool)?;
    let registered = registered_servers(ctx, &runtime);
    let bridge = start_mcp(ctx, env, &session.cwd, registered);
    runtime.set_mcp_bridge(bridge.handle());
    providers.push(Box::new(runtime));
    providers.push(Box::new(bridge));
    Ok(providers)
}

/// The MCP servers mini tools registered through `mcp.client`; one that does not parse is
/// left out with a warning.
pub(crate) fn registered_servers(
    ctx: &Context,
    runtime: &crate::host::runtime::MiniToolRuntime,
) -> Vec<crate::host::mcp::McpServerConfig> {
    runtime
        .mcp_registrations()
        .into_iter()
        .filter_map(|r| {
            let origin = crate::host::mcp::Origin::Runtime {
                id: r.minitool.clone(),
            };
            match crate::host::mcp::McpServerConfig::from_json(&r.config, origin) {
                Ok(config) => Some(config),
                Err(e) => {
                    ctx.ui.warn(format!(
                        "mini tool {} registered MCP server {}: {e}; left out",
                        r.minitool, r.name
                    ));
                    None
                }
            }
        })
        .collect()
}

/// Reloads a running host in place (`/reload`, `finch reload`): re-reads the rules, stops the
/// mini tools and MCP servers, starts them again from what is installed and configured now,
/// and rebuilds the catalog. The session — transcript, activations, answers — is kept.
pub(crate) fn reload_host(
    ctx: &Context,
    host: &mut Host,
    args: &SessionArgs,
    layers: Layers,
) -> Result<()> {
    let s = host.session();
    let rules = load_rules(&s.project, &host.env().homes.runtime, s.home.as_deref())?;
    host.set_rules(rules);
    host.clear_providers();
    let env = host.env().clone();
    let providers = providers(ctx, &env, host.session(), args, layers)?;
    host.set_providers(providers);
    ctx.ui.status(format!(
        "reloaded: rules re-read, mini tools and MCP servers restarted, {} tools in the catalog",
        host.catalog().len()
    ));
    Ok(())
}

/// The mini tool layer (SPEC §9.1): starts every enabled mini tool and each `--minitool`
/// directory, warns about each one that failed, and lists the others with `--verbose`.
fn start_minitools(
    ctx: &Context,
    env: &HostEnv,
    session: &SessionState,
    dirs: &[PathBuf],
) -> Result<crate::host::runtime::MiniToolRuntime> {
    use crate::host::runtime::{MiniToolRuntime, Outcome, SessionInfo, StartError, StartOptions};
    let dirs: Vec<PathBuf> = dirs.iter().map(|d| absolutize(d, &ctx.cwd)).collect();
    let options = StartOptions {
        homes: &env.homes,
        settings: &env.settings,
        env: &env.env,
        dirs: &dirs,
        session: Some(SessionInfo {
            id: session.id.clone(),
            cwd: session.cwd.clone(),
            project: session.project.clone(),
            trusted: session.trusted.clone(),
        }),
        hook: Some(crate::host::runtime::stderr_hook(ctx.ui.quiet)),
    };
    let (runtime, report) = MiniToolRuntime::start(options).map_err(|e| match e {
        StartError::NotAMiniTool(ref dir) | StartError::Invalid { ref dir, .. } => {
            let message = e.to_string();
            CommandError::failed(message)
                .with_code("invalid_minitool")
                .with_hint(format!(
                    "run `finch doctor {}` for the full report",
                    dir.display()
                ))
        }
    })?;
    for problem in &report.problems {
        ctx.ui.warn(problem);
    }
    for tool in &report.tools {
        match tool.outcome {
            Outcome::Failed { .. } => ctx.ui.warn(tool.line()),
            _ => ctx.ui.detail(tool.line()),
        }
    }
    Ok(runtime)
}

/// The MCP layer (SPEC §9.2): connects to every configured server (`registered`: the servers
/// mini tools registered through `mcp.client`) and warns about each one left out.
fn start_mcp(
    ctx: &Context,
    env: &HostEnv,
    cwd: &std::path::Path,
    registered: Vec<crate::host::mcp::McpServerConfig>,
) -> crate::host::mcp::McpBridge {
    let bridge = crate::host::mcp::McpBridge::start(env, cwd, registered);
    for status in bridge.statuses() {
        if let Some(error) = &status.error {
            ctx.ui.warn(format!(
                "MCP server {} ({}): {error}; its tools are left out",
                status.config.name,
                status.config.origin.source()
            ));
        }
    }
    for problem in bridge.problems() {
        ctx.ui.warn(format!(
            "MCP server {}({}): {}",
            problem
                .name
                .as_deref()
                .map(|n| format!("{n} "))
                .unwrap_or_default(),
            problem.source,
            problem.message
        ));
    }
    bridge
}

fn prompter(ctx: &Context, env: &HostEnv) -> Box<dyn Prompter> {
    match crate::ui::card::TtyPrompter::open(env.settings.card_timeout, ctx.ui.color_stderr()) {
        Some(tty) => Box::new(tty),
        None => Box::new(Nobody),
    }
}

pub(crate) fn load_rules(
    project: &std::path::Path,
    runtime: &std::path::Path,
    home: Option<&std::path::Path>,
) -> Result<Rules> {
    Rules::load(&rules_files(project, runtime), home).map_err(|err| {
        let message = err.to_string();
        match err {
            RulesError::Invalid { .. } => CommandError::failed(message)
                .with_code("corrupt_state")
                .with_hint(
                    "fix the file by hand; the format is {\"allow\":[{\"toolName\":\"Bash\",\"key\":\"npm test\"}],\"ask\":[],\"deny\":[]}",
                ),
            RulesError::Read { .. } => CommandError::failed(message),
        }
    })
}

/// `--jsonl`: requests in, responses out, until stdin ends.
/// Registers the run for `finch reload` and installs the reload signal; a failure only costs
/// the reloads, so it is a warning.
pub(crate) fn register_for_reload(
    ctx: &Context,
    host: &Host,
) -> Option<crate::host::control::Registration> {
    if let Err(e) = crate::host::control::install_reload_signal() {
        ctx.ui
            .warn(format!("`finch reload` cannot reach this run: {e}"));
        return None;
    }
    match crate::host::control::register(&host.env().homes) {
        Ok(r) => Some(r),
        Err(e) => {
            ctx.ui
                .warn(format!("`finch reload` cannot reach this run: {e}"));
            None
        }
    }
}

/// A call that installed, removed, enabled or disabled mini tools asks for a reload, so the
/// next call sees them; a mini tool that registered tools during a call gets them cataloged.
fn reload_if_minitools_changed(host: &mut Host) {
    let events = host.take_events();
    if events.contains(&crate::host::HostEvent::MiniToolsChanged) {
        crate::host::control::request_reload();
    } else if events.contains(&crate::host::HostEvent::ToolsChanged) {
        host.rebuild_catalog();
    }
}

/// Reloads when `finch reload` asked since the last call. A failed reload is reported and the
/// run goes on with what it has.
fn reload_if_asked(ctx: &Context, host: &mut Host, args: &RunArgs) {
    if crate::host::control::take_reload_request()
        && let Err(e) = reload_host(ctx, host, &args.session, Layers::of_run(args))
    {
        ctx.ui.error(&e);
    }
}

fn serve_jsonl(ctx: &Context, host: &mut Host, args: &RunArgs) -> Result<()> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut line = String::new();
    let mut input = stdin.lock();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => return Ok(()),
            Ok(_) => {}
            Err(e) => return Err(CommandError::failed(format!("cannot read stdin: {e}"))),
        }
        if line.trim().is_empty() {
            continue;
        }
        reload_if_asked(ctx, host, args);
        let response = answer_request(host, line.trim());
        reload_if_minitools_changed(host);
        let mut text = response.to_string();
        text.push('\n');
        if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            return if e.kind() == std::io::ErrorKind::BrokenPipe {
                Err(CommandError::broken_pipe())
            } else {
                Err(CommandError::failed(format!("cannot write stdout: {e}")))
            };
        }
    }
}

/// One JSON-lines request → its response.
fn answer_request(host: &mut Host, line: &str) -> Value {
    let bad = |id: Value, message: String| json!({"id": id, "error": {"code": "bad_request", "message": message}});
    let request: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return bad(Value::Null, format!("the line is not JSON: {e}")),
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let Some(tool) = request.get("tool").and_then(Value::as_str) else {
        return bad(
            id,
            "a request is {\"id\": …, \"tool\": \"<name>\", \"arguments\": {…}}; `tool` is missing"
                .into(),
        );
    };
    let arguments = request
        .get("arguments")
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()));
    let record = host.call(tool, arguments);
    let mut response = record.to_json();
    if let Some(map) = response.as_object_mut() {
        map.insert("id".into(), id);
    }
    response
}

/// The console: one command per line from stdin until `/quit` or end of input.
fn console(ctx: &Context, host: &mut Host, args: &RunArgs) -> Result<()> {
    let interactive = ctx.ui.stdin_tty;
    if interactive && !ctx.ui.quiet {
        eprintln!(
            "finch run — session {} in {} ({} mode). Type `<Tool> <json>`, `<Tool> key=value …`, /tools, /search <query>, /help, /quit.",
            host.session().id,
            host.session().cwd.display(),
            host.session().mode.as_str()
        );
    }
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut line = String::new();
    loop {
        if interactive {
            eprint!("finch> ");
            let _ = std::io::stderr().flush();
        }
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => return Ok(()),
            Ok(_) => {}
            Err(e) => return Err(CommandError::failed(format!("cannot read stdin: {e}"))),
        }
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        reload_if_asked(ctx, host, args);
        match console_line(ctx, host, text) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Quit) => return Ok(()),
            Err(e) if e.kind == crate::error::ErrorKind::BrokenPipe => return Err(e),
            // A bad line is reported and the console goes on.
            Err(e) => ctx.ui.error(&e),
        }
        // `/reload`, and a call that changed the mini tools, take effect at once.
        reload_if_minitools_changed(host);
        reload_if_asked(ctx, host, args);
    }
}

enum Flow {
    Continue,
    Quit,
}

fn console_line(ctx: &Context, host: &mut Host, text: &str) -> Result<Flow> {
    if let Some(command) = text.strip_prefix('/') {
        let (name, rest) = command
            .split_once(char::is_whitespace)
            .map_or((command, ""), |(n, r)| (n, r.trim()));
        match name {
            "quit" | "exit" | "q" => return Ok(Flow::Quit),
            "help" => print_help(ctx)?,
            "tools" => print_tools(ctx, host)?,
            "search" => {
                if rest.is_empty() {
                    return Err(CommandError::usage(
                        "/search needs a query, e.g. /search read files",
                    ));
                }
                let record = host.call("ToolSearch", json!({"query": rest}));
                print_record(ctx, &record)?;
            }
            "mode" => match rest {
                "ask" => set_mode(ctx, host, Mode::Ask),
                "acceptCalls" => set_mode(ctx, host, Mode::AcceptCalls),
                "" => ctx.ui.line(host.session().mode.as_str())?,
                other => {
                    return Err(CommandError::usage(format!(
                        "unknown mode \"{other}\": use /mode ask or /mode acceptCalls"
                    )));
                }
            },
            "session" => print_session(ctx, host)?,
            "reload" => crate::host::control::request_reload(),
            other => {
                return Err(CommandError::usage(format!(
                    "unknown command /{other}; type /help"
                )));
            }
        }
        return Ok(Flow::Continue);
    }
    let (tool, rest) = text
        .split_once(char::is_whitespace)
        .map_or((text, ""), |(t, r)| (t, r.trim()));
    let args = parse_call_args(tool, rest)?;
    let record = host.call(tool, args);
    print_record(ctx, &record)?;
    Ok(Flow::Continue)
}

/// The arguments of a console line: a JSON object, or `key=value` words (shell quoting; a value
/// that parses as JSON — numbers, booleans, arrays, objects — is taken as JSON, else as text).
pub(crate) fn parse_call_args(tool: &str, rest: &str) -> Result<Value> {
    let rest = rest.trim();
    if rest.is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    if rest.starts_with('{') {
        return serde_json::from_str(rest).map_err(|e| {
            CommandError::usage(format!("the arguments of {tool} are not valid JSON: {e}"))
        });
    }
    let words = shlex::split(rest).ok_or_else(|| {
        CommandError::usage(format!("the arguments of {tool} have an unclosed quote"))
    })?;
    key_values(tool, &words)
}

/// `key=value` words → a JSON object.
pub(crate) fn key_values(tool: &str, words: &[String]) -> Result<Value> {
    let mut map = Map::new();
    for word in words {
        let Some((key, value)) = word.split_once('=') else {
            return Err(CommandError::usage(format!(
                "`{word}` is not key=value; write e.g. {tool} file_path=src/main.rs, or one JSON object"
            )));
        };
        let value = serde_json::from_str::<Value>(value)
            .ok()
            .filter(|v| !v.is_string())
            .unwrap_or_else(|| Value::String(value.to_string()));
        map.insert(key.to_string(), value);
    }
    Ok(Value::Object(map))
}

fn set_mode(ctx: &Context, host: &mut Host, mode: Mode) {
    host.session_mut().mode = mode;
    ctx.ui.status(format!("mode: {}", mode.as_str()));
}

fn print_help(ctx: &Context) -> Result<()> {
    ctx.ui.lines([
        "<Tool> {json}            call a tool with a JSON object of arguments",
        "<Tool> key=value …       call a tool with key=value arguments",
        "/tools                   the tools active in this session",
        "/search <query>          ToolSearch: find (and activate) tools",
        "/mode [ask|acceptCalls]  show or change the permission mode",
        "/session                 this session's id, transcript and directories",
        "/reload                  re-read the rules, restart mini tools and MCP servers",
        "/quit                    end the session",
    ])
}

fn print_tools(ctx: &Context, host: &Host) -> Result<()> {
    let mut table = Table::new(&["NAME", "LAYER", "DESCRIPTION"]);
    for tool in host.active_tools() {
        table.row(vec![
            tool.name.clone(),
            tool.def.layer.as_str().to_string(),
            first_line(&tool.def.description),
        ]);
    }
    ctx.ui.lines(table.render(ctx.ui.width()))
}

fn print_session(ctx: &Context, host: &Host) -> Result<()> {
    let s = host.session();
    let mut lines = vec![
        format!("session:    {}", s.id),
        format!("cwd:        {}", s.cwd.display()),
        format!("mode:       {}", s.mode.as_str()),
    ];
    if let Some(path) = s.transcript_path() {
        lines.push(format!("transcript: {}", path.display()));
    }
    for dir in &s.trusted {
        lines.push(format!("trusted:    {}", dir.display()));
    }
    let mut active: Vec<&String> = s.active.iter().collect();
    active.sort();
    for name in active {
        lines.push(format!("activated:  {name}"));
    }
    ctx.ui.lines(lines)
}

/// A call's result for a person: the content on stdout, the decision on stderr.
pub(crate) fn print_record(ctx: &Context, record: &CallRecord) -> Result<()> {
    if ctx.ui.json {
        return ctx.ui.json_line(&record.to_json());
    }
    print_verdict(ctx, record);
    print_content(ctx, record)
}

/// The decision line of a call, on stderr.
pub(crate) fn print_verdict(ctx: &Context, record: &CallRecord) {
    let verdict = format!(
        "{} {} — {} ({}), {:.1} ms",
        if record.output.is_error { "✗" } else { "✓" },
        record.tool,
        record.decision,
        record.decided_by,
        record.duration_ms
    );
    ctx.ui.status(verdict);
}

/// A call's content on stdout.
pub(crate) fn print_content(ctx: &Context, record: &CallRecord) -> Result<()> {
    for block in &record.output.content {
        match block {
            crate::host::output::Content::Text(text) => ctx.ui.line(text.trim_end())?,
            crate::host::output::Content::Image { data, mime_type } => ctx
                .ui
                .line(format!("[image: {mime_type}, {} bytes base64]", data.len()))?,
        }
    }
    Ok(())
}

/// The first line of a description, for tables.
pub(crate) fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_string()
}

/// Parses a `--source` value for the CLI.
pub(crate) fn source_filter(text: Option<&str>) -> Result<SourceFilter> {
    match text {
        None => Ok(SourceFilter::Any),
        Some(t) => SourceFilter::parse(t).map_err(CommandError::usage),
    }
}
