//! Tests of the dispatcher tools `Memory`, `Skills`, `Session`, `Schedule` and `ToolSearch`
//! (SPEC §5–§8) through the real binary (`finch tool call --json`, `finch run --jsonl`): each
//! action's happy path, the manual of a call without `action`, unknown actions, parameters the
//! action's schema refuses, every documented error, and the state files compared byte for byte
//! (or field for field) with what the matching `finch` command writes in a second context.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::{Run, TestContext};

/// A fixed clock: Sunday 2026-11-29 09:15 at UTC+1.
const NOW: &str = "2026-11-29T09:15:00+01:00";

/// `finch tool call <tool> <args> --json` at `NOW`.
fn call(ctx: &TestContext, tool: &str, args: Value) -> Run {
    Run(ctx
        .cmd()
        .env("FINCH_NOW", NOW)
        .args(["tool", "call", tool, &args.to_string(), "--json"])
        .output()
        .expect("finch runs"))
}

/// A successful call's structured result.
#[track_caller]
fn ok(ctx: &TestContext, tool: &str, args: Value) -> Value {
    let out = call(ctx, tool, args);
    out.success();
    let record = out.json();
    assert_eq!(record["isError"], false, "{out}");
    assert_eq!(record["decidedBy"], "autoAllow", "{out}");
    record["structuredContent"].clone()
}

/// A failing call's text (exit 1, a tool error).
#[track_caller]
fn fails(ctx: &TestContext, tool: &str, args: Value) -> String {
    let out = call(ctx, tool, args);
    out.failure(1);
    let record = out.json();
    assert_eq!(record["isError"], true, "{out}");
    text_of(&record)
}

/// `finch --json <args>` at `NOW`.
fn cli(ctx: &TestContext, args: &[&str]) -> Value {
    let out = Run(ctx
        .cmd()
        .env("FINCH_NOW", NOW)
        .arg("--json")
        .args(args)
        .output()
        .expect("finch runs"));
    out.success();
    out.json()
}

fn text_of(record: &Value) -> String {
    record["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// `value` with every string's occurrences of `from` replaced by `to`.
fn replace_in(value: &Value, from: &str, to: &str) -> Value {
    match value {
        Value::String(s) => Value::String(s.replace(from, to)),
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| replace_in(v, from, to)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), replace_in(v, from, to)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `value` with the test context's temp paths as `[BASE]`.
fn filtered(ctx: &TestContext, value: &Value) -> Value {
    replace_in(value, &ctx.base().display().to_string(), "[BASE]")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn lines(path: &Path) -> Vec<Value> {
    read(path)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// every suite: manual, unknown action, invalid parameters

#[test]
fn a_call_without_action_returns_the_manual() {
    let ctx = TestContext::new();
    let suites: [(&str, &[&str]); 5] = [
        (
            "Memory",
            &["remember", "replace", "forget", "search", "list", "show"],
        ),
        ("Skills", &["list", "invoke"]),
        ("Session", &["search", "extendDir", "attach", "rename"]),
        (
            "Schedule",
            &[
                "list", "create", "update", "enable", "disable", "delete", "run", "history",
            ],
        ),
        ("ToolSearch", &["search"]),
    ];
    for (suite, actions) in suites {
        let out = call(&ctx, suite, json!({}));
        out.success();
        let record = out.json();
        assert_eq!(record["decision"], "none", "{out}");
        assert_eq!(record["decidedBy"], "manual", "{out}");
        let manual = text_of(&record);
        assert!(manual.starts_with(&format!("{suite} — ")), "{manual}");
        assert!(
            manual.contains(&format!(
                "Call it with \"action\" set to one of: {}.",
                actions.join(", ")
            )),
            "{manual}"
        );
        for action in actions {
            assert!(
                manual.contains(&format!("\n{action} — ")),
                "{suite} {action}: {manual}"
            );
            assert!(
                manual.contains(&format!("example: {{\"action\":\"{action}\"")),
                "{suite} {action}: {manual}"
            );
        }
    }
    let manual = text_of(&call(&ctx, "Memory", json!({})).json());
    assert!(
        manual.contains("  text (string, required) The entry text\n"),
        "{manual}"
    );
    assert!(
        manual.contains("  allMatching (boolean) Remove every entry"),
        "{manual}"
    );
    let manual = text_of(&call(&ctx, "Schedule", json!({})).json());
    assert!(
        manual.contains("  weekly (string) Run every week: \"DAY HH:MM\""),
        "{manual}"
    );
    assert!(manual.contains("an empty string clears it"), "{manual}");
    // Nothing ran, so nothing changed.
    assert!(!ctx.agent.exists());
    assert!(!ctx.runtime.join("automation").exists());
}

#[test]
fn an_unknown_action_is_refused_before_anything_runs() {
    let ctx = TestContext::new();
    // The tool's schema lists the actions, so the host refuses an unknown one first.
    for (suite, action, first) in [
        ("Memory", "frobnicate", "\"remember\""),
        ("Session", "delete", "\"search\""),
        ("Schedule", "pause", "\"list\""),
        ("ToolSearch", "find", "\"search\""),
    ] {
        let out = call(&ctx, suite, json!({"action": action}));
        out.failure(1);
        let record = out.json();
        assert_eq!(record["failure"], "invalidArguments", "{out}");
        let text = text_of(&record);
        assert!(
            text.contains(&format!("/action: \"{action}\" is not one of {first}")),
            "{text}"
        );
    }
    assert!(!ctx.agent.exists());
}

#[test]
fn parameters_are_checked_against_the_action_schema() {
    let ctx = TestContext::new();
    let text = fails(&ctx, "Memory", json!({"action": "remember"}));
    assert!(
        text.starts_with("Invalid parameters for Memory action `remember`:\n- "),
        "{text}"
    );
    assert!(text.contains("\"text\" is a required property"), "{text}");
    assert!(
        text.ends_with(
            "Example: {\"action\":\"remember\",\"text\":\"Prefers metric units\",\"to\":\"profile\"}"
        ),
        "{text}"
    );
    // A parameter of another action is not one of this action's.
    let text = fails(
        &ctx,
        "Memory",
        json!({"action": "remember", "text": "x", "query": "y"}),
    );
    assert!(
        text.contains("Additional properties are not allowed ('query'"),
        "{text}"
    );
    let text = fails(
        &ctx,
        "Schedule",
        json!({"action": "create", "name": "n", "prompt": "p", "daily": "09:00", "mode": "yolo"}),
    );
    assert!(text.contains("/mode: \"yolo\" is not one of"), "{text}");
    // A wrong type is caught by the tool's own schema before the action sees it.
    let out = call(&ctx, "Memory", json!({"action": "search", "query": 5}));
    out.failure(1);
    assert_eq!(out.json()["failure"], "invalidArguments", "{out}");
    assert!(!ctx.agent.exists(), "nothing was written");
}

// ---------------------------------------------------------------------------------------------
// Memory

#[test]
fn memory_remember_writes_what_the_cli_writes() {
    let tool = TestContext::new();
    let cmd = TestContext::new();
    std::fs::create_dir_all(&tool.agent).unwrap();
    std::fs::create_dir_all(&cmd.agent).unwrap();
    let existing = "# Memory\r\n\r\n* Likes tea\r\n\r\n## Work\r\n* Uses Rust\r\n";
    std::fs::write(tool.agent.join("MEMORY.md"), existing).unwrap();
    std::fs::write(cmd.agent.join("MEMORY.md"), existing).unwrap();

    let cases: [(Value, Vec<&str>); 4] = [
        (
            json!({"text": "Deployed finch to staging", "to": "daily"}),
            vec!["Deployed finch to staging", "--to", "daily"],
        ),
        (
            json!({"text": "Reviews on Fridays", "section": "Work"}),
            vec!["Reviews on Fridays", "--section", "Work"],
        ),
        (
            json!({"text": "Flight LH 123\n\nwindow seat", "to": "space:trips", "section": "### Flights"}),
            vec![
                "Flight LH 123\n\nwindow seat",
                "--to",
                "space:trips",
                "--section",
                "### Flights",
            ],
        ),
        (
            json!({"text": "Prefers metric units", "to": "profile"}),
            vec!["Prefers metric units", "--to", "profile"],
        ),
    ];
    for (params, flags) in cases {
        let mut args = params.clone();
        args["action"] = "remember".into();
        let got = ok(&tool, "Memory", args);
        let mut argv = vec!["memory", "remember"];
        argv.extend(flags);
        let want = cli(&cmd, &argv);
        assert_eq!(filtered(&tool, &got), filtered(&cmd, &want), "{params}");
        let file = got["file"].as_str().unwrap();
        assert_eq!(
            std::fs::read(tool.agent.join(file)).unwrap(),
            std::fs::read(cmd.agent.join(file)).unwrap(),
            "{file}"
        );
    }
    assert_eq!(
        read(&tool.agent.join("MEMORY.md")),
        "# Memory\r\n\r\n* Likes tea\r\n\r\n## Work\r\n* Uses Rust\r\n* Reviews on Fridays\r\n"
    );
    assert_eq!(
        read(&tool.agent.join("memory/2026-11-29.md")),
        "# 2026-11-29\n\n- 09:15 Deployed finch to staging\n"
    );

    let text = fails(
        &tool,
        "Memory",
        json!({"action": "remember", "text": "Likes tea"}),
    );
    assert!(
        text.starts_with("already remembered in MEMORY.md:3 (id "),
        "{text}"
    );
    let text = fails(
        &tool,
        "Memory",
        json!({"action": "remember", "text": "x", "to": "attic"}),
    );
    assert_eq!(
        text,
        "\"attic\" is not a memory file to write to\nhint: use --to long-term, daily, space:<name>, lessons or profile"
    );
    let text = fails(&tool, "Memory", json!({"action": "remember", "text": "  "}));
    assert_eq!(text, "the entry text is empty");
}

/// An agent home with three entries, two of which mention tea.
fn tea_memory(ctx: &TestContext) {
    std::fs::create_dir_all(&ctx.agent).unwrap();
    std::fs::write(
        ctx.agent.join("MEMORY.md"),
        "# Memory\n\n- Likes green tea\n- Drinks tea at 4pm\n- Lives in Berlin\n",
    )
    .unwrap();
}

#[test]
fn memory_search_list_and_show_answer_like_the_cli() {
    let tool = TestContext::new();
    tea_memory(&tool);
    for (params, flags) in [
        (json!({"query": "tea"}), vec!["tea"]),
        (
            json!({"query": "berlin", "scope": "long-term", "limit": 1}),
            vec!["berlin", "--scope", "long-term", "--limit", "1"],
        ),
        (
            json!({"query": "tea", "since": "2026-01-01", "until": "2026-12-31"}),
            vec!["tea", "--since", "2026-01-01", "--until", "2026-12-31"],
        ),
    ] {
        let mut args = params.clone();
        args["action"] = "search".into();
        let got = ok(&tool, "Memory", args);
        let mut argv = vec!["memory", "search"];
        argv.extend(flags);
        assert_eq!(got, cli(&tool, &argv), "{params}");
        assert!(!got.as_array().unwrap().is_empty(), "{params}");
    }
    let hits = ok(&tool, "Memory", json!({"action": "search", "query": "tea"}));
    assert_eq!(hits[0]["file"], "MEMORY.md");
    assert!(
        hits[0]["snippet"].as_str().unwrap().contains("tea"),
        "{hits}"
    );

    let listed = ok(
        &tool,
        "Memory",
        json!({"action": "list", "scope": "long-term"}),
    );
    assert_eq!(
        listed,
        cli(&tool, &["memory", "list", "--scope", "long-term"])
    );
    assert_eq!(listed.as_array().unwrap().len(), 3);

    let shown = ok(
        &tool,
        "Memory",
        json!({"action": "show", "what": "long-term"}),
    );
    assert_eq!(shown, cli(&tool, &["memory", "show", "long-term"]));
    assert_eq!(shown["content"], read(&tool.agent.join("MEMORY.md")));

    // No match is an answer, not an error.
    let out = call(
        &tool,
        "Memory",
        json!({"action": "search", "query": "xylophone"}),
    );
    out.success();
    let record = out.json();
    assert_eq!(record["structuredContent"], json!([]));
    assert!(
        text_of(&record).starts_with("No matches for \"xylophone\" in 1 memory file."),
        "{out}"
    );
    let out = call(
        &tool,
        "Memory",
        json!({"action": "list", "scope": "lessons"}),
    );
    out.success();
    assert_eq!(out.json()["structuredContent"], json!([]));

    let text = fails(
        &tool,
        "Memory",
        json!({"action": "search", "query": "tea", "since": "last week"}),
    );
    assert_eq!(
        text,
        "--since \"last week\" is not a date\nhint: write the day as YYYY-MM-DD, e.g. 2026-11-29"
    );
    let text = fails(
        &tool,
        "Memory",
        json!({"action": "search", "query": "tea", "since": "2026-12-01", "until": "2026-11-01"}),
    );
    assert_eq!(text, "--since 2026-12-01 is after --until 2026-11-01");
    let text = fails(
        &tool,
        "Memory",
        json!({"action": "list", "scope": "daily", "space": "trips"}),
    );
    assert!(
        text.starts_with("--space works with --scope spaces"),
        "{text}"
    );
    let text = fails(
        &tool,
        "Memory",
        json!({"action": "show", "what": "lessons"}),
    );
    assert!(
        text.starts_with("there is no memory file memory/lessons.md"),
        "{text}"
    );
}

#[test]
fn memory_replace_and_forget_change_exactly_one_entry() {
    let tool = TestContext::new();
    let cmd = TestContext::new();
    tea_memory(&tool);
    tea_memory(&cmd);

    let got = ok(
        &tool,
        "Memory",
        json!({"action": "replace", "old": "Berlin", "new": "Lives in Hamburg"}),
    );
    let want = cli(&cmd, &["memory", "replace", "Berlin", "Lives in Hamburg"]);
    assert_eq!(filtered(&tool, &got), filtered(&cmd, &want));
    assert_eq!(got["old"]["text"], "Lives in Berlin");
    assert_eq!(got["new"]["text"], "Lives in Hamburg");

    let id = got["new"]["id"].as_str().unwrap().to_string();
    let got = ok(
        &tool,
        "Memory",
        json!({"action": "replace", "id": &id[..4], "new": "Lives in Bremen", "in": "long-term"}),
    );
    let want = cli(
        &cmd,
        &[
            "memory",
            "replace",
            "--id",
            &id[..4],
            "Lives in Bremen",
            "--in",
            "long-term",
        ],
    );
    assert_eq!(filtered(&tool, &got), filtered(&cmd, &want));

    let got = ok(
        &tool,
        "Memory",
        json!({"action": "forget", "text": "green tea"}),
    );
    let want = cli(&cmd, &["memory", "forget", "green tea"]);
    assert_eq!(filtered(&tool, &got), filtered(&cmd, &want));
    assert_eq!(got["removed"][0]["text"], "Likes green tea");
    assert_eq!(
        read(&tool.agent.join("MEMORY.md")),
        read(&cmd.agent.join("MEMORY.md"))
    );
    assert_eq!(
        read(&tool.agent.join("MEMORY.md")),
        "# Memory\n\n- Drinks tea at 4pm\n- Lives in Bremen\n"
    );

    let bremen = ok(
        &tool,
        "Memory",
        json!({"action": "search", "query": "bremen"}),
    );
    let got = ok(
        &tool,
        "Memory",
        json!({"action": "forget", "id": bremen[0]["id"]}),
    );
    assert_eq!(got["removed"][0]["text"], "Lives in Bremen");
    assert_eq!(
        read(&tool.agent.join("MEMORY.md")),
        "# Memory\n\n- Drinks tea at 4pm\n"
    );
}

#[test]
fn memory_ambiguous_and_missing_matches_list_what_to_do() {
    let ctx = TestContext::new();
    tea_memory(&ctx);
    let before = read(&ctx.agent.join("MEMORY.md"));

    let text = fails(
        &ctx,
        "Memory",
        json!({"action": "replace", "old": "tea", "new": "Likes coffee"}),
    );
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("2 memory entries match \"tea\""),
        "{text}"
    );
    let candidates: Vec<&str> = lines.clone().take(2).collect();
    assert!(
        candidates[0].starts_with("hint: ")
            && candidates[0].ends_with("  MEMORY.md:3  Likes green tea"),
        "{text}"
    );
    assert!(
        candidates[1].ends_with("  MEMORY.md:4  Drinks tea at 4pm"),
        "{text}"
    );
    assert!(text.ends_with("hint: choose one with --id <id>"), "{text}");

    let text = fails(&ctx, "Memory", json!({"action": "forget", "text": "tea"}));
    assert!(
        text.ends_with("hint: choose one with --id <id>, or remove them all with --all-matching"),
        "{text}"
    );
    assert_eq!(
        read(&ctx.agent.join("MEMORY.md")),
        before,
        "an ambiguous match changes nothing"
    );

    let text = fails(
        &ctx,
        "Memory",
        json!({"action": "forget", "text": "coffee"}),
    );
    assert!(
        text.starts_with("no memory entry matches \"coffee\""),
        "{text}"
    );
    let text = fails(&ctx, "Memory", json!({"action": "forget", "id": "zz"}));
    assert_eq!(
        text,
        "\"zz\" is not an entry id (ids are 4 to 8 hex digits)"
    );
    let text = fails(
        &ctx,
        "Memory",
        json!({"action": "forget", "id": "0000aaaa"}),
    );
    assert!(text.starts_with("no memory entry matches"), "{text}");
    let text = fails(&ctx, "Memory", json!({"action": "forget"}));
    assert_eq!(
        text,
        "say which entry: give `text` (text the entry contains) or `id`\nhint: search or list shows the entries with their ids"
    );
    let text = fails(
        &ctx,
        "Memory",
        json!({"action": "replace", "old": "tea", "id": "abcd", "new": "x"}),
    );
    assert_eq!(text, "give either `old` or `id`, not both");
    let text = fails(
        &ctx,
        "Memory",
        json!({"action": "replace", "old": "tea", "new": "x", "in": "attic"}),
    );
    assert!(
        text.starts_with("there is no memory file memory/spaces/attic.md"),
        "{text}"
    );
    assert_eq!(
        read(&ctx.agent.join("MEMORY.md")),
        before,
        "no failed call changed anything"
    );

    let got = ok(
        &ctx,
        "Memory",
        json!({"action": "forget", "text": "tea", "allMatching": true}),
    );
    assert_eq!(got["removed"].as_array().unwrap().len(), 2, "{got}");
    assert_eq!(
        read(&ctx.agent.join("MEMORY.md")),
        "# Memory\n\n- Lives in Berlin\n"
    );
}

// ---------------------------------------------------------------------------------------------
// Skills

fn write_skill(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name).join("SKILL.md");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn skills_list_and_invoke() {
    let ctx = TestContext::new();
    let notes = write_skill(
        &ctx.agent.join("skills"),
        "release-notes",
        "---\nname: release-notes\ndescription: Write release notes\n---\n\n# Release notes\n\nWrite the notes for $ARGUMENTS from the changelog.\n",
    );
    write_skill(
        &ctx.runtime.join("skills"),
        "release-notes",
        "---\nname: release-notes\ndescription: The global one\n---\nShadowed\n",
    );
    write_skill(&ctx.work.join(".finch/skills"), "lint", "Run the linter.\n");

    let listed = ok(&ctx, "Skills", json!({"action": "list"}));
    assert_eq!(listed, cli(&ctx, &["skill", "list"]));
    let names: Vec<(&str, bool)> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["active"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            ("lint", true),
            ("release-notes", true),
            ("release-notes", false)
        ]
    );

    let out = call(
        &ctx,
        "Skills",
        json!({"action": "invoke", "name": "release-notes", "args": "v1.4.0"}),
    );
    out.success();
    let record = out.json();
    assert_eq!(
        text_of(&record),
        format!(
            "Skill \"release-notes\" (personal, {}). Follow these instructions; paths in them are relative to {}.\n\n# Release notes\n\nWrite the notes for v1.4.0 from the changelog.",
            notes.display(),
            notes.parent().unwrap().display()
        )
    );
    let mut want = cli(&ctx, &["skill", "show", "release-notes"]);
    want["arguments"] = "v1.4.0".into();
    assert_eq!(record["structuredContent"], want);

    let out = call(
        &ctx,
        "Skills",
        json!({"action": "invoke", "name": "lint", "args": "src/"}),
    );
    out.success();
    assert!(
        text_of(&out.json()).ends_with("\n\nRun the linter.\n\nARGUMENTS: src/"),
        "{out}"
    );

    let text = fails(
        &ctx,
        "Skills",
        json!({"action": "invoke", "name": "deploy"}),
    );
    assert_eq!(
        text,
        "no skill named \"deploy\"\nhint: skills: lint, release-notes\nhint: call Skills with {\"action\": \"list\"} for their descriptions"
    );
}

#[test]
fn skills_without_any_skill() {
    let ctx = TestContext::new();
    let out = call(&ctx, "Skills", json!({"action": "list"}));
    out.success();
    let record = out.json();
    assert_eq!(record["structuredContent"], json!([]));
    assert!(text_of(&record).starts_with("No skills found."), "{out}");
    let text = fails(&ctx, "Skills", json!({"action": "invoke", "name": "x"}));
    assert!(
        text.starts_with("no skill named \"x\"\nhint: there are no skills here"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------------
// Session

#[test]
fn extend_dir_lets_the_file_tools_in_at_once_and_in_a_continued_session() {
    let ctx = TestContext::new();
    let outside = ctx.base().join("outside");
    std::fs::create_dir_all(outside.join("sub")).unwrap();
    std::fs::write(outside.join("sub/notes.txt"), "hello from outside\n").unwrap();
    let file = outside.join("sub/notes.txt").display().to_string();
    let read_call = |id: &str| json!({"id": id, "tool": "Read", "arguments": {"file_path": file}});

    let (answers, out) = ctx.jsonl(
        &["--mode", "acceptCalls", "--approve", "Session"],
        &[
            read_call("before"),
            json!({"id": "trust", "tool": "Session", "arguments": {"action": "extendDir", "dir": "../outside/sub/.."}}),
            read_call("after"),
        ],
    );
    out.failure(4); // the first Read was refused
    assert_eq!(answers[0]["id"], "before");
    assert_eq!(answers[0]["failure"], "refused", "{out}");
    assert_eq!(answers[1]["isError"], false, "{out}");
    // Trusting a directory outside is a person's decision (issue 13): `--approve` answers it.
    assert_eq!(answers[1]["decidedBy"], "approveFlag");
    assert_eq!(answers[2]["isError"], false, "{out}");
    assert_eq!(answers[2]["decidedBy"], "fastLane", "{out}");
    assert!(text_of(&answers[2]).contains("hello from outside"), "{out}");

    let transcripts = ctx.transcripts();
    assert_eq!(transcripts.len(), 1);
    let entries = lines(&transcripts[0]);
    let session_id = entries[0]["id"].as_str().unwrap().to_string();
    let trusted: Vec<&Value> = entries
        .iter()
        .filter(|e| e["customType"] == "finch.trustedDir")
        .collect();
    assert_eq!(trusted.len(), 1);
    assert_eq!(
        trusted[0]["data"],
        json!({"path": outside.display().to_string()})
    );
    let report = &answers[1]["structuredContent"];
    assert_eq!(report["session"], session_id.as_str());
    assert_eq!(report["path"], transcripts[0].display().to_string());
    assert_eq!(&report["entry"], trusted[0]);
    // The entry is linked into the transcript: the next record follows it.
    let at = entries
        .iter()
        .position(|e| e["customType"] == "finch.trustedDir")
        .unwrap();
    assert_eq!(entries[at + 1]["parentId"], entries[at]["id"]);
    assert_eq!(entries[at]["parentId"], entries[at - 1]["id"]);

    // A continued session reads the trusted directory back.
    let (answers, out) = ctx.jsonl(
        &[
            "--mode",
            "acceptCalls",
            "--approve",
            "Session",
            "--session",
            &session_id,
        ],
        &[read_call("again")],
    );
    out.success();
    assert_eq!(answers[0]["decidedBy"], "fastLane", "{out}");
    // A new session does not have it.
    let (answers, out) = ctx.jsonl(&["--mode", "acceptCalls"], &[read_call("new")]);
    out.failure(4);
    assert_eq!(answers[0]["failure"], "refused", "{out}");
}

#[test]
fn extend_dir_of_another_session_writes_what_the_cli_writes() {
    let tool = TestContext::new();
    let cmd = TestContext::new();
    let mut ids = Vec::new();
    for ctx in [&tool, &cmd] {
        std::fs::create_dir_all(ctx.base().join("shared")).unwrap();
        let (answers, out) = ctx.jsonl(&[], &[json!({"id": 1, "tool": "Memory", "arguments": {}})]);
        out.success();
        assert_eq!(answers.len(), 1);
        ids.push(
            lines(&ctx.transcripts()[0])[0]["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    // Trusting a directory outside takes a card (issue 13); `--approve Session` answers it.
    let args = json!({"action": "extendDir", "dir": "../shared", "sessionId": &ids[0][..8]});
    let out = Run(tool
        .cmd()
        .env("FINCH_NOW", NOW)
        .args(["tool", "call", "Session", &args.to_string()])
        .args(["--approve", "Session", "--json"])
        .output()
        .expect("finch runs"));
    out.success();
    assert_eq!(out.json()["decidedBy"], "approveFlag", "{out}");
    let got = out.json()["structuredContent"].clone();
    let want = cli(&cmd, &["session", "extend-dir", &ids[1], "../shared"]);
    // The transcripts' paths differ only by the temp dirs in their workspace slugs.
    let strip = |v: &Value, ctx: &TestContext| {
        let mut v = filtered(ctx, v);
        v["session"] = Value::Null;
        v["path"] = Value::Null;
        for k in ["id", "parentId", "timestamp"] {
            v["entry"][k] = Value::Null;
        }
        v
    };
    assert_eq!(strip(&got, &tool), strip(&want, &cmd));
    assert_eq!(got["session"], ids[0].as_str());
    let first = tool
        .transcripts()
        .into_iter()
        .find(|p| {
            p.display()
                .to_string()
                .ends_with(&format!("_{}.jsonl", ids[0]))
        })
        .unwrap();
    assert_eq!(got["path"], first.display().to_string());
    let last = lines(&first).pop().unwrap();
    assert_eq!(last, got["entry"]);
    assert_eq!(
        last["data"]["path"],
        tool.base().join("shared").display().to_string()
    );
    assert_eq!(last["timestamp"], "2026-11-29T08:15:00.000Z");
}

#[test]
fn rename_and_attach_the_current_session_or_another() {
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("report.md"), "# Report\n").unwrap();
    let (answers, out) = ctx.jsonl(
        &[],
        &[
            json!({"id": 1, "tool": "Session", "arguments": {"action": "rename", "title": "  Quarterly report "}}),
            json!({"id": 2, "tool": "Session", "arguments": {"action": "attach", "file": "report.md"}}),
        ],
    );
    out.success();
    assert_eq!(answers[0]["isError"], false, "{out}");
    assert_eq!(answers[1]["isError"], false, "{out}");
    let transcript = ctx.transcripts()[0].clone();
    let entries = lines(&transcript);
    let id = entries[0]["id"].as_str().unwrap().to_string();
    let info: Vec<&Value> = entries
        .iter()
        .filter(|e| e["type"] == "session_info")
        .collect();
    assert_eq!(info.len(), 1);
    assert_eq!(info[0]["name"], "Quarterly report");
    assert_eq!(answers[0]["structuredContent"]["entry"], *info[0]);
    let attached = entries
        .iter()
        .find(|e| e["customType"] == "finch.attachment")
        .unwrap();
    assert_eq!(
        attached["data"],
        json!({"path": ctx.work.join("report.md").display().to_string(), "mimeType": "text/markdown", "size": 9})
    );
    let listed = cli(&ctx, &["session", "list"]);
    assert_eq!(listed[0]["title"], "Quarterly report");

    // Another session, by id, from a separate call.
    let got = ok(
        &ctx,
        "Session",
        json!({"action": "rename", "title": "Renamed later", "sessionId": id}),
    );
    assert_eq!(got["session"], id.as_str());
    assert_eq!(got["path"], transcript.display().to_string());
    let last = lines(&transcript).pop().unwrap();
    assert_eq!(last, got["entry"]);
    assert_eq!(last["name"], "Renamed later");
    let keys: Vec<&String> = last.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["type", "id", "parentId", "timestamp", "name"]);
    let got = ok(
        &ctx,
        "Session",
        json!({"action": "attach", "file": "report.md", "sessionId": id}),
    );
    assert_eq!(got["entry"]["data"], attached["data"]);
}

#[test]
fn session_search_answers_like_the_cli() {
    let ctx = TestContext::new();
    let dir = ctx.runtime.join("pi/sessions/--w-alpha--");
    std::fs::create_dir_all(&dir).unwrap();
    let id = "0195aaaa-1111-7000-8000-00000000000a";
    std::fs::write(
        dir.join(format!("2026-11-20T09-00-00-000Z_{id}.jsonl")),
        [
            json!({"type": "session", "version": 3, "id": id, "timestamp": "2026-11-20T09:00:00.000Z", "cwd": "/w/alpha"}),
            json!({"type": "message", "id": "e0000001", "parentId": null, "timestamp": "2026-11-20T09:00:01.000Z",
                   "message": {"role": "user", "content": [{"type": "text", "text": "Plan the zebra crossing survey"}]}}),
            json!({"type": "message", "id": "e0000002", "parentId": "e0000001", "timestamp": "2026-11-20T09:00:02.000Z",
                   "message": {"role": "assistant", "content": [{"type": "text", "text": "Zebra counts first."}]}}),
        ]
        .iter()
        .map(|v| format!("{v}\n"))
        .collect::<String>(),
    )
    .unwrap();
    // Scores depend on every transcript, and each tool call adds its own: compare the rest.
    let unscored = |hits: Value| {
        let mut hits = hits;
        for h in hits.as_array_mut().unwrap() {
            h["score"] = Value::Null;
        }
        hits
    };
    let want = cli(&ctx, &["session", "search", "zebra crossing"]);
    let got = ok(
        &ctx,
        "Session",
        json!({"action": "search", "query": "zebra crossing"}),
    );
    assert_eq!(unscored(got.clone()), unscored(want));
    assert_eq!(got[0]["session"], id);
    assert_eq!(got[0]["entry"], "e0000001");
    let want = cli(
        &ctx,
        &[
            "session", "search", "zebra", "--limit", "1", "--since", "30d",
        ],
    );
    let got = ok(
        &ctx,
        "Session",
        json!({"action": "search", "query": "zebra", "limit": 1, "since": "30d"}),
    );
    assert_eq!(unscored(got.clone()), unscored(want));
    assert_eq!(got.as_array().unwrap().len(), 1);

    let out = call(
        &ctx,
        "Session",
        json!({"action": "search", "query": "zebra", "since": "2026-11-25"}),
    );
    out.success();
    let record = out.json();
    // Since then only this test's own search calls hold the word (their arguments count).
    let hits = record["structuredContent"].as_array().unwrap();
    assert!(
        hits.iter()
            .all(|h| h["role"] == "tool" && h["session"] != id),
        "{out}"
    );
    let out = call(
        &ctx,
        "Session",
        json!({"action": "search", "query": "survey", "since": "2026-11-25"}),
    );
    let record = out.success().json();
    assert_eq!(record["structuredContent"], json!([]));
    assert!(text_of(&record).starts_with("No matches in "), "{out}");

    let text = fails(
        &ctx,
        "Session",
        json!({"action": "search", "query": "zebra", "since": "someday"}),
    );
    assert_eq!(
        text,
        "--since \"someday\" is not a date, time or age\nhint: use a date (2026-03-01), a time (2026-03-01T09:30) or an age (12h, 7d, 2w)"
    );
    let text = fails(&ctx, "Session", json!({"action": "search", "query": "  "}));
    assert_eq!(text, "the query has no words to search for");
}

#[test]
fn session_errors_name_the_problem() {
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("file.txt"), "x").unwrap();
    let missing = ctx.work.join("missing");
    let cases = [
        (
            json!({"action": "extendDir", "dir": "missing"}),
            format!("no such directory: {}", missing.display()),
        ),
        (
            json!({"action": "extendDir", "dir": "file.txt"}),
            format!("{} is not a directory", ctx.work.join("file.txt").display()),
        ),
        (
            json!({"action": "attach", "file": "missing"}),
            format!("no such file: {}", missing.display()),
        ),
        (
            json!({"action": "attach", "file": "."}),
            format!("{} is not a regular file", ctx.work.display()),
        ),
        (
            json!({"action": "rename", "title": "   "}),
            "the title is empty".to_string(),
        ),
        (
            json!({"action": "rename", "title": "T", "sessionId": "ffff"}),
            "no session matches \"ffff\"\nhint: run `finch session list` to see session ids"
                .to_string(),
        ),
    ];
    let cases_len = cases.len();
    for (args, want) in cases {
        assert_eq!(fails(&ctx, "Session", args.clone()), want, "{args}");
    }
    // Each failed call still recorded itself in the day's session, and only that (and the
    // title that names the day).
    let transcripts = ctx.transcripts();
    assert_eq!(transcripts.len(), 1, "{transcripts:?}");
    let entries = lines(&transcripts[0]);
    let kinds: Vec<String> = entries[2..]
        .iter()
        .map(|e| {
            e["customType"]
                .as_str()
                .or(e["type"].as_str())
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    let mut want = vec!["finch.toolCall"; cases_len];
    want.insert(1, "session_info");
    assert_eq!(kinds, want, "{entries:?}");
}

// ---------------------------------------------------------------------------------------------
// Schedule

fn tasks_json(ctx: &TestContext) -> Value {
    ctx.read_json(&ctx.runtime.join("automation/tasks.json"))
}

/// The task file with ids, creation times and the temp dir made comparable.
fn comparable(ctx: &TestContext, tasks: &Value) -> Value {
    let mut tasks = filtered(ctx, tasks);
    if let Some(items) = tasks["tasks"].as_array_mut() {
        for t in items {
            t["id"] = "[ID]".into();
        }
    }
    tasks
}

#[test]
fn schedule_create_update_enable_disable_delete_write_what_the_cli_writes() {
    let tool = TestContext::new();
    let cmd = TestContext::new();
    for ctx in [&tool, &cmd] {
        std::fs::create_dir_all(ctx.work.join("project")).unwrap();
    }
    let created = ok(
        &tool,
        "Schedule",
        json!({
            "action": "create", "name": "Morning brief", "prompt": "Summarise my mail",
            "weekdays": "08:30", "tz": "Europe/Berlin", "cwd": "project", "model": "m1",
            "effort": "low", "mode": "ask", "timeout": "45m",
        }),
    );
    let want = cli(
        &cmd,
        &[
            "schedule",
            "create",
            "--name",
            "Morning brief",
            "--prompt",
            "Summarise my mail",
            "--weekdays",
            "08:30",
            "--tz",
            "Europe/Berlin",
            "--cwd",
            "project",
            "--model",
            "m1",
            "--effort",
            "low",
            "--mode",
            "ask",
            "--timeout",
            "45m",
        ],
    );
    let id = created["id"].as_str().unwrap().to_string();
    let cmd_id = want["id"].as_str().unwrap().to_string();
    let same = |a: &Value, b: &Value| {
        let mut a = filtered(&tool, a);
        let mut b = filtered(&cmd, b);
        a["id"] = Value::Null;
        b["id"] = Value::Null;
        assert_eq!(a, b);
    };
    same(&created, &want);
    assert_eq!(
        created["nextRuns"],
        json!([
            "2026-11-30T07:30:00.000Z",
            "2026-12-01T07:30:00.000Z",
            "2026-12-02T07:30:00.000Z"
        ])
    );
    assert_eq!(
        comparable(&tool, &tasks_json(&tool)),
        comparable(&cmd, &tasks_json(&cmd))
    );

    let updated = ok(
        &tool,
        "Schedule",
        json!({"action": "update", "id": id, "daily": "07:00", "model": "", "name": "Brief"}),
    );
    let want = cli(
        &cmd,
        &[
            "schedule", "update", &cmd_id, "--daily", "07:00", "--model", "", "--name", "Brief",
        ],
    );
    same(&updated, &want);
    assert_eq!(updated["model"], Value::Null);

    let disabled = ok(&tool, "Schedule", json!({"action": "disable", "id": id}));
    same(&disabled, &cli(&cmd, &["schedule", "disable", &cmd_id]));
    assert_eq!(disabled["enabled"], false);
    let listed = ok(&tool, "Schedule", json!({"action": "list"}));
    assert_eq!(listed, cli(&tool, &["schedule", "list"]));
    assert_eq!(listed[0]["nextRun"], Value::Null);
    let enabled = ok(&tool, "Schedule", json!({"action": "enable", "id": id}));
    same(&enabled, &cli(&cmd, &["schedule", "enable", &cmd_id]));
    assert_eq!(
        comparable(&tool, &tasks_json(&tool)),
        comparable(&cmd, &tasks_json(&cmd))
    );

    // A model's call is the confirmation: no prompt, no --yes.
    let deleted = ok(&tool, "Schedule", json!({"action": "delete", "id": id}));
    let want = cli(&cmd, &["--yes", "schedule", "delete", &cmd_id]);
    same(&deleted["deleted"], &want["deleted"]);
    assert_eq!(tasks_json(&tool)["tasks"], json!([]));
    assert_eq!(
        comparable(&tool, &tasks_json(&tool)),
        comparable(&cmd, &tasks_json(&cmd))
    );
    let out = call(&tool, "Schedule", json!({"action": "list"}));
    out.success();
    assert_eq!(out.json()["structuredContent"], json!([]));
    assert!(
        text_of(&out.json()).starts_with("No scheduled tasks yet"),
        "{out}"
    );
}

/// Issue 22: the Schedule tool sets and clears a task's opt-in catch-up, as the CLI does.
#[test]
fn schedule_create_and_update_take_catch_up() {
    let ctx = TestContext::new();
    let out = call(
        &ctx,
        "Schedule",
        json!({"action": "create", "name": "brief", "prompt": "p", "daily": "07:00", "tz": "UTC", "catchUp": true, "cwd": ".", "mode": "ask"}),
    );
    out.success();
    let task = &out.json()["structuredContent"];
    assert_eq!(task["catchUp"], true, "{task}");
    let id = task["id"].as_str().unwrap().to_string();
    let listed = ctx.run(&["schedule", "list", "--json"]).json();
    assert_eq!(listed[0]["catchUp"], true, "{listed}");
    let out = call(
        &ctx,
        "Schedule",
        json!({"action": "update", "id": id, "catchUp": false}),
    );
    out.success();
    assert!(
        out.json()["structuredContent"].get("catchUp").is_none(),
        "{out}"
    );
}

#[test]
fn schedule_create_warns_without_an_agent_and_takes_every_kind_of_schedule() {
    let ctx = TestContext::new();
    let out = call(
        &ctx,
        "Schedule",
        json!({"action": "create", "name": "n", "prompt": "p", "hourly": ":15", "tz": "UTC", "cwd": ".", "mode": "ask"}),
    );
    out.success();
    let record = out.json();
    assert_eq!(record["structuredContent"]["schedule"], "hourly at :15");
    assert!(
        text_of(&record).contains("warning: no agent command is configured yet; runs fail until `[agent] command` is set in"),
        "{out}"
    );
    for (when, first) in [
        (json!({"hourly": ""}), "2026-11-29T09:00:00.000Z"),
        (json!({"daily": "10:00"}), "2026-11-29T10:00:00.000Z"),
        (json!({"weekly": "mon 06:00"}), "2026-11-30T06:00:00.000Z"),
        (json!({"cron": "0 12 1 * *"}), "2026-12-01T12:00:00.000Z"),
        (
            json!({"once": "2027-01-01T00:00"}),
            "2027-01-01T00:00:00.000Z",
        ),
    ] {
        let mut args = json!({"action": "create", "name": "n", "prompt": "p", "tz": "UTC", "cwd": ".", "mode": "ask"});
        for (k, v) in when.as_object().unwrap() {
            args[k] = v.clone();
        }
        let task = ok(&ctx, "Schedule", args);
        assert_eq!(task["nextRuns"][0], first, "{when}");
    }
}

#[test]
fn schedule_errors_say_what_to_give() {
    let ctx = TestContext::new();
    // In the session's own directory and mode, so that no card stands before the errors
    // (issue 28: a task that would run elsewhere or in acceptCalls takes one).
    let base = json!({"action": "create", "name": "n", "prompt": "p", "tz": "UTC", "cwd": ".", "mode": "ask"});
    let with = |extra: Value| {
        let mut args = base.clone();
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        args
    };
    let cases = [
        (
            base.clone(),
            "a task needs a schedule\nhint: give one of hourly",
        ),
        (
            with(json!({"daily": "09:00", "cron": "* * * * *"})),
            "give one schedule, not daily and cron\nhint: give one of",
        ),
        (with(json!({"daily": "25:00"})), "invalid --daily \"25:00\""),
        (with(json!({"weekly": "someday 09:00"})), "invalid --weekly"),
        (with(json!({"once": "2020-01-01T00:00"})), "invalid --once"),
        (
            with(json!({"daily": "09:00", "tz": "Mars/Olympus"})),
            "invalid --tz \"Mars/Olympus\"",
        ),
        (
            with(json!({"daily": "09:00", "timeout": "soon"})),
            "invalid --timeout \"soon\"",
        ),
        (
            with(json!({"daily": "09:00", "effort": "extreme"})),
            "invalid --effort \"extreme\"",
        ),
        (
            json!({"action": "create", "name": "n", "prompt": "p", "tz": "UTC", "mode": "ask", "daily": "09:00", "space": "nowhere"}),
            "no space with the id or name \"nowhere\"\nhint: run `finch space list`",
        ),
        (
            with(json!({"daily": "09:00", "cwd": "missing"})),
            "no such directory: ",
        ),
        (
            with(json!({"daily": "09:00", "cwd": ".", "space": "x"})),
            "give `space` or `cwd`, not both",
        ),
        (
            with(json!({"daily": "09:00", "name": " "})),
            "invalid --name",
        ),
    ];
    for (args, want) in cases {
        let text = fails(&ctx, "Schedule", args.clone());
        assert!(text.starts_with(want), "{args}: {text}");
    }
    assert!(
        !ctx.runtime.join("automation/tasks.json").exists(),
        "nothing was written"
    );

    for action in ["update", "enable", "disable", "delete", "run", "history"] {
        let text = fails(&ctx, "Schedule", json!({"action": action, "id": "t-nope"}));
        assert_eq!(
            text,
            "no task with the id or name \"t-nope\"\nhint: run `finch schedule list` to see the task ids",
            "{action}"
        );
    }
}

/// Configures an agent script that prints its prompt and exits with `code`.
fn install_agent(ctx: &TestContext, code: i32) {
    let script = ctx.base().join("agent.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho \"agent got: $2\"\nexit {code}\n"),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    ctx.write_config(&format!(
        "[agent]\ncommand = [{:?}, \"-p\", \"{{prompt}}\"]\n",
        script.display().to_string()
    ));
}

#[test]
fn schedule_run_and_history() {
    let ctx = TestContext::new();
    let task = ok(
        &ctx,
        "Schedule",
        json!({"action": "create", "name": "Echo", "prompt": "say hi", "daily": "09:00", "tz": "UTC", "cwd": ".", "mode": "ask"}),
    );
    let id = task["id"].as_str().unwrap().to_string();

    let text = fails(&ctx, "Schedule", json!({"action": "run", "id": id}));
    assert!(
        text.starts_with("no agent command is configured: set `[agent] command` in "),
        "{text}"
    );
    assert!(
        text.contains("\nhint: add e.g.\n[agent]\ncommand = [\"pi\", \"-p\", \"{prompt}\"]"),
        "{text}"
    );

    install_agent(&ctx, 0);
    let out = call(&ctx, "Schedule", json!({"action": "run", "id": id}));
    out.success();
    let record = out.json();
    let run = &record["structuredContent"];
    assert_eq!(run["status"], "succeeded", "{out}");
    assert_eq!(run["taskId"], id.as_str());
    assert_eq!(run["trigger"], "manual");
    assert_eq!(run["exitCode"], 0);
    assert_eq!(run["outputTail"], "agent got: say hi\n");
    assert!(
        text_of(&record).starts_with(&format!(
            "run {} of task {id} \"Echo\" succeeded (exit code 0, ",
            run["runId"].as_str().unwrap()
        )),
        "{out}"
    );

    install_agent(&ctx, 3);
    let out = call(&ctx, "Schedule", json!({"action": "run", "id": id}));
    out.failure(1);
    let record = out.json();
    assert_eq!(record["isError"], true);
    assert_eq!(record["structuredContent"]["status"], "failed");
    assert!(text_of(&record).contains(" failed (exit code 3, "), "{out}");
    assert!(
        text_of(&record).contains("\nhint: the record below holds the end of its output"),
        "{out}"
    );

    let history = ok(&ctx, "Schedule", json!({"action": "history", "id": id}));
    assert_eq!(history, cli(&ctx, &["schedule", "history", &id]));
    let statuses: Vec<&str> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["failed", "succeeded"]);
    let history = ok(&ctx, "Schedule", json!({"action": "history", "limit": 1}));
    assert_eq!(history, cli(&ctx, &["schedule", "history", "--limit", "1"]));
    assert_eq!(history.as_array().unwrap().len(), 1);
    let listed = ok(&ctx, "Schedule", json!({"action": "list"}));
    assert_eq!(listed[0]["lastRun"]["status"], "failed");

    let other = ok(
        &ctx,
        "Schedule",
        json!({"action": "create", "name": "Quiet", "prompt": "p", "daily": "09:00", "tz": "UTC", "cwd": ".", "mode": "ask"}),
    );
    let out = call(
        &ctx,
        "Schedule",
        json!({"action": "history", "id": other["id"]}),
    );
    out.success();
    assert_eq!(out.json()["structuredContent"], json!([]));
    assert_eq!(text_of(&out.json()), "No runs recorded yet.");
}

// ---------------------------------------------------------------------------------------------
// ToolSearch

#[test]
fn tool_search_ranks_the_catalog() {
    let ctx = TestContext::new();
    let found = ok(
        &ctx,
        "ToolSearch",
        json!({"action": "search", "query": "remember memory entries"}),
    );
    assert_eq!(found[0]["name"], "Memory", "{found}");
    assert_eq!(found[0]["source"], "suite");
    assert_eq!(found[0]["activated"], true);
    let keys: Vec<&String> = found[0].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["name", "title", "description", "source", "activated"]
    );

    let found = ok(
        &ctx,
        "ToolSearch",
        json!({"action": "search", "query": "read a file", "source": "builtin", "limit": 2}),
    );
    assert_eq!(found[0]["name"], "Read", "{found}");
    assert!(found.as_array().unwrap().len() <= 2);
    assert!(
        found
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["source"] == "builtin"),
        "{found}"
    );

    let found = ok(
        &ctx,
        "ToolSearch",
        json!({"action": "search", "query": "", "source": "suite", "limit": 0}),
    );
    let names: Vec<&str> = found
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "AppCall",
            "Memory",
            "MiniTool",
            "Schedule",
            "Session",
            "Skills",
            "ToolSearch"
        ]
    );

    let out = call(
        &ctx,
        "ToolSearch",
        json!({"action": "search", "query": "xylophone tuning"}),
    );
    out.success();
    let record = out.json();
    assert_eq!(record["isError"], false);
    assert_eq!(record["structuredContent"], json!([]));
    assert!(
        text_of(&record).starts_with("No tools match \"xylophone tuning\".\nhint: try fewer"),
        "{out}"
    );
    let out = call(
        &ctx,
        "ToolSearch",
        json!({"action": "search", "query": "", "source": "mcp"}),
    );
    out.success();
    assert!(
        text_of(&out.json()).starts_with("There are no tools among mcp tools."),
        "{out}"
    );

    // `action` may be left out when there are parameters: ToolSearch has one action.
    let found = ok(
        &ctx,
        "ToolSearch",
        json!({"query": "schedule tasks", "limit": 1}),
    );
    assert_eq!(found[0]["name"], "Schedule", "{found}");
    assert_eq!(found.as_array().unwrap().len(), 1);

    let text = fails(
        &ctx,
        "ToolSearch",
        json!({"action": "search", "query": "x", "source": "plugins"}),
    );
    assert_eq!(
        text,
        "unknown source \"plugins\": use builtin, suite, minitool, minitool:<id>, mcp or mcp:<server>\nhint: leave `source` out to search every tool"
    );
}
