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
//! Every listed tool carries its annotations (`crate::host::hints`); `--call-tool` adds the
//! `CallTool` proxy for clients that never list again (`annotations`).
//!
//! stdout carries only the protocol: nothing here prints to it, and warnings go to stderr.

mod annotations;
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
    ElicitationMode, PeerRequestOptions, RequestContext, RoleServer, ServerInitializeError,
};
use rmcp::{ErrorData as McpError, Peer, ServerHandler, ServiceError, ServiceExt};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot, watch};

use wire::ServerWire;

use crate::error::CommandError;
use crate::host::assembly::Assembly;
use crate::host::cancel::{Cancel, Progress};
use crate::host::catalog::ToolSpec;
use crate::host::control;
use crate::host::output::Content;
use crate::host::prompt::{Card, CardAnswer, Prompter, Question, QuestionAnswer};
use crate::host::{Begun, CallRecord, Host, HostEnv, HostEvent, HostTask, Ran};

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

/// The client a session is served to, as the prompter needs it: set by the serving loop when
/// the first request arrives, read by the prompter during a call.
#[derive(Clone, Default)]
pub struct ClientLink(Rc<RefCell<Option<Client>>>, ServeOptions);

/// What `finch run --serve mcp` offers beyond the catalog.
#[derive(Debug, Clone, Copy, Default)]
pub struct ServeOptions {
    /// `--call-tool`: list `CallTool`, which calls any active tool by name (`annotations`).
    pub call_tool: bool,
}

#[derive(Clone)]
struct Client {
    peer: Peer<RoleServer>,
    /// The server's runtime, on its I/O thread.
    runtime: tokio::runtime::Handle,
}

impl ClientLink {
    pub fn new() -> ClientLink {
        ClientLink::default()
    }

    /// A link for a session served with `options`.
    pub fn with_options(options: ServeOptions) -> ClientLink {
        ClientLink(Rc::default(), options)
    }

    fn attach(&self, peer: &Peer<RoleServer>, runtime: &tokio::runtime::Handle) {
        let mut slot = self.0.borrow_mut();
        if slot.is_none() {
            *slot = Some(Client {
                peer: peer.clone(),
                runtime: runtime.clone(),
            });
        }
    }

    /// Forgets the client (the session was served).
    fn detach(&self) {
        self.0.borrow_mut().take();
    }

    /// The client, when it declared form elicitation under a revision that has it.
    fn eliciting(&self) -> Option<Client> {
        let slot = self.0.borrow();
        let client = slot.as_ref()?;
        (client
            .peer
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form)
            && client.dialect() != version::Dialect::None)
            .then(|| client.clone())
    }

    /// Whether a client is attached (from its first call on): a card that finds no eliciting
    /// client then went unshown because of that client, not because nobody was there.
    fn attached(&self) -> bool {
        self.0.borrow().is_some()
    }
}

/// How an elicitation ended.
enum Elicited {
    Answered(ElicitResult),
    TimedOut,
    /// The request failed (the client errored, the connection closed): ask someone else.
    Failed(String),
    /// The call was cancelled first, and the elicitation with it.
    Withdrawn,
}

impl Client {
    /// The elicitation of the negotiated revision (`version`).
    fn dialect(&self) -> version::Dialect {
        self.peer
            .peer_info()
            .map_or(version::Dialect::Current, |info| {
                version::Dialect::of(&info.protocol_version)
            })
    }

    /// Sends one form elicitation and waits for its answer, at most `timeout` (the host
    /// thread waits; the server's runtime goes on answering on its own thread). Under
    /// 2025-06-18 the form is rewritten for it, and its answer back (`version`). When
    /// `cancel` is set meanwhile, the elicitation is cancelled (`notifications/cancelled` for
    /// its request) and this returns `Withdrawn` at once.
    fn elicit(
        &self,
        message: String,
        schema: ElicitationSchema,
        timeout: Duration,
        cancel: Option<&Cancel>,
    ) -> Elicited {
        if cancel.is_some_and(Cancel::is_cancelled) {
            return Elicited::Withdrawn;
        }
        let original = (self.dialect() == version::Dialect::Legacy)
            .then(|| serde_json::to_value(&schema).ok())
            .flatten();
        let schema = match &original {
            Some(form) => serde_json::from_value(version::legacy_schema(form)).unwrap_or(schema),
            None => schema,
        };
        let request = ServerRequest::ElicitRequest(ElicitRequest::new(
            ElicitRequestParams::FormElicitationParams {
                meta: None,
                message,
                requested_schema: schema,
            },
        ));
        let options = PeerRequestOptions::with_timeout(timeout);
        let withdraw = Arc::new(tokio::sync::Notify::new());
        if let Some(cancel) = cancel {
            let wake = Arc::clone(&withdraw);
            cancel.on_cancel(move || wake.notify_one());
        }
        let peer = self.peer.clone();
        let (tx, rx) = std_mpsc::channel();
        self.runtime.spawn(async move {
            let asked = async {
                let handle = peer.send_request_with_option(request, options).await?;
                let id = handle.id.clone();
                tokio::select! {
                    answer = handle.await_response() => answer.map(Some),
                    () = withdraw.notified() => {
                        let why = "the call it asks about was cancelled".to_string();
                        let params = CancelledNotificationParam::new(Some(id), Some(why));
                        let _ = peer.notify_cancelled(params).await;
                        Ok(None)
                    }
                }
            };
            // rmcp times the request out itself; the outer bound only makes sure this never
            // waits past the card timeout whatever the transport does.
            let answer = tokio::time::timeout(timeout + Duration::from_secs(1), asked).await;
            let _ = tx.send(answer);
        });
        match rx.recv() {
            Ok(Ok(Ok(Some(ClientResult::ElicitResult(mut result))))) => {
                if let Some(form) = &original {
                    result.content = result
                        .content
                        .take()
                        .map(|c| version::legacy_answer(form, c));
                }
                Elicited::Answered(result)
            }
            Ok(Ok(Ok(Some(_)))) => Elicited::Failed("the client answered something else".into()),
            Ok(Ok(Ok(None))) => Elicited::Withdrawn,
            Ok(Ok(Err(ServiceError::Timeout { .. })) | Err(_)) => Elicited::TimedOut,
            Ok(Ok(Err(e))) => Elicited::Failed(e.to_string()),
            Err(_) => Elicited::Failed("the MCP server stopped".into()),
        }
    }
}

/// Answers cards and questions through the MCP client when it can elicit, else through
/// `fallback` (the terminal, or nobody).
pub struct ElicitingPrompter {
    link: ClientLink,
    fallback: Box<dyn Prompter>,
    timeout: Duration,
}

impl ElicitingPrompter {
    pub fn new(
        link: ClientLink,
        fallback: Box<dyn Prompter>,
        timeout: Duration,
    ) -> ElicitingPrompter {
        ElicitingPrompter {
            link,
            fallback,
            timeout,
        }
    }
}

impl ElicitingPrompter {
    /// A card through the client's form elicitation, else `fallback`; taken back when
    /// `cancel` is set while it is open.
    fn ask_card(&mut self, card: &Card, cancel: Option<&Cancel>) -> CardAnswer {
        let fallback = |prompter: &mut Box<dyn Prompter>| match cancel {
            Some(cancel) => prompter.card_until(card, cancel),
            None => prompter.card(card),
        };
        let Some(client) = self.link.eliciting() else {
            return match fallback(&mut self.fallback) {
                CardAnswer::Unavailable if self.link.attached() => CardAnswer::NoElicitation,
                answer => answer,
            };
        };
        match client.elicit(card_message(card), card_schema(card), self.timeout, cancel) {
            Elicited::Answered(result) => card_answer(&result),
            Elicited::TimedOut => CardAnswer::TimedOut,
            Elicited::Withdrawn => CardAnswer::Withdrawn,
            Elicited::Failed(why) => {
                crate::eline!(
                    "warning: the MCP client could not show the permission card for {} ({why}); asking without it",
                    card.tool
                );
                fallback(&mut self.fallback)
            }
        }
    }
}

impl Prompter for ElicitingPrompter {
    fn card(&mut self, card: &Card) -> CardAnswer {
        self.ask_card(card, None)
    }

    fn card_until(&mut self, card: &Card, cancel: &Cancel) -> CardAnswer {
        self.ask_card(card, Some(cancel))
    }

    fn question(&mut self, question: &Question) -> QuestionAnswer {
        let Some(client) = self.link.eliciting() else {
            return self.fallback.question(question);
        };
        let Some(schema) = question_schema(question) else {
            return self.fallback.question(question);
        };
        match client.elicit(question_message(question), schema, self.timeout, None) {
            Elicited::Answered(result) => question_answer(question, &result),
            Elicited::TimedOut | Elicited::Withdrawn => QuestionAnswer::TimedOut,
            Elicited::Failed(why) => {
                crate::eline!(
                    "warning: the MCP client could not show the question ({why}); asking without it"
                );
                self.fallback.question(question)
            }
        }
    }
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
                Msg::ToolsChanged { peer } => {
                    if self.host.refresh() {
                        publish_tools(self.host, &self.listed, self.link.1.call_tool);
                        self.handle.spawn(async move {
                            let _ = peer.notify_tool_list_changed().await;
                        });
                    }
                }
                Msg::Finished { id, ran, reply } => {
                    self.running.remove(&id);
                    let record = self.host.end(*ran);
                    match reply {
                        Some(reply) => self.answer(record, reply),
                        // Its result went to the client from the call thread.
                        None => {
                            if settle_events(self.host, self.reload) {
                                publish_tools(self.host, &self.listed, self.link.1.call_tool);
                            }
                        }
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
            Begun::Done(record) => self.answer(record, reply),
            // A brief job (a Read of a small file) runs here: the hand-off to a call thread
            // and back would cost more than the job.
            Begun::Running(running) if running.is_brief() => {
                let here = crate::host::InPlace::new(self.host.prompter_mut());
                let ran = running.run(&cancel, &sink, &|task| here.run(task));
                let record = self.host.end(ran);
                self.answer(record, reply);
            }
            Begun::Running(running) => {
                let id = self.next_id;
                self.next_id += 1;
                self.running.insert(id, cancel.clone());
                let to_host = self.to_host.clone();
                let ask_host = self.to_host.clone();
                let per_call = self.per_call;
                self.pool.run(Box::new(move || {
                    let sink = |update: Progress| {
                        if let Some(progress) = &progress {
                            let _ = progress.send(update);
                        }
                    };
                    // A dialog of the job (a mini tool's) is asked on the host thread, in turn
                    // with the cards.
                    let on_host = |task: HostTask| {
                        let _ = ask_host.send(Msg::OnHost(task));
                    };
                    let ran = Box::new(running.run(&cancel, &sink, &on_host));
                    if per_call {
                        // `record_delay = "0"`: the record is written before the answer.
                        let reply = Some(reply);
                        let _ = to_host.send(Msg::Finished { id, ran, reply });
                        return;
                    }
                    // The result goes to the client from here (a hand-off less on the way of
                    // every call), after the record went to the host thread: a request the
                    // client sends on reading it comes after, so a later call that may read
                    // the transcript finds this call in it.
                    let answer = Answer {
                        result: call_result(ran.record()),
                        tools_changed: false,
                    };
                    let _ = to_host.send(Msg::Finished {
                        id,
                        ran,
                        reply: None,
                    });
                    let _ = reply.send(answer);
                }));
            }
        }
    }

    /// Applies what the call changed and hands its result to the request that waits.
    fn answer(&mut self, record: CallRecord, reply: oneshot::Sender<Answer>) {
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

/// Sends the host thread a `Msg::Quiet` `delay` after it was armed: the moment call records
/// that began to wait are written. Armed once per burst (`arm` does nothing while a wake is
/// due), so it costs one hand-off per burst instead of a timed wait per request.
struct FlushTimer {
    arm: Option<std_mpsc::Sender<()>>,
    armed: bool,
}

impl FlushTimer {
    /// The timer's thread; none when `delay` is zero (records are written as calls end) or
    /// the thread cannot start (the host thread then waits with a timeout).
    fn start(delay: Duration, to_host: std_mpsc::Sender<Msg>) -> FlushTimer {
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

    fn runs(&self) -> bool {
        self.arm.is_some()
    }

    /// Records wait: a `Quiet` comes `delay` from now, unless one is already due.
    fn arm(&mut self) {
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
    fn fired(&mut self) {
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
struct Pool {
    tasks: Option<std_mpsc::Sender<Task>>,
    queue: Arc<Mutex<std_mpsc::Receiver<Task>>>,
    /// Jobs handed to the pool and not yet finished: running, or queued for a thread.
    unfinished: Arc<AtomicUsize>,
    threads: usize,
    limit: usize,
}

type Task = Box<dyn FnOnce() + Send>;

impl Pool {
    fn new(limit: usize) -> Pool {
        let (tasks, queue) = std_mpsc::channel();
        Pool {
            tasks: Some(tasks),
            queue: Arc::new(Mutex::new(queue)),
            unfinished: Arc::new(AtomicUsize::new(0)),
            threads: 0,
            limit,
        }
    }

    fn run(&mut self, task: Task) {
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
struct Finished<'a>(&'a AtomicUsize);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn worker(queue: &Mutex<std_mpsc::Receiver<Task>>, unfinished: &AtomicUsize) {
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
    /// A call's job ended: to be recorded, and answered when `reply` is still there.
    Finished {
        id: u64,
        ran: Box<Ran>,
        reply: Option<oneshot::Sender<Answer>>,
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
    /// The service ended: the client closed stdin (`Ok`), or it failed.
    Ended(Result<(), ServeError>),
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

/// The values of the card form's `decision` field.
const ALLOW_ONCE: &str = "allowOnce";
const ALLOW_FOR_SESSION: &str = "allowForSession";
const ALLOW_UNSANDBOXED: &str = "allowUnsandboxed";
const DENY: &str = "deny";
const DENY_WITH_REASON: &str = "denyWithReason";

/// The card as the elicitation's message: what would run, who asks, why.
fn card_message(card: &Card) -> String {
    let mut text = if card.title.is_empty() || card.title == card.tool {
        format!("Permission needed: {}", card.tool)
    } else {
        format!("Permission needed: {} — {}", card.tool, card.title)
    };
    // The whole command, never cut; a long one says how long it is, so nobody takes the
    // head for all of it.
    let chars = card.summary.chars().count();
    if chars > crate::host::prompt::LONG_SUMMARY {
        text.push_str(&format!(
            "\n({} characters; the whole of it follows, to its last character)",
            chars
        ));
    }
    text.push_str(&format!("\n{}", card.summary));
    text.push_str(&format!("\nLayer: {}", card.layer));
    if let Some(owner) = &card.owner {
        text.push_str(&format!(" · owner: {owner}"));
    }
    text.push_str(&format!(" · risk: {}", card.risk.as_str()));
    text.push_str(&format!("\nWhy: {}", card.reason));
    if let Some(sandbox) = &card.sandbox {
        text.push_str(&format!("\nSandbox: {sandbox}"));
    }
    text
}

/// The card's form: one choice (only the answers this card allows) and an optional reason.
fn card_schema(card: &Card) -> ElicitationSchema {
    let mut choices = vec![json!({"const": ALLOW_ONCE, "title": "Allow once"})];
    if card.session_allow_offered {
        choices.push(json!({"const": ALLOW_FOR_SESSION, "title": "Allow for this session"}));
    }
    choices.push(json!({"const": DENY, "title": "Deny"}));
    choices.push(json!({"const": DENY_WITH_REASON, "title": "Deny and tell the model why"}));
    // Last, as on the terminal card.
    if card.unsandboxed_offered {
        choices
            .push(json!({"const": ALLOW_UNSANDBOXED, "title": "Allow once, without the sandbox"}));
    }
    form_schema(json!({
        "type": "object",
        "properties": {
            "decision": {
                "type": "string",
                "title": "Decision",
                "oneOf": choices,
            },
            "reason": {
                "type": "string",
                "title": "Reason",
                "description": "When denying: what the model should know or do instead",
            },
        },
        "required": ["decision"],
    }))
}

/// A schema written here as JSON, as rmcp's type. The shapes are fixed by this module (only
/// labels vary), so a failure is a bug the unit tests catch; it still never panics: the
/// caller gets an empty form, which a client can only accept or decline.
fn form_schema(schema: Value) -> ElicitationSchema {
    serde_json::from_value(schema).unwrap_or_else(|e| {
        crate::eline!("warning: internal error building an elicitation form: {e}");
        ElicitationSchema::new(Default::default())
    })
}

/// The client's answer to a card. Declining or cancelling the form does not run the call,
/// and is kept apart from a person's deny.
fn card_answer(result: &ElicitResult) -> CardAnswer {
    match result.action {
        ElicitationAction::Accept => {}
        ElicitationAction::Decline => return CardAnswer::Declined,
        ElicitationAction::Cancel => return CardAnswer::Cancelled,
        // An action of a later revision: whatever it is, no allow.
        _ => return CardAnswer::Deny,
    }
    let field = |name: &str| {
        result
            .content
            .as_ref()
            .and_then(|c| c.get(name))
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or("")
    };
    let reason = field("reason");
    match field("decision") {
        ALLOW_ONCE => CardAnswer::AllowOnce,
        ALLOW_FOR_SESSION => CardAnswer::AllowForSession,
        ALLOW_UNSANDBOXED => CardAnswer::AllowUnsandboxed,
        // A reason typed beside a plain deny is still worth passing on.
        DENY | DENY_WITH_REASON if !reason.is_empty() => {
            CardAnswer::DenyWithReason(reason.to_string())
        }
        _ => CardAnswer::Deny,
    }
}

fn question_message(question: &Question) -> String {
    match &question.header {
        Some(header) => format!("{header}\n{}", question.question),
        None => question.question.clone(),
    }
}

/// The question's form: the options (one, or several with `multiSelect`) and a free-text
/// answer. `None` when the options cannot be offered as a form (none at all).
fn question_schema(question: &Question) -> Option<ElicitationSchema> {
    if question.options.is_empty() {
        return None;
    }
    let options: Vec<Value> = question
        .options
        .iter()
        .map(|o| {
            let title = match &o.description {
                Some(d) if !d.is_empty() => format!("{} — {d}", o.label),
                _ => o.label.clone(),
            };
            json!({"const": o.label, "title": title})
        })
        .collect();
    let answer = if question.multi_select {
        json!({"type": "array", "title": "Choose any", "items": {"anyOf": options}})
    } else {
        json!({"type": "string", "title": "Choose one", "oneOf": options})
    };
    Some(form_schema(json!({
        "type": "object",
        "properties": {
            "answer": answer,
            "other": {
                "type": "string",
                "title": "Or answer in your own words",
            },
        },
    })))
}

/// The client's answer to a question. Free text wins over the options; a label that is not an
/// option counts as free text; declining or cancelling answers nothing (not "none chosen").
fn question_answer(question: &Question, result: &ElicitResult) -> QuestionAnswer {
    let empty = Map::new();
    let content = match (&result.action, &result.content) {
        (ElicitationAction::Accept, Some(Value::Object(map))) => map,
        (ElicitationAction::Accept, _) => &empty,
        _ => return QuestionAnswer::Dismissed,
    };
    if let Some(other) = content.get("other").and_then(Value::as_str)
        && !other.trim().is_empty()
    {
        return QuestionAnswer::Other(other.trim().to_string());
    }
    let is_option = |label: &str| question.options.iter().any(|o| o.label == label);
    match content.get("answer") {
        Some(Value::String(label)) if is_option(label) => {
            QuestionAnswer::Chosen(vec![label.clone()])
        }
        Some(Value::String(text)) if !text.trim().is_empty() => {
            QuestionAnswer::Other(text.trim().to_string())
        }
        Some(Value::Array(labels)) => QuestionAnswer::Chosen(
            labels
                .iter()
                .filter_map(Value::as_str)
                .filter(|l| is_option(l))
                .map(str::to_string)
                .collect(),
        ),
        _ => QuestionAnswer::Chosen(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::Env;
    use crate::homes::{AgentHomeSource, Homes};
    use crate::host::catalog::{Exposure, ToolDef};
    use crate::host::output::ToolOutput;
    use crate::host::policy::{Mode, Rules};
    use crate::host::prompt::{Choice, Nobody};
    use crate::host::session::SessionState;
    use crate::host::suites::Suites;
    use crate::host::tool::{Layer, Risk};
    use crate::host::{CallCx, HostEnv, Provider};
    use rmcp::ClientHandler;
    use rmcp::model::{ClientCapabilities, ClientConfig};
    use rmcp::service::{NotificationContext, RoleClient};
    use std::sync::Mutex;
    use tokio::sync::Notify;

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

    fn card(session_allow_offered: bool) -> Card {
        Card {
            tool: "Bash".into(),
            title: "Run a shell command".into(),
            layer: "builtin",
            owner: None,
            risk: Risk::Medium,
            summary: "touch x".into(),
            reason: "not read-only".into(),
            session_allow_offered,
            session_scope: "this exact command only".into(),
            sandbox: None,
            unsandboxed_offered: false,
            change: None,
        }
    }

    fn question(multi_select: bool) -> Question {
        Question {
            question: "Which database?".into(),
            header: Some("Database".into()),
            options: vec![
                Choice {
                    label: "SQLite".into(),
                    description: Some("one file".into()),
                },
                Choice {
                    label: "Postgres".into(),
                    description: None,
                },
            ],
            multi_select,
        }
    }

    fn elicited(action: ElicitationAction, content: Option<Value>) -> ElicitResult {
        let mut result: ElicitResult = serde_json::from_value(json!({"action": "accept"})).unwrap();
        result.action = action;
        result.content = content;
        result
    }

    #[test]
    fn card_forms_offer_only_what_the_card_allows() {
        let offered = serde_json::to_value(card_schema(&card(true))).unwrap();
        assert_eq!(
            offered,
            json!({
                "type": "object",
                "properties": {
                    "decision": {"type": "string", "title": "Decision", "oneOf": [
                        {"const": "allowOnce", "title": "Allow once"},
                        {"const": "allowForSession", "title": "Allow for this session"},
                        {"const": "deny", "title": "Deny"},
                        {"const": "denyWithReason", "title": "Deny and tell the model why"},
                    ]},
                    "reason": {"type": "string", "title": "Reason",
                               "description": "When denying: what the model should know or do instead"},
                },
                "required": ["decision"],
            })
        );
        let not_offered = serde_json::to_value(card_schema(&card(false))).unwrap();
        let consts: Vec<&str> = not_offered["properties"]["decision"]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["const"].as_str().unwrap())
            .collect();
        assert_eq!(consts, ["allowOnce", "deny", "denyWithReason"]);
        let message = card_message(&card(true));
        assert_eq!(
            message,
            "Permission needed: Bash — Run a shell command\ntouch x\nLayer: builtin · risk: medium\nWhy: not read-only"
        );
    }

    /// The elicitation shows the whole command, however long, and says how long it is.
    #[test]
    fn a_long_command_is_whole_in_the_elicitation() {
        let command = format!("make -n test; echo '{}'; python3 -c 'x'", "y".repeat(150));
        let mut long = card(false);
        long.summary = command.clone();
        let message = card_message(&long);
        assert!(message.contains(&command), "{message}");
        assert!(
            message.contains(&format!("({} characters;", command.chars().count())),
            "{message}"
        );
    }

    #[test]
    fn card_answers() {
        use ElicitationAction::{Accept, Cancel, Decline};
        let cases = [
            (
                Accept,
                Some(json!({"decision": "allowOnce"})),
                CardAnswer::AllowOnce,
            ),
            (
                Accept,
                Some(json!({"decision": "allowForSession"})),
                CardAnswer::AllowForSession,
            ),
            (Accept, Some(json!({"decision": "deny"})), CardAnswer::Deny),
            (
                Accept,
                Some(json!({"decision": "deny", "reason": " use make "})),
                CardAnswer::DenyWithReason("use make".into()),
            ),
            (
                Accept,
                Some(json!({"decision": "denyWithReason", "reason": "no"})),
                CardAnswer::DenyWithReason("no".into()),
            ),
            (
                Accept,
                Some(json!({"decision": "denyWithReason", "reason": "  "})),
                CardAnswer::Deny,
            ),
            // An allow never comes from a reason alone, an unknown value or a missing field.
            (
                Accept,
                Some(json!({"decision": "yes please"})),
                CardAnswer::Deny,
            ),
            (Accept, Some(json!({"reason": "fine"})), CardAnswer::Deny),
            (Accept, Some(json!({"decision": true})), CardAnswer::Deny),
            (Accept, None, CardAnswer::Deny),
            (
                Decline,
                Some(json!({"decision": "allowOnce"})),
                CardAnswer::Declined,
            ),
            (Cancel, None, CardAnswer::Cancelled),
        ];
        for (action, content, want) in cases {
            let got = card_answer(&elicited(action.clone(), content.clone()));
            assert_eq!(got, want, "{action:?} {content:?}");
        }
    }

    #[test]
    fn question_forms_and_answers() {
        let single = serde_json::to_value(question_schema(&question(false)).unwrap()).unwrap();
        assert_eq!(
            single["properties"]["answer"],
            json!({"type": "string", "title": "Choose one", "oneOf": [
                {"const": "SQLite", "title": "SQLite — one file"},
                {"const": "Postgres", "title": "Postgres"},
            ]})
        );
        assert_eq!(single["properties"]["other"]["type"], "string");
        let multi = serde_json::to_value(question_schema(&question(true)).unwrap()).unwrap();
        assert_eq!(multi["properties"]["answer"]["type"], "array");
        assert_eq!(
            multi["properties"]["answer"]["items"]["anyOf"][1],
            json!({"const": "Postgres", "title": "Postgres"})
        );
        let no_options = Question {
            options: Vec::new(),
            ..question(false)
        };
        assert!(question_schema(&no_options).is_none());
        assert_eq!(
            question_message(&question(false)),
            "Database\nWhich database?"
        );

        use ElicitationAction::{Accept, Cancel, Decline};
        let chosen = |l: &[&str]| QuestionAnswer::Chosen(l.iter().map(|s| s.to_string()).collect());
        let cases = [
            (
                Accept,
                Some(json!({"answer": "SQLite"})),
                chosen(&["SQLite"]),
            ),
            (
                Accept,
                Some(json!({"answer": ["SQLite", "Nope", "Postgres"]})),
                chosen(&["SQLite", "Postgres"]),
            ),
            (
                Accept,
                Some(json!({"answer": "SQLite", "other": " my own "})),
                QuestionAnswer::Other("my own".into()),
            ),
            (
                Accept,
                Some(json!({"answer": "MySQL"})),
                QuestionAnswer::Other("MySQL".into()),
            ),
            (Accept, Some(json!({"other": ""})), chosen(&[])),
            (Accept, None, chosen(&[])),
            (Decline, None, QuestionAnswer::Dismissed),
            (Cancel, None, QuestionAnswer::Dismissed),
        ];
        for (action, content, want) in cases {
            let got = question_answer(&question(false), &elicited(action.clone(), content.clone()));
            assert_eq!(got, want, "{action:?} {content:?}");
        }
    }

    #[test]
    fn records_become_results_with_the_decision_in_meta() {
        let output = ToolOutput {
            content: vec![
                Content::Text("hi".into()),
                Content::Image {
                    data: "AAAA".into(),
                    mime_type: "image/png".into(),
                },
            ],
            structured: Some(json!({"n": 1})),
            is_error: false,
        };
        let fast_lane = crate::host::DecidedBy::Gateway(crate::host::policy::DecidedBy::FastLane);
        let record = CallRecord::ran("Read", fast_lane, output, false);
        let result = serde_json::to_value(call_result(record)).unwrap();
        assert_eq!(
            result,
            json!({
                "resultType": "complete",
                "content": [
                    {"type": "text", "text": "hi"},
                    {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                ],
                "structuredContent": {"n": 1},
                "isError": false,
                "_meta": {"finch/decision": "allow", "finch/decidedBy": "fastLane"},
            })
        );
    }

    /// A provider of one dynamic MCP-layer tool, as the MCP bridge declares its tools.
    struct Lookup;

    impl Provider for Lookup {
        fn defs(&self) -> Vec<ToolDef> {
            vec![ToolDef {
                raw_name: "lookup".into(),
                wanted_name: "mcp__srv__lookup".into(),
                title: "Look up a word".into(),
                description: "Looks a word up in the dictionary".into(),
                layer: Layer::Mcp,
                source: "mcp:srv".into(),
                owner: Some("srv".into()),
                risk: None,
                input_schema: json!({"type": "object", "properties": {"word": {"type": "string"}}}),
                exposure: Exposure::Dynamic,
                keywords: String::new(),
                annotations: None,
            }]
        }

        fn call(&mut self, _tool: &ToolSpec, args: Value, _cx: &mut CallCx) -> ToolOutput {
            ToolOutput::text(format!("looked up {}", args["word"]))
        }
    }

    fn host(dir: &std::path::Path, link: &ClientLink) -> Host {
        let homes = Homes {
            runtime: dir.join("rt"),
            agent: dir.join("ag"),
            agent_source: AgentHomeSource::Flag,
        };
        let settings = crate::config::Config::default()
            .settings(&dir.join("finch.toml"))
            .unwrap();
        let env = HostEnv {
            homes,
            settings,
            env: Env::default(),
            fixed_now: None,
            embed_resources: false,
        };
        let session = SessionState::detached(dir.to_path_buf(), dir.to_path_buf(), Mode::Ask, None);
        let prompter =
            ElicitingPrompter::new(link.clone(), Box::new(Nobody), Duration::from_secs(10));
        Host::new(
            env,
            vec![Box::new(Suites::default()), Box::new(Lookup)],
            Rules::default(),
            session,
            Box::new(prompter),
        )
    }

    /// An rmcp client that counts `tools/list_changed` and accepts every card once.
    #[derive(Clone, Default)]
    struct Agent {
        list_changed: Arc<Notify>,
        cards: Arc<Mutex<Vec<String>>>,
    }

    impl ClientHandler for Agent {
        fn get_info(&self) -> ClientConfig {
            ClientConfig::new(
                ClientCapabilities::builder().enable_elicitation().build(),
                Implementation::new("agent", "1"),
            )
        }

        async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
            self.list_changed.notify_one();
        }

        async fn create_elicitation(
            &self,
            request: ElicitRequestParams,
            _context: RequestContext<RoleClient>,
        ) -> Result<ElicitResult, McpError> {
            if let ElicitRequestParams::FormElicitationParams { message, .. } = request {
                self.cards.lock().unwrap().push(message);
            }
            Ok(elicited(
                ElicitationAction::Accept,
                Some(json!({"decision": "allowOnce"})),
            ))
        }
    }

    fn names(tools: &[Tool]) -> Vec<String> {
        tools.iter().map(|t| t.name.to_string()).collect()
    }

    /// The real ToolSearch activates the dynamic tool; the client hears `list_changed`, lists
    /// it, and calls it with its card answered through elicitation. Then the client leaves and
    /// `serve` returns.
    #[test]
    fn toolsearch_activation_is_announced_and_the_tool_becomes_callable() {
        let dir = tempfile::tempdir().unwrap();
        let link = ClientLink::new();
        let mut host = host(dir.path(), &link);
        let (server_io, client_io) = tokio::io::duplex(1 << 16);
        let agent = Agent::default();
        let seen = agent.clone();
        let client = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let client = agent.serve(client_io).await.unwrap();
                let before = names(&client.list_all_tools().await.unwrap());
                let search = client
                    .call_tool(
                        CallToolRequestParams::new("ToolSearch").with_arguments(
                            json!({"query": "look up word"})
                                .as_object()
                                .unwrap()
                                .clone(),
                        ),
                    )
                    .await
                    .unwrap();
                let announced =
                    tokio::time::timeout(Duration::from_secs(10), seen.list_changed.notified())
                        .await
                        .is_ok();
                let after = names(&client.list_all_tools().await.unwrap());
                let call = client
                    .call_tool(
                        CallToolRequestParams::new("mcp__srv__lookup")
                            .with_arguments(json!({"word": "finch"}).as_object().unwrap().clone()),
                    )
                    .await
                    .unwrap();
                client.cancel().await.unwrap();
                (before, search, announced, after, call)
            })
        });
        serve(
            &mut host,
            &link,
            &mut |h: &mut Host| h.rebuild_catalog(),
            move || tokio::io::split(server_io),
        )
        .unwrap();
        let (before, search, announced, after, call) = client.join().unwrap();
        assert!(
            !before.contains(&"mcp__srv__lookup".to_string()),
            "{before:?}"
        );
        assert_eq!(search.is_error, Some(false), "{search:?}");
        assert!(announced, "no tools/list_changed after the activation");
        assert!(after.contains(&"mcp__srv__lookup".to_string()), "{after:?}");
        assert_eq!(after.len(), before.len() + 1);
        let call = serde_json::to_value(call).unwrap();
        assert_eq!(call["content"][0]["text"], "looked up \"finch\"", "{call}");
        assert_eq!(call["_meta"]["finch/decidedBy"], "card:allowOnce");
        let cards = seen.cards.lock().unwrap();
        assert_eq!(cards.len(), 1);
        assert!(
            cards[0].starts_with("Permission needed: mcp__srv__lookup"),
            "{cards:?}"
        );
        assert!(cards[0].contains("owner: srv"), "{cards:?}");
    }
}
