//! The tool host of SPEC §8 (`finch run`, `finch tool call`): one `Host` holds the catalog of
//! every provider's tools, the session, the rules, and whoever answers permission cards, and
//! runs each call through the same pipeline:
//!
//! 1. resolve the name (model-facing, else a raw name exactly one tool registered);
//! 2. a dynamic tool must have been activated by ToolSearch;
//! 3. a dispatcher called without `action` returns its manual (nothing runs, nothing to permit;
//!    the provider says which calls those are);
//! 4. the arguments must satisfy the tool's JSON Schema;
//! 5. the permission gateway (`policy::decide`), then "Allow for this session" answers,
//!    `--approve`, or a card;
//! 6. the provider runs the call;
//! 7. the call, the decision, who decided and the result go into the transcript.
//!
//! Providers are the four layers: `builtins`, `suites`, and (through the same trait) the mini
//! tool runtime and the MCP bridge. `assembly` builds a host from plain options (which providers,
//! when they start, the rules, the transcript); the front ends in `frontend` (console, JSON
//! lines, MCP) only call `Host::call` / `call_with`.
//!
//! Calls side by side: step 6 may be a `Job` (`Provider::start`) that holds what it needs and
//! nothing of the host. `Host::begin` runs steps 1–5 and returns such a call `Running`;
//! `Running::run` runs the job on any thread, and `Host::end` does step 7. `call_with` does the
//! three in a row (the console, `--jsonl`, `tool call`); `--serve mcp` runs jobs on a pool while
//! the host goes on with other requests. Records are written in the order calls end.

pub mod assembly;
pub mod builtins;
pub mod cancel;
pub mod catalog;
pub mod control;
pub mod frontend;
pub mod hints;
pub mod mcp;
pub mod naming;
pub mod output;
pub mod policy;
pub mod prompt;
pub mod runtime;
pub mod schema;
pub mod session;
pub mod suites;
pub mod tool;
pub mod toolsearch;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, FixedOffset, Utc};
use serde_json::Value;

use crate::config::Settings;
use crate::env::Env;
use crate::homes::Homes;
use crate::sandbox::Confine;
use catalog::{Catalog, Exposure, Lookup, ToolDef, ToolSpec};
use output::ToolOutput;
use policy::{Decision, Rules, ToolCall};
use prompt::{Card, CardAnswer, Prompter};
use schema::Schema;
use session::{SessionState, TOOL_CALL_ENTRY};
use tool::ToolRef;

/// The model-facing name of the ToolSearch dispatcher.
const TOOL_SEARCH: &str = "ToolSearch";

/// `20 s`, `1.5 s`, `300 ms`.
fn humantime(d: std::time::Duration) -> String {
    if d < std::time::Duration::from_secs(1) {
        format!("{} ms", d.as_millis())
    } else if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// What the host needs from the process, resolved once: homes, settings, environment, clock.
#[derive(Debug, Clone)]
pub struct HostEnv {
    pub homes: Homes,
    pub settings: Settings,
    pub env: Env,
    /// A fixed clock (`FINCH_NOW`); the system clock when `None`.
    pub fixed_now: Option<DateTime<FixedOffset>>,
    /// The front end passes embedded resources on (`finch run --serve mcp`): Read then also
    /// returns a PDF's original as one, beside its text.
    pub embed_resources: bool,
}

impl HostEnv {
    pub fn now(&self) -> DateTime<FixedOffset> {
        self.fixed_now
            .unwrap_or_else(|| chrono::Local::now().fixed_offset())
    }

    pub fn now_utc(&self) -> DateTime<Utc> {
        self.now().with_timezone(&Utc)
    }
}

/// Something a call changed that a front end may want to announce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostEvent {
    /// ToolSearch activated these dynamic tools (MCP: `tools/list_changed`).
    ToolsActivated(Vec<String>),
    /// Mini tools were added, removed, enabled or disabled: the host reloads its providers.
    MiniToolsChanged,
    /// A provider's tools changed (a mini tool registered or disposed tools during a call):
    /// the host rebuilds its catalog.
    ToolsChanged,
}

/// What a provider gets for one call.
pub struct CallCx<'a> {
    /// Shared, so a provider's `Job` can keep it.
    pub env: &'a Arc<HostEnv>,
    pub session: &'a mut SessionState,
    pub catalog: &'a Catalog,
    pub prompter: &'a mut dyn Prompter,
    pub events: &'a mut Vec<HostEvent>,
    /// Asks the other providers' discovery (search) providers about a query: `(source, raw
    /// name)` of the tools they name (ToolSearch merges them into its ranking).
    pub discover: &'a Discover<'a>,
    /// Set when the caller no longer wants the result (see `cancel`).
    pub cancel: &'a cancel::Cancel,
    /// Where the call's progress updates go (see `cancel`).
    pub progress: &'a cancel::ProgressSink<'a>,
    /// How the gateway's decision confines the call (Bash: the kernel wall's profile).
    pub confine: Confine,
}

/// See `CallCx::discover`.
pub type Discover<'a> = dyn Fn(&str, usize) -> Vec<(String, String)> + 'a;

/// What a running job gets: its cancellation, where its progress goes, and a way to ask a
/// person (its `on_host` tasks run where the host's prompter is).
pub struct JobCx<'a> {
    pub cancel: &'a cancel::Cancel,
    pub progress: &'a cancel::ProgressSink<'a>,
    pub on_host: &'a OnHost<'a>,
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
    /// The output, running a job here and now (what a provider's `call` and a front end that
    /// runs calls one at a time do).
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
                })
            }
        }
    }
}

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

/// Why a call did not produce a tool's own result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    UnknownTool,
    /// A dynamic tool not activated by ToolSearch.
    NotActive,
    InvalidArguments,
    /// Denied by a rule, a card, or nobody to ask.
    Refused,
    /// The tool ran and reported an error.
    ToolError,
    /// The caller cancelled it (`cancel::Cancel`) while its card was open or while it ran.
    Cancelled,
}

impl Failure {
    pub fn as_str(self) -> &'static str {
        match self {
            Failure::UnknownTool => "unknownTool",
            Failure::NotActive => "notActive",
            Failure::InvalidArguments => "invalidArguments",
            Failure::Refused => "refused",
            Failure::ToolError => "toolError",
            Failure::Cancelled => "cancelled",
        }
    }
}

/// One call as it happened.
#[derive(Debug, Clone)]
pub struct CallRecord {
    /// The model-facing name (or the name as given when it resolved to nothing).
    pub tool: String,
    /// `allow`, `deny`, or `none` when the call never reached the gateway.
    pub decision: &'static str,
    /// The rule, mode, card answer or pipeline step that decided.
    pub decided_by: String,
    pub output: ToolOutput,
    pub failure: Option<Failure>,
    pub duration_ms: f64,
    /// How the call ran when the kernel wall applies to its tool (Bash): `none`, `read-only`
    /// or `workspace-write`.
    pub sandbox: Option<Confine>,
}

impl CallRecord {
    pub fn to_json(&self) -> Value {
        let mut out = self.output.to_json();
        if let Some(map) = out.as_object_mut() {
            map.insert("tool".into(), self.tool.clone().into());
            map.insert("decision".into(), self.decision.into());
            map.insert("decidedBy".into(), self.decided_by.clone().into());
            if let Some(f) = self.failure {
                map.insert("failure".into(), f.as_str().into());
            }
            if let Some(confine) = self.sandbox {
                map.insert("sandbox".into(), confine.as_str().into());
            }
        }
        out
    }
}

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

    /// Rebuilds the catalog from the providers (after mini tools changed). Activations and
    /// session answers are kept by name.
    pub fn rebuild_catalog(&mut self) {
        let (catalog, provider_of) = build_catalog(&self.providers);
        self.catalog = catalog;
        self.provider_of = provider_of;
        self.generations = self.providers.iter().map(|p| p.generation()).collect();
        self.schemas.clear();
    }

    /// Rebuilds the catalog when a provider's tools changed on their own (mini tools that
    /// finished starting in the background) and says whether it did. Every call does this
    /// first; a front end that lists tools does it before listing.
    pub fn refresh(&mut self) -> bool {
        let moved = self
            .providers
            .iter()
            .zip(&self.generations)
            .any(|(p, g)| p.generation() != *g);
        if moved {
            self.rebuild_catalog();
        }
        moved
    }

    /// Stops every provider (their processes and connections end when they are dropped) and
    /// empties the catalog: the first half of a reload.
    pub fn clear_providers(&mut self) {
        self.providers.clear();
        self.rebuild_catalog();
    }

    /// Installs new providers and rebuilds the catalog: the second half of a reload. The
    /// session (activations, answers, transcript) is kept.
    pub fn set_providers(&mut self, providers: Vec<Box<dyn Provider>>) {
        self.providers = providers;
        self.rebuild_catalog();
    }

    /// The tools the session can call now: every startup tool and the activated dynamic ones.
    pub fn active_tools(&self) -> Vec<&ToolSpec> {
        self.catalog
            .tools()
            .iter()
            .filter(|t| self.is_active(t))
            .collect()
    }

    fn is_active(&self, tool: &ToolSpec) -> bool {
        tool.def.exposure == Exposure::Startup || self.session.active.contains(&tool.name)
    }

    fn observe(&self, event: &CallEvent) {
        for provider in &self.providers {
            provider.observe(event);
        }
    }

    /// Whoever answers cards: what a job's `HostTask` runs with (`JobCx::on_host`).
    pub fn prompter_mut(&mut self) -> &mut dyn Prompter {
        self.prompter.as_mut()
    }

    /// How long ToolSearch waits for sources still starting: `[mcp] timeout`, the bound of a
    /// server's connection. (Mini tools never count as starting: those the catalog cache has
    /// no tools of activate before the host answers.)
    fn source_wait(&self) -> std::time::Duration {
        self.env.settings.mcp.timeout
    }

    /// The sources a ToolSearch with `args` would search that are still starting with no
    /// tools known (`Provider::starting`).
    fn starting_for(&self, args: &Value) -> Vec<String> {
        let filter = args
            .get("source")
            .and_then(Value::as_str)
            .and_then(|s| toolsearch::SourceFilter::parse(s).ok())
            .unwrap_or(toolsearch::SourceFilter::Any);
        self.providers
            .iter()
            .flat_map(|p| p.starting())
            .filter(|source| {
                let layer = if source.starts_with("mcp:") {
                    tool::Layer::Mcp
                } else {
                    tool::Layer::MiniTool
                };
                filter.admits_source(layer, source)
            })
            .collect()
    }

    /// Before a ToolSearch: waits (at most `source_wait`) for the sources it searches whose
    /// tools are not known yet (`starting`) — an MCP server still connecting with nothing in
    /// the catalog cache — so that it does not answer without tools a moment away; rebuilds
    /// the catalog, and returns those of `starting` that still have no tool in it.
    fn await_sources(&mut self, starting: Vec<String>) -> Vec<String> {
        let deadline = Instant::now() + self.source_wait();
        for provider in &self.providers {
            provider.await_started(deadline);
        }
        if self.refresh() {
            self.events.push(HostEvent::ToolsChanged);
        }
        let tools = self.catalog.tools();
        starting
            .into_iter()
            .filter(|source| !tools.iter().any(|t| &t.def.source == source))
            .collect()
    }

    /// What calls changed since the last time this was asked.
    pub fn take_events(&mut self) -> Vec<HostEvent> {
        std::mem::take(&mut self.events)
    }

    /// Runs one call through the whole pipeline and records it.
    pub fn call(&mut self, name: &str, args: Value) -> CallRecord {
        self.call_with(name, args, &cancel::Cancel::new(), &cancel::no_progress)
    }

    /// `call`, with a token the caller may set from another thread to stop the call, and a
    /// sink for its progress updates.
    pub fn call_with(
        &mut self,
        name: &str,
        args: Value,
        cancel: &cancel::Cancel,
        progress: &cancel::ProgressSink,
    ) -> CallRecord {
        match self.begin(name, args, cancel, progress) {
            Begun::Done(record) => record,
            Begun::Running(running) => {
                let here = InPlace::new(self.prompter.as_mut());
                let ran = running.run(cancel, progress, &|task| here.run(task));
                self.end(ran)
            }
        }
    }

    /// The first half of a call that may run side by side with others: the pipeline up to
    /// the provider (resolve, validate, gate, card). A call whose provider ran it at once is
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
        let mut started = Stamp::now();
        self.observe(&CallEvent::Started {
            tool: name,
            session: &self.session.id,
            call: started.call,
        });
        // A ToolSearch over sources still starting with no tools known (an MCP server still
        // connecting, nothing of it in the catalog cache) waits for them first, bounded:
        // otherwise it would answer without their tools, and an agent that searches first
        // would never find them.
        let starting = if name == TOOL_SEARCH {
            self.starting_for(&args)
        } else {
            Vec::new()
        };
        let unsearched = if starting.is_empty() {
            starting
        } else {
            self.await_sources(starting)
        };
        let person_before = self.person_time;
        let mut outcome = self.run_call(name, args.clone(), cancel, progress);
        started.person = self.person_time.saturating_sub(person_before);
        if let (false, Outcome::Record(record)) = (unsearched.is_empty(), &mut outcome) {
            record.output.content.push(output::Content::Text(format!(
                    "Not searched: {} (no tools known after {}: still starting, or it failed to start); search again later.",
                    unsearched.join(", "),
                    humantime(self.source_wait())
                )));
        }
        match outcome {
            Outcome::Record(record) => Begun::Done(self.settle(record, &args, started)),
            Outcome::Job {
                job,
                brief,
                tool,
                decided_by,
                sandbox,
            } => Begun::Running(Running {
                job,
                brief,
                tool,
                decided_by,
                sandbox,
                args,
                started,
            }),
        }
    }

    /// The second half of a `Running` call: records it as `call` would have. A fast-lane
    /// Bash command the read-only sandbox stopped gets its escalation card first
    /// (`escalate_walled`).
    pub fn end(&mut self, ran: Ran) -> CallRecord {
        let mut record = ran.record();
        let mut started = ran.started;
        let person_before = self.person_time;
        if let Some(escalated) = self.escalate_walled(&record, &ran.args) {
            record = escalated;
        }
        started.person += self.person_time.saturating_sub(person_before);
        self.settle(record, &ran.args, started)
    }

    /// The last step of the pipeline (verdict → sandbox → attempt → escalation): a command the
    /// fast lane ran in the read-only sandbox that failed with a refusal (`sandboxBlocked`) is
    /// shown on a card — "the sandbox stopped it; run it again with write access?" — and run
    /// again where `[sandbox] approved` says when a person allows it. With nobody to ask the
    /// first result stands (its text tells the model about `escalate`). The second run cannot
    /// be cancelled from outside: the call's own token belonged to the first.
    fn escalate_walled(&mut self, record: &CallRecord, args: &Value) -> Option<CallRecord> {
        let blocked = record.sandbox == Some(Confine::ReadOnly)
            && record.failure.is_none()
            && record
                .output
                .structured
                .as_ref()
                .is_some_and(|s| s["sandboxBlocked"] == true);
        if !blocked {
            return None;
        }
        let Lookup::Found(index) = self.catalog.lookup(&record.tool) else {
            return None;
        };
        let approved = builtins::bash::approved_confine(&self.env.settings.sandbox);
        let tool = self.catalog.get(index);
        let stderr = record
            .output
            .structured
            .as_ref()
            .and_then(|s| s["stderr"].as_str())
            .and_then(|e| e.lines().find(|l| crate::sandbox::looks_blocked(l)))
            .unwrap_or("a refusal")
            .to_string();
        let card = Card {
            tool: tool.name.clone(),
            title: tool.def.title.clone(),
            layer: tool.def.layer.as_str(),
            owner: tool.def.owner.clone(),
            risk: tool::Risk::Medium,
            summary: summary(&tool.name, args),
            reason: format!(
                "it ran without a card in finch's read-only sandbox and was stopped ({stderr}); \
                 allowed, it runs again with write access"
            ),
            session_allow_offered: false,
            sandbox: Some(approved.describe()),
            unsandboxed_offered: approved != Confine::Unconfined,
            change: None,
        };
        let asked = Instant::now();
        let answer = self.prompter.card(&card);
        self.person_time += asked.elapsed();
        if !answer.allows() {
            return None;
        }
        let confine = match answer {
            CardAnswer::AllowUnsandboxed => Confine::Unconfined,
            _ => approved,
        };
        let cancel = cancel::Cancel::new();
        let started = self.dispatch(index, args.clone(), &cancel, &cancel::no_progress, confine);
        let output = started.run_here(&cancel, &cancel::no_progress, self.prompter.as_mut());
        Some(CallRecord {
            tool: record.tool.clone(),
            decision: "allow",
            decided_by: answer.decided_by().to_string(),
            failure: output.is_error.then_some(Failure::ToolError),
            output,
            duration_ms: 0.0,
            sandbox: Some(confine),
        })
    }

    /// Times (leaving out the time at its cards), announces and records a call that ended.
    fn settle(&mut self, mut record: CallRecord, args: &Value, started: Stamp) -> CallRecord {
        record.duration_ms = started.busy().as_secs_f64() * 1000.0;
        // A provider whose tools changed during the call (an MCP server listed again while
        // its job ran): the catalog follows now, not at the next call.
        if self.refresh() {
            self.events.push(HostEvent::ToolsChanged);
        }
        self.observe(&CallEvent::Finished {
            tool: &record.tool,
            session: &self.session.id,
            is_error: record.output.is_error,
            call: started.call,
        });
        let data = CallEntry {
            tool: &record.tool,
            arguments: args,
            decision: record.decision,
            decided_by: &record.decided_by,
            // An embedded resource's bytes are the file's, not the call's: the transcript keeps
            // its URI and type.
            result: &record.output.without_blobs(),
            is_error: record.output.is_error,
            duration_ms: (record.duration_ms * 1000.0).round() / 1000.0,
            sandbox: record.sandbox.map(Confine::as_str),
        };
        let now = self.env.now_utc();
        if let Err(e) = self.session.record(TOOL_CALL_ENTRY, &data, now) {
            // The call happened; losing its record is worth saying, not worth failing it.
            crate::eline!("warning: could not record the call in the transcript: {e}");
        }
        record
    }

    fn run_call(
        &mut self,
        name: &str,
        args: Value,
        cancel: &cancel::Cancel,
        progress: &cancel::ProgressSink,
    ) -> Outcome {
        let rejected = |tool: &str, failure: Failure, decided_by: &str, message: String| {
            Outcome::Record(CallRecord {
                tool: tool.to_string(),
                decision: "none",
                decided_by: decided_by.to_string(),
                output: ToolOutput::error(message),
                failure: Some(failure),
                duration_ms: 0.0,
                sandbox: None,
            })
        };
        let index = match self.catalog.lookup(name) {
            Lookup::Found(i) => i,
            Lookup::Unknown => {
                if let Some(why) = self.providers.iter().find_map(|p| p.not_started(name)) {
                    return rejected(name, Failure::Refused, "notStarted", why);
                }
                return rejected(
                    name,
                    Failure::UnknownTool,
                    "unknownTool",
                    self.unknown_tool_message(name),
                );
            }
            Lookup::Ambiguous => {
                let message = format!(
                    "`{name}` is registered by several tools: call one of {} by its full name.",
                    self.catalog.candidates(name).join(", ")
                );
                return rejected(name, Failure::UnknownTool, "unknownTool", message);
            }
        };
        let tool = self.catalog.get(index);
        let tool_name = tool.name.clone();
        if !self.is_active(tool) {
            let message = format!(
                "`{tool_name}` is not active in this session yet. Call ToolSearch with a query \
                 that finds it (for example {{\"query\": \"{}\"}}) to activate it, then call it again.",
                tool.def.raw_name
            );
            return rejected(&tool_name, Failure::NotActive, "notActive", message);
        }
        let Value::Object(_) = &args else {
            let message =
                format!("The arguments of `{tool_name}` must be a JSON object, not `{args}`.");
            return rejected(
                &tool_name,
                Failure::InvalidArguments,
                "invalidArguments",
                message,
            );
        };
        if self.providers[self.provider_of[index]].is_manual_call(tool, &args) {
            // The manual: nothing runs, so nothing needs permission.
            let started = self.dispatch(index, args, cancel, progress, Confine::Unconfined);
            let output = started.run_here(cancel, progress, self.prompter.as_mut());
            return Outcome::Record(CallRecord {
                tool: tool_name,
                decision: "none",
                decided_by: "manual".into(),
                failure: output.is_error.then_some(Failure::ToolError),
                output,
                duration_ms: 0.0,
                sandbox: None,
            });
        }
        let schema = self
            .schemas
            .entry(index)
            .or_insert_with(|| Schema::compile(&tool.def.input_schema));
        if let Err(problems) = schema.check(&args) {
            let message = format!(
                "Invalid arguments for `{tool_name}`:\n- {}\nCall `{tool_name}` again with arguments that match its input schema.",
                problems.join("\n- ")
            );
            return rejected(
                &tool_name,
                Failure::InvalidArguments,
                "invalidArguments",
                message,
            );
        }
        let Permit {
            allowed,
            decided_by,
            refusal,
            confine,
        } = self.permit(index, &args, cancel);
        let sandbox = self.confines(index).then_some(confine);
        if decided_by == CardAnswer::Withdrawn.decided_by() {
            // Cancelled while its card was open, and the card taken back: nobody decided.
            return Outcome::Record(CallRecord {
                tool: tool_name.clone(),
                decision: "none",
                decided_by,
                output: cancel::cancelled_output(&tool_name),
                failure: Some(Failure::Cancelled),
                duration_ms: 0.0,
                sandbox: None,
            });
        }
        if !allowed {
            return Outcome::Record(CallRecord {
                tool: tool_name,
                decision: "deny",
                decided_by,
                output: ToolOutput::error(refusal),
                failure: Some(Failure::Refused),
                duration_ms: 0.0,
                sandbox: None,
            });
        }
        if cancel.is_cancelled() {
            // Cancelled while its card was open: it never starts.
            return Outcome::Record(CallRecord {
                tool: tool_name.clone(),
                decision: "allow",
                decided_by,
                output: cancel::cancelled_output(&tool_name),
                failure: Some(Failure::Cancelled),
                duration_ms: 0.0,
                sandbox: None,
            });
        }
        let done = |output: ToolOutput| {
            let failure = if cancel.is_cancelled() {
                Some(Failure::Cancelled)
            } else {
                output.is_error.then_some(Failure::ToolError)
            };
            Outcome::Record(CallRecord {
                tool: tool_name.clone(),
                decision: "allow",
                decided_by: decided_by.clone(),
                failure,
                output,
                duration_ms: 0.0,
                sandbox,
            })
        };
        match self.dispatch(index, args, cancel, progress, confine) {
            Started::Done(output) => done(output),
            Started::Job(job) => Outcome::job(job, false, tool_name, decided_by, sandbox),
            Started::Brief(job) => Outcome::job(job, true, tool_name, decided_by, sandbox),
        }
    }

    /// Whether the kernel wall applies to the tool at `index` (the Bash built-in).
    fn confines(&self, index: usize) -> bool {
        let tool = self.catalog.get(index);
        tool.def.layer == tool::Layer::Builtin && tool.def.raw_name == "Bash"
    }

    /// The gateway and whoever answers its cards; for Bash also where the call runs: the
    /// fast lane in the read-only sandbox, an approved call in `[sandbox] approved` (or
    /// unconfined when the person chose so on the card).
    fn permit(&mut self, index: usize, args: &Value, cancel: &cancel::Cancel) -> Permit {
        let tool = self.catalog.get(index);
        let tool_ref = ToolRef {
            name: &tool.name,
            layer: tool.def.layer,
            owner: tool.def.owner.as_deref(),
            risk: tool.def.risk,
        };
        let confines = self.confines(index);
        let sandbox = &self.env.settings.sandbox;
        let approved = if confines {
            builtins::bash::approved_confine(sandbox)
        } else {
            Confine::Unconfined
        };
        let mut workspace = self.session.workspace();
        workspace.runtime = Some(self.env.homes.runtime.clone());
        let facts = policy::probe(&tool.name, args, &workspace);
        let wall = builtins::bash::wall(sandbox);
        let call = ToolCall {
            tool: tool_ref,
            args,
            workspace: &workspace,
            facts: &facts,
            wall,
        };
        let mut verdict = policy::decide(&call, self.session.mode, &self.rules);
        if verdict.decision == Decision::Ask
            && verdict.risk != tool::Risk::High
            && tool
                .def
                .owner
                .as_ref()
                .is_some_and(|o| self.session.session_allow_owners.contains(o))
        {
            verdict.session_allow_offered = true;
        }
        if let (policy::DecidedBy::NoSandbox, policy::Wall::Missing(why)) =
            (verdict.decided_by, wall)
        {
            warn_no_wall_once(why);
        }
        let allowed = |decided_by: &str, confine: Confine| Permit {
            allowed: true,
            decided_by: decided_by.to_string(),
            refusal: String::new(),
            confine,
        };
        match verdict.decision {
            Decision::Allow if confines && verdict.decided_by == policy::DecidedBy::FastLane => {
                allowed(verdict.decided_by.as_str(), Confine::ReadOnly)
            }
            Decision::Allow => allowed(verdict.decided_by.as_str(), approved),
            Decision::Deny => Permit {
                allowed: false,
                decided_by: verdict.decided_by.as_str().into(),
                refusal: format!(
                    "Permission denied: `{}` was not run. {}",
                    tool.name, verdict.reason
                ),
                confine: Confine::Unconfined,
            },
            Decision::Ask => {
                let key = session_key(&tool.name, args, &workspace);
                if verdict.session_allow_offered
                    && session_allows(&self.session.allowed_for_session, &key)
                {
                    return allowed("sessionAllow", approved);
                }
                if self.session.approve.iter().any(|a| a == &tool.name) {
                    return allowed("approveFlag", approved);
                }
                let card = Card {
                    tool: tool.name.clone(),
                    title: tool.def.title.clone(),
                    layer: tool.def.layer.as_str(),
                    owner: tool.def.owner.clone(),
                    risk: verdict.risk,
                    summary: summary(&tool.name, args),
                    reason: verdict.reason.clone(),
                    session_allow_offered: verdict.session_allow_offered,
                    sandbox: confines.then(|| approved.describe()),
                    unsandboxed_offered: confines && approved != Confine::Unconfined,
                    change: match tool.def.layer {
                        tool::Layer::Builtin => {
                            builtins::card_change(&tool.name, args, &self.session)
                        }
                        _ => None,
                    },
                };
                let asked = Instant::now();
                let mut answer = self.prompter.card_until(&card, cancel);
                self.person_time += asked.elapsed();
                if answer == CardAnswer::AllowForSession && !verdict.session_allow_offered {
                    answer = CardAnswer::AllowOnce;
                }
                if answer == CardAnswer::AllowUnsandboxed && !card.unsandboxed_offered {
                    answer = CardAnswer::AllowOnce;
                }
                if answer == CardAnswer::AllowForSession {
                    self.session.allowed_for_session.insert(key);
                }
                let refusal = match &answer {
                    CardAnswer::DenyWithReason(why) => {
                        format!("The user denied `{}` and said: {why}", tool.name)
                    }
                    CardAnswer::TimedOut => format!(
                        "Permission denied: nobody answered the permission card for `{}` in time. Do not retry the same call; ask the user.",
                        tool.name
                    ),
                    CardAnswer::Unavailable => format!(
                        "Permission denied: `{}` needs a person's approval ({}), and this run has nobody to ask. Rerun with --approve {} to allow it, or use a tool that does not need approval.",
                        tool.name, verdict.reason, tool.name
                    ),
                    CardAnswer::Declined => format!(
                        "Not run: `{}` needs a person's approval ({}), and the MCP client declined the permission card without anyone allowing it (an agent run without a person, such as `codex exec`, declines every card). This is not a person's refusal. Do not retry the same call: ask the user whether it should run; they can allow it with finch's --approve {} or an allow rule.",
                        tool.name, verdict.reason, tool.name
                    ),
                    CardAnswer::Cancelled => format!(
                        "Not run: `{}` needs a person's approval ({}), and the MCP client cancelled the permission card before anyone answered it (an agent run without a person, such as `claude -p`, cancels every card). This is not a person's refusal. Do not retry the same call: ask the user whether it should run; they can allow it with finch's --approve {} or an allow rule.",
                        tool.name, verdict.reason, tool.name
                    ),
                    CardAnswer::NoElicitation => format!(
                        "Not run: `{}` needs a person's approval ({}), and nobody could be asked: the MCP client cannot show permission cards (no elicitation support) and finch has no terminal. Do not retry the same call: ask the user whether it should run; they can allow it with finch's --approve {} or an allow rule.",
                        tool.name, verdict.reason, tool.name
                    ),
                    _ => format!(
                        "The user denied `{}`. Do not retry the same call.",
                        tool.name
                    ),
                };
                let confine = match answer {
                    CardAnswer::AllowUnsandboxed => Confine::Unconfined,
                    _ => approved,
                };
                Permit {
                    allowed: answer.allows(),
                    decided_by: answer.decided_by().into(),
                    refusal,
                    confine,
                }
            }
        }
    }

    fn dispatch(
        &mut self,
        index: usize,
        args: Value,
        cancel: &cancel::Cancel,
        progress: &cancel::ProgressSink,
        confine: Confine,
    ) -> Started {
        if self.session.has_pending_records() && self.may_see_transcript(index, &args) {
            self.write_records();
        }
        let at = self.provider_of[index];
        let tool = self.catalog.get(index);
        let (before, rest) = self.providers.split_at_mut(at);
        let Some((provider, after)) = rest.split_first_mut() else {
            return Started::Done(ToolOutput::error(format!(
                "`{}` has no provider",
                tool.name
            )));
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
            confine,
        };
        provider.start(tool, args, &mut cx)
    }

    fn unknown_tool_message(&self, name: &str) -> String {
        let hits = self.catalog.index().search(
            self.catalog.tools(),
            &name.replace(['_', '-'], " "),
            &toolsearch::SourceFilter::Any,
            3,
        );
        let mut message = format!("There is no tool named `{name}`.");
        if !hits.is_empty() {
            let names: Vec<&str> = hits
                .iter()
                .map(|h| self.catalog.get(h.index).name.as_str())
                .collect();
            message.push_str(&format!(" Similar tools: {}.", names.join(", ")));
        }
        message.push_str(" Use ToolSearch to find tools by what they do.");
        message
    }

    /// Ends the session: writes what waits and flushes the transcript.
    pub fn finish(&mut self) -> Result<(), crate::session::SessionError> {
        self.session.sync()
    }

    /// Lets the call records wait and be written several at once (`write_records`, or when
    /// 64 wait): what `finch run --serve mcp` does, which writes them once it has been idle
    /// for a moment. A call that may look at the transcript sees it whole: the records that
    /// wait are written before it runs (see `may_see_transcript`).
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
    /// and so must find every earlier call in it. Only two built-ins are known not to:
    /// `TodoWrite`, and `Read` of a file outside the sessions directory (judged by its path as
    /// given: a link from elsewhere into that directory is not followed here). Everything
    /// else — dispatchers, mini tools, MCP servers, `Bash`, the other file tools — could.
    fn may_see_transcript(&self, index: usize, args: &Value) -> bool {
        let tool = self.catalog.get(index);
        if tool.layer() != tool::Layer::Builtin {
            return true;
        }
        match tool.name.as_str() {
            "TodoWrite" => false,
            "Read" => {
                let sessions = self
                    .session
                    .transcript_path()
                    .and_then(|t| t.parent()?.parent());
                let file = args.get("file_path").and_then(Value::as_str);
                match (sessions, file) {
                    (Some(sessions), Some(file)) => {
                        builtins::resolve_in(&self.session, file).starts_with(sessions)
                    }
                    _ => true,
                }
            }
            _ => true,
        }
    }
}

/// What the pipeline made of a call: a record, or a provider's job still to run.
enum Outcome {
    Record(CallRecord),
    Job {
        job: Job,
        brief: bool,
        tool: String,
        decided_by: String,
        sandbox: Option<Confine>,
    },
}

impl Outcome {
    fn job(
        job: Job,
        brief: bool,
        tool: String,
        decided_by: String,
        sandbox: Option<Confine>,
    ) -> Outcome {
        Outcome::Job {
            job,
            brief,
            tool,
            decided_by,
            sandbox,
        }
    }
}

/// Says once per process, on stderr, that Bash calls take cards because the wall is missing.
fn warn_no_wall_once(why: &str) {
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        crate::eline!(
            "warning: finch's kernel wall does not hold here ({why}): every Bash call takes a \
             permission card in this run (`finch sandbox status`)"
        );
    }
}

/// What the gateway and whoever answered its card decided for one call.
struct Permit {
    allowed: bool,
    decided_by: String,
    /// The text the model reads when it was not allowed.
    refusal: String,
    /// Where it runs, when allowed.
    confine: Confine,
}

/// What `Host::begin` did with a call.
pub enum Begun {
    /// It ended (refused, failed, or its provider ran it) and is recorded.
    Done(CallRecord),
    /// It was permitted and its provider's job waits to run (`Running::run`), then for
    /// `Host::end`.
    Running(Running),
}

/// A permitted call whose job has not run yet. It holds nothing of the host, so it may move
/// to another thread.
pub struct Running {
    job: Job,
    brief: bool,
    tool: String,
    decided_by: String,
    sandbox: Option<Confine>,
    args: Value,
    started: Stamp,
}

/// When a call began, and its number in this process (so that `Provider::observe` can pair
/// the end of a call with its start when calls overlap), and how long a person spent at its
/// cards.
#[derive(Debug, Clone, Copy)]
struct Stamp {
    at: Instant,
    call: u64,
    person: Duration,
}

impl Stamp {
    fn now() -> Stamp {
        static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Stamp {
            at: Instant::now(),
            call: CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1,
            person: Duration::ZERO,
        }
    }

    /// The call's own time: since it began, less the time a person spent at its cards.
    fn busy(&self) -> Duration {
        self.at.elapsed().saturating_sub(self.person)
    }
}

impl Running {
    /// The model-facing name of the tool.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// Whether its provider knows the job to be brief (`Started::Brief`): not worth a
    /// hand-off to another thread.
    pub fn is_brief(&self) -> bool {
        self.brief
    }

    /// Runs the job: on any thread, with no host borrowed. A call cancelled while it waited
    /// to run never starts.
    pub fn run(
        self,
        cancel: &cancel::Cancel,
        progress: &cancel::ProgressSink,
        on_host: &OnHost,
    ) -> Ran {
        let output = if cancel.is_cancelled() {
            cancel::cancelled_output(&self.tool)
        } else {
            (self.job)(&JobCx {
                cancel,
                progress,
                on_host,
            })
        };
        Ran {
            output,
            cancelled: cancel.is_cancelled(),
            tool: self.tool,
            decided_by: self.decided_by,
            sandbox: self.sandbox,
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
    decided_by: String,
    sandbox: Option<Confine>,
    args: Value,
    started: Stamp,
}

impl Ran {
    /// The call's record as `Host::end` makes it (before the host has seen it: a front end
    /// may answer with it at once).
    pub fn record(&self) -> CallRecord {
        let failure = if self.cancelled {
            Some(Failure::Cancelled)
        } else {
            self.output.is_error.then_some(Failure::ToolError)
        };
        CallRecord {
            tool: self.tool.clone(),
            decision: "allow",
            decided_by: self.decided_by.clone(),
            failure,
            output: self.output.clone(),
            duration_ms: self.started.busy().as_secs_f64() * 1000.0,
            sandbox: self.sandbox,
        }
    }
}

/// The data of a call's `finch.toolCall` transcript entry (SPEC §7).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct CallEntry<'a> {
    tool: &'a str,
    arguments: &'a Value,
    decision: &'a str,
    decided_by: &'a str,
    /// As `ToolOutput::to_json` shapes it.
    result: &'a ToolOutput,
    is_error: bool,
    duration_ms: f64,
    /// Where a Bash call ran (`none`, `read-only`, `workspace-write`); absent for other tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    sandbox: Option<&'static str>,
}

fn build_catalog(providers: &[Box<dyn Provider>]) -> (Catalog, Vec<usize>) {
    let mut defs = Vec::new();
    let mut provider_of = Vec::new();
    for (i, p) in providers.iter().enumerate() {
        for def in p.defs() {
            defs.push(def);
            provider_of.push(i);
        }
    }
    (Catalog::build(defs), provider_of)
}

/// What "Allow for this session" remembers: the exact command for Bash, the directory of the
/// file for Write and Edit (issue 28: an allow covers that directory and below, not every
/// path), the tool otherwise.
pub(crate) fn session_key(tool: &str, args: &Value, workspace: &policy::Workspace) -> String {
    match (tool, args.get("command").and_then(Value::as_str)) {
        ("Bash", Some(command)) => format!("Bash\0{command}"),
        ("Write" | "Edit", _) => {
            match policy::file_paths(tool, args, workspace)
                .ok()
                .and_then(|paths| {
                    paths
                        .first()
                        .and_then(|p| p.parent())
                        .map(Path::to_path_buf)
                }) {
                Some(dir) => format!("{tool}\0{}", dir.display()),
                None => tool.to_string(),
            }
        }
        _ => tool.to_string(),
    }
}

/// Whether an answer remembered under one of `allowed` (`session_key`s) covers a call with
/// key `key`: the same key, or for Write and Edit a directory at or above the call's.
pub(crate) fn session_allows<'a>(allowed: impl IntoIterator<Item = &'a String>, key: &str) -> bool {
    let scoped = |k: &'a str| {
        k.split_once('\0')
            .filter(|(tool, _)| matches!(*tool, "Write" | "Edit"))
    };
    allowed.into_iter().any(|a| {
        a == key
            || matches!(
                (scoped(a), key.split_once('\0')),
                (Some((tool, dir)), Some((call_tool, call_dir)))
                    if tool == call_tool && Path::new(call_dir).starts_with(dir)
            )
    })
}

/// The summary of a card: the command for Bash, the path for file tools, the URL for WebFetch,
/// the arguments otherwise — whole, never cut (issue 28: a tail past the cut ran unseen). Runs
/// of blanks become one space; a line break shows as `⏎`, so a second command never reads as
/// an argument of the first. The terminal card wraps and pages it.
pub fn summary(tool: &str, args: &Value) -> String {
    let field = |k: &str| args.get(k).and_then(Value::as_str).map(str::to_string);
    let text = match tool {
        "Bash" => field("command"),
        "Read" | "Write" | "Edit" => field("path").or_else(|| field("file_path")),
        "Grep" | "Glob" => field("pattern").map(|p| match field("path") {
            Some(dir) => format!("{p} in {dir}"),
            None => p,
        }),
        "WebFetch" => field("url"),
        "WebSearch" => field("query"),
        _ => None,
    }
    .unwrap_or_else(|| args.to_string());
    text.trim()
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join(" ⏎ ")
}

/// The directory a run's file tools start from.
pub fn canonical_cwd(cwd: &std::path::Path) -> PathBuf {
    std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::prompt::{Question, QuestionAnswer};
    use policy::Mode;
    use serde_json::json;
    use std::cell::RefCell;
    use std::rc::Rc;
    use tool::Layer;

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
        let mut session =
            SessionState::detached(dir.to_path_buf(), dir.to_path_buf(), Mode::Ask, None);
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
        assert_eq!(first.decision, "allow");
        // "Allow for this session" is never offered for a mini tool tool: it counts as once.
        assert!(!cards.borrow()[0].session_allow_offered);
        assert_eq!(first.decided_by, "card:allowOnce");
        let second = host.call("acme_say", json!({"text": "again"}));
        assert_eq!(cards.borrow().len(), 2);
        assert_eq!(second.failure, Some(Failure::Refused));
        assert_eq!(second.decided_by, "card:deny");
    }

    #[test]
    fn approve_flag_answers_cards_of_that_tool_only() {
        let dir = tempfile::tempdir().unwrap();
        let (mut host, cards) = host(dir.path(), vec![]);
        host.session_mut().approve = vec!["acme_say".into()];
        let ok = host.call("acme_say", json!({"text": "x"}));
        assert_eq!(
            (ok.decision, ok.decided_by.as_str()),
            ("allow", "approveFlag")
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
        assert_eq!((r.tool.as_str(), r.decision), ("mcp__srv__lookup", "allow"));
    }

    #[test]
    fn unknown_tools_suggest_similar_ones() {
        let dir = tempfile::tempdir().unwrap();
        let (mut host, _) = host(dir.path(), vec![]);
        let r = host.call("acme_sayy", json!({}));
        assert_eq!(r.failure, Some(Failure::UnknownTool));
        assert_eq!(r.decision, "none");
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
            host.call("Bash", touch.clone()).decided_by,
            "card:allowForSession"
        );
        assert_eq!(host.call("Bash", touch).decided_by, "sessionAllow");
        assert_eq!(cards.borrow().len(), 1);
        let rm = json!({"command": "rm -rf a"});
        let first = host.call("Bash", rm.clone());
        assert_eq!(first.decided_by, "card:allowOnce");
        assert!(!cards.borrow()[1].session_allow_offered);
        assert_eq!(cards.borrow()[1].risk, tool::Risk::High);
        assert_eq!(host.call("Bash", rm).decided_by, "card:deny");
        assert_eq!(cards.borrow().len(), 3);
    }

    #[test]
    fn a_suite_without_action_returns_its_manual_without_a_card() {
        let dir = tempfile::tempdir().unwrap();
        let (mut host, cards) = host(dir.path(), vec![]);
        let r = host.call("Memory", json!({}));
        assert_eq!((r.decision, r.decided_by.as_str()), ("none", "manual"));
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
        assert_eq!(host.call("Read", read.clone()).decision, "allow");
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
            "allow"
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
        let record = host.end(ran);
        assert_eq!(record.output.text_content(), r#"grepped {"text":"x"}"#);
        assert_eq!((record.decision, record.failure), ("allow", None));
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
        let record = host.end(running.run(&cancel, &cancel::no_progress, &|_| {}));
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
}
