//! `--json FIELDS`: only the named fields of a command's JSON, as `gh --json name,layer` does.
//! The selection applies to the objects of the document a command prints: each object of a
//! list, or the document itself when it is one object. A field no object has is a usage error
//! (exit 2) that lists the fields there are, as gh's does; the document is not printed then.
//!
//! Unlike gh, finch cannot know a command's fields before it runs, so a command that changes
//! state (`add --json id`) has done its work before a misspelt field is reported: the check is
//! on what it printed. `--json` alone keeps every field.
//!
//! On the command line the fields follow `--json` after `=` or a space; `split_json_fields`
//! tells a field list after a space from the command's own next argument.

use serde_json::{Map, Value};

use crate::error::CommandError;

/// The fields of `--json FIELDS`, in the order they were named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonFields(Vec<String>);

impl JsonFields {
    /// `name,layer` as fields; empty names (a stray comma) are dropped.
    pub fn parse(list: &str) -> JsonFields {
        JsonFields(
            list.split(',')
                .map(str::trim)
                .filter(|f| !f.is_empty())
                .map(str::to_string)
                .collect(),
        )
    }

    /// `value` with only these fields in each of its objects, or the error naming the fields
    /// there are.
    pub fn select(&self, value: &Value) -> Result<Value, CommandError> {
        let available = available(value);
        if available.is_empty() {
            // An empty list has nothing to check a name against; anything else has no fields.
            return match value {
                Value::Array(items) if items.is_empty() => Ok(value.clone()),
                _ => Err(
                    CommandError::usage("this command's JSON has no fields to select")
                        .with_hint("use --json alone, or --jq to shape the output"),
                ),
            };
        }
        let unknown: Vec<&String> = self.0.iter().filter(|f| !available.contains(f)).collect();
        if self.0.is_empty() || !unknown.is_empty() {
            let message = match unknown.as_slice() {
                [] => "--json= names no field".to_string(),
                [one] => format!("unknown JSON field {one:?}"),
                many => format!(
                    "unknown JSON fields {}",
                    many.iter()
                        .map(|f| format!("{f:?}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            return Err(CommandError::usage(message).with_hint(format!(
                "the fields of this command's JSON: {}",
                available.join(", ")
            )));
        }
        Ok(match value {
            Value::Array(items) => Value::Array(items.iter().map(|i| self.keep(i)).collect()),
            other => self.keep(other),
        })
    }

    /// One object with only these fields, in the order named (a field the object lacks is
    /// `null`, so every row of a list has the same shape); anything else as it is.
    fn keep(&self, value: &Value) -> Value {
        let Value::Object(object) = value else {
            return value.clone();
        };
        let mut kept = Map::new();
        for field in &self.0 {
            kept.insert(
                field.clone(),
                object.get(field).cloned().unwrap_or(Value::Null),
            );
        }
        Value::Object(kept)
    }
}

/// The keys of the document's objects, in the order they first appear.
fn available(value: &Value) -> Vec<String> {
    let objects: Vec<&Map<String, Value>> = match value {
        Value::Object(object) => vec![object],
        Value::Array(items) => items.iter().filter_map(Value::as_object).collect(),
        _ => Vec::new(),
    };
    let mut keys: Vec<String> = Vec::new();
    for object in objects {
        for key in object.keys() {
            if !keys.contains(key) {
                keys.push(key.clone());
            }
        }
    }
    keys
}

/// Whether `word` reads as a field list: names of letters, digits and `_`, separated by
/// commas (`name,layer`) — never a path, a tool's `key=value` or a JSON argument.
pub fn looks_like_fields(word: &str) -> bool {
    !word.is_empty()
        && word.split(',').all(|f| {
            let mut chars = f.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// The command line with `--json WORD` written `--json=WORD` where WORD is the field list, not
/// the command's own argument: when the line parses only that way (`finch list --json
/// id,name`: `list` takes no word there). Where both readings parse (`finch memory search
/// --json tea` cannot: the query would be missing; `finch doctor --json name` can), the word
/// stays the command's, as it always was; `--json=name` says fields without doubt.
pub fn split_json_fields(
    args: Vec<std::ffi::OsString>,
    parses: impl Fn(&[std::ffi::OsString]) -> bool,
) -> Vec<std::ffi::OsString> {
    let end = args.iter().position(|a| a == "--").unwrap_or(args.len());
    let Some(at) = args[..end].iter().position(|a| a == "--json") else {
        return args;
    };
    let Some(word) = args.get(at + 1).filter(|_| at + 1 < end) else {
        return args;
    };
    if !word.to_str().is_some_and(looks_like_fields) || parses(&args) {
        return args;
    }
    let mut joined = std::ffi::OsString::from("--json=");
    joined.push(word);
    let mut rewritten = args[..at].to_vec();
    rewritten.push(joined);
    rewritten.extend_from_slice(&args[at + 2..]);
    if parses(&rewritten) { rewritten } else { args }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn os(words: &[&str]) -> Vec<std::ffi::OsString> {
        words.iter().map(Into::into).collect()
    }

    #[test]
    fn selects_fields_of_each_object_in_the_order_named() {
        let list = json!([{"name": "Read", "layer": "builtin", "risk": "low"},
                          {"name": "x_y", "layer": "minitool"}]);
        assert_eq!(
            JsonFields::parse("layer,name").select(&list).unwrap(),
            json!([{"layer": "builtin", "name": "Read"}, {"layer": "minitool", "name": "x_y"}])
        );
        // A field only some objects have is null in the others.
        assert_eq!(
            JsonFields::parse("risk").select(&list).unwrap(),
            json!([{"risk": "low"}, {"risk": null}])
        );
        let one = json!({"id": "a", "path": "/p"});
        assert_eq!(
            JsonFields::parse("id").select(&one).unwrap(),
            json!({"id": "a"})
        );
        assert_eq!(
            JsonFields::parse("id").select(&json!([])).unwrap(),
            json!([])
        );
    }

    #[test]
    fn an_unknown_field_lists_the_fields_there_are() {
        let list = json!([{"name": "Read", "layer": "builtin"}]);
        let err = JsonFields::parse("name,nope").select(&list).unwrap_err();
        assert_eq!(err.message, "unknown JSON field \"nope\"");
        assert_eq!(
            err.hints,
            ["the fields of this command's JSON: name, layer"]
        );
        assert_eq!(err.exit_code(), 2);
        let err = JsonFields::parse("").select(&list).unwrap_err();
        assert_eq!(err.message, "--json= names no field");
        let err = JsonFields::parse("a").select(&json!(3)).unwrap_err();
        assert_eq!(err.message, "this command's JSON has no fields to select");
    }

    #[test]
    fn field_lists_are_names_and_commas_only() {
        for yes in ["name", "name,layer", "_x,y2"] {
            assert!(looks_like_fields(yes), "{yes}");
        }
        for no in [
            "",
            "a,",
            "./dir",
            "key=value",
            "{\"a\":1}",
            "2x",
            "a b",
            "sp-1a",
        ] {
            assert!(!looks_like_fields(no), "{no}");
        }
    }

    #[test]
    fn the_word_after_json_is_a_field_list_only_where_the_command_has_no_place_for_it() {
        // A pretend command: `search` needs a word, `list` takes none.
        let parses = |args: &[std::ffi::OsString]| {
            let words: Vec<&str> = args.iter().filter_map(|a| a.to_str()).collect();
            let rest: Vec<&&str> = words[2..].iter().filter(|w| !w.starts_with('-')).collect();
            match words[1] {
                "list" => rest.is_empty(),
                "search" => rest.len() == 1,
                _ => false,
            }
        };
        assert_eq!(
            split_json_fields(os(&["finch", "list", "--json", "name,layer"]), parses),
            os(&["finch", "list", "--json=name,layer"])
        );
        assert_eq!(
            split_json_fields(os(&["finch", "search", "--json", "tea"]), parses),
            os(&["finch", "search", "--json", "tea"])
        );
        assert_eq!(
            split_json_fields(os(&["finch", "list", "--json", "./x"]), parses),
            os(&["finch", "list", "--json", "./x"])
        );
        assert_eq!(
            split_json_fields(os(&["finch", "list", "--", "--json", "a"]), parses),
            os(&["finch", "list", "--", "--json", "a"])
        );
    }
}
