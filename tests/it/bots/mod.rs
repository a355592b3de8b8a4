//! Bot mini tools without the desktop (issue 44, items 2–5), through the real binary: a bot
//! fixture of our own (`bot.mjs`: one agent session per chat, a secret, a settings menu that
//! logs in through dialogs), a scripted `[agent] command`, real `node`, the kernel keyring.
//! `secrets`: `finch secret` and the binding of a secret to the installed package.
//! `sessions`: what the agent is told, the session events, exactly-once delivery across a host
//! killed mid-turn, the queue bound, environments without secrets.
//! `menu`: `finch minitool menu` on a pseudo-terminal and with `--set` on a pipe.

mod secrets;
mod sessions;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::fixtures::MiniTool;
use crate::common::{Run, TestContext};

/// Timeouts short enough that every fault shows within a second or two.
const FAST: &str = "[runtime]\nactivate_timeout = \"5s\"\ncall_timeout_min = \"100ms\"\nrestart_backoff = \"400ms\"\nshutdown_timeout = \"2s\"\n";

/// The bot package: sessions, its secrets, a session container bound to its agent profile,
/// a settings menu.
fn bot() -> MiniTool {
    MiniTool::new("chat-bot", "1.0.0")
        .display_name("Chat Bot")
        .entry_source(include_str!("bot.mjs"))
        .finch_field(
            "permissions",
            json!({"sessions": true, "secrets": ["bot.token", "bot.extra.*"]}),
        )
        .finch_field(
            "contributes",
            json!({
                "tools": true,
                "settingsMenu": {"icon": "settings"},
                "sessionContainers": [{"id": "chats", "title": "Chats", "mode": "inbox", "agentProfile": "bot"}],
                "agentProfiles": [{"id": "bot", "prompt": "You are Chat Bot. Answer in one line."}],
            }),
        )
}

/// Writes the package outside the homes (`src/<name>`), then `finch add` + `finch enable`;
/// the source directory.
fn install(ctx: &TestContext, pkg: &MiniTool) -> PathBuf {
    let id = pkg.package_json()["name"]
        .as_str()
        .expect("package name")
        .to_string();
    let dir = ctx.base().join("src").join(&id);
    pkg.write_to(&dir);
    ctx.run(&["add", &dir.display().to_string()]).success();
    ctx.run(&["enable", &id]).success();
    dir
}

/// `finch tool call <tool> <json> --json --approve <tool>`, with `extra` flags.
fn call(ctx: &TestContext, tool: &str, args: Value, extra: &[&str]) -> Run {
    let args = args.to_string();
    let mut argv = vec!["tool", "call", tool, &args, "--json", "--approve", tool];
    argv.extend_from_slice(extra);
    ctx.run(&argv)
}

/// The structured result of a successful call.
#[track_caller]
fn result(run: &Run) -> Value {
    run.success();
    run.json()["structuredContent"].clone()
}

/// `finch secret set <id> <key>` with `value` on standard input.
fn set_secret(ctx: &TestContext, id: &str, key: &str, value: &str) -> Run {
    Run(ctx
        .cmd()
        .args(["secret", "set", id, key])
        .write_stdin(value.to_string())
        .output()
        .expect("finch runs"))
}

/// A value no other test (nor an earlier run) uses: the keyring outlives the test.
fn unique(ctx: &TestContext, what: &str) -> String {
    let nonce: String = ctx
        .base()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    format!("{what}-{nonce}")
}

/// Polls `check` until it gives a value, for at most `limit`.
#[track_caller]
fn eventually<T>(limit: Duration, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = check() {
            return v;
        }
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The environment of process `pid`, as `NAME=value` entries.
fn environ(pid: u64) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/environ"))
        .unwrap_or_default()
        .split(|b| *b == 0)
        .filter(|e| !e.is_empty())
        .map(|e| String::from_utf8_lossy(e).into_owned())
        .collect()
}

/// Every process whose command line holds `needle`, with its pid.
fn processes_with(needle: &str) -> Vec<u64> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u64>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(needle))
        })
        .collect()
}
