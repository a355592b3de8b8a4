//! `finch run --serve mcp` (SPEC §8.7) driven by the official Python MCP client
//! (tests/peers/mcp_client_serve.py on `mcp` 2.x, as scripts/install-test-peers installs it):
//! the tools it lists, a built-in call, permission cards answered through elicitation (allow
//! once, allow for the session, deny, deny with a reason, decline, cancel, timeout), on the
//! terminal when the client cannot elicit and refused when nobody can be asked,
//! `AskUserQuestion` through elicitation, `notifications/tools/list_changed` after a call that
//! changed the tools, what the transcript records, and the usage errors.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use expectrl::{Expect, Session};
use serde_json::{Value, json};

use crate::common::fixtures::MiniTool;
use crate::common::{Run, TestContext};

/// The python3 that imports the MCP SDK, as an absolute path: the sealed environment has no
/// HOME for pyenv's shims to find their interpreter by.
pub(crate) fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let probe = Command::new("python3")
            .args(["-c", "import mcp, sys; print(sys.executable)"])
            .output();
        match probe {
            Ok(out) if out.status.success() => {
                PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
            }
            Ok(out) => panic!(
                "python3 cannot import the MCP SDK ({}); run scripts/install-test-peers, which installs mcp==2.3.0",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
            Err(e) => panic!(
                "python3 not found ({e}); these tests need python3 with mcp==2.3.0 (scripts/install-test-peers)"
            ),
        }
    })
}

fn client_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/mcp_client_serve.py")
}

/// The Python client that starts `finch run --serve mcp <finch_args>`, in the sealed
/// environment of `ctx`, run in its work directory.
pub(crate) fn client(ctx: &TestContext, plan: &Value, finch_args: &[&str]) -> Command {
    let mut cmd = Command::new(python());
    cmd.arg(client_script())
        .arg(plan.to_string())
        .arg(env!("CARGO_BIN_EXE_finch"))
        .args(["run", "--serve", "mcp"])
        .args(finch_args)
        .env_clear()
        .env("HOME", &ctx.home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("FINCH_RUNTIME_HOME", &ctx.runtime)
        .env("FINCH_AGENT_HOME", &ctx.agent)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .current_dir(&ctx.work);
    cmd
}

/// Runs `plan` against `finch run --serve mcp <finch_args>` with no controlling terminal (as
/// in CI) and returns the client's report.
#[track_caller]
pub(crate) fn serve(ctx: &TestContext, plan: Value, finch_args: &[&str]) -> Report {
    serve_with_env(ctx, plan, finch_args, &[])
}

/// `serve`, with more variables in finch's environment.
#[track_caller]
pub(crate) fn serve_with_env(
    ctx: &TestContext,
    plan: Value,
    finch_args: &[&str],
    env: &[(&str, &str)],
) -> Report {
    let mut cmd = client(ctx, &plan, finch_args);
    cmd.envs(env.iter().copied());
    // SAFETY: setsid is async-signal-safe and touches no memory of this process.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let run = Run(cmd.output().expect("python3 runs"));
    assert_eq!(run.code(), 0, "the MCP client failed:\n{run}");
    Report(run.json())
}

/// What the client saw.
pub(crate) struct Report(pub(crate) Value);

impl Report {
    pub(crate) fn result(&self, step: usize) -> &Value {
        &self.0["results"][step]
    }

    /// The text of a call result's content.
    pub(crate) fn text(&self, step: usize) -> String {
        self.result(step)["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    pub(crate) fn decided_by(&self, step: usize) -> &str {
        self.result(step)["_meta"]["finch/decidedBy"]
            .as_str()
            .unwrap_or("")
    }

    fn is_error(&self, step: usize) -> bool {
        self.result(step)["isError"] == true
    }

    /// The message of elicitation `i` (a card's text).
    fn card_message(&self, i: usize) -> &str {
        self.elicitations()[i]["message"].as_str().expect("message")
    }

    fn elicitations(&self) -> &[Value] {
        self.0["elicitations"].as_array().map_or(&[], Vec::as_slice)
    }

    fn notifications(&self) -> Vec<&str> {
        self.0["notifications"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect()
    }

    /// The `const`s a card form offers for `decision`.
    fn card_choices(&self, elicitation: usize) -> Vec<&str> {
        self.elicitations()[elicitation]["requestedSchema"]["properties"]["decision"]["oneOf"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["const"].as_str())
            .collect()
    }
}

pub(crate) fn call(name: &str, arguments: Value) -> Value {
    json!({"op": "call", "name": name, "arguments": arguments})
}

pub(crate) fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

fn touch(file: &str) -> Value {
    call("Bash", json!({"command": format!("touch {file}")}))
}

/// The `decidedBy` of every call recorded in the run's one transcript.
fn transcript_decisions(ctx: &TestContext) -> Vec<String> {
    let transcripts = ctx.transcripts();
    assert_eq!(transcripts.len(), 1, "one transcript: {transcripts:?}");
    ctx.tool_calls(&transcripts[0])
        .iter()
        .map(|c| c["decidedBy"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn initialize_and_list_the_startup_tools() {
    let ctx = TestContext::new();
    let report = serve(
        &ctx,
        json!({"elicitation": null, "steps": [{"op": "list"}]}),
        &[],
    );
    let init = &report.0["initialize"];
    assert_eq!(init["serverInfo"]["name"], "finch", "{init}");
    assert_eq!(init["capabilities"]["tools"]["listChanged"], true, "{init}");
    assert!(
        init["instructions"]
            .as_str()
            .is_some_and(|i| i.contains("ToolSearch")),
        "{init}"
    );

    // The session's active tools are the catalog's startup tools, as `finch tool list` has them.
    let catalog = ctx.run(&["tool", "list", "--json"]);
    catalog.success();
    let startup: Vec<Value> = catalog
        .json()
        .as_array()
        .expect("tool list is an array")
        .iter()
        .filter(|t| t["exposure"] == "startup")
        .map(|t| t["name"].clone())
        .collect();
    let tools = report.result(0)["tools"].as_array().expect("tools").clone();
    let listed: Vec<Value> = tools.iter().map(|t| t["name"].clone()).collect();
    assert_eq!(listed, startup);
    for name in [
        "Read",
        "Bash",
        "AskUserQuestion",
        "ToolSearch",
        "MiniTool",
        "Memory",
    ] {
        assert!(listed.contains(&json!(name)), "{name} missing: {listed:?}");
    }
    let read = tools.iter().find(|t| t["name"] == "Read").expect("Read");
    assert_eq!(read["title"], "Read a file");
    assert_eq!(read["inputSchema"]["required"], json!(["file_path"]));
    assert!(read["description"].as_str().is_some_and(|d| !d.is_empty()));
}

#[test]
fn no_builtins_lists_only_the_dispatchers() {
    let ctx = TestContext::new();
    let plan = json!({"elicitation": null, "steps": [{"op": "list"}]});
    let report = serve(&ctx, plan, &["--no-builtins"]);
    let listed: Vec<&str> = report.result(0)["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        listed,
        [
            "Memory",
            "Skills",
            "Session",
            "AppCall",
            "ToolSearch",
            "MiniTool",
            "Schedule"
        ]
    );
}

#[test]
fn a_builtin_call_returns_its_record_and_is_transcribed() {
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("small.txt"), "hello from a test\n").unwrap();
    let plan = json!({"elicitation": null, "steps": [
        call("Read", json!({"file_path": "small.txt"})),
        call("Read", json!({"file_path": "missing.txt"})),
        call("Read", json!({"path": 3})),
        call("NoSuchTool", json!({})),
        call("TodoWrite", json!({"todos": [{"content": "x", "status": "pending"}]})),
    ]});
    let report = serve(&ctx, plan, &["--mode", "acceptCalls"]);

    assert!(!report.is_error(0), "{}", report.result(0));
    assert!(
        report.text(0).contains("hello from a test"),
        "{}",
        report.text(0)
    );
    assert_eq!(report.result(0)["_meta"]["finch/decision"], "allow");
    assert_eq!(report.decided_by(0), "fastLane");

    assert!(report.is_error(1));
    assert_eq!(report.result(1)["_meta"]["finch/failure"], "toolError");
    assert!(report.text(1).contains("missing.txt"), "{}", report.text(1));

    assert!(report.is_error(2));
    assert_eq!(
        report.result(2)["_meta"]["finch/failure"],
        "invalidArguments"
    );
    assert!(report.text(2).contains("file_path"), "{}", report.text(2));

    assert!(report.is_error(3));
    assert_eq!(report.result(3)["_meta"]["finch/failure"], "unknownTool");
    assert!(report.text(3).contains("NoSuchTool"), "{}", report.text(3));

    // A tool's structured result travels as structuredContent.
    assert!(!report.is_error(4), "{}", report.result(4));
    assert!(
        report.result(4)["structuredContent"].is_object(),
        "{}",
        report.result(4)
    );

    assert_eq!(
        transcript_decisions(&ctx),
        [
            "fastLane",
            "fastLane",
            "invalidArguments",
            "unknownTool",
            "autoAllow"
        ]
    );
    assert!(report.elicitations().is_empty());
}

#[test]
fn a_card_accepted_through_elicitation_runs_the_call_once() {
    let ctx = TestContext::new();
    let plan = json!({
        "elicitation": [accept(json!({"decision": "allowOnce"}))],
        "steps": [touch("once"), touch("once")],
    });
    let report = serve(&ctx, plan, &[]);
    assert!(!report.is_error(0), "{}", report.result(0));
    assert_eq!(report.decided_by(0), "card:allowOnce");
    assert!(ctx.work.join("once").exists());
    // Allowed once: the same command asks again (answered by nobody left in the plan: decline).
    assert_eq!(report.elicitations().len(), 2);
    assert_eq!(report.decided_by(1), "card:decline");

    let card = &report.elicitations()[0];
    let message = card["message"].as_str().expect("message");
    assert!(message.contains("Permission needed: Bash"), "{message}");
    assert!(message.contains("touch once"), "{message}");
    assert!(message.contains("not read-only"), "{message}");
    // An approved Bash call runs in the workspace-write sandbox, or without it.
    assert_eq!(
        report.card_choices(0),
        [
            "allowOnce",
            "allowForSession",
            "deny",
            "denyWithReason",
            "allowUnsandboxed"
        ]
    );
    assert_eq!(
        card["requestedSchema"]["required"],
        json!(["decision"]),
        "{card}"
    );
    assert_eq!(
        transcript_decisions(&ctx),
        ["card:allowOnce", "card:decline"]
    );
}

#[test]
fn allow_for_the_session_spares_the_next_card_for_the_same_command() {
    let ctx = TestContext::new();
    let plan = json!({
        "elicitation": [accept(json!({"decision": "allowForSession"}))],
        "steps": [touch("a"), touch("a")],
    });
    let report = serve(&ctx, plan, &[]);
    assert_eq!(report.decided_by(0), "card:allowForSession");
    assert_eq!(report.decided_by(1), "sessionAllow");
    assert_eq!(report.elicitations().len(), 1);
}

#[test]
fn declined_cancelled_and_denied_cards_refuse_the_call_each_in_its_own_words() {
    let ctx = TestContext::new();
    let plan = json!({
        "elicitation": [
            {"action": "decline"},
            {"action": "cancel"},
            accept(json!({"decision": "deny"})),
            accept(json!({"decision": "denyWithReason", "reason": "use `make build` instead"})),
            accept(json!({"decision": "deny", "reason": "not in this directory"})),
            accept(json!({"decision": "denyWithReason"})),
        ],
        "steps": [touch("x1"), touch("x2"), touch("x3"), touch("x4"), touch("x5"), touch("x6")],
    });
    let report = serve(&ctx, plan, &[]);
    for step in 0..6 {
        assert!(report.is_error(step), "{}", report.result(step));
        assert_eq!(report.result(step)["_meta"]["finch/failure"], "refused");
        assert!(!ctx.work.join(format!("x{}", step + 1)).exists());
    }
    let decided: Vec<&str> = (0..6).map(|s| report.decided_by(s)).collect();
    assert_eq!(
        decided,
        [
            "card:decline",
            "card:cancel",
            "card:deny",
            "card:denyWithReason",
            "card:denyWithReason",
            "card:deny"
        ]
    );
    // A declined or cancelled form is nobody's refusal: the model is told so, and how the
    // call can be allowed.
    for (step, what) in [
        (0, "declined the permission card"),
        (1, "cancelled the permission card"),
    ] {
        let text = report.text(step);
        assert!(text.contains(what), "{text}");
        assert!(text.contains("This is not a person's refusal"), "{text}");
        assert!(text.contains("ask the user"), "{text}");
        assert!(text.contains("--approve Bash"), "{text}");
        assert!(!text.contains("denied"), "{text}");
    }
    assert!(
        report.text(2).contains("The user denied `Bash`"),
        "{}",
        report.text(2)
    );
    assert!(
        report.text(3).contains("use `make build` instead"),
        "{}",
        report.text(3)
    );
    assert!(
        report.text(4).contains("not in this directory"),
        "{}",
        report.text(4)
    );
}

#[test]
fn a_destructive_command_is_never_offered_allow_for_the_session() {
    let ctx = TestContext::new();
    std::fs::create_dir(ctx.work.join("junk")).unwrap();
    let plan = json!({
        "elicitation": [accept(json!({"decision": "allowForSession"}))],
        "steps": [call("Bash", json!({"command": "rm -rf junk"})), call("Bash", json!({"command": "rm -rf junk"}))],
    });
    let report = serve(&ctx, plan, &["--mode", "acceptCalls"]);
    assert_eq!(
        report.card_choices(0),
        ["allowOnce", "deny", "denyWithReason", "allowUnsandboxed"]
    );
    assert!(
        report.elicitations()[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("risk: high")),
        "{:?}",
        report.elicitations()[0]
    );
    // An answer the card did not offer counts as once: the next call asks again.
    assert_eq!(report.decided_by(0), "card:allowOnce");
    assert!(!ctx.work.join("junk").exists());
    assert_eq!(report.elicitations().len(), 2);
}

#[test]
fn an_unanswered_elicitation_is_denied_after_the_card_timeout() {
    let ctx = TestContext::new();
    ctx.write_config("[host]\ncard_timeout = \"1s\"\n");
    let plan = json!({
        "elicitation": [{"action": "accept", "content": {"decision": "allowOnce"}, "delay": 3}],
        "steps": [touch("late")],
    });
    // The client answers after 3 s, past the 1 s card timeout: the gateway's answer is the
    // timeout's, whatever the machine's load made the run take.
    let report = serve(&ctx, plan, &[]);
    assert_eq!(report.decided_by(0), "card:timeout");
    assert!(report.text(0).contains("in time"), "{}", report.text(0));
    assert!(!ctx.work.join("late").exists());
}

#[test]
fn without_elicitation_or_a_terminal_cards_are_refused() {
    let ctx = TestContext::new();
    let plan = json!({"elicitation": null, "steps": [touch("nobody")]});
    let report = serve(&ctx, plan, &[]);
    assert!(report.is_error(0));
    assert_eq!(report.decided_by(0), "noElicitation");
    assert!(
        report.text(0).contains("no elicitation support"),
        "{}",
        report.text(0)
    );
    assert!(
        report.text(0).contains("--approve Bash"),
        "{}",
        report.text(0)
    );
    assert!(!ctx.work.join("nobody").exists());
}

#[test]
fn approve_answers_cards_without_asking_the_client() {
    let ctx = TestContext::new();
    let plan = json!({"elicitation": [], "steps": [touch("approved")]});
    let report = serve(&ctx, plan, &["--approve", "Bash"]);
    assert_eq!(report.decided_by(0), "approveFlag");
    assert!(ctx.work.join("approved").exists());
    assert!(report.elicitations().is_empty());
}

#[test]
fn ask_user_question_is_asked_through_elicitation() {
    let ctx = TestContext::new();
    let question = |multi: bool| {
        call(
            "AskUserQuestion",
            json!({
                "question": "Which database?",
                "header": "Database",
                "multiSelect": multi,
                "options": [
                    {"label": "SQLite", "description": "one file"},
                    {"label": "Postgres"},
                ],
            }),
        )
    };
    let plan = json!({
        "elicitation": [
            accept(json!({"answer": "SQLite"})),
            accept(json!({"answer": ["SQLite", "Postgres"]})),
            accept(json!({"answer": "Postgres", "other": "whatever the host has"})),
            {"action": "decline"},
        ],
        "steps": [question(false), question(true), question(false), question(false)],
    });
    let report = serve(&ctx, plan, &[]);
    assert_eq!(report.text(0), "The user chose: SQLite");
    assert_eq!(
        report.result(0)["structuredContent"],
        json!({"question": "Which database?", "chosen": ["SQLite"]})
    );
    assert_eq!(report.text(1), "The user chose: SQLite; Postgres");
    assert_eq!(
        report.text(2),
        "The user answered in their own words: whatever the host has"
    );
    // A declined form is no answer, not "none of the options".
    assert!(report.is_error(3), "{}", report.result(3));
    assert!(
        report
            .text(3)
            .starts_with("The MCP client declined or cancelled the question without an answer"),
        "{}",
        report.text(3)
    );

    let single = &report.elicitations()[0];
    assert!(
        single["message"]
            .as_str()
            .is_some_and(|m| m.contains("Database") && m.contains("Which database?")),
        "{single}"
    );
    assert_eq!(
        single["requestedSchema"]["properties"]["answer"]["oneOf"],
        json!([
            {"const": "SQLite", "title": "SQLite — one file"},
            {"const": "Postgres", "title": "Postgres"},
        ])
    );
    let multi = &report.elicitations()[1];
    assert_eq!(
        multi["requestedSchema"]["properties"]["answer"]["type"], "array",
        "{multi}"
    );
}

/// A call that changes the mini tools (here `MiniTool enable`, its card accepted through
/// elicitation) rebuilds the catalog and announces `notifications/tools/list_changed` before
/// its result.
#[test]
fn a_call_that_changes_the_tools_announces_list_changed() {
    let ctx = TestContext::new();
    MiniTool::new("hello-minitool", "1.0.0")
        .display_name("Hello")
        .write_to(&ctx.work.join("hello"));
    ctx.run(&["add", "./hello"]).success();
    let plan = json!({
        "elicitation": [accept(json!({"decision": "allowOnce"}))],
        "steps": [
            call("Read", json!({"file_path": "hello/package.json"})),
            {"op": "wait_list_changed", "timeout": 0.5},
            call("MiniTool", json!({"action": "enable", "id": "hello-minitool"})),
            {"op": "wait_list_changed", "timeout": 10},
            {"op": "list"},
        ],
    });
    let report = serve(&ctx, plan, &["--mode", "acceptCalls"]);
    assert_eq!(report.result(1), &json!({"received": false}));
    assert_eq!(report.decided_by(2), "card:allowOnce");
    assert!(!report.is_error(2), "{}", report.result(2));
    assert_eq!(report.result(3), &json!({"received": true}));
    assert_eq!(report.notifications(), ["notifications/tools/list_changed"]);
}

/// The official client starts its servers in a session of their own, so it can never show a
/// terminal card; this test speaks MCP itself, over two FIFOs, to a finch whose controlling
/// terminal is a pseudo-terminal the test answers the card on.
#[test]
fn the_card_falls_back_to_the_terminal_when_the_client_cannot_elicit() {
    let ctx = TestContext::new();
    let (to_finch, from_finch) = (ctx.base().join("in.fifo"), ctx.base().join("out.fifo"));
    for fifo in [&to_finch, &from_finch] {
        let path = std::ffi::CString::new(fifo.to_str().expect("UTF-8 path")).expect("no NUL");
        // SAFETY: a valid C string; the result is checked.
        assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0, "mkfifo");
    }
    let mut cmd = Command::new("sh");
    cmd.args(["-c", "exec \"$0\" run --serve mcp <\"$1\" >\"$2\""])
        .arg(env!("CARGO_BIN_EXE_finch"))
        .args([&to_finch, &from_finch])
        .env_clear()
        .env("HOME", &ctx.home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("FINCH_RUNTIME_HOME", &ctx.runtime)
        .env("FINCH_AGENT_HOME", &ctx.agent)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .current_dir(&ctx.work);
    let mut terminal = Session::spawn(cmd).expect("spawn finch in a pty");
    // The shell opens its stdin first, then its stdout: open the FIFOs in that order.
    let mut requests = std::fs::OpenOptions::new()
        .write(true)
        .open(&to_finch)
        .expect("open the request FIFO");
    let responses = std::fs::File::open(&from_finch).expect("open the response FIFO");
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(responses)) {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut send = |message: Value| {
        std::io::Write::write_all(&mut requests, format!("{message}\n").as_bytes())
            .expect("write a request")
    };
    let response = |id: u64| -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no response {id} from finch"));
            let message: Value = serde_json::from_str(&line).expect("a JSON-RPC line");
            if message["id"] == id {
                return message;
            }
        }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "finch-test", "version": "1"}}}),
    );
    assert!(response(1)["result"]["serverInfo"]["name"] == "finch");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "Bash", "arguments": {"command": "touch from-tty"}}}),
    );

    let deadline = Instant::now() + Duration::from_secs(20);
    let card = loop {
        if let Ok(found) = terminal.check("Esc denies.")
            && !found.is_empty()
        {
            break String::from_utf8_lossy(found.as_bytes()).into_owned();
        }
        assert!(Instant::now() < deadline, "no card on the terminal");
        let mut fd = libc::pollfd {
            fd: std::os::fd::AsRawFd::as_raw_fd(terminal.get_stream()),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd we own; the result only says whether to look again.
        unsafe { libc::poll(&mut fd, 1, 500) };
    };
    assert!(card.contains("touch from-tty"), "{card}");
    terminal.send("y").expect("type on the terminal");
    let result = response(2);
    assert_eq!(
        result["result"]["_meta"]["finch/decidedBy"], "card:allowOnce",
        "{result}"
    );
    assert!(ctx.work.join("from-tty").exists());
    drop(requests);
    let status = terminal.get_process().wait().expect("wait for finch");
    assert!(
        matches!(status, expectrl::process::unix::WaitStatus::Exited(_, 0)),
        "{status:?}"
    );
}

#[test]
fn serve_takes_only_mcp() {
    let ctx = TestContext::new();
    ctx.run(&["run", "--serve", "http"])
        .failure(2)
        .stderr_has("possible values: mcp");
    ctx.run(&["run", "--serve", "mcp", "--jsonl"])
        .failure(2)
        .stderr_has("cannot be used with");
}

#[test]
fn stdin_that_ends_before_initialize_is_an_error() {
    let ctx = TestContext::new();
    let run = Run(ctx
        .cmd()
        .args(["run", "--serve", "mcp"])
        .write_stdin("")
        .output()
        .expect("finch runs"));
    run.failure(1).stderr_has("no MCP client");
    assert!(run.stdout().is_empty(), "{run}");
}

#[test]
fn a_first_message_that_is_not_initialize_is_an_error() {
    let ctx = TestContext::new();
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let run = Run(ctx
        .cmd()
        .args(["run", "--serve", "mcp"])
        .write_stdin(format!("{request}\n"))
        .output()
        .expect("finch runs"));
    run.failure(1).stderr_has("initialize");
}

/// ToolSearch finds a tool of an MCP server (the Python SDK's echo server, configured in
/// `servers.json`), activates it, and `notifications/tools/list_changed` follows; the tool is
/// then listed, and calling it shows its card through elicitation (MCP tools always ask).
#[test]
fn toolsearch_activation_announces_list_changed_and_mcp_tool_cards_are_elicited() {
    let ctx = TestContext::new();
    let echo_server = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/echo_server.py");
    let entry = json!({"name": "echo", "command": python(), "args": [echo_server]});
    crate::mcp_bridge::write_servers(&ctx, &json!({"servers": [entry]}));
    // The server connects in the background: the catalog cache lists its tools meanwhile.
    ctx.run(&["reload"]).success();
    let plan = json!({
        "elicitation": [accept(json!({"decision": "allowOnce"}))],
        "steps": [
            {"op": "list"},
            call("ToolSearch", json!({"query": "echoes back the input string"})),
            {"op": "wait_list_changed", "timeout": 10},
            {"op": "list"},
            call("mcp__echo__echo", json!({"message": "hi"})),
        ],
    });
    let report = serve(&ctx, plan, &["--mode", "acceptCalls"]);
    let names = |step: usize| -> Vec<String> {
        report.result(step)["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str().map(str::to_string))
            .collect()
    };
    assert!(
        !names(0).contains(&"mcp__echo__echo".to_string()),
        "{:?}",
        names(0)
    );
    assert!(
        report.text(1).contains("mcp__echo__echo"),
        "{}",
        report.text(1)
    );
    assert_eq!(report.result(2), &json!({"received": true}));
    assert_eq!(names(3).len(), names(0).len() + 1, "{:?}", names(3));
    assert!(names(3).contains(&"mcp__echo__echo".to_string()));
    assert_eq!(report.text(4), "Echo: hi");
    assert_eq!(report.decided_by(4), "card:allowOnce");
    let card = report.card_message(0);
    assert!(
        card.starts_with("Permission needed: mcp__echo__echo"),
        "{card}"
    );
    assert!(card.contains("Layer: mcp"), "{card}");
    // Never "for this session": MCP tools ask on every call.
    assert_eq!(
        report.card_choices(0),
        ["allowOnce", "deny", "denyWithReason"]
    );
}

/// A mini tool loaded with `--minitool`: its tool is called through the server, the card that
/// every mini tool tool gets answered through elicitation.
#[test]
fn a_mini_tool_tool_is_called_with_its_card_elicited() {
    let ctx = TestContext::new();
    let dir = ctx.base().join("dev/greeter");
    MiniTool::new("greeter", "1.0.0")
        .display_name("Greeter")
        .entry_source(
            r#"export function activate(ctx) {
  ctx.subscriptions.push(ctx.tools.register({
    name: "greet",
    title: "Greet someone",
    description: "Says hello to someone by name",
    inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    async execute(input) { return `Hello, ${input.name}!`; },
  }));
}
"#,
        )
        .write_to(&dir);
    let plan = json!({
        "elicitation": [accept(json!({"decision": "allowOnce"})), {"action": "decline"}],
        "steps": [
            call("ToolSearch", json!({"query": "greet someone by name"})),
            call("greeter_greet", json!({"name": "Ada"})),
            call("greeter_greet", json!({"name": "Bob"})),
        ],
    });
    let dir = dir.display().to_string();
    let report = serve(&ctx, plan, &["--mode", "acceptCalls", "--minitool", &dir]);
    assert!(
        report.text(1).contains("Hello, Ada!"),
        "{}",
        report.result(1)
    );
    assert_eq!(report.decided_by(1), "card:allowOnce");
    assert_eq!(report.decided_by(2), "card:decline");
    let card = report.card_message(0);
    assert!(
        card.starts_with("Permission needed: greeter_greet"),
        "{card}"
    );
    assert!(card.contains("Layer: minitool"), "{card}");
    assert_eq!(
        report.card_choices(0),
        ["allowOnce", "deny", "denyWithReason"]
    );
}

/// `finch run --serve mcp` driven line by line over its pipes, for what happens between
/// calls while it runs: when call records reach the transcript, and stop signals.
struct Raw {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    stdout: std::io::BufReader<std::process::ChildStdout>,
    next_id: u64,
}

impl Raw {
    fn start(ctx: &TestContext, args: &[&str]) -> Raw {
        Raw::start_ignoring(ctx, args, None)
    }

    /// `start`, with `ignored` ignored by finch from its start (as `nohup` ignores SIGHUP).
    fn start_ignoring(ctx: &TestContext, args: &[&str], ignored: Option<libc::c_int>) -> Raw {
        use std::process::Stdio;
        let mut cmd = ctx.std_cmd();
        if let Some(signal) = ignored {
            // SAFETY: signal(2) is async-signal-safe and touches no memory of this process.
            unsafe {
                cmd.pre_exec(move || {
                    libc::signal(signal, libc::SIG_IGN);
                    Ok(())
                });
            }
        }
        let mut child = cmd
            .args(["run", "--serve", "mcp"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("finch starts");
        let stdin = child.stdin.take();
        let stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let mut raw = Raw {
            child,
            stdin,
            stdout,
            next_id: 0,
        };
        let init = raw.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "1"}}),
        );
        assert!(init["result"]["serverInfo"].is_object(), "{init}");
        raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        raw
    }

    fn send(&mut self, message: &Value) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write to finch");
        stdin.flush().expect("flush");
    }

    /// Sends one request and returns its response.
    fn request(&mut self, method: &str, params: Value) -> Value {
        use std::io::BufRead;
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read from finch");
            assert!(n > 0, "finch closed stdout before answering {method}");
            let message: Value = serde_json::from_str(&line).expect("a JSON line");
            if message["id"] == id {
                return message;
            }
        }
    }

    fn call(&mut self, name: &str, arguments: Value) -> Value {
        let response = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        response["result"].clone()
    }

    fn running(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_none()
    }

    fn signal(&self, signal: libc::c_int) {
        let pid = libc::pid_t::try_from(self.child.id()).expect("a pid");
        // SAFETY: kill(2) on the child this test started and has not reaped.
        assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    }

    /// Waits (at most 20 s) for finch to end.
    fn wait(&mut self) -> std::process::ExitStatus {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "finch did not end"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Closes stdin (the client leaves) and waits for finch to end.
    fn close(&mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        self.wait()
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The tools of the `finch.toolCall` entries of the run's one transcript, as it is now.
fn recorded_tools(ctx: &TestContext) -> Vec<String> {
    let transcripts = ctx.transcripts();
    assert_eq!(transcripts.len(), 1, "one transcript: {transcripts:?}");
    ctx.tool_calls(&transcripts[0])
        .iter()
        .map(|c| c["tool"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// A context with `a.txt` to read, and `[host] record_delay` set when `record_delay` is.
fn records_context(record_delay: Option<&str>) -> TestContext {
    let ctx = TestContext::new();
    if let Some(delay) = record_delay {
        ctx.write_config(&format!("[host]\nrecord_delay = \"{delay}\"\n"));
    }
    std::fs::write(ctx.work.join("a.txt"), "alpha\n").unwrap();
    ctx
}

#[test]
fn call_records_reach_the_transcript_soon_after_the_calls_while_the_server_runs() {
    let ctx = records_context(None);
    let mut raw = Raw::start(&ctx, &["--mode", "acceptCalls"]);
    for _ in 0..3 {
        let result = raw.call("Read", json!({"file_path": "a.txt"}));
        assert_eq!(result["isError"], false, "{result}");
    }
    // Written together at most `[host] record_delay` (2 ms by default) after the first.
    let started = Instant::now();
    while recorded_tools(&ctx).len() < 3 && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(recorded_tools(&ctx), ["Read", "Read", "Read"]);
    assert!(raw.running(), "written while finch still serves");
    assert!(raw.close().success());
    assert_eq!(recorded_tools(&ctx), ["Read", "Read", "Read"]);
}

#[test]
fn a_command_that_may_read_the_transcript_finds_the_waiting_records_written() {
    // Records would wait an hour: only the rule that writes them before such a call can
    // put them in the file in time.
    let ctx = records_context(None);
    // The transcript lies in the runtime home, which the workspace-write sandbox does not read:
    // the approved call runs unconfined here.
    ctx.write_config("[host]\nrecord_delay = \"1h\"\n[sandbox]\napproved = \"none\"\n");
    // The transcript lies outside the working directory: reading it takes a card (issue 13).
    let mut raw = Raw::start(&ctx, &["--mode", "acceptCalls", "--approve", "Bash"]);
    raw.call("Read", json!({"file_path": "a.txt"}));
    raw.call("Read", json!({"file_path": "a.txt"}));
    assert!(recorded_tools(&ctx).is_empty(), "the records wait");
    let transcript = ctx.transcripts()[0].display().to_string();
    let result = raw.call(
        "Bash",
        json!({"command": format!("grep -c finch.toolCall {transcript}")}),
    );
    assert_eq!(
        result["structuredContent"]["stdout"], "2\n",
        "Bash saw both records: {result}"
    );
    assert!(raw.close().success());
    assert_eq!(recorded_tools(&ctx), ["Read", "Read", "Bash"]);
}

#[test]
fn a_stop_signal_writes_the_waiting_records_then_ends_finch_by_that_signal() {
    use std::os::unix::process::ExitStatusExt;
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        let ctx = records_context(Some("1h"));
        let mut raw = Raw::start(&ctx, &["--mode", "acceptCalls"]);
        raw.call("Read", json!({"file_path": "a.txt"}));
        raw.call("TodoWrite", json!({"todos": []}));
        assert!(recorded_tools(&ctx).is_empty(), "the records wait");
        raw.signal(signal);
        let status = raw.wait();
        assert_eq!(status.signal(), Some(signal), "{status:?}");
        assert_eq!(recorded_tools(&ctx), ["Read", "TodoWrite"]);
    }
}

#[test]
fn with_no_record_delay_each_call_is_written_at_once_and_a_stop_ends_finch_at_once() {
    use std::os::unix::process::ExitStatusExt;
    let ctx = records_context(Some("0"));
    let mut raw = Raw::start(&ctx, &["--mode", "acceptCalls"]);
    raw.call("Read", json!({"file_path": "a.txt"}));
    assert_eq!(recorded_tools(&ctx), ["Read"], "written before the answer");
    raw.signal(libc::SIGTERM);
    assert_eq!(raw.wait().signal(), Some(libc::SIGTERM));
    assert_eq!(recorded_tools(&ctx), ["Read"]);
}

#[test]
fn a_stop_signal_during_a_long_call_ends_finch_at_once_with_the_earlier_records_written() {
    use std::os::unix::process::ExitStatusExt;
    let ctx = records_context(Some("1h"));
    let mut raw = Raw::start(&ctx, &["--mode", "acceptCalls"]);
    raw.call("Read", json!({"file_path": "a.txt"}));
    // Bash may read the transcript: the Read record is written before it runs, and nothing
    // waits while it runs, so the stop does not wait for it.
    raw.send(&json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
                     "params": {"name": "Bash", "arguments": {"command": "sleep 60"}}}));
    let started = Instant::now();
    while recorded_tools(&ctx).is_empty() && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(recorded_tools(&ctx), ["Read"]);
    raw.signal(libc::SIGTERM);
    // `wait` gives up after 20 s, well before the sleep would end.
    assert_eq!(raw.wait().signal(), Some(libc::SIGTERM));
    assert_eq!(recorded_tools(&ctx), ["Read"]);
}

#[test]
fn a_stop_signal_ignored_by_whoever_started_finch_stays_ignored() {
    let ctx = records_context(Some("1h"));
    let mut raw = Raw::start_ignoring(&ctx, &["--mode", "acceptCalls"], Some(libc::SIGHUP));
    raw.call("Read", json!({"file_path": "a.txt"}));
    raw.signal(libc::SIGHUP);
    // Still serving: the next call is answered.
    let result = raw.call("Read", json!({"file_path": "a.txt"}));
    assert_eq!(result["isError"], false, "{result}");
    assert!(raw.running());
    assert!(raw.close().success());
    assert_eq!(recorded_tools(&ctx), ["Read", "Read"]);
}

impl Raw {
    /// Writes `line` as it is and returns the next answer with `id` (skipping notifications).
    fn answer_to(&mut self, line: &[u8], id: &Value) -> Value {
        use std::io::{BufRead, Write};
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line).expect("write to finch");
        stdin.write_all(b"\n").expect("write to finch");
        stdin.flush().expect("flush");
        loop {
            let mut text = String::new();
            let n = self.stdout.read_line(&mut text).expect("read from finch");
            assert!(n > 0, "finch closed stdout before answering {id}");
            let message: Value = serde_json::from_str(&text).expect("a JSON line");
            if message.get("id") == Some(id) {
                return message;
            }
        }
    }
}

/// Each malformed message gets the JSON-RPC 2.0 error it calls for, with the request's id when
/// it has one; the server goes on answering.
#[test]
fn malformed_requests_get_json_rpc_errors_with_their_ids() {
    let ctx = TestContext::new();
    let mut raw = Raw::start(&ctx, &["--mode", "acceptCalls"]);
    let cases: [(&str, Value, i64); 5] = [
        ("{not json", Value::Null, -32700),
        (
            r#"{"jsonrpc":"2.0","id":"x1","method":"tools/list","params":"x"}"#,
            json!("x1"),
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":"x2","method":"tools/call","params":"x"}"#,
            json!("x2"),
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":"x3","method":"tools/call"}"#,
            json!("x3"),
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":"x4","method":"tools/call","params":{"arguments":{}}}"#,
            json!("x4"),
            -32602,
        ),
    ];
    for (line, id, code) in cases {
        let answer = raw.answer_to(line.as_bytes(), &id);
        assert_eq!(answer["error"]["code"], code, "{line} -> {answer}");
        assert!(answer.get("result").is_none(), "{answer}");
    }
    let ping = raw.request("ping", json!({}));
    assert_eq!(ping["result"], json!({}), "{ping}");
}

/// A request over the 16 MiB limit is answered with an error for its id, wherever the id is
/// (the Python SDK writes it last), and the next request is served.
#[test]
fn a_request_over_the_size_limit_is_answered_with_an_error() {
    let ctx = TestContext::new();
    let mut raw = Raw::start(&ctx, &["--mode", "acceptCalls"]);
    let content = "a".repeat(32 << 20);
    let line = format!(
        r#"{{"method":"tools/call","params":{{"name":"Write","arguments":{{"file_path":"big.txt","content":"{content}"}}}},"jsonrpc":"2.0","id":"big"}}"#
    );
    let answer = raw.answer_to(line.as_bytes(), &json!("big"));
    assert_eq!(answer["error"]["code"], -32600, "{answer:.300}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("16 MiB"), "{message}");
    assert!(!ctx.work.join("big.txt").exists());
    // 8 MiB is under the limit and runs.
    let content = "b".repeat(8 << 20);
    let written = raw.call(
        "Write",
        json!({"file_path": "eight.txt", "content": content}),
    );
    assert_eq!(written["isError"], false, "{written:.300}");
    assert_eq!(
        std::fs::metadata(ctx.work.join("eight.txt")).unwrap().len(),
        8 << 20
    );
}

/// The dispatchers' structured content reaches the MCP client (an object; a list comes as
/// `{"result": [...]}`), as `tool call --json` keeps it.
#[test]
fn structured_content_of_the_dispatchers_reaches_the_client() {
    let ctx = TestContext::new();
    let plan = json!({
        "elicitation": null,
        "steps": [
            call("Memory", json!({"action": "list"})),
            call("ToolSearch", json!({"query": "read a file"})),
            call("Session", json!({"action": "search", "query": "anything"})),
        ],
    });
    let report = serve(&ctx, plan, &["--mode", "acceptCalls"]);
    for step in 0..3 {
        let result = report.result(step);
        assert_eq!(result["isError"], false, "{result}");
        let structured = &result["structuredContent"];
        assert!(structured.is_object(), "step {step}: {result}");
    }
    assert!(report.result(0)["structuredContent"]["result"].is_array());
    let hits = report.result(1)["structuredContent"]["result"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        hits.iter().any(|h| h["name"] == "Read"),
        "{}",
        report.result(1)
    );
}
