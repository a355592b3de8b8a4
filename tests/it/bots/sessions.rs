//! Sessions as the app runs them: the agent is told the session's id, title and the
//! container's agent profile; the bot gets `assistant.delta`, `assistant.message` and
//! `turn.completed`; a turn's result reaches the bot exactly once even when the host is killed
//! mid-turn; a session's queue is bounded; no secret value is in the agent's or node's
//! environment.

use std::time::Duration;

use serde_json::{Value, json};

use super::{FAST, bot, environ, eventually, install, processes_with, set_secret, unique};
use crate::common::TestContext;
use crate::common::procs::host_pid;

/// An agent that records its pid (and pid namespace), waits for `go` in its directory (the
/// agent home) when `wait`, and answers with what it was told.
fn agent_config(wait: bool) -> String {
    let gate = if wait {
        "while [ ! -e go ]; do sleep 0.05; done; "
    } else {
        ""
    };
    format!(
        "[agent]\ncommand = [\"sh\", \"-c\", \"echo \\\"$$ $(readlink /proc/self/ns/pid)\\\" > agent.pid.tmp && mv agent.pid.tmp agent.pid; {gate}printf 'id=%s title=%s system=%s prompt=%s' \\\"$FINCH_SESSION_ID\\\" \\\"$FINCH_SESSION_TITLE\\\" \\\"$FINCH_SYSTEM_PROMPT\\\" \\\"$0\\\"\", \"{{prompt}}\"]\n{FAST}"
    )
}

const PROFILE: &str = "You are Chat Bot. Answer in one line.";

fn approve() -> Vec<&'static str> {
    vec![
        "--approve",
        "chat-bot_inbound",
        "--approve",
        "chat-bot_replies",
    ]
}

/// The bot's deliveries: `(replies, events)`.
fn deliveries(live: &mut crate::common::LiveRun) -> (Vec<Value>, Vec<Value>) {
    let r = live.call("chat-bot_replies", json!({}));
    let s = &r["structuredContent"];
    (
        s["replies"].as_array().cloned().unwrap_or_default(),
        s["events"].as_array().cloned().unwrap_or_default(),
    )
}

fn sessions_json(ctx: &TestContext) -> Value {
    ctx.read_json(&ctx.runtime.join("minitool-sessions/chat-bot/sessions.json"))
}

#[test]
fn a_chat_turn_is_told_its_session_and_profile_and_every_event_reaches_the_bot_once() {
    let ctx = TestContext::new();
    ctx.write_config(&agent_config(false));
    install(&ctx, &bot());
    let mut live = ctx.live_run(&approve());
    let first = live.call(
        "chat-bot_inbound",
        json!({"chat": "alice", "text": "hello", "id": "m1"}),
    );
    let receipt = first["structuredContent"].clone();
    assert_eq!(receipt["state"], "accepted", "{first}");
    let sid = receipt["sessionId"].as_str().unwrap().to_string();
    let (replies, events) = eventually(Duration::from_secs(20), "the reply", || {
        let (replies, events) = deliveries(&mut live);
        (!replies.is_empty()).then_some((replies, events))
    });
    let want = format!("id={sid} title=Chat with alice system={PROFILE} prompt={PROFILE}\n\nhello");
    assert_eq!(
        replies,
        [json!({"turnId": receipt["turnId"], "sequence": 2, "text": want})]
    );
    // Live pieces of the output first, which together are the whole message; then the
    // durable events, each once, in order.
    let deltas: String = events
        .iter()
        .filter(|e| e["type"] == "assistant.delta")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, want);
    let durable: Vec<(Value, Value)> = events
        .iter()
        .filter(|e| e["type"] != "assistant.delta")
        .map(|e| (e["type"].clone(), e["sequence"].clone()))
        .collect();
    assert_eq!(
        durable,
        [
            (json!("assistant.message"), json!(1)),
            (json!("turn.completed"), json!(2))
        ]
    );
    assert_eq!(events.last().unwrap()["type"], "turn.completed");
    let message = events
        .iter()
        .find(|e| e["type"] == "assistant.message")
        .unwrap();
    assert_eq!(message["text"], want.as_str());
    // The same chat keeps its session: the agent is given the same id again.
    let second = live.call(
        "chat-bot_inbound",
        json!({"chat": "alice", "text": "again", "id": "m2"}),
    );
    assert_eq!(second["structuredContent"]["sessionId"], sid.as_str());
    let replies = eventually(Duration::from_secs(20), "the second reply", || {
        let (replies, _) = deliveries(&mut live);
        (replies.len() == 2).then_some(replies)
    });
    assert!(
        replies[1]["text"]
            .as_str()
            .unwrap()
            .starts_with(&format!("id={sid} ")),
        "{replies:?}"
    );
    // Everything was acknowledged: the outbox is empty.
    eventually(Duration::from_secs(5), "an empty outbox", || {
        (sessions_json(&ctx)["outbox"] == json!([])).then_some(())
    });
    let (code, stderr) = live.finish();
    assert_eq!(code, 0, "{stderr}");
    let doc = sessions_json(&ctx);
    assert_eq!(doc["sessions"][0]["title"], "Chat with alice");
    assert_eq!(doc["sessions"][0]["descriptor"]["profileId"], "bot");
}

/// The host is killed with SIGKILL while the agent works; the agent finishes meanwhile; the
/// next host that runs the bot delivers the reply — once, and never again after.
#[cfg(target_os = "linux")]
#[test]
fn a_reply_is_delivered_exactly_once_after_the_host_was_killed_mid_turn() {
    let ctx = TestContext::new();
    ctx.write_config(&agent_config(true));
    install(&ctx, &bot());
    let secret = unique(&ctx, "bot-secret");
    set_secret(&ctx, "chat-bot", "bot.token", &secret).success();
    let mut live = ctx.live_run(&approve());
    let sent = live.call(
        "chat-bot_inbound",
        json!({"chat": "bob", "text": "are you there", "id": "m1"}),
    );
    let receipt = sent["structuredContent"].clone();
    assert_eq!(receipt["state"], "accepted", "{sent}");
    let sid = receipt["sessionId"].as_str().unwrap().to_string();
    let turn = receipt["turnId"].as_str().unwrap().to_string();
    // The agent runs: its environment has the session and no secret; nor has the bot's node.
    let pid_file = ctx.agent.join("agent.pid");
    let agent = eventually(Duration::from_secs(20), "the agent", || {
        let text = std::fs::read_to_string(&pid_file).ok()?;
        let (pid, ns) = text.trim().split_once(' ')?;
        host_pid(pid.parse().ok()?, ns)
    });
    let env = environ(agent);
    assert!(env.contains(&format!("FINCH_SESSION_ID={sid}")), "{env:?}");
    assert!(
        env.contains(&"FINCH_SESSION_TITLE=Chat with bob".to_string()),
        "{env:?}"
    );
    assert!(env.iter().all(|e| !e.contains(&secret)), "{env:?}");
    let runtime = ctx.runtime.display().to_string();
    let nodes = processes_with(&runtime);
    assert!(!nodes.is_empty(), "the bot's node runs");
    for pid in nodes {
        let env = environ(pid);
        assert!(env.iter().all(|e| !e.contains(&secret)), "{pid}: {env:?}");
    }
    // Killed mid-turn.
    // SAFETY: kill only sends a signal to the host process this test started.
    unsafe {
        libc::kill(live.pid() as libc::pid_t, libc::SIGKILL);
    }
    live.wait();
    std::fs::write(ctx.agent.join("go"), "").unwrap();
    let status = ctx
        .runtime
        .join(format!("minitool-sessions/chat-bot/turns/{turn}.status"));
    eventually(Duration::from_secs(20), "the turn's end", || {
        status.exists().then_some(())
    });
    let replies_file = ctx.runtime.join("extension-data/chat-bot/replies.log");
    assert!(
        std::fs::read_to_string(&replies_file)
            .unwrap_or_default()
            .is_empty(),
        "nothing was delivered before the restart"
    );
    // The next host runs the bot: the reply arrives, once.
    let mut next = ctx.live_run(&approve());
    let replies = eventually(
        Duration::from_secs(20),
        "the reply after the restart",
        || {
            let (replies, _) = deliveries(&mut next);
            (!replies.is_empty()).then_some(replies)
        },
    );
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert_eq!(replies[0]["turnId"], turn.as_str());
    assert!(
        replies[0]["text"]
            .as_str()
            .unwrap()
            .starts_with(&format!("id={sid} title=Chat with bob")),
        "{replies:?}"
    );
    // Past the outbox's next look, still once.
    std::thread::sleep(Duration::from_millis(2500));
    let (replies, events) = deliveries(&mut next);
    assert_eq!(replies.len(), 1, "{replies:?}");
    let completed = events
        .iter()
        .filter(|e| e["type"] == "turn.completed")
        .count();
    assert_eq!(completed, 1, "{events:?}");
    let (code, stderr) = next.finish();
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(sessions_json(&ctx)["outbox"], json!([]));
    // A third host has nothing left to deliver.
    let mut third = ctx.live_run(&approve());
    std::thread::sleep(Duration::from_millis(1500));
    let (replies, _) = deliveries(&mut third);
    assert_eq!(replies.len(), 1, "{replies:?}");
    third.finish();
}

/// One turn of a session runs at a time, 16 are unfinished at most: the 17th gets the d.ts's
/// `queue_full` receipt, and nothing is started for it.
#[test]
fn a_session_queues_sixteen_turns_and_refuses_the_next_with_queue_full() {
    let ctx = TestContext::new();
    ctx.write_config(&agent_config(true));
    install(&ctx, &bot());
    let mut live = ctx.live_run(&approve());
    let mut receipts = Vec::new();
    for i in 0..17 {
        let r = live.call(
            "chat-bot_inbound",
            json!({"chat": "carol", "text": format!("message {i}"), "id": format!("m{i}")}),
        );
        receipts.push(r["structuredContent"].clone());
    }
    for (i, r) in receipts.iter().take(16).enumerate() {
        assert_eq!(r["state"], "accepted", "{i}: {r}");
        assert_eq!(r["queuePosition"], i, "{i}: {r}");
        assert_eq!(r["queued"], i > 0, "{i}: {r}");
    }
    let sid = receipts[0]["sessionId"].clone();
    assert_eq!(
        receipts[16],
        json!({"sessionId": sid, "state": "rejected", "queued": false, "code": "queue_full",
               "scope": "session", "pendingCount": 16, "limit": 16, "retryAfterMs": 1000})
    );
    let doc = sessions_json(&ctx);
    assert_eq!(doc["turns"].as_object().unwrap().len(), 16);
    std::fs::write(ctx.agent.join("go"), "").unwrap();
    let replies = eventually(Duration::from_secs(60), "sixteen replies", || {
        let (replies, _) = deliveries(&mut live);
        (replies.len() == 16).then_some(replies)
    });
    // In the order they were sent: one turn at a time.
    for (i, r) in replies.iter().enumerate() {
        assert!(
            r["text"]
                .as_str()
                .unwrap()
                .ends_with(&format!("message {i}")),
            "{i}: {r}"
        );
    }
    live.finish();
}
