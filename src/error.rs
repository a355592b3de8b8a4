//! The one error type every command returns: a kind (which fixes the exit code), a message, and
//! hints. Domain modules keep their own typed errors; they are turned into a `CommandError` at the
//! command boundary so that printing and exit codes live in one place.

use std::fmt;

/// What went wrong, in the terms of the exit codes of SPEC §2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Exit 1: the command failed.
    Failed,
    /// Exit 2: the command line was wrong.
    Usage,
    /// Exit 3: an id, task, session or file that does not exist.
    NotFound,
    /// Exit 4: the command needs a person (no TTY) or a permission was denied.
    NeedsPerson,
    /// Exit 5: another finch holds a lock.
    Locked,
    /// Exit 130: interrupted by the user.
    Interrupted,
    /// Not an error to report: stdout was closed by the reader (`finch list | head -1`).
    BrokenPipe,
    /// Not an error to report: the exit status of a program finch ran in its own place
    /// (`finch sandbox run`), passed through.
    Exit(u8),
}

impl ErrorKind {
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorKind::Failed => 1,
            ErrorKind::Usage => 2,
            ErrorKind::NotFound => 3,
            ErrorKind::NeedsPerson => 4,
            ErrorKind::Locked => 5,
            ErrorKind::Interrupted => 130,
            ErrorKind::BrokenPipe => 0,
            ErrorKind::Exit(code) => code,
        }
    }

    /// The default `code` of the `--json` error object.
    fn default_code(self) -> &'static str {
        match self {
            ErrorKind::Failed => "failed",
            ErrorKind::Usage => "usage",
            ErrorKind::NotFound => "not_found",
            ErrorKind::NeedsPerson => "needs_person",
            ErrorKind::Locked => "locked",
            ErrorKind::Interrupted => "interrupted",
            ErrorKind::BrokenPipe => "broken_pipe",
            ErrorKind::Exit(_) => "exit",
        }
    }
}

/// An error as the user sees it: `Error: <message>` plus `hint:` lines on stderr, or
/// `{"error":{"code","message","hint"}}` on stdout with `--json`.
#[derive(Debug, Clone)]
pub struct CommandError {
    pub kind: ErrorKind,
    pub code: String,
    pub message: String,
    pub hints: Vec<String>,
    /// The command already printed its JSON document (e.g. a failing `doctor` report), so the
    /// error adds nothing to stdout.
    pub json_reported: bool,
}

impl CommandError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        CommandError {
            kind,
            code: kind.default_code().to_string(),
            message: message.into(),
            hints: Vec::new(),
            json_reported: false,
        }
    }

    pub fn failed(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Failed, message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, message)
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Usage, message)
    }

    pub fn needs_person(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NeedsPerson, message)
    }

    /// A program's own exit status, passed through without a message (`ErrorKind::Exit`).
    pub fn exit(code: u8) -> Self {
        Self::new(ErrorKind::Exit(code), format!("exit status {code}"))
    }

    pub fn broken_pipe() -> Self {
        Self::new(ErrorKind::BrokenPipe, "stdout closed")
    }

    /// A specific machine-readable code for `--json` (`integrity_mismatch`, `corrupt_state`, …).
    pub fn with_code(mut self, code: &str) -> Self {
        self.code = code.to_string();
        self
    }

    /// Marks that stdout already holds this command's JSON document.
    pub fn json_reported(mut self) -> Self {
        self.json_reported = true;
        self
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }

    pub fn with_hints(mut self, hints: impl IntoIterator<Item = String>) -> Self {
        self.hints.extend(hints);
        self
    }

    pub fn exit_code(&self) -> u8 {
        self.kind.exit_code()
    }

    pub fn to_json(&self) -> serde_json::Value {
        let mut error = serde_json::Map::new();
        error.insert("code".into(), self.code.clone().into());
        error.insert("message".into(), self.message.clone().into());
        if !self.hints.is_empty() {
            error.insert("hint".into(), self.hints.join("\n").into());
        }
        serde_json::json!({ "error": error })
    }
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CommandError {}

/// Turns an I/O failure on a named path into a command error.
pub fn io_error(action: &str, path: &std::path::Path, err: &std::io::Error) -> CommandError {
    if err.kind() == std::io::ErrorKind::BrokenPipe {
        return CommandError::broken_pipe();
    }
    CommandError::failed(format!("cannot {action} {}: {err}", path.display()))
}

pub type Result<T, E = CommandError> = std::result::Result<T, E>;
