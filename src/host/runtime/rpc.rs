//! One JSON-RPC 2.0 connection to one mini tool process: newline-delimited JSON over the socket
//! the child sees as fd 3. A `Conn` writes requests, notifications and replies (one writer at a
//! time), remembers who waits for each of its requests (`Pending`), and when the process goes
//! away fails every waiter with the reason, so no caller ever waits on a dead child. What is
//! read is decoded here, once, into the typed messages of `protocol`.
//!
//! **Who reads.** One thread per connection (`mod.rs`, `read_loop`) reads whatever the child
//! sends, except while a call reads its own answer. A call's answer handed from the reader
//! thread to the calling thread costs one more wake-up on the call's path; so once the reader
//! thread has handed a call its answer, it *parks* (`ReadSide` back on the shelf) for `PARK`,
//! and a call made meanwhile reads the channel itself (`take_side`), handling whatever comes
//! first exactly as the reader thread would, until its answer arrives. The reader thread stays
//! parked while calls keep doing so, and reads again once `PARK` passed without one, or at
//! once when somebody else waits for an answer (`rouse`). So what a child sends between calls
//! of a burst — a timer's notification, a dialog — is read at most twice `PARK` late, and
//! nothing is ever read by two threads at once: whoever reads holds the `ReadSide`.
//!
//! Nothing here knows what the methods mean; it must never block on a child that stopped
//! reading (writes time out) and never panic on what a child sends.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::Child;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::process::Stream;
use super::protocol::{FromChild, HostPush, HostRequest, Method};
use super::ui::Dialog;
use crate::host::prompt::View;

/// The longest line a child may send (64 MiB): a longer one is a broken channel, not a message.
pub(crate) const MAX_LINE: usize = 64 << 20;
/// How long a write to a child that stopped reading may block before the child counts as hung.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the reader thread leaves the channel to the calls after one read its own answer.
const PARK: Duration = Duration::from_millis(5);

/// JSON-RPC error codes used between host and bootstrap.
pub(crate) mod code {
    /// The method is unknown.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The parameters are wrong.
    pub const INVALID_PARAMS: i64 = -32602;
    /// The host refused (a permission, a missing capability, storage or keyring trouble).
    pub const REFUSED: i64 = -32001;
    /// The process stopped before it answered.
    pub const STOPPED: i64 = -32002;
}

/// An error answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcError {
    pub code: i64,
    pub message: String,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
        }
    }

    pub fn refused(message: impl Into<String>) -> RpcError {
        RpcError::new(code::REFUSED, message)
    }

    pub fn invalid(message: impl Into<String>) -> RpcError {
        RpcError::new(code::INVALID_PARAMS, message)
    }

    fn from_json(value: &Value) -> RpcError {
        RpcError {
            code: value.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: value
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("the mini tool answered with an error without a message")
                .to_string(),
        }
    }
}

pub(crate) type RpcResult = Result<Value, RpcError>;

/// Something the main thread (the one running `Host::call`, which owns the prompter) must see.
pub(crate) enum MainMsg {
    /// The answer to a request the main thread sent; `tag` says which.
    Reply { tag: u64, result: RpcResult },
    /// A child asks a person something (`ui.showConfirmDialog`, `ui.showModalDialog`,
    /// `exec.ui.requestForm` in `ctx`).
    Prompt {
        from: Arc<Conn>,
        id: Value,
        dialog: Dialog,
        params: Value,
    },
    /// A child shows a person something (`ctx.ui.openDiff`). `back` is the channel of the
    /// call it was shown in, when it was that call's own: a view nobody could be shown goes
    /// back there (`Unseen`), into the call's result.
    Show {
        from: Arc<Conn>,
        id: Value,
        view: View,
        back: Option<Sender<MainMsg>>,
    },
    /// A view of the call that waits that its prompter could not show (`Show`).
    Unseen(View),
    /// `exec.progress.report(...)` of the call that waits (the `progress` notification's
    /// params).
    Progress(Value),
    /// The call that waits was cancelled by its caller.
    Cancelled,
    /// A permission card for something the mini tool asked finch to do in its call (a tool of
    /// an MCP server through `mcp.client`): shown where the prompter is, `then` gets the answer.
    Permit {
        card: crate::host::prompt::Card,
        then: Box<dyn FnOnce(crate::host::prompt::CardAnswer) + Send>,
    },
}

/// A request (`id` set) or notification as it goes on the wire, its params serialized in place.
#[derive(Serialize)]
struct Envelope<P> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<u64>,
    method: &'static str,
    params: P,
}

/// Who waits for the answer to a request the host sent a child.
pub(crate) enum Pending {
    /// The main thread, on its channel.
    Main { tx: Sender<MainMsg>, tag: u64 },
    /// Another child, whose request `id` this answers (capability calls between mini tools).
    Forward { to: Arc<Conn>, id: Value },
}

impl Pending {
    /// Delivers the answer; true when a thread waited for it (not a forward).
    fn resolve(self, result: RpcResult) -> bool {
        match self {
            Pending::Main { tx, tag } => {
                // The waiter may have given up (a timeout); then nobody needs the answer.
                let _ = tx.send(MainMsg::Reply { tag, result });
                true
            }
            Pending::Forward { to, id } => {
                to.reply(id, result);
                false
            }
        }
    }
}

/// The read end of a channel and its buffers: held by whichever thread reads (see the module
/// docs).
pub(crate) struct ReadSide {
    pub reader: BufReader<Stream>,
    pub line: Vec<u8>,
}

/// Who may read the channel now.
#[derive(Default)]
struct Reading {
    /// The read side, when nobody reads.
    side: Option<ReadSide>,
    /// The reader thread leaves the side to calls until `PARK` passes without one.
    parked: bool,
    /// A call read its own answer since the reader thread last looked.
    used: bool,
    /// Somebody waits for what only the reader thread would read: it must read now.
    roused: bool,
    /// The reader thread waits for a call to give the side back.
    waiting: bool,
    /// A call that read found the channel's end; the reader thread takes it from here.
    ended: Option<ReadEnd>,
}

/// Why the host stopped a process on purpose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StopReason {
    /// The host is ending: nothing to report.
    Shutdown,
    /// A fault the host found; the text says what (`activate() did not settle within 30 s`).
    Fault(String),
}

/// One live mini tool process and its channel.
pub(crate) struct Conn {
    /// The mini tool's id, for messages.
    pub id: String,
    pub pid: u32,
    writer: Mutex<Stream>,
    pending: Mutex<HashMap<u64, Pending>>,
    next_id: AtomicU64,
    alive: AtomicBool,
    stop_reason: Mutex<Option<StopReason>>,
    child: Mutex<Option<Child>>,
    reading: Mutex<Reading>,
    /// Wakes the reader thread (`rouse`, a side given back).
    reading_changed: Condvar,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A thread that panicked while holding one of these left plain data behind; keep going.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Conn {
    /// A connection over `stream`; `reader` is the same socket, for reading.
    pub fn new(id: &str, child: Child, stream: Stream, reader: Stream) -> std::io::Result<Conn> {
        stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
        let side = ReadSide {
            reader: BufReader::with_capacity(64 * 1024, reader),
            line: Vec::new(),
        };
        Ok(Conn {
            id: id.to_string(),
            pid: child.id(),
            writer: Mutex::new(stream),
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            alive: AtomicBool::new(true),
            stop_reason: Mutex::new(None),
            child: Mutex::new(Some(child)),
            reading: Mutex::new(Reading {
                side: Some(side),
                ..Reading::default()
            }),
            reading_changed: Condvar::new(),
        })
    }

    /// For the reader thread: the read side once it is its turn to read (see the module
    /// docs), or how a call that read found the channel ended.
    pub fn side_for_reader(&self) -> Result<ReadSide, ReadEnd> {
        let mut r = lock(&self.reading);
        loop {
            if (!r.parked || r.roused)
                && let Some(side) = r.side.take()
            {
                r.parked = false;
                r.roused = false;
                return match r.ended.take() {
                    Some(end) => Err(end),
                    None => Ok(side),
                };
            }
            if r.side.is_none() {
                // A call reads; it says when it gives the side back.
                r.waiting = true;
                r = self
                    .reading_changed
                    .wait(r)
                    .unwrap_or_else(|e| e.into_inner());
                r.waiting = false;
                continue;
            }
            let (mut g, waited) = self
                .reading_changed
                .wait_timeout(r, PARK)
                .unwrap_or_else(|e| e.into_inner());
            if waited.timed_out() && !std::mem::take(&mut g.used) {
                g.parked = false;
            }
            r = g;
        }
    }

    /// For the reader thread: gives the side back, parked when it just handed a call its
    /// answer (the next call reads its own).
    pub fn park(&self, side: ReadSide, park: bool) {
        let mut r = lock(&self.reading);
        r.side = Some(side);
        r.parked = park;
        r.used = false;
    }

    /// For a call about to wait for its answer: the read side, when the reader thread left it
    /// on the shelf (else the reader thread reads, and the answer comes as a message).
    pub fn take_side(&self) -> Option<ReadSide> {
        let mut r = lock(&self.reading);
        if r.roused || r.ended.is_some() {
            return None;
        }
        r.side.take()
    }

    /// For a call that read: gives the side back. The reader thread reads at once when
    /// somebody still waits for an answer, or when the call found the channel ended.
    pub fn give_side(&self, side: ReadSide, ended: Option<ReadEnd>) {
        let waiters = !lock(&self.pending).is_empty();
        let mut r = lock(&self.reading);
        r.side = Some(side);
        r.used = true;
        if ended.is_some() || waiters {
            r.roused = true;
        }
        if ended.is_some() {
            r.ended = ended;
        }
        if r.roused || r.waiting {
            self.reading_changed.notify_one();
        }
    }

    /// Makes a parked reader thread read now: somebody will wait for what it reads.
    pub fn rouse(&self) {
        let mut r = lock(&self.reading);
        if r.parked && !r.roused {
            r.roused = true;
            self.reading_changed.notify_one();
        }
    }

    pub fn is_alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    fn write_line(&self, message: &impl Serialize) -> Result<(), String> {
        let mut text = serde_json::to_vec(message)
            .map_err(|e| format!("cannot write to mini tool \"{}\": {e}", self.id))?;
        text.push(b'\n');
        let mut writer = lock(&self.writer);
        writer
            .write_all(&text)
            .map_err(|e| format!("cannot write to mini tool \"{}\": {e}", self.id))
    }

    /// Sends a request; `pending` gets the answer (or the reason there is none), read by the
    /// reader thread. Returns the request's id.
    pub fn request(
        &self,
        method: HostRequest,
        params: impl Serialize,
        pending: Pending,
    ) -> Result<u64, String> {
        self.rouse();
        self.send_request(method, params, pending)
    }

    /// `request` for a call that may read its answer itself (`take_side`): a parked reader
    /// thread stays parked.
    pub fn request_own(
        &self,
        method: HostRequest,
        params: impl Serialize,
        pending: Pending,
    ) -> Result<u64, String> {
        self.send_request(method, params, pending)
    }

    fn send_request(
        &self,
        method: HostRequest,
        params: impl Serialize,
        pending: Pending,
    ) -> Result<u64, String> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        lock(&self.pending).insert(id, pending);
        let message = Envelope {
            jsonrpc: "2.0",
            id: Some(id),
            method: method.wire(),
            params,
        };
        if let Err(e) = self.write_line(&message) {
            lock(&self.pending).remove(&id);
            self.stop(StopReason::Fault(format!(
                "stopped reading its channel ({e})"
            )));
            return Err(e);
        }
        Ok(id)
    }

    pub fn notify(&self, method: HostPush, params: impl Serialize) {
        let message = Envelope {
            jsonrpc: "2.0",
            id: None,
            method: method.wire(),
            params,
        };
        if let Err(e) = self.write_line(&message) {
            self.stop(StopReason::Fault(format!(
                "stopped reading its channel ({e})"
            )));
        }
    }

    /// Answers a request the child sent.
    pub fn reply(&self, id: Value, result: RpcResult) {
        let message = match result {
            Ok(value) => json!({"jsonrpc": "2.0", "id": id, "result": value}),
            Err(e) => json!({"jsonrpc": "2.0", "id": id,
                             "error": {"code": e.code, "message": e.message}}),
        };
        if let Err(e) = self.write_line(&message) {
            self.stop(StopReason::Fault(format!(
                "stopped reading its channel ({e})"
            )));
        }
    }

    /// The answer to request `id` arrived; true when a thread waited for it.
    fn resolve(&self, id: u64, result: RpcResult) -> bool {
        let waiter = lock(&self.pending).remove(&id);
        waiter.is_some_and(|w| w.resolve(result))
    }

    /// Forgets the waiter of a request (its caller gave up).
    pub fn forget(&self, id: u64) {
        lock(&self.pending).remove(&id);
    }

    /// Stops the process: the whole process group, at once. The reader thread sees the channel
    /// close and cleans up; the first reason given is the one reported.
    pub fn stop(&self, reason: StopReason) {
        {
            let mut r = lock(&self.stop_reason);
            if r.is_none() {
                *r = Some(reason);
            }
        }
        // Once reaped (`finish`), the pid may belong to someone else: signal only before.
        if self.is_alive() {
            super::process::kill_group(self.pid);
        }
        // The reader thread sees the channel close and cleans up: not `PARK` later.
        self.rouse();
    }

    pub fn stop_reason(&self) -> Option<StopReason> {
        lock(&self.stop_reason).clone()
    }

    /// Marks the connection dead, reaps the process, fails every waiter, and says how the
    /// process ended (`exited with code 3`). Only the first call does anything.
    pub fn finish(&self) -> Option<String> {
        if !self.alive.swap(false, Ordering::SeqCst) {
            return None;
        }
        // The channel closed: whatever is left of the group goes too (a child that closed fd 3
        // but kept running would otherwise outlive its host's interest in it), once the child
        // had a moment to end by itself and say how.
        super::process::await_end(self.pid, std::time::Duration::from_millis(200));
        super::process::kill_group(self.pid);
        let status = lock(&self.child).take().and_then(|mut c| c.wait().ok());
        let ended = match status {
            Some(s) => describe_status(s),
            None => "ended".to_string(),
        };
        Some(ended)
    }

    /// Fails every request still waiting for this process.
    pub fn fail_pending(&self, message: &str) {
        let waiters: Vec<Pending> = lock(&self.pending).drain().map(|(_, w)| w).collect();
        for w in waiters {
            w.resolve(Err(RpcError::new(code::STOPPED, message)));
        }
    }
}

#[cfg(unix)]
fn describe_status(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        _ => "ended".to_string(),
    }
}

#[cfg(not(unix))]
fn describe_status(status: std::process::ExitStatus) -> String {
    match status.code() {
        Some(code) => format!("exited with code {code}"),
        None => "ended".to_string(),
    }
}

/// One message read from a child.
pub(crate) enum Incoming {
    /// A request or notification, decoded (`protocol`).
    Message(FromChild),
    /// An answer, already delivered; true when a thread waited for it (not a forward).
    Answered(bool),
    /// A notification the host does not know.
    Nothing,
}

/// Why reading stopped.
pub(crate) enum ReadEnd {
    /// The channel closed.
    Closed,
    /// The child wrote something that is not a JSON-RPC message.
    Garbage(String),
}

/// Reads the next message; answers are delivered to their waiters right here.
pub(crate) fn read_message(
    conn: &Conn,
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
) -> Result<Incoming, ReadEnd> {
    loop {
        line.clear();
        let n = read_line_limited(reader, line).map_err(|e| match e {
            LineError::TooLong => {
                ReadEnd::Garbage(format!("a line longer than {} MiB", MAX_LINE >> 20))
            }
            LineError::Io => ReadEnd::Closed,
        })?;
        if n == 0 {
            return Err(ReadEnd::Closed);
        }
        let text = trim_ascii(line);
        if text.is_empty() {
            continue;
        }
        let message: Map<String, Value> = match serde_json::from_slice(text) {
            Ok(Value::Object(m)) => m,
            _ => return Err(ReadEnd::Garbage(preview(text))),
        };
        return classify(conn, message, text);
    }
}

fn classify(
    conn: &Conn,
    mut message: Map<String, Value>,
    text: &[u8],
) -> Result<Incoming, ReadEnd> {
    let id = message.remove("id");
    match message.remove("method") {
        Some(Value::String(method)) => {
            let params = message.remove("params").unwrap_or(Value::Null);
            let id = id.filter(|id| !id.is_null());
            Ok(FromChild::decode(id, method, params).map_or(Incoming::Nothing, Incoming::Message))
        }
        Some(_) => Err(ReadEnd::Garbage(preview(text))),
        None => {
            let Some(id) = id.as_ref().and_then(Value::as_u64) else {
                return Err(ReadEnd::Garbage(preview(text)));
            };
            let result = match (message.remove("result"), message.remove("error")) {
                (_, Some(error)) => Err(RpcError::from_json(&error)),
                (Some(result), None) => Ok(result),
                (None, None) => return Err(ReadEnd::Garbage(preview(text))),
            };
            Ok(Incoming::Answered(conn.resolve(id, result)))
        }
    }
}

/// The start of an offending line, printable.
fn preview(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut cut: String = text.chars().take(80).collect();
    if text.chars().count() > 80 {
        cut.push('…');
    }
    cut.escape_debug().to_string()
}

fn trim_ascii(bytes: &[u8]) -> &[u8] {
    bytes.trim_ascii()
}

enum LineError {
    TooLong,
    Io,
}

/// `read_until(b'\n')` that gives up past `MAX_LINE` bytes.
fn read_line_limited(reader: &mut impl BufRead, line: &mut Vec<u8>) -> Result<usize, LineError> {
    loop {
        let (done, used) = {
            let available = match reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return Err(LineError::Io),
            };
            if available.is_empty() {
                return Ok(line.len());
            }
            match available.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    line.extend_from_slice(&available[..=i]);
                    (true, i + 1)
                }
                None => {
                    line.extend_from_slice(available);
                    (false, available.len())
                }
            }
        };
        reader.consume(used);
        if line.len() > MAX_LINE {
            return Err(LineError::TooLong);
        }
        if done {
            return Ok(line.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_limited_and_split() {
        let mut input: &[u8] = b"{\"a\":1}\n\n{\"b\":2}";
        let mut line = Vec::new();
        assert_eq!(read_line_limited(&mut input, &mut line).ok(), Some(8));
        assert_eq!(line, b"{\"a\":1}\n");
        line.clear();
        assert_eq!(read_line_limited(&mut input, &mut line).ok(), Some(1));
        line.clear();
        assert_eq!(read_line_limited(&mut input, &mut line).ok(), Some(7));
        line.clear();
        assert_eq!(read_line_limited(&mut input, &mut line).ok(), Some(0));
    }

    #[cfg(unix)]
    #[test]
    fn one_thread_reads_at_a_time_and_the_reader_thread_parks_after_handing_over_an_answer() {
        let (ours, theirs) = super::super::process::pair().unwrap();
        let child = std::process::Command::new("true").spawn().unwrap();
        let conn = Conn::new("t", child, ours.try_clone().unwrap(), ours).unwrap();

        // At first the reader thread reads, and no call can take the side from it.
        let side = conn.side_for_reader().ok().unwrap();
        assert!(conn.take_side().is_none());
        // Not parked: a call finds the side on the shelf only in the moment between reads.
        conn.park(side, false);
        let side = conn.side_for_reader().ok().unwrap();

        // It handed a call its answer: the next call reads its own.
        conn.park(side, true);
        let side = conn.take_side().expect("a parked side is left to calls");
        assert!(conn.take_side().is_none(), "one reader at a time");

        // Somebody else still waits for an answer when the call is done: the reader thread
        // reads at once, and calls leave the side to it.
        let (tx, _rx) = std::sync::mpsc::channel();
        conn.request_own(
            HostRequest::Execute,
            json!({}),
            Pending::Main { tx, tag: 7 },
        )
        .unwrap();
        conn.give_side(side, None);
        assert!(
            conn.take_side().is_none(),
            "roused: the side is the reader thread's"
        );
        let side = conn.side_for_reader().ok().unwrap();

        // Parked with no call coming: it reads again once `PARK` has passed.
        conn.park(side, true);
        let side = conn.side_for_reader().ok().unwrap();

        // A call that read found the channel's end: the reader thread is told, to clean up.
        conn.park(side, true);
        let side = conn.take_side().unwrap();
        conn.give_side(side, Some(ReadEnd::Closed));
        assert!(conn.take_side().is_none());
        assert!(matches!(conn.side_for_reader(), Err(ReadEnd::Closed)));
        drop(theirs);
        conn.finish();
    }

    #[test]
    fn previews_are_short_and_printable() {
        assert_eq!(preview(b"\x1b[2Jhello"), "\\u{1b}[2Jhello");
        assert_eq!(preview(&[b'x'; 100]).chars().count(), 81);
    }
}
