//! Where MCP servers come from (SPEC §9.2) and the one file finch edits for them.
//!
//! Three sources, merged by normalized name (lowercase, anything outside `[a-z0-9]` → `_`),
//! later wins: `contributes.mcpServers` of enabled mini tools < servers mini tools register at
//! run time (`mcp.client`) < the user's `<runtime>/extension-data/mcp/servers.json`:
//! `{"servers":[{"name","command","args","env","cwd"} | {"name","url","headers"}]}`.
//!
//! This module only reads and writes configuration: it never starts a server and never
//! connects. One bad entry never hides the others: it becomes a `Problem` naming its source.
//! `servers.json` is shared with the app, so every key finch does not manage survives a
//! rewrite, and every change is made under the directory's lock with an atomic write.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::env::Env;
use crate::homes::{Homes, Tier};
use crate::minitool::enabled::EnabledState;
use crate::minitool::tier;
use crate::store::{DirLock, JsonError, LockError, read_json_object, write_json};

/// The keys of a `servers.json` entry that finch writes; all others are kept as they are.
const MANAGED_KEYS: [&str; 9] = [
    "name", "type", "command", "args", "env", "cwd", "url", "headers", "sandbox",
];

/// The name MCP servers are merged and their tools named by: lowercase, anything outside
/// `[a-z0-9]` becomes `_` (`My-Server.io` → `my_server_io`).
pub fn normalize_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_lowercase() || c.is_ascii_digit() {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// How finch reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process speaking JSON-RPC on its stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        /// Added to the environment finch runs in; values may hold `${VAR}`.
        env: BTreeMap<String, String>,
        /// Where the process starts; `None` is the default of its source (see `Origin`).
        cwd: Option<PathBuf>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        url: String,
        /// Sent with every request; values may hold `${VAR}`.
        headers: BTreeMap<String, String>,
    },
}

impl Transport {
    pub fn kind(&self) -> &'static str {
        match self {
            Transport::Stdio { .. } => "stdio",
            Transport::Http { .. } => "http",
        }
    }
}

/// Which source a server came from; it decides the owner of its tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// `contributes.mcpServers` of an enabled mini tool installed at `dir`.
    MiniTool { id: String, dir: PathBuf },
    /// Registered at run time by the mini tool `id`, whose package is at `dir`, through the
    /// `mcp.client` capability.
    Runtime { id: String, dir: PathBuf },
    /// The user's `servers.json`.
    User,
}

impl Origin {
    /// `minitool:<id>`, `runtime:<id>` or `user`: what listings show as the source.
    pub fn source(&self) -> String {
        match self {
            Origin::MiniTool { id, .. } => format!("minitool:{id}"),
            Origin::Runtime { id, .. } => format!("runtime:{id}"),
            Origin::User => "user".into(),
        }
    }

    /// The mini tool that contributed or registered the server, if one did.
    pub fn minitool(&self) -> Option<&str> {
        match self {
            Origin::MiniTool { id, .. } | Origin::Runtime { id, .. } => Some(id),
            Origin::User => None,
        }
    }

    /// The mini tool that brings the server and its package directory, if one does.
    pub fn package(&self) -> Option<(&str, &Path)> {
        match self {
            Origin::MiniTool { id, dir } | Origin::Runtime { id, dir } => Some((id, dir)),
            Origin::User => None,
        }
    }
}

/// One configured MCP server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerConfig {
    /// The name as configured (`GitHub`); tools and merging use `normalized()`.
    pub name: String,
    pub transport: Transport,
    pub origin: Origin,
    /// `"sandbox"` of a stdio entry: the server starts confined (opt-in; issue 29).
    pub sandbox: Option<ServerSandbox>,
}

/// `"sandbox": {"profile": "read-only"|"workspace-write", "network": true|false}` of a stdio
/// entry: the server runs in that profile of the kernel wall (`sandbox::Access::for_profile`)
/// over its working directory, with the network as said (default off). Where the kernel cannot
/// enforce the profile, the server does not start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerSandbox {
    pub profile: crate::sandbox::Profile,
    pub network: bool,
}

impl ServerSandbox {
    fn from_json(value: &Value) -> Result<ServerSandbox, String> {
        let Some(map) = value.as_object() else {
            return Err("\"sandbox\" must be an object: {\"profile\": \"read-only\"|\"workspace-write\", \"network\": true|false}".into());
        };
        let profile = match map.get("profile") {
            None => crate::sandbox::Profile::ReadOnly,
            Some(Value::String(p)) => crate::sandbox::Profile::parse(p).ok_or_else(|| {
                format!("\"sandbox\".\"profile\" {p:?} is not read-only or workspace-write")
            })?,
            Some(_) => return Err("\"sandbox\".\"profile\" must be a string".into()),
        };
        let network = match map.get("network") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err("\"sandbox\".\"network\" must be true or false".into()),
        };
        Ok(ServerSandbox { profile, network })
    }

    pub fn to_json(self) -> Value {
        json!({"profile": self.profile.as_str(), "network": self.network})
    }

    /// As a cap on a mini tool's declaration (a mini tool's server entry only narrows).
    pub fn narrowing(self) -> crate::minitool::confine::Narrowing {
        use crate::minitool::confine::{Filesystem, Narrowing};
        Narrowing {
            filesystem: match self.profile {
                crate::sandbox::Profile::ReadOnly => Filesystem::Read,
                crate::sandbox::Profile::WorkspaceWrite => Filesystem::ReadWrite,
            },
            network: self.network,
        }
    }
}

impl McpServerConfig {
    /// Parses one entry as `servers.json` and `contributes.mcpServers` write it (and as a mini
    /// tool registers one at run time): `{"name","command","args","env","cwd"}` or
    /// `{"name","url","headers"}`, with an optional `"type"` (`stdio`, `http`,
    /// `streamable-http`). The error says what is wrong with the entry.
    pub fn from_json(entry: &Value, origin: Origin) -> Result<McpServerConfig, String> {
        let Some(map) = entry.as_object() else {
            return Err("an entry must be a JSON object".into());
        };
        let name = match map.get("name") {
            Some(Value::String(n)) if !n.trim().is_empty() => n.trim().to_string(),
            Some(_) => return Err("\"name\" must be a non-empty string".into()),
            None => return Err("\"name\" is missing".into()),
        };
        let text = |key: &str| -> Result<Option<String>, String> {
            match map.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(format!("\"{key}\" must be a string")),
            }
        };
        let kind = text("type")?;
        let url = text("url")?;
        let command = text("command")?;
        let transport = match (kind.as_deref(), url, command) {
            (Some("sse"), _, _) => {
                return Err("the SSE transport is not supported; give the server's Streamable HTTP URL with \"type\": \"http\"".into());
            }
            (Some(other), _, _)
                if !matches!(
                    other,
                    "stdio" | "http" | "streamable-http" | "streamableHttp"
                ) =>
            {
                return Err(format!(
                    "\"type\": \"{other}\" is not a transport; use \"stdio\" or \"http\""
                ));
            }
            (_, Some(_), Some(_)) => {
                return Err("has both \"command\" and \"url\"; keep one".into());
            }
            (Some("stdio"), Some(_), None) => {
                return Err("is \"type\": \"stdio\" but has a \"url\"; give a \"command\"".into());
            }
            (_, Some(url), None) => {
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(format!("\"url\" {url:?} is not an http:// or https:// URL"));
                }
                Transport::Http {
                    url,
                    headers: string_map(map, "headers")?,
                }
            }
            (Some("http" | "streamable-http" | "streamableHttp"), None, _) => {
                return Err("is an HTTP server without a \"url\"".into());
            }
            (_, None, Some(command)) if !command.trim().is_empty() => {
                let args = match map.get("args") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(items)) => items
                        .iter()
                        .map(|v| v.as_str().map(str::to_string))
                        .collect::<Option<Vec<_>>>()
                        .ok_or("\"args\" must be an array of strings")?,
                    Some(_) => return Err("\"args\" must be an array of strings".into()),
                };
                Transport::Stdio {
                    command,
                    args,
                    env: string_map(map, "env")?,
                    cwd: text("cwd")?
                        .filter(|c| !c.trim().is_empty())
                        .map(PathBuf::from),
                }
            }
            (_, None, _) => {
                return Err(
                    "needs a \"command\" (a stdio server) or a \"url\" (a Streamable HTTP server)"
                        .into(),
                );
            }
        };
        let sandbox = match map.get("sandbox") {
            None | Some(Value::Null) => None,
            Some(_) if !matches!(transport, Transport::Stdio { .. }) => {
                return Err("\"sandbox\" applies to stdio servers (a \"command\") only".into());
            }
            Some(v) => Some(ServerSandbox::from_json(v)?),
        };
        Ok(McpServerConfig {
            name,
            transport,
            origin,
            sandbox,
        })
    }

    /// The entry as `servers.json` stores it.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("name".into(), self.name.clone().into());
        match &self.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                map.insert("command".into(), command.clone().into());
                map.insert("args".into(), json!(args));
                if !env.is_empty() {
                    map.insert("env".into(), json!(env));
                }
                if let Some(cwd) = cwd {
                    map.insert("cwd".into(), cwd.display().to_string().into());
                }
            }
            Transport::Http { url, headers } => {
                map.insert("type".into(), "http".into());
                map.insert("url".into(), url.clone().into());
                if !headers.is_empty() {
                    map.insert("headers".into(), json!(headers));
                }
            }
        }
        if let Some(sandbox) = self.sandbox {
            map.insert("sandbox".into(), sandbox.to_json());
        }
        Value::Object(map)
    }

    pub fn normalized(&self) -> String {
        normalize_name(&self.name)
    }

    /// `stdio: npx -y pkg` or `http: https://…`: what the entry runs or reaches, for a person.
    pub fn reach(&self) -> String {
        match &self.transport {
            Transport::Stdio { command, args, .. } => {
                let words: Vec<&str> = std::iter::once(command.as_str())
                    .chain(args.iter().map(String::as_str))
                    .collect();
                format!(
                    "stdio: {}",
                    shlex::try_join(words.iter().copied()).unwrap_or_else(|_| words.join(" "))
                )
            }
            Transport::Http { url, .. } => format!("http: {url}"),
        }
    }

    /// How the server is held when a mini tool brings it: confined as that mini tool, its
    /// `"sandbox"` only narrowing (`minitool::confine::ServerConfinement`). `None` for a server
    /// of the user's own (its `"sandbox"` entry, when it has one, is opt-in).
    pub fn confinement(
        &self,
        homes: &Homes,
        settings: &crate::config::Settings,
    ) -> Option<crate::minitool::confine::ServerConfinement> {
        let (id, dir) = self.origin.package()?;
        Some(crate::minitool::confine::ServerConfinement::of(
            homes,
            settings,
            id,
            dir,
            self.sandbox.map(ServerSandbox::narrowing),
        ))
    }

    /// Who the server's tools belong to: the mini tool that contributed or registered it, else
    /// (a server of the user's own) the server itself, by its name.
    pub fn owner(&self) -> String {
        match self.origin.minitool() {
            Some(id) => id.to_string(),
            None => self.name.clone(),
        }
    }
}

fn string_map(map: &Map<String, Value>, key: &str) -> Result<BTreeMap<String, String>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
            .collect::<Option<BTreeMap<_, _>>>()
            .ok_or_else(|| format!("\"{key}\" must map names to strings")),
        Some(_) => Err(format!("\"{key}\" must be an object of strings")),
    }
}

/// An entry or file that could not be used; it is reported and left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The server's name when the entry has one.
    pub name: Option<String>,
    /// `minitool:<id>`, `runtime:<id>` or `user`.
    pub source: String,
    pub message: String,
}

/// The servers of a session after merging, sorted by normalized name, and what was left out.
#[derive(Debug, Default)]
pub struct Resolved {
    pub servers: Vec<McpServerConfig>,
    pub problems: Vec<Problem>,
    /// Entries of the user's `servers.json` that no person approved as they are now
    /// (`trust`): they do not start.
    pub waiting: Vec<McpServerConfig>,
}

/// Merges the three sources of SPEC §9.2. `runtime` holds the servers mini tools registered
/// through `mcp.client`. Nothing here fails: an unreadable file or a bad entry is a problem.
pub fn resolve(homes: &Homes, runtime: Vec<McpServerConfig>) -> Resolved {
    let mut problems = Vec::new();
    let mut ordered = minitool_servers(homes, &mut problems);
    ordered.extend(runtime);
    let file = homes.mcp_servers_json();
    let approved = super::trust::list(&homes.runtime).unwrap_or_else(|e| {
        problems.push(Problem {
            name: None,
            source: Origin::User.source(),
            message: format!("{e}; every servers.json entry waits for a person until it is fixed"),
        });
        Vec::new()
    });
    let mut waiting = Vec::new();
    match UserServers::load(&file) {
        Ok(list) => {
            for server in list.servers(&mut problems) {
                if super::trust::is_approved(&approved, &file, &server) {
                    ordered.push(server);
                } else {
                    waiting.push(server);
                }
            }
        }
        Err(e) => problems.push(Problem {
            name: None,
            source: Origin::User.source(),
            message: format!("{e}; its servers are left out until the file is fixed"),
        }),
    }
    let mut merged: BTreeMap<String, McpServerConfig> = BTreeMap::new();
    for server in ordered {
        merged.insert(server.normalized(), server);
    }
    Resolved {
        servers: merged.into_values().collect(),
        problems,
        waiting,
    }
}

/// `contributes.mcpServers` of every enabled mini tool, personal tier first (an id installed
/// in both tiers runs from the personal one). Broken manifests are `finch list`'s to report.
pub fn minitool_servers(homes: &Homes, problems: &mut Vec<Problem>) -> Vec<McpServerConfig> {
    let Ok(state) = EnabledState::load(&homes.extensions_json()) else {
        // A corrupt extensions.json enables nothing; `finch list` says why.
        return Vec::new();
    };
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for t in [Tier::Personal, Tier::Global] {
        for entry in tier::scan(&homes.tier_dir(t)).unwrap_or_default() {
            if !seen.insert(entry.dir_name.clone()) || !state.is_enabled(&entry.dir_name) {
                continue;
            }
            let Ok(manifest) = &entry.manifest else {
                continue;
            };
            let Some(list) = manifest
                .fields
                .get("contributes")
                .and_then(|c| c.get("mcpServers"))
                .and_then(Value::as_array)
            else {
                continue;
            };
            let origin = Origin::MiniTool {
                id: entry.dir_name.clone(),
                dir: entry.path.clone(),
            };
            for item in list.iter().filter(|item| !is_metadata_only(item)) {
                match McpServerConfig::from_json(item, origin.clone()) {
                    Ok(server) => out.push(server),
                    Err(message) => problems.push(Problem {
                        name: item.get("name").and_then(Value::as_str).map(str::to_string),
                        source: origin.source(),
                        message: format!("contributes.mcpServers entry {message}"),
                    }),
                }
            }
        }
    }
    out
}

/// The keys that say how to reach a server. A `contributes.mcpServers` entry with none of them
/// (`{name, description, toolMeta}`) only describes a server its mini tool registers at run
/// time through `mcp.client`, once it has what the server needs (an API key, say): it is no
/// server to connect, and no problem.
const TRANSPORT_KEYS: [&str; 7] = ["type", "command", "args", "env", "cwd", "url", "headers"];

fn is_metadata_only(entry: &Value) -> bool {
    entry
        .as_object()
        .is_some_and(|o| !TRANSPORT_KEYS.iter().any(|k| o.contains_key(*k)))
}

/// Expands `${VAR}` and `${VAR:-default}` from the environment snapshot. `$` not followed by
/// `{` is kept as it is. An unset variable without a default is an error naming it: a header
/// sent without its token would only fail later, less clearly.
pub fn expand_vars(text: &str, env: &Env) -> Result<String, String> {
    expand_with(
        text,
        |var| env.get(var),
        |var| format!("${{{var}}} is not set in the environment"),
    )
}

/// `expand_vars` over what `lookup` finds; `missing` words the error of a variable it does not
/// (a mini tool's server sees only the variables its mini tool may, `host::mcp::confine`).
pub fn expand_with(
    text: &str,
    lookup: impl Fn(&str) -> Option<String>,
    missing: impl Fn(&str) -> String,
) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!(
                "\"{text}\" has a \"${{\" without its closing \"}}\""
            ));
        };
        let inner = &after[..end];
        let (var, default) = match inner.split_once(":-") {
            Some((v, d)) => (v, Some(d)),
            None => (inner, None),
        };
        match (lookup(var).filter(|v| !v.is_empty()), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(d)) => out.push_str(d),
            (None, None) => return Err(missing(var)),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Why `servers.json` could not be read or changed.
#[derive(Debug, thiserror::Error)]
pub enum ServersFileError {
    #[error(transparent)]
    Json(#[from] JsonError),
    #[error("{}: \"servers\" must be an array of server objects", path.display())]
    Shape { path: PathBuf },
    #[error(transparent)]
    Lock(#[from] LockError),
}

/// `<runtime>/extension-data/mcp/servers.json`, read as an ordered map so that unknown keys —
/// at the top and in every entry — survive a rewrite.
#[derive(Debug)]
pub struct UserServers {
    path: PathBuf,
    /// The whole document; its `servers` value is replaced by `entries` on save (in place, so
    /// the key keeps its position).
    doc: Map<String, Value>,
    entries: Vec<Value>,
}

impl UserServers {
    /// Reads the file; a missing file is an empty list.
    pub fn load(path: &Path) -> Result<UserServers, ServersFileError> {
        let doc = read_json_object(path)?.unwrap_or_else(|| {
            let mut fresh = Map::new();
            fresh.insert("servers".into(), Value::Array(Vec::new()));
            fresh
        });
        let entries = match doc.get("servers") {
            None => Vec::new(),
            Some(Value::Array(items)) => items.clone(),
            Some(_) => {
                return Err(ServersFileError::Shape {
                    path: path.to_path_buf(),
                });
            }
        };
        Ok(UserServers {
            path: path.to_path_buf(),
            doc,
            entries,
        })
    }

    /// Takes the lock of the file's directory, then reads it: for a change.
    pub fn lock(
        path: &Path,
        timeout: Duration,
    ) -> Result<(DirLock, UserServers), ServersFileError> {
        let dir = path.parent().unwrap_or(Path::new("."));
        let lock = DirLock::acquire(dir, "the MCP server list", timeout)?;
        let servers = UserServers::load(path)?;
        Ok((lock, servers))
    }

    /// The usable entries; the others become problems.
    pub fn servers(&self, problems: &mut Vec<Problem>) -> Vec<McpServerConfig> {
        let mut out = Vec::new();
        for (i, item) in self.entries.iter().enumerate() {
            match McpServerConfig::from_json(item, Origin::User) {
                Ok(server) => out.push(server),
                Err(message) => problems.push(Problem {
                    name: item.get("name").and_then(Value::as_str).map(str::to_string),
                    source: Origin::User.source(),
                    message: format!("{} entry {} {message}", self.path.display(), i + 1),
                }),
            }
        }
        out
    }

    /// The index of the entry whose name normalizes to the same as `name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        let wanted = normalize_name(name);
        self.entries.iter().position(|e| {
            e.get("name")
                .and_then(Value::as_str)
                .is_some_and(|n| normalize_name(n.trim()) == wanted)
        })
    }

    /// Adds `server`, or replaces the entry of the same normalized name in place, keeping the
    /// keys of the old entry that finch does not manage. Returns whether it replaced one.
    pub fn upsert(&mut self, server: &McpServerConfig) -> bool {
        let Value::Object(fresh) = server.to_json() else {
            return false;
        };
        match self.position(&server.name) {
            Some(i) => {
                let mut merged = Map::new();
                for (k, v) in fresh {
                    merged.insert(k, v);
                }
                if let Value::Object(old) = &self.entries[i] {
                    for (k, v) in old {
                        if !MANAGED_KEYS.contains(&k.as_str()) {
                            merged.insert(k.clone(), v.clone());
                        }
                    }
                }
                self.entries[i] = Value::Object(merged);
                true
            }
            None => {
                self.entries.push(Value::Object(fresh));
                false
            }
        }
    }

    /// Removes the entry of that (normalized) name; `None` when there is none.
    pub fn remove(&mut self, name: &str) -> Option<Value> {
        let i = self.position(name)?;
        Some(self.entries.remove(i))
    }

    /// Writes the file atomically (the caller holds the lock).
    pub fn save(&self) -> Result<(), ServersFileError> {
        let mut doc = self.doc.clone();
        doc.insert("servers".into(), Value::Array(self.entries.clone()));
        write_json(&self.path, &Value::Object(doc))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(v: Value) -> Result<Transport, String> {
        McpServerConfig::from_json(&v, Origin::User).map(|s| s.transport)
    }

    #[test]
    fn names_normalize_as_tools_are_named() {
        for (raw, want) in [
            ("GitHub", "github"),
            ("my-server.io", "my_server_io"),
            ("A B", "a_b"),
            ("é", "_"),
        ] {
            assert_eq!(normalize_name(raw), want, "{raw}");
        }
    }

    #[test]
    fn entries_of_both_transports_parse() {
        assert_eq!(
            parse(
                json!({"name": "a", "command": "python3", "args": ["s.py"], "env": {"K": "v"}, "cwd": "/x"})
            ),
            Ok(Transport::Stdio {
                command: "python3".into(),
                args: vec!["s.py".into()],
                env: [("K".to_string(), "v".to_string())].into(),
                cwd: Some(PathBuf::from("/x")),
            })
        );
        assert_eq!(
            parse(
                json!({"name": "b", "url": "https://h/mcp", "headers": {"Authorization": "Bearer ${T}"}})
            ),
            Ok(Transport::Http {
                url: "https://h/mcp".into(),
                headers: [("Authorization".to_string(), "Bearer ${T}".to_string())].into(),
            })
        );
        assert!(
            parse(json!({"name": "c", "type": "http", "url": "http://127.0.0.1:1/mcp"})).is_ok()
        );
    }

    #[test]
    fn bad_entries_say_what_is_wrong() {
        let cases = [
            (json!([]), "an entry must be a JSON object"),
            (json!({"command": "x"}), "\"name\" is missing"),
            (
                json!({"name": " ", "command": "x"}),
                "\"name\" must be a non-empty string",
            ),
            (json!({"name": "a"}), "needs a \"command\""),
            (
                json!({"name": "a", "command": "x", "url": "http://h"}),
                "has both",
            ),
            (
                json!({"name": "a", "url": "ftp://h"}),
                "is not an http:// or https:// URL",
            ),
            (
                json!({"name": "a", "type": "sse", "url": "http://h"}),
                "SSE transport",
            ),
            (
                json!({"name": "a", "type": "ws", "command": "x"}),
                "is not a transport",
            ),
            (
                json!({"name": "a", "type": "http", "command": "x"}),
                "without a \"url\"",
            ),
            (
                json!({"name": "a", "command": "x", "args": "s.py"}),
                "\"args\" must be an array",
            ),
            (
                json!({"name": "a", "command": "x", "args": [1]}),
                "\"args\" must be an array",
            ),
            (
                json!({"name": "a", "command": "x", "env": {"K": 1}}),
                "\"env\" must map",
            ),
            (
                json!({"name": "a", "url": "http://h", "headers": []}),
                "\"headers\" must be an object",
            ),
        ];
        for (entry, want) in cases {
            let err = parse(entry.clone()).expect_err(&entry.to_string());
            assert!(err.contains(want), "{entry} → {err}");
        }
    }

    #[test]
    fn variables_expand_from_the_snapshot() {
        let env = Env::from_pairs(&[("TOKEN", "s3cret"), ("EMPTY", "")]);
        let cases = [
            ("Bearer ${TOKEN}", Ok("Bearer s3cret".to_string())),
            ("${TOKEN}${TOKEN}", Ok("s3crets3cret".to_string())),
            ("$TOKEN stays", Ok("$TOKEN stays".to_string())),
            ("${MISSING:-fallback}", Ok("fallback".to_string())),
            ("${EMPTY:-fallback}", Ok("fallback".to_string())),
            (
                "${MISSING}",
                Err("${MISSING} is not set in the environment".to_string()),
            ),
            (
                "${TOKEN",
                Err("\"${TOKEN\" has a \"${\" without its closing \"}\"".to_string()),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(expand_vars(text, &env), want, "{text}");
        }
    }

    #[test]
    fn upsert_keeps_unknown_keys_and_remove_matches_normalized_names() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("servers.json");
        std::fs::write(
            &path,
            r#"{"version": 7, "servers": [{"name": "My-Server", "command": "old", "autoApprove": ["x"]}]}"#,
        )
        .unwrap();
        let mut file = UserServers::load(&path).unwrap();
        let server = McpServerConfig::from_json(
            &json!({"name": "my_server", "url": "http://127.0.0.1:9/mcp"}),
            Origin::User,
        )
        .unwrap();
        assert!(file.upsert(&server));
        file.save().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            doc,
            json!({"version": 7, "servers": [{"name": "my_server", "type": "http",
                   "url": "http://127.0.0.1:9/mcp", "autoApprove": ["x"]}]})
        );
        let mut file = UserServers::load(&path).unwrap();
        assert!(file.remove("MY.SERVER").is_some());
        assert!(file.remove("my_server").is_none());
    }

    #[test]
    fn a_servers_key_of_the_wrong_shape_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("servers.json");
        std::fs::write(&path, r#"{"servers": {}}"#).unwrap();
        let err = UserServers::load(&path).unwrap_err();
        assert!(
            err.to_string().contains("\"servers\" must be an array"),
            "{err}"
        );
    }

    #[test]
    fn metadata_only_contributions_are_no_servers_and_no_problems() {
        for (entry, metadata) in [
            (
                json!({"name": "Tavily", "description": "registered at run time", "toolMeta": {}}),
                true,
            ),
            (json!({"name": "pet"}), true),
            (json!({"name": "broken", "args": []}), false),
            (json!({"name": "a", "command": "x"}), false),
            (json!({"name": "b", "type": "http"}), false),
            (json!("not an object"), false),
        ] {
            assert_eq!(is_metadata_only(&entry), metadata, "{entry}");
        }
    }
}
