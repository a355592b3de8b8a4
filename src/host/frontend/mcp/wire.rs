//! The byte side of `finch run --serve mcp`: newline-delimited JSON-RPC on stdin/stdout, as
//! rmcp's own stdio transport frames it, with one shortcut on the way in and the error answers
//! JSON-RPC 2.0 asks for where rmcp's reading gives none or the wrong one.
//!
//! rmcp reads a message by trying every request, notification and result type the protocol
//! has until one fits; for `tools/call`, the request an agent sends over and over, that costs a
//! few microseconds of failed attempts per call. [`ServerWire`] parses a line that can only be
//! a `tools/call` request straight as one (with rmcp's own types, so `_meta` and every field
//! come out as rmcp would make them) and hands every other line to rmcp's decoder.
//!
//! What is answered here (rmcp would drop the line, answer without the request's `id`, or say
//! -32601 for a method it knows):
//! - a line that is not JSON: -32700 Parse error (`id` null);
//! - JSON that is no message (not an object, a batch, a request whose `params` is not an
//!   object or array, `jsonrpc` not "2.0"): -32600 Invalid Request, with the request's `id`
//!   when it has a usable one;
//! - a request of a method of the protocol whose params do not fit it (`tools/call` without
//!   params or without `name`, say): -32602 Invalid params, with its `id`;
//! - a line longer than [`MAX_MESSAGE`] (16 MiB, rmcp's own limit): it is read to its end
//!   without being kept, its top-level `id` picked out on the way (`TopLevelId`), and
//!   answered -32600 "request too large".
//!
//! Notifications are never answered (JSON-RPC forbids it): a bad one is dropped. Blank lines
//! are ignored, a line cut off by the end of input is dropped. Writing is a line per message,
//! as rmcp's transport writes them, but an error without an `id` gets `"id": null`.

use std::io;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequest, ClientRequest, ErrorData, JsonRpcMessage, JsonRpcRequest, RequestId,
};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::{DEFAULT_MAX_LINE_LENGTH, JsonRpcMessageCodec};
use serde::Deserialize;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};
use tokio_util::bytes::BytesMut;
use tokio_util::codec::Decoder;

/// The longest message read (a line of that many bytes, its newline not counted).
pub const MAX_MESSAGE: usize = DEFAULT_MAX_LINE_LENGTH;

/// The server side of an MCP stdio connection (see the module docs).
pub struct ServerWire<R: AsyncRead, W: AsyncWrite> {
    read: BufReader<R>,
    /// The line being read; a read cut off by cancellation resumes it.
    line: Vec<u8>,
    /// Reading past the end of a line that was too long, looking for its `id`.
    oversize: Option<TopLevelId>,
    decoder: JsonRpcMessageCodec<RxJsonRpcMessage<RoleServer>>,
    /// Where messages are written, one line each; `None` once closed.
    write: Arc<tokio::sync::Mutex<Option<W>>>,
    /// The negotiated revision has 2025-06-18's elicitation (`super::version`), seen on the
    /// `initialize` answer going out.
    legacy_elicitation: bool,
}

/// What reading one line gave.
enum LineRead {
    /// A whole line is in `line`.
    Line,
    /// The line passed the length limit and was dropped; its top-level `id`, when it had one.
    TooLong(Option<RequestId>),
    End,
}

/// What one line holds.
#[derive(Debug)]
enum Parsed {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Nothing to act on: blank, or a notification that is not one of the protocol.
    Ignored,
    /// Answered with this error (see the module docs).
    Error(Option<RequestId>, ErrorData),
}

impl<R, W> ServerWire<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    pub fn new(read: R, write: W) -> Self {
        ServerWire {
            read: BufReader::new(read),
            line: Vec::new(),
            oversize: None,
            decoder: JsonRpcMessageCodec::default(),
            write: Arc::new(tokio::sync::Mutex::new(Some(write))),
            legacy_elicitation: false,
        }
    }

    /// Reads up to the next newline into `line`, never holding more than the length limit:
    /// the rest of a longer line only goes through `TopLevelId`. Cancel-safe: bytes are moved
    /// from the reader with no await in between, and the state stays in `self`.
    async fn read_line(&mut self) -> io::Result<LineRead> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                self.oversize = None;
                return Ok(LineRead::End);
            }
            let newline = memchr::memchr(b'\n', available);
            let take = newline.map_or(available.len(), |at| at + 1);
            let chunk = &available[..take];
            if let Some(scan) = &mut self.oversize {
                scan.feed(chunk);
            } else if self.line.len().saturating_add(take) > MAX_MESSAGE + 2 {
                // (`+ 2`: the newline, and a carriage return before it, are not the message.)
                let mut scan = TopLevelId::default();
                scan.feed(&self.line);
                scan.feed(chunk);
                self.line = Vec::new();
                self.oversize = Some(scan);
            } else {
                self.line.extend_from_slice(chunk);
            }
            self.read.consume(take);
            if newline.is_some() {
                if let Some(scan) = self.oversize.take() {
                    return Ok(LineRead::TooLong(scan.id()));
                }
                let ending = if self.line.ends_with(b"\r\n") { 2 } else { 1 };
                if self.line.len() - ending > MAX_MESSAGE {
                    let mut scan = TopLevelId::default();
                    scan.feed(&self.line);
                    self.line.clear();
                    return Ok(LineRead::TooLong(scan.id()));
                }
                return Ok(LineRead::Line);
            }
        }
    }

    fn parse_line(&mut self) -> Parsed {
        let line = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return Parsed::Ignored;
        }
        if let Some(call) = tools_call(line) {
            return Parsed::Message(Box::new(call));
        }
        let mut framed = BytesMut::with_capacity(line.len() + 1);
        framed.extend_from_slice(line);
        framed.extend_from_slice(b"\n");
        match self.decoder.decode(&mut framed) {
            Ok(Some(JsonRpcMessage::Request(request)))
                if matches!(&request.request, ClientRequest::CustomRequest(custom)
                    if PROTOCOL_METHODS.contains(&custom.method.as_str())) =>
            {
                // rmcp reads a request of a method it knows whose params do not fit as a
                // custom request, and answers it "method not found".
                let ClientRequest::CustomRequest(custom) = &request.request else {
                    unreachable!("matched above")
                };
                let message = format!(
                    "Invalid params for {}: {}",
                    custom.method,
                    params_problem(line, &custom.method)
                );
                Parsed::Error(Some(request.id), ErrorData::invalid_params(message, None))
            }
            Ok(Some(message)) => Parsed::Message(Box::new(message)),
            Ok(None) | Err(_) => classify(line),
        }
    }
}

/// The requests of the protocol a client sends a server (MCP 2025-11-25).
const PROTOCOL_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "tools/call",
    "tools/list",
    "tasks/get",
    "tasks/list",
    "tasks/result",
    "tasks/cancel",
];

/// Why the params of a request of `method` do not fit, in a few words.
fn params_problem(line: &[u8], method: &str) -> String {
    let value: Value = serde_json::from_slice(line).unwrap_or(Value::Null);
    match (value.get("params"), method) {
        (None, _) => "params are required".into(),
        (Some(params), "tools/call") if params.get("name").and_then(Value::as_str).is_none() => {
            "`name` (a string) is required".into()
        }
        _ => "they do not match the method's schema".into(),
    }
}

/// The error a line that rmcp could not read as a message gets (see the module docs).
fn classify(line: &[u8]) -> Parsed {
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(_) => return Parsed::Error(None, ErrorData::parse_error("Parse error", None)),
    };
    let Value::Object(message) = &value else {
        let what = if value.is_array() {
            "batches are not supported"
        } else {
            "a message is a JSON object"
        };
        return Parsed::Error(
            None,
            ErrorData::invalid_request(format!("Invalid Request: {what}"), None),
        );
    };
    let id = message
        .get("id")
        .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    let is_request = message.get("method").is_some_and(Value::is_string);
    if is_request && !message.contains_key("id") {
        // A notification is never answered.
        return Parsed::Ignored;
    }
    let problem = if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        "`jsonrpc` must be \"2.0\""
    } else if !is_request && message.contains_key("method") {
        "`method` must be a string"
    } else if is_request
        && message
            .get("params")
            .is_some_and(|p| !p.is_object() && !p.is_array())
    {
        "`params` must be an object or an array"
    } else if message.get("id").is_some() && id.is_none() {
        "`id` must be a string or an integer"
    } else if is_request {
        // Well formed, of a method rmcp does not read as a request: let it answer.
        return Parsed::Error(
            id,
            ErrorData::invalid_request("Invalid Request: not a request of the protocol", None),
        );
    } else {
        "not a request, a notification or a response of the protocol"
    };
    Parsed::Error(
        id,
        ErrorData::invalid_request(format!("Invalid Request: {problem}"), None),
    )
}

/// Picks the top-level `id` out of a JSON object fed to it in pieces, keeping nothing else:
/// how a message too long to keep is still answered to its request. It follows strings and
/// nesting only as far as telling the object's own members from what is inside them.
#[derive(Default)]
struct TopLevelId {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The string being read at depth 1, while it can still be `"id"`.
    string: Vec<u8>,
    state: IdState,
    /// The raw text of the `id` value being read.
    value: Vec<u8>,
    found: Option<Vec<u8>>,
}

#[derive(Default, PartialEq, Eq, Clone, Copy)]
enum IdState {
    #[default]
    Looking,
    /// Read a depth-1 string `"id"`: a key when a `:` follows.
    AfterKey,
    InValue,
    Done,
}

impl TopLevelId {
    /// The longest `id` value kept.
    const MAX_ID: usize = 256;

    fn feed(&mut self, bytes: &[u8]) {
        if self.state == IdState::Done {
            return;
        }
        for &b in bytes {
            if self.state == IdState::InValue {
                self.value.push(b);
                if self.value.len() > Self::MAX_ID {
                    self.state = IdState::Done;
                    return;
                }
            }
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                    if self.depth == 1 && self.state == IdState::Looking && self.string == b"id" {
                        self.state = IdState::AfterKey;
                    }
                } else if self.depth == 1 && self.string.len() <= 2 {
                    self.string.push(b);
                }
                if self.escaped && self.depth == 1 {
                    // An escaped key is never taken for "id".
                    self.string.extend_from_slice(b"\\\\\\");
                }
                continue;
            }
            if self.state == IdState::AfterKey && !b.is_ascii_whitespace() && b != b':' {
                self.state = IdState::Looking;
            }
            match b {
                b'"' => {
                    self.in_string = true;
                    self.string.clear();
                }
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    if self.depth == 1 && self.state == IdState::InValue {
                        self.finish();
                    }
                    self.depth = self.depth.saturating_sub(1);
                }
                b',' if self.depth == 1 && self.state == IdState::InValue => self.finish(),
                b':' if self.depth == 1 && self.state == IdState::AfterKey => {
                    self.state = IdState::InValue;
                    self.value.clear();
                }
                _ => {}
            }
            if self.state == IdState::Done {
                return;
            }
        }
    }

    fn finish(&mut self) {
        // The delimiter that ended the value was pushed with it.
        self.value.pop();
        self.found = Some(std::mem::take(&mut self.value));
        self.state = IdState::Done;
    }

    /// The `id` found, when it is a valid request id.
    fn id(&self) -> Option<RequestId> {
        serde_json::from_slice(self.found.as_deref()?).ok()
    }
}

/// `line` parsed as a `tools/call` request when it can be nothing else; `None` sends it the
/// general way. A line holding a `result` or `error` member is no request (rmcp answers it
/// Invalid Request), and a `\u` escape could spell either name: those take the general way too,
/// as does everything that does not parse here.
fn tools_call(line: &[u8]) -> Option<RxJsonRpcMessage<RoleServer>> {
    use memchr::memmem::find;
    if find(line, br#""tools/call""#).is_none()
        || find(line, br#""result""#).is_some()
        || find(line, br#""error""#).is_some()
        || find(line, br"\u").is_some()
    {
        return None;
    }
    #[derive(Deserialize)]
    struct Call {
        /// Checked to be "2.0".
        #[serde(rename = "jsonrpc")]
        _version: rmcp::model::JsonRpcVersion2_0,
        id: RequestId,
        #[serde(flatten)]
        request: CallToolRequest,
    }
    let call: Call = serde_json::from_slice(line).ok()?;
    let request = ClientRequest::CallToolRequest(call.request);
    Some(JsonRpcMessage::Request(JsonRpcRequest::new(
        call.id, request,
    )))
}

/// `message` as one line (serialized now), and the future that writes it. An error answer
/// without an id gets `"id": null`, as JSON-RPC 2.0 wants (rmcp leaves the member out).
fn write_message<W: AsyncWrite + Send + Unpin + 'static>(
    write: &Arc<tokio::sync::Mutex<Option<W>>>,
    message: &TxJsonRpcMessage<RoleServer>,
) -> impl Future<Output = io::Result<()>> + Send + 'static + use<W> {
    let encoded = match message {
        JsonRpcMessage::Error(error) if error.id.is_none() => serde_json::to_value(message)
            .and_then(|mut value| {
                if let Some(map) = value.as_object_mut() {
                    map.insert("id".into(), Value::Null);
                }
                serde_json::to_vec(&value)
            }),
        _ => serde_json::to_vec(message),
    };
    let write = Arc::clone(write);
    async move {
        use tokio::io::AsyncWriteExt;
        let mut line = encoded.map_err(io::Error::other)?;
        line.push(b'\n');
        let mut guard = write.lock().await;
        let Some(out) = guard.as_mut() else {
            return Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "the MCP connection is closed",
            ));
        };
        out.write_all(&line).await?;
        out.flush().await
    }
}

impl<R, W> ServerWire<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// Sends an error answer. Spawned, so it goes out even when the `receive` that made it is
    /// dropped by the service loop's select.
    fn answer(&mut self, id: Option<RequestId>, error: ErrorData) {
        let reply = TxJsonRpcMessage::<RoleServer>::error(error, id);
        tokio::spawn(write_message(&self.write, &reply));
    }
}

impl<R, W> Transport<RoleServer> for ServerWire<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        use super::version::{Dialect, legacy_request};
        use rmcp::model::{ServerRequest, ServerResult};
        let item = match item {
            JsonRpcMessage::Response(r) => {
                if let ServerResult::InitializeResult(init) = &r.result {
                    self.legacy_elicitation =
                        Dialect::of(&init.protocol_version) == Dialect::Legacy;
                }
                JsonRpcMessage::Response(r)
            }
            JsonRpcMessage::Request(JsonRpcRequest {
                jsonrpc,
                id,
                request: ServerRequest::ElicitRequest(elicit),
            }) if self.legacy_elicitation => {
                let request = match legacy_request(&elicit.params) {
                    Some(custom) => ServerRequest::CustomRequest(custom),
                    None => ServerRequest::ElicitRequest(elicit),
                };
                JsonRpcMessage::Request(JsonRpcRequest {
                    jsonrpc,
                    id,
                    request,
                })
            }
            other => other,
        };
        write_message(&self.write, &item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Ok(LineRead::Line) => {}
                Ok(LineRead::TooLong(id)) => {
                    let message = format!(
                        "Invalid Request: the message is larger than the {} MiB limit",
                        MAX_MESSAGE >> 20
                    );
                    crate::eline!(
                        "warning: refused an incoming MCP message longer than {} MiB",
                        MAX_MESSAGE >> 20
                    );
                    self.answer(id, ErrorData::invalid_request(message, None));
                    continue;
                }
                Ok(LineRead::End) => return None,
                Err(e) => {
                    crate::eline!("warning: cannot read the MCP client's messages: {e}");
                    return None;
                }
            }
            let parsed = self.parse_line();
            self.line.clear();
            match parsed {
                Parsed::Message(message) => return Some(*message),
                Parsed::Ignored => {}
                Parsed::Error(id, error) => self.answer(id, error),
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        use tokio::io::AsyncWriteExt;
        match self.write.lock().await.take() {
            Some(mut write) => write.shutdown().await,
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// What rmcp's own reading makes of `line`.
    fn rmcp_reads(line: &str) -> Option<Value> {
        let mut framed = BytesMut::from(format!("{line}\n").as_bytes());
        let mut decoder = JsonRpcMessageCodec::<RxJsonRpcMessage<RoleServer>>::default();
        decoder
            .decode(&mut framed)
            .ok()
            .flatten()
            .map(|m| serde_json::to_value(m).unwrap())
    }

    #[test]
    fn a_tools_call_reads_as_rmcp_reads_it() {
        let lines = [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"Read","arguments":{"file_path":"a.txt"}}}"#,
            r#"{"jsonrpc": "2.0", "id": "x-1", "method": "tools/call", "params": {"name": "Glob"}}"#,
            r#"{"method":"tools/call","params":{"name":"Read","arguments":{"file_path":"a"},"_meta":{"progressToken":3}},"id":1,"jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Echo","arguments":{"text":"tools/call"}},"extra":true}"#,
        ];
        for line in lines {
            let fast = tools_call(line.as_bytes())
                .unwrap_or_else(|| panic!("not taken as a tools/call: {line}"));
            assert_eq!(
                Some(serde_json::to_value(fast).unwrap()),
                rmcp_reads(line),
                "{line}"
            );
        }
    }

    #[test]
    fn lines_that_may_be_something_else_take_the_general_way() {
        let lines = [
            // Not a tools/call at all.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            // A response whose content mentions tools/call.
            r#"{"jsonrpc":"2.0","id":1,"result":{"text":"tools/call"}}"#,
            // A request with a stray error member: rmcp answers it Invalid Request.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Read"},"error":{}}"#,
            // A member name spelled with escapes.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Read"},"r\u0065sult":{}}"#,
            // Not JSON-RPC 2.0, a notification, no params.
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"Read"}}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"Read"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Read""#,
        ];
        for line in lines {
            assert!(tools_call(line.as_bytes()).is_none(), "{line}");
        }
    }

    /// Feeds `input` to a wire and collects what it received and what it wrote back.
    fn exchange(input: &[u8]) -> (Vec<Value>, String) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let (mut ours, theirs) = tokio::io::duplex(1 << 16);
            let (their_read, their_write) = tokio::io::split(theirs);
            let mut wire = ServerWire::new(input, their_write);
            let mut received = Vec::new();
            while let Some(message) = wire.receive().await {
                received.push(serde_json::to_value(message).unwrap());
            }
            // Lets the spawned answers go out before the writer closes.
            tokio::task::yield_now().await;
            wire.close().await.unwrap();
            drop(wire);
            drop(their_read);
            let mut written = String::new();
            use tokio::io::AsyncReadExt;
            ours.read_to_string(&mut written).await.unwrap();
            (received, written)
        })
    }

    #[test]
    fn the_wire_reads_messages_skips_noise_and_answers_non_messages() {
        let input = concat!(
            "\n",
            "not json at all\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"Read\"}}\r\n",
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/somebody_else\"}\n",
            "{\"hello\":\"world\"}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n",
            // Cut off by the end of input: dropped, as rmcp does.
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}",
        );
        let (received, written) = exchange(input.as_bytes());
        let methods: Vec<&str> = received
            .iter()
            .map(|m| m["method"].as_str().unwrap())
            .collect();
        // A notification outside the protocol comes through as rmcp reads it (a custom one).
        assert_eq!(
            methods,
            ["tools/call", "notifications/somebody_else", "ping"]
        );
        assert_eq!(received[0]["id"], json!(1));
        let answers = answers(&written);
        assert_eq!(answers.len(), 2, "{written}");
        assert_eq!(answers[0]["error"]["code"], json!(-32700), "not JSON");
        assert_eq!(answers[0]["id"], Value::Null);
        assert_eq!(answers[1]["error"]["code"], json!(-32600), "no message");
    }

    fn answers(written: &str) -> Vec<Value> {
        written
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The error each line is answered with, as (id, code).
    fn errors_for(lines: &[&str]) -> Vec<(Value, i64)> {
        let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let (received, written) = exchange(input.as_bytes());
        assert!(received.is_empty(), "{received:?}");
        answers(&written)
            .iter()
            .map(|a| {
                (
                    a.get("id").cloned().expect("an id member"),
                    a["error"]["code"].as_i64().unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn bad_requests_are_answered_with_their_id_and_the_code_json_rpc_says() {
        let lines = [
            r#"{not json"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            r#"7"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":"x"}"#,
            r#"{"jsonrpc":"2.0","id":"s","method":"tools/call","params":"x"}"#,
            r#"{"jsonrpc":"1.0","id":4,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":3}}"#,
            r#"{"jsonrpc":"2.0","id":{"no":1},"method":"ping"}"#,
            // Notifications are never answered, however wrong.
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}"#,
        ];
        assert_eq!(
            errors_for(&lines),
            [
                (Value::Null, -32700),
                (Value::Null, -32600),
                (Value::Null, -32600),
                (json!(2), -32600),
                (json!("s"), -32600),
                (json!(4), -32600),
                (json!(5), -32602),
                (json!(6), -32602),
                (json!(7), -32602),
                (Value::Null, -32600),
            ]
        );
    }

    #[test]
    fn a_line_over_the_limit_is_answered_with_its_id_and_the_next_one_read() {
        let filler = "x".repeat(MAX_MESSAGE + 10);
        let long = |before: &str, after: &str| {
            format!(
                r#"{{{before}"method":"tools/call","params":{{"name":"Write","arguments":{{"id":99,"content":"{filler}"}}}}{after}}}"#
            )
        };
        let mut input = String::new();
        // The Python SDK puts the id last, the TypeScript one first.
        input.push_str(&long("", r#","jsonrpc":"2.0","id":41"#));
        input.push('\n');
        input.push_str(&long(r#""jsonrpc":"2.0","id":"first","#, ""));
        input.push('\n');
        input.push_str(&"y".repeat(MAX_MESSAGE + 1));
        input.push_str("\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n");
        let (received, written) = exchange(input.as_bytes());
        assert_eq!(received.len(), 1);
        assert_eq!(received[0]["id"], json!(3));
        let answers = answers(&written);
        let ids: Vec<&Value> = answers.iter().map(|a| &a["id"]).collect();
        assert_eq!(
            ids,
            [&json!(41), &json!("first"), &Value::Null],
            "{written:.300}"
        );
        for answer in &answers {
            assert_eq!(answer["error"]["code"], json!(-32600));
            assert!(
                answer["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("16 MiB"),
                "{answer}"
            );
        }
    }

    #[test]
    fn a_message_of_exactly_the_limit_is_read() {
        let head = r#"{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":""#;
        let tail = r#""}}"#;
        let pad = "p".repeat(MAX_MESSAGE - head.len() - tail.len());
        let input = format!("{head}{pad}{tail}\r\n");
        let (received, written) = exchange(input.as_bytes());
        assert_eq!(received.len(), 1, "{written:.200}");
        assert!(written.is_empty());
    }

    #[test]
    fn the_top_level_id_is_found_in_pieces_and_never_inside_members() {
        let find = |text: &str, piece: usize| {
            let mut scan = TopLevelId::default();
            for chunk in text.as_bytes().chunks(piece) {
                scan.feed(chunk);
            }
            scan.id().map(|id| serde_json::to_value(id).unwrap())
        };
        let cases = [
            (
                r#"{"params":{"id":1,"x":[{"id":2}]},"id":3}"#,
                Some(json!(3)),
            ),
            (r#"{ "id" : "a,b}" , "method":"ping"}"#, Some(json!("a,b}"))),
            (r#"{"method":"x \"id\": 5","id":6}"#, Some(json!(6))),
            (r#"{"i\u0064":7}"#, None),
            (r#"{"method":"id","params":{}}"#, None),
            (r#"{"id":{"a":1}}"#, None),
            (r#"{"id":[1]}"#, None),
            (r#"{"params":"no id"}"#, None),
        ];
        for (text, want) in cases {
            for piece in [1, 3, 1000] {
                assert_eq!(find(text, piece), want, "{text} in pieces of {piece}");
            }
        }
    }
}
