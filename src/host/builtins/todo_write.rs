//! `TodoWrite` (SPEC §8.6): the session's to-do list. Each call replaces the whole list, which
//! is kept in the session and appended to the transcript as a `finch.todos` entry, so a continued
//! session reads the latest list back. At most one item may be in progress at a time: the list
//! says what the model is doing now, and two "now"s mean it lost track.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::super::catalog::ToolDef;
use super::super::output::{Content, ToolOutput};
use super::super::session::{SessionState, TODOS_ENTRY};
use crate::host::call::context::CallCx;

const DESCRIPTION: &str = "Replace this session's to-do list. Send the whole list every time \
(items left out are dropped), each item with `content` (what to do, imperative) and `status` \
(pending, in_progress or completed), and optionally `activeForm` (the same in the present \
continuous, shown while it is in progress). Keep at most one item in_progress; mark an item \
completed as soon as it is done. Use it for work of three or more steps so the user can follow \
along. Returns the list as a checklist.";

/// What people type when they want this tool (ToolSearch ranks it beside the description).
pub const KEYWORDS: &str = "todo list to-do checklist tasks plan progress steps track. 待办清单 待办事项 任务清单 计划 进度 步骤 待辦清單 待辦事項 任務清單 計畫 進度";

pub fn def() -> ToolDef {
    super::def(
        "TodoWrite",
        "Update the to-do list",
        DESCRIPTION,
        json!({
            "type": "object",
            "properties": {
                "todos": {
                    "type": "array",
                    "description": "The complete new list, in order.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "content": {"type": "string", "minLength": 1},
                            "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
                            "activeForm": {"type": "string", "minLength": 1},
                            "id": {"type": "string", "description": "Optional; kept as given."},
                            "priority": {"type": "string", "enum": ["high", "medium", "low"]}
                        },
                        "required": ["content", "status"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["todos"],
            "additionalProperties": false
        }),
    )
}

pub fn call(args: &Value, cx: &mut CallCx) -> ToolOutput {
    let now = cx.env.now_utc();
    write(args, cx.session, now)
}

/// Checks the list, makes it the session's, records it, and renders it.
fn write(args: &Value, session: &mut SessionState, now: DateTime<Utc>) -> ToolOutput {
    let todos = args.get("todos").cloned().unwrap_or_else(|| json!([]));
    let items = todos.as_array().map(Vec::as_slice).unwrap_or_default();
    let in_progress: Vec<&str> = items
        .iter()
        .filter(|i| i.get("status").and_then(Value::as_str) == Some("in_progress"))
        .filter_map(|i| i.get("content").and_then(Value::as_str))
        .collect();
    if in_progress.len() > 1 {
        return ToolOutput::error(format!(
            "{} items are in_progress ({}); at most one may be. Mark the others pending or \
             completed and call TodoWrite again with the whole list.",
            in_progress.len(),
            in_progress
                .iter()
                .map(|c| format!("\"{c}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    session.todos = todos.clone();
    let text = checklist(items);
    if let Err(e) = session.record(TODOS_ENTRY, &json!({"todos": todos}), now) {
        return ToolOutput::error(format!(
            "The to-do list is set for this run, but it could not be saved in the session \
             transcript ({e}), so a continued session will not see it.\n{text}"
        ));
    }
    ToolOutput {
        content: vec![Content::Text(text)],
        structured: Some(json!({"todos": todos})),
        is_error: false,
    }
}

/// `To-do list (3 items: …):` and one `- [x] …` line per item.
fn checklist(items: &[Value]) -> String {
    if items.is_empty() {
        return "The to-do list is now empty.".into();
    }
    let count = |s: &str| {
        items
            .iter()
            .filter(|i| i.get("status").and_then(Value::as_str) == Some(s))
            .count()
    };
    let mut out = format!(
        "To-do list ({} item{}: {} completed, {} in progress, {} pending):",
        items.len(),
        if items.len() == 1 { "" } else { "s" },
        count("completed"),
        count("in_progress"),
        count("pending"),
    );
    for item in items {
        let field = |k: &str| item.get(k).and_then(Value::as_str);
        let content = field("content").unwrap_or_default();
        let line = match field("status") {
            Some("completed") => format!("- [x] {content}"),
            Some("in_progress") => match field("activeForm") {
                Some(active) => format!("- [~] {content} (in progress: {active})"),
                None => format!("- [~] {content} (in progress)"),
            },
            _ => format!("- [ ] {content}"),
        };
        out.push('\n');
        out.push_str(&line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::policy::Mode;

    #[test]
    fn schema_compiles() {
        assert!(jsonschema::validator_for(&def().input_schema).is_ok());
    }

    fn session() -> SessionState {
        SessionState::detached("/w".into(), "/w".into(), Mode::Ask, None)
    }

    #[test]
    fn renders_a_checklist_and_keeps_the_list() {
        let mut s = session();
        let todos = json!([
            {"content": "Read the spec", "status": "completed"},
            {"content": "Write Bash", "status": "in_progress", "activeForm": "Writing Bash"},
            {"content": "Test it", "status": "pending"}
        ]);
        let out = write(&json!({"todos": todos}), &mut s, Utc::now());
        assert!(!out.is_error);
        assert_eq!(
            out.text_content(),
            "To-do list (3 items: 1 completed, 1 in progress, 1 pending):\n\
             - [x] Read the spec\n\
             - [~] Write Bash (in progress: Writing Bash)\n\
             - [ ] Test it"
        );
        assert_eq!(s.todos, todos);
        assert_eq!(out.structured, Some(json!({"todos": todos})));
    }

    #[test]
    fn cases() {
        let cases = [
            (json!([]), false, "The to-do list is now empty."),
            (
                json!([{"content": "One", "status": "in_progress"}]),
                false,
                "To-do list (1 item: 0 completed, 1 in progress, 0 pending):\n- [~] One (in progress)",
            ),
            (
                json!([
                    {"content": "A", "status": "in_progress"},
                    {"content": "B", "status": "in_progress"}
                ]),
                true,
                "2 items are in_progress (\"A\", \"B\"); at most one may be.",
            ),
        ];
        for (todos, is_error, want) in cases {
            let mut s = session();
            s.todos = json!(["before"]);
            let out = write(&json!({"todos": todos}), &mut s, Utc::now());
            assert_eq!(out.is_error, is_error, "{todos}");
            assert!(
                out.text_content().starts_with(want),
                "{}",
                out.text_content()
            );
            // A refused list leaves the old one in place.
            let kept = if is_error {
                json!(["before"])
            } else {
                todos.clone()
            };
            assert_eq!(s.todos, kept);
        }
    }
}
