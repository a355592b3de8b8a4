//! A call between the two halves of the pipeline: permitted, its provider's job not run yet
//! (`Running`, which holds nothing of the host and may move to another thread), then run
//! (`Ran`), for `Host::end` to record — or to run again with what the wall refused it, when
//! a person or a flag allows that (`escalate`).

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::denial::Blocked;
use super::plan::CallPlan;
use super::record::{CallRecord, DecidedBy, Escalated, Failure, ModelNote};
use super::refusal::{Stands, wall_note};
use crate::host::cancel;
use crate::host::output::{Content, ToolOutput};
use crate::host::provider::{self, JobCx, OnHost};

/// What `Host::begin` (or `Host::end`) did with a call.
pub enum Begun {
    /// It ended (refused, failed, or its provider ran it) and is recorded.
    Done(CallRecord),
    /// Its provider's job waits to run (`Running::run`), then for `Host::end`.
    Running(Running),
}

/// What the first half of the pipeline made of a call: a record, or a provider's job still to
/// run.
pub(super) enum Work {
    Ended(CallRecord),
    Job(Job),
}

/// A provider's job, with what its record will say.
pub(super) struct Job {
    pub job: provider::Job,
    pub brief: bool,
    pub tool: String,
    pub decided_by: DecidedBy,
    /// Its plan: what the gate judged, and the wall it runs in when its tool is walled.
    pub plan: Box<CallPlan>,
    /// Set when it runs the call again after the wall refused it: the refusal, and the
    /// escalation granted.
    pub again: Option<Again>,
}

/// A second run of a call the wall refused.
#[derive(Debug, Clone)]
pub(super) struct Again {
    pub blocked: Blocked,
    pub escalated: Escalated,
}

/// A permitted call whose job has not run yet. It holds nothing of the host, so it may move
/// to another thread.
pub struct Running {
    job: Job,
    args: Value,
    started: Stamp,
}

/// When a call began, and its number in this process (so that `Provider::observe` can pair
/// the end of a call with its start when calls overlap), and how long a person spent at its
/// cards.
#[derive(Debug, Clone, Copy)]
pub(super) struct Stamp {
    at: Instant,
    pub call: u64,
    pub person: Duration,
}

impl Stamp {
    pub fn now() -> Stamp {
        static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Stamp {
            at: Instant::now(),
            call: CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1,
            person: Duration::ZERO,
        }
    }

    /// The call's own time: since it began, less the time a person spent at its cards.
    pub fn busy(&self) -> Duration {
        self.at.elapsed().saturating_sub(self.person)
    }
}

impl Running {
    pub(super) fn new(job: Job, args: Value, started: Stamp) -> Running {
        Running { job, args, started }
    }

    /// The model-facing name of the tool.
    pub fn tool(&self) -> &str {
        &self.job.tool
    }

    /// Whether its provider knows the job to be brief (`Started::Brief`): not worth a
    /// hand-off to another thread.
    pub fn is_brief(&self) -> bool {
        self.job.brief
    }

    /// Runs the job: on any thread, with no host borrowed. A call cancelled while it waited
    /// to run never starts.
    pub fn run(
        self,
        cancel: &cancel::Cancel,
        progress: &cancel::ProgressSink,
        on_host: &OnHost,
    ) -> Ran {
        let Job {
            job,
            tool,
            decided_by,
            plan,
            again,
            ..
        } = self.job;
        let blocked = OnceLock::new();
        let output = if cancel.is_cancelled() {
            cancel::cancelled_output(&tool)
        } else {
            job(&JobCx {
                cancel,
                progress,
                on_host,
                blocked: &blocked,
            })
        };
        Ran {
            output,
            cancelled: cancel.is_cancelled(),
            blocked: blocked.into_inner(),
            tool,
            decided_by,
            plan,
            again,
            args: self.args,
            started: self.started,
        }
    }
}

/// A job that ran, for `Host::end` to record.
pub struct Ran {
    pub(super) output: ToolOutput,
    pub(super) cancelled: bool,
    /// What the wall refused it, as its tool reported.
    pub(super) blocked: Option<Blocked>,
    pub(super) tool: String,
    pub(super) decided_by: DecidedBy,
    pub(super) plan: Box<CallPlan>,
    pub(super) again: Option<Again>,
    pub(super) args: Value,
    pub(super) started: Stamp,
}

impl Ran {
    /// Whether `Host::end` may offer to run it again: the wall refused its first run. A front
    /// end that answers calls as their jobs end (`--serve mcp`) leaves those to the host.
    pub fn may_escalate(&self) -> bool {
        self.blocked.is_some() && self.again.is_none() && !self.cancelled
    }

    /// The call's record as `Host::end` makes it when it runs nothing again (before the host
    /// has seen it: a front end may answer with it at once).
    pub fn record(&self) -> CallRecord {
        let mut record = CallRecord::ran(
            self.tool.clone(),
            self.decided_by.clone(),
            self.output.clone(),
            self.cancelled,
        )
        .ran_in(self.plan.wall.as_ref().map(|w| w.confine));
        record.duration_ms = self.started.busy().as_secs_f64() * 1000.0;
        record.blocked = self.blocked.clone();
        if let Some(again) = &self.again {
            record.escalation = Some(again.escalated.clone());
            match &self.blocked {
                Some(blocked) if !self.cancelled => {
                    let granted = &again.escalated.escalation;
                    let note = wall_note(blocked, Stands::StillRefused { granted });
                    record.output.content.push(Content::Text(note));
                    record.failure = Some(Failure::Blocked);
                    record.model_note = Some(ModelNote::WallStands);
                }
                _ => record.blocked = Some(again.blocked.clone()),
            }
        }
        record
    }
}
