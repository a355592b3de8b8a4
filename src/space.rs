//! Spaces, `<runtime>/spaces.json`: `{"spaces": [{"id", "name", "directory"?, "createdAt"}]}`.
//! Ids are made once at creation and never change; names are unique (ignoring case) and safe as
//! a file name, because a space's memory lives in `<agent>/memory/spaces/<name>.md`. Keys finch
//! does not know, at the top level or in an entry, are kept.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::error::{CommandError, ErrorKind};
use crate::homes::Homes;
use crate::store::{DirLock, JsonError, LockError, read_json_object, write_json};

/// The longest space name accepted.
const MAX_NAME_CHARS: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Space {
    pub id: String,
    pub name: String,
    pub directory: Option<PathBuf>,
    pub created_at: String,
}

impl Space {
    pub fn to_json(&self) -> Value {
        json!({"id": self.id, "name": self.name, "directory": self.directory, "createdAt": self.created_at})
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SpaceError {
    #[error("a space named \"{0}\" already exists")]
    Exists(String),
    #[error("\"{0}\" is not a usable space name: {1}")]
    InvalidName(String, &'static str),
    #[error("no such directory: {}", .0.display())]
    MissingDir(PathBuf),
    #[error("{} is not a directory", .0.display())]
    NotADir(PathBuf),
    #[error("{} has an entry that is not a space object: {entry}", path.display())]
    BadEntry { path: PathBuf, entry: String },
    #[error(transparent)]
    Json(#[from] JsonError),
    #[error(transparent)]
    Lock(#[from] LockError),
}

/// Every space, in file order. A missing file is no spaces.
pub fn list(homes: &Homes) -> Result<Vec<Space>, SpaceError> {
    let path = homes.spaces_json();
    let doc = read_json_object(&path)?.unwrap_or_default();
    parse(&doc, &path)
}

/// The space whose id or name (ignoring case) is `key`.
pub fn find<'a>(spaces: &'a [Space], key: &str) -> Option<&'a Space> {
    spaces.iter().find(|s| s.id == key).or_else(|| {
        spaces
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(key) || s.name == key)
    })
}

/// Checks that `name` can name a space (and so a memory file).
pub fn validate_name(name: &str) -> Result<(), SpaceError> {
    let bad = |why| Err(SpaceError::InvalidName(name.to_string(), why));
    if name.trim().is_empty() {
        return bad("it is empty");
    }
    if name.trim() != name {
        return bad("it starts or ends with white space");
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return bad("it is longer than 64 characters");
    }
    if name.starts_with('.') {
        return bad("it starts with a dot");
    }
    if name.chars().any(|c| {
        c.is_control() || matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|')
    }) {
        return bad("it contains a character that cannot be part of a file name");
    }
    Ok(())
}

/// Creates a space; `directory` must exist and is stored canonical.
pub fn create(
    homes: &Homes,
    name: &str,
    directory: Option<&Path>,
    lock_timeout: Duration,
    now: &str,
) -> Result<Space, SpaceError> {
    validate_name(name)?;
    let directory = match directory {
        Some(d) => {
            let canonical =
                std::fs::canonicalize(d).map_err(|_| SpaceError::MissingDir(d.to_path_buf()))?;
            if !canonical.is_dir() {
                return Err(SpaceError::NotADir(d.to_path_buf()));
            }
            Some(canonical)
        }
        None => None,
    };
    let path = homes.spaces_json();
    let what = path.display().to_string();
    let _lock = DirLock::acquire(&homes.runtime, &what, lock_timeout)?;
    let mut doc = read_json_object(&path)?.unwrap_or_default();
    let spaces = parse(&doc, &path)?;
    if spaces
        .iter()
        .any(|s| s.name.to_lowercase() == name.to_lowercase())
    {
        return Err(SpaceError::Exists(name.to_string()));
    }
    let space = Space {
        id: crate::ids::new_space_id(&spaces.iter().map(|s| s.id.as_str()).collect::<Vec<_>>()),
        name: name.to_string(),
        directory,
        created_at: now.to_string(),
    };
    let mut entry = Map::new();
    entry.insert("id".into(), space.id.clone().into());
    entry.insert("name".into(), space.name.clone().into());
    if let Some(d) = &space.directory {
        entry.insert("directory".into(), d.to_string_lossy().into());
    }
    entry.insert("createdAt".into(), now.into());
    let list = doc
        .entry("spaces")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(items) = list {
        items.push(Value::Object(entry));
    }
    write_json(&path, &Value::Object(doc))?;
    Ok(space)
}

fn parse(doc: &Map<String, Value>, path: &Path) -> Result<Vec<Space>, SpaceError> {
    let Some(items) = doc.get("spaces") else {
        return Ok(Vec::new());
    };
    let bad = |entry: &Value| SpaceError::BadEntry {
        path: path.to_path_buf(),
        entry: entry.to_string(),
    };
    let items = items.as_array().ok_or_else(|| bad(items))?;
    items
        .iter()
        .map(|item| {
            let s = |k: &str| item.get(k).and_then(Value::as_str).map(str::to_string);
            Ok(Space {
                id: s("id").ok_or_else(|| bad(item))?,
                name: s("name").ok_or_else(|| bad(item))?,
                directory: s("directory").map(PathBuf::from),
                created_at: s("createdAt").unwrap_or_default(),
            })
        })
        .collect()
}

/// Space errors as exit codes: a name taken or invalid is the user's to fix (1), a missing
/// directory is not found (3), a held lock is 5.
impl From<SpaceError> for CommandError {
    fn from(err: SpaceError) -> CommandError {
        let message = err.to_string();
        match err {
            SpaceError::MissingDir(_) => CommandError::not_found(message),
            SpaceError::Lock(LockError::Held { .. }) => {
                CommandError::new(ErrorKind::Locked, message)
            }
            SpaceError::Json(j) if j.is_corrupt() => CommandError::failed(message)
                .with_code("corrupt_state")
                .with_hint("fix the file by hand, or run `finch doctor --state` to move it aside"),
            SpaceError::Exists(_) => CommandError::failed(message)
                .with_hint("run `finch space list` to see the names in use"),
            _ => CommandError::failed(message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn homes(dir: &Path) -> Homes {
        Homes {
            runtime: dir.join("rt"),
            agent: dir.join("agent"),
            agent_source: crate::homes::AgentHomeSource::Flag,
        }
    }

    #[test]
    fn create_list_find_and_keep_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        let h = homes(dir.path());
        std::fs::create_dir_all(&h.runtime).unwrap();
        std::fs::write(
            h.spaces_json(),
            r#"{"version":2,"spaces":[{"id":"sp-1","name":"Home","color":"red"}]}"#,
        )
        .unwrap();
        let work = create(&h, "Work", Some(dir.path()), Duration::from_secs(1), "T").unwrap();
        assert!(work.id.starts_with("sp-") && work.id.len() == 11);
        assert!(matches!(
            create(&h, "work", None, Duration::from_secs(1), "T"),
            Err(SpaceError::Exists(_))
        ));
        let all = list(&h).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(find(&all, "home").unwrap().id, "sp-1");
        assert_eq!(find(&all, &work.id).unwrap().name, "Work");
        let doc: Value =
            serde_json::from_str(&std::fs::read_to_string(h.spaces_json()).unwrap()).unwrap();
        assert_eq!(doc["version"], 2);
        assert_eq!(doc["spaces"][0]["color"], "red");
    }

    #[test]
    fn names_must_be_file_names() {
        for bad in ["", " x", "a/b", "..", ".hidden", "a\nb", "c:d"] {
            assert!(validate_name(bad).is_err(), "{bad:?}");
        }
        for good in ["Work", "家庭", "side project", "a.b-c_d"] {
            assert!(validate_name(good).is_ok(), "{good:?}");
        }
    }
}
