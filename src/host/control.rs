//! Reloading running hosts in place (SPEC §3.7): every `finch run` registers itself as a lock
//! file `<runtime>/run/hosts/<pid>.lock` that it holds while it lives, and reloads when SIGUSR1
//! arrives; `finch reload` signals every registered host whose lock is still held. A lock that
//! nobody holds belongs to a host that died, and its file is removed. The signal handler only
//! sets a flag; a host acts on it between calls, so a reload never cuts a call in half.
//!
//! Also here: stopping a host whose call records wait unwritten (`finch run --serve mcp` writes
//! them in bursts). SIGTERM, SIGINT and SIGHUP still end the process at once, as by default,
//! when nothing waits; when records wait, the host writes them first and then dies of the same
//! signal (see `watch_stop_signals`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use crate::homes::Homes;
use crate::store::{PidLock, TryLock};

static RELOAD_REQUESTED: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn on_reload_signal(_signal: libc::c_int) {
    RELOAD_REQUESTED.store(true, Ordering::SeqCst);
}

/// Makes SIGUSR1 request a reload (see `take_reload_request`).
#[cfg(unix)]
pub fn install_reload_signal() -> std::io::Result<()> {
    // SAFETY: a zeroed sigaction with a handler that only stores to an atomic, and SA_RESTART
    // so blocking reads of stdin carry on.
    let ok = unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_reload_signal as *const () as usize;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGUSR1, &action, std::ptr::null_mut())
    };
    if ok == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(unix))]
pub fn install_reload_signal() -> std::io::Result<()> {
    Ok(())
}

/// Whether a reload was requested since the last call (and clears the request).
pub fn take_reload_request() -> bool {
    RELOAD_REQUESTED.swap(false, Ordering::SeqCst)
}

/// Asks this process to reload (the console's `/reload` takes the same path).
pub fn request_reload() {
    RELOAD_REQUESTED.store(true, Ordering::SeqCst);
}

/// Whether call records may wait unwritten (set by the host; read by the stop handler).
static RECORDS_WAIT: AtomicBool = AtomicBool::new(false);
/// The stop signal that came while records waited (0: none).
static STOP_SIGNAL: AtomicI32 = AtomicI32::new(0);
/// The write end of the pipe through which the stop handler wakes the host (-1: none). Open
/// for the rest of the process once made, so the handler never writes to a reused number.
#[cfg(unix)]
static WAKE_FD: AtomicI32 = AtomicI32::new(-1);
/// The read end of that pipe, until the host takes it (`take_stop_wake`).
#[cfg(unix)]
static WAKE_READ: std::sync::Mutex<Option<std::os::fd::OwnedFd>> = std::sync::Mutex::new(None);

/// The signals that stop a host.
#[cfg(unix)]
const STOP_SIGNALS: [libc::c_int; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];

#[cfg(unix)]
extern "C" fn on_stop_signal(signal: libc::c_int) {
    if !RECORDS_WAIT.load(Ordering::SeqCst) {
        die_of(signal);
    }
    STOP_SIGNAL.store(signal, Ordering::SeqCst);
    let wake = WAKE_FD.load(Ordering::SeqCst);
    if wake >= 0 {
        // SAFETY: write(2) of one byte from a live local to a descriptor never closed; a full
        // pipe (a wake-up already waiting) is fine.
        unsafe { libc::write(wake, [1u8].as_ptr().cast(), 1) };
    }
    // The host may have written its records and looked for a stop between the two loads:
    // then nobody else would act on it.
    if !RECORDS_WAIT.load(Ordering::SeqCst) {
        die_of(signal);
    }
}

/// Ends the process by `signal` with its default action, as if no handler had been installed
/// (async-signal-safe: `signal` and `raise` only).
#[cfg(unix)]
fn die_of(signal: libc::c_int) {
    // SAFETY: restoring the default action and raising the signal again.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Installs the stop handler for SIGTERM, SIGINT and SIGHUP (each one not ignored already):
/// a stop that comes while call records wait (`records_wait(true)`) is held until the host
/// says they are written (`records_wait(false)`), or until it asks (`stop_requested`), and
/// then ends the process by that signal; any other stop ends it at once. A held stop also
/// makes the pipe of `take_stop_wake` readable, so a host waiting for requests wakes up to
/// write its records.
#[cfg(unix)]
pub fn watch_stop_signals() -> std::io::Result<()> {
    use std::os::fd::{AsRawFd, IntoRawFd};
    if WAKE_FD.load(Ordering::SeqCst) < 0 {
        let (read, write) = std::io::pipe()?;
        // The handler must never block on a full pipe (it never fills: one byte ends it all).
        // SAFETY: fcntl(2) on a descriptor this function owns.
        if unsafe { libc::fcntl(write.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        *WAKE_READ.lock().unwrap_or_else(|e| e.into_inner()) = Some(read.into());
        WAKE_FD.store(write.into_raw_fd(), Ordering::SeqCst);
    }
    for signal in STOP_SIGNALS {
        // A signal ignored by whoever started finch (`nohup` ignores SIGHUP, a shell's
        // background jobs SIGINT) stays ignored.
        // SAFETY: sigaction(2) with no new action only reads the current one into `current`.
        let ignored = unsafe {
            let mut current: libc::sigaction = std::mem::zeroed();
            libc::sigaction(signal, std::ptr::null(), &mut current) == 0
                && current.sa_sigaction == libc::SIG_IGN
        };
        if ignored {
            continue;
        }
        // SAFETY: a zeroed sigaction whose handler touches only atomics and calls
        // async-signal-safe functions; SA_RESTART so blocking reads carry on.
        let ok = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_stop_signal as *const () as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut())
        };
        if ok != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(not(unix))]
pub fn watch_stop_signals() -> std::io::Result<()> {
    Ok(())
}

/// The read end of the stop handler's wake-up pipe (once; `None` without `watch_stop_signals`).
#[cfg(unix)]
pub fn take_stop_wake() -> Option<std::os::fd::OwnedFd> {
    WAKE_READ.lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// Says whether call records wait unwritten. Saying they no longer do ends the process when a
/// stop signal came while they waited.
pub fn records_wait(waiting: bool) {
    RECORDS_WAIT.store(waiting, Ordering::SeqCst);
    if !waiting {
        stop_if_requested();
    }
}

/// Ends the process when a stop signal came while records waited (they must be written).
fn stop_if_requested() {
    #[cfg(unix)]
    {
        let signal = STOP_SIGNAL.load(Ordering::SeqCst);
        if signal != 0 {
            die_of(signal);
        }
    }
}

/// Whether a stop signal came while records waited.
pub fn stop_requested() -> bool {
    STOP_SIGNAL.load(Ordering::SeqCst) != 0
}

/// The directory of the registrations.
fn hosts_dir(homes: &Homes) -> PathBuf {
    homes.runtime.join("run").join("hosts")
}

/// A running host's registration; dropping it (or dying) unregisters.
#[derive(Debug)]
pub struct Registration {
    _lock: PidLock,
    path: PathBuf,
}

impl Drop for Registration {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Registers this process as a running host.
pub fn register(homes: &Homes) -> std::io::Result<Registration> {
    let path = hosts_dir(homes).join(format!("{}.lock", std::process::id()));
    match PidLock::try_acquire(&path) {
        Ok(lock) => Ok(Registration { _lock: lock, path }),
        Err(TryLock::Io(e)) => Err(e),
        // A file named after our own pid held by someone else cannot happen; say so plainly.
        Err(TryLock::Held { pid }) => Err(std::io::Error::other(format!(
            "{} is held by {}",
            path.display(),
            pid.map_or_else(|| "another process".to_string(), |p| format!("pid {p}"))
        ))),
    }
}

/// Sends SIGUSR1 to every running host; returns their pids. Registrations of hosts that died
/// are removed on the way.
pub fn signal_running(homes: &Homes) -> Vec<u32> {
    let mut signalled = Vec::new();
    let Ok(entries) = std::fs::read_dir(hosts_dir(homes)) else {
        return signalled;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "lock") {
            continue;
        }
        match PidLock::try_acquire(&path) {
            // Nobody holds it: its host is gone.
            Ok(lock) => {
                drop(lock);
                let _ = std::fs::remove_file(&path);
            }
            Err(TryLock::Held { pid: Some(pid) }) if pid != std::process::id() => {
                if signal(pid) {
                    signalled.push(pid);
                }
            }
            Err(_) => {}
        }
    }
    signalled.sort_unstable();
    signalled
}

#[cfg(unix)]
fn signal(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: kill(2) with a pid read from a lock file its holder wrote.
    unsafe { libc::kill(pid, libc::SIGUSR1) == 0 }
}

#[cfg(not(unix))]
fn signal(_pid: u32) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn homes(dir: &Path) -> Homes {
        Homes {
            runtime: dir.to_path_buf(),
            agent: dir.join("agent"),
            agent_source: crate::homes::AgentHomeSource::Flag,
        }
    }

    #[test]
    fn stale_registrations_are_removed_and_our_own_is_never_signalled() {
        let dir = tempfile::tempdir().unwrap();
        let homes = homes(dir.path());
        let stale = hosts_dir(&homes).join("999999.lock");
        std::fs::create_dir_all(stale.parent().unwrap()).unwrap();
        std::fs::write(&stale, "999999").unwrap();
        let ours = register(&homes).unwrap();
        assert!(signal_running(&homes).is_empty());
        assert!(!stale.exists());
        assert!(ours.path.exists());
        let path = ours.path.clone();
        drop(ours);
        assert!(!path.exists());
    }

    #[test]
    fn requests_are_taken_once() {
        request_reload();
        assert!(take_reload_request());
        assert!(!take_reload_request());
    }
}
