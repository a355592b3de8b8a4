//! The served session's pure parts (forms, answers, results) and a host driven by an
//! in-process MCP client.

use super::*;
use crate::env::Env;
use crate::homes::{AgentHomeSource, Homes};
use crate::host::catalog::{Exposure, ToolDef};
use crate::host::output::ToolOutput;
use crate::host::policy::{Mode, Rules};
use crate::host::prompt::{Choice, Nobody};
use crate::host::session::SessionState;
use crate::host::suites::Suites;
use crate::host::tool::{Layer, Risk};
use crate::host::{CallCx, HostEnv, Provider};
use rmcp::ClientHandler;
use rmcp::model::{ClientCapabilities, ClientConfig};
use rmcp::service::{NotificationContext, RoleClient};
use std::sync::Mutex;
use tokio::sync::Notify;

fn card(session_allow_offered: bool) -> Card {
    Card {
        tool: "Bash".into(),
        title: "Run a shell command".into(),
        layer: "builtin",
        owner: None,
        risk: Risk::Medium,
        summary: "touch x".into(),
        reason: "not read-only".into(),
        session_allow_offered,
        session_scope: "this exact command only".into(),
        sandbox: None,
        unsandboxed_offered: false,
        change: None,
    }
}

fn question(multi_select: bool) -> Question {
    Question {
        question: "Which database?".into(),
        header: Some("Database".into()),
        options: vec![
            Choice {
                label: "SQLite".into(),
                description: Some("one file".into()),
            },
            Choice {
                label: "Postgres".into(),
                description: None,
            },
        ],
        multi_select,
    }
}

fn elicited(action: ElicitationAction, content: Option<Value>) -> ElicitResult {
    let mut result: ElicitResult = serde_json::from_value(json!({"action": "accept"})).unwrap();
    result.action = action;
    result.content = content;
    result
}

#[test]
fn card_forms_offer_only_what_the_card_allows() {
    let offered = serde_json::to_value(card_schema(&card(true))).unwrap();
    assert_eq!(
        offered,
        json!({
            "type": "object",
            "properties": {
                "decision": {"type": "string", "title": "Decision", "oneOf": [
                    {"const": "allowOnce", "title": "Allow once"},
                    {"const": "allowForSession", "title": "Allow for this session"},
                    {"const": "deny", "title": "Deny"},
                    {"const": "denyWithReason", "title": "Deny and tell the model why"},
                ]},
                "reason": {"type": "string", "title": "Reason",
                           "description": "When denying: what the model should know or do instead"},
            },
            "required": ["decision"],
        })
    );
    let not_offered = serde_json::to_value(card_schema(&card(false))).unwrap();
    let consts: Vec<&str> = not_offered["properties"]["decision"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["const"].as_str().unwrap())
        .collect();
    assert_eq!(consts, ["allowOnce", "deny", "denyWithReason"]);
    let message = card_message(&card(true));
    assert_eq!(
        message,
        "Permission needed: Bash — Run a shell command\ntouch x\nLayer: builtin · risk: medium\nWhy: not read-only"
    );
}

/// The elicitation shows the whole command, however long, and says how long it is.
#[test]
fn a_long_command_is_whole_in_the_elicitation() {
    let command = format!("make -n test; echo '{}'; python3 -c 'x'", "y".repeat(150));
    let mut long = card(false);
    long.summary = command.clone();
    let message = card_message(&long);
    assert!(message.contains(&command), "{message}");
    assert!(
        message.contains(&format!("({} characters;", command.chars().count())),
        "{message}"
    );
}

#[test]
fn card_answers() {
    use ElicitationAction::{Accept, Cancel, Decline};
    let cases = [
        (
            Accept,
            Some(json!({"decision": "allowOnce"})),
            CardAnswer::AllowOnce,
        ),
        (
            Accept,
            Some(json!({"decision": "allowForSession"})),
            CardAnswer::AllowForSession,
        ),
        (Accept, Some(json!({"decision": "deny"})), CardAnswer::Deny),
        (
            Accept,
            Some(json!({"decision": "deny", "reason": " use make "})),
            CardAnswer::DenyWithReason("use make".into()),
        ),
        (
            Accept,
            Some(json!({"decision": "denyWithReason", "reason": "no"})),
            CardAnswer::DenyWithReason("no".into()),
        ),
        (
            Accept,
            Some(json!({"decision": "denyWithReason", "reason": "  "})),
            CardAnswer::Deny,
        ),
        // An allow never comes from a reason alone, an unknown value or a missing field.
        (
            Accept,
            Some(json!({"decision": "yes please"})),
            CardAnswer::Deny,
        ),
        (Accept, Some(json!({"reason": "fine"})), CardAnswer::Deny),
        (Accept, Some(json!({"decision": true})), CardAnswer::Deny),
        (Accept, None, CardAnswer::Deny),
        (
            Decline,
            Some(json!({"decision": "allowOnce"})),
            CardAnswer::Declined,
        ),
        (Cancel, None, CardAnswer::Cancelled),
    ];
    for (action, content, want) in cases {
        let got = card_answer(&elicited(action.clone(), content.clone()));
        assert_eq!(got, want, "{action:?} {content:?}");
    }
}

#[test]
fn question_forms_and_answers() {
    let single = serde_json::to_value(question_schema(&question(false)).unwrap()).unwrap();
    assert_eq!(
        single["properties"]["answer"],
        json!({"type": "string", "title": "Choose one", "oneOf": [
            {"const": "SQLite", "title": "SQLite — one file"},
            {"const": "Postgres", "title": "Postgres"},
        ]})
    );
    assert_eq!(single["properties"]["other"]["type"], "string");
    let multi = serde_json::to_value(question_schema(&question(true)).unwrap()).unwrap();
    assert_eq!(multi["properties"]["answer"]["type"], "array");
    assert_eq!(
        multi["properties"]["answer"]["items"]["anyOf"][1],
        json!({"const": "Postgres", "title": "Postgres"})
    );
    let no_options = Question {
        options: Vec::new(),
        ..question(false)
    };
    assert!(question_schema(&no_options).is_none());
    assert_eq!(
        question_message(&question(false)),
        "Database\nWhich database?"
    );

    use ElicitationAction::{Accept, Cancel, Decline};
    let chosen = |l: &[&str]| QuestionAnswer::Chosen(l.iter().map(|s| s.to_string()).collect());
    let cases = [
        (
            Accept,
            Some(json!({"answer": "SQLite"})),
            chosen(&["SQLite"]),
        ),
        (
            Accept,
            Some(json!({"answer": ["SQLite", "Nope", "Postgres"]})),
            chosen(&["SQLite", "Postgres"]),
        ),
        (
            Accept,
            Some(json!({"answer": "SQLite", "other": " my own "})),
            QuestionAnswer::Other("my own".into()),
        ),
        (
            Accept,
            Some(json!({"answer": "MySQL"})),
            QuestionAnswer::Other("MySQL".into()),
        ),
        (Accept, Some(json!({"other": ""})), chosen(&[])),
        (Accept, None, chosen(&[])),
        (Decline, None, QuestionAnswer::Dismissed),
        (Cancel, None, QuestionAnswer::Dismissed),
    ];
    for (action, content, want) in cases {
        let got = question_answer(&question(false), &elicited(action.clone(), content.clone()));
        assert_eq!(got, want, "{action:?} {content:?}");
    }
}

#[test]
fn records_become_results_with_the_decision_in_meta() {
    let output = ToolOutput {
        content: vec![
            Content::Text("hi".into()),
            Content::Image {
                data: "AAAA".into(),
                mime_type: "image/png".into(),
            },
        ],
        structured: Some(json!({"n": 1})),
        is_error: false,
    };
    let fast_lane = crate::host::DecidedBy::Gateway(crate::host::policy::DecidedBy::FastLane);
    let record = CallRecord::ran("Read", fast_lane, output, false);
    let result = serde_json::to_value(call_result(record)).unwrap();
    assert_eq!(
        result,
        json!({
            "resultType": "complete",
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            ],
            "structuredContent": {"n": 1},
            "isError": false,
            "_meta": {"finch/decision": "allow", "finch/decidedBy": "fastLane"},
        })
    );
}

/// A provider of one dynamic MCP-layer tool, as the MCP bridge declares its tools.
struct Lookup;

impl Provider for Lookup {
    fn defs(&self) -> Vec<ToolDef> {
        vec![ToolDef {
            raw_name: "lookup".into(),
            wanted_name: "mcp__srv__lookup".into(),
            title: "Look up a word".into(),
            description: "Looks a word up in the dictionary".into(),
            layer: Layer::Mcp,
            source: "mcp:srv".into(),
            owner: Some("srv".into()),
            risk: None,
            input_schema: json!({"type": "object", "properties": {"word": {"type": "string"}}}),
            exposure: Exposure::Dynamic,
            keywords: String::new(),
            annotations: None,
        }]
    }

    fn call(&mut self, _tool: &ToolSpec, args: Value, _cx: &mut CallCx) -> ToolOutput {
        ToolOutput::text(format!("looked up {}", args["word"]))
    }
}

fn host(dir: &std::path::Path, link: &ClientLink) -> Host {
    let homes = Homes {
        runtime: dir.join("rt"),
        agent: dir.join("ag"),
        agent_source: AgentHomeSource::Flag,
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
    let session = SessionState::detached(dir.to_path_buf(), dir.to_path_buf(), Mode::Ask, None);
    let prompter = ElicitingPrompter::new(link.clone(), Box::new(Nobody), Duration::from_secs(10));
    Host::new(
        env,
        vec![Box::new(Suites::default()), Box::new(Lookup)],
        Rules::default(),
        session,
        Box::new(prompter),
    )
}

/// An rmcp client that counts `tools/list_changed` and accepts every card once.
#[derive(Clone, Default)]
struct Agent {
    list_changed: Arc<Notify>,
    cards: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Agent {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("agent", "1"),
        )
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.notify_one();
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = request {
            self.cards.lock().unwrap().push(message);
        }
        Ok(elicited(
            ElicitationAction::Accept,
            Some(json!({"decision": "allowOnce"})),
        ))
    }
}

fn names(tools: &[Tool]) -> Vec<String> {
    tools.iter().map(|t| t.name.to_string()).collect()
}

/// The real ToolSearch activates the dynamic tool; the client hears `list_changed`, lists
/// it, and calls it with its card answered through elicitation. Then the client leaves and
/// `serve` returns.
#[test]
fn toolsearch_activation_is_announced_and_the_tool_becomes_callable() {
    let dir = tempfile::tempdir().unwrap();
    let link = ClientLink::new();
    let mut host = host(dir.path(), &link);
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let agent = Agent::default();
    let seen = agent.clone();
    let client = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let client = agent.serve(client_io).await.unwrap();
            let before = names(&client.list_all_tools().await.unwrap());
            let search = client
                .call_tool(
                    CallToolRequestParams::new("ToolSearch").with_arguments(
                        json!({"query": "look up word"})
                            .as_object()
                            .unwrap()
                            .clone(),
                    ),
                )
                .await
                .unwrap();
            let announced =
                tokio::time::timeout(Duration::from_secs(10), seen.list_changed.notified())
                    .await
                    .is_ok();
            let after = names(&client.list_all_tools().await.unwrap());
            let call = client
                .call_tool(
                    CallToolRequestParams::new("mcp__srv__lookup")
                        .with_arguments(json!({"word": "finch"}).as_object().unwrap().clone()),
                )
                .await
                .unwrap();
            client.cancel().await.unwrap();
            (before, search, announced, after, call)
        })
    });
    serve(
        &mut host,
        &link,
        &mut |h: &mut Host| h.rebuild_catalog(),
        move || tokio::io::split(server_io),
    )
    .unwrap();
    let (before, search, announced, after, call) = client.join().unwrap();
    assert!(
        !before.contains(&"mcp__srv__lookup".to_string()),
        "{before:?}"
    );
    assert_eq!(search.is_error, Some(false), "{search:?}");
    assert!(announced, "no tools/list_changed after the activation");
    assert!(after.contains(&"mcp__srv__lookup".to_string()), "{after:?}");
    assert_eq!(after.len(), before.len() + 1);
    let call = serde_json::to_value(call).unwrap();
    assert_eq!(call["content"][0]["text"], "looked up \"finch\"", "{call}");
    assert_eq!(call["_meta"]["finch/decidedBy"], "card:allowOnce");
    let cards = seen.cards.lock().unwrap();
    assert_eq!(cards.len(), 1);
    assert!(
        cards[0].starts_with("Permission needed: mcp__srv__lookup"),
        "{cards:?}"
    );
    assert!(cards[0].contains("owner: srv"), "{cards:?}");
}
