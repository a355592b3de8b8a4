//! The `Memory` dispatcher (SPEC §5, §8.1): remember, replace, forget, search, list and show
//! memory entries through the same `crate::memory` functions as `finch memory`, with the CLI's
//! argument checks, error messages and `--json` shapes (docs/json.md). It never prints and never
//! asks: the gateway lets it run (autoAllow), and what it changes is what the command would.

use chrono::NaiveDateTime;
use serde_json::{Map, Value, json};

use super::super::output::{Content, ToolOutput};
use super::{About, Action, ActionError, Suite, text};
use crate::error::CommandError;
use crate::host::call::context::CallCx;
use crate::memory::{
    self, EntryMatch, MemoryFile, MemoryHome, SNIPPET_CHARS, Scope, SearchRequest, Skipped, Target,
    entry_json, hit_json, match_error, no_files, selection, show_json,
};

/// The CLI's default number of search hits.
const DEFAULT_LIMIT: u64 = 20;

pub struct MemorySuite;

const ABOUT: About = About {
    name: "Memory",
    title: "Memory",
    description: "Remember, replace, forget, search, list and show entries of the agent's memory files \
     (long-term MEMORY.md, daily logs, space memory, lessons, the USER.md profile). \
     Entries are Markdown list items; each has an 8-hex id shown by search and list.",
    keywords: "remember recall note down keep in mind a fact preference for later, forget delete a memory, update correct a memory, what do you know about me, long-term memory notes. 记住 记下来 记忆 长期记忆 回忆 忘记 删除记忆 更新记忆 搜索记忆 我的偏好 记住这件事 記住 記下來 記憶 長期記憶 忘記 刪除記憶 搜尋記憶 我的偏好",
};

impl Suite for MemorySuite {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn actions(&self) -> Vec<Action> {
        let scope = json!({
            "type": "string",
            "enum": ["all", "long-term", "daily", "spaces", "lessons", "profile"],
            "description": "Which files to read: all (default), long-term, daily, spaces, lessons or profile",
        });
        let space = json!({
            "type": "string",
            "description": "Only this space's memory (with scope all or spaces)",
        });
        let within = json!({
            "type": "string",
            "description": "Only look in this file: long-term, profile, lessons, today, a date (YYYY-MM-DD), or space:<name>",
        });
        let id = json!({
            "type": "string",
            "description": "Id of the entry (8 hex digits, or a prefix of at least 4), from search or list",
        });
        vec![
            Action {
                name: "remember",
                summary: "Add an entry to a memory file (daily entries get the local time HH:MM in front)",
                params: json!({
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "text": {"type": "string", "description": "The entry text"},
                        "to": {
                            "type": "string",
                            "description": "Which file: long-term (default), daily, lessons, profile or space:<name>",
                        },
                        "section": {
                            "type": "string",
                            "description": "Put the entry under this heading (created at the end of the file when missing)",
                        },
                    },
                    "required": ["text"],
                }),
                example: json!({"action": "remember", "text": "Prefers metric units", "to": "profile"}),
            },
            Action {
                name: "replace",
                summary: "Replace exactly one entry, chosen by `old` (a case-sensitive substring of it) or by `id`",
                params: json!({
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "old": {"type": "string", "description": "Text that matches the entry to replace (or give `id`)"},
                        "id": id,
                        "new": {"type": "string", "description": "The new entry text"},
                        "in": within,
                    },
                    "required": ["new"],
                }),
                example: json!({"action": "replace", "old": "Lives in Berlin", "new": "Lives in Hamburg"}),
            },
            Action {
                name: "forget",
                summary: "Remove one entry, chosen by `text` (a case-sensitive substring of it) or by `id`; every match with allMatching",
                params: json!({
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "text": {"type": "string", "description": "Text that matches the entry to remove (or give `id`)"},
                        "id": id,
                        "allMatching": {"type": "boolean", "description": "Remove every entry the text matches (default false)"},
                        "in": within,
                    },
                    "required": [],
                }),
                example: json!({"action": "forget", "id": "3166d002"}),
            },
            Action {
                name: "search",
                summary: "Search memory, ranked; each hit has its file, line, date, id and a snippet",
                params: json!({
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "query": {"type": "string", "description": "Words to look for"},
                        "scope": scope,
                        "space": space,
                        "since": {"type": "string", "description": "Only entries dated on or after this day (YYYY-MM-DD)"},
                        "until": {"type": "string", "description": "Only entries dated on or before this day (YYYY-MM-DD)"},
                        "limit": {"type": "integer", "minimum": 0, "description": "At most this many hits (default 20, 0 for all)"},
                    },
                    "required": ["query"],
                }),
                example: json!({"action": "search", "query": "deploy staging", "scope": "daily", "limit": 5}),
            },
            Action {
                name: "list",
                summary: "List entries with their ids",
                params: json!({
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {"scope": scope, "space": space},
                    "required": [],
                }),
                example: json!({"action": "list", "scope": "long-term"}),
            },
            Action {
                name: "show",
                summary: "Show a whole memory file with its entries",
                params: json!({
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "what": {
                            "type": "string",
                            "description": "long-term, profile, lessons, today, a date (YYYY-MM-DD), or a space name",
                        },
                    },
                    "required": ["what"],
                }),
                example: json!({"action": "show", "what": "today"}),
            },
        ]
    }

    fn run(
        &mut self,
        action: &str,
        args: &Map<String, Value>,
        cx: &mut CallCx,
    ) -> Result<ToolOutput, ActionError> {
        let now = cx.env.now().naive_local();
        let home = MemoryHome::new(cx.env.homes.agent.clone(), cx.env.settings.lock_timeout);
        match action {
            "remember" => remember(&home, args, now),
            "replace" => replace(&home, args, now),
            "forget" => forget(&home, args, now),
            "search" => search(&home, args, now),
            "list" => list(&home, args),
            "show" => show(&home, args, now),
            other => Err(ActionError::new(format!("Memory has no action {other}"))),
        }
    }
}

fn remember(
    home: &MemoryHome,
    args: &Map<String, Value>,
    now: NaiveDateTime,
) -> Result<ToolOutput, ActionError> {
    let target =
        Target::parse(text(args, "to").unwrap_or("long-term")).map_err(CommandError::from)?;
    let entry = text(args, "text").unwrap_or_default();
    let done = memory::remember(home, &target, entry, text(args, "section"), now)
        .map_err(CommandError::from)?;
    let mut value = entry_json(&done.entry);
    value["createdFile"] = done.created_file.into();
    value["createdSection"] = done.created_section.into();
    Ok(ToolOutput::json(value))
}

fn replace(
    home: &MemoryHome,
    args: &Map<String, Value>,
    now: NaiveDateTime,
) -> Result<ToolOutput, ActionError> {
    let which = entry_match(args, "old")?;
    let within = within_file(home, args, now)?;
    let new_text = text(args, "new").unwrap_or_default();
    let done = memory::replace(home, &which, within.as_ref(), new_text, now)
        .map_err(|e| match_error(e, false))?;
    let value = json!({"old": entry_json(&done.old), "new": entry_json(&done.new)});
    Ok(with_skipped(ToolOutput::json(value), &done.skipped))
}

fn forget(
    home: &MemoryHome,
    args: &Map<String, Value>,
    now: NaiveDateTime,
) -> Result<ToolOutput, ActionError> {
    let which = entry_match(args, "text")?;
    let within = within_file(home, args, now)?;
    let all = args
        .get("allMatching")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let done =
        memory::forget(home, &which, within.as_ref(), all).map_err(|e| match_error(e, true))?;
    let removed: Vec<Value> = done.removed.iter().map(entry_json).collect();
    Ok(with_skipped(
        ToolOutput::json(json!({ "removed": removed })),
        &done.skipped,
    ))
}

fn search(
    home: &MemoryHome,
    args: &Map<String, Value>,
    now: NaiveDateTime,
) -> Result<ToolOutput, ActionError> {
    let query = text(args, "query").unwrap_or_default();
    let selection = selection(
        scope(args),
        text(args, "space"),
        text(args, "since"),
        text(args, "until"),
    )?;
    let request = SearchRequest {
        query,
        selection,
        limit: limit(args),
        snippet_width: SNIPPET_CHARS,
        today: now.date(),
    };
    let found = memory::search(home, &request).map_err(CommandError::from)?;
    let hits: Vec<Value> = found.hits.iter().map(hit_json).collect();
    let output = if hits.is_empty() {
        let message = if found.files == 0 {
            no_files(home)
        } else {
            format!(
                "No matches for \"{query}\" in {} memory file{}. Try other or fewer words, or a wider scope.",
                found.files,
                if found.files == 1 { "" } else { "s" }
            )
        };
        empty(message)
    } else {
        ToolOutput::json(Value::Array(hits))
    };
    Ok(with_skipped(output, &found.skipped))
}

fn list(home: &MemoryHome, args: &Map<String, Value>) -> Result<ToolOutput, ActionError> {
    let selection = selection(scope(args), text(args, "space"), None, None)?;
    let (entries, skipped) = memory::list(home, &selection).map_err(CommandError::from)?;
    let output = if entries.is_empty() {
        empty(if home.agent.exists() {
            format!("No memory entries in {}", home.agent.display())
        } else {
            no_files(home)
        })
    } else {
        ToolOutput::json(Value::Array(entries.iter().map(entry_json).collect()))
    };
    Ok(with_skipped(output, &skipped))
}

fn show(
    home: &MemoryHome,
    args: &Map<String, Value>,
    now: NaiveDateTime,
) -> Result<ToolOutput, ActionError> {
    let what = text(args, "what").unwrap_or_default();
    let file = memory::resolve_file(home, what, now.date()).map_err(CommandError::from)?;
    let content = memory::show(&file).map_err(CommandError::from)?;
    Ok(ToolOutput::json(show_json(&file, &content)))
}

/// The entry `replace` or `forget` acts on: the text in `text_key`, or `id` — exactly one.
fn entry_match(args: &Map<String, Value>, text_key: &str) -> Result<EntryMatch, ActionError> {
    match (text(args, text_key), text(args, "id")) {
        (Some(t), None) => EntryMatch::new_text(t),
        (None, Some(id)) => EntryMatch::new_id(id),
        (Some(_), Some(_)) => {
            return Err(ActionError::new(format!(
                "give either `{text_key}` or `id`, not both"
            )));
        }
        (None, None) => {
            return Err(ActionError::new(format!(
                "say which entry: give `{text_key}` (text the entry contains) or `id`"
            ))
            .with_hint("search or list shows the entries with their ids"));
        }
    }
    .map_err(|e| CommandError::from(e).into())
}

fn within_file(
    home: &MemoryHome,
    args: &Map<String, Value>,
    now: NaiveDateTime,
) -> Result<Option<MemoryFile>, ActionError> {
    let Some(within) = text(args, "in") else {
        return Ok(None);
    };
    let file = memory::resolve_file(home, within, now.date()).map_err(CommandError::from)?;
    Ok(Some(file))
}

/// `scope`, as the CLI's `--scope` reads it (the schema admits only its values).
fn scope(args: &Map<String, Value>) -> Scope {
    text(args, "scope")
        .and_then(Scope::parse)
        .unwrap_or(Scope::All)
}

fn limit(args: &Map<String, Value>) -> usize {
    let n = args
        .get("limit")
        .and_then(Value::as_u64)
        .unwrap_or(DEFAULT_LIMIT);
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// No results: the sentence for the model, `[]` for programs.
fn empty(message: String) -> ToolOutput {
    ToolOutput {
        content: vec![Content::Text(message)],
        structured: Some(Value::Array(Vec::new())),
        is_error: false,
    }
}

/// Files passed over (not UTF-8) are worth a line after the result, as the CLI warns.
fn with_skipped(mut output: ToolOutput, skipped: &[Skipped]) -> ToolOutput {
    for s in skipped {
        output
            .content
            .push(Content::Text(format!("warning: skipped {}", s.error)));
    }
    output
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn an_entry_is_chosen_by_text_or_id_exactly_once() {
        let cases = [
            (
                json!({"old": "Berlin"}),
                Ok(EntryMatch::Text("Berlin".into())),
            ),
            (
                json!({"id": "3166D002"}),
                Ok(EntryMatch::Id("3166d002".into())),
            ),
            (json!({"old": "x", "id": "3166d002"}), Err("not both")),
            (json!({}), Err("say which entry")),
            (json!({"id": "xyz"}), Err("is not an entry id")),
            (json!({"old": "   "}), Err("the entry text is empty")),
        ];
        for (given, want) in cases {
            let got = entry_match(&args(given.clone()), "old");
            match (got, want) {
                (Ok(m), Ok(w)) => assert_eq!(m, w, "{given}"),
                (Err(e), Err(w)) => assert!(e.message.contains(w), "{given}: {e:?}"),
                (got, want) => panic!("{given}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn scope_and_limit_default_like_the_cli() {
        assert_eq!(scope(&args(json!({}))), Scope::All);
        assert_eq!(scope(&args(json!({"scope": "long-term"}))), Scope::LongTerm);
        assert_eq!(limit(&args(json!({}))), 20);
        assert_eq!(limit(&args(json!({"limit": 0}))), 0);
    }

    #[test]
    fn every_action_has_a_strict_schema_and_an_example_that_passes_it() {
        for action in MemorySuite.actions() {
            assert_eq!(
                action.params["additionalProperties"], false,
                "{}",
                action.name
            );
            let props = action.params["properties"].as_object().unwrap();
            for (k, v) in props {
                assert!(v["description"].is_string(), "{}.{k}", action.name);
            }
            let mut example = action.example.as_object().unwrap().clone();
            assert_eq!(example.remove("action"), Some(json!(action.name)));
            let schema = crate::host::schema::Schema::compile(&action.params);
            assert_eq!(
                schema.check(&Value::Object(example)),
                Ok(()),
                "{}",
                action.name
            );
        }
    }
}
