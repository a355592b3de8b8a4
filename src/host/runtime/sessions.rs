//! `ctx.sessions`: agent sessions a mini tool creates and sends turns to. finch has no agent of
//! its own; a turn runs the configured `[agent] command` (the command line schedules use,
//! placeholders substituted by `schedule::runner::substitute`, never through a shell) in the
//! session's directory, and its standard output is the turn's `outputText`. Without an
//! `[agent] command` every method rejects with an error naming that setting.
//!
//! Sessions live for this run only and belong to the mini tool that created them. Turns of one
//! session run one after another (the d.ts's FIFO queue). Nothing here blocks a mini tool's
//! reader thread: turns and waits run on threads of their own and answer when done. finch's
//! agent runs headless, so a session never has waits (`listWaits` is empty, `respondToWait`
//! answers `not_found`, `waitForWait` resolves `undefined` at its timeout).

use std::collections::HashMap;
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::protocol::{ChildRequest, HostPush, Method};
use super::rpc::{Conn, RpcError, RpcResult};
use super::services::str_param;
use super::{Inner, Instance, lock, now_iso};
use crate::schedule::runner::{Placeholders, Signal, signal_group, substitute};

/// The longest turn: the schedules' default time limit.
const TURN_TIMEOUT: Duration = crate::schedule::runner::DEFAULT_TIMEOUT;
/// How much of an agent's output a turn keeps.
const OUTPUT_MAX: usize = 256 * 1024;

#[derive(Default)]
pub(crate) struct Sessions {
    state: Mutex<State>,
    changed: Condvar,
    /// Process groups of the agents running now, stopped when the runtime shuts down.
    running: Mutex<Vec<u32>>,
}

impl Sessions {
    /// Stops every agent still running a turn (the host is ending).
    pub(crate) fn stop_all(&self) {
        for pid in std::mem::take(&mut *lock(&self.running)) {
            signal_group(pid, Signal::Kill);
        }
    }
}

#[derive(Default)]
struct State {
    sessions: Vec<Session>,
    turns: HashMap<String, Turn>,
    sequence: u64,
    turn_seq: u64,
}

struct Session {
    id: String,
    owner: String,
    descriptor: Value,
    cwd: std::path::PathBuf,
    mode: String,
    keys: HashMap<String, String>,
    events: Vec<Value>,
}

struct Turn {
    session: String,
    result: Option<Value>,
}

fn no_agent(inner: &Inner) -> RpcError {
    RpcError::refused(format!(
        "ctx.sessions needs an agent to run turns, and none is configured: set [agent] command = [\"my-agent\", \"--prompt\", \"{{prompt}}\"] in {}",
        inner.homes.finch_toml().display()
    ))
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
    let Some(command) = inner.agent_command.clone() else {
        return Some(Err(no_agent(inner)));
    };
    let sessions = &inner.sessions;
    let answer = match method {
        R::SessionsCreate => create(inner, inst, conn, &command, params),
        R::SessionsGet => str_param(params, "sessionId").map(|sid| {
            let st = lock(&sessions.state);
            st.sessions
                .iter()
                .find(|s| s.id == sid && s.owner == inst.id)
                .map_or(Value::Null, |s| s.descriptor.clone())
        }),
        R::SessionsList => Ok(Value::Array(
            lock(&sessions.state)
                .sessions
                .iter()
                .filter(|s| s.owner == inst.id)
                .map(|s| s.descriptor.clone())
                .collect(),
        )),
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
            let (inner, to) = (inner.clone(), conn.clone());
            let started = spawn("finch-session-wait", move || {
                let result = wait_for_turn(&inner.sessions, &sid, &turn, timeout);
                to.reply(id, Ok(result));
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
    let id = crate::ids::new_session_id();
    let now = now_iso();
    let descriptor = json!({
        "sessionId": id,
        "owner": {"type": "minitool", "minitoolId": inst.id},
        "placement": placement,
        "activity": text("activity").unwrap_or_else(|| "interactive".into()),
        "state": {"pinned": false, "archived": false},
        "createdAt": now,
        "updatedAt": now,
    });
    lock(&inner.sessions.state).sessions.push(Session {
        id: id.clone(),
        owner: inst.id.clone(),
        descriptor: descriptor.clone(),
        cwd,
        mode: text("permissionMode").unwrap_or_else(|| "acceptCalls".into()),
        keys: HashMap::new(),
        events: Vec::new(),
    });
    if let Some(message) = options.get("initialMessage") {
        send(inner, inst, conn, command, &id, message)?;
    }
    Ok(descriptor)
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
    let mut st = lock(&inner.sessions.state);
    let pending = st
        .turns
        .values()
        .filter(|t| t.session == session_id && t.result.is_none())
        .count();
    st.turn_seq += 1;
    let turn_id = format!("turn_{:08}", st.turn_seq);
    let Some(session) = st
        .sessions
        .iter_mut()
        .find(|s| s.id == session_id && s.owner == inst.id)
    else {
        return Err(RpcError::refused(format!(
            "sessions.send: this mini tool has no session {session_id} (sessions last for one finch run)"
        )));
    };
    if let Some(turn) = session.keys.get(&key) {
        return Ok(
            json!({"sessionId": session_id, "turnId": turn, "clientMessageId": key,
                         "state": "duplicate", "queued": false, "pendingCount": pending}),
        );
    }
    session.keys.insert(key.clone(), turn_id.clone());
    let values = Placeholders {
        prompt,
        model: None,
        cwd: session.cwd.display().to_string(),
        session: session_id.to_string(),
        effort: None,
        mode: session.mode.clone(),
    };
    let cwd = session.cwd.clone();
    st.turns.insert(
        turn_id.clone(),
        Turn {
            session: session_id.to_string(),
            result: None,
        },
    );
    drop(st);
    let argv = substitute(command, &values);
    let (runner, conn) = (inner.clone(), conn.clone());
    let (sid, tid) = (session_id.to_string(), turn_id.clone());
    let started = spawn("finch-session-turn", move || {
        let inner = runner;
        // One turn of a session at a time, in the order they were sent.
        wait_for_earlier_turns(&inner.sessions, &sid, &tid);
        let event = match run_agent(&inner.sessions, &argv, &cwd) {
            Ok(output) => json!({"type": "turn.completed", "sessionId": sid, "turnId": tid,
                                 "outputText": output, "messageIds": [], "createdAt": now_iso()}),
            Err(code) => json!({"type": "turn.failed", "sessionId": sid, "turnId": tid,
                                "code": code, "retryable": false, "createdAt": now_iso()}),
        };
        let event = finish_turn(&inner.sessions, &tid, event);
        conn.notify(HostPush::SessionEvent, event);
    });
    if let Err(e) = started {
        let failed = json!({"type": "turn.failed", "sessionId": session_id, "turnId": turn_id,
                            "code": "no_thread", "retryable": true, "createdAt": now_iso()});
        finish_turn(&inner.sessions, &turn_id, failed);
        return Err(e);
    }
    Ok(
        json!({"sessionId": session_id, "turnId": turn_id, "clientMessageId": key,
              "state": "accepted", "queued": pending > 0, "pendingCount": pending + 1,
              "queuePosition": pending}),
    )
}

fn wait_for_earlier_turns(sessions: &Sessions, session: &str, turn: &str) {
    let mut st = lock(&sessions.state);
    loop {
        // Turn ids are numbered in the order they were sent.
        let earlier = st
            .turns
            .iter()
            .any(|(id, t)| t.session == session && t.result.is_none() && id.as_str() < turn);
        if !earlier {
            return;
        }
        st = sessions.changed.wait(st).unwrap_or_else(|e| e.into_inner());
    }
}

/// Records the end of a turn; the event, numbered, for the listeners.
fn finish_turn(sessions: &Sessions, turn: &str, mut event: Value) -> Value {
    let mut st = lock(&sessions.state);
    st.sequence += 1;
    event["sequence"] = json!(st.sequence);
    let session = event["sessionId"].as_str().unwrap_or_default().to_string();
    if let Some(s) = st.sessions.iter_mut().find(|s| s.id == session) {
        s.events.push(event.clone());
        s.descriptor["updatedAt"] = json!(now_iso());
    }
    if let Some(t) = st.turns.get_mut(turn) {
        t.result = Some(event.clone());
    }
    drop(st);
    sessions.changed.notify_all();
    event
}

/// Runs the agent; its standard output, or the failure's code.
fn run_agent(
    sessions: &Sessions,
    argv: &[String],
    cwd: &std::path::Path,
) -> Result<String, String> {
    let Some((program, args)) = argv.split_first() else {
        return Err("no_agent".into());
    };
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut child = command
        .spawn()
        .map_err(|_| "agent_not_started".to_string())?;
    let pid = child.id();
    lock(&sessions.running).push(pid);
    let mut stdout = child.stdout.take();
    let reader = std::thread::Builder::new()
        .name("finch-session-agent".into())
        .spawn(move || {
            let mut out = Vec::new();
            if let Some(s) = stdout.as_mut() {
                let _ = s.take(OUTPUT_MAX as u64).read_to_end(&mut out);
            }
            String::from_utf8_lossy(&out).into_owned()
        });
    let Ok(reader) = reader else {
        signal_group(pid, Signal::Kill);
        let _ = child.wait();
        lock(&sessions.running).retain(|p| *p != pid);
        return Err("no_thread".into());
    };
    let deadline = Instant::now() + TURN_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                signal_group(pid, Signal::Kill);
                let _ = child.wait();
                break None;
            }
        }
    };
    let output = reader.join().unwrap_or_default();
    lock(&sessions.running).retain(|p| *p != pid);
    match status {
        Some(s) if s.success() => Ok(output.trim_end().to_string()),
        Some(_) => Err("agent_failed".into()),
        None => Err("timeout".into()),
    }
}

fn wait_for_turn(sessions: &Sessions, session: &str, turn: &str, timeout: Duration) -> Value {
    let deadline = Instant::now() + timeout;
    let mut st = lock(&sessions.state);
    loop {
        match st.turns.get(turn) {
            Some(t) if t.session == session => {
                if let Some(event) = &t.result {
                    return if event["type"] == "turn.completed" {
                        json!({"state": "completed", "sessionId": session, "turnId": turn,
                               "outputText": event["outputText"], "messageIds": [],
                               "completedAt": event["createdAt"]})
                    } else {
                        json!({"state": "failed", "sessionId": session, "turnId": turn,
                               "code": event["code"], "retryable": false,
                               "failedAt": event["createdAt"]})
                    };
                }
            }
            _ => {
                return json!({"state": "failed", "sessionId": session, "turnId": turn,
                              "code": "not_found", "retryable": false, "failedAt": now_iso()});
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return json!({"state": "timeout", "sessionId": session, "turnId": turn});
        }
        st = sessions
            .changed
            .wait_timeout(st, left)
            .map(|(g, _)| g)
            .unwrap_or_else(|e| e.into_inner().0);
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
    let st = lock(&inner.sessions.state);
    let Some(session) = st
        .sessions
        .iter()
        .find(|s| s.id == sid && s.owner == inst.id)
    else {
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
}

fn events_last(page: &Value) -> Option<u64> {
    page["events"].as_array()?.last()?["sequence"].as_u64()
}
