//! Tests of `finch schedule` (SPEC §6): creating tasks of every kind with a fixed clock
//! (`FINCH_NOW`), every documented input error with its exit code and nothing written, the task
//! file's schema and unknown keys, runs through a real agent script (arguments passed whole, the
//! FINCH_* environment, output tail, overlap, time limit), a corrupt task file, and the daemon:
//! a task firing two seconds after start, a clean stop on SIGTERM, and one daemon at a time.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Run, TestContext};

/// A fixed "now": Saturday 2026-03-07 12:00 UTC, the day before New York springs forward.
const NOW: &str = "2026-03-07T12:00:00Z";

/// A prompt that a shell would mangle in every possible way.
const NASTY_PROMPT: &str =
    "$(rm -rf /tmp/x); \"quotes\" 'single' `backticks` | & ; > <  newline\n and unicode 天气";

fn run_at(ctx: &TestContext, now: &str, args: &[&str]) -> Run {
    Run(ctx
        .cmd()
        .env("FINCH_NOW", now)
        .args(args)
        .output()
        .expect("finch runs"))
}

/// `finch --json schedule create …` at `NOW`; returns the task id.
fn create(ctx: &TestContext, args: &[&str]) -> String {
    let mut all = vec!["--json", "schedule", "create"];
    all.extend_from_slice(args);
    let out = run_at(ctx, NOW, &all);
    out.success();
    out.json()["id"].as_str().expect("an id").to_string()
}

fn tasks_json(ctx: &TestContext) -> PathBuf {
    ctx.runtime.join("automation/tasks.json")
}

/// Writes an agent script that records its arguments (NUL-separated), the FINCH_* variables and
/// its directory into `<base>/agent-out/`, prints to stdout and stderr, sleeps `sleep` seconds
/// and exits with `code`; configures it as `[agent] command` with every placeholder.
fn install_agent(ctx: &TestContext, sleep: u32, code: i32) -> PathBuf {
    let out = ctx.base().join("agent-out");
    std::fs::create_dir_all(&out).unwrap();
    let script = ctx.base().join("agent.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n\
             out='{out}'\n\
             for a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"$out/args.$$\"\n\
             env | grep '^FINCH_' | sort > \"$out/env.$$\"\n\
             pwd > \"$out/pwd.$$\"\n\
             echo \"agent says hello\"\n\
             echo \"agent warns\" >&2\n\
             sleep {sleep}\n\
             echo \"agent done\"\n\
             exit {code}\n",
            out = out.display()
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    ctx.write_config(&format!(
        "[agent]\ncommand = [{:?}, \"-p\", \"{{prompt}}\", \"--model\", \"{{model}}\", \"--cwd\", \"{{cwd}}\", \"--session\", \"{{session}}\", \"--label={{model}}\"]\n",
        script.display().to_string()
    ));
    out
}

/// The files the agent script wrote with `prefix` (`args`, `env`, `pwd`), one per run.
fn agent_files(out: &Path, prefix: &str) -> Vec<Vec<u8>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(out)
        .map(|r| r.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(&format!("{prefix}.")))
    });
    files.sort();
    files.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

fn split_nul(bytes: &[u8]) -> Vec<String> {
    bytes
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect()
}

fn history(ctx: &TestContext, id: &str) -> Vec<Value> {
    let out = ctx.run(&["--json", "schedule", "history", id]);
    out.success();
    out.json().as_array().expect("an array").clone()
}

// ---------------------------------------------------------------------------------------------
// create, list, update, enable, disable, delete

#[test]
fn create_prints_the_next_three_fire_times_across_a_dst_change() {
    let ctx = TestContext::new();
    let out = run_at(
        &ctx,
        NOW,
        &[
            "schedule",
            "create",
            "--name",
            "Morning",
            "--prompt",
            "Plan the day",
            "--daily",
            "02:30",
            "--tz",
            "America/New_York",
        ],
    );
    out.success();
    let id = ctx.read_json(&tasks_json(&ctx))["tasks"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    // 02:30 does not exist on 2026-03-08 in New York: the run moves to the end of the gap.
    assert_eq!(
        out.stdout(),
        format!(
            "✓ Created task {id} \"Morning\": daily 02:30 (America/New_York)\n  Next runs:\n    Sun 2026-03-08 03:00 -04:00\n    Mon 2026-03-09 02:30 -04:00\n    Tue 2026-03-10 02:30 -04:00\n"
        ),
        "{out}"
    );
    // No agent is configured yet: a warning, not an error.
    out.stderr_has("warning: no agent command is configured yet");

    let out = run_at(
        &ctx,
        NOW,
        &[
            "--json",
            "schedule",
            "create",
            "--name",
            "Berlin",
            "--prompt",
            "p",
            "--weekly",
            "sun",
            "02:30",
            "--tz",
            "Europe/Berlin",
        ],
    );
    out.success();
    assert_eq!(
        out.json()["nextRuns"],
        json!([
            "2026-03-08T01:30:00.000Z",
            "2026-03-15T01:30:00.000Z",
            "2026-03-22T01:30:00.000Z"
        ])
    );
    let next = run_at(
        &ctx,
        "2026-03-28T12:00:00Z",
        &["--json", "schedule", "list"],
    )
    .json();
    // Berlin springs forward on 2026-03-29: 02:30 CET does not exist, 03:00 CEST = 01:00 UTC.
    assert_eq!(next[1]["nextRun"], "2026-03-29T01:00:00.000Z");
}

#[test]
fn every_schedule_kind_is_stored_in_its_documented_form() {
    let ctx = TestContext::new();
    let cases: &[(&[&str], &str)] = &[
        (&["--hourly"], "hourly"),
        (&["--hourly", ":15"], "hourly at :15"),
        (&["--daily", "9:05"], "daily 09:05"),
        (&["--weekdays", "18:00"], "weekdays 18:00"),
        (&["--weekly", "Monday", "07:30"], "weekly mon 07:30"),
        (
            &["--cron", "*/15 9-17 * * 1-5"],
            "cron \"*/15 9-17 * * 1-5\"",
        ),
        (
            &["--once", "2026-04-01T09:00"],
            "once 2026-04-01T09:00:00+02:00",
        ),
        (
            &["--once", "2026-04-01T09:00:00Z"],
            "once 2026-04-01T11:00:00+02:00",
        ),
    ];
    for (flags, stored) in cases {
        let mut args = vec!["--name", "n", "--prompt", "p", "--tz", "Europe/Berlin"];
        args.extend_from_slice(flags);
        let id = create(&ctx, &args);
        let doc = ctx.read_json(&tasks_json(&ctx));
        let task = doc["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == id.as_str())
            .unwrap()
            .clone();
        assert_eq!(task["schedule"], *stored, "{flags:?}");
    }
}

#[test]
fn the_task_file_has_the_documented_schema() {
    let ctx = TestContext::new();
    let dir = ctx.work.join("project");
    std::fs::create_dir_all(&dir).unwrap();
    let id = create(
        &ctx,
        &[
            "--name",
            "Report",
            "--prompt",
            "Write the report",
            "--cron",
            "0 9 * * 1",
            "--tz",
            "UTC",
            "--cwd",
            "project",
            "--model",
            "big-model",
            "--effort",
            "high",
            "--mode",
            "ask",
            "--timeout",
            "45m",
        ],
    );
    assert!(
        id.len() == 8 && id.starts_with("t-") && id[2..].chars().all(|c| c.is_ascii_hexdigit()),
        "{id}"
    );
    let text = std::fs::read_to_string(tasks_json(&ctx)).unwrap();
    assert!(
        text.starts_with("{\n  \"tasks\": [\n    {\n") && text.ends_with("}\n"),
        "{text}"
    );
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        json!({"tasks": [{
            "id": id, "name": "Report", "prompt": "Write the report",
            "schedule": "cron \"0 9 * * 1\"", "timezone": "UTC",
            "target": {"cwd": dir.display().to_string()},
            "model": "big-model", "reasoningEffort": "high", "permissionMode": "ask",
            "timeoutSeconds": 2700, "enabled": true,
            "createdAt": "2026-03-07T12:00:00.000Z", "updatedAt": "2026-03-07T12:00:00.000Z"
        }]})
    );

    // The local zone comes from TZ; the mode defaults to acceptCalls; a space is stored by id.
    let space_dir = ctx.work.join("space-dir");
    std::fs::create_dir_all(&space_dir).unwrap();
    ctx.run(&[
        "space",
        "create",
        "Work",
        "--dir",
        space_dir.to_str().unwrap(),
    ])
    .success();
    let space_id = ctx.read_json(&ctx.runtime.join("spaces.json"))["spaces"][0]["id"].clone();
    let out = Run(ctx
        .cmd()
        .env("FINCH_NOW", NOW)
        .env("TZ", "Asia/Tokyo")
        .args([
            "--json", "schedule", "create", "--name", "S", "--prompt", "p", "--hourly", "--space",
            "work",
        ])
        .output()
        .unwrap());
    out.success();
    let task = out.json();
    assert_eq!(task["timezone"], "Asia/Tokyo");
    assert_eq!(task["permissionMode"], "acceptCalls");
    assert_eq!(task["target"], json!({"space": space_id}));
}

#[test]
fn invalid_input_names_the_field_and_writes_nothing() {
    let ctx = TestContext::new();
    // (flags, exit code, a piece of the message)
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["--daily", "25:00"],
            2,
            "invalid --daily \"25:00\": hour 25 is out of range (00-23)",
        ),
        (
            &["--daily", "9"],
            2,
            "invalid --daily \"9\": not a time of day",
        ),
        (
            &["--weekdays", "12:61"],
            2,
            "invalid --weekdays \"12:61\": minute 61 is out of range",
        ),
        (
            &["--weekly", "funday", "09:00"],
            2,
            "invalid --weekly \"funday\": unknown weekday",
        ),
        (&["--hourly", ":75"], 2, "invalid --hourly \":75\""),
        (
            &["--cron", "0 24 * * *"],
            2,
            "invalid --cron \"0 24 * * *\": field 2 (hour) \"24\" is not valid",
        ),
        (&["--cron", "61 * * * *"], 2, "field 1 (minute) \"61\""),
        (&["--cron", "0 0 * 13 *"], 2, "field 4 (month) \"13\""),
        (&["--cron", "* * * *"], 2, "a cron expression has 5 fields"),
        (
            &["--cron", "0 0 30 2 *"],
            2,
            "invalid --cron \"0 0 30 2 *\": never fires",
        ),
        (
            &["--once", "2026-03-01T09:00"],
            2,
            "invalid --once \"2026-03-01T09:00:00Z\": is in the past (it is now 2026-03-07T12:00:00.000Z)",
        ),
        (
            &["--once", "next tuesday"],
            2,
            "invalid --once \"next tuesday\": not an ISO date-time",
        ),
        (
            &["--daily", "09:00", "--tz", "Mars/Olympus"],
            2,
            "invalid --tz \"Mars/Olympus\": unknown time zone",
        ),
        (
            &["--daily", "09:00", "--mode", "yolo"],
            2,
            "invalid --mode \"yolo\": unknown permission mode (use ask or acceptCalls)",
        ),
        (
            &["--daily", "09:00", "--effort", "extreme"],
            2,
            "invalid --effort \"extreme\": unknown reasoning effort",
        ),
        (
            &["--daily", "09:00", "--timeout", "soon"],
            2,
            "invalid --timeout \"soon\": not a duration",
        ),
        (
            &["--daily", "09:00", "--space", "nowhere"],
            3,
            "no space with the id or name \"nowhere\"",
        ),
        (
            &["--daily", "09:00", "--cwd", "missing-dir"],
            3,
            "no such directory:",
        ),
        (
            &["--daily", "09:00", "--cron", "0 9 * * *"],
            2,
            "cannot be used with",
        ),
        (
            &["--daily", "09:00", "--space", "a", "--cwd", "."],
            2,
            "cannot be used with",
        ),
        (&[], 2, "a task needs a schedule"),
    ];
    for (flags, code, message) in cases {
        let mut args = vec![
            "schedule", "create", "--name", "n", "--prompt", "p", "--tz", "UTC",
        ];
        args.retain(|a| !(flags.contains(&"--tz") && (*a == "--tz" || *a == "UTC")));
        args.extend_from_slice(flags);
        let out = run_at(&ctx, NOW, &args);
        out.failure(*code);
        out.stderr_has(message);
        assert_eq!(out.stdout(), "", "{flags:?}: {out}");
        assert!(!tasks_json(&ctx).exists(), "{flags:?} wrote the task file");
    }
    // An empty name or prompt is refused too.
    run_at(
        &ctx,
        NOW,
        &[
            "schedule", "create", "--name", " ", "--prompt", "p", "--hourly",
        ],
    )
    .failure(2)
    .stderr_has("invalid --name \" \": must not be empty");
    // With --json the error is one object on stdout.
    let out = run_at(
        &ctx,
        NOW,
        &[
            "--json", "schedule", "create", "--name", "n", "--prompt", "p", "--daily", "24:00",
        ],
    );
    out.failure(2);
    assert_eq!(
        out.json(),
        json!({"error": {"code": "invalid_task", "message": "invalid --daily \"24:00\": hour 24 is out of range (00-23)"}})
    );
    // A bad FINCH_NOW is an error naming the variable.
    run_at(&ctx, "yesterday", &["schedule", "list"])
        .failure(1)
        .stderr_has("FINCH_NOW=\"yesterday\" is not an RFC 3339 time");
    assert!(!tasks_json(&ctx).exists());
}

#[test]
fn update_enable_disable_and_delete_keep_what_they_do_not_touch() {
    let ctx = TestContext::new();
    std::fs::create_dir_all(tasks_json(&ctx).parent().unwrap()).unwrap();
    std::fs::write(
        tasks_json(&ctx),
        r#"{"schemaVersion": 2, "tasks": [{"id": "t-0a0b0c", "name": "App task", "prompt": "p", "schedule": "daily 08:00", "timezone": "UTC", "appColor": "teal", "enabled": true}]}"#,
    )
    .unwrap();
    let out = run_at(
        &ctx,
        "2026-03-08T00:00:00Z",
        &[
            "schedule",
            "update",
            "t-0a0b0c",
            "--weekdays",
            "07:45",
            "--tz",
            "Europe/Berlin",
            "--model",
            "m2",
        ],
    );
    out.success();
    assert_eq!(
        out.stdout(),
        "✓ Updated task t-0a0b0c \"App task\": weekdays 07:45 (Europe/Berlin)\n  Next runs:\n    Mon 2026-03-09 07:45 +01:00\n    Tue 2026-03-10 07:45 +01:00\n    Wed 2026-03-11 07:45 +01:00\n"
    );
    let doc = ctx.read_json(&tasks_json(&ctx));
    assert_eq!(doc["schemaVersion"], 2);
    let task = &doc["tasks"][0];
    assert_eq!(task["appColor"], "teal");
    assert_eq!(task["schedule"], "weekdays 07:45");
    assert_eq!(task["model"], "m2");
    assert_eq!(task["name"], "App task");
    assert_eq!(task["updatedAt"], "2026-03-08T00:00:00.000Z");

    // An empty value clears an optional setting.
    run_at(
        &ctx,
        NOW,
        &["schedule", "update", "t-0a0b0c", "--model", ""],
    )
    .success();
    assert!(
        ctx.read_json(&tasks_json(&ctx))["tasks"][0]
            .get("model")
            .is_none()
    );
    // A bad value changes nothing.
    let before = std::fs::read(tasks_json(&ctx)).unwrap();
    run_at(
        &ctx,
        NOW,
        &["schedule", "update", "t-0a0b0c", "--daily", "24:00"],
    )
    .failure(2);
    assert_eq!(std::fs::read(tasks_json(&ctx)).unwrap(), before);

    let out = run_at(&ctx, NOW, &["schedule", "disable", "t-0a0b0c"]);
    out.success();
    assert_eq!(out.stdout(), "✓ Disabled task t-0a0b0c \"App task\"\n");
    let listed = run_at(&ctx, NOW, &["--json", "schedule", "list"]).json();
    assert_eq!(listed[0]["enabled"], false);
    assert_eq!(listed[0]["nextRun"], Value::Null);
    assert_eq!(listed[0]["appColor"], "teal");
    run_at(&ctx, NOW, &["schedule", "list"])
        .success()
        .stdout_has("t-0a0b0c\tApp task\tdisabled\tweekdays 07:45\tEurope/Berlin\t-\t-\t-\n");
    run_at(&ctx, NOW, &["schedule", "enable", "t-0a0b0c"])
        .success()
        .stdout_has("✓ Enabled task t-0a0b0c");
    assert_eq!(
        run_at(&ctx, NOW, &["--json", "schedule", "list"]).json()[0]["nextRun"],
        "2026-03-09T06:45:00.000Z"
    );

    // Delete asks; with no terminal and no --yes that needs a person (exit 4), nothing changes.
    let before = std::fs::read(tasks_json(&ctx)).unwrap();
    let out = ctx.run(&["schedule", "delete", "t-0a0b0c"]);
    out.failure(4);
    out.stderr_has("pass --yes");
    assert_eq!(std::fs::read(tasks_json(&ctx)).unwrap(), before);
    let out = ctx.run(&["--yes", "schedule", "delete", "t-0a0b0c"]);
    out.success();
    assert_eq!(out.stdout(), "✓ Deleted task t-0a0b0c \"App task\"\n");
    let doc = ctx.read_json(&tasks_json(&ctx));
    assert_eq!(doc, json!({"schemaVersion": 2, "tasks": []}));
}

/// Issue 31, item 5: every command that takes a task takes its name or the beginning of its
/// id as well; a name or a beginning that several tasks answer to is a usage error (exit 2)
/// listing them, and changes nothing.
#[test]
fn tasks_are_named_by_id_name_or_unique_id_prefix_everywhere() {
    let ctx = TestContext::new();
    install_agent(&ctx, 0, 0);
    let report = create(
        &ctx,
        &[
            "--name",
            "Morning report",
            "--prompt",
            "Summarise",
            "--daily",
            "07:00",
        ],
    );
    let twin_a = create(
        &ctx,
        &["--name", "twin", "--prompt", "A", "--daily", "08:00"],
    );
    let twin_b = create(
        &ctx,
        &["--name", "twin", "--prompt", "B", "--daily", "09:00"],
    );
    // The shortest beginning that no other id shares.
    let prefix = (3..report.len())
        .map(|n| &report[..n])
        .find(|p| ![&twin_a, &twin_b].iter().any(|o| o.starts_with(p)))
        .expect("ids differ")
        .to_string();
    let named = |args: &[&str]| {
        let mut all = vec!["--json", "schedule"];
        all.extend_from_slice(args);
        let out = run_at(&ctx, NOW, &all);
        out.success();
        out.json()
    };
    // By name (any case) and by the beginning of the id.
    assert_eq!(named(&["disable", "morning REPORT"])["enabled"], false);
    assert_eq!(named(&["enable", &prefix])["enabled"], true);
    assert_eq!(
        named(&["update", &prefix.to_uppercase(), "--name", "Evening report"])["name"],
        "Evening report"
    );
    let ran = named(&["run", "evening report"]);
    assert_eq!(ran["taskId"], report.as_str(), "{ran}");
    let runs = named(&["history", "Evening report"]);
    assert_eq!(runs.as_array().map(Vec::len), Some(1), "{runs}");
    assert_eq!(runs[0]["taskId"], report.as_str());

    // Two tasks named "twin", and "t-" begins every id: usage errors that list the candidates.
    let before = std::fs::read(tasks_json(&ctx)).unwrap();
    for args in [
        &["schedule", "update", "twin", "--name", "x"][..],
        &["schedule", "enable", "twin"],
        &["schedule", "disable", "twin"],
        &["--yes", "schedule", "delete", "twin"],
        &["schedule", "run", "twin"],
        &["schedule", "history", "twin"],
        &["schedule", "run", "t-"],
    ] {
        let out = run_at(&ctx, NOW, args);
        out.failure(2);
        let query = if args.contains(&"t-") { "t-" } else { "twin" };
        let count = if query == "t-" { 3 } else { 2 };
        out.stderr_has(&format!("Error: \"{query}\" matches {count} tasks:\n"));
        out.stderr_has(&format!("  {twin_a}  twin\n"));
        out.stderr_has(&format!("  {twin_b}  twin\n"));
        out.stderr_has("hint: give the task's whole id, or more of it");
    }
    let out = run_at(&ctx, NOW, &["--json", "schedule", "run", "twin"]);
    out.failure(2);
    assert_eq!(out.json()["error"]["code"], "ambiguous_id");
    assert_eq!(std::fs::read(tasks_json(&ctx)).unwrap(), before);

    // A whole id wins over the name, and delete takes a name too.
    named(&["update", &twin_a, "--name", &twin_b]);
    assert_eq!(named(&["disable", &twin_b])["id"], twin_b.as_str());
    let gone = named(&["--yes", "delete", "evening report"]);
    assert_eq!(gone["deleted"]["id"], report.as_str(), "{gone}");
}

#[test]
fn unknown_ids_exit_3() {
    let ctx = TestContext::new();
    install_agent(&ctx, 0, 0);
    for args in [
        &["schedule", "update", "t-000000", "--name", "x"][..],
        &["schedule", "enable", "t-000000"],
        &["schedule", "disable", "t-000000"],
        &["--yes", "schedule", "delete", "t-000000"],
        &["schedule", "run", "t-000000"],
        &["schedule", "history", "t-000000"],
    ] {
        let out = ctx.run(args);
        out.failure(3);
        out.stderr_has("Error: no task with the id or name \"t-000000\"");
        out.stderr_has("hint: run `finch schedule list` to see the task ids");
    }
    let out = ctx.run(&["--json", "schedule", "run", "t-000000"]);
    out.failure(3);
    assert_eq!(out.json()["error"]["code"], "not_found");
}

#[test]
fn without_an_agent_command_runs_fail_naming_the_setting_and_file() {
    let ctx = TestContext::new();
    let id = create(&ctx, &["--name", "n", "--prompt", "p", "--hourly"]);
    let toml = ctx.runtime.join("config/finch.toml");
    for args in [
        &["schedule", "run", id.as_str()][..],
        &["schedule", "daemon"],
    ] {
        let out = ctx.run(args);
        out.failure(1);
        out.stderr_has(&format!(
            "Error: no agent command is configured: set `[agent] command` in {}",
            toml.display()
        ));
        out.stderr_has("command = [\"pi\", \"-p\", \"{prompt}\"]");
    }
    assert!(history(&ctx, &id).is_empty());
}

#[test]
fn a_corrupt_task_file_is_named_with_line_and_column_and_left_alone() {
    let ctx = TestContext::new();
    install_agent(&ctx, 0, 0);
    let path = tasks_json(&ctx);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let corrupt = b"{\n  \"tasks\": [\n    {\"id\": \"t-1\",, }\n  ]\n}\n";
    std::fs::write(&path, corrupt).unwrap();
    for args in [
        &["schedule", "list"][..],
        &[
            "schedule", "create", "--name", "n", "--prompt", "p", "--hourly",
        ],
        &["schedule", "update", "t-1", "--name", "x"],
        &["schedule", "disable", "t-1"],
        &["--yes", "schedule", "delete", "t-1"],
        &["schedule", "run", "t-1"],
        &["schedule", "history", "t-1"],
        &["schedule", "daemon"],
    ] {
        let out = ctx.run(args);
        out.failure(1);
        out.stderr_has(&format!(
            "Error: {} is not valid JSON (line 3, column",
            path.display()
        ));
        out.stderr_has(
            "hint: fix the file by hand, or run `finch doctor --state` to move it aside",
        );
        assert_eq!(std::fs::read(&path).unwrap(), corrupt, "{args:?}");
    }
    let out = ctx.run(&["--json", "schedule", "list"]);
    assert_eq!(out.json()["error"]["code"], "corrupt_state");

    // One unreadable entry does not break the listing.
    std::fs::write(
        &path,
        r#"{"tasks": [{"id": "t-bad001", "prompt": "p", "schedule": "every so often"}, {"id": "t-good01", "name": "Good", "prompt": "p", "schedule": "hourly", "timezone": "UTC"}]}"#,
    )
    .unwrap();
    let out = run_at(&ctx, NOW, &["schedule", "list"]);
    out.success();
    out.stdout_has("t-good01\tGood\tenabled\thourly\tUTC\t2026-03-07T13:00:00.000Z");
    out.stderr_has("warning: task 1 (t-bad001) in");
    out.stderr_has("schedule \"every so often\": expected hourly [at :MM]");
}

// ---------------------------------------------------------------------------------------------
// runs

#[test]
fn run_passes_arguments_whole_and_records_the_run() {
    let ctx = TestContext::new();
    let out_dir = install_agent(&ctx, 0, 0);
    let project = ctx.work.join("proj ect");
    std::fs::create_dir_all(&project).unwrap();
    let id = create(
        &ctx,
        &[
            "--name",
            "Nasty",
            "--prompt",
            NASTY_PROMPT,
            "--hourly",
            "--cwd",
            project.to_str().unwrap(),
        ],
    );
    let out = ctx.run(&["schedule", "run", &id]);
    out.success();
    assert_eq!(
        out.stdout(),
        "agent says hello\nagent warns\nagent done\n",
        "{out}"
    );
    out.stderr_has("✓ run r-");
    out.stderr_has(&format!("of task {id} \"Nasty\" succeeded (exit code 0,"));

    let args = split_nul(&agent_files(&out_dir, "args")[0]);
    let runs = history(&ctx, &id);
    let session = runs[0]["sessionId"].as_str().unwrap().to_string();
    // No model: "--model {model}" is dropped as a pair; "--label={model}" is kept as written.
    assert_eq!(
        args,
        [
            "-p",
            NASTY_PROMPT,
            "--cwd",
            project.to_str().unwrap(),
            "--session",
            &session,
            "--label={model}"
        ]
    );
    let env = String::from_utf8(agent_files(&out_dir, "env")[0].clone()).unwrap();
    assert!(env.contains(&format!("FINCH_TASK_ID={id}\n")), "{env}");
    assert!(
        env.contains(&format!("FINCH_RUNTIME_HOME={}\n", ctx.runtime.display())),
        "{env}"
    );
    assert!(
        env.contains(&format!("FINCH_AGENT_HOME={}\n", ctx.agent.display())),
        "{env}"
    );
    assert!(
        env.contains(&format!("FINCH_SESSION_ID={session}\n")),
        "{env}"
    );
    assert!(env.contains("FINCH_PERMISSION_MODE=acceptCalls\n"), "{env}");
    let pwd = String::from_utf8(agent_files(&out_dir, "pwd")[0].clone()).unwrap();
    assert_eq!(pwd.trim_end(), project.to_str().unwrap());

    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run["taskId"], id.as_str());
    assert_eq!(run["taskName"], "Nasty");
    assert_eq!(run["trigger"], "manual");
    assert_eq!(run["scheduledFor"], Value::Null);
    assert_eq!(run["status"], "succeeded");
    assert_eq!(run["exitCode"], 0);
    assert_eq!(run["directory"], project.to_str().unwrap());
    assert_eq!(
        run["outputTail"],
        "agent says hello\nagent warns\nagent done\n"
    );
    assert!(run["runId"].as_str().unwrap().starts_with("r-"));
    assert_eq!(session.len(), 36);
    for key in ["startedAt", "finishedAt"] {
        assert!(run[key].as_str().unwrap().ends_with('Z'), "{key}: {run}");
    }

    // `list` shows the last result; `history` without an id lists every task's runs.
    let listed = ctx.run(&["--json", "schedule", "list"]).json();
    assert_eq!(listed[0]["lastRun"]["status"], "succeeded");
    assert_eq!(listed[0]["lastRun"]["runId"], run["runId"]);
    let all = ctx.run(&["schedule", "history"]);
    all.success();
    all.stdout_has(&format!("\t{id}\t-\t"));
    all.stdout_has("\tsucceeded\t0\t");
    all.stdout_has("\tagent done\n");

    // A failing agent: exit 1, recorded as failed with its exit code; history is kept on delete.
    install_agent(&ctx, 0, 7);
    let out = ctx.run(&["--json", "schedule", "run", &id]);
    out.failure(1);
    let record = out.json();
    assert_eq!(record["status"], "failed");
    assert_eq!(record["exitCode"], 7);
    ctx.run(&["--yes", "schedule", "delete", &id]).success();
    assert_eq!(history(&ctx, &id).len(), 2);
}

#[test]
fn the_agent_home_is_the_default_directory_and_a_missing_cwd_fails_the_run() {
    let ctx = TestContext::new();
    let out_dir = install_agent(&ctx, 0, 0);
    let id = create(
        &ctx,
        &[
            "--name", "Home", "--prompt", "p", "--hourly", "--model", "m1",
        ],
    );
    ctx.run(&["schedule", "run", &id]).success();
    let pwd = String::from_utf8(agent_files(&out_dir, "pwd")[0].clone()).unwrap();
    assert_eq!(pwd.trim_end(), ctx.agent.to_str().unwrap());
    let args = split_nul(&agent_files(&out_dir, "args")[0]);
    assert_eq!(args[2..4], ["--model", "m1"]);
    assert_eq!(args.last().unwrap(), "--label={model}");

    let gone = ctx.work.join("gone");
    std::fs::create_dir_all(&gone).unwrap();
    let id = create(
        &ctx,
        &[
            "--name", "Gone", "--prompt", "p", "--hourly", "--cwd", "gone",
        ],
    );
    std::fs::remove_dir(&gone).unwrap();
    let out = ctx.run(&["--json", "schedule", "run", &id]);
    out.failure(1);
    let record = out.json();
    assert_eq!(record["status"], "failed");
    assert_eq!(record["exitCode"], Value::Null);
    assert_eq!(
        record["note"],
        format!("the directory {} does not exist", gone.display())
    );
}

#[test]
fn runs_of_one_task_never_overlap() {
    let ctx = TestContext::new();
    install_agent(&ctx, 2, 0);
    let id = create(&ctx, &["--name", "Slow", "--prompt", "p", "--hourly"]);
    let spawn = || {
        std_cmd(&ctx)
            .args(["schedule", "run", &id])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let first = spawn();
    let second = spawn();
    let outputs = [
        first.wait_with_output().unwrap(),
        second.wait_with_output().unwrap(),
    ];
    let mut codes: Vec<i32> = outputs
        .iter()
        .map(|o| o.status.code().unwrap_or(-1))
        .collect();
    codes.sort();
    assert_eq!(codes, [0, 5], "{:?}", outputs);
    let skipped = outputs
        .iter()
        .find(|o| o.status.code() == Some(5))
        .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
        .unwrap();
    assert!(
        skipped.contains("skipped-overlap (a run of this task is still going (pid "),
        "{skipped}"
    );

    let runs = history(&ctx, &id);
    let mut statuses: Vec<&str> = runs.iter().map(|r| r["status"].as_str().unwrap()).collect();
    statuses.sort();
    assert_eq!(statuses, ["skipped-overlap", "succeeded"]);
    let skipped = runs
        .iter()
        .find(|r| r["status"] == "skipped-overlap")
        .unwrap();
    assert_eq!(skipped["exitCode"], Value::Null);
    assert_eq!(skipped["sessionId"], Value::Null);
}

#[test]
fn a_run_past_its_time_limit_is_stopped_and_recorded_as_timed_out() {
    let ctx = TestContext::new();
    install_agent(&ctx, 30, 0);
    let id = create(
        &ctx,
        &[
            "--name",
            "Stuck",
            "--prompt",
            "p",
            "--hourly",
            "--timeout",
            "1s",
        ],
    );
    let started = Instant::now();
    let out = ctx.run(&["--json", "schedule", "run", &id]);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    out.failure(1);
    let record = out.json();
    assert_eq!(record["status"], "timed-out");
    assert_eq!(record["note"], "stopped after 1s, the run's time limit");
    assert_eq!(record["outputTail"], "agent says hello\nagent warns\n");
}

// ---------------------------------------------------------------------------------------------
// daemon

/// `finch` as a std command (for spawning), with the test context's sealed environment.
fn std_cmd(ctx: &TestContext) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_finch"));
    cmd.env_clear()
        .env("HOME", &ctx.home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("FINCH_RUNTIME_HOME", &ctx.runtime)
        .env("FINCH_AGENT_HOME", &ctx.agent)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .current_dir(&ctx.work);
    cmd
}

/// A running `finch --json schedule daemon` whose JSON lines arrive on a channel.
struct DaemonProcess {
    child: Child,
    lines: mpsc::Receiver<Value>,
    seen: Vec<Value>,
}

impl DaemonProcess {
    fn start(ctx: &TestContext) -> DaemonProcess {
        let mut child = std_cmd(ctx)
            .args(["--json", "schedule", "daemon"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("daemon starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}"));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        DaemonProcess {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits (at most `limit`) for the next event named `event`.
    fn wait_for(&mut self, event: &str, limit: Duration) -> Value {
        let until = Instant::now() + limit;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line["event"] == event {
                        return line;
                    }
                }
                Err(_) => panic!("no {event:?} event within {limit:?}; saw {:#?}", self.seen),
            }
        }
    }

    fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on the pid of our own child.
        unsafe {
            libc::kill(self.child.id() as i32, signal);
        }
    }

    /// Waits (at most `limit`) for the process to exit; returns its exit code and stderr.
    fn wait_exit(mut self, limit: Duration) -> (i32, String) {
        let until = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let mut stderr = String::new();
                if let Some(mut e) = self.child.stderr.take() {
                    use std::io::Read;
                    let _ = e.read_to_string(&mut stderr);
                }
                return (status.code().unwrap_or(-1), stderr);
            }
            if Instant::now() > until {
                let _ = self.child.kill();
                panic!(
                    "the daemon did not exit within {limit:?}; saw {:#?}",
                    self.seen
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn in_two_seconds() -> String {
    (chrono::Utc::now() + chrono::TimeDelta::seconds(2))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

#[test]
fn the_daemon_fires_a_due_task_and_stops_cleanly_on_sigterm() {
    let ctx = TestContext::new();
    let out_dir = install_agent(&ctx, 0, 0);
    let out = ctx.run(&[
        "--json",
        "schedule",
        "create",
        "--name",
        "Soon",
        "--prompt",
        NASTY_PROMPT,
        "--once",
        &in_two_seconds(),
        "--model",
        "fast-model",
    ]);
    out.success();
    let id = out.json()["id"].as_str().unwrap().to_string();
    let fire_time = out.json()["nextRuns"][0].clone();

    let mut daemon = DaemonProcess::start(&ctx);
    let ready = daemon.wait_for("ready", Duration::from_secs(5));
    assert_eq!(ready["tasks"], 1);
    assert_eq!(ready["nextRun"], json!({"taskId": id, "at": fire_time}));
    let started = daemon.wait_for("started", Duration::from_secs(10));
    assert_eq!(started["taskId"], id.as_str());
    assert_eq!(started["scheduledFor"], fire_time);
    let finished = daemon.wait_for("finished", Duration::from_secs(10));
    assert_eq!(finished["status"], "succeeded");
    assert_eq!(finished["runId"], started["runId"]);

    // The record in the history file.
    let runs = history(&ctx, &id);
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run["status"], "succeeded");
    assert_eq!(run["exitCode"], 0);
    assert_eq!(run["trigger"], "schedule");
    assert_eq!(run["scheduledFor"], fire_time);
    assert_eq!(
        run["outputTail"],
        "agent says hello\nagent warns\nagent done\n"
    );
    assert_eq!(run["sessionId"], started["sessionId"]);

    // The prompt reached the agent as one unchanged argument, next to the other placeholders.
    let args = split_nul(&agent_files(&out_dir, "args")[0]);
    assert_eq!(
        args,
        [
            "-p",
            NASTY_PROMPT,
            "--model",
            "fast-model",
            "--cwd",
            ctx.agent.to_str().unwrap(),
            "--session",
            run["sessionId"].as_str().unwrap(),
            "--label={model}"
        ]
    );
    let env = String::from_utf8(agent_files(&out_dir, "env")[0].clone()).unwrap();
    assert!(env.contains(&format!("FINCH_TASK_ID={id}\n")), "{env}");
    assert!(
        env.contains(&format!("FINCH_RUNTIME_HOME={}\n", ctx.runtime.display())),
        "{env}"
    );
    assert!(
        env.contains(&format!("FINCH_AGENT_HOME={}\n", ctx.agent.display())),
        "{env}"
    );

    daemon.signal(libc::SIGTERM);
    daemon.wait_for("stopping", Duration::from_secs(5));
    daemon.wait_for("stopped", Duration::from_secs(5));
    let (code, stderr) = daemon.wait_exit(Duration::from_secs(5));
    assert_eq!(code, 0, "{stderr}");
    // The lock went with it: a new daemon can start.
    let mut second = DaemonProcess::start(&ctx);
    second.wait_for("ready", Duration::from_secs(5));
    second.signal(libc::SIGTERM);
    assert_eq!(second.wait_exit(Duration::from_secs(5)).0, 0);
}

#[test]
fn the_daemon_picks_up_new_tasks_and_stops_running_agents_on_sigint() {
    let ctx = TestContext::new();
    install_agent(&ctx, 30, 0);
    let mut daemon = DaemonProcess::start(&ctx);
    let ready = daemon.wait_for("ready", Duration::from_secs(5));
    assert_eq!(ready["tasks"], 0);
    assert_eq!(ready["nextRun"], Value::Null);
    // Created while the daemon runs: it notices the changed file.
    let out = ctx.run(&[
        "--json",
        "schedule",
        "create",
        "--name",
        "Long",
        "--prompt",
        "p",
        "--once",
        &in_two_seconds(),
    ]);
    out.success();
    let id = out.json()["id"].as_str().unwrap().to_string();
    assert_eq!(
        daemon.wait_for("reloaded", Duration::from_secs(5))["tasks"],
        1
    );
    let started = daemon.wait_for("started", Duration::from_secs(10));
    assert_eq!(started["taskId"], id.as_str());

    let stopping_at = Instant::now();
    daemon.signal(libc::SIGINT);
    assert_eq!(
        daemon.wait_for("stopping", Duration::from_secs(5))["running"],
        1
    );
    let finished = daemon.wait_for("finished", Duration::from_secs(10));
    assert_eq!(finished["status"], "failed");
    assert_eq!(finished["note"], "stopped: the daemon received SIGINT");
    daemon.wait_for("stopped", Duration::from_secs(5));
    let (code, stderr) = daemon.wait_exit(Duration::from_secs(5));
    assert_eq!(code, 0, "{stderr}");
    assert!(stopping_at.elapsed() < Duration::from_secs(8));
    assert_eq!(history(&ctx, &id)[0]["status"], "failed");
}

#[test]
fn a_second_daemon_exits_5_naming_the_first_ones_pid() {
    let ctx = TestContext::new();
    install_agent(&ctx, 0, 0);
    let mut first = DaemonProcess::start(&ctx);
    let ready = first.wait_for("ready", Duration::from_secs(5));
    let pid = ready["pid"].as_u64().unwrap();
    assert_eq!(pid, u64::from(first.child.id()));

    let out = ctx.run(&["schedule", "daemon"]);
    out.failure(5);
    out.stderr_has(&format!(
        "Error: another schedule daemon is running (pid {pid})"
    ));
    let out = ctx.run(&["--json", "schedule", "daemon"]);
    out.failure(5);
    assert_eq!(out.json()["error"]["code"], "daemon_running");

    first.signal(libc::SIGTERM);
    assert_eq!(first.wait_exit(Duration::from_secs(5)).0, 0);
}

// ---------------------------------------------------------------------------------------------
// a daemon that dies: its runs, its missed fire times, and what runs leave behind

/// Whether process `pid` runs (a zombie waiting for a parent that never reaps it does not).
fn alive(pid: u64) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !matches!(
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.trim_start().chars().next()),
            Some('Z' | 'X')
        ),
        Err(_) => false,
    }
}

fn wait_dead(pid: u64, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    while alive(pid) {
        if Instant::now() > until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    true
}

fn kill_pid(pid: u64) {
    // SAFETY: kill(2) on a pid this test started (through the daemon).
    unsafe {
        libc::kill(pid as i32, libc::SIGKILL);
    }
}

#[test]
fn a_run_outlives_a_killed_daemon_holding_its_lock_and_the_next_daemon_ends_it() {
    let ctx = TestContext::new();
    // An agent that writes nothing to its output once its daemon is gone (a write to the closed
    // pipe would end it with SIGPIPE) and says when it is under way.
    let marker = ctx.base().join("agent-running");
    let script = ctx.base().join("quiet-agent.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh
echo starting
touch \"{}\"
sleep 60
",
            marker.display()
        ),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    ctx.write_config(&format!(
        "[agent]\ncommand = [{:?}]\n",
        script.display().to_string()
    ));
    let out = ctx.run(&[
        "--json",
        "schedule",
        "create",
        "--name",
        "Long",
        "--prompt",
        "p",
        "--once",
        &in_two_seconds(),
    ]);
    out.success();
    let id = out.json()["id"].as_str().unwrap().to_string();
    let mut daemon = DaemonProcess::start(&ctx);
    daemon.wait_for("ready", Duration::from_secs(5));
    let started = daemon.wait_for("started", Duration::from_secs(10));
    let agent = started["pid"].as_u64().unwrap();
    let until = Instant::now() + Duration::from_secs(10);
    while !marker.exists() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    // SIGKILL: no destructor, no cleanup, exactly what a crash looks like.
    daemon.signal(libc::SIGKILL);
    let _ = daemon.wait_exit(Duration::from_secs(5));
    assert!(alive(agent), "the agent died with the daemon");

    // The task's lock outlived the daemon: a run now is skipped, naming the agent.
    let out = ctx.run(&["--json", "schedule", "run", &id]);
    out.failure(5);
    let skipped = out.json();
    assert_eq!(skipped["status"], "skipped-overlap");
    assert_eq!(
        skipped["note"],
        format!("a run of this task is still going (pid {agent})")
    );

    // The next daemon ends the left-behind run and records it before it is ready.
    let mut next = DaemonProcess::start(&ctx);
    let orphan = next.wait_for("orphan", Duration::from_secs(15));
    assert_eq!(orphan["runId"], started["runId"]);
    assert_eq!(orphan["taskId"], id.as_str());
    assert_eq!(orphan["status"], "failed");
    assert_eq!(orphan["sessionId"], started["sessionId"]);
    let note = orphan["note"].as_str().unwrap();
    assert!(
        note.starts_with("ended with SIGTERM when the schedule daemon started again: the finch that started it (pid "),
        "{note}"
    );
    next.wait_for("ready", Duration::from_secs(5));
    let dead = wait_dead(agent, Duration::from_secs(5));
    if !dead {
        kill_pid(agent);
    }
    assert!(dead, "the left-behind agent still runs");
    next.signal(libc::SIGTERM);
    assert_eq!(next.wait_exit(Duration::from_secs(15)).0, 0);

    let runs = history(&ctx, &id);
    let recorded = runs
        .iter()
        .find(|r| r["runId"] == started["runId"])
        .unwrap_or_else(|| panic!("no record of the orphaned run: {runs:#?}"));
    assert_eq!(recorded["status"], "failed");
    assert_eq!(recorded["scheduledFor"], started["scheduledFor"]);
    assert!(runs.iter().any(|r| r["status"] == "skipped-overlap"));
}

#[test]
fn a_restarted_daemon_reports_missed_fire_times_and_catches_up_once_when_asked() {
    let ctx = TestContext::new();
    install_agent(&ctx, 0, 0);
    // Both tasks were created a day ago, for two hours ago; no daemon ran since.
    let now = chrono::Utc::now();
    let slot = now - chrono::TimeDelta::hours(2);
    let hhmm = slot.format("%H:%M").to_string();
    let slot_text = format!("{}:00.000Z", slot.format("%Y-%m-%dT%H:%M"));
    let created = (now - chrono::TimeDelta::hours(25)).to_rfc3339();
    let make = |name: &str, extra: &[&str]| {
        let mut args = vec![
            "--json", "schedule", "create", "--name", name, "--prompt", "p", "--daily", &hhmm,
            "--tz", "UTC",
        ];
        args.extend_from_slice(extra);
        let out = run_at(&ctx, &created, &args);
        out.success();
        out.json()["id"].as_str().unwrap().to_string()
    };
    let plain = make("Plain", &[]);
    let catching = make("Morning", &["--catch-up"]);
    let stored: Value = serde_json::from_slice(&std::fs::read(tasks_json(&ctx)).unwrap()).unwrap();
    assert_eq!(stored["tasks"][0].get("catchUp"), None);
    assert_eq!(stored["tasks"][1]["catchUp"], true);

    let mut daemon = DaemonProcess::start(&ctx);
    daemon.wait_for("ready", Duration::from_secs(5));
    let mut missed = [
        daemon.wait_for("missed", Duration::from_secs(5)),
        daemon.wait_for("missed", Duration::from_secs(5)),
    ];
    missed.sort_by_key(|m| m["taskName"].as_str().unwrap().to_string());
    for (m, id, catch_up) in [(&missed[0], &catching, true), (&missed[1], &plain, false)] {
        assert_eq!(m["taskId"], id.as_str());
        assert_eq!(m["scheduledFor"], slot_text.as_str());
        assert_eq!(m["latest"], slot_text.as_str());
        assert_eq!(m["count"], 1);
        assert_eq!(m["catchUp"], catch_up);
    }
    // The catchUp task runs once, for the fire time it missed; the other one does not run.
    let started = daemon.wait_for("started", Duration::from_secs(10));
    assert_eq!(started["taskId"], catching.as_str());
    assert_eq!(started["scheduledFor"], slot_text.as_str());
    let finished = daemon.wait_for("finished", Duration::from_secs(10));
    assert_eq!(finished["status"], "succeeded");
    assert_eq!(finished["catchUp"], true);
    daemon.signal(libc::SIGTERM);
    assert_eq!(daemon.wait_exit(Duration::from_secs(10)).0, 0);
    assert_eq!(history(&ctx, &catching).len(), 1);
    assert!(history(&ctx, &plain).is_empty());

    // Started again: nothing new was missed, so nothing is reported or run (a change to the
    // task file is the sign that start-up is over).
    let mut again = DaemonProcess::start(&ctx);
    again.wait_for("ready", Duration::from_secs(5));
    create(&ctx, &["--name", "Later", "--prompt", "p", "--hourly"]);
    again.wait_for("reloaded", Duration::from_secs(5));
    assert!(
        !again
            .seen
            .iter()
            .any(|e| e["event"] == "missed" || e["event"] == "started"),
        "{:#?}",
        again.seen
    );
    again.signal(libc::SIGTERM);
    assert_eq!(again.wait_exit(Duration::from_secs(10)).0, 0);
    assert_eq!(history(&ctx, &catching).len(), 1);
}

#[test]
fn children_that_setsid_away_with_the_output_open_are_killed() {
    let ctx = TestContext::new();
    let pid_file = ctx.base().join("escapee.pid");
    let script = ctx.base().join("escaping-agent.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n\
             setsid sh -c 'echo $$ > \"{}\"; exec sleep 300' &\n\
             while [ ! -s \"{}\" ]; do sleep 0.05; done\n\
             echo agent leaves\n\
             exit 0\n",
            pid_file.display(),
            pid_file.display()
        ),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    ctx.write_config(&format!(
        "[agent]\ncommand = [{:?}]\n",
        script.display().to_string()
    ));
    let id = create(&ctx, &["--name", "Escape", "--prompt", "p", "--hourly"]);
    let out = ctx.run(&["--json", "schedule", "run", &id]);
    let escapee: u64 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let dead = wait_dead(escapee, Duration::from_secs(5));
    if !dead {
        kill_pid(escapee);
    }
    out.success();
    let record = out.json();
    assert!(
        dead,
        "the child that left the process group still runs: {record:#}"
    );
    assert_eq!(record["status"], "succeeded");
    assert_eq!(
        record["note"],
        format!("killed 1 process(es) the agent left behind holding its output (pid {escapee})")
    );
    assert_eq!(record["outputTail"], "agent leaves\n");
}

/// A `bin` directory holding an executable `pi` that only exits, and a PATH that finds it
/// first.
fn fake_pi(ctx: &TestContext) -> String {
    let bin = ctx.base().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let pi = bin.join("pi");
    std::fs::write(&pi, "#!/bin/sh\nexit 0\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&pi, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

const CREATE: [&str; 8] = [
    "schedule", "create", "--name", "Digest", "--prompt", "Sum up", "--daily", "08:00",
];

/// Issue 31, item 9: on a terminal, with no `[agent] command` and pi on PATH, `schedule
/// create` offers to set pi's; yes writes it to finch.toml (keeping what the file held), no
/// leaves the file alone and says how to set one.
#[test]
fn create_on_a_terminal_offers_to_set_pi_as_the_agent() {
    use crate::cards::Pty;
    let ctx = TestContext::new();
    let path = fake_pi(&ctx);
    let toml = ctx.runtime.join("config/finch.toml");
    std::fs::create_dir_all(toml.parent().unwrap()).unwrap();
    std::fs::write(&toml, "# my settings\n[host]\nmode = \"ask\"\n").unwrap();

    let mut pty = Pty::spawn_env(&ctx, &CREATE, &[("PATH", &path), ("FINCH_NOW", NOW)]);
    pty.expect("Created task");
    let asked = pty.expect("[y/N] ");
    assert!(asked.contains("Run tasks with pi ("), "{asked}");
    assert!(asked.contains(&format!("{}", toml.display())), "{asked}");
    pty.send("n\r");
    pty.expect("warning: no agent command is configured yet");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    assert_eq!(
        std::fs::read_to_string(&toml).unwrap(),
        "# my settings\n[host]\nmode = \"ask\"\n"
    );

    let mut pty = Pty::spawn_env(&ctx, &CREATE, &[("PATH", &path), ("FINCH_NOW", NOW)]);
    pty.expect("[y/N] ");
    pty.send("y\r");
    pty.expect("Set [agent] command in");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    assert!(!tail.contains("warning"), "{tail}");
    assert_eq!(
        std::fs::read_to_string(&toml).unwrap(),
        "# my settings\n[host]\nmode = \"ask\"\n\n[agent]\ncommand = [\"pi\", \"--model\", \"{model}\", \"--thinking\", \"{effort}\", \"--session\", \"{session}\", \"-p\", \"{prompt}\"]\n"
    );

    // Set now: the next create asks nothing.
    let pty = Pty::spawn_env(&ctx, &CREATE, &[("PATH", &path), ("FINCH_NOW", NOW)]);
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    assert!(
        tail.contains("Created task") && !tail.contains("[y/N]"),
        "{tail}"
    );
}

/// Issue 31, item 9: on a pipe `schedule create` never asks, even with pi on PATH: it warns and
/// says how to set the agent command, and writes no settings.
#[test]
fn create_on_a_pipe_never_asks_and_says_how_to_set_the_agent() {
    let ctx = TestContext::new();
    let path = fake_pi(&ctx);
    let out = Run(ctx
        .cmd()
        .env("PATH", &path)
        .env("FINCH_NOW", NOW)
        .args(CREATE)
        .output()
        .unwrap());
    out.success();
    assert!(!out.stderr().contains("[y/N]"), "{out}");
    out.stderr_has(&format!(
        "warning: no agent command is configured yet; runs fail until `[agent] command` is set in {} (for pi: command = [\"pi\", \"-p\", \"{{prompt}}\"]; `finch schedule create --help` says more)",
        ctx.runtime.join("config/finch.toml").display()
    ));
    assert!(!ctx.runtime.join("config/finch.toml").exists());
}

/// Issue 31, item 9: `schedule create --help` says what a task runs and how to set it, for pi
/// and for a plain shell command.
#[test]
fn create_help_explains_the_agent_command() {
    let ctx = TestContext::new();
    let out = ctx.run(&["schedule", "create", "--help"]);
    out.success();
    let help = out.stdout();
    for needle in [
        "A task runs the agent command set in `<runtime>/config/finch.toml` under `[agent]",
        "there is none by default, and runs fail until one is set",
        "    command = [\"pi\", \"--session\", \"{session}\", \"-p\", \"{prompt}\"]",
        "    command = [\"sh\", \"-c\", \"echo \\\"$1\\\" >> \\\"$HOME/reminders.txt\\\"\", \"sh\", \"{prompt}\"]",
        "offers to set pi's",
    ] {
        assert!(help.contains(needle), "{needle:?} not in:\n{help}");
    }
}
