//! `finch session`: arguments and output; the logic is in `crate::session`.
//!
//! The clock is read once per command: the system clock, or `FINCH_NOW` (RFC 3339) when set, as
//! `memory` and `schedule` do — it stamps appended entries and anchors `--since` ages.

use std::path::PathBuf;

use chrono::{DateTime, Local, Utc};
use clap::Subcommand;
use serde_json::{Value, json};

use crate::Context;
use crate::error::{CommandError, Result};
use crate::homes::absolutize;
use crate::search::Snippet;
use crate::session::locate::{self, ListOptions, SessionRef};
use crate::session::transcript::{self, Transcript};
use crate::session::{Appended, SearchOptions, append, search, since};
use crate::ui::{Table, TableArgs, Ui};

#[derive(Debug, Subcommand)]
pub enum SessionCommand {
    /// List sessions, most recently active first
    #[command(visible_alias = "ls")]
    List {
        /// Only sessions whose working directory is DIR or inside it
        #[arg(long, value_name = "DIR")]
        workspace: Option<PathBuf>,
        /// Show at most N sessions (0 for all)
        #[arg(long, default_value_t = 20, value_name = "N")]
        limit: usize,
        #[command(flatten)]
        table: TableArgs,
    },
    /// Show a transcript
    Show {
        /// Session id, or a prefix of it that names one session
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::session_ids))]
        id: String,
    },
    /// Search message text, tool names and tool arguments of every transcript, ranked
    Search {
        /// Words to find (an entry holding them as a phrase ranks higher)
        query: String,
        /// Show at most N hits (0 for all)
        #[arg(long, default_value_t = 20, value_name = "N")]
        limit: usize,
        /// Only entries since DATE: 2026-03-01, 2026-03-01T09:30, an RFC 3339 time, or an age
        /// such as 12h, 7d, 2w
        #[arg(long, value_name = "DATE")]
        since: Option<String>,
    },
    /// Set a session's title
    Rename {
        /// Session id, or a prefix of it that names one session
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::session_ids))]
        id: String,
        title: String,
    },
    /// Trust another directory for a session's file tools
    ExtendDir {
        /// Session id, or a prefix of it that names one session
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::session_ids))]
        id: String,
        /// An existing directory (stored as its canonical absolute path)
        dir: PathBuf,
    },
    /// Attach a file (at most 20 MiB) to a session's composer draft
    Attach {
        /// Session id, or a prefix of it that names one session
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::session_ids))]
        id: String,
        file: PathBuf,
    },
}

pub fn run(ctx: &Context, command: &SessionCommand) -> Result<()> {
    match command {
        SessionCommand::List {
            workspace,
            limit,
            table,
        } => cmd_list(ctx, workspace.as_ref(), *limit, *table),
        SessionCommand::Show { id } => cmd_show(ctx, id),
        SessionCommand::Search {
            query,
            limit,
            since,
        } => cmd_search(ctx, query, *limit, since.as_deref()),
        SessionCommand::Rename { id, title } => {
            let (session, now, timeout) = prepare_append(ctx, id)?;
            let done =
                append::rename(&session.path, title, now, timeout).map_err(CommandError::from)?;
            report_append(ctx, &session, &done, || {
                format!("Renamed session {} to \"{}\"", session.id, title.trim())
            })
        }
        SessionCommand::ExtendDir { id, dir } => {
            let (session, now, timeout) = prepare_append(ctx, id)?;
            let dir = absolutize(dir, &ctx.cwd);
            let done = append::extend_dir(&session.path, &dir, now, timeout)
                .map_err(CommandError::from)?;
            report_append(ctx, &session, &done, || {
                let path = done.entry.pointer("/data/path").and_then(Value::as_str);
                format!(
                    "Trusted {} for session {}",
                    path.unwrap_or_default(),
                    session.id
                )
            })
        }
        SessionCommand::Attach { id, file } => {
            let (session, now, timeout) = prepare_append(ctx, id)?;
            let file = absolutize(file, &ctx.cwd);
            let done =
                append::attach(&session.path, &file, now, timeout).map_err(CommandError::from)?;
            report_append(ctx, &session, &done, || {
                let data = done.entry.get("data").cloned().unwrap_or_default();
                format!(
                    "Attached {} ({}, {}) to session {}",
                    data["path"].as_str().unwrap_or_default(),
                    data["mimeType"].as_str().unwrap_or_default(),
                    transcript::human_size(data["size"].as_u64().unwrap_or(0)),
                    session.id
                )
            })
        }
    }
}

fn cmd_list(
    ctx: &Context,
    workspace: Option<&PathBuf>,
    limit: usize,
    args: TableArgs,
) -> Result<()> {
    let homes = ctx.homes()?;
    let options = ListOptions {
        workspace: workspace.map(|w| absolutize(w, &ctx.cwd)),
        limit,
    };
    let (sessions, warnings) = locate::list(homes, &options).map_err(CommandError::from)?;
    for w in &warnings {
        ctx.ui.warn(w);
    }
    if ctx.ui.json {
        return ctx.ui.json(&Value::Array(
            sessions.iter().map(|s| s.to_json()).collect(),
        ));
    }
    if sessions.is_empty() {
        ctx.ui
            .status(format!("No sessions in {}", homes.sessions_dir().display()));
        return Ok(());
    }
    let text = |s: &Option<String>| s.as_deref().map(one_field).unwrap_or_default();
    let mut table = Table::new(&[
        "ID",
        "TITLE",
        "WORKSPACE",
        "STARTED",
        "LAST ACTIVITY",
        "MESSAGES",
    ])
    .cut(&["TITLE"])
    .optional(&["WORKSPACE", "STARTED", "MESSAGES"]);
    for s in &sessions {
        // On a pipe: the whole id and the times as recorded.
        table.row_piped(
            vec![
                s.short_id.clone(),
                text(&s.title),
                text(&s.workspace),
                local_time(s.started.as_deref()),
                local_time(s.last_activity.as_deref()),
                s.messages.to_string(),
            ],
            vec![
                ("ID", s.id.clone()),
                ("TITLE", text(&s.title)),
                ("WORKSPACE", text(&s.workspace)),
                ("STARTED", text(&s.started)),
                ("LAST ACTIVITY", text(&s.last_activity)),
                ("MESSAGES", s.messages.to_string()),
            ],
        );
    }
    ctx.ui.table(&table, args)
}

fn cmd_show(ctx: &Context, id: &str) -> Result<()> {
    let session = locate::resolve(ctx.homes()?, id).map_err(CommandError::from)?;
    let transcript = Transcript::read(&session.path).map_err(CommandError::from)?;
    for w in &transcript.warnings {
        ctx.ui.warn(w);
    }
    if ctx.ui.json {
        return ctx.ui.json(&Value::Array(transcript.entries));
    }
    let ui = &ctx.ui;
    let header = &transcript.header;
    ui.line(format!("{} {}", ui.bold("Session"), header.id))?;
    if let Some(title) = transcript.title() {
        ui.line(format!("Title:     {title}"))?;
    }
    if let Some(cwd) = &header.cwd {
        ui.line(format!("Workspace: {cwd}"))?;
    }
    ui.line(format!(
        "Started:   {}",
        local_time(header.timestamp.as_deref())
    ))?;
    ui.line(format!("File:      {}", transcript.path.display()))?;
    for entry in &transcript.entries {
        let Some(described) = transcript::describe(entry) else {
            continue;
        };
        let time = local_time(entry.get("timestamp").and_then(Value::as_str));
        let id = entry.get("id").and_then(Value::as_str).unwrap_or("");
        ui.line("")?;
        ui.line(format!(
            "{}  {}  {}",
            ui.dim(&time),
            ui.bold(&described.heading),
            ui.dim(id)
        ))?;
        for line in described.body {
            ui.line(format!("  {line}"))?;
        }
    }
    Ok(())
}

fn cmd_search(ctx: &Context, query: &str, limit: usize, since: Option<&str>) -> Result<()> {
    let since = match since {
        Some(text) => Some(since::parse_since_arg(text, now(ctx)?)?),
        None => None,
    };
    let options = SearchOptions {
        query: query.to_string(),
        limit,
        since,
    };
    let results = search::search(ctx.homes()?, &options).map_err(CommandError::from)?;
    for w in &results.warnings {
        ctx.ui.warn(w);
    }
    if ctx.ui.json {
        return ctx.ui.json(&Value::Array(
            results.hits.iter().map(|h| h.to_json()).collect(),
        ));
    }
    if results.hits.is_empty() {
        ctx.ui.status(format!(
            "No matches in {} session(s)",
            results.sessions_searched
        ));
        return Ok(());
    }
    let ui = &ctx.ui;
    for hit in &results.hits {
        let entry = hit.entry.as_deref().unwrap_or("-");
        if !ui.stdout_tty {
            ui.line(format!(
                "{}\t{}\t{}\t{}\t{}",
                hit.session,
                entry,
                hit.role,
                hit.timestamp.as_deref().unwrap_or(""),
                one_field(&hit.snippet.text)
            ))?;
            continue;
        }
        let workspace = hit.workspace.as_deref().unwrap_or("");
        ui.line(format!(
            "{}  {}  {}  {}  {}",
            ui.bold(&hit.session),
            ui.dim(entry),
            hit.role,
            ui.dim(&local_time(hit.timestamp.as_deref())),
            ui.dim(workspace)
        ))?;
        ui.line(format!("    {}", highlight(ui, &hit.snippet)))?;
    }
    Ok(())
}

/// Resolves the session and reads the clock and lock timeout for an append.
fn prepare_append(
    ctx: &Context,
    id: &str,
) -> Result<(SessionRef, DateTime<Utc>, std::time::Duration)> {
    let session = locate::resolve(ctx.homes()?, id).map_err(CommandError::from)?;
    let timeout = ctx.settings()?.lock_timeout;
    Ok((session, now(ctx)?, timeout))
}

/// This command's clock (`FINCH_NOW` or the system clock), in UTC.
fn now(ctx: &Context) -> Result<DateTime<Utc>> {
    Ok(ctx.now()?.to_utc())
}

fn report_append(
    ctx: &Context,
    session: &SessionRef,
    done: &Appended,
    message: impl FnOnce() -> String,
) -> Result<()> {
    if ctx.ui.json {
        return ctx.ui.json(&json!({
            "session": session.id,
            "path": done.path,
            "entry": done.entry,
        }));
    }
    ctx.ui.line(format!("{} {}", ctx.ui.green("✓"), message()))
}

/// The snippet with its matches in bold yellow (plain when colour is off).
fn highlight(ui: &Ui, snippet: &Snippet) -> String {
    let mut out = String::with_capacity(snippet.text.len());
    let mut at = 0;
    for m in &snippet.matches {
        out.push_str(&snippet.text[at..m.start]);
        out.push_str(&ui.bold(&ui.yellow(&snippet.text[m.clone()])));
        at = m.end;
    }
    out.push_str(&snippet.text[at..]);
    out
}

/// A value for a tab-separated line: tabs and line breaks become spaces.
fn one_field(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// An ISO-8601 timestamp as local `YYYY-MM-DD HH:MM:SS` for people; as written when it does not
/// parse.
pub(crate) fn local_time(timestamp: Option<&str>) -> String {
    match locate::instant(timestamp) {
        Some(t) => t
            .with_timezone(&Local)
            .format("%Y-%m-%d %H:%M:%S")
            .to_string(),
        None => timestamp.unwrap_or("").to_string(),
    }
}
