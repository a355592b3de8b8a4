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
