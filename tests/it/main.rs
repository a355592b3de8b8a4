//! Integration tests of the real `finch` binary, one test binary so linking happens once.

mod common;

mod add;
mod archives;
mod cli;
mod doctor;
mod kill;
mod list_enable_remove;
mod memory;
mod policy;
mod registry;
mod schedule;
mod session;
mod space_skill;
mod update;
mod verdaccio;
