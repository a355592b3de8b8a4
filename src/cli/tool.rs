//! `finch tool list|search|info|call` (SPEC §8.7). `list`, `search` and `info` read the catalog
//! without starting anything: the built-ins and suites from the binary, the mini tool and MCP
//! layers from the cache `reload` writes (`<runtime>/cache/catalog.json`; `search` ranks through
//! its index `catalog.index` when that matches the cache, `toolsearch::index`); `list` and
//! `search` name `finch reload` when a configured MCP server has no tools there
//! (`mcp_cache_hint`). `call` runs one call through a whole host session — same gateway, cards
//! and transcript as `finch run` — and maps the outcome to an exit code: 0 ran, 1 the tool
//! failed or the arguments were invalid, 3 no such tool, 4 refused (a rule, a card, or nobody
//! to ask); a Bash call that ran exits with its command's own status (`ran_status`), except
//! with `--json`, whose record carries it as `exitCode`.
//!
//! Without `--session`, the calls of one day in one directory share a session titled `tool calls
//! on <date>` (`day_session_title`, `HostOptions::join_titled`), and a call of an unknown tool or
//! one refused before a card was shown leaves no session behind (`SessionState::forget_run`).
//!
//! `call` names its tool exactly, so a dynamic tool it names is activated first: a person or
//! script that names a tool has done what ToolSearch does for a model.

use std::path::Path;

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use super::run::{SessionArgs, host_options};
use crate::Context;
use crate::error::{CommandError, Result};
use crate::host::Failure;
use crate::host::Provider;
use crate::host::assembly::{self, Assembly, External, Layers};
use crate::host::builtins::Builtins;
use crate::host::catalog::{self, CachedTool, Catalog, Exposure, Lookup, ToolDef, ToolSpec};
use crate::host::frontend::console::{key_values, print_content, print_verdict};
use crate::host::naming;
use crate::host::policy::{Mode, Rules, ToolCall, Workspace, decide};
use crate::host::suites::Suites;
use crate::host::tool::Layer;
use crate::host::tool::ToolRef;
use crate::host::toolsearch::index::Indexed;
use crate::host::toolsearch::{self, Searchable, SourceFilter, search_once};
use crate::ui::{Table, TableArgs, first_line};

#[derive(Debug, Subcommand)]
pub enum ToolCommand {
    /// List the tools in the catalog
    #[command(visible_alias = "ls")]
    List(ListArgs),
    /// Rank the catalog's tools for a query, as ToolSearch does
    Search(SearchArgs),
    /// Describe one tool: layer, owner, exposure, permission, schema
    Info(InfoArgs),
    /// Call one tool through the permission gateway
    Call(CallArgs),
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only tools from this source: builtin, suite, minitool, minitool:<id>, mcp, mcp:<server>
    #[arg(long, value_name = "SOURCE")]
    pub source: Option<String>,
    #[command(flatten)]
    pub table: TableArgs,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// What the tool should do, in words
    pub query: String,
    /// Only tools from this source: builtin, suite, minitool, minitool:<id>, mcp, mcp:<server>
    #[arg(long, value_name = "SOURCE")]
    pub source: Option<String>,
    /// How many tools to show (0 = all that match)
    #[arg(long, default_value_t = 8)]
    pub limit: usize,
    /// Show why each tool ranked: the query terms it matched, in which fields, and what each
    /// added to its score (how the model will find a tool)
    #[arg(long)]
    pub explain: bool,
    #[command(flatten)]
    pub table: TableArgs,
}

#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The tool's model-facing name (or a raw name only one tool registered)
    #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::tool_names))]
    pub name: String,
}

#[derive(Debug, Args)]
pub struct CallArgs {
    /// The tool's model-facing name (or a raw name only one tool registered)
    #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::tool_names))]
    pub name: String,
    /// The arguments: one JSON object, or key=value pairs (typed by the tool's schema: text for a string parameter, JSON for the others)
    #[arg(value_name = "ARGS", add = clap_complete::engine::ArgValueCompleter::new(crate::cli::complete::tool_arguments))]
    pub args: Vec<String>,
    #[command(flatten)]
    pub session: SessionArgs,
}

pub fn run(ctx: &Context, command: &ToolCommand) -> Result<()> {
    if matches!(
        command,
        ToolCommand::List(_) | ToolCommand::Search(_) | ToolCommand::Info(_)
    ) {
        // What was added, enabled, removed or configured since the cache was built is in it.
        let env = ctx.host_env()?;
        crate::host::assembly::refresh_stale_catalog(&env, &ctx.cwd, &ctx.ui)?;
    }
    match command {
        ToolCommand::List(args) => cmd_list(ctx, args),
        ToolCommand::Search(args) => cmd_search(ctx, args),
        ToolCommand::Info(args) => cmd_info(ctx, args),
        ToolCommand::Call(args) => cmd_call(ctx, args),
    }
}

/// The catalog as the last `reload` left it: built-ins, suites, then the cached layers (their
/// input schemas only when `schemas`).
fn cached_catalog(ctx: &Context, schemas: bool) -> Result<Catalog> {
    let homes = ctx.homes()?;
    let mut defs = Builtins.defs();
    defs.extend(Suites::default().defs());
    let path = homes.catalog_cache();
    let cached = if schemas {
        catalog::read_cache(&path)
    } else {
        catalog::read_cache_listing(&path)
    }
    .map_err(cache_error)?;
    defs.extend(cached);
    Ok(Catalog::build(defs))
}

fn cmd_list(ctx: &Context, args: &ListArgs) -> Result<()> {
    // Never freed, as in `cmd_search`.
    let catalog: &Catalog = Box::leak(Box::new(cached_catalog(ctx, false)?));
    let filter = source_filter(args.source.as_deref())?;
    mcp_cache_hint(
        ctx,
        &filter,
        catalog.tools().iter().map(|t| t.def.source.as_str()),
    );
    let tools: Vec<&ToolSpec> = catalog
        .tools()
        .iter()
        .filter(|t| filter.admits(*t))
        .collect();
    if ctx.ui.json {
        let list: Vec<Value> = tools.iter().map(|t| summary_json(t)).collect();
        return ctx.ui.json(&Value::Array(list));
    }
    let mut table = Table::new(&["NAME", "LAYER", "EXPOSURE", "DESCRIPTION"])
        .cut(&["DESCRIPTION"])
        .optional(&["EXPOSURE", "LAYER"]);
    for tool in tools {
        table.row(vec![
            tool.name.clone(),
            tool.def.layer.as_str().into(),
            exposure(tool).into(),
            first_line(&tool.def.description),
        ]);
    }
    ctx.ui.table(&table, args.table)
}

fn cmd_search(ctx: &Context, args: &SearchArgs) -> Result<()> {
    let filter = source_filter(args.source.as_deref())?;
    let mut defs = Builtins.defs();
    defs.extend(Suites::default().defs());
    let path = ctx.homes()?.catalog_cache();
    // With the cache's search index (`toolsearch::index`), only the query's terms are looked up
    // and only the hits' entries of the cache are parsed; `--explain`, or no usable index, and
    // the cached tools are ranked borrowed from the mapped cache file (the same results).
    let indexed = if args.explain {
        None
    } else {
        indexed_search(ctx, &defs, &path, &filter, args)
    };
    let found = match indexed {
        Some(found) => found,
        None => one_pass_search(ctx, &defs, &path, &filter, args)?,
    };
    if ctx.ui.json {
        return ctx.ui.json(&Value::Array(found));
    }
    if found.is_empty() {
        ctx.ui
            .status(format!("No tool matches \"{}\".", args.query));
        return Ok(());
    }
    let mut table = Table::new(&["NAME", "SOURCE", "DESCRIPTION"])
        .cut(&["DESCRIPTION"])
        .optional(&["SOURCE"]);
    for hit in &found {
        let text = |k: &str| hit[k].as_str().unwrap_or_default().to_string();
        table.row(vec![
            text("name"),
            text("source"),
            first_line(&text("description")),
        ]);
    }
    ctx.ui.table(&table, args.table)?;
    if args.explain {
        // Asked for, so on stdout after the rows, on a pipe too.
        ctx.ui.lines(found.iter().flat_map(explanation_lines))?;
    }
    Ok(())
}

/// `tool search` without the index: every cached tool ranked from the mapped cache.
fn one_pass_search(
    ctx: &Context,
    defs: &[ToolDef],
    path: &Path,
    filter: &SourceFilter,
    args: &SearchArgs,
) -> Result<Vec<Value>> {
    catalog::with_cache_listing(path, |cached| {
        mcp_cache_hint(ctx, filter, cached.iter().map(|c| c.source.as_ref()));
        let tools = search_items(defs, cached);
        let hits = search_once(&tools, &args.query, filter, args.limit);
        let why = if args.explain {
            toolsearch::explain(&tools, &args.query, &hits)
        } else {
            Vec::new()
        };
        hits.iter()
            .enumerate()
            .map(|(i, h)| {
                let t = &tools[h.index];
                let mut hit = hit_json(t, h.score);
                if let Some(why) = why.get(i) {
                    hit["why"] = explanation_json(why);
                }
                hit
            })
            .collect::<Vec<Value>>()
    })
    .map_err(cache_error)
}

/// `tool search` with the cache's index; `None` when there is no usable one (missing, stale,
/// another version, broken, or a hit's entry does not parse back to its tool), and the caller
/// falls back to `one_pass_search`, which gives the same hits.
fn indexed_search(
    ctx: &Context,
    defs: &[ToolDef],
    path: &Path,
    filter: &SourceFilter,
    args: &SearchArgs,
) -> Option<Vec<Value>> {
    let indexed = Indexed::open(&catalog::index_path(path), path, defs)?;
    let index = &indexed.index;
    let mut builtins = search_items(defs, &[]);
    for (i, item) in builtins.iter_mut().enumerate() {
        item.name = index.builtin_name(i)?.to_string();
    }
    let hits = index.search(&builtins, &args.query, filter, args.limit)?;
    let mut found = Vec::with_capacity(hits.len());
    for hit in &hits {
        let Some(tool) = hit.index.checked_sub(builtins.len()) else {
            found.push(hit_json(&builtins[hit.index], hit.score));
            continue;
        };
        let bytes = indexed.entry(tool)?;
        let cached: CachedTool = serde_json::from_slice(&bytes).ok()?;
        if cached.raw_name != index.raw_name(tool)?
            || cached.source != index.source(tool)
            || Some(cached.layer) != index.layer(tool)
        {
            return None;
        }
        let item = SearchItem {
            name: index.name(tool)?.to_string(),
            raw_name: &cached.raw_name,
            title: &cached.title,
            description: &cached.description,
            keywords: "",
            layer: cached.layer,
            source: &cached.source,
            owner: cached.owner.as_deref(),
            exposure: cached.exposure,
        };
        found.push(hit_json(&item, hit.score));
    }
    mcp_cache_hint(ctx, filter, index.sources());
    Some(found)
}

/// A hit as `tool search --json` prints it.
fn hit_json(t: &SearchItem<'_>, score: f64) -> Value {
    json!({
        "name": t.name,
        "title": t.title,
        "description": t.description,
        "layer": t.layer.as_str(),
        "source": t.source,
        "owner": t.owner,
        "exposure": t.exposure,
        "score": round3(score),
    })
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// `--explain --json`: `{"terms": [{"term", "fields", "score"}], "nameBoost": {"kind", "score"},
/// "allTermsInName": score}` (absent boosts are null).
fn explanation_json(why: &toolsearch::Explanation) -> Value {
    json!({
        "terms": why.terms.iter().map(|t| json!({
            "term": t.term,
            "fields": t.fields,
            "score": round3(t.score),
        })).collect::<Vec<_>>(),
        "nameBoost": why.name_boost.map(|(kind, score)| json!({"kind": kind, "score": score})),
        "allTermsInName": why.all_terms_in_name,
    })
}

/// `--explain` on a terminal: a block per hit, from the JSON the hit was rendered to.
fn explanation_lines(hit: &Value) -> Vec<String> {
    let name = hit["name"].as_str().unwrap_or_default();
    let mut lines = vec![
        String::new(),
        format!(
            "{name}  score {:.3}",
            hit["score"].as_f64().unwrap_or_default()
        ),
    ];
    let why = &hit["why"];
    for term in why["terms"].as_array().into_iter().flatten() {
        let fields: Vec<&str> = term["fields"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        lines.push(format!(
            "  +{:>7.3}  \"{}\" in {}",
            term["score"].as_f64().unwrap_or_default(),
            term["term"].as_str().unwrap_or_default(),
            fields.join(", ")
        ));
    }
    if let Some(kind) = why["nameBoost"]["kind"].as_str() {
        let score = why["nameBoost"]["score"].as_f64().unwrap_or_default();
        lines.push(format!("  +{score:>7.3}  {kind} match"));
    }
    if let Some(score) = why["allTermsInName"].as_f64() {
        lines.push(format!("  +{score:>7.3}  every term is in the name"));
    }
    lines
}

/// `tool list` and `tool search` read the catalog cache and start nothing (a listing stays
/// instant, and a server that hangs cannot stall it): when a configured MCP server the
/// listing covers has no tools in the cache — added since the last `finch reload`, or the
/// cache was never written — a hint on stderr says so and names `finch reload`, which connects
/// every server and writes the cache.
fn mcp_cache_hint<'a>(
    ctx: &Context,
    filter: &SourceFilter,
    sources: impl Iterator<Item = &'a str>,
) {
    let wanted = |server: &str| match filter {
        SourceFilter::Any | SourceFilter::Mcp(None) => true,
        SourceFilter::Mcp(Some(s)) => crate::host::mcp::normalize_name(s) == server,
        _ => false,
    };
    if ctx.ui.quiet || !matches!(filter, SourceFilter::Any | SourceFilter::Mcp(_)) {
        return;
    }
    let Ok(homes) = ctx.homes() else {
        return;
    };
    let cached: std::collections::HashSet<&str> =
        sources.filter_map(|s| s.strip_prefix("mcp:")).collect();
    let missing: Vec<String> = crate::host::mcp::config::resolve(homes, Vec::new())
        .servers
        .iter()
        .filter(|s| wanted(&s.normalized()) && !cached.contains(s.normalized().as_str()))
        .map(|s| s.name.clone())
        .collect();
    if missing.is_empty() {
        return;
    }
    let (servers, them) = match missing.len() {
        1 => ("MCP server", "it and list its tools"),
        _ => ("MCP servers", "them and list their tools"),
    };
    crate::eline!(
        "hint: {servers} {} {} no tools in the catalog cache: run `finch reload` to connect {them}",
        missing.join(", "),
        if missing.len() == 1 { "has" } else { "have" }
    );
}

/// A tool as `tool search` ranks it: borrowed from a definition or from the cache.
struct SearchItem<'a> {
    name: String,
    raw_name: &'a str,
    title: &'a str,
    description: &'a str,
    /// The tool's own search text (a built-in's or dispatcher's comes with its definition).
    keywords: &'a str,
    layer: Layer,
    source: &'a str,
    owner: Option<&'a str>,
    exposure: Exposure,
}

impl Searchable for SearchItem<'_> {
    fn name(&self) -> &str {
        &self.name
    }
    fn raw_name(&self) -> &str {
        self.raw_name
    }
    fn title(&self) -> &str {
        self.title
    }
    fn description(&self) -> &str {
        self.description
    }
    fn keywords(&self) -> &str {
        self.keywords
    }
    fn layer(&self) -> Layer {
        self.layer
    }
    fn source(&self) -> &str {
        self.source
    }
}

/// The built-ins and suites, then the cached tools, named as `Catalog::build` names them.
fn search_items<'a>(defs: &'a [ToolDef], cached: &'a [CachedTool<'a>]) -> Vec<SearchItem<'a>> {
    let mut items: Vec<SearchItem<'a>> = defs
        .iter()
        .map(|d| SearchItem {
            name: d.wanted_name.clone(),
            raw_name: &d.raw_name,
            title: &d.title,
            description: &d.description,
            keywords: &d.keywords,
            layer: d.layer,
            source: &d.source,
            owner: d.owner.as_deref(),
            exposure: d.exposure,
        })
        .collect();
    items.extend(cached.iter().map(|c| SearchItem {
        name: c.wanted_name.to_string(),
        raw_name: &c.raw_name,
        title: &c.title,
        description: &c.description,
        keywords: &c.keywords,
        layer: c.layer,
        source: &c.source,
        owner: c.owner.as_deref(),
        exposure: c.exposure,
    }));
    let wanted = items
        .iter_mut()
        .map(|i| {
            let name = std::mem::take(&mut i.name);
            if naming::is_valid(&name) {
                name
            } else {
                naming::sanitize(&name)
            }
        })
        .collect();
    let keys: Vec<(&str, &str)> = items.iter().map(|i| (i.source, i.raw_name)).collect();
    let (names, _) = naming::assign(wanted, |i| format!("{}/{}", keys[i].0, keys[i].1));
    for (item, name) in items.iter_mut().zip(names) {
        item.name = name;
    }
    items
}

fn cmd_info(ctx: &Context, args: &InfoArgs) -> Result<()> {
    let catalog = cached_catalog(ctx, true)?;
    let tool = match catalog.lookup(&args.name) {
        Lookup::Found(i) => catalog.get(i),
        Lookup::Unknown => return Err(unknown_tool(&args.name)),
        Lookup::Ambiguous => {
            return Err(CommandError::usage(format!(
                "\"{}\" is registered by several tools: {}",
                args.name,
                catalog.candidates(&args.name).join(", ")
            )));
        }
    };
    let permission = permission_summary(ctx, tool)?;
    // What its mini tool contributed at the last `finch reload` that finch cannot show.
    let homes = ctx.homes()?;
    let not_shown = tool
        .def
        .source
        .strip_prefix("minitool:")
        .map(|id| crate::host::runtime::not_shown_of(homes, id))
        .unwrap_or_default();
    // How the kernel confines its mini tool (`minitool::confine`).
    let settings = ctx.settings()?;
    let sandbox = tool
        .def
        .source
        .strip_prefix("minitool:")
        .and_then(|id| crate::minitool::confine::of_installed(homes, settings, id));
    if ctx.ui.json {
        let mut v = tool.to_json();
        if let Some(map) = v.as_object_mut() {
            map.insert("permission".into(), permission);
            if let Some(sandbox) = &sandbox {
                map.insert("sandbox".into(), sandbox.clone());
            }
            map.insert("minitoolNotShown".into(), serde_json::json!(not_shown));
            // The MCP annotations `--serve mcp` lists it with (`host::hints`).
            map.insert(
                "annotations".into(),
                serde_json::json!(crate::host::hints::of(tool)),
            );
        }
        return ctx.ui.json(&v);
    }
    let mut lines = vec![
        format!("{} — {}", tool.name, tool.def.title),
        format!("layer:    {}", tool.def.layer.as_str()),
        format!("source:   {}", tool.def.source),
    ];
    if tool.def.raw_name != tool.name {
        lines.push(format!("raw name: {}", tool.def.raw_name));
    }
    if let Some(owner) = &tool.def.owner {
        lines.push(format!("owner:    {owner}"));
    }
    lines.push(format!("exposure: {}", exposure(tool)));
    if let Some(sandbox) = &sandbox {
        lines.push(format!(
            "sandbox:  {}",
            crate::minitool::confine::describe(sandbox)
        ));
    }
    if !not_shown.is_empty() {
        lines.push(format!(
            "its mini tool contributes what finch cannot show: {}",
            not_shown.join(", ")
        ));
    }
    if tool.name == "Bash" {
        lines.push("permission for a read-only command (any other always gets a card):".into());
    }
    for mode in ["ask", "acceptCalls"] {
        let p = &permission[mode];
        lines.push(format!(
            "in {mode} mode: {} ({})",
            p["decision"].as_str().unwrap_or(""),
            p["reason"].as_str().unwrap_or("")
        ));
    }
    // Wrapped at spaces to the terminal (never on a pipe), each fact's value under itself
    // (`sandbox:  filesystem none, …` goes on under `filesystem`); the description as prose;
    // the parameters as a table whose descriptions wrap the same way (`--json` keeps the
    // schema).
    let mut lines: Vec<String> = lines.iter().flat_map(|l| labelled(ctx, l)).collect();
    lines.push(String::new());
    lines.extend(tool.def.description.lines().flat_map(|l| ctx.ui.prose(l)));
    let width = ctx.ui.stdout_tty.then(|| ctx.ui.width());
    let parameters = crate::ui::params::parameter_rows(&tool.def.input_schema, width);
    lines.push(String::new());
    if parameters.is_empty() {
        lines.push("parameters: none".into());
    } else {
        lines.push("parameters:".into());
        lines.extend(parameters);
    }
    ctx.ui.lines(lines)
}

/// A `label: value` line of `tool info`, wrapped with the value's lines under its first (the
/// label and the spaces after it kept as written); any other line as prose.
fn labelled(ctx: &Context, line: &str) -> Vec<String> {
    let head = line.find(": ").map(|i| {
        let after = line[i + 1..].len() - line[i + 1..].trim_start().len();
        &line[..i + 1 + after]
    });
    match head {
        Some(head) if head.len() <= 24 => {
            let width = crate::ui::display_width(head);
            ctx.ui.hanging(head, width, &line[head.len()..])
        }
        _ => ctx.ui.prose(line),
    }
}

/// What the gateway does with a typical call of the tool in each mode, under the rules of the
/// current directory: file tools on a path inside the working directory, Bash with a read-only
/// command (other commands always get a card), other tools without arguments.
fn permission_summary(ctx: &Context, tool: &ToolSpec) -> Result<Value> {
    let homes = ctx.homes()?;
    let home = ctx.env.home_dir();
    let project = crate::host::policy::rules::project_root(&ctx.cwd, &homes.runtime);
    let rules: Rules = assembly::load_rules(&project, &homes.runtime, home.as_deref())?;
    let workspace = Workspace {
        cwd: ctx.cwd.clone(),
        project,
        trusted: Vec::new(),
        home,
        runtime: Some(homes.runtime.clone()),
    };
    let args = match tool.name.as_str() {
        "Read" | "Write" | "Edit" => json!({"file_path": ctx.cwd.join("file")}),
        "Bash" => json!({"command": "ls"}),
        "WebFetch" => json!({"url": "https://example.com/"}),
        _ => json!({}),
    };
    let call = ToolCall {
        tool: ToolRef {
            name: &tool.name,
            layer: tool.def.layer,
            owner: tool.def.owner.as_deref(),
            risk: tool.def.risk,
        },
        args: &args,
        workspace: &workspace,
        facts: &crate::host::policy::PathFacts::default(),
        wall: crate::host::call::confine::fast_lane_wall(&ctx.settings()?.sandbox),
    };
    let mut out = serde_json::Map::new();
    for mode in [Mode::Ask, Mode::AcceptCalls] {
        let v = decide(&call, mode, &rules);
        out.insert(
            mode.as_str().into(),
            json!({"decision": v.decision.as_str(), "reason": v.reason, "risk": v.risk.as_str()}),
        );
    }
    Ok(Value::Object(out))
}

fn cmd_call(ctx: &Context, args: &CallArgs) -> Result<()> {
    let call_args = call_arguments(&args.name, &args.args)?;
    let layers = Layers {
        builtins: true,
        external: external_for(ctx, &args.name, !args.session.minitool.is_empty()),
        background: false,
    };
    let env = ctx.host_env()?;
    let mut options = host_options(ctx, &args.session, layers);
    // Without --session, the calls of one day in one directory share a session.
    let joins_day = options.session.is_none();
    if joins_day {
        options.join_titled = Some(day_session_title(env.now_utc()));
    }
    let assembly = Assembly::new(options, &ctx.ui);
    let mut host = assembly.open(env)?;
    // Written at the end, so that a call that leaves no trace can be forgotten.
    host.defer_records();
    let mut call_args = call_args;
    let name = match host.catalog().lookup(&args.name) {
        Lookup::Found(i) => {
            let tool = host.catalog().get(i);
            let name = tool.name.clone();
            // key=value words, typed now by the tool's schema (checked above already).
            if args
                .args
                .first()
                .is_some_and(|w| !w.trim_start().starts_with('{') && w != "-")
            {
                call_args = key_values(&args.name, &args.args, Some(&tool.def.input_schema))?;
            }
            if tool.def.exposure == Exposure::Dynamic {
                host.session_mut().active.insert(name.clone());
            }
            name
        }
        _ => args.name.clone(),
    };
    let progress = crate::host::frontend::progress::on_stderr(&ctx.ui, &name);
    // A spinner on stderr while the call runs, on a terminal only (cards hide it: `activity`).
    let spinner = (ctx.ui.stderr_tty && ctx.ui.stdin_tty && !ctx.ui.quiet && !ctx.ui.json)
        .then(|| crate::ui::activity::Spinner::start(&name));
    let record = host.call_with(
        &name,
        call_args,
        &crate::host::cancel::Cancel::new(),
        &progress,
    );
    drop(spinner);
    // What started is remembered for completion (which starts nothing) and `tool info`.
    let started: Vec<_> = host
        .catalog()
        .tools()
        .iter()
        .map(|t| t.def.clone())
        .collect();
    assembly::remember_tools(&ctx.host_env()?, &ctx.ui, &started);
    // A call of a tool that is not there, or refused before any person saw it (a rule, no
    // one to ask), leaves no session behind (clutter in `session list`). A card shown to a
    // person is kept, as is everything in a session named with --session.
    let refused_unseen =
        record.failure == Some(Failure::Refused) && !record.decided_by.shown_on_a_card();
    if joins_day && (record.failure == Some(Failure::UnknownTool) || refused_unseen) {
        host.session_mut()
            .forget_run()
            .map_err(CommandError::from)?;
    }
    host.finish().map_err(crate::error::CommandError::from)?;
    if ctx.ui.json {
        ctx.ui.json(&record.to_json())?;
    } else if ctx.ui.verbose {
        print_verdict(&ctx.ui, &record);
    }
    let Some(failure) = record.failure else {
        if ctx.ui.json {
            return Ok(());
        }
        print_content(&ctx.ui, &record)?;
        return match ran_status(&record) {
            Some(code) if code != 0 => Err(CommandError::exit(code)),
            _ => Ok(()),
        };
    };
    // What a command the wall refused printed is its answer too.
    if failure == Failure::Blocked && !ctx.ui.json {
        print_content(&ctx.ui, &record)?;
    }
    // A failed call's text is the error message, on stderr, in the person's words: the
    // record (and `--json`) keeps the model's.
    let model_words = record.output.text_content().trim_end().to_string();
    let (message, hints) = if ctx.ui.json {
        (model_words, Vec::new())
    } else if let Some(words) = record.person_text() {
        (words, Vec::new())
    } else {
        person_words(&model_words)
    };
    let err = match failure {
        Failure::UnknownTool => match disabled_owner(ctx, &name) {
            // The person's words, not the model's (`ToolSearch`): the tool is there, switched off.
            Some(id) => CommandError::not_found(format!(
                "`{name}` is a tool of the mini tool {id}, which is disabled"
            ))
            .with_hint(format!("enable it with `finch enable {id}`"))
            .with_code("unknown_tool"),
            None => CommandError::not_found(format!("there is no tool named `{name}`"))
                .with_hint(
                    "find one by what it does with `finch tool search <words>`, or list them \
                     with `finch tool list`",
                )
                .with_code("unknown_tool"),
        },
        Failure::Refused => CommandError::needs_person(message).with_code("refused"),
        Failure::Blocked => blocked_error(&record),
        Failure::InvalidArguments => CommandError::failed(message).with_code("invalid_arguments"),
        Failure::NotActive => CommandError::failed(message).with_code("not_active"),
        Failure::ToolError => CommandError::failed(message).with_code("tool_error"),
        Failure::Cancelled => CommandError::failed(message).with_code("cancelled"),
    };
    // An unknown tool's and a blocked call's hints are their own (above).
    let err = if matches!(failure, Failure::UnknownTool | Failure::Blocked) {
        err
    } else {
        hints.into_iter().fold(err, CommandError::with_hint)
    };
    // The record (with --json) or the content already said everything.
    Err(err.json_reported())
}

/// A call the kernel wall refused, as the command's error: `blocked_words`.
fn blocked_error(record: &crate::host::CallRecord) -> CommandError {
    let (message, hint) = crate::host::frontend::console::blocked_words(record);
    CommandError::needs_person(message)
        .with_code("blocked")
        .with_hint(hint)
}

/// The title of the session that keeps the `tool call`s of one day (the local date of `now`) in
/// one working directory.
fn day_session_title(now: chrono::DateTime<chrono::Utc>) -> String {
    let day = now.with_timezone(&chrono::Local).date_naive();
    format!("tool calls on {}", day.format("%Y-%m-%d"))
}

/// A failed call's message for the person at `finch tool call`: the advice the host writes for
/// the model (call ToolSearch, use Glob or Write, do not retry) is left out of the message and
/// comes back as hints naming the finch command that does it. Anything else is kept as it is.
fn person_words(message: &str) -> (String, Vec<String>) {
    // The path a builtin's message starts with: "`/abs/path` does not exist…".
    let path = message
        .strip_prefix('`')
        .and_then(|rest| rest.split_once('`'))
        .map(|(p, _)| p.to_string())
        .unwrap_or_default();
    let file_name = std::path::Path::new(&path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let glob_for_file = format!("find it with `finch tool call Glob pattern='**/{file_name}'`");
    let list_dir = format!("list it with `finch tool call Glob pattern='*' path='{path}'`");
    let mut text = message.to_string();
    let mut hints = Vec::new();
    let advice: [(&str, Vec<String>); 7] = [
        (
            " Check the path, or use Glob to find the file.",
            vec![glob_for_file.clone()],
        ),
        (
            " Edit changes existing files: use Write to create it, or Glob to find the file you meant.",
            vec![
                format!("create it with `finch tool call Write file_path='{path}' content=…`"),
                glob_for_file,
            ],
        ),
        (
            " Use Glob to find the file inside it.",
            vec![list_dir.clone()],
        ),
        (
            &format!(
                " Use Glob (for example pattern `*` with path `{path}`) to list what it holds, then Read one of its files."
            ),
            vec![list_dir],
        ),
        (
            " Use ToolSearch to find tools by what they do.",
            vec!["find one by what it does with `finch tool search <words>`".to_string()],
        ),
        (" Do not retry the same call; ask the user.", Vec::new()),
        (" Do not retry the same call.", Vec::new()),
    ];
    let mut changed = false;
    for (sentence, more) in advice {
        if let Some(at) = text.find(sentence) {
            text.replace_range(at..at + sentence.len(), "");
            hints.extend(more);
            changed = true;
        }
    }
    // The person at the terminal is the one who answered the card.
    if let Some(rest) = text.strip_prefix("The user denied ") {
        text = format!("you denied {rest}");
        changed = true;
    }
    if changed {
        text = text.trim_end_matches('.').to_string();
    }
    (text, hints)
}

/// The installed but disabled mini tool whose tools `name` would be one of
/// (`<id>_<tool>`, `naming::minitool_tool`); the longest id wins, should two fit.
fn disabled_owner(ctx: &Context, name: &str) -> Option<String> {
    let homes = ctx.homes().ok()?;
    let state = crate::minitool::enabled::EnabledState::load(&homes.extensions_json()).ok()?;
    [crate::homes::Tier::Personal, crate::homes::Tier::Global]
        .into_iter()
        .flat_map(|tier| crate::minitool::tier::scan(&homes.tier_dir(tier)).unwrap_or_default())
        .map(|entry| entry.dir_name)
        .filter(|id| !state.is_enabled(id))
        .filter(|id| name.starts_with(&naming::minitool_tool(id, "")))
        .max_by_key(String::len)
}

/// The exit status of the command a Bash call ran: its own code, or 128 + the signal that
/// killed it, as a shell reports it; `None` for any other tool.
fn ran_status(record: &crate::host::CallRecord) -> Option<u8> {
    // A command ran in (or outside) the kernel wall: its own exit status is the answer.
    record.sandbox?;
    let structured = record.output.structured.as_ref()?;
    if let Some(code) = structured.get("exitCode").and_then(Value::as_i64) {
        return Some(u8::try_from(code).unwrap_or(1));
    }
    let signal = structured.get("signal").and_then(Value::as_i64)?;
    Some(u8::try_from(128 + signal).unwrap_or(1))
}

/// What a `tool call` of `name` starts besides the built-ins and suites: nothing for a
/// built-in or a dispatcher; for a mini tool's tool, only the mini tool that owns it in the
/// catalog cache `reload` wrote (with the providers of the capabilities it requires) and no MCP
/// server; for an MCP tool, only its server (`mcp_server_for`); everything for a name the
/// cache does not know (a stale or missing cache). `--minitool` directories always start, and
/// with them an unknown name starts nothing else.
fn external_for(ctx: &Context, name: &str, minitool_dirs: bool) -> External {
    // The `--minitool` directories alone, or nothing at all.
    let bare = if minitool_dirs {
        External::MiniTools(Vec::new())
    } else {
        External::Nothing
    };
    let everything = if minitool_dirs {
        External::MiniTools(Vec::new())
    } else {
        External::All
    };
    match Layer::of_name(name) {
        Layer::Builtin | Layer::Suite => return bare,
        Layer::Mcp => return mcp_server_for(ctx, name).unwrap_or(everything),
        Layer::MiniTool => {}
    }
    let Ok(catalog) = cached_catalog(ctx, false) else {
        return everything;
    };
    let Lookup::Found(i) = catalog.lookup(name) else {
        return everything;
    };
    let def = &catalog.get(i).def;
    match (def.layer, def.source.strip_prefix("minitool:")) {
        (Layer::MiniTool, Some(id)) => External::MiniTools(vec![id.to_string()]),
        (Layer::Builtin | Layer::Suite, _) => bare,
        _ => everything,
    }
}

/// The one MCP server a `tool call` of the MCP tool `name` needs: the server of a user's
/// `servers.json` or of an enabled mini tool's `contributes.mcpServers` whose tools are named
/// `mcp__<server>__…` (the longest such name, should two fit), or — for a server a mini tool
/// registers at run time — the one the catalog cache names, with the mini tool that registers
/// it. `None` (start everything) when neither knows the name.
fn mcp_server_for(ctx: &Context, name: &str) -> Option<External> {
    let homes = ctx.homes().ok()?;
    let configured = crate::host::mcp::config::resolve(homes, Vec::new()).servers;
    let cached = cached_catalog(ctx, false).ok().and_then(|catalog| {
        let Lookup::Found(i) = catalog.lookup(name) else {
            return None;
        };
        let def = &catalog.get(i).def;
        let server = def.source.strip_prefix("mcp:")?.to_string();
        Some((server, def.owner.clone()))
    });
    if let Some((server, owner)) = cached {
        if configured.iter().any(|c| c.normalized() == server) {
            return Some(External::McpServer {
                server,
                minitools: Vec::new(),
            });
        }
        // Not configured: a mini tool registers it while it activates.
        return owner.map(|owner| External::McpServer {
            server,
            minitools: vec![owner],
        });
    }
    configured
        .iter()
        .map(|c| c.normalized())
        .filter(|server| name.starts_with(&naming::mcp_tool(server, "")))
        .max_by_key(String::len)
        .map(|server| External::McpServer {
            server,
            minitools: Vec::new(),
        })
}

/// The arguments of `tool call`: nothing, one JSON object, `-` (a JSON object on stdin), or
/// key=value pairs.
fn call_arguments(tool: &str, words: &[String]) -> Result<Value> {
    let hint = format!(
        "pass one JSON object, e.g. finch tool call {tool} '{{\"key\":\"value\"}}', or key=value pairs"
    );
    match words {
        [] => Ok(json!({})),
        [one] if one.trim_start().starts_with('{') || one == "-" => {
            let text = if one == "-" {
                let mut text = String::new();
                std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map_err(|e| {
                    CommandError::failed(format!("cannot read the arguments from stdin: {e}"))
                })?;
                text
            } else {
                one.clone()
            };
            let value: Value = serde_json::from_str(&text).map_err(|e| {
                CommandError::usage(format!(
                    "the arguments for `{tool}` are not valid JSON: {e}"
                ))
                .with_hint(hint.clone())
            })?;
            if !value.is_object() {
                return Err(CommandError::usage(format!(
                    "the arguments for `{tool}` must be a JSON object"
                ))
                .with_hint(hint));
            }
            Ok(value)
        }
        [one] if serde_json::from_str::<Value>(one).is_ok_and(|v| !v.is_string()) => Err(
            CommandError::usage(format!("the arguments for `{tool}` must be a JSON object"))
                .with_hint(hint),
        ),
        words => key_values(tool, words, None).map_err(|e| e.with_hint(hint)),
    }
}

fn unknown_tool(name: &str) -> CommandError {
    CommandError::not_found(format!("no tool named \"{name}\""))
        .with_code("unknown_tool")
        .with_hint("`finch tool list` shows every tool; `finch tool search <words>` finds one")
}

fn summary_json(tool: &ToolSpec) -> Value {
    json!({
        "name": tool.name,
        "title": tool.def.title,
        "description": tool.def.description,
        "layer": tool.def.layer.as_str(),
        "source": tool.def.source,
        "owner": tool.def.owner,
        "exposure": tool.def.exposure,
    })
}

fn exposure(tool: &ToolSpec) -> &'static str {
    match tool.def.exposure {
        Exposure::Startup => "startup",
        Exposure::Dynamic => "dynamic",
    }
}

/// A catalog cache that does not parse: say which file, and that reload rewrites it.
fn cache_error(e: crate::store::JsonError) -> CommandError {
    CommandError::failed(e.to_string())
        .with_code("corrupt_state")
        .with_hint("delete the file; `finch reload` writes it again")
}

/// Parses a `--source` value for the CLI.
fn source_filter(text: Option<&str>) -> Result<SourceFilter> {
    match text {
        None => Ok(SourceFilter::Any),
        Some(t) => SourceFilter::parse(t).map_err(CommandError::usage),
    }
}

#[cfg(test)]
mod person_words_tests {
    use super::person_words;

    #[test]
    fn the_models_advice_becomes_finch_commands() {
        let (text, hints) = person_words(
            "`/w/notes.txt` does not exist. Check the path, or use Glob to find the file.",
        );
        assert_eq!(text, "`/w/notes.txt` does not exist");
        assert_eq!(
            hints,
            ["find it with `finch tool call Glob pattern='**/notes.txt'`"]
        );

        let (text, hints) = person_words(
            "`/w/a.rs` does not exist. Edit changes existing files: use Write to create it, or Glob to find the file you meant.",
        );
        assert_eq!(text, "`/w/a.rs` does not exist");
        assert_eq!(
            hints,
            [
                "create it with `finch tool call Write file_path='/w/a.rs' content=…`",
                "find it with `finch tool call Glob pattern='**/a.rs'`"
            ]
        );

        let (text, hints) = person_words(
            "`/w` is a directory, not a file. Use Glob (for example pattern `*` with path `/w`) to list what it holds, then Read one of its files.",
        );
        assert_eq!(text, "`/w` is a directory, not a file");
        assert_eq!(
            hints,
            ["list it with `finch tool call Glob pattern='*' path='/w'`"]
        );

        let (text, hints) = person_words("The user denied `Bash`. Do not retry the same call.");
        assert_eq!(text, "you denied `Bash`");
        assert!(hints.is_empty());

        let (text, _) = person_words(
            "Permission denied: nobody answered the permission card for `Bash` in time. Do not retry the same call; ask the user.",
        );
        assert_eq!(
            text,
            "Permission denied: nobody answered the permission card for `Bash` in time"
        );
    }

    #[test]
    fn other_messages_are_kept_whole() {
        let m = "Permission denied: `Read` needs a person's approval (x), and this run has nobody to ask. Rerun with --approve Read to allow it, or use a tool that does not need approval.";
        assert_eq!(person_words(m), (m.to_string(), Vec::<String>::new()));
    }
}
