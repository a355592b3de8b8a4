//! The console of `finch run` on a terminal (SPEC §8.7): one command per line — `<Tool> <json>`
//! or `<Tool> key=value …`, `/tools`, `/search`, `/mode`, `/session`, `/reload`, `/help`,
//! `/quit` — until `/quit` or the end of input. A call's content goes to stdout and its
//! decision to stderr (`print_record`, which `finch tool call` uses too); a bad line is
//! reported and the console goes on.
//!
//! Cards are asked on the controlling terminal (`/dev/tty`), never on stdin/stdout; with no
//! terminal every card is answered deny.

use std::io::BufRead;

use serde_json::{Map, Value, json};

use super::reload_if_minitools_changed;
use crate::error::{CommandError, ErrorKind, Result};
use crate::host::assembly::Assembly;
use crate::host::control;
use crate::host::output::Content;
use crate::host::policy::Mode;
use crate::host::{CallRecord, Host, HostEnv};
use crate::ui::{Table, Ui};

/// Builds the host and reads commands until `/quit` or the end of input.
pub fn run(env: HostEnv, assembly: &Assembly) -> Result<()> {
    super::run_session(env, assembly, serve)
}

/// The console: one command per line from stdin until `/quit` or end of input.
fn serve(host: &mut Host, assembly: &Assembly) -> Result<()> {
    let ui = assembly.ui;
    let interactive = ui.stdin_tty;
    if interactive && !ui.quiet {
        crate::eline!(
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
            crate::epart!("finch> ");
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
        assembly.reload_if_asked(host);
        match console_line(ui, host, text) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Quit) => return Ok(()),
            Err(e) if e.kind == ErrorKind::BrokenPipe => return Err(e),
            // A bad line is reported and the console goes on.
            Err(e) => ui.error(&e),
        }
        // `/reload`, and a call that changed the mini tools, take effect at once.
        reload_if_minitools_changed(host);
        assembly.reload_if_asked(host);
    }
}

enum Flow {
    Continue,
    Quit,
}

fn console_line(ui: &Ui, host: &mut Host, text: &str) -> Result<Flow> {
    if let Some(command) = text.strip_prefix('/') {
        let (name, rest) = command
            .split_once(char::is_whitespace)
            .map_or((command, ""), |(n, r)| (n, r.trim()));
        match name {
            "quit" | "exit" | "q" => return Ok(Flow::Quit),
            "help" => print_help(ui)?,
            "tools" => {
                host.refresh();
                print_tools(ui, host)?
            }
            "search" => {
                if rest.is_empty() {
                    return Err(CommandError::usage(
                        "/search needs a query, e.g. /search read files",
                    ));
                }
                let record = host.call("ToolSearch", json!({"query": rest}));
                print_record(ui, &record)?;
            }
            "mode" => match rest {
                "ask" => set_mode(ui, host, Mode::Ask),
                "acceptCalls" => set_mode(ui, host, Mode::AcceptCalls),
                "" => ui.line(host.session().mode.as_str())?,
                other => {
                    return Err(CommandError::usage(format!(
                        "unknown mode \"{other}\": use /mode ask or /mode acceptCalls"
                    )));
                }
            },
            "session" => print_session(ui, host)?,
            "reload" => control::request_reload(),
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
    let progress = super::progress::on_stderr(ui, tool);
    let record = host.call_with(tool, args, &crate::host::cancel::Cancel::new(), &progress);
    print_record(ui, &record)?;
    Ok(Flow::Continue)
}

/// The arguments of a console line: a JSON object, or `key=value` words (shell quoting; a value
/// that parses as JSON — numbers, booleans, arrays, objects — is taken as JSON, else as text).
pub fn parse_call_args(tool: &str, rest: &str) -> Result<Value> {
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
pub fn key_values(tool: &str, words: &[String]) -> Result<Value> {
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

fn set_mode(ui: &Ui, host: &mut Host, mode: Mode) {
    host.session_mut().mode = mode;
    ui.status(format!("mode: {}", mode.as_str()));
}

fn print_help(ui: &Ui) -> Result<()> {
    ui.lines([
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

fn print_tools(ui: &Ui, host: &Host) -> Result<()> {
    let mut table = Table::new(&["NAME", "LAYER", "DESCRIPTION"]);
    for tool in host.active_tools() {
        table.row(vec![
            tool.name.clone(),
            tool.def.layer.as_str().to_string(),
            crate::ui::first_line(&tool.def.description),
        ]);
    }
    ui.lines(table.render(ui.width()))
}

fn print_session(ui: &Ui, host: &Host) -> Result<()> {
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
    ui.lines(lines)
}

/// A call's result for a person: the content on stdout, the decision on stderr.
pub fn print_record(ui: &Ui, record: &CallRecord) -> Result<()> {
    if ui.json {
        return ui.json_line(&record.to_json());
    }
    print_verdict(ui, record);
    print_content(ui, record)
}

/// The decision line of a call, on stderr.
pub fn print_verdict(ui: &Ui, record: &CallRecord) {
    let verdict = format!(
        "{} {} — {} ({}), {:.1} ms",
        if record.output.is_error { "✗" } else { "✓" },
        record.tool,
        record.decision,
        record.decided_by,
        record.duration_ms
    );
    ui.status(verdict);
}

/// A call's content on stdout.
pub fn print_content(ui: &Ui, record: &CallRecord) -> Result<()> {
    for block in &record.output.content {
        match block {
            Content::Text(text) => ui.line(text.trim_end())?,
            Content::Image { data, mime_type } => {
                ui.line(format!("[image: {mime_type}, {} bytes base64]", data.len()))?
            }
        }
    }
    Ok(())
}
