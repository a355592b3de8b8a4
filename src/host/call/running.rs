//! A call between the two halves of the pipeline: permitted, its provider's job not run yet
//! (`Running`, which holds nothing of the host and may move to another thread), then run
//! (`Ran`), for `Host::end` to record.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::record::{CallRecord, DecidedBy};
use crate::host::cancel;
use crate::host::output::ToolOutput;
use crate::host::provider::{self, JobCx, OnHost};
use crate::sandbox::Confine;

/// What `Host::begin` did with a call.
pub enum Begun {
    /// It ended (refused, failed, or its provider ran it) and is recorded.
    Done(CallRecord),
    /// It was permitted and its provider's job waits to run (`Running::run`), then for
    /// `Host::end`.
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
    pub sandbox: Option<Confine>,
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
            sandbox,
            ..
        } = self.job;
        let output = if cancel.is_cancelled() {
            cancel::cancelled_output(&tool)
        } else {
            job(&JobCx {
                cancel,
                progress,
                on_host,
            })
        };
        Ran {
            output,
            cancelled: cancel.is_cancelled(),
            tool,
            decided_by,
            sandbox,
            args: self.args,
            started: self.started,
        }
    }
}

/// A job that ran, for `Host::end` to record.
pub struct Ran {
    output: ToolOutput,
    cancelled: bool,
    tool: String,
    decided_by: DecidedBy,
    sandbox: Option<Confine>,
    args: Value,
    started: Stamp,
}

impl Ran {
    /// The call's record as `Host::end` makes it (before the host has seen it: a front end
    /// may answer with it at once).
    pub fn record(&self) -> CallRecord {
        let mut record = CallRecord::ran(
            self.tool.clone(),
            self.decided_by.clone(),
            self.output.clone(),
            self.cancelled,
        )
        .ran_in(self.sandbox);
        record.duration_ms = self.started.busy().as_secs_f64() * 1000.0;
        record
    }

    /// The record, the arguments and the stamp, for `Host::end`.
    pub(super) fn into_record(self) -> (CallRecord, Value, Stamp) {
        let record = CallRecord::ran(self.tool, self.decided_by, self.output, self.cancelled)
            .ran_in(self.sandbox);
        (record, self.args, self.started)
    }
}
