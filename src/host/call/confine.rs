//! The wall a call runs in, chosen beside the gate (SPEC §8.5a). A provider says which of its
//! tools the kernel wall applies to (`Provider::wall`: Bash); for those calls the pipeline picks
//! the profile from how the gate let the call through: the fast lane in read-only, anything a
//! person, a rule or a flag approved in `[sandbox] approved` (workspace-write by default), or
//! without the wall when the person chose so on the card. What the kernel can enforce here is
//! found once per host (`Walls::of`), not once per call.

use crate::config::{BashWall, SandboxSettings};
use crate::host::policy::{self, Wall};
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

/// Where a gated call runs: the kernel wall's confinement, handed to the tool in its
/// `CallPlan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WallPlan {
    pub confine: Confine,
}

/// What the wall can do in this host, found once: whether it holds the fast lane, and where
/// approved calls run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Walls {
    /// Whether the kernel holds a fast-lane command to read-only (the gateway's `Wall`).
    pub fast: Wall,
    /// Where an approved call runs.
    pub approved: Confine,
}

impl Walls {
    /// The walls `[sandbox]` asks for, as far as this kernel can enforce them.
    pub fn of(sandbox: &SandboxSettings) -> Walls {
        Walls {
            fast: fast_lane_wall(sandbox),
            approved: approved_confine(sandbox),
        }
    }

    /// Where a call the gateway allowed by `by` runs: the fast lane read-only, anything else
    /// approved.
    pub fn allowed(&self, by: policy::DecidedBy) -> WallPlan {
        let confine = if by == policy::DecidedBy::FastLane {
            Confine::ReadOnly
        } else {
            self.approved
        };
        WallPlan { confine }
    }

    /// Where a call a person or a flag approved runs.
    pub fn approved(&self) -> WallPlan {
        WallPlan {
            confine: self.approved,
        }
    }

    /// Where a call the person allowed "without the sandbox" runs.
    pub fn unsandboxed() -> WallPlan {
        WallPlan {
            confine: Confine::Unconfined,
        }
    }

    /// Whether a card may offer "Allow once, without the sandbox": an approved call would
    /// otherwise run confined.
    pub fn offers_unsandboxed(&self) -> bool {
        self.approved != Confine::Unconfined
    }

    /// Says once per process, on stderr, that Bash calls take cards because the wall is
    /// missing, when the gateway decided so (`policy::DecidedBy::NoSandbox`).
    pub fn warn_if_missing(&self, by: policy::DecidedBy) {
        if let (policy::DecidedBy::NoSandbox, Wall::Missing(why)) = (by, self.fast) {
            warn_no_wall_once(why);
        }
    }
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
            }
        }
        _ => Confine::Unconfined,
    }
}

/// Where a Bash call the gateway judged runs once allowed (what `finch policy check` shows):
/// the fast lane in read-only, anything a person or a rule approves as `approved_confine`.
pub fn verdict_confine(verdict: &policy::Verdict, sandbox: &SandboxSettings) -> Confine {
    if verdict.decision == policy::Decision::Allow {
        Walls::of(sandbox).allowed(verdict.decided_by).confine
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
