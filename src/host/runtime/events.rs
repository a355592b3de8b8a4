//! What the runtime tells its mini tools without being asked: `ctx.events.onAgentEvent` about
//! every call the host runs, `ctx.status` (running or idle), and broadcasts to every live
//! process. Pushes go only to processes that listen; nothing here blocks or fails a call.

use std::sync::atomic::Ordering;

use serde_json::{Value, json};

use super::protocol::HostPush;
use super::{Inner, now_iso};

impl Inner {
    /// `ctx.status.get()`: what the runtime knows of the run — whether a mini tool call is
    /// running. finch has no unread or waiting sessions to count.
    pub(crate) fn status_snapshot(&self) -> Value {
        let running = self.running.load(Ordering::SeqCst);
        json!({
            "status": if running > 0 { "running" } else { "idle" },
            "runningCount": running,
            "waitingCount": 0,
            "unreadCount": 0,
            "updatedAt": now_iso(),
        })
    }

    /// Pushes `method` to every live mini tool process (events, status, notifications).
    pub(super) fn broadcast(&self, method: HostPush, params: &Value) {
        for conn in self.instances.iter().filter_map(|i| i.conn()) {
            if conn.is_alive() {
                conn.notify(method, params.clone());
            }
        }
    }

    /// Whether any mini tool listens to `stream`: a call builds no event nobody hears.
    fn heard(&self, stream: &str) -> bool {
        self.instances
            .iter()
            .any(|i| i.state().listens.iter().any(|s| s == stream))
    }

    fn push_status(&self) {
        if self.heard("status") {
            self.push("status", HostPush::Status, &self.status_snapshot());
        }
    }

    /// `broadcast` to the mini tools that listen to `stream` (see `Instance::listen`).
    fn push(&self, stream: &str, method: HostPush, params: &Value) {
        for inst in &self.instances {
            let listening = inst.state().listens.iter().any(|s| s == stream);
            if let Some(conn) = inst.conn().filter(|c| listening && c.is_alive()) {
                conn.notify(method, params.clone());
            }
        }
    }

    /// An `AgentEvent` about a mini tool call, to every `ctx.events.onAgentEvent` listener.
    fn agent_event(
        &self,
        kind: &str,
        tool: &str,
        call_id: &str,
        session: &str,
        error: Option<bool>,
    ) {
        if !self.heard("agentEvents") {
            return;
        }
        let seq = self.call_seq.fetch_add(1, Ordering::SeqCst) + 1;
        let mut event = json!({
            "id": format!("evt_{seq}"),
            "kind": kind,
            "createdAt": now_iso(),
            "sessionId": session,
            "toolName": tool,
            "toolUseId": call_id,
        });
        if let Some(e) = error {
            event["isToolError"] = json!(e);
        }
        self.push("agentEvents", HostPush::AgentEvent, &event);
    }

    /// A call of any layer (`Provider::observe`): an `AgentEvent` to every
    /// `ctx.events.onAgentEvent` listener, and the run's status to `ctx.status` listeners.
    pub(super) fn observe(&self, event: &crate::host::CallEvent) {
        let (kind, tool, session, error, call) = match *event {
            crate::host::CallEvent::Started {
                tool,
                session,
                call,
            } => {
                self.running.fetch_add(1, Ordering::SeqCst);
                ("tool_use", tool, session, None, call)
            }
            crate::host::CallEvent::Finished {
                tool,
                session,
                is_error,
                call,
            } => {
                let _ = self
                    .running
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
                ("tool_result", tool, session, Some(is_error), call)
            }
        };
        // Calls overlap (jobs side by side): the host's number of the call pairs a
        // `tool_result` with its `tool_use`.
        if kind == "tool_use" {
            self.push_status();
        }
        self.agent_event(kind, tool, &format!("use_{call}"), session, error);
        if kind == "tool_result" {
            self.push_status();
        }
    }
}
