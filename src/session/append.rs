//! Adding entries to a transcript without ever rewriting it: under the lock of the transcript's
//! directory, find the last valid entry (reading the file from its end), then write the new entry
//! as one whole line with a single `write` on an `O_APPEND` handle, and fsync.
//!
//! A new entry gets a fresh 8-hex `id`, `parentId` = the id of the last valid entry (`null` when
//! the header is the only line, as pi writes a first entry), and a `timestamp` (ISO-8601 UTC,
//! milliseconds). When the file does not end with a newline (its last line was cut short), the
//! new line starts with one, so the new entry is whole and the broken line stays as it was.
//!
//! finch appends only entry types the agent core knows: `session_info` (the title) and `custom`
//! entries with finch's `customType`s.
//!
//! A transcript finch creates (`Appender::create`) starts with the header and one more entry, the
//! *opening*: an assistant `message` with no content, `provider`/`api`/`model` `"finch"`, zero
//! usage and `stopReason` `"stop"`, the root every later entry descends from. It is there for pi:
//! pi 0.73 (`SessionManager._persist`) writes nothing to a transcript without an assistant message
//! and then, on its first assistant message, writes every entry it loaded again, header included
//! — a second header and a second root. With the opening in the file pi appends only, so the
//! transcript stays one tree with one header. pi never sends the opening to a model (pi-ai drops
//! assistant messages without content for every provider) and shows nothing for it; when pi
//! resumes such a transcript without `--model`, its interactive mode says it could not restore
//! the model `finch/finch` and uses its default. finch's readers leave the opening out of message
//! counts and `session show` (see `is_opening`).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::SessionError;
use super::transcript::{self, Header};
use crate::store::{DirLock, HeldOpen};

/// The largest file `attach` accepts: 20 MiB.
pub const MAX_ATTACHMENT_BYTES: u64 = 20 * 1024 * 1024;
/// How much of the file's end is read first when looking for the last entry.
const TAIL_WINDOW: u64 = 64 * 1024;

/// An entry written to a transcript.
#[derive(Debug, Clone, PartialEq)]
pub struct Appended {
    pub path: PathBuf,
    pub entry: Value,
}

/// Sets the session's title: a `session_info` entry with `name` (the last one wins).
pub fn rename(
    transcript: &Path,
    title: &str,
    now: DateTime<Utc>,
    lock_timeout: Duration,
) -> Result<Appended, SessionError> {
    let title = title.trim();
    if title.is_empty() {
        return Err(SessionError::EmptyTitle);
    }
    let mut body = Map::new();
    body.insert("type".into(), "session_info".into());
    body.insert("name".into(), title.into());
    append(transcript, body, now, lock_timeout)
}

/// Trusts `dir` for the session's file tools: a `finch.trustedDir` entry with the directory's
/// canonical absolute path. `dir` must exist and be a directory.
pub fn extend_dir(
    transcript: &Path,
    dir: &Path,
    now: DateTime<Utc>,
    lock_timeout: Duration,
) -> Result<Appended, SessionError> {
    let canonical =
        std::fs::canonicalize(dir).map_err(|_| SessionError::MissingDir(dir.to_path_buf()))?;
    if !canonical.is_dir() {
        return Err(SessionError::NotADirectory(dir.to_path_buf()));
    }
    append(
        transcript,
        custom("finch.trustedDir", json!({ "path": canonical })),
        now,
        lock_timeout,
    )
}

/// Pushes `file` into the session's composer draft: a `finch.attachment` entry with the file's
/// canonical path, a MIME type guessed from its extension, and its size. The file must exist, be
/// a regular file, and hold at most 20 MiB.
pub fn attach(
    transcript: &Path,
    file: &Path,
    now: DateTime<Utc>,
    lock_timeout: Duration,
) -> Result<Appended, SessionError> {
    let canonical =
        std::fs::canonicalize(file).map_err(|_| SessionError::MissingFile(file.to_path_buf()))?;
    let meta = std::fs::metadata(&canonical).map_err(|e| SessionError::read(file, e))?;
    if !meta.is_file() {
        return Err(SessionError::NotAFile(file.to_path_buf()));
    }
    if meta.len() > MAX_ATTACHMENT_BYTES {
        return Err(SessionError::TooLarge {
            path: file.to_path_buf(),
            size: meta.len(),
        });
    }
    let data = json!({
        "path": canonical,
        "mimeType": mime_type(&canonical),
        "size": meta.len(),
    });
    append(
        transcript,
        custom("finch.attachment", data),
        now,
        lock_timeout,
    )
}

/// The `provider` (and `api`, `model`) of the opening entry of a transcript finch created.
pub const OPENING_PROVIDER: &str = "finch";

/// The body of the opening entry (see the module docs): an assistant message that says nothing.
pub fn opening(started: DateTime<Utc>) -> Map<String, Value> {
    let zero = json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0});
    let mut usage = zero.clone();
    usage["totalTokens"] = 0.into();
    usage["cost"] = zero;
    usage["cost"]["total"] = 0.into();
    let mut body = Map::new();
    body.insert("type".into(), "message".into());
    body.insert(
        "message".into(),
        json!({
            "role": "assistant",
            "content": [],
            "api": OPENING_PROVIDER,
            "provider": OPENING_PROVIDER,
            "model": OPENING_PROVIDER,
            "usage": usage,
            "stopReason": "stop",
            "timestamp": started.timestamp_millis(),
        }),
    );
    body
}

/// Whether `entry` is the opening entry of a transcript finch created.
pub fn is_opening(entry: &Value) -> bool {
    entry.get("type").and_then(Value::as_str) == Some("message")
        && entry.pointer("/message/role").and_then(Value::as_str) == Some("assistant")
        && entry.pointer("/message/provider").and_then(Value::as_str) == Some(OPENING_PROVIDER)
        && entry
            .pointer("/message/content")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
}

/// A pi extension-state entry body: `{"type":"custom","customType":…,"data":…}`.
pub fn custom(custom_type: &str, data: Value) -> Map<String, Value> {
    let mut body = Map::new();
    body.insert("type".into(), "custom".into());
    body.insert("customType".into(), custom_type.into());
    body.insert("data".into(), data);
    body
}

/// Appends one entry whose fields are `body` (which must hold `type`); `id`, `parentId` and
/// `timestamp` are added here. Returns the entry as written.
pub fn append(
    transcript: &Path,
    body: Map<String, Value>,
    now: DateTime<Utc>,
    lock_timeout: Duration,
) -> Result<Appended, SessionError> {
    let dir = transcript.parent().unwrap_or(Path::new("."));
    let what = format!("the session transcript {}", transcript.display());
    let _lock = DirLock::acquire(dir, &what, lock_timeout)?;

    let read_err = |e| SessionError::read(transcript, e);
    match transcript::read_header(transcript) {
        Ok(Some(_)) => {}
        Ok(None) => {
            return Err(SessionError::NotATranscript {
                path: transcript.to_path_buf(),
                why: "its first line is not a session header".to_string(),
            });
        }
        Err(e) => return Err(read_err(e)),
    }
    let mut file = OpenOptions::new()
        .read(true)
        .append(true)
        .open(transcript)
        .map_err(read_err)?;
    let len = file.metadata().map_err(read_err)?.len();
    let (parent, ends_with_newline) = last_entry(&mut file, len).map_err(read_err)?;

    let mut line = Vec::with_capacity(256);
    if !ends_with_newline {
        line.push(b'\n');
    }
    let start = line.len();
    let id = crate::ids::new_entry_id();
    Entry::from_body(&body, now).write(&mut line, &id, parent.as_deref());
    // Read back from what is written, so the answer is the line exactly.
    let entry = serde_json::from_slice(&line[start..]).unwrap_or(Value::Null);
    let write_err = |source| SessionError::Write {
        path: transcript.to_path_buf(),
        source,
    };
    // One write call: with O_APPEND the kernel places the whole line at the end, so a reader or
    // another appender never sees it interleaved.
    file.write_all(&line).map_err(write_err)?;
    file.sync_all().map_err(write_err)?;
    Ok(Appended {
        path: transcript.to_path_buf(),
        entry,
    })
}

/// The id of the last valid entry (`None` when only the header precedes), and whether the file
/// ends with a newline. Reads backwards from the end, a growing window at a time, so appending
/// to a long transcript does not read all of it.
fn last_entry(file: &mut File, len: u64) -> std::io::Result<(Option<String>, bool)> {
    if len == 0 {
        return Ok((None, true));
    }
    let mut window = TAIL_WINDOW;
    let mut buf = Vec::new();
    let ends_with_newline = loop {
        let start = len.saturating_sub(window);
        buf.clear();
        file.seek(SeekFrom::Start(start))?;
        Read::take(&mut *file, len - start).read_to_end(&mut buf)?;
        let ends_with_newline = buf.last() == Some(&b'\n');
        let mut pieces: Vec<&[u8]> = buf.split(|&b| b == b'\n').collect();
        if start > 0 {
            // The first piece may be the end of a longer line: not a line of its own.
            pieces.remove(0);
        }
        for piece in pieces.iter().rev() {
            let Ok(value) = transcript::parse_line(transcript::trim_line(piece)) else {
                continue;
            };
            if Header::from_value(&value).is_some() {
                return Ok((None, ends_with_newline));
            }
            if let Some(id) = value.get("id").and_then(Value::as_str) {
                return Ok((Some(id.to_string()), ends_with_newline));
            }
        }
        if start == 0 {
            break ends_with_newline;
        }
        window = window.saturating_mul(4);
    };
    Ok((None, ends_with_newline))
}

/// A MIME type from the file's extension; `application/octet-stream` when unknown.
pub fn mime_type(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "bmp" => "image/bmp",
        "ico" => "image/x-icon",
        "heic" => "image/heic",
        "pdf" => "application/pdf",
        "json" => "application/json",
        "zip" => "application/zip",
        "gz" | "tgz" => "application/gzip",
        "tar" => "application/x-tar",
        "doc" => "application/msword",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx" => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "txt" | "log" => "text/plain",
        "md" | "markdown" => "text/markdown",
        "csv" => "text/csv",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "xml" => "application/xml",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" | "tsx" => "text/x-typescript",
        "py" => "text/x-python",
        "rs" => "text/x-rust",
        "sh" => "application/x-sh",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "m4a" => "audio/mp4",
        "mp4" => "video/mp4",
        "mov" => "video/quicktime",
        "webm" => "video/webm",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-02-03T04:05:06.789Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    fn lines(path: &Path) -> Vec<String> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn first_append_after_the_header_has_no_parent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, format!("{HEADER}\n")).unwrap();
        let a = rename(&path, " Title ", now(), Duration::from_secs(1)).unwrap();
        assert_eq!(a.entry["parentId"], Value::Null);
        assert_eq!(a.entry["timestamp"], "2026-02-03T04:05:06.789Z");
        assert_eq!(a.entry["name"], "Title");
        let keys: Vec<&String> = a.entry.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["type", "id", "parentId", "timestamp", "name"]);
        let b = rename(&path, "Again", now(), Duration::from_secs(1)).unwrap();
        assert_eq!(b.entry["parentId"], a.entry["id"]);
        assert_eq!(lines(&path).len(), 3);
    }

    #[test]
    fn a_truncated_last_line_is_kept_and_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let good = r#"{"type":"message","id":"aaaa0001","parentId":null,"timestamp":"T","message":{"role":"user","content":"hi"}}"#;
        let cut = r#"{"type":"message","id":"aaaa0002","parentId":"aaaa0001","mess"#;
        std::fs::write(&path, format!("{HEADER}\n{good}\n{cut}")).unwrap();
        let a = rename(&path, "T", now(), Duration::from_secs(1)).unwrap();
        assert_eq!(a.entry["parentId"], "aaaa0001");
        let all = lines(&path);
        assert_eq!(all[2], cut);
        assert_eq!(
            serde_json::from_str::<Value>(&all[3]).unwrap(),
            a.entry,
            "{all:?}"
        );
    }

    #[test]
    fn the_last_entry_is_found_beyond_the_first_window() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let big = "x".repeat(3 * TAIL_WINDOW as usize);
        let long = format!(
            r#"{{"type":"message","id":"bbbb0001","parentId":null,"timestamp":"T","message":{{"role":"user","content":"{big}"}}}}"#
        );
        std::fs::write(&path, format!("{HEADER}\n{long}\n{{broken\n")).unwrap();
        let a = rename(&path, "T", now(), Duration::from_secs(1)).unwrap();
        assert_eq!(a.entry["parentId"], "bbbb0001");
    }

    #[test]
    fn a_file_without_a_header_is_refused_and_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, "not json\n").unwrap();
        assert!(matches!(
            rename(&path, "T", now(), Duration::from_secs(1)),
            Err(SessionError::NotATranscript { .. })
        ));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "not json\n");
    }

    #[test]
    fn an_appender_writes_batches_in_one_chain_and_follows_other_writers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let header: Value = serde_json::from_str(HEADER).unwrap();
        let lock_timeout = Duration::from_secs(1);
        let mut appender = Appender::create(&path, &header, lock_timeout).unwrap();
        let batch = [
            Entry::custom("finch.toolCall", &json!({"tool": "Read", "n": 1}), now()),
            Entry::custom("finch.toolCall", &json!({"tool": "Read", "n": 2}), now()),
        ];
        appender.append_all(&batch).unwrap();
        // Another writer appends between two batches.
        let theirs = rename(&path, "Theirs", now(), lock_timeout).unwrap();
        appender.append_all(&batch[..1]).unwrap();
        appender.append_all(&[]).unwrap();

        let all: Vec<Value> = lines(&path)
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(all.len(), 6, "{all:?}");
        // The opening: the root, an assistant message that says nothing (see the module docs).
        assert!(is_opening(&all[1]), "{}", all[1]);
        assert_eq!(all[1]["parentId"], Value::Null);
        assert_eq!(all[1]["timestamp"], header["timestamp"]);
        let all = &all[1..];
        let keys: Vec<&String> = all[1].as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            ["type", "id", "parentId", "timestamp", "customType", "data"]
        );
        assert_eq!(all[1]["type"], "custom");
        assert_eq!(all[1]["parentId"], all[0]["id"]);
        assert_eq!(all[1]["timestamp"], "2026-02-03T04:05:06.789Z");
        assert_eq!(all[1]["data"], json!({"tool": "Read", "n": 1}));
        assert_eq!(all[2]["parentId"], all[1]["id"]);
        assert_eq!(all[3], theirs.entry);
        assert_eq!(all[3]["parentId"], all[2]["id"]);
        assert_eq!(all[4]["parentId"], theirs.entry["id"]);
    }

    #[test]
    fn the_opening_is_recognized_and_nothing_else_is() {
        let opening = json!({"type": "message", "id": "a", "parentId": null,
            "message": Value::Object(opening(now())["message"].as_object().unwrap().clone())});
        assert!(is_opening(&opening));
        let mut pi = opening.clone();
        pi["message"]["provider"] = "openai".into();
        assert!(!is_opening(&pi));
        let mut said = opening.clone();
        said["message"]["content"] = json!([{"type": "text", "text": "hi"}]);
        assert!(!is_opening(&said));
        assert!(!is_opening(&json!({"type": "custom"})));
    }

    #[test]
    fn entry_ids_are_8_hex_and_differ() {
        let ids: std::collections::HashSet<String> =
            (0..200).map(|_| crate::ids::new_entry_id()).collect();
        assert_eq!(ids.len(), 200);
        assert!(
            ids.iter()
                .all(|i| i.len() == 8 && i.chars().all(|c| c.is_ascii_hexdigit()))
        );
    }

    #[test]
    fn mime_types() {
        for (name, want) in [
            ("a.PNG", "image/png"),
            ("b.jpeg", "image/jpeg"),
            ("c.pdf", "application/pdf"),
            ("d.md", "text/markdown"),
            ("e", "application/octet-stream"),
            ("f.weird", "application/octet-stream"),
        ] {
            assert_eq!(mime_type(Path::new(name)), want, "{name}");
        }
    }
}

/// An open transcript that one process appends to many times (a `finch run` recording its
/// calls). Each append takes the directory lock like `append`, but the last entry's id is
/// remembered and the file is re-read only when its length shows another writer appended in
/// between; lines are not fsynced one by one (`sync` at the end of the run) — a crash may lose
/// the last records of a run, never corrupt earlier lines.
#[derive(Debug)]
pub struct Appender {
    path: PathBuf,
    file: File,
    lock: HeldOpen,
    last_id: Option<String>,
    ends_with_newline: bool,
    known_len: u64,
    lock_timeout: Duration,
}

impl Appender {
    /// Creates a new transcript at `path` holding only `header` (the `session` line).
    pub fn create(
        path: &Path,
        header: &Value,
        lock_timeout: Duration,
    ) -> Result<Appender, SessionError> {
        let write_err = |source| SessionError::Write {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(write_err)?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create_new(true)
            .open(path)
            .map_err(write_err)?;
        let mut line = header.to_string().into_bytes();
        line.push(b'\n');
        let started = header
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
            .map_or_else(Utc::now, |t| t.with_timezone(&Utc));
        let id = crate::ids::new_entry_id();
        Entry::from_body(&opening(started), started).write(&mut line, &id, None);
        // Header and opening in one write: a reader never sees a transcript without its opening.
        file.write_all(&line).map_err(write_err)?;
        Ok(Appender {
            lock: transcript_lock(path)?,
            path: path.to_path_buf(),
            file,
            last_id: Some(id),
            ends_with_newline: true,
            known_len: line.len() as u64,
            lock_timeout,
        })
    }

    /// Opens an existing transcript to continue it.
    pub fn open(path: &Path, lock_timeout: Duration) -> Result<Appender, SessionError> {
        match transcript::read_header(path) {
            Ok(Some(_)) => {}
            Ok(None) => {
                return Err(SessionError::NotATranscript {
                    path: path.to_path_buf(),
                    why: "its first line is not a session header".to_string(),
                });
            }
            Err(e) => return Err(SessionError::read(path, e)),
        }
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(path)
            .map_err(|e| SessionError::read(path, e))?;
        Ok(Appender {
            lock: transcript_lock(path)?,
            path: path.to_path_buf(),
            file,
            last_id: None,
            ends_with_newline: true,
            // Unknown: the first append reads the tail.
            known_len: u64::MAX,
            lock_timeout,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `entries` in order, each linked to the one before, with one lock hold and one
    /// `write`.
    pub fn append_all(&mut self, entries: &[Entry]) -> Result<(), SessionError> {
        if entries.is_empty() {
            return Ok(());
        }
        let _hold = self.lock.hold(self.lock_timeout)?;
        let read_err = |e| SessionError::read(&self.path, e);
        let len = self.file.metadata().map_err(read_err)?.len();
        if len != self.known_len {
            let (last, ends) = last_entry(&mut self.file, len).map_err(read_err)?;
            self.last_id = last;
            self.ends_with_newline = ends;
        }
        let mut line = Vec::with_capacity(entries.iter().map(|e| e.rest.len() + 128).sum());
        if !self.ends_with_newline {
            line.push(b'\n');
        }
        let mut parent = self.last_id.clone();
        for entry in entries {
            let id = crate::ids::new_entry_id();
            entry.write(&mut line, &id, parent.as_deref());
            parent = Some(id);
        }
        self.file
            .write_all(&line)
            .map_err(|source| SessionError::Write {
                path: self.path.clone(),
                source,
            })?;
        self.known_len = len + line.len() as u64;
        self.last_id = parent;
        self.ends_with_newline = true;
        Ok(())
    }

    /// Flushes the transcript to disk.
    pub fn sync(&self) -> Result<(), SessionError> {
        self.file.sync_all().map_err(|source| SessionError::Write {
            path: self.path.clone(),
            source,
        })
    }
}

/// An entry on its way to a transcript: its `type`, its time, and its other fields already
/// serialized; `id` and `parentId` are given when it is written, as `type`, `id`, `parentId`,
/// `timestamp`, then the rest in order (the one place that shapes an entry's line).
#[derive(Debug, Clone)]
pub struct Entry {
    kind: String,
    timestamp: String,
    /// `"key":value` pairs, comma-separated, without braces.
    rest: Vec<u8>,
}

impl Entry {
    /// A pi extension-state entry: `customType` and `data` (see `custom`).
    pub fn custom(custom_type: &str, data: &impl Serialize, now: DateTime<Utc>) -> Entry {
        let mut rest = Vec::with_capacity(256);
        rest.extend_from_slice(b"\"customType\":");
        push_json(&mut rest, custom_type);
        rest.extend_from_slice(b",\"data\":");
        push_json(&mut rest, data);
        Entry {
            kind: "custom".into(),
            timestamp: timestamp(now),
            rest,
        }
    }

    /// An entry of the fields of `body` (which holds `type`), in their order.
    pub fn from_body(body: &Map<String, Value>, now: DateTime<Utc>) -> Entry {
        let mut rest = Vec::new();
        for (key, value) in body.iter().filter(|(key, _)| *key != "type") {
            if !rest.is_empty() {
                rest.push(b',');
            }
            push_json(&mut rest, key);
            rest.push(b':');
            push_json(&mut rest, value);
        }
        Entry {
            kind: body
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .into(),
            timestamp: timestamp(now),
            rest,
        }
    }

    /// Adds the entry's line, newline included, to `line`.
    fn write(&self, line: &mut Vec<u8>, id: &str, parent: Option<&str>) {
        line.extend_from_slice(b"{\"type\":");
        push_json(line, &self.kind);
        line.extend_from_slice(b",\"id\":");
        push_json(line, id);
        line.extend_from_slice(b",\"parentId\":");
        push_json(line, &parent);
        line.extend_from_slice(b",\"timestamp\":");
        push_json(line, &self.timestamp);
        if !self.rest.is_empty() {
            line.push(b',');
            line.extend_from_slice(&self.rest);
        }
        line.extend_from_slice(b"}\n");
    }
}

/// Adds `value` as JSON to `out`; what cannot be serialized (a map with keys that are not
/// strings — no caller passes one) becomes `null`, so a line is never cut short.
fn push_json(out: &mut Vec<u8>, value: &(impl Serialize + ?Sized)) {
    let mark = out.len();
    if serde_json::to_writer(&mut *out, value).is_err() {
        out.truncate(mark);
        out.extend_from_slice(b"null");
    }
}

/// An entry's `timestamp`: ISO-8601 UTC with milliseconds.
fn timestamp(now: DateTime<Utc>) -> String {
    now.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The lock of a transcript's directory, kept open for a run's many appends.
fn transcript_lock(path: &Path) -> Result<HeldOpen, SessionError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let what = format!("the session transcript {}", path.display());
    Ok(HeldOpen::open(dir, &what)?)
}
