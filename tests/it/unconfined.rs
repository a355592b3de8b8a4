//! Mini tools where the kernel cannot confine them (issue 29, item 3; `minitool::confine`):
//! such a mini tool starts only once a person agreed for its id — `--approve-unconfined <id>`,
//! or the card on a terminal — and the agreement is recorded; with nobody to ask it does not
//! start and its tools answer an error that says how to agree.
//!
//! The kernel really cannot confine here: each finch runs with a seccomp filter, installed
//! before exec by `without_landlock`, that makes `landlock_create_ruleset` fail with `ENOSYS`,
//! as on a kernel built without Landlock; finch's own probe then finds none (`finch sandbox
//! status --json` says `unavailable`). No switch inside finch is involved.

use std::os::unix::process::CommandExt;
use std::process::Command;

use serde_json::{Value, json};

use crate::cards::{CARD_SHOWN, Pty};
use crate::common::Run;
use crate::confine::{Scene, install, text_of};

/// The card's heading.
const CARD_HEADING: &str = "without confinement?";

/// Installs in `cmd`'s process, before exec, a seccomp filter under which
/// `landlock_create_ruleset` fails with `ENOSYS` (every other call is allowed): finch and what
/// it starts see a kernel without Landlock.
fn without_landlock(cmd: &mut Command) {
    use libc::{BPF_ABS, BPF_JEQ, BPF_JMP, BPF_K, BPF_LD, BPF_RET, BPF_W, sock_filter};
    let machine: u32 = match std::env::consts::ARCH {
        "x86_64" => 62,
        "aarch64" => 183,
        "riscv64" => 243,
        other => panic!("no seccomp architecture for {other}"),
    };
    let arch = machine | 0x8000_0000 | 0x4000_0000;
    let op = |code: u32, jt: u8, jf: u8, k: u32| sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    };
    let program = [
        op(BPF_LD | BPF_W | BPF_ABS, 0, 0, 4), // the architecture
        op(BPF_JMP | BPF_JEQ | BPF_K, 0, 3, arch),
        op(BPF_LD | BPF_W | BPF_ABS, 0, 0, 0), // the call's number
        op(
            BPF_JMP | BPF_JEQ | BPF_K,
            0,
            1,
            libc::SYS_landlock_create_ruleset as u32,
        ),
        op(
            BPF_RET | BPF_K,
            0,
            0,
            libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32,
        ),
        op(BPF_RET | BPF_K, 0, 0, libc::SECCOMP_RET_ALLOW),
    ];
    // SAFETY: prctl and the seccomp call are async-signal-safe and read only `program`, built
    // before the fork and moved into the hook.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            let fprog = libc::sock_fprog {
                len: program.len() as u16,
                filter: program.as_ptr() as *mut sock_filter,
            };
            let set_mode_filter: libc::c_uint = 1;
            if libc::syscall(
                libc::SYS_seccomp,
                set_mode_filter,
                0 as libc::c_uint,
                &fprog as *const libc::sock_fprog,
            ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// `finch args…` with no terminal, on a kernel without Landlock.
fn run(s: &Scene, args: &[&str]) -> Run {
    let mut cmd = s.ctx.std_cmd();
    without_landlock(&mut cmd);
    cmd.args(args).stdin(std::process::Stdio::null());
    Run(cmd.output().expect("finch runs"))
}

/// `finch tool call escape_attempt {"what": what} --json` with `extra` flags, no terminal,
/// on a kernel without Landlock.
fn attempt(s: &Scene, what: &str, extra: &[&str]) -> Run {
    let args = json!({ "what": what }).to_string();
    let mut all = vec![
        "tool",
        "call",
        "escape_attempt",
        &args,
        "--json",
        "--approve",
        "escape_attempt",
    ];
    all.extend_from_slice(extra);
    run(s, &all)
}

/// The grants file, or `null` when there is none.
fn grants(s: &Scene) -> Value {
    let path = s.ctx.runtime.join("sandbox.json");
    if path.exists() {
        s.ctx.read_json(&path)
    } else {
        Value::Null
    }
}

/// Asserts the refusal names both ways a person agrees.
#[track_caller]
fn assert_names_the_ways_to_agree(text: &str) {
    assert!(text.contains("--approve-unconfined escape"), "{text}");
    assert!(
        text.contains("finch sandbox grant escape unconfined"),
        "{text}"
    );
    assert!(text.contains("no Landlock"), "why: {text}");
}

#[test]
fn the_filter_really_takes_landlock_away_and_status_says_why_and_who_is_agreed() {
    let s = Scene::new();
    let out = run(&s, &["sandbox", "status", "--json"]);
    out.success();
    let status = out.json();
    assert_eq!(
        status["landlock"],
        json!({"abi": null, "status": "unavailable"})
    );
    assert_eq!(status["minitools"]["status"], "unavailable", "{status}");
    assert_eq!(
        status["minitools"]["why"],
        "this kernel has no Landlock (not built in, or disabled at boot)"
    );
    assert_eq!(status["minitools"]["unconfined"], json!([]));

    run(&s, &["sandbox", "grant", "escape", "unconfined"]).success();
    run(&s, &["sandbox", "grant", "other", "network"]).success();
    let out = run(&s, &["sandbox", "status", "--json"]);
    assert_eq!(out.json()["minitools"]["unconfined"], json!(["escape"]));
    let out = run(&s, &["sandbox", "status"]);
    out.success();
    let line = out
        .stdout()
        .lines()
        .find(|l| l.contains("minitool"))
        .unwrap_or_default()
        .to_string();
    assert_eq!(
        line,
        "⚠ minitool unavailable (this kernel has no Landlock (not built in, or disabled at boot)): \
         a mini tool starts only once a person agreed that it runs unconfined \
         (--approve-unconfined <id>, its card on a terminal, or `finch sandbox grant <id> unconfined`); \
         agreed: escape",
        "{out}"
    );
}

#[test]
fn without_an_agreement_a_mini_tool_does_not_start_and_its_tools_say_how_to_agree() {
    let s = Scene::new();
    // Were it started, activate() would write outside (nothing confines it here).
    let dir = s.minitool("escape", json!({}), &["write"]);
    let dir = dir.display().to_string();

    // finch tool call: exit 4 (needs a person), a refused call naming both ways to agree.
    let out = attempt(&s, "storage", &["--minitool", &dir]);
    out.failure(4);
    let record = out.json();
    assert_eq!(record["failure"], "refused", "{record}");
    assert_eq!(record["decidedBy"], "notStarted", "{record}");
    assert_names_the_ways_to_agree(&text_of(&record));
    out.stderr_has("escape refused");

    // finch run --jsonl: the tool answers the same error; a scripted run with a refused call
    // exits 4.
    let mut cmd = s.ctx.std_cmd();
    without_landlock(&mut cmd);
    let request = json!({"id": 1, "tool": "escape_attempt", "arguments": {"what": "storage"}});
    let out = Run(assert_cmd::Command::from_std(cmd)
        .args([
            "run",
            "--jsonl",
            "--mode",
            "acceptCalls",
            "--minitool",
            &dir,
        ])
        .write_stdin(format!("{request}\n"))
        .output()
        .unwrap());
    assert_eq!(out.code(), 4, "{out}");
    let answer: Value = serde_json::from_str(out.stdout().lines().next().unwrap()).unwrap();
    assert_eq!(answer["isError"], true, "{answer}");
    assert_names_the_ways_to_agree(&text_of(&answer));

    // finch run --serve mcp: the same error in the call's result (the MCP client, and the
    // finch it starts, run under the filter).
    let plan = json!({"elicitation": null, "steps": [
        crate::serve_mcp::call("escape_attempt", json!({"what": "storage"}))
    ]});
    let mut cmd = crate::serve_mcp::client(
        &s.ctx,
        &plan,
        &["--mode", "acceptCalls", "--minitool", &dir],
    );
    // SAFETY: setsid is async-signal-safe and touches no memory of this process.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    without_landlock(&mut cmd);
    let out = Run(cmd.output().expect("python3 runs"));
    assert_eq!(out.code(), 0, "the MCP client failed:\n{out}");
    let report = crate::serve_mcp::Report(out.json());
    assert_eq!(report.result(0)["isError"], true, "{}", report.0);
    assert_eq!(report.decided_by(0), "notStarted", "{}", report.0);
    assert_names_the_ways_to_agree(&report.text(0));

    // Installed: finch reload --json reports it refused, exit 4.
    install(&s, "escape", json!({}), &["write"]);
    let out = run(&s, &["reload", "--json"]);
    out.failure(4);
    let report = out.json();
    let escape = &report["minitools"][0];
    assert_eq!(escape["status"], "refused", "{report}");
    assert_eq!(escape["sandbox"]["status"], "refused", "{report}");
    assert_names_the_ways_to_agree(escape["error"].as_str().unwrap());
    out.stderr_has("nobody agreed")
        .stderr_has("finch reload --approve-unconfined escape");

    // Nothing ran, nothing was recorded.
    assert!(!s.outside.exists(), "the mini tool ran");
    assert!(
        !s.ctx
            .runtime
            .join("extension-data/escape/mine.txt")
            .exists(),
        "the tool ran"
    );
    assert_eq!(grants(&s), Value::Null);
}

#[test]
fn approve_unconfined_starts_it_records_the_agreement_and_the_next_run_needs_no_flag() {
    let s = Scene::new();
    let dir = s.minitool("escape", json!({}), &["write"]);
    let dir = dir.display().to_string();
    // Unknown keys of the grants file are kept.
    std::fs::create_dir_all(&s.ctx.runtime).unwrap();
    std::fs::write(
        s.ctx.runtime.join("sandbox.json"),
        r#"{"note": "kept", "minitools": {"other": {"shell": true}}}"#,
    )
    .unwrap();

    let out = attempt(
        &s,
        "sh",
        &["--minitool", &dir, "--approve-unconfined", "escape"],
    );
    out.success();
    let record = out.json();
    // Unconfined for real: a shell ran, and activate() wrote outside.
    assert_eq!(
        record["structuredContent"]["result"], "shell ran",
        "{record}"
    );
    assert!(s.outside.exists());
    // The permanent grant is said, without -v and despite --json.
    out.stderr_has(&format!(
        "warning: --approve-unconfined escape saved a permanent grant: mini tool escape runs unconfined (every right of your user) in every run from now on; recorded in {} (`finch sandbox revoke escape unconfined` takes it back)\n",
        s.ctx.runtime.join("sandbox.json").display()
    ));
    assert_eq!(
        grants(&s),
        json!({"note": "kept", "minitools": {"other": {"shell": true}, "escape": {"unconfined": true}}})
    );

    // The next start asks nobody.
    std::fs::remove_file(&s.outside).unwrap();
    let out = attempt(&s, "storage", &["--minitool", &dir]);
    out.success();
    assert_eq!(out.json()["isError"], false);
    assert!(s.outside.exists());

    // reload shows it started unconfined, and why.
    install(&s, "escape", json!({}), &[]);
    let out = run(&s, &["reload", "--json"]);
    out.success();
    let escape = &out.json()["minitools"][0];
    assert_eq!(escape["status"], "activated", "{escape}");
    assert_eq!(
        escape["sandbox"],
        json!({"filesystem": "none", "network": false, "shell": false, "status": "unconfined",
               "why": "this kernel has no Landlock (not built in, or disabled at boot)"})
    );

    // A revoke takes it back: refused again.
    run(&s, &["sandbox", "revoke", "escape", "unconfined"]).success();
    run(&s, &["reload", "--json"]).failure(4);
}

#[test]
fn reload_approve_unconfined_records_it_too() {
    let s = Scene::new();
    install(&s, "escape", json!({}), &[]);
    let out = run(&s, &["reload", "--approve-unconfined", "escape"]);
    out.success();
    out.stdout_has("✓ escape activated");
    assert_eq!(
        grants(&s),
        json!({"minitools": {"escape": {"unconfined": true}}})
    );
}

/// `finch tool call escape_attempt {"what":"storage"}` in a pseudo-terminal, on a kernel
/// without Landlock.
fn attempt_on_a_terminal(s: &Scene, dir: &str) -> Pty {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_finch"));
    cmd.env_clear()
        .env("HOME", &s.ctx.home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("FINCH_RUNTIME_HOME", &s.ctx.runtime)
        .env("FINCH_AGENT_HOME", &s.ctx.agent)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .current_dir(&s.ctx.work)
        .args([
            "tool",
            "call",
            "escape_attempt",
            r#"{"what":"storage"}"#,
            "--json",
            "--approve",
            "escape_attempt",
            "--minitool",
            dir,
        ]);
    without_landlock(&mut cmd);
    Pty::spawn_command(cmd)
}

#[test]
fn on_a_terminal_a_card_asks_once_deny_then_allow_and_typed_ahead_keys_do_not_answer() {
    let s = Scene::new();
    let dir = s.minitool("escape", json!({"network": true}), &[]);
    let dir = dir.display().to_string();
    let storage = s.ctx.runtime.join("extension-data/escape/mine.txt");

    // Deny, with a "y" typed before the card was drawn: the card still waits.
    let mut pty = attempt_on_a_terminal(&s, &dir);
    pty.send("y");
    let card = pty.expect(CARD_SHOWN);
    assert!(
        card.contains("Run mini tool escape without confinement?"),
        "{card}"
    );
    assert!(
        card.contains("declares  filesystem none, network true, shell false"),
        "{card}"
    );
    assert!(card.contains("no Landlock"), "{card}");
    assert!(
        card.contains("› 2) Deny"),
        "the cursor starts on Deny:\n{card}"
    );
    pty.send("n");
    pty.expect("Denied: escape does not start");
    let (code, tail) = pty.finish();
    assert_eq!(code, 4, "{tail}");
    assert!(tail.contains("--approve-unconfined escape"), "{tail}");
    assert!(!storage.exists());
    assert_eq!(grants(&s), Value::Null);

    // Allow: it runs, and the agreement is recorded.
    let mut pty = attempt_on_a_terminal(&s, &dir);
    pty.expect(CARD_SHOWN);
    pty.send("1");
    pty.expect("Allowed: escape runs unconfined (recorded)");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    assert!(storage.exists());
    assert_eq!(
        grants(&s),
        json!({"minitools": {"escape": {"unconfined": true}}})
    );

    // Once per id: no card the next time.
    std::fs::remove_file(&storage).unwrap();
    let pty = attempt_on_a_terminal(&s, &dir);
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    assert!(!tail.contains(CARD_HEADING), "{tail}");
    assert!(storage.exists());
}

#[test]
fn the_console_asks_before_its_first_prompt_and_the_allowed_mini_tool_answers() {
    let s = Scene::new();
    let dir = s.minitool("escape", json!({}), &[]);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_finch"));
    cmd.env_clear()
        .env("HOME", &s.ctx.home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("FINCH_RUNTIME_HOME", &s.ctx.runtime)
        .env("FINCH_AGENT_HOME", &s.ctx.agent)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .current_dir(&s.ctx.work)
        .args([
            "run",
            "--mode",
            "acceptCalls",
            "--approve",
            "escape_attempt",
        ])
        .arg("--minitool")
        .arg(&dir);
    without_landlock(&mut cmd);
    let mut pty = Pty::spawn_command(cmd);
    let card = pty.expect(CARD_SHOWN);
    assert!(card.contains(CARD_HEADING), "{card}");
    assert!(!card.contains("finch> "), "the card comes first:\n{card}");
    pty.send("y");
    pty.expect("Allowed: escape runs unconfined (recorded)");
    pty.expect("finch> ");
    pty.send("escape_attempt {\"what\":\"sh\"}\r");
    pty.expect("shell ran");
    pty.expect("finch> ");
    pty.send("/quit\r");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    assert_eq!(
        grants(&s),
        json!({"minitools": {"escape": {"unconfined": true}}})
    );
}

#[test]
fn finch_test_runs_the_package_unconfined_only_once_a_person_agreed_for_its_id() {
    let s = Scene::new();
    let dir = s.minitool("escape", json!({}), &[]);
    std::fs::write(
        dir.join("finch.test.json"),
        json!({"cases": [{"name": "a shell runs", "tool": "attempt", "args": {"what": "sh"},
                          "expect": {"isError": false, "contains": "shell ran"}}]})
        .to_string(),
    )
    .unwrap();
    let dir = dir.display().to_string();
    let out = run(&s, &["test", &dir, "--no-build"]);
    assert_ne!(out.code(), 0, "{out}");
    assert!(
        format!("{out}").contains("--approve-unconfined escape"),
        "the refusal says how to agree: {out}"
    );
    run(&s, &["sandbox", "grant", "escape", "unconfined"]).success();
    let out = run(&s, &["test", &dir, "--no-build"]);
    out.success();
}

#[test]
fn finch_dev_approve_unconfined_records_it_and_opens_the_console() {
    let s = Scene::new();
    let dir = s.minitool("escape", json!({}), &[]);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_finch"));
    cmd.env_clear()
        .env("HOME", &s.ctx.home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("FINCH_RUNTIME_HOME", &s.ctx.runtime)
        .env("FINCH_AGENT_HOME", &s.ctx.agent)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .current_dir(&s.ctx.work)
        .arg("dev")
        .arg(&dir)
        .args(["--approve-unconfined", "escape"]);
    without_landlock(&mut cmd);
    let mut pty = Pty::spawn_command(cmd);
    let shown = pty.expect("finch> ");
    assert!(!shown.contains(CARD_HEADING), "no card: {shown}");
    pty.send("/quit\r");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    assert_eq!(
        grants(&s),
        json!({"minitools": {"escape": {"unconfined": true}}})
    );
}

/// Issue 43, item 5: without an agreement, `finch tool call` (no --json) says why the mini
/// tool did not start once — not its message twice (the start's warning, then the call's
/// error) — and exits 4.
#[test]
fn the_unconfined_refusal_is_said_once() {
    let s = Scene::new();
    let dir = s.minitool("escape", json!({}), &["write"]);
    let dir = dir.display().to_string();
    let args = json!({ "what": "storage" }).to_string();
    let out = run(
        &s,
        &[
            "tool",
            "call",
            "escape_attempt",
            &args,
            "--approve",
            "escape_attempt",
            "--minitool",
            &dir,
        ],
    );
    out.failure(4);
    let stderr = out.stderr();
    assert_eq!(
        stderr
            .matches("--approve-unconfined escape, or run `finch sandbox grant escape")
            .count(),
        1,
        "{stderr}"
    );
    assert!(
        stderr.ends_with(
            "Error: Not run: its mini tool was not started; the warning above says why.\n"
        ),
        "{stderr}"
    );
    assert!(!s.outside.exists(), "the mini tool ran");
}
