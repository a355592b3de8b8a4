//! JSON state files read as ordered maps so that every key finch does not know survives a
//! rewrite in its place. Written with two-space indentation and a trailing newline, as the app
//! writes them.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

#[derive(Debug, thiserror::Error)]
pub enum JsonError {
    #[error("{} is not valid JSON (line {line}, column {column}): {message}", path.display())]
    Corrupt {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{} must hold a JSON object", path.display())]
    NotAnObject { path: PathBuf },
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
}

impl JsonError {
    pub fn path(&self) -> &Path {
        match self {
            JsonError::Corrupt { path, .. }
            | JsonError::NotAnObject { path }
            | JsonError::Read { path, .. }
            | JsonError::Write { path, .. } => path,
        }
    }

    pub fn is_corrupt(&self) -> bool {
        matches!(
            self,
            JsonError::Corrupt { .. } | JsonError::NotAnObject { .. }
        )
    }
}

/// Reads a JSON object; `Ok(None)` when the file does not exist.
pub fn read_json_object(path: &Path) -> Result<Option<Map<String, Value>>, JsonError> {
    let bytes = match super::read::read_regular(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(JsonError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(map)) => Ok(Some(map)),
        Ok(_) => Err(JsonError::NotAnObject {
            path: path.to_path_buf(),
        }),
        Err(e) => Err(JsonError::Corrupt {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        }),
    }
}

/// Reads a JSON object into a typed view; `Ok(None)` when the file does not exist. Fields the
/// type does not name are skipped without being built, which makes reading a few fields of a
/// large file cheap. The errors are those of `read_json_object`.
pub fn read_json_as<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>, JsonError> {
    let bytes = match super::read::read_regular(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(JsonError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first.is_some_and(|b| *b != b'{')
        && serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_ok()
    {
        return Err(JsonError::NotAnObject {
            path: path.to_path_buf(),
        });
    }
    // Checking the UTF-8 of the whole file at once is cheaper than serde_json checking every
    // string of a large file; invalid UTF-8 goes through `from_slice` for its located error.
    match std::str::from_utf8(&bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(&bytes),
    }
    .map(Some)
    .map_err(|e| JsonError::Corrupt {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}

/// Two-space indented JSON with a trailing newline.
pub fn to_pretty_json(value: &Value) -> String {
    // Serializing a `Value` cannot fail: its keys are strings.
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// Atomically replaces `path` with `value`. The caller holds the directory's lock.
pub fn write_json(path: &Path, value: &Value) -> Result<(), JsonError> {
    super::write_atomic(path, to_pretty_json(value).as_bytes()).map_err(|source| JsonError::Write {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrupt_file_names_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.json");
        std::fs::write(&path, "{\n  \"a\": 1,\n  oops\n}\n").unwrap();
        match read_json_object(&path).unwrap_err() {
            JsonError::Corrupt { line, column, .. } => assert_eq!((line, column), (3, 3)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn key_order_survives_a_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.json");
        std::fs::write(&path, r#"{"z":1,"a":{"y":2,"b":3}}"#).unwrap();
        let map = read_json_object(&path).unwrap().unwrap();
        write_json(&path, &Value::Object(map)).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\n  \"z\": 1,\n  \"a\": {\n    \"y\": 2,\n    \"b\": 3\n  }\n}\n"
        );
    }
}
