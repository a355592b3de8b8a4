//! Finding transcripts: every `*.jsonl` under `<runtime>/pi/sessions/` (any depth), the listing
//! of their summaries, and turning a possibly abbreviated session id into one file.
//!
//! A session's id is the `id` of its header (pi also puts it in the file name, after the last
//! `_`; the name is used only when the header cannot be read).

use std::cmp::Reverse;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::transcript::{self, Header, SessionSummary};
use super::{SessionError, Warning, par_map};
use crate::homes::Homes;
use crate::ids::Picked;

/// One transcript file and the id it answers to.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRef {
    pub id: String,
    pub path: PathBuf,
    /// `None` when the first line is not a session header.
    pub header: Option<Header>,
}

/// Every transcript file under `dir`, sorted by path. A missing directory has none; entries whose
/// names start with `.` (locks, temp files) are skipped.
pub fn transcript_files(dir: &Path) -> Result<Vec<PathBuf>, SessionError> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let read = match std::fs::read_dir(&d) {
            Ok(r) => r,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(SessionError::read(&d, e)),
        };
        for item in read.flatten() {
            let name = item.file_name();
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            let path = item.path();
            // Follow links to files, not to directories (a link cycle must not hang a listing).
            let Ok(kind) = item.file_type() else { continue };
            if kind.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl")
                && (kind.is_file() || std::fs::metadata(&path).is_ok_and(|m| m.is_file()))
            {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Every transcript with its id, from the headers.
pub fn all(homes: &Homes) -> Result<Vec<SessionRef>, SessionError> {
    let files = transcript_files(&homes.sessions_dir())?;
    Ok(par_map(&files, |path| {
        let header = transcript::read_header(path).ok().flatten();
        SessionRef {
            id: header
                .as_ref()
                .map(|h| h.id.clone())
                .unwrap_or_else(|| transcript::id_from_file_name(path)),
            path: path.clone(),
            header,
        }
    }))
}

/// The one session whose id is `query` or starts with it (ignoring case). An exact id wins over
/// prefixes of longer ids.
pub fn resolve(homes: &Homes, query: &str) -> Result<SessionRef, SessionError> {
    let query = query.trim();
    if query.is_empty() {
        return Err(SessionError::EmptyId);
    }
    let sessions = all(homes)?;
    pick(sessions, query)
}

fn pick(sessions: Vec<SessionRef>, query: &str) -> Result<SessionRef, SessionError> {
    let exact = |s: &SessionRef| crate::ids::same(&s.id, query);
    let begins = |s: &SessionRef| crate::ids::begins(&s.id, query);
    match crate::ids::pick(sessions, &[&exact, &begins]) {
        Picked::One(one) => Ok(one),
        Picked::Nothing => Err(SessionError::NotFound(query.to_string())),
        Picked::Several(candidates) => Err(SessionError::Ambiguous {
            query: query.to_string(),
            candidates,
        }),
    }
}

/// The newest transcript of `cwd` started at or after `since` whose title is `title` and that
/// holds no conversation (no message besides finch's records of calls): the session `finch tool
/// call` adds a day's calls in one directory to (`HostOptions::join_titled`). A session renamed
/// since, or resumed by pi, is no longer joined. Only `cwd`'s own directory is read, and in it
/// only transcripts whose file names say they started since `since`.
pub fn find_titled(
    sessions_dir: &Path,
    cwd: &Path,
    title: &str,
    since: DateTime<Utc>,
) -> Option<PathBuf> {
    let started = since.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let first = transcript::new_transcript_path(sessions_dir, cwd, &started, "");
    let dir = first.parent()?;
    let first_name = first.file_name()?.to_string_lossy().into_owned();
    let mut recent: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            !name.starts_with('.') && name.ends_with(".jsonl") && name >= first_name
        })
        .map(|e| e.path())
        .collect();
    recent.sort_by(|a, b| b.file_name().cmp(&a.file_name()));
    let cwd = cwd.to_string_lossy();
    recent.into_iter().find(|path| {
        transcript::summarize(path).is_ok_and(|(s, _)| {
            s.name.as_deref() == Some(title)
                && s.workspace.as_deref() == Some(&*cwd)
                && s.messages == s.calls
        })
    })
}

/// What `list` shows.
#[derive(Debug, Clone, Default)]
pub struct ListOptions {
    /// Only sessions whose working directory is this one or inside it (an absolute path).
    pub workspace: Option<PathBuf>,
    /// At most this many; 0 is no limit.
    pub limit: usize,
}

/// Sessions, most recently active first. A transcript that cannot be read is left out with a
/// warning; it never hides the others.
pub fn list(
    homes: &Homes,
    options: &ListOptions,
) -> Result<(Vec<SessionSummary>, Vec<Warning>), SessionError> {
    let files = transcript_files(&homes.sessions_dir())?;
    let read = par_map(&files, |path| transcript::summarize(path));
    let mut warnings = Vec::new();
    let mut sessions = Vec::new();
    for result in read {
        match result {
            Ok((summary, w)) => {
                warnings.extend(w);
                sessions.push(summary);
            }
            Err(e) => warnings.push(format!("{e}; left out")),
        }
    }
    // Short ids must be unique among all sessions, not only the ones shown.
    let ids: Vec<String> = sessions.iter().map(|s| s.id.to_lowercase()).collect();
    for s in &mut sessions {
        s.short_id = short_id(&s.id, &ids);
    }
    if let Some(workspace) = &options.workspace {
        let canonical = std::fs::canonicalize(workspace).ok();
        sessions.retain(|s| {
            s.workspace.as_deref().is_some_and(|w| {
                let w = Path::new(w);
                w.starts_with(workspace) || canonical.as_ref().is_some_and(|c| w.starts_with(c))
            })
        });
    }
    sessions.sort_by_key(|s| {
        (
            Reverse(instant(s.last_activity.as_deref())),
            Reverse(instant(s.started.as_deref())),
            s.id.clone(),
        )
    });
    if options.limit > 0 {
        sessions.truncate(options.limit);
    }
    Ok((sessions, warnings))
}

/// The shortest prefix of `id`, at least 8 characters, that is a prefix of no other id in `all`
/// (lowercase ids, `id` among them).
fn short_id(id: &str, all: &[String]) -> String {
    let lower = id.to_lowercase();
    let mut longest_shared = 0;
    for other in all {
        if *other == lower {
            continue;
        }
        let shared = lower
            .chars()
            .zip(other.chars())
            .take_while(|(a, b)| a == b)
            .count();
        longest_shared = longest_shared.max(shared);
    }
    id.chars().take((longest_shared + 1).max(8)).collect()
}

/// An ISO-8601 timestamp as an instant; `None` (sorted last) when it is missing or malformed.
pub fn instant(timestamp: Option<&str>) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(timestamp?)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(id: &str) -> SessionRef {
        SessionRef {
            id: id.into(),
            path: PathBuf::from(format!("/s/{id}.jsonl")),
            header: None,
        }
    }

    #[test]
    fn short_ids_stay_unique() {
        let all: Vec<String> = ["0195aaaa-1111", "0195aaaa-2222", "77"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(short_id("0195aaaa-1111", &all), "0195aaaa-1");
        assert_eq!(short_id("77", &all), "77");
        assert_eq!(short_id("abcdef0123", &["abcdef0123".into()]), "abcdef01");
    }

    #[test]
    fn picking_by_prefix() {
        let all = || vec![r("abc123"), r("abd456"), r("abc")];
        assert_eq!(pick(all(), "abd").unwrap().id, "abd456");
        assert_eq!(pick(all(), "ABD4").unwrap().id, "abd456");
        // An exact id wins over the longer id it prefixes.
        assert_eq!(pick(all(), "abc").unwrap().id, "abc");
        assert!(matches!(
            pick(all(), "ab"),
            Err(SessionError::Ambiguous { candidates, .. }) if candidates.len() == 3
        ));
        assert!(matches!(pick(all(), "zz"), Err(SessionError::NotFound(_))));
    }
}
