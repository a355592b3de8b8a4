//! `finch skill`: arguments and output; the logic is in `crate::skill`.

use clap::Subcommand;
use serde_json::Value;

use crate::Context;
use crate::error::{CommandError, Result};
use crate::skill::{self, Skill};
use crate::ui::{Table, TableArgs};

#[derive(Debug, Subcommand)]
pub enum SkillCommand {
    /// List skills of every source (project, personal, global, enabled mini tools)
    #[command(visible_alias = "ls")]
    List(TableArgs),
    /// Print the SKILL.md of the skill that wins for a name
    Show { name: String },
}

pub fn run(ctx: &Context, command: &SkillCommand) -> Result<()> {
    let homes = ctx.homes()?;
    let (skills, warnings) = skill::discover(homes, &ctx.cwd);
    for w in &warnings {
        ctx.ui.warn(w);
    }
    match command {
        SkillCommand::List(args) => cmd_list(ctx, &skills, *args),
        SkillCommand::Show { name } => cmd_show(ctx, &skills, name),
    }
}

fn cmd_list(ctx: &Context, skills: &[Skill], args: TableArgs) -> Result<()> {
    let ui = &ctx.ui;
    if ui.json {
        return ui.json(&Value::Array(skills.iter().map(Skill::to_json).collect()));
    }
    if skills.is_empty() {
        ui.status("No skills found");
        return Ok(());
    }
    let status = |s: &Skill| match &s.shadowed_by {
        None => "active".to_string(),
        Some(winner) => format!("shadowed by {}", winner.label()),
    };
    let description = |s: &Skill| {
        s.description
            .as_deref()
            .map(|d| d.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    };
    let mut table = Table::new(&["NAME", "SOURCE", "STATUS", "DESCRIPTION", "PATH"])
        .cut(&["DESCRIPTION"])
        .optional(&["PATH", "SOURCE"]);
    for s in skills {
        table.row(vec![
            s.name.clone(),
            s.source.label(),
            status(s),
            description(s),
            s.path.display().to_string(),
        ]);
    }
    ui.table(&table, args)
}

fn cmd_show(ctx: &Context, skills: &[Skill], name: &str) -> Result<()> {
    let Some(found) = skill::find(skills, name) else {
        return Err(
            CommandError::not_found(format!("no skill named \"{name}\""))
                .with_hint("run `finch skill list` to see the skills found"),
        );
    };
    let content = std::fs::read_to_string(&found.path)
        .map_err(|e| crate::error::io_error("read", &found.path, &e))?;
    if ctx.ui.json {
        let mut doc = found.to_json();
        if let Value::Object(map) = &mut doc {
            map.insert("content".into(), content.into());
        }
        return ctx.ui.json(&doc);
    }
    ctx.ui.line(content.trim_end_matches('\n'))
}
