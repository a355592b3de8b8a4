//! What a provider gets for one call (`CallCx`), and what a call may tell the host back
//! (`HostEvent`). A provider takes these from here; it never reaches into the host itself.

use std::sync::Arc;

use super::plan::CallPlan;
use crate::host::cancel;
use crate::host::catalog::Catalog;
use crate::host::env::HostEnv;
use crate::host::prompt::Prompter;
use crate::host::session::SessionState;

/// Something a call changed that a front end may want to announce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostEvent {
    /// ToolSearch activated these dynamic tools (MCP: `tools/list_changed`).
    ToolsActivated(Vec<String>),
    /// Mini tools were added, removed, enabled or disabled: the host reloads its providers.
    MiniToolsChanged,
    /// A provider's tools changed (a mini tool registered or disposed tools during a call):
    /// the host rebuilds its catalog.
    ToolsChanged,
}

/// What a provider gets for one call.
pub struct CallCx<'a> {
    /// Shared, so a provider's `Job` can keep it.
    pub env: &'a Arc<HostEnv>,
    pub session: &'a mut SessionState,
    pub catalog: &'a Catalog,
    pub prompter: &'a mut dyn Prompter,
    pub events: &'a mut Vec<HostEvent>,
    /// Asks the other providers' discovery (search) providers about a query: `(source, raw
    /// name)` of the tools they name (ToolSearch merges them into its ranking).
    pub discover: &'a Discover<'a>,
    /// Set when the caller no longer wants the result (see `cancel`).
    pub cancel: &'a cancel::Cancel,
    /// Where the call's progress updates go (see `cancel`).
    pub progress: &'a cancel::ProgressSink<'a>,
    /// The call's plan: what the gateway judged, and for a walled tool (Bash) the wall it
    /// runs in.
    pub plan: &'a CallPlan,
}

/// See `CallCx::discover`.
pub type Discover<'a> = dyn Fn(&str, usize) -> Vec<(String, String)> + 'a;
