//! `finch policy check`: asks the permission gateway for its verdict on one call and prints it.
//! A query, not a run: it exits 0 whatever the decision. The logic is in `crate::host::policy`.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use serde_json::{Map, Value, json};

use crate::Context;
use crate::error::{CommandError, Result};
use crate::homes::absolutize;
use crate::host::policy::rules::project_root;
use crate::host::policy::{Mode, ToolCall, Verdict, Workspace, decide};
use crate::host::tool::ToolRef;

#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Print the gateway's decision for a call: allow, ask (a permission card) or deny
    Check(CheckArgs),
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Tool name: a built-in (`Bash`, `Read`, …), a dispatcher (`Memory`, `MiniTool`, …),
    /// `mcp__<server>__<tool>`, or `<mini-tool-id>_<tool>`
    #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::tool_names))]
    pub tool: String,
    /// The call's arguments as a JSON object, e.g. '{"command":"ls -la"}'
    #[arg(value_name = "JSON")]
    pub args: Option<String>,
    /// Permission mode of the run
    #[arg(long, value_enum, default_value_t = ModeArg::Ask)]
    pub mode: ModeArg,
    /// Working directory of the call (default: the current directory)
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// A directory the file tools may use besides the working directory (repeatable)
    #[arg(long = "trusted-dir", value_name = "DIR")]
    pub trusted_dirs: Vec<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Cards for everything outside autoAllow
    Ask,
    /// The fast lane runs without cards
    #[value(name = "acceptCalls")]
    AcceptCalls,
}

pub fn run(ctx: &Context, command: &PolicyCommand) -> Result<()> {
    match command {
        PolicyCommand::Check(args) => check(ctx, args),
    }
}

fn check(ctx: &Context, args: &CheckArgs) -> Result<()> {
    let call_args = parse_args(&args.tool, args.args.as_deref())?;
    let cwd = absolutize(args.cwd.as_deref().unwrap_or(&ctx.cwd), &ctx.cwd);
    if !cwd.is_dir() {
        return Err(CommandError::not_found(format!(
            "--cwd {}: no such directory",
            cwd.display()
        )));
    }
    let homes = ctx.homes()?;
    let home = ctx.env.home_dir();
    let project = project_root(&cwd, &homes.runtime);
    let rules = crate::host::assembly::load_rules(&project, &homes.runtime, home.as_deref())?;
    let workspace = Workspace {
        trusted: args
            .trusted_dirs
            .iter()
            .map(|d| absolutize(d, &ctx.cwd))
            .collect(),
        cwd,
        project,
        home,
        runtime: Some(homes.runtime.clone()),
    };
    let mode = match args.mode {
        ModeArg::Ask => Mode::Ask,
        ModeArg::AcceptCalls => Mode::AcceptCalls,
    };
    let tool = ToolRef::from_name(&args.tool);
    let facts = crate::host::policy::probe(&args.tool, &call_args, &workspace);
    let call = ToolCall {
        tool,
        args: &call_args,
        workspace: &workspace,
        facts: &facts,
    };
    let verdict = decide(&call, mode, &rules);
    if ctx.ui.json {
        return ctx.ui.json(&verdict_json(&tool, mode, &verdict));
    }
    ctx.ui.line(verdict.decision.as_str())?;
    ctx.ui.line(&verdict.reason)?;
    ctx.ui.detail(format!(
        "decided by: {}; risk: {}; layer: {}; allow for this session offered: {}",
        verdict.decided_by.as_str(),
        verdict.risk.as_str(),
        tool.layer.as_str(),
        if verdict.session_allow_offered {
            "yes"
        } else {
            "no"
        }
    ));
    for file in &rules.files {
        let state = if file.is_file() { "read" } else { "absent" };
        ctx.ui
            .detail(format!("rules file {} ({state})", file.display()));
    }
    if let Some(c) = &verdict.bash {
        for s in &c.segments {
            let kind = if s.read_only {
                "reads"
            } else {
                "not read-only"
            };
            ctx.ui
                .detail(format!("  segment `{}`: {kind} ({})", s.text, s.reason));
        }
    }
    Ok(())
}

/// The JSON arguments: absent means `{}`; anything but an object is a usage error.
fn parse_args(tool: &str, text: Option<&str>) -> Result<Value> {
    let Some(text) = text else {
        return Ok(Value::Object(Map::new()));
    };
    let hint = "pass one JSON object, e.g. finch policy check Bash '{\"command\":\"ls -la\"}'";
    let value: Value = serde_json::from_str(text).map_err(|e| {
        CommandError::usage(format!(
            "the arguments for `{tool}` are not valid JSON: {e}"
        ))
        .with_hint(hint)
    })?;
    if !value.is_object() {
        return Err(CommandError::usage(format!(
            "the arguments for `{tool}` must be a JSON object, not `{text}`"
        ))
        .with_hint(hint));
    }
    Ok(value)
}

fn verdict_json(tool: &ToolRef, mode: Mode, verdict: &Verdict) -> Value {
    let mut out = json!({
        "tool": tool.name,
        "layer": tool.layer.as_str(),
        "mode": mode.as_str(),
        "decision": verdict.decision.as_str(),
        "decidedBy": verdict.decided_by.as_str(),
        "reason": verdict.reason,
        "risk": verdict.risk.as_str(),
        "sessionAllowOffered": verdict.session_allow_offered,
    });
    let Some(map) = out.as_object_mut() else {
        return out;
    };
    if let Some(c) = &verdict.bash {
        map.insert("readOnly".into(), c.read_only.into());
        map.insert("destructive".into(), c.destructive.into());
        let segments: Vec<Value> = c
            .segments
            .iter()
            .map(|s| {
                json!({
                    "text": s.text,
                    "words": s.words,
                    "readOnly": s.read_only,
                    "reason": s.reason,
                })
            })
            .collect();
        map.insert("segments".into(), segments.into());
    }
    if !verdict.rules.is_empty() {
        let rules: Vec<Value> = verdict
            .rules
            .iter()
            .map(|r| {
                json!({
                    "list": r.list.as_str(),
                    "toolName": r.tool_name,
                    "key": r.key,
                    "file": r.file,
                    "index": r.index,
                })
            })
            .collect();
        map.insert("rules".into(), rules.into());
    }
    out
}
