//! The async side of the MCP bridge: connecting to one server with `rmcp` (a child process on
//! stdio, or Streamable HTTP), listing its tools, calling one, and closing. Everything here runs
//! on the bridge's own tokio runtime; nothing here prints, knows the catalog, or retries (the
//! bridge's supervisor decides when to reconnect).
//!
//! A stdio server runs in a process group of its own (so `npx`-style launchers and their
//! children go together), dies with finch on Linux (`PR_SET_PDEATHSIG`), and writes its stderr
//! to `<runtime>/logs/mcp/<server>.log`, whose last lines explain a server that fails to start.
//!
//! A stdio server starts with a minimal environment, as the MCP SDKs start theirs: only the
//! variables a program needs to run (`inherited_variable`: `HOME`, `PATH`, `USER`, `LOGNAME`,
//! `SHELL`, `TERM`, `LANG`, `LC_*`, `TMPDIR`, `TZ`, and their Windows equivalents), plus the
//! entry's own `env`. finch's environment often holds tokens (`GITHUB_TOKEN`, cloud keys) that
//! a third-party server has no business reading; an entry that needs one names it in `env`
//! (`"env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}`).

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest,
    Implementation, JsonObject, ProgressNotificationParam, ProgressToken, ProtocolVersion,
    ServerResult,
};
use rmcp::service::{
    ClientInitializeError, NotificationContext, Peer, PeerRequestOptions, RoleClient,
    RunningService, RxJsonRpcMessage, TxJsonRpcMessage,
};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ServiceError, ServiceExt};
use serde_json::Value;
use tokio::sync::{Notify, mpsc, oneshot};

use super::config::{McpServerConfig, Origin, Transport, expand_vars};
use crate::env::Env;
use crate::host::cancel::Progress;
use crate::minitool::confine::ServerConfinement;

/// A running client session with one server.
pub type Service = RunningService<RoleClient, Handler>;

/// The newest protocol revision finch offers in `initialize`: the newest one the reference
/// SDKs negotiate through the handshake (Python `mcp` 2.3's `LATEST_HANDSHAKE_VERSION`, the
/// TypeScript SDK's `LATEST_PROTOCOL_VERSION`). 2026-07-28 has no `initialize` (a server that
/// knows it reads a request naming it as the stateless revision), so it is never offered.
pub const OFFERED_VERSION: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// The revisions finch accepts in a server's `initialize` answer: per the lifecycle of the MCP
/// specification, a server that does not support the offered version answers with one it
/// does, and the client disconnects when it does not speak that one either.
pub fn accepted_versions() -> &'static [ProtocolVersion] {
    ProtocolVersion::known_up_to(&OFFERED_VERSION)
}

/// What a server tells finch on its own: that its tool list changed, how far a call got.
/// Shared by a connection's handler (which hears it) and the bridge (which acts on it).
#[derive(Default)]
pub struct Events {
    /// Woken by `notifications/tools/list_changed`: the bridge lists the server's tools again.
    pub tools_changed: Notify,
    progress: Mutex<Routes>,
}

/// Where each running call's progress goes, by the token its request carried.
#[derive(Default)]
struct Routes {
    live: HashMap<ProgressToken, mpsc::UnboundedSender<Progress>>,
    /// Updates for a token no call follows yet: a fast server can report progress before the
    /// call that sent the request registered its token. The oldest go first past `EARLY_CAP`.
    early: VecDeque<(ProgressToken, Progress)>,
}

const EARLY_CAP: usize = 64;

impl Events {
    fn routes(&self) -> std::sync::MutexGuard<'_, Routes> {
        self.progress
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn deliver(&self, token: ProgressToken, update: Progress) {
        let mut routes = self.routes();
        if let Some(tx) = routes.live.get(&token) {
            let _ = tx.send(update);
            return;
        }
        routes.early.push_back((token, update));
        if routes.early.len() > EARLY_CAP {
            routes.early.pop_front();
        }
    }

    /// The updates for `token` from now on (and those that came before it was followed).
    fn follow(&self, token: &ProgressToken) -> mpsc::UnboundedReceiver<Progress> {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut routes = self.routes();
        routes.early.retain(|(t, update)| {
            if t == token {
                let _ = tx.send(update.clone());
                false
            } else {
                true
            }
        });
        routes.live.insert(token.clone(), tx);
        rx
    }

    fn unfollow(&self, token: &ProgressToken) {
        self.routes().live.remove(token);
    }
}

/// finch's side of one connection: introduces finch, and passes what the server says on its
/// own to `Events`.
#[derive(Clone)]
pub struct Handler {
    events: Arc<Events>,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        client_config()
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.events.deliver(
            params.progress_token,
            Progress {
                progress: params.progress,
                total: params.total,
                message: params.message,
            },
        );
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.events.tools_changed.notify_one();
    }
}

/// What connecting needs, owned so that connections run as tasks of the bridge's runtime.
#[derive(Debug, Clone)]
pub struct ConnectEnv {
    /// The environment snapshot: `PATH` to find commands, `${VAR}` values.
    pub env: Env,
    pub homes: crate::homes::Homes,
    /// `[sandbox]` and the rest: how a mini tool's server is confined (`confine`).
    pub settings: crate::config::Settings,
    /// The `node` finch uses for mini tools (finch.toml, `FINCH_NODE`, `PATH`): what a server
    /// whose command is `node` runs, so mini tools and their servers share one node.
    pub node: Option<PathBuf>,
    /// `<runtime>/logs/mcp/`: one stderr log per stdio server.
    pub log_dir: PathBuf,
    /// Where servers of the user and of runtime registrations start when they name no `cwd`
    /// (the session's directory); a mini tool's servers start in the mini tool's directory.
    pub cwd: PathBuf,
    /// Bounds the connection with its handshake, and `tools/list`.
    pub timeout: Duration,
}

/// One live connection.
pub struct Connection {
    pub service: Service,
    /// The process group of a stdio server (its leader is the child).
    pub pgid: Option<i32>,
    /// Resolves (with an error) once the transport is gone: the server exited, or the HTTP
    /// session ended.
    pub closed: oneshot::Receiver<()>,
    /// A confined stdio server's confinement (`"sandbox"`): its private TMPDIR lives as long
    /// as the connection.
    pub confinement: Option<crate::sandbox::Confinement>,
}

/// The last lines a stdio server wrote on stderr while failing, and where the whole log is.
#[derive(Debug, Default)]
pub struct Tail(Option<(String, PathBuf)>);

impl fmt::Display for Tail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some((lines, log)) if !lines.is_empty() => write!(
                f,
                "; the server's stderr ended with: {lines} (full log: {})",
                log.display()
            ),
            Some((_, log)) => write!(f, " (server log: {})", log.display()),
            None => Ok(()),
        }
    }
}

/// Why a server could not be reached or listed.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// A setting of the server cannot be used (an unset `${VAR}`, a bad header).
    #[error("{0}")]
    Config(String),
    #[error("cannot start the server: `{program}` was not found on PATH")]
    NotFound { program: String },
    #[error("cannot start the server with `{program}`: {source}{tail}")]
    Spawn {
        program: String,
        source: std::io::Error,
        tail: Tail,
    },
    #[error("the server did not answer {stage} within {}{tail}", seconds(*after))]
    Timeout {
        stage: &'static str,
        after: Duration,
        tail: Tail,
    },
    /// A server confined as the mini tool that brings it ran into its declaration.
    #[error("{blocked} ({error})")]
    Blocked {
        blocked: String,
        error: Box<ConnectError>,
    },
    #[error("{stage} failed: {message}{tail}")]
    Failed {
        stage: &'static str,
        message: String,
        tail: Tail,
    },
}

const HANDSHAKE: &str = "the MCP handshake (initialize)";
const LISTING: &str = "tools/list";

/// `1.5 s`, `20 s`, `250 ms`.
pub fn seconds(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{} ms", d.as_millis())
    } else if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// How finch introduces itself to servers.
fn client_config() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("finch", env!("CARGO_PKG_VERSION")),
    )
    .with_protocol_version(OFFERED_VERSION)
}

/// Connects to `server` and completes the MCP handshake, within `cx.timeout`. What the server
/// says on its own goes to `events`. A stdio server's process group is stored in `pgid` as
/// soon as it is spawned, so that whoever drops this future midway can kill it.
pub async fn connect(
    server: &McpServerConfig,
    held: Option<&ServerConfinement>,
    cx: &ConnectEnv,
    events: Arc<Events>,
    pgid: &AtomicI32,
) -> Result<Connection, ConnectError> {
    let connected = connect_to(server, held, cx, events, pgid).await;
    // A refusal of something its mini tool does not declare is said as such, with the grant
    // that lets it.
    connected.map_err(|error| {
        match held
            .and_then(|h| h.held())
            .and_then(|h| h.blocked_by(&error.to_string()))
        {
            Some(blocked) => ConnectError::Blocked {
                blocked,
                error: Box::new(error),
            },
            None => error,
        }
    })
}

async fn connect_to(
    server: &McpServerConfig,
    held: Option<&ServerConfinement>,
    cx: &ConnectEnv,
    events: Arc<Events>,
    pgid: &AtomicI32,
) -> Result<Connection, ConnectError> {
    let handler = Handler { events };
    let connection = match &server.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            connect_stdio(
                server,
                held,
                command,
                args,
                env,
                cwd.as_deref(),
                cx,
                handler,
                pgid,
            )
            .await?
        }
        Transport::Http { url, headers } => connect_http(url, headers, held, cx, handler).await?,
    };
    let version = connection
        .service
        .peer()
        .peer_info()
        .map(|info| info.protocol_version.clone());
    match version {
        Some(v) if accepted_versions().contains(&v) => Ok(connection),
        other => {
            let answered = other.map_or_else(|| "none".to_string(), |v| v.to_string());
            close(connection, Duration::from_millis(500)).await;
            Err(ConnectError::Failed {
                stage: HANDSHAKE,
                message: format!(
                    "the server answered protocol version {answered}, which finch does not speak (it speaks {} to {})",
                    accepted_versions()[0],
                    OFFERED_VERSION
                ),
                tail: Tail::default(),
            })
        }
    }
}

#[allow(clippy::too_many_arguments)]
async fn connect_stdio(
    server: &McpServerConfig,
    held: Option<&ServerConfinement>,
    command: &str,
    args: &[String],
    env: &std::collections::BTreeMap<String, String>,
    cwd: Option<&Path>,
    cx: &ConnectEnv,
    handler: Handler,
    pgid_out: &AtomicI32,
) -> Result<Connection, ConnectError> {
    let base = match &server.origin {
        Origin::MiniTool { dir, .. } => dir.clone(),
        Origin::Runtime { .. } | Origin::User => cx.cwd.clone(),
    };
    let cwd = match cwd {
        Some(c) => crate::homes::absolutize(
            &crate::homes::expand_tilde(c, cx.env.home_dir().as_deref())
                .map_err(|e| ConnectError::Config(format!("cwd {}: {e}", c.display())))?,
            &base,
        ),
        None => base,
    };
    if !cwd.is_dir() {
        return Err(ConnectError::Config(format!(
            "its working directory {} does not exist",
            cwd.display()
        )));
    }
    let program = resolve_program(command, cx, &cwd)?;
    let mut cmd = tokio::process::Command::new(&program);
    cmd.args(args).current_dir(&cwd).kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    #[cfg(target_os = "linux")]
    // SAFETY: prctl is async-signal-safe and touches no memory of this process.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    // A mini tool's server: its mini tool's environment and confinement. Else finch's
    // minimal environment, and the entry's own `"sandbox"` when it has one.
    let walled = match held {
        Some(held) => super::confine::minitool_server(held, &program, env, cx, &mut cmd)?,
        None => None,
    };
    let confinement = match (walled, server.sandbox) {
        (Some(walled), _) => Some(walled),
        (None, sandbox) => {
            cmd.env_clear();
            for (key, value) in cx.env.iter().filter(|(k, _)| inherited_variable(k)) {
                cmd.env(key, value);
            }
            for (key, value) in env {
                let value = expand_vars(value, &cx.env)
                    .map_err(|e| ConnectError::Config(format!("env {key}: {e}")))?;
                cmd.env(key, value);
            }
            match sandbox {
                Some(sandbox) => Some(super::confine::user_server(
                    sandbox, &program, &cwd, cx, &mut cmd,
                )?),
                None => None,
            }
        }
    };
    let log = Log::open(&cx.log_dir, &server.normalized(), &program, args);
    let stderr = log.stderr();
    let (child, _) = TokioChildProcess::builder(cmd)
        .stderr(stderr)
        .spawn()
        .map_err(|source| ConnectError::Spawn {
            program: program.display().to_string(),
            source,
            tail: log.tail(),
        })?;
    // A server held to a host list reaches out through finch's proxy (issue 42).
    if let Some(confinement) = &confinement {
        confinement
            .serve_proxy()
            .map_err(|source| ConnectError::Spawn {
                program: program.display().to_string(),
                source,
                tail: log.tail(),
            })?;
    }
    let pgid = child.id().and_then(|p| i32::try_from(p).ok());
    pgid_out.store(pgid.unwrap_or(0), Ordering::SeqCst);
    let (closed_tx, closed) = oneshot::channel();
    let transport = Watched {
        inner: child,
        closed: Some(closed_tx),
    };
    match tokio::time::timeout(cx.timeout, handler.serve(transport)).await {
        Ok(Ok(service)) => Ok(Connection {
            service,
            pgid,
            closed,
            confinement,
        }),
        Ok(Err(e)) => {
            kill_group(pgid);
            Err(ConnectError::Failed {
                stage: HANDSHAKE,
                message: handshake_error(&e),
                tail: log.tail(),
            })
        }
        Err(_) => {
            kill_group(pgid);
            Err(ConnectError::Timeout {
                stage: HANDSHAKE,
                after: cx.timeout,
                tail: log.tail(),
            })
        }
    }
}

async fn connect_http(
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
    held: Option<&ServerConfinement>,
    cx: &ConnectEnv,
    handler: Handler,
) -> Result<Connection, ConnectError> {
    use reqwest::header::{HeaderName, HeaderValue};
    // finch itself connects: for a mini tool's server only when the mini tool may reach the
    // network, and with only the variables it may read.
    let expand = |text: &str| match held {
        Some(held) => super::confine::expand_for(held, text, cx),
        None => expand_vars(text, &cx.env),
    };
    if let Some(held) = held {
        super::confine::http_allowed(held, url)?;
    }
    let url = expand(url).map_err(|e| ConnectError::Config(format!("url: {e}")))?;
    let mut custom = HashMap::new();
    for (key, value) in headers {
        let name = HeaderName::from_bytes(key.trim().as_bytes())
            .map_err(|_| ConnectError::Config(format!("header {key:?} is not a header name")))?;
        let value =
            expand(value).map_err(|e| ConnectError::Config(format!("header {key}: {e}")))?;
        // The value may be a secret: the error names the header only.
        let value = HeaderValue::from_str(&value).map_err(|_| {
            ConnectError::Config(format!(
                "header {key}: its value holds characters a header cannot carry"
            ))
        })?;
        custom.insert(name, value);
    }
    crate::minitool::net::install_crypto_provider();
    let client = reqwest::Client::builder()
        .connect_timeout(cx.timeout)
        // A redirect would replay the headers (tokens) to wherever it points.
        .redirect(reqwest::redirect::Policy::none())
        .pool_max_idle_per_host(0)
        .build()
        .map_err(|e| ConnectError::Config(format!("cannot build the HTTP client: {e}")))?;
    let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom);
    let (closed_tx, closed) = oneshot::channel();
    let transport = Watched {
        inner: StreamableHttpClientTransport::with_client(client, config),
        closed: Some(closed_tx),
    };
    match tokio::time::timeout(cx.timeout, handler.serve(transport)).await {
        Ok(Ok(service)) => Ok(Connection {
            service,
            pgid: None,
            closed,
            confinement: None,
        }),
        Ok(Err(e)) => Err(ConnectError::Failed {
            stage: HANDSHAKE,
            message: handshake_error(&e),
            tail: Tail::default(),
        }),
        Err(_) => Err(ConnectError::Timeout {
            stage: HANDSHAKE,
            after: cx.timeout,
            tail: Tail::default(),
        }),
    }
}

/// A failed handshake in words: for a transport error, what the transport met (`connection
/// refused`), without rmcp's Rust type names.
fn handshake_error(e: &ClientInitializeError) -> String {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    let ClientInitializeError::TransportError { error, context } = e else {
        return e.to_string();
    };
    let inner = error.error.as_ref();
    let what = match inner.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
        Some(StreamableHttpError::Client(e)) => error_chain(e),
        _ => error_chain(inner),
    };
    format!("{what} (when trying to {context})")
}

/// An error with its causes, which name what actually failed (`connection refused`).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let part = s.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    text
}

/// The program of a stdio server: `node` is finch's node; a name with a `/` is a path (relative
/// to the server's directory); any other name is looked up on `PATH` of the snapshot.
fn resolve_program(command: &str, cx: &ConnectEnv, cwd: &Path) -> Result<PathBuf, ConnectError> {
    if command == "node"
        && let Some(node) = &cx.node
    {
        return Ok(node.clone());
    }
    if command.contains('/') {
        let path = crate::homes::expand_tilde(Path::new(command), cx.env.home_dir().as_deref())
            .map_err(|e| ConnectError::Config(format!("command {command}: {e}")))?;
        return Ok(crate::homes::absolutize(&path, cwd));
    }
    crate::minitool::net::find_program(command, cx.env.get("PATH").as_deref()).ok_or_else(|| {
        ConnectError::NotFound {
            program: command.to_string(),
        }
    })
}

/// The size past which a server's log starts over.
const LOG_CAP: u64 = 1024 * 1024;

/// The stderr log of one stdio server: appended to, with a line marking each start, so the
/// tail of this start can be quoted when it fails.
struct Log {
    file: Option<(std::fs::File, PathBuf, u64)>,
}

impl Log {
    fn open(dir: &Path, server: &str, program: &Path, args: &[String]) -> Log {
        let path = dir.join(format!("{server}.log"));
        let opened = std::fs::create_dir_all(dir).and_then(|()| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .read(true)
                .open(&path)
        });
        // No log is no reason not to run the server: its stderr is then dropped.
        let Ok(mut file) = opened else {
            return Log { file: None };
        };
        // One server's log never grows without bound: past 1 MiB it starts over.
        if file.metadata().is_ok_and(|m| m.len() > LOG_CAP) {
            let _ = file.set_len(0);
        }
        let _ = writeln!(
            file,
            "--- {} finch starts: {} {}",
            chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            program.display(),
            args.join(" ")
        );
        let start = file.seek(SeekFrom::End(0)).unwrap_or(0);
        Log {
            file: Some((file, path, start)),
        }
    }

    fn stderr(&self) -> Stdio {
        match self.file.as_ref().and_then(|(f, _, _)| f.try_clone().ok()) {
            Some(f) => Stdio::from(f),
            None => Stdio::null(),
        }
    }

    /// The last three non-empty lines written since this start, one line, at most 400
    /// characters.
    fn tail(&self) -> Tail {
        let Some((file, path, start)) = &self.file else {
            return Tail::default();
        };
        let mut text = String::new();
        if let Ok(mut f) = file.try_clone()
            && f.seek(SeekFrom::Start(*start)).is_ok()
        {
            let mut bytes = Vec::new();
            let _ = f.take(256 * 1024).read_to_end(&mut bytes);
            text = String::from_utf8_lossy(&bytes).into_owned();
        }
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let mut joined = lines[lines.len().saturating_sub(3)..].join(" | ");
        if joined.chars().count() > 400 {
            joined = format!("{}…", joined.chars().take(399).collect::<String>());
        }
        Tail(Some((joined, path.clone())))
    }
}

/// A transport that signals when the server's side ends (end of input) or the transport is
/// dropped (rmcp drops it when the session ends, whatever the reason): how the bridge learns
/// at once that a server went away, without waiting for rmcp's own wind-down.
struct Watched<T> {
    inner: T,
    closed: Option<oneshot::Sender<()>>,
}

impl<T: rmcp::transport::Transport<RoleClient>> rmcp::transport::Transport<RoleClient>
    for Watched<T>
{
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await;
        if message.is_none()
            && let Some(closed) = self.closed.take()
        {
            let _ = closed.send(());
        }
        message
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// A tool as a server describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteTool {
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub input_schema: Value,
    /// The server marks it destructive (`annotations.destructiveHint`).
    pub destructive: bool,
    /// The server's `annotations` object as it sent it (served on by `hints::of`).
    pub annotations: Option<Value>,
}

impl RemoteTool {
    /// Reads the fields finch uses from a tool as the protocol shapes it.
    pub fn from_json(tool: &Value) -> Option<RemoteTool> {
        let name = tool.get("name")?.as_str()?.to_string();
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        let annotations = tool.get("annotations");
        let title = text(tool.get("title"))
            .or_else(|| text(annotations.and_then(|a| a.get("title"))))
            .filter(|t| !t.trim().is_empty());
        let input_schema = match tool.get("inputSchema") {
            Some(s @ Value::Object(_)) => s.clone(),
            _ => serde_json::json!({"type": "object"}),
        };
        Some(RemoteTool {
            name,
            title,
            description: text(tool.get("description")).unwrap_or_default(),
            input_schema,
            destructive: annotations
                .and_then(|a| a.get("destructiveHint"))
                .and_then(Value::as_bool)
                .unwrap_or(false),
            annotations: annotations.filter(|a| a.is_object()).cloned(),
        })
    }
}

/// Every tool of the server (all pages), within `timeout`.
pub async fn list_tools(
    peer: &Peer<RoleClient>,
    timeout: Duration,
) -> Result<Vec<RemoteTool>, ConnectError> {
    let tools = match tokio::time::timeout(timeout, peer.list_all_tools()).await {
        Ok(Ok(tools)) => tools,
        Ok(Err(e)) => {
            return Err(ConnectError::Failed {
                stage: LISTING,
                message: e.to_string(),
                tail: Tail::default(),
            });
        }
        Err(_) => {
            return Err(ConnectError::Timeout {
                stage: LISTING,
                after: timeout,
                tail: Tail::default(),
            });
        }
    };
    Ok(tools
        .iter()
        .filter_map(|t| serde_json::to_value(t).ok())
        .filter_map(|t| RemoteTool::from_json(&t))
        .collect())
}

/// Why a `tools/call` produced no result.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error("the server answered with an error: {0}")]
    Rejected(String),
    #[error("the connection to the server closed during the call")]
    Closed,
    #[error("no answer within {}", seconds(*.0))]
    Timeout(Duration),
    /// The caller cancelled it; the server was told (`notifications/cancelled`).
    #[error("the call was cancelled")]
    Cancelled,
    #[error("{0}")]
    Other(String),
}

/// How long telling a server that a request is cancelled may take.
const CANCEL_GRACE: Duration = Duration::from_secs(1);

/// Sends one `tools/call` and returns the result as the protocol shapes it (`content`,
/// `structuredContent`, `isError`). The request carries a `progressToken`; each
/// `notifications/progress` the server sends for it goes to `progress` as it comes. When
/// `cancelled` resolves, or no answer came within `timeout`, the server is sent
/// `notifications/cancelled` for the request and its answer, if one still comes, is dropped.
pub async fn call_tool(
    peer: &Peer<RoleClient>,
    events: &Events,
    tool: &str,
    arguments: JsonObject,
    timeout: Duration,
    cancelled: impl Future<Output = ()>,
    progress: &mut (dyn FnMut(Progress) + Send),
) -> Result<Value, CallError> {
    let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let mut handle = peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await
        .map_err(service_error)?;
    let token = handle.progress_token.clone();
    let mut updates = events.follow(&token);
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    tokio::pin!(cancelled);
    enum End {
        Answer(Box<Result<Result<ServerResult, ServiceError>, oneshot::error::RecvError>>),
        Timeout,
        Cancelled,
    }
    let end = loop {
        tokio::select! {
            answer = &mut handle.rx => break End::Answer(Box::new(answer)),
            Some(update) = updates.recv() => progress(update),
            () = &mut deadline => break End::Timeout,
            () = &mut cancelled => break End::Cancelled,
        }
    };
    events.unfollow(&token);
    // Updates that came with the answer still count.
    while let Ok(update) = updates.try_recv() {
        progress(update);
    }
    match end {
        End::Answer(answer) => match *answer {
            Ok(Ok(ServerResult::CallToolResult(result))) => {
                let mut value =
                    serde_json::to_value(&result).map_err(|e| CallError::Other(e.to_string()))?;
                exact_priorities(&mut value);
                Ok(value)
            }
            Ok(Ok(_)) => Err(CallError::Other(
                "the server answered with something other than a tool result".into(),
            )),
            Ok(Err(e)) => Err(service_error(e)),
            Err(_) => Err(CallError::Closed),
        },
        End::Timeout => {
            let _ = tokio::time::timeout(CANCEL_GRACE, handle.cancel(Some("timeout".into()))).await;
            Err(CallError::Timeout(timeout))
        }
        End::Cancelled => {
            let reason = Some("the caller cancelled the call".to_string());
            let _ = tokio::time::timeout(CANCEL_GRACE, handle.cancel(reason)).await;
            Err(CallError::Cancelled)
        }
    }
}

/// rmcp reads a content block's `annotations.priority` as an `f32`, so a server's `0.9` comes
/// out as `0.8999999761581421`; each priority is given back as the shortest decimal that is
/// that `f32` — the number the server wrote.
fn exact_priorities(result: &mut Value) {
    fn fix(annotations: Option<&mut Value>) {
        let Some(priority) = annotations.and_then(|a| a.get_mut("priority")) else {
            return;
        };
        if let Some(wide) = priority.as_f64() {
            #[allow(clippy::cast_possible_truncation)]
            let narrow = wide as f32;
            if let Ok(exact) = narrow.to_string().parse::<f64>()
                && let Some(n) = serde_json::Number::from_f64(exact)
            {
                *priority = Value::Number(n);
            }
        }
    }
    let Some(blocks) = result.get_mut("content").and_then(Value::as_array_mut) else {
        return;
    };
    for block in blocks {
        fix(block.get_mut("annotations"));
        fix(block
            .get_mut("resource")
            .and_then(|r| r.get_mut("annotations")));
    }
}

fn service_error(e: ServiceError) -> CallError {
    match e {
        ServiceError::McpError(e) => CallError::Rejected(e.message.to_string()),
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => CallError::Closed,
        other => CallError::Other(other.to_string()),
    }
}

/// Ends a session: asks it to close (a stdio server sees its stdin end) and waits up to
/// `grace`, then kills what is left of the server's process group.
pub async fn close(mut connection: Connection, grace: Duration) {
    let _ = connection.service.close_with_timeout(grace).await;
    kill_group(connection.pgid);
}

/// Kills a stdio server's whole process group (the launcher and anything it started).
pub fn kill_group(pgid: Option<i32>) {
    #[cfg(unix)]
    if let Some(pgid) = pgid.filter(|p| *p > 1) {
        // SAFETY: kill takes plain integers; a group that is already gone gives ESRCH.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
    #[cfg(not(unix))]
    let _ = pgid;
}

/// The variables of finch's environment a stdio MCP server inherits (see the module docs).
fn inherited_variable(name: &str) -> bool {
    const POSIX: &[&str] = &[
        "HOME", "PATH", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TMPDIR", "TZ",
    ];
    const WINDOWS: &[&str] = &[
        "APPDATA",
        "HOMEDRIVE",
        "HOMEPATH",
        "LOCALAPPDATA",
        "PROCESSOR_ARCHITECTURE",
        "PROGRAMFILES",
        "SYSTEMDRIVE",
        "SYSTEMROOT",
        "TEMP",
        "TMP",
        "USERNAME",
        "USERPROFILE",
        "COMSPEC",
        "PATHEXT",
    ];
    POSIX.contains(&name)
        || name.starts_with("LC_")
        || (cfg!(windows) && WINDOWS.iter().any(|w| w.eq_ignore_ascii_case(name)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn servers_inherit_only_what_a_program_needs_to_run() {
        for name in [
            "HOME", "PATH", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TERM",
        ] {
            assert!(inherited_variable(name), "{name}");
        }
        for name in [
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "OPENAI_API_KEY",
            "FINCH_RUNTIME_HOME",
            "SSH_AUTH_SOCK",
            "NPM_TOKEN",
            "path",
        ] {
            assert!(!inherited_variable(name), "{name}");
        }
    }

    #[test]
    fn tools_read_title_schema_and_destructive_hint() {
        let tool = RemoteTool::from_json(&json!({
            "name": "wipe",
            "description": "Deletes",
            "inputSchema": {"type": "object", "properties": {}},
            "annotations": {"title": "Wipe it", "destructiveHint": true},
        }))
        .unwrap();
        assert_eq!(tool.title.as_deref(), Some("Wipe it"));
        assert!(tool.destructive);
        let bare = RemoteTool::from_json(&json!({"name": "x"})).unwrap();
        assert_eq!(bare.input_schema, json!({"type": "object"}));
        assert_eq!((bare.title, bare.destructive), (None, false));
        assert!(RemoteTool::from_json(&json!({"title": "no name"})).is_none());
    }

    #[test]
    fn durations_read_well() {
        assert_eq!(seconds(Duration::from_secs(20)), "20 s");
        assert_eq!(seconds(Duration::from_millis(300)), "300 ms");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
    }
}
