//! Tests of `finch session` (SPEC §7): transcripts written here in pi's format, listed, shown,
//! searched and appended to by the real binary — with abbreviated, ambiguous and unknown ids,
//! truncated and corrupt transcripts (read with a warning, never rewritten), missing homes,
//! every documented error with its exit code, and eight processes appending at once.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::TestContext;

/// A transcript built entry by entry, then written as pi writes it:
/// `<runtime>/pi/sessions/--<cwd with / as ->--/<started with : and . as ->_<id>.jsonl`.
struct Session {
    id: String,
    cwd: String,
    started: String,
    entries: Vec<Value>,
    /// Seconds after `started` of the next entry.
    clock: u32,
    last: Option<String>,
}

impl Session {
    fn new(id: &str, cwd: &str, started: &str) -> Session {
        Session {
            id: id.into(),
            cwd: cwd.into(),
            started: started.into(),
            entries: Vec::new(),
            clock: 0,
            last: None,
        }
    }

    /// Adds an entry with `type`, `id`, `parentId` and `timestamp` in front of `fields`.
    fn entry(mut self, kind: &str, fields: Value) -> Self {
        self.clock += 1;
        let id = format!("{:08x}", self.entries.len() as u32 + 0xe000_0000);
        let at = chrono::DateTime::parse_from_rfc3339(&self.started).expect("started")
            + chrono::TimeDelta::seconds(i64::from(self.clock));
        let mut entry = serde_json::Map::new();
        entry.insert("type".into(), kind.into());
        entry.insert("id".into(), id.clone().into());
        entry.insert(
            "parentId".into(),
            self.last.clone().map_or(Value::Null, Value::from),
        );
        entry.insert(
            "timestamp".into(),
            at.to_utc()
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
                .into(),
        );
        if let Value::Object(more) = fields {
            entry.extend(more);
        }
        self.entries.push(Value::Object(entry));
        self.last = Some(id);
        self
    }

    fn message(self, message: Value) -> Self {
        self.entry("message", json!({ "message": message }))
    }

    fn user(self, text: &str) -> Self {
        self.message(json!({"role": "user", "content": [{"type": "text", "text": text}]}))
    }

    fn assistant(self, text: &str) -> Self {
        self.message(
            json!({"role": "assistant", "content": [{"type": "text", "text": text}],
            "provider": "anthropic", "model": "claude", "stopReason": "stop"}),
        )
    }

    fn tool_call(self, text: &str, tool: &str, arguments: Value) -> Self {
        self.message(json!({"role": "assistant", "content": [
            {"type": "text", "text": text},
            {"type": "toolCall", "id": "call_1", "name": tool, "arguments": arguments}]}))
    }

    fn tool_result(self, tool: &str, text: &str) -> Self {
        self.message(
            json!({"role": "toolResult", "toolCallId": "call_1", "toolName": tool,
            "content": [{"type": "text", "text": text}], "isError": false}),
        )
    }

    fn named(self, name: &str) -> Self {
        self.entry("session_info", json!({ "name": name }))
    }

    fn header(&self) -> Value {
        json!({"type": "session", "version": 3, "id": self.id, "timestamp": self.started,
            "cwd": self.cwd})
    }

    fn text(&self) -> String {
        std::iter::once(self.header())
            .chain(self.entries.iter().cloned())
            .map(|v| format!("{v}\n"))
            .collect()
    }

    fn path(&self, ctx: &TestContext) -> PathBuf {
        let slug = format!("--{}--", self.cwd.trim_start_matches('/').replace('/', "-"));
        let name = format!(
            "{}_{}.jsonl",
            self.started.replace([':', '.'], "-"),
            self.id
        );
        ctx.runtime.join("pi/sessions").join(slug).join(name)
    }

    fn write(&self, ctx: &TestContext) -> PathBuf {
        self.write_text(ctx, &self.text())
    }

    fn write_text(&self, ctx: &TestContext, text: &str) -> PathBuf {
        let path = self.path(ctx);
        std::fs::create_dir_all(path.parent().expect("slug dir")).expect("sessions dir");
        std::fs::write(&path, text).expect("write transcript");
        path
    }
}

const ID_A: &str = "0195aaaa-1111-7000-8000-00000000000a";
const ID_B: &str = "0195aaaa-2222-7000-8000-00000000000b";
const ID_C: &str = "7c3e0000-3333-4000-8000-00000000000c";

/// Three sessions: A (named twice, oldest activity), B (most recent), C (another workspace).
pub(crate) fn three_sessions(ctx: &TestContext) -> [PathBuf; 3] {
    let a = Session::new(ID_A, "/w/alpha", "2026-01-10T09:00:00.000Z")
        .user("Fix the login bug please")
        .assistant("Looking at it")
        .named("First name")
        .named("Login bug")
        .write(ctx);
    let b = Session::new(ID_B, "/w/alpha/sub", "2026-01-11T09:00:00.000Z")
        .user("  Write\n the   release notes  ")
        .assistant("Done")
        .user("Thanks")
        .write(ctx);
    let c = Session::new(ID_C, "/w/beta", "2026-01-10T12:00:00.000Z")
        .entry(
            "model_change",
            json!({"provider": "openai", "modelId": "gpt-5"}),
        )
        .write(ctx);
    [a, b, c]
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("read transcript")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l:?}: {e}")))
        .collect()
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("test paths are UTF-8")
}

// ---------------------------------------------------------------------------------------------
// list

#[test]
fn list_is_tab_separated_newest_activity_first() {
    let ctx = TestContext::new();
    three_sessions(&ctx);
    let out = ctx.run(&["session", "list"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!(
            "{ID_B}\tWrite the release notes\t/w/alpha/sub\t2026-01-11T09:00:00.000Z\t2026-01-11T09:00:03.000Z\t3\n\
             {ID_C}\t\t/w/beta\t2026-01-10T12:00:00.000Z\t2026-01-10T12:00:01.000Z\t0\n\
             {ID_A}\tLogin bug\t/w/alpha\t2026-01-10T09:00:00.000Z\t2026-01-10T09:00:04.000Z\t2\n"
        ),
        "{out}"
    );
    assert_eq!(out.stderr(), "", "{out}");
}

#[test]
fn list_json_workspace_and_limit() {
    let ctx = TestContext::new();
    let [a, ..] = three_sessions(&ctx);
    let out = ctx.run(&["session", "list", "--json", "--workspace", "/w/alpha"]);
    out.success();
    let all = out.json();
    assert_eq!(all.as_array().expect("array").len(), 2, "{out}");
    assert_eq!(
        all[1],
        json!({
            "id": ID_A,
            "shortId": "0195aaaa-1",
            "title": "Login bug",
            "name": "Login bug",
            "workspace": "/w/alpha",
            "started": "2026-01-10T09:00:00.000Z",
            "lastActivity": "2026-01-10T09:00:04.000Z",
            "messages": 2,
            "calls": 0,
            "path": path_str(&a),
        })
    );
    assert_eq!(all[0]["id"], ID_B);
    assert_eq!(all[0]["name"], Value::Null);

    let out = ctx.run(&["session", "list", "--limit", "1"]);
    out.success();
    assert_eq!(out.stdout().lines().count(), 1, "{out}");
    assert!(out.stdout().starts_with(ID_B), "{out}");
}

#[test]
fn list_without_any_sessions_or_homes() {
    let ctx = TestContext::new();
    // Neither the runtime home nor the agent home exists.
    let out = ctx.run(&["session", "list"]);
    out.success();
    assert_eq!(out.stdout(), "", "{out}");
    out.stderr_has("No sessions in");
    let out = ctx.run(&["session", "list", "--json"]);
    out.success();
    assert_eq!(out.json(), json!([]));
    let out = ctx.run(&["session", "search", "anything"]);
    out.success();
    out.stderr_has("No matches in 0 session(s)");
    let out = ctx.run(&["session", "rename", "abc", "Title"]);
    out.failure(3).stderr_has("no session matches \"abc\"");
    assert!(!ctx.runtime.exists(), "nothing is created by reading");
}

// ---------------------------------------------------------------------------------------------
// show and ids

#[test]
fn show_prints_a_readable_transcript() {
    let ctx = TestContext::new();
    Session::new(ID_C, "/w/beta", "2026-01-10T12:00:00.000Z")
        .user("Read the config")
        .tool_call("Let me look", "read", json!({"path": "/etc/app.toml"}))
        .tool_result("read", "line 1\nline 2")
        .entry(
            "custom",
            json!({"customType": "finch.trustedDir", "data": {"path": "/w/other"}}),
        )
        .entry("brand_new_kind", json!({"whatever": [1, 2]}))
        .named("Config check")
        .write(&ctx);
    let out = ctx.run(&["session", "show", "7c3e"]);
    out.success();
    let text = out.stdout();
    for needle in [
        &format!("Session {ID_C}"),
        "Title:     Config check",
        "Workspace: /w/beta",
        "user  e0000000\n  Read the config\n",
        "assistant  e0000001\n  Let me look\n  → read {\"path\":\"/etc/app.toml\"}\n",
        "tool result read (ok)  e0000002\n  line 1\n  line 2\n",
        "trusted directory  e0000003\n  /w/other\n",
        "brand_new_kind  e0000004\n",
        "renamed  e0000005\n  \"Config check\"\n",
    ] {
        assert!(text.contains(needle), "stdout lacks {needle:?}:\n{out}");
    }
}

#[test]
fn show_json_is_the_raw_entries() {
    let ctx = TestContext::new();
    let session = Session::new(ID_C, "/w/beta", "2026-01-10T12:00:00.000Z")
        .user("hi")
        .entry("unknown_type", json!({"keep": {"me": true}}));
    session.write(&ctx);
    let out = ctx.run(&["session", "show", ID_C, "--json"]);
    out.success();
    let mut want = vec![session.header()];
    want.extend(session.entries.clone());
    assert_eq!(out.json(), Value::Array(want));
}

#[test]
fn ids_may_be_abbreviated_when_unique() {
    let ctx = TestContext::new();
    three_sessions(&ctx);
    // A unique prefix, in any case.
    ctx.run(&["session", "show", "0195AAAA-2"])
        .success()
        .stdout_has(&format!("Session {ID_B}"));
    // Two sessions share `0195aaaa`: a usage error (exit 2), both named.
    let out = ctx.run(&["session", "show", "0195aaaa"]);
    out.failure(2)
        .stderr_has("Error: \"0195aaaa\" matches 2 sessions:")
        .stderr_has(&format!(
            "  {ID_A}  started 2026-01-10T09:00:00.000Z  in /w/alpha"
        ))
        .stderr_has(&format!("  {ID_B}  started"))
        .stderr_has("hint: give more characters of the id");
    let out = ctx.run(&["session", "rename", "0195", "x", "--json"]);
    out.failure(2);
    assert_eq!(out.json()["error"]["code"], "ambiguous_id", "{out}");
    // Unknown: exit 3.
    let out = ctx.run(&["session", "show", "ffff"]);
    out.failure(3)
        .stderr_has("Error: no session matches \"ffff\"")
        .stderr_has("hint: run `finch session list`");
    let out = ctx.run(&["session", "attach", "ffff", "x", "--json"]);
    out.failure(3);
    assert_eq!(out.json()["error"]["code"], "not_found", "{out}");
}

// ---------------------------------------------------------------------------------------------
// damaged transcripts

#[test]
fn a_truncated_last_line_is_skipped_with_a_warning_and_never_rewritten() {
    let ctx = TestContext::new();
    let session = Session::new(ID_C, "/w/beta", "2026-01-10T12:00:00.000Z")
        .user("keep this apple")
        .assistant("an apple answer");
    let cut =
        r#"{"type":"message","id":"e0000009","parentId":"e0000001","timestamp":"2026-01-10T12:0"#;
    let original = format!("{}{cut}", session.text());
    let path = session.write_text(&ctx, &original);

    let out = ctx.run(&["session", "list"]);
    out.success()
        .stderr_has(&format!(
            "warning: {}:4: skipped a truncated last line",
            path.display()
        ))
        .stdout_has("keep this apple\t/w/beta");
    ctx.run(&["session", "show", "7c3e"])
        .success()
        .stdout_has("an apple answer")
        .stderr_has("skipped a truncated last line");
    ctx.run(&["session", "search", "apple"])
        .success()
        .stdout_has("keep this apple");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), original);

    // An append starts on a new line, after the cut one, and follows the last whole entry.
    ctx.run(&["session", "rename", "7c3e", "Apples"]).success();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with(&format!("{original}\n")), "{text}");
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "session_info");
    assert_eq!(last["name"], "Apples");
    assert_eq!(last["parentId"], "e0000001");
    assert!(text.ends_with("}\n"));
    // Readers now see the cut line in the middle, still skipped.
    ctx.run(&["session", "list"])
        .success()
        .stdout_has("Apples")
        .stderr_has(":4: skipped a line: not valid JSON");
}

#[test]
fn a_file_that_is_not_a_transcript_is_left_out_and_refused() {
    let ctx = TestContext::new();
    three_sessions(&ctx);
    let dir = ctx.runtime.join("pi/sessions/--w-broken--");
    std::fs::create_dir_all(&dir).unwrap();
    let junk = dir.join("2026-01-01T00-00-00-000Z_deadbeef-0000.jsonl");
    std::fs::write(&junk, "this is not json\n{\"type\":\"message\"}\n").unwrap();
    let empty = dir.join("2026-01-02T00-00-00-000Z_deadbeef-1111.jsonl");
    std::fs::write(&empty, "").unwrap();
    std::fs::write(dir.join("notes.txt"), "ignored").unwrap();

    let out = ctx.run(&["session", "list"]);
    out.success()
        .stderr_has(&format!(
            "warning: {} is not a session transcript: its first line is not a session header; left out",
            junk.display()
        ))
        .stderr_has(&format!("warning: {} is not a session transcript", empty.display()));
    assert_eq!(out.stdout().lines().count(), 3, "{out}");

    // Its id comes from the file name; showing or appending names the problem and changes nothing.
    let out = ctx.run(&["session", "show", "deadbeef-0000"]);
    out.failure(1)
        .stderr_has("is not a session transcript: its first line is not a session header");
    let out = ctx.run(&["session", "rename", "deadbeef-0000", "x", "--json"]);
    out.failure(1);
    assert_eq!(out.json()["error"]["code"], "not_a_transcript", "{out}");
    assert_eq!(
        std::fs::read_to_string(&junk).unwrap(),
        "this is not json\n{\"type\":\"message\"}\n"
    );
    assert_eq!(std::fs::read_to_string(&empty).unwrap(), "");
}

// ---------------------------------------------------------------------------------------------
// search

fn search_corpus(ctx: &TestContext) {
    Session::new(ID_A, "/w/alpha", "2026-01-10T09:00:00.000Z")
        .user("I want an apple that is red and a pear that is green")
        .assistant("Sure thing, nothing relevant here")
        .write(ctx);
    Session::new(ID_B, "/w/alpha", "2026-01-11T09:00:00.000Z")
        .user("Bake me the red apple pie we talked about")
        .tool_call(
            "Reading the recipe",
            "read_file",
            json!({"path": "/recipes/pie.md"}),
        )
        .tool_result("read_file", "Crème fraîche, flour, butter")
        .write(ctx);
    Session::new(ID_C, "/w/beta", "2026-01-12T09:00:00.000Z")
        .user("Plant a red tree")
        .write(ctx);
}

#[test]
fn search_ranks_the_exact_phrase_above_scattered_words() {
    let ctx = TestContext::new();
    search_corpus(&ctx);
    let out = ctx.run(&["session", "search", "red apple"]);
    out.success();
    let rows: Vec<Vec<String>> = out
        .stdout()
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect();
    assert_eq!(rows.len(), 3, "{out}");
    // The phrase, then both words apart, then one word.
    assert_eq!(
        rows[0][..4],
        [ID_B, "e0000000", "user", "2026-01-11T09:00:01.000Z"]
    );
    assert_eq!(rows[0][4], "Bake me the red apple pie we talked about");
    assert_eq!(rows[1][0], ID_A);
    assert_eq!(rows[2][0], ID_C);

    let out = ctx.run(&["session", "search", "red apple", "--json", "--limit", "1"]);
    out.success();
    let hits = out.json();
    assert_eq!(hits.as_array().unwrap().len(), 1);
    let hit = &hits[0];
    assert_eq!(hit["session"], ID_B);
    assert_eq!(hit["entry"], "e0000000");
    assert_eq!(hit["role"], "user");
    assert_eq!(hit["workspace"], "/w/alpha");
    assert_eq!(hit["snippet"], "Bake me the red apple pie we talked about");
    assert_eq!(hit["matches"], json!([[12, 21]]));
    assert!(hit["score"].as_f64().unwrap() > 0.0);
}

#[test]
fn search_finds_tool_names_and_folds_case_and_accents() {
    let ctx = TestContext::new();
    search_corpus(&ctx);
    let out = ctx.run(&["session", "search", "read_file"]);
    out.success();
    let roles: Vec<String> = out
        .stdout()
        .lines()
        .map(|l| l.split('\t').nth(2).unwrap_or("").to_string())
        .collect();
    assert_eq!(roles.len(), 2, "{out}");
    assert!(roles.contains(&"assistant".to_string()), "{out}");
    assert!(roles.contains(&"toolResult".to_string()), "{out}");
    // The tool's arguments are searched too: a path finds the call that took it.
    let out = ctx.run(&["session", "search", "recipes"]);
    out.success().stdout_has("read_file /recipes/pie.md");
    assert_eq!(out.stdout().lines().count(), 1, "{out}");
    ctx.run(&["session", "search", "CREME FRAICHE"])
        .success()
        .stdout_has("Crème fraîche, flour, butter");
}

#[test]
fn search_since_limits_by_entry_time() {
    let ctx = TestContext::new();
    search_corpus(&ctx);
    let out = ctx.run(&[
        "session",
        "search",
        "red",
        "--since",
        "2026-01-11T12:00:00Z",
    ]);
    out.success();
    assert_eq!(out.stdout().lines().count(), 1, "{out}");
    out.stdout_has("Plant a red tree");
    let out = ctx.run(&["session", "search", "red", "--since", "2026-01-11"]);
    assert_eq!(out.stdout().lines().count(), 2, "{out}");
    // Ages count back from the command's clock.
    let out = ctx
        .cmd()
        .env("FINCH_NOW", "2026-01-12T10:00:00Z")
        .args(["session", "search", "red", "--since", "2h"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
    ctx.run(&["session", "search", "red", "--since", "last tuesday"])
        .failure(2)
        .stderr_has("--since \"last tuesday\" is not a date, time or age");
    ctx.run(&["session", "search", "!!!"])
        .failure(2)
        .stderr_has("the query has no words to search for");
}

// ---------------------------------------------------------------------------------------------
// appends

/// Checks the fields finch gives every appended entry.
fn assert_appended(entry: &Value, parent: &Value) {
    let id = entry["id"].as_str().expect("id");
    assert!(
        id.len() == 8 && id.chars().all(|c| c.is_ascii_hexdigit()),
        "{entry}"
    );
    assert_eq!(&entry["parentId"], parent, "{entry}");
    let ts = entry["timestamp"].as_str().expect("timestamp");
    assert!(
        ts.len() == 24 && ts.ends_with('Z') && chrono::DateTime::parse_from_rfc3339(ts).is_ok(),
        "{ts}"
    );
}

#[test]
fn rename_appends_a_session_info_entry() {
    let ctx = TestContext::new();
    let [a, ..] = three_sessions(&ctx);
    let before = std::fs::read_to_string(&a).unwrap();
    let out = crate::common::Run(
        ctx.cmd()
            .env("FINCH_NOW", "2026-02-03T04:05:06.789+01:00")
            .args(["session", "rename", ID_A, "  Better title "])
            .output()
            .unwrap(),
    );
    out.success();
    assert_eq!(
        out.stdout(),
        format!("✓ Renamed session {ID_A} to \"Better title\"\n")
    );
    let after = std::fs::read_to_string(&a).unwrap();
    assert!(after.starts_with(&before), "earlier bytes never change");
    let all = lines(&a);
    let last = all.last().unwrap();
    assert_eq!(last["type"], "session_info");
    assert_eq!(last["name"], "Better title");
    assert_eq!(last["timestamp"], "2026-02-03T03:05:06.789Z");
    assert_appended(last, &all[all.len() - 2]["id"]);
    let keys: Vec<&String> = last.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["type", "id", "parentId", "timestamp", "name"]);
    ctx.run(&["session", "list"])
        .stdout_has(&format!("{ID_A}\tBetter title\t"));

    let out = ctx.run(&["session", "rename", ID_A, "Json", "--json"]);
    out.success();
    let doc = out.json();
    assert_eq!(doc["session"], ID_A);
    assert_eq!(doc["path"], path_str(&a));
    assert_eq!(doc["entry"], *lines(&a).last().unwrap());

    ctx.run(&["session", "rename", ID_A, "   "])
        .failure(1)
        .stderr_has("the title is empty");
}

#[test]
fn extend_dir_stores_the_canonical_directory() {
    let ctx = TestContext::new();
    let [.., c] = three_sessions(&ctx);
    let real = ctx.work.join("real");
    std::fs::create_dir_all(&real).unwrap();
    std::os::unix::fs::symlink(&real, ctx.work.join("link")).unwrap();
    // Relative to the working directory, through a link.
    let out = ctx.run(&["session", "extend-dir", "7c3e", "link/../link"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!("✓ Trusted {} for session {ID_C}\n", real.display())
    );
    let last = lines(&c).pop().unwrap();
    assert_eq!(last["type"], "custom");
    assert_eq!(last["customType"], "finch.trustedDir");
    assert_eq!(last["data"], json!({ "path": path_str(&real) }));

    let before = std::fs::read_to_string(&c).unwrap();
    let out = ctx.run(&["session", "extend-dir", "7c3e", "missing", "--json"]);
    out.failure(3);
    assert_eq!(out.json()["error"]["code"], "not_found");
    assert!(
        out.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no such directory"),
        "{out}"
    );
    std::fs::write(ctx.work.join("file.txt"), "x").unwrap();
    ctx.run(&["session", "extend-dir", "7c3e", "file.txt"])
        .failure(1)
        .stderr_has("file.txt is not a directory");
    assert_eq!(std::fs::read_to_string(&c).unwrap(), before);
}

#[test]
fn attach_records_path_type_and_size() {
    let ctx = TestContext::new();
    let [.., c] = three_sessions(&ctx);
    let png = ctx.work.join("shot.PNG");
    std::fs::write(&png, [0u8; 1536]).unwrap();
    let out = ctx.run(&["session", "attach", "7c3e", "shot.PNG"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!(
            "✓ Attached {} (image/png, 1.5 KiB) to session {ID_C}\n",
            png.display()
        )
    );
    let all = lines(&c);
    let last = all.last().unwrap();
    assert_eq!(last["customType"], "finch.attachment");
    assert_eq!(
        last["data"],
        json!({"path": path_str(&png), "mimeType": "image/png", "size": 1536})
    );
    assert_appended(last, &all[all.len() - 2]["id"]);

    // Exactly 20 MiB is allowed; one byte more is not (sparse files, nothing is read).
    let limit = ctx.work.join("limit.bin");
    std::fs::File::create(&limit)
        .unwrap()
        .set_len(20 * 1024 * 1024)
        .unwrap();
    ctx.run(&["session", "attach", "7c3e", "limit.bin"])
        .success()
        .stdout_has("application/octet-stream, 20.0 MiB");
    let big = ctx.work.join("big.mov");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(20 * 1024 * 1024 + 1)
        .unwrap();
    let before = std::fs::read_to_string(&c).unwrap();
    let out = ctx.run(&["session", "attach", "7c3e", "big.mov", "--json"]);
    out.failure(1);
    assert_eq!(out.json()["error"]["code"], "too_large", "{out}");
    ctx.run(&["session", "attach", "7c3e", "big.mov"])
        .failure(1)
        .stderr_has("big.mov is 20971521 bytes; attachments are limited to 20 MiB");
    ctx.run(&["session", "attach", "7c3e", "nope.txt"])
        .failure(3)
        .stderr_has("no such file:");
    ctx.run(&["session", "attach", "7c3e", "."])
        .failure(1)
        .stderr_has("is not a regular file");
    assert_eq!(std::fs::read_to_string(&c).unwrap(), before);
}

#[test]
fn an_append_waits_for_the_lock_and_gives_up_with_exit_5() {
    let ctx = TestContext::new();
    let [.., c] = three_sessions(&ctx);
    ctx.write_config("[state]\nlock_timeout = \"300ms\"\n");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(c.parent().unwrap().join(".lock"))
        .unwrap();
    lock.lock().unwrap();
    let before = std::fs::read_to_string(&c).unwrap();
    ctx.run(&["session", "rename", "7c3e", "x"])
        .failure(5)
        .stderr_has("another finch is changing the session transcript");
    assert_eq!(std::fs::read_to_string(&c).unwrap(), before);
    lock.unlock().unwrap();
    ctx.run(&["session", "rename", "7c3e", "x"]).success();
}

#[test]
fn eight_processes_appending_at_once_keep_every_line_whole() {
    const PROCESSES: usize = 8;
    const EACH: usize = 25;
    let ctx = TestContext::new();
    let session = Session::new(ID_C, "/w/beta", "2026-01-10T12:00:00.000Z")
        .user("start")
        .assistant("ok");
    let path = session.write(&ctx);
    for p in 0..PROCESSES {
        std::fs::write(ctx.work.join(format!("file-{p}.txt")), "x".repeat(p + 1)).unwrap();
    }
    std::thread::scope(|scope| {
        for p in 0..PROCESSES {
            let ctx = &ctx;
            scope.spawn(move || {
                for i in 0..EACH {
                    let out = if i % 2 == 0 {
                        ctx.run(&["session", "rename", "7c3e", &format!("title {p}-{i}")])
                    } else {
                        ctx.run(&["session", "attach", "7c3e", &format!("file-{p}.txt")])
                    };
                    out.success();
                }
            });
        }
    });
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.ends_with('\n'));
    let all = lines(&path);
    assert_eq!(all.len(), 3 + PROCESSES * EACH);
    // Every entry once; each appended entry follows the one before it in the file.
    let mut ids = std::collections::HashSet::new();
    for (n, entry) in all.iter().enumerate().skip(1) {
        let id = entry["id"].as_str().unwrap();
        assert!(ids.insert(id.to_string()), "duplicate id {id}");
        if n >= 3 {
            assert_appended(entry, &all[n - 1]["id"]);
        }
    }
    for p in 0..PROCESSES {
        for i in (0..EACH).step_by(2) {
            let title = format!("title {p}-{i}");
            let found = all.iter().filter(|e| e["name"] == title.as_str()).count();
            assert_eq!(found, 1, "{title}");
        }
        let attached = all
            .iter()
            .filter(|e| e["data"]["size"] == p + 1 && e["customType"] == "finch.attachment")
            .count();
        assert_eq!(attached, EACH / 2, "process {p}");
    }
}

/// `tool call` and `run --jsonl` sessions say what they were, in `session list`, and `session
/// search` finds a call by its tool and its arguments.
#[test]
fn sessions_of_tool_call_and_jsonl_get_titles_and_are_found_by_their_arguments() {
    let ctx = TestContext::new();
    ctx.call("ToolSearch", json!({"query": "zebracorn pictures"}));
    let out = ctx
        .cmd()
        .args(["run", "--jsonl"])
        .write_stdin(
            "{\"id\": 1, \"tool\": \"ToolSearch\", \"arguments\": {\"query\": \"quokka\"}}\n",
        )
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let listed = ctx.run(&["--json", "session", "list"]).success().json();
    let mut titles: Vec<String> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["title"].as_str().unwrap_or_default().to_string())
        .collect();
    titles.sort();
    // The day is the local date of the real clock.
    for t in &mut titles {
        if t.starts_with("tool calls on 20") && t.len() == "tool calls on 2026-12-01".len() {
            *t = "tool calls on <day>".into();
        }
    }
    assert_eq!(
        titles,
        [
            "finch run --jsonl: ToolSearch {\"query\":\"quokka\"}",
            "tool calls on <day>",
        ],
        "{listed}"
    );
    // Found by an argument's words and by the tool's name.
    let found = ctx
        .run(&["--json", "session", "search", "zebracorn"])
        .success()
        .json();
    assert_eq!(found.as_array().map_or(0, Vec::len), 1, "{found}");
    let found = ctx
        .run(&["--json", "session", "search", "ToolSearch"])
        .success()
        .json();
    assert!(found.as_array().map_or(0, Vec::len) >= 2, "{found}");
    // A continued session keeps its title.
    let id = listed[0]["id"].as_str().unwrap().to_string();
    ctx.run(&[
        "tool",
        "call",
        "ToolSearch",
        "{\"query\":\"x\"}",
        "--session",
        &id,
    ])
    .success();
    let again = ctx.run(&["--json", "session", "list"]).success().json();
    assert_eq!(again.as_array().unwrap().len(), 2, "{again}");
    let titles_again: Vec<&Value> = again
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["title"])
        .collect();
    assert!(
        !titles_again
            .iter()
            .any(|t| t.as_str().unwrap_or("").contains("\"x\"")),
        "{again}"
    );
}

/// `finch tool call` at `now` (RFC 3339) with `TZ=UTC`, in `cwd`, without `--json`.
fn call_at(ctx: &TestContext, now: &str, cwd: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = ctx.cmd();
    cmd.env("FINCH_NOW", now)
        .env("TZ", "UTC")
        .current_dir(cwd)
        .args(["tool", "call"])
        .args(args);
    cmd.output().expect("finch runs")
}

/// Issue 31, item 8: a refused call and a call of a tool that is not there leave no session
/// behind — not a new transcript, and no record in the day's session either.
#[test]
fn refused_and_unknown_tool_calls_leave_no_session() {
    let ctx = TestContext::new();
    let now = "2026-12-01T10:00:00Z";
    let unknown = call_at(&ctx, now, &ctx.work, &["NoSuchTool", "x=1"]);
    assert_eq!(unknown.status.code(), Some(3), "{unknown:?}");
    let refused = call_at(&ctx, now, &ctx.work, &["Bash", "command=rm -rf gone"]);
    assert_eq!(refused.status.code(), Some(4), "{refused:?}");
    assert_eq!(ctx.transcripts(), Vec::<PathBuf>::new());
    let listed = ctx.run(&["session", "list"]);
    listed.success();
    assert_eq!(listed.stdout(), "");

    // A call that ran starts the day's session; a refused one adds nothing to it.
    let ran = call_at(&ctx, now, &ctx.work, &["ToolSearch", "query=read"]);
    assert!(ran.status.success(), "{ran:?}");
    call_at(&ctx, now, &ctx.work, &["Bash", "command=rm -rf gone"]);
    call_at(&ctx, now, &ctx.work, &["NoSuchTool"]);
    let files = ctx.transcripts();
    assert_eq!(files.len(), 1, "{files:?}");
    let tools: Vec<Value> = ctx
        .tool_calls(&files[0])
        .iter()
        .map(|c| c["tool"].clone())
        .collect();
    assert_eq!(tools, [json!("ToolSearch")]);

    // With --session the person chose the session: a refused call is recorded in it.
    let id = serde_json::from_str::<Value>(
        std::fs::read_to_string(&files[0])
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    call_at(
        &ctx,
        now,
        &ctx.work,
        &["Bash", "command=rm -rf gone", "--session", &id],
    );
    assert_eq!(ctx.tool_calls(&files[0]).len(), 2);
}

/// Issue 31, item 8: the `tool call`s of one day in one directory are one session, titled with
/// the day; another directory, another day, or a session renamed or holding a conversation
/// starts a new one.
#[test]
fn tool_calls_of_one_day_and_directory_share_one_session() {
    let ctx = TestContext::new();
    let other = ctx.base().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let day1 = ["2026-12-01T08:00:00Z", "2026-12-01T23:59:00Z"];
    for now in day1 {
        for query in ["read", "write"] {
            let out = call_at(
                &ctx,
                now,
                &ctx.work,
                &["ToolSearch", &format!("query={query}")],
            );
            assert!(out.status.success(), "{out:?}");
        }
    }
    let out = call_at(&ctx, day1[0], &other, &["ToolSearch", "query=grep"]);
    assert!(out.status.success(), "{out:?}");
    let files = ctx.transcripts();
    assert_eq!(files.len(), 2, "{files:?}");
    let listed = ctx.run(&["--json", "session", "list"]).success().json();
    let rows: Vec<(String, String, u64)> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["title"].as_str().unwrap().to_string(),
                s["workspace"].as_str().unwrap().to_string(),
                s["calls"].as_u64().unwrap(),
            )
        })
        .collect();
    let work = ctx.work.to_string_lossy().to_string();
    let other_dir = other.to_string_lossy().to_string();
    assert_eq!(
        rows,
        [
            ("tool calls on 2026-12-01".to_string(), work.clone(), 4),
            ("tool calls on 2026-12-01".to_string(), other_dir, 1),
        ],
        "{listed}"
    );

    // The next day starts another.
    call_at(
        &ctx,
        "2026-12-02T00:01:00Z",
        &ctx.work,
        &["ToolSearch", "query=a"],
    );
    assert_eq!(ctx.transcripts().len(), 3);
    // A renamed session is the person's own: the next call starts another.
    let id = listed[0]["id"].as_str().unwrap();
    ctx.run(&["session", "rename", id, "Mine"]).success();
    call_at(
        &ctx,
        "2026-12-01T23:59:30Z",
        &ctx.work,
        &["ToolSearch", "query=b"],
    );
    assert_eq!(ctx.transcripts().len(), 4);
}

/// Issue 31, item 8: `session list` counts the calls finch recorded (it said 0 for every
/// session finch made, whose calls are `finch.toolCall` records, not pi messages).
#[test]
fn session_list_counts_recorded_calls_as_messages() {
    let ctx = TestContext::new();
    for query in ["read", "write", "grep"] {
        call_at(
            &ctx,
            "2026-12-01T08:00:00Z",
            &ctx.work,
            &["ToolSearch", &format!("query={query}")],
        );
    }
    let listed = ctx.run(&["session", "list"]);
    listed.success();
    let line = listed.stdout();
    let fields: Vec<&str> = line.trim_end().split('\t').collect();
    assert_eq!(fields[1], "tool calls on 2026-12-01", "{line}");
    assert_eq!(fields.last(), Some(&"3"), "{line}");
    let json = ctx.run(&["--json", "session", "list"]).success().json();
    assert_eq!(json[0]["messages"], 3);
    assert_eq!(json[0]["calls"], 3);
}
