//! How a call's progress updates (`CallCx::progress`, `cancel::Progress`) are shown, in one
//! place for every front end: a line on stderr for a person (`finch tool call`, the console),
//! a JSON line on stdout in `finch run --jsonl`. (`finch run --serve mcp` sends each update
//! as `notifications/progress` for the request's `progressToken`: `frontend::mcp`.)

use serde_json::{Map, Value, json};

use crate::host::cancel::Progress;
use crate::ui::Ui;

/// The line a person reads: `… <tool>: 40% <message>` when the update has a total (as a
/// percentage of it), `… <tool>: 3 <message>` when it has none, `working` for no message.
pub fn line(tool: &str, update: &Progress) -> String {
    let amount = match update.total {
        Some(total) if total > 0.0 => {
            format!(
                "{}/{total} ({:.0}%)",
                update.progress,
                (update.progress / total * 100.0).clamp(0.0, 100.0)
            )
        }
        _ => format!("{}", update.progress),
    };
    let message = update.message.as_deref().unwrap_or("working");
    format!("  … {tool}: {amount} {message}")
}

/// A sink that prints each update of `tool`'s call as a `line` on stderr (nothing with
/// `--quiet`).
pub fn on_stderr<'a>(ui: &Ui, tool: &'a str) -> impl Fn(Progress) + Sync + 'a {
    let quiet = ui.quiet;
    move |update: Progress| {
        if !quiet {
            crate::ui::activity::suspend(|| crate::eline!("{}", line(tool, &update)));
        }
    }
}

/// The JSON line of one update in `finch run --jsonl`:
/// `{"id": <the request's id>, "progress": {"tool", "progress", "total"?, "message"?}}`.
pub fn json_line(id: &Value, tool: &str, update: &Progress) -> Value {
    let mut body = Map::new();
    body.insert("tool".into(), tool.into());
    body.insert("progress".into(), json!(update.progress));
    if let Some(total) = update.total {
        body.insert("total".into(), json!(total));
    }
    if let Some(message) = &update.message {
        body.insert("message".into(), message.clone().into());
    }
    json!({"id": id, "progress": body})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(progress: f64, total: Option<f64>, message: Option<&str>) -> Progress {
        Progress {
            progress,
            total,
            message: message.map(str::to_string),
        }
    }

    #[test]
    fn lines_show_a_share_of_the_total_or_the_count() {
        assert_eq!(
            line("acme_sync", &update(1.0, Some(4.0), Some("copying"))),
            "  … acme_sync: 1/4 (25%) copying"
        );
        assert_eq!(
            line("acme_sync", &update(3.0, None, None)),
            "  … acme_sync: 3 working"
        );
        assert_eq!(
            line("t", &update(7.0, Some(0.0), Some("odd"))),
            "  … t: 7 odd",
            "a zero total is no total"
        );
    }

    #[test]
    fn json_lines_carry_the_request_id_and_only_known_fields() {
        assert_eq!(
            json_line(&json!(7), "acme_sync", &update(2.0, Some(3.0), Some("two"))),
            json!({"id": 7, "progress": {"tool": "acme_sync", "progress": 2.0, "total": 3.0, "message": "two"}})
        );
        assert_eq!(
            json_line(&Value::Null, "t", &update(1.0, None, None)),
            json!({"id": null, "progress": {"tool": "t", "progress": 1.0}})
        );
    }
}
