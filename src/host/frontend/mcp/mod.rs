//! `finch run --serve mcp` (SPEC §8.7): the whole host served to one agent as an MCP server on
//! stdio. `tools/list` answers the session's active tools, `tools/call` runs the host's call
//! pipeline (same gateway, cards and transcript as every front end) and returns its record as
//! the MCP result, and `notifications/tools/list_changed` follows every call that changed the
//! active tools (a ToolSearch activation, mini tools added or removed).
//!
//! Requests are served side by side. Three kinds of thread:
//! - the I/O thread runs rmcp on a one-thread tokio runtime: it reads and writes the protocol
//!   and answers `ping`, `initialize` and everything but `tools/*` itself, whatever the host is
//!   doing;
//! - the host thread (the one that calls `serve`; the `Host` is not `Send`) receives `tools/list`
//!   and `tools/call` over a channel. It runs each call's first half, `Host::begin`: resolve,
//!   validate, gate, card — so cards of concurrent calls are asked one at a time, in arrival
//!   order — and a call whose provider runs it at once (the dispatchers), and
//!   records each call that ended (`Host::end`);
//! - a pool of call threads, at most `[host] max_calls` (default 16), started as needed and
//!   kept, runs the providers' jobs (the file, shell and web built-ins, mini tools' and MCP servers' tools:
//!   `Provider::start`), so a 5 s Bash or a slow server tool holds up neither a ping nor ten
//!   Reads. A job beyond the limit waits its turn.
//!   The call thread hands the record to the host thread, then the result to rmcp. A job its
//!   provider knows to be brief (`Started::Brief`: a Read of a regular file up to 64 KiB that
//!   is no PDF) runs on the host thread instead, as a call its provider runs at once: its two
//!   hand-offs cost more than the read (benches/mcp.sh: a small Read's round trip).
//!
//! A job that asks a person something (a mini tool's dialog) hands that to the host thread
//! (`Msg::OnHost`, `JobCx::on_host`), which asks it with the host's prompter in turn with the
//! cards, so a call's dialog reaches the person the way its card did.
//!
//! While the host thread is inside a call's first half (a card is open, a mini tool runs), a
//! `tools/list` is answered from the list it last made (`Relay::listed`) instead of waiting.
//!
//! Cancellation: rmcp cancels a request's token on `notifications/cancelled` and drops whatever
//! the request answers afterwards; `call_tool` turns that into the call's `cancel::Cancel`
//! (Bash kills its process group, a mini tool's `exec.signal` aborts, an MCP server's call is
//! cancelled upstream). The call still ends through the host and is recorded. A call cancelled
//! while its card is open takes the card back — a form with `notifications/cancelled` for the
//! elicitation, a card on the terminal with a line saying so (`Prompter::card_until`) — is
//! recorded `card:withdrawn` and never starts; a job still waiting for a call thread never
//! starts. When the client leaves, running calls are cancelled and the
//! session ends once they did.
//!
//! Progress: a request with `_meta.progressToken` gets a channel; the call's `CallCx::progress`
//! updates go through it to `notifications/progress` for that token, all sent before the
//! result. Without a token updates are dropped.
//!
//! `structuredContent` is always an object: a tool's structured value that is not one comes as
//! `{"result": <value>}` (`structured_object`). Malformed messages get the errors JSON-RPC 2.0
//! asks for (`wire`).
//!
//! Why the I/O side has a thread of its own: with the host thread driving rmcp's runtime (how
//! this began), nothing answered while a call ran. The hand-offs cost a few microseconds a call
//! (benches/mcp.sh measures the round trip, and 8 clients' calls at once).
//!
//! Call records are written in bursts: they wait `[host] record_delay` (2 ms) from the first
//! of them (or until 64 wait) and go to the transcript in one append, since an append per
//! call (lock, look at the size, `write`) cost more than the rest of a call. The delay is
//! kept by a thread of its own (`FlushTimer`), armed once per burst, so the host thread
//! waits for requests without a timeout: here (a VM) a timed wait per request cost more than
//! the append it saved (benches/mcp.sh, the `record_delay = 0` row). A call
//! that may read the transcript (anything but `TodoWrite` and a `Read` outside the sessions
//! directory) finds every earlier record written; SIGTERM, SIGINT and SIGHUP write what waits
//! before the process dies of them (`control::watch_stop_signals`); `record_delay = "0"`
//! writes each record as its call ends. Only SIGKILL or a crash can lose the records of the
//! last moment.
//!
//! Permission cards and `AskUserQuestion` questions become `elicitation/create` forms when the
//! client declared form elicitation at `initialize`, else go to `/dev/tty`, else to nobody
//! (deny: `noElicitation`); an elicitation never waits longer than `[host] card_timeout`. The
//! form takes the shape of the negotiated revision (`version`), and a declined or cancelled one
//! is recorded as such (`card:decline`, `card:cancel`), not as a person's deny.
//!
//! `servers.json` entries no person approved (`mcp::trust`) are asked about once the client
//! sent `notifications/initialized` — the first moment it may be sent requests — by a reload
//! on the host thread whose card for each entry is such a form; accepted ones start and
//! `tools/list_changed` follows. A client that cannot elicit is not asked: the entries wait,
//! and the warning at start names `finch mcp trust NAME`.
//!
//! Every listed tool carries its annotations (`crate::host::hints`); `--call-tool` adds the
//! `CallTool` proxy for clients that never list again (`annotations`).
//!
//! stdout carries only the protocol: nothing here prints to it, and warnings go to stderr.

mod annotations;
mod elicit;
mod pool;
#[cfg(test)]
mod tests;
mod version;
mod wire;

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc as std_mpsc};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelledNotificationParam,
    ClientResult, ContentBlock, ElicitRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationSchema, Implementation, JsonObject, ListToolsResult, MetaObject,
    PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion, ServerCapabilities,
    ServerConfig, ServerRequest, Tool,
};
use rmcp::service::{
    ElicitationMode, NotificationContext, PeerRequestOptions, RequestContext, RoleServer,
    ServerInitializeError,
};
use rmcp::{ErrorData as McpError, Peer, ServerHandler, ServiceError, ServiceExt};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot, watch};

use elicit::*;
use pool::*;
use wire::ServerWire;

use crate::error::CommandError;
use crate::host::assembly::Assembly;
use crate::host::cancel::{Cancel, Progress};
use crate::host::catalog::ToolSpec;
use crate::host::control;
use crate::host::output::Content;
use crate::host::prompt::{Card, CardAnswer, Prompter, Question, QuestionAnswer};
use crate::host::{Begun, CallRecord, Host, HostEnv, HostEvent, HostTask, Ran, Running};

/// What the instructions of `initialize` tell the agent.
const INSTRUCTIONS: &str = "finch's tool host: built-in tools, finch's dispatchers, mini tool \
tools and MCP tools behind one permission gateway. More tools than the listed ones exist: call \
ToolSearch to find them; the ones it returns become callable and the server sends \
notifications/tools/list_changed. Calls that need a person's approval are asked through \
elicitation when the client supports it.";

/// Why serving stopped other than the client closing stdin.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot start the MCP server: {0}")]
    Start(#[source] std::io::Error),
    #[error(
        "no MCP client: stdin ended before an `initialize` request (start finch run --serve mcp from an MCP client)"
    )]
    NoClient,
    #[error("the MCP client's first message was not a valid `initialize` request: {0}")]
    Handshake(String),
    #[error("the MCP server stopped unexpectedly: {0}")]
    Stopped(String),
}

/// What `finch run --serve mcp` offers beyond the catalog.
#[derive(Debug, Clone, Copy, Default)]
pub struct ServeOptions {
    /// `--call-tool`: list `CallTool`, which calls any active tool by name (`annotations`).
    pub call_tool: bool,
}

/// `finch run --serve mcp`: builds the host and serves it on stdio until the client closes
/// stdin. Cards go to the client as elicitations when it supports them, else to the terminal,
/// else nobody.
pub fn run(
    mut env: HostEnv,
    assembly: &Assembly,
    options: ServeOptions,
) -> crate::error::Result<()> {
    // MCP clients take embedded resources in a tool's result (every revision has them).
    env.embed_resources = true;
    let ui = assembly.ui;
    let link = ClientLink::with_options(options);
    let mut host = assembly.open_with(env, |env, fallback| {
        let timeout = env.settings.card_timeout;
        Box::new(ElicitingPrompter::new(link.clone(), fallback, timeout))
    })?;
    if ui.stdin_tty && !ui.quiet {
        crate::eline!(
            "finch run --serve mcp — session {} in {} ({} mode): speaking MCP on stdin/stdout; end with Ctrl-D.",
            host.session().id,
            host.session().cwd.display(),
            host.session().mode.as_str()
        );
    }
    let _registration = assembly.register_for_reload(&host);
    let mut reload = |host: &mut Host| assembly.reload_reporting(host);
    let outcome = serve_stdio(&mut host, &link, &mut reload).map_err(|e| match e {
        ServeError::NoClient => CommandError::failed(e.to_string())
            .with_hint("configure an MCP client (an agent, an IDE, the MCP inspector) to start `finch run --serve mcp`"),
        _ => CommandError::failed(e.to_string()),
    });
    host.finish()
        .map_err(|e| CommandError::failed(e.to_string()))?;
    outcome
}

/// Serves `host` on stdin/stdout until the client closes stdin. `link` must be the one the
/// host's `ElicitingPrompter` was built with.
pub fn serve_stdio(
    host: &mut Host,
    link: &ClientLink,
    reload: &mut dyn FnMut(&mut Host),
) -> Result<(), ServeError> {
    if let Err(e) = control::watch_stop_signals() {
        // Without the watch a stop signal still ends the process; only the records of the
        // last moment (`[host] record_delay`) could be lost. Worth saying, not failing for.
        crate::eline!("warning: cannot watch stop signals: {e}");
    }
    serve(host, link, reload, rmcp::transport::io::stdio_pipes)
}

/// Serves `host` over the byte streams `open` returns (called on the server's I/O thread,
/// inside its runtime, where stdio pipes can be registered with its reactor).
///
/// `reload` restarts the host's providers: it runs when `finch reload` signalled this process
/// (before the next request) and after a call changed the installed mini tools; the next call's
/// answer then announces `tools/list_changed`.
pub fn serve<R, W>(
    host: &mut Host,
    link: &ClientLink,
    reload: &mut dyn FnMut(&mut Host),
    open: impl FnOnce() -> (R, W) + Send + 'static,
) -> Result<(), ServeError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Start)?;
    let handle = runtime.handle().clone();
    // Call records wait `[host] record_delay` from the first of them (or until 64 wait): a
    // burst of calls is written in one append instead of one per call, and a record reaches
    // the transcript at most that long after its call was answered. A call that may read the
    // transcript finds it whole (`Host::defer_records`); a stop signal writes what waits first.
    let record_delay = host.env().settings.record_delay;
    if !record_delay.is_zero() {
        host.defer_records();
    }
    let (to_host, inbox) = std_mpsc::channel::<Msg>();
    let (busy_tx, busy) = watch::channel(false);
    let listed = Arc::new(Mutex::new(Arc::new(Vec::new())));
    let relay = Relay {
        to_host: to_host.clone(),
        busy,
        listed: listed.clone(),
    };
    publish_tools(host, &listed, link.1.call_tool);
    #[cfg(unix)]
    let stop_wake = control::take_stop_wake();
    let (started_tx, started_rx) = std_mpsc::channel();
    let io_to_host = to_host.clone();
    let io = std::thread::Builder::new()
        .name("finch-mcp-io".into())
        .spawn(move || {
            runtime.block_on(async move {
                let (read, write) = open();
                let running = match relay.serve(ServerWire::new(read, write)).await {
                    Ok(running) => {
                        let _ = started_tx.send(Ok(()));
                        // MCP servers of the bridge that connect in the background (or change
                        // their tools) after the client listed: refresh and announce
                        // `tools/list_changed`.
                        let (peer, changes) = (running.peer().clone(), io_to_host.clone());
                        tokio::spawn(async move {
                            loop {
                                crate::host::mcp::tools_changed().notified().await;
                                let peer = peer.clone();
                                if changes.send(Msg::ToolsChanged { peer }).is_err() {
                                    return;
                                }
                            }
                        });
                        running
                    }
                    Err(ServerInitializeError::ConnectionClosed(_)) => {
                        let _ = started_tx.send(Err(ServeError::NoClient));
                        return;
                    }
                    Err(e) => {
                        let _ = started_tx.send(Err(ServeError::Handshake(e.to_string())));
                        return;
                    }
                };
                // A stop signal that comes while records wait wakes the host through this pipe.
                #[cfg(unix)]
                if let Some(fd) = stop_wake
                    && let Ok(wake) = tokio::net::unix::pipe::Receiver::from_owned_fd(fd)
                {
                    let to_host = io_to_host.clone();
                    tokio::spawn(async move {
                        let _ = wake.readable().await;
                        let _ = to_host.send(Msg::Quiet);
                    });
                }
                let ended = running
                    .waiting()
                    .await
                    .map(drop)
                    .map_err(|e| ServeError::Stopped(e.to_string()));
                let _ = io_to_host.send(Msg::Ended(ended));
            });
            // A blocking stdin read (stdin not a pipe) may still be pending: never wait for it.
            runtime.shutdown_background();
        })
        .map_err(ServeError::Start)?;
    let started = started_rx
        .recv()
        .unwrap_or_else(|_| Err(ServeError::Stopped("the server's thread ended".into())));
    let pool = Pool::new(host_max_calls(host));
    let timer = FlushTimer::start(record_delay, to_host.clone());
    let mut serving = Serving {
        host,
        link,
        reload,
        handle,
        to_host,
        busy: busy_tx,
        listed,
        pool,
        running: HashMap::new(),
        next_id: 0,
        reloaded: false,
        per_call: record_delay.is_zero(),
        timer,
    };
    let outcome = started.and_then(|()| serving.run(&inbox, record_delay));
    serving.host.write_records();
    link.detach();
    // The I/O thread ends once the service has; when it hangs in a blocking read it is left.
    drop(io);
    outcome
}

fn host_max_calls(host: &Host) -> usize {
    host.env().settings.max_calls.max(1)
}

/// Publishes the active tools for `tools/list` requests that come while the host is busy.
fn publish_tools(host: &mut Host, listed: &Mutex<Arc<Vec<Tool>>>, call_tool: bool) -> Vec<Tool> {
    host.refresh();
    let mut tools: Vec<Tool> = host.active_tools().into_iter().map(mcp_tool).collect();
    if call_tool {
        tools.push(annotations::call_tool());
    }
    *listed.lock().unwrap_or_else(|e| e.into_inner()) = Arc::new(tools.clone());
    tools
}

/// The host thread's side of a served session.
struct Serving<'a> {
    host: &'a mut Host,
    link: &'a ClientLink,
    reload: &'a mut dyn FnMut(&mut Host),
    handle: tokio::runtime::Handle,
    to_host: std_mpsc::Sender<Msg>,
    /// Set while the host thread is inside a call's first half (a card, a call its provider
    /// runs at once): `tools/list` is then answered from `listed`.
    busy: watch::Sender<bool>,
    listed: Arc<Mutex<Arc<Vec<Tool>>>>,
    pool: Pool,
    /// The calls whose jobs run, by a number of their own: their tokens, to cancel them when
    /// the client leaves.
    running: HashMap<u64, Cancel>,
    next_id: u64,
    /// `finch reload` restarted the providers since the last answer.
    reloaded: bool,
    /// `record_delay = "0"`: every record is written before its call is answered.
    per_call: bool,
    timer: FlushTimer,
}

impl Serving<'_> {
    fn run(
        &mut self,
        inbox: &std_mpsc::Receiver<Msg>,
        record_delay: Duration,
    ) -> Result<(), ServeError> {
        let mut ended: Option<Result<(), ServeError>> = None;
        loop {
            if let Some(outcome) = ended.take() {
                if self.running.is_empty() {
                    return outcome;
                }
                ended = Some(outcome);
            }
            let pending = self.host.has_pending_records();
            if pending {
                self.timer.arm();
            }
            let msg = if pending && !self.timer.runs() {
                // No timer thread: the wait itself keeps the delay.
                match inbox.recv_timeout(record_delay) {
                    Ok(msg) => msg,
                    Err(std_mpsc::RecvTimeoutError::Timeout) => Msg::Quiet,
                    Err(std_mpsc::RecvTimeoutError::Disconnected) => {
                        return Err(ServeError::Stopped("the server's tasks ended".into()));
                    }
                }
            } else {
                match inbox.recv() {
                    Ok(msg) => msg,
                    Err(_) => return Err(ServeError::Stopped("the server's tasks ended".into())),
                }
            };
            if matches!(msg, Msg::Quiet) {
                self.timer.fired();
                self.host.write_records();
                continue;
            }
            if control::stop_requested() {
                // Calls keep coming: write what waits now (the stop then ends the process).
                self.host.write_records();
            }
            if ended.is_none() && control::take_reload_request() {
                (self.reload)(self.host);
                self.reloaded = true;
                publish_tools(self.host, &self.listed, self.link.1.call_tool);
            }
            match msg {
                Msg::Quiet => {}
                Msg::ListTools { reply } => {
                    // Mini tools that finished starting in the background: list them as
                    // they registered.
                    let _ = reply.send(publish_tools(
                        self.host,
                        &self.listed,
                        self.link.1.call_tool,
                    ));
                }
                Msg::CallTool(call) => self.begin(*call),
                Msg::OnHost(task) => {
                    self.busy.send_replace(true);
                    task(self.host.prompter_mut());
                    self.busy.send_replace(false);
                }
                Msg::Initialized { peer } => self.ask_waiting_servers(peer),
                Msg::ToolsChanged { peer } => {
                    if self.host.refresh() {
                        publish_tools(self.host, &self.listed, self.link.1.call_tool);
                        self.handle.spawn(async move {
                            let _ = peer.notify_tool_list_changed().await;
                        });
                    }
                }
                Msg::Finished { id, ran, call } => {
                    self.running.remove(&id);
                    self.busy.send_replace(true);
                    let ended = self.host.end(*ran, &call.cancel);
                    self.busy.send_replace(false);
                    match ended {
                        Begun::Done(record) => self.answer(record, call.reply),
                        // The wall refused it and a person allowed more: it runs again in
                        // the pool, answered when that ends.
                        Begun::Running(running) => self.launch(running, *call),
                    }
                }
                Msg::Ended(outcome) => {
                    // The client left: calls still running are cancelled, and recorded as
                    // they end.
                    for cancel in self.running.values() {
                        cancel.cancel();
                    }
                    ended = Some(outcome);
                }
            }
        }
    }

    /// Once the client is initialized: when `servers.json` has entries no person approved and
    /// the client elicits, a reload asks about each (`assembly::approve_waiting`, a form per
    /// entry); the ones accepted start, and `tools/list_changed` follows. Without elicitation
    /// they wait, as the warning at start said (`finch mcp trust NAME`). Asked here, on the
    /// host thread, so the I/O thread goes on answering (a `tools/list` meanwhile gets what
    /// was last listed).
    fn ask_waiting_servers(&mut self, peer: Peer<RoleServer>) {
        self.link.attach(&peer, &self.handle);
        if self.link.eliciting().is_none() {
            return;
        }
        let waiting = crate::host::mcp::config::resolve(&self.host.env().homes, Vec::new());
        if waiting.waiting.is_empty() {
            return;
        }
        self.busy.send_replace(true);
        (self.reload)(self.host);
        self.busy.send_replace(false);
        publish_tools(self.host, &self.listed, self.link.1.call_tool);
        self.handle.spawn(async move {
            let _ = peer.notify_tool_list_changed().await;
        });
    }

    /// The first half of a call, on this thread: a provider's job then runs in the pool.
    fn begin(&mut self, call: CallTool) {
        let CallTool {
            name,
            arguments,
            peer,
            cancel,
            progress,
            reply,
        } = call;
        self.link.attach(&peer, &self.handle);
        // `--call-tool`: the proxy calls the tool it names, as a direct call would.
        let (name, arguments) = if name == annotations::CALL_TOOL && self.link.1.call_tool {
            match annotations::unwrap_call(&arguments) {
                Ok(inner) => inner,
                Err(why) => {
                    let answer = Answer {
                        result: CallToolResult::error(vec![ContentBlock::text(why)]),
                        tools_changed: false,
                    };
                    let _ = reply.send(answer);
                    return;
                }
            }
        } else {
            (name, arguments)
        };
        let sink = |update: Progress| {
            if let Some(progress) = &progress {
                let _ = progress.send(update);
            }
        };
        self.busy.send_replace(true);
        let begun = self.host.begin(&name, arguments, &cancel, &sink);
        self.busy.send_replace(false);
        match begun {
            Begun::Done(record) => self.answer(record, Some(reply)),
            Begun::Running(running) => self.launch(
                running,
                Launch {
                    cancel,
                    progress,
                    reply: Some(reply),
                },
            ),
        }
    }

    /// Runs a call's job: in the pool, or here when it is brief (a Read of a small file: the
    /// hand-off to a call thread and back would cost more than the job).
    fn launch(&mut self, running: Running, call: Launch) {
        if running.is_brief() {
            let sink = |update: Progress| {
                if let Some(progress) = &call.progress {
                    let _ = progress.send(update);
                }
            };
            let here = crate::host::InPlace::new(self.host.prompter_mut());
            let ran = running.run(&call.cancel, &sink, &|task| here.run(task));
            self.busy.send_replace(true);
            let ended = self.host.end(ran, &call.cancel);
            self.busy.send_replace(false);
            match ended {
                Begun::Done(record) => self.answer(record, call.reply),
                Begun::Running(running) => self.launch(running, call),
            }
            return;
        }
        let id = self.next_id;
        self.next_id += 1;
        self.running.insert(id, call.cancel.clone());
        let to_host = self.to_host.clone();
        let ask_host = self.to_host.clone();
        let per_call = self.per_call;
        self.pool.run(Box::new(move || {
            let sink = |update: Progress| {
                if let Some(progress) = &call.progress {
                    let _ = progress.send(update);
                }
            };
            // A dialog of the job (a mini tool's) is asked on the host thread, in turn with
            // the cards.
            let on_host = |task: HostTask| {
                let _ = ask_host.send(Msg::OnHost(task));
            };
            let ran = Box::new(running.run(&call.cancel, &sink, &on_host));
            if per_call || ran.may_escalate() {
                // `record_delay = "0"`: the record is written before the answer; a call the
                // wall refused may run again: the host answers it once it ended for good.
                let call = Box::new(call);
                let _ = to_host.send(Msg::Finished { id, ran, call });
                return;
            }
            // The result goes to the client from here (a hand-off less on the way of every
            // call), after the record went to the host thread: a request the client sends on
            // reading it comes after, so a later call that may read the transcript finds this
            // call in it.
            let answer = Answer {
                result: call_result(ran.record()),
                tools_changed: false,
            };
            let Launch {
                cancel,
                progress,
                reply,
            } = call;
            let call = Box::new(Launch {
                cancel,
                progress,
                reply: None,
            });
            let _ = to_host.send(Msg::Finished { id, ran, call });
            if let Some(reply) = reply {
                let _ = reply.send(answer);
            }
        }));
    }

    /// Applies what the call changed and hands its result to the request that waits, unless
    /// its result went to the client already (`reply` is `None`).
    fn answer(&mut self, record: CallRecord, reply: Option<oneshot::Sender<Answer>>) {
        let Some(reply) = reply else {
            if settle_events(self.host, self.reload) {
                publish_tools(self.host, &self.listed, self.link.1.call_tool);
            }
            return;
        };
        let tools_changed =
            settle_events(self.host, self.reload) || std::mem::take(&mut self.reloaded);
        if tools_changed {
            publish_tools(self.host, &self.listed, self.link.1.call_tool);
        }
        let answer = Answer {
            result: call_result(record),
            tools_changed,
        };
        // A request the client cancelled no longer waits.
        let _ = reply.send(answer);
    }
}

/// Applies what the last call changed; whether the active tools may have changed.
fn settle_events(host: &mut Host, reload: &mut dyn FnMut(&mut Host)) -> bool {
    let mut changed = false;
    let mut minitools_changed = false;
    for event in host.take_events() {
        match event {
            HostEvent::ToolsActivated(names) => changed |= !names.is_empty(),
            HostEvent::MiniToolsChanged => minitools_changed = true,
            HostEvent::ToolsChanged => {
                host.rebuild_catalog();
                changed = true;
            }
        }
    }
    if minitools_changed {
        reload(host);
        changed = true;
    }
    changed
}

/// A message to the host thread.
enum Msg {
    ListTools {
        reply: oneshot::Sender<Vec<Tool>>,
    },
    CallTool(Box<CallTool>),
    /// A call's job ended: to be recorded, and answered when its request still waits for the
    /// host (`Launch::reply`).
    Finished {
        id: u64,
        ran: Box<Ran>,
        call: Box<Launch>,
    },
    /// Call records waited `[host] record_delay` (`FlushTimer`), or a stop signal came:
    /// time to write them.
    Quiet,
    /// A provider's tools changed on their own (`mcp::tools_changed`).
    ToolsChanged {
        peer: Peer<RoleServer>,
    },
    /// A running job's dialog, to ask with the host's prompter (`JobCx::on_host`).
    OnHost(HostTask),
    /// The client sent `notifications/initialized`: it may be asked things now.
    Initialized {
        peer: Peer<RoleServer>,
    },
    /// The service ended: the client closed stdin (`Ok`), or it failed.
    Ended(Result<(), ServeError>),
}

/// A call's job on its way: its token, where its progress goes, and the request that waits for
/// its result (`None` once the result went to the client from the call thread).
struct Launch {
    cancel: Cancel,
    progress: Option<mpsc::UnboundedSender<Progress>>,
    reply: Option<oneshot::Sender<Answer>>,
}

struct CallTool {
    name: String,
    arguments: Value,
    peer: Peer<RoleServer>,
    cancel: Cancel,
    /// Where the call's progress goes, when the client asked for it (a `progressToken`).
    progress: Option<mpsc::UnboundedSender<Progress>>,
    reply: oneshot::Sender<Answer>,
}

struct Answer {
    result: CallToolResult,
    tools_changed: bool,
}

/// The rmcp side: forwards `tools/list` and `tools/call` to the host thread and waits for the
/// answer; everything else rmcp answers itself.
struct Relay {
    to_host: std_mpsc::Sender<Msg>,
    /// Whether the host thread is inside a call's first half.
    busy: watch::Receiver<bool>,
    /// The tools the host last listed (see `Serving::busy`).
    listed: Arc<Mutex<Arc<Vec<Tool>>>>,
}

fn host_gone() -> McpError {
    McpError::internal_error("the finch host stopped", None)
}

impl ServerHandler for Relay {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new("finch", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    /// Only revisions with an `initialize` handshake: from 2026-07-28 on a server may not send
    /// requests to the client, and cards need `elicitation/create`.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(
            &ProtocolVersion::LATEST_WITH_INITIALIZE,
        ))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let _ = self.to_host.send(Msg::Initialized {
            peer: context.peer.clone(),
        });
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let snapshot = || {
            let tools = self
                .listed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone();
            Ok(ListToolsResult::with_all_items(tools.as_ref().clone()))
        };
        let mut busy = self.busy.clone();
        if *busy.borrow_and_update() {
            return snapshot();
        }
        let (reply, answer) = oneshot::channel();
        self.to_host
            .send(Msg::ListTools { reply })
            .map_err(|_| host_gone())?;
        tokio::select! {
            tools = answer => Ok(ListToolsResult::with_all_items(tools.map_err(|_| host_gone())?)),
            // The host went into a call before it came to this request: what it last listed.
            Ok(_) = busy.wait_for(|busy| *busy) => snapshot(),
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let token = context.meta.get_progress_token();
        let (progress, mut updates) = match token {
            Some(_) => {
                let (tx, rx) = mpsc::unbounded_channel();
                (Some(tx), Some(rx))
            }
            None => (None, None),
        };
        let cancel = Cancel::new();
        let (reply, mut answer) = oneshot::channel();
        let call = CallTool {
            name: request.name.into_owned(),
            arguments: Value::Object(request.arguments.unwrap_or_default()),
            peer: context.peer.clone(),
            cancel: cancel.clone(),
            progress,
            reply,
        };
        self.to_host
            .send(Msg::CallTool(Box::new(call)))
            .map_err(|_| host_gone())?;
        let notify = |update: Progress| {
            let token = token.clone();
            let peer = context.peer.clone();
            async move {
                let Some(token) = token else { return };
                let mut param = ProgressNotificationParam::new(token, update.progress);
                param.total = update.total;
                param.message = update.message;
                let _ = peer.notify_progress(param).await;
            }
        };
        let answer = loop {
            let next_update = async {
                match updates.as_mut() {
                    Some(updates) => updates.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                // rmcp drops whatever this request answers once it was cancelled.
                () = context.ct.cancelled() => {
                    cancel.cancel();
                    return Err(McpError::internal_error("cancelled", None));
                }
                Some(update) = next_update => notify(update).await,
                answer = &mut answer => break answer.map_err(|_| host_gone())?,
            }
        };
        // Updates sent before the call ended go out before its result.
        if let Some(updates) = updates.as_mut() {
            while let Ok(update) = updates.try_recv() {
                notify(update).await;
            }
        }
        if answer.tools_changed {
            // Sent before the result, so a client that lists again on receiving the result
            // already knows the list changed.
            let _ = context.peer.notify_tool_list_changed().await;
        }
        Ok(answer.result.into())
    }
}

/// A catalog tool as `tools/list` describes it.
fn mcp_tool(spec: &ToolSpec) -> Tool {
    let schema = match &spec.def.input_schema {
        Value::Object(map) => map.clone(),
        _ => {
            let mut map = JsonObject::new();
            map.insert("type".into(), "object".into());
            map
        }
    };
    let tool = Tool::new(
        spec.name.clone(),
        spec.def.description.clone(),
        Arc::new(schema),
    )
    .with_annotations(annotations::of(spec));
    if spec.def.title.is_empty() || spec.def.title == spec.name {
        tool
    } else {
        tool.with_title(spec.def.title.clone())
    }
}

/// A call record as the MCP result: its content, `isError`, `structuredContent` when the tool
/// gave one, and the gateway's decision in `_meta`.
fn call_result(record: CallRecord) -> CallToolResult {
    let content = record
        .output
        .content
        .into_iter()
        .map(|block| match block {
            Content::Text(text) => ContentBlock::text(text),
            Content::Image { data, mime_type } => ContentBlock::image(data, mime_type),
            // An MCP server's block (a resource, annotations) passes through as it came.
            Content::Block(value) => {
                let text = Content::Block(value.clone()).display();
                serde_json::from_value(value).unwrap_or_else(|_| ContentBlock::text(text))
            }
        })
        .collect();
    let mut result = if record.output.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = record.output.structured.map(structured_object);
    let mut meta = JsonObject::new();
    meta.insert("finch/decision".into(), record.decision.as_str().into());
    meta.insert("finch/decidedBy".into(), record.decided_by.as_str().into());
    if let Some(confine) = record.sandbox {
        meta.insert("finch/sandbox".into(), confine.as_str().into());
    }
    if let Some(failure) = record.failure {
        meta.insert("finch/failure".into(), failure.as_str().into());
    }
    if let Some(blocked) = &record.blocked {
        meta.insert("finch/blocked".into(), blocked.to_json());
    }
    if let Some(escalated) = &record.escalation {
        meta.insert("finch/escalation".into(), escalated.to_json());
    }
    result.meta = Some(MetaObject(meta));
    result
}

/// MCP's `structuredContent` is an object: a tool's structured value that is not one (the
/// arrays of Memory, ToolSearch, Session and the other dispatchers' lists) is sent as
/// `{"result": <value>}`, the key the reference SDKs use for a tool's non-object output.
fn structured_object(value: Value) -> Value {
    match value {
        Value::Object(_) => value,
        other => json!({ "result": other }),
    }
}
