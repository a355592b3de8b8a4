//! The tool suites of SPEC §8.1 — the dispatcher tools `Memory`, `Skills`, `Session`,
//! `AppCall`, `ToolSearch`, `MiniTool`, `Schedule` — one file per suite. Each takes an `action`
//! and that action's parameters, and calls the same domain modules as the matching `finch`
//! command (the `Memory` tool and `finch memory` share one implementation).
//!
//! This file turns a `Suite` (its actions, each with a parameter schema and an example) into a
//! tool: the top-level schema, the manual returned for a call without `action`, the error for
//! an unknown action, and the check of the action's parameters before it runs.

pub(crate) mod app_call;
mod memory;
mod minitool;
mod schedule;
mod session;
mod skills;
mod tool_search;

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::catalog::{Exposure, ToolDef, ToolSpec};
use super::output::ToolOutput;
use super::schema::Schema;
use super::tool::Layer;
use super::toolsearch::SourceFilter;
use crate::error::CommandError;
use crate::host::call::context::CallCx;
use crate::host::provider::Provider;

/// One action of a suite.
pub struct Action {
    pub name: &'static str,
    /// One line: what it does.
    pub summary: &'static str,
    /// The JSON Schema of its parameters (an object schema; `action` itself is not listed).
    pub params: Value,
    /// Arguments of an example call, `action` included.
    pub example: Value,
}

/// An error of an action: what went wrong and what to do about it.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionError {
    pub message: String,
    pub hints: Vec<String>,
}

impl ActionError {
    pub fn new(message: impl Into<String>) -> ActionError {
        ActionError {
            message: message.into(),
            hints: Vec::new(),
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> ActionError {
        self.hints.push(hint.into());
        self
    }
}

/// The CLI's errors carry the same messages and hints the commands print.
impl From<CommandError> for ActionError {
    fn from(e: CommandError) -> ActionError {
        ActionError {
            message: e.message,
            hints: e.hints,
        }
    }
}

/// What a dispatcher tool is called and what it tells the model it does.
pub struct About {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// What people type when they want each action, in English and Chinese (simplified and
    /// traditional); ToolSearch ranks it with the actions and their parameters.
    pub keywords: &'static str,
}

/// A dispatcher tool.
pub trait Suite {
    fn about(&self) -> &'static About;
    fn actions(&self) -> Vec<Action>;
    /// The action a call without `action` runs when it carries parameters (`ToolSearch` has a
    /// single action and is called with `query` alone); `None`: such a call gets the manual.
    fn default_action(&self) -> Option<&'static str> {
        None
    }
    /// Runs one action; `args` passed the action's schema.
    fn run(
        &mut self,
        action: &str,
        args: &Map<String, Value>,
        cx: &mut CallCx,
    ) -> Result<ToolOutput, ActionError>;
}

/// The provider of all seven suites.
pub struct Suites {
    suites: Vec<Box<dyn Suite>>,
    schemas: HashMap<(usize, &'static str), Schema>,
}

impl Default for Suites {
    fn default() -> Self {
        Suites {
            suites: vec![
                Box::new(memory::MemorySuite),
                Box::new(skills::SkillsSuite),
                Box::new(session::SessionSuite),
                Box::new(app_call::AppCallSuite),
                Box::new(tool_search::ToolSearchSuite),
                Box::new(minitool::MiniToolSuite),
                Box::new(schedule::ScheduleSuite),
            ],
            schemas: HashMap::new(),
        }
    }
}

impl Provider for Suites {
    fn defs(&self) -> Vec<ToolDef> {
        self.suites.iter().map(|s| def(s.as_ref())).collect()
    }

    /// ToolSearch searches the catalog: the sources its `source` names (all by default).
    fn searches(&self, tool: &ToolSpec, args: &Value) -> Option<SourceFilter> {
        if tool.def.raw_name != tool_search::NAME {
            return None;
        }
        Some(
            args.get("source")
                .and_then(Value::as_str)
                .and_then(|s| SourceFilter::parse(s).ok())
                .unwrap_or(SourceFilter::Any),
        )
    }

    fn is_manual_call(&self, tool: &ToolSpec, args: &Value) -> bool {
        let Some(suite) = self
            .suites
            .iter()
            .find(|s| s.about().name == tool.def.raw_name)
        else {
            return false;
        };
        args.get("action").is_none()
            && (suite.default_action().is_none() || args.as_object().is_none_or(Map::is_empty))
    }

    fn call(&mut self, tool: &ToolSpec, args: Value, cx: &mut CallCx) -> ToolOutput {
        let Some(at) = self
            .suites
            .iter()
            .position(|s| s.about().name == tool.def.raw_name)
        else {
            return ToolOutput::error(format!("`{}` is not a tool suite", tool.def.raw_name));
        };
        let suite = self.suites[at].as_ref();
        let actions = suite.actions();
        let default = suite.default_action().map(Value::from);
        let Some(action_name) = args.get("action").or(default.as_ref()) else {
            return ToolOutput::text(manual(suite, &actions));
        };
        if args.get("action").is_none() && args.as_object().is_none_or(Map::is_empty) {
            return ToolOutput::text(manual(suite, &actions));
        }
        let Some(action) = actions
            .iter()
            .find(|a| Some(a.name) == action_name.as_str())
        else {
            let names: Vec<&str> = actions.iter().map(|a| a.name).collect();
            return ToolOutput::error(format!(
                "`{}` has no action {action_name}. Actions: {}. Call `{}` without `action` for its manual.",
                suite.about().name,
                names.join(", "),
                suite.about().name
            ));
        };
        let mut params = match args {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        params.remove("action");
        let params_value = Value::Object(params);
        let schema = self
            .schemas
            .entry((at, action.name))
            .or_insert_with(|| Schema::compile(&action.params));
        if let Err(problems) = schema.check(&params_value) {
            return ToolOutput::error(format!(
                "Invalid parameters for {} action `{}`:\n- {}\nExample: {}",
                suite.about().name,
                action.name,
                problems.join("\n- "),
                action.example
            ));
        }
        let Value::Object(params) = params_value else {
            return ToolOutput::error("parameters must be an object");
        };
        let name = action.name;
        match self.suites[at].run(name, &params, cx) {
            Ok(output) => output,
            Err(e) => {
                let mut text = e.message;
                for hint in e.hints {
                    text.push_str("\nhint: ");
                    text.push_str(&hint);
                }
                ToolOutput::error(text)
            }
        }
    }
}

/// The search text of a dispatcher (`toolsearch::Searchable::keywords`, carried in its
/// definition): its `About::keywords`, then each action's name, summary and parameter
/// descriptions — so "create a new space" reaches `AppCall` through `createSpace`.
fn search_text(suite: &dyn Suite) -> String {
    let mut text = String::from(suite.about().keywords);
    for action in suite.actions() {
        text.push('\n');
        text.push_str(action.name);
        text.push(' ');
        text.push_str(action.summary);
        if let Some(props) = action.params.get("properties").and_then(Value::as_object) {
            for (k, v) in props {
                text.push(' ');
                text.push_str(k);
                if let Some(what) = v.get("description").and_then(Value::as_str) {
                    text.push(' ');
                    text.push_str(what);
                }
            }
        }
    }
    text
}

/// The tool a suite becomes: `action` (one of its actions) plus every action's parameters,
/// none required at this level (each action checks its own).
/// A string argument of an action (its schema already checked the type).
fn text<'a>(args: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

fn def(suite: &dyn Suite) -> ToolDef {
    let actions = suite.actions();
    let mut properties = Map::new();
    properties.insert(
        "action".into(),
        json!({
            "type": "string",
            "enum": actions.iter().map(|a| a.name).collect::<Vec<_>>(),
            "description": "What to do; call without it for the full manual",
        }),
    );
    for action in &actions {
        if let Some(props) = action.params.get("properties").and_then(Value::as_object) {
            for (k, v) in props {
                properties.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }
    ToolDef {
        raw_name: suite.about().name.into(),
        wanted_name: suite.about().name.into(),
        title: suite.about().title.into(),
        description: suite.about().description.into(),
        layer: Layer::Suite,
        source: "suite".into(),
        owner: None,
        risk: None,
        input_schema: json!({"type": "object", "properties": properties}),
        exposure: Exposure::Startup,
        keywords: search_text(suite),
        annotations: None,
    }
}

/// The manual: every action, its parameters, an example.
pub fn manual(suite: &dyn Suite, actions: &[Action]) -> String {
    let mut out = format!(
        "{} — {}\nCall it with \"action\" set to one of: {}.\n",
        suite.about().name,
        suite.about().description,
        actions
            .iter()
            .map(|a| a.name)
            .collect::<Vec<_>>()
            .join(", ")
    );
    for action in actions {
        out.push_str(&format!("\n{} — {}\n", action.name, action.summary));
        let required: Vec<&str> = action
            .params
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(props) = action.params.get("properties").and_then(Value::as_object) {
            for (k, v) in props {
                let kind = v
                    .get("type")
                    .map(|t| match t {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .or_else(|| v.get("enum").map(|e| format!("one of {e}")))
                    .unwrap_or_else(|| "any".into());
                let need = if required.contains(&k.as_str()) {
                    ", required"
                } else {
                    ""
                };
                let what = v.get("description").and_then(Value::as_str).unwrap_or("");
                out.push_str(&format!("  {k} ({kind}{need}) {what}\n"));
            }
        }
        out.push_str(&format!("  example: {}\n", action.example));
    }
    out
}
