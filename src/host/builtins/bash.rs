//! `Bash` (SPEC §8.6): runs one command with `bash -c` in the session's working directory and
//! returns its exit code, stdout and stderr. The gateway has already classified the command and
//! decided; this file only runs it.
//!
//! The command gets `/dev/null` as stdin and a process group of its own, so a timeout stops
//! everything it started (SIGTERM to the group, SIGKILL a second later). Each stream keeps its
//! first and last 15,000 bytes; what lies between is cut and the result says so. In the wall
//! the command is the first process of a PID namespace of its own (`crate::sandbox`): when it
//! exits, everything it started ends with it, wherever it went (`setsid`, `nohup`, double
//! forks). Unconfined, processes it leaves in the background while still holding its output
//! are stopped once it exits (they would otherwise keep the call open); ones that redirected
//! their output elsewhere keep running.
//!
//! The kernel wall (`crate::sandbox`, SPEC §8.5a): a call the gateway let through without a
//! card (the `acceptCalls` fast lane) runs in the read-only profile with a minimal environment
//! (`sandbox::env`: no secret of the user's environment reaches it); an approved call runs in
//! `[sandbox] approved` (workspace-write by default, with `[sandbox] network`), or unconfined
//! when the wall is off, not available here, or the person chose "without the sandbox" on the
//! card; what a person or a flag granted beside the profile (a directory to read or write, the
//! network) comes in the call's plan. A command that failed where the wall explains the
//! failure reports what it refused (`call::denial`: `Blocked`), and the pipeline offers the
//! escalation that fits. A confinement that cannot be set up runs nothing. An approved
//! command's environment is finch's own as `[sandbox] approved_env` says (by default without
//! the variables whose names hold a secret).
//!
//! A call that may write the workspace is watched (`Watch`): the protected paths are surveyed
//! before it (what exists is bound read-only by the wall), and after it the sandbox's guard
//! puts back what the kernel could not stop and the result says so (`blocked: the call changed
//! … (protected); finch restored it`, and `protected` in the structured result).
//!
//! A command the classifier calls read-only (the only kind the fast lane runs without a card)
//! runs with git settings that cannot execute anything, given as `GIT_CONFIG_COUNT`
//! command-line configuration, which outranks every config file: no fsmonitor, no hooks, no
//! pager, no signature check. A repository's `.git/config` is written only with a card
//! (protected paths, `policy`), so this guards against one that was hostile before finch came.
//! What it cannot switch off from outside — `diff.external`, textconv and clean filters of a
//! hostile pre-existing repository config — is left to that card. The `GIT_CONFIG_*` of
//! finch's own environment is replaced for these commands only.
//!
//! A non-zero exit status is not a tool error: the command ran, and the model reads the exit code
//! (`grep` finding nothing exits 1). A timeout, or a command that could not be started, is.

use std::io::Read;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::Cx;
use crate::capture::{OutputTail, pump};
use crate::host::call::denial::{self, Reach};
use crate::host::cancel::{Cancel, cancelled_output};
use crate::host::catalog::ToolDef;
use crate::host::output::{Content, ToolOutput};
use crate::host::policy::{self, ESCALATE_ARG};
use crate::sandbox::env::ApprovedEnv;
use crate::sandbox::guard::{Guard, Refusal, Refused, Survey};
use crate::sandbox::{Access, Confine, Confinement, Places, Profile};
use crate::schedule::runner::{Signal, signal_group};

/// The longest timeout a call may ask for.
const MAX_TIMEOUT_MS: u64 = 600_000;
/// Bytes kept from the start and from the end of each stream.
const KEEP_HEAD: usize = 15_000;
const KEEP_TAIL: usize = 15_000;
/// Between SIGTERM and SIGKILL when a command times out.
const KILL_GRACE: Duration = Duration::from_secs(1);
/// How long the output may stay open after the command exits before its leftovers are stopped.
const LINGER: Duration = Duration::from_millis(500);

const DESCRIPTION: &str = "Run a shell command with `bash -c` in the session's working \
directory and return its stdout, stderr and exit code. stdin is /dev/null, so commands must not \
wait for input. A non-zero exit code is reported, not treated as a failure. The command is \
stopped (with everything it started) after `timeout` milliseconds: by default the configured \
`[host] bash_timeout` (2 minutes), at most 600000 (10 minutes). Each of stdout and stderr keeps \
its first and last 15000 bytes; the middle of longer output is cut. When the command exits, \
everything it started in the background ends with it (in finch's sandbox); nothing keeps \
running after the call. Prefer Read, Grep and Glob for reading and searching files. A command \
that runs without a permission card runs in finch's read-only sandbox: it can read \
the workspace and the system, write only $TMPDIR, and has no network. When the sandbox \
refuses what a command needs, finch asks a person whether to run it again with just that (a \
directory to read, write access, the network) and says so in the result; with `escalate: true` \
a person approves the command before it runs, and it runs with write access.";

/// What people type when they want this tool (ToolSearch ranks it beside the description).
pub const KEYWORDS: &str = "run execute shell command terminal script program build test install npm git. 执行命令 运行命令 终端 命令行 运行脚本 执行脚本 跑测试 编译 執行指令 執行命令 終端機 命令列 執行腳本";

/// The tool's name.
pub const NAME: &str = policy::SHELL_TOOL;

pub fn def() -> ToolDef {
    super::def(
        NAME,
        "Run a shell command",
        DESCRIPTION,
        json!({
            "type": "object",
            "properties": {
                "command": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The command line, run with `bash -c`."
                },
                "timeout": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_TIMEOUT_MS,
                    "description": "Milliseconds before the command is stopped (default: the configured bash_timeout, 2 minutes; at most 600000)."
                },
                "description": {
                    "type": "string",
                    "description": "A few words on what the command does, for the person approving it."
                },
                ESCALATE_ARG: {
                    "type": "boolean",
                    "description": "Ask a person to approve the command, which then runs with write access to the workspace and the network, instead of the read-only sandbox of calls that need no approval. Use it when the sandbox stopped a command."
                }
            },
            "required": ["command"],
            "additionalProperties": false
        }),
    )
}

pub fn call(args: &Value, cx: &Cx) -> ToolOutput {
    let command = super::str_arg(args, "command").unwrap_or_default();
    let timeout = match args.get("timeout").and_then(Value::as_u64) {
        Some(ms) => Duration::from_millis(ms.min(MAX_TIMEOUT_MS)),
        None => cx
            .env
            .settings
            .bash_timeout
            .min(Duration::from_millis(MAX_TIMEOUT_MS)),
    };
    let cwd = &cx.session.cwd;
    if !cwd.is_dir() {
        return ToolOutput::error(format!(
            "The session's working directory {} does not exist, so the command was not run.",
            cwd.display()
        ));
    }
    let mut walled = match confinement(cx) {
        Ok(c) => c,
        Err(e) => {
            return ToolOutput::error(format!(
                "The command was not run: {e}. Nothing ran outside the sandbox; `finch sandbox status` shows what this kernel can enforce."
            ));
        }
    };
    let confine = cx.confine();
    let sandbox = &cx.env.settings.sandbox;
    let env = match (confine, sandbox.approved_env) {
        (Confine::ReadOnly, _) => Environment::Only(
            crate::sandbox::env::minimal(cx.env.env.iter(), &sandbox.env)
                .into_iter()
                .map(|(k, v)| (k.into(), v))
                .collect(),
        ),
        (_, ApprovedEnv::Inherit) => Environment::Inherited,
        (_, approved) => Environment::Only(approved.environment(std::env::vars_os(), &sandbox.env)),
    };
    let setup = Setup {
        confinement: walled.as_ref().map(|w| &w.confinement),
        env,
        git_safe: confine == Confine::ReadOnly
            || cx.plan.classification().is_some_and(|c| c.read_only),
    };
    let ran = run(command, cwd, timeout, cx.cancel, setup);
    // The guard puts back what the call changed however it ended, cancelled too.
    let restored = walled
        .as_mut()
        .and_then(|w| w.watch.take())
        .map(Watch::finish)
        .unwrap_or_default();
    let mut output = match ran {
        Ok(outcome) if outcome.cancelled => cancelled_output(NAME),
        Ok(outcome) => {
            let failed = outcome.status.is_none_or(|s| !s.success());
            if let (Some(walled), true) = (&walled, failed) {
                let errors = [outcome.stderr.as_str(), outcome.stdout.as_str()];
                if let Some(blocked) = denial::read(&errors, cwd, &walled.reach, walled.profile) {
                    cx.report_blocked(blocked);
                }
            }
            render(&outcome, timeout, confine)
        }
        Err(message) => ToolOutput::error(message),
    };
    report_protected(&mut output, &restored);
    if let Some(policy) = walled.as_ref().and_then(|w| w.proxy.as_ref()) {
        let refusals = policy
            .refusals
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let (false, Some(Content::Text(text))) =
            (refusals.is_empty(), output.content.first_mut())
        {
            for line in refusals {
                text.push('\n');
                text.push_str(&line);
            }
        }
    }
    output
}

/// A call in the kernel wall: its confinement, its profile, and what that lets it reach (to
/// tell the wall's refusals from the command's own failures, `denial`).
struct Walled {
    confinement: Confinement,
    profile: Profile,
    reach: Reach,
    /// What watches the protected paths of a call that may write the workspace.
    watch: Option<Watch>,
    /// With `[sandbox] hosts`: what finch's proxy held the call to (its refusals are added
    /// to the output, for the model to read).
    proxy: Option<std::sync::Arc<crate::sandbox::proxy::Policy>>,
}

/// The kernel confinement of this call as its plan says (profile, and the directories and
/// network granted beside it), `None` when it runs unconfined; with it, for a call that may
/// write the workspace, what watches the protected paths there (`Watch`).
fn confinement(cx: &Cx) -> Result<Option<Walled>, crate::sandbox::SandboxError> {
    let Some(wall) = &cx.plan.wall else {
        return Ok(None);
    };
    let Some(profile) = wall.confine.profile() else {
        return Ok(None);
    };
    let session = cx.session;
    // Directories granted for writing are roots of workspace-write: their protected paths
    // stay read-only too.
    let roots: Vec<_> = std::iter::once(&session.cwd)
        .chain(&session.trusted)
        .chain(&wall.write)
        .cloned()
        .collect();
    let home = session.home.clone().or_else(|| cx.env.env.home_dir());
    let watch = (profile == Profile::WorkspaceWrite).then(|| {
        let mut workspace = session.workspace();
        workspace.runtime = Some(cx.env.homes.runtime.clone());
        for root in &roots {
            // Hooks git would run are kept read-only even before the first one exists.
            let git = root.join(".git");
            if git.is_dir() && !git.join("hooks").exists() {
                let _ = std::fs::create_dir(git.join("hooks"));
            }
        }
        Watch::before(&roots, &workspace)
    });
    let mut extra_read = cx.env.settings.sandbox.read.clone();
    extra_read.extend(wall.read.iter().cloned());
    let places = Places {
        roots,
        protected: watch.as_ref().map(Watch::bound).unwrap_or_default(),
        home,
        path: cx.env.env.get_path("PATH").map(|p| p.into_os_string()),
        extra_read,
        extra_write: Vec::new(),
        network: wall.network(),
        unix_sockets: cx.env.settings.sandbox.unix_sockets.clone(),
    };
    let mut access = Access::for_profile(profile, &places);
    // The network granted to a read-only call (`--allow-network`, an escalation).
    access.network = wall.network();
    // `[sandbox] hosts` narrows an approved call's network to a list, held by finch's proxy
    // in a network namespace of the call's own (issue 42); where that cannot be held, the call
    // gets no network. A person's `--allow-network` for one call opens it.
    let hosts = match (&cx.env.settings.sandbox.hosts, wall.confine) {
        (Some(hosts), Confine::WorkspaceWrite { network: true, .. }) if !wall.network => {
            access.network = false;
            access.proxied = crate::sandbox::Support::get().network_namespace();
            access.proxied.then(|| hosts.clone())
        }
        _ => None,
    };
    let reach_access = access.clone();
    let mut confinement = Confinement::prepare(access)?;
    let proxy = hosts.map(|hosts| {
        use crate::sandbox::proxy::{Policy, Principal};
        let mut policy = Policy::new(Principal::Bash, Box::new(move || hosts.clone()));
        policy.audit = Some(crate::sandbox::netlog::AuditLog::new(&cx.env.homes.runtime));
        std::sync::Arc::new(policy)
    });
    if let Some(policy) = &proxy {
        confinement.set_proxy(policy.clone());
    }
    let reach = Reach::of(&reach_access, Some(confinement.tmpdir()));
    Ok(Some(Walled {
        confinement,
        profile,
        reach,
        watch,
        proxy,
    }))
}

/// The protected paths of a call that may write the workspace: surveyed before it (what
/// the kernel binds read-only, and copies of what it only watches) and again after it, when
/// the guard puts back what the call changed (`sandbox::guard`).
struct Watch {
    roots: Vec<std::path::PathBuf>,
    home: std::path::PathBuf,
    /// `core.hooksPath` directories and the runtime home.
    extra: Vec<std::path::PathBuf>,
    survey: Survey,
    guard: Guard,
    /// What the guard did before the call (links cut).
    before: Vec<Refusal>,
}

impl Watch {
    fn before(roots: &[std::path::PathBuf], workspace: &policy::Workspace) -> Watch {
        let mut extra = policy::probe::hooks_dirs(roots, workspace);
        extra.extend(workspace.runtime.clone());
        let home = workspace.home.clone().unwrap_or_default();
        let refs: Vec<&Path> = extra.iter().map(std::path::PathBuf::as_path).collect();
        let survey = policy::protected::survey(roots, &home, &refs);
        let (guard, before) = Guard::before(&survey);
        Watch {
            roots: roots.to_vec(),
            home,
            extra,
            survey,
            guard,
            before,
        }
    }

    fn bound(&self) -> Vec<std::path::PathBuf> {
        self.survey.bound()
    }

    /// After the call: everything the guard did, before and after it.
    fn finish(self) -> Vec<Refusal> {
        let refs: Vec<&Path> = self.extra.iter().map(std::path::PathBuf::as_path).collect();
        let now = policy::protected::survey(&self.roots, &self.home, &refs);
        let mut refusals = self.before;
        refusals.extend(self.guard.after(&now));
        refusals
    }
}

/// Adds what the guard did to a call's result: a line each after the output, and
/// `protected` in its structured content.
fn report_protected(output: &mut ToolOutput, refusals: &[Refusal]) {
    if refusals.is_empty() {
        return;
    }
    let lines: Vec<String> = refusals.iter().map(Refusal::to_string).collect();
    if let Some(Content::Text(text)) = output.content.first_mut() {
        for line in &lines {
            text.push('\n');
            text.push_str(line);
        }
    }
    if let Some(map) = output.structured.as_mut().and_then(Value::as_object_mut) {
        let entries: Vec<Value> = refusals
            .iter()
            .map(|r| {
                json!({
                    "path": r.path,
                    "why": r.why,
                    "action": match r.what {
                        Refused::Restored => "restored",
                        Refused::Removed => "removed",
                        Refused::Unlinked => "unlinked",
                        Refused::Unrestorable(_) => "none",
                    },
                    "message": r.to_string(),
                })
            })
            .collect();
        map.insert("protected".into(), Value::Array(entries));
    }
}

/// The environment a command starts with.
enum Environment {
    /// finch's own, whole (`[sandbox] approved_env = "inherit"`).
    Inherited,
    /// Only these variables: the fast lane's minimal environment, or finch's own without its
    /// secrets (`sandbox::env`).
    Only(Vec<(std::ffi::OsString, std::ffi::OsString)>),
}

/// How a command is started: its confinement, environment and git settings.
struct Setup<'a> {
    confinement: Option<&'a Confinement>,
    env: Environment,
    /// Git settings that run nothing (`GIT_SAFE_CONFIG`).
    git_safe: bool,
}

/// A started command, however it was started: its process group, its output pipes and how to
/// wait for it.
struct Started {
    pid: u32,
    stdout: Option<std::fs::File>,
    stderr: Option<std::fs::File>,
    wait: Box<dyn FnOnce() -> std::io::Result<ExitStatus> + Send>,
}

/// The whole environment a confined command starts with: finch's own or the minimal one, with
/// `git_settings`.
#[cfg(target_os = "linux")]
fn environment(setup: &Setup) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    let mut env: std::collections::BTreeMap<std::ffi::OsString, std::ffi::OsString> =
        match &setup.env {
            Environment::Inherited => std::env::vars_os().collect(),
            Environment::Only(vars) => vars.iter().cloned().collect(),
        };
    let (set, removed) = git_settings(setup.git_safe);
    for name in removed {
        env.remove(std::ffi::OsStr::new(name));
    }
    env.extend(set.into_iter().map(|(k, v)| (k.into(), v.into())));
    env.into_iter().collect()
}

/// The variables that keep git from running configured programs in a read-only command
/// (`GIT_SAFE_CONFIG`), and the ones to remove; nothing when `git_safe` is false.
fn git_settings(git_safe: bool) -> (Vec<(String, String)>, &'static [&'static str]) {
    if !git_safe {
        return (Vec::new(), &[]);
    }
    let mut set = vec![
        (
            "GIT_CONFIG_COUNT".to_string(),
            GIT_SAFE_CONFIG.len().to_string(),
        ),
        ("GIT_PAGER".to_string(), "cat".to_string()),
    ];
    for (i, (key, value)) in GIT_SAFE_CONFIG.iter().enumerate() {
        set.push((format!("GIT_CONFIG_KEY_{i}"), key.to_string()));
        set.push((format!("GIT_CONFIG_VALUE_{i}"), value.to_string()));
    }
    (set, &["GIT_EXTERNAL_DIFF"])
}

/// One stream's output: its first bytes, then the last ones of what followed.
#[derive(Debug)]
struct Capture {
    head: Vec<u8>,
    tail: OutputTail,
}

impl Default for Capture {
    fn default() -> Capture {
        Capture {
            head: Vec::new(),
            tail: OutputTail::new(KEEP_TAIL),
        }
    }
}

impl Capture {
    fn push(&mut self, mut bytes: &[u8]) {
        let room = KEEP_HEAD - self.head.len();
        if room > 0 {
            let take = room.min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        if !bytes.is_empty() {
            self.tail.push(bytes);
        }
    }

    /// Whether bytes between the head and the tail were dropped.
    fn cut(&self) -> bool {
        self.tail.is_cut()
    }

    /// The output as text; a cut is marked where it happened.
    fn text(&self) -> String {
        let tail = self.tail.bytes();
        if !self.cut() {
            let mut all = self.head.clone();
            all.extend_from_slice(&tail);
            return String::from_utf8_lossy(&all).into_owned();
        }
        let total = self.head.len() as u64 + self.tail.total();
        let omitted = total - (self.head.len() + tail.len()) as u64;
        format!(
            "{}\n… [{omitted} bytes cut: the stream had {total} bytes; its first {KEEP_HEAD} and last {KEEP_TAIL} are shown] …\n{}",
            String::from_utf8_lossy(whole_chars_head(&self.head)),
            self.tail.text(),
        )
    }
}

/// `bytes` without a UTF-8 character cut short at its end.
fn whole_chars_head(bytes: &[u8]) -> &[u8] {
    match std::str::from_utf8(bytes) {
        Err(e) if e.error_len().is_none() => &bytes[..e.valid_up_to()],
        _ => bytes,
    }
}

/// How a command ended.
#[derive(Debug)]
struct Outcome {
    status: Option<ExitStatus>,
    /// Stopped because the caller cancelled the call.
    cancelled: bool,
    timed_out: bool,
    /// Background processes holding the output were stopped after the command exited.
    stopped_leftovers: bool,
    stdout: String,
    stderr: String,
    cut: bool,
}

enum Event {
    Exited(std::io::Result<ExitStatus>),
    Closed,
    /// The caller cancelled the call: the group is stopped as on a timeout.
    Cancelled,
}

/// Git settings for read-only commands: none of them runs a program (see the module docs).
const GIT_SAFE_CONFIG: &[(&str, &str)] = &[
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("log.showSignature", "false"),
];

/// Runs `command` in `cwd`, stopping its process group after `timeout` or when `cancel` is set.
/// `Err` when it cannot be started.
fn run(
    command: &str,
    cwd: &Path,
    timeout: Duration,
    cancel: &Cancel,
    setup: Setup,
) -> Result<Outcome, String> {
    let failed = |e: std::io::Error, sandboxed: bool| {
        if sandboxed {
            format!(
                "Cannot start bash: {e} (in finch's sandbox). The command was not run; nothing ran outside the sandbox; is bash installed and on PATH?"
            )
        } else {
            format!(
                "Cannot start bash: {e}. The command was not run; is bash installed and on PATH?"
            )
        }
    };
    let args = [std::ffi::OsStr::new("-c"), std::ffi::OsStr::new(command)];
    let started = match setup.confinement {
        #[cfg(target_os = "linux")]
        Some(confinement) => {
            let env = environment(&setup);
            let spawn = crate::sandbox::Spawn {
                program: std::ffi::OsStr::new("bash"),
                args: &args,
                cwd,
                env: &env,
            };
            let mut child = confinement.spawn(&spawn).map_err(|e| failed(e, true))?;
            Started {
                pid: child.id(),
                stdout: child.stdout.take(),
                stderr: child.stderr.take(),
                wait: Box::new(move || child.wait()),
            }
        }
        // `Confinement::prepare` fails off Linux, so no confinement reaches here.
        #[cfg(not(target_os = "linux"))]
        Some(_) => {
            return Err(failed(
                std::io::Error::other("finch's kernel wall exists only on Linux so far"),
                true,
            ));
        }
        None => {
            // The inherited environment is left to `std`, which can then start the child with
            // `posix_spawn` (it forks when `PATH` is set explicitly).
            let mut cmd = Command::new("bash");
            cmd.args(args)
                .current_dir(cwd)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            if let Environment::Only(vars) = &setup.env {
                cmd.env_clear().envs(vars.iter().map(|(k, v)| (k, v)));
            }
            let (set, removed) = git_settings(setup.git_safe);
            for name in removed {
                cmd.env_remove(name);
            }
            cmd.envs(set);
            #[cfg(unix)]
            {
                use std::os::unix::process::CommandExt;
                cmd.process_group(0);
            }
            let mut child = cmd.spawn().map_err(|e| failed(e, false))?;
            let file = |fd: std::os::fd::OwnedFd| std::fs::File::from(fd);
            Started {
                pid: child.id(),
                stdout: child.stdout.take().map(|p| file(p.into())),
                stderr: child.stderr.take().map(|p| file(p.into())),
                wait: Box::new(move || child.wait()),
            }
        }
    };
    let Started {
        pid,
        stdout: out_pipe,
        stderr: err_pipe,
        wait,
    } = started;
    let (tx, rx) = mpsc::channel();
    let stdout = Arc::new(Mutex::new(Capture::default()));
    let stderr = Arc::new(Mutex::new(Capture::default()));
    let mut open_streams = 0;
    for (pipe, capture) in [(out_pipe, &stdout), (err_pipe, &stderr)] {
        if let Some(pipe) = pipe {
            open_streams += 1;
            drain(pipe, Arc::clone(capture), tx.clone());
        }
    }
    {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let _ = tx.send(Event::Exited(wait()));
        });
    }
    {
        let tx = tx.clone();
        cancel.on_cancel(move || {
            let _ = tx.send(Event::Cancelled);
        });
    }
    drop(tx);

    let deadline = Instant::now() + timeout;
    let mut cancelled = false;
    let mut timed_out = false;
    let mut terminated_at: Option<Instant> = None;
    let mut killed = false;
    let status = loop {
        let wake = match terminated_at {
            Some(at) if !killed => at + KILL_GRACE,
            Some(_) => Instant::now() + Duration::from_secs(3600),
            None => deadline,
        };
        match rx.recv_timeout(wake.saturating_duration_since(Instant::now())) {
            Ok(Event::Exited(status)) => break status.ok(),
            Ok(Event::Closed) => open_streams -= 1,
            Ok(Event::Cancelled) => {
                cancelled = true;
                if terminated_at.is_none() {
                    signal_group(pid, Signal::Term);
                    terminated_at = Some(Instant::now());
                }
            }
            Err(RecvTimeoutError::Timeout) if terminated_at.is_none() => {
                timed_out = true;
                signal_group(pid, Signal::Term);
                terminated_at = Some(Instant::now());
            }
            Err(RecvTimeoutError::Timeout) => {
                signal_group(pid, Signal::Kill);
                killed = true;
            }
            Err(RecvTimeoutError::Disconnected) => break None,
        }
    };
    // What the command started may still hold its output open; that belongs to the call.
    let mut stopped_leftovers = false;
    if open_streams > 0 && !wait_closed(&rx, &mut open_streams, LINGER) {
        signal_group(pid, Signal::Kill);
        stopped_leftovers = !timed_out;
        wait_closed(&rx, &mut open_streams, Duration::from_secs(1));
    }
    let take = |c: &Arc<Mutex<Capture>>| {
        let c = c.lock().unwrap_or_else(|e| e.into_inner());
        (c.text(), c.cut())
    };
    let (stdout, stdout_cut) = take(&stdout);
    let (stderr, stderr_cut) = take(&stderr);
    Ok(Outcome {
        status,
        cancelled,
        timed_out,
        stopped_leftovers,
        stdout,
        stderr,
        cut: stdout_cut || stderr_cut,
    })
}

/// Reads `pipe` to its end on a thread of its own, keeping what the capture keeps.
fn drain(pipe: impl Read + Send + 'static, capture: Arc<Mutex<Capture>>, tx: mpsc::Sender<Event>) {
    std::thread::spawn(move || {
        pump(pipe, |chunk| {
            capture
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(chunk)
        });
        let _ = tx.send(Event::Closed);
    });
}

/// Waits up to `limit` for every stream to close.
fn wait_closed(rx: &mpsc::Receiver<Event>, open: &mut i32, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    while *open > 0 {
        match rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok(Event::Closed) => *open -= 1,
            Ok(Event::Exited(_) | Event::Cancelled) => {}
            Err(_) => return false,
        }
    }
    true
}

/// The result the model reads: labelled streams, then how the command ended.
fn render(outcome: &Outcome, timeout: Duration, confine: Confine) -> ToolOutput {
    let mut text = String::new();
    for (label, body) in [("stdout", &outcome.stdout), ("stderr", &outcome.stderr)] {
        if body.is_empty() {
            continue;
        }
        text.push_str(label);
        text.push_str(":\n");
        text.push_str(body.strip_suffix('\n').unwrap_or(body));
        text.push('\n');
    }
    if text.is_empty() {
        text.push_str("(no output)\n");
    }
    let exit_code = outcome.status.and_then(|s| s.code());
    let signal = outcome.status.as_ref().and_then(exit_signal);
    if outcome.timed_out {
        text.push_str(&format!(
            "Timed out after {}: the command and everything it started were stopped. Output so \
             far is above. If it needs longer, call again with a larger `timeout` (milliseconds, \
             at most {MAX_TIMEOUT_MS}).",
            human(timeout)
        ));
    } else {
        match (exit_code, signal) {
            (Some(code), _) => text.push_str(&format!("exit code: {code}")),
            (None, Some(sig)) => text.push_str(&format!("killed by signal {sig}")),
            (None, None) => text.push_str("exit code: unknown (lost track of the process)"),
        }
        if outcome.stopped_leftovers {
            text.push_str(
                "\nProcesses the command left in the background still held its output and were \
                 stopped; redirect their output (`cmd > log 2>&1 &`) to keep them running.",
            );
        }
    }
    let mut structured = json!({
        "exitCode": exit_code,
        "stdout": outcome.stdout,
        "stderr": outcome.stderr,
        "timedOut": outcome.timed_out,
        "outputCut": outcome.cut,
        "sandbox": confine.as_str(),
    });
    if let (Some(sig), Some(map)) = (signal, structured.as_object_mut()) {
        map.insert("signal".into(), sig.into());
    }
    ToolOutput {
        content: vec![Content::Text(text)],
        structured: Some(structured),
        is_error: outcome.timed_out,
    }
}

fn human(d: Duration) -> String {
    let ms = d.as_millis();
    if !ms.is_multiple_of(1000) {
        format!("{ms} ms")
    } else if ms.is_multiple_of(60_000) {
        format!("{} min", ms / 60_000)
    } else {
        format!("{} s", ms / 1000)
    }
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

    /// Issue 13, 3: a repository whose config runs a program on `git status` (fsmonitor) or
    /// in a hook does not run it through a read-only command.
    #[cfg(unix)]
    #[test]
    fn read_only_git_runs_no_configured_program() {
        let dir = tempfile::tempdir().unwrap();
        let canary = dir.path().join("canary");
        let git = |args: &[&str]| {
            Command::new("git")
                .args(args)
                .current_dir(dir.path())
                .output()
                .map(|o| o.status.success())
                .unwrap_or(false)
        };
        if !git(&["init", "-q"]) {
            return; // no git here: nothing to check
        }
        let hook = format!("touch {}", canary.display());
        assert!(git(&["config", "core.fsmonitor", &hook]));
        let timeout = Duration::from_secs(20);
        let outcome = run(
            "git status --porcelain",
            dir.path(),
            timeout,
            &Cancel::new(),
            unconfined("git status --porcelain"),
        )
        .unwrap();
        assert!(
            outcome.status.is_some_and(|s| s.success()),
            "git status failed"
        );
        assert!(!canary.exists(), "the repository's fsmonitor ran");
    }

    fn run_ok(command: &str, timeout_ms: u64) -> (Outcome, ToolOutput) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("here.txt"), "x").unwrap();
        let timeout = Duration::from_millis(timeout_ms);
        let outcome = run(
            command,
            dir.path(),
            timeout,
            &Cancel::new(),
            unconfined(command),
        )
        .unwrap();
        let output = render(&outcome, timeout, Confine::Unconfined);
        (outcome, output)
    }

    /// How an approved command runs with the wall off.
    fn unconfined(command: &str) -> Setup<'static> {
        Setup {
            confinement: None,
            env: Environment::Inherited,
            git_safe: policy::classify(command).read_only,
        }
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn cancelling_stops_the_whole_group_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let cancel = Cancel::new();
        let canceller = cancel.clone();
        let watched = pid_file.clone();
        std::thread::spawn(move || {
            // Cancel once the command's grandchild has written its pid.
            while !std::fs::read_to_string(&watched).is_ok_and(|s| s.ends_with('\n')) {
                std::thread::sleep(Duration::from_millis(10));
            }
            canceller.cancel();
        });
        let command = format!("sleep 30 & echo $! > {}; wait", pid_file.display());
        let started = Instant::now();
        let outcome = run(
            &command,
            dir.path(),
            Duration::from_secs(60),
            &cancel,
            unconfined(&command),
        )
        .unwrap();
        assert!(outcome.cancelled, "{outcome:?}");
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the call ran to its end instead of stopping"
        );
        let pid: i32 = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // Gone, or a zombie its new parent has yet to reap. A process closes its files before
        // the kernel marks it a zombie, so the pipe can close a moment before: allow for that.
        let alive = || {
            let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let running = state
                .rsplit_once(") ")
                .is_some_and(|(_, rest)| !rest.starts_with('Z'));
            running.then_some(state)
        };
        let until = Instant::now() + Duration::from_secs(10);
        while alive().is_some() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        if let Some(state) = alive() {
            panic!("the background sleep {pid} outlived the cancelled call: {state}");
        }
    }

    #[test]
    fn schema_compiles() {
        assert!(jsonschema::validator_for(&def().input_schema).is_ok());
    }

    #[test]
    fn streams_and_exit_codes() {
        let cases: &[(&str, &str, Option<i32>)] = &[
            (
                "echo out; echo err >&2",
                "stdout:\nout\nstderr:\nerr\nexit code: 0",
                Some(0),
            ),
            ("exit 3", "(no output)\nexit code: 3", Some(3)),
            ("ls", "stdout:\nhere.txt\nexit code: 0", Some(0)),
            // stdin is /dev/null: `read` meets the end at once.
            ("read line; echo $?", "stdout:\n1\nexit code: 0", Some(0)),
            ("kill -9 $$", "(no output)\nkilled by signal 9", None),
        ];
        for (command, want, code) in cases {
            let (_, output) = run_ok(command, 10_000);
            assert_eq!(output.text_content(), *want, "{command}");
            assert!(!output.is_error, "{command}");
            let s = output.structured.unwrap();
            assert_eq!(s["exitCode"], json!(code), "{command}");
            assert_eq!(s["timedOut"], false);
        }
    }

    #[test]
    fn timeout_stops_the_whole_group() {
        let started = Instant::now();
        let (outcome, output) = run_ok("echo begun; sleep 30 & sleep 30; echo never", 300);
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(outcome.timed_out);
        assert!(output.is_error);
        let text = output.text_content();
        assert!(
            text.starts_with("stdout:\nbegun\nTimed out after 300 ms"),
            "{text}"
        );
        assert!(!text.contains("never"));
    }

    #[test]
    fn background_holders_are_stopped_after_exit() {
        let started = Instant::now();
        let (outcome, output) = run_ok("sleep 30 & echo done", 10_000);
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(outcome.stopped_leftovers);
        assert!(!output.is_error);
        assert!(output.text_content().contains("redirect their output"));
        // Redirected background work is left alone and does not hold the call.
        let started = Instant::now();
        let (outcome, _) = run_ok("sleep 2 > /dev/null 2>&1 & echo ok", 10_000);
        assert!(started.elapsed() < Duration::from_secs(2));
        assert!(!outcome.stopped_leftovers);
    }

    #[test]
    fn long_output_keeps_head_and_tail() {
        let (outcome, output) = run_ok("seq 1 20000", 10_000);
        assert!(outcome.cut);
        let text = output.text_content();
        assert!(text.starts_with("stdout:\n1\n2\n3\n"));
        assert!(
            text.contains("bytes cut: the stream had 108894 bytes"),
            "{text:.200}"
        );
        assert!(text.contains("\n20000\nexit code: 0"));
        assert!(!text.contains("\n10000\n"));
        assert!(text.len() < 31_000);
        assert_eq!(output.structured.unwrap()["outputCut"], true);
    }

    #[test]
    fn capture_cuts_on_character_boundaries() {
        let mut c = Capture::default();
        // 'é' is two bytes; 20,000 of them straddle both cut points.
        let text = "é".repeat(20_000);
        for chunk in text.as_bytes().chunks(777) {
            c.push(chunk);
        }
        assert!(c.cut());
        let out = c.text();
        assert!(!out.contains('\u{fffd}'));
        let small = {
            let mut c = Capture::default();
            c.push(b"abc");
            c.push(b"def");
            c.text()
        };
        assert_eq!(small, "abcdef");
    }

    #[test]
    fn a_missing_working_directory_runs_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("gone");
        let env = crate::host::HostEnv {
            homes: crate::homes::Homes {
                runtime: dir.path().join("runtime"),
                agent: dir.path().join("agent"),
                agent_source: crate::homes::AgentHomeSource::Env,
            },
            settings: crate::config::Config::default()
                .settings(&dir.path().join("finch.toml"))
                .unwrap(),
            env: crate::env::Env::default(),
            fixed_now: None,
            embed_resources: false,
        };
        let session = crate::host::session::SessionState::detached(
            gone.clone(),
            gone.clone(),
            policy::Mode::AcceptCalls,
            None,
        );
        for confine in [Confine::Unconfined, Confine::ReadOnly] {
            let mut plan = crate::host::call::plan::CallPlan::unplanned(session.workspace());
            plan.wall = Some(crate::host::call::confine::WallPlan::of(confine));
            let cx = Cx {
                env: &env,
                session: &session,
                cancel: &Cancel::new(),
                progress: &crate::host::cancel::no_progress,
                plan: &plan,
                blocked: &std::sync::OnceLock::new(),
            };
            let out = call(&json!({"command": "touch x"}), &cx);
            assert!(out.is_error);
            assert!(
                out.text_content()
                    .contains("does not exist, so the command was not run")
            );
            assert!(!dir.path().join("x").exists());
        }
    }

    #[test]
    fn durations_read_well() {
        for (ms, want) in [
            (300, "300 ms"),
            (2000, "2 s"),
            (120_000, "2 min"),
            (1500, "1500 ms"),
        ] {
            assert_eq!(human(Duration::from_millis(ms)), want);
        }
    }
}
