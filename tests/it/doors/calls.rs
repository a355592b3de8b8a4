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

/// The MCP tool calls a mini tool makes through `mcp.client.callTool` are recorded in the
/// session's transcript as any call is: the tool, who decided, and the mini tool that made it.
#[test]
fn call_tool_calls_are_recorded_like_any_call() {
    let d = Doors::new();
    user_server(&d);
    let dir = d.package(
        "doors",
        json!({}),
        json!({"requires": {"capabilities": ["mcp.client"]}}),
        &[],
    );
    let dir = dir.display().to_string();
    let try_call = json!({"id": 1, "tool": "doors_try", "arguments": {"what": "callTool"}});
    let made = |ctx: &crate::common::TestContext| -> Vec<serde_json::Value> {
        let transcripts = ctx.transcripts();
        transcripts
            .iter()
            .flat_map(|t| ctx.tool_calls(t))
            .filter(|c| c["tool"] == "mcp__usersrv__write")
            .collect()
    };
    // Nobody to ask: refused, and recorded so.
    let (_, run) = d.ctx.jsonl(
        &["--minitool", &dir, "--approve", "doors_try"],
        std::slice::from_ref(&try_call),
    );
    assert!(!d.sentinel.exists(), "{run}");
    let calls = made(&d.ctx);
    assert_eq!(calls.len(), 1, "{calls:?}\n{run}");
    assert_eq!(calls[0]["decision"], "deny", "{:?}", calls[0]);
    assert_eq!(calls[0]["decidedBy"], "noPerson", "{:?}", calls[0]);
    assert_eq!(calls[0]["madeByMiniTool"], "doors", "{:?}", calls[0]);
    assert_eq!(calls[0]["isError"], true, "{:?}", calls[0]);
    // Approved by --approve: it ran, and the record says who let it.
    let (_, run) = d.ctx.jsonl(
        &[
            "--minitool",
            &dir,
            "--approve",
            "doors_try",
            "--approve",
            "mcp__usersrv__write",
        ],
        &[try_call],
    );
    assert!(d.sentinel.exists(), "approved, it ran: {run}");
    let calls = made(&d.ctx);
    assert_eq!(calls.len(), 2, "{calls:?}\n{run}");
    let ran = calls
        .iter()
        .find(|c| c["decision"] == "allow")
        .unwrap_or_else(|| panic!("no allowed call recorded: {calls:?}"));
    assert_eq!(ran["decision"], "allow", "{ran}");
    assert_eq!(ran["decidedBy"], "approveFlag", "{ran}");
    assert_eq!(ran["madeByMiniTool"], "doors", "{ran}");
    assert_eq!(ran["isError"], false, "{ran}");
    assert!(ran["arguments"].is_object(), "{ran}");
}

/// The card of a `callTool` offers "Allow for this session": answered so, the mini tool's
/// next calls of that tool take no card, and each is recorded as allowed for the session.
#[test]
fn call_tool_can_be_allowed_for_the_session() {
    let d = Doors::new();
    user_server(&d);
    let dir = d.package(
        "doors",
        json!({}),
        json!({"requires": {"capabilities": ["mcp.client"]}}),
        &[],
    );
    let dir = dir.display().to_string();
    let try_call = crate::serve_mcp::call("doors_try", json!({"what": "callTool"}));
    let plan = json!({
        "elicitation": [crate::serve_mcp::accept(json!({"decision": "allowForSession"}))],
        "steps": [try_call.clone(), try_call.clone(), try_call],
    });
    let report = crate::serve_mcp::serve(
        &d.ctx,
        plan,
        &["--minitool", &dir, "--approve", "doors_try"],
    );
    let forms = report.0["elicitations"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(forms.len(), 1, "one card for three calls: {forms:?}");
    let message = forms[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("doors wants to call mcp__usersrv__write"),
        "{message}"
    );
    let choices: Vec<&str> = forms[0]["requestedSchema"]["properties"]["decision"]["oneOf"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["const"].as_str())
        .collect();
    assert_eq!(
        choices,
        ["allowOnce", "allowForSession", "deny", "denyWithReason"]
    );
    for step in 0..3 {
        assert_eq!(report.result(step)["isError"], false, "{}", report.0);
    }
    assert!(d.sentinel.exists(), "the allowed calls did not run");
    let transcripts = d.ctx.transcripts();
    let decided: Vec<String> = transcripts
        .iter()
        .flat_map(|t| d.ctx.tool_calls(t))
        .filter(|c| c["tool"] == "mcp__usersrv__write")
        .map(|c| c["decidedBy"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        decided,
        ["card:allowForSession", "sessionAllow", "sessionAllow"],
        "{transcripts:?}"
    );
}
