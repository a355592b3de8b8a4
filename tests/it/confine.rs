//! Each mini tool confined by the kernel to what its manifest declares (issue 29,
//! `minitool::confine`), end to end: the real binary runs real `node` with the fixture
//! `escape.mjs`, which tries — in `activate()` and in tool calls — to write outside its storage,
//! read a key in a fake `$HOME/.ssh`, read and write the workspace, connect to a listener this
//! test starts on 127.0.0.1 (by address and by name), start `/bin/sh`, `process.dlopen` a
//! library it copied into its TMPDIR, and run a program it wrote into its storage. Declaring nothing, every attempt fails, the listener sees
//! nothing, nothing outside changes and the error names the declaration; declaring one
//! permission allows exactly that one thing. Through `finch tool call`, `finch run --jsonl` and
//! `finch run --serve mcp`, and `finch reload` for `activate()`. These tests fail (never skip)
//! where the kernel has no Landlock ABI 6: the mini tool would then not start at all.

use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::fixtures::MiniTool;
use crate::common::{Run, TestContext};

pub(crate) const ESCAPE: &str = include_str!("fixtures/minitools/escape.mjs");

/// What the fixture tries, each with the declaration that forbids it when nothing is declared.
const ATTEMPTS: &[(&str, &str)] = &[
    ("write", "filesystem: \"none\""),
    ("ssh", "filesystem: \"none\""),
    ("readWorkspace", "filesystem: \"none\""),
    ("writeWorkspace", "filesystem: \"none\""),
    ("tcp", "network: false"),
    ("dns", "network: false"),
    ("sh", "shell: false"),
    ("dlopen", "shell: false"),
    ("runStored", "shell: false"),
];

/// A secret in finch's own environment, which no mini tool may see.
const SECRET_VAR: &str = "FINCH_TEST_SECRET_TOKEN";

pub(crate) struct Scene {
    pub(crate) ctx: TestContext,
    listener: TcpListener,
    pub(crate) outside: PathBuf,
    secret: PathBuf,
}

impl Scene {
    pub(crate) fn new() -> Scene {
        let ctx = TestContext::new();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let ssh = ctx.home.join(".ssh");
        std::fs::create_dir_all(&ssh).unwrap();
        let secret = ssh.join("id_ed25519");
        std::fs::write(&secret, "-----BEGIN OPENSSH PRIVATE KEY-----\nfake\n").unwrap();
        std::fs::write(ctx.work.join("notes.txt"), "workspace notes\n").unwrap();
        let outside = ctx.base().join("outside.txt");
        Scene {
            ctx,
            listener,
            outside,
            secret,
        }
    }

    /// Writes the fixture with `permissions` (and attempts to make in `activate()`) to
    /// `<base>/src/<id>` and returns that directory.
    pub(crate) fn minitool(&self, id: &str, permissions: Value, in_activate: &[&str]) -> PathBuf {
        let dir = self.ctx.base().join("src").join(id);
        MiniTool::new(id, "1.0.0")
            .entry_source(ESCAPE)
            .finch_field("contributes", json!({"tools": true}))
            .finch_field("permissions", permissions)
            .file(
                "targets.json",
                &json!({
                    "outside": self.outside,
                    "secret": self.secret,
                    "workspace": self.ctx.work,
                    "port": self.listener.local_addr().unwrap().port(),
                    "activate": in_activate,
                })
                .to_string(),
            )
            .write_to(&dir);
        dir
    }

    /// How many connections the listener got.
    fn connections(&self) -> usize {
        let mut n = 0;
        while let Ok((mut stream, _)) = self.listener.accept() {
            let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
            let mut text = String::new();
            let _ = stream.read_to_string(&mut text);
            n += 1;
        }
        n
    }

    /// `finch tool call <tool>` with the fixture loaded from `dir` and a secret in finch's
    /// environment.
    fn call(&self, dir: &Path, tool: &str, args: Value) -> Run {
        Run(self
            .ctx
            .cmd()
            .env(SECRET_VAR, "s3cret")
            .args([
                "tool",
                "call",
                tool,
                &args.to_string(),
                "--json",
                "--approve",
                tool,
                "--minitool",
                &dir.display().to_string(),
            ])
            .output()
            .unwrap())
    }

    /// Nothing outside changed: no file outside, none new in the workspace, no connection.
    #[track_caller]
    fn assert_nothing_happened(&self, outputs: &[String]) {
        assert!(!self.outside.exists(), "a file was written outside");
        assert!(
            !self.ctx.work.join("from-minitool.txt").exists(),
            "the workspace was written"
        );
        assert_eq!(self.connections(), 0, "the listener was reached");
        for out in outputs {
            assert!(!out.contains("fake\n") && !out.contains("OPENSSH"), "{out}");
            assert!(!out.contains("shell ran"), "{out}");
            assert!(!out.contains("workspace notes"), "{out}");
        }
    }
}

pub(crate) fn text_of(record: &Value) -> String {
    record["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `escape_activation` report: attempt name → whether it worked.
fn activation_outcomes(record: &Value) -> Vec<(String, bool, String)> {
    let attempts = record["structuredContent"]["attempts"]
        .as_object()
        .unwrap_or_else(|| panic!("no attempts in {record}"));
    attempts
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                v["ok"] == true,
                v["error"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn a_mini_tool_that_declares_nothing_can_do_nothing_through_tool_call() {
    let s = Scene::new();
    let dir = s.minitool(
        "escape",
        json!({"filesystem": "none", "network": false, "shell": false}),
        &[],
    );
    // In activate(): every attempt failed, and node saw none of finch's secrets.
    let out = s.call(&dir, "escape_activation", json!({}));
    out.success();
    let record = out.json();
    let outcomes = activation_outcomes(&record);
    assert_eq!(outcomes.len(), ATTEMPTS.len(), "{record}");
    for (name, ok, error) in &outcomes {
        assert!(!ok, "{name} worked in activate(): {record}");
        assert!(
            error.contains("EACCES")
                || error.contains("EPERM")
                || error.contains("failed to map segment"),
            "{name}: {error}"
        );
    }
    let env: Vec<&str> = record["structuredContent"]["env"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(!env.contains(&SECRET_VAR), "{env:?}");
    assert!(env.contains(&"TMPDIR") && env.contains(&"HOME"), "{env:?}");
    let tmpdir = record["structuredContent"]["tmpdir"].as_str().unwrap();
    assert!(
        tmpdir.contains("finch-sandbox-"),
        "a private TMPDIR: {tmpdir}"
    );

    // In a tool call: each fails, and the error names what the manifest declares.
    let mut outputs = vec![out.stdout()];
    for (what, declaration) in ATTEMPTS {
        let out = s.call(&dir, "escape_attempt", json!({ "what": what }));
        let record = out.json();
        assert_eq!(record["isError"], true, "{what} worked: {record}");
        let text = text_of(&record);
        assert!(
            text.contains(&format!("blocked: escape declares {declaration}")),
            "{what}: {text}"
        );
        outputs.push(out.stdout());
    }
    // Its own storage it may write.
    let out = s.call(&dir, "escape_attempt", json!({"what": "storage"}));
    assert_eq!(out.json()["isError"], false, "{out}");
    assert!(
        s.ctx
            .runtime
            .join("extension-data/escape/mine.txt")
            .exists(),
        "storage was not written: {out}"
    );
    s.assert_nothing_happened(&outputs);
}

#[test]
fn a_mini_tool_that_declares_nothing_can_do_nothing_through_run_jsonl() {
    let s = Scene::new();
    let dir = s.minitool("escape", json!({}), &[]);
    let dir = dir.display().to_string();
    let mut requests = vec![
        json!({"id": "s", "tool": "ToolSearch", "arguments": {"query": "sandbox should stop"}}),
    ];
    requests.extend(ATTEMPTS.iter().map(
        |(what, _)| json!({"id": what, "tool": "escape_attempt", "arguments": {"what": what}}),
    ));
    let (lines, run) = s.ctx.jsonl(
        &[
            "--mode",
            "acceptCalls",
            "--minitool",
            &dir,
            "--approve",
            "escape_attempt",
        ],
        &requests,
    );
    // Every attempt fails: a scripted run exits 1 when any call failed.
    assert_eq!(run.code(), 1, "{run}");
    for (what, declaration) in ATTEMPTS {
        let line = lines
            .iter()
            .find(|l| l["id"] == *what && l.get("progress").is_none())
            .unwrap_or_else(|| panic!("no answer to {what}: {lines:?}"));
        assert_eq!(line["isError"], true, "{what} worked: {line}");
        assert!(
            text_of(line).contains(&format!("blocked: escape declares {declaration}")),
            "{what}: {line}"
        );
    }
    s.assert_nothing_happened(&[run.stdout()]);
}

#[test]
fn a_mini_tool_that_declares_nothing_can_do_nothing_through_serve_mcp() {
    let s = Scene::new();
    let dir = s.minitool("escape", json!({"network": false}), &[]);
    let dir = dir.display().to_string();
    let mut steps = vec![crate::serve_mcp::call(
        "ToolSearch",
        json!({"query": "sandbox should stop"}),
    )];
    steps.extend(
        ATTEMPTS
            .iter()
            .map(|(what, _)| crate::serve_mcp::call("escape_attempt", json!({ "what": what }))),
    );
    let report = crate::serve_mcp::serve(
        &s.ctx,
        json!({"elicitation": null, "steps": steps}),
        &[
            "--mode",
            "acceptCalls",
            "--minitool",
            &dir,
            "--approve",
            "escape_attempt",
        ],
    );
    let mut outputs = Vec::new();
    for (i, (what, declaration)) in ATTEMPTS.iter().enumerate() {
        let result = report.result(i + 1);
        assert_eq!(result["isError"], true, "{what} worked: {result}");
        let text = report.text(i + 1);
        assert!(
            text.contains(&format!("blocked: escape declares {declaration}")),
            "{what}: {text}"
        );
        outputs.push(text);
    }
    s.assert_nothing_happened(&outputs);
}

#[test]
fn each_declared_permission_allows_exactly_that_one_thing() {
    let cases: &[(Value, &[&str])] = &[
        (json!({"network": true}), &["tcp", "dns"]),
        // shell works in the workspace as approved Bash does (issue 39).
        (
            json!({"shell": true}),
            &[
                "sh",
                "dlopen",
                "runStored",
                "readWorkspace",
                "writeWorkspace",
            ],
        ),
        (json!({"filesystem": "read"}), &["readWorkspace"]),
        // `write` is the older spelling of `readwrite`.
        (
            json!({"filesystem": "write"}),
            &["readWorkspace", "writeWorkspace"],
        ),
    ];
    for (permissions, allowed) in cases {
        let s = Scene::new();
        let dir = s.minitool("escape", permissions.clone(), &[]);
        let out = s.call(&dir, "escape_activation", json!({}));
        out.success();
        let record = out.json();
        for (name, ok, error) in activation_outcomes(&record) {
            assert_eq!(
                ok,
                allowed.contains(&name.as_str()),
                "{permissions}: {name} ({error}) in {record}"
            );
        }
        let expected = if allowed.contains(&"tcp") { 2 } else { 0 };
        assert_eq!(s.connections(), expected, "{permissions}");
        assert!(!s.outside.exists(), "{permissions}: wrote outside");
        assert_eq!(
            s.ctx.work.join("from-minitool.txt").exists(),
            allowed.contains(&"writeWorkspace"),
            "{permissions}"
        );
    }
}

/// A mini tool that declares `shell: true` runs the program it keeps in its own storage (the
/// public finch-ocr downloads its engine there on first use and spawns it): under the Bash
/// profile's rules what it may write it may run. Without `shell` the same program is refused,
/// and the error names the declaration.
#[test]
fn a_mini_tool_with_shell_runs_a_program_it_keeps_in_its_storage() {
    let s = Scene::new();
    let dir = s.minitool("escape", json!({"shell": true}), &[]);
    let out = s.call(&dir, "escape_attempt", json!({"what": "runStored"}));
    let record = out.json();
    assert_eq!(record["isError"], false, "{record}");
    assert!(text_of(&record).contains("stored program ran"), "{record}");

    let dir = s.minitool("escape", json!({"shell": false}), &[]);
    let out = s.call(&dir, "escape_attempt", json!({"what": "runStored"}));
    let record = out.json();
    assert_eq!(record["isError"], true, "{record}");
    assert!(
        text_of(&record).contains("blocked: escape declares shell: false"),
        "{record}"
    );
}

/// Installs the fixture (`finch add` + `finch enable`) with `permissions`.
pub(crate) fn install(s: &Scene, id: &str, permissions: Value, in_activate: &[&str]) {
    let dir = s.minitool(id, permissions, in_activate);
    s.ctx.run(&["add", &dir.display().to_string()]).success();
    s.ctx.run(&["enable", id]).success();
}

#[test]
fn reload_names_the_declaration_an_activate_ran_into_and_shows_the_sandbox() {
    let s = Scene::new();
    install(&s, "escape", json!({"filesystem": "read"}), &["tcp"]);
    install(&s, "quiet", json!({"network": true, "shell": false}), &[]);
    let out = s.ctx.run(&["reload", "--json"]);
    out.failure(1);
    let report = out.json();
    let of = |id: &str| {
        report["minitools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no {id} in {report}"))
    };
    let escape = of("escape");
    assert_eq!(escape["status"], "failed", "{escape}");
    let error = escape["error"].as_str().unwrap();
    assert!(
        error.contains("blocked: escape declares network: false"),
        "{error}"
    );
    assert_eq!(
        escape["sandbox"],
        json!({"filesystem": "read", "network": false, "shell": false, "status": "enforced"})
    );
    let quiet = of("quiet");
    assert_eq!(quiet["status"], "activated", "{quiet}");
    assert_eq!(
        quiet["sandbox"],
        json!({"filesystem": "none", "network": true, "shell": false, "status": "enforced"})
    );
    // quiet's activate() tried TCP by address and by name, as it declares it may; escape's
    // stopped at its first attempt.
    assert_eq!(s.connections(), 2);

    // The person-facing line says it too.
    let out = s.ctx.run(&["reload"]);
    out.failure(1);
    out.stdout_has("blocked: escape declares network: false");

    // tool info shows the confinement of the tool's mini tool.
    let info = s.ctx.run(&["tool", "info", "quiet_attempt", "--json"]);
    info.success();
    assert_eq!(
        info.json()["sandbox"],
        json!({"filesystem": "none", "network": true, "shell": false, "status": "enforced", "grants": {}})
    );
    s.ctx
        .run(&["tool", "info", "quiet_attempt"])
        .success()
        .stdout_has("sandbox:  filesystem none, network true, shell false (enforced)");
}

#[test]
fn a_grant_lets_an_under_declared_mini_tool_do_that_and_a_revoke_takes_it_back() {
    let s = Scene::new();
    install(&s, "escape", json!({}), &[]);
    let grants = s.ctx.runtime.join("sandbox.json");
    // Unknown keys in the file are kept.
    std::fs::write(
        &grants,
        r#"{"note": "kept", "minitools": {"other": {"shell": true}}}"#,
    )
    .unwrap();
    let tcp = |s: &Scene| {
        let out = s.ctx.run(&[
            "tool",
            "call",
            "escape_attempt",
            r#"{"what":"tcp"}"#,
            "--json",
            "--approve",
            "escape_attempt",
        ]);
        out.json()
    };
    assert_eq!(tcp(&s)["isError"], true);

    s.ctx
        .run(&["sandbox", "grant", "escape", "network", "filesystem=read"])
        .success()
        .stdout_has("escape is granted beyond its manifest: filesystem=read, network");
    let file = s.ctx.read_json(&grants);
    assert_eq!(file["note"], "kept");
    assert_eq!(file["minitools"]["other"], json!({"shell": true}));
    assert_eq!(
        file["minitools"]["escape"],
        json!({"network": true, "filesystem": "read"})
    );
    let record = tcp(&s);
    assert_eq!(record["isError"], false, "{record}");
    // The call, and activate()'s two attempts (by address and by name).
    assert_eq!(s.connections(), 3);
    s.ctx.run(&["reload"]).success();
    assert_eq!(
        s.connections(),
        2,
        "reload's activate() connects, as granted"
    );
    let info = s.ctx.run(&["tool", "info", "escape_attempt", "--json"]);
    assert_eq!(
        info.json()["sandbox"],
        json!({"filesystem": "read", "network": true, "shell": false, "status": "enforced",
               "grants": {"filesystem": "read", "network": true}})
    );

    s.ctx
        .run(&["sandbox", "revoke", "escape", "network", "filesystem"])
        .success()
        .stdout_has("escape has no grants: it is held to its manifest");
    let file = s.ctx.read_json(&grants);
    assert!(file["minitools"].get("escape").is_none(), "{file}");
    assert_eq!(tcp(&s)["isError"], true);
    assert_eq!(s.connections(), 0);

    // A right that is not one changes nothing and says so.
    let before = std::fs::read(&grants).unwrap();
    s.ctx
        .run(&["sandbox", "grant", "escape", "network", "root"])
        .failure(2)
        .stderr_has("\"root\" is not a right");
    s.ctx
        .run(&["sandbox", "grant", "../x", "network"])
        .failure(2)
        .stderr_has("is not a mini tool id");
    assert_eq!(std::fs::read(&grants).unwrap(), before);
}

#[test]
fn minitools_off_runs_them_as_before_and_status_says_so() {
    let s = Scene::new();
    let out = s.ctx.run(&["sandbox", "status", "--json"]);
    out.success();
    assert_eq!(
        out.json()["minitools"],
        json!({"setting": "manifest", "status": "enforced", "unconfined": []})
    );
    s.ctx.write_config("[sandbox]\nminitools = \"off\"\n");
    let dir = s.minitool("escape", json!({}), &[]);
    let out = s.call(&dir, "escape_attempt", json!({"what": "sh"}));
    let record = out.json();
    assert_eq!(record["isError"], false, "{record}");
    assert_eq!(record["structuredContent"]["result"], "shell ran");
    let out = s.ctx.run(&["sandbox", "status", "--json"]);
    assert_eq!(
        out.json()["minitools"],
        json!({"setting": "off", "status": "off", "unconfined": []})
    );
    s.ctx
        .run(&["sandbox", "status"])
        .success()
        .stdout_has("minitool off ([sandbox] minitools = \"off\")");
}

/// A minimal MCP stdio server (newline-delimited JSON-RPC) with two tools: `write` a file and
/// `connect` to a TCP port on 127.0.0.1; each answers what happened.
pub(crate) const WALLED_SERVER: &str = include_str!("fixtures/mcp_server.mjs");

#[test]
fn an_mcp_server_with_a_sandbox_entry_starts_confined() {
    let s = Scene::new();
    let server = s.ctx.work.join("walled.mjs");
    std::fs::write(&server, WALLED_SERVER).unwrap();
    let port = s.listener.local_addr().unwrap().port();
    let entry = |sandbox: Value| {
        let mut e = json!({"name": "walled", "command": "node", "args": [server]});
        if !sandbox.is_null() {
            e["sandbox"] = sandbox;
        }
        crate::mcp_bridge::write_servers(&s.ctx, &json!({"servers": [e]}));
    };
    let call = |tool: &str, args: Value| -> (bool, String) {
        let name = format!("mcp__walled__{tool}");
        let out = s.ctx.run(&[
            "tool",
            "call",
            &name,
            &args.to_string(),
            "--json",
            "--approve",
            &name,
        ]);
        let record = out.json();
        (record["isError"] == true, text_of(&record))
    };
    let inside = s.ctx.work.join("server-wrote.txt");
    let write_outside = json!({"path": s.outside});
    let write_inside = json!({"path": inside});

    // read-only, no network: nothing written, nothing reached.
    entry(json!({"profile": "read-only", "network": false}));
    let (failed, text) = call("write", write_inside.clone());
    assert!(failed && text.contains("EACCES"), "{text}");
    let (failed, text) = call("write", write_outside.clone());
    assert!(failed && text.contains("EACCES"), "{text}");
    let (failed, text) = call("connect", json!({ "port": port }));
    assert!(failed && text.contains("EPERM"), "{text}");
    assert_eq!(s.connections(), 0);
    assert!(!inside.exists() && !s.outside.exists());

    // workspace-write with the network: the workspace and the listener, never outside.
    entry(json!({"profile": "workspace-write", "network": true}));
    assert_eq!(call("write", write_inside.clone()), (false, "wrote".into()));
    assert!(inside.exists());
    let (failed, text) = call("write", write_outside.clone());
    assert!(failed && text.contains("EACCES"), "{text}");
    assert_eq!(
        call("connect", json!({ "port": port })),
        (false, "connected".into())
    );
    assert_eq!(s.connections(), 1);
    assert!(!s.outside.exists());

    // Without the entry, the server runs as before: unconfined.
    entry(Value::Null);
    assert_eq!(call("write", write_outside), (false, "wrote".into()));
    assert!(s.outside.exists());

    // A bad entry is a problem naming it, and nothing starts.
    entry(json!({"profile": "everything"}));
    let out = s.ctx.run(&["mcp", "list", "--json"]);
    assert!(
        out.stdout().contains("is not read-only or workspace-write")
            || out.stderr().contains("is not read-only or workspace-write"),
        "{out}"
    );
}
