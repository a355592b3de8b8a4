//! Issue 31, item 4: `finch tool call` speaks to the person — `finch tool call Glob …`, `finch
//! tool search`, `you denied` — where the host's message advises the model (use Glob, call
//! ToolSearch, do not retry); the model keeps its own words in `--jsonl` and `--json`.

use serde_json::json;

use crate::common::TestContext;

#[test]
fn a_missing_file_names_the_finch_command_that_finds_it() {
    let ctx = TestContext::new();
    let missing = ctx.work.join("nope.txt");
    let out = ctx.run(&[
        "tool",
        "call",
        "Read",
        "file_path=nope.txt",
        "--approve",
        "Read",
    ]);
    out.failure(1);
    assert_eq!(
        out.stderr(),
        format!(
            "Error: `{}` does not exist\n\
             hint: find it with `finch tool call Glob pattern='**/nope.txt'`\n",
            missing.display()
        ),
        "{out}"
    );

    let out = ctx.run(&[
        "tool",
        "call",
        "Edit",
        "file_path=nope.txt",
        "old_string=a",
        "new_string=b",
        "--approve",
        "Edit",
    ]);
    out.failure(1);
    assert_eq!(
        out.stderr(),
        format!(
            "Error: `{path}` does not exist\n\
             hint: create it with `finch tool call Write file_path='{path}' content=…`\n\
             hint: find it with `finch tool call Glob pattern='**/nope.txt'`\n",
            path = missing.display()
        ),
        "{out}"
    );
}

#[test]
fn the_model_keeps_its_own_words_in_jsonl_and_json() {
    let ctx = TestContext::new();
    let (responses, out) = ctx.jsonl(
        &["--approve", "Read"],
        &[json!({"id": 1, "tool": "Read", "arguments": {"file_path": "nope.txt"}})],
    );
    out.failure(1);
    let answer = responses[0].to_string();
    assert!(
        answer.contains("Check the path, or use Glob to find the file."),
        "{answer}"
    );
    let out = ctx.run(&[
        "--json",
        "tool",
        "call",
        "Read",
        "file_path=nope.txt",
        "--approve",
        "Read",
    ]);
    out.failure(1);
    assert!(out.stdout().contains("use Glob to find the file"), "{out}");
}

/// Issue 31, item 3: error lines and `tool info` wrapped mid-word (the terminal's own wrap) or
/// not at all; on a terminal they wrap at spaces to its width, on a pipe never.
#[test]
fn errors_and_tool_info_wrap_at_spaces_on_a_terminal_only() {
    let ctx = TestContext::new();
    let pty =
        crate::cards::Pty::spawn_env(&ctx, &["tool", "call", "NoSuchTool"], &[("COLUMNS", "60")]);
    let (code, shown) = pty.finish();
    assert_eq!(code, 3, "{shown}");
    insta::assert_snapshot!(shown.replace('\r', ""), @r"
    Error: there is no tool named `NoSuchTool`
    hint: find one by what it does with `finch tool search
          <words>`, or list them with `finch tool list`
    ");
    let piped = ctx.run(&["tool", "call", "NoSuchTool"]);
    piped.failure(3);
    assert_eq!(piped.stderr().lines().count(), 2, "{piped}");

    let pty = crate::cards::Pty::spawn_env(&ctx, &["tool", "info", "Write"], &[("COLUMNS", "60")]);
    let (code, shown) = pty.finish();
    assert_eq!(code, 0, "{shown}");
    let shown = shown.replace('\r', "");
    // Every line, the parameters' table too, within the 60 columns.
    let prose = shown.as_str();
    for line in prose.lines() {
        assert!(
            unicode_width::UnicodeWidthStr::width(line) <= 60,
            "{line:?}\n{shown}"
        );
    }
    assert!(
        prose.contains("\nWrite a file to the local filesystem: creates"),
        "{shown}"
    );
    let piped = ctx.run(&["tool", "info", "Write"]);
    assert!(
        piped.stdout().lines().any(|l| l.len() > 200),
        "the description in one line on a pipe:\n{piped}"
    );
}

/// `tool info`'s parameters as a table, each description wrapped at spaces to the columns left
/// (before: pretty JSON the terminal cut mid-word at 60 columns); the screen from the table on.
#[test]
fn tool_info_shows_the_parameters_as_a_table_that_fits_the_terminal() {
    let ctx = TestContext::new();
    for cols in [60u16, 100] {
        let width = cols.to_string();
        let mut pty =
            crate::cards::Pty::spawn_env(&ctx, &["tool", "info", "Read"], &[("COLUMNS", &width)]);
        pty.resize(cols, 80);
        pty.expect("parameters:");
        let (code, tail) = pty.finish();
        assert_eq!(code, 0, "{tail}");
        let seen = format!("parameters:{tail}");
        let rows = crate::screen::rows(&seen, cols, 80);
        let shown: Vec<String> = rows
            .iter()
            .map(|r| format!("{r:w$}|", w = usize::from(cols)))
            .collect();
        insta::assert_snapshot!(format!("tool_info_parameters_{cols}"), shown.join("\n"));
    }
}

/// Issue 43, item 5: arguments that break the schema are named to the person without the
/// model's "Call `Read` again …"; `--json` keeps the model's words.
#[test]
fn invalid_arguments_read_as_the_persons_words() {
    let ctx = TestContext::new();
    let out = ctx.run(&["tool", "call", "Read", r#"{"file_path": 3}"#]);
    out.failure(1);
    assert_eq!(
        out.stderr(),
        "Error: Invalid arguments for `Read`:\n- /file_path: 3 is not of type \"string\"\n"
    );
    let json = ctx.run(&["tool", "call", "Read", r#"{"file_path": 3}"#, "--json"]);
    json.failure(1);
    assert!(
        json.json()["content"][0]["text"]
            .as_str()
            .unwrap()
            .ends_with("Call `Read` again with arguments that match its input schema."),
        "{json}"
    );
}

/// Issue 43, item 5: a word that is not key=value is answered with a parameter of the tool
/// called, not with `file_path=src/main.rs` for every tool.
#[test]
fn the_key_value_hint_names_a_parameter_of_the_tool() {
    let ctx = TestContext::new();
    let out = ctx.run(&["tool", "call", "Glob", "src"]);
    out.failure(2);
    // Before finch opens anything, the schema is not known yet: the hint says where it is.
    assert_eq!(
        out.stderr(),
        "Error: `src` is not key=value; write each argument as name=value (`finch tool info \
         Glob` lists them), or one JSON object\nhint: pass one JSON object, e.g. finch tool \
         call Glob '{\"key\":\"value\"}', or key=value pairs\n"
    );
    let console = ctx
        .cmd()
        .args(["run", "--mode", "acceptCalls"])
        .write_stdin("Bash ls\n")
        .output()
        .unwrap();
    let stderr = String::from_utf8(console.stderr).unwrap();
    assert!(
        stderr.contains("`ls` is not key=value; write e.g. Bash command=…, or one JSON object"),
        "{stderr}"
    );
}

/// Issue 43, item 5: a fast-lane Write's status line says why it was let through (it stays in
/// the workspace), not `read-only`.
#[test]
fn a_fast_lane_write_is_allowed_inside_the_workspace() {
    let ctx = TestContext::new();
    let out = ctx.run(&[
        "tool",
        "call",
        "Write",
        "file_path=made.txt",
        "content=x",
        "--mode",
        "acceptCalls",
        "-v",
    ]);
    out.success();
    assert!(ctx.work.join("made.txt").exists());
    let verdict = out.stderr();
    assert!(
        verdict.starts_with("✓ Write — allowed (inside the workspace), "),
        "{verdict}"
    );
}

/// Issue 43, item 5: Esc on a card in the console says "Not run: you denied `Bash`." — not
/// the model's "Do not retry the same call"; the transcript keeps the model's words.
#[test]
fn a_denied_card_in_the_console_reads_as_the_persons_words() {
    let ctx = TestContext::new();
    let mut pty = crate::cards::Pty::spawn(&ctx, &["run"]);
    pty.expect("finch> ");
    pty.send("Bash command=\"touch denied\"\r");
    pty.expect(crate::cards::CARD_SHOWN);
    pty.send("\x1b");
    let shown = pty.expect("finch> ");
    assert!(shown.contains("Not run: you denied `Bash`."), "{shown}");
    assert!(!shown.contains("Do not retry"), "{shown}");
    pty.send("/quit\r");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    assert!(!ctx.work.join("denied").exists());
    let transcript = &ctx.transcripts()[0];
    let call = &ctx.tool_calls(transcript)[0];
    assert_eq!(call["decidedBy"], "card:deny", "{call}");
}

/// Issue 43, item 6: `sandbox status` wraps each detail at spaces under its column (before:
/// whole lines the terminal cut mid-word at 60 columns). Judged on the screen a terminal of
/// that width shows: the same words as on a pipe, none cut in two, each row within the width.
#[test]
fn sandbox_status_wraps_at_spaces_under_its_column() {
    let ctx = TestContext::new();
    let piped = ctx.run(&["sandbox", "status"]);
    piped.success();
    let words = |text: &str| -> Vec<String> { text.split_whitespace().map(String::from).collect() };
    for cols in [60u16, 100] {
        let width = cols.to_string();
        let pty =
            crate::cards::Pty::spawn_env(&ctx, &["sandbox", "status"], &[("COLUMNS", &width)]);
        let (code, shown) = pty.finish();
        assert_eq!(code, 0, "{shown}");
        let rows = crate::screen::rows(&shown, cols, 60);
        let screen = rows.join("\n");
        assert_eq!(words(&screen), words(&piped.stdout()), "{cols}:\n{screen}");
        for row in &rows {
            let continued = row.starts_with(&" ".repeat(11));
            let headed = row.starts_with('✓') || row.starts_with('⚠');
            assert!(continued || headed, "{cols}: {row:?}\n{screen}");
        }
    }
}

/// The newcomer re-review of issue 43: `add` on a terminal says the next step, `finch enable
/// <id>`, after the official line, and wraps at spaces (before: the terminal cut the official
/// line mid-word at 60 columns); on a pipe the official lines alone, whole, as the app reads.
#[test]
fn add_on_a_terminal_names_the_next_step_and_wraps_at_spaces() {
    let words = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let official =
        "Installed only. Open Finch → Toolcase → Mini Tools to review permissions and enable.";
    let ctx = TestContext::new();
    let src = ctx.work.join("weather-src");
    crate::common::fixtures::MiniTool::new("weather", "1.0.0").write_to(&src);
    let mut pty =
        crate::cards::Pty::spawn_env(&ctx, &["add", src.to_str().unwrap()], &[("COLUMNS", "60")]);
    pty.resize(60, 24);
    let (code, shown) = pty.finish();
    assert_eq!(code, 0, "{shown}");
    let screen = words(&crate::screen::rows(&shown, 60, 24).join("\n"));
    assert!(screen.contains(official), "{screen}");
    assert!(
        screen.contains(&format!(
            "{official} `finch enable weather` enables it from here."
        )),
        "{screen}"
    );

    let ctx = TestContext::new();
    let src = ctx.work.join("weather-src");
    crate::common::fixtures::MiniTool::new("weather", "1.0.0").write_to(&src);
    let piped = ctx.run(&["add", src.to_str().unwrap()]);
    piped.success();
    assert!(
        piped.stdout().contains(&format!("  {official}\n")),
        "{piped}"
    );
    assert!(!piped.stdout().contains("finch enable"), "{piped}");
}
