//! The permission gateway of SPEC §8.3–§8.4: one pure function, `decide`, turns a tool call,
//! the permission mode and the rules into allow, ask (a permission card) or deny, with the
//! reason and the card's risk. It reads nothing and runs nothing; the rules files are loaded by
//! the caller (`rules`), Bash commands are classified by `bash`.
//!
//! Order of the checks, first match wins:
//! 1. a `deny` rule reaches the call → deny;
//! 2. autoAllow (`AskUserQuestion`, `TodoWrite`, `Skill`, the dispatchers except `MiniTool`)
//!    → allow;
//! 3. an `ask` rule reaches the call → card;
//! 4. mini tool tools, MCP tools, the `MiniTool` dispatcher, destructive Bash → card, whatever
//!    the mode and the allow rules;
//! 5. the fast lane (`Read`, `Write`, `Edit`, `Grep`, `Glob`, `WebSearch`, `WebFetch`,
//!    read-only Bash) → allow in `acceptCalls` mode; the file tools only for paths inside the
//!    working directory or a trusted directory;
//! 6. allow rules → allow: for Bash only when they cover every segment of the command;
//! 7. otherwise → card.
//!
//! `ask` rules sit after autoAllow because §8.3 runs autoAllow tools "at once": only a `deny`
//! rule stops them.
//!
//! Three steps close ways around the gateway (issues 13 and 28), all right after the deny
//! rules:
//! - Trust is a person's decision: `Session` `extendDir` and `attach` of a path outside the
//!   working directory and the trusted directories get a card (a documented deviation from
//!   "Session is autoAllow"; searching and renaming stay autoAllow). Without it a model could
//!   trust `/` and then read and write anywhere through the fast lane.
//! - An auto-allowed dispatcher may not set more than the session has (`dispatch`): a
//!   scheduled task's mode or directory, a space's directory.
//! - Protected paths: `Write` and `Edit` of anything finch, git, a shell or the user's session
//!   later runs or obeys get a card in every mode, no allow rule spares it and "Allow for this
//!   session" is not offered: the whole runtime home (not only `config/`:
//!   `extension-data/mcp/servers.json` and `extensions/` hold commands finch runs), the
//!   directories `core.hooksPath` names (found by `probe`), and the rows of the one table in
//!   `protected` (`.finch`, `.git`, hook directories, shell start-up files, `~/.ssh`, …),
//!   matched without regard to case.
//!
//! A HIGH-risk card never offers "Allow for this session" (issue 28).
//!
//! The gateway reads no file; what the disk says about a call's paths — where a link really
//! leads, whether a regular file has more than one hard link — comes in `ToolCall::facts`, found
//! by `probe` just before. A path whose real target lies outside, or a regular file with more
//! than one link (its other name may be anywhere, `/etc/shadow` included), counts as outside.

pub mod answers;
pub mod bash;
pub mod destructive;
pub mod dispatch;
mod intent;
mod paths;
pub mod pi;
pub mod probe;
pub mod protected;
pub mod rules;
mod shell;
#[cfg(test)]
mod tests;
pub mod trust;

use std::path::PathBuf;

use serde_json::Value;

use crate::host::tool::{Layer, Risk, ToolRef};

pub use answers::{session_allows, session_key, session_scope};
pub use bash::{Classification, Segment, classify};
use paths::file_step;
pub use paths::{Workspace, protected, protected_paths_below, session_trust_path};
pub(crate) use paths::{file_paths, resolve};
pub use probe::{PathFact, PathFacts, StoredTask, probe, probe_planned, real_path};
pub use rules::{Rule, RuleList, Rules, RulesError, Subject};
pub(crate) use shell::bash_paths;
use shell::{FastLane, bash_step, read_paths_outside};

/// The permission mode of a run (SPEC §8.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Cards for everything outside autoAllow (default for interactive runs).
    #[default]
    Ask,
    /// The fast lane runs without cards (default for scheduled runs).
    AcceptCalls,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Ask => "ask",
            Mode::AcceptCalls => "acceptCalls",
        }
    }
}

/// The outcome of the gateway.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Run the call.
    Allow,
    /// Show a permission card first.
    Ask,
    /// Refuse without a card.
    Deny,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Ask => "ask",
            Decision::Deny => "deny",
        }
    }
}

/// Which step of the gateway decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecidedBy {
    /// A `deny` rule.
    DenyRule,
    /// The autoAllow set.
    AutoAllow,
    /// An `ask` rule.
    AskRule,
    /// A tool or command that always gets a card (mini tool, MCP, `MiniTool`, destructive or
    /// uncovered non-read-only Bash).
    CardRequired,
    /// The `acceptCalls` fast lane.
    FastLane,
    /// `allow` rules.
    AllowRule,
    /// A file tool's path outside the working directory and the trusted directories.
    OutsideWorkspace,
    /// A Write or Edit of a protected path (`protected`).
    ProtectedPath,
    /// A fast-lane tool in `ask` mode with no allow rule.
    AskMode,
    /// An auto-allowed dispatcher's action that would give the model more than the session
    /// has: a task's mode or directory, a space's directory (`dispatch`).
    DispatcherWidens,
    /// A card a person already answered "Allow for this session" (never from `decide`: the
    /// host and `finch policy check --session` apply a session's answers after it).
    SessionAllow,
    /// A read-only Bash command in `acceptCalls` whose wall does not hold here (`Wall`).
    NoSandbox,
    /// A read-only Bash command the model asked a person for (`ESCALATE_ARG`).
    Escalated,
    /// A Bash command in `acceptCalls` the classifier cannot prove read-only but that means
    /// to change nothing (`intent`): it runs first in the read-only sandbox, and a card comes
    /// only when the wall refuses it (the escalation).
    SandboxFirst,
}

impl DecidedBy {
    pub fn as_str(self) -> &'static str {
        match self {
            DecidedBy::DenyRule => "denyRule",
            DecidedBy::AutoAllow => "autoAllow",
            DecidedBy::AskRule => "askRule",
            DecidedBy::CardRequired => "cardRequired",
            DecidedBy::FastLane => "fastLane",
            DecidedBy::AllowRule => "allowRule",
            DecidedBy::OutsideWorkspace => "outsideWorkspace",
            DecidedBy::ProtectedPath => "protectedPath",
            DecidedBy::AskMode => "askMode",
            DecidedBy::SessionAllow => "sessionAllow",
            DecidedBy::NoSandbox => "noSandbox",
            DecidedBy::Escalated => "escalated",
            DecidedBy::SandboxFirst => "sandboxFirst",
            DecidedBy::DispatcherWidens => "dispatcherWidens",
        }
    }
}

/// The gateway's answer for one call.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub decision: Decision,
    pub decided_by: DecidedBy,
    /// One line for people and models.
    pub reason: String,
    /// The risk a card shows.
    pub risk: Risk,
    /// The card may offer "Allow for this session" (never for mini tool tools, MCP tools,
    /// `MiniTool` or destructive commands; false when there is no card).
    pub session_allow_offered: bool,
    /// The rules that decided (deny, ask, or the allow rules covering the call).
    pub rules: Vec<Rule>,
    /// The classification of a Bash command.
    pub bash: Option<Classification>,
}

/// One call to decide on.
#[derive(Debug, Clone, Copy)]
pub struct ToolCall<'a> {
    pub tool: ToolRef<'a>,
    /// The call's arguments (a JSON object).
    pub args: &'a Value,
    pub workspace: &'a Workspace,
    /// What the disk says about the call's paths (`probe`); empty when nobody looked.
    pub facts: &'a PathFacts,
    /// Whether the kernel holds a fast-lane Bash command to read-only.
    pub wall: Wall,
}

/// Whether the kernel wall (`crate::sandbox`, read-only profile) holds what the fast lane
/// lets through without a card. Without it no Bash call skips a card (SPEC §8.5a: fail closed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wall {
    Holds,
    /// Why not: the kernel cannot enforce it here, or `[sandbox] bash = "off"`.
    Missing(&'static str),
}

/// The Bash argument with which the model asks for a person instead of the read-only fast lane
/// (after the wall stopped a command): the call then takes a card and, approved, runs in the
/// approved profile.
pub const ESCALATE_ARG: &str = "escalate";

/// The shell tool, whose calls take the shell lane (`shell`) and run in the kernel wall: the
/// one place its name is spelled (`builtins::bash::NAME` is this).
pub const SHELL_TOOL: &str = "Bash";

/// The auto-allowed tools of §8.3 step 2.
pub const AUTO_ALLOW: &[&str] = &[
    "AskUserQuestion",
    "TodoWrite",
    "Skill",
    "Memory",
    "Skills",
    "Session",
    "AppCall",
    "ToolSearch",
    "Schedule",
];

/// The dispatcher that installs and runs mini tools: a card on every call.
pub const MINITOOL_DISPATCHER: &str = "MiniTool";

/// How the gateway treats a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lane {
    AutoAllow,
    /// `Read`, `Write`, `Edit`, `Grep`, `Glob`.
    File,
    /// `WebSearch`, `WebFetch`.
    Web,
    Bash,
    /// Mini tool tools, MCP tools, `MiniTool`, and any name the policy does not know.
    AlwaysCard,
}

fn lane(tool: &ToolRef) -> Lane {
    match tool.layer {
        Layer::MiniTool | Layer::Mcp => Lane::AlwaysCard,
        Layer::Builtin | Layer::Suite => match tool.name {
            MINITOOL_DISPATCHER => Lane::AlwaysCard,
            n if AUTO_ALLOW.contains(&n) => Lane::AutoAllow,
            "Read" | "Write" | "Edit" | "Grep" | "Glob" => Lane::File,
            "WebSearch" | "WebFetch" => Lane::Web,
            SHELL_TOOL => Lane::Bash,
            _ => Lane::AlwaysCard,
        },
    }
}

/// Whether every call of `tool` gets a card, whatever the mode and the allow rules (step 4:
/// mini tool and MCP tools, `MiniTool`, unknown names). What `hints::of` must never call
/// read-only.
pub fn always_cards(tool: &ToolRef) -> bool {
    lane(tool) == Lane::AlwaysCard
}

/// The subject of a call: what rule keys are matched against, found once per call (the call
/// pipeline's plan keeps it and hands it to the tool: a shell command is parsed and classified
/// once).
#[derive(Debug, Clone)]
pub enum Target {
    /// A shell command and its classification.
    Command(String, Classification),
    /// Absolute paths (a file tool may touch more than one), or why none could be read.
    Paths(Result<Vec<PathBuf>, String>),
    Host(Option<String>),
    Nothing,
}

impl Target {
    /// What a call of `tool` with `args` acts on: the command of a shell tool (classified), the
    /// paths of a file tool (resolved in `workspace`), the path a `Session` call would trust,
    /// the host of a `WebFetch`.
    pub fn of(tool: &ToolRef, args: &Value, workspace: &Workspace) -> Target {
        let name = tool.name;
        match lane(tool) {
            Lane::Bash => {
                let command = args
                    .get("command")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                let classification = classify(&command);
                Target::Command(command, classification)
            }
            Lane::File => Target::Paths(file_paths(name, args, workspace)),
            Lane::AutoAllow if name == "Session" => match session_trust_path(args) {
                Some(raw) => Target::Paths(resolve(raw, workspace).map(|p| vec![p])),
                None => Target::Nothing,
            },
            Lane::Web if name == "WebFetch" => {
                Target::Host(args.get("url").and_then(Value::as_str).and_then(url_host))
            }
            _ => Target::Nothing,
        }
    }

    /// The classification of a shell command.
    pub fn classification(&self) -> Option<&Classification> {
        match self {
            Target::Command(_, c) => Some(c),
            _ => None,
        }
    }
}

/// Decides one call. Pure: no file, no process, no clock.
pub fn decide(call: &ToolCall, mode: Mode, rules: &Rules) -> Verdict {
    let target = Target::of(&call.tool, call.args, call.workspace);
    decide_planned(call, &target, mode, rules)
}

/// `decide`, for a call whose `Target` is already known (`Target::of`).
pub fn decide_planned(call: &ToolCall, target: &Target, mode: Mode, rules: &Rules) -> Verdict {
    let name = call.tool.name;
    let lane = lane(&call.tool);
    let subjects = subjects(target, call.workspace);
    let protected_path = match (target, name) {
        (Target::Paths(Ok(paths)), "Write" | "Edit") => paths.iter().find_map(|p| {
            let real = call.facts.get(p).and_then(|f| f.real.as_deref());
            protected(p, call.workspace, call.facts)
                .or_else(|| real.and_then(|r| protected(r, call.workspace, call.facts)))
                .map(|why| (p.clone(), why))
        }),
        _ => None,
    };
    let risk = if protected_path.is_some() {
        Risk::High
    } else {
        risk(call, lane, target)
    };
    let bash = match target {
        Target::Command(_, c) => Some(c.clone()),
        _ => None,
    };
    let verdict = |decision, decided_by, reason: String, rules: Vec<Rule>| {
        let destructive = bash.as_ref().is_some_and(|c| c.destructive);
        Verdict {
            decision,
            decided_by,
            reason,
            risk,
            session_allow_offered: decision == Decision::Ask
                && lane != Lane::AlwaysCard
                && lane != Lane::AutoAllow
                && decided_by != DecidedBy::ProtectedPath
                && !destructive
                && risk != Risk::High,
            rules,
            bash: bash.clone(),
        }
    };
    // A deny or ask rule reaches a call when it reaches any of its subjects.
    let reaching = |list: RuleList| {
        rules
            .iter(list)
            .find(|r| r.names(name) && subjects.iter().any(|s| r.reaches(s)))
            .cloned()
    };

    // 1. deny rules.
    if let Some(rule) = reaching(RuleList::Deny) {
        return verdict(
            Decision::Deny,
            DecidedBy::DenyRule,
            format!("refused by the {rule}"),
            vec![rule],
        );
    }
    // Trust is a person's decision: Session extendDir/attach outside the workspace.
    if lane == Lane::AutoAllow
        && let Target::Paths(paths) = target
    {
        let outside = match paths {
            Ok(paths) => paths
                .iter()
                .find(|p| !call.workspace.really_contains(p, call.facts))
                .map(|p| {
                    format!(
                        "{} is outside the working directory and the trusted directories",
                        p.display()
                    )
                }),
            Err(why) => Some(why.clone()),
        };
        if let Some(why) = outside {
            return verdict(
                Decision::Ask,
                DecidedBy::OutsideWorkspace,
                format!("`{name}` would trust or attach a path a person has not trusted: {why}"),
                Vec::new(),
            );
        }
    }
    // An auto-allowed dispatcher may not set more than the session has.
    if lane == Lane::AutoAllow
        && let Some(why) = dispatch::widens(name, call.args, call.workspace, call.facts, mode)
    {
        return verdict(
            Decision::Ask,
            DecidedBy::DispatcherWidens,
            format!("`{name}` would give the model more than this session has: {why}"),
            Vec::new(),
        );
    }
    // Protected paths: a card in every mode, whatever the allow rules say.
    if let Some((path, why)) = &protected_path {
        return verdict(
            Decision::Ask,
            DecidedBy::ProtectedPath,
            format!(
                "{} is protected ({why}); it always gets a card",
                path.display()
            ),
            Vec::new(),
        );
    }
    // 2. autoAllow.
    if lane == Lane::AutoAllow {
        return verdict(
            Decision::Allow,
            DecidedBy::AutoAllow,
            format!("`{name}` runs without a card (autoAllow)"),
            Vec::new(),
        );
    }
    // 3. ask rules.
    if let Some(rule) = reaching(RuleList::Ask) {
        return verdict(
            Decision::Ask,
            DecidedBy::AskRule,
            format!("the {rule} asks for a card"),
            vec![rule],
        );
    }
    match (lane, target) {
        // 4. always a card.
        (Lane::AlwaysCard, _) => verdict(
            Decision::Ask,
            DecidedBy::CardRequired,
            always_card_reason(&call.tool),
            Vec::new(),
        ),
        (Lane::Bash, Target::Command(command, c)) => {
            let outside = read_paths_outside(c, call.workspace, call.facts);
            let escalate = call
                .args
                .get(ESCALATE_ARG)
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let lane = FastLane {
                mode,
                wall: call.wall,
                escalate,
            };
            let (decision, decided_by, reason, used) =
                bash_step(command, c, outside.as_deref(), lane, rules);
            verdict(decision, decided_by, reason, used)
        }
        (Lane::File, Target::Paths(paths)) => {
            let (decision, decided_by, reason, used) = file_step(
                name,
                paths,
                &subjects,
                mode,
                rules,
                call.workspace,
                call.facts,
            );
            verdict(decision, decided_by, reason, used)
        }
        _ => {
            // Web tools.
            if mode == Mode::AcceptCalls {
                return verdict(
                    Decision::Allow,
                    DecidedBy::FastLane,
                    format!("`{name}` is in the fast lane and the mode is acceptCalls"),
                    Vec::new(),
                );
            }
            if let Some(rule) = allow_for_all(rules, name, &subjects) {
                return verdict(
                    Decision::Allow,
                    DecidedBy::AllowRule,
                    format!("allowed by the {}", rule[0]),
                    rule,
                );
            }
            verdict(
                Decision::Ask,
                DecidedBy::AskMode,
                format!("`{name}` needs a card in ask mode (no allow rule matches)"),
                Vec::new(),
            )
        }
    }
}

fn always_card_reason(tool: &ToolRef) -> String {
    let name = tool.name;
    match tool.layer {
        Layer::Mcp => format!("`{name}` is an MCP tool: every call gets a card"),
        Layer::MiniTool => format!("`{name}` is a mini tool tool: every call gets a card"),
        _ if name == MINITOOL_DISPATCHER => {
            format!("`{name}` installs and runs mini tools: every call gets a card")
        }
        _ => format!("`{name}` is not a tool the policy knows: every call gets a card"),
    }
}

type Step = (Decision, DecidedBy, String, Vec<Rule>);

/// One allow rule per subject, when every subject has one.
fn allow_for_all(rules: &Rules, name: &str, subjects: &[Subject]) -> Option<Vec<Rule>> {
    let mut used: Vec<Rule> = Vec::new();
    for subject in subjects {
        let rule = rules
            .iter(RuleList::Allow)
            .find(|r| r.names(name) && r.reaches(subject))?;
        if !used
            .iter()
            .any(|u| u.file == rule.file && u.index == rule.index)
        {
            used.push(rule.clone());
        }
    }
    (!used.is_empty()).then_some(used)
}

fn subjects<'t>(target: &'t Target, workspace: &'t Workspace) -> Vec<Subject<'t>> {
    match target {
        Target::Command(text, classification) => vec![Subject::Command {
            text,
            classification,
        }],
        Target::Paths(Ok(paths)) => paths
            .iter()
            .map(|p| Subject::Path {
                absolute: p,
                in_project: p.strip_prefix(&workspace.project).ok(),
            })
            .collect(),
        Target::Host(Some(host)) => vec![Subject::Host(host)],
        _ => vec![Subject::Nothing],
    }
}

fn risk(call: &ToolCall, lane: Lane, target: &Target) -> Risk {
    match (lane, target) {
        (Lane::Bash, Target::Command(_, c)) if c.destructive => Risk::High,
        (Lane::Bash, Target::Command(_, c)) if c.read_only => Risk::Low,
        (Lane::Bash, _) => Risk::Medium,
        (Lane::File, Target::Paths(Ok(paths))) if matches!(call.tool.name, "Write" | "Edit") => {
            if paths.iter().all(|p| call.workspace.contains(p)) {
                Risk::Medium
            } else {
                Risk::High
            }
        }
        (Lane::File, _) if matches!(call.tool.name, "Write" | "Edit") => Risk::Medium,
        (Lane::File | Lane::Web | Lane::AutoAllow, _) => Risk::Low,
        (Lane::AlwaysCard, _) => call.tool.risk.unwrap_or(Risk::Medium),
    }
}

/// The host of an http(s) URL, lowercased, without user info or port.
fn url_host(url: &str) -> Option<String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit('@').next()?;
    let host = if host_port.starts_with('[') {
        host_port.split(']').next()?.trim_start_matches('[')
    } else {
        host_port.split(':').next()?
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}
