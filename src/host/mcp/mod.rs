//! The MCP bridge of SPEC §9.2 as a host `Provider`: every tool of every configured MCP server
//! becomes `mcp__<server>__<tool>` in the catalog — layer `mcp`, always dynamic, source
//! `mcp:<server>`, owned by the mini tool that contributed or registered the server, or (a
//! server of the user's own `servers.json`) by the server itself, under its name — and a call
//! is forwarded as `tools/call`.
//!
//! The Provider API is synchronous and rmcp is async, so the bridge owns a tokio runtime (one
//! worker thread, created only when a server is configured): the host thread blocks on calls
//! while the worker keeps every session alive between them. All servers are connected at once
//! when the bridge starts, each bounded by `[mcp] timeout` (20 s), so a slow server delays the
//! start by its own timeout, not by the sum.
//!
//! A server that fails to connect never breaks the host: it is reported (`statuses`) and its
//! tools are absent. A server whose connection drops later is reconnected in the background,
//! after 2 s, then doubling up to 30 s, at most 5 tries; its tools stay in the catalog (as first
//! listed) and a call meanwhile returns an error that says so. Dropping the bridge closes every
//! session and kills what is left of each stdio server's process group.
//!
//! `McpHandle` shares a running bridge with the mini tool runtime, whose `mcp.client`
//! capability lists its servers and tools and calls them (the runtime's threads cannot borrow
//! the bridge, which the host owns as a provider).
//!
//! This module never prints: the front ends report `statuses` and `problems`.

pub mod client;
pub mod config;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::service::{Peer, RoleClient};
use serde_json::{Map, Value};
use tokio::sync::watch;

use super::catalog::{Exposure, ToolDef, ToolSpec};
use super::output::{Content, ToolOutput};
use super::tool::{Layer, Risk};
use super::{CallCx, HostEnv, Provider, naming};
use client::{CallError, ConnectEnv, ConnectError, Connection, RemoteTool};
pub use config::{McpServerConfig, Origin, Problem, Transport, normalize_name};

/// Reconnect tries after a connection drops.
pub const RECONNECT_TRIES: u32 = 5;
/// The longest wait between two reconnect tries.
pub const RECONNECT_MAX_DELAY: Duration = Duration::from_secs(30);
/// How long a closing session may take before its server is killed.
const CLOSE_GRACE: Duration = Duration::from_millis(1500);

/// Where a server's connection stands.
#[derive(Debug, Clone)]
pub enum Link {
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

/// One configured server and its tools.
struct Slot {
    config: McpServerConfig,
    tools: Vec<RemoteTool>,
    link: Arc<Mutex<Link>>,
    /// Why the first connection failed, when it did.
    failure: Option<String>,
}

/// A server as `finch mcp list` and the front ends report it.
#[derive(Debug, Clone)]
pub struct ServerStatus {
    pub config: McpServerConfig,
    /// The tools it listed; `None` when it could not be reached.
    pub tools: Option<Vec<RemoteTool>>,
    /// Why it could not be reached (or why it is disconnected now).
    pub error: Option<String>,
}

impl ServerStatus {
    pub fn connected(&self) -> bool {
        self.error.is_none()
    }
}

/// The MCP layer of a session.
pub struct McpBridge {
    runtime: Option<tokio::runtime::Runtime>,
    slots: Vec<Slot>,
    problems: Vec<Problem>,
    call_timeout: Duration,
    shutdown: watch::Sender<bool>,
    supervisors: Vec<tokio::task::JoinHandle<()>>,
}

impl McpBridge {
    /// Resolves the servers of SPEC §9.2 (`runtime` holds the ones mini tools registered
    /// through `mcp.client`), connects to all of them at once, and lists their tools. Servers
    /// of the user and of runtime registrations start in `cwd`. Never fails: what cannot be
    /// used is reported by `statuses` and `problems`.
    pub fn start(env: &HostEnv, cwd: &Path, runtime: Vec<McpServerConfig>) -> McpBridge {
        let resolved = config::resolve(&env.homes, runtime);
        McpBridge::connect(env, cwd, resolved.servers, resolved.problems)
    }

    /// Connects to exactly these servers (`finch mcp tools` connects to one).
    pub fn connect(
        env: &HostEnv,
        cwd: &Path,
        servers: Vec<McpServerConfig>,
        mut problems: Vec<Problem>,
    ) -> McpBridge {
        let settings = env.settings.mcp;
        let (shutdown, _) = watch::channel(false);
        let mut bridge = McpBridge {
            runtime: None,
            slots: Vec::new(),
            problems: Vec::new(),
            call_timeout: settings.call_timeout,
            shutdown,
            supervisors: Vec::new(),
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
            node: crate::node::find_node(&env.settings, &env.env).map(|(p, _)| p),
            log_dir: env.homes.logs_dir().join("mcp"),
            cwd: cwd.to_path_buf(),
            timeout: settings.timeout,
        });
        let pending: Vec<_> = servers
            .iter()
            .map(|server| {
                let (server, cx) = (server.clone(), cx.clone());
                runtime.spawn(async move { connect_and_list(&server, &cx).await })
            })
            .collect();
        for (server, task) in servers.into_iter().zip(pending) {
            let outcome = match outside_async(|| runtime.block_on(task)) {
                Some(Ok(outcome)) => outcome,
                Some(Err(e)) => Err(ConnectError::Failed {
                    stage: "connecting",
                    message: e.to_string(),
                    tail: client::Tail::default(),
                }),
                None => Err(ConnectError::Failed {
                    stage: "connecting",
                    message: "the connecting thread failed".into(),
                    tail: client::Tail::default(),
                }),
            };
            let slot = match outcome {
                Ok((connection, tools)) => {
                    let link = Arc::new(Mutex::new(Link::Up {
                        peer: connection.service.peer().clone(),
                    }));
                    bridge.supervisors.push(runtime.spawn(supervise(
                        server.clone(),
                        cx.clone(),
                        link.clone(),
                        connection,
                        bridge.shutdown.subscribe(),
                        settings.reconnect_delay,
                    )));
                    Slot {
                        config: server,
                        tools,
                        link,
                        failure: None,
                    }
                }
                Err(e) => {
                    let error = e.to_string();
                    Slot {
                        config: server,
                        tools: Vec::new(),
                        link: Arc::new(Mutex::new(Link::Down {
                            error: error.clone(),
                        })),
                        failure: Some(error),
                    }
                }
            };
            bridge.slots.push(slot);
        }
        bridge.runtime = Some(runtime);
        bridge.problems = problems;
        bridge
    }

    /// Every configured server: its tools, or why it cannot be used.
    pub fn statuses(&self) -> Vec<ServerStatus> {
        self.slots
            .iter()
            .map(|slot| {
                let error = match (&slot.failure, link_of(slot)) {
                    (Some(e), _) => Some(e.clone()),
                    (None, Link::Up { .. } | Link::Closed) => None,
                    (None, Link::Reconnecting { error, attempt }) => Some(format!(
                        "disconnected ({error}); reconnecting, try {attempt} of {RECONNECT_TRIES}"
                    )),
                    (None, Link::Down { error }) => Some(error),
                };
                ServerStatus {
                    config: slot.config.clone(),
                    tools: slot.failure.is_none().then(|| slot.tools.clone()),
                    error,
                }
            })
            .collect()
    }

    /// Entries and files that could not be used (left out, with the reason).
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    fn slot_of(&self, tool: &ToolSpec) -> Option<&Slot> {
        let server = tool.def.source.strip_prefix("mcp:")?;
        self.slots.iter().find(|s| s.config.normalized() == server)
    }
}

/// A handle on a running bridge for the `mcp.client` capability of the mini tool runtime,
/// which runs on other threads than the host's and cannot borrow the bridge (the host owns it
/// as one of its providers). It shares the bridge's connections (their links) and the tools
/// they listed, and runs calls on the bridge's tokio runtime without blocking the caller: the
/// answer goes to a callback. Once the bridge is dropped, every link is closed and a call
/// answers that the bridge closed. Registrations made after the bridge started are not in it:
/// they connect when the host reloads.
#[derive(Clone)]
pub struct McpHandle {
    runtime: Option<tokio::runtime::Handle>,
    servers: Arc<Vec<SharedServer>>,
    call_timeout: Duration,
}

struct SharedServer {
    config: McpServerConfig,
    tools: Vec<RemoteTool>,
    link: Arc<Mutex<Link>>,
    failure: Option<String>,
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
            servers: Arc::new(
                self.slots
                    .iter()
                    .map(|s| SharedServer {
                        config: s.config.clone(),
                        tools: s.tools.clone(),
                        link: s.link.clone(),
                        failure: s.failure.clone(),
                    })
                    .collect(),
            ),
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
    /// `connected`, `reconnecting`, `failed` or `closed`.
    pub fn statuses(&self) -> Vec<Value> {
        self.servers
            .iter()
            .map(|s| {
                let (status, error) = match (&s.failure, lock_link(&s.link)) {
                    (Some(e), _) => ("failed", Some(e.clone())),
                    (None, Link::Up { .. }) => ("connected", None),
                    (None, Link::Reconnecting { error, .. }) => ("reconnecting", Some(error)),
                    (None, Link::Down { error }) => ("failed", Some(error)),
                    (None, Link::Closed) => ("closed", None),
                };
                let mut line = serde_json::json!({
                    "name": s.config.name,
                    "status": status,
                    "toolCount": s.tools.len(),
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

    fn server(&self, name: &str) -> Result<&SharedServer, String> {
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
        if let Some(e) = &s.failure {
            return Err(format!(
                "MCP server \"{}\" is not connected: {e}",
                s.config.name
            ));
        }
        Ok(s.tools
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
        Ok(s.failure.is_none() && matches!(lock_link(&s.link), Link::Up { .. }))
    }

    /// Calls `tool` of `server` on the bridge's runtime; `done` gets the `tools/call` result
    /// (`{content, isError?, structuredContent?}`) or why there is none.
    pub fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: Map<String, Value>,
        done: impl FnOnce(Result<Value, String>) + Send + 'static,
    ) {
        let answer = Answer(Some(done));
        let s = match self.server(server) {
            Ok(s) => s,
            Err(e) => return answer.send(Err(e)),
        };
        let name = s.config.name.clone();
        let peer = match lock_link(&s.link) {
            Link::Up { peer } if s.failure.is_none() => peer,
            Link::Down { error } => {
                let error = s.failure.clone().unwrap_or(error);
                return answer.send(Err(format!(
                    "MCP server \"{name}\" is not connected: {error}"
                )));
            }
            Link::Up { .. } => {
                let error = s.failure.clone().unwrap_or_default();
                return answer.send(Err(format!(
                    "MCP server \"{name}\" is not connected: {error}"
                )));
            }
            Link::Reconnecting { error, .. } => {
                return answer.send(Err(format!(
                    "MCP server \"{name}\" is disconnected ({error}); finch is reconnecting"
                )));
            }
            Link::Closed => {
                return answer.send(Err("the MCP bridge is closed".into()));
            }
        };
        let Some(runtime) = &self.runtime else {
            return answer.send(Err("the MCP bridge is not running".into()));
        };
        let (tool, timeout) = (tool.to_string(), self.call_timeout);
        runtime.spawn(async move {
            let result = client::call_tool(&peer, &tool, arguments, timeout).await;
            answer.send(result.map_err(|e| match e {
                CallError::Closed => {
                    format!("MCP server \"{name}\" closed the connection during the call of {tool}")
                }
                other => format!("MCP server \"{name}\", tool {tool}: {other}"),
            }));
        });
    }
}

fn lock_link(link: &Mutex<Link>) -> Link {
    link.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
}

fn link_of(slot: &Slot) -> Link {
    slot.link
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
}

fn set_link(link: &Mutex<Link>, value: Link) {
    *link
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = value;
}

/// Connects and lists the tools; a server whose listing fails is closed again.
async fn connect_and_list(
    server: &McpServerConfig,
    cx: &ConnectEnv,
) -> Result<(Connection, Vec<RemoteTool>), ConnectError> {
    let connection = client::connect(server, cx).await?;
    match client::list_tools(connection.service.peer(), cx.timeout).await {
        Ok(tools) => Ok((connection, tools)),
        Err(e) => {
            client::close(connection, CLOSE_GRACE).await;
            Err(e)
        }
    }
}

/// Watches one connection for the bridge's lifetime: when it drops, reconnects with backoff;
/// when the bridge closes, closes it.
async fn supervise(
    server: McpServerConfig,
    cx: Arc<ConnectEnv>,
    link: Arc<Mutex<Link>>,
    mut connection: Connection,
    mut shutdown: watch::Receiver<bool>,
    first_delay: Duration,
) {
    loop {
        tokio::select! {
            _ = &mut connection.closed => {}
            () = closing(&mut shutdown) => {
                set_link(&link, Link::Closed);
                client::close(connection, CLOSE_GRACE).await;
                return;
            }
        }
        // The server went away: whatever it started goes with it.
        client::kill_group(connection.pgid);
        let mut error = "the server closed the connection".to_string();
        let mut delay = first_delay;
        let mut next = None;
        for attempt in 1..=RECONNECT_TRIES {
            set_link(
                &link,
                Link::Reconnecting {
                    attempt,
                    error: error.clone(),
                },
            );
            tokio::select! {
                _ = tokio::time::sleep(delay) => {}
                () = closing(&mut shutdown) => {
                    set_link(&link, Link::Closed);
                    return;
                }
            }
            let attempt_result = tokio::select! {
                r = client::connect(&server, &cx) => r,
                () = closing(&mut shutdown) => {
                    set_link(&link, Link::Closed);
                    return;
                }
            };
            match attempt_result {
                Ok(c) => {
                    next = Some(c);
                    break;
                }
                Err(e) => error = e.to_string(),
            }
            delay = (delay * 2).min(RECONNECT_MAX_DELAY);
        }
        match next {
            Some(c) => {
                set_link(
                    &link,
                    Link::Up {
                        peer: c.service.peer().clone(),
                    },
                );
                connection = c;
            }
            None => {
                set_link(
                    &link,
                    Link::Down {
                        error: format!(
                            "the connection closed and {RECONNECT_TRIES} reconnect tries failed; the last: {error}"
                        ),
                    },
                );
                return;
            }
        }
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
        for slot in &self.slots {
            let server = slot.config.normalized();
            for tool in &slot.tools {
                defs.push(tool_def(&slot.config, &server, tool));
            }
        }
        defs
    }

    fn call(&mut self, tool: &ToolSpec, args: Value, _cx: &mut CallCx) -> ToolOutput {
        let (Some(runtime), Some(slot)) = (&self.runtime, self.slot_of(tool)) else {
            return ToolOutput::error(format!(
                "`{}` belongs to an MCP server this session is not connected to.",
                tool.name
            ));
        };
        let name = &slot.config.name;
        let peer = match link_of(slot) {
            Link::Up { peer } => peer,
            Link::Reconnecting { attempt, error } => {
                return ToolOutput::error(format!(
                    "`{}` was not run: MCP server `{name}` is disconnected ({error}); finch is reconnecting (try {attempt} of {RECONNECT_TRIES}). Try again in a few seconds.",
                    tool.name
                ));
            }
            Link::Down { error } => {
                return ToolOutput::error(format!(
                    "`{}` was not run: MCP server `{name}` is not connected: {error}. Check it with `finch mcp list`.",
                    tool.name
                ));
            }
            Link::Closed => {
                return ToolOutput::error(format!(
                    "`{}` was not run: the session is closing.",
                    tool.name
                ));
            }
        };
        let arguments = match args {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let raw = tool.def.raw_name.clone();
        let call = client::call_tool(&peer, &raw, arguments, self.call_timeout);
        let Some(outcome) = outside_async(|| runtime.block_on(call)) else {
            return ToolOutput::error(format!(
                "MCP server `{name}`, tool `{raw}`: the call failed inside finch"
            ));
        };
        match outcome {
            Ok(result) => output_from_result(&result),
            Err(CallError::Closed) => ToolOutput::error(format!(
                "MCP server `{name}` closed the connection during the call of `{}`; finch is reconnecting. Try again in a few seconds.",
                tool.name
            )),
            Err(e) => ToolOutput::error(format!("MCP server `{name}`, tool `{raw}`: {e}")),
        }
    }
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

/// A `tools/call` result (`content`, `structuredContent`, `isError`) as a tool output: text and
/// images as they are; an embedded resource's text (or, for a blob, a line describing it);
/// audio and resource links as a line saying what they are.
pub fn output_from_result(result: &Value) -> ToolOutput {
    let mut content = Vec::new();
    for block in result
        .get("content")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
    {
        let text = |k: &str| block.get(k).and_then(Value::as_str).unwrap_or_default();
        match block.get("type").and_then(Value::as_str) {
            Some("text") => content.push(Content::Text(text("text").to_string())),
            Some("image") => content.push(Content::Image {
                data: text("data").to_string(),
                mime_type: text("mimeType").to_string(),
            }),
            Some("resource") => {
                let resource = block.get("resource").cloned().unwrap_or(Value::Null);
                let field = |k: &str| resource.get(k).and_then(Value::as_str);
                let uri = field("uri").unwrap_or("");
                content.push(Content::Text(match (field("text"), field("blob")) {
                    (Some(t), _) => t.to_string(),
                    (None, Some(blob)) => format!(
                        "[resource {uri}: {}, {} bytes base64]",
                        field("mimeType").unwrap_or("application/octet-stream"),
                        blob.len()
                    ),
                    (None, None) => format!("[resource {uri}]"),
                }));
            }
            Some("resource_link") => content.push(Content::Text(format!(
                "[resource link: {} {}]",
                text("name"),
                text("uri")
            ))),
            Some("audio") => content.push(Content::Text(format!(
                "[audio: {}, {} bytes base64]",
                text("mimeType"),
                text("data").len()
            ))),
            Some(other) => content.push(Content::Text(format!("[{other} content]"))),
            None => {}
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
        let out = output_from_result(&json!({
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside"}},
                {"type": "resource", "resource": {"uri": "file:///b.bin", "mimeType": "application/zip", "blob": "QUJD"}},
                {"type": "resource_link", "uri": "file:///c", "name": "c"},
                {"type": "audio", "data": "AAAAAA", "mimeType": "audio/wav"},
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
                Content::Text("inside".into()),
                Content::Text("[resource file:///b.bin: application/zip, 4 bytes base64]".into()),
                Content::Text("[resource link: c file:///c]".into()),
                Content::Text("[audio: audio/wav, 6 bytes base64]".into()),
            ]
        );
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
}
