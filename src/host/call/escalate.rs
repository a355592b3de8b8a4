//! The last step of the pipeline (verdict → sandbox → attempt → escalation): a command the
//! fast lane ran in the read-only sandbox that failed with a refusal (`sandboxBlocked`) is
//! shown on a card — "the sandbox stopped it; run it again with write access?" — and run
//! again where `[sandbox] approved` says when a person allows it. With nobody to ask the
//! first result stands (its text tells the model about `escalate`). The second run cannot
//! be cancelled from outside: the call's own token belonged to the first.

use std::time::Instant;

use serde_json::Value;

use super::Host;
use super::confine::WallPlan;
use super::plan::CallPlan;
use super::record::{CallRecord, DecidedBy};
use crate::host::cancel;
use crate::host::catalog::Lookup;
use crate::host::prompt::{Card, CardAnswer};
use crate::host::tool;
use crate::sandbox::Confine;

impl Host {
    /// The record of the call run again with write access, when the read-only wall stopped it
    /// and a person allowed that.
    pub(super) fn escalate_walled(
        &mut self,
        record: &CallRecord,
        args: &Value,
    ) -> Option<CallRecord> {
        let blocked = record.sandbox == Some(Confine::ReadOnly)
            && record.failure.is_none()
            && record
                .output
                .structured
                .as_ref()
                .is_some_and(|s| s["sandboxBlocked"] == true);
        if !blocked {
            return None;
        }
        let Lookup::Found(index) = self.catalog.lookup(&record.tool) else {
            return None;
        };
        let approved = self.walls.approved;
        let tool = self.catalog.get(index);
        let stderr = record
            .output
            .structured
            .as_ref()
            .and_then(|s| s["stderr"].as_str())
            .and_then(|e| e.lines().find(|l| crate::sandbox::looks_blocked(l)))
            .unwrap_or("a refusal")
            .to_string();
        let summary = self.summary(&record.tool, args);
        let card = Card {
            tool: tool.name.clone(),
            title: tool.def.title.clone(),
            layer: tool.def.layer.as_str(),
            owner: tool.def.owner.clone(),
            risk: tool::Risk::Medium,
            summary,
            reason: format!(
                "it ran without a card in finch's read-only sandbox and was stopped ({stderr}); \
                 allowed, it runs again with write access"
            ),
            session_allow_offered: false,
            session_scope: String::new(),
            sandbox: Some(approved.describe()),
            unsandboxed_offered: approved != Confine::Unconfined,
            change: None,
        };
        let asked = Instant::now();
        let answer = self.prompter.card(&card);
        self.person_time += asked.elapsed();
        if !answer.allows() {
            return None;
        }
        let confine = match answer {
            CardAnswer::AllowUnsandboxed => Confine::Unconfined,
            _ => approved,
        };
        let cancel = cancel::Cancel::new();
        let mut plan = CallPlan::unplanned(self.workspace());
        plan.wall = Some(WallPlan { confine });
        let started = self.dispatch(index, args.clone(), &cancel, &cancel::no_progress, &plan);
        let output = started.run_here(&cancel, &cancel::no_progress, self.prompter.as_mut());
        Some(
            CallRecord::ran(record.tool.clone(), DecidedBy::Card(answer), output, false)
                .ran_in(Some(confine)),
        )
    }
}
