//! The `annotations` of each listed tool (`crate::host::hints` says what they are and why) as
//! rmcp's type, and the `CallTool` proxy that `--call-tool` adds for clients that never list
//! tools again after `notifications/tools/list_changed` (Codex CLI).
//!
//! `CallTool {name, arguments}` calls the active tool `name` through `Host::call`, exactly as a
//! direct call of `name` would run: the same gateway, cards, transcript record (under the
//! inner tool's name) and result. It only reaches tools that are active — listed now, or
//! activated by ToolSearch — so it adds no way around the catalog or the gateway; a name that
//! is not active is refused as a direct call of it would be.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use crate::host::catalog::ToolSpec;
use crate::host::hints;

/// The proxy tool's name.
pub const CALL_TOOL: &str = "CallTool";

/// The MCP annotations of a catalog tool.
pub fn of(spec: &ToolSpec) -> ToolAnnotations {
    let value = serde_json::to_value(hints::of(spec)).unwrap_or(Value::Null);
    serde_json::from_value(value).unwrap_or_default()
}

/// `CallTool` as `tools/list` describes it. Its hints are those of the worst tool it can
/// reach: not read-only, destructive, open-world.
pub fn call_tool() -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {
                "type": "string",
                "minLength": 1,
                "description": "The exact name of the tool to call: a listed tool, or one ToolSearch returned."
            },
            "arguments": {
                "type": "object",
                "description": "The tool's arguments, as its input schema wants them."
            }
        },
        "required": ["name"],
        "additionalProperties": false
    });
    let schema: JsonObject = match schema {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    let annotations: ToolAnnotations = serde_json::from_value(json!({
        "title": "Call a tool by name",
        "readOnlyHint": false,
        "destructiveHint": true,
        "idempotentHint": false,
        "openWorldHint": true,
    }))
    .unwrap_or_default();
    Tool::new(
        CALL_TOOL,
        "Calls one of finch's tools by its name: any listed tool, and the tools ToolSearch \
         activated (use this for them when they are not in your tool list). The call goes through \
         the same permission gateway as a direct call.",
        Arc::new(schema),
    )
    .with_title("Call a tool by name")
    .with_annotations(annotations)
}

/// The tool and arguments a `CallTool` call names, or why it names none.
pub fn unwrap_call(arguments: &Value) -> Result<(String, Value), String> {
    let name = arguments
        .get("name")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| format!("`{CALL_TOOL}` needs `name`: the tool to call"))?;
    if name == CALL_TOOL {
        return Err(format!("`{CALL_TOOL}` cannot call itself"));
    }
    let inner = match arguments.get("arguments") {
        None | Some(Value::Null) => Value::Object(Default::default()),
        Some(v @ Value::Object(_)) => v.clone(),
        Some(_) => {
            return Err(format!(
                "`{CALL_TOOL}`'s `arguments` must be an object: the arguments of `{name}`"
            ));
        }
    };
    Ok((name.to_string(), inner))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_tool_arguments() {
        assert_eq!(
            unwrap_call(&json!({"name": "acme_shout", "arguments": {"text": "hi"}})),
            Ok(("acme_shout".into(), json!({"text": "hi"})))
        );
        assert_eq!(
            unwrap_call(&json!({"name": " Read "})),
            Ok(("Read".into(), json!({})))
        );
        for bad in [
            json!({}),
            json!({"name": ""}),
            json!({"name": 3}),
            json!({"name": "CallTool", "arguments": {}}),
            json!({"name": "Read", "arguments": "file_path=x"}),
        ] {
            assert!(unwrap_call(&bad).is_err(), "{bad}");
        }
        let listed = serde_json::to_value(call_tool()).unwrap();
        assert_eq!(listed["annotations"]["readOnlyHint"], false);
        assert_eq!(listed["inputSchema"]["required"], json!(["name"]));
    }
}
