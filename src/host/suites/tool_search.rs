//! The `ToolSearch` dispatcher (SPEC §8.2): ranks every tool of the catalog — dynamic ones not
//! yet active included — with the catalog's index (`host::toolsearch`), activates the dynamic
//! matches into the session so they can be called next, tells the front ends which tools were
//! newly activated (`HostEvent::ToolsActivated`), and returns the matches. Tools that mini tools'
//! discovery providers name for the query join the ranked ones (after them).

use serde_json::{Map, Value, json};

use super::super::catalog::Exposure;
use super::super::output::{Content, ToolOutput};
use super::super::toolsearch::SourceFilter;
use super::{About, Action, ActionError, Suite};
use crate::host::call::context::{CallCx, HostEvent};

/// Matches returned when the call sets no `limit` (SPEC §8.2).
const DEFAULT_LIMIT: u64 = 8;

pub struct ToolSearchSuite;

/// The tool's name.
pub const NAME: &str = "ToolSearch";

const ABOUT: About = About {
    name: NAME,
    title: "Tool search",
    description: "Find tools by what they do — built-ins, tool suites, mini tool tools and MCP tools, \
     also those not active yet — and activate the matches so they can be called. MCP tools \
     and other dynamic tools can only be called after a search returned them.",
    keywords: "find discover search more tools capabilities activate load a tool not yet available, which tool can do, MCP tools. 查找更多工具 搜索工具 发现工具 激活工具 加载工具 有什么工具 可用工具 尋找更多工具 搜尋工具 啟用工具 載入工具 有什麼工具",
};

impl Suite for ToolSearchSuite {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn actions(&self) -> Vec<Action> {
        vec![Action {
            name: "search",
            summary: "Rank the tools by name and description, activate the matches, and return them (name, title, description, source, activated)",
            params: json!({
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "query": {
                        "type": "string",
                        "description": "Words for what the tool should do, or its name; an empty query lists the tools of `source` by name",
                    },
                    "source": {
                        "type": "string",
                        "description": "Only tools of: builtin, suite, minitool, minitool:<id>, mcp or mcp:<server>",
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 0,
                        "description": "At most this many tools (default 8, 0 for all)",
                    },
                },
                "required": ["query"],
            }),
            example: json!({"action": "search", "query": "create a github issue", "source": "mcp"}),
        }]
    }

    /// SPEC §8.2 calls it with `query` alone.
    fn default_action(&self) -> Option<&'static str> {
        Some("search")
    }

    fn run(
        &mut self,
        action: &str,
        args: &Map<String, Value>,
        cx: &mut CallCx,
    ) -> Result<ToolOutput, ActionError> {
        if action != "search" {
            return Err(ActionError::new(format!(
                "ToolSearch has no action {action}"
            )));
        }
        let query = args
            .get("query")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let source = args.get("source").and_then(Value::as_str);
        let filter = match source {
            Some(s) => SourceFilter::parse(s).map_err(|e| {
                ActionError::new(e).with_hint("leave `source` out to search every tool")
            })?,
            None => SourceFilter::Any,
        };
        let limit = args
            .get("limit")
            .and_then(Value::as_u64)
            .unwrap_or(DEFAULT_LIMIT);
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let catalog = cx.catalog;
        let mut matches: Vec<usize> = catalog
            .index()
            .search(catalog.tools(), query, &filter, limit)
            .iter()
            .map(|h| h.index)
            .collect();
        // Mini tools' discovery providers name tools of their own; those the catalog holds and
        // the ranking missed come after the ranked ones.
        if !query.trim().is_empty() {
            for (source, raw) in (cx.discover)(query, limit) {
                let found = catalog.tools().iter().position(|t| {
                    t.def.source == source && t.def.raw_name == raw && filter.admits(t)
                });
                if let Some(i) = found
                    && !matches.contains(&i)
                {
                    matches.push(i);
                }
            }
        }
        if matches.is_empty() {
            return Ok(nothing_found(query, source));
        }
        let mut newly = Vec::new();
        let mut found = Vec::with_capacity(matches.len());
        for &index in &matches {
            let tool = catalog.get(index);
            if tool.def.exposure == Exposure::Dynamic && cx.session.active.insert(tool.name.clone())
            {
                newly.push(tool.name.clone());
            }
            // Every match can be called now: a startup tool always could, a dynamic one was
            // just activated or had been before.
            found.push(json!({
                "name": tool.name,
                "title": tool.def.title,
                "description": tool.def.description,
                "source": tool.def.source,
                "activated": true,
            }));
        }
        if !newly.is_empty() {
            cx.events.push(HostEvent::ToolsActivated(newly));
        }
        Ok(ToolOutput::json(Value::Array(found)))
    }
}

/// No match: say so, and how to search differently.
fn nothing_found(query: &str, source: Option<&str>) -> ToolOutput {
    let within = source
        .map(|s| format!(" among {s} tools"))
        .unwrap_or_default();
    let mut text = if query.trim().is_empty() {
        format!("There are no tools{within}.")
    } else {
        format!("No tools match \"{query}\"{within}.")
    };
    text.push_str(
        "\nhint: try fewer or more general words (what the tool does, e.g. \"send email\"), \
         leave out `source`, or search with an empty query and a source to list that source's tools.",
    );
    ToolOutput {
        content: vec![Content::Text(text)],
        structured: Some(Value::Array(Vec::new())),
        is_error: false,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config::Config;
    use crate::env::Env;
    use crate::homes::{AgentHomeSource, Homes};
    use crate::host::HostEnv;
    use crate::host::catalog::{Catalog, ToolDef};
    use crate::host::policy::Mode;
    use crate::host::prompt::Nobody;
    use crate::host::session::SessionState;
    use crate::host::tool::Layer;

    fn def(
        name: &str,
        layer: Layer,
        source: &str,
        exposure: Exposure,
        description: &str,
    ) -> ToolDef {
        ToolDef {
            raw_name: name.into(),
            wanted_name: name.into(),
            title: name.into(),
            description: description.into(),
            layer,
            source: source.into(),
            owner: None,
            risk: None,
            input_schema: json!({"type": "object"}),
            exposure,
            keywords: String::new(),
            annotations: None,
        }
    }

    fn catalog() -> Catalog {
        Catalog::build(vec![
            def(
                "Read",
                Layer::Builtin,
                "builtin",
                Exposure::Startup,
                "Read a file from disk",
            ),
            def(
                "mcp__github__create_issue",
                Layer::Mcp,
                "mcp:github",
                Exposure::Dynamic,
                "Create an issue in a GitHub repository",
            ),
            def(
                "mcp__github__search_issues",
                Layer::Mcp,
                "mcp:github",
                Exposure::Dynamic,
                "Search issues and pull requests",
            ),
            def(
                "weather_forecast",
                Layer::MiniTool,
                "minitool:weather",
                Exposure::Startup,
                "Weather forecast for a city",
            ),
        ])
    }

    fn host_env(dir: &Path) -> HostEnv {
        HostEnv {
            homes: Homes {
                runtime: dir.join("runtime"),
                agent: dir.join("agent"),
                agent_source: AgentHomeSource::Env,
            },
            settings: Config::default().settings(&dir.join("finch.toml")).unwrap(),
            env: Env::from_pairs(&[]),
            fixed_now: None,
            embed_resources: false,
        }
    }

    struct Run {
        output: ToolOutput,
        events: Vec<HostEvent>,
    }

    fn search(session: &mut SessionState, args: Value) -> Result<Run, ActionError> {
        let dir = tempfile::tempdir().unwrap();
        let env = std::sync::Arc::new(host_env(dir.path()));
        let catalog = catalog();
        let mut prompter = Nobody;
        let mut events = Vec::new();
        let plan = crate::host::call::plan::CallPlan::unplanned(session.workspace());
        let mut cx = CallCx {
            env: &env,
            session,
            catalog: &catalog,
            prompter: &mut prompter,
            events: &mut events,
            discover: &|_, _| Vec::new(),
            cancel: &crate::host::cancel::Cancel::new(),
            progress: &crate::host::cancel::no_progress,
            plan: &plan,
        };
        let Value::Object(args) = args else {
            panic!("arguments must be an object")
        };
        let output = ToolSearchSuite.run("search", &args, &mut cx)?;
        Ok(Run { output, events })
    }

    fn session() -> SessionState {
        SessionState::detached("/w".into(), "/w".into(), Mode::Ask, None)
    }

    fn names(output: &ToolOutput) -> Vec<String> {
        output
            .structured
            .as_ref()
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn dynamic_matches_are_activated_once_and_announced() {
        let mut s = session();
        let run = search(&mut s, json!({"query": "create github issue"})).unwrap();
        assert_eq!(
            names(&run.output),
            ["mcp__github__create_issue", "mcp__github__search_issues"]
        );
        assert_eq!(
            run.events,
            [HostEvent::ToolsActivated(vec![
                "mcp__github__create_issue".into(),
                "mcp__github__search_issues".into()
            ])]
        );
        assert!(s.active.contains("mcp__github__search_issues"));
        let first = &run.output.structured.as_ref().unwrap()[0];
        assert_eq!(
            first,
            &json!({"name": "mcp__github__create_issue", "title": "mcp__github__create_issue",
                    "description": "Create an issue in a GitHub repository", "source": "mcp:github",
                    "activated": true})
        );

        let again = search(&mut s, json!({"query": "create issue", "limit": 1})).unwrap();
        assert_eq!(names(&again.output), ["mcp__github__create_issue"]);
        assert!(again.events.is_empty(), "{:?}", again.events);
    }

    #[test]
    fn startup_matches_activate_nothing() {
        let mut s = session();
        let run = search(&mut s, json!({"query": "weather"})).unwrap();
        assert_eq!(names(&run.output), ["weather_forecast"]);
        assert!(run.events.is_empty());
        assert!(s.active.is_empty());
    }

    #[test]
    fn sources_filter_and_an_empty_query_lists_them() {
        let mut s = session();
        for (args, want) in [
            (
                json!({"query": "", "source": "mcp:github"}),
                vec!["mcp__github__create_issue", "mcp__github__search_issues"],
            ),
            (json!({"query": "read", "source": "builtin"}), vec!["Read"]),
            (
                json!({"query": "", "source": "minitool:weather"}),
                vec!["weather_forecast"],
            ),
            (
                json!({"query": "", "limit": 0}),
                vec![
                    "Read",
                    "mcp__github__create_issue",
                    "mcp__github__search_issues",
                    "weather_forecast",
                ],
            ),
        ] {
            let run = search(&mut s, args.clone()).unwrap();
            assert_eq!(names(&run.output), want, "{args}");
        }
    }

    #[test]
    fn no_match_says_so_with_a_hint() {
        for (args, want) in [
            (
                json!({"query": "xylophone"}),
                "No tools match \"xylophone\".",
            ),
            (
                json!({"query": "weather", "source": "mcp"}),
                "No tools match \"weather\" among mcp tools.",
            ),
            (
                json!({"query": "", "source": "suite"}),
                "There are no tools among suite tools.",
            ),
        ] {
            let run = search(&mut session(), args.clone()).unwrap();
            assert!(!run.output.is_error);
            assert_eq!(run.output.structured, Some(json!([])));
            let text = run.output.text_content();
            assert!(text.starts_with(want), "{args}: {text}");
            assert!(text.contains("\nhint: "), "{text}");
        }
    }

    #[test]
    fn a_bad_source_lists_the_valid_ones() {
        let e = search(&mut session(), json!({"query": "x", "source": "plugins"}))
            .err()
            .unwrap();
        assert_eq!(
            e.message,
            "unknown source \"plugins\": use builtin, suite, minitool, minitool:<id>, mcp or mcp:<server>"
        );
    }
}
