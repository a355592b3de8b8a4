//! The last step of the pipeline (approval → sandbox → attempt → escalation, as codex-rs's
//! orchestrator): a call the kernel wall refused (`Blocked`, reported by its tool) is offered
//! the one escalation that fits the refusal (`confine::Escalation`: read that directory,
//! write, the network, no wall) on a card that says what the wall refused and what the second
//! run will be allowed. Allowed, the call runs again as a job like any other — on the front
//! end's pool, cancellable by the call's own token — and its record carries both the refusal
//! and the escalation. Refused, unanswered, or with nothing that would help, the first run's
//! output stands with a note that says so, naming the flag a script would pass
//! (`--allow-read DIR`, …), and the call fails as `blocked`. A call runs again once.

use std::time::Instant;

use super::Host;
use super::confine::{Escalation, WallPlan};
use super::denial::Blocked;
use super::record::{CallRecord, DecidedBy, Escalated, Failure, ModelNote};
use super::refusal::{Stands, wall_note};
use super::running::{Again, Begun, Job, Ran, Running};
use crate::host::cancel;
use crate::host::catalog::Lookup;
use crate::host::output::Content;
use crate::host::prompt::{Card, CardAnswer};
use crate::host::provider::Started;
use crate::host::tool::Risk;
use crate::sandbox::Confine;

impl Host {
    /// Offers `ran`, which the wall refused (`Ran::may_escalate`), the escalation that fits,
    /// and runs it again when allowed; else records it as it ran.
    pub(super) fn escalate(&mut self, ran: Ran, cancel: &cancel::Cancel) -> Begun {
        let (Some(blocked), Some(wall)) = (ran.blocked.clone(), ran.plan.wall.clone()) else {
            let record = ran.record();
            return Begun::Done(self.settle(record, &ran.args, ran.started));
        };
        let workspace = ran.plan.workspace.clone();
        let fit = Escalation::fitting(&blocked, &wall, &self.walls, &workspace);
        let index = match self.catalog.lookup(&ran.tool) {
            Lookup::Found(index) => Some(index),
            _ => None,
        };
        let (Some(escalation), Some(index)) = (fit, index) else {
            return self.stands(ran, &blocked, Stands::NothingHelps, None);
        };
        let tool = self.catalog.get(index);
        let rerun = escalation.apply(&wall, &self.walls);
        let card = Card {
            tool: tool.name.clone(),
            title: tool.def.title.clone(),
            layer: tool.def.layer.as_str(),
            owner: tool.def.owner.clone(),
            risk: if escalation.unsandboxes() {
                Risk::High
            } else {
                Risk::Medium
            },
            summary: self.summary(&ran.tool, &ran.args),
            reason: format!(
                "finch's {} sandbox refused to {}",
                blocked.profile.as_str(),
                blocked.describe()
            ),
            session_allow_offered: false,
            session_scope: String::new(),
            sandbox: Some(rerun_words(&escalation, &rerun)),
            unsandboxed_offered: false,
            change: None,
        };
        let asked = Instant::now();
        let answer = self.prompter.card_until(&card, cancel);
        let person = asked.elapsed();
        self.person_time += person;
        let mut started = ran.started;
        started.person += person;
        let ran = Ran { started, ..ran };
        if answer == CardAnswer::Withdrawn || (!answer.allows() && cancel.is_cancelled()) {
            // The call was cancelled while its escalation was asked: it ends cancelled, as
            // the first run left it, and nothing runs again.
            let mut record = ran.record();
            record.failure = Some(Failure::Cancelled);
            record.escalation = Some(Escalated {
                escalation,
                by: DecidedBy::Card(answer),
            });
            return Begun::Done(self.settle(record, &ran.args, ran.started));
        }
        if !answer.allows() {
            let stands = Stands::Asked {
                escalation: &escalation,
                answer: &answer,
            };
            let escalated = Escalated {
                escalation: escalation.clone(),
                by: DecidedBy::Card(answer.clone()),
            };
            return self.stands(ran, &blocked, stands, Some(escalated));
        }
        let again = Again {
            blocked,
            escalated: Escalated {
                escalation,
                by: DecidedBy::Card(answer),
            },
        };
        if cancel.is_cancelled() {
            let mut record = ran.record();
            record.failure = Some(Failure::Cancelled);
            record.escalation = Some(again.escalated);
            return Begun::Done(self.settle(record, &ran.args, ran.started));
        }
        let mut plan = ran.plan.clone();
        plan.wall = Some(rerun);
        let job = |job, brief| Job {
            job,
            brief,
            tool: ran.tool.clone(),
            decided_by: ran.decided_by.clone(),
            plan: plan.clone(),
            again: Some(again.clone()),
        };
        match self.dispatch(index, ran.args.clone(), cancel, &cancel::no_progress, &plan) {
            Started::Job(j) => Begun::Running(Running::new(job(j, false), ran.args, ran.started)),
            Started::Brief(j) => Begun::Running(Running::new(job(j, true), ran.args, ran.started)),
            Started::Done(output) => {
                let rerun = Ran {
                    output,
                    cancelled: cancel.is_cancelled(),
                    blocked: None,
                    again: Some(again),
                    plan,
                    ..ran
                };
                let record = rerun.record();
                Begun::Done(self.settle(record, &rerun.args, rerun.started))
            }
        }
    }

    /// Records `ran` as it ran, the wall's refusal standing for the reason `why`.
    fn stands(
        &mut self,
        ran: Ran,
        blocked: &Blocked,
        why: Stands,
        escalated: Option<Escalated>,
    ) -> Begun {
        let mut record: CallRecord = ran.record();
        record
            .output
            .content
            .push(Content::Text(wall_note(blocked, why)));
        record.failure = Some(Failure::Blocked);
        record.escalation = escalated;
        let record = record.noted(ModelNote::WallStands);
        Begun::Done(self.settle(record, &ran.args, ran.started))
    }
}

/// Where the call runs again, for its card: `runs again in finch's read-only sandbox, now
/// also able to read /home/u/notes`.
fn rerun_words(escalation: &Escalation, rerun: &WallPlan) -> String {
    match rerun.confine {
        Confine::Unconfined => "runs again without finch's sandbox".to_string(),
        confine => format!(
            "runs again in finch's {} sandbox, now also able to {}",
            confine.as_str(),
            escalation.words()
        ),
    }
}
