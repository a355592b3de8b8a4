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
use crate::host::policy::rules::{RuleList, project_root};
use crate::host::policy::{
    DecidedBy, Decision, Mode, Target, ToolCall, Verdict, Wall, Workspace, decide_planned,
    session_allows, session_key, trust,
};
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
    /// Trust a project's rules file (.finch/permissions.json): its allow rules count only then
    Trust(TrustArgs),
}

#[derive(Debug, Args)]
pub struct TrustArgs {
    /// The project: its git top level, or the directory itself outside a git work tree
    /// (default: the current directory)
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// List the trusted rules files and whether each still has the trusted contents
    #[arg(long, conflicts_with_all = ["dir", "revoke"])]
    pub list: bool,
    /// Stop trusting the project's rules file
    #[arg(long)]
    pub revoke: bool,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Tool name: a built-in (`Bash`, `Read`, …), a dispatcher (`Memory`, `MiniTool`, …),
    /// `mcp__<server>__<tool>`, or `<mini-tool-id>_<tool>`
    #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::tool_names))]
    pub tool: String,
    /// The call's arguments: one JSON object, e.g. '{"command":"ls -la"}', or key=value pairs
    /// as `tool call` takes them (command="ls -la")
    #[arg(value_name = "ARGS")]
    pub args: Vec<String>,
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
        PolicyCommand::Trust(args) => trust(ctx, args),
    }
}

/// `finch policy trust [DIR] [--list | --revoke]`.
fn trust(ctx: &Context, args: &TrustArgs) -> Result<()> {
    let homes = ctx.homes()?;
    let timeout = ctx.settings()?.lock_timeout;
    if args.list {
        return trust_list(ctx, &homes.runtime);
    }
    let dir = absolutize(args.dir.as_deref().unwrap_or(&ctx.cwd), &ctx.cwd);
    if !dir.is_dir() {
        return Err(CommandError::not_found(format!(
            "{}: no such directory",
            dir.display()
        )));
    }
    let project = project_root(&crate::host::canonical_cwd(&dir), &homes.runtime);
    let Some(file) = crate::host::policy::rules::rules_files(&project, &homes.runtime)
        .into_iter()
        .next()
        .filter(|f| !f.starts_with(&homes.runtime))
    else {
        return Err(CommandError::failed(format!(
            "{} has no project rules file of its own: its .finch is the runtime home, whose \
             config/permissions.json is trusted as it is",
            project.display()
        )));
    };
    if args.revoke {
        let revoked = trust::revoke(&homes.runtime, &file, timeout)?;
        if !revoked {
            return Err(
                CommandError::not_found(format!("{} is not trusted", file.display()))
                    .with_hint("run `finch policy trust --list` to see the trusted files"),
            );
        }
        if ctx.ui.json {
            return ctx
                .ui
                .json(&json!({"file": file, "project": project, "trusted": false}));
        }
        return ctx
            .ui
            .line(format!("✓ No longer trusted: {}", file.display()));
    }
    let bytes = match crate::store::read_regular(&file) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(CommandError::not_found(format!(
                "{} has no rules file: {} does not exist",
                project.display(),
                file.display()
            ))
            .with_hint("the project is the git top level of DIR, or DIR itself outside git"));
        }
        Err(e) => {
            return Err(CommandError::failed(format!(
                "cannot read {}: {e}",
                file.display()
            )));
        }
    };
    // Only a file that parses is worth trusting: the error names the line and column.
    let text = String::from_utf8_lossy(&bytes);
    let rules = crate::host::policy::rules::parse(&text, &file, ctx.env.home_dir().as_deref())
        .map_err(|e| CommandError::failed(e.to_string()).with_code("corrupt_state"))?;
    let sha256 = trust::sha256_hex(&bytes);
    // As Claude Code's folder-trust dialog: name what trusting turns on, then ask (a terminal)
    // or take `--yes` (a pipe). Contents already trusted turn nothing new on.
    let allows: Vec<String> = rules
        .iter()
        .filter(|r| r.list == RuleList::Allow)
        .map(allow_in_words)
        .collect();
    let already = trust::is_trusted(&trust::list(&homes.runtime)?, &file, &sha256);
    if !already && !allows.is_empty() {
        if !ctx.ui.json {
            let mut words = vec![format!(
                "Trusting {} lets the model, without asking:",
                file.display()
            )];
            words.extend(allows.iter().map(|a| format!("  • {a}")));
            for line in words {
                ctx.ui.status(line);
            }
        }
        if !ctx.ui.confirm(&format!("Trust {}?", file.display()))? {
            return Err(CommandError::failed(
                "not trusted: nothing was recorded, and its allow rules stay ignored",
            ));
        }
    }
    let now = ctx
        .now()?
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let granted = trust::grant(&homes.runtime, &file, &sha256, &now, timeout)?;
    if ctx.ui.json {
        return ctx.ui.json(&json!({
            "file": file,
            "project": project,
            "sha256": sha256,
            "trusted": true,
            "changed": granted != trust::Granted::Already,
            "allows": allows,
        }));
    }
    let what = match granted {
        trust::Granted::New => "Trusted",
        trust::Granted::Renewed => "Trusted the new contents of",
        trust::Granted::Already => "Already trusted",
    };
    ctx.ui.line(format!("✓ {what} {}", file.display()))?;
    ctx.ui.detail(format!(
        "sha256 {sha256}; recorded in {}",
        trust::trust_file(&homes.runtime).display()
    ));
    Ok(())
}

/// What an allow rule lets the model do without a card, in words a person reads.
fn allow_in_words(rule: &crate::host::policy::rules::Rule) -> String {
    let key = rule.key.trim();
    let any = rule.key_is_any();
    let what = match rule.tool_name.as_str() {
        "*" if any => "call any tool with any arguments (every right of your user)".to_string(),
        "*" => format!("call any tool whose call matches `{key}`"),
        "Bash" if any => "run any shell command".to_string(),
        "Bash" => format!("run shell commands that start with `{key}`"),
        "Read" | "Grep" | "Glob" if any => "read any file".to_string(),
        "Read" | "Grep" | "Glob" => format!("read files matching `{key}`"),
        "Write" | "Edit" if any => "write and change any file".to_string(),
        "Write" | "Edit" => format!("write and change files matching `{key}`"),
        tool if any => format!("call {tool} with any arguments"),
        tool => format!("call {tool} when its call matches `{key}`"),
    };
    format!("{what} ({} {key})", rule.tool_name)
}

/// How many hex digits of a sha256 a listing shows, as `git log --oneline` shortens a commit:
/// enough to tell files apart, short enough not to wrap; `--json` keeps all 64.
const SHORT_SHA: usize = 12;

/// The state of each trusted file now: `trusted` (same contents), `changed`, `missing`.
fn trust_list(ctx: &Context, runtime: &std::path::Path) -> Result<()> {
    let list = trust::list(runtime)?;
    let rows: Vec<(String, &trust::Trusted)> = list
        .iter()
        .map(|t| {
            let state = match crate::store::read_regular(&t.file) {
                Ok(bytes) if trust::sha256_hex(&bytes) == t.sha256 => "trusted",
                Ok(_) => "changed",
                Err(_) => "missing",
            };
            (state.to_string(), t)
        })
        .collect();
    if ctx.ui.json {
        let items: Vec<Value> = rows
            .iter()
            .map(|(state, t)| {
                json!({"file": t.file, "sha256": t.sha256, "trustedAt": t.trusted_at, "state": state})
            })
            .collect();
        return ctx.ui.json(&Value::Array(items));
    }
    if rows.is_empty() {
        ctx.ui.status(format!(
            "No trusted rules files in {}",
            trust::trust_file(runtime).display()
        ));
        return Ok(());
    }
    let lines: Vec<String> = rows
        .iter()
        .map(|(state, t)| {
            format!(
                "{state}\t{}\t{}\t{}",
                t.file.display(),
                t.sha256.get(..SHORT_SHA).unwrap_or(&t.sha256),
                t.trusted_at
            )
        })
        .collect();
    ctx.ui.lines(lines)
}

/// What a session brings to a check: where it runs, what it trusts, what a person allowed.
struct SessionFacts {
    id: String,
    cwd: Option<PathBuf>,
    trusted: Vec<PathBuf>,
    /// Session keys (`host::session_key`) answered "Allow for this session".
    allowed: Vec<String>,
    /// Calls answered "Allow for this session" (tool, arguments): their keys depend on the
    /// working directory, known only once the check's workspace is.
    answered: Vec<(String, Value)>,
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
        answered: Vec::new(),
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
                    let args = data.get("arguments").cloned().unwrap_or(Value::Null);
                    facts.answered.push((tool.to_string(), args));
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
    let given_args = match args.args.as_slice() {
        [] => Value::Object(Map::new()),
        // One word that is no key=value: the JSON object (or the error that says it is not).
        [one] if one.trim_start().starts_with('{') || !one.contains('=') => {
            parse_args(&args.tool, one)?
        }
        words => {
            let catalog = crate::cli::complete::known_tools(true);
            let schema = match catalog.lookup(&args.tool) {
                crate::host::catalog::Lookup::Found(i) => Some(&catalog.get(i).def.input_schema),
                _ => None,
            };
            crate::host::frontend::console::key_values(&args.tool, words, schema)?
        }
    };
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
    // The command is classified once, for the facts and the verdict.
    let target = Target::of(&tool, &call_args, &workspace);
    let facts = crate::host::policy::probe_planned(&judged_tool, &call_args, &target, &workspace);
    let call = ToolCall {
        tool,
        args: &call_args,
        workspace: &workspace,
        facts: &facts,
        wall: match args.agent {
            AgentArg::Pi if !args.confine => Wall::Missing(PI_RUNS_BASH),
            _ => crate::host::call::confine::fast_lane_wall(&ctx.settings()?.sandbox),
        },
    };
    let mut verdict = decide_planned(&call, &target, mode, &rules);
    let key = session_key(&tool, &target);
    if verdict.decision == Decision::Ask
        && verdict.session_allow_offered
        && let Some(s) = &session
        && session_allows(
            s.allowed.iter().chain(
                &s.answered
                    .iter()
                    .map(|(tool, args)| {
                        let tool = ToolRef::from_name(tool);
                        session_key(&tool, &Target::of(&tool, args, &workspace))
                    })
                    .collect::<Vec<_>>(),
            ),
            &key,
        )
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
            AgentArg::Pi
                if !matches!(
                    verdict.decided_by,
                    DecidedBy::FastLane | DecidedBy::SandboxFirst
                ) =>
            {
                Ok(Confine::Unconfined)
            }
            AgentArg::Pi => Ok(Confine::ReadOnly),
            AgentArg::Finch => ctx
                .settings()
                .map(|s| crate::host::call::confine::verdict_confine(&verdict, &s.sandbox)),
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
            if let Some(u) = &rules.untrusted {
                map.insert(
                    "untrustedRules".into(),
                    json!({
                        "file": u.file,
                        "sha256": u.sha256,
                        "ignoredAllowRules": u.ignored_allow,
                        "changed": u.changed,
                        "trustCommand": format!("finch policy trust {}", u.project.display()),
                    }),
                );
            }
        }
        return ctx.ui.json(&out);
    }
    if let Some(u) = rules.untrusted.as_ref().filter(|u| u.ignored_allow > 0) {
        ctx.ui.warn(u.warning());
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
            s.allowed.len() + s.answered.len(),
            if s.allowed.len() + s.answered.len() == 1 {
                ""
            } else {
                "s"
            },
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
        let state = match &rules.untrusted {
            Some(u) if &u.file == file => "read, untrusted: allow rules ignored",
            _ if file.is_file() => "read",
            _ => "absent",
        };
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
fn parse_args(tool: &str, text: &str) -> Result<Value> {
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
