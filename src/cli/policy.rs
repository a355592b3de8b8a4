//! `finch policy check`: asks the permission gateway for its verdict on one call and prints it.
//! A query, not a run: it exits 0 whatever the decision. The logic is in `crate::host::policy`.
//!
//! `--agent pi` takes pi's tool names and argument shapes (`read {path}`, `bash {command,
//! timeout}` in seconds, `edit {path, edits}`, …) and judges the finch built-in with the same
//! reach (`host::policy::pi`). `--session <id|file>` judges the call in that session: its
//! working directory (unless `--cwd` is given), the directories trusted for it
//! (`finch.trustedDir` entries) and what a person allowed for it — calls answered "Allow for this
//! session" (`finch.toolCall` with `decidedBy` `card:allowForSession`, and `finch.verdict`
//! entries of finch's pi extension with `answer` `allowForSession`). A call a card would ask for
//! that such an answer covers is reported as `allow`, decided by `sessionAllow`.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use serde_json::{Map, Value, json};

use crate::Context;
use crate::error::{CommandError, Result};
use crate::homes::absolutize;
use crate::host::policy::pi;
use crate::host::policy::rules::project_root;
use crate::host::policy::{DecidedBy, Decision, Mode, ToolCall, Verdict, Wall, Workspace, decide};
use crate::host::session::{TOOL_CALL_ENTRY, TRUSTED_DIR_ENTRY};
use crate::host::tool::ToolRef;
use crate::sandbox::Confine;
use crate::session::Transcript;

/// Why pi's own `bash` never takes the fast lane: finch judges it, pi runs it.
const PI_RUNS_BASH: &str = "pi runs its own bash, outside finch's sandbox (finch's pi extension passes --confine and runs it inside)";

/// The custom entry type finch's pi extension records each verdict in.
pub const VERDICT_ENTRY: &str = "finch.verdict";

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
    /// Whose tool names and argument shapes the call has: finch's (`Read {file_path}`) or pi's
    /// (`read {path}`, `bash {command, timeout in seconds}`, `edit {path, edits}`, `write`,
    /// `grep`, `find`, `ls`)
    #[arg(long, value_enum, default_value_t = AgentArg::Finch)]
    pub agent: AgentArg,
    /// Judge the call in this session: its working directory (unless --cwd is given), its
    /// trusted directories and what was allowed for it (a session id or unique prefix, or a
    /// transcript file)
    #[arg(long, value_name = "ID|FILE")]
    pub session: Option<String>,
    /// The caller runs an allowed Bash command confined as the verdict's `sandbox` says
    /// (`finch sandbox run --profile read-only --minimal-env …`): with `--agent pi`, pi's
    /// read-only `bash` may then take the fast lane (finch's pi extension passes it)
    #[arg(long)]
    pub confine: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AgentArg {
    /// finch's tool names (`Read`, `Bash`, …)
    Finch,
    /// pi's built-in tool names (`read`, `bash`, `edit`, `write`, `grep`, `find`, `ls`)
    Pi,
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

/// What a session brings to a check: where it runs, what it trusts, what a person allowed.
struct SessionFacts {
    id: String,
    cwd: Option<PathBuf>,
    trusted: Vec<PathBuf>,
    /// Session keys (`host::session_key`) answered "Allow for this session".
    allowed: Vec<String>,
}

fn session_facts(ctx: &Context, query: &str) -> Result<SessionFacts> {
    let path = if query.contains('/') || query.ends_with(".jsonl") {
        let path = absolutize(std::path::Path::new(query), &ctx.cwd);
        if !path.is_file() {
            return Err(CommandError::not_found(format!(
                "--session {query}: no such transcript file"
            )));
        }
        path
    } else {
        crate::session::resolve(ctx.homes()?, query)?.path
    };
    let read = Transcript::read(&path)?;
    for w in &read.warnings {
        ctx.ui.warn(w);
    }
    let mut facts = SessionFacts {
        id: read.header.id.clone(),
        cwd: read.header.cwd.as_ref().map(PathBuf::from),
        trusted: Vec::new(),
        allowed: Vec::new(),
    };
    for entry in &read.entries {
        if entry.get("type").and_then(Value::as_str) != Some("custom") {
            continue;
        }
        let data = entry.get("data").unwrap_or(&Value::Null);
        let text = |k: &str| data.get(k).and_then(Value::as_str);
        match entry.get("customType").and_then(Value::as_str) {
            Some(TRUSTED_DIR_ENTRY) => {
                if let Some(p) = text("path") {
                    facts.trusted.push(PathBuf::from(p));
                }
            }
            Some(TOOL_CALL_ENTRY) if text("decidedBy") == Some("card:allowForSession") => {
                if let Some(tool) = text("tool") {
                    let args = data.get("arguments").unwrap_or(&Value::Null);
                    facts.allowed.push(crate::host::session_key(tool, args));
                }
            }
            Some(VERDICT_ENTRY) if text("answer") == Some("allowForSession") => {
                if let Some(key) = text("sessionKey") {
                    facts.allowed.push(key.to_string());
                }
            }
            _ => {}
        }
    }
    Ok(facts)
}

fn check(ctx: &Context, args: &CheckArgs) -> Result<()> {
    let given_args = parse_args(&args.tool, args.args.as_deref())?;
    // The call as the gateway judges it: pi's built-ins become finch's.
    let (judged_tool, call_args) = match args.agent {
        AgentArg::Pi => pi::translate(&args.tool, &given_args)
            .map_or((args.tool.clone(), given_args.clone()), |(t, a)| {
                (t.to_string(), a)
            }),
        AgentArg::Finch => (args.tool.clone(), given_args.clone()),
    };
    let session = args
        .session
        .as_deref()
        .map(|q| session_facts(ctx, q))
        .transpose()?;
    let session_cwd = session.as_ref().and_then(|s| s.cwd.clone());
    let cwd = match (&args.cwd, session_cwd) {
        (Some(dir), _) => absolutize(dir, &ctx.cwd),
        (None, Some(dir)) => dir,
        (None, None) => ctx.cwd.clone(),
    };
    if !cwd.is_dir() {
        let whose = if args.cwd.is_some() {
            "--cwd"
        } else {
            "the session's working directory"
        };
        return Err(CommandError::not_found(format!(
            "{whose} {}: no such directory",
            cwd.display()
        )));
    }
    let homes = ctx.homes()?;
    let home = ctx.env.home_dir();
    let project = project_root(&cwd, &homes.runtime);
    let rules = crate::host::assembly::load_rules(&project, &homes.runtime, home.as_deref())?;
    let mut trusted: Vec<PathBuf> = args
        .trusted_dirs
        .iter()
        .map(|d| absolutize(d, &ctx.cwd))
        .collect();
    if let Some(s) = &session {
        trusted.extend(s.trusted.iter().cloned());
    }
    let workspace = Workspace {
        trusted,
        cwd,
        project,
        home,
        runtime: Some(homes.runtime.clone()),
    };
    let mode = match args.mode {
        ModeArg::Ask => Mode::Ask,
        ModeArg::AcceptCalls => Mode::AcceptCalls,
    };
    let tool = ToolRef::from_name(&judged_tool);
    let facts = crate::host::policy::probe(&judged_tool, &call_args, &workspace);
    let call = ToolCall {
        tool,
        args: &call_args,
        workspace: &workspace,
        facts: &facts,
        wall: match args.agent {
            AgentArg::Pi if !args.confine => Wall::Missing(PI_RUNS_BASH),
            _ => crate::host::builtins::bash::wall(&ctx.settings()?.sandbox),
        },
    };
    let mut verdict = decide(&call, mode, &rules);
    let key = crate::host::session_key(&judged_tool, &call_args);
    if verdict.decision == Decision::Ask
        && verdict.session_allow_offered
        && let Some(s) = &session
        && s.allowed.contains(&key)
    {
        verdict.decision = Decision::Allow;
        verdict.decided_by = crate::host::policy::DecidedBy::SessionAllow;
        verdict.reason = format!(
            "allowed for this session: a person answered \"Allow for this session\" to this \
             call in session {} (without that: {})",
            s.id, verdict.reason
        );
        verdict.session_allow_offered = false;
    }
    // Where the Bash command would run: pi runs its own, so only finch's are confined.
    let sandbox =
        (verdict.bash.is_some() && verdict.decision != Decision::Deny).then(|| match args.agent {
            AgentArg::Pi if !args.confine => Ok(Confine::Unconfined),
            // pi runs what a person approved itself; only its fast lane is confined.
            AgentArg::Pi if verdict.decided_by != DecidedBy::FastLane => Ok(Confine::Unconfined),
            AgentArg::Pi => Ok(Confine::ReadOnly),
            AgentArg::Finch => ctx
                .settings()
                .map(|s| crate::host::builtins::bash::verdict_confine(&verdict, &s.sandbox)),
        });
    let sandbox = sandbox.transpose()?;
    let pi_name = args.agent == AgentArg::Pi && judged_tool != args.tool;
    let pi_hint = (args.agent == AgentArg::Finch && pi::PI_BUILTINS.contains(&args.tool.as_str()))
        .then(|| {
            format!(
                "`{}` is one of pi's tool names: add --agent pi to judge it as pi's built-in",
                args.tool
            )
        });
    if ctx.ui.json {
        let mut out = verdict_json(&tool, mode, &verdict);
        if let Some(map) = out.as_object_mut() {
            if let Some(confine) = sandbox {
                map.insert("sandbox".into(), confine.as_str().into());
            }
            if verdict.session_allow_offered {
                map.insert("sessionKey".into(), key.into());
            }
            if pi_name {
                map.insert("tool".into(), args.tool.clone().into());
                map.insert("finchTool".into(), judged_tool.clone().into());
                map.insert("finchArguments".into(), call_args.clone());
            }
            if let Some(s) = &session {
                map.insert("session".into(), s.id.clone().into());
            }
            if let Some(hint) = &pi_hint {
                map.insert("hint".into(), hint.clone().into());
            }
        }
        return ctx.ui.json(&out);
    }
    ctx.ui.line(verdict.decision.as_str())?;
    ctx.ui.line(&verdict.reason)?;
    // stdout stays the two lines scripts read; where a Bash call would run goes to stderr.
    if let Some(confine) = sandbox {
        ctx.ui.status(format!("sandbox: {}", confine.describe()));
    }
    if pi_name {
        ctx.ui.detail(format!(
            "pi's `{}` judged as finch's `{judged_tool}` {call_args}",
            args.tool
        ));
    } else if let Some(hint) = &pi_hint {
        ctx.ui.status(format!("hint: {hint}"));
    }
    if let Some(s) = &session {
        ctx.ui.detail(format!(
            "session {}: {} trusted director{}, {} call{} allowed for the session",
            s.id,
            s.trusted.len(),
            if s.trusted.len() == 1 { "y" } else { "ies" },
            s.allowed.len(),
            if s.allowed.len() == 1 { "" } else { "s" },
        ));
    }
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
