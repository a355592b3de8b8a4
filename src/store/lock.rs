//! Exclusive advisory locks held through a lock file that names the holder's pid, so that a
//! waiting finch can say who it is waiting for: `DirLock` guards a state directory through its
//! `.lock` file (waiting up to a timeout), `PidLock` any lock file (waited for, or tried once).
//! A lock is released when it is dropped or its process dies (the kernel drops `flock` locks of
//! dead processes, so a crash never leaves a stale lock behind). A wait longer than `SAY_AFTER`
//! says so once on stderr — "waiting for <what> (held by pid N)…" — so that a person knows
//! why nothing happens (the one line the store itself prints).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// File name of the lock inside a locked directory.
pub const LOCK_FILE: &str = ".lock";

/// How long a wait for a lock goes on in silence.
const SAY_AFTER: Duration = Duration::from_secs(1);

/// Tells a person once, after `SAY_AFTER`, whom a lock's wait is for.
struct Waiting {
    started: Instant,
    said: bool,
}

impl Waiting {
    fn new() -> Waiting {
        Waiting {
            started: Instant::now(),
            said: false,
        }
    }

    fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    fn tick(&mut self, what: &str, holder: impl FnOnce() -> String) {
        if self.said || self.started.elapsed() < SAY_AFTER {
            return;
        }
        self.said = true;
        crate::eline!("waiting for {what} ({})…", held_by(&holder()));
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("another finch is changing {what} ({})", held_by(pid))]
    Held {
        what: String,
        /// The holder's pid as its lock file names it; empty when it names none.
        pid: String,
        path: PathBuf,
    },
    #[error("cannot lock {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Who holds a lock, for a message: `held by pid 42`, or `held by another process` when the
/// lock file names no pid (its holder had not written it yet, or another program holds it).
fn held_by(pid: &str) -> String {
    if pid.trim().is_empty() {
        "held by another process".to_string()
    } else {
        format!("held by pid {}", pid.trim())
    }
}

/// Proof that this process holds the lock file at one path.
#[derive(Debug)]
pub struct PidLock {
    file: File,
    path: PathBuf,
}

/// Why a single attempt at a lock failed.
#[derive(Debug)]
pub enum TryLock {
    /// Another process holds it; its pid when the file says.
    Held {
        pid: Option<u32>,
    },
    Io(std::io::Error),
}

impl PidLock {
    /// One attempt at the lock at `path` (creating the file and its directory).
    pub fn try_acquire(path: &Path) -> Result<PidLock, TryLock> {
        let mut file = open_lock_file(path).map_err(TryLock::Io)?;
        match file.try_lock() {
            Ok(()) => Ok(PidLock::record(file, path)),
            Err(TryLockError::WouldBlock) => Err(TryLock::Held {
                pid: holder(&mut file).parse().ok(),
            }),
            Err(TryLockError::Error(e)) => Err(TryLock::Io(e)),
        }
    }

    /// Takes the lock at `path`, waiting up to `timeout` for another holder to let go. `what`
    /// names the state being protected in the error message.
    pub fn acquire(path: &Path, what: &str, timeout: Duration) -> Result<PidLock, LockError> {
        let io = |source| LockError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut file = open_lock_file(path).map_err(io)?;
        let mut waiting = Waiting::new();
        let mut pause = Duration::from_millis(2);
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(PidLock::record(file, path)),
                Err(TryLockError::WouldBlock) if waiting.elapsed() >= timeout => {
                    // Empty when the lock file names no pid (`held_by`).
                    let pid = holder(&mut file);
                    return Err(LockError::Held {
                        what: what.to_string(),
                        pid,
                        path: path.to_path_buf(),
                    });
                }
                Err(TryLockError::WouldBlock) => {
                    waiting.tick(what, || holder(&mut file));
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                Err(TryLockError::Error(e)) => return Err(io(e)),
            }
        }
    }

    /// Writes this process's pid into a freshly taken lock; failing to is no reason to fail.
    fn record(mut file: File, path: &Path) -> PidLock {
        let _ = file.set_len(0);
        let _ = file.seek(SeekFrom::Start(0));
        let _ = write!(file, "{}", std::process::id());
        let _ = file.flush();
        PidLock {
            file,
            path: path.to_path_buf(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The open lock file (a child that inherits it holds the lock with this process).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Replaces what the lock file says about its holder (the pid written when it was taken)
    /// with `text`; failing to is no reason to fail.
    pub fn describe(&mut self, text: &str) {
        let _ = self.file.set_len(0);
        let _ = self.file.seek(SeekFrom::Start(0));
        let _ = self.file.write_all(text.as_bytes());
        let _ = self.file.flush();
    }
}

impl Drop for PidLock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

fn open_lock_file(path: &Path) -> std::io::Result<File> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
}

/// The pid the holder wrote (empty when unreadable: the holder writes it right after locking).
fn holder(file: &mut File) -> String {
    let mut text = String::new();
    let _ = file.read_to_string(&mut text);
    text.trim().to_string()
}

/// Proof that this process holds the lock of one directory (its `.lock` file).
#[derive(Debug)]
pub struct DirLock(PidLock);

impl DirLock {
    /// Takes the lock of `dir` (creating the directory if needed), waiting up to `timeout` for
    /// another holder to let go. `what` names the state being protected in the error message.
    pub fn acquire(dir: &Path, what: &str, timeout: Duration) -> Result<DirLock, LockError> {
        PidLock::acquire(&dir.join(LOCK_FILE), what, timeout).map(DirLock)
    }

    pub fn path(&self) -> &Path {
        self.0.path()
    }
}

/// A directory's lock file kept open for many short holds by one process (a run appending a
/// transcript entry per call): each hold is one `flock` and one unlock, with no open, truncate or
/// close. The file is left holding this process's pid between holds; it is rewritten only when
/// another holder changed it, so a waiting finch still names the right holder.
#[derive(Debug)]
pub struct HeldOpen {
    file: File,
    path: PathBuf,
    what: String,
    pid: String,
}

/// One hold of a `HeldOpen` lock; released when dropped.
#[derive(Debug)]
pub struct Hold<'a>(&'a File);

impl Drop for Hold<'_> {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

impl HeldOpen {
    /// Opens (creating) the lock file of `dir`; `what` names the protected state in messages.
    pub fn open(dir: &Path, what: &str) -> Result<HeldOpen, LockError> {
        let path = dir.join(LOCK_FILE);
        let file = open_lock_file(&path).map_err(|source| LockError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(HeldOpen {
            file,
            path,
            what: what.to_string(),
            pid: std::process::id().to_string(),
        })
    }

    /// Takes the lock, waiting up to `timeout` for another holder.
    pub fn hold(&mut self, timeout: Duration) -> Result<Hold<'_>, LockError> {
        let mut waiting = Waiting::new();
        let mut pause = Duration::from_millis(1);
        loop {
            match self.file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) if waiting.elapsed() >= timeout => {
                    // Empty when the lock file names no pid (`held_by`).
                    let pid = holder_of(&self.file);
                    return Err(LockError::Held {
                        what: self.what.clone(),
                        pid,
                        path: self.path.clone(),
                    });
                }
                Err(TryLockError::WouldBlock) => {
                    waiting.tick(&self.what, || holder_of(&self.file));
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                Err(TryLockError::Error(source)) => {
                    return Err(LockError::Io {
                        path: self.path.clone(),
                        source,
                    });
                }
            }
        }
        // Usually the file still names this process from its previous hold: one read, no write.
        let mut buf = [0u8; 32];
        let n = read_start(&self.file, &mut buf).unwrap_or(0);
        if buf[..n].trim_ascii() != self.pid.as_bytes() {
            let mut file = &self.file;
            let _ = file.set_len(0);
            let _ = file.seek(SeekFrom::Start(0));
            let _ = file.write_all(self.pid.as_bytes());
        }
        Ok(Hold(&self.file))
    }
}

fn holder_of(file: &File) -> String {
    let mut buf = [0u8; 32];
    let n = read_start(file, &mut buf).unwrap_or(0);
    String::from_utf8_lossy(&buf[..n]).trim().to_string()
}

/// Reads the start of `file` (a positioned read where the platform has one: one system call,
/// and the file position is left alone).
#[cfg(unix)]
fn read_start(file: &File, buf: &mut [u8]) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, 0)
}

#[cfg(not(unix))]
fn read_start(mut file: &File, buf: &mut [u8]) -> std::io::Result<usize> {
    file.seek(SeekFrom::Start(0))?;
    file.read(buf)
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

    #[test]
    fn a_held_open_lock_excludes_others_and_names_its_holder() {
        let dir = tempfile::tempdir().unwrap();
        let mut held = HeldOpen::open(dir.path(), "the log").unwrap();
        let pid = std::process::id().to_string();
        {
            let _hold = held.hold(Duration::from_secs(1)).unwrap();
            let err = DirLock::acquire(dir.path(), "x", Duration::from_millis(20)).unwrap_err();
            assert!(
                matches!(&err, LockError::Held { pid: p, .. } if *p == pid),
                "{err:?}"
            );
        }
        let other = DirLock::acquire(dir.path(), "x", Duration::from_millis(20)).unwrap();
        let err = held.hold(Duration::from_millis(20)).unwrap_err();
        assert!(
            matches!(&err, LockError::Held { what, .. } if what == "the log"),
            "{err:?}"
        );
        drop(other);
        let _hold = held.hold(Duration::from_millis(20)).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join(LOCK_FILE)).unwrap(),
            pid
        );
    }

    #[test]
    fn a_tried_lock_names_its_holder() {
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
