//! The shapes the call pipeline answers with, whole: every kind of call record `finch tool call
//! --json` prints, the responses of `finch run --jsonl`, the results of `finch run --serve mcp`
//! and the `finch.toolCall` entries the transcript keeps. Snapshots, so that a change of the
//! pipeline shows every byte it changed (temp paths, durations and timestamps filtered).

use serde_json::{Value, json};

use crate::common::TestContext;
use crate::serve_mcp::serve;

/// A context with a file to read, a secret outside the workspace, and a deny rule for `echo
/// denied`.
fn scene() -> TestContext {
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("notes.txt"), "one\ntwo\n").unwrap();
    std::fs::create_dir_all(ctx.home.join("private")).unwrap();
    std::fs::write(ctx.home.join("private/plan.txt"), "PLAN\n").unwrap();
    let config = ctx.runtime.join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("permissions.json"),
        json!({"deny": [{"toolName": "Bash", "key": "echo denied"}]}).to_string(),
    )
    .unwrap();
    ctx
}

/// `value` as pretty JSON with the test's paths as `[BASE]`, durations as `0.0` and the
/// sandbox's per-call TMPDIRs as `[TMP]`.
fn shape(ctx: &TestContext, value: &Value) -> String {
    let mut value = value.clone();
    zero_durations(&mut value);
    let text = serde_json::to_string_pretty(&value).unwrap();
    without_tmpdirs(&ctx.filter(&text))
}

fn zero_durations(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if key == "durationMs" {
                    *v = json!(0.0);
                } else {
                    zero_durations(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(zero_durations),
        _ => {}
    }
}

/// `finch-sandbox-XXXXXX` (a per-call TMPDIR) as `[TMP]`.
fn without_tmpdirs(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("finch-sandbox-") {
        out.push_str(&rest[..at]);
        out.push_str("[TMP]");
        let after = &rest[at + "finch-sandbox-".len()..];
        let end = after
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(after.len());
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The `finch.toolCall` entries of every transcript, in order.
fn recorded(ctx: &TestContext) -> Value {
    Value::Array(
        ctx.transcripts()
            .iter()
            .flat_map(|t| ctx.tool_calls(t))
            .collect(),
    )
}

/// `finch tool call <tool> <args> --json <extra…>`: exit code and record.
fn tool_call(ctx: &TestContext, tool: &str, args: Value, extra: &[&str]) -> String {
    let args = args.to_string();
    let mut words = vec!["tool", "call", tool, &args, "--json"];
    words.extend_from_slice(extra);
    let out = ctx.run(&words);
    let record: Value = serde_json::from_str(&out.stdout())
        .unwrap_or_else(|e| panic!("not a record ({e}):\n{out}"));
    format!("exit {}\n{}", out.code(), shape(ctx, &record))
}

#[test]
fn tool_call_records() {
    let ctx = scene();
    let fast = ["--mode", "acceptCalls"];
    insta::assert_snapshot!(tool_call(&ctx, "Read", json!({"file_path": "notes.txt"}), &fast), @r#"
    exit 0
    {
      "content": [
        {
          "type": "text",
          "text": "     1\tone\n     2\ttwo\n"
        }
      ],
      "isError": false,
      "tool": "Read",
      "decision": "allow",
      "decidedBy": "fastLane"
    }
    "#);
    insta::assert_snapshot!(tool_call(&ctx, "Read", json!({"file_path": "notes.txt"}), &[]), @r#"
    exit 4
    {
      "content": [
        {
          "type": "text",
          "text": "Permission denied: `Read` needs a person's approval (`Read` needs a card in ask mode (no allow rule matches)), and this run has nobody to ask. Rerun with --approve Read to allow it, or use a tool that does not need approval."
        }
      ],
      "isError": true,
      "tool": "Read",
      "decision": "deny",
      "decidedBy": "noPerson",
      "failure": "refused"
    }
    "#);
    insta::assert_snapshot!(tool_call(&ctx, "Bash", json!({"command": "echo hi"}), &fast), @r#"
    exit 0
    {
      "content": [
        {
          "type": "text",
          "text": "stdout:\nhi\nexit code: 0"
        }
      ],
      "isError": false,
      "structuredContent": {
        "exitCode": 0,
        "stdout": "hi\n",
        "stderr": "",
        "timedOut": false,
        "outputCut": false,
        "sandbox": "read-only"
      },
      "tool": "Bash",
      "decision": "allow",
      "decidedBy": "fastLane",
      "sandbox": "read-only"
    }
    "#);
    insta::assert_snapshot!(tool_call(&ctx, "Bash", json!({"command": "ls missing"}), &fast), @r#"
    exit 0
    {
      "content": [
        {
          "type": "text",
          "text": "stderr:\nls: cannot access 'missing': No such file or directory\nexit code: 2"
        }
      ],
      "isError": false,
      "structuredContent": {
        "exitCode": 2,
        "stdout": "",
        "stderr": "ls: cannot access 'missing': No such file or directory\n",
        "timedOut": false,
        "outputCut": false,
        "sandbox": "read-only"
      },
      "tool": "Bash",
      "decision": "allow",
      "decidedBy": "fastLane",
      "sandbox": "read-only"
    }
    "#);
    insta::assert_snapshot!(tool_call(&ctx, "Bash", json!({"command": "touch made"}), &[]), @r#"
    exit 4
    {
      "content": [
        {
          "type": "text",
          "text": "Permission denied: `Bash` needs a person's approval (not read-only: `touch` is not a known read-only program; no allow rule names Bash), and this run has nobody to ask. Rerun with --approve Bash to allow it, or use a tool that does not need approval."
        }
      ],
      "isError": true,
      "tool": "Bash",
      "decision": "deny",
      "decidedBy": "noPerson",
      "failure": "refused"
    }
    "#);
    insta::assert_snapshot!(tool_call(&ctx, "Bash", json!({"command": "touch made"}), &["--approve", "Bash"]), @r#"
    exit 0
    {
      "content": [
        {
          "type": "text",
          "text": "(no output)\nexit code: 0"
        }
      ],
      "isError": false,
      "structuredContent": {
        "exitCode": 0,
        "stdout": "",
        "stderr": "",
        "timedOut": false,
        "outputCut": false,
        "sandbox": "workspace-write"
      },
      "tool": "Bash",
      "decision": "allow",
      "decidedBy": "approveFlag",
      "sandbox": "workspace-write"
    }
    "#);
    insta::assert_snapshot!(tool_call(&ctx, "Bash", json!({"command": "rm -rf made"}), &fast), @r#"
    exit 4
    {
      "content": [
        {
          "type": "text",
          "text": "Permission denied: `Bash` needs a person's approval (destructive command: `rm -rf` deletes recursively or without asking; it always gets a card), and this run has nobody to ask. Rerun with --approve Bash to allow it, or use a tool that does not need approval."
        }
      ],
      "isError": true,
      "tool": "Bash",
      "decision": "deny",
      "decidedBy": "noPerson",
      "failure": "refused"
    }
    "#);
    insta::assert_snapshot!(tool_call(&ctx, "Bash", json!({"command": "echo denied"}), &fast), @r#"
    exit 4
    {
      "content": [
        {
          "type": "text",
          "text": "Permission denied: `Bash` was not run. refused by the deny rule {\"toolName\": \"Bash\", \"key\": \"echo denied\"} in [BASE]/home/.finch/config/permissions.json"
        }
      ],
      "isError": true,
      "tool": "Bash",
      "decision": "deny",
      "decidedBy": "denyRule",
      "failure": "refused"
    }
    "#);
    insta::assert_snapshot!(tool_call(&ctx, "Bash", json!({"command": "cat $HOME/private/plan.txt"}), &fast), @r#"
    exit 4
    {
      "content": [
        {
          "type": "text",
          "text": "stderr:\ncat: [BASE]/home/private/plan.txt: Permission denied\nexit code: 1"
        },
        {
          "type": "text",
          "text": "finch's read-only sandbox refused to read [BASE]/home/private/plan.txt. Nobody could be asked whether it may run again able to read [BASE]/home/private. Do not retry the same call: tell the user it needs to read [BASE]/home/private; they can allow that by running finch with --allow-read [BASE]/home/private."
        }
      ],
      "isError": false,
      "structuredContent": {
        "exitCode": 1,
        "stdout": "",
        "stderr": "cat: [BASE]/home/private/plan.txt: Permission denied\n",
        "timedOut": false,
        "outputCut": false,
        "sandbox": "read-only"
      },
      "tool": "Bash",
      "decision": "allow",
      "decidedBy": "fastLane",
      "failure": "blocked",
      "sandbox": "read-only",
      "blocked": {
        "by": "sandbox",
        "profile": "read-only",
        "access": "read",
        "path": "[BASE]/home/private/plan.txt"
      },
      "escalation": {
        "grant": "read",
        "path": "[BASE]/home/private",
        "decidedBy": "noPerson"
      }
    }
    "#);
    insta::assert_snapshot!(tool_call(&ctx, "Write", json!({"file_path": "new.txt", "content": "x\n"}), &fast), @r#"
    exit 0
    {
      "content": [
        {
          "type": "text",
          "text": "Created `[BASE]/work/new.txt` (2 bytes)."
        }
      ],
      "isError": false,
      "structuredContent": {
        "path": "[BASE]/work/new.txt",
        "bytes": 2,
        "created": true
      },
      "tool": "Write",
      "decision": "allow",
      "decidedBy": "fastLane"
    }
    "#);
    insta::assert_snapshot!(tool_call(&ctx, "TodoWrite", json!({"todos": [{"content": "a", "status": "pending"}]}), &[]), @r#"
    exit 0
    {
      "content": [
        {
          "type": "text",
          "text": "To-do list (1 item: 0 completed, 0 in progress, 1 pending):\n- [ ] a"
        }
      ],
      "isError": false,
      "structuredContent": {
        "todos": [
          {
            "content": "a",
            "status": "pending"
          }
        ]
      },
      "tool": "TodoWrite",
      "decision": "allow",
      "decidedBy": "autoAllow"
    }
    "#);
    insta::assert_snapshot!(tool_call(&ctx, "Memory", json!({}), &[]), @r#"
    exit 0
    {
      "content": [
        {
          "type": "text",
          "text": "Memory — Remember, replace, forget, search, list and show entries of the agent's memory files (long-term MEMORY.md, daily logs, space memory, lessons, the USER.md profile). Entries are Markdown list items; each has an 8-hex id shown by search and list.\nCall it with \"action\" set to one of: remember, replace, forget, search, list, show.\n\nremember — Add an entry to a memory file (daily entries get the local time HH:MM in front)\n  text (string, required) The entry text\n  to (string) Which file: long-term (default), daily, lessons, profile or space:<name>\n  section (string) Put the entry under this heading (created at the end of the file when missing)\n  example: {\"action\":\"remember\",\"text\":\"Prefers metric units\",\"to\":\"profile\"}\n\nreplace — Replace exactly one entry, chosen by `old` (a case-sensitive substring of it) or by `id`\n  old (string) Text that matches the entry to replace (or give `id`)\n  id (string) Id of the entry (8 hex digits, or a prefix of at least 4), from search or list\n  new (string, required) The new entry text\n  in (string) Only look in this file: long-term, profile, lessons, today, a date (YYYY-MM-DD), or space:<name>\n  example: {\"action\":\"replace\",\"old\":\"Lives in Berlin\",\"new\":\"Lives in Hamburg\"}\n\nforget — Remove one entry, chosen by `text` (a case-sensitive substring of it) or by `id`; every match with allMatching\n  text (string) Text that matches the entry to remove (or give `id`)\n  id (string) Id of the entry (8 hex digits, or a prefix of at least 4), from search or list\n  allMatching (boolean) Remove every entry the text matches (default false)\n  in (string) Only look in this file: long-term, profile, lessons, today, a date (YYYY-MM-DD), or space:<name>\n  example: {\"action\":\"forget\",\"id\":\"3166d002\"}\n\nsearch — Search memory, ranked; each hit has its file, line, date, id and a snippet\n  query (string, required) Words to look for\n  scope (string) Which files to read: all (default), long-term, daily, spaces, lessons or profile\n  space (string) Only this space's memory (with scope all or spaces)\n  since (string) Only entries dated on or after this day (YYYY-MM-DD)\n  until (string) Only entries dated on or before this day (YYYY-MM-DD)\n  limit (integer) At most this many hits (default 20, 0 for all)\n  example: {\"action\":\"search\",\"query\":\"deploy staging\",\"scope\":\"daily\",\"limit\":5}\n\nlist — List entries with their ids\n  scope (string) Which files to read: all (default), long-term, daily, spaces, lessons or profile\n  space (string) Only this space's memory (with scope all or spaces)\n  example: {\"action\":\"list\",\"scope\":\"long-term\"}\n\nshow — Show a whole memory file with its entries\n  what (string, required) long-term, profile, lessons, today, a date (YYYY-MM-DD), or a space name\n  example: {\"action\":\"show\",\"what\":\"today\"}\n"
        }
      ],
      "isError": false,
      "tool": "Memory",
      "decision": "none",
      "decidedBy": "manual"
    }
    "#);
    insta::assert_snapshot!(tool_call(&ctx, "Read", json!({"file_path": 3}), &fast), @r#"
    exit 1
    {
      "content": [
        {
          "type": "text",
          "text": "Invalid arguments for `Read`:\n- /file_path: 3 is not of type \"string\"\nCall `Read` again with arguments that match its input schema."
        }
      ],
      "isError": true,
      "tool": "Read",
      "decision": "none",
      "decidedBy": "invalidArguments",
      "failure": "invalidArguments"
    }
    "#);
    insta::assert_snapshot!(tool_call(&ctx, "MiniTool", json!({"action": "list"}), &[]), @r#"
    exit 4
    {
      "content": [
        {
          "type": "text",
          "text": "Permission denied: `MiniTool` needs a person's approval (`MiniTool` installs and runs mini tools: every call gets a card), and this run has nobody to ask. Rerun with --approve MiniTool to allow it, or use a tool that does not need approval."
        }
      ],
      "isError": true,
      "tool": "MiniTool",
      "decision": "deny",
      "decidedBy": "noPerson",
      "failure": "refused"
    }
    "#);
    insta::assert_snapshot!(shape(&ctx, &recorded(&ctx)), @r#"
    [
      {
        "tool": "Read",
        "arguments": {
          "file_path": "notes.txt"
        },
        "decision": "allow",
        "decidedBy": "fastLane",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "     1\tone\n     2\ttwo\n"
            }
          ],
          "isError": false
        },
        "isError": false,
        "durationMs": 0.0
      },
      {
        "tool": "Bash",
        "arguments": {
          "command": "echo hi"
        },
        "decision": "allow",
        "decidedBy": "fastLane",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "stdout:\nhi\nexit code: 0"
            }
          ],
          "isError": false,
          "structuredContent": {
            "exitCode": 0,
            "stdout": "hi\n",
            "stderr": "",
            "timedOut": false,
            "outputCut": false,
            "sandbox": "read-only"
          }
        },
        "isError": false,
        "durationMs": 0.0,
        "sandbox": "read-only"
      },
      {
        "tool": "Bash",
        "arguments": {
          "command": "ls missing"
        },
        "decision": "allow",
        "decidedBy": "fastLane",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "stderr:\nls: cannot access 'missing': No such file or directory\nexit code: 2"
            }
          ],
          "isError": false,
          "structuredContent": {
            "exitCode": 2,
            "stdout": "",
            "stderr": "ls: cannot access 'missing': No such file or directory\n",
            "timedOut": false,
            "outputCut": false,
            "sandbox": "read-only"
          }
        },
        "isError": false,
        "durationMs": 0.0,
        "sandbox": "read-only"
      },
      {
        "tool": "Bash",
        "arguments": {
          "command": "touch made"
        },
        "decision": "allow",
        "decidedBy": "approveFlag",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "(no output)\nexit code: 0"
            }
          ],
          "isError": false,
          "structuredContent": {
            "exitCode": 0,
            "stdout": "",
            "stderr": "",
            "timedOut": false,
            "outputCut": false,
            "sandbox": "workspace-write"
          }
        },
        "isError": false,
        "durationMs": 0.0,
        "sandbox": "workspace-write"
      },
      {
        "tool": "Bash",
        "arguments": {
          "command": "cat $HOME/private/plan.txt"
        },
        "decision": "allow",
        "decidedBy": "fastLane",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "stderr:\ncat: [BASE]/home/private/plan.txt: Permission denied\nexit code: 1"
            },
            {
              "type": "text",
              "text": "finch's read-only sandbox refused to read [BASE]/home/private/plan.txt. Nobody could be asked whether it may run again able to read [BASE]/home/private. Do not retry the same call: tell the user it needs to read [BASE]/home/private; they can allow that by running finch with --allow-read [BASE]/home/private."
            }
          ],
          "isError": false,
          "structuredContent": {
            "exitCode": 1,
            "stdout": "",
            "stderr": "cat: [BASE]/home/private/plan.txt: Permission denied\n",
            "timedOut": false,
            "outputCut": false,
            "sandbox": "read-only"
          }
        },
        "isError": false,
        "durationMs": 0.0,
        "sandbox": "read-only",
        "blocked": {
          "by": "sandbox",
          "profile": "read-only",
          "access": "read",
          "path": "[BASE]/home/private/plan.txt"
        },
        "escalation": {
          "grant": "read",
          "path": "[BASE]/home/private",
          "decidedBy": "noPerson"
        }
      },
      {
        "tool": "Write",
        "arguments": {
          "file_path": "new.txt",
          "content": "x\n"
        },
        "decision": "allow",
        "decidedBy": "fastLane",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "Created `[BASE]/work/new.txt` (2 bytes)."
            }
          ],
          "isError": false,
          "structuredContent": {
            "path": "[BASE]/work/new.txt",
            "bytes": 2,
            "created": true
          }
        },
        "isError": false,
        "durationMs": 0.0
      },
      {
        "tool": "TodoWrite",
        "arguments": {
          "todos": [
            {
              "content": "a",
              "status": "pending"
            }
          ]
        },
        "decision": "allow",
        "decidedBy": "autoAllow",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "To-do list (1 item: 0 completed, 0 in progress, 1 pending):\n- [ ] a"
            }
          ],
          "isError": false,
          "structuredContent": {
            "todos": [
              {
                "content": "a",
                "status": "pending"
              }
            ]
          }
        },
        "isError": false,
        "durationMs": 0.0
      },
      {
        "tool": "Memory",
        "arguments": {},
        "decision": "none",
        "decidedBy": "manual",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "Memory — Remember, replace, forget, search, list and show entries of the agent's memory files (long-term MEMORY.md, daily logs, space memory, lessons, the USER.md profile). Entries are Markdown list items; each has an 8-hex id shown by search and list.\nCall it with \"action\" set to one of: remember, replace, forget, search, list, show.\n\nremember — Add an entry to a memory file (daily entries get the local time HH:MM in front)\n  text (string, required) The entry text\n  to (string) Which file: long-term (default), daily, lessons, profile or space:<name>\n  section (string) Put the entry under this heading (created at the end of the file when missing)\n  example: {\"action\":\"remember\",\"text\":\"Prefers metric units\",\"to\":\"profile\"}\n\nreplace — Replace exactly one entry, chosen by `old` (a case-sensitive substring of it) or by `id`\n  old (string) Text that matches the entry to replace (or give `id`)\n  id (string) Id of the entry (8 hex digits, or a prefix of at least 4), from search or list\n  new (string, required) The new entry text\n  in (string) Only look in this file: long-term, profile, lessons, today, a date (YYYY-MM-DD), or space:<name>\n  example: {\"action\":\"replace\",\"old\":\"Lives in Berlin\",\"new\":\"Lives in Hamburg\"}\n\nforget — Remove one entry, chosen by `text` (a case-sensitive substring of it) or by `id`; every match with allMatching\n  text (string) Text that matches the entry to remove (or give `id`)\n  id (string) Id of the entry (8 hex digits, or a prefix of at least 4), from search or list\n  allMatching (boolean) Remove every entry the text matches (default false)\n  in (string) Only look in this file: long-term, profile, lessons, today, a date (YYYY-MM-DD), or space:<name>\n  example: {\"action\":\"forget\",\"id\":\"3166d002\"}\n\nsearch — Search memory, ranked; each hit has its file, line, date, id and a snippet\n  query (string, required) Words to look for\n  scope (string) Which files to read: all (default), long-term, daily, spaces, lessons or profile\n  space (string) Only this space's memory (with scope all or spaces)\n  since (string) Only entries dated on or after this day (YYYY-MM-DD)\n  until (string) Only entries dated on or before this day (YYYY-MM-DD)\n  limit (integer) At most this many hits (default 20, 0 for all)\n  example: {\"action\":\"search\",\"query\":\"deploy staging\",\"scope\":\"daily\",\"limit\":5}\n\nlist — List entries with their ids\n  scope (string) Which files to read: all (default), long-term, daily, spaces, lessons or profile\n  space (string) Only this space's memory (with scope all or spaces)\n  example: {\"action\":\"list\",\"scope\":\"long-term\"}\n\nshow — Show a whole memory file with its entries\n  what (string, required) long-term, profile, lessons, today, a date (YYYY-MM-DD), or a space name\n  example: {\"action\":\"show\",\"what\":\"today\"}\n"
            }
          ],
          "isError": false
        },
        "isError": false,
        "durationMs": 0.0
      },
      {
        "tool": "Read",
        "arguments": {
          "file_path": 3
        },
        "decision": "none",
        "decidedBy": "invalidArguments",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "Invalid arguments for `Read`:\n- /file_path: 3 is not of type \"string\"\nCall `Read` again with arguments that match its input schema."
            }
          ],
          "isError": true
        },
        "isError": true,
        "durationMs": 0.0
      }
    ]
    "#);
}

#[test]
fn tool_call_text_of_refusals_and_walls() {
    let ctx = scene();
    let text = |args: Value, extra: &[&str]| {
        let args = args.to_string();
        let mut words = vec!["tool", "call", "Bash", &args];
        words.extend_from_slice(extra);
        let out = ctx.run(&words);
        without_tmpdirs(&ctx.filter(&out.to_string()))
    };
    insta::assert_snapshot!(text(json!({"command": "touch made"}), &[]), @"
    exit 4
    --- stdout
    --- stderr
    Error: Not run: `Bash` needs a person's approval (not read-only: `touch` is not a known read-only program; no allow rule names Bash), and there is no terminal to ask on. Run it on a terminal to be asked, or allow it without asking: `--approve Bash` answers its cards with allow, or an allow rule for it in .finch/permissions.json (`finch policy trust` makes a project's rules count).
    ");
    insta::assert_snapshot!(text(json!({"command": "cat $HOME/private/plan.txt"}), &["--mode", "acceptCalls"]), @r#"
    exit 4
    --- stdout
    stderr:
    cat: [BASE]/home/private/plan.txt: Permission denied
    exit code: 1
    --- stderr
    Error: finch's read-only sandbox refused to read [BASE]/home/private/plan.txt
    hint: to let it read [BASE]/home/private, run it again with `--allow-read [BASE]/home/private`
    "#);
}

#[test]
fn run_jsonl_responses() {
    let ctx = scene();
    let requests = [
        json!({"id": 1, "tool": "Read", "arguments": {"file_path": "notes.txt"}}),
        json!({"id": 2, "tool": "Bash", "arguments": {"command": "echo hi"}}),
        json!({"id": 3, "tool": "Bash", "arguments": {"command": "touch made"}}),
        json!({"id": 4, "tool": "Bash", "arguments": {"command": "cat $HOME/private/plan.txt"}}),
        json!({"id": 5, "tool": "Nope", "arguments": {}}),
        json!({"id": 6, "tool": "Bash", "arguments": {"command": "echo denied"}}),
    ];
    let (responses, out) = ctx.jsonl(&["--mode", "acceptCalls"], &requests);
    insta::assert_snapshot!(format!("exit {}\n{}", out.code(), shape(&ctx, &Value::Array(responses))), @r#"
    exit 4
    [
      {
        "content": [
          {
            "type": "text",
            "text": "     1\tone\n     2\ttwo\n"
          }
        ],
        "isError": false,
        "tool": "Read",
        "decision": "allow",
        "decidedBy": "fastLane",
        "id": 1
      },
      {
        "content": [
          {
            "type": "text",
            "text": "stdout:\nhi\nexit code: 0"
          }
        ],
        "isError": false,
        "structuredContent": {
          "exitCode": 0,
          "stdout": "hi\n",
          "stderr": "",
          "timedOut": false,
          "outputCut": false,
          "sandbox": "read-only"
        },
        "tool": "Bash",
        "decision": "allow",
        "decidedBy": "fastLane",
        "sandbox": "read-only",
        "id": 2
      },
      {
        "content": [
          {
            "type": "text",
            "text": "Permission denied: `Bash` needs a person's approval (not read-only: `touch` is not a known read-only program; no allow rule names Bash), and this run has nobody to ask. Rerun with --approve Bash to allow it, or use a tool that does not need approval."
          }
        ],
        "isError": true,
        "tool": "Bash",
        "decision": "deny",
        "decidedBy": "noPerson",
        "failure": "refused",
        "id": 3
      },
      {
        "content": [
          {
            "type": "text",
            "text": "stderr:\ncat: [BASE]/home/private/plan.txt: Permission denied\nexit code: 1"
          },
          {
            "type": "text",
            "text": "finch's read-only sandbox refused to read [BASE]/home/private/plan.txt. Nobody could be asked whether it may run again able to read [BASE]/home/private. Do not retry the same call: tell the user it needs to read [BASE]/home/private; they can allow that by running finch with --allow-read [BASE]/home/private."
          }
        ],
        "isError": false,
        "structuredContent": {
          "exitCode": 1,
          "stdout": "",
          "stderr": "cat: [BASE]/home/private/plan.txt: Permission denied\n",
          "timedOut": false,
          "outputCut": false,
          "sandbox": "read-only"
        },
        "tool": "Bash",
        "decision": "allow",
        "decidedBy": "fastLane",
        "failure": "blocked",
        "sandbox": "read-only",
        "blocked": {
          "by": "sandbox",
          "profile": "read-only",
          "access": "read",
          "path": "[BASE]/home/private/plan.txt"
        },
        "escalation": {
          "grant": "read",
          "path": "[BASE]/home/private",
          "decidedBy": "noPerson"
        },
        "id": 4
      },
      {
        "content": [
          {
            "type": "text",
            "text": "There is no tool named `Nope`. Use ToolSearch to find tools by what they do."
          }
        ],
        "isError": true,
        "tool": "Nope",
        "decision": "none",
        "decidedBy": "unknownTool",
        "failure": "unknownTool",
        "id": 5
      },
      {
        "content": [
          {
            "type": "text",
            "text": "Permission denied: `Bash` was not run. refused by the deny rule {\"toolName\": \"Bash\", \"key\": \"echo denied\"} in [BASE]/home/.finch/config/permissions.json"
          }
        ],
        "isError": true,
        "tool": "Bash",
        "decision": "deny",
        "decidedBy": "denyRule",
        "failure": "refused",
        "id": 6
      }
    ]
    "#);
    insta::assert_snapshot!(shape(&ctx, &recorded(&ctx)), @r#"
    [
      {
        "tool": "Read",
        "arguments": {
          "file_path": "notes.txt"
        },
        "decision": "allow",
        "decidedBy": "fastLane",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "     1\tone\n     2\ttwo\n"
            }
          ],
          "isError": false
        },
        "isError": false,
        "durationMs": 0.0
      },
      {
        "tool": "Bash",
        "arguments": {
          "command": "echo hi"
        },
        "decision": "allow",
        "decidedBy": "fastLane",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "stdout:\nhi\nexit code: 0"
            }
          ],
          "isError": false,
          "structuredContent": {
            "exitCode": 0,
            "stdout": "hi\n",
            "stderr": "",
            "timedOut": false,
            "outputCut": false,
            "sandbox": "read-only"
          }
        },
        "isError": false,
        "durationMs": 0.0,
        "sandbox": "read-only"
      },
      {
        "tool": "Bash",
        "arguments": {
          "command": "touch made"
        },
        "decision": "deny",
        "decidedBy": "noPerson",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "Permission denied: `Bash` needs a person's approval (not read-only: `touch` is not a known read-only program; no allow rule names Bash), and this run has nobody to ask. Rerun with --approve Bash to allow it, or use a tool that does not need approval."
            }
          ],
          "isError": true
        },
        "isError": true,
        "durationMs": 0.0
      },
      {
        "tool": "Bash",
        "arguments": {
          "command": "cat $HOME/private/plan.txt"
        },
        "decision": "allow",
        "decidedBy": "fastLane",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "stderr:\ncat: [BASE]/home/private/plan.txt: Permission denied\nexit code: 1"
            },
            {
              "type": "text",
              "text": "finch's read-only sandbox refused to read [BASE]/home/private/plan.txt. Nobody could be asked whether it may run again able to read [BASE]/home/private. Do not retry the same call: tell the user it needs to read [BASE]/home/private; they can allow that by running finch with --allow-read [BASE]/home/private."
            }
          ],
          "isError": false,
          "structuredContent": {
            "exitCode": 1,
            "stdout": "",
            "stderr": "cat: [BASE]/home/private/plan.txt: Permission denied\n",
            "timedOut": false,
            "outputCut": false,
            "sandbox": "read-only"
          }
        },
        "isError": false,
        "durationMs": 0.0,
        "sandbox": "read-only",
        "blocked": {
          "by": "sandbox",
          "profile": "read-only",
          "access": "read",
          "path": "[BASE]/home/private/plan.txt"
        },
        "escalation": {
          "grant": "read",
          "path": "[BASE]/home/private",
          "decidedBy": "noPerson"
        }
      },
      {
        "tool": "Nope",
        "arguments": {},
        "decision": "none",
        "decidedBy": "unknownTool",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "There is no tool named `Nope`. Use ToolSearch to find tools by what they do."
            }
          ],
          "isError": true
        },
        "isError": true,
        "durationMs": 0.0
      },
      {
        "tool": "Bash",
        "arguments": {
          "command": "echo denied"
        },
        "decision": "deny",
        "decidedBy": "denyRule",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "Permission denied: `Bash` was not run. refused by the deny rule {\"toolName\": \"Bash\", \"key\": \"echo denied\"} in [BASE]/home/.finch/config/permissions.json"
            }
          ],
          "isError": true
        },
        "isError": true,
        "durationMs": 0.0
      }
    ]
    "#);
}

#[test]
fn serve_mcp_results() {
    let ctx = scene();
    let call =
        |name: &str, arguments: Value| json!({"op": "call", "name": name, "arguments": arguments});
    let plan = json!({
        "elicitation": [{"action": "accept", "content": {"decision": "allowOnce"}}],
        "steps": [
            call("Read", json!({"file_path": "notes.txt"})),
            call("Bash", json!({"command": "echo hi"})),
            call("Bash", json!({"command": "touch made"})),
            call("Bash", json!({"command": "cat $HOME/private/plan.txt"})),
            call("Nope", json!({})),
            call("Bash", json!({"command": "echo denied"})),
            call("Bash", json!({"command": "touch again"})),
        ],
    });
    let report = serve(&ctx, plan, &["--mode", "acceptCalls"]);
    insta::assert_snapshot!(shape(&ctx, &report.0["results"]), @r#"
    [
      {
        "_meta": {
          "finch/decision": "allow",
          "finch/decidedBy": "fastLane"
        },
        "content": [
          {
            "type": "text",
            "text": "     1\tone\n     2\ttwo\n"
          }
        ],
        "isError": false,
        "resultType": "complete"
      },
      {
        "_meta": {
          "finch/decision": "allow",
          "finch/decidedBy": "fastLane",
          "finch/sandbox": "read-only"
        },
        "content": [
          {
            "type": "text",
            "text": "stdout:\nhi\nexit code: 0"
          }
        ],
        "structuredContent": {
          "exitCode": 0,
          "stdout": "hi\n",
          "stderr": "",
          "timedOut": false,
          "outputCut": false,
          "sandbox": "read-only"
        },
        "isError": false,
        "resultType": "complete"
      },
      {
        "_meta": {
          "finch/decision": "allow",
          "finch/decidedBy": "card:allowOnce",
          "finch/sandbox": "workspace-write"
        },
        "content": [
          {
            "type": "text",
            "text": "(no output)\nexit code: 0"
          }
        ],
        "structuredContent": {
          "exitCode": 0,
          "stdout": "",
          "stderr": "",
          "timedOut": false,
          "outputCut": false,
          "sandbox": "workspace-write"
        },
        "isError": false,
        "resultType": "complete"
      },
      {
        "_meta": {
          "finch/decision": "allow",
          "finch/decidedBy": "fastLane",
          "finch/sandbox": "read-only",
          "finch/failure": "blocked",
          "finch/blocked": {
            "by": "sandbox",
            "profile": "read-only",
            "access": "read",
            "path": "[BASE]/home/private/plan.txt"
          },
          "finch/escalation": {
            "grant": "read",
            "path": "[BASE]/home/private",
            "decidedBy": "card:decline"
          }
        },
        "content": [
          {
            "type": "text",
            "text": "stderr:\ncat: [BASE]/home/private/plan.txt: Permission denied\nexit code: 1"
          },
          {
            "type": "text",
            "text": "finch's read-only sandbox refused to read [BASE]/home/private/plan.txt. Nobody could be asked whether it may run again able to read [BASE]/home/private. Do not retry the same call: tell the user it needs to read [BASE]/home/private; they can allow that by running finch with --allow-read [BASE]/home/private."
          }
        ],
        "structuredContent": {
          "exitCode": 1,
          "stdout": "",
          "stderr": "cat: [BASE]/home/private/plan.txt: Permission denied\n",
          "timedOut": false,
          "outputCut": false,
          "sandbox": "read-only"
        },
        "isError": false,
        "resultType": "complete"
      },
      {
        "_meta": {
          "finch/decision": "none",
          "finch/decidedBy": "unknownTool",
          "finch/failure": "unknownTool"
        },
        "content": [
          {
            "type": "text",
            "text": "There is no tool named `Nope`. Use ToolSearch to find tools by what they do."
          }
        ],
        "isError": true,
        "resultType": "complete"
      },
      {
        "_meta": {
          "finch/decision": "deny",
          "finch/decidedBy": "denyRule",
          "finch/failure": "refused"
        },
        "content": [
          {
            "type": "text",
            "text": "Permission denied: `Bash` was not run. refused by the deny rule {\"toolName\": \"Bash\", \"key\": \"echo denied\"} in [BASE]/home/.finch/config/permissions.json"
          }
        ],
        "isError": true,
        "resultType": "complete"
      },
      {
        "_meta": {
          "finch/decision": "deny",
          "finch/decidedBy": "card:decline",
          "finch/failure": "refused"
        },
        "content": [
          {
            "type": "text",
            "text": "Not run: `Bash` needs a person's approval (not read-only: `touch` is not a known read-only program; no allow rule names Bash), and the MCP client declined the permission card without anyone allowing it (an agent run without a person, such as `codex exec`, declines every card). This is not a person's refusal. Do not retry the same call: ask the user whether it should run; they can allow it with finch's --approve Bash or an allow rule."
          }
        ],
        "isError": true,
        "resultType": "complete"
      }
    ]
    "#);
    insta::assert_snapshot!(shape(&ctx, &report.0["elicitations"]), @r#"
    [
      {
        "_meta": {
          "progressToken": 0
        },
        "mode": "form",
        "message": "Permission needed: Bash — Run a shell command\ntouch made\nLayer: builtin · risk: medium\nWhy: not read-only: `touch` is not a known read-only program; no allow rule names Bash\nSandbox: runs in finch's workspace-write sandbox: writes only the workspace and trusted directories (protected paths stay read-only), network on",
        "requestedSchema": {
          "type": "object",
          "properties": {
            "decision": {
              "type": "string",
              "title": "Decision",
              "oneOf": [
                {
                  "const": "allowOnce",
                  "title": "Allow once"
                },
                {
                  "const": "allowForSession",
                  "title": "Allow for this session"
                },
                {
                  "const": "deny",
                  "title": "Deny"
                },
                {
                  "const": "denyWithReason",
                  "title": "Deny and tell the model why"
                },
                {
                  "const": "allowUnsandboxed",
                  "title": "Allow once, without the sandbox"
                }
              ]
            },
            "reason": {
              "type": "string",
              "title": "Reason",
              "description": "When denying: what the model should know or do instead"
            }
          },
          "required": [
            "decision"
          ]
        }
      },
      {
        "_meta": {
          "progressToken": 1
        },
        "mode": "form",
        "message": "Permission needed: Bash — Run a shell command\ncat $HOME/private/plan.txt\nLayer: builtin · risk: medium\nWhy: finch's read-only sandbox refused to read [BASE]/home/private/plan.txt\nSandbox: runs again in finch's read-only sandbox, now also able to read [BASE]/home/private",
        "requestedSchema": {
          "type": "object",
          "properties": {
            "decision": {
              "type": "string",
              "title": "Decision",
              "oneOf": [
                {
                  "const": "allowOnce",
                  "title": "Allow once"
                },
                {
                  "const": "deny",
                  "title": "Deny"
                },
                {
                  "const": "denyWithReason",
                  "title": "Deny and tell the model why"
                }
              ]
            },
            "reason": {
              "type": "string",
              "title": "Reason",
              "description": "When denying: what the model should know or do instead"
            }
          },
          "required": [
            "decision"
          ]
        }
      },
      {
        "_meta": {
          "progressToken": 2
        },
        "mode": "form",
        "message": "Permission needed: Bash — Run a shell command\ntouch again\nLayer: builtin · risk: medium\nWhy: not read-only: `touch` is not a known read-only program; no allow rule names Bash\nSandbox: runs in finch's workspace-write sandbox: writes only the workspace and trusted directories (protected paths stay read-only), network on",
        "requestedSchema": {
          "type": "object",
          "properties": {
            "decision": {
              "type": "string",
              "title": "Decision",
              "oneOf": [
                {
                  "const": "allowOnce",
                  "title": "Allow once"
                },
                {
                  "const": "allowForSession",
                  "title": "Allow for this session"
                },
                {
                  "const": "deny",
                  "title": "Deny"
                },
                {
                  "const": "denyWithReason",
                  "title": "Deny and tell the model why"
                },
                {
                  "const": "allowUnsandboxed",
                  "title": "Allow once, without the sandbox"
                }
              ]
            },
            "reason": {
              "type": "string",
              "title": "Reason",
              "description": "When denying: what the model should know or do instead"
            }
          },
          "required": [
            "decision"
          ]
        }
      }
    ]
    "#);
    insta::assert_snapshot!(shape(&ctx, &recorded(&ctx)), @r#"
    [
      {
        "tool": "Read",
        "arguments": {
          "file_path": "notes.txt"
        },
        "decision": "allow",
        "decidedBy": "fastLane",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "     1\tone\n     2\ttwo\n"
            }
          ],
          "isError": false
        },
        "isError": false,
        "durationMs": 0.0
      },
      {
        "tool": "Bash",
        "arguments": {
          "command": "echo hi"
        },
        "decision": "allow",
        "decidedBy": "fastLane",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "stdout:\nhi\nexit code: 0"
            }
          ],
          "isError": false,
          "structuredContent": {
            "exitCode": 0,
            "stdout": "hi\n",
            "stderr": "",
            "timedOut": false,
            "outputCut": false,
            "sandbox": "read-only"
          }
        },
        "isError": false,
        "durationMs": 0.0,
        "sandbox": "read-only"
      },
      {
        "tool": "Bash",
        "arguments": {
          "command": "touch made"
        },
        "decision": "allow",
        "decidedBy": "card:allowOnce",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "(no output)\nexit code: 0"
            }
          ],
          "isError": false,
          "structuredContent": {
            "exitCode": 0,
            "stdout": "",
            "stderr": "",
            "timedOut": false,
            "outputCut": false,
            "sandbox": "workspace-write"
          }
        },
        "isError": false,
        "durationMs": 0.0,
        "sandbox": "workspace-write"
      },
      {
        "tool": "Bash",
        "arguments": {
          "command": "cat $HOME/private/plan.txt"
        },
        "decision": "allow",
        "decidedBy": "fastLane",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "stderr:\ncat: [BASE]/home/private/plan.txt: Permission denied\nexit code: 1"
            },
            {
              "type": "text",
              "text": "finch's read-only sandbox refused to read [BASE]/home/private/plan.txt. Nobody could be asked whether it may run again able to read [BASE]/home/private. Do not retry the same call: tell the user it needs to read [BASE]/home/private; they can allow that by running finch with --allow-read [BASE]/home/private."
            }
          ],
          "isError": false,
          "structuredContent": {
            "exitCode": 1,
            "stdout": "",
            "stderr": "cat: [BASE]/home/private/plan.txt: Permission denied\n",
            "timedOut": false,
            "outputCut": false,
            "sandbox": "read-only"
          }
        },
        "isError": false,
        "durationMs": 0.0,
        "sandbox": "read-only",
        "blocked": {
          "by": "sandbox",
          "profile": "read-only",
          "access": "read",
          "path": "[BASE]/home/private/plan.txt"
        },
        "escalation": {
          "grant": "read",
          "path": "[BASE]/home/private",
          "decidedBy": "card:decline"
        }
      },
      {
        "tool": "Nope",
        "arguments": {},
        "decision": "none",
        "decidedBy": "unknownTool",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "There is no tool named `Nope`. Use ToolSearch to find tools by what they do."
            }
          ],
          "isError": true
        },
        "isError": true,
        "durationMs": 0.0
      },
      {
        "tool": "Bash",
        "arguments": {
          "command": "echo denied"
        },
        "decision": "deny",
        "decidedBy": "denyRule",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "Permission denied: `Bash` was not run. refused by the deny rule {\"toolName\": \"Bash\", \"key\": \"echo denied\"} in [BASE]/home/.finch/config/permissions.json"
            }
          ],
          "isError": true
        },
        "isError": true,
        "durationMs": 0.0
      },
      {
        "tool": "Bash",
        "arguments": {
          "command": "touch again"
        },
        "decision": "deny",
        "decidedBy": "card:decline",
        "result": {
          "content": [
            {
              "type": "text",
              "text": "Not run: `Bash` needs a person's approval (not read-only: `touch` is not a known read-only program; no allow rule names Bash), and the MCP client declined the permission card without anyone allowing it (an agent run without a person, such as `codex exec`, declines every card). This is not a person's refusal. Do not retry the same call: ask the user whether it should run; they can allow it with finch's --approve Bash or an allow rule."
            }
          ],
          "isError": true
        },
        "isError": true,
        "durationMs": 0.0
      }
    ]
    "#);
}
