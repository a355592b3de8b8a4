//! pi's built-in tools as the gateway's: pi (the agent core) runs its own `read`, `bash`,
//! `edit`, `write`, `grep`, `find` and `ls`, and asks finch only for the verdict (`finch policy
//! check --agent pi`, the extension in `integrations/pi/`). Each pi call is translated to the
//! finch built-in call with the same reach, and that call is judged:
//!
//! | pi | finch | arguments |
//! |---|---|---|
//! | `read` `{path, offset, limit}` | `Read` | `path` → `file_path`; `offset`, `limit` kept |
//! | `bash` `{command, timeout}` | `Bash` | `timeout` in seconds → milliseconds |
//! | `edit` `{path, edits: [{oldText, newText}]}` | `Edit` | `file_path`; the first edit as `old_string`/`new_string` (the verdict depends on the path only) |
//! | `write` `{path, content}` | `Write` | `path` → `file_path` |
//! | `grep` `{pattern, path, glob, …}` | `Grep` | `pattern`, `path`, `glob` kept |
//! | `find` `{pattern, path}` | `Glob` | `pattern`, `path` kept |
//! | `ls` `{path}` | `Glob` | `pattern` `*` in `path` (a listing reads like a glob) |
//!
//! Any other name is judged as it is, under its own name: a tool the policy does not know gets
//! a card on every call.

use serde_json::{Map, Value};

/// pi's built-in tool names.
pub const PI_BUILTINS: &[&str] = &["read", "bash", "edit", "write", "grep", "find", "ls"];

/// The finch built-in a pi built-in is judged as, and the arguments it is judged with; `None`
/// for a name that is not a pi built-in.
pub fn translate(tool: &str, args: &Value) -> Option<(&'static str, Value)> {
    let get = |key: &str| args.get(key).cloned();
    let mut out = Map::new();
    let mut put = |key: &str, value: Option<Value>| {
        if let Some(v) = value {
            out.insert(key.to_string(), v);
        }
    };
    let name = match tool {
        "read" => {
            put("file_path", get("path"));
            put("offset", get("offset"));
            put("limit", get("limit"));
            "Read"
        }
        "bash" => {
            put("command", get("command"));
            // pi's timeout is in seconds, finch's in milliseconds.
            put(
                "timeout",
                args.get("timeout")
                    .and_then(Value::as_f64)
                    .map(|s| Value::from((s * 1000.0).round() as u64)),
            );
            "Bash"
        }
        "edit" => {
            put("file_path", get("path"));
            let first = args.get("edits").and_then(|e| e.get(0));
            put("old_string", first.and_then(|e| e.get("oldText")).cloned());
            put("new_string", first.and_then(|e| e.get("newText")).cloned());
            "Edit"
        }
        "write" => {
            put("file_path", get("path"));
            put("content", get("content"));
            "Write"
        }
        "grep" => {
            put("pattern", get("pattern"));
            put("path", get("path"));
            put("glob", get("glob"));
            "Grep"
        }
        "find" => {
            put("pattern", get("pattern"));
            put("path", get("path"));
            "Glob"
        }
        "ls" => {
            put("pattern", Some("*".into()));
            put("path", get("path"));
            "Glob"
        }
        _ => return None,
    };
    Some((name, Value::Object(out)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_pi_builtin_has_a_finch_counterpart() {
        let cases = [
            (
                "read",
                json!({"path": "a.txt", "offset": 2, "limit": 5}),
                "Read",
                json!({"file_path": "a.txt", "offset": 2, "limit": 5}),
            ),
            (
                "bash",
                json!({"command": "ls", "timeout": 1.5}),
                "Bash",
                json!({"command": "ls", "timeout": 1500}),
            ),
            (
                "edit",
                json!({"path": "a", "edits": [{"oldText": "x", "newText": "y"}, {"oldText": "p", "newText": "q"}]}),
                "Edit",
                json!({"file_path": "a", "old_string": "x", "new_string": "y"}),
            ),
            (
                "write",
                json!({"path": "a", "content": "c"}),
                "Write",
                json!({"file_path": "a", "content": "c"}),
            ),
            (
                "grep",
                json!({"pattern": "p", "path": "src", "glob": "*.rs", "ignoreCase": true}),
                "Grep",
                json!({"pattern": "p", "path": "src", "glob": "*.rs"}),
            ),
            (
                "find",
                json!({"pattern": "**/*.rs", "path": "/etc"}),
                "Glob",
                json!({"pattern": "**/*.rs", "path": "/etc"}),
            ),
            ("ls", json!({}), "Glob", json!({"pattern": "*"})),
        ];
        for (pi, args, finch, want) in cases {
            assert_eq!(translate(pi, &args), Some((finch, want)), "{pi}");
        }
        assert_eq!(PI_BUILTINS.len(), 7);
        assert!(
            PI_BUILTINS
                .iter()
                .all(|n| translate(n, &json!({})).is_some())
        );
        assert_eq!(translate("Read", &json!({})), None);
        assert_eq!(translate("mcp__x__y", &json!({})), None);
    }
}
