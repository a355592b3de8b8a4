//! finch's own settings file, `<runtime>/config/finch.toml`, read once per command that needs it.
//! Unknown keys are ignored here (finch never rewrites this file), so newer settings written by a
//! newer finch do not break an older one.
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
//! [web_search]
//! provider = "searxng"                     # searxng | brave; none → WebSearch says how to set one
//! url = "http://127.0.0.1:8888"            # the provider's endpoint (searxng; brave has a default)
//! api_key_env = "BRAVE_API_KEY"            # variable holding the provider's key
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
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct HostConfig {
    mode: Option<String>,
    card_timeout: Option<String>,
    bash_timeout: Option<String>,
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
    pub web_search: WebSearchConfig,
}

impl Config {
    /// Reads `finch.toml`; a missing file is the default configuration.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = match std::fs::read_to_string(path) {
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
            web_search: self.web_search.clone(),
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
    fn bad_duration_names_the_key() {
        let cfg: Config = toml::from_str("[state]\nlock_timeout = \"forever\"\n").unwrap();
        let err = cfg.settings(Path::new("/x/finch.toml")).unwrap_err();
        assert!(err.to_string().contains("state.lock_timeout"), "{err}");
    }
}
