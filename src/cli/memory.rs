//! `finch memory`: arguments and output; the logic is in `crate::memory`.
//!
//! The clock is read once per command: the real local time, or `FINCH_NOW` (RFC 3339) when set —
//! a testing and scripting aid whose own wall-clock date and time are taken as the local ones.

use std::time::Duration;

use chrono::NaiveDateTime;
use clap::{Subcommand, ValueEnum};
use serde_json::{Value, json};

use crate::Context;
use crate::error::{CommandError, Result};
use crate::memory::{
    self, EntryMatch, Hit, MemoryFile, MemoryHome, SNIPPET_CHARS, Scope, SearchRequest, Skipped,
    Target, entry_json, hit_json, match_error, no_files, selection, show_json,
};
use crate::ui::{Table, TableArgs};

#[derive(Debug, Subcommand)]
pub enum MemoryCommand {
    /// Add an entry to a memory file
    #[command(
        after_help = "Daily entries get the local time (HH:MM) in front. FINCH_NOW=<RFC 3339 time> sets the clock for tests and scripts."
    )]
    Remember {
        /// The entry text
        #[arg(allow_hyphen_values = true)]
        text: String,
        /// Which file: long-term, daily, space:<name>, lessons or profile
        #[arg(long, default_value = "long-term", value_name = "FILE", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::memory_files))]
        to: String,
        /// Put the entry under this heading (created at the end of the file when missing)
        #[arg(long, value_name = "HEADING")]
        section: Option<String>,
    },
    /// Replace exactly one entry
    #[command(
        after_help = "The old text matches an entry by substring (case-sensitive; ignoring case and accents when it matches nothing so). With --id, give only the new text."
    )]
    Replace {
        /// Text that matches the entry to replace (omit with --id)
        #[arg(allow_hyphen_values = true)]
        old: Option<String>,
        /// The new entry text
        #[arg(allow_hyphen_values = true)]
        new: Option<String>,
        /// Id of the entry to replace (or a prefix of at least 4 digits)
        #[arg(long)]
        id: Option<String>,
        /// Only look in this file (long-term, profile, lessons, a date, a space)
        #[arg(long = "in", value_name = "FILE", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::memory_files))]
        within: Option<String>,
    },
    /// Remove an entry
    Forget {
        /// Text that matches the entry to remove (omit with --id)
        #[arg(
            required_unless_present = "id",
            conflicts_with = "id",
            allow_hyphen_values = true
        )]
        text: Option<String>,
        /// Id of the entry to remove (or a prefix of at least 4 digits)
        #[arg(long)]
        id: Option<String>,
        /// Remove every matching entry
        #[arg(long)]
        all_matching: bool,
        /// Only look in this file (long-term, profile, lessons, a date, a space)
        #[arg(long = "in", value_name = "FILE", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::memory_files))]
        within: Option<String>,
    },
    /// Search memory, ranked
    Search {
        /// Words to look for (quoting them is not needed: `finch memory search metric unit`)
        #[arg(required = true, num_args = 1..)]
        query: Vec<String>,
        /// Which files to search
        #[arg(long, value_enum, default_value_t = ScopeArg::All)]
        scope: ScopeArg,
        /// Only this space's memory
        #[arg(long)]
        space: Option<String>,
        /// Only entries dated on or after this day (YYYY-MM-DD)
        #[arg(long, value_name = "DATE")]
        since: Option<String>,
        /// Only entries dated on or before this day (YYYY-MM-DD)
        #[arg(long, value_name = "DATE")]
        until: Option<String>,
        /// At most this many hits (0 for all)
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// List entries with their ids
    #[command(visible_alias = "ls")]
    List {
        /// Which files to list
        #[arg(long, value_enum, default_value_t = ScopeArg::All)]
        scope: ScopeArg,
        /// Only this space's memory
        #[arg(long)]
        space: Option<String>,
        #[command(flatten)]
        table: TableArgs,
    },
    /// Show a memory file, a day's log or a space's memory
    Show {
        /// long-term, profile, lessons, today, a date (YYYY-MM-DD), or a space name
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::memory_files))]
        what: String,
    },
    /// Delete daily logs older than a duration
    #[command(
        after_help = "Asks first; without a terminal pass --yes. FINCH_NOW=<RFC 3339 time> sets the clock for tests and scripts."
    )]
    Prune {
        /// Age with a unit, e.g. 30d
        #[arg(long, value_name = "DURATION")]
        older_than: String,
        /// Print what would be deleted, delete nothing
        #[arg(long)]
        dry_run: bool,
    },
}

/// Which memory files `search` and `list` read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScopeArg {
    All,
    LongTerm,
    Daily,
    Spaces,
    Lessons,
    Profile,
}

impl From<ScopeArg> for Scope {
    fn from(s: ScopeArg) -> Scope {
        match s {
            ScopeArg::All => Scope::All,
            ScopeArg::LongTerm => Scope::LongTerm,
            ScopeArg::Daily => Scope::Daily,
            ScopeArg::Spaces => Scope::Spaces,
            ScopeArg::Lessons => Scope::Lessons,
            ScopeArg::Profile => Scope::Profile,
        }
    }
}

pub fn run(ctx: &Context, command: &MemoryCommand) -> Result<()> {
    let now = clock(ctx)?;
    match command {
        MemoryCommand::Remember { text, to, section } => {
            let target = Target::parse(to).map_err(CommandError::from)?;
            let home = home(ctx, true)?;
            let new_home = !home.agent.exists();
            let done = memory::remember(&home, &target, text, section.as_deref(), now)
                .map_err(CommandError::from)?;
            if new_home {
                ctx.ui
                    .status(format!("Created the agent home {}", home.agent.display()));
            }
            if ctx.ui.json {
                let mut v = entry_json(&done.entry);
                v["createdFile"] = done.created_file.into();
                v["createdSection"] = done.created_section.into();
                return ctx.ui.json(&v);
            }
            ctx.ui.done([format!(
                "{} Remembered in {}:{} ({})",
                ctx.ui.green("✓"),
                done.entry.file.name,
                done.entry.line,
                done.entry.id
            )])
        }
        MemoryCommand::Replace {
            old,
            new,
            id,
            within,
        } => {
            let (which, new_text) = match (id, old, new) {
                (Some(id), Some(text), None) => (EntryMatch::new_id(id), text),
                (None, Some(old), Some(text)) => (EntryMatch::new_text(old), text),
                (Some(_), _, _) => {
                    return Err(CommandError::usage(
                        "with --id, give only the new text: `finch memory replace --id ID <new text>`",
                    ));
                }
                _ => {
                    return Err(CommandError::usage(
                        "give the old and the new text: `finch memory replace <old text> <new text>`",
                    )
                    .with_hint("or choose the entry by id: `finch memory replace --id ID <new text>`"));
                }
            };
            let which = which.map_err(CommandError::from)?;
            let home = home(ctx, true)?;
            let within = within_file(&home, within.as_deref(), now)?;
            let done = memory::replace(&home, &which, within.as_ref(), new_text, now)
                .map_err(|e| match_error(e, false))?;
            warn_skipped(ctx, &done.skipped);
            if ctx.ui.json {
                return ctx
                    .ui
                    .json(&json!({"old": entry_json(&done.old), "new": entry_json(&done.new)}));
            }
            ctx.ui.line(format!(
                "{} Replaced {} → {} in {}:{}",
                ctx.ui.green("✓"),
                done.old.id,
                done.new.id,
                done.new.file.name,
                done.new.line
            ))
        }
        MemoryCommand::Forget {
            text,
            id,
            all_matching,
            within,
        } => {
            let which = match (id, text) {
                (Some(id), _) => EntryMatch::new_id(id),
                (None, Some(text)) => EntryMatch::new_text(text),
                (None, None) => return Err(CommandError::usage("give the text or --id to forget")),
            }
            .map_err(CommandError::from)?;
            let home = home(ctx, true)?;
            let within = within_file(&home, within.as_deref(), now)?;
            let done = memory::forget(&home, &which, within.as_ref(), *all_matching)
                .map_err(|e| match_error(e, true))?;
            warn_skipped(ctx, &done.skipped);
            if ctx.ui.json {
                return ctx.ui.json(&json!({
                    "removed": done.removed.iter().map(entry_json).collect::<Vec<_>>()
                }));
            }
            for e in &done.removed {
                ctx.ui.line(format!(
                    "{} Forgot {}  {}:{}  {}",
                    ctx.ui.green("✓"),
                    e.id,
                    e.file.name,
                    e.line,
                    e.text
                ))?;
            }
            Ok(())
        }
        MemoryCommand::Search {
            query,
            scope,
            space,
            since,
            until,
            limit,
        } => {
            let selection = selection(
                (*scope).into(),
                space.as_deref(),
                since.as_deref(),
                until.as_deref(),
            )?;
            let home = home(ctx, false)?;
            let query = query.join(" ");
            let request = SearchRequest {
                query: &query,
                selection,
                limit: *limit,
                snippet_width: SNIPPET_CHARS,
                today: now.date(),
            };
            let found = memory::search(&home, &request).map_err(CommandError::from)?;
            warn_skipped(ctx, &found.skipped);
            if ctx.ui.json {
                return ctx
                    .ui
                    .json(&Value::Array(found.hits.iter().map(hit_json).collect()));
            }
            if found.hits.is_empty() {
                ctx.ui.status(if found.files == 0 {
                    no_files(&home)
                } else {
                    format!(
                        "No matches for \"{query}\" in {} memory file{}",
                        found.files,
                        if found.files == 1 { "" } else { "s" }
                    )
                });
                return Ok(());
            }
            print_hits(ctx, &found.hits, &request)
        }
        MemoryCommand::List {
            scope,
            space,
            table: table_args,
        } => {
            let selection = selection((*scope).into(), space.as_deref(), None, None)?;
            let home = home(ctx, false)?;
            let (entries, skipped) = memory::list(&home, &selection).map_err(CommandError::from)?;
            warn_skipped(ctx, &skipped);
            if ctx.ui.json {
                return ctx
                    .ui
                    .json(&Value::Array(entries.iter().map(entry_json).collect()));
            }
            if entries.is_empty() {
                ctx.ui.status(if home.agent.exists() {
                    format!("No memory entries in {}", home.agent.display())
                } else {
                    no_files(&home)
                });
                return Ok(());
            }
            // Sub-items are indented under the item they are nested in (on a terminal).
            let mut table = Table::new(&["ID", "WHERE", "TEXT"])
                .cut(&["TEXT"])
                .optional(&["WHERE"]);
            let mut depth: Vec<(String, usize)> = Vec::new();
            for e in &entries {
                let d = match &e.parent {
                    Some(p) => depth
                        .iter()
                        .rev()
                        .find(|(id, _)| id == p)
                        .map_or(1, |(_, d)| d + 1),
                    None => 0,
                };
                depth.push((e.id.clone(), d));
                let place = format!("{}:{}", e.file.name, e.line);
                table.row_piped(
                    vec![
                        e.id.clone(),
                        place.clone(),
                        format!("{}{}", "  ".repeat(d), e.text),
                    ],
                    vec![
                        ("ID", e.id.clone()),
                        ("WHERE", place),
                        ("TEXT", e.text.clone()),
                    ],
                );
            }
            ctx.ui.table(&table, *table_args)
        }
        MemoryCommand::Show { what } => {
            let home = home(ctx, false)?;
            let file = memory::resolve_file(&home, what, now.date()).map_err(CommandError::from)?;
            let text = memory::show(&file).map_err(CommandError::from)?;
            if ctx.ui.json {
                return ctx.ui.json(&show_json(&file, &text));
            }
            match text.strip_suffix('\n') {
                Some(body) => ctx.ui.line(body),
                None if text.is_empty() => Ok(()),
                None => ctx.ui.line(&text),
            }
        }
        MemoryCommand::Prune {
            older_than,
            dry_run,
        } => {
            let age = prune_age(older_than)?;
            let home = home(ctx, true)?;
            let logs = memory::prune_candidates(&home, age, now).map_err(CommandError::from)?;
            let files_json = |files: &[MemoryFile]| {
                Value::Array(files.iter().map(file_json).collect::<Vec<_>>())
            };
            if logs.is_empty() {
                if ctx.ui.json {
                    return ctx.ui.json(&json!({"deleted": [], "dryRun": dry_run}));
                }
                ctx.ui
                    .status(format!("No daily logs older than {older_than}"));
                return Ok(());
            }
            if *dry_run {
                if ctx.ui.json {
                    return ctx
                        .ui
                        .json(&json!({"deleted": files_json(&logs), "dryRun": true}));
                }
                for f in &logs {
                    ctx.ui.line(format!("would delete {}", f.name))?;
                }
                return Ok(());
            }
            let question = format!(
                "Delete {} daily log{} older than {older_than} ({} … {})?",
                logs.len(),
                if logs.len() == 1 { "" } else { "s" },
                logs[0].name,
                logs[logs.len() - 1].name
            );
            if !ctx.ui.confirm(&question)? {
                ctx.ui.status("Nothing deleted");
                return Ok(());
            }
            let deleted = memory::prune(&home, &logs).map_err(CommandError::from)?;
            if ctx.ui.json {
                return ctx
                    .ui
                    .json(&json!({"deleted": files_json(&deleted), "dryRun": false}));
            }
            for f in &deleted {
                ctx.ui.line(format!("Deleted {}", f.name))?;
            }
            Ok(())
        }
    }
}

/// The local time of this command (`FINCH_NOW` or the system clock) as a wall-clock time.
fn clock(ctx: &Context) -> Result<NaiveDateTime> {
    Ok(ctx.now()?.naive_local())
}

/// The memory files' home; commands that change files also need the lock timeout setting.
fn home(ctx: &Context, writes: bool) -> Result<MemoryHome> {
    let agent = ctx.homes()?.agent.clone();
    let timeout = if writes {
        ctx.settings()?.lock_timeout
    } else {
        Duration::from_secs(10)
    };
    Ok(MemoryHome::new(agent, timeout))
}

/// `--older-than`: a duration with a unit (a bare number would be seconds, which would delete
/// every log before today — never what anyone means).
fn prune_age(text: &str) -> Result<Duration> {
    let t = text.trim();
    let has_unit = t.chars().last().is_some_and(|c| c.is_ascii_alphabetic());
    match crate::config::parse_duration(t) {
        Some(d) if has_unit => Ok(d),
        _ => Err(
            CommandError::usage(format!("--older-than \"{text}\" is not an age"))
                .with_hint("write a number with a unit, e.g. 30d, 12h"),
        ),
    }
}

fn within_file(
    home: &MemoryHome,
    within: Option<&str>,
    now: NaiveDateTime,
) -> Result<Option<MemoryFile>> {
    within
        .map(|w| memory::resolve_file(home, w, now.date()).map_err(CommandError::from))
        .transpose()
}

fn warn_skipped(ctx: &Context, skipped: &[Skipped]) {
    for s in skipped {
        ctx.ui.warn(format!("skipped {}", s.error));
    }
}

fn print_hits(ctx: &Context, hits: &[Hit], request: &SearchRequest) -> Result<()> {
    let date = |h: &Hit| h.entry.date.map(|d| d.to_string()).unwrap_or_default();
    let place = |h: &Hit| format!("{}:{}", h.entry.file.name, h.entry.line);
    if !ctx.ui.stdout_tty {
        for h in hits {
            ctx.ui.line(format!(
                "{}\t{}\t{}\t{}",
                h.entry.id,
                place(h),
                date(h),
                h.snippet.text
            ))?;
        }
        return Ok(());
    }
    // A table whose last column is cut to the terminal by the snippet itself, so that the
    // highlighting never gets cut in half.
    let place_w = hits
        .iter()
        .map(|h| place(h).chars().count())
        .max()
        .unwrap_or(0)
        .max("WHERE".len());
    let text_w = ctx
        .ui
        .width()
        .saturating_sub(8 + 2 + place_w + 2 + 10 + 2)
        .max(20);
    ctx.ui.line(format!(
        "{:<8}  {:<place_w$}  {:<10}  TEXT",
        "ID", "WHERE", "DATE"
    ))?;
    let query = crate::search::Query::new(request.query);
    for h in hits {
        let s = crate::search::snippet(&h.entry.text, &query, text_w.saturating_sub(2));
        let mut marked = String::new();
        let mut at = 0;
        for m in &s.matches {
            marked.push_str(&s.text[at..m.start]);
            marked.push_str(&ctx.ui.bold(&s.text[m.clone()]));
            at = m.end;
        }
        marked.push_str(&s.text[at..]);
        ctx.ui.line(format!(
            "{:<8}  {:<place_w$}  {:<10}  {marked}",
            h.entry.id,
            place(h),
            date(h)
        ))?;
    }
    Ok(())
}

fn file_json(f: &MemoryFile) -> Value {
    let date = match &f.kind {
        memory::FileKind::Daily(d) => Some(d.to_string()),
        _ => None,
    };
    json!({"file": f.name, "path": f.path, "date": date})
}
