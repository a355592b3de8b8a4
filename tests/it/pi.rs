//! finch with pi, the agent core (`@mariozechner/pi-coding-agent`, pinned in
//! scripts/install-test-peers, installed into `<repo>/.test-peers/pi/`), run for real against a
//! scripted model: `tests/peers/scripted_model.py`, a loopback server speaking the OpenAI chat
//! completions API that answers with the tool calls a test scripts, configured in pi's own
//! `models.json` as a custom provider. No real model is involved.
//!
//! Shown here: pi resumes a transcript finch made and the file stays one tree with one header;
//! finch's appends while pi runs are side entries; a scheduled pi run writes the session finch
//! records in the history and lists; finch's pi extension (`integrations/pi/finch.ts`) blocks a
//! destructive Bash and an out-of-workspace read and lets an in-workspace read run; pi's tool
//! names get the same verdicts as finch's.
//!
//! Every test returns early, saying so on stderr, when pi is not installed (set `FINCH_TEST_PI`
//! to use another pi); scripts/test installs it, so in CI they run.

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::common::model::ScriptedServer;
use crate::common::{Run, TestContext};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// pi's executable, or `None` (with the reason on stderr) when it is not installed.
fn pi_bin() -> Option<PathBuf> {
    let path = std::env::var_os("FINCH_TEST_PI")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join(".test-peers/pi/node_modules/.bin/pi"));
    if path.is_file() {
        return Some(path);
    }
    eprintln!(
        "skipped: pi is not installed at {}; run scripts/install-test-peers (scripts/test does)",
        path.display()
    );
    None
}

macro_rules! pi_or_skip {
    () => {
        match pi_bin() {
            Some(pi) => pi,
            None => return,
        }
    };
}

/// The scripted model server, stopped when dropped.
struct Model(ScriptedServer);

impl Model {
    fn start(ctx: &TestContext, script: Value) -> Model {
        Model(ScriptedServer::start(
            ctx,
            "scripted_model.py",
            &script,
            "PORT ",
        ))
    }

    /// Every request pi sent, in order.
    fn requests(&self) -> Vec<Value> {
        self.0.requests()
    }
}

/// pi's config directory for a test: `models.json` with the scripted model as provider
/// `scripted`, and `settings.json` loading finch's extension when `extension` is set.
fn agent_dir(ctx: &TestContext, model: &Model, extension: bool) -> PathBuf {
    let dir = ctx.base().join("pi-agent");
    std::fs::create_dir_all(&dir).unwrap();
    let models = json!({"providers": {"scripted": {
        "baseUrl": format!("http://127.0.0.1:{}/v1", model.0.port),
        "api": "openai-completions",
        "apiKey": "not-needed",
        "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
        "models": [{"id": "scripted", "reasoning": false}],
    }}});
    std::fs::write(dir.join("models.json"), models.to_string()).unwrap();
    let mut settings = json!({});
    if extension {
        settings["extensions"] = json!([repo().join("integrations/pi/finch.ts")]);
    }
    std::fs::write(dir.join("settings.json"), settings.to_string()).unwrap();
    dir
}

/// The environment pi needs in a test, on top of the sealed one: its config, no network.
fn pi_env(cmd: &mut Command, agent: &Path) {
    cmd.env("PI_CODING_AGENT_DIR", agent)
        .env("PI_OFFLINE", "1")
        .env("PI_SKIP_VERSION_CHECK", "1")
        .env("FINCH_BIN", env!("CARGO_BIN_EXE_finch"));
}

/// `pi args…` in the work directory with the sealed environment.
fn pi(ctx: &TestContext, bin: &Path, agent: &Path, env: &[(&str, &Path)], args: &[&str]) -> Run {
    let mut cmd = Command::new(bin);
    cmd.env_clear()
        .env("HOME", &ctx.home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("FINCH_RUNTIME_HOME", &ctx.runtime)
        .env("FINCH_AGENT_HOME", &ctx.agent)
        .env("NO_COLOR", "1")
        .current_dir(&ctx.work)
        .stdin(Stdio::null());
    pi_env(&mut cmd, agent);
    for (k, v) in env {
        cmd.env(k, v);
    }
    Run(cmd.args(args).output().expect("pi runs"))
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// One header, first; unique ids; one root; every entry's parent written before it.
#[track_caller]
fn assert_one_tree(entries: &[Value]) {
    let headers = entries.iter().filter(|e| e["type"] == "session").count();
    assert_eq!(headers, 1, "one header: {entries:#?}");
    assert_eq!(entries[0]["type"], "session");
    let mut seen = HashSet::new();
    let mut roots = 0;
    for e in &entries[1..] {
        let id = e["id"].as_str().expect("an id");
        match e["parentId"].as_str() {
            None => roots += 1,
            Some(parent) => assert!(seen.contains(parent), "parent of {e} comes first"),
        }
        assert!(seen.insert(id.to_string()), "ids are unique: {id}");
    }
    assert_eq!(roots, 1, "one root: {entries:#?}");
}

fn custom<'a>(entries: &'a [Value], kind: &str) -> Vec<&'a Value> {
    entries.iter().filter(|e| e["customType"] == kind).collect()
}

/// `finch tool call Read a.txt` in acceptCalls mode: a transcript finch made; its path and id.
fn finch_session(ctx: &TestContext) -> (PathBuf, String) {
    std::fs::write(ctx.work.join("a.txt"), "alpha text\n").unwrap();
    ctx.run(&[
        "tool",
        "call",
        "Read",
        r#"{"file_path":"a.txt"}"#,
        "--mode",
        "acceptCalls",
    ])
    .success();
    let path = ctx.transcripts().pop().expect("a transcript");
    let id = lines(&path)[0]["id"].as_str().unwrap().to_string();
    (path, id)
}

fn session_summary(ctx: &TestContext, id: &str) -> Value {
    let listed = ctx.run(&["--json", "session", "list"]);
    listed.success();
    listed
        .json()
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("{id} is listed: {listed}"))
        .clone()
}

#[test]
fn pi_resumes_a_finch_transcript_and_it_stays_one_tree_with_one_header() {
    let bin = pi_or_skip!();
    let ctx = TestContext::new();
    let (path, id) = finch_session(&ctx);
    ctx.run(&["session", "rename", &id, "From finch"]).success();
    let finch_lines = lines(&path);
    assert_eq!(
        finch_lines.len(),
        5,
        "header, opening, Read, the title tool call gave it, rename"
    );

    let model = Model::start(
        &ctx,
        json!([{"tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}]},
               {"text": "pi read it"}]),
    );
    let agent = agent_dir(&ctx, &model, false);
    let out = pi(
        &ctx,
        &bin,
        &agent,
        &[],
        &[
            "--model",
            "scripted/scripted",
            "--session",
            path.to_str().unwrap(),
            "-p",
            "read a.txt again",
        ],
    );
    out.success();
    assert!(out.stdout().contains("pi read it"), "{out}");

    let all = lines(&path);
    assert_one_tree(&all);
    // finch's lines are still the first lines, unchanged, and pi continued from the last one.
    assert_eq!(all[..5], finch_lines[..]);
    assert_eq!(all[5]["parentId"], finch_lines[4]["id"]);
    assert_eq!(custom(&all, "finch.toolCall").len(), 1, "the Read once");
    let roles: Vec<&str> = all
        .iter()
        .filter_map(|e| e["message"]["role"].as_str())
        .collect();
    assert_eq!(
        roles,
        ["assistant", "user", "assistant", "toolResult", "assistant"],
        "the opening, then pi's turn"
    );
    // The opening never reached the model.
    let first = &model.requests()[0];
    let sent: Vec<&str> = first["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(sent, ["system", "user"], "{first}");

    let summary = session_summary(&ctx, &id);
    assert_eq!(summary["title"], "From finch");
    assert_eq!(
        summary["messages"], 5,
        "pi's messages and finch's record of the Read, not the opening"
    );
    assert_eq!(summary["calls"], 1);
    let shown = ctx.run(&["session", "show", &id]);
    shown.success();
    assert_eq!(shown.stdout().matches("Read {").count(), 1, "{shown}");
    assert!(shown.stdout().contains("pi read it"), "{shown}");
}

/// What the opening is for: pi 0.73 writes a transcript without an assistant message again,
/// header included, on its first assistant message. If pi stops doing that, this test says so.
#[test]
fn without_the_opening_pi_writes_the_transcript_twice() {
    let bin = pi_or_skip!();
    let ctx = TestContext::new();
    let (path, _) = finch_session(&ctx);
    let mut finch_lines = lines(&path);
    finch_lines.remove(1);
    finch_lines[1]["parentId"] = Value::Null;
    let text: String = finch_lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();

    let model = Model::start(&ctx, json!([{"text": "hello"}]));
    let agent = agent_dir(&ctx, &model, false);
    let args = [
        "--model",
        "scripted/scripted",
        "--session",
        path.to_str().unwrap(),
        "-p",
        "hi",
    ];
    pi(&ctx, &bin, &agent, &[], &args).success();
    let all = lines(&path);
    let headers = all.iter().filter(|e| e["type"] == "session").count();
    assert_eq!(headers, 2, "pi 0.73 duplicates such a transcript: {all:#?}");
}

#[test]
fn finch_appends_while_pi_runs_are_side_entries_off_pis_branch() {
    let bin = pi_or_skip!();
    let ctx = TestContext::new();
    let (path, id) = finch_session(&ctx);
    let rename = format!(
        "'{}' session rename {id} 'Renamed while pi ran'",
        env!("CARGO_BIN_EXE_finch")
    );
    let model = Model::start(
        &ctx,
        json!([{"tool_calls": [{"name": "bash", "arguments": {"command": rename}}]},
               {"text": "renamed"}]),
    );
    let agent = agent_dir(&ctx, &model, false);
    let args = [
        "--model",
        "scripted/scripted",
        "--session",
        path.to_str().unwrap(),
        "-p",
        "rename the session",
    ];
    pi(&ctx, &bin, &agent, &[], &args).success();

    let all = lines(&path);
    assert_one_tree(&all);
    let info = all
        .iter()
        .find(|e| e["type"] == "session_info" && e["name"] == "Renamed while pi ran")
        .expect("finch's rename");
    let call = all
        .iter()
        .find(|e| e["message"]["content"][0]["type"] == "toolCall")
        .expect("pi's bash call");
    let result = all
        .iter()
        .find(|e| e["message"]["role"] == "toolResult")
        .expect("pi's tool result");
    // finch linked its entry to the last line in the file, pi's call; pi, which does not read
    // the file again, linked its result there too: finch's entry is a side entry.
    assert_eq!(info["parentId"], call["id"]);
    assert_eq!(result["parentId"], call["id"]);
    assert_eq!(
        session_summary(&ctx, &id)["title"],
        "Renamed while pi ran",
        "the last name wins wherever it sits in the tree"
    );
}

/// `finch --json schedule …` with pi's environment.
fn finch_with_pi(ctx: &TestContext, agent: &Path, args: &[&str]) -> Run {
    let mut cmd = ctx.std_cmd();
    pi_env(&mut cmd, agent);
    Run(cmd.args(args).output().expect("finch runs"))
}

#[test]
fn a_scheduled_pi_run_writes_the_session_finch_lists_and_the_history_names() {
    let bin = pi_or_skip!();
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("a.txt"), "alpha text\n").unwrap();
    let model = Model::start(
        &ctx,
        json!([{"tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}]},
               {"text": "first run done"},
               {"text": "second run done"}]),
    );
    let agent = agent_dir(&ctx, &model, false);
    let bin = bin.display().to_string();
    let work = ctx.work.display().to_string();
    // The command docs/daemon.md documents, and one without {session}: the runner gives pi
    // `--session <id>` itself.
    for (i, command) in [
        format!(
            "[{bin:?}, \"--model\", \"{{model}}\", \"--thinking\", \"{{effort}}\", \"--session\", \"{{session}}\", \"-p\", \"{{prompt}}\"]"
        ),
        format!("[{bin:?}, \"--model\", \"{{model}}\", \"-p\", \"{{prompt}}\"]"),
    ]
    .iter()
    .enumerate()
    {
        ctx.write_config(&format!("[agent]\ncommand = {command}\n"));
        let created = finch_with_pi(
            &ctx,
            &agent,
            &[
                "--json", "schedule", "create", "--name", "Read", "--prompt", "read a.txt",
                "--daily", "09:00", "--cwd", &work, "--model", "scripted/scripted", "--effort",
                "low",
            ],
        );
        created.success();
        let task = created.json()["id"].as_str().unwrap().to_string();
        finch_with_pi(&ctx, &agent, &["schedule", "run", &task]).success();

        let history = finch_with_pi(&ctx, &agent, &["--json", "schedule", "history", &task]);
        history.success();
        let record = history.json()[0].clone();
        assert_eq!(record["status"], "succeeded", "{record:#}");
        let session = record["sessionId"].as_str().expect("a session id").to_string();
        let file = PathBuf::from(record["sessionFile"].as_str().expect("the session file"));
        assert!(file.starts_with(ctx.runtime.join("pi/sessions")), "{}", file.display());

        let all = lines(&file);
        assert_one_tree(&all);
        assert_eq!(all[0]["id"], session, "the id pi wrote is the one recorded");
        let summary = session_summary(&ctx, &session);
        assert_eq!(summary["path"], file.display().to_string());
        let messages = if i == 0 { 4 } else { 2 };
        assert_eq!(summary["messages"], messages, "{summary:#}");
        let shown = finch_with_pi(&ctx, &agent, &["session", "show", &session]);
        shown.success();
        let said = if i == 0 { "first run done" } else { "second run done" };
        assert!(shown.stdout().contains(said), "{shown}");
    }
    assert_eq!(model.requests().len(), 3);
}

#[test]
fn a_prompt_pi_would_misread_is_refused_before_pi_starts() {
    let bin = pi_or_skip!();
    let ctx = TestContext::new();
    let model = Model::start(&ctx, json!([]));
    let agent = agent_dir(&ctx, &model, false);
    let pi_config = format!(
        "[agent]\ncommand = [{:?}, \"--model\", \"scripted/scripted\", \"-p\", \"{{prompt}}\"]\n",
        bin.display().to_string()
    );
    for (prompt, what) in [
        ("-v tell me", "an option"),
        ("@notes.md", "a file to attach"),
    ] {
        let prompt = format!("--prompt={prompt}");
        let create = [
            "--json", "schedule", "create", "--name", "N", &prompt, "--hourly",
        ];
        // With pi configured, such a prompt is not even stored.
        ctx.write_config(&pi_config);
        let tasks = ctx.runtime.join("automation/tasks.json");
        let before = std::fs::read(&tasks).ok();
        let refused = finch_with_pi(&ctx, &agent, &create);
        refused.failure(2);
        let error = &refused.json()["error"];
        assert_eq!(error["code"], "invalid_task", "{refused}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains("the agent command is pi, and the prompt starts with"),
            "{refused}"
        );
        assert!(
            message.contains(&format!("which pi reads as {what}")),
            "{refused}"
        );
        assert_eq!(std::fs::read(&tasks).ok(), before, "nothing stored");
        // A task stored while another agent was configured is refused when it runs.
        ctx.write_config("[agent]\ncommand = [\"true\"]\n");
        let created = finch_with_pi(&ctx, &agent, &create);
        created.success();
        let task = created.json()["id"].as_str().unwrap().to_string();
        ctx.write_config(&pi_config);
        let run = finch_with_pi(&ctx, &agent, &["schedule", "run", &task]);
        run.failure(1);
        let history = finch_with_pi(&ctx, &agent, &["--json", "schedule", "history", &task]);
        let record = history.json()[0].clone();
        assert_eq!(record["status"], "failed");
        assert_eq!(record["sessionId"], Value::Null);
        let note = record["note"].as_str().unwrap();
        assert!(
            note.contains(&format!("which pi reads as {what}")),
            "{note}"
        );
        assert!(run.stderr().contains("which pi reads as"), "{run}");
    }
    assert!(model.requests().is_empty(), "pi never started");
    assert!(ctx.transcripts().is_empty(), "no session was made");
}

#[test]
fn the_extension_blocks_destructive_bash_and_outside_reads_and_lets_inside_reads_run() {
    let bin = pi_or_skip!();
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("inside.txt"), "inside text\n").unwrap();
    std::fs::create_dir_all(ctx.work.join("victim")).unwrap();
    std::fs::write(ctx.work.join("victim/keep.txt"), "keep\n").unwrap();
    std::fs::write(ctx.work.join("notes.secret"), "denied text\n").unwrap();
    std::fs::create_dir_all(ctx.work.join(".finch")).unwrap();
    std::fs::write(
        ctx.work.join(".finch/permissions.json"),
        r#"{"deny":[{"toolName":"Read","key":"*.secret"}]}"#,
    )
    .unwrap();
    let outside = ctx.base().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "outside text\n").unwrap();
    let outside_file = outside.join("secret.txt").display().to_string();

    let model = Model::start(
        &ctx,
        json!([{"tool_calls": [
                  {"name": "bash", "arguments": {"command": "rm -rf victim"}},
                  {"name": "read", "arguments": {"path": outside_file}},
                  {"name": "read", "arguments": {"path": "inside.txt"}},
                  {"name": "read", "arguments": {"path": "notes.secret"}}]},
               {"text": "all done"}]),
    );
    let agent = agent_dir(&ctx, &model, true);
    let sessions = ctx.runtime.join("pi/sessions/pi-run");
    let mode = Path::new("acceptCalls");
    let out = pi(
        &ctx,
        &bin,
        &agent,
        &[
            ("FINCH_PERMISSION_MODE", mode),
            ("PI_CODING_AGENT_SESSION_DIR", &sessions),
        ],
        &["--model", "scripted/scripted", "-p", "clean up"],
    );
    out.success();
    assert!(
        ctx.work.join("victim/keep.txt").is_file(),
        "rm -rf was blocked"
    );

    // What pi sent back to the model for each call.
    let second = &model.requests()[1];
    let results: Vec<String> = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .collect();
    assert_eq!(results.len(), 4, "{second:#}");
    assert!(results[0].contains("destructive"), "{}", results[0]);
    assert!(results[0].contains("nobody to ask"), "{}", results[0]);
    assert!(!results[1].contains("outside text"), "{}", results[1]);
    assert!(
        results[1].contains("outside the working directory"),
        "{}",
        results[1]
    );
    assert!(results[2].contains("inside text"), "{}", results[2]);
    assert!(results[3].contains("finch denied"), "{}", results[3]);
    assert!(!results[3].contains("denied text"), "{}", results[3]);

    // Each verdict is in the session, on pi's branch, and finch reads the session.
    let transcript = crate::common::TestContext::transcripts(&ctx)
        .pop()
        .expect("pi's transcript in finch's sessions directory");
    let all = lines(&transcript);
    assert_one_tree(&all);
    let verdicts: Vec<(String, String)> = custom(&all, "finch.verdict")
        .iter()
        .map(|e| {
            (
                e["data"]["decision"].as_str().unwrap().to_string(),
                e["data"]["decidedBy"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            ("ask".to_string(), "cardRequired".to_string()),
            ("ask".to_string(), "outsideWorkspace".to_string()),
            ("allow".to_string(), "fastLane".to_string()),
            ("deny".to_string(), "denyRule".to_string()),
        ]
    );
    let id = all[0]["id"].as_str().unwrap();
    let shown = ctx.run(&["session", "show", id]);
    shown.success();
    assert_eq!(shown.stdout().matches("verdict").count(), 4, "{shown}");
}

/// The extension runs pi's fast-lane `bash` inside finch's read-only sandbox (issue 27): a
/// read-only-looking command that reads a key under `$HOME`, prints a secret of pi's
/// environment, or writes through `sort --compress-program` gets nothing; an everyday one
/// answers as before.
#[test]
fn the_extension_runs_fast_lane_bash_inside_the_wall() {
    let bin = pi_or_skip!();
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("inside.txt"), "inside text\n").unwrap();
    std::fs::create_dir_all(ctx.home.join(".ssh")).unwrap();
    std::fs::write(ctx.home.join(".ssh/id_test"), "PRIVATE-KEY-TEXT\n").unwrap();
    let pwn = ctx.work.join("pwn-sort");
    let model = Model::start(
        &ctx,
        json!([{"tool_calls": [
                  {"name": "bash", "arguments": {"command": "cat inside.txt"}},
                  {"name": "bash", "arguments": {"command": "cat $HOME/.ssh/id_test"}},
                  {"name": "bash", "arguments": {"command": "printenv API_KEY"}},
                  {"name": "bash", "arguments": {"command": format!(
                      "seq -f 'touch {};#%0900g' 1 400 | sort --co=sh -S 64K", pwn.display())}}]},
               {"text": "all done"}]),
    );
    let agent = agent_dir(&ctx, &model, true);
    let out = pi(
        &ctx,
        &bin,
        &agent,
        &[
            ("FINCH_PERMISSION_MODE", Path::new("acceptCalls")),
            ("API_KEY", Path::new("s3cret-pi-key")),
        ],
        &["--model", "scripted/scripted", "-p", "look around"],
    );
    out.success();
    let second = &model.requests()[1];
    let results: Vec<String> = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .collect();
    assert_eq!(results.len(), 4, "{second:#}");
    assert!(results[0].contains("inside text"), "{}", results[0]);
    assert!(!results[1].contains("PRIVATE-KEY-TEXT"), "{}", results[1]);
    assert!(!results[2].contains("s3cret-pi-key"), "{}", results[2]);
    assert!(
        !pwn.exists(),
        "sort's compress program wrote through pi's bash"
    );
}

/// `finch --json policy check args…`.
fn verdict(ctx: &TestContext, args: &[&str]) -> Value {
    let mut all = vec!["--json", "policy", "check"];
    all.extend_from_slice(args);
    let out = ctx.run(&all);
    out.success();
    out.json()
}

#[test]
fn pi_names_get_the_same_verdicts_as_finch_names() {
    // No pi needed: this is finch's side of the extension.
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("a.txt"), "a\n").unwrap();
    let cases: &[(&str, &str, Value, &str, Value, &str, &str)] = &[
        (
            "acceptCalls",
            "read",
            json!({"path": "a.txt"}),
            "Read",
            json!({"file_path": "a.txt"}),
            "allow",
            "fastLane",
        ),
        (
            "ask",
            "read",
            json!({"path": "a.txt", "offset": 1}),
            "Read",
            json!({"file_path": "a.txt", "offset": 1}),
            "ask",
            "askMode",
        ),
        (
            "acceptCalls",
            "read",
            json!({"path": "/etc/hostname"}),
            "Read",
            json!({"file_path": "/etc/hostname"}),
            "ask",
            "outsideWorkspace",
        ),
        (
            "acceptCalls",
            "bash",
            json!({"command": "ls -la", "timeout": 5}),
            "Bash",
            json!({"command": "ls -la", "timeout": 5000}),
            "allow",
            "fastLane",
        ),
        (
            "acceptCalls",
            "bash",
            json!({"command": "rm -rf victim"}),
            "Bash",
            json!({"command": "rm -rf victim"}),
            "ask",
            "cardRequired",
        ),
        (
            "acceptCalls",
            "edit",
            json!({"path": "a.txt", "edits": [{"oldText": "a", "newText": "b"}]}),
            "Edit",
            json!({"file_path": "a.txt", "old_string": "a", "new_string": "b"}),
            "allow",
            "fastLane",
        ),
        (
            "acceptCalls",
            "write",
            json!({"path": ".git/config", "content": "x"}),
            "Write",
            json!({"file_path": ".git/config", "content": "x"}),
            "ask",
            "protectedPath",
        ),
        (
            "acceptCalls",
            "grep",
            json!({"pattern": "x", "path": "/etc"}),
            "Grep",
            json!({"pattern": "x", "path": "/etc"}),
            "ask",
            "outsideWorkspace",
        ),
        (
            "acceptCalls",
            "find",
            json!({"pattern": "*.txt"}),
            "Glob",
            json!({"pattern": "*.txt"}),
            "allow",
            "fastLane",
        ),
        (
            "acceptCalls",
            "ls",
            json!({"path": "/"}),
            "Glob",
            json!({"pattern": "*", "path": "/"}),
            "ask",
            "outsideWorkspace",
        ),
        (
            "acceptCalls",
            "ls",
            json!({}),
            "Glob",
            json!({"pattern": "*"}),
            "allow",
            "fastLane",
        ),
    ];
    for (mode, pi_tool, pi_args, finch_tool, finch_args, decision, by) in cases {
        let theirs = verdict(
            &ctx,
            &[
                "--agent",
                "pi",
                "--confine",
                pi_tool,
                &pi_args.to_string(),
                "--mode",
                mode,
            ],
        );
        let ours = verdict(&ctx, &[finch_tool, &finch_args.to_string(), "--mode", mode]);
        for key in [
            "decision",
            "decidedBy",
            "risk",
            "sessionAllowOffered",
            "layer",
        ] {
            assert_eq!(
                theirs[key], ours[key],
                "{pi_tool} {pi_args} ({key}): {theirs:#} vs {ours:#}"
            );
        }
        assert_eq!(theirs["decision"], *decision, "{pi_tool} {pi_args}");
        assert_eq!(theirs["decidedBy"], *by, "{pi_tool} {pi_args}");
        assert_eq!(theirs["tool"], *pi_tool);
        assert_eq!(theirs["finchTool"], *finch_tool);
    }
    // pi runs its own bash: only a caller that confines it (`--confine`, as the extension
    // does) gets the fast lane, and is told to run it read-only.
    let bash = json!({"command": "ls -la"}).to_string();
    let confined = verdict(
        &ctx,
        &[
            "--agent",
            "pi",
            "--confine",
            "bash",
            &bash,
            "--mode",
            "acceptCalls",
        ],
    );
    assert_eq!(confined["sandbox"], "read-only", "{confined:#}");
    let unconfined = verdict(
        &ctx,
        &["--agent", "pi", "bash", &bash, "--mode", "acceptCalls"],
    );
    assert_eq!(unconfined["decision"], "ask", "{unconfined:#}");
    assert_eq!(unconfined["decidedBy"], "noSandbox", "{unconfined:#}");
    assert_eq!(unconfined["sandbox"], "none", "{unconfined:#}");
    // Without --agent pi, `read` is a name the policy does not know, and finch says what to add.
    let out = ctx.run(&[
        "policy",
        "check",
        "read",
        r#"{"path":"a.txt"}"#,
        "--mode",
        "acceptCalls",
    ]);
    out.success();
    assert!(out.stdout().starts_with("ask\n"), "{out}");
    assert!(out.stderr().contains("add --agent pi"), "{out}");
}

#[test]
fn policy_check_in_a_session_uses_its_directory_trust_and_session_allows() {
    let ctx = TestContext::new();
    let (path, id) = finch_session(&ctx);
    let shared = ctx.base().join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    let inside_shared = shared.join("f.txt").display().to_string();
    let read = json!({"path": inside_shared}).to_string();
    let check = |extra: &[&str]| {
        let mut args = vec![
            "--agent",
            "pi",
            "read",
            read.as_str(),
            "--mode",
            "acceptCalls",
        ];
        args.extend_from_slice(extra);
        verdict(&ctx, &args)
    };
    assert_eq!(check(&["--session", &id])["decidedBy"], "outsideWorkspace");
    ctx.run(&["session", "extend-dir", &id, shared.to_str().unwrap()])
        .success();
    let trusted = check(&["--session", &id]);
    assert_eq!(trusted["decision"], "allow", "{trusted:#}");
    let reason = trusted["reason"].as_str().unwrap();
    assert!(
        reason.contains(&format!(
            "inside the trusted directory {}",
            shared.display()
        )),
        "{reason}"
    );
    assert!(!reason.contains("working directory"), "{reason}");
    assert_eq!(trusted["session"], id);
    // Without the session the directory is not trusted.
    assert_eq!(check(&[])["decidedBy"], "outsideWorkspace");

    // The session's working directory, from wherever finch is asked.
    let elsewhere = Run(ctx
        .cmd()
        .current_dir(&ctx.home)
        .args([
            "--json",
            "policy",
            "check",
            "--agent",
            "pi",
            "read",
            r#"{"path":"a.txt"}"#,
        ])
        .args(["--mode", "acceptCalls", "--session", &id])
        .output()
        .unwrap());
    elsewhere.success();
    assert_eq!(elsewhere.json()["decidedBy"], "fastLane", "{elsewhere}");

    // A call a person allowed for the session (as finch run records it) is allowed again;
    // the transcript file works as well as the id.
    let all = lines(&path);
    let last = all.last().unwrap()["id"].as_str().unwrap().to_string();
    let answered = json!({"type": "custom", "id": "0a0b0c0d", "parentId": last,
        "timestamp": "2026-03-01T10:00:00.000Z", "customType": "finch.toolCall",
        "data": {"tool": "Bash", "arguments": {"command": "npm install left-pad"},
                 "decision": "allow", "decidedBy": "card:allowForSession"}});
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!("{answered}\n"));
    std::fs::write(&path, text).unwrap();
    let npm = |command: &str, session: &str| {
        let args = json!({"command": command}).to_string();
        verdict(
            &ctx,
            &["--agent", "pi", "bash", &args, "--session", session],
        )
    };
    let allowed = npm("npm install left-pad", path.to_str().unwrap());
    assert_eq!(allowed["decision"], "allow", "{allowed:#}");
    assert_eq!(allowed["decidedBy"], "sessionAllow");
    assert_eq!(npm("npm install other", &id)["decision"], "ask");

    // Unknown sessions are "not found".
    let missing = ctx.run(&["policy", "check", "Read", "{}", "--session", "ffffffff"]);
    missing.failure(3);
    assert!(
        missing.stderr().contains("no session matches \"ffffffff\""),
        "{missing}"
    );
    let missing = ctx.run(&["policy", "check", "Read", "{}", "--session", "./nope.jsonl"]);
    missing.failure(3);
    assert!(
        missing.stderr().contains("no such transcript file"),
        "{missing}"
    );
}

/// pi in RPC mode has a UI (dialogs go to the client as `extension_ui_request`s): an "ask"
/// verdict becomes pi's select dialog; "Allow for this session" is recorded and spares the same
/// call a second dialog; "Deny" blocks.
#[test]
fn the_extension_asks_through_pis_ui_when_it_has_one() {
    use std::io::Write;
    use std::sync::mpsc;
    use std::time::Duration;

    let bin = pi_or_skip!();
    let ctx = TestContext::new();
    let touch =
        |name: &str| json!({"name": "bash", "arguments": {"command": format!("touch {name}")}});
    let model = Model::start(
        &ctx,
        json!([{"tool_calls": [touch("allowed")]},
               {"tool_calls": [touch("allowed")]},
               {"tool_calls": [touch("denied")]},
               {"text": "finished"}]),
    );
    let agent = agent_dir(&ctx, &model, true);
    let sessions = ctx.runtime.join("pi/sessions/rpc");
    let mut cmd = Command::new(&bin);
    cmd.env_clear()
        .env("HOME", &ctx.home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("FINCH_RUNTIME_HOME", &ctx.runtime)
        .env("FINCH_AGENT_HOME", &ctx.agent)
        .env("PI_CODING_AGENT_SESSION_DIR", &sessions)
        .current_dir(&ctx.work)
        .args(["--mode", "rpc", "--model", "scripted/scripted"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    pi_env(&mut cmd, &agent);
    let mut child = cmd.spawn().expect("pi starts");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str(&line) {
                let _ = tx.send(v);
            }
        }
    });
    writeln!(
        stdin,
        "{}",
        json!({"id": "p1", "type": "prompt", "message": "touch files"})
    )
    .unwrap();
    let mut dialogs = Vec::new();
    loop {
        let event = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("pi answers within a minute");
        if event["type"] == "extension_ui_request" && event["method"] == "select" {
            let options = event["options"].clone();
            let answer = if dialogs.is_empty() {
                "Allow for this session"
            } else {
                "Deny"
            };
            dialogs.push((event["title"].as_str().unwrap_or("").to_string(), options));
            let reply =
                json!({"type": "extension_ui_response", "id": event["id"], "value": answer});
            writeln!(stdin, "{reply}").unwrap();
        }
        if event["type"] == "agent_end" {
            break;
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();

    assert_eq!(dialogs.len(), 2, "{dialogs:#?}");
    assert!(dialogs[0].0.contains("touch allowed"), "{dialogs:#?}");
    assert_eq!(
        dialogs[0].1,
        json!(["Allow once", "Allow for this session", "Deny"])
    );
    assert!(dialogs[1].0.contains("touch denied"), "{dialogs:#?}");
    assert!(
        ctx.work.join("allowed").is_file(),
        "allowed for the session: it ran"
    );
    assert!(!ctx.work.join("denied").exists(), "denied: it did not run");

    let transcript = ctx.transcripts().pop().expect("pi's transcript");
    let all = lines(&transcript);
    assert_one_tree(&all);
    let verdicts: Vec<(String, String)> = custom(&all, "finch.verdict")
        .iter()
        .map(|e| {
            let d = &e["data"];
            (
                d["decidedBy"].as_str().unwrap().to_string(),
                d["answer"].as_str().unwrap_or("-").to_string(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            ("cardRequired".to_string(), "allowForSession".to_string()),
            ("sessionAllow".to_string(), "-".to_string()),
            ("cardRequired".to_string(), "deny".to_string()),
        ]
    );
}
