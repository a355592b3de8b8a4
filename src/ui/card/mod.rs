//! Permission cards and questions on the terminal (SPEC §8.4, §8.3): `TtyPrompter` shows a
//! permission card or an `AskUserQuestion` question on `/dev/tty` and reads the answer, one key at
//! a time. It owns the terminal only while a card is up and must never leave it in raw mode, never
//! wait past its timeout, and never let text from a model or a mini tool (a command, a title, a
//! reason, a question) move the cursor or recolour the card: control characters are shown escaped.
//!
//! The spec names `dialoguer` for cards, but dialoguer cannot time out a prompt, and §8.4 requires
//! that a card never blocks forever (an unanswered card is denied after `[host] card_timeout`).
//! So this prompt is hand-written: raw mode through termios, `poll` against the card's deadline.
//! It talks to `/dev/tty`, not stdin/stdout, because under `finch run --jsonl` and `--serve mcp`
//! those carry a protocol. Entering raw mode discards type-ahead (and what still reaches the
//! terminal in the next 30 ms: a pseudo-terminal delivers written bytes a moment late), so keys
//! pressed before a card appeared never answer it; Ctrl-C denies instead of killing the run.
//! crossterm would replace only the key decoding here (its reader cannot wait on this `File`
//! with the card's deadline and its flush), so it is not used.
//!
//! A card's choices are numbered 1, 2, 3 … down the card, without gaps (issue 31), and each
//! keeps its letter on every card (y Allow once, s Allow for this session, n Deny, r Deny and
//! tell the model why); "Allow once, without the sandbox" has only its letter `u`, so that no
//! number a hand remembers from another card ever lifts the sandbox — a number that moved
//! (3 is Deny with a session allow, "Deny and tell why" without) never turns a denial into
//! an allow. A HIGH-risk
//! card opens with the cursor on Deny, so Enter alone never runs it; "Allow for this session"
//! says what it covers (`Card::session_scope`). The card fits the terminal: fields and the
//! footer wrap at word boundaries (a word wider than a line is broken, never cut), so every
//! row is narrower than the terminal and the redraw knows how many rows it drew. The pure parts (key
//! decoding, what a key does to a menu, rendering into any `Write`) are tested beside the code;
//! the terminal parts are tested on a real pseudo-terminal.

use std::fs::File;
use std::io::{self, Write};
use std::time::{Duration, Instant};

use owo_colors::OwoColorize;

use crate::host::cancel::Cancel;
use crate::host::prompt::{Card, CardAnswer, Change, Prompter, Question, QuestionAnswer, View};
use crate::host::tool::Risk;
use crate::minitool::confine::Unconfined;
use crate::ui::diff::DiffLine;
use crate::ui::display_width;
use crate::ui::table::cut_to;

mod keys;
mod menu;
mod render;
#[cfg(unix)]
mod term;
#[cfg(not(unix))]
#[path = "term_other.rs"]
mod term;
#[cfg(test)]
mod tests;

use menu::*;
use render::*;

/// How long the rest of an escape sequence or of a UTF-8 character may lag behind its first byte.
const SEQUENCE_WAIT: Duration = Duration::from_millis(80);
/// The longest reason or free-text answer kept, in characters.
const MAX_TEXT: usize = 2000;
/// The width assumed when the terminal does not say.
const DEFAULT_WIDTH: usize = 80;

/// Asks permission cards and questions on the controlling terminal.
pub struct TtyPrompter {
    tty: File,
    timeout: Duration,
    color: bool,
}

impl TtyPrompter {
    /// Opens `/dev/tty` for reading and writing; `None` when the process has no controlling
    /// terminal (a daemon, CI, `setsid`), so the caller falls back to `Nobody`.
    pub fn open(timeout: Duration, color: bool) -> Option<TtyPrompter> {
        let tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .ok()?;
        TtyPrompter::on(tty, timeout, color)
    }

    /// A prompter on an already open terminal; `None` when `tty` is not one.
    fn on(tty: File, timeout: Duration, color: bool) -> Option<TtyPrompter> {
        term::is_terminal(&tty).then_some(TtyPrompter {
            tty,
            timeout,
            color,
        })
    }

    fn write(&self, bytes: &[u8]) -> io::Result<()> {
        let mut tty = &self.tty;
        tty.write_all(bytes)?;
        tty.flush()
    }

    /// The card, until answered, timed out, or taken back once `cancel` is set.
    fn ask_card(
        &self,
        card: &Card,
        keys: &mut term::Keys,
        cancel: Option<&Cancel>,
    ) -> io::Result<CardAnswer> {
        let choices = CardChoice::offered(card.session_allow_offered, card.unsandboxed_offered);
        let items = card_items(&choices, card);
        let mut menu = Menu::new(&items, false, None);
        // Enter alone never runs a high-risk call: the cursor starts on Deny.
        if card.risk == Risk::High {
            menu.cursor = choices
                .iter()
                .position(|c| *c == CardChoice::Deny)
                .unwrap_or(0);
        }
        let width = term::width(&self.tty);
        let pages = summary_pages(card, width);
        let mut help = card_help(&choices, self.timeout);
        if pages > 1 {
            help.push_str(" Press > and < to page through the command.");
        }
        let mut page = 0;

        let mut screen = Vec::new();
        render_card_page(&mut screen, card, width, self.color, page)?;
        render_menu(&mut screen, &items, &menu, width, self.color)?;
        render_help(&mut screen, &help, width, self.color)?;
        self.write(&screen)?;

        let deadline = deadline_after(self.timeout);
        loop {
            let Some(key) = keys.next(&self.tty, deadline)? else {
                if cancel.is_some_and(Cancel::is_cancelled) {
                    return Ok(CardAnswer::Withdrawn);
                }
                return Ok(CardAnswer::TimedOut);
            };
            let turned = match key {
                Key::Char('>') if page + 1 < pages => Some(page + 1),
                Key::Char('<') if page > 0 => Some(page - 1),
                _ => None,
            };
            if let Some(to) = turned {
                // The whole card again, over the old one (the cursor sits on its last line).
                let rows = screen.iter().filter(|&&b| b == b'\n').count();
                page = to;
                screen.clear();
                write!(screen, "\r\x1b[{rows}A\x1b[J")?;
                let start = screen.len();
                render_card_page(&mut screen, card, width, self.color, page)?;
                render_menu(&mut screen, &items, &menu, width, self.color)?;
                render_help(&mut screen, &help, width, self.color)?;
                self.write(&screen)?;
                screen.drain(..start);
                continue;
            }
            match menu.step(key) {
                Outcome::Chosen(picked) => {
                    let choice = picked
                        .first()
                        .and_then(|&i| choices.get(i))
                        .copied()
                        .unwrap_or(CardChoice::Deny);
                    return self.card_answer(choice, keys);
                }
                Outcome::Redraw => self.redraw(&items, &menu, &help, width)?,
                Outcome::Cancel => return Ok(CardAnswer::Deny),
                Outcome::Ignore => {}
            }
        }
    }

    fn card_answer(&self, choice: CardChoice, keys: &mut term::Keys) -> io::Result<CardAnswer> {
        Ok(match choice {
            CardChoice::AllowOnce => CardAnswer::AllowOnce,
            CardChoice::AllowForSession => CardAnswer::AllowForSession,
            CardChoice::AllowUnsandboxed => CardAnswer::AllowUnsandboxed,
            CardChoice::Deny => CardAnswer::Deny,
            CardChoice::DenyWithReason => {
                let prompt = "\nTell the model why (Enter sends, Esc denies without a reason): ";
                self.write(prompt.as_bytes())?;
                match self.read_line(keys)? {
                    Line::Text(reason) if !reason.is_empty() => CardAnswer::DenyWithReason(reason),
                    Line::TimedOut => {
                        self.write(b"\n(no reason given in time)")?;
                        CardAnswer::Deny
                    }
                    Line::Text(_) | Line::Cancelled => CardAnswer::Deny,
                }
            }
        })
    }

    fn ask_question(
        &self,
        question: &Question,
        keys: &mut term::Keys,
    ) -> io::Result<QuestionAnswer> {
        let mut items: Vec<Item> = question
            .options
            .iter()
            .enumerate()
            .map(|(i, o)| Item {
                label: o.label.clone(),
                detail: o.description.clone(),
                letter: None,
                number: position_number(i),
            })
            .collect();
        let other = items.len();
        items.push(Item {
            label: "Other…".to_string(),
            detail: Some("type your own answer".to_string()),
            letter: Some('o'),
            number: position_number(other),
        });
        let help = question_help(items.len(), question.multi_select, self.timeout);
        let width = term::width(&self.tty);

        // Each pass shows the question afresh: the first time, and after an abandoned "Other…".
        loop {
            let mut menu = Menu::new(&items, question.multi_select, Some(other));
            let mut screen = Vec::new();
            render_question(&mut screen, question, width, self.color)?;
            render_menu(&mut screen, &items, &menu, width, self.color)?;
            render_help(&mut screen, &help, width, self.color)?;
            self.write(&screen)?;

            let deadline = deadline_after(self.timeout);
            let picked = loop {
                let Some(key) = keys.next(&self.tty, deadline)? else {
                    return Ok(QuestionAnswer::TimedOut);
                };
                match menu.step(key) {
                    Outcome::Chosen(picked) => break picked,
                    Outcome::Redraw => self.redraw(&items, &menu, &help, width)?,
                    Outcome::Cancel => return Ok(QuestionAnswer::Unavailable),
                    Outcome::Ignore => {}
                }
            };
            if picked != [other] {
                let labels = picked
                    .iter()
                    .filter_map(|&i| question.options.get(i))
                    .map(|o| o.label.clone())
                    .collect();
                return Ok(QuestionAnswer::Chosen(labels));
            }
            self.write(b"\nYour answer (Enter sends, Esc goes back): ")?;
            match self.read_line(keys)? {
                Line::Text(text) if !text.is_empty() => return Ok(QuestionAnswer::Other(text)),
                Line::TimedOut => return Ok(QuestionAnswer::TimedOut),
                Line::Text(_) | Line::Cancelled => self.write(b"\n")?,
            }
        }
    }

    /// Draws the menu and help lines again over the old ones (the cursor sits on the last help
    /// line).
    fn redraw(&self, items: &[Item], menu: &Menu, help: &str, width: usize) -> io::Result<()> {
        let mut screen = Vec::new();
        let rows = menu_lines(items, menu, width).len() + help_lines(help, width).len() - 1;
        write!(screen, "\r\x1b[{rows}A\x1b[J")?;
        render_menu(&mut screen, items, menu, width, self.color)?;
        render_help(&mut screen, help, width, self.color)?;
        self.write(&screen)
    }

    /// One line of text, echoed as typed, within a fresh timeout.
    fn read_line(&self, keys: &mut term::Keys) -> io::Result<Line> {
        let deadline = deadline_after(self.timeout);
        let mut text = String::new();
        loop {
            let Some(key) = keys.next(&self.tty, deadline)? else {
                return Ok(Line::TimedOut);
            };
            match key {
                Key::Enter => return Ok(Line::Text(text.trim().to_string())),
                Key::Cancel => return Ok(Line::Cancelled),
                Key::Backspace if text.pop().is_some() => self.write(b"\x08 \x08")?,
                Key::Char(c) if !hidden(c) && text.chars().count() < MAX_TEXT => {
                    text.push(c);
                    let mut buf = [0; 4];
                    self.write(c.encode_utf8(&mut buf).as_bytes())?;
                }
                _ => {}
            }
        }
    }

    /// Runs `ask` in raw mode and prints the outcome once the terminal is restored. `None`
    /// when the terminal cannot be used (it cannot be put in raw mode, or this process is in
    /// the background, where touching it would stop the process).
    fn with_raw_mode<T>(
        &self,
        mut keys: term::Keys,
        ask: impl FnOnce(&Self, &mut term::Keys) -> io::Result<T>,
        on_error: T,
        outcome: impl FnOnce(&T) -> Option<String>,
    ) -> Option<T> {
        if term::in_background(&self.tty) {
            return None;
        }
        let raw = term::RawMode::enter(&self.tty).ok()?;
        let answer = ask(self, &mut keys).unwrap_or(on_error);
        drop(raw);
        if let Some(line) = outcome(&answer) {
            // The answer stands even when the terminal can no longer show it.
            let _ = self.write(format!("\n{line}\n").as_bytes());
        }
        Some(answer)
    }
}

impl TtyPrompter {
    /// The card that asks whether a mini tool the kernel cannot confine here runs unconfined
    /// (`minitool::confine::Consent`): what it declares, why finch cannot hold it to that, and
    /// Allow (recorded for its id) or Deny. The cursor starts on Deny and keys typed before
    /// the card appeared never answer it (`with_raw_mode`). `AllowOnce` means allowed;
    /// `Unavailable` when the terminal cannot be used.
    pub fn unconfined(&mut self, request: &Unconfined) -> CardAnswer {
        let color = self.color;
        crate::ui::activity::person(|| {
            self.with_raw_mode(
                term::Keys::default(),
                |me, keys| me.ask_unconfined(request, keys),
                CardAnswer::Deny,
                |answer| unconfined_outcome(answer, &request.id, color),
            )
            .unwrap_or(CardAnswer::Unavailable)
        })
    }

    fn ask_unconfined(
        &self,
        request: &Unconfined,
        keys: &mut term::Keys,
    ) -> io::Result<CardAnswer> {
        let items = unconfined_items(&request.id);
        let mut menu = Menu::new(&items, false, None);
        menu.cursor = 1; // Deny: Enter alone never lifts the confinement.
        let width = term::width(&self.tty);
        let help = format!(
            "Press 1-2 or y/n, or ↑↓ Enter. Esc denies. Denied after {}.",
            human(self.timeout)
        );
        let mut screen = Vec::new();
        render_unconfined(&mut screen, request, width, self.color)?;
        render_menu(&mut screen, &items, &menu, width, self.color)?;
        render_help(&mut screen, &help, width, self.color)?;
        self.write(&screen)?;
        let deadline = deadline_after(self.timeout);
        loop {
            let Some(key) = keys.next(&self.tty, deadline)? else {
                return Ok(CardAnswer::TimedOut);
            };
            match menu.step(key) {
                Outcome::Chosen(picked) => {
                    return Ok(if picked == [0] {
                        CardAnswer::AllowOnce
                    } else {
                        CardAnswer::Deny
                    });
                }
                Outcome::Redraw => self.redraw(&items, &menu, &help, width)?,
                Outcome::Cancel => return Ok(CardAnswer::Deny),
                Outcome::Ignore => {}
            }
        }
    }
}

impl Prompter for TtyPrompter {
    /// The view as it is, between the heading and a blank line; a diff's added and removed
    /// lines in green and red when colour is on. Not in the background (that would stop the
    /// process).
    fn show(&mut self, view: &View) -> bool {
        if term::in_background(&self.tty) {
            return false;
        }
        let mut text = format!("\n{}\n", view.heading);
        for line in view.body.lines() {
            let paint = match line.as_bytes().first() {
                _ if !self.color || line.starts_with("+++") || line.starts_with("---") => None,
                Some(b'+') => Some("32"),
                Some(b'-') => Some("31"),
                Some(b'@') => Some("36"),
                _ => None,
            };
            match paint {
                Some(code) => text.push_str(&format!("\x1b[{code}m{line}\x1b[0m\n")),
                None => {
                    text.push_str(line);
                    text.push('\n');
                }
            }
        }
        text.push('\n');
        self.write(text.as_bytes()).is_ok()
    }

    fn card(&mut self, card: &Card) -> CardAnswer {
        let color = self.color;
        // A running call's spinner gives the card the terminal.
        crate::ui::activity::person(|| {
            self.with_raw_mode(
                term::Keys::default(),
                |me, keys| me.ask_card(card, keys, None),
                CardAnswer::Deny,
                |answer| card_outcome(answer, color),
            )
            .unwrap_or(CardAnswer::Unavailable)
        })
    }

    /// The card, taken back when the call is cancelled while it is open (`--serve mcp`: the
    /// client sent `notifications/cancelled`): the cancellation writes to a pipe the card's
    /// wait for keys also watches.
    fn card_until(&mut self, card: &Card, cancel: &Cancel) -> CardAnswer {
        if cancel.is_cancelled() {
            return CardAnswer::Withdrawn;
        }
        let Ok((wake, mut waker)) = io::pipe() else {
            return self.card(card);
        };
        // After the card the pipe has no reader: the write fails (EPIPE; SIGPIPE is ignored),
        // which is all right.
        cancel.on_cancel(move || {
            let _ = waker.write_all(b"!");
        });
        let color = self.color;
        crate::ui::activity::person(|| {
            self.with_raw_mode(
                term::Keys::waking_on(wake),
                |me, keys| me.ask_card(card, keys, Some(cancel)),
                CardAnswer::Deny,
                |answer| card_outcome(answer, color),
            )
            .unwrap_or(CardAnswer::Unavailable)
        })
    }

    fn question(&mut self, question: &Question) -> QuestionAnswer {
        let color = self.color;
        crate::ui::activity::person(|| {
            self.with_raw_mode(
                term::Keys::default(),
                |me, keys| me.ask_question(question, keys),
                QuestionAnswer::Unavailable,
                |answer| question_outcome(answer, color),
            )
            .unwrap_or(QuestionAnswer::Unavailable)
        })
    }
}

/// A line of text typed at a prompt.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    Text(String),
    Cancelled,
    TimedOut,
}

fn human(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0 => format!("{}ms", d.as_millis()),
        s if s % 3600 == 0 => format!("{}h", s / 3600),
        s if s % 60 == 0 => format!("{}m", s / 60),
        s if s > 60 => format!("{}m{}s", s / 60, s % 60),
        s => format!("{s}s"),
    }
}

/// `timeout` from now; a timeout too large for the clock waits a year, still not forever.
fn deadline_after(timeout: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(timeout)
        .or_else(|| now.checked_add(Duration::from_secs(365 * 24 * 3600)))
        .unwrap_or(now)
}
