//! The threads a served session keeps besides its own: the pool that runs the providers'
//! jobs (`Pool`, at most `[host] max_calls`) and the timer that writes call records in bursts
//! (`FlushTimer`).

use super::*;

/// Sends the host thread a `Msg::Quiet` `delay` after it was armed: the moment call records
/// that began to wait are written. Armed once per burst (`arm` does nothing while a wake is
/// due), so it costs one hand-off per burst instead of a timed wait per request.
pub(super) struct FlushTimer {
    arm: Option<std_mpsc::Sender<()>>,
    armed: bool,
}

impl FlushTimer {
    /// The timer's thread; none when `delay` is zero (records are written as calls end) or
    /// the thread cannot start (the host thread then waits with a timeout).
    pub(super) fn start(delay: Duration, to_host: std_mpsc::Sender<Msg>) -> FlushTimer {
        let none = FlushTimer {
            arm: None,
            armed: false,
        };
        if delay.is_zero() {
            return none;
        }
        let (arm, armed) = std_mpsc::channel::<()>();
        let spawned = std::thread::Builder::new()
            .name("finch-records".into())
            .spawn(move || {
                while armed.recv().is_ok() {
                    std::thread::sleep(delay);
                    if to_host.send(Msg::Quiet).is_err() {
                        return;
                    }
                }
            });
        match spawned {
            Ok(_) => FlushTimer {
                arm: Some(arm),
                armed: false,
            },
            Err(_) => none,
        }
    }

    pub(super) fn runs(&self) -> bool {
        self.arm.is_some()
    }

    /// Records wait: a `Quiet` comes `delay` from now, unless one is already due.
    pub(super) fn arm(&mut self) {
        if self.armed {
            return;
        }
        if let Some(arm) = &self.arm {
            if arm.send(()).is_ok() {
                self.armed = true;
            } else {
                self.arm = None;
            }
        }
    }

    /// A `Quiet` came (from the timer, or a stop signal): the next records arm it again.
    pub(super) fn fired(&mut self) {
        self.armed = false;
    }
}

/// The threads a call's job runs on: at most `limit`, started as calls need them and kept;
/// a job beyond the limit waits for one to be free.
///
/// A new thread starts whenever the jobs not yet finished (running or queued, this one
/// included) outnumber the threads, so each queued job has a thread that is free or about to
/// be. Counting free threads instead (as this once did) raced: a thread counted itself free
/// before it took the job already queued for it, so the next job, seeing it free, started no
/// thread and waited behind a job that could run for minutes (issue 30: of eight mini tool
/// calls meant to be in flight at once, some reached their mini tool only after the others
/// ended).
pub(super) struct Pool {
    tasks: Option<std_mpsc::Sender<Task>>,
    queue: Arc<Mutex<std_mpsc::Receiver<Task>>>,
    /// Jobs handed to the pool and not yet finished: running, or queued for a thread.
    unfinished: Arc<AtomicUsize>,
    threads: usize,
    limit: usize,
}

pub(super) type Task = Box<dyn FnOnce() + Send>;

impl Pool {
    pub(super) fn new(limit: usize) -> Pool {
        let (tasks, queue) = std_mpsc::channel();
        Pool {
            tasks: Some(tasks),
            queue: Arc::new(Mutex::new(queue)),
            unfinished: Arc::new(AtomicUsize::new(0)),
            threads: 0,
            limit,
        }
    }

    pub(super) fn run(&mut self, task: Task) {
        let unfinished = self.unfinished.fetch_add(1, Ordering::SeqCst) + 1;
        if unfinished > self.threads && self.threads < self.limit {
            let queue = Arc::clone(&self.queue);
            let count = Arc::clone(&self.unfinished);
            let spawned = std::thread::Builder::new()
                .name("finch-call".into())
                .spawn(move || worker(&queue, &count));
            match spawned {
                Ok(_) => self.threads += 1,
                Err(e) if self.threads == 0 => {
                    // No thread at all: run it here rather than never.
                    crate::eline!(
                        "warning: cannot start a thread for a call ({e}); running it in turn"
                    );
                    let _done = Finished(&self.unfinished);
                    task();
                    return;
                }
                Err(_) => {}
            }
        }
        // A thread that is free, or about to be, takes it; beyond the limit it waits its turn.
        if let Some(tasks) = &self.tasks {
            let _ = tasks.send(task);
        }
    }
}

/// Counts a job finished when its thread is done with it, also when the job panicked.
pub(super) struct Finished<'a>(&'a AtomicUsize);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

pub(super) fn worker(queue: &Mutex<std_mpsc::Receiver<Task>>, unfinished: &AtomicUsize) {
    loop {
        let task = queue.lock().unwrap_or_else(|e| e.into_inner()).recv();
        match task {
            Ok(task) => {
                let _done = Finished(unfinished);
                task();
            }
            Err(_) => return,
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // Idle workers end; running ones end after their task.
        self.tasks.take();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Hands `pool` `count` jobs back to back; each waits (up to a bound far beyond any
    /// scheduling delay) until all `count` run at once. How many met the others.
    fn meet_in_pool(pool: &mut Pool, count: usize) -> usize {
        let here = Arc::new((Mutex::new(0usize), std::sync::Condvar::new()));
        let (met_tx, met_rx) = std_mpsc::channel();
        for _ in 0..count {
            let (here, met_tx) = (Arc::clone(&here), met_tx.clone());
            pool.run(Box::new(move || {
                let (arrived, cv) = &*here;
                let mut n = arrived.lock().unwrap();
                *n += 1;
                cv.notify_all();
                let (n, _) = cv
                    .wait_timeout_while(n, Duration::from_secs(30), |n| *n < count)
                    .unwrap();
                let _ = met_tx.send(*n >= count);
            }));
        }
        drop(met_tx);
        met_rx.iter().filter(|met| *met).count()
    }

    /// Waits until every job handed to `pool` finished and its thread is back for the next.
    fn settled(pool: &Pool) {
        while pool.unfinished.load(Ordering::SeqCst) > 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn the_pool_runs_jobs_handed_back_to_back_at_once_when_its_thread_was_free() {
        // The race of issue 30: one thread free, then two long jobs back to back. The second
        // must get a thread of its own, not wait behind the first.
        for _ in 0..50 {
            let mut pool = Pool::new(8);
            let (done_tx, done_rx) = std_mpsc::channel();
            pool.run(Box::new(move || {
                let _ = done_tx.send(());
            }));
            done_rx.recv().unwrap();
            settled(&pool);
            assert_eq!(meet_in_pool(&mut pool, 2), 2);
            settled(&pool);
            assert_eq!(meet_in_pool(&mut pool, 8), 8);
            assert_eq!(pool.threads, 8);
        }
    }

    #[test]
    fn the_pool_keeps_jobs_beyond_its_limit_waiting_until_a_thread_is_free() {
        let mut pool = Pool::new(2);
        let (release_tx, release_rx) = std_mpsc::channel::<()>();
        let release_rx = Arc::new(Mutex::new(release_rx));
        let (started_tx, started_rx) = std_mpsc::channel();
        for job in 0..3 {
            let (release_rx, started_tx) = (Arc::clone(&release_rx), started_tx.clone());
            pool.run(Box::new(move || {
                let _ = started_tx.send(job);
                let _ = release_rx.lock().unwrap().recv();
            }));
        }
        let mut first: Vec<i32> = vec![started_rx.recv().unwrap(), started_rx.recv().unwrap()];
        first.sort();
        assert_eq!(first, [0, 1]);
        assert_eq!(pool.threads, 2);
        assert!(
            started_rx.try_recv().is_err(),
            "the third job waits for a thread"
        );
        release_tx.send(()).unwrap();
        assert_eq!(started_rx.recv().unwrap(), 2);
        release_tx.send(()).unwrap();
        release_tx.send(()).unwrap();
        settled(&pool);
        assert_eq!(pool.threads, 2);
    }
}
