//! `finch space`: arguments and output; the logic is in `crate::space`.

use std::path::PathBuf;

use clap::Subcommand;

use serde_json::Value;

use crate::Context;
use crate::error::{CommandError, Result};
use crate::homes::absolutize;
use crate::space::{self, Space};
use crate::ui::{Table, TableArgs};

#[derive(Debug, Subcommand)]
pub enum SpaceCommand {
    /// List spaces
    #[command(visible_alias = "ls")]
    List(TableArgs),
    /// Create a space
    Create {
        name: String,
        /// Bind the space to a directory
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

pub fn run(ctx: &Context, command: &SpaceCommand) -> Result<()> {
    let homes = ctx.homes()?;
    match command {
        SpaceCommand::List(args) => {
            let spaces = space::list(homes).map_err(CommandError::from)?;
            if ctx.ui.json {
                return ctx
                    .ui
                    .json(&Value::Array(spaces.iter().map(Space::to_json).collect()));
            }
            if spaces.is_empty() {
                ctx.ui
                    .status(format!("No spaces in {}", homes.spaces_json().display()));
                return Ok(());
            }
            let dir = |s: &Space| {
                s.directory
                    .as_ref()
                    .map(|d| d.display().to_string())
                    .unwrap_or_default()
            };
            let mut table = Table::new(&["ID", "NAME", "DIRECTORY", "CREATED"])
                .cut(&["NAME"])
                .optional(&["CREATED", "DIRECTORY"]);
            for s in &spaces {
                // In local time, as sessions are listed; as recorded on a pipe.
                table.row_piped(
                    vec![
                        s.id.clone(),
                        s.name.clone(),
                        dir(s),
                        super::session::local_time(Some(&s.created_at)),
                    ],
                    vec![
                        ("ID", s.id.clone()),
                        ("NAME", s.name.clone()),
                        ("DIRECTORY", dir(s)),
                        ("CREATED", s.created_at.clone()),
                    ],
                );
            }
            ctx.ui.table(&table, *args)
        }
        SpaceCommand::Create { name, dir } => {
            let dir = dir.as_ref().map(|d| absolutize(d, &ctx.cwd));
            let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
            let space = space::create(
                homes,
                name,
                dir.as_deref(),
                ctx.settings()?.lock_timeout,
                &now,
            )
            .map_err(CommandError::from)?;
            if ctx.ui.json {
                return ctx.ui.json(&space.to_json());
            }
            ctx.ui.line(format!(
                "{} Created space \"{}\" ({})",
                ctx.ui.green("✓"),
                space.name,
                space.id
            ))
        }
    }
}
