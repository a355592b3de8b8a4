//! Every text a model reads when the pipeline did not run its call, in one place: the call is
//! refused as a typed `Refusal` wherever the pipeline decides so, and becomes words only here
//! (`Refusal::text`). Each text says what happened and what the model should do next — call
//! ToolSearch, fix the arguments, not retry, ask the user — in the model's terms.

use super::confine::Escalation;
use super::denial::Blocked;
use crate::host::prompt::CardAnswer;

/// Why a call was not run.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// No tool has this name; `similar` are the catalog's closest names.
    UnknownTool { name: String, similar: Vec<String> },
    /// Several tools registered this raw name.
    Ambiguous {
        name: String,
        candidates: Vec<String>,
    },
    /// A dynamic tool ToolSearch has not activated.
    NotActive { tool: String, raw_name: String },
    /// The arguments are not a JSON object.
    NotAnObject { tool: String, args: String },
    /// The arguments break the tool's input schema.
    InvalidArguments { tool: String, problems: Vec<String> },
    /// Its provider did not start it; the provider's own words say why.
    NotStarted(String),
    /// The catalog names a tool no provider serves any more.
    NoProvider { tool: String },
    /// A rule refused it without a card; `reason` is the gateway's.
    Rule { tool: String, reason: String },
    /// Its card was answered with a refusal, or nobody answered it; `reason` is why the
    /// gateway asked.
    Card {
        tool: String,
        reason: String,
        answer: CardAnswer,
    },
}

impl Refusal {
    /// What the model reads.
    pub fn text(&self) -> String {
        match self {
            Refusal::UnknownTool { name, similar } => {
                let mut text = format!("There is no tool named `{name}`.");
                if !similar.is_empty() {
                    text.push_str(&format!(" Similar tools: {}.", similar.join(", ")));
                }
                text.push_str(" Use ToolSearch to find tools by what they do.");
                text
            }
            Refusal::Ambiguous { name, candidates } => format!(
                "`{name}` is registered by several tools: call one of {} by its full name.",
                candidates.join(", ")
            ),
            Refusal::NotActive { tool, raw_name } => format!(
                "`{tool}` is not active in this session yet. Call ToolSearch with a query \
                 that finds it (for example {{\"query\": \"{raw_name}\"}}) to activate it, then call it again."
            ),
            Refusal::NotAnObject { tool, args } => {
                format!("The arguments of `{tool}` must be a JSON object, not `{args}`.")
            }
            Refusal::InvalidArguments { tool, problems } => format!(
                "Invalid arguments for `{tool}`:\n- {}\nCall `{tool}` again with arguments that match its input schema.",
                problems.join("\n- ")
            ),
            Refusal::NotStarted(why) => why.clone(),
            Refusal::NoProvider { tool } => format!("`{tool}` has no provider"),
            Refusal::Rule { tool, reason } => {
                format!("Permission denied: `{tool}` was not run. {reason}")
            }
            Refusal::Card {
                tool,
                reason,
                answer,
            } => card_text(tool, reason, answer),
        }
    }
}

impl Refusal {
    /// What a person reads where the console or `finch tool call` shows the refusal: the same
    /// facts without the advice to the model (not to retry, to call again); the record, the
    /// transcript and MCP keep `text`.
    pub fn for_person(&self) -> String {
        match self {
            Refusal::InvalidArguments { tool, problems } => {
                format!(
                    "Invalid arguments for `{tool}`:\n- {}",
                    problems.join("\n- ")
                )
            }
            // The person read why when finch started the mini tool (its `✖ … refused`
            // warning); saying it again under each call doubled a four-line message.
            Refusal::NotStarted(_) => {
                "Not run: its mini tool was not started; the warning above says why.".to_string()
            }
            Refusal::Card {
                tool,
                reason,
                answer,
            } => match answer {
                CardAnswer::DenyWithReason(why) => {
                    format!("Not run: you denied `{tool}` and said: {why}")
                }
                CardAnswer::TimedOut => {
                    format!("Not run: nobody answered the permission card for `{tool}` in time.")
                }
                CardAnswer::Deny | CardAnswer::Withdrawn => {
                    format!("Not run: you denied `{tool}`.")
                }
                // What the person can do, not what the model should (another tool).
                CardAnswer::Unavailable => format!(
                    "Not run: `{tool}` needs a person's approval ({reason}), and there is no \
                     terminal to ask on. Run it on a terminal to be asked, or allow it without \
                     asking: `--approve {tool}` answers its cards with allow, or an allow rule \
                     for it in .finch/permissions.json (`finch policy trust` makes a project's \
                     rules count)."
                ),
                _ => self.text(),
            },
            _ => self.text(),
        }
    }
}

fn card_text(tool: &str, reason: &str, answer: &CardAnswer) -> String {
    match answer {
        CardAnswer::DenyWithReason(why) => format!("The user denied `{tool}` and said: {why}"),
        CardAnswer::TimedOut => format!(
            "Permission denied: nobody answered the permission card for `{tool}` in time. Do not retry the same call; ask the user."
        ),
        CardAnswer::Unavailable => format!(
            "Permission denied: `{tool}` needs a person's approval ({reason}), and this run has nobody to ask. Rerun with --approve {tool} to allow it, or use a tool that does not need approval."
        ),
        CardAnswer::Declined => format!(
            "Not run: `{tool}` needs a person's approval ({reason}), and the MCP client declined the permission card without anyone allowing it (an agent run without a person, such as `codex exec`, declines every card). This is not a person's refusal. Do not retry the same call: ask the user whether it should run; they can allow it with finch's --approve {tool} or an allow rule."
        ),
        CardAnswer::Cancelled => format!(
            "Not run: `{tool}` needs a person's approval ({reason}), and the MCP client cancelled the permission card before anyone answered it (an agent run without a person, such as `claude -p`, cancels every card). This is not a person's refusal. Do not retry the same call: ask the user whether it should run; they can allow it with finch's --approve {tool} or an allow rule."
        ),
        CardAnswer::NoElicitation => format!(
            "Not run: `{tool}` needs a person's approval ({reason}), and nobody could be asked: the MCP client cannot show permission cards (no elicitation support) and finch has no terminal. Do not retry the same call: ask the user whether it should run; they can allow it with finch's --approve {tool} or an allow rule."
        ),
        _ => format!("The user denied `{tool}`. Do not retry the same call."),
    }
}

/// Why the kernel wall's refusal of a call stands (its output then ends with `wall_note`).
#[derive(Debug, Clone, Copy)]
pub enum Stands<'a> {
    /// Nothing finch may allow would help (a credential store is never readable).
    NothingHelps,
    /// It ran again with `granted` and was refused again.
    StillRefused { granted: &'a Escalation },
    /// Running it again with `escalation` was asked, and answered `answer` (a refusal, or
    /// nobody there to answer).
    Asked {
        escalation: &'a Escalation,
        answer: &'a CardAnswer,
    },
}

/// What the model reads under the output of a call the kernel wall refused, when that stands.
pub fn wall_note(blocked: &Blocked, why: Stands) -> String {
    let refused = format!(
        "finch's {} sandbox refused to {}.",
        blocked.profile.as_str(),
        blocked.describe()
    );
    match why {
        Stands::NothingHelps => format!(
            "{refused} Nothing finch allows would let it: it never lets a command read where keys and credentials are kept. Do not retry the same call; do it another way, or ask the user."
        ),
        Stands::StillRefused { granted } => format!(
            "{refused} It had already run again able to {}. Do not retry the same call; ask the user.",
            granted.words()
        ),
        Stands::Asked { escalation, answer } => {
            let grant = escalation.words();
            match answer {
                CardAnswer::DenyWithReason(why) => format!(
                    "{refused} The user was asked whether it may run again able to {grant}, said no, and said: {why}"
                ),
                CardAnswer::TimedOut => format!(
                    "{refused} Nobody answered in time whether it may run again able to {grant}. Do not retry the same call; ask the user."
                ),
                CardAnswer::Unavailable
                | CardAnswer::NoElicitation
                | CardAnswer::Declined
                | CardAnswer::Cancelled => format!(
                    "{refused} Nobody could be asked whether it may run again able to {grant}. Do not retry the same call: tell the user it needs to {grant}; they can allow that by running finch with {}.",
                    escalation.flag()
                ),
                _ => format!(
                    "{refused} The user was asked whether it may run again able to {grant}, and said no. Do not retry the same call."
                ),
            }
        }
    }
}
