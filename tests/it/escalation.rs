//! Escalation that fits the denial (issue 41, SPEC §8.5a): a Bash call the kernel wall refused
//! — a read outside the roots in read-only, a write outside the roots in workspace-write, a
//! connection with `[sandbox] network = false` — is recorded with what was refused
//! (`blocked`), a person is offered on a card just what would let it through, and the re-run
//! does what the card promised; a script gets the same through the flag the error names.
//! Judged by effects: the file read, the file made, the listener's connection.

use std::net::TcpListener;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};

use crate::agents::Raw;
use crate::cards::{CARD_SHOWN, Pty};
use crate::common::{Run, TestContext};

const SECRET: &str = "NOTES-7f3a";

/// A workspace, and a directory beside it holding a file of notes.
struct Scene {
    ctx: TestContext,
    /// The directory beside the workspace (its real path: what the wall and records name).
    outside: PathBuf,
}

impl Scene {
    fn new() -> Scene {
        let ctx = TestContext::new();
        let outside = ctx.base().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("notes.txt"), format!("{SECRET}\n")).unwrap();
        std::fs::write(ctx.work.join("f.txt"), "hello\n").unwrap();
        let outside = std::fs::canonicalize(&outside).unwrap();
        Scene { ctx, outside }
    }

    /// `finch tool call Bash <command> --json` with `extra` flags, in a terminal.
    fn pty(&self, command: &str, extra: &[&str]) -> Pty {
        let args = json!({ "command": command }).to_string();
        let mut all = vec!["tool", "call", "Bash", &args, "--json"];
        all.extend_from_slice(extra);
        Pty::spawn(&self.ctx, &all)
    }

    /// `finch tool call Bash <command> --json` with `extra` flags, without a terminal.
    fn script(&self, command: &str, extra: &[&str]) -> Run {
        let args = json!({ "command": command }).to_string();
        let mut all = vec!["tool", "call", "Bash", &args, "--json"];
        all.extend_from_slice(extra);
        self.ctx.run(&all)
    }

    /// The one call record of the run's transcripts, the last.
    fn last_record(&self) -> Value {
        let calls: Vec<Value> = self
            .ctx
            .transcripts()
            .iter()
            .flat_map(|t| self.ctx.tool_calls(t))
            .collect();
        calls.last().cloned().expect("a call record")
    }
}

/// A card's text with its lines joined (it wraps at the terminal's width).
fn words(card: &str) -> String {
    card.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Accepts on `listener` for a moment: whether anything connected.
fn connected(listener: &TcpListener) -> bool {
    listener.set_nonblocking(true).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    listener.accept().is_ok()
}

#[test]
fn a_read_the_read_only_wall_refused_runs_again_able_to_read_that_directory() {
    let s = Scene::new();
    // `$PWD` hides the path from the classifier: the fast lane runs it, the wall refuses it.
    let command = "cat $PWD/../outside/notes.txt";
    let mut pty = s.pty(command, &["--mode", "acceptCalls"]);
    let card = words(&pty.expect(CARD_SHOWN));
    let dir = s.outside.display().to_string();
    assert!(card.contains("read-only sandbox refused to read"), "{card}");
    assert!(card.contains("now also able to read"), "{card}");
    assert!(card.contains(&dir), "{card}");
    assert!(!card.contains("write access"), "{card}");
    pty.send("y");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    assert!(tail.contains(SECRET), "the re-run did not read it:\n{tail}");
    let record = s.last_record();
    assert_eq!(record["blocked"]["by"], "sandbox", "{record}");
    assert_eq!(record["blocked"]["profile"], "read-only", "{record}");
    assert_eq!(record["blocked"]["access"], "read", "{record}");
    assert_eq!(
        record["blocked"]["path"],
        s.outside.join("notes.txt").display().to_string()
    );
    assert_eq!(
        record["escalation"],
        json!({"grant": "read", "path": dir, "decidedBy": "card:allowOnce"})
    );
    assert_eq!(record["sandbox"], "read-only", "still read-only: {record}");

    // Denied, the refusal stands and the call fails as blocked.
    let mut pty = s.pty(command, &["--mode", "acceptCalls"]);
    pty.expect(CARD_SHOWN);
    pty.send("n");
    let (code, tail) = pty.finish();
    assert_eq!(code, 4, "{tail}");
    assert!(!tail.contains(SECRET), "{tail}");
    let record = s.last_record();
    assert_eq!(record["blocked"]["access"], "read", "{record}");
    assert_eq!(record["escalation"]["decidedBy"], "card:deny", "{record}");

    // A script: the error names the flag, and with it the call reads the file.
    let out = s.script(command, &["--mode", "acceptCalls"]);
    out.failure(4);
    let flag = format!("--allow-read {dir}");
    assert!(out.stderr().contains(&flag), "{out}");
    let out = s.script(command, &["--mode", "acceptCalls", "--allow-read", &dir]);
    out.success();
    assert_eq!(
        out.json()["structuredContent"]["stdout"],
        format!("{SECRET}\n")
    );
}

#[test]
fn a_write_workspace_write_refused_runs_again_able_to_write_that_directory() {
    let s = Scene::new();
    let made = s.outside.join("made.txt");
    let command = format!("echo done > {}", made.display());
    let dir = s.outside.display().to_string();
    let mut pty = s.pty(&command, &[]);
    pty.expect(CARD_SHOWN);
    pty.send("1");
    pty.expect("Allowed once");
    let card = words(&pty.expect(CARD_SHOWN));
    assert!(
        card.contains("workspace-write sandbox refused to write"),
        "{card}"
    );
    assert!(
        card.contains(&format!("now also able to write {dir}")),
        "{card}"
    );
    pty.send("y");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    assert_eq!(std::fs::read_to_string(&made).unwrap(), "done\n");
    let record = s.last_record();
    assert_eq!(record["blocked"]["profile"], "workspace-write", "{record}");
    assert_eq!(record["blocked"]["access"], "write", "{record}");
    assert_eq!(
        record["escalation"],
        json!({"grant": "write", "path": dir, "decidedBy": "card:allowOnce"})
    );
    assert_eq!(record["sandbox"], "workspace-write", "{record}");

    // A script: refused, the hint names `--allow-write=DIR`; with it the write is made.
    std::fs::remove_file(&made).unwrap();
    let out = s.script(&command, &["--approve", "Bash"]);
    out.failure(4);
    assert_eq!(out.json()["blocked"]["access"], "write", "{out}");
    let flag = format!("--allow-write={dir}");
    assert!(out.stderr().contains(&flag), "{out}");
    assert!(!made.exists());
    let out = s.script(&command, &["--approve", "Bash", &flag]);
    out.success();
    assert_eq!(std::fs::read_to_string(&made).unwrap(), "done\n");
    assert_eq!(out.json()["sandbox"], "workspace-write", "{out}");
}

#[test]
fn a_connection_refused_without_network_runs_again_with_the_network() {
    let s = Scene::new();
    s.ctx.write_config("[sandbox]\nnetwork = false\n");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let command = format!("echo hi > /dev/tcp/127.0.0.1/{port}");
    let mut pty = s.pty(&command, &[]);
    pty.expect(CARD_SHOWN);
    pty.send("1");
    pty.expect("Allowed once");
    let card = words(&pty.expect(CARD_SHOWN));
    assert!(
        card.contains("workspace-write sandbox refused to use the network"),
        "{card}"
    );
    assert!(card.contains("now also able to use the network"), "{card}");
    pty.send("y");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    assert!(connected(&listener), "the re-run did not connect");
    let record = s.last_record();
    assert_eq!(record["blocked"]["access"], "network", "{record}");
    assert_eq!(
        record["escalation"],
        json!({"grant": "network", "decidedBy": "card:allowOnce"})
    );

    // A script: refused and nothing connected; `--allow-network` lets it through.
    let out = s.script(&command, &["--approve", "Bash"]);
    out.failure(4);
    assert!(!connected(&listener), "a refused call connected");
    assert!(out.stderr().contains("--allow-network"), "{out}");
    let out = s.script(&command, &["--approve", "Bash", "--allow-network"]);
    out.success();
    assert!(connected(&listener), "--allow-network did not connect");
}

/// `finch run --jsonl` with `extra` flags: the response to each of `commands`, in order.
fn jsonl(s: &Scene, commands: &[&str], extra: &[&str]) -> (i32, Vec<Value>) {
    let input: String = commands
        .iter()
        .enumerate()
        .map(|(i, c)| {
            format!(
                "{}\n",
                json!({"id": i, "tool": "Bash", "arguments": {"command": c}})
            )
        })
        .collect();
    let mut args = vec!["run", "--jsonl"];
    args.extend_from_slice(extra);
    let out = s.ctx.cmd().args(&args).write_stdin(input).output().unwrap();
    let lines = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (out.status.code().unwrap_or(-1), lines)
}

#[test]
fn jsonl_records_each_denial_and_runs_it_with_the_flag_its_hint_names() {
    let s = Scene::new();
    s.ctx.write_config("[sandbox]\nnetwork = false\n");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let made = s.outside.join("made.txt");
    let dir = s.outside.display().to_string();
    let read = "cat $PWD/../outside/notes.txt".to_string();
    let write = format!("echo done > {}", made.display());
    let connect = format!("echo hi > /dev/tcp/127.0.0.1/{port}");
    let commands = [read.as_str(), write.as_str(), connect.as_str()];
    // Nobody to ask: each is refused by the wall, recorded as such, and nothing happened.
    let (code, lines) = jsonl(
        &s,
        &commands,
        &["--mode", "acceptCalls", "--approve", "Bash"],
    );
    assert_eq!(code, 4, "{lines:?}");
    let refused: Vec<(&str, &str)> = lines
        .iter()
        .map(|l| {
            (
                l["blocked"]["access"].as_str().unwrap_or_default(),
                l["escalation"]["grant"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        refused,
        [("read", "read"), ("write", "write"), ("network", "network")],
        "{lines:?}"
    );
    for line in &lines {
        assert_eq!(line["failure"], "blocked", "{line}");
        assert_eq!(line["escalation"]["decidedBy"], "noPerson", "{line}");
    }
    assert!(!made.exists());
    assert!(!connected(&listener));
    // With the flags the escalations name, each runs.
    let write_flag = format!("--allow-write={dir}");
    let flags = [
        "--mode",
        "acceptCalls",
        "--approve",
        "Bash",
        "--allow-read",
        &dir,
        &write_flag,
        "--allow-network",
    ];
    let (code, lines) = jsonl(&s, &commands, &flags);
    assert_eq!(code, 0, "{lines:?}");
    assert_eq!(
        lines[0]["structuredContent"]["stdout"],
        format!("{SECRET}\n")
    );
    for line in &lines {
        assert!(line.get("blocked").is_none(), "{line}");
        assert_eq!(line["structuredContent"]["exitCode"], 0, "{line}");
    }
    assert_eq!(std::fs::read_to_string(&made).unwrap(), "done\n");
    assert!(connected(&listener), "--allow-network did not connect");
}

#[test]
fn serve_mcp_asks_the_escalation_by_elicitation_and_runs_it_again_in_the_pool() {
    let s = Scene::new();
    let mut raw = Raw::start(&s.ctx, &["--mode", "acceptCalls"]);
    raw.initialize("2025-11-25", true);
    let command = "cat $PWD/../outside/notes.txt";
    let id = raw.request(
        "tools/call",
        json!({"name": "Bash", "arguments": {"command": command}}),
    );
    let elicit = raw.next();
    assert_eq!(elicit["method"], "elicitation/create", "{elicit}");
    let message = elicit["params"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("read-only sandbox refused to read"),
        "{elicit}"
    );
    raw.send(&json!({"jsonrpc": "2.0", "id": elicit["id"],
                     "result": {"action": "accept", "content": {"decision": "allowOnce"}}}));
    let result = raw.next();
    assert_eq!(result["id"], id, "{result}");
    let meta = &result["result"]["_meta"];
    assert_eq!(meta["finch/blocked"]["access"], "read", "{result}");
    assert_eq!(
        meta["finch/escalation"]["decidedBy"], "card:allowOnce",
        "{result}"
    );
    assert_eq!(
        result["result"]["structuredContent"]["stdout"],
        format!("{SECRET}\n"),
        "{result}"
    );

    // Cancelled while its escalation is asked: the card is taken back, the call ends
    // cancelled and nothing runs again.
    let id = raw.request(
        "tools/call",
        json!({"name": "Bash", "arguments": {"command": command}}),
    );
    let elicit = raw.next();
    assert_eq!(elicit["method"], "elicitation/create", "{elicit}");
    // (The form stays unanswered: the cancellation alone ends it.)
    raw.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": id}}),
    );
    // A later call is answered: the host thread was not held by the first.
    let later = raw.request(
        "tools/call",
        json!({"name": "Read", "arguments": {"file_path": "f.txt"}}),
    );
    let mut answers = vec![raw.next()];
    if answers[0]["id"] != later {
        answers.push(raw.next());
    }
    let last = answers.last().unwrap();
    assert_eq!(last["id"], later, "{answers:?}");
    for answer in &answers {
        assert!(
            !answer.to_string().contains(SECRET),
            "it ran again: {answer}"
        );
    }
    // Records are written a moment after their answers (`[host] record_delay`).
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let calls = loop {
        let calls: Vec<Value> = s
            .ctx
            .transcripts()
            .iter()
            .flat_map(|t| s.ctx.tool_calls(t))
            .collect();
        if calls.len() >= 3 || std::time::Instant::now() > deadline {
            break calls;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(calls.len(), 3, "{calls:?}");
    let second = &calls[1];
    assert_eq!(
        second["escalation"]["decidedBy"], "card:withdrawn",
        "{calls:?}"
    );
    assert!(
        !second["result"].to_string().contains(SECRET),
        "it ran again: {second}"
    );
}
