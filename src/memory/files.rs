//! Which memory files exist and how they are read: choosing the files of a scope and date range,
//! naming a file the way a person does (`show 2026-11-29`, `show work`, `show lessons`), reading
//! one as UTF-8 (never guessing another encoding), listing entries, and showing a file.

use std::path::Path;
use std::sync::Arc;

use chrono::NaiveDate;

use super::doc::Document;
use super::{
    Entry, FileKind, MemoryError, MemoryFile, MemoryHome, Scope, Selection, Skipped, valid_space,
};

/// A file chosen for reading, with the date its entries carry.
#[derive(Debug, Clone)]
pub(crate) struct Selected {
    pub file: Arc<MemoryFile>,
    pub date: Option<NaiveDate>,
}

/// Reads a memory file; `None` when it does not exist. Anything but a regular file (or a link
/// to one) is an error, and is never opened for reading in a way that could block (a FIFO).
pub(crate) fn read(path: &Path) -> Result<Option<String>, MemoryError> {
    match crate::store::read_regular(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|e| MemoryError::NotUtf8 {
                path: path.to_path_buf(),
                offset: e.utf8_error().valid_up_to(),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => match std::fs::metadata(path) {
            Ok(m) if !m.is_file() => Err(not_a_file(path, &m)),
            _ => Err(MemoryError::io("read", path, e)),
        },
    }
}

pub(crate) fn not_a_file(path: &Path, meta: &std::fs::Metadata) -> MemoryError {
    let t = meta.file_type();
    #[cfg(unix)]
    let special = {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            Some("a FIFO")
        } else if t.is_socket() {
            Some("a socket")
        } else if t.is_block_device() || t.is_char_device() {
            Some("a device")
        } else {
            None
        }
    };
    #[cfg(not(unix))]
    let special: Option<&str> = None;
    let kind = if t.is_dir() {
        "a directory"
    } else {
        special.unwrap_or("not a regular file")
    };
    MemoryError::NotAFile {
        path: path.to_path_buf(),
        kind: kind.to_string(),
    }
}

/// Writes a changed memory file in one atomic step (the caller holds the lock of the memory
/// file's directory). A symbolic link is followed to the file it names (through further links,
/// relative ones taken from the link's own directory; a dangling link names the file to create):
/// that file is replaced by a temporary file written in its own directory, and the link stays.
/// A read-only file (no write permission bit) is never replaced, and a target whose directory
/// does not exist or cannot take a temporary file is an error: nothing is written then.
pub(crate) fn write(file: &MemoryFile, text: &str) -> Result<(), MemoryError> {
    let target = link_target(&file.path)?;
    match std::fs::metadata(&target) {
        Ok(m) if !m.is_file() => return Err(not_a_file(&file.path, &m)),
        Ok(m) if m.permissions().readonly() => {
            return Err(MemoryError::ReadOnly {
                name: file.name.clone(),
                path: target,
            });
        }
        _ => {}
    }
    let linked = target != file.path;
    let target_dir = target.parent().unwrap_or(Path::new("."));
    if linked && !target_dir.is_dir() {
        return Err(MemoryError::TargetDir {
            name: file.name.clone(),
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "that directory does not exist",
            ),
            target,
        });
    }
    if linked {
        // Asked first, so that the error names the real cause: the target's directory is not
        // finch's own and may refuse new files (another owner, a read-only mount).
        if let Err(source) = tempfile::Builder::new()
            .prefix(".finch-probe.")
            .tempfile_in(target_dir)
        {
            return Err(MemoryError::TargetDir {
                name: file.name.clone(),
                target,
                source,
            });
        }
    }
    crate::store::write_atomic(&target, text.as_bytes())
        .map_err(|e| MemoryError::io("write", &target, e))
}

/// The file a path names after following every symbolic link (at most 40, as the kernel does).
fn link_target(path: &Path) -> Result<std::path::PathBuf, MemoryError> {
    let mut at = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let next = std::fs::read_link(&at).map_err(|e| MemoryError::io("read", &at, e))?;
                at = match at.parent() {
                    Some(dir) if next.is_relative() => dir.join(next),
                    _ => next,
                };
            }
            Ok(_) => return Ok(at),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(at),
            Err(e) => return Err(MemoryError::io("read", &at, e)),
        }
    }
    Err(MemoryError::io(
        "write",
        path,
        std::io::Error::other("too many levels of symbolic links"),
    ))
}

/// The existing files of a selection in a stable order: long-term, profile, lessons, spaces by
/// name, then daily logs by date.
pub(crate) fn select(home: &MemoryHome, sel: &Selection) -> Result<Vec<Selected>, MemoryError> {
    let in_range =
        |d: NaiveDate| sel.since.is_none_or(|s| d >= s) && sel.until.is_none_or(|u| d <= u);
    let mut out = Vec::new();
    let mut add_dated = |file: MemoryFile| -> Result<(), MemoryError> {
        let date = match std::fs::metadata(&file.path) {
            Ok(m) if m.is_file() => m.modified().ok().map(local_date),
            Ok(m) => return Err(not_a_file(&file.path, &m)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(MemoryError::io("read", &file.path, e)),
        };
        if date.is_none_or(in_range) {
            out.push(Selected {
                file: Arc::new(file),
                date,
            });
        }
        Ok(())
    };
    let wants =
        |scope: Scope| sel.space.is_none() && (sel.scope == Scope::All || sel.scope == scope);
    if wants(Scope::LongTerm) {
        add_dated(home.file(FileKind::LongTerm))?;
    }
    if wants(Scope::Profile) {
        add_dated(home.file(FileKind::Profile))?;
    }
    if wants(Scope::Lessons) {
        add_dated(home.file(FileKind::Lessons))?;
    }
    if let Some(space) = &sel.space {
        add_dated(home.file(FileKind::Space(space.clone())))?;
    } else if wants(Scope::Spaces) {
        let mut names: Vec<String> = md_stems(&home.spaces_dir())?;
        names.sort();
        for name in names {
            add_dated(home.file(FileKind::Space(name)))?;
        }
    }
    if wants(Scope::Daily) {
        let mut dates: Vec<NaiveDate> = md_stems(&home.memory_dir())?
            .iter()
            .filter_map(|s| daily_date(s))
            .filter(|d| in_range(*d))
            .collect();
        dates.sort();
        for d in dates {
            let file = home.file(FileKind::Daily(d));
            out.push(Selected {
                file: Arc::new(file),
                date: Some(d),
            });
        }
    }
    Ok(out)
}

/// The names without `.md` of the Markdown files in `dir` (none when it does not exist).
fn md_stems(dir: &Path) -> Result<Vec<String>, MemoryError> {
    let read = match std::fs::read_dir(dir) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(MemoryError::io("read", dir, e)),
    };
    let mut out = Vec::new();
    for item in read {
        let item = item.map_err(|e| MemoryError::io("read", dir, e))?;
        let name = item.file_name();
        let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".md")) else {
            continue;
        };
        if stem.is_empty() || stem.starts_with('.') {
            continue;
        }
        // A dangling link is no file yet; anything else that is not a regular file is an error.
        let path = item.path();
        match item.file_type() {
            Ok(t) if t.is_file() => out.push(stem.to_string()),
            Ok(t) if t.is_symlink() => match std::fs::metadata(&path) {
                Ok(m) if m.is_file() => out.push(stem.to_string()),
                Ok(m) => return Err(not_a_file(&path, &m)),
                Err(_) => {}
            },
            Ok(_) => match std::fs::metadata(&path) {
                Ok(m) => return Err(not_a_file(&path, &m)),
                Err(e) => return Err(MemoryError::io("read", &path, e)),
            },
            Err(e) => return Err(MemoryError::io("read", &path, e)),
        }
    }
    Ok(out)
}

/// The date of a daily log's name (`2026-11-29`).
pub(crate) fn daily_date(stem: &str) -> Option<NaiveDate> {
    let b = stem.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        b[r].iter().try_fold(0u32, |n, d| {
            d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0'))
        })
    };
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    NaiveDate::from_ymd_opt(digits(0..4)? as i32, digits(5..7)?, digits(8..10)?)
}

fn local_date(time: std::time::SystemTime) -> NaiveDate {
    chrono::DateTime::<chrono::Local>::from(time).date_naive()
}

/// Every entry of the selected files, and every sub-item nested in one (after its entry), in
/// file order. Files that cannot be read as UTF-8 are passed over and reported; a memory path
/// that holds anything but a regular file is an error.
pub fn list(home: &MemoryHome, sel: &Selection) -> Result<(Vec<Entry>, Vec<Skipped>), MemoryError> {
    let mut entries = Vec::new();
    let mut skipped = Vec::new();
    for s in select(home, sel)? {
        let text = match read(&s.file.path) {
            Ok(Some(t)) => t,
            Ok(None) => continue,
            Err(error) => {
                skipped.push(Skipped {
                    file: (*s.file).clone(),
                    error,
                });
                continue;
            }
        };
        let doc = Document::parse(&text);
        entries.extend(Entry::all_of(&doc, &doc.items(), &s.file, s.date));
    }
    Ok((entries, skipped))
}

/// The whole text of one memory file.
pub fn show(file: &MemoryFile) -> Result<String, MemoryError> {
    read(&file.path)?.ok_or_else(|| MemoryError::MissingFile {
        name: file.name.clone(),
        path: file.path.clone(),
    })
}

/// Names a memory file: `long-term` or `MEMORY.md`, `profile` or `USER.md`, `lessons`, `today`
/// (or `daily`), `yesterday`, a date `YYYY-MM-DD` (or `memory/YYYY-MM-DD.md`), `space:<name>` or
/// `memory/spaces/<name>.md`, or else a space name. The file need not exist.
pub fn resolve_file(
    home: &MemoryHome,
    what: &str,
    today: NaiveDate,
) -> Result<MemoryFile, MemoryError> {
    let w = what.trim();
    let kind = match w {
        "long-term" | "MEMORY.md" => FileKind::LongTerm,
        "profile" | "USER.md" => FileKind::Profile,
        "lessons" | "lessons.md" | "memory/lessons.md" => FileKind::Lessons,
        "today" | "daily" => FileKind::Daily(today),
        "yesterday" => FileKind::Daily(today.pred_opt().unwrap_or(today)),
        _ => {
            if let Some(name) = w.strip_prefix("space:") {
                FileKind::Space(valid_space(name)?)
            } else if let Some(name) = w
                .strip_prefix("memory/spaces/")
                .and_then(|r| r.strip_suffix(".md"))
            {
                FileKind::Space(valid_space(name)?)
            } else {
                let stem = w.strip_prefix("memory/").unwrap_or(w);
                let stem = stem.strip_suffix(".md").unwrap_or(stem);
                if let Some(d) = daily_date(stem) {
                    FileKind::Daily(d)
                } else if looks_like_date(stem) || w.contains('/') {
                    return Err(MemoryError::BadFile(w.to_string()));
                } else {
                    FileKind::Space(
                        valid_space(w).map_err(|_| MemoryError::BadFile(w.to_string()))?,
                    )
                }
            }
        }
    };
    Ok(home.file(kind))
}

fn looks_like_date(text: &str) -> bool {
    !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit() || b == b'-')
        && text.bytes().any(|b| b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_files() {
        let home = MemoryHome::new("/a", std::time::Duration::from_secs(1));
        let today = NaiveDate::from_ymd_opt(2026, 11, 29).unwrap();
        let name = |w: &str| resolve_file(&home, w, today).map(|f| f.name);
        let cases = [
            ("long-term", "MEMORY.md"),
            ("MEMORY.md", "MEMORY.md"),
            ("profile", "USER.md"),
            ("lessons", "memory/lessons.md"),
            ("today", "memory/2026-11-29.md"),
            ("daily", "memory/2026-11-29.md"),
            ("yesterday", "memory/2026-11-28.md"),
            ("2026-01-05", "memory/2026-01-05.md"),
            ("memory/2026-01-05.md", "memory/2026-01-05.md"),
            ("work", "memory/spaces/work.md"),
            ("space:today", "memory/spaces/today.md"),
            ("memory/spaces/Home.md", "memory/spaces/Home.md"),
        ];
        for (what, want) in cases {
            assert_eq!(name(what).unwrap(), want, "{what}");
        }
        for bad in ["2026-13-01", "2026-1-5", "../x", "a/b", "space:../x", ""] {
            assert!(name(bad).is_err(), "{bad}");
        }
        assert_eq!(
            home.file(FileKind::LongTerm).path,
            Path::new("/a/MEMORY.md")
        );
    }
}
