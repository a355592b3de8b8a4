//! Network by host (issue 42) through the real binary: two loopback listeners the test owns,
//! A (listed) and B (not), each counting the connections it accepts and answering HTTP. A
//! tree with a host list runs in a network namespace of its own whose only way out is finch's
//! proxy: B never sees a connection unless a grant lists it, whatever the program does
//! (`fetch`, `http.get`, a raw `net.connect` that ignores every proxy, `curl --noproxy`). These
//! tests fail, never skip, where user and network namespaces exist (here and in CI).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::fixtures::MiniTool;
use crate::common::{Run, TestContext};

const NET: &str = include_str!("fixtures/minitools/net.mjs");

/// A loopback HTTP listener answering `<name>!` to every request, counting connections.
struct Listener {
    port: u16,
    count: Arc<AtomicUsize>,
}

impl Listener {
    fn start(name: &'static str) -> Listener {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let count = Arc::new(AtomicUsize::new(0));
        let seen = count.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                seen.fetch_add(1, Ordering::SeqCst);
                std::thread::spawn(move || {
                    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                    let mut head = Vec::new();
                    let mut byte = [0u8; 1];
                    while !head.ends_with(b"\r\n\r\n") && head.len() < 65536 {
                        match stream.read(&mut byte) {
                            Ok(1) => head.push(byte[0]),
                            _ => break,
                        }
                    }
                    let body = format!("{name}!");
                    let _ = write!(
                        stream,
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                });
            }
        });
        Listener { port, count }
    }

    fn connections(&self) -> usize {
        // A connection made a moment ago is counted once accepted.
        std::thread::sleep(Duration::from_millis(100));
        self.count.load(Ordering::SeqCst)
    }
}

struct Scene {
    ctx: TestContext,
    a: Listener,
    b: Listener,
}

impl Scene {
    fn new() -> Scene {
        Scene {
            ctx: TestContext::new(),
            a: Listener::start("A"),
            b: Listener::start("B"),
        }
    }

    /// The fixture with `permissions`, at `<base>/src/<id>`.
    fn minitool(&self, id: &str, permissions: Value) -> PathBuf {
        let dir = self.ctx.base().join("src").join(id);
        MiniTool::new(id, "1.0.0")
            .entry_source(NET)
            .finch_field("contributes", json!({"tools": true}))
            .finch_field("permissions", permissions)
            .write_to(&dir);
        dir
    }

    /// `finch tool call <id>_reach <args> --json` with the fixture loaded from `dir`.
    fn reach(&self, dir: &Path, id: &str, args: Value) -> Run {
        let tool = format!("{id}_reach");
        self.ctx.run(&[
            "tool",
            "call",
            &tool,
            &args.to_string(),
            "--json",
            "--approve",
            &tool,
            "--minitool",
            &dir.display().to_string(),
        ])
    }

    fn url_a(&self, host: &str) -> String {
        format!("http://{host}:{}/", self.a.port)
    }

    fn url_b(&self) -> String {
        format!("http://127.0.0.1:{}/", self.b.port)
    }
}

fn text_of(record: &Value) -> String {
    record["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_kernel_here_can_hold_host_lists() {
    let ctx = TestContext::new();
    ctx.run(&["sandbox", "status"])
        .success()
        .stdout_has("hosts    enforced");
}

#[test]
fn sandbox_run_with_a_host_reaches_it_through_the_proxy_and_nothing_else() {
    let s = Scene::new();
    let a = format!("127.0.0.1:{}", s.a.port);
    let script = format!(
        "curl -sS --max-time 5 {}; echo; \
         curl -sS --max-time 5 {}; echo; \
         curl -sS --max-time 5 --noproxy '*' {} || echo direct-b-failed",
        s.url_a("127.0.0.1"),
        s.url_b(),
        s.url_b()
    );
    let out = s
        .ctx
        .run(&["sandbox", "run", "--host", &a, "--", "bash", "-c", &script]);
    out.success();
    let stdout = out.stdout();
    assert!(stdout.contains("A!"), "{stdout}\n{}", out.stderr());
    // Plain HTTP: curl prints the proxy's refusal, which names what to change.
    assert!(
        stdout.contains("finch's proxy refused 127.0.0.1:") && stdout.contains("--host"),
        "{stdout}"
    );
    assert!(stdout.contains("direct-b-failed"), "{stdout}");
    assert!(!stdout.contains("B!"), "{stdout}");
    assert_eq!(s.a.connections(), 1);
    assert_eq!(s.b.connections(), 0, "B was reached");
    // Every attempt is in the audit log.
    let log = s.ctx.run(&["sandbox", "log", "--json", "--id", "run"]);
    let entries = log.success().json();
    let verdicts: Vec<(String, String)> = entries
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["target"].as_str().unwrap().to_string(),
                e["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            (a.clone(), "allowed".to_string()),
            (format!("127.0.0.1:{}", s.b.port), "refused".to_string())
        ]
    );
    s.ctx
        .run(&["sandbox", "log", "--id", "run", "--since", "1h"])
        .success()
        .stdout_has(&format!(" run {a} allowed (127.0.0.1)"));
    s.ctx
        .run(&["sandbox", "log", "--since", "soon"])
        .failure(2)
        .stderr_has("--since \"soon\"");
}

#[test]
fn a_mini_tool_with_a_host_list_reaches_only_those_hosts_whatever_it_calls() {
    let s = Scene::new();
    let listed = format!("localhost:{}", s.a.port);
    let dir = s.minitool("net", json!({"network": true, "networkHosts": [listed]}));
    // fetch and http.get by the listed name: through the proxy, to A.
    for how in ["fetch", "http"] {
        let out = s.reach(
            &dir,
            "net",
            json!({"how": how, "url": s.url_a("localhost")}),
        );
        let record = out.json();
        assert_eq!(
            record["isError"],
            false,
            "{how}: {record}\n{}",
            out.stderr()
        );
        assert!(text_of(&record).contains("A!"), "{how}: {record}");
    }
    assert_eq!(s.a.connections(), 2);
    // A name entry does not let an address through, even to the same listener.
    let out = s.reach(
        &dir,
        "net",
        json!({"how": "fetch", "url": s.url_a("127.0.0.1")}),
    );
    let record = out.json();
    assert_eq!(record["isError"], true, "{record}");
    let text = text_of(&record);
    assert!(text.contains("permissions.networkHosts"), "{text}");
    assert!(
        text.contains(&format!(
            "finch sandbox grant net host=127.0.0.1:{}",
            s.a.port
        )),
        "{text}"
    );
    assert_eq!(s.a.connections(), 2, "A was reached by address");
    // B: refused by fetch and http.get, unreachable by a raw socket.
    for how in ["fetch", "http", "net"] {
        let out = s.reach(
            &dir,
            "net",
            json!({"how": how, "url": s.url_b(), "port": s.b.port}),
        );
        assert_eq!(out.json()["isError"], true, "{how}: {}", out.stdout());
    }
    assert_eq!(s.b.connections(), 0, "B was reached");
    // A grant lists B; a revoke takes it back.
    let grant = format!("host=127.0.0.1:{}", s.b.port);
    s.ctx
        .run(&["sandbox", "grant", "net", &grant])
        .success()
        .stdout_has(&format!("hosts=127.0.0.1:{}", s.b.port));
    let out = s.reach(&dir, "net", json!({"how": "http", "url": s.url_b()}));
    assert!(text_of(&out.json()).contains("B!"), "{}", out.stdout());
    assert_eq!(s.b.connections(), 1);
    s.ctx.run(&["sandbox", "revoke", "net", &grant]).success();
    let out = s.reach(&dir, "net", json!({"how": "fetch", "url": s.url_b()}));
    assert_eq!(out.json()["isError"], true, "{}", out.stdout());
    assert_eq!(s.b.connections(), 1);
    // The audit log has each attempt under the mini tool's id.
    let entries = s
        .ctx
        .run(&["sandbox", "log", "--json", "--id", "net"])
        .success()
        .json();
    let verdicts: Vec<&str> = entries
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(
        verdicts,
        [
            "allowed", "allowed", "refused", "refused", "refused", "allowed", "refused"
        ]
    );
}

#[test]
fn network_true_without_a_list_and_network_false_are_as_before() {
    let s = Scene::new();
    let open = s.minitool("open", json!({"network": true}));
    let out = s.reach(&open, "open", json!({"how": "fetch", "url": s.url_b()}));
    assert!(text_of(&out.json()).contains("B!"), "{}", out.stdout());
    assert_eq!(s.b.connections(), 1);
    let closed = s.minitool("closed", json!({"network": false}));
    for how in ["fetch", "http", "net"] {
        let out = s.reach(
            &closed,
            "closed",
            json!({"how": how, "url": s.url_b(), "port": s.b.port}),
        );
        assert_eq!(out.json()["isError"], true, "{how}: {}", out.stdout());
    }
    assert_eq!(s.b.connections(), 1);
}

#[test]
fn approved_bash_under_sandbox_hosts_reaches_only_those() {
    let s = Scene::new();
    s.ctx.write_config(&format!(
        "[sandbox]\nhosts = [\"127.0.0.1:{}\"]\n",
        s.a.port
    ));
    let command = format!(
        "curl -sS --max-time 5 {}; echo; curl -sS --max-time 5 {}; curl -sS --max-time 5 --noproxy '*' {}; true",
        s.url_a("127.0.0.1"),
        s.url_b(),
        s.url_b()
    );
    let args = json!({ "command": command }).to_string();
    let out = s
        .ctx
        .run(&["tool", "call", "Bash", &args, "--json", "--approve", "Bash"]);
    let record = out.json();
    let text = text_of(&record);
    assert!(text.contains("A!"), "{record}\n{}", out.stderr());
    assert!(!text.contains("B!"), "{text}");
    assert!(
        text.contains("approved commands may reach only the hosts [sandbox] hosts lists"),
        "{text}"
    );
    assert_eq!(s.a.connections(), 1);
    assert_eq!(s.b.connections(), 0, "B was reached");
}

#[test]
fn grants_of_hosts_are_checked_shown_and_taken_back() {
    let s = Scene::new();
    let dir = s.minitool(
        "net",
        json!({"network": true, "networkHosts": ["api.example.com:443"]}),
    );
    s.ctx.run(&["add", &dir.display().to_string()]).success();
    s.ctx.run(&["enable", "net"]).success();
    s.ctx
        .run(&["sandbox", "grant", "net", "host=https://x"])
        .failure(2)
        .stderr_has("not a host pattern");
    s.ctx
        .run(&[
            "sandbox",
            "grant",
            "net",
            "host=*.example.org:443",
            "--json",
        ])
        .success();
    let info = s
        .ctx
        .run(&["tool", "info", "net_reach", "--json"])
        .success()
        .json();
    let sandbox = &info["sandbox"];
    assert_eq!(
        sandbox["hosts"],
        json!(["api.example.com:443", "*.example.org:443"]),
        "{info}"
    );
    assert_eq!(sandbox["hostsStatus"], "enforced");
    assert_eq!(sandbox["grants"]["hosts"], json!(["*.example.org:443"]));
    s.ctx
        .run(&["sandbox", "revoke", "net", "host=*.example.org:443"])
        .success()
        .stdout_has("net has no grants");
}

#[test]
fn through_run_jsonl_a_listed_host_answers_and_an_unlisted_one_is_refused_with_the_grant() {
    let s = Scene::new();
    let listed = format!("127.0.0.1:{}", s.a.port);
    let dir = s.minitool("net", json!({"network": true, "networkHosts": [listed]}));
    let dir = dir.display().to_string();
    let requests = [
        json!({"id": "a", "tool": "net_reach", "arguments": {"how": "fetch", "url": s.url_a("127.0.0.1")}}),
        json!({"id": "b", "tool": "net_reach", "arguments": {"how": "http", "url": s.url_b()}}),
        json!({"id": "raw", "tool": "net_reach", "arguments": {"how": "net", "port": s.b.port}}),
    ];
    let (lines, run) = s.ctx.jsonl(
        &[
            "--mode",
            "acceptCalls",
            "--minitool",
            &dir,
            "--approve",
            "net_reach",
        ],
        &requests,
    );
    let answer = |id: &str| {
        lines
            .iter()
            .find(|l| l["id"] == id && l.get("progress").is_none())
            .cloned()
            .unwrap_or_else(|| panic!("no answer to {id}: {lines:?}\n{run}"))
    };
    assert!(text_of(&answer("a")).contains("A!"), "{}", answer("a"));
    let b = answer("b");
    assert_eq!(b["isError"], true, "{b}");
    assert!(
        text_of(&b).contains(&format!(
            "finch sandbox grant net host=127.0.0.1:{}",
            s.b.port
        )),
        "{b}"
    );
    assert_eq!(answer("raw")["isError"], true);
    assert_eq!(s.a.connections(), 1);
    assert_eq!(s.b.connections(), 0, "B was reached");
}

#[test]
fn through_serve_mcp_a_listed_host_answers_and_an_unlisted_one_is_refused() {
    let s = Scene::new();
    let listed = format!("127.0.0.1:{}", s.a.port);
    let dir = s.minitool("net", json!({"network": true, "networkHosts": [listed]}));
    let dir = dir.display().to_string();
    let steps = vec![
        crate::serve_mcp::call("ToolSearch", json!({"query": "reaches a URL"})),
        crate::serve_mcp::call(
            "net_reach",
            json!({"how": "http", "url": s.url_a("127.0.0.1")}),
        ),
        crate::serve_mcp::call("net_reach", json!({"how": "fetch", "url": s.url_b()})),
        crate::serve_mcp::call("net_reach", json!({"how": "net", "port": s.b.port})),
    ];
    let report = crate::serve_mcp::serve(
        &s.ctx,
        json!({"elicitation": null, "steps": steps}),
        &[
            "--mode",
            "acceptCalls",
            "--minitool",
            &dir,
            "--approve",
            "net_reach",
        ],
    );
    assert!(report.text(1).contains("A!"), "{}", report.text(1));
    assert_eq!(report.result(2)["isError"], true);
    assert!(
        report.text(2).contains("permissions.networkHosts"),
        "{}",
        report.text(2)
    );
    assert_eq!(report.result(3)["isError"], true);
    assert_eq!(s.a.connections(), 1);
    assert_eq!(s.b.connections(), 0, "B was reached");
}
