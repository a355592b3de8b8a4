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
    // An argument of its own: in the wall the command's pids are its namespace's.
    pty.send("Bash command=\"exec sleep 60.0419\"\r");
    let sleep = || crate::common::procs::pids_running(&["sleep", "60.0419"]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while sleep().is_empty() {
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    pty.send("\x03");
    pty.expect("cancelled");
    pty.expect(PROMPT);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !sleep().is_empty() {
        assert!(
            Instant::now() < deadline,
            "sleep {:?} outlived its cancelled call",
            sleep()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The session goes on: the next line runs.
    pty.send("/session\r");
    pty.expect("session:");
    pty.expect(PROMPT);
    quit(pty);
}

/// Issue 31: Ctrl-C on a line with text clears it and never ends the session (`abc`, Ctrl-C,
/// `def`, Ctrl-C once ended it); only two in a row at an empty prompt do, and typing in
/// between starts over.
#[test]
fn ctrl_c_clears_a_line_and_only_two_at_an_empty_prompt_end_the_session() {
    let ctx = TestContext::new();
    let mut pty = console(&ctx, &[]);
    pty.send("Read file_path=never-sent");
    pty.send("\x03");
    pty.send("def");
    pty.send("\x03");
    // Both lines were cleared and the session goes on: what follows is a line of its own.
    pty.send("/session\r");
    pty.expect("session:");
    pty.expect(PROMPT);
    pty.send("\x03");
    pty.expect("Ctrl-C again");
    pty.expect(PROMPT);
    // Text typed and cleared in between: the next empty Ctrl-C warns again instead of ending.
    pty.send("abc");
    pty.send("\x03");
    pty.send("\x03");
    pty.expect("Ctrl-C again");
    pty.send("/session\r");
    pty.expect("session:");
    pty.expect(PROMPT);
    pty.send("\x03");
    pty.expect("Ctrl-C again");
    // The second Ctrl-C goes to the line editor once it has drawn its prompt again.
    pty.expect(PROMPT);
    pty.send("\x03");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    assert_eq!(calls(&ctx), Vec::<serde_json::Value>::new(), "nothing ran");
}

/// Issue 31: while a call runs the console shows a spinner with the call's time and how to
/// cancel it; a cancelled call's line says cancelled; the session's end says how to resume.
#[test]
fn a_running_call_shows_a_spinner_and_a_cancelled_one_says_so() {
    let ctx = TestContext::new();
    // indicatif draws nowhere without a TERM (or with TERM=dumb), as a terminal has one.
    let mut pty = Pty::spawn_env(
        &ctx,
        &["run", "--mode", "acceptCalls", "--approve", "Bash"],
        &[("TERM", "xterm")],
    );
    pty.expect(PROMPT);
    pty.send("Bash command=\"sleep 30\"\r");
    let shown = pty.expect("Ctrl-C to cancel");
    assert!(shown.contains("Bash"), "{shown}");
    pty.send("\x03");
    pty.expect("✗ Bash — cancelled,");
    pty.expect(PROMPT);
    pty.send("/quit\r");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    let transcripts = ctx.transcripts();
    let id = transcripts[0]
        .file_stem()
        .and_then(|s| s.to_str())
        .and_then(|s| s.rsplit('_').next())
        .unwrap()
        .to_string();
    // The id's first 8 characters, which name the one session there is.
    let short = &id[..8];
    assert!(
        tail.contains(&format!(
            "Session {short} saved; resume with `finch run --session {short}`"
        )),
        "{id}: {tail}"
    );
}

/// No spinner where stderr is no terminal.
#[test]
fn a_piped_console_shows_no_spinner() {
    let ctx = TestContext::new();
    let out = ctx
        .cmd()
        .args(["run", "--approve", "Bash"])
        .write_stdin("Bash command=\"sleep 0.5\"\n")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("Ctrl-C"), "{stderr}");
    assert!(!stderr.contains('\r'), "no redrawn line: {stderr:?}");
}

/// Issue 31: a call's time leaves out the person's time at its card (the call is `true`; the
/// card waits 2.5 s before it is answered).
#[test]
fn a_calls_time_leaves_out_the_time_at_its_card() {
    let ctx = TestContext::new();
    let mut pty = Pty::spawn(&ctx, &["run"]);
    pty.expect(PROMPT);
    pty.send("Bash command=\"touch made\"\r");
    pty.expect(crate::cards::CARD_SHOWN);
    std::thread::sleep(Duration::from_millis(2500));
    pty.send("1");
    pty.expect("✓ Bash — allowed (you allowed it once)");
    pty.expect(PROMPT);
    quit(pty);
    let transcript = &ctx.transcripts()[0];
    let call = &ctx.tool_calls(transcript)[0];
    let ms = call["durationMs"].as_f64().unwrap();
    assert!(ms < 2500.0, "the card's 2.5 s are not the call's: {ms} ms");
    assert!(ctx.work.join("made").exists());
}

/// Issue 31: a line that goes on an open JSON object has a prompt of its own.
#[test]
fn an_open_json_object_goes_on_after_a_continuation_prompt() {
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("notes.txt"), "continued\n").unwrap();
    let mut pty = console(&ctx, &[]);
    pty.send("Read {\"file_path\":\r");
    pty.expect("  ...> ");
    pty.send("\"notes.txt\"}\r");
    pty.expect("continued");
    pty.expect(PROMPT);
    // Ctrl-C drops the open entry.
    pty.send("Read {\r");
    pty.expect("  ...> ");
    pty.send("\x03");
    pty.expect(PROMPT);
    quit(pty);
    assert_eq!(calls(&ctx).len(), 1);
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
        "import fs from \"node:fs\";\nexport function activate(ctx) {\n  ctx.tools.register({ \
         name: \"ping\", async execute() { \
         return `pong ${process.pid} ${fs.readlinkSync(\"/proc/self/ns/pid\")}`; } });\n}\n",
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
    // Its pid in its own PID namespace, and that namespace: the same pair is the same process.
    let pong: Vec<&str> = pid_line.split_whitespace().take(2).collect();
    let node_pid = match pong[..] {
        [pid, ns] => pid
            .parse()
            .ok()
            .and_then(|pid| crate::common::procs::host_pid(pid, ns)),
        _ => None,
    }
    .unwrap_or_else(|| panic!("a pid and its namespace after pong: {pid_line:?}"));
    let pong = pong.join(" ");
    pty.send("Bash command=\"touch started; exec sleep 60\"\r");
    let started = ctx.work.join("started");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !started.exists() {
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(100));
    pty.send("\x03");
    pty.expect("cancelled");
    pty.expect(PROMPT);
    assert!(
        alive(node_pid as i32),
        "the mini tool's node {node_pid} survived Ctrl-C"
    );
    pty.send("pinger_ping\r");
    pty.expect(&format!("pong {pong}"));
    pty.expect(PROMPT);
    quit(pty);
}

/// Issue 31: keys typed ahead in the console, before a card is drawn (the next command line
/// begun while the call starts), never answer the card.
#[test]
fn keys_typed_ahead_in_the_console_never_answer_a_card() {
    let ctx = TestContext::new();
    let mut pty = Pty::spawn(&ctx, &["run"]);
    pty.expect(PROMPT);
    // "s" would allow the command for the session, "y" once.
    pty.send("Bash command=\"touch typed-ahead\"\rsy");
    let card = pty.expect(crate::cards::CARD_SHOWN);
    assert!(card.contains("touch typed-ahead"), "{card}");
    pty.send("n");
    pty.expect("Denied");
    pty.expect(PROMPT);
    // The keys typed ahead wait for the next line, as in a shell: Enter sends them.
    pty.send("\r");
    pty.expect("sy");
    pty.expect("no such tool");
    pty.expect(PROMPT);
    quit(pty);
    assert!(!ctx.work.join("typed-ahead").exists());
    let transcript = &ctx.transcripts()[0];
    assert_eq!(ctx.tool_calls(transcript)[0]["decidedBy"], "card:deny");
}

/// Issue 31: the banner wraps at spaces to the terminal's width (here 60 columns), where it
/// used to break words.
#[test]
fn the_banner_wraps_at_spaces_to_the_terminal_width() {
    let ctx = TestContext::new();
    let mut pty = Pty::spawn_env(&ctx, &["run"], &[("COLUMNS", "60")]);
    let shown = pty.expect(PROMPT).replace('\r', "");
    let banner: Vec<&str> = shown
        .lines()
        .take_while(|l| !l.contains(PROMPT.trim_end()))
        .collect();
    assert!(banner.len() >= 3, "the banner is wrapped: {shown}");
    for line in &banner {
        assert!(
            unicode_width::UnicodeWidthStr::width(*line) <= 60,
            "{line:?}\n{shown}"
        );
    }
    let words = banner.join(" ");
    for whole in [
        "`<Tool> <json>`,",
        "/search <query>,",
        "/help, /quit. Tab completes.",
    ] {
        assert!(words.contains(whole), "{whole:?} broken: {shown}");
    }
    quit(pty);
}

/// `/help` at 60 and 100 columns: each description wraps in its own column; bare `/mode` says
/// `mode: …`, as `/mode <mode>` does.
#[test]
fn help_keeps_its_columns_and_mode_says_mode() {
    let ctx = TestContext::new();
    for cols in [60u16, 100] {
        let width = cols.to_string();
        let mut pty = Pty::spawn_env(&ctx, &["run"], &[("COLUMNS", &width)]);
        pty.resize(cols, 60);
        pty.expect(PROMPT);
        pty.send("/help\r");
        pty.expect("/help");
        pty.expect(PROMPT);
        let rows = crate::screen::rows(pty.seen(), cols, 60);
        let start = rows
            .iter()
            .position(|r| r.starts_with("<Tool> {json}"))
            .unwrap_or_else(|| panic!("no help:\n{}", rows.join("\n")));
        let shown: Vec<String> = rows[start..rows.len() - 1]
            .iter()
            .map(|r| format!("{r:w$}|", w = usize::from(cols)))
            .collect();
        insta::assert_snapshot!(format!("console_help_{cols}"), shown.join("\n"));
        pty.send("/mode\r");
        pty.expect("mode: ask");
        pty.expect(PROMPT);
        quit(pty);
    }
}

/// Issue 43, item 5: Tab completes a path in the value of a path parameter (`file_path=REA⇥`)
/// and after `@` (`Read @sr⇥`), and `@path` gives that file to the tool's path parameter, as
/// Claude Code's `@file` names one. Judged by what the calls read and what was recorded.
#[test]
fn tab_completes_paths_and_at_gives_a_file_to_the_path_parameter() {
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("README.md"), "read me first\n").unwrap();
    std::fs::create_dir(ctx.work.join("src")).unwrap();
    std::fs::write(ctx.work.join("src/notes.txt"), "notes inside\n").unwrap();
    let mut pty = console(&ctx, &[]);
    pty.send("Read file_path=REA\t\r");
    pty.expect("read me first");
    pty.expect(PROMPT);
    pty.send("Read @sr\tno\t\r");
    pty.expect("notes inside");
    pty.expect(PROMPT);
    quit(pty);
    let read = |path: &str| serde_json::json!({"tool": "Read", "arguments": {"file_path": path}});
    assert_eq!(calls(&ctx), [read("README.md"), read("src/notes.txt")]);

    // Tab Tab lists the directory's entries under the line, at 60 and 100 columns.
    std::fs::write(ctx.work.join("Cargo.toml"), "").unwrap();
    for cols in [60u16, 100] {
        let width = cols.to_string();
        let mut pty = Pty::spawn_env(
            &ctx,
            &["run", "--mode", "acceptCalls"],
            &[("COLUMNS", &width)],
        );
        pty.resize(cols, 24);
        pty.expect(PROMPT);
        pty.send("Read file_path=\t\t");
        pty.expect("README.md");
        pty.expect("Read file_path=");
        let rows = crate::screen::rows(pty.seen(), cols, 24);
        insta::assert_snapshot!(
            format!("console_path_completion_{cols}"),
            crate::screen::from(&rows, "finch> Read", usize::from(cols))
        );
        pty.send("\x15");
        quit(pty);
    }
}

/// `finch run` on a 60-column terminal that draws the spinner (a TERM) and echoes keys as a
/// person's does (the pseudo-terminal starts without echo), at the prompt.
fn console_60(ctx: &TestContext) -> Pty {
    let finch = env!("CARGO_BIN_EXE_finch");
    let args = [
        "-c",
        "stty echo echoctl; exec \"$0\" \"$@\"",
        finch,
        "run",
        "--mode",
        "acceptCalls",
        "--approve",
        "Bash",
    ];
    let args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
    let mut pty = Pty::spawn_program(
        ctx,
        "sh".as_ref(),
        &args,
        &[("TERM", "xterm"), ("COLUMNS", "60")],
    );
    pty.resize(60, 24);
    pty.expect(PROMPT);
    pty
}

/// The screen of a 60×24 terminal after what `pty` showed.
fn screen_60(pty: &Pty) -> String {
    crate::screen::rows(pty.seen(), 60, 24).join("\n")
}

/// Issue 43, item 8: a cancelled call's spinner is gone from the screen (before: Ctrl-C's
/// echoed `^C` wrapped the spinner's full-width line, and clearing it cleared the row below).
#[test]
fn a_cancelled_calls_spinner_leaves_the_screen() {
    let ctx = TestContext::new();
    let mut pty = console_60(&ctx);
    pty.send("Bash command=\"sleep 30\"\r");
    pty.expect("Ctrl-C to cancel");
    std::thread::sleep(Duration::from_millis(300));
    pty.send("\x03");
    pty.expect("✗ Bash — cancelled,");
    pty.expect(PROMPT);
    let screen = screen_60(&pty);
    assert!(!screen.contains("Ctrl-C to cancel"), "{screen}");
    assert!(!screen.contains("^C"), "{screen}");
    quit(pty);
}

/// Issue 43, item 8: keys typed while a call runs are kept for the next prompt, which shows
/// them (not echoed over the spinner), and Enter runs them.
#[test]
fn keys_typed_while_a_call_runs_wait_for_the_next_prompt() {
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("notes.txt"), "typed ahead\n").unwrap();
    let mut pty = console_60(&ctx);
    pty.send("Bash command=\"sleep 2\"\r");
    pty.expect("Ctrl-C to cancel");
    pty.send("Read file_path=notes.txt");
    pty.expect("✓ Bash");
    pty.expect("Read file_path=notes.txt");
    let screen = screen_60(&pty);
    assert!(!screen.contains("Ctrl-C to cancel"), "{screen}");
    assert!(
        screen
            .lines()
            .last()
            .unwrap_or("")
            .starts_with("finch> Read file_path=notes.txt"),
        "{screen}"
    );
    pty.send("\r");
    pty.expect("typed ahead");
    pty.expect(PROMPT);
    quit(pty);
}

/// Issue 43, item 8: `finch tool call` shows the spinner on a terminal while the call runs,
/// gone when it ends; never on a pipe.
#[test]
fn tool_call_shows_a_spinner_on_a_terminal_only() {
    let ctx = TestContext::new();
    let mut pty = Pty::spawn_env(
        &ctx,
        &[
            "tool",
            "call",
            "Bash",
            "command=sleep 1",
            "--approve",
            "Bash",
        ],
        &[("TERM", "xterm"), ("COLUMNS", "60")],
    );
    pty.resize(60, 24);
    pty.expect("Bash 0s · Ctrl-C to cancel");
    let head = pty.seen().to_string();
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    let screen = crate::screen::rows(&format!("{head}{tail}"), 60, 24).join("\n");
    assert!(!screen.contains("Ctrl-C to cancel"), "{screen}");
    let piped = ctx.run(&[
        "tool",
        "call",
        "Bash",
        "command=sleep 0.3",
        "--approve",
        "Bash",
    ]);
    piped.success();
    assert!(!piped.stderr().contains("Ctrl-C"), "{piped}");
}
