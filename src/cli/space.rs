//! `finch space`: arguments and output; the logic is in `crate::space`.

use std::path::PathBuf;

use clap::Subcommand;

use crate::Context;
use crate::error::Result;

#[derive(Debug, Subcommand)]
pub enum SpaceCommand {
    /// List spaces
    List,
    /// Create a space
    Create {
        name: String,
        /// Bind the space to a directory
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

pub fn run(ctx: &Context, command: &SpaceCommand) -> Result<()> {
    let _ = (ctx, command);
    crate::not_yet("space")
}
