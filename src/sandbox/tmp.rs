//! The private per-call TMPDIRs, made and removed off the call's path.
//!
//! Every confined call gets a fresh, empty TMPDIR of its own, and it is removed when the call
//! ends. Measured on an ext4 file system mounted with `discard` (this project's CI machines),
//! `rmdir` blocks for about 3 ms while the disk is told the blocks are free, and `mkdir` costs
//! a few hundred µs: more than the rest of the sandbox together. So one worker thread keeps
//! one spare directory ready for the next call and removes the directories of ended calls;
//! a call only takes the spare (or makes one itself when there is none).
//!
//! A directory is handed to one call at a time. It is reused only between calls that may
//! write nowhere else (`Reuse::WriteNothingElse`: the fast lane's read-only profile), and only
//! when the call it served left it empty: such calls cannot carry anything out of their TMPDIR
//! anyway, so handing the next one the same empty directory shows it nothing — and saves the
//! `mkdir`/`rmdir` pair, whose inode allocation and discard were the worker's whole cost. (A
//! process of the earlier call still running could write into it afterwards; it is confined
//! as the next call is, by the same agent.) Every other call gets a directory that was never
//! used, and its directory is removed.
//!
//! The same worker drops what a tree leaves behind: a handle on its mount namespace
//! (`release_later`). The last process of a mount namespace pays for tearing it down as it
//! exits, and that wait (an RCU grace period) made back-to-back confined calls several times
//! slower than the calls themselves; holding the namespace open past the process moves the
//! teardown here, off the call's path.
//!
//! At process exit (`exit(3)`, which returning from `main` also runs) the spare is removed and
//! the removals still queued are waited for, up to `EXIT_WAIT`; a process killed by a signal
//! leaves its directories behind, as any `tempfile` user would.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use tempfile::TempDir;

/// How long exit waits for queued removals.
const EXIT_WAIT: Duration = Duration::from_secs(5);

enum Job {
    MakeSpare,
    /// A call ended: remove its directory, or keep it for reuse (`Reuse`).
    Ended(TempDir, Reuse),
    /// A tree ended: drop this handle on its namespace.
    Release(std::os::fd::OwnedFd),
}

/// Whether a call's TMPDIR may serve another call after it (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reuse {
    /// The call may write no directory but its TMPDIR (devices aside): an empty directory it
    /// leaves may serve the next such call.
    WriteNothingElse,
    /// Never: removed when the call ends.
    Never,
}

struct Worker {
    jobs: Mutex<Sender<Job>>,
    spare: Mutex<Spare>,
    /// Removals queued and not yet done.
    pending: AtomicUsize,
}

#[derive(Default)]
struct Spare {
    dir: Option<TempDir>,
    /// An empty directory a `WriteNothingElse` call left, for the next such call.
    reused: Option<TempDir>,
    /// Exit has begun: no new spare is kept.
    closing: bool,
}

/// A private TMPDIR for one call: empty, and used by no other call now.
pub(super) fn take(reuse: Reuse) -> std::io::Result<TempDir> {
    let Some(worker) = worker() else {
        return make();
    };
    if reuse == Reuse::WriteNothingElse {
        let reused = worker
            .spare
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .reused
            .take();
        if let Some(dir) = reused.filter(|d| is_empty_dir(d.path())) {
            return Ok(dir);
        }
    }
    let spare = worker
        .spare
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .dir
        .take();
    let _ = worker
        .jobs
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .send(Job::MakeSpare);
    match spare {
        Some(dir) => Ok(dir),
        None => make(),
    }
}

/// Removes `dir` (a call's TMPDIR, the call has ended) on the worker — or keeps it for the
/// next call when `reuse` allows and it is empty; where there is no worker, removes it here
/// and now.
pub(super) fn remove_later(dir: TempDir, reuse: Reuse) {
    let Some(worker) = worker() else {
        drop(dir);
        return;
    };
    worker.pending.fetch_add(1, Ordering::SeqCst);
    let sent = worker
        .jobs
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .send(Job::Ended(dir, reuse));
    if let Err(std::sync::mpsc::SendError(Job::Ended(dir, _))) = sent {
        worker.pending.fetch_sub(1, Ordering::SeqCst);
        drop(dir);
    }
}

/// Drops `handle` (on a tree's namespace) on the worker, or here where there is none.
pub(super) fn release_later(handle: std::os::fd::OwnedFd) {
    let Some(worker) = worker() else {
        return;
    };
    let _ = worker
        .jobs
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .send(Job::Release(handle));
}

fn make() -> std::io::Result<TempDir> {
    tempfile::Builder::new().prefix("finch-sandbox-").tempdir()
}

/// Whether `path` is a directory with nothing in it (and not a link to one).
fn is_empty_dir(path: &std::path::Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
        && std::fs::read_dir(path).is_ok_and(|mut entries| entries.next().is_none())
}

/// The worker, started on first use; `None` when no thread could be started.
fn worker() -> Option<&'static Worker> {
    static WORKER: OnceLock<Option<Worker>> = OnceLock::new();
    WORKER
        .get_or_init(|| {
            let (jobs, queue) = channel::<Job>();
            std::thread::Builder::new()
                .name("finch-tmpdirs".into())
                .spawn(move || {
                    for job in queue {
                        let Some(worker) = worker() else { return };
                        match job {
                            Job::Ended(dir, reuse) => {
                                let left = if reuse == Reuse::WriteNothingElse
                                    && is_empty_dir(dir.path())
                                {
                                    worker.keep_for_reuse(dir)
                                } else {
                                    Some(dir)
                                };
                                drop(left);
                                worker.pending.fetch_sub(1, Ordering::SeqCst);
                            }
                            Job::Release(handle) => drop(handle),
                            Job::MakeSpare => {
                                let has_spare = {
                                    let spare =
                                        worker.spare.lock().unwrap_or_else(|e| e.into_inner());
                                    spare.dir.is_some() || spare.closing
                                };
                                if has_spare {
                                    continue;
                                }
                                let Ok(dir) = make() else { continue };
                                let mut spare =
                                    worker.spare.lock().unwrap_or_else(|e| e.into_inner());
                                if spare.dir.is_none() && !spare.closing {
                                    spare.dir = Some(dir);
                                }
                            }
                        }
                    }
                })
                .ok()?;
            // SAFETY: registering a plain function with the C library's exit handlers.
            unsafe { libc::atexit(at_exit) };
            Some(Worker {
                jobs: Mutex::new(jobs),
                spare: Mutex::new(Spare::default()),
                pending: AtomicUsize::new(0),
            })
        })
        .as_ref()
}

impl Worker {
    /// Keeps `dir` as the directory the next `WriteNothingElse` call reuses; gives it back
    /// when one is kept already or exit has begun.
    fn keep_for_reuse(&self, dir: TempDir) -> Option<TempDir> {
        let mut spare = self.spare.lock().unwrap_or_else(|e| e.into_inner());
        if spare.reused.is_some() || spare.closing {
            return Some(dir);
        }
        spare.reused = Some(dir);
        None
    }
}

/// At exit: the spare goes, and the queued removals are waited for (bounded).
extern "C" fn at_exit() {
    let Some(worker) = worker() else { return };
    let spare = {
        let mut spare = worker.spare.lock().unwrap_or_else(|e| e.into_inner());
        spare.closing = true;
        (spare.dir.take(), spare.reused.take())
    };
    drop(spare);
    let until = Instant::now() + EXIT_WAIT;
    while worker.pending.load(Ordering::SeqCst) > 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait_until(what: &str, done: impl Fn() -> bool) {
        let until = Instant::now() + Duration::from_secs(30);
        while !done() {
            assert!(Instant::now() < until, "{what}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn a_call_that_writes_elsewhere_gets_a_fresh_directory_and_its_own_is_removed() {
        let first = take(Reuse::Never).unwrap();
        let path = first.path().to_path_buf();
        remove_later(first, Reuse::Never);
        let second = take(Reuse::Never).unwrap();
        assert_ne!(
            second.path(),
            path,
            "a Never directory is never handed out twice"
        );
        assert!(std::fs::read_dir(second.path()).unwrap().next().is_none());
        wait_until("the ended call's TMPDIR was not removed", || !path.exists());
        drop(second);
    }

    #[test]
    fn an_empty_write_nothing_else_directory_serves_the_next_such_call_and_a_used_one_never() {
        // Left empty: reused by the next call that writes nothing else, and by nothing else.
        let first = take(Reuse::WriteNothingElse).unwrap();
        let empty = first.path().to_path_buf();
        remove_later(first, Reuse::WriteNothingElse);
        wait_until("the empty directory was not kept", || {
            worker().unwrap().spare.lock().unwrap().reused.is_some()
        });
        let writer = take(Reuse::Never).unwrap();
        assert_ne!(
            writer.path(),
            empty,
            "a writing call got a reused directory"
        );
        let second = take(Reuse::WriteNothingElse).unwrap();
        assert_eq!(second.path(), empty, "the empty directory was not reused");

        // Left with a file in it: removed, never handed out again.
        std::fs::write(second.path().join("left"), "x").unwrap();
        remove_later(second, Reuse::WriteNothingElse);
        wait_until("the used directory was not removed", || !empty.exists());
        let third = take(Reuse::WriteNothingElse).unwrap();
        assert_ne!(third.path(), empty);
        assert!(std::fs::read_dir(third.path()).unwrap().next().is_none());
        drop((writer, third));
    }
}
