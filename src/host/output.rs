//! What a tool call returns: content blocks as MCP shapes them (text and images), optional
//! structured content, and whether it is an error the model should read. Every layer returns
//! this one type, so the front ends (console, JSON lines, MCP) render one thing.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Value, json};

/// One block of a result.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    Text(String),
    /// Base64 data and its MIME type.
    Image {
        data: String,
        mime_type: String,
    },
}

impl Content {
    pub fn to_json(&self) -> Value {
        match self {
            Content::Text(text) => json!({"type": "text", "text": text}),
            Content::Image { data, mime_type } => {
                json!({"type": "image", "data": data, "mimeType": mime_type})
            }
        }
    }
}

impl Serialize for Content {
    /// The same object as `to_json`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Content::Text(text) => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", text)?;
                map.end()
            }
            Content::Image { data, mime_type } => {
                let mut map = serializer.serialize_map(Some(3))?;
                map.serialize_entry("type", "image")?;
                map.serialize_entry("data", data)?;
                map.serialize_entry("mimeType", mime_type)?;
                map.end()
            }
        }
    }
}

/// The result of one call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub content: Vec<Content>,
    /// A JSON value for programs (dispatchers return their domain objects here).
    pub structured: Option<Value>,
    pub is_error: bool,
}

impl ToolOutput {
    pub fn text(text: impl Into<String>) -> ToolOutput {
        ToolOutput {
            content: vec![Content::Text(text.into())],
            structured: None,
            is_error: false,
        }
    }

    /// An error the model can act on: what went wrong and what to do instead.
    pub fn error(message: impl Into<String>) -> ToolOutput {
        ToolOutput {
            content: vec![Content::Text(message.into())],
            structured: None,
            is_error: true,
        }
    }

    /// A JSON result: pretty text for the model and the value itself as structured content.
    pub fn json(value: Value) -> ToolOutput {
        ToolOutput {
            content: vec![Content::Text(crate::store::to_pretty_json(&value))],
            structured: Some(value),
            is_error: false,
        }
    }

    /// All text blocks joined by newlines.
    pub fn text_content(&self) -> String {
        let mut out = String::new();
        for block in &self.content {
            if let Content::Text(text) = block {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(text);
            }
        }
        out
    }

    /// The result as JSON lines and transcripts carry it:
    /// `{"content", "isError", "structuredContent"?}`, the MCP result's shape.
    pub fn to_json(&self) -> Value {
        let mut out = json!({
            "content": self.content.iter().map(Content::to_json).collect::<Vec<_>>(),
            "isError": self.is_error,
        });
        if let (Some(map), Some(structured)) = (out.as_object_mut(), &self.structured) {
            map.insert("structuredContent".into(), structured.clone());
        }
        out
    }
}

impl Serialize for ToolOutput {
    /// The same object as `to_json`, written without building it.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields = if self.structured.is_some() { 3 } else { 2 };
        let mut map = serializer.serialize_map(Some(fields))?;
        map.serialize_entry("content", &self.content)?;
        map.serialize_entry("isError", &self.is_error)?;
        if let Some(structured) = &self.structured {
            map.serialize_entry("structuredContent", structured)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializing_gives_what_to_json_builds() {
        let outputs = [
            ToolOutput::text("one\ttwo \"quoted\""),
            ToolOutput::error("it failed"),
            ToolOutput {
                content: vec![
                    Content::Text("an image".into()),
                    Content::Image {
                        data: "aGk=".into(),
                        mime_type: "image/png".into(),
                    },
                ],
                structured: Some(json!({"rows": [1, 2], "ok": true})),
                is_error: false,
            },
        ];
        for output in outputs {
            let written = serde_json::to_string(&output).unwrap();
            assert_eq!(written, output.to_json().to_string());
        }
    }
}
