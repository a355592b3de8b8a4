//! Session transcripts (SPEC §7): pi-format JSON Lines files under `<runtime>/pi/sessions/**`,
//! shared by `finch session` and, later, the host's `Session` dispatcher tool.
//!
//! Reading is tolerant: unknown entry types are carried along, and a line that is not JSON (most
//! often a last line cut short by a crash) is skipped with a warning — a transcript is never
//! rewritten to repair it. Writing is append-only: one whole line per change, under the lock of
//! the transcript's directory (see `append`). Nothing here prints or knows about clap; results
//! and warnings are returned to the caller.

pub mod append;
pub mod entry_text;
pub mod locate;
pub mod search;
pub mod since;
pub mod transcript;

use std::path::PathBuf;

use crate::error::{CommandError, ErrorKind};
use crate::store::LockError;

pub use append::{Appended, MAX_ATTACHMENT_BYTES};
pub use locate::{SessionRef, list, resolve};
pub use search::{SearchHit, SearchOptions, SearchResults};
pub use transcript::{Header, SessionSummary, Transcript};

/// Something worth telling the user that did not stop the command (a skipped line, an
/// unreadable transcript in a listing).
pub type Warning = String;

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("no session matches \"{0}\"")]
    NotFound(String),
    #[error("\"{query}\" matches {} sessions", candidates.len())]
    Ambiguous {
        query: String,
        candidates: Vec<SessionRef>,
    },
    #[error("a session id is needed")]
    EmptyId,
    #[error("{} is not a session transcript: {why}", path.display())]
    NotATranscript { path: PathBuf, why: String },
    #[error("no such directory: {}", .0.display())]
    MissingDir(PathBuf),
    #[error("{} is not a directory", .0.display())]
    NotADirectory(PathBuf),
    #[error("no such file: {}", .0.display())]
    MissingFile(PathBuf),
    #[error("{} is not a regular file", .0.display())]
    NotAFile(PathBuf),
    #[error(
        "{} is {size} bytes; attachments are limited to 20 MiB ({} bytes)",
        path.display(),
        MAX_ATTACHMENT_BYTES
    )]
    TooLarge { path: PathBuf, size: u64 },
    #[error("the title is empty")]
    EmptyTitle,
    #[error("the query has no words to search for")]
    EmptyQuery,
    #[error("cannot search for this query: {0}")]
    Query(String),
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("--since {0:?} is not a date, time or age")]
    BadSince(String),
    #[error(transparent)]
    Lock(#[from] LockError),
}

/// Session errors as exit codes: unknown ids and missing paths are "not found" (3), a held lock
/// is 5, a bad query or `--since` or an id that begins several is usage (2), everything else 1.
impl From<SessionError> for CommandError {
    fn from(err: SessionError) -> CommandError {
        let message = err.to_string();
        match err {
        SessionError::NotFound(_) => CommandError::not_found(message)
            .with_hint("run `finch session list` to see session ids"),
        SessionError::MissingDir(_) | SessionError::MissingFile(_) => {
            CommandError::not_found(message)
        }
        SessionError::Ambiguous { query, candidates } => {
            let lines: Vec<String> = candidates.iter().map(describe_candidate).collect();
            CommandError::usage(format!(
                "\"{query}\" matches {} sessions:\n{}",
                candidates.len(),
                lines.join("\n")
            ))
            .with_code("ambiguous_id")
            .with_hint("give more characters of the id")
        }
        SessionError::EmptyId | SessionError::EmptyQuery => CommandError::usage(message),
        SessionError::BadSince(_) => CommandError::usage(message).with_hint(
            "use a date (2026-03-01), a time (2026-03-01T09:30) or an age (12h, 7d, 2w)",
        ),
        SessionError::NotATranscript { .. } => CommandError::failed(message)
            .with_code("not_a_transcript")
            .with_hint("the file is left as it is; move it out of the sessions directory if it is not a session"),
        SessionError::TooLarge { .. } => CommandError::failed(message).with_code("too_large"),
        SessionError::NotADirectory(_) => {
            CommandError::failed(message).with_code("not_a_directory")
        }
        SessionError::NotAFile(_) => CommandError::failed(message).with_code("not_a_file"),
        SessionError::Lock(LockError::Held { .. }) => {
            CommandError::new(ErrorKind::Locked, message)
        }
        _ => CommandError::failed(message),
    }
    }
}

fn describe_candidate(s: &SessionRef) -> String {
    let header = s.header.as_ref();
    let started = header.and_then(|h| h.timestamp.as_deref()).unwrap_or("?");
    let cwd = header.and_then(|h| h.cwd.as_deref()).unwrap_or("?");
    format!("  {}  started {started}  in {cwd}", s.id)
}

impl SessionError {
    pub(crate) fn read(path: &std::path::Path, source: std::io::Error) -> SessionError {
        SessionError::Read {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Runs `f` over `items` on a few threads and returns the results in the order of `items`.
/// Transcripts are independent files, so reading them is spread over the cores.
pub(crate) fn par_map<I: Sync, T: Send>(items: &[I], f: impl Fn(&I) -> T + Sync) -> Vec<T> {
    par_map_with(items, || (), |_, item| f(item))
}

/// `par_map` where each thread keeps a state made by `init` (say, a read buffer) across items.
pub(crate) fn par_map_with<I: Sync, S, T: Send>(
    items: &[I],
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, &I) -> T + Sync,
) -> Vec<T> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len())
        .clamp(1, 16);
    if threads == 1 {
        let mut state = init();
        return items.iter().map(|item| f(&mut state, item)).collect();
    }
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<T>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    let done: Vec<Vec<(usize, T)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut state = init();
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        out.push((i, f(&mut state, item)));
                    }
                    out
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    for (i, value) in done.into_iter().flatten() {
        slots[i] = Some(value);
    }
    slots.into_iter().flatten().collect()
}
