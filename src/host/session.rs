//! The state of one host session: where it runs (cwd, trusted directories), its permission mode,
//! which dynamic tools it activated, what the person allowed for the session, the to-do list,
//! and the transcript every call is recorded in (SPEC §7, §8.2–§8.4).
//!
//! A session is new (a fresh transcript under `<runtime>/pi/sessions/<slug>/`) or continues an
//! existing transcript, whose trusted directories and latest to-do list are read back.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;
use serde_json::{Value, json};

use super::call::confine::Grants;
use super::policy::{Mode, Workspace};
use crate::session::SessionError;
use crate::session::append::{Appender, Entry};
use crate::session::transcript::{self, Transcript};

/// The custom entry type of a to-do list written by `TodoWrite`.
pub const TODOS_ENTRY: &str = "finch.todos";
/// The custom entry type of one call of a run.
pub const TOOL_CALL_ENTRY: &str = transcript::TOOL_CALL_RECORD;
/// The custom entry type of a trusted directory.
pub const TRUSTED_DIR_ENTRY: &str = "finch.trustedDir";
/// The most entries that wait while writing is deferred (see `SessionState::defer_records`).
const MAX_PENDING: usize = 64;

/// Everything a run remembers between calls.
#[derive(Debug)]
pub struct SessionState {
    /// The session id (the transcript header's `id`).
    pub id: String,
    pub cwd: PathBuf,
    /// Where relative rule globs are matched from.
    pub project: PathBuf,
    /// Directories the file tools may use besides `cwd`.
    pub trusted: Vec<PathBuf>,
    pub mode: Mode,
    /// Dynamic tools activated by ToolSearch (model-facing names).
    pub active: HashSet<String>,
    /// Card keys the person answered "Allow for this session".
    pub allowed_for_session: HashSet<String>,
    /// Tool names `--approve` answers "allow" for.
    pub approve: Vec<String>,
    /// Mini tools whose tools' cards offer "Allow for this session", which a mini tool's card
    /// otherwise never does: under `finch dev` the package under development, whose author
    /// is the one at the terminal.
    pub session_allow_owners: Vec<String>,
    /// What the run's flags grant walled calls (`--allow-read`, `--allow-write`,
    /// `--allow-network`, `--unsandboxed`).
    pub grants: Grants,
    /// The to-do list (`TodoWrite`), as the model last wrote it.
    pub todos: Value,
    /// The user's home, for `~` in paths.
    pub home: Option<PathBuf>,
    transcript: Option<Appender>,
    /// Entries recorded but not yet written, while writing is deferred (`defer_records`).
    pending: Option<Vec<Entry>>,
    /// `cwd` held open once the file tools first ask (see `cwd_dir`); shared with snapshots.
    cwd_dir: Arc<OnceLock<Option<std::fs::File>>>,
    /// This run started the transcript and has not given it a title yet (`title_if_new`).
    untitled_new: bool,
    /// The title `sync` writes unless the run named the session itself.
    pending_title: Option<(String, DateTime<Utc>)>,
    /// This run created the transcript (`start_transcript`), so `forget_run` may remove it.
    created: bool,
}

impl SessionState {
    /// A session with no transcript (for tests and one-off checks).
    pub fn detached(cwd: PathBuf, project: PathBuf, mode: Mode, home: Option<PathBuf>) -> Self {
        SessionState {
            id: crate::ids::new_session_id(),
            cwd,
            project,
            trusted: Vec::new(),
            mode,
            active: HashSet::new(),
            allowed_for_session: HashSet::new(),
            approve: Vec::new(),
            session_allow_owners: Vec::new(),
            grants: Grants::default(),
            todos: Value::Array(Vec::new()),
            home,
            transcript: None,
            pending: None,
            cwd_dir: Arc::default(),
            untitled_new: false,
            pending_title: None,
            created: false,
        }
    }

    /// Starts a new transcript in `sessions_dir` for this session.
    pub fn start_transcript(
        &mut self,
        sessions_dir: &Path,
        now: DateTime<Utc>,
        lock_timeout: Duration,
    ) -> Result<(), SessionError> {
        let started = now.to_rfc3339_opts(SecondsFormat::Millis, true);
        let path = transcript::new_transcript_path(sessions_dir, &self.cwd, &started, &self.id);
        let header = json!({
            "type": "session",
            "version": 3,
            "id": self.id,
            "timestamp": started,
            "cwd": self.cwd,
        });
        self.transcript = Some(Appender::create(&path, &header, lock_timeout)?);
        self.untitled_new = true;
        self.created = true;
        Ok(())
    }

    /// Gives a transcript this run started a title that says what the run was, e.g. `tool
    /// call: Read notes.txt`, so `session list` shows it instead of an empty row. The first
    /// title asked for is kept and written by `sync` as a `session_info` entry (what `finch
    /// session rename` writes), unless the run named the session itself by then (the Session
    /// tool's rename). A continued session keeps its own title.
    pub fn title_if_new(&mut self, title: &str, now: DateTime<Utc>) {
        let title = title.trim();
        if self.untitled_new && self.pending_title.is_none() && !title.is_empty() {
            self.pending_title = Some((title.to_string(), now));
        }
    }

    /// Whether `title_if_new` would still take a title.
    pub fn wants_title(&self) -> bool {
        self.untitled_new && self.pending_title.is_none()
    }

    /// Writes the pending title when the transcript has none of its own.
    fn write_title(&mut self) -> Result<(), SessionError> {
        let Some((title, now)) = self.pending_title.take() else {
            return Ok(());
        };
        self.untitled_new = false;
        let Some(path) = self.transcript_path() else {
            return Ok(());
        };
        // Entries are written `{"type":"session_info",…` (`Entry::write`, `append::rename`).
        let named = std::fs::read(path).is_ok_and(|bytes| {
            memchr::memmem::find(&bytes, b"{\"type\":\"session_info\"").is_some()
        });
        if named {
            return Ok(());
        }
        let mut body = serde_json::Map::new();
        body.insert("type".into(), "session_info".into());
        body.insert("name".into(), title.into());
        self.push(Entry::from_body(&body, now))?;
        self.flush_records()
    }

    /// Continues the transcript at `path`: takes its id, and reads back its trusted
    /// directories and latest to-do list.
    pub fn continue_transcript(
        &mut self,
        path: &Path,
        lock_timeout: Duration,
    ) -> Result<(), SessionError> {
        let read = Transcript::read(path)?;
        self.id = read.header.id.clone();
        for entry in &read.entries {
            if entry.get("type").and_then(Value::as_str) != Some("custom") {
                continue;
            }
            let data = entry.get("data");
            match entry.get("customType").and_then(Value::as_str) {
                Some(TRUSTED_DIR_ENTRY) => {
                    if let Some(p) = data.and_then(|d| d.get("path")).and_then(Value::as_str) {
                        let p = PathBuf::from(p);
                        if !self.trusted.contains(&p) {
                            self.trusted.push(p);
                        }
                    }
                }
                Some(TODOS_ENTRY) => {
                    if let Some(todos) = data.and_then(|d| d.get("todos")) {
                        self.todos = todos.clone();
                    }
                }
                _ => {}
            }
        }
        self.transcript = Some(Appender::open(path, lock_timeout)?);
        Ok(())
    }

    /// The transcript file, when the session records one.
    pub fn transcript_path(&self) -> Option<&Path> {
        self.transcript.as_ref().map(Appender::path)
    }

    /// Appends a `custom` entry to the transcript (nothing when the session records none).
    /// While writing is deferred, the entry waits with the others and is written with them
    /// (at once when `MAX_PENDING` wait).
    pub fn record(
        &mut self,
        custom_type: &str,
        data: &impl Serialize,
        now: DateTime<Utc>,
    ) -> Result<(), SessionError> {
        self.push(Entry::custom(custom_type, data, now))
    }

    /// Writes `entry`, or lets it wait with the others while writing is deferred.
    fn push(&mut self, entry: Entry) -> Result<(), SessionError> {
        let Some(transcript) = &mut self.transcript else {
            return Ok(());
        };
        match &mut self.pending {
            Some(pending) => {
                // Said before the entry waits, so a stop signal never ends the process with
                // an entry waiting unannounced.
                crate::host::control::records_wait(true);
                pending.push(entry);
                if pending.len() >= MAX_PENDING {
                    self.flush_records()?;
                }
                Ok(())
            }
            None => transcript.append_all(std::slice::from_ref(&entry)),
        }
    }

    /// From now on, defers writing recorded entries until `flush_records` (or until
    /// `MAX_PENDING` of them wait), so that a burst of calls costs one write.
    pub fn defer_records(&mut self) {
        self.pending.get_or_insert_with(Vec::new);
    }

    /// Whether recorded entries wait to be written.
    pub fn has_pending_records(&self) -> bool {
        self.pending.as_ref().is_some_and(|p| !p.is_empty())
    }

    /// Writes the entries that wait, in one append. Entries that could not be written are
    /// dropped with the error (as a failed single append would drop its entry). With nothing
    /// left waiting, a stop signal that came meanwhile ends the process here
    /// (`control::records_wait`).
    pub fn flush_records(&mut self) -> Result<(), SessionError> {
        let (Some(transcript), Some(pending)) = (&mut self.transcript, &mut self.pending) else {
            return Ok(());
        };
        if pending.is_empty() {
            return Ok(());
        }
        let written = transcript.append_all(&std::mem::take(pending));
        crate::host::control::records_wait(false);
        written
    }

    /// Leaves no trace of this run in the transcript: drops the records that wait (writing
    /// must have been deferred, `defer_records`) and the pending title, and removes the
    /// transcript if this run created it (its workspace's directory stays: its lock file may
    /// be open in another finch). What `finch tool call` does after a refused call or an
    /// unknown tool.
    pub fn forget_run(&mut self) -> Result<(), SessionError> {
        if self.pending.take().is_some() {
            crate::host::control::records_wait(false);
        }
        self.pending_title = None;
        self.untitled_new = false;
        if !std::mem::take(&mut self.created) {
            return Ok(());
        }
        let Some(appender) = self.transcript.take() else {
            return Ok(());
        };
        let path = appender.path().to_path_buf();
        drop(appender);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(SessionError::Write { path, source }),
        }
        Ok(())
    }

    /// Writes what waits and flushes the transcript to disk (end of a run).
    pub fn sync(&mut self) -> Result<(), SessionError> {
        self.flush_records()?;
        self.write_title()?;
        match &self.transcript {
            Some(t) => t.sync(),
            None => Ok(()),
        }
    }

    /// The session as a call running outside the host sees it (a built-in's job): the same
    /// id, directories, mode and open working directory; no activations, answers, to-dos or
    /// transcript.
    pub fn snapshot(&self) -> SessionState {
        SessionState {
            id: self.id.clone(),
            cwd: self.cwd.clone(),
            project: self.project.clone(),
            trusted: self.trusted.clone(),
            mode: self.mode,
            active: HashSet::new(),
            allowed_for_session: HashSet::new(),
            approve: Vec::new(),
            session_allow_owners: Vec::new(),
            grants: Grants::default(),
            todos: Value::Null,
            home: self.home.clone(),
            transcript: None,
            pending: None,
            cwd_dir: Arc::clone(&self.cwd_dir),
            untitled_new: false,
            pending_title: None,
            created: false,
        }
    }

    /// Where the file tools may work, as the gateway sees it.
    pub fn workspace(&self) -> Workspace {
        Workspace {
            cwd: self.cwd.clone(),
            project: self.project.clone(),
            trusted: self.trusted.clone(),
            home: self.home.clone(),
            runtime: None,
        }
    }

    /// The working directory, held open (from the first call on) so that files can be opened
    /// beneath it; `None` when it cannot be opened. It is the directory `cwd` named when it was
    /// first asked for, even if that directory is renamed later.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub fn cwd_dir(&self) -> Option<&std::fs::File> {
        self.cwd_dir
            .get_or_init(|| {
                let dir = std::fs::File::open(&self.cwd).ok()?;
                dir.metadata().ok()?.is_dir().then_some(dir)
            })
            .as_ref()
    }

    /// Whether `path` (absolute) lies in the working directory or a trusted directory.
    pub fn contains(&self, path: &Path) -> bool {
        path.starts_with(&self.cwd) || self.trusted.iter().any(|t| path.starts_with(t))
    }
}
