//! An exclusive advisory lock on a directory, held through a `.lock` file inside it. The file
//! holds the pid of the holder so that a waiting finch can say who it is waiting for. The lock is
//! released when the `DirLock` is dropped or the process dies (the kernel drops `flock` locks of
//! dead processes, so a crash never leaves a stale lock behind).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// File name of the lock inside a locked directory.
pub const LOCK_FILE: &str = ".lock";

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("another finch is changing {what} (pid {pid})")]
    Held {
        what: String,
        pid: String,
        path: PathBuf,
    },
    #[error("cannot lock {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Proof that this process holds the lock of one directory.
#[derive(Debug)]
pub struct DirLock {
    file: File,
    path: PathBuf,
}

impl DirLock {
    /// Takes the lock of `dir` (creating the directory if needed), waiting up to `timeout` for
    /// another holder to let go. `what` names the state being protected in the error message.
    pub fn acquire(dir: &Path, what: &str, timeout: Duration) -> Result<DirLock, LockError> {
        let io = |source| LockError::Io {
            path: dir.to_path_buf(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(io)?;
        let path = dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        let started = Instant::now();
        let mut pause = Duration::from_millis(2);
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {
                    if started.elapsed() >= timeout {
                        let mut pid = String::new();
                        // The holder's pid is informational; an unreadable file says "unknown".
                        let _ = file.read_to_string(&mut pid);
                        let pid = match pid.trim() {
                            "" => "unknown".to_string(),
                            p => p.to_string(),
                        };
                        return Err(LockError::Held {
                            what: what.to_string(),
                            pid,
                            path,
                        });
                    }
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                Err(TryLockError::Error(e)) => return Err(io(e)),
            }
        }
        // Record who holds it; failure to record is not a reason to fail the command.
        let _ = file.set_len(0);
        let _ = file.seek(SeekFrom::Start(0));
        let _ = write!(file, "{}", std::process::id());
        let _ = file.flush();
        Ok(DirLock { file, path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_holder_times_out_naming_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let first = DirLock::acquire(dir.path(), "the test state", Duration::from_secs(1)).unwrap();
        let err =
            DirLock::acquire(dir.path(), "the test state", Duration::from_millis(30)).unwrap_err();
        let pid = std::process::id().to_string();
        assert!(
            matches!(&err, LockError::Held { pid: p, what, .. } if *p == pid && what == "the test state"),
            "{err:?}"
        );
        drop(first);
        DirLock::acquire(dir.path(), "the test state", Duration::from_millis(30)).unwrap();
    }
}
