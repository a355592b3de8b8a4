//! The mechanics of putting one mini tool into a tier: copy or extract into a staging directory,
//! check it, then swap it in under the tier's lock (SPEC §3.3). Package scripts are never run,
//! and no link that leaves the package is ever followed or created.

use std::path::{Component, Path, PathBuf};

use super::manifest::{self, Manifest, Severity};
use super::records::{LockRecords, Origin};
use super::tier::{self, ENABLED_FILE, FINCH_ID_FILE, Staging};
use super::{Error, Installed};
use crate::homes::{Homes, Tier};
use crate::store::DirLock;

/// Where installs go and how long to wait for the tier's lock.
pub struct Installer<'a> {
    pub homes: &'a Homes,
    pub tier: Tier,
    pub lock_timeout: std::time::Duration,
    /// ISO-8601 time written as `installedAt`.
    pub now: String,
}

impl Installer<'_> {
    pub fn tier_dir(&self) -> PathBuf {
        self.homes.tier_dir(self.tier)
    }

    pub fn lock_tier(&self) -> Result<DirLock, Error> {
        let dir = self.tier_dir();
        let what = format!("the {} mini tools in {}", self.tier.name(), dir.display());
        let lock = DirLock::acquire(&dir, &what, self.lock_timeout)?;
        tier::recover(&dir);
        Ok(lock)
    }

    /// Checks the staged package at `staged` and swaps it into `<tier>/<id>`.
    pub fn install_staged(&self, staged: &Path, origin: &Origin) -> Result<Installed, Error> {
        let manifest = load_valid(staged)?;
        let id = manifest.runtime_id()?;
        if manifest.package_name.is_some() {
            write_file(&staged.join(FINCH_ID_FILE), id.as_bytes())?;
        }
        let target = self.tier_dir().join(&id);
        let lock = self.lock_tier()?;
        guard_identity(&target, &id, &manifest)?;
        // Read the records before the swap: a corrupt file stops the install with nothing changed.
        let records = LockRecords::load(&self.tier_dir())?;
        carry_over(&target, staged)?;
        let old =
            tier::swap_in(staged, &target).map_err(|e| Error::io("install into", &target, e))?;
        self.record(records, &id, origin, &manifest)?;
        drop(lock);
        if let Some(old) = old {
            // The new install is complete; a failure here only leaves a directory `recover` removes.
            let _ = tier::remove_entry(&old);
        }
        Ok(installed(&manifest, id, target, false))
    }

    /// Links `<tier>/<id>` to a source directory (`add -d`). Nothing is written into the source.
    pub fn link_dev(&self, source: &Path) -> Result<Installed, Error> {
        let manifest = load_valid(source)?;
        let id = manifest.runtime_id()?;
        let tier_dir = self.tier_dir();
        std::fs::create_dir_all(&tier_dir).map_err(|e| Error::io("create", &tier_dir, e))?;
        let target = tier_dir.join(&id);
        refuse_overlap(source, &tier_dir, &target)?;
        let staging = Staging::new(&tier_dir)
            .map_err(|e| Error::io("create a staging directory in", &tier_dir, e))?;
        let link = staging.path().join("link");
        make_dir_link(source, &link).map_err(|e| Error::io("create a link at", &link, e))?;
        let lock = self.lock_tier()?;
        guard_identity(&target, &id, &manifest)?;
        let records = LockRecords::load(&tier_dir)?;
        let old = tier::swap_in(&link, &target).map_err(|e| Error::io("link", &target, e))?;
        self.record(
            records,
            &id,
            &Origin::Dev {
                path: source.to_path_buf(),
            },
            &manifest,
        )?;
        drop(lock);
        if let Some(old) = old {
            let _ = tier::remove_entry(&old);
        }
        Ok(installed(&manifest, id, target, true))
    }

    fn record(
        &self,
        mut records: LockRecords,
        id: &str,
        origin: &Origin,
        manifest: &Manifest,
    ) -> Result<(), Error> {
        records.set(
            id,
            origin.to_record(
                manifest.package_name.as_deref(),
                manifest.version.as_deref(),
                &self.now,
            ),
        );
        records.save()?;
        Ok(())
    }
}

fn installed(manifest: &Manifest, id: String, path: PathBuf, linked: bool) -> Installed {
    Installed {
        display_name: manifest.display_name(),
        version: manifest.version.clone(),
        package: manifest.package_name.clone(),
        id,
        path,
        linked,
    }
}

/// Loads a manifest and refuses one with fatal problems.
pub fn load_valid(dir: &Path) -> Result<Manifest, Error> {
    let manifest = manifest::load(dir)?.ok_or_else(|| Error::NoMiniTool {
        place: dir.display().to_string(),
    })?;
    let fatal: Vec<String> = manifest
        .check()
        .into_iter()
        .filter(|i| i.severity == Severity::Fatal)
        .map(|i| i.message)
        .collect();
    if !fatal.is_empty() {
        return Err(Error::Invalid {
            place: dir.display().to_string(),
            problems: fatal,
        });
    }
    Ok(manifest)
}

/// Installing package B into an id owned by package A is refused (SPEC §3.2).
fn guard_identity(target: &Path, id: &str, incoming: &Manifest) -> Result<(), Error> {
    if !target.exists() {
        return Ok(());
    }
    let Ok(Some(existing)) = manifest::load(target) else {
        return Ok(());
    };
    let same = match (&existing.package_name, &incoming.package_name) {
        (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
        (None, None) => true,
        _ => false,
    };
    if same {
        Ok(())
    } else {
        Err(Error::Identity {
            id: id.to_string(),
            existing: existing
                .package_name
                .unwrap_or_else(|| "(no package name)".into()),
            incoming: incoming
                .package_name
                .clone()
                .unwrap_or_else(|| "(no package name)".into()),
        })
    }
}

/// Copies the app's `.enabled` marker (and `.finch-id`, unless the new install wrote its own)
/// from the current install into the staged one.
fn carry_over(target: &Path, staged: &Path) -> Result<(), Error> {
    let is_real_dir = std::fs::symlink_metadata(target).is_ok_and(|m| m.is_dir());
    if !is_real_dir {
        return Ok(());
    }
    for name in [ENABLED_FILE, FINCH_ID_FILE] {
        let from = target.join(name);
        let to = staged.join(name);
        // Neither end may be a link: a link at the staged name (a dangling one too, which
        // `exists` does not see) would carry the write outside.
        let from_is_file = std::fs::symlink_metadata(&from).is_ok_and(|m| m.is_file());
        if !from_is_file {
            continue;
        }
        if std::fs::symlink_metadata(&to).is_ok() {
            refuse_link(&to)?;
            continue;
        }
        let bytes = crate::store::read_regular(&from).map_err(|e| Error::io("copy", &from, e))?;
        let mut file = open_no_follow(&to, true).map_err(|e| Error::io("copy", &from, e))?;
        std::io::Write::write_all(&mut file, &bytes).map_err(|e| Error::io("copy", &from, e))?;
    }
    Ok(())
}

fn refuse_overlap(source: &Path, tier_dir: &Path, target: &Path) -> Result<(), Error> {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (s, t) = (canon(source), canon(tier_dir));
    if s.starts_with(&t) || t.starts_with(&s) {
        return Err(Error::Overlap {
            from: source.to_path_buf(),
            target: target.to_path_buf(),
        });
    }
    Ok(())
}

/// Directory names never copied from a source directory.
const SKIPPED_DIRS: [&str; 1] = [".git"];

/// Copies the package at `src` into `dst` (which must not exist). Links that stay inside the
/// package are copied as links; one that leaves it, or any special file, fails the copy.
pub fn copy_package(src: &Path, dst: &Path, tier_dir: &Path) -> Result<(), Error> {
    refuse_overlap(src, tier_dir, dst)?;
    copy_dir(src, src, dst)
}

fn copy_dir(root: &Path, from: &Path, to: &Path) -> Result<(), Error> {
    std::fs::create_dir(to).map_err(|e| Error::io("create", to, e))?;
    let read = std::fs::read_dir(from).map_err(|e| Error::io("read", from, e))?;
    for item in read {
        let item = item.map_err(|e| Error::io("read", from, e))?;
        let name = item.file_name();
        let src = item.path();
        let dst = to.join(&name);
        let kind = std::fs::symlink_metadata(&src).map_err(|e| Error::io("read", &src, e))?;
        if kind.is_dir() {
            if SKIPPED_DIRS.iter().any(|s| name == *s) {
                continue;
            }
            copy_dir(root, &src, &dst)?;
        } else if kind.is_file() {
            std::fs::copy(&src, &dst).map_err(|e| Error::io("copy", &src, e))?;
        } else if kind.file_type().is_symlink() {
            let target = std::fs::read_link(&src).map_err(|e| Error::io("read", &src, e))?;
            let rel = src.strip_prefix(root).unwrap_or(&src);
            if !link_stays_inside(rel, &target) || !link_stays_inside_really(root, rel, &target) {
                return Err(Error::UnsafeEntry {
                    entry: rel.display().to_string(),
                    reason: format!("is a link to {} outside the package", target.display()),
                });
            }
            make_file_link(&target, &dst).map_err(|e| Error::io("create a link at", &dst, e))?;
        } else {
            let rel = src.strip_prefix(root).unwrap_or(&src);
            return Err(Error::UnsafeEntry {
                entry: rel.display().to_string(),
                reason: "is not a regular file, directory or link".into(),
            });
        }
    }
    Ok(())
}

/// Whether a link at `link` (relative to the package root) pointing to `target` stays inside.
fn link_stays_inside(link: &Path, target: &Path) -> bool {
    if target.is_absolute() {
        return false;
    }
    let mut depth: isize = link.components().count() as isize - 1;
    for c in target.components() {
        match c {
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            _ => return false,
        }
        if depth < 0 {
            return false;
        }
    }
    true
}

/// Whether a link stays inside when each `..` is taken where the file system takes it: a `..`
/// right after a component that is itself a link goes up from the link's target, not from
/// the link (`t1 -> s/..` with `s -> ../..` leaves the package). So, as the archive code does,
/// every component a `..` follows must be a real directory of the source package right now.
fn link_stays_inside_really(root: &Path, link: &Path, target: &Path) -> bool {
    let mut at = root.to_path_buf();
    let mut depth = 0usize;
    for c in link.parent().into_iter().flat_map(Path::components) {
        if let Component::Normal(n) = c {
            at.push(n);
            depth += 1;
        }
    }
    for c in target.components() {
        match c {
            Component::ParentDir => {
                let real_dir = std::fs::symlink_metadata(&at).is_ok_and(|m| m.is_dir());
                if depth == 0 || !real_dir {
                    return false;
                }
                at.pop();
                depth -= 1;
            }
            Component::Normal(n) => {
                at.push(n);
                depth += 1;
            }
            Component::CurDir => {}
            _ => return false,
        }
    }
    true
}

/// Finds mini tool directories under `root`, at most `max_depth` levels down, not looking inside
/// a mini tool once found nor in `node_modules` or hidden directories.
pub fn find_minitools(root: &Path, max_depth: usize) -> Vec<PathBuf> {
    let mut found = Vec::new();
    walk(root, 0, max_depth, &mut found);
    found.sort();
    found
}

fn walk(dir: &Path, depth: usize, max_depth: usize, found: &mut Vec<PathBuf>) {
    if manifest::is_minitool_dir(dir) {
        found.push(dir.to_path_buf());
        return;
    }
    if depth >= max_depth {
        return;
    }
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    for item in read.flatten() {
        let name = item.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        if item.file_type().is_ok_and(|t| t.is_dir()) {
            walk(&item.path(), depth + 1, max_depth, found);
        }
    }
}

/// finch's own file in an install (`.finch-id`): written without following a link, and refused
/// when the package put a link at its name (issue 28: a `.finch-id` link would turn finch's
/// write into one outside the package).
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    refuse_link(path)?;
    let mut file = open_no_follow(path, false).map_err(|e| Error::io("write", path, e))?;
    std::io::Write::write_all(&mut file, bytes).map_err(|e| Error::io("write", path, e))
}

fn refuse_link(path: &Path) -> Result<(), Error> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(Error::UnsafeEntry {
            entry: path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            reason: "is a link or not a regular file, and finch writes this file itself".into(),
        });
    }
    Ok(())
}

/// Opens `path` for writing (truncating, or only when it does not exist yet with `new`)
/// without following a link in its last component (`O_NOFOLLOW`).
fn open_no_follow(path: &Path, new: bool) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    if new {
        options.create_new(true);
    } else {
        options.create(true).truncate(true);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path)
}

#[cfg(unix)]
fn make_dir_link(source: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(source, link)
}

#[cfg(windows)]
fn make_dir_link(source: &Path, link: &Path) -> std::io::Result<()> {
    std::os::windows::fs::symlink_dir(source, link)
}

#[cfg(unix)]
fn make_file_link(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(windows)]
fn make_file_link(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::windows::fs::symlink_file(target, link)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_inside_and_outside() {
        let cases = [
            ("bin/x", "../lib/x.js", true),
            ("x", "y", true),
            ("a/b/c", "../../d", true),
            ("x", "../y", false),
            ("a/x", "../../y", false),
            ("x", "/etc/passwd", false),
            ("a/x", "../a/../../y", false),
        ];
        for (link, target, inside) in cases {
            assert_eq!(
                link_stays_inside(Path::new(link), Path::new(target)),
                inside,
                "{link} -> {target}"
            );
        }
    }

    #[test]
    fn finds_nested_minitools_but_not_inside_node_modules() {
        let root = tempfile::tempdir().unwrap();
        for dir in ["a", "group/b", "node_modules/c", "deep/1/2/3/d"] {
            let p = root.path().join(dir);
            std::fs::create_dir_all(&p).unwrap();
            std::fs::write(p.join("finch.json"), "{}").unwrap();
        }
        let found = find_minitools(root.path(), 3);
        let rel: Vec<_> = found
            .iter()
            .map(|p| p.strip_prefix(root.path()).unwrap().to_path_buf())
            .collect();
        assert_eq!(rel, vec![PathBuf::from("a"), PathBuf::from("group/b")]);
    }
}
