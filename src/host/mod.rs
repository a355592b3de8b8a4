//! The tool host of SPEC §8 (`finch run`), built piece by piece. So far it holds the names and
//! layers of tools (`tool`), the model-facing naming rules (`naming`) and the permission policy
//! every call goes through (`policy`: the gateway decision, the rules files, the Bash
//! classifier). The catalog, the suites, the
//! built-ins, the mini tool runtime and the front ends come later and build on these.

pub mod naming;
pub mod policy;
pub mod tool;
