//! `finch completions` and `finch man`: shell completions and man pages generated from the clap
//! definitions. The committed `completions/` and `man/` directories are produced by these commands
//! (`scripts/generate`), and a test fails when they are stale.

use std::path::{Path, PathBuf};

use clap::{Args, CommandFactory, ValueEnum};
use clap_complete::Shell;

use crate::Context;
use crate::error::{CommandError, Result, io_error};

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
    Powershell,
    Elvish,
}

impl CompletionShell {
    fn shell(self) -> Shell {
        match self {
            CompletionShell::Bash => Shell::Bash,
            CompletionShell::Zsh => Shell::Zsh,
            CompletionShell::Fish => Shell::Fish,
            CompletionShell::Powershell => Shell::PowerShell,
            CompletionShell::Elvish => Shell::Elvish,
        }
    }
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to print completions for
    #[arg(value_enum)]
    pub shell: CompletionShell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write one page per command into this directory instead of printing the top page
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

pub fn cmd_completions(_ctx: &Context, args: &CompletionsArgs) -> Result<()> {
    let mut out = Vec::new();
    clap_complete::generate(
        args.shell.shell(),
        &mut crate::cli::Cli::command(),
        "finch",
        &mut out,
    );
    write_stdout(&out)
}

pub fn cmd_man(_ctx: &Context, args: &ManArgs) -> Result<()> {
    let command = crate::cli::Cli::command();
    match &args.out_dir {
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(command)
                .render(&mut out)
                .map_err(|e| CommandError::failed(format!("cannot render the man page: {e}")))?;
            write_stdout(&out)
        }
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| io_error("create", dir, &e))?;
            write_pages(command, dir)
        }
    }
}

/// Writes `finch.1`, `finch-add.1`, `finch-memory-remember.1`, … for every command.
fn write_pages(command: clap::Command, dir: &Path) -> Result<()> {
    let mut command = command;
    command.build();
    write_page_tree(&command, "finch", dir)
}

fn write_page_tree(command: &clap::Command, name: &str, dir: &Path) -> Result<()> {
    let page = command.clone().name(name.to_string());
    let mut out = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut out)
        .map_err(|e| CommandError::failed(format!("cannot render the man page: {e}")))?;
    let path = dir.join(format!("{name}.1"));
    std::fs::write(&path, out).map_err(|e| io_error("write", &path, &e))?;
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        if sub.get_name() == "help" {
            continue;
        }
        write_page_tree(sub, &format!("{name}-{}", sub.get_name()), dir)?;
    }
    Ok(())
}

fn write_stdout(bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|_| out.flush())
        .map_err(|e| io_error("write", Path::new("stdout"), &e))
}
