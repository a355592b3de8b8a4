//! The runtime built-ins of SPEC §8.6, native so `finch run` is complete on its own: one file
//! per tool, each with its definition (`def`) and its call (`call`). This file routes calls and
//! holds what several tools share (path resolution, argument access).
//!
//! A built-in never asks for permission itself: the host's gateway already decided. The file
//! tools resolve paths against the session's cwd; the gateway sends calls outside the cwd and
//! trusted directories to a card.

mod ask_user_question;
pub mod bash;
mod edit;
mod glob;
mod grep;
mod read;
mod read_pdf;
mod skill;
mod todo_write;
mod web_fetch;
mod web_search;
mod write;

use std::path::PathBuf;

use serde_json::Value;

use crate::host::call::confine::Walling;
use crate::host::call::context::CallCx;
use crate::host::call::denial::Blocked;
use crate::host::call::plan::CallPlan;
use crate::host::cancel::{Cancel, ProgressSink};
use crate::host::catalog::{Exposure, ToolDef, ToolSpec};
use crate::host::env::HostEnv;
use crate::host::output::ToolOutput;
use crate::host::prompt::Change;
use crate::host::provider::{Job, JobCx, Provider, Started};
use crate::host::session::SessionState;
use crate::host::tool::Layer;
use crate::sandbox::Confine;
use std::sync::{Arc, OnceLock};

/// The built-ins provider.
#[derive(Debug, Default)]
pub struct Builtins;

impl Provider for Builtins {
    fn defs(&self) -> Vec<ToolDef> {
        vec![
            read::def(),
            write::def(),
            edit::def(),
            grep::def(),
            glob::def(),
            bash::def(),
            web_search::def(),
            web_fetch::def(),
            ask_user_question::def(),
            todo_write::def(),
            skill::def(),
        ]
    }

    fn call(&mut self, tool: &ToolSpec, args: Value, cx: &mut CallCx) -> ToolOutput {
        let started = self.start(tool, args, cx);
        started.run_here(cx.cancel, cx.progress, cx.prompter)
    }

    /// The file, shell and web tools are jobs: they read the session's directories and the
    /// settings, nothing else of the host, and may run side by side. `AskUserQuestion` (the
    /// prompter), `TodoWrite` (the session's list) and `Skill` run at once.
    fn start(&mut self, tool: &ToolSpec, args: Value, cx: &mut CallCx) -> Started {
        let independent: fn(&Value, &Cx) -> ToolOutput = match tool.def.raw_name.as_str() {
            "Read" => read::call,
            "Write" => write::call,
            "Edit" => edit::call,
            "Grep" => grep::call,
            "Glob" => glob::call,
            "Bash" => bash::call,
            "WebSearch" => web_search::call,
            "WebFetch" => web_fetch::call,
            "AskUserQuestion" => return Started::Done(ask_user_question::call(&args, cx)),
            "TodoWrite" => return Started::Done(todo_write::call(&args, cx)),
            "Skill" => return Started::Done(skill::call(&args, cx)),
            other => {
                return Started::Done(ToolOutput::error(format!(
                    "`{other}` is not a built-in tool"
                )));
            }
        };
        let brief = tool.def.raw_name == "Read" && read::is_brief(&args, cx.session);
        let env = Arc::clone(cx.env);
        let session = cx.session.snapshot();
        let plan = cx.plan.clone();
        let job: Job = Box::new(move |job: &JobCx| {
            let cx = Cx {
                env: &env,
                session: &session,
                cancel: job.cancel,
                progress: job.progress,
                plan: &plan,
                blocked: job.blocked,
            };
            independent(&args, &cx)
        });
        if brief {
            Started::Brief(job)
        } else {
            Started::Job(job)
        }
    }

    /// Bash runs in the wall the pipeline chose beside the gate.
    fn wall(&self, tool: &ToolSpec) -> Walling {
        if tool.def.raw_name == bash::NAME {
            Walling::Gated
        } else {
            Walling::Own
        }
    }

    /// The command for Bash, the path for the file tools, the URL for WebFetch, the query
    /// for WebSearch.
    fn summary(&self, tool: &ToolSpec, args: &Value) -> Option<String> {
        let field = |k: &str| str_arg(args, k).map(str::to_string);
        match tool.def.raw_name.as_str() {
            bash::NAME => field("command"),
            "Read" | "Write" | "Edit" => field("path").or_else(|| field("file_path")),
            "Grep" | "Glob" => field("pattern").map(|p| match field("path") {
                Some(dir) => format!("{p} in {dir}"),
                None => p,
            }),
            "WebFetch" => field("url"),
            "WebSearch" => field("query"),
            _ => None,
        }
    }

    fn card_change(&self, tool: &ToolSpec, args: &Value, session: &SessionState) -> Option<Change> {
        card_change(&tool.def.raw_name, args, session)
    }

    /// Only two built-ins are known not to read the transcript: `TodoWrite`, and `Read` of a
    /// file outside the sessions directory (judged by its path as given: a link from
    /// elsewhere into that directory is not followed here). Everything else — `Bash`, the
    /// other file tools — could.
    fn may_see_transcript(&self, tool: &ToolSpec, args: &Value, session: &SessionState) -> bool {
        match tool.def.raw_name.as_str() {
            "TodoWrite" => false,
            "Read" => {
                let sessions = session.transcript_path().and_then(|t| t.parent()?.parent());
                match (sessions, str_arg(args, "file_path")) {
                    (Some(sessions), Some(file)) => resolve_in(session, file).starts_with(sessions),
                    _ => true,
                }
            }
            _ => true,
        }
    }
}

/// What an independent built-in's call uses: the host's environment, the session's
/// directories (read only), the call's cancellation and progress.
pub struct Cx<'a> {
    pub env: &'a HostEnv,
    pub session: &'a SessionState,
    pub cancel: &'a Cancel,
    #[allow(dead_code)]
    pub progress: &'a ProgressSink<'a>,
    /// The call's plan: for Bash, its command's classification and the wall it runs in.
    pub plan: &'a CallPlan,
    /// Where the call says what the kernel wall refused it (`JobCx::report_blocked`).
    pub blocked: &'a OnceLock<Blocked>,
}

impl Cx<'_> {
    /// Says that the kernel wall refused the call this (the first report counts).
    pub fn report_blocked(&self, blocked: Blocked) {
        let _ = self.blocked.set(blocked);
    }

    /// How the wall confines this call (unconfined for a tool it does not apply to).
    pub fn confine(&self) -> Confine {
        self.plan
            .wall
            .as_ref()
            .map_or(Confine::Unconfined, |w| w.confine)
    }
}

/// The search text of a built-in (`toolsearch::Searchable::keywords`, carried in its
/// definition): what people type when they want it, in English and Chinese (simplified and
/// traditional). Empty for other names.
fn keywords(name: &str) -> &'static str {
    match name {
        "Read" => read::KEYWORDS,
        "Write" => write::KEYWORDS,
        "Edit" => edit::KEYWORDS,
        "Grep" => grep::KEYWORDS,
        "Glob" => glob::KEYWORDS,
        "Bash" => bash::KEYWORDS,
        "WebSearch" => web_search::KEYWORDS,
        "WebFetch" => web_fetch::KEYWORDS,
        "AskUserQuestion" => ask_user_question::KEYWORDS,
        "TodoWrite" => todo_write::KEYWORDS,
        "Skill" => skill::KEYWORDS,
        _ => "",
    }
}

/// A built-in's definition.
fn def(name: &str, title: &str, description: &str, input_schema: Value) -> ToolDef {
    ToolDef {
        raw_name: name.into(),
        wanted_name: name.into(),
        title: title.into(),
        description: description.into(),
        layer: Layer::Builtin,
        source: "builtin".into(),
        owner: None,
        risk: None,
        input_schema,
        exposure: Exposure::Startup,
        keywords: keywords(name).to_string(),
        annotations: None,
    }
}

/// A string argument (the schema already checked types).
fn str_arg<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

/// A path argument made absolute against the session's cwd (`~` expanded), lexically
/// normalized — the same way the gateway judged it.
fn resolve_path(cx: &Cx, path: &str) -> PathBuf {
    resolve_in(cx.session, path)
}

/// The largest file a card reads to show what an Edit or a Write would change.
const CARD_READ_LIMIT: u64 = 1 << 20;

/// What a Write or Edit call would change, for its permission card; `None` for other tools
/// and for arguments the tool itself would refuse. Reads only regular files up to
/// `CARD_READ_LIMIT` (never a FIFO or a device, which could block).
fn card_change(tool: &str, args: &Value, session: &SessionState) -> Option<Change> {
    let path = resolve_in(session, str_arg(args, "file_path")?);
    let meta = std::fs::metadata(&path).ok().filter(|m| m.is_file());
    match tool {
        "Write" => Some(Change::Write {
            content: str_arg(args, "content")?.to_string(),
            replaces: meta.map(|m| m.len()),
        }),
        "Edit" => {
            let old = str_arg(args, "old_string")?;
            let new = str_arg(args, "new_string")?;
            let all = args
                .get("replace_all")
                .or_else(|| args.get("replaceAll"))
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let whole = meta
                .filter(|m| m.len() <= CARD_READ_LIMIT)
                .and_then(|_| std::fs::read_to_string(&path).ok())
                .and_then(|before| {
                    let after = edit::replace(&before, old, new, all).ok()?.content;
                    Some(Change::Edit { before, after })
                });
            Some(whole.unwrap_or_else(|| Change::Edit {
                before: old.to_string(),
                after: new.to_string(),
            }))
        }
        _ => None,
    }
}

/// `resolve_path` for a session outside a call.
fn resolve_in(session: &SessionState, path: &str) -> PathBuf {
    let expanded = crate::homes::expand_tilde(std::path::Path::new(path), session.home.as_deref())
        .unwrap_or_else(|_| PathBuf::from(path));
    crate::homes::absolutize(&expanded, &session.cwd)
}
