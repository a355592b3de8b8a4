//! `finch new <dir>`: writes a mini tool package that builds and passes its own tests
//! (`authoring::scaffold`), into a directory that does not exist or is empty, and says what to
//! run next. `--json`: `{"dir", "id", "package", "template", "files"}`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde_json::json;

use crate::Context;
use crate::authoring::AuthoringError;
use crate::authoring::scaffold::{self, NewPackage, Template};
use crate::error::{CommandError, Result};
use crate::homes::absolutize;

#[derive(Debug, Args)]
pub struct NewArgs {
    /// The directory to create (it must not exist, or be empty)
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The mini tool's id, which names the npm package (scope@name for @scope/name; default:
    /// the directory's name)
    #[arg(long)]
    pub id: Option<String>,
    /// The display name (default: from the id)
    #[arg(long)]
    pub name: Option<String>,
    /// What to start from
    #[arg(long, value_enum, default_value_t = TemplateArg::Tool)]
    pub template: TemplateArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TemplateArg {
    /// One tool with a JSON Schema
    Tool,
    /// A tool that uses the host's MCP client capability
    Mcp,
    /// The tool and a skill the agent reads
    Skill,
}

impl From<TemplateArg> for Template {
    fn from(t: TemplateArg) -> Template {
        match t {
            TemplateArg::Tool => Template::Tool,
            TemplateArg::Mcp => Template::Mcp,
            TemplateArg::Skill => Template::Skill,
        }
    }
}

pub fn cmd_new(ctx: &Context, args: &NewArgs) -> Result<()> {
    let dir = absolutize(&args.dir, &ctx.cwd);
    let id = match &args.id {
        Some(id) => id.clone(),
        None => scaffold::default_id(&dir).ok_or_else(|| {
            CommandError::usage(format!("{} has no name to take an id from", dir.display()))
                .with_hint("pass --id <id>")
        })?,
    };
    scaffold::check_id(&id).map_err(CommandError::from)?;
    let package = NewPackage {
        name: args
            .name
            .clone()
            .unwrap_or_else(|| scaffold::default_name(&id)),
        id,
        template: args.template.into(),
    };
    let files = scaffold::render(&package);
    scaffold::write(&dir, &files).map_err(|e: AuthoringError| CommandError::from(e))?;
    let template = args
        .template
        .to_possible_value()
        .map(|v| v.get_name().to_string())
        .unwrap_or_default();
    if ctx.ui.json {
        return ctx.ui.json(&json!({
            "dir": dir,
            "id": package.id,
            "package": scaffold::package_name(&package.id),
            "template": template,
            "files": files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(),
        }));
    }
    let shown = args.dir.display();
    ctx.ui.status(format!(
        "Created {} ({template} template) in {shown}: {}",
        scaffold::package_name(&package.id),
        files
            .iter()
            .map(|f| f.path.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    ctx.ui.status("Next:");
    ctx.ui.status(format!("  cd {shown}"));
    // Each line fits 60 columns: a comment wrapped under a command reads as another one.
    ctx.ui
        .status("  finch test      # installs esbuild, builds, runs the cases");
    ctx.ui
        .status("  finch dev       # a console that rebuilds on every change");
    Ok(())
}
