//! The host's own `mcp.client` capability (SPEC §9.2), with the provider surface of the
//! official MCP Client mini tool: the servers a mini tool registers at run time, and — through
//! the handle on finch's own bridge (`set_mcp_bridge`) — statuses, tool lists and calls.

use std::sync::Arc;

use serde_json::{Value, json};

use super::rpc::{Conn, MainMsg, RpcError, RpcResult};
use super::{
    Inner, Instance, MCP_CLIENT_CAPABILITY, McpRegistration, RuntimeEvent, lock,
    normalize_server_name,
};
use crate::host::call::record::{
    CallRecord, DecidedBy, Decision as RecordDecision, Failure, MadeCall,
};
use crate::host::naming;
use crate::host::output::ToolOutput;
use crate::host::policy::{Decision, ToolCall};
use crate::host::prompt::{Card, CardAnswer};
use crate::host::tool::{Layer, ToolRef};

/// The methods of the host's `mcp.client`, those of the official MCP Client mini tool.
const MCP_CLIENT_METHODS: &str = "registerServer, unregisterServer, listServers, getServerStatuses, listTools, callTool, connectServer, disconnectServerOAuth";

/// The host's own `mcp.client` capability, with the provider surface of the official MCP
/// Client mini tool: runtime server registrations (SPEC §9.2), and — through the handle on
/// finch's own bridge (`set_mcp_bridge`) — statuses, tool lists and calls. `None` when a call
/// answers later (`callTool`). `callTool` is the MCP tool call it is (issue 39, SPEC §8.3):
/// through the permission gateway, with a card naming the mini tool that makes it (`gate`),
/// which offers "Allow for this session" (never "always") for that mini tool's calls of that
/// tool, so a bot's repeated calls take one card;
/// `listTools` and the statuses read and run nothing, and stay free.
pub(super) fn mcp_client(
    inner: &Arc<Inner>,
    inst: &Instance,
    conn: &Arc<Conn>,
    id: Value,
    method: &str,
    args: &Value,
) -> Option<RpcResult> {
    let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::Null);
    let server_arg = || -> Result<String, RpcError> {
        let first = arg(0);
        first
            .as_str()
            .or_else(|| first.get("name").and_then(Value::as_str))
            .map(str::to_string)
            .ok_or_else(|| RpcError::invalid(format!("{method} needs the server's name")))
    };
    let bridge = lock(&inner.bridge).clone();
    let no_bridge = || {
        RpcError::refused(
            "the MCP bridge is not running in this command (it runs under `finch run`, and under `finch tool call` of a mini tool that requires mcp.client)",
        )
    };
    let answer = match method {
        "registerServer" | "unregisterServer" | "listServers" => {
            mcp_registry(inner, inst, method, &arg(0), bridge.as_ref())
        }
        "getServerStatuses" => {
            let mut statuses = bridge.as_ref().map(|b| b.statuses()).unwrap_or_default();
            for r in lock(&inner.mcp).iter() {
                if !statuses.iter().any(|s| s["qualifiedName"] == r.name.as_str()) {
                    statuses.push(json!({
                        "name": r.config.get("name").cloned().unwrap_or_else(|| json!(r.name)),
                        "status": "pending",
                        "toolCount": 0,
                        "ownerExtensionId": r.minitool,
                        "qualifiedName": r.name,
                    }));
                }
            }
            Ok(Value::Array(statuses))
        }
        "listTools" => server_arg().and_then(|server| {
            let bridge = bridge.ok_or_else(no_bridge)?;
            bridge
                .list_tools(&server)
                .map(Value::Array)
                .map_err(RpcError::refused)
        }),
        "callTool" => {
            let (server, tool) = match (server_arg(), arg(1)) {
                (Ok(s), Value::String(t)) => (s, t),
                (Err(e), _) => return Some(Err(e)),
                (_, _) => {
                    return Some(Err(RpcError::invalid(
                        "callTool(server, name, args) needs the tool's name",
                    )));
                }
            };
            let arguments = match arg(2) {
                Value::Object(map) => map,
                Value::Null => serde_json::Map::new(),
                other => {
                    return Some(Err(RpcError::invalid(format!(
                        "callTool: the arguments must be an object, not {other}"
                    ))));
                }
            };
            let Some(bridge) = bridge else {
                return Some(Err(no_bridge()));
            };
            let name = naming::mcp_tool(&server, &tool);
            let to = conn.clone();
            let made = Made {
                inner: inner.clone(),
                minitool: inst.id.clone(),
                tool: name.clone(),
                arguments: Value::Object(arguments.clone()),
            };
            let call = move |bridge: crate::host::mcp::McpHandle,
                             to: Arc<Conn>,
                             id: Value,
                             made: Made,
                             by: DecidedBy| {
                bridge.call_tool(&server, &tool, arguments, move |result| {
                    made.ran(by, &result);
                    to.reply(id, result.map_err(RpcError::refused));
                });
            };
            match gate(inner, inst, &name, &arg(2)) {
                Gate::Allowed(by) => call(bridge, to, id, made, by),
                Gate::Refused(why, by) => {
                    made.refused(by, &why);
                    return Some(Err(RpcError::refused(why)));
                }
                Gate::Ask(card, route) => {
                    let (who, asked) = (inst.id.clone(), name.clone());
                    let reason = card.reason.clone();
                    let allowed = inner.clone();
                    let then = Box::new(move |answer: CardAnswer| {
                        if answer == CardAnswer::AllowForSession {
                            lock(&allowed.calls_allowed_for_session)
                                .push((who.clone(), asked.clone()));
                        }
                        if answer.allows() {
                            call(bridge, to, id, made, DecidedBy::Card(answer));
                        } else {
                            let why = refusal(&who, &asked, &reason, &answer);
                            made.refused(DecidedBy::Card(answer), &why);
                            to.reply(id, Err(RpcError::refused(why)));
                        }
                    });
                    let card = *card;
                    if let Err(unsent) = route.send(MainMsg::Permit { card, then }) {
                        // The call ended meanwhile: nobody to ask.
                        if let MainMsg::Permit { then, .. } = unsent.0 {
                            then(CardAnswer::Unavailable);
                        }
                    }
                }
            }
            return None;
        }
        "connectServer" => server_arg().and_then(|server| {
            let bridge = bridge.ok_or_else(no_bridge)?;
            match bridge.connected(&server).map_err(RpcError::refused)? {
                true => Ok(json!({"ok": true})),
                false => Err(RpcError::refused(format!(
                    "MCP server \"{server}\" is not connected, and finch does not run an OAuth sign-in for MCP servers: give its credentials as headers in servers.json (`finch mcp add`), then reload"
                ))),
            }
        }),
        // finch keeps no OAuth credentials for MCP servers: there is nothing to remove.
        "disconnectServerOAuth" => server_arg().map(|_| json!({"ok": true})),
        other => Err(RpcError::refused(format!(
            "the capability \"{MCP_CLIENT_CAPABILITY}\" has no method {other} (it has {MCP_CLIENT_METHODS})"
        ))),
    };
    Some(answer)
}

/// An MCP tool call a mini tool makes, to record once decided (and answered when it ran):
/// the host takes it into the transcript (`Provider::take_made_calls`).
struct Made {
    inner: Arc<Inner>,
    minitool: String,
    tool: String,
    arguments: Value,
}

impl Made {
    fn record(self, record: CallRecord) {
        let record = record.made_by(self.minitool);
        lock(&self.inner.made_calls).push(MadeCall {
            record,
            arguments: self.arguments,
        });
    }

    /// It ran, with this answer of the server.
    fn ran(self, by: DecidedBy, result: &Result<Value, String>) {
        let output = match result {
            Ok(value) => {
                let mut output = ToolOutput::json(value.clone());
                output.is_error = value.get("isError") == Some(&Value::Bool(true));
                output
            }
            Err(e) => ToolOutput::error(e.clone()),
        };
        let record = CallRecord::ran(self.tool.clone(), by, output, false);
        self.record(record);
    }

    /// It was refused, for this reason.
    fn refused(self, by: DecidedBy, why: &str) {
        let record = CallRecord::new(
            self.tool.clone(),
            RecordDecision::Deny,
            by,
            ToolOutput::error(why),
            Some(Failure::Refused),
        );
        self.record(record);
    }
}

/// What the gateway says of an MCP tool call a mini tool makes, and who decided.
enum Gate {
    Allowed(DecidedBy),
    Refused(String, DecidedBy),
    /// Show this card to the person of the call that runs now (its route).
    Ask(Box<Card>, std::sync::mpsc::Sender<MainMsg>),
}

/// The permission gateway for `mcp.client.callTool(server, tool, args)` made by `inst`, as
/// for the model's own call of `name` (`mcp__<server>__<tool>`): the host's rules and mode
/// (`policy::decide`; an MCP tool always takes a card unless a rule decides), `--approve`, and
/// otherwise a card shown to the person of the mini tool's call that runs now. Made in
/// `activate()` or from a timer, with no call running, nobody can be asked: refused.
fn gate(inner: &Inner, inst: &Instance, name: &str, args: &Value) -> Gate {
    let session = lock(&inner.session).clone();
    let (mode, approve) = session
        .as_ref()
        .map_or((Default::default(), Vec::new()), |s| {
            (s.mode, s.approve.clone())
        });
    let workspace = crate::host::policy::Workspace {
        cwd: session.as_ref().map(|s| s.cwd.clone()).unwrap_or_default(),
        project: session
            .as_ref()
            .map(|s| s.project.clone())
            .unwrap_or_default(),
        trusted: session
            .as_ref()
            .map(|s| s.trusted.clone())
            .unwrap_or_default(),
        home: inner.confine_env.home.clone(),
        runtime: Some(inner.homes.runtime.clone()),
    };
    let args = if args.is_object() {
        args.clone()
    } else {
        json!({})
    };
    let server = name
        .strip_prefix("mcp__")
        .and_then(|rest| rest.split("__").next())
        .unwrap_or_default()
        .to_string();
    let facts = crate::host::policy::probe(name, &args, &workspace);
    let call = ToolCall {
        tool: ToolRef {
            name,
            layer: Layer::Mcp,
            owner: Some(&server),
            risk: None,
        },
        args: &args,
        workspace: &workspace,
        facts: &facts,
        wall: crate::host::policy::Wall::Holds,
    };
    let verdict = crate::host::policy::decide(&call, mode, &lock(&inner.rules));
    let who = &inst.id;
    let by = DecidedBy::Gateway(verdict.decided_by);
    match verdict.decision {
        Decision::Allow => Gate::Allowed(by),
        Decision::Deny => Gate::Refused(
            format!(
                "Permission denied: {who} wanted to call {name} through mcp.client, which was not run. {}",
                verdict.reason
            ),
            by,
        ),
        Decision::Ask if approve.iter().any(|a| a == name) => Gate::Allowed(DecidedBy::ApproveFlag),
        // "Allow for this session" on an earlier card of this mini tool's calls of this tool.
        Decision::Ask
            if lock(&inner.calls_allowed_for_session)
                .iter()
                .any(|(m, t)| m == who && t == name) =>
        {
            Gate::Allowed(DecidedBy::Gateway(
                crate::host::policy::DecidedBy::SessionAllow,
            ))
        }
        Decision::Ask => {
            let card = Card {
                tool: name.to_string(),
                title: format!("{who} wants to call {name}"),
                layer: Layer::Mcp.as_str(),
                owner: Some(server.clone()),
                risk: verdict.risk,
                summary: crate::host::call::one_line(&args.to_string()),
                session_scope: format!("every {name} call {who} makes through mcp.client"),
                reason: format!(
                    "mini tool {who} calls a tool of MCP server \"{server}\" through mcp.client: {}",
                    verdict.reason
                ),
                // Not "always": a bot mini tool's repeated calls take one card a session.
                session_allow_offered: true,
                sandbox: None,
                unsandboxed_offered: false,
                change: None,
            };
            match inner.call_route(None) {
                Some((route, _)) => Gate::Ask(Box::new(card), route),
                None => Gate::Refused(
                    refusal(who, name, &card.reason, &CardAnswer::Unavailable),
                    DecidedBy::Card(CardAnswer::Unavailable),
                ),
            }
        }
    }
}

/// Why an MCP tool call a mini tool made through `mcp.client` did not run, for the mini tool
/// (and the model that reads its error).
fn refusal(who: &str, name: &str, reason: &str, answer: &CardAnswer) -> String {
    let asked = format!("{who} wants to call {name}");
    match answer {
        CardAnswer::DenyWithReason(why) => {
            format!("Permission denied: {asked}, and the user denied it, saying: {why}")
        }
        CardAnswer::Deny => format!("Permission denied: {asked}, and the user denied it."),
        CardAnswer::TimedOut => {
            format!("Permission denied: {asked}, and nobody answered its permission card in time.")
        }
        _ => format!(
            "Permission denied: {asked} ({reason}), and nobody could be asked. A person allows it with --approve {name} (finch run, finch tool call) or an allow rule, or by answering its card in the console."
        ),
    }
}

/// The registrations part of `mcp.client`: `registerServer(config)` → `{ok, name}` or
/// `{ok: false, error}`, `unregisterServer(name)` → `{ok}`, `listServers()` → the names of the
/// bridge's servers and of the registrations.
fn mcp_registry(
    inner: &Inner,
    inst: &Instance,
    method: &str,
    first: &Value,
    bridge: Option<&crate::host::mcp::McpHandle>,
) -> RpcResult {
    match method {
        "registerServer" => {
            let refused = |error: &str| Ok(json!({"ok": false, "error": error}));
            let Some(config) = first.as_object() else {
                return refused(
                    "registerServer needs a config: {name, command, args?, env?, cwd?} or {name, url, headers?}",
                );
            };
            let Some(name) = config
                .get("name")
                .and_then(Value::as_str)
                .filter(|n| !n.trim().is_empty())
            else {
                return refused("registerServer: the config needs a \"name\"");
            };
            let has = |k: &str| {
                config
                    .get(k)
                    .and_then(Value::as_str)
                    .is_some_and(|s| !s.is_empty())
            };
            if has("command") == has("url") {
                return refused(
                    "registerServer: give either \"command\" (stdio) or \"url\" (Streamable HTTP)",
                );
            }
            let normalized = normalize_server_name(name);
            {
                let mut mcp = lock(&inner.mcp);
                mcp.retain(|r| r.name != normalized);
                mcp.push(McpRegistration {
                    minitool: inst.id.clone(),
                    dir: inst.dir.clone(),
                    name: normalized.clone(),
                    config: first.clone(),
                });
            }
            inner.emit(RuntimeEvent::McpServersChanged);
            Ok(json!({"ok": true, "name": normalized}))
        }
        "unregisterServer" => {
            let name = first
                .as_str()
                .or_else(|| first.get("name").and_then(Value::as_str))
                .ok_or_else(|| RpcError::invalid("unregisterServer needs the server's name"))?;
            let normalized = normalize_server_name(name);
            let removed = {
                let mut mcp = lock(&inner.mcp);
                let before = mcp.len();
                mcp.retain(|r| !(r.name == normalized && r.minitool == inst.id));
                mcp.len() != before
            };
            if removed {
                inner.emit(RuntimeEvent::McpServersChanged);
            }
            Ok(json!({"ok": removed}))
        }
        _ => {
            let mut names = bridge.map(|b| b.server_names()).unwrap_or_default();
            for r in lock(&inner.mcp).iter() {
                let name = r
                    .config
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or(&r.name)
                    .to_string();
                if !names.iter().any(|n| normalize_server_name(n) == r.name) {
                    names.push(name);
                }
            }
            Ok(json!(names))
        }
    }
}
