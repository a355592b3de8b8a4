//! The tests' scripted model servers (tests/peers/*.py): started on loopback with a script
//! and a request log, read back, and stopped when dropped. Each server prints one line,
//! `<prefix><port>`, once it listens.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use super::TestContext;

pub struct ScriptedServer {
    child: Child,
    pub port: u16,
    /// Every request the server received, a JSON line each.
    pub log: PathBuf,
}

impl ScriptedServer {
    /// Runs `python3 tests/peers/<server> <script> <log>` under the test's base directory and
    /// waits for its `<ready_prefix><port>` line.
    pub fn start(ctx: &TestContext, server: &str, script: &Value, ready_prefix: &str) -> Self {
        let dir = ctx.base().join("model");
        std::fs::create_dir_all(&dir).unwrap();
        let script_path = dir.join("script.json");
        std::fs::write(&script_path, script.to_string()).unwrap();
        let log = dir.join("requests.jsonl");
        let mut child = Command::new("python3")
            .arg(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/peers")
                    .join(server),
            )
            .arg(&script_path)
            .arg(&log)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("python3 runs {server}: {e}"));
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim()
            .strip_prefix(ready_prefix)
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("{server} did not start: {line:?}"));
        ScriptedServer { child, port, log }
    }

    /// Every request logged so far, in order.
    pub fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| {
                serde_json::from_str(l).unwrap_or_else(|e| panic!("a logged request: {e}: {l}"))
            })
            .collect()
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
