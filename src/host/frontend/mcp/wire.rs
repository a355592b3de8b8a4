//! The byte side of `finch run --serve mcp`: newline-delimited JSON-RPC on stdin/stdout, as
//! rmcp's own stdio transport frames it, with one shortcut on the way in.
//!
//! rmcp reads a message by trying every request, notification and result type the protocol
//! has until one fits; for `tools/call`, the request an agent sends over and over, that costs a
//! few microseconds of failed attempts per call. [`ServerWire`] parses a line that can only be
//! a `tools/call` request straight as one (with rmcp's own types, so `_meta` and every field
//! come out as rmcp would make them) and hands every other line to rmcp's decoder. The rest is
//! rmcp's behaviour, kept: lines over 16 MiB are dropped, blank lines and text that is not JSON
//! are ignored, JSON that is no message is answered with an Invalid Request error, a line cut
//! off by the end of input is dropped; writing goes through rmcp's own transport.

use std::io;

use rmcp::model::{
    CallToolRequest, ClientRequest, ErrorData, JsonRpcMessage, JsonRpcRequest, RequestId,
};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::{
    AsyncRwTransport, DEFAULT_MAX_LINE_LENGTH, JsonRpcMessageCodec, JsonRpcMessageCodecError,
};
use serde::Deserialize;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};
use tokio_util::bytes::BytesMut;
use tokio_util::codec::Decoder;

/// The server side of an MCP stdio connection (see the module docs).
pub struct ServerWire<R: AsyncRead, W: AsyncWrite> {
    read: BufReader<R>,
    /// The line being read; a read cut off by cancellation resumes it.
    line: Vec<u8>,
    /// Dropping the rest of a line that was too long.
    discarding: bool,
    decoder: JsonRpcMessageCodec<RxJsonRpcMessage<RoleServer>>,
    /// rmcp's transport, used for writing only.
    write: AsyncRwTransport<RoleServer, tokio::io::Empty, W>,
    /// The negotiated revision has 2025-06-18's elicitation (`super::version`), seen on the
    /// `initialize` answer going out.
    legacy_elicitation: bool,
}

/// What reading one line gave.
enum LineRead {
    /// A whole line is in `line`.
    Line,
    /// The line passed the length limit and was dropped.
    TooLong,
    End,
}

/// What one line holds.
#[derive(Debug)]
enum Parsed {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Nothing to act on: blank, not JSON, or what rmcp's decoder skips.
    Ignored,
    /// JSON that is no JSON-RPC message of the protocol: answered with Invalid Request.
    Invalid,
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
            discarding: false,
            decoder: JsonRpcMessageCodec::default(),
            write: AsyncRwTransport::new(tokio::io::empty(), write),
            legacy_elicitation: false,
        }
    }

    /// Reads up to the next newline into `line`, never holding more than the length limit.
    /// Cancel-safe: bytes are moved from the reader to `line` with no await in between.
    async fn read_line(&mut self) -> io::Result<LineRead> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(LineRead::End);
            }
            let newline = memchr::memchr(b'\n', available);
            let take = newline.map_or(available.len(), |at| at + 1);
            let too_long =
                !self.discarding && self.line.len().saturating_add(take) > DEFAULT_MAX_LINE_LENGTH;
            if !self.discarding && !too_long {
                self.line.extend_from_slice(&available[..take]);
            }
            self.read.consume(take);
            if too_long {
                self.line.clear();
                self.discarding = newline.is_none();
                return Ok(LineRead::TooLong);
            }
            if newline.is_some() {
                if self.discarding {
                    self.discarding = false;
                } else {
                    return Ok(LineRead::Line);
                }
            }
        }
    }

    fn parse_line(&mut self) -> Parsed {
        let line = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            return Parsed::Ignored;
        }
        if let Some(call) = tools_call(line) {
            return Parsed::Message(Box::new(call));
        }
        let mut framed = BytesMut::with_capacity(line.len() + 1);
        framed.extend_from_slice(line);
        framed.extend_from_slice(b"\n");
        match self.decoder.decode(&mut framed) {
            Ok(Some(message)) => Parsed::Message(Box::new(message)),
            Err(JsonRpcMessageCodecError::Serde(e))
                if matches!(
                    e.classify(),
                    serde_json::error::Category::Data | serde_json::error::Category::Io
                ) =>
            {
                Parsed::Invalid
            }
            // Not JSON: no id to answer to, and answering garbage can start an error storm
            // with a peer that echoes it (what the MCP SDKs do).
            Ok(None) | Err(_) => Parsed::Ignored,
        }
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
        self.write.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Ok(LineRead::Line) => {}
                Ok(LineRead::TooLong) => {
                    crate::eline!(
                        "warning: dropped an incoming MCP message longer than {} MiB",
                        DEFAULT_MAX_LINE_LENGTH >> 20
                    );
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
                Parsed::Invalid => {
                    // Spawned, so the answer goes out even when this receive is dropped by
                    // the service loop's select.
                    let reply = TxJsonRpcMessage::<RoleServer>::error(
                        ErrorData::invalid_request("Invalid request", None),
                        None,
                    );
                    tokio::spawn(self.write.send(reply));
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        self.write.close().await
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
        let answers: Vec<Value> = written
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(answers.len(), 1, "{written}");
        assert_eq!(answers[0]["error"]["code"], json!(-32600));
    }

    #[test]
    fn a_line_over_the_limit_is_dropped_and_the_next_one_read() {
        let mut input = vec![b'x'; DEFAULT_MAX_LINE_LENGTH + 10];
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n");
        let (received, written) = exchange(&input);
        assert_eq!(received.len(), 1);
        assert_eq!(received[0]["id"], json!(3));
        assert!(written.is_empty(), "{written}");
    }
}
