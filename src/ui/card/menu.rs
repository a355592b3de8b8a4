//! What a card or a question offers and what a key does to it: the choices of a card in their
//! order with their numbers and letters (issue 31), the menu's cursor and selection, and the
//! help line under it. Pure; rendered by `render`, driven by `TtyPrompter`.

use super::*;

/// The choices of a permission card, in the order shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CardChoice {
    AllowOnce,
    AllowForSession,
    Deny,
    DenyWithReason,
    /// Allow once without finch's sandbox (approved Bash calls).
    AllowUnsandboxed,
}

impl CardChoice {
    pub(super) fn offered(session_allow: bool, unsandboxed: bool) -> Vec<CardChoice> {
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

    pub(super) fn label(self) -> &'static str {
        match self {
            CardChoice::AllowOnce => "Allow once",
            CardChoice::AllowForSession => "Allow for this session",
            CardChoice::Deny => "Deny",
            CardChoice::DenyWithReason => "Deny and tell the model why",
            CardChoice::AllowUnsandboxed => "Allow once, without the sandbox",
        }
    }

    /// The mnemonic key; the same whichever choices are offered.
    pub(super) fn letter(self) -> char {
        match self {
            CardChoice::AllowOnce => 'y',
            CardChoice::AllowForSession => 's',
            CardChoice::Deny => 'n',
            CardChoice::DenyWithReason => 'r',
            CardChoice::AllowUnsandboxed => 'u',
        }
    }
}

pub(super) fn card_items(choices: &[CardChoice], card: &Card) -> Vec<Item> {
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
pub(super) fn card_numbers(choices: &[CardChoice]) -> Vec<Option<u32>> {
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
pub(super) fn position_number(index: usize) -> Option<u32> {
    u32::try_from(index + 1).ok().filter(|n| *n <= 9)
}

/// One line of a menu.
#[derive(Debug, Clone)]
pub(super) struct Item {
    pub(super) label: String,
    pub(super) detail: Option<String>,
    pub(super) letter: Option<char>,
    /// The digit that picks it.
    pub(super) number: Option<u32>,
}

/// A key, decoded from the bytes a terminal sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Key {
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
pub(super) enum Outcome {
    /// The indexes chosen (one unless multi-select).
    Chosen(Vec<usize>),
    Redraw,
    Cancel,
    Ignore,
}

/// A list of choices with a cursor; in multi-select, a check mark per item. `other` is the item
/// that answers at once even in multi-select (a free-text answer replaces the options).
#[derive(Debug)]
pub(super) struct Menu {
    pub(super) len: usize,
    pub(super) cursor: usize,
    pub(super) letters: Vec<Option<char>>,
    pub(super) numbers: Vec<Option<u32>>,
    pub(super) multi: bool,
    pub(super) checked: Vec<bool>,
    pub(super) other: Option<usize>,
}

impl Menu {
    pub(super) fn new(items: &[Item], multi: bool, other: Option<usize>) -> Menu {
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

    pub(super) fn step(&mut self, key: Key) -> Outcome {
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
    pub(super) fn index_of(&self, c: char) -> Option<usize> {
        if let Some(digit) = c.to_digit(10) {
            return self.numbers.iter().position(|n| *n == Some(digit));
        }
        let c = c.to_ascii_lowercase();
        self.letters.iter().position(|l| *l == Some(c))
    }

    pub(super) fn toggle(&mut self, index: usize) -> Outcome {
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
    pub(super) fn confirm(&self) -> Outcome {
        let checked: Vec<usize> = (0..self.len).filter(|&i| self.checked[i]).collect();
        if self.multi && !checked.is_empty() {
            Outcome::Chosen(checked)
        } else {
            Outcome::Chosen(vec![self.cursor])
        }
    }
}

pub(super) fn card_help(choices: &[CardChoice], timeout: Duration) -> String {
    let letters: Vec<String> = choices.iter().map(|c| c.letter().to_string()).collect();
    let numbered = card_numbers(choices).into_iter().flatten().count();
    let numbers = format!("1-{numbered}");
    format!(
        "Press {numbers} or {}, or ↑↓ Enter. Esc denies. Denied after {}.",
        letters.join("/"),
        human(timeout)
    )
}

pub(super) fn question_help(len: usize, multi: bool, timeout: Duration) -> String {
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

/// The two choices of the card of a mini tool the kernel cannot confine.
pub(super) fn unconfined_items(id: &str) -> Vec<Item> {
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
