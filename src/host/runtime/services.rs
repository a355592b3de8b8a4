//! What the host answers when a mini tool asks (runs on whichever thread read it: that mini
//! tool's reader thread, or a call reading its own answer — see `rpc`): tool registrations,
//! `ctx.storage`, `ctx.secrets`, capabilities between mini tools (and the host's own
//! `mcp.client`, whose methods are `mcp_client`'s), `ctx.status`, `ctx.spaces`, and the UI
//! calls — notices go to the event hook, contributions a headless host cannot show are
//! recorded, and prompts go to the thread running the current call (outside one, the
//! documented "nobody answered" result). It also builds what `activate` carries for the
//! synchronous members (`minitools.listContributions`) and pushes the capability list the
//! synchronous `capabilities.has()` reads. Every refusal is an error the mini tool's promise
//! rejects with; nothing a mini tool sends can panic the host.

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, mpsc};
use std::time::Duration;

use serde_json::{Value, json};

use super::protocol::{ChildRequest, HostPush, HostRequest, Method, Note, OpenDiff};
use super::rpc::{Conn, MainMsg, Pending, RpcError, RpcResult};
use super::ui::Dialog;
use super::{
    Inner, Instance, MCP_CLIENT_CAPABILITY, Registered, RuntimeEvent, UnsupportedUse, lock,
    secrets, ui,
};
use crate::host::catalog::{Exposure, ToolDef};
use crate::host::naming;
use crate::host::prompt::View;
use crate::host::tool::{Layer, Risk};

/// Capabilities provided at run time, and requests waiting for one.
#[derive(Default)]
pub(crate) struct Capabilities {
    provided: HashMap<String, Provided>,
    parked: Vec<Parked>,
}

struct Provided {
    by: String,
    conn: Arc<Conn>,
    version: Option<String>,
}

/// A `capabilities.invoke` that waits for a mini tool still activating, which declares the
/// capability and has not provided it yet.
struct Parked {
    name: String,
    method: String,
    args: Value,
    conn: Arc<Conn>,
    id: Value,
}

impl Capabilities {
    /// Forgets what any process of mini tool `id` provided (before it starts again).
    pub(crate) fn remove_instance(&mut self, id: &str) {
        self.provided.retain(|_, p| p.by != id);
    }

    /// Forgets what one (ended) process provided.
    pub(crate) fn remove_conn(&mut self, conn: &Arc<Conn>) {
        self.provided.retain(|_, p| !Arc::ptr_eq(&p.conn, conn));
    }

    /// Every capability a mini tool can `has()` right now: the provided ones and the host's.
    pub(crate) fn available(&self) -> Vec<String> {
        let mut names: Vec<String> = self.provided.keys().cloned().collect();
        names.push(MCP_CLIENT_CAPABILITY.to_string());
        names.sort();
        names
    }
}

/// Tells every live process which capabilities exist, so that their synchronous
/// `capabilities.has()` answers from what the host knows now.
pub(crate) fn push_capabilities(inner: &Inner) {
    let available = lock(&inner.capabilities).available();
    for conn in inner.instances.iter().filter_map(|i| i.conn()) {
        conn.notify(HostPush::Capabilities, json!({"available": available}));
    }
}

/// Hands on every parked capability call that can go now: its capability was provided (the
/// call goes to the provider), or no mini tool that declares it is still activating (it is
/// refused).
pub(crate) fn settle(inner: &Inner) {
    let parked = std::mem::take(&mut lock(&inner.capabilities).parked);
    for p in parked {
        let provider = lock(&inner.capabilities)
            .provided
            .get(&p.name)
            .map(|pr| pr.conn.clone());
        match provider {
            Some(provider) => forward_invoke(&provider, p.conn, p.id, &p.name, &p.method, p.args),
            None if starting_provider(inner, &p.name) => lock(&inner.capabilities).parked.push(p),
            None => p.conn.reply(p.id, Err(no_provider(&p.name))),
        }
    }
}

/// Hands a capability call to the process that provides it; its answer goes to `to`.
fn forward_invoke(
    provider: &Arc<Conn>,
    to: Arc<Conn>,
    id: Value,
    name: &str,
    method: &str,
    args: Value,
) {
    if !provider.is_alive() {
        to.reply(id, Err(no_provider(name)));
        return;
    }
    let forward = Pending::Forward {
        to: to.clone(),
        id: id.clone(),
    };
    let sent = provider.request(
        HostRequest::CapabilityInvoke,
        json!({"name": name, "method": method, "args": args}),
        forward,
    );
    if let Err(e) = sent {
        to.reply(
            id,
            Err(RpcError::refused(format!(
                "the provider of \"{name}\" cannot be reached: {e}"
            ))),
        );
    }
}

fn starting_provider(inner: &Inner, name: &str) -> bool {
    inner
        .instances
        .iter()
        .any(|i| i.provides.iter().any(|c| c == name) && i.is_starting())
}

fn no_provider(name: &str) -> RpcError {
    RpcError::refused(format!(
        "no running mini tool provides the capability \"{name}\" (a provider lists it in provides.capabilities, is enabled, and calls ctx.capabilities.provide)"
    ))
}

pub(crate) fn str_param<'a>(params: &'a Value, key: &str) -> Result<&'a str, RpcError> {
    params
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid(format!("\"{key}\" must be a string")))
}

/// A request from a mini tool; answered here, or later by whoever it was handed to.
pub(crate) fn request(
    inner: &Arc<Inner>,
    inst: &Arc<Instance>,
    conn: &Arc<Conn>,
    id: Value,
    method: ChildRequest,
    params: Value,
) {
    use ChildRequest as R;
    let answer = match method {
        R::ToolsRegister => Some(register(inner, inst, conn, &params)),
        R::StorageGet => Some(str_param(&params, "key").and_then(|key| {
            let value = inst.storage.get(key).map_err(RpcError::refused)?;
            Ok(json!({"found": value.is_some(), "value": value}))
        })),
        R::StorageSet => Some(str_param(&params, "key").and_then(|key| {
            let value = params.get("value").cloned().unwrap_or(Value::Null);
            inst.storage.set(key, value).map_err(RpcError::refused)?;
            Ok(Value::Null)
        })),
        R::StorageDelete => Some(str_param(&params, "key").and_then(|key| {
            let deleted = inst.storage.delete(key).map_err(RpcError::refused)?;
            Ok(json!({"deleted": deleted}))
        })),
        R::StorageClear => Some(
            inst.storage
                .clear()
                .map(|()| Value::Null)
                .map_err(RpcError::refused),
        ),
        R::StorageKeys => Some(
            inst.storage
                .keys()
                .map(|k| json!(k))
                .map_err(RpcError::refused),
        ),
        R::SecretsGet | R::SecretsSet | R::SecretsDelete => {
            Some(secret(inner, inst, method, &params))
        }
        R::CapabilitiesProvide => Some(provide(inner, inst, conn, &params)),
        R::CapabilitiesGetVersion => Some(version(inner, inst, &params)),
        R::CapabilitiesInvoke => invoke(inner, inst, conn, id.clone(), &params),
        R::MinitoolsList => Some(Ok(list(inner))),
        R::UiConfirm | R::UiModal | R::UiForm => {
            let Some(dialog) = Dialog::of(method) else {
                return;
            };
            match inner.dialog_route(&params) {
                Some(tx) => {
                    let prompt = MainMsg::Prompt {
                        from: conn.clone(),
                        id: id.clone(),
                        dialog,
                        params,
                    };
                    match tx.send(prompt) {
                        Ok(()) => None,
                        Err(mpsc::SendError(MainMsg::Prompt { params, .. })) => {
                            Some(Ok(nobody_there(inner, inst, dialog, &params)))
                        }
                        Err(_) => Some(Ok(nobody_there(inner, inst, dialog, &Value::Null))),
                    }
                }
                None => Some(Ok(nobody_there(inner, inst, dialog, &params))),
            }
        }
        R::UiOpenDiff => open_diff(inner, inst, conn, &id, params),
        R::AppearanceGet | R::AppearanceSetTheme | R::AppearanceSetHomeBackground => {
            Some(appearance(inner, inst, method, &params))
        }
        R::StatusGet => Some(Ok(inner.status_snapshot())),
        R::SpacesList => Some(spaces(inner)),
        R::SessionsCreate
        | R::SessionsGet
        | R::SessionsList
        | R::SessionsSend
        | R::SessionsWaitForTurn
        | R::SessionsListEvents
        | R::SessionsListWaits
        | R::SessionsRespondToWait
        | R::SessionsWaitForWait => {
            super::sessions::request(inner, inst, conn, id.clone(), method, &params)
        }
    };
    if let Some(answer) = answer {
        conn.reply(id, answer);
    }
}

/// A dialog asked for outside a tool call (in `activate`, from a timer): a headless host has
/// nobody to show it to then. The answer is the documented "nobody answered" result, and the
/// person running finch is told on stderr (and the mini tool's log) that it was not shown.
fn nobody_there(inner: &Inner, inst: &Instance, method: Dialog, params: &Value) -> Value {
    let answer = ui::no_person(method);
    let what = ui::dialog_name(method);
    let title = params
        .get("title")
        .and_then(Value::as_str)
        .map(|t| format!(" \"{t}\""))
        .unwrap_or_default();
    let message = format!(
        "{what}{title} was not shown: outside a tool call a headless host has nobody to ask; answered {answer}"
    );
    log_line(inst, &format!("finch: {message}"));
    inner.emit(RuntimeEvent::Notice {
        minitool: inst.id.clone(),
        display_name: inst.display_name.clone(),
        level: Some("warning".into()),
        title: None,
        message,
    });
    answer
}

/// `ctx.ui.openDiff`: a unified diff shown by the prompter of the call it was asked in (the
/// terminal), else in that call's result (an MCP client, `tool call` without a terminal).
/// Asked outside a call it is shown to the person of a call that runs, else recorded. Answered
/// `null` whichever way, as the app's resolves once its diff opened and asks nothing.
fn open_diff(
    inner: &Arc<Inner>,
    inst: &Arc<Instance>,
    conn: &Arc<Conn>,
    id: &Value,
    params: Value,
) -> Option<RpcResult> {
    let diff: OpenDiff = match serde_json::from_value(params) {
        Ok(diff) => diff,
        Err(e) => return Some(Err(RpcError::invalid(format!("ui.openDiff: {e}")))),
    };
    let view = ui::diff_view(&diff, &inst.display_name);
    if let Some((tx, own)) = inner.call_route(diff.tool_call_id.as_deref()) {
        let show = MainMsg::Show {
            from: conn.clone(),
            id: id.clone(),
            view,
            back: own.then(|| tx.clone()),
        };
        match tx.send(show) {
            Ok(()) => return None,
            Err(mpsc::SendError(MainMsg::Show { view, .. })) => not_shown(inner, inst, &view),
            Err(_) => {}
        }
    } else {
        not_shown(inner, inst, &view);
    }
    Some(Ok(Value::Null))
}

/// A view nobody could be shown: written whole to the mini tool's log, recorded among the
/// surfaces finch did not show (`finch reload` lists them), and a line on stderr says where.
pub(crate) fn not_shown(inner: &Inner, inst: &Instance, view: &View) {
    log_line(
        inst,
        &format!(
            "finch: not shown (nobody to show it to): {}\n{}",
            view.heading, view.body
        ),
    );
    let used = UnsupportedUse {
        minitool: inst.id.clone(),
        kind: "ui.openDiff".into(),
        detail: Some(view.heading.clone()),
    };
    let mut recorded = lock(&inner.unsupported);
    if !recorded.contains(&used) {
        recorded.push(used);
    }
    drop(recorded);
    inner.emit(RuntimeEvent::Notice {
        minitool: inst.id.clone(),
        display_name: inst.display_name.clone(),
        level: Some("warning".into()),
        title: None,
        message: format!(
            "a diff was not shown ({}): nobody to show it to in this run; it is in the mini tool's log: {}",
            view.heading,
            inst.log.display()
        ),
    });
}

/// A notification from a mini tool.
pub(crate) fn notification(inner: &Arc<Inner>, inst: &Arc<Instance>, conn: &Arc<Conn>, note: Note) {
    match note {
        Note::ToolsUnregister { name } => {
            if inst.is_current(conn) {
                let mut st = inst.state();
                let before = st.tools.len();
                st.tools.retain(|t| t.name != name);
                let changed = st.tools.len() != before;
                drop(st);
                if changed {
                    tools_changed(inner);
                }
            }
        }
        Note::SessionsAck { sequence } => super::sessions::acknowledge(inner, inst, sequence),
        Note::EventsListen { stream, on } => {
            if inst.is_current(conn) {
                inst.listen(&stream, on);
            }
        }
        Note::ToolsDiscovery { count } => {
            if inst.is_current(conn) {
                inst.state().discovery = count;
            }
        }
        Note::CapabilitiesRevoke { name } => {
            let mut caps = lock(&inner.capabilities);
            let revoked = caps.provided.get(&name).is_some_and(|p| p.by == inst.id);
            if revoked {
                caps.provided.remove(&name);
            }
            drop(caps);
            if revoked {
                push_capabilities(inner);
            }
        }
        Note::UiNotify(notice) => inner.emit(RuntimeEvent::Notice {
            minitool: inst.id.clone(),
            display_name: inst.display_name.clone(),
            level: notice.level,
            title: notice.title,
            message: notice.message,
        }),
        Note::UiUnsupported { kind, detail } => {
            log_line(
                inst,
                &format!(
                    "finch: {kind}({}) is not shown by this headless host; recorded and ignored",
                    detail.as_deref().unwrap_or("")
                ),
            );
            let used = UnsupportedUse {
                minitool: inst.id.clone(),
                kind: kind.clone(),
                detail: detail.clone(),
            };
            let mut recorded = lock(&inner.unsupported);
            if !recorded.contains(&used) {
                recorded.push(used);
            }
            drop(recorded);
            inner.emit(RuntimeEvent::Unsupported {
                minitool: inst.id.clone(),
                kind,
                detail,
            });
        }
        Note::Progress(params) => inner.progress(inst, params),
    }
}

/// A line the host adds to a mini tool's log.
pub(crate) fn log_line(inst: &Instance, text: &str) {
    if let Ok(mut f) = std::fs::OpenOptions::new().append(true).open(&inst.log) {
        let _ = writeln!(f, "{text}");
    }
}

fn tools_changed(inner: &Inner) {
    inner
        .tools_version
        .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    inner.emit(RuntimeEvent::ToolsChanged);
}

/// `tools.register(def)`: checks what the bootstrap could not, and adds the tool.
fn register(inner: &Inner, inst: &Arc<Instance>, conn: &Arc<Conn>, params: &Value) -> RpcResult {
    if !inst.is_current(conn) {
        return Err(RpcError::refused(
            "this process of the mini tool was stopped",
        ));
    }
    let name = str_param(params, "name")?.to_string();
    if name.trim().is_empty() {
        return Err(RpcError::invalid("the tool name is empty"));
    }
    let text = |k: &str| -> Result<Option<String>, RpcError> {
        match params.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(RpcError::invalid(format!(
                "{k} must be a string, not {other}"
            ))),
        }
    };
    let title = text("title")?.unwrap_or_else(|| name.clone());
    let description = text("description")?.unwrap_or_default();
    let schema = match params.get("inputSchema") {
        None | Some(Value::Null) => json!({"type": "object"}),
        Some(Value::Object(s)) => {
            if let Some(t) = s.get("type")
                && t != "object"
            {
                return Err(RpcError::invalid(format!(
                    "inputSchema must describe an object (\"type\": \"object\"), not {t}"
                )));
            }
            let schema = Value::Object(s.clone());
            if let Err(e) = jsonschema::validator_for(&schema) {
                return Err(RpcError::invalid(format!(
                    "inputSchema is not a valid JSON Schema: {e}"
                )));
            }
            schema
        }
        Some(other) => {
            return Err(RpcError::invalid(format!(
                "inputSchema must be a JSON Schema object, not {other}"
            )));
        }
    };
    let risk = match text("risk")?.as_deref() {
        None => None,
        Some("low") => Some(Risk::Low),
        Some("medium") => Some(Risk::Medium),
        Some("high") => Some(Risk::High),
        Some(other) => {
            return Err(RpcError::invalid(format!(
                "risk \"{other}\" is not one of low, medium, high"
            )));
        }
    };
    let exposure = match text("exposure")?.as_deref() {
        None | Some("startup") => Exposure::Startup,
        Some("dynamic") => Exposure::Dynamic,
        Some(other) => {
            return Err(RpcError::invalid(format!(
                "exposure \"{other}\" is not startup or dynamic"
            )));
        }
    };
    let timeout = match params.get("timeoutMs") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_f64().filter(|ms| ms.is_finite() && *ms > 0.0) {
            Some(ms) => Some(Duration::from_secs_f64(ms / 1000.0)),
            None => {
                return Err(RpcError::invalid(format!(
                    "timeoutMs must be a positive number of milliseconds, not {v}"
                )));
            }
        },
    };
    let owner = match params.get("owner") {
        None | Some(Value::Null) => inst.id.clone(),
        Some(o) => match o
            .get("extensionId")
            .or_else(|| o.get("minitoolId"))
            .and_then(Value::as_str)
        {
            Some(owner) if !owner.is_empty() => owner.to_string(),
            _ => {
                return Err(RpcError::invalid(
                    "owner must be {\"extensionId\": \"<mini tool id>\"}",
                ));
            }
        },
    };
    let wanted = naming::minitool_tool(&inst.id, &name);
    let keywords = {
        let params = schema["properties"].as_object().into_iter().flatten();
        let mut registered: Vec<&str> = vec![&title, &description];
        registered.extend(params.filter_map(|(_, p)| p["description"].as_str()));
        inst.localized.search_text(&registered)
    };
    let def = ToolDef {
        raw_name: name.clone(),
        wanted_name: wanted.clone(),
        title,
        description,
        layer: Layer::MiniTool,
        source: format!("minitool:{}", inst.id),
        owner: Some(owner),
        risk,
        input_schema: schema,
        exposure,
        keywords,
        annotations: None,
    };
    let timeout = inner.clamp_timeout(timeout);
    {
        let mut st = inst.state();
        if st.tools.iter().any(|t| t.name == name) {
            return Err(RpcError::invalid(format!(
                "a tool named \"{name}\" is already registered"
            )));
        }
        st.tools.push(Registered { name, def, timeout });
    }
    tools_changed(inner);
    Ok(json!({"name": wanted}))
}

fn secret(inner: &Inner, inst: &Instance, method: ChildRequest, params: &Value) -> RpcResult {
    let key = str_param(params, "key")?;
    if !secrets::allowed(&inst.secrets, key) {
        let declared = if inst.secrets.is_empty() {
            "it declares none".to_string()
        } else {
            format!("it declares {}", inst.secrets.join(", "))
        };
        return Err(RpcError::refused(format!(
            "{}(\"{key}\"): the key is not in the manifest's permissions.secrets ({declared}); add it, or a \"prefix.*\" pattern that covers it",
            method.wire()
        )));
    }
    let keyring = &inner.keyring;
    let result = match method {
        ChildRequest::SecretsGet => keyring.get(&inst.owner, key).map(|v| json!({"value": v})),
        ChildRequest::SecretsSet => {
            let value = str_param(params, "value")?;
            keyring.set(&inst.owner, key, value).map(|()| Value::Null)
        }
        _ => keyring
            .delete(&inst.owner, key)
            .map(|d| json!({"deleted": d})),
    };
    result.map_err(RpcError::refused)
}

fn provide(inner: &Inner, inst: &Instance, conn: &Arc<Conn>, params: &Value) -> RpcResult {
    let name = str_param(params, "name")?;
    if !inst.provides.iter().any(|c| c == name) {
        return Err(RpcError::refused(format!(
            "capabilities.provide(\"{name}\"): declare it in the manifest's provides.capabilities first"
        )));
    }
    if name == MCP_CLIENT_CAPABILITY {
        // The official MCP Client mini tool provides it in the app; under finch the host's own
        // (backed by finch's bridge) answers, and the mini tool still activates.
        log_line(
            inst,
            &format!(
                "finch: capabilities.provide(\"{MCP_CLIENT_CAPABILITY}\") is accepted and not used: the finch host provides \"{MCP_CLIENT_CAPABILITY}\" itself"
            ),
        );
        return Ok(Value::Null);
    }
    let version = params
        .get("version")
        .and_then(Value::as_str)
        .map(str::to_string);
    {
        let mut caps = lock(&inner.capabilities);
        if let Some(other) = caps.provided.get(name)
            && other.by != inst.id
        {
            return Err(RpcError::refused(format!(
                "the capability \"{name}\" is already provided by mini tool \"{}\"",
                other.by
            )));
        }
        caps.provided.insert(
            name.to_string(),
            Provided {
                by: inst.id.clone(),
                conn: conn.clone(),
                version,
            },
        );
    }
    push_capabilities(inner);
    settle(inner);
    Ok(Value::Null)
}

/// `capabilities.getVersion(name)`: the version its provider declared, else `null`.
fn version(inner: &Inner, inst: &Instance, params: &Value) -> RpcResult {
    let name = str_param(params, "name")?;
    if !inst.requires.iter().any(|c| c == name) {
        return Ok(Value::Null);
    }
    if name == MCP_CLIENT_CAPABILITY {
        return Ok(json!(env!("CARGO_PKG_VERSION")));
    }
    Ok(lock(&inner.capabilities)
        .provided
        .get(name)
        .and_then(|p| p.version.clone())
        .map_or(Value::Null, Value::String))
}

/// `capabilities.invoke`: handed to the providing mini tool (`None`), parked until a provider
/// still activating settles, or answered by the host.
fn invoke(
    inner: &Arc<Inner>,
    inst: &Instance,
    conn: &Arc<Conn>,
    id: Value,
    params: &Value,
) -> Option<RpcResult> {
    let (name, method) = match (str_param(params, "name"), str_param(params, "method")) {
        (Ok(n), Ok(m)) => (n, m),
        (Err(e), _) | (_, Err(e)) => return Some(Err(e)),
    };
    if !inst.requires.iter().any(|c| c == name) {
        return Some(Err(RpcError::refused(format!(
            "capability \"{name}\": declare it in the manifest's requires.capabilities first"
        ))));
    }
    let args = params.get("args").cloned().unwrap_or_else(|| json!([]));
    if name == MCP_CLIENT_CAPABILITY {
        return super::mcp_client::mcp_client(inner, inst, conn, id, method, &args);
    }
    let mut caps = lock(&inner.capabilities);
    let provider = caps.provided.get(name).map(|p| p.conn.clone());
    match provider {
        Some(provider) => {
            drop(caps);
            forward_invoke(&provider, conn.clone(), id, name, method, args);
        }
        None if starting_provider(inner, name) => caps.parked.push(Parked {
            name: name.to_string(),
            method: method.to_string(),
            args,
            conn: conn.clone(),
            id,
        }),
        None => return Some(Err(no_provider(name))),
    }
    None
}

/// Every manifest contribution of the mini tools of this run, by extension point, in the
/// shape of `MiniToolContribution` (an array contribution gives one record per item). Sent with
/// `activate`, because `minitools.listContributions(point)` is synchronous.
pub(crate) fn contributions(instances: &[Arc<Instance>]) -> Value {
    let mut points = serde_json::Map::new();
    for inst in instances {
        for (point, value) in &inst.contributes {
            let items: Vec<Value> = match value {
                Value::Array(items) => items.clone(),
                other => vec![other.clone()],
            };
            let list = points
                .entry(point.clone())
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(list) = list {
                for item in items {
                    list.push(json!({
                        "extensionId": inst.id,
                        "extensionName": inst.display_name,
                        "extensionPath": inst.dir,
                        "source": inst.origin.contribution_source(),
                        "value": item,
                    }));
                }
            }
        }
    }
    Value::Object(points)
}

fn list(inner: &Inner) -> Value {
    Value::Array(
        inner
            .instances
            .iter()
            .map(|i| {
                let st = i.state();
                json!({
                    "id": i.id,
                    "displayName": i.display_name,
                    "version": i.version,
                    "active": matches!(st.phase, super::Phase::Active(_)),
                    "tools": st.tools.iter().map(|t| t.def.wanted_name.clone()).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}

/// What `appearance.setTheme` may set: the keys of the app's `appearance` settings.
const THEME_KEYS: [&str; 6] = [
    "theme",
    "customTheme",
    "fontSize",
    "uiFontFamily",
    "monoFontFamily",
    "showThinking",
];

/// `ctx.appearance`: reads and writes the `appearance` object of the app's settings file
/// (`<runtime>/config/settings.json`, the same file and object `AppCall setAppearance` writes;
/// the app applies it when it reads its settings). `get()` answers the object as saved;
/// `setTheme(options)` merges the theme keys given; `setHomeBackground(options)` saves the
/// options as `homeBackground` (`{clear: true}` sets it to `null`).
fn appearance(inner: &Inner, inst: &Instance, method: ChildRequest, params: &Value) -> RpcResult {
    let path = inner.homes.settings_json();
    let options = params
        .get("options")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let changes: serde_json::Map<String, Value> = match method {
        ChildRequest::AppearanceSetTheme => {
            if let Some(bad) = options.keys().find(|k| !THEME_KEYS.contains(&k.as_str())) {
                return Err(RpcError::invalid(format!(
                    "appearance.setTheme: \"{bad}\" is not a theme setting (they are {})",
                    THEME_KEYS.join(", ")
                )));
            }
            if options.is_empty() {
                return Err(RpcError::invalid(format!(
                    "appearance.setTheme needs at least one of {}",
                    THEME_KEYS.join(", ")
                )));
            }
            options
        }
        ChildRequest::AppearanceSetHomeBackground => {
            let clear = options.get("clear").and_then(Value::as_bool) == Some(true);
            let value = if clear {
                Value::Null
            } else {
                Value::Object(options)
            };
            serde_json::Map::from_iter([("homeBackground".to_string(), value)])
        }
        _ => {
            let doc = crate::store::read_json_object(&path)
                .map_err(|e| RpcError::refused(e.to_string()))?
                .unwrap_or_default();
            return Ok(doc.get("appearance").cloned().unwrap_or_else(|| json!({})));
        }
    };
    let (saved, changed) =
        crate::host::suites::app_call::write_appearance(&path, &changes, inst.storage.lock_timeout)
            .map_err(|e| RpcError::refused(e.message))?;
    if changed {
        log_line(
            inst,
            &format!(
                "finch: {} saved the appearance in {}",
                method.wire(),
                path.display()
            ),
        );
    }
    Ok(Value::Object(saved))
}

/// `spaces.list()`: the spaces of `<runtime>/spaces.json` as `SpaceSummary` records.
fn spaces(inner: &Inner) -> RpcResult {
    let spaces = crate::space::list(&inner.homes).map_err(|e| RpcError::refused(e.to_string()))?;
    Ok(Value::Array(
        spaces
            .iter()
            .map(|s| {
                let mut summary = json!({"id": s.id, "name": s.name});
                if let Some(dir) = &s.directory {
                    summary["directoryPath"] = json!(dir);
                }
                summary
            })
            .collect(),
    ))
}
