//! Whole-file replacement that readers can never observe half done: write a temp file in the
//! target's directory, fsync it, rename it over the target, fsync the directory.

use std::io::Write;
use std::path::Path;

/// Replaces `path` with `bytes` atomically, creating the parent directory if needed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_meta(path, bytes).map(drop)
}

/// `write_atomic`, returning the metadata of the file written, taken before the rename (which
/// keeps length, modification time and inode): what was written, even if another writer
/// replaces the file right after.
pub fn write_atomic_meta(path: &Path, bytes: &[u8]) -> std::io::Result<std::fs::Metadata> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    // Temp files are created 0600; keep the mode the file had, or give a new one the usual 0644.
    match std::fs::metadata(path) {
        Ok(m) => tmp.as_file().set_permissions(m.permissions())?,
        Err(_) => set_new_file_mode(tmp.as_file())?,
    }
    tmp.as_file().sync_all()?;
    let meta = tmp.as_file().metadata()?;
    tmp.persist(path).map_err(|e| e.error)?;
    fsync_dir(dir)?;
    Ok(meta)
}

#[cfg(unix)]
fn set_new_file_mode(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(std::fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn set_new_file_mode(_file: &std::fs::File) -> std::io::Result<()> {
    Ok(())
}

/// Makes a rename or creation inside `dir` durable. A no-op where directories cannot be opened.
pub fn fsync_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::fs::File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("state.json");
        write_atomic(&target, b"one").unwrap();
        write_atomic(&target, b"two").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("state.json")]);
    }

    #[cfg(unix)]
    #[test]
    fn keeps_the_files_mode_and_gives_new_files_0644() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("state.json");
        write_atomic(&target, b"one").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&target), 0o644);
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&target, b"two").unwrap();
        assert_eq!(mode(&target), 0o640);
    }
}
