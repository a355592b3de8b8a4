//! A tool's input schema as a person reads it (`finch tool info`): one row per parameter —
//! name, type, whether it is required, and its description wrapped at spaces to the width left
//! — instead of pretty JSON whose long descriptions a terminal cuts mid-word. `--json` keeps
//! the schema itself.

use serde_json::Value;

use super::{display_width, wrap};

/// The narrowest description column; below it the description goes on its own lines under
/// the parameter, indented.
const MIN_DESCRIPTION: usize = 24;

/// The rows of `schema`'s parameters, with a header, fitted to `width` (`None`: descriptions
/// on one line, as on a pipe). Nothing when the schema has no properties.
pub fn parameter_rows(schema: &Value, width: Option<usize>) -> Vec<String> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let rows: Vec<[String; 4]> = properties
        .iter()
        .map(|(name, p)| {
            [
                name.clone(),
                type_of(p),
                if required.contains(&name.as_str()) {
                    "yes".to_string()
                } else {
                    String::new()
                },
                description_of(p),
            ]
        })
        .collect();
    let header = ["NAME", "TYPE", "REQUIRED", "DESCRIPTION"].map(str::to_string);
    let widths: Vec<usize> = (0..3)
        .map(|c| {
            rows.iter()
                .chain(std::iter::once(&header))
                .map(|r| display_width(&r[c]))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let lead: usize = widths.iter().map(|w| w + 2).sum();
    let room = width.map(|w| w.saturating_sub(lead));
    let stacked = room.is_some_and(|r| r < MIN_DESCRIPTION);
    let cells = |r: &[String; 4]| {
        let mut line = String::new();
        for (c, w) in widths.iter().enumerate() {
            line.push_str(&r[c]);
            line.push_str(&" ".repeat(w - display_width(&r[c]) + 2));
        }
        line
    };
    let mut out = Vec::new();
    for (i, row) in std::iter::once(&header).chain(rows.iter()).enumerate() {
        let described = i == 0 || !row[3].is_empty();
        let head = cells(row);
        if stacked {
            out.push(head.trim_end().to_string());
            if i > 0 && described {
                let indent = "    ";
                let w = width.unwrap_or(usize::MAX).saturating_sub(indent.len());
                out.extend(wrap(&row[3], w).into_iter().map(|l| format!("{indent}{l}")));
            }
            continue;
        }
        let text = match room {
            Some(r) => wrap(&row[3], r),
            None => vec![row[3].clone()],
        };
        for (k, part) in text.iter().enumerate() {
            let line = if k == 0 {
                format!("{head}{part}")
            } else {
                format!("{}{part}", " ".repeat(lead))
            };
            out.push(line.trim_end().to_string());
        }
    }
    out
}

/// `string`, `integer|null`, `array of string`, `object`; `any` when the schema names none.
fn type_of(p: &Value) -> String {
    let named = match p.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ if p.get("enum").is_some() => "enum".to_string(),
        _ => "any".to_string(),
    };
    match (named.as_str(), p.get("items").and_then(|i| i.get("type"))) {
        ("array", Some(Value::String(item))) => format!("array of {item}"),
        _ => named,
    }
}

/// The description, then the values an enum takes and the default, when the schema says.
fn description_of(p: &Value) -> String {
    let mut text = p
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let mut add = |more: String| {
        if !text.is_empty() {
            text.push_str(if text.ends_with('.') { " " } else { ". " });
        }
        text.push_str(&more);
    };
    if let Some(values) = p.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect();
        add(format!("One of: {}", values.join(", ")));
    }
    if let Some(default) = p.get("default") {
        add(format!("Default: {default}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "The file to read: absolute, relative to the working directory, or starting with `~`"},
                "mode": {"enum": ["fast", "slow"]},
                "tags": {"type": "array", "items": {"type": "string"}, "default": []},
                "n": {"type": ["integer", "null"]}
            },
            "required": ["file_path"]
        })
    }

    #[test]
    fn one_row_per_parameter_with_the_description_wrapped_at_spaces() {
        assert_eq!(
            parameter_rows(&schema(), Some(64)),
            [
                "NAME       TYPE             REQUIRED  DESCRIPTION",
                "file_path  string           yes       The file to read:",
                "                                      absolute, relative to the",
                "                                      working directory, or",
                "                                      starting with `~`",
                "mode       enum                       One of: fast, slow",
                "tags       array of string            Default: []",
                "n          integer|null",
            ]
        );
    }

    #[test]
    fn a_narrow_terminal_puts_descriptions_under_their_parameter() {
        let rows = parameter_rows(&schema(), Some(40));
        assert_eq!(rows[0], "NAME       TYPE             REQUIRED");
        assert_eq!(rows[1], "file_path  string           yes");
        assert_eq!(rows[2], "    The file to read: absolute, relative");
        assert!(rows.iter().all(|r| display_width(r) <= 40), "{rows:?}");
    }

    #[test]
    fn on_a_pipe_a_description_stays_on_one_line() {
        let rows = parameter_rows(&schema(), None);
        assert_eq!(rows.len(), 5);
        assert!(rows[1].ends_with("or starting with `~`"), "{rows:?}");
    }

    #[test]
    fn a_schema_without_properties_has_no_rows() {
        assert!(parameter_rows(&json!({"type": "object"}), Some(60)).is_empty());
    }
}
