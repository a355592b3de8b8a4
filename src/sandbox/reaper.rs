//! The two waiting processes of a confined tree started by `Confinement::apply` (Linux).
//! `apply` runs in a `fork` of the caller (F), which clones the tree's first process into its
//! PID namespace (C, pid 1 there), which forks the program's process (D, see `linux.rs`).
//! - F is the child the caller's `Command` knows, so it must live as long as the tree and end
//!   as the program ends: the **reaper** waits for C and ends as C did. Killing it kills C
//!   (C's parent-death signal) and with C the whole tree.
//! - C is the tree's **init**: it reaps every process orphaned in the tree (a PID namespace
//!   hands them to its first process, and a program that does not wait for them would keep
//!   them as zombies, each holding one of the tree's `PROCESS_LIMIT` pids), passes the
//!   signals it gets on to D, and when D ends, ends with D's exit code (128 + the signal
//!   when a signal ended D: the first process of a PID namespace cannot die by its own
//!   signal) — and the kernel ends everything else in the tree.
//!
//! Neither may hold the caller's memory meanwhile (a fork keeps every page the caller later
//! writes), so each `exec`s finch's own binary under the name of its mode (`Mode::arg0`), and
//! `finch::main` hands over to `run_if_reaper` before anything else. Neither reads input,
//! opens files or starts anything.

use std::ffi::CStr;
use std::process::ExitCode;

/// Which of the two waiting processes one is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// F: waits for the tree's first process.
    Reaper,
    /// C: the tree's first process, waiting for the program.
    Init,
}

impl Mode {
    /// The name a process of this mode is started under (its `argv[0]`); its one argument is
    /// the pid it waits for.
    pub(super) fn arg0(self) -> &'static CStr {
        match self {
            Mode::Reaper => c"finch-sandbox-reaper",
            Mode::Init => c"finch-sandbox-init",
        }
    }
}

/// `pid` in decimal, NUL-terminated, in `buf` (no allocation: it runs between fork and exec).
pub(super) fn write_pid(pid: libc::pid_t, buf: &mut [u8; 24]) -> &CStr {
    let mut digits = [0u8; 20];
    let mut n = pid.unsigned_abs();
    let mut len = 0;
    loop {
        digits[len] = b'0' + (n % 10) as u8;
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for (i, d) in digits[..len].iter().rev().enumerate() {
        buf[i] = *d;
    }
    buf[len] = 0;
    CStr::from_bytes_until_nul(&buf[..=len]).unwrap_or(c"0")
}

/// When this process was started as a reaper or an init: waits and returns how to end.
/// `None` for every other start.
pub fn run_if_reaper() -> Option<ExitCode> {
    let mut args = std::env::args_os();
    let name = args.next()?;
    let mode = [Mode::Reaper, Mode::Init]
        .into_iter()
        .find(|m| name.as_encoded_bytes() == m.arg0().to_bytes())?;
    let Some(pid) = args
        .next()
        .and_then(|a| a.to_str()?.parse::<libc::pid_t>().ok())
        .filter(|pid| *pid > 0)
    else {
        return Some(ExitCode::from(127));
    };
    let status = match mode {
        Mode::Reaper => wait_for(pid),
        Mode::Init => init(pid),
    };
    let Some(status) = status else {
        return Some(ExitCode::from(127));
    };
    if libc::WIFEXITED(status) {
        return Some(ExitCode::from(libc::WEXITSTATUS(status) as u8));
    }
    let signal = libc::WTERMSIG(status);
    if mode == Mode::Reaper {
        // End by the same signal, so the caller sees what the tree's first process saw.
        // SAFETY: restoring a signal's default action and sending it to this process.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::kill(libc::getpid(), signal);
        }
    }
    Some(ExitCode::from(128u8.wrapping_add(signal as u8)))
}

/// Waits for the child `pid`; its wait status, `None` when it cannot be waited for.
fn wait_for(pid: libc::pid_t) -> Option<libc::c_int> {
    let mut status = 0;
    loop {
        // SAFETY: waiting for this process's own child, with a valid out-pointer.
        if unsafe { libc::waitpid(pid, &mut status, 0) } == pid {
            return Some(status);
        }
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return None;
        }
    }
}

/// The init of a tree: every signal blocked and taken in turn; a child that ended is reaped,
/// any other signal is passed on to `program`. Returns `program`'s wait status.
fn init(program: libc::pid_t) -> Option<libc::c_int> {
    // SAFETY: sigset_t is plain data that the calls fill; blocking every signal of this
    // single-threaded process, then waiting for them one at a time; reaping its children.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::sigprocmask(libc::SIG_SETMASK, &all, std::ptr::null_mut());
        loop {
            // Reap what has ended (the program may have ended before the signals were
            // blocked, so this comes first).
            loop {
                let mut status = 0;
                let pid = libc::waitpid(-1, &mut status, libc::WNOHANG);
                if pid == program {
                    return Some(status);
                }
                if pid <= 0 {
                    if pid < 0
                        && std::io::Error::last_os_error().raw_os_error() == Some(libc::ECHILD)
                    {
                        return None;
                    }
                    break;
                }
            }
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let signal = libc::sigwaitinfo(&all, &mut info);
            if signal > 0 && signal != libc::SIGCHLD {
                libc::kill(program, signal);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pids_are_written_in_decimal() {
        let mut buf = [0u8; 24];
        assert_eq!(write_pid(1, &mut buf), c"1");
        assert_eq!(write_pid(4_194_303, &mut buf), c"4194303");
        assert_eq!(write_pid(10, &mut buf), c"10");
    }
}
