//! A source of tools (`Provider`): one layer of SPEC §8.1, or part of one — the built-ins, the
//! suites, the mini tool runtime, the MCP bridge. The call pipeline (`host::call`) asks a
//! provider for its tools, for what it knows about a call of one of them (whether the kernel
//! wall applies, what a card should show, whether it may read the transcript), and to run it:
//! at once, or as a `Job` that holds nothing of the host and may run on any thread.

use std::sync::OnceLock;
use std::time::Instant;

use serde_json::Value;

use crate::host::call::confine::Walling;
use crate::host::call::context::CallCx;
use crate::host::call::denial::Blocked;
use crate::host::cancel;
use crate::host::catalog::{ToolDef, ToolSpec};
use crate::host::output::ToolOutput;
use crate::host::prompt::{self, Change, Prompter};
use crate::host::session::SessionState;
use crate::host::toolsearch::SourceFilter;

/// A source of tools: one layer, or part of one.
pub trait Provider {
    /// The tools it offers.
    fn defs(&self) -> Vec<ToolDef>;
    /// Runs one call of one of its tools; the arguments were validated and the call permitted.
    fn call(&mut self, tool: &ToolSpec, args: Value, cx: &mut CallCx) -> ToolOutput;
    /// Starts one call: by default it runs at once (`call`); a provider whose calls are
    /// independent of the host's state returns them as a `Job` instead.
    fn start(&mut self, tool: &ToolSpec, args: Value, cx: &mut CallCx) -> Started {
        Started::Done(self.call(tool, args, cx))
    }
    /// Whether this call only asks for the tool's manual (a dispatcher called without
    /// `action`): it runs without the gateway, since it reads nothing and changes nothing.
    fn is_manual_call(&self, _tool: &ToolSpec, _args: &Value) -> bool {
        false
    }
    /// How the kernel wall applies to calls of `tool`: by default the provider confines what
    /// it starts itself; a `Gated` tool (Bash) runs in the wall the pipeline chose beside the
    /// gate (`CallCx::plan`).
    fn wall(&self, _tool: &ToolSpec) -> Walling {
        Walling::Own
    }
    /// The one-line summary a card shows for a call (the command, the path, the URL); `None`
    /// shows the arguments.
    fn summary(&self, _tool: &ToolSpec, _args: &Value) -> Option<String> {
        None
    }
    /// What the tool may do wherever it runs, for its card's `sandbox` line when the kernel
    /// wall of Bash does not apply (a mini tool: what its manifest lets it do, and whether the
    /// kernel enforces that).
    fn card_reach(&self, _tool: &ToolSpec) -> Option<String> {
        None
    }
    /// What a call would change, for its card to show (a Write's content, an Edit's diff).
    fn card_change(
        &self,
        _tool: &ToolSpec,
        _args: &Value,
        _session: &SessionState,
    ) -> Option<Change> {
        None
    }
    /// Whether this call could read the session's transcript, and so must find every earlier
    /// call written in it first (`Host::defer_records`). By default it could.
    fn may_see_transcript(&self, _tool: &ToolSpec, _args: &Value, _session: &SessionState) -> bool {
        true
    }
    /// The sources this call searches when it searches the catalog (ToolSearch): the host
    /// first waits, bounded, for those still starting with no tools known.
    fn searches(&self, _tool: &ToolSpec, _args: &Value) -> Option<SourceFilter> {
        None
    }
    /// A number that moves whenever `defs` would answer differently without a call of this
    /// provider having said so (mini tools that finished starting in the background): the
    /// host rebuilds its catalog when it moved (`Host::refresh`).
    fn generation(&self) -> u64 {
        0
    }
    /// Tools of this provider that its own discovery finds for `query` (mini tools'
    /// `registerDiscoveryProvider`/`registerSearchProvider`), as `(source, raw name)`.
    fn discover(&self, _query: &str, _limit: usize) -> Vec<(String, String)> {
        Vec::new()
    }
    /// Hears of every call the host runs, of any layer (the mini tool runtime passes them on
    /// to `ctx.events`). It must not block.
    fn observe(&self, _event: &CallEvent) {}
    /// Sources of this provider still starting whose tools are not known at all yet (no
    /// cached ones stand in for them): `mcp:<server>`, `minitool:<id>`.
    fn starting(&self) -> Vec<String> {
        Vec::new()
    }
    /// The calls this provider made on its own for a mini tool since it was last asked (MCP
    /// tool calls through `mcp.client.callTool`), for the transcript.
    fn take_made_calls(&self) -> Vec<crate::host::call::record::MadeCall> {
        Vec::new()
    }
    /// Waits until `starting` is empty, at most until `deadline`.
    fn await_started(&self, _deadline: Instant) {}
    /// Why a tool of this name, unknown to the catalog, would be this provider's but was not
    /// started (a mini tool the kernel cannot confine and nobody agreed to run unconfined).
    fn not_started(&self, _name: &str) -> Option<String> {
        None
    }
}

/// A call as `Provider::observe` hears of it.
#[derive(Debug, Clone, Copy)]
pub enum CallEvent<'a> {
    /// A call is about to go through the gateway; `tool` is the name as asked, `call` the
    /// call's number in this process (its `Finished` carries the same).
    Started {
        tool: &'a str,
        session: &'a str,
        call: u64,
    },
    /// It ended (run, refused, or failed); `tool` is the name it resolved to.
    Finished {
        tool: &'a str,
        session: &'a str,
        is_error: bool,
        call: u64,
    },
}

/// What a running job gets: its cancellation, where its progress goes, a way to ask a person
/// (its `on_host` tasks run where the host's prompter is), and where it says the kernel wall
/// refused it.
pub struct JobCx<'a> {
    pub cancel: &'a cancel::Cancel,
    pub progress: &'a cancel::ProgressSink<'a>,
    pub on_host: &'a OnHost<'a>,
    /// What the wall refused the call (`report_blocked`).
    pub blocked: &'a OnceLock<Blocked>,
}

impl JobCx<'_> {
    /// Says that the kernel wall refused the call this: the pipeline records it, and may run
    /// the call again with what it needs (`call::escalate`). The first report counts.
    pub fn report_blocked(&self, blocked: Blocked) {
        let _ = self.blocked.set(blocked);
    }
}

/// Work a job hands to the thread that owns the host's prompter (a mini tool's dialog asked
/// during a call running as a job): it runs there, in turn with the cards.
pub type HostTask = Box<dyn FnOnce(&mut dyn Prompter) + Send>;

/// See `JobCx::on_host`.
pub type OnHost<'a> = dyn Fn(HostTask) + 'a;

/// Runs `HostTask`s at once with one prompter: a job run in place, on the thread that owns it.
pub struct InPlace<'a>(std::cell::RefCell<&'a mut dyn Prompter>);

impl<'a> InPlace<'a> {
    pub fn new(prompter: &'a mut dyn Prompter) -> InPlace<'a> {
        InPlace(std::cell::RefCell::new(prompter))
    }

    pub fn run(&self, task: HostTask) {
        match self.0.try_borrow_mut() {
            Ok(mut prompter) => task(&mut **prompter),
            // A task run from inside another one: nobody is free to answer it.
            Err(_) => task(&mut prompt::Nobody),
        }
    }
}

/// The provider's part of a call that needs nothing of the host (no `&mut` state: it took
/// what it needs when it was made), so it may run on another thread, side by side with other
/// calls (`finch run --serve mcp`).
pub type Job = Box<dyn FnOnce(&JobCx) -> ToolOutput + Send>;

/// How a provider starts a call (`Provider::start`).
pub enum Started {
    /// It ran on the host's thread; this is its output.
    Done(ToolOutput),
    /// It runs as this job, wherever the front end runs it.
    Job(Job),
    /// A job known to take little time (a Read of a small regular file): a front end that
    /// runs jobs on other threads runs this one in place, since the hand-off to another
    /// thread and back would cost more than the job (`Running::is_brief`).
    Brief(Job),
}

impl Started {
    /// The output, running a job here and now (what a provider's `call` does, and the
    /// pipeline for a manual). What the wall refused such a job is not kept: it is never run
    /// again with more.
    pub fn run_here(
        self,
        cancel: &cancel::Cancel,
        progress: &cancel::ProgressSink,
        prompter: &mut dyn Prompter,
    ) -> ToolOutput {
        match self {
            Started::Done(output) => output,
            Started::Job(job) | Started::Brief(job) => {
                let here = InPlace::new(prompter);
                job(&JobCx {
                    cancel,
                    progress,
                    on_host: &|task| here.run(task),
                    blocked: &OnceLock::new(),
                })
            }
        }
    }
}
