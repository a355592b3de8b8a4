//! `finch reload [<id>]` (SPEC §3.7): rescans both tiers, starts every enabled mini tool in the
//! host runtime, connects the MCP servers (contributed, registered at run time, and the user's),
//! writes the tool catalog cache `<runtime>/cache/catalog.json` that `finch tool list|search|info`
//! read, reports each mini tool (activated with its tool count, or failed with the error and its
//! log), stops what it started, and asks every running `finch run` to reload in place. The start
//! itself is the host assembly's (`host::assembly::survey`); this file reports it.
//!
//! With `<id>` the report is that mini tool's alone; the catalog is still rebuilt whole (one
//! mini tool's registrations can shadow or collide with another's names). Exit 1 when a mini
//! tool failed, 3 when `<id>` is not an enabled mini tool.
//!
//! Where the kernel cannot confine mini tools, one starts only once a person agreed
//! (`minitool::confine`): `--approve-unconfined <id>`, or the card on a terminal; otherwise it
//! is reported `refused`, and the exit code is 4 (needs a person) when nothing failed.

use clap::Args;
use serde_json::{Value, json};

use crate::Context;
use crate::error::{CommandError, Result};
use crate::host::assembly::{self, Survey};
use crate::host::control;
use crate::host::runtime::Outcome;

#[derive(Debug, Args)]
pub struct ReloadArgs {
    /// Report only this mini tool (the catalog is rebuilt whole)
    #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::installed_ids))]
    pub id: Option<String>,
    /// Where the kernel cannot confine mini tools: let this one start unconfined, and record
    /// that agreement for its id (repeatable)
    #[arg(long, value_name = "ID", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::installed_ids))]
    pub approve_unconfined: Vec<String>,
}

pub fn cmd_reload(ctx: &Context, args: &ReloadArgs) -> Result<()> {
    let env = ctx.host_env()?;
    let consent = assembly::Agreement {
        env: &env,
        ui: &ctx.ui,
        approved: &args.approve_unconfined,
        card: true,
        denied: None,
    };
    let Survey {
        report,
        statuses,
        cache,
        tools,
    } = assembly::survey(&env, &ctx.cwd, &ctx.ui, args.id.as_deref(), Some(&consent))?;
    let reports: Vec<_> = report
        .tools
        .iter()
        .filter(|r| args.id.as_deref().is_none_or(|id| r.id == id))
        .collect();
    let signalled = control::signal_running(&env.homes);
    let failed = reports
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Failed { .. }))
        .count();
    let refused: Vec<&str> = reports
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Refused { .. }))
        .map(|r| r.id.as_str())
        .collect();

    if ctx.ui.json {
        let servers: Vec<Value> = statuses
            .iter()
            .map(|s| {
                json!({
                    "name": s.config.name,
                    "source": s.config.origin.source(),
                    "connected": s.connected(),
                    "tools": s.tools.as_ref().map(Vec::len),
                    "error": s.error,
                    "sandbox": s.held.as_ref().map(|h| h.to_json()),
                })
            })
            .collect();
        ctx.ui.json(&json!({
            "minitools": reports.iter().map(|r| r.to_json()).collect::<Vec<_>>(),
            "problems": report.problems,
            "mcpServers": servers,
            "catalog": {"path": cache, "tools": tools},
            "signalled": signalled,
        }))?;
    } else {
        if reports.is_empty() {
            ctx.ui.done_line("No enabled mini tools.")?;
        }
        for r in &reports {
            ctx.ui.done_line(r.line())?;
        }
        for problem in &report.problems {
            ctx.ui.warn(problem);
        }
        for s in &statuses {
            let tools = s.tools.as_ref().map_or(0, Vec::len);
            // A mini tool's server runs confined as that mini tool: the line says how.
            let name = match &s.held {
                Some(held) => format!("{} ({})", s.config.name, held.describe()),
                None => s.config.name.clone(),
            };
            match &s.error {
                None => ctx.ui.done_line(format!(
                    "✓ MCP server {name}: {tools} tool{}",
                    if tools == 1 { "" } else { "s" }
                ))?,
                Some(error) => ctx
                    .ui
                    .line(format!("✖ MCP server {name} failed: {error}"))?,
            }
        }
        ctx.ui.done_line(format!(
            "Catalog: {} mini tool and MCP tools → {}",
            tools,
            cache.display()
        ))?;
        if !signalled.is_empty() {
            let pids: Vec<String> = signalled.iter().map(u32::to_string).collect();
            ctx.ui.done_line(format!(
                "Asked running finch run to reload: pid {}",
                pids.join(", ")
            ))?;
        }
    }
    if failed > 0 {
        let err = CommandError::failed(format!(
            "{failed} mini tool{} failed to activate",
            if failed == 1 { "" } else { "s" }
        ))
        .with_code("activation_failed")
        .with_hint("each failure names its log file; `finch doctor <path>` checks a package");
        return Err(if ctx.ui.json {
            err.json_reported()
        } else {
            err
        });
    }
    if let Some(first) = refused.first() {
        let err = CommandError::needs_person(format!(
            "the kernel cannot confine {} here, and nobody agreed that {} unconfined",
            refused.join(", "),
            if refused.len() == 1 {
                "it runs"
            } else {
                "they run"
            }
        ))
        .with_code("unconfined_refused")
        .with_hint(format!(
            "agree with `finch reload --approve-unconfined {first}` or `finch sandbox grant {first} unconfined`; `finch sandbox status` says why"
        ));
        return Err(if ctx.ui.json {
            err.json_reported()
        } else {
            err
        });
    }
    Ok(())
}
