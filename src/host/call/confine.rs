//! The wall a call runs in, chosen beside the gate (SPEC §8.5a). A provider says which of its
//! tools the kernel wall applies to (`Provider::wall`: Bash); for those calls the pipeline picks
//! the profile from how the gate let the call through: the fast lane in read-only, anything a
//! person, a rule or a flag approved in `[sandbox] approved` (workspace-write by default), or
//! without the wall when the person chose so on the card. What the kernel can enforce here is
//! found once per host (`Walls::of`), not once per call.

use std::path::{Path, PathBuf};

use super::denial::{Blocked, Refused};
use crate::config::{BashWall, SandboxSettings};
use crate::host::policy::{self, Wall, Workspace};
use crate::sandbox::env::ApprovedEnv;
use crate::sandbox::{Confine, Profile, ProfileState, Support};

/// How the kernel wall applies to the calls of one tool (`Provider::wall`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Walling {
    /// The provider confines what it starts itself (a mini tool's node, an MCP server), or it
    /// starts nothing: the pipeline chooses no wall for it.
    #[default]
    Own,
    /// The pipeline chooses the wall beside the gate and hands it to the tool in its plan
    /// (Bash).
    Gated,
}

/// Where a gated call runs: the kernel wall's confinement and what was granted beside it,
/// handed to the tool in its `CallPlan`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WallPlan {
    pub confine: Confine,
    /// More directories it may read and run from (`--allow-read`, an escalation).
    pub read: Vec<PathBuf>,
    /// More directories it may write, workspace-write only (`--allow-write=DIR`, an
    /// escalation): each is a root of the profile, its protected paths kept read-only.
    pub write: Vec<PathBuf>,
    /// The network, even in read-only (`--allow-network`, an escalation).
    pub network: bool,
}

impl WallPlan {
    /// A plan of `confine` alone.
    pub fn of(confine: Confine) -> WallPlan {
        WallPlan {
            confine,
            read: Vec::new(),
            write: Vec::new(),
            network: false,
        }
    }

    /// Whether the call may use the network.
    pub fn network(&self) -> bool {
        self.network || matches!(self.confine, Confine::WorkspaceWrite { network: true, .. })
    }

    /// This plan with what `grants` add (nothing to a call that runs without the wall).
    fn granted(mut self, grants: &Grants) -> WallPlan {
        if self.confine == Confine::Unconfined {
            return self;
        }
        self.read.extend(grants.read.iter().cloned());
        if let (Confine::WorkspaceWrite { .. }, Some(dirs)) = (self.confine, &grants.write) {
            self.write.extend(dirs.iter().cloned());
        }
        self.network |= grants.network;
        self
    }
}

/// What a run's flags grant its walled calls (`finch tool call|run --allow-read DIR
/// --allow-write[=DIR] --allow-network --unsandboxed`): the answers a person gives before, in
/// a script, to the escalations a card would ask after a denial (`escalate`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grants {
    /// `--allow-read DIR`: more directories to read and run from.
    pub read: Vec<PathBuf>,
    /// `--allow-write[=DIR]`: calls that run without a card write the workspace, as approved
    /// ones do, and every call also these directories; `None` without the flag.
    pub write: Option<Vec<PathBuf>>,
    /// `--allow-network`: the network, also for calls that run without a card.
    pub network: bool,
    /// `--unsandboxed`: no wall at all. Every Bash call then takes a card (`--approve` answers
    /// it), as where the kernel cannot enforce the wall.
    pub unsandboxed: bool,
}

/// What the wall can do in this host, found once: whether it holds the fast lane, where
/// approved calls run, and what the run's flags grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walls {
    /// Whether the kernel holds a fast-lane command to read-only (the gateway's `Wall`).
    pub fast: Wall,
    /// Where an approved call runs.
    pub approved: Confine,
    /// `[sandbox] network`: whether approved calls may use the network.
    pub network: bool,
    /// `[sandbox] approved_env`: the environment of a call that may write.
    pub env: ApprovedEnv,
    pub grants: Grants,
}

impl Walls {
    /// The walls `[sandbox]` asks for, as far as this kernel can enforce them, with the run's
    /// `grants`.
    pub fn of(sandbox: &SandboxSettings, grants: &Grants) -> Walls {
        let (fast, approved) = if grants.unsandboxed {
            (Wall::Missing(UNSANDBOXED), Confine::Unconfined)
        } else {
            (fast_lane_wall(sandbox), approved_confine(sandbox))
        };
        Walls {
            fast,
            approved,
            network: sandbox.network,
            env: sandbox.approved_env,
            grants: grants.clone(),
        }
    }

    /// Where a call the gateway allowed by `by` runs: a call that runs without a card
    /// read-only (workspace-write with `--allow-write`), anything else approved.
    pub fn allowed(&self, by: policy::DecidedBy) -> WallPlan {
        if !runs_without_a_card(by) {
            return self.approved();
        }
        let confine = match self.grants.write {
            Some(_) => self.writing(),
            None => Confine::ReadOnly,
        };
        WallPlan::of(confine).granted(&self.grants)
    }

    /// Where a call a person or a flag approved runs.
    pub fn approved(&self) -> WallPlan {
        WallPlan::of(self.approved).granted(&self.grants)
    }

    /// The workspace-write profile an escalation to writing asks for: `[sandbox] approved`,
    /// or workspace-write when approved calls run unconfined (the kernel held the call that
    /// was refused, so it can hold this one).
    pub fn writing(&self) -> Confine {
        match self.approved {
            Confine::WorkspaceWrite { network, env } => Confine::WorkspaceWrite { network, env },
            _ => Confine::WorkspaceWrite {
                network: self.network,
                env: self.env,
            },
        }
    }

    /// Where a call the person allowed "without the sandbox" runs.
    pub fn unsandboxed() -> WallPlan {
        WallPlan::of(Confine::Unconfined)
    }

    /// Whether a card may offer "Allow once, without the sandbox": an approved call would
    /// otherwise run confined.
    pub fn offers_unsandboxed(&self) -> bool {
        self.approved != Confine::Unconfined
    }

    /// Says once per process, on stderr, that Bash calls take cards because the wall is
    /// missing, when the gateway decided so (`policy::DecidedBy::NoSandbox`).
    pub fn warn_if_missing(&self, by: policy::DecidedBy) {
        if let (policy::DecidedBy::NoSandbox, Wall::Missing(why)) = (by, self.fast)
            && why != UNSANDBOXED
        {
            warn_no_wall_once(why);
        }
    }
}

/// Why the fast lane has no wall when the run asked for none.
const UNSANDBOXED: &str = "--unsandboxed";

/// Whether the gateway let a walled call through without a card, so that it runs read-only.
fn runs_without_a_card(by: policy::DecidedBy) -> bool {
    matches!(
        by,
        policy::DecidedBy::FastLane | policy::DecidedBy::SandboxFirst
    )
}

/// Whether the kernel wall holds the fast lane here (the gateway's `Wall`).
pub fn fast_lane_wall(sandbox: &SandboxSettings) -> Wall {
    if sandbox.bash == BashWall::Off {
        return Wall::Missing("[sandbox] bash = \"off\" in finch.toml");
    }
    match Support::get().profile(Profile::ReadOnly).why() {
        None => Wall::Holds,
        Some(why) => Wall::Missing(why),
    }
}

/// Where an approved Bash call runs: `[sandbox] approved` where the kernel can hold it,
/// unconfined where the wall is off or not available (a person approved the call).
pub fn approved_confine(sandbox: &SandboxSettings) -> Confine {
    if sandbox.bash == BashWall::Off {
        return Confine::Unconfined;
    }
    match sandbox.approved {
        Some(Profile::WorkspaceWrite)
            if !matches!(
                Support::get().profile(Profile::ReadOnly),
                ProfileState::Unavailable(_)
            ) =>
        {
            Confine::WorkspaceWrite {
                network: sandbox.network,
                env: sandbox.approved_env,
            }
        }
        _ => Confine::Unconfined,
    }
}

/// Where a Bash call the gateway judged runs once allowed (what `finch policy check` shows):
/// the fast lane in read-only, anything a person or a rule approves as `approved_confine`.
pub fn verdict_confine(verdict: &policy::Verdict, sandbox: &SandboxSettings) -> Confine {
    if verdict.decision == policy::Decision::Allow {
        Walls::of(sandbox, &Grants::default())
            .allowed(verdict.decided_by)
            .confine
    } else {
        approved_confine(sandbox)
    }
}

/// Says once per process, on stderr, that Bash calls take cards because the wall is missing.
fn warn_no_wall_once(why: &str) {
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        crate::eline!(
            "warning: finch's kernel wall does not hold here ({why}): every Bash call takes a \
             permission card in this run (`finch sandbox status`)"
        );
    }
}

/// What a call the wall refused may be allowed when it runs again, fitted to the refusal
/// (SPEC §8.5a): nothing is offered that cannot help.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Escalation {
    /// Read (and run from) this directory too, in the same profile: a read outside the roots.
    Read(PathBuf),
    /// Write the workspace (workspace-write): a write the read-only profile refused.
    Write,
    /// Write this directory too (workspace-write): a write outside the roots.
    WriteDir(PathBuf),
    /// Use the network: a connection the profile refused.
    Network,
    /// Run without the wall: what nothing narrower allows (a protected path, running a file
    /// it wrote, signalling a process outside it).
    Unsandboxed,
}

impl Escalation {
    /// The escalation that would let a call refused as `blocked`, run as `wall`, through, if
    /// one would: `None` when nothing finch may grant helps (a credential store is never
    /// readable, a grant already given did not help).
    pub fn fitting(
        blocked: &Blocked,
        wall: &WallPlan,
        walls: &Walls,
        workspace: &Workspace,
    ) -> Option<Escalation> {
        let protected = |path: &Path| {
            policy::protected(path, workspace, &policy::PathFacts::default()).is_some()
        };
        let inside = |path: &Path| {
            path.starts_with(&workspace.cwd)
                || workspace.trusted.iter().any(|t| path.starts_with(t))
        };
        let escalation = match (&blocked.access, &blocked.path) {
            (Refused::Read, Some(path)) => {
                if secret(path, workspace) {
                    return None;
                }
                let dir = if path.is_dir() {
                    path.clone()
                } else {
                    path.parent()?.to_path_buf()
                };
                Escalation::Read(dir)
            }
            (Refused::Read, None) => return None,
            (Refused::Write, Some(path)) if protected(path) => Escalation::Unsandboxed,
            (Refused::Write, Some(path)) if !inside(path) => {
                // The nearest directory that exists: the wall can only grant what is there.
                let dir = path.ancestors().skip(1).find(|a| a.is_dir())?;
                Escalation::WriteDir(dir.to_path_buf())
            }
            (Refused::Write, _) if wall.confine == Confine::ReadOnly => Escalation::Write,
            (Refused::Write, _) => return None,
            (Refused::Network, _) => Escalation::Network,
            (Refused::Exec | Refused::Signal, _) => Escalation::Unsandboxed,
        };
        let helps = match &escalation {
            Escalation::Read(dir) => !wall.read.contains(dir),
            Escalation::Write => true,
            Escalation::WriteDir(dir) => !wall.write.contains(dir),
            Escalation::Network => !wall.network(),
            Escalation::Unsandboxed => wall.confine != Confine::Unconfined,
        };
        // Writing asks for the approved profile; where approved calls run unconfined, that is
        // what a person approves.
        let escalation = match escalation {
            Escalation::Write | Escalation::WriteDir(_)
                if walls.approved == Confine::Unconfined =>
            {
                Escalation::Unsandboxed
            }
            other => other,
        };
        helps.then_some(escalation)
    }

    /// `wall` with this escalation granted.
    pub fn apply(&self, wall: &WallPlan, walls: &Walls) -> WallPlan {
        let mut wall = wall.clone();
        match self {
            Escalation::Read(dir) => wall.read.push(dir.clone()),
            Escalation::Write => wall.confine = walls.writing(),
            Escalation::WriteDir(dir) => {
                if wall.confine == Confine::ReadOnly {
                    wall.confine = walls.writing();
                }
                wall.write.push(dir.clone());
            }
            Escalation::Network => wall.network = true,
            Escalation::Unsandboxed => wall = WallPlan::of(Confine::Unconfined),
        }
        wall
    }

    /// The flag of `finch tool call` and `finch run` that grants it before the call
    /// (`Grants`), as a script would type it.
    pub fn flag(&self) -> String {
        match self {
            Escalation::Read(dir) => format!("--allow-read {}", dir.display()),
            Escalation::Write => "--allow-write".to_string(),
            Escalation::WriteDir(dir) => format!("--allow-write={}", dir.display()),
            Escalation::Network => "--allow-network".to_string(),
            Escalation::Unsandboxed => "--unsandboxed".to_string(),
        }
    }

    /// What it lets the call do, in words: `read /home/u/notes`, `write the workspace`.
    pub fn words(&self) -> String {
        match self {
            Escalation::Read(dir) => format!("read {}", dir.display()),
            Escalation::Write => "write the workspace".to_string(),
            Escalation::WriteDir(dir) => format!("write {}", dir.display()),
            Escalation::Network => "use the network".to_string(),
            Escalation::Unsandboxed => "run without finch's sandbox".to_string(),
        }
    }

    /// Whether it lifts the wall altogether (a card shows it as high risk).
    pub fn unsandboxes(&self) -> bool {
        *self == Escalation::Unsandboxed
    }

    /// The record's `escalation` (without who answered it): `{"grant", "path"}`.
    pub fn to_json(&self) -> serde_json::Value {
        let (grant, path) = match self {
            Escalation::Read(dir) => ("read", Some(dir)),
            Escalation::Write => ("write", None),
            Escalation::WriteDir(dir) => ("write", Some(dir)),
            Escalation::Network => ("network", None),
            Escalation::Unsandboxed => ("unsandboxed", None),
        };
        let mut value = serde_json::json!({ "grant": grant });
        if let (Some(path), Some(map)) = (path, value.as_object_mut()) {
            map.insert("path".into(), path.display().to_string().into());
        }
        value
    }
}

/// Where a user keeps keys and credentials, which no escalation makes readable: the protected
/// table's remote-access rows (`~/.ssh`, `~/.gnupg`) and finch's runtime home.
fn secret(path: &Path, workspace: &Workspace) -> bool {
    let home = workspace.home.as_deref();
    let credential_dirs = [
        ".ssh",
        ".gnupg",
        ".aws",
        ".netrc",
        ".npmrc",
        ".config/gh",
        ".docker",
    ];
    home.is_some_and(|h| credential_dirs.iter().any(|d| path.starts_with(h.join(d))))
        || workspace
            .runtime
            .as_deref()
            .is_some_and(|r| path.starts_with(r))
}
