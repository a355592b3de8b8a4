//! Reading a state file without ever blocking: the file is opened non-blocking and must be a
//! regular file, or the read fails naming what it is. A FIFO put at `.finch/permissions.json`
//! or `extensions.json` would otherwise hang finch forever on `open` (no writer) or `read`.

use std::io::Read;
use std::path::Path;

/// The bytes of the regular file at `path` (following links). An error of kind `NotFound`
/// when there is none; an error of kind `InvalidInput` naming the kind of file when it is a
/// FIFO, socket, device or directory.
pub fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let mut file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("it is {}, not a regular file", kind(&meta)),
        ));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// `read_regular` as UTF-8 text.
pub fn read_regular_text(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read_regular(path)?)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

fn kind(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if meta.is_dir() {
        "a directory"
    } else {
        "a special file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn refuses_a_fifo_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("permissions.json");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path, alive for the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_regular(&fifo).unwrap_err();
        assert!(e.to_string().contains("named pipe (FIFO)"), "{e}");
        let e = read_regular(dir.path()).unwrap_err();
        assert!(e.to_string().contains("directory"), "{e}");
        std::fs::write(dir.path().join("f"), "x").unwrap();
        assert_eq!(read_regular_text(&dir.path().join("f")).unwrap(), "x");
        let e = read_regular(&dir.path().join("missing")).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
    }
}
