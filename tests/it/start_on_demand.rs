//! Starting only what a call needs (issue: real mini tools, part 4): `finch tool call` of a
//! mini tool's tool starts the mini tool that owns it in the catalog cache — with the mini tools
//! providing the capabilities it requires — and no other; a built-in or a dispatcher starts
//! none; a name the cache does not know starts every enabled one, as before a `reload`. Each
//! fixture logs a line when it activates, so its log tells how often it was started.

use serde_json::json;

use crate::common::TestContext;
use crate::common::fixtures::MiniTool;

/// A mini tool with one tool `ping` that logs `activated` when it starts; `provides` and
/// `requires` name capabilities (the provider provides each with a `hello` method).
fn pinger(id: &str, provides: &[&str], requires: &[&str]) -> MiniTool {
    let provide: String = provides
        .iter()
        .map(|c| format!("ctx.capabilities.provide({c:?}, {{ hello() {{ return {id:?}; }} }});\n"))
        .collect();
    let entry = format!(
        "export function activate(ctx) {{\n  console.log(\"activated\");\n  {provide}  \
         ctx.tools.register({{ name: \"ping\", async execute() {{ return \"pong from {id}\"; }} }});\n}}\n"
    );
    MiniTool::new(id, "1.0.0")
        .entry_source(&entry)
        .finch_field("provides", json!({"capabilities": provides}))
        .finch_field("requires", json!({"capabilities": requires}))
}

fn install(ctx: &TestContext, pkg: &MiniTool, id: &str) {
    let dir = ctx.base().join("src").join(id);
    pkg.write_to(&dir);
    ctx.run(&["add", &dir.display().to_string()]).success();
    ctx.run(&["enable", id]).success();
}

/// How many times the mini tool `id` has activated.
fn starts(ctx: &TestContext, id: &str) -> usize {
    std::fs::read_to_string(ctx.runtime.join(format!("logs/minitools/{id}.log")))
        .unwrap_or_default()
        .matches("activated")
        .count()
}

fn three(ctx: &TestContext) {
    install(ctx, &pinger("alpha", &[], &["acme.greet"]), "alpha");
    install(ctx, &pinger("beta", &["acme.greet"], &[]), "beta");
    install(ctx, &pinger("gamma", &[], &[]), "gamma");
}

#[test]
fn a_tool_call_starts_only_the_mini_tool_that_owns_the_tool() {
    let ctx = TestContext::new();
    three(&ctx);
    ctx.run(&["reload"]).success();
    let before: Vec<usize> = ["alpha", "beta", "gamma"]
        .iter()
        .map(|id| starts(&ctx, id))
        .collect();
    assert_eq!(before, [1, 1, 1]);

    let run = ctx.run(&["tool", "call", "gamma_ping", "--approve", "gamma_ping"]);
    run.success();
    assert_eq!(run.stdout().trim(), "pong from gamma");
    assert_eq!(
        ["alpha", "beta", "gamma"].map(|id| starts(&ctx, id)),
        [1, 1, 2]
    );

    // alpha requires what beta provides: both start, gamma does not.
    let run = ctx.run(&["tool", "call", "alpha_ping", "--approve", "alpha_ping"]);
    run.success();
    assert_eq!(run.stdout().trim(), "pong from alpha");
    assert_eq!(
        ["alpha", "beta", "gamma"].map(|id| starts(&ctx, id)),
        [2, 2, 2]
    );
}

#[test]
fn a_builtin_or_dispatcher_call_starts_no_mini_tool() {
    let ctx = TestContext::new();
    three(&ctx);
    ctx.run(&["reload"]).success();
    ctx.run(&["tool", "call", "Memory", r#"{"action":"list"}"#])
        .success();
    ctx.run(&["tool", "call", "TodoWrite", r#"{"todos":[]}"#])
        .success();
    assert_eq!(
        ["alpha", "beta", "gamma"].map(|id| starts(&ctx, id)),
        [1, 1, 1]
    );
}

#[test]
fn without_a_catalog_cache_a_tool_call_starts_every_enabled_mini_tool() {
    let ctx = TestContext::new();
    three(&ctx);
    let run = ctx.run(&["tool", "call", "gamma_ping", "--approve", "gamma_ping"]);
    run.success();
    assert_eq!(run.stdout().trim(), "pong from gamma");
    assert_eq!(
        ["alpha", "beta", "gamma"].map(|id| starts(&ctx, id)),
        [1, 1, 1]
    );
}

/// A mini tool whose `activate()` does not end before the file `go` exists, and registers its
/// tool `ping` only then.
fn held_back(id: &str, go: &std::path::Path) -> MiniTool {
    let entry = format!(
        "import fs from \"node:fs\";\n\
         export async function activate(ctx) {{\n  console.log(\"activated\");\n  \
         while (!fs.existsSync({go:?})) await new Promise((r) => setTimeout(r, 20));\n  \
         ctx.tools.register({{ name: \"ping\", description: \"Answer pong\", async execute() {{ return \"pong from {id}\"; }} }});\n}}\n",
        go = go.display().to_string()
    );
    MiniTool::new(id, "1.0.0").entry_source(&entry)
}

#[test]
fn finch_run_answers_from_the_catalog_while_mini_tools_start_and_a_call_waits_for_its_own() {
    let ctx = TestContext::new();
    ctx.write_config("[runtime]\nactivate_timeout = \"60s\"\n");
    let go = ctx.base().join("go");
    install(&ctx, &held_back("slow", &go), "slow");
    install(&ctx, &pinger("gamma", &[], &[]), "gamma");
    std::fs::write(&go, "").unwrap();
    ctx.run(&["reload"]).success();
    std::fs::remove_file(&go).unwrap();

    // slow's activation cannot end until `go` exists, which the test makes only after these
    // answers came: a host that waited for it would answer none of them.
    let mut run = ctx.live_run(&["--approve", "slow_ping", "--approve", "gamma_ping"]);
    let found = run.call("ToolSearch", json!({"query": "slow ping pong"}));
    let text = found["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("slow_ping"), "{found}");
    let todo = run.call("TodoWrite", json!({"todos": []}));
    assert_eq!(todo["isError"], json!(false), "{todo}");
    let gamma = run.call("gamma_ping", json!({}));
    assert_eq!(gamma["content"][0]["text"], "pong from gamma", "{gamma}");
    assert!(!go.exists());
    // This run did start slow (its activation is what waits).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while starts(&ctx, "slow") < 2 {
        assert!(std::time::Instant::now() < deadline, "slow never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }

    // A call of slow's tool waits for slow's activation, then runs in it.
    std::fs::write(&go, "").unwrap();
    let slow = run.call("slow_ping", json!({}));
    assert_eq!(slow["content"][0]["text"], "pong from slow", "{slow}");
    assert_eq!(starts(&ctx, "slow"), 2, "started once in this run");
    let (code, stderr) = run.finish();
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn a_minitool_directory_replaces_the_installed_copy_and_says_it_shares_its_storage() {
    let ctx = TestContext::new();
    install(&ctx, &pinger("gamma", &[], &[]), "gamma");
    let dev = ctx.base().join("dev/gamma");
    MiniTool::new("gamma", "2.0.0")
        .entry_source(
            "export function activate(ctx) {\n  ctx.tools.register({ name: \"ping\", async execute() { return \"pong from the dev copy\"; } });\n}\n",
        )
        .write_to(&dev);
    let run = ctx.run(&[
        "tool",
        "call",
        "--minitool",
        &dev.display().to_string(),
        "gamma_ping",
        "--approve",
        "gamma_ping",
    ]);
    run.success();
    assert_eq!(run.stdout().trim(), "pong from the dev copy");
    let storage = ctx.runtime.join("extension-data/gamma");
    assert!(
        run.stderr().contains(&format!(
            "gamma (installed) is replaced for this run by --minitool {}, which shares its storage: {}",
            dev.display(),
            storage.display()
        )),
        "{}",
        run.stderr()
    );
}

#[test]
fn a_corrupt_catalog_cache_only_costs_the_head_start() {
    let ctx = TestContext::new();
    three(&ctx);
    let cache = ctx.runtime.join("cache/catalog.json");
    std::fs::create_dir_all(cache.parent().unwrap()).unwrap();
    std::fs::write(&cache, "{not json").unwrap();
    // `finch run` starts every mini tool before answering; `tool call` starts them all.
    let (responses, out) = ctx.jsonl(
        &["--approve", "gamma_ping"],
        &[json!({"id": 1, "tool": "gamma_ping", "arguments": {}})],
    );
    out.success();
    assert_eq!(
        responses[0]["content"][0]["text"], "pong from gamma",
        "{out}"
    );
    // A run reads the cache and never writes it.
    assert_eq!(std::fs::read_to_string(&cache).unwrap(), "{not json");
    let run = ctx.run(&["tool", "call", "beta_ping", "--approve", "beta_ping"]);
    run.success();
    assert_eq!(run.stdout().trim(), "pong from beta");
    assert_eq!(
        ["alpha", "beta", "gamma"].map(|id| starts(&ctx, id)),
        [2, 2, 2]
    );
    // `tool call` writes what it started (for completion): the cache is whole again.
    let healed = ctx.read_json(&cache);
    assert!(healed.to_string().contains("beta_ping"), "{healed}");
}
