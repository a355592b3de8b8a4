//! No side doors (issue 39): what finch does for a mini tool stays inside what its manifest
//! declares. The hostile fixture `doors.mjs` declares nothing and asks finch instead of acting
//! itself — an MCP server it contributes or registers, a `servers.json` written into its storage,
//! an agent session in `bypassPermissions`, a call of a tool of the user's MCP server — and each
//! is judged by its effect: a sentinel file outside the workspace that only an escape creates,
//! a fake `$HOME` with a planted key, a listener's count, a process of the test's that a signal
//! would end. Through `finch reload`, `finch tool call`, `finch run --jsonl` and `--serve mcp`.
//! These fail (never skip) where Landlock and user namespaces exist.

mod calls;
mod config;
mod doctor;
mod errors;
mod servers;
mod sessions;
mod shell;

use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::fixtures::MiniTool;
use crate::common::{Run, TestContext};

const DOORS: &str = include_str!("../fixtures/minitools/doors.mjs");

/// A secret in finch's own environment, which nothing finch starts for a mini tool may see.
pub(super) const SECRET_VAR: &str = "FINCH_TEST_SECRET_TOKEN";

pub(super) struct Doors {
    pub(super) ctx: TestContext,
    pub(super) listener: TcpListener,
    /// Created only by an escape: outside the workspace, the agent home and every storage.
    pub(super) sentinel: PathBuf,
    /// A process of the test's, which no mini tool may signal or renice.
    pub(super) victim: Child,
}

impl Drop for Doors {
    fn drop(&mut self) {
        let _ = self.victim.kill();
        let _ = self.victim.wait();
    }
}

impl Doors {
    pub(super) fn new() -> Doors {
        let ctx = TestContext::new();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let ssh = ctx.home.join(".ssh");
        std::fs::create_dir_all(&ssh).unwrap();
        std::fs::write(
            ssh.join("id_ed25519"),
            "-----BEGIN OPENSSH PRIVATE KEY-----\nfake\n",
        )
        .unwrap();
        let outside = ctx.base().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        let victim = Command::new("sleep").arg("300").spawn().unwrap();
        // Servers that never answer the handshake fail in seconds.
        ctx.write_config("[mcp]\ntimeout = \"5s\"\n");
        Doors {
            sentinel: outside.join("pwned"),
            ctx,
            listener,
            victim,
        }
    }

    /// Writes the fixture as package `id` with `permissions` and more `finch` fields, making
    /// the `activate` attempts in `activate()`; returns its directory.
    pub(super) fn package(
        &self,
        id: &str,
        permissions: Value,
        finch: Value,
        activate: &[&str],
    ) -> PathBuf {
        let dir = self.ctx.base().join("src").join(id);
        let mut tool = MiniTool::new(id, "1.0.0")
            .entry_source(DOORS)
            .finch_field("permissions", permissions)
            .finch_field("contributes", json!({"tools": true}))
            .file(
                "targets.json",
                &json!({
                    "sentinel": self.sentinel,
                    "port": self.listener.local_addr().unwrap().port(),
                    "pid": self.victim.id(),
                    "activate": activate,
                })
                .to_string(),
            );
        for (key, value) in finch.as_object().into_iter().flatten() {
            tool = tool.finch_field(key, value.clone());
        }
        tool.write_to(&dir);
        dir
    }

    /// `finch add` + `finch enable`.
    pub(super) fn install(&self, dir: &Path, id: &str) {
        self.ctx.run(&["add", &dir.display().to_string()]).success();
        self.ctx.run(&["enable", id]).success();
    }

    /// `finch tool call <tool>` with a secret in finch's environment.
    pub(super) fn call(&self, tool: &str, args: Value, extra: &[&str]) -> Run {
        let mut argv = vec!["tool", "call", tool];
        let args = args.to_string();
        argv.extend([args.as_str(), "--json"]);
        argv.extend_from_slice(extra);
        Run(self
            .ctx
            .cmd()
            .env(SECRET_VAR, "s3cret")
            .args(&argv)
            .output()
            .unwrap())
    }

    pub(super) fn connections(&self) -> usize {
        let mut n = 0;
        while let Ok((mut stream, _)) = self.listener.accept() {
            let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
            let mut text = String::new();
            let _ = stream.read_to_string(&mut text);
            n += 1;
        }
        n
    }

    /// Waits a moment for a process that might still write the sentinel, then says whether
    /// it exists.
    pub(super) fn marked(&self) -> bool {
        std::thread::sleep(Duration::from_millis(300));
        self.sentinel.exists()
    }

    pub(super) fn victim_alive(&mut self) -> bool {
        self.victim.try_wait().unwrap().is_none()
    }
}

/// A stdio server that marks the sentinel the moment it starts.
pub(super) fn marking(name: &str, sentinel: &Path) -> Value {
    json!({"name": name, "command": "sh",
           "args": ["-c", format!("id > '{}'; exec sleep 3", sentinel.display())]})
}

pub(super) fn text_of(record: &Value) -> String {
    crate::confine::text_of(record)
}
