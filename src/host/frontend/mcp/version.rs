//! What `elicitation/create` may carry under the negotiated protocol version, checked against
//! the MCP schema of each revision:
//!
//! - before 2025-06-18 there is no elicitation: a client of such a session is never asked
//!   (cards go to the terminal or to nobody, as for a client without the capability);
//! - 2025-06-18: `params` is exactly `{message, requestedSchema}` — no `mode` (2025-11-25),
//!   no `_meta` and so no `progressToken` (2025-11-25's `ElicitRequestFormParams` extends the
//!   request params that carry them); a property is a string, number, boolean or `EnumSchema`
//!   (`enum` with optional `enumNames`): no `oneOf`/`anyOf` titled enums and no arrays;
//! - 2025-11-25: `mode: "form"`, titled enums (`oneOf` of `const`/`title`) and multi-select
//!   arrays, as finch builds its forms.
//!
//! The forms are built for 2025-11-25. [`legacy_schema`] rewrites one for 2025-06-18 — a titled
//! enum becomes `enum` + `enumNames`, a multi-select array one boolean per option — and
//! [`legacy_answer`] turns the booleans of the answer back into the array. The wire
//! ([`legacy_request`]) sends the request without `mode` and `_meta`, which rmcp always adds.

use rmcp::model::{CustomRequest, ElicitRequestParams, ProtocolVersion};
use serde_json::{Map, Value, json};

/// Which elicitation a negotiated version has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Before 2025-06-18: none.
    None,
    /// 2025-06-18.
    Legacy,
    /// 2025-11-25 and later.
    Current,
}

impl Dialect {
    pub fn of(version: &ProtocolVersion) -> Dialect {
        // Revisions are dates: they order as strings.
        let v = version.as_str();
        if v < ProtocolVersion::V_2025_06_18.as_str() {
            Dialect::None
        } else if v == ProtocolVersion::V_2025_06_18.as_str() {
            Dialect::Legacy
        } else {
            Dialect::Current
        }
    }
}

/// The prefix of the boolean properties a multi-select array becomes.
const OPTION_SEP: &str = "__option";

/// A 2025-11-25 form as 2025-06-18 allows it (see the module docs).
pub fn legacy_schema(schema: &Value) -> Value {
    let mut schema = schema.clone();
    let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return schema;
    };
    let mut out = Map::new();
    for (name, property) in std::mem::take(properties) {
        let choices = |key: &str, p: &Value| -> Option<Vec<(String, String)>> {
            let list = p.get(key)?.as_array()?;
            list.iter()
                .map(|c| {
                    let value = c.get("const")?.as_str()?.to_string();
                    let title = c
                        .get("title")
                        .and_then(Value::as_str)
                        .unwrap_or(&value)
                        .to_string();
                    Some((value, title))
                })
                .collect()
        };
        if let Some(options) = choices("oneOf", &property) {
            let mut p = Map::new();
            p.insert("type".into(), "string".into());
            for key in ["title", "description"] {
                if let Some(v) = property.get(key) {
                    p.insert(key.into(), v.clone());
                }
            }
            p.insert(
                "enum".into(),
                options.iter().map(|(v, _)| v.clone()).collect(),
            );
            p.insert(
                "enumNames".into(),
                options.iter().map(|(_, t)| t.clone()).collect(),
            );
            out.insert(name, Value::Object(p));
        } else if property.get("type").and_then(Value::as_str) == Some("array") {
            let items = property.get("items").cloned().unwrap_or(Value::Null);
            let options = choices("anyOf", &items).unwrap_or_default();
            for (i, (value, title)) in options.into_iter().enumerate() {
                out.insert(
                    format!("{name}{OPTION_SEP}{i}"),
                    json!({"type": "boolean", "title": title, "description": value, "default": false}),
                );
            }
        } else {
            out.insert(name, property);
        }
    }
    *properties = out;
    schema
}

/// An answer to a [`legacy_schema`] form as the 2025-11-25 form would have had it: the
/// options ticked (`<name>__option<i>: true`) back into the array `<name>` of their values.
pub fn legacy_answer(schema: &Value, content: Value) -> Value {
    let Value::Object(mut content) = content else {
        return content;
    };
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Value::Object(content);
    };
    for (name, property) in properties {
        if property.get("type").and_then(Value::as_str) != Some("array") {
            continue;
        }
        let values: Vec<&str> = property
            .pointer("/items/anyOf")
            .and_then(Value::as_array)
            .map(|l| l.iter().filter_map(|c| c.get("const")?.as_str()).collect())
            .unwrap_or_default();
        let mut chosen = Vec::new();
        for (i, value) in values.into_iter().enumerate() {
            let key = format!("{name}{OPTION_SEP}{i}");
            if content.remove(&key).and_then(|v| v.as_bool()) == Some(true) {
                chosen.push(Value::from(value));
            }
        }
        content.insert(name.clone(), Value::Array(chosen));
    }
    Value::Object(content)
}

/// A form elicitation as a 2025-06-18 request: `{message, requestedSchema}` and nothing else.
/// `None` for what is no form elicitation (sent as it is).
pub fn legacy_request(params: &ElicitRequestParams) -> Option<CustomRequest> {
    let ElicitRequestParams::FormElicitationParams {
        message,
        requested_schema,
        ..
    } = params
    else {
        return None;
    };
    let schema = serde_json::to_value(requested_schema).ok()?;
    Some(CustomRequest::new(
        "elicitation/create",
        Some(json!({"message": message, "requestedSchema": schema})),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dialects_follow_the_revision() {
        assert_eq!(Dialect::of(&ProtocolVersion::V_2024_11_05), Dialect::None);
        assert_eq!(Dialect::of(&ProtocolVersion::V_2025_03_26), Dialect::None);
        assert_eq!(Dialect::of(&ProtocolVersion::V_2025_06_18), Dialect::Legacy);
        assert_eq!(
            Dialect::of(&ProtocolVersion::V_2025_11_25),
            Dialect::Current
        );
    }

    #[test]
    fn titled_enums_and_arrays_become_2025_06_18_forms_and_back() {
        let form = json!({
            "type": "object",
            "properties": {
                "decision": {"type": "string", "title": "Decision", "oneOf": [
                    {"const": "allowOnce", "title": "Allow once"},
                    {"const": "deny", "title": "Deny"},
                ]},
                "pick": {"type": "array", "title": "Choose any", "items": {"anyOf": [
                    {"const": "SQLite", "title": "SQLite — one file"},
                    {"const": "Postgres", "title": "Postgres"},
                ]}},
                "reason": {"type": "string", "title": "Reason"},
            },
            "required": ["decision"],
        });
        let legacy = legacy_schema(&form);
        assert_eq!(
            legacy,
            json!({
                "type": "object",
                "properties": {
                    "decision": {"type": "string", "title": "Decision",
                                 "enum": ["allowOnce", "deny"], "enumNames": ["Allow once", "Deny"]},
                    "pick__option0": {"type": "boolean", "title": "SQLite — one file",
                                      "description": "SQLite", "default": false},
                    "pick__option1": {"type": "boolean", "title": "Postgres",
                                      "description": "Postgres", "default": false},
                    "reason": {"type": "string", "title": "Reason"},
                },
                "required": ["decision"],
            })
        );
        // rmcp's 2025-06-18 types hold it as it is.
        let typed: rmcp::model::ElicitationSchema = serde_json::from_value(legacy).unwrap();
        assert_eq!(
            serde_json::to_value(&typed).unwrap()["properties"]["decision"]["enumNames"],
            json!(["Allow once", "Deny"])
        );
        let answer = legacy_answer(
            &form,
            json!({"decision": "deny", "pick__option1": true, "pick__option0": false, "reason": "x"}),
        );
        assert_eq!(
            answer,
            json!({"decision": "deny", "pick": ["Postgres"], "reason": "x"})
        );
    }

    #[test]
    fn a_legacy_request_has_no_mode_and_no_meta() {
        let schema: rmcp::model::ElicitationSchema = serde_json::from_value(
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
        )
        .unwrap();
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: "m".into(),
            requested_schema: schema,
        };
        let request = legacy_request(&params).unwrap();
        let wire = serde_json::to_value(&request).unwrap();
        assert_eq!(
            wire,
            json!({"method": "elicitation/create", "params": {"message": "m",
                   "requestedSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}})
        );
    }
}
