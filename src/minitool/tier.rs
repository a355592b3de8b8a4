//! The install directories of a tier: reading what is installed, staging a new install next to
//! the old one, and swapping it in so that any crash leaves either the old or the new install.
//!
//! Staging directories are named `.finch-staging-<pid>-<random>`; the pid lets a later finch
//! remove the leftovers of a process that died, and never those of one still working.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::manifest::{self, Manifest};
use crate::homes::{Homes, Tier};
use crate::store::fsync_dir;

const STAGING_PREFIX: &str = ".finch-staging-";
const ASIDE_PREFIX: &str = ".finch-old-";
/// Marks an install whose id was derived from its package name (SPEC §1).
pub const FINCH_ID_FILE: &str = ".finch-id";
/// The app's own enabled marker, carried across reinstalls.
pub const ENABLED_FILE: &str = ".enabled";

/// One entry of a tier directory.
#[derive(Debug)]
pub struct TierEntry {
    pub dir_name: String,
    pub path: PathBuf,
    /// The link target when the entry is a symlink (a dev install).
    pub link: Option<PathBuf>,
    /// The manifest, or why it could not be read.
    pub manifest: Result<Manifest, String>,
}

impl TierEntry {
    pub fn is_broken_link(&self) -> bool {
        self.link.is_some() && !self.path.exists()
    }
}

/// Lists a tier; entries starting with `.` are finch's or the app's own files and are skipped.
/// One unreadable entry never hides the others.
pub fn scan(tier_dir: &Path) -> std::io::Result<Vec<TierEntry>> {
    let read = match std::fs::read_dir(tier_dir) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut entries = Vec::new();
    for item in read.flatten() {
        let dir_name = item.file_name().to_string_lossy().into_owned();
        if dir_name.starts_with('.') {
            continue;
        }
        let path = item.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let link = if meta.file_type().is_symlink() {
            Some(std::fs::read_link(&path).unwrap_or_default())
        } else if meta.is_dir() {
            None
        } else {
            continue;
        };
        let manifest = if link.is_some() && !path.exists() {
            Err("the link's target does not exist".to_string())
        } else {
            match manifest::load(&path) {
                Ok(Some(m)) => Ok(m),
                Ok(None) => Err("no finch.json or package.json#finch".to_string()),
                Err(e) => Err(e.to_string()),
            }
        };
        entries.push(TierEntry {
            dir_name,
            path,
            link,
            manifest,
        });
    }
    entries.sort_by(|a, b| a.dir_name.cmp(&b.dir_name));
    Ok(entries)
}

/// Whether `id` names an entry of either tier (a link counts, even a broken one).
pub fn is_installed(homes: &Homes, id: &str) -> bool {
    is_entry_name(id)
        && [Tier::Personal, Tier::Global]
            .iter()
            .any(|t| std::fs::symlink_metadata(homes.tier_dir(*t).join(id)).is_ok())
}

/// Whether `id` can name a tier entry: not empty, not hidden, a single path component.
pub fn is_entry_name(id: &str) -> bool {
    !id.is_empty() && !id.starts_with('.') && !id.contains(['/', '\\'])
}

/// A staging directory inside a tier, removed on drop unless its content was moved away.
pub struct Staging {
    dir: tempfile::TempDir,
}

impl Staging {
    pub fn new(tier_dir: &Path) -> std::io::Result<Staging> {
        std::fs::create_dir_all(tier_dir)?;
        let dir = tempfile::Builder::new()
            .prefix(&format!("{STAGING_PREFIX}{}-", std::process::id()))
            .tempdir_in(tier_dir)?;
        Ok(Staging { dir })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// Puts `staged` at `target`. When `target` exists the two are exchanged atomically where the
/// platform can (Linux `renameat2(RENAME_EXCHANGE)`), else the old one is renamed aside first
/// (`recover` puts it back if the process dies in between). Returns where the old install now
/// is, for the caller to delete once the rest of the state is written.
pub fn swap_in(staged: &Path, target: &Path) -> std::io::Result<Option<PathBuf>> {
    let parent = target.parent().unwrap_or(Path::new("."));
    if std::fs::symlink_metadata(target).is_err() {
        std::fs::rename(staged, target)?;
        fsync_dir(parent)?;
        return Ok(None);
    }
    if exchange(staged, target)? {
        fsync_dir(parent)?;
        return Ok(Some(staged.to_path_buf()));
    }
    let name = target
        .file_name()
        .unwrap_or(OsStr::new("x"))
        .to_string_lossy();
    let aside = parent.join(format!("{ASIDE_PREFIX}{name}-{}", std::process::id()));
    std::fs::rename(target, &aside)?;
    std::fs::rename(staged, target)?;
    fsync_dir(parent)?;
    Ok(Some(aside))
}

#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let to_c = |p: &Path| CString::new(p.as_os_str().as_bytes()).map_err(std::io::Error::other);
    let (ca, cb) = (to_c(a)?, to_c(b)?);
    // SAFETY: both paths are valid NUL-terminated strings that outlive the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        return Ok(true);
    }
    let err = std::io::Error::last_os_error();
    match err.raw_os_error() {
        // Not supported by this kernel or filesystem: fall back to rename-aside.
        Some(libc::ENOSYS | libc::EINVAL | libc::EOPNOTSUPP) => Ok(false),
        _ => Err(err),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> std::io::Result<bool> {
    Ok(false)
}

/// Removes a path whether it is a directory, a file or a link (links are never followed).
pub fn remove_entry(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Repairs what a killed finch may have left in a tier. Call with the tier lock held: an install
/// renamed aside whose new version never arrived is put back; staging and aside directories of
/// dead processes are removed.
pub fn recover(tier_dir: &Path) {
    let Ok(read) = std::fs::read_dir(tier_dir) else {
        return;
    };
    for item in read.flatten() {
        let name = item.file_name().to_string_lossy().into_owned();
        let (rest, is_aside) = if let Some(r) = name.strip_prefix(ASIDE_PREFIX) {
            (r, true)
        } else if let Some(r) = name.strip_prefix(STAGING_PREFIX) {
            (r, false)
        } else {
            continue;
        };
        let Some((head, pid)) = split_pid(rest, is_aside) else {
            continue;
        };
        if process_alive(pid) {
            continue;
        }
        let path = item.path();
        if is_aside {
            let target = tier_dir.join(head);
            if std::fs::symlink_metadata(&target).is_err()
                && std::fs::rename(&path, &target).is_ok()
            {
                continue;
            }
        }
        let _ = remove_entry(&path);
    }
}

/// `<id>-<pid>` for aside names, `<pid>-<random>` for staging names.
fn split_pid(rest: &str, is_aside: bool) -> Option<(&str, u32)> {
    if is_aside {
        let (head, pid) = rest.rsplit_once('-')?;
        Some((head, pid.parse().ok()?))
    } else {
        let (pid, _) = rest.split_once('-')?;
        Some(("", pid.parse().ok()?))
    }
}

#[cfg(unix)]
fn process_alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    // SAFETY: kill with signal 0 only checks for existence and permission.
    let rc = unsafe { libc::kill(pid as libc::pid_t, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(not(unix))]
fn process_alive(pid: u32) -> bool {
    pid == std::process::id()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names_are_single_visible_components() {
        for good in ["hello", "scope@name", "a.b-c_d"] {
            assert!(is_entry_name(good), "{good:?}");
        }
        for bad in ["", ".", "..", ".lock", "a/b", "../x", "a\\b"] {
            assert!(!is_entry_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn swap_replaces_a_directory_and_returns_the_old_one() {
        let tier = tempfile::tempdir().unwrap();
        let target = tier.path().join("tool");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("v"), "old").unwrap();
        let staging = Staging::new(tier.path()).unwrap();
        let staged = staging.path().join("pkg");
        std::fs::create_dir(&staged).unwrap();
        std::fs::write(staged.join("v"), "new").unwrap();
        let old = swap_in(&staged, &target).unwrap().unwrap();
        assert_eq!(std::fs::read_to_string(target.join("v")).unwrap(), "new");
        assert_eq!(std::fs::read_to_string(old.join("v")).unwrap(), "old");
    }

    #[test]
    fn recover_puts_back_an_install_left_aside_by_a_dead_process() {
        let tier = tempfile::tempdir().unwrap();
        // pid 0x7fff_fff0 is far above any pid_max, so it is never alive.
        let aside = tier
            .path()
            .join(format!("{ASIDE_PREFIX}tool-{}", 0x7fff_fff0u32));
        std::fs::create_dir(&aside).unwrap();
        let dead_staging = tier
            .path()
            .join(format!("{STAGING_PREFIX}{}-abc", 0x7fff_fff0u32));
        std::fs::create_dir(&dead_staging).unwrap();
        let live = Staging::new(tier.path()).unwrap();
        recover(tier.path());
        assert!(tier.path().join("tool").is_dir());
        assert!(!aside.exists());
        assert!(!dead_staging.exists());
        assert!(live.path().exists(), "a live process's staging stays");
    }
}
