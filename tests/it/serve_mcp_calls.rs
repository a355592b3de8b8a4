//! `finch run --serve mcp` serving calls side by side (issue 15), driven by the official
//! Python MCP client (tests/peers/mcp_client_serve.py): pings, lists and other calls answered
//! while a Bash call runs and while a card is open, cards of concurrent calls one at a time,
//! `notifications/cancelled` ending a Bash call (its process group killed) and a mini tool's
//! call (its `exec.signal` aborted) with no result sent, and a mini tool's
//! `exec.progress.report` reaching the client as `notifications/progress`, `run --jsonl` as JSON
//! lines and `tool call` as lines on stderr.
//!
//! Nothing here times anything: a command waits for a file the client creates only once the
//! other requests were answered, so a server that served one request at a time never answers
//! them and the run fails at its timeout.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::TestContext;
use crate::common::fixtures::MiniTool;
use crate::serve_mcp::{Report, accept, call, serve};

fn spawn(id: &str, name: &str, arguments: Value) -> Value {
    json!({"op": "spawn", "id": id, "name": name, "arguments": arguments})
}

fn op(name: &str) -> Value {
    json!({"op": name})
}

fn pending(report: &Report, step: usize) -> Vec<String> {
    serde_json::from_value(report.0["pending"][step].clone()).unwrap()
}

/// The ids of the `tools/call` requests the client sent for `tool`.
fn call_ids(report: &Report, tool: &str) -> Vec<Value> {
    let sent = report.0["sent"].as_array().unwrap();
    sent.iter()
        .filter(|m| m["method"] == "tools/call" && m["name"] == tool)
        .map(|m| m["id"].clone())
        .collect()
}

/// Whether the client received an answer (a result or an error) to request `id`.
fn answered(report: &Report, id: &Value) -> bool {
    report.0["received"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| &m["id"] == id && (m["result"] == true || !m["error"].is_null()))
}

/// The transcript's record of the one call of `tool`, checked to say it was cancelled.
fn recorded_cancelled(ctx: &TestContext, tool: &str) -> Value {
    let transcripts = ctx.transcripts();
    let call = ctx
        .tool_calls(&transcripts[0])
        .into_iter()
        .find(|c| c["tool"] == tool)
        .unwrap_or_else(|| panic!("{tool} recorded"));
    let text = call["result"]["content"][0]["text"].as_str().unwrap_or("");
    assert!(text.contains("cancelled"), "{call}");
    call
}

#[test]
fn pings_lists_and_reads_are_answered_while_a_bash_call_runs() {
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("small.txt"), "hello there\n").unwrap();
    let mut steps = vec![
        spawn(
            "bash",
            "Bash",
            json!({"command": "touch started; while [ ! -e go ]; do sleep 0.05; done; echo released"}),
        ),
        json!({"op": "wait_file", "path": "started"}),
        op("ping"),
        op("list"),
    ];
    for _ in 0..10 {
        steps.push(call("Read", json!({"file_path": "small.txt"})));
    }
    steps.push(json!({"op": "touch", "path": "go"}));
    steps.push(json!({"op": "await", "id": "bash"}));
    let plan = json!({"elicitation": null, "timeout": 45, "steps": steps});
    let report = serve(&ctx, plan, &["--mode", "acceptCalls", "--approve", "Bash"]);
    assert_eq!(report.result(1)["exists"], true);
    for step in 2..14 {
        assert_eq!(
            pending(&report, step),
            ["bash"],
            "step {step} waited for Bash"
        );
    }
    assert_eq!(report.result(2), &json!({}), "ping");
    assert!(report.result(3)["tools"].as_array().unwrap().len() > 5);
    for step in 4..14 {
        assert!(
            report.text(step).contains("hello there"),
            "{}",
            report.result(step)
        );
    }
    let bash = report.text(15);
    assert!(bash.contains("released"), "{}", report.result(15));
}

#[test]
fn a_bridged_server_call_holds_up_no_other_call() {
    let ctx = TestContext::new();
    crate::mcp_bridge::write_servers(
        &ctx,
        &json!({"servers": [crate::mcp_bridge::python_entry("py", &[])]}),
    );
    // The cache lets ToolSearch activate the server's tools before it connected.
    ctx.run(&["reload"]).success();
    std::fs::write(ctx.work.join("small.txt"), "hello there\n").unwrap();
    let marker = ctx.work.join("lingering");
    let plan = json!({
        "elicitation": null,
        "timeout": 45,
        "steps": [
            call("ToolSearch", json!({"query": "", "source": "mcp:py", "limit": 20})),
            spawn("linger", "mcp__py__linger", json!({"marker": marker})),
            {"op": "wait_file", "path": marker},
            call("Read", json!({"file_path": "small.txt"})),
            call("mcp__py__echo", json!({"message": "beside"})),
            {"op": "cancel", "id": "linger"},
            {"op": "sleep", "seconds": 0.5},
        ],
    });
    let approve = [
        "--mode",
        "acceptCalls",
        "--approve",
        "mcp__py__linger",
        "--approve",
        "mcp__py__echo",
    ];
    let report = serve(&ctx, plan, &approve);
    assert_eq!(pending(&report, 3), ["linger"], "Read waited for linger");
    assert!(
        report.text(3).contains("hello there"),
        "{}",
        report.result(3)
    );
    assert_eq!(pending(&report, 4), ["linger"], "echo waited for linger");
    assert_eq!(report.text(4), "Echo: beside", "{}", report.result(4));
    // The server heard the cancellation: its tool stopped a minute early.
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::fs::read_to_string(&marker).unwrap_or_default() != "cancelled" {
        assert!(
            Instant::now() < deadline,
            "linger was not cancelled upstream"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_open_card_holds_up_neither_pings_nor_lists_and_cards_come_one_at_a_time() {
    let ctx = TestContext::new();
    let allow = accept(json!({"decision": "allowOnce"}));
    let mut first = allow.clone();
    first["wait_file"] = json!("listed");
    let plan = json!({
        "elicitation": [first, allow],
        "timeout": 45,
        "steps": [
            spawn("a", "Bash", json!({"command": "touch a.out"})),
            spawn("b", "Bash", json!({"command": "touch b.out"})),
            {"op": "wait_elicitations", "count": 1},
            op("ping"),
            op("list"),
            {"op": "touch", "path": "listed"},
            {"op": "await", "id": "a"},
            {"op": "await", "id": "b"},
        ],
    });
    let report = serve(&ctx, plan, &["--mode", "ask"]);
    assert_eq!(
        pending(&report, 3),
        ["a", "b"],
        "ping answered with the card open"
    );
    assert_eq!(
        pending(&report, 4),
        ["a", "b"],
        "list answered with the card open"
    );
    assert_eq!(report.0["elicitations"].as_array().unwrap().len(), 2);
    assert_eq!(report.0["most_elicitations_open"], 1, "one card at a time");
    assert_eq!(report.decided_by(6), "card:allowOnce");
    assert_eq!(report.decided_by(7), "card:allowOnce");
    assert!(ctx.work.join("a.out").exists() && ctx.work.join("b.out").exists());
}

#[test]
fn a_call_cancelled_while_its_card_is_open_takes_the_card_back() {
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("small.txt"), "next in line\n").unwrap();
    // The card's form is never answered: only taking it back frees the host for the Read.
    let mut held = accept(json!({"decision": "allowOnce"}));
    held["wait_file"] = json!(ctx.work.join("never"));
    let plan = json!({
        "elicitation": [held],
        "timeout": 45,
        "steps": [
            spawn("bash", "Bash", json!({"command": "touch ran.out"})),
            {"op": "wait_elicitations", "count": 1},
            {"op": "cancel", "id": "bash"},
            call("Read", json!({"file_path": "small.txt"})),
            {"op": "sleep", "seconds": 0.5},
        ],
    });
    let report = serve(&ctx, plan, &["--mode", "acceptCalls"]);
    assert!(
        report.text(3).contains("next in line"),
        "{}",
        report.result(3)
    );
    assert_eq!(report.0["elicitations_withdrawn"], 1, "{}", report.0);
    assert!(!ctx.work.join("ran.out").exists(), "the cancelled call ran");
    let bash = call_ids(&report, "Bash");
    assert!(!answered(&report, &bash[0]), "{}", report.0["received"]);
    let bash = recorded_cancelled(&ctx, "Bash");
    assert_eq!(
        (&bash["decision"], &bash["decidedBy"]),
        (&json!("none"), &json!("card:withdrawn")),
        "{bash}"
    );
}

#[test]
fn a_cancelled_bash_call_is_killed_with_its_group_and_gets_no_result() {
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("small.txt"), "still serving\n").unwrap();
    let plan = json!({
        "elicitation": null,
        "timeout": 45,
        "steps": [
            // An argument of its own: in the wall the command's pids are its namespace's.
            spawn("bash", "Bash", json!({"command": "sleep 30.0417 & touch started; wait; echo finished"})),
            {"op": "wait_file", "path": "started"},
            {"op": "sleep", "seconds": 0.2},
            {"op": "cancel", "id": "bash"},
            op("ping"),
            call("Read", json!({"file_path": "small.txt"})),
            // Time for a result that should not come to arrive anyway.
            {"op": "sleep", "seconds": 1.5},
        ],
    });
    let report = serve(&ctx, plan, &["--mode", "acceptCalls", "--approve", "Bash"]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !crate::common::procs::pids_running(&["sleep", "30.0417"]).is_empty() {
        assert!(Instant::now() < deadline, "the command's sleep still runs");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(report.text(5).contains("still serving"));
    let bash = call_ids(&report, "Bash");
    assert_eq!(bash.len(), 1, "{}", report.0["sent"]);
    assert!(!answered(&report, &bash[0]), "{}", report.0["received"]);
    let read = call_ids(&report, "Read");
    assert!(answered(&report, &read[0]));
    recorded_cancelled(&ctx, "Bash");
}

/// A mini tool whose `wait` tool waits for its signal to abort, and whose `sync` tool reports
/// progress.
fn worker_minitool(ctx: &TestContext) -> String {
    let dir = ctx.base().join("dev/worker");
    MiniTool::new("worker", "1.0.0")
        .display_name("Worker")
        // It writes its marks into the workspace (issue 29: declared, or the sandbox refuses).
        .finch_field("permissions", json!({"filesystem": "readwrite"}))
        .entry_source(
            r#"import fs from "node:fs";
import path from "node:path";
export function activate(ctx) {
  ctx.subscriptions.push(ctx.tools.register({
    name: "wait",
    title: "Wait for the abort signal",
    description: "Waits until the call is cancelled",
    inputSchema: { type: "object", properties: {} },
    async execute(input, exec) {
      fs.writeFileSync(path.join(exec.cwd, "started"), "");
      return await new Promise((resolve) => {
        exec.signal.addEventListener("abort", () => {
          fs.writeFileSync(path.join(exec.cwd, "aborted"), String(exec.signal.reason?.message ?? ""));
          resolve("aborted");
        });
      });
    },
  }));
  ctx.subscriptions.push(ctx.tools.register({
    name: "sync",
    title: "Synchronise with progress",
    description: "Reports its progress three times",
    inputSchema: { type: "object", properties: {} },
    async execute(input, exec) {
      exec.progress.report({ message: "one", percent: 25 });
      await new Promise((r) => setTimeout(r, 20));
      exec.progress.report({ message: "two", percent: 50 });
      exec.progress.report({ message: "three", percent: 75 });
      return "synced";
    },
  }));
}
"#,
        )
        .write_to(&dir);
    dir.display().to_string()
}

#[test]
fn a_cancelled_mini_tool_call_aborts_its_signal_and_gets_no_result() {
    let ctx = TestContext::new();
    let dir = worker_minitool(&ctx);
    let plan = json!({
        "elicitation": null,
        "timeout": 45,
        "steps": [
            call("ToolSearch", json!({"query": "wait for the abort signal"})),
            spawn("wait", "worker_wait", json!({})),
            {"op": "wait_file", "path": "started"},
            {"op": "cancel", "id": "wait"},
            {"op": "wait_file", "path": "aborted", "timeout": 20},
            op("ping"),
            {"op": "sleep", "seconds": 1.5},
        ],
    });
    let report = serve(
        &ctx,
        plan,
        &[
            "--mode",
            "acceptCalls",
            "--minitool",
            &dir,
            "--approve",
            "worker_wait",
        ],
    );
    assert_eq!(report.result(2)["exists"], true, "the call started");
    assert_eq!(report.result(4)["exists"], true, "its signal aborted");
    let reason = std::fs::read_to_string(ctx.work.join("aborted")).unwrap();
    assert!(reason.contains("cancelled"), "{reason}");
    let wait = call_ids(&report, "worker_wait");
    assert_eq!(wait.len(), 1, "{}", report.0["sent"]);
    assert!(!answered(&report, &wait[0]), "{}", report.0["received"]);
    assert!(answered(&report, &call_ids(&report, "ToolSearch")[0]));
}

#[test]
fn mini_tool_progress_reaches_the_client_that_asked_for_it() {
    let ctx = TestContext::new();
    let dir = worker_minitool(&ctx);
    let plan = json!({
        "elicitation": null,
        "steps": [
            call("ToolSearch", json!({"query": "synchronise with progress"})),
            {"op": "call", "name": "worker_sync", "arguments": {}, "progress": true},
            // No progressToken: no notifications.
            call("worker_sync", json!({})),
        ],
    });
    let report = serve(
        &ctx,
        plan,
        &[
            "--mode",
            "acceptCalls",
            "--minitool",
            &dir,
            "--approve",
            "worker_sync",
        ],
    );
    assert!(report.text(1).contains("synced"), "{}", report.result(1));
    assert_eq!(
        report.0["progress"]["step1"],
        json!([
            {"progress": 25.0, "total": 100.0, "message": "one"},
            {"progress": 50.0, "total": 100.0, "message": "two"},
            {"progress": 75.0, "total": 100.0, "message": "three"},
        ])
    );
    let progress_notes = report.0["received"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .count();
    assert_eq!(
        progress_notes, 3,
        "only the call with a token hears of progress"
    );
}

#[test]
fn run_jsonl_writes_a_line_per_progress_update_before_the_response() {
    let ctx = TestContext::new();
    let dir = worker_minitool(&ctx);
    let (lines, run) = ctx.jsonl(
        &["--mode", "acceptCalls", "--minitool", &dir, "--approve", "worker_sync"],
        &[
            json!({"id": "s", "tool": "ToolSearch", "arguments": {"query": "synchronise with progress"}}),
            json!({"id": 7, "tool": "worker_sync"}),
        ],
    );
    assert_eq!(run.code(), 0, "{run}");
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert_eq!(lines[0]["id"], "s");
    assert_eq!(
        lines[1],
        json!({"id": 7, "progress": {"tool": "worker_sync", "progress": 25.0, "total": 100.0, "message": "one"}})
    );
    assert_eq!(lines[3]["progress"]["message"], "three");
    assert_eq!(lines[4]["id"], 7);
    assert_eq!(lines[4]["content"][0]["text"], "synced", "{}", lines[4]);
}

#[test]
fn tool_call_prints_a_line_per_progress_update() {
    let ctx = TestContext::new();
    let dir = worker_minitool(&ctx);
    let run = ctx.run(&[
        "tool",
        "call",
        "worker_sync",
        "{}",
        "--minitool",
        &dir,
        "--approve",
        "worker_sync",
    ]);
    assert_eq!(run.code(), 0, "{run}");
    let stderr = run.stderr();
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("worker_sync:"))
        .collect();
    assert_eq!(
        lines,
        [
            "  … worker_sync: 25/100 (25%) one",
            "  … worker_sync: 50/100 (50%) two",
            "  … worker_sync: 75/100 (75%) three",
        ],
        "{stderr}"
    );
    assert!(run.stdout().contains("synced"));
    let quiet = ctx.run(&[
        "tool",
        "call",
        "worker_sync",
        "{}",
        "--minitool",
        &dir,
        "--approve",
        "worker_sync",
        "--quiet",
    ]);
    assert!(!quiet.stderr().contains("worker_sync:"), "{quiet}");
}

/// A mini tool `id` whose `meet` tool marks its call in `meeting` and waits until `count`
/// calls (of any mini tool) have: "met <n>" when they all came, "alone <n>" after 90 s (a
/// bound for a loaded machine, where starting four `node`s can take many seconds).
fn meeting_minitool(
    ctx: &TestContext,
    id: &str,
    meeting: &std::path::Path,
    count: usize,
) -> String {
    let dir = ctx.base().join("dev").join(id);
    let meeting = serde_json::to_string(&meeting.display().to_string()).unwrap();
    MiniTool::new(id, "1.0.0")
        .finch_field("permissions", json!({"filesystem": "readwrite"}))
        .entry_source(&format!(
            r#"import fs from "node:fs";
import path from "node:path";
export function activate(ctx) {{
  ctx.tools.register({{
    name: "meet",
    description: "Meets the other calls",
    inputSchema: {{ type: "object", properties: {{}} }},
    async execute(input, exec) {{
      const dir = {meeting};
      fs.writeFileSync(path.join(dir, exec.toolCallId + "-" + fs.readlinkSync("/proc/self/ns/pid")), "");
      const start = Date.now();
      while (Date.now() - start < 90000) {{
        const here = fs.readdirSync(dir).length;
        if (here >= {count}) return `met ${{here}}`;
        await new Promise((r) => setTimeout(r, 20));
      }}
      return `alone ${{fs.readdirSync(dir).length}}`;
    }},
  }});
}}
"#
        ))
        .write_to(&dir);
    dir.display().to_string()
}

#[test]
fn mini_tool_calls_run_side_by_side_across_and_within_mini_tools() {
    let ctx = TestContext::new();
    // In the workspace, which the meeting mini tools declare they write (issue 29).
    let meeting = ctx.work.join("meeting");
    std::fs::create_dir_all(&meeting).unwrap();
    let ids = ["meet-a", "meet-b", "meet-c", "meet-d"];
    let mut args: Vec<String> = vec!["--mode".into(), "acceptCalls".into()];
    for id in ids {
        args.push("--minitool".into());
        args.push(meeting_minitool(&ctx, id, &meeting, 8));
        args.push("--approve".into());
        args.push(format!("{id}_meet"));
    }
    let mut steps = Vec::new();
    for (i, id) in ids.iter().chain(ids.iter()).enumerate() {
        steps.push(spawn(&format!("c{i}"), &format!("{id}_meet"), json!({})));
    }
    for i in 0..8 {
        steps.push(json!({"op": "await", "id": format!("c{i}")}));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // The client's whole run outlasts the meeting's 90 s bound, so a slow start on a loaded
    // machine still ends in "met" or "alone", never in the client's own timeout.
    let report = serve(&ctx, json!({"steps": steps, "timeout": 150}), &args);
    // Every call saw all eight in flight: none waited for another to end (one at a time, the
    // first would have waited alone until its bound).
    for step in 8..16 {
        assert_eq!(report.text(step), "met 8", "{}", report.0);
    }
    // Calls of one mini tool share its process tree (a PID namespace each): two marks per one.
    let mut pids: Vec<String> = std::fs::read_dir(&meeting)
        .unwrap()
        .map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.rsplit('-').next().unwrap().to_string()
        })
        .collect();
    pids.sort();
    pids.dedup();
    assert_eq!(pids.len(), 4, "one process tree per mini tool");
}
