//! The mini tool runtime (SPEC §9.1) end to end: real `node` running the real ES module mini
//! tools of `tests/it/fixtures/minitools/`, installed with `finch add` + `finch enable` (or
//! loaded with `--minitool`), called with `finch tool call`, `finch run --jsonl` and on a
//! pseudo-terminal. Every member of `MiniToolContext` as finch.d.ts declares it (`contract.mjs`
//! touches each in `activate()` and checks its sync/async shape; `ctx_demo.mjs` uses each in
//! tool calls): dialogs with and without a person, contributions finch cannot show, storage
//! across calls, capabilities between two mini tools, the host's `mcp.client` against a real
//! MCP server, sessions through a real agent command. And every fault: a throwing (after
//! registering tools) or never-settling `activate`, a floating rejection, a crash mid-call, a
//! call past its timeout, garbage on stdout and on the channel, a mini tool that exits, and a
//! host killed with SIGKILL (no orphans).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::fixtures::MiniTool;
use crate::common::{Run, TestContext};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/fixtures/minitools");

/// Timeouts short enough that every fault shows within a second or two.
const FAST: &str = "[runtime]\nactivate_timeout = \"1500ms\"\ncall_timeout_min = \"100ms\"\nrestart_backoff = \"400ms\"\nshutdown_timeout = \"2s\"\n";

fn source(name: &str) -> String {
    std::fs::read_to_string(Path::new(FIXTURES).join(name))
        .unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// A package whose `dist/index.js` is the fixture `entry`.
fn package(id: &str, entry: &str) -> MiniTool {
    MiniTool::new(id, "1.0.0").entry_source(&source(entry))
}

/// The `ctx` demo: secrets, settings, contributions, i18n, a capability it requires.
fn ctx_demo() -> MiniTool {
    package("ctx-demo", "ctx_demo.mjs")
        .display_name("Ctx Demo")
        .finch_field(
            "permissions",
            json!({"secrets": ["api.*", "token"], "sessions": true}),
        )
        .finch_field(
            "settings",
            json!({"fields": [
                {"key": "unit", "type": "select", "label": "Unit", "default": "metric"},
                {"key": "count", "type": "number", "label": "Count", "default": 3},
            ]}),
        )
        .finch_field(
            "contributes",
            json!({"tools": true, "agentProfiles": [{"id": "helper", "prompt": "Be helpful"}]}),
        )
        .finch_field("requires", json!({"capabilities": ["mcp.client"]}))
        .file(
            "i18n/en-US.json",
            r#"{"greeting": "Hello, {name}!", "menu": {"open": "Open"}}"#,
        )
        .file("i18n/fr-FR.json", r#"{"greeting": "Bonjour, {name} !"}"#)
}

/// Writes the package outside the homes, then `finch add` + `finch enable`.
fn install(ctx: &TestContext, pkg: &MiniTool) -> PathBuf {
    let id = pkg.package_json()["name"]
        .as_str()
        .expect("package name")
        .to_string();
    let dir = ctx.base().join("src").join(&id);
    pkg.write_to(&dir);
    ctx.run(&["add", &dir.display().to_string()]).success();
    ctx.run(&["enable", &id]).success();
    ctx.personal_tier().join(id)
}

/// `finch tool call <tool> <json> --json --approve <tool>`.
fn call(ctx: &TestContext, tool: &str, args: Value) -> Run {
    ctx.run(&[
        "tool",
        "call",
        tool,
        &args.to_string(),
        "--json",
        "--approve",
        tool,
    ])
}

fn log_of(ctx: &TestContext, id: &str) -> String {
    std::fs::read_to_string(ctx.runtime.join(format!("logs/minitools/{id}.log")))
        .unwrap_or_default()
}

fn text_of(record: &Value) -> String {
    record["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn alive(pid: u64) -> bool {
    // A zombie is gone for our purpose: it runs nothing and holds nothing but its entry.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

#[track_caller]
fn wait_gone(pid: u64) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(pid) {
        assert!(Instant::now() < deadline, "process {pid} still runs");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The host pid of the mini tool that answered `record` (it runs in a PID namespace of its
/// own, so the pid it knows itself by names another process here).
fn pid_of(record: &Value) -> u64 {
    let reported = &record["structuredContent"];
    let (Some(pid), Some(ns)) = (reported["pid"].as_u64(), reported["ns"].as_str()) else {
        panic!("no pid in {record}");
    };
    crate::common::procs::host_pid(pid, ns)
        .unwrap_or_else(|| panic!("no process {pid} in {ns} on the host: {record}"))
}

#[test]
fn every_ctx_member_is_there_through_tool_call() {
    let ctx = TestContext::new();
    ctx.write_config(&format!("{FAST}locale = \"fr-FR\"\n"));
    let installed = install(&ctx, &ctx_demo());
    // The app keeps each mini tool's setting values in its extensions.json record.
    let state_path = ctx.runtime.join("extensions.json");
    let mut state = ctx.read_json(&state_path);
    state["extensions"]["ctx-demo"]["settings"] =
        json!({"unit": "imperial", "saveOnDeactivate": true});
    std::fs::write(&state_path, state.to_string()).unwrap();

    let out = call(&ctx, "ctx-demo_probe", json!({"name": "Ada"}));
    out.success();
    let record = out.json();
    let probe = &record["structuredContent"];
    assert_eq!(
        probe["minitool"],
        json!({"id": "ctx-demo", "displayName": "Ctx Demo", "version": "1.0.0",
               "extensionPath": installed})
    );
    assert_eq!(probe["extensionIsMinitool"], true);
    let storage_path = ctx.runtime.join("extension-data/ctx-demo");
    assert_eq!(probe["storagePath"], json!(storage_path));
    assert!(storage_path.is_dir());
    assert_eq!(
        probe["settings"],
        json!({"unit": "imperial", "count": 3, "saveOnDeactivate": true})
    );
    assert_eq!(
        (&probe["unit"], &probe["fallback"]),
        (&json!("imperial"), &json!("dflt"))
    );
    assert_eq!(
        probe["i18n"],
        json!({"locale": "fr-FR", "greeting": "Bonjour, Ada !", "nested": "Open",
               "hasGreeting": true, "hasNope": false, "missing": "nope"})
    );
    assert_eq!(probe["appIsPromise"], true);
    let app = &probe["app"];
    assert_eq!(
        (&app["name"], &app["headless"]),
        (&json!("finch"), &json!(true))
    );
    assert_eq!(app["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(app["runtimeHome"], json!(ctx.runtime));
    let exec = &probe["exec"];
    assert!(
        exec["toolCallId"].as_str().unwrap().starts_with("call_"),
        "{exec}"
    );
    assert_eq!(exec["aborted"], false);
    assert_eq!(
        (&exec["storageIsCtx"], &exec["secretsIsCtx"]),
        (&json!(true), &json!(true))
    );
    assert_eq!(exec["cwd"], json!(ctx.work));
    assert_eq!(probe["session"]["id"], exec["sessionId"]);
    assert_eq!(probe["session"]["cwd"], json!(ctx.work));
    assert_eq!(probe["workspace"]["cwd"], json!(ctx.work));
    // listContributions is synchronous and gives MiniToolContribution records (finch.d.ts).
    assert_eq!(probe["contributionsIsArray"], true);
    let contribution = json!([{"extensionId": "ctx-demo", "extensionName": "Ctx Demo",
                               "extensionPath": installed, "source": "personal",
                               "value": {"id": "helper", "prompt": "Be helpful"}}]);
    assert_eq!(probe["contributions"], contribution);
    assert_eq!(probe["aliasContributions"], contribution);
    assert_eq!(probe["noContributions"], json!([]));
    assert_eq!(probe["minitools"][0]["id"], "ctx-demo");
    assert_eq!(probe["minitools"][0]["active"], true);
    // capabilities.has is synchronous: a boolean, not a promise.
    assert_eq!(probe["hasMcpClient"], true);
    assert_eq!(probe["mcpClientVersion"], env!("CARGO_PKG_VERSION"));
    assert_eq!(probe["commands"], true);
    assert_eq!(probe["subscriptions"], true);

    // The session id the mini tool saw is the transcript's.
    let transcript = ctx.transcripts().pop().expect("a transcript");
    assert!(
        transcript
            .display()
            .to_string()
            .contains(exec["sessionId"].as_str().unwrap())
    );
    assert_eq!(ctx.tool_calls(&transcript)[0]["tool"], "ctx-demo_probe");

    // Its logger, console and exec.logger wrote to its log; deactivate and the subscriptions
    // ran when the host ended.
    let log = log_of(&ctx, "ctx-demo");
    for needle in [
        "[info] activated ctx-demo",
        "console.log goes to the log file",
        "[info] probe: probe called",
        "deactivate ran",
        "[info] disposed a subscription",
    ] {
        assert!(log.contains(needle), "log lacks {needle:?}:\n{log}");
    }
    let order = |n: &str| log.find(n).unwrap();
    assert!(
        order("deactivate ran") < order("disposed a subscription"),
        "{log}"
    );
    // deactivate() still reached the host's storage while the host shut down.
    let stored = ctx.read_json(&storage_path.join("storage.json"));
    assert_eq!(stored, json!({"deactivated": true}));
}

#[test]
fn storage_persists_in_extension_data_across_runs() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &ctx_demo());
    let mut live = ctx.live_run(&["--approve", "ctx-demo_storage"]);
    let set = |live: &mut crate::common::LiveRun, key: &str, value: Value| {
        let r = live.call(
            "ctx-demo_storage",
            json!({"op": "set", "key": key, "value": value}),
        );
        assert_eq!(r["isError"], false, "{r}");
    };
    set(&mut live, "b", json!({"n": [1, 2]}));
    set(&mut live, "a", json!("x"));
    let keys = live.call("ctx-demo_storage", json!({"op": "keys"}));
    assert_eq!(keys["structuredContent"], json!({"keys": ["b", "a"]}));
    let (code, stderr) = live.finish();
    assert_eq!(code, 0, "{stderr}");

    let file = ctx.runtime.join("extension-data/ctx-demo/storage.json");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "{\n  \"b\": {\n    \"n\": [\n      1,\n      2\n    ]\n  },\n  \"a\": \"x\"\n}\n"
    );
    let got = call(&ctx, "ctx-demo_storage", json!({"op": "get", "key": "b"}));
    assert_eq!(
        got.json()["structuredContent"],
        json!({"value": {"n": [1, 2]}})
    );
    let missing = call(&ctx, "ctx-demo_storage", json!({"op": "get", "key": "zz"}));
    assert_eq!(
        missing.json()["structuredContent"],
        json!({"value": "absent"})
    );
    let deleted = call(
        &ctx,
        "ctx-demo_storage",
        json!({"op": "delete", "key": "b"}),
    );
    assert_eq!(
        deleted.json()["structuredContent"],
        json!({"deleted": true})
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "{\n  \"a\": \"x\"\n}\n"
    );
    call(&ctx, "ctx-demo_storage", json!({"op": "clear"})).success();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{}\n");

    // A corrupt storage file is named, never replaced.
    std::fs::write(&file, "{oops").unwrap();
    let out = call(
        &ctx,
        "ctx-demo_storage",
        json!({"op": "set", "key": "k", "value": 1}),
    );
    out.failure(1);
    assert!(
        out.stderr().contains("storage.json is not valid JSON"),
        "{out}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{oops");
}

#[test]
fn secrets_outside_permissions_secrets_are_refused() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &ctx_demo());
    for key in ["other", "api", "apix.key", "tokens"] {
        let out = call(&ctx, "ctx-demo_secret", json!({"op": "get", "key": key}));
        out.failure(1).stderr_has(&format!(
            "secrets.get(\"{key}\"): the key is not in the manifest's permissions.secrets (it declares api.*, token)"
        ));
    }
}

#[test]
fn secrets_without_a_keyring_fail_clearly_and_never_touch_a_file() {
    let ctx = TestContext::new();
    install(&ctx, &ctx_demo());
    // The sealed environment has no D-Bus session bus: the Secret Service cannot open.
    ctx.write_config(&format!("{FAST}keyring = \"secret-service\"\n"));
    let value = "plaintext-never-written-9f2c";
    let out = call(
        &ctx,
        "ctx-demo_secret",
        json!({"op": "set", "key": "api.key", "value": value}),
    );
    out.failure(1)
        .stderr_has("no OS keyring is available (Secret Service: ")
        .stderr_has("finch never keeps secrets in plain files");
    let get = call(
        &ctx,
        "ctx-demo_secret",
        json!({"op": "get", "key": "token"}),
    );
    get.failure(1).stderr_has("no OS keyring is available");
    ctx.write_config(&format!("{FAST}keyring = \"none\"\n"));
    call(
        &ctx,
        "ctx-demo_secret",
        json!({"op": "get", "key": "token"}),
    )
    .failure(1)
    .stderr_has("secrets are turned off: finch.toml sets [runtime] keyring = \"none\"");
    for dir in ["extension-data", "logs", "cache"] {
        assert_not_stored(&ctx.runtime.join(dir), value);
    }
}

/// No file under `dir` holds `secret`.
#[track_caller]
fn assert_not_stored(dir: &Path, secret: &str) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for item in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = item.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                let text = String::from_utf8_lossy(&bytes);
                assert!(
                    !text.contains(secret),
                    "{} holds the secret",
                    path.display()
                );
            }
        }
    }
}

/// On Linux without a Secret Service (the sealed environment has no D-Bus), `auto` falls back
/// to the kernel keyutils store: a real round trip across processes.
#[cfg(target_os = "linux")]
#[test]
fn secrets_round_trip_through_the_kernel_keyring() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &ctx_demo());
    // Keys of the user's keyring outlive the test: make this one unique, and delete it.
    let nonce = ctx
        .base()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .replace(|c: char| !c.is_ascii_alphanumeric(), "");
    let key = format!("api.test{nonce}");
    let value = format!("s3cret-{nonce}");
    let set = call(
        &ctx,
        "ctx-demo_secret",
        json!({"op": "set", "key": key, "value": value}),
    );
    set.success();
    let got = call(&ctx, "ctx-demo_secret", json!({"op": "get", "key": key}));
    assert_eq!(got.json()["structuredContent"], json!({"value": value}));
    let deleted = call(&ctx, "ctx-demo_secret", json!({"op": "delete", "key": key}));
    assert_eq!(
        deleted.json()["structuredContent"],
        json!({"deleted": true})
    );
    let gone = call(&ctx, "ctx-demo_secret", json!({"op": "get", "key": key}));
    assert_eq!(gone.json()["structuredContent"], json!({"value": null}));
    for dir in ["extension-data", "logs", "cache"] {
        assert_not_stored(&ctx.runtime.join(dir), &value);
    }
}

#[test]
fn progress_and_notices_show_on_stderr_under_run_jsonl() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &ctx_demo());
    let (responses, out) = ctx.jsonl(
        &["--approve", "ctx-demo_progress"],
        &[json!({"id": 1, "tool": "ctx-demo_progress", "arguments": {}})],
    );
    out.success();
    // The call's progress comes as JSON lines before its response (docs/json.md).
    let (progress, responses): (Vec<&Value>, Vec<&Value>) =
        responses.iter().partition(|l| l.get("progress").is_some());
    assert_eq!(text_of(responses[0]), "finished");
    let messages: Vec<&str> = progress
        .iter()
        .filter_map(|l| l["progress"]["message"].as_str())
        .collect();
    assert!(
        messages.starts_with(&["starting", "halfway"]),
        "{progress:?}"
    );
    assert!(progress.iter().all(|l| l["id"] == 1), "{progress:?}");
    let stderr = out.stderr();
    for needle in [
        "[Ctx Demo] success: all done: 3 files",
        "[Ctx Demo] warning: a notice",
        "[Ctx Demo] error: an old-style message",
    ] {
        assert!(stderr.contains(needle), "stderr lacks {needle:?}:\n{out}");
    }
}

/// Calls sent back to back read their own answers (the reader thread parks between them, see
/// `rpc` in the runtime): whatever the mini tool sends during such a call — progress, storage
/// requests, a dialog — is still handled, in order, and every call gets its own answer.
#[test]
fn a_burst_of_calls_still_gets_its_progress_storage_and_dialogs_in_order() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &ctx_demo());
    let mut requests = Vec::new();
    for i in 0..10 {
        let id = 3 * i;
        requests.push(json!({"id": id + 1, "tool": "ctx-demo_progress", "arguments": {}}));
        requests.push(json!({"id": id + 2, "tool": "ctx-demo_storage",
                             "arguments": {"op": "set", "key": format!("k{i}"), "value": i}}));
        requests.push(json!({"id": id + 3, "tool": "ctx-demo_ask", "arguments": {}}));
    }
    requests.push(json!({"id": 31, "tool": "ctx-demo_storage", "arguments": {"op": "keys"}}));
    let approve = [
        "--approve",
        "ctx-demo_progress",
        "--approve",
        "ctx-demo_storage",
        "--approve",
        "ctx-demo_ask",
    ];
    let (lines, out) = ctx.jsonl(&approve, &requests);
    out.success();

    let mut answered = Vec::new();
    let mut progress_of: Vec<i64> = Vec::new();
    for line in &lines {
        let id = line["id"].as_i64().expect("every line names its request");
        if line.get("progress").is_some() {
            assert!(!answered.contains(&id), "progress after its answer: {line}");
            progress_of.push(id);
            continue;
        }
        assert_eq!(line["isError"], false, "{line}");
        answered.push(id);
        match (id - 1) % 3 {
            0 if id < 31 => {
                assert_eq!(text_of(line), "finished");
                let seen = progress_of.iter().filter(|&&p| p == id).count();
                assert!(seen >= 2, "call {id} answered after {seen} progress lines");
            }
            2 => assert_eq!(
                line["structuredContent"],
                json!({"confirmed": false, "reason": "background"}),
                "{line}"
            ),
            _ => {}
        }
    }
    assert_eq!(answered, (1..=31).collect::<Vec<i64>>());
    let keys: Vec<String> = (0..10).map(|i| format!("k{i}")).collect();
    assert_eq!(
        lines.last().unwrap()["structuredContent"],
        json!({"keys": keys})
    );
}

#[test]
fn dialogs_with_nobody_to_ask_answer_cancelled_and_say_so_and_ui_surfaces_are_recorded() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &ctx_demo());
    let cases = [
        (
            "ctx-demo_ask",
            json!({"confirmed": false, "reason": "background"}),
            "ui.showConfirmDialog \"Really?\" got no answer (nobody to ask in this run",
        ),
        (
            "ctx-demo_form",
            json!({"submitted": false, "values": {}, "reason": "background"}),
            "ui.requestForm \"Profile\" got no answer (nobody to ask in this run",
        ),
        (
            "ctx-demo_modal",
            json!({"closable": true, "action": "dismissed", "reason": "background"}),
            "ui.showModalDialog \"API key\" got no answer (nobody to ask in this run",
        ),
    ];
    for (tool, result, notice) in cases {
        let out = call(&ctx, tool, json!({}));
        out.success();
        assert_eq!(out.json()["structuredContent"], result, "{out}");
        out.stderr_has(&format!("[Ctx Demo] warning: {notice}"));
        assert!(log_of(&ctx, "ctx-demo").contains(notice));
    }
    // close(action) settles a modal's handle as that action.
    let closed = call(&ctx, "ctx-demo_closed_modal", json!({}));
    closed.success();
    assert_eq!(
        closed.json()["structuredContent"]["action"],
        "timeout-action",
        "{closed}"
    );
    let out = call(&ctx, "ctx-demo_surfaces", json!({}));
    out.success();
    let surfaces = &out.json()["structuredContent"];
    assert_eq!(surfaces["accepted"], 6);
    assert_eq!(surfaces["panelVisible"], false);
    assert_eq!(
        surfaces["legacyConfirm"],
        "ctx.ui.confirm is not part of finch.d.ts: finch recorded the call and has no answer for it"
    );
    assert!(
        surfaces["canvasReady"]
            .as_str()
            .unwrap()
            .contains("ctx.ui.createCanvasWindow: finch is a headless host"),
        "{surfaces}"
    );
    let log = log_of(&ctx, "ctx-demo");
    for kind in [
        "ui.createPanel(side-panel)",
        "ui.createCanvasWindow(dist/pet.js)",
        "ui.onDidOpenPanel()",
        "composerActions.register(insert)",
        "settingsMenu.register()",
        "sessionContainers.registerSettingsMenu(inbox)",
        "icons.register(logo)",
        "ui.registerPanel(legacy-panel)",
        "ui.delivery(3 changes)",
        "ui.openFilePreview(/tmp/README.md)",
        "ui.confirm(old API)",
    ] {
        assert!(
            log.contains(&format!("finch: {kind} is not shown by this headless host")),
            "log lacks {kind}:\n{log}"
        );
    }
}

#[test]
fn oauth_navigation_browser_and_sessions_without_an_agent_reject_clearly() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &ctx_demo());
    let out = call(&ctx, "ctx-demo_refused", json!({}));
    out.success();
    let r = &out.json()["structuredContent"];
    for label in ["oauth", "oauthRequest", "navigation", "browser", "sessions"] {
        assert_eq!(r[format!("{label}IsPromise")], true, "{r}");
    }
    let has = |label: &str, needle: &str| {
        let text = r[label].as_str().unwrap_or_default();
        assert!(text.contains(needle), "{label}: {text}");
    };
    has(
        "oauth",
        "ctx.oauth.connect: finch is a headless host: there is no Finch app window to do this in",
    );
    has(
        "oauthRequest",
        "ctx.oauth.request: finch is a headless host",
    );
    has(
        "navigation",
        "ctx.navigation.openSession: finch is a headless host",
    );
    has("browser", "ctx.browser.open: finch is a headless host");
    has(
        "sessions",
        "ctx.sessions needs an agent to run turns, and none is configured: set [agent] command",
    );
    has("sessions", "finch.toml");
}

#[test]
fn tool_results_errors_and_timeouts_that_honour_the_signal() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &ctx_demo());
    let approve = [
        "--approve",
        "ctx-demo_fails",
        "--approve",
        "ctx-demo_shaped",
        "--approve",
        "ctx-demo_patient",
        "--approve",
        "ctx-demo_storage",
    ];
    let mut live = ctx.live_run(&approve);
    let failed = live.call("ctx-demo_fails", json!({}));
    assert_eq!(failed["failure"], "toolError");
    assert_eq!(
        text_of(&failed),
        "`ctx-demo_fails` failed: the tool itself failed"
    );
    // Dynamic: not active until ToolSearch finds it.
    let inactive = live.call("ctx-demo_shaped", json!({}));
    assert_eq!(inactive["failure"], "notActive");
    let search = live.call("ToolSearch", json!({"query": "MCP-shaped content"}));
    assert_eq!(search["isError"], false, "{search}");
    let shaped = live.call("ctx-demo_shaped", json!({}));
    assert_eq!(
        shaped["content"],
        json!([{"type": "text", "text": "line one"},
               {"type": "image", "data": "aGk=", "mimeType": "image/png"}])
    );
    assert_eq!(shaped["structuredContent"], json!({"n": 1}));
    // timeoutMs 300: the signal aborts, the tool settles, and the process keeps running.
    let started = Instant::now();
    let patient = live.call("ctx-demo_patient", json!({}));
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(
        text_of(&patient),
        "`ctx-demo_patient` timed out after 300 ms; its signal was aborted and it stopped."
    );
    let after = live.call("ctx-demo_storage", json!({"op": "keys"}));
    assert_eq!(after["isError"], false, "{after}");
    let (code, stderr) = live.finish();
    assert_eq!(code, 1, "some calls failed: {stderr}");
    assert!(!stderr.contains("warning: mini tool"), "{stderr}");
    let log = log_of(&ctx, "ctx-demo");
    assert!(
        log.contains("[warn] patient: aborted: timed out after 300 ms"),
        "{log}"
    );
    assert_eq!(
        log.matches("finch 0.1.0: starting ctx-demo").count(),
        1,
        "{log}"
    );
}

#[test]
fn capabilities_pass_between_mini_tools_through_the_host() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(
        &ctx,
        &package("cap-provider", "cap_provider.mjs").finch_field(
            "provides",
            json!({"capabilities": ["acme.math", "mcp.client"]}),
        ),
    );
    install(
        &ctx,
        &package("cap-consumer", "cap_consumer.mjs").finch_field(
            "requires",
            json!({"capabilities": ["acme.math", "acme.missing", "mcp.client"]}),
        ),
    );
    let sum = call(&ctx, "cap-consumer_sum", json!({"a": 2, "b": 3}));
    sum.success();
    assert_eq!(
        sum.json()["structuredContent"],
        json!({"sum": 5, "provider": "cap-provider", "has": true})
    );
    let log = log_of(&ctx, "cap-consumer");
    for needle in [
        "has acme.math during activate: true (boolean)",
        "add during activate: 42",
        "acme.math version: 1.2.0",
    ] {
        assert!(log.contains(needle), "log lacks {needle:?}:\n{log}");
    }
    let refusals = call(&ctx, "cap-consumer_refusals", json!({}));
    refusals.success();
    let r = &refusals.json()["structuredContent"];
    assert!(
        r["undeclaredGet"]
            .as_str()
            .unwrap()
            .contains("capabilities.get(\"acme.other\"): declare it in the manifest's requires.capabilities first"),
        "{r}"
    );
    assert!(
        r["missingProvider"]
            .as_str()
            .unwrap()
            .contains("no running mini tool provides the capability \"acme.missing\""),
        "{r}"
    );
    assert!(
        r["undeclaredProvide"]
            .as_str()
            .unwrap()
            .contains("declare it in the manifest's provides.capabilities first"),
        "{r}"
    );
    assert_eq!(
        (&r["hasUndeclared"], &r["hasMissing"]),
        (&json!(false), &json!(false))
    );

    let mcp = call(&ctx, "cap-consumer_mcp", json!({}));
    mcp.success();
    let m = &mcp.json()["structuredContent"];
    // The official MCP Client's shapes: {ok, error?}, and server names.
    assert_eq!(m["stdio"], json!({"ok": true, "name": "local_files"}));
    assert_eq!(m["http"], json!({"ok": true, "name": "remote"}));
    assert_eq!(m["bad"]["ok"], false, "{m}");
    assert!(
        m["bad"]["error"]
            .as_str()
            .unwrap()
            .contains("either \"command\""),
        "{m}"
    );
    assert_eq!(m["servers"], json!(["Local Files", "remote"]));
    assert!(
        log_of(&ctx, "cap-provider")
            .contains("capabilities.provide(\"mcp.client\") is accepted and not used"),
        "{}",
        log_of(&ctx, "cap-provider")
    );
    // Registered during a call: they connect when the host reloads.
    assert_eq!(
        m["statuses"][0],
        json!({"name": "Local Files", "status": "pending", "toolCount": 0,
               "ownerExtensionId": "cap-consumer", "qualifiedName": "local_files"})
    );
}

#[test]
fn a_throwing_or_never_settling_activate_is_reported_and_the_others_work() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &package("throws", "throws.mjs"));
    install(&ctx, &package("never", "never.mjs"));
    install(&ctx, &package("crashy", "crashy.mjs"));
    let started = Instant::now();
    let (responses, out) = ctx.jsonl(
        &["--approve", "crashy_pid"],
        &[json!({"id": 1, "tool": "crashy_pid", "arguments": {}})],
    );
    out.success();
    // Activation is parallel: the 1.5 s activate timeout is paid once.
    assert!(started.elapsed() < Duration::from_secs(5), "{out}");
    assert_eq!(responses[0]["isError"], false, "{out}");
    let logs = ctx.runtime.join("logs/minitools");
    out.stderr_has(&format!(
        "warning: ✖ throws failed: activate() failed: boom in activate (log: {})",
        logs.join("throws.log").display()
    ))
    .stderr_has(&format!(
        "warning: ✖ never failed: activate() did not settle within 1.5 s (log: {})",
        logs.join("never.log").display()
    ));
    let log = log_of(&ctx, "throws");
    assert!(
        log.contains("[error] activate failed: Error: boom in activate"),
        "{log}"
    );
    assert!(
        log.contains("throws.mjs") || log.contains("index.js"),
        "{log}"
    );
}

#[test]
fn a_crash_mid_call_is_reported_and_the_next_call_restarts_after_the_backoff() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &package("crashy", "crashy.mjs"));
    install(&ctx, &package("quitter", "quitter.mjs"));
    let mut live = ctx.live_run(&[
        "--approve",
        "crashy_pid",
        "--approve",
        "crashy_crash",
        "--approve",
        "quitter_pid",
    ]);
    let first = pid_of(&live.call("crashy_pid", json!({})));
    let other = pid_of(&live.call("quitter_pid", json!({})));
    let crashed = live.call("crashy_crash", json!({}));
    assert_eq!(crashed["failure"], "toolError");
    let text = text_of(&crashed);
    let log = ctx.runtime.join("logs/minitools/crashy.log");
    for needle in [
        "mini tool \"crashy\" exited with code 3 (pid ".to_string(),
        "it was stopped and restarts on a later call (after a 400 ms backoff)".to_string(),
        "Last lines of its log:\n  about to crash".to_string(),
        format!("Log: {}", log.display()),
    ] {
        assert!(text.contains(&needle), "{needle:?} not in {text}");
    }
    wait_gone(first);
    // Within the backoff: refused at once, saying when to retry.
    let early = live.call("crashy_pid", json!({}));
    assert!(
        text_of(&early).contains("mini tool \"crashy\" is stopped (exited with code 3). It restarts on a call after a backoff: try again in"),
        "{early}"
    );
    // The other mini tool never noticed.
    assert_eq!(pid_of(&live.call("quitter_pid", json!({}))), other);
    std::thread::sleep(Duration::from_millis(450));
    let restarted = pid_of(&live.call("crashy_pid", json!({})));
    assert_ne!(restarted, first);
    let (code, stderr) = live.finish();
    assert_eq!(code, 1, "the crashed calls failed: {stderr}");
    assert!(
        stderr.contains(&format!(
            "warning: mini tool crashy exited with code 3; it was stopped (log: {})",
            log.display()
        )),
        "{stderr}"
    );
    wait_gone(restarted);
}

#[test]
fn a_call_past_its_timeout_stops_the_tool_and_the_others_keep_working() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &package("hang", "hang.mjs"));
    install(&ctx, &package("crashy", "crashy.mjs"));
    let mut live = ctx.live_run(&[
        "--approve",
        "hang_spin",
        "--approve",
        "hang_pid",
        "--approve",
        "crashy_pid",
    ]);
    let hung = pid_of(&live.call("hang_pid", json!({})));
    let started = Instant::now();
    let spin = live.call("hang_spin", json!({}));
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(
        text_of(&spin),
        format!(
            "mini tool \"hang\" did not finish `hang_spin` within 200 ms and ignored its abort signal; it was stopped, and restarts on a later call. Log: {}",
            ctx.runtime.join("logs/minitools/hang.log").display()
        )
    );
    wait_gone(hung);
    assert_eq!(live.call("crashy_pid", json!({}))["isError"], false);
    std::thread::sleep(Duration::from_millis(450));
    assert_ne!(pid_of(&live.call("hang_pid", json!({}))), hung);
    let (code, stderr) = live.finish();
    assert_eq!(code, 1, "the timed-out call failed: {stderr}");
    assert!(
        stderr.contains("warning: mini tool hang did not finish `hang_spin` within 200 ms and ignored its abort signal; it was stopped"),
        "{stderr}"
    );
}

#[test]
fn garbage_on_stdout_is_harmless_and_garbage_on_the_channel_stops_the_tool() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &package("noisy", "noisy.mjs"));
    install(&ctx, &package("crashy", "crashy.mjs"));
    let mut live = ctx.live_run(&[
        "--approve",
        "noisy_hello",
        "--approve",
        "noisy_corrupt",
        "--approve",
        "crashy_pid",
    ]);
    for _ in 0..2 {
        assert_eq!(text_of(&live.call("noisy_hello", json!({}))), "still fine");
    }
    let corrupt = live.call("noisy_corrupt", json!({}));
    assert!(
        text_of(&corrupt).contains(
            "mini tool \"noisy\" wrote something that is not JSON-RPC on its channel (this is not JSON-RPC)"
        ),
        "{corrupt}"
    );
    assert_eq!(live.call("crashy_pid", json!({}))["isError"], false);
    let (code, stderr) = live.finish();
    assert_eq!(code, 1, "the stopped tool's call failed: {stderr}");
    assert!(
        stderr.contains(
            "warning: mini tool noisy wrote something that is not JSON-RPC on its channel"
        ),
        "{stderr}"
    );
    let log = log_of(&ctx, "noisy");
    for needle in [
        "{not json at all",
        "binary-ish noise",
        "and on stderr too",
        "fake answer on stdout",
    ] {
        assert!(log.contains(needle), "log lacks {needle:?}:\n{log}");
    }
}

#[test]
fn a_mini_tool_that_exits_on_its_own_is_reported_and_restarts() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &package("quitter", "quitter.mjs"));
    let mut live = ctx.live_run(&["--approve", "quitter_pid", "--approve", "quitter_leave"]);
    let first = pid_of(&live.call("quitter_pid", json!({})));
    assert_eq!(text_of(&live.call("quitter_leave", json!({}))), "leaving");
    wait_gone(first);
    // Its reader notices the exit right away; wait out the backoff, then it restarts.
    std::thread::sleep(Duration::from_millis(450));
    let second = pid_of(&live.call("quitter_pid", json!({})));
    assert_ne!(second, first);
    let (code, stderr) = live.finish();
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("warning: mini tool quitter exited with code 0; it was stopped"),
        "{stderr}"
    );
}

#[test]
fn no_mini_tool_outlives_a_host_killed_with_sigkill() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &package("crashy", "crashy.mjs"));
    install(&ctx, &package("hang", "hang.mjs"));
    let mut live = ctx.live_run(&[
        "--approve",
        "crashy_pid",
        "--approve",
        "hang_pid",
        "--approve",
        "hang_spin",
    ]);
    let idle = pid_of(&live.call("crashy_pid", json!({})));
    let spinning = pid_of(&live.call("hang_pid", json!({})));
    // Its event loop is stuck in this call: only the parent-death signal (Linux) or the
    // closed channel can end it.
    live.send("hang_spin", json!({}));
    std::thread::sleep(Duration::from_millis(50));
    // SAFETY: kill only sends a signal to the finch child this test started.
    unsafe {
        libc::kill(live.pid() as libc::pid_t, libc::SIGKILL);
    }
    live.wait();
    wait_gone(idle);
    #[cfg(target_os = "linux")]
    wait_gone(spinning);
    #[cfg(not(target_os = "linux"))]
    let _ = spinning;
}

#[test]
fn minitool_flag_loads_an_uninstalled_directory_for_one_run() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    let dir = ctx.base().join("dev/crashy");
    package("crashy", "crashy.mjs").write_to(&dir);
    let out = ctx.run(&[
        "tool",
        "call",
        "--minitool",
        &dir.display().to_string(),
        "crashy_pid",
        "{}",
        "--approve",
        "crashy_pid",
    ]);
    out.success();
    assert!(out.stdout().contains("\"pid\""), "{out}");
    // Relative to the current directory, in `run --jsonl` too; nothing was installed.
    let (responses, out) = ctx.jsonl(
        &["--minitool", "../dev/crashy", "--approve", "crashy_pid"],
        &[json!({"id": 1, "tool": "crashy_pid", "arguments": {}})],
    );
    out.success();
    assert_eq!(responses[0]["isError"], false, "{out}");
    assert!(!ctx.personal_tier().join("crashy").exists());

    let plain = ctx.base().join("dev/plain");
    std::fs::create_dir_all(&plain).unwrap();
    ctx.run(&[
        "tool",
        "call",
        "--minitool",
        &plain.display().to_string(),
        "Read",
        "{}",
    ])
    .failure(1)
    .stderr_has("no mini tool there (no finch.json, and no package.json with a \"finch\" object)");
    let broken = ctx.base().join("dev/broken");
    package("broken", "crashy.mjs").no_entry().write_to(&broken);
    ctx.run(&[
        "run",
        "--jsonl",
        "--minitool",
        &broken.display().to_string(),
    ])
    .failure(1)
    .stderr_has("not a valid mini tool")
    .stderr_has("entry file not found: dist/index.js (build the mini tool first)")
    .stderr_has(&format!("hint: run `finch doctor {}`", broken.display()));
}

#[test]
fn a_missing_node_fails_each_mini_tool_clearly_and_the_host_still_runs() {
    let ctx = TestContext::new();
    ctx.write_config(&format!("node = \"/nonexistent/node\"\n{FAST}"));
    install(&ctx, &package("crashy", "crashy.mjs"));
    let (responses, out) = ctx.jsonl(
        &[],
        &[json!({"id": 1, "tool": "ToolSearch", "arguments": {"query": "read"}})],
    );
    out.success()
        .stderr_has("warning: ✖ crashy failed: cannot start /nonexistent/node: ");
    assert_eq!(responses[0]["isError"], false);
}

#[test]
fn disabled_mini_tools_are_not_started() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &package("crashy", "crashy.mjs"));
    ctx.run(&["disable", "crashy"]).success();
    call(&ctx, "crashy_pid", json!({})).failure(3);
    assert!(!ctx.runtime.join("logs/minitools/crashy.log").exists());
}

#[test]
fn a_corrupt_extensions_json_starts_no_installed_mini_tool_but_the_host_runs() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &package("crashy", "crashy.mjs"));
    let dir = ctx.base().join("dev/quitter");
    package("quitter", "quitter.mjs").write_to(&dir);
    let state = ctx.runtime.join("extensions.json");
    std::fs::write(&state, "{\"enabled\": [\n").unwrap();
    let (responses, out) = ctx.jsonl(
        &[
            "--minitool",
            &dir.display().to_string(),
            "--approve",
            "quitter_pid",
        ],
        &[
            json!({"id": 1, "tool": "quitter_pid", "arguments": {}}),
            json!({"id": 2, "tool": "crashy_pid", "arguments": {}}),
        ],
    );
    // crashy_pid is not started (no installed mini tool is): its call fails.
    out.failure(1)
        .stderr_has("extensions.json is not valid JSON (line 2")
        .stderr_has("no installed mini tool was started (fix the file by hand, or run `finch doctor --state` to move it aside)");
    assert_eq!(responses[0]["isError"], false, "{out}");
    assert_eq!(responses[1]["failure"], "unknownTool", "{out}");
    assert_eq!(
        std::fs::read_to_string(&state).unwrap(),
        "{\"enabled\": [\n"
    );
}

/// A mini tool that touches every namespace of `MiniToolContext` in `activate()`, the way the
/// published packages do, activates; each member has the sync/async shape finch.d.ts gives it.
#[test]
fn every_namespace_of_the_published_contract_works_in_activate() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(
        &ctx,
        &package("contract", "contract.mjs")
            .finch_field("requires", json!({"capabilities": ["mcp.client"]}))
            .finch_field("permissions", json!({"secrets": ["token"]}))
            .finch_field(
                "contributes",
                json!({"iconPacks": [{"id": "pack"}], "composerActions": [{"id": "plan-mode"}]}),
            ),
    );
    let out = call(&ctx, "contract_shapes", json!({}));
    out.success();
    let shapes = out.json()["structuredContent"].clone();
    let report = shapes.as_object().unwrap();
    let mut wrong: Vec<&String> = report
        .iter()
        .filter(|(k, v)| !k.starts_with("activate") && k.as_str() != "exec" && **v != json!(true))
        .map(|(k, _)| k)
        .collect();
    wrong.sort();
    assert!(wrong.is_empty(), "wrong shapes: {wrong:?} in {shapes}");
    for member in [
        "composerActions.register",
        "settingsMenu.register",
        "sessionContainers.registerSettingsMenu",
        "icons.register",
        "commands",
        "navigation.openSession",
        "browser.open",
        "oauth.connect",
        "i18n.onDidChangeLocale",
        "events.onAgentEvent",
        "status.get",
        "notifications.onDidPost",
        "sessions.create",
        "spaces.list",
        "capabilities.has",
        "capabilities.get",
        "minitools.listContributions",
        "app.getInfo",
        "ui.showToast",
        "ui.showConfirmDialog",
        "ui.showModalDialog",
        "ui.delivery",
        "ui.createPanel",
        "ui.createCanvasWindow",
        "ui.openFilePreview",
        "ui.onDidOpenPanel",
        "ui.notify",
        "ui.showMessage",
    ] {
        assert_eq!(report.get(member), Some(&json!(true)), "{member}: {shapes}");
    }
    // Dialogs in activate(): nobody to ask outside a call, the documented result, and a notice.
    assert_eq!(
        shapes["activateConfirm"],
        json!({"confirmed": false, "reason": "background"})
    );
    assert_eq!(
        shapes["activateModal"],
        json!({"action": "dismissed", "reason": "background"})
    );
    out.stderr_has("ui.showConfirmDialog \"Sign in now?\" was not shown: outside a tool call a headless host has nobody to ask");
    let keys: Vec<&str> = shapes["exec"]["keys"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "cwd",
            "logger",
            "progress",
            "secrets",
            "sessionId",
            "signal",
            "spaceId",
            "storage",
            "toolCallId",
            "ui"
        ]
    );
    // `finch reload` lists what it contributed that finch cannot show.
    let reload = ctx.run(&["reload"]);
    reload.success();
    assert!(
        reload.stdout().contains(
            "✓ contract activated: 1 tool\n  contributes what finch cannot show: composerActions.register(plan-mode), icons.register(pack), settingsMenu.register(), sessionContainers.registerSettingsMenu(inbox), ui.delivery(d), ui.openFilePreview(/tmp/x.md), ui.createPanel(), ui.onDidOpenPanel(), ui.createCanvasWindow(c.js)"
        ),
        "{reload}"
    );
    // `finch tool info` of its tool says so too (from the cache reload wrote).
    let info = ctx.run(&["tool", "info", "contract_shapes"]);
    info.success();
    info.stdout_has("its mini tool contributes what finch cannot show: composerActions.register(plan-mode), icons.register(pack)");
    let json = ctx.run(&["reload", "--json"]).json();
    assert!(
        json["minitools"][0]["notShown"]
            .as_array()
            .is_some_and(|a| a.contains(&json!("ui.onDidOpenPanel()"))),
        "{json}"
    );
    // Nothing in activate() threw or left a floating rejection behind.
    let log = log_of(&ctx, "contract");
    assert!(!log.contains("unhandled rejection"), "{log}");
    assert!(!log.contains("activate failed"), "{log}");
}

#[test]
fn a_floating_rejection_or_uncaught_exception_is_logged_and_the_process_goes_on() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &ctx_demo());
    let mut live = ctx.live_run(&["--approve", "ctx-demo_floating"]);
    let first = live.call("ctx-demo_floating", json!({}));
    assert_eq!(first["isError"], false, "{first}");
    let second = live.call("ctx-demo_floating", json!({}));
    assert_eq!(second["isError"], false, "{second}");
    // The same process answered both calls.
    assert_eq!(pid_of(&first), pid_of(&second));
    let (code, stderr) = live.finish();
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("warning: mini tool"), "{stderr}");
    let log = log_of(&ctx, "ctx-demo");
    for needle in [
        "[error] unhandled rejection (the mini tool keeps running): Error: nobody catches this rejection",
        "[error] uncaught exception (the mini tool keeps running): Error: thrown from a timer",
    ] {
        assert!(log.contains(needle), "log lacks {needle:?}:\n{log}");
    }
    assert_eq!(
        log.matches("finch 0.1.0: starting ctx-demo").count(),
        1,
        "{log}"
    );
}

#[test]
fn a_failed_activation_leaves_no_tools_even_those_registered_before_the_throw() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &package("half", "half_activate.mjs"));
    install(&ctx, &package("crashy", "crashy.mjs"));
    let reload = ctx.run(&["reload", "--json"]);
    let report = reload.json();
    let half = report["minitools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "half")
        .cloned()
        .unwrap_or_else(|| panic!("no half in {report}"));
    assert_eq!(half["status"], "failed", "{report}");
    let catalog = ctx.read_json(&ctx.runtime.join("cache/catalog.json"));
    let text = catalog.to_string();
    assert!(!text.contains("half_early"), "{catalog}");
    assert!(text.contains("crashy_pid"), "{catalog}");
    let out = call(&ctx, "half_early", json!({}));
    assert_ne!(out.code(), 0, "{out}");
    out.stderr_has("half_early");
}

#[test]
fn events_status_and_spaces_deliver_what_the_host_has() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &ctx_demo());
    ctx.run(&["space", "create", "Research"]).success();
    let spaces = call(&ctx, "ctx-demo_spaces", json!({}));
    spaces.success();
    let list = &spaces.json()["structuredContent"]["spaces"];
    assert_eq!(list.as_array().map(Vec::len), Some(1), "{list}");
    assert_eq!(list[0]["name"], "Research");
    assert!(list[0]["id"].is_string(), "{list}");

    let mut live = ctx.live_run(&[
        "--approve",
        "ctx-demo_fails",
        "--approve",
        "ctx-demo_events",
    ]);
    live.call("ctx-demo_fails", json!({}));
    // Calls of every layer are events: a suite's, and a built-in refused by its card.
    live.call("Memory", json!({"action": "list"}));
    live.call("Bash", json!({"command": "touch x"}));
    let seen = live.call("ctx-demo_events", json!({}));
    let (code, stderr) = live.finish();
    assert_eq!(code, 4, "one call was refused: {stderr}");
    let seen = &seen["structuredContent"];
    assert_eq!(
        seen["events"],
        json!([
            {"kind": "tool_use", "toolName": "ctx-demo_fails"},
            {"kind": "tool_result", "toolName": "ctx-demo_fails", "isToolError": true},
            {"kind": "tool_use", "toolName": "Memory"},
            {"kind": "tool_result", "toolName": "Memory", "isToolError": false},
            {"kind": "tool_use", "toolName": "Bash"},
            {"kind": "tool_result", "toolName": "Bash", "isToolError": true},
            {"kind": "tool_use", "toolName": "ctx-demo_events"},
        ])
    );
    assert_eq!(
        seen["statuses"],
        json!([
            "running", "idle", "running", "idle", "running", "idle", "running"
        ])
    );
    assert_eq!(seen["notifications"], json!([]));
    assert_eq!(seen["now"]["status"], "running");
    assert_eq!(seen["now"]["runningCount"], 1);
}

/// The call record `finch tool call --json` printed at the end of a terminal's output.
#[track_caller]
pub(crate) fn record_in(tail: &str) -> Value {
    let start = tail
        .find("\n{")
        .unwrap_or_else(|| panic!("no JSON in {tail}"));
    serde_json::from_str(tail[start..].trim()).unwrap_or_else(|e| panic!("{e}: {tail}"))
}

/// On a terminal, `ui.showConfirmDialog` in a tool call is a question a person answers, after
/// the call's permission card (SPEC §9.1: dialogs become cards on the console).
#[test]
fn a_confirm_dialog_is_asked_on_the_terminal() {
    use crate::cards::{CARD_SHOWN, Pty};
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &ctx_demo());
    let mut pty = Pty::spawn(&ctx, &["tool", "call", "ctx-demo_ask", "{}", "--json"]);
    pty.expect(CARD_SHOWN);
    pty.send("1");
    let question = pty.expect("2) Cancel");
    assert!(
        question.contains("Question: Ctx Demo: Really?"),
        "{question}"
    );
    assert!(question.contains("Delete everything?"), "{question}");
    assert!(question.contains("1) Delete"), "{question}");
    pty.send("1");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    assert_eq!(
        record_in(&tail)["structuredContent"],
        json!({"confirmed": true})
    );
    assert!(!tail.contains("got no answer"), "{tail}");
}

/// `exec.ui.requestForm` on a terminal: one question per field, then Submit or Cancel.
#[test]
fn a_form_is_filled_in_on_the_terminal() {
    use crate::cards::{CARD_SHOWN, Pty};
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &ctx_demo());
    let mut pty = Pty::spawn(&ctx, &["tool", "call", "ctx-demo_form", "{}", "--json"]);
    pty.expect(CARD_SHOWN);
    pty.send("1");
    let field = pty.expect("Other…");
    assert!(field.contains("Profile — Name"), "{field}");
    pty.send("o");
    pty.expect("Your answer");
    pty.send("Ada\r");
    let submit = pty.expect("2) Cancel");
    assert!(submit.contains("1) Submit"), "{submit}");
    pty.send("1");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    assert_eq!(
        record_in(&tail)["structuredContent"],
        json!({"submitted": true, "values": {"name": "Ada"}})
    );
}

/// `mcp.client` of the host is backed by finch's own MCP bridge: a mini tool lists the
/// servers, their statuses and tools, and calls a tool of a real MCP server (the Python SDK's).
#[test]
fn mcp_client_reaches_the_servers_of_finchs_bridge() {
    use crate::mcp_bridge::{python_entry, write_servers};
    let ctx = TestContext::new();
    ctx.write_config(&format!("{FAST}[mcp]\ntimeout = \"8s\"\n"));
    write_servers(
        &ctx,
        &json!({"servers": [python_entry("Echo Server", &[])]}),
    );
    install(
        &ctx,
        &package("cap-consumer", "cap_consumer.mjs")
            .finch_field("requires", json!({"capabilities": ["mcp.client"]})),
    );
    // `callTool` is an MCP tool call of its own: approved here as a person would at its card.
    let out = ctx.run(&[
        "tool",
        "call",
        "cap-consumer_bridge",
        &json!({"server": "Echo Server", "message": "through mcp.client"}).to_string(),
        "--json",
        "--approve",
        "cap-consumer_bridge",
        "--approve",
        "mcp__echo_server__echo",
    ]);
    out.success();
    let r = &out.json()["structuredContent"];
    assert_eq!(r["servers"], json!(["Echo Server"]));
    assert_eq!(r["statuses"][0]["status"], "connected", "{r}");
    assert_eq!(r["statuses"][0]["qualifiedName"], "echo_server", "{r}");
    assert!(r["statuses"][0]["toolCount"].as_u64() > Some(0), "{r}");
    assert!(
        r["tools"].as_array().unwrap().contains(&json!("echo")),
        "{r}"
    );
    assert_eq!(
        r["called"]["content"][0]["text"], "Echo: through mcp.client",
        "{r}"
    );
    assert_eq!(r["connected"], json!({"ok": true}));
    assert_eq!(r["disconnected"], json!({"ok": true}));
    assert!(
        r["unknownServer"]
            .as_str()
            .unwrap()
            .contains("no MCP server named \"nope\""),
        "{r}"
    );
    assert!(
        r["unknownTool"].is_string() || r["unknownTool"]["isError"] == true,
        "{r}"
    );
    assert!(
        r["unknownMethod"]
            .as_str()
            .unwrap()
            .contains("has no method frobnicate (it has registerServer"),
        "{r}"
    );
}

/// With `[agent] command` set, `ctx.sessions` runs turns through it (as schedules do): the
/// agent's output is the turn's output, events reach the listeners and the event log.
#[test]
fn sessions_run_agent_turns_through_the_configured_agent_command() {
    let ctx = TestContext::new();
    ctx.write_config(&format!(
        "[agent]\ncommand = [\"sh\", \"-c\", \"printf 'agent says: %s in %s' \\\"$0\\\" \\\"$1\\\"\", \"{{prompt}}\", \"{{cwd}}\"]\n{FAST}"
    ));
    install(&ctx, &ctx_demo());
    let out = call(&ctx, "ctx-demo_sessions", json!({"text": "hello"}));
    out.success();
    let r = &out.json()["structuredContent"];
    let created = &r["created"];
    assert_eq!(
        created["owner"],
        json!({"type": "minitool", "minitoolId": "ctx-demo"})
    );
    assert_eq!(created["placement"], json!({"type": "chat"}));
    assert_eq!(r["receipt"]["state"], "accepted", "{r}");
    assert_eq!(r["duplicate"], "duplicate", "{r}");
    assert_eq!(r["done"]["state"], "completed", "{r}");
    assert_eq!(
        r["done"]["outputText"],
        format!("agent says: hello in {}", ctx.agent.display()),
        "{r}"
    );
    // The agent's output live (`assistant.delta`, one or more), then the durable events.
    let received: Vec<&str> = r["received"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|t| *t != "assistant.delta")
        .collect();
    assert_eq!(received, ["assistant.message", "turn.completed"], "{r}");
    assert_eq!(r["received"][0], "assistant.delta", "{r}");
    assert_eq!(
        r["events"],
        json!(["assistant.message", "turn.completed"]),
        "{r}"
    );
    assert_eq!((&r["got"], &r["missing"]), (&json!(true), &json!(true)));
    assert_eq!(r["listed"], 1);
    assert_eq!(r["waits"], json!([]));
    assert_eq!(r["respond"]["state"], "not_found");
}

/// `ctx.notifications.onDidPost` hears what finch tells a person about: another mini tool
/// stopped for a fault.
#[test]
fn notifications_tell_of_a_mini_tool_stopped_for_a_fault() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &ctx_demo());
    install(&ctx, &package("crashy", "crashy.mjs"));
    let mut live = ctx.live_run(&["--approve", "crashy_crash", "--approve", "ctx-demo_events"]);
    let crashed = live.call("crashy_crash", json!({}));
    assert_eq!(crashed["isError"], true, "{crashed}");
    let seen = live.call("ctx-demo_events", json!({}));
    let (code, stderr) = live.finish();
    assert_eq!(code, 1, "the crashed call failed: {stderr}");
    let notes = seen["structuredContent"]["notifications"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(notes.len(), 1, "{seen}");
    assert_eq!(notes[0]["kind"], "error");
    assert!(
        notes[0]["title"]
            .as_str()
            .unwrap()
            .starts_with("mini tool crashy "),
        "{seen}"
    );
}

/// Under `finch run --serve mcp`, a mini tool's dialog is asked through MCP elicitation, after
/// the call's permission card (the official Python MCP client answers both).
#[test]
fn a_confirm_dialog_is_asked_through_mcp_elicitation() {
    use crate::serve_mcp::{accept, call as mcp_call, serve};
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &ctx_demo());
    let plan = json!({
        "elicitation": [
            accept(json!({"decision": "allowOnce"})),
            accept(json!({"answer": "Delete"})),
        ],
        "steps": [mcp_call("ctx-demo_ask", json!({}))],
    });
    let report = serve(&ctx, plan, &[]);
    assert_eq!(
        report.result(0)["structuredContent"],
        json!({"confirmed": true}),
        "{}",
        report.0
    );
    let asked = &report.0["elicitations"][1]["message"];
    assert!(
        asked
            .as_str()
            .is_some_and(|m| m.contains("Delete everything?")),
        "{}",
        report.0
    );
}

/// A session made and a turn sent by one `finch tool call` is awaited, read and listed by the
/// next: the turn's agent outlives the process that started it (it waits for a file the test
/// writes only once that process ended), and its result is recorded by whichever finch reads
/// it.
#[test]
fn a_session_started_in_one_tool_call_is_completed_and_read_in_the_next() {
    let ctx = TestContext::new();
    ctx.write_config(&format!(
        "[agent]\ncommand = [\"sh\", \"-c\", \"while [ ! -e go ]; do sleep 0.05; done; printf 'later: %s' \\\"$0\\\"\", \"{{prompt}}\"]\n{FAST}"
    ));
    let tool = MiniTool::new("relay", "1.0.0")
        .finch_field("permissions", json!({"sessions": true}))
        .entry_source(
        r#"export function activate(ctx) {
  ctx.tools.register({
    name: "start",
    description: "Starts a session and sends it a task",
    async execute() {
      const session = await ctx.sessions.create({});
      const receipt = await ctx.sessions.send(session.sessionId, { text: "the task", idempotencyKey: "k1" });
      return { sessionId: session.sessionId, turnId: receipt.turnId, state: receipt.state };
    },
  });
  ctx.tools.register({
    name: "finish",
    description: "Awaits the task and reads the session",
    inputSchema: { type: "object", properties: { sessionId: { type: "string" }, turnId: { type: "string" } } },
    async execute(input) {
      const done = await ctx.sessions.waitForTurn(input.sessionId, input.turnId, { timeoutMs: 30000 });
      const got = await ctx.sessions.get(input.sessionId);
      const events = await ctx.sessions.listEvents({ sessionId: input.sessionId });
      const again = await ctx.sessions.send(input.sessionId, { text: "the task", idempotencyKey: "k1" });
      return { done, got: got && got.sessionId, events: events.events.map((e) => e.type), again: again.state };
    },
  });
}
"#,
    );
    install(&ctx, &tool);
    let first = call(&ctx, "relay_start", json!({}));
    first.success();
    let started = first.json()["structuredContent"].clone();
    assert_eq!(started["state"], "accepted", "{started}");
    // The first finch has ended; its turn's agent still waits for this.
    std::fs::write(ctx.agent.join("go"), "").unwrap();
    let next = call(
        &ctx,
        "relay_finish",
        json!({"sessionId": started["sessionId"], "turnId": started["turnId"]}),
    );
    next.success();
    let r = next.json()["structuredContent"].clone();
    assert_eq!(r["done"]["state"], "completed", "{r}");
    assert_eq!(r["done"]["outputText"], "later: the task", "{r}");
    assert_eq!(r["got"], started["sessionId"], "{r}");
    assert_eq!(
        r["events"],
        json!(["assistant.message", "turn.completed"]),
        "{r}"
    );
    assert_eq!(r["again"], "duplicate", "{r}");
    // Kept under the runtime home, as a state file.
    let state = ctx.runtime.join("minitool-sessions/relay/sessions.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(state).unwrap()).unwrap();
    assert_eq!(doc["sessions"][0]["id"], started["sessionId"]);
}

/// `ctx.events.onInteractionWait` (the public finch-chan subscribes to it in `activate()`):
/// accepted, so the mini tool activates and answers, and recorded as what finch cannot show —
/// `finch reload --json` lists it, `finch doctor` warns about it.
#[test]
fn a_mini_tool_listening_for_interaction_waits_activates_and_is_told_finch_sends_none() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    let tool = MiniTool::new("pet", "1.0.0").entry_source(
        r#"export function activate(ctx) {
  const sub = ctx.events.onInteractionWait(() => {});
  ctx.subscriptions.push(sub);
  ctx.tools.register({
    name: "status",
    description: "Says it is listening",
    async execute() {
      return { listening: typeof sub.dispose === "function" };
    },
  });
}
"#,
    );
    let dir = install(&ctx, &tool);
    let out = call(&ctx, "pet_status", json!({}));
    out.success();
    assert_eq!(out.json()["structuredContent"]["listening"], true, "{out}");
    let json = ctx.run(&["reload", "--json"]).json();
    assert_eq!(json["minitools"][0]["status"], "activated", "{json}");
    assert!(
        json["minitools"][0]["notShown"]
            .as_array()
            .is_some_and(|a| a.contains(&json!("events.onInteractionWait()"))),
        "{json}"
    );
    let doctor = ctx.run(&["doctor", &dir.display().to_string()]);
    doctor.stdout_has(
        "dist/index.js uses ctx.events.onInteractionWait, which finch cannot honour: finch accepts it and shows nothing",
    );
}

/// `ctx.appearance` (finch-skin-studio uses it): `setTheme` and `setHomeBackground` write the
/// app's settings file (other keys kept), `get` reads it back; an unknown key is refused and
/// changes nothing.
#[test]
fn appearance_reads_and_writes_the_apps_settings() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    let settings = ctx.runtime.join("config/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, r#"{"general": {"keep": 1}}"#).unwrap();
    let tool = MiniTool::new("skin", "1.0.0").entry_source(
        r##"export function activate(ctx) {
  ctx.tools.register({
    name: "apply",
    description: "Applies a skin",
    async execute() {
      await ctx.appearance.setTheme({ theme: "custom", customTheme: { name: "Teal", base: "dark", colors: { accent: "#0d9488" } } });
      await ctx.appearance.setHomeBackground({ imagePath: "/tmp/bg.png", placement: "fill" });
      let refused = null;
      try { await ctx.appearance.setTheme({ wallpaper: "x" }); } catch (e) { refused = e.message; }
      return { now: await ctx.appearance.get(), refused };
    },
  });
}
"##,
    );
    install(&ctx, &tool);
    let out = call(&ctx, "skin_apply", json!({}));
    out.success();
    let r = out.json()["structuredContent"].clone();
    assert_eq!(r["now"]["theme"], "custom", "{r}");
    assert_eq!(
        r["now"]["customTheme"]["colors"]["accent"], "#0d9488",
        "{r}"
    );
    assert_eq!(r["now"]["homeBackground"]["placement"], "fill", "{r}");
    assert!(
        r["refused"]
            .as_str()
            .is_some_and(|m| m.contains("\"wallpaper\" is not a theme setting")),
        "{r}"
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(doc["general"]["keep"], 1, "{doc}");
    assert_eq!(doc["appearance"], r["now"], "{doc}");
    assert!(doc["appearance"].get("wallpaper").is_none(), "{doc}");
}

/// Issue 43, item 5: a mini tool's card says what its manifest lets it do (as a Bash card
/// shows its sandbox): the `sandbox` line, from the same words as `tool info`.
#[test]
fn a_minitool_card_shows_what_its_manifest_lets_it_do() {
    use crate::cards::{CARD_SHOWN, Pty};
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &ctx_demo());
    let mut pty = Pty::spawn(&ctx, &["tool", "call", "ctx-demo_ask", "{}", "--json"]);
    let card = pty.expect(CARD_SHOWN);
    let line = card
        .lines()
        .find(|l| l.trim_start().starts_with("sandbox"))
        .unwrap_or_else(|| panic!("no sandbox line:\n{card}"));
    let info = ctx.run(&["tool", "info", "ctx-demo_ask", "--json"]);
    info.success();
    let words = line.trim_start().trim_start_matches("sandbox").trim();
    // The same facts `tool info --json` reports as its `sandbox`.
    let sandbox = &info.json()["sandbox"];
    assert_eq!(
        (
            sandbox["filesystem"].as_str(),
            sandbox["network"].as_bool(),
            sandbox["shell"].as_bool()
        ),
        (Some("none"), Some(false), Some(false)),
        "{sandbox}"
    );
    assert_eq!(
        words,
        "filesystem none, network false, shell false (enforced)"
    );
    pty.send("\x1b");
    let (code, tail) = pty.finish();
    assert_ne!(code, 0, "{tail}");
}
