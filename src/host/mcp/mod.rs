//! The MCP bridge of SPEC §9.2 as a host `Provider`: every tool of every configured MCP server
//! becomes `mcp__<server>__<tool>` in the catalog — layer `mcp`, always dynamic, source
//! `mcp:<server>`, owned by the mini tool that contributed or registered the server, or (a
//! server of the user's own `servers.json`) by the server itself, under its name — and a call
//! is forwarded as `tools/call`.
//!
//! The Provider API is synchronous and rmcp is async, so the bridge owns a tokio runtime (one
//! worker thread, created only when a server is configured): a call blocks the thread that
//! runs it while the worker keeps every session alive. A call is a job (`Provider::start`):
//! it holds the server's session and the runtime's handle, nothing of the host, so under
//! `--serve mcp` a slow server tool runs on a call thread and holds up no other call (calls
//! of the same server go side by side on its one session, as MCP allows).
//!
//! Every server connects on a task of its own, each bounded by `[mcp] timeout` (20 s). A host
//! of `finch run` does not wait for them (`Options::background`): until a server has listed
//! its tools, its tools are the ones the catalog cache (`finch reload`) holds for it, and a
//! call of one of them waits for that server alone (its connection is bounded by the
//! timeout); nothing else waits, so one server that hangs delays nothing but its own tools.
//! When a server's tools arrive (or it fails and its cached tools go), `generation` moves and
//! `tools_changed` wakes whoever listens (the MCP front end announces `tools/list_changed`).
//! Other hosts (`finch tool call`, `finch mcp list`, `finch reload`) wait until every server
//! they connect has answered or failed.
//!
//! A server that sends `notifications/tools/list_changed` has its tools listed again, so a
//! tool it adds at run time becomes callable (finch uses no prompts or resources of servers,
//! so their list-changed notifications change nothing). A call carries a `progressToken`: the
//! server's progress notifications for it go to the call's `CallCx::progress`; a call whose
//! `CallCx::cancel` is set is cancelled upstream (`notifications/cancelled`) and returns
//! `cancel::cancelled_output` at once.
//!
//! A server that fails to connect never breaks the host: it is reported (`statuses`, and in
//! the background through `Options::report`) and its tools are absent. A server whose
//! connection drops later is reconnected in the background, after 2 s, then doubling up to
//! 30 s, at most 5 tries; its tools stay in the catalog and a call meanwhile returns an error
//! that says so. Dropping the bridge closes every session and kills what is left of each stdio
//! server's process group, a server still connecting too.
//!
//! `McpHandle` shares a running bridge with the mini tool runtime, whose `mcp.client`
//! capability lists its servers and tools and calls them (the runtime's threads cannot borrow
//! the bridge, which the host owns as a provider).
//!
//! This module never prints: the front ends report `statuses` and `problems`.

pub mod client;
pub mod config;
mod confine;
pub mod trust;

use std::path::Path;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::service::{Peer, RoleClient};
use serde_json::{Map, Value};
use tokio::sync::{Notify, watch};

use super::catalog::{Exposure, ToolDef, ToolSpec};
use super::output::{Content, ToolOutput};
use super::tool::{Layer, Risk};
use super::{CallCx, HostEnv, JobCx, Provider, Started, cancel, naming};
use crate::minitool::confine::ServerConfinement;
use client::{CallError, ConnectEnv, ConnectError, Connection, Events, RemoteTool};
pub use config::{McpServerConfig, Origin, Problem, Transport, normalize_name};

/// Reconnect tries after a connection drops.
pub const RECONNECT_TRIES: u32 = 5;
/// The longest wait between two reconnect tries.
pub const RECONNECT_MAX_DELAY: Duration = Duration::from_secs(30);
/// How long a closing session may take before its server is killed.
const CLOSE_GRACE: Duration = Duration::from_millis(1500);

/// Woken whenever a bridge's tools changed on their own (a server connected in the
/// background, failed, or said its tool list changed): a front end that announces changes
/// (`--serve mcp`) waits on it, refreshes its host and, when the catalog moved, tells its
/// client. One permit is kept while nobody waits, so a change during a call is not lost.
pub fn tools_changed() -> &'static Notify {
    static CHANGED: std::sync::OnceLock<Notify> = std::sync::OnceLock::new();
    CHANGED.get_or_init(Notify::new)
}

/// Where a server's connection stands.
#[derive(Debug, Clone)]
pub enum Link {
    /// The first connection is under way.
    Connecting,
    Up {
        peer: Peer<RoleClient>,
    },
    /// The connection dropped; `attempt` of `RECONNECT_TRIES` is due next.
    Reconnecting {
        attempt: u32,
        error: String,
    },
    /// Never connected, or every reconnect try failed.
    Down {
        error: String,
    },
    /// The bridge is closing.
    Closed,
}

/// The tools of one server as far as they are known.
#[derive(Default)]
struct Known {
    /// What the server listed; `None` until it did.
    listed: Option<Vec<RemoteTool>>,
    /// Its tools in the catalog cache, shown until it lists its own.
    cached: Vec<ToolDef>,
    /// Why the first connection failed, when it did.
    failure: Option<String>,
}

/// One configured server, shared by the bridge, its supervisor and `McpHandle`s.
struct Server {
    config: McpServerConfig,
    /// How it is held when a mini tool brings it (`McpServerConfig::confinement`).
    held: Option<ServerConfinement>,
    link: watch::Sender<Link>,
    known: Mutex<Known>,
    events: Arc<Events>,
}

impl Server {
    fn known(&self) -> std::sync::MutexGuard<'_, Known> {
        self.known
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn link(&self) -> Link {
        self.link.borrow().clone()
    }

    fn set_link(&self, link: Link) {
        self.link.send_replace(link);
    }

    /// Waits until the first connection has settled (up, failed, or the bridge closed).
    async fn settled(&self) -> Link {
        let mut rx = self.link.subscribe();
        match rx.wait_for(|l| !matches!(l, Link::Connecting)).await {
            Ok(link) => link.clone(),
            Err(_) => Link::Closed,
        }
    }
}

/// A server as `finch mcp list` and the front ends report it.
#[derive(Debug, Clone)]
pub struct ServerStatus {
    pub config: McpServerConfig,
    /// How it is held when a mini tool brings it: confined as that mini tool.
    pub held: Option<ServerConfinement>,
    /// The tools it listed; `None` when it could not be reached (or is still connecting).
    pub tools: Option<Vec<RemoteTool>>,
    /// Why it could not be reached (or why it is disconnected now).
    pub error: Option<String>,
    /// A `servers.json` entry that waits for a person's approval (`trust`).
    pub waiting: bool,
}

impl ServerStatus {
    pub fn connected(&self) -> bool {
        self.error.is_none()
    }
}

fn status_of(server: &Server) -> ServerStatus {
    let known = server.known();
    let error = match (&known.failure, server.link()) {
        (Some(e), _) => Some(e.clone()),
        (None, Link::Up { .. } | Link::Closed) => None,
        (None, Link::Connecting) => Some("still connecting".into()),
        (None, Link::Reconnecting { error, attempt }) => Some(format!(
            "disconnected ({error}); reconnecting, try {attempt} of {RECONNECT_TRIES}"
        )),
        (None, Link::Down { error }) => Some(error),
    };
    ServerStatus {
        config: server.config.clone(),
        held: server.held.clone(),
        waiting: false,
        tools: known
            .failure
            .is_none()
            .then(|| known.listed.clone())
            .flatten(),
        error,
    }
}

/// Hears of each server whose first connection failed in the background.
pub type Report = Arc<dyn Fn(&ServerStatus) + Send + Sync>;

/// How a bridge starts.
#[derive(Default)]
pub struct Options {
    /// Connect in the background, showing meanwhile each server's tools from these (the
    /// catalog cache): `start_with` returns at once. `None`: it returns once every server
    /// has connected and listed its tools, or failed.
    pub background: Option<Vec<ToolDef>>,
    /// Connect only the server of this normalized name (what `finch tool call` of one of its
    /// tools needs); every configured server when `None`.
    pub only: Option<String>,
    /// Told of every server that fails to connect in the background.
    pub report: Option<Report>,
}

/// The MCP layer of a session.
pub struct McpBridge {
    runtime: Option<tokio::runtime::Runtime>,
    servers: Vec<Arc<Server>>,
    problems: Vec<Problem>,
    /// `servers.json` entries no person approved as they are (`trust`): not started.
    waiting: Vec<McpServerConfig>,
    call_timeout: Duration,
    shutdown: watch::Sender<bool>,
    supervisors: Vec<tokio::task::JoinHandle<()>>,
    generation: Arc<AtomicU64>,
}

impl McpBridge {
    /// Resolves the servers of SPEC §9.2 (`runtime` holds the ones mini tools registered
    /// through `mcp.client`), connects to all of them at once, and lists their tools; returns
    /// once each has or failed. Servers of the user and of runtime registrations start in
    /// `cwd`. Never fails: what cannot be used is reported by `statuses` and `problems`.
    pub fn start(env: &HostEnv, cwd: &Path, runtime: Vec<McpServerConfig>) -> McpBridge {
        McpBridge::start_with(env, cwd, runtime, Options::default())
    }

    /// `start`, as `options` say (in the background, one server only).
    pub fn start_with(
        env: &HostEnv,
        cwd: &Path,
        runtime: Vec<McpServerConfig>,
        options: Options,
    ) -> McpBridge {
        let mut resolved = config::resolve(&env.homes, runtime);
        if let Some(only) = &options.only {
            resolved.servers.retain(|s| &s.normalized() == only);
            resolved.waiting.retain(|s| &s.normalized() == only);
            resolved
                .problems
                .retain(|p| p.name.as_deref().map(normalize_name).as_ref() == Some(only));
        }
        let mut bridge = McpBridge::launch(env, cwd, resolved.servers, resolved.problems, options);
        bridge.waiting = resolved.waiting;
        bridge
    }

    /// Connects to exactly these servers (`finch mcp tools` connects to one) and waits for
    /// them.
    pub fn connect(
        env: &HostEnv,
        cwd: &Path,
        servers: Vec<McpServerConfig>,
        problems: Vec<Problem>,
    ) -> McpBridge {
        McpBridge::launch(env, cwd, servers, problems, Options::default())
    }

    fn launch(
        env: &HostEnv,
        cwd: &Path,
        servers: Vec<McpServerConfig>,
        mut problems: Vec<Problem>,
        options: Options,
    ) -> McpBridge {
        let settings = env.settings.mcp;
        let (shutdown, _) = watch::channel(false);
        let mut bridge = McpBridge {
            runtime: None,
            servers: Vec::new(),
            problems: Vec::new(),
            waiting: Vec::new(),
            call_timeout: settings.call_timeout,
            shutdown,
            supervisors: Vec::new(),
            generation: Arc::new(AtomicU64::new(0)),
        };
        if servers.is_empty() {
            bridge.problems = problems;
            return bridge;
        }
        let runtime = match tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("finch-mcp")
            .enable_all()
            .build()
        {
            Ok(rt) => rt,
            Err(e) => {
                for server in &servers {
                    problems.push(Problem {
                        name: Some(server.name.clone()),
                        source: server.origin.source(),
                        message: format!("cannot start the MCP runtime: {e}"),
                    });
                }
                bridge.problems = problems;
                return bridge;
            }
        };
        let cx = Arc::new(ConnectEnv {
            env: env.env.clone(),
            homes: env.homes.clone(),
            settings: env.settings.clone(),
            node: crate::node::find_node(&env.settings, &env.env).map(|(p, _)| p),
            log_dir: env.homes.logs_dir().join("mcp"),
            cwd: cwd.to_path_buf(),
            timeout: settings.timeout,
        });
        let background = options.background.is_some();
        let cached = options.background.unwrap_or_default();
        for config in servers {
            let source = format!("mcp:{}", config.normalized());
            let held = config.confinement(&env.homes, &env.settings);
            let server = Arc::new(Server {
                held,
                known: Mutex::new(Known {
                    cached: cached
                        .iter()
                        .filter(|d| d.source == source)
                        .cloned()
                        .collect(),
                    ..Known::default()
                }),
                config,
                link: watch::Sender::new(Link::Connecting),
                events: Arc::new(Events::default()),
            });
            let supervisor = Supervisor {
                server: server.clone(),
                cx: cx.clone(),
                shutdown: bridge.shutdown.subscribe(),
                first_delay: settings.reconnect_delay,
                generation: bridge.generation.clone(),
                report: if background {
                    options.report.clone()
                } else {
                    None
                },
            };
            bridge.supervisors.push(runtime.spawn(supervisor.run()));
            bridge.servers.push(server);
        }
        if !background {
            let servers = bridge.servers.clone();
            outside_async(|| {
                runtime.block_on(async {
                    for server in &servers {
                        server.settled().await;
                    }
                })
            });
        }
        bridge.runtime = Some(runtime);
        bridge.problems = problems;
        bridge
    }

    /// Every configured server: its tools, or why it cannot be used (or that it is still
    /// connecting).
    pub fn statuses(&self) -> Vec<ServerStatus> {
        let waiting = self.waiting.iter().map(|config| ServerStatus {
            config: config.clone(),
            held: None,
            tools: None,
            error: Some(format!(
                "not started: this servers.json entry was added or changed by something other than finch, and no person approved it as it is; `finch mcp trust {}` approves it",
                config.name
            )),
            waiting: true,
        });
        self.servers
            .iter()
            .map(|s| status_of(s))
            .chain(waiting)
            .collect()
    }

    /// Entries and files that could not be used (left out, with the reason).
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    fn server_of(&self, tool: &ToolSpec) -> Option<&Arc<Server>> {
        let server = tool.def.source.strip_prefix("mcp:")?;
        self.servers
            .iter()
            .find(|s| s.config.normalized() == server)
    }
}

/// Watches one server for the bridge's lifetime: connects it, lists its tools again when it
/// says they changed, reconnects with backoff when its connection drops, and closes it when
/// the bridge closes.
struct Supervisor {
    server: Arc<Server>,
    cx: Arc<ConnectEnv>,
    shutdown: watch::Receiver<bool>,
    first_delay: Duration,
    generation: Arc<AtomicU64>,
    report: Option<Report>,
}

impl Supervisor {
    /// The tools changed: the host rebuilds its catalog, a front end that listens hears it.
    fn moved(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        tools_changed().notify_one();
    }

    /// Stores what the server listed; moves the generation when the tools differ from those
    /// shown so far (the listed ones, or before the first listing the cached ones).
    fn store(&self, tools: Vec<RemoteTool>) {
        let changed = {
            let mut known = self.server.known();
            let changed = match &known.listed {
                Some(listed) => listed != &tools,
                None => {
                    let name = self.server.config.normalized();
                    let defs: Vec<ToolDef> = tools
                        .iter()
                        .map(|t| tool_def(&self.server.config, &name, t))
                        .collect();
                    known.cached != defs
                }
            };
            known.listed = Some(tools);
            known.cached.clear();
            changed
        };
        if changed {
            self.moved();
        }
    }

    /// Connects and lists the tools, until the bridge closes (then `None`, the server's
    /// process group killed).
    async fn attempt(&mut self) -> Option<Result<(Connection, Vec<RemoteTool>), ConnectError>> {
        let pgid = AtomicI32::new(0);
        let server = self.server.clone();
        let cx = self.cx.clone();
        let work = async {
            let connection = client::connect(
                &server.config,
                server.held.as_ref(),
                &cx,
                server.events.clone(),
                &pgid,
            )
            .await?;
            match client::list_tools(connection.service.peer(), cx.timeout).await {
                Ok(tools) => Ok((connection, tools)),
                Err(e) => {
                    client::close(connection, CLOSE_GRACE).await;
                    Err(e)
                }
            }
        };
        let outcome = tokio::select! {
            outcome = work => Some(outcome),
            () = closing(&mut self.shutdown) => None,
        };
        if outcome.is_none() {
            client::kill_group(Some(pgid.load(Ordering::SeqCst)));
        }
        outcome
    }

    async fn run(mut self) {
        let mut connection = match self.attempt().await {
            None => return self.server.set_link(Link::Closed),
            Some(Err(e)) => {
                let error = e.to_string();
                {
                    let mut known = self.server.known();
                    known.failure = Some(error.clone());
                    known.cached.clear();
                }
                self.server.set_link(Link::Down { error });
                self.moved();
                if let Some(report) = &self.report {
                    report(&status_of(&self.server));
                }
                return;
            }
            Some(Ok((connection, tools))) => {
                // The tools first: whoever waits for the link reads them next.
                self.store(tools);
                self.server.set_link(Link::Up {
                    peer: connection.service.peer().clone(),
                });
                connection
            }
        };
        loop {
            let events = self.server.events.clone();
            tokio::select! {
                _ = &mut connection.closed => {}
                () = events.tools_changed.notified() => {
                    let peer = connection.service.peer().clone();
                    // A listing that fails keeps the tools as they were.
                    if let Ok(tools) = client::list_tools(&peer, self.cx.timeout).await {
                        self.store(tools);
                    }
                    continue;
                }
                () = closing(&mut self.shutdown) => {
                    self.server.set_link(Link::Closed);
                    client::close(connection, CLOSE_GRACE).await;
                    return;
                }
            }
            // The server went away: whatever it started goes with it.
            client::kill_group(connection.pgid);
            match self.reconnect().await {
                Some(c) => connection = c,
                None => return,
            }
        }
    }

    /// Reconnects after the connection dropped: `None` once every try failed (the link is
    /// then down) or the bridge closed.
    async fn reconnect(&mut self) -> Option<Connection> {
        let mut error = "the server closed the connection".to_string();
        let mut delay = self.first_delay;
        for attempt in 1..=RECONNECT_TRIES {
            self.server.set_link(Link::Reconnecting {
                attempt,
                error: error.clone(),
            });
            tokio::select! {
                _ = tokio::time::sleep(delay) => {}
                () = closing(&mut self.shutdown) => {
                    self.server.set_link(Link::Closed);
                    return None;
                }
            }
            match self.attempt().await {
                None => {
                    self.server.set_link(Link::Closed);
                    return None;
                }
                Some(Ok((connection, tools))) => {
                    // A server that came back may offer other tools than before.
                    self.store(tools);
                    self.server.set_link(Link::Up {
                        peer: connection.service.peer().clone(),
                    });
                    return Some(connection);
                }
                Some(Err(e)) => error = e.to_string(),
            }
            delay = (delay * 2).min(RECONNECT_MAX_DELAY);
        }
        self.server.set_link(Link::Down {
            error: format!(
                "the connection closed and {RECONNECT_TRIES} reconnect tries failed; the last: {error}"
            ),
        });
        None
    }
}

/// A handle on a running bridge for the `mcp.client` capability of the mini tool runtime,
/// which runs on other threads than the host's and cannot borrow the bridge (the host owns it
/// as one of its providers). It shares the bridge's servers — their links and the tools they
/// listed, as they change — and runs calls on the bridge's tokio runtime without blocking the
/// caller: the answer goes to a callback (a call of a server still connecting waits for it).
/// Once the bridge is dropped, every link is closed and a call answers that the bridge closed.
/// Registrations made after the bridge started are not in it: they connect when the host
/// reloads.
#[derive(Clone)]
pub struct McpHandle {
    runtime: Option<tokio::runtime::Handle>,
    servers: Arc<Vec<Arc<Server>>>,
    call_timeout: Duration,
}

/// Calls the wrapped callback once: with the answer, or — when the task is dropped unanswered
/// (the bridge's runtime shut down) — with an error saying so.
struct Answer<F: FnOnce(Result<Value, String>)>(Option<F>);

impl<F: FnOnce(Result<Value, String>)> Answer<F> {
    fn send(mut self, result: Result<Value, String>) {
        if let Some(f) = self.0.take() {
            f(result);
        }
    }
}

impl<F: FnOnce(Result<Value, String>)> Drop for Answer<F> {
    fn drop(&mut self) {
        if let Some(f) = self.0.take() {
            f(Err("the MCP bridge closed before the call finished".into()));
        }
    }
}

impl McpBridge {
    /// The handle `mcp.client` uses (see `McpHandle`).
    pub fn handle(&self) -> McpHandle {
        McpHandle {
            runtime: self.runtime.as_ref().map(|r| r.handle().clone()),
            servers: Arc::new(self.servers.clone()),
            call_timeout: self.call_timeout,
        }
    }
}

impl McpHandle {
    /// The names of the servers the bridge knows, as configured.
    pub fn server_names(&self) -> Vec<String> {
        self.servers.iter().map(|s| s.config.name.clone()).collect()
    }

    /// One line per server, in the shape of the official MCP Client's `getServerStatuses`:
    /// `{name, status, toolCount, ownerExtensionId?, qualifiedName, error?}`; `status` is
    /// `connecting`, `connected`, `reconnecting`, `failed` or `closed`.
    pub fn statuses(&self) -> Vec<Value> {
        self.servers
            .iter()
            .map(|s| {
                let (failure, count) = {
                    let known = s.known();
                    let count = known.listed.as_ref().map_or(known.cached.len(), Vec::len);
                    (known.failure.clone(), count)
                };
                let (status, error) = match (failure, s.link()) {
                    (Some(e), _) => ("failed", Some(e)),
                    (None, Link::Connecting) => ("connecting", None),
                    (None, Link::Up { .. }) => ("connected", None),
                    (None, Link::Reconnecting { error, .. }) => ("reconnecting", Some(error)),
                    (None, Link::Down { error }) => ("failed", Some(error)),
                    (None, Link::Closed) => ("closed", None),
                };
                let mut line = serde_json::json!({
                    "name": s.config.name,
                    "status": status,
                    "toolCount": count,
                    "qualifiedName": s.config.normalized(),
                });
                if let Some(owner) = s.config.origin.minitool() {
                    line["ownerExtensionId"] = Value::String(owner.to_string());
                }
                if let Some(error) = error {
                    line["error"] = Value::String(error);
                }
                line
            })
            .collect()
    }

    fn server(&self, name: &str) -> Result<&Arc<Server>, String> {
        let normalized = normalize_name(name);
        self.servers
            .iter()
            .find(|s| s.config.name == name || s.config.normalized() == normalized)
            .ok_or_else(|| {
                format!(
                    "no MCP server named \"{name}\" is connected in this run (a server registered after the host started connects when it reloads: `finch reload` or /reload); `finch mcp list` shows them"
                )
            })
    }

    /// The tools a server listed: `{name, title, description, inputSchema}`.
    pub fn list_tools(&self, server: &str) -> Result<Vec<Value>, String> {
        let s = self.server(server)?;
        let known = s.known();
        if let Some(e) = &known.failure {
            return Err(format!(
                "MCP server \"{}\" is not connected: {e}",
                s.config.name
            ));
        }
        let Some(tools) = &known.listed else {
            return Err(format!(
                "MCP server \"{}\" is still connecting; list its tools again in a moment",
                s.config.name
            ));
        };
        Ok(tools
            .iter()
            .map(|t| {
                serde_json::json!({
                    "name": t.name,
                    "title": t.title.clone().unwrap_or_else(|| t.name.clone()),
                    "description": t.description,
                    "inputSchema": t.input_schema,
                })
            })
            .collect())
    }

    /// Whether `server` is connected now (the answer of `connectServer`).
    pub fn connected(&self, server: &str) -> Result<bool, String> {
        let s = self.server(server)?;
        Ok(s.known().failure.is_none() && matches!(s.link(), Link::Up { .. }))
    }

    /// Calls `tool` of `server` on the bridge's runtime (once the server connected, when it is
    /// still connecting); `done` gets the `tools/call` result (`{content, isError?,
    /// structuredContent?}`) or why there is none.
    pub fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: Map<String, Value>,
        done: impl FnOnce(Result<Value, String>) + Send + 'static,
    ) {
        let answer = Answer(Some(done));
        let s = match self.server(server) {
            Ok(s) => s.clone(),
            Err(e) => return answer.send(Err(e)),
        };
        let Some(runtime) = &self.runtime else {
            return answer.send(Err("the MCP bridge is not running".into()));
        };
        let (tool, timeout) = (tool.to_string(), self.call_timeout);
        runtime.spawn(async move {
            let name = s.config.name.clone();
            let link = s.settled().await;
            if let Some(error) = s.known().failure.clone() {
                return answer.send(Err(format!(
                    "MCP server \"{name}\" is not connected: {error}"
                )));
            }
            let peer = match link {
                Link::Up { peer } => peer,
                Link::Down { error } => {
                    return answer.send(Err(format!(
                        "MCP server \"{name}\" is not connected: {error}"
                    )));
                }
                Link::Reconnecting { error, .. } => {
                    return answer.send(Err(format!(
                        "MCP server \"{name}\" is disconnected ({error}); finch is reconnecting"
                    )));
                }
                Link::Closed | Link::Connecting => {
                    return answer.send(Err("the MCP bridge is closed".into()));
                }
            };
            let result = client::call_tool(
                &peer,
                &s.events,
                &tool,
                arguments,
                timeout,
                std::future::pending(),
                &mut |_| {},
            )
            .await;
            answer.send(result.map_err(|e| match e {
                CallError::Closed => {
                    format!("MCP server \"{name}\" closed the connection during the call of {tool}")
                }
                other => format!("MCP server \"{name}\", tool {tool}: {other}"),
            }));
        });
    }
}

/// Resolves once the bridge closes (the value's guard is not `Send`: it must not live across
/// an await of a task).
async fn closing(shutdown: &mut watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|closing| *closing).await;
}

impl Drop for McpBridge {
    fn drop(&mut self) {
        let Some(runtime) = self.runtime.take() else {
            return;
        };
        self.shutdown.send_replace(true);
        let supervisors = std::mem::take(&mut self.supervisors);
        outside_async(move || {
            runtime.block_on(async {
                let all = async {
                    for task in supervisors {
                        let _ = task.await;
                    }
                };
                // Each closes within its grace; this bounds the whole even if one does not.
                let _ = tokio::time::timeout(CLOSE_GRACE * 2, all).await;
            });
            runtime.shutdown_background();
        });
    }
}

/// Runs `work`, which blocks on (or drops) the bridge's runtime, on this thread — or, when this
/// thread is itself driving a tokio runtime (where blocking would panic), on a scoped thread of
/// its own. `None` when that thread panicked.
fn outside_async<T: Send>(work: impl FnOnce() -> T + Send) -> Option<T> {
    if tokio::runtime::Handle::try_current().is_err() {
        return Some(work());
    }
    std::thread::scope(|s| s.spawn(work).join().ok())
}

impl Provider for McpBridge {
    fn defs(&self) -> Vec<ToolDef> {
        let mut defs = Vec::new();
        for server in &self.servers {
            let name = server.config.normalized();
            let known = server.known();
            match &known.listed {
                Some(tools) => {
                    defs.extend(tools.iter().map(|t| tool_def(&server.config, &name, t)));
                }
                None => defs.extend(known.cached.iter().cloned()),
            }
        }
        defs
    }

    fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// Servers still making their first connection with no cached tools standing in.
    fn starting(&self) -> Vec<String> {
        self.servers
            .iter()
            .filter(|s| {
                let known = s.known();
                known.listed.is_none()
                    && known.failure.is_none()
                    && known.cached.is_empty()
                    && matches!(s.link(), Link::Connecting | Link::Up { .. })
            })
            .map(|s| format!("mcp:{}", s.config.normalized()))
            .collect()
    }

    fn await_started(&self, deadline: std::time::Instant) {
        while !self.starting().is_empty() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn call(&mut self, tool: &ToolSpec, args: Value, cx: &mut CallCx) -> ToolOutput {
        let started = self.start(tool, args, cx);
        started.run_here(cx.cancel, cx.progress, cx.prompter)
    }

    /// A call is a job: it needs the server's session and the bridge's runtime, nothing of
    /// the host, so `--serve mcp` runs it side by side with other calls. A server whose tools
    /// changed meanwhile moves `generation`, which the host looks at when the call ends.
    fn start(&mut self, tool: &ToolSpec, args: Value, _cx: &mut CallCx) -> Started {
        let (Some(runtime), Some(server)) = (&self.runtime, self.server_of(tool)) else {
            return Started::Done(ToolOutput::error(format!(
                "`{}` belongs to an MCP server this session is not connected to.",
                tool.name
            )));
        };
        let runtime = runtime.handle().clone();
        let server = Arc::clone(server);
        let name = tool.name.clone();
        let raw = tool.def.raw_name.clone();
        let timeout = self.call_timeout;
        Started::Job(Box::new(move |job: &JobCx| {
            call_server(&runtime, &server, &name, &raw, args, timeout, job)
        }))
    }
}

/// One `tools/call` of `raw` (model-facing `name`) on `server`, run by the bridge's runtime
/// from the calling thread.
fn call_server(
    runtime: &tokio::runtime::Handle,
    server: &Server,
    name: &str,
    raw: &str,
    args: Value,
    timeout: Duration,
    job: &JobCx,
) -> ToolOutput {
    // One wake-up for the whole call: set when the caller cancels it.
    let stop = Arc::new(Notify::new());
    let wake = stop.clone();
    job.cancel.on_cancel(move || wake.notify_one());
    let progress = job.progress;
    let arguments = match args {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let work = async {
        // A server still connecting is waited for (its connection is bounded by its
        // timeout), unless the caller gives up first.
        let link = tokio::select! {
            link = server.settled() => link,
            () = stop.notified() => return Err(CallError::Cancelled),
        };
        let peer = match link {
            Link::Up { peer } => peer,
            other => return Ok(Err(other)),
        };
        let mut forward = |update: cancel::Progress| progress(update);
        client::call_tool(
            &peer,
            &server.events,
            raw,
            arguments,
            timeout,
            stop.notified(),
            &mut forward,
        )
        .await
        .map(Ok)
    };
    let outcome = outside_async(|| runtime.block_on(work));
    let server_name = &server.config.name;
    let Some(outcome) = outcome else {
        return ToolOutput::error(format!(
            "MCP server `{server_name}`, tool `{raw}`: the call failed inside finch"
        ));
    };
    match outcome {
        Ok(Ok(result)) => explained(server, output_from_result(&result)),
        Ok(Err(Link::Reconnecting { attempt, error })) => ToolOutput::error(format!(
            "`{name}` was not run: MCP server `{server_name}` is disconnected ({error}); finch is reconnecting (try {attempt} of {RECONNECT_TRIES}). Try again in a few seconds."
        )),
        Ok(Err(Link::Down { error })) => ToolOutput::error(format!(
            "`{name}` was not run: MCP server `{server_name}` is not connected: {error}. Check it with `finch mcp list`."
        )),
        Ok(Err(_)) => ToolOutput::error(format!("`{name}` was not run: the session is closing.")),
        Err(CallError::Cancelled) => cancel::cancelled_output(name),
        Err(CallError::Closed) => ToolOutput::error(format!(
            "MCP server `{server_name}` closed the connection during the call of `{name}`; finch is reconnecting. Try again in a few seconds."
        )),
        Err(e) => ToolOutput::error(format!("MCP server `{server_name}`, tool `{raw}`: {e}")),
    }
}

/// A failed call of a server a mini tool brings, led by the declaration it ran into when its
/// text shows a kernel refusal (`minitool::confine::Held`).
fn explained(server: &Server, mut output: ToolOutput) -> ToolOutput {
    let held = server.held.as_ref().and_then(ServerConfinement::held);
    if let (true, Some(held)) = (output.is_error, held)
        && let Some(blocked) = held.blocked_by(&output.text_content())
    {
        output.content.insert(0, Content::Text(blocked));
    }
    output
}

/// The catalog entry of one server tool.
fn tool_def(config: &McpServerConfig, server: &str, tool: &RemoteTool) -> ToolDef {
    ToolDef {
        raw_name: tool.name.clone(),
        wanted_name: naming::mcp_tool(server, &tool.name),
        title: tool.title.clone().unwrap_or_else(|| tool.name.clone()),
        description: tool.description.clone(),
        layer: Layer::Mcp,
        source: format!("mcp:{server}"),
        owner: Some(config.owner()),
        // A server's hints are its own claims: one that says destructive is shown as high
        // risk; one that says read-only lowers nothing.
        risk: tool.destructive.then_some(Risk::High),
        input_schema: tool.input_schema.clone(),
        exposure: Exposure::Dynamic,
        keywords: String::new(),
        annotations: tool.annotations.clone(),
    }
}

/// A `tools/call` result (`content`, `structuredContent`, `isError`) as a tool output: text
/// and images as they are; every other block — an embedded resource (with its URI), a
/// resource link, audio — and any block with `annotations` kept whole as the server sent it
/// (`Content::Block`), so `tool call` and `--jsonl` show what the server said.
pub fn output_from_result(result: &Value) -> ToolOutput {
    let mut content = Vec::new();
    for block in result
        .get("content")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
    {
        let text = |k: &str| block.get(k).and_then(Value::as_str);
        let plain = block.get("annotations").is_none_or(Value::is_null)
            && block.get("_meta").is_none_or(Value::is_null);
        match (block.get("type").and_then(Value::as_str), plain) {
            (Some("text"), true) if text("text").is_some() => {
                content.push(Content::Text(text("text").unwrap_or_default().to_string()));
            }
            (Some("image"), true) if text("data").is_some() => content.push(Content::Image {
                data: text("data").unwrap_or_default().to_string(),
                mime_type: text("mimeType").unwrap_or_default().to_string(),
            }),
            (Some(_), _) => content.push(Content::Block(block.clone())),
            (None, _) => {}
        }
    }
    ToolOutput {
        content,
        structured: result.get("structuredContent").cloned(),
        is_error: result
            .get("isError")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_map_to_outputs() {
        let annotated = json!({"type": "text", "text": "for you", "annotations": {"audience": ["user"], "priority": 0.9}});
        let resource = json!({"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "inside"}});
        let blob = json!({"type": "resource", "resource": {"uri": "file:///b.bin", "mimeType": "application/zip", "blob": "QUJD"}});
        let link = json!({"type": "resource_link", "uri": "file:///c", "name": "c"});
        let audio = json!({"type": "audio", "data": "AAAAAA", "mimeType": "audio/wav"});
        let out = output_from_result(&json!({
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                annotated, resource, blob, link, audio,
            ],
            "structuredContent": {"n": 1},
            "isError": true,
        }));
        assert_eq!(
            out.content,
            vec![
                Content::Text("hi".into()),
                Content::Image {
                    data: "AAAA".into(),
                    mime_type: "image/png".into()
                },
                Content::Block(annotated),
                Content::Block(resource),
                Content::Block(blob),
                Content::Block(link),
                Content::Block(audio),
            ]
        );
        let shown: Vec<String> = out.content.iter().map(Content::display).collect();
        assert_eq!(
            shown[2..],
            [
                "for you",
                "inside",
                "[resource file:///b.bin: application/zip, 4 bytes base64]",
                "[resource link: c file:///c]",
                "[audio: audio/wav, 6 bytes base64]",
            ]
        );
        assert_eq!(out.text_content(), "hi\nfor you\ninside");
        assert_eq!(out.structured, Some(json!({"n": 1})));
        assert!(out.is_error);
        let empty = output_from_result(&json!({}));
        assert!(empty.content.is_empty() && !empty.is_error);
    }

    #[test]
    fn tools_are_dynamic_and_owned() {
        let user =
            McpServerConfig::from_json(&json!({"name": "My-Server", "command": "x"}), Origin::User)
                .unwrap();
        let tool = RemoteTool {
            name: "do it".into(),
            title: None,
            description: "d".into(),
            input_schema: json!({"type": "object"}),
            destructive: true,
            annotations: None,
        };
        let def = tool_def(&user, &user.normalized(), &tool);
        assert_eq!(def.wanted_name, "mcp__my_server__do_it");
        assert_eq!(def.source, "mcp:my_server");
        assert_eq!(def.owner.as_deref(), Some("My-Server"));
        assert_eq!(
            (def.exposure, def.layer, def.risk),
            (Exposure::Dynamic, Layer::Mcp, Some(Risk::High))
        );
        let contributed = McpServerConfig {
            origin: Origin::MiniTool {
                id: "acme".into(),
                dir: "/x".into(),
            },
            ..user
        };
        assert_eq!(
            tool_def(&contributed, "my_server", &tool).owner.as_deref(),
            Some("acme")
        );
    }

    /// Against the Python `mcp` 2.3 test server (tests/peers/test_server.py, from
    /// scripts/install-test-peers): the host calls a bridged tool as a front end does.
    mod live {
        use std::sync::Mutex;
        use std::time::{Duration, Instant};

        use super::super::*;
        use crate::env::Env;
        use crate::homes::{AgentHomeSource, Homes};
        use crate::host::policy::{Mode, Rules};
        use crate::host::prompt::Nobody;
        use crate::host::session::SessionState;
        use crate::host::{Failure, Host};
        use serde_json::json;

        /// The Python that has the SDK, by its absolute path (servers get a bare environment).
        fn python() -> String {
            let program = std::env::var("FINCH_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
            let out = std::process::Command::new(&program)
                .args([
                    "-c",
                    "import sys; from mcp.server.mcpserver import MCPServer; print(sys.executable)",
                ])
                .output()
                .expect("python3 runs");
            assert!(
                out.status.success(),
                "{program} lacks the mcp SDK: run scripts/install-test-peers"
            );
            String::from_utf8_lossy(&out.stdout).trim().to_string()
        }

        /// A host whose one provider is a bridge to the test server, `tool` active and
        /// approved.
        fn host(dir: &Path, tool: &str) -> Host {
            let homes = Homes {
                runtime: dir.join("rt"),
                agent: dir.join("ag"),
                agent_source: AgentHomeSource::Flag,
            };
            let settings = crate::config::Config::default()
                .settings(&dir.join("finch.toml"))
                .expect("settings");
            let env = HostEnv {
                homes,
                settings,
                env: Env::default(),
                fixed_now: None,
                embed_resources: false,
            };
            let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/test_server.py");
            let server = McpServerConfig::from_json(
                &json!({"name": "py", "command": python(), "args": [script]}),
                Origin::User,
            )
            .expect("entry");
            let bridge = McpBridge::connect(&env, dir, vec![server], Vec::new());
            assert!(bridge.statuses()[0].connected(), "{:?}", bridge.statuses());
            let mut session =
                SessionState::detached(dir.to_path_buf(), dir.to_path_buf(), Mode::Ask, None);
            session.active.insert(tool.to_string());
            session.approve = vec![tool.to_string()];
            Host::new(
                env,
                vec![Box::new(bridge)],
                Rules::default(),
                session,
                Box::new(Nobody),
            )
        }

        fn wait_for_file(path: &Path, content: &str) {
            let deadline = Instant::now() + Duration::from_secs(30);
            while std::fs::read_to_string(path).ok().as_deref() != Some(content) {
                assert!(
                    Instant::now() < deadline,
                    "{} never said {content}",
                    path.display()
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }

        #[test]
        fn a_cancelled_call_is_cancelled_upstream_and_ends_at_once() {
            let dir = tempfile::tempdir().expect("temp dir");
            let mut host = host(dir.path(), "mcp__py__linger");
            let marker = dir.path().join("linger");
            let token = cancel::Cancel::new();
            let (stop, seen) = (token.clone(), marker.clone());
            let canceller = std::thread::spawn(move || {
                wait_for_file(&seen, "started");
                stop.cancel();
            });
            let record = host.call_with(
                "mcp__py__linger",
                json!({"marker": marker}),
                &token,
                &cancel::no_progress,
            );
            canceller.join().expect("the canceller");
            assert_eq!(record.failure, Some(Failure::Cancelled), "{record:?}");
            assert_eq!(record.output, cancel::cancelled_output("mcp__py__linger"));
            // The server heard `notifications/cancelled` and stopped the tool (a minute early).
            wait_for_file(&marker, "cancelled");
        }

        #[test]
        fn server_progress_reaches_the_call_progress_sink() {
            let dir = tempfile::tempdir().expect("temp dir");
            let mut host = host(dir.path(), "mcp__py__count");
            let updates = Mutex::new(Vec::new());
            let sink = |p: cancel::Progress| updates.lock().expect("lock").push(p);
            let record = host.call_with(
                "mcp__py__count",
                json!({"steps": 3}),
                &cancel::Cancel::new(),
                &sink,
            );
            assert_eq!(record.output.text_content(), "counted to 3", "{record:?}");
            let updates = updates.into_inner().expect("lock");
            assert_eq!(
                updates,
                (1..=3)
                    .map(|i| cancel::Progress {
                        progress: f64::from(i),
                        total: Some(3.0),
                        message: Some(format!("step {i}")),
                    })
                    .collect::<Vec<_>>()
            );
        }
    }
}
