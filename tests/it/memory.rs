//! Tests of `finch memory` (SPEC §5): remembering into each file, duplicates, sections,
//! surgical edits of a hand-written CRLF file, replace/forget with their matching rules, ranked
//! search (phrase, recency, accents, CJK, filters), list/show/prune, files that are not UTF-8,
//! a missing agent home, a held lock, and 8 processes remembering into one file at once.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::{Value, json};

use crate::common::{Run, TestContext};

/// The clock of most tests: 2026-11-29 09:15 local.
const NOW: &str = "2026-11-29T09:15:00+01:00";

/// Runs `finch memory args…` at `NOW`.
fn mem(ctx: &TestContext, args: &[&str]) -> Run {
    mem_at(ctx, NOW, args)
}

fn mem_at(ctx: &TestContext, now: &str, args: &[&str]) -> Run {
    let mut all = vec!["memory"];
    all.extend_from_slice(args);
    Run(ctx
        .cmd()
        .env("FINCH_NOW", now)
        .args(&all)
        .output()
        .expect("finch runs"))
}

/// `--json memory args…` at `NOW`.
fn mem_json(ctx: &TestContext, args: &[&str]) -> Run {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    mem(ctx, &all)
}

fn path(ctx: &TestContext, rel: &str) -> PathBuf {
    ctx.agent.join(rel)
}

fn write(ctx: &TestContext, rel: &str, bytes: impl AsRef<[u8]>) {
    let p = path(ctx, rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

fn read(ctx: &TestContext, rel: &str) -> String {
    let p = path(ctx, rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
}

/// The first column (ids) of tab-separated output.
fn ids(out: &Run) -> Vec<String> {
    out.stdout()
        .lines()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect()
}

/// The second column (`file:line`) of tab-separated output.
fn places(out: &Run) -> Vec<String> {
    out.stdout()
        .lines()
        .map(|l| l.split('\t').nth(1).unwrap_or("").to_string())
        .collect()
}

/// The id of the one entry of `list` whose text is `text`.
fn id_of(ctx: &TestContext, text: &str) -> String {
    let out = mem(ctx, &["list"]);
    out.success();
    out.stdout()
        .lines()
        .find(|l| l.ends_with(&format!("\t{text}")))
        .unwrap_or_else(|| panic!("no entry {text:?}:\n{out}"))
        .split('\t')
        .next()
        .unwrap()
        .to_string()
}

// ---------------------------------------------------------------------------------------------
// remember

#[test]
fn remember_writes_each_file_and_list_shows_ids_and_places() {
    let ctx = TestContext::new();
    mem(&ctx, &["remember", "Prefers green tea"]).success();
    let out = mem(
        &ctx,
        &["remember", "--to", "daily", "Deployed finch\nto staging"],
    );
    out.success();
    assert_eq!(
        out.stdout(),
        format!(
            "✓ Remembered in memory/2026-11-29.md:3 ({})\n",
            id_of(&ctx, "09:15 Deployed finch to staging")
        )
    );
    mem(&ctx, &["remember", "--to", "space:work", "Standup at 10"]).success();
    mem(
        &ctx,
        &[
            "remember",
            "--to",
            "lessons",
            "Run the tests before pushing",
        ],
    )
    .success();
    // A list marker the text already has is not doubled.
    mem(&ctx, &["remember", "--to", "profile", "- Name: Ada"]).success();

    assert_eq!(read(&ctx, "MEMORY.md"), "- Prefers green tea\n");
    assert_eq!(
        read(&ctx, "memory/2026-11-29.md"),
        "# 2026-11-29\n\n- 09:15 Deployed finch\n  to staging\n"
    );
    assert_eq!(read(&ctx, "memory/spaces/work.md"), "- Standup at 10\n");
    assert_eq!(
        read(&ctx, "memory/lessons.md"),
        "- Run the tests before pushing\n"
    );
    assert_eq!(read(&ctx, "USER.md"), "- Name: Ada\n");

    let out = mem(&ctx, &["list"]);
    out.success();
    let lines: Vec<String> = out
        .stdout()
        .lines()
        .map(|l| l.split_once('\t').unwrap().1.to_string())
        .collect();
    assert_eq!(
        lines,
        [
            "MEMORY.md:1\tPrefers green tea",
            "USER.md:1\tName: Ada",
            "memory/lessons.md:1\tRun the tests before pushing",
            "memory/spaces/work.md:1\tStandup at 10",
            "memory/2026-11-29.md:3\t09:15 Deployed finch to staging",
        ]
    );
    assert!(
        ids(&out)
            .iter()
            .all(|id| id.len() == 8 && id.bytes().all(|b| b.is_ascii_hexdigit()))
    );

    let out = mem(&ctx, &["list", "--scope", "daily"]);
    assert_eq!(places(&out), ["memory/2026-11-29.md:3"]);
    let out = mem(&ctx, &["list", "--space", "work"]);
    assert_eq!(places(&out), ["memory/spaces/work.md:1"]);
}

#[test]
fn ids_are_sha256_of_the_normalized_text() {
    let ctx = TestContext::new();
    // sha256("buy milk") starts with 1c5a...; the daily time and the spacing are not part of it.
    write(&ctx, "MEMORY.md", "-   buy\n    milk\n");
    write(&ctx, "memory/2026-11-28.md", "* 07:00 buy milk\n");
    let out = mem(&ctx, &["list"]);
    out.success();
    let expected = {
        use sha2::{Digest, Sha256};
        let d = Sha256::digest(b"buy milk");
        d.iter()
            .take(4)
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    assert_eq!(ids(&out), [expected.clone(), expected]);
}

#[test]
fn daily_entries_use_the_local_date_and_time_of_the_clock() {
    let ctx = TestContext::new();
    mem_at(
        &ctx,
        "2026-11-29T23:59:00-08:00",
        &["remember", "--to", "daily", "late"],
    )
    .success();
    mem_at(
        &ctx,
        "2026-11-30T00:01:00-08:00",
        &["remember", "--to", "daily", "early"],
    )
    .success();
    assert_eq!(
        read(&ctx, "memory/2026-11-29.md"),
        "# 2026-11-29\n\n- 23:59 late\n"
    );
    assert_eq!(
        read(&ctx, "memory/2026-11-30.md"),
        "# 2026-11-30\n\n- 00:01 early\n"
    );
    let out = mem_at(&ctx, "yesterday", &["list"]);
    out.failure(1);
    out.stderr_has("FINCH_NOW=\"yesterday\" is not an RFC 3339 time");
}

#[test]
fn remember_puts_entries_under_a_section_and_creates_missing_ones() {
    let ctx = TestContext::new();
    write(
        &ctx,
        "MEMORY.md",
        "# Memory\n\n## Tools\n- ripgrep\n\nNotes on tools.\n\n## People\n- Ann\n",
    );
    mem(&ctx, &["remember", "--section", "tools", "fd"]).success();
    mem(&ctx, &["remember", "--section", "### Places", "Lisbon"]).success();
    let out = mem_json(&ctx, &["remember", "--section", "Places", "Porto"]);
    out.success();
    assert_eq!(
        read(&ctx, "MEMORY.md"),
        "# Memory\n\n## Tools\n- ripgrep\n- fd\n\nNotes on tools.\n\n## People\n- Ann\n\n### Places\n- Lisbon\n- Porto\n"
    );
    let v = out.json();
    assert_eq!(v["section"], "Places");
    assert_eq!(v["line"], 14);
    assert_eq!(v["createdFile"], false);
    assert_eq!(v["createdSection"], false);
    mem(&ctx, &["remember", "--section", "##", "x"]).failure(2);
}

#[test]
fn an_exact_duplicate_is_refused_and_says_where_it_is() {
    let ctx = TestContext::new();
    write(&ctx, "MEMORY.md", "# M\n- likes   tea\n");
    let before = read(&ctx, "MEMORY.md");
    let out = mem(&ctx, &["remember", "likes tea"]);
    out.failure(1);
    let id = id_of(&ctx, "likes tea");
    assert_eq!(
        out.stderr(),
        format!("Error: already remembered in MEMORY.md:2 (id {id})\n")
    );
    assert_eq!(read(&ctx, "MEMORY.md"), before);
    // In a daily log the time does not make an entry new.
    mem(&ctx, &["remember", "--to", "daily", "standup"]).success();
    let out = mem_at(
        &ctx,
        "2026-11-29T17:00:00+01:00",
        &["remember", "--to", "daily", "standup"],
    );
    out.failure(1);
    out.stderr_has("already remembered in memory/2026-11-29.md:3");
    // Another file is another place.
    mem(&ctx, &["remember", "--to", "lessons", "likes tea"]).success();
    let out = mem_json(&ctx, &["remember", "likes tea"]);
    out.failure(1);
    assert_eq!(out.json()["error"]["code"], "duplicate");
}

#[test]
fn bad_targets_and_empty_text_are_usage_errors() {
    let ctx = TestContext::new();
    let out = mem(&ctx, &["remember", "--to", "nowhere", "x"]);
    out.failure(2);
    out.stderr_has("Error: \"nowhere\" is not a memory file to write to");
    out.stderr_has("hint: use --to long-term, daily, space:<name>, lessons or profile");
    let out = mem(&ctx, &["remember", "--to", "space:../etc", "x"]);
    out.failure(2);
    out.stderr_has("is not a usable space name");
    mem(&ctx, &["remember", "   \n  "]).failure(2);
    let out = mem_json(&ctx, &["remember", "--to", "space:", "x"]);
    out.failure(2);
    assert_eq!(out.json()["error"]["code"], "usage");
    assert!(!ctx.agent.exists(), "nothing was created");
}

// ---------------------------------------------------------------------------------------------
// surgical edits

/// A hand-written file: CRLF, odd spacing, nested lists, paragraphs, a numbered list, fenced
/// code, a thematic break, and no final newline.
const HAND: &str = "# Memory\r\n\r\nSome intro paragraph.\r\nStill the intro.\r\n\r\n## Preferences\r\n-   likes   green tea  \r\n* prefers dark mode\r\n  on every device\r\n    - even the phone\r\n\r\n  (said twice)\r\n- uses   vim\r\n\r\nA closing paragraph.\r\n\r\n## Tools\r\n 1. numbered, not an entry\r\n```\r\n- fenced, not an entry\r\n```\r\n* * *\r\n- ripgrep\t \r\n- fd";

#[test]
fn edits_change_only_the_entry_and_keep_crlf() {
    let ctx = TestContext::new();
    write(&ctx, "MEMORY.md", HAND);
    let out = mem(&ctx, &["list"]);
    out.success();
    let texts: Vec<String> = out
        .stdout()
        .lines()
        .map(|l| l.rsplit('\t').next().unwrap().to_string())
        .collect();
    assert_eq!(
        texts,
        [
            "likes green tea",
            "prefers dark mode on every device - even the phone (said twice)",
            "even the phone",
            "uses vim",
            "ripgrep",
            "fd"
        ]
    );
    assert_eq!(
        places(&out),
        [
            "MEMORY.md:7",
            "MEMORY.md:8",
            "MEMORY.md:10",
            "MEMORY.md:13",
            "MEMORY.md:23",
            "MEMORY.md:24"
        ]
    );

    let mut expected = HAND.to_string();
    // The entry's own lines are replaced; the item nested in it stays.
    mem(&ctx, &["replace", "dark mode", "prefers light mode"]).success();
    expected = expected.replace(
        "* prefers dark mode\r\n  on every device\r\n    - even the phone\r\n\r\n  (said twice)\r\n",
        "* prefers light mode\r\n    - even the phone\r\n",
    );
    assert_eq!(read(&ctx, "MEMORY.md"), expected);

    mem(&ctx, &["forget", "vim"]).success();
    expected = expected.replace("- uses   vim\r\n", "");
    assert_eq!(read(&ctx, "MEMORY.md"), expected);

    mem(
        &ctx,
        &["remember", "--section", "Preferences", "walks\nevery day"],
    )
    .success();
    expected = expected.replace(
        "    - even the phone\r\n",
        "    - even the phone\r\n- walks\r\n  every day\r\n",
    );
    assert_eq!(read(&ctx, "MEMORY.md"), expected);

    mem(&ctx, &["remember", "likes fish"]).success();
    expected.push_str("\r\n- likes fish\r\n");
    assert_eq!(read(&ctx, "MEMORY.md"), expected);

    mem(&ctx, &["forget", "fd"]).success();
    expected = expected.replace("- fd\r\n", "");
    assert_eq!(read(&ctx, "MEMORY.md"), expected);

    mem(&ctx, &["replace", "green", "likes black tea"]).success();
    expected = expected.replace("-   likes   green tea  \r\n", "- likes black tea\r\n");
    assert_eq!(read(&ctx, "MEMORY.md"), expected);
    // No temp or stray files next to it.
    assert_eq!(ctx.tree(&ctx.agent), [".lock", "MEMORY.md"]);
}

// ---------------------------------------------------------------------------------------------
// replace and forget

#[test]
fn replace_by_text_or_id_and_its_errors() {
    let ctx = TestContext::new();
    write(
        &ctx,
        "MEMORY.md",
        "- Deploy with make deploy\n- Deploy docs by hand\n- Lunch at noon\n",
    );
    write(
        &ctx,
        "memory/2026-11-28.md",
        "# 2026-11-28\n\n- 08:30 Standup moved\n",
    );

    // Several matches: exit 1, every candidate with its id, nothing changed.
    let out = mem(&ctx, &["replace", "Deploy", "x"]);
    out.failure(1);
    let a = id_of(&ctx, "Deploy with make deploy");
    let b = id_of(&ctx, "Deploy docs by hand");
    assert_eq!(
        out.stderr(),
        format!(
            "Error: 2 memory entries match \"Deploy\"\nhint: {a}  MEMORY.md:1  Deploy with make deploy\nhint: {b}  MEMORY.md:2  Deploy docs by hand\nhint: choose one with --id <id>\n"
        )
    );
    let out = mem_json(&ctx, &["replace", "Deploy", "x"]);
    out.failure(1);
    assert_eq!(out.json()["error"]["code"], "ambiguous");
    assert!(out.json()["error"]["hint"].as_str().unwrap().contains(&a));

    // Matching is case-sensitive: "deploy" is only in the first entry.
    let out = mem_json(&ctx, &["replace", "deploy", "Deploy with just deploy"]);
    out.success();
    let v = out.json();
    assert_eq!(v["old"]["id"], a.as_str());
    assert_eq!(v["new"]["text"], "Deploy with just deploy");
    assert_eq!(v["new"]["line"], 1);

    // By id (a prefix of 4 is enough), with only the new text.
    let out = mem(
        &ctx,
        &["replace", "--id", &b[..4], "Docs deploy themselves"],
    );
    out.success();
    let new_b = id_of(&ctx, "Docs deploy themselves");
    assert_eq!(
        out.stdout(),
        format!("✓ Replaced {b} → {new_b} in MEMORY.md:2\n")
    );

    // A daily entry keeps its time.
    mem(&ctx, &["replace", "Standup", "Standup cancelled"]).success();
    assert_eq!(
        read(&ctx, "memory/2026-11-28.md"),
        "# 2026-11-28\n\n- 08:30 Standup cancelled\n"
    );

    // No match: exit 3. Bad ids and missing new text: exit 2.
    let out = mem(&ctx, &["replace", "nothing like this", "x"]);
    out.failure(3);
    out.stderr_has("Error: no memory entry matches \"nothing like this\"");
    assert_eq!(
        mem_json(&ctx, &["replace", "nope", "x"]).json()["error"]["code"],
        "no_match"
    );
    mem(&ctx, &["replace", "--id", "zz", "x"]).failure(2);
    mem(&ctx, &["replace", "--id", "abcd"]).failure(2);
    mem(&ctx, &["replace", "--id", "0000", "x"]).failure(3);
    mem(&ctx, &["replace", "Lunch"]).failure(2);
    mem(&ctx, &["replace", "--id", &a[..4], "a", "b"]).failure(2);

    // Replacing into a duplicate of another entry is refused.
    let out = mem(&ctx, &["replace", "Lunch", "Docs deploy themselves"]);
    out.failure(1);
    out.stderr_has("already remembered in MEMORY.md:2");
    assert_eq!(
        read(&ctx, "MEMORY.md"),
        "- Deploy with just deploy\n- Docs deploy themselves\n- Lunch at noon\n"
    );
}

#[test]
fn forget_one_or_all_matching_and_prints_what_went() {
    let ctx = TestContext::new();
    write(&ctx, "MEMORY.md", "- tea in the morning\n- coffee\n");
    write(&ctx, "memory/lessons.md", "- tea is not coffee\n");
    write(&ctx, "memory/spaces/home.md", "- buy tea\n");

    let out = mem(&ctx, &["forget", "tea"]);
    out.failure(1);
    out.stderr_has("Error: 3 memory entries match \"tea\"");
    out.stderr_has("hint: choose one with --id <id>, or remove them all with --all-matching");

    // --in narrows the search to one file.
    let id = id_of(&ctx, "buy tea");
    let out = mem(&ctx, &["forget", "tea", "--in", "home"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!("✓ Forgot {id}  memory/spaces/home.md:1  buy tea\n")
    );
    assert_eq!(read(&ctx, "memory/spaces/home.md"), "");

    let out = mem_json(&ctx, &["forget", "tea", "--all-matching"]);
    out.success();
    let removed: Vec<String> = out.json()["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["file"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(removed, ["MEMORY.md", "memory/lessons.md"]);
    assert_eq!(read(&ctx, "MEMORY.md"), "- coffee\n");
    assert_eq!(read(&ctx, "memory/lessons.md"), "");

    let coffee = id_of(&ctx, "coffee");
    mem(&ctx, &["forget", "--id", &coffee]).success();
    assert_eq!(read(&ctx, "MEMORY.md"), "");
    mem(&ctx, &["forget", "--id", &coffee]).failure(3);
    mem(&ctx, &["forget", "x", "--in", "2020-01-01"]).failure(3);
    mem(&ctx, &["forget", "x", "--in", "2020-13-01"]).failure(2);
    mem(&ctx, &["forget"]).failure(2);

    // A long list of candidates is cut.
    let many: String = (1..=25).map(|i| format!("- item {i}\n")).collect();
    write(&ctx, "memory/lessons.md", &many);
    let out = mem(&ctx, &["forget", "item"]);
    out.failure(1);
    assert_eq!(
        out.stderr().matches("memory/lessons.md:").count(),
        20,
        "{out}"
    );
    out.stderr_has("hint: … and 5 more (narrow the text, or pass --in <file>)");
}

// ---------------------------------------------------------------------------------------------
// search

#[test]
fn an_exact_phrase_beats_scattered_words() {
    let ctx = TestContext::new();
    write(
        &ctx,
        "MEMORY.md",
        "- tea in the green cup\n- green tea with a slice of lemon in the morning\n- coffee at noon\n- the cup is blue\n",
    );
    let out = mem(&ctx, &["search", "green tea"]);
    out.success();
    assert_eq!(places(&out), ["MEMORY.md:2", "MEMORY.md:1"]);
}

#[test]
fn recent_beats_old_at_equal_relevance() {
    let ctx = TestContext::new();
    write(
        &ctx,
        "memory/2025-01-10.md",
        "- 10:00 renewed the passport\n",
    );
    write(
        &ctx,
        "memory/2026-11-28.md",
        "- 10:00 renewed the passport\n",
    );
    write(
        &ctx,
        "memory/2026-06-01.md",
        "- 10:00 renewed the passport\n",
    );
    let out = mem(&ctx, &["search", "passport"]);
    out.success();
    assert_eq!(
        places(&out),
        [
            "memory/2026-11-28.md:1",
            "memory/2026-06-01.md:1",
            "memory/2025-01-10.md:1"
        ]
    );
    // The tab-separated form: id, place, date, snippet (plain on a pipe).
    let id = ids(&out)[0].clone();
    assert_eq!(
        out.stdout().lines().next().unwrap(),
        format!("{id}\tmemory/2026-11-28.md:1\t2026-11-28\t10:00 renewed the passport")
    );
}

/// Issue 31: the words of a search need no quotes (`finch memory search Metric unit`): they
/// are one query, the same as the quoted one; flags after them still count.
#[test]
fn search_takes_unquoted_words_as_one_query() {
    let ctx = TestContext::new();
    write(
        &ctx,
        "memory/2026-11-20.md",
        "- 12:00 Metric unit everywhere\n- 13:00 a unit test\n",
    );
    let quoted = mem(&ctx, &["search", "Metric unit"]);
    quoted.success();
    let unquoted = mem(&ctx, &["search", "Metric", "unit"]);
    unquoted.success();
    assert_eq!(unquoted.stdout(), quoted.stdout());
    assert_eq!(
        places(&unquoted).first().map(String::as_str),
        Some("memory/2026-11-20.md:1"),
        "{unquoted}"
    );
    let limited = mem(&ctx, &["search", "Metric", "unit", "--limit", "1"]);
    limited.success();
    assert_eq!(places(&limited).len(), 1, "{limited}");
    mem(&ctx, &["search"]).failure(2);
}

#[test]
fn search_ignores_case_and_accents_and_finds_cjk_by_substring() {
    let ctx = TestContext::new();
    write(
        &ctx,
        "memory/2026-11-20.md",
        "- 12:00 Lunch at Café Müller\n- 13:00 明天的天气很好，去公园\n- 14:00 東京タワーに行った\n- 15:00 ＦＩＮＣＨ full width\n",
    );
    for (query, want) in [
        ("cafe muller", "memory/2026-11-20.md:1"),
        ("CAFÉ", "memory/2026-11-20.md:1"),
        ("天气", "memory/2026-11-20.md:2"),
        ("公园", "memory/2026-11-20.md:2"),
        ("タワー", "memory/2026-11-20.md:3"),
        ("finch", "memory/2026-11-20.md:4"),
    ] {
        let out = mem(&ctx, &["search", query]);
        out.success();
        assert_eq!(
            places(&out).first().map(String::as_str),
            Some(want),
            "{query}: {out}"
        );
    }
    let out = mem_json(&ctx, &["search", "天气"]);
    out.success();
    let hit = &out.json()[0];
    assert_eq!(hit["snippet"], "13:00 明天的天气很好，去公园");
    assert_eq!(hit["date"], "2026-11-20");
    assert_eq!(hit["file"], "memory/2026-11-20.md");
    assert_eq!(hit["line"], 2);
    // Words are matched whole: "caf" is not "café".
    let out = mem(&ctx, &["search", "caf"]);
    out.success();
    assert_eq!(out.stdout(), "");
}

#[test]
fn search_filters_by_scope_space_dates_and_limit() {
    let ctx = TestContext::new();
    write(&ctx, "MEMORY.md", "- project alpha uses rust\n");
    write(&ctx, "memory/lessons.md", "- alpha lesson\n");
    write(&ctx, "memory/spaces/work.md", "- alpha at work\n");
    write(&ctx, "memory/spaces/home.md", "- alpha at home\n");
    write(&ctx, "memory/2026-11-01.md", "- 09:00 alpha one\n");
    write(&ctx, "memory/2026-11-15.md", "- 09:00 alpha fifteen\n");
    write(&ctx, "memory/notes.md", "- alpha outside any memory file\n");
    // Files other than daily logs are dated by their last change.
    let changed: std::time::SystemTime =
        chrono::DateTime::parse_from_rfc3339("2026-11-25T12:00:00Z")
            .unwrap()
            .into();
    for rel in [
        "MEMORY.md",
        "memory/lessons.md",
        "memory/spaces/work.md",
        "memory/spaces/home.md",
    ] {
        let f = std::fs::File::options()
            .write(true)
            .open(path(&ctx, rel))
            .unwrap();
        f.set_modified(changed).unwrap();
    }
    let search = |args: &[&str]| {
        let mut all = vec!["search", "alpha"];
        all.extend_from_slice(args);
        let out = mem(&ctx, &all);
        out.success();
        let mut p = places(&out);
        p.sort();
        p
    };
    assert_eq!(search(&[]).len(), 6);
    assert_eq!(search(&["--scope", "long-term"]), ["MEMORY.md:1"]);
    assert_eq!(search(&["--scope", "lessons"]), ["memory/lessons.md:1"]);
    assert_eq!(
        search(&["--scope", "spaces"]),
        ["memory/spaces/home.md:1", "memory/spaces/work.md:1"]
    );
    assert_eq!(search(&["--space", "work"]), ["memory/spaces/work.md:1"]);
    assert_eq!(
        search(&["--scope", "daily", "--since", "2026-11-10"]),
        ["memory/2026-11-15.md:1"]
    );
    assert_eq!(
        search(&["--scope", "daily", "--until", "2026-11-10"]),
        ["memory/2026-11-01.md:1"]
    );
    assert_eq!(
        search(&["--since", "2026-11-02", "--until", "2026-11-20"]),
        ["memory/2026-11-15.md:1"]
    );
    assert_eq!(
        search(&["--since", "2026-11-25", "--until", "2026-11-25"]),
        [
            "MEMORY.md:1",
            "memory/lessons.md:1",
            "memory/spaces/home.md:1",
            "memory/spaces/work.md:1"
        ]
    );
    assert_eq!(search(&["--limit", "2"]).len(), 2);

    let out = mem(&ctx, &["search", "alpha", "--since", "2026-11-31"]);
    out.failure(2);
    out.stderr_has("Error: --since \"2026-11-31\" is not a date");
    out.stderr_has("hint: write the day as YYYY-MM-DD");
    mem(&ctx, &["search", "alpha", "--until", "yesterday"]).failure(2);
    mem(
        &ctx,
        &[
            "search",
            "alpha",
            "--since",
            "2026-11-20",
            "--until",
            "2026-11-01",
        ],
    )
    .failure(2);
    mem(
        &ctx,
        &["search", "alpha", "--scope", "daily", "--space", "work"],
    )
    .failure(2);
    mem(&ctx, &["search", "alpha", "--scope", "weekly"]).failure(2);
    mem(&ctx, &["search", "!!!"]).failure(2);
}

#[test]
fn search_json_is_an_array_of_hits() {
    let ctx = TestContext::new();
    write(
        &ctx,
        "memory/2026-11-28.md",
        "# 2026-11-28\n\n## Work\n- 10:00 Fixed the flaky deploy test\n",
    );
    let out = mem_json(&ctx, &["search", "deploy"]);
    out.success();
    let mut v = out.json();
    let hit = v[0].as_object_mut().unwrap();
    assert!(hit.remove("score").unwrap().as_f64().unwrap() > 0.0);
    let id = hit.remove("id").unwrap();
    assert_eq!(id.as_str().unwrap().len(), 8);
    assert_eq!(
        v,
        json!([{
            "file": "memory/2026-11-28.md",
            "path": path(&ctx, "memory/2026-11-28.md"),
            "line": 4,
            "date": "2026-11-28",
            "section": "Work",
            "text": "10:00 Fixed the flaky deploy test",
            "snippet": "10:00 Fixed the flaky deploy test"
        }])
    );
    let out = mem_json(&ctx, &["search", "nothing"]);
    out.success();
    assert_eq!(out.json(), json!([]));
}

// ---------------------------------------------------------------------------------------------
// show and list

#[test]
fn show_prints_the_file_named_by_kind_date_or_space() {
    let ctx = TestContext::new();
    write(&ctx, "MEMORY.md", "# M\r\n- a\r\n");
    write(&ctx, "USER.md", "- Ada\n");
    write(&ctx, "memory/lessons.md", "- l\n");
    write(&ctx, "memory/2026-11-29.md", "# 2026-11-29\n\n- 09:00 d\n");
    write(&ctx, "memory/spaces/work.md", "- w");
    for (what, want) in [
        ("MEMORY.md", "# M\r\n- a\r\n"),
        ("long-term", "# M\r\n- a\r\n"),
        ("profile", "- Ada\n"),
        ("lessons", "- l\n"),
        ("2026-11-29", "# 2026-11-29\n\n- 09:00 d\n"),
        ("today", "# 2026-11-29\n\n- 09:00 d\n"),
        ("daily", "# 2026-11-29\n\n- 09:00 d\n"),
        ("work", "- w\n"),
        ("space:work", "- w\n"),
    ] {
        let out = mem(&ctx, &["show", what]);
        out.success();
        assert_eq!(out.stdout(), want, "{what}");
    }
    let out = mem(&ctx, &["show", "2026-11-28"]);
    out.failure(3);
    assert_eq!(
        out.stderr(),
        format!(
            "Error: there is no memory file memory/2026-11-28.md ({})\nhint: run `finch memory list` to see what is remembered where\n",
            path(&ctx, "memory/2026-11-28.md").display()
        )
    );
    mem(&ctx, &["show", "nosuchspace"]).failure(3);
    mem(&ctx, &["show", "2026-02-30"]).failure(2);
    mem(&ctx, &["show", "../../etc/passwd"]).failure(2);

    let out = mem_json(&ctx, &["show", "long-term"]);
    out.success();
    let v = out.json();
    assert_eq!(v["file"], "MEMORY.md");
    assert_eq!(v["content"], "# M\r\n- a\r\n");
    assert_eq!(v["entries"][0]["text"], "a");
    assert_eq!(v["entries"][0]["line"], 2);
    assert_eq!(v["entries"][0]["section"], "M");
}

#[test]
fn list_json_has_every_field() {
    let ctx = TestContext::new();
    write(&ctx, "memory/2026-11-28.md", "# 2026-11-28\n- 10:00 x\n");
    let out = mem_json(&ctx, &["list"]);
    out.success();
    let v = out.json();
    assert_eq!(v.as_array().unwrap().len(), 1);
    let e = &v[0];
    assert_eq!(e["file"], "memory/2026-11-28.md");
    assert_eq!(e["path"], json!(path(&ctx, "memory/2026-11-28.md")));
    assert_eq!(e["line"], 2);
    assert_eq!(e["date"], "2026-11-28");
    assert_eq!(e["section"], "2026-11-28");
    assert_eq!(e["text"], "10:00 x");
    assert_eq!(e["id"].as_str().unwrap().len(), 8);
}

// ---------------------------------------------------------------------------------------------
// prune

#[test]
fn prune_deletes_old_daily_logs_only_when_confirmed() {
    let ctx = TestContext::new();
    for d in ["2026-09-01", "2026-10-29", "2026-10-30", "2026-11-29"] {
        write(&ctx, &format!("memory/{d}.md"), "- 10:00 x\n");
    }
    write(&ctx, "memory/lessons.md", "- keep\n");
    write(&ctx, "MEMORY.md", "- keep\n");

    // No terminal and no --yes: exit 4, nothing deleted.
    let out = mem(&ctx, &["prune", "--older-than", "30d"]);
    out.failure(4);
    out.stderr_has("Delete 2 daily logs older than 30d (memory/2026-09-01.md … memory/2026-10-29.md)? needs an answer");
    out.stderr_has("hint: pass --yes");
    assert!(path(&ctx, "memory/2026-09-01.md").exists());

    let out = mem(&ctx, &["prune", "--older-than", "30d", "--dry-run"]);
    out.success();
    assert_eq!(
        out.stdout(),
        "would delete memory/2026-09-01.md\nwould delete memory/2026-10-29.md\n"
    );

    let out = mem(&ctx, &["--yes", "prune", "--older-than", "30d"]);
    out.success();
    assert_eq!(
        out.stdout(),
        "Deleted memory/2026-09-01.md\nDeleted memory/2026-10-29.md\n"
    );
    assert_eq!(
        ctx.tree(&ctx.agent.join("memory")),
        [".lock", "2026-10-30.md", "2026-11-29.md", "lessons.md"]
    );

    let out = mem_json(&ctx, &["--yes", "prune", "--older-than", "1d"]);
    out.success();
    assert_eq!(
        out.json(),
        json!({"deleted": [{"file": "memory/2026-10-30.md", "path": path(&ctx, "memory/2026-10-30.md"), "date": "2026-10-30"}], "dryRun": false})
    );
    let out = mem(&ctx, &["prune", "--older-than", "1d"]);
    out.success();
    out.stderr_has("No daily logs older than 1d");

    for bad in ["30", "soon", "-3d"] {
        let out = mem(&ctx, &["prune", &format!("--older-than={bad}")]);
        out.failure(2);
        out.stderr_has("hint: write a number with a unit, e.g. 30d");
    }
}

// ---------------------------------------------------------------------------------------------
// broken and missing files

#[test]
fn a_file_that_is_not_utf8_is_never_rewritten() {
    let ctx = TestContext::new();
    let latin1: &[u8] = b"- caf\xe9 au lait\n";
    write(&ctx, "MEMORY.md", latin1);
    write(&ctx, "memory/lessons.md", "- cafe lesson\n");
    let memory_md = path(&ctx, "MEMORY.md");

    let out = mem(&ctx, &["remember", "x"]);
    out.failure(1);
    assert_eq!(
        out.stderr(),
        format!(
            "Error: {} is not UTF-8 text (invalid byte at offset 5); finch leaves it unchanged\nhint: convert the file to UTF-8 (e.g. with iconv), then run the command again\n",
            memory_md.display()
        )
    );
    assert_eq!(
        mem_json(&ctx, &["remember", "x"]).json()["error"]["code"],
        "not_utf8"
    );
    mem(&ctx, &["show", "MEMORY.md"]).failure(1);
    mem(&ctx, &["forget", "x", "--in", "MEMORY.md"]).failure(1);

    // Reading many files skips it with a warning naming it.
    let warning = format!(
        "warning: skipped {} is not UTF-8 text (invalid byte at offset 5); finch leaves it unchanged\n",
        memory_md.display()
    );
    let out = mem(&ctx, &["list"]);
    out.success();
    assert_eq!(places(&out), ["memory/lessons.md:1"]);
    assert_eq!(out.stderr(), warning);
    let out = mem(&ctx, &["search", "cafe"]);
    out.success();
    assert_eq!(places(&out), ["memory/lessons.md:1"]);
    assert_eq!(out.stderr(), warning);
    let out = mem(&ctx, &["forget", "au lait"]);
    out.failure(3);
    out.stderr_has("was not searched: it is not UTF-8");

    assert_eq!(std::fs::read(&memory_md).unwrap(), latin1);
}

#[test]
fn a_missing_agent_home_is_reported_and_not_created_by_readers() {
    let ctx = TestContext::new();
    let no_home = format!(
        "No agent home at {} (nothing remembered yet)\n",
        ctx.agent.display()
    );
    let out = mem(&ctx, &["list"]);
    out.success();
    assert_eq!(out.stdout(), "");
    assert_eq!(out.stderr(), no_home);
    let out = mem(&ctx, &["search", "anything"]);
    out.success();
    assert_eq!((out.stdout(), out.stderr()), (String::new(), no_home));
    assert_eq!(mem_json(&ctx, &["list"]).json(), json!([]));
    mem(&ctx, &["show", "long-term"]).failure(3);
    mem(&ctx, &["forget", "x"]).failure(3);
    mem(&ctx, &["replace", "x", "y"]).failure(3);
    mem(&ctx, &["prune", "--older-than", "30d"]).success();
    assert!(!ctx.agent.exists());

    let out = mem(&ctx, &["remember", "first"]);
    out.success();
    assert_eq!(
        out.stderr(),
        format!("Created the agent home {}\n", ctx.agent.display())
    );
    assert_eq!(read(&ctx, "MEMORY.md"), "- first\n");
}

#[test]
fn a_held_lock_makes_remember_exit_5_without_writing() {
    let ctx = TestContext::new();
    ctx.write_config("[state]\nlock_timeout = \"200ms\"\n");
    write(&ctx, "MEMORY.md", "- a\n");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(ctx.agent.join(".lock"))
        .unwrap();
    lock.lock().unwrap();
    let out = mem(&ctx, &["remember", "b"]);
    out.failure(5);
    out.stderr_has(&format!(
        "Error: another finch is changing {}",
        path(&ctx, "MEMORY.md").display()
    ));
    assert_eq!(
        mem_json(&ctx, &["forget", "a"]).json()["error"]["code"],
        "locked"
    );
    assert_eq!(read(&ctx, "MEMORY.md"), "- a\n");
    lock.unlock().unwrap();
    mem(&ctx, &["remember", "b"]).success();
}

// ---------------------------------------------------------------------------------------------
// concurrency

#[test]
fn eight_processes_remembering_at_once_lose_nothing() {
    let ctx = TestContext::new();
    let finch = env!("CARGO_BIN_EXE_finch");
    let template = ctx.cmd();
    let children: Vec<_> = (0..8)
        .map(|i| {
            let mut cmd = std::process::Command::new("sh");
            cmd.env_clear();
            for (k, v) in template.get_envs() {
                if let Some(v) = v {
                    cmd.env(k, v);
                }
            }
            cmd.env("FINCH", finch)
                .env("FINCH_NOW", NOW)
                .env("I", i.to_string())
                .current_dir(&ctx.work)
                .arg("-c")
                .arg(r#"j=1; while [ $j -le 50 ]; do "$FINCH" memory remember "p$I-$j" >/dev/null || exit 1; j=$((j+1)); done"#)
                .stdout(Stdio::null())
                .stderr(Stdio::piped());
            cmd.spawn().expect("spawn sh")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "a writer failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = read(&ctx, "MEMORY.md");
    let mut lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 400, "{text}");
    assert!(text.ends_with('\n'));
    lines.sort();
    let mut want: Vec<String> = (0..8)
        .flat_map(|i| (1..=50).map(move |j| format!("- p{i}-{j}")))
        .collect();
    want.sort();
    assert_eq!(lines, want);
    let listed = mem_json(&ctx, &["list"]).json();
    assert_eq!(listed.as_array().map(Vec::len), Some(400));
    assert_eq!(ctx.tree(&ctx.agent), [".lock", "MEMORY.md"]);
}

#[test]
fn list_of_many_files_is_in_file_order() {
    let ctx = TestContext::new();
    write(&ctx, "memory/2026-11-02.md", "- 09:00 b\n");
    write(&ctx, "memory/2026-11-01.md", "- 09:00 a\n");
    let out = mem(&ctx, &["list", "--scope", "daily"]);
    let texts: Vec<Value> = out
        .stdout()
        .lines()
        .map(|l| Value::from(l.rsplit('\t').next().unwrap()))
        .collect();
    assert_eq!(texts, [json!("09:00 a"), json!("09:00 b")]);
}

// ---------------------------------------------------------------------------------------------
// files as people keep them: links into a dotfiles repo, front matter, comments, nested lists,
// CRLF, read-only files, and things at a memory path that are not files

/// A MEMORY.md as an Obsidian vault or a dotfiles repo holds it, with CRLF line endings: YAML
/// front matter with a list, a comment block with list items in it, nested lists, and a
/// commented-out TODO list left open at the end.
const KEPT: &str = "---\r\ntitle: Agent memory\r\ntags:\r\n- agent\r\n- notes\r\n---\r\n<!-- Read by finch. Old notes:\r\n- commented out, not an entry\r\n-->\r\n\r\n# Memory\r\n\r\n## Projects\r\n- finch: a Rust CLI\r\n  - owl: a Python service\r\n  - wren: written in Go\r\n    - wren-api on port 8080\r\n- Ada likes green tea\r\n\r\n<!-- TODO, unfinished:\r\n- move wren to the archive\r\n";

/// Puts `KEPT` in `<base>/dotfiles/agent/MEMORY.md` and links the agent's MEMORY.md to it with
/// a relative link, as `stow` or a hand-made `ln -s` does.
fn kept_in_dotfiles(ctx: &TestContext) -> PathBuf {
    let target = ctx.base().join("dotfiles/agent/MEMORY.md");
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::write(&target, KEPT).unwrap();
    std::fs::create_dir_all(&ctx.agent).unwrap();
    std::os::unix::fs::symlink("../../dotfiles/agent/MEMORY.md", path(ctx, "MEMORY.md")).unwrap();
    target
}

fn texts(out: &Run) -> Vec<String> {
    out.stdout()
        .lines()
        .map(|l| l.rsplit('\t').next().unwrap().to_string())
        .collect()
}

#[test]
fn writes_follow_a_link_to_its_target_and_keep_the_link() {
    let ctx = TestContext::new();
    let target = kept_in_dotfiles(&ctx);
    let link = path(&ctx, "MEMORY.md");
    mem(
        &ctx,
        &["remember", "--section", "Projects", "kite: a bird tracker"],
    )
    .success();
    let expected = KEPT.replace(
        "- Ada likes green tea\r\n",
        "- Ada likes green tea\r\n- kite: a bird tracker\r\n",
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), expected);
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        PathBuf::from("../../dotfiles/agent/MEMORY.md")
    );
    mem(&ctx, &["forget", "kite"]).success();
    mem(&ctx, &["replace", "green tea", "Ada likes mint tea"]).success();
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        KEPT.replace("green tea", "mint tea")
    );
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    // No temp files left in either directory.
    assert_eq!(ctx.tree(target.parent().unwrap()), ["MEMORY.md"]);
    assert_eq!(ctx.tree(&ctx.agent), [".lock", "MEMORY.md"]);

    // A chain of links, the last one dangling: the file it names is created.
    let notes = ctx.base().join("vault/notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::os::unix::fs::symlink(
        notes.join("lessons.md"),
        ctx.base().join("vault/lessons.md"),
    )
    .unwrap();
    std::fs::create_dir_all(path(&ctx, "memory")).unwrap();
    std::os::unix::fs::symlink("../../../vault/lessons.md", path(&ctx, "memory/lessons.md"))
        .unwrap();
    mem(
        &ctx,
        &["remember", "--to", "lessons", "test before pushing"],
    )
    .success();
    assert_eq!(
        std::fs::read_to_string(notes.join("lessons.md")).unwrap(),
        "- test before pushing\n"
    );
    assert!(
        path(&ctx, "memory/lessons.md")
            .symlink_metadata()
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let out = mem(&ctx, &["list", "--scope", "lessons"]);
    out.success();
    assert_eq!(texts(&out), ["test before pushing"]);
}

#[test]
fn a_link_whose_target_directory_cannot_take_a_temp_file_is_refused() {
    let ctx = TestContext::new();
    std::fs::create_dir_all(&ctx.agent).unwrap();
    let link = path(&ctx, "MEMORY.md");
    // A directory not even root can create files in (sysfs), and one that does not exist.
    for target in [
        "/sys/finch-memory-test.md",
        "/nonexistent-finch-dir/MEMORY.md",
    ] {
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(target, &link).unwrap();
        let out = mem(&ctx, &["remember", "x"]);
        out.failure(1);
        out.stderr_has(&format!(
            "Error: cannot change MEMORY.md: it is a link to {target}, and finch cannot create a temporary file next to it in {}",
            Path::new(target).parent().unwrap().display()
        ));
        assert_eq!(
            mem_json(&ctx, &["remember", "x"]).json()["error"]["code"],
            "target_dir"
        );
        assert_eq!(std::fs::read_link(&link).unwrap(), PathBuf::from(target));
        assert!(!Path::new(target).exists());
    }
    assert_eq!(ctx.tree(&ctx.agent), [".lock", "MEMORY.md"]);
}

#[test]
fn front_matter_and_comments_hold_no_entries_and_are_never_written_into() {
    let ctx = TestContext::new();
    let target = kept_in_dotfiles(&ctx);
    let out = mem(&ctx, &["list"]);
    out.success();
    assert_eq!(
        texts(&out),
        [
            "finch: a Rust CLI - owl: a Python service - wren: written in Go - wren-api on port 8080",
            "owl: a Python service",
            "wren: written in Go - wren-api on port 8080",
            "wren-api on port 8080",
            "Ada likes green tea",
        ]
    );
    // Nothing in the front matter or a comment can be forgotten or found.
    for text in ["agent", "commented out", "archive"] {
        mem(&ctx, &["forget", text]).failure(3);
    }
    let out = mem(&ctx, &["search", "archive notes"]);
    out.success();
    assert_eq!(out.stdout(), "");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), KEPT);

    // A new section goes before the unclosed comment the file ends in, in CRLF.
    mem(&ctx, &["remember", "--section", "People", "Bo plays chess"]).success();
    let with_people = KEPT.replace(
        "<!-- TODO, unfinished:",
        "## People\r\n- Bo plays chess\r\n<!-- TODO, unfinished:",
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), with_people);

    // Only front matter and a comment, no list yet: the entry goes after both.
    let only = "---\ntitle: Lessons\n---\n<!-- one per line -->\n";
    write(&ctx, "memory/lessons.md", only);
    mem(
        &ctx,
        &["remember", "--to", "lessons", "read the error first"],
    )
    .success();
    assert_eq!(
        read(&ctx, "memory/lessons.md"),
        format!("{only}- read the error first\n")
    );
    // A file that is all one unclosed comment: the entry goes before it.
    write(&ctx, "USER.md", "<!--\n- draft, hidden\n");
    mem(&ctx, &["remember", "--to", "profile", "Name: Ada"]).success();
    assert_eq!(
        read(&ctx, "USER.md"),
        "- Name: Ada\n<!--\n- draft, hidden\n"
    );
    // Fences still hold no entries.
    write(&ctx, "memory/spaces/work.md", "```\n- not an entry\n```\n");
    mem(&ctx, &["remember", "--to", "space:work", "standup at 10"]).success();
    assert_eq!(
        read(&ctx, "memory/spaces/work.md"),
        "```\n- not an entry\n```\n- standup at 10\n"
    );
}

#[test]
fn sub_items_are_items_of_their_own_and_nothing_is_lost() {
    let ctx = TestContext::new();
    let target = kept_in_dotfiles(&ctx);
    let file = || std::fs::read_to_string(&target).unwrap();
    // Text in a sub-item replaces that sub-item alone.
    let out = mem(&ctx, &["replace", "Python service", "owl: a Rust service"]);
    out.success();
    let mut expected = KEPT.replace("owl: a Python service", "owl: a Rust service");
    assert_eq!(file(), expected);

    // Sub-items have ids and a parent in --json.
    let out = mem_json(&ctx, &["list"]);
    out.success();
    let list = out.json();
    let by_text = |t: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|e| e["text"] == t)
            .unwrap_or_else(|| panic!("no {t}: {list:#}"))
            .clone()
    };
    let wren = by_text("wren: written in Go - wren-api on port 8080");
    let api = by_text("wren-api on port 8080");
    assert_eq!(api["parent"], wren["id"]);
    assert_eq!(api["line"], 17);
    let finch = by_text(
        "finch: a Rust CLI - owl: a Rust service - wren: written in Go - wren-api on port 8080",
    );
    assert_eq!(wren["parent"], finch["id"]);
    assert_eq!(finch["parent"], Value::Null);

    // Replacing an entry rewrites its own lines and keeps what is nested in it.
    mem(&ctx, &["replace", "a Rust CLI", "finch: a Rust tool host"]).success();
    expected = expected.replace("- finch: a Rust CLI\r\n", "- finch: a Rust tool host\r\n");
    assert_eq!(file(), expected);

    // Forgetting a sub-item by id removes it with what is nested in it, and nothing else.
    let out = mem(&ctx, &["forget", "--id", wren["id"].as_str().unwrap()]);
    out.success();
    out.stdout_has("wren: written in Go - wren-api on port 8080");
    expected = expected.replace(
        "  - wren: written in Go\r\n    - wren-api on port 8080\r\n",
        "",
    );
    assert_eq!(file(), expected);

    // Text in an entry's own lines and in a sub-item: both are candidates, nothing changes.
    write(
        &ctx,
        "memory/spaces/home.md",
        "- tea: green\n  - tea: mint\n- coffee\n",
    );
    let out = mem_json(&ctx, &["replace", "tea", "tea: black", "--in", "home"]);
    out.failure(1);
    let err = &out.json()["error"];
    assert_eq!(err["code"], "ambiguous");
    assert_eq!(
        read(&ctx, "memory/spaces/home.md"),
        "- tea: green\n  - tea: mint\n- coffee\n"
    );
    let out = mem(&ctx, &["replace", "tea", "tea: black", "--in", "home"]);
    out.stderr_has("2 memory entries match \"tea\"");
    out.stderr_has("memory/spaces/home.md:2  tea: mint");
    // A sub-item with text after it in the entry: the entry's own lines go, the sub-item stays.
    write(
        &ctx,
        "memory/spaces/home.md",
        "- plants\n  - fern\n\n  water weekly\n- coffee\n",
    );
    mem(&ctx, &["replace", "weekly", "plants: water daily"]).success();
    assert_eq!(
        read(&ctx, "memory/spaces/home.md"),
        "- plants: water daily\n  - fern\n- coffee\n"
    );
}

#[test]
fn a_read_only_file_is_refused_and_left_alone() {
    use std::os::unix::fs::PermissionsExt;
    let ctx = TestContext::new();
    write(&ctx, "MEMORY.md", "- tea\n");
    let p = path(&ctx, "MEMORY.md");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).unwrap();
    let message = format!(
        "Error: MEMORY.md is read-only ({}); finch leaves it unchanged\nhint: make it writable (chmod u+w {}) to let finch change it\n",
        p.display(),
        p.display()
    );
    for args in [
        &["remember", "coffee"][..],
        &["replace", "tea", "green tea"],
        &["forget", "tea"],
    ] {
        let out = mem(&ctx, args);
        out.failure(1);
        assert_eq!(out.stderr(), message, "{args:?}");
    }
    assert_eq!(
        mem_json(&ctx, &["forget", "tea"]).json()["error"]["code"],
        "read_only"
    );
    assert_eq!(read(&ctx, "MEMORY.md"), "- tea\n");
    assert_eq!(
        std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o444
    );
    // Reading it is fine.
    mem(&ctx, &["list"]).success();
}

#[test]
fn anything_but_a_file_at_a_memory_path_is_an_error_for_every_command() {
    let ctx = TestContext::new();
    std::fs::create_dir_all(path(&ctx, "MEMORY.md")).unwrap();
    write(&ctx, "memory/lessons.md", "- a lesson\n");
    let message = format!(
        "Error: {} is a directory, not a regular file; memory lives in regular files (or links to one)\n",
        path(&ctx, "MEMORY.md").display()
    );
    for args in [
        &["list"][..],
        &["search", "lesson"],
        &["remember", "x"],
        &["replace", "lesson", "y"],
        &["forget", "lesson"],
        &["show", "long-term"],
        &["forget", "x", "--in", "long-term"],
    ] {
        let out = mem(&ctx, args);
        out.failure(1);
        assert_eq!(out.stderr(), message, "{args:?}");
    }
    assert_eq!(
        mem_json(&ctx, &["list"]).json()["error"]["code"],
        "not_a_file"
    );
    assert_eq!(read(&ctx, "memory/lessons.md"), "- a lesson\n");

    // A FIFO is refused without waiting for a writer; a directory among the daily logs too.
    std::fs::remove_dir(path(&ctx, "MEMORY.md")).unwrap();
    let fifo = std::ffi::CString::new(path(&ctx, "MEMORY.md").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    for args in [&["list"][..], &["show", "long-term"], &["remember", "x"]] {
        let out = mem(&ctx, args);
        out.failure(1);
        out.stderr_has("MEMORY.md is a FIFO, not a regular file");
    }
    std::fs::remove_file(path(&ctx, "MEMORY.md")).unwrap();
    std::fs::create_dir_all(path(&ctx, "memory/2026-11-01.md")).unwrap();
    let out = mem(&ctx, &["list", "--scope", "daily"]);
    out.failure(1);
    out.stderr_has("2026-11-01.md is a directory, not a regular file");
}

#[test]
fn search_folds_case_fully() {
    let ctx = TestContext::new();
    write(
        &ctx,
        "MEMORY.md",
        "- Office at Bergmannstraße 5\n- STRASSE is upper case\n- ﬁsh and chips\n",
    );
    for (query, want) in [
        ("bergmannstrasse", vec!["MEMORY.md:1"]),
        ("BERGMANNSTRASSE", vec!["MEMORY.md:1"]),
        ("Bergmannstraße", vec!["MEMORY.md:1"]),
        ("straße", vec!["MEMORY.md:2"]),
        ("fish", vec!["MEMORY.md:3"]),
    ] {
        let out = mem(&ctx, &["search", query]);
        out.success();
        assert_eq!(places(&out), want, "{query}: {out}");
    }
}

/// `forget tea` finds "Tea at 4" as `search tea` does: a piece of text that matches nothing as
/// typed matches ignoring case and accents. Where it matches as typed, case still tells
/// entries apart.
#[test]
fn forget_and_replace_match_ignoring_case_when_nothing_matches_as_typed() {
    let ctx = TestContext::new();
    write(
        &ctx,
        "MEMORY.md",
        "- Tea at 4\n- Café on Fridays\n- coffee\n",
    );
    mem(&ctx, &["search", "tea"])
        .success()
        .stdout_has("Tea at 4");
    let id = id_of(&ctx, "Tea at 4");
    let out = mem(&ctx, &["forget", "tea"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!("✓ Forgot {id}  MEMORY.md:1  Tea at 4\n")
    );
    mem(&ctx, &["replace", "CAFE", "Café on Mondays"]).success();
    assert_eq!(read(&ctx, "MEMORY.md"), "- Café on Mondays\n- coffee\n");
    // Nothing in any case: still no match (exit 3), naming the text as typed.
    mem(&ctx, &["forget", "Tea"])
        .failure(3)
        .stderr_has("\"Tea\"");
}
