//! Issue 31, item 3: "no header unless asked" — `--header` on every list command prints the
//! names of the piped columns first, on a pipe, and only when asked: each list through the real
//! binary, its header line named exactly and as wide (in tab-separated fields) as every row.

use std::path::Path;

use serde_json::json;

use crate::common::TestContext;
use crate::common::fixtures::MiniTool;

/// `args` on a pipe with and without `--header`: without it the first line is a row; with it
/// the first line is `header` and the rest is the same rows, each with as many fields.
fn headed(ctx: &TestContext, args: &[&str], header: &str) {
    let plain = ctx.run(args);
    plain.success();
    let rows = plain.stdout();
    assert!(!rows.is_empty(), "a row to name: {plain}");
    assert!(!rows.starts_with(header), "no header unless asked: {plain}");
    let mut with = args.to_vec();
    with.push("--header");
    let out = ctx.run(&with);
    out.success();
    let text = out.stdout();
    let (first, rest) = text.split_once('\n').expect("a header line");
    assert_eq!(first, header, "{out}");
    assert_eq!(rest, rows, "the rows are the same: {out}");
    let columns = header.split('\t').count();
    for row in rest.lines() {
        assert_eq!(
            row.split('\t').count(),
            columns,
            "a field a column in {row:?}:\n{out}"
        );
    }
}

fn add(ctx: &TestContext) {
    let dir = ctx.work.join("src/hello");
    MiniTool::new("hello-tool", "1.2.3")
        .display_name("Hello")
        .write_to(&dir);
    ctx.run(&["add", path(&dir)]).success();
}

fn path(p: &Path) -> &str {
    p.to_str().expect("test paths are UTF-8")
}

#[test]
fn list_names_its_columns_only_when_asked_and_the_app_lines_stay() {
    let ctx = TestContext::new();
    // Nothing installed: the app's "none" line alone, no header above it.
    let none = ctx.run(&["list", "--header"]);
    none.success();
    assert!(
        none.stdout().starts_with("No extensions installed in "),
        "{none}"
    );
    add(&ctx);
    let plain = ctx.run(&["list"]);
    plain.success();
    // The official CLI's line, unchanged without the flag.
    assert_eq!(
        ctx.filter(&plain.stdout()),
        "hello-tool\t1.2.3\tdisabled\tHello\t[BASE]/home/finchnest/.finch/extensions/hello-tool\n",
        "{plain}"
    );
    headed(&ctx, &["list"], "ID\tVERSION\tSTATUS\tNAME\tPATH");
    headed(&ctx, &["list", "--long"], "ID\tVERSION\tSTATUS\tNAME\tPATH");
    headed(
        &ctx,
        &["list", "--all-tiers"],
        "ID\tVERSION\tSTATUS\tNAME\tPATH",
    );
}

#[test]
fn tool_list_and_search_name_their_columns() {
    let ctx = TestContext::new();
    headed(
        &ctx,
        &["tool", "list", "--source", "builtin"],
        "NAME\tLAYER\tEXPOSURE\tDESCRIPTION",
    );
    headed(
        &ctx,
        &["tool", "search", "read a file"],
        "NAME\tSOURCE\tDESCRIPTION",
    );
    // No tool matches: nothing on stdout, not a header alone.
    let none = ctx.run(&["tool", "list", "--source", "mcp:nosuch", "--header"]);
    none.success();
    assert_eq!(none.stdout(), "", "{none}");
}

#[test]
fn mcp_list_and_tools_name_their_columns() {
    let ctx = TestContext::new();
    crate::mcp_bridge::write_servers(
        &ctx,
        &json!({"servers": [crate::mcp_bridge::python_entry("py-test", &[])]}),
    );
    headed(
        &ctx,
        &["mcp", "list"],
        "NAME\tTRANSPORT\tSOURCE\tOWNER\tSTATUS\tTOOLS",
    );
    headed(&ctx, &["mcp", "tools", "py-test"], "NAME\tDESCRIPTION");
}

#[test]
fn memory_space_skill_and_session_lists_name_their_columns() {
    let ctx = TestContext::new();
    ctx.run(&["memory", "remember", "the build takes four minutes"])
        .success();
    headed(&ctx, &["memory", "list"], "ID\tWHERE\tTEXT");
    ctx.run(&["space", "create", "Work Notes"]).success();
    headed(&ctx, &["space", "list"], "ID\tNAME\tDIRECTORY\tCREATED");
    let skill = ctx.agent.join("skills/notes/SKILL.md");
    std::fs::create_dir_all(skill.parent().unwrap()).unwrap();
    std::fs::write(
        &skill,
        "---\nname: notes\ndescription: Keep notes\n---\n\nBody.\n",
    )
    .unwrap();
    headed(
        &ctx,
        &["skill", "list"],
        "NAME\tSOURCE\tSTATUS\tDESCRIPTION\tPATH",
    );
    ctx.call("ToolSearch", json!({"query": "files"})).success();
    // On a pipe: the whole id and the recorded times, under the terminal's names.
    headed(
        &ctx,
        &["session", "list"],
        "ID\tTITLE\tWORKSPACE\tSTARTED\tLAST ACTIVITY\tMESSAGES",
    );
}

/// `schedule list` and `schedule history` print other columns on a pipe than on a terminal
/// (`schedule list`: the state, the time zone, the next run and the last result's status and
/// time, each a column of its own); the header names those.
#[test]
fn schedule_lists_name_their_piped_columns() {
    let ctx = TestContext::new();
    ctx.run(&[
        "schedule", "create", "--name", "Digest", "--prompt", "p", "--daily", "08:00",
    ])
    .success();
    headed(
        &ctx,
        &["schedule", "list"],
        "ID\tNAME\tSTATE\tSCHEDULE\tTIME ZONE\tNEXT RUN\tLAST STATUS\tLAST FINISHED",
    );
    crate::lists::one_recorded_run(&ctx);
    headed(
        &ctx,
        &["schedule", "history"],
        "RUN\tTASK\tSCHEDULED FOR\tSTARTED\tFINISHED\tSTATUS\tEXIT\tSESSION\tOUTPUT",
    );
}

/// On a terminal the table has its header with or without the flag.
#[test]
fn a_terminal_table_is_the_same_with_the_flag() {
    let ctx = TestContext::new();
    let shown = |args: &[&str]| {
        let pty = crate::cards::Pty::spawn_env(&ctx, args, &[("COLUMNS", "100")]);
        let (code, shown) = pty.finish();
        assert_eq!(code, 0, "{shown}");
        shown
    };
    ctx.run(&["memory", "remember", "a note"]).success();
    let plain = shown(&["memory", "list"]);
    assert!(plain.starts_with("ID"), "{plain}");
    assert_eq!(shown(&["memory", "list", "--header"]), plain);
}
