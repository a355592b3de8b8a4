//! What `npm pack` puts in a package's tarball, and the tarball itself (`finch pack`).
//!
//! The file list follows npm's rules (npm-packlist, as npm 10–11 apply them; the tests compare
//! this list with `npm pack --dry-run --json` on the same directories):
//! - never: `.git`, `.svn`, `.hg`, `CVS` and `node_modules` directories (bundled dependencies
//!   are not supported here), `.npmrc`, `npm-debug.log`, `.DS_Store`, `._*`, `*.orig`,
//!   `.*.swp`, `.npmignore` and `.gitignore` files, and at the root the lock files
//!   (`package-lock.json`, `yarn.lock`, `pnpm-lock.yaml`, `bun.lockb`);
//! - always: `package.json`, and at the root `README*`, `LICENSE*`, `LICENCE*`, `COPYING*`
//!   (any case), and the `main` file;
//! - with a `files` field in `package.json`: only what its patterns name (a directory brings
//!   everything under it), each directory's own `.npmignore` still excluding inside it (the
//!   root's ignore files do not apply);
//! - without one: everything, less what each directory's `.npmignore` (or, when it has none,
//!   its `.gitignore`) excludes, in gitignore syntax.
//!
//! The tarball: gzip of a ustar archive whose entries are `package/<path>`, in the list's
//! order, modes 0644 (0755 for files executable by their owner), stamped 1985-10-26 08:15 UTC
//! as npm stamps them. It reads the package and writes only the tarball.

use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use serde_json::Value;

use super::AuthoringError;

/// The time `npm pack` gives every entry.
const NPM_MTIME: u64 = 499_162_500;
/// Directories never packed, at any depth.
const NEVER_DIRS: [&str; 5] = [".git", ".svn", ".hg", "CVS", "node_modules"];
/// Lock files never packed at the root.
const ROOT_LOCKS: [&str; 4] = [
    "package-lock.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lockb",
];
/// Root files packed whatever `files` and the ignore files say (by prefix, any case).
const ALWAYS_PREFIXES: [&str; 4] = ["readme", "license", "licence", "copying"];

/// One file of the tarball: its path inside the package (`/`-separated) and size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackedFile {
    pub path: String,
    pub size: u64,
    pub executable: bool,
}

/// The files `npm pack` would put in the tarball of the package at `dir`, sorted by path.
pub fn file_list(dir: &Path) -> Result<Vec<PackedFile>, AuthoringError> {
    let package = read_package(dir)?;
    let files: Option<Vec<String>> = package.get("files").and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    });
    let main = package
        .get("main")
        .and_then(Value::as_str)
        .map(normalize_main);
    let included = match &files {
        Some(patterns) => Some(files_matcher(dir, patterns)?),
        None => None,
    };
    let mut out = Vec::new();
    walk(dir, dir, included.as_ref(), &[], &mut out, main.as_deref())?;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

fn read_package(dir: &Path) -> Result<Value, AuthoringError> {
    let path = dir.join("package.json");
    let text = std::fs::read_to_string(&path).map_err(|e| AuthoringError::Io {
        what: format!("read {}", path.display()),
        source: e,
    })?;
    serde_json::from_str(&text).map_err(|e| AuthoringError::InvalidPackage {
        dir: dir.to_path_buf(),
        message: format!("package.json does not parse: {e}"),
    })
}

fn normalize_main(main: &str) -> String {
    main.trim_start_matches("./").to_string()
}

/// `files` as a matcher: each pattern, and everything under what it names.
fn files_matcher(dir: &Path, patterns: &[String]) -> Result<Gitignore, AuthoringError> {
    let mut b = GitignoreBuilder::new(dir);
    for p in patterns {
        let p = p.trim().trim_start_matches("./");
        if p.is_empty() {
            continue;
        }
        let p = p.trim_end_matches('/');
        for line in [p.to_string(), format!("{p}/**")] {
            b.add_line(None, &line)
                .map_err(|e| AuthoringError::InvalidPackage {
                    dir: dir.to_path_buf(),
                    message: format!("package.json \"files\" entry {p:?}: {e}"),
                })?;
        }
    }
    b.build().map_err(|e| AuthoringError::InvalidPackage {
        dir: dir.to_path_buf(),
        message: format!("package.json \"files\": {e}"),
    })
}

/// The ignore file of one directory: `.npmignore`, else `.gitignore`.
fn dir_ignores(d: &Path) -> Option<Gitignore> {
    let file = [".npmignore", ".gitignore"]
        .into_iter()
        .map(|n| d.join(n))
        .find(|p| p.is_file())?;
    let mut b = GitignoreBuilder::new(d);
    b.add(file);
    b.build().ok()
}

fn never(name: &str, is_dir: bool, at_root: bool) -> bool {
    if is_dir {
        return NEVER_DIRS.contains(&name);
    }
    matches!(
        name,
        ".npmrc" | "npm-debug.log" | ".DS_Store" | ".npmignore" | ".gitignore"
    ) || name.starts_with("._")
        || name.ends_with(".orig")
        || (name.starts_with('.') && name.ends_with(".swp"))
        || (at_root && ROOT_LOCKS.contains(&name))
}

fn always(rel: &str, main: Option<&str>) -> bool {
    if rel == "package.json" || Some(rel) == main {
        return true;
    }
    !rel.contains('/') && {
        let lower = rel.to_lowercase();
        ALWAYS_PREFIXES.iter().any(|p| lower.starts_with(p))
    }
}

/// Walks `d`; `ignores` holds the ignore files of the directories above (outermost first),
/// each applying to what is under its directory.
fn walk(
    root: &Path,
    d: &Path,
    files: Option<&Gitignore>,
    ignores: &[Gitignore],
    out: &mut Vec<PackedFile>,
    main: Option<&str>,
) -> Result<(), AuthoringError> {
    let at_root = d == root;
    let mut here: Vec<Gitignore> = ignores.to_vec();
    // With `files`, the root's ignore files do not apply (npm-packlist).
    if !(at_root && files.is_some())
        && let Some(g) = dir_ignores(d)
    {
        here.push(g);
    }
    let entries = std::fs::read_dir(d).map_err(|e| AuthoringError::Io {
        what: format!("read {}", d.display()),
        source: e,
    })?;
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        let Some(name) = e.file_name().to_str().map(str::to_string) else {
            continue;
        };
        // Links are not followed, and not packed (npm packs none that leave the package).
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let is_dir = meta.is_dir();
        if !is_dir && !meta.is_file() {
            continue;
        }
        let rel = rel_path(root, &path);
        if never(&name, is_dir, at_root) {
            continue;
        }
        if !is_dir && always(&rel, main) {
            out.push(packed(&rel, &meta));
            continue;
        }
        if ignored(&here, &path, is_dir) {
            continue;
        }
        if is_dir {
            // Under `files`, a directory is walked when it or something in it may match.
            walk(root, &path, files, &here, out, main)?;
            continue;
        }
        if let Some(f) = files
            && !f.matched_path_or_any_parents(&path, false).is_ignore()
        {
            continue;
        }
        out.push(packed(&rel, &meta));
    }
    Ok(())
}

fn ignored(ignores: &[Gitignore], path: &Path, is_dir: bool) -> bool {
    // The innermost file that has a say wins, as git's nested ignore files do.
    for g in ignores.iter().rev() {
        let m = g.matched(path, is_dir);
        if m.is_ignore() {
            return true;
        }
        if m.is_whitelist() {
            return false;
        }
    }
    false
}

fn rel_path(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

fn packed(rel: &str, meta: &std::fs::Metadata) -> PackedFile {
    #[cfg(unix)]
    let executable = std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o100 != 0;
    #[cfg(not(unix))]
    let executable = false;
    PackedFile {
        path: rel.to_string(),
        size: meta.len(),
        executable,
    }
}

/// The tarball's file name, as npm names it: `@scope/name` 1.0.0 → `scope-name-1.0.0.tgz`.
pub fn tarball_name(package_name: &str, version: &str) -> String {
    let name = package_name.trim_start_matches('@').replace('/', "-");
    format!("{name}-{version}.tgz")
}

/// Writes the tarball of `list` (from `dir`) to `out`, atomically.
pub fn write_tarball(dir: &Path, list: &[PackedFile], out: &Path) -> Result<(), AuthoringError> {
    let io = |what: String, e: std::io::Error| AuthoringError::Io { what, source: e };
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    {
        let mut tar = tar::Builder::new(&mut gz);
        for f in list {
            let path = dir.join(&f.path);
            let bytes =
                std::fs::read(&path).map_err(|e| io(format!("read {}", path.display()), e))?;
            let mut header = tar::Header::new_ustar();
            header.set_size(bytes.len() as u64);
            header.set_mode(if f.executable { 0o755 } else { 0o644 });
            header.set_mtime(NPM_MTIME);
            header.set_entry_type(tar::EntryType::Regular);
            tar.append_data(&mut header, format!("package/{}", f.path), bytes.as_slice())
                .map_err(|e| io(format!("add {} to the tarball", f.path), e))?;
        }
        tar.finish()
            .map_err(|e| io("finish the tarball".into(), e))?;
    }
    let bytes = gz
        .finish()
        .map_err(|e| io("compress the tarball".into(), e))?;
    crate::store::write_atomic(out, &bytes).map_err(|e| io(format!("write {}", out.display()), e))
}

/// The tarball's path in `dir`.
pub fn tarball_path(dir: &Path, package_name: &str, version: &str) -> PathBuf {
    dir.join(tarball_name(package_name, version))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_tarballs_as_npm_does() {
        assert_eq!(
            tarball_name("@acme/weather", "1.2.0"),
            "acme-weather-1.2.0.tgz"
        );
        assert_eq!(tarball_name("weather", "0.1.0"), "weather-0.1.0.tgz");
    }

    #[test]
    fn always_and_never() {
        assert!(always("README.md", None));
        assert!(always("licence", None));
        assert!(always("dist/x.js", Some("dist/x.js")));
        assert!(!always("docs/README.md", None));
        assert!(never(".npmrc", false, false));
        assert!(never("package-lock.json", false, true));
        assert!(!never("package-lock.json", false, false));
        assert!(never("node_modules", true, false));
        assert!(never(".x.swp", false, false));
    }
}
