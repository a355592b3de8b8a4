//! The `Session` dispatcher (SPEC §7, §8.1): searches every transcript, and renames, trusts a
//! directory for, or attaches a file to a session — the current one unless `sessionId` names
//! another — through the same `crate::session` functions as `finch session`, with its `--json`
//! shapes. Trusting a directory for the current session also takes effect at once: the
//! directory joins the session's trusted list, so the file tools may use it on the next call.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::super::output::{Content, ToolOutput};
use super::{About, Action, ActionError, Suite, text};
use crate::error::CommandError;
use crate::homes::{absolutize, expand_tilde};
use crate::host::call::context::CallCx;
use crate::session::{Appended, SearchOptions, SessionError, append, locate, search, since};

/// The CLI's default number of search hits.
const DEFAULT_LIMIT: u64 = 20;

pub struct SessionSuite;

const ABOUT: About = About {
    name: "Session",
    title: "Session",
    description: "Search past sessions' transcripts; rename a session, trust another directory for its \
     file tools, or attach a file to it — the current session unless sessionId names another.",
    keywords: "session conversation chat: search past previous sessions history find an old conversation, trust allow another folder directory access, attach a file to the message, rename set the title of this chat. 会话 对话 聊天 搜索历史会话 以前的对话 聊天记录 信任目录 授权文件夹 允许访问目录 附加文件 添加附件 重命名会话 改名 会话标题 會話 對話 搜尋歷史會話 聊天紀錄 信任目錄 授權資料夾 附加檔案 重新命名 改名 標題",
};

impl Suite for SessionSuite {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn actions(&self) -> Vec<Action> {
        let session_id = json!({
            "type": "string",
            "description": "Another session's id (or a unique prefix of it); default: the current session",
        });
        vec![
            Action {
                name: "search",
                summary: "Search message text and tool names of every session, ranked; each hit names its session and entry",
                params: json!({
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "query": {"type": "string", "description": "Words to find (an entry holding them as a phrase ranks higher)"},
                        "limit": {"type": "integer", "minimum": 0, "description": "At most this many hits (default 20, 0 for all)"},
                        "since": {
                            "type": "string",
                            "description": "Only entries since: a date (2026-03-01), a time (2026-03-01T09:30), an RFC 3339 time, or an age (12h, 7d, 2w)",
                        },
                    },
                    "required": ["query"],
                }),
                example: json!({"action": "search", "query": "release checklist", "since": "7d"}),
            },
            Action {
                name: "extendDir",
                summary: "Trust another existing directory for the session's file tools (stored as its canonical path)",
                params: json!({
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "dir": {"type": "string", "description": "The directory; relative to the session's working directory, `~` for home"},
                        "sessionId": session_id,
                    },
                    "required": ["dir"],
                }),
                example: json!({"action": "extendDir", "dir": "~/notes"}),
            },
            Action {
                name: "attach",
                summary: "Attach a file (at most 20 MiB) to the session's composer draft",
                params: json!({
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "file": {"type": "string", "description": "The file; relative to the session's working directory, `~` for home"},
                        "sessionId": session_id,
                    },
                    "required": ["file"],
                }),
                example: json!({"action": "attach", "file": "report.pdf"}),
            },
            Action {
                name: "rename",
                summary: "Set the session's title",
                params: json!({
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "title": {"type": "string", "description": "The new title"},
                        "sessionId": session_id,
                    },
                    "required": ["title"],
                }),
                example: json!({"action": "rename", "title": "Quarterly report"}),
            },
        ]
    }

    fn run(
        &mut self,
        action: &str,
        args: &Map<String, Value>,
        cx: &mut CallCx,
    ) -> Result<ToolOutput, ActionError> {
        match action {
            "search" => search(args, cx),
            "extendDir" => extend_dir(args, cx),
            "attach" => attach(args, cx),
            "rename" => rename(args, cx),
            other => Err(ActionError::new(format!("Session has no action {other}"))),
        }
    }
}

fn search(args: &Map<String, Value>, cx: &mut CallCx) -> Result<ToolOutput, ActionError> {
    let since = match text(args, "since") {
        Some(t) => Some(since::parse_since_arg(t, cx.env.now_utc()).map_err(CommandError::from)?),
        None => None,
    };
    let limit = args
        .get("limit")
        .and_then(Value::as_u64)
        .unwrap_or(DEFAULT_LIMIT);
    let options = SearchOptions {
        query: text(args, "query").unwrap_or_default().to_string(),
        limit: usize::try_from(limit).unwrap_or(usize::MAX),
        since,
    };
    let results = search::search(&cx.env.homes, &options).map_err(CommandError::from)?;
    let mut output = if results.hits.is_empty() {
        ToolOutput {
            content: vec![Content::Text(format!(
                "No matches in {} session(s). Try other or fewer words, or an earlier `since`.",
                results.sessions_searched
            ))],
            structured: Some(Value::Array(Vec::new())),
            is_error: false,
        }
    } else {
        ToolOutput::json(Value::Array(
            results.hits.iter().map(|h| h.to_json()).collect(),
        ))
    };
    for w in results.warnings {
        output.content.push(Content::Text(format!("warning: {w}")));
    }
    Ok(output)
}

fn extend_dir(args: &Map<String, Value>, cx: &mut CallCx) -> Result<ToolOutput, ActionError> {
    let dir = path_arg(args, "dir", cx)?;
    let now = cx.env.now_utc();
    let timeout = cx.env.settings.lock_timeout;
    let target = target(args, cx)?;
    let (trusted, appended) = match &target.transcript {
        Some(path) => {
            let done = append::extend_dir(path, &dir, now, timeout).map_err(CommandError::from)?;
            let trusted = done
                .entry
                .pointer("/data/path")
                .and_then(Value::as_str)
                .map(PathBuf::from);
            (trusted, Some(done))
        }
        // A session that records no transcript still trusts the directory for its own life.
        None => (Some(canonical_dir(&dir)?), None),
    };
    if target.current
        && let Some(trusted) = trusted
        && !cx.session.trusted.contains(&trusted)
    {
        cx.session.trusted.push(trusted);
    }
    Ok(report(&target.id, appended.as_ref()))
}

fn attach(args: &Map<String, Value>, cx: &mut CallCx) -> Result<ToolOutput, ActionError> {
    let file = path_arg(args, "file", cx)?;
    let target = target(args, cx)?;
    let path = target.recorded()?;
    let done = append::attach(path, &file, cx.env.now_utc(), cx.env.settings.lock_timeout)
        .map_err(CommandError::from)?;
    Ok(report(&target.id, Some(&done)))
}

fn rename(args: &Map<String, Value>, cx: &mut CallCx) -> Result<ToolOutput, ActionError> {
    let title = text(args, "title").unwrap_or_default();
    let target = target(args, cx)?;
    let path = target.recorded()?;
    let done = append::rename(path, title, cx.env.now_utc(), cx.env.settings.lock_timeout)
        .map_err(CommandError::from)?;
    Ok(report(&target.id, Some(&done)))
}

/// The session an action changes.
struct Target {
    id: String,
    /// Its transcript; `None` for a current session that records none.
    transcript: Option<PathBuf>,
    /// Whether it is the session this call runs in.
    current: bool,
}

impl Target {
    fn recorded(&self) -> Result<&Path, ActionError> {
        self.transcript.as_deref().ok_or_else(|| {
            ActionError::new("this session records no transcript, so there is nothing to write to")
                .with_hint("pass `sessionId` to change a recorded session")
        })
    }
}

/// `sessionId`'s session, else the current one.
fn target(args: &Map<String, Value>, cx: &CallCx) -> Result<Target, ActionError> {
    let current_path = cx.session.transcript_path();
    let Some(id) = text(args, "sessionId") else {
        return Ok(Target {
            id: cx.session.id.clone(),
            transcript: current_path.map(Path::to_path_buf),
            current: true,
        });
    };
    let found = locate::resolve(&cx.env.homes, id).map_err(CommandError::from)?;
    let current = found.id == cx.session.id || current_path == Some(found.path.as_path());
    Ok(Target {
        id: found.id,
        transcript: Some(found.path),
        current,
    })
}

/// A path argument: `~` expanded, relative to the session's working directory.
fn path_arg(args: &Map<String, Value>, key: &str, cx: &CallCx) -> Result<PathBuf, ActionError> {
    let given = Path::new(text(args, key).unwrap_or_default());
    let expanded = expand_tilde(given, cx.session.home.as_deref())
        .map_err(|e| ActionError::new(e.to_string()))?;
    Ok(absolutize(&expanded, &cx.session.cwd))
}

/// The checks `append::extend_dir` makes, for a session without a transcript.
fn canonical_dir(dir: &Path) -> Result<PathBuf, ActionError> {
    let canonical = std::fs::canonicalize(dir)
        .map_err(|_| CommandError::from(SessionError::MissingDir(dir.to_path_buf())))?;
    if !canonical.is_dir() {
        return Err(CommandError::from(SessionError::NotADirectory(dir.to_path_buf())).into());
    }
    Ok(canonical)
}

/// The CLI's `--json` report of an append: `{session, path, entry}`.
fn report(session: &str, done: Option<&Appended>) -> ToolOutput {
    ToolOutput::json(json!({
        "session": session,
        "path": done.map(|d| &d.path),
        "entry": done.map(|d| &d.entry),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_are_checked_like_extend_dir_checks_them() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.txt");
        std::fs::write(&file, "x").unwrap();
        let canonical = std::fs::canonicalize(dir.path()).unwrap();
        assert_eq!(canonical_dir(dir.path()), Ok(canonical));
        let e = canonical_dir(&file).unwrap_err();
        assert!(e.message.contains("is not a directory"), "{e:?}");
        let e = canonical_dir(&dir.path().join("missing")).unwrap_err();
        assert!(e.message.starts_with("no such directory"), "{e:?}");
    }
}
