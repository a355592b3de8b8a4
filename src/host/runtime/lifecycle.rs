//! Starting, watching and stopping the mini tools' processes: spawning each `node` (confined
//! as `confine` says), sending `activate` in the order capabilities require, parking a
//! background activation, restarting a stopped mini tool after its backoff, the reader thread
//! that handles what a process asks and cleans up when it ends, and the shutdown that gives
//! every process its `deactivate()`. It never answers a tool call (`call`) or a service
//! request (`services`) itself.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::protocol::{self, FromChild, HostPush, HostRequest};
use super::rpc::{self, Conn, MainMsg, Pending, ReadEnd, RpcError, RpcResult, StopReason};
use super::{
    Inner, Instance, Phase, RuntimeEvent, SessionInfo, lock, now_iso, process, seconds, services,
    storage,
};
use crate::host::catalog::ToolDef;
use crate::host::prompt::CardAnswer;

impl Inner {
    pub(crate) fn emit(&self, event: RuntimeEvent) {
        if let RuntimeEvent::Fault {
            minitool, message, ..
        } = &event
        {
            // What finch would notify a person of, for `ctx.notifications.onDidPost`.
            let seq = self.call_seq.fetch_add(1, Ordering::SeqCst) + 1;
            self.broadcast(
                HostPush::Notification,
                &json!({"id": format!("ntf_{seq}"), "kind": "error", "createdAt": now_iso(),
                        "title": format!("mini tool {minitool} {message}")}),
            );
        }
        let hook = self.hook.read().unwrap_or_else(|e| e.into_inner()).clone();
        hook(&event);
    }

    pub(crate) fn instance_of(&self, conn: &Conn) -> Option<&Arc<Instance>> {
        self.instances.iter().find(|i| i.id == conn.id)
    }

    pub(super) fn backoff(&self, failures: u32) -> Duration {
        let base = self.settings.restart_backoff;
        let factor = 2u32.saturating_pow(failures.saturating_sub(1).min(20));
        base.saturating_mul(factor)
            .min(self.settings.restart_backoff_max)
    }

    /// Activates `insts` on a thread of their own (see `StartOptions::background`): until each
    /// one's activation ends, its tools are its entries in `cached`. A failure is reported as a
    /// fault; once all have ended the tools version moves, so the host rebuilds its catalog.
    pub(super) fn activate_in_background(
        self: &Arc<Inner>,
        insts: Vec<Arc<Instance>>,
        cached: Vec<ToolDef>,
    ) {
        if insts.is_empty() {
            return;
        }
        for inst in &insts {
            let source = format!("minitool:{}", inst.id);
            let defs = cached.iter().filter(|d| d.source == source).cloned();
            inst.state().cached = Some(defs.collect());
        }
        self.activating.store(true, Ordering::SeqCst);
        let inner = self.clone();
        let work = move || {
            let results = inner.activate(&insts);
            // A runtime that shut down meanwhile (the run ended, a reload) stopped them itself.
            let shut = inner.shut.load(Ordering::SeqCst);
            for (inst, result) in insts.iter().zip(results) {
                inst.state().cached = None;
                if let (Err(error), false) = (result, shut) {
                    inner.emit(RuntimeEvent::Fault {
                        minitool: inst.id.clone(),
                        message: format!("failed to start: {error}"),
                        log: inst.log.clone(),
                    });
                }
            }
            inner.activating.store(false, Ordering::SeqCst);
            inner.tools_version.fetch_add(1, Ordering::SeqCst);
            inner.emit(RuntimeEvent::ToolsChanged);
        };
        let spawned = std::thread::Builder::new()
            .name("finch-activate".into())
            .spawn(work);
        if let Err(e) = spawned {
            // No thread to spare: each mini tool starts on its first call instead.
            self.activating.store(false, Ordering::SeqCst);
            for inst in &self.instances {
                inst.state().cached = None;
            }
            self.emit(RuntimeEvent::Fault {
                minitool: "(all)".into(),
                message: format!(
                    "cannot start in the background ({e}); each starts on its first call"
                ),
                log: PathBuf::new(),
            });
        }
    }

    /// While a background activation runs, waits until `inst` is past it (active, stopped, or
    /// not among those it starts), at most its activation timeout and a second.
    fn await_background(&self, inst: &Instance) {
        let deadline = Instant::now() + self.settings.activate_timeout + Duration::from_secs(1);
        while self.activating.load(Ordering::SeqCst) && Instant::now() < deadline {
            let st = inst.state();
            if st.cached.is_none() || !matches!(st.phase, Phase::Idle | Phase::Starting(_)) {
                return;
            }
            drop(st);
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Starts and activates `insts` in parallel: `Ok(tool count)` or the reason each failed.
    /// Every process starts at once, but a mini tool that requires a capability another one of
    /// `insts` declares in `provides` gets `activate` only once that one's activation settled,
    /// so that its synchronous `capabilities.has()` in `activate()` already knows.
    pub(super) fn activate(
        self: &Arc<Inner>,
        insts: &[Arc<Instance>],
    ) -> Vec<Result<usize, String>> {
        let (tx, rx) = mpsc::channel();
        let mut results: Vec<Option<Result<usize, String>>> = vec![None; insts.len()];
        let mut waiting: HashMap<u64, (Arc<Conn>, Instant)> = HashMap::new();
        let mut held: Vec<(usize, Arc<Conn>)> = Vec::new();
        for (i, inst) in insts.iter().enumerate() {
            match self.begin(inst) {
                Ok(conn) => held.push((i, conn)),
                Err(e) => {
                    self.settle_capabilities();
                    results[i] = Some(Err(e));
                }
            }
        }
        self.release(insts, &mut held, &mut waiting, &mut results, &tx);
        while !waiting.is_empty() {
            let now = Instant::now();
            let next = waiting.values().map(|(_, d)| *d).min().unwrap_or(now);
            match rx.recv_timeout(next.saturating_duration_since(now)) {
                Ok(MainMsg::Reply { tag, result }) => {
                    if let Some((conn, _)) = waiting.remove(&tag) {
                        let i = tag as usize;
                        results[i] = Some(self.finish_activation(&insts[i], &conn, result));
                        self.release(insts, &mut held, &mut waiting, &mut results, &tx);
                    }
                }
                // Prompts are never routed here; answer one anyway rather than leave it waiting.
                Ok(MainMsg::Prompt { from, id, .. }) => from.reply(
                    id,
                    Err(RpcError::refused("no person can answer during activation")),
                ),
                Ok(MainMsg::Show { from, id, view, .. }) => {
                    if let Some(inst) = self.instance_of(&from) {
                        services::not_shown(self, inst, &view);
                    }
                    from.reply(id, Ok(Value::Null));
                }
                Ok(MainMsg::Progress(_) | MainMsg::Cancelled | MainMsg::Unseen(_)) => {}
                Ok(MainMsg::Permit { then, .. }) => then(CardAnswer::Unavailable),
                Err(RecvTimeoutError::Timeout) => {
                    let now = Instant::now();
                    let expired: Vec<u64> = waiting
                        .iter()
                        .filter(|(_, (_, d))| *d <= now)
                        .map(|(t, _)| *t)
                        .collect();
                    for tag in expired {
                        if let Some((conn, _)) = waiting.remove(&tag) {
                            let i = tag as usize;
                            let reason = format!(
                                "activate() did not settle within {}",
                                seconds(self.settings.activate_timeout)
                            );
                            conn.stop(StopReason::Fault(reason.clone()));
                            insts[i].mark_down(&conn, &reason);
                            self.drop_tools(&insts[i]);
                            self.settle_capabilities();
                            results[i] = Some(Err(reason));
                        }
                    }
                    self.release(insts, &mut held, &mut waiting, &mut results, &tx);
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err("activation was interrupted".into())))
            .collect()
    }

    /// Sends `activate` to every held process that no longer waits for a provider; the answer
    /// goes to `tx`, tagged with its index. When every held one waits on another held one (a
    /// cycle of requirements), they all go.
    fn release(
        &self,
        insts: &[Arc<Instance>],
        held: &mut Vec<(usize, Arc<Conn>)>,
        waiting: &mut HashMap<u64, (Arc<Conn>, Instant)>,
        results: &mut [Option<Result<usize, String>>],
        tx: &Sender<MainMsg>,
    ) {
        // Sends can fail (the process died at once): then try the others again.
        while !held.is_empty() {
            self.release_once(insts, held, waiting, results, tx);
            if !waiting.is_empty() {
                break;
            }
        }
    }

    fn release_once(
        &self,
        insts: &[Arc<Instance>],
        held: &mut Vec<(usize, Arc<Conn>)>,
        waiting: &mut HashMap<u64, (Arc<Conn>, Instant)>,
        results: &mut [Option<Result<usize, String>>],
        tx: &Sender<MainMsg>,
    ) {
        let unsettled: Vec<usize> = waiting
            .keys()
            .map(|t| *t as usize)
            .chain(held.iter().map(|(i, _)| *i))
            .collect();
        let blocked = |i: usize| {
            unsettled.iter().any(|&j| {
                j != i
                    && insts[j]
                        .provides
                        .iter()
                        .any(|c| insts[i].requires.contains(c))
            })
        };
        let ready: Vec<usize> = held
            .iter()
            .map(|(i, _)| *i)
            .filter(|&i| !blocked(i))
            .collect();
        let go: Vec<(usize, Arc<Conn>)> = if ready.is_empty() && waiting.is_empty() {
            std::mem::take(held)
        } else {
            let (go, stay) = std::mem::take(held)
                .into_iter()
                .partition(|(i, _)| ready.contains(i));
            *held = stay;
            go
        };
        for (i, conn) in go {
            let params = self.activation_params(&insts[i]);
            let pending = Pending::Main {
                tx: tx.clone(),
                tag: i as u64,
            };
            match conn.request(HostRequest::Activate, params, pending) {
                Ok(_) => {
                    waiting.insert(
                        i as u64,
                        (conn, Instant::now() + self.settings.activate_timeout),
                    );
                }
                Err(e) => {
                    let reason = format!("cannot send activate: {e}");
                    conn.stop(StopReason::Fault(reason.clone()));
                    insts[i].mark_down(&conn, &reason);
                    self.settle_capabilities();
                    results[i] = Some(Err(reason));
                }
            }
        }
    }

    /// Spawns the process of `inst` (its `activate` is sent by `release`).
    fn begin(self: &Arc<Inner>, inst: &Arc<Instance>) -> Result<Arc<Conn>, String> {
        if self.shut.load(Ordering::SeqCst) {
            return Err("the runtime is shutting down".into());
        }
        let node = self.node.clone()?;
        let bootstrap = self.bootstrap.clone()?;
        storage::ensure_dir(&inst.storage.dir)?;
        let header = format!(
            "{}{} finch {}: starting {}{} from {}",
            process::LOG_HEADER,
            chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            env!("CARGO_PKG_VERSION"),
            inst.id,
            inst.version
                .as_deref()
                .map(|v| format!(" {v}"))
                .unwrap_or_default(),
            inst.dir.display()
        );
        let log = process::open_log(&inst.log, &header)
            .map_err(|e| format!("cannot open its log {}: {e}", inst.log.display()))?;
        let (ours, theirs) =
            process::pair().map_err(|e| format!("cannot create its channel: {e}"))?;
        let reader = ours
            .try_clone()
            .map_err(|e| format!("cannot create its channel: {e}"))?;
        if let Some(refusal) = inst.sandbox.refusal(&inst.id) {
            return Err(refusal);
        }
        let confine = match &inst.sandbox {
            crate::minitool::confine::Mode::Enforced(declared) => Some(Box::new(
                self.confine_spec(inst, declared, &node, &bootstrap),
            )),
            _ => None,
        };
        let (child, confinement) = self
            .spawner
            .spawn(process::SpawnSpec {
                node: node.clone(),
                bootstrap,
                cwd: inst.dir.clone(),
                log,
                channel: theirs,
                confine,
            })
            .map_err(|e| {
                format!(
                    "cannot start {}: {e} (set node in finch.toml or FINCH_NODE, or put node on PATH)",
                    node.display()
                )
            })?;
        *lock(&inst.confinement) = confinement;
        let pid = child.id();
        let conn = match Conn::new(&inst.id, child, ours, reader) {
            Ok(c) => Arc::new(c),
            Err(e) => {
                process::kill_group(pid);
                return Err(format!("cannot set up its channel: {e}"));
            }
        };
        {
            let mut st = inst.state();
            st.phase = Phase::Starting(conn.clone());
            st.tools.clear();
            st.discovery = 0;
        }
        self.forget_instance(inst);
        let (reader_inner, reader_inst, reader_conn) = (self.clone(), inst.clone(), conn.clone());
        let started = std::thread::Builder::new()
            .name(format!("finch-minitool-{}", inst.id))
            .spawn(move || read_loop(reader_inner, reader_inst, reader_conn));
        if let Err(e) = started {
            conn.stop(StopReason::Fault(format!("no reader thread: {e}")));
            inst.mark_down(&conn, "could not start its reader thread");
            return Err(format!("cannot start a thread to read its channel: {e}"));
        }
        Ok(conn)
    }

    fn activation_params(&self, inst: &Instance) -> Value {
        let session = lock(&self.session).clone();
        json!({
            "entryPath": inst.dir.join(&inst.main),
            "main": inst.main,
            "minitool": {
                "id": inst.id,
                "displayName": inst.display_name,
                "version": inst.version,
                "extensionPath": inst.dir,
            },
            "storagePath": inst.storage.dir,
            "settings": inst.settings,
            "i18n": inst.i18n,
            "app": self.app_info,
            "session": session.as_ref().map(SessionInfo::session_view),
            "workspace": session.as_ref().map(SessionInfo::workspace_view),
            "capabilities": {
                "provides": inst.provides,
                "requires": inst.requires,
                "available": lock(&self.capabilities).available(),
            },
            "contributions": self.contributions,
            "limits": {"diffSide": protocol::DIFF_SIDE_MAX},
        })
    }

    fn finish_activation(
        self: &Arc<Inner>,
        inst: &Arc<Instance>,
        conn: &Arc<Conn>,
        result: RpcResult,
    ) -> Result<usize, String> {
        let outcome = match result {
            Ok(_) => {
                let mut st = inst.state();
                if matches!(&st.phase, Phase::Starting(c) if Arc::ptr_eq(c, conn)) {
                    st.phase = Phase::Active(conn.clone());
                    let tools = st.tools.len();
                    drop(st);
                    // Its session events (those another finch recorded, or left undelivered
                    // when it was killed) now that its listeners are registered.
                    super::sessions::pump(self, inst, conn);
                    Ok(tools)
                } else {
                    Err("it stopped during activation".to_string())
                }
            }
            Err(e) => {
                let reason = if e.code == rpc::code::STOPPED {
                    e.message
                } else {
                    format!("activate() failed: {}", inst.explain(&e.message))
                };
                conn.stop(StopReason::Fault(reason.clone()));
                inst.mark_down(conn, &reason);
                self.drop_tools(inst);
                Err(reason)
            }
        };
        self.settle_capabilities();
        outcome
    }

    /// A mini tool whose activation failed leaves no tools behind, also those it registered
    /// before it threw.
    fn drop_tools(&self, inst: &Instance) {
        let had = !std::mem::take(&mut inst.state().tools).is_empty();
        if had {
            self.tools_version.fetch_add(1, Ordering::SeqCst);
            self.emit(RuntimeEvent::ToolsChanged);
        }
    }

    /// Forgets what an earlier process of `inst` provided and registered.
    fn forget_instance(&self, inst: &Instance) {
        inst.state().listens.clear();
        lock(&self.capabilities).remove_instance(&inst.id);
        services::push_capabilities(self);
        let mut mcp = lock(&self.mcp);
        let before = mcp.len();
        mcp.retain(|r| r.minitool != inst.id);
        let changed = mcp.len() != before;
        drop(mcp);
        if changed {
            self.emit(RuntimeEvent::McpServersChanged);
        }
    }

    pub(crate) fn settle_capabilities(&self) {
        services::settle(self);
    }

    /// The process of `inst`, started (or restarted after its backoff) when needed.
    pub(super) fn ensure_running(
        self: &Arc<Inner>,
        inst: &Arc<Instance>,
    ) -> Result<Arc<Conn>, String> {
        if self.shut.load(Ordering::SeqCst) {
            return Err("the mini tool runtime has shut down".into());
        }
        self.await_background(inst);
        let _one_start = lock(&inst.starting);
        let dead = {
            let st = inst.state();
            match &st.phase {
                Phase::Active(conn) if conn.is_alive() => return Ok(conn.clone()),
                Phase::Active(conn) | Phase::Starting(conn) => Some(conn.clone()),
                Phase::Down { reason, at } => {
                    let wait = self.backoff(st.failures);
                    let elapsed = at.elapsed();
                    if elapsed < wait {
                        return Err(format!(
                            "mini tool \"{}\" is stopped ({reason}). It restarts on a call after a backoff: try again in {}. Log: {}",
                            inst.id,
                            seconds(wait - elapsed),
                            inst.log.display()
                        ));
                    }
                    None
                }
                Phase::Idle => None,
            }
        };
        if let Some(conn) = dead {
            // Its reader has not cleaned up yet: make sure the process is gone before another
            // one starts.
            conn.stop(StopReason::Fault("its process ended".into()));
            inst.mark_down(&conn, "its process ended");
        }
        let result = self.activate(std::slice::from_ref(inst)).pop();
        match result {
            Some(Ok(_)) => inst.conn().ok_or_else(|| {
                format!("mini tool \"{}\" stopped right after it restarted", inst.id)
            }),
            Some(Err(e)) => Err(format!(
                "mini tool \"{}\" was restarted, but {e}. Log: {}",
                inst.id,
                inst.log.display()
            )),
            None => Err(format!("mini tool \"{}\" could not be restarted", inst.id)),
        }
    }

    pub(super) fn shutdown(&self) {
        if self.shut.load(Ordering::SeqCst) {
            return;
        }
        self.version_at_shutdown
            .store(self.tools_version.load(Ordering::SeqCst), Ordering::SeqCst);
        if self.shut.swap(true, Ordering::SeqCst) {
            return;
        }
        let (tx, rx) = mpsc::channel();
        let mut waiting = 0usize;
        let conns: Vec<Arc<Conn>> = self.instances.iter().filter_map(|i| i.conn()).collect();
        for (i, conn) in conns.iter().enumerate() {
            if conn.is_alive() {
                let pending = Pending::Main {
                    tx: tx.clone(),
                    tag: i as u64,
                };
                if conn
                    .request(HostRequest::Deactivate, json!({}), pending)
                    .is_ok()
                {
                    waiting += 1;
                }
            }
        }
        drop(tx);
        let deadline = Instant::now() + self.settings.shutdown_timeout;
        while waiting > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(MainMsg::Reply { .. }) => waiting -= 1,
                Ok(MainMsg::Prompt { from, id, .. }) => {
                    from.reply(id, Err(RpcError::refused("the host is shutting down")))
                }
                Ok(MainMsg::Show { from, id, .. }) => from.reply(id, Ok(Value::Null)),
                Ok(MainMsg::Progress(_) | MainMsg::Cancelled | MainMsg::Unseen(_)) => {}
                Ok(MainMsg::Permit { then, .. }) => then(CardAnswer::Unavailable),
                Err(_) => break,
            }
        }
        for conn in conns {
            conn.stop(StopReason::Shutdown);
        }
        self.spawner.close();
    }
}

/// What a child sent that is not an answer, handled by whichever thread read it.
pub(super) fn handle(
    inner: &Arc<Inner>,
    inst: &Arc<Instance>,
    conn: &Arc<Conn>,
    message: FromChild,
) {
    match message {
        FromChild::Request { id, method, params } => {
            services::request(inner, inst, conn, id, method, params)
        }
        FromChild::Unknown { id, method } => conn.reply(
            id,
            Err(RpcError::new(
                rpc::code::METHOD_NOT_FOUND,
                format!("the finch host has no method {method}"),
            )),
        ),
        FromChild::Notification(note) => services::notification(inner, inst, conn, note),
    }
}

/// The reader thread of one process: every message until the channel closes, then cleanup.
/// It holds the runtime until its process is gone, which shutdown makes sure of.
fn read_loop(inner: Arc<Inner>, inst: Arc<Instance>, conn: Arc<Conn>) {
    let end = loop {
        let mut side = match conn.side_for_reader() {
            Ok(side) => side,
            // A call that read its own answer found the channel's end.
            Err(end) => break end,
        };
        let read = rpc::read_message(&conn, &mut side.reader, &mut side.line);
        let answered = matches!(read, Ok(rpc::Incoming::Answered(true)));
        match read {
            Ok(rpc::Incoming::Message(message)) => handle(&inner, &inst, &conn, message),
            Ok(_) => {}
            Err(end) => break end,
        }
        // A call got its answer: the next call reads its own (see `rpc`).
        conn.park(side, answered);
    };
    let garbage = match end {
        ReadEnd::Garbage(text) => {
            let reason = format!("wrote something that is not JSON-RPC on its channel ({text})");
            conn.stop(StopReason::Fault(reason.clone()));
            Some(reason)
        }
        ReadEnd::Closed => None,
    };
    let Some(ended) = conn.finish() else {
        return;
    };
    let (reason, unexpected) = match conn.stop_reason() {
        Some(StopReason::Shutdown) => ("was stopped because the host ended".to_string(), false),
        Some(StopReason::Fault(r)) => (r, garbage.is_some()),
        None => (ended, true),
    };
    let stopped_now = inst.mark_down(&conn, &reason);
    let failures = inst.state().failures;
    let backoff = seconds(inner.backoff(failures));
    let tail = process::log_tail(&inst.log, 8);
    let tail = if tail.is_empty() {
        String::new()
    } else {
        format!(
            " Last lines of its log:\n{}\n",
            tail.lines()
                .map(|l| format!("  {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        )
    };
    // Told before the waiting calls fail, so that whoever hears of it (`ctx.notifications`
    // of the other mini tools) hears before the next call.
    if unexpected && stopped_now {
        inner.emit(RuntimeEvent::Fault {
            minitool: inst.id.clone(),
            message: format!("{reason}; it was stopped"),
            log: inst.log.clone(),
        });
    }
    conn.fail_pending(&format!(
        "mini tool \"{}\" {reason} (pid {}); it was stopped and restarts on a later call (after a {backoff} backoff).{tail} Log: {}",
        inst.id,
        conn.pid,
        inst.log.display()
    ));
    lock(&inner.capabilities).remove_conn(&conn);
    services::push_capabilities(&inner);
    inner.settle_capabilities();
}
