//! Agent sessions a mini tool starts: only with `permissions.sessions` (or a grant), the mode
//! clamped to the host session's, the agent confined.

use std::path::PathBuf;

use serde_json::json;

use super::{Doors, SECRET_VAR, text_of};

/// The fake agent: prints the mode and prompt it got, then tries to mark the sentinel, read
/// the planted key and see finch's secret.
fn fake_agent(d: &Doors) -> PathBuf {
    // Where a person's agent is installed: a directory `[sandbox] read` names.
    let bin = d.ctx.base().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let agent = bin.join("agent.sh");
    std::fs::write(
        &agent,
        format!(
            "#!/bin/sh\necho \"mode=$1\"\necho \"prompt=$2\"\n\
             (echo agent > '{sentinel}') 2>/dev/null && echo wrote-outside\n\
             cat '{secret}' 2>/dev/null\n\
             env | grep -q {SECRET_VAR} && echo saw-secret\n\
             echo done\n",
            sentinel = d.sentinel.display(),
            secret = d.ctx.home.join(".ssh/id_ed25519").display(),
        ),
    )
    .unwrap();
    let mut perms = std::fs::metadata(&agent).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&agent, perms).unwrap();
    d.ctx.write_config(&format!(
        "[mcp]\ntimeout = \"5s\"\n[sandbox]\nread = [\"{}\"]\n[agent]\ncommand = [\"{}\", \"{{mode}}\", \"{{prompt}}\"]\n",
        bin.display(),
        agent.display()
    ));
    agent
}

#[test]
fn a_mini_tool_starts_no_agent_session_it_did_not_declare() {
    let d = Doors::new();
    fake_agent(&d);
    let dir = d.package("doors", json!({}), json!({}), &["session"]);
    let dir = dir.display().to_string();
    let out = d.call(
        "doors_try",
        json!({"what": "session"}),
        &["--minitool", &dir, "--approve", "doors_try"],
    );
    let record = out.json();
    assert!(!d.marked(), "the agent ran: {record}");
    assert_eq!(record["isError"], true, "{record}");
    let text = text_of(&record);
    assert!(text.contains("permissions.sessions"), "{text}");
    assert!(
        text.contains("finch sandbox grant doors sessions"),
        "{text}"
    );
    // From activate() neither.
    let out = d.call(
        "doors_activation",
        json!({}),
        &["--minitool", &dir, "--approve", "doors_activation"],
    );
    let record = out.json();
    assert_eq!(
        record["structuredContent"]["attempts"]["session"]["ok"], false,
        "{record}"
    );
    assert!(!d.marked());
}

#[test]
fn a_declared_session_runs_clamped_to_the_host_mode_and_confined() {
    let d = Doors::new();
    fake_agent(&d);
    let dir = d.package("doors", json!({"sessions": true}), json!({}), &[]);
    let dir = dir.display().to_string();
    let flags = ["--minitool", dir.as_str(), "--approve", "doors_try"];
    // An unknown mode is an error.
    let record = d
        .call(
            "doors_try",
            json!({"what": "session", "mode": "yolo"}),
            &flags,
        )
        .json();
    assert_eq!(record["isError"], true, "{record}");
    assert!(
        text_of(&record).contains("\"yolo\" is not a permission mode"),
        "{record}"
    );
    // bypassPermissions becomes the host session's mode (ask, for `tool call`).
    let record = d
        .call("doors_try", json!({"what": "session"}), &flags)
        .json();
    assert_eq!(record["isError"], false, "{record}");
    let record = d
        .call("doors_try", json!({"what": "waitSession"}), &flags)
        .json();
    let result = &record["structuredContent"]["result"];
    assert_eq!(result["type"], "turn.completed", "{record}");
    let output = result["outputText"].as_str().unwrap_or_default();
    assert!(output.contains("mode=ask"), "{output}");
    assert!(
        output.contains("prompt=do what the mini tool says"),
        "{output}"
    );
    assert!(
        output.contains("done"),
        "the agent ran to its end: {output}"
    );
    assert!(
        !output.contains("wrote-outside") && !output.contains("OPENSSH"),
        "{output}"
    );
    assert!(!output.contains("saw-secret"), "{output}");
    assert!(!d.sentinel.exists());
    // In acceptCalls it may ask for acceptCalls, never more.
    let flags = [
        "--minitool",
        dir.as_str(),
        "--approve",
        "doors_try",
        "--mode",
        "acceptCalls",
    ];
    let record = d
        .call(
            "doors_try",
            json!({"what": "session", "mode": "acceptCalls"}),
            &flags,
        )
        .json();
    assert_eq!(record["isError"], false, "{record}");
}

#[test]
fn an_under_declared_session_is_fixed_by_a_grant() {
    let d = Doors::new();
    fake_agent(&d);
    let dir = d.package("doors", json!({}), json!({}), &[]);
    d.install(&dir, "doors");
    let try_session = |d: &Doors| {
        d.call(
            "doors_try",
            json!({"what": "session"}),
            &["--approve", "doors_try"],
        )
        .json()
    };
    assert_eq!(try_session(&d)["isError"], true);
    d.ctx
        .run(&["sandbox", "grant", "doors", "sessions"])
        .success();
    let record = try_session(&d);
    assert_eq!(record["isError"], false, "{record}");
}
