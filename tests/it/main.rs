//! Integration tests of the real `finch` binary, one test binary so linking happens once.

mod common;

mod add;
mod archives;
mod builtins_files;
mod builtins_other;
mod builtins_pdf;
mod cards;
mod cli;
mod doctor;
mod host;
mod kill;
mod list_enable_remove;
mod mcp_bridge;
mod memory;
mod node_suite;
mod policy;
mod registry;
mod reload;
mod runtime;
mod schedule;
mod serve_mcp;
mod serve_mcp_calls;
mod session;
mod space_skill;
mod start_on_demand;
mod suites;
mod suites_app;
mod update;
mod verdaccio;
