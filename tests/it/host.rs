//! The host's front ends end to end: `finch tool call` exit codes, `finch run --jsonl` framing,
//! the console read from a pipe, transcripts of every run, rules files, `--approve`,
//! `--session`, and `finch tool list|search|info` over the catalog cache.

use serde_json::{Value, json};

use crate::common::{Run, TestContext};

fn write_rules(ctx: &TestContext, rules: Value) {
    let dir = ctx.work.join(".finch");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("permissions.json"), rules.to_string()).unwrap();
}

/// A catalog cache as `reload` writes it: one mini tool tool and one MCP tool.
fn write_cache(ctx: &TestContext) {
    let dir = ctx.runtime.join("cache");
    std::fs::create_dir_all(&dir).unwrap();
    let tool = |raw: &str, wanted: &str, layer: &str, source: &str, exposure: &str, desc: &str| {
        json!({
            "rawName": raw, "wantedName": wanted, "title": raw, "description": desc,
            "layer": layer, "source": source, "owner": source.split(':').nth(1),
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
            "exposure": exposure,
        })
    };
    let cache = json!({"version": 1, "generatedAt": "2026-11-30T00:00:00Z", "tools": [
        tool("getForecast", "weather_getForecast", "minitool", "minitool:weather", "startup",
             "Weather forecast for a city"),
        tool("create_issue", "mcp__github__create_issue", "mcp", "mcp:github", "dynamic",
             "Create an issue in a GitHub repository"),
    ]});
    std::fs::write(dir.join("catalog.json"), cache.to_string()).unwrap();
}

#[test]
fn tool_call_maps_outcomes_to_exit_codes() {
    let ctx = TestContext::new();
    let unknown = ctx.call("NoSuchTool", json!({}));
    unknown.failure(3);
    let record = unknown.json();
    assert_eq!(record["failure"], "unknownTool");
    assert_eq!(record["decision"], "none");
    assert!(
        record["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("ToolSearch")
    );

    let refused = ctx.call("Bash", json!({"command": "rm -rf build"}));
    refused.failure(4);
    let record = refused.json();
    assert_eq!(record["decision"], "deny");
    assert_eq!(record["decidedBy"], "noPerson");
    assert!(
        record["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("nobody to ask")
    );

    // Without --json the refusal is the error message.
    let plain = ctx.run(&["tool", "call", "Bash", r#"{"command":"rm -rf build"}"#]);
    plain
        .failure(4)
        .stderr_has("Error: Not run: `Bash` needs a person's approval")
        .stderr_has("--approve Bash");
    assert_eq!(plain.stdout(), "");
}

#[test]
fn tool_call_rejects_bad_arguments_before_anything_runs() {
    let ctx = TestContext::new();
    ctx.run(&["tool", "call", "Bash", "{not json"])
        .failure(2)
        .stderr_has("not valid JSON");
    ctx.run(&["tool", "call", "Bash", "[1,2]"])
        .failure(2)
        .stderr_has("must be a JSON object");
    ctx.run(&["tool", "call", "Bash", "command"])
        .failure(2)
        .stderr_has("is not key=value");
    let invalid = ctx.call("Bash", json!({"command": 12}));
    invalid.failure(1);
    assert_eq!(invalid.json()["failure"], "invalidArguments");
    assert!(
        ctx.transcripts().len() == 1,
        "only the schema-checked call ran a session"
    );
    let calls = ctx.tool_calls(&ctx.transcripts()[0]);
    assert_eq!(calls[0]["decidedBy"], "invalidArguments");
}

#[test]
fn deny_rules_refuse_without_a_card_and_approve_never_overrides_them() {
    let ctx = TestContext::new();
    write_rules(
        &ctx,
        json!({"allow": [], "ask": [], "deny": [{"toolName": "Bash", "key": "touch"}]}),
    );
    let out = ctx.run(&[
        "tool",
        "call",
        "Bash",
        r#"{"command":"touch x"}"#,
        "--approve",
        "Bash",
        "--json",
    ]);
    out.failure(4);
    assert_eq!(out.json()["decidedBy"], "denyRule");
    assert!(!ctx.work.join("x").exists());
}

#[test]
fn a_corrupt_rules_file_stops_the_run_and_is_left_alone() {
    let ctx = TestContext::new();
    let dir = ctx.work.join(".finch");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("permissions.json"), "{\"allow\": [").unwrap();
    ctx.call("ToolSearch", json!({"query": "read"}))
        .failure(1)
        .stderr_has("permissions.json");
    assert_eq!(
        std::fs::read_to_string(dir.join("permissions.json")).unwrap(),
        "{\"allow\": ["
    );
    assert!(ctx.transcripts().is_empty());
}

#[test]
fn jsonl_answers_every_line_in_order_with_its_id() {
    let ctx = TestContext::new();
    let input = "{\"id\":1,\"tool\":\"ToolSearch\",\"arguments\":{\"query\":\"memory\"}}\n\n\
                 not json\n{\"id\":\"b\"}\n{\"id\":3,\"tool\":\"Nope\"}\n\
                 {\"id\":4,\"tool\":\"Bash\",\"arguments\":{\"command\":\"rm -rf /tmp/x\"}}\n";
    let out = ctx
        .cmd()
        .args(["run", "--jsonl"])
        .write_stdin(input)
        .output()
        .unwrap();
    // One call refused (nobody to ask): a script hears it in the exit code.
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert_eq!(lines[0]["id"], 1);
    assert_eq!(lines[0]["tool"], "ToolSearch");
    assert_eq!(lines[1]["id"], Value::Null);
    assert_eq!(lines[1]["error"]["code"], "bad_request");
    assert_eq!(lines[2]["id"], "b");
    assert!(
        lines[2]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`tool` is missing")
    );
    assert_eq!(
        (lines[3]["id"].clone(), lines[3]["failure"].clone()),
        (json!(3), json!("unknownTool"))
    );
    assert_eq!(lines[4]["decision"], "deny");
    assert_eq!(lines[4]["isError"], true);
}

/// `finch run` read by a script (`--jsonl`, or the console on a pipe) exits 4 when any call
/// was refused, else 1 when any call failed or a line was no call, else 0; the summary is on
/// stderr and stdout keeps only the answers.
#[test]
fn a_scripted_run_says_in_its_exit_code_what_its_calls_came_to() {
    let ctx = TestContext::new();
    let search = json!({"id": 1, "tool": "ToolSearch", "arguments": {"query": "read"}});
    let refused = json!({"id": 2, "tool": "Bash", "arguments": {"command": "rm -rf build"}});
    let unknown = json!({"id": 3, "tool": "NoSuchTool"});

    let (responses, out) = ctx.jsonl(&[], std::slice::from_ref(&search));
    out.success();
    assert_eq!(responses.len(), 1);
    assert_eq!(out.stderr(), "");

    let (responses, out) = ctx.jsonl(&[], &[search.clone(), unknown.clone()]);
    out.failure(1);
    assert_eq!(responses.len(), 2, "every answer is still on stdout");
    assert_eq!(out.stderr(), "Error: 1 of 2 calls failed\n");

    let (_, out) = ctx.jsonl(&[], &[search.clone(), refused.clone(), unknown]);
    out.failure(4);
    assert_eq!(
        out.stderr(),
        "Error: 1 of 3 calls was refused; 1 of 3 calls failed\n\
         hint: cards need a person at a terminal; in a script, `--approve <TOOL>` or an allow \
         rule lets a call through\n"
    );

    // The same call let through by --approve: the run exits 0.
    let (responses, out) = ctx.jsonl(
        &["--approve", "Bash"],
        &[json!({"id": 4, "tool": "Bash", "arguments": {"command": "true"}})],
    );
    out.success();
    assert_eq!(responses[0]["decidedBy"], "approveFlag", "{responses:?}");

    // The console on a pipe counts the same way; a bad line is a failure.
    let piped = |input: &str| Run(ctx.cmd().arg("run").write_stdin(input).output().unwrap());
    piped("ToolSearch query=read\n").success();
    piped("ToolSearch query=read\n/nope\n")
        .failure(1)
        .stderr_has("Error: 1 line was no call");
    piped("Bash command='rm -rf build'\n/quit\n")
        .failure(4)
        .stderr_has("Error: 1 of 1 calls was refused");
}

/// `finch tool call Bash` exits with the command's own status when it ran (a signal as
/// 128 + its number); with `--json` the record carries it and the exit is 0.
#[test]
fn tool_call_bash_exits_with_the_commands_own_status() {
    let ctx = TestContext::new();
    let call = |command: &str, json: bool| {
        let args = json!({ "command": command }).to_string();
        let mut argv = vec!["tool", "call", "Bash", &args, "--approve", "Bash"];
        if json {
            argv.push("--json");
        }
        ctx.run(&argv)
    };
    let out = call("echo partial; exit 3", false);
    out.failure(3);
    assert_eq!(out.stdout(), "stdout:\npartial\nexit code: 3\n");
    assert_eq!(
        out.stderr(),
        "",
        "the status is the command's, not an error of finch"
    );
    call("true", false).success();
    // A program the signal ended: its shell's status says so. (The command itself is the
    // first process of its PID namespace in the wall, where a signal it sends itself is
    // ignored; the program it starts is not.)
    call("sh -c 'kill -TERM $$'; exit $?", false).failure(128 + 15);

    let out = call("exit 3", true);
    out.success();
    assert_eq!(out.json()["structuredContent"]["exitCode"], 3);
}

/// Issue 31: `key=value` is typed by the tool's schema: `command=123` is the text "123"
/// for Bash's string parameter (it was the number 123, an invalid argument), in `tool call`
/// and in the console.
#[test]
fn key_values_are_typed_by_the_tools_schema() {
    let ctx = TestContext::new();
    let out = ctx.run(&[
        "tool",
        "call",
        "Bash",
        "command=123",
        "timeout=5000",
        "--approve",
        "Bash",
        "--json",
    ]);
    out.success();
    assert_eq!(out.json()["structuredContent"]["exitCode"], 127, "{out}");
    let out = ctx
        .cmd()
        .args(["run", "--approve", "Bash"])
        .write_stdin("Bash command=123\nBash command='\"true\"'\n")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let calls: Vec<Value> = ctx
        .transcripts()
        .iter()
        .flat_map(|t| ctx.tool_calls(t))
        .map(|c| c["arguments"].clone())
        .collect();
    assert_eq!(
        calls,
        [
            json!({"command": "123", "timeout": 5000}),
            json!({"command": "123"}),
            json!({"command": "true"})
        ]
    );
}

#[test]
fn a_run_records_each_call_in_a_pi_transcript() {
    let ctx = TestContext::new();
    let (responses, out) = ctx.jsonl(
        &[],
        &[
            json!({"id": 1, "tool": "ToolSearch", "arguments": {"query": "files"}}),
            json!({"id": 2, "tool": "Bash", "arguments": {"command": "rm -rf x"}}),
            json!({"id": 3, "tool": "Memory", "arguments": {}}),
        ],
    );
    out.failure(4);
    assert_eq!(responses.len(), 3);
    let files = ctx.transcripts();
    assert_eq!(files.len(), 1);
    let slug = files[0]
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    let work = ctx.work.to_string_lossy().to_string();
    assert_eq!(
        slug,
        format!("--{}--", work.trim_start_matches('/').replace('/', "-"))
    );
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let entries: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(entries[0]["type"], "session");
    assert_eq!(entries[0]["version"], 3);
    assert_eq!(entries[0]["cwd"], work.as_str());
    // Each entry follows the one before.
    for pair in entries[1..].windows(2) {
        assert_eq!(pair[1]["parentId"], pair[0]["id"]);
    }
    let calls = ctx.tool_calls(&files[0]);
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[0]["tool"], "ToolSearch");
    assert_eq!(calls[0]["decision"], "allow");
    assert_eq!(calls[0]["decidedBy"], "autoAllow");
    assert_eq!(calls[1]["arguments"], json!({"command": "rm -rf x"}));
    assert_eq!(calls[1]["decision"], "deny");
    assert_eq!(calls[1]["decidedBy"], "noPerson");
    assert_eq!(calls[1]["isError"], true);
    assert_eq!(calls[2]["decidedBy"], "manual");
    for call in &calls {
        assert!(call["durationMs"].as_f64().unwrap() >= 0.0);
        assert!(call["result"]["content"].is_array());
    }
    // The session tools read it like any transcript.
    let id = entries[0]["id"].as_str().unwrap();
    ctx.run(&["session", "show", id])
        .success()
        .stdout_has("tool call")
        .stdout_has("ToolSearch {\"query\":\"files\"} — allow");
}

#[test]
fn session_continues_an_existing_transcript() {
    let ctx = TestContext::new();
    ctx.call("ToolSearch", json!({"query": "read"})).success();
    let files = ctx.transcripts();
    let id = serde_json::from_str::<Value>(
        std::fs::read_to_string(&files[0])
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    ctx.run(&[
        "tool",
        "call",
        "ToolSearch",
        r#"{"query":"write"}"#,
        "--session",
        &id[..8],
    ])
    .success();
    assert_eq!(ctx.transcripts().len(), 1);
    assert_eq!(ctx.tool_calls(&files[0]).len(), 2);
    ctx.run(&["tool", "call", "ToolSearch", "--session", "ffffffff"])
        .failure(3)
        .stderr_has("no session matches");
}

#[test]
fn the_console_reads_commands_from_a_pipe() {
    let ctx = TestContext::new();
    let input = "/tools\n/mode acceptCalls\n/mode\n/session\n/nope\n\
                 ToolSearch query=\"read a file\" limit=2\nBash {\"command\":\"rm -rf x\"}\n/quit\n\
                 ToolSearch query=never\n";
    let out = ctx.cmd().arg("run").write_stdin(input).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(4),
        "the Bash call was refused: {out:?}"
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    for name in ["Read", "Bash", "Memory", "MiniTool"] {
        assert!(stdout.contains(name), "{stdout}");
    }
    assert!(stdout.contains("acceptCalls"), "{stdout}");
    assert!(stdout.contains("session:"), "{stdout}");
    assert!(stderr.contains("unknown command /nope"), "{stderr}");
    assert!(
        stdout.contains("there is no terminal to ask on")
            || stderr.contains("there is no terminal to ask on"),
        "{stdout}\n{stderr}"
    );
    let calls = ctx.tool_calls(&ctx.transcripts()[0]);
    let tools: Vec<&str> = calls.iter().map(|c| c["tool"].as_str().unwrap()).collect();
    assert_eq!(tools, ["ToolSearch", "Bash"], "nothing after /quit runs");
    assert_eq!(
        calls[0]["arguments"],
        json!({"query": "read a file", "limit": 2})
    );
}

#[test]
fn the_mode_comes_from_the_flag_then_the_config() {
    let ctx = TestContext::new();
    ctx.write_config("[host]\nmode = \"sometimes\"\n");
    ctx.call("ToolSearch", json!({"query": "x"}))
        .failure(1)
        .stderr_has("[host] mode");
    ctx.write_config("[host]\nmode = \"acceptCalls\"\n");
    // Bash with a read-only command is in the fast lane: allowed in acceptCalls.
    let out = ctx.call("Bash", json!({"command": "ls"}));
    assert_eq!(out.json()["decidedBy"], "fastLane", "{}", out.stdout());
    let out = ctx.run(&[
        "tool",
        "call",
        "Bash",
        r#"{"command":"ls"}"#,
        "--mode",
        "ask",
        "--json",
    ]);
    out.failure(4);
    assert_eq!(out.json()["decidedBy"], "noPerson");
}

#[test]
fn a_missing_cwd_is_not_found() {
    let ctx = TestContext::new();
    ctx.run(&["tool", "call", "ToolSearch", "--cwd", "no/such/dir"])
        .failure(3)
        .stderr_has("no such directory");
}

/// Issue 18: the built-ins and dispatchers are found in Chinese (simplified and traditional)
/// and by a dispatcher's actions.
#[test]
fn tool_search_finds_builtins_and_dispatchers_in_chinese_and_by_action() {
    let ctx = TestContext::new();
    for (query, first) in [
        ("查找文件内容", "Grep"),
        ("讀取檔案", "Read"),
        ("安装小工具", "MiniTool"),
        ("定時任務", "Schedule"),
        ("create a new space for a project", "AppCall"),
        ("switch to dark theme", "AppCall"),
    ] {
        let hits = ctx.run(&["tool", "search", query, "--json"]).json();
        assert_eq!(hits[0]["name"], first, "{query}: {hits}");
    }
}

/// Issue 18: `--explain` says which query terms a hit matched, in which fields, and what
/// each added; the parts add up to the score.
#[test]
fn tool_search_explain_shows_matched_terms_and_fields() {
    let ctx = TestContext::new();
    let hits = ctx
        .run(&[
            "tool",
            "search",
            "read a file",
            "--explain",
            "--json",
            "--limit",
            "3",
        ])
        .json();
    let first = &hits[0];
    assert_eq!(first["name"], "Read", "{hits}");
    let why = &first["why"];
    let terms = why["terms"].as_array().expect("terms");
    let file = terms
        .iter()
        .find(|t| t["term"] == "file")
        .unwrap_or_else(|| panic!("no \"file\" term: {why}"));
    assert!(
        file["fields"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "description"),
        "{file}"
    );
    let sum: f64 = terms
        .iter()
        .map(|t| t["score"].as_f64().unwrap())
        .sum::<f64>()
        + why["nameBoost"]["score"].as_f64().unwrap_or(0.0)
        + why["allTermsInName"].as_f64().unwrap_or(0.0);
    let score = first["score"].as_f64().unwrap();
    assert!((sum - score).abs() < 0.01, "{sum} vs {score}: {why}");
    // Without --explain there is no "why"; on a terminal-less run the text form has a block.
    let plain = ctx.run(&["tool", "search", "read a file", "--json"]).json();
    assert!(plain[0].get("why").is_none(), "{plain}");
    let text = ctx.run(&["tool", "search", "read a file", "--explain", "--limit", "1"]);
    text.success()
        .stdout_has("Read  score ")
        .stdout_has("\"file\" in ");
}

#[test]
fn tool_list_search_and_info_read_the_catalog_cache() {
    let ctx = TestContext::new();
    let list = ctx.run(&["tool", "list", "--json"]);
    let names: Vec<String> = list
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names.len(), 18, "{names:?}");
    write_cache(&ctx);
    let list = ctx
        .run(&["tool", "list", "--source", "mcp", "--json"])
        .json();
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["name"], "mcp__github__create_issue");
    assert_eq!(list[0]["exposure"], "dynamic");
    assert_eq!(list[0]["owner"], "github");

    let hits = ctx.run(&["tool", "search", "forecast", "--json"]).json();
    assert_eq!(hits[0]["name"], "weather_getForecast");
    let hits = ctx
        .run(&[
            "tool",
            "search",
            "create issues",
            "--source",
            "mcp:github",
            "--json",
        ])
        .json();
    assert_eq!(hits.as_array().unwrap().len(), 1);
    ctx.run(&["tool", "search", "x", "--source", "plugins"])
        .failure(2)
        .stderr_has("unknown source");
    ctx.run(&["tool", "search", "zzzzqqq"])
        .success()
        .stderr_has("No tool matches");

    let info = ctx.run(&["tool", "info", "getForecast", "--json"]).json();
    assert_eq!(info["name"], "weather_getForecast");
    assert_eq!(info["permission"]["acceptCalls"]["decision"], "ask");
    let text = ctx.run(&["tool", "info", "Read"]);
    text.success()
        .stdout_has("in acceptCalls mode: allow")
        .stdout_has("\nparameters:\nNAME       TYPE     REQUIRED  DESCRIPTION\nfile_path  string   yes       ");
    ctx.run(&["tool", "info", "Nope"])
        .failure(3)
        .stderr_has("no tool named");

    std::fs::write(ctx.runtime.join("cache/catalog.json"), "{").unwrap();
    ctx.run(&["tool", "list"])
        .failure(1)
        .stderr_has("catalog.json");
}

/// Issue 13: every way around the gateway an adversarial review found, through the real
/// binary, with no TTY in acceptCalls mode — each call must be refused for want of a person
/// (a card nobody can answer) or held by the read-only sandbox (a command without writing
/// intent, issue 41), and nothing the calls tried may have happened.
#[test]
fn issue_13_every_way_around_the_gateway_takes_a_card() {
    let ctx = TestContext::new();
    let canary = ctx.base().join("P");
    let outside = ctx.base().join("outside.txt");
    std::fs::write(&outside, "secret\n").unwrap();
    std::fs::hard_link(&outside, ctx.work.join("hard")).unwrap();
    std::fs::create_dir_all(ctx.work.join("d")).unwrap();
    let c = canary.display();
    let refused = |tool: &str, args: serde_json::Value| {
        let out = ctx.run(&[
            "tool",
            "call",
            tool,
            &args.to_string(),
            "--mode",
            "acceptCalls",
            "--json",
        ]);
        let record = out.json();
        // Refused before it ran, or (issue 41) run in the read-only sandbox, whose refusals
        // nobody could lift: either way judged by the canary below.
        let walled = record["decidedBy"] == "sandboxFirst" && record["sandbox"] == "read-only";
        if !walled {
            out.failure(4);
        }
        assert!(
            record["decidedBy"] == "noPerson" || walled,
            "{tool} {args}: {out}"
        );
    };
    // 1, 2: expansions that bash runs later.
    refused(
        "Bash",
        json!({"command": format!("cat <<EOF\n`touch {c}`\nEOF")}),
    );
    refused(
        "Bash",
        json!({"command": format!("printf -v 'a[$(touch {c})]' x")}),
    );
    refused(
        "Bash",
        json!({"command": "printf -v HOME /tmp; git status"}),
    );
    // 5: the rules file granting itself Bash, then a command it would spare.
    let grant = r#"{"allow":[{"toolName":"Bash","key":"*"}]}"#;
    refused(
        "Write",
        json!({"file_path": ".finch/permissions.json", "content": grant}),
    );
    assert!(!ctx.work.join(".finch/permissions.json").exists());
    refused(
        "Bash",
        json!({"command": format!("python3 -c 'open(\"{c}\", \"w\")'")}),
    );
    // 4: trusting `/`, then reading anywhere; attaching a file outside.
    refused("Session", json!({"action": "extendDir", "dir": "/"}));
    refused("Read", json!({"file_path": "/etc/passwd"}));
    refused(
        "Session",
        json!({"action": "attach", "file": outside.display().to_string()}),
    );
    // 3: git's config, which `git status` would run.
    refused(
        "Write",
        json!({"file_path": ".git/config", "content": format!("[core]\n\tfsmonitor = touch {c}\n")}),
    );
    refused(
        "Edit",
        json!({"file_path": ".git/config", "old_string": "a", "new_string": "b"}),
    );
    refused("Write", json!({"file_path": "~/.bashrc", "content": "x"}));
    // 6: command words that hide `rm`.
    refused("Bash", json!({"command": "$'\\x72m' -rf d"}));
    refused("Bash", json!({"command": "/bin/r[m] -rf d"}));
    assert!(ctx.work.join("d").exists());
    // 7: the environment and secrets outside the workspace.
    refused("Bash", json!({"command": "cat /proc/self/environ"}));
    refused("Bash", json!({"command": "strings /proc/self/environ"}));
    refused("Bash", json!({"command": "jq -n env"}));
    refused("Bash", json!({"command": "cat ~/.ssh/id_rsa"}));
    // 8: a hard link inside to a file outside.
    refused("Read", json!({"file_path": "hard"}));
    assert!(!canary.exists(), "a refused call ran");
    // Benign calls still take the fast lane.
    let out = ctx.run(&[
        "tool",
        "call",
        "Bash",
        r#"{"command":"cat <<'EOF'\n`id`\nEOF"}"#,
        "--mode",
        "acceptCalls",
        "--json",
    ]);
    assert_eq!(out.json()["decidedBy"], "fastLane", "{out}");
}

/// Issue 13, 3 with an allow rule that covers everything: a protected path still asks.
#[test]
fn no_allow_rule_spares_a_protected_path_or_a_hidden_rm() {
    let ctx = TestContext::new();
    std::fs::create_dir_all(ctx.work.join(".finch")).unwrap();
    std::fs::write(
        ctx.work.join(".finch/permissions.json"),
        r#"{"allow":[{"toolName":"*","key":"*"}]}"#,
    )
    .unwrap();
    for (tool, args) in [
        (
            "Write",
            json!({"file_path": ".finch/permissions.json", "content": "{}"}),
        ),
        (
            "Write",
            json!({"file_path": ".git/hooks/pre-commit", "content": "x"}),
        ),
        ("Write", json!({"file_path": ".npmrc", "content": "x"})),
        ("Bash", json!({"command": "$'\\x72m' -rf d"})),
        ("Bash", json!({"command": "git checkout -- ."})),
        ("Bash", json!({"command": "shred -u x"})),
    ] {
        let out = ctx.run(&["tool", "call", tool, &args.to_string(), "--json"]);
        out.failure(4);
        assert_eq!(out.json()["decidedBy"], "noPerson", "{tool} {args}: {out}");
    }
}

/// `--jsonl` writes a call's record right after its response, while the run goes on: the
/// transcript has it before the next line comes, not at the end of the run.
#[test]
fn jsonl_records_each_call_after_its_response_while_the_run_goes_on() {
    let ctx = TestContext::new();
    let mut run = ctx.live_run(&[]);
    let answer = run.call("ToolSearch", json!({"query": "memory"}));
    assert_eq!(answer["tool"], "ToolSearch", "{answer}");
    let recorded = || {
        ctx.transcripts().iter().any(|t| {
            std::fs::read_to_string(t)
                .unwrap_or_default()
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .any(|e| e["customType"] == "finch.toolCall" && e["data"]["tool"] == "ToolSearch")
        })
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !recorded() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(recorded(), "no record of the call while the run is open");
    run.finish();
}
