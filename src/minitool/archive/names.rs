//! An archive entry's name, checked and normalized before anything is written for it: no NUL,
//! no absolute path or drive prefix, no `..`, UTF-8 only.

use std::path::{Component, Path};

use super::{ArchiveError, corrupt};

/// An entry's path, normalized into plain components.
pub(super) struct EntryPath {
    /// Non-empty; none is empty, `.` or `..`.
    pub(super) comps: Vec<String>,
    /// The name ended with a separator (a directory in zip and old tar archives).
    pub(super) trailing_slash: bool,
}

/// True for names starting with a Windows drive prefix such as `C:`.
pub(super) fn has_drive_prefix(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

/// True when `s` is exactly one normal path component on this platform.
pub(super) fn is_plain_component(s: &str) -> bool {
    let mut parts = Path::new(s).components();
    matches!(
        (parts.next(), parts.next()),
        (Some(Component::Normal(c)), None) if c == std::ffi::OsStr::new(s)
    )
}

/// Normalizes an entry name: `/` (and `\` when `backslash_is_separator`) separate components,
/// empty and `.` components are dropped. Returns `None` for names with nothing left (skipped).
pub(super) fn parse_name(
    entry: &str,
    backslash_is_separator: bool,
) -> Result<Option<EntryPath>, ArchiveError> {
    if entry.contains('\0') {
        return Err(corrupt(format!(
            "archive entry {entry:?} has a NUL byte in its name"
        )));
    }
    let name = if backslash_is_separator {
        entry.replace('\\', "/")
    } else {
        entry.to_owned()
    };
    if name.starts_with('/') {
        return Err(ArchiveError::AbsolutePath {
            entry: entry.to_owned(),
        });
    }
    let mut comps = Vec::new();
    for comp in name.split('/') {
        match comp {
            "" | "." => {}
            ".." => {
                return Err(ArchiveError::ParentComponent {
                    entry: entry.to_owned(),
                });
            }
            _ => comps.push(comp.to_owned()),
        }
    }
    let absolute = comps.first().is_some_and(|c| has_drive_prefix(c))
        || comps.iter().any(|c| !is_plain_component(c));
    if absolute {
        return Err(ArchiveError::AbsolutePath {
            entry: entry.to_owned(),
        });
    }
    if comps.is_empty() {
        return Ok(None);
    }
    Ok(Some(EntryPath {
        comps,
        trailing_slash: name.ends_with('/'),
    }))
}

/// Turns raw name bytes from a tar header into a string, refusing non-UTF-8.
pub(super) fn utf8_name(raw: &[u8], what: &str) -> Result<String, ArchiveError> {
    String::from_utf8(raw.to_vec()).map_err(|_| {
        corrupt(format!(
            "{what} {:?} is not valid UTF-8",
            String::from_utf8_lossy(raw)
        ))
    })
}
