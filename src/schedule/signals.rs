//! SIGINT and SIGTERM turned into ordinary messages. The handler only writes the signal number
//! to a pipe (the one thing a handler may safely do); a thread reads the pipe and calls the
//! caller's function, which is free to lock, allocate and print. Installed once per process.

use std::sync::atomic::{AtomicI32, Ordering};

/// The stop signals the daemon handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopSignal {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM (systemd, launchd, `kill`).
    Terminate,
}

impl StopSignal {
    pub fn name(self) -> &'static str {
        match self {
            StopSignal::Interrupt => "SIGINT",
            StopSignal::Terminate => "SIGTERM",
        }
    }
}

static WRITE_FD: AtomicI32 = AtomicI32::new(-1);

#[cfg(unix)]
extern "C" fn on_signal(signal: libc::c_int) {
    let fd = WRITE_FD.load(Ordering::Relaxed);
    if fd >= 0 {
        let byte = signal as u8;
        // SAFETY: write(2) is async-signal-safe; the buffer is one byte on this stack frame.
        unsafe {
            libc::write(fd, (&byte as *const u8).cast(), 1);
        }
    }
}

/// Calls `handler` (on a thread of its own) each time SIGINT or SIGTERM arrives.
#[cfg(unix)]
pub fn on_stop_signal(handler: impl Fn(StopSignal) + Send + 'static) -> std::io::Result<()> {
    use std::io::Read;
    use std::os::fd::IntoRawFd;

    let (mut reader, writer) = std::io::pipe()?;
    // The write end lives as long as the process: the handler may run at any time.
    let fd = writer.into_raw_fd();
    // SAFETY: plain fcntl/sigaction calls on a descriptor we own and a handler that only
    // writes to it; a full pipe must never block the handler, hence O_NONBLOCK.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
    WRITE_FD.store(fd, Ordering::Relaxed);
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed sigaction with our handler and SA_RESTART is a valid argument.
        let ok = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut())
        };
        if ok != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    std::thread::spawn(move || {
        let mut byte = [0u8; 1];
        while let Ok(1) = reader.read(&mut byte) {
            match i32::from(byte[0]) {
                libc::SIGINT => handler(StopSignal::Interrupt),
                libc::SIGTERM => handler(StopSignal::Terminate),
                _ => {}
            }
        }
    });
    Ok(())
}

/// Without Unix signals the process simply ends on Ctrl-C.
#[cfg(not(unix))]
pub fn on_stop_signal(_handler: impl Fn(StopSignal) + Send + 'static) -> std::io::Result<()> {
    let _ = WRITE_FD.load(Ordering::Relaxed);
    Ok(())
}
