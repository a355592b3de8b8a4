//! finch as the MCP server of real coding agents (issue 21): Codex CLI and Claude Code, as
//! scripts/install-test-peers installs them (pinned, into `.test-peers/agents/`), run
//! non-interactively against the scripted model server of `tests/peers/model_server.py` on
//! loopback, each with `finch run --serve mcp` as its MCP server. The model server plays the
//! model: it calls finch's tools in a fixed order and logs every request, so a test reads what
//! each tool call gave the model from the agent's next request.
//!
//! Plus the protocol details no agent shows: the annotations of `tools/list`, the
//! 2025-06-18 form of `elicitation/create`, and `CallTool` refusing what a direct call would.
//!
//! A test whose agent is not installed says so and passes, except under `CI` (scripts/test
//! and .ci/run install the agents first), where it fails.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::TestContext;
use crate::common::fixtures::MiniTool;
use crate::common::model::ScriptedServer;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The agent's executable, or `None` (after saying why) when it is not installed.
fn agent(name: &str) -> Option<PathBuf> {
    let bin = repo()
        .join(".test-peers/agents/node_modules/.bin")
        .join(name);
    if bin.exists() {
        return Some(bin);
    }
    let why = format!(
        "{name} is not installed at {}: run scripts/install-test-peers (scripts/test does)",
        bin.display()
    );
    assert!(std::env::var_os("CI").is_none(), "{why}");
    eprintln!("skipped: {why}");
    None
}

/// The scripted model server, killed when dropped.
struct ModelServer(ScriptedServer);

impl ModelServer {
    pub(crate) fn start(ctx: &TestContext, script: &Value) -> ModelServer {
        ModelServer(ScriptedServer::start(
            ctx,
            "model_server.py",
            script,
            "listening ",
        ))
    }

    fn port(&self) -> u16 {
        self.0.port
    }

    /// Every request the agent made, in order.
    fn requests(&self) -> Vec<Value> {
        self.0.requests()
    }

    /// The requests of the agent's own loop (those that offered finch's tools).
    fn turns(&self) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(|r| r["step"].is_number())
            .collect()
    }

    /// What the model was given back for step `n`'s tool call, as text.
    fn result(&self, n: usize) -> String {
        let id = format!("call_step_{n}");
        for request in self.turns().iter().rev() {
            let body = &request["body"];
            let mut found = None;
            for item in body["input"].as_array().into_iter().flatten() {
                if item["call_id"] == id.as_str() && item["type"] == "function_call_output" {
                    found = Some(text_of(&item["output"]));
                }
            }
            for message in body["messages"].as_array().into_iter().flatten() {
                for block in message["content"].as_array().into_iter().flatten() {
                    if block["type"] == "tool_result" && block["tool_use_id"] == id.as_str() {
                        found = Some(text_of(&block["content"]));
                    }
                }
            }
            if let Some(text) = found {
                return text;
            }
        }
        panic!(
            "no result of step {n} in any request: {:#?}",
            self.turns().iter().map(|t| &t["body"]).collect::<Vec<_>>()
        )
    }

    /// The finch tools the agent offered the model in the request of step `n`.
    fn offered(&self, n: usize) -> Vec<String> {
        let turns = self.turns();
        let Some(request) = turns.iter().find(|r| r["step"] == n) else {
            return Vec::new();
        };
        let mut names = Vec::new();
        for tool in request["body"]["tools"].as_array().into_iter().flatten() {
            if tool["type"] == "namespace" && tool["name"] == "mcp__finch" {
                for inner in tool["tools"].as_array().into_iter().flatten() {
                    names.push(inner["name"].as_str().unwrap_or("").to_string());
                }
            } else if let Some(name) = tool["name"]
                .as_str()
                .and_then(|n| n.strip_prefix("mcp__finch__"))
            {
                names.push(name.to_string());
            }
        }
        names
    }
}

/// The text of a tool result: a string, or the text blocks of a list.
fn text_of(output: &Value) -> String {
    match output {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

/// The environment finch runs with under an agent: the sealed test homes.
fn finch_env(ctx: &TestContext) -> Vec<(&'static str, String)> {
    vec![
        ("HOME", ctx.home.display().to_string()),
        ("PATH", std::env::var("PATH").unwrap_or_default()),
        ("FINCH_RUNTIME_HOME", ctx.runtime.display().to_string()),
        ("FINCH_AGENT_HOME", ctx.agent.display().to_string()),
        ("NO_COLOR", "1".into()),
    ]
}

fn finch_args(extra: &[&str]) -> Vec<String> {
    ["run", "--serve", "mcp"]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
}

/// How Codex's own approvals are set for finch's tools.
#[derive(Clone, Copy)]
enum CodexApprovals {
    /// Codex's default: it asks for every tool not annotated read-only, and with
    /// `approval_policy = "never"` that means it refuses them.
    ByAnnotations,
    /// `default_tools_approval_mode = "approve"`: finch's gateway decides (docs/agents.md).
    FinchDecides,
}

/// Runs `codex exec` once against `server`, finch started with `extra`.
fn codex(
    ctx: &TestContext,
    server: &ModelServer,
    approvals: CodexApprovals,
    extra: &[&str],
) -> Option<Output> {
    let bin = agent("codex")?;
    let home = ctx.base().join("codex-home");
    std::fs::create_dir_all(&home).unwrap();
    let env: Vec<String> = finch_env(ctx)
        .into_iter()
        .map(|(k, v)| format!("{k} = {}", toml_string(&v)))
        .collect();
    let args: Vec<String> = finch_args(extra).iter().map(|a| toml_string(a)).collect();
    let approval = match approvals {
        CodexApprovals::ByAnnotations => "",
        CodexApprovals::FinchDecides => "default_tools_approval_mode = \"approve\"\n",
    };
    let config = format!(
        "model = \"scripted\"\nmodel_provider = \"scripted\"\napproval_policy = \"never\"\n\
         sandbox_mode = \"read-only\"\n\n\
         [model_providers.scripted]\nname = \"scripted\"\nbase_url = \"http://127.0.0.1:{port}/v1\"\n\
         wire_api = \"responses\"\nrequest_max_retries = 0\nstream_max_retries = 0\n\n\
         [mcp_servers.finch]\ncommand = {finch}\nargs = [{args}]\ncwd = {cwd}\n\
         startup_timeout_sec = 60\ntool_timeout_sec = 60\n{approval}env = {{ {env} }}\n",
        port = server.port(),
        finch = toml_string(env!("CARGO_BIN_EXE_finch")),
        args = args.join(", "),
        cwd = toml_string(&ctx.work.display().to_string()),
        env = env.join(", "),
    );
    std::fs::write(home.join("config.toml"), config).unwrap();
    let out = Command::new(bin)
        .args([
            "exec",
            "--skip-git-repo-check",
            "--color",
            "never",
            "do the scripted steps",
        ])
        .env_clear()
        .env("HOME", &ctx.home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("CODEX_HOME", &home)
        .env("OPENAI_API_KEY", "scripted")
        .current_dir(&ctx.work)
        .stdin(Stdio::null())
        .output()
        .expect("codex runs");
    Some(out)
}

/// Runs `claude -p` once against `server`, finch started with `extra`, Claude Code's own
/// permissions leaving every finch tool to finch (`--allowedTools mcp__finch`).
fn claude(ctx: &TestContext, server: &ModelServer, extra: &[&str]) -> Option<Output> {
    let bin = agent("claude")?;
    let env: serde_json::Map<String, Value> = finch_env(ctx)
        .into_iter()
        .map(|(k, v)| (k.to_string(), Value::String(v)))
        .collect();
    let config = json!({"mcpServers": {"finch": {
        "command": env!("CARGO_BIN_EXE_finch"),
        "args": finch_args(extra),
        "env": env,
    }}});
    let config_path = ctx.base().join("claude-mcp.json");
    std::fs::write(&config_path, config.to_string()).unwrap();
    let out = Command::new(bin)
        .arg("-p")
        .arg("do the scripted steps")
        .arg("--mcp-config")
        .arg(&config_path)
        .args([
            "--strict-mcp-config",
            "--allowedTools",
            "mcp__finch",
            "--output-format",
            "json",
        ])
        .env_clear()
        .env("HOME", &ctx.home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env(
            "ANTHROPIC_BASE_URL",
            format!("http://127.0.0.1:{}", server.port()),
        )
        .env("ANTHROPIC_API_KEY", "sk-scripted")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        // Claude Code's own tool search would put finch's tools behind its `ToolSearch`; the
        // scripted model calls them by name, so they are listed up front.
        .env("ENABLE_TOOL_SEARCH", "false")
        .current_dir(&ctx.work)
        .stdin(Stdio::null())
        .output()
        .expect("claude runs");
    Some(out)
}

fn toml_string(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

fn show(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The `decidedBy` of every call finch recorded.
fn decided_by(ctx: &TestContext) -> Vec<(String, String)> {
    ctx.transcripts()
        .iter()
        .flat_map(|t| ctx.tool_calls(t))
        .map(|c| {
            (
                c["tool"].as_str().unwrap_or("").to_string(),
                c["decidedBy"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// A mini tool with one dynamic tool, `echoes_shout`: listed only once ToolSearch finds it.
fn shouting(ctx: &TestContext) -> PathBuf {
    let dir = ctx.base().join("echoes");
    MiniTool::new("echoes", "1.0.0")
        .entry_source(
            "export function activate(ctx) {\n  ctx.tools.register({ name: \"shout\", \
             description: \"Shout the text back in capitals\", exposure: \"dynamic\", \
             inputSchema: {type: \"object\", properties: {text: {type: \"string\"}}}, \
             execute: async (input) => ({ content: [{type: \"text\", text: `SHOUT: ${String(input.text).toUpperCase()}`}] }) });\n}\n",
        )
        .write_to(&dir);
    dir
}

/// Read, Memory and `rm -rf`, then the final answer.
fn everyday_script(ctx: &TestContext) -> Value {
    std::fs::write(ctx.work.join("notes.txt"), "the answer is 42\n").unwrap();
    std::fs::create_dir(ctx.work.join("victim")).unwrap();
    std::fs::write(ctx.work.join("victim/keep.txt"), "keep me").unwrap();
    json!({"steps": [
        {"tool": "Read", "arguments": {"file_path": ctx.work.join("notes.txt").display().to_string()}},
        {"tool": "Memory", "arguments": {"action": "remember", "text": "The answer is 42"}},
        {"tool": "Bash", "arguments": {"command": "rm -rf victim"}},
    ], "final": "finished"})
}

/// Codex with its default approvals acts on finch's annotations: Read and ToolSearch are
/// read-only, so they run under `approval_policy = "never"`; Memory writes, so Codex itself
/// refuses it without asking finch (nothing reaches finch's transcript for it).
#[test]
fn codex_runs_finch_read_only_tools_by_their_annotations() {
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("notes.txt"), "the answer is 42\n").unwrap();
    let script = json!({"steps": [
        {"tool": "Read", "arguments": {"file_path": ctx.work.join("notes.txt").display().to_string()}},
        {"tool": "ToolSearch", "arguments": {"query": "memory"}},
        {"tool": "Memory", "arguments": {"action": "remember", "text": "The answer is 42"}},
    ], "final": "finished"});
    let server = ModelServer::start(&ctx, &script);
    let Some(out) = codex(
        &ctx,
        &server,
        CodexApprovals::ByAnnotations,
        &["--mode", "acceptCalls"],
    ) else {
        return;
    };
    assert!(out.status.success(), "{}", show(&out));
    let offered = server.offered(0);
    for tool in ["Read", "Memory", "ToolSearch", "Bash"] {
        assert!(offered.contains(&tool.to_string()), "{offered:?}");
    }
    assert!(
        server.result(0).contains("the answer is 42"),
        "{}",
        server.result(0)
    );
    assert!(
        !server.result(1).contains("requires approval"),
        "{}",
        server.result(1)
    );
    assert!(
        server.result(2).contains("requires approval"),
        "{}",
        server.result(2)
    );
    let decided = decided_by(&ctx);
    assert_eq!(
        decided,
        [
            ("Read".to_string(), "fastLane".to_string()),
            ("ToolSearch".to_string(), "autoAllow".to_string())
        ]
    );
}

/// The documented Codex setup (finch's gateway decides): Read answers, Memory remembers,
/// `rm -rf` takes a card that `codex exec` declines, and the model is told just that — not
/// that a person refused.
#[test]
fn codex_with_finch_deciding_reads_remembers_and_is_refused_rm_rf() {
    let ctx = TestContext::new();
    let script = everyday_script(&ctx);
    let server = ModelServer::start(&ctx, &script);
    let Some(out) = codex(
        &ctx,
        &server,
        CodexApprovals::FinchDecides,
        &["--mode", "acceptCalls"],
    ) else {
        return;
    };
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        server.result(0).contains("the answer is 42"),
        "{}",
        server.result(0)
    );
    assert!(
        !server.result(1).to_lowercase().contains("error"),
        "{}",
        server.result(1)
    );
    let refusal = server.result(2);
    assert!(
        refusal.contains("declined the permission card"),
        "{refusal}"
    );
    assert!(
        refusal.contains("This is not a person's refusal"),
        "{refusal}"
    );
    assert!(refusal.contains("--approve Bash"), "{refusal}");
    assert!(!refusal.contains("The user denied"), "{refusal}");
    assert!(ctx.work.join("victim/keep.txt").exists());
    let decided = decided_by(&ctx);
    assert_eq!(
        decided,
        [
            ("Read".to_string(), "fastLane".to_string()),
            ("Memory".to_string(), "autoAllow".to_string()),
            ("Bash".to_string(), "card:decline".to_string()),
        ]
    );
    let memories = std::fs::read_dir(&ctx.agent)
        .map(|d| d.count())
        .unwrap_or(0);
    assert!(
        memories > 0,
        "Memory wrote nothing under {}",
        ctx.agent.display()
    );
}

/// Codex never lists tools again, so the tool ToolSearch activates is not among its tools;
/// with `--call-tool` the model reaches it through `CallTool`, its card (answered by
/// `--approve`) and record those of a direct call.
#[test]
fn codex_calls_a_toolsearch_activated_tool_through_call_tool() {
    let ctx = TestContext::new();
    let dir = shouting(&ctx);
    let script = json!({"steps": [
        {"tool": "ToolSearch", "arguments": {"query": "shout text capitals"}},
        {"tool": "CallTool", "arguments": {"name": "echoes_shout", "arguments": {"text": "hello"}}},
    ], "final": "finished"});
    let server = ModelServer::start(&ctx, &script);
    let minitool = dir.display().to_string();
    let Some(out) = codex(
        &ctx,
        &server,
        CodexApprovals::FinchDecides,
        &[
            "--call-tool",
            "--minitool",
            &minitool,
            "--approve",
            "echoes_shout",
        ],
    ) else {
        return;
    };
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        server.result(0).contains("echoes_shout"),
        "{}",
        server.result(0)
    );
    assert!(server.offered(0).contains(&"CallTool".to_string()));
    // What the issue saw: Codex does not list again after tools/list_changed.
    assert!(
        !server.offered(1).contains(&"echoes_shout".to_string()),
        "{:?}",
        server.offered(1)
    );
    assert!(
        server.result(1).ends_with("SHOUT: HELLO"),
        "{}",
        server.result(1)
    );
    assert_eq!(
        decided_by(&ctx),
        [
            ("ToolSearch".to_string(), "autoAllow".to_string()),
            ("echoes_shout".to_string(), "approveFlag".to_string()),
        ]
    );
}

/// Claude Code with `--allowedTools mcp__finch` (finch decides): Read, Memory, `rm -rf`
/// refused after `claude -p` cancelled its card, and the tool ToolSearch activates called
/// through `CallTool`. Claude Code 2.1.332 does list again on `tools/list_changed`, but in the
/// background: the model request right after ToolSearch's result may or may not offer the new
/// tool yet (both seen here), and `CallTool` reaches it either way.
#[test]
fn claude_code_reads_remembers_is_refused_rm_rf_and_calls_an_activated_tool() {
    let ctx = TestContext::new();
    let dir = shouting(&ctx);
    let mut script = everyday_script(&ctx);
    let steps = script["steps"].as_array_mut().unwrap();
    steps.push(json!({"tool": "ToolSearch", "arguments": {"query": "shout text capitals"}}));
    steps.push(json!({"tool": "CallTool", "arguments": {"name": "echoes_shout", "arguments": {"text": "hello"}}}));
    let server = ModelServer::start(&ctx, &script);
    let minitool = dir.display().to_string();
    let Some(out) = claude(
        &ctx,
        &server,
        &[
            "--mode",
            "acceptCalls",
            "--call-tool",
            "--minitool",
            &minitool,
            "--approve",
            "echoes_shout",
        ],
    ) else {
        return;
    };
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        server.result(0).contains("the answer is 42"),
        "{}",
        server.result(0)
    );
    let refusal = server.result(2);
    assert!(
        refusal.contains("cancelled the permission card"),
        "{refusal}"
    );
    assert!(
        refusal.contains("This is not a person's refusal"),
        "{refusal}"
    );
    assert!(ctx.work.join("victim/keep.txt").exists());
    assert!(
        server.result(3).contains("echoes_shout"),
        "{}",
        server.result(3)
    );
    assert_eq!(server.result(4), "SHOUT: HELLO");
    assert_eq!(
        decided_by(&ctx),
        [
            ("Read".to_string(), "fastLane".to_string()),
            ("Memory".to_string(), "autoAllow".to_string()),
            ("Bash".to_string(), "card:cancel".to_string()),
            ("ToolSearch".to_string(), "autoAllow".to_string()),
            ("echoes_shout".to_string(), "approveFlag".to_string()),
        ]
    );
}

/// `finch run --serve mcp` driven line by line over its stdio.
pub(crate) struct Raw {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<Value>,
    next_id: u64,
}

impl Raw {
    pub(crate) fn start(ctx: &TestContext, extra: &[&str]) -> Raw {
        let mut cmd = ctx.std_cmd();
        cmd.args(finch_args(extra))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().expect("finch starts");
        let stdin = child.stdin.take().unwrap();
        let stdout: ChildStdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str::<Value>(&line)
                    && tx.send(v).is_err()
                {
                    break;
                }
            }
        });
        Raw {
            child,
            stdin,
            lines,
            next_id: 1,
        }
    }

    pub(crate) fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request; returns its id.
    pub(crate) fn request(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The next message that is not a notification.
    pub(crate) fn next(&mut self) -> Value {
        loop {
            let message = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .expect("finch answered within 60 s");
            if message.get("id").is_some() {
                return message;
            }
        }
    }

    pub(crate) fn initialize(&mut self, version: &str, elicitation: bool) -> Value {
        let capabilities = if elicitation {
            json!({"elicitation": {}})
        } else {
            json!({})
        };
        self.request(
            "initialize",
            json!({"protocolVersion": version, "capabilities": capabilities,
                   "clientInfo": {"name": "raw", "version": "1"}}),
        );
        let answer = self.next();
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        answer
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `tools/list` annotates every tool from what finch knows; under a negotiated 2025-06-18 a
/// card is asked as that revision shapes `elicitation/create` (no `mode`, no `_meta` or
/// `progressToken`, `enum` + `enumNames`), and its `decline` is kept apart from a deny.
#[test]
fn tools_list_annotations_and_a_2025_06_18_elicitation() {
    let ctx = TestContext::new();
    let mut raw = Raw::start(&ctx, &["--call-tool"]);
    let init = raw.initialize("2025-06-18", true);
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
    raw.request("tools/list", json!({}));
    let list = raw.next();
    let tools = list["result"]["tools"].as_array().expect("tools");
    let hints = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["annotations"].clone())
            .unwrap_or_else(|| panic!("{name} not listed: {list}"))
    };
    for tool in tools {
        assert!(tool["annotations"].is_object(), "{tool}");
        assert!(tool["annotations"]["readOnlyHint"].is_boolean(), "{tool}");
    }
    assert_eq!(
        hints("Read"),
        json!({"title": "Read a file", "readOnlyHint": true, "destructiveHint": false,
               "idempotentHint": true, "openWorldHint": false})
    );
    assert_eq!(hints("Bash")["readOnlyHint"], false);
    assert_eq!(hints("Bash")["destructiveHint"], true);
    assert_eq!(hints("Memory")["readOnlyHint"], false);
    assert_eq!(hints("ToolSearch")["readOnlyHint"], true);
    assert_eq!(hints("WebFetch")["openWorldHint"], true);
    assert_eq!(hints("MiniTool")["readOnlyHint"], false);
    assert_eq!(hints("CallTool")["readOnlyHint"], false);

    let id = raw.request(
        "tools/call",
        json!({"name": "Bash", "arguments": {"command": "touch made-here"}}),
    );
    let elicit = raw.next();
    assert_eq!(elicit["method"], "elicitation/create", "{elicit}");
    let params = elicit["params"].as_object().unwrap();
    let mut keys: Vec<&str> = params.keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(keys, ["message", "requestedSchema"], "{elicit}");
    let decision = &elicit["params"]["requestedSchema"]["properties"]["decision"];
    assert!(decision.get("oneOf").is_none(), "{decision}");
    assert_eq!(decision["type"], "string");
    assert_eq!(
        decision["enum"],
        json!([
            "allowOnce",
            "allowForSession",
            "deny",
            "denyWithReason",
            "allowUnsandboxed"
        ])
    );
    assert_eq!(decision["enumNames"][0], "Allow once");
    raw.send(&json!({"jsonrpc": "2.0", "id": elicit["id"], "result": {"action": "decline"}}));
    let result = raw.next();
    assert_eq!(result["id"], id, "{result}");
    assert_eq!(result["result"]["isError"], true);
    assert_eq!(result["result"]["_meta"]["finch/decidedBy"], "card:decline");
    assert!(!ctx.work.join("made-here").exists());

    // An accepted 2025-06-18 answer allows as a 2025-11-25 one does.
    raw.request(
        "tools/call",
        json!({"name": "Bash", "arguments": {"command": "touch made-here"}}),
    );
    let elicit = raw.next();
    raw.send(&json!({"jsonrpc": "2.0", "id": elicit["id"],
                     "result": {"action": "accept", "content": {"decision": "allowOnce"}}}));
    let result = raw.next();
    assert_eq!(
        result["result"]["_meta"]["finch/decidedBy"], "card:allowOnce",
        "{result}"
    );
    assert!(ctx.work.join("made-here").exists());

    // A multi-select question: 2025-06-18 has no arrays, so one boolean per option, and the
    // ticked ones come back as the choice.
    raw.request(
        "tools/call",
        json!({"name": "AskUserQuestion", "arguments": {"question": "Which databases?",
               "multiSelect": true, "options": [{"label": "SQLite"}, {"label": "Postgres"}]}}),
    );
    let elicit = raw.next();
    let properties = &elicit["params"]["requestedSchema"]["properties"];
    assert_eq!(properties["answer__option1"]["type"], "boolean", "{elicit}");
    assert_eq!(
        properties["answer__option1"]["title"], "Postgres",
        "{elicit}"
    );
    assert!(properties.get("answer").is_none(), "{elicit}");
    raw.send(
        &json!({"jsonrpc": "2.0", "id": elicit["id"], "result": {"action": "accept",
                     "content": {"answer__option0": false, "answer__option1": true}}}),
    );
    let result = raw.next();
    assert_eq!(
        result["result"]["content"][0]["text"], "The user chose: Postgres",
        "{result}"
    );
}

/// Under 2025-11-25 the form keeps that revision's shape; under 2025-03-26, which has no
/// elicitation, nobody is asked even though the client claims the capability.
#[test]
fn elicitation_follows_the_negotiated_revision() {
    let ctx = TestContext::new();
    let mut raw = Raw::start(&ctx, &[]);
    raw.initialize("2025-11-25", true);
    raw.request(
        "tools/call",
        json!({"name": "Bash", "arguments": {"command": "touch x"}}),
    );
    let elicit = raw.next();
    assert_eq!(elicit["params"]["mode"], "form", "{elicit}");
    assert!(elicit["params"]["requestedSchema"]["properties"]["decision"]["oneOf"].is_array());
    raw.send(&json!({"jsonrpc": "2.0", "id": elicit["id"], "result": {"action": "cancel"}}));
    let result = raw.next();
    assert_eq!(
        result["result"]["_meta"]["finch/decidedBy"], "card:cancel",
        "{result}"
    );
    drop(raw);

    let ctx = TestContext::new();
    let mut raw = Raw::start(&ctx, &[]);
    raw.initialize("2025-03-26", true);
    raw.request(
        "tools/call",
        json!({"name": "Bash", "arguments": {"command": "touch x"}}),
    );
    let result = raw.next();
    assert!(
        result.get("result").is_some(),
        "no elicitation expected: {result}"
    );
    assert_eq!(
        result["result"]["_meta"]["finch/decidedBy"], "noElicitation",
        "{result}"
    );
    assert!(!ctx.work.join("x").exists());
}

/// `CallTool` adds no way around the catalog or the gateway: a tool ToolSearch has not
/// activated is refused as its direct call is, a destructive command still takes a card, and
/// without `--call-tool` there is no `CallTool`.
#[test]
fn call_tool_runs_only_what_a_direct_call_would() {
    let ctx = TestContext::new();
    let dir = shouting(&ctx);
    let minitool = dir.display().to_string();
    let mut raw = Raw::start(
        &ctx,
        &[
            "--call-tool",
            "--minitool",
            &minitool,
            "--approve",
            "echoes_shout",
        ],
    );
    raw.initialize("2025-11-25", false);
    let call = |raw: &mut Raw, name: &str, arguments: Value| {
        raw.request(
            "tools/call",
            json!({"name": "CallTool", "arguments": {"name": name, "arguments": arguments}}),
        );
        raw.next()
    };
    let inactive = call(&mut raw, "echoes_shout", json!({"text": "x"}));
    assert_eq!(inactive["result"]["isError"], true, "{inactive}");
    let direct_id = raw.request(
        "tools/call",
        json!({"name": "echoes_shout", "arguments": {"text": "x"}}),
    );
    let direct = raw.next();
    assert_eq!(direct["id"], direct_id);
    assert_eq!(inactive["result"]["content"], direct["result"]["content"]);
    std::fs::create_dir(ctx.work.join("victim")).unwrap();
    let rm = call(&mut raw, "Bash", json!({"command": "rm -rf victim"}));
    assert_eq!(
        rm["result"]["_meta"]["finch/decidedBy"], "noElicitation",
        "{rm}"
    );
    assert!(ctx.work.join("victim").exists());
    let bad = call(&mut raw, "CallTool", json!({}));
    assert_eq!(bad["result"]["isError"], true, "{bad}");
    raw.request(
        "tools/call",
        json!({"name": "ToolSearch", "arguments": {"query": "shout"}}),
    );
    raw.next();
    let shout = call(&mut raw, "echoes_shout", json!({"text": "hi"}));
    assert_eq!(
        shout["result"]["content"][0]["text"], "SHOUT: HI",
        "{shout}"
    );
    assert_eq!(shout["result"]["_meta"]["finch/decidedBy"], "approveFlag");
    drop(raw);

    let ctx = TestContext::new();
    let mut raw = Raw::start(&ctx, &[]);
    raw.initialize("2025-11-25", false);
    raw.request("tools/list", json!({}));
    let list = raw.next();
    assert!(
        !list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "CallTool"),
        "{list}"
    );
}

/// `finch tool info --json` shows the annotations `--serve mcp` lists.
#[test]
fn tool_info_shows_the_annotations() {
    let ctx = TestContext::new();
    let read = ctx.run(&["tool", "info", "Read", "--json"]);
    read.success();
    assert_eq!(
        read.json()["annotations"],
        json!({"title": "Read a file", "readOnlyHint": true, "destructiveHint": false,
               "idempotentHint": true, "openWorldHint": false})
    );
    let minitool = ctx.run(&["tool", "info", "MiniTool", "--json"]);
    assert_eq!(minitool.json()["annotations"]["readOnlyHint"], false);
}

/// A bridged server's own annotations reach the agent: the Python test server's `wipe` says
/// `destructiveHint`, and finch lists it so once ToolSearch activated it, never read-only.
#[test]
fn a_bridged_tool_keeps_its_server_s_annotations() {
    let ctx = TestContext::new();
    crate::mcp_bridge::write_servers(
        &ctx,
        &json!({"servers": [crate::mcp_bridge::python_entry("py", &[])]}),
    );
    // The server connects in the background: the catalog cache lists its tools meanwhile.
    ctx.run(&["reload"]).success();
    let mut raw = Raw::start(&ctx, &[]);
    raw.initialize("2025-11-25", false);
    raw.request(
        "tools/call",
        json!({"name": "ToolSearch", "arguments": {"query": "deletes everything"}}),
    );
    let found = raw.next();
    assert_eq!(found["result"]["isError"], false, "{found}");
    raw.request("tools/list", json!({}));
    let list = raw.next();
    let wipe = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "mcp__py__wipe")
        .unwrap_or_else(|| panic!("wipe not listed: {list}"))
        .clone();
    assert_eq!(wipe["annotations"]["destructiveHint"], true, "{wipe}");
    assert_eq!(wipe["annotations"]["readOnlyHint"], false, "{wipe}");
}

/// Issue 21: Codex does not wait for MCP start-up, so finch must list its own tools at once:
/// with a bridged server that never answers, Codex's first model request already offers
/// finch's Read, and the Read it makes is answered.
#[test]
fn codex_first_request_sees_finch_tools_while_a_bridged_server_starts() {
    let ctx = TestContext::new();
    crate::mcp_bridge::write_servers(
        &ctx,
        &json!({"servers": [crate::mcp_bridge::python_entry("slow", &["--hang"])]}),
    );
    ctx.write_config("[mcp]\ntimeout = \"20s\"\n");
    std::fs::write(ctx.work.join("notes.txt"), "the answer is 42\n").unwrap();
    let script = json!({"steps": [{"tool": "Read", "arguments":
        {"file_path": ctx.work.join("notes.txt").display().to_string()}}], "final": "finished"});
    let server = ModelServer::start(&ctx, &script);
    let Some(out) = codex(
        &ctx,
        &server,
        CodexApprovals::FinchDecides,
        &["--mode", "acceptCalls"],
    ) else {
        return;
    };
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        server.offered(0).contains(&"Read".to_string()),
        "{:?}",
        server.offered(0)
    );
    assert!(
        server.result(0).contains("the answer is 42"),
        "{}",
        server.result(0)
    );
}

/// `--call-tool` belongs to `--serve mcp`: alone it is a usage error, and nothing starts.
#[test]
fn call_tool_without_serve_is_a_usage_error() {
    let ctx = TestContext::new();
    ctx.run(&["run", "--call-tool"])
        .failure(2)
        .stderr_has("--serve");
    assert!(ctx.transcripts().is_empty());
}
