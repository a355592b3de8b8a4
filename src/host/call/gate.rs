//! The gate of the pipeline: the gateway's verdict (`policy::decide`, pure), then what stands
//! in for a person — the session's "Allow for this session" answers, `--approve` — and else a
//! permission card. It ends in one of three typed outcomes (`Gate`), and for a walled tool the
//! wall the call runs in is chosen beside it (`confine::Walls`).

use std::time::{Duration, Instant};

use serde_json::Value;

use super::confine::{WallPlan, Walls};
use super::plan::CallPlan;
use super::record::DecidedBy;
use super::refusal::Refusal;
use crate::host::cancel::Cancel;
use crate::host::catalog::ToolSpec;
use crate::host::policy::{self, Decision, Rules, ToolCall};
use crate::host::prompt::{Card, CardAnswer, Change, Prompter};
use crate::host::session::SessionState;
use crate::host::tool::ToolRef;

/// What the gate made of a call.
#[derive(Debug, Clone, PartialEq)]
pub enum Gate {
    /// It runs; `confine` is the wall it runs in when its tool is walled.
    Allowed {
        by: DecidedBy,
        confine: Option<WallPlan>,
    },
    /// It does not run; the model reads `refusal`.
    Refused { by: DecidedBy, refusal: Refusal },
    /// It was cancelled while its card was open, and the card taken back: nobody decided.
    Withdrawn,
}

/// A call at the gate: the tool, its arguments and plan, and what its card would show.
pub struct AtGate<'a> {
    pub tool: &'a ToolSpec,
    pub args: &'a Value,
    pub plan: &'a CallPlan,
    /// The kernel wall applies to the tool (`Walling::Gated`).
    pub walled: bool,
    pub walls: &'a Walls,
    pub rules: &'a Rules,
    /// The card's one-line summary (`Provider::summary`).
    pub summary: String,
    /// What the tool may do, for a card where the wall does not apply (`Provider::card_reach`).
    pub reach: Option<String>,
    /// What the call would change, read only when a card is shown (`Provider::card_change`).
    pub change: &'a dyn Fn(&SessionState) -> Option<Change>,
}

/// Passes `call` through the gate, asking `prompter` when a card is needed; also returns the
/// time a person spent at the card.
pub fn pass(
    call: &AtGate,
    session: &mut SessionState,
    prompter: &mut dyn Prompter,
    cancel: &Cancel,
) -> (Gate, Duration) {
    let tool = call.tool;
    let tool_ref = ToolRef {
        name: &tool.name,
        layer: tool.def.layer,
        owner: tool.def.owner.as_deref(),
        risk: tool.def.risk,
    };
    let judged = ToolCall {
        tool: tool_ref,
        args: call.args,
        workspace: &call.plan.workspace,
        facts: &call.plan.facts,
        wall: call.walls.fast,
    };
    let mut verdict = policy::decide_planned(&judged, &call.plan.target, session.mode, call.rules);
    // Under `finch dev` the package under development's author is the one at the terminal: its
    // cards offer "Allow for this session" too (never a high-risk one's).
    if verdict.decision == Decision::Ask
        && verdict.risk != crate::host::tool::Risk::High
        && tool_ref
            .owner
            .is_some_and(|o| session.session_allow_owners.iter().any(|s| s == o))
    {
        verdict.session_allow_offered = true;
    }
    call.walls.warn_if_missing(verdict.decided_by);
    let walled = |plan: WallPlan| call.walled.then_some(plan);
    let allowed = |by: DecidedBy, plan: WallPlan| Gate::Allowed {
        by,
        confine: walled(plan),
    };
    let gate = match verdict.decision {
        Decision::Allow => allowed(
            DecidedBy::Gateway(verdict.decided_by),
            call.walls.allowed(verdict.decided_by),
        ),
        Decision::Deny => Gate::Refused {
            by: DecidedBy::Gateway(verdict.decided_by),
            refusal: Refusal::Rule {
                tool: tool.name.clone(),
                reason: verdict.reason,
            },
        },
        Decision::Ask => {
            let key = policy::session_key(&tool_ref, &call.plan.target);
            if verdict.session_allow_offered
                && policy::session_allows(&session.allowed_for_session, &key)
            {
                return (
                    allowed(
                        DecidedBy::Gateway(policy::DecidedBy::SessionAllow),
                        call.walls.approved(),
                    ),
                    Duration::ZERO,
                );
            }
            if session.approve.iter().any(|a| a == &tool.name) {
                return (
                    allowed(DecidedBy::ApproveFlag, call.walls.approved()),
                    Duration::ZERO,
                );
            }
            let card = Card {
                tool: tool.name.clone(),
                title: tool.def.title.clone(),
                layer: tool.def.layer.as_str(),
                owner: tool.def.owner.clone(),
                risk: verdict.risk,
                session_scope: policy::session_scope(&tool_ref, &call.plan.target, &call.summary),
                summary: call.summary.clone(),
                reason: verdict.reason.clone(),
                session_allow_offered: verdict.session_allow_offered,
                sandbox: if call.walled {
                    Some(call.walls.approved.describe())
                } else {
                    call.reach.clone()
                },
                unsandboxed_offered: call.walled && call.walls.offers_unsandboxed(),
                change: (call.change)(session),
            };
            let asked = Instant::now();
            let mut answer = prompter.card_until(&card, cancel);
            let person = asked.elapsed();
            if answer == CardAnswer::AllowForSession && !verdict.session_allow_offered {
                answer = CardAnswer::AllowOnce;
            }
            if answer == CardAnswer::AllowUnsandboxed && !card.unsandboxed_offered {
                answer = CardAnswer::AllowOnce;
            }
            if answer == CardAnswer::AllowForSession {
                session.allowed_for_session.insert(key);
            }
            let gate = match answer {
                CardAnswer::Withdrawn => Gate::Withdrawn,
                CardAnswer::AllowUnsandboxed => {
                    allowed(DecidedBy::Card(answer), Walls::unsandboxed())
                }
                answer if answer.allows() => {
                    allowed(DecidedBy::Card(answer), call.walls.approved())
                }
                answer => Gate::Refused {
                    refusal: Refusal::Card {
                        tool: tool.name.clone(),
                        reason: verdict.reason,
                        answer: answer.clone(),
                    },
                    by: DecidedBy::Card(answer),
                },
            };
            return (gate, person);
        }
    };
    (gate, Duration::ZERO)
}
