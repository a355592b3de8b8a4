//! The plan of one call (`CallPlan`), made once before the gate and handed to the tool: what
//! the call acts on as the gateway judges it (a shell command parsed and classified once, a
//! file tool's paths resolved once), what the disk says about those paths, and — for a tool the
//! kernel wall applies to — the wall it runs in, chosen beside the gate (`confine`).

use serde_json::Value;

use super::confine::WallPlan;
use crate::host::policy::{self, Classification, PathFacts, Target, Workspace};
use crate::host::tool::ToolRef;

/// One call, planned.
#[derive(Debug, Clone)]
pub struct CallPlan {
    /// What the call acts on (`policy::Target`).
    pub target: Target,
    /// Where the session works, as the gateway sees it (with the runtime home, protected).
    pub workspace: Workspace,
    /// What the disk says about the target's paths (`policy::probe`).
    pub facts: PathFacts,
    /// Where a walled call runs (`Walling::Gated`); `None` for every other tool, and until
    /// the gate allowed the call.
    pub wall: Option<WallPlan>,
}

impl CallPlan {
    /// Plans a call of `tool` with `args` in `workspace`: its target, and the facts about its
    /// paths.
    pub fn new(tool: &ToolRef, args: &Value, workspace: Workspace) -> CallPlan {
        let target = Target::of(tool, args, &workspace);
        let facts = policy::probe_planned(tool.name, args, &target, &workspace);
        CallPlan {
            target,
            workspace,
            facts,
            wall: None,
        }
    }

    /// A plan that judges nothing: a manual, or a call made outside the pipeline.
    pub fn unplanned(workspace: Workspace) -> CallPlan {
        CallPlan {
            target: Target::Nothing,
            workspace,
            facts: PathFacts::default(),
            wall: None,
        }
    }

    /// The classification of a shell command, made once for the gate and the tool.
    pub fn classification(&self) -> Option<&Classification> {
        self.target.classification()
    }
}
