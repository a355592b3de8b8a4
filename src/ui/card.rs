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

/// The choices of a permission card, in the order shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CardChoice {
    AllowOnce,
    AllowForSession,
    Deny,
    DenyWithReason,
    /// Allow once without finch's sandbox (approved Bash calls).
    AllowUnsandboxed,
}

impl CardChoice {
    fn offered(session_allow: bool, unsandboxed: bool) -> Vec<CardChoice> {
        let mut choices = vec![CardChoice::AllowOnce];
        if session_allow {
            choices.push(CardChoice::AllowForSession);
        }
        choices.extend([CardChoice::Deny, CardChoice::DenyWithReason]);
        // Last, so that the numbers still rise down the card.
        if unsandboxed {
            choices.push(CardChoice::AllowUnsandboxed);
        }
        choices
    }

    fn label(self) -> &'static str {
        match self {
            CardChoice::AllowOnce => "Allow once",
            CardChoice::AllowForSession => "Allow for this session",
            CardChoice::Deny => "Deny",
            CardChoice::DenyWithReason => "Deny and tell the model why",
            CardChoice::AllowUnsandboxed => "Allow once, without the sandbox",
        }
    }

    /// The mnemonic key; the same whichever choices are offered.
    fn letter(self) -> char {
        match self {
            CardChoice::AllowOnce => 'y',
            CardChoice::AllowForSession => 's',
            CardChoice::Deny => 'n',
            CardChoice::DenyWithReason => 'r',
            CardChoice::AllowUnsandboxed => 'u',
        }
    }
}

fn card_items(choices: &[CardChoice], card: &Card) -> Vec<Item> {
    let numbers = card_numbers(choices);
    choices
        .iter()
        .zip(numbers)
        .map(|(&c, number)| Item {
            label: c.label().to_string(),
            detail: (c == CardChoice::AllowForSession).then(|| card.session_scope.clone()),
            letter: Some(c.letter()),
            number,
        })
        .collect()
}

/// Each choice's number: its place among the numbered ones (1, 2, 3 …); none for the choice
/// that lifts the sandbox.
fn card_numbers(choices: &[CardChoice]) -> Vec<Option<u32>> {
    let mut next = 0;
    choices
        .iter()
        .map(|&c| {
            (c != CardChoice::AllowUnsandboxed).then(|| {
                next += 1;
                next
            })
        })
        .collect()
}

/// A question's items are numbered by position, 1 to 9 (later ones by the arrow keys).
fn position_number(index: usize) -> Option<u32> {
    u32::try_from(index + 1).ok().filter(|n| *n <= 9)
}

/// One line of a menu.
#[derive(Debug, Clone)]
struct Item {
    label: String,
    detail: Option<String>,
    letter: Option<char>,
    /// The digit that picks it.
    number: Option<u32>,
}

/// A key, decoded from the bytes a terminal sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Char(char),
    Enter,
    Backspace,
    Up,
    Down,
    /// Ctrl-C, Ctrl-D or Esc.
    Cancel,
    /// Anything else (function keys, other control bytes): ignored.
    Other,
}

/// What a key did to a menu.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    /// The indexes chosen (one unless multi-select).
    Chosen(Vec<usize>),
    Redraw,
    Cancel,
    Ignore,
}

/// A list of choices with a cursor; in multi-select, a check mark per item. `other` is the item
/// that answers at once even in multi-select (a free-text answer replaces the options).
#[derive(Debug)]
struct Menu {
    len: usize,
    cursor: usize,
    letters: Vec<Option<char>>,
    numbers: Vec<Option<u32>>,
    multi: bool,
    checked: Vec<bool>,
    other: Option<usize>,
}

impl Menu {
    fn new(items: &[Item], multi: bool, other: Option<usize>) -> Menu {
        Menu {
            len: items.len(),
            cursor: 0,
            letters: items.iter().map(|i| i.letter).collect(),
            numbers: items.iter().map(|i| i.number).collect(),
            multi,
            checked: vec![false; items.len()],
            other,
        }
    }

    fn step(&mut self, key: Key) -> Outcome {
        match key {
            Key::Up if self.cursor > 0 => {
                self.cursor -= 1;
                Outcome::Redraw
            }
            Key::Down if self.cursor + 1 < self.len => {
                self.cursor += 1;
                Outcome::Redraw
            }
            Key::Enter => self.confirm(),
            Key::Char(' ') if self.multi => self.toggle(self.cursor),
            Key::Char(c) => match self.index_of(c) {
                Some(index) if self.multi => {
                    self.cursor = index;
                    self.toggle(index)
                }
                Some(index) => Outcome::Chosen(vec![index]),
                None => Outcome::Ignore,
            },
            Key::Cancel => Outcome::Cancel,
            Key::Up | Key::Down | Key::Backspace | Key::Other => Outcome::Ignore,
        }
    }

    /// The item a digit (its own number) or a mnemonic letter (either case) names.
    fn index_of(&self, c: char) -> Option<usize> {
        if let Some(digit) = c.to_digit(10) {
            return self.numbers.iter().position(|n| *n == Some(digit));
        }
        let c = c.to_ascii_lowercase();
        self.letters.iter().position(|l| *l == Some(c))
    }

    fn toggle(&mut self, index: usize) -> Outcome {
        if Some(index) == self.other {
            return Outcome::Chosen(vec![index]);
        }
        match self.checked.get_mut(index) {
            Some(mark) => {
                *mark = !*mark;
                Outcome::Redraw
            }
            None => Outcome::Ignore,
        }
    }

    /// Enter: the item under the cursor, or in multi-select the checked items (the item under
    /// the cursor when none is checked, so Enter alone still answers).
    fn confirm(&self) -> Outcome {
        let checked: Vec<usize> = (0..self.len).filter(|&i| self.checked[i]).collect();
        if self.multi && !checked.is_empty() {
            Outcome::Chosen(checked)
        } else {
            Outcome::Chosen(vec![self.cursor])
        }
    }
}

/// The result of decoding the start of a byte buffer.
#[derive(Debug, PartialEq, Eq)]
enum Parsed {
    /// A key and how many bytes it took.
    Key(Key, usize),
    /// The start of an escape sequence or a UTF-8 character whose rest has not arrived.
    Incomplete,
    Empty,
}

const ESC: u8 = 0x1b;

/// Decodes one key from the start of `buf`.
fn parse_key(buf: &[u8]) -> Parsed {
    let Some(&first) = buf.first() else {
        return Parsed::Empty;
    };
    match first {
        ESC => parse_escape(buf),
        b'\r' | b'\n' => Parsed::Key(Key::Enter, 1),
        0x7f | 0x08 => Parsed::Key(Key::Backspace, 1),
        0x03 | 0x04 => Parsed::Key(Key::Cancel, 1),
        0x00..=0x1f => Parsed::Key(Key::Other, 1),
        0x20..=0x7e => Parsed::Key(Key::Char(char::from(first)), 1),
        _ => parse_utf8(buf),
    }
}

/// `ESC [ … final` and `ESC O final` are keys (arrows, function keys); ESC followed by
/// anything else is the Esc key on its own.
fn parse_escape(buf: &[u8]) -> Parsed {
    match buf.get(1) {
        None => Parsed::Incomplete,
        Some(b'[' | b'O') => {
            let Some(end) = buf[2..].iter().position(|b| (0x40..=0x7e).contains(b)) else {
                // A sequence this long without its final byte is noise, not a key.
                return if buf.len() > 16 {
                    Parsed::Key(Key::Other, buf.len())
                } else {
                    Parsed::Incomplete
                };
            };
            let key = match buf[2 + end] {
                b'A' => Key::Up,
                b'B' => Key::Down,
                _ => Key::Other,
            };
            Parsed::Key(key, end + 3)
        }
        Some(_) => Parsed::Key(Key::Cancel, 1),
    }
}

fn parse_utf8(buf: &[u8]) -> Parsed {
    let len = match buf[0] {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return Parsed::Key(Key::Other, 1),
    };
    if buf.len() < len {
        // A stray continuation byte in what arrived already makes it invalid, not incomplete.
        return if buf[1..].iter().all(|b| b & 0xc0 == 0x80) {
            Parsed::Incomplete
        } else {
            Parsed::Key(Key::Other, 1)
        };
    }
    match std::str::from_utf8(&buf[..len])
        .ok()
        .and_then(|s| s.chars().next())
    {
        Some(c) => Parsed::Key(Key::Char(c), len),
        None => Parsed::Key(Key::Other, 1),
    }
}

/// Decodes bytes whose rest never came: a lone ESC is the Esc key, anything else is noise.
fn parse_stale(buf: &[u8]) -> (Key, usize) {
    match buf {
        [ESC] => (Key::Cancel, 1),
        _ => (Key::Other, buf.len().max(1)),
    }
}

/// Characters that must never reach the terminal as they are: control characters (they move
/// the cursor, recolour, or retitle the window) and the invisible ones that reorder or hide
/// text (bidi overrides, zero-width characters), which could make a command read as another.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}'
        )
}

/// `text` on one line, with every hidden character written as its escape (`\u{1b}`).
fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(' '),
            c if hidden(c) => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out
}

/// `text` cut to `width` columns, `…` marking the cut: for menu labels only (a question's
/// option that does not fit), never for what the call would do.
fn fit(text: &str, width: usize) -> String {
    let width = width.max(10);
    if display_width(text) <= width {
        return text.to_string();
    }
    let mut cut = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > width - 1 {
            break;
        }
        used += w;
        cut.push(c);
    }
    cut.push('…');
    cut
}

/// `text` in lines of at most `width` columns: broken at spaces, and a word wider than a line
/// broken inside (a command is shown whole, never cut).
fn wrap_whole(text: &str, width: usize) -> Vec<String> {
    let width = width.max(10);
    let mut out = Vec::new();
    for line in crate::ui::wrap(text, width) {
        if display_width(&line) <= width {
            out.push(line);
            continue;
        }
        let mut piece = String::new();
        let mut used = 0;
        for c in line.chars() {
            let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            if used + w > width {
                out.push(std::mem::take(&mut piece));
                used = 0;
            }
            used += w;
            piece.push(c);
        }
        out.push(piece);
    }
    out
}

fn paint(color: bool, text: &str, style: impl Fn(&str) -> String) -> String {
    if color { style(text) } else { text.to_string() }
}

/// The label of a card's one-line summary, after what the host put there.
fn summary_label(tool: &str) -> &'static str {
    match tool {
        "Bash" => "command",
        "Read" | "Write" | "Edit" => "path",
        "Grep" | "Glob" => "pattern",
        "WebFetch" => "url",
        "WebSearch" => "query",
        _ => "arguments",
    }
}

/// How many lines of a long summary one page of the card shows.
const PAGE_LINES: usize = 12;
/// The width of a field's label column (`  label     `).
const FIELD_INDENT: usize = 12;

/// The summary's lines as the card wraps them within `width` columns (the card's own width,
/// one less than the terminal's), like any other field.
fn summary_lines(card: &Card, width: usize) -> Vec<String> {
    wrap_whole(&visible(&card.summary), width.saturating_sub(FIELD_INDENT))
}

/// How many pages the summary takes on a terminal this wide (1 when it fits one page).
fn summary_pages(card: &Card, terminal_width: usize) -> usize {
    summary_lines(card, terminal_width.saturating_sub(1))
        .len()
        .div_ceil(PAGE_LINES)
        .max(1)
}

/// The card above its choices: who asks, how risky, what exactly, and why.
#[cfg(test)]
fn render_card(out: &mut impl Write, card: &Card, width: usize, color: bool) -> io::Result<()> {
    render_card_page(out, card, width, color, 0)
}

/// The card with page `page` of its summary: a summary longer than `LONG_SUMMARY` characters
/// says how long it is, and one longer than a page is shown a page at a time (never cut: `>`
/// and `<` turn the pages).
fn render_card_page(
    out: &mut impl Write,
    card: &Card,
    width: usize,
    color: bool,
    page: usize,
) -> io::Result<()> {
    let tool = visible(&card.tool);
    let title = visible(&card.title);
    let heading = if title.is_empty() || title == tool {
        format!("Permission needed: {tool}")
    } else {
        format!("Permission needed: {tool} — {title}")
    };
    let width = width.saturating_sub(1);
    write_heading(out, &heading, width, color)?;
    field(out, "layer", card.layer, width)?;
    if let Some(owner) = &card.owner {
        field(out, "owner", &visible(owner), width)?;
    }
    // The word carries the risk; colour only repeats it.
    let risk = match card.risk {
        Risk::Low => "low".to_string(),
        Risk::Medium => paint(color, "medium", |t| t.yellow().to_string()),
        Risk::High => paint(color, "HIGH", |t| t.red().bold().to_string()),
    };
    field(out, "risk", &risk, width)?;
    let lines = summary_lines(card, width);
    let pages = lines.len().div_ceil(PAGE_LINES).max(1);
    let chars = card.summary.chars().count();
    if chars > crate::host::prompt::LONG_SUMMARY || pages > 1 {
        let mut length = format!(
            "{chars} characters, {} line{} on this card",
            lines.len(),
            if lines.len() == 1 { "" } else { "s" }
        );
        if pages > 1 {
            length.push_str(&format!(
                "; page {} of {pages} (> next, < previous)",
                page.min(pages - 1) + 1
            ));
        }
        field(out, "length", &length, width)?;
    }
    let label = summary_label(&card.tool);
    let first = page.min(pages - 1) * PAGE_LINES;
    for (i, line) in lines.iter().skip(first).take(PAGE_LINES).enumerate() {
        if i == 0 {
            writeln!(out, "  {label:<10}{line}")?;
        } else {
            writeln!(out, "{:FIELD_INDENT$}{line}", "")?;
        }
    }
    if let Some(change) = &card.change {
        for line in change_lines(change, width, color) {
            writeln!(out, "{line}")?;
        }
    }
    field(out, "reason", &visible(&card.reason), width)?;
    if let Some(sandbox) = &card.sandbox {
        field(out, "sandbox", &visible(sandbox), width)?;
    }
    writeln!(out)
}

/// The two choices of the card of a mini tool the kernel cannot confine.
fn unconfined_items(id: &str) -> Vec<Item> {
    vec![
        Item {
            label: "Allow, and remember it".to_string(),
            detail: Some(format!(
                "{} runs with every right of your user, now and on every later start",
                visible(id)
            )),
            letter: Some('y'),
            number: Some(1),
        },
        Item {
            label: "Deny".to_string(),
            detail: Some("it does not start".to_string()),
            letter: Some('n'),
            number: Some(2),
        },
    ]
}

/// A blank line, then `heading` in bold, wrapped whole to `width`: how every card begins.
fn write_heading(out: &mut impl Write, heading: &str, width: usize, color: bool) -> io::Result<()> {
    writeln!(out)?;
    for line in wrap_whole(heading, width) {
        writeln!(out, "{}", paint(color, &line, |t| t.bold().to_string()))?;
    }
    Ok(())
}

/// The card of a mini tool the kernel cannot confine, above its choices.
fn render_unconfined(
    out: &mut impl Write,
    request: &Unconfined,
    width: usize,
    color: bool,
) -> io::Result<()> {
    let id = visible(&request.id);
    let name = visible(&request.display_name);
    let heading = if name.is_empty() || name == id {
        format!("Run mini tool {id} without confinement?")
    } else {
        format!("Run mini tool {id} ({name}) without confinement?")
    };
    let width = width.saturating_sub(1);
    write_heading(out, &heading, width, color)?;
    field(out, "declares", &request.declares(), width)?;
    field(
        out,
        "why",
        &format!(
            "finch cannot hold it to that here: {}",
            visible(&request.why)
        ),
        width,
    )?;
    let risk = paint(color, "HIGH", |t| t.red().bold().to_string());
    field(
        out,
        "risk",
        &format!(
            "{risk}: its code could read, change and send anything your user can, whatever it declares"
        ),
        width,
    )?;
    field(
        out,
        "recorded",
        &format!("Allow is kept; `finch sandbox revoke {id} unconfined` takes it back"),
        width,
    )?;
    writeln!(out)
}

fn unconfined_outcome(answer: &CardAnswer, id: &str, color: bool) -> Option<String> {
    let id = visible(id);
    Some(match answer {
        CardAnswer::AllowOnce => paint(
            color,
            &format!("✓ Allowed: {id} runs unconfined (recorded)"),
            |t| t.yellow().to_string(),
        ),
        CardAnswer::TimedOut => paint(
            color,
            &format!("timed out — denied: {id} does not start"),
            |t| t.red().to_string(),
        ),
        _ => paint(color, &format!("✗ Denied: {id} does not start"), |t| {
            t.red().to_string()
        }),
    })
}

/// The most lines of a Write's content or an Edit's diff a card shows.
const CHANGE_LINES: usize = 12;

/// What a Write or Edit would change: a line that says how much, then the first lines of the
/// content (Write) or of the unified diff (Edit), each within `width`, and how many more are
/// hidden.
fn change_lines(change: &Change, width: usize, color: bool) -> Vec<String> {
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let (what, body): (String, Vec<String>) = match change {
        Change::Write { content, replaces } => {
            let lines = content.lines().count();
            let target = match replaces {
                Some(old) => format!("replaces a file of {}", plural(*old as usize, "byte")),
                None => "a new file".to_string(),
            };
            (
                format!(
                    "{}, {}; {target}",
                    plural(content.len(), "byte"),
                    plural(lines, "line")
                ),
                content
                    .lines()
                    .map(|l| format!("  {}", visible(l)))
                    .collect(),
            )
        }
        Change::Edit { before, after } => {
            let diff = crate::ui::diff::unified(before, after);
            let count = |f: fn(&DiffLine) -> bool| diff.iter().filter(|l| f(l)).count();
            let added = count(|l| matches!(l, DiffLine::Added(_)));
            let removed = count(|l| matches!(l, DiffLine::Removed(_)));
            (
                format!("+{added} −{removed} lines"),
                diff.iter()
                    .map(|line| {
                        // Cut before colour, so no escape sequence is ever cut in two.
                        let cut = cut_to(&visible(&line.render(false)), width.saturating_sub(2));
                        let painted = match line {
                            _ if !color => cut,
                            DiffLine::Hunk(_) => cut.cyan().to_string(),
                            DiffLine::Removed(_) => cut.red().to_string(),
                            DiffLine::Added(_) => cut.green().to_string(),
                            DiffLine::Context(_) => cut,
                        };
                        format!("  {painted}")
                    })
                    .collect(),
            )
        }
    };
    let label = match change {
        Change::Write { .. } => "content",
        Change::Edit { .. } => "change",
    };
    let mut out = Vec::new();
    for (i, line) in wrap_whole(&what, width.saturating_sub(FIELD_INDENT))
        .into_iter()
        .enumerate()
    {
        let label = if i == 0 { label } else { "" };
        out.push(format!("  {label:<10}{line}"));
    }
    let hidden = body.len().saturating_sub(CHANGE_LINES);
    out.extend(body.into_iter().take(CHANGE_LINES).map(|l| match change {
        // Write's lines are plain: cut here (the diff's were cut before their colour).
        Change::Write { .. } => cut_to(&l, width),
        Change::Edit { .. } => l,
    }));
    if hidden > 0 {
        out.push(format!(
            "  … {hidden} more {} not shown",
            if hidden == 1 { "line" } else { "lines" }
        ));
    }
    out
}

/// `  label     value`, the value wrapped under itself within `width`.
fn field(out: &mut impl Write, label: &str, value: &str, width: usize) -> io::Result<()> {
    for (i, line) in wrap_whole(value, width.saturating_sub(FIELD_INDENT))
        .iter()
        .enumerate()
    {
        if i == 0 {
            writeln!(out, "  {label:<10}{line}")?;
        } else {
            writeln!(out, "{:FIELD_INDENT$}{line}", "")?;
        }
    }
    Ok(())
}

fn render_question(
    out: &mut impl Write,
    question: &Question,
    width: usize,
    color: bool,
) -> io::Result<()> {
    let heading = match &question.header {
        Some(header) => format!("Question: {}", visible(header)),
        None => "Question".to_string(),
    };
    let width = width.saturating_sub(1);
    write_heading(out, &heading, width, color)?;
    for line in question.question.lines() {
        for part in wrap_whole(&visible(line), width.saturating_sub(2)) {
            writeln!(out, "  {part}")?;
        }
    }
    writeln!(out)
}

/// The rows of the menu: per item its cursor, number, check box in multi-select, label,
/// mnemonic letter and description, the description wrapping under the label when the line is
/// too narrow. Each row fits `width - 1` columns, so the terminal never wraps one on its own
/// (the redraw counts rows).
fn menu_lines(items: &[Item], menu: &Menu, width: usize) -> Vec<(usize, String)> {
    let width = width.saturating_sub(1).max(10);
    let label_width = items
        .iter()
        .map(|i| display_width(&visible(&i.label)))
        .max()
        .unwrap_or(0);
    let mut rows = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let pointer = if index == menu.cursor { '›' } else { ' ' };
        let number = match item.number {
            Some(n) => format!("{n})"),
            None => "  ".to_string(),
        };
        let check = match (menu.multi, Some(index) == menu.other) {
            (true, false) if menu.checked[index] => "[x] ",
            (true, false) => "[ ] ",
            _ => "",
        };
        let label = visible(&item.label);
        let mut line = format!("{pointer} {number} {check}{label}");
        if let Some(letter) = item.letter {
            let pad = label_width.saturating_sub(display_width(&label));
            line.push_str(&format!("{:pad$}  [{letter}]", ""));
        }
        let line = fit(&line, width);
        let Some(detail) = &item.detail else {
            rows.push((index, line));
            continue;
        };
        let detail = format!("— {}", visible(detail));
        if display_width(&line) + 1 + display_width(&detail) <= width {
            rows.push((index, format!("{line} {detail}")));
        } else {
            rows.push((index, line));
            for part in wrap_whole(&detail, width - 6) {
                rows.push((index, format!("      {part}")));
            }
        }
    }
    rows
}

fn render_menu(
    out: &mut impl Write,
    items: &[Item],
    menu: &Menu,
    width: usize,
    color: bool,
) -> io::Result<()> {
    for (index, line) in menu_lines(items, menu, width) {
        if index == menu.cursor {
            writeln!(out, "{}", paint(color, &line, |t| t.bold().to_string()))?;
        } else {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// The help under the menu, wrapped: never cut, at any width.
fn help_lines(help: &str, width: usize) -> Vec<String> {
    wrap_whole(help, width.saturating_sub(1))
}

/// The last lines; the cursor waits at the end of the last one.
fn render_help(out: &mut impl Write, help: &str, width: usize, color: bool) -> io::Result<()> {
    let lines = help_lines(help, width);
    let last = lines.len().saturating_sub(1);
    for (i, line) in lines.iter().enumerate() {
        let line = paint(color, line, |t| t.dimmed().to_string());
        if i == last {
            write!(out, "{line}")?;
        } else {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

fn card_help(choices: &[CardChoice], timeout: Duration) -> String {
    let letters: Vec<String> = choices.iter().map(|c| c.letter().to_string()).collect();
    let numbered = card_numbers(choices).into_iter().flatten().count();
    let numbers = format!("1-{numbered}");
    format!(
        "Press {numbers} or {}, or ↑↓ Enter. Esc denies. Denied after {}.",
        letters.join("/"),
        human(timeout)
    )
}

fn question_help(len: usize, multi: bool, timeout: Duration) -> String {
    let keys = if len > 1 {
        format!("1-{}", len.min(9))
    } else {
        "1".to_string()
    };
    if multi {
        format!(
            "Press {keys} or Space to check, Enter to answer, o for Other. Unanswered after {}.",
            human(timeout)
        )
    } else {
        format!(
            "Press {keys} or o for Other, or ↑↓ Enter. Unanswered after {}.",
            human(timeout)
        )
    }
}

/// The line printed under a card once it is answered.
fn card_outcome(answer: &CardAnswer, color: bool) -> Option<String> {
    let line = match answer {
        CardAnswer::AllowOnce => paint(color, "✓ Allowed once", |t| t.green().to_string()),
        CardAnswer::AllowForSession => paint(color, "✓ Allowed for this session", |t| {
            t.green().to_string()
        }),
        CardAnswer::AllowUnsandboxed => {
            paint(color, "✓ Allowed once, without the sandbox", |t| {
                t.yellow().to_string()
            })
        }
        CardAnswer::Deny => paint(color, "✗ Denied", |t| t.red().to_string()),
        CardAnswer::DenyWithReason(reason) => {
            let text = format!("✗ Denied; the model is told: {}", visible(reason));
            paint(color, &text, |t| t.red().to_string())
        }
        CardAnswer::TimedOut => paint(color, "timed out — denied", |t| t.red().to_string()),
        CardAnswer::Unavailable
        | CardAnswer::Declined
        | CardAnswer::Cancelled
        | CardAnswer::NoElicitation => return None,
        CardAnswer::Withdrawn => paint(color, "withdrawn — the caller cancelled the call", |t| {
            t.yellow().to_string()
        }),
    };
    Some(line)
}

/// The line printed under a question once it is answered.
fn question_outcome(answer: &QuestionAnswer, color: bool) -> Option<String> {
    let line = match answer {
        QuestionAnswer::Chosen(labels) => {
            let labels: Vec<String> = labels.iter().map(|l| visible(l)).collect();
            paint(color, &format!("✓ {}", labels.join(", ")), |t| {
                t.green().to_string()
            })
        }
        QuestionAnswer::Other(text) => paint(color, &format!("✓ {}", visible(text)), |t| {
            t.green().to_string()
        }),
        QuestionAnswer::TimedOut => "timed out — no answer".to_string(),
        QuestionAnswer::Unavailable | QuestionAnswer::Dismissed => "✗ No answer".to_string(),
    };
    Some(line)
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

/// The terminal itself: raw mode, the foreground check, waiting for keys with a deadline.
#[cfg(unix)]
mod term {
    use std::fs::File;
    use std::io::{self, Read};
    use std::os::fd::{AsRawFd, RawFd};
    use std::time::{Duration, Instant};

    use super::{Key, Parsed, SEQUENCE_WAIT, parse_key, parse_stale};

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
}

/// Without termios there is no terminal to ask on: `TtyPrompter::open` finds none.
#[cfg(not(unix))]
mod term {
    use std::fs::File;
    use std::io;
    use std::time::Instant;

    use super::Key;

    pub fn is_terminal(_tty: &File) -> bool {
        false
    }

    pub fn in_background(_tty: &File) -> bool {
        true
    }

    pub fn width(_tty: &File) -> usize {
        super::DEFAULT_WIDTH
    }

    pub struct RawMode;

    impl RawMode {
        pub fn enter(_tty: &File) -> io::Result<RawMode> {
            Err(io::Error::other("no terminal"))
        }
    }

    #[derive(Debug, Default)]
    pub struct Keys;

    impl Keys {
        pub fn waking_on(_wake: io::PipeReader) -> Keys {
            Keys
        }

        pub fn next(&mut self, _tty: &File, _deadline: Instant) -> io::Result<Option<Key>> {
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::prompt::Choice;

    fn bash_card(command: &str, risk: Risk, session_allow_offered: bool) -> Card {
        Card {
            tool: "Bash".into(),
            title: "Bash".into(),
            layer: "builtin",
            owner: None,
            risk,
            summary: command.into(),
            reason: "the command is not read-only".into(),
            session_allow_offered,
            session_scope: "this exact command only".into(),
            sandbox: None,
            unsandboxed_offered: false,
            change: None,
        }
    }

    fn card_menu(session_allow: bool) -> (Vec<CardChoice>, Menu) {
        let choices = CardChoice::offered(session_allow, false);
        let card = bash_card("touch x", Risk::Medium, session_allow);
        let menu = Menu::new(&card_items(&choices, &card), false, None);
        (choices, menu)
    }

    /// The choice a sequence of keys makes on a fresh card, if any.
    fn card_choice(session_allow: bool, keys: &[Key]) -> Option<CardChoice> {
        let (choices, mut menu) = card_menu(session_allow);
        for &key in keys {
            match menu.step(key) {
                Outcome::Chosen(picked) => return picked.first().map(|&i| choices[i]),
                Outcome::Cancel => return Some(CardChoice::Deny),
                Outcome::Redraw | Outcome::Ignore => {}
            }
        }
        None
    }

    #[test]
    fn card_keys_choose_by_number_letter_and_arrows() {
        use CardChoice::*;
        use Key::*;
        let cases: &[(bool, &[Key], Option<CardChoice>)] = &[
            (true, &[Char('1')], Some(AllowOnce)),
            (true, &[Char('2')], Some(AllowForSession)),
            (true, &[Char('3')], Some(Deny)),
            (true, &[Char('4')], Some(DenyWithReason)),
            (true, &[Char('5')], None),
            (true, &[Char('y')], Some(AllowOnce)),
            (true, &[Char('Y')], Some(AllowOnce)),
            (true, &[Char('s')], Some(AllowForSession)),
            (true, &[Char('n')], Some(Deny)),
            (true, &[Char('r')], Some(DenyWithReason)),
            (true, &[Enter], Some(AllowOnce)),
            (true, &[Down, Enter], Some(AllowForSession)),
            (
                true,
                &[Down, Down, Down, Down, Down, Enter],
                Some(DenyWithReason),
            ),
            (true, &[Down, Up, Up, Enter], Some(AllowOnce)),
            (true, &[Cancel], Some(Deny)),
            (
                true,
                &[Char('5'), Char('0'), Char('x'), Other, Backspace],
                None,
            ),
            // Without "Allow for this session" the numbers close up; letters stay.
            (false, &[Char('2')], Some(Deny)),
            (false, &[Char('3')], Some(DenyWithReason)),
            (false, &[Char('4')], None),
            (false, &[Char('s')], None),
            (false, &[Char('n')], Some(Deny)),
            (false, &[Down, Enter], Some(Deny)),
        ];
        for (offered, keys, want) in cases {
            assert_eq!(
                card_choice(*offered, keys),
                *want,
                "keys {keys:?} (session allow offered: {offered})"
            );
        }
    }

    #[test]
    fn session_allow_is_offered_only_when_the_card_says_so() {
        assert_eq!(
            CardChoice::offered(true, false),
            [
                CardChoice::AllowOnce,
                CardChoice::AllowForSession,
                CardChoice::Deny,
                CardChoice::DenyWithReason
            ]
        );
        assert!(!CardChoice::offered(false, false).contains(&CardChoice::AllowForSession));
    }

    fn question_menu(options: usize, multi: bool) -> Menu {
        let mut items: Vec<Item> = (0..options)
            .map(|i| Item {
                label: format!("option {i}"),
                detail: None,
                letter: None,
                number: position_number(i),
            })
            .collect();
        items.push(Item {
            label: "Other…".into(),
            detail: None,
            letter: Some('o'),
            number: position_number(options),
        });
        Menu::new(&items, multi, Some(options))
    }

    #[test]
    fn question_keys_pick_toggle_and_confirm() {
        use Key::*;
        let cases: &[(bool, &[Key], Outcome)] = &[
            (false, &[Char('2')], Outcome::Chosen(vec![1])),
            (false, &[Down, Down, Enter], Outcome::Chosen(vec![2])),
            (false, &[Char('o')], Outcome::Chosen(vec![3])),
            (false, &[Char('4')], Outcome::Chosen(vec![3])),
            (false, &[Cancel], Outcome::Cancel),
            (
                true,
                &[Char('1'), Char('3'), Enter],
                Outcome::Chosen(vec![0, 2]),
            ),
            (
                true,
                &[Char('1'), Char('1'), Char('2'), Enter],
                Outcome::Chosen(vec![1]),
            ),
            (
                true,
                &[Char(' '), Down, Char(' '), Enter],
                Outcome::Chosen(vec![0, 1]),
            ),
            // Enter with nothing checked answers with the item under the cursor.
            (true, &[Down, Enter], Outcome::Chosen(vec![1])),
            // "Other…" answers at once even in multi-select.
            (true, &[Char('1'), Char('o')], Outcome::Chosen(vec![3])),
            (
                true,
                &[Down, Down, Down, Char(' ')],
                Outcome::Chosen(vec![3]),
            ),
            (true, &[Cancel], Outcome::Cancel),
        ];
        for (multi, keys, want) in cases {
            let mut menu = question_menu(3, *multi);
            let mut last = Outcome::Ignore;
            for &key in *keys {
                last = menu.step(key);
            }
            assert_eq!(&last, want, "keys {keys:?} (multi: {multi})");
        }
    }

    #[test]
    fn arrows_stop_at_the_ends() {
        let mut menu = question_menu(2, false);
        assert_eq!(menu.step(Key::Up), Outcome::Ignore);
        assert_eq!(menu.step(Key::Down), Outcome::Redraw);
        assert_eq!(menu.step(Key::Down), Outcome::Redraw);
        assert_eq!(menu.step(Key::Down), Outcome::Ignore);
        assert_eq!(menu.cursor, 2);
    }

    #[test]
    fn bytes_decode_to_keys() {
        use Key::*;
        let cases: &[(&[u8], Parsed)] = &[
            (b"", Parsed::Empty),
            (b"1", Parsed::Key(Char('1'), 1)),
            (b"ys", Parsed::Key(Char('y'), 1)),
            (b" ", Parsed::Key(Char(' '), 1)),
            (b"\r", Parsed::Key(Enter, 1)),
            (b"\n", Parsed::Key(Enter, 1)),
            (b"\x7f", Parsed::Key(Backspace, 1)),
            (b"\x08", Parsed::Key(Backspace, 1)),
            (b"\x03", Parsed::Key(Cancel, 1)),
            (b"\x04", Parsed::Key(Cancel, 1)),
            (b"\x01", Parsed::Key(Other, 1)),
            (b"\x1b", Parsed::Incomplete),
            (b"\x1b[", Parsed::Incomplete),
            (b"\x1b[1;5", Parsed::Incomplete),
            (b"\x1b[A", Parsed::Key(Up, 3)),
            (b"\x1b[B1", Parsed::Key(Down, 3)),
            (b"\x1bOA", Parsed::Key(Up, 3)),
            (b"\x1b[C", Parsed::Key(Other, 3)),
            (b"\x1b[15~", Parsed::Key(Other, 5)),
            (b"\x1b[1;5A", Parsed::Key(Up, 6)),
            (b"\x1bx", Parsed::Key(Cancel, 1)),
            (b"\x1b[11111111111111111", Parsed::Key(Other, 19)),
            ("é".as_bytes(), Parsed::Key(Char('é'), 2)),
            ("日本".as_bytes(), Parsed::Key(Char('日'), 3)),
            (&"日".as_bytes()[..2], Parsed::Incomplete),
            (b"\xc3a", Parsed::Key(Other, 1)),
            (b"\xed\xa0\x80", Parsed::Key(Other, 1)),
            (b"\x80", Parsed::Key(Other, 1)),
            (b"\xff", Parsed::Key(Other, 1)),
        ];
        for (bytes, want) in cases {
            assert_eq!(&parse_key(bytes), want, "bytes {bytes:?}");
        }
    }

    #[test]
    fn bytes_whose_rest_never_came_are_esc_or_noise() {
        assert_eq!(parse_stale(b"\x1b"), (Key::Cancel, 1));
        assert_eq!(parse_stale(b"\x1b["), (Key::Other, 2));
        assert_eq!(parse_stale(&"日".as_bytes()[..2]), (Key::Other, 2));
    }

    #[test]
    fn text_from_a_model_cannot_drive_the_terminal() {
        let cases = [
            ("touch made-by-card", "touch made-by-card"),
            ("echo ü 日本", "echo ü 日本"),
            ("a\nb\tc", "a b c"),
            ("\x1b[2J\x1b[Hallow", "\\u{1b}[2J\\u{1b}[Hallow"),
            ("rm -rf x\r", "rm -rf x\\u{d}"),
            ("\u{9b}31m", "\\u{9b}31m"),
            ("ls \u{202e}fdp.exe", "ls \\u{202e}fdp.exe"),
            ("a\u{200b}b", "a\\u{200b}b"),
        ];
        for (text, want) in cases {
            assert_eq!(visible(text), want, "text {text:?}");
        }
    }

    #[test]
    fn a_card_renders_every_field() {
        let mut out = Vec::new();
        render_card(
            &mut out,
            &bash_card("touch x", Risk::Medium, true),
            80,
            false,
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\nPermission needed: Bash\n  layer     builtin\n  risk      medium\n  command   touch x\n  reason    the command is not read-only\n\n"
        );

        let card = Card {
            tool: "acme_deploy".into(),
            title: "Deploy the site".into(),
            layer: "minitool",
            owner: Some("acme".into()),
            risk: Risk::High,
            summary: r#"{"env":"prod"}"#.into(),
            reason: "mini tool tools always ask".into(),
            session_allow_offered: false,
            session_scope: "every acme_deploy call".into(),
            sandbox: None,
            unsandboxed_offered: false,
            change: None,
        };
        let mut out = Vec::new();
        render_card(&mut out, &card, 80, false).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\nPermission needed: acme_deploy — Deploy the site\n  layer     minitool\n  owner     acme\n  risk      HIGH\n  arguments {\"env\":\"prod\"}\n  reason    mini tool tools always ask\n\n"
        );
    }

    #[test]
    fn the_unconfined_card_says_what_and_why_and_escapes_what_the_package_wrote() {
        use crate::minitool::confine::{Declared, Filesystem};
        let request = Unconfined {
            id: "weather".into(),
            display_name: "Weather\u{1b}[2J".into(),
            declared: Declared {
                filesystem: Filesystem::Read,
                network: true,
                shell: false,
            },
            why: "this kernel has no Landlock (not built in, or disabled at boot)".into(),
        };
        let mut out = Vec::new();
        render_unconfined(&mut out, &request, 100, false).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\nRun mini tool weather (Weather\\u{1b}[2J) without confinement?\n\
             \x20 declares  filesystem read, network true, shell false\n\
             \x20 why       finch cannot hold it to that here: this kernel has no Landlock (not built in, or\n\
             \x20           disabled at boot)\n\
             \x20 risk      HIGH: its code could read, change and send anything your user can, whatever it declares\n\
             \x20 recorded  Allow is kept; `finch sandbox revoke weather unconfined` takes it back\n\n"
        );
        // y allows, n and Esc deny; Enter alone answers Deny (the cursor starts there).
        let items = unconfined_items("weather");
        let pick = |key: Key| {
            let mut menu = Menu::new(&items, false, None);
            menu.cursor = 1;
            menu.step(key)
        };
        assert_eq!(pick(Key::Char('y')), Outcome::Chosen(vec![0]));
        assert_eq!(pick(Key::Char('1')), Outcome::Chosen(vec![0]));
        assert_eq!(pick(Key::Char('n')), Outcome::Chosen(vec![1]));
        assert_eq!(pick(Key::Enter), Outcome::Chosen(vec![1]));
        assert_eq!(pick(Key::Cancel), Outcome::Cancel);
        assert_eq!(pick(Key::Char('s')), Outcome::Ignore);
    }

    /// A long command says how long it is; one longer than a page shows a page at a time, and
    /// the pages together hold every character of it, in order (issue 28: never cut).
    #[test]
    fn a_long_command_is_paged_never_cut() {
        let command: String = (0..400).map(|i| format!("w{i} ")).collect::<String>() + "TAIL";
        let card = bash_card(&command, Risk::Medium, true);
        let pages = summary_pages(&card, 60);
        assert!(pages > 1, "{pages}");
        let mut shown = String::new();
        for page in 0..pages {
            let mut out = Vec::new();
            render_card_page(&mut out, &card, 60, false, page).unwrap();
            let text = String::from_utf8(out).unwrap();
            let length = format!("  length    {} characters", command.chars().count());
            assert!(text.contains(&length), "{text}");
            let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                flat.contains(&format!("page {} of {pages}", page + 1)),
                "{text}"
            );
            let lines: Vec<&str> = text.lines().collect();
            let start = lines
                .iter()
                .position(|l| l.starts_with("  command "))
                .unwrap();
            for line in lines[start..]
                .iter()
                .take_while(|l| !l.starts_with("  reason"))
            {
                assert!(line.chars().count() < 60, "{line:?}");
                shown.push_str(line[FIELD_INDENT..].trim_end());
                shown.push(' ');
            }
        }
        assert_eq!(shown.trim_end(), command);
        // A short command: no length line, no pages.
        let mut out = Vec::new();
        render_card_page(&mut out, &bash_card("ls", Risk::Low, true), 60, false, 0).unwrap();
        assert!(!String::from_utf8(out).unwrap().contains("length"));
    }

    #[test]
    fn high_risk_is_a_word_not_only_a_colour() {
        let mut out = Vec::new();
        render_card(
            &mut out,
            &bash_card("rm -rf x", Risk::High, false),
            80,
            true,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("HIGH"), "{text}");
        assert!(text.contains("\x1b["), "colour was asked for: {text:?}");
    }

    #[test]
    fn summary_labels_follow_the_tool() {
        for (tool, label) in [
            ("Bash", "command"),
            ("Read", "path"),
            ("Write", "path"),
            ("Edit", "path"),
            ("Grep", "pattern"),
            ("WebFetch", "url"),
            ("MiniTool", "arguments"),
        ] {
            assert_eq!(summary_label(tool), label, "{tool}");
        }
    }

    #[test]
    fn the_card_menu_shows_numbers_letters_and_the_cursor() {
        let (choices, menu) = card_menu(true);
        let items = card_items(&choices, &bash_card("touch x", Risk::Medium, true));
        let mut out = Vec::new();
        render_menu(&mut out, &items, &menu, 80, false).unwrap();
        render_help(
            &mut out,
            &card_help(&choices, Duration::from_secs(300)),
            80,
            false,
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "› 1) Allow once                   [y]\n  2) Allow for this session       [s] — this exact command only\n  3) Deny                         [n]\n  4) Deny and tell the model why  [r]\nPress 1-4 or y/s/n/r, or ↑↓ Enter. Esc denies. Denied after 5m."
        );
    }

    #[test]
    fn a_multi_select_question_shows_check_boxes() {
        let question = Question {
            question: "Which files?\nPick any.".into(),
            header: Some("Files".into()),
            options: vec![
                Choice {
                    label: "a.txt".into(),
                    description: Some("the first".into()),
                },
                Choice {
                    label: "b.txt".into(),
                    description: None,
                },
            ],
            multi_select: true,
        };
        let items = vec![
            Item {
                label: "a.txt".into(),
                detail: Some("the first".into()),
                letter: None,
                number: Some(1),
            },
            Item {
                label: "b.txt".into(),
                detail: None,
                letter: None,
                number: Some(2),
            },
            Item {
                label: "Other…".into(),
                detail: Some("type your own answer".into()),
                letter: Some('o'),
                number: Some(3),
            },
        ];
        let mut menu = Menu::new(&items, true, Some(2));
        menu.step(Key::Char('2'));
        let mut out = Vec::new();
        render_question(&mut out, &question, 80, false).unwrap();
        render_menu(&mut out, &items, &menu, 80, false).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\nQuestion: Files\n  Which files?\n  Pick any.\n\n  1) [ ] a.txt — the first\n› 2) [x] b.txt\n  3) Other…  [o] — type your own answer\n"
        );
    }

    #[test]
    fn menu_rows_fit_the_width() {
        let items = vec![Item {
            label: "x".repeat(200),
            detail: Some("y".repeat(50)),
            letter: None,
            number: Some(1),
        }];
        let menu = Menu::new(&items, false, None);
        let rows = menu_lines(&items, &menu, 40);
        assert!(
            rows[0].1.ends_with('…'),
            "a label too long is cut: {rows:?}"
        );
        // The description goes on under the label, whole.
        let detail: String = rows[1..].iter().map(|(_, r)| r.trim()).collect();
        assert_eq!(detail, format!("—{}", "y".repeat(50)));
        for (_, row) in &rows {
            assert!(display_width(row) <= 39, "{row:?}");
        }
    }

    /// At 60 columns no line of a card is wider than the terminal, no word is broken across
    /// lines, and the footer is all there.
    #[test]
    fn a_card_fits_a_narrow_terminal() {
        let card = Card {
            tool: "mcp__github__create_issue".into(),
            title: "Create an issue in a GitHub repository".into(),
            layer: "mcp",
            owner: Some("github".into()),
            risk: Risk::Medium,
            summary: r#"{"owner":"acme","repo":"site","title":"The deploy step fails on Fridays when the cache is cold"}"#.into(),
            reason: "MCP tools ask in ask mode: no allow rule names mcp__github__create_issue".into(),
            session_allow_offered: true,
            session_scope: "every mcp__github__create_issue call".into(),
            sandbox: None,
            unsandboxed_offered: false,
            change: None,
        };
        let choices = CardChoice::offered(true, false);
        let items = card_items(&choices, &card);
        let menu = Menu::new(&items, false, None);
        let help = card_help(&choices, Duration::from_secs(300));
        let mut out = Vec::new();
        render_card(&mut out, &card, 60, false).unwrap();
        render_menu(&mut out, &items, &menu, 60, false).unwrap();
        render_help(&mut out, &help, 60, false).unwrap();
        let text = String::from_utf8(out).unwrap();
        for line in text.lines() {
            assert!(display_width(line) < 60, "{line:?} in\n{text}");
        }
        let words = |t: &str| t.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert!(
            words(&text).windows(2).any(|w| w == ["cache", "is"]),
            "words stay whole:\n{text}"
        );
        assert!(
            text.contains("every mcp__github__create_issue call"),
            "{text}"
        );
        assert!(
            words(&text).ends_with(&words(&help)),
            "the whole footer:\n{text}"
        );
        assert_eq!(
            help_lines(&help, 60).len() + menu_lines(&items, &menu, 60).len(),
            text.lines().count() - text.lines().position(|l| l.contains("1)")).unwrap(),
            "the redraw moves up as many rows as were drawn:\n{text}"
        );
    }

    #[test]
    fn a_write_shows_its_size_and_first_lines_and_counts_the_rest() {
        let content: String = (1..=15).map(|i| format!("line {i}\n")).collect();
        let change = Change::Write {
            content,
            replaces: None,
        };
        let lines = change_lines(&change, 60, false);
        assert_eq!(lines[0], "  content   111 bytes, 15 lines; a new file");
        assert_eq!(lines[1], "  line 1");
        assert_eq!(lines[12], "  line 12");
        assert_eq!(lines[13], "  … 3 more lines not shown");
        assert_eq!(lines.len(), 14);
        let change = Change::Write {
            content: format!("{}\tend\x1b[2J", "x".repeat(60)),
            replaces: Some(1),
        };
        let lines = change_lines(&change, 60, false);
        assert_eq!(
            lines[0],
            "  content   68 bytes, 1 line; replaces a file of 1 byte"
        );
        assert_eq!(
            lines[1],
            format!("  {}…", "x".repeat(57)),
            "cut to the card"
        );
        assert!(lines.iter().all(|l| !l.contains('\x1b')), "{lines:?}");
    }

    #[test]
    fn an_edit_shows_a_coloured_diff_within_the_card() {
        let change = Change::Edit {
            before: "fn main() {\n    old();\n}\n".into(),
            after: "fn main() {\n    new();\n}\n".into(),
        };
        assert_eq!(
            change_lines(&change, 60, false),
            [
                "  change    +1 −1 lines",
                "  @@ -1,3 +1,3 @@",
                "   fn main() {",
                "  -    old();",
                "  +    new();",
                "   }",
            ]
        );
        let coloured = change_lines(&change, 60, true);
        assert!(coloured[3].contains("\x1b[31m-    old();"), "{coloured:?}");
        assert!(coloured[4].contains("\x1b[32m+    new();"), "{coloured:?}");
        // A long line is cut to the card's width before it is coloured.
        let change = Change::Edit {
            before: String::new(),
            after: format!("{}\n", "y".repeat(100)),
        };
        let lines = change_lines(&change, 30, false);
        assert_eq!(lines[2], format!("  +{}…", "y".repeat(26)));
        assert!(lines.iter().all(|l| display_width(l) <= 30), "{lines:?}");
    }

    #[test]
    fn numbers_close_up_and_the_sandbox_choice_has_only_its_letter() {
        use CardChoice::*;
        let choices = CardChoice::offered(false, false);
        assert_eq!(
            card_help(&choices, Duration::from_secs(60)),
            "Press 1-3 or y/n/r, or ↑↓ Enter. Esc denies. Denied after 1m."
        );
        let choices = CardChoice::offered(false, true);
        assert_eq!(
            card_numbers(&choices),
            [Some(1), Some(2), Some(3), None],
            "{choices:?}"
        );
        assert_eq!(choices, [AllowOnce, Deny, DenyWithReason, AllowUnsandboxed]);
        assert_eq!(
            card_help(&choices, Duration::from_secs(60)),
            "Press 1-3 or y/n/r/u, or ↑↓ Enter. Esc denies. Denied after 1m."
        );
        // Where "Deny" was 3 before the numbers closed up, 3 still denies (and asks why);
        // no number allows what a number denied on another card.
        let with_session = card_numbers(&CardChoice::offered(true, true));
        assert_eq!(with_session, [Some(1), Some(2), Some(3), Some(4), None]);
    }

    #[test]
    fn outcomes_read_as_words() {
        let cases = [
            (CardAnswer::AllowOnce, Some("✓ Allowed once")),
            (
                CardAnswer::AllowForSession,
                Some("✓ Allowed for this session"),
            ),
            (CardAnswer::Deny, Some("✗ Denied")),
            (
                CardAnswer::DenyWithReason("wrong dir".into()),
                Some("✗ Denied; the model is told: wrong dir"),
            ),
            (CardAnswer::TimedOut, Some("timed out — denied")),
            (CardAnswer::Unavailable, None),
        ];
        for (answer, want) in cases {
            assert_eq!(card_outcome(&answer, false).as_deref(), want, "{answer:?}");
        }
        assert_eq!(
            question_outcome(&QuestionAnswer::Chosen(vec!["a".into(), "b".into()]), false)
                .as_deref(),
            Some("✓ a, b")
        );
    }

    #[test]
    fn durations_read_well() {
        for (d, want) in [
            (Duration::from_millis(500), "500ms"),
            (Duration::from_secs(1), "1s"),
            (Duration::from_secs(90), "1m30s"),
            (Duration::from_secs(300), "5m"),
            (Duration::from_secs(7200), "2h"),
        ] {
            assert_eq!(human(d), want);
        }
    }

    #[test]
    fn a_file_that_is_not_a_terminal_is_refused() {
        let file = tempfile::tempfile().unwrap();
        assert!(TtyPrompter::on(file, Duration::from_secs(1), false).is_none());
    }

    #[test]
    fn a_huge_timeout_still_has_a_deadline() {
        let deadline = deadline_after(Duration::MAX);
        assert!(deadline > Instant::now());
    }

    /// The prompter on a real pseudo-terminal: the test plays the person at the keyboard.
    #[cfg(target_os = "linux")]
    mod on_a_pty {
        use std::ffi::CStr;
        use std::fs::{File, OpenOptions};
        use std::io::{Read, Write};
        use std::os::fd::{AsRawFd, FromRawFd};
        use std::os::unix::fs::OpenOptionsExt;
        use std::time::{Duration, Instant};

        use super::*;

        struct Pty {
            master: File,
            slave: File,
        }

        fn pty() -> Pty {
            // SAFETY: plain libc calls; the descriptor is owned by the File from here on.
            let fd = unsafe { libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC) };
            assert!(fd >= 0, "posix_openpt: {}", std::io::Error::last_os_error());
            let master = unsafe { File::from_raw_fd(fd) };
            let mut name = [0 as libc::c_char; 128];
            unsafe {
                assert_eq!(libc::grantpt(fd), 0);
                assert_eq!(libc::unlockpt(fd), 0);
                assert_eq!(libc::ptsname_r(fd, name.as_mut_ptr(), name.len()), 0);
            }
            let path = unsafe { CStr::from_ptr(name.as_ptr()) }
                .to_str()
                .unwrap()
                .to_string();
            let slave = OpenOptions::new()
                .read(true)
                .write(true)
                .custom_flags(libc::O_NOCTTY)
                .open(path)
                .unwrap();
            Pty { master, slave }
        }

        type Mode = (
            libc::tcflag_t,
            libc::tcflag_t,
            libc::tcflag_t,
            Vec<libc::cc_t>,
        );

        fn mode(tty: &File) -> Mode {
            let mut t: libc::termios = unsafe { std::mem::zeroed() };
            assert_eq!(unsafe { libc::tcgetattr(tty.as_raw_fd(), &mut t) }, 0);
            (t.c_iflag, t.c_oflag, t.c_lflag, t.c_cc.to_vec())
        }

        /// Reads the master until `needle` has appeared after `from`; panics after 10 s.
        fn read_until(master: &File, seen: &mut String, from: usize, needle: &str) -> usize {
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                if let Some(at) = seen[from..].find(needle) {
                    return from + at + needle.len();
                }
                let left = deadline.saturating_duration_since(Instant::now());
                assert!(!left.is_zero(), "never saw {needle:?}; saw:\n{seen}");
                if read_some(master, left) == 0 {
                    continue;
                }
                let mut buf = [0u8; 4096];
                let n = (&*master).read(&mut buf).unwrap();
                seen.push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        }

        fn read_some(master: &File, wait: Duration) -> i32 {
            let mut fd = libc::pollfd {
                fd: master.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            let ms = libc::c_int::try_from(wait.as_millis()).unwrap_or(libc::c_int::MAX);
            unsafe { libc::poll(&mut fd, 1, ms) }
        }

        /// Runs `ask` on a prompter on a fresh pty; for each `(wait_for, keys)` waits for the
        /// text, then types the keys. Returns the answer, everything shown, and whether the
        /// terminal mode came back as it was.
        fn drive<T: Send>(
            timeout: Duration,
            type_ahead: &[u8],
            script: &[(&str, &[u8])],
            ask: impl FnOnce(&mut TtyPrompter) -> T + Send,
        ) -> (T, String, bool) {
            let pty = pty();
            let before = mode(&pty.slave);
            let mut prompter =
                TtyPrompter::on(pty.slave.try_clone().unwrap(), timeout, false).unwrap();
            (&pty.master).write_all(type_ahead).unwrap();
            let mut seen = String::new();
            let answer = std::thread::scope(|s| {
                let asking = s.spawn(|| ask(&mut prompter));
                let mut at = 0;
                for (wait_for, keys) in script {
                    at = read_until(&pty.master, &mut seen, at, wait_for);
                    (&pty.master).write_all(keys).unwrap();
                }
                asking.join().unwrap()
            });
            while read_some(&pty.master, Duration::from_millis(50)) > 0 {
                let mut buf = [0u8; 4096];
                let n = (&pty.master).read(&mut buf).unwrap();
                seen.push_str(&String::from_utf8_lossy(&buf[..n]));
            }
            let restored = mode(&pty.slave) == before;
            (answer, seen, restored)
        }

        const HELP_END: &str = "Denied after 10s.";

        fn card(session: bool, script: &[(&str, &[u8])]) -> (CardAnswer, String, bool) {
            let card = bash_card("touch x", Risk::Medium, session);
            drive(Duration::from_secs(10), b"", script, |p| p.card(&card))
        }

        #[test]
        fn keys_answer_the_card() {
            let cases: &[(bool, &[u8], CardAnswer)] = &[
                (true, b"1", CardAnswer::AllowOnce),
                (true, b"y", CardAnswer::AllowOnce),
                (true, b"2", CardAnswer::AllowForSession),
                (true, b"\x1b[B\r", CardAnswer::AllowForSession),
                (true, b"n", CardAnswer::Deny),
                (false, b"3", CardAnswer::Deny),
                (false, b"2n", CardAnswer::Deny),
                (true, b"\x03", CardAnswer::Deny),
                (true, b"\x04", CardAnswer::Deny),
                (true, b"\x1b", CardAnswer::Deny),
            ];
            for (session, keys, want) in cases {
                let (answer, seen, restored) = card(*session, &[(HELP_END, keys)]);
                assert_eq!(&answer, want, "keys {keys:?}; screen:\n{seen}");
                assert!(restored, "terminal mode not restored after {keys:?}");
                assert_eq!(
                    seen.contains("2) Allow for this session"),
                    *session,
                    "{seen}"
                );
            }
        }

        #[test]
        fn deny_with_a_reason_reads_a_line() {
            let (answer, seen, restored) = card(
                true,
                &[
                    (HELP_END, b"r"),
                    ("Tell the model why", "wrong dirx\x7f, use ~/ü\r".as_bytes()),
                ],
            );
            assert_eq!(
                answer,
                CardAnswer::DenyWithReason("wrong dir, use ~/ü".into()),
                "{seen}"
            );
            assert!(seen.contains("Denied; the model is told: wrong dir, use ~/ü"));
            assert!(restored);
        }

        #[test]
        fn an_empty_or_abandoned_reason_is_a_plain_deny() {
            for keys in [&b"\r"[..], b"\x1b", b"\x03"] {
                let (answer, seen, restored) =
                    card(true, &[(HELP_END, b"4"), ("Tell the model why", keys)]);
                assert_eq!(answer, CardAnswer::Deny, "{keys:?}: {seen}");
                assert!(restored);
            }
        }

        #[test]
        fn an_unanswered_card_times_out_denied() {
            let card = bash_card("touch x", Risk::Medium, true);
            let started = Instant::now();
            let (answer, seen, restored) = drive(
                Duration::from_millis(300),
                b"",
                &[("Denied after 300ms.", b"")],
                |p| p.card(&card),
            );
            assert_eq!(answer, CardAnswer::TimedOut);
            assert!(started.elapsed() < Duration::from_secs(5));
            assert!(seen.contains("timed out — denied"), "{seen}");
            assert!(restored);
        }

        #[test]
        fn an_unanswered_reason_times_out_to_a_plain_deny() {
            let card = bash_card("touch x", Risk::Medium, true);
            let (answer, seen, restored) = drive(
                Duration::from_millis(500),
                b"",
                &[
                    ("Denied after 500ms.", b"r"),
                    ("Tell the model why", b"half a rea"),
                ],
                |p| p.card(&card),
            );
            assert_eq!(answer, CardAnswer::Deny, "{seen}");
            assert!(seen.contains("no reason given in time"), "{seen}");
            assert!(restored);
        }

        #[test]
        fn keys_typed_before_the_card_do_not_answer_it() {
            let card = bash_card("touch x", Risk::Medium, true);
            let (answer, seen, _) =
                drive(Duration::from_secs(10), b"y", &[(HELP_END, b"n")], |p| {
                    p.card(&card)
                });
            assert_eq!(answer, CardAnswer::Deny, "{seen}");
        }

        #[test]
        fn a_hung_up_terminal_denies() {
            let pty = pty();
            let mut prompter = TtyPrompter::on(
                pty.slave.try_clone().unwrap(),
                Duration::from_secs(10),
                false,
            )
            .unwrap();
            let card = bash_card("touch x", Risk::Medium, true);
            let answer = std::thread::scope(|s| {
                let asking = s.spawn(|| prompter.card(&card));
                let mut seen = String::new();
                read_until(&pty.master, &mut seen, 0, HELP_END);
                drop(pty.master);
                asking.join().unwrap()
            });
            assert_eq!(answer, CardAnswer::Deny);
        }

        fn question(multi: bool) -> Question {
            Question {
                question: "Which colour?".into(),
                header: None,
                options: ["red", "green", "blue"]
                    .into_iter()
                    .map(|l| Choice {
                        label: l.into(),
                        description: None,
                    })
                    .collect(),
                multi_select: multi,
            }
        }

        #[test]
        fn keys_answer_a_question() {
            let chosen = |labels: &[&str]| {
                QuestionAnswer::Chosen(labels.iter().map(|l| l.to_string()).collect())
            };
            type Script = Vec<(&'static str, &'static [u8])>;
            let cases: Vec<(bool, Script, QuestionAnswer)> = vec![
                (false, vec![("Unanswered after", b"2")], chosen(&["green"])),
                (
                    false,
                    vec![("Unanswered after", b"\x1b[B\x1b[B\r")],
                    chosen(&["blue"]),
                ),
                (
                    true,
                    vec![("Unanswered after", b"13\r")],
                    chosen(&["red", "blue"]),
                ),
                (
                    true,
                    vec![("Unanswered after", b" \x1b[B \r")],
                    chosen(&["red", "green"]),
                ),
                (
                    false,
                    vec![("Unanswered after", b"o"), ("Your answer", b"purple\r")],
                    QuestionAnswer::Other("purple".into()),
                ),
                (
                    true,
                    vec![
                        ("Unanswered after", b"4"),
                        ("Your answer", b"\x1b"),
                        ("Unanswered after", b"1\r"),
                    ],
                    chosen(&["red"]),
                ),
                (
                    false,
                    vec![("Unanswered after", b"\x03")],
                    QuestionAnswer::Unavailable,
                ),
            ];
            for (multi, script, want) in cases {
                let q = question(multi);
                let (answer, seen, restored) =
                    drive(Duration::from_secs(10), b"", &script, |p| p.question(&q));
                assert_eq!(answer, want, "{script:?}; screen:\n{seen}");
                assert!(restored);
            }
        }

        #[test]
        fn an_unanswered_question_times_out() {
            let q = question(false);
            let (answer, seen, restored) = drive(
                Duration::from_millis(300),
                b"",
                &[("Unanswered after 300ms.", b"")],
                |p| p.question(&q),
            );
            assert_eq!(answer, QuestionAnswer::TimedOut);
            assert!(seen.contains("timed out — no answer"), "{seen}");
            assert!(restored);
        }
    }
}
