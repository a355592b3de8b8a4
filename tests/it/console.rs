//! The `finch run` console on a real pseudo-terminal: line editing, history kept across
//! sessions, Tab completion, Ctrl-C during a call and at the prompt.

use std::time::{Duration, Instant};

use crate::cards::Pty;
use crate::common::TestContext;

const PROMPT: &str = "finch> ";
const LEFT: &str = "\x1b[D";
const UP: &str = "\x1b[A";

/// `finch run` in acceptCalls mode (a Read needs no card), plus `extra`.
fn console(ctx: &TestContext, extra: &[&str]) -> Pty {
    let mut args = vec!["run", "--mode", "acceptCalls"];
    args.extend_from_slice(extra);
    let mut pty = Pty::spawn(ctx, &args);
    pty.expect(PROMPT);
    pty
}

fn quit(mut pty: Pty) -> String {
    pty.send("/quit\r");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    tail
}

/// The tools the session's transcript recorded, with their arguments.
fn calls(ctx: &TestContext) -> Vec<serde_json::Value> {
    ctx.transcripts()
        .iter()
        .flat_map(|t| ctx.tool_calls(t))
        .map(|c| serde_json::json!({"tool": c["tool"], "arguments": c["arguments"]}))
        .collect()
}

#[test]
fn the_line_is_edited_and_the_history_outlives_the_session() {
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("notes.txt"), "the body of the notes\n").unwrap();
    let mut pty = console(&ctx, &[]);
    // Left twice and a letter typed there: the tool gets the edited text, no escape codes.
    pty.send(&format!("Read file_path=notes.xt{LEFT}{LEFT}t\r"));
    pty.expect("the body of the notes");
    pty.expect(PROMPT);
    // Up brings the line back; Enter runs it again.
    pty.send(UP);
    pty.send("\r");
    pty.expect("the body of the notes");
    pty.expect(PROMPT);
    quit(pty);
    let history = std::fs::read_to_string(ctx.runtime.join("console_history")).unwrap();
    assert!(history.contains("Read file_path=notes.txt"), "{history}");
    assert_eq!(
        history.matches("Read file_path").count(),
        1,
        "a repeated line is kept once:\n{history}"
    );

    // A new console starts with that history (`/quit` last): Up twice, Enter reads the file.
    let mut pty = console(&ctx, &[]);
    pty.send(UP);
    pty.expect("/quit");
    pty.send(UP);
    pty.expect("notes.txt");
    pty.send("\r");
    pty.expect("the body of the notes");
    pty.expect(PROMPT);
    quit(pty);
    let read = serde_json::json!({"tool": "Read", "arguments": {"file_path": "notes.txt"}});
    assert_eq!(calls(&ctx), [read.clone(), read.clone(), read]);
}

#[test]
fn tab_completes_tools_commands_and_argument_names() {
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("notes.txt"), "completed by tab\n").unwrap();
    let mut pty = console(&ctx, &[]);
    // A lone match gets the space after it.
    pty.send("Rea\t");
    pty.expect("Read ");
    pty.send("fil\t");
    pty.expect("file_path=");
    pty.send("notes.txt\r");
    pty.expect("completed by tab");
    pty.expect(PROMPT);
    // A multi-line JSON object: Enter inside the open object goes on to the next line.
    pty.send("Read {\"file_path\":\r");
    pty.send("\"notes.txt\"}\r");
    pty.expect("completed by tab");
    pty.expect(PROMPT);
    pty.send("/qu\t");
    pty.expect("/quit");
    pty.send("\r");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    let calls = calls(&ctx);
    assert_eq!(calls.len(), 2, "{calls:?}");
    for call in calls {
        assert_eq!(call["arguments"]["file_path"], "notes.txt", "{call}");
    }
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only asks whether the process exists.
    unsafe { libc::kill(pid, 0) == 0 }
}

#[test]
fn ctrl_c_cancels_a_running_bash_call_and_the_console_stays() {
    let ctx = TestContext::new();
    let mut pty = console(&ctx, &["--approve", "Bash"]);
    pty.send("Bash command=\"echo $$ > pid; exec sleep 60\"\r");
    let pid_file = ctx.work.join("pid");
    let deadline = Instant::now() + Duration::from_secs(20);
    let pid: i32 = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            break pid;
        }
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(alive(pid));
    pty.send("\x03");
    pty.expect("cancelled");
    pty.expect(PROMPT);
    let deadline = Instant::now() + Duration::from_secs(20);
    while alive(pid) {
        assert!(
            Instant::now() < deadline,
            "sleep {pid} outlived its cancelled call"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The session goes on: the next line runs.
    pty.send("/session\r");
    pty.expect("session:");
    pty.expect(PROMPT);
    quit(pty);
}

#[test]
fn ctrl_c_clears_the_line_and_a_second_one_ends_the_session() {
    let ctx = TestContext::new();
    let mut pty = console(&ctx, &[]);
    pty.send("Read file_path=never-sent");
    pty.send("\x03");
    pty.expect("Ctrl-C again");
    pty.expect(PROMPT);
    // The line was cleared: what follows is a line of its own.
    pty.send("/session\r");
    pty.expect("session:");
    pty.expect(PROMPT);
    pty.send("\x03");
    pty.expect(PROMPT);
    pty.send("\x03");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    assert_eq!(calls(&ctx), Vec::<serde_json::Value>::new(), "nothing ran");
}

#[test]
fn ctrl_d_on_an_empty_line_ends_the_session() {
    let ctx = TestContext::new();
    let mut pty = console(&ctx, &[]);
    pty.send("\x04");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
}

#[test]
fn search_prints_a_table() {
    let ctx = TestContext::new();
    let mut pty = console(&ctx, &[]);
    pty.send("/search read a file\r");
    let shown = pty.expect(PROMPT);
    assert!(shown.contains("NAME"), "{shown}");
    assert!(shown.contains("SOURCE"), "{shown}");
    assert!(shown.contains("builtin"), "{shown}");
    assert!(!shown.contains("\"name\""), "no raw JSON:\n{shown}");
    quit(pty);
}

/// The terminal's SIGINT goes to finch's process group only: a mini tool's node process runs
/// in a group of its own, so Ctrl-C that cancels a Bash call leaves it running, and the next
/// call of its tool is answered by the same process.
#[test]
fn ctrl_c_leaves_mini_tools_running() {
    let ctx = TestContext::new();
    let tool = crate::common::fixtures::MiniTool::new("pinger", "1.0.0").entry_source(
        "export function activate(ctx) {\n  ctx.tools.register({ name: \"ping\", \
         async execute() { return `pong ${process.pid}`; } });\n}\n",
    );
    let dir = ctx.base().join("src/pinger");
    tool.write_to(&dir);
    ctx.run(&["add", &dir.display().to_string()]).success();
    ctx.run(&["enable", "pinger"]).success();
    ctx.run(&["reload"]).success();
    let mut pty = console(&ctx, &["--approve", "Bash", "--approve", "pinger_ping"]);
    pty.send("pinger_ping\r");
    pty.expect("pong ");
    let pid_line = pty.expect(PROMPT);
    let node_pid: i32 = pid_line
        .split_whitespace()
        .next()
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| panic!("a pid after pong: {pid_line:?}"));
    pty.send("Bash command=\"echo $$ > pid; exec sleep 60\"\r");
    let pid_file = ctx.work.join("pid");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !pid_file.exists() {
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(100));
    pty.send("\x03");
    pty.expect("cancelled");
    pty.expect(PROMPT);
    assert!(
        alive(node_pid),
        "the mini tool's node {node_pid} survived Ctrl-C"
    );
    pty.send("pinger_ping\r");
    pty.expect(&format!("pong {node_pid}"));
    pty.expect(PROMPT);
    quit(pty);
}
