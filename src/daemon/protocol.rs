//! What `finch daemon status|stop` and a running daemon say to each other on the socket: one
//! JSON request on one line, one JSON reply on one line, then the connection closes. The
//! status reply is also what `finch daemon status --json` prints (docs/json.md).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// A request to the daemon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "request", rename_all = "camelCase")]
pub enum Request {
    /// Every mini tool's state, and the schedule runner's.
    Status,
    /// Stop every mini tool and the schedule runner, then exit.
    Stop,
}

/// The daemon's reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "camelCase")]
pub enum Reply {
    Status(DaemonStatus),
    /// The daemon is stopping; `pid` ends once everything stopped.
    Stopping {
        pid: u32,
    },
    /// A request the daemon cannot read.
    Refused {
        message: String,
    },
}

/// A running daemon, as `finch daemon status --json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DaemonStatus {
    pub pid: u32,
    pub version: String,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub socket: PathBuf,
    /// The daemon's own resident memory, its mini tools' processes not counted.
    pub rss_bytes: Option<u64>,
    pub schedule: ScheduleStatus,
    pub minitools: Vec<MiniToolReport>,
}

/// The schedule runner beside the mini tools.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum ScheduleStatus {
    /// It fires the enabled tasks of `automation/tasks.json`.
    Running,
    /// It does not run; `reason` says why (no `[agent] command`, another schedule daemon).
    Off { reason: String },
}

/// One mini tool of a running daemon.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MiniToolReport {
    pub id: String,
    /// `running`, `starting`, `failed` or `stopped`.
    pub state: String,
    /// The host's pid of its `node`, while it has one.
    pub pid: Option<u32>,
    /// How often the daemon started it again after its process died.
    pub restarts: u32,
    /// Resident memory of its process and everything it started.
    pub rss_bytes: Option<u64>,
    /// Why it last stopped or could not start.
    pub last_error: Option<String>,
    pub log: PathBuf,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_one_tagged_object() {
        assert_eq!(
            serde_json::to_string(&Request::Status).unwrap(),
            r#"{"request":"status"}"#
        );
        assert_eq!(
            serde_json::from_str::<Request>(r#"{"request":"stop"}"#).unwrap(),
            Request::Stop
        );
        assert!(serde_json::from_str::<Request>(r#"{"request":"explode"}"#).is_err());
    }

    #[test]
    fn schedule_status_names_its_state() {
        let off = ScheduleStatus::Off {
            reason: "no agent".into(),
        };
        assert_eq!(
            serde_json::to_value(&off).unwrap(),
            serde_json::json!({"state": "off", "reason": "no agent"})
        );
        assert_eq!(
            serde_json::to_value(ScheduleStatus::Running).unwrap(),
            serde_json::json!({"state": "running"})
        );
    }
}
