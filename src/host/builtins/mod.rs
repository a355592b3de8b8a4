//! The runtime built-ins of SPEC §8.6, native so `finch run` is complete on its own: one file
//! per tool, each with its definition (`def`) and its call (`call`). This file routes calls and
//! holds what several tools share (path resolution, argument access).
//!
//! A built-in never asks for permission itself: the host's gateway already decided. The file
//! tools resolve paths against the session's cwd; the gateway sends calls outside the cwd and
//! trusted directories to a card.

mod ask_user_question;
mod bash;
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

use super::catalog::{Exposure, ToolDef, ToolSpec};
use super::output::ToolOutput;
use super::session::SessionState;
use super::tool::Layer;
use super::{CallCx, Provider};

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
        match tool.def.raw_name.as_str() {
            "Read" => read::call(&args, cx),
            "Write" => write::call(&args, cx),
            "Edit" => edit::call(&args, cx),
            "Grep" => grep::call(&args, cx),
            "Glob" => glob::call(&args, cx),
            "Bash" => bash::call(&args, cx),
            "WebSearch" => web_search::call(&args, cx),
            "WebFetch" => web_fetch::call(&args, cx),
            "AskUserQuestion" => ask_user_question::call(&args, cx),
            "TodoWrite" => todo_write::call(&args, cx),
            "Skill" => skill::call(&args, cx),
            other => ToolOutput::error(format!("`{other}` is not a built-in tool")),
        }
    }
}

/// The search text of a built-in (`toolsearch::Searchable::keywords`): what people type when
/// they want it, in English and Chinese (simplified and traditional). Empty for other names.
pub fn keywords(name: &str) -> &'static str {
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
        keywords: String::new(),
        annotations: None,
    }
}

/// A string argument (the schema already checked types).
fn str_arg<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

/// A path argument made absolute against the session's cwd (`~` expanded), lexically
/// normalized — the same way the gateway judged it.
fn resolve_path(cx: &CallCx, path: &str) -> PathBuf {
    resolve_in(cx.session, path)
}

/// `resolve_path` for a session outside a call.
pub(crate) fn resolve_in(session: &SessionState, path: &str) -> PathBuf {
    let expanded = crate::homes::expand_tilde(std::path::Path::new(path), session.home.as_deref())
        .unwrap_or_else(|_| PathBuf::from(path));
    crate::homes::absolutize(&expanded, &session.cwd)
}
