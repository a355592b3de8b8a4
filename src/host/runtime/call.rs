//! One tool call into a mini tool, and a discovery query to its search providers: `execute`
//! sent on the channel, its answer awaited (read by the call itself during a burst, see
//! `rpc`), its dialogs and views sent to the host thread's prompter, its progress passed on,
//! its timeout and its caller's cancellation honoured, and its result turned into a
//! `ToolOutput` whose kernel refusals name the declaration that forbade them.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Sender};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::lifecycle::handle;
use super::protocol::{self, HostPush, HostRequest};
use super::rpc::{self, Conn, MainMsg, Pending, RpcResult, StopReason};
use super::{
    CANCEL_GRACE_MAX, DISCOVER_TIMEOUT, Discovered, Inner, Instance, Phase, RuntimeEvent,
    SessionInfo, Target, lock, process, seconds, services, ui,
};
use crate::host::JobCx;
use crate::host::output::{Content, ToolOutput};
use crate::host::prompt;

impl Inner {
    pub(super) fn clamp_timeout(&self, requested: Option<Duration>) -> Duration {
        match requested {
            None => self.settings.call_timeout,
            Some(t) => t.clamp(
                self.settings.call_timeout_min,
                self.settings.call_timeout_max,
            ),
        }
    }

    pub(super) fn call(
        self: &Arc<Inner>,
        inst: &Arc<Instance>,
        (tool, raw): (&str, &str),
        args: Value,
        session: SessionInfo,
        job: &JobCx,
    ) -> ToolOutput {
        *lock(&self.session) = Some(session.clone());
        let conn = match self.ensure_running(inst) {
            Ok(c) => c,
            Err(e) => return ToolOutput::error(e),
        };
        let Some(reg) = inst.registered(raw) else {
            return ToolOutput::error(format!(
                "mini tool \"{}\" no longer registers a tool named \"{}\" (it changed when it restarted); use ToolSearch or /reload to see its tools",
                inst.id, raw
            ));
        };
        let seq = self.call_seq.fetch_add(1, Ordering::SeqCst) + 1;
        let tool_call_id = format!("call_{:x}_{seq}", std::process::id());
        let (tx, rx) = mpsc::channel();
        let _route = CallRoute::set(self, tool_call_id.clone(), tx.clone());
        let call = Call {
            tool,
            reg: &reg,
            tool_call_id: &tool_call_id,
            input: &args,
            session: &session,
        };
        self.execute(inst, &conn, call, (tx, rx), job)
    }

    /// Where a dialog goes: to the call it names (`toolCallId`, which the bootstrap adds to
    /// every dialog asked inside a call), else — asked in `activate()` or from a timer — to a
    /// call running now, the latest, so a person sees it the way a call's dialog is seen.
    /// `None`: no call runs, nobody to ask.
    pub(crate) fn dialog_route(&self, params: &Value) -> Option<Sender<MainMsg>> {
        let named = params.get("toolCallId").and_then(Value::as_str);
        self.call_route(named).map(|(tx, _)| tx)
    }

    /// `dialog_route` by the call's id: the channel, and whether it is the named call's own
    /// (not a call that merely runs now).
    pub(crate) fn call_route(&self, named: Option<&str>) -> Option<(Sender<MainMsg>, bool)> {
        let calls = lock(&self.calls);
        if let Some(call) = named.and_then(|id| calls.iter().find(|c| c.id == id)) {
            return Some((call.tx.clone(), true));
        }
        calls.last().map(|c| (c.tx.clone(), false))
    }

    /// Where a `progress` notification of a mini tool goes: to the call that waits when it
    /// is that call's (its `toolCallId`), else to the event hook (a line on stderr).
    pub(crate) fn progress(&self, inst: &Instance, params: Value) {
        let call = params.get("toolCallId").and_then(Value::as_str);
        let route = call.and_then(|id| {
            let calls = lock(&self.calls);
            calls.iter().find(|c| c.id == id).map(|c| c.tx.clone())
        });
        if let Some(tx) = route {
            let _ = tx.send(MainMsg::Progress(params));
            return;
        }
        let text = |k: &str| params.get(k).and_then(Value::as_str).map(str::to_string);
        self.emit(RuntimeEvent::Progress {
            minitool: inst.id.clone(),
            tool: text("tool")
                .map(|raw| {
                    inst.state()
                        .tools
                        .iter()
                        .find(|t| t.name == raw)
                        .map_or(raw, |t| t.def.wanted_name.clone())
                })
                .unwrap_or_default(),
            message: text("message"),
            percent: params.get("percent").and_then(Value::as_f64),
        });
    }

    /// Sends `execute` and waits for its answer, its timeout, or its caller's cancellation.
    fn execute(
        self: &Arc<Inner>,
        inst: &Arc<Instance>,
        conn: &Arc<Conn>,
        call: Call<'_>,
        (tx, rx): (Sender<MainMsg>, mpsc::Receiver<MainMsg>),
        cx: &JobCx,
    ) -> ToolOutput {
        let (tool, reg) = (call.tool, call.reg);
        let cancelled = tx.clone();
        let sent = {
            // Held until the request is written, so that what the process was told is what
            // it reads in this order.
            let mut told = lock(&inst.told);
            let known = told.as_ref().is_some_and(|(to, s)| {
                std::ptr::eq(to.as_ptr(), Arc::as_ptr(conn)) && s == call.session
            });
            let params = protocol::Execute {
                name: &reg.name,
                input: call.input,
                exec: protocol::ExecInfo {
                    tool_call_id: call.tool_call_id,
                    session_id: &call.session.id,
                    space_id: None,
                    cwd: &call.session.cwd,
                },
                session: (!known).then(|| call.session.session_view()),
                workspace: (!known).then(|| call.session.workspace_view()),
            };
            let sent =
                conn.request_own(HostRequest::Execute, &params, Pending::Main { tx, tag: 0 });
            if sent.is_ok() && !known {
                *told = Some((Arc::downgrade(conn), call.session.clone()));
            }
            sent
        };
        let request = match sent {
            Ok(id) => id,
            Err(e) => {
                return ToolOutput::error(format!(
                    "mini tool \"{}\" could not be reached: {e}. Log: {}",
                    inst.id,
                    inst.log.display()
                ));
            }
        };
        // Cancelled by its caller: its signal aborts at once (`$/cancel`), and the wait below
        // hears of it.
        {
            let conn = Arc::clone(conn);
            cx.cancel.on_cancel(move || {
                conn.notify(
                    HostPush::Cancel,
                    json!({"id": request, "reason": "cancelled by the caller"}),
                );
                let _ = cancelled.send(MainMsg::Cancelled);
            });
        }
        let mut state = CallState::default();
        let deadline = Instant::now() + reg.timeout;
        // The answer is read on this thread when the reader thread left the channel to calls.
        #[cfg(unix)]
        let waited = match conn.take_side() {
            Some(side) => self.read_own(inst, conn, side, &rx, deadline, cx, &mut state),
            None => self.wait_reply(&rx, deadline, cx, &mut state),
        };
        #[cfg(not(unix))]
        let waited = self.wait_reply(&rx, deadline, cx, &mut state);
        match waited {
            Waited::Reply(result) => {
                let mut output = self.finish_call(inst, tool, result);
                // What the call showed that its prompter could not: in its result, for
                // whoever reads it (an MCP client's person, `tool call`'s output).
                for view in std::mem::take(&mut state.unseen) {
                    output
                        .content
                        .push(Content::Text(format!("{}\n{}", view.heading, view.body)));
                }
                return output;
            }
            Waited::Cancelled => {
                // A moment to settle, as after a timeout; a tool that ignores its signal
                // keeps running in its process, and its late answer is dropped.
                let grace = (reg.timeout / 2).min(CANCEL_GRACE_MAX);
                let _ = self.wait_reply(&rx, Instant::now() + grace, cx, &mut state);
                conn.forget(request);
                return crate::host::cancel::cancelled_output(tool);
            }
            Waited::Deadline => {}
        }
        // Timed out: abort its signal, give it a moment to settle, else stop it.
        let limit = seconds(reg.timeout);
        conn.notify(
            HostPush::Cancel,
            json!({"id": request, "reason": format!("timed out after {limit}")}),
        );
        let grace = (reg.timeout / 2).min(CANCEL_GRACE_MAX);
        let settled = self.wait_reply(&rx, Instant::now() + grace, cx, &mut state);
        conn.forget(request);
        if cx.cancel.is_cancelled() {
            return crate::host::cancel::cancelled_output(tool);
        }
        if let Waited::Reply(_) = settled {
            return ToolOutput::error(format!(
                "`{}` timed out after {limit}; its signal was aborted and it stopped.",
                tool
            ));
        }
        let reason = format!(
            "did not finish `{}` within {limit} and ignored its abort signal",
            tool
        );
        conn.stop(StopReason::Fault(reason.clone()));
        inst.mark_down(conn, &reason);
        self.settle_capabilities();
        self.emit(RuntimeEvent::Fault {
            minitool: inst.id.clone(),
            message: format!("{reason}; it was stopped"),
            log: inst.log.clone(),
        });
        ToolOutput::error(format!(
            "mini tool \"{}\" {reason}; it was stopped, and restarts on a later call. Log: {}",
            inst.id,
            inst.log.display()
        ))
    }

    /// Waits for the reply tagged 0, answering prompts and passing progress on meanwhile.
    fn wait_reply(
        self: &Arc<Inner>,
        rx: &mpsc::Receiver<MainMsg>,
        deadline: Instant,
        cx: &JobCx,
        state: &mut CallState,
    ) -> Waited {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Waited::Deadline;
            }
            match rx.recv_timeout(left) {
                Ok(message) => {
                    if let Some(waited) = self.take_message(message, cx, state) {
                        return waited;
                    }
                }
                Err(_) => return Waited::Deadline,
            }
        }
    }

    /// `wait_reply` for a call holding the channel's read side (`rpc`): reads what the child
    /// sends and handles it as the reader thread would, until the call's answer (delivered to
    /// `rx` as it is read) or anything else for the call arrives. A dialog or a view may wait
    /// for a person: the side goes back to the reader thread first, and the wait goes on as
    /// `wait_reply`. Messages from other threads (a cancel, a dialog of another mini tool) are
    /// seen within `OWN_READ_SLICE`.
    #[cfg(unix)]
    #[allow(clippy::too_many_arguments)]
    fn read_own(
        self: &Arc<Inner>,
        inst: &Arc<Instance>,
        conn: &Arc<Conn>,
        mut side: rpc::ReadSide,
        rx: &mpsc::Receiver<MainMsg>,
        deadline: Instant,
        cx: &JobCx,
        state: &mut CallState,
    ) -> Waited {
        loop {
            if let Ok(message) = rx.try_recv() {
                if matches!(message, MainMsg::Prompt { .. } | MainMsg::Show { .. }) {
                    conn.give_side(side, None);
                    return match self.take_message(message, cx, state) {
                        Some(waited) => waited,
                        None => self.wait_reply(rx, deadline, cx, state),
                    };
                }
                if let Some(waited) = self.take_message(message, cx, state) {
                    conn.give_side(side, None);
                    return waited;
                }
                continue;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                conn.give_side(side, None);
                return Waited::Deadline;
            }
            if side.reader.buffer().is_empty()
                && !readable(side.reader.get_ref(), left.min(OWN_READ_SLICE))
            {
                continue;
            }
            match rpc::read_message(conn, &mut side.reader, &mut side.line) {
                Ok(rpc::Incoming::Message(message)) => handle(self, inst, conn, message),
                Ok(_) => {}
                Err(end) => {
                    // The reader thread tears the process down and fails what waits.
                    conn.give_side(side, Some(end));
                    return self.wait_reply(rx, deadline, cx, state);
                }
            }
        }
    }

    /// One message for a waiting call: `Some` when the wait ends with it.
    fn take_message(
        self: &Arc<Inner>,
        message: MainMsg,
        cx: &JobCx,
        state: &mut CallState,
    ) -> Option<Waited> {
        match message {
            MainMsg::Reply { tag: 0, result } => return Some(Waited::Reply(result)),
            MainMsg::Reply { .. } => {}
            MainMsg::Cancelled => return Some(Waited::Cancelled),
            MainMsg::Progress(params) => (cx.progress)(state.update(&params)),
            MainMsg::Prompt {
                from,
                id,
                dialog,
                params,
            } => {
                // Asked where the prompter is (the host's thread); answered from there.
                let inner = Arc::clone(self);
                (cx.on_host)(Box::new(move |prompter| {
                    inner.answer_dialog(&from, id, dialog, &params, prompter)
                }));
            }
            MainMsg::Show {
                from,
                id,
                view,
                back,
            } => {
                let inner = Arc::clone(self);
                (cx.on_host)(Box::new(move |prompter| {
                    inner.show_view(&from, id, view, back, prompter)
                }));
            }
            MainMsg::Unseen(view) => state.unseen.push(view),
            MainMsg::Permit { card, then } => {
                (cx.on_host)(Box::new(move |prompter| then(prompter.card(&card))));
            }
        }
        None
    }

    /// Shows a person what a mini tool shows (`ctx.ui.openDiff`) and answers it `null`. What
    /// the prompter cannot show goes into the result of the call it was shown in (`back`),
    /// else is recorded (`services::not_shown`). The answer follows, so a mini tool that
    /// awaits it finds the view in its call's result.
    fn show_view(
        &self,
        from: &Arc<Conn>,
        id: Value,
        view: prompt::View,
        back: Option<Sender<MainMsg>>,
        prompter: &mut dyn crate::host::prompt::Prompter,
    ) {
        if !prompter.show(&view) {
            let unseen = match back {
                Some(back) => back.send(MainMsg::Unseen(view)).err().map(|e| e.0),
                None => Some(MainMsg::Unseen(view)),
            };
            if let (Some(MainMsg::Unseen(view)), Some(inst)) = (unseen, self.instance_of(from)) {
                services::not_shown(self, inst, &view);
            }
        }
        from.reply(id, Ok(Value::Null));
    }

    /// Asks a person a mini tool's dialog and sends the mini tool the answer.
    fn answer_dialog(
        &self,
        from: &Arc<Conn>,
        id: Value,
        dialog: ui::Dialog,
        params: &Value,
        prompter: &mut dyn crate::host::prompt::Prompter,
    ) {
        let name = self
            .instance_of(from)
            .map(|i| i.display_name.clone())
            .unwrap_or_else(|| from.id.clone());
        let answered = ui::answer(dialog, params, &name, prompter);
        if let Some(message) = answered.notice {
            if let Some(inst) = self.instance_of(from) {
                services::log_line(inst, &format!("finch: {message}"));
            }
            self.emit(RuntimeEvent::Notice {
                minitool: from.id.clone(),
                display_name: name,
                level: Some("warning".into()),
                title: None,
                message,
            });
        }
        from.reply(id, answered.result);
    }

    fn finish_call(&self, inst: &Arc<Instance>, tool: &str, result: RpcResult) -> ToolOutput {
        match result {
            Ok(value) => {
                inst.state().failures = 0;
                let mut output = output_from(value);
                // An error it returned (rather than threw) is explained the same way.
                if output.is_error
                    && let Some(held) = inst.held()
                {
                    let text: Vec<&str> = output
                        .content
                        .iter()
                        .filter_map(|c| match c {
                            Content::Text(text) => Some(text.as_str()),
                            _ => None,
                        })
                        .collect();
                    if let Some(blocked) = held.blocked_by(&text.join("\n")) {
                        output.content.insert(0, Content::Text(blocked));
                    }
                }
                output
            }
            Err(e) if e.code == rpc::code::STOPPED => ToolOutput::error(e.message),
            Err(e) => ToolOutput::error(format!("`{tool}` failed: {}", inst.explain(&e.message))),
        }
    }

    pub(super) fn discover(&self, query: &str, limit: usize) -> Vec<Discovered> {
        let (tx, rx) = mpsc::channel();
        let mut asked = HashMap::new();
        for (i, inst) in self.instances.iter().enumerate() {
            let conn = {
                let st = inst.state();
                match &st.phase {
                    Phase::Active(c) if st.discovery > 0 && c.is_alive() => c.clone(),
                    _ => continue,
                }
            };
            let pending = Pending::Main {
                tx: tx.clone(),
                tag: i as u64,
            };
            if let Ok(id) = conn.request(
                HostRequest::Discover,
                json!({"query": query, "limit": limit}),
                pending,
            ) {
                asked.insert(i as u64, (conn, id));
            }
        }
        drop(tx);
        let deadline = Instant::now() + DISCOVER_TIMEOUT;
        let mut found = Vec::new();
        while !asked.is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(MainMsg::Reply { tag, result }) = rx.recv_timeout(left) else {
                break;
            };
            asked.remove(&tag);
            let inst = &self.instances[tag as usize];
            let Ok(Value::Array(items)) = result else {
                continue;
            };
            let st = inst.state();
            for item in items {
                let Some(name) = item.get("name").and_then(Value::as_str) else {
                    continue;
                };
                // The registered name, or (a d.ts `toolName`) the model-facing one.
                let Some(reg) = st
                    .tools
                    .iter()
                    .find(|t| t.name == name || t.def.wanted_name == name)
                else {
                    continue;
                };
                let text = |k: &str| item.get(k).and_then(Value::as_str).map(str::to_string);
                found.push(Discovered {
                    minitool: inst.id.clone(),
                    name: reg.name.clone(),
                    wanted_name: reg.def.wanted_name.clone(),
                    title: text("title").or_else(|| Some(reg.def.title.clone())),
                    description: text("description").or_else(|| Some(reg.def.description.clone())),
                    score: item.get("score").and_then(Value::as_f64),
                });
            }
        }
        for (conn, id) in asked.into_values() {
            conn.forget(id);
        }
        found.sort_by(|a, b| {
            b.score
                .unwrap_or(0.0)
                .partial_cmp(&a.score.unwrap_or(0.0))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        if limit > 0 {
            found.truncate(limit);
        }
        found
    }
}

/// How long a call reading its own answer blocks before it looks for messages from other
/// threads (a cancel, another mini tool's dialog).
#[cfg(unix)]
const OWN_READ_SLICE: Duration = Duration::from_millis(20);

/// Whether a read of `stream` would not block, waiting at most `within`. A failing `poll`
/// (other than an interrupt) says yes: the read then meets the failure and ends the wait.
#[cfg(unix)]
fn readable(stream: &process::Stream, within: Duration) -> bool {
    use std::os::fd::AsRawFd;
    let mut fd = libc::pollfd {
        fd: stream.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // Rounded up: a wait under a millisecond is not a busy loop.
    let ms = i32::try_from(within.as_micros().div_ceil(1000)).unwrap_or(i32::MAX);
    // SAFETY: one valid `pollfd` for the call's duration.
    match unsafe { libc::poll(&mut fd, 1, ms) } {
        0 => false,
        n if n > 0 => true,
        _ => std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted,
    }
}

/// How a wait for a call's answer ended.
enum Waited {
    Reply(RpcResult),
    /// The deadline passed (or the channel closed).
    Deadline,
    /// The caller cancelled the call.
    Cancelled,
}

/// What a waiting call gathered. Its progress so far, to turn `exec.progress.report` updates
/// (finch.d.ts: `message`, `percent`, `increment`, `total`) into MCP's growing `progress` of
/// an optional `total`: a `percent` is progress out of 100; `increment`s add up (of `total`
/// when given); an update with neither counts as one more step. And the views it showed that
/// its prompter could not (`MainMsg::Unseen`), for its result.
#[derive(Default)]
struct CallState {
    done: f64,
    total: Option<f64>,
    unseen: Vec<prompt::View>,
}

impl CallState {
    fn update(&mut self, params: &Value) -> crate::host::cancel::Progress {
        let number = |k: &str| {
            params
                .get(k)
                .and_then(Value::as_f64)
                .filter(|n| n.is_finite())
        };
        if let Some(total) = number("total") {
            self.total = Some(total);
        }
        let (progress, total) = if let Some(percent) = number("percent") {
            self.done = self.done.max(percent);
            (self.done, Some(100.0))
        } else if let Some(increment) = number("increment") {
            self.done += increment.max(0.0);
            (self.done, self.total)
        } else {
            self.done += 1.0;
            (self.done, self.total)
        };
        crate::host::cancel::Progress {
            progress,
            total,
            message: params
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_string),
        }
    }
}

/// A call running now: its `toolCallId` and the channel its dialogs and progress go to. Removed when the guard `set` returns is dropped (the call ended).
pub(crate) struct CallRoute {
    id: String,
    tx: Sender<MainMsg>,
}

/// One mini tool call on its way to `execute`.
struct Call<'a> {
    /// The tool's model-facing name.
    tool: &'a str,
    reg: &'a Target,
    tool_call_id: &'a str,
    input: &'a Value,
    session: &'a SessionInfo,
}

/// Removes its call's route when dropped.
pub(super) struct RouteGuard<'a> {
    inner: &'a Inner,
    id: String,
}

impl CallRoute {
    pub(super) fn set(inner: &Inner, id: String, tx: Sender<MainMsg>) -> RouteGuard<'_> {
        lock(&inner.calls).push(CallRoute { id: id.clone(), tx });
        RouteGuard { inner, id }
    }
}

impl Drop for RouteGuard<'_> {
    fn drop(&mut self) {
        lock(&self.inner.calls).retain(|c| c.id != self.id);
    }
}

/// A mini tool tool's return value as a tool result: a string is text; `{content: [...],
/// isError?, structuredContent?}` is taken as MCP shapes it; `undefined` is empty; anything
/// else is JSON (text for the model, structured content for programs).
pub(super) fn output_from(value: Value) -> ToolOutput {
    match value {
        Value::Null => ToolOutput {
            content: Vec::new(),
            structured: None,
            is_error: false,
        },
        Value::String(text) => ToolOutput::text(text),
        Value::Object(map) if map.get("content").is_some_and(Value::is_array) => {
            let content = map
                .get("content")
                .and_then(Value::as_array)
                .map(|blocks| blocks.iter().map(block).collect())
                .unwrap_or_default();
            ToolOutput {
                content,
                structured: map.get("structuredContent").cloned(),
                is_error: map.get("isError").and_then(Value::as_bool) == Some(true),
            }
        }
        other => ToolOutput::json(other),
    }
}

fn block(value: &Value) -> Content {
    let field = |k: &str| value.get(k).and_then(Value::as_str);
    match (
        field("type"),
        field("text"),
        field("data"),
        field("mimeType"),
    ) {
        (Some("text"), Some(text), _, _) => Content::Text(text.to_string()),
        (Some("image"), _, Some(data), Some(mime)) => Content::Image {
            data: data.to_string(),
            mime_type: mime.to_string(),
        },
        _ => Content::Text(value.to_string()),
    }
}
