//! The spinner of a call running in the console (`finch run` on a terminal): `⠋ Bash 3s ·
//! Ctrl-C to cancel` on stderr, ticking while the call runs and cleared when it ends. One at a
//! time, known to the whole process, so that whatever else writes to the terminal during the
//! call — a permission card, a question, a progress line — hides it first (`suspend`, `person`)
//! and never draws over it. It never shows on a pipe: the caller starts one only when stdin and
//! stderr are terminals, and indicatif draws nothing where stderr is not one.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// The spinner on screen, if any, with the time people spent at cards while it showed.
static SHOWN: Mutex<Option<(ProgressBar, Away)>> = Mutex::new(None);

/// Time spent at cards and questions while the spinner showed; its clock leaves it out.
type Away = Arc<Mutex<Duration>>;

/// How often the spinner turns and its time moves on.
const TICK: Duration = Duration::from_millis(120);

/// A call's spinner; cleared (and forgotten) when dropped.
pub struct Spinner {
    bar: ProgressBar,
}

impl Spinner {
    /// Shows `⠋ <tool> <time> · Ctrl-C to cancel` on stderr until dropped.
    pub fn start(tool: &str) -> Spinner {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        let away: Away = Arc::default();
        let clock = Arc::clone(&away);
        let busy = move |state: &ProgressState, out: &mut dyn std::fmt::Write| {
            let away = *clock.lock().unwrap_or_else(|e| e.into_inner());
            let _ = write!(out, "{}", seconds(state.elapsed().saturating_sub(away)));
        };
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {busy} · Ctrl-C to cancel")
        {
            bar.set_style(style.with_key("busy", busy));
        }
        bar.set_message(crate::ui::first_line(tool));
        bar.enable_steady_tick(TICK);
        *lock() = Some((bar.clone(), away));
        Spinner { bar }
    }
}

/// Keys typed on the terminal while a console call runs, neither echoed nor lost until
/// dropped: the line editor reads them at the next prompt and draws them there. Echoed, they
/// (and Ctrl-C's `^C`) landed on the spinner's line, which fills the width: the terminal
/// wrapped, and clearing the spinner cleared only the row below it, leaving the spinner's line
/// on the screen. Only the console takes this: it handles SIGINT itself and puts the mode
/// back; a process that SIGINT ends (`finch tool call`) would leave the shell without echo.
/// A card during the call still drops what was typed before it (`card::term::RawMode`).
pub struct QuietKeys {
    #[cfg(unix)]
    saved: Option<libc::termios>,
}

impl QuietKeys {
    /// Turns echo off on stderr's terminal (nothing where it is none).
    pub fn start() -> QuietKeys {
        #[cfg(unix)]
        {
            // SAFETY: tcgetattr fills a plain struct we own; tcsetattr reads one.
            let mut mode: libc::termios = unsafe { std::mem::zeroed() };
            if unsafe { libc::tcgetattr(libc::STDERR_FILENO, &mut mode) } != 0 {
                return QuietKeys { saved: None };
            }
            let mut quiet = mode;
            quiet.c_lflag &= !(libc::ECHO | libc::ECHOCTL);
            let set = unsafe { libc::tcsetattr(libc::STDERR_FILENO, libc::TCSANOW, &quiet) };
            QuietKeys {
                saved: (set == 0).then_some(mode),
            }
        }
        #[cfg(not(unix))]
        QuietKeys {}
    }
}

impl Drop for QuietKeys {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(mode) = &self.saved {
            // SAFETY: tcsetattr reads a struct we own. A terminal that refuses its mode back
            // leaves nothing more to do.
            unsafe { libc::tcsetattr(libc::STDERR_FILENO, libc::TCSANOW, mode) };
        }
    }
}

/// `7s`, `1m 05s`.
fn seconds(d: Duration) -> String {
    let s = d.as_secs();
    if s < 60 {
        format!("{s}s")
    } else {
        format!("{}m {:02}s", s / 60, s % 60)
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        *lock() = None;
        self.bar.finish_and_clear();
    }
}

fn lock() -> std::sync::MutexGuard<'static, Option<(ProgressBar, Away)>> {
    SHOWN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` with the spinner (if one shows) hidden, then draws it again: for a line printed
/// while a call runs.
pub fn suspend<R>(f: impl FnOnce() -> R) -> R {
    let shown = lock().clone();
    match shown {
        Some((bar, _)) => bar.suspend(f),
        None => f(),
    }
}

/// `suspend` for the time a person spends at a card or question: the spinner's clock leaves
/// it out, as the call's own timing does (`Host`'s person time).
pub fn person<R>(f: impl FnOnce() -> R) -> R {
    let shown = lock().clone();
    match shown {
        Some((bar, away)) => bar.suspend(|| {
            let asked = std::time::Instant::now();
            let out = f();
            *away.lock().unwrap_or_else(|e| e.into_inner()) += asked.elapsed();
            out
        }),
        None => f(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_reads_in_seconds_then_minutes() {
        assert_eq!(seconds(Duration::from_millis(999)), "0s");
        assert_eq!(seconds(Duration::from_secs(59)), "59s");
        assert_eq!(seconds(Duration::from_secs(65)), "1m 05s");
    }
}
