//! Tests of the `MiniTool` and `AppCall` dispatcher tools (SPEC §8.1) through the real binary:
//! `finch tool call` and `finch run --jsonl`. `MiniTool` shows a card on every call, so these
//! calls pass `--approve MiniTool` (without it, no TTY answers the card: exit 4). Results are
//! compared with what the matching `finch` commands print with `--json`, and state files are
//! compared byte for byte.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::fixtures::MiniTool;
use crate::common::registry::TestRegistry;
use crate::common::{Run, TestContext};

/// `finch tool call MiniTool <args> --json --approve MiniTool`.
fn minitool(ctx: &TestContext, args: Value) -> Run {
    ctx.run(&[
        "tool",
        "call",
        "MiniTool",
        &args.to_string(),
        "--json",
        "--approve",
        "MiniTool",
    ])
}

/// A successful call's structured content.
#[track_caller]
fn ok(run: &Run) -> Value {
    run.success();
    let record = run.json();
    assert_eq!(record["isError"], false, "{run}");
    record["structuredContent"].clone()
}

/// A failed call's text (the tool ran and reported an error: exit 1).
#[track_caller]
fn tool_error(run: &Run) -> String {
    run.failure(1);
    let record = run.json();
    assert_eq!(record["isError"], true, "{run}");
    text(&record)
}

/// Every text block of a call record, joined.
fn text(record: &Value) -> String {
    record["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn hello() -> MiniTool {
    MiniTool::new("hello-minitool", "1.0.0").display_name("Hello")
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("test paths are UTF-8")
}

/// The CLI's `--json` document for `args`.
fn cli_json(ctx: &TestContext, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let run = ctx.run(&all);
    run.success();
    run.json()
}

fn settings_path(ctx: &TestContext) -> PathBuf {
    ctx.runtime.join("config/settings.json")
}

fn write_settings(ctx: &TestContext, text: &str) {
    let path = settings_path(ctx);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

// ---------------------------------------------------------------------------------------------
// MiniTool

#[test]
fn minitool_without_approval_is_refused_with_exit_4_and_changes_nothing() {
    let ctx = TestContext::new();
    hello().write_to(&ctx.work.join("hello"));
    let run = ctx.call("MiniTool", json!({"action": "add", "source": "hello"}));
    run.failure(4);
    let record = run.json();
    assert_eq!(record["decision"], "deny", "{run}");
    assert_eq!(record["failure"], "refused", "{run}");
    assert!(text(&record).contains("--approve MiniTool"), "{run}");
    assert!(!ctx.personal_tier().exists(), "nothing was installed");
}

#[test]
fn minitool_without_action_returns_its_manual_without_a_card() {
    let ctx = TestContext::new();
    let run = ctx.call("MiniTool", json!({}));
    run.success();
    let manual = text(&run.json());
    for action in [
        "list", "add", "update", "remove", "enable", "disable", "reload",
    ] {
        assert!(manual.contains(&format!("\n{action} — ")), "{manual}");
    }
    assert!(manual.contains("source (string, required)"), "{manual}");
}

#[test]
fn minitool_add_from_a_directory_then_enable_disable_list_and_remove() {
    let ctx = TestContext::new();
    hello().write_to(&ctx.work.join("src/hello"));
    // A relative source resolves against the session's working directory.
    let added = ok(&minitool(
        &ctx,
        json!({"action": "add", "source": "src/hello"}),
    ));
    let installed = ctx.personal_tier().join("hello-minitool");
    assert_eq!(
        added,
        json!({"installed": [{"id": "hello-minitool", "name": "Hello", "package": "hello-minitool",
            "version": "1.0.0", "path": installed, "linked": false}], "skipped": []})
    );
    assert!(installed.join("dist/index.js").is_file());
    let lock = ctx.read_json(&ctx.personal_tier().join(".plugins-lock.json"));
    assert_eq!(lock["hello-minitool"]["type"], "local");

    let enabled = ok(&minitool(
        &ctx,
        json!({"action": "enable", "id": "hello-minitool"}),
    ));
    assert_eq!(
        enabled,
        json!([{"id": "hello-minitool", "enabled": true, "installed": true}])
    );
    assert_eq!(
        ctx.read_json(&ctx.runtime.join("extensions.json"))["enabled"],
        json!(["hello-minitool"])
    );

    // The listing is the CLI's `list --json`, byte for byte as JSON.
    let listed = ok(&minitool(&ctx, json!({"action": "list"})));
    assert_eq!(listed, cli_json(&ctx, &["list"]));
    assert_eq!(listed[0]["enabled"], true);
    assert_eq!(listed[0]["source"]["type"], "local");

    let disabled = ok(&minitool(
        &ctx,
        json!({"action": "disable", "id": "hello-minitool"}),
    ));
    assert_eq!(
        disabled,
        json!([{"id": "hello-minitool", "enabled": false, "installed": true}])
    );
    assert_eq!(
        ctx.read_json(&ctx.runtime.join("extensions.json"))["enabled"],
        json!([])
    );

    std::fs::create_dir_all(ctx.runtime.join("extension-data/hello-minitool")).unwrap();
    let removed = ok(&minitool(
        &ctx,
        json!({"action": "remove", "id": "hello-minitool"}),
    ));
    assert_eq!(
        removed,
        json!({"id": "hello-minitool", "removed": true, "path": installed})
    );
    assert!(!installed.exists());
    assert!(ctx.runtime.join("extension-data/hello-minitool").is_dir());
    assert_eq!(ok(&minitool(&ctx, json!({"action": "list"}))), json!([]));
}

#[test]
fn minitool_add_from_a_tgz_into_the_global_tier_and_list_all_tiers() {
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("hello.tgz"), hello().npm_tarball()).unwrap();
    let added = ok(&minitool(
        &ctx,
        json!({"action": "add", "source": "./hello.tgz", "global": true}),
    ));
    let installed = ctx.global_tier().join("hello-minitool");
    assert_eq!(added["installed"][0]["path"], json!(installed));
    assert!(installed.join("package.json").is_file());
    let lock = ctx.read_json(&ctx.global_tier().join(".plugins-lock.json"));
    assert_eq!(lock["hello-minitool"]["type"], "tgz");
    assert_eq!(
        lock["hello-minitool"]["localPath"],
        json!(ctx.work.join("hello.tgz"))
    );
    assert_eq!(ok(&minitool(&ctx, json!({"action": "list"}))), json!([]));
    let global = ok(&minitool(&ctx, json!({"action": "list", "global": true})));
    assert_eq!(global, cli_json(&ctx, &["list", "-g"]));
    let all = ok(&minitool(&ctx, json!({"action": "list", "allTiers": true})));
    assert_eq!(all, cli_json(&ctx, &["list", "--all-tiers"]));
    assert_eq!(all[0]["tier"], "global");
    let removed = ok(&minitool(
        &ctx,
        json!({"action": "remove", "id": "hello-minitool", "global": true}),
    ));
    assert_eq!(removed["removed"], true);
    assert!(!installed.exists());
}

#[test]
fn minitool_dev_add_links_a_directory_and_refuses_anything_else() {
    let ctx = TestContext::new();
    let src = ctx.work.join("dev-hello");
    hello().write_to(&src);
    let added = ok(&minitool(
        &ctx,
        json!({"action": "add", "source": path_str(&src), "dev": true}),
    ));
    assert_eq!(added["installed"][0]["linked"], true);
    let link = ctx.personal_tier().join("hello-minitool");
    assert_eq!(std::fs::read_link(&link).unwrap(), src);

    std::fs::write(ctx.work.join("hello.tgz"), hello().npm_tarball()).unwrap();
    let message = tool_error(&minitool(
        &ctx,
        json!({"action": "add", "source": "hello.tgz", "dev": true}),
    ));
    assert!(message.contains("`dev` links a directory"), "{message}");

    // A development link is never updated.
    let message = tool_error(&minitool(
        &ctx,
        json!({"action": "update", "id": "hello-minitool"}),
    ));
    assert!(
        message.contains("is a development link and cannot be updated"),
        "{message}"
    );
}

#[test]
fn minitool_add_and_update_from_a_registry() {
    let reg = TestRegistry::start();
    reg.publish_tool(&MiniTool::new("demo", "1.0.0").display_name("Demo"));
    let ctx = TestContext::new();
    let url = reg.url();
    let added = ok(&minitool(
        &ctx,
        json!({"action": "add", "source": "demo", "registry": url}),
    ));
    assert_eq!(added["installed"][0]["version"], "1.0.0");
    let version = |ctx: &TestContext| {
        ctx.read_json(&ctx.personal_tier().join("demo/package.json"))["version"].clone()
    };

    reg.publish_tool(&MiniTool::new("demo", "1.1.0").display_name("Demo"));
    let dry = minitool(
        &ctx,
        json!({"action": "update", "id": "demo", "registry": url, "dryRun": true}),
    );
    assert_eq!(
        ok(&dry),
        json!({"id": "demo", "changed": true, "previousVersion": "1.0.0", "version": "1.1.0",
            "source": "npm", "dryRun": true})
    );
    assert!(text(&dry.json()).contains("Would update \"Demo\" (demo) v1.0.0 → v1.1.0"));
    assert_eq!(version(&ctx), "1.0.0", "a dry run changes nothing");

    let updated = ok(&minitool(
        &ctx,
        json!({"action": "update", "id": "demo", "registry": url}),
    ));
    assert_eq!(
        updated,
        json!({"id": "demo", "changed": true, "previousVersion": "1.0.0", "version": "1.1.0",
            "source": "npm"})
    );
    assert_eq!(version(&ctx), "1.1.0");

    let all = minitool(
        &ctx,
        json!({"action": "update", "all": true, "registry": url}),
    );
    assert_eq!(
        ok(&all),
        json!([{"id": "demo", "changed": false, "previousVersion": "1.1.0", "version": "1.1.0",
            "source": "npm"}])
    );
    assert!(text(&all.json()).contains("0 updated, 1 already up to date, 0 failed"));

    // A package the registry does not have.
    let message = tool_error(&minitool(
        &ctx,
        json!({"action": "add", "source": "no-such-package", "registry": url}),
    ));
    assert!(message.contains("no-such-package"), "{message}");
}

#[test]
fn minitool_update_all_reports_failures_as_an_error_result_and_continues() {
    let reg = TestRegistry::start();
    reg.publish_tool(&MiniTool::new("demo", "1.0.0").display_name("Demo"));
    let ctx = TestContext::new();
    let url = reg.url();
    ok(&minitool(
        &ctx,
        json!({"action": "add", "source": "demo", "registry": url}),
    ));
    // A local install whose source directory is gone cannot be refreshed.
    let src = ctx.work.join("gone");
    hello().write_to(&src);
    ok(&minitool(
        &ctx,
        json!({"action": "add", "source": path_str(&src)}),
    ));
    std::fs::remove_dir_all(&src).unwrap();
    reg.publish_tool(&MiniTool::new("demo", "2.0.0").display_name("Demo"));
    let run = minitool(
        &ctx,
        json!({"action": "update", "all": true, "registry": url}),
    );
    run.failure(1);
    let record = run.json();
    assert_eq!(record["isError"], true);
    let items = record["structuredContent"].as_array().unwrap().clone();
    assert_eq!(items.len(), 2, "{run}");
    assert_eq!(items[0]["id"], "demo");
    assert_eq!(items[0]["changed"], true);
    assert_eq!(items[1]["id"], "hello-minitool");
    assert_eq!(items[1]["error"]["code"], "not_found", "{run}");
    assert!(text(&record).contains("1 updated, 0 already up to date, 1 failed"));
    assert_eq!(
        ctx.read_json(&ctx.personal_tier().join("demo/package.json"))["version"],
        "2.0.0"
    );
}

#[test]
fn minitool_error_paths_say_what_to_do() {
    let ctx = TestContext::new();
    std::fs::create_dir_all(ctx.work.join("empty")).unwrap();
    let cases: &[(Value, &str)] = &[
        (
            json!({"action": "add", "source": "./missing"}),
            "no such file or directory",
        ),
        (
            json!({"action": "add", "source": "empty"}),
            "No Finch extension found in",
        ),
        (
            json!({"action": "remove", "id": "nope"}),
            "\"nope\" is not installed in the personal tier\nhint: run `finch list --all-tiers`",
        ),
        (
            json!({"action": "remove", "id": "../x"}),
            "\"../x\" is not installed",
        ),
        (
            json!({"action": "update", "id": "nope"}),
            "\"nope\" is not installed in the personal tier",
        ),
        (
            json!({"action": "update"}),
            "update needs the `id` of a mini tool, or `all: true`",
        ),
        (
            json!({"action": "update", "id": "x", "all": true}),
            "give either `id` or `all: true`, not both",
        ),
        (
            json!({"action": "list", "global": true, "allTiers": true}),
            "`global` and `allTiers` exclude each other",
        ),
        (
            json!({"action": "reload", "id": "nope"}),
            "\"nope\" is not installed in either tier",
        ),
        (
            json!({"action": "install", "source": "x"}),
            "/action: \"install\" is not one of \"list\", \"add\"",
        ),
        (
            json!({"action": "remove", "id": "x", "dev": true}),
            "Invalid parameters for MiniTool action `remove`",
        ),
        (
            json!({"action": "enable"}),
            "Invalid parameters for MiniTool action `enable`",
        ),
    ];
    for (args, want) in cases {
        let message = tool_error(&minitool(&ctx, args.clone()));
        assert!(message.contains(want), "{args}: {message}");
    }
}

#[test]
fn removing_an_empty_id_removes_nothing() {
    // `remove` is shared by `finch remove` and the tool: an empty id names no entry (it must
    // never resolve to the tier directory itself).
    let ctx = TestContext::new();
    hello().write_to(&ctx.work.join("hello"));
    ok(&minitool(&ctx, json!({"action": "add", "source": "hello"})));
    ctx.run(&["remove", ""])
        .failure(3)
        .stderr_has("\"\" is not installed in the personal tier");
    assert!(ctx.personal_tier().join("hello-minitool").is_dir());
    let message = tool_error(&minitool(&ctx, json!({"action": "remove", "id": ""})));
    assert!(message.contains("/id"), "{message}");
    assert!(ctx.personal_tier().join("hello-minitool").is_dir());
}

#[test]
fn minitool_enable_of_an_id_not_installed_warns_and_a_corrupt_state_file_stops_changes() {
    let ctx = TestContext::new();
    let run = minitool(&ctx, json!({"action": "enable", "id": "ghost"}));
    assert_eq!(
        ok(&run),
        json!([{"id": "ghost", "enabled": true, "installed": false}])
    );
    assert!(text(&run.json()).contains("\"ghost\" is not installed in either tier"));

    let state = ctx.runtime.join("extensions.json");
    std::fs::write(&state, "{\"enabled\": [\n").unwrap();
    for args in [
        json!({"action": "disable", "id": "ghost"}),
        json!({"action": "list"}),
        json!({"action": "reload"}),
    ] {
        let message = tool_error(&minitool(&ctx, args.clone()));
        assert!(
            message.contains("extensions.json is not valid JSON (line 2"),
            "{args}: {message}"
        );
        assert!(message.contains("finch doctor --state"), "{message}");
    }
    assert_eq!(
        std::fs::read_to_string(&state).unwrap(),
        "{\"enabled\": [\n"
    );
}

#[test]
fn minitool_reload_checks_manifests_and_says_nothing_was_started() {
    let ctx = TestContext::new();
    hello().write_to(&ctx.work.join("hello"));
    MiniTool::new("broken", "0.1.0").write_to(&ctx.work.join("broken"));
    ok(&minitool(&ctx, json!({"action": "add", "source": "hello"})));
    ok(&minitool(
        &ctx,
        json!({"action": "add", "source": "broken", "global": true}),
    ));
    ok(&minitool(
        &ctx,
        json!({"action": "enable", "id": "hello-minitool"}),
    ));
    // Its entry file disappears after the install: the manifest is no longer valid.
    std::fs::remove_file(ctx.global_tier().join("broken/dist/index.js")).unwrap();

    let run = minitool(&ctx, json!({"action": "reload"}));
    let report = ok(&run);
    let tools = report["miniTools"].as_array().unwrap();
    assert_eq!(tools.len(), 2);
    assert_eq!(tools[0]["id"], "hello-minitool");
    assert_eq!(tools[0]["tier"], "personal");
    assert_eq!(tools[0]["enabled"], true);
    assert_eq!(tools[0]["valid"], true);
    assert_eq!(tools[0]["started"], false);
    assert_eq!(tools[1]["id"], "broken");
    assert_eq!(tools[1]["tier"], "global");
    assert_eq!(tools[1]["enabled"], false);
    assert_eq!(tools[1]["valid"], false);
    let problems = tools[1]["problems"].to_string();
    assert!(problems.contains("entry file not found"), "{problems}");
    assert_eq!(report["runtime"], "unavailable");
    let said = text(&run.json());
    assert!(said.contains("started no mini tool"), "{said}");
    assert!(!said.to_lowercase().contains("activated"), "{said}");

    let one = ok(&minitool(&ctx, json!({"action": "reload", "id": "broken"})));
    assert_eq!(one["miniTools"].as_array().unwrap().len(), 1);
}

#[test]
fn minitool_through_run_jsonl_is_recorded_in_the_transcript() {
    let ctx = TestContext::new();
    hello().write_to(&ctx.work.join("hello"));
    let requests = [
        json!({"id": 1, "tool": "MiniTool", "arguments": {"action": "add", "source": "hello"}}),
        json!({"id": 2, "tool": "MiniTool", "arguments": {"action": "enable", "id": "hello-minitool"}}),
        json!({"id": 3, "tool": "MiniTool", "arguments": {"action": "list"}}),
    ];
    let (responses, run) = ctx.jsonl(&["--approve", "MiniTool"], &requests);
    run.success();
    assert_eq!(responses.len(), 3, "{run}");
    for (i, r) in responses.iter().enumerate() {
        assert_eq!(r["id"], i + 1);
        assert_eq!(r["isError"], false, "{r}");
        assert_eq!(r["decidedBy"], "approveFlag", "{r}");
    }
    assert_eq!(responses[2]["structuredContent"][0]["enabled"], true);
    let transcripts = ctx.transcripts();
    assert_eq!(transcripts.len(), 1);
    let calls = ctx.tool_calls(&transcripts[0]);
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[0]["tool"], "MiniTool");
    assert_eq!(calls[0]["arguments"]["action"], "add");
    assert_eq!(calls[0]["decision"], "allow");

    // Without --approve, each call is refused and the run goes on.
    let (responses, run) = ctx.jsonl(&[], &requests[2..]);
    run.failure(4);
    assert_eq!(responses[0]["failure"], "refused", "{run}");
}

// ---------------------------------------------------------------------------------------------
// AppCall

#[test]
fn appcall_info_reports_version_homes_platform_and_node() {
    let ctx = TestContext::new();
    let info = ok(&ctx.call("AppCall", json!({"action": "info"})));
    assert_eq!(info["finch"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(info["homes"]["runtime"], json!(ctx.runtime));
    assert_eq!(info["homes"]["agent"], json!(ctx.agent));
    assert_eq!(info["homes"]["agentSource"], "FINCH_AGENT_HOME");
    assert_eq!(info["platform"]["os"], std::env::consts::OS);
    assert_eq!(info["session"]["cwd"], json!(ctx.work));
    assert_eq!(info["session"]["mode"], "ask");
    assert!(info["node"]["found"].is_boolean(), "{info}");

    let missing = ctx.base().join("no-node");
    let run = ctx
        .cmd()
        .env("FINCH_NODE", &missing)
        .args(["tool", "call", "AppCall", r#"{"action":"info"}"#, "--json"])
        .output()
        .unwrap();
    let info = ok(&Run(run));
    assert_eq!(info["node"]["found"], false);
    assert_eq!(info["node"]["from"], "FINCH_NODE");
    assert!(
        info["node"]["problem"]
            .as_str()
            .unwrap()
            .contains("cannot run")
    );
}

#[test]
fn appcall_info_finds_a_real_node_when_there_is_one() {
    let Some(node) = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("node"))
            .find(|c| c.is_file())
    }) else {
        eprintln!("no node on PATH; skipped");
        return;
    };
    let ctx = TestContext::new();
    let info = ok(&ctx.call("AppCall", json!({"action": "info"})));
    assert_eq!(info["node"]["found"], true, "{info}");
    assert_eq!(info["node"]["path"], json!(node));
    assert_eq!(info["node"]["from"], "PATH");
    assert!(info["node"]["version"].as_str().unwrap().starts_with('v'));
}

#[test]
fn appcall_set_appearance_changes_only_the_appearance_bytes() {
    let ctx = TestContext::new();
    let before = "{\n  \"general\": {\n    \"finchHomeDir\": \"/elsewhere\",\n    \"language\": \"zh-CN\"\n  },\n  \"appearance\": {\n    \"theme\": \"light\",\n    \"density\": \"compact\"\n  },\n  \"shortcuts\": [\n    {\n      \"key\": \"cmd+k\",\n      \"weight\": 1.5\n    }\n  ],\n  \"beta\": null\n}\n";
    write_settings(&ctx, before);
    let saved = ok(&ctx.call(
        "AppCall",
        json!({"action": "setAppearance", "theme": "dark"}),
    ));
    assert_eq!(saved["changed"], true);
    assert_eq!(
        saved["appearance"],
        json!({"theme": "dark", "density": "compact"})
    );
    assert_eq!(
        std::fs::read_to_string(settings_path(&ctx)).unwrap(),
        before.replace("\"theme\": \"light\"", "\"theme\": \"dark\"")
    );
    // New keys go at the end of `appearance` (theme, accentColor, fontSize); nothing else moves.
    ok(&ctx.call(
        "AppCall",
        json!({"action": "setAppearance", "fontSize": 15, "accentColor": "#0a84ff"}),
    ));
    assert_eq!(
        std::fs::read_to_string(settings_path(&ctx)).unwrap(),
        before.replace(
            "\"theme\": \"light\",\n    \"density\": \"compact\"\n",
            "\"theme\": \"dark\",\n    \"density\": \"compact\",\n    \"accentColor\": \"#0a84ff\",\n    \"fontSize\": 15\n"
        )
    );
    // No temp or lock leftovers beside the file but the lock file itself.
    let names = ctx.tree(&ctx.runtime.join("config"));
    assert!(
        names.iter().all(|n| n == "settings.json" || n == ".lock"),
        "{names:?}"
    );
}

#[test]
fn appcall_set_appearance_creates_the_file_and_skips_a_no_op_write() {
    let ctx = TestContext::new();
    let saved = ok(&ctx.call(
        "AppCall",
        json!({"action": "setAppearance", "theme": "system"}),
    ));
    assert_eq!(saved["path"], json!(settings_path(&ctx)));
    assert_eq!(
        std::fs::read_to_string(settings_path(&ctx)).unwrap(),
        "{\n  \"appearance\": {\n    \"theme\": \"system\"\n  }\n}\n"
    );
    // The same value again: reported unchanged, the file (here in another layout) not rewritten.
    write_settings(&ctx, "{\"appearance\":{\"theme\":\"system\"}}");
    let again = ok(&ctx.call(
        "AppCall",
        json!({"action": "setAppearance", "theme": "system"}),
    ));
    assert_eq!(again["changed"], false);
    assert_eq!(
        std::fs::read_to_string(settings_path(&ctx)).unwrap(),
        "{\"appearance\":{\"theme\":\"system\"}}"
    );
}

#[test]
fn appcall_set_appearance_errors_leave_the_file_unchanged() {
    let ctx = TestContext::new();
    let cases: &[(&str, Value, &str)] = &[
        (
            "{\n  \"appearance\": {\n    \"theme\": \"light\",\n  }\n}\n",
            json!({"action": "setAppearance", "theme": "dark"}),
            "settings.json is not valid JSON (line 4, column 3)",
        ),
        (
            "{\"appearance\": \"dark\"}\n",
            json!({"action": "setAppearance", "theme": "dark"}),
            "`appearance` is a string, not an object",
        ),
        (
            "[]\n",
            json!({"action": "setAppearance", "theme": "dark"}),
            "settings.json must hold a JSON object",
        ),
        (
            "{}\n",
            json!({"action": "setAppearance", "theme": "purple"}),
            "/theme: \"purple\" is not one of \"light\", \"dark\" or \"system\"",
        ),
        (
            "{}\n",
            json!({"action": "setAppearance"}),
            "Invalid parameters for AppCall action `setAppearance`",
        ),
        (
            "{}\n",
            json!({"action": "setAppearance", "accentColor": "blue"}),
            "/accentColor: \"blue\" does not match",
        ),
    ];
    for (before, args, want) in cases {
        write_settings(&ctx, before);
        let message = tool_error(&ctx.call("AppCall", args.clone()));
        assert!(message.contains(want), "{args}: {message}");
        assert_eq!(
            &std::fs::read_to_string(settings_path(&ctx)).unwrap(),
            before,
            "{args}"
        );
    }
    write_settings(&ctx, "{\n  \"a\": ,\n}\n");
    let message = tool_error(&ctx.call(
        "AppCall",
        json!({"action": "setAppearance", "theme": "dark"}),
    ));
    assert!(message.contains("hint: fix the file by hand, or run `finch doctor --state`"));
}

#[test]
fn appcall_spaces_are_the_space_commands() {
    let ctx = TestContext::new();
    assert_eq!(
        ok(&ctx.call("AppCall", json!({"action": "listSpaces"}))),
        json!([])
    );
    std::fs::create_dir_all(ctx.work.join("proj")).unwrap();
    let created = ok(&ctx.call(
        "AppCall",
        json!({"action": "createSpace", "name": "Work", "dir": "proj"}),
    ));
    assert_eq!(created["name"], "Work");
    assert_eq!(created["directory"], json!(ctx.work.join("proj")));
    let id = created["id"].as_str().unwrap();
    assert!(id.starts_with("sp-"), "{created}");
    let plain = ok(&ctx.call("AppCall", json!({"action": "createSpace", "name": "Home"})));
    assert_eq!(plain["directory"], Value::Null);
    let listed = ok(&ctx.call("AppCall", json!({"action": "listSpaces"})));
    assert_eq!(listed, cli_json(&ctx, &["space", "list"]));
    assert_eq!(listed.as_array().unwrap().len(), 2);
    assert_eq!(listed[0]["id"], id);

    let cases: &[(Value, &str)] = &[
        (
            json!({"action": "createSpace", "name": "work"}),
            "a space named \"work\" already exists",
        ),
        (
            json!({"action": "createSpace", "name": "Other", "dir": "missing"}),
            "no such directory",
        ),
        (
            json!({"action": "createSpace", "name": "a/b"}),
            "is not a usable space name",
        ),
        (
            json!({"action": "createSpace"}),
            "Invalid parameters for AppCall action `createSpace`",
        ),
    ];
    for (args, want) in cases {
        let message = tool_error(&ctx.call("AppCall", args.clone()));
        assert!(message.contains(want), "{args}: {message}");
    }
    std::fs::write(ctx.runtime.join("spaces.json"), "{\"spaces\": [").unwrap();
    let message = tool_error(&ctx.call("AppCall", json!({"action": "listSpaces"})));
    assert!(
        message.contains("spaces.json is not valid JSON"),
        "{message}"
    );
}

#[test]
fn appcall_list_models_reads_the_apps_settings_or_says_there_are_none() {
    let ctx = TestContext::new();
    let none = ok(&ctx.call("AppCall", json!({"action": "listModels"})));
    assert_eq!(none["models"], json!([]));
    assert!(
        none["note"]
            .as_str()
            .unwrap()
            .contains("finch configures no models")
    );

    write_settings(
        &ctx,
        r#"{"models": ["claude-sonnet", {"id": "local-llama", "provider": "ollama"}]}"#,
    );
    let listed = ok(&ctx.call("AppCall", json!({"action": "listModels"})));
    assert_eq!(
        listed,
        json!({"models": ["claude-sonnet", {"id": "local-llama", "provider": "ollama"}],
            "source": settings_path(&ctx)})
    );

    write_settings(&ctx, r#"{"models": "claude"}"#);
    let odd = ok(&ctx.call("AppCall", json!({"action": "listModels"})));
    assert_eq!(odd["models"], json!([]));
    assert!(odd["note"].as_str().unwrap().contains("not a list"));

    write_settings(&ctx, "{\"models\": [");
    let message = tool_error(&ctx.call("AppCall", json!({"action": "listModels"})));
    assert!(
        message.contains("settings.json is not valid JSON"),
        "{message}"
    );
}

#[test]
fn appcall_check_update_reports_the_version_and_checks_nothing() {
    let ctx = TestContext::new();
    let run = ctx.call("AppCall", json!({"action": "checkUpdate"}));
    let report = ok(&run);
    assert_eq!(report["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(report["checked"], false);
    assert!(text(&run.json()).contains("\"action\": \"update\", \"all\": true, \"dryRun\": true"));
}

#[test]
fn appcall_save_profile_appends_entries_or_replaces_the_file() {
    let ctx = TestContext::new();
    let user_md = ctx.agent.join("USER.md");
    let saved = ok(&ctx.call(
        "AppCall",
        json!({"action": "saveProfile", "content": "Prefers metric units"}),
    ));
    assert_eq!(saved["mode"], "append");
    assert_eq!(saved["file"], "USER.md");
    assert_eq!(saved["createdFile"], true);
    assert_eq!(
        std::fs::read_to_string(&user_md).unwrap(),
        "- Prefers metric units\n"
    );
    // `text` is the same as `content`; `section` files the entry under a heading.
    ok(&ctx.call(
        "AppCall",
        json!({"action": "saveProfile", "text": "Lives in Lisbon", "section": "Places"}),
    ));
    assert_eq!(
        std::fs::read_to_string(&user_md).unwrap(),
        "- Prefers metric units\n\n## Places\n- Lives in Lisbon\n"
    );
    // The profile entries are memory entries: `finch memory` sees them.
    let listed = cli_json(&ctx, &["memory", "list", "--scope", "profile"]);
    assert_eq!(listed.as_array().unwrap().len(), 2, "{listed}");

    let replaced = ok(&ctx.call(
        "AppCall",
        json!({"action": "saveProfile", "mode": "replace", "content": "# About me\n\nName: Ana"}),
    ));
    assert_eq!(replaced["mode"], "replace");
    assert_eq!(replaced["previousBytes"], 52);
    assert_eq!(
        std::fs::read_to_string(&user_md).unwrap(),
        "# About me\n\nName: Ana\n"
    );
}

#[test]
fn appcall_save_profile_error_paths() {
    let ctx = TestContext::new();
    let user_md = ctx.agent.join("USER.md");
    ok(&ctx.call(
        "AppCall",
        json!({"action": "saveProfile", "content": "Prefers tea"}),
    ));
    let cases: &[(Value, &str)] = &[
        (
            json!({"action": "saveProfile", "content": "Prefers tea"}),
            "already remembered in USER.md:1",
        ),
        (
            json!({"action": "saveProfile", "content": "a", "text": "b"}),
            "as `content` or as `text`, not both",
        ),
        (
            json!({"action": "saveProfile"}),
            "saveProfile needs the text to save in `content`",
        ),
        (
            json!({"action": "saveProfile", "content": "  \n"}),
            "the entry text is empty",
        ),
        (
            json!({"action": "saveProfile", "mode": "replace", "content": " "}),
            "the profile text is empty",
        ),
        (
            json!({"action": "saveProfile", "mode": "replace", "content": "x", "section": "S"}),
            "`section` only applies to mode append",
        ),
        (
            json!({"action": "saveProfile", "mode": "overwrite", "content": "x"}),
            "/mode: \"overwrite\" is not one of \"append\" or \"replace\"",
        ),
    ];
    for (args, want) in cases {
        let message = tool_error(&ctx.call("AppCall", args.clone()));
        assert!(message.contains(want), "{args}: {message}");
        assert_eq!(
            std::fs::read_to_string(&user_md).unwrap(),
            "- Prefers tea\n",
            "{args}"
        );
    }
}

#[test]
fn appcall_needs_no_approval_and_every_action_is_in_its_manual() {
    let ctx = TestContext::new();
    let run = ctx.call("AppCall", json!({}));
    run.success();
    let manual = text(&run.json());
    for action in [
        "info",
        "setAppearance",
        "listSpaces",
        "createSpace",
        "listModels",
        "checkUpdate",
        "saveProfile",
    ] {
        assert!(manual.contains(&format!("\n{action} — ")), "{manual}");
    }
    let (responses, run) = ctx.jsonl(
        &[],
        &[json!({"id": "a", "tool": "AppCall", "arguments": {"action": "checkUpdate"}})],
    );
    run.success();
    assert_eq!(responses[0]["decision"], "allow", "{run}");
    assert_eq!(responses[0]["isError"], false);
}
