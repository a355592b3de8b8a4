//! The host's own `mcp.client` capability (SPEC §9.2), with the provider surface of the
//! official MCP Client mini tool: the servers a mini tool registers at run time, and — through
//! the handle on finch's own bridge (`set_mcp_bridge`) — statuses, tool lists and calls.

use std::sync::Arc;

use serde_json::{Value, json};

use super::rpc::{Conn, RpcError, RpcResult};
use super::{
    Inner, Instance, MCP_CLIENT_CAPABILITY, McpRegistration, RuntimeEvent, lock,
    normalize_server_name,
};

/// The methods of the host's `mcp.client`, those of the official MCP Client mini tool.
const MCP_CLIENT_METHODS: &str = "registerServer, unregisterServer, listServers, getServerStatuses, listTools, callTool, connectServer, disconnectServerOAuth";

/// The host's own `mcp.client` capability, with the provider surface of the official MCP
/// Client mini tool: runtime server registrations (SPEC §9.2), and — through the handle on
/// finch's own bridge (`set_mcp_bridge`) — statuses, tool lists and calls. `None` when a call
/// answers later (`callTool`). Calls made this way do not pass the permission gateway: the
/// mini tool's own tool call that makes them did.
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
            let to = conn.clone();
            bridge.call_tool(&server, &tool, arguments, move |result| {
                to.reply(id, result.map_err(RpcError::refused));
            });
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
