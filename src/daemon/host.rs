//! The running daemon: takes the daemon lock, binds the control socket, starts every enabled
//! mini tool through the same runtime `finch run` uses (so each is confined by its manifest, as
//! there), runs the schedule runner on a thread beside them, and then loops: every tick it
//! starts again the mini tools whose process died once their backoff passed, and rotates the
//! logs; requests on the socket are answered on a thread of their own. SIGINT, SIGTERM and a
//! `stop` request end it the same way: the schedule runner stops its agents, every mini tool
//! gets `deactivate()`, the socket file goes, and the lock is released.
//!
//! Choices where the issue is silent: the daemon holds no host session with a person in it,
//! so nothing it runs can ask one — a mini tool's dialog answers "not answered", a card is
//! "deny" — and the permission mode its mini tools' agent sessions are clamped to is
//! `[host] mode`, else `acceptCalls`, as for scheduled runs (nobody watches either). Their
//! `ctx.session` is one session of the daemon's run, in the agent home. The schedule runner is
//! left out (and `status` says why) when no `[agent] command` is set or a `finch schedule
//! daemon` already runs; the mini tools run all the same.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::logs;
use super::procs;
use super::protocol::{DaemonStatus, MiniToolReport, Reply, Request, ScheduleStatus};
use super::{DaemonError, DaemonPaths, checked_socket};
use crate::config::Settings;
use crate::env::Env;
use crate::homes::Homes;
use crate::host::policy::Mode;
use crate::host::runtime::{
    EventHook, MiniToolRuntime, RuntimeEvent, SessionInfo, StartOptions, StartReport,
};
use crate::schedule::ScheduleError;
use crate::schedule::daemon::{Daemon as ScheduleDaemon, DaemonEvent, DaemonOptions};
use crate::schedule::report::runner_for;
use crate::schedule::signals::{StopSignal, on_stop_signal};
use crate::store::{PidLock, TryLock};

/// How often the daemon looks for mini tools to start again.
pub const TICK: Duration = Duration::from_millis(250);
/// How often the logs are checked for rotation.
const ROTATE_EVERY: Duration = Duration::from_secs(30);

/// What the daemon reports, in order.
#[derive(Debug, Clone)]
pub enum Event {
    /// Everything started: the mini tools (each one's outcome), the socket, the schedule.
    Ready {
        pid: u32,
        socket: PathBuf,
        report: Box<StartReport>,
        schedule: ScheduleStatus,
    },
    /// A mini tool's process died (or misbehaved) and was stopped.
    Fault {
        id: String,
        message: String,
        log: PathBuf,
    },
    /// A mini tool said something (`ctx.ui.showToast`, `notify`).
    Notice {
        id: String,
        text: String,
    },
    /// A stopped mini tool runs again.
    Restarted {
        id: String,
        pid: u32,
        restarts: u32,
    },
    /// A stopped mini tool could not be started again; it is tried after its backoff.
    RestartFailed {
        id: String,
        error: String,
    },
    /// What the schedule runner reports.
    Schedule(Box<DaemonEvent>),
    Stopping {
        why: StopWhy,
    },
    Stopped,
}

/// Why the daemon stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopWhy {
    Signal(StopSignal),
    /// `finch daemon stop`.
    Requested,
}

impl StopWhy {
    pub fn describe(self) -> &'static str {
        match self {
            StopWhy::Signal(s) => s.name(),
            StopWhy::Requested => "finch daemon stop",
        }
    }
}

enum Wake {
    Stop(StopWhy),
    Runtime(RuntimeEvent),
    Schedule(Box<DaemonEvent>),
}

/// What the socket thread needs to answer.
struct Shared {
    pid: u32,
    started_at: String,
    socket: PathBuf,
    runtime: MiniToolRuntime,
    restarts: Mutex<HashMap<String, u32>>,
    schedule: Mutex<ScheduleStatus>,
    stop: Sender<Wake>,
    stopping: AtomicBool,
}

/// Runs the daemon until it is stopped; returns why it stopped.
pub fn run(
    homes: &Homes,
    settings: &Settings,
    env: &Env,
    report: &mut dyn FnMut(Event),
) -> Result<StopWhy, DaemonError> {
    let paths = DaemonPaths::of(homes);
    let socket = checked_socket(&paths)?.to_path_buf();
    make_private_dir(&paths.dir)?;
    let _lock = match PidLock::try_acquire(&paths.lock) {
        Ok(lock) => lock,
        Err(TryLock::Held { pid }) => {
            return Err(DaemonError::Running {
                pid,
                lock: paths.lock.clone(),
            });
        }
        Err(TryLock::Io(e)) => return Err(DaemonError::io("lock", &paths.lock, e)),
    };
    let listener = bind(&socket)?;
    let (tx, rx) = mpsc::channel::<Wake>();
    let signals = tx.clone();
    on_stop_signal(move |signal| {
        let _ = signals.send(Wake::Stop(StopWhy::Signal(signal)));
    })
    .map_err(|e| DaemonError::Start(format!("cannot handle signals: {e}")))?;

    let _ = std::fs::create_dir_all(&homes.agent);
    let session = SessionInfo {
        id: crate::ids::new_session_id(),
        cwd: homes.agent.clone(),
        project: homes.agent.clone(),
        trusted: Vec::new(),
        mode: match settings.host_mode.as_deref() {
            Some("ask") => Mode::Ask,
            _ => Mode::AcceptCalls,
        },
        approve: Vec::new(),
    };
    let hook_tx = Mutex::new(tx.clone());
    let hook: EventHook = Arc::new(move |event: &RuntimeEvent| {
        let forward = matches!(
            event,
            RuntimeEvent::Fault { .. } | RuntimeEvent::Notice { .. }
        );
        if forward {
            let tx = hook_tx.lock().unwrap_or_else(|e| e.into_inner());
            let _ = tx.send(Wake::Runtime(event.clone()));
        }
    });
    let (runtime, start_report) = MiniToolRuntime::start(StartOptions {
        homes,
        settings,
        env,
        dirs: &[],
        session: Some(session),
        hook: Some(hook),
        only: None,
        background: None,
        consent: None,
    })
    .map_err(|e| DaemonError::Start(e.to_string()))?;

    let (schedule, schedule_thread) = start_schedule(homes, settings, &tx);
    let shared = Arc::new(Shared {
        pid: std::process::id(),
        started_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        socket: socket.clone(),
        runtime: runtime.clone(),
        restarts: Mutex::new(HashMap::new()),
        schedule: Mutex::new(schedule.0.clone()),
        stop: tx.clone(),
        stopping: AtomicBool::new(false),
    });
    serve(listener, shared.clone());
    report(Event::Ready {
        pid: shared.pid,
        socket: socket.clone(),
        report: Box::new(start_report),
        schedule: schedule.0,
    });

    let mut rotated_at = Instant::now();
    let why = loop {
        match rx.recv_timeout(TICK) {
            Ok(Wake::Stop(why)) => break why,
            Ok(Wake::Runtime(event)) => runtime_event(event, report),
            Ok(Wake::Schedule(event)) => report(Event::Schedule(event)),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break StopWhy::Requested,
        }
        for revived in runtime.revive() {
            match revived.result {
                Ok(pid) => {
                    let restarts = {
                        let mut map = shared.restarts.lock().unwrap_or_else(|e| e.into_inner());
                        let n = map.entry(revived.id.clone()).or_insert(0);
                        *n += 1;
                        *n
                    };
                    report(Event::Restarted {
                        id: revived.id,
                        pid,
                        restarts,
                    });
                }
                Err(error) => report(Event::RestartFailed {
                    id: revived.id,
                    error,
                }),
            }
        }
        if rotated_at.elapsed() >= ROTATE_EVERY {
            rotated_at = Instant::now();
            rotate_all(homes);
        }
    };
    shared.stopping.store(true, Ordering::SeqCst);
    report(Event::Stopping { why });
    if let Some(control) = schedule.1 {
        control.stop(match why {
            StopWhy::Signal(s) => s,
            StopWhy::Requested => StopSignal::Terminate,
        });
    }
    runtime.shutdown();
    if let Some(thread) = schedule_thread {
        let _ = thread.join();
    }
    // What the schedule runner said while it stopped.
    while let Ok(wake) = rx.try_recv() {
        if let Wake::Schedule(event) = wake {
            report(Event::Schedule(event));
        }
    }
    let _ = std::fs::remove_file(&socket);
    report(Event::Stopped);
    Ok(why)
}

fn runtime_event(event: RuntimeEvent, report: &mut dyn FnMut(Event)) {
    match event {
        RuntimeEvent::Fault {
            minitool,
            message,
            log,
        } => report(Event::Fault {
            id: minitool,
            message,
            log,
        }),
        RuntimeEvent::Notice {
            minitool,
            level,
            title,
            message,
            ..
        } => {
            let level = level.as_deref().unwrap_or("info");
            let title = title.map(|t| format!("{t}: ")).unwrap_or_default();
            report(Event::Notice {
                id: minitool,
                text: format!("{level}: {title}{message}"),
            });
        }
        _ => {}
    }
}

type ScheduleStart = (
    (
        ScheduleStatus,
        Option<crate::schedule::daemon::DaemonControl>,
    ),
    Option<std::thread::JoinHandle<()>>,
);

/// Starts the schedule runner on a thread of its own, or says why it does not run.
fn start_schedule(homes: &Homes, settings: &Settings, tx: &Sender<Wake>) -> ScheduleStart {
    let off = |reason: String| ((ScheduleStatus::Off { reason }, None), None);
    let daemon = match ScheduleDaemon::new(runner_for(homes, settings), DaemonOptions::default()) {
        Ok(d) => d,
        Err(ScheduleError::NoAgent { path }) => {
            return off(format!(
                "no agent command is configured (set [agent] command in {})",
                path.display()
            ));
        }
        Err(ScheduleError::DaemonRunning { pid, .. }) => {
            return off(format!(
                "a finch schedule daemon already runs the tasks (pid {})",
                pid.map_or_else(|| "unknown".to_string(), |p| p.to_string())
            ));
        }
        Err(e) => return off(e.to_string()),
    };
    let control = daemon.control();
    let events = Mutex::new(tx.clone());
    let thread = std::thread::Builder::new()
        .name("finch-schedule".into())
        .spawn(move || {
            let result = daemon.run(&mut |event| {
                let tx = events.lock().unwrap_or_else(|e| e.into_inner());
                let _ = tx.send(Wake::Schedule(Box::new(event)));
            });
            if let Err(e) = result {
                let tx = events.lock().unwrap_or_else(|e| e.into_inner());
                let _ = tx.send(Wake::Schedule(Box::new(DaemonEvent::ReloadFailed(
                    e.to_string(),
                ))));
            }
        });
    match thread {
        Ok(handle) => ((ScheduleStatus::Running, Some(control)), Some(handle)),
        Err(e) => off(format!("cannot start its thread: {e}")),
    }
}

/// `<runtime>/daemon`, only the user may enter: the socket inside is theirs alone even in the
/// moment between `bind` and `chmod`.
fn make_private_dir(dir: &std::path::Path) -> Result<(), DaemonError> {
    std::fs::create_dir_all(dir).map_err(|e| DaemonError::io("create", dir, e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| DaemonError::io("restrict", dir, e))?;
    }
    Ok(())
}

#[cfg(unix)]
type Listener = std::os::unix::net::UnixListener;

/// Binds the control socket (mode 0600). A socket file left by a daemon that died is removed
/// first: the lock says no daemon owns it.
#[cfg(unix)]
fn bind(socket: &std::path::Path) -> Result<Listener, DaemonError> {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::remove_file(socket) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(DaemonError::io("remove the stale socket", socket, e)),
    }
    let listener = Listener::bind(socket).map_err(|e| DaemonError::io("listen on", socket, e))?;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| DaemonError::io("restrict", socket, e))?;
    Ok(listener)
}

#[cfg(not(unix))]
struct Listener;

#[cfg(not(unix))]
fn bind(socket: &std::path::Path) -> Result<Listener, DaemonError> {
    Err(DaemonError::Start(format!(
        "finch daemon needs Unix sockets ({})",
        socket.display()
    )))
}

/// Answers requests on a thread of its own, one connection at a time (each is one line in,
/// one line out).
#[cfg(unix)]
fn serve(listener: Listener, shared: Arc<Shared>) {
    let _ = std::thread::Builder::new()
        .name("finch-daemon-socket".into())
        .spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                answer(stream, &shared);
            }
        });
}

#[cfg(not(unix))]
fn serve(_listener: Listener, _shared: Arc<Shared>) {}

#[cfg(unix)]
fn answer(stream: std::os::unix::net::UnixStream, shared: &Shared) {
    use std::io::{BufRead, BufReader, Read, Write};
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
    let mut line = String::new();
    // A request is one short line: more than 4 KiB is not one.
    if BufReader::new((&stream).take(4096))
        .read_line(&mut line)
        .is_err()
    {
        return;
    }
    let reply = match serde_json::from_str::<Request>(&line) {
        Ok(Request::Status) => Reply::Status(status(shared)),
        Ok(Request::Stop) => {
            if !shared.stopping.swap(true, Ordering::SeqCst) {
                let _ = shared.stop.send(Wake::Stop(StopWhy::Requested));
            }
            Reply::Stopping { pid: shared.pid }
        }
        Err(e) => Reply::Refused {
            message: format!("not a request: {e}"),
        },
    };
    if let Ok(mut text) = serde_json::to_string(&reply) {
        text.push('\n');
        let _ = (&stream).write_all(text.as_bytes());
    }
}

fn status(shared: &Shared) -> DaemonStatus {
    let restarts = shared
        .restarts
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    DaemonStatus {
        pid: shared.pid,
        version: env!("CARGO_PKG_VERSION").to_string(),
        started_at: shared.started_at.clone(),
        socket: shared.socket.clone(),
        rss_bytes: procs::rss(shared.pid),
        schedule: shared
            .schedule
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone(),
        minitools: shared
            .runtime
            .statuses()
            .into_iter()
            .map(|s| MiniToolReport {
                restarts: restarts.get(&s.id).copied().unwrap_or(0),
                rss_bytes: s.pid.and_then(procs::tree_rss),
                state: s.state.as_str().to_string(),
                pid: s.pid,
                last_error: s.last_error,
                log: s.log,
                id: s.id,
            })
            .collect(),
    }
}

/// Rotates the daemon's log and every mini tool's log that grew past `logs::LOG_MAX`.
fn rotate_all(homes: &Homes) {
    let paths = DaemonPaths::of(homes);
    let _ = logs::rotate_if_big(&paths.log, logs::LOG_MAX);
    for entry in std::fs::read_dir(&paths.minitool_logs)
        .into_iter()
        .flatten()
        .flatten()
    {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "log") {
            let _ = logs::rotate_if_big(&path, logs::LOG_MAX);
        }
    }
}
