//! finch's own settings file, `<runtime>/config/finch.toml`, read once per command that needs it.
//! Unknown keys are ignored here, so newer settings written by a newer finch do not break an
//! older one. finch writes to the file only when a person says yes to setting `[agent] command`
//! (`set_agent_command`): one line added, everything else kept as written.
//!
//! ```toml
//! registry = "https://registry.example/"   # npm registry for `add`/`update` (see SPEC §3.3)
//! node = "/usr/local/bin/node"             # node used by the mini tool runtime
//! [network]
//! timeout = "30s"                          # read timeout of registry requests
//! connect_timeout = "10s"
//! [state]
//! lock_timeout = "10s"                     # how long to wait for another finch's lock
//! [agent]
//! command = ["pi", "-p", "{prompt}"]       # runs scheduled tasks; {prompt} {model} {cwd} {session}
//! [host]
//! mode = "ask"                             # default permission mode of `finch run` (ask|acceptCalls)
//! card_timeout = "5m"                      # an unanswered permission card is denied after this
//! bash_timeout = "2m"                      # default timeout of the Bash built-in
//! record_delay = "2ms"                     # serve mcp: call records written together, at
//!                                          # most this late; --jsonl: each right after its
//!                                          # response ("0": each before its response)
//! max_calls = 16                           # serve mcp: calls that run side by side (more wait)
//! [web_search]
//! provider = "searxng"                     # searxng | brave; none → WebSearch says how to set one
//! url = "http://127.0.0.1:8888"            # the provider's endpoint (searxng; brave has a default)
//! api_key_env = "BRAVE_API_KEY"            # variable holding the provider's key
//! [mcp]
//! timeout = "20s"                          # connecting to an MCP server, and listing its tools
//! call_timeout = "10m"                     # one tools/call
//! reconnect_delay = "2s"                   # first wait before reconnecting a dropped server
//! [runtime]
//! activate_timeout = "30s"                 # a mini tool's activate() must settle within this
//! call_timeout = "2m"                      # a mini tool tool's timeout when it gives no timeoutMs
//! call_timeout_min = "15s"                 # timeoutMs is clamped to [min, max]
//! call_timeout_max = "10m"
//! restart_backoff = "1s"                   # a stopped mini tool restarts after this, doubling…
//! restart_backoff_max = "30s"              # …up to this
//! shutdown_timeout = "2s"                  # how long deactivate() may take when the host ends
//! keyring = "auto"                         # ctx.secrets store: auto | secret-service | keyutils
//!                                          # | keychain | credential-manager | none
//! locale = "en-US"                         # ctx.i18n locale (default: FINCH_LOCALE, LANG, en-US)
//! [sandbox]                                # the kernel wall (SPEC §8.5a, src/sandbox)
//! bash = "kernel"                          # kernel | off: off gives every Bash call a card
//! approved = "workspace-write"             # profile of approved Bash calls: workspace-write | none
//! network = true                           # approved Bash calls may use the network
//! env = ["CARGO_HOME"]                     # more variables a fast-lane command sees
//! approved_env = "strip-secrets"           # an approved command's environment: strip-secrets
//!                                          # (no *KEY*/*TOKEN*/*SECRET*/*PASSWORD*/*CREDENTIAL*
//!                                          # names) | inherit | minimal
//! unix_sockets = ["/run/postgresql/.s.PGSQL.5432"] # Unix sockets approved Bash may use
//! read = ["/srv/data"]                     # more directories confined commands may read
//! hosts = ["github.com", "*.npmjs.org:443"] # approved Bash reaches only these, through finch's
//!                                          # proxy (unset: `network` decides)
//! [sandbox.minitool_hosts]                 # narrow a mini tool to hosts (its networkHosts'
//! finch-wechat = ["api.example.com:443"]   # place); `[sandbox.hosts]` as a table says the same
//! minitools = "manifest"                   # manifest | off: confine each mini tool's node to
//!                                          # what its manifest declares (minitool::confine)
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Config {
    pub registry: Option<String>,
    pub node: Option<PathBuf>,
    pub network: NetworkConfig,
    pub state: StateConfig,
    pub agent: AgentConfig,
    pub host: HostConfig,
    pub web_search: WebSearchConfig,
    pub mcp: McpConfig,
    pub runtime: RuntimeConfig,
    pub sandbox: SandboxConfig,
}

/// `[sandbox]`: the kernel wall (SPEC §8.5a).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SandboxConfig {
    bash: Option<String>,
    approved: Option<String>,
    network: Option<bool>,
    env: Vec<String>,
    approved_env: Option<String>,
    unix_sockets: Vec<PathBuf>,
    read: Vec<PathBuf>,
    minitools: Option<String>,
    hosts: Option<HostsConfig>,
    minitool_hosts: std::collections::BTreeMap<String, Vec<String>>,
}

/// `[sandbox] hosts`: a list (approved Bash), or a table of lists by mini tool id (TOML cannot
/// hold one key as both; `[sandbox.minitool_hosts]` is the table's other name).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum HostsConfig {
    Bash(Vec<String>),
    MiniTools(std::collections::BTreeMap<String, Vec<String>>),
}

/// Whether Bash calls lean on the kernel wall (`[sandbox] bash`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BashWall {
    /// Fast-lane commands run read-only in the sandbox, approved ones in `approved`.
    Kernel,
    /// No wall: every Bash call takes a card and runs unconfined.
    Off,
}

/// The kernel wall's settings after defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxSettings {
    pub bash: BashWall,
    /// The profile of an approved Bash call; `None` runs it unconfined (`"none"`).
    pub approved: Option<crate::sandbox::Profile>,
    /// Approved calls may use the network (default true).
    pub network: bool,
    /// More variables a fast-lane command sees (and an approved one keeps).
    pub env: Vec<String>,
    /// What an approved command's environment is (`[sandbox] approved_env`).
    pub approved_env: crate::sandbox::env::ApprovedEnv,
    /// Pathname Unix sockets approved Bash may connect to (none by default).
    pub unix_sockets: Vec<PathBuf>,
    /// More directories confined commands may read and execute.
    pub read: Vec<PathBuf>,
    /// Whether each mini tool's `node` is confined to what its manifest declares
    /// (`[sandbox] minitools`, `minitool::confine`).
    pub minitools: MiniToolWall,
    /// `[sandbox] hosts`: approved Bash reaches only these hosts, through finch's proxy
    /// (`None`: `network` decides).
    pub hosts: Option<Vec<crate::sandbox::hosts::HostPattern>>,
    /// `[sandbox.minitool_hosts]` (or `[sandbox.hosts]` as a table): a person's host list for
    /// a mini tool, in place of its manifest's `networkHosts`.
    pub minitool_hosts: std::collections::BTreeMap<String, Vec<crate::sandbox::hosts::HostPattern>>,
}

/// `[sandbox] minitools`: `manifest` (default) confines each mini tool to its declarations,
/// `off` runs them with every right of the user, as before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MiniToolWall {
    Manifest,
    Off,
}

impl Default for SandboxSettings {
    fn default() -> SandboxSettings {
        SandboxSettings {
            bash: BashWall::Kernel,
            approved: Some(crate::sandbox::Profile::WorkspaceWrite),
            network: true,
            env: Vec::new(),
            approved_env: crate::sandbox::env::ApprovedEnv::StripSecrets,
            unix_sockets: Vec::new(),
            read: Vec::new(),
            minitools: MiniToolWall::Manifest,
            hosts: None,
            minitool_hosts: Default::default(),
        }
    }
}

impl SandboxConfig {
    fn settings(&self, path: &Path) -> Result<SandboxSettings, ConfigError> {
        let invalid = |message: String| ConfigError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let bash = match self.bash.as_deref() {
            None | Some("kernel") => BashWall::Kernel,
            Some("off") => BashWall::Off,
            Some(other) => {
                return Err(invalid(format!(
                    "sandbox.bash = {other:?} is not one of kernel, off"
                )));
            }
        };
        let approved = match self.approved.as_deref() {
            None | Some("workspace-write") => Some(crate::sandbox::Profile::WorkspaceWrite),
            Some("none") => None,
            Some(other) => {
                return Err(invalid(format!(
                    "sandbox.approved = {other:?} is not one of workspace-write, none"
                )));
            }
        };
        let minitools = match self.minitools.as_deref() {
            None | Some("manifest") => MiniToolWall::Manifest,
            Some("off") => MiniToolWall::Off,
            Some(other) => {
                return Err(invalid(format!(
                    "sandbox.minitools = {other:?} is not one of manifest, off"
                )));
            }
        };
        let approved_env = match self.approved_env.as_deref() {
            None => crate::sandbox::env::ApprovedEnv::default(),
            Some(text) => crate::sandbox::env::ApprovedEnv::parse(text).ok_or_else(|| {
                invalid(format!(
                    "sandbox.approved_env = {text:?} is not one of strip-secrets, inherit, minimal"
                ))
            })?,
        };
        for (key, paths) in [("read", &self.read), ("unix_sockets", &self.unix_sockets)] {
            if let Some(relative) = paths.iter().find(|p| !p.is_absolute()) {
                return Err(invalid(format!(
                    "sandbox.{key}: {:?} is not an absolute path",
                    relative.display().to_string()
                )));
            }
        }
        let patterns = |key: &str, list: &[String]| {
            list.iter()
                .map(|text| crate::sandbox::hosts::HostPattern::parse(text))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| invalid(format!("sandbox.{key}: {e}")))
        };
        let mut hosts = None;
        let mut minitool_hosts = std::collections::BTreeMap::new();
        let tables = match &self.hosts {
            Some(HostsConfig::Bash(list)) => {
                hosts = Some(patterns("hosts", list)?);
                None
            }
            Some(HostsConfig::MiniTools(table)) => Some(table),
            None => None,
        };
        for (id, list) in tables.into_iter().flatten().chain(&self.minitool_hosts) {
            minitool_hosts.insert(id.clone(), patterns(&format!("hosts.{id}"), list)?);
        }
        Ok(SandboxSettings {
            hosts,
            minitool_hosts,
            bash,
            approved,
            network: self.network.unwrap_or(true),
            env: self.env.clone(),
            approved_env,
            unix_sockets: self.unix_sockets.clone(),
            read: self.read.clone(),
            minitools,
        })
    }
}

/// `[mcp]`: timeouts of the MCP bridge (SPEC §9.2).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct McpConfig {
    timeout: Option<String>,
    call_timeout: Option<String>,
    reconnect_delay: Option<String>,
}

/// The MCP bridge's timeouts after defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpSettings {
    /// Connecting (spawn or HTTP, plus the `initialize` handshake), and `tools/list` (default
    /// 20 s each).
    pub timeout: Duration,
    /// One `tools/call` (default 10 minutes).
    pub call_timeout: Duration,
    /// The first wait before reconnecting a server whose connection dropped; it doubles up to
    /// 30 s, for at most 5 tries (default 2 s).
    pub reconnect_delay: Duration,
}

/// `[runtime]`: the mini tool runtime (SPEC §9.1).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct RuntimeConfig {
    activate_timeout: Option<String>,
    call_timeout: Option<String>,
    call_timeout_min: Option<String>,
    call_timeout_max: Option<String>,
    restart_backoff: Option<String>,
    restart_backoff_max: Option<String>,
    shutdown_timeout: Option<String>,
    keyring: Option<String>,
    locale: Option<String>,
}

/// Which OS keyring backs `ctx.secrets`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyringChoice {
    /// The platform's own store; on Linux the Secret Service, else the kernel keyutils store.
    Auto,
    SecretService,
    Keyutils,
    Keychain,
    CredentialManager,
    /// No keyring: every `ctx.secrets` call fails (there is never a plaintext fallback).
    None,
}

impl KeyringChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            KeyringChoice::Auto => "auto",
            KeyringChoice::SecretService => "secret-service",
            KeyringChoice::Keyutils => "keyutils",
            KeyringChoice::Keychain => "keychain",
            KeyringChoice::CredentialManager => "credential-manager",
            KeyringChoice::None => "none",
        }
    }
}

/// The mini tool runtime's settings after defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeSettings {
    /// How long `activate(ctx)` may take (default 30 s).
    pub activate_timeout: Duration,
    /// A tool's timeout when it names none (default 2 minutes).
    pub call_timeout: Duration,
    /// The clamp of a tool's `timeoutMs` (default 15 s to 10 minutes).
    pub call_timeout_min: Duration,
    pub call_timeout_max: Duration,
    /// The wait before a stopped mini tool may restart, doubling per failure (default 1 s)…
    pub restart_backoff: Duration,
    /// …up to this (default 30 s).
    pub restart_backoff_max: Duration,
    /// How long `deactivate()` may take when the host ends (default 2 s).
    pub shutdown_timeout: Duration,
    pub keyring: KeyringChoice,
    /// `ctx.i18n.locale` when set; else the environment decides.
    pub locale: Option<String>,
}

impl RuntimeConfig {
    fn settings(
        &self,
        path: &Path,
        duration: impl Fn(&str, &Option<String>, Duration) -> Result<Duration, ConfigError>,
    ) -> Result<RuntimeSettings, ConfigError> {
        let invalid = |message: String| ConfigError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let keyring = match self.keyring.as_deref().map(str::trim) {
            None | Some("" | "auto") => KeyringChoice::Auto,
            Some("secret-service") => KeyringChoice::SecretService,
            Some("keyutils") => KeyringChoice::Keyutils,
            Some("keychain") => KeyringChoice::Keychain,
            Some("credential-manager") => KeyringChoice::CredentialManager,
            Some("none") => KeyringChoice::None,
            Some(other) => {
                return Err(invalid(format!(
                    "runtime.keyring = {other:?} is not one of auto, secret-service, keyutils, keychain, credential-manager, none"
                )));
            }
        };
        let settings = RuntimeSettings {
            activate_timeout: duration(
                "runtime.activate_timeout",
                &self.activate_timeout,
                Duration::from_secs(30),
            )?,
            call_timeout: duration(
                "runtime.call_timeout",
                &self.call_timeout,
                Duration::from_secs(120),
            )?,
            call_timeout_min: duration(
                "runtime.call_timeout_min",
                &self.call_timeout_min,
                Duration::from_secs(15),
            )?,
            call_timeout_max: duration(
                "runtime.call_timeout_max",
                &self.call_timeout_max,
                Duration::from_secs(600),
            )?,
            restart_backoff: duration(
                "runtime.restart_backoff",
                &self.restart_backoff,
                Duration::from_secs(1),
            )?,
            restart_backoff_max: duration(
                "runtime.restart_backoff_max",
                &self.restart_backoff_max,
                Duration::from_secs(30),
            )?,
            shutdown_timeout: duration(
                "runtime.shutdown_timeout",
                &self.shutdown_timeout,
                Duration::from_secs(2),
            )?,
            keyring,
            locale: self.locale.clone().filter(|l| !l.trim().is_empty()),
        };
        if settings.call_timeout_min > settings.call_timeout_max {
            return Err(invalid(
                "runtime.call_timeout_min is longer than runtime.call_timeout_max".into(),
            ));
        }
        Ok(settings)
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct HostConfig {
    mode: Option<String>,
    card_timeout: Option<String>,
    bash_timeout: Option<String>,
    record_delay: Option<String>,
    max_calls: Option<u64>,
}

/// `[web_search]`: the WebSearch built-in's provider.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct WebSearchConfig {
    pub provider: Option<String>,
    pub url: Option<String>,
    pub api_key_env: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AgentConfig {
    /// The agent command line; placeholders are substituted as whole arguments.
    pub command: Option<Vec<String>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct NetworkConfig {
    timeout: Option<String>,
    connect_timeout: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct StateConfig {
    lock_timeout: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{} is not valid: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Lock(#[from] crate::store::LockError),
}

/// Sets `[agent] command` to `command` in the file at `path` (created when missing), under the
/// lock of its directory, with an atomic write: the `command = […]` line goes right after an
/// `[agent]` header the file has, else an `[agent]` table is added at the end; every other
/// line, comment and key stays as written. A file that is not valid TOML, already sets the
/// command, or spells `agent` in a way one line cannot extend (`agent.x = …`, an inline table)
/// is left untouched: `Invalid`, with what to do by hand.
pub fn set_agent_command(
    path: &Path,
    command: &[String],
    lock_timeout: Duration,
) -> Result<(), ConfigError> {
    let invalid = |message: String| ConfigError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let write_err = |source| ConfigError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(write_err)?;
    let _lock = crate::store::DirLock::acquire(dir, &path.display().to_string(), lock_timeout)?;
    let text = match crate::store::read_regular_text(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let table: toml::Table =
        toml::from_str(&text).map_err(|e| invalid(e.to_string().trim_end().to_string()))?;
    let quoted: Vec<String> = command
        .iter()
        .map(|a| toml::Value::String(a.clone()).to_string())
        .collect();
    let line = format!("command = [{}]", quoted.join(", "));
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.iter().position(|l| {
        let l = l.trim();
        l == "[agent]" || l.starts_with("[agent]") && l[7..].trim_start().starts_with('#')
    });
    let updated = match (table.get("agent"), header) {
        (None, _) => {
            let mut out = text.clone();
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&format!("[agent]\n{line}\n"));
            out
        }
        (Some(toml::Value::Table(agent)), Some(at)) if !agent.contains_key("command") => {
            let mut out: Vec<&str> = lines.clone();
            out.insert(at + 1, &line);
            let mut joined = out.join("\n");
            joined.push('\n');
            joined
        }
        (Some(toml::Value::Table(agent)), _) if agent.contains_key("command") => {
            return Err(invalid("[agent] command is already set".to_string()));
        }
        _ => {
            return Err(invalid(format!(
                "its `agent` is not a plain [agent] table; add `{line}` under [agent] by hand"
            )));
        }
    };
    // The edit must say what was meant, or nothing is written.
    let check: Config = toml::from_str(&updated).map_err(|e| invalid(e.to_string()))?;
    if check.agent.command.as_deref() != Some(command) {
        return Err(invalid(format!("add `{line}` under [agent] by hand")));
    }
    crate::store::write_atomic(path, updated.as_bytes()).map_err(write_err)
}

/// Settings after defaults and validation: what the rest of finch uses.
#[derive(Debug, Clone)]
pub struct Settings {
    pub registry: Option<String>,
    pub node: Option<PathBuf>,
    pub read_timeout: Duration,
    pub connect_timeout: Duration,
    pub lock_timeout: Duration,
    /// `[agent] command`, when set and not empty.
    pub agent_command: Option<Vec<String>>,
    /// `[host] mode`: `ask` or `acceptCalls` (checked by the host), `None` when unset.
    pub host_mode: Option<String>,
    /// `[host] card_timeout` (default 5 minutes).
    pub card_timeout: Duration,
    /// `[host] bash_timeout` (default 2 minutes).
    pub bash_timeout: Duration,
    /// `[host] record_delay` (default 2 ms): how long `finch run --serve mcp` lets call
    /// records wait from the first of them, so that a burst of calls is written at once
    /// (`finch run --jsonl` writes each right after its response); zero writes each record
    /// as its call ends, before its response.
    pub record_delay: Duration,
    /// `[host] max_calls` (default 16, at least 1): how many calls `finch run --serve mcp`
    /// runs side by side; a call beyond it waits for one to end.
    pub max_calls: usize,
    pub web_search: WebSearchConfig,
    /// `[mcp]`.
    pub mcp: McpSettings,
    /// `[runtime]`.
    pub runtime: RuntimeSettings,
    /// `[sandbox]`.
    pub sandbox: SandboxSettings,
}

impl Config {
    /// Reads `finch.toml`; a missing file is the default configuration.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = match crate::store::read_regular_text(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
            Err(source) => {
                return Err(ConfigError::Read {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        toml::from_str(&text).map_err(|e| ConfigError::Invalid {
            path: path.to_path_buf(),
            message: e.to_string().trim_end().to_string(),
        })
    }

    pub fn settings(&self, path: &Path) -> Result<Settings, ConfigError> {
        let duration = |key: &str, value: &Option<String>, default: Duration| match value {
            None => Ok(default),
            Some(text) => parse_duration(text).ok_or_else(|| ConfigError::Invalid {
                path: path.to_path_buf(),
                message: format!(
                    "{key} = {text:?} is not a duration (write e.g. \"30s\", \"500ms\", \"2m\")"
                ),
            }),
        };
        Ok(Settings {
            registry: self.registry.clone().filter(|r| !r.trim().is_empty()),
            node: self.node.clone(),
            read_timeout: duration(
                "network.timeout",
                &self.network.timeout,
                Duration::from_secs(30),
            )?,
            connect_timeout: duration(
                "network.connect_timeout",
                &self.network.connect_timeout,
                Duration::from_secs(10),
            )?,
            lock_timeout: duration(
                "state.lock_timeout",
                &self.state.lock_timeout,
                Duration::from_secs(10),
            )?,
            agent_command: self.agent.command.clone().filter(|c| !c.is_empty()),
            host_mode: self.host.mode.clone().filter(|m| !m.trim().is_empty()),
            card_timeout: duration(
                "host.card_timeout",
                &self.host.card_timeout,
                Duration::from_secs(300),
            )?,
            bash_timeout: duration(
                "host.bash_timeout",
                &self.host.bash_timeout,
                Duration::from_secs(120),
            )?,
            record_delay: duration(
                "host.record_delay",
                &self.host.record_delay,
                Duration::from_millis(2),
            )?,
            max_calls: match self.host.max_calls {
                None => 16,
                Some(n @ 1..=1024) => n as usize,
                Some(n) => {
                    return Err(ConfigError::Invalid {
                        path: path.to_path_buf(),
                        message: format!("host.max_calls = {n} is not a number from 1 to 1024"),
                    });
                }
            },
            web_search: self.web_search.clone(),
            mcp: McpSettings {
                timeout: duration("mcp.timeout", &self.mcp.timeout, Duration::from_secs(20))?,
                call_timeout: duration(
                    "mcp.call_timeout",
                    &self.mcp.call_timeout,
                    Duration::from_secs(600),
                )?,
                reconnect_delay: duration(
                    "mcp.reconnect_delay",
                    &self.mcp.reconnect_delay,
                    Duration::from_secs(2),
                )?,
            },
            runtime: self.runtime.settings(path, duration)?,
            sandbox: self.sandbox.settings(path)?,
        })
    }
}

/// Parses `500ms`, `30s`, `2m`, `1h`, `1d` or a bare number of seconds.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number.parse().ok()?;
    let seconds = match unit.trim() {
        "ms" => value / 1000.0,
        "" | "s" | "sec" | "secs" => value,
        "m" | "min" | "mins" => value * 60.0,
        "h" => value * 3600.0,
        "d" => value * 86400.0,
        _ => return None,
    };
    Duration::try_from_secs_f64(seconds).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set_in(text: Option<&str>) -> (Result<(), ConfigError>, Option<String>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config/finch.toml");
        if let Some(text) = text {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
        }
        let command: Vec<String> = ["pi", "-p", "{prompt}"].map(String::from).to_vec();
        let result = set_agent_command(&path, &command, Duration::from_secs(1));
        (result, std::fs::read_to_string(&path).ok())
    }

    #[test]
    fn setting_the_agent_command_keeps_the_rest_of_the_file() {
        let line = "command = [\"pi\", \"-p\", \"{prompt}\"]";
        assert_eq!(set_in(None).1.unwrap(), format!("[agent]\n{line}\n"));
        let (done, text) = set_in(Some("# mine\nnode = \"/n\" # here\n[host]\nmode = \"ask\""));
        assert!(done.is_ok());
        assert_eq!(
            text.unwrap(),
            format!("# mine\nnode = \"/n\" # here\n[host]\nmode = \"ask\"\n\n[agent]\n{line}\n")
        );
        let (done, text) = set_in(Some(
            "[agent] # who runs\n# a note\n[host]\nmode = \"ask\"\n",
        ));
        assert!(done.is_ok());
        assert_eq!(
            text.unwrap(),
            format!("[agent] # who runs\n{line}\n# a note\n[host]\nmode = \"ask\"\n")
        );
    }

    #[test]
    fn setting_the_agent_command_refuses_what_one_line_cannot_say() {
        for text in [
            "[agent]\ncommand = [\"x\"]\n",
            "agent.command = [\"x\"]\n",
            "agent = { }\n",
            "[agent\n",
        ] {
            let (done, after) = set_in(Some(text));
            assert!(matches!(done, Err(ConfigError::Invalid { .. })), "{text}");
            assert_eq!(after.as_deref(), Some(text), "untouched");
        }
    }

    #[test]
    fn durations() {
        let cases = [
            ("500ms", Some(Duration::from_millis(500))),
            ("30s", Some(Duration::from_secs(30))),
            ("2m", Some(Duration::from_secs(120))),
            ("1.5h", Some(Duration::from_secs(5400))),
            ("7", Some(Duration::from_secs(7))),
            ("1d", Some(Duration::from_secs(86400))),
            ("soon", None),
            ("5 parsecs", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse_duration(text), want, "{text}");
        }
    }

    #[test]
    fn mcp_timeouts_default_and_parse() {
        let path = Path::new("/x/finch.toml");
        let defaults = Config::default().settings(path).unwrap().mcp;
        assert_eq!(
            defaults,
            McpSettings {
                timeout: Duration::from_secs(20),
                call_timeout: Duration::from_secs(600),
                reconnect_delay: Duration::from_secs(2),
            }
        );
        let cfg: Config =
            toml::from_str("[mcp]\ntimeout = \"1s\"\nreconnect_delay = \"250ms\"\n").unwrap();
        let mcp = cfg.settings(path).unwrap().mcp;
        assert_eq!(mcp.timeout, Duration::from_secs(1));
        assert_eq!(mcp.reconnect_delay, Duration::from_millis(250));
        let bad: Config = toml::from_str("[mcp]\ncall_timeout = \"never\"\n").unwrap();
        let err = bad.settings(path).unwrap_err();
        assert!(err.to_string().contains("mcp.call_timeout"), "{err}");
    }

    #[test]
    fn bad_duration_names_the_key() {
        let cfg: Config = toml::from_str("[state]\nlock_timeout = \"forever\"\n").unwrap();
        let err = cfg.settings(Path::new("/x/finch.toml")).unwrap_err();
        assert!(err.to_string().contains("state.lock_timeout"), "{err}");
    }

    #[test]
    fn max_calls_defaults_to_16_and_must_be_1_to_1024() {
        let path = Path::new("/x/finch.toml");
        assert_eq!(Config::default().settings(path).unwrap().max_calls, 16);
        let cfg: Config = toml::from_str("[host]\nmax_calls = 1\n").unwrap();
        assert_eq!(cfg.settings(path).unwrap().max_calls, 1);
        for bad in ["0", "1025"] {
            let cfg: Config = toml::from_str(&format!("[host]\nmax_calls = {bad}\n")).unwrap();
            let err = cfg.settings(path).unwrap_err().to_string();
            assert!(err.contains("host.max_calls"), "{err}");
        }
    }

    #[test]
    fn sandbox_table_defaults_and_errors() {
        let path = Path::new("/x/finch.toml");
        let defaults = Config::default().settings(path).unwrap().sandbox;
        assert_eq!(defaults, SandboxSettings::default());
        assert_eq!(defaults.bash, BashWall::Kernel);
        assert_eq!(
            defaults.approved,
            Some(crate::sandbox::Profile::WorkspaceWrite)
        );
        assert!(defaults.network);
        let cfg: Config = toml::from_str(
            "[sandbox]\nbash = \"off\"\napproved = \"none\"\nnetwork = false\nenv = [\"CARGO_HOME\"]\nread = [\"/srv\"]\n",
        )
        .unwrap();
        let sandbox = cfg.settings(path).unwrap().sandbox;
        assert_eq!(sandbox.bash, BashWall::Off);
        assert_eq!(sandbox.approved, None);
        assert_eq!(defaults.minitools, MiniToolWall::Manifest);
        let off: Config = toml::from_str("[sandbox]\nminitools = \"off\"\n").unwrap();
        assert_eq!(
            off.settings(path).unwrap().sandbox.minitools,
            MiniToolWall::Off
        );
        let bad: Config = toml::from_str("[sandbox]\nminitools = \"none\"\n").unwrap();
        let err = bad.settings(path).unwrap_err().to_string();
        assert!(err.contains("sandbox.minitools"), "{err}");
        assert!(!sandbox.network);
        assert_eq!(sandbox.env, ["CARGO_HOME"]);
        assert_eq!(sandbox.read, [PathBuf::from("/srv")]);
        assert_eq!(
            defaults.approved_env,
            crate::sandbox::env::ApprovedEnv::StripSecrets
        );
        assert!(defaults.unix_sockets.is_empty());
        let cfg: Config = toml::from_str(
            "[sandbox]\napproved_env = \"minimal\"\nunix_sockets = [\"/run/x.sock\"]\n",
        )
        .unwrap();
        let sandbox = cfg.settings(path).unwrap().sandbox;
        assert_eq!(
            sandbox.approved_env,
            crate::sandbox::env::ApprovedEnv::Minimal
        );
        assert_eq!(sandbox.unix_sockets, [PathBuf::from("/run/x.sock")]);
        for (text, needle) in [
            ("[sandbox]\nbash = \"maybe\"\n", "sandbox.bash"),
            ("[sandbox]\napproved = \"read-only\"\n", "sandbox.approved"),
            ("[sandbox]\nread = [\"rel\"]\n", "sandbox.read"),
            (
                "[sandbox]\napproved_env = \"all\"\n",
                "sandbox.approved_env",
            ),
            (
                "[sandbox]\nunix_sockets = [\"x.sock\"]\n",
                "sandbox.unix_sockets",
            ),
        ] {
            let cfg: Config = toml::from_str(text).unwrap();
            let err = cfg.settings(path).unwrap_err().to_string();
            assert!(err.contains(needle), "{text}: {err}");
        }
    }

    #[test]
    fn runtime_table_defaults_and_errors() {
        let path = Path::new("/x/finch.toml");
        let defaults = Config::default().settings(path).unwrap().runtime;
        assert_eq!(defaults.activate_timeout, Duration::from_secs(30));
        assert_eq!(defaults.call_timeout, Duration::from_secs(120));
        assert_eq!(
            (defaults.call_timeout_min, defaults.call_timeout_max),
            (Duration::from_secs(15), Duration::from_secs(600))
        );
        assert_eq!(defaults.restart_backoff, Duration::from_secs(1));
        assert_eq!(defaults.keyring, KeyringChoice::Auto);
        let cfg: Config =
            toml::from_str("[runtime]\ncall_timeout_min = \"100ms\"\nkeyring = \"keyutils\"\n")
                .unwrap();
        let runtime = cfg.settings(path).unwrap().runtime;
        assert_eq!(runtime.call_timeout_min, Duration::from_millis(100));
        assert_eq!(runtime.keyring, KeyringChoice::Keyutils);
        for (text, needle) in [
            ("[runtime]\nkeyring = \"vault\"\n", "runtime.keyring"),
            (
                "[runtime]\nactivate_timeout = \"later\"\n",
                "runtime.activate_timeout",
            ),
            (
                "[runtime]\ncall_timeout_min = \"20m\"\n",
                "call_timeout_min is longer than runtime.call_timeout_max",
            ),
        ] {
            let cfg: Config = toml::from_str(text).unwrap();
            let err = cfg.settings(path).unwrap_err();
            assert!(err.to_string().contains(needle), "{text}: {err}");
        }
    }
}
