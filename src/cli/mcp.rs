//! `finch mcp list|add|remove|tools` (SPEC §9.2): `add` and `remove` edit the user's
//! `<runtime>/extension-data/mcp/servers.json` (lock, atomic write, unknown keys kept); `list`
//! and `tools` connect to servers, as `finch run` does, to show their status and tools. The
//! merging, connecting and listing live in `crate::host::mcp`.
//!
//! Choices where the spec is silent, as `claude mcp add` does them: `add` refuses a name that is
//! already in `servers.json` unless `--force` (which replaces the entry and keeps the keys finch
//! does not manage); names compare normalized (`My-Server` = `my_server`); a user server may
//! take the place of one a mini tool contributes (it says so). Header and environment values are
//! never printed — they often hold tokens — only their names.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use crate::Context;
use crate::error::{CommandError, ErrorKind, Result};
use crate::homes::absolutize;
use crate::host::HostEnv;
use crate::host::mcp::config::{self, ServersFileError, UserServers};
use crate::host::mcp::trust;
use crate::host::mcp::{McpBridge, McpServerConfig, Origin, Problem, ServerStatus, Transport};
use crate::host::naming;
use crate::store::LockError;
use crate::ui::{Table, TableArgs};

#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// List MCP servers: transport, source, owner, status and tool count (connects to each)
    #[command(visible_alias = "ls")]
    List(TableArgs),
    /// Add an MCP server: a stdio command after `--`, or --url for Streamable HTTP
    Add(AddArgs),
    /// Remove an MCP server from servers.json
    #[command(visible_alias = "rm")]
    Remove(NameArgs),
    /// Connect to an MCP server and list its tools
    Tools {
        #[command(flatten)]
        server: NameArgs,
        #[command(flatten)]
        table: TableArgs,
    },
    /// Approve a servers.json entry that was added or changed outside finch, so that it starts
    Trust(TrustArgs),
}

#[derive(Debug, Args)]
pub struct TrustArgs {
    /// The entry to approve as it is now (without a name: list the entries and their state)
    #[arg(conflicts_with_all = ["list", "revoke"])]
    pub name: Option<String>,
    /// List every servers.json entry: trusted, changed since approved, or untrusted
    #[arg(long)]
    pub list: bool,
    /// Take back the approval of this entry (it waits for a person again)
    #[arg(long, value_name = "NAME", conflicts_with = "list")]
    pub revoke: Option<String>,
}

#[derive(Debug, Args)]
pub struct AddArgs {
    /// The server's name (letters, digits, `_`, `-`, `.`); its tools become mcp__<name>__<tool>
    pub name: String,
    /// The command and arguments of a stdio server, after `--` (finch mcp add fs -- npx -y pkg)
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
    /// The URL of a Streamable HTTP server
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub url: Option<String>,
    /// A header sent to an HTTP server, `Name: value` (repeatable; `${VAR}` expands when finch connects)
    #[arg(long = "header", short = 'H', value_name = "HEADER")]
    pub headers: Vec<String>,
    /// An environment variable of a stdio server, KEY=VALUE (repeatable; `${VAR}` expands)
    #[arg(
        long = "env",
        short = 'e',
        value_name = "KEY=VALUE",
        conflicts_with = "url"
    )]
    pub env: Vec<String>,
    /// The working directory of a stdio server (default: where finch runs)
    #[arg(long, value_name = "DIR", conflicts_with = "url")]
    pub cwd: Option<PathBuf>,
    /// Replace the server of the same name
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct NameArgs {
    /// The server's name
    pub name: String,
}

pub fn run(ctx: &Context, command: &McpCommand) -> Result<()> {
    match command {
        McpCommand::List(table) => cmd_list(ctx, *table),
        McpCommand::Add(args) => cmd_add(ctx, args),
        McpCommand::Remove(args) => cmd_remove(ctx, &args.name),
        McpCommand::Tools { server, table } => cmd_tools(ctx, &server.name, *table),
        McpCommand::Trust(args) => cmd_trust(ctx, args),
    }
}

fn host_env(ctx: &Context) -> Result<HostEnv> {
    Ok(HostEnv {
        homes: ctx.homes()?.clone(),
        settings: ctx.settings()?.clone(),
        env: ctx.env.clone(),
        fixed_now: None,
        embed_resources: false,
    })
}

fn cmd_list(ctx: &Context, args: TableArgs) -> Result<()> {
    let env = host_env(ctx)?;
    let bridge = McpBridge::start(&env, &ctx.cwd, Vec::new());
    let statuses = bridge.statuses();
    let problems = bridge.problems().to_vec();
    // Close every session before printing: the listing is what the servers said.
    drop(bridge);
    if ctx.ui.json {
        let mut list: Vec<Value> = statuses.iter().map(status_json).collect();
        list.extend(problems.iter().map(problem_json));
        return ctx.ui.json(&Value::Array(list));
    }
    if statuses.is_empty() && problems.is_empty() {
        return ctx.ui.line(format!(
            "No MCP servers configured. Add one with `finch mcp add <name> -- <command> [args…]` or `finch mcp add <name> --url <URL>` ({}).",
            env.homes.mcp_servers_json().display()
        ));
    }
    let mut table = Table::new(&["NAME", "TRANSPORT", "SOURCE", "OWNER", "STATUS", "TOOLS"])
        .optional(&["OWNER", "SOURCE", "TRANSPORT"]);
    let mut notes = Vec::new();
    for s in &statuses {
        let (status, tools) = match (&s.error, &s.tools) {
            (None, Some(tools)) => ("connected", tools.len().to_string()),
            (Some(error), _) => {
                notes.push(format!("{}: {error}", s.config.name));
                (status_word(s), "-".to_string())
            }
            (None, None) => ("failed", "-".to_string()),
        };
        table.row(vec![
            s.config.name.clone(),
            s.config.transport.kind().into(),
            s.config.origin.source(),
            s.config.owner(),
            status.into(),
            tools,
        ]);
    }
    for p in &problems {
        let name = p.name.clone().unwrap_or_else(|| "-".into());
        notes.push(format!("{name} ({}): {}", p.source, p.message));
        table.row(vec![
            name,
            "-".into(),
            p.source.clone(),
            "-".into(),
            "invalid".into(),
            "-".into(),
        ]);
    }
    ctx.ui.table(&table, args)?;
    if notes.is_empty() {
        Ok(())
    } else if ctx.ui.stdout_tty {
        // Wrapped at spaces: a reason with its log's path runs past 150 columns.
        ctx.ui
            .lines(std::iter::once(String::new()).chain(notes.iter().flat_map(|n| ctx.ui.prose(n))))
    } else {
        // On a pipe stdout holds the rows only; why a server failed is a warning.
        for note in notes {
            ctx.ui.warn(note);
        }
        Ok(())
    }
}

/// `connected`, `failed`, or `untrusted` (a servers.json entry that waits for a person).
fn status_word(s: &ServerStatus) -> &'static str {
    match (s.waiting, s.connected()) {
        (true, _) => "untrusted",
        (false, true) => "connected",
        (false, false) => "failed",
    }
}

/// One server of `mcp list --json` (docs/json.md).
fn status_json(s: &ServerStatus) -> Value {
    let mut v = json!({
        "name": s.config.name,
        "transport": s.config.transport.kind(),
        "source": s.config.origin.source(),
        "owner": s.config.owner(),
        "status": status_word(s),
        "tools": s.tools.as_ref().map(Vec::len),
        "error": s.error,
        "sandbox": s.held.as_ref().map(|h| h.to_json()),
    });
    if let Some(map) = v.as_object_mut() {
        match &s.config.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                map.insert("command".into(), command.clone().into());
                map.insert("args".into(), json!(args));
                map.insert("env".into(), json!(env.keys().collect::<Vec<_>>()));
                map.insert("cwd".into(), json!(cwd));
            }
            Transport::Http { url, headers } => {
                map.insert("url".into(), url.clone().into());
                map.insert("headers".into(), json!(headers.keys().collect::<Vec<_>>()));
            }
        }
    }
    v
}

fn problem_json(p: &Problem) -> Value {
    json!({
        "name": p.name,
        "transport": null,
        "source": p.source,
        "owner": null,
        "status": "invalid",
        "tools": null,
        "error": p.message,
    })
}

/// A name is a file-safe word: it names tools (`mcp__<name>__…`) and a log file.
fn check_name(name: &str) -> Result<()> {
    let mut chars = name.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && name.len() <= 64;
    if valid {
        Ok(())
    } else {
        Err(CommandError::usage(format!(
            "\"{name}\" cannot name an MCP server: use up to 64 letters, digits, `_`, `-` and `.`, starting with a letter or digit"
        )))
    }
}

fn cmd_add(ctx: &Context, args: &AddArgs) -> Result<()> {
    check_name(&args.name)?;
    let entry = entry_of(ctx, args)?;
    let server = McpServerConfig::from_json(&entry, Origin::User)
        .map_err(|e| CommandError::usage(format!("MCP server \"{}\" {e}", args.name)))?;
    let homes = ctx.homes()?;
    let path = homes.mcp_servers_json();
    let (_lock, mut file) =
        UserServers::lock(&path, ctx.settings()?.lock_timeout).map_err(file_error)?;
    if file.position(&args.name).is_some() && !args.force {
        return Err(CommandError::failed(format!(
            "an MCP server named \"{}\" is already in {}",
            args.name,
            path.display()
        ))
        .with_code("already_exists")
        .with_hint(format!(
            "pass --force to replace it, or remove it first with `finch mcp remove {}`",
            args.name
        )));
    }
    let replaced = file.upsert(&server);
    file.save().map_err(file_error)?;
    // A person added it: it starts (`host::mcp::trust`).
    approve(ctx, &path, &server)?;
    let shadowed = contributed(ctx, &args.name);
    if ctx.ui.json {
        let mut v = server.to_json();
        if let Some(map) = v.as_object_mut() {
            map.insert("source".into(), "user".into());
            map.insert("replaced".into(), replaced.into());
            map.insert("path".into(), json!(path));
            // Values of headers and env may be secrets: names only.
            for key in ["headers", "env"] {
                if let Some(Value::Object(m)) = map.get(key) {
                    let names: Vec<String> = m.keys().cloned().collect();
                    map.insert(key.into(), json!(names));
                }
            }
        }
        return ctx.ui.json(&v);
    }
    let what = server.reach();
    let verb = if replaced { "Replaced" } else { "Added" };
    let mut lines = vec![format!(
        "{} {verb} MCP server \"{}\" ({what}) → {}",
        ctx.ui.green("✓"),
        server.name,
        path.display()
    )];
    for source in shadowed {
        lines.push(format!(
            "  It takes the place of the server of the same name from {source}."
        ));
    }
    lines.push(format!(
        "  Check it with `finch mcp tools {}`; its tools are mcp__{}__<tool>.",
        server.name,
        server.normalized()
    ));
    ctx.ui.lines(lines)
}

/// The `servers.json` entry `add` writes, from its arguments.
fn entry_of(ctx: &Context, args: &AddArgs) -> Result<Value> {
    if let Some(url) = &args.url {
        let mut headers = serde_json::Map::new();
        for header in &args.headers {
            let Some((name, value)) = header.split_once(':') else {
                return Err(CommandError::usage(format!(
                    "--header \"{header}\" is not `Name: value`"
                )));
            };
            let name = name.trim();
            if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err() {
                return Err(CommandError::usage(format!(
                    "--header: \"{name}\" is not a header name"
                )));
            }
            headers.insert(name.to_string(), value.trim().into());
        }
        let mut entry = json!({"name": args.name, "type": "http", "url": url});
        if !headers.is_empty() {
            entry["headers"] = Value::Object(headers);
        }
        return Ok(entry);
    }
    if !args.headers.is_empty() {
        return Err(CommandError::usage(
            "--header is for HTTP servers: give the server's --url too",
        ));
    }
    let Some((command, rest)) = args.command.split_first() else {
        return Err(CommandError::usage(format!(
            "give the server's command after `--` (finch mcp add {} -- <command> [args…]), or --url for an HTTP server",
            args.name
        )));
    };
    let mut env = serde_json::Map::new();
    for pair in &args.env {
        match pair.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                env.insert(k.trim().to_string(), v.into());
            }
            _ => {
                return Err(CommandError::usage(format!(
                    "--env \"{pair}\" is not KEY=VALUE"
                )));
            }
        }
    }
    let mut entry = json!({"name": args.name, "command": command, "args": rest});
    if !env.is_empty() {
        entry["env"] = Value::Object(env);
    }
    if let Some(cwd) = &args.cwd {
        let dir = absolutize(cwd, &ctx.cwd);
        if !dir.is_dir() {
            return Err(CommandError::not_found(format!(
                "--cwd {}: no such directory",
                dir.display()
            )));
        }
        entry["cwd"] = dir.display().to_string().into();
    }
    Ok(entry)
}

/// The sources other than `servers.json` that configure a server of this (normalized) name.
fn contributed(ctx: &Context, name: &str) -> Vec<String> {
    let Ok(homes) = ctx.homes() else {
        return Vec::new();
    };
    let wanted = config::normalize_name(name);
    let mut problems = Vec::new();
    let mut sources = Vec::new();
    let all = config::minitool_servers(homes, &mut problems);
    for server in all {
        if server.normalized() == wanted {
            sources.push(server.origin.source());
        }
    }
    sources
}

fn cmd_remove(ctx: &Context, name: &str) -> Result<()> {
    let homes = ctx.homes()?;
    let path = homes.mcp_servers_json();
    let (_lock, mut file) =
        UserServers::lock(&path, ctx.settings()?.lock_timeout).map_err(file_error)?;
    let Some(removed) = file.remove(name) else {
        let elsewhere = contributed(ctx, name);
        let mut err = CommandError::not_found(format!(
            "no MCP server named \"{name}\" in {}",
            path.display()
        ))
        .with_code("unknown_server");
        err = match elsewhere.first() {
            Some(source) => err.with_hint(format!(
                "\"{name}\" comes from {source}: disable that mini tool with `finch disable {}` to drop it",
                source.split_once(':').map_or(source.as_str(), |(_, id)| id)
            )),
            None => err.with_hint("`finch mcp list` shows the configured servers"),
        };
        return Err(err);
    };
    file.save().map_err(file_error)?;
    trust::revoke(
        &homes.runtime,
        &path,
        &config::normalize_name(name),
        ctx.settings()?.lock_timeout,
    )?;
    let removed_name = removed
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or(name)
        .to_string();
    if ctx.ui.json {
        return ctx.ui.json(&json!({
            "name": removed_name,
            "removed": true,
            "path": path,
        }));
    }
    let mut lines = vec![format!(
        "{} Removed MCP server \"{removed_name}\" from {}",
        ctx.ui.green("✓"),
        path.display()
    )];
    for source in contributed(ctx, name) {
        lines.push(format!(
            "  The server of the same name from {source} is used again."
        ));
    }
    ctx.ui.lines(lines)
}

fn cmd_tools(ctx: &Context, name: &str, args: TableArgs) -> Result<()> {
    let env = host_env(ctx)?;
    let resolved = config::resolve(&env.homes, Vec::new());
    let wanted = config::normalize_name(name);
    if resolved.waiting.iter().any(|s| s.normalized() == wanted) {
        return Err(untrusted(name));
    }
    let Some(server) = resolved
        .servers
        .into_iter()
        .find(|s| s.normalized() == wanted)
    else {
        if let Some(p) = resolved
            .problems
            .iter()
            .find(|p| p.name.as_deref().map(config::normalize_name) == Some(wanted.clone()))
        {
            return Err(CommandError::failed(format!(
                "MCP server \"{name}\" ({}) cannot be used: {}",
                p.source, p.message
            ))
            .with_code("invalid_server"));
        }
        return Err(
            CommandError::not_found(format!("no MCP server named \"{name}\""))
                .with_code("unknown_server")
                .with_hint("`finch mcp list` shows the configured servers"),
        );
    };
    let bridge = McpBridge::connect(&env, &ctx.cwd, vec![server], Vec::new());
    let status = bridge.statuses().into_iter().next();
    drop(bridge);
    let Some(status) = status else {
        return Err(CommandError::failed(format!(
            "MCP server \"{name}\" could not be started"
        )));
    };
    let (Some(tools), None) = (&status.tools, &status.error) else {
        return Err(CommandError::failed(format!(
            "cannot connect to MCP server \"{}\": {}",
            status.config.name,
            status.error.as_deref().unwrap_or("no answer")
        ))
        .with_code("connect_failed")
        .with_hint(format!(
            "check the server's settings in `finch mcp list --json`; a stdio server's stderr is in {}",
            env.homes.logs_dir().join("mcp").display()
        )));
    };
    let server = status.config.normalized();
    if ctx.ui.json {
        let list: Vec<Value> = tools
            .iter()
            .map(|t| {
                json!({
                    "name": naming::mcp_tool(&server, &t.name),
                    "rawName": t.name,
                    "title": t.title,
                    "description": t.description,
                    "destructive": t.destructive,
                    "inputSchema": t.input_schema,
                })
            })
            .collect();
        return ctx.ui.json(&Value::Array(list));
    }
    if tools.is_empty() {
        ctx.ui.status(format!(
            "MCP server \"{}\" has no tools.",
            status.config.name
        ));
        return Ok(());
    }
    let mut table = Table::new(&["NAME", "DESCRIPTION"]).cut(&["DESCRIPTION"]);
    for t in tools {
        table.row(vec![
            naming::mcp_tool(&server, &t.name),
            t.description.lines().next().unwrap_or("").to_string(),
        ]);
    }
    ctx.ui.table(&table, args)
}

fn file_error(err: ServersFileError) -> CommandError {
    let message = err.to_string();
    match err {
        ServersFileError::Lock(LockError::Held { .. }) => {
            CommandError::new(ErrorKind::Locked, message)
                .with_hint("wait for the other finch to finish, then try again")
        }
        ServersFileError::Json(j) if j.is_corrupt() => CommandError::failed(message)
            .with_code("corrupt_state")
            .with_hint("fix the file by hand, or run `finch doctor --state` to move it aside"),
        ServersFileError::Shape { .. } => CommandError::failed(message)
            .with_code("corrupt_state")
            .with_hint("the file is {\"servers\": [{\"name\": …, \"command\": …} | {\"name\": …, \"url\": …}]}"),
        _ => CommandError::failed(message),
    }
}

/// Records that a person approved `server` as it is in `path`.
fn approve(
    ctx: &Context,
    path: &std::path::Path,
    server: &McpServerConfig,
) -> Result<trust::Granted> {
    let now = ctx
        .now()?
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let timeout = ctx.settings()?.lock_timeout;
    Ok(trust::grant(
        &ctx.homes()?.runtime,
        path,
        server,
        &now,
        timeout,
    )?)
}

/// A servers.json entry that waits for a person's approval.
fn untrusted(name: &str) -> CommandError {
    CommandError::needs_person(format!(
        "MCP server \"{name}\" was added or changed in servers.json by something other than finch, and no person approved it as it is; it does not start"
    ))
    .with_code("untrusted_server")
    .with_hint(format!(
        "look at it with `finch mcp trust --list`, then approve it with `finch mcp trust {name}`"
    ))
}

/// `finch mcp trust [NAME] [--list | --revoke NAME]` (`host::mcp::trust`): approve an entry of
/// `servers.json` as it is now, list every entry's state, or take an approval back.
fn cmd_trust(ctx: &Context, args: &TrustArgs) -> Result<()> {
    let homes = ctx.homes()?;
    let path = homes.mcp_servers_json();
    let timeout = ctx.settings()?.lock_timeout;
    if let Some(name) = &args.revoke {
        let revoked = trust::revoke(
            &homes.runtime,
            &path,
            &config::normalize_name(name),
            timeout,
        )?;
        if !revoked {
            return Err(
                CommandError::not_found(format!("MCP server \"{name}\" is not approved"))
                    .with_code("unknown_server")
                    .with_hint("`finch mcp trust --list` shows the entries and their state"),
            );
        }
        if ctx.ui.json {
            return ctx
                .ui
                .json(&json!({"name": name, "trusted": false, "path": path}));
        }
        return ctx.ui.lines(vec![format!(
            "{} No longer approved: MCP server \"{name}\" in {} (it waits for a person again)",
            ctx.ui.green("✓"),
            path.display()
        )]);
    }
    let file = UserServers::load(&path).map_err(file_error)?;
    let mut problems = Vec::new();
    let servers = file.servers(&mut problems);
    let Some(name) = args.name.as_deref().filter(|_| !args.list) else {
        return trust_list(ctx, &path, &servers);
    };
    let wanted = config::normalize_name(name);
    let Some(server) = servers.iter().find(|s| s.normalized() == wanted) else {
        return Err(CommandError::not_found(format!(
            "no server named \"{name}\" in {}",
            path.display()
        ))
        .with_code("unknown_server")
        .with_hint("`finch mcp trust --list` shows the entries of servers.json"));
    };
    let granted = approve(ctx, &path, server)?;
    if ctx.ui.json {
        return ctx.ui.json(&json!({
            "name": server.name,
            "trusted": true,
            "changed": granted != trust::Granted::Already,
            "sha256": trust::digest(server),
            "path": path,
        }));
    }
    let verb = match granted {
        trust::Granted::New => "Approved",
        trust::Granted::Renewed => "Approved the new contents of",
        trust::Granted::Already => "Already approved",
    };
    ctx.ui.lines(vec![
        format!(
            "{} {verb} MCP server \"{}\" ({}): it starts from now on",
            ctx.ui.green("✓"),
            server.name,
            server.reach()
        ),
        format!(
            "  Recorded in {}; a change to the entry waits for a person again.",
            trust::trust_file(&homes.runtime).display()
        ),
    ])
}

/// Every entry of `servers.json` and its state: `trusted`, `changed` (approved with other
/// contents), or `untrusted`.
fn trust_list(ctx: &Context, path: &std::path::Path, servers: &[McpServerConfig]) -> Result<()> {
    let approved = trust::list(&ctx.homes()?.runtime)?;
    let rows: Vec<(&McpServerConfig, &str)> = servers
        .iter()
        .map(|s| {
            let state = if trust::is_approved(&approved, path, s) {
                "trusted"
            } else if approved
                .iter()
                .any(|a| a.file == path && a.name == s.normalized())
            {
                "changed"
            } else {
                "untrusted"
            };
            (s, state)
        })
        .collect();
    if ctx.ui.json {
        let list: Vec<Value> = rows
            .iter()
            .map(|(s, state)| json!({"name": s.name, "state": state, "sha256": trust::digest(s)}))
            .collect();
        return ctx.ui.json(&Value::Array(list));
    }
    if rows.is_empty() {
        return ctx.ui.line(format!("No MCP servers in {}", path.display()));
    }
    let mut table = Table::new(&["NAME", "STATE", "RUNS"]).cut(&["RUNS"]);
    for (s, state) in rows {
        table.row(vec![s.name.clone(), state.to_string(), s.reach()]);
    }
    ctx.ui.table(&table, TableArgs::default())
}
