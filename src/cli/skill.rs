//! `finch skill`: arguments and output; the logic is in `crate::skill`.

use clap::Subcommand;

use crate::Context;
use crate::error::Result;

#[derive(Debug, Subcommand)]
pub enum SkillCommand {
    /// List skills of every tier
    List,
    /// Show a skill's SKILL.md
    Show { name: String },
}

pub fn run(ctx: &Context, command: &SkillCommand) -> Result<()> {
    let _ = (ctx, command);
    crate::not_yet("skill")
}
