//! Tests of `finch policy check` (SPEC §8.3–§8.5): the two-line text answer and the `--json`
//! document, both modes, rules files of the project (also from a subdirectory) and of the
//! runtime, corrupt rules files, bad arguments, tools known only by the shape of their name, the
//! file tools' confinement to the working directory, and that checking never runs the command.

use std::path::Path;

use serde_json::json;

use crate::common::{Run, TestContext};

fn check(ctx: &TestContext, args: &[&str]) -> Run {
    let mut all = vec!["policy", "check"];
    all.extend_from_slice(args);
    ctx.run(&all)
}

fn check_json(ctx: &TestContext, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--json", "policy", "check"];
    all.extend_from_slice(args);
    let out = ctx.run(&all);
    out.success();
    out.json()
}

fn write_rules(dir: &Path, text: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("permissions.json"), text).unwrap();
}

/// `finch policy trust` in the work directory: a person trusts its rules file.
fn trust(ctx: &TestContext) {
    let out = ctx.run(&["policy", "trust", "--yes"]);
    out.success();
}

#[test]
fn prints_the_decision_and_the_reason_on_two_lines() {
    let ctx = TestContext::new();
    let out = check(&ctx, &["Bash", r#"{"command":"ls -la | wc -l"}"#]);
    out.success();
    assert_eq!(
        out.stdout(),
        "ask\nread-only: ls, wc only read; the mode is ask and no allow rule names Bash\n",
        "{out}"
    );
    // Where the command would run, once approved, is said on stderr.
    assert_eq!(
        out.stderr(),
        "sandbox: runs in finch's workspace-write sandbox: writes only the workspace and trusted directories (protected paths stay read-only), network on\n",
        "{out}"
    );

    let out = check(
        &ctx,
        &[
            "Bash",
            r#"{"command":"ls -la | wc -l"}"#,
            "--mode",
            "acceptCalls",
        ],
    );
    out.success();
    assert_eq!(
        out.stdout(),
        "allow\nread-only: ls, wc only read; the mode is acceptCalls; it runs in the read-only sandbox\n",
        "{out}"
    );

    let out = check(&ctx, &["Memory", r#"{"action":"search"}"#]);
    out.success();
    assert_eq!(
        out.stdout(),
        "allow\n`Memory` runs without a card (autoAllow)\n"
    );
}

#[test]
fn json_describes_a_destructive_command() {
    let ctx = TestContext::new();
    let doc = check_json(
        &ctx,
        &[
            "Bash",
            r#"{"command":"sudo rm -rf /"}"#,
            "--mode",
            "acceptCalls",
        ],
    );
    assert_eq!(
        doc,
        json!({
            "tool": "Bash",
            "layer": "builtin",
            "mode": "acceptCalls",
            "decision": "ask",
            "decidedBy": "cardRequired",
            "reason": "destructive command: `rm -rf` deletes recursively or without asking; it always gets a card",
            "risk": "high",
            "sessionAllowOffered": false,
            "readOnly": false,
            "destructive": true,
            "segments": [
                {"text": "sudo rm -rf /", "words": ["sudo", "rm", "-rf", "/"], "readOnly": false,
                 "reason": "`sudo` is a wrapper: it runs another command"},
                {"text": "rm -rf /", "words": ["rm", "-rf", "/"], "readOnly": false,
                 "reason": "`rm` is not a known read-only program"}
            ],
            "sandbox": "workspace-write"
        })
    );
}

#[test]
fn project_rules_allow_a_command_from_any_subdirectory() {
    let ctx = TestContext::new();
    write_rules(
        &ctx.work.join(".finch"),
        r#"{"allow":[{"toolName":"Bash","key":"npm test"}],"ask":[],"deny":[]}"#,
    );
    // The project is the git top level: its rules count in every subdirectory.
    std::fs::create_dir_all(ctx.work.join(".git")).unwrap();
    trust(&ctx);
    let sub = ctx.work.join("packages/app");
    std::fs::create_dir_all(&sub).unwrap();
    let rules_file = ctx.work.join(".finch/permissions.json");
    for cwd in [&ctx.work, &sub] {
        let doc = check_json(
            &ctx,
            &[
                "Bash",
                r#"{"command":"npm test -- --watch=false"}"#,
                "--cwd",
                cwd.to_str().unwrap(),
            ],
        );
        assert_eq!(doc["decision"], "allow", "{doc}");
        assert_eq!(doc["decidedBy"], "allowRule", "{doc}");
        assert_eq!(doc["sessionAllowOffered"], false, "{doc}");
        assert_eq!(
            doc["rules"],
            json!([{"list": "allow", "toolName": "Bash", "key": "npm test",
                    "file": rules_file, "index": 0}]),
            "{doc}"
        );
    }
    // Every segment must be covered; a destructive command never is.
    let out = check(&ctx, &["Bash", r#"{"command":"npm test && npm publish"}"#]);
    out.success();
    assert_eq!(
        out.stdout(),
        "ask\nnot read-only: `npm` is not a known read-only program; no allow rule covers `npm publish`\n"
    );
    let doc = check_json(
        &ctx,
        &["Bash", r#"{"command":"npm test; rm -rf node_modules"}"#],
    );
    assert_eq!(doc["decision"], "ask", "{doc}");
    assert_eq!(doc["risk"], "high", "{doc}");
}

#[test]
fn runtime_rules_deny_and_ask() {
    let ctx = TestContext::new();
    write_rules(
        &ctx.runtime.join("config"),
        r#"{"deny":[{"toolName":"mcp__github__*","key":"*"}],"ask":[{"toolName":"Read","key":"**/.env"}]}"#,
    );
    let out = check(
        &ctx,
        &["mcp__github__create_issue", "{}", "--mode", "acceptCalls"],
    );
    out.success();
    assert_eq!(
        ctx.filter(&out.stdout()),
        "deny\nrefused by the deny rule {\"toolName\": \"mcp__github__*\", \"key\": \"*\"} in [BASE]/home/.finch/config/permissions.json\n"
    );
    let doc = check_json(
        &ctx,
        &[
            "Read",
            r#"{"file_path":"app/.env"}"#,
            "--mode",
            "acceptCalls",
        ],
    );
    assert_eq!(doc["decision"], "ask", "{doc}");
    assert_eq!(doc["decidedBy"], "askRule", "{doc}");
    assert_eq!(doc["sessionAllowOffered"], true, "{doc}");
}

#[test]
fn mini_tool_mcp_and_minitool_get_a_card_under_every_allow_rule() {
    let ctx = TestContext::new();
    write_rules(
        &ctx.work.join(".finch"),
        r#"{"allow":[{"toolName":"*","key":"*"}]}"#,
    );
    trust(&ctx);
    for (tool, layer) in [
        ("mcp__fs__read_file", "mcp"),
        ("weather_forecast", "minitool"),
        ("MiniTool", "suite"),
        ("SomethingUnknown", "minitool"),
    ] {
        for mode in ["ask", "acceptCalls"] {
            let doc = check_json(&ctx, &[tool, "{}", "--mode", mode]);
            assert_eq!(doc["decision"], "ask", "{tool} {mode}: {doc}");
            assert_eq!(doc["decidedBy"], "cardRequired", "{tool} {mode}: {doc}");
            assert_eq!(doc["layer"], layer, "{tool}: {doc}");
            assert_eq!(doc["sessionAllowOffered"], false, "{tool}: {doc}");
        }
    }
    // The same rule does spare a non-destructive command.
    let doc = check_json(&ctx, &["Bash", r#"{"command":"cargo build"}"#]);
    assert_eq!(doc["decision"], "allow", "{doc}");
}

#[test]
fn file_tools_ask_outside_the_working_directory() {
    let ctx = TestContext::new();
    let shared = ctx.base().join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    let inside = format!(r#"{{"file_path":"{}"}}"#, shared.join("a.md").display());
    let out = check(&ctx, &["Read", &inside, "--mode", "acceptCalls"]);
    out.success();
    assert_eq!(
        ctx.filter(&out.stdout()),
        "ask\n[BASE]/shared/a.md is outside the working directory [BASE]/work and the trusted directories\n"
    );
    let out = check(
        &ctx,
        &[
            "Read",
            &inside,
            "--mode",
            "acceptCalls",
            "--trusted-dir",
            shared.to_str().unwrap(),
        ],
    );
    out.success();
    assert!(out.stdout().starts_with("allow\n"), "{out}");
    let doc = check_json(
        &ctx,
        &[
            "Write",
            r#"{"file_path":"../escape.txt"}"#,
            "--mode",
            "acceptCalls",
        ],
    );
    assert_eq!(
        (doc["decision"].as_str(), doc["risk"].as_str()),
        (Some("ask"), Some("high")),
        "{doc}"
    );
}

#[test]
fn a_corrupt_rules_file_is_an_error_naming_line_and_column() {
    let ctx = TestContext::new();
    write_rules(
        &ctx.work.join(".finch"),
        "{\n  \"allow\": [\n    {\"toolName\": \"Bash\" \"key\": \"ls\"}\n  ]\n}\n",
    );
    let out = check(&ctx, &["Bash", r#"{"command":"ls"}"#]);
    out.failure(1);
    assert_eq!(out.stdout(), "", "{out}");
    assert_eq!(
        ctx.filter(&out.stderr()),
        "Error: [BASE]/work/.finch/permissions.json is not a valid permission rules file (line 3, column 25): expected `,` or `}`\n\
         hint: fix the file by hand; the format is {\"allow\":[{\"toolName\":\"Bash\",\"key\":\"npm test\"}],\"ask\":[],\"deny\":[]}\n"
    );
    let out = ctx.run(&["--json", "policy", "check", "Bash"]);
    out.failure(1);
    assert_eq!(out.json()["error"]["code"], "corrupt_state", "{out}");

    // A well-formed file with a bad rule points at the rule.
    write_rules(
        &ctx.work.join(".finch"),
        "{\"deny\": [\n  {\"toolName\": \"mcp__*__x\", \"key\": \"*\"}\n]}",
    );
    let out = check(&ctx, &["Bash"]);
    out.failure(1);
    out.stderr_has(
        "(line 2, column 3): deny rule 1: `toolName` \"mcp__*__x\": `*` may only end the name",
    );
}

#[test]
fn bad_arguments_are_usage_errors() {
    let ctx = TestContext::new();
    let out = check(&ctx, &["Bash", "{command: ls}"]);
    out.failure(2);
    out.stderr_has("Error: the arguments for `Bash` are not valid JSON: key must be a string at line 1 column 2");
    out.stderr_has("hint: pass one JSON object");
    let out = check(&ctx, &["Bash", r#"["ls"]"#]);
    out.failure(2);
    out.stderr_has("must be a JSON object");
    let out = ctx.run(&["--json", "policy", "check", "Bash", "nope"]);
    out.failure(2);
    assert_eq!(out.json()["error"]["code"], "usage", "{out}");
    let out = check(&ctx, &["Bash", "--mode", "yolo"]);
    out.failure(2);
    let out = check(&ctx, &["Bash", "--cwd", "does/not/exist"]);
    out.failure(3);
    out.stderr_has("no such directory");
}

#[test]
fn checking_a_command_never_runs_it() {
    let ctx = TestContext::new();
    let canary = ctx.base().join("canary");
    for command in [
        format!("touch {}", canary.display()),
        format!("echo $(touch {})", canary.display()),
        format!("bash -lc 'touch {}'", canary.display()),
    ] {
        let args = json!({ "command": command }).to_string();
        check(&ctx, &["Bash", &args, "--mode", "acceptCalls"]).success();
    }
    assert!(!canary.exists());
}

/// Issue 13, 10: a FIFO at a state path is refused at once, named, instead of hanging finch.
#[cfg(unix)]
#[test]
fn a_fifo_at_a_state_path_is_refused_without_hanging() {
    let ctx = TestContext::new();
    let dir = ctx.work.join(".finch");
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("permissions.json");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    let out = Run(ctx
        .cmd()
        .args(["policy", "check", "Bash", r#"{"command":"ls"}"#])
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .unwrap());
    assert_ne!(out.0.status.code(), None, "finch hung on the FIFO: {out}");
    assert_ne!(out.0.status.code(), Some(0), "{out}");
    out.stderr_has("named pipe (FIFO), not a regular file");
    out.stderr_has("permissions.json");
}

/// `policy check` takes key=value pairs as `tool call` does, typed by the tool's schema: the
/// same verdict as the JSON object.
#[test]
fn check_takes_key_value_pairs_as_tool_call_does() {
    let ctx = TestContext::new();
    for (kv, json) in [
        (&["command=ls -la"][..], r#"{"command":"ls -la"}"#),
        (&["command=rm -rf x"][..], r#"{"command":"rm -rf x"}"#),
        (
            &["file_path=a.txt", "limit=2"][..],
            r#"{"file_path":"a.txt","limit":2}"#,
        ),
    ] {
        let tool = if kv[0].starts_with("command") {
            "Bash"
        } else {
            "Read"
        };
        let mut args = vec!["--json", "policy", "check", tool];
        args.extend_from_slice(kv);
        let by_pairs = ctx.run(&args);
        by_pairs.success();
        let by_json = ctx.run(&["--json", "policy", "check", tool, json]);
        by_json.success();
        assert_eq!(by_pairs.json(), by_json.json(), "{kv:?}");
    }
    ctx.run(&["policy", "check", "Bash", "command=ls", "nokey"])
        .failure(2)
        .stderr_has("`nokey` is not key=value");
}
