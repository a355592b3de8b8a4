//! The client side of finch's MCP bridge as a well-behaved peer of real servers (the Python
//! `mcp` 2.3 test server, `tests/peers/test_server.py`): servers connect in the background so
//! that one that hangs delays nothing; a one-shot `tool call` starts only the server it needs;
//! `tool list`/`tool search` say when the catalog cache lacks a server; a tool a server adds at
//! run time (`notifications/tools/list_changed`) becomes callable; the protocol version finch
//! offers and falls back to; content annotations and resource URIs kept; server progress shown.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::TestContext;
use crate::mcp_bridge::{approved_call, is_running, python_entry, text_of, write_servers};

/// Generous: a bound on waiting for something that comes at once, far below the timeout of the
/// hanging server (10 minutes), which is how long today's finch made everything wait.
const PATIENCE: Duration = Duration::from_secs(60);

/// A server that never answers: `sh` writes its pid (which `exec` hands to `sleep`) to
/// `marker` when it starts, then sleeps.
fn hanging(marker: &Path) -> Value {
    json!({"name": "hang", "command": "sh", "args": ["-c", format!("echo $$ > {}; exec sleep 1000", marker.display())]})
}

/// `[mcp] timeout`: long, so that waiting for the hanging server could not go unnoticed.
fn patient(ctx: &TestContext) {
    ctx.write_config("[mcp]\ntimeout = \"10m\"\n");
}

/// `finch <args>` speaking line-delimited JSON on stdin/stdout (`run --jsonl`, `run --serve
/// mcp`), its lines read on a thread so that a test can wait for one with a deadline.
struct Driver {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
}

impl Driver {
    fn start(ctx: &TestContext, args: &[&str]) -> Driver {
        let mut child = ctx
            .std_cmd()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("finch starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                let value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not JSON: {line:?}: {e}"));
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        Driver {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write");
        stdin.flush().expect("flush");
    }

    /// The next line that `wanted` accepts, within `PATIENCE`.
    fn wait_for(&self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if wanted(&line) => return line,
                Ok(_) => {}
                Err(_) => panic!("no {what} within {PATIENCE:?}"),
            }
        }
    }

    /// Sends a JSON-RPC request and waits for its answer.
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait_for(&format!("answer to {method}"), |l| l["id"] == id)
    }

    /// A `run --jsonl` call and its response.
    fn call(&mut self, id: u64, tool: &str, arguments: Value) -> Value {
        self.send(&json!({"id": id, "tool": tool, "arguments": arguments}));
        self.wait_for(&format!("response to {tool}"), |l| l["id"] == id)
    }

    fn finish(mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + PATIENCE;
        while self.child.try_wait().expect("poll finch").is_none() {
            assert!(Instant::now() < deadline, "finch did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn pid_in(marker: &Path) -> Option<i32> {
    std::fs::read_to_string(marker).ok()?.trim().parse().ok()
}

fn wait_gone(pid: i32) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while is_running(pid) {
        assert!(Instant::now() < deadline, "process {pid} outlived finch");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_tool_call_starts_only_the_server_of_its_tool() {
    let ctx = TestContext::new();
    patient(&ctx);
    let marker = ctx.base().join("hang.pid");
    write_servers(
        &ctx,
        &json!({"servers": [hanging(&marker), python_entry("fine", &[])]}),
    );
    let echo = approved_call(&ctx, "mcp__fine__echo", json!({"message": "alone"}));
    echo.success();
    assert_eq!(text_of(&echo.json()), "Echo: alone");
    assert!(
        !marker.exists(),
        "`tool call mcp__fine__echo` started the other server too"
    );
}

#[test]
fn a_hanging_server_delays_neither_initialize_nor_the_other_servers_tools() {
    let ctx = TestContext::new();
    patient(&ctx);
    let marker = ctx.base().join("hang.pid");
    write_servers(
        &ctx,
        &json!({"servers": [hanging(&marker), python_entry("fine", &[])]}),
    );
    let mut mcp = Driver::start(
        &ctx,
        &["run", "--serve", "mcp", "--approve", "mcp__fine__echo"],
    );
    let init = mcp.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "finch", "{init}");
    mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let listed = mcp.request(2, "tools/list", json!({}));
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"Read"), "{names:?}");
    // No catalog cache: `fine`'s tools arrive when it has connected, and the client is told.
    mcp.wait_for("tools/list_changed", |l| {
        l["method"] == "notifications/tools/list_changed"
    });
    let found = mcp.request(
        3,
        "tools/call",
        json!({"name": "ToolSearch", "arguments": {"query": "echo", "source": "mcp:fine"}}),
    );
    assert!(
        found["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("\"name\": \"mcp__fine__echo\"")),
        "{found}"
    );
    let echo = mcp.request(
        4,
        "tools/call",
        json!({"name": "mcp__fine__echo", "arguments": {"message": "meanwhile"}}),
    );
    assert_eq!(
        echo["result"]["content"][0]["text"], "Echo: meanwhile",
        "{echo}"
    );
    // The hanging server was started (it is still connecting), and goes with finch.
    let pid = pid_in(&marker).expect("the hanging server started");
    assert!(is_running(pid));
    mcp.finish();
    wait_gone(pid);
}

#[test]
fn jsonl_calls_do_not_wait_and_a_cached_tool_waits_for_its_own_server() {
    let ctx = TestContext::new();
    let marker = ctx.base().join("hang.pid");
    // The catalog cache has `fine`'s tools; the hanging server is added after.
    write_servers(&ctx, &json!({"servers": [python_entry("fine", &[])]}));
    ctx.run(&["reload"]).success();
    write_servers(
        &ctx,
        &json!({"servers": [hanging(&marker), python_entry("fine", &[])]}),
    );
    patient(&ctx);
    std::fs::write(ctx.work.join("notes.txt"), "read me\n").expect("write");
    let mut run = Driver::start(
        &ctx,
        &[
            "run",
            "--jsonl",
            "--approve",
            "Read",
            "--approve",
            "mcp__fine__echo",
        ],
    );
    let read = run.call(1, "Read", json!({"file_path": ctx.work.join("notes.txt")}));
    assert!(text_of(&read).contains("read me"), "{read}");
    let found = run.call(
        2,
        "ToolSearch",
        json!({"query": "echo", "source": "mcp:fine"}),
    );
    assert_eq!(
        found["structuredContent"][0]["name"], "mcp__fine__echo",
        "{found}"
    );
    // Called at once: the call waits for `fine` (still starting), not for `hang`.
    let echo = run.call(3, "mcp__fine__echo", json!({"message": "cached"}));
    assert_eq!(text_of(&echo), "Echo: cached", "{echo}");
    run.finish();
}

fn names_in(found: &Value) -> Vec<String> {
    found["structuredContent"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect()
}

/// No catalog cache, and a server that takes a second to connect: a ToolSearch waits for it,
/// in `--jsonl` and under `--serve mcp` (`source: "mcp"`, the documented way to MCP tools).
#[test]
fn tool_search_waits_for_a_server_still_connecting_that_no_cache_stands_in_for() {
    let ctx = TestContext::new();
    write_servers(
        &ctx,
        &json!({"servers": [python_entry("slow", &["--start-delay", "1"])]}),
    );
    let mut run = Driver::start(&ctx, &["run", "--jsonl"]);
    let found = run.call(
        1,
        "ToolSearch",
        json!({"query": "echo back", "source": "mcp"}),
    );
    assert!(
        names_in(&found).contains(&"mcp__slow__echo".to_string()),
        "{found}"
    );
    run.finish();

    let mut mcp = Driver::start(&ctx, &["run", "--serve", "mcp"]);
    mcp.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}),
    );
    mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let found = mcp.request(
        2,
        "tools/call",
        json!({"name": "ToolSearch", "arguments": {"query": "echo back", "source": "mcp"}}),
    );
    assert!(
        // `structuredContent` is an object over MCP: the list comes as its `result`.
        names_in(&json!({"structuredContent": found["result"]["structuredContent"]["result"]}))
            .contains(&"mcp__slow__echo".to_string()),
        "{found}"
    );
    mcp.finish();
}

/// A server that never connects within `[mcp] timeout`: the search says it could not search it.
#[test]
fn tool_search_names_the_sources_it_could_not_search() {
    let ctx = TestContext::new();
    ctx.write_config("[mcp]\ntimeout = \"4s\"\n");
    let marker = ctx.base().join("hang.pid");
    write_servers(&ctx, &json!({"servers": [hanging(&marker)]}));
    let mut run = Driver::start(&ctx, &["run", "--jsonl"]);
    let found = run.call(1, "ToolSearch", json!({"query": "zebracorn"}));
    let text = found.to_string();
    assert!(text.contains("No tools match"), "{found}");
    assert!(
        text.contains("Not searched: mcp:hang (no tools known after 4 s"),
        "{found}"
    );
    run.finish();
}

#[test]
fn tool_list_and_search_follow_a_changed_servers_json_without_a_reload() {
    let ctx = TestContext::new();
    write_servers(&ctx, &json!({"servers": [python_entry("fine", &[])]}));
    // No cache yet: the first read builds it, connecting the server, and says so.
    let list = ctx.run(&["tool", "list", "--source", "mcp"]);
    list.success()
        .stdout_has("mcp__fine__echo\t")
        .stderr_has("changed since the tool catalog was built: refreshing it");
    assert!(!list.stderr().contains("hint:"), "{list}");
    // Nothing changed since: no refresh.
    let search = ctx.run(&["tool", "search", "echo back"]);
    search.success().stdout_has("mcp__fine__echo");
    assert!(!search.stderr().contains("refreshing"), "{search}");
    // The server goes from servers.json: the catalog follows at the next read.
    write_servers(&ctx, &json!({"servers": []}));
    let list = ctx.run(&["tool", "list", "--source", "mcp"]);
    list.success().stderr_has("refreshing it");
    assert!(!list.stdout().contains("mcp__fine__echo"), "{list}");
    ctx.run(&["tool", "info", "mcp__fine__echo"])
        .failure(3)
        .stderr_has("no tool named");
}

#[test]
fn a_tool_the_server_adds_at_run_time_becomes_callable() {
    let ctx = TestContext::new();
    write_servers(&ctx, &json!({"servers": [python_entry("py", &[])]}));
    ctx.run(&["reload"]).success();
    let mut run = Driver::start(
        &ctx,
        &[
            "run",
            "--jsonl",
            "--approve",
            "mcp__py__grow",
            "--approve",
            "mcp__py__sprouted",
        ],
    );
    let found = run.call(
        1,
        "ToolSearch",
        json!({"query": "grow", "source": "mcp:py"}),
    );
    assert_eq!(
        found["structuredContent"][0]["name"], "mcp__py__grow",
        "{found}"
    );
    let grew = run.call(2, "mcp__py__grow", json!({}));
    assert_eq!(text_of(&grew), "grew", "{grew}");
    // The server said its tool list changed; finch lists it again in the background.
    let deadline = Instant::now() + PATIENCE;
    let mut id = 2;
    loop {
        id += 1;
        let found = run.call(
            id,
            "ToolSearch",
            json!({"query": "sprouted", "source": "mcp:py"}),
        );
        if found["structuredContent"][0]["name"] == "mcp__py__sprouted" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the new tool never appeared: {found}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let sprouted = run.call(id + 1, "mcp__py__sprouted", json!({"word": "up"}));
    assert_eq!(text_of(&sprouted), "sprouted up", "{sprouted}");
    run.finish();
}

#[test]
fn the_newest_handshake_version_is_offered_and_an_older_answer_accepted() {
    let ctx = TestContext::new();
    write_servers(
        &ctx,
        &json!({"servers": [
            python_entry("now", &[]),
            python_entry("older", &["--speak", "2025-06-18"]),
            python_entry("odd", &["--speak", "1999-01-01"]),
        ]}),
    );
    let now = approved_call(&ctx, "mcp__now__protocol", json!({}));
    assert_eq!(
        text_of(&now.json()),
        "offered 2025-11-25, negotiated 2025-11-25"
    );
    let older = approved_call(&ctx, "mcp__older__protocol", json!({}));
    assert_eq!(
        text_of(&older.json()),
        "offered 2025-11-25, negotiated 2025-06-18"
    );
    // A version finch does not speak: it disconnects and says why.
    let list = ctx.run(&["mcp", "list", "--json"]);
    list.success();
    let odd = list
        .json()
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .find(|s| s["name"] == "odd")
        .expect("odd listed");
    assert_eq!(odd["status"], "failed");
    assert!(
        odd["error"].as_str().is_some_and(|e| e.contains(
            "the server answered protocol version 1999-01-01, which finch does not speak (it speaks 2024-11-05 to 2025-11-25)"
        )),
        "{odd}"
    );
}

#[test]
fn content_annotations_and_resource_uris_are_kept() {
    let ctx = TestContext::new();
    write_servers(&ctx, &json!({"servers": [python_entry("py", &[])]}));
    let expected = json!([
        {"type": "text", "text": "for the user", "annotations": {"audience": ["user"], "priority": 0.9}},
        {"type": "resource",
         "resource": {"uri": "file:///notes/todo.md", "mimeType": "text/markdown", "text": "- ship it"},
         "annotations": {"audience": ["assistant"], "priority": 0.2}},
    ]);
    let call = approved_call(&ctx, "mcp__py__annotated", json!({}));
    call.success();
    assert_eq!(call.json()["content"], expected);
    let plain = ctx.run(&[
        "tool",
        "call",
        "mcp__py__annotated",
        "--approve",
        "mcp__py__annotated",
    ]);
    plain.success();
    assert_eq!(plain.stdout(), "for the user\n- ship it\n");

    ctx.run(&["reload"]).success();
    let (responses, out) = ctx.jsonl(
        &["--approve", "mcp__py__annotated"],
        &[
            json!({"id": 1, "tool": "ToolSearch", "arguments": {"query": "annotated", "source": "mcp:py"}}),
            json!({"id": 2, "tool": "mcp__py__annotated", "arguments": {}}),
        ],
    );
    out.success();
    assert_eq!(responses[1]["content"], expected, "{}", responses[1]);
}

#[test]
fn server_progress_is_shown_by_tool_call() {
    let ctx = TestContext::new();
    write_servers(&ctx, &json!({"servers": [python_entry("py", &[])]}));
    let out = ctx.run(&[
        "tool",
        "call",
        "mcp__py__count",
        "steps=3",
        "--approve",
        "mcp__py__count",
        "--verbose",
    ]);
    out.success().stdout_has("counted to 3");
    for step in 1..=3 {
        let share = [33, 67, 100][step - 1];
        out.stderr_has(&format!(
            "  … mcp__py__count: {step}/3 ({share}%) step {step}\n"
        ));
    }
}

#[test]
fn a_tool_call_of_a_server_a_mini_tool_registers_starts_that_mini_tool_and_server_only() {
    use crate::common::fixtures::MiniTool;
    let ctx = TestContext::new();
    patient(&ctx);
    let marker = ctx.base().join("hang.pid");
    // The server ships in the package and is registered from where the package is
    // installed, as a real one does: a server a mini tool registers runs confined as the mini
    // tool, which reads its own package (issue 39).
    let dir = ctx.base().join("src/registrar");
    let python = json!(crate::mcp_bridge::python());
    let registrar = MiniTool::new("registrar", "1.0.0")
        .finch_field("requires", json!({"capabilities": ["mcp.client"]}))
        .entry_source(&format!(
            "import path from \"node:path\";\nexport async function activate(ctx) {{\n  const mcp = ctx.capabilities.get(\"mcp.client\");\n  const script = path.join(ctx.minitool.extensionPath, \"test_server.py\");\n  const r = await mcp.registerServer({{name: \"reg\", command: {python}, args: [script]}});\n  if (!r.ok) throw new Error(r.error);\n}}\n"
        ))
        .file(
            "test_server.py",
            &std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/test_server.py"),
            )
            .unwrap(),
        );
    registrar.write_to(&dir);
    ctx.run(&["add", &dir.display().to_string()]).success();
    ctx.run(&["enable", "registrar"]).success();
    // `reload` learns (and caches) that `reg` is the registrar's; the hanging server comes
    // after. (Were `reg` not connected here, the call below would wait for the hanging one.)
    let reload = ctx.run(&["reload", "--json"]);
    reload.success();
    let servers = reload.json()["mcpServers"].clone();
    assert_eq!(servers[0]["name"], "reg", "{servers}");
    assert_eq!(servers[0]["connected"], true, "{servers}");
    write_servers(&ctx, &json!({"servers": [hanging(&marker)]}));
    let echo = approved_call(&ctx, "mcp__reg__echo", json!({"message": "registered"}));
    echo.success();
    assert_eq!(text_of(&echo.json()), "Echo: registered");
    assert!(!marker.exists(), "the call started the other server too");
}

/// `finch tool call` of a mini tool's tool that asks `mcp.client` about its server during the
/// call (as the public agently-mail package does): the bridge runs for that call.
#[test]
fn a_tool_call_of_a_mini_tool_that_requires_mcp_client_gets_it() {
    use crate::common::fixtures::MiniTool;
    let ctx = TestContext::new();
    write_servers(&ctx, &json!({"servers": [python_entry("mail", &[])]}));
    let mailer = MiniTool::new("mailer", "1.0.0")
        .finch_field("requires", json!({"capabilities": ["mcp.client"]}))
        .entry_source(
            r#"export function activate(ctx) {
  ctx.tools.register({
    name: "status",
    description: "Says whether its MCP server is up and what it offers",
    async execute() {
      const mcp = ctx.capabilities.get("mcp.client");
      const statuses = await mcp.getServerStatuses();
      const mail = statuses.find((s) => s.qualifiedName === "mail" || s.name === "mail");
      const tools = await mcp.listTools("mail");
      const echoed = await mcp.callTool("mail", "echo", { message: "via mcp.client" });
      return { status: mail && mail.status, tools: tools.map((t) => t.name).includes("echo"), echoed };
    },
  });
}
"#,
        );
    let dir = ctx.base().join("src/mailer");
    mailer.write_to(&dir);
    ctx.run(&["add", &dir.display().to_string()]).success();
    ctx.run(&["enable", "mailer"]).success();
    // Its callTool is the MCP tool call it is: approved as the model's own would be.
    let out = ctx.run(&[
        "tool",
        "call",
        "mailer_status",
        "{}",
        "--approve",
        "mailer_status",
        "--approve",
        "mcp__mail__echo",
        "--json",
    ]);
    out.success();
    let result = out.json();
    let value = &result["structuredContent"];
    assert_eq!(value["status"], "connected", "{result}");
    assert_eq!(value["tools"], true, "{result}");
    assert!(
        value["echoed"].to_string().contains("Echo: via mcp.client"),
        "{result}"
    );
}
