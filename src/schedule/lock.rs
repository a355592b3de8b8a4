//! Locks that are tried once and never waited for: one per task while it runs
//! (`<runtime>/automation/locks/<task-id>.lock`, so runs of one task never overlap) and one for
//! the daemon (`<runtime>/automation/daemon.lock`, so only one daemon fires tasks). The file holds
//! the holder's pid for the message of whoever finds it taken; the kernel drops the lock when the
//! holder exits, so a crash never leaves a stale one.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Proof that this process holds one of these locks.
#[derive(Debug)]
pub struct PidLock {
    file: File,
    path: PathBuf,
}

/// Why a lock could not be taken.
#[derive(Debug)]
pub enum TryLock {
    /// Another process holds it; its pid when the file says.
    Held {
        pid: Option<u32>,
    },
    Io(std::io::Error),
}

impl PidLock {
    /// Takes the lock at `path` (creating the file and its directory) or says who holds it.
    pub fn try_acquire(path: &Path) -> Result<PidLock, TryLock> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(TryLock::Io)?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(TryLock::Io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                // The holder writes its pid right after locking; an empty file says "unknown".
                let _ = file.read_to_string(&mut text);
                return Err(TryLock::Held {
                    pid: text.trim().parse().ok(),
                });
            }
            Err(TryLockError::Error(e)) => return Err(TryLock::Io(e)),
        }
        let _ = file.set_len(0);
        let _ = file.seek(SeekFrom::Start(0));
        let _ = write!(file, "{}", std::process::id());
        let _ = file.flush();
        Ok(PidLock {
            file,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for PidLock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_names_its_holder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("locks/t-1.lock");
        let first = PidLock::try_acquire(&path).unwrap();
        match PidLock::try_acquire(&path) {
            Err(TryLock::Held { pid }) => assert_eq!(pid, Some(std::process::id())),
            other => panic!("{other:?}"),
        }
        drop(first);
        PidLock::try_acquire(&path).unwrap();
    }
}
