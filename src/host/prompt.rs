//! What the host asks a person: permission cards (SPEC §8.4) and `AskUserQuestion`'s
//! multiple-choice questions. The host only knows the `Prompter` trait; the terminal card lives
//! in `crate::ui::card`, MCP elicitation in the MCP front end, and `Nobody` answers for runs with
//! no one to ask (every card is denied, every question unanswered).

use super::cancel::Cancel;
use super::tool::Risk;

/// A summary longer than this many characters is long: the card says its length (and the
/// terminal card pages it).
pub const LONG_SUMMARY: usize = 160;

/// A permission card.
#[derive(Debug, Clone)]
pub struct Card {
    /// The model-facing tool name.
    pub tool: String,
    pub title: String,
    /// `builtin`, `suite`, `minitool` or `mcp`.
    pub layer: &'static str,
    /// The mini tool or MCP server behind the tool.
    pub owner: Option<String>,
    pub risk: Risk,
    /// The command for Bash, the path for file tools, the arguments otherwise: whole, never
    /// cut (`host::summary`).
    pub summary: String,
    /// Why the gateway asks.
    pub reason: String,
    /// Whether "Allow for this session" may be offered.
    pub session_allow_offered: bool,
    /// What "Allow for this session" covers, in words (`policy::session_scope`): the exact
    /// command, a directory and below, or every call of the tool.
    pub session_scope: String,
    /// Where the call will run if allowed (Bash: the kernel wall's profile), in words.
    pub sandbox: Option<String>,
    /// Whether "Allow, without the sandbox" may be offered (an approved Bash call that would
    /// otherwise run confined).
    pub unsandboxed_offered: bool,
    /// What a Write or Edit would change, for the card to show (`Provider::card_change`).
    pub change: Option<Change>,
}

/// The change a file tool's call would make, as its card shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Write: the whole new content, and the size of the file it replaces (`None`: a new file).
    Write {
        content: String,
        replaces: Option<u64>,
    },
    /// Edit: the file's text before and after (or, when the file cannot be read for the card,
    /// `old_string` and `new_string`), for a diff.
    Edit { before: String, after: String },
}

/// A person's answer to a card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CardAnswer {
    AllowOnce,
    AllowForSession,
    /// Allow once, and run it without finch's sandbox (`Card::unsandboxed_offered`).
    AllowUnsandboxed,
    Deny,
    /// Deny, and tell the model why.
    DenyWithReason(String),
    /// Nobody answered within the card timeout: deny.
    TimedOut,
    /// There is no one to ask (no terminal, no elicitation): deny.
    Unavailable,
    /// The MCP client declined the card's form (`action: "decline"`; `codex exec` declines
    /// every one): not run, and not a person's refusal either.
    Declined,
    /// The MCP client cancelled the form (`action: "cancel"`; `claude -p` cancels every one).
    Cancelled,
    /// The MCP client cannot elicit and there is no terminal: nobody could be shown the card.
    NoElicitation,
    /// The call was cancelled while its card was open, and the card was taken back
    /// (`Prompter::card_until`): nobody decided, and the call never runs.
    Withdrawn,
}

impl CardAnswer {
    /// The `decidedBy` a call's record says when this answer decided it (written only where
    /// records become JSON: `call::DecidedBy::as_str`).
    pub fn as_str(&self) -> &'static str {
        match self {
            CardAnswer::AllowOnce => "card:allowOnce",
            CardAnswer::AllowForSession => "card:allowForSession",
            CardAnswer::AllowUnsandboxed => "card:allowUnsandboxed",
            CardAnswer::Deny => "card:deny",
            CardAnswer::DenyWithReason(_) => "card:denyWithReason",
            CardAnswer::TimedOut => "card:timeout",
            CardAnswer::Unavailable => "noPerson",
            CardAnswer::Declined => "card:decline",
            CardAnswer::Cancelled => "card:cancel",
            CardAnswer::NoElicitation => "noElicitation",
            CardAnswer::Withdrawn => "card:withdrawn",
        }
    }

    pub fn allows(&self) -> bool {
        matches!(
            self,
            CardAnswer::AllowOnce | CardAnswer::AllowForSession | CardAnswer::AllowUnsandboxed
        )
    }

    /// Whether a person saw the card (whatever they answered), as opposed to nobody being
    /// there to show it to or the client declining it unseen.
    pub fn shown(&self) -> bool {
        matches!(
            self,
            CardAnswer::AllowOnce
                | CardAnswer::AllowForSession
                | CardAnswer::AllowUnsandboxed
                | CardAnswer::Deny
                | CardAnswer::DenyWithReason(_)
                | CardAnswer::TimedOut
                | CardAnswer::Declined
                | CardAnswer::Cancelled
                | CardAnswer::Withdrawn
        )
    }
}

/// One option of a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub label: String,
    pub description: Option<String>,
}

/// A multiple-choice question (`AskUserQuestion`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    pub question: String,
    /// A short label shown above the question.
    pub header: Option<String>,
    pub options: Vec<Choice>,
    pub multi_select: bool,
}

/// A person's answer to a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuestionAnswer {
    /// The labels chosen (one unless `multi_select`).
    Chosen(Vec<String>),
    /// A free-text answer instead of the options.
    Other(String),
    TimedOut,
    Unavailable,
    /// The MCP client declined or cancelled the question's form: no answer, and no choice.
    Dismissed,
}

/// Something a tool shows a person and asks nothing about: a mini tool's `ctx.ui.openDiff` (a
/// unified diff). `heading` names who shows it and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    pub heading: String,
    pub body: String,
}

/// Whoever answers cards and questions in a run.
pub trait Prompter {
    fn card(&mut self, card: &Card) -> CardAnswer;
    /// `card`, for a call its caller may cancel while the card is open: a prompter that can
    /// take its card back does so once `cancel` is set, and answers `Withdrawn`. By default
    /// the card stays until it is answered (the call then never runs either).
    fn card_until(&mut self, card: &Card, cancel: &Cancel) -> CardAnswer {
        let _ = cancel;
        self.card(card)
    }
    fn question(&mut self, question: &Question) -> QuestionAnswer;
    /// Shows `view` where the person is; whether it was shown. By default nothing is (an MCP
    /// client's person sees it in the call's result instead, `Nobody` has no one to show it).
    fn show(&mut self, view: &View) -> bool {
        let _ = view;
        false
    }
}

/// The prompter of a run with nobody to ask.
#[derive(Debug, Default, Clone, Copy)]
pub struct Nobody;

impl Prompter for Nobody {
    fn card(&mut self, _card: &Card) -> CardAnswer {
        CardAnswer::Unavailable
    }

    fn question(&mut self, _question: &Question) -> QuestionAnswer {
        QuestionAnswer::Unavailable
    }
}
