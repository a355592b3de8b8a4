//! The mini tool runtime of SPEC §9.1: one `node` process per enabled mini tool (and per
//! `--minitool` directory), each running the bootstrap shipped in this binary, which imports the
//! mini tool's ES module entry and calls its `activate(ctx)`. Host and bootstrap speak JSON-RPC
//! 2.0 over fd 3 (`rpc`); the mini tool's own output goes to `<runtime>/logs/minitools/<id>.log`.
//! To the host the runtime is one `Provider`: its tools are what the mini tools registered.
//!
//! Threads: each process has a reader thread that answers what the mini tool asks the host
//! (storage, secrets, capabilities, tool registrations — `services`; agent sessions —
//! `sessions`) and routes answers. During a burst of calls a call reads its own answer
//! instead, handling what comes before it the same way (`rpc` says when; `Inner::read_own`),
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

mod localized;
mod process;
mod protocol;
mod rpc;
pub mod secrets;
mod services;
mod sessions;
mod storage;
mod ui;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::catalog::{ToolDef, ToolSpec};
use super::output::{Content, ToolOutput};
use super::prompt;
use super::{CallCx, JobCx, Provider, Started};
use crate::config::{RuntimeSettings, Settings};
use crate::env::Env;
use crate::homes::{Homes, Tier};
use crate::minitool::manifest::{self, Manifest, Severity};
use crate::minitool::{listing, tier};
use process::Spawner;
use protocol::{FromChild, HostPush, HostRequest};
use rpc::{Conn, MainMsg, Pending, ReadEnd, RpcError, RpcResult, StopReason};
use storage::Storage;

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

/// What a confined mini tool's process is given of finch's environment and settings.
struct ConfineEnv {
    vars: Vec<(String, std::ffi::OsString)>,
    /// `[sandbox] env`.
    extra_env: Vec<String>,
    /// `[sandbox] read`.
    extra_read: Vec<PathBuf>,
    home: Option<PathBuf>,
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

pub(crate) struct Instance {
    pub id: String,
    pub display_name: String,
    pub version: Option<String>,
    pub dir: PathBuf,
    pub main: String,
    pub origin: Origin,
    pub log: PathBuf,
    pub storage: Storage,
    /// `permissions.secrets` patterns.
    pub secrets: Vec<String>,
    pub provides: Vec<String>,
    pub requires: Vec<String>,
    pub settings: Map<String, Value>,
    pub i18n: Value,
    /// Its display strings in every locale, for its tools' search text.
    pub localized: localized::Localized,
    pub contributes: Map<String, Value>,
    /// What its manifest (and a person's grants) declare, and how the kernel holds it to that
    /// (`minitool::confine`).
    pub declared: crate::minitool::confine::Declared,
    pub sandbox: crate::minitool::confine::Mode,
    /// The confinement of the running process (its private TMPDIR lives as long as this).
    confinement: Mutex<Option<crate::sandbox::Confinement>>,
    state: Mutex<InstanceState>,
    /// Held while a call starts (or restarts) the process, so that calls running side by
    /// side start it once.
    starting: Mutex<()>,
    /// The session its process was last sent with an `execute` (`Weak`: the process it was
    /// sent to, whose allocation this keeps from being reused by another's): a call sends the
    /// session again only when it differs or the process is another.
    told: Mutex<Option<(std::sync::Weak<Conn>, SessionInfo)>>,
}

struct InstanceState {
    phase: Phase,
    tools: Vec<Registered>,
    /// While a background activation has not reached this mini tool's end: its tools as the
    /// catalog cache has them.
    cached: Option<Vec<ToolDef>>,
    /// Discovery providers the mini tool has registered.
    discovery: usize,
    /// The pushed streams (`agentEvents`, `status`) it has listeners for.
    listens: Vec<String>,
    /// Consecutive failures (the backoff's exponent).
    failures: u32,
}

enum Phase {
    Idle,
    Starting(Arc<Conn>),
    Active(Arc<Conn>),
    Down { reason: String, at: Instant },
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Instance {
    fn state(&self) -> MutexGuard<'_, InstanceState> {
        lock(&self.state)
    }

    /// The live process, when there is one (starting or active).
    pub(crate) fn conn(&self) -> Option<Arc<Conn>> {
        match &self.state().phase {
            Phase::Starting(c) | Phase::Active(c) => Some(c.clone()),
            _ => None,
        }
    }

    pub(crate) fn is_current(&self, conn: &Arc<Conn>) -> bool {
        self.conn().is_some_and(|c| Arc::ptr_eq(&c, conn))
    }

    pub(crate) fn is_starting(&self) -> bool {
        matches!(self.state().phase, Phase::Starting(_))
    }

    /// The mini tool's first listener of a pushed stream came, or its last one went.
    pub(crate) fn listen(&self, stream: &str, on: bool) {
        let mut st = self.state();
        st.listens.retain(|s| s != stream);
        if on {
            st.listens.push(stream.to_string());
        }
    }

    /// A mini tool's error, led by the declaration it ran into when the kernel refused it
    /// something ("blocked: finch-x declares network: false (…)", `minitool::confine::explain`).
    fn explain(&self, message: &str) -> String {
        match &self.sandbox {
            crate::minitool::confine::Mode::Enforced(declared) => {
                crate::minitool::confine::explain(&self.id, declared, message)
                    .unwrap_or_else(|| message.to_string())
            }
            _ => message.to_string(),
        }
    }

    /// What a call of its tool `name` needs of it (not its whole definition, which stays).
    fn registered(&self, name: &str) -> Option<Target> {
        self.state()
            .tools
            .iter()
            .find(|t| t.name == name)
            .map(|t| Target {
                name: t.name.clone(),
                timeout: t.timeout,
            })
    }

    /// The process `conn` is down for `reason`: if it is the current one, the mini tool is
    /// stopped and one more failure counts toward its backoff.
    fn mark_down(&self, conn: &Arc<Conn>, reason: &str) -> bool {
        let mut st = self.state();
        let current =
            matches!(&st.phase, Phase::Starting(c) | Phase::Active(c) if Arc::ptr_eq(c, conn));
        if current {
            st.phase = Phase::Down {
                reason: reason.to_string(),
                at: Instant::now(),
            };
            st.failures = st.failures.saturating_add(1);
        }
        current
    }
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
    unsupported: Mutex<Vec<UnsupportedUse>>,
    /// The calls running now, by `toolCallId`: where each one's dialogs and progress go.
    calls: Mutex<Vec<CallRoute>>,
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
        let candidates = candidates(opts.homes, opts.dirs, &mut reports, &mut problems)?;
        let extension_records = crate::store::read_json_object(&opts.homes.extensions_json())
            .ok()
            .flatten()
            .and_then(|doc| doc.get("extensions").and_then(Value::as_object).cloned())
            .unwrap_or_default();
        let locale = locale(opts.settings.runtime.locale.as_deref(), opts.env);
        let instances: Vec<Arc<Instance>> = candidates
            .into_iter()
            .map(|(m, origin)| {
                Arc::new(instance(
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
            Some(ids) => needed(instances, ids),
            None => instances,
        };
        if let Some(consent) = opts.consent {
            for inst in &mut instances {
                agree_unconfined(inst, consent);
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
            },
            instances,
            app_info,
            session: Mutex::new(opts.session),
            capabilities: Mutex::new(services::Capabilities::default()),
            mcp: Mutex::new(Vec::new()),
            bridge: Mutex::new(None),
            unsupported: Mutex::new(Vec::new()),
            calls: Mutex::new(Vec::new()),
            hook: RwLock::new(opts.hook.unwrap_or_else(|| stderr_hook(false))),
            keyring: secrets::Keyring::new(opts.settings.runtime.keyring),
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

impl Inner {
    pub(crate) fn emit(&self, event: RuntimeEvent) {
        if let RuntimeEvent::Fault {
            minitool, message, ..
        } = &event
        {
            // What finch would notify a person of, for `ctx.notifications.onDidPost`.
            let seq = self.call_seq.fetch_add(1, Ordering::SeqCst) + 1;
            self.broadcast(
                HostPush::Notification,
                &json!({"id": format!("ntf_{seq}"), "kind": "error", "createdAt": now_iso(),
                        "title": format!("mini tool {minitool} {message}")}),
            );
        }
        let hook = self.hook.read().unwrap_or_else(|e| e.into_inner()).clone();
        hook(&event);
    }

    pub(crate) fn instance_of(&self, conn: &Conn) -> Option<&Arc<Instance>> {
        self.instances.iter().find(|i| i.id == conn.id)
    }

    fn backoff(&self, failures: u32) -> Duration {
        let base = self.settings.restart_backoff;
        let factor = 2u32.saturating_pow(failures.saturating_sub(1).min(20));
        base.saturating_mul(factor)
            .min(self.settings.restart_backoff_max)
    }

    fn clamp_timeout(&self, requested: Option<Duration>) -> Duration {
        match requested {
            None => self.settings.call_timeout,
            Some(t) => t.clamp(
                self.settings.call_timeout_min,
                self.settings.call_timeout_max,
            ),
        }
    }

    /// Activates `insts` on a thread of their own (see `StartOptions::background`): until each
    /// one's activation ends, its tools are its entries in `cached`. A failure is reported as a
    /// fault; once all have ended the tools version moves, so the host rebuilds its catalog.
    fn activate_in_background(self: &Arc<Inner>, insts: Vec<Arc<Instance>>, cached: Vec<ToolDef>) {
        if insts.is_empty() {
            return;
        }
        for inst in &insts {
            let source = format!("minitool:{}", inst.id);
            let defs = cached.iter().filter(|d| d.source == source).cloned();
            inst.state().cached = Some(defs.collect());
        }
        self.activating.store(true, Ordering::SeqCst);
        let inner = self.clone();
        let work = move || {
            let results = inner.activate(&insts);
            // A runtime that shut down meanwhile (the run ended, a reload) stopped them itself.
            let shut = inner.shut.load(Ordering::SeqCst);
            for (inst, result) in insts.iter().zip(results) {
                inst.state().cached = None;
                if let (Err(error), false) = (result, shut) {
                    inner.emit(RuntimeEvent::Fault {
                        minitool: inst.id.clone(),
                        message: format!("failed to start: {error}"),
                        log: inst.log.clone(),
                    });
                }
            }
            inner.activating.store(false, Ordering::SeqCst);
            inner.tools_version.fetch_add(1, Ordering::SeqCst);
            inner.emit(RuntimeEvent::ToolsChanged);
        };
        let spawned = std::thread::Builder::new()
            .name("finch-activate".into())
            .spawn(work);
        if let Err(e) = spawned {
            // No thread to spare: each mini tool starts on its first call instead.
            self.activating.store(false, Ordering::SeqCst);
            for inst in &self.instances {
                inst.state().cached = None;
            }
            self.emit(RuntimeEvent::Fault {
                minitool: "(all)".into(),
                message: format!(
                    "cannot start in the background ({e}); each starts on its first call"
                ),
                log: PathBuf::new(),
            });
        }
    }

    /// While a background activation runs, waits until `inst` is past it (active, stopped, or
    /// not among those it starts), at most its activation timeout and a second.
    fn await_background(&self, inst: &Instance) {
        let deadline = Instant::now() + self.settings.activate_timeout + Duration::from_secs(1);
        while self.activating.load(Ordering::SeqCst) && Instant::now() < deadline {
            let st = inst.state();
            if st.cached.is_none() || !matches!(st.phase, Phase::Idle | Phase::Starting(_)) {
                return;
            }
            drop(st);
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Starts and activates `insts` in parallel: `Ok(tool count)` or the reason each failed.
    /// Every process starts at once, but a mini tool that requires a capability another one of
    /// `insts` declares in `provides` gets `activate` only once that one's activation settled,
    /// so that its synchronous `capabilities.has()` in `activate()` already knows.
    fn activate(self: &Arc<Inner>, insts: &[Arc<Instance>]) -> Vec<Result<usize, String>> {
        let (tx, rx) = mpsc::channel();
        let mut results: Vec<Option<Result<usize, String>>> = vec![None; insts.len()];
        let mut waiting: HashMap<u64, (Arc<Conn>, Instant)> = HashMap::new();
        let mut held: Vec<(usize, Arc<Conn>)> = Vec::new();
        for (i, inst) in insts.iter().enumerate() {
            match self.begin(inst) {
                Ok(conn) => held.push((i, conn)),
                Err(e) => {
                    self.settle_capabilities();
                    results[i] = Some(Err(e));
                }
            }
        }
        self.release(insts, &mut held, &mut waiting, &mut results, &tx);
        while !waiting.is_empty() {
            let now = Instant::now();
            let next = waiting.values().map(|(_, d)| *d).min().unwrap_or(now);
            match rx.recv_timeout(next.saturating_duration_since(now)) {
                Ok(MainMsg::Reply { tag, result }) => {
                    if let Some((conn, _)) = waiting.remove(&tag) {
                        let i = tag as usize;
                        results[i] = Some(self.finish_activation(&insts[i], &conn, result));
                        self.release(insts, &mut held, &mut waiting, &mut results, &tx);
                    }
                }
                // Prompts are never routed here; answer one anyway rather than leave it waiting.
                Ok(MainMsg::Prompt { from, id, .. }) => from.reply(
                    id,
                    Err(RpcError::refused("no person can answer during activation")),
                ),
                Ok(MainMsg::Show { from, id, view, .. }) => {
                    if let Some(inst) = self.instance_of(&from) {
                        services::not_shown(self, inst, &view);
                    }
                    from.reply(id, Ok(Value::Null));
                }
                Ok(MainMsg::Progress(_) | MainMsg::Cancelled | MainMsg::Unseen(_)) => {}
                Err(RecvTimeoutError::Timeout) => {
                    let now = Instant::now();
                    let expired: Vec<u64> = waiting
                        .iter()
                        .filter(|(_, (_, d))| *d <= now)
                        .map(|(t, _)| *t)
                        .collect();
                    for tag in expired {
                        if let Some((conn, _)) = waiting.remove(&tag) {
                            let i = tag as usize;
                            let reason = format!(
                                "activate() did not settle within {}",
                                seconds(self.settings.activate_timeout)
                            );
                            conn.stop(StopReason::Fault(reason.clone()));
                            insts[i].mark_down(&conn, &reason);
                            self.drop_tools(&insts[i]);
                            self.settle_capabilities();
                            results[i] = Some(Err(reason));
                        }
                    }
                    self.release(insts, &mut held, &mut waiting, &mut results, &tx);
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err("activation was interrupted".into())))
            .collect()
    }

    /// Sends `activate` to every held process that no longer waits for a provider; the answer
    /// goes to `tx`, tagged with its index. When every held one waits on another held one (a
    /// cycle of requirements), they all go.
    fn release(
        &self,
        insts: &[Arc<Instance>],
        held: &mut Vec<(usize, Arc<Conn>)>,
        waiting: &mut HashMap<u64, (Arc<Conn>, Instant)>,
        results: &mut [Option<Result<usize, String>>],
        tx: &Sender<MainMsg>,
    ) {
        // Sends can fail (the process died at once): then try the others again.
        while !held.is_empty() {
            self.release_once(insts, held, waiting, results, tx);
            if !waiting.is_empty() {
                break;
            }
        }
    }

    fn release_once(
        &self,
        insts: &[Arc<Instance>],
        held: &mut Vec<(usize, Arc<Conn>)>,
        waiting: &mut HashMap<u64, (Arc<Conn>, Instant)>,
        results: &mut [Option<Result<usize, String>>],
        tx: &Sender<MainMsg>,
    ) {
        let unsettled: Vec<usize> = waiting
            .keys()
            .map(|t| *t as usize)
            .chain(held.iter().map(|(i, _)| *i))
            .collect();
        let blocked = |i: usize| {
            unsettled.iter().any(|&j| {
                j != i
                    && insts[j]
                        .provides
                        .iter()
                        .any(|c| insts[i].requires.contains(c))
            })
        };
        let ready: Vec<usize> = held
            .iter()
            .map(|(i, _)| *i)
            .filter(|&i| !blocked(i))
            .collect();
        let go: Vec<(usize, Arc<Conn>)> = if ready.is_empty() && waiting.is_empty() {
            std::mem::take(held)
        } else {
            let (go, stay) = std::mem::take(held)
                .into_iter()
                .partition(|(i, _)| ready.contains(i));
            *held = stay;
            go
        };
        for (i, conn) in go {
            let params = self.activation_params(&insts[i]);
            let pending = Pending::Main {
                tx: tx.clone(),
                tag: i as u64,
            };
            match conn.request(HostRequest::Activate, params, pending) {
                Ok(_) => {
                    waiting.insert(
                        i as u64,
                        (conn, Instant::now() + self.settings.activate_timeout),
                    );
                }
                Err(e) => {
                    let reason = format!("cannot send activate: {e}");
                    conn.stop(StopReason::Fault(reason.clone()));
                    insts[i].mark_down(&conn, &reason);
                    self.settle_capabilities();
                    results[i] = Some(Err(reason));
                }
            }
        }
    }

    /// Spawns the process of `inst` (its `activate` is sent by `release`).
    fn begin(self: &Arc<Inner>, inst: &Arc<Instance>) -> Result<Arc<Conn>, String> {
        if self.shut.load(Ordering::SeqCst) {
            return Err("the runtime is shutting down".into());
        }
        let node = self.node.clone()?;
        let bootstrap = self.bootstrap.clone()?;
        storage::ensure_dir(&inst.storage.dir)?;
        let header = format!(
            "{}{} finch {}: starting {}{} from {}",
            process::LOG_HEADER,
            chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            env!("CARGO_PKG_VERSION"),
            inst.id,
            inst.version
                .as_deref()
                .map(|v| format!(" {v}"))
                .unwrap_or_default(),
            inst.dir.display()
        );
        let log = process::open_log(&inst.log, &header)
            .map_err(|e| format!("cannot open its log {}: {e}", inst.log.display()))?;
        let (ours, theirs) =
            process::pair().map_err(|e| format!("cannot create its channel: {e}"))?;
        let reader = ours
            .try_clone()
            .map_err(|e| format!("cannot create its channel: {e}"))?;
        if let Some(refusal) = inst.sandbox.refusal(&inst.id) {
            return Err(refusal);
        }
        let confine = match &inst.sandbox {
            crate::minitool::confine::Mode::Enforced(declared) => Some(Box::new(
                self.confine_spec(inst, declared, &node, &bootstrap),
            )),
            _ => None,
        };
        let (child, confinement) = self
            .spawner
            .spawn(process::SpawnSpec {
                node: node.clone(),
                bootstrap,
                cwd: inst.dir.clone(),
                log,
                channel: theirs,
                confine,
            })
            .map_err(|e| {
                format!(
                    "cannot start {}: {e} (set node in finch.toml or FINCH_NODE, or put node on PATH)",
                    node.display()
                )
            })?;
        *lock(&inst.confinement) = confinement;
        let pid = child.id();
        let conn = match Conn::new(&inst.id, child, ours, reader) {
            Ok(c) => Arc::new(c),
            Err(e) => {
                process::kill_group(pid);
                return Err(format!("cannot set up its channel: {e}"));
            }
        };
        {
            let mut st = inst.state();
            st.phase = Phase::Starting(conn.clone());
            st.tools.clear();
            st.discovery = 0;
        }
        self.forget_instance(inst);
        let (reader_inner, reader_inst, reader_conn) = (self.clone(), inst.clone(), conn.clone());
        let started = std::thread::Builder::new()
            .name(format!("finch-minitool-{}", inst.id))
            .spawn(move || read_loop(reader_inner, reader_inst, reader_conn));
        if let Err(e) = started {
            conn.stop(StopReason::Fault(format!("no reader thread: {e}")));
            inst.mark_down(&conn, "could not start its reader thread");
            return Err(format!("cannot start a thread to read its channel: {e}"));
        }
        Ok(conn)
    }

    /// What the kernel lets `inst`'s node reach, and its environment (`minitool::confine`).
    fn confine_spec(
        &self,
        inst: &Instance,
        declared: &crate::minitool::confine::Declared,
        node: &Path,
        bootstrap: &Path,
    ) -> crate::minitool::confine::Spawn {
        use crate::minitool::confine;
        let ce = &self.confine_env;
        let session = lock(&self.session).clone();
        let roots: Vec<PathBuf> = session
            .iter()
            .flat_map(|s| std::iter::once(s.cwd.clone()).chain(s.trusted.iter().cloned()))
            .collect();
        let protected = match (&session, declared.filesystem) {
            (Some(s), confine::Filesystem::ReadWrite) => {
                let workspace = crate::host::policy::Workspace {
                    cwd: s.cwd.clone(),
                    project: s.project.clone(),
                    trusted: s.trusted.clone(),
                    home: ce.home.clone(),
                    runtime: Some(self.homes.runtime.clone()),
                };
                roots
                    .iter()
                    .flat_map(|r| crate::host::policy::protected_paths_below(r, &workspace))
                    .collect()
            }
            _ => Vec::new(),
        };
        let var = |name: &str| {
            ce.vars
                .iter()
                .find(|(k, v)| k == name && !v.is_empty())
                .map(|(_, v)| v.clone())
        };
        let at = confine::Whereabouts {
            node,
            package: &inst.dir,
            storage: &inst.storage.dir,
            bootstrap,
            roots,
            protected,
            home: ce.home.clone(),
            path: var("PATH"),
            extra_read: ce.extra_read.clone(),
            extra_ca: var("NODE_EXTRA_CA_CERTS").map(PathBuf::from),
        };
        let env = confine::environment(
            declared,
            ce.vars.iter().map(|(k, v)| (k.as_str(), v)),
            &ce.extra_env,
        );
        confine::Spawn {
            access: confine::access(declared, &at),
            env,
        }
    }

    fn activation_params(&self, inst: &Instance) -> Value {
        let session = lock(&self.session).clone();
        json!({
            "entryPath": inst.dir.join(&inst.main),
            "main": inst.main,
            "minitool": {
                "id": inst.id,
                "displayName": inst.display_name,
                "version": inst.version,
                "extensionPath": inst.dir,
            },
            "storagePath": inst.storage.dir,
            "settings": inst.settings,
            "i18n": inst.i18n,
            "app": self.app_info,
            "session": session.as_ref().map(SessionInfo::session_view),
            "workspace": session.as_ref().map(SessionInfo::workspace_view),
            "capabilities": {
                "provides": inst.provides,
                "requires": inst.requires,
                "available": lock(&self.capabilities).available(),
            },
            "contributions": self.contributions,
            "limits": {"diffSide": protocol::DIFF_SIDE_MAX},
        })
    }

    fn finish_activation(
        &self,
        inst: &Arc<Instance>,
        conn: &Arc<Conn>,
        result: RpcResult,
    ) -> Result<usize, String> {
        let outcome = match result {
            Ok(_) => {
                let mut st = inst.state();
                if matches!(&st.phase, Phase::Starting(c) if Arc::ptr_eq(c, conn)) {
                    st.phase = Phase::Active(conn.clone());
                    Ok(st.tools.len())
                } else {
                    Err("it stopped during activation".to_string())
                }
            }
            Err(e) => {
                let reason = if e.code == rpc::code::STOPPED {
                    e.message
                } else {
                    format!("activate() failed: {}", inst.explain(&e.message))
                };
                conn.stop(StopReason::Fault(reason.clone()));
                inst.mark_down(conn, &reason);
                self.drop_tools(inst);
                Err(reason)
            }
        };
        self.settle_capabilities();
        outcome
    }

    /// A mini tool whose activation failed leaves no tools behind, also those it registered
    /// before it threw.
    fn drop_tools(&self, inst: &Instance) {
        let had = !std::mem::take(&mut inst.state().tools).is_empty();
        if had {
            self.tools_version.fetch_add(1, Ordering::SeqCst);
            self.emit(RuntimeEvent::ToolsChanged);
        }
    }

    /// `ctx.status.get()`: what the runtime knows of the run — whether a mini tool call is
    /// running. finch has no unread or waiting sessions to count.
    pub(crate) fn status_snapshot(&self) -> Value {
        let running = self.running.load(Ordering::SeqCst);
        json!({
            "status": if running > 0 { "running" } else { "idle" },
            "runningCount": running,
            "waitingCount": 0,
            "unreadCount": 0,
            "updatedAt": now_iso(),
        })
    }

    /// Pushes `method` to every live mini tool process (events, status, notifications).
    fn broadcast(&self, method: HostPush, params: &Value) {
        for conn in self.instances.iter().filter_map(|i| i.conn()) {
            if conn.is_alive() {
                conn.notify(method, params.clone());
            }
        }
    }

    /// Whether any mini tool listens to `stream`: a call builds no event nobody hears.
    fn heard(&self, stream: &str) -> bool {
        self.instances
            .iter()
            .any(|i| i.state().listens.iter().any(|s| s == stream))
    }

    fn push_status(&self) {
        if self.heard("status") {
            self.push("status", HostPush::Status, &self.status_snapshot());
        }
    }

    /// `broadcast` to the mini tools that listen to `stream` (see `Instance::listen`).
    fn push(&self, stream: &str, method: HostPush, params: &Value) {
        for inst in &self.instances {
            let listening = inst.state().listens.iter().any(|s| s == stream);
            if let Some(conn) = inst.conn().filter(|c| listening && c.is_alive()) {
                conn.notify(method, params.clone());
            }
        }
    }

    /// An `AgentEvent` about a mini tool call, to every `ctx.events.onAgentEvent` listener.
    fn agent_event(
        &self,
        kind: &str,
        tool: &str,
        call_id: &str,
        session: &str,
        error: Option<bool>,
    ) {
        if !self.heard("agentEvents") {
            return;
        }
        let seq = self.call_seq.fetch_add(1, Ordering::SeqCst) + 1;
        let mut event = json!({
            "id": format!("evt_{seq}"),
            "kind": kind,
            "createdAt": now_iso(),
            "sessionId": session,
            "toolName": tool,
            "toolUseId": call_id,
        });
        if let Some(e) = error {
            event["isToolError"] = json!(e);
        }
        self.push("agentEvents", HostPush::AgentEvent, &event);
    }

    /// Forgets what an earlier process of `inst` provided and registered.
    fn forget_instance(&self, inst: &Instance) {
        inst.state().listens.clear();
        lock(&self.capabilities).remove_instance(&inst.id);
        services::push_capabilities(self);
        let mut mcp = lock(&self.mcp);
        let before = mcp.len();
        mcp.retain(|r| r.minitool != inst.id);
        let changed = mcp.len() != before;
        drop(mcp);
        if changed {
            self.emit(RuntimeEvent::McpServersChanged);
        }
    }

    pub(crate) fn settle_capabilities(&self) {
        services::settle(self);
    }

    /// The process of `inst`, started (or restarted after its backoff) when needed.
    fn ensure_running(self: &Arc<Inner>, inst: &Arc<Instance>) -> Result<Arc<Conn>, String> {
        if self.shut.load(Ordering::SeqCst) {
            return Err("the mini tool runtime has shut down".into());
        }
        self.await_background(inst);
        let _one_start = lock(&inst.starting);
        let dead = {
            let st = inst.state();
            match &st.phase {
                Phase::Active(conn) if conn.is_alive() => return Ok(conn.clone()),
                Phase::Active(conn) | Phase::Starting(conn) => Some(conn.clone()),
                Phase::Down { reason, at } => {
                    let wait = self.backoff(st.failures);
                    let elapsed = at.elapsed();
                    if elapsed < wait {
                        return Err(format!(
                            "mini tool \"{}\" is stopped ({reason}). It restarts on a call after a backoff: try again in {}. Log: {}",
                            inst.id,
                            seconds(wait - elapsed),
                            inst.log.display()
                        ));
                    }
                    None
                }
                Phase::Idle => None,
            }
        };
        if let Some(conn) = dead {
            // Its reader has not cleaned up yet: make sure the process is gone before another
            // one starts.
            conn.stop(StopReason::Fault("its process ended".into()));
            inst.mark_down(&conn, "its process ended");
        }
        let result = self.activate(std::slice::from_ref(inst)).pop();
        match result {
            Some(Ok(_)) => inst.conn().ok_or_else(|| {
                format!("mini tool \"{}\" stopped right after it restarted", inst.id)
            }),
            Some(Err(e)) => Err(format!(
                "mini tool \"{}\" was restarted, but {e}. Log: {}",
                inst.id,
                inst.log.display()
            )),
            None => Err(format!("mini tool \"{}\" could not be restarted", inst.id)),
        }
    }

    fn call(
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

    /// A call of any layer (`Provider::observe`): an `AgentEvent` to every
    /// `ctx.events.onAgentEvent` listener, and the run's status to `ctx.status` listeners.
    fn observe(&self, event: &super::CallEvent) {
        let (kind, tool, session, error, call) = match *event {
            super::CallEvent::Started {
                tool,
                session,
                call,
            } => {
                self.running.fetch_add(1, Ordering::SeqCst);
                ("tool_use", tool, session, None, call)
            }
            super::CallEvent::Finished {
                tool,
                session,
                is_error,
                call,
            } => {
                let _ = self
                    .running
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
                ("tool_result", tool, session, Some(is_error), call)
            }
        };
        // Calls overlap (jobs side by side): the host's number of the call pairs a
        // `tool_result` with its `tool_use`.
        if kind == "tool_use" {
            self.push_status();
        }
        self.agent_event(kind, tool, &format!("use_{call}"), session, error);
        if kind == "tool_result" {
            self.push_status();
        }
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
                return super::cancel::cancelled_output(tool);
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
            return super::cancel::cancelled_output(tool);
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
        prompter: &mut dyn super::prompt::Prompter,
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
        prompter: &mut dyn super::prompt::Prompter,
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
                    && let crate::minitool::confine::Mode::Enforced(declared) = &inst.sandbox
                {
                    let text: Vec<&str> = output
                        .content
                        .iter()
                        .filter_map(|c| match c {
                            Content::Text(text) => Some(text.as_str()),
                            _ => None,
                        })
                        .collect();
                    if let Some(blocked) =
                        crate::minitool::confine::blocked_by(&inst.id, declared, &text.join("\n"))
                    {
                        output.content.insert(0, Content::Text(blocked));
                    }
                }
                output
            }
            Err(e) if e.code == rpc::code::STOPPED => ToolOutput::error(e.message),
            Err(e) => ToolOutput::error(format!("`{tool}` failed: {}", inst.explain(&e.message))),
        }
    }

    fn discover(&self, query: &str, limit: usize) -> Vec<Discovered> {
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

    fn shutdown(&self) {
        if self.shut.load(Ordering::SeqCst) {
            return;
        }
        self.version_at_shutdown
            .store(self.tools_version.load(Ordering::SeqCst), Ordering::SeqCst);
        if self.shut.swap(true, Ordering::SeqCst) {
            return;
        }
        let (tx, rx) = mpsc::channel();
        let mut waiting = 0usize;
        let conns: Vec<Arc<Conn>> = self.instances.iter().filter_map(|i| i.conn()).collect();
        for (i, conn) in conns.iter().enumerate() {
            if conn.is_alive() {
                let pending = Pending::Main {
                    tx: tx.clone(),
                    tag: i as u64,
                };
                if conn
                    .request(HostRequest::Deactivate, json!({}), pending)
                    .is_ok()
                {
                    waiting += 1;
                }
            }
        }
        drop(tx);
        let deadline = Instant::now() + self.settings.shutdown_timeout;
        while waiting > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(MainMsg::Reply { .. }) => waiting -= 1,
                Ok(MainMsg::Prompt { from, id, .. }) => {
                    from.reply(id, Err(RpcError::refused("the host is shutting down")))
                }
                Ok(MainMsg::Show { from, id, .. }) => from.reply(id, Ok(Value::Null)),
                Ok(MainMsg::Progress(_) | MainMsg::Cancelled | MainMsg::Unseen(_)) => {}
                Err(_) => break,
            }
        }
        for conn in conns {
            conn.stop(StopReason::Shutdown);
        }
        self.spawner.close();
    }
}

/// How a wait for a call's answer ended.
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
    fn update(&mut self, params: &Value) -> super::cancel::Progress {
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
        super::cancel::Progress {
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
struct RouteGuard<'a> {
    inner: &'a Inner,
    id: String,
}

impl CallRoute {
    fn set(inner: &Inner, id: String, tx: Sender<MainMsg>) -> RouteGuard<'_> {
        lock(&inner.calls).push(CallRoute { id: id.clone(), tx });
        RouteGuard { inner, id }
    }
}

impl Drop for RouteGuard<'_> {
    fn drop(&mut self) {
        lock(&self.inner.calls).retain(|c| c.id != self.id);
    }
}

/// The reader thread of one process: every message until the channel closes, then cleanup.
/// It holds the runtime until its process is gone, which shutdown makes sure of.
/// What a child sent that is not an answer, handled by whichever thread read it.
fn handle(inner: &Arc<Inner>, inst: &Arc<Instance>, conn: &Arc<Conn>, message: FromChild) {
    match message {
        FromChild::Request { id, method, params } => {
            services::request(inner, inst, conn, id, method, params)
        }
        FromChild::Unknown { id, method } => conn.reply(
            id,
            Err(RpcError::new(
                rpc::code::METHOD_NOT_FOUND,
                format!("the finch host has no method {method}"),
            )),
        ),
        FromChild::Notification(note) => services::notification(inner, inst, conn, note),
    }
}

fn read_loop(inner: Arc<Inner>, inst: Arc<Instance>, conn: Arc<Conn>) {
    let end = loop {
        let mut side = match conn.side_for_reader() {
            Ok(side) => side,
            // A call that read its own answer found the channel's end.
            Err(end) => break end,
        };
        let read = rpc::read_message(&conn, &mut side.reader, &mut side.line);
        let answered = matches!(read, Ok(rpc::Incoming::Answered(true)));
        match read {
            Ok(rpc::Incoming::Message(message)) => handle(&inner, &inst, &conn, message),
            Ok(_) => {}
            Err(end) => break end,
        }
        // A call got its answer: the next call reads its own (see `rpc`).
        conn.park(side, answered);
    };
    let garbage = match end {
        ReadEnd::Garbage(text) => {
            let reason = format!("wrote something that is not JSON-RPC on its channel ({text})");
            conn.stop(StopReason::Fault(reason.clone()));
            Some(reason)
        }
        ReadEnd::Closed => None,
    };
    let Some(ended) = conn.finish() else {
        return;
    };
    let (reason, unexpected) = match conn.stop_reason() {
        Some(StopReason::Shutdown) => ("was stopped because the host ended".to_string(), false),
        Some(StopReason::Fault(r)) => (r, garbage.is_some()),
        None => (ended, true),
    };
    let stopped_now = inst.mark_down(&conn, &reason);
    let failures = inst.state().failures;
    let backoff = seconds(inner.backoff(failures));
    let tail = process::log_tail(&inst.log, 8);
    let tail = if tail.is_empty() {
        String::new()
    } else {
        format!(
            " Last lines of its log:\n{}\n",
            tail.lines()
                .map(|l| format!("  {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        )
    };
    // Told before the waiting calls fail, so that whoever hears of it (`ctx.notifications`
    // of the other mini tools) hears before the next call.
    if unexpected && stopped_now {
        inner.emit(RuntimeEvent::Fault {
            minitool: inst.id.clone(),
            message: format!("{reason}; it was stopped"),
            log: inst.log.clone(),
        });
    }
    conn.fail_pending(&format!(
        "mini tool \"{}\" {reason} (pid {}); it was stopped and restarts on a later call (after a {backoff} backoff).{tail} Log: {}",
        inst.id,
        conn.pid,
        inst.log.display()
    ));
    lock(&inner.capabilities).remove_conn(&conn);
    services::push_capabilities(&inner);
    inner.settle_capabilities();
}

/// A mini tool tool's return value as a tool result: a string is text; `{content: [...],
/// isError?, structuredContent?}` is taken as MCP shapes it; `undefined` is empty; anything
/// else is JSON (text for the model, structured content for programs).
fn output_from(value: Value) -> ToolOutput {
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

/// Asks `consent` whether `inst`, which the kernel cannot confine here, runs unconfined; when
/// a person agrees it starts so (the agreement is recorded by `consent`).
fn agree_unconfined(inst: &mut Arc<Instance>, consent: &dyn crate::minitool::confine::Consent) {
    use crate::minitool::confine::{Mode, Unconfined};
    let Mode::Refused { declared, why } = &inst.sandbox else {
        return;
    };
    let request = Unconfined {
        id: inst.id.clone(),
        display_name: inst.display_name.clone(),
        declared: *declared,
        why: why.clone(),
    };
    // Nothing else holds the instance yet (it is being built).
    if let Some(inst) = Arc::get_mut(inst)
        && consent.agree(&request)
    {
        inst.sandbox = Mode::Unconfined {
            declared: request.declared,
            why: request.why,
        };
    }
}

/// The manifests to run: enabled mini tools of both tiers (personal first), then `dirs`.
/// The instances a start with `only: ids` runs: those named, the `--minitool` directories, and
/// every instance providing a capability one of them requires, and so on.
fn needed(instances: Vec<Arc<Instance>>, ids: &[String]) -> Vec<Arc<Instance>> {
    let mut wanted: Vec<bool> = instances
        .iter()
        .map(|i| i.origin == Origin::Dir || ids.contains(&i.id))
        .collect();
    loop {
        let required: Vec<&String> = instances
            .iter()
            .zip(&wanted)
            .filter(|(_, w)| **w)
            .flat_map(|(i, _)| &i.requires)
            .collect();
        let mut grew = false;
        for (inst, w) in instances.iter().zip(wanted.iter_mut()) {
            if !*w && inst.provides.iter().any(|p| required.contains(&p)) {
                *w = true;
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    instances
        .into_iter()
        .zip(wanted)
        .filter_map(|(i, w)| w.then_some(i))
        .collect()
}

fn candidates(
    homes: &Homes,
    dirs: &[PathBuf],
    reports: &mut Vec<ToolReport>,
    problems: &mut Vec<String>,
) -> Result<Vec<(Manifest, Origin)>, StartError> {
    let mut extra = Vec::new();
    for dir in dirs {
        let m = manifest::load(dir)
            .map_err(|e| StartError::Invalid {
                dir: dir.clone(),
                message: e.to_string(),
            })?
            .ok_or_else(|| StartError::NotAMiniTool(dir.clone()))?;
        let fatal: Vec<String> = m
            .check()
            .into_iter()
            .filter(|i| i.severity == Severity::Fatal)
            .map(|i| i.message)
            .collect();
        if !fatal.is_empty() {
            return Err(StartError::Invalid {
                dir: dir.clone(),
                message: format!("not a valid mini tool:\n  ✖ {}", fatal.join("\n  ✖ ")),
            });
        }
        let id = m.runtime_id().map_err(|e| StartError::Invalid {
            dir: dir.clone(),
            message: e.to_string(),
        })?;
        extra.push((id, m));
    }
    let mut out: Vec<(Manifest, Origin)> = Vec::new();
    let listed = match listing::list(homes, &[Tier::Personal, Tier::Global], false) {
        Ok(l) => l,
        Err(e) => {
            let fix = match &e {
                crate::minitool::Error::Json(j) if j.is_corrupt() => {
                    " (fix the file by hand, or run `finch doctor --state` to move it aside)"
                }
                _ => "",
            };
            problems.push(format!("{e}: no installed mini tool was started{fix}"));
            out.extend(extra.into_iter().map(|(_, m)| (m, Origin::Dir)));
            return Ok(out);
        }
    };
    let mut seen: Vec<String> = extra.iter().map(|(id, _)| id.clone()).collect();
    for t in &listed.tiers {
        let origin = match t.tier {
            Tier::Personal => Origin::Personal,
            Tier::Global => Origin::Global,
        };
        for entry in &t.entries {
            let id = &entry.dir_name;
            if !tier::is_entry_name(id) || !listed.state.is_enabled(id) {
                continue;
            }
            let log = homes.logs_dir().join("minitools").join(format!("{id}.log"));
            let report = |outcome| ToolReport {
                id: id.clone(),
                display_name: id.clone(),
                version: None,
                origin,
                path: entry.path.clone(),
                log: log.clone(),
                outcome,
                not_shown: Vec::new(),
                sandbox: None,
            };
            if seen.contains(id) {
                let outcome = match extra.iter().find(|(e, _)| e == id) {
                    Some((_, dir)) => Outcome::Replaced {
                        by: dir.dir.clone(),
                        storage: homes.extension_data(id),
                    },
                    None => Outcome::Skipped {
                        reason: "the personal tier's install of the same id runs instead".into(),
                    },
                };
                reports.push(report(outcome));
                continue;
            }
            let problems = listing::problems(entry);
            match &entry.manifest {
                Ok(m) if problems.is_empty() => {
                    seen.push(id.clone());
                    out.push((m.clone(), origin));
                }
                _ => {
                    seen.push(id.clone());
                    reports.push(report(Outcome::Failed {
                        error: format!(
                            "its manifest is not valid: {} (run `finch doctor {}`)",
                            problems.join("; "),
                            entry.path.display()
                        ),
                    }));
                }
            }
        }
    }
    out.extend(extra.into_iter().map(|(_, m)| (m, Origin::Dir)));
    Ok(out)
}

/// Everything about one mini tool that does not change while it runs.
fn instance(
    homes: &Homes,
    settings: &Settings,
    m: &Manifest,
    origin: Origin,
    records: &Map<String, Value>,
    locale: &str,
) -> Instance {
    let id = match origin {
        Origin::Dir => m.runtime_id().unwrap_or_else(|_| dir_name(&m.dir)),
        _ => dir_name(&m.dir),
    };
    let strings = |value: Option<&Value>| -> Vec<String> {
        value
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let permissions = m.permissions();
    let capabilities = |key: &str| strings(m.fields.get(key).and_then(|v| v.get("capabilities")));
    let data = homes.extension_data(&id);
    let grant = crate::minitool::confine::grant_for(homes, &id);
    Instance {
        declared: crate::minitool::confine::Declared::from_permissions(permissions).with(&grant),
        sandbox: crate::minitool::confine::Mode::of(homes, settings, &id, permissions),
        confinement: Mutex::new(None),
        display_name: m.display_name(),
        version: m.version.clone(),
        dir: m.dir.clone(),
        main: m.main(),
        origin,
        log: homes.logs_dir().join("minitools").join(format!("{id}.log")),
        storage: Storage {
            dir: data,
            id: id.clone(),
            lock_timeout: settings.lock_timeout,
        },
        secrets: strings(permissions.and_then(|p| p.get("secrets"))),
        provides: capabilities("provides"),
        requires: capabilities("requires"),
        settings: setting_values(m, records.get(&id)),
        i18n: json!({"locale": locale, "messages": messages(&m.dir, locale)}),
        localized: localized::Localized::new(&m.dir, &m.fields),
        contributes: m
            .fields
            .get("contributes")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
        state: Mutex::new(InstanceState {
            phase: Phase::Idle,
            tools: Vec::new(),
            cached: None,
            discovery: 0,
            listens: Vec::new(),
            failures: 0,
        }),
        starting: Mutex::new(()),
        told: Mutex::new(None),
        id,
    }
}

fn dir_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The manifest's setting defaults, overlaid by the values the app stored for this mini tool.
fn setting_values(m: &Manifest, record: Option<&Value>) -> Map<String, Value> {
    let mut values = Map::new();
    let fields = m
        .fields
        .get("settings")
        .and_then(|s| s.get("fields"))
        .and_then(Value::as_array);
    for field in fields.into_iter().flatten() {
        if let (Some(key), Some(default)) = (
            field.get("key").and_then(Value::as_str),
            field.get("default"),
        ) {
            values.insert(key.to_string(), default.clone());
        }
    }
    if let Some(stored) = record
        .and_then(|r| r.get("settings"))
        .and_then(Value::as_object)
    {
        for (k, v) in stored {
            values.insert(k.clone(), v.clone());
        }
    }
    values
}

/// The locale mini tools see: `[runtime] locale`, else the environment, else `en-US`.
fn locale(configured: Option<&str>, env: &Env) -> String {
    let from_env = ["FINCH_LOCALE", "LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .filter_map(|k| env.get(k))
        .find(|v| !v.trim().is_empty());
    let raw = configured.map(str::to_string).or(from_env);
    normalize_locale(raw.as_deref().unwrap_or("en-US"))
}

/// `zh_CN.UTF-8` → `zh-CN`; `C` and `POSIX` → `en-US`.
fn normalize_locale(raw: &str) -> String {
    let base = raw.split(['.', '@']).next().unwrap_or("").trim();
    if base.is_empty() || base == "C" || base == "POSIX" {
        return "en-US".into();
    }
    let mut parts = base.split(['_', '-']);
    let lang = parts.next().unwrap_or("en").to_lowercase();
    match parts.next() {
        Some(region) => format!("{lang}-{}", region.to_uppercase()),
        None => lang,
    }
}

/// `i18n/<locale>.json` over `i18n/en-US.json` (a language without its region falls back to
/// `i18n/<language>.json`). A file that does not parse is skipped.
fn messages(dir: &Path, locale: &str) -> Value {
    let read = |name: &str| -> Option<Map<String, Value>> {
        crate::store::read_json_object(&dir.join("i18n").join(format!("{name}.json")))
            .ok()
            .flatten()
    };
    let mut merged = read("en-US").or_else(|| read("en")).unwrap_or_default();
    let language = locale.split('-').next().unwrap_or(locale);
    if let Some(own) = read(locale).or_else(|| read(language)) {
        merge(&mut merged, own);
    }
    Value::Object(merged)
}

fn merge(base: &mut Map<String, Value>, over: Map<String, Value>) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(Value::Object(b)), Value::Object(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
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
