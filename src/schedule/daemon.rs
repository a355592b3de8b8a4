//! `finch schedule daemon`: fires due tasks until it is stopped. It sleeps until the earliest
//! next fire time over all enabled tasks (waking at least once a minute, so a changed wall clock
//! is noticed) or until a message arrives: `tasks.json` changed (a watcher thread compares the
//! file's modification time, size and inode once a second — portable, and as good as inotify at
//! this scale), a run started or finished, or a stop was asked for.
//!
//! Fire times are not caught up unless the task asks (`catchUp`): a fire time is run only while
//! it is less than `late_limit` old (a minute by default), so a daemon that was down, or a machine
//! that slept, runs the next fire time and reports the missed ones — at start-up too, counted
//! from each task's last run (see `Daemon::run`). A task with `catchUp` runs once for the latest
//! fire time it missed, as systemd's `Persistent=` timers and anacron do. Each due task runs on its own thread through the `Runner`,
//! whose per-task lock keeps runs of one task from overlapping (with another daemon's, or a
//! `finch schedule run`). One daemon at a time: it holds `<runtime>/automation/daemon.lock`.
//! On stop, running agents are stopped (SIGTERM to their process group, SIGKILL after the
//! runner's grace period) and recorded as failed with a note saying so.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};

use super::ScheduleError;
use super::history::{self, RunRecord, Trigger};
use super::recover;
use super::runner::{Cancel, RunStarted, Runner};
use super::signals::StopSignal;
use super::tasks::{self, Task, TaskFile};
use crate::store::{PidLock, TryLock};

/// How the daemon waits.
#[derive(Debug, Clone)]
pub struct DaemonOptions {
    /// How old a fire time may be and still run (the daemon woke late, or the clock jumped).
    pub late_limit: Duration,
    /// How often `tasks.json` is checked for changes.
    pub reload_interval: Duration,
    /// The longest sleep, so that a wall-clock change is noticed.
    pub max_sleep: Duration,
}

impl Default for DaemonOptions {
    fn default() -> Self {
        DaemonOptions {
            late_limit: Duration::from_secs(60),
            reload_interval: Duration::from_secs(1),
            max_sleep: Duration::from_secs(60),
        }
    }
}

/// What the daemon reports, in order.
#[derive(Debug, Clone)]
pub enum DaemonEvent {
    Ready {
        pid: u32,
        tasks: usize,
        broken: usize,
        next: Option<(String, DateTime<Utc>)>,
    },
    Reloaded {
        tasks: usize,
        broken: usize,
    },
    /// `tasks.json` could not be read after a change; the daemon keeps the tasks it had.
    ReloadFailed(String),
    Started(RunStarted),
    /// A run finished, or was skipped because another run of the task was going.
    Finished(RunRecord),
    /// A run could not be recorded (its history could not be written, say).
    RunFailed {
        task_id: String,
        message: String,
    },
    /// Fire times passed while no daemon was there to run them (it was not running, or the
    /// machine slept): the first and the latest, how many, and whether the task catches up
    /// (runs once now, for the latest).
    Missed {
        task_id: String,
        task_name: String,
        scheduled_for: DateTime<Utc>,
        latest: DateTime<Utc>,
        count: usize,
        catch_up: bool,
    },
    /// A run left behind by a daemon that died was ended at start-up, and recorded.
    Orphan(RunRecord),
    Stopping {
        signal: StopSignal,
        running: usize,
    },
    Stopped,
}

enum Wake {
    Stop(StopSignal),
    TasksChanged,
    Started(RunStarted),
    Finished(u64, String, Result<RunRecord, String>),
}

/// Asks a running daemon to stop.
#[derive(Clone)]
pub struct DaemonControl {
    tx: Sender<Wake>,
}

impl DaemonControl {
    pub fn stop(&self, signal: StopSignal) {
        let _ = self.tx.send(Wake::Stop(signal));
    }
}

/// A daemon that holds the daemon lock and is ready to run.
pub struct Daemon {
    runner: Arc<Runner>,
    options: DaemonOptions,
    tx: Sender<Wake>,
    rx: mpsc::Receiver<Wake>,
    _lock: PidLock,
}

/// What is due at one moment.
#[derive(Debug, Default, PartialEq)]
pub struct Plan {
    /// Tasks (index into the list) to run now, with the fire time each run is for.
    pub due: Vec<(usize, DateTime<Utc>)>,
    /// Tasks whose fire times passed too long ago to run.
    pub missed: Vec<Missed>,
    /// Tasks with `catchUp` that missed fire times and have none due: each runs once now, for
    /// the latest one it missed.
    pub catch_up: Vec<(usize, DateTime<Utc>)>,
    /// The earliest fire time after `now`.
    pub wake_at: Option<DateTime<Utc>>,
}

/// The fire times one task missed.
#[derive(Debug, Clone, PartialEq)]
pub struct Missed {
    pub task: usize,
    pub first: DateTime<Utc>,
    pub latest: DateTime<Utc>,
    pub count: usize,
}

/// At most this many missed fire times of one task are counted (an every-minute task after a
/// year away has half a million).
const MAX_COUNTED: usize = 100_000;

/// Decides which enabled tasks fire in `(since, now]`: each runs once, for its latest fire time
/// in that window that is at most `late_limit` old; older fire times are missed (and a task with
/// `catchUp` that has none due runs once for the latest of them).
pub fn plan(
    tasks: &[Task],
    since: DateTime<Utc>,
    now: DateTime<Utc>,
    late_limit: Duration,
) -> Plan {
    plan_each(tasks, |_| since, now, late_limit)
}

/// `plan` with a window start of its own for each task (at start-up: since the task's last run,
/// its last change, or the last sign of a running daemon).
pub fn plan_each(
    tasks: &[Task],
    since_of: impl Fn(&Task) -> DateTime<Utc>,
    now: DateTime<Utc>,
    late_limit: Duration,
) -> Plan {
    let late_limit = TimeDelta::from_std(late_limit).unwrap_or(TimeDelta::MAX);
    let mut plan = Plan::default();
    for (i, task) in tasks.iter().enumerate().filter(|(_, t)| t.enabled) {
        let since = since_of(task).min(now);
        let oldest = now
            .checked_sub_signed(late_limit)
            .unwrap_or(since)
            .max(since);
        if let Some(first) = task.next_after(since).filter(|f| *f <= now) {
            let mut missed = None;
            if first <= oldest {
                let (mut latest, mut count) = (first, 1);
                while count < MAX_COUNTED
                    && let Some(next) = task.next_after(latest).filter(|n| *n <= oldest)
                {
                    latest = next;
                    count += 1;
                }
                missed = Some(latest);
                plan.missed.push(Missed {
                    task: i,
                    first,
                    latest,
                    count,
                });
            }
            let mut latest = None;
            let mut cursor = oldest;
            while let Some(next) = task.next_after(cursor).filter(|n| *n <= now) {
                latest = Some(next);
                cursor = next;
            }
            if let Some(at) = latest {
                plan.due.push((i, at));
            } else if let Some(at) = missed.filter(|_| task.catch_up) {
                plan.catch_up.push((i, at));
            }
        }
        if let Some(next) = task.next_after(now) {
            plan.wake_at = Some(plan.wake_at.map_or(next, |w| w.min(next)));
        }
    }
    plan
}

/// The path of the daemon lock.
pub fn lock_path(runner: &Runner) -> PathBuf {
    runner.homes.runtime.join("automation").join("daemon.lock")
}

impl Daemon {
    /// Takes the daemon lock. Fails when no agent is configured or another daemon runs.
    pub fn new(runner: Runner, options: DaemonOptions) -> Result<Daemon, ScheduleError> {
        runner.agent_command()?;
        let path = lock_path(&runner);
        let lock = match PidLock::try_acquire(&path) {
            Ok(lock) => lock,
            Err(TryLock::Held { pid }) => return Err(ScheduleError::DaemonRunning { pid, path }),
            Err(TryLock::Io(source)) => {
                return Err(ScheduleError::Io {
                    action: "lock",
                    path,
                    source,
                });
            }
        };
        let (tx, rx) = mpsc::channel();
        Ok(Daemon {
            runner: Arc::new(runner),
            options,
            tx,
            rx,
            _lock: lock,
        })
    }

    pub fn control(&self) -> DaemonControl {
        DaemonControl {
            tx: self.tx.clone(),
        }
    }

    /// Runs until stopped; returns the signal that stopped it.
    ///
    /// At start-up, before `Ready`: runs a daemon that died left behind are ended and recorded
    /// (`recover`). After it: fire times missed since each task last ran (or was changed, or
    /// a daemon was last seen running) are reported, and those of tasks with `catchUp` run once.
    pub fn run(self, report: &mut dyn FnMut(DaemonEvent)) -> Result<StopSignal, ScheduleError> {
        let clock = self.runner.clock;
        let homes = &self.runner.homes;
        let mut file: TaskFile = tasks::load(homes)?;
        for ended in recover::end_orphans(&self.runner) {
            report(match ended {
                Ok(record) => DaemonEvent::Orphan(record),
                Err(message) => DaemonEvent::RunFailed {
                    task_id: String::new(),
                    message,
                },
            });
        }
        let seen = recover::last_seen(&self.runner);
        let watching = Arc::new(AtomicBool::new(true));
        self.watch_tasks(Arc::clone(&watching));
        let mut since = clock();
        let next = file
            .tasks
            .iter()
            .filter(|t| t.enabled)
            .filter_map(|t| Some((t.id.clone(), t.next_after(since)?)))
            .min_by_key(|(_, at)| *at);
        report(DaemonEvent::Ready {
            pid: std::process::id(),
            tasks: file.tasks.len(),
            broken: file.broken.len(),
            next,
        });
        let mut running: HashMap<u64, Cancel> = HashMap::new();
        let mut run_counter = 0u64;
        let mut first = Some(since);
        let mut saved = since;
        let _ = recover::save_last_seen(&self.runner, since);
        let signal = loop {
            let now = clock().max(since);
            let plan = match first.take() {
                Some(start) => plan_each(
                    &file.tasks,
                    |t| window_start(homes, t, seen).unwrap_or(start),
                    now,
                    self.options.late_limit,
                ),
                None => plan(&file.tasks, since, now, self.options.late_limit),
            };
            for m in &plan.missed {
                let task = &file.tasks[m.task];
                report(DaemonEvent::Missed {
                    task_id: task.id.clone(),
                    task_name: task.name.clone(),
                    scheduled_for: m.first,
                    latest: m.latest,
                    count: m.count,
                    catch_up: task.catch_up,
                });
            }
            let catch_up = plan.catch_up.iter().map(|(i, at)| (i, at, true));
            for (i, at, catching_up) in plan
                .due
                .iter()
                .map(|(i, at)| (i, at, false))
                .chain(catch_up)
            {
                run_counter += 1;
                let cancel = Cancel::default();
                running.insert(run_counter, cancel.clone());
                self.start_run(
                    run_counter,
                    file.tasks[*i].clone(),
                    *at,
                    catching_up,
                    cancel,
                );
            }
            since = now;
            // A sign of life for the next daemon, should this one die (at most twice a minute).
            if now - saved >= TimeDelta::seconds(30) {
                saved = now;
                let _ = recover::save_last_seen(&self.runner, now);
            }
            let sleep = plan
                .wake_at
                .and_then(|at| (at - clock()).to_std().ok())
                .unwrap_or(self.options.max_sleep)
                .min(self.options.max_sleep);
            match self.rx.recv_timeout(sleep) {
                Ok(Wake::Stop(signal)) => break signal,
                Ok(Wake::TasksChanged) => match tasks::load(homes) {
                    Ok(new) => {
                        file = new;
                        report(DaemonEvent::Reloaded {
                            tasks: file.tasks.len(),
                            broken: file.broken.len(),
                        });
                    }
                    Err(e) => report(DaemonEvent::ReloadFailed(e.to_string())),
                },
                Ok(Wake::Started(started)) => report(DaemonEvent::Started(started)),
                Ok(Wake::Finished(key, task_id, result)) => {
                    running.remove(&key);
                    report(finished(task_id, result));
                }
                Err(RecvTimeoutError::Timeout) => {}
                // The daemon holds a sender itself, so the channel cannot close.
                Err(RecvTimeoutError::Disconnected) => break StopSignal::Terminate,
            }
        };
        watching.store(false, Ordering::Relaxed);
        report(DaemonEvent::Stopping {
            signal,
            running: running.len(),
        });
        let note = format!("stopped: the daemon received {}", signal.name());
        for cancel in running.values() {
            cancel.cancel(&note);
        }
        while !running.is_empty() {
            match self.rx.recv() {
                Ok(Wake::Started(started)) => report(DaemonEvent::Started(started)),
                Ok(Wake::Finished(key, task_id, result)) => {
                    running.remove(&key);
                    report(finished(task_id, result));
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
        let _ = recover::save_last_seen(&self.runner, clock());
        report(DaemonEvent::Stopped);
        Ok(signal)
    }

    fn start_run(&self, key: u64, task: Task, at: DateTime<Utc>, catch_up: bool, cancel: Cancel) {
        let runner = Arc::clone(&self.runner);
        let tx = self.tx.clone();
        std::thread::spawn(move || {
            let started_tx = tx.clone();
            let mut extra = serde_json::Map::new();
            if catch_up {
                extra.insert("catchUp".into(), true.into());
            }
            let result = runner.run_with(
                &task,
                Trigger::Schedule,
                Some(at),
                extra,
                &cancel,
                &mut |s| {
                    let _ = started_tx.send(Wake::Started(s.clone()));
                },
            );
            let _ = tx.send(Wake::Finished(
                key,
                task.id.clone(),
                result.map_err(|e| e.to_string()),
            ));
        });
    }

    /// Sends `TasksChanged` when the task file's modification time, size or inode changes.
    fn watch_tasks(&self, watching: Arc<AtomicBool>) {
        let path = self.runner.homes.tasks_json();
        let interval = self.options.reload_interval;
        let tx = self.tx.clone();
        std::thread::spawn(move || {
            let mut seen = fingerprint(&path);
            while watching.load(Ordering::Relaxed) {
                std::thread::sleep(interval);
                let now = fingerprint(&path);
                if now != seen {
                    seen = now;
                    if tx.send(Wake::TasksChanged).is_err() {
                        break;
                    }
                }
            }
        });
    }
}

/// Where a task's window of fire times starts at start-up: the latest of its creation, its last
/// change, the start of its last run and the last sign of a running daemon; `None` when none is
/// known (nothing is reported missed then).
fn window_start(
    homes: &crate::homes::Homes,
    task: &Task,
    seen: Option<DateTime<Utc>>,
) -> Option<DateTime<Utc>> {
    let parse = |text: &str| {
        DateTime::parse_from_rfc3339(text)
            .ok()
            .map(|t| t.with_timezone(&Utc))
    };
    let last_run = history::last(homes, &task.id).and_then(|r| parse(&r.started_at));
    [
        parse(&task.created_at),
        parse(&task.updated_at),
        last_run,
        seen,
    ]
    .into_iter()
    .flatten()
    .max()
}

fn finished(task_id: String, result: Result<RunRecord, String>) -> DaemonEvent {
    match result {
        Ok(record) => DaemonEvent::Finished(record),
        Err(message) => DaemonEvent::RunFailed { task_id, message },
    }
}

type Fingerprint = Option<(std::time::SystemTime, u64, u64)>;

fn fingerprint(path: &std::path::Path) -> Fingerprint {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let inode = 0;
    Some((meta.modified().ok()?, meta.len(), inode))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, schedule: &str, enabled: bool) -> Task {
        Task::from_json(serde_json::json!({
            "id": id, "name": id, "prompt": "p", "schedule": schedule,
            "timezone": "UTC", "enabled": enabled
        }))
        .unwrap()
    }

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    const LATE: Duration = Duration::from_secs(60);

    #[test]
    fn due_missed_and_wake_times() {
        let tasks = [
            task("daily", "daily 09:00", true),
            task("hourly", "hourly", true),
            task("off", "hourly at :30", false),
            task("past", "once 2026-01-01T00:00:00Z", true),
        ];
        // (since, now, due, missed, wake)
        type Fires<'a> = &'a [(usize, &'a str)];
        let cases: &[(&str, &str, Fires, Fires, &str)] = &[
            // Nothing between two moments before 09:00.
            (
                "2026-04-01T08:59:00Z",
                "2026-04-01T08:59:59.500Z",
                &[],
                &[],
                "2026-04-01T09:00:00Z",
            ),
            // On time, and a few seconds late: both tasks fire at 09:00.
            (
                "2026-04-01T08:59:59.500Z",
                "2026-04-01T09:00:00.200Z",
                &[(0, "2026-04-01T09:00:00Z"), (1, "2026-04-01T09:00:00Z")],
                &[],
                "2026-04-01T10:00:00Z",
            ),
            (
                "2026-04-01T08:59:59Z",
                "2026-04-01T09:00:45Z",
                &[(0, "2026-04-01T09:00:00Z"), (1, "2026-04-01T09:00:00Z")],
                &[],
                "2026-04-01T10:00:00Z",
            ),
            // The same window twice does not fire twice.
            (
                "2026-04-01T09:00:00.200Z",
                "2026-04-01T09:00:01Z",
                &[],
                &[],
                "2026-04-01T10:00:00Z",
            ),
            // Five minutes late: missed, not caught up.
            (
                "2026-04-01T08:59:00Z",
                "2026-04-01T09:05:00Z",
                &[],
                &[(0, "2026-04-01T09:00:00Z"), (1, "2026-04-01T09:00:00Z")],
                "2026-04-01T10:00:00Z",
            ),
            // Asleep for hours: each task runs once, for its fire time within the limit, and the
            // hourly one reports the first fire time it missed.
            (
                "2026-04-01T05:30:00Z",
                "2026-04-01T09:00:30Z",
                &[(0, "2026-04-01T09:00:00Z"), (1, "2026-04-01T09:00:00Z")],
                &[(1, "2026-04-01T06:00:00Z")],
                "2026-04-01T10:00:00Z",
            ),
        ];
        for (since, now, due, missed, wake) in cases {
            let got = plan(&tasks, at(since), at(now), LATE);
            let want_due: Vec<_> = due.iter().map(|(i, t)| (*i, at(t))).collect();
            let want_missed: Vec<_> = missed.iter().map(|(i, t)| (*i, at(t))).collect();
            let got_missed: Vec<_> = got.missed.iter().map(|m| (m.task, m.first)).collect();
            assert_eq!(got.due, want_due, "({since}, {now}]");
            assert_eq!(got_missed, want_missed, "({since}, {now}]");
            assert_eq!(got.wake_at, Some(at(wake)), "({since}, {now}]");
            assert!(got.catch_up.is_empty());
        }
        // Only disabled or finished tasks: nothing to wake for.
        let idle = plan(
            &tasks[2..],
            at("2026-04-01T08:00:00Z"),
            at("2026-04-01T09:00:00Z"),
            LATE,
        );
        assert_eq!(idle, Plan::default());
    }

    #[test]
    fn missed_fire_times_are_counted_and_caught_up_once_when_asked() {
        let mut catching = task("catching", "hourly", true);
        catching.catch_up = true;
        let tasks = [task("plain", "hourly", true), catching];
        // Down from 05:30 to 09:20: 06:00, 07:00, 08:00 and 09:00 missed, none due.
        let got = plan(
            &tasks,
            at("2026-04-01T05:30:00Z"),
            at("2026-04-01T09:20:00Z"),
            LATE,
        );
        assert!(got.due.is_empty());
        let missed: Vec<_> = got
            .missed
            .iter()
            .map(|m| (m.task, m.first, m.latest, m.count))
            .collect();
        let one = (
            at("2026-04-01T06:00:00Z"),
            at("2026-04-01T09:00:00Z"),
            4usize,
        );
        assert_eq!(missed, [(0, one.0, one.1, one.2), (1, one.0, one.1, one.2)]);
        assert_eq!(got.catch_up, [(1, at("2026-04-01T09:00:00Z"))]);
        // A fire time still within the limit runs as usual; nothing to catch up then.
        let got = plan(
            &tasks,
            at("2026-04-01T05:30:00Z"),
            at("2026-04-01T09:00:30Z"),
            LATE,
        );
        assert_eq!(got.due.len(), 2);
        assert!(got.catch_up.is_empty());
        // Each task's own window: one that ran at 08:00 missed only 09:00.
        let got = plan_each(
            &tasks,
            |t| {
                if t.id == "plain" {
                    at("2026-04-01T08:00:00.010Z")
                } else {
                    at("2026-04-01T09:10:00Z")
                }
            },
            at("2026-04-01T09:20:00Z"),
            LATE,
        );
        let missed: Vec<_> = got.missed.iter().map(|m| (m.task, m.count)).collect();
        assert_eq!(missed, [(0, 1)]);
        assert!(got.catch_up.is_empty());
    }
}
