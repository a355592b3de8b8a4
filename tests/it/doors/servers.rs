//! An MCP server a mini tool contributes or registers is the mini tool's code: it runs
//! confined to that mini tool's declaration and grants.

use serde_json::json;

use super::{Doors, marking, text_of};

#[test]
fn a_contributed_mcp_server_runs_confined_as_its_mini_tool() {
    let d = Doors::new();
    let dir = d.package(
        "doors",
        json!({}),
        json!({"contributes": {"tools": true, "mcpServers": [marking("helper", &d.sentinel)]}}),
        &[],
    );
    // `finch add` names the server and how it will run, after the lines the app reads.
    d.ctx
        .run(&["add", &dir.display().to_string()])
        .success()
        .stderr_has("MCP server helper (sh) runs confined as doors: filesystem none, network false, shell false (enforced)");
    d.ctx.run(&["enable", "doors"]).success();
    let out = d.ctx.run(&["reload", "--json"]);
    assert!(
        !d.marked(),
        "reload started the contributed server unconfined: {out}"
    );
    let report = out.json();
    let server = report["mcpServers"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == "helper"))
        .cloned()
        .unwrap_or_else(|| panic!("no helper in {report}"));
    assert_eq!(
        server["sandbox"],
        json!({"minitool": "doors", "filesystem": "none", "network": false, "shell": false, "status": "enforced"}),
        "{server}"
    );
    let error = server["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("blocked: doors declares"),
        "the failure names the declaration: {error}"
    );
    // The person-facing report names the server and its confinement.
    let out = d.ctx.run(&["reload"]);
    assert!(!d.marked());
    out.stdout_has(
        "MCP server helper (mini tool doors; filesystem none, network false, shell false)",
    );
    // And so does `tool info` of the package's tool, and `finch mcp list` runs it confined.
    let info = d.ctx.run(&["tool", "info", "doors_try", "--json"]);
    info.success();
    assert_eq!(
        info.json()["sandbox"]["mcpServers"],
        json!([{"name": "helper", "command": "sh", "sandbox":
               {"minitool": "doors", "filesystem": "none", "network": false, "shell": false, "status": "enforced"}}]),
        "{info}"
    );
    d.ctx.run(&["mcp", "list", "--json"]);
    assert!(!d.marked(), "mcp list started it unconfined");
    // Through a run, too.
    let (_, run) = d.ctx.jsonl(
        &[],
        &[json!({"id": 1, "tool": "ToolSearch", "arguments": {"query": "helper"}})],
    );
    assert!(!d.marked(), "run started it unconfined: {run}");
}

#[test]
fn a_registered_mcp_server_runs_confined_as_its_mini_tool() {
    let d = Doors::new();
    let dir = d.package(
        "doors",
        json!({}),
        json!({"requires": {"capabilities": ["mcp.client"]}}),
        &["registerServer"],
    );
    d.install(&dir, "doors");
    let out = d.ctx.run(&["reload", "--json"]);
    assert!(
        !d.marked(),
        "reload started the registered server unconfined: {out}"
    );
    let report = out.json();
    let server = report["mcpServers"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == "registered"))
        .cloned()
        .unwrap_or_else(|| panic!("no registered server in {report}"));
    assert_eq!(server["sandbox"]["status"], "enforced", "{server}");
    assert_eq!(server["sandbox"]["minitool"], "doors", "{server}");
    // `--minitool` directories register the same way: a run with one starts its server confined.
    let dir = d.package(
        "doors2",
        json!({}),
        json!({"requires": {"capabilities": ["mcp.client"]}}),
        &["registerServer"],
    );
    let dir = dir.display().to_string();
    let (_, run) = d.ctx.jsonl(
        &["--minitool", &dir],
        &[json!({"id": 1, "tool": "ToolSearch", "arguments": {"query": "registered"}})],
    );
    assert!(!d.marked(), "run started it unconfined: {run}");
}

/// The package's own server, inside its package directory, gets what the package declares:
/// no network until a person grants it, and the refusal names the declaration and the grant.
#[test]
fn a_server_that_needs_more_than_its_mini_tool_declares_is_fixed_by_a_grant() {
    let d = Doors::new();
    let dir = d.package(
        "needy",
        json!({}),
        json!({"contributes": {"tools": true, "mcpServers": [
            {"name": "own", "command": "node", "args": ["server.mjs"]}]}}),
        &[],
    );
    std::fs::write(dir.join("server.mjs"), crate::confine::WALLED_SERVER).unwrap();
    d.install(&dir, "needy");
    let port = d.listener.local_addr().unwrap().port();
    let connect = |d: &Doors| {
        d.call(
            "mcp__own__connect",
            json!({"port": port}),
            &["--approve", "mcp__own__connect"],
        )
        .json()
    };
    let record = connect(&d);
    assert_eq!(record["isError"], true, "{record}");
    let text = text_of(&record);
    assert!(
        text.contains("blocked: needy declares network: false"),
        "{text}"
    );
    assert!(text.contains("finch sandbox grant needy network"), "{text}");
    assert_eq!(d.connections(), 0);
    // It writes nothing outside either.
    let record = d
        .call(
            "mcp__own__write",
            json!({"path": d.sentinel}),
            &["--approve", "mcp__own__write"],
        )
        .json();
    assert_eq!(record["isError"], true, "{record}");
    assert!(!d.sentinel.exists());

    d.ctx
        .run(&["sandbox", "grant", "needy", "network"])
        .success();
    let record = connect(&d);
    assert_eq!(record["isError"], false, "{record}");
    assert_eq!(d.connections(), 1);
}
