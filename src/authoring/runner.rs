//! Running `finch test`'s cases: headless, through the same host and gateway as `finch tool
//! call --minitool <dir>` (`host::assembly`), with every permission card and dialog answered by
//! the case's script (`Scripted`), never by a person.
//!
//! One host — so one `node` process, activated once — per worker (`--jobs`, default 1), each in
//! a scratch runtime home of its own that nothing else uses. Before each case the worker gives
//! the host a fresh session (no transcript) whose working directory is the case's own scratch
//! workspace, with the case's `setup` files and the rules its `.finch/permissions.json` holds,
//! and empties the mini tool's storage (`ctx.storage`, `ctx.storagePath`): cases share the
//! process, not state.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::AuthoringError;
use super::testfile::{self, Actual, CardScript, Case, DialogAnswer, Mismatch, Verdict};
use crate::error::{CommandError, Result};
use crate::homes::{AgentHomeSource, Homes};
use crate::host::HostEnv;
use crate::host::assembly::{Assembly, External, HostOptions, Layers, load_rules};
use crate::host::catalog::{Exposure, Lookup};
use crate::host::policy::Mode;
use crate::host::prompt::{Card, CardAnswer, Prompter, Question, QuestionAnswer};
use crate::host::session::SessionState;
use crate::ui::Ui;

/// A case to run: which file it is from, and the case.
#[derive(Debug, Clone)]
pub struct Planned {
    pub file: PathBuf,
    pub case: Case,
}

/// What one case came to.
#[derive(Debug, Clone)]
pub struct CaseResult {
    pub file: PathBuf,
    pub case: Case,
    pub actual: Actual,
    pub mismatches: Vec<Mismatch>,
    pub duration: Duration,
}

impl CaseResult {
    pub fn passed(&self) -> bool {
        self.mismatches.is_empty()
    }
}

/// How to run.
pub struct RunOptions<'a> {
    /// The package directory (absolute).
    pub package: &'a Path,
    /// The mini tool's runtime id.
    pub id: &'a str,
    /// Settings, environment and clock of this process; the homes are replaced by scratch ones.
    pub env: &'a HostEnv,
    pub jobs: usize,
    pub ui: &'a Ui,
}

/// Runs every planned case; results in the planned order. A case naming a tool the mini tool
/// does not register stops the run before any case ran.
pub fn run(options: &RunOptions, planned: &[Planned]) -> Result<Vec<CaseResult>> {
    let jobs = options.jobs.clamp(1, planned.len().max(1));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<CaseResult>>> = Mutex::new(vec![None; planned.len()]);
    let outcome: Vec<Result<()>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| scope.spawn(|| worker(options, planned, &next, &results)))
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|_| Err(CommandError::failed("a test worker panicked")))
            })
            .collect()
    });
    for o in outcome {
        o?;
    }
    let results = results
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    Ok(results.into_iter().flatten().collect())
}

/// One worker: its own scratch home and host; takes cases until none are left.
fn worker(
    options: &RunOptions,
    planned: &[Planned],
    next: &AtomicUsize,
    results: &Mutex<Vec<Option<CaseResult>>>,
) -> Result<()> {
    let scratch = tempfile::Builder::new()
        .prefix("finch-test-")
        .tempdir()
        .map_err(|e| CommandError::failed(format!("cannot create a scratch directory: {e}")))?;
    let homes = Homes {
        runtime: scratch.path().join("runtime"),
        agent: scratch.path().join("agent"),
        agent_source: AgentHomeSource::Flag,
    };
    let workspaces = scratch.path().join("cases");
    let first = workspaces.join("0");
    std::fs::create_dir_all(&first).map_err(|e| crate::error::io_error("create", &first, &e))?;
    let env = HostEnv {
        homes: homes.clone(),
        settings: options.env.settings.clone(),
        env: options.env.env.clone(),
        fixed_now: options.env.fixed_now,
        embed_resources: false,
    };
    let host_options = HostOptions {
        mode: Some(Mode::Ask),
        approve: Vec::new(),
        // The parent of every case's workspace: a mini tool that declares the file system
        // (minitool::confine) is confined, from its start, to the host's directory and below.
        cwd: workspaces.clone(),
        session: None,
        join_titled: None,
        minitools: vec![options.package.to_path_buf()],
        layers: Layers {
            builtins: false,
            external: External::MiniTools(Vec::new()),
            background: false,
        },
        // Where the kernel cannot confine the package, the scratch start runs it unconfined
        // only when a person agreed for its id in the real runtime home.
        approve_unconfined: crate::minitool::confine::grant_for(&options.env.homes, options.id)
            .unconfined
            .then(|| options.id.to_string())
            .into_iter()
            .collect(),
        ask_unconfined: false,
        session_allow_owners: Vec::new(),
        command: "finch test",
        grants: Default::default(),
    };
    let script = Scripted::default();
    let assembly = Assembly::new(host_options, options.ui);
    let prompter = script.clone();
    let mut host = assembly.open_with(env, move |_, _| Box::new(prompter))?;
    let source = format!("minitool:{}", options.id);
    let known: Vec<String> = host
        .catalog()
        .tools()
        .iter()
        .filter(|t| t.def.source == source)
        .map(|t| t.def.raw_name.clone())
        .collect();
    if known.is_empty() {
        return Err(AuthoringError::NoTools.into());
    }
    for p in planned {
        let found = matches!(host.catalog().lookup(&p.case.tool), Lookup::Found(i) if host.catalog().get(i).def.source == source);
        if !found {
            return Err(AuthoringError::UnknownTool {
                path: p.file.clone(),
                case: p.case.name.clone(),
                tool: p.case.tool.clone(),
                known: known.join(", "),
            }
            .into());
        }
    }
    let home = options.env.env.home_dir();
    let storage = homes.extension_data(options.id);
    loop {
        let i = next.fetch_add(1, Ordering::SeqCst);
        let Some(p) = planned.get(i) else {
            break;
        };
        let started = Instant::now();
        let workspace = workspaces.join((i + 1).to_string());
        prepare(&workspace, &p.case, &storage)?;
        *host.session_mut() = SessionState::detached(
            workspace.clone(),
            workspace.clone(),
            Mode::Ask,
            home.clone(),
        );
        host.set_rules(load_rules(&workspace, &homes.runtime, home.as_deref())?);
        let name = match host.catalog().lookup(&p.case.tool) {
            Lookup::Found(i) => {
                let tool = host.catalog().get(i);
                let (name, dynamic) = (tool.name.clone(), tool.def.exposure == Exposure::Dynamic);
                if dynamic {
                    // Named exactly, as `finch tool call` does: ToolSearch's work is done.
                    host.session_mut().active.insert(name.clone());
                }
                name
            }
            _ => p.case.tool.clone(),
        };
        script.begin(&p.case);
        let record = host.call(&name, p.case.args.clone());
        let asked = script.cards_asked();
        let permission = if asked > 0 {
            Verdict::Ask
        } else {
            match record.decision {
                crate::host::Decision::Allow => Verdict::Allow,
                crate::host::Decision::Deny => Verdict::Deny,
                crate::host::Decision::None => Verdict::None,
            }
        };
        let places = [(&workspace, WORKSPACE), (&storage, STORAGE)];
        let actual = Actual {
            text: placeholders(&record.output.text_content(), &places),
            structured: record
                .output
                .structured
                .as_ref()
                .map(|v| placeholders_in(v, &places)),
            is_error: record.output.is_error,
            permission,
        };
        let mismatches = testfile::check(&p.case.expect, &actual);
        let result = CaseResult {
            file: p.file.clone(),
            case: p.case.clone(),
            actual,
            mismatches,
            duration: started.elapsed(),
        };
        if let Ok(mut r) = results.lock() {
            r[i] = Some(result);
        }
    }
    // Stop the mini tool before the scratch home goes.
    drop(host);
    Ok(())
}

/// What the case's scratch workspace reads as in answers, so that expectations stay the same
/// from run to run (the directory itself is new each time).
pub const WORKSPACE: &str = "<workspace>";
/// The same for the mini tool's storage directory (`ctx.storagePath`).
pub const STORAGE: &str = "<storage>";

/// `text` with each place's path (as given and as the file system spells it) replaced by its
/// placeholder.
fn placeholders(text: &str, places: &[(&PathBuf, &str)]) -> String {
    let mut out = text.to_string();
    for (path, name) in places {
        let mut spellings = vec![path.display().to_string()];
        if let Ok(real) = path.canonicalize() {
            spellings.push(real.display().to_string());
        }
        for s in spellings {
            if !s.is_empty() {
                out = out.replace(&s, name);
            }
        }
    }
    out
}

/// `placeholders` in every string of a JSON value.
fn placeholders_in(value: &serde_json::Value, places: &[(&PathBuf, &str)]) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::String(s) => Value::String(placeholders(s, places)),
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| placeholders_in(v, places)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), placeholders_in(v, places)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The case's workspace with its setup files, and the mini tool's storage emptied.
fn prepare(workspace: &Path, case: &Case, storage: &Path) -> Result<()> {
    std::fs::create_dir_all(workspace)
        .map_err(|e| crate::error::io_error("create", workspace, &e))?;
    for (rel, text) in &case.setup {
        let path = workspace.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| crate::error::io_error("create", dir, &e))?;
        }
        std::fs::write(&path, text).map_err(|e| crate::error::io_error("write", &path, &e))?;
    }
    // Emptied, not removed: a running mini tool's confinement (minitool::confine) holds the
    // directory itself, and a new one in its place would be outside it.
    std::fs::create_dir_all(storage).map_err(|e| crate::error::io_error("create", storage, &e))?;
    let entries =
        std::fs::read_dir(storage).map_err(|e| crate::error::io_error("empty", storage, &e))?;
    for entry in entries {
        let path = entry
            .map_err(|e| crate::error::io_error("empty", storage, &e))?
            .path();
        let removed = match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(&path),
            Ok(_) => std::fs::remove_file(&path),
            Err(e) => Err(e),
        };
        match removed {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(crate::error::io_error("empty", &path, &e)),
        }
    }
    Ok(())
}

/// The prompter of a test run: answers cards and dialogs from the running case's script, and
/// counts the cards it was shown (the verdict `ask`). Shared between the worker, which sets
/// the script, and the host, which asks.
#[derive(Clone, Default)]
struct Scripted(Arc<Mutex<Script>>);

#[derive(Default)]
struct Script {
    card: CardScript,
    dialogs: std::collections::VecDeque<DialogAnswer>,
    cards_asked: usize,
}

impl Scripted {
    fn begin(&self, case: &Case) {
        if let Ok(mut s) = self.0.lock() {
            s.card = case.card;
            s.dialogs = case.dialogs.iter().cloned().collect();
            s.cards_asked = 0;
        }
    }

    fn cards_asked(&self) -> usize {
        self.0.lock().map(|s| s.cards_asked).unwrap_or(0)
    }
}

impl Prompter for Scripted {
    fn card(&mut self, _card: &Card) -> CardAnswer {
        let Ok(mut s) = self.0.lock() else {
            return CardAnswer::Unavailable;
        };
        s.cards_asked += 1;
        match s.card {
            CardScript::Allow => CardAnswer::AllowOnce,
            CardScript::AllowForSession => CardAnswer::AllowForSession,
            CardScript::Deny => CardAnswer::Deny,
        }
    }

    fn question(&mut self, _question: &Question) -> QuestionAnswer {
        let Ok(mut s) = self.0.lock() else {
            return QuestionAnswer::Unavailable;
        };
        // A dialog the case scripts no answer for: nobody is there to answer it.
        match s.dialogs.pop_front() {
            Some(DialogAnswer::Choose(labels)) => QuestionAnswer::Chosen(labels),
            Some(DialogAnswer::Other(text)) => QuestionAnswer::Other(text),
            Some(DialogAnswer::Dismiss) => QuestionAnswer::Dismissed,
            None => QuestionAnswer::Unavailable,
        }
    }
}
