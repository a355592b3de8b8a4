//! How a host is put together (SPEC §8–9): which providers it gets, when the mini tools start
//! and the MCP servers connect, where the rules come from, how the session's transcript is
//! started or continued, who answers the cards, and how a running host reloads in place.
//! `finch run` (every front end), `finch tool call` and `--serve mcp` all build their host
//! here from a plain `HostOptions`; the command line only turns flags into those options.
//!
//! `survey` is the same start for `finch reload`: every enabled mini tool and MCP server once,
//! the catalog cache written from their tools, everything stopped again.
//!
//! Everything said to the person while a host is built or reloaded (a mini tool that failed,
//! an MCP server left out, `--approve` taking effect) goes through `ui` as warnings and details
//! on stderr; nothing here writes to stdout, which may carry a protocol.

use std::path::{Path, PathBuf};

use crate::error::{CommandError, Result};
use crate::minitool::confine::{Consent, Unconfined};
use crate::ui::Ui;

use super::builtins::Builtins;
use super::call::confine::Grants;
use super::catalog::{self, ToolDef};
use super::control::{self, Registration};
use super::mcp::ServerStatus;
use super::mcp::{self, McpBridge, McpServerConfig};
use super::policy::rules::project_root;
use super::policy::{Mode, Rules, RulesError};
use super::prompt::{CardAnswer, Nobody, Prompter};
use super::runtime::{
    self, MiniToolRuntime, Outcome, SessionInfo, StartError, StartOptions, StartReport,
};
use super::session::SessionState;
use super::suites::Suites;
use super::{Host, HostEnv, Provider, canonical_cwd};

/// Which providers a host gets.
#[derive(Debug, Clone)]
pub struct Layers {
    /// The runtime built-ins (not with `--no-builtins`).
    pub builtins: bool,
    /// Which mini tools start and whether the MCP servers connect: costly, and not needed by a
    /// `tool call` of a built-in or a dispatcher.
    pub external: External,
    /// Installed mini tools start and MCP servers connect in the background, their tools
    /// listed from the catalog cache meanwhile (`finch run`: it answers at once, and a call of
    /// a mini tool's or a server's tool waits for that mini tool or server alone). Otherwise
    /// every one is active (or failed) before the host is.
    pub background: bool,
}

/// The mini tools and MCP servers a host starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum External {
    /// Neither (the `--minitool` directories neither).
    Nothing,
    /// Every enabled mini tool, the `--minitool` directories and every MCP server.
    All,
    /// Only these enabled mini tools (with the mini tools providing the capabilities they
    /// require) and the `--minitool` directories; no MCP server. What `finch tool call` of a
    /// mini tool's tool starts.
    MiniTools(Vec<String>),
    /// Only the MCP server of this normalized name, with `minitools` (the mini tool that
    /// registers it at run time, if one does) and the `--minitool` directories. What `finch
    /// tool call` of an MCP tool starts.
    McpServer {
        server: String,
        minitools: Vec<String>,
    },
}

/// What one host session is built from: the flags of `finch run` and `finch tool call`,
/// resolved by the command line (paths absolute).
#[derive(Debug, Clone)]
pub struct HostOptions {
    /// The permission mode; `None`: finch.toml `[host] mode`, else ask.
    pub mode: Option<Mode>,
    /// Tool names whose cards are answered allow (`--approve`).
    pub approve: Vec<String>,
    /// The session's working directory.
    pub cwd: PathBuf,
    /// A session to continue (id or unique prefix) instead of starting a new transcript.
    pub session: Option<String>,
    /// Without `session`: continue the newest transcript of the working directory started in
    /// the last day that carries this title and no conversation (`session::locate::
    /// find_titled`), else start one with this title. How `finch tool call` keeps a day's
    /// calls in one directory in one session: the title names the day.
    pub join_titled: Option<String>,
    /// Mini tool directories loaded for this run only (`--minitool`).
    pub minitools: Vec<PathBuf>,
    pub layers: Layers,
    /// Mini tools a person agreed to run unconfined where the kernel cannot confine them
    /// (`--approve-unconfined`); the agreement is recorded when one is needed.
    pub approve_unconfined: Vec<String>,
    /// Whether the terminal's card may ask about a mini tool the kernel cannot confine (not
    /// under `--jsonl` or `--serve mcp`, whose start nobody watches).
    pub ask_unconfined: bool,
    /// Mini tools whose cards offer "Allow for this session" (`SessionState::
    /// session_allow_owners`).
    pub session_allow_owners: Vec<String>,
    /// The command this run answers to (`finch run`, `finch dev`): what the console's banner
    /// and its resume hint name.
    pub command: &'static str,
    /// What the sandbox flags grant Bash commands (`--allow-read`, `--allow-write`,
    /// `--allow-network`, `--unsandboxed`).
    pub grants: Grants,
}

/// Builds hosts from one set of options, and reloads them: what a front end holds on to.
pub struct Assembly<'a> {
    pub options: HostOptions,
    pub ui: &'a Ui,
    /// Mini tools whose unconfined card a person denied in this run: not asked again on a
    /// reload.
    denied: std::sync::Mutex<Vec<String>>,
    /// Warnings already given in this run (a `--minitool` replacing an installed copy): a
    /// reload says them again only with --verbose.
    warned: std::sync::Mutex<Vec<String>>,
}

impl<'a> Assembly<'a> {
    pub fn new(options: HostOptions, ui: &'a Ui) -> Assembly<'a> {
        Assembly {
            options,
            ui,
            denied: std::sync::Mutex::new(Vec::new()),
            warned: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The host of one session, its cards asked on the terminal (else answered by nobody).
    pub fn open(&self, env: HostEnv) -> Result<Host> {
        self.open_with(env, |_, prompter| prompter)
    }

    /// `open` with the prompter wrapped: `wrap` gets the terminal's prompter (or `Nobody`) and
    /// returns the one the host asks (the MCP front end puts elicitation in front of it).
    pub fn open_with(
        &self,
        env: HostEnv,
        wrap: impl FnOnce(&HostEnv, Box<dyn Prompter>) -> Box<dyn Prompter>,
    ) -> Result<Host> {
        let options = &self.options;
        let mode = match (options.mode, env.settings.host_mode.as_deref()) {
            (Some(m), _) => m,
            (None, None) => Mode::Ask,
            (None, Some("ask")) => Mode::Ask,
            (None, Some("acceptCalls")) => Mode::AcceptCalls,
            (None, Some(other)) => {
                return Err(CommandError::failed(format!(
                    "{}: [host] mode = {other:?} is not a permission mode",
                    env.homes.finch_toml().display()
                ))
                .with_hint("write mode = \"ask\" or mode = \"acceptCalls\""));
            }
        };
        if !options.cwd.is_dir() {
            return Err(CommandError::not_found(format!(
                "--cwd {}: no such directory",
                options.cwd.display()
            )));
        }
        let cwd = canonical_cwd(&options.cwd);
        let home = env.env.home_dir();
        let project = project_root(&cwd, &env.homes.runtime);
        let rules = load_rules(&project, &env.homes.runtime, home.as_deref())?;
        if let Some(untrusted) = rules.untrusted.as_ref().filter(|u| u.ignored_allow > 0) {
            self.ui.warn(untrusted.warning());
        }
        let mut session = SessionState::detached(cwd, project, mode, home);
        session.approve = options.approve.clone();
        session.session_allow_owners = options.session_allow_owners.clone();
        session.grants = options.grants.clone();
        let lock_timeout = env.settings.lock_timeout;
        let recorded = match &options.session {
            Some(id) => {
                let found = crate::session::resolve(&env.homes, id).map_err(CommandError::from)?;
                session.continue_transcript(&found.path, lock_timeout)
            }
            None => {
                let now = env.now_utc();
                let sessions_dir = env.homes.sessions_dir();
                let joined = options.join_titled.as_deref().and_then(|title| {
                    let since = now - chrono::Duration::days(1);
                    crate::session::locate::find_titled(&sessions_dir, &session.cwd, title, since)
                });
                match joined {
                    Some(path) => session.continue_transcript(&path, lock_timeout),
                    None => session
                        .start_transcript(&sessions_dir, now, lock_timeout)
                        .map(|()| {
                            if let Some(title) = &options.join_titled {
                                session.title_if_new(title, now);
                            }
                        }),
                }
            }
        };
        recorded.map_err(CommandError::from)?;
        for tool in &options.approve {
            self.ui.detail(format!(
                "--approve {tool}: its permission cards are answered allow"
            ));
        }
        if options.grants.unsandboxed {
            self.ui.detail(
                "--unsandboxed: Bash commands run without finch's sandbox, each after a card",
            );
        }
        let mut prompter = wrap(&env, self.terminal_prompter(&env));
        let providers = self.providers(&env, session_info(&session), prompter.as_mut(), &rules)?;
        Ok(Host::new(env, providers, rules, session, prompter))
    }

    /// Reloads a running host in place (`/reload`, `finch reload`): re-reads the rules, stops
    /// the mini tools and MCP servers, starts them again from what is installed and configured
    /// now, and rebuilds the catalog. The session — transcript, activations, answers — is kept.
    pub fn reload(&self, host: &mut Host) -> Result<()> {
        let s = host.session();
        let rules = load_rules(&s.project, &host.env().homes.runtime, s.home.as_deref())?;
        if let Some(untrusted) = rules.untrusted.as_ref().filter(|u| u.ignored_allow > 0) {
            self.ui.warn(untrusted.warning());
        }
        host.set_rules(rules.clone());
        host.clear_providers();
        let env = host.env().clone();
        let session = session_info(host.session());
        let providers = self.providers(&env, session, host.prompter_mut(), &rules)?;
        host.set_providers(providers);
        self.ui.status(format!(
            "reloaded: rules re-read, mini tools and MCP servers restarted, {} tools in the catalog",
            host.catalog().len()
        ));
        Ok(())
    }

    /// Reloads when `finch reload` asked since the last call. A failed reload is reported and
    /// the run goes on with what it has.
    pub fn reload_if_asked(&self, host: &mut Host) {
        if control::take_reload_request() {
            self.reload_reporting(host);
        }
    }

    /// `reload`, its failure reported rather than returned.
    pub fn reload_reporting(&self, host: &mut Host) {
        if let Err(e) = self.reload(host) {
            self.ui.error(&e);
        }
    }

    /// Registers the run for `finch reload` and installs the reload signal; a failure only
    /// costs the reloads, so it is a warning.
    pub fn register_for_reload(&self, host: &Host) -> Option<Registration> {
        let registered =
            control::install_reload_signal().and_then(|()| control::register(&host.env().homes));
        match registered {
            Ok(r) => Some(r),
            Err(e) => {
                self.ui
                    .warn(format!("`finch reload` cannot reach this run: {e}"));
                None
            }
        }
    }

    /// The four layers: built-ins (unless left out), suites, mini tools (started), MCP servers
    /// (connected; with the servers mini tools registered through `mcp.client`).
    fn providers(
        &self,
        env: &HostEnv,
        session: SessionInfo,
        prompter: &mut dyn Prompter,
        rules: &Rules,
    ) -> Result<Vec<Box<dyn Provider>>> {
        let layers = &self.options.layers;
        let mut providers: Vec<Box<dyn Provider>> = Vec::new();
        if layers.builtins {
            providers.push(Box::new(Builtins));
        }
        providers.push(Box::new(Suites::default()));
        let (only, server) = match &layers.external {
            External::Nothing => return Ok(providers),
            External::All => (None, None),
            External::MiniTools(ids) => (Some(ids.as_slice()), None),
            External::McpServer { server, minitools } => {
                (Some(minitools.as_slice()), Some(server.clone()))
            }
        };
        let cwd = session.cwd.clone();
        let runtime = self.start_minitools(env, session, only)?;
        runtime.set_rules(rules.clone());
        // `finch tool call` of a mini tool's tool starts no MCP server, unless a mini tool of
        // the call requires the host's `mcp.client`: then it gets the bridge it asks about.
        if only.is_some() && server.is_none() && !runtime.requires(runtime::MCP_CLIENT_CAPABILITY) {
            providers.push(Box::new(runtime));
            return Ok(providers);
        }
        let registered = registered_servers(self.ui, &runtime);
        approve_waiting(env, server.as_deref(), prompter, self.ui);
        let options = mcp::Options {
            // `finch run` answers at once; each server's tools come from the catalog cache
            // until it has listed its own.
            background: layers
                .background
                .then(|| crate::host::catalog::read_cache(&env.homes.catalog_cache()).ok())
                .flatten(),
            only: server,
            report: None,
        };
        let bridge = start_mcp(self.ui, env, &cwd, registered, options);
        // The runtime's `mcp.client` capability lists and calls the bridge's servers.
        runtime.set_mcp_bridge(bridge.handle());
        providers.push(Box::new(runtime));
        providers.push(Box::new(bridge));
        Ok(providers)
    }

    /// The mini tool layer (SPEC §9.1): starts the enabled mini tools `only` names (every one
    /// when `None`) and each `--minitool` directory, warns about each one that failed, and lists the others with `--verbose`.
    fn start_minitools(
        &self,
        env: &HostEnv,
        session: SessionInfo,
        only: Option<&[String]>,
    ) -> Result<MiniToolRuntime> {
        // An unreadable cache only costs the head start.
        let background = if self.options.layers.background {
            crate::host::catalog::read_cache(&env.homes.catalog_cache()).ok()
        } else {
            None
        };
        let consent = Agreement {
            env,
            ui: self.ui,
            approved: &self.options.approve_unconfined,
            card: self.options.ask_unconfined,
            denied: Some(&self.denied),
        };
        let options = StartOptions {
            only,
            background,
            homes: &env.homes,
            settings: &env.settings,
            env: &env.env,
            dirs: &self.options.minitools,
            session: Some(session),
            hook: Some(runtime::stderr_hook(self.ui.quiet)),
            consent: Some(&consent),
        };
        let (runtime, report) = MiniToolRuntime::start(options).map_err(|e| match e {
            StartError::NotAMiniTool(ref dir) | StartError::Invalid { ref dir, .. } => {
                let message = e.to_string();
                CommandError::failed(message)
                    .with_code("invalid_minitool")
                    .with_hint(format!(
                        "run `finch doctor {}` for the full report",
                        dir.display()
                    ))
            }
        })?;
        for problem in &report.problems {
            self.ui.warn(problem);
        }
        for tool in &report.tools {
            match tool.outcome {
                Outcome::Failed { .. } | Outcome::Refused { .. } => self.ui.warn(tool.line()),
                Outcome::Replaced { .. } => self.warn_once(tool.line()),
                _ => self.ui.detail(tool.line()),
            }
        }
        Ok(runtime)
    }

    /// A warning the first time this run gives it; after that (a reload) only with --verbose.
    fn warn_once(&self, line: String) {
        let mut warned = self
            .warned
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if warned.contains(&line) {
            self.ui.detail(line);
        } else {
            self.ui.warn(&line);
            warned.push(line);
        }
    }

    fn terminal_prompter(&self, env: &HostEnv) -> Box<dyn Prompter> {
        match crate::ui::card::TtyPrompter::open(env.settings.card_timeout, self.ui.color_stderr())
        {
            Some(tty) => Box::new(tty),
            None => Box::new(Nobody),
        }
    }
}

/// Who agrees, in one run, that a mini tool the kernel cannot confine here runs unconfined
/// (`minitool::confine::Consent`): `--approve-unconfined <id>`, else the terminal's card when
/// there is a terminal and `card` allows it, else nobody. An agreement is recorded as
/// `finch sandbox grant <id> unconfined` records it, so the next start asks no one.
pub struct Agreement<'a> {
    pub env: &'a HostEnv,
    pub ui: &'a Ui,
    /// `--approve-unconfined`.
    pub approved: &'a [String],
    /// Whether a card may be shown.
    pub card: bool,
    /// Ids denied on a card earlier in this run (not asked again), and where a denial is kept.
    pub denied: Option<&'a std::sync::Mutex<Vec<String>>>,
}

impl Agreement<'_> {
    /// Records the agreement; a failure costs only the record (it runs this time), so it is a
    /// warning.
    fn record(&self, id: &str, by: &str) {
        use crate::minitool::confine::{Right, set_grant};
        match set_grant(
            &self.env.homes,
            id,
            Right::Unconfined,
            true,
            self.env.settings.lock_timeout,
        ) {
            // A permanent grant is never made in silence: a warning, shown with --json and -q.
            Ok(_) => self.ui.warn(format!(
                "{by} saved a permanent grant: mini tool {id} runs unconfined (every right of your user) in every run from now on; recorded in {} (`finch sandbox revoke {id} unconfined` takes it back)",
                crate::minitool::confine::grants_path(&self.env.homes).display()
            )),
            Err(e) => self.ui.warn(format!(
                "{by}: mini tool {id} runs unconfined this time, but the agreement could not be recorded: {e}"
            )),
        }
    }

    fn was_denied(&self, id: &str) -> bool {
        self.denied.is_some_and(|d| {
            d.lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .any(|x| x == id)
        })
    }
}

impl Consent for Agreement<'_> {
    fn agree(&self, request: &Unconfined) -> bool {
        let id = &request.id;
        if self.approved.iter().any(|a| a == id) {
            self.record(id, &format!("--approve-unconfined {id}"));
            return true;
        }
        if !self.card || self.was_denied(id) {
            return false;
        }
        let Some(mut tty) = crate::ui::card::TtyPrompter::open(
            self.env.settings.card_timeout,
            self.ui.color_stderr(),
        ) else {
            return false;
        };
        match tty.unconfined(request) {
            CardAnswer::AllowOnce => {
                self.record(id, "the card");
                true
            }
            CardAnswer::Unavailable => false,
            _ => {
                if let Some(denied) = self.denied {
                    denied
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(id.clone());
                }
                false
            }
        }
    }
}

/// What the mini tools of a run see of its session.
fn session_info(session: &SessionState) -> SessionInfo {
    SessionInfo {
        id: session.id.clone(),
        cwd: session.cwd.clone(),
        project: session.project.clone(),
        trusted: session.trusted.clone(),
        mode: session.mode,
        approve: session.approve.clone(),
    }
}

/// Asks the run's person — the console's card, an MCP client's elicitation — about each entry
/// of `servers.json` that no person approved as it is (`mcp::trust`; only the one named
/// `only`, when given). Allowed, its digest is recorded as `finch mcp trust` records it, and it
/// starts with the others; otherwise it waits (the bridge reports it). Under `--serve mcp` the
/// client can be asked only once it is connected: when it sent `notifications/initialized`,
/// the serving loop reloads to ask it (`frontend::mcp`, one form per entry); a client that
/// cannot elicit leaves the entry waiting for `finch mcp trust`.
fn approve_waiting(env: &HostEnv, only: Option<&str>, prompter: &mut dyn Prompter, ui: &Ui) {
    let file = env.homes.mcp_servers_json();
    let waiting = mcp::config::resolve(&env.homes, Vec::new()).waiting;
    for server in waiting
        .iter()
        .filter(|s| only.is_none_or(|o| s.normalized() == o))
    {
        let card = super::prompt::Card {
            tool: server.name.clone(),
            title: "start this MCP server?".into(),
            layer: "mcp",
            owner: Some("servers.json".into()),
            risk: super::tool::Risk::High,
            summary: server.reach(),
            session_scope: String::new(),
            reason: format!(
                "this entry of {} was added or changed by something other than finch, and no person approved it as it is; allowed, it is recorded as approved (as `finch mcp trust {}` would) and starts with its rights",
                file.display(),
                server.name
            ),
            session_allow_offered: false,
            sandbox: None,
            unsandboxed_offered: false,
            change: None,
        };
        if !prompter.card(&card).allows() {
            continue;
        }
        let now = env
            .now_utc()
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        match mcp::trust::grant(
            &env.homes.runtime,
            &file,
            server,
            &now,
            env.settings.lock_timeout,
        ) {
            Ok(_) => ui.detail(format!(
                "MCP server {}: approved on the card; recorded (`finch mcp trust --revoke {}` takes it back)",
                server.name, server.name
            )),
            Err(e) => ui.warn(format!(
                "MCP server {}: approved on the card, but the approval could not be recorded: {e}",
                server.name
            )),
        }
    }
}

/// The MCP servers mini tools registered through `mcp.client`; one that does not parse is left
/// out with a warning.
pub fn registered_servers(ui: &Ui, runtime: &MiniToolRuntime) -> Vec<McpServerConfig> {
    runtime
        .mcp_registrations()
        .into_iter()
        .filter_map(|r| {
            let origin = mcp::Origin::Runtime {
                id: r.minitool.clone(),
                dir: r.dir.clone(),
            };
            match McpServerConfig::from_json(&r.config, origin) {
                Ok(config) => Some(config),
                Err(e) => {
                    ui.warn(format!(
                        "mini tool {} registered MCP server {}: {e}; left out",
                        r.minitool, r.name
                    ));
                    None
                }
            }
        })
        .collect()
}

/// The MCP layer (SPEC §9.2): connects to every configured server (`registered`: the servers
/// mini tools registered through `mcp.client`), or the one `options.only` names, and warns
/// about each one left out — in the background as each one fails.
fn start_mcp(
    ui: &Ui,
    env: &HostEnv,
    cwd: &Path,
    registered: Vec<McpServerConfig>,
    mut options: mcp::Options,
) -> McpBridge {
    let background = options.background.is_some();
    if background {
        let ui = ui.clone();
        options.report = Some(std::sync::Arc::new(move |status: &ServerStatus| {
            warn_left_out(&ui, status);
        }));
    }
    let bridge = McpBridge::start_with(env, cwd, registered, options);
    // Entries that wait for a person are known at once, in the background too.
    for status in bridge.statuses() {
        if !background || status.waiting {
            warn_left_out(ui, &status);
        }
    }
    for problem in bridge.problems() {
        ui.warn(format!(
            "MCP server {}({}): {}",
            problem
                .name
                .as_deref()
                .map(|n| format!("{n} "))
                .unwrap_or_default(),
            problem.source,
            problem.message
        ));
    }
    bridge
}

fn warn_left_out(ui: &Ui, status: &ServerStatus) {
    if let Some(error) = &status.error {
        ui.warn(format!(
            "MCP server {} ({}): {error}; its tools are left out",
            status.config.name,
            status.config.origin.source()
        ));
    }
}

/// The permission rules of a project (its `.finch/permissions.json`, its `allow` rules only
/// when a person trusted the file) over the runtime's.
pub fn load_rules(project: &Path, runtime: &Path, home: Option<&Path>) -> Result<Rules> {
    let trusted = crate::host::policy::trust::list(runtime).map_err(CommandError::from)?;
    Rules::load(project, runtime, home, &trusted).map_err(|err| {
        let message = err.to_string();
        match err {
            RulesError::Invalid { .. } => CommandError::failed(message)
                .with_code("corrupt_state")
                .with_hint(
                    "fix the file by hand; the format is {\"allow\":[{\"toolName\":\"Bash\",\"key\":\"npm test\"}],\"ask\":[],\"deny\":[]}",
                ),
            RulesError::Read { .. } => CommandError::failed(message),
        }
    })
}

/// Surveys again (`survey`, quietly) when the catalog cache is stale: something installed,
/// enabled or configured changed since it was built (`catalog::cache_is_current`), so that
/// `finch tool list|search|info` are right without a manual `finch reload`. Says so on stderr.
pub fn refresh_stale_catalog(env: &HostEnv, cwd: &Path, ui: &Ui) -> Result<()> {
    if catalog::cache_is_current(&env.homes) {
        return Ok(());
    }
    ui.status("Mini tools or MCP servers changed since the tool catalog was built: refreshing it…");
    let mut quiet = ui.clone();
    quiet.quiet = true;
    survey(env, cwd, &quiet, None, None).map(|_| ())
}

/// Writes into the catalog cache the mini tool and MCP tools among `started` — what a run
/// started (`catalog::update_cache`) — so that completion of their names and arguments, which
/// starts nothing, knows them without a `finch reload`. A cache that cannot be written is said
/// with `--verbose` only: the run did what it was asked.
pub fn remember_tools(env: &HostEnv, ui: &Ui, started: &[ToolDef]) {
    let cache = env.homes.catalog_cache();
    let mut builtins = Builtins.defs();
    builtins.extend(Suites::default().defs());
    let stamp = env
        .now_utc()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    if let Err(e) = catalog::update_cache(&cache, &builtins, started, &stamp) {
        ui.detail(format!(
            "could not update the tool catalog {}: {e}",
            cache.display()
        ));
    }
}

/// What `finch reload` learns by starting every enabled mini tool and every MCP server once.
pub struct Survey {
    pub report: StartReport,
    pub statuses: Vec<ServerStatus>,
    /// The catalog cache and how many mini tool and MCP tools it now holds.
    pub cache: PathBuf,
    pub tools: usize,
}

/// Starts every enabled mini tool (all at once, waiting for each), connects every MCP server
/// (contributed, registered at run time, the user's), writes the catalog cache (with the
/// fingerprint of what it was built from, `catalog::state_path`) and the record of
/// contributions finch cannot show, and stops everything again. With `id`, an id that is not an
/// enabled mini tool is "not found" before any MCP server starts.
pub fn survey(
    env: &HostEnv,
    cwd: &Path,
    ui: &Ui,
    id: Option<&str>,
    consent: Option<&dyn Consent>,
) -> Result<Survey> {
    // Taken before anything starts: a change made while the survey runs leaves it stale.
    let fingerprint = catalog::sources_fingerprint(&env.homes);
    let options = StartOptions {
        only: None,
        background: None,
        homes: &env.homes,
        settings: &env.settings,
        env: &env.env,
        dirs: &[],
        session: None,
        hook: Some(runtime::stderr_hook(ui.quiet)),
        consent,
    };
    // Without `--minitool` directories nothing can stop the start as a whole.
    let (runtime, report) =
        MiniToolRuntime::start(options).map_err(|e| CommandError::failed(e.to_string()))?;
    if let Some(id) = id
        && !report.tools.iter().any(|r| r.id == id)
    {
        runtime.shutdown();
        return Err(
            CommandError::not_found(format!("\"{id}\" is not an enabled mini tool")).with_hint(
                "`finch list --all-tiers` shows what is installed; `finch enable <id>` enables one",
            ),
        );
    }
    let registered = registered_servers(ui, &runtime);
    let bridge = McpBridge::start(env, cwd, registered);
    let mut defs: Vec<ToolDef> = runtime.defs();
    defs.extend(bridge.defs());
    let cache = env.homes.catalog_cache();
    let stamp = env
        .now_utc()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    // The search index also names the built-ins and suites, in the order `tool search` lists
    // them.
    let mut every: Vec<ToolDef> = Builtins.defs();
    every.extend(Suites::default().defs());
    every.extend(defs.iter().cloned());
    let written = catalog::write_cache(&cache, &every, &stamp);
    let shown = report
        .tools
        .iter()
        .filter(|r| id.is_none_or(|id| r.id == id));
    let not_shown = runtime::record_not_shown(&env.homes, shown);
    let statuses = bridge.statuses();
    drop(bridge);
    runtime.shutdown();
    written.map_err(|e| crate::error::io_error("write", &cache, &e))?;
    let state = catalog::state_path(&env.homes);
    crate::store::write_atomic(&state, fingerprint.as_bytes())
        .map_err(|e| crate::error::io_error("write", &state, &e))?;
    if let Err(e) = not_shown {
        ui.warn(e.to_string());
    }
    Ok(Survey {
        report,
        statuses,
        cache,
        tools: defs.len(),
    })
}
