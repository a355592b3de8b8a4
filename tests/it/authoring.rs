//! `finch new`, `finch test` (issue 32) through the real binary, with real node: the cases of
//! a hand-written package run through the host (cards and dialogs answered by the case, a
//! scratch workspace and storage per case), every reporter, `--update`, `--filter`, `--jobs`,
//! and every documented error. The scaffold's own round trip (`finch new`, `npm install`,
//! `finch test`) needs esbuild from the test peers and is ignored without them
//! (`scripts/test` installs them and runs it).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::common::TestContext;

const NEEDS_ESBUILD: &str = "needs esbuild: run scripts/install-test-peers (scripts/test does)";

/// A mini tool written by hand (no build step): `greet`; `confirm`, which opens a confirm
/// dialog; `count`, which counts its calls in `ctx.storage` and in a file under storagePath;
/// `readfile`, which reads a file of the call's working directory.
const ENTRY: &str = r#"
import fs from "node:fs";
import path from "node:path";
export async function activate(ctx) {
  ctx.tools.register({
    name: "greet", description: "Greets",
    inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false },
    async execute(input) {
      const greeting = `Hello, ${input.name}!`;
      return { content: [{ type: "text", text: greeting }], structuredContent: { greeting, length: input.name.length, tags: ["a", "b"] } };
    },
  });
  ctx.tools.register({
    name: "confirm", description: "Asks before it acts",
    inputSchema: { type: "object", properties: {} },
    async execute() {
      const r = await ctx.ui.showConfirmDialog({ title: "Delete?", confirmLabel: "Delete" });
      return r.confirmed ? "deleted" : "kept";
    },
  });
  ctx.tools.register({
    name: "count", description: "Counts its calls",
    inputSchema: { type: "object", properties: {} },
    async execute() {
      const n = ((await ctx.storage.get("n")) ?? 0) + 1;
      await ctx.storage.set("n", n);
      const file = path.join(ctx.storagePath, "calls.txt");
      fs.appendFileSync(file, "x");
      return `call ${n}, file ${fs.readFileSync(file, "utf8").length}`;
    },
  });
  ctx.tools.register({
    name: "readfile", description: "Reads a file of the working directory",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    async execute(input, exec) {
      return fs.readFileSync(path.join(exec.cwd, input.path), "utf8");
    },
  });
}
"#;

/// The hand-written package in `<work>/pkg`, with `cases` as its finch.test.json.
fn package(ctx: &TestContext, cases: Value) -> PathBuf {
    let dir = ctx.work.join("pkg");
    fs::create_dir_all(dir.join("dist")).unwrap();
    fs::write(
        dir.join("package.json"),
        json!({
            "name": "demo", "version": "1.0.0", "type": "module", "main": "dist/index.js",
            "finch": {"manifestVersion": 1, "displayName": "Demo",
                      // `readfile` reads the workspace: declared, or the sandbox refuses it.
                      "permissions": {"filesystem": "read"}}
        })
        .to_string(),
    )
    .unwrap();
    fs::write(dir.join("dist/index.js"), ENTRY).unwrap();
    write_cases(&dir, cases);
    dir
}

fn write_cases(dir: &Path, cases: Value) {
    fs::write(
        dir.join("finch.test.json"),
        serde_json::to_string_pretty(&json!({ "cases": cases })).unwrap(),
    )
    .unwrap();
}

/// Every kind of expectation, setup files, rules, cards and dialogs; all pass.
fn passing_cases() -> Value {
    json!([
        {"name": "greets", "tool": "greet", "args": {"name": "Ada"},
         "expect": {"equals": "Hello, Ada!", "contains": ["Hello", "Ada"], "matches": "^Hello, [A-Z]",
                    "structuredContent": {"length": 3, "tags": ["a", "b"]}, "isError": false, "permission": "ask"}},
        {"name": "card denied", "tool": "greet", "args": {"name": "Ada"}, "card": "deny",
         "expect": {"isError": true, "permission": "ask", "contains": "denied"}},
        {"name": "deny rule", "tool": "greet", "args": {"name": "Ada"},
         "setup": {".finch/permissions.json": {"deny": [{"toolName": "demo_greet", "key": "*"}]}},
         "expect": {"isError": true, "permission": "deny"}},
        {"name": "bad arguments", "tool": "greet", "args": {"name": 3},
         "expect": {"isError": true, "permission": "none", "contains": "Invalid arguments"}},
        {"name": "dialog confirmed", "tool": "confirm", "dialogs": ["Delete"], "expect": {"equals": "deleted"}},
        {"name": "dialog cancelled", "tool": "confirm", "dialogs": ["Cancel"], "expect": {"equals": "kept"}},
        {"name": "dialog unanswered", "tool": "confirm", "expect": {"equals": "kept"}},
        {"name": "storage first", "tool": "count", "expect": {"equals": "call 1, file 1"}},
        {"name": "storage is fresh", "tool": "count", "expect": {"equals": "call 1, file 1"}},
        {"name": "setup file", "tool": "readfile", "args": {"path": "notes/a.txt"},
         "setup": {"notes/a.txt": "from the case"}, "expect": {"equals": "from the case"}}
    ])
}

/// Names and order of the `testcase` elements of JUnit XML, parsed by python3's ElementTree.
fn junit_cases(xml: &str) -> Vec<(String, bool)> {
    let script = r#"
import sys, json, xml.etree.ElementTree as ET
root = ET.fromstring(sys.stdin.read())
print(json.dumps([[c.get("name"), c.find("failure") is not None] for c in root.iter("testcase")]))
"#;
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), xml.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "JUnit XML does not parse: {xml}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every file under `dir` with its contents, to prove a failed command changed nothing.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn test_runs_every_kind_of_case_through_the_host() {
    let ctx = TestContext::new();
    let dir = package(&ctx, passing_cases());
    let run = ctx.run(&["test", dir.to_str().unwrap()]);
    run.success();
    assert_eq!(
        run.stdout(),
        "✓ greets\n✓ card denied\n✓ deny rule\n✓ bad arguments\n✓ dialog confirmed\n✓ dialog cancelled\n✓ dialog unanswered\n✓ storage first\n✓ storage is fresh\n✓ setup file\n\n10 cases: 10 passed, 0 failed\n"
    );
    // Nothing of the run lands in the person's homes.
    assert!(!ctx.runtime.join("extension-data").exists());
    assert!(!ctx.runtime.join("pi").exists());
}

#[test]
fn test_json_reports_actual_answers() {
    let ctx = TestContext::new();
    let dir = package(
        &ctx,
        json!([{"name": "greets", "tool": "greet", "args": {"name": "Bo"}}]),
    );
    let run = ctx.run(&["test", dir.to_str().unwrap(), "--json"]);
    run.success();
    assert_eq!(
        run.json(),
        json!({"passed": 1, "failed": 0, "cases": [{
            "file": "finch.test.json", "name": "greets", "tool": "greet", "passed": true, "failures": [],
            "actual": {"text": "Hello, Bo!", "structuredContent": {"greeting": "Hello, Bo!", "length": 2, "tags": ["a", "b"]},
                       "isError": false, "permission": "ask"}
        }]})
    );
}

#[test]
fn test_failing_case_exits_1_with_a_diff_and_update_fixes_it() {
    let ctx = TestContext::new();
    let dir = package(
        &ctx,
        json!([
            {"name": "greets", "tool": "greet", "args": {"name": "Ada"}, "description": "kept as it is",
             "expect": {"equals": "Hello, Bob!", "structuredContent": {"length": 4}}},
            {"name": "passes", "tool": "greet", "args": {"name": "Ada"}, "expect": {"contains": "Ada"}},
            {"name": "bare", "tool": "readfile", "args": {"path": "missing.txt"}}
        ]),
    );
    let path = dir.to_str().unwrap();
    let run = ctx.run(&["test", path, "--filter", "e"]);
    run.failure(1);
    assert_eq!(
        run.stdout(),
        "✗ greets\n    equals: - expected, + actual\n    - Hello, Bob!\n    + Hello, Ada!\n    structuredContent: - expected, + actual\n      {\n    -   \"length\": 4\n    +   \"greeting\": \"Hello, Ada!\",\n    +   \"length\": 3,\n    +   \"tags\": [\n    +     \"a\",\n    +     \"b\"\n    +   ]\n      }\n✓ passes\n✓ bare\n\n3 cases: 2 passed, 1 failed\n"
    );
    assert_eq!(
        run.stderr(),
        "Error: 1 of 3 cases failed\nhint: `finch test --update` takes the actual answers as the new expectations\n"
    );

    let run = ctx.run(&["test", path, "--update"]);
    run.success();
    assert_eq!(
        run.stderr(),
        "updated: greets\nupdated: bare\n2 of 3 cases updated from their actual answers\n"
    );
    let file: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("finch.test.json")).unwrap()).unwrap();
    assert_eq!(
        file["cases"],
        json!([
            {"name": "greets", "tool": "greet", "args": {"name": "Ada"}, "description": "kept as it is",
             "expect": {"equals": "Hello, Ada!",
                        "structuredContent": {"greeting": "Hello, Ada!", "length": 3, "tags": ["a", "b"]}}},
            {"name": "passes", "tool": "greet", "args": {"name": "Ada"}, "expect": {"contains": "Ada"}},
            {"name": "bare", "tool": "readfile", "args": {"path": "missing.txt"},
             "expect": {"equals": "`demo_readfile` failed: ENOENT: no such file or directory, open '<workspace>/missing.txt'", "isError": true}}
        ])
    );
    ctx.run(&["test", path]).success();
}

#[test]
fn test_reporters_tap_and_junit() {
    let ctx = TestContext::new();
    let dir = package(
        &ctx,
        json!([
            {"name": "ok <1> & \"quoted\"", "tool": "greet", "args": {"name": "Ada"}, "expect": {"contains": "Ada"}},
            {"name": "fails #2", "tool": "greet", "args": {"name": "Ada"}, "expect": {"isError": true}}
        ]),
    );
    fs::create_dir_all(dir.join("tests")).unwrap();
    fs::write(
        dir.join("tests/more.finch.json"),
        json!({"cases": [{"name": "more", "tool": "confirm", "expect": {"equals": "kept"}}]})
            .to_string(),
    )
    .unwrap();
    let path = dir.to_str().unwrap();

    let tap = ctx.run(&["test", path, "--reporter", "tap"]);
    tap.failure(1);
    assert_eq!(
        tap.stdout(),
        "TAP version 13\n1..3\nok 1 - finch.test.json › ok <1> & \"quoted\"\nnot ok 2 - finch.test.json › fails \\#2\n  ---\n  file: finch.test.json\n  failures: |\n    isError: expected true, got false\n  ...\nok 3 - tests/more.finch.json › more\n"
    );

    let junit = ctx.run(&["test", path, "--reporter", "junit"]);
    junit.failure(1);
    assert_eq!(
        junit_cases(&junit.stdout()),
        vec![
            ("ok <1> & \"quoted\"".to_string(), false),
            ("fails #2".to_string(), true),
            ("more".to_string(), false)
        ]
    );
    assert!(
        junit
            .stdout()
            .contains("<testsuite name=\"tests/more.finch.json\" tests=\"1\" failures=\"0\"")
    );
}

#[test]
fn test_jobs_run_cases_side_by_side_with_the_same_results() {
    let ctx = TestContext::new();
    let dir = package(&ctx, passing_cases());
    let one = ctx.run(&["test", dir.to_str().unwrap(), "--json"]);
    let three = ctx.run(&["test", dir.to_str().unwrap(), "--json", "--jobs", "3"]);
    one.success();
    three.success();
    assert_eq!(one.json(), three.json());
    ctx.run(&["test", dir.to_str().unwrap(), "--jobs", "0"])
        .failure(2);
}

#[test]
fn test_filter_that_matches_nothing_fails() {
    let ctx = TestContext::new();
    let dir = package(&ctx, passing_cases());
    let run = ctx.run(&["test", dir.to_str().unwrap(), "--filter", "nothing like it"]);
    run.failure(1);
    assert_eq!(
        run.stderr(),
        "Error: no case's name contains \"nothing like it\"\nhint: `finch test` without --filter runs every case\n"
    );
}

#[test]
fn test_errors_are_one_line_with_a_hint_and_change_nothing() {
    let ctx = TestContext::new();
    let dir = package(&ctx, passing_cases());
    let path = dir.to_str().unwrap().to_string();

    let empty = ctx.work.join("empty");
    fs::create_dir_all(&empty).unwrap();
    let run = ctx.run(&["test", empty.to_str().unwrap()]);
    run.failure(1);
    assert_eq!(
        run.stderr(),
        format!(
            "Error: no mini tool in {}: no finch.json, and no package.json with a \"finch\" object\nhint: run it in a mini tool's directory, or make one with `finch new <dir>`\n",
            empty.display()
        )
    );

    write_cases(
        &dir,
        json!([{"name": "x", "tool": "greet"}, {"name": "y", "tool": "nope", "args": {}}]),
    );
    let before = snapshot(&ctx.base());
    let run = ctx.run(&["test", &path, "--update"]);
    run.failure(2);
    assert_eq!(
        run.stderr(),
        format!(
            "Error: {}: case \"y\" calls `nope`, which the mini tool does not register (it registers: greet, confirm, count, readfile)\nhint: name a tool by the name its ctx.tools.register() gives it\n",
            dir.join("finch.test.json").display()
        )
    );
    assert_eq!(snapshot(&ctx.base()), before);

    fs::write(
        dir.join("finch.test.json"),
        "{\"cases\": [{\"tool\": \"greet\",}]}",
    )
    .unwrap();
    let run = ctx.run(&["test", &path]);
    run.failure(2);
    assert_eq!(
        run.stderr(),
        format!(
            "Error: {}: trailing comma at line 1 column 29\nhint: the test file's format is in docs/authoring.md\n",
            dir.join("finch.test.json").display()
        )
    );

    fs::remove_file(dir.join("finch.test.json")).unwrap();
    let run = ctx.run(&["test", &path]);
    run.failure(1);
    assert!(run.stderr().starts_with(&format!(
        "Error: no test file in {}: no finch.test.json and no tests/*.finch.json\nhint: write finch.test.json",
        dir.display()
    )));
}

#[test]
fn test_a_failed_build_stops_before_any_case() {
    let ctx = TestContext::new();
    let dir = package(&ctx, passing_cases());
    let mut pkg: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("package.json")).unwrap()).unwrap();
    pkg["scripts"] = json!({"build": "node -e \"console.error('src/index.ts:3: syntax error'); process.exit(3)\""});
    fs::write(dir.join("package.json"), pkg.to_string()).unwrap();
    // package.json is newer than the bundle (set, not left to the clock's granularity): the
    // build runs, and fails.
    fs::File::options()
        .write(true)
        .open(dir.join("package.json"))
        .unwrap()
        .set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(60))
        .unwrap();
    let run = ctx.run(&["test", dir.to_str().unwrap()]);
    run.failure(1);
    assert_eq!(
        run.stderr(),
        "Building: npm run build\nsrc/index.ts:3: syntax error\nError: the build failed: `npm run build` exited with code 3\nhint: the build's output is above; fix it and run the command again\n"
    );
    assert_eq!(run.stdout(), "");
    // --no-build runs the cases on the bundle as it is.
    ctx.run(&["test", dir.to_str().unwrap(), "--no-build"])
        .success();
}

#[test]
fn new_writes_a_package_for_each_template() {
    let ctx = TestContext::new();
    let run = ctx.run(&["new", "weather", "--json"]);
    run.success();
    assert_eq!(
        run.json(),
        json!({"dir": ctx.work.join("weather"), "id": "weather", "package": "weather", "template": "tool",
               "files": ["package.json", "src/index.ts", "src/finch.d.ts", "finch.test.json", ".gitignore", "README.md"]})
    );
    let pkg: Value =
        serde_json::from_str(&fs::read_to_string(ctx.work.join("weather/package.json")).unwrap())
            .unwrap();
    assert_eq!(pkg["finch"]["displayName"], "Weather");
    assert_eq!(
        pkg["scripts"]["build"].as_str().unwrap().split(' ').next(),
        Some("esbuild")
    );

    let run = ctx.run(&[
        "new",
        "m",
        "--id",
        "acme@mcp-demo",
        "--name",
        "MCP Demo",
        "--template",
        "mcp",
    ]);
    run.success();
    assert_eq!(
        run.stderr(),
        "Created @acme/mcp-demo (mcp template) in m: package.json, src/index.ts, src/finch.d.ts, finch.test.json, .gitignore, README.md\nNext:\n  cd m\n  finch test      # installs esbuild, builds, runs the cases\n  finch dev       # a console that rebuilds on every change\n"
    );
    let pkg: Value =
        serde_json::from_str(&fs::read_to_string(ctx.work.join("m/package.json")).unwrap())
            .unwrap();
    assert_eq!(pkg["name"], "@acme/mcp-demo");
    assert_eq!(pkg["finch"]["displayName"], "MCP Demo");
    assert_eq!(
        pkg["finch"]["requires"],
        json!({"capabilities": ["mcp.client"]})
    );

    ctx.run(&["new", "s", "--template", "skill"]).success();
    assert!(ctx.work.join("s/skills/s/SKILL.md").is_file());
    // An empty directory the author made is fine.
    fs::create_dir(ctx.work.join("made")).unwrap();
    ctx.run(&["new", "made"]).success();
    assert!(ctx.work.join("made/package.json").is_file());
}

#[test]
fn new_refuses_a_non_empty_directory_and_a_bad_id() {
    let ctx = TestContext::new();
    fs::create_dir_all(ctx.work.join("taken")).unwrap();
    fs::write(ctx.work.join("taken/notes.txt"), "mine").unwrap();
    let run = ctx.run(&["new", "taken"]);
    run.failure(2);
    assert_eq!(
        run.stderr(),
        format!(
            "Error: {} is not empty\nhint: pick a new directory, e.g. finch new {}-2\n",
            ctx.work.join("taken").display(),
            ctx.work.join("taken").display()
        )
    );
    assert_eq!(
        snapshot(&ctx.work.join("taken")),
        vec![(ctx.work.join("taken/notes.txt"), b"mine".to_vec())]
    );

    for (id, why) in [
        ("Weather", "npm package names are lower case"),
        (
            "a/b",
            "\"a/b\" is not a valid mini tool id (letters, digits, '.', '_', '-', starting with a letter or digit)",
        ),
    ] {
        let run = ctx.run(&["new", "fresh", "--id", id]);
        run.failure(2);
        assert_eq!(
            run.stderr(),
            format!(
                "Error: \"{id}\" cannot be a mini tool id: {why}\nhint: use lower-case letters, digits, '.', '_', '-' (scope@name for a scoped package), e.g. --id acme@weather\n"
            )
        );
    }
    let mut left: Vec<String> = fs::read_dir(&ctx.work)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["taken"]);
}

/// The pinned esbuild's npm cache (scripts/install-test-peers).
fn npm_cache() -> PathBuf {
    let cache = Path::new(env!("CARGO_MANIFEST_DIR")).join(".test-peers/npm-cache");
    assert!(cache.is_dir(), "{NEEDS_ESBUILD}");
    cache
}

/// `npm install` in `dir`, offline from the test peers' npm cache.
fn npm_install(ctx: &TestContext, dir: &Path) {
    let out = Command::new("npm")
        .args([
            "install",
            "--offline",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "--cache",
        ])
        .arg(npm_cache())
        .current_dir(dir)
        .env("HOME", &ctx.home)
        .output()
        .expect("npm runs");
    assert!(
        out.status.success(),
        "npm install: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
#[ignore = "needs esbuild: run scripts/install-test-peers (scripts/test does)"]
fn new_then_npm_install_then_test_passes_for_every_template() {
    let ctx = TestContext::new();
    for template in ["tool", "mcp", "skill"] {
        ctx.run(&["new", template, "--template", template])
            .success();
        let dir = ctx.work.join(template);
        npm_install(&ctx, &dir);
        let run = ctx.run(&["test", dir.to_str().unwrap()]);
        run.success();
        assert!(
            run.stderr().starts_with("Building: npm run build\n"),
            "{}",
            run.stderr()
        );
        assert!(
            run.stdout().ends_with("2 cases: 2 passed, 0 failed\n"),
            "{}",
            run.stdout()
        );
        assert!(dir.join("dist/index.js.map").is_file());
        ctx.run(&["doctor", dir.to_str().unwrap()]).success();
        // The bundle is newer than every source now: no second build.
        let again = ctx.run(&["test", dir.to_str().unwrap()]);
        again.success();
        assert_eq!(again.stderr(), "");
    }

    // A changed source rebuilds; a source that does not compile fails the build.
    let dir = ctx.work.join("tool");
    let src = dir.join("src/index.ts");
    let text = fs::read_to_string(&src).unwrap();
    fs::write(
        &src,
        text.replace("`Hello, ${input.name}!`", "`Hi, ${input.name}!`"),
    )
    .unwrap();
    let run = ctx.run(&["test", dir.to_str().unwrap()]);
    run.failure(1);
    assert!(
        run.stdout().contains("    - Hello, Ada!\n    + Hi, Ada!\n"),
        "{}",
        run.stdout()
    );
    fs::write(&src, "export function activate(ctx) {\n  return (;\n}\n").unwrap();
    let run = ctx.run(&["test", dir.to_str().unwrap()]);
    run.failure(1);
    assert!(run.stderr().contains("src/index.ts:2:"), "{}", run.stderr());
    assert!(
        run.stderr().contains("Error: the build failed"),
        "{}",
        run.stderr()
    );
}

/// `finch args…` with npm offline from `cache` (the test peers' when it holds esbuild), as a
/// machine without the network sees the registry.
fn run_npm_offline(ctx: &TestContext, cache: &Path, args: &[&str]) -> crate::common::Run {
    crate::common::Run(
        ctx.cmd()
            .args(args)
            .env("npm_config_cache", cache)
            .env("npm_config_offline", "true")
            .output()
            .expect("finch runs"),
    )
}

#[test]
#[ignore = "needs esbuild: run scripts/install-test-peers (scripts/test does)"]
fn new_then_test_installs_what_the_build_needs_and_says_so() {
    let ctx = TestContext::new();
    ctx.run(&["new", "heal"]).success();
    let dir = ctx.work.join("heal");
    let run = run_npm_offline(&ctx, &npm_cache(), &["test", dir.to_str().unwrap()]);
    run.success();
    assert!(
        run.stderr().starts_with(
            "Installing: npm install (node_modules lacks esbuild)\nBuilding: npm run build\n"
        ),
        "{}",
        run.stderr()
    );
    assert!(dir.join("node_modules/esbuild/package.json").is_file());
    // Installed once: `pack` builds without installing again.
    let run = run_npm_offline(&ctx, &npm_cache(), &["pack", dir.to_str().unwrap()]);
    run.success();
    assert!(
        run.stderr().starts_with("Building: npm run build\n"),
        "{}",
        run.stderr()
    );
}

#[test]
fn a_failed_npm_install_is_named_with_its_output_and_nothing_is_built() {
    let ctx = TestContext::new();
    let dir = copy_built(&ctx);
    let mut pkg: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("package.json")).unwrap()).unwrap();
    pkg["devDependencies"] = json!({"finch-test-absent-package": "1.0.0"});
    put(&dir, "package.json", &pkg.to_string());
    let empty = ctx.base().join("empty-npm-cache");
    let run = run_npm_offline(&ctx, &empty, &["pack", dir.to_str().unwrap()]);
    run.failure(1);
    let stderr = run.stderr();
    assert!(
        stderr.starts_with(
            "Installing: npm install (node_modules lacks finch-test-absent-package)\n"
        ),
        "{stderr}"
    );
    // npm's own words (offline, nothing cached) are shown before finch's.
    assert!(stderr.contains("ENOTCACHED"), "{stderr}");
    assert!(
        stderr.ends_with(
            "Error: `npm install` failed (exited with code 1), so the package cannot build\nhint: npm's output is above; check that the npm registry is reachable, or run `npm install` in the package yourself\n"
        ),
        "{stderr}"
    );
    assert!(!dir.join("dist").exists());
}

/// A file under `dir`, its directories made.
fn put(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// `[path, size]` of every file `npm pack --dry-run --json` would pack from `dir`.
fn npm_pack_list(ctx: &TestContext, dir: &Path) -> Vec<(String, u64)> {
    let out = Command::new("npm")
        .args(["pack", "--dry-run", "--json", "--ignore-scripts"])
        .current_dir(dir)
        .env("HOME", &ctx.home)
        .output()
        .expect("npm runs");
    assert!(
        out.status.success(),
        "npm pack: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut files: Vec<(String, u64)> = doc[0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["size"].as_u64().unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

fn finch_pack_list(doc: &Value) -> Vec<(String, u64)> {
    let mut files: Vec<(String, u64)> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["size"].as_u64().unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// A mini tool package in `<work>/<name>` with the clutter npm's rules are about.
fn cluttered(ctx: &TestContext, name: &str, files: Option<Value>) -> PathBuf {
    let dir = ctx.work.join(name);
    let mut pkg = json!({"name": name, "version": "1.2.3", "type": "module", "main": "dist/index.js",
                         "finch": {"manifestVersion": 1}});
    if let Some(f) = files {
        pkg["files"] = f;
    }
    put(&dir, "package.json", &pkg.to_string());
    put(
        &dir,
        "dist/index.js",
        "export async function activate(ctx) {\n  ctx.tools.register({ name: \"hi\", description: \"Says hi\", inputSchema: { type: \"object\" }, execute: async () => \"hi from the tarball\" });\n}\n",
    );
    put(&dir, "dist/index.js.map", "{}");
    put(&dir, "dist/.npmignore", "*.tmp\n");
    put(&dir, "dist/scratch.tmp", "x");
    put(&dir, "dist/sub/.gitignore", "local.txt\n");
    put(&dir, "dist/sub/local.txt", "x");
    put(&dir, "dist/sub/kept.txt", "kept");
    put(&dir, "src/index.ts", "export {}\n");
    put(&dir, "README.md", "# readme\n");
    put(&dir, "LICENSE", "MIT\n");
    put(&dir, "docs/README.md", "nested readme\n");
    put(&dir, "docs/guide.md", "guide\n");
    put(&dir, ".npmrc", "registry=http://127.0.0.1:9/\n");
    put(&dir, "package-lock.json", "{}");
    put(&dir, "node_modules/dep/index.js", "x");
    put(&dir, ".DS_Store", "x");
    put(&dir, "notes.orig", "x");
    put(&dir, ".env", "SECRET=1\n");
    put(&dir, ".git/HEAD", "ref: refs/heads/main\n");
    dir
}

#[test]
fn pack_lists_the_files_npm_pack_would_and_the_tarball_installs() {
    let ctx = TestContext::new();
    // With `files`: only dist (less what its own ignore files say) and the always-packed files.
    let with_files = cluttered(&ctx, "with-files", Some(json!(["dist", "docs/guide.md"])));
    put(&with_files, ".npmignore", "dist/\n");
    let run = ctx.run(&["pack", with_files.to_str().unwrap(), "--json"]);
    run.success();
    let doc = run.json();
    assert_eq!(finch_pack_list(&doc), npm_pack_list(&ctx, &with_files));
    assert_eq!(
        finch_pack_list(&doc)
            .iter()
            .map(|(p, _)| p.as_str())
            .collect::<Vec<_>>(),
        [
            "LICENSE",
            "README.md",
            "dist/index.js",
            "dist/index.js.map",
            "dist/sub/kept.txt",
            "docs/guide.md",
            "package.json"
        ]
    );
    assert_eq!(doc["tools"], 1);
    let tarball = with_files.join("with-files-1.2.3.tgz");
    assert_eq!(doc["tarball"], json!(tarball));

    // Without `files`: everything less the root .npmignore's patterns and the never-packed.
    let without = cluttered(&ctx, "without-files", None);
    put(&without, ".npmignore", "src/\n*.map\n");
    put(&without, ".gitignore", "docs/\n");
    let npm = npm_pack_list(&ctx, &without);
    let run = ctx.run(&["pack", without.to_str().unwrap(), "--json"]);
    run.success();
    assert_eq!(finch_pack_list(&run.json()), npm);

    // The tarball is what `finch add` installs, and its tool answers.
    ctx.run(&["add", tarball.to_str().unwrap()]).success();
    ctx.run(&["enable", "with-files"]).success();
    let call = ctx.run(&[
        "tool",
        "call",
        "with-files_hi",
        "--approve",
        "with-files_hi",
    ]);
    call.success();
    assert_eq!(call.stdout(), "hi from the tarball\n");
    // The tarball holds `package/` entries, as npm's does.
    let listed = Command::new("tar")
        .arg("tzf")
        .arg(&tarball)
        .output()
        .unwrap();
    let mut entries: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    entries.sort();
    assert_eq!(entries[0], "package/LICENSE");
    assert!(entries.iter().all(|e| e.starts_with("package/")));
}

#[test]
fn pack_refuses_a_package_whose_tarball_would_not_work() {
    let ctx = TestContext::new();
    // A .gitignore that leaves out a chunk the bundle imports: npm would publish a mini tool
    // that cannot start (its `main` is always packed, the chunk is not).
    let dir = cluttered(&ctx, "no-dist", None);
    put(&dir, ".gitignore", "dist/chunk.js\n");
    put(&dir, "dist/chunk.js", "export const word = \"hi\";\n");
    put(
        &dir,
        "dist/index.js",
        "import { word } from \"./chunk.js\";\nexport async function activate(ctx) {\n  ctx.tools.register({ name: word, description: \"d\", inputSchema: { type: \"object\" }, execute: async () => word });\n}\n",
    );
    let npm = npm_pack_list(&ctx, &dir);
    assert!(npm.iter().any(|(p, _)| p == "dist/index.js"));
    assert!(!npm.iter().any(|(p, _)| p == "dist/chunk.js"));
    let run = ctx.run(&["pack", dir.to_str().unwrap()]);
    run.failure(1);
    run.stderr_has("Error: the packed tarball installs, but does not activate: ")
        .stderr_has("chunk.js")
        .stderr_has("hint: a file the bundle needs may be missing from the tarball: check \"files\" in package.json");
    assert!(!dir.join("no-dist-1.2.3.tgz").exists());

    // No manifest, and a build that fails: one line, a hint, no tarball.
    let empty = ctx.work.join("empty");
    fs::create_dir_all(&empty).unwrap();
    ctx.run(&["pack", empty.to_str().unwrap()])
        .failure(1)
        .stderr_has("no mini tool in");
    let failing = cluttered(&ctx, "failing", Some(json!(["dist"])));
    let mut pkg: Value =
        serde_json::from_str(&fs::read_to_string(failing.join("package.json")).unwrap()).unwrap();
    pkg["scripts"] = json!({"build": "node -e \"process.exit(2)\""});
    fs::write(failing.join("package.json"), pkg.to_string()).unwrap();
    ctx.run(&["pack", failing.to_str().unwrap()])
        .failure(1)
        .stderr_has("Error: the build failed: `npm run build` exited with code 2");
    ctx.run(&["pack", failing.to_str().unwrap(), "--no-build"])
        .success();
    assert!(failing.join("failing-1.2.3.tgz").is_file());
}

/// A package whose build copies `src/index.mjs` to the bundle (no esbuild needed).
fn copy_built(ctx: &TestContext) -> PathBuf {
    let dir = ctx.work.join("live");
    put(
        &dir,
        "package.json",
        &json!({"name": "live", "version": "1.0.0", "type": "module", "main": "dist/index.js",
                "scripts": {"build": "node build.mjs"}, "finch": {"manifestVersion": 1}})
        .to_string(),
    );
    put(
        &dir,
        "build.mjs",
        "import fs from \"node:fs\";\nfs.mkdirSync(\"dist\", { recursive: true });\nfs.copyFileSync(\"src/index.mjs\", \"dist/index.js\");\n",
    );
    put(&dir, "src/index.mjs", &greeter("Hello"));
    dir
}

fn greeter(word: &str) -> String {
    format!(
        "export async function activate(ctx) {{\n  ctx.tools.register({{ name: \"greet\", description: \"Greets\", inputSchema: {{ type: \"object\", properties: {{ name: {{ type: \"string\" }} }} }}, execute: async (i) => `{word}, ${{i.name}}!` }});\n}}\n"
    )
}

#[test]
fn dev_rebuilds_and_reloads_in_place_and_keeps_the_last_good_version() {
    use crate::cards::Pty;
    let ctx = TestContext::new();
    let dir = copy_built(&ctx);
    let mut pty = Pty::spawn(
        &ctx,
        &["dev", dir.to_str().unwrap(), "--approve", "live_greet"],
    );
    pty.expect("Building: npm run build");
    pty.expect("finch> ");
    pty.send("live_greet name=Ada\r");
    pty.expect("Hello, Ada!");
    pty.expect("finch> ");

    put(&dir, "src/index.mjs", &greeter("Hi"));
    pty.expect("changed: src/index.mjs");
    pty.expect("rebuilt: 1 tool");
    pty.send("live_greet name=Ada\r");
    pty.expect("Hi, Ada!");
    pty.expect("finch> ");

    // A version that throws in activate() is reported; the session keeps the last good one.
    put(
        &dir,
        "src/index.mjs",
        "export async function activate(ctx) {\n  throw new Error(\"broken on purpose\");\n}\n",
    );
    pty.expect("the new version does not activate");
    pty.expect("broken on purpose");
    pty.send("live_greet name=Bo\r");
    pty.expect("Hi, Bo!");
    pty.expect("finch> ");

    // Ctrl-C twice at the prompt ends it cleanly.
    pty.send("\x03");
    pty.expect("Ctrl-C again");
    pty.expect("finch> ");
    pty.send("\x03");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
}

#[test]
fn dev_refuses_a_package_that_does_not_build_or_activate() {
    let ctx = TestContext::new();
    let dir = copy_built(&ctx);
    put(
        &dir,
        "src/index.mjs",
        "export async function activate(ctx) {\n  throw new Error(\"no\");\n}\n",
    );
    let run = ctx.run(&["dev", dir.to_str().unwrap()]);
    run.failure(1);
    run.stderr_has("Error: the mini tool does not activate: ")
        .stderr_has("hint: fix it and run `finch dev` again");
    fs::write(dir.join("build.mjs"), "process.exit(4)\n").unwrap();
    ctx.run(&["dev", dir.to_str().unwrap()])
        .failure(1)
        .stderr_has("Error: the build failed: `npm run build` exited with code 4");
    ctx.run(&["dev", ctx.work.to_str().unwrap()])
        .failure(1)
        .stderr_has("no mini tool in");
}

#[test]
#[ignore = "needs esbuild: run scripts/install-test-peers (scripts/test does)"]
fn dev_names_the_typescript_line_of_an_activation_error() {
    use crate::cards::Pty;
    let ctx = TestContext::new();
    ctx.run(&["new", "ts"]).success();
    let dir = ctx.work.join("ts");
    npm_install(&ctx, &dir);
    let mut pty = Pty::spawn(&ctx, &["dev", dir.to_str().unwrap()]);
    pty.expect("finch> ");
    let src = dir.join("src/index.ts");
    let text = fs::read_to_string(&src).unwrap();
    fs::write(
        &src,
        text.replace(
            "  ctx.logger.info(\"activated\");",
            "  throw new Error(\"boom\");",
        ),
    )
    .unwrap();
    pty.expect("the new version does not activate");
    pty.expect("boom");
    // The stack's bundle position, followed by where it is in the TypeScript source.
    pty.expect("(src/index.ts:28:");
    pty.send("/quit\r");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
}

/// The author's loop on a terminal: what a reload draws (the prompt again, with what was
/// typed), editors' scratch files and finch's own temp files not taken for changes, the
/// "replaced for this run" warning said once, and the exit hint naming `finch dev`.
#[test]
fn dev_redraws_the_prompt_after_a_reload_and_says_each_thing_once() {
    use crate::cards::Pty;
    for cols in [60u16, 100] {
        let ctx = TestContext::new();
        let dir = copy_built(&ctx);
        // An installed copy of the same id, which the package under development replaces.
        put(&dir, "dist/index.js", &greeter("Hello"));
        ctx.run(&["add", dir.to_str().unwrap()]).success();
        ctx.run(&["enable", "live"]).success();
        let width = cols.to_string();
        let mut pty = Pty::spawn_env(
            &ctx,
            &["dev", "live", "--approve", "live_greet"],
            &[("COLUMNS", &width)],
        );
        pty.resize(cols, 40);
        pty.expect("finch> ");

        // Scratch files first: the watcher reports nothing for them, then the source alone.
        put(&dir, ".finch.test.json.aB3xYz.tmp", "{}");
        put(&dir, "src/.index.mjs.swp", "swap");
        put(&dir, "src/index.mjs~", "backup");
        pty.send("live_gr");
        put(&dir, "src/index.mjs", &greeter("Hi"));
        pty.expect("rebuilt: 1 tool");
        // The prompt is drawn again, with what was typed on it.
        pty.expect("live_gr");
        let rows = crate::screen::rows(pty.seen(), cols, 40);
        insta::assert_snapshot!(
            format!("dev_reload_{cols}"),
            crate::screen::from(&rows, "changed:", usize::from(cols))
        );
        pty.send("eet name=Ada\r");
        pty.expect("Hi, Ada!");
        pty.expect("finch> ");
        // The reload replaced the installed copy again, without a second warning.
        pty.send("/quit\r");
        let mut seen = pty.seen().to_string();
        let (code, tail) = pty.finish();
        assert_eq!(code, 0, "{tail}");
        seen.push_str(&tail);
        // One word: the warning is wrapped at spaces to the terminal's width.
        assert_eq!(seen.matches("replaced").count(), 1, "{seen}");
        assert!(tail.contains("resume with `finch dev --session "), "{tail}");
    }
}

/// Under `finch dev` the card of the package's own tool offers "Allow for this session": one
/// `s`, and the next calls run without a card (a mini tool's card never offers it elsewhere).
#[test]
fn dev_offers_allow_for_this_session_for_the_package_under_development() {
    use crate::cards::Pty;
    let ctx = TestContext::new();
    let dir = copy_built(&ctx);
    let mut pty = Pty::spawn(&ctx, &["dev", dir.to_str().unwrap()]);
    pty.expect("finch> ");
    pty.send("live_greet name=Ada\r");
    let card = pty.expect(crate::cards::CARD_SHOWN);
    assert!(card.contains("Allow for this session"), "{card}");
    assert!(card.contains("every live_greet call"), "{card}");
    pty.send("s");
    pty.expect("Allowed for this session");
    pty.expect("Hello, Ada!");
    pty.expect("finch> ");
    pty.send("live_greet name=Bo\r");
    let second = pty.expect("Hello, Bo!");
    assert!(!second.contains("Permission needed"), "{second}");
    pty.expect("finch> ");
    pty.send("/quit\r");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
}

/// `pack`'s summary on a terminal 60 columns wide wraps at spaces: every line fits, no word is
/// cut.
#[test]
fn pack_summary_wraps_at_spaces_on_a_terminal() {
    use crate::cards::Pty;
    let ctx = TestContext::new();
    let dir = copy_built(&ctx);
    let mut pty = Pty::spawn_env(&ctx, &["pack", dir.to_str().unwrap()], &[("COLUMNS", "60")]);
    pty.resize(60, 40);
    let (code, shown) = pty.finish();
    assert_eq!(code, 0, "{shown}");
    let rows = crate::screen::rows(&shown, 60, 40);
    let summary = rows
        .iter()
        .position(|r| r.contains("live-1.0.0.tgz"))
        .unwrap_or_else(|| panic!("{}", rows.join("\n")));
    let text = rows[summary..].join(" ");
    for word in [
        "files,",
        "unpacked);",
        "installed",
        "activated",
        "scratch",
        "tool",
    ] {
        assert!(
            text.split_whitespace().any(|w| w == word),
            "{word} cut:\n{}",
            rows.join("\n")
        );
    }
}
