//! The MCP bridge (SPEC §9.2) against real servers the tests start: one written with the official
//! Python SDK (`tests/peers/test_server.py`, `mcp` 2.x), and npm
//! `@modelcontextprotocol/server-everything` over stdio and over Streamable HTTP on 127.0.0.1.
//! Both come from `scripts/install-test-peers` (which `scripts/test` runs): the Python SDK into
//! the `python3` on PATH (or set `FINCH_TEST_PYTHON`), server-everything into
//! `<repo>/.test-peers/`.
//!
//! Also `finch mcp list|add|remove|tools` with every error they document, servers contributed
//! by mini tools, the precedence of the three sources, and the faults the bridge must survive
//! (a server that does not start, one that hangs, one that drops its connection).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::fixtures::MiniTool;
use crate::common::{Run, TestContext};

const INSTALL: &str = "run scripts/install-test-peers (scripts/test does)";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn test_server() -> String {
    repo()
        .join("tests/peers/test_server.py")
        .display()
        .to_string()
}

/// The Python that has the `mcp` SDK, as an absolute path (the sealed test environment has no
/// pyenv or virtualenv of its own): `FINCH_TEST_PYTHON`, else `python3` on PATH.
pub(crate) fn python() -> &'static str {
    static PYTHON: OnceLock<String> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let program = std::env::var("FINCH_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
        let out = Command::new(&program)
            .args([
                "-c",
                "import sys; from mcp.server.mcpserver import MCPServer; print(sys.executable)",
            ])
            .output()
            .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
        assert!(
            out.status.success(),
            "{program} lacks the mcp 2.x SDK: {INSTALL}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    })
}

/// server-everything's entry module.
fn everything() -> String {
    let path = repo()
        .join(".test-peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        path.is_file(),
        "server-everything not found at {}: {INSTALL}",
        path.display()
    );
    path.display().to_string()
}

/// A `servers.json` stdio entry running the Python test server with `extra` arguments.
pub(crate) fn python_entry(name: &str, extra: &[&str]) -> Value {
    let mut args = vec![test_server()];
    args.extend(extra.iter().map(|a| a.to_string()));
    json!({"name": name, "command": python(), "args": args})
}

/// Writes `servers.json` as a person would edit it, and approves each entry by name (`finch mcp
/// trust`), so that it starts; an entry finch cannot read stays unapproved.
pub(crate) fn write_servers(ctx: &TestContext, doc: &Value) -> PathBuf {
    let path = plant_servers(ctx, doc);
    let names = doc["servers"].as_array().into_iter().flatten();
    for name in names.filter_map(|s| s["name"].as_str()) {
        ctx.run(&["mcp", "trust", name]);
    }
    path
}

/// Writes `servers.json` as another program would: no entry is approved.
pub(crate) fn plant_servers(ctx: &TestContext, doc: &Value) -> PathBuf {
    let path = ctx.runtime.join("extension-data/mcp/servers.json");
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(&path, serde_json::to_string_pretty(doc).expect("json")).expect("write");
    path
}

/// Short timeouts: every fault test ends in seconds.
fn quick(ctx: &TestContext) {
    ctx.write_config(
        "[mcp]\ntimeout = \"8s\"\nreconnect_delay = \"200ms\"\n[state]\nlock_timeout = \"300ms\"\n",
    );
}

fn list_json(ctx: &TestContext) -> Vec<Value> {
    let out = ctx.run(&["mcp", "list", "--json"]);
    out.success();
    match out.json() {
        Value::Array(items) => items,
        other => panic!("not a list: {other}"),
    }
}

fn server<'a>(list: &'a [Value], name: &str) -> &'a Value {
    list.iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no server {name} in {list:?}"))
}

pub(crate) fn text_of(record: &Value) -> String {
    record["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// Whether a process exists and is not a zombie (Linux `/proc`).
pub(crate) fn is_running(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name, which is in parentheses.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z')),
        Err(_) => false,
    }
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    listener.local_addr().expect("local address").port()
}

/// A server process started by a test: killed and reaped on drop (on a panic too), and killed
/// by the kernel if the test process dies first.
struct Peer {
    child: Child,
    dir: tempfile::TempDir,
    port: u16,
}

impl Peer {
    fn spawn(mut command: Command, dir: &Path) -> Child {
        // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let log = std::fs::File::create(dir.join("server.log")).expect("log");
        command
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .spawn()
            .expect("spawn a peer server")
    }

    /// The Python test server over Streamable HTTP on a free 127.0.0.1 port.
    fn python_http() -> Peer {
        let dir = tempfile::tempdir().expect("temp dir");
        let port_file = dir.path().join("port");
        let mut command = Command::new(python());
        command.arg(test_server()).arg("--http").arg(&port_file);
        let child = Peer::spawn(command, dir.path());
        let mut peer = Peer {
            child,
            dir,
            port: 0,
        };
        peer.port = peer.wait_for(|| {
            std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|p| p.trim().parse().ok())
        });
        peer
    }

    /// server-everything in its `streamableHttp` mode; it reads its port from `PORT`.
    fn everything_http() -> Peer {
        let dir = tempfile::tempdir().expect("temp dir");
        let port = free_port();
        let mut command = Command::new("node");
        command
            .arg(everything())
            .arg("streamableHttp")
            .env("PORT", port.to_string());
        let child = Peer::spawn(command, dir.path());
        let mut peer = Peer { child, dir, port };
        let log = peer.log_path();
        peer.wait_for(|| {
            std::fs::read_to_string(&log)
                .ok()
                .filter(|t| t.contains("listening on port"))
        });
        peer
    }

    fn log_path(&self) -> PathBuf {
        self.dir.path().join("server.log")
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// Polls `ready` until it answers, failing with the server's log if the server exits or
    /// 30 s pass.
    fn wait_for<T>(&mut self, mut ready: impl FnMut() -> Option<T>) -> T {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(v) = ready() {
                return v;
            }
            if let Some(status) = self.child.try_wait().expect("poll the peer") {
                panic!("the peer server exited ({status}) before it was ready");
            }
            assert!(
                Instant::now() < deadline,
                "the peer server never became ready"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `finch run --jsonl` driven one request at a time: for tests where time passes between calls.
struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    fn start(ctx: &TestContext, extra: &[&str]) -> Session {
        let mut command = Command::new(env!("CARGO_BIN_EXE_finch"));
        command
            .env_clear()
            .env("HOME", &ctx.home)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("FINCH_RUNTIME_HOME", &ctx.runtime)
            .env("FINCH_AGENT_HOME", &ctx.agent)
            .env("NO_COLOR", "1")
            .current_dir(&ctx.work)
            .args(["run", "--jsonl"])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        // SAFETY: setsid is async-signal-safe: no terminal, so no card opens on one.
        unsafe {
            command.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
        let mut child = command.spawn().expect("finch run --jsonl");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Session {
            child,
            stdin,
            stdout,
            next_id: 0,
        }
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.next_id += 1;
        let request = json!({"id": self.next_id, "tool": tool, "arguments": arguments});
        writeln!(self.stdin, "{request}").expect("write a request");
        self.stdin.flush().expect("flush");
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read a response");
        let response: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("bad line {line:?}: {e}"));
        assert_eq!(response["id"], self.next_id, "{response}");
        response
    }

    /// Ends the session (closes stdin) and waits for finch to exit.
    fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin);
        self.child.wait().expect("wait for finch")
    }
}

/// `finch tool call <tool> <args> --approve <tool> --json`.
pub(crate) fn approved_call(ctx: &TestContext, tool: &str, args: Value) -> Run {
    ctx.run(&[
        "tool",
        "call",
        tool,
        &args.to_string(),
        "--approve",
        tool,
        "--json",
    ])
}

#[test]
fn a_python_sdk_server_over_stdio_lists_and_answers_calls() {
    let ctx = TestContext::new();
    quick(&ctx);
    write_servers(&ctx, &json!({"servers": [python_entry("Py-Test", &[])]}));

    let list = list_json(&ctx);
    assert_eq!(list.len(), 1);
    let s = &list[0];
    assert_eq!(
        (
            &s["name"],
            &s["transport"],
            &s["source"],
            &s["owner"],
            &s["status"],
            &s["tools"],
            &s["error"]
        ),
        (
            &json!("Py-Test"),
            &json!("stdio"),
            &json!("user"),
            &json!("Py-Test"),
            &json!("connected"),
            &json!(14),
            &Value::Null
        )
    );
    assert_eq!(s["command"], python());
    // On a pipe: tab-separated values without the header (issue 31).
    let text = ctx.run(&["mcp", "list"]);
    text.success();
    assert_eq!(
        text.stdout(),
        "Py-Test\tstdio\tuser\tPy-Test\tconnected\t14\n"
    );

    let tools = ctx.run(&["mcp", "tools", "py-test", "--json"]);
    tools.success();
    let tools = tools.json();
    let names: Vec<&str> = tools
        .as_array()
        .expect("a list")
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    assert_eq!(
        names,
        [
            "mcp__py_test__echo",
            "mcp__py_test__add",
            "mcp__py_test__fail",
            "mcp__py_test__pixel",
            "mcp__py_test__document",
            "mcp__py_test__wipe",
            "mcp__py_test__header",
            "mcp__py_test__crash",
            "mcp__py_test__nap",
            "mcp__py_test__protocol",
            "mcp__py_test__count",
            "mcp__py_test__linger",
            "mcp__py_test__grow",
            "mcp__py_test__annotated",
        ]
    );
    assert_eq!(tools[0]["title"], "Echo");
    assert_eq!(tools[0]["inputSchema"]["required"], json!(["message"]));
    assert_eq!(tools[5]["destructive"], true);

    // Text, structured content, images, embedded resources and errors, as the server sent them.
    let echo = approved_call(&ctx, "mcp__py_test__echo", json!({"message": "hi"}));
    echo.success();
    let record = echo.json();
    assert_eq!(
        (text_of(&record), &record["decidedBy"], &record["isError"]),
        ("Echo: hi".to_string(), &json!("approveFlag"), &json!(false))
    );
    let fail = approved_call(
        &ctx,
        "mcp__py_test__fail",
        json!({"reason": "the test said so"}),
    );
    fail.failure(1);
    assert_eq!(fail.json()["isError"], true);
    assert!(
        text_of(&fail.json()).contains("failed because the test said so"),
        "{fail}"
    );
    // The other kinds of content, in one session (one server start). The catalog cache
    // `reload` writes has the server's tools at once; each call waits for the server.
    ctx.run(&["reload"]).success();
    let tools = ["add", "pixel", "document"].map(|t| format!("mcp__py_test__{t}"));
    let mut extra = Vec::new();
    for t in &tools {
        extra.extend(["--approve", t.as_str()]);
    }
    let (responses, out) = ctx.jsonl(
        &extra,
        &[
            json!({"id": 0, "tool": "ToolSearch", "arguments": {"query": "", "source": "mcp:py-test", "limit": 20}}),
            json!({"id": 1, "tool": tools[0], "arguments": {"a": 2, "b": 3}}),
            json!({"id": 2, "tool": tools[1], "arguments": {}}),
            json!({"id": 3, "tool": tools[2], "arguments": {}}),
        ],
    );
    out.success();
    assert_eq!(responses[1]["structuredContent"], json!({"result": 5}));
    let pixel = &responses[2];
    assert_eq!(
        pixel["content"][0],
        json!({"type": "text", "text": "a one-pixel image:"})
    );
    assert_eq!(pixel["content"][1]["type"], "image");
    assert_eq!(pixel["content"][1]["mimeType"], "image/png");
    assert!(
        pixel["content"][1]["data"]
            .as_str()
            .is_some_and(|d| d.starts_with("iVBOR"))
    );
    // An embedded resource is kept whole: its URI with its text.
    assert_eq!(
        responses[3]["content"][0],
        json!({"type": "resource", "resource": {"uri": "file:///notes/readme.txt", "mimeType": "text/plain", "text": "the notes say hello"}})
    );

    // An MCP tool always gets a card; nobody to answer it here, so it is refused (exit 4).
    let refused = ctx.run(&["tool", "call", "mcp__py_test__echo", "message=hi"]);
    refused.failure(4);
    refused.stderr_has("needs a person's approval");
    // Arguments are checked against the server's schema before anything is sent.
    approved_call(&ctx, "mcp__py_test__echo", json!({"text": "hi"}))
        .failure(1)
        .stderr_has("- \"message\" is a required property");
}

#[test]
fn server_everything_over_stdio_through_tool_call_and_run() {
    let ctx = TestContext::new();
    quick(&ctx);
    write_servers(
        &ctx,
        &json!({"servers": [{"name": "everything", "command": "node", "args": [everything(), "stdio"]}]}),
    );
    let list = list_json(&ctx);
    let s = server(&list, "everything");
    assert_eq!(
        (&s["status"], &s["transport"]),
        (&json!("connected"), &json!("stdio"))
    );
    assert!(s["tools"].as_u64().is_some_and(|n| n >= 10), "{s}");
    let tools = ctx.run(&["mcp", "tools", "everything"]);
    tools.success().stdout_has("mcp__everything__echo\t");
    tools.stdout_has("Echoes back the input string");

    let echo = approved_call(&ctx, "mcp__everything__echo", json!({"message": "hello"}));
    echo.success();
    assert_eq!(text_of(&echo.json()), "Echo: hello");
    let image = approved_call(&ctx, "mcp__everything__get-tiny-image", json!({})).json();
    assert_eq!(image["content"][1]["type"], "image");

    // A model's way: ToolSearch by source activates the tools (listed from the catalog cache
    // while the server connects), then a call runs.
    ctx.run(&["reload"]).success();
    let requests = [
        json!({"id": 1, "tool": "mcp__everything__echo", "arguments": {"message": "too early"}}),
        json!({"id": 2, "tool": "ToolSearch", "arguments": {"query": "echo", "source": "mcp:everything"}}),
        json!({"id": 3, "tool": "mcp__everything__echo", "arguments": {"message": "from run"}}),
    ];
    let (responses, out) = ctx.jsonl(&["--approve", "mcp__everything__echo"], &requests);
    // The first call failed (not active yet): a scripted run says so in its exit code.
    out.failure(1);
    assert_eq!(responses[0]["failure"], "notActive", "{}", responses[0]);
    let found = &responses[1]["structuredContent"];
    assert_eq!(found[0]["name"], "mcp__everything__echo", "{found}");
    assert_eq!(found[0]["source"], "mcp:everything");
    assert_eq!(found[0]["activated"], true);
    assert_eq!(text_of(&responses[2]), "Echo: from run");
    let transcripts = ctx.transcripts();
    let calls = ctx.tool_calls(transcripts.last().expect("a transcript"));
    let last = calls.last().expect("a call");
    assert_eq!(
        (&last["tool"], &last["decision"], &last["decidedBy"]),
        (
            &json!("mcp__everything__echo"),
            &json!("allow"),
            &json!("approveFlag")
        )
    );
}

#[test]
fn server_everything_over_streamable_http() {
    let ctx = TestContext::new();
    quick(&ctx);
    let peer = Peer::everything_http();
    ctx.run(&["mcp", "add", "every-http", "--url", &peer.url()])
        .success()
        .stdout_has("✓ Added MCP server \"every-http\" (http: http://127.0.0.1:");
    let list = list_json(&ctx);
    let s = server(&list, "every-http");
    assert_eq!(
        (&s["status"], &s["transport"], &s["url"], &s["headers"]),
        (
            &json!("connected"),
            &json!("http"),
            &json!(peer.url()),
            &json!([])
        )
    );
    let echo = approved_call(
        &ctx,
        "mcp__every_http__echo",
        json!({"message": "over http"}),
    );
    echo.success();
    assert_eq!(text_of(&echo.json()), "Echo: over http");

    ctx.run(&["reload"]).success();
    let requests = [
        json!({"id": 1, "tool": "ToolSearch", "arguments": {"query": "echo", "source": "mcp:every-http"}}),
        json!({"id": 2, "tool": "mcp__every_http__echo", "arguments": {"message": "second"}}),
        json!({"id": 3, "tool": "mcp__every_http__get-sum", "arguments": {"a": 2, "b": 40}}),
    ];
    let (responses, out) = ctx.jsonl(
        &[
            "--approve",
            "mcp__every_http__echo",
            "--approve",
            "mcp__every_http__get-sum",
        ],
        &requests,
    );
    // get-sum's call fails (below): a scripted run says so in its exit code.
    out.failure(1);
    assert_eq!(text_of(&responses[1]), "Echo: second", "{}", responses[1]);
    // get-sum was not in the search's results, so it is not active yet.
    assert_eq!(responses[2]["failure"], "notActive", "{}", responses[2]);
}

#[test]
fn header_variables_expand_from_the_environment() {
    let ctx = TestContext::new();
    quick(&ctx);
    let peer = Peer::python_http();
    ctx.run(&[
        "mcp",
        "add",
        "traced",
        "--url",
        &peer.url(),
        "--header",
        "X-Trace: run-${TRACE_ID}",
        "-H",
        "X-Fallback: ${NOT_SET_ANYWHERE:-plain}",
    ])
    .success();
    // The file keeps the variables, not their values.
    let doc = ctx.read_json(&ctx.runtime.join("extension-data/mcp/servers.json"));
    assert_eq!(
        doc["servers"][0]["headers"],
        json!({"X-Trace": "run-${TRACE_ID}", "X-Fallback": "${NOT_SET_ANYWHERE:-plain}"})
    );
    let call = |header: &str| {
        let args = json!({"name": header}).to_string();
        ctx.cmd()
            .env("TRACE_ID", "4711")
            .args([
                "tool",
                "call",
                "mcp__traced__header",
                &args,
                "--approve",
                "mcp__traced__header",
                "--json",
            ])
            .output()
            .expect("finch runs")
    };
    let out = Run(call("x-trace"));
    out.success();
    assert_eq!(text_of(&out.json()), "run-4711");
    assert_eq!(text_of(&Run(call("x-fallback")).json()), "plain");

    // Without the variable the server is left out, saying which variable is missing.
    let list = list_json(&ctx);
    let s = server(&list, "traced");
    assert_eq!(s["status"], "failed");
    assert_eq!(
        s["error"],
        "header X-Trace: ${TRACE_ID} is not set in the environment"
    );
    assert_eq!(
        s["headers"],
        json!(["X-Fallback", "X-Trace"]),
        "header values are never shown"
    );
    let absent = ctx.call("mcp__traced__header", json!({"name": "x-trace"}));
    absent.failure(3);
    absent.stderr_has("warning: MCP server traced (user): header X-Trace: ${TRACE_ID} is not set");
}

#[test]
fn servers_that_do_not_start_are_reported_and_the_host_goes_on() {
    let ctx = TestContext::new();
    quick(&ctx);
    write_servers(
        &ctx,
        &json!({"servers": [
            {"name": "missing", "command": "no-such-mcp-server-program"},
            python_entry("quits", &["--exit-at-start"]),
            python_entry("fine", &[]),
            {"name": "nowhere", "url": format!("http://127.0.0.1:{}/mcp", free_port())},
        ]}),
    );
    let list = list_json(&ctx);
    assert_eq!(
        server(&list, "missing")["error"],
        "cannot start the server: `no-such-mcp-server-program` was not found on PATH"
    );
    let quits = server(&list, "quits")["error"]
        .as_str()
        .expect("an error")
        .to_string();
    assert!(
        quits.starts_with("the MCP handshake (initialize) failed: "),
        "{quits}"
    );
    assert!(
        quits.contains(
            "the server's stderr ended with: test_server: refusing to start (--exit-at-start)"
        ),
        "{quits}"
    );
    assert!(quits.contains("logs/mcp/quits.log"), "{quits}");
    let nowhere = server(&list, "nowhere")["error"]
        .as_str()
        .expect("an error")
        .to_string();
    assert!(nowhere.contains("onnection refused"), "{nowhere}");
    assert_eq!(server(&list, "fine")["status"], "connected");
    // On a pipe: one tab-separated row a server, why one failed as a warning on stderr.
    let table = ctx.run(&["mcp", "list"]);
    table
        .success()
        .stdout_has("quits\tstdio\tuser\tquits\tfailed\t-\n");
    table.stderr_has(
        "warning: missing: cannot start the server: `no-such-mcp-server-program` was not found on PATH\n",
    );

    // The session starts anyway, warns, and has the working server's tools (from the catalog
    // cache while it connects).
    ctx.run(&["reload"]).success();
    let (responses, out) = ctx.jsonl(
        &["--approve", "mcp__fine__echo"],
        &[
            json!({"id": 1, "tool": "ToolSearch", "arguments": {"query": "echo", "source": "mcp"}}),
            json!({"id": 2, "tool": "mcp__fine__echo", "arguments": {"message": "still here"}}),
            json!({"id": 3, "tool": "mcp__missing__anything", "arguments": {}}),
        ],
    );
    // The third call names a tool that is not there: the scripted run exits 1.
    out.failure(1);
    out.stderr_has("warning: MCP server missing (user): cannot start the server");
    out.stderr_has("warning: MCP server quits (user): the MCP handshake (initialize) failed");
    assert_eq!(responses[0]["isError"], false, "{}", responses[0]);
    assert_eq!(text_of(&responses[1]), "Echo: still here");
    assert_eq!(responses[2]["failure"], "unknownTool");

    ctx.run(&["mcp", "tools", "quits"]).failure(1).stderr_has(
        "Error: cannot connect to MCP server \"quits\": the MCP handshake (initialize) failed",
    );
}

#[test]
fn a_server_that_hangs_times_out_and_is_stopped() {
    let ctx = TestContext::new();
    ctx.write_config("[mcp]\ntimeout = \"2s\"\n");
    let pid_file = ctx.base().join("hang.pid");
    write_servers(
        &ctx,
        &json!({"servers": [
            python_entry("sleepy", &["--hang", "--pid-file", &pid_file.display().to_string()]),
        ]}),
    );
    let started = Instant::now();
    let list = list_json(&ctx);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(8), "took {took:?}");
    assert_eq!(
        server(&list, "sleepy")["error"]
            .as_str()
            .expect("an error")
            .split(" (server log")
            .next(),
        Some("the server did not answer the MCP handshake (initialize) within 2 s")
    );
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .expect("the server wrote its pid")
        .trim()
        .parse()
        .expect("a pid");
    // Killed by finch (a zombie waiting for its new parent to reap it counts as gone).
    let deadline = Instant::now() + Duration::from_secs(5);
    while is_running(pid) {
        assert!(
            Instant::now() < deadline,
            "the hanging server {pid} outlived finch"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_dropped_connection_is_reconnected_in_the_background() {
    let ctx = TestContext::new();
    quick(&ctx);
    let marker = ctx.base().join("crashed-once");
    write_servers(
        &ctx,
        &json!({"servers": [python_entry("flaky", &["--crash-file", &marker.display().to_string()])]}),
    );
    ctx.run(&["reload"]).success();
    let mut session = Session::start(&ctx, &["--approve", "mcp__flaky__crash"]);
    let found = session.call(
        "ToolSearch",
        json!({"query": "crash", "source": "mcp:flaky"}),
    );
    assert_eq!(
        found["structuredContent"][0]["name"], "mcp__flaky__crash",
        "{found}"
    );
    let crashed = session.call("mcp__flaky__crash", json!({}));
    assert_eq!(crashed["isError"], true);
    assert!(
        text_of(&crashed).contains("MCP server `flaky` closed the connection during the call"),
        "{crashed}"
    );
    // The supervisor starts the server again (after 200 ms here); calls meanwhile say so.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut saw_reconnecting = false;
    loop {
        let r = session.call("mcp__flaky__crash", json!({}));
        if r["isError"] == false {
            assert_eq!(text_of(&r), "still alive");
            break;
        }
        assert!(text_of(&r).contains("finch is reconnecting"), "{r}");
        saw_reconnecting = true;
        assert!(Instant::now() < deadline, "never reconnected: {r}");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(saw_reconnecting || marker.exists());
    // A call answered "reconnecting" failed: the run's exit code says so (issue 31).
    let status = session.finish();
    assert_eq!(
        status.code(),
        Some(i32::from(saw_reconnecting)),
        "{status:?}"
    );
    let log = std::fs::read_to_string(ctx.runtime.join("logs/mcp/flaky.log")).expect("log");
    // One start for `reload`, one for the session, one to reconnect.
    assert_eq!(log.matches("finch starts:").count(), 3, "{log}");
}

#[test]
fn minitool_servers_merge_under_user_servers() {
    let ctx = TestContext::new();
    quick(&ctx);
    let source = ctx.base().join("src/acme-tools");
    MiniTool::new("acme-tools", "1.0.0")
        .finch_field(
            "contributes",
            json!({"mcpServers": [
                // Relative to the mini tool: its servers start in its directory.
                {"name": "Acme", "command": python(), "args": ["server/test_server.py"]},
                {"name": "broken", "args": []},
                // Metadata for a server it registers at run time: neither a server nor a problem.
                {"name": "Later", "description": "registered through mcp.client", "toolMeta": {"titles": {}}},
            ]}),
        )
        .file(
            "server/test_server.py",
            &std::fs::read_to_string(test_server()).expect("read the test server"),
        )
        .write_to(&source);
    ctx.run(&["add", &source.display().to_string()]).success();
    // Installed but not enabled: it contributes nothing.
    assert!(list_json(&ctx).is_empty());
    ctx.run(&["enable", "acme-tools"]).success();
    let list = list_json(&ctx);
    let acme = server(&list, "Acme");
    assert_eq!(
        (&acme["source"], &acme["owner"], &acme["status"]),
        (
            &json!("minitool:acme-tools"),
            &json!("acme-tools"),
            &json!("connected")
        )
    );
    let broken = server(&list, "broken");
    assert_eq!(
        (&broken["status"], &broken["source"]),
        (&json!("invalid"), &json!("minitool:acme-tools"))
    );
    assert!(
        broken["error"]
            .as_str()
            .is_some_and(|e| e.contains("needs a \"command\"")),
        "{broken}"
    );
    assert!(list.iter().all(|s| s["name"] != "Later"), "{list:?}");
    let echo = approved_call(
        &ctx,
        "mcp__acme__echo",
        json!({"message": "from a mini tool"}),
    );
    echo.success();
    assert_eq!(text_of(&echo.json()), "Echo: from a mini tool");
    ctx.run(&["mcp", "remove", "acme"])
        .failure(3)
        .stderr_has("hint: \"acme\" comes from minitool:acme-tools: disable that mini tool with `finch disable acme-tools` to drop it");

    // A user server of the same normalized name takes its place.
    let add = ctx.run(&["mcp", "add", "ACME", "--", python(), &test_server()]);
    add.success();
    add.stdout_has(
        "  It takes the place of the server of the same name from minitool:acme-tools.\n",
    );
    let list = list_json(&ctx);
    let user = server(&list, "ACME");
    assert_eq!(
        (&user["source"], &user["owner"]),
        (&json!("user"), &json!("ACME"))
    );
    assert!(list.iter().all(|s| s["name"] != "Acme"), "{list:?}");
    ctx.run(&["mcp", "remove", "acme"])
        .success()
        .stdout_has("  The server of the same name from minitool:acme-tools is used again.\n");
    assert_eq!(
        server(&list_json(&ctx), "Acme")["source"],
        "minitool:acme-tools"
    );
}

#[test]
fn add_and_remove_keep_what_finch_does_not_manage() {
    let ctx = TestContext::new();
    let path = write_servers(
        &ctx,
        &json!({
            "schema": 3,
            "servers": [
                {"name": "kept", "command": "srv", "args": ["-v"], "disabled": true, "note": {"by": "app"}},
            ],
            "appOnly": {"x": 1},
        }),
    );
    ctx.run(&[
        "mcp",
        "add",
        "web",
        "--url",
        "https://mcp.example/mcp",
        "-H",
        "Authorization: Bearer ${TOKEN}",
    ])
    .success();
    ctx.run(&[
        "mcp",
        "add",
        "kept",
        "--force",
        "--env",
        "LEVEL=debug",
        "--",
        "srv2",
        "--flag",
    ])
    .success()
    .stdout_has("✓ Replaced MCP server \"kept\" (stdio: srv2 --flag)");
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        serde_json::to_string_pretty(&json!({
            "schema": 3,
            "servers": [
                {"name": "kept", "command": "srv2", "args": ["--flag"], "env": {"LEVEL": "debug"},
                 "disabled": true, "note": {"by": "app"}},
                {"name": "web", "type": "http", "url": "https://mcp.example/mcp",
                 "headers": {"Authorization": "Bearer ${TOKEN}"}},
            ],
            "appOnly": {"x": 1},
        }))
        .expect("json")
            + "\n"
    );
    let removed = ctx.run(&["mcp", "remove", "WEB", "--json"]);
    removed.success();
    assert_eq!(
        removed.json(),
        json!({"name": "web", "removed": true, "path": path})
    );
    let doc = ctx.read_json(&path);
    assert_eq!(doc["servers"].as_array().map(Vec::len), Some(1));
    assert_eq!(doc["appOnly"], json!({"x": 1}));
    // No lock or temp files are left beside it but the lock file itself.
    let mut names: Vec<String> = std::fs::read_dir(path.parent().expect("dir"))
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, [".lock", "servers.json"]);
}

#[test]
fn add_prints_json_without_secret_values() {
    let ctx = TestContext::new();
    let out = ctx.run(&[
        "mcp",
        "add",
        "gh",
        "--json",
        "--env",
        "GITHUB_TOKEN=ghp_secret",
        "--cwd",
        ".",
        "--",
        "npx",
        "-y",
        "server-github",
    ]);
    out.success();
    assert_eq!(
        out.json(),
        json!({
            "name": "gh", "command": "npx", "args": ["-y", "server-github"], "env": ["GITHUB_TOKEN"],
            "cwd": ctx.work.display().to_string(), "source": "user", "replaced": false,
            "path": ctx.runtime.join("extension-data/mcp/servers.json"),
        })
    );
    assert!(!out.stdout().contains("ghp_secret"));
    let list = ctx.run(&["mcp", "list", "--json"]);
    assert!(!list.stdout().contains("ghp_secret"), "{list}");
}

#[test]
fn every_error_of_finch_mcp() {
    let ctx = TestContext::new();
    quick(&ctx);
    let usage = |args: &[&str], needle: &str| {
        let out = ctx.run(args);
        out.failure(2);
        assert!(out.stderr().contains(needle), "{args:?}: {out}");
    };
    usage(&["mcp", "add", "x"], "give the server's command after `--`");
    usage(
        &["mcp", "add", "bad name", "--", "srv"],
        "\"bad name\" cannot name an MCP server",
    );
    usage(&["mcp", "add", "-x", "--", "srv"], "unexpected argument");
    usage(
        &["mcp", "add", "x", "--header", "A: b", "--", "srv"],
        "--header is for HTTP servers: give the server's --url too",
    );
    usage(
        &["mcp", "add", "x", "--url", "http://h/mcp", "--env", "A=b"],
        "cannot be used with",
    );
    usage(
        &["mcp", "add", "x", "--url", "http://h/mcp", "--", "srv"],
        "cannot be used with",
    );
    usage(
        &["mcp", "add", "x", "--url", "http://h/mcp", "-H", "no colon"],
        "--header \"no colon\" is not `Name: value`",
    );
    usage(
        &[
            "mcp",
            "add",
            "x",
            "--url",
            "http://h/mcp",
            "-H",
            "bad name: v",
        ],
        "\"bad name\" is not a header name",
    );
    usage(
        &["mcp", "add", "x", "--url", "ftp://h/mcp"],
        "MCP server \"x\" \"url\" \"ftp://h/mcp\" is not an http:// or https:// URL",
    );
    usage(
        &["mcp", "add", "x", "--env", "NOEQUALS", "--", "srv"],
        "--env \"NOEQUALS\" is not KEY=VALUE",
    );
    ctx.run(&["mcp", "add", "x", "--cwd", "no/such/dir", "--", "srv"])
        .failure(3)
        .stderr_has("no/such/dir: no such directory");

    ctx.run(&["mcp", "add", "x", "--", "srv"]).success();
    let dup = ctx.run(&["mcp", "add", "X", "--json", "--", "srv"]);
    dup.failure(1);
    assert_eq!(dup.json()["error"]["code"], "already_exists");
    dup.stderr_has(
        "hint: pass --force to replace it, or remove it first with `finch mcp remove X`",
    );

    let absent = ctx.run(&["mcp", "remove", "nope", "--json"]);
    absent.failure(3);
    assert_eq!(absent.json()["error"]["code"], "unknown_server");
    ctx.run(&["mcp", "tools", "nope"])
        .failure(3)
        .stderr_has("Error: no MCP server named \"nope\"");
    ctx.run(&["mcp", "tools", "x"])
        .failure(1)
        .stderr_has("Error: cannot connect to MCP server \"x\": cannot start the server: `srv` was not found on PATH");

    // An entry that cannot be used is listed as invalid and refused by `tools`.
    let path = write_servers(
        &ctx,
        &json!({"servers": [{"name": "half"}, {"name": "y", "command": "srv"}]}),
    );
    let list = list_json(&ctx);
    let half = server(&list, "half");
    assert_eq!(half["status"], "invalid");
    assert_eq!(
        half["error"],
        format!(
            "{} entry 1 needs a \"command\" (a stdio server) or a \"url\" (a Streamable HTTP server)",
            path.display()
        )
    );
    ctx.run(&["mcp", "tools", "half"])
        .failure(1)
        .stderr_has("cannot be used:");

    // A corrupt file: list reports it, changes are refused and leave it as it was.
    std::fs::write(&path, "{\"servers\": [").expect("write");
    let list = list_json(&ctx);
    assert_eq!(list[0]["status"], "invalid");
    assert!(
        list[0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("is not valid JSON")),
        "{list:?}"
    );
    let corrupt = ctx.run(&["mcp", "add", "z", "--json", "--", "srv"]);
    corrupt.failure(1);
    assert_eq!(corrupt.json()["error"]["code"], "corrupt_state");
    ctx.run(&["mcp", "remove", "y"])
        .failure(1)
        .stderr_has("is not valid JSON (line 1");
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        "{\"servers\": ["
    );
    std::fs::write(&path, "{\"servers\": {}}").expect("write");
    ctx.run(&["mcp", "add", "z", "--", "srv"])
        .failure(1)
        .stderr_has("\"servers\" must be an array of server objects");

    // Another finch holds the lock: exit 5, naming it.
    std::fs::write(&path, "{\"servers\": []}").expect("write");
    let lock = std::fs::File::create(path.parent().expect("dir").join(".lock")).expect("lock file");
    lock.lock().expect("lock");
    ctx.run(&["mcp", "add", "z", "--", "srv"])
        .failure(5)
        .stderr_has("another finch is changing the MCP server list");
    ctx.run(&["mcp", "remove", "z"]).failure(5);
    drop(lock);
    ctx.run(&["mcp", "add", "z", "--", "srv"]).success();
}

#[test]
fn run_goes_on_when_servers_json_is_corrupt() {
    let ctx = TestContext::new();
    write_servers(&ctx, &json!({}));
    std::fs::write(
        ctx.runtime.join("extension-data/mcp/servers.json"),
        "not json",
    )
    .expect("write");
    let (responses, out) = ctx.jsonl(
        &[],
        &[json!({"id": 1, "tool": "TodoWrite", "arguments": {"todos": []}})],
    );
    out.success();
    out.stderr_has("servers.json is not valid JSON");
    out.stderr_has("its servers are left out until the file is fixed");
    assert_eq!(responses[0]["isError"], false);
}

#[test]
fn no_servers_is_a_plain_message() {
    let ctx = TestContext::new();
    ctx.run(&["mcp", "list"]).success().stdout_has(
        "No MCP servers configured. Add one with `finch mcp add <name> -- <command> [args…]`",
    );
    assert_eq!(list_json(&ctx), Vec::<Value>::new());
}
