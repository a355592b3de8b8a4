//! The console of `finch run` on a terminal (SPEC §8.7): one command per line — `<Tool> <json>`
//! or `<Tool> key=value …`, `/tools`, `/search`, `/mode`, `/session`, `/reload`, `/help`,
//! `/quit` — until `/quit` or the end of input. A call's content goes to stdout and its
//! decision to stderr (`print_record`, which `finch tool call` uses too); a bad line is
//! reported and the console goes on.
//!
//! On a terminal the line editor is `rustyline` on `/dev/tty` (emacs keys; history in
//! `<runtime home>/console_history`, shared by every console and appended under the file's
//! lock after each line; Tab completes `/commands`, tool names, a tool's argument names and
//! paths (a path parameter's value, and after `@`: `Read @README.md` is `Read
//! file_path=README.md`, `key_values`); an open JSON object goes on on the next line, after a `  ...> ` prompt). Ctrl-C while a call
//! runs cancels the call and keeps the session (`interrupt`); at the prompt it clears a line
//! that has text, and on an empty prompt it warns once, a second one in a row ending the
//! session, as Ctrl-D on an empty line and `/quit` do (typing in between starts over). While a
//! call runs the editor is not drawn: a spinner with the call's time and "Ctrl-C to cancel"
//! shows instead (`ui::activity`), hidden while a card or a progress line is on the terminal.
//! When the session ends the console says how to resume it (`--session`). From a
//! pipe the console reads plain lines, and its exit code says what the calls came to
//! (`super::Tally`: 4 when any was refused, else 1 when any failed or a line was bad).
//!
//! Cards are asked on the controlling terminal (`/dev/tty`), never on stdin/stdout; with no
//! terminal every card is answered deny.

mod editor;
mod interrupt;

use std::io::BufRead;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rustyline::error::ReadlineError;
use rustyline::history::{FileHistory, History};
use rustyline::{
    Behavior, Cmd, CompletionType, ConditionalEventHandler, Config, EditMode, Editor, Event,
    EventContext, EventHandler, KeyEvent, Movement, RepeatCount,
};
use serde_json::{Map, Value, json};

use super::{Tally, reload_if_minitools_changed};
use crate::error::{CommandError, ErrorKind, Result};
use crate::host::assembly::Assembly;
use crate::host::call::record::Step;
use crate::host::control;
use crate::host::output::Content;
use crate::host::policy::Mode;
use crate::host::{CallRecord, DecidedBy, Decision, Failure, Host, HostEnv};
use crate::ui::{Table, Ui};
use editor::{ConsoleHelper, ToolNames};
use interrupt::Interrupts;

/// The most lines the history keeps.
const HISTORY_SIZE: usize = 1000;

const PROMPT: &str = "finch> ";
/// The prompt of a line that goes on an open JSON object.
const CONTINUATION: &str = "  ...> ";

/// Builds the host and reads commands until `/quit` or the end of input.
pub fn run(env: HostEnv, assembly: &Assembly) -> Result<()> {
    super::run_session(env, assembly, serve)
}

/// The console: the line editor on a terminal, plain lines from a pipe.
fn serve(host: &mut Host, assembly: &Assembly) -> Result<()> {
    let ui = assembly.ui;
    if ui.stdin_tty {
        if !ui.quiet {
            let banner = format!(
                "{} — session {} in {} ({} mode). Type `<Tool> <json>`, `<Tool> key=value …`, /tools, /search <query>, /help, /quit. Tab completes.",
                assembly.options.command,
                host.session().id,
                host.session().cwd.display(),
                host.session().mode.as_str()
            );
            for line in ui.prose_err(&banner) {
                crate::eline!("{line}");
            }
        }
        match editor(host) {
            Ok(editor) => {
                let ended = interactive(host, assembly, editor);
                if ended.is_ok() && !ui.quiet {
                    say_how_to_resume(host, assembly.options.command);
                }
                return ended;
            }
            Err(e) => ui.warn(format!(
                "no line editor on this terminal ({e}); reading plain lines"
            )),
        }
    }
    piped(host, assembly)
}

/// Plain lines from stdin until `/quit` or end of input; the exit code says what the calls
/// came to (`Tally`), as for `--jsonl`.
fn piped(host: &mut Host, assembly: &Assembly) -> Result<()> {
    let interrupts = Interrupts::default();
    let mut tally = Tally::default();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => return tally.outcome(),
            Ok(_) => {}
            Err(e) => return Err(CommandError::failed(format!("cannot read stdin: {e}"))),
        }
        if let Flow::Quit = one_line(host, assembly, &interrupts, &mut tally, line.trim())? {
            return tally.outcome();
        }
    }
}

fn editor(host: &Host) -> rustyline::Result<Editor<ConsoleHelper, FileHistory>> {
    let config = Config::builder()
        .edit_mode(EditMode::Emacs)
        .completion_type(CompletionType::List)
        .behavior(Behavior::PreferTerm)
        .auto_add_history(false)
        .max_history_size(HISTORY_SIZE)?
        .history_ignore_dups(true)?
        .build();
    let mut editor = Editor::with_config(config)?;
    editor.set_helper(Some(ConsoleHelper::default()));
    let path = history_path(host);
    if path.is_file() {
        // A history that cannot be read starts empty; the console still works.
        let _ = editor.load_history(&path);
    }
    Ok(editor)
}

fn history_path(host: &Host) -> std::path::PathBuf {
    host.env().homes.runtime.join("console_history")
}

/// `finch run --session <id>` (or `finch dev …`: the command of this run), on stderr, once the
/// session has a transcript to go on. The id is its first 8 characters when they name this
/// session alone, as `--session` takes a unique beginning.
fn say_how_to_resume(host: &Host, command: &str) {
    let session = host.session();
    let Some(path) = session.transcript_path().filter(|p| p.exists()) else {
        return;
    };
    let short = session.id.get(..8).unwrap_or(&session.id);
    let id = match crate::session::resolve(&host.env().homes, short) {
        Ok(found) if found.path.as_path() == path => short,
        _ => session.id.as_str(),
    };
    crate::eline!("Session {id} saved; resume with `{command} --session {id}`");
}

/// Ctrl-C at the prompt: a line with text is cleared (into the kill ring, Ctrl-Y brings it
/// back) and the "again ends the session" warning is forgotten; on an empty line rustyline's
/// own Ctrl-C ends `readline` with `Interrupted`.
struct ClearOrInterrupt {
    /// Whether the last Ctrl-C was on an empty prompt, with nothing typed since.
    armed: Arc<AtomicBool>,
}

impl ConditionalEventHandler for ClearOrInterrupt {
    fn handle(
        &self,
        _evt: &Event,
        _n: RepeatCount,
        _positive: bool,
        ctx: &EventContext,
    ) -> Option<Cmd> {
        if ctx.line().is_empty() {
            return None;
        }
        self.armed.store(false, Ordering::SeqCst);
        Some(Cmd::Kill(Movement::WholeBuffer))
    }
}

/// The line editor until `/quit`, Ctrl-D on an empty line or Ctrl-C twice at an empty prompt.
fn interactive(
    host: &mut Host,
    assembly: &Assembly,
    mut editor: Editor<ConsoleHelper, FileHistory>,
) -> Result<()> {
    let ui = assembly.ui;
    let interrupts = Interrupts::install();
    let history = history_path(host);
    let armed = Arc::new(AtomicBool::new(false));
    editor.bind_sequence(
        KeyEvent::ctrl('C'),
        EventHandler::Conditional(Box::new(ClearOrInterrupt {
            armed: Arc::clone(&armed),
        })),
    );
    // Notices from other threads (`finch dev`'s rebuilds) print above the prompt, which is
    // then drawn again with what was typed.
    let _notices = editor.create_external_printer().ok().map(|mut printer| {
        crate::ui::NoticeSink::install(Box::new(move |text: &str| {
            rustyline::ExternalPrinter::print(&mut printer, text.to_string()).is_ok()
        }))
    });
    // The lines of an entry so far, while a JSON object is open.
    let mut pending = String::new();
    loop {
        host.refresh();
        if let Some(helper) = editor.helper_mut() {
            helper.tools = tool_names(host);
            helper.cwd = host.session().cwd.clone();
        }
        let prompt = if pending.is_empty() {
            PROMPT
        } else {
            CONTINUATION
        };
        let line = match editor.readline(prompt) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) if !pending.is_empty() => {
                // The open entry is dropped, as a line with text would be.
                pending.clear();
                armed.store(false, Ordering::SeqCst);
                continue;
            }
            Err(ReadlineError::Interrupted) => {
                if armed.swap(true, Ordering::SeqCst) {
                    return Ok(());
                }
                ui.status("(Ctrl-C again, Ctrl-D or /quit ends the session)");
                continue;
            }
            Err(ReadlineError::Eof) if !pending.is_empty() => {
                pending.clear();
                continue;
            }
            Err(ReadlineError::Eof) => return Ok(()),
            Err(e) => {
                return Err(CommandError::failed(format!(
                    "cannot read the terminal: {e}"
                )));
            }
        };
        armed.store(false, Ordering::SeqCst);
        if !pending.is_empty() {
            pending.push('\n');
        }
        pending.push_str(&line);
        if !editor::is_complete(&pending) {
            continue;
        }
        let entry = std::mem::take(&mut pending);
        let text = entry.trim();
        if !text.is_empty() && editor.history_mut().add(text).unwrap_or(false) {
            if let Some(dir) = history.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            if let Err(e) = editor.append_history(&history) {
                ui.detail(format!("history not saved to {}: {e}", history.display()));
            }
        }
        // A person saw every answer: the session's exit code stays 0.
        let mut tally = Tally::default();
        if let Flow::Quit = one_line(host, assembly, &interrupts, &mut tally, text)? {
            return Ok(());
        }
    }
}

/// Every active tool's name and argument names, for completion.
fn tool_names(host: &Host) -> Vec<ToolNames> {
    host.active_tools()
        .into_iter()
        .map(|tool| {
            let args: Vec<String> = tool
                .def
                .input_schema
                .get("properties")
                .and_then(Value::as_object)
                .map(|props| props.keys().cloned().collect())
                .unwrap_or_default();
            ToolNames {
                name: tool.name.clone(),
                paths: path_params(Some(&tool.def.input_schema))
                    .into_iter()
                    .map(str::to_string)
                    .collect(),
                args,
            }
        })
        .collect()
}

/// One line of either console: run it, report a bad one, take in reloads.
fn one_line(
    host: &mut Host,
    assembly: &Assembly,
    interrupts: &Interrupts,
    tally: &mut Tally,
    text: &str,
) -> Result<Flow> {
    let ui = assembly.ui;
    if text.is_empty() || text.starts_with('#') {
        return Ok(Flow::Continue);
    }
    assembly.reload_if_asked(host);
    match console_line(ui, host, interrupts, tally, text) {
        Ok(Flow::Continue) => {}
        Ok(Flow::Quit) => return Ok(Flow::Quit),
        Err(e) if e.kind == ErrorKind::BrokenPipe => return Err(e),
        // A bad line is reported and the console goes on.
        Err(e) => {
            tally.bad_line();
            ui.error(&e)
        }
    }
    // `/reload`, and a call that changed the mini tools, take effect at once.
    reload_if_minitools_changed(host);
    assembly.reload_if_asked(host);
    Ok(Flow::Continue)
}

/// One call that Ctrl-C may cancel; on a terminal a spinner shows while it runs.
fn call(
    ui: &Ui,
    host: &mut Host,
    interrupts: &Interrupts,
    tally: &mut Tally,
    tool: &str,
    args: Value,
) -> CallRecord {
    let title = super::new_session_title(host, "finch run", tool, &args);
    let cancel = interrupts.start();
    let progress = super::progress::on_stderr(ui, tool);
    // Keys typed meanwhile wait, unechoed, for the next prompt, which shows them.
    let keys = (interrupts.installed && ui.stderr_tty).then(crate::ui::activity::QuietKeys::start);
    let spinner = (interrupts.installed && ui.stderr_tty && !ui.quiet)
        .then(|| crate::ui::activity::Spinner::start(tool));
    let record = host.call_with(tool, args, &cancel, &progress);
    drop(spinner);
    drop(keys);
    super::title_session(host, title);
    interrupts.finished();
    tally.note(&record);
    record
}

enum Flow {
    Continue,
    Quit,
}

fn console_line(
    ui: &Ui,
    host: &mut Host,
    interrupts: &Interrupts,
    tally: &mut Tally,
    text: &str,
) -> Result<Flow> {
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
                let record = call(
                    ui,
                    host,
                    interrupts,
                    tally,
                    "ToolSearch",
                    json!({"query": rest}),
                );
                print_search(ui, &record)?;
            }
            "mode" => match rest {
                "ask" => set_mode(ui, host, Mode::Ask),
                "acceptCalls" => set_mode(ui, host, Mode::AcceptCalls),
                // As `/mode <mode>` says it.
                "" => ui.line(format!("mode: {}", host.session().mode.as_str()))?,
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
    let schema = match host.catalog().lookup(tool) {
        crate::host::catalog::Lookup::Found(i) => {
            Some(host.catalog().get(i).def.input_schema.clone())
        }
        _ => None,
    };
    let args = parse_call_args(tool, rest, schema.as_ref())?;
    let record = call(ui, host, interrupts, tally, tool, args);
    print_record(ui, &record)?;
    Ok(Flow::Continue)
}

/// The arguments of a console line: a JSON object, or `key=value` words (shell quoting;
/// typed by the tool's input schema: `key_values`).
pub fn parse_call_args(tool: &str, rest: &str, schema: Option<&Value>) -> Result<Value> {
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
    key_values(tool, &words, schema)
}

/// `key=value` words → a JSON object. A value is typed by the tool's input `schema` where it
/// names the key's type: text for a `string` parameter (`name=123` is "123"), JSON for the
/// others (`limit=2` is 2). Where the schema says nothing, a value that parses as JSON is JSON
/// and anything else is text. A value that is a JSON string (`name='"123"'`) is that string,
/// without its quotes.
pub fn key_values(tool: &str, words: &[String], schema: Option<&Value>) -> Result<Value> {
    let mut map = Map::new();
    for word in words {
        // `@README.md`: that file, for the tool's path parameter (Claude Code's `@file`, here a
        // path given to the tool, not a file's text pasted).
        if let Some(file) = word.strip_prefix('@') {
            let key = match path_params(schema).as_slice() {
                [key, ..] => key.to_string(),
                [] => {
                    return Err(CommandError::usage(format!(
                        "`{word}` names a file, and {tool} takes no path; write key=value, or one JSON object"
                    )));
                }
            };
            map.insert(key, Value::String(file.to_string()));
            continue;
        }
        let Some((key, value)) = word.split_once('=') else {
            return Err(CommandError::usage(match example_key(schema) {
                Some(key) => format!(
                    "`{word}` is not key=value; write e.g. {tool} {key}=…, or one JSON object"
                ),
                None => format!(
                    "`{word}` is not key=value; write each argument as name=value (`finch tool info {tool}` lists them), or one JSON object"
                ),
            }));
        };
        let declared = schema
            .and_then(|s| s.get("properties"))
            .and_then(|p| p.get(key))
            .and_then(|p| p.get("type"));
        map.insert(key.to_string(), typed_value(value, declared));
    }
    Ok(Value::Object(map))
}

/// The parameters of a tool's input `schema` that take a path (`editor::is_path_param`), the
/// required ones first: the first is the one `@file` fills.
fn path_params(schema: Option<&Value>) -> Vec<&str> {
    let required: Vec<&str> = schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut found: Vec<&str> = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .map(|p| {
            p.iter()
                .filter(|(k, v)| {
                    editor::is_path_param(k) && v.get("type").is_none_or(|t| t == "string")
                })
                .map(|(k, _)| k.as_str())
                .collect()
        })
        .unwrap_or_default();
    found.sort_by_key(|k| !required.contains(k));
    found
}

/// A parameter of the tool to show in the key=value hint: its first required one, else its
/// first one (`None`: no schema known, or a tool that takes none).
fn example_key(schema: Option<&Value>) -> Option<&str> {
    let required = schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .and_then(|r| r.first())
        .and_then(Value::as_str);
    let first = || {
        schema
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
            .and_then(|p| p.keys().next())
            .map(String::as_str)
    };
    required.or_else(first)
}

/// One `key=value` value, typed by the JSON Schema `type` of its key (if any).
fn typed_value(raw: &str, declared: Option<&Value>) -> Value {
    let parsed = serde_json::from_str::<Value>(raw).ok();
    if let Some(Value::String(text)) = parsed {
        return Value::String(text);
    }
    let names: Vec<&str> = match declared {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let fits = |v: &Value| {
        names.iter().any(|&name| match name {
            "integer" => v.is_i64() || v.is_u64(),
            "number" => v.is_number(),
            "boolean" => v.is_boolean(),
            "array" => v.is_array(),
            "object" => v.is_object(),
            "null" => v.is_null(),
            _ => false,
        })
    };
    match parsed {
        // A string parameter takes the text as typed, unless the schema also allows what
        // the text parses as.
        Some(v) if names.contains(&"string") && !fits(&v) => Value::String(raw.to_string()),
        Some(v) => v,
        None => Value::String(raw.to_string()),
    }
}

#[cfg(test)]
mod typing {
    use super::*;

    fn args(words: &[&str], schema: Value) -> Value {
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        key_values("T", &words, Some(&schema)).unwrap()
    }

    #[test]
    fn key_values_are_typed_by_the_schema() {
        let schema = json!({"properties": {
            "name": {"type": "string"}, "limit": {"type": "integer"},
            "flag": {"type": "boolean"}, "either": {"type": ["string", "number"]},
        }});
        assert_eq!(
            args(
                &["name=123", "limit=2", "flag=true", "either=7"],
                schema.clone()
            ),
            json!({"name": "123", "limit": 2, "flag": true, "either": 7})
        );
        assert_eq!(
            args(&["name=true", "other=[1]", "free=text"], schema.clone()),
            json!({"name": "true", "other": [1], "free": "text"})
        );
        // A JSON string is that string, without its quotes, whatever the schema says.
        assert_eq!(
            args(&["name=\"123\"", "other=\"4\""], schema),
            json!({"name": "123", "other": "4"})
        );
        // No schema: values that parse as JSON are JSON.
        let words = vec!["n=123".to_string(), "s=abc".to_string()];
        assert_eq!(
            key_values("T", &words, None).unwrap(),
            json!({"n": 123, "s": "abc"})
        );
    }
}

fn set_mode(ui: &Ui, host: &mut Host, mode: Mode) {
    host.session_mut().mode = mode;
    ui.status(format!("mode: {}", mode.as_str()));
}

fn print_help(ui: &Ui) -> Result<()> {
    // Each description wrapped in its own column, its lines under its first.
    let row = |usage: &str, what: &str| -> Vec<String> {
        let column = 25;
        crate::ui::wrap(what, ui.width().saturating_sub(column))
            .into_iter()
            .enumerate()
            .map(|(i, part)| {
                if i == 0 {
                    format!("{usage:<24} {part}")
                } else {
                    format!("{:column$}{part}", "")
                }
            })
            .collect()
    };
    let mut lines = row(
        "<Tool> {json}",
        "call a tool with a JSON object of arguments",
    );
    lines.extend(row(
        "<Tool> key=value …",
        "call a tool with key=value arguments",
    ));
    for (command, what) in editor::COMMANDS {
        let usage = match *command {
            "/search" => "/search <query>",
            "/mode" => "/mode [ask|acceptCalls]",
            other => other,
        };
        lines.extend(row(usage, what));
    }
    lines.push(String::new());
    lines.push(
        "Tab completes tools, commands, argument names and paths (file_path=REA⇥); `@path` \
         gives a file to the tool's path parameter (Read @README.md); Up and Down walk the \
         history; Ctrl-C stops a running call."
            .to_string(),
    );
    ui.lines(lines.iter().flat_map(|l| crate::ui::wrap(l, ui.width())))
}

/// ToolSearch's matches as a table (NAME, SOURCE, DESCRIPTION); anything else as it came.
fn print_search(ui: &Ui, record: &CallRecord) -> Result<()> {
    let found = record.output.structured.as_ref().and_then(Value::as_array);
    let Some(found) = found.filter(|f| !f.is_empty() && !ui.json) else {
        return print_record(ui, record);
    };
    print_verdict(ui, record);
    let mut table = Table::new(&["NAME", "SOURCE", "DESCRIPTION"]).cut(&["DESCRIPTION"]);
    for tool in found {
        let text = |key: &str| tool.get(key).and_then(Value::as_str).unwrap_or_default();
        table.row(vec![
            text("name").to_string(),
            text("source").to_string(),
            crate::ui::first_line(text("description")),
        ]);
    }
    ui.lines(table.render(ui.width()))
}

fn print_tools(ui: &Ui, host: &Host) -> Result<()> {
    let mut table = Table::new(&["NAME", "LAYER", "DESCRIPTION"]).cut(&["DESCRIPTION"]);
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
    print_content(ui, record)?;
    // The wall's refusal in the person's words, where the model read its note (`ModelNote`).
    if record.model_note.is_some() {
        let (message, hint) = blocked_words(record);
        ui.status(format!("{message}; {hint}"));
    }
    Ok(())
}

/// A call the kernel wall refused, in the person's words: what it refused, and what would let
/// it through — the flag that allows it when one would (`Escalation::flag`; with nobody to
/// answer the escalation's card, a script, that flag is how), or that the person was asked.
pub fn blocked_words(record: &CallRecord) -> (String, String) {
    let message = match &record.blocked {
        Some(blocked) => format!(
            "finch's {} sandbox refused to {}",
            blocked.profile.as_str(),
            blocked.describe()
        ),
        None => "finch's sandbox refused the command".to_string(),
    };
    let hint = match &record.escalation {
        Some(escalated) if escalated.by.shown_on_a_card() => format!(
            "you were asked to let it {}, and it was not allowed",
            escalated.escalation.words()
        ),
        Some(escalated) => {
            let escalation = &escalated.escalation;
            // Without the sandbox every Bash command takes a card: a call the fast lane ran
            // needs `--approve` too.
            let approve = if escalation.unsandboxes() && record.decided_by.ran_without_approval() {
                format!(" --approve {}", record.tool)
            } else {
                String::new()
            };
            format!(
                "to let it {}, run it again with `{}{approve}`",
                escalation.words(),
                escalation.flag()
            )
        }
        None => {
            "nothing finch allows would let it: keys and credentials are never readable".to_string()
        }
    };
    (message, hint)
}

/// The decision line of a call, on stderr, in words (the transcript and `--json` keep the
/// ids: `decision`, `decidedBy`).
pub fn print_verdict(ui: &Ui, record: &CallRecord) {
    let words = if record.failure == Some(Failure::Cancelled) {
        "cancelled".to_string()
    } else {
        verdict_words(&record.tool, record.decision, &record.decided_by)
    };
    let verdict = format!(
        "{} {} — {words}, {:.1} ms",
        if record.output.is_error { "✗" } else { "✓" },
        record.tool,
        record.duration_ms
    );
    ui.status(verdict);
}

/// `allowed (read-only)`, `denied (you denied it)`, `not run (no such tool)`.
fn verdict_words(tool: &str, decision: Decision, decided_by: &DecidedBy) -> String {
    // A manual is shown, not run: nothing was allowed or denied.
    if *decided_by == DecidedBy::Pipeline(Step::Manual) {
        return decided_by.words().to_string();
    }
    let what = match decision {
        Decision::Allow => "allowed",
        Decision::Deny => "denied",
        Decision::None => "not run",
    };
    // The fast lane lets a write through because it stays in the workspace, not because it
    // reads: its words say so for the tools that write.
    if *decided_by == DecidedBy::Gateway(crate::host::policy::DecidedBy::FastLane)
        && WRITING_TOOLS.contains(&tool)
    {
        return format!("{what} (inside the workspace)");
    }
    format!("{what} ({})", decided_by.words())
}

/// The built-ins that change files, which the fast lane allows inside the workspace.
const WRITING_TOOLS: &[&str] = &["Write", "Edit"];

/// A call's content on stdout; on a terminal, text wraps at word boundaries.
pub fn print_content(ui: &Ui, record: &CallRecord) -> Result<()> {
    // A refusal in the person's words; the model read (and the transcript keeps) its own.
    if let Some(text) = record.person_text() {
        return if ui.stdout_tty {
            ui.lines(crate::ui::wrap(&text, ui.width()))
        } else {
            ui.line(text)
        };
    }
    // The host's note to the model (why the wall's refusal stands) is left out: the person
    // reads `blocked_words`.
    for block in record.person_content() {
        match block {
            Content::Text(text) if ui.stdout_tty => {
                ui.lines(crate::ui::wrap(text.trim_end(), ui.width()))?
            }
            Content::Text(text) => ui.line(text.trim_end())?,
            Content::Image { data, mime_type } => {
                ui.line(format!("[image: {mime_type}, {} bytes base64]", data.len()))?
            }
            Content::Block(_) => ui.line(block.display().trim_end())?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::policy;
    use crate::host::prompt::CardAnswer;

    #[test]
    fn verdicts_read_as_words_not_ids() {
        let none = Decision::None;
        assert_eq!(
            verdict_words("Nope", none, &DecidedBy::Pipeline(Step::UnknownTool)),
            "not run (no such tool)"
        );
        assert_eq!(
            verdict_words(
                "Read",
                Decision::Allow,
                &DecidedBy::Gateway(policy::DecidedBy::FastLane)
            ),
            "allowed (read-only)"
        );
        assert_eq!(
            verdict_words(
                "Edit",
                Decision::Allow,
                &DecidedBy::Gateway(policy::DecidedBy::FastLane)
            ),
            "allowed (inside the workspace)"
        );
        assert_eq!(
            verdict_words("Bash", Decision::Deny, &DecidedBy::Card(CardAnswer::Deny)),
            "denied (you denied it)"
        );
        assert_eq!(
            verdict_words("Read", none, &DecidedBy::Pipeline(Step::Manual)),
            "its manual"
        );
    }
}
