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
    /// Any other MCP content block, kept as an MCP server sent it: an embedded resource (with
    /// its `uri`), a resource link, audio, and text or an image that carries `annotations`
    /// (`audience`, `priority`, `lastModified`).
    Block(Value),
}

impl Content {
    pub fn to_json(&self) -> Value {
        match self {
            Content::Text(text) => json!({"type": "text", "text": text}),
            Content::Image { data, mime_type } => {
                json!({"type": "image", "data": data, "mimeType": mime_type})
            }
            Content::Block(block) => block.clone(),
        }
    }

    /// The text a block carries for a reader: a text block's text, an embedded text
    /// resource's text; `None` for images, blobs, links and audio.
    pub fn text(&self) -> Option<&str> {
        match self {
            Content::Text(text) => Some(text),
            Content::Image { .. } => None,
            Content::Block(block) => match block.get("type").and_then(Value::as_str) {
                Some("text") => block.get("text").and_then(Value::as_str),
                Some("resource") => block
                    .get("resource")
                    .and_then(|r| r.get("text"))
                    .and_then(Value::as_str),
                _ => None,
            },
        }
    }

    /// One line saying what a block holds, for a terminal: its text, or what it is
    /// (`[image: image/png, 92 bytes base64]`, `[resource file:///a.zip: application/zip, 4
    /// bytes base64]`, `[resource link: notes file:///notes]`, `[audio: audio/wav, 8 bytes
    /// base64]`).
    pub fn display(&self) -> String {
        if let Some(text) = self.text() {
            return text.to_string();
        }
        let field = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        match self {
            Content::Text(text) => text.clone(),
            Content::Image { data, mime_type } => {
                format!("[image: {mime_type}, {} bytes base64]", data.len())
            }
            Content::Block(block) => match block.get("type").and_then(Value::as_str) {
                Some("image") | Some("audio") => format!(
                    "[{}: {}, {} bytes base64]",
                    field(block, "type"),
                    field(block, "mimeType"),
                    field(block, "data").len()
                ),
                Some("resource") => {
                    let resource = block.get("resource").cloned().unwrap_or(Value::Null);
                    let mime = field(&resource, "mimeType");
                    format!(
                        "[resource {}: {}, {} bytes base64]",
                        field(&resource, "uri"),
                        if mime.is_empty() {
                            "application/octet-stream"
                        } else {
                            &mime
                        },
                        field(&resource, "blob").len()
                    )
                }
                Some("resource_link") => format!(
                    "[resource link: {} {}]",
                    field(block, "name"),
                    field(block, "uri")
                ),
                Some(other) => format!("[{other} content]"),
                None => "[content]".into(),
            },
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
            Content::Block(block) => block.serialize(serializer),
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

    /// This output with every embedded resource's `blob` left out (its `uri` and `mimeType`
    /// kept, and `"finch/blobBytes"`: the base64 length that was there), as a transcript keeps
    /// it; borrowed when there is none.
    pub fn without_blobs(&self) -> std::borrow::Cow<'_, ToolOutput> {
        let has_blob = |c: &Content| matches!(c, Content::Block(b) if b["type"] == "resource" && b["resource"]["blob"].is_string());
        if !self.content.iter().any(has_blob) {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut out = self.clone();
        for block in &mut out.content {
            if let Content::Block(b) = block
                && let Some(resource) = b.get_mut("resource").and_then(Value::as_object_mut)
                && let Some(Value::String(blob)) = resource.remove("blob")
            {
                resource.insert("finch/blobBytes".into(), blob.len().into());
            }
        }
        std::borrow::Cow::Owned(out)
    }

    /// The text of every block that has one (`Content::text`), joined by newlines.
    pub fn text_content(&self) -> String {
        let mut out = String::new();
        for block in &self.content {
            if let Some(text) = block.text() {
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
            ToolOutput {
                content: vec![Content::Block(json!({
                    "type": "resource",
                    "resource": {"uri": "file:///a.txt", "text": "inside"},
                    "annotations": {"audience": ["user"], "priority": 0.5},
                }))],
                structured: None,
                is_error: false,
            },
        ];
        for output in outputs {
            let written = serde_json::to_string(&output).unwrap();
            assert_eq!(written, output.to_json().to_string());
        }
    }
}
