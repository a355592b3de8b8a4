//! The file built-ins (`Read`, `Write`, `Edit`, `Grep`, `Glob`) through `finch tool call`: each
//! happy path, each documented error, the gateway around them (fast lane in `acceptCalls`,
//! refusal in `ask` mode without a TTY and outside the working directory), symbolic links that
//! lead out of it, and the transcript record of a call.

use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::common::{Run, TestContext};

/// `finch tool call <tool> <json> --json --mode acceptCalls`: the fast lane runs file tools
/// inside the work directory without a card.
pub(crate) fn call(ctx: &TestContext, tool: &str, args: Value) -> Run {
    ctx.run(&[
        "tool",
        "call",
        tool,
        &args.to_string(),
        "--json",
        "--mode",
        "acceptCalls",
    ])
}

/// The text of a successful call.
#[track_caller]
pub(crate) fn ok_text(run: &Run) -> String {
    run.success();
    let record = run.json();
    assert_eq!(record["isError"], false, "{run}");
    record["content"][0]["text"].as_str().unwrap().to_string()
}

/// The message of a call the tool itself rejected (exit 1, `toolError`).
#[track_caller]
pub(crate) fn error_text(run: &Run) -> String {
    run.failure(1);
    let record = run.json();
    assert_eq!(record["failure"], "toolError", "{run}");
    assert_eq!(record["isError"], true);
    record["content"][0]["text"].as_str().unwrap().to_string()
}

#[track_caller]
fn assert_has(text: &str, needle: &str) {
    assert!(text.contains(needle), "{needle:?} not in:\n{text}");
}

fn write(ctx: &TestContext, rel: &str, content: impl AsRef<[u8]>) {
    let path = ctx.work.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

fn set_age(path: &Path, secs: u64) {
    let when = SystemTime::now() - Duration::from_secs(secs);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89";

// ---------------------------------------------------------------- Read

#[test]
fn read_numbers_lines_and_pages_through_a_file() {
    let ctx = TestContext::new();
    let lines: String = (1..=5).map(|i| format!("line {i}\r\n")).collect();
    write(&ctx, "notes.txt", &lines);

    let text = ok_text(&call(&ctx, "Read", json!({"file_path": "notes.txt"})));
    assert_eq!(
        text,
        "     1\tline 1\n     2\tline 2\n     3\tline 3\n     4\tline 4\n     5\tline 5\n"
    );

    let text = ok_text(&call(
        &ctx,
        "Read",
        json!({"file_path": ctx.work.join("notes.txt"), "offset": 2, "limit": 2}),
    ));
    assert!(
        text.starts_with("     2\tline 2\n     3\tline 3\n"),
        "{text}"
    );
    assert_has(&text, "Showing lines 2–3");
    assert_has(&text, "Call Read with offset 4 to continue");

    let err = error_text(&call(
        &ctx,
        "Read",
        json!({"file_path": "notes.txt", "offset": 9}),
    ));
    assert_has(&err, "has 5 lines; offset 9 is past the end");
}

#[test]
fn read_cuts_long_lines_and_caps_its_output() {
    let ctx = TestContext::new();
    write(&ctx, "wide.txt", format!("{}\nnext\n", "w".repeat(5000)));
    let text = ok_text(&call(&ctx, "Read", json!({"file_path": "wide.txt"})));
    assert_has(&text, "… [line cut at 2000 characters]\n     2\tnext\n");
    assert_eq!(text.matches('w').count(), 2000);

    // 2000 lines of 200 characters pass the 256 KiB cap before the line limit.
    let big: String = (1..=3000).map(|i| format!("{i:0>200}\n")).collect();
    write(&ctx, "big.txt", big);
    let text = ok_text(&call(&ctx, "Read", json!({"file_path": "big.txt"})));
    assert!(text.len() < 270 * 1024, "{}", text.len());
    assert_has(&text, "the 256 KiB output cap was reached");
    let last = text
        .lines()
        .rev()
        .find(|l| l.contains('\t'))
        .and_then(|l| l.split('\t').next())
        .unwrap()
        .trim()
        .parse::<u64>()
        .unwrap();
    assert_has(&text, &format!("offset {} to continue", last + 1));
}

#[test]
fn read_returns_images_as_image_content() {
    let ctx = TestContext::new();
    write(&ctx, "pixel.png", PNG);
    // Content decides, not the name.
    write(&ctx, "pixel.bin", PNG);
    for name in ["pixel.png", "pixel.bin"] {
        let run = call(&ctx, "Read", json!({"file_path": name}));
        run.success();
        let record = run.json();
        assert_has(record["content"][0]["text"].as_str().unwrap(), "image/png");
        let image = &record["content"][1];
        assert_eq!(image["type"], "image");
        assert_eq!(image["mimeType"], "image/png");
        use base64::Engine as _;
        let data = base64::engine::general_purpose::STANDARD
            .decode(image["data"].as_str().unwrap())
            .unwrap();
        assert_eq!(data, PNG);
    }
}

#[test]
fn read_refuses_what_it_cannot_show() {
    let ctx = TestContext::new();
    write(&ctx, "blob.bin", b"abc\0def");
    write(&ctx, "doc.pdf", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n");
    write(&ctx, "fake.png", b"not really a png");
    write(&ctx, "empty.txt", b"");
    std::fs::create_dir_all(ctx.work.join("src")).unwrap();
    let mut huge = PNG.to_vec();
    huge.resize(6 * 1024 * 1024, 0);
    write(&ctx, "huge.png", huge);

    let err = error_text(&call(&ctx, "Read", json!({"file_path": "blob.bin"})));
    assert_has(&err, "is a binary file (it contains NUL bytes)");
    let err = error_text(&call(&ctx, "Read", json!({"file_path": "doc.pdf"})));
    assert_has(&err, "starts like a PDF but cannot be read");
    let err = error_text(&call(&ctx, "Read", json!({"file_path": "fake.png"})));
    assert_has(
        &err,
        "is named like an image (image/png) but its content does not start like one",
    );
    let err = error_text(&call(&ctx, "Read", json!({"file_path": "huge.png"})));
    assert_has(
        &err,
        "is an image of 6.0 MiB; Read returns images up to 5 MiB",
    );
    let err = error_text(&call(&ctx, "Read", json!({"file_path": "src"})));
    assert_has(
        &err,
        &format!("`{}` is a directory", ctx.work.join("src").display()),
    );
    assert_has(&err, "Use Glob");
    let err = error_text(&call(&ctx, "Read", json!({"file_path": "missing.txt"})));
    assert_has(
        &err,
        &format!(
            "`{}` does not exist",
            ctx.work.join("missing.txt").display()
        ),
    );
    let text = ok_text(&call(&ctx, "Read", json!({"file_path": "empty.txt"})));
    assert_has(&text, "is empty (0 bytes)");
}

#[cfg(unix)]
#[test]
fn read_refuses_special_files() {
    let ctx = TestContext::new();
    let fifo = ctx.work.join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("mkfifo is not available; skipping");
        return;
    }
    let err = error_text(&call(&ctx, "Read", json!({"file_path": "pipe"})));
    assert_has(&err, "is not a regular file");
}

#[test]
fn invalid_arguments_are_rejected_by_the_schema() {
    let ctx = TestContext::new();
    for (tool, args) in [
        ("Read", json!({})),
        ("Read", json!({"file_path": "x", "limit": 0})),
        ("Read", json!({"file_path": "x", "extra": 1})),
        ("Write", json!({"file_path": "x"})),
        ("Edit", json!({"file_path": "x", "old_string": "a"})),
        ("Grep", json!({"pattern": "x", "output_mode": "lines"})),
        ("Glob", json!({"pattern": ""})),
    ] {
        let run = call(&ctx, tool, args.clone());
        run.failure(1);
        assert_eq!(run.json()["failure"], "invalidArguments", "{tool} {args}");
    }
}

// ---------------------------------------------------------------- the gateway around them

#[test]
fn ask_mode_without_a_tty_refuses_file_tools() {
    let ctx = TestContext::new();
    write(&ctx, "a.txt", "hello\n");
    for (tool, args) in [
        ("Read", json!({"file_path": "a.txt"})),
        ("Write", json!({"file_path": "b.txt", "content": "x"})),
        (
            "Edit",
            json!({"file_path": "a.txt", "old_string": "hello", "new_string": "bye"}),
        ),
        ("Grep", json!({"pattern": "hello"})),
        ("Glob", json!({"pattern": "*.txt"})),
    ] {
        let run = ctx.run(&[
            "tool",
            "call",
            tool,
            &args.to_string(),
            "--json",
            "--mode",
            "ask",
        ]);
        run.failure(4);
        let record = run.json();
        assert_eq!(record["decision"], "deny", "{tool}");
        assert_eq!(record["failure"], "refused", "{tool}");
    }
    assert!(!ctx.work.join("b.txt").exists());
    assert_eq!(
        std::fs::read_to_string(ctx.work.join("a.txt")).unwrap(),
        "hello\n"
    );
}

#[test]
fn files_outside_the_working_directory_are_refused_in_accept_calls_mode() {
    let ctx = TestContext::new();
    let outside = ctx.base().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "secret\n").unwrap();
    for (tool, args) in [
        ("Read", json!({"file_path": outside.join("secret.txt")})),
        ("Read", json!({"file_path": "../outside/secret.txt"})),
        (
            "Write",
            json!({"file_path": outside.join("new.txt"), "content": "x"}),
        ),
        (
            "Edit",
            json!({"file_path": outside.join("secret.txt"), "old_string": "secret", "new_string": "x"}),
        ),
        ("Grep", json!({"pattern": "secret", "path": outside})),
        (
            "Glob",
            json!({"pattern": format!("{}/*.txt", outside.display())}),
        ),
    ] {
        let run = call(&ctx, tool, args.clone());
        run.failure(4);
        assert_eq!(run.json()["decidedBy"], "noPerson", "{tool} {args}");
    }
    assert!(!outside.join("new.txt").exists());
    assert_eq!(
        std::fs::read_to_string(outside.join("secret.txt")).unwrap(),
        "secret\n"
    );

    // --approve answers the card: the same Read then runs.
    let run = ctx.run(&[
        "tool",
        "call",
        "Read",
        &json!({"file_path": outside.join("secret.txt")}).to_string(),
        "--json",
        "--mode",
        "acceptCalls",
        "--approve",
        "Read",
    ]);
    assert_has(&ok_text(&run), "secret");
}

#[cfg(unix)]
#[test]
fn symbolic_links_out_of_the_working_directory_are_refused() {
    use std::os::unix::fs::symlink;
    let ctx = TestContext::new();
    let outside = ctx.base().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "secret\n").unwrap();
    symlink(outside.join("secret.txt"), ctx.work.join("link.txt")).unwrap();
    symlink(&outside, ctx.work.join("linkdir")).unwrap();

    let real = outside.join("secret.txt");
    for (tool, args) in [
        ("Read", json!({"file_path": "link.txt"})),
        // Not regular files: Read's careful path, which refuses before saying what is there.
        ("Read", json!({"file_path": "linkdir"})),
        ("Read", json!({"file_path": "linkdir/missing.txt"})),
        (
            "Write",
            json!({"file_path": "link.txt", "content": "owned"}),
        ),
        (
            "Write",
            json!({"file_path": "linkdir/new.txt", "content": "owned"}),
        ),
        (
            "Edit",
            json!({"file_path": "link.txt", "old_string": "secret", "new_string": "x"}),
        ),
        ("Grep", json!({"pattern": "secret", "path": "linkdir"})),
        ("Glob", json!({"pattern": "*", "path": "linkdir"})),
    ] {
        let err = error_text(&call(&ctx, tool, args.clone()));
        assert_has(&err, "leads through a symbolic link to");
        assert_has(&err, "outside the session's directories");
        assert_has(&err, &format!("Call {tool} again"));
    }
    let err = error_text(&call(&ctx, "Read", json!({"file_path": "link.txt"})));
    assert_has(&err, &format!("`{}`", real.display()));
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "secret\n");
    assert!(!outside.join("new.txt").exists());

    // Grep and Glob walks do not follow links either.
    let text = ok_text(&call(&ctx, "Grep", json!({"pattern": "secret"})));
    assert_has(&text, "No matches");
}

#[cfg(unix)]
#[test]
fn symbolic_links_inside_the_working_directory_are_followed() {
    use std::os::unix::fs::symlink;
    let ctx = TestContext::new();
    write(&ctx, "real/config.toml", "a = 1\n");
    symlink(
        ctx.work.join("real/config.toml"),
        ctx.work.join("config.toml"),
    )
    .unwrap();

    assert_has(
        &ok_text(&call(&ctx, "Read", json!({"file_path": "config.toml"}))),
        "a = 1",
    );
    ok_text(&call(
        &ctx,
        "Edit",
        json!({"file_path": "config.toml", "old_string": "a = 1", "new_string": "a = 2"}),
    ));
    ok_text(&call(
        &ctx,
        "Write",
        json!({"file_path": "config.toml", "content": "a = 3\n"}),
    ));
    // The link is still a link; its target changed.
    let link = ctx.work.join("config.toml");
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert_eq!(
        std::fs::read_to_string(ctx.work.join("real/config.toml")).unwrap(),
        "a = 3\n"
    );
}

#[test]
fn the_transcript_records_each_call() {
    let ctx = TestContext::new();
    write(&ctx, "a.txt", "hello\n");
    call(&ctx, "Read", json!({"file_path": "a.txt"})).success();
    call(&ctx, "Read", json!({"file_path": "nope.txt"})).failure(1);

    // Both calls of the day in this directory are in one session.
    let transcripts = ctx.transcripts();
    assert_eq!(transcripts.len(), 1, "{transcripts:?}");
    let calls = ctx.tool_calls(&transcripts[0]);
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["tool"], "Read");
    assert_eq!(calls[0]["arguments"], json!({"file_path": "a.txt"}));
    assert_eq!(calls[0]["decision"], "allow");
    assert_eq!(calls[0]["decidedBy"], "fastLane");
    assert_eq!(calls[0]["isError"], false);
    assert_eq!(calls[0]["result"]["content"][0]["text"], "     1\thello\n");
    let failed = &calls[1];
    assert_eq!(failed["isError"], true);
    assert!(
        failed["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("does not exist")
    );
}

#[test]
fn one_jsonl_run_writes_edits_and_reads_back() {
    let ctx = TestContext::new();
    let req = |id: &str, tool: &str, arguments: Value| json!({"id": id, "tool": tool, "arguments": arguments});
    let (responses, run) = ctx.jsonl(
        &["--mode", "acceptCalls"],
        &[
            req(
                "1",
                "Write",
                json!({"file_path": "src/lib.rs", "content": "fn old() {}\n"}),
            ),
            req(
                "2",
                "Edit",
                json!({"file_path": "src/lib.rs", "old_string": "old", "new_string": "new"}),
            ),
            req(
                "3",
                "Grep",
                json!({"pattern": "fn new", "output_mode": "content"}),
            ),
            req("4", "Glob", json!({"pattern": "**/*.rs"})),
        ],
    );
    assert_eq!(responses.len(), 4, "{run}");
    for r in &responses {
        assert_eq!(r["isError"], false, "{r}");
    }
    assert_eq!(
        responses[2]["content"][0]["text"],
        "src/lib.rs:1:fn new() {}"
    );
    assert_eq!(responses[3]["content"][0]["text"], "src/lib.rs");
    let transcripts = ctx.transcripts();
    assert_eq!(transcripts.len(), 1);
    let tools: Vec<Value> = ctx
        .tool_calls(&transcripts[0])
        .iter()
        .map(|c| c["tool"].clone())
        .collect();
    assert_eq!(tools, ["Write", "Edit", "Grep", "Glob"]);
}

// ---------------------------------------------------------------- Write

#[test]
fn write_creates_and_overwrites_atomically() {
    let ctx = TestContext::new();
    let run = call(
        &ctx,
        "Write",
        json!({"file_path": "deep/er/new.txt", "content": "hello\n"}),
    );
    let text = ok_text(&run);
    let path = ctx.work.join("deep/er/new.txt");
    assert_eq!(
        text,
        format!(
            "Created `{}` (6 bytes). Missing parent directories were created.",
            path.display()
        )
    );
    assert_eq!(
        run.json()["structuredContent"],
        json!({"path": path, "bytes": 6, "created": true})
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "hello\n");

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o750)).unwrap();
    }
    let text = ok_text(&call(
        &ctx,
        "Write",
        json!({"file_path": path, "content": ""}),
    ));
    assert_eq!(
        text,
        format!("Overwrote `{}` (0 bytes; it had 6).", path.display())
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o750);
    }
    assert_eq!(ctx.tree(&ctx.work.join("deep/er")), ["new.txt"]);
}

#[test]
fn write_refuses_directories_and_impossible_paths() {
    let ctx = TestContext::new();
    std::fs::create_dir_all(ctx.work.join("dir")).unwrap();
    write(&ctx, "file.txt", "x");
    let err = error_text(&call(
        &ctx,
        "Write",
        json!({"file_path": "dir", "content": "x"}),
    ));
    assert_has(&err, "is a directory; Write writes files");
    let err = error_text(&call(
        &ctx,
        "Write",
        json!({"file_path": "file.txt/child.txt", "content": "x"}),
    ));
    assert_has(
        &err,
        &format!(
            "Cannot write `{}`",
            ctx.work.join("file.txt/child.txt").display()
        ),
    );
}

// ---------------------------------------------------------------- Edit

#[test]
fn edit_replaces_one_exact_occurrence_and_shows_it() {
    let ctx = TestContext::new();
    write(
        &ctx,
        "main.rs",
        "fn main() {\n    let x = 1;\n    let y = 2;\n}\n",
    );
    let run = call(
        &ctx,
        "Edit",
        json!({"file_path": "main.rs", "old_string": "let x = 1;", "new_string": "let x = 10;"}),
    );
    let text = ok_text(&run);
    let path = ctx.work.join("main.rs");
    assert_eq!(
        text,
        format!(
            "Edited `{}`: replaced 1 occurrence.\n\n     1\tfn main() {{\n     2\t    let x = 10;\n     3\t    let y = 2;\n     4\t}}\n",
            path.display()
        )
    );
    assert_eq!(
        run.json()["structuredContent"],
        json!({"path": path, "replacements": 1})
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "fn main() {\n    let x = 10;\n    let y = 2;\n}\n"
    );
}

#[test]
fn edit_needs_a_unique_match_unless_replacing_all() {
    let ctx = TestContext::new();
    write(&ctx, "a.txt", "foo bar foo baz foo\n");
    let err = error_text(&call(
        &ctx,
        "Edit",
        json!({"file_path": "a.txt", "old_string": "foo", "new_string": "qux"}),
    ));
    assert_has(&err, "`old_string` occurs 3 times in");
    assert_has(&err, "set replace_all to true");
    assert_eq!(
        std::fs::read_to_string(ctx.work.join("a.txt")).unwrap(),
        "foo bar foo baz foo\n"
    );

    let text = ok_text(&call(
        &ctx,
        "Edit",
        json!({"file_path": "a.txt", "old_string": "foo", "new_string": "qux", "replace_all": true}),
    ));
    assert_has(&text, "replaced 3 occurrences");
    assert_eq!(
        std::fs::read_to_string(ctx.work.join("a.txt")).unwrap(),
        "qux bar qux baz qux\n"
    );

    // The spelling of the spec.
    let text = ok_text(&call(
        &ctx,
        "Edit",
        json!({"file_path": "a.txt", "old_string": "qux", "new_string": "z", "replaceAll": true}),
    ));
    assert_has(&text, "replaced 3 occurrences");

    let err = error_text(&call(
        &ctx,
        "Edit",
        json!({"file_path": "a.txt", "old_string": "z", "new_string": "y", "replace_all": true, "replaceAll": false}),
    ));
    assert_has(&err, "`replace_all` and `replaceAll` disagree");
}

#[test]
fn edit_reports_each_way_it_cannot_apply() {
    let ctx = TestContext::new();
    write(&ctx, "a.txt", "alpha\n");
    write(&ctx, "latin1.txt", b"caf\xe9\n");
    std::fs::create_dir_all(ctx.work.join("dir")).unwrap();
    let edit = |file: &str, old: &str, new: &str| {
        error_text(&call(
            &ctx,
            "Edit",
            json!({"file_path": file, "old_string": old, "new_string": new}),
        ))
    };
    assert_has(
        &edit("a.txt", "beta", "gamma"),
        "`old_string` was not found in",
    );
    assert_has(
        &edit("a.txt", "alpha", "alpha"),
        "are the same, so nothing would change",
    );
    assert_has(&edit("a.txt", "", "x"), "`old_string` is empty");
    let err = edit("missing.txt", "a", "b");
    assert_has(
        &err,
        &format!(
            "`{}` does not exist",
            ctx.work.join("missing.txt").display()
        ),
    );
    assert_has(&err, "use Write to create it");
    assert_has(&edit("latin1.txt", "caf", "cafe"), "is not UTF-8 text");
    assert_has(&edit("dir", "a", "b"), "is a directory; Edit changes files");
    assert_eq!(
        std::fs::read_to_string(ctx.work.join("a.txt")).unwrap(),
        "alpha\n"
    );
}

#[test]
fn edit_matches_plain_newlines_in_crlf_files() {
    let ctx = TestContext::new();
    write(&ctx, "win.txt", "one\r\ntwo\r\nthree\r\n");
    ok_text(&call(
        &ctx,
        "Edit",
        json!({"file_path": "win.txt", "old_string": "one\ntwo", "new_string": "1\n2"}),
    ));
    assert_eq!(
        std::fs::read_to_string(ctx.work.join("win.txt")).unwrap(),
        "1\r\n2\r\nthree\r\n"
    );
}

// ---------------------------------------------------------------- Grep

/// A small project: sources, an ignored build dir, a hidden dir, and a binary file.
fn project(ctx: &TestContext) {
    write(ctx, ".gitignore", "target/\n");
    write(
        ctx,
        "src/main.rs",
        "fn main() {\n    helper();\n}\n\nfn helper() {}\n",
    );
    write(ctx, "src/util.py", "def helper():\n    return 1\n");
    write(ctx, "README.md", "# Helper\nCall helper() to help.\n");
    write(ctx, "target/out.rs", "fn helper() {}\n");
    write(ctx, ".hidden/x.rs", "fn helper() {}\n");
    write(ctx, "data.bin", b"helper\0\x01\x02");
}

#[test]
fn grep_lists_matching_files_by_default() {
    let ctx = TestContext::new();
    project(&ctx);
    let text = ok_text(&call(&ctx, "Grep", json!({"pattern": "helper"})));
    assert_eq!(text, "README.md\nsrc/main.rs\nsrc/util.py");
    let text = ok_text(&call(
        &ctx,
        "Grep",
        json!({"pattern": "HELPER", "-i": true, "path": "src", "output_mode": "files"}),
    ));
    assert_eq!(text, "src/main.rs\nsrc/util.py");
    let text = ok_text(&call(&ctx, "Grep", json!({"pattern": "nowhere"})));
    assert_eq!(
        text,
        "No matches for `nowhere` in `.`.\n\n(1 binary file was skipped.)"
    );
}

#[test]
fn grep_shows_lines_with_numbers_and_context() {
    let ctx = TestContext::new();
    project(&ctx);
    let text = ok_text(&call(
        &ctx,
        "Grep",
        json!({"pattern": "helper\\(\\)", "output_mode": "content", "path": "src"}),
    ));
    assert_eq!(
        text,
        "src/main.rs:2:    helper();\nsrc/main.rs:5:fn helper() {}\nsrc/util.py:1:def helper():"
    );

    let text = ok_text(&call(
        &ctx,
        "Grep",
        json!({"pattern": "return", "output_mode": "content", "-B": 1, "-n": false}),
    ));
    assert_eq!(text, "src/util.py-def helper():\nsrc/util.py:    return 1");

    let text = ok_text(&call(
        &ctx,
        "Grep",
        json!({"pattern": "main|helper", "output_mode": "content", "-C": 1, "glob": "*.rs"}),
    ));
    assert_eq!(
        text,
        "src/main.rs:1:fn main() {\nsrc/main.rs:2:    helper();\nsrc/main.rs-3-}\nsrc/main.rs-4-\nsrc/main.rs:5:fn helper() {}"
    );

    // One file: lines without its name.
    let text = ok_text(&call(
        &ctx,
        "Grep",
        json!({"pattern": "fn", "output_mode": "content", "path": "src/main.rs"}),
    ));
    assert_eq!(text, "1:fn main() {\n5:fn helper() {}");
}

#[test]
fn grep_counts_and_limits() {
    let ctx = TestContext::new();
    project(&ctx);
    let text = ok_text(&call(
        &ctx,
        "Grep",
        json!({"pattern": "helper", "output_mode": "count"}),
    ));
    assert_eq!(
        text,
        "README.md:1\nsrc/main.rs:2\nsrc/util.py:1\n\n(4 matching lines in 3 files.)"
    );
    let text = ok_text(&call(
        &ctx,
        "Grep",
        json!({"pattern": "helper", "head_limit": 2, "type": "rust", "output_mode": "content"}),
    ));
    assert_eq!(
        text,
        "src/main.rs:2:    helper();\nsrc/main.rs:5:fn helper() {}"
    );
    let text = ok_text(&call(
        &ctx,
        "Grep",
        json!({"pattern": "helper", "head_limit": 1}),
    ));
    assert!(
        text.starts_with("README.md\n\n(Stopped at head_limit 1"),
        "{text}"
    );
}

#[test]
fn grep_filters_by_glob_and_type() {
    let ctx = TestContext::new();
    project(&ctx);
    let files = |args: Value| ok_text(&call(&ctx, "Grep", args));
    assert_eq!(
        files(json!({"pattern": "helper", "type": "py"})),
        "src/util.py"
    );
    assert_eq!(
        files(json!({"pattern": "helper", "glob": "*.md *.py"})),
        "README.md\nsrc/util.py"
    );
    assert_eq!(
        files(json!({"pattern": "helper", "glob": "!*.md", "type": "rust"})),
        "src/main.rs"
    );
    assert_eq!(
        files(json!({"pattern": "helper", "glob": "src/**/*.{rs,py}"})),
        "src/main.rs\nsrc/util.py"
    );
}

#[test]
fn grep_matches_across_lines_in_multiline_mode() {
    let ctx = TestContext::new();
    project(&ctx);
    let text = ok_text(&call(
        &ctx,
        "Grep",
        json!({"pattern": "main\\(\\) \\{\\n\\s+helper", "multiline": true, "output_mode": "content"}),
    ));
    assert_eq!(
        text,
        "src/main.rs:1:fn main() {\nsrc/main.rs:2:    helper();"
    );
}

#[test]
fn grep_reports_bad_arguments() {
    let ctx = TestContext::new();
    project(&ctx);
    let err = error_text(&call(&ctx, "Grep", json!({"pattern": "fn (main"})));
    assert_has(&err, "Invalid regular expression `fn (main`");
    assert_has(&err, "escape literal");
    let err = error_text(&call(&ctx, "Grep", json!({"pattern": "a\\nb"})));
    assert_has(&err, "set `multiline` to true");
    let err = error_text(&call(
        &ctx,
        "Grep",
        json!({"pattern": "x", "type": "klingon"}),
    ));
    assert_has(&err, "Unknown file type `klingon`");
    let err = error_text(&call(
        &ctx,
        "Grep",
        json!({"pattern": "x", "glob": "src/[z"}),
    ));
    assert_has(&err, "Invalid glob `src/[z`");
    let err = error_text(&call(
        &ctx,
        "Grep",
        json!({"pattern": "x", "path": "nowhere"}),
    ));
    assert_has(&err, "`nowhere` does not exist");
}

#[test]
fn grep_caps_its_output() {
    let ctx = TestContext::new();
    let line = format!("{}\n", "match ".repeat(50));
    write(&ctx, "big.txt", line.repeat(1000));
    let text = ok_text(&call(
        &ctx,
        "Grep",
        json!({"pattern": "match", "output_mode": "content"}),
    ));
    assert!(text.len() < 66 * 1024, "{}", text.len());
    assert_has(&text, "(Output cut at 64 KiB; there is more.");
}

// ---------------------------------------------------------------- Glob

#[test]
fn glob_lists_files_newest_first() {
    let ctx = TestContext::new();
    project(&ctx);
    for (rel, age) in [
        ("src/main.rs", 30),
        ("src/util.py", 20),
        ("README.md", 10),
        (".gitignore", 5),
        ("data.bin", 40),
    ] {
        set_age(&ctx.work.join(rel), age);
    }
    let glob = |args: Value| ok_text(&call(&ctx, "Glob", args));
    assert_eq!(
        glob(json!({"pattern": "**/*"})),
        "README.md\nsrc/util.py\nsrc/main.rs\ndata.bin"
    );
    assert_eq!(glob(json!({"pattern": "**/*.rs"})), "src/main.rs");
    assert_eq!(
        glob(json!({"pattern": "src/*.{rs,py}"})),
        "src/util.py\nsrc/main.rs"
    );
    assert_eq!(
        glob(json!({"pattern": "*", "path": "src"})),
        "src/util.py\nsrc/main.rs"
    );
    assert_eq!(glob(json!({"pattern": "**/.gitignore"})), ".gitignore");
    assert_eq!(glob(json!({"pattern": ".hidden/*.rs"})), ".hidden/x.rs");
    assert_eq!(glob(json!({"pattern": "src/main.rs"})), "src/main.rs");
    assert_eq!(
        glob(json!({"pattern": format!("{}/src/*.rs", ctx.work.display())})),
        "src/main.rs"
    );
    assert_eq!(
        glob(json!({"pattern": "*.rs"})),
        format!(
            "No files match `*.rs` in `.`. `*` does not cross directories: use `**/*.rs` to \
             search subdirectories too."
        )
    );
}

#[test]
fn glob_caps_the_list_and_says_so() {
    let ctx = TestContext::new();
    for i in 0..205 {
        write(&ctx, &format!("many/f{i:03}.txt"), "");
        set_age(&ctx.work.join(format!("many/f{i:03}.txt")), 1000 - i);
    }
    let text = ok_text(&call(&ctx, "Glob", json!({"pattern": "many/*.txt"})));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "many/f204.txt");
    assert_eq!(lines[199], "many/f005.txt");
    assert_eq!(
        lines[201],
        "(Showing the 200 most recently modified of 205 files; narrow the pattern or path to see the rest.)"
    );
}

#[test]
fn glob_reports_bad_arguments() {
    let ctx = TestContext::new();
    project(&ctx);
    let err = error_text(&call(&ctx, "Glob", json!({"pattern": "src/[z*"})));
    assert_has(&err, "Invalid glob pattern `src/[z*`");
    let err = error_text(&call(
        &ctx,
        "Glob",
        json!({"pattern": "*.rs", "path": "nowhere"}),
    ));
    assert_has(&err, "`nowhere` does not exist");
    let err = error_text(&call(
        &ctx,
        "Glob",
        json!({"pattern": "*", "path": "README.md"}),
    ));
    assert_has(&err, "`README.md` is a file, not a directory");
}

#[cfg(unix)]
#[test]
fn grep_and_glob_note_paths_they_cannot_read() {
    use std::os::unix::fs::PermissionsExt;
    let ctx = TestContext::new();
    write(&ctx, "open.txt", "needle\n");
    write(&ctx, "locked/inner.txt", "needle\n");
    write(&ctx, "sealed.txt", "needle\n");
    let mode = |rel: &str, m: u32| {
        std::fs::set_permissions(ctx.work.join(rel), std::fs::Permissions::from_mode(m)).unwrap()
    };
    mode("sealed.txt", 0o000);
    mode("locked", 0o000);
    // Root reads everything, so there is nothing to report.
    if std::fs::read(ctx.work.join("sealed.txt")).is_ok() {
        mode("locked", 0o755);
        eprintln!("running with permission to read mode-000 files; skipping");
        return;
    }
    let text = ok_text(&call(&ctx, "Grep", json!({"pattern": "needle"})));
    assert!(
        text.starts_with("open.txt\n\n(2 paths could not be read (first: "),
        "{text}"
    );
    let text = ok_text(&call(&ctx, "Glob", json!({"pattern": "**/*.txt"})));
    assert_has(&text, "(1 path could not be read.)");
    mode("locked", 0o755);
}
