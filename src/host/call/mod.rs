//! The call pipeline of SPEC §8.3–§8.5a, one path for every call (STYLE habit 11), shaped like
//! codex-rs's orchestrator: approval → choose the sandbox → attempt → typed retry on denial.
//! `Host` holds the catalog of every provider's tools, the session, the rules and whoever
//! answers permission cards, and runs each call through the same steps, each in a file:
//!
//! 1. `resolve` — the name (model-facing, else a raw name exactly one tool registered), the
//!    activation of a dynamic tool, the arguments against the tool's JSON Schema; a dispatcher
//!    called without `action` gets its manual and passes no gate;
//! 2. `plan` — what the call acts on, found once (`CallPlan`: a shell command parsed and
//!    classified once, paths resolved once, the disk's facts about them);
//! 3. `gate` — the gateway's verdict (`policy::decide`), the session's answers, `--approve`, or
//!    a card: `Gate::{Allowed, Refused, Withdrawn}`;
//! 4. `confine` — for a tool the kernel wall applies to (`Provider::wall`: Bash), the wall it
//!    runs in, chosen beside the gate and handed to the tool in its plan;
//! 5. attempt — the provider runs it, at once or as a `Job` (`Running`, on any thread);
//! 6. `record` — the call, who decided and the result go into the transcript (`CallRecord`).
//!
//! Every text a model reads when its call did not run is in `refusal`.
//!
//! Calls side by side: `Host::begin` runs steps 1–4 and hands a provider's job back
//! `Running`; `Running::run` runs it on any thread, and `Host::end` records it. `call_with`
//! does the three in a row (the console, `--jsonl`, `tool call`); `--serve mcp` runs jobs on a
//! pool while the host goes on with other requests. Records are written in the order calls
//! end.

pub mod confine;
pub mod context;
pub mod denial;
mod escalate;
pub mod gate;
pub mod plan;
pub mod record;
pub mod refusal;
pub mod resolve;
mod running;
mod sources;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use confine::{Walling, Walls};
use context::{CallCx, HostEvent};
use gate::{AtGate, Gate};
use plan::CallPlan;
use record::{CallRecord, DecidedBy, Decision, Step};
use resolve::{Resolved, Tools};
pub use running::{Begun, Ran, Running};
use running::{Stamp, Work};

use crate::host::cancel;
use crate::host::catalog::{Catalog, ToolDef};
use crate::host::env::HostEnv;
use crate::host::output::ToolOutput;
use crate::host::policy::Rules;
use crate::host::prompt::{CardAnswer, Prompter};
use crate::host::provider::{CallEvent, InPlace, Provider, Started};
use crate::host::schema::Schema;
use crate::host::session::{SessionState, TOOL_CALL_ENTRY};

/// The tool host of one session.
pub struct Host {
    env: Arc<HostEnv>,
    providers: Vec<Box<dyn Provider>>,
    /// For each catalog entry, the index of its provider.
    provider_of: Vec<usize>,
    /// Each provider's `generation` when the catalog was built.
    generations: Vec<u64>,
    catalog: Catalog,
    schemas: HashMap<usize, Schema>,
    rules: Rules,
    session: SessionState,
    prompter: Box<dyn Prompter>,
    events: Vec<HostEvent>,
    /// What the kernel wall can do here, found once.
    walls: Walls,
    /// The time people spent at this host's permission cards, all told: a call's timing
    /// leaves out its own share (`Stamp::person`).
    person_time: Duration,
}

impl Host {
    pub fn new(
        env: HostEnv,
        providers: Vec<Box<dyn Provider>>,
        rules: Rules,
        session: SessionState,
        prompter: Box<dyn Prompter>,
    ) -> Host {
        let (catalog, provider_of) = build_catalog(&providers);
        let generations = providers.iter().map(|p| p.generation()).collect();
        let walls = Walls::of(&env.settings.sandbox, &session.grants);
        Host {
            env: Arc::new(env),
            providers,
            provider_of,
            generations,
            catalog,
            schemas: HashMap::new(),
            rules,
            session,
            prompter,
            events: Vec::new(),
            walls,
            person_time: Duration::ZERO,
        }
    }

    pub fn env(&self) -> &HostEnv {
        &self.env
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    pub fn session(&self) -> &SessionState {
        &self.session
    }

    pub fn session_mut(&mut self) -> &mut SessionState {
        &mut self.session
    }

    /// Replaces the rules (after the rules files changed).
    pub fn set_rules(&mut self, rules: Rules) {
        self.rules = rules;
    }

    /// Whoever answers cards: what a job's `HostTask` runs with (`JobCx::on_host`).
    pub fn prompter_mut(&mut self) -> &mut dyn Prompter {
        self.prompter.as_mut()
    }

    /// What calls changed since the last time this was asked.
    pub fn take_events(&mut self) -> Vec<HostEvent> {
        std::mem::take(&mut self.events)
    }

    /// The one-line summary of a call of `name` a card shows (and a session's title): the
    /// command, the path, the URL — whole, never cut (issue 28: a tail past the cut ran unseen).
    /// Runs of blanks become one space; a line break shows as `⏎`, so a second command never
    /// reads as an argument of the first. The terminal card wraps and pages it.
    pub fn summary(&self, name: &str, args: &Value) -> String {
        let told = match self.catalog.lookup(name) {
            crate::host::catalog::Lookup::Found(i) => {
                self.providers[self.provider_of[i]].summary(self.catalog.get(i), args)
            }
            _ => None,
        };
        one_line(&told.unwrap_or_else(|| args.to_string()))
    }

    /// Runs one call through the whole pipeline and records it.
    pub fn call(&mut self, name: &str, args: Value) -> CallRecord {
        self.call_with(name, args, &cancel::Cancel::new(), &cancel::no_progress)
    }

    /// `call`, with a token the caller may set from another thread to stop the call, and a
    /// sink for its progress updates. A job runs here, and again here when the wall refused
    /// it and a person allowed more (`end`).
    pub fn call_with(
        &mut self,
        name: &str,
        args: Value,
        cancel: &cancel::Cancel,
        progress: &cancel::ProgressSink,
    ) -> CallRecord {
        let mut begun = self.begin(name, args, cancel, progress);
        loop {
            match begun {
                Begun::Done(record) => return record,
                Begun::Running(running) => {
                    let here = InPlace::new(self.prompter.as_mut());
                    let ran = running.run(cancel, progress, &|task| here.run(task));
                    begun = self.end(ran, cancel);
                }
            }
        }
    }

    /// The first half of a call that may run side by side with others: the pipeline up to
    /// the provider (resolve, plan, gate, confine). A call whose provider ran it at once is
    /// recorded and `Done`; a provider's `Job` comes back `Running`, to be run anywhere
    /// (`Running::run`, which needs no host) and handed to `end`, which records it.
    pub fn begin(
        &mut self,
        name: &str,
        args: Value,
        cancel: &cancel::Cancel,
        progress: &cancel::ProgressSink,
    ) -> Begun {
        if self.refresh() {
            self.events.push(HostEvent::ToolsChanged);
        }
        let mut stamp = Stamp::now();
        self.observe(&CallEvent::Started {
            tool: name,
            session: &self.session.id,
            call: stamp.call,
        });
        // A ToolSearch over sources still starting with no tools known (an MCP server still
        // connecting, nothing of it in the catalog cache) waits for them first, bounded:
        // otherwise it would answer without their tools, and an agent that searches first
        // would never find them.
        let unsearched = self.await_searched_sources(name, &args);
        let person_before = self.person_time;
        let work = self.attempt(name, args.clone(), cancel, progress);
        stamp.person = self.person_time.saturating_sub(person_before);
        match work {
            Work::Ended(mut record) => {
                if let Some(note) = unsearched {
                    record.output.content.push(note);
                }
                Begun::Done(self.settle(record, &args, stamp))
            }
            Work::Job(job) => Begun::Running(Running::new(job, args, stamp)),
        }
    }

    /// The second half of a `Running` call: records it as `call` would have — unless the
    /// kernel wall refused it and the escalation that fits is allowed (`escalate`): then the
    /// call comes back `Running` again, to be run as its first job was, with the same token.
    pub fn end(&mut self, ran: Ran, cancel: &cancel::Cancel) -> Begun {
        if ran.may_escalate() {
            return self.escalate(ran, cancel);
        }
        let record = ran.record();
        Begun::Done(self.settle(record, &ran.args, ran.started))
    }

    /// Steps 1 to 5: resolve, plan, gate, confine, and start the provider.
    fn attempt(
        &mut self,
        name: &str,
        args: Value,
        cancel: &cancel::Cancel,
        progress: &cancel::ProgressSink,
    ) -> Work {
        let tools = Tools {
            catalog: &self.catalog,
            providers: &self.providers,
            provider_of: &self.provider_of,
            active: &self.session.active,
        };
        let index = match tools.resolve(name, &args, &mut self.schemas) {
            Ok(Resolved::Tool(index)) => index,
            Ok(Resolved::Manual(index)) => {
                // The manual: nothing runs, so nothing needs permission.
                let tool = self.catalog.get(index).name.clone();
                let plan = CallPlan::unplanned(self.workspace());
                let started = self.dispatch(index, args, cancel, progress, &plan);
                let output = started.run_here(cancel, progress, self.prompter.as_mut());
                let by = DecidedBy::Pipeline(Step::Manual);
                let failure = output.is_error.then_some(record::Failure::ToolError);
                return Work::Ended(CallRecord::new(tool, Decision::None, by, output, failure));
            }
            Err(rejected) => {
                let output = ToolOutput::error(rejected.refusal.text());
                let by = DecidedBy::Pipeline(rejected.step);
                let failure = Some(rejected.failure);
                return Work::Ended(
                    CallRecord::new(rejected.tool, Decision::None, by, output, failure)
                        .refused(rejected.refusal),
                );
            }
        };
        let tool = self.catalog.get(index);
        let provider = &self.providers[self.provider_of[index]];
        let tool_ref = crate::host::tool::ToolRef {
            name: &tool.name,
            layer: tool.def.layer,
            owner: tool.def.owner.as_deref(),
            risk: tool.def.risk,
        };
        let mut plan = CallPlan::new(&tool_ref, &args, self.workspace());
        let change = |session: &SessionState| provider.card_change(tool, &args, session);
        let at_gate = AtGate {
            tool,
            args: &args,
            plan: &plan,
            walled: provider.wall(tool) == Walling::Gated,
            reach: provider.card_reach(tool),
            walls: &self.walls,
            rules: &self.rules,
            summary: one_line(
                &provider
                    .summary(tool, &args)
                    .unwrap_or_else(|| args.to_string()),
            ),
            change: &change,
        };
        let (gate, person) =
            gate::pass(&at_gate, &mut self.session, self.prompter.as_mut(), cancel);
        self.person_time += person;
        let tool_name = tool.name.clone();
        let (by, wall) = match gate {
            Gate::Withdrawn => {
                // Cancelled while its card was open, and the card taken back: nobody decided.
                let by = DecidedBy::Card(CardAnswer::Withdrawn);
                let output = cancel::cancelled_output(&tool_name);
                let failure = Some(record::Failure::Cancelled);
                return Work::Ended(CallRecord::new(
                    tool_name,
                    Decision::None,
                    by,
                    output,
                    failure,
                ));
            }
            Gate::Refused { by, refusal } => {
                let output = ToolOutput::error(refusal.text());
                let failure = Some(record::Failure::Refused);
                return Work::Ended(
                    CallRecord::new(tool_name, Decision::Deny, by, output, failure)
                        .refused(refusal),
                );
            }
            Gate::Allowed { by, confine } => (by, confine),
        };
        if cancel.is_cancelled() {
            // Cancelled while its card was open: it never starts.
            let output = cancel::cancelled_output(&tool_name);
            let failure = Some(record::Failure::Cancelled);
            return Work::Ended(CallRecord::new(
                tool_name,
                Decision::Allow,
                by,
                output,
                failure,
            ));
        }
        plan.wall = wall;
        let sandbox = plan.wall.as_ref().map(|w| w.confine);
        let job = |job, brief, plan| {
            Work::Job(running::Job {
                job,
                brief,
                tool: tool_name.clone(),
                decided_by: by.clone(),
                plan,
                again: None,
            })
        };
        match self.dispatch(index, args, cancel, progress, &plan) {
            Started::Done(output) => Work::Ended(
                CallRecord::ran(tool_name.clone(), by.clone(), output, cancel.is_cancelled())
                    .ran_in(sandbox),
            ),
            Started::Job(j) => job(j, false, Box::new(plan)),
            Started::Brief(j) => job(j, true, Box::new(plan)),
        }
    }

    /// The session's workspace as the gateway sees it: the runtime home is protected.
    fn workspace(&self) -> crate::host::policy::Workspace {
        let mut workspace = self.session.workspace();
        workspace.runtime = Some(self.env.homes.runtime.clone());
        workspace
    }

    /// Starts the call on its provider, with everything `CallCx` lends it.
    fn dispatch(
        &mut self,
        index: usize,
        args: Value,
        cancel: &cancel::Cancel,
        progress: &cancel::ProgressSink,
        plan: &CallPlan,
    ) -> Started {
        if self.session.has_pending_records() && self.may_see_transcript(index, &args) {
            self.write_records();
        }
        let at = self.provider_of[index];
        let tool = self.catalog.get(index);
        let (before, rest) = self.providers.split_at_mut(at);
        let Some((provider, after)) = rest.split_first_mut() else {
            let refusal = refusal::Refusal::NoProvider {
                tool: tool.name.clone(),
            };
            return Started::Done(ToolOutput::error(refusal.text()));
        };
        let discover = |query: &str, limit: usize| -> Vec<(String, String)> {
            before
                .iter()
                .chain(after.iter())
                .flat_map(|p| p.discover(query, limit))
                .collect()
        };
        let mut cx = CallCx {
            env: &self.env,
            session: &mut self.session,
            catalog: &self.catalog,
            prompter: self.prompter.as_mut(),
            events: &mut self.events,
            discover: &discover,
            cancel,
            progress,
            plan,
        };
        provider.start(tool, args, &mut cx)
    }

    /// Times (leaving out the time at its cards), announces and records a call that ended.
    fn settle(&mut self, mut record: CallRecord, args: &Value, stamp: Stamp) -> CallRecord {
        record.duration_ms = stamp.busy().as_secs_f64() * 1000.0;
        // A provider whose tools changed during the call (an MCP server listed again while
        // its job ran): the catalog follows now, not at the next call.
        if self.refresh() {
            self.events.push(HostEvent::ToolsChanged);
        }
        self.observe(&CallEvent::Finished {
            tool: &record.tool,
            session: &self.session.id,
            is_error: record.output.is_error,
            call: stamp.call,
        });
        // An embedded resource's bytes are the file's, not the call's: the transcript keeps
        // its URI and type.
        // The calls its mini tools made meanwhile (`mcp.client.callTool`) came first.
        self.record_made_calls();
        let result = record.output.without_blobs();
        let entry = record.entry(args, &result);
        let now = self.env.now_utc();
        if let Err(e) = self.session.record(TOOL_CALL_ENTRY, &entry, now) {
            // The call happened; losing its record is worth saying, not worth failing it.
            crate::eline!("warning: could not record the call in the transcript: {e}");
        }
        record
    }

    /// Records the calls providers made for mini tools (`Provider::take_made_calls`) as any
    /// call is recorded, each naming the mini tool that made it.
    fn record_made_calls(&mut self) {
        let made: Vec<_> = self
            .providers
            .iter()
            .flat_map(|p| p.take_made_calls())
            .collect();
        for call in made {
            let result = call.record.output.without_blobs();
            let entry = call.record.entry(&call.arguments, &result);
            let now = self.env.now_utc();
            if let Err(e) = self.session.record(TOOL_CALL_ENTRY, &entry, now) {
                crate::eline!("warning: could not record the call in the transcript: {e}");
            }
        }
    }

    /// Ends the session: records what mini tools made last, writes what waits and flushes
    /// the transcript.
    pub fn finish(&mut self) -> Result<(), crate::session::SessionError> {
        self.record_made_calls();
        self.session.sync()
    }

    /// Lets the call records wait and be written several at once (`write_records`, or when
    /// 64 wait): what `finch run --serve mcp` does, which writes them once it has been idle
    /// for a moment. A call that may look at the transcript sees it whole: the records that
    /// wait are written before it runs (`Provider::may_see_transcript`).
    pub fn defer_records(&mut self) {
        self.session.defer_records();
    }

    /// Whether call records wait to be written.
    pub fn has_pending_records(&self) -> bool {
        self.session.has_pending_records()
    }

    /// Writes the call records that wait.
    pub fn write_records(&mut self) {
        if let Err(e) = self.session.flush_records() {
            crate::eline!("warning: could not record calls in the transcript: {e}");
        }
    }

    /// Whether the tool at `index`, called with `args`, could read this session's transcript
    /// and so must find every earlier call in it (its provider says).
    fn may_see_transcript(&self, index: usize, args: &Value) -> bool {
        let tool = self.catalog.get(index);
        self.providers[self.provider_of[index]].may_see_transcript(tool, args, &self.session)
    }
}

fn build_catalog(providers: &[Box<dyn Provider>]) -> (Catalog, Vec<usize>) {
    let mut defs: Vec<ToolDef> = Vec::new();
    let mut provider_of = Vec::new();
    for (i, p) in providers.iter().enumerate() {
        for def in p.defs() {
            defs.push(def);
            provider_of.push(i);
        }
    }
    (Catalog::build(defs), provider_of)
}

/// A summary on one line: runs of blanks become one space, a line break shows as `⏎`.
pub fn one_line(text: &str) -> String {
    text.trim()
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join(" ⏎ ")
}
