//! Integration tests of the built-ins besides the file tools (SPEC §8.6): `Bash`, `WebFetch`,
//! `WebSearch`, `AskUserQuestion`, `TodoWrite` and `Skill`, through `finch tool call` and
//! `finch run --jsonl`. Web tools talk to a loopback HTTP server each test starts.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Run, TestContext};

// ---------------------------------------------------------------------------------------------
// A loopback HTTP server

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    /// The request target, query included.
    target: String,
    /// Header names lowercased.
    headers: Vec<(String, String)>,
}

impl Seen {
    fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What the server answers.
struct Reply {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
    /// Announce `Content-Length` (else the body ends when the connection closes).
    length: bool,
}

impl Reply {
    fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
        Reply {
            status,
            headers: vec![("Content-Type", content_type.to_string())],
            body: body.into(),
            length: true,
        }
    }

    fn redirect(to: &str) -> Reply {
        Reply {
            status: 302,
            headers: vec![("Location", to.to_string())],
            body: Vec::new(),
            length: true,
        }
    }
}

type Handler = dyn Fn(&Seen) -> Reply + Send + Sync;

/// An HTTP/1.1 server on 127.0.0.1 that answers each request with `handler` and closes the
/// connection; it lives until the test process ends.
struct Server {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    fn start(handler: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the test server");
        let base = format!("http://{}", listener.local_addr().expect("address"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let log = Arc::clone(&seen);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let handler = Arc::clone(&handler);
                let log = Arc::clone(&log);
                std::thread::spawn(move || serve(stream, &*handler, &log));
            }
        });
        Server { base, seen }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, handler: &Handler, log: &Mutex<Vec<Seen>>) {
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let target = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((n, v)) = h.split_once(':') {
            headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let seen = Seen { target, headers };
    log.lock().unwrap().push(seen.clone());
    let reply = handler(&seen);
    let mut head = format!("HTTP/1.1 {} X\r\nConnection: close\r\n", reply.status);
    for (n, v) in &reply.headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    if reply.length {
        head.push_str(&format!("Content-Length: {}\r\n", reply.body.len()));
    }
    head.push_str("\r\n");
    let mut stream = stream;
    // The client may hang up early (a body over the size cap): nothing to do about it.
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&reply.body);
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

// ---------------------------------------------------------------------------------------------
// Helpers

/// `finch tool call <tool> <json> --json` with extra flags.
fn call_with(ctx: &TestContext, tool: &str, args: Value, extra: &[&str]) -> Run {
    let args = args.to_string();
    let mut argv = vec!["tool", "call", tool, args.as_str(), "--json"];
    argv.extend_from_slice(extra);
    ctx.run(&argv)
}

fn accept(ctx: &TestContext, tool: &str, args: Value) -> Run {
    call_with(ctx, tool, args, &["--mode", "acceptCalls"])
}

/// The text of a call record.
fn text(record: &Value) -> String {
    record["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[track_caller]
fn tool_error(run: &Run, needle: &str) -> Value {
    run.failure(1);
    let record = run.json();
    assert_eq!(record["isError"], true, "{run}");
    assert_eq!(record["failure"], "toolError", "{run}");
    assert!(text(&record).contains(needle), "lacks {needle:?}:\n{run}");
    record
}

// ---------------------------------------------------------------------------------------------
// Bash

#[test]
fn bash_runs_a_read_only_command_in_the_session_cwd() {
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("notes.txt"), "x").unwrap();
    let run = accept(&ctx, "Bash", json!({"command": "ls; echo warn >&2"}));
    run.success();
    let record = run.json();
    assert_eq!(record["decision"], "allow");
    assert_eq!(record["isError"], false);
    assert_eq!(
        record["structuredContent"],
        json!({"exitCode": 0, "stdout": "notes.txt\n", "stderr": "warn\n", "timedOut": false, "outputCut": false, "sandbox": "read-only"})
    );
    assert_eq!(
        text(&record),
        "stdout:\nnotes.txt\nstderr:\nwarn\nexit code: 0"
    );

    // --cwd moves the session, and the command with it.
    let other = ctx.base().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let other_s = other.display().to_string();
    let run = call_with(
        &ctx,
        "Bash",
        json!({"command": "pwd"}),
        &["--mode", "acceptCalls", "--cwd", &other_s],
    );
    run.success();
    assert_eq!(
        run.json()["structuredContent"]["stdout"],
        format!("{other_s}\n")
    );
}

#[test]
fn bash_non_zero_exit_is_reported_not_an_error() {
    let ctx = TestContext::new();
    let run = accept(&ctx, "Bash", json!({"command": "grep -q needle /dev/null"}));
    run.success();
    let record = run.json();
    assert_eq!(record["isError"], false);
    assert_eq!(record["structuredContent"]["exitCode"], 1);
    assert_eq!(text(&record), "(no output)\nexit code: 1");
}

#[test]
fn bash_that_writes_is_refused_without_a_person_unless_approved() {
    let ctx = TestContext::new();
    let args = json!({"command": "touch made.txt", "description": "make a file"});
    let run = accept(&ctx, "Bash", args.clone());
    run.failure(4);
    let record = run.json();
    assert_eq!(record["failure"], "refused");
    assert_eq!(record["decision"], "deny");
    assert!(!ctx.work.join("made.txt").exists());

    let run = call_with(&ctx, "Bash", args, &["--approve", "Bash"]);
    run.success();
    assert_eq!(run.json()["decidedBy"], "approveFlag");
    assert!(ctx.work.join("made.txt").exists());
}

#[test]
fn bash_timeout_stops_the_command() {
    let ctx = TestContext::new();
    let started = Instant::now();
    let run = accept(
        &ctx,
        "Bash",
        json!({"command": "echo started; sleep 20", "timeout": 300}),
    );
    assert!(started.elapsed() < Duration::from_secs(10), "{run}");
    let record = tool_error(&run, "Timed out after 300 ms");
    assert_eq!(record["structuredContent"]["timedOut"], true);
    assert_eq!(record["structuredContent"]["stdout"], "started\n");
    assert!(text(&record).contains("larger `timeout`"));
}

#[test]
fn bash_default_timeout_comes_from_settings() {
    let ctx = TestContext::new();
    ctx.write_config("[host]\nbash_timeout = \"400ms\"\n");
    let run = accept(&ctx, "Bash", json!({"command": "sleep 20"}));
    tool_error(&run, "Timed out after 400 ms");
}

#[test]
fn bash_that_cannot_start_says_so() {
    let ctx = TestContext::new();
    let run = Run(ctx
        .cmd()
        .args([
            "tool",
            "call",
            "Bash",
            "{\"command\":\"echo hi\"}",
            "--json",
            "--mode",
            "acceptCalls",
        ])
        .env("PATH", "")
        .output()
        .unwrap());
    tool_error(&run, "Cannot start bash:");
}

#[test]
fn bash_timeout_over_ten_minutes_is_invalid() {
    let ctx = TestContext::new();
    let run = accept(&ctx, "Bash", json!({"command": "true", "timeout": 600_001}));
    run.failure(1);
    let record = run.json();
    assert_eq!(record["failure"], "invalidArguments");
    assert!(text(&record).contains("/timeout"), "{run}");
}

#[test]
fn bash_long_output_is_cut_in_the_middle() {
    let ctx = TestContext::new();
    let run = accept(&ctx, "Bash", json!({"command": "seq 1 50000"}));
    run.success();
    let record = run.json();
    let t = text(&record);
    assert!(t.starts_with("stdout:\n1\n2\n"), "{t:.100}");
    assert!(
        t.contains("bytes cut: the stream had 288894 bytes"),
        "{t:.100}"
    );
    assert!(t.ends_with("\n50000\nexit code: 0"));
    assert!(t.len() < 31_000);
    assert_eq!(record["structuredContent"]["outputCut"], true);
}

// ---------------------------------------------------------------------------------------------
// WebFetch

const ARTICLE: &str = "<!DOCTYPE html><html><head><title>Bird notes</title>\
<style>body{color:red}</style><script>var tracking = 1;</script></head><body>\
<nav><a href=\"/\">Home</a> <a href=\"/menu\">Site menu</a></nav>\
<article><h1>Bird notes</h1>\
<p>Finches are small passerine birds with stout conical bills adapted to eating seeds, and they \
are found across most of the world except Australia and the polar regions.</p>\
<p>They often live in flocks, sing in complex patterns, and many species are kept as pets; the \
<a href=\"/darwin\">Galapagos finches</a> are famous for what they taught about evolution.</p>\
<p>Their plumage varies from dull brown to the bright reds and yellows of goldfinches and \
crossbills, and males are usually more colourful than females.</p>\
</article><footer>Footer text 2024</footer></body></html>";

fn web_server() -> Server {
    Server::start(|req| {
        let path = req.path().to_string();
        match path.as_str() {
            "/article" => Reply::new(200, "text/html; charset=utf-8", ARTICLE),
            "/old" => Reply::redirect("/article"),
            "/to-ftp" => Reply::redirect("ftp://example.com/file"),
            "/plain" => Reply::new(200, "text/plain", "line one\n  <b>not html</b>\n"),
            "/data.json" => Reply::new(200, "application/json", "{\"a\": [1, 2]}"),
            "/image.png" => Reply::new(200, "image/png", b"\x89PNG\r\n\x1a\n\0\0".to_vec()),
            "/big" => Reply::new(200, "text/plain", vec![b'a'; 6 * 1024 * 1024]),
            "/big-stream" => Reply {
                length: false,
                ..Reply::new(200, "text/plain", vec![b'a'; 6 * 1024 * 1024])
            },
            "/missing" => Reply::new(
                404,
                "text/html",
                "<html><body><h1>No such page</h1></body></html>",
            ),
            p if p.starts_with("/hop/") => {
                let n: u32 = p["/hop/".len()..].parse().unwrap_or(0);
                Reply::redirect(&format!("/hop/{}", n + 1))
            }
            _ => Reply::new(404, "text/plain", "not found"),
        }
    })
}

#[test]
fn web_fetch_turns_html_into_markdown_of_the_main_content() {
    let ctx = TestContext::new();
    let server = web_server();
    let url = server.url("/article");
    let run = accept(
        &ctx,
        "WebFetch",
        json!({"url": url, "prompt": "what do finches eat?"}),
    );
    run.success();
    let record = run.json();
    let t = text(&record);
    assert!(
        t.starts_with(&format!(
            "URL: {url}\nTitle: Bird notes\nContent: text/html; charset=utf-8, main content as Markdown\n\n"
        )),
        "{t}"
    );
    assert!(t.contains("stout conical bills"));
    assert!(
        t.contains(&format!("[Galapagos finches]({})", server.url("/darwin"))),
        "{t}"
    );
    for absent in ["Site menu", "var tracking", "color:red"] {
        assert!(!t.contains(absent), "{absent} in {t}");
    }
    let s = &record["structuredContent"];
    assert_eq!(s["status"], 200);
    assert_eq!(s["format"], "markdown");
    assert_eq!(s["mainContent"], true);
    assert_eq!(s["truncated"], false);
    assert_eq!(
        server.seen()[0]
            .header("user-agent")
            .map(|u| u.starts_with("finch/")),
        Some(true)
    );
}

#[test]
fn web_fetch_follows_redirects_and_says_so() {
    let ctx = TestContext::new();
    let server = web_server();
    let run = accept(&ctx, "WebFetch", json!({"url": server.url("/old")}));
    run.success();
    let record = run.json();
    assert!(text(&record).starts_with(&format!(
        "URL: {}\nRedirected from: {}\n",
        server.url("/article"),
        server.url("/old")
    )));
    assert_eq!(
        record["structuredContent"]["finalUrl"],
        server.url("/article")
    );
    let paths: Vec<String> = server.seen().iter().map(|s| s.path().to_string()).collect();
    assert_eq!(paths, ["/old", "/article"]);
}

#[test]
fn web_fetch_stops_after_ten_redirects() {
    let ctx = TestContext::new();
    let server = web_server();
    let run = accept(&ctx, "WebFetch", json!({"url": server.url("/hop/0")}));
    tool_error(&run, "more than 10 redirects");
    assert_eq!(server.seen().len(), 11);
}

#[test]
fn web_fetch_refuses_a_redirect_to_another_scheme() {
    let ctx = TestContext::new();
    let server = web_server();
    let run = accept(&ctx, "WebFetch", json!({"url": server.url("/to-ftp")}));
    tool_error(
        &run,
        "a redirect to ftp://example.com/file, which is not an http(s) URL",
    );
}

#[test]
fn web_fetch_refuses_other_schemes() {
    let ctx = TestContext::new();
    for (url, needle) in [
        (
            "file:///etc/hostname",
            "is a file: URL. Use Read for local files.",
        ),
        ("ftp://127.0.0.1/x", "http and https URLs only"),
        ("not a url", "is not a URL"),
    ] {
        let run = accept(&ctx, "WebFetch", json!({"url": url}));
        tool_error(&run, needle);
    }
}

#[test]
fn web_fetch_caps_the_body_size() {
    let ctx = TestContext::new();
    let server = web_server();
    // Announced by Content-Length, and found out while reading.
    for path in ["/big", "/big-stream"] {
        let run = accept(&ctx, "WebFetch", json!({"url": server.url(path)}));
        tool_error(&run, "is too large: WebFetch reads at most 5 MiB");
    }
}

#[test]
fn web_fetch_returns_text_and_json_as_they_are() {
    let ctx = TestContext::new();
    let server = web_server();
    let run = accept(&ctx, "WebFetch", json!({"url": server.url("/plain")}));
    run.success();
    let t = text(&run.json());
    assert!(t.ends_with("\n\nline one\n  <b>not html</b>\n"), "{t}");
    assert!(t.contains("Content: text/plain, as served\n"));

    let run = accept(&ctx, "WebFetch", json!({"url": server.url("/data.json")}));
    run.success();
    let record = run.json();
    assert!(text(&record).ends_with("\n\n{\"a\": [1, 2]}"));
    assert_eq!(record["structuredContent"]["format"], "text");
}

#[test]
fn web_fetch_refuses_binary_and_reports_http_errors() {
    let ctx = TestContext::new();
    let server = web_server();
    let run = accept(&ctx, "WebFetch", json!({"url": server.url("/image.png")}));
    tool_error(&run, "is image/png (10 bytes), not text");

    let run = accept(&ctx, "WebFetch", json!({"url": server.url("/missing")}));
    let record = tool_error(&run, "HTTP 404 Not Found from");
    assert!(
        text(&record).contains("The server said:\n# No such page"),
        "{run}"
    );
}

#[test]
fn web_fetch_gives_up_on_a_silent_server_after_the_read_timeout() {
    let ctx = TestContext::new();
    ctx.write_config("[network]\ntimeout = \"300ms\"\n");
    let server = Server::start(|_| {
        std::thread::sleep(Duration::from_secs(5));
        Reply::new(200, "text/plain", "late")
    });
    let started = Instant::now();
    let run = accept(&ctx, "WebFetch", json!({"url": server.url("/slow")}));
    assert!(started.elapsed() < Duration::from_secs(4), "{run}");
    tool_error(&run, "timed out");
}

#[test]
fn web_fetch_reports_an_unreachable_host() {
    let ctx = TestContext::new();
    // A port nobody listens on: bind one, then let it go.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let run = accept(
        &ctx,
        "WebFetch",
        json!({"url": format!("http://127.0.0.1:{port}/")}),
    );
    tool_error(&run, "Cannot fetch http://127.0.0.1");
}

// ---------------------------------------------------------------------------------------------
// WebSearch

#[test]
fn web_search_asks_searxng() {
    let ctx = TestContext::new();
    let server = Server::start(|req| {
        assert_eq!(req.path(), "/search");
        Reply::new(
            200,
            "application/json",
            json!({"query": "finch", "results": [
                {"title": "Finch - Wikipedia", "url": "https://en.wikipedia.org/wiki/Finch", "content": "Finches are <b>small</b> birds."},
                {"title": "Second", "url": "https://two.example/", "content": ""},
                {"title": "Third", "url": "https://three.example/", "content": "three"}
            ]})
            .to_string(),
        )
    });
    ctx.write_config(&format!(
        "[web_search]\nprovider = \"searxng\"\nurl = \"{}/\"\n",
        server.base
    ));
    let run = accept(
        &ctx,
        "WebSearch",
        json!({"query": "finch birds", "limit": 2}),
    );
    run.success();
    let record = run.json();
    assert_eq!(
        text(&record),
        "2 results for \"finch birds\" (searxng):\n\n\
         1. Finch - Wikipedia\n   https://en.wikipedia.org/wiki/Finch\n   Finches are small birds.\n\n\
         2. Second\n   https://two.example/"
    );
    assert_eq!(record["structuredContent"]["provider"], "searxng");
    assert_eq!(
        record["structuredContent"]["results"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(server.seen()[0].target, "/search?q=finch+birds&format=json");
}

#[test]
fn web_search_sends_brave_its_key_and_count() {
    let ctx = TestContext::new();
    let server = Server::start(|_| {
        Reply::new(
            200,
            "application/json",
            json!({"type": "search", "web": {"results": [
                {"title": "Brave hit", "url": "https://brave.example/", "description": "<strong>finch</strong> &amp; co"}
            ]}})
            .to_string(),
        )
    });
    ctx.write_config(&format!(
        "[web_search]\nprovider = \"brave\"\nurl = \"{}/res/v1/web/search\"\napi_key_env = \"TEST_BRAVE_KEY\"\n",
        server.base
    ));
    let args = json!({"query": "finch", "limit": 3}).to_string();
    let run = Run(ctx
        .cmd()
        .args([
            "tool",
            "call",
            "WebSearch",
            &args,
            "--json",
            "--mode",
            "acceptCalls",
        ])
        .env("TEST_BRAVE_KEY", "k-123")
        .output()
        .unwrap());
    run.success();
    assert_eq!(
        text(&run.json()),
        "1 result for \"finch\" (brave):\n\n1. Brave hit\n   https://brave.example/\n   finch & co"
    );
    let seen = server.seen();
    assert_eq!(seen[0].target, "/res/v1/web/search?q=finch&count=3");
    assert_eq!(seen[0].header("x-subscription-token"), Some("k-123"));
    assert_eq!(seen[0].header("accept"), Some("application/json"));
    assert!(!run.stdout().contains("k-123"));
}

#[test]
fn web_search_reports_a_rejected_key() {
    let ctx = TestContext::new();
    let server = Server::start(|_| Reply::new(401, "application/json", "{\"error\":\"bad key\"}"));
    ctx.write_config(&format!(
        "[web_search]\nprovider = \"brave\"\nurl = \"{}/\"\n",
        server.base
    ));
    let run = Run(ctx
        .cmd()
        .args([
            "tool",
            "call",
            "WebSearch",
            "{\"query\":\"x\"}",
            "--json",
            "--mode",
            "acceptCalls",
        ])
        .env("BRAVE_API_KEY", "wrong")
        .output()
        .unwrap());
    tool_error(
        &run,
        "answered HTTP 401 Unauthorized. Brave Search rejected the API key in BRAVE_API_KEY",
    );
    assert!(!run.stdout().contains("wrong"));
}

#[test]
fn web_search_without_a_provider_names_the_setting() {
    let ctx = TestContext::new();
    let run = accept(&ctx, "WebSearch", json!({"query": "x"}));
    let record = tool_error(
        &run,
        "WebSearch has no search provider configured. Set `[web_search] provider` in ",
    );
    let t = text(&record);
    assert!(
        t.contains(&ctx.runtime.join("config/finch.toml").display().to_string()),
        "{t}"
    );
    assert!(t.contains("[web_search]\nprovider = \"searxng\"\nurl = \"http://127.0.0.1:8888\""));
}

#[test]
fn web_search_configuration_errors() {
    let cases = [
        (
            "[web_search]\nprovider = \"brave\"\napi_key_env = \"NO_SUCH_KEY\"\n",
            "needs an API key in the environment variable NO_SUCH_KEY, which is not set",
        ),
        (
            "[web_search]\nprovider = \"altavista\"\n",
            "`[web_search] provider = \"altavista\"` in ",
        ),
        (
            "[web_search]\nprovider = \"searxng\"\n",
            "`[web_search] provider = \"searxng\"` needs `url`",
        ),
    ];
    for (config, needle) in cases {
        let ctx = TestContext::new();
        ctx.write_config(config);
        let run = accept(&ctx, "WebSearch", json!({"query": "x"}));
        tool_error(&run, needle);
    }
}

// ---------------------------------------------------------------------------------------------
// AskUserQuestion

#[test]
fn ask_user_question_without_a_person_says_to_proceed() {
    let ctx = TestContext::new();
    let args = json!({
        "question": "Which database?",
        "header": "Database",
        "options": [{"label": "SQLite", "description": "one file"}, {"label": "Postgres"}]
    });
    // autoAllow: no card, even in ask mode.
    let run = ctx.call("AskUserQuestion", args);
    let record = tool_error(&run, "Nobody can answer questions in this run");
    assert_eq!(record["decision"], "allow");
    assert!(text(&record).contains("ask the question in your reply instead"));
}

#[test]
fn ask_user_question_checks_its_options() {
    let ctx = TestContext::new();
    let run = ctx.call(
        "AskUserQuestion",
        json!({"question": "?", "options": [{"label": "A"}, {"label": "A"}]}),
    );
    tool_error(&run, "Two options have the label \"A\"");

    let run = ctx.call(
        "AskUserQuestion",
        json!({"question": "?", "options": [{"label": "only one"}]}),
    );
    run.failure(1);
    assert_eq!(run.json()["failure"], "invalidArguments");
}

// ---------------------------------------------------------------------------------------------
// TodoWrite

#[test]
fn todo_write_keeps_the_list_in_the_transcript() {
    let ctx = TestContext::new();
    let todos = json!([
        {"content": "Read the spec", "status": "completed"},
        {"content": "Write the tool", "status": "in_progress", "activeForm": "Writing the tool"},
        {"content": "Test it", "status": "pending"}
    ]);
    let (responses, run) = ctx.jsonl(
        &[],
        &[
            json!({"id": 1, "tool": "TodoWrite", "arguments": {"todos": todos}}),
            json!({"id": 2, "tool": "TodoWrite", "arguments": {"todos": [
                {"content": "A", "status": "in_progress"},
                {"content": "B", "status": "in_progress"}
            ]}}),
        ],
    );
    assert_eq!(responses.len(), 2, "{run}");
    assert_eq!(responses[0]["isError"], false);
    assert_eq!(
        text(&responses[0]),
        "To-do list (3 items: 1 completed, 1 in progress, 1 pending):\n\
         - [x] Read the spec\n\
         - [~] Write the tool (in progress: Writing the tool)\n\
         - [ ] Test it"
    );
    assert_eq!(responses[1]["isError"], true);
    assert!(text(&responses[1]).contains("at most one may be"));

    let transcripts = ctx.transcripts();
    assert_eq!(transcripts.len(), 1);
    let entries: Vec<Value> = std::fs::read_to_string(&transcripts[0])
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["customType"] == "finch.todos")
        .collect();
    // Only the accepted list was recorded.
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["data"], json!({"todos": todos}));
    assert_eq!(ctx.tool_calls(&transcripts[0]).len(), 2);
}

// ---------------------------------------------------------------------------------------------
// Skill

fn write_skill(dir: &std::path::Path, name: &str, body: &str) {
    std::fs::create_dir_all(dir.join(name)).unwrap();
    std::fs::write(dir.join(name).join("SKILL.md"), body).unwrap();
}

#[test]
fn skill_returns_the_winning_skill_md() {
    let ctx = TestContext::new();
    let body = "---\nname: release\ndescription: Cut a release\n---\n# Release\nRun the checks.\n";
    write_skill(&ctx.agent.join("skills"), "release", body);
    write_skill(
        &ctx.runtime.join("skills"),
        "release",
        "---\nname: release\n---\nshadowed\n",
    );
    let run = ctx.call("Skill", json!({"name": "release", "args": "v1.2"}));
    run.success();
    let record = run.json();
    assert_eq!(record["decision"], "allow");
    let dir = ctx.agent.join("skills/release");
    assert_eq!(
        text(&record),
        format!(
            "Skill `release` (personal), from {}\nBase directory for this skill: {}\nArguments: v1.2\n\n{body}",
            dir.join("SKILL.md").display(),
            dir.display()
        )
    );
    // The alias works the same.
    let run = ctx.call("Skill", json!({"skill": "release"}));
    run.success();
    assert!(text(&run.json()).ends_with("Run the checks.\n"));
}

#[test]
fn skill_unknown_lists_the_available_ones() {
    let ctx = TestContext::new();
    write_skill(&ctx.agent.join("skills"), "alpha", "# alpha\n");
    write_skill(&ctx.work.join(".finch/skills"), "beta", "# beta\n");
    let run = ctx.call("Skill", json!({"name": "gamma"}));
    tool_error(
        &run,
        "There is no skill named `gamma`. Available skills: alpha, beta. Call Skill with one of these names.",
    );

    let empty = TestContext::new();
    let run = empty.call("Skill", json!({"name": "gamma"}));
    tool_error(&run, "no skills are installed");
}
