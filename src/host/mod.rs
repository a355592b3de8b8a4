//! The tool host of SPEC §8 (`finch run`, `finch tool call`): the tools of four layers behind
//! one permission gateway, served to a person, a script or an agent.
//!
//! - `call` — the call pipeline every call goes through (resolve → plan → gate → confine →
//!   attempt → record), and `Host`, which holds the catalog, the session, the rules and
//!   whoever answers cards;
//! - `provider` — what a source of tools offers the pipeline (`Provider`): its tools, and its
//!   calls run at once or as jobs;
//! - the providers: `builtins` (one file a tool), `suites` (one file a dispatcher), `runtime`
//!   (mini tools in node) and `mcp` (the MCP bridge);
//! - `policy` — the gateway (rules, modes, the Bash classifier), pure; `prompt` — what a
//!   person is asked (cards, questions), answered by `ui::card`, MCP elicitation or nobody;
//! - `catalog`, `naming`, `toolsearch` — model-facing names, exposure, ToolSearch's ranking;
//! - `assembly` — which providers a host gets, and a reload in place; `frontend` — the
//!   console, `--jsonl` and `--serve mcp`, which only call the pipeline;
//! - `session` — the session's state and its transcript; `env` — what the host needs from
//!   the process.

pub mod assembly;
pub mod builtins;
pub mod call;
pub mod cancel;
pub mod catalog;
pub mod control;
pub mod env;
pub mod frontend;
pub mod hints;
pub mod mcp;
pub mod naming;
pub mod output;
pub mod policy;
pub mod prompt;
pub mod provider;
pub mod runtime;
pub mod schema;
pub mod session;
pub mod suites;
pub mod tool;
pub mod toolsearch;

use std::path::{Path, PathBuf};

pub use call::context::{CallCx, Discover, HostEvent};
pub use call::record::{CallRecord, DecidedBy, Decision, Failure};
pub use call::{Begun, Host, Ran, Running};
pub use env::HostEnv;
pub use provider::{CallEvent, HostTask, InPlace, Job, JobCx, OnHost, Provider, Started};

/// The directory a run's file tools start from.
pub fn canonical_cwd(cwd: &Path) -> PathBuf {
    std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf())
}
