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

/// The script that makes the shell ask finch for completions (`cli::complete`): commands,
/// flags and what is installed now. Every shell clap_complete's dynamic engine knows gets it.
pub fn cmd_completions(_ctx: &Context, args: &CompletionsArgs) -> Result<()> {
    let name = args
        .shell
        .to_possible_value()
        .map(|v| v.get_name().to_string())
        .unwrap_or_default();
    if let Some(script) = crate::cli::complete::registration(&name) {
        return write_stdout(&script);
    }
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
    // The tree without the examples in `after_help`: a page gives them a section of their own.
    let command = crate::cli::Cli::command();
    match &args.out_dir {
        None => {
            let mut command = command;
            command.build();
            write_stdout(&render_page(&command, "")?)
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
    write_page_tree(&command, "", dir)
}

fn write_page_tree(command: &clap::Command, path: &str, dir: &Path) -> Result<()> {
    let out = render_page(command, path)?;
    let name = page_name(path);
    let file = dir.join(format!("{name}.1"));
    std::fs::write(&file, out).map_err(|e| io_error("write", &file, &e))?;
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        if sub.get_name() == "help" {
            continue;
        }
        let sub_path = if path.is_empty() {
            sub.get_name().to_string()
        } else {
            format!("{path} {}", sub.get_name())
        };
        write_page_tree(sub, &sub_path, dir)?;
    }
    Ok(())
}

/// `finch`, `finch-schedule-create`: the page of the command at `path`.
fn page_name(path: &str) -> String {
    std::iter::once("finch")
        .chain(path.split_whitespace())
        .collect::<Vec<_>>()
        .join("-")
}

/// One page: clap_mangen's sections, then EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES
/// (`cli::examples`), then the version.
fn render_page(command: &clap::Command, path: &str) -> Result<Vec<u8>> {
    let page = command.clone().name(page_name(path));
    let man = clap_mangen::Man::new(page.clone());
    let failed =
        |e: std::io::Error| CommandError::failed(format!("cannot render the man page: {e}"));
    let mut out = Vec::new();
    man.render_title(&mut out).map_err(failed)?;
    man.render_name_section(&mut out).map_err(failed)?;
    man.render_synopsis_section(&mut out).map_err(failed)?;
    man.render_description_section(&mut out).map_err(failed)?;
    if page.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut out).map_err(failed)?;
    }
    if page.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(&mut out).map_err(failed)?;
    }
    if page.get_after_help().is_some() || page.get_after_long_help().is_some() {
        man.render_extra_section(&mut out).map_err(failed)?;
    }
    let examples = crate::cli::examples::of(path).unwrap_or_default();
    let mut roff = String::new();
    if !examples.is_empty() {
        roff.push_str(".SH EXAMPLES\n");
        for (line, what) in examples {
            roff.push_str(&format!(
                ".TP\n\\fB{}\\fR\n{}\n",
                escape(line),
                escape(what)
            ));
        }
    }
    for (title, items) in [
        ("EXIT STATUS", crate::cli::examples::EXIT_STATUS),
        ("ENVIRONMENT", crate::cli::examples::ENVIRONMENT),
        ("FILES", crate::cli::examples::FILES),
    ] {
        roff.push_str(&format!(".SH \"{title}\"\n"));
        for (name, what) in items {
            roff.push_str(&format!(
                ".TP\n\\fB{}\\fR\n{}\n",
                escape(name),
                escape(what)
            ));
        }
    }
    out.extend_from_slice(roff.as_bytes());
    if page.get_version().is_some() {
        man.render_version_section(&mut out).map_err(failed)?;
    }
    Ok(out)
}

/// Text as roff shows it: backslashes escaped, minus signs as minus signs, and no line that
/// starts with a control character.
fn escape(text: &str) -> String {
    let text = text.replace('\\', "\\e").replace('-', "\\-");
    if text.starts_with(['.', '\'']) {
        format!("\\&{text}")
    } else {
        text
    }
}

fn write_stdout(bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|_| out.flush())
        .map_err(|e| io_error("write", Path::new("stdout"), &e))
}
