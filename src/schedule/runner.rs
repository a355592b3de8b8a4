//! Running one task: take the task's lock (or record `skipped-overlap`), build the agent's
//! command line from `[agent] command`, start it in the task's directory in a process group of
//! its own, keep the last 64 KiB of its combined output, stop it at the time limit or when asked
//! (SIGTERM to the group, SIGKILL after a grace period), and append the run record.
//!
//! The command line never passes through a shell. An argument that is exactly `{prompt}`,
//! `{model}`, `{cwd}`, `{session}`, `{effort}` or `{mode}` is replaced by the value, whatever it
//! holds; a placeholder inside a longer argument (`--model={model}`) is left as written. A
//! placeholder with no value (no model set) is removed, together with the option just before it
//! when that argument starts with `-` (`"--model", "{model}"` disappears as a pair).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use super::ScheduleError;
use super::history::{self, RunRecord, RunStatus, TAIL_BYTES, Trigger};
use super::procs::RunLock;
use super::tasks::{Target, Task, timestamp};
use crate::capture::{OutputTail, pump};
use crate::homes::Homes;
use crate::ids;
use crate::store::{PidLock, TryLock};

/// The values an agent command line can ask for.
#[derive(Debug, Clone, Default)]
pub struct Placeholders {
    pub prompt: String,
    pub model: Option<String>,
    pub cwd: String,
    pub session: String,
    pub effort: Option<String>,
    pub mode: String,
    /// `{title}`: the title of a mini tool's agent session (schedules have none).
    pub title: Option<String>,
    /// `{system}`: the agent profile prompt of a mini tool's session container.
    pub system: Option<String>,
}

/// Builds the agent's argument vector from the configured template.
pub fn substitute(template: &[String], values: &Placeholders) -> Vec<String> {
    let lookup = |arg: &str| -> Option<Option<String>> {
        Some(match arg {
            "{prompt}" => Some(values.prompt.clone()),
            "{model}" => values.model.clone(),
            "{cwd}" => Some(values.cwd.clone()),
            "{session}" => Some(values.session.clone()),
            "{effort}" => values.effort.clone(),
            "{mode}" => Some(values.mode.clone()),
            "{title}" => values.title.clone(),
            "{system}" => values.system.clone(),
            _ => return None,
        })
    };
    let mut out: Vec<String> = Vec::with_capacity(template.len());
    // Whether the last argument of `out` is a literal option of the template.
    let mut last_is_option = false;
    for (i, arg) in template.iter().enumerate() {
        match lookup(arg) {
            None => {
                out.push(arg.clone());
                last_is_option = i > 0 && arg.starts_with('-');
            }
            Some(Some(value)) => {
                out.push(value);
                last_is_option = false;
            }
            Some(None) => {
                if last_is_option {
                    out.pop();
                }
                last_is_option = false;
            }
        }
    }
    out
}

/// Asks a running task to stop; shared between the runner and whoever may cancel it.
#[derive(Debug, Clone, Default)]
pub struct Cancel {
    inner: Arc<Mutex<CancelState>>,
}

#[derive(Debug, Default)]
struct CancelState {
    reason: Option<String>,
    notify: Option<Sender<Event>>,
}

impl Cancel {
    /// Stops the run (if one is going, or as soon as it starts) and records `reason`.
    pub fn cancel(&self, reason: &str) {
        let mut state = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if state.reason.is_none() {
            state.reason = Some(reason.to_string());
        }
        if let Some(tx) = &state.notify {
            let _ = tx.send(Event::Cancel);
        }
    }

    fn reason(&self) -> Option<String> {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .reason
            .clone()
    }

    fn watch(&self, tx: Sender<Event>) {
        let mut state = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if state.reason.is_some() {
            let _ = tx.send(Event::Cancel);
        }
        state.notify = Some(tx);
    }
}

enum Event {
    Exited(std::io::Result<ExitStatus>),
    OutputClosed,
    Cancel,
}

/// A run that has started, for progress messages and the daemon's log.
#[derive(Debug, Clone)]
pub struct RunStarted {
    pub run_id: String,
    pub task_id: String,
    pub task_name: String,
    pub trigger: Trigger,
    pub scheduled_for: Option<String>,
    pub started_at: String,
    pub session_id: String,
    pub directory: String,
    pub pid: u32,
}

/// Everything a run needs besides the task.
#[derive(Debug, Clone)]
pub struct Runner {
    pub homes: Homes,
    /// `[agent] command`; `None` when it is not configured.
    pub agent: Option<Vec<String>>,
    /// The settings file, for messages and to resolve a relative program path.
    pub finch_toml: PathBuf,
    /// The time limit of tasks that set none.
    pub default_timeout: Duration,
    /// How long to wait for the history's lock.
    pub lock_timeout: Duration,
    /// How long a stopped agent gets between SIGTERM and SIGKILL.
    pub kill_grace: Duration,
    pub clock: fn() -> DateTime<Utc>,
}

/// The time limit of a run when neither the task nor the settings set one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30 * 60);

impl Runner {
    /// The configured agent command, or the error that says how to configure one.
    pub fn agent_command(&self) -> Result<&[String], ScheduleError> {
        self.agent
            .as_deref()
            .filter(|a| !a.is_empty())
            .ok_or_else(|| ScheduleError::NoAgent {
                path: self.finch_toml.clone(),
            })
    }

    /// The directory a task runs in: its space's bound directory, its `cwd`, else the agent
    /// home (also for a space without a directory).
    pub fn directory(&self, target: &Target) -> Result<PathBuf, String> {
        match target {
            Target::AgentHome => Ok(self.homes.agent.clone()),
            Target::Space(id) => {
                let spaces = crate::space::list(&self.homes).map_err(|e| e.to_string())?;
                let space = crate::space::find(&spaces, id)
                    .ok_or_else(|| format!("the task's space {id} no longer exists"))?;
                Ok(space
                    .directory
                    .clone()
                    .unwrap_or_else(|| self.homes.agent.clone()))
            }
            Target::Cwd(dir) => Ok(dir.clone()),
        }
    }

    /// Runs `task` once and appends the record to its history. A run that finds another run of
    /// the task going is recorded as `skipped-overlap` without starting anything.
    pub fn run(
        &self,
        task: &Task,
        trigger: Trigger,
        scheduled_for: Option<DateTime<Utc>>,
        cancel: &Cancel,
        on_start: &mut dyn FnMut(&RunStarted),
    ) -> Result<RunRecord, ScheduleError> {
        self.run_with(
            task,
            trigger,
            scheduled_for,
            Default::default(),
            cancel,
            on_start,
        )
    }

    /// `run`, with `extra` keys in the run record (`"catchUp": true` for a catch-up run).
    pub fn run_with(
        &self,
        task: &Task,
        trigger: Trigger,
        scheduled_for: Option<DateTime<Utc>>,
        extra: serde_json::Map<String, serde_json::Value>,
        cancel: &Cancel,
        on_start: &mut dyn FnMut(&RunStarted),
    ) -> Result<RunRecord, ScheduleError> {
        let template = self.agent_command()?.to_vec();
        let started_at = (self.clock)();
        let started = Instant::now();
        let mut record = RunRecord {
            run_id: ids::new_run_id(),
            task_id: task.id.clone(),
            task_name: task.name.clone(),
            trigger,
            scheduled_for: scheduled_for.map(timestamp),
            started_at: timestamp(started_at),
            finished_at: String::new(),
            status: RunStatus::Failed,
            exit_code: None,
            signal: None,
            session_id: None,
            directory: None,
            duration_ms: 0,
            output_tail: String::new(),
            note: None,
            extra,
        };
        let lock_path = self
            .homes
            .runtime
            .join("automation")
            .join("locks")
            .join(format!("{}.lock", task.id));
        let mut lock = match PidLock::try_acquire(&lock_path) {
            Ok(lock) => Some(lock),
            Err(TryLock::Held { pid }) => {
                record.status = RunStatus::SkippedOverlap;
                let pid = RunLock::holder_pid(&lock_path).or(pid);
                let pid = pid.map_or_else(|| "unknown".to_string(), |p| p.to_string());
                record.note = Some(format!("a run of this task is still going (pid {pid})"));
                None
            }
            Err(TryLock::Io(source)) => {
                return Err(ScheduleError::Io {
                    action: "lock",
                    path: lock_path,
                    source,
                });
            }
        };
        if let Some(lock) = &mut lock {
            self.execute(task, &template, &mut record, lock, cancel, on_start);
        }
        record.finished_at = timestamp((self.clock)());
        record.duration_ms = started.elapsed().as_millis() as u64;
        history::append(&self.homes, &record, self.lock_timeout)?;
        drop(lock);
        Ok(record)
    }

    /// Starts the agent and waits for it; fills in the record's outcome. The agent inherits the
    /// task's lock file, so the lock is held as long as any process of the run lives, even when
    /// this finch dies first; the lock file then says what the run is (`RunLock`).
    fn execute(
        &self,
        task: &Task,
        template: &[String],
        record: &mut RunRecord,
        lock: &mut PidLock,
        cancel: &Cancel,
        on_start: &mut dyn FnMut(&RunStarted),
    ) {
        let dir = match self.directory(&task.target) {
            Ok(d) => d,
            Err(note) => {
                record.note = Some(note);
                return;
            }
        };
        if dir == self.homes.agent {
            // The agent home is finch's own; make sure it is there.
            let _ = std::fs::create_dir_all(&dir);
        }
        if !dir.is_dir() {
            record.note = Some(format!("the directory {} does not exist", dir.display()));
            return;
        }
        record.directory = Some(dir.to_string_lossy().into_owned());
        let session = ids::new_session_id();
        record.session_id = Some(session.clone());
        let mut argv = substitute(
            template,
            &Placeholders {
                prompt: task.prompt.clone(),
                model: task.model.clone(),
                cwd: dir.to_string_lossy().into_owned(),
                session: session.clone(),
                effort: task.reasoning_effort.clone(),
                mode: task.permission_mode.as_str().to_string(),
                title: None,
                system: None,
            },
        );
        // pi gets a session finch made, in finch's sessions directory (`pi.rs`).
        let pi = if super::pi::is_pi(&argv[0]) {
            match super::pi::PiSession::prepare(
                &self.homes,
                &dir,
                &session,
                &task.prompt,
                &mut argv,
                (self.clock)(),
                self.lock_timeout,
            ) {
                Ok(pi) => Some(pi),
                Err(note) => {
                    record.session_id = None;
                    record.note = Some(note);
                    return;
                }
            }
        } else {
            None
        };
        let program = self.program(&argv[0]);
        let (reader, writer) = match std::io::pipe() {
            Ok(p) => p,
            Err(e) => {
                record.note = Some(format!("cannot make a pipe for the output: {e}"));
                return;
            }
        };
        let mut command = Command::new(&program);
        command
            .args(&argv[1..])
            .current_dir(&dir)
            .stdin(Stdio::null())
            .env("FINCH_RUNTIME_HOME", &self.homes.runtime)
            .env("FINCH_AGENT_HOME", &self.homes.agent)
            .env("FINCH_TASK_ID", &task.id)
            .env("FINCH_RUN_ID", &record.run_id)
            .env("FINCH_SESSION_ID", &session)
            .env("FINCH_PERMISSION_MODE", task.permission_mode.as_str())
            .envs(pi.iter().flat_map(|p| p.env()));
        match writer.try_clone() {
            Ok(w) => command.stdout(w).stderr(writer),
            Err(e) => {
                record.note = Some(format!("cannot make a pipe for the output: {e}"));
                return;
            }
        };
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            use std::os::unix::process::CommandExt;
            command.process_group(0);
            let lock_fd = lock.file().as_raw_fd();
            // SAFETY: between fork and exec the child only clears the close-on-exec flag of a
            // descriptor it inherited, with fcntl(2), which is async-signal-safe.
            unsafe {
                command.pre_exec(move || {
                    if libc::fcntl(lock_fd, libc::F_SETFD, 0) == -1 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        #[cfg(unix)]
        let pipe_id = super::procs::file_id(&reader);
        let spawned = command.spawn();
        // The command holds the pipe's write ends; close them so the reader sees the end.
        drop(command);
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) => {
                record.note = Some(format!("cannot start {}: {e}", program.display()));
                return;
            }
        };
        let pid = child.id();
        let described = RunLock {
            pid: std::process::id(),
            agent_pid: pid,
            run_id: record.run_id.clone(),
            task_id: task.id.clone(),
            task_name: task.name.clone(),
            trigger: record.trigger,
            scheduled_for: record.scheduled_for.clone(),
            started_at: record.started_at.clone(),
            session_id: record.session_id.clone(),
            directory: record.directory.clone(),
        };
        lock.describe(&serde_json::to_string(&described).unwrap_or_default());
        on_start(&RunStarted {
            run_id: record.run_id.clone(),
            task_id: task.id.clone(),
            task_name: task.name.clone(),
            trigger: record.trigger,
            scheduled_for: record.scheduled_for.clone(),
            started_at: record.started_at.clone(),
            session_id: session,
            directory: dir.to_string_lossy().into_owned(),
            pid,
        });

        let (tx, rx) = mpsc::channel();
        let tail = Arc::new(Mutex::new(OutputTail::new(TAIL_BYTES)));
        {
            let tail = Arc::clone(&tail);
            let tx = tx.clone();
            std::thread::spawn(move || {
                pump(reader, |chunk| {
                    tail.lock().unwrap_or_else(|e| e.into_inner()).push(chunk)
                });
                let _ = tx.send(Event::OutputClosed);
            });
        }
        {
            let tx = tx.clone();
            std::thread::spawn(move || {
                let _ = tx.send(Event::Exited(child.wait()));
            });
        }
        cancel.watch(tx);

        let timeout = task.timeout.unwrap_or(self.default_timeout);
        let deadline = Instant::now() + timeout;
        let mut stopping: Option<Instant> = None;
        let mut output_closed = false;
        let mut stopped_because: Option<(RunStatus, String)> = None;
        let status = loop {
            let wake = match stopping {
                Some(since) => since + self.kill_grace,
                None => deadline,
            };
            match rx.recv_timeout(wake.saturating_duration_since(Instant::now())) {
                Ok(Event::Exited(status)) => break status,
                Ok(Event::OutputClosed) => output_closed = true,
                Ok(Event::Cancel) => {
                    if stopping.is_none() {
                        let reason = cancel.reason().unwrap_or_else(|| "stopped".to_string());
                        stopped_because = Some((RunStatus::Failed, reason));
                        signal_group(pid, Signal::Term);
                        stopping = Some(Instant::now());
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    if stopping.is_none() {
                        stopped_because = Some((
                            RunStatus::TimedOut,
                            format!("stopped after {}, the run's time limit", human(timeout)),
                        ));
                        signal_group(pid, Signal::Term);
                        stopping = Some(Instant::now());
                    } else {
                        signal_group(pid, Signal::Kill);
                        // Killed; the waiter reports the exit next. Do not signal again.
                        stopping = Some(Instant::now() + Duration::from_secs(3600));
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    break Err(std::io::Error::other("lost track of the agent process"));
                }
            }
        };
        // Processes the agent left behind may hold the output open; they belong to the run,
        // also those that left its process group (`setsid`): they are found by the pipe.
        let mut left_behind = Vec::new();
        if !output_closed && !wait_output(&rx, Duration::from_secs(1)) {
            signal_group(pid, Signal::Kill);
            if !wait_output(&rx, Duration::from_secs(1)) {
                #[cfg(unix)]
                if let Some(id) = pipe_id {
                    for _ in 0..3 {
                        let killed = super::procs::kill_holders(id, false);
                        if killed.is_empty() {
                            break;
                        }
                        left_behind.extend(killed);
                        if wait_output(&rx, Duration::from_secs(1)) {
                            break;
                        }
                    }
                }
            }
        }
        record.output_tail = tail.lock().unwrap_or_else(|e| e.into_inner()).text();
        if let Some(pi) = &pi {
            pi.finish(&mut record.session_id, &mut record.extra);
        }
        match status {
            Ok(status) => {
                record.exit_code = status.code();
                record.signal = exit_signal(&status);
                record.status = if status.success() {
                    RunStatus::Succeeded
                } else {
                    RunStatus::Failed
                };
            }
            Err(e) => record.note = Some(format!("cannot wait for the agent: {e}")),
        }
        if let Some((status, note)) = stopped_because {
            record.status = status;
            record.note = Some(note);
        }
        if !left_behind.is_empty() {
            let pids: Vec<String> = left_behind.iter().map(u32::to_string).collect();
            let killed = format!(
                "killed {} process(es) the agent left behind holding its output (pid {})",
                pids.len(),
                pids.join(", ")
            );
            record.note = Some(match record.note.take() {
                Some(note) => format!("{note}; {killed}"),
                None => killed,
            });
        }
    }

    /// A program path with a slash that is relative is taken relative to finch.toml's
    /// directory; a bare name is looked up on `PATH` by the system.
    fn program(&self, program: &str) -> PathBuf {
        let path = Path::new(program);
        if path.is_relative()
            && path.components().count() > 1
            && let Some(dir) = self.finch_toml.parent()
        {
            return crate::homes::absolutize(path, dir);
        }
        path.to_path_buf()
    }
}

fn wait_output(rx: &mpsc::Receiver<Event>, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    loop {
        match rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok(Event::OutputClosed) => return true,
            Ok(_) => continue,
            Err(_) => return false,
        }
    }
}

fn human(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0 => format!("{}ms", d.as_millis()),
        s if s % 3600 == 0 => format!("{}h", s / 3600),
        s if s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

/// The two ways to stop a process group: ask, then insist.
#[derive(Debug, Clone, Copy)]
pub enum Signal {
    Term,
    Kill,
}

/// Signals the whole process group led by `pid` (a child started with `process_group(0)`).
/// Also used by the `Bash` built-in.
#[cfg(unix)]
pub fn signal_group(pid: u32, signal: Signal) {
    let sig = match signal {
        Signal::Term => libc::SIGTERM,
        Signal::Kill => libc::SIGKILL,
    };
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: kill(2) with a negative pid signals a process group; no memory is involved.
        unsafe {
            libc::kill(-pid, sig);
        }
    }
}

#[cfg(not(unix))]
pub fn signal_group(pid: u32, _signal: Signal) {
    let _ = Command::new("taskkill")
        .args(["/PID", &pid.to_string(), "/T", "/F"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

#[cfg(unix)]
fn exit_signal(status: &ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

#[cfg(not(unix))]
fn exit_signal(_status: &ExitStatus) -> Option<i32> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn placeholders_are_whole_arguments() {
        let values = Placeholders {
            prompt: "say $(rm -rf /) \"hi\" {model}".into(),
            model: Some("gpt-x".into()),
            cwd: "/srv/work dir".into(),
            session: "s-1".into(),
            effort: None,
            mode: "acceptCalls".into(),
            title: None,
            system: None,
        };
        let cases: &[(&[&str], &[&str])] = &[
            (
                &["pi", "-p", "{prompt}", "--model", "{model}"],
                &[
                    "pi",
                    "-p",
                    "say $(rm -rf /) \"hi\" {model}",
                    "--model",
                    "gpt-x",
                ],
            ),
            (
                &["a", "{cwd}", "{session}", "{mode}"],
                &["a", "/srv/work dir", "s-1", "acceptCalls"],
            ),
            // Inside a longer argument a placeholder stays as written.
            (
                &["a", "--model={model}", "x{prompt}"],
                &["a", "--model={model}", "x{prompt}"],
            ),
            // No value: the placeholder goes, and the option before it with it.
            (
                &["a", "--thinking", "{effort}", "-p", "{prompt}"],
                &["a", "-p", "say $(rm -rf /) \"hi\" {model}"],
            ),
            (&["a", "{effort}", "b"], &["a", "b"]),
            // The program itself is never dropped.
            (&["-x", "{effort}"], &["-x"]),
        ];
        for (template, want) in cases {
            assert_eq!(
                substitute(&args(template), &values),
                args(want),
                "{template:?}"
            );
        }
    }
}
