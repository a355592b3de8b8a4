//! Issue 31, item 3: every list on a pipe is whole tab-separated values without a header; on a
//! terminal (`COLUMNS` sets the width) only free text is cut, columns are dropped instead; and
//! `--jq` filters every `--json` output.

use crate::cards::Pty;
use crate::common::TestContext;

/// Writes one recorded run of task `t-abc123` (scheduled 02:30 UTC, started a second late).
pub(crate) fn one_recorded_run(ctx: &TestContext) {
    let runs = ctx.runtime.join("automation/runs");
    std::fs::create_dir_all(&runs).unwrap();
    let record = serde_json::json!({
        "runId": "r-000001", "taskId": "t-abc123", "taskName": "Digest", "trigger": "schedule",
        "scheduledFor": "2026-03-07T02:30:00Z", "startedAt": "2026-03-07T02:30:01Z",
        "finishedAt": "2026-03-07T02:31:00Z", "status": "succeeded", "exitCode": 0,
        "sessionId": "0f6c2a9e-5b1d-4c3e-9a7f-2d8e1b4c6a30", "directory": null,
        "durationMs": 59000, "outputTail": "wrote the digest of 14 messages to the notes\n"
    });
    std::fs::write(runs.join("t-abc123.jsonl"), format!("{record}\n")).unwrap();
}

/// What `args` shows on a terminal `columns` wide (in Asia/Kolkata, without colour).
fn on_terminal(ctx: &TestContext, args: &[&str], columns: usize) -> String {
    let columns = columns.to_string();
    let pty = Pty::spawn_env(ctx, args, &[("COLUMNS", &columns), ("TZ", "Asia/Kolkata")]);
    let (code, shown) = pty.finish();
    assert_eq!(code, 0, "{shown}");
    ctx.filter(&shown.replace('\r', ""))
}

/// The first `n` tab-separated fields of each line.
fn fields(text: &str, n: usize) -> String {
    text.lines()
        .map(|l| l.split('\t').take(n).collect::<Vec<_>>().join("\t") + "\n")
        .collect()
}

/// Before: `tool list | cat`, `tool search … | cat` and `list --long | cat` printed the
/// terminal's `…`-cut tables. Now each is one line of whole values a row, as the other lists.
#[test]
fn every_list_on_a_pipe_is_whole_tab_separated_values() {
    let ctx = TestContext::new();
    let tools = ctx.run(&["tool", "list", "--source", "builtin"]);
    tools.success();
    let out = tools.stdout();
    assert!(!out.starts_with("NAME"), "{tools}");
    insta::assert_snapshot!(fields(&out, 3), @r"
    Read	builtin	startup
    Write	builtin	startup
    Edit	builtin	startup
    Grep	builtin	startup
    Glob	builtin	startup
    Bash	builtin	startup
    WebSearch	builtin	startup
    WebFetch	builtin	startup
    AskUserQuestion	builtin	startup
    TodoWrite	builtin	startup
    Skill	builtin	startup
    ");
    // The description is whole: as long as the JSON's.
    let json = ctx
        .run(&["tool", "list", "--source", "builtin", "--json"])
        .json();
    let read = out.lines().next().unwrap().split('\t').nth(3).unwrap();
    assert_eq!(
        read,
        json[0]["description"]
            .as_str()
            .unwrap()
            .lines()
            .next()
            .unwrap()
    );

    let found = ctx.run(&["tool", "search", "read a file", "--limit", "2"]);
    found.success();
    insta::assert_snapshot!(fields(&found.stdout(), 2), @r"
    Read	builtin
    Bash	builtin
    ");

    one_recorded_run(&ctx);
    let history = ctx.run(&["schedule", "history"]);
    history.success();
    insta::assert_snapshot!(history.stdout(), @"r-000001	t-abc123	2026-03-07T02:30:00Z	2026-03-07T02:30:01Z	2026-03-07T02:31:00Z	succeeded	0	0f6c2a9e-5b1d-4c3e-9a7f-2d8e1b4c6a30	wrote the digest of 14 messages to the notes");

    ctx.run(&["space", "create", "Work Notes"]).success();
    let spaces = ctx.run(&["space", "list"]);
    spaces.success();
    let line = spaces.stdout();
    let cells: Vec<&str> = line.trim_end().split('\t').collect();
    assert_eq!(cells.len(), 4, "{spaces}");
    assert_eq!(cells[1], "Work Notes", "{spaces}");
}

/// `schedule history` at 60, 100 and 200 columns: times are never cut, SCHEDULED FOR stays at
/// 100 (before: it was the first column dropped), the output line is what gets cut.
#[test]
fn schedule_history_at_60_100_and_200_columns() {
    let ctx = TestContext::new();
    one_recorded_run(&ctx);
    let history = |columns| on_terminal(&ctx, &["schedule", "history"], columns);
    insta::assert_snapshot!(history(200), @r"
    RUN       TASK      SCHEDULED FOR            STARTED                     FINISHED  STATUS     EXIT  SESSION   OUTPUT
    r-000001  t-abc123  2026-03-07 08:00 +05:30  2026-03-07 08:00:01 +05:30  08:01:00  succeeded  0     0f6c2a9e  wrote the digest of 14 messages to the notes
    ");
    insta::assert_snapshot!(history(100), @r"
    RUN       TASK      SCHEDULED FOR            STARTED                     STATUS     OUTPUT
    r-000001  t-abc123  2026-03-07 08:00 +05:30  2026-03-07 08:00:01 +05:30  succeeded  wrote the diges…
    ");
    insta::assert_snapshot!(history(60), @r"
    RUN       STARTED                     STATUS     OUTPUT
    r-000001  2026-03-07 08:00:01 +05:30  succeeded  wrote the…
    ");
}

/// `tool list` at 60, 100 and 200 columns: names whole, only the description cut (before, on a
/// pipe, this table was what scripts got).
#[test]
fn tool_list_at_60_100_and_200_columns() {
    let ctx = TestContext::new();
    // The first read builds the catalog cache and says so; the listings below read it.
    ctx.run(&["tool", "list"]).success();
    let list = |columns| {
        let shown = on_terminal(&ctx, &["tool", "list", "--source", "builtin"], columns);
        shown
            .lines()
            .take(3)
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    };
    insta::assert_snapshot!(list(200), @r"
    NAME             LAYER    EXPOSURE  DESCRIPTION
    Read             builtin  startup   Read a file from the local filesystem. Text comes back with line numbers (`cat -n` style: the number, a tab, the line), starting at line `offset` (1-based, default…
    Write            builtin  startup   Write a file to the local filesystem: creates `file_path` with `content`, or replaces everything in it when it exists. Missing parent directories are created. The…
    ");
    insta::assert_snapshot!(list(100), @r"
    NAME             LAYER    EXPOSURE  DESCRIPTION
    Read             builtin  startup   Read a file from the local filesystem. Text comes back with lin…
    Write            builtin  startup   Write a file to the local filesystem: creates `file_path` with…
    ");
    insta::assert_snapshot!(list(60), @r"
    NAME             LAYER    EXPOSURE  DESCRIPTION
    Read             builtin  startup   Read a file from the lo…
    Write            builtin  startup   Write a file to the loc…
    ");
}

#[test]
fn jq_filters_the_json_one_value_a_line_with_strings_raw() {
    let ctx = TestContext::new();
    ctx.run(&["memory", "remember", "first note"]).success();
    ctx.run(&["memory", "remember", "second note"]).success();
    let out = ctx.run(&["memory", "list", "--jq", ".[].text"]);
    out.success();
    assert_eq!(out.stdout(), "first note\nsecond note\n", "{out}");
    let out = ctx.run(&["memory", "list", "--jq", ".[0] | {text}"]);
    out.success();
    assert_eq!(out.stdout(), "{\"text\":\"first note\"}\n", "{out}");
    // --json alongside changes nothing.
    let out = ctx.run(&["--json", "memory", "list", "--jq", "length"]);
    out.success();
    assert_eq!(out.stdout(), "2\n", "{out}");
}

#[test]
fn an_invalid_jq_expression_is_a_usage_error_before_anything_runs() {
    let ctx = TestContext::new();
    let out = ctx.run(&["memory", "remember", "never written", "--jq", ".["]);
    out.failure(2);
    assert_eq!(out.stdout(), "", "{out}");
    out.stderr_has("Error: invalid --jq expression: expected closing bracket at column 3");
    let out = ctx.run(&["tool", "list", "--jq", ".[] | nosuch"]);
    out.failure(2);
    out.stderr_has("undefined filter `nosuch/0` at column 7");
    // Nothing was remembered.
    let list = ctx.run(&["memory", "list", "--json"]);
    assert_eq!(list.json(), serde_json::json!([]), "{list}");
}

#[test]
fn a_jq_error_while_filtering_exits_1_and_the_protocols_refuse_jq() {
    let ctx = TestContext::new();
    ctx.run(&["memory", "remember", "a note"]).success();
    let out = ctx.run(&["memory", "list", "--jq", ".[0].text.x"]);
    out.failure(1);
    assert_eq!(out.stdout(), "", "{out}");
    out.stderr_has("Error: --jq: cannot index");
    let out = ctx.run(&["run", "--jsonl", "--jq", "."]);
    out.failure(2);
    out.stderr_has("--jq filters --json output; --jsonl and --serve speak a protocol");
}

/// The first lines of what `args` shows on a terminal at 60, 100 and 200 columns, one
/// snapshot: widths in `[…]` lines between them.
fn at_widths(ctx: &TestContext, args: &[&str]) -> String {
    [60, 100, 200]
        .iter()
        .map(|&columns| format!("[{columns}]\n{}", on_terminal(ctx, args, columns)))
        .collect()
}

/// `memory list`: ids and places whole, only the text cut (CJK by columns), sub-items indented
/// under their item; WHERE is dropped before the text gets narrower than 16 columns. Memory ids
/// are made from the entry's text, so the same file lists the same ids.
#[test]
fn memory_list_at_60_100_and_200_columns() {
    let ctx = TestContext::new();
    std::fs::create_dir_all(&ctx.agent).unwrap();
    std::fs::write(
        ctx.agent.join("MEMORY.md"),
        "- The release build takes about eight minutes on two cores; run it before lunch\n  \
         - Debug builds take forty seconds\n\
         - 会議は毎週火曜日の午前十時から始まり、議事録は共有フォルダに保存する\n",
    )
    .unwrap();
    insta::assert_snapshot!(at_widths(&ctx, &["memory", "list"]), @r"
    [60]
    ID        WHERE        TEXT
    932bf0ee  MEMORY.md:1  The release build takes about eight…
    90997604  MEMORY.md:2    Debug builds take forty seconds
    4bcde849  MEMORY.md:3  会議は毎週火曜日の午前十時から始まり…
    [100]
    ID        WHERE        TEXT
    932bf0ee  MEMORY.md:1  The release build takes about eight minutes on two cores; run it before lunc…
    90997604  MEMORY.md:2    Debug builds take forty seconds
    4bcde849  MEMORY.md:3  会議は毎週火曜日の午前十時から始まり、議事録は共有フォルダに保存する
    [200]
    ID        WHERE        TEXT
    932bf0ee  MEMORY.md:1  The release build takes about eight minutes on two cores; run it before lunch - Debug builds take forty seconds
    90997604  MEMORY.md:2    Debug builds take forty seconds
    4bcde849  MEMORY.md:3  会議は毎週火曜日の午前十時から始まり、議事録は共有フォルダに保存する
    ");
}

/// `space list`: the id and the directory whole, the name cut; CREATED goes first, then the
/// directory. A fixed spaces.json, so ids and times are the same on every run.
#[test]
fn space_list_at_60_100_and_200_columns() {
    let ctx = TestContext::new();
    std::fs::create_dir_all(&ctx.runtime).unwrap();
    let spaces = serde_json::json!({"spaces": [
        {"id": "sp-0a1b2c3d", "name": "Work Notes", "directory": "/srv/projects/finch/notes",
         "createdAt": "2026-03-07T02:30:00.000Z"},
        {"id": "sp-4e5f6a7b", "name": "Travel plans for the spring, with every booking and the visa papers",
         "createdAt": "2026-03-08T10:00:00.000Z"}
    ]});
    std::fs::write(ctx.runtime.join("spaces.json"), spaces.to_string()).unwrap();
    insta::assert_snapshot!(at_widths(&ctx, &["space", "list"]), @r"
    [60]
    ID           NAME                  DIRECTORY
    sp-0a1b2c3d  Work Notes            /srv/projects/finch/notes
    sp-4e5f6a7b  Travel plans for th…
    [100]
    ID           NAME                                     DIRECTORY                  CREATED
    sp-0a1b2c3d  Work Notes                               /srv/projects/finch/notes  2026-03-07 08:00:00
    sp-4e5f6a7b  Travel plans for the spring, with ever…                             2026-03-08 15:30:00
    [200]
    ID           NAME                                                                 DIRECTORY                  CREATED
    sp-0a1b2c3d  Work Notes                                                           /srv/projects/finch/notes  2026-03-07 08:00:00
    sp-4e5f6a7b  Travel plans for the spring, with every booking and the visa papers                             2026-03-08 15:30:00
    ");
}

/// `session list`: short ids and local times (Asia/Kolkata) whole, the title cut; the workspace,
/// the start and the count go in that order. Transcripts written with fixed ids and times.
#[test]
fn session_list_at_60_100_and_200_columns() {
    let ctx = TestContext::new();
    crate::session::three_sessions(&ctx);
    insta::assert_snapshot!(at_widths(&ctx, &["session", "list"]), @r"
    [60]
    ID          TITLE              LAST ACTIVITY        MESSAGES
    0195aaaa-2  Write the releas…  2026-01-11 14:30:03  3
    7c3e0000                       2026-01-10 17:30:01  0
    0195aaaa-1  Login bug          2026-01-10 14:30:04  2
    [100]
    ID          TITLE                   WORKSPACE     STARTED              LAST ACTIVITY        MESSAGES
    0195aaaa-2  Write the release not…  /w/alpha/sub  2026-01-11 14:30:00  2026-01-11 14:30:03  3
    7c3e0000                            /w/beta       2026-01-10 17:30:00  2026-01-10 17:30:01  0
    0195aaaa-1  Login bug               /w/alpha      2026-01-10 14:30:00  2026-01-10 14:30:04  2
    [200]
    ID          TITLE                    WORKSPACE     STARTED              LAST ACTIVITY        MESSAGES
    0195aaaa-2  Write the release notes  /w/alpha/sub  2026-01-11 14:30:00  2026-01-11 14:30:03  3
    7c3e0000                             /w/beta       2026-01-10 17:30:00  2026-01-10 17:30:01  0
    0195aaaa-1  Login bug                /w/alpha      2026-01-10 14:30:00  2026-01-10 14:30:04  2
    ");
}

/// `skill list`: names, sources and paths whole, the description cut; the path goes first,
/// then the source. Skills of the project and the person's home, one shadowing the other. The
/// paths are the test's temp dir (`[BASE]`): at 60 and 100 columns the path is dropped
/// whatever its length, and at 200 it is the last column.
#[test]
fn skill_list_at_60_100_and_200_columns() {
    let ctx = TestContext::new();
    let skill = |dir: &std::path::Path, name: &str, description: &str| {
        let path = dir.join(name).join("SKILL.md");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            path,
            format!("---\nname: {name}\ndescription: {description}\n---\n\nBody.\n"),
        )
        .unwrap();
    };
    let personal = ctx.agent.join("skills");
    let project = ctx.work.join(".finch/skills");
    skill(
        &project,
        "release-checklist",
        "The steps of a release, in order, with who signs each one off",
    );
    skill(&personal, "release-checklist", "My own release steps");
    skill(&personal, "notes", "Keep notes");
    insta::assert_snapshot!(at_widths(&ctx, &["skill", "list"]), @r"
    [60]
    NAME               STATUS               DESCRIPTION
    notes              active               Keep notes
    release-checklist  active               The steps of a rele…
    release-checklist  shadowed by project  My own release steps
    [100]
    NAME               SOURCE    STATUS               DESCRIPTION
    notes              personal  active               Keep notes
    release-checklist  project   active               The steps of a release, in order, with who signs…
    release-checklist  personal  shadowed by project  My own release steps
    [200]
    NAME               SOURCE    STATUS               DESCRIPTION                                                    PATH
    notes              personal  active               Keep notes                                                     [BASE]/home/finchnest/skills/notes/SKILL.md
    release-checklist  project   active               The steps of a release, in order, with who signs each one off  [BASE]/work/.finch/skills/release-checklist/SKILL.md
    release-checklist  personal  shadowed by project  My own release steps                                           [BASE]/home/finchnest/skills/release-checklist/SKILL.md
    ");
}

/// `mcp list` and `mcp tools` against the Python SDK's test server (a real stdio server): names
/// whole; `mcp list` drops OWNER, SOURCE and TRANSPORT in that order, `mcp tools` cuts the
/// description. A server that cannot start is a row too, its reason under the table, wrapped
/// at spaces (before: one line of 150 columns).
#[test]
fn mcp_list_and_tools_at_60_100_and_200_columns() {
    let ctx = TestContext::new();
    crate::mcp_bridge::write_servers(
        &ctx,
        &serde_json::json!({"servers": [
            crate::mcp_bridge::python_entry("python-sdk-test-server", &[]),
            {"name": "missing", "command": "/nonexistent/mcp-server"}
        ]}),
    );
    // The table; the reasons under it name the test's temp dir, wrapped where it fits.
    let table = |columns| {
        let shown = on_terminal(&ctx, &["mcp", "list"], columns);
        let (table, notes) = shown
            .split_once("\n\n")
            .expect("the reasons under the table");
        for line in notes.lines() {
            assert!(
                line.chars().count() <= columns || !line.trim().contains(' '),
                "wrapped at spaces to {columns}: {line:?}"
            );
        }
        assert!(
            notes
                .replace('\n', " ")
                .starts_with("missing: cannot start the server with `/nonexistent/mcp-server`"),
            "{notes}"
        );
        format!("[{columns}]\n{table}\n")
    };
    insta::assert_snapshot!([60, 100, 200].map(table).concat(), @r"
    [60]
    NAME                    TRANSPORT  SOURCE  STATUS     TOOLS
    missing                 stdio      user    failed     -
    python-sdk-test-server  stdio      user    connected  14
    [100]
    NAME                    TRANSPORT  SOURCE  OWNER                   STATUS     TOOLS
    missing                 stdio      user    missing                 failed     -
    python-sdk-test-server  stdio      user    python-sdk-test-server  connected  14
    [200]
    NAME                    TRANSPORT  SOURCE  OWNER                   STATUS     TOOLS
    missing                 stdio      user    missing                 failed     -
    python-sdk-test-server  stdio      user    python-sdk-test-server  connected  14
    ");
    let tools = |columns| {
        on_terminal(&ctx, &["mcp", "tools", "python-sdk-test-server"], columns)
            .lines()
            .take(4)
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    };
    insta::assert_snapshot!(
        [60, 100, 200].map(|c| format!("[{c}]\n{}", tools(c))).concat(),
        @r"
    [60]
    NAME                                    DESCRIPTION
    mcp__python_sdk_test_server__echo       Echoes back the mes…
    mcp__python_sdk_test_server__add        Adds two integers
    mcp__python_sdk_test_server__fail       Always fails with a…
    [100]
    NAME                                    DESCRIPTION
    mcp__python_sdk_test_server__echo       Echoes back the message it is given
    mcp__python_sdk_test_server__add        Adds two integers
    mcp__python_sdk_test_server__fail       Always fails with an error the caller can read
    [200]
    NAME                                    DESCRIPTION
    mcp__python_sdk_test_server__echo       Echoes back the message it is given
    mcp__python_sdk_test_server__add        Adds two integers
    mcp__python_sdk_test_server__fail       Always fails with an error the caller can read
    "
    );
}
