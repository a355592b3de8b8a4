//! The host's three front ends (SPEC §8.7), side by side: the console a person types into
//! (`console`), JSON lines for scripts (`jsonl`) and an MCP server on stdio for agents (`mcp`).
//! Each builds its host through `assembly::Assembly`, only calls `Host::call`, and prints
//! through `ui` (the MCP server writes nothing but the protocol to stdout). `finch tool call`,
//! one call and exit, uses the console's printing.

pub mod console;
pub mod jsonl;
pub mod mcp;
pub mod progress;

use super::assembly::Assembly;
use super::control;
use super::{Host, HostEnv, HostEvent};
use crate::error::{CommandError, Result};

/// A call that installed, removed, enabled or disabled mini tools asks for a reload, so the
/// next call sees them; a mini tool that registered tools during a call gets them cataloged.
fn reload_if_minitools_changed(host: &mut Host) {
    let events = host.take_events();
    if events.contains(&HostEvent::MiniToolsChanged) {
        control::request_reload();
    } else if events.contains(&HostEvent::ToolsChanged) {
        host.rebuild_catalog();
    }
}

/// The title a session this run started gets after its first call: `finch run --jsonl: Read
/// notes.txt`, `tool call: Bash ls -la`; `None` once the run has one (or continues a session).
/// Made before the call (which takes the arguments), given after it (`title_session`).
pub fn new_session_title(
    host: &Host,
    kind: &str,
    tool: &str,
    args: &serde_json::Value,
) -> Option<String> {
    if !host.session().wants_title() {
        return None;
    }
    let summary = super::summary(tool, args);
    let mut summary: String = summary.chars().take(60).collect();
    if summary.chars().count() == 60 {
        summary.push('…');
    }
    Some(if summary.is_empty() {
        format!("{kind}: {tool}")
    } else {
        format!("{kind}: {tool} {summary}")
    })
}

/// Gives the session `title` (from `new_session_title`), written when the run ends unless the
/// run named the session itself (`SessionState::title_if_new`).
pub fn title_session(host: &mut Host, title: Option<String>) {
    if let Some(title) = title {
        let now = host.env().now_utc();
        host.session_mut().title_if_new(&title, now);
    }
}

/// One session of a front end that reads stdin: builds the host, registers it for `finch
/// reload`, runs `serve` until it returns, and ends the transcript.
fn run_session(
    env: HostEnv,
    assembly: &Assembly,
    serve: fn(&mut Host, &Assembly) -> Result<()>,
) -> Result<()> {
    let mut host = assembly.open(env)?;
    // `finch reload` finds this run by its registration and signals it.
    let _registration = assembly.register_for_reload(&host);
    let outcome = serve(&mut host, assembly);
    host.finish()
        .map_err(|e| CommandError::failed(e.to_string()))?;
    outcome
}
