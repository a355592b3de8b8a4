//! Tables on a real terminal (`finch memory list` draws a table only there): widths in
//! display columns, ids never cut.

use crate::cards::Pty;
use crate::common::TestContext;

#[test]
fn memory_list_measures_cjk_in_columns_and_keeps_ids_whole() {
    let ctx = TestContext::new();
    let text = "会議は毎週火曜日の午前十時から始まり、議事録は共有フォルダに保存する";
    ctx.run(&["memory", "remember", text]).success();
    ctx.run(&["memory", "remember", "plain ascii entry"])
        .success();
    let pty = Pty::spawn_env(&ctx, &["memory", "list"], &[("COLUMNS", "60")]);
    let (code, shown) = pty.finish();
    assert_eq!(code, 0, "{shown}");
    let lines: Vec<&str> = shown.lines().map(|l| l.trim_end_matches('\r')).collect();
    assert!(lines[0].starts_with("ID"), "{shown}");
    for line in &lines {
        let columns = unicode_width::UnicodeWidthStr::width(*line);
        assert!(columns <= 60, "{columns} columns: {line:?}\n{shown}");
    }
    let cjk = lines
        .iter()
        .find(|l| l.contains("会議"))
        .expect("the CJK row");
    assert!(cjk.ends_with('…'), "cut to fit, by columns: {cjk:?}");
    // The id column holds what `memory forget` takes, whole.
    let piped = ctx.run(&["memory", "list"]).stdout();
    for id in piped.lines().filter_map(|l| l.split('\t').next()) {
        assert!(
            shown.contains(id),
            "id {id} whole on the terminal:\n{shown}"
        );
    }
}

/// `finch schedule list` on a terminal, at a fixed now (Saturday 2026-03-07 12:00 UTC) in
/// Asia/Kolkata: sorted by next run, each time with its offset (the user's zone, or the task's
/// own when it has another), how far off it is, and whole columns dropped at 60 columns. The
/// schedule (a timestamp for `--once`) is never cut: the time zone goes instead (issue 31).
#[test]
fn schedule_list_sorts_by_next_run_in_one_zone_with_offsets() {
    const NOW: &str = "2026-03-07T12:00:00Z";
    let ctx = TestContext::new();
    let create = |args: &[&str]| {
        let mut all = vec!["--json", "schedule", "create", "--prompt", "p"];
        all.extend_from_slice(args);
        let out = ctx
            .cmd()
            .env("FINCH_NOW", NOW)
            .env("TZ", "Asia/Kolkata")
            .args(&all)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let task: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        task["id"].as_str().unwrap().to_string()
    };
    let ids = [
        create(&[
            "--name",
            "Weekly in Berlin",
            "--weekly",
            "mon",
            "08:00",
            "--tz",
            "Europe/Berlin",
        ]),
        create(&["--name", "Daily standup notes", "--daily", "09:00"]),
        // 2026-03-07T18:30+05:30 is 13:00 UTC: an hour from now. Valid ISO 8601, no seconds.
        create(&["--name", "Once soon", "--once", "2026-03-07T18:30+05:30"]),
        create(&["--name", "Switched off", "--hourly", ":15"]),
    ];
    ctx.cmd()
        .args(["schedule", "disable", &ids[3]])
        .assert()
        .success();
    let list = |columns: &str| {
        let pty = Pty::spawn_env(
            &ctx,
            &["schedule", "list"],
            &[
                ("COLUMNS", columns),
                ("FINCH_NOW", NOW),
                ("TZ", "Asia/Kolkata"),
            ],
        );
        let (code, shown) = pty.finish();
        assert_eq!(code, 0, "{shown}");
        let mut text = shown.replace('\r', "");
        for (i, id) in ids.iter().enumerate() {
            text = text.replace(id.as_str(), &format!("t-[{i}]   "));
        }
        text
    };
    insta::assert_snapshot!(list("120"), @r"
    ID        NAME                 NEXT RUN                               SCHEDULE                        LAST RESULT
    t-[2]     Once soon            Sat 2026-03-07 18:30 +05:30 (in 1 h)   once 2026-03-07T18:30:00+05:30  -
    t-[1]     Daily standup notes  Sun 2026-03-08 09:00 +05:30 (in 16 h)  daily 09:00                     -
    t-[0]     Weekly in Berlin     Mon 2026-03-09 08:00 +01:00 (in 2 d)   weekly mon 08:00                -
    t-[3]     Switched off         disabled                               hourly at :15                   -
    ");
    insta::assert_snapshot!(list("60"), @r"
    ID        NAME         NEXT RUN
    t-[2]     Once soon    Sat 2026-03-07 18:30 +05:30 (in 1 h)
    t-[1]     Daily stan…  Sun 2026-03-08 09:00 +05:30 (in 16 h)
    t-[0]     Weekly in…   Mon 2026-03-09 08:00 +01:00 (in 2 d)
    t-[3]     Switched o…  disabled
    ");
}

/// `schedule history` on a terminal writes its times with their offset (in the user's zone).
#[test]
fn schedule_history_times_carry_their_offset() {
    let ctx = TestContext::new();
    let runs = ctx.runtime.join("automation/runs");
    std::fs::create_dir_all(&runs).unwrap();
    let record = serde_json::json!({
        "runId": "r-000001", "taskId": "t-abc123", "taskName": "Digest", "trigger": "schedule",
        "scheduledFor": "2026-03-07T02:30:00Z", "startedAt": "2026-03-07T02:30:01Z",
        "finishedAt": "2026-03-07T02:31:00Z", "status": "succeeded", "exitCode": 0,
        "sessionId": null, "directory": null, "durationMs": 59000, "outputTail": "done\n"
    });
    std::fs::write(runs.join("t-abc123.jsonl"), format!("{record}\n")).unwrap();
    let pty = Pty::spawn_env(
        &ctx,
        &["schedule", "history"],
        &[("COLUMNS", "200"), ("TZ", "Asia/Kolkata")],
    );
    let (code, shown) = pty.finish();
    assert_eq!(code, 0, "{shown}");
    assert!(
        shown.contains("2026-03-07 08:00 +05:30"),
        "scheduled for, with its offset:\n{shown}"
    );
    assert!(
        shown.contains("2026-03-07 08:00:01 +05:30"),
        "started, with its offset:\n{shown}"
    );
}
