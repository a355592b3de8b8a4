//! The record of one call (`CallRecord`): what it came to, who decided, how it ran. Every
//! record is made by one constructor (`CallRecord::new`); the decision and who made it are
//! enums (`Decision`, `DecidedBy`) and become the transcript's, `--json`'s and MCP's strings
//! only here, where records are written (`to_json`, `entry`).

use serde_json::Value;

use super::confine::Escalation;
use super::denial::Blocked;
use super::refusal::Refusal;
use crate::host::output::{Content, ToolOutput};
use crate::host::policy;
use crate::host::prompt::CardAnswer;
use crate::sandbox::Confine;

/// What the pipeline did with a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// It ran.
    Allow,
    /// A rule, a card or nobody to ask refused it.
    Deny,
    /// It never reached the gateway (no such tool, bad arguments, a manual), or its card was
    /// taken back.
    None,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Deny => "deny",
            Decision::None => "none",
        }
    }
}

/// A step of the pipeline that ended a call before the gateway.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    UnknownTool,
    NotActive,
    InvalidArguments,
    /// A dispatcher called without `action`: its manual, which needs no permission.
    Manual,
    /// A mini tool that was not started (the kernel cannot confine it, nobody agreed to run it
    /// unconfined).
    NotStarted,
}

/// Who decided a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecidedBy {
    /// A step of the gateway (`policy::decide`): a rule, the mode, a lane; or the session's
    /// "Allow for this session" (`policy::DecidedBy::SessionAllow`).
    Gateway(policy::DecidedBy),
    /// `--approve <tool>`.
    ApproveFlag,
    /// A permission card's answer, or why nobody answered one.
    Card(CardAnswer),
    /// The pipeline, before the gateway.
    Pipeline(Step),
}

impl DecidedBy {
    /// The `decidedBy` of the transcript, `--json` and MCP's `_meta`.
    pub fn as_str(&self) -> &'static str {
        match self {
            DecidedBy::Gateway(by) => by.as_str(),
            DecidedBy::ApproveFlag => "approveFlag",
            DecidedBy::Card(answer) => answer.as_str(),
            DecidedBy::Pipeline(step) => match step {
                Step::UnknownTool => "unknownTool",
                Step::NotActive => "notActive",
                Step::InvalidArguments => "invalidArguments",
                Step::Manual => "manual",
                Step::NotStarted => "notStarted",
            },
        }
    }

    /// Whether a card went out for the call (a person, or an MCP client, saw it), as opposed
    /// to a rule, the mode, a flag or nobody to show it to.
    pub fn shown_on_a_card(&self) -> bool {
        matches!(self, DecidedBy::Card(answer) if answer.shown())
    }

    /// Whether the call ran because the gateway lets it run without anyone's approval (the
    /// fast lane), as opposed to a card, a flag or a rule.
    pub fn ran_without_approval(&self) -> bool {
        matches!(
            self,
            DecidedBy::Gateway(policy::DecidedBy::FastLane | policy::DecidedBy::SandboxFirst)
        )
    }

    /// Why, in a few words for a person (`✓ Bash — allowed (read-only)`).
    pub fn words(&self) -> &'static str {
        use policy::DecidedBy as G;
        match self {
            DecidedBy::Gateway(G::FastLane) => "read-only",
            DecidedBy::Gateway(G::SandboxFirst) => "in the read-only sandbox",
            DecidedBy::Gateway(G::AutoAllow) => "allowed by default",
            DecidedBy::Gateway(G::AllowRule) => "an allow rule",
            DecidedBy::Gateway(G::DenyRule) => "a deny rule",
            DecidedBy::Gateway(G::AskRule | G::CardRequired | G::AskMode) => "a card was needed",
            DecidedBy::Gateway(G::OutsideWorkspace) => "outside the workspace",
            DecidedBy::Gateway(G::ProtectedPath) => "a protected path",
            DecidedBy::Gateway(G::SessionAllow) => "allowed for this session",
            DecidedBy::Gateway(G::DispatcherWidens) => "it would widen the session",
            DecidedBy::Gateway(G::NoSandbox) => "no sandbox here",
            DecidedBy::Gateway(G::Escalated) => "the model asked for a person",
            DecidedBy::ApproveFlag => "--approve",
            DecidedBy::Card(CardAnswer::AllowOnce) => "you allowed it once",
            DecidedBy::Card(CardAnswer::AllowForSession) => "you allowed it for this session",
            DecidedBy::Card(CardAnswer::AllowUnsandboxed) => {
                "you allowed it once, without the sandbox"
            }
            DecidedBy::Card(CardAnswer::Deny | CardAnswer::DenyWithReason(_)) => "you denied it",
            DecidedBy::Card(CardAnswer::TimedOut) => "nobody answered the card in time",
            DecidedBy::Card(CardAnswer::Unavailable) => "nobody to ask",
            DecidedBy::Card(CardAnswer::NoElicitation) => "the client cannot show cards",
            DecidedBy::Card(CardAnswer::Declined) => "the client declined the card",
            DecidedBy::Card(CardAnswer::Cancelled) => "the client cancelled the card",
            DecidedBy::Card(CardAnswer::Withdrawn) => "the card was taken back",
            DecidedBy::Pipeline(Step::UnknownTool) => "no such tool",
            DecidedBy::Pipeline(Step::NotActive) => "not active: find it with ToolSearch",
            DecidedBy::Pipeline(Step::InvalidArguments) => "invalid arguments",
            DecidedBy::Pipeline(Step::Manual) => "its manual",
            DecidedBy::Pipeline(Step::NotStarted) => "its mini tool did not start",
        }
    }
}

/// Why a call did not produce a tool's own result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    UnknownTool,
    /// A dynamic tool not activated by ToolSearch.
    NotActive,
    InvalidArguments,
    /// Denied by a rule, a card, or nobody to ask.
    Refused,
    /// The tool ran and reported an error.
    ToolError,
    /// The caller cancelled it (`cancel::Cancel`) while its card was open or while it ran.
    Cancelled,
    /// The kernel wall refused what it tried (`CallRecord::blocked`), and nothing allowed it
    /// more: a person denied the escalation, nobody could be asked, or nothing would help.
    Blocked,
}

impl Failure {
    pub fn as_str(self) -> &'static str {
        match self {
            Failure::UnknownTool => "unknownTool",
            Failure::NotActive => "notActive",
            Failure::InvalidArguments => "invalidArguments",
            Failure::Refused => "refused",
            Failure::ToolError => "toolError",
            Failure::Cancelled => "cancelled",
            Failure::Blocked => "blocked",
        }
    }
}

/// One call as it happened.
#[derive(Debug, Clone)]
pub struct CallRecord {
    /// The model-facing name (or the name as given when it resolved to nothing).
    pub tool: String,
    pub decision: Decision,
    /// The rule, mode, card answer or pipeline step that decided.
    pub decided_by: DecidedBy,
    pub output: ToolOutput,
    pub failure: Option<Failure>,
    pub duration_ms: f64,
    /// How the call ran when the kernel wall applies to its tool (Bash): `none`, `read-only`
    /// or `workspace-write`.
    pub sandbox: Option<Confine>,
    /// What the wall refused it: the last refusal, which led to `escalation` when one was
    /// offered.
    pub blocked: Option<Blocked>,
    /// What the call was offered after the wall refused it, and who answered: when allowed,
    /// `output` is the second run's.
    pub escalation: Option<Escalated>,
    /// Why the pipeline did not run it, when it refused it before it started: `output` holds
    /// the model's words for it, a person reads `Refusal::for_person`.
    pub refusal: Option<Refusal>,
    /// The mini tool that made the call through `mcp.client.callTool` (`MadeCall`); `None`
    /// for the calls of the session's own agent.
    pub made_by: Option<String>,
    /// The host's note to the model at the end of `output` (`refusal::wall_note`: why the
    /// wall's refusal stands, not to retry): `output` keeps it for the model, the transcript and
    /// MCP; a person's view of the output leaves it out (`person_content`) and says the
    /// refusal in the person's words instead.
    pub model_note: Option<ModelNote>,
}

/// A note the host appended to a call's output for the model, which a person does not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelNote {
    /// Why the kernel wall's refusal stands (`refusal::wall_note`), the output's last block.
    WallStands,
}

/// A call a provider made on its own for a mini tool — an MCP tool call through
/// `mcp.client.callTool` — with its arguments: recorded in the transcript as any call is
/// (`Provider::take_made_calls`, `Host::settle`).
#[derive(Debug, Clone)]
pub struct MadeCall {
    pub record: CallRecord,
    pub arguments: Value,
}

/// An escalation offered after a refusal, and who answered it.
#[derive(Debug, Clone, PartialEq)]
pub struct Escalated {
    pub escalation: Escalation,
    pub by: DecidedBy,
}

impl Escalated {
    /// The record's `escalation`: `{"grant", "path", "decidedBy"}`.
    pub fn to_json(&self) -> Value {
        let mut value = self.escalation.to_json();
        if let Some(map) = value.as_object_mut() {
            map.insert("decidedBy".into(), self.by.as_str().into());
        }
        value
    }
}

impl CallRecord {
    /// The one constructor: a call of `tool` decided so, with this output; not timed yet, and
    /// run outside the wall until `ran_in` says otherwise.
    pub fn new(
        tool: impl Into<String>,
        decision: Decision,
        decided_by: DecidedBy,
        output: ToolOutput,
        failure: Option<Failure>,
    ) -> CallRecord {
        CallRecord {
            tool: tool.into(),
            decision,
            decided_by,
            output,
            failure,
            duration_ms: 0.0,
            sandbox: None,
            blocked: None,
            escalation: None,
            refusal: None,
            made_by: None,
            model_note: None,
        }
    }

    /// This record, of a call the pipeline refused so.
    pub fn refused(mut self, refusal: Refusal) -> CallRecord {
        self.refusal = Some(refusal);
        self
    }

    /// The words a person reads for the call's result when the pipeline refused it (`None`:
    /// its output is what a person reads too).
    pub fn person_text(&self) -> Option<String> {
        self.refusal.as_ref().map(Refusal::for_person)
    }

    /// This record, its output ending with the host's `note` to the model.
    pub fn noted(mut self, note: ModelNote) -> CallRecord {
        self.model_note = Some(note);
        self
    }

    /// The output's blocks a person reads: all of them but the host's note to the model
    /// (`model_note`).
    pub fn person_content(&self) -> &[Content] {
        let content = &self.output.content;
        match self.model_note {
            Some(ModelNote::WallStands) if !content.is_empty() => &content[..content.len() - 1],
            _ => content,
        }
    }

    /// This record, of a call mini tool `minitool` made (`made_by`).
    pub fn made_by(mut self, minitool: impl Into<String>) -> CallRecord {
        self.made_by = Some(minitool.into());
        self
    }

    /// The record of a call that ran: a failure when it was cancelled or the tool said it
    /// failed.
    pub fn ran(
        tool: impl Into<String>,
        decided_by: DecidedBy,
        output: ToolOutput,
        cancelled: bool,
    ) -> CallRecord {
        let failure = if cancelled {
            Some(Failure::Cancelled)
        } else {
            output.is_error.then_some(Failure::ToolError)
        };
        CallRecord::new(tool, Decision::Allow, decided_by, output, failure)
    }

    /// This record, of a call that ran in `sandbox` (`None`: its tool is not walled).
    pub fn ran_in(mut self, sandbox: Option<Confine>) -> CallRecord {
        self.sandbox = sandbox;
        self
    }

    /// The record as `--json`, `--jsonl` and the console's `--json` print it: the output's
    /// fields, then what the pipeline decided.
    pub fn to_json(&self) -> Value {
        let mut out = self.output.to_json();
        if let Some(map) = out.as_object_mut() {
            map.insert("tool".into(), self.tool.clone().into());
            map.insert("decision".into(), self.decision.as_str().into());
            map.insert("decidedBy".into(), self.decided_by.as_str().into());
            if let Some(f) = self.failure {
                map.insert("failure".into(), f.as_str().into());
            }
            if let Some(confine) = self.sandbox {
                map.insert("sandbox".into(), confine.as_str().into());
            }
            if let Some(blocked) = &self.blocked {
                map.insert("blocked".into(), blocked.to_json());
            }
            if let Some(escalated) = &self.escalation {
                map.insert("escalation".into(), escalated.to_json());
            }
            if let Some(minitool) = &self.made_by {
                map.insert("madeByMiniTool".into(), minitool.clone().into());
            }
        }
        out
    }

    /// The data of the call's `finch.toolCall` transcript entry (SPEC §7).
    pub fn entry<'a>(&'a self, arguments: &'a Value, result: &'a ToolOutput) -> CallEntry<'a> {
        CallEntry {
            tool: &self.tool,
            arguments,
            decision: self.decision.as_str(),
            decided_by: self.decided_by.as_str(),
            result,
            is_error: self.output.is_error,
            duration_ms: (self.duration_ms * 1000.0).round() / 1000.0,
            sandbox: self.sandbox.map(Confine::as_str),
            blocked: self.blocked.as_ref().map(Blocked::to_json),
            escalation: self.escalation.as_ref().map(Escalated::to_json),
            made_by_mini_tool: self.made_by.as_deref(),
        }
    }
}

/// The data of a call's `finch.toolCall` transcript entry (SPEC §7).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallEntry<'a> {
    tool: &'a str,
    arguments: &'a Value,
    decision: &'static str,
    decided_by: &'static str,
    /// As `ToolOutput::to_json` shapes it.
    result: &'a ToolOutput,
    is_error: bool,
    duration_ms: f64,
    /// Where a Bash call ran (`none`, `read-only`, `workspace-write`); absent for other tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    sandbox: Option<&'static str>,
    /// What the kernel wall refused (`Blocked::to_json`).
    #[serde(skip_serializing_if = "Option::is_none")]
    blocked: Option<Value>,
    /// The escalation offered after it, and who answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    escalation: Option<Value>,
    /// The mini tool that made the call through `mcp.client.callTool`.
    #[serde(skip_serializing_if = "Option::is_none")]
    made_by_mini_tool: Option<&'a str>,
}
