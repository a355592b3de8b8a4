//! Fewer cards where the wall holds (issue 41): a corpus of everyday read-only commands
//! (`fixtures/everyday-read-only.txt`) runs through the real binary in `acceptCalls` with the
//! wall enforced, in a small workspace, and at most 2 % of them take a card — before they run
//! (`refused`: a card nobody could answer) or after the wall refused them (an escalation).
//! Destructive commands still take their high-risk card before anything runs.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::common::{Run, TestContext};

const CORPUS: &str = include_str!("fixtures/everyday-read-only.txt");

/// A git repository holding a Cargo package, a package.json, a Python script and notes.
fn workspace(ctx: &TestContext) {
    let w = &ctx.work;
    let write = |rel: &str, text: &str| {
        let path = w.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("README.md", "# demo\n\nA small workspace.\n");
    write("notes.txt", "alpha one\nbeta two\nalpha three\n");
    write("a.txt", "x\ny\nz\n");
    write("b.txt", "x\nz\nw\n");
    write("data.json", r#"{"name": "demo", "items": ["a", "b"]}"#);
    write("script.py", "print('hello from a script')\n");
    write(
        "package.json",
        r#"{"name": "demo", "version": "1.0.0", "private": true}"#,
    );
    write(
        "Cargo.toml",
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write("src/main.rs", "fn main() {\n    // TODO: more\n}\n");
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(w)
            .env("HOME", &ctx.home)
            .env("GIT_AUTHOR_NAME", "P")
            .env("GIT_AUTHOR_EMAIL", "p@example.com")
            .env("GIT_COMMITTER_NAME", "P")
            .env("GIT_COMMITTER_EMAIL", "p@example.com")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    // The toolchain lies outside this test's home: the wall is told to read it and the fast
    // lane's environment to keep where it is, as a person with a toolchain elsewhere would.
    ctx.write_config(&format!(
        "[sandbox]\nread = [{:?}, {:?}]\nenv = [\"RUSTUP_HOME\", \"CARGO_HOME\"]\n",
        toolchain("RUSTUP_HOME", ".rustup"),
        toolchain("CARGO_HOME", ".cargo")
    ));
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-qm", "first"]);
    write(
        "notes.txt",
        "alpha one\nbeta two\nalpha three\ngamma four\n",
    );
    git(&["commit", "-qam", "second"]);
}

/// Where this test's own cargo found `var` (`RUSTUP_HOME`, `CARGO_HOME`).
fn toolchain(var: &str, in_home: &str) -> String {
    std::env::var(var)
        .unwrap_or_else(|_| format!("{}/{in_home}", std::env::var("HOME").unwrap_or_default()))
}

/// `finch tool call Bash <command> --mode acceptCalls --json` in `dir`: its record.
fn call(ctx: &TestContext, dir: &Path, command: &str) -> Value {
    let out = Run(ctx
        .cmd()
        .current_dir(dir)
        .env("RUSTUP_HOME", toolchain("RUSTUP_HOME", ".rustup"))
        .env("CARGO_HOME", toolchain("CARGO_HOME", ".cargo"))
        .args([
            "tool",
            "call",
            "Bash",
            &json!({ "command": command }).to_string(),
            "--mode",
            "acceptCalls",
            "--json",
        ])
        .output()
        .unwrap());
    out.json()
}

/// Whether the call took a card: one before it ran, or one after the wall refused it.
fn carded(record: &Value) -> bool {
    record["failure"] == "refused" || record.get("escalation").is_some()
}

#[test]
fn at_most_two_percent_of_everyday_read_only_commands_take_a_card() {
    let ctx = TestContext::new();
    workspace(&ctx);
    let commands: Vec<&str> = CORPUS
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .collect();
    assert!(commands.len() >= 100, "{} commands", commands.len());
    // Two at a time: the calls are independent, each a process of its own.
    let (left, right) = commands.split_at(commands.len() / 2);
    let ctx = &ctx;
    let run = move |part: &[&'static str]| -> Vec<(&'static str, Value)> {
        part.iter().map(|c| (*c, call(ctx, &ctx.work, c))).collect()
    };
    let records: Vec<(&str, Value)> = std::thread::scope(|s| {
        let a = s.spawn(move || run(left));
        let b = s.spawn(move || run(right));
        let mut all = a.join().unwrap();
        all.extend(b.join().unwrap());
        all
    });
    let with_card: Vec<String> = records
        .iter()
        .filter(|(_, r)| carded(r))
        .map(|(c, r)| {
            format!(
                "{c:?}: {} {}",
                r["decidedBy"],
                r.get("blocked").map(Value::to_string).unwrap_or_default()
            )
        })
        .collect();
    println!(
        "everyday read-only: {} commands, {} took a card ({:.1} %)\n{}",
        records.len(),
        with_card.len(),
        100.0 * with_card.len() as f64 / records.len() as f64,
        with_card.join("\n")
    );
    assert!(
        with_card.len() * 50 <= records.len(),
        "{} of {} took a card:\n{}",
        with_card.len(),
        records.len(),
        with_card.join("\n")
    );
    // Every one of them ran in the read-only sandbox or needed none.
    for (command, record) in &records {
        if !carded(record) {
            assert_eq!(record["sandbox"], "read-only", "{command}: {record}");
        }
    }
}

#[test]
fn destructive_commands_take_their_high_risk_card_before_anything_runs() {
    let ctx = TestContext::new();
    workspace(&ctx);
    for command in [
        "rm -rf src",
        "git reset --hard HEAD~1",
        "git clean -fdx",
        "find . -name '*.txt' -delete",
        "echo gone > notes.txt",
    ] {
        let record = call(&ctx, &ctx.work, command);
        assert_eq!(record["failure"], "refused", "{command}: {record}");
        assert!(
            record.get("sandbox").is_none(),
            "it ran: {command}: {record}"
        );
        let check = ctx.run(&[
            "policy",
            "check",
            "Bash",
            &json!({ "command": command }).to_string(),
            "--mode",
            "acceptCalls",
            "--json",
        ]);
        let verdict = check.json();
        assert_eq!(verdict["decision"], "ask", "{command}: {verdict}");
        if command.starts_with("echo") {
            // Writing, not destructive: a card first all the same.
            assert_eq!(verdict["decidedBy"], "cardRequired", "{verdict}");
        } else {
            assert_eq!(verdict["risk"], "high", "{command}: {verdict}");
        }
    }
    assert!(ctx.work.join("src/main.rs").exists());
    assert!(ctx.work.join("notes.txt").exists());
    assert_eq!(
        std::fs::read_to_string(ctx.work.join("notes.txt")).unwrap(),
        "alpha one\nbeta two\nalpha three\ngamma four\n"
    );
}
