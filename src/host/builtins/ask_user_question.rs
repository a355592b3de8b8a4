//! `AskUserQuestion` (SPEC §8.6): one multiple-choice question put to the person through the
//! run's prompter (a terminal card, an MCP elicitation). It is autoAllow: asking is harmless, the
//! answer is the person's. When nobody answers — no one to ask, or the card timed out — the
//! result is an error the model can read, telling it to go on without the answer or to ask in
//! its reply instead; it never blocks a run that has no person.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::super::catalog::ToolDef;
use super::super::output::{Content, ToolOutput};
use super::super::prompt::{Choice, Prompter, Question, QuestionAnswer};
use crate::host::call::context::CallCx;

const DESCRIPTION: &str = "Ask the user one multiple-choice question and wait for the answer: \
use it when a decision is theirs (a preference, an ambiguous requirement, a choice between \
approaches). Give 2 to 6 options, each a short `label` with an optional `description`; the user \
may also answer in their own words. Set `multiSelect` when several options may be chosen. If \
nobody can answer (an unattended run), the call fails with a message saying so: then proceed \
on a stated assumption or ask in your reply.";

/// What people type when they want this tool (ToolSearch ranks it beside the description).
pub const KEYWORDS: &str = "ask the user a question choose option multiple choice confirm clarify. 向用户提问 询问用户 让用户选择 选择题 确认 澄清 詢問使用者 讓使用者選擇 選擇題 確認";

pub fn def() -> ToolDef {
    super::def(
        "AskUserQuestion",
        "Ask the user a question",
        DESCRIPTION,
        json!({
            "type": "object",
            "properties": {
                "question": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The question, ending with a question mark."
                },
                "header": {
                    "type": "string",
                    "description": "A very short label shown above the question (e.g. \"Database\")."
                },
                "options": {
                    "type": "array",
                    "minItems": 2,
                    "maxItems": 6,
                    "items": {
                        "type": "object",
                        "properties": {
                            "label": {"type": "string", "minLength": 1, "description": "The choice, in a few words."},
                            "description": {"type": "string", "description": "What choosing it means."}
                        },
                        "required": ["label"],
                        "additionalProperties": false
                    }
                },
                "multiSelect": {
                    "type": "boolean",
                    "description": "Whether several options may be chosen (default false)."
                }
            },
            "required": ["question", "options"],
            "additionalProperties": false
        }),
    )
}

pub fn call(args: &Value, cx: &mut CallCx) -> ToolOutput {
    ask(args, cx.prompter)
}

fn ask(args: &Value, prompter: &mut dyn Prompter) -> ToolOutput {
    let question = match question(args) {
        Ok(q) => q,
        Err(message) => return ToolOutput::error(message),
    };
    let answer = prompter.question(&question);
    render(&question, answer)
}

/// The question as the prompter takes it; labels must differ, or an answer could not say which.
fn question(args: &Value) -> Result<Question, String> {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let options: Vec<Choice> = args
        .get("options")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|o| Choice {
            label: text(o, "label").unwrap_or_default(),
            description: text(o, "description").filter(|d| !d.trim().is_empty()),
        })
        .collect();
    let mut seen = HashSet::new();
    if let Some(dup) = options.iter().find(|o| !seen.insert(o.label.trim())) {
        return Err(format!(
            "Two options have the label \"{}\"; give every option a different label and ask again.",
            dup.label
        ));
    }
    Ok(Question {
        question: text(args, "question").unwrap_or_default(),
        header: text(args, "header").filter(|h| !h.trim().is_empty()),
        options,
        multi_select: args
            .get("multiSelect")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    })
}

fn render(question: &Question, answer: QuestionAnswer) -> ToolOutput {
    let (text, structured) = match answer {
        QuestionAnswer::Chosen(labels) => {
            let text = match labels.as_slice() {
                [] => "The user chose none of the options.".to_string(),
                [one] => format!("The user chose: {one}"),
                many => format!("The user chose: {}", many.join("; ")),
            };
            (
                text,
                json!({"question": question.question, "chosen": labels}),
            )
        }
        QuestionAnswer::Other(words) => (
            format!("The user answered in their own words: {words}"),
            json!({"question": question.question, "other": words}),
        ),
        QuestionAnswer::TimedOut => {
            return ToolOutput::error(
                "Nobody answered the question in time. Proceed without the answer (say which \
                 assumption you make), or ask the question in your reply instead.",
            );
        }
        QuestionAnswer::Unavailable => {
            return ToolOutput::error(
                "Nobody can answer questions in this run (there is no person at a terminal or \
                 client to ask). Proceed without the answer (say which assumption you make), or \
                 ask the question in your reply instead.",
            );
        }
        QuestionAnswer::Dismissed => {
            return ToolOutput::error(
                "The MCP client declined or cancelled the question without an answer (an agent \
                 run without a person declines every one); no option was chosen. Proceed without \
                 the answer (say which assumption you make), or ask the question in your reply \
                 instead.",
            );
        }
    };
    ToolOutput {
        content: vec![Content::Text(text)],
        structured: Some(structured),
        is_error: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::prompt::{Card, CardAnswer};

    #[test]
    fn schema_compiles() {
        assert!(jsonschema::validator_for(&def().input_schema).is_ok());
    }

    /// Answers every question with one prepared answer and remembers what it was asked.
    struct Scripted {
        answer: QuestionAnswer,
        asked: Vec<Question>,
    }

    impl Prompter for Scripted {
        fn card(&mut self, _card: &Card) -> CardAnswer {
            CardAnswer::Deny
        }
        fn question(&mut self, question: &Question) -> QuestionAnswer {
            self.asked.push(question.clone());
            self.answer.clone()
        }
    }

    fn args() -> Value {
        json!({
            "question": "Which database?",
            "header": "Database",
            "options": [
                {"label": "SQLite", "description": "One file, no server"},
                {"label": "Postgres"}
            ],
            "multiSelect": true
        })
    }

    #[test]
    fn answers() {
        let cases = [
            (
                QuestionAnswer::Chosen(vec!["SQLite".into()]),
                false,
                "The user chose: SQLite",
                Some(json!({"question": "Which database?", "chosen": ["SQLite"]})),
            ),
            (
                QuestionAnswer::Chosen(vec!["SQLite".into(), "Postgres".into()]),
                false,
                "The user chose: SQLite; Postgres",
                Some(json!({"question": "Which database?", "chosen": ["SQLite", "Postgres"]})),
            ),
            (
                QuestionAnswer::Chosen(vec![]),
                false,
                "The user chose none of the options.",
                Some(json!({"question": "Which database?", "chosen": []})),
            ),
            (
                QuestionAnswer::Other("whatever is fastest".into()),
                false,
                "The user answered in their own words: whatever is fastest",
                Some(json!({"question": "Which database?", "other": "whatever is fastest"})),
            ),
            (
                QuestionAnswer::TimedOut,
                true,
                "Nobody answered the question in time. Proceed without the answer",
                None,
            ),
            (
                QuestionAnswer::Unavailable,
                true,
                "Nobody can answer questions in this run",
                None,
            ),
            (
                QuestionAnswer::Dismissed,
                true,
                "The MCP client declined or cancelled the question without an answer",
                None,
            ),
        ];
        for (answer, is_error, text, structured) in cases {
            let mut p = Scripted {
                answer: answer.clone(),
                asked: Vec::new(),
            };
            let out = ask(&args(), &mut p);
            assert_eq!(out.is_error, is_error, "{answer:?}");
            assert!(
                out.text_content().starts_with(text),
                "{}",
                out.text_content()
            );
            assert_eq!(out.structured, structured);
            assert_eq!(
                p.asked,
                vec![Question {
                    question: "Which database?".into(),
                    header: Some("Database".into()),
                    options: vec![
                        Choice {
                            label: "SQLite".into(),
                            description: Some("One file, no server".into())
                        },
                        Choice {
                            label: "Postgres".into(),
                            description: None
                        },
                    ],
                    multi_select: true,
                }]
            );
        }
    }

    #[test]
    fn duplicate_labels_are_refused_before_asking() {
        let mut p = Scripted {
            answer: QuestionAnswer::Unavailable,
            asked: Vec::new(),
        };
        let out = ask(
            &json!({"question": "?", "options": [{"label": "A"}, {"label": "A "}]}),
            &mut p,
        );
        assert!(out.is_error);
        assert!(out.text_content().contains("Two options have the label"));
        assert!(p.asked.is_empty());
    }
}
