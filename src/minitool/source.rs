//! What `finch add <source>` was given (SPEC §3.3), classified in the spec's order: a zip URL, a
//! tarball URL, a path (directory, .zip or .tgz), else an npm package spec.

use std::path::{Path, PathBuf};

use super::registry::{PackageSpec, RegistryError};
use crate::homes::{absolutize, expand_tilde};

#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    ZipUrl(String),
    TgzUrl(String),
    Directory(PathBuf),
    ZipFile(PathBuf),
    TgzFile(PathBuf),
    Npm(PackageSpec),
}

#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("no such file or directory: {}", .0.display())]
    MissingPath(PathBuf),
    #[error("{} is neither a directory, a .zip nor a .tgz/.tar.gz file", .0.display())]
    UnsupportedFile(PathBuf),
    #[error("{0} does not name a .zip, .tgz or .tar.gz file")]
    UnsupportedUrl(String),
    #[error(transparent)]
    Spec(#[from] RegistryError),
}

/// The archive kind a file name or URL path ends with.
fn archive_suffix(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".zip") {
        Some("zip")
    } else if lower.ends_with(".tgz") || lower.ends_with(".tar.gz") {
        Some("tgz")
    } else {
        None
    }
}

fn looks_like_path(raw: &str) -> bool {
    let windows_drive = raw.len() >= 3
        && raw.as_bytes()[0].is_ascii_alphabetic()
        && raw.as_bytes()[1] == b':'
        && matches!(raw.as_bytes()[2], b'\\' | b'/');
    raw == "."
        || raw == ".."
        || raw.starts_with("./")
        || raw.starts_with("../")
        || raw.starts_with('/')
        || raw == "~"
        || raw.starts_with("~/")
        || raw.starts_with(".\\")
        || raw.starts_with("..\\")
        || windows_drive
}

/// Classifies `raw`; relative paths resolve against `cwd`, `~` against `home`.
pub fn classify(raw: &str, cwd: &Path, home: Option<&Path>) -> Result<Source, SourceError> {
    let lower = raw.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        let path_part = raw.split(['?', '#']).next().unwrap_or(raw);
        return match archive_suffix(path_part) {
            Some("zip") => Ok(Source::ZipUrl(raw.to_string())),
            Some(_) => Ok(Source::TgzUrl(raw.to_string())),
            None => Err(SourceError::UnsupportedUrl(raw.to_string())),
        };
    }
    let expanded = expand_tilde(Path::new(raw), home).unwrap_or_else(|_| PathBuf::from(raw));
    let path = absolutize(&expanded, cwd);
    let exists = path.exists();
    if looks_like_path(raw) || exists {
        if !exists {
            return Err(SourceError::MissingPath(path));
        }
        if path.is_dir() {
            return Ok(Source::Directory(path));
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        return match archive_suffix(&name) {
            Some("zip") => Ok(Source::ZipFile(path)),
            Some(_) => Ok(Source::TgzFile(path)),
            None => Err(SourceError::UnsupportedFile(path)),
        };
    }
    Ok(Source::Npm(PackageSpec::parse(raw)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification_order() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        std::fs::create_dir(cwd.join("tooldir")).unwrap();
        std::fs::write(cwd.join("pkg.tgz"), b"x").unwrap();
        std::fs::write(cwd.join("pkg.ZIP"), b"x").unwrap();
        std::fs::write(cwd.join("notes.txt"), b"x").unwrap();
        let c = |s: &str| classify(s, cwd, Some(Path::new("/home/u")));
        assert_eq!(
            c("https://h/x.zip?sig=1").unwrap(),
            Source::ZipUrl("https://h/x.zip?sig=1".into())
        );
        assert_eq!(
            c("http://h/x.tar.gz").unwrap(),
            Source::TgzUrl("http://h/x.tar.gz".into())
        );
        assert!(matches!(
            c("https://h/x.txt"),
            Err(SourceError::UnsupportedUrl(_))
        ));
        assert_eq!(c(".").unwrap(), Source::Directory(cwd.to_path_buf()));
        assert_eq!(
            c("tooldir").unwrap(),
            Source::Directory(cwd.join("tooldir"))
        );
        assert_eq!(
            c("./pkg.tgz").unwrap(),
            Source::TgzFile(cwd.join("pkg.tgz"))
        );
        assert_eq!(c("pkg.ZIP").unwrap(), Source::ZipFile(cwd.join("pkg.ZIP")));
        assert!(matches!(
            c("notes.txt"),
            Err(SourceError::UnsupportedFile(_))
        ));
        assert!(matches!(c("./missing"), Err(SourceError::MissingPath(_))));
        assert!(
            matches!(c("~/missing"), Err(SourceError::MissingPath(p)) if p == Path::new("/home/u/missing"))
        );
        assert!(matches!(c("weather@^1.2").unwrap(), Source::Npm(s) if s.name == "weather"));
        assert!(
            matches!(c("@acme/weather@beta").unwrap(), Source::Npm(s) if s.name == "@acme/weather")
        );
    }
}
