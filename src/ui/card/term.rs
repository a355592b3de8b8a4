//! The terminal itself: raw mode, the foreground check, waiting for keys with a deadline.

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, RawFd};
use std::time::{Duration, Instant};

use super::SEQUENCE_WAIT;
use super::keys::{Parsed, parse_key, parse_stale};
use super::menu::Key;

pub fn is_terminal(tty: &File) -> bool {
    get(tty).is_ok()
}

/// Whether this process is in the background on `tty`: reading it, or changing its mode,
/// would stop the process (SIGTTIN/SIGTTOU) instead of asking anyone.
pub fn in_background(tty: &File) -> bool {
    // SAFETY: plain calls on a file descriptor we own; no memory is passed.
    let foreground = unsafe { libc::tcgetpgrp(tty.as_raw_fd()) };
    let ours = unsafe { libc::getpgrp() };
    // An error (not our controlling terminal) says nothing about the background.
    foreground > 0 && foreground != ours
}

pub fn width(tty: &File) -> usize {
    // SAFETY: TIOCGWINSZ fills a plain struct we own; a failing call leaves it zeroed.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(tty.as_raw_fd(), libc::TIOCGWINSZ, &mut size) } == 0;
    if ok && size.ws_col > 0 {
        usize::from(size.ws_col)
    } else {
        super::DEFAULT_WIDTH
    }
}

fn get(tty: &File) -> io::Result<libc::termios> {
    // SAFETY: tcgetattr fills a plain struct we own.
    let mut mode: libc::termios = unsafe { std::mem::zeroed() };
    if unsafe { libc::tcgetattr(tty.as_raw_fd(), &mut mode) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(mode)
}

fn set(tty: &File, when: libc::c_int, mode: &libc::termios) -> io::Result<()> {
    // SAFETY: tcsetattr reads a struct we own.
    if unsafe { libc::tcsetattr(tty.as_raw_fd(), when, mode) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The terminal in raw mode until dropped, which puts back the mode it found (also when
/// the card fails or panics).
pub struct RawMode<'a> {
    tty: &'a File,
    saved: libc::termios,
}

impl<'a> RawMode<'a> {
    pub fn enter(tty: &'a File) -> io::Result<RawMode<'a>> {
        let saved = get(tty)?;
        let mut raw = saved;
        // Keys one at a time, not echoed; Ctrl-C and Ctrl-Z arrive as bytes (a card
        // interrupted by Ctrl-C is denied, not the whole run killed), Ctrl-S does not freeze.
        raw.c_lflag &= !(libc::ICANON | libc::ECHO | libc::ISIG | libc::IEXTEN);
        raw.c_iflag &= !libc::IXON;
        // "\n" starts a new line whatever mode the terminal was left in.
        raw.c_oflag |= libc::OPOST | libc::ONLCR;
        raw.c_cc[libc::VMIN] = 1;
        raw.c_cc[libc::VTIME] = 0;
        // TCSAFLUSH drops type-ahead: keys pressed before the card showed do not answer it.
        set(tty, libc::TCSAFLUSH, &raw)?;
        let mode = RawMode { tty, saved };
        discard_late_type_ahead(tty)?;
        Ok(mode)
    }
}

/// How long keys that were typed before the card but reach the terminal's input queue only
/// now are still thrown away: a pseudo-terminal hands written bytes to its line discipline
/// a moment later, so a key pressed just before the card can land after the flush. Nobody
/// answers a card that has not been drawn yet.
const TYPE_AHEAD_SETTLE: Duration = Duration::from_millis(30);

fn discard_late_type_ahead(tty: &File) -> io::Result<()> {
    let deadline = Instant::now() + TYPE_AHEAD_SETTLE;
    let mut buf = [0u8; 64];
    let mut reader = tty;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || !wait_readable(tty, None, left)? {
            return Ok(());
        }
        match reader.read(&mut buf) {
            // A hung-up terminal: the card's own read says so.
            Ok(0) => return Ok(()),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

impl Drop for RawMode<'_> {
    fn drop(&mut self) {
        // Nothing more can be done when the terminal refuses its old mode back.
        let _ = set(self.tty, libc::TCSANOW, &self.saved);
    }
}

/// Keys read from the terminal, with the bytes of a key not yet complete.
#[derive(Debug, Default)]
pub struct Keys {
    pending: Vec<u8>,
    /// Readable once the card is to be taken back (`TtyPrompter::card_until`): waiting
    /// for a key then ends as if the time had run out.
    wake: Option<io::PipeReader>,
}

impl Keys {
    /// Keys whose wait also ends when `wake` becomes readable.
    pub fn waking_on(wake: io::PipeReader) -> Keys {
        Keys {
            pending: Vec::new(),
            wake: Some(wake),
        }
    }

    /// The next key, or `None` when `deadline` passes first. End of input and read errors
    /// are errors (the card then denies).
    pub fn next(&mut self, tty: &File, deadline: Instant) -> io::Result<Option<Key>> {
        loop {
            match parse_key(&self.pending) {
                Parsed::Key(key, used) => {
                    self.pending.drain(..used.min(self.pending.len()));
                    return Ok(Some(key));
                }
                Parsed::Incomplete => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if !self.fill(tty, SEQUENCE_WAIT.min(left))? {
                        let (key, used) = parse_stale(&self.pending);
                        self.pending.drain(..used.min(self.pending.len()));
                        return Ok(Some(key));
                    }
                }
                Parsed::Empty => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() || !self.fill(tty, left)? {
                        return Ok(None);
                    }
                }
            }
        }
    }

    /// Waits up to `wait` for input and appends what arrived; false when nothing did.
    fn fill(&mut self, tty: &File, wait: Duration) -> io::Result<bool> {
        let wake = self.wake.as_ref().map(AsRawFd::as_raw_fd);
        if !wait_readable(tty, wake, wait)? {
            return Ok(false);
        }
        let mut buf = [0u8; 64];
        let mut reader = tty;
        let n = loop {
            match reader.read(&mut buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other?,
            }
        };
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the terminal closed",
            ));
        }
        self.pending.extend_from_slice(&buf[..n]);
        Ok(true)
    }
}

/// Waits until `tty` can be read (or has hung up, which the read then reports), at most
/// `wait`; false when the time ran out or `wake` became readable first.
fn wait_readable(tty: &File, wake: Option<RawFd>, wait: Duration) -> io::Result<bool> {
    let deadline = Instant::now() + wait;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        // Round up, so a wait never ends a moment before the deadline.
        let millis = left.as_nanos().div_ceil(1_000_000);
        let millis = libc::c_int::try_from(millis).unwrap_or(libc::c_int::MAX);
        let watch = |fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // A negative descriptor is ignored by poll(2).
        let mut fds = [watch(tty.as_raw_fd()), watch(wake.unwrap_or(-1))];
        // SAFETY: two pollfds we own, count 2.
        let rc = unsafe { libc::poll(fds.as_mut_ptr(), 2, millis) };
        if rc < 0 {
            let err = io::Error::last_os_error();
            if err.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(err);
        }
        let [fd, woken] = fds;
        if rc == 0 || woken.revents != 0 {
            return Ok(false);
        }
        if fd.revents & libc::POLLNVAL != 0 {
            return Err(io::Error::other("the terminal is no longer open"));
        }
        return Ok(true);
    }
}
