//! Reloading running hosts in place (SPEC §3.7): every `finch run` registers itself as a lock
//! file `<runtime>/run/hosts/<pid>.lock` that it holds while it lives, and reloads when SIGUSR1
//! arrives; `finch reload` signals every registered host whose lock is still held. A lock that
//! nobody holds belongs to a host that died, and its file is removed. The signal handler only
//! sets a flag; a host acts on it between calls, so a reload never cuts a call in half.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

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
            "{} is held by pid {}",
            path.display(),
            pid.map_or_else(|| "unknown".to_string(), |p| p.to_string())
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
