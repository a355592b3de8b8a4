//! One transcript file: its header, its entries read leniently, a summary for listings, the text
//! of an entry for searching, and a plain-text description of an entry for `show`.
//!
//! The first line is the header `{"type":"session","version":3,"id","timestamp","cwd"}`; every
//! later line is an entry with `type`, `id`, `parentId` and `timestamp`. Entry types finch does
//! not know are kept as they are. A line that is not JSON is skipped with a warning naming the
//! file and line; the file is never rewritten.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{SessionError, Warning};

/// How many characters of the first user message make a title.
const TITLE_CHARS: usize = 80;
/// The custom entry type of finch's record of one call (`host::session::TOOL_CALL_ENTRY`).
pub const TOOL_CALL_RECORD: &str = "finch.toolCall";
/// The longest header line read when only the header is wanted.
const MAX_HEADER_BYTES: u64 = 1 << 20;

/// The first line of a transcript.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    pub id: String,
    pub timestamp: Option<String>,
    pub cwd: Option<String>,
}

impl Header {
    /// The header in a parsed first line, if it is one.
    pub fn from_value(value: &Value) -> Option<Header> {
        if value.get("type").and_then(Value::as_str) != Some("session") {
            return None;
        }
        let s = |k: &str| value.get(k).and_then(Value::as_str).map(str::to_string);
        Some(Header {
            id: s("id").filter(|id| !id.is_empty())?,
            timestamp: s("timestamp"),
            cwd: s("cwd"),
        })
    }
}

/// pi's directory name for a working directory: `--` + the path without its leading `/`, every
/// `/` (and `\\` or `:` on Windows) replaced by `-`, + `--`.
pub fn workspace_slug(cwd: &Path) -> String {
    let text = cwd.to_string_lossy();
    let body: String = text
        .trim_start_matches(['/', '\\'])
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | ':') {
                '-'
            } else {
                c
            }
        })
        .collect();
    format!("--{body}--")
}

/// Where a new transcript for `cwd` started at `started` goes:
/// `<sessions>/<slug>/<ISO timestamp with : and . as ->_<id>.jsonl`.
pub fn new_transcript_path(sessions_dir: &Path, cwd: &Path, started: &str, id: &str) -> PathBuf {
    let stamp = started.replace([':', '.'], "-");
    sessions_dir
        .join(workspace_slug(cwd))
        .join(format!("{stamp}_{id}.jsonl"))
}

/// The id a file name carries: `<timestamp>_<uuid>.jsonl` → `<uuid>`. Used only when the header
/// cannot be read.
pub fn id_from_file_name(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    match stem.rsplit_once('_') {
        Some((_, id)) if !id.is_empty() => id.to_string(),
        _ => stem,
    }
}

/// Reads only the header line. `Ok(None)` when the first line is not a session header.
pub fn read_header(path: &Path) -> std::io::Result<Option<Header>> {
    let file = File::open(path)?;
    let mut line = Vec::new();
    BufReader::new(file.take(MAX_HEADER_BYTES)).read_until(b'\n', &mut line)?;
    Ok(serde_json::from_slice::<Value>(&line)
        .ok()
        .and_then(|v| Header::from_value(&v)))
}

/// Parses one line; it must be a JSON object.
pub fn parse_line(line: &[u8]) -> Result<Value, String> {
    match serde_json::from_slice::<Value>(line) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(_) => Err("not a JSON object".to_string()),
        Err(e) => Err(format!("not valid JSON (column {}): {e}", e.column())),
    }
}

/// Reads `path` line by line, calling `each(line_number, line)` for every non-blank line, and
/// turns lines `each` rejects into warnings. The last line without a newline that does not parse
/// is reported as truncated.
fn for_each_line(
    path: &Path,
    mut each: impl FnMut(usize, &[u8]) -> Result<(), String>,
) -> Result<Vec<Warning>, SessionError> {
    let file = File::open(path).map_err(|e| SessionError::read(path, e))?;
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let mut line = Vec::new();
    let mut warnings = Vec::new();
    let mut number = 0;
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| SessionError::read(path, e))?;
        if n == 0 {
            break;
        }
        number += 1;
        let terminated = line.last() == Some(&b'\n');
        let text = trim_line(&line);
        if text.is_empty() {
            continue;
        }
        if let Err(why) = each(number, text) {
            warnings.push(if terminated {
                format!("{}:{number}: skipped a line: {why}", path.display())
            } else {
                format!(
                    "{}:{number}: skipped a truncated last line (it is left as it is)",
                    path.display()
                )
            });
        }
    }
    Ok(warnings)
}

/// A line without its line ending and surrounding blanks.
pub fn trim_line(line: &[u8]) -> &[u8] {
    line.trim_ascii()
}

/// A whole transcript: the header and every readable line, header included, as JSON values.
#[derive(Debug, Clone)]
pub struct Transcript {
    pub path: PathBuf,
    pub header: Header,
    pub entries: Vec<Value>,
    pub warnings: Vec<Warning>,
}

impl Transcript {
    pub fn read(path: &Path) -> Result<Transcript, SessionError> {
        let mut entries = Vec::new();
        let warnings = for_each_line(path, |_, line| {
            entries.push(parse_line(line)?);
            Ok(())
        })?;
        let header = entries
            .first()
            .and_then(Header::from_value)
            .ok_or_else(|| SessionError::NotATranscript {
                path: path.to_path_buf(),
                why: "its first line is not a session header".to_string(),
            })?;
        Ok(Transcript {
            path: path.to_path_buf(),
            header,
            entries,
            warnings,
        })
    }

    /// The last `session_info` name, else the start of the first user message. A blank last
    /// name clears the title, as pi reads it (`getSessionName`): the first user message again.
    pub fn title(&self) -> Option<String> {
        let named = self
            .entries
            .iter()
            .rev()
            .find(|e| e.get("type").and_then(Value::as_str) == Some("session_info"))
            .and_then(|e| e.get("name").and_then(Value::as_str))
            .map(str::trim)
            .filter(|n| !n.is_empty());
        if let Some(name) = named {
            return Some(name.to_string());
        }
        self.entries
            .iter()
            .filter(|e| e.get("type").and_then(Value::as_str) == Some("message"))
            .filter_map(|e| e.get("message"))
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .map(|m| one_line(&message_text(m)))
            .find(|t| !t.is_empty())
            .map(|t| cut(&t, TITLE_CHARS))
    }
}

/// What a listing shows of one session.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSummary {
    pub id: String,
    /// The shortest prefix of `id`, at least 8 characters, that names no other session.
    pub short_id: String,
    pub path: PathBuf,
    /// The last `session_info` name (none when that name is blank: a blank name clears it).
    pub name: Option<String>,
    /// The name, else the start of the first user message.
    pub title: Option<String>,
    pub workspace: Option<String>,
    pub started: Option<String>,
    /// The timestamp of the last entry (the header's when there is none).
    pub last_activity: Option<String>,
    /// `message` entries of any role (not counting the opening of a transcript finch created),
    /// and finch's records of calls (`finch.toolCall`: a call and its result, which pi would
    /// have written as messages), so a session of `finch run` or `tool call` counts its calls.
    pub messages: usize,
    /// The `finch.toolCall` records among `messages`.
    pub calls: usize,
}

impl SessionSummary {
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "shortId": self.short_id,
            "title": self.title,
            "name": self.name,
            "workspace": self.workspace,
            "started": self.started,
            "lastActivity": self.last_activity,
            "messages": self.messages,
            "calls": self.calls,
            "path": self.path,
        })
    }
}

/// The fields a summary needs, read without building the rest of the line. A line this cannot
/// read (say, a `message` that is not an object) is read again as a plain JSON value.
#[derive(Deserialize)]
struct LightEntry {
    #[serde(rename = "type")]
    kind: Option<Value>,
    timestamp: Option<Value>,
    name: Option<Value>,
    message: Option<LightMessage>,
    #[serde(rename = "customType")]
    custom_type: Option<Value>,
}

#[derive(Deserialize)]
struct LightMessage {
    role: Option<Value>,
    provider: Option<Value>,
}

/// Reads a transcript for a listing.
pub fn summarize(path: &Path) -> Result<(SessionSummary, Vec<Warning>), SessionError> {
    let mut header: Option<Header> = None;
    let mut first = true;
    let mut summary = SessionSummary {
        id: String::new(),
        short_id: String::new(),
        path: path.to_path_buf(),
        name: None,
        title: None,
        workspace: None,
        started: None,
        last_activity: None,
        messages: 0,
        calls: 0,
    };
    let mut first_user: Option<String> = None;
    let warnings = for_each_line(path, |_, line| {
        let str_of = |v: &Option<Value>| v.as_ref().and_then(Value::as_str).map(str::to_string);
        if first {
            first = false;
            let value = parse_line(line)?;
            header = Header::from_value(&value);
            return Ok(());
        }
        let (kind, timestamp, name, role, finch_said, custom_type) =
            match serde_json::from_slice::<LightEntry>(line) {
                Ok(light) => {
                    let (role, provider) = light
                        .message
                        .map_or((None, None), |m| (str_of(&m.role), str_of(&m.provider)));
                    let finch_said = provider.as_deref() == Some(super::append::OPENING_PROVIDER);
                    (
                        str_of(&light.kind),
                        str_of(&light.timestamp),
                        str_of(&light.name),
                        role,
                        finch_said,
                        str_of(&light.custom_type),
                    )
                }
                Err(_) => {
                    let v = parse_line(line)?;
                    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
                    let role = v.pointer("/message/role").and_then(Value::as_str);
                    (
                        s("type"),
                        s("timestamp"),
                        s("name"),
                        role.map(str::to_string),
                        super::append::is_opening(&v),
                        s("customType"),
                    )
                }
            };
        if timestamp.is_some() {
            summary.last_activity = timestamp;
        }
        match kind.as_deref() {
            Some("message") => {
                // The opening finch writes is only a root for pi (`append::opening`); a
                // finch-made assistant message with content would count.
                let opening = finch_said
                    && role.as_deref() == Some("assistant")
                    && super::append::is_opening(&parse_line(line)?);
                if !opening {
                    summary.messages += 1;
                }
                if first_user.is_none() && role.as_deref() == Some("user") {
                    let value = parse_line(line)?;
                    let text = value.get("message").map(message_text).unwrap_or_default();
                    let text = one_line(&text);
                    if !text.is_empty() {
                        first_user = Some(cut(&text, TITLE_CHARS));
                    }
                }
            }
            Some("custom") if custom_type.as_deref() == Some(TOOL_CALL_RECORD) => {
                summary.messages += 1;
                summary.calls += 1;
            }
            Some("session_info") => {
                // The last name wins; a blank one clears it, as pi reads it.
                summary.name = name.map(|n| n.trim().to_string()).filter(|n| !n.is_empty());
            }
            _ => {}
        }
        Ok(())
    })?;
    let Some(header) = header else {
        return Err(SessionError::NotATranscript {
            path: path.to_path_buf(),
            why: "its first line is not a session header".to_string(),
        });
    };
    summary.short_id = header.id.clone();
    summary.id = header.id;
    summary.workspace = header.cwd;
    summary.last_activity = summary.last_activity.or(header.timestamp.clone());
    summary.started = header.timestamp;
    summary.title = summary.name.clone().or(first_user);
    Ok((summary, warnings))
}

/// The text of a message's content: a string, or the `text` of its text blocks.
pub fn message_text(message: &Value) -> String {
    content_text(message.get("content").unwrap_or(&Value::Null))
}

/// Text of a `content` value: a string, or text blocks joined by newlines. Blocks of other kinds
/// (images, tool calls, thinking) are left out.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            texts.join("\n")
        }
        _ => String::new(),
    }
}

/// An entry described for a person: a heading (`user`, `assistant`, `renamed`, …) and body lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Described {
    pub heading: String,
    pub body: Vec<String>,
}

/// How many lines and characters of a tool result `show` prints.
const RESULT_LINES: usize = 6;
const ARGS_CHARS: usize = 120;
const LINE_CHARS: usize = 200;

/// Describes one entry in words; `None` for the header.
pub fn describe(entry: &Value) -> Option<Described> {
    let kind = entry.get("type").and_then(Value::as_str).unwrap_or("?");
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let d = |heading: String, body: Vec<String>| Some(Described { heading, body });
    match kind {
        "session" => None,
        "message" if super::append::is_opening(entry) => d(
            "opened by finch".into(),
            vec!["(an empty assistant message: the root pi needs to append to the file)".into()],
        ),
        "message" => {
            let empty = Value::Object(Map::new());
            let message = entry.get("message").unwrap_or(&empty);
            let role = message
                .get("role")
                .and_then(Value::as_str)
                .unwrap_or("unknown");
            let mut body = Vec::new();
            let content = message.get("content").unwrap_or(&Value::Null);
            if role == "toolResult" {
                let status = if message.get("isError").and_then(Value::as_bool) == Some(true) {
                    "error"
                } else {
                    "ok"
                };
                body.extend(capped_lines(&content_text(content), RESULT_LINES));
                let heading = format!("tool result {} ({status})", s(message, "toolName"));
                return d(heading, body);
            }
            match content {
                Value::String(text) => body.extend(text.lines().map(str::to_string)),
                Value::Array(blocks) => {
                    for b in blocks {
                        body.extend(describe_block(b));
                    }
                }
                _ => {}
            }
            for key in ["command", "output", "summary"] {
                if let Some(text) = message.get(key).and_then(Value::as_str) {
                    body.extend(capped_lines(text, RESULT_LINES));
                }
            }
            d(role.to_string(), body)
        }
        "session_info" => d("renamed".into(), vec![format!("\"{}\"", s(entry, "name"))]),
        "custom" => {
            let data = entry.get("data").unwrap_or(&Value::Null);
            match entry
                .get("customType")
                .and_then(Value::as_str)
                .unwrap_or("")
            {
                "finch.trustedDir" => d("trusted directory".into(), vec![s(data, "path")]),
                "finch.attachment" => {
                    let size = data.get("size").and_then(Value::as_u64).unwrap_or(0);
                    let line = format!(
                        "{} ({}, {})",
                        s(data, "path"),
                        s(data, "mimeType"),
                        human_size(size)
                    );
                    d("attachment".into(), vec![line])
                }
                "finch.verdict" => {
                    // finch's pi extension (integrations/pi): the verdict on one pi call.
                    let mut line = format!(
                        "{} {} — {} ({})",
                        s(data, "tool"),
                        cut(&compact(data.get("arguments")), ARGS_CHARS),
                        s(data, "decision"),
                        s(data, "decidedBy")
                    );
                    if let Some(answer) = data.get("answer").and_then(Value::as_str) {
                        line.push_str(&format!(", answered {answer}"));
                    }
                    d("verdict".into(), vec![line, s(data, "reason")])
                }
                "finch.toolCall" => {
                    let mut line = format!(
                        "{} {}",
                        s(data, "tool"),
                        cut(&compact(data.get("arguments")), ARGS_CHARS)
                    );
                    if let Some(decision) = data.get("decision").and_then(Value::as_str) {
                        line.push_str(&format!(" — {decision}"));
                    }
                    let mut body = vec![line];
                    if let Some(result) = data.get("result") {
                        let text = match result {
                            Value::String(t) => t.clone(),
                            other => content_text(other.get("content").unwrap_or(other)),
                        };
                        body.extend(capped_lines(&text, RESULT_LINES));
                    }
                    d("tool call".into(), body)
                }
                other => d(
                    format!("custom {other}"),
                    vec![cut(&compact(Some(data)), LINE_CHARS)],
                ),
            }
        }
        "custom_message" => {
            let text = content_text(entry.get("content").unwrap_or(&Value::Null));
            d(
                format!("custom {}", s(entry, "customType")),
                text.lines().map(str::to_string).collect(),
            )
        }
        "model_change" => d(
            "model".into(),
            vec![format!("{}/{}", s(entry, "provider"), s(entry, "modelId"))],
        ),
        "thinking_level_change" => d("thinking level".into(), vec![s(entry, "thinkingLevel")]),
        "compaction" | "branch_summary" => d(
            kind.replace('_', " "),
            capped_lines(&s(entry, "summary"), RESULT_LINES),
        ),
        "label" => d(
            "label".into(),
            vec![format!("{} on {}", s(entry, "label"), s(entry, "targetId"))],
        ),
        other => d(other.to_string(), Vec::new()),
    }
}

fn describe_block(block: &Value) -> Vec<String> {
    let s = |k: &str| block.get(k).and_then(Value::as_str).unwrap_or("");
    match s("type") {
        "text" => s("text").lines().map(str::to_string).collect(),
        "thinking" => vec![format!(
            "(thinking: {})",
            cut(&one_line(s("thinking")), ARGS_CHARS)
        )],
        "toolCall" => vec![format!(
            "→ {} {}",
            s("name"),
            cut(&compact(block.get("arguments")), ARGS_CHARS)
        )],
        "toolResult" => capped_lines(
            &content_text(block.get("content").unwrap_or(&Value::Null)),
            RESULT_LINES,
        ),
        "image" => vec![format!("[image {}]", s("mimeType"))],
        other => vec![format!("[{other}]")],
    }
}

/// At most `max` lines of `text`, each cut to a sensible width, with a note of what was left out.
fn capped_lines(text: &str, max: usize) -> Vec<String> {
    let all: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = all.iter().take(max).map(|l| cut(l, LINE_CHARS)).collect();
    if all.len() > max {
        out.push(format!("… ({} more lines)", all.len() - max));
    }
    out
}

fn compact(value: Option<&Value>) -> String {
    value.map(Value::to_string).unwrap_or_default()
}

/// White space runs become single spaces.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Cuts `text` to `max` characters, marking the cut with `…`.
pub fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `1536` → `1.5 KiB`.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64;
    let mut unit = "B";
    for u in UNITS {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = u;
    }
    format!("{value:.1} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_from_file_names() {
        let cases = [
            (
                "2026-01-15T10-30-00-123Z_0195f3a2-aaaa.jsonl",
                "0195f3a2-aaaa",
            ),
            ("plain.jsonl", "plain"),
            ("a_b_c.jsonl", "c"),
        ];
        for (name, want) in cases {
            assert_eq!(id_from_file_name(Path::new(name)), want, "{name}");
        }
    }

    #[test]
    fn descriptions_summarize_tool_calls_and_results() {
        let call = json!({"type":"message","message":{"role":"assistant","content":[
            {"type":"text","text":"Reading"},
            {"type":"toolCall","name":"read","arguments":{"path":"/a"}}]}});
        assert_eq!(
            describe(&call).unwrap(),
            Described {
                heading: "assistant".into(),
                body: vec!["Reading".into(), "→ read {\"path\":\"/a\"}".into()]
            }
        );
        let long: String = (1..=10).map(|i| format!("line {i}\n")).collect();
        let result = json!({"type":"message","message":{"role":"toolResult","toolName":"read",
            "isError":true,"content":[{"type":"text","text":long}]}});
        let d = describe(&result).unwrap();
        assert_eq!(d.heading, "tool result read (error)");
        assert_eq!(d.body.len(), RESULT_LINES + 1);
        assert_eq!(d.body.last().unwrap(), "… (4 more lines)");
        assert_eq!(describe(&json!({"type":"session"})), None);
        assert_eq!(
            describe(&json!({"type":"brand_new"})).unwrap().heading,
            "brand_new"
        );
    }

    #[test]
    fn a_blank_last_name_clears_the_title_as_pi_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let lines = [
            json!({"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}),
            json!({"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"fix the build"}}),
            json!({"type":"session_info","id":"b","parentId":"a","name":"Named"}),
            json!({"type":"session_info","id":"c","parentId":"b","name":"   "}),
        ];
        let write = |n: usize| {
            let text: String = lines[..n].iter().map(|l| format!("{l}\n")).collect();
            std::fs::write(&path, text).unwrap();
        };
        write(3);
        assert_eq!(
            Transcript::read(&path).unwrap().title().as_deref(),
            Some("Named")
        );
        assert_eq!(summarize(&path).unwrap().0.name.as_deref(), Some("Named"));
        write(4);
        let (summary, _) = summarize(&path).unwrap();
        assert_eq!(summary.name, None);
        assert_eq!(summary.title.as_deref(), Some("fix the build"));
        assert_eq!(
            Transcript::read(&path).unwrap().title().as_deref(),
            Some("fix the build")
        );
    }

    #[test]
    fn sizes() {
        assert_eq!(human_size(10), "10 B");
        assert_eq!(human_size(1536), "1.5 KiB");
        assert_eq!(human_size(20 * 1024 * 1024), "20.0 MiB");
    }
}
