//! `finch update`: the source plan of SPEC §3.4 (npm, local, archive files and URLs, no record),
//! the exact output and `FINCH_CLI_RESULT_JSON` lines, dev links refused, `--all` continuing past
//! failures, `--dry-run` changing nothing, and id migration.

use serde_json::{Value, json};

use crate::common::TestContext;
use crate::common::fixtures::MiniTool;
use crate::common::registry::TestRegistry;

fn demo(version: &str) -> MiniTool {
    MiniTool::new("demo", version).display_name("Demo")
}

fn machine_line(stdout: &str) -> Value {
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("FINCH_CLI_RESULT_JSON:"))
        .unwrap_or_else(|| panic!("no machine line in {stdout}"));
    serde_json::from_str(line).unwrap()
}

fn version_of(ctx: &TestContext, id: &str) -> String {
    ctx.read_json(&ctx.personal_tier().join(id).join("package.json"))["version"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn npm_update_prints_the_app_lines() {
    let reg = TestRegistry::start();
    reg.publish_tool(&demo("1.0.0"));
    let ctx = TestContext::new();
    ctx.run(&["add", "demo", "--registry", &reg.url()])
        .success();
    reg.publish_tool(&demo("1.1.0"));
    let out = ctx.run(&["update", "demo", "--registry", &reg.url()]);
    out.success();
    assert_eq!(
        out.stdout(),
        "✓ Updated \"Demo\" (demo) v1.0.0 → v1.1.0\nFINCH_CLI_RESULT_JSON:{\"id\":\"demo\",\"changed\":true,\"previousVersion\":\"1.0.0\",\"version\":\"1.1.0\",\"source\":\"npm\"}\n"
    );
    assert_eq!(version_of(&ctx, "demo"), "1.1.0");
    assert_eq!(
        ctx.read_json(&ctx.personal_tier().join(".plugins-lock.json"))["demo"]["version"],
        "1.1.0"
    );
    let out = ctx.run(&["up", "demo", "--registry", &reg.url()]);
    out.success();
    assert_eq!(
        out.stdout(),
        "• \"Demo\" (demo) is already up to date (v1.1.0)\nFINCH_CLI_RESULT_JSON:{\"id\":\"demo\",\"changed\":false,\"previousVersion\":\"1.1.0\",\"version\":\"1.1.0\",\"source\":\"npm\"}\n"
    );
}

#[test]
fn npm_update_stays_within_the_recorded_range_and_says_what_is_newer() {
    let reg = TestRegistry::start();
    reg.publish_tool(&demo("1.0.0"));
    let ctx = TestContext::new();
    ctx.run(&["add", "demo@^1", "--registry", &reg.url()])
        .success();
    reg.publish_tool(&demo("1.3.0"));
    reg.publish_tool(&demo("2.0.0"));
    let out = ctx.run(&["update", "demo", "--registry", &reg.url()]);
    out.success();
    assert_eq!(
        out.stdout(),
        "✓ Updated \"Demo\" (demo) v1.0.0 → v1.3.0\nFINCH_CLI_RESULT_JSON:{\"id\":\"demo\",\"changed\":true,\"previousVersion\":\"1.0.0\",\"version\":\"1.3.0\",\"source\":\"npm\",\"pinned\":\"^1\",\"latestVersion\":\"2.0.0\"}\n"
    );
    assert_eq!(
        out.stderr(),
        "  v2.0.0 is newer than ^1 allows: run `finch add demo@latest` to move to it\n"
    );
    assert_eq!(version_of(&ctx, "demo"), "1.3.0");

    // Never "up to date" while a newer version exists: say it is pinned, what is newer, and how.
    let out = ctx.run(&["update", "demo", "--registry", &reg.url()]);
    out.success();
    assert_eq!(
        out.stdout(),
        "• \"Demo\" (demo) is pinned to ^1 (v1.3.0); v2.0.0 is newer: run `finch add demo@latest` to move it\nFINCH_CLI_RESULT_JSON:{\"id\":\"demo\",\"changed\":false,\"previousVersion\":\"1.3.0\",\"version\":\"1.3.0\",\"source\":\"npm\",\"pinned\":\"^1\",\"latestVersion\":\"2.0.0\"}\n"
    );
    ctx.run(&["update", "--all", "--registry", &reg.url()])
        .success()
        .stderr_has("0 updated, 0 already up to date, 1 pinned behind a newer version, 0 failed");

    // The command it names moves the install, and later updates follow `latest`.
    ctx.run(&["add", "demo@latest", "--registry", &reg.url()])
        .success();
    assert_eq!(version_of(&ctx, "demo"), "2.0.0");
    reg.publish_tool(&demo("2.1.0"));
    ctx.run(&["update", "demo", "--registry", &reg.url()])
        .success();
    assert_eq!(version_of(&ctx, "demo"), "2.1.0");
}

#[test]
fn an_exact_version_install_updates_to_latest_as_with_the_official_cli() {
    let reg = TestRegistry::start();
    reg.publish_tool(&demo("1.0.0"));
    reg.publish_tool(&demo("1.1.0"));
    let ctx = TestContext::new();
    ctx.run(&["add", "demo@1.0.0", "--registry", &reg.url()])
        .success();
    assert_eq!(version_of(&ctx, "demo"), "1.0.0");
    let out = ctx.run(&["update", "demo", "--registry", &reg.url()]);
    out.success();
    assert_eq!(
        out.stdout(),
        "✓ Updated \"Demo\" (demo) v1.0.0 → v1.1.0\nFINCH_CLI_RESULT_JSON:{\"id\":\"demo\",\"changed\":true,\"previousVersion\":\"1.0.0\",\"version\":\"1.1.0\",\"source\":\"npm\"}\n"
    );
    assert_eq!(version_of(&ctx, "demo"), "1.1.0");
    let records = ctx.read_json(&ctx.personal_tier().join(".plugins-lock.json"));
    assert_eq!(records["demo"]["version"], "1.1.0");
    assert!(records["demo"].get("spec").is_none(), "{records}");
}

#[test]
fn dev_links_are_not_updated() {
    let ctx = TestContext::new();
    let src = ctx.work.join("dev");
    demo("1.0.0").write_to(&src);
    ctx.run(&["add", "-d", src.to_str().unwrap()]).success();
    ctx.run(&["update", "demo"])
        .failure(1)
        .stderr_has("Error: \"demo\" is a development link and cannot be updated; edit or build the source directory instead.");
}

#[test]
fn unknown_ids_are_exit_3() {
    let ctx = TestContext::new();
    ctx.run(&["update", "ghost"])
        .failure(3)
        .stderr_has("\"ghost\" is not installed");
    ctx.run(&["update"]).failure(2);
}

#[test]
fn local_installs_reread_their_directory() {
    let ctx = TestContext::new();
    let src = ctx.work.join("local");
    demo("1.0.0").write_to(&src);
    ctx.write_config("registry = \"http://127.0.0.1:9/\"\n");
    ctx.run(&["add", src.to_str().unwrap()]).success();
    let out = ctx.run(&["update", "demo"]);
    out.success().stdout_has("is already up to date (v1.0.0)");
    assert_eq!(machine_line(&out.stdout())["source"], "local");
    std::fs::write(
        src.join("dist/index.js"),
        "export function activate() { /* v2 */ }\n",
    )
    .unwrap();
    let out = ctx.run(&["update", "demo"]);
    out.success()
        .stdout_has("✓ Updated \"Demo\" (demo) v1.0.0 → v1.0.0");
    assert_eq!(machine_line(&out.stdout())["changed"], true);
    let installed =
        std::fs::read_to_string(ctx.personal_tier().join("demo/dist/index.js")).unwrap();
    assert!(installed.contains("v2"));
    std::fs::remove_dir_all(&src).unwrap();
    ctx.run(&["update", "demo"])
        .failure(3)
        .stderr_has("no such file or directory");
}

#[test]
fn local_installs_move_to_npm_when_it_is_strictly_newer() {
    let reg = TestRegistry::start();
    let ctx = TestContext::new();
    let src = ctx.work.join("local");
    demo("1.0.0").write_to(&src);
    ctx.run(&["add", src.to_str().unwrap()]).success();
    reg.publish_tool(&demo("1.0.0"));
    let out = ctx.run(&["update", "demo", "--registry", &reg.url()]);
    assert_eq!(machine_line(&out.success().stdout())["source"], "local");
    reg.publish_tool(&demo("2.0.0"));
    let out = ctx.run(&["update", "demo", "--registry", &reg.url()]);
    let line = machine_line(&out.success().stdout());
    assert_eq!(
        line,
        json!({"id":"demo","changed":true,"previousVersion":"1.0.0","version":"2.0.0","source":"npm"})
    );
    assert_eq!(
        ctx.read_json(&ctx.personal_tier().join(".plugins-lock.json"))["demo"]["type"],
        "npm"
    );
}

#[test]
fn archive_files_and_urls_are_fetched_again() {
    let reg = TestRegistry::start();
    let ctx = TestContext::new();
    ctx.write_config(&format!("registry = \"{}\"\n", reg.url()));
    let tgz = ctx.work.join("demo.tgz");
    std::fs::write(&tgz, demo("1.0.0").npm_tarball()).unwrap();
    ctx.run(&["add", tgz.to_str().unwrap()]).success();
    std::fs::write(&tgz, demo("1.1.0").npm_tarball()).unwrap();
    let out = ctx.run(&["update", "demo"]);
    assert_eq!(
        machine_line(&out.success().stdout()),
        json!({"id":"demo","changed":true,"previousVersion":"1.0.0","version":"1.1.0","source":"tgz"})
    );

    let other = MiniTool::new("zipped", "1.0.0");
    let url = reg.serve_file("zipped.zip", other.zip(""));
    ctx.run(&["add", &url]).success();
    reg.serve_file("zipped.zip", MiniTool::new("zipped", "1.2.0").zip(""));
    let out = ctx.run(&["update", "zipped"]);
    assert_eq!(machine_line(&out.success().stdout())["version"], "1.2.0");
    assert_eq!(machine_line(&out.stdout())["source"], "zip");
    assert_eq!(version_of(&ctx, "zipped"), "1.2.0");
}

#[test]
fn without_a_record_npm_is_asked_by_package_name() {
    let reg = TestRegistry::start();
    let ctx = TestContext::new();
    let src = ctx.work.join("local");
    demo("1.0.0").write_to(&src);
    ctx.run(&["add", src.to_str().unwrap()]).success();
    std::fs::remove_file(ctx.personal_tier().join(".plugins-lock.json")).unwrap();
    reg.publish_tool(&demo("1.4.0"));
    let out = ctx.run(&["update", "demo", "--registry", &reg.url()]);
    assert_eq!(machine_line(&out.success().stdout())["version"], "1.4.0");

    // No record and no package name: nothing to update from.
    let bare = ctx.work.join("bare");
    std::fs::create_dir_all(bare.join("dist")).unwrap();
    std::fs::write(
        bare.join("finch.json"),
        r#"{"manifestVersion":1,"id":"bare"}"#,
    )
    .unwrap();
    std::fs::write(
        bare.join("dist/index.js"),
        "export function activate() {}\n",
    )
    .unwrap();
    ctx.run(&["add", bare.to_str().unwrap()]).success();
    std::fs::remove_file(ctx.personal_tier().join(".plugins-lock.json")).unwrap();
    ctx.run(&["update", "bare"])
        .failure(1)
        .stderr_has("has no install record")
        .stderr_has("hint: reinstall it with `finch add <source>`");
}

#[test]
fn dry_run_changes_nothing() {
    let reg = TestRegistry::start();
    reg.publish_tool(&demo("1.0.0"));
    let ctx = TestContext::new();
    ctx.run(&["add", "demo", "--registry", &reg.url()])
        .success();
    reg.publish_tool(&demo("2.0.0"));
    let before = ctx.tree(&ctx.personal_tier());
    let records = std::fs::read(ctx.personal_tier().join(".plugins-lock.json")).unwrap();
    let out = ctx.run(&["update", "demo", "--dry-run", "--registry", &reg.url()]);
    out.success()
        .stdout_has("• Would update \"Demo\" (demo) v1.0.0 → v2.0.0");
    assert_eq!(machine_line(&out.stdout())["dryRun"], true);
    assert_eq!(ctx.tree(&ctx.personal_tier()), before);
    assert_eq!(
        std::fs::read(ctx.personal_tier().join(".plugins-lock.json")).unwrap(),
        records
    );
    assert_eq!(version_of(&ctx, "demo"), "1.0.0");
}

#[test]
fn update_all_continues_past_failures_and_summarises() {
    let reg = TestRegistry::start();
    let ctx = TestContext::new();
    ctx.write_config(&format!("registry = \"{}\"\n", reg.url()));
    reg.publish_tool(&demo("1.0.0"));
    ctx.run(&["add", "demo"]).success();
    let gone = ctx.work.join("gone");
    MiniTool::new("gone", "1.0.0").write_to(&gone);
    ctx.run(&["add", gone.to_str().unwrap()]).success();
    std::fs::remove_dir_all(&gone).unwrap();
    let dev = ctx.work.join("devsrc");
    MiniTool::new("devtool", "1.0.0").write_to(&dev);
    ctx.run(&["add", "-d", dev.to_str().unwrap()]).success();
    reg.publish_tool(&demo("1.1.0"));
    let out = ctx.run(&["update", "--all"]);
    out.failure(1)
        .stdout_has("✓ Updated \"Demo\" (demo) v1.0.0 → v1.1.0")
        .stderr_has("\"gone\" failed to update")
        .stderr_has("\"devtool\" is a development link; skipped")
        .stderr_has("1 updated, 0 already up to date, 1 failed");
    assert_eq!(version_of(&ctx, "demo"), "1.1.0");
    let json = ctx.run(&["--json", "update", "--all"]);
    json.failure(1);
    let items = json.json();
    assert_eq!(items.as_array().unwrap().len(), 2, "{items}");
}

#[test]
fn an_id_that_changed_migrates_with_its_enabled_state() {
    let ctx = TestContext::new();
    let src = ctx.work.join("scoped");
    MiniTool::new("@acme/tool", "1.0.0")
        .finch_id("acmetool")
        .write_to(&src);
    // An install made under the manifest id, as older tools laid it out.
    let old = ctx.personal_tier().join("acmetool");
    MiniTool::new("@acme/tool", "1.0.0")
        .finch_id("acmetool")
        .write_to(&old);
    std::fs::write(
        ctx.personal_tier().join(".plugins-lock.json"),
        json!({"acmetool": {"type": "local", "localPath": src, "installedAt": "2026-01-01T00:00:00.000Z"}}).to_string(),
    )
    .unwrap();
    ctx.run(&["enable", "acmetool"]).success();
    // What the app adds to the record, and the mini tool's private data.
    let state_path = ctx.runtime.join("extensions.json");
    let mut state = ctx.read_json(&state_path);
    state["extensions"]["acmetool"]["grantedPermissions"] = json!({"network": true});
    state["extensions"]["other"] = json!({"enabled": false, "note": "kept"});
    std::fs::write(&state_path, state.to_string()).unwrap();
    let data = ctx.runtime.join("extension-data");
    std::fs::create_dir_all(data.join("acmetool/cache")).unwrap();
    std::fs::write(data.join("acmetool/storage.json"), r#"{"k":1}"#).unwrap();
    std::fs::write(data.join("acmetool/cache/a.bin"), "a").unwrap();
    let out = ctx.run(&["update", "acmetool"]);
    let line = machine_line(&out.success().stdout());
    assert_eq!(line["id"], "acme@tool");
    assert_eq!(line["previousId"], "acmetool");
    // The same files under a new id: moved, but not a new version.
    assert_eq!(line["changed"], false);
    assert_eq!(
        out.stdout(),
        "• \"acme@tool\" (acme@tool) is already up to date (v1.0.0)\n\
         FINCH_CLI_RESULT_JSON:{\"id\":\"acme@tool\",\"previousId\":\"acmetool\",\"changed\":false,\"previousVersion\":\"1.0.0\",\"version\":\"1.0.0\",\"source\":\"local\"}\n",
        "{out}"
    );
    assert!(!old.exists());
    assert!(ctx.personal_tier().join("acme@tool").is_dir());
    let records = ctx.read_json(&ctx.personal_tier().join(".plugins-lock.json"));
    assert!(records.get("acmetool").is_none());
    assert_eq!(records["acme@tool"]["type"], "local");
    let state = ctx.read_json(&ctx.runtime.join("extensions.json"));
    assert_eq!(
        state,
        json!({
            "enabled": ["acme@tool"],
            "extensions": {
                "other": {"enabled": false, "note": "kept"},
                "acme@tool": {"enabled": true, "grantedPermissions": {"network": true}},
            },
            "autoUpdate": false,
        })
    );
    assert!(!data.join("acmetool").exists());
    assert_eq!(
        std::fs::read_to_string(data.join("acme@tool/storage.json")).unwrap(),
        r#"{"k":1}"#
    );
    assert_eq!(
        std::fs::read_to_string(data.join("acme@tool/cache/a.bin")).unwrap(),
        "a"
    );
}

#[test]
fn an_id_migration_merges_into_existing_data_and_state_of_the_new_id() {
    let ctx = TestContext::new();
    let src = ctx.work.join("scoped");
    MiniTool::new("@acme/tool", "1.0.0")
        .finch_id("acmetool")
        .write_to(&src);
    MiniTool::new("@acme/tool", "1.0.0")
        .finch_id("acmetool")
        .write_to(&ctx.personal_tier().join("acmetool"));
    std::fs::write(
        ctx.personal_tier().join(".plugins-lock.json"),
        json!({"acmetool": {"type": "local", "localPath": src, "installedAt": "2026-01-01T00:00:00.000Z"}}).to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(&ctx.runtime).unwrap();
    std::fs::write(
        ctx.runtime.join("extensions.json"),
        json!({
            "enabled": ["acmetool"],
            "extensions": {
                "acmetool": {"grantedPermissions": {"shell": true}, "pinned": 1},
                "acme@tool": {"enabled": false, "pinned": 2},
            },
        })
        .to_string(),
    )
    .unwrap();
    let data = ctx.runtime.join("extension-data");
    for (id, file, text) in [
        ("acmetool", "storage.json", "old"),
        ("acmetool", "only-old.txt", "o"),
        ("acme@tool", "storage.json", "new"),
    ] {
        std::fs::create_dir_all(data.join(id)).unwrap();
        std::fs::write(data.join(id).join(file), text).unwrap();
    }
    ctx.run(&["update", "acmetool"]).success();
    assert_eq!(
        ctx.read_json(&ctx.runtime.join("extensions.json")),
        json!({
            "enabled": ["acme@tool"],
            "extensions": {
                "acme@tool": {"enabled": true, "pinned": 2, "grantedPermissions": {"shell": true}},
            },
            "autoUpdate": false,
        })
    );
    assert!(!data.join("acmetool").exists());
    assert_eq!(
        ctx.tree(&data.join("acme@tool")),
        vec!["only-old.txt", "storage.json"]
    );
    assert_eq!(
        std::fs::read_to_string(data.join("acme@tool/storage.json")).unwrap(),
        "new"
    );
}

/// The machine line is for the app, which reads finch's stdout from a pipe: a person at a
/// terminal does not see it, unless `FINCH_CLI_RESULT_JSON=1` asks for it.
#[test]
fn the_machine_line_goes_to_a_pipe_and_to_a_terminal_only_when_asked() {
    let ctx = TestContext::new();
    let src = ctx.work.join("local-demo");
    demo("1.0.0").write_to(&src);
    ctx.run(&["add", src.to_str().unwrap()]).success();
    let piped = ctx.run(&["update", "demo"]);
    machine_line(&piped.success().stdout());

    let pty = crate::cards::Pty::spawn(&ctx, &["update", "demo"]);
    let (code, shown) = pty.finish();
    assert_eq!(code, 0, "{shown}");
    assert!(shown.contains("is already up to date"), "{shown}");
    assert!(!shown.contains("FINCH_CLI_RESULT_JSON"), "{shown}");

    let pty =
        crate::cards::Pty::spawn_env(&ctx, &["update", "demo"], &[("FINCH_CLI_RESULT_JSON", "1")]);
    let (code, shown) = pty.finish();
    assert_eq!(code, 0, "{shown}");
    assert!(shown.contains("FINCH_CLI_RESULT_JSON:{"), "{shown}");
}
