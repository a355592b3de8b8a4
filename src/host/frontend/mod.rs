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
use super::{CallRecord, Failure, Host, HostEnv, HostEvent};
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
/// notes.txt`, `finch run: Bash ls -la`; `None` once the run has one (or continues a session).
/// (`finch tool call` titles the session of its day instead, `HostOptions::join_titled`.)
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
    let summary = host.summary(tool, args);
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

/// What the calls of a scripted run came to (`finch run --jsonl`, the console on a pipe), so
/// its exit code tells a script what happened: 4 when any call was refused (a rule, a card
/// nobody could answer), else 1 when any call failed or a line was no call, else 0.
#[derive(Debug, Default)]
pub struct Tally {
    calls: usize,
    refused: usize,
    failed: usize,
    bad_lines: usize,
}

impl Tally {
    /// Counts one call.
    pub fn note(&mut self, record: &CallRecord) {
        self.calls += 1;
        match record.failure {
            None => {}
            Some(Failure::Refused | Failure::Blocked) => self.refused += 1,
            Some(_) => self.failed += 1,
        }
    }

    /// Counts a line that was no call (bad JSON, no tool, an unknown `/command`).
    pub fn bad_line(&mut self) {
        self.bad_lines += 1;
    }

    /// The run's end: `Ok` when everything ran, else the error whose kind is the exit code.
    /// Its message goes to stderr only: stdout holds the run's own answers.
    pub fn outcome(&self) -> Result<()> {
        let mut parts = Vec::new();
        let of_calls = |n: usize, what: &str| {
            let verb = match (n, what) {
                (1, "refused") => "was refused",
                (_, "refused") => "were refused",
                _ => "failed",
            };
            format!("{n} of {} calls {verb}", self.calls)
        };
        if self.refused > 0 {
            parts.push(of_calls(self.refused, "refused"));
        }
        if self.failed > 0 {
            parts.push(of_calls(self.failed, "failed"));
        }
        if self.bad_lines > 0 {
            parts.push(if self.bad_lines == 1 {
                "1 line was no call".to_string()
            } else {
                format!("{} lines were no call", self.bad_lines)
            });
        }
        let message = parts.join("; ");
        let err = if self.refused > 0 {
            CommandError::needs_person(message)
                .with_code("refused")
                .with_hint(
                    "cards need a person at a terminal; in a script, `--approve <TOOL>` or an \
                     allow rule lets a call through",
                )
        } else if !parts.is_empty() {
            CommandError::failed(message)
        } else {
            return Ok(());
        };
        Err(err.json_reported())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::output::ToolOutput;

    fn record(failure: Option<Failure>) -> CallRecord {
        let fast_lane = crate::host::DecidedBy::Gateway(crate::host::policy::DecidedBy::FastLane);
        let decision = crate::host::Decision::Allow;
        CallRecord::new("Bash", decision, fast_lane, ToolOutput::text("x"), failure)
    }

    #[test]
    fn a_tally_exits_4_for_any_refusal_then_1_for_any_failure() {
        let mut tally = Tally::default();
        tally.note(&record(None));
        assert!(tally.outcome().is_ok());
        tally.note(&record(Some(Failure::ToolError)));
        let err = tally.outcome().unwrap_err();
        assert_eq!(
            (err.exit_code(), err.message.as_str()),
            (1, "1 of 2 calls failed")
        );
        tally.bad_line();
        tally.note(&record(Some(Failure::Refused)));
        let err = tally.outcome().unwrap_err();
        assert_eq!(err.exit_code(), 4);
        assert_eq!(
            err.message,
            "1 of 3 calls was refused; 1 of 3 calls failed; 1 line was no call"
        );
        assert!(err.json_reported, "stdout keeps only the run's answers");
    }
}
