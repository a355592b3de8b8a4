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
