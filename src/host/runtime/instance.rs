//! One mini tool of a run (`Instance`): what its manifest, the app's records and the
//! settings say about it before it starts, and the state of its process as it runs. Also
//! which mini tools a start runs: the enabled ones of both tiers and the `--minitool`
//! directories (`candidates`), narrowed to what a call needs (`needed`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use serde_json::{Map, Value, json};

use super::rpc::Conn;
use super::storage::Storage;
use super::{
    Origin, Outcome, Registered, SessionInfo, StartError, Target, ToolReport, localized, lock,
};
use crate::config::Settings;
use crate::env::Env;
use crate::homes::{Homes, Tier};
use crate::host::catalog::ToolDef;
use crate::minitool::manifest::{self, Manifest, Severity};
use crate::minitool::{listing, tier};

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
    /// Whose secrets it reads: this package as loaded from here (`secrets::Owner`).
    pub owner: super::secrets::Owner,
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
    /// How its network is held (issue 42): every host, none, or a host list.
    pub reach: crate::minitool::confine::Reach,
    /// Its own host list without grants (the proxy adds the grants of the moment).
    pub listed_hosts: Vec<crate::sandbox::hosts::HostPattern>,
    /// It may start agent sessions (`ctx.sessions`): `permissions.sessions`, or a person's
    /// `finch sandbox grant <id> sessions`.
    pub sessions: bool,
    /// The confinement of the running process (its private TMPDIR lives as long as this).
    pub(super) confinement: Mutex<Option<crate::sandbox::Confinement>>,
    pub(super) state: Mutex<InstanceState>,
    /// Held while a call starts (or restarts) the process, so that calls running side by
    /// side start it once.
    pub(super) starting: Mutex<()>,
    /// The session its process was last sent with an `execute` (`Weak`: the process it was
    /// sent to, whose allocation this keeps from being reused by another's): a call sends the
    /// session again only when it differs or the process is another.
    pub(super) told: Mutex<Option<(std::sync::Weak<Conn>, SessionInfo)>>,
}

pub(super) struct InstanceState {
    pub(super) phase: Phase,
    pub(super) tools: Vec<Registered>,
    /// While a background activation has not reached this mini tool's end: its tools as the
    /// catalog cache has them.
    pub(super) cached: Option<Vec<ToolDef>>,
    /// Discovery providers the mini tool has registered.
    pub(super) discovery: usize,
    /// The pushed streams (`agentEvents`, `status`) it has listeners for.
    pub(super) listens: Vec<String>,
    /// Consecutive failures (the backoff's exponent).
    pub(super) failures: u32,
    /// When its current process finished activating (`supervise` forgets the failures of one
    /// that has run long enough).
    pub(super) active_at: Option<Instant>,
}

pub(super) enum Phase {
    Idle,
    Starting(Arc<Conn>),
    Active(Arc<Conn>),
    Down { reason: String, at: Instant },
}

impl Instance {
    pub(super) fn state(&self) -> MutexGuard<'_, InstanceState> {
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

    /// How the kernel holds it, when it does (`minitool::confine::Held`, which words its
    /// refusals).
    pub(super) fn held(&self) -> Option<crate::minitool::confine::Held<'_>> {
        match &self.sandbox {
            crate::minitool::confine::Mode::Enforced(declared) => {
                Some(crate::minitool::confine::Held {
                    id: &self.id,
                    declared: *declared,
                    package: &self.dir,
                })
            }
            _ => None,
        }
    }

    /// A mini tool's error, led by what forbade it when the kernel refused it something
    /// ("blocked: finch-x declares network: false; … (…)").
    pub(super) fn explain(&self, message: &str) -> String {
        match self.held() {
            Some(held) => held.explain(message),
            None => message.to_string(),
        }
    }

    /// What a call of its tool `name` needs of it (not its whole definition, which stays).
    pub(super) fn registered(&self, name: &str) -> Option<Target> {
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
    pub(super) fn mark_down(&self, conn: &Arc<Conn>, reason: &str) -> bool {
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

/// The instances a start with `only: ids` runs: those named, the `--minitool` directories, and
/// every instance providing a capability one of them requires, and so on.
pub(super) fn needed(instances: Vec<Arc<Instance>>, ids: &[String]) -> Vec<Arc<Instance>> {
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

/// The manifests to run: enabled mini tools of both tiers (personal first), then `dirs`.
pub(super) fn candidates(
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
pub(super) fn build(
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
        reach: crate::minitool::confine::Reach::of(settings, &id, permissions, &grant),
        listed_hosts: crate::minitool::confine::listed_hosts(settings, &id, permissions)
            .filter(|_| {
                crate::minitool::confine::Declared::from_permissions(permissions)
                    .with(&grant)
                    .network
            })
            .unwrap_or_default(),
        sessions: grant.sessions
            || permissions
                .and_then(|p| p.get("sessions"))
                .and_then(Value::as_bool)
                == Some(true),
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
        owner: super::secrets::Owner::new(&id, origin.as_str(), &m.dir, m.package_name.as_deref()),
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
            active_at: None,
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
pub(super) fn locale(configured: Option<&str>, env: &Env) -> String {
    let from_env = ["FINCH_LOCALE", "LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .filter_map(|k| env.get(k))
        .find(|v| !v.trim().is_empty());
    let raw = configured.map(str::to_string).or(from_env);
    normalize_locale(raw.as_deref().unwrap_or("en-US"))
}

/// `zh_CN.UTF-8` → `zh-CN`; `C` and `POSIX` → `en-US`.
pub(super) fn normalize_locale(raw: &str) -> String {
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
pub(super) fn messages(dir: &Path, locale: &str) -> Value {
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
