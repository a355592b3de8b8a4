//! Each mini tool's `node` confined by the kernel to what its manifest declares (SPEC §8.5b,
//! issue 29). This module owns the table from a manifest's `permissions` (and a person's
//! grants, `finch sandbox grant`) to the kernel wall's `sandbox::Access`, the environment a
//! mini tool starts with, the words of a refusal ("blocked: finch-x declares network: false"),
//! and the grants file. The runtime lays the result on the process at spawn
//! (`host::runtime::process::spawn`).
//!
//! # The table
//!
//! | declared | the mini tool's `node` may |
//! |---|---|
//! | always | read its package directory, node's installation, the system's libraries and data (`sandbox::SYSTEM_READ_EXEC` read, `SYSTEM_READ`), the bootstrap; read and write its `storagePath` and a private `TMPDIR`; execute node itself (and its ELF interpreter) |
//! | always, never | `ptrace`, `process_vm_*`, `io_uring_*`, mounts, namespaces, keyrings (the wall's seccomp filter); signals and abstract sockets outside its sandbox; capabilities; `no_new_privs` always |
//! | `filesystem: "none"` (or absent, or an unknown value) | nothing more |
//! | `filesystem: "read"` (`"readonly"`) | also read the workspace (the session's working directory) and the trusted directories |
//! | `filesystem: "readwrite"` (`"write"`) | also write them; the protected paths inside stay read-only |
//! | `network: false` (or absent) | no socket of any family (the RPC channel is already open), no TCP |
//! | `network: true` | TCP connect and bind, sockets of the inet, inet6 and netlink families (DNS and TLS read `/etc`); no Unix socket (`socketpair` only): Landlock holds a pathname socket only from ABI 9, so opening the family would open every socket on the host (`/var/run/docker.sock`) |
//! | `network: true` and `networkHosts` (or `[sandbox.minitool_hosts] <id>`, or granted `host=`) | only those hosts: a network namespace of its own whose only way out is finch's proxy (`sandbox::proxy`, `Reach`); where that namespace cannot be had, no network |
//! | `shell: false` (or absent) | execute nothing but node; what it can write (storage, TMPDIR, a writable workspace) is mounted `noexec`, so no library written there loads (`process.dlopen`), and no file can be made in memory (`memfd_create` fails), so none can be run from there either |
//! | `shell: true` | execute programs under the rules of the Bash workspace-write profile: the system's directories, `PATH`, the toolchains under `$HOME`, `[sandbox] read`, and what it keeps in its `storagePath` (a writable workspace too: what it may write it may run, as the Bash tool may); its TMPDIR stays write-only. The workspace is written as an approved Bash call writes it, protected paths read-only, whatever `filesystem` says: a person who enabled a mini tool that runs shell commands expects `git` to work on their repository, and a Landlock domain is inherited by every child, so node gets it too (`Declared::workspace`); `filesystem` still governs everything else |
//!
//! A person's grant (`finch sandbox grant <id> network|shell|filesystem=read|readwrite`) adds
//! to what the manifest declares, never takes away; `[sandbox] minitools = "off"` confines
//! nothing.
//!
//! # Where the kernel cannot confine
//!
//! Where the kernel cannot hold the table (no Landlock ABI 6, no seccomp, no mount namespace
//! for a mini tool without `shell`), a mini tool starts only once a person agreed, once per
//! id, that it runs with every right of the user: `--approve-unconfined <id>` on the command
//! that starts it, a card on the terminal (`finch run`'s console, `finch tool call`, `finch
//! reload`), or `finch sandbox grant <id> unconfined`. The first two record the same grant as
//! the third, so the next start needs no one (`finch sandbox revoke <id> unconfined` takes it
//! back). With nobody to ask (no terminal, `--jsonl`, `--serve mcp`) it does not start: its
//! start is `Mode::Refused`, and its tools answer `Mode::refusal`'s error. `Consent` is who
//! agrees in a run; `finch sandbox status` says why the kernel cannot confine, and which ids
//! are agreed.
//!
//! # The environment
//!
//! A confined mini tool gets `PATH`, `HOME`, `USER`, `LOGNAME`, `SHELL`, `LANG`, `LANGUAGE`,
//! `TERM`, `TZ`, `LC_*` (`sandbox::env`), its `TMPDIR`, the names `[sandbox] env` lists, and
//! with the network `NODE_EXTRA_CA_CERTS` and the proxy variables (`HTTP_PROXY`, `HTTPS_PROXY`,
//! `NO_PROXY`, `ALL_PROXY`, either case). Nothing else of finch's environment: tokens and keys
//! reach a mini tool only through `ctx.secrets`. `NODE_OPTIONS` and `NODE_PATH` are dropped too
//! (they load code).

mod refusal;
mod server;

pub use refusal::Held;
pub use server::{Narrowing, ServerConfinement, server_access};

use std::ffi::OsString;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::homes::Homes;
use crate::sandbox::hosts::HostPattern;
use crate::sandbox::{self, Access, Places, Profile, Support};
use crate::store::{DirLock, LockError};

/// `permissions.filesystem`, as finch holds a mini tool to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Filesystem {
    None,
    Read,
    ReadWrite,
}

impl Filesystem {
    pub fn as_str(self) -> &'static str {
        match self {
            Filesystem::None => "none",
            Filesystem::Read => "read",
            Filesystem::ReadWrite => "readwrite",
        }
    }

    /// A manifest's value: `write` is the older spelling of `readwrite`, `readonly` of `read`;
    /// anything else is `none` (the strictest).
    pub fn parse(text: &str) -> Option<Filesystem> {
        match text {
            "none" => Some(Filesystem::None),
            "read" | "readonly" => Some(Filesystem::Read),
            "readwrite" | "write" => Some(Filesystem::ReadWrite),
            _ => None,
        }
    }
}

/// What a mini tool may do: its manifest's declarations plus a person's grants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declared {
    pub filesystem: Filesystem,
    pub network: bool,
    pub shell: bool,
}

impl Declared {
    /// From a manifest's `permissions` object (absent: nothing declared).
    pub fn from_permissions(permissions: Option<&Map<String, Value>>) -> Declared {
        let get = |key: &str| permissions.and_then(|p| p.get(key));
        Declared {
            filesystem: get("filesystem")
                .and_then(Value::as_str)
                .and_then(Filesystem::parse)
                .unwrap_or(Filesystem::None),
            network: get("network").and_then(Value::as_bool).unwrap_or(false),
            shell: get("shell").and_then(Value::as_bool).unwrap_or(false),
        }
    }

    /// What the kernel lets the mini tool do in the workspace (the session's working directory
    /// and trusted directories): `filesystem` says, except that `shell: true` writes it as an
    /// approved Bash call does (the programs a mini tool runs work on the person's repository,
    /// and since a Landlock domain is inherited by every child and never widened, node itself
    /// gets what its programs need). The protected paths stay read-only either way.
    pub fn workspace(self) -> Filesystem {
        if self.shell {
            Filesystem::ReadWrite
        } else {
            self.filesystem
        }
    }

    /// Why `workspace` is more than `filesystem`, when it is (`tool info`).
    pub fn workspace_why(self) -> Option<&'static str> {
        (self.workspace() != self.filesystem).then_some(
            "shell: true lets the programs it runs work in the workspace as an approved Bash call would (workspace-write, protected paths read-only); Landlock domains are inherited, so node itself can write the workspace too",
        )
    }

    /// These declarations with `grant` added.
    pub fn with(self, grant: &Grant) -> Declared {
        Declared {
            filesystem: self
                .filesystem
                .max(grant.filesystem.unwrap_or(Filesystem::None)),
            network: self.network || grant.network,
            shell: self.shell || grant.shell,
        }
    }
}

/// What a person granted one mini tool beyond its manifest (`finch sandbox grant`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grant {
    pub filesystem: Option<Filesystem>,
    pub network: bool,
    pub shell: bool,
    /// Agent sessions (`ctx.sessions`), as `permissions.sessions` declares them.
    pub sessions: bool,
    /// The person agreed that it runs unconfined where the kernel cannot confine it.
    pub unconfined: bool,
    /// Hosts its network may reach beyond its host list (`host=PATTERN`, issue 42).
    pub hosts: Vec<String>,
}

impl Grant {
    fn from_json(value: &Value) -> Grant {
        Grant {
            filesystem: value
                .get("filesystem")
                .and_then(Value::as_str)
                .and_then(Filesystem::parse),
            network: value.get("network").and_then(Value::as_bool) == Some(true),
            shell: value.get("shell").and_then(Value::as_bool) == Some(true),
            sessions: value.get("sessions").and_then(Value::as_bool) == Some(true),
            unconfined: value.get("unconfined").and_then(Value::as_bool) == Some(true),
            hosts: value
                .get("hosts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|h| h.as_str().map(str::to_string))
                .collect(),
        }
    }

    /// The granted hosts that parse (an entry edited by hand into junk is skipped).
    pub fn host_patterns(&self) -> Vec<HostPattern> {
        self.hosts
            .iter()
            .filter_map(|h| HostPattern::parse(h).ok())
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        *self == Grant::default()
    }

    /// `tool info`'s `grants`: what was granted, by name.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        if let Some(fs) = self.filesystem {
            out.insert("filesystem".into(), fs.as_str().into());
        }
        for (key, on) in [
            ("network", self.network),
            ("shell", self.shell),
            ("sessions", self.sessions),
            ("unconfined", self.unconfined),
        ] {
            if on {
                out.insert(key.into(), true.into());
            }
        }
        if !self.hosts.is_empty() {
            out.insert("hosts".into(), self.hosts.clone().into());
        }
        Value::Object(out)
    }
}

/// One right `finch sandbox grant` and `revoke` name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Right {
    Network,
    Shell,
    /// Agent sessions (`ctx.sessions`, issue 39).
    Sessions,
    Filesystem(Filesystem),
    Unconfined,
    /// A host its network may reach (`host=PATTERN`).
    Host(HostPattern),
}

impl Right {
    /// `network`, `shell`, `sessions`, `filesystem=read|readwrite` or `unconfined`.
    pub fn parse(text: &str) -> Result<Right, String> {
        match text {
            "network" => Ok(Right::Network),
            "shell" => Ok(Right::Shell),
            "sessions" => Ok(Right::Sessions),
            "unconfined" => Ok(Right::Unconfined),
            "filesystem" => Ok(Right::Filesystem(Filesystem::None)),
            _ if text.starts_with("host=") => HostPattern::parse(&text["host=".len()..])
                .map(Right::Host)
                .map_err(|e| format!("host=: {e}")),
            _ => match text.strip_prefix("filesystem=") {
                Some(level) => match Filesystem::parse(level) {
                    Some(fs) => Ok(Right::Filesystem(fs)),
                    None => Err(format!("{text:?}: filesystem= takes read or readwrite")),
                },
                None => Err(format!(
                    "{text:?} is not a right: use network, shell, sessions, filesystem=read, filesystem=readwrite, host=PATTERN or unconfined"
                )),
            },
        }
    }
}

/// The grants file: `<runtime home>/sandbox.json`, `{"minitools": {"<id>": {…}}}`.
pub fn grants_path(homes: &Homes) -> PathBuf {
    homes.runtime.join("sandbox.json")
}

/// The grant recorded for `id` (none when the file is missing or unreadable).
pub fn grant_for(homes: &Homes, id: &str) -> Grant {
    crate::store::read_json_object(&grants_path(homes))
        .ok()
        .flatten()
        .and_then(|doc| doc.get("minitools")?.get(id).map(Grant::from_json))
        .unwrap_or_default()
}

/// Why the grants file could not be changed.
#[derive(Debug, thiserror::Error)]
pub enum GrantError {
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error("{}: {message}", path.display())]
    File { path: PathBuf, message: String },
}

/// Records (`on`) or removes `right` for `id` under the runtime home's lock, written
/// atomically; other ids and unknown keys are kept. Returns the grant now recorded.
pub fn set_grant(
    homes: &Homes,
    id: &str,
    right: Right,
    on: bool,
    lock_timeout: Duration,
) -> Result<Grant, GrantError> {
    let path = grants_path(homes);
    let _lock = DirLock::acquire(&homes.runtime, &path.display().to_string(), lock_timeout)?;
    let file_error = |message: String| GrantError::File {
        path: path.clone(),
        message,
    };
    let mut doc = crate::store::read_json_object(&path)
        .map_err(|e| file_error(e.to_string()))?
        .unwrap_or_default();
    let minitools = doc
        .entry("minitools")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(minitools) = minitools.as_object_mut() else {
        return Err(file_error("\"minitools\" is not an object".into()));
    };
    let entry = minitools
        .entry(id.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(entry) = entry.as_object_mut() else {
        return Err(file_error(format!("\"minitools\".{id:?} is not an object")));
    };
    if let Right::Host(pattern) = &right {
        let text = pattern.to_string();
        let hosts = entry
            .entry("hosts")
            .or_insert_with(|| Value::Array(Vec::new()));
        if !hosts.is_array() {
            *hosts = Value::Array(Vec::new());
        }
        if let Some(list) = hosts.as_array_mut() {
            list.retain(|h| h.as_str() != Some(text.as_str()));
            if on {
                list.push(Value::from(text));
            }
            if list.is_empty() {
                entry.remove("hosts");
            }
        }
        let grant = Grant::from_json(&Value::Object(entry.clone()));
        if entry.is_empty() {
            minitools.remove(id);
        }
        crate::store::write_json(&path, &Value::Object(doc))
            .map_err(|e| file_error(e.to_string()))?;
        return Ok(grant);
    }
    let (key, value) = match right {
        Right::Host(_) => return Ok(Grant::from_json(&Value::Object(entry.clone()))),
        Right::Network => ("network", Value::Bool(true)),
        Right::Shell => ("shell", Value::Bool(true)),
        Right::Sessions => ("sessions", Value::Bool(true)),
        Right::Unconfined => ("unconfined", Value::Bool(true)),
        Right::Filesystem(fs) => ("filesystem", Value::from(fs.as_str())),
    };
    if on {
        entry.insert(key.into(), value);
    } else {
        entry.remove(key);
    }
    let grant = Grant::from_json(&Value::Object(entry.clone()));
    if entry.is_empty() {
        minitools.remove(id);
    }
    crate::store::write_json(&path, &Value::Object(doc)).map_err(|e| file_error(e.to_string()))?;
    Ok(grant)
}

/// How a mini tool's network is held (issue 42).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// No network (`network: false`, no granted host).
    None,
    /// Every host: `network: true` (declared or granted) and no host list.
    Open,
    /// Only these hosts, through finch's proxy, in a network namespace of its own.
    Hosts(Vec<HostPattern>),
    /// A host list this kernel cannot hold (no network namespaces): no network at all.
    Unenforceable(Vec<HostPattern>),
}

impl Reach {
    /// What a mini tool declaring `permissions`, with `grant`, may reach: its host list is a
    /// person's `[sandbox.minitool_hosts] <id>` where set, else the manifest's
    /// `permissions.networkHosts`; either narrows `network: true` and never widens `false`.
    /// Granted hosts (`host=`) join the list, or make one for a mini tool without network.
    pub fn of(
        settings: &crate::config::Settings,
        id: &str,
        permissions: Option<&Map<String, Value>>,
        grant: &Grant,
    ) -> Reach {
        let network = Declared::from_permissions(permissions).with(grant).network;
        let listed = listed_hosts(settings, id, permissions);
        let granted = grant.host_patterns();
        let list = match (network, listed) {
            (true, None) => return Reach::Open,
            (true, Some(mut list)) => {
                list.extend(granted);
                list
            }
            (false, _) if granted.is_empty() => return Reach::None,
            (false, _) => granted,
        };
        if Support::get().network_namespace() {
            Reach::Hosts(list)
        } else {
            Reach::Unenforceable(list)
        }
    }

    /// The network the kernel gives it: `Declared::network` as `access` reads it.
    pub fn network(&self) -> bool {
        matches!(self, Reach::Open | Reach::Hosts(_))
    }

    /// The host list, when there is one.
    pub fn hosts(&self) -> Option<&[HostPattern]> {
        match self {
            Reach::Hosts(l) | Reach::Unenforceable(l) => Some(l),
            _ => None,
        }
    }

    /// Lays this on `access` (built for `network`): a host list runs in a network namespace
    /// of its own, through finch's proxy.
    pub fn apply(&self, access: &mut Access) {
        match self {
            Reach::Hosts(_) => {
                access.network = false;
                access.proxied = true;
            }
            Reach::Unenforceable(_) | Reach::None => access.network = false,
            Reach::Open => {}
        }
    }

    /// `tool info`'s `hosts` and `hostsStatus`.
    pub fn add_json(&self, out: &mut Value) {
        if let Some(list) = self.hosts() {
            out["hosts"] = list
                .iter()
                .map(|h| h.to_string())
                .collect::<Vec<_>>()
                .into();
            out["hostsStatus"] = match self {
                Reach::Hosts(_) => "enforced".into(),
                _ => format!("partial: {}", sandbox::NO_NETWORK_NAMESPACES).into(),
            };
            out["network"] = self.network().into();
        }
    }
}

/// A mini tool's own host list: a person's `[sandbox.minitool_hosts] <id>` where set, else
/// its manifest's `permissions.networkHosts` (entries that do not parse are left out: the
/// list only narrows). `None`: no list.
pub fn listed_hosts(
    settings: &crate::config::Settings,
    id: &str,
    permissions: Option<&Map<String, Value>>,
) -> Option<Vec<HostPattern>> {
    settings
        .sandbox
        .minitool_hosts
        .get(id)
        .cloned()
        .or_else(|| {
            permissions
                .and_then(|p| p.get("networkHosts"))
                .and_then(Value::as_array)
                .map(|list| {
                    list.iter()
                        .filter_map(Value::as_str)
                        .filter_map(|h| HostPattern::parse(h).ok())
                        .collect()
                })
        })
}

/// The proxy's policy for mini tool `id` whose list (without grants) is `base`: the grants
/// are read again for each connection, so `finch sandbox grant`/`revoke` hold for the next.
pub fn proxy_policy(homes: &Homes, id: &str, base: Vec<HostPattern>) -> sandbox::proxy::Policy {
    let (grants_homes, grants_id) = (homes.clone(), id.to_string());
    let mut policy = sandbox::proxy::Policy::new(
        sandbox::proxy::Principal::MiniTool(id.to_string()),
        Box::new(move || {
            let mut list = base.clone();
            list.extend(grant_for(&grants_homes, &grants_id).host_patterns());
            list
        }),
    );
    policy.audit = Some(sandbox::netlog::AuditLog::new(&homes.runtime));
    policy
}

/// How one mini tool starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// `[sandbox] minitools = "off"`: with every right of the user.
    Off,
    /// Confined to `Declared`.
    Enforced(Declared),
    /// The kernel cannot confine it here, and a person agreed it runs anyway.
    Unconfined { declared: Declared, why: String },
    /// The kernel cannot confine it here and nobody agreed: it does not start.
    Refused { declared: Declared, why: String },
}

impl Mode {
    /// The mode of mini tool `id` declaring `permissions`.
    pub fn of(
        homes: &Homes,
        settings: &crate::config::Settings,
        id: &str,
        permissions: Option<&Map<String, Value>>,
    ) -> Mode {
        if settings.sandbox.minitools == crate::config::MiniToolWall::Off {
            return Mode::Off;
        }
        let grant = grant_for(homes, id);
        let declared = Declared::from_permissions(permissions).with(&grant);
        match kernel_gap(&declared) {
            None => Mode::Enforced(declared),
            Some(why) if grant.unconfined => Mode::Unconfined { declared, why },
            Some(why) => Mode::Refused { declared, why },
        }
    }

    pub fn status(&self) -> &'static str {
        match self {
            Mode::Off => "off",
            Mode::Enforced(_) => "enforced",
            Mode::Unconfined { .. } => "unconfined",
            Mode::Refused { .. } => "refused",
        }
    }

    /// `"sandbox"` of `finch reload --json` and `tool info --json` (docs/json.md).
    pub fn to_json(&self, declared: Declared) -> Value {
        let mut out = json!({
            "filesystem": declared.filesystem.as_str(),
            "network": declared.network,
            "shell": declared.shell,
            "status": self.status(),
        });
        if let Mode::Unconfined { why, .. } | Mode::Refused { why, .. } = self {
            out["why"] = why.clone().into();
        }
        if let (Mode::Enforced(_), Some(why)) = (self, declared.workspace_why()) {
            out["workspace"] = "write".into();
            out["workspaceWhy"] = why.into();
        }
        out
    }

    /// The error a refused mini tool's start (and each of its tools) gives.
    pub fn refusal(&self, id: &str) -> Option<String> {
        match self {
            Mode::Refused { why, .. } => Some(format!(
                "mini tool {id} was not started: finch cannot confine it here ({why}), and it runs unconfined only once a person agrees: run again with --approve-unconfined {id}, or run `finch sandbox grant {id} unconfined` (or set [sandbox] minitools = \"off\")"
            )),
            _ => None,
        }
    }
}

/// A mini tool the kernel cannot confine here, before it starts: what a person is asked to
/// agree to (`Consent`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unconfined {
    pub id: String,
    pub display_name: String,
    /// What its manifest (and a person's grants) declare: what it would be held to.
    pub declared: Declared,
    /// Why the kernel here cannot hold it to that.
    pub why: String,
}

impl Unconfined {
    /// `filesystem none, network false, shell false`.
    pub fn declares(&self) -> String {
        format!(
            "filesystem {}, network {}, shell {}",
            self.declared.filesystem.as_str(),
            self.declared.network,
            self.declared.shell
        )
    }
}

/// Who, in one run, agrees that a mini tool the kernel cannot confine runs unconfined: the
/// host assembly's answer from `--approve-unconfined` and the terminal's card. `agree` is
/// asked once for each such mini tool before it starts; `true` lets it start (unconfined), and
/// the implementation records the agreement (`set_grant(.., Right::Unconfined, true, ..)`).
pub trait Consent {
    fn agree(&self, request: &Unconfined) -> bool;
}

/// The ids a person agreed to run unconfined (`finch sandbox status`), sorted.
pub fn agreed_unconfined(homes: &Homes) -> Vec<String> {
    let doc = crate::store::read_json_object(&grants_path(homes))
        .ok()
        .flatten()
        .unwrap_or_default();
    let mut ids: Vec<String> = doc
        .get("minitools")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(_, grant)| Grant::from_json(grant).unconfined)
        .map(|(id, _)| id.clone())
        .collect();
    ids.sort();
    ids
}

/// The confinement of installed mini tool `id` as `tool info` shows it: `Mode::to_json` plus
/// `grants` (what a person granted beyond its manifest). `None` when it is not installed.
pub fn of_installed(homes: &Homes, settings: &crate::config::Settings, id: &str) -> Option<Value> {
    if !super::tier::is_entry_name(id) {
        return None;
    }
    let manifest = [crate::homes::Tier::Personal, crate::homes::Tier::Global]
        .into_iter()
        .find_map(|t| {
            super::manifest::load(&homes.tier_dir(t).join(id))
                .ok()
                .flatten()
        })?;
    let permissions = manifest.permissions();
    let grant = grant_for(homes, id);
    let declared = Declared::from_permissions(permissions).with(&grant);
    let mut out = Mode::of(homes, settings, id, permissions).to_json(declared);
    Reach::of(settings, id, permissions, &grant).add_json(&mut out);
    out["grants"] = grant.to_json();
    // The servers it contributes run confined as it does (`ServerConfinement`).
    let servers: Vec<Value> = manifest
        .fields
        .get("contributes")
        .and_then(|c| c.get("mcpServers"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|entry| entry.get("command").is_some() || entry.get("url").is_some())
        .map(|entry| {
            let text = |k: &str| entry.get(k).and_then(Value::as_str).unwrap_or_default();
            let held = ServerConfinement::of(homes, settings, id, &manifest.dir, None);
            let reach = if entry.get("url").is_some() {
                "url"
            } else {
                "command"
            };
            json!({"name": text("name"), reach: text(reach), "sandbox": held.to_json()})
        })
        .collect();
    if !servers.is_empty() {
        out["mcpServers"] = Value::Array(servers);
    }
    Some(out)
}

/// A JSON list of hosts as a person reads it: `a.example, *.b.example:443`.
pub fn host_list(list: &[Value]) -> String {
    list.iter()
        .filter_map(Value::as_str)
        .collect::<Vec<_>>()
        .join(",")
}

/// One line for a person: `filesystem none, network false, shell false (enforced)`.
pub fn describe(sandbox: &Value) -> String {
    let field = |k: &str| {
        sandbox
            .get(k)
            .map(|v| v.to_string().trim_matches('"').to_string())
    };
    let mut line = format!(
        "filesystem {}, network {}, shell {} ({})",
        field("filesystem").unwrap_or_default(),
        field("network").unwrap_or_default(),
        field("shell").unwrap_or_default(),
        field("status").unwrap_or_default()
    );
    if let Some(grants) = sandbox.get("grants").and_then(Value::as_object)
        && !grants.is_empty()
    {
        let names: Vec<String> = grants
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => format!("{k}={s}"),
                Value::Array(list) => format!("{k}={}", host_list(list)),
                _ => k.clone(),
            })
            .collect();
        line.push_str(&format!("; granted by a person: {}", names.join(", ")));
    }
    if let Some(hosts) = sandbox.get("hosts").and_then(Value::as_array) {
        let names: Vec<&str> = hosts.iter().filter_map(Value::as_str).collect();
        match sandbox.get("hostsStatus").and_then(Value::as_str) {
            Some("enforced") => line.push_str(&format!(
                "; reaches only {} through finch's proxy",
                names.join(", ")
            )),
            other => line.push_str(&format!(
                "; no network: its host list ({}) cannot be held here ({})",
                names.join(", "),
                other.unwrap_or_default()
            )),
        }
    }
    if let Some(why) = sandbox.get("why").and_then(Value::as_str) {
        line.push_str(&format!("; {why}"));
    }
    if let Some(why) = sandbox.get("workspaceWhy").and_then(Value::as_str) {
        line.push_str(&format!("; writes the workspace: {why}"));
    }
    let servers: Vec<&str> = sandbox
        .get("mcpServers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| s.get("name").and_then(Value::as_str))
        .collect();
    if !servers.is_empty() {
        line.push_str(&format!(
            "; its MCP servers run confined the same: {}",
            servers.join(", ")
        ));
    }
    line
}

/// Why the kernel here cannot hold `declared`, if it cannot.
pub fn kernel_gap(declared: &Declared) -> Option<String> {
    let support = Support::get();
    if let Some(why) = support.profile(Profile::ReadOnly).why() {
        return Some(why.to_string());
    }
    if !declared.shell && !support.mount_namespace() {
        return Some(
            "no private mount namespace here (user namespaces are off), so what a mini tool writes could be loaded as a library".into(),
        );
    }
    None
}

/// What a confined mini tool's process is started with: its rights and its environment, and
/// with a host list the policy of the proxy it reaches the network through.
pub struct Spawn {
    pub access: Access,
    pub env: Vec<(String, OsString)>,
    pub proxy: Option<std::sync::Arc<sandbox::proxy::Policy>>,
}

/// Where one mini tool's process lives.
pub struct Whereabouts<'a> {
    /// node as configured (a link is followed).
    pub node: &'a Path,
    /// The mini tool's package directory.
    pub package: &'a Path,
    /// Its `storagePath`.
    pub storage: &'a Path,
    /// The bootstrap file node runs (none for an MCP server the mini tool brings).
    pub bootstrap: Option<&'a Path>,
    /// The session's working directory and trusted directories.
    pub roots: Vec<PathBuf>,
    /// Protected paths inside `roots` (kept read-only when the filesystem is writable).
    pub protected: Vec<PathBuf>,
    pub home: Option<PathBuf>,
    /// The `PATH` the mini tool sees.
    pub path: Option<OsString>,
    /// `[sandbox] read`.
    pub extra_read: Vec<PathBuf>,
    /// `NODE_EXTRA_CA_CERTS`, read when the network is declared.
    pub extra_ca: Option<PathBuf>,
}

/// The table (see the module docs): what the kernel lets a mini tool's node reach.
pub fn access(declared: &Declared, at: &Whereabouts) -> Access {
    let workspace = declared.workspace();
    let roots = if workspace == Filesystem::None {
        Vec::new()
    } else {
        at.roots.clone()
    };
    let profile = if workspace == Filesystem::ReadWrite {
        Profile::WorkspaceWrite
    } else {
        Profile::ReadOnly
    };
    let places = Places {
        roots,
        protected: at.protected.clone(),
        home: at.home.clone(),
        path: at.path.clone(),
        extra_read: at.extra_read.clone(),
        extra_write: Vec::new(),
        network: declared.network,
        unix_sockets: Vec::new(),
    };
    let mut access = if declared.shell {
        Access::for_profile(profile, &places)
    } else {
        // The same places without execute: system libraries and data are read, the workspace
        // read (or written) as declared; node alone is executed (below).
        let mut access = Access::default();
        access
            .read
            .extend(sandbox::SYSTEM_READ_EXEC.iter().map(PathBuf::from));
        access
            .read
            .extend(sandbox::SYSTEM_READ.iter().map(PathBuf::from));
        access
            .write_files
            .extend(sandbox::DEVICE_WRITE.iter().map(PathBuf::from));
        match profile {
            Profile::ReadOnly => access.read.extend(places.roots.iter().cloned()),
            Profile::WorkspaceWrite => {
                access.write.extend(places.roots.iter().cloned());
                access.protected = places.protected.clone();
            }
        }
        access.noexec = true;
        access
    };
    access.network = declared.network;
    let node = std::fs::canonicalize(at.node).unwrap_or_else(|_| at.node.to_path_buf());
    // node's installation: `<prefix>/bin/node` reads `<prefix>` (its `lib`, `include`, …).
    let prefix = node
        .parent()
        .filter(|bin| bin.file_name().is_some_and(|n| n == "bin"))
        .and_then(Path::parent)
        .unwrap_or_else(|| node.parent().unwrap_or(&node));
    access.read.push(prefix.to_path_buf());
    access.exec_files.extend(elf_interpreter(&node));
    access.exec_files.push(node);
    if declared.shell {
        access.read_exec.push(at.package.to_path_buf());
    } else {
        access.read.push(at.package.to_path_buf());
    }
    access.read.extend(at.bootstrap.map(Path::to_path_buf));
    if declared.shell {
        // Under the Bash profile's rules what a call may write it may run: the storage is the
        // mini tool's own workspace, so a program it keeps there (an engine it downloaded on
        // first use, as the public finch-ocr does) runs like one on `PATH`.
        access.write_exec.push(at.storage.to_path_buf());
    } else {
        access.write.push(at.storage.to_path_buf());
    }
    if declared.network
        && let Some(ca) = &at.extra_ca
    {
        access.read.push(ca.clone());
    }
    access
}

/// The program interpreter (`PT_INTERP`) an ELF executable names: the kernel opens it for
/// execution with the program, so it needs the execute right too. `None` for anything else.
pub fn elf_interpreter(program: &Path) -> Option<PathBuf> {
    const PT_INTERP: u32 = 3;
    let mut file = std::fs::File::open(program).ok()?;
    let mut head = [0u8; 64];
    file.read_exact(&mut head).ok()?;
    if &head[..4] != b"\x7fELF" || head[5] != 1 {
        return None; // not ELF, or big-endian (not a Linux target finch builds for)
    }
    let u16_at = |b: &[u8], at: usize| u16::from_le_bytes([b[at], b[at + 1]]) as u64;
    let u32_at =
        |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap_or([0; 4]));
    let u64_at =
        |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]));
    let wide = head[4] == 2;
    let (phoff, phentsize, phnum) = if wide {
        (
            u64_at(&head, 0x20),
            u16_at(&head, 0x36),
            u16_at(&head, 0x38),
        )
    } else {
        (
            u32_at(&head, 0x1c) as u64,
            u16_at(&head, 0x2a),
            u16_at(&head, 0x2c),
        )
    };
    if !(32..=128).contains(&phentsize) || phnum > 256 {
        return None;
    }
    let mut table = vec![0u8; (phentsize * phnum) as usize];
    file.seek(SeekFrom::Start(phoff)).ok()?;
    file.read_exact(&mut table).ok()?;
    for entry in table.chunks(phentsize as usize) {
        if u32_at(entry, 0) != PT_INTERP {
            continue;
        }
        let (offset, size) = if wide {
            (u64_at(entry, 8), u64_at(entry, 32))
        } else {
            (u32_at(entry, 4) as u64, u32_at(entry, 16) as u64)
        };
        if size == 0 || size > 4096 {
            return None;
        }
        let mut name = vec![0u8; size as usize];
        file.seek(SeekFrom::Start(offset)).ok()?;
        file.read_exact(&mut name).ok()?;
        let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
        use std::os::unix::ffi::OsStrExt;
        let path = PathBuf::from(std::ffi::OsStr::from_bytes(&name[..end]));
        return Some(std::fs::canonicalize(&path).unwrap_or(path));
    }
    None
}

/// Variables a mini tool with the network also gets.
const NETWORK_ENV: &[&str] = &[
    "NODE_EXTRA_CA_CERTS",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
];

/// The environment a confined mini tool starts with (see the module docs), drawn from `vars`;
/// `extra` is `[sandbox] env`. `TMPDIR` is set by the confinement itself.
pub fn environment<'a>(
    declared: &Declared,
    vars: impl Iterator<Item = (&'a str, &'a OsString)>,
    extra: &[String],
) -> Vec<(String, OsString)> {
    vars.filter(|(name, _)| {
        sandbox::env::kept(name, extra) || (declared.network && NETWORK_ENV.contains(name))
    })
    .map(|(name, value)| (name.to_string(), value.clone()))
    .collect()
}

impl From<GrantError> for crate::error::CommandError {
    fn from(e: GrantError) -> crate::error::CommandError {
        use crate::error::{CommandError, ErrorKind};
        let kind = match &e {
            GrantError::Lock(LockError::Held { .. }) => ErrorKind::Locked,
            _ => ErrorKind::Failed,
        };
        CommandError::new(kind, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(fs: &str, network: bool, shell: bool) -> Declared {
        let p = json!({"filesystem": fs, "network": network, "shell": shell});
        Declared::from_permissions(p.as_object())
    }

    #[test]
    fn manifest_values_and_older_spellings() {
        assert_eq!(
            Declared::from_permissions(None),
            Declared {
                filesystem: Filesystem::None,
                network: false,
                shell: false
            }
        );
        assert_eq!(
            declared("write", false, false).filesystem,
            Filesystem::ReadWrite
        );
        assert_eq!(
            declared("readonly", false, false).filesystem,
            Filesystem::Read
        );
        assert_eq!(
            declared("everything", true, false).filesystem,
            Filesystem::None
        );
        let grant = Grant {
            filesystem: Some(Filesystem::Read),
            network: true,
            ..Grant::default()
        };
        let d = declared("readwrite", false, false).with(&grant);
        assert_eq!(
            d.filesystem,
            Filesystem::ReadWrite,
            "a grant never takes away"
        );
        assert!(d.network && !d.shell);
    }

    fn at<'a>(node: &'a Path, dirs: &'a [PathBuf; 4]) -> Whereabouts<'a> {
        Whereabouts {
            node,
            package: &dirs[0],
            storage: &dirs[1],
            bootstrap: Some(&dirs[2]),
            roots: vec![dirs[3].clone()],
            protected: vec![dirs[3].join(".git/hooks")],
            home: Some("/home/u".into()),
            path: Some("/usr/bin:/home/u/.cargo/bin".into()),
            extra_read: vec![],
            extra_ca: Some("/etc/ca.pem".into()),
        }
    }

    #[test]
    fn the_table_in_code() {
        let dirs: [PathBuf; 4] = ["/pkg", "/store", "/boot.mjs", "/work"].map(PathBuf::from);
        let node = Path::new("/opt/node/bin/node");
        let none = access(&declared("none", false, false), &at(node, &dirs));
        assert!(none.read.contains(&"/pkg".into()) && none.read.contains(&"/opt/node".into()));
        assert!(none.read.contains(&"/boot.mjs".into()));
        assert_eq!(none.write, vec![PathBuf::from("/store")]);
        assert!(none.read_exec.is_empty() && none.write_exec.is_empty());
        assert_eq!(none.exec_files.last(), Some(&PathBuf::from(node)));
        assert!(none.noexec && !none.network);
        let everything = || none.read.iter().chain(&none.write).chain(&none.exec_files);
        assert!(!everything().any(|p| p.starts_with("/work") || p.starts_with("/home")));
        assert!(!none.read.contains(&"/etc/ca.pem".into()));

        let read = access(&declared("read", true, false), &at(node, &dirs));
        assert!(read.read.contains(&"/work".into()) && read.write.len() == 1);
        assert!(read.network && read.read.contains(&"/etc/ca.pem".into()));

        let rw = access(&declared("readwrite", false, false), &at(node, &dirs));
        assert!(rw.write.contains(&"/work".into()));
        assert_eq!(rw.protected, vec![PathBuf::from("/work/.git/hooks")]);

        let shell = access(&declared("none", false, true), &at(node, &dirs));
        assert!(shell.read_exec.contains(&"/usr/bin".into()));
        assert!(shell.read_exec.contains(&"/pkg".into()));
        assert!(!shell.noexec);
        // What it keeps in its storage it may run (a downloaded engine); without shell, not.
        // With shell the workspace is written as an approved Bash call writes it, protected
        // paths read-only, whatever `filesystem` says.
        assert_eq!(
            shell.write_exec,
            vec![PathBuf::from("/work"), "/store".into()]
        );
        assert_eq!(shell.protected, vec![PathBuf::from("/work/.git/hooks")]);
        assert!(shell.write.is_empty() && !shell.network);
        let d = declared("none", false, true);
        assert_eq!(d.workspace(), Filesystem::ReadWrite);
        assert!(d.workspace_why().is_some_and(|w| w.contains("inherited")));
        assert_eq!(declared("read", false, false).workspace_why(), None);
    }

    #[test]
    fn the_environment_keeps_no_secrets() {
        let vars: Vec<(String, OsString)> = [
            ("PATH", "/usr/bin"),
            ("HOME", "/h"),
            ("OPENAI_API_KEY", "k"),
            ("NODE_OPTIONS", "--require /tmp/x.js"),
            ("HTTPS_PROXY", "http://p"),
            ("NODE_EXTRA_CA_CERTS", "/ca"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), OsString::from(v)))
        .collect();
        let names = |d: Declared| {
            environment(&d, vars.iter().map(|(k, v)| (k.as_str(), v)), &[])
                .into_iter()
                .map(|(k, _)| k)
                .collect::<Vec<_>>()
        };
        assert_eq!(names(declared("none", false, false)), ["PATH", "HOME"]);
        assert_eq!(
            names(declared("none", true, false)),
            ["PATH", "HOME", "HTTPS_PROXY", "NODE_EXTRA_CA_CERTS"]
        );
    }

    #[test]
    fn a_refusal_names_both_ways_to_agree_and_the_agreed_ids_are_listed() {
        let refused = Mode::Refused {
            declared: declared("none", false, false),
            why: "this kernel has no Landlock".into(),
        };
        let text = refused.refusal("finch-x").unwrap();
        assert!(text.contains("(this kernel has no Landlock)"), "{text}");
        assert!(text.contains("--approve-unconfined finch-x"), "{text}");
        assert!(
            text.contains("`finch sandbox grant finch-x unconfined`"),
            "{text}"
        );
        assert_eq!(Mode::Off.refusal("finch-x"), None);

        let dir = tempfile::tempdir().unwrap();
        let homes = Homes {
            runtime: dir.path().to_path_buf(),
            agent: dir.path().join("agent"),
            agent_source: crate::homes::AgentHomeSource::Flag,
        };
        assert!(agreed_unconfined(&homes).is_empty(), "no file");
        std::fs::write(
            grants_path(&homes),
            r#"{"minitools": {"b": {"unconfined": true}, "a": {"unconfined": true, "network": true}, "c": {"network": true}, "d": 3}}"#,
        )
        .unwrap();
        assert_eq!(agreed_unconfined(&homes), ["a", "b"]);
    }

    #[test]
    fn rights_parse() {
        assert_eq!(Right::parse("network"), Ok(Right::Network));
        assert_eq!(
            Right::parse("filesystem=write"),
            Ok(Right::Filesystem(Filesystem::ReadWrite))
        );
        assert!(Right::parse("filesystem=all").is_err());
        assert!(Right::parse("root").is_err());
    }

    #[test]
    fn node_has_an_interpreter_and_a_script_has_none() {
        if let Ok(node) = which_node() {
            let interp = elf_interpreter(&node);
            assert!(interp.is_some_and(|p| p.exists()), "{}", node.display());
        }
        assert_eq!(elf_interpreter(Path::new("/etc/hostname")), None);
    }

    fn which_node() -> Result<PathBuf, ()> {
        let path = std::env::var_os("PATH").ok_or(())?;
        std::env::split_paths(&path)
            .map(|d| d.join("node"))
            .find(|p| p.is_file())
            .and_then(|p| std::fs::canonicalize(p).ok())
            .ok_or(())
    }
}
