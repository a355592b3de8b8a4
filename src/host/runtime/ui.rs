//! What a mini tool asks a person (`ctx.ui.showConfirmDialog`, `ctx.ui.showModalDialog`,
//! `exec.ui.requestForm`) becomes questions through the host's `Prompter` — the same one that
//! shows permission cards: the terminal's, the MCP client's elicitation, or nobody. Runs on the
//! thread that owns the prompter (the one in `Host::call`).
//!
//! Answers have the shapes of finch.d.ts: a confirm dialog → `{confirmed}`; a modal →
//! `{action, values?}`; a form → `{submitted, values, reason?}`. With nobody to ask, the answer
//! is the documented "not answered" result — `{confirmed: false}`, `{action: "dismissed"}`,
//! `{submitted: false, reason: "background"}` (the first two also carry `reason`) — and the
//! caller prints a notice that the dialog got no answer: never a silent or made-up answer.
//!
//! What a mini tool shows and asks nothing about (`ctx.ui.openDiff`) becomes a `View`
//! (`diff_view`): a unified diff the prompter shows, or the call's result carries.

use serde_json::{Map, Value, json};

use super::protocol::{ChildRequest, DIFF_SIDE_MAX, DiffSide, OpenDiff};
use super::rpc::{RpcError, RpcResult};
use crate::host::prompt::{Choice, Prompter, Question, QuestionAnswer, View};

/// One answered prompt: the mini tool's result, and a notice for the person running finch when
/// nobody could answer.
pub(crate) struct Answered {
    pub result: RpcResult,
    pub notice: Option<String>,
}

/// The dialogs a mini tool can ask a person (the `ui.confirm`, `ui.modal`, `ui.form` requests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialog {
    Confirm,
    Modal,
    Form,
}

impl Dialog {
    /// The dialog a request asks for, when it is one.
    pub(crate) fn of(method: ChildRequest) -> Option<Dialog> {
        match method {
            ChildRequest::UiConfirm => Some(Dialog::Confirm),
            ChildRequest::UiModal => Some(Dialog::Modal),
            ChildRequest::UiForm => Some(Dialog::Form),
            _ => None,
        }
    }
}

/// Answers one prompt request of a mini tool.
pub(crate) fn answer(
    method: Dialog,
    params: &Value,
    display_name: &str,
    prompter: &mut dyn Prompter,
) -> Answered {
    let asked = match method {
        Dialog::Confirm => confirm(params, display_name, prompter),
        Dialog::Modal => modal(params, display_name, prompter),
        Dialog::Form => form(params, display_name, prompter),
    };
    match asked {
        Ok(result) => Answered {
            result,
            notice: None,
        },
        Err(why) => {
            let result = unanswered(method, why);
            let title = text(params, "title")
                .map(|t| format!(" \"{t}\""))
                .unwrap_or_default();
            let notice = match why {
                Unanswered::Nobody => format!(
                    "{}{title} got no answer (nobody to ask in this run — no terminal, no MCP client that elicits — or it was dismissed); answered {result}",
                    dialog_name(method)
                ),
                Unanswered::TimedOut => format!(
                    "{}{title}: nobody answered in time; answered {result}",
                    dialog_name(method)
                ),
            };
            Answered {
                result: Ok(result),
                notice: Some(notice),
            }
        }
    }
}

/// What `ctx.ui.openDiff` shows: a heading naming the mini tool, the title and both paths, and
/// a unified diff of the two texts (3 lines of context) — or why there is none to show.
pub(crate) fn diff_view(diff: &OpenDiff, display_name: &str) -> View {
    let (left, right) = (&diff.left, &diff.right);
    let title = diff
        .title
        .as_deref()
        .filter(|t| !t.trim().is_empty())
        .unwrap_or("diff");
    let heading = format!("{display_name}: {title} ({} → {})", left.path, right.path);
    let too_large = |side: &DiffSide| {
        format!(
            "(no diff shown: {} is {} bytes; finch shows files up to {} bytes)",
            side.path, side.size, DIFF_SIDE_MAX
        )
    };
    let body = match (&left.text, &right.text) {
        (None, _) => too_large(left),
        (_, None) => too_large(right),
        (Some(a), Some(b)) if a == b => "(no differences)".to_string(),
        (Some(a), Some(b)) if a.contains('\0') || b.contains('\0') => {
            format!("Binary files {} and {} differ", left.path, right.path)
        }
        (Some(a), Some(b)) => similar::TextDiff::from_lines(a.as_str(), b.as_str())
            .unified_diff()
            .context_radius(3)
            .header(&left.path, &right.path)
            .to_string(),
    };
    View { heading, body }
}

/// Why a prompt got no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unanswered {
    Nobody,
    TimedOut,
}

/// The d.ts name of the dialog behind a wire method.
pub(crate) fn dialog_name(method: Dialog) -> &'static str {
    match method {
        Dialog::Confirm => "ui.showConfirmDialog",
        Dialog::Modal => "ui.showModalDialog",
        Dialog::Form => "ui.requestForm",
    }
}

/// The documented result of a dialog nobody could be asked.
pub(crate) fn no_person(method: Dialog) -> Value {
    unanswered(method, Unanswered::Nobody)
}

fn unanswered(method: Dialog, why: Unanswered) -> Value {
    let reason = match why {
        Unanswered::Nobody => "background",
        Unanswered::TimedOut => "timeout",
    };
    match method {
        Dialog::Confirm => json!({"confirmed": false, "reason": reason}),
        Dialog::Modal => json!({"action": "dismissed", "reason": reason}),
        Dialog::Form => json!({"submitted": false, "values": {}, "reason": reason}),
    }
}

fn why(answer: &QuestionAnswer) -> Unanswered {
    match answer {
        QuestionAnswer::TimedOut => Unanswered::TimedOut,
        _ => Unanswered::Nobody,
    }
}

/// A prompt's outcome: the result to send, or why nobody answered.
type Asked = Result<RpcResult, Unanswered>;

fn text(params: &Value, key: &str) -> Option<String> {
    params
        .get(key)
        .and_then(Value::as_str)
        .map(str::to_string)
        .filter(|s| !s.trim().is_empty())
}

fn header(params: &Value, display_name: &str) -> Option<String> {
    Some(match text(params, "title") {
        Some(title) => format!("{display_name}: {title}"),
        None => display_name.to_string(),
    })
}

fn choice(label: &str) -> Choice {
    Choice {
        label: label.to_string(),
        description: None,
    }
}

fn confirm(params: &Value, display_name: &str, prompter: &mut dyn Prompter) -> Asked {
    let yes = text(params, "confirmLabel").unwrap_or_else(|| "Confirm".into());
    let no = text(params, "cancelLabel").unwrap_or_else(|| "Cancel".into());
    let question = Question {
        question: body(params).unwrap_or_else(|| "Continue?".into()),
        header: header(params, display_name),
        options: vec![choice(&yes), choice(&no)],
        multi_select: false,
    };
    match prompter.question(&question) {
        QuestionAnswer::Chosen(labels) => {
            Ok(Ok(json!({"confirmed": labels.first() == Some(&yes)})))
        }
        QuestionAnswer::Other(text) => Ok(Ok(json!({"confirmed": is_yes(&text)}))),
        other => Err(why(&other)),
    }
}

/// The text of a dialog: its message, else its description, else its title.
fn body(params: &Value) -> Option<String> {
    match (text(params, "description"), text(params, "message")) {
        (Some(d), Some(m)) => Some(format!("{d}\n{m}")),
        (d, m) => m
            .or(d)
            .or_else(|| text(params, "body"))
            .or_else(|| text(params, "title")),
    }
}

fn is_yes(text: &str) -> bool {
    matches!(
        text.trim().to_lowercase().as_str(),
        "y" | "yes" | "true" | "ok" | "1" | "confirm"
    )
}

/// The actions of a modal: `(id, label)`.
fn actions(params: &Value) -> Vec<(Value, String)> {
    let list = params
        .get("actions")
        .or_else(|| params.get("buttons"))
        .and_then(Value::as_array);
    let mut out = Vec::new();
    for item in list.into_iter().flatten() {
        match item {
            Value::String(s) => out.push((Value::String(s.clone()), s.clone())),
            Value::Object(o) => {
                let label = o
                    .get("label")
                    .or_else(|| o.get("title"))
                    .or_else(|| o.get("id"))
                    .and_then(Value::as_str);
                if let Some(label) = label {
                    let id = o.get("id").cloned().unwrap_or_else(|| label.into());
                    out.push((id, label.to_string()));
                }
            }
            _ => {}
        }
    }
    if out.is_empty() {
        out.push((Value::String("ok".into()), "OK".into()));
    }
    out
}

fn modal(params: &Value, display_name: &str, prompter: &mut dyn Prompter) -> Asked {
    let values = match params.get("fields") {
        Some(Value::Array(fields)) if !fields.is_empty() => {
            match fill(fields, params, display_name, prompter)? {
                Ok(values) => Some(values),
                Err(e) => return Ok(Err(e)),
            }
        }
        _ => None,
    };
    let actions = actions(params);
    let question = Question {
        question: body(params).unwrap_or_default(),
        header: header(params, display_name),
        options: actions.iter().map(|(_, l)| choice(l)).collect(),
        multi_select: false,
    };
    let action = match prompter.question(&question) {
        QuestionAnswer::Chosen(labels) => labels
            .first()
            .and_then(|l| actions.iter().find(|(_, label)| label == l))
            .map(|(id, _)| id.clone())
            .unwrap_or_else(|| json!("dismissed")),
        QuestionAnswer::Other(text) => actions
            .iter()
            .find(|(id, label)| label.eq_ignore_ascii_case(text.trim()) || id == text.trim())
            .map(|(id, _)| id.clone())
            .unwrap_or_else(|| json!("dismissed")),
        other => return Err(why(&other)),
    };
    let mut result = Map::new();
    result.insert("action".into(), action);
    if let Some(values) = values {
        result.insert("values".into(), Value::Object(values));
    }
    Ok(Ok(Value::Object(result)))
}

fn form(params: &Value, display_name: &str, prompter: &mut dyn Prompter) -> Asked {
    let Some(fields) = params.get("fields").and_then(Value::as_array) else {
        return Ok(Err(RpcError::invalid(
            "ui.requestForm needs {title, fields: [{key, label, type, options?, default?}]}",
        )));
    };
    let values = match fill(fields, params, display_name, prompter)? {
        Ok(values) => values,
        Err(e) => return Ok(Err(e)),
    };
    let submit = text(params, "submitLabel").unwrap_or_else(|| "Submit".into());
    let cancel = text(params, "cancelLabel").unwrap_or_else(|| "Cancel".into());
    let question = Question {
        question: text(params, "title").unwrap_or_else(|| "Send this form?".into()),
        header: header(&json!({}), display_name),
        options: vec![choice(&submit), choice(&cancel)],
        multi_select: false,
    };
    let submitted = match prompter.question(&question) {
        QuestionAnswer::Chosen(labels) => labels.first() == Some(&submit),
        QuestionAnswer::Other(text) => is_yes(&text) || text.trim() == submit,
        other => return Err(why(&other)),
    };
    Ok(Ok(if submitted {
        json!({"submitted": true, "values": values})
    } else {
        json!({"submitted": false, "values": {}, "reason": "cancelled"})
    }))
}

/// Asks one question per field (a `link` field is only shown); the values by key.
fn fill(
    fields: &[Value],
    params: &Value,
    display_name: &str,
    prompter: &mut dyn Prompter,
) -> Result<Result<Map<String, Value>, RpcError>, Unanswered> {
    let mut values = Map::new();
    for (i, field) in fields.iter().enumerate() {
        let Some(key) = field.get("key").and_then(Value::as_str) else {
            return Ok(Err(RpcError::invalid(format!(
                "the form's fields[{i}] needs a \"key\" string"
            ))));
        };
        let label = text(field, "label").unwrap_or_else(|| key.to_string());
        let kind = field.get("type").and_then(Value::as_str).unwrap_or("text");
        if kind == "link" {
            continue;
        }
        let options: Vec<String> = field
            .get("options")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|o| match o {
                Value::String(s) => Some(s.clone()),
                Value::Object(m) => m
                    .get("value")
                    .or_else(|| m.get("label"))
                    .and_then(Value::as_str)
                    .map(str::to_string),
                _ => None,
            })
            .collect();
        let default = field.get("default").filter(|d| !d.is_null());
        let mut offered = match kind {
            "boolean" => vec!["Yes".to_string(), "No".to_string()],
            "select" | "multiselect" => options.clone(),
            _ => Vec::new(),
        };
        // A text field's default is offered as a choice; anything else is typed as "Other".
        if offered.is_empty()
            && let Some(d) = default
        {
            offered.push(match d {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            });
        }
        let question = Question {
            question: match text(params, "title") {
                Some(title) => format!("{title} — {label}"),
                None => label.clone(),
            },
            header: header(&json!({}), display_name),
            options: offered.iter().map(|l| choice(l)).collect(),
            multi_select: kind == "multiselect",
        };
        let answer = prompter.question(&question);
        let value = match (&answer, kind) {
            (QuestionAnswer::Chosen(labels), "multiselect") => {
                Value::Array(labels.iter().map(|l| Value::String(l.clone())).collect())
            }
            (QuestionAnswer::Chosen(labels), "boolean") => {
                Value::Bool(labels.first().is_some_and(|l| l == "Yes"))
            }
            (QuestionAnswer::Other(t), "boolean") => Value::Bool(is_yes(t)),
            (QuestionAnswer::Chosen(labels), _) => {
                let picked = labels.first().cloned().unwrap_or_default();
                typed(kind, &picked, default)
            }
            (QuestionAnswer::Other(t), "multiselect" | "list") => Value::Array(
                t.split(',')
                    .map(|s| Value::String(s.trim().to_string()))
                    .filter(|v| v.as_str().is_some_and(|s| !s.is_empty()))
                    .collect(),
            ),
            (QuestionAnswer::Other(t), _) => typed(kind, t, default),
            _ => return Err(why(&answer)),
        };
        values.insert(key.to_string(), value);
    }
    Ok(Ok(values))
}

/// A typed answer: numbers parse as numbers (the default's own value when it was chosen).
fn typed(kind: &str, text: &str, default: Option<&Value>) -> Value {
    if let Some(d) = default
        && !d.is_string()
        && serde_json::from_str::<Value>(text).ok().as_ref() == Some(d)
    {
        return d.clone();
    }
    if kind == "number"
        && let Ok(n) = text.trim().parse::<f64>()
        && let Some(number) = serde_json::Number::from_f64(n)
    {
        return Value::Number(number);
    }
    Value::String(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::prompt::{Card, CardAnswer, Nobody};

    fn side(path: &str, text: Option<&str>, size: u64) -> DiffSide {
        DiffSide {
            path: path.into(),
            text: text.map(str::to_string),
            size,
        }
    }

    fn diff(left: DiffSide, right: DiffSide, title: Option<&str>) -> OpenDiff {
        OpenDiff {
            title: title.map(str::to_string),
            left,
            right,
            tool_call_id: None,
        }
    }

    #[test]
    fn a_diff_view_is_a_unified_diff_or_says_why_there_is_none() {
        let view = diff_view(
            &diff(
                side("/a", Some("x\ny\n"), 4),
                side("/b", Some("x\nz\n"), 4),
                Some("T"),
            ),
            "Tool",
        );
        assert_eq!(view.heading, "Tool: T (/a → /b)");
        assert_eq!(view.body, "--- /a\n+++ /b\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n");
        let cases = [
            (
                side("/a", Some("same"), 4),
                side("/b", Some("same"), 4),
                "(no differences)".to_string(),
            ),
            (
                side("/a", Some("\0x"), 2),
                side("/b", Some("\0y"), 2),
                "Binary files /a and /b differ".to_string(),
            ),
            (
                side("/a", Some("x"), 1),
                side("/big", None, DIFF_SIDE_MAX + 1),
                format!(
                    "(no diff shown: /big is {} bytes; finch shows files up to {DIFF_SIDE_MAX} bytes)",
                    DIFF_SIDE_MAX + 1
                ),
            ),
        ];
        for (left, right, body) in cases {
            let view = diff_view(&diff(left, right, Some("  ")), "Tool");
            assert_eq!(view.body, body);
            assert!(view.heading.starts_with("Tool: diff ("), "{}", view.heading);
        }
    }

    /// Answers questions from a script and keeps them.
    struct Scripted(Vec<QuestionAnswer>, Vec<Question>);

    impl Prompter for Scripted {
        fn card(&mut self, _card: &Card) -> CardAnswer {
            CardAnswer::Deny
        }
        fn question(&mut self, q: &Question) -> QuestionAnswer {
            self.1.push(q.clone());
            if self.0.is_empty() {
                QuestionAnswer::Unavailable
            } else {
                self.0.remove(0)
            }
        }
    }

    fn result(a: Answered) -> Value {
        a.result.unwrap()
    }

    #[test]
    fn confirm_is_a_yes_no_question() {
        let mut p = Scripted(vec![QuestionAnswer::Chosen(vec!["Delete".into()])], vec![]);
        let params =
            json!({"title": "Clean up", "message": "Delete 3 files?", "confirmLabel": "Delete"});
        assert_eq!(
            result(answer(Dialog::Confirm, &params, "Demo", &mut p)),
            json!({"confirmed": true})
        );
        assert_eq!(p.1[0].header.as_deref(), Some("Demo: Clean up"));
        assert_eq!(p.1[0].options.len(), 2);
        let nobody = answer(Dialog::Confirm, &params, "Demo", &mut Nobody);
        assert_eq!(
            nobody.result,
            Ok(json!({"confirmed": false, "reason": "background"}))
        );
        let notice = nobody.notice.unwrap();
        assert!(
            notice.contains("ui.showConfirmDialog \"Clean up\" got no answer"),
            "{notice}"
        );
    }

    #[test]
    fn modal_returns_the_action_id_and_field_values() {
        let mut p = Scripted(vec![QuestionAnswer::Chosen(vec!["Later".into()])], vec![]);
        let params = json!({"message": "Update?", "actions": [{"id": "now", "label": "Now"}, {"id": "later", "label": "Later"}]});
        assert_eq!(
            result(answer(Dialog::Modal, &params, "Demo", &mut p)),
            json!({"action": "later"})
        );
        let mut p = Scripted(
            vec![
                QuestionAnswer::Other("k-123".into()),
                QuestionAnswer::Chosen(vec!["Save".into()]),
            ],
            vec![],
        );
        let params = json!({"title": "API key", "actions": [{"id": "cancel", "label": "Cancel"}, {"id": "save", "label": "Save", "variant": "primary"}],
                            "fields": [{"key": "apiKey", "label": "API Key", "type": "password"}]});
        assert_eq!(
            result(answer(Dialog::Modal, &params, "Demo", &mut p)),
            json!({"action": "save", "values": {"apiKey": "k-123"}})
        );
        assert_eq!(
            result(answer(Dialog::Modal, &params, "Demo", &mut Nobody)),
            json!({"action": "dismissed", "reason": "background"})
        );
    }

    #[test]
    fn forms_ask_one_question_per_field_then_submit() {
        let mut p = Scripted(
            vec![
                QuestionAnswer::Other("Ada".into()),
                QuestionAnswer::Chosen(vec!["3".into()]),
                QuestionAnswer::Chosen(vec!["No".into()]),
                QuestionAnswer::Chosen(vec!["red".into(), "blue".into()]),
                QuestionAnswer::Chosen(vec!["Submit".into()]),
            ],
            vec![],
        );
        let params = json!({"title": "Profile", "fields": [
            {"key": "name", "label": "Name"},
            {"key": "age", "type": "number", "default": 3},
            {"key": "admin", "type": "boolean"},
            {"key": "colors", "type": "multiselect", "options": ["red", "green", "blue"]},
            {"key": "signup", "type": "link", "label": "Get a key", "href": "https://x"},
        ]});
        assert_eq!(
            result(answer(Dialog::Form, &params, "Demo", &mut p)),
            json!({"submitted": true, "values": {"name": "Ada", "age": 3, "admin": false, "colors": ["red", "blue"]}})
        );
        assert!(p.1[3].multi_select);
        assert_eq!(p.1[0].question, "Profile — Name");
        let bad = answer(Dialog::Form, &json!({"fields": [{}]}), "Demo", &mut p)
            .result
            .unwrap_err();
        assert!(bad.message.contains("fields[0]"), "{bad:?}");
        assert_eq!(
            result(answer(Dialog::Form, &params, "Demo", &mut Nobody)),
            json!({"submitted": false, "values": {}, "reason": "background"})
        );
        let mut timeout = Scripted(vec![QuestionAnswer::TimedOut], vec![]);
        assert_eq!(
            result(answer(Dialog::Form, &params, "Demo", &mut timeout)),
            json!({"submitted": false, "values": {}, "reason": "timeout"})
        );
    }
}
