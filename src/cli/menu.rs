//! `finch minitool menu <id> [ITEM]`: a mini tool's settings menu without the app. Without an
//! item it lists the menu; with one it starts the mini tool (confined by its manifest, as
//! `finch run` starts it) and runs the item, answering its dialogs on the terminal — fields as
//! prompts (a password without echo), an image in a dialog (a login QR code) saved to a file
//! whose path is printed — while the dialog stays open until the person answers or the mini
//! tool closes it (it polls, as in the app). With no terminal, `--set key=value` fills the
//! fields and `--action` picks a button; a required field nobody gave is an error, and the mini
//! tool is told the dialog was dismissed, so it saves nothing.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use base64::Engine;
use clap::{Args, Subcommand};
use serde_json::{Map, Value, json};

use crate::Context;
use crate::error::{CommandError, ErrorKind, Result};
use crate::host::runtime::menu::{Ask, MenuError, MenuFace};
use crate::host::runtime::{self, MiniToolRuntime, Outcome, StartOptions};

#[derive(Debug, Subcommand)]
pub enum MinitoolCommand {
    /// List a mini tool's settings menu, or run one of its items (its dialogs on the terminal)
    Menu(MenuArgs),
}

#[derive(Debug, Args)]
pub struct MenuArgs {
    /// The enabled mini tool's id
    pub id: String,
    /// The menu item to run (its id or label); without it, the menu is listed
    pub item: Option<String>,
    /// A dialog field's value, for a run without a terminal (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// The dialog button to press after the fields, by id or label (default: the primary one)
    #[arg(long, value_name = "ACTION")]
    pub action: Option<String>,
    /// How long a dialog waits for the mini tool to close it when nobody can answer
    #[arg(long, value_name = "DURATION", default_value = "5m")]
    pub wait: String,
}

pub fn run(ctx: &Context, command: &MinitoolCommand) -> Result<()> {
    match command {
        MinitoolCommand::Menu(args) => cmd_menu(ctx, args),
    }
}

fn cmd_menu(ctx: &Context, args: &MenuArgs) -> Result<()> {
    let homes = ctx.homes()?;
    let settings = ctx.settings()?;
    let mut preset = Map::new();
    for pair in &args.set {
        let Some((k, v)) = pair.split_once('=') else {
            return Err(CommandError::usage(format!(
                "--set {pair}: write it as KEY=VALUE"
            )));
        };
        preset.insert(k.trim().to_string(), Value::String(v.to_string()));
    }
    let wait = crate::config::parse_duration(&args.wait).ok_or_else(|| {
        CommandError::usage(format!(
            "--wait {}: not a duration (write 30s, 5m, 1h)",
            args.wait
        ))
    })?;
    let only = [args.id.clone()];
    let (rt, report) = MiniToolRuntime::start(StartOptions {
        homes,
        settings,
        env: &ctx.env,
        dirs: &[],
        session: None,
        hook: Some(runtime::stderr_hook(ctx.ui.quiet)),
        only: Some(&only),
        background: None,
        consent: None,
    })
    .map_err(|e| CommandError::failed(e.to_string()))?;
    let Some(started) = report.tools.iter().find(|r| r.id == args.id) else {
        rt.shutdown();
        return Err(CommandError::not_found(format!(
            "\"{}\" is not an enabled mini tool",
            args.id
        ))
        .with_hint(
            "`finch list --all-tiers` shows what is installed; `finch enable <id>` enables one",
        ));
    };
    if let Outcome::Failed { error } | Outcome::Refused { error } = &started.outcome {
        rt.shutdown();
        return Err(CommandError::failed(format!(
            "{} did not start: {error}",
            args.id
        )));
    }
    let terminal = ctx.ui.stdin_tty && std::io::stderr().is_terminal();
    let mut face = Face {
        terminal,
        preset,
        action: args.action.clone(),
        wait,
        wait_text: args.wait.clone(),
        images: homes.runtime.join("cache/dialogs"),
        lines: None,
    };
    let menu = rt.settings_menu(&args.id, None, &mut face);
    let result = match (&args.item, menu) {
        (_, Err(e)) => Err(e),
        (None, Ok(items)) => {
            rt.shutdown();
            return print_menu(ctx, &args.id, &items);
        }
        (Some(wanted), Ok(items)) => match find_item(&items, wanted) {
            Ok(item) => rt.settings_menu(&args.id, Some(&item), &mut face),
            Err(e) => {
                rt.shutdown();
                return Err(
                    e.with_hint(format!("`finch minitool menu {}` lists its items", args.id))
                );
            }
        },
    };
    rt.shutdown();
    match result {
        Ok(_) => {
            if ctx.ui.json {
                return ctx
                    .ui
                    .json(&json!({"id": args.id, "item": args.item, "done": true}));
            }
            ctx.ui.status(format!(
                "{}: {} done",
                args.id,
                args.item.as_deref().unwrap_or("menu")
            ));
            Ok(())
        }
        Err(MenuError::Unanswered(why)) => Err(CommandError::usage(why).with_code("unanswered")),
        Err(MenuError::NotStarted(why)) => Err(CommandError::failed(why)),
        Err(MenuError::Failed(why)) => Err(CommandError::failed(format!(
            "{}: the menu item failed: {why}",
            args.id
        ))),
    }
}

fn print_menu(ctx: &Context, id: &str, items: &Value) -> Result<()> {
    let items: Vec<&Value> = items.as_array().into_iter().flatten().collect();
    if ctx.ui.json {
        return ctx
            .ui
            .json(&Value::Array(items.into_iter().cloned().collect()));
    }
    if items.is_empty() {
        ctx.ui.status(format!("{id}'s settings menu is empty"));
        return Ok(());
    }
    let lines: Vec<String> = items
        .iter()
        .map(|i| {
            let id = i["id"].as_str().unwrap_or("");
            let label = i["label"].as_str().unwrap_or(id);
            let off = if i["disabled"] == true {
                "  (not selectable)"
            } else {
                ""
            };
            format!("{id}\t{label}{off}")
        })
        .collect();
    ctx.ui.lines(lines)
}

/// The id of the selectable item `wanted` names (its id, else its label).
fn find_item(items: &Value, wanted: &str) -> std::result::Result<String, CommandError> {
    let all: Vec<&Value> = items.as_array().into_iter().flatten().collect();
    let found = all
        .iter()
        .find(|i| i["id"] == wanted)
        .or_else(|| all.iter().find(|i| i["label"] == wanted));
    match found {
        Some(i) if i["disabled"] == true => Err(CommandError::usage(format!(
            "the menu item {wanted} cannot be selected now"
        ))),
        Some(i) => Ok(i["id"].as_str().unwrap_or(wanted).to_string()),
        None => {
            let ids: Vec<&str> = all.iter().filter_map(|i| i["id"].as_str()).collect();
            Err(CommandError::new(
                ErrorKind::NotFound,
                format!(
                    "the settings menu has no item {wanted} (it has {})",
                    ids.join(", ")
                ),
            ))
        }
    }
}

/// The terminal, or `--set`/`--action` where there is none.
struct Face {
    terminal: bool,
    preset: Map<String, Value>,
    action: Option<String>,
    wait: Duration,
    wait_text: String,
    /// Where a dialog's images are saved.
    images: PathBuf,
    /// Lines typed on the terminal, read by a thread of their own so that a dialog can end
    /// while nobody types.
    lines: Option<mpsc::Receiver<String>>,
}

impl Face {
    fn say(&self, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{text}");
    }

    /// The next line typed, or `None` once the mini tool closed the dialog (or input ended).
    fn line(&mut self, prompt: &str, closed: &dyn Fn() -> bool) -> Option<String> {
        let lines = self.lines.get_or_insert_with(|| {
            let (tx, rx) = mpsc::channel();
            let _ = std::thread::Builder::new()
                .name("finch-menu-stdin".into())
                .spawn(move || {
                    for line in std::io::stdin().lock().lines() {
                        let Ok(line) = line else { return };
                        if tx.send(line).is_err() {
                            return;
                        }
                    }
                });
            rx
        });
        eprint!("{prompt}");
        let _ = std::io::stderr().flush();
        loop {
            if closed() {
                return None;
            }
            match lines.recv_timeout(Duration::from_millis(50)) {
                Ok(line) => return Some(line),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    /// Shows a dialog's title and text; its images are saved and their paths shown.
    fn show(&self, name: &str, params: &Value) {
        let text = |k: &str| {
            params
                .get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        self.say(&format!(
            "── {name}: {} ──",
            text("title").unwrap_or("dialog")
        ));
        if let Some(d) = text("description") {
            self.say(d);
        }
        for line in text("message").unwrap_or("").lines() {
            match image(line) {
                Some((alt, src)) => self.say(&self.image_line(&alt, &src)),
                None => self.say(
                    line.strip_prefix("> ")
                        .or_else(|| line.strip_prefix("! "))
                        .unwrap_or(line),
                ),
            }
        }
    }

    /// `[image QR saved to /…/dialog-1.png]`, or the address of one on the web.
    fn image_line(&self, alt: &str, src: &str) -> String {
        let alt = if alt.is_empty() { "image" } else { alt };
        let Some(data) = src.strip_prefix("data:") else {
            return format!("[{alt}: {src}]");
        };
        let Some((mime, b64)) = data.split_once(";base64,") else {
            return format!("[{alt}: an image finch cannot read]");
        };
        let ext = match mime {
            "image/png" => "png",
            "image/jpeg" => "jpg",
            "image/webp" => "webp",
            "image/gif" => "gif",
            _ => "img",
        };
        let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(b64.trim()) else {
            return format!("[{alt}: an image that is not base64]");
        };
        static SAVED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = SAVED.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let file = self
            .images
            .join(format!("dialog-{}-{n}.{ext}", std::process::id()));
        match save(&file, &bytes) {
            Ok(()) => format!("[{alt} saved to {}: open it to scan]", file.display()),
            Err(e) => format!("[{alt}: cannot save it to {}: {e}]", file.display()),
        }
    }

    /// The fields' values: typed, or from `--set`; defaults for the rest; an error for a
    /// required field without one where nobody can type it.
    fn fields(
        &mut self,
        params: &Value,
        closed: &dyn Fn() -> bool,
    ) -> std::result::Result<Option<Map<String, Value>>, String> {
        let mut values = Map::new();
        let title = params["title"].as_str().unwrap_or("dialog").to_string();
        for field in params["fields"].as_array().into_iter().flatten() {
            let Some(key) = field["key"].as_str() else {
                continue;
            };
            let kind = field["type"].as_str().unwrap_or("text");
            let label = field["label"].as_str().unwrap_or(key);
            if kind == "link" {
                if let Some(url) = field["url"].as_str() {
                    self.say(&format!("{label}: {url}"));
                }
                continue;
            }
            let options: Vec<String> = field["options"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|o| o["value"].as_str().or(o.as_str()).map(str::to_string))
                .collect();
            let default = field.get("default").filter(|d| !d.is_null()).cloned();
            let required = field["required"] == true;
            let given = match self.preset.get(key) {
                Some(v) => Some(v.as_str().unwrap_or("").to_string()),
                None if self.terminal => loop {
                    let hint = match (&default, options.is_empty()) {
                        (_, false) => format!(" ({})", options.join("/")),
                        (Some(d), true) => {
                            format!(" [{}]", d.as_str().map_or(d.to_string(), str::to_string))
                        }
                        _ => String::new(),
                    };
                    let secret = kind == "password" || field["secret"] == true;
                    let prompt = format!("{label}{hint}: ");
                    let typed = if secret {
                        let _echo = crate::ui::NoEcho::new().ok();
                        self.line(&prompt, closed)
                    } else {
                        self.line(&prompt, closed)
                    };
                    let Some(typed) = typed else {
                        return Ok(None);
                    };
                    if secret {
                        self.say("");
                    }
                    if typed.is_empty() && required && default.is_none() {
                        self.say(&format!("{label} is required"));
                        continue;
                    }
                    if !options.is_empty() && !typed.is_empty() && !options.contains(&typed) {
                        self.say(&format!("choose one of {}", options.join(", ")));
                        continue;
                    }
                    break (!typed.is_empty()).then_some(typed);
                },
                None => None,
            };
            let value = match (given, &default) {
                (Some(text), _) => typed(kind, &text),
                (None, Some(d)) => d.clone(),
                (None, None) if required => {
                    return Err(format!(
                        "the dialog \"{title}\" needs {label} ({key}): pass --set {key}=VALUE (nothing was saved)"
                    ));
                }
                (None, None) => continue,
            };
            values.insert(key.to_string(), value);
        }
        Ok(Some(values))
    }

    /// The button: `--action`, the one typed, else the primary one (the last when none is).
    fn action(
        &mut self,
        params: &Value,
        closed: &dyn Fn() -> bool,
    ) -> std::result::Result<Option<String>, String> {
        let actions: Vec<(String, String, bool)> = params["actions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| {
                let id = a["id"].as_str()?.to_string();
                let label = a["label"].as_str().unwrap_or(&id).to_string();
                Some((id, label, a["variant"] == "primary"))
            })
            .collect();
        let pick = |wanted: &str| {
            actions
                .iter()
                .find(|(id, label, _)| id == wanted || label.eq_ignore_ascii_case(wanted))
                .map(|(id, _, _)| id.clone())
        };
        if let Some(wanted) = self.action.clone() {
            return pick(&wanted).map(Some).ok_or_else(|| {
                let ids: Vec<&str> = actions.iter().map(|(i, _, _)| i.as_str()).collect();
                format!("--action {wanted}: the dialog has {}", ids.join(", "))
            });
        }
        let has_fields = params["fields"].as_array().is_some_and(|f| !f.is_empty());
        if !self.terminal && has_fields {
            let primary = actions.iter().find(|a| a.2).or(actions.last());
            return Ok(Some(primary.map_or("ok".to_string(), |a| a.0.clone())));
        }
        if !self.terminal {
            // Nobody to press a button: the dialog stays until the mini tool closes it.
            let until = Instant::now() + self.wait;
            while Instant::now() < until {
                if closed() {
                    return Ok(None);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            return Err(format!(
                "the dialog \"{}\" was not closed within --wait {} and nobody can press its buttons here (pass --action ID)",
                params["title"].as_str().unwrap_or("dialog"),
                self.wait_text
            ));
        }
        let choices: Vec<String> = actions
            .iter()
            .enumerate()
            .map(|(i, (_, label, _))| format!("{}) {label}", i + 1))
            .collect();
        loop {
            let Some(typed) = self.line(&format!("{}: ", choices.join("  ")), closed) else {
                return Ok(None);
            };
            let typed = typed.trim();
            let by_number = typed
                .parse::<usize>()
                .ok()
                .and_then(|n| actions.get(n.wrapping_sub(1)))
                .map(|a| a.0.clone());
            if let Some(id) = by_number.or_else(|| pick(typed)) {
                return Ok(Some(id));
            }
        }
    }
}

impl MenuFace for Face {
    fn dialog(
        &mut self,
        ask: Ask,
        name: &str,
        params: &Value,
        closed: &dyn Fn() -> bool,
    ) -> std::result::Result<Value, String> {
        self.show(name, params);
        match ask {
            Ask::Confirm => {
                if !self.terminal {
                    return Err(format!(
                        "{name} asks \"{}\" and nobody can answer here",
                        params["title"].as_str().unwrap_or("")
                    ));
                }
                let yes = self
                    .line("[y/N] ", closed)
                    .is_some_and(|l| matches!(l.trim(), "y" | "Y" | "yes"));
                Ok(json!({"confirmed": yes}))
            }
            Ask::Form => match self.fields(params, closed)? {
                Some(values) => Ok(json!({"submitted": true, "values": values})),
                None => Ok(json!({"submitted": false, "values": {}, "reason": "cancelled"})),
            },
            Ask::Modal => {
                let values = self.fields(params, closed)?;
                let Some(values) = values else {
                    self.say(&format!("(closed by {name})"));
                    return Ok(json!({"action": "dismissed"}));
                };
                match self.action(params, closed)? {
                    Some(action) => {
                        let mut out = json!({"action": action});
                        if params["fields"].as_array().is_some_and(|f| !f.is_empty()) {
                            out["values"] = Value::Object(values);
                        }
                        Ok(out)
                    }
                    None => {
                        self.say(&format!("(closed by {name})"));
                        Ok(json!({"action": "dismissed"}))
                    }
                }
            }
        }
    }
}

/// `![alt](src)` standing alone on a line.
fn image(line: &str) -> Option<(String, String)> {
    let rest = line.trim().strip_prefix("![")?;
    let (alt, rest) = rest.split_once("](")?;
    let src = rest.strip_suffix(')')?;
    Some((alt.to_string(), src.to_string()))
}

fn typed(kind: &str, text: &str) -> Value {
    match kind {
        "number" => text
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| Value::String(text.to_string()), Value::Number),
        "boolean" => Value::Bool(matches!(
            text.trim().to_lowercase().as_str(),
            "y" | "yes" | "true" | "1" | "on"
        )),
        _ => Value::String(text.to_string()),
    }
}

fn save(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    crate::store::write_atomic(file, bytes)
}
