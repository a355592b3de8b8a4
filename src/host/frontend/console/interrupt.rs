//! Ctrl-C while a call runs: the terminal sends SIGINT to finch's process group (the line
//! editor and the cards read keys in raw mode, so outside a call Ctrl-C is a key, not a
//! signal). The console takes SIGINT over for the session: a signal cancels the running call's
//! `Cancel` (Bash kills its process group, a mini tool's `exec.signal` aborts, an MCP call is
//! cancelled) and nothing else. Mini tools' node processes, MCP servers and Bash's commands run
//! in process groups of their own (`process_group(0)`), so the terminal's SIGINT never reaches
//! them directly.

use std::sync::{Arc, Mutex};

use crate::host::cancel::Cancel;

/// The running call's token, shared with the signal thread.
#[derive(Clone, Default)]
pub struct Interrupts {
    current: Arc<Mutex<Option<Cancel>>>,
    /// Whether SIGINT is ours; without it Ctrl-C ends finch as before.
    pub installed: bool,
}

impl Interrupts {
    /// Takes SIGINT over: a thread waits for it and cancels the running call.
    pub fn install() -> Interrupts {
        let mut interrupts = Interrupts::default();
        let current = Arc::clone(&interrupts.current);
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("console-sigint".into())
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build();
                let Ok(runtime) = runtime else {
                    let _ = ready_tx.send(false);
                    return;
                };
                runtime.block_on(async move {
                    use tokio::signal::unix::{SignalKind, signal};
                    let Ok(mut sigint) = signal(SignalKind::interrupt()) else {
                        let _ = ready_tx.send(false);
                        return;
                    };
                    let _ = ready_tx.send(true);
                    while sigint.recv().await.is_some() {
                        let running = current.lock().unwrap_or_else(|e| e.into_inner()).clone();
                        if let Some(cancel) = running {
                            cancel.cancel();
                        }
                    }
                });
            });
        interrupts.installed = spawned.is_ok() && ready_rx.recv().unwrap_or(false);
        interrupts
    }

    /// A fresh token for the next call; SIGINT cancels it until `finished`.
    pub fn start(&self) -> Cancel {
        let cancel = Cancel::new();
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = Some(cancel.clone());
        cancel
    }

    pub fn finished(&self) {
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}
