//! Permission cards on a real terminal (SPEC §8.4): the `finch` binary runs in a pseudo-terminal
//! with the sealed environment of `TestContext`, and the test answers its cards as a person
//! would. Without a terminal a card is denied with wording that says nobody could be asked.

use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::time::{Duration, Instant};

use expectrl::{Eof, Expect, Session};
use serde_json::{Value, json};

use crate::common::TestContext;

/// How long any expected text may take to appear (a loaded 2-core machine is slow).
pub(crate) const PATIENCE: Duration = Duration::from_secs(10);

/// The last line of a card, once the choices are on screen.
pub(crate) const CARD_SHOWN: &str = "Esc denies.";

/// `finch` in a pseudo-terminal: it has a controlling terminal, so `/dev/tty` opens.
pub(crate) struct Pty {
    session: expectrl::session::OsSession,
    /// Everything shown so far, for failure messages.
    seen: String,
}

impl Pty {
    pub(crate) fn spawn(ctx: &TestContext, args: &[&str]) -> Pty {
        Pty::spawn_env(ctx, args, &[])
    }

    /// `spawn` with more environment (`COLUMNS` for a narrow terminal).
    pub(crate) fn spawn_env(ctx: &TestContext, args: &[&str], env: &[(&str, &str)]) -> Pty {
        let args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
        Pty::spawn_program(ctx, env!("CARGO_BIN_EXE_finch").as_ref(), &args, env)
    }

    /// Any program in the pseudo-terminal, with finch's sealed environment.
    pub(crate) fn spawn_program(
        ctx: &TestContext,
        program: &std::ffi::OsStr,
        args: &[&std::ffi::OsStr],
        env: &[(&str, &str)],
    ) -> Pty {
        let mut cmd = std::process::Command::new(program);
        cmd.env_clear()
            .env("HOME", &ctx.home)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("FINCH_RUNTIME_HOME", &ctx.runtime)
            .env("FINCH_AGENT_HOME", &ctx.agent)
            .env("NO_COLOR", "1")
            .env("COLUMNS", "100")
            .current_dir(&ctx.work)
            .args(args);
        for (key, value) in env {
            cmd.env(key, value);
        }
        Pty::spawn_command(cmd)
    }

    /// A command prepared by the caller (its environment sealed) in the pseudo-terminal.
    pub(crate) fn spawn_command(cmd: std::process::Command) -> Pty {
        let session = Session::spawn(cmd).expect("spawn finch in a pty");
        Pty {
            session,
            seen: String::new(),
        }
    }

    /// Waits for `needle` and returns everything shown up to and including it. Waits with
    /// `poll` on the terminal instead of expectrl's own `expect`, which spins a core.
    #[track_caller]
    pub(crate) fn expect(&mut self, needle: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            match self.session.check(needle) {
                Ok(found) if !found.is_empty() => {
                    let text = String::from_utf8_lossy(found.as_bytes()).into_owned();
                    self.seen.push_str(&text);
                    return text;
                }
                Ok(_) => {}
                Err(expectrl::Error::Eof) => {
                    panic!("finch exited before showing {needle:?}:\n{}", self.rest())
                }
                Err(e) => panic!("reading the terminal: {e}\n{}", self.seen),
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "no {needle:?} within {PATIENCE:?}:\n{}",
                self.rest()
            );
            self.wait(left.min(Duration::from_millis(500)));
        }
    }

    fn wait(&self, wait: Duration) {
        let mut fd = libc::pollfd {
            fd: self.session.get_stream().as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = libc::c_int::try_from(wait.as_millis()).unwrap_or(libc::c_int::MAX);
        // SAFETY: one pollfd we own; the result only says whether to look again.
        unsafe { libc::poll(&mut fd, 1, ms) };
    }

    /// What was seen, and whatever is still unread.
    fn rest(&mut self) -> String {
        let mut text = self.seen.clone();
        if let Ok(found) = self.session.check(expectrl::Regex("(?s).+")) {
            text.push_str(&String::from_utf8_lossy(found.as_bytes()));
        }
        text
    }

    /// Everything the program wrote, up to the last `expect`.
    pub(crate) fn seen(&self) -> &str {
        &self.seen
    }

    /// Sets the terminal's size, as a person resizing the window would.
    pub(crate) fn resize(&mut self, cols: u16, rows: u16) {
        self.session
            .get_process_mut()
            .set_window_size(cols, rows)
            .expect("resize the terminal");
    }

    pub(crate) fn send(&mut self, keys: &str) {
        self.session.send(keys).expect("type on the terminal");
    }

    /// Reads to the end and returns the exit code and the output after the last `expect`.
    #[track_caller]
    pub(crate) fn finish(mut self) -> (i32, String) {
        let tail = self.expect_eof();
        let status = self.session.get_process().wait().expect("wait for finch");
        let code = match status {
            expectrl::process::unix::WaitStatus::Exited(_, code) => code,
            other => panic!("finch did not exit normally: {other:?}\n{}", self.seen),
        };
        (code, tail)
    }

    #[track_caller]
    fn expect_eof(&mut self) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Ok(found) = self.session.check(Eof)
                && !found.is_empty()
            {
                let text = String::from_utf8_lossy(found.as_bytes()).into_owned();
                self.seen.push_str(&text);
                return text;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "finch did not exit within {PATIENCE:?}:\n{}",
                self.seen
            );
            self.wait(left.min(Duration::from_millis(500)));
        }
    }
}

fn tool_call(ctx: &TestContext, tool: &str, args: Value) -> Pty {
    Pty::spawn(ctx, &["tool", "call", tool, &args.to_string(), "--json"])
}

/// The `decidedBy` of every call in the run's one transcript.
fn decided_by(ctx: &TestContext) -> Vec<String> {
    let transcripts = ctx.transcripts();
    assert_eq!(transcripts.len(), 1, "one transcript: {transcripts:?}");
    ctx.tool_calls(&transcripts[0])
        .iter()
        .map(|c| c["decidedBy"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn allow_once_runs_the_command() {
    let ctx = TestContext::new();
    let mut pty = tool_call(&ctx, "Bash", json!({"command": "touch made-by-card"}));
    let card = pty.expect(CARD_SHOWN);
    assert!(card.contains("Permission needed: Bash"), "{card}");
    assert!(card.contains("touch made-by-card"), "{card}");
    assert!(card.contains("1) Allow once"), "{card}");
    pty.send("1");
    pty.expect("Allowed once");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    assert!(ctx.work.join("made-by-card").exists());
    assert_eq!(decided_by(&ctx), ["card:allowOnce"]);
}

#[test]
fn a_card_is_taken_back_when_the_mcp_client_cancels_its_call() {
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("small.txt"), "after the card\n").unwrap();
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/mcp_tty_client.py");
    let finch = env!("CARGO_BIN_EXE_finch");
    let args = [script.as_os_str(), finch.as_ref()];
    let finch_args = ["run", "--serve", "mcp", "--mode", "acceptCalls"];
    let args: Vec<&std::ffi::OsStr> = args
        .into_iter()
        .chain(finch_args.iter().map(std::ffi::OsStr::new))
        .collect();
    let mut pty = Pty::spawn_program(&ctx, "python3".as_ref(), &args, &[]);
    let card = pty.expect(CARD_SHOWN);
    assert!(card.contains("touch ran.out"), "{card}");
    std::fs::write(ctx.work.join("cancel-now"), "").unwrap();
    pty.expect("withdrawn — the caller cancelled the call");
    pty.expect("CLIENT DONE");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(ctx.work.join("report.json")).unwrap())
            .unwrap();
    let received = report["received"].as_array().unwrap();
    let read = received
        .iter()
        .find(|m| m["id"] == 3)
        .expect("Read answered");
    assert!(
        read["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .contains("after the card"),
        "{read}"
    );
    assert!(
        !received.iter().any(|m| m["id"] == 2),
        "the cancelled call was answered: {report}"
    );
    assert!(!ctx.work.join("ran.out").exists(), "the cancelled call ran");
    assert_eq!(decided_by(&ctx)[0], "card:withdrawn");
}

#[test]
fn deny_refuses_the_call() {
    let ctx = TestContext::new();
    let mut pty = tool_call(&ctx, "Bash", json!({"command": "touch made-by-card"}));
    pty.expect(CARD_SHOWN);
    pty.send("n");
    pty.expect("Denied");
    let (code, tail) = pty.finish();
    assert_eq!(code, 4, "{tail}");
    assert!(!ctx.work.join("made-by-card").exists());
    assert_eq!(decided_by(&ctx), ["card:deny"]);
}

#[test]
fn ctrl_c_at_a_card_denies() {
    let ctx = TestContext::new();
    let mut pty = tool_call(&ctx, "Bash", json!({"command": "touch made-by-card"}));
    pty.expect(CARD_SHOWN);
    pty.send("\x03");
    let (code, tail) = pty.finish();
    assert_eq!(code, 4, "{tail}");
    assert!(!ctx.work.join("made-by-card").exists());
    assert_eq!(decided_by(&ctx), ["card:deny"]);
}

#[test]
fn deny_with_a_reason_tells_the_model() {
    let ctx = TestContext::new();
    let mut pty = tool_call(&ctx, "Bash", json!({"command": "touch made-by-card"}));
    pty.expect(CARD_SHOWN);
    pty.send("r");
    pty.expect("Tell the model why");
    pty.send("use the build dir instead\r");
    pty.expect("Denied; the model is told: use the build dir instead");
    let (code, tail) = pty.finish();
    assert_eq!(code, 4, "{tail}");
    assert!(
        tail.contains("said: use the build dir instead"),
        "the refusal carries the reason:\n{tail}"
    );
    assert!(!ctx.work.join("made-by-card").exists());
    assert_eq!(decided_by(&ctx), ["card:denyWithReason"]);
}

#[test]
fn an_unanswered_card_times_out_denied() {
    let ctx = TestContext::new();
    ctx.write_config("[host]\ncard_timeout = \"1s\"\n");
    let mut pty = tool_call(&ctx, "Bash", json!({"command": "touch made-by-card"}));
    pty.expect("Denied after 1s.");
    pty.expect("timed out — denied");
    let (code, tail) = pty.finish();
    assert_eq!(code, 4, "{tail}");
    assert!(!ctx.work.join("made-by-card").exists());
    assert_eq!(decided_by(&ctx), ["card:timeout"]);
}

#[test]
fn session_allow_is_offered_for_an_ordinary_command() {
    let ctx = TestContext::new();
    let mut pty = tool_call(&ctx, "Bash", json!({"command": "touch x"}));
    let card = pty.expect(CARD_SHOWN);
    assert!(card.contains("2) Allow for this session"), "{card}");
    // An approved Bash call runs in the workspace-write sandbox, or without it: by its
    // letter only.
    assert!(card.contains("Press 1-4 or y/s/n/r/u"), "{card}");
    assert!(
        card.contains("   Allow once, without the sandbox  [u]"),
        "{card}"
    );
    assert!(card.contains("workspace-write sandbox"), "{card}");
    pty.send("n");
    assert_eq!(pty.finish().0, 4);
}

#[test]
fn allow_without_the_sandbox_runs_the_approved_command_unconfined() {
    let ctx = TestContext::new();
    let outside = ctx.base().join("outside-made");
    let command = format!("touch {}", outside.display());
    // In the workspace-write sandbox the write outside is refused, and the card that follows
    // offers to write that directory; denied, the refusal stands…
    let mut pty = tool_call(&ctx, "Bash", json!({ "command": command }));
    pty.expect(CARD_SHOWN);
    pty.send("1");
    pty.expect("Allowed once");
    let card = pty.expect(CARD_SHOWN);
    assert!(
        card.contains("workspace-write sandbox refused to write"),
        "{card}"
    );
    pty.send("n");
    let (code, tail) = pty.finish();
    assert_eq!(code, 4, "{tail}");
    assert!(
        !outside.exists(),
        "workspace-write let a write outside through"
    );
    // …and "without the sandbox" lets the person's command do what it says.
    let mut pty = tool_call(&ctx, "Bash", json!({ "command": command }));
    pty.expect(CARD_SHOWN);
    pty.send("u");
    pty.expect("Allowed once, without the sandbox");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    assert!(outside.exists());
    let calls: Vec<Value> = ctx
        .transcripts()
        .iter()
        .flat_map(|t| ctx.tool_calls(t))
        .collect();
    let sandboxes: Vec<&str> = calls.iter().filter_map(|c| c["sandbox"].as_str()).collect();
    assert_eq!(sandboxes, ["workspace-write", "none"]);
}

#[test]
fn a_fast_lane_read_of_keys_gets_no_card_since_nothing_may_allow_it() {
    let ctx = TestContext::new();
    std::fs::create_dir_all(ctx.home.join(".ssh")).unwrap();
    std::fs::write(ctx.home.join(".ssh/id_test"), "PRIVATE-KEY\n").unwrap();
    // `$HOME` hides the path from the classifier: the fast lane runs it, the wall stops it,
    // and no escalation is offered: keys are never readable.
    let args = json!({"command": "cat $HOME/.ssh/id_test"}).to_string();
    let pty = Pty::spawn(
        &ctx,
        &[
            "tool",
            "call",
            "Bash",
            &args,
            "--mode",
            "acceptCalls",
            "--json",
        ],
    );
    let (code, tail) = pty.finish();
    assert_eq!(code, 4, "{tail}");
    assert!(!tail.contains("Permission needed"), "{tail}");
    assert!(!tail.contains("PRIVATE-KEY"), "{tail}");
    assert!(tail.contains("keys and credentials"), "{tail}");
    let calls = ctx.tool_calls(&ctx.transcripts()[0]);
    assert_eq!(calls[0]["blocked"]["access"], "read", "{calls:?}");
    assert!(calls[0].get("escalation").is_none(), "{calls:?}");
}

#[test]
fn session_allow_is_not_offered_for_a_destructive_command() {
    let ctx = TestContext::new();
    std::fs::create_dir(ctx.work.join("x")).unwrap();
    let mut pty = tool_call(&ctx, "Bash", json!({"command": "rm -rf x"}));
    let card = pty.expect(CARD_SHOWN);
    assert!(!card.contains("Allow for this session"), "{card}");
    assert!(
        card.contains("HIGH"),
        "destructive shows as high risk:\n{card}"
    );
    // The numbers close up (issue 31): Deny is 2 here; letters stay.
    assert!(card.contains("2) Deny"), "{card}");
    assert!(card.contains("Press 1-3 or y/n/r/u"), "{card}");
    // "s" means nothing on this card; the card stays up until a real answer.
    pty.send("s");
    pty.send("n");
    pty.expect("Denied");
    let (code, tail) = pty.finish();
    assert_eq!(code, 4, "{tail}");
    assert!(ctx.work.join("x").is_dir());
    assert_eq!(decided_by(&ctx), ["card:deny"]);
}

#[test]
fn session_allow_is_not_offered_for_the_minitool_dispatcher() {
    let ctx = TestContext::new();
    let mut pty = tool_call(&ctx, "MiniTool", json!({"action": "list"}));
    let card = pty.expect(CARD_SHOWN);
    assert!(card.contains("Permission needed: MiniTool"), "{card}");
    assert!(!card.contains("Allow for this session"), "{card}");
    pty.send("n");
    let (code, tail) = pty.finish();
    assert_eq!(code, 4, "{tail}");
    assert_eq!(decided_by(&ctx), ["card:deny"]);
}

#[test]
fn allow_for_session_spares_the_same_call_a_second_card() {
    let ctx = TestContext::new();
    let mut pty = Pty::spawn(&ctx, &["run"]);
    pty.send("Bash {\"command\":\"touch a\"}\n");
    pty.expect(CARD_SHOWN);
    pty.send("s");
    pty.expect("Allowed for this session");
    // The terminal is back in line mode once the outcome shows: the console reads these.
    pty.send("Bash {\"command\":\"touch a\"}\n");
    pty.send("/quit\n");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    assert!(
        !tail.contains("Permission needed"),
        "no second card:\n{tail}"
    );
    assert!(ctx.work.join("a").exists());
    assert_eq!(decided_by(&ctx), ["card:allowForSession", "sessionAllow"]);
}

#[test]
fn without_a_terminal_a_card_is_denied() {
    let ctx = TestContext::new();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_finch"));
    cmd.env_clear()
        .env("HOME", &ctx.home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("FINCH_RUNTIME_HOME", &ctx.runtime)
        .env("FINCH_AGENT_HOME", &ctx.agent)
        .env("NO_COLOR", "1")
        .current_dir(&ctx.work)
        .args([
            "tool",
            "call",
            "Bash",
            r#"{"command":"touch made-by-card"}"#,
            "--json",
        ])
        .stdin(std::process::Stdio::null());
    // A new session has no controlling terminal, even when the tests run from one.
    // SAFETY: setsid is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let out = cmd.output().expect("finch runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(4), "{stdout}");
    let record: Value = serde_json::from_str(&stdout).expect("a JSON call record");
    assert_eq!(record["decision"], "deny");
    assert_eq!(record["failure"], "refused");
    assert_eq!(record["decidedBy"], "noPerson");
    let text = record["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("nobody to ask"), "{text}");
    assert!(text.contains("--approve Bash"), "{text}");
    assert!(!ctx.work.join("made-by-card").exists());
}

#[test]
fn enter_on_a_high_risk_card_denies() {
    let ctx = TestContext::new();
    std::fs::create_dir(ctx.work.join("x")).unwrap();
    let mut pty = tool_call(&ctx, "Bash", json!({"command": "rm -rf x"}));
    let card = pty.expect(CARD_SHOWN);
    assert!(card.contains("HIGH"), "{card}");
    assert!(
        card.contains("› 2) Deny"),
        "the cursor starts on Deny:\n{card}"
    );
    pty.send("\r");
    pty.expect("Denied");
    let (code, tail) = pty.finish();
    assert_eq!(code, 4, "{tail}");
    assert!(ctx.work.join("x").is_dir());
    assert_eq!(decided_by(&ctx), ["card:deny"]);
}

#[test]
fn keys_typed_before_the_card_opens_are_flushed() {
    let ctx = TestContext::new();
    let mut pty = tool_call(&ctx, "Bash", json!({"command": "touch made-by-card"}));
    // Typed at once, long before the card is drawn: "y" would allow, "Read" would pick
    // "Deny and tell the model why" and give it "ead".
    pty.send("yRead");
    let card = pty.expect(CARD_SHOWN);
    assert!(card.contains("Permission needed: Bash"), "{card}");
    pty.send("n");
    pty.expect("Denied");
    let (code, tail) = pty.finish();
    assert_eq!(code, 4, "{tail}");
    assert!(!ctx.work.join("made-by-card").exists());
    assert_eq!(decided_by(&ctx), ["card:deny"]);
}

#[test]
fn a_card_fits_a_narrow_terminal_and_names_what_the_session_allow_covers() {
    let ctx = TestContext::new();
    let mut pty = Pty::spawn_env(
        &ctx,
        &[
            "tool",
            "call",
            "Bash",
            &json!({"command": "touch one-file two-file three-file four-file five-file six-file"})
                .to_string(),
            "--json",
        ],
        &[("COLUMNS", "60")],
    );
    pty.resize(60, 40);
    let card = pty.expect("5m.");
    for line in card.lines() {
        let width = line.trim_end_matches('\r').chars().count();
        assert!(width < 60, "{width} columns: {line:?}\n{card}");
    }
    assert!(card.contains("this exact command only"), "{card}");
    assert!(card.contains("Esc denies."), "the footer is whole:\n{card}");
    assert!(card.contains("six-file"), "the command is whole:\n{card}");
    pty.send("n");
    assert_eq!(pty.finish().0, 4);
}

/// Issue 31: an Edit card shows the change as a unified diff, with the file's context.
#[test]
fn an_edit_card_shows_the_diff_of_the_change() {
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("main.rs"), "fn main() {\n    old();\n}\n").unwrap();
    let mut pty = tool_call(
        &ctx,
        "Edit",
        json!({"file_path": "main.rs", "old_string": "old();", "new_string": "new();"}),
    );
    let card = pty.expect(CARD_SHOWN);
    let at = card.find("change    +1 −1 lines").expect(&card);
    let shown: Vec<&str> = card[at..]
        .lines()
        .skip(1)
        .take(5)
        .map(str::trim_end)
        .collect();
    assert_eq!(
        shown,
        [
            "  @@ -1,3 +1,3 @@",
            "   fn main() {",
            "  -    old();",
            "  +    new();",
            "   }"
        ],
        "{card}"
    );
    pty.send("n");
    pty.expect("Denied");
    assert_eq!(pty.finish().0, 4);
    assert_eq!(
        std::fs::read_to_string(ctx.work.join("main.rs")).unwrap(),
        "fn main() {\n    old();\n}\n"
    );
}

/// Issue 31: a Write card shows the size and the first lines of the content, and says what
/// is hidden.
#[test]
fn a_write_card_shows_the_size_and_the_first_lines() {
    let ctx = TestContext::new();
    let content: String = (1..=20).map(|i| format!("row {i}\n")).collect();
    let mut pty = tool_call(
        &ctx,
        "Write",
        json!({"file_path": "rows.txt", "content": content}),
    );
    let card = pty.expect(CARD_SHOWN);
    assert!(
        card.contains("content   131 bytes, 20 lines; a new file"),
        "{card}"
    );
    let rows: Vec<&str> = card.lines().map(str::trim_end).collect();
    assert!(rows.contains(&"  row 1"), "{card}");
    assert!(rows.contains(&"  row 12"), "{card}");
    assert!(!card.contains("row 13"), "{card}");
    assert!(card.contains("… 8 more lines not shown"), "{card}");
    pty.send("y");
    pty.expect("Allowed once");
    assert_eq!(pty.finish().0, 0);
    assert_eq!(
        std::fs::read_to_string(ctx.work.join("rows.txt")).unwrap(),
        content
    );
}
