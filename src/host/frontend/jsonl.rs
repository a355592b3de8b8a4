//! `finch run --jsonl`: one JSON request per stdin line (`{"id","tool","arguments"}`), one
//! response per stdout line — the call's record with the request's `id` — until stdin ends.
//! A line that is no request gets a `bad_request` error response and the run goes on. A call's
//! progress updates come before its response, one line each (`progress::json_line`). The
//! run's exit code says what its calls came to (`Tally`): 4 when any was refused, else 1 when
//! any failed or a line was no request.
//!
//! A call's record is written to the transcript right after its response, not before
//! (`Host::defer_records`): the caller does not wait for the transcript, and the record is
//! there before the next line is read. With `[host] record_delay = "0s"` it is written first.

use std::io::{BufRead, Write};

use serde_json::{Map, Value, json};

use super::{Tally, reload_if_minitools_changed};
use crate::error::{CommandError, Result};
use crate::host::assembly::Assembly;
use crate::host::cancel::{Cancel, Progress};
use crate::host::{Host, HostEnv};

/// Builds the host and answers requests until stdin ends.
pub fn run(env: HostEnv, assembly: &Assembly) -> Result<()> {
    super::run_session(env, assembly, serve)
}

fn serve(host: &mut Host, assembly: &Assembly) -> Result<()> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut line = String::new();
    let mut input = stdin.lock();
    let mut tally = Tally::default();
    if !host.env().settings.record_delay.is_zero() {
        host.defer_records();
    }
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => return tally.outcome(),
            Ok(_) => {}
            Err(e) => return Err(CommandError::failed(format!("cannot read stdin: {e}"))),
        }
        if line.trim().is_empty() {
            continue;
        }
        assembly.reload_if_asked(host);
        let response = answer_request(host, line.trim(), &mut tally);
        reload_if_minitools_changed(host);
        let written = write_line(&stdout, &response);
        host.write_records();
        if let Err(e) = written {
            return if e.kind() == std::io::ErrorKind::BrokenPipe {
                Err(CommandError::broken_pipe())
            } else {
                Err(CommandError::failed(format!("cannot write stdout: {e}")))
            };
        }
    }
}

/// Writes one JSON line to stdout, locked for that line only (a call's progress lines are
/// written while it runs).
fn write_line(stdout: &std::io::Stdout, value: &Value) -> std::io::Result<()> {
    let mut text = value.to_string();
    text.push('\n');
    let mut out = stdout.lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush())
}

/// One JSON-lines request → its response.
fn answer_request(host: &mut Host, line: &str, tally: &mut Tally) -> Value {
    let mut bad = |id: Value, message: String| {
        tally.bad_line();
        json!({"id": id, "error": {"code": "bad_request", "message": message}})
    };
    let request: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return bad(Value::Null, format!("the line is not JSON: {e}")),
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let Some(tool) = request.get("tool").and_then(Value::as_str) else {
        return bad(
            id,
            "a request is {\"id\": …, \"tool\": \"<name>\", \"arguments\": {…}}; `tool` is missing"
                .into(),
        );
    };
    let arguments = request
        .get("arguments")
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()));
    // Each progress update is a line before the response; one that cannot be written is
    // dropped (the response's write then says why).
    let stdout = std::io::stdout();
    let progress = |update: Progress| {
        let _ = write_line(&stdout, &super::progress::json_line(&id, tool, &update));
    };
    let title = super::new_session_title(host, "finch run --jsonl", tool, &arguments);
    let record = host.call_with(tool, arguments, &Cancel::new(), &progress);
    tally.note(&record);
    super::title_session(host, title);
    let mut response = record.to_json();
    if let Some(map) = response.as_object_mut() {
        map.insert("id".into(), id);
    }
    response
}
