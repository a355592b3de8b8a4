//! `finch add | update | remove | list | enable | disable | where | doctor`: arguments, the calls
//! into `minitool`, and the output. The human lines printed here are the ones the app parses
//! (SPEC §3); change none of them without changing the app.

use std::path::PathBuf;

use chrono::SecondsFormat;
use clap::Args;
use serde_json::{Value, json};

use crate::Context;
use crate::error::{CommandError, Result};
use crate::homes::{Homes, Tier};
use crate::minitool::Error;
use crate::minitool::add::{self, AddReport};
use crate::minitool::enabled::{self, EnabledState};
use crate::minitool::install::Installer;
use crate::minitool::listing;
use crate::minitool::net::{LazyNetwork, Network};
use crate::minitool::remove;
use crate::minitool::source::{self, Source};
use crate::minitool::tier::TierEntry;
use crate::minitool::update::{self, BatchItem, UpdateOutcome};

#[derive(Debug, Args)]
pub struct AddArgs {
    /// npm package (name[@version|@range|@tag]), directory, .tgz/.zip file, or http(s) URL of one
    #[arg(value_hint = clap::ValueHint::AnyPath)]
    pub source: String,
    /// Install into the global tier (<runtime>/extensions)
    #[arg(short, long)]
    pub global: bool,
    /// Link a source directory instead of copying it (development install)
    #[arg(short, long)]
    pub dev: bool,
    /// npm registry to use instead of the configured one
    #[arg(long, value_name = "URL")]
    pub registry: Option<String>,
}

#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// The mini tool to update
    #[arg(required_unless_present = "all", conflicts_with = "all", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::installed_ids))]
    pub id: Option<String>,
    /// Update every mini tool in the tier
    #[arg(long)]
    pub all: bool,
    /// Use the global tier
    #[arg(short, long)]
    pub global: bool,
    /// npm registry to use instead of the configured one
    #[arg(long, value_name = "URL")]
    pub registry: Option<String>,
    /// Show what would change without changing anything
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct RemoveArgs {
    /// The mini tool to remove
    #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::installed_ids))]
    pub id: String,
    /// Use the global tier
    #[arg(short, long)]
    pub global: bool,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// List the global tier
    #[arg(short, long, conflicts_with = "all_tiers")]
    pub global: bool,
    /// List both tiers
    #[arg(long)]
    pub all_tiers: bool,
    /// List every entry, invalid ones too (marked `,invalid`); on a pipe, as tab-separated values
    #[arg(long)]
    pub long: bool,
    #[command(flatten)]
    pub table: crate::ui::TableArgs,
}

#[derive(Debug, Args)]
pub struct IdArgs {
    /// Mini tool ids
    #[arg(required = true, add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::installed_ids))]
    pub ids: Vec<String>,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// A mini tool package directory to check (default: the current directory when it is a
    /// package, else the environment)
    #[arg(value_hint = clap::ValueHint::DirPath)]
    pub path: Option<PathBuf>,
    /// Check finch's state files and offer to move corrupt ones aside
    #[arg(long, conflicts_with_all = ["path", "env"])]
    pub state: bool,
    /// Check the environment even when the current directory is a package
    #[arg(long, conflicts_with = "path")]
    pub env: bool,
}

fn now_iso() -> String {
    chrono::Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn installer<'a>(ctx: &'a Context, homes: &'a Homes, global: bool) -> Result<Installer<'a>> {
    Ok(Installer {
        homes,
        tier: Tier::from_global_flag(global),
        lock_timeout: ctx.settings()?.lock_timeout,
        now: now_iso(),
    })
}

pub fn cmd_add(ctx: &Context, args: &AddArgs) -> Result<()> {
    let homes = ctx.homes()?;
    let source = source::classify(&args.source, &ctx.cwd, ctx.env.home_dir().as_deref())
        .map_err(Error::from)?;
    if args.dev
        && let Some(message) = dev_refusal(&source, &args.source)
    {
        return Err(CommandError::failed(message)
            .with_code("dev_needs_directory")
            .with_hint("use `finch add <dir> -d`, or drop -d to install a copy"));
    }
    let installer = installer(ctx, homes, args.global)?;
    let settings = ctx.settings()?;
    let network =
        LazyNetwork::new(|| Network::connect(ctx, settings, homes, args.registry.as_deref()));
    let report = add::add(&installer, &source, args.dev, &network)?;
    print_add(ctx, &report, args.dev)
}

/// Why `-d` cannot link `source`, in the official CLI's words (its tests match them). Exit 1,
/// not 2: the command line parses; it is the source that cannot be linked.
fn dev_refusal(source: &Source, raw: &str) -> Option<String> {
    match source {
        Source::Directory(_) => None,
        Source::ZipFile(p) | Source::TgzFile(p) => Some(format!(
            "--dev requires a directory, not an archive: {}",
            p.display()
        )),
        Source::ZipUrl(_) | Source::TgzUrl(_) => Some(format!(
            "--dev only supports a local extension directory; {raw} is a download URL"
        )),
        Source::Npm(_) => Some(format!(
            "--dev only supports a local extension directory; \"{raw}\" is an npm package"
        )),
    }
}

fn print_add(ctx: &Context, report: &AddReport, dev: bool) -> Result<()> {
    for (place, err) in &report.skipped {
        ctx.ui.warn(format!("skipped {place}: {err}"));
    }
    // The MCP servers each one brings, and how they are confined: as the mini tool itself.
    let servers = |id: &str| -> Vec<serde_json::Value> {
        let (Ok(homes), Ok(settings)) = (ctx.homes(), ctx.settings()) else {
            return Vec::new();
        };
        crate::minitool::confine::of_installed(homes, settings, id)
            .and_then(|s| s.get("mcpServers").and_then(|v| v.as_array()).cloned())
            .unwrap_or_default()
    };
    if ctx.ui.json {
        let mut doc = report.to_json();
        for (record, i) in doc["installed"]
            .as_array_mut()
            .into_iter()
            .flatten()
            .zip(&report.installed)
        {
            record["mcpServers"] = serde_json::Value::Array(servers(&i.id));
        }
        return ctx.ui.json(&doc);
    }
    // Which of them are enabled already, for a person at a terminal (the app reads the
    // official line on a pipe, whatever the state).
    let enabled = ctx
        .homes()
        .ok()
        .filter(|_| ctx.ui.stdout_tty)
        .and_then(|homes| EnabledState::load(&homes.extensions_json()).ok());
    let mut lines = Vec::new();
    for i in &report.installed {
        if dev {
            let target = std::fs::read_link(&i.path).unwrap_or_else(|_| i.path.clone());
            lines.push(format!(
                "{} Linked \"{}\" ({}) → {}",
                ctx.ui.green("✓"),
                i.display_name,
                i.id,
                target.display()
            ));
            lines.push("  Development install: source changes are used directly; update will not overwrite this link.".to_string());
        } else {
            lines.push(format!(
                "{} Added \"{}\" ({}) → {}",
                ctx.ui.green("✓"),
                i.display_name,
                i.id,
                i.path.display()
            ));
            if enabled
                .as_ref()
                .is_some_and(|state| state.is_enabled(&i.id))
            {
                lines.push(format!(
                    "  Already enabled: new sessions load this version; `finch reload` updates running ones. `finch disable {}` turns it off.",
                    i.id
                ));
            } else {
                lines.push("  Installed only. Open Finch → Toolcase → Mini Tools to review permissions and enable.".to_string());
                // The official line (the app reads it on a pipe), then finch's next step
                // for a person at a terminal.
                if enabled.is_some() {
                    lines.push(format!("  `finch enable {}` enables it from here.", i.id));
                }
            }
        }
    }
    // Wrapped at spaces on a terminal, each note's lines under its indentation.
    let lines: Vec<String> = lines.iter().flat_map(|l| ctx.ui.prose(l)).collect();
    ctx.ui.done(lines)?;
    // After the lines the app reads, on stderr.
    for i in &report.installed {
        for server in servers(&i.id) {
            let text = |k: &str| server.get(k).and_then(|v| v.as_str()).unwrap_or_default();
            let reach = [text("command"), text("url")].concat();
            ctx.ui.status(format!(
                "  MCP server {} ({reach}) runs confined as {}: {}",
                text("name"),
                i.id,
                crate::minitool::confine::describe(&server["sandbox"])
            ));
        }
    }
    Ok(())
}

pub fn cmd_update(ctx: &Context, args: &UpdateArgs) -> Result<()> {
    let homes = ctx.homes()?;
    let installer = installer(ctx, homes, args.global)?;
    let settings = ctx.settings()?;
    let network =
        LazyNetwork::new(|| Network::connect(ctx, settings, homes, args.registry.as_deref()));
    let note = |text: String| ctx.ui.detail(text);
    let Some(id) = &args.id else {
        return update_all(ctx, &installer, args.dry_run, &network, &note);
    };
    let outcome = update::update_one(&installer, id, args.dry_run, &network, &note)?;
    if ctx.ui.json {
        return ctx.ui.json(&outcome.to_json(args.dry_run));
    }
    print_outcome(ctx, &outcome, args.dry_run)
}

fn print_outcome(ctx: &Context, o: &UpdateOutcome, dry_run: bool) -> Result<()> {
    let v = |v: &Option<String>| {
        v.as_deref()
            .map(|v| format!("v{v}"))
            .unwrap_or_else(|| "unknown".into())
    };
    let line = match (o.changed, dry_run) {
        (true, false) => format!(
            "{} Updated \"{}\" ({}) {} → {}",
            ctx.ui.green("✓"),
            o.display_name,
            o.id,
            v(&o.previous_version),
            v(&o.version)
        ),
        (true, true) => format!(
            "• Would update \"{}\" ({}) {} → {}",
            o.display_name,
            o.id,
            v(&o.previous_version),
            v(&o.version)
        ),
        (false, _) => match &o.held_back {
            Some(h) => format!(
                "• \"{}\" ({}) is pinned to {} ({}); v{} is newer: run `finch add {}@latest` to move it",
                o.display_name,
                o.id,
                h.spec,
                v(&o.version),
                h.latest,
                h.package
            ),
            None => format!(
                "• \"{}\" ({}) is already up to date ({})",
                o.display_name,
                o.id,
                v(&o.version)
            ),
        },
    };
    ctx.ui.line(line)?;
    if let (true, Some(h)) = (o.changed, &o.held_back) {
        ctx.ui.status(format!(
            "  v{} is newer than {} allows: run `finch add {}@latest` to move to it",
            h.latest, h.spec, h.package
        ));
    }
    if !wants_machine_line(ctx) {
        return Ok(());
    }
    let machine = serde_json::to_string(&o.to_json(dry_run)).unwrap_or_default();
    ctx.ui.line(format!("FINCH_CLI_RESULT_JSON:{machine}"))
}

/// Whether `update` prints its `FINCH_CLI_RESULT_JSON:` line (SPEC §3.4). The app runs finch
/// with stdout on a pipe and parses that line, so a pipe always gets it; a person at a terminal
/// does not, unless `FINCH_CLI_RESULT_JSON=1` asks for it (an app that runs finch in a
/// pseudo-terminal).
fn wants_machine_line(ctx: &Context) -> bool {
    !ctx.ui.stdout_tty
        || ctx
            .env
            .get("FINCH_CLI_RESULT_JSON")
            .is_some_and(|v| !v.is_empty() && v != "0")
}

fn update_all(
    ctx: &Context,
    installer: &Installer,
    dry_run: bool,
    network: &LazyNetwork,
    note: &dyn Fn(String),
) -> Result<()> {
    let mut outcomes = Vec::new();
    let summary = update::update_all(installer, dry_run, network, note, |item| -> Result<()> {
        match item {
            BatchItem::Link { id } => {
                ctx.ui
                    .status(format!("• \"{id}\" is a development link; skipped"));
            }
            BatchItem::Done(o) => {
                if !ctx.ui.json {
                    print_outcome(ctx, &o, false)?;
                }
                outcomes.push(o.to_json(false));
            }
            BatchItem::Failed { id, error } => {
                let e = CommandError::from(error);
                ctx.ui
                    .warn(format!("\"{id}\" failed to update: {}", e.message));
                outcomes.push(json!({"id": id, "error": e.to_json()["error"]}));
            }
        }
        Ok(())
    })?;
    let failed = summary.failed;
    let summary = summary.describe();
    if ctx.ui.json {
        ctx.ui.json(&Value::Array(outcomes))?;
    } else {
        ctx.ui.status(summary.clone());
    }
    if failed > 0 {
        let err = CommandError::failed(format!("some mini tools failed to update ({summary})"));
        return Err(if ctx.ui.json {
            err.json_reported()
        } else {
            err
        });
    }
    Ok(())
}

pub fn cmd_remove(ctx: &Context, args: &RemoveArgs) -> Result<()> {
    let homes = ctx.homes()?;
    let installer = installer(ctx, homes, args.global)?;
    let removed = remove::remove(&installer, &args.id)?;
    if ctx.ui.json {
        return ctx.ui.json(&removed.to_json());
    }
    ctx.ui
        .done([format!("{} Removed {}", ctx.ui.green("✓"), removed.id)])
}

pub fn cmd_enable(ctx: &Context, args: &IdArgs, enable: bool) -> Result<()> {
    let homes = ctx.homes()?;
    let changes = enabled::change(homes, &args.ids, enable, ctx.settings()?.lock_timeout)?;
    // No package code runs here (the official CLI's enable only writes state, and the app's
    // dispatcher shells out to it): completion learns a mini tool's arguments from the catalog
    // cache that `reload` and `tool call` write when they start it.
    if ctx.ui.json {
        let items: Vec<Value> = changes.iter().map(|c| c.to_json()).collect();
        return ctx.ui.json(&Value::Array(items));
    }
    let mut lines = Vec::new();
    for c in &changes {
        let id = &c.id;
        if enable {
            if !c.installed {
                ctx.ui.warn(format!(
                    "\"{id}\" is not installed in either tier; enabled it anyway"
                ));
            }
            lines.push(format!("{} Enabled {id}", ctx.ui.green("✓")));
            // The official CLI's note, word for word (its tests and the app read it), then
            // what finch does: it confines each mini tool to its manifest.
            lines.push("  Note: CLI enable does not grant fine-grained permissions yet. Review extension permissions in Finch when available.".to_string());
            if c.installed {
                lines.push(format!("  finch runs it held by the kernel to the permissions its manifest declares; `finch sandbox grant {id}` gives it more."));
            }
        } else {
            lines.push(format!("{} Disabled {id}", ctx.ui.green("✓")));
        }
    }
    // Wrapped at spaces on a terminal, each note's lines under its indentation.
    let lines: Vec<String> = lines.iter().flat_map(|l| ctx.ui.prose(l)).collect();
    ctx.ui.done(lines)
}

pub fn cmd_list(ctx: &Context, args: &ListArgs) -> Result<()> {
    let homes = ctx.homes()?;
    let tiers: Vec<Tier> = if args.all_tiers {
        vec![Tier::Personal, Tier::Global]
    } else {
        vec![Tier::from_global_flag(args.global)]
    };
    // Install records only feed the JSON listing.
    let listing = listing::list_despite_corrupt_state(homes, &tiers, ctx.ui.json)?;
    if let Some(problem) = &listing.state_problem {
        ctx.ui.warn(format!(
            "{problem}; enabled state unknown, every tool shown as disabled (fix the file by hand, or run `finch doctor --state` to move it aside)"
        ));
    }
    if ctx.ui.json {
        // Each entry's problems are in the document.
        return ctx.ui.json(&listing.to_json());
    }
    let table = args.long || ctx.ui.stdout_tty;
    for t in &listing.tiers {
        for e in &t.entries {
            let problems = listing::problems(e);
            if let Some(problem) = problems.first() {
                let g = if t.tier == Tier::Global { " -g" } else { "" };
                let left_out = if table || listing::in_app_format(e) {
                    ""
                } else {
                    "; not listed"
                };
                ctx.ui.warn(format!(
                    "{}: {problem}{left_out} (reinstall it with `finch add`, or remove it with `finch remove {}{g}`)",
                    e.path.display(),
                    e.dir_name
                ));
            }
        }
    }
    let state = ListedState {
        state: &listing.state,
        known: listing.state_problem.is_none(),
    };
    // Only the display name is free text; on a narrow terminal the path goes first, then the
    // version. On a pipe, `--long` gives these rows as tab-separated values (the app's format
    // plus the entries it leaves out).
    let mut out = crate::ui::Table::new(&["ID", "VERSION", "STATUS", "NAME", "PATH"])
        .cut(&["NAME"])
        .optional(&["PATH", "VERSION"]);
    let mut tab_lines = Vec::new();
    let shown = |e: &&TierEntry| table || listing::in_app_format(e);
    // The app reads the "none" line on stdout, but only when nothing at all is listed: with
    // `--all-tiers` an empty tier must not sit between the data lines of the other.
    let all_empty = listing
        .tiers
        .iter()
        .all(|t| !t.entries.iter().any(|e| shown(&e)));
    let mut empty_tiers = Vec::new();
    for t in &listing.tiers {
        let entries: Vec<&TierEntry> = t.entries.iter().filter(shown).collect();
        if entries.is_empty() {
            if all_empty && !table {
                ctx.ui
                    .line(format!("No extensions installed in {}", t.dir.display()))?;
            } else {
                empty_tiers.push(t);
            }
            continue;
        }
        for e in entries {
            if table {
                out.row(table_cells(e, &state).to_vec());
            } else {
                tab_lines.push(list_cells(e, &state).join("\t"));
            }
        }
    }
    if table {
        ctx.ui.table(&out, args.table)?;
    } else {
        // The app's lines, and above them (only when asked) the names of their columns, which
        // are the table's.
        let header = (args.table.header && !tab_lines.is_empty()).then(|| out.header_tsv());
        ctx.ui.lines(header.into_iter().chain(tab_lines))?;
    }
    // Said after the listing, naming the tier: above a table that lists the other tier's
    // tools, "No extensions installed in <dir>" read as if it spoke of them.
    for t in empty_tiers {
        ctx.ui.status(format!(
            "No extensions installed in the {} tier ({})",
            t.tier.name(),
            t.dir.display()
        ));
    }
    Ok(())
}

/// The enabled state a listing shows, and whether it could be read at all.
struct ListedState<'a> {
    state: &'a EnabledState,
    known: bool,
}

/// The five columns of a listing line: dir, version, status, display name, path. On the pipe
/// an unknown state reads `disabled`, as the official CLI prints it.
fn list_cells(e: &TierEntry, state: &ListedState) -> [String; 5] {
    let path = e.path.display().to_string();
    if e.is_broken_link() {
        return [
            e.dir_name.clone(),
            "unknown".into(),
            "linked-broken".into(),
            e.dir_name.clone(),
            path,
        ];
    }
    let mut status = if state.state.is_enabled(&e.dir_name) {
        "enabled"
    } else {
        "disabled"
    }
    .to_string();
    if e.link.is_some() {
        status.push_str(",linked");
    }
    match &e.manifest {
        Ok(m) => [
            e.dir_name.clone(),
            m.version.clone().unwrap_or_else(|| "unknown".into()),
            status,
            m.display_name(),
            path,
        ],
        Err(_) => [
            e.dir_name.clone(),
            "unknown".into(),
            status,
            e.dir_name.clone(),
            path,
        ],
    }
}

/// A table row: the listing line, with `unknown` for an unreadable state and `,invalid` for an
/// entry that is not a valid mini tool (its problem is on stderr).
fn table_cells(e: &TierEntry, state: &ListedState) -> [String; 5] {
    let mut cells = list_cells(e, state);
    if e.is_broken_link() {
        return cells;
    }
    if !state.known {
        let rest = cells[2].strip_prefix("disabled").unwrap_or("").to_string();
        cells[2] = format!("unknown{rest}");
    }
    if !listing::problems(e).is_empty() {
        cells[2].push_str(",invalid");
    }
    cells
}

pub fn cmd_where(ctx: &Context) -> Result<()> {
    let homes = ctx.homes()?;
    let mut items: Vec<(&str, PathBuf)> = vec![
        ("runtime home", homes.runtime.clone()),
        ("agent home", homes.agent.clone()),
        ("personal tier", homes.tier_dir(Tier::Personal)),
        ("global tier", homes.tier_dir(Tier::Global)),
        ("enabled state", homes.extensions_json()),
        (
            "install records",
            homes
                .tier_dir(Tier::Personal)
                .join(crate::minitool::records::LOCK_RECORDS_FILE),
        ),
        (
            "global install records",
            homes
                .tier_dir(Tier::Global)
                .join(crate::minitool::records::LOCK_RECORDS_FILE),
        ),
        ("download cache", homes.minitool_cache()),
        ("tool catalog", homes.catalog_cache()),
        ("mini tool data", homes.runtime.join("extension-data")),
        ("mcp servers", homes.mcp_servers_json()),
        ("app settings", homes.settings_json()),
        ("finch settings", homes.finch_toml()),
        ("tasks", homes.tasks_json()),
        ("run history", homes.runs_dir()),
        ("sessions", homes.sessions_dir()),
        ("spaces", homes.spaces_json()),
        (
            "trusted rules",
            crate::host::policy::trust::trust_file(&homes.runtime),
        ),
        ("logs", homes.logs_dir()),
        ("memory", homes.memory_md()),
        ("daily logs", homes.memory_dir()),
        ("lessons", homes.memory_dir().join("lessons.md")),
        ("space memory", homes.memory_dir().join("spaces")),
        ("profile", homes.agent.join("USER.md")),
        ("personal skills", homes.agent.join("skills")),
        ("global skills", homes.runtime.join("skills")),
    ];
    if ctx.ui.json {
        let mut map = serde_json::Map::new();
        for (label, path) in &items {
            map.insert(camel(label), json!(path));
        }
        map.insert(
            "agentHomeSource".into(),
            homes.agent_source.describe().into(),
        );
        return ctx.ui.json(&Value::Object(map));
    }
    // The official CLI's three lines come first, prefixes and spacing unchanged: scripts and
    // the app read them. Everything else finch knows about follows, aligned.
    let mut lines = vec![
        format!("Personal: {}", homes.tier_dir(Tier::Personal).display()),
        format!("Global:   {}", homes.tier_dir(Tier::Global).display()),
        format!("State:    {}", homes.extensions_json().display()),
    ];
    items.retain(|(label, _)| !OFFICIAL_WHERE_LINES.contains(label));
    let width = items.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
    for (label, path) in &items {
        let suffix = if *label == "agent home" {
            format!("  ({})", homes.agent_source.describe())
        } else {
            String::new()
        };
        lines.push(format!("{label:<width$}  {}{suffix}", path.display()));
    }
    ctx.ui.lines(lines)
}

/// The `where` items the official `Personal:` / `Global:` / `State:` lines already print.
const OFFICIAL_WHERE_LINES: [&str; 3] = ["personal tier", "global tier", "enabled state"];

/// `global install records` → `globalInstallRecords`.
fn camel(label: &str) -> String {
    let mut out = String::new();
    for (i, word) in label.split(' ').enumerate() {
        let mut chars = word.chars();
        if i > 0
            && let Some(first) = chars.next()
        {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        } else {
            out.push_str(word);
        }
    }
    out
}

pub fn cmd_doctor(ctx: &Context, args: &DoctorArgs) -> Result<()> {
    if args.state {
        return crate::cli::doctor::state(ctx);
    }
    match &args.path {
        Some(path) => crate::cli::doctor::package(ctx, path),
        // As the official CLI does, so that a CI step `finch doctor` in a broken package fails.
        None if !args.env && crate::minitool::doctor::is_package_dir(&ctx.cwd) => {
            crate::cli::doctor::package(ctx, &ctx.cwd)
        }
        None => crate::cli::doctor::environment(ctx),
    }
}
