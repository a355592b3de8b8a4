//! `finch session`: arguments and output; the logic is in `crate::session`.

use std::path::PathBuf;

use clap::Subcommand;

use crate::Context;
use crate::error::Result;

#[derive(Debug, Subcommand)]
pub enum SessionCommand {
    /// List sessions, newest first
    List {
        #[arg(long)]
        workspace: Option<String>,
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Show a transcript
    Show { id: String },
    /// Search transcripts
    Search {
        query: String,
        #[arg(long, default_value_t = 20)]
        limit: usize,
        #[arg(long, value_name = "DATE")]
        since: Option<String>,
    },
    /// Set a session's title
    Rename { id: String, title: String },
    /// Trust another directory for a session's file tools
    ExtendDir { id: String, dir: PathBuf },
    /// Attach a file to a session's composer draft
    Attach { id: String, file: PathBuf },
}

pub fn run(ctx: &Context, command: &SessionCommand) -> Result<()> {
    let _ = (ctx, command);
    crate::not_yet("session")
}
