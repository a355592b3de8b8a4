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
    let mut host = setup(ctx, &args.session, !args.no_builtins)?;
    let outcome = if args.jsonl {
        serve_jsonl(&mut host)
    } else {
        console(ctx, &mut host)
    };
    host.finish()
        .map_err(|e| CommandError::failed(e.to_string()))?;
    outcome
}

/// Builds the host of one session: providers, rules, session state and transcript, prompter.
pub(crate) fn setup(ctx: &Context, args: &SessionArgs, builtins: bool) -> Result<Host> {
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
    let mut providers: Vec<Box<dyn Provider>> = Vec::new();
    if builtins {
        providers.push(Box::new(Builtins));
    }
    providers.push(Box::new(Suites::default()));
    let prompter = prompter(ctx, &env);
    Ok(Host::new(env, providers, rules, session, prompter))
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
fn serve_jsonl(host: &mut Host) -> Result<()> {
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
        let response = answer_request(host, line.trim());
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
fn console(ctx: &Context, host: &mut Host) -> Result<()> {
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
        match console_line(ctx, host, text) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Quit) => return Ok(()),
            Err(e) if e.kind == crate::error::ErrorKind::BrokenPipe => return Err(e),
            // A bad line is reported and the console goes on.
            Err(e) => ctx.ui.error(&e),
        }
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
            "reload" => reload(ctx, host)?,
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
        "/reload                  re-read the permission rules",
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

fn reload(ctx: &Context, host: &mut Host) -> Result<()> {
    let s = host.session();
    let rules = load_rules(&s.project, &host.env().homes.runtime, s.home.as_deref())?;
    host.set_rules(rules);
    host.rebuild_catalog();
    ctx.ui.status(format!(
        "reloaded: permission rules re-read, {} tools in the catalog",
        host.catalog().len()
    ));
    Ok(())
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

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_string()
}

/// Parses a `--source` value for the CLI.
pub(crate) fn source_filter(text: Option<&str>) -> Result<SourceFilter> {
    match text {
        None => Ok(SourceFilter::Any),
        Some(t) => SourceFilter::parse(t).map_err(CommandError::usage),
    }
}
