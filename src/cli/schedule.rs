//! `finch schedule`: arguments and output; the logic is in `crate::schedule`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::Context;
use crate::error::Result;

#[derive(Debug, Args)]
pub struct ScheduleSpec {
    /// Run every hour, optionally at minute :MM
    #[arg(long, value_name = ":MM", num_args = 0..=1, default_missing_value = ":00")]
    pub hourly: Option<String>,
    /// Run every day at HH:MM
    #[arg(long, value_name = "HH:MM")]
    pub daily: Option<String>,
    /// Run Monday to Friday at HH:MM
    #[arg(long, value_name = "HH:MM")]
    pub weekdays: Option<String>,
    /// Run every week on DAY at HH:MM
    #[arg(long, num_args = 2, value_names = ["DAY", "HH:MM"])]
    pub weekly: Option<Vec<String>>,
    /// Run on a five-field cron expression
    #[arg(long, value_name = "EXPR")]
    pub cron: Option<String>,
    /// Run once at an ISO date-time
    #[arg(long, value_name = "DATETIME")]
    pub once: Option<String>,
    /// Time zone (IANA name; default: local)
    #[arg(long, value_name = "TZ")]
    pub tz: Option<String>,
    /// Run in this space
    #[arg(long, conflicts_with = "cwd")]
    pub space: Option<String>,
    /// Run in this directory
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    #[arg(long)]
    pub model: Option<String>,
    /// Reasoning effort
    #[arg(long)]
    pub effort: Option<String>,
    /// Permission mode: ask or acceptCalls
    #[arg(long)]
    pub mode: Option<String>,
    /// Stop a run after this long (e.g. 30m)
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum ScheduleCommand {
    /// List tasks with their next run and last result
    List,
    /// Create a task
    Create {
        #[arg(long)]
        name: String,
        #[arg(long)]
        prompt: String,
        #[command(flatten)]
        spec: ScheduleSpec,
    },
    /// Change a task
    Update {
        id: String,
        #[arg(long)]
        name: Option<String>,
        #[arg(long)]
        prompt: Option<String>,
        #[command(flatten)]
        spec: ScheduleSpec,
    },
    /// Enable a task
    Enable { id: String },
    /// Disable a task
    Disable { id: String },
    /// Delete a task (its history is kept)
    Delete { id: String },
    /// Run a task now
    Run { id: String },
    /// Show run history
    History {
        id: Option<String>,
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Run due tasks in the foreground until stopped
    Daemon,
}

pub fn run(ctx: &Context, command: &ScheduleCommand) -> Result<()> {
    let _ = (ctx, command);
    crate::not_yet("schedule")
}
