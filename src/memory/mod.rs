//! The agent's memory files (SPEC §5): long-term `MEMORY.md`, the profile `USER.md`, daily logs
//! `memory/YYYY-MM-DD.md`, space memory `memory/spaces/<name>.md` and `memory/lessons.md`.
//! Remembering, replacing and forgetting entries, searching, listing, showing files and pruning
//! old daily logs, as plain functions over paths, a clock value and inputs that return typed
//! results — shared by `finch memory` and the host's `Memory` dispatcher tool. Nothing here
//! prints, parses a command line or looks at a terminal, and nothing here reads the real clock.
//!
//! Every change locks the changed file's directory and replaces the file atomically; an edit
//! changes the bytes of one entry and no others (see `doc` for what an entry is). A file that is
//! not UTF-8 is never rewritten: changing it is an error, reading many files skips it.

pub mod doc;
mod edit;
mod files;
mod prune;
mod report;
mod search;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use chrono::NaiveDate;

use crate::store::LockError;

pub use edit::{EntryMatch, Forgotten, Remembered, Replaced, forget, remember, replace};
pub use files::{list, resolve_file, show};
pub use prune::{prune, prune_candidates};
pub use report::{
    SNIPPET_CHARS, entry_json, hit_json, match_error, no_files, selection, show_json,
};
pub use search::{Hit, SearchRequest, SearchResults, search};

/// Where the memory files live, and how long to wait for another finch's lock.
#[derive(Debug, Clone)]
pub struct MemoryHome {
    /// The agent home; file names are shown relative to it.
    pub agent: PathBuf,
    pub lock_timeout: Duration,
}

impl MemoryHome {
    pub fn new(agent: impl Into<PathBuf>, lock_timeout: Duration) -> MemoryHome {
        MemoryHome {
            agent: agent.into(),
            lock_timeout,
        }
    }

    /// `<agent>/memory`: daily logs, lessons and the spaces directory.
    pub fn memory_dir(&self) -> PathBuf {
        self.agent.join("memory")
    }

    pub fn spaces_dir(&self) -> PathBuf {
        self.memory_dir().join("spaces")
    }

    /// The file of one kind.
    pub fn file(&self, kind: FileKind) -> MemoryFile {
        let name = match &kind {
            FileKind::LongTerm => "MEMORY.md".to_string(),
            FileKind::Profile => "USER.md".to_string(),
            FileKind::Lessons => "memory/lessons.md".to_string(),
            FileKind::Space(s) => format!("memory/spaces/{s}.md"),
            FileKind::Daily(d) => format!("memory/{}.md", d.format("%Y-%m-%d")),
        };
        let path = name.split('/').fold(self.agent.clone(), |p, c| p.join(c));
        MemoryFile { kind, path, name }
    }
}

/// What a memory file is for.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileKind {
    LongTerm,
    Profile,
    Lessons,
    Space(String),
    Daily(NaiveDate),
}

impl FileKind {
    pub fn is_daily(&self) -> bool {
        matches!(self, FileKind::Daily(_))
    }
}

/// One memory file: its kind, absolute path and its name relative to the agent home (with `/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryFile {
    pub kind: FileKind,
    pub path: PathBuf,
    pub name: String,
}

impl MemoryFile {
    /// The directory whose lock guards changes to this file.
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }
}

/// Where `remember` writes (`--to`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    LongTerm,
    Daily,
    Space(String),
    Lessons,
    Profile,
}

impl Target {
    /// Parses `long-term`, `daily`, `space:<name>`, `lessons` or `profile`.
    pub fn parse(text: &str) -> Result<Target, MemoryError> {
        Ok(match text {
            "long-term" => Target::LongTerm,
            "daily" => Target::Daily,
            "lessons" => Target::Lessons,
            "profile" => Target::Profile,
            _ => match text.strip_prefix("space:") {
                Some(name) => Target::Space(valid_space(name)?),
                None => return Err(MemoryError::BadTarget(text.to_string())),
            },
        })
    }

    /// The file this target means on `today`.
    pub fn kind(&self, today: NaiveDate) -> FileKind {
        match self {
            Target::LongTerm => FileKind::LongTerm,
            Target::Daily => FileKind::Daily(today),
            Target::Space(s) => FileKind::Space(s.clone()),
            Target::Lessons => FileKind::Lessons,
            Target::Profile => FileKind::Profile,
        }
    }
}

/// Which files `search` and `list` read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    #[default]
    All,
    LongTerm,
    Daily,
    Spaces,
    Lessons,
    Profile,
}

impl Scope {
    /// A scope by the name `--scope` and the `Memory` tool take (`long-term`, …).
    pub fn parse(name: &str) -> Option<Scope> {
        Some(match name {
            "all" => Scope::All,
            "long-term" => Scope::LongTerm,
            "daily" => Scope::Daily,
            "spaces" => Scope::Spaces,
            "lessons" => Scope::Lessons,
            "profile" => Scope::Profile,
            _ => return None,
        })
    }
}

/// Files chosen by scope, one space, and a date range (inclusive). A daily log's date is in its
/// name; any other file's date is the local date of its last change.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub scope: Scope,
    pub space: Option<String>,
    pub since: Option<NaiveDate>,
    pub until: Option<NaiveDate>,
}

/// One entry of a memory file.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub id: String,
    pub file: Arc<MemoryFile>,
    /// 1-based line of the entry's list marker.
    pub line: usize,
    /// The daily log's date, or the local date of the file's last change.
    pub date: Option<NaiveDate>,
    /// The heading the entry sits under.
    pub section: Option<String>,
    /// The entry as one line: marker removed, white space collapsed (a daily `HH:MM ` kept).
    pub text: String,
    /// For a sub-item (a list item nested in an entry): the id of the item it is nested in.
    pub parent: Option<String>,
}

impl Entry {
    fn from_doc(
        d: &doc::Document,
        i: usize,
        file: &Arc<MemoryFile>,
        date: Option<NaiveDate>,
    ) -> Entry {
        let text = d.entry_text(i);
        Entry {
            id: doc::entry_id(doc::normalize(&text, file.kind.is_daily())),
            file: Arc::clone(file),
            line: d.entries[i].first_line + 1,
            date,
            section: d.entry_section(i).map(str::to_string),
            text,
            parent: None,
        }
    }

    /// Every entry and sub-item of a document (`doc::Document::items`), in file order.
    pub(crate) fn all_of(
        d: &doc::Document,
        items: &[doc::Item],
        file: &Arc<MemoryFile>,
        date: Option<NaiveDate>,
    ) -> Vec<Entry> {
        let daily = file.kind.is_daily();
        let mut out: Vec<Entry> = Vec::with_capacity(items.len());
        for item in items {
            let text = d.span_text(&item.span);
            let parent = item.parent.map(|p| out[p].id.clone());
            out.push(Entry {
                id: doc::entry_id(doc::normalize(&text, daily)),
                file: Arc::clone(file),
                line: item.span.first_line + 1,
                date,
                section: d.entry_section(item.top).map(str::to_string),
                text,
                parent,
            });
        }
        out
    }
}

/// A file that a listing or search passed over, and why.
#[derive(Debug)]
pub struct Skipped {
    pub file: MemoryFile,
    pub error: MemoryError,
}

#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error("{} is not UTF-8 text (invalid byte at offset {offset}); finch leaves it unchanged", path.display())]
    NotUtf8 { path: PathBuf, offset: usize },
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error("the entry text is empty")]
    EmptyText,
    #[error("\"{0}\" is not a memory file to write to")]
    BadTarget(String),
    #[error("\"{0}\" is not a memory file")]
    BadFile(String),
    #[error("--section needs a heading title, not \"{0}\"")]
    BadSection(String),
    #[error("the query has no words to search for")]
    EmptyQuery,
    #[error("\"{0}\" is not an entry id (ids are 4 to 8 hex digits)")]
    BadId(String),
    #[error("\"{name}\" is not a usable space name: {reason}")]
    BadSpace { name: String, reason: String },
    #[error("there is no memory file {name} ({})", path.display())]
    MissingFile { name: String, path: PathBuf },
    #[error("already remembered in {file}:{line} (id {id})")]
    Duplicate {
        file: String,
        line: usize,
        id: String,
    },
    #[error("no memory entry matches {what}")]
    NoMatch {
        what: String,
        /// Files passed over because they are not UTF-8.
        unreadable: Vec<PathBuf>,
    },
    #[error("{} memory entries match {what}", candidates.len())]
    Ambiguous {
        what: String,
        candidates: Vec<Entry>,
    },
    #[error("{file} changed while finch was changing it; run the command again")]
    Changed { file: String },
    #[error("{} is {kind}, not a regular file; memory lives in regular files (or links to one)", path.display())]
    NotAFile { path: PathBuf, kind: String },
    #[error("{name} is read-only ({}); finch leaves it unchanged", path.display())]
    ReadOnly { name: String, path: PathBuf },
    #[error("cannot change {name}: it is a link to {}, and finch cannot create a temporary file next to it in {} ({source})", target.display(), target.parent().unwrap_or(Path::new("/")).display())]
    TargetDir {
        name: String,
        target: PathBuf,
        source: std::io::Error,
    },
}

impl MemoryError {
    fn io(action: &'static str, path: &Path, source: std::io::Error) -> MemoryError {
        MemoryError::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    }
}

fn valid_space(name: &str) -> Result<String, MemoryError> {
    crate::space::validate_name(name).map_err(|e| match e {
        crate::space::SpaceError::InvalidName(name, reason) => MemoryError::BadSpace {
            name,
            reason: reason.to_string(),
        },
        other => MemoryError::BadSpace {
            name: name.to_string(),
            reason: other.to_string(),
        },
    })?;
    Ok(name.to_string())
}
