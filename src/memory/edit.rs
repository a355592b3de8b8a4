//! Changing memory files: `remember` appends an entry, `replace` rewrites exactly one, `forget`
//! removes one (or every match when asked). `replace` and `forget` see sub-items (list items
//! nested in an entry) as items of their own, with their own ids (see `doc`): a piece of text
//! found in a sub-item picks the sub-item, not the entry around it, unless the entry's own lines
//! hold it too (then both are candidates, to choose from by id). Each change locks the file's directory, reads the file
//! again under the lock, changes the bytes of the entry alone, and writes the file atomically.
//! Entries to replace or forget are found first without the lock, then found again under it, so
//! a file changed in between is noticed instead of being edited at the wrong place.

use std::sync::Arc;

use chrono::NaiveDateTime;

use super::doc::{self, Document};
use super::files::{self, read, write};
use super::{Entry, FileKind, MemoryError, MemoryFile, MemoryHome, Selection, Skipped, Target};
use crate::store::DirLock;

/// An entry added by `remember`.
#[derive(Debug)]
pub struct Remembered {
    pub entry: Entry,
    pub created_file: bool,
    pub created_section: bool,
}

/// How `replace` and `forget` pick entries: by a piece of their text (case-sensitive, white space
/// collapsed) or by their id (or a prefix of it, at least 4 hex digits). A piece of text that
/// matches nothing as typed matches ignoring case and accents (`Folded`), as `search` finds
/// entries: `forget tea` finds "Tea at 4".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryMatch {
    Text(String),
    Id(String),
    /// A piece of text folded (`search::fold`), compared with entries' folded text.
    Folded(String),
}

impl EntryMatch {
    /// Checks the text or id and puts it in the form entries are compared with.
    pub fn new_text(text: &str) -> Result<EntryMatch, MemoryError> {
        let text = doc::collapse(text);
        if text.is_empty() {
            return Err(MemoryError::EmptyText);
        }
        Ok(EntryMatch::Text(text))
    }

    pub fn new_id(id: &str) -> Result<EntryMatch, MemoryError> {
        let lower = id.trim().to_ascii_lowercase();
        if !(4..=8).contains(&lower.len()) || !lower.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(MemoryError::BadId(id.to_string()));
        }
        Ok(EntryMatch::Id(lower))
    }

    fn matches(&self, entry: &Entry) -> bool {
        match self {
            EntryMatch::Id(id) => entry.id.starts_with(id.as_str()),
            _ => self.in_text(&entry.text),
        }
    }

    /// Whether `text` holds this piece of text (never for an id).
    fn in_text(&self, text: &str) -> bool {
        match self {
            EntryMatch::Text(t) => text.contains(t.as_str()),
            EntryMatch::Folded(t) => crate::search::fold(text).contains(t.as_str()),
            EntryMatch::Id(_) => false,
        }
    }

    /// This piece of text folded, to match ignoring case and accents; `None` for an id or a
    /// piece folded already.
    fn folded(&self) -> Option<EntryMatch> {
        match self {
            EntryMatch::Text(t) => Some(EntryMatch::Folded(crate::search::fold(t))),
            _ => None,
        }
    }

    /// The items (indices into `items`, whose entries are `all`) this match picks: every item
    /// whose text matches, except, for a piece of text, an item whose match lies in the items
    /// nested in it alone — its own lines do not hold the text but a nested item that matches
    /// does; that nested item is picked instead.
    fn pick(&self, d: &Document, items: &[doc::Item], all: &[Entry]) -> Vec<usize> {
        let hits: Vec<usize> = (0..all.len()).filter(|&k| self.matches(&all[k])).collect();
        if let EntryMatch::Id(_) = self {
            return hits;
        }
        let inside = |a: usize, b: usize| {
            let mut p = items[b].parent;
            while let Some(x) = p {
                if x == a {
                    return true;
                }
                p = items[x].parent;
            }
            false
        };
        hits.iter()
            .copied()
            .filter(|&a| !hits.iter().any(|&b| inside(a, b)) || self.in_text(&d.own_text(items, a)))
            .collect()
    }

    fn describe(&self) -> String {
        match self {
            EntryMatch::Text(t) | EntryMatch::Folded(t) => format!("\"{t}\""),
            EntryMatch::Id(id) => format!("id {id}"),
        }
    }

    /// A quick test that a file may hold a match, before it is parsed: its raw text holds the
    /// longest word of the searched text (words are never split by a line break).
    fn may_match(&self, raw: &str) -> bool {
        match self {
            EntryMatch::Text(t) => t
                .split(' ')
                .max_by_key(|w| w.len())
                .is_none_or(|w| raw.contains(w)),
            EntryMatch::Folded(_) => true,
            EntryMatch::Id(_) => true,
        }
    }
}

/// Appends `text` as a new entry to the file `target` names (a daily log gets the `HH:MM ` of
/// `now`), under the heading `section` when given. Refuses an entry whose normalized text the
/// file already has.
pub fn remember(
    home: &MemoryHome,
    target: &Target,
    text: &str,
    section: Option<&str>,
    now: NaiveDateTime,
) -> Result<Remembered, MemoryError> {
    let mut lines = doc::entry_lines(text);
    if lines.is_empty() {
        return Err(MemoryError::EmptyText);
    }
    if let Some(s) = section
        && doc::collapse(s.trim_start_matches('#')).is_empty()
    {
        return Err(MemoryError::BadSection(s.to_string()));
    }
    let file = Arc::new(home.file(target.kind(now.date())));
    let daily = file.kind.is_daily();
    if daily {
        lines[0] = format!("{} {}", now.format("%H:%M"), lines[0]);
    }
    let _lock = DirLock::acquire(
        file.dir(),
        &file.path.display().to_string(),
        home.lock_timeout,
    )?;
    let existing = read(&file.path)?;
    let created_file = existing.is_none();
    let current = existing.unwrap_or_default();
    let d = Document::parse(&current);
    let wanted = doc::lines_text(&lines);
    refuse_duplicate(&d, &file, doc::normalize(&wanted, daily), None)?;
    let mut edit = doc::append_entry(&d, &lines, section);
    if let (true, FileKind::Daily(date)) = (created_file, &file.kind) {
        // A new daily log starts with its date as a title.
        let title = format!("# {}\n\n", date.format("%Y-%m-%d"));
        edit.text.insert_str(0, &title);
        edit.entry_at += title.len();
    }
    write(&file, &edit.text)?;
    let entry = entry_at(&edit.text, edit.entry_at, &file, now)?;
    Ok(Remembered {
        entry,
        created_file,
        created_section: edit.created_heading,
    })
}

/// The result of `replace`.
#[derive(Debug)]
pub struct Replaced {
    pub old: Entry,
    pub new: Entry,
    pub skipped: Vec<Skipped>,
}

/// Replaces the one entry `which` matches (in `within`, or in every memory file) with
/// `new_text`. A daily entry keeps its time unless the new text starts with one.
pub fn replace(
    home: &MemoryHome,
    which: &EntryMatch,
    within: Option<&MemoryFile>,
    new_text: &str,
    now: NaiveDateTime,
) -> Result<Replaced, MemoryError> {
    let mut lines = doc::entry_lines(new_text);
    if lines.is_empty() {
        return Err(MemoryError::EmptyText);
    }
    let (mut found, skipped, found_by) = candidates_any_case(home, which, within)?;
    let old = match found.len() {
        0 => return Err(no_match(which, &skipped)),
        1 => found.remove(0),
        _ => {
            return Err(MemoryError::Ambiguous {
                what: which.describe(),
                candidates: found,
            });
        }
    };
    let file = Arc::clone(&old.file);
    let daily = file.kind.is_daily();
    let _lock = DirLock::acquire(
        file.dir(),
        &file.path.display().to_string(),
        home.lock_timeout,
    )?;
    let current = read(&file.path)?.unwrap_or_default();
    let d = Document::parse(&current);
    let items = d.items();
    let [k] = find_again(&d, &items, &file, &found_by, &old, old.date)?[..] else {
        return Err(MemoryError::Changed {
            file: file.name.clone(),
        });
    };
    let top = items[k].parent.is_none();
    if daily
        && top
        && doc::time_prefix(&lines[0]).is_none()
        && let Some(time) = doc::time_prefix(&old.text)
    {
        lines[0] = format!("{time}{}", lines[0]);
    }
    let nested = items.iter().any(|c| c.parent == Some(k));
    if top && !nested {
        let wanted = doc::lines_text(&lines);
        refuse_duplicate(
            &d,
            &file,
            doc::normalize(&wanted, daily),
            Some(items[k].top),
        )?;
    }
    let edit = doc::replace_item(&d, &items, k, &lines);
    if edit.text != current {
        write(&file, &edit.text)?;
    }
    let new = entry_at(&edit.text, edit.entry_at, &file, now)?;
    Ok(Replaced { old, new, skipped })
}

/// The result of `forget`.
#[derive(Debug)]
pub struct Forgotten {
    pub removed: Vec<Entry>,
    pub skipped: Vec<Skipped>,
}

/// Removes the one entry `which` matches, or with `all_matching` every entry it matches.
pub fn forget(
    home: &MemoryHome,
    which: &EntryMatch,
    within: Option<&MemoryFile>,
    all_matching: bool,
) -> Result<Forgotten, MemoryError> {
    let (found, skipped, found_by) = candidates_any_case(home, which, within)?;
    let which = &found_by;
    if found.is_empty() {
        return Err(no_match(which, &skipped));
    }
    if found.len() > 1 && !all_matching {
        return Err(MemoryError::Ambiguous {
            what: which.describe(),
            candidates: found,
        });
    }
    // One pass per file, in the order the files were found.
    let mut files: Vec<Arc<MemoryFile>> = Vec::new();
    for e in &found {
        if !files.iter().any(|f| f.path == e.file.path) {
            files.push(Arc::clone(&e.file));
        }
    }
    let mut removed = Vec::new();
    for file in files {
        let _lock = DirLock::acquire(
            file.dir(),
            &file.path.display().to_string(),
            home.lock_timeout,
        )?;
        let current = read(&file.path)?.unwrap_or_default();
        let d = Document::parse(&current);
        let items = d.items();
        let date = found
            .iter()
            .find(|e| e.file.path == file.path)
            .and_then(|e| e.date);
        let mut indices: Vec<usize> = if all_matching {
            let all = Entry::all_of(&d, &items, &file, date);
            which.pick(&d, &items, &all)
        } else {
            let indices = find_again(&d, &items, &file, which, &found[0], date)?;
            if indices.len() != 1 {
                return Err(MemoryError::Changed {
                    file: file.name.clone(),
                });
            }
            indices
        };
        // An item nested in another one that goes is removed with it.
        let holds = |a: usize, b: usize| {
            let mut p = items[b].parent;
            while let Some(x) = p {
                if x == a {
                    return true;
                }
                p = items[x].parent;
            }
            false
        };
        let picked = indices.clone();
        indices.retain(|&b| !picked.iter().any(|&a| holds(a, b)));
        if indices.is_empty() {
            continue;
        }
        let spans: Vec<&doc::EntrySpan> = indices.iter().map(|&k| &items[k].span).collect();
        write(&file, &doc::remove_spans(&d, &spans))?;
        let all = Entry::all_of(&d, &items, &file, date);
        removed.extend(indices.iter().map(|&k| all[k].clone()));
    }
    Ok(Forgotten { removed, skipped })
}

/// `candidates`; when a piece of text matches nothing as typed, those it matches ignoring case
/// and accents. With the match that found them, for the second look under the lock.
fn candidates_any_case(
    home: &MemoryHome,
    which: &EntryMatch,
    within: Option<&MemoryFile>,
) -> Result<(Vec<Entry>, Vec<Skipped>, EntryMatch), MemoryError> {
    let (found, skipped) = candidates(home, which, within)?;
    if found.is_empty()
        && let Some(folded) = which.folded()
    {
        let (found, skipped) = candidates(home, &folded, within)?;
        if !found.is_empty() {
            return Ok((found, skipped, folded));
        }
    }
    Ok((found, skipped, which.clone()))
}

/// Every entry `which` matches, reading `within` or every memory file; files that are not UTF-8
/// are passed over and returned.
fn candidates(
    home: &MemoryHome,
    which: &EntryMatch,
    within: Option<&MemoryFile>,
) -> Result<(Vec<Entry>, Vec<Skipped>), MemoryError> {
    let selected = match within {
        Some(f) => {
            let date = match &f.kind {
                FileKind::Daily(d) => Some(*d),
                _ => None,
            };
            vec![files::Selected {
                file: Arc::new(f.clone()),
                date,
            }]
        }
        None => files::select(home, &Selection::default())?,
    };
    let mut found = Vec::new();
    let mut skipped = Vec::new();
    for s in selected {
        let text = match read(&s.file.path) {
            Ok(Some(t)) => t,
            Ok(None) if within.is_some() => {
                return Err(MemoryError::MissingFile {
                    name: s.file.name.clone(),
                    path: s.file.path.clone(),
                });
            }
            Ok(None) => continue,
            Err(e @ MemoryError::NotUtf8 { .. }) if within.is_none() => {
                skipped.push(Skipped {
                    file: (*s.file).clone(),
                    error: e,
                });
                continue;
            }
            Err(e) => return Err(e),
        };
        if !which.may_match(&text) {
            continue;
        }
        let d = Document::parse(&text);
        let items = d.items();
        let all = Entry::all_of(&d, &items, &s.file, s.date);
        found.extend(
            which
                .pick(&d, &items, &all)
                .into_iter()
                .map(|k| all[k].clone()),
        );
    }
    Ok((found, skipped))
}

/// The items of a file re-read under its lock that are still the one found before the lock.
fn find_again(
    d: &Document,
    items: &[doc::Item],
    file: &Arc<MemoryFile>,
    which: &EntryMatch,
    before: &Entry,
    date: Option<chrono::NaiveDate>,
) -> Result<Vec<usize>, MemoryError> {
    let all = Entry::all_of(d, items, file, date);
    Ok(which
        .pick(d, items, &all)
        .into_iter()
        .filter(|&k| all[k].id == before.id && all[k].parent == before.parent)
        .collect())
}

fn refuse_duplicate(
    d: &Document,
    file: &MemoryFile,
    normalized: &str,
    except: Option<usize>,
) -> Result<(), MemoryError> {
    let daily = file.kind.is_daily();
    for i in (0..d.entries.len()).filter(|i| Some(*i) != except) {
        let text = d.entry_text(i);
        if doc::normalize(&text, daily) == normalized {
            return Err(MemoryError::Duplicate {
                file: file.name.clone(),
                line: d.entries[i].first_line + 1,
                id: doc::entry_id(normalized),
            });
        }
    }
    Ok(())
}

/// The entry that starts at byte `at` of a file just written.
fn entry_at(
    text: &str,
    at: usize,
    file: &Arc<MemoryFile>,
    now: NaiveDateTime,
) -> Result<Entry, MemoryError> {
    let d = Document::parse(text);
    let date = match &file.kind {
        FileKind::Daily(day) => *day,
        _ => now.date(),
    };
    let items = d.items();
    let k = items
        .iter()
        .position(|item| d.lines[item.span.first_line].start == at);
    match k {
        Some(k) => Ok(Entry::all_of(&d, &items, file, Some(date)).swap_remove(k)),
        None => Err(MemoryError::Changed {
            file: file.name.clone(),
        }),
    }
}

fn no_match(which: &EntryMatch, skipped: &[Skipped]) -> MemoryError {
    MemoryError::NoMatch {
        what: which.describe(),
        unreadable: skipped.iter().map(|s| s.file.path.clone()).collect(),
    }
}
