//! The commands README shows, run as shown: each `sh` block of a section is extracted from the
//! README itself and run by bash with the finch under test first on `PATH`, so a command that
//! changes, or a step the README leaves out, fails here and not in a newcomer's terminal.

use std::path::Path;
use std::process::Command;

use crate::common::TestContext;

/// The first ```sh block after the heading `heading` in `doc`.
fn sh_block(doc: &str, heading: &str) -> String {
    let at = doc
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading:?} in the README"));
    let rest = &doc[at..];
    let start = rest.find("```sh\n").expect("a sh block after the heading") + 6;
    let end = rest[start..].find("```").expect("the block ends");
    rest[start..start + end].to_string()
}

fn readme() -> String {
    doc("README.md")
}

fn doc(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// `script` run by `bash -e` in `cwd`, finch first on PATH, in the sealed homes of `ctx`
/// (which the script may set itself).
fn run_block(ctx: &TestContext, script: &str, cwd: &Path, env: &[(&str, &Path)]) -> String {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_finch")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("bash");
    cmd.arg("-e")
        .arg("-c")
        .arg(script)
        .env_clear()
        .env("HOME", &ctx.home)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env("FINCH_RUNTIME_HOME", &ctx.runtime)
        .env("FINCH_AGENT_HOME", &ctx.agent)
        .stdin(std::process::Stdio::null())
        .current_dir(cwd);
    for (key, value) in env {
        cmd.env(key, value);
    }
    let out = cmd.output().expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "the README's block failed ({}):\n{script}\n--- stdout\n{stdout}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn the_readme_quick_start_runs_as_shown() {
    let ctx = TestContext::new();
    // Its throw-away home, moved into this test's own.
    let demo = ctx.base().join("finch-demo");
    let script = sh_block(&readme(), "### Quick start")
        .replace("/tmp/finch-demo", demo.to_str().expect("a UTF-8 temp path"));
    let stdout = run_block(&ctx, &script, Path::new(env!("CARGO_MANIFEST_DIR")), &[]);
    assert!(stdout.contains("Hello, Ada!"), "{stdout}");
    assert!(demo.join("runtime").is_dir());
}

#[test]
#[ignore = "needs esbuild: run scripts/install-test-peers (scripts/test does)"]
fn writing_a_mini_tool_runs_as_the_readme_and_docs_authoring_show() {
    let ctx = TestContext::new();
    let cache = Path::new(env!("CARGO_MANIFEST_DIR")).join(".test-peers/npm-cache");
    assert!(cache.is_dir(), "run scripts/install-test-peers");
    for (i, script) in [
        sh_block(&readme(), "### Write a mini tool"),
        sh_block(&doc("docs/authoring.md"), "## 1. Make the package"),
    ]
    .iter()
    .enumerate()
    {
        // Each in a directory of its own: both make `weather`.
        let work = ctx.base().join(format!("work-{i}"));
        std::fs::create_dir_all(&work).unwrap();
        let stdout = run_block(
            &ctx,
            script,
            &work,
            // npm offline, from the test peers' cache: `finch test` installs esbuild from it.
            &[
                ("npm_config_cache", &cache),
                ("npm_config_offline", Path::new("true")),
            ],
        );
        assert!(
            stdout.ends_with("2 cases: 2 passed, 0 failed\n"),
            "{stdout}"
        );
    }
}
