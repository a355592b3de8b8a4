//! What a mini tool asks a person (`ctx.ui.confirm`, `ctx.ui.modal`, `ctx.ui.form`,
//! `exec.ui.requestForm`) becomes questions through the host's `Prompter` — the terminal's, the
//! MCP client's elicitation, or nobody. Runs on the thread that owns the prompter (the one in
//! `Host::call`).
//!
//! Answers: `confirm` → `true`/`false`; `modal` → the chosen action's `id` (or its label);
//! `form` → an object of field values. With nobody to ask, or an unanswered question, the
//! mini tool's promise rejects with an error saying so — never a made-up answer.

use serde_json::{Map, Value, json};

use super::rpc::{RpcError, RpcResult};
use crate::host::prompt::{Choice, Prompter, Question, QuestionAnswer};

/// Answers one prompt request of a mini tool.
pub(crate) fn answer(
    method: &str,
    params: &Value,
    display_name: &str,
    prompter: &mut dyn Prompter,
) -> RpcResult {
    match method {
        "ui.confirm" => confirm(params, display_name, prompter),
        "ui.modal" => modal(params, display_name, prompter),
        "ui.form" => form(params, display_name, prompter),
        other => Err(RpcError::new(
            super::rpc::code::METHOD_NOT_FOUND,
            format!("unknown method {other}"),
        )),
    }
}

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

/// Why a question got no answer, as the mini tool's rejection.
fn unanswered(method: &str, answer: &QuestionAnswer) -> RpcError {
    match answer {
        QuestionAnswer::TimedOut => RpcError::refused(format!(
            "{method}: nobody answered in time; treat it as cancelled"
        )),
        _ => RpcError::refused(format!(
            "{method} needs a person to answer, and this run has nobody to ask (no terminal and no MCP client that elicits). Let the caller pass the choice as input instead."
        )),
    }
}

fn confirm(params: &Value, display_name: &str, prompter: &mut dyn Prompter) -> RpcResult {
    let yes = text(params, "confirmLabel").unwrap_or_else(|| "Yes".into());
    let no = text(params, "cancelLabel").unwrap_or_else(|| "No".into());
    let question = Question {
        question: text(params, "message")
            .or_else(|| text(params, "title"))
            .unwrap_or_else(|| "Continue?".into()),
        header: header(params, display_name),
        options: vec![choice(&yes), choice(&no)],
        multi_select: false,
    };
    match prompter.question(&question) {
        QuestionAnswer::Chosen(labels) => Ok(Value::Bool(labels.first() == Some(&yes))),
        QuestionAnswer::Other(text) => Ok(Value::Bool(is_yes(&text))),
        other => Err(unanswered("ui.confirm", &other)),
    }
}

fn is_yes(text: &str) -> bool {
    matches!(
        text.trim().to_lowercase().as_str(),
        "y" | "yes" | "true" | "ok" | "1"
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

fn modal(params: &Value, display_name: &str, prompter: &mut dyn Prompter) -> RpcResult {
    let actions = actions(params);
    let question = Question {
        question: text(params, "message")
            .or_else(|| text(params, "body"))
            .or_else(|| text(params, "title"))
            .unwrap_or_default(),
        header: header(params, display_name),
        options: actions.iter().map(|(_, l)| choice(l)).collect(),
        multi_select: false,
    };
    match prompter.question(&question) {
        QuestionAnswer::Chosen(labels) => Ok(labels
            .first()
            .and_then(|l| actions.iter().find(|(_, label)| label == l))
            .map(|(id, _)| id.clone())
            .unwrap_or(Value::Null)),
        QuestionAnswer::Other(text) => Ok(Value::String(text)),
        other => Err(unanswered("ui.modal", &other)),
    }
}

fn form(params: &Value, display_name: &str, prompter: &mut dyn Prompter) -> RpcResult {
    let Some(fields) = params.get("fields").and_then(Value::as_array) else {
        return Err(RpcError::invalid(
            "ui.form needs {fields: [{key, label, type, options?, default?}]}",
        ));
    };
    let mut values = Map::new();
    for (i, field) in fields.iter().enumerate() {
        let Some(key) = field.get("key").and_then(Value::as_str) else {
            return Err(RpcError::invalid(format!(
                "ui.form: fields[{i}] needs a \"key\" string"
            )));
        };
        let label = text(field, "label").unwrap_or_else(|| key.to_string());
        let kind = field
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("string");
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
            _ => return Err(unanswered("ui.form", &answer)),
        };
        values.insert(key.to_string(), value);
    }
    Ok(Value::Object(values))
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

    #[test]
    fn confirm_is_a_yes_no_question() {
        let mut p = Scripted(vec![QuestionAnswer::Chosen(vec!["Delete".into()])], vec![]);
        let params =
            json!({"title": "Clean up", "message": "Delete 3 files?", "confirmLabel": "Delete"});
        assert_eq!(
            answer("ui.confirm", &params, "Demo", &mut p),
            Ok(json!(true))
        );
        assert_eq!(p.1[0].header.as_deref(), Some("Demo: Clean up"));
        assert_eq!(p.1[0].options.len(), 2);
        let err = answer("ui.confirm", &params, "Demo", &mut Nobody).unwrap_err();
        assert!(err.message.contains("nobody to ask"), "{err:?}");
    }

    #[test]
    fn modal_returns_the_action_id() {
        let mut p = Scripted(vec![QuestionAnswer::Chosen(vec!["Later".into()])], vec![]);
        let params = json!({"message": "Update?", "actions": [{"id": "now", "label": "Now"}, {"id": "later", "label": "Later"}]});
        assert_eq!(
            answer("ui.modal", &params, "Demo", &mut p),
            Ok(json!("later"))
        );
    }

    #[test]
    fn forms_ask_one_question_per_field() {
        let mut p = Scripted(
            vec![
                QuestionAnswer::Other("Ada".into()),
                QuestionAnswer::Chosen(vec!["3".into()]),
                QuestionAnswer::Chosen(vec!["No".into()]),
                QuestionAnswer::Chosen(vec!["red".into(), "blue".into()]),
            ],
            vec![],
        );
        let params = json!({"title": "Profile", "fields": [
            {"key": "name", "label": "Name"},
            {"key": "age", "type": "number", "default": 3},
            {"key": "admin", "type": "boolean"},
            {"key": "colors", "type": "multiselect", "options": ["red", "green", "blue"]},
        ]});
        assert_eq!(
            answer("ui.form", &params, "Demo", &mut p),
            Ok(json!({"name": "Ada", "age": 3, "admin": false, "colors": ["red", "blue"]}))
        );
        assert!(p.1[3].multi_select);
        assert_eq!(p.1[0].question, "Profile — Name");
        let bad = answer("ui.form", &json!({"fields": [{}]}), "Demo", &mut p).unwrap_err();
        assert!(bad.message.contains("fields[0]"), "{bad:?}");
    }
}
