//! Integration tests of the real `finch` binary, one test binary so linking happens once.

mod common;

mod add;
mod agents;
mod archives;
mod builtins_files;
mod builtins_other;
mod builtins_pdf;
mod cards;
mod cli;
mod completions;
mod console;
mod doctor;
mod host;
mod kill;
mod list_enable_remove;
mod mcp_bridge;
mod mcp_client;
mod memory;
mod node_suite;
mod npm_dist;
mod pi;
mod policy;
mod registry;
mod reload;
mod runtime;
mod schedule;
mod serve_mcp;
mod session;
mod space_skill;
mod start_on_demand;
mod suites;
mod suites_app;
mod tables;
mod update;
mod verdaccio;
