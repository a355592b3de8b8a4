//! What finch tells a client about each tool's behaviour: the MCP tool annotations
//! (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`, `title`) that
//! `--serve mcp` lists and `finch tool info --json` shows. Agents decide their own approvals
//! from them (Codex CLI asks for every unannotated tool), so they must say what finch knows
//! and never more:
//!
//! - built-ins and dispatchers: the table below, one row per name. A dispatcher's row holds for
//!   every one of its actions (`Memory` forgets, so it is destructive, though `search` is not);
//! - mini tool tools: never read-only (their code is theirs), destructive unless the mini tool
//!   declared `risk: "low"`, open-world;
//! - MCP tools: the server's own annotations passed on, except `readOnlyHint`;
//! - a tool the gateway cards on every call (`policy::always_cards`: mini tool and MCP tools,
//!   `MiniTool`) is never called read-only, whatever its owner says: a client that skips its
//!   own approval for read-only tools would otherwise be told the opposite of what finch
//!   does. An MCP tool its server calls read-only is passed on as not destructive instead.
//!
//! Hints are hints (MCP says so too): finch's gateway decides every call the same way whatever
//! a client makes of them.

use serde::Serialize;
use serde_json::Value;

use super::catalog::ToolSpec;
use super::policy;
use super::tool::{Layer, Risk, ToolRef};

/// One tool's annotations, as MCP names them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hints {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// (read-only, destructive, idempotent, open world) of a built-in or dispatcher.
type Row = (bool, bool, bool, bool);

/// The built-ins and dispatchers. Read-only means it changes nothing outside finch's own view
/// of the session: ToolSearch only changes which of finch's tools are listed, AskUserQuestion
/// only asks.
fn row(name: &str) -> Option<Row> {
    Some(match name {
        "Read" | "Grep" | "Glob" | "Skill" => (true, false, true, false),
        "WebSearch" | "WebFetch" => (true, false, true, true),
        "AskUserQuestion" => (true, false, true, false),
        // Write replaces a file's content; writing the same content again changes nothing.
        "Write" => (false, true, true, false),
        // Edit replaces text; the same edit again fails or replaces again.
        "Edit" => (false, true, false, false),
        "Bash" => (false, true, false, true),
        // The whole list is replaced by the one given.
        "TodoWrite" => (false, true, true, false),
        // remember, replace, forget, search, list, show.
        "Memory" => (false, true, false, false),
        // list, invoke: reads the skills on disk.
        "Skills" => (true, false, true, false),
        // search, extendDir, attach, rename (a rename replaces the old name).
        "Session" => (false, true, true, false),
        // info, setAppearance, listSpaces, createSpace, listModels, checkUpdate, saveProfile.
        "AppCall" => (false, true, false, true),
        "ToolSearch" => (true, false, true, false),
        // installs, updates, removes and runs mini tools.
        "MiniTool" => (false, true, false, true),
        // creates, changes and deletes tasks that run agent turns later.
        "Schedule" => (false, true, false, true),
        _ => return None,
    })
}

fn from_row(title: Option<String>, (read_only, destructive, idempotent, open_world): Row) -> Hints {
    Hints {
        title,
        read_only_hint: Some(read_only),
        destructive_hint: Some(destructive),
        idempotent_hint: Some(idempotent),
        open_world_hint: Some(open_world),
    }
}

/// The annotations of a catalog tool.
pub fn of(spec: &ToolSpec) -> Hints {
    let def = &spec.def;
    let title = (!def.title.is_empty() && def.title != spec.name).then(|| def.title.clone());
    let tool = ToolRef {
        name: &spec.name,
        layer: def.layer,
        owner: def.owner.as_deref(),
        risk: def.risk,
    };
    let mut hints = match def.layer {
        Layer::Builtin | Layer::Suite => match row(&spec.name) {
            Some(r) => from_row(title, r),
            None => from_row(title, (false, true, false, true)),
        },
        Layer::MiniTool => from_row(
            title,
            (false, def.risk.is_none_or(|r| r != Risk::Low), false, true),
        ),
        Layer::Mcp => upstream(title, def.annotations.as_ref(), def.risk),
    };
    if policy::always_cards(&tool) {
        hints.read_only_hint = Some(false);
    }
    hints
}

/// An MCP tool's hints: what its server declared, `readOnlyHint` excepted (finch cards every
/// MCP call); a read-only claim becomes "not destructive" unless the server said otherwise.
fn upstream(title: Option<String>, annotations: Option<&Value>, risk: Option<Risk>) -> Hints {
    let flag = |key: &str| {
        annotations
            .and_then(|a| a.get(key))
            .and_then(Value::as_bool)
    };
    let said_read_only = flag("readOnlyHint") == Some(true);
    let destructive = flag("destructiveHint")
        .or(said_read_only.then_some(false))
        .or((risk == Some(Risk::High)).then_some(true));
    Hints {
        title,
        read_only_hint: Some(false),
        destructive_hint: destructive,
        idempotent_hint: flag("idempotentHint"),
        open_world_hint: flag("openWorldHint"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::catalog::{Exposure, ToolDef};
    use crate::host::tool::{BUILTIN_TOOLS, SUITE_TOOLS};
    use serde_json::json;

    fn spec(name: &str, layer: Layer, risk: Option<Risk>, annotations: Option<Value>) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            def: ToolDef {
                raw_name: name.into(),
                wanted_name: name.into(),
                title: format!("{name} title"),
                description: String::new(),
                layer,
                source: String::new(),
                owner: None,
                risk,
                input_schema: json!({"type": "object"}),
                exposure: Exposure::Startup,
                keywords: String::new(),
                annotations,
            },
        }
    }

    #[test]
    fn every_builtin_and_dispatcher_has_a_row() {
        for name in BUILTIN_TOOLS.iter().chain(SUITE_TOOLS) {
            assert!(row(name).is_some(), "{name} has no hints row");
        }
    }

    /// A read-only claim must hold where the gateway looks: no tool it cards on every call is
    /// read-only, and every read-only built-in runs without a card in `acceptCalls` mode for
    /// a call inside the workspace (what the fast lane and autoAllow do).
    #[test]
    fn read_only_claims_agree_with_the_gateway() {
        use crate::host::policy::{Decision, Mode, PathFacts, Rules, ToolCall, Workspace, decide};
        let workspace = Workspace {
            cwd: "/work".into(),
            project: "/work".into(),
            trusted: Vec::new(),
            home: Some("/home/u".into()),
            runtime: None,
        };
        let facts = PathFacts::default();
        let args = |name: &str| match name {
            "Read" => json!({"file_path": "/work/a.txt"}),
            "Grep" => json!({"pattern": "x"}),
            "Glob" => json!({"pattern": "*.rs"}),
            "WebSearch" => json!({"query": "x"}),
            "WebFetch" => json!({"url": "https://example.org/"}),
            "Skill" => json!({"name": "x"}),
            "Skills" => json!({"action": "list"}),
            "ToolSearch" => json!({"query": "x"}),
            _ => json!({"question": "x", "options": []}),
        };
        for name in BUILTIN_TOOLS.iter().chain(SUITE_TOOLS) {
            let layer = Layer::of_name(name);
            let hints = of(&spec(name, layer, None, None));
            let tool = ToolRef::from_name(name);
            if policy::always_cards(&tool) {
                assert_eq!(hints.read_only_hint, Some(false), "{name}");
            }
            if hints.read_only_hint == Some(true) {
                let args = args(name);
                let call = ToolCall {
                    tool,
                    args: &args,
                    workspace: &workspace,
                    facts: &facts,
                    wall: crate::host::policy::Wall::Holds,
                };
                let verdict = decide(&call, Mode::AcceptCalls, &Rules::default());
                assert_eq!(verdict.decision, Decision::Allow, "{name}: {verdict:?}");
                assert_eq!(hints.destructive_hint, Some(false), "{name}");
            }
        }
        assert_eq!(
            of(&spec("Bash", Layer::Builtin, None, None)).read_only_hint,
            Some(false)
        );
        assert_eq!(
            of(&spec("MiniTool", Layer::Suite, None, None)),
            from_row(Some("MiniTool title".into()), (false, true, false, true))
        );
    }

    #[test]
    fn mini_tool_tools_follow_their_risk_and_are_never_read_only() {
        for (risk, destructive) in [
            (None, true),
            (Some(Risk::Low), false),
            (Some(Risk::Medium), true),
            (Some(Risk::High), true),
        ] {
            let hints = of(&spec("acme_forecast", Layer::MiniTool, risk, None));
            assert_eq!(hints.read_only_hint, Some(false));
            assert_eq!(hints.destructive_hint, Some(destructive), "{risk:?}");
            assert_eq!(hints.open_world_hint, Some(true));
        }
    }

    #[test]
    fn mcp_annotations_pass_through_without_read_only() {
        let read_only = of(&spec(
            "mcp__fs__read",
            Layer::Mcp,
            None,
            Some(json!({"readOnlyHint": true, "openWorldHint": false, "idempotentHint": true})),
        ));
        assert_eq!(
            serde_json::to_value(&read_only).unwrap(),
            json!({"title": "mcp__fs__read title", "readOnlyHint": false, "destructiveHint": false,
                   "idempotentHint": true, "openWorldHint": false})
        );
        let destructive = of(&spec(
            "mcp__fs__rm",
            Layer::Mcp,
            Some(Risk::High),
            Some(json!({"destructiveHint": true, "title": "ignored: the def's title is used"})),
        ));
        assert_eq!(destructive.destructive_hint, Some(true));
        assert_eq!(destructive.title.as_deref(), Some("mcp__fs__rm title"));
        // Nothing declared: only what finch knows (it cards every call), the rest left to the
        // protocol's defaults (destructive, open world).
        let silent = of(&spec("mcp__x__y", Layer::Mcp, None, None));
        assert_eq!(
            serde_json::to_value(&silent).unwrap(),
            json!({"title": "mcp__x__y title", "readOnlyHint": false})
        );
    }
}
