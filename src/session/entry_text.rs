//! What search looks at in one entry — who spoke, and the message text and tool names — read
//! straight from a line's bytes, borrowing strings from the line and skipping every other field
//! without building it. Search parses many large lines, and building full JSON values for them
//! was most of its time.
//!
//! The reader is lenient like the rest of the transcript code: a field of an unexpected type
//! (a number where a string was expected, a string where an object was) counts as absent, so any
//! JSON object line can be read.
//!
//! Which text counts: `message` entries give their content text (a string, or `text` blocks), the
//! names of their `toolCall` blocks, the text of nested `toolResult` blocks, their `toolName`,
//! and the `command`/`output`/`summary` fields of shell runs and summaries; `custom_message`
//! entries their content; finch's `finch.toolCall` records their tool; `compaction` and
//! `branch_summary` entries their summary. The arguments of tool calls (`toolCall` blocks and
//! `finch.toolCall` records) count by their strings and numbers (a command, a path, a query);
//! thinking blocks do not.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// The searchable parts of one entry.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryText<'a> {
    pub role: Cow<'a, str>,
    /// Pieces of text, in entry order; words never run across two pieces.
    pub pieces: Vec<Cow<'a, str>>,
    pub timestamp: Option<Cow<'a, str>>,
}

impl EntryText<'_> {
    /// The pieces joined by newlines.
    pub fn text(&self) -> String {
        self.pieces.join("\n")
    }
}

/// Reads the searchable parts of a line; `Ok(None)` for entries without any, `Err` when the line
/// is not a JSON object.
pub fn of_line(line: &[u8]) -> Result<Option<EntryText<'_>>, String> {
    // Checking the whole line at once is quicker than letting the parser check each string.
    let line = std::str::from_utf8(line).map_err(|e| format!("not valid UTF-8: {e}"))?;
    match serde_json::from_str::<IfObject<RawEntry<'_>>>(line) {
        Ok(IfObject(Some(raw))) => Ok(raw.into_text()),
        Ok(IfObject(None)) => Err("not a JSON object".to_string()),
        Err(e) => Err(format!("not valid JSON (column {}): {e}", e.column())),
    }
}

/// The same for an entry already parsed.
pub fn of_value(entry: &Value) -> Option<EntryText<'_>> {
    match IfObject::<RawEntry<'_>>::deserialize(entry) {
        Ok(IfObject(Some(raw))) => raw.into_text(),
        _ => None,
    }
}

#[derive(Deserialize)]
struct RawEntry<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Str<'a>,
    #[serde(borrow, default)]
    timestamp: Str<'a>,
    #[serde(borrow, default)]
    message: IfObject<RawMessage<'a>>,
    #[serde(borrow, default)]
    content: Content<'a>,
    #[serde(rename = "customType", borrow, default)]
    custom_type: Str<'a>,
    #[serde(borrow, default)]
    data: IfObject<RawToolData<'a>>,
    #[serde(borrow, default)]
    summary: Str<'a>,
}

#[derive(Deserialize)]
struct RawMessage<'a> {
    #[serde(borrow, default)]
    role: Str<'a>,
    #[serde(rename = "toolName", borrow, default)]
    tool_name: Str<'a>,
    #[serde(borrow, default)]
    content: Content<'a>,
    #[serde(borrow, default)]
    command: Str<'a>,
    #[serde(borrow, default)]
    output: Str<'a>,
    #[serde(borrow, default)]
    summary: Str<'a>,
}

#[derive(Deserialize)]
struct RawToolData<'a> {
    #[serde(borrow, default)]
    tool: Str<'a>,
    #[serde(default)]
    arguments: Option<Value>,
}

#[derive(Deserialize)]
struct RawBlock<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Str<'a>,
    #[serde(borrow, default)]
    text: Str<'a>,
    #[serde(borrow, default)]
    name: Str<'a>,
    #[serde(default)]
    arguments: Option<Value>,
    #[serde(borrow, default)]
    content: Content<'a>,
}

/// The text of a call's arguments: every string and number in them, so a search finds a call
/// by its command, path or query.
fn argument_text<'a>(arguments: Option<Value>, pieces: &mut Vec<Cow<'a, str>>) {
    fn walk<'a>(value: Value, pieces: &mut Vec<Cow<'a, str>>) {
        match value {
            Value::String(s) => pieces.push(Cow::Owned(s)),
            Value::Number(n) => pieces.push(Cow::Owned(n.to_string())),
            Value::Array(items) => items.into_iter().for_each(|v| walk(v, pieces)),
            Value::Object(map) => map.into_iter().for_each(|(_, v)| walk(v, pieces)),
            Value::Bool(_) | Value::Null => {}
        }
    }
    if let Some(arguments) = arguments {
        walk(arguments, pieces);
    }
}

impl<'a> RawEntry<'a> {
    fn into_text(self) -> Option<EntryText<'a>> {
        let mut pieces = Vec::new();
        let role: Cow<'a, str> = match self.kind.0.as_deref()? {
            "message" => {
                let message = self.message.0?;
                pieces.extend(message.tool_name.0);
                message.content.collect(&mut pieces, true);
                pieces.extend(message.command.0);
                pieces.extend(message.output.0);
                pieces.extend(message.summary.0);
                message.role.0.unwrap_or(Cow::Borrowed("unknown"))
            }
            "custom_message" => {
                self.content.collect(&mut pieces, false);
                Cow::Borrowed("custom")
            }
            "custom" if self.custom_type.0.as_deref() == Some("finch.toolCall") => {
                let data = self.data.0?;
                pieces.extend(data.tool.0);
                argument_text(data.arguments, &mut pieces);
                Cow::Borrowed("tool")
            }
            "compaction" | "branch_summary" => {
                pieces.extend(self.summary.0);
                Cow::Borrowed("summary")
            }
            _ => return None,
        };
        pieces.retain(|p| !p.trim().is_empty());
        if pieces.is_empty() {
            return None;
        }
        Some(EntryText {
            role,
            pieces,
            timestamp: self.timestamp.0,
        })
    }
}

/// A `content` value: a string, a list of blocks, or something else (ignored).
#[derive(Default)]
enum Content<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<IfObject<RawBlock<'a>>>),
    #[default]
    Other,
}

impl<'a> Content<'a> {
    /// Adds the text of this content; with `calls`, also tool call names and nested results.
    fn collect(self, pieces: &mut Vec<Cow<'a, str>>, calls: bool) {
        match self {
            Content::Text(t) => pieces.push(t),
            Content::Blocks(blocks) => {
                for block in blocks.into_iter().filter_map(|b| b.0) {
                    match block.kind.0.as_deref() {
                        Some("text") => pieces.extend(block.text.0),
                        Some("toolCall") if calls => {
                            pieces.extend(block.name.0);
                            argument_text(block.arguments, pieces);
                        }
                        Some("toolResult") if calls => block.content.collect(pieces, false),
                        _ => {}
                    }
                }
            }
            Content::Other => {}
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("message content")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                while let Some(b) = seq.next_element()? {
                    blocks.push(b);
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                skip_map(map).map(|()| Content::Other)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                Content::deserialize(d)
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// A string field; any other value counts as absent.
#[derive(Default)]
struct Str<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Str<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Str(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Str(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(Str(Some(Cow::Owned(v))))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                skip_seq(seq).map(|()| Str(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                skip_map(map).map(|()| Str(None))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                Str::deserialize(d)
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(Str(None))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Str(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Str(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Str(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Str(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Str(None))
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// An object field read as `T`; any other value counts as absent.
struct IfObject<T>(Option<T>);

impl<T> Default for IfObject<T> {
    fn default() -> Self {
        IfObject(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for IfObject<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = IfObject<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(|t| IfObject(Some(t)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                skip_seq(seq).map(|()| IfObject(None))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                IfObject::deserialize(d)
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(IfObject(None))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(IfObject(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(IfObject(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(IfObject(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(IfObject(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(IfObject(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(IfObject(None))
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

fn skip_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

fn skip_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text_of(entry: Value) -> Option<(String, String)> {
        let line = entry.to_string();
        let from_line = of_line(line.as_bytes())
            .unwrap()
            .map(|t| (t.role.to_string(), t.text()));
        let from_value = of_value(&entry).map(|t| (t.role.to_string(), t.text()));
        assert_eq!(from_line, from_value, "{entry}");
        from_line
    }

    #[test]
    fn searchable_text_of_entries() {
        let cases = [
            (
                json!({"type":"message","message":{"role":"user","content":"hello there"}}),
                Some(("user", "hello there")),
            ),
            (
                json!({"type":"message","message":{"role":"assistant","content":[
                    {"type":"thinking","thinking":"secret"},
                    {"type":"text","text":"Let me look"},
                    {"type":"toolCall","id":"c1","name":"read_file","arguments":{"path":"x"}}]}}),
                Some(("assistant", "Let me look\nread_file\nx")),
            ),
            (
                json!({"type":"message","message":{"role":"toolResult","toolName":"bash",
                    "content":[{"type":"text","text":"ok\n\"quoted\""}]}}),
                Some(("toolResult", "bash\nok\n\"quoted\"")),
            ),
            (
                json!({"type":"message","message":{"role":"assistant","content":[
                    {"type":"toolResult","content":[{"type":"text","text":"nested"}]}]}}),
                Some(("assistant", "nested")),
            ),
            (
                json!({"type":"message","message":{"role":"bashExecution","command":"ls -la",
                    "output":"total 0"}}),
                Some(("bashExecution", "ls -la\ntotal 0")),
            ),
            (
                json!({"type":"custom_message","customType":"x","content":[{"type":"text","text":"injected"}]}),
                Some(("custom", "injected")),
            ),
            (
                json!({"type":"custom","customType":"finch.toolCall","data":{"tool":"Grep"}}),
                Some(("tool", "Grep")),
            ),
            (
                json!({"type":"compaction","summary":"talked about X"}),
                Some(("summary", "talked about X")),
            ),
            (
                json!({"type":"custom","customType":"other","data":{"tool":"Grep"}}),
                None,
            ),
            (json!({"type":"model_change","provider":"p"}), None),
            (json!({"type":"session","id":"x"}), None),
            (
                json!({"type":"message","message":{"role":"user","content":""}}),
                None,
            ),
            // Fields of unexpected types count as absent; the line is still read.
            (
                json!({"type":"message","timestamp":12,"message":{"role":7,"content":[
                    "a string block",{"type":"text","text":5},{"type":"text","text":"kept"}]}}),
                Some(("unknown", "kept")),
            ),
            (json!({"type":"message","message":"just a string"}), None),
            (json!({"type":["odd"],"message":{"content":"x"}}), None),
        ];
        for (entry, want) in cases {
            let want = want.map(|(r, t)| (r.to_string(), t.to_string()));
            assert_eq!(text_of(entry.clone()), want, "{entry}");
        }
    }

    #[test]
    fn lines_that_are_not_objects_are_errors() {
        assert!(of_line(b"[1,2]").is_err());
        assert!(of_line(b"{\"type\":\"message\",").is_err());
        assert!(of_line(b"\"text\"").is_err());
    }
}
