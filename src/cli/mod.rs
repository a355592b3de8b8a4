//! The command line of SPEC §2 as clap definitions: the single source of `--help`, the man pages
//! and the shell completions. One file per command group holds its arguments' handling; this file
//! holds only the tree and the global flags.

pub mod complete;
pub mod dev;
pub mod doctor;
pub mod examples;
pub mod generate;
pub mod mcp;
pub mod memory;
pub mod minitool;
pub mod new;
pub mod pack;
pub mod policy;
pub mod reload;
pub mod run;
pub mod sandbox;
pub mod schedule;
pub mod secret;
pub mod session;
pub mod skill;
pub mod space;
pub mod test;
pub mod tool;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::ui::ColorChoice;

/// Mini tool manager, state toolkit and tool host for the Finch desktop agent
#[derive(Debug, Parser)]
#[command(
    name = "finch",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// The heading the flags every command takes are listed under, apart from its own options.
const GLOBAL: &str = "Global options";

/// The command tree, with every command's examples after its help (`examples`).
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    with_examples(Cli::command(), "")
}

fn with_examples(mut cmd: clap::Command, path: &str) -> clap::Command {
    if let Some(examples) = examples::of(path) {
        let text = examples::help_text(examples);
        let after = match cmd.get_after_help() {
            Some(before) => format!("{before}\n\n{text}"),
            None => text,
        };
        cmd = cmd.after_help(after);
    }
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in names {
        let sub_path = if path.is_empty() {
            name.clone()
        } else {
            format!("{path} {name}")
        };
        cmd = cmd.mut_subcommand(&name, |sub| with_examples(sub, &sub_path));
    }
    cmd
}

#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`), only
    /// FIELDS if named (`--json id,name`)
    #[arg(long, global = true, value_name = "FIELDS", num_args = 0..=1, require_equals = true, help_heading = GLOBAL)]
    pub json: Option<Option<String>>,
    /// Filter the JSON output with a jq expression (implies --json)
    #[arg(long, global = true, value_name = "EXPR", help_heading = GLOBAL)]
    pub jq: Option<String>,
    /// Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)
    #[arg(long, global = true, value_name = "DIR", help_heading = GLOBAL)]
    pub runtime_home: Option<PathBuf>,
    /// Agent home (default: $FINCH_AGENT_HOME, else the app's setting, else ~/finchnest)
    #[arg(long, global = true, value_name = "DIR", help_heading = GLOBAL)]
    pub agent_home: Option<PathBuf>,
    /// Print only data, errors and warnings
    #[arg(short, long, global = true, conflicts_with = "verbose", help_heading = GLOBAL)]
    pub quiet: bool,
    /// Print more detail on stderr
    #[arg(short, long, global = true, help_heading = GLOBAL)]
    pub verbose: bool,
    /// When to use colour (NO_COLOR is honoured with `auto`)
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN", help_heading = GLOBAL)]
    pub color: ColorChoice,
    /// Answer yes to confirmations (never to permission cards)
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub yes: bool,
}

// Parsed once per process; boxing the larger variants would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Install a mini tool from npm, a directory, a .tgz/.zip file or URL
    #[command(visible_aliases = ["install", "i"])]
    Add(minitool::AddArgs),
    /// Update installed mini tools from where they came from
    #[command(visible_alias = "up")]
    Update(minitool::UpdateArgs),
    /// Uninstall a mini tool (its data directory is kept)
    #[command(visible_aliases = ["rm", "uninstall"])]
    Remove(minitool::RemoveArgs),
    /// List installed mini tools
    #[command(visible_alias = "ls")]
    List(minitool::ListArgs),
    /// Enable a mini tool
    Enable(minitool::IdArgs),
    /// Disable a mini tool
    Disable(minitool::IdArgs),
    /// Rescan mini tools, start them and refresh the tool catalog
    Reload(reload::ReloadArgs),
    /// Print the homes and every state file finch uses
    Where,
    /// Check a mini tool package, or the whole environment
    Doctor(minitool::DoctorArgs),
    /// Create a mini tool package that builds and passes its own tests
    New(new::NewArgs),
    /// Run a mini tool package's test cases through the host
    Test(test::TestArgs),
    /// Check, build and write the tarball `npm pack` would, then install it as a check
    Pack(pack::PackArgs),
    /// Build, load and reload a mini tool on every change, with a console
    Dev(dev::DevArgs),
    /// Read and write the agent's memory files
    #[command(subcommand)]
    Memory(memory::MemoryCommand),
    /// Manage scheduled automation tasks
    #[command(subcommand)]
    Schedule(schedule::ScheduleCommand),
    /// Read and change session transcripts
    #[command(subcommand)]
    Session(session::SessionCommand),
    /// List and create spaces
    #[command(subcommand)]
    Space(space::SpaceCommand),
    /// List and show skills
    #[command(subcommand)]
    Skill(skill::SkillCommand),
    /// Configure MCP servers
    #[command(subcommand)]
    Mcp(mcp::McpCommand),
    /// List, search, describe and call tools
    #[command(subcommand)]
    Tool(tool::ToolCommand),
    /// Ask the permission gateway for a verdict
    #[command(subcommand)]
    Policy(policy::PolicyCommand),
    /// Show and use the kernel wall that confines Bash commands
    #[command(subcommand)]
    Sandbox(sandbox::SandboxCommand),
    /// Set, list and delete the secrets of installed mini tools
    #[command(subcommand)]
    Secret(secret::SecretCommand),
    /// Run the tool host
    Run(run::RunArgs),
    /// Print shell completions
    Completions(generate::CompletionsArgs),
    /// Print or write the man pages
    Man(generate::ManArgs),
}
