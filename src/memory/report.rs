//! How memory reaches the people and models that use it, shared by `finch memory` and the
//! `Memory` dispatcher tool so that both say the same: each `MemoryError` as a `CommandError`
//! (exit code, `--json` code, hints), the JSON of entries, search hits and shown files, and the
//! choice of files by scope, space and dates given as text. Nothing here prints.

use chrono::NaiveDate;
use serde_json::{Value, json};

use super::{Entry, Hit, MemoryError, MemoryFile, MemoryHome, Scope, Selection, Target};
use crate::error::{CommandError, ErrorKind, Result};
use crate::store::LockError;

/// Snippet width on a pipe and in `--json`.
pub const SNIPPET_CHARS: usize = 160;
/// Candidates listed by an ambiguous `replace`/`forget`.
const MAX_CANDIDATES: usize = 20;

pub fn selection(
    scope: Scope,
    space: Option<&str>,
    since: Option<&str>,
    until: Option<&str>,
) -> Result<Selection> {
    if space.is_some() && !matches!(scope, Scope::All | Scope::Spaces) {
        return Err(CommandError::usage(
            "--space works with --scope spaces (or all), not with another scope",
        ));
    }
    let space = match space {
        Some(name) => match Target::parse(&format!("space:{name}")).map_err(CommandError::from)? {
            Target::Space(name) => Some(name),
            _ => None,
        },
        None => None,
    };
    let since = since.map(|d| date_arg("--since", d)).transpose()?;
    let until = until.map(|d| date_arg("--until", d)).transpose()?;
    if let (Some(s), Some(u)) = (since, until)
        && s > u
    {
        return Err(CommandError::usage(format!(
            "--since {s} is after --until {u}"
        )));
    }
    Ok(Selection {
        scope,
        space,
        since,
        until,
    })
}

fn date_arg(flag: &str, text: &str) -> Result<NaiveDate> {
    let t = text.trim();
    let date = (t.len() == 10)
        .then(|| NaiveDate::parse_from_str(t, "%Y-%m-%d").ok())
        .flatten();
    date.ok_or_else(|| {
        CommandError::usage(format!("{flag} \"{text}\" is not a date"))
            .with_hint("write the day as YYYY-MM-DD, e.g. 2026-11-29")
    })
}

pub fn no_files(home: &MemoryHome) -> String {
    if home.agent.exists() {
        format!("No memory files in {}", home.agent.display())
    } else {
        format!(
            "No agent home at {} (nothing remembered yet)",
            home.agent.display()
        )
    }
}

/// `memory show --json`: the file, its content, and its entries with ids.
pub fn show_json(file: &MemoryFile, text: &str) -> Value {
    let doc = super::doc::Document::parse(text);
    let shared = std::sync::Arc::new(file.clone());
    let entries: Vec<Value> = Entry::all_of(&doc, &doc.items(), &shared, None)
        .iter()
        .map(|e| {
            json!({
                "id": e.id,
                "line": e.line,
                "section": e.section,
                "text": e.text,
                "parent": e.parent,
            })
        })
        .collect();
    json!({
        "file": file.name,
        "path": file.path,
        "content": text,
        "entries": entries,
    })
}

pub fn entry_json(e: &Entry) -> Value {
    json!({
        "id": e.id,
        "file": e.file.name,
        "path": e.file.path,
        "line": e.line,
        "date": e.date.map(|d| d.to_string()),
        "section": e.section,
        "text": e.text,
        "parent": e.parent,
    })
}

pub fn hit_json(h: &Hit) -> Value {
    let mut v = entry_json(&h.entry);
    // Hits are always entries, never sub-items.
    if let Value::Object(map) = &mut v {
        map.shift_remove("parent");
    }
    v["score"] = json!((h.score * 1000.0).round() / 1000.0);
    v["snippet"] = h.snippet.text.clone().into();
    v
}

/// `text` cut to `chars` characters, with `…` where it was cut.
fn cut(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// Errors of `replace`/`forget`, whose ambiguous matches list the candidates as hints.
pub fn match_error(err: MemoryError, forgetting: bool) -> CommandError {
    match err {
        MemoryError::Ambiguous { what, candidates } => {
            let mut hints: Vec<String> = candidates
                .iter()
                .take(MAX_CANDIDATES)
                .map(|c| {
                    format!(
                        "{}  {}:{}  {}",
                        c.id,
                        c.file.name,
                        c.line,
                        cut(&c.text, 100)
                    )
                })
                .collect();
            if candidates.len() > MAX_CANDIDATES {
                hints.push(format!(
                    "… and {} more (narrow the text, or pass --in <file>)",
                    candidates.len() - MAX_CANDIDATES
                ));
            }
            hints.push(if forgetting {
                "choose one with --id <id>, or remove them all with --all-matching".to_string()
            } else {
                "choose one with --id <id>".to_string()
            });
            CommandError::failed(format!("{} memory entries match {what}", candidates.len()))
                .with_code("ambiguous")
                .with_hints(hints)
        }
        other => CommandError::from(other),
    }
}

/// Memory errors as exit codes: bad input is a usage error (2), a missing file or entry is not
/// found (3), a held lock is 5, everything else fails (1).
impl From<MemoryError> for CommandError {
    fn from(err: MemoryError) -> CommandError {
        let message = err.to_string();
        match err {
        MemoryError::NotUtf8 { .. } => CommandError::failed(message)
            .with_code("not_utf8")
            .with_hint("convert the file to UTF-8 (e.g. with iconv), then run the command again"),
        MemoryError::Io { ref source, .. } if source.kind() == std::io::ErrorKind::BrokenPipe => {
            CommandError::broken_pipe()
        }
        MemoryError::Io { .. } => CommandError::failed(message),
        MemoryError::Lock(LockError::Held { .. }) => CommandError::new(ErrorKind::Locked, message)
            .with_hint("wait for the other finch to finish, then try again"),
        MemoryError::Lock(_) => CommandError::failed(message),
        MemoryError::EmptyText | MemoryError::EmptyQuery | MemoryError::BadSection(_) => {
            CommandError::usage(message)
        }
        MemoryError::BadTarget(_) => CommandError::usage(message)
            .with_hint("use --to long-term, daily, space:<name>, lessons or profile"),
        MemoryError::BadFile(_) => CommandError::usage(message).with_hint(
            "name a file as long-term, profile, lessons, today, YYYY-MM-DD, space:<name> or a space name",
        ),
        MemoryError::BadId(_) | MemoryError::BadSpace { .. } => CommandError::usage(message),
        MemoryError::MissingFile { .. } => CommandError::not_found(message)
            .with_hint("run `finch memory list` to see what is remembered where"),
        MemoryError::Duplicate { .. } => CommandError::failed(message).with_code("duplicate"),
        MemoryError::NoMatch { unreadable, .. } => {
            let hints = unreadable
                .iter()
                .map(|p| format!("{} was not searched: it is not UTF-8", p.display()))
                .chain(["run `finch memory search <words>` to find the entry".to_string()]);
            CommandError::not_found(message)
                .with_code("no_match")
                .with_hints(hints)
        }
        MemoryError::Ambiguous { .. } => match_error(err, false),
        MemoryError::Changed { .. } => CommandError::failed(message).with_code("changed"),
        MemoryError::NotAFile { .. } => CommandError::failed(message).with_code("not_a_file"),
        MemoryError::ReadOnly { ref path, .. } => CommandError::failed(message)
            .with_code("read_only")
            .with_hint(format!(
                "make it writable (chmod u+w {}) to let finch change it",
                path.display()
            )),
        MemoryError::TargetDir { .. } => CommandError::failed(message)
            .with_code("target_dir")
            .with_hint("finch replaces a memory file whole through a temporary file in the file's own directory; make that directory writable, or point the link elsewhere"),
    }
    }
}
