//! `finch memory`: arguments and output; the logic is in `crate::memory`.

use clap::Subcommand;

use crate::Context;
use crate::error::Result;

#[derive(Debug, Subcommand)]
pub enum MemoryCommand {
    /// Add an entry to a memory file
    Remember {
        /// The entry text
        text: String,
        /// Which file: long-term, daily, space:<name>, lessons or profile
        #[arg(long, default_value = "long-term")]
        to: String,
        /// Put the entry under this heading
        #[arg(long)]
        section: Option<String>,
    },
    /// Replace exactly one entry
    Replace {
        /// Text that matches the entry to replace (omit with --id)
        old: Option<String>,
        /// The new entry text
        new: Option<String>,
        /// Id of the entry to replace
        #[arg(long)]
        id: Option<String>,
    },
    /// Remove an entry
    Forget {
        /// Text that matches the entry to remove (omit with --id)
        text: Option<String>,
        /// Id of the entry to remove
        #[arg(long)]
        id: Option<String>,
        /// Remove every matching entry
        #[arg(long)]
        all_matching: bool,
    },
    /// Search memory, ranked
    Search {
        query: String,
        /// all, long-term, daily, spaces or lessons
        #[arg(long, default_value = "all")]
        scope: String,
        #[arg(long)]
        space: Option<String>,
        #[arg(long, value_name = "DATE")]
        since: Option<String>,
        #[arg(long, value_name = "DATE")]
        until: Option<String>,
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// List entries
    List {
        #[arg(long, default_value = "all")]
        scope: String,
    },
    /// Show a memory file, a day's log or a space's memory
    Show {
        /// A file, a date (YYYY-MM-DD) or a space name
        what: String,
    },
    /// Delete daily logs older than a duration
    Prune {
        #[arg(long, value_name = "DURATION")]
        older_than: String,
    },
}

pub fn run(ctx: &Context, command: &MemoryCommand) -> Result<()> {
    let _ = (ctx, command);
    crate::not_yet("memory")
}
