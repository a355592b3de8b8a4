//! The private per-call TMPDIRs, made and removed off the call's path.
//!
//! Every confined call gets a fresh, empty TMPDIR of its own, and it is removed when the call
//! ends. Measured on an ext4 file system mounted with `discard` (this project's CI machines),
//! `rmdir` blocks for about 3 ms while the disk is told the blocks are free, and `mkdir` costs
//! a few hundred µs: more than the rest of the sandbox together. So one worker thread keeps
//! one spare directory ready for the next call and removes the directories of ended calls;
//! a call only takes the spare (or makes one itself when there is none). Nothing is shared:
//! a directory is handed to exactly one call and never reused.
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
    Remove(TempDir),
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
    /// Exit has begun: no new spare is kept.
    closing: bool,
}

/// A new private TMPDIR for one call.
pub(super) fn take() -> std::io::Result<TempDir> {
    let Some(worker) = worker() else {
        return make();
    };
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

/// Removes `dir` (a call's TMPDIR, the call has ended) on the worker; where there is no worker,
/// here and now.
pub(super) fn remove_later(dir: TempDir) {
    let Some(worker) = worker() else {
        drop(dir);
        return;
    };
    worker.pending.fetch_add(1, Ordering::SeqCst);
    let sent = worker
        .jobs
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .send(Job::Remove(dir));
    if let Err(std::sync::mpsc::SendError(Job::Remove(dir))) = sent {
        worker.pending.fetch_sub(1, Ordering::SeqCst);
        drop(dir);
    }
}

fn make() -> std::io::Result<TempDir> {
    tempfile::Builder::new().prefix("finch-sandbox-").tempdir()
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
                            Job::Remove(dir) => {
                                drop(dir);
                                worker.pending.fetch_sub(1, Ordering::SeqCst);
                            }
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

/// At exit: the spare goes, and the queued removals are waited for (bounded).
extern "C" fn at_exit() {
    let Some(worker) = worker() else { return };
    let spare = {
        let mut spare = worker.spare.lock().unwrap_or_else(|e| e.into_inner());
        spare.closing = true;
        spare.dir.take()
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

    #[test]
    fn each_call_gets_a_fresh_directory_and_an_ended_one_is_removed() {
        let first = take().unwrap();
        let path = first.path().to_path_buf();
        std::fs::write(path.join("left"), "x").unwrap();
        remove_later(first);
        let second = take().unwrap();
        assert_ne!(second.path(), path, "a directory is never handed out twice");
        assert!(std::fs::read_dir(second.path()).unwrap().next().is_none());
        let until = Instant::now() + Duration::from_secs(30);
        while path.exists() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(!path.exists(), "the ended call's TMPDIR was not removed");
        drop(second);
    }
}
