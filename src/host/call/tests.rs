//! The pipeline through the provider interface itself, with providers of a few tools that echo
//! their arguments (used the way the mini tool and MCP layers use it).

use super::*;
use crate::env::Env;
use crate::homes::Homes;
use crate::host::catalog::{Exposure, ToolDef, ToolSpec};
use crate::host::policy::{Mode, Rules};
use crate::host::prompt::{Card, CardAnswer, Question, QuestionAnswer};
use crate::host::provider::JobCx;
use crate::host::tool::{self, Layer};
use chrono::Utc;
use record::Failure;
use serde_json::json;
use std::cell::RefCell;
use std::rc::Rc;

/// A provider of a few tools that echo their arguments: the plug-in interface itself, used
/// the way the mini tool and MCP layers use it.
struct Echo;

fn echo_def(raw: &str, wanted: &str, layer: Layer, exposure: Exposure) -> ToolDef {
    ToolDef {
        raw_name: raw.into(),
        wanted_name: wanted.into(),
        title: raw.into(),
        description: format!("echoes {raw}"),
        layer,
        source: match layer {
            Layer::MiniTool => "minitool:acme".into(),
            Layer::Mcp => "mcp:srv".into(),
            Layer::Builtin => "builtin".into(),
            Layer::Suite => "suite".into(),
        },
        owner: None,
        risk: None,
        input_schema: json!({
            "type": "object",
            "properties": {"text": {"type": "string"}, "command": {"type": "string"},
                           "action": {"type": "string"}},
        }),
        exposure,
        keywords: String::new(),
        annotations: None,
    }
}

impl Provider for Echo {
    fn defs(&self) -> Vec<ToolDef> {
        let mut strict = echo_def("say", "acme_say", Layer::MiniTool, Exposure::Startup);
        strict.input_schema = json!({
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
            "additionalProperties": false,
        });
        vec![
            strict,
            echo_def("lookup", "mcp__srv__lookup", Layer::Mcp, Exposure::Dynamic),
            echo_def("Bash", "Bash", Layer::Builtin, Exposure::Startup),
            echo_def("Memory", "Memory", Layer::Suite, Exposure::Startup),
        ]
    }

    fn call(&mut self, tool: &ToolSpec, args: Value, _cx: &mut CallCx) -> ToolOutput {
        ToolOutput::text(format!("{} {}", tool.name, args))
    }

    fn is_manual_call(&self, tool: &ToolSpec, args: &Value) -> bool {
        tool.def.layer == Layer::Suite && args.get("action").is_none()
    }
}

/// A `Read` that reads nothing, and `Peek`, a dispatcher whose manual says how many lines
/// the session's transcript holds when it runs: a call that looks at the transcript.
struct Peek;

impl Provider for Peek {
    fn defs(&self) -> Vec<ToolDef> {
        vec![
            echo_def("Read", "Read", Layer::Builtin, Exposure::Startup),
            echo_def("Peek", "Peek", Layer::Suite, Exposure::Startup),
        ]
    }

    fn call(&mut self, tool: &ToolSpec, _args: Value, cx: &mut CallCx) -> ToolOutput {
        if tool.name == "Read" {
            return ToolOutput::text("read");
        }
        let path = cx.session.transcript_path().unwrap();
        let lines = std::fs::read_to_string(path).unwrap().lines().count();
        ToolOutput::text(format!("{lines} lines"))
    }

    fn is_manual_call(&self, tool: &ToolSpec, _args: &Value) -> bool {
        tool.name == "Peek"
    }

    /// Its Read sees the transcript only when it reads in the sessions directory.
    fn may_see_transcript(&self, tool: &ToolSpec, args: &Value, session: &SessionState) -> bool {
        let sessions = session.transcript_path().and_then(|t| t.parent()?.parent());
        match (tool.name.as_str(), sessions, args["file_path"].as_str()) {
            ("Read", Some(sessions), Some(file)) => {
                std::path::Path::new(file).starts_with(sessions)
            }
            _ => tool.name != "Read",
        }
    }
}

/// Answers cards from a script and counts them.
struct Scripted {
    answers: Vec<CardAnswer>,
    cards: Rc<RefCell<Vec<Card>>>,
}

impl Prompter for Scripted {
    fn card(&mut self, card: &Card) -> CardAnswer {
        self.cards.borrow_mut().push(card.clone());
        if self.answers.is_empty() {
            CardAnswer::Deny
        } else {
            self.answers.remove(0)
        }
    }

    fn question(&mut self, _q: &Question) -> QuestionAnswer {
        QuestionAnswer::Unavailable
    }
}

fn host(dir: &std::path::Path, answers: Vec<CardAnswer>) -> (Host, Rc<RefCell<Vec<Card>>>) {
    let homes = Homes {
        runtime: dir.join("rt"),
        agent: dir.join("ag"),
        agent_source: crate::homes::AgentHomeSource::Flag,
    };
    let settings = crate::config::Config::default()
        .settings(&dir.join("finch.toml"))
        .unwrap();
    let env = HostEnv {
        homes,
        settings,
        env: Env::default(),
        fixed_now: None,
        embed_resources: false,
    };
    let mut session = SessionState::detached(dir.to_path_buf(), dir.to_path_buf(), Mode::Ask, None);
    session
        .start_transcript(
            &dir.join("sessions"),
            Utc::now(),
            std::time::Duration::from_secs(5),
        )
        .unwrap();
    let cards = Rc::new(RefCell::new(Vec::new()));
    let prompter = Scripted {
        answers,
        cards: cards.clone(),
    };
    let host = Host::new(
        env,
        vec![Box::new(Echo), Box::new(Peek)],
        Rules::default(),
        session,
        Box::new(prompter),
    );
    (host, cards)
}

#[test]
fn raw_names_resolve_and_mini_tool_tools_always_ask() {
    let dir = tempfile::tempdir().unwrap();
    let (mut host, cards) = host(dir.path(), vec![CardAnswer::AllowForSession]);
    let first = host.call("say", json!({"text": "hi"}));
    assert_eq!(first.tool, "acme_say");
    assert_eq!(first.decision, Decision::Allow);
    // "Allow for this session" is never offered for a mini tool tool: it counts as once.
    assert!(!cards.borrow()[0].session_allow_offered);
    assert_eq!(first.decided_by.as_str(), "card:allowOnce");
    let second = host.call("acme_say", json!({"text": "again"}));
    assert_eq!(cards.borrow().len(), 2);
    assert_eq!(second.failure, Some(Failure::Refused));
    assert_eq!(second.decided_by.as_str(), "card:deny");
}

#[test]
fn approve_flag_answers_cards_of_that_tool_only() {
    let dir = tempfile::tempdir().unwrap();
    let (mut host, cards) = host(dir.path(), vec![]);
    host.session_mut().approve = vec!["acme_say".into()];
    let ok = host.call("acme_say", json!({"text": "x"}));
    assert_eq!(
        (ok.decision, ok.decided_by.as_str()),
        (Decision::Allow, "approveFlag")
    );
    assert!(cards.borrow().is_empty());
    let bash = host.call("Bash", json!({"command": "touch a"}));
    assert_eq!(bash.failure, Some(Failure::Refused));
    assert_eq!(cards.borrow().len(), 1);
}

#[test]
fn invalid_arguments_never_reach_the_gateway() {
    let dir = tempfile::tempdir().unwrap();
    let (mut host, cards) = host(dir.path(), vec![]);
    let r = host.call("acme_say", json!({"txt": 1}));
    assert_eq!(r.failure, Some(Failure::InvalidArguments));
    let text = r.output.text_content();
    assert!(text.contains("\"text\" is a required property"), "{text}");
    assert!(text.contains("txt"), "{text}");
    let not_object = host.call("acme_say", json!([1]));
    assert_eq!(not_object.failure, Some(Failure::InvalidArguments));
    assert!(cards.borrow().is_empty());
}

#[test]
fn dynamic_tools_need_activation() {
    let dir = tempfile::tempdir().unwrap();
    let (mut host, _) = host(dir.path(), vec![CardAnswer::AllowOnce]);
    assert!(
        !host
            .active_tools()
            .iter()
            .any(|t| t.name == "mcp__srv__lookup")
    );
    let r = host.call("mcp__srv__lookup", json!({}));
    assert_eq!(r.failure, Some(Failure::NotActive));
    assert!(r.output.text_content().contains("ToolSearch"));
    host.session_mut().active.insert("mcp__srv__lookup".into());
    let r = host.call("lookup", json!({}));
    assert_eq!(
        (r.tool.as_str(), r.decision),
        ("mcp__srv__lookup", Decision::Allow)
    );
}

#[test]
fn unknown_tools_suggest_similar_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (mut host, _) = host(dir.path(), vec![]);
    let r = host.call("acme_sayy", json!({}));
    assert_eq!(r.failure, Some(Failure::UnknownTool));
    assert_eq!(r.decision, Decision::None);
    assert!(
        r.output.text_content().contains("acme_say"),
        "{:?}",
        r.output
    );
}

#[test]
fn session_allow_covers_the_same_command_and_never_destructive_ones() {
    let dir = tempfile::tempdir().unwrap();
    let answers = vec![CardAnswer::AllowForSession, CardAnswer::AllowForSession];
    let (mut host, cards) = host(dir.path(), answers);
    let touch = json!({"command": "touch a"});
    assert_eq!(
        host.call("Bash", touch.clone()).decided_by.as_str(),
        "card:allowForSession"
    );
    assert_eq!(host.call("Bash", touch).decided_by.as_str(), "sessionAllow");
    assert_eq!(cards.borrow().len(), 1);
    let rm = json!({"command": "rm -rf a"});
    let first = host.call("Bash", rm.clone());
    assert_eq!(first.decided_by.as_str(), "card:allowOnce");
    assert!(!cards.borrow()[1].session_allow_offered);
    assert_eq!(cards.borrow()[1].risk, tool::Risk::High);
    assert_eq!(host.call("Bash", rm).decided_by.as_str(), "card:deny");
    assert_eq!(cards.borrow().len(), 3);
}

#[test]
fn a_suite_without_action_returns_its_manual_without_a_card() {
    let dir = tempfile::tempdir().unwrap();
    let (mut host, cards) = host(dir.path(), vec![]);
    let r = host.call("Memory", json!({}));
    assert_eq!(
        (r.decision, r.decided_by.as_str()),
        (Decision::None, "manual")
    );
    assert!(cards.borrow().is_empty());
}

#[test]
fn every_call_is_recorded_with_its_decision() {
    let dir = tempfile::tempdir().unwrap();
    let (mut host, _) = host(
        dir.path(),
        vec![CardAnswer::DenyWithReason("not now".into())],
    );
    host.call("acme_say", json!({"text": "x"}));
    host.call("nope", json!({}));
    host.finish().unwrap();
    let path = host.session().transcript_path().unwrap().to_path_buf();
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["type"], "session");
    // The opening entry finch writes for pi (`session::append::opening`) is the root.
    assert!(crate::session::append::is_opening(&lines[1]));
    let lines = &lines[1..];
    let first = &lines[1];
    assert_eq!(first["customType"], "finch.toolCall");
    assert_eq!(first["parentId"], lines[0]["id"]);
    assert_eq!(first["data"]["tool"], "acme_say");
    assert_eq!(first["data"]["decision"], "deny");
    assert_eq!(first["data"]["decidedBy"], "card:denyWithReason");
    assert_eq!(first["data"]["isError"], true);
    assert!(
        first["data"]["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("not now")
    );
    assert_eq!(lines[2]["parentId"], first["id"]);
    assert_eq!(lines[2]["data"]["decidedBy"], "unknownTool");
}

/// The record of a call `Host::end` ended.
fn ended(begun: Begun) -> CallRecord {
    match begun {
        Begun::Done(record) => record,
        Begun::Running(_) => panic!("it runs again"),
    }
}

fn transcript_lines(host: &Host) -> Vec<Value> {
    let path = host.session().transcript_path().unwrap();
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn deferred_records_wait_but_a_call_that_may_read_the_transcript_finds_it_whole() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "a").unwrap();
    let (mut host, _) = host(dir.path(), vec![]);
    host.session_mut().mode = Mode::AcceptCalls;
    host.defer_records();
    let read = json!({"file_path": "a.txt"});
    assert_eq!(host.call("Read", read.clone()).decision, Decision::Allow);
    host.call("Read", read.clone());
    assert!(host.has_pending_records());
    assert_eq!(
        transcript_lines(&host).len(),
        2,
        "only the header and the opening so far"
    );

    // Peek could read the transcript: the two records are written before it runs.
    let peek = host.call("Peek", json!({}));
    assert_eq!(peek.output.text_content(), "4 lines");
    assert_eq!(transcript_lines(&host).len(), 4);

    // So is a Read of a file in the sessions directory.
    let sessions = host
        .session()
        .transcript_path()
        .unwrap()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let inside = sessions.join("x.jsonl");
    host.call("Read", json!({"file_path": inside}));
    assert_eq!(transcript_lines(&host).len(), 5, "Peek's record went first");

    host.write_records();
    assert!(!host.has_pending_records());
    let lines = transcript_lines(&host);
    assert_eq!(lines.len(), 6);
    let lines = &lines[1..];
    let tools: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l["data"]["tool"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["Read", "Read", "Peek", "Read"]);
    for pair in lines[1..].windows(2) {
        assert_eq!(pair[1]["parentId"], pair[0]["id"], "one chain");
    }
}

/// A `Grep` that is a job, as the built-ins' are.
struct Jobs;

impl Provider for Jobs {
    fn defs(&self) -> Vec<ToolDef> {
        vec![echo_def("Grep", "Grep", Layer::Builtin, Exposure::Startup)]
    }

    fn call(&mut self, _tool: &ToolSpec, _args: Value, _cx: &mut CallCx) -> ToolOutput {
        ToolOutput::error("runs as a job")
    }

    fn start(&mut self, _tool: &ToolSpec, args: Value, _cx: &mut CallCx) -> Started {
        Started::Job(Box::new(move |job: &JobCx| {
            (job.progress)(cancel::Progress {
                progress: 1.0,
                total: None,
                message: None,
            });
            ToolOutput::text(format!("grepped {args}"))
        }))
    }
}

#[test]
fn a_job_runs_off_the_host_and_is_recorded_when_it_ends() {
    let dir = tempfile::tempdir().unwrap();
    let (mut host, _) = host(dir.path(), vec![]);
    host.set_providers(vec![Box::new(Echo), Box::new(Jobs)]);
    host.session_mut().mode = Mode::AcceptCalls;
    let cancel = cancel::Cancel::new();
    let Begun::Running(running) =
        host.begin("Grep", json!({"text": "x"}), &cancel, &cancel::no_progress)
    else {
        panic!("a job");
    };
    assert_eq!(running.tool(), "Grep");
    assert!(!running.is_brief(), "a job its provider did not call brief");
    // Another call goes through the host while the job waits.
    assert_eq!(
        host.call("Bash", json!({"command": "ls"})).decision,
        Decision::Allow
    );
    let updates = std::sync::Mutex::new(0);
    let ran = std::thread::spawn(move || {
        running.run(
            &cancel::Cancel::new(),
            &|_| *updates.lock().unwrap() += 1,
            &|_| {},
        )
    })
    .join()
    .unwrap();
    let record = ended(host.end(ran, &cancel::Cancel::new()));
    assert_eq!(record.output.text_content(), r#"grepped {"text":"x"}"#);
    assert_eq!((record.decision, record.failure), (Decision::Allow, None));
    // The call records, after the header and the opening entry (`session`).
    let tools: Vec<String> = transcript_lines(&host)[2..]
        .iter()
        .map(|l| l["data"]["tool"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(tools, ["Bash", "Grep"], "recorded as they ended");

    // Cancelled before it ran: it never starts, and is recorded as cancelled.
    let cancel = cancel::Cancel::new();
    let Begun::Running(running) = host.begin("Grep", json!({}), &cancel, &cancel::no_progress)
    else {
        panic!("a job");
    };
    cancel.cancel();
    let record = ended(host.end(running.run(&cancel, &cancel::no_progress, &|_| {}), &cancel));
    assert_eq!(record.failure, Some(Failure::Cancelled));
    assert!(record.output.text_content().contains("cancelled"));
    // `call_with` runs the job in place, as the console does.
    let record = host.call("Grep", json!({}));
    assert_eq!(record.output.text_content(), "grepped {}");
}

#[test]
fn deferred_records_are_written_when_64_wait_and_when_the_session_ends() {
    let dir = tempfile::tempdir().unwrap();
    let (mut host, _) = host(dir.path(), vec![]);
    host.session_mut().mode = Mode::AcceptCalls;
    host.defer_records();
    for _ in 0..63 {
        host.call("Read", json!({"file_path": "a.txt"}));
    }
    assert_eq!(transcript_lines(&host).len(), 2);
    host.call("Read", json!({"file_path": "a.txt"}));
    assert_eq!(transcript_lines(&host).len(), 66);
    assert!(!host.has_pending_records());
    host.call("Read", json!({"file_path": "a.txt"}));
    host.finish().unwrap();
    assert_eq!(transcript_lines(&host).len(), 67);
}
