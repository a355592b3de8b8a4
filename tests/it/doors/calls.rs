//! `mcp.client.callTool` is the MCP tool call it is: through the gateway, with a card naming
//! the calling mini tool.

use serde_json::json;

use super::{Doors, text_of};

/// A user's MCP server with a `write` tool, approved by `finch mcp add`.
fn user_server(d: &Doors) {
    let server = d.ctx.base().join("usersrv.mjs");
    std::fs::write(&server, crate::confine::WALLED_SERVER).unwrap();
    d.ctx
        .run(&[
            "mcp",
            "add",
            "usersrv",
            "--",
            "node",
            &server.display().to_string(),
        ])
        .success();
}

#[test]
fn call_tool_is_an_mcp_tool_call_with_a_card() {
    let d = Doors::new();
    user_server(&d);
    let dir = d.package(
        "doors",
        json!({}),
        json!({"requires": {"capabilities": ["mcp.client"]}}),
        &["callTool", "listTools"],
    );
    let dir = dir.display().to_string();
    // Nobody to ask: refused, and the error says how to approve.
    let record = d
        .call(
            "doors_try",
            json!({"what": "callTool"}),
            &["--minitool", &dir, "--approve", "doors_try"],
        )
        .json();
    assert!(
        !d.sentinel.exists(),
        "callTool ran without a card: {record}"
    );
    assert_eq!(record["isError"], true, "{record}");
    let text = text_of(&record);
    assert!(
        text.contains("doors wants to call mcp__usersrv__write"),
        "{text}"
    );
    assert!(text.contains("--approve mcp__usersrv__write"), "{text}");
    // listTools reads and runs nothing: free.
    let record = d
        .call(
            "doors_try",
            json!({"what": "listTools"}),
            &["--minitool", &dir, "--approve", "doors_try"],
        )
        .json();
    assert_eq!(record["isError"], false, "{record}");
    assert!(text_of(&record).contains("write"), "{record}");
    // In activate() nobody can be asked: refused.
    let record = d
        .call(
            "doors_activation",
            json!({}),
            &["--minitool", &dir, "--approve", "doors_activation"],
        )
        .json();
    let attempts = &record["structuredContent"]["attempts"];
    assert_eq!(attempts["callTool"]["ok"], false, "{record}");
    assert!(!d.sentinel.exists());
    // A person's approval (here --approve of that tool) lets it run.
    let record = d
        .call(
            "doors_try",
            json!({"what": "callTool"}),
            &[
                "--minitool",
                &dir,
                "--approve",
                "doors_try",
                "--approve",
                "mcp__usersrv__write",
            ],
        )
        .json();
    assert_eq!(record["isError"], false, "{record}");
    assert!(d.sentinel.exists(), "approved, it ran: {record}");
    std::fs::remove_file(&d.sentinel).unwrap();
    // A deny rule holds against the approval.
    std::fs::create_dir_all(d.ctx.runtime.join("config")).unwrap();
    std::fs::write(
        d.ctx.runtime.join("config/permissions.json"),
        r#"{"deny":[{"toolName":"mcp__usersrv__*","key":"*"}]}"#,
    )
    .unwrap();
    let record = d
        .call(
            "doors_try",
            json!({"what": "callTool"}),
            &[
                "--minitool",
                &dir,
                "--approve",
                "doors_try",
                "--approve",
                "mcp__usersrv__write",
            ],
        )
        .json();
    assert_eq!(record["isError"], true, "{record}");
    assert!(!d.sentinel.exists());
}
