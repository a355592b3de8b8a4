//! What the caller of one call can say while it runs: "stop" (`Cancel`) and, the other way,
//! how far it got (`Progress`).
//!
//! Whoever asked for a call makes a `Cancel` and may set it from another thread at any time:
//! Ctrl-C at the console, an MCP client's `notifications/cancelled`. The provider running the
//! call watches it — `is_cancelled` between steps, or `on_cancel` to be woken (Bash kills its
//! process group, a mini tool's `exec.signal` aborts, an MCP server's call is cancelled
//! upstream) — and ends the call with `cancelled_output`. A token is for one call; once set it
//! stays set.
//!
//! A provider reports progress through `CallCx::progress`; the front end turns each update into
//! what its caller reads (`notifications/progress` for an MCP client's token, a line on a
//! terminal, a JSON line in `--jsonl`).

use std::sync::{Arc, Mutex};

use super::output::ToolOutput;

type Hook = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct State {
    cancelled: bool,
    hooks: Vec<Hook>,
}

/// A call's cancellation (see the module docs). Cloning shares the token.
#[derive(Clone, Default)]
pub struct Cancel(Arc<Mutex<State>>);

impl std::fmt::Debug for Cancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Cancel").field(&self.is_cancelled()).finish()
    }
}

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Asks the call to stop: runs every hook once (outside the lock) and marks the token.
    pub fn cancel(&self) {
        let hooks = {
            let mut state = self.state();
            if state.cancelled {
                return;
            }
            state.cancelled = true;
            std::mem::take(&mut state.hooks)
        };
        for hook in hooks {
            hook();
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.state().cancelled
    }

    /// Runs `hook` when the call is cancelled: at once when it already is. A hook must not
    /// block (send on a channel, signal a process, write a notification).
    pub fn on_cancel(&self, hook: impl FnOnce() + Send + 'static) {
        let mut state = self.state();
        if state.cancelled {
            drop(state);
            hook();
        } else {
            state.hooks.push(Box::new(hook));
        }
    }
}

/// What a provider returns for a call that was cancelled. Front ends that answer a cancelled
/// request with nothing (MCP) drop it; the transcript records it.
pub fn cancelled_output(tool: &str) -> ToolOutput {
    ToolOutput::error(format!("`{tool}` was cancelled before it finished."))
}

/// One progress update of a running call (MCP's `notifications/progress` fields).
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// How far it is; grows with every update.
    pub progress: f64,
    /// The whole, when known.
    pub total: Option<f64>,
    pub message: Option<String>,
}

/// Where a provider sends its progress updates; it must not block for long.
pub type ProgressSink<'a> = dyn Fn(Progress) + Sync + 'a;

/// A sink for calls nobody follows.
pub fn no_progress(_: Progress) {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn hooks_run_once_whenever_they_were_added() {
        let cancel = Cancel::new();
        let runs = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&runs);
        cancel.on_cancel(move || {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        assert!(!cancel.is_cancelled());
        assert_eq!(runs.load(Ordering::SeqCst), 0);
        cancel.cancel();
        cancel.cancel();
        assert!(cancel.is_cancelled());
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        let counter = Arc::clone(&runs);
        cancel.on_cancel(move || {
            counter.fetch_add(10, Ordering::SeqCst);
        });
        assert_eq!(runs.load(Ordering::SeqCst), 11, "a late hook runs at once");
    }

    #[test]
    fn a_clone_shares_the_token_across_threads() {
        let cancel = Cancel::new();
        let other = cancel.clone();
        std::thread::spawn(move || other.cancel()).join().unwrap();
        assert!(cancel.is_cancelled());
    }
}
