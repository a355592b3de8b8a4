//! Configuration that starts programs is trusted by content: `servers.json` entries wait for a
//! person, and no mini tool's storage is a directory finch reads configuration from.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use super::{Doors, marking};

/// A package whose id is `mcp` would get `extension-data/mcp` — the directory of the user's
/// `servers.json` — as its storage. It gets another, and what it writes there starts nothing.
#[test]
fn mini_tool_storage_never_aliases_the_mcp_configuration() {
    let d = Doors::new();
    let dir = d.package("mcp", json!({}), json!({}), &["writeServers"]);
    d.install(&dir, "mcp");
    let out = d.call(
        "mcp_activation",
        json!({}),
        &["--approve", "mcp_activation"],
    );
    let record = out.json();
    let storage = record["structuredContent"]["storagePath"]
        .as_str()
        .unwrap_or_else(|| panic!("no storagePath: {record}"))
        .to_string();
    let config_dir = d.ctx.runtime.join("extension-data/mcp");
    assert_ne!(Path::new(&storage), config_dir, "{record}");
    assert!(
        !d.ctx
            .runtime
            .join("extension-data/mcp/servers.json")
            .exists()
    );
    let (_, run) = d.ctx.jsonl(
        &[],
        &[json!({"id": 1, "tool": "ToolSearch", "arguments": {"query": "planted"}})],
    );
    d.ctx.run(&["reload"]);
    assert!(!d.marked(), "a server the mini tool planted started: {run}");
}

/// `servers.json` entries written by anything but finch wait until a person approves that
/// exact entry; `finch mcp add` is approval; a changed entry waits again.
#[test]
fn a_servers_json_entry_starts_only_once_a_person_approved_it() {
    let d = Doors::new();
    let path = crate::mcp_bridge::plant_servers(
        &d.ctx,
        &json!({"servers": [marking("planted", &d.sentinel)]}),
    );
    let list = d.ctx.run(&["mcp", "list", "--json"]);
    assert!(
        !d.marked(),
        "mcp list started an entry nobody approved: {list}"
    );
    let listed = list.json();
    let planted = listed
        .as_array()
        .and_then(|l| l.iter().find(|s| s["name"] == "planted"))
        .cloned()
        .unwrap_or_else(|| panic!("planted not listed: {listed}"));
    assert_eq!(planted["status"], "untrusted", "{planted}");
    d.ctx.run(&["reload"]);
    let (_, run) = d.ctx.jsonl(
        &[],
        &[json!({"id": 1, "tool": "ToolSearch", "arguments": {"query": "planted"}})],
    );
    assert!(!d.marked(), "an entry nobody approved started: {run}");
    run.stderr_has("finch mcp trust planted");

    // A person approves it: it starts.
    let trusted = d.ctx.run(&["mcp", "trust", "planted"]);
    trusted.success().stdout_has("planted");
    d.ctx.run(&["mcp", "list"]);
    assert!(d.marked(), "the approved entry did not start");
    std::fs::remove_file(&d.sentinel).unwrap();
    let out = d.ctx.run(&["mcp", "trust", "--list", "--json"]);
    out.success();
    assert_eq!(out.json()[0]["name"], "planted", "{out}");
    assert_eq!(out.json()[0]["state"], "trusted", "{out}");

    // Changed by something else: it waits again.
    let other = d.ctx.base().join("outside/other");
    let mut changed = marking("planted", &other);
    changed["env"] = json!({"X": "1"});
    std::fs::write(&path, json!({"servers": [changed]}).to_string()).unwrap();
    d.ctx.run(&["mcp", "list"]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(!other.exists(), "a changed entry started without approval");
    let out = d.ctx.run(&["mcp", "trust", "--list", "--json"]);
    assert_eq!(out.json()[0]["state"], "changed", "{out}");

    // Revoked: it waits.
    d.ctx.run(&["mcp", "trust", "planted"]).success();
    d.ctx
        .run(&["mcp", "trust", "--revoke", "planted"])
        .success();
    d.ctx.run(&["mcp", "list"]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(!other.exists(), "a revoked entry started");

    // `finch mcp add` is a person's approval.
    let added = d.ctx.base().join("outside/added");
    d.ctx
        .run(&[
            "mcp",
            "add",
            "mine",
            "--",
            "sh",
            "-c",
            &format!("id > '{}'; exec sleep 3", added.display()),
        ])
        .success();
    d.ctx.run(&["mcp", "list"]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(added.exists(), "an entry finch mcp add wrote did not start");
    // Unknown names are errors that change nothing.
    let before = std::fs::read(d.ctx.runtime.join("trusted-mcp.json")).unwrap();
    d.ctx
        .run(&["mcp", "trust", "nope"])
        .failure(3)
        .stderr_has("no server named \"nope\"");
    assert_eq!(
        std::fs::read(d.ctx.runtime.join("trusted-mcp.json")).unwrap(),
        before
    );
}

/// In the console the person is asked, on a card, before a waiting entry starts; allowed, the
/// approval is recorded as `finch mcp trust` records it.
#[test]
fn the_console_asks_before_a_waiting_entry_starts() {
    let d = Doors::new();
    crate::mcp_bridge::plant_servers(
        &d.ctx,
        &json!({"servers": [marking("planted", &d.sentinel)]}),
    );
    // Denied: it does not start, and is not recorded.
    let mut pty = crate::cards::Pty::spawn(&d.ctx, &["run", "--mode", "acceptCalls"]);
    let card = pty.expect(crate::cards::CARD_SHOWN);
    assert!(card.contains("start this MCP server?"), "{card}");
    assert!(card.contains(&d.sentinel.display().to_string()), "{card}");
    pty.send("\x1b");
    pty.expect("finch> ");
    pty.send("/quit\r");
    pty.finish();
    assert!(!d.marked(), "a denied entry started");
    assert!(!d.ctx.runtime.join("trusted-mcp.json").exists());
    // Allowed: it starts, and later runs need not ask again.
    let mut pty = crate::cards::Pty::spawn(&d.ctx, &["run", "--mode", "acceptCalls"]);
    pty.expect(crate::cards::CARD_SHOWN);
    pty.send("1");
    pty.expect("finch> ");
    pty.send("/quit\r");
    pty.finish();
    let out = d.ctx.run(&["mcp", "trust", "--list", "--json"]);
    assert_eq!(out.json()[0]["state"], "trusted", "{out}");
    d.ctx.run(&["mcp", "list"]);
    assert!(d.marked(), "the entry approved on the card did not start");
}

/// An entry nobody approved, asked about through `--serve mcp`'s elicitation once the client
/// is initialized: `servers.json` holds an echo server that marks the sentinel as it starts.
fn serve_waiting(d: &Doors, answers: Value, steps: Value) -> (crate::common::Run, Value) {
    let echo = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/echo_server.py");
    let command = format!(
        "id > '{}'; exec '{}' '{}'",
        d.sentinel.display(),
        crate::serve_mcp::python().display(),
        echo.display()
    );
    crate::mcp_bridge::plant_servers(
        &d.ctx,
        &json!({"servers": [{"name": "fresh", "command": "sh", "args": ["-c", command]}]}),
    );
    let plan = json!({"elicitation": answers, "steps": steps});
    let run = crate::common::Run(
        crate::serve_mcp::client(&d.ctx, &plan, &["--mode", "acceptCalls"])
            .output()
            .unwrap(),
    );
    assert_eq!(run.code(), 0, "the MCP client failed:\n{run}");
    let report = run.json();
    (run, report)
}

fn search_echo() -> Value {
    crate::serve_mcp::call(
        "ToolSearch",
        json!({"query": "echoes back the input string"}),
    )
}

fn texts(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn serve_mcp_asks_the_client_before_a_waiting_entry_starts() {
    // Accepted: recorded as approved, it starts, and its tools come with tools/list_changed.
    let d = Doors::new();
    let (run, report) = serve_waiting(
        &d,
        json!([crate::serve_mcp::accept(json!({"decision": "allowOnce"}))]),
        json!([
            {"op": "wait_elicitations", "count": 1},
            {"op": "wait_list_changed", "timeout": 20},
            {"op": "wait_file", "path": d.sentinel, "timeout": 20},
            // Its own connection may announce the tools again; at most this long.
            {"op": "wait_list_changed", "timeout": 10},
            search_echo(),
        ]),
    );
    let form = &report["elicitations"][0];
    let message = form["message"].as_str().unwrap_or_default();
    assert!(message.contains("start this MCP server?"), "{form}");
    assert!(message.contains("fresh"), "{form}");
    assert!(
        message.contains(&d.sentinel.display().to_string()),
        "{form}"
    );
    assert_eq!(report["results"][1]["received"], true, "{report}\n{run}");
    assert!(
        d.sentinel.exists(),
        "the accepted entry did not start: {run}"
    );
    assert!(
        texts(&report["results"][4]).contains("mcp__fresh__echo"),
        "{report}"
    );
    let trusted = d.ctx.run(&["mcp", "trust", "--list", "--json"]);
    assert_eq!(trusted.json()[0]["name"], "fresh", "{trusted}");
    assert_eq!(trusted.json()[0]["state"], "trusted", "{trusted}");

    // Declined: it does not start, is not recorded, and the way to approve it is named.
    let d = Doors::new();
    let (run, report) = serve_waiting(
        &d,
        json!([{"action": "decline"}]),
        json!([{"op": "wait_elicitations", "count": 1}, search_echo()]),
    );
    assert_eq!(report["elicitations"].as_array().map(Vec::len), Some(1));
    assert!(!d.marked(), "a declined entry started: {run}");
    assert!(
        !texts(&report["results"][1]).contains("mcp__fresh__echo"),
        "{report}"
    );
    run.stderr_has("finch mcp trust fresh");
    assert!(!d.ctx.runtime.join("trusted-mcp.json").exists());

    // A client without elicitation is not asked: it waits for `finch mcp trust`.
    let d = Doors::new();
    let (run, report) = serve_waiting(&d, Value::Null, json!([{"op": "list"}, search_echo()]));
    assert_eq!(report["elicitations"], json!([]), "{report}");
    assert!(!d.marked(), "an entry nobody approved started: {run}");
    run.stderr_has("finch mcp trust fresh");
    assert!(!d.ctx.runtime.join("trusted-mcp.json").exists());
}
