//! The runtime against real `node` running the real ES module mini tools of
//! `tests/it/fixtures/minitools/`, for what the command line cannot show: the tool definitions
//! it hands the catalog, discovery providers, `mcp.client` registrations, prompts routed to the
//! prompter of the call in progress, unsupported UI surfaces, events, and shutdown.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::call::output_from;
use super::instance::{locale, normalize_locale};
use super::*;
use crate::host::catalog::Exposure;
use crate::host::output::Content;
use crate::host::policy::{Mode, Rules};
use crate::host::prompt::{Card, CardAnswer, Prompter, Question, QuestionAnswer};
use crate::host::session::SessionState;
use crate::host::tool::Risk;
use crate::host::{Host, HostEnv};
use std::time::Instant;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/fixtures/minitools");

fn node_available() -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join("node").is_file()))
}

/// A package `id` in `root/src/<id>` with the fixture `entry` and the `finch` object `finch`.
fn package(root: &Path, id: &str, entry: &str, finch: Value) -> PathBuf {
    let dir = root.join("src").join(id);
    std::fs::create_dir_all(dir.join("dist")).unwrap();
    let mut manifest = json!({"manifestVersion": 1});
    if let (Some(m), Some(extra)) = (manifest.as_object_mut(), finch.as_object()) {
        m.extend(extra.clone());
    }
    let pkg = json!({"name": id, "version": "1.0.0", "type": "module", "main": "dist/index.js",
                     "finch": manifest});
    std::fs::write(dir.join("package.json"), pkg.to_string()).unwrap();
    let source = std::fs::read_to_string(Path::new(FIXTURES).join(entry)).unwrap();
    std::fs::write(dir.join("dist/index.js"), source).unwrap();
    dir
}

struct Setup {
    homes: Homes,
    settings: Settings,
    env: Env,
}

fn setup(root: &Path) -> Setup {
    let homes = Homes {
        runtime: root.join("rt"),
        agent: root.join("ag"),
        agent_source: crate::homes::AgentHomeSource::Flag,
    };
    let path = std::env::var("PATH").unwrap_or_default();
    Setup {
        settings: crate::config::Config::default()
            .settings(&root.join("finch.toml"))
            .unwrap(),
        env: Env::from_pairs(&[("PATH", path.as_str())]),
        homes,
    }
}

type Events = Arc<Mutex<Vec<RuntimeEvent>>>;

fn start(s: &Setup, dirs: &[PathBuf]) -> (MiniToolRuntime, Vec<ToolReport>, Events) {
    let events: Events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let hook: EventHook = Arc::new(move |e: &RuntimeEvent| sink.lock().unwrap().push(e.clone()));
    let (runtime, report) = MiniToolRuntime::start(StartOptions {
        only: None,
        background: None,
        homes: &s.homes,
        settings: &s.settings,
        env: &s.env,
        dirs,
        session: None,
        hook: Some(hook),
        consent: None,
    })
    .unwrap();
    assert!(report.problems.is_empty(), "{report:?}");
    (runtime, report.tools, events)
}

/// Answers questions from a script.
struct Scripted(Vec<QuestionAnswer>);

impl Prompter for Scripted {
    fn card(&mut self, _card: &Card) -> CardAnswer {
        CardAnswer::Deny
    }
    fn question(&mut self, _q: &Question) -> QuestionAnswer {
        if self.0.is_empty() {
            QuestionAnswer::Unavailable
        } else {
            self.0.remove(0)
        }
    }
}

/// A host whose only provider is `runtime`, approving `approve`.
fn host(
    root: &Path,
    s: &Setup,
    runtime: &MiniToolRuntime,
    approve: &[&str],
    answers: Vec<QuestionAnswer>,
) -> Host {
    let env = HostEnv {
        homes: s.homes.clone(),
        settings: s.settings.clone(),
        env: s.env.clone(),
        fixed_now: None,
        embed_resources: false,
    };
    let mut session =
        SessionState::detached(root.to_path_buf(), root.to_path_buf(), Mode::Ask, None);
    session
        .start_transcript(
            &root.join("sessions"),
            chrono::Utc::now(),
            Duration::from_secs(5),
        )
        .unwrap();
    session.approve = approve.iter().map(|a| a.to_string()).collect();
    Host::new(
        env,
        vec![Box::new(runtime.clone())],
        Rules::default(),
        session,
        Box::new(Scripted(answers)),
    )
}

fn ctx_demo(root: &Path) -> PathBuf {
    package(
        root,
        "ctx-demo",
        "ctx_demo.mjs",
        json!({"displayName": "Ctx Demo", "requires": {"capabilities": ["mcp.client"]}}),
    )
}

#[test]
fn definitions_carry_names_owner_risk_exposure_and_clamped_timeouts() {
    if !node_available() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let s = setup(root.path());
    let (runtime, reports, _) = start(&s, &[ctx_demo(root.path())]);
    assert_eq!(reports.len(), 1);
    assert!(
        matches!(reports[0].outcome, Outcome::Activated { tools: 17 }),
        "{reports:?}"
    );
    assert_eq!(reports[0].line(), "✓ ctx-demo activated: 17 tools");
    assert_eq!(reports[0].to_json()["status"], "activated");
    let defs = runtime.defs();
    let shaped = defs.iter().find(|d| d.raw_name == "shaped").unwrap();
    assert_eq!(shaped.wanted_name, "ctx-demo_shaped");
    assert_eq!(shaped.source, "minitool:ctx-demo");
    assert_eq!(shaped.owner.as_deref(), Some("other-owner"));
    assert_eq!(shaped.risk, Some(Risk::High));
    assert_eq!(shaped.exposure, Exposure::Dynamic);
    assert_eq!(shaped.title, "Returns MCP-shaped content");
    let probe = defs.iter().find(|d| d.raw_name == "probe").unwrap();
    assert_eq!(probe.owner.as_deref(), Some("ctx-demo"));
    assert_eq!(probe.input_schema["properties"]["name"]["type"], "string");
    assert_eq!(probe.exposure, Exposure::Startup);
    // timeoutMs 300 is clamped to the default lower bound, 15 s; no timeoutMs is 120 s.
    let inst = &runtime.inner.instances[0];
    assert_eq!(
        inst.registered("patient").unwrap().timeout,
        Duration::from_secs(15)
    );
    assert_eq!(
        inst.registered("probe").unwrap().timeout,
        Duration::from_secs(120)
    );
}

#[test]
fn discovery_providers_answer_discover_with_registered_tools() {
    if !node_available() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let s = setup(root.path());
    let (runtime, _, _) = start(&s, &[ctx_demo(root.path())]);
    let found = runtime.discover("weather forecast", 8);
    assert_eq!(
        found,
        vec![Discovered {
            minitool: "ctx-demo".into(),
            name: "probe".into(),
            wanted_name: "ctx-demo_probe".into(),
            title: Some("Probe the context".into()),
            description: Some("weather via probe".into()),
            score: Some(2.0),
        }]
    );
    assert!(runtime.discover("nothing relevant", 8).is_empty());
}

/// A d.ts `ToolSearchProvider` (`search({query, limit}, ctx)` → `{toolName}`) answers too.
#[test]
fn search_providers_of_the_published_shape_answer_discover() {
    if !node_available() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let s = setup(root.path());
    let contract = package(
        root.path(),
        "contract",
        "contract.mjs",
        json!({"requires": {"capabilities": ["mcp.client"]}}),
    );
    let (runtime, _, _) = start(&s, &[contract]);
    let found = runtime.discover("geometry please", 8);
    assert_eq!(
        found,
        vec![Discovered {
            minitool: "contract".into(),
            name: "shapes".into(),
            wanted_name: "contract_shapes".into(),
            title: Some("Shapes, found by search".into()),
            description: Some("geometry of ctx".into()),
            score: None,
        }]
    );
}

#[test]
fn prompts_reach_the_prompter_of_the_call_and_mcp_registrations_are_exposed() {
    if !node_available() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let s = setup(root.path());
    let consumer = package(
        root.path(),
        "cap-consumer",
        "cap_consumer.mjs",
        json!({"requires": {"capabilities": ["mcp.client"]}}),
    );
    let (runtime, _, events) = start(&s, &[ctx_demo(root.path()), consumer]);
    let answers = vec![
        QuestionAnswer::Chosen(vec!["Delete".into()]),
        QuestionAnswer::Other("Ada".into()),
        QuestionAnswer::Chosen(vec!["Submit".into()]),
        QuestionAnswer::Other("k-1".into()),
        QuestionAnswer::Chosen(vec!["Save".into()]),
    ];
    let approve = [
        "ctx-demo_ask",
        "ctx-demo_form",
        "ctx-demo_modal",
        "cap-consumer_mcp",
        "ctx-demo_surfaces",
    ];
    let mut host = host(root.path(), &s, &runtime, &approve, answers);
    let asked = host.call("ctx-demo_ask", json!({}));
    assert_eq!(
        asked.output.structured,
        Some(json!({"confirmed": true})),
        "{:?}",
        asked.output
    );
    let form = host.call("ctx-demo_form", json!({}));
    assert_eq!(
        form.output.structured,
        Some(json!({"submitted": true, "values": {"name": "Ada"}})),
        "{:?}",
        form.output
    );
    let modal = host.call("ctx-demo_modal", json!({}));
    assert_eq!(
        modal.output.structured,
        Some(json!({"closable": true, "action": "save", "values": {"apiKey": "k-1"}})),
        "{:?}",
        modal.output
    );

    let mcp = host.call("cap-consumer_mcp", json!({}));
    assert!(!mcp.output.is_error, "{:?}", mcp.output);
    let registered = runtime.mcp_registrations();
    assert_eq!(registered.len(), 2);
    assert_eq!(registered[0].minitool, "cap-consumer");
    assert_eq!(registered[0].name, "local_files");
    assert_eq!(
        registered[0].config,
        json!({"name": "Local Files", "command": "node", "args": ["server.js"]})
    );
    assert_eq!(registered[1].name, "remote");
    assert!(
        events
            .lock()
            .unwrap()
            .contains(&RuntimeEvent::McpServersChanged)
    );

    let surfaces = host.call("ctx-demo_surfaces", json!({}));
    assert!(!surfaces.output.is_error, "{:?}", surfaces.output);
    let kinds: Vec<String> = runtime.unsupported().into_iter().map(|u| u.kind).collect();
    assert_eq!(
        kinds,
        [
            "ui.createPanel",
            "ui.createCanvasWindow",
            "ui.onDidOpenPanel",
            "composerActions.register",
            "settingsMenu.register",
            "sessionContainers.registerSettingsMenu",
            "icons.register",
            "ui.registerPanel",
            "ui.delivery",
            "ui.openFilePreview",
            "ui.confirm",
        ]
    );
    assert!(events.lock().unwrap().iter().any(|e| matches!(
        e,
        RuntimeEvent::Unsupported { kind, detail, .. } if kind == "ui.createPanel" && detail.as_deref() == Some("side-panel")
    )));
}

#[test]
fn shutdown_runs_deactivate_then_stops_every_process() {
    if !node_available() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let s = setup(root.path());
    let (runtime, _, _) = start(&s, &[ctx_demo(root.path())]);
    let pids = runtime.pids();
    assert_eq!(pids.len(), 1);
    let mut host = host(root.path(), &s, &runtime, &["ctx-demo_probe"], Vec::new());
    runtime.shutdown();
    let log = std::fs::read_to_string(s.homes.logs_dir().join("minitools/ctx-demo.log")).unwrap();
    assert!(log.contains("deactivate ran"), "{log}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while std::path::Path::new(&format!("/proc/{}/cmdline", pids[0].1)).exists()
        && std::fs::read_to_string(format!("/proc/{}/stat", pids[0].1))
            .is_ok_and(|st| !st.contains(") Z"))
    {
        assert!(Instant::now() < deadline, "the mini tool still runs");
        std::thread::sleep(Duration::from_millis(20));
    }
    let after = host.call("ctx-demo_probe", json!({}));
    assert!(
        after.output.text_content().contains("has shut down"),
        "{:?}",
        after.output
    );
}

#[test]
fn locales_and_backoff() {
    assert_eq!(normalize_locale("zh_CN.UTF-8"), "zh-CN");
    assert_eq!(normalize_locale("fr"), "fr");
    assert_eq!(normalize_locale("C"), "en-US");
    assert_eq!(normalize_locale("de_DE@euro"), "de-DE");
    let env = Env::from_pairs(&[("LANG", "pt_BR.UTF-8")]);
    assert_eq!(locale(None, &env), "pt-BR");
    assert_eq!(locale(Some("ja-JP"), &env), "ja-JP");
    assert_eq!(normalize_server_name("Local Files-2"), "local_files_2");
    let s = setup(Path::new("/nonexistent"));
    let (runtime, reports, _) = start(&s, &[]);
    assert!(reports.is_empty());
    let inner = &runtime.inner;
    let b: Vec<u64> = (1..=7).map(|n| inner.backoff(n).as_secs()).collect();
    assert_eq!(b, [1, 2, 4, 8, 16, 30, 30]);
    assert_eq!(
        inner.clamp_timeout(Some(Duration::from_secs(3600))),
        Duration::from_secs(600)
    );
}

#[test]
fn results_become_tool_outputs() {
    assert_eq!(output_from(json!("hi")), ToolOutput::text("hi"));
    assert!(output_from(Value::Null).content.is_empty());
    let shaped =
        output_from(json!({"content": [{"type": "text", "text": "a"}, {"x": 1}], "isError": true}));
    assert!(shaped.is_error);
    assert_eq!(shaped.content[1], Content::Text("{\"x\":1}".into()));
    let plain = output_from(json!({"n": 1}));
    assert_eq!(plain.structured, Some(json!({"n": 1})));
    assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
    assert_eq!(seconds(Duration::from_millis(200)), "200 ms");
}

/// `execute` carries the session only when it changed since the process was last told: the
/// process keeps it between calls, and a changed one reaches `ctx.session`/`ctx.workspace` and
/// `exec` of the very call that changed it.
#[test]
fn the_session_reaches_the_process_whenever_it_changed() {
    if !node_available() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let s = setup(root.path());
    let (runtime, _, _) = start(&s, &[ctx_demo(root.path())]);
    let mut host = host(root.path(), &s, &runtime, &["ctx-demo_probe"], Vec::new());
    let other = root.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let seen = |host: &mut Host| {
        let out = host.call("ctx-demo_probe", json!({})).output;
        let v = out.structured.clone().unwrap_or_else(|| panic!("{out:?}"));
        let text = |p: &str| v.pointer(p).and_then(Value::as_str).map(PathBuf::from);
        (
            text("/session/cwd"),
            text("/workspace/cwd"),
            text("/exec/cwd"),
            v.pointer("/workspace/trustedDirs").cloned(),
        )
    };
    let first = root.path().to_path_buf();
    let all = |dir: &Path| {
        (
            Some(dir.to_path_buf()),
            Some(dir.to_path_buf()),
            Some(dir.to_path_buf()),
        )
    };
    let (a, b, c, _) = seen(&mut host);
    assert_eq!((a, b, c), all(&first));
    // Unchanged: not sent again, and still what the process holds.
    let (a, b, c, _) = seen(&mut host);
    assert_eq!((a, b, c), all(&first));
    host.session_mut().cwd = other.clone();
    host.session_mut().trusted = vec![other.clone()];
    let (a, b, c, trusted) = seen(&mut host);
    assert_eq!((a, b, c), all(&other));
    assert_eq!(trusted, Some(json!([other.to_string_lossy()])));
    host.session_mut().cwd = first.clone();
    let (a, b, c, _) = seen(&mut host);
    assert_eq!((a, b, c), all(&first));
    runtime.shutdown();
}

/// A call's `exec.signal` is made when the tool first reads it: a call cancelled before that
/// reads an aborted signal with the host's reason.
#[test]
fn a_signal_first_read_after_its_call_was_cancelled_is_aborted() {
    if !node_available() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let s = setup(root.path());
    let dir = package(root.path(), "late", "late_signal.mjs", json!({}));
    let (runtime, _, _) = start(&s, &[dir]);
    let mut host = host(root.path(), &s, &runtime, &["late_look"], Vec::new());
    // Its storage: the one place its wall lets it write.
    let marks = s.homes.runtime.join("extension-data").join("late");
    std::fs::create_dir_all(&marks).unwrap();
    let cancel = crate::host::cancel::Cancel::new();
    let canceller = {
        let (cancel, marks) = (cancel.clone(), marks.clone());
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(30);
            while !marks.join("started").exists() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            cancel.cancel();
            std::fs::write(marks.join("cancelled"), "").unwrap();
        })
    };
    let record = host.call_with(
        "late_look",
        json!({}),
        &cancel,
        &crate::host::cancel::no_progress,
    );
    canceller.join().unwrap();
    assert!(record.output.is_error, "{:?}", record.output);
    runtime.shutdown();
    let log = std::fs::read_to_string(s.homes.logs_dir().join("minitools/late.log")).unwrap();
    assert!(
        log.contains("signal first read: aborted=true reason=cancelled by the caller"),
        "{log}"
    );
}
