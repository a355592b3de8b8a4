//! `ctx.sessions`: agent sessions a mini tool creates and sends turns to. finch has no agent of
//! its own; a turn runs the configured `[agent] command` (the command line schedules use,
//! placeholders substituted by `schedule::runner::substitute`, never interpreted by a shell)
//! in the session's directory, and its standard output is the turn's `outputText`. Without an
//! `[agent] command` every method rejects with an error naming that setting.
//!
//! Sessions outlive the finch process that made them: descriptors, turns and events are kept in
//! `<runtime>/minitool-sessions/<mini tool id>/sessions.json` (locked, written atomically,
//! unknown keys kept), so a turn sent by one `finch tool call` is read, awaited and listed by
//! the next. A turn's agent runs detached from finch (a process group of its own, under a small
//! `sh` that only waits for the session's previous turn and writes the exit status beside the
//! output), so it keeps running when the process that started it ends; whichever finch reads
//! the session next records its result (`settle`). Sessions belong to the mini tool that
//! created them; turns of one session run one after another (the d.ts's FIFO queue).
//!
//! Limits (the d.ts documents them, without numbers): one turn of a session runs at a time (the
//! d.ts's strict FIFO queue) and at most `MAX_OUTSTANDING` (16) are unfinished — running or
//! queued — per session, `MAX_OUTSTANDING_MINITOOL` (64) across a mini tool's sessions; a
//! `send` past either gets the d.ts's `rejected` receipt (`code: "queue_full"`, its `scope`,
//! `limit` and `retryAfterMs`). A session keeps its last `EVENTS_KEPT` events; a turn that runs
//! past `TURN_TIMEOUT` is stopped and recorded `timeout` by the next reader.
//!
//! What the agent is told, as the app tells it (issue 44): the session's id as
//! `FINCH_SESSION_ID` (and `{session}`), its title as `FINCH_SESSION_TITLE` (and `{title}`),
//! and the agent profile prompt of its container (`contributes.sessionContainers[].agentProfile`
//! → `contributes.agentProfiles[].prompt`) as `FINCH_SYSTEM_PROMPT` and `{system}` — where the
//! command has no `{system}`, the profile leads the prompt, so it reaches any agent.
//!
//! Events reach the mini tool (`sessions.onDidReceiveEvent`) as the d.ts declares them: while
//! the finch that sent a turn runs, `assistant.delta` carries each piece of the agent's output
//! as it is written (live only, never stored, as the d.ts says); a finished turn records
//! `assistant.message` (its whole output, when there is any) and `turn.completed`, or
//! `turn.failed`. Those durable events go to an outbox in `sessions.json` and are delivered
//! exactly once: a finch that runs the mini tool claims each undelivered one (its own pid and
//! its node's), pushes it, and removes it when the bootstrap acknowledges it (`sessions.ack`,
//! sent once the listeners ran and their promises settled). A claim whose finch or node is gone
//! — killed mid-turn — is taken over by the next finch that runs the mini tool, which also
//! records the turns that ended meanwhile (`settle`): so a reply is neither lost nor sent twice
//! when the host dies. (Only a death in the instant between the listeners running and the
//! acknowledgement being written can repeat an event; each carries its `sequence` for that.)
//!
//! No side doors (issue 39): a turn starts the person's own agent, so only a mini tool that
//! declares `permissions.sessions` (or was granted it: `finch sandbox grant <id> sessions`) may
//! `create` or `send`; the others are refused, the error naming the declaration and the grant.
//! The mode the agent gets is the one the mini tool asks for clamped to the person's mode of
//! the run (`session_mode`): never wider, never `bypassPermissions`, and a mode finch does not
//! know is an error rather than a guess. The agent runs as an approved Bash call does — in the
//! `[sandbox] approved` profile (workspace-write over the session's directory, protected paths
//! read-only, network as `[sandbox] network` says; unconfined only where Bash would be), through
//! `finch sandbox run` — with the minimal environment of the fast lane, so it sees no secret of
//! finch's environment.
//! A declared right takes no card, though SPEC §9.1 once asked for one the first time per
//! mini tool: the person saw `sessions` among the permissions when they added and enabled the
//! mini tool (or granted it themselves), a bot mini tool must be able to run unattended, and
//! a card nobody can answer would only turn the declaration into a refusal.
//!
//! Nothing here blocks a mini tool's reader thread: turns and waits are watched by threads of
//! their own and answer when done. finch's agent runs headless, so a session never has waits
//! (`listWaits` is empty, `respondToWait` answers `not_found`, `waitForWait` resolves
//! `undefined` at its timeout).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::protocol::{ChildRequest, HostPush, Method};
use super::rpc::{Conn, RpcError, RpcResult};
use super::services::str_param;
use super::{Inner, Instance, lock, now_iso};
use crate::host::policy::Mode;
use crate::sandbox::Confine;
use crate::schedule::runner::{Placeholders, Signal, signal_group, substitute};
use crate::store::DirLock;

/// The longest turn: the schedules' default time limit.
const TURN_TIMEOUT: Duration = crate::schedule::runner::DEFAULT_TIMEOUT;
/// How much of an agent's output a turn keeps.
const OUTPUT_MAX: usize = 256 * 1024;
/// Unfinished turns (running or queued) a session may have.
const MAX_OUTSTANDING: usize = 16;
/// Unfinished turns a mini tool may have across its sessions.
const MAX_OUTSTANDING_MINITOOL: usize = 64;
/// What a `queue_full` receipt asks the mini tool to wait before it tries again.
const RETRY_AFTER_MS: u64 = 1000;
/// Undelivered events kept per mini tool (the oldest go first).
const OUTBOX_MAX: usize = 1000;
/// How often a running mini tool's outbox is looked at for what another finch recorded.
const PUMP: Duration = Duration::from_secs(1);
/// How often the finch that started a turn reads the agent's new output.
const TAIL: Duration = Duration::from_millis(100);
/// How long a turn's wait waits for its watcher's last `assistant.delta` once it ended.
const WATCH_END: Duration = Duration::from_secs(5);
/// Events a session keeps (the oldest go first).
const EVENTS_KEPT: usize = 500;
/// How often a wait looks at the state again.
const POLL: Duration = Duration::from_millis(50);

/// `sessions.json`.
#[derive(Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stored {
    #[serde(default)]
    sessions: Vec<StoredSession>,
    #[serde(default)]
    turns: BTreeMap<String, StoredTurn>,
    #[serde(default)]
    sequence: u64,
    #[serde(default)]
    turn_seq: u64,
    /// Durable events not yet acknowledged by the mini tool.
    #[serde(default)]
    outbox: Vec<Outgoing>,
    #[serde(flatten)]
    other: Map<String, Value>,
}

/// One event of the outbox.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Outgoing {
    event: Value,
    /// Who pushed it last, when someone did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    claim: Option<Claim>,
    #[serde(flatten)]
    other: Map<String, Value>,
}

/// The finch (`host`) and the node process of the mini tool (`node`) an event was pushed to.
#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Claim {
    host: u32,
    node: u32,
    /// Milliseconds since the epoch.
    at: u64,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredSession {
    id: String,
    descriptor: Value,
    cwd: PathBuf,
    mode: String,
    /// Idempotency key → turn id.
    #[serde(default)]
    keys: BTreeMap<String, String>,
    #[serde(default)]
    events: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    /// The agent profile prompt of its container.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    profile: Option<String>,
    #[serde(flatten)]
    other: Map<String, Value>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredTurn {
    session: String,
    /// The `turn.completed` / `turn.failed` event, once recorded.
    #[serde(default)]
    result: Option<Value>,
    /// The process group of its runner.
    #[serde(default)]
    pid: Option<u32>,
    /// Milliseconds since the epoch when it was sent.
    #[serde(default)]
    sent_at: u64,
    #[serde(flatten)]
    other: Map<String, Value>,
}

/// Where mini tool `id`'s sessions are kept.
fn dir_of(inner: &Inner, id: &str) -> PathBuf {
    inner.homes.runtime.join("minitool-sessions").join(id)
}

/// Where a turn's runner writes its output and exit status: the one directory the confined
/// agent may write besides the session's, so it cannot touch `sessions.json`.
fn turn_file(dir: &Path, turn: &str, ext: &str) -> PathBuf {
    dir.join("turns").join(format!("{turn}.{ext}"))
}

fn epoch_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Lock, read, record finished turns, change, write: the one way to the state.
fn with_state<R>(
    inner: &Inner,
    id: &str,
    change: impl FnOnce(&Path, &mut Stored) -> Result<R, RpcError>,
) -> Result<R, RpcError> {
    let dir = dir_of(inner, id);
    // `[store] lock_timeout`, as the mini tool's storage has it.
    let timeout = inner
        .instances
        .iter()
        .find(|i| i.id == id)
        .map_or(Duration::from_secs(10), |i| i.storage.lock_timeout);
    let _lock = DirLock::acquire(&dir, "the mini tool's sessions", timeout)
        .map_err(|e| RpcError::refused(e.to_string()))?;
    let path = dir.join("sessions.json");
    let mut stored: Stored = crate::store::read_json_as(&path)
        .map_err(|e| RpcError::refused(e.to_string()))?
        .unwrap_or_default();
    let before = std::fs::read(&path).ok();
    settle(&dir, &mut stored);
    let out = change(&dir, &mut stored)?;
    let bytes = serde_json::to_vec_pretty(&stored)
        .map_err(|e| RpcError::refused(format!("cannot encode the sessions: {e}")))?;
    // Looking is frequent (the outbox pump); only a change is written.
    if before.as_deref() != Some(bytes.as_slice()) {
        crate::store::write_atomic(&path, &bytes)
            .map_err(|e| RpcError::refused(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(out)
}

/// Records every turn whose runner wrote its exit status (or that ran past `TURN_TIMEOUT`,
/// which is stopped).
fn settle(dir: &Path, stored: &mut Stored) {
    let now = epoch_ms();
    // The output of a turn recorded in the state as read is needed no more. (A turn recorded
    // now keeps it until then: this process may end before it writes the state.)
    for (tid, _) in stored.turns.iter().filter(|(_, t)| t.result.is_some()) {
        let _ = std::fs::remove_file(turn_file(dir, tid, "out"));
    }
    let open: Vec<String> = stored
        .turns
        .iter()
        .filter(|(_, t)| t.result.is_none())
        .map(|(id, _)| id.clone())
        .collect();
    for tid in open {
        let Some(turn) = stored.turns.get(&tid) else {
            continue;
        };
        let sid = turn.session.clone();
        let status = std::fs::read_to_string(turn_file(dir, &tid, "status"));
        let event = match status {
            Ok(code) => {
                let out = turn_file(dir, &tid, "out");
                let mut output = std::fs::read(&out).unwrap_or_default();
                output.truncate(OUTPUT_MAX);
                if code.trim() == "0" {
                    let text = String::from_utf8_lossy(&output).trim_end().to_string();
                    let mut ids = Vec::new();
                    if !text.is_empty() {
                        let message = message_id(&tid);
                        record(
                            stored,
                            &tid,
                            json!({"type": "assistant.message", "sessionId": sid, "turnId": tid,
                                   "messageId": message, "text": text, "createdAt": now_iso()}),
                        );
                        ids.push(message);
                    }
                    json!({"type": "turn.completed", "sessionId": sid, "turnId": tid,
                           "outputText": text, "messageIds": ids, "createdAt": now_iso()})
                } else {
                    let code = if code.trim() == "127" {
                        "agent_not_started"
                    } else {
                        "agent_failed"
                    };
                    json!({"type": "turn.failed", "sessionId": sid, "turnId": tid,
                           "code": code, "retryable": false, "createdAt": now_iso()})
                }
            }
            Err(_) if now.saturating_sub(turn.sent_at) > TURN_TIMEOUT.as_millis() as u64 => {
                if let Some(pid) = turn.pid {
                    signal_group(pid, Signal::Kill);
                }
                json!({"type": "turn.failed", "sessionId": sid, "turnId": tid,
                       "code": "timeout", "retryable": false, "createdAt": now_iso()})
            }
            Err(_) => continue,
        };
        record(stored, &tid, event);
    }
}

/// The id of a turn's one assistant message.
fn message_id(turn: &str) -> String {
    format!("msg_{turn}")
}

/// Numbers a durable event, keeps it in its session and in the outbox, and marks its turn
/// done when it is the turn's end (`turn.completed`, `turn.failed`).
fn record(stored: &mut Stored, turn: &str, mut event: Value) -> Value {
    stored.sequence += 1;
    event["sequence"] = json!(stored.sequence);
    let session = event["sessionId"].as_str().unwrap_or_default().to_string();
    if let Some(s) = stored.sessions.iter_mut().find(|s| s.id == session) {
        s.events.push(event.clone());
        let excess = s.events.len().saturating_sub(EVENTS_KEPT);
        s.events.drain(..excess);
        s.descriptor["updatedAt"] = json!(now_iso());
    }
    let ends = event["type"]
        .as_str()
        .is_some_and(|t| t == "turn.completed" || t == "turn.failed");
    if ends && let Some(t) = stored.turns.get_mut(turn) {
        t.result = Some(event.clone());
    }
    stored.outbox.push(Outgoing {
        event: event.clone(),
        claim: None,
        other: Map::new(),
    });
    let excess = stored.outbox.len().saturating_sub(OUTBOX_MAX);
    stored.outbox.drain(..excess);
    event
}

/// Whether process `pid` exists.
fn alive(pid: u32) -> bool {
    // SAFETY: kill with signal 0 only checks that the process exists.
    let rc = unsafe { libc::kill(pid as libc::pid_t, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Pushes to the mini tool's process `conn` every durable event of its outbox nobody else
/// holds: unclaimed, or claimed by a finch or a node that is gone (or by an earlier node of
/// this finch). Each stays in the outbox, claimed, until the bootstrap acknowledges it
/// (`acknowledge`).
pub(crate) fn deliver(inner: &Inner, inst: &Instance, conn: &Conn) {
    if !conn.is_alive() || !dir_of(inner, &inst.id).join("sessions.json").exists() {
        return;
    }
    let me = Claim {
        host: std::process::id(),
        node: conn.pid,
        at: epoch_ms(),
    };
    let watched = lock(&inner.watching).clone();
    let due = with_state(inner, &inst.id, |_, st| {
        let mut due = Vec::new();
        for o in st.outbox.iter_mut() {
            // A turn still being tailed: its last deltas go first (`watch`).
            if o.event["turnId"]
                .as_str()
                .is_some_and(|t| watched.iter().any(|w| w == t))
            {
                continue;
            }
            let held = o.claim.is_some_and(|c| {
                let mine = c.host == me.host;
                (mine && c.node == me.node) || (!mine && alive(c.host) && alive(c.node))
            });
            if !held {
                o.claim = Some(me);
                due.push(o.event.clone());
            }
        }
        Ok(due)
    });
    for event in due.unwrap_or_default() {
        conn.notify(HostPush::SessionEvent, event);
    }
}

/// The bootstrap has given the event numbered `sequence` to the mini tool's listeners.
pub(crate) fn acknowledge(inner: &Inner, inst: &Instance, sequence: u64) {
    let _ = with_state(inner, &inst.id, |_, st| {
        st.outbox
            .retain(|o| o.event["sequence"].as_u64() != Some(sequence));
        Ok(())
    });
}

/// While the process `conn` of `inst` runs: delivers what its outbox holds now, then looks
/// again every `PUMP` (turns another finch started end meanwhile; a finch killed before
/// delivering leaves its claims behind).
pub(crate) fn pump(inner: &Arc<Inner>, inst: &Arc<Instance>, conn: &Arc<Conn>) {
    if !inst.sessions && !dir_of(inner, &inst.id).exists() {
        return;
    }
    let (inner, inst, conn) = (inner.clone(), inst.clone(), conn.clone());
    let _ = spawn("finch-session-outbox", move || {
        loop {
            if !conn.is_alive()
                || !inst.is_current(&conn)
                || inner.shut.load(std::sync::atomic::Ordering::SeqCst)
            {
                return;
            }
            deliver(&inner, &inst, &conn);
            std::thread::sleep(PUMP);
        }
    });
}

fn owned<'a>(stored: &'a mut Stored, sid: &str) -> Option<&'a mut StoredSession> {
    stored.sessions.iter_mut().find(|s| s.id == sid)
}

fn no_agent(inner: &Inner) -> RpcError {
    RpcError::refused(format!(
        "ctx.sessions needs an agent to run turns, and none is configured: set [agent] command = [\"my-agent\", \"--prompt\", \"{{prompt}}\"] in {}",
        inner.homes.finch_toml().display()
    ))
}

/// The refusal of `create`/`send` for a mini tool that neither declares nor was granted
/// `permissions.sessions`.
fn undeclared(inst: &Instance, method: ChildRequest) -> RpcError {
    let id = &inst.id;
    RpcError::refused(format!(
        "blocked: {id} does not declare permissions.sessions, and ctx.{} would start the person's agent ([agent] command); a person who wants it to grants it with `finch sandbox grant {id} sessions`",
        method.wire()
    ))
}

/// The names a mini tool may give `permissionMode`, and the finch mode each stands for:
/// finch's own, and the Finch app's (whose `plan` finch has no read-only agent mode for, so it
/// is `ask`, and whose `bypassPermissions` is wider than any mode finch has).
const MODES: &[(&str, Option<Mode>)] = &[
    ("ask", Some(Mode::Ask)),
    ("default", Some(Mode::Ask)),
    ("plan", Some(Mode::Ask)),
    ("acceptCalls", Some(Mode::AcceptCalls)),
    ("acceptEdits", Some(Mode::AcceptCalls)),
    // Wider than anything: the host's mode.
    ("bypassPermissions", None),
];

/// The mode an agent session gets: the one asked for (`None`: the host's), never wider than
/// `host`, the person's mode for the run; a name finch does not know is an error.
fn session_mode(asked: Option<&str>, host: Mode) -> Result<Mode, RpcError> {
    let Some(asked) = asked else {
        return Ok(host);
    };
    let Some((_, mode)) = MODES.iter().find(|(name, _)| *name == asked) else {
        let names: Vec<&str> = MODES.iter().map(|(n, _)| *n).collect();
        return Err(RpcError::invalid(format!(
            "sessions.create: {asked:?} is not a permission mode (use one of {})",
            names.join(", ")
        )));
    };
    Ok(match (mode, host) {
        (Some(Mode::AcceptCalls), Mode::AcceptCalls) | (None, Mode::AcceptCalls) => {
            Mode::AcceptCalls
        }
        _ => Mode::Ask,
    })
}

/// One `sessions.*` request; `None` when a thread answers it later.
pub(crate) fn request(
    inner: &Arc<Inner>,
    inst: &Arc<Instance>,
    conn: &Arc<Conn>,
    id: Value,
    method: ChildRequest,
    params: &Value,
) -> Option<RpcResult> {
    use ChildRequest as R;
    if matches!(method, R::SessionsCreate | R::SessionsSend) && !inst.sessions {
        return Some(Err(undeclared(inst, method)));
    }
    let Some(command) = inner.agent_command.clone() else {
        return Some(Err(no_agent(inner)));
    };
    let answer = match method {
        R::SessionsCreate => create(inner, inst, conn, &command, params),
        R::SessionsGet => str_param(params, "sessionId").and_then(|sid| {
            with_state(inner, &inst.id, |_, st| {
                Ok(owned(st, sid).map_or(Value::Null, |s| s.descriptor.clone()))
            })
        }),
        R::SessionsList => with_state(inner, &inst.id, |_, st| {
            Ok(Value::Array(
                st.sessions.iter().map(|s| s.descriptor.clone()).collect(),
            ))
        }),
        R::SessionsSend => str_param(params, "sessionId").and_then(|sid| {
            send(
                inner,
                inst,
                conn,
                &command,
                sid,
                params.get("message").unwrap_or(&Value::Null),
            )
        }),
        R::SessionsListEvents => list_events(inner, inst, params),
        R::SessionsListWaits => Ok(json!([])),
        R::SessionsRespondToWait => Ok(json!({
            "state": "not_found",
            "requestId": params.get("requestId").cloned().unwrap_or(Value::Null),
        })),
        R::SessionsWaitForTurn => {
            let (sid, turn) = match (str_param(params, "sessionId"), str_param(params, "turnId")) {
                (Ok(s), Ok(t)) => (s.to_string(), t.to_string()),
                (Err(e), _) | (_, Err(e)) => return Some(Err(e)),
            };
            let timeout = timeout_of(params);
            let (inner, to, inst) = (inner.clone(), conn.clone(), inst.clone());
            let started = spawn("finch-session-wait", move || {
                let result = wait_for_turn(&inner, &inst.id, &sid, &turn, timeout);
                // The turn's events reach the listeners before its wait resolves, after the
                // agent's last output (its watcher delivers them as it ends).
                let until = Instant::now() + WATCH_END;
                while lock(&inner.watching).contains(&turn) && Instant::now() < until {
                    std::thread::sleep(TAIL);
                }
                deliver(&inner, &inst, &to);
                to.reply(id, result);
            });
            return started.err().map(Err);
        }
        R::SessionsWaitForWait => {
            let timeout = timeout_of(params);
            let to = conn.clone();
            let started = spawn("finch-session-wait", move || {
                std::thread::sleep(timeout);
                to.reply(id, Ok(Value::Null));
            });
            return started.err().map(Err);
        }
        other => Err(RpcError::new(
            super::rpc::code::METHOD_NOT_FOUND,
            format!("ctx.sessions has no method {}", other.wire()),
        )),
    };
    Some(answer)
}

/// Starts a thread; the refusal the mini tool gets when the system has none to give.
fn spawn(name: &str, work: impl FnOnce() + Send + 'static) -> Result<(), RpcError> {
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(work)
        .map(drop)
        .map_err(|e| RpcError::refused(format!("ctx.sessions: cannot start a thread: {e}")))
}

/// `options.timeoutMs`, default 60 s, clamped to 1–600 s (the d.ts's limits).
fn timeout_of(params: &Value) -> Duration {
    let ms = params
        .get("options")
        .and_then(|o| o.get("timeoutMs"))
        .and_then(Value::as_f64)
        .filter(|ms| ms.is_finite())
        .unwrap_or(60_000.0)
        .clamp(1_000.0, 600_000.0);
    Duration::from_millis(ms as u64)
}

fn create(
    inner: &Arc<Inner>,
    inst: &Arc<Instance>,
    conn: &Arc<Conn>,
    command: &[String],
    params: &Value,
) -> RpcResult {
    let options = params.get("options").cloned().unwrap_or_else(|| json!({}));
    let text = |k: &str| options.get(k).and_then(Value::as_str).map(str::to_string);
    let container = text("containerId");
    let space = options
        .get("space")
        .and_then(|s| s.get("spaceId"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let (placement, cwd) = match (&container, &space) {
        (Some(_), Some(_)) => {
            return Err(RpcError::invalid(
                "sessions.create: containerId and space exclude each other",
            ));
        }
        (Some(c), None) => (
            json!({"type": "minitool", "minitoolId": inst.id, "containerId": c}),
            inner.homes.agent.clone(),
        ),
        (None, Some(sid)) => {
            let spaces =
                crate::space::list(&inner.homes).map_err(|e| RpcError::refused(e.to_string()))?;
            let found = crate::space::find(&spaces, sid).ok_or_else(|| {
                RpcError::refused(format!("sessions.create: no space has the id {sid}"))
            })?;
            (
                json!({"type": "space", "spaceId": found.id}),
                found
                    .directory
                    .clone()
                    .unwrap_or_else(|| inner.homes.agent.clone()),
            )
        }
        (None, None) => (json!({"type": "chat"}), inner.homes.agent.clone()),
    };
    let host = lock(&inner.session)
        .as_ref()
        .map_or(Mode::Ask, |session| session.mode);
    let mode = session_mode(text("permissionMode").as_deref(), host)?;
    let profile = container.as_deref().and_then(|c| agent_profile(inst, c));
    let id = crate::ids::new_session_id();
    let now = now_iso();
    let mut descriptor = json!({
        "sessionId": id,
        "owner": {"type": "minitool", "minitoolId": inst.id},
        "placement": placement,
        "activity": text("activity").unwrap_or_else(|| "interactive".into()),
        "state": {"pinned": false, "archived": false},
        "createdAt": now,
        "updatedAt": now,
    });
    if let Some((profile_id, _)) = &profile {
        descriptor["profileId"] = json!(profile_id);
    }
    let session = StoredSession {
        id: id.clone(),
        descriptor: descriptor.clone(),
        cwd,
        mode: mode.as_str().to_string(),
        keys: BTreeMap::new(),
        events: Vec::new(),
        title: text("title").filter(|t| !t.trim().is_empty()),
        profile: profile.map(|(_, prompt)| prompt),
        other: Map::new(),
    };
    with_state(inner, &inst.id, |_, st| {
        st.sessions.push(session);
        Ok(())
    })?;
    if let Some(message) = options.get("initialMessage") {
        send(inner, inst, conn, command, &id, message)?;
    }
    Ok(descriptor)
}

/// The agent profile of container `container` of `inst`: its id and prompt
/// (`contributes.sessionContainers[].agentProfile` → `contributes.agentProfiles[].prompt`).
fn agent_profile(inst: &Instance, container: &str) -> Option<(String, String)> {
    let find = |point: &str, id: &str| {
        inst.contributes
            .get(point)?
            .as_array()?
            .iter()
            .find(|c| c.get("id").and_then(Value::as_str) == Some(id))
            .cloned()
    };
    let profile_id = find("sessionContainers", container)?
        .get("agentProfile")?
        .as_str()?
        .to_string();
    let prompt =
        crate::minitool::manifest::localized(find("agentProfiles", &profile_id)?.get("prompt")?)?;
    Some((profile_id, prompt))
}

fn send(
    inner: &Arc<Inner>,
    inst: &Arc<Instance>,
    conn: &Arc<Conn>,
    command: &[String],
    session_id: &str,
    message: &Value,
) -> RpcResult {
    let prompt = message
        .get("text")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid("sessions.send: the message needs a \"text\" string"))?
        .to_string();
    let key = message
        .get("idempotencyKey")
        .and_then(Value::as_str)
        .filter(|k| !k.is_empty())
        .ok_or_else(|| {
            RpcError::invalid("sessions.send: the message needs an \"idempotencyKey\" string")
        })?
        .to_string();
    let sent = with_state(inner, &inst.id, |dir, st| {
        let pending: Vec<String> = st
            .turns
            .iter()
            .filter(|(_, t)| t.session == session_id && t.result.is_none())
            .map(|(id, _)| id.clone())
            .collect();
        let all_pending = st.turns.values().filter(|t| t.result.is_none()).count();
        let Some(session) = owned(st, session_id) else {
            return Err(RpcError::refused(format!(
                "sessions.send: this mini tool has no session {session_id}"
            )));
        };
        if let Some(turn) = session.keys.get(&key) {
            return Ok((
                json!({"sessionId": session_id, "turnId": turn, "clientMessageId": key,
                              "state": "duplicate", "queued": false,
                              "pendingCount": pending.len()}),
                None,
            ));
        }
        let full = if pending.len() >= MAX_OUTSTANDING {
            Some(("session", pending.len(), MAX_OUTSTANDING))
        } else if all_pending >= MAX_OUTSTANDING_MINITOOL {
            Some(("minitool", all_pending, MAX_OUTSTANDING_MINITOOL))
        } else {
            None
        };
        if let Some((scope, count, limit)) = full {
            return Ok((
                json!({"sessionId": session_id, "state": "rejected", "queued": false,
                       "code": "queue_full", "scope": scope, "pendingCount": count,
                       "limit": limit, "retryAfterMs": RETRY_AFTER_MS}),
                None,
            ));
        }
        // The profile reaches an agent whose command has no `{system}` as the prompt's lead.
        let prompt = match &session.profile {
            Some(profile) if !command.iter().any(|a| a == "{system}") => {
                format!("{profile}\n\n{prompt}")
            }
            _ => prompt,
        };
        let values = Placeholders {
            prompt,
            model: None,
            cwd: session.cwd.display().to_string(),
            session: session_id.to_string(),
            effort: None,
            mode: session.mode.clone(),
            title: session.title.clone(),
            system: session.profile.clone(),
        };
        let cwd = session.cwd.clone();
        st.turn_seq += 1;
        let turn_id = format!("turn_{:08}", st.turn_seq);
        // Turn ids are numbered in the order they were sent: the latest unfinished one is the
        // one this turn waits for.
        let previous = pending.iter().max().map(|t| turn_file(dir, t, "status"));
        let turn = Turn {
            cwd: &cwd,
            dir,
            id: &turn_id,
            previous,
            mode: &values.mode,
            session: session_id,
            title: values.title.as_deref(),
            system: values.system.as_deref(),
        };
        let runner = run_detached(inner, &substitute(command, &values), &turn);
        let (pid, child, error) = match runner {
            Ok(runner) => (Some(runner.pid), Some(runner), None),
            Err(e) => (None, None, Some(e.to_string())),
        };
        if let Some(session) = owned(st, session_id) {
            session.keys.insert(key.clone(), turn_id.clone());
        }
        st.turns.insert(
            turn_id.clone(),
            StoredTurn {
                session: session_id.to_string(),
                result: None,
                pid,
                sent_at: epoch_ms(),
                other: Map::new(),
            },
        );
        if let Some(error) = error {
            let failed = json!({"type": "turn.failed", "sessionId": session_id, "turnId": turn_id,
                                "code": "agent_not_started", "retryable": true,
                                "message": format!("the agent could not be started: {error}"),
                                "createdAt": now_iso()});
            record(st, &turn_id, failed);
        }
        let queued = pending.len();
        Ok((
            json!({"sessionId": session_id, "turnId": turn_id, "clientMessageId": key,
                   "state": "accepted", "queued": queued > 0, "pendingCount": queued + 1,
                   "queuePosition": queued}),
            child.map(|c| (c, turn_id, dir.to_path_buf())),
        ))
    })?;
    let (answer, running) = sent;
    if let Some((runner, turn, dir)) = running {
        // While this process lives: the agent's output as it comes (`assistant.delta`), then
        // the turn's events once it ended. The turn itself does not depend on this thread.
        let (inner, to, inst) = (inner.clone(), conn.clone(), inst.clone());
        let session = session_id.to_string();
        lock(&inner.watching).push(turn.clone());
        let (watcher, tailed) = (inner.clone(), turn.clone());
        let started = spawn("finch-session-turn", move || {
            watch(&to, runner, &dir, &session, &turn);
            lock(&inner.watching).retain(|w| *w != turn);
            deliver(&inner, &inst, &to);
        });
        if started.is_err() {
            lock(&watcher.watching).retain(|w| *w != tailed);
        }
    }
    Ok(answer)
}

/// Reaps a turn's runner; meanwhile sends each new piece of its output to the mini tool as an
/// `assistant.delta` (whole UTF-8 characters only).
fn watch(conn: &Conn, mut runner: Runner, dir: &Path, session: &str, turn: &str) {
    use std::io::{Read, Seek, SeekFrom};
    let out = turn_file(dir, turn, "out");
    let mut offset = 0u64;
    let mut pending: Vec<u8> = Vec::new();
    let message = message_id(turn);
    loop {
        let ended = !matches!(runner.child.try_wait(), Ok(None));
        if let Ok(mut file) = std::fs::File::open(&out)
            && file.seek(SeekFrom::Start(offset)).is_ok()
        {
            let mut fresh = Vec::new();
            let room = (OUTPUT_MAX as u64).saturating_sub(offset);
            if let Ok(n) = file.take(room).read_to_end(&mut fresh) {
                offset += n as u64;
                pending.extend_from_slice(&fresh);
            }
        }
        let whole = match std::str::from_utf8(&pending) {
            Ok(_) => pending.len(),
            Err(_) if ended => pending.len(),
            // Bytes that are no UTF-8 at all go out (lossily) with what precedes them.
            Err(e) => e.valid_up_to() + e.error_len().unwrap_or(0),
        };
        if whole > 0 && conn.is_alive() {
            let text = String::from_utf8_lossy(&pending[..whole]).into_owned();
            conn.notify(
                HostPush::SessionEvent,
                json!({"type": "assistant.delta", "sessionId": session, "turnId": turn,
                       "messageId": message, "delta": text, "createdAt": now_iso()}),
            );
        }
        pending.drain(..whole);
        if ended {
            return;
        }
        std::thread::sleep(TAIL);
    }
}

/// One turn to run.
struct Turn<'a> {
    /// The session's directory: the agent's workspace.
    cwd: &'a Path,
    /// The mini tool's sessions directory (`turn_file`).
    dir: &'a Path,
    id: &'a str,
    /// The status file of the session's previous turn, which this one waits for.
    previous: Option<PathBuf>,
    /// The clamped mode, also given as `FINCH_PERMISSION_MODE`.
    mode: &'a str,
    /// `FINCH_SESSION_ID`.
    session: &'a str,
    /// `FINCH_SESSION_TITLE`.
    title: Option<&'a str>,
    /// `FINCH_SYSTEM_PROMPT`: the container's agent profile prompt.
    system: Option<&'a str>,
}

/// A turn's runner, started.
struct Runner {
    /// Its process group.
    pid: u32,
    child: std::process::Child,
}

/// Starts a turn's runner, detached: a process group of its own, not killed when this finch
/// ends. `sh` only waits for `previous` and writes the agent's exit status next to its output
/// once it ended; the agent's words are passed as arguments, never as shell text. The runner
/// starts with the fast lane's minimal environment (and `FINCH_PERMISSION_MODE`); the agent
/// runs as an approved Bash call does, through `finch sandbox run` in the `[sandbox] approved`
/// profile over the session's directory. (A confined tree ends with the process that confined
/// it, and a turn outlives the finch that sent it, so the runner's own `finch sandbox run`
/// holds the wall.) The agent cannot write the turn files: the runner, outside, does.
fn run_detached(inner: &Inner, argv: &[String], turn: &Turn) -> std::io::Result<Runner> {
    if argv.is_empty() {
        return Err(std::io::Error::other("the agent command is empty"));
    }
    const SCRIPT: &str = r#"prev=$1; out=$2; st=$3; shift 3
while [ -n "$prev" ] && [ ! -e "$prev" ]; do sleep 0.1; done
"$@" >"$out" 2>/dev/null </dev/null
echo $? >"$st.tmp" && mv "$st.tmp" "$st""#;
    let out = turn_file(turn.dir, turn.id, "out");
    if let Some(turns) = out.parent() {
        std::fs::create_dir_all(turns)?;
    }
    // The agent home of a new installation may not exist yet.
    std::fs::create_dir_all(turn.cwd)?;
    let ce = &inner.confine_env;
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(SCRIPT)
        .arg("finch-session-turn")
        .arg(
            turn.previous
                .clone()
                .map(|p| p.into_os_string())
                .unwrap_or_default(),
        )
        .arg(&out)
        .arg(turn_file(turn.dir, turn.id, "status"));
    if ce.agent.profile().is_some() {
        let finch = std::env::current_exe()?;
        command
            .arg(finch)
            .arg("--runtime-home")
            .arg(&inner.homes.runtime)
            .args(["sandbox", "run", "--profile", "workspace-write"]);
        if matches!(ce.agent, Confine::WorkspaceWrite { network: true, .. }) {
            command.arg("--network");
        }
        command.arg("--cwd").arg(turn.cwd).arg("--");
    }
    command
        .args(argv)
        .env_clear()
        .envs(crate::sandbox::env::minimal(
            ce.vars.iter().map(|(k, v)| (k.as_str(), v)),
            &ce.extra_env,
        ))
        .env("FINCH_PERMISSION_MODE", turn.mode)
        .env("FINCH_SESSION_ID", turn.session)
        .current_dir(turn.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    if let Some(title) = turn.title {
        command.env("FINCH_SESSION_TITLE", title);
    }
    if let Some(system) = turn.system {
        command.env("FINCH_SYSTEM_PROMPT", system);
    }
    let child = command.spawn()?;
    Ok(Runner {
        pid: child.id(),
        child,
    })
}

fn wait_for_turn(
    inner: &Inner,
    minitool: &str,
    session: &str,
    turn: &str,
    timeout: Duration,
) -> RpcResult {
    let deadline = Instant::now() + timeout;
    loop {
        let result = with_state(inner, minitool, |_, st| {
            Ok(match st.turns.get(turn) {
                Some(t) if t.session == session => Some(t.result.clone()),
                _ => None,
            })
        })?;
        match result {
            None => {
                return Ok(
                    json!({"state": "failed", "sessionId": session, "turnId": turn,
                                 "code": "not_found", "retryable": false, "failedAt": now_iso()}),
                );
            }
            Some(Some(event)) => {
                return Ok(if event["type"] == "turn.completed" {
                    json!({"state": "completed", "sessionId": session, "turnId": turn,
                           "outputText": event["outputText"], "messageIds": [],
                           "completedAt": event["createdAt"]})
                } else {
                    json!({"state": "failed", "sessionId": session, "turnId": turn,
                           "code": event["code"], "retryable": false,
                           "failedAt": event["createdAt"]})
                });
            }
            Some(None) => {}
        }
        if Instant::now() >= deadline {
            return Ok(json!({"state": "timeout", "sessionId": session, "turnId": turn}));
        }
        std::thread::sleep(POLL);
    }
}

fn list_events(inner: &Inner, inst: &Instance, params: &Value) -> RpcResult {
    let options = params.get("options").cloned().unwrap_or(Value::Null);
    let sid = str_param(&options, "sessionId")?;
    let after = options.get("after").and_then(Value::as_u64).unwrap_or(0);
    let limit = options
        .get("limit")
        .and_then(Value::as_u64)
        .unwrap_or(100)
        .clamp(1, 1000) as usize;
    with_state(inner, &inst.id, |_, st| {
        let Some(session) = owned(st, sid) else {
            return Err(RpcError::refused(format!(
                "sessions.listEvents: this mini tool has no session {sid}"
            )));
        };
        let events: Vec<Value> = session
            .events
            .iter()
            .filter(|e| e["sequence"].as_u64().unwrap_or(0) > after)
            .take(limit)
            .cloned()
            .collect();
        let mut page = json!({"events": events});
        if let Some(last) = events_last(&page) {
            page["nextCursor"] = json!(last);
        }
        Ok(page)
    })
}

fn events_last(page: &Value) -> Option<u64> {
    page["events"].as_array()?.last()?["sequence"].as_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_mode_is_never_wider_than_the_host_s() {
        use Mode::{AcceptCalls, Ask};
        let cases: &[(Option<&str>, Mode, Mode)] = &[
            (None, Ask, Ask),
            (None, AcceptCalls, AcceptCalls),
            (Some("bypassPermissions"), Ask, Ask),
            (Some("bypassPermissions"), AcceptCalls, AcceptCalls),
            (Some("acceptCalls"), Ask, Ask),
            (Some("acceptEdits"), Ask, Ask),
            (Some("acceptCalls"), AcceptCalls, AcceptCalls),
            (Some("ask"), AcceptCalls, Ask),
            (Some("default"), AcceptCalls, Ask),
            (Some("plan"), AcceptCalls, Ask),
        ];
        for (asked, host, want) in cases {
            assert_eq!(
                session_mode(*asked, *host).unwrap(),
                *want,
                "{asked:?} in {host:?}"
            );
        }
    }

    #[test]
    fn rejects_a_mode_finch_does_not_know() {
        for asked in ["yolo", "", "AcceptCalls", "bypass"] {
            let err = session_mode(Some(asked), Mode::AcceptCalls).unwrap_err();
            assert!(
                err.message.contains("is not a permission mode"),
                "{}",
                err.message
            );
        }
    }
}
