//! The mini tool runtime of SPEC §9.1: one `node` process per enabled mini tool (and per
//! `--minitool` directory), each running the bootstrap shipped in this binary, which imports the
//! mini tool's ES module entry and calls its `activate(ctx)`. Host and bootstrap speak JSON-RPC
//! 2.0 over fd 3 (`rpc`); the mini tool's own output goes to `<runtime>/logs/minitools/<id>.log`.
//! To the host the runtime is one `Provider`: its tools are what the mini tools registered.
//!
//! Where things are: `instance` (one mini tool: what its manifest says, its process's state,
//! which mini tools a start runs), `lifecycle` (spawning, activation, restarts, the reader
//! thread, shutdown), `confine` (what a confined process is given), `call` (a tool call and a
//! discovery query into a mini tool), `events` (what the host pushes unasked), `services` and
//! `sessions` (what a mini tool asks of the host), `rpc` and `protocol` (the channel and its
//! messages), `process` (the spawner and the bootstrap file).
//!
//! Threads: each process has a reader thread that answers what the mini tool asks the host
//! (storage, secrets, capabilities, tool registrations — `services`; agent sessions —
//! `sessions`) and routes answers. During a burst of calls a call reads its own answer
//! instead, handling what comes before it the same way (`rpc` says when; `call`),
//! which spares each call one thread's wake-up. Only prompts need the thread running
//! `Host::call` (it owns the prompter): they are sent to it while a call is in progress
//! (`ui`). Activation of every mini tool runs in parallel; a restart runs on the calling
//! thread.
//!
//! Faults — a mini tool that throws in `activate`, never settles it, crashes, hangs past its
//! timeout, writes garbage on the channel, or exits — stop that process (its process group is
//! killed) and are reported: in the start report, in the failing call's error (which names the
//! log file), and through the event hook. Other mini tools and the host keep working. A stopped
//! mini tool restarts on a later call once its backoff (`[runtime] restart_backoff`, doubling
//! per consecutive failure up to `restart_backoff_max`) has passed; a call before that fails at
//! once, saying when to retry. A successful call resets the backoff.
//!
//! Choices where the spec is silent (the shapes themselves are finch.d.ts's `MiniToolContext`):
//! - Sync and async as the d.ts says: `storage.*`, `secrets.*`, `app.getInfo()`,
//!   `capabilities.getVersion`, `status.get`, `spaces.list`, `sessions.*`, the dialogs and
//!   every `oauth`/`navigation`/`browser` method return promises; `settings.*`, `i18n.*`,
//!   `minitools.listContributions` (its data is sent with `activate`) and
//!   `capabilities.has`/`get` are synchronous; `commands` is `undefined`.
//! - `capabilities.has(name)` answers from the capabilities the host told the process about:
//!   the provided ones (sent with `activate`, pushed as `$/capabilities` whenever one is
//!   provided or goes away) plus the host's own `mcp.client`; an undeclared name is `false`.
//!   `get(name)` throws for a name not in `requires.capabilities`, else returns a proxy whose
//!   every method call goes through the host (`capabilities.invoke`): to the provider, parked
//!   while a mini tool that declares it is still activating, else rejected with "no running
//!   mini tool provides". A mini tool that requires a capability another mini tool of the
//!   same start declares in `provides` gets `activate` once that one's activation settled, so
//!   `has()` in `activate()` already knows (a cycle of requirements activates together).
//! - Settings values come from the app's per-mini-tool record in `<runtime>/extensions.json`
//!   (`extensions.<id>.settings`), over the manifest's `settings.fields[].default`.
//! - The i18n locale is `[runtime] locale`, else `FINCH_LOCALE`, `LC_ALL`, `LC_MESSAGES`,
//!   `LANG`, else `en-US`; messages are `i18n/<locale>.json` (nested keys flattened with `.`)
//!   over `i18n/en-US.json`; `t(key, params)` fills `{name}` and `{{name}}`. The locale never
//!   changes during a run, so `onDidChangeLocale` listeners are kept and never called. The
//!   other locales still count for search: a registered tool's strings that came from `t(key)`
//!   are indexed by ToolSearch in every locale the mini tool ships (`localized`).
//! - `app.getInfo()` tells the truth about the host: `name` is `"finch"` (not the app's
//!   `"Finch"`), `headless: true`, `buildNumber: 0`, `assistantName: "Finch"`.
//! - `minitools.listContributions(point)` gives `MiniToolContribution` records of every mini
//!   tool of the run; `source` is `personal`, `global`, or `project` for a `--minitool` dir.
//! - Dialogs (`ui.showConfirmDialog`, `ui.showModalDialog`, `exec.ui.requestForm`) asked during
//!   a tool call become questions through the prompter of that call — the same one that shows
//!   permission cards (`ui`). Outside a call (in `activate`, from a timer), or when the run has
//!   nobody to ask, the answer is the documented "not answered" result (`{confirmed: false}`,
//!   `{action: "dismissed"}`, `{submitted: false, reason: "background"}`, each with `reason`)
//!   and a warning line on stderr and in the log says the dialog was not shown.
//! - A modal handle's `close(action)` settles it as that action at once, and
//!   `requestForm({timeoutMs})` resolves `{submitted: false, reason: "timeout"}` at its
//!   timeout; a question already on the terminal stays there until it is answered (or the
//!   card timeout passes), and that late answer is dropped — the prompter has no way to take
//!   a question back.
//! - `ui.openDiff({type: "files", leftPath, rightPath, title})` (newer than the published
//!   finch.d.ts; finch-wechat-preview uses it): the mini tool's own process reads both files
//!   (up to 1 MiB each; the host never reads a path for it) and the host makes a unified diff.
//!   The prompter of the call it was asked in shows it (the terminal); one that cannot (an MCP
//!   client, no terminal) leaves it to the call's result, as one more text block. Asked
//!   outside a call, the person of a running call sees it on the terminal, else it is written
//!   to the mini tool's log, recorded (`unsupported`) and a line on stderr says where. It
//!   resolves `undefined` each way, as the app's does once its diff opened; another `type`, a
//!   missing path or file rejects.
//! - `ui.showToast`, `ui.notify`, `ui.showMessage` print a line on stderr (the event hook);
//!   `showToast` resolves `{action: "dismissed"}` (nobody can click its button).
//! - Contributions finch cannot show — `ui.createPanel`, `ui.onDidOpenPanel`,
//!   `ui.createCanvasWindow`, `ui.openFilePreview`, `ui.delivery.set`,
//!   `composerActions.register`, `settingsMenu.register`,
//!   `sessionContainers.registerSettingsMenu`, `icons.register`, `events.onInteractionWait`
//!   (the app's permission and question waits; finch has none to send), and any other `ui.*`
//!   name —
//!   are accepted, logged, recorded (`unsupported`) and listed by the start report (`finch
//!   reload`, `finch run --minitool`). Their handles work and do nothing: a panel is never
//!   visible, its messages go nowhere; a canvas window's `ready` rejects (only for whoever
//!   awaits it). A `ui.*` name finch.d.ts does not have (an older `ui.confirm`, say) returns a
//!   disposable that rejects when awaited, so a question finch does not know never looks
//!   answered.
//! - A mini tool that provides `mcp.client` itself (the official MCP Client does, in the app)
//!   activates, but the host's own `mcp.client` is the one every consumer gets; the log says so.
//! - `oauth.*`, `navigation.openSession` and `browser.open` reject with an error saying that
//!   finch is headless.
//! - `events.onAgentEvent` gets `tool_use` (the name as asked) and `tool_result` (the name it
//!   resolved to, `isToolError`) for every call the host runs, of any layer — refused ones
//!   too — through `Provider::observe`; `status` is `running` while a call runs, else `idle`
//!   (finch has no waiting or unread sessions to count);
//!   `notifications.onDidPost` gets an `error` notification when a mini tool is stopped for a
//!   fault. Listeners that throw are logged.
//! - `sessions.*` run turns through `[agent] command` (see `sessions`); without it they
//!   reject, naming the setting. Sessions are kept under the runtime home and outlive the
//!   process that made them.
//! - `settingsMenu.register(provider)` is recorded as the app's menu finch does not show, and
//!   its provider kept: `finch minitool menu` lists it and runs an item (`menu`), its dialogs
//!   answered on the terminal or from `--set`; a modal's `close(action)` takes it off the
//!   terminal (`ui.close`).
//! - An ES module entry gets `__dirname` and `__filename` (its directory and file) as globals
//!   of its process, as bundles made for the app expect (the public finch-feishu-bot reads
//!   them); a value the process already has is kept.
//! - `secrets.*` are bound to the package as loaded from where it runs (`secrets::Owner`): the
//!   same id from a `--minitool` directory or another copy reads none of an installed one's.
//! - `appearance` (newer than the published finch.d.ts): `get`, `setTheme`,
//!   `setHomeBackground` read and write the `appearance` object of the app's settings file,
//!   as `AppCall setAppearance` does. `spaces.list()` reads `<runtime>/spaces.json`.
//! - A floating rejection or uncaught exception in a mini tool is logged, and its process goes
//!   on. An `activate()` that throws or never settles drops the tools registered before.
//! - A `--minitool` directory whose id is also installed replaces the installed one for the
//!   run and shares its storage (`extension-data/<id>`), as a `-d` dev link would; the start
//!   report says so (`Outcome::Replaced`, a warning in `finch run` and `tool call`). An id
//!   installed in both tiers runs from the personal tier.
//! - `finch run` starts the installed mini tools in the background (`StartOptions::background`)
//!   and lists their tools from the catalog cache until each activation ends; a mini tool the
//!   cache has no tools of starts before the host answers, as do `--minitool` directories.
//!   `finch tool call` starts only what the call needs (`StartOptions::only`).
//! - A timed-out call first aborts its `exec.signal`; a tool that settles within half the
//!   timeout (at most 1 s) keeps running, one that does not is stopped.
//! - A call its caller cancels (`CallCx::cancel`: an MCP client's `notifications/cancelled`)
//!   aborts its `exec.signal` at once and ends as cancelled after at most that same grace; a
//!   tool that ignores the signal is not stopped (it was not at fault), its late answer dropped.
//! - `exec.progress.report(update)` of a running call goes to that call's `CallCx::progress`
//!   (see `CallState` for how `percent`, `increment` and `total` become MCP's numbers);
//!   an update that comes after its call ended goes to the event hook, a line on stderr.

mod call;
mod confine;
mod events;
mod instance;
mod lifecycle;
mod localized;
mod mcp_client;
pub mod menu;
mod process;
mod protocol;
mod rpc;
pub mod secrets;
mod services;
mod sessions;
mod storage;
mod supervise;
mod ui;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use serde_json::{Value, json};

use super::catalog::{ToolDef, ToolSpec};
use super::output::ToolOutput;
use super::{CallCx, JobCx, Provider, Started};
use crate::config::{RuntimeSettings, Settings};
use crate::env::Env;
use crate::homes::Homes;
use call::CallRoute;
use confine::ConfineEnv;
use instance::{Instance, Phase};
use process::Spawner;
pub use supervise::{MiniToolState, MiniToolStatus, Revived};

/// The capability the host itself provides: runtime MCP server registrations (SPEC §9.2).
pub const MCP_CLIENT_CAPABILITY: &str = "mcp.client";
/// How long `discover` waits for the mini tools' discovery providers.
const DISCOVER_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest a timed-out call may take to settle after its signal aborted.
const CANCEL_GRACE_MAX: Duration = Duration::from_secs(1);

/// Where a mini tool of this run comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Personal,
    Global,
    /// `--minitool <dir>`: not installed, for this run only.
    Dir,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Personal => "personal",
            Origin::Global => "global",
            Origin::Dir => "dir",
        }
    }

    /// `MiniToolContribution.source`: a `--minitool` directory counts as `project`.
    pub fn contribution_source(self) -> &'static str {
        match self {
            Origin::Personal => "personal",
            Origin::Global => "global",
            Origin::Dir => "project",
        }
    }
}

/// What starting one mini tool came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Activated {
        tools: usize,
    },
    Failed {
        error: String,
    },
    /// Not started: the kernel cannot confine it here and nobody agreed that it runs
    /// unconfined (`minitool::confine::Mode::refusal` is the error).
    Refused {
        error: String,
    },
    /// Not started (shadowed by another of the same id).
    Skipped {
        reason: String,
    },
    /// An installed mini tool that a `--minitool` directory of the same id replaces for this
    /// run. The directory's mini tool uses the installed one's storage: the author's test loop
    /// sees the data the installed copy keeps.
    Replaced {
        by: PathBuf,
        storage: PathBuf,
    },
}

/// One line of the start report (`finch reload`, `finch run --minitool`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolReport {
    pub id: String,
    pub display_name: String,
    pub version: Option<String>,
    pub origin: Origin,
    pub path: PathBuf,
    pub log: PathBuf,
    pub outcome: Outcome,
    /// What it contributed that finch cannot show (`ui.createPanel(x)`, `icons.register(p)`),
    /// recorded while it activated.
    pub not_shown: Vec<String>,
    /// Its confinement (`minitool::confine::Mode::to_json`), when it was considered.
    pub sandbox: Option<Value>,
}

impl ToolReport {
    /// The line a person reads (and, when it contributed what finch cannot show, a second
    /// one listing that).
    pub fn line(&self) -> String {
        let line = self.outcome_line();
        if self.not_shown.is_empty() {
            return line;
        }
        format!(
            "{line}\n  contributes what finch cannot show: {}",
            self.not_shown.join(", ")
        )
    }

    fn outcome_line(&self) -> String {
        match &self.outcome {
            Outcome::Activated { tools } => format!(
                "✓ {} activated: {tools} tool{}",
                self.id,
                if *tools == 1 { "" } else { "s" }
            ),
            Outcome::Failed { error } => format!(
                "✖ {} failed: {error} (log: {})",
                self.id,
                self.log.display()
            ),
            Outcome::Refused { error } => format!("✖ {} refused: {error}", self.id),
            Outcome::Skipped { reason } => format!("• {} skipped: {reason}", self.id),
            Outcome::Replaced { by, storage } => format!(
                "• {} (installed) is replaced for this run by --minitool {}, which shares its storage: {}",
                self.id,
                by.display(),
                storage.display()
            ),
        }
    }

    pub fn to_json(&self) -> Value {
        let (status, tools, error) = match &self.outcome {
            Outcome::Activated { tools } => ("activated", Some(*tools), None),
            Outcome::Failed { error } => ("failed", None, Some(error.clone())),
            Outcome::Refused { error } => ("refused", None, Some(error.clone())),
            Outcome::Skipped { reason } => ("skipped", None, Some(reason.clone())),
            Outcome::Replaced { .. } => ("replaced", None, None),
        };
        json!({
            "id": self.id,
            "name": self.display_name,
            "version": self.version,
            "origin": self.origin.as_str(),
            "path": self.path,
            "status": status,
            "tools": tools,
            "error": error,
            "log": self.log,
            "notShown": self.not_shown,
            "sandbox": self.sandbox,
        })
    }
}

/// What `start` found: one report per mini tool, and problems that kept installed mini tools
/// from being considered at all (an unreadable `extensions.json` or tier).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StartReport {
    pub tools: Vec<ToolReport>,
    pub problems: Vec<String>,
}

impl StartReport {
    pub fn to_json(&self) -> Value {
        json!({
            "minitools": self.tools.iter().map(ToolReport::to_json).collect::<Vec<_>>(),
            "problems": self.problems,
        })
    }
}

/// Something a front end may show while mini tools run.
#[derive(Debug, Clone, PartialEq)]
pub enum RuntimeEvent {
    /// `exec.progress.report(...)` of a running call.
    Progress {
        minitool: String,
        tool: String,
        message: Option<String>,
        percent: Option<f64>,
    },
    /// `ctx.ui.toast`/`notify`.
    Notice {
        minitool: String,
        display_name: String,
        level: Option<String>,
        title: Option<String>,
        message: String,
    },
    /// A mini tool was stopped for a fault outside of a start report.
    Fault {
        minitool: String,
        message: String,
        log: PathBuf,
    },
    /// A UI surface a headless host cannot show was asked for, and recorded.
    Unsupported {
        minitool: String,
        kind: String,
        detail: Option<String>,
    },
    /// Mini tools registered or removed tools: the catalog should be rebuilt.
    ToolsChanged,
    /// A mini tool registered or removed an MCP server through `mcp.client`.
    McpServersChanged,
}

/// Receives runtime events, from any thread.
pub type EventHook = Arc<dyn Fn(&RuntimeEvent) + Send + Sync>;

/// The default hook: progress, notices and faults as lines on stderr (`quiet` keeps only
/// faults).
pub fn stderr_hook(quiet: bool) -> EventHook {
    Arc::new(move |event: &RuntimeEvent| match event {
        RuntimeEvent::Progress {
            tool,
            message,
            percent,
            ..
        } if !quiet => {
            let pct = percent.map(|p| format!(" {p:.0}%")).unwrap_or_default();
            crate::eline!(
                "  … {tool}:{pct} {}",
                message.as_deref().unwrap_or("working")
            );
        }
        RuntimeEvent::Notice {
            display_name,
            level,
            title,
            message,
            ..
        } if !quiet => {
            let level = level.as_deref().unwrap_or("info");
            let title = title
                .as_deref()
                .map(|t| format!("{t}: "))
                .unwrap_or_default();
            crate::eline!("[{display_name}] {level}: {title}{message}");
        }
        RuntimeEvent::Fault {
            minitool,
            message,
            log,
        } => crate::eline!(
            "warning: mini tool {minitool} {message} (log: {})",
            log.display()
        ),
        _ => {}
    })
}

/// A tool a mini tool registered for its agent's session.
#[derive(Debug, Clone)]
pub(crate) struct Registered {
    pub name: String,
    pub def: ToolDef,
    pub timeout: Duration,
}

/// The registration a call goes to: the name the mini tool registered and its timeout.
pub(crate) struct Target {
    pub name: String,
    pub timeout: Duration,
}

/// A tool a discovery provider of a mini tool found for a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Discovered {
    pub minitool: String,
    /// The name the mini tool registered it under.
    pub name: String,
    /// The model-facing name it asks for (`naming::minitool_tool`).
    pub wanted_name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub score: Option<f64>,
}

/// An MCP server a mini tool registered at run time through the `mcp.client` capability.
#[derive(Debug, Clone, PartialEq)]
pub struct McpRegistration {
    pub minitool: String,
    /// Its package directory: the server runs confined as the mini tool
    /// (`minitool::confine::ServerConfinement`).
    pub dir: PathBuf,
    /// The normalized name (lowercase, `[^a-z0-9]` → `_`) that merging goes by (§9.2).
    pub name: String,
    /// The config as registered (`{name, command, args, env, cwd}` or `{name, url, headers}`).
    pub config: Value,
}

/// A UI surface a mini tool asked for that this host does not show.
#[derive(Debug, Clone, PartialEq)]
pub struct UnsupportedUse {
    pub minitool: String,
    /// The `ctx` member: `ui.createPanel`, `composerActions.register`, …
    pub kind: String,
    pub detail: Option<String>,
}

impl UnsupportedUse {
    /// `composerActions.register(plan-mode)`.
    pub fn describe(&self) -> String {
        format!("{}({})", self.kind, self.detail.as_deref().unwrap_or(""))
    }
}

/// The session a runtime's mini tools see as `ctx.session` and `ctx.workspace`.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    pub id: String,
    pub cwd: PathBuf,
    pub project: PathBuf,
    pub trusted: Vec<PathBuf>,
    /// The person's permission mode for the run: the widest an agent session a mini tool
    /// starts may have (`sessions`).
    pub mode: crate::host::policy::Mode,
    /// `--approve`: the tools whose cards are answered "allow", which holds for an MCP tool
    /// a mini tool calls through `mcp.client` as for the model's own call of it.
    pub approve: Vec<String>,
}

impl SessionInfo {
    fn session_view(&self) -> protocol::SessionView<'_> {
        protocol::SessionView {
            id: &self.id,
            title: None,
            space_id: None,
            cwd: &self.cwd,
            model: "",
        }
    }

    fn workspace_view(&self) -> protocol::WorkspaceView<'_> {
        protocol::WorkspaceView {
            space_id: None,
            space_name: None,
            directory_path: None,
            project_path: &self.project,
            cwd: &self.cwd,
            root: &self.project,
            root_path: &self.project,
            trusted_dirs: &self.trusted,
        }
    }
}

/// What `start` needs.
pub struct StartOptions<'a> {
    pub homes: &'a Homes,
    pub settings: &'a Settings,
    pub env: &'a Env,
    /// `--minitool` directories, absolute.
    pub dirs: &'a [PathBuf],
    pub session: Option<SessionInfo>,
    /// Where events go; `stderr_hook(false)` when `None`.
    pub hook: Option<EventHook>,
    /// Start only these enabled mini tools, and those providing the capabilities they require
    /// (transitively); every enabled one when `None`. `--minitool` directories always start.
    pub only: Option<&'a [String]>,
    /// Activate in the background the installed mini tools that have tools here (the catalog
    /// cache `finch reload` wrote): `start` returns once the others (and the `--minitool`
    /// directories) are active, and until a background activation ends the mini tool's tools
    /// are the cached ones, so the host lists and searches them at once; a call of one waits
    /// for its activation (see `await_background`). Background failures are reported through
    /// the event hook as they happen, not in the start report. `None`: every mini tool is
    /// active (or failed) when `start` returns.
    pub background: Option<Vec<ToolDef>>,
    /// Who agrees that a mini tool the kernel cannot confine here runs unconfined (asked once
    /// for each such mini tool before anything starts); `None`: nobody, so it does not start
    /// unless a grant is recorded.
    pub consent: Option<&'a dyn crate::minitool::confine::Consent>,
}

/// Why the runtime could not start at all: a `--minitool` directory the author must fix.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("--minitool {}: no mini tool there (no finch.json, and no package.json with a \"finch\" object)", .0.display())]
    NotAMiniTool(PathBuf),
    #[error("--minitool {}: {message}", dir.display())]
    Invalid { dir: PathBuf, message: String },
}

/// The runtime: a cheap handle (clones share the processes). The processes stop — each gets
/// `deactivate()` within `[runtime] shutdown_timeout`, then its process group is killed — when
/// `shutdown` is called or the last handle is dropped.
#[derive(Clone)]
pub struct MiniToolRuntime {
    inner: Arc<Inner>,
    _guard: Arc<Guard>,
}

/// Shuts the runtime down when the last handle goes. The reader threads hold `Inner` too (a
/// mini tool's `deactivate()` may still use storage), so the handles hold this as well.
struct Guard(Arc<Inner>);

impl Drop for Guard {
    fn drop(&mut self) {
        self.0.shutdown();
    }
}
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

pub(crate) struct Inner {
    settings: RuntimeSettings,
    homes: Homes,
    /// `[agent] command`, for `ctx.sessions`.
    agent_command: Option<Vec<String>>,
    /// Host calls running now, for `ctx.status`.
    running: AtomicU64,
    /// Every manifest contribution, by extension point (sent with `activate`).
    contributions: Value,
    node: Result<PathBuf, String>,
    bootstrap: Result<PathBuf, String>,
    /// What a confined mini tool's process is given of finch's environment and settings.
    confine_env: ConfineEnv,
    instances: Vec<Arc<Instance>>,
    app_info: Value,
    session: Mutex<Option<SessionInfo>>,
    capabilities: Mutex<services::Capabilities>,
    mcp: Mutex<Vec<McpRegistration>>,
    /// The running MCP bridge, once the host started it (`set_mcp_bridge`).
    bridge: Mutex<Option<crate::host::mcp::McpHandle>>,
    /// The host's permission rules (`set_rules`): the gateway of the MCP tool calls mini tools
    /// make through `mcp.client`.
    rules: Mutex<crate::host::policy::Rules>,
    /// The MCP tool calls mini tools made through `mcp.client.callTool`, decided or answered
    /// since the host last took them (`Provider::take_made_calls`).
    made_calls: Mutex<Vec<crate::host::call::record::MadeCall>>,
    /// `(mini tool, mcp__server__tool)` a person allowed for this session on the card of a
    /// `mcp.client.callTool`: those calls take no card again while this runtime runs.
    calls_allowed_for_session: Mutex<Vec<(String, String)>>,
    unsupported: Mutex<Vec<UnsupportedUse>>,
    /// The calls running now, by `toolCallId`: where each one's dialogs and progress go.
    calls: Mutex<Vec<CallRoute>>,
    /// The modal dialogs their mini tools closed (`close(action)`), by `dialogId`.
    closed_dialogs: Mutex<Vec<String>>,
    /// The turns whose agent output this process is tailing (`sessions::watch`): their
    /// durable events wait until the last `assistant.delta` went out.
    watching: Mutex<Vec<String>>,
    hook: RwLock<EventHook>,
    keyring: secrets::Keyring,
    spawner: Spawner,
    /// Bumped on every tool registration change.
    tools_version: AtomicU64,
    /// A background activation of the installed mini tools is under way.
    activating: AtomicBool,
    /// `tools_version` when the runtime shut down: what the deactivations dispose of then
    /// stays in the host's catalog, whose calls answer that the runtime has shut down.
    version_at_shutdown: AtomicU64,
    call_seq: AtomicU64,
    shut: AtomicBool,
}

impl MiniToolRuntime {
    /// Loads every enabled mini tool of both tiers and the `--minitool` directories, activates
    /// them in parallel, and reports on each. Only a `--minitool` directory that is not a valid
    /// mini tool fails the whole start; an unreadable `extensions.json` or tier is a problem in
    /// the report (no installed mini tool starts), so the host itself stays usable.
    pub fn start(opts: StartOptions) -> Result<(MiniToolRuntime, StartReport), StartError> {
        let mut reports = Vec::new();
        let mut problems = Vec::new();
        let candidates = instance::candidates(opts.homes, opts.dirs, &mut reports, &mut problems)?;
        let extension_records = crate::store::read_json_object(&opts.homes.extensions_json())
            .ok()
            .flatten()
            .and_then(|doc| doc.get("extensions").and_then(Value::as_object).cloned())
            .unwrap_or_default();
        let locale = instance::locale(opts.settings.runtime.locale.as_deref(), opts.env);
        let instances: Vec<Arc<Instance>> = candidates
            .into_iter()
            .map(|(m, origin)| {
                Arc::new(instance::build(
                    opts.homes,
                    opts.settings,
                    &m,
                    origin,
                    &extension_records,
                    &locale,
                ))
            })
            .collect();
        let mut instances = match opts.only {
            Some(ids) => instance::needed(instances, ids),
            None => instances,
        };
        if let Some(consent) = opts.consent {
            for inst in &mut instances {
                confine::agree_unconfined(inst, consent);
            }
        }
        let node = crate::node::find_node(opts.settings, opts.env)
            .map(|(path, _)| path)
            .ok_or_else(|| {
                "node was not found: set node = \"/path/to/node\" in finch.toml, or FINCH_NODE, or put node (18 or newer) on PATH".to_string()
            });
        let bootstrap = if instances.is_empty() {
            Err("not needed".to_string())
        } else {
            process::ensure_bootstrap(&opts.homes.runtime).map_err(|e| {
                format!(
                    "cannot write the bootstrap under {}: {e}",
                    opts.homes.runtime.join("cache/runtime").display()
                )
            })
        };
        let version = env!("CARGO_PKG_VERSION");
        let app_info = json!({
            "name": "finch",
            "version": version,
            "buildNumber": 0,
            "versionDisplay": version,
            "userAgent": format!("finch/{version}"),
            "assistantName": "Finch",
            "host": "finch",
            "headless": true,
            "locale": locale,
            "runtimeHome": opts.homes.runtime,
            "agentHome": opts.homes.agent,
        });
        let contributions = services::contributions(&instances);
        let inner = Arc::new(Inner {
            settings: opts.settings.runtime.clone(),
            homes: opts.homes.clone(),
            agent_command: opts.settings.agent_command.clone(),
            running: AtomicU64::new(0),
            contributions,
            node,
            bootstrap,
            confine_env: ConfineEnv {
                vars: opts
                    .env
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.clone()))
                    .collect(),
                extra_env: opts.settings.sandbox.env.clone(),
                extra_read: opts.settings.sandbox.read.clone(),
                home: opts.env.home_dir(),
                agent: crate::host::call::confine::approved_confine(&opts.settings.sandbox),
            },
            instances,
            app_info,
            session: Mutex::new(opts.session),
            capabilities: Mutex::new(services::Capabilities::default()),
            mcp: Mutex::new(Vec::new()),
            bridge: Mutex::new(None),
            rules: Mutex::new(crate::host::policy::Rules::default()),
            made_calls: Mutex::new(Vec::new()),
            calls_allowed_for_session: Mutex::new(Vec::new()),
            unsupported: Mutex::new(Vec::new()),
            calls: Mutex::new(Vec::new()),
            closed_dialogs: Mutex::new(Vec::new()),
            watching: Mutex::new(Vec::new()),
            hook: RwLock::new(opts.hook.unwrap_or_else(|| stderr_hook(false))),
            keyring: secrets::Keyring::new(
                opts.settings.runtime.keyring,
                &opts.homes.runtime,
                opts.settings.lock_timeout,
            ),
            spawner: Spawner::new(),
            tools_version: AtomicU64::new(0),
            activating: AtomicBool::new(false),
            version_at_shutdown: AtomicU64::new(0),
            call_seq: AtomicU64::new(0),
            shut: AtomicBool::new(false),
        });
        let now: Vec<Arc<Instance>> = match opts.background {
            Some(cached) => {
                // In the background: the installed mini tools the cache has tools of. A
                // `--minitool` directory, or a mini tool the cache knows nothing of, has no
                // tools to show meanwhile, so it starts before `start` returns.
                let (later, now) = inner.instances.iter().cloned().partition(|i| {
                    let source = format!("minitool:{}", i.id);
                    i.origin != Origin::Dir && cached.iter().any(|d| d.source == source)
                });
                inner.activate_in_background(later, cached);
                now
            }
            None => inner.instances.clone(),
        };
        let results = inner.activate(&now);
        let recorded = lock(&inner.unsupported).clone();
        for (inst, result) in now.iter().zip(results) {
            let not_shown = recorded
                .iter()
                .filter(|u| u.minitool == inst.id)
                .map(UnsupportedUse::describe)
                .collect();
            reports.push(ToolReport {
                not_shown,
                sandbox: Some(inst.sandbox.to_json(inst.declared)),
                id: inst.id.clone(),
                display_name: inst.display_name.clone(),
                version: inst.version.clone(),
                origin: inst.origin,
                path: inst.dir.clone(),
                log: inst.log.clone(),
                outcome: match result {
                    Ok(tools) => Outcome::Activated { tools },
                    Err(error) if inst.sandbox.refusal(&inst.id).is_some() => {
                        Outcome::Refused { error }
                    }
                    Err(error) => Outcome::Failed { error },
                },
            });
        }
        let guard = Arc::new(Guard(inner.clone()));
        Ok((
            MiniToolRuntime {
                inner,
                _guard: guard,
            },
            StartReport {
                tools: reports,
                problems,
            },
        ))
    }

    /// Replaces the event hook (the console's progress display, say).
    pub fn set_event_hook(&self, hook: EventHook) {
        *self.inner.hook.write().unwrap_or_else(|e| e.into_inner()) = hook;
    }

    /// Asks every mini tool's discovery (search) providers about `query` and returns the tools
    /// they name that their mini tool registered, best first where they gave scores.
    pub fn discover(&self, query: &str, limit: usize) -> Vec<Discovered> {
        self.inner.discover(query, limit)
    }

    /// MCP servers registered through the `mcp.client` capability, in registration order (a
    /// later registration of the same normalized name replaced the earlier one).
    pub fn mcp_registrations(&self) -> Vec<McpRegistration> {
        lock(&self.inner.mcp).clone()
    }

    /// Gives `mcp.client` the MCP bridge the host started after this runtime (the bridge needs
    /// the servers mini tools registered while they activated, so it cannot exist before).
    /// Until then `listTools`, `callTool` and the statuses know no connected server.
    pub fn set_mcp_bridge(&self, handle: crate::host::mcp::McpHandle) {
        *lock(&self.inner.bridge) = Some(handle);
    }

    /// Gives `mcp.client` the host's permission rules, which its `callTool` passes as the MCP
    /// tool call it is (`mcp_client`).
    pub fn set_rules(&self, rules: crate::host::policy::Rules) {
        *lock(&self.inner.rules) = rules;
    }

    /// Whether a mini tool of this run declares `capability` in `requires.capabilities`.
    pub fn requires(&self, capability: &str) -> bool {
        self.inner
            .instances
            .iter()
            .any(|i| i.requires.iter().any(|c| c == capability))
    }

    /// UI surfaces asked for and not shown (panels, canvases, composer actions, …).
    pub fn unsupported(&self) -> Vec<UnsupportedUse> {
        lock(&self.inner.unsupported).clone()
    }

    /// The pids of the running mini tool processes, by id (for tests and `doctor`).
    pub fn pids(&self) -> Vec<(String, u32)> {
        self.inner
            .instances
            .iter()
            .filter_map(|i| i.conn().map(|c| (i.id.clone(), c.pid)))
            .collect()
    }

    /// Stops every mini tool: `deactivate()` (bounded by `[runtime] shutdown_timeout`), then
    /// the process groups are killed. Calls after this fail.
    pub fn shutdown(&self) {
        self.inner.shutdown();
    }
}

impl Provider for MiniToolRuntime {
    fn discover(&self, query: &str, limit: usize) -> Vec<(String, String)> {
        MiniToolRuntime::discover(self, query, limit)
            .into_iter()
            .map(|d| (format!("minitool:{}", d.minitool), d.name))
            .collect()
    }

    fn generation(&self) -> u64 {
        if self.inner.shut.load(Ordering::SeqCst) {
            return self.inner.version_at_shutdown.load(Ordering::SeqCst);
        }
        self.inner.tools_version.load(Ordering::SeqCst)
    }

    fn observe(&self, event: &super::CallEvent) {
        self.inner.observe(event);
    }

    fn take_made_calls(&self) -> Vec<crate::host::call::record::MadeCall> {
        std::mem::take(&mut *lock(&self.inner.made_calls))
    }

    /// A tool named as a refused mini tool's would be (`<id>_…`): that mini tool was not
    /// started, and the refusal says how a person lets it.
    fn not_started(&self, name: &str) -> Option<String> {
        self.inner
            .instances
            .iter()
            .filter(|i| name.starts_with(&crate::host::naming::minitool_tool(&i.id, "")))
            .max_by_key(|i| i.id.len())
            .and_then(|i| i.sandbox.refusal(&i.id))
    }

    /// `filesystem read, network false, shell false (enforced)`: its manifest's rights.
    fn card_reach(&self, tool: &ToolSpec) -> Option<String> {
        let id = tool.def.source.strip_prefix("minitool:")?;
        let inst = self.inner.instances.iter().find(|i| i.id == id)?;
        Some(crate::minitool::confine::describe(
            &inst.sandbox.to_json(inst.declared),
        ))
    }

    fn defs(&self) -> Vec<ToolDef> {
        self.inner
            .instances
            .iter()
            .flat_map(|i| {
                let st = i.state();
                match &st.cached {
                    Some(cached) => cached.clone(),
                    None => st.tools.iter().map(|t| t.def.clone()).collect::<Vec<_>>(),
                }
            })
            .collect()
    }

    fn call(&mut self, tool: &ToolSpec, args: Value, cx: &mut CallCx) -> ToolOutput {
        let started = self.start(tool, args, cx);
        started.run_here(cx.cancel, cx.progress, cx.prompter)
    }

    /// Every call is a job: calls of several mini tools, and of one mini tool (its process
    /// runs them side by side), go on at once under `--serve mcp`. A call that changed the
    /// tools moves `generation`, which the host reads when it records the call.
    fn start(&mut self, tool: &ToolSpec, args: Value, cx: &mut CallCx) -> Started {
        let id = tool
            .def
            .source
            .strip_prefix("minitool:")
            .unwrap_or_default();
        let Some(inst) = self.inner.instances.iter().find(|i| i.id == id).cloned() else {
            return Started::Done(ToolOutput::error(format!(
                "`{}` belongs to mini tool \"{id}\", which is not loaded in this run",
                tool.name
            )));
        };
        let session = SessionInfo {
            id: cx.session.id.clone(),
            cwd: cx.session.cwd.clone(),
            project: cx.session.project.clone(),
            trusted: cx.session.trusted.clone(),
            mode: cx.session.mode,
            approve: cx.session.approve.clone(),
        };
        // The job keeps the two names it needs, not the tool's whole definition.
        let (inner, name, raw) = (
            self.inner.clone(),
            tool.name.clone(),
            tool.def.raw_name.clone(),
        );
        Started::Job(Box::new(move |job: &JobCx| {
            inner.call(&inst, (&name, &raw), args, session, job)
        }))
    }
}

fn now_iso() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// `1.5 s`, `30 s`, `200 ms`.
fn seconds(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{} ms", d.as_millis())
    } else if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// `<runtime>/cache/not-shown.json`: `{"<mini tool id>": ["ui.createPanel(x)", …]}`, what each
/// mini tool contributed at its last `finch reload` that finch cannot show; `finch tool info`
/// reads it. Beside the catalog cache, and like it only a cache.
pub fn not_shown_cache(homes: &Homes) -> PathBuf {
    homes.runtime.join("cache").join("not-shown.json")
}

/// Records the `not_shown` of `reports` in the cache, keeping the entries of mini tools they
/// do not cover (`finch reload <id>`). A cache that does not parse is replaced.
pub fn record_not_shown<'a>(
    homes: &Homes,
    reports: impl IntoIterator<Item = &'a ToolReport>,
) -> Result<(), crate::store::JsonError> {
    let path = not_shown_cache(homes);
    let mut doc = crate::store::read_json_object(&path)
        .ok()
        .flatten()
        .unwrap_or_default();
    for r in reports {
        if r.not_shown.is_empty() {
            doc.remove(&r.id);
        } else {
            doc.insert(r.id.clone(), json!(r.not_shown));
        }
    }
    crate::store::write_json(&path, &Value::Object(doc))
}

/// What mini tool `id` contributed at its last `finch reload` that finch cannot show.
pub fn not_shown_of(homes: &Homes, id: &str) -> Vec<String> {
    crate::store::read_json_object(&not_shown_cache(homes))
        .ok()
        .flatten()
        .and_then(|doc| doc.get(id).and_then(Value::as_array).cloned())
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

/// The normalized MCP server name merging goes by (SPEC §9.2).
pub(crate) fn normalize_server_name(name: &str) -> String {
    name.to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

#[cfg(test)]
mod tests;
