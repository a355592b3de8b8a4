//! `ctx.ui.openDiff` (issue 30; newer than the published finch.d.ts, used by the public
//! finch-wechat-preview): real `node` running a fixture mini tool that writes a file and opens a
//! diff of it, as that package does. The diff reaches the person: on a terminal as a unified
//! diff (a real pseudo-terminal), in the call's result without one (`tool call` in CI, an MCP
//! client under `--serve mcp`), and — asked outside any call with nobody there — it is
//! recorded in the mini tool's log with a line on stderr. Each way the promise resolves to
//! `undefined`, as the app's does once its diff opened. Bad requests reject clearly and change
//! nothing; `finch doctor` says what finch makes of the member.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::TestContext;
use crate::common::fixtures::MiniTool;

/// The `reviser` mini tool: `revise` keeps a copy of `path` at `copy`, writes `text` over it
/// and opens a diff of the two, as finch-wechat-preview's `apply` does; `bad` asks for a
/// diff finch does not show and for one of a missing file, and returns both errors. It
/// declares `filesystem: readwrite`, as the files it revises are in the workspace.
fn reviser(ctx: &TestContext) -> PathBuf {
    let dir = ctx.base().join("dev").join("reviser");
    MiniTool::new("reviser", "1.0.0")
        .display_name("Reviser")
        // It writes the workspace, as finch-wechat-preview does: it declares so (issue 29).
        .finch_field("permissions", json!({"filesystem": "readwrite"}))
        .entry_source(
            r#"import fs from "node:fs/promises";
export function activate(ctx) {
  ctx.tools.register({
    name: "revise",
    description: "Revises a file and shows the diff",
    inputSchema: { type: "object", properties: { path: { type: "string" }, copy: { type: "string" }, text: { type: "string" } } },
    async execute(input) {
      const before = input.copy;
      await fs.writeFile(before, await fs.readFile(input.path, "utf8"));
      await fs.writeFile(input.path, input.text);
      const shown = await ctx.ui.openDiff({ type: "files", leftPath: before, rightPath: input.path, title: "Revision" });
      return `revised (openDiff resolved ${String(shown)})`;
    },
  });
  ctx.tools.register({
    name: "bad",
    description: "Asks for diffs finch cannot show",
    inputSchema: { type: "object", properties: { path: { type: "string" } } },
    async execute(input) {
      const errors = [];
      for (const request of [
        { type: "text", left: "a", right: "b" },
        { type: "files", leftPath: input.path, rightPath: input.path + ".missing" },
        { type: "files", leftPath: input.path },
      ]) {
        try { await ctx.ui.openDiff(request); errors.push("resolved"); } catch (e) { errors.push(e.message); }
      }
      return errors;
    },
  });
}
"#,
        )
        .write_to(&dir);
    dir
}

const BEFORE: &str = "# Title\nkeep one\nold line\nkeep two\n";
const AFTER: &str = "# Title\nkeep one\nnew line\nkeep two\n";

/// The article the mini tool revises, in the work directory.
fn article(ctx: &TestContext) -> PathBuf {
    let path = ctx.work.join("article.md");
    std::fs::write(&path, BEFORE).unwrap();
    path
}

/// Where the mini tool keeps its copy of the article: in the workspace, which it declares it
/// writes.
fn copy_of(ctx: &TestContext) -> PathBuf {
    ctx.work.join("before.md")
}

fn revise_input(ctx: &TestContext, article: &Path) -> Value {
    json!({"path": article.display().to_string(), "copy": copy_of(ctx).display().to_string(), "text": AFTER})
}

fn revise_args(ctx: &TestContext, article: &Path) -> String {
    revise_input(ctx, article).to_string()
}

/// The unified diff finch shows of `BEFORE` → `AFTER`, between the two paths.
fn expected_diff(left: &Path, right: &Path) -> String {
    format!(
        "--- {}\n+++ {}\n@@ -1,4 +1,4 @@\n # Title\n keep one\n-old line\n+new line\n keep two\n",
        left.display(),
        right.display()
    )
}

fn texts(record: &Value) -> Vec<String> {
    record["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["text"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn without_a_terminal_the_diff_comes_in_the_calls_result() {
    let ctx = TestContext::new();
    let dir = reviser(&ctx);
    let article = article(&ctx);
    let out = ctx.run(&[
        "tool",
        "call",
        "reviser_revise",
        &revise_args(&ctx, &article),
        "--json",
        "--approve",
        "reviser_revise",
        "--minitool",
        &dir.display().to_string(),
    ]);
    out.success();
    let record = out.json();
    assert_eq!(record["isError"], false, "{record}");
    let left = copy_of(&ctx);
    assert_eq!(
        texts(&record),
        [
            "revised (openDiff resolved undefined)".to_string(),
            format!(
                "Reviser: Revision ({} → {})\n{}",
                left.display(),
                article.display(),
                expected_diff(&left, &article)
            ),
        ],
        "{record}"
    );
    assert_eq!(std::fs::read_to_string(&article).unwrap(), AFTER);
    assert!(!out.stderr().contains("not shown"), "{out}");
}

#[test]
fn on_a_terminal_the_diff_is_shown_there_and_not_repeated_in_the_result() {
    use crate::cards::Pty;
    let ctx = TestContext::new();
    let dir = reviser(&ctx);
    let article = article(&ctx);
    let args = revise_args(&ctx, &article);
    let dir = dir.display().to_string();
    let mut pty = Pty::spawn(
        &ctx,
        &[
            "tool",
            "call",
            "reviser_revise",
            &args,
            "--json",
            "--approve",
            "reviser_revise",
            "--minitool",
            &dir,
        ],
    );
    let shown = pty.expect(" keep two");
    let left = copy_of(&ctx);
    let heading = format!(
        "Reviser: Revision ({} → {})",
        left.display(),
        article.display()
    );
    // The terminal turns each "\n" into "\r\n".
    let expected = format!("{heading}\n{}", expected_diff(&left, &article)).replace('\n', "\r\n");
    assert!(
        shown.contains(expected.trim_end()),
        "{shown:?} lacks {expected:?}"
    );
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    let record = crate::runtime::record_in(&tail);
    assert_eq!(
        texts(&record),
        ["revised (openDiff resolved undefined)"],
        "{record}"
    );
}

#[test]
fn under_serve_mcp_the_diff_comes_in_the_calls_result() {
    use crate::serve_mcp::{call, serve};
    let ctx = TestContext::new();
    let dir = reviser(&ctx);
    let article = article(&ctx);
    let plan = json!({
        "steps": [call("reviser_revise", revise_input(&ctx, &article))],
    });
    let dir = dir.display().to_string();
    let report = serve(
        &ctx,
        plan,
        &[
            "--mode",
            "acceptCalls",
            "--minitool",
            &dir,
            "--approve",
            "reviser_revise",
        ],
    );
    let result = report.result(0);
    let left = copy_of(&ctx);
    assert_eq!(result["isError"], false, "{}", report.0);
    assert_eq!(
        texts(result),
        [
            "revised (openDiff resolved undefined)".to_string(),
            format!(
                "Reviser: Revision ({} → {})\n{}",
                left.display(),
                article.display(),
                expected_diff(&left, &article)
            ),
        ],
        "{}",
        report.0
    );
}

#[test]
fn a_diff_outside_any_call_with_nobody_there_is_recorded_and_resolves() {
    let ctx = TestContext::new();
    let dir = ctx.base().join("dev").join("early");
    // The two files are in the workspace, which the mini tool declares it reads (issue 29).
    let storage = ctx.work.join("early-files");
    std::fs::create_dir_all(&storage).unwrap();
    let (a, b) = (storage.join("a.txt"), storage.join("b.txt"));
    std::fs::write(&a, "one\n").unwrap();
    std::fs::write(&b, "two\n").unwrap();
    let paths = serde_json::to_string(&[a.display().to_string(), b.display().to_string()]).unwrap();
    MiniTool::new("early", "1.0.0")
        .display_name("Early")
        .finch_field("permissions", json!({"filesystem": "read"}))
        .entry_source(&format!(
            r#"export async function activate(ctx) {{
  const [leftPath, rightPath] = {paths};
  const shown = await ctx.ui.openDiff({{ type: "files", leftPath, rightPath, title: "At start" }});
  ctx.tools.register({{
    name: "ok",
    description: "Says what openDiff resolved in activate",
    inputSchema: {{ type: "object", properties: {{}} }},
    execute: () => `activate's openDiff resolved ${{String(shown)}}`,
  }});
}}
"#
        ))
        .write_to(&dir);
    let out = ctx.run(&[
        "tool",
        "call",
        "early_ok",
        "{}",
        "--json",
        "--approve",
        "early_ok",
        "--minitool",
        &dir.display().to_string(),
    ]);
    out.success();
    assert_eq!(
        texts(&out.json()),
        ["activate's openDiff resolved undefined"]
    );
    let heading = format!("Early: At start ({} → {})", a.display(), b.display());
    let log_path = ctx.runtime.join("logs/minitools/early.log");
    let log = std::fs::read_to_string(&log_path).unwrap();
    let diff = format!(
        "--- {}\n+++ {}\n@@ -1 +1 @@\n-one\n+two\n",
        a.display(),
        b.display()
    );
    assert!(
        log.contains(&format!(
            "finch: not shown (nobody to show it to): {heading}\n{diff}"
        )),
        "{log}"
    );
    assert!(
        out.stderr().contains(&format!(
            "a diff was not shown ({heading}): nobody to show it to in this run; it is in the mini tool's log: {}",
            log_path.display()
        )),
        "{out}"
    );
}

#[test]
fn a_diff_finch_cannot_show_rejects_clearly_and_changes_nothing() {
    let ctx = TestContext::new();
    let dir = reviser(&ctx);
    let article = article(&ctx);
    let before = std::fs::read_dir(&ctx.work).unwrap().count();
    let out = ctx.run(&[
        "tool",
        "call",
        "reviser_bad",
        &json!({"path": article.display().to_string()}).to_string(),
        "--json",
        "--approve",
        "reviser_bad",
        "--minitool",
        &dir.display().to_string(),
    ]);
    out.success();
    let errors = out.json()["structuredContent"].clone();
    assert_eq!(
        errors[0],
        r#"ctx.ui.openDiff: type "text" is not one finch shows (it shows {type: "files", leftPath, rightPath})"#,
        "{errors}"
    );
    let missing = errors[1].as_str().unwrap_or_default();
    assert!(
        missing.starts_with("ENOENT: no such file or directory")
            && missing.contains("article.md.missing"),
        "{errors}"
    );
    assert_eq!(
        errors[2], "ctx.ui.openDiff: rightPath must be a non-empty path",
        "{errors}"
    );
    assert_eq!(std::fs::read_to_string(&article).unwrap(), BEFORE);
    assert_eq!(std::fs::read_dir(&ctx.work).unwrap().count(), before);
}

#[test]
fn doctor_says_what_finch_makes_of_open_diff() {
    let ctx = TestContext::new();
    let dir = reviser(&ctx);
    let out = ctx.run(&["doctor", &dir.display().to_string()]);
    out.success();
    assert!(
        out.stdout().contains(
            "  - dist/index.js uses ctx.ui.openDiff, which has no window under finch: finch shows it as text (a unified diff on the terminal, or in the call's result for an MCP client) and only records it where nobody is there to see it (outside a call with no terminal: the mini tool's log)\n"
        ),
        "{out}"
    );
}
