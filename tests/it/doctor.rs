//! Tests of `finch doctor` (SPEC §3.8): the report on one package and its exit code, the source
//! lint, the environment check (run against a closed registry port and a stand-in `node`, so no
//! real network or toolchain is involved), and `doctor --state` moving corrupt files aside.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::common::fixtures::MiniTool;
use crate::common::{Run, TestContext};

/// A registry URL on a port nothing listens on: the registry check must fail fast and softly.
const CLOSED_REGISTRY: &str = "http://127.0.0.1:9/";

fn path_str(path: &Path) -> &str {
    path.to_str().expect("test paths are UTF-8")
}

/// Writes `tool` to `<work>/<dir>` and runs `finch doctor <that dir> <extra…>`.
fn doctor(ctx: &TestContext, tool: &MiniTool, dir: &str, extra: &[&str]) -> (PathBuf, Run) {
    let path = ctx.work.join(dir);
    tool.write_to(&path);
    let mut args = vec!["doctor", path_str(&path)];
    args.extend_from_slice(extra);
    (path.clone(), ctx.run(&args))
}

fn weather() -> MiniTool {
    MiniTool::new("weather", "1.0.0").display_name("Weather")
}

// ---------------------------------------------------------------------------------------------
// doctor <path>

#[test]
fn a_clean_package_has_a_header_and_no_issues() {
    let ctx = TestContext::new();
    let tool = weather().finch_field(
        "permissions",
        json!({"network": true, "filesystem": "read", "secrets": ["weather.*"]}),
    );
    let (_, out) = doctor(&ctx, &tool, "weather", &[]);
    out.success();
    assert_eq!(out.stderr(), "", "{out}");
    insta::assert_snapshot!(out.stdout(), @r#"
    Weather
      id           weather
      package      weather
      version      1.0.0
      main         dist/index.js
      permissions  network, filesystem=read, secrets=["weather.*"]
    ✓ No issues found.
    "#);

    // A package without permissions, from a finch.json manifest.
    let tool = MiniTool::new("plain", "0.0.1").manifest_as_finch_json();
    let (_, out) = doctor(&ctx, &tool, "plain", &[]);
    out.success();
    insta::assert_snapshot!(out.stdout(), @r"
    plain
      id           plain
      package      plain
      version      0.0.1
      main         dist/index.js
      permissions  none
    ✓ No issues found.
    ");
}

#[test]
fn a_package_without_manifest_version_has_no_issues() {
    let ctx = TestContext::new();
    let tool = weather().remove_finch_field("manifestVersion");
    let (_, out) = doctor(&ctx, &tool, "weather", &[]);
    out.success();
    assert_eq!(out.stderr(), "", "{out}");
    insta::assert_snapshot!(out.stdout(), @r"
    Weather
      id           weather
      package      weather
      version      1.0.0
      main         dist/index.js
      permissions  none
    ✓ No issues found.
    ");
}

#[test]
fn permission_warnings_carry_the_official_wording_and_exit_0() {
    let ctx = TestContext::new();
    let tool = weather().finch_field(
        "permissions",
        json!({"sessionInteraction": "all", "sessionWaits": "every"}),
    );
    let (_, out) = doctor(&ctx, &tool, "weather", &[]);
    out.success();
    insta::assert_snapshot!(out.stdout(), @r#"
    Weather
      id           weather
      package      weather
      version      1.0.0
      main         dist/index.js
      permissions  sessionInteraction=all, sessionWaits=every
    ⚠ 2 warning(s):
      - unknown permission "sessionInteraction" (finch.permissions.sessionInteraction 不是已知权限位)
      - permissions.sessionWaits should be true, false or "all" (finch.permissions.sessionWaits 应为 boolean 或 'all')
    "#);
}

#[test]
fn fatal_issues_are_listed_and_exit_1() {
    let ctx = TestContext::new();
    let tool = MiniTool::new("broken", "0.1.0")
        .display_name("Broken")
        .finch_field("manifestVersion", json!(2))
        .finch_field(
            "permissions",
            json!({"secrets": ["*"], "filesystem": "write"}),
        )
        .no_entry();
    let (path, out) = doctor(&ctx, &tool, "broken", &[]);
    out.failure(1);
    insta::assert_snapshot!(out.stdout(), @r#"
    Broken
      id           broken
      package      broken
      version      0.1.0
      main         dist/index.js
      permissions  secrets=["*"], filesystem=write
    ✖ 3 fatal issue(s):
      - manifestVersion must be 1 (found 2)
      - entry file not found: dist/index.js (build the mini tool first)
      - permissions.secrets "*": use exact keys or a "prefix.*" pattern; a bare or mid-string wildcard is not allowed (finch.permissions.secrets: * 仅允许精确 key 或末尾 .* 前缀)
    ⚠ 1 warning(s):
      - permissions.filesystem "write" is not a level; use "readwrite"
    "#);
    assert_eq!(
        out.stderr(),
        format!("Error: {} has 3 fatal issue(s)\n", path.display()),
        "{out}"
    );
}

#[test]
fn warnings_alone_exit_0() {
    let ctx = TestContext::new();
    let tool = weather().finch_field(
        "permissions",
        json!({"filesystem": "write", "teleport": true}),
    );
    let (_, out) = doctor(&ctx, &tool, "weather", &[]);
    out.success();
    assert_eq!(out.stderr(), "", "{out}");
    insta::assert_snapshot!(out.stdout(), @r#"
    Weather
      id           weather
      package      weather
      version      1.0.0
      main         dist/index.js
      permissions  filesystem=write, teleport
    ⚠ 2 warning(s):
      - permissions.filesystem "write" is not a level; use "readwrite"
      - unknown permission "teleport" (finch.permissions.teleport 不是已知权限位)
    "#);
}

/// Documentation a bundle carries as strings (the public finch-help bundles its knowledge base,
/// which mentions `fetch(`, `ctx.ui.createPanel(`, `child_process`…) is not a use: no warning.
/// The same bundle calling `fetch` for real is warned about.
#[test]
fn documentation_in_strings_is_not_a_use_but_a_real_call_is() {
    let ctx = TestContext::new();
    let kb = r#"const KB = {"chunks": [{"text": "Reach an API with fetch(url); open a panel with ctx.ui.createPanel({ id }); run programs with require('child_process'); save with fs.writeFileSync(file, data)."}]};
"#;
    let quiet = weather().entry_source(&format!(
        "{kb}export function activate(ctx) {{\n  ctx.tools.register({{ name: 'help', description: KB.chunks[0].text.slice(0, 9), async execute() {{ return {{}}; }} }});\n}}\n"
    ));
    let (_, out) = doctor(&ctx, &quiet, "quiet", &[]);
    out.success();
    let stdout = out.stdout();
    for word in [
        "fetch",
        "createPanel",
        "child_process",
        "writes files",
        "warning",
    ] {
        assert!(!stdout.contains(word), "{word}:\n{out}");
    }

    let loud = weather().entry_source(&format!(
        "{kb}export async function activate(ctx) {{\n  const r = await fetch('https://example.invalid/kb');\n}}\n"
    ));
    let (_, out) = doctor(&ctx, &loud, "loud", &[]);
    out.success();
    out.stdout_has("dist/index.js uses fetch, but the manifest does not declare \"network\": true");
    assert!(!out.stdout().contains("createPanel"), "{out}");
}

/// A build script the package's `files` leaves out (the public finch-helper's
/// scripts/build-kb.mjs writes the knowledge base) never runs in the mini tool: what it does is
/// no warning. The same script inside `files` is.
#[test]
fn a_build_script_that_does_not_ship_is_not_held_to_the_manifest() {
    let ctx = TestContext::new();
    let script = "import fs from 'node:fs';\nconst kb = await fetch('https://example.invalid/docs');\nfs.mkdirSync('src', { recursive: true });\nfs.writeFileSync('src/kb.json', await kb.text());\n";
    let tool = weather()
        .package_field("files", json!(["dist/", "README.md"]))
        .file("scripts/build-kb.mjs", script);
    let (_, out) = doctor(&ctx, &tool, "left-out", &[]);
    out.success();
    assert!(out.stdout().contains("No issues found"), "{out}");

    let shipped = weather()
        .package_field("files", json!(["dist/", "scripts/"]))
        .file("scripts/build-kb.mjs", script);
    let (_, out) = doctor(&ctx, &shipped, "shipped", &[]);
    out.success();
    out.stdout_has(
        "scripts/build-kb.mjs uses fetch, but the manifest does not declare \"network\": true",
    );
    out.stdout_has("scripts/build-kb.mjs writes files (mkdirSync) and never mentions storagePath");
}

#[test]
fn ctx_members_finch_cannot_honour_are_warnings() {
    let ctx = TestContext::new();
    let tool = weather()
        .entry_source(
            "export async function activate(ctx) {\n\
             const panel = ctx.ui.createPanel();\n\
             await ctx.oauth.connect(provider);\n\
             // ctx.browser.open(url) only in a comment: not a use\n\
             ctx.ui.showToast({ title: 'ok' });\n\
             }\n",
        )
        .file(
            "dist/pet.js",
            "export function pet(ctx) { return ctx.ui.createCanvasWindow({ entry: 'c.js' }); }\n",
        );
    let (_, out) = doctor(&ctx, &tool, "weather", &[]);
    out.success();
    let stdout = out.stdout();
    assert!(stdout.contains("⚠ 3 warning(s):\n"), "{out}");
    for line in [
        "  - dist/index.js uses ctx.ui.createPanel, which finch cannot honour: finch accepts it and shows nothing (a headless host has no window); `finch reload` lists it\n",
        "  - dist/pet.js uses ctx.ui.createCanvasWindow, which finch cannot honour: finch accepts it",
        "  - dist/index.js uses ctx.oauth, which finch cannot honour: it rejects under finch, a headless host\n",
    ] {
        assert!(stdout.contains(line), "lacks {line:?}:\n{out}");
    }
    assert!(!stdout.contains("browser.open"), "{out}");
    assert!(!stdout.contains("showToast"), "{out}");
}

#[test]
fn the_entry_must_not_import_the_api_at_runtime() {
    let ctx = TestContext::new();
    let tool = weather().entry_source(
        "import { defineTool } from '@finchtoys/minitool-api';\n\
         export async function activate(ctx) { defineTool(ctx); }\n",
    );
    let (_, out) = doctor(&ctx, &tool, "weather", &[]);
    out.failure(1);
    let stdout = out.stdout();
    assert!(
        stdout.contains(
            "✖ 1 fatal issue(s):\n  - dist/index.js imports \"@finchtoys/minitool-api\" at runtime; it provides types only — use `import type`\n"
        ),
        "{out}"
    );

    // The bare `finch` package is the same mistake, written as require().
    let tool =
        weather().entry_source("const api = require('finch');\nexport function activate(ctx) {}\n");
    let (_, out) = doctor(&ctx, &tool, "weather-require", &[]);
    out.failure(1)
        .stdout_has("  - dist/index.js imports \"finch\" at runtime; it provides types only");
}

#[test]
fn a_type_only_import_of_the_api_is_fine() {
    let ctx = TestContext::new();
    let tool = weather().entry_source(
        "import type { MiniToolContext } from '@finchtoys/minitool-api';\n\
         // import { x } from '@finchtoys/minitool-api';\n\
         export async function activate(ctx: MiniToolContext) {}\n",
    );
    let (_, out) = doctor(&ctx, &tool, "weather", &[]);
    out.success();
    assert!(out.stdout().ends_with("✓ No issues found.\n"), "{out}");
}

#[test]
fn an_electron_import_elsewhere_is_a_warning() {
    let ctx = TestContext::new();
    let tool = weather()
        .file(
            "src/window.ts",
            "import { BrowserWindow } from 'electron';\nexport const w = BrowserWindow;\n",
        )
        .file("node_modules/dep/index.js", "require('electron');\n");
    let (_, out) = doctor(&ctx, &tool, "weather", &[]);
    out.success();
    assert!(
        out.stdout().ends_with(
            "⚠ 1 warning(s):\n  - src/window.ts imports \"electron\", which is not available to mini tools\n"
        ),
        "{out}"
    );

    // In the entry module it is fatal: the entry runs.
    let tool = weather().entry_source("import 'electron';\nexport function activate(ctx) {}\n");
    let (_, out) = doctor(&ctx, &tool, "weather-entry", &[]);
    out.failure(1).stdout_has(
        "✖ 1 fatal issue(s):\n  - dist/index.js imports \"electron\", which is not available to mini tools\n",
    );
}

#[test]
fn an_entry_without_a_named_activate_export_is_fatal() {
    let ctx = TestContext::new();
    let tool = weather().entry_source("export default function activate(ctx) {}\n");
    let (_, out) = doctor(&ctx, &tool, "weather", &[]);
    out.failure(1);
    assert!(
        out.stdout().ends_with(
            "✖ 1 fatal issue(s):\n  - dist/index.js does not export a named `activate` function (write `export function activate(ctx) { … }`)\n"
        ),
        "{out}"
    );

    for (dir, entry) in [
        ("const", "export const activate = async (ctx) => {};\n"),
        ("list", "function activate(ctx) {}\nexport { activate };\n"),
    ] {
        let (_, out) = doctor(&ctx, &weather().entry_source(entry), dir, &[]);
        out.success();
    }
}

#[test]
fn json_is_one_document_even_on_failure() {
    let ctx = TestContext::new();
    let tool = MiniTool::new("broken", "0.1.0")
        .display_name("Broken")
        .finch_field("manifestVersion", json!(2))
        .finch_field("permissions", json!({"teleport": true}));
    let (path, out) = doctor(&ctx, &tool, "broken", &["--json"]);
    out.failure(1);
    assert_eq!(
        out.json(),
        json!({
            "path": path,
            "id": "broken",
            "name": "Broken",
            "package": "broken",
            "version": "0.1.0",
            "main": "dist/index.js",
            "permissions": {"teleport": true},
            "fatal": ["manifestVersion must be 1 (found 2)"],
            "warnings": ["unknown permission \"teleport\""],
            "ok": false,
        }),
        "{out}"
    );
    out.stderr_has("Error: ");

    let (path, out) = doctor(&ctx, &weather(), "weather", &["--json"]);
    out.success();
    assert_eq!(out.json()["path"], json!(path), "{out}");
    assert_eq!(out.json()["ok"], true, "{out}");
    assert_eq!(out.json()["fatal"], json!([]), "{out}");
    assert_eq!(out.json()["warnings"], json!([]), "{out}");
}

#[test]
fn a_directory_that_is_not_a_mini_tool_exits_1() {
    let ctx = TestContext::new();
    let dir = ctx.work.join("plain-package");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("package.json"), "{\"name\": \"plain\"}\n").unwrap();
    let out = ctx.run(&["doctor", path_str(&dir)]);
    out.failure(1);
    assert_eq!(out.stdout(), "", "{out}");
    out.stderr_has(&format!(
        "Error: No Finch extension found in {}\n",
        dir.display()
    ));

    // Relative paths resolve against the working directory.
    let out = ctx.run(&["doctor", "plain-package"]);
    out.failure(1);
    out.stderr_has(&format!(
        "Error: No Finch extension found in {}\n",
        dir.display()
    ));
}

#[test]
fn a_missing_path_exits_3() {
    let ctx = TestContext::new();
    let out = ctx.run(&["doctor", "nowhere"]);
    out.failure(3);
    assert_eq!(out.stdout(), "", "{out}");
    out.stderr_has(&format!(
        "Error: no such directory: {}",
        ctx.work.join("nowhere").display()
    ));

    let out = ctx.run(&["--json", "doctor", "nowhere"]);
    out.failure(3);
    assert_eq!(out.json()["error"]["code"], "not_found", "{out}");
}

#[test]
fn a_regex_literal_with_slashes_does_not_hide_the_activate_export() {
    let ctx = TestContext::new();
    // What esbuild --minify writes: one line, a URL regex, then the export list.
    let tool = weather().entry_source(
        "var r=/^https?:\\/\\//;function a(c){return r.test(c)}export{a as activate};\n",
    );
    let (_, out) = doctor(&ctx, &tool, "weather", &[]);
    out.success();
    assert!(out.stdout().ends_with("✓ No issues found.\n"), "{out}");
}

#[test]
fn a_quote_in_a_regex_literal_does_not_unhide_commented_out_code() {
    let ctx = TestContext::new();
    let tool = weather().entry_source(
        "const q = /'/g;\n// const api = require('finch');\nexport function activate(ctx) { return q; }\n",
    );
    let (_, out) = doctor(&ctx, &tool, "weather", &[]);
    out.success();
    assert!(out.stdout().ends_with("✓ No issues found.\n"), "{out}");
}

// ---------------------------------------------------------------------------------------------
// doctor (the environment)

/// A stand-in `node` at `<work>/bin/node` that prints `version`, named in finch.toml together
/// with the closed registry.
fn fake_node(ctx: &TestContext, version: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = ctx.work.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let node = bin.join("node");
    std::fs::write(&node, format!("#!/bin/sh\necho {version}\n")).unwrap();
    std::fs::set_permissions(&node, std::fs::Permissions::from_mode(0o755)).unwrap();
    // The keyring check depends on the machine unless the store is named; `none` is the same
    // everywhere.
    ctx.write_config(&format!(
        "registry = \"{CLOSED_REGISTRY}\"\nnode = \"{}\"\n[runtime]\nkeyring = \"none\"\n",
        node.display()
    ));
    node
}

/// The registry check's detail after "not reachable: " depends on the OS; everything before it
/// is finch's.
fn mask_registry_error(text: &str) -> String {
    text.lines()
        .map(|line| match line.split_once(" not reachable: ") {
            Some((head, _)) => format!("{head} not reachable: [ERROR]\n"),
            None => format!("{line}\n"),
        })
        .collect()
}

#[test]
fn the_environment_check_lists_every_check() {
    let ctx = TestContext::new();
    fake_node(&ctx, "v20.11.1");
    let src = ctx.work.join("src/weather");
    weather().write_to(&src);
    ctx.run(&["add", path_str(&src)]).success();
    ctx.run(&["enable", "weather"]).success();

    let out = ctx.run(&["doctor"]);
    out.success();
    assert_eq!(out.stderr(), "", "{out}");
    insta::assert_snapshot!(mask_registry_error(&ctx.filter(&out.stdout())), @r#"
    ✓ runtime home  [BASE]/home/.finch
    ✓ agent home    [BASE]/home/finchnest (FINCH_AGENT_HOME)
    ✓ state files   2 read, all valid
    ✓ node          [BASE]/work/bin/node v20.11.1 (from finch.toml)
    ⚠ keyring       secrets are turned off: finch.toml sets [runtime] keyring = "none", and finch never keeps secrets in plain files
    ⚠ registry      http://127.0.0.1:9/ not reachable: [ERROR]
    ✓ mini tools    1 installed, all valid
    ✓ Landlock      ABI 7, enforced
    ✓ seccomp       yes
    ✓ trees         each confined tree in a PID and mount namespace of its own, with its own /proc; at most 1024 processes
    ✓ sandbox       read-only enforced; workspace-write enforced
    ✓ hosts         enforced: a tree with a host list gets a network namespace of its own whose only way out is finch's proxy
    ✓ sockets       pathname Unix sockets refused unless [sandbox] unix_sockets names one (Landlock cannot tell them apart before ABI 9, so naming one opens them all)
    "#);

    let out = ctx.run(&["--json", "doctor"]);
    out.success();
    let doc = out.json();
    assert_eq!(doc["ok"], true, "{out}");
    let checks: Vec<(&str, &str)> = doc["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .map(|c| (c["check"].as_str().unwrap(), c["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        checks,
        vec![
            ("runtime home", "ok"),
            ("agent home", "ok"),
            ("state files", "ok"),
            ("node", "ok"),
            ("keyring", "warning"),
            ("registry", "warning"),
            ("mini tools", "ok"),
            ("Landlock", "ok"),
            ("seccomp", "ok"),
            ("trees", "ok"),
            ("sandbox", "ok"),
            ("hosts", "ok"),
            ("sockets", "ok"),
        ],
        "{out}"
    );
}

#[test]
fn doctor_without_a_path_checks_the_current_directory_when_it_is_a_package() {
    let ctx = TestContext::new();
    fake_node(&ctx, "v20.11.1");
    let src = ctx.work.join("broken");
    MiniTool::new("broken", "0.1.0")
        .display_name("Broken")
        .no_entry()
        .write_to(&src);
    let run_in =
        |dir: &Path, args: &[&str]| Run(ctx.cmd().current_dir(dir).args(args).output().unwrap());

    // A CI step `finch doctor` inside a broken package fails, as with the official CLI.
    let out = run_in(&src, &["doctor"]);
    out.failure(1);
    insta::assert_snapshot!(out.stdout(), @r"
    Broken
      id           broken
      package      broken
      version      0.1.0
      main         dist/index.js
      permissions  none
    ✖ 1 fatal issue(s):
      - entry file not found: dist/index.js (build the mini tool first)
    ");
    assert_eq!(
        out.stderr(),
        format!("Error: {} has 1 fatal issue(s)\n", src.display())
    );

    // A package.json that does not parse is a broken package too, not "no package here".
    let unparsable = ctx.work.join("unparsable");
    std::fs::create_dir_all(&unparsable).unwrap();
    std::fs::write(unparsable.join("package.json"), "{\"finch\": ").unwrap();
    run_in(&unparsable, &["doctor"]).failure(1);

    // --env checks the environment from inside a package; a plain npm project is no package.
    run_in(&src, &["doctor", "--env"])
        .success()
        .stdout_has("✓ runtime home");
    let plain = ctx.work.join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    std::fs::write(plain.join("package.json"), r#"{"name":"plain"}"#).unwrap();
    run_in(&plain, &["doctor"])
        .success()
        .stdout_has("✓ runtime home");
    ctx.run(&["doctor", "--env", "."]).failure(2);
}

#[test]
fn node_too_old_fails_and_node_missing_warns() {
    let ctx = TestContext::new();
    let node = fake_node(&ctx, "v16.20.2");
    let out = ctx.run(&["doctor"]);
    out.failure(1);
    out.stdout_has(&format!(
        "✖ node          {} is v16.20.2; mini tools need node ≥ 18\n",
        node.display()
    ));
    out.stderr_has("Error: 1 check(s) failed");

    // No node anywhere: a warning that says how to fix it.
    let ctx = TestContext::new();
    ctx.write_config(&format!("registry = \"{CLOSED_REGISTRY}\"\n"));
    let empty = ctx.work.join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    let out = Run(ctx
        .cmd()
        .arg("doctor")
        .env("PATH", &empty)
        .output()
        .unwrap());
    out.success();
    out.stdout_has("⚠ node          not found (mini tools need node ≥ 18: install it, or set `node` in finch.toml or FINCH_NODE)\n");
}

#[test]
fn a_corrupt_state_file_fails_the_environment_check() {
    let ctx = TestContext::new();
    fake_node(&ctx, "v20.11.1");
    std::fs::create_dir_all(&ctx.runtime).unwrap();
    let state = ctx.runtime.join("extensions.json");
    std::fs::write(&state, "{\"enabled\": [\n").unwrap();

    let out = ctx.run(&["doctor"]);
    out.failure(1);
    out.stdout_has(&format!(
        "✖ state file    {} is not valid JSON (line 2, column 0)",
        state.display()
    ))
    .stdout_has("(run `finch doctor --state`)\n")
    .stdout_has("✓ mini tools    0 installed, all valid\n");
    assert_eq!(out.stderr(), "Error: 1 check(s) failed\n", "{out}");

    let out = ctx.run(&["--json", "doctor"]);
    out.failure(1);
    let doc = out.json();
    assert_eq!(doc["ok"], false, "{out}");
    assert_eq!(doc["checks"][2]["check"], "state file", "{out}");
    assert_eq!(doc["checks"][2]["status"], "error", "{out}");
    // The report was the one document; the error adds nothing to stdout.
    assert!(doc.get("error").is_none(), "{out}");
}

#[test]
fn a_broken_installed_tool_fails_the_environment_check() {
    let ctx = TestContext::new();
    fake_node(&ctx, "v20.11.1");
    let src = ctx.work.join("src/weather");
    weather().write_to(&src);
    ctx.run(&["add", "-g", path_str(&src)]).success();
    std::fs::remove_file(ctx.global_tier().join("weather/dist/index.js")).unwrap();

    let out = ctx.run(&["doctor"]);
    out.failure(1);
    out.stdout_has(
        "✖ mini tool     weather (global): entry file not found: dist/index.js (build the mini tool first)\n",
    );
}

// ---------------------------------------------------------------------------------------------
// doctor --state

fn corrupt_extensions_json(ctx: &TestContext) -> (PathBuf, &'static [u8]) {
    let state = ctx.runtime.join("extensions.json");
    std::fs::create_dir_all(&ctx.runtime).unwrap();
    let bytes: &[u8] = b"{\"enabled\": [\n";
    std::fs::write(&state, bytes).unwrap();
    (state, bytes)
}

/// Names in the runtime home that start with `extensions.json.corrupt-`.
fn moved_aside(ctx: &TestContext) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(&ctx.runtime)
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("extensions.json.corrupt-")
        })
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

#[test]
fn doctor_state_without_a_terminal_needs_yes() {
    let ctx = TestContext::new();
    let (state, bytes) = corrupt_extensions_json(&ctx);
    let out = ctx.run(&["doctor", "--state"]);
    out.failure(4);
    out.stdout_has(&format!("✖ {} is not valid JSON", state.display()))
        .stderr_has(&format!(
            "Error: Move {} aside? needs an answer, and there is no terminal to ask on",
            state.display()
        ))
        .stderr_has("hint: pass --yes to answer yes");
    assert_eq!(std::fs::read(&state).unwrap(), bytes);
    assert_eq!(moved_aside(&ctx), Vec::<PathBuf>::new());
}

#[test]
fn doctor_state_yes_moves_the_corrupt_file_aside() {
    let ctx = TestContext::new();
    let (state, bytes) = corrupt_extensions_json(&ctx);
    // A valid state file beside it stays where it is.
    let records = ctx.personal_tier().join(".plugins-lock.json");
    std::fs::create_dir_all(ctx.personal_tier()).unwrap();
    std::fs::write(&records, "{}\n").unwrap();

    let out = ctx.run(&["doctor", "--state", "--yes"]);
    out.success();
    let aside = moved_aside(&ctx);
    assert_eq!(aside.len(), 1, "{out}");
    let name = aside[0].file_name().unwrap().to_string_lossy().into_owned();
    let stamp = name.strip_prefix("extensions.json.corrupt-").unwrap();
    assert!(
        regex::Regex::new(r"^\d{8}T\d{6}Z$")
            .unwrap()
            .is_match(stamp),
        "{name}"
    );
    assert_eq!(std::fs::read(&aside[0]).unwrap(), bytes);
    assert!(!state.exists());
    assert_eq!(std::fs::read_to_string(&records).unwrap(), "{}\n");
    assert_eq!(
        out.stdout(),
        format!(
            "✖ {} is not valid JSON (line 2, column 0): EOF while parsing a list at line 2 column 0\n\
             ✓ Moved {} → {}\n\
             ✓ {}\n",
            state.display(),
            state.display(),
            aside[0].display(),
            records.display()
        ),
        "{out}"
    );

    // Now finch can write the state again, and doctor is clean.
    ctx.run(&["enable", "x"]).success();
    ctx.run(&["doctor", "--state"]).success();
}

#[test]
fn doctor_state_json_reports_what_moved() {
    let ctx = TestContext::new();
    let (state, _) = corrupt_extensions_json(&ctx);
    let out = ctx.run(&["--json", "--yes", "doctor", "--state"]);
    out.success();
    let aside = moved_aside(&ctx);
    let doc = out.json();
    assert_eq!(doc["checked"], json!([state]), "{out}");
    assert_eq!(doc["remaining"], 0, "{out}");
    assert_eq!(doc["movedAside"][0]["path"], json!(state), "{out}");
    assert_eq!(doc["movedAside"][0]["movedTo"], json!(aside[0]), "{out}");
    assert!(
        doc["movedAside"][0]["problem"]
            .as_str()
            .is_some_and(|p| p.contains("is not valid JSON")),
        "{out}"
    );
}

#[test]
fn two_corrupt_files_moved_aside_in_one_second_are_both_kept() {
    let ctx = TestContext::new();
    // Start just after a second boundary so that both runs fall within one second.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    std::thread::sleep(std::time::Duration::from_nanos(
        1_000_000_000 - u64::from(now.subsec_nanos()),
    ));
    let state = ctx.runtime.join("extensions.json");
    std::fs::create_dir_all(&ctx.runtime).unwrap();
    std::fs::write(&state, "{first").unwrap();
    ctx.run(&["doctor", "--state", "--yes"]).success();
    std::fs::write(&state, "{second").unwrap();
    ctx.run(&["doctor", "--state", "--yes"]).success();

    let mut kept: Vec<String> = moved_aside(&ctx)
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    kept.sort();
    assert_eq!(kept, vec!["{first", "{second"]);
}

#[test]
fn doctor_state_with_nothing_wrong_exits_0() {
    let ctx = TestContext::new();
    ctx.run(&["enable", "x"]).success();
    let out = ctx.run(&["doctor", "--state"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!("✓ {}\n", ctx.runtime.join("extensions.json").display()),
        "{out}"
    );
    // --state checks state files, not a package.
    ctx.run(&["doctor", "--state", "."]).failure(2);
}

/// Issue 13, 9: a token in the registry URL (finch.toml or `--registry`) is never printed.
#[test]
fn registry_credentials_are_never_printed() {
    let ctx = TestContext::new();
    ctx.write_config("registry = \"http://user:SECRET-TOKEN@127.0.0.1:9/\"\n");
    for args in [
        vec!["doctor"],
        vec!["--json", "doctor"],
        vec!["-v", "add", "left-pad"],
        vec![
            "-v",
            "add",
            "left-pad",
            "--registry",
            "http://me:SECRET-TOKEN@127.0.0.1:9/",
        ],
    ] {
        let out = ctx.run(&args);
        let all = format!("{}{}", out.stdout(), out.stderr());
        assert!(!all.contains("SECRET-TOKEN"), "{args:?}: {out}");
    }
    let out = ctx.run(&["doctor"]);
    out.stdout_has("http://***@127.0.0.1:9/");
}
