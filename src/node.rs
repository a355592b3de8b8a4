//! Finding `node` and its version: `node` in finch.toml, then `FINCH_NODE`, then `PATH`. Mini
//! tools need node 18 or newer.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::config::Settings;
use crate::env::Env;

pub const MIN_NODE_MAJOR: u64 = 18;

/// Where node is, and how it was found.
pub fn find_node(settings: &Settings, env: &Env) -> Option<(PathBuf, &'static str)> {
    if let Some(p) = &settings.node {
        return Some((p.clone(), "finch.toml"));
    }
    if let Some(p) = env.get_path("FINCH_NODE") {
        return Some((p, "FINCH_NODE"));
    }
    crate::minitool::net::find_program("node", env.get("PATH").as_deref()).map(|p| (p, "PATH"))
}

/// Runs `node --version` (bounded by a timeout) and returns e.g. `v20.20.2`.
pub fn node_version(node: &std::path::Path) -> Result<String, String> {
    let mut child = Command::new(node)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", node.display()))?;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10))
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{} --version did not answer within 10 s",
                    node.display()
                ));
            }
            Err(e) => return Err(e.to_string()),
        }
    }
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&output.stdout).trim().to_string();
    if text.is_empty() {
        return Err(format!("{} --version printed nothing", node.display()));
    }
    Ok(text)
}

/// The major version of a `vMAJOR.MINOR.PATCH` string.
pub fn major(version: &str) -> Option<u64> {
    version
        .trim_start_matches('v')
        .split('.')
        .next()?
        .parse()
        .ok()
}
