//! The `MiniTool` dispatcher (SPEC §8.1, §3): list, add, update, remove, enable and disable mini
//! tools from inside a session, through the same `minitool` functions as `finch list`, `add`,
//! `update`, `remove`, `enable` and `disable`, answering with the JSON those commands print with
//! `--json` (docs/json.md) after a line for the model to read. Every call of this tool shows a
//! permission card that no mode or rule removes (SPEC §8.3); the gateway asked before this runs.
//!
//! Choices made where the spec is silent:
//! - Paths in `add` resolve against the session's working directory; no progress bar is drawn
//!   (stdout and stderr may carry a protocol); notes `update` makes about the registry are
//!   passed on to the model.
//! - `add`, `remove`, `enable`, `disable`, and an `update` that changed something, announce
//!   `HostEvent::MiniToolsChanged` so a front end can rebuild its catalog.
//! - `enable` and `disable` take one `id` and answer with the one-item array of the CLI.
//! - `update` with `all` answers with the CLI's array (each item flagged `dryRun` in a dry
//!   run) and is an error result when any mini tool failed; development links are skipped and
//!   named in the first line.
//! - `reload`: the mini tool runtime (SPEC §9) is not part of this build. `reload` re-scans both
//!   tiers and reports, for each installed mini tool, whether its manifest is valid and whether
//!   it is enabled — and says plainly that nothing was started and no tools were registered.

use std::cell::RefCell;

use chrono::SecondsFormat;
use serde_json::{Map, Value, json};

use super::super::output::{Content, ToolOutput};
use super::{About, Action, ActionError, Suite, text};
use crate::error::CommandError;
use crate::homes::Tier;
use crate::host::call::context::{CallCx, HostEvent};
use crate::minitool::install::Installer;
use crate::minitool::net::{LazyNetwork, Network, NetworkSetup};
use crate::minitool::source::{self, Source};
use crate::minitool::update::{self, BatchItem};
use crate::minitool::{Error, add, enabled, listing, remove};

pub struct MiniToolSuite;

const ABOUT: About = About {
    name: "MiniTool",
    title: "Mini tools",
    description: "Install, update, remove, list, enable and disable Finch mini tools (as `finch add`, `update`, `remove`, `list`, `enable`, `disable`), and check installed manifests (reload)",
    keywords: "mini tools extensions plugins add-ons: install add download, update upgrade, uninstall remove delete, enable turn on, disable turn off, list installed, reload. 小工具 扩展 插件 安装小工具 安装插件 更新小工具 卸载 删除小工具 启用 停用 禁用 关闭插件 已安装 重新加载 小工具 擴充功能 外掛 安裝小工具 安裝外掛 更新 解除安裝 移除 啟用 停用 停用擴充功能 重新載入",
};

impl Suite for MiniToolSuite {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn actions(&self) -> Vec<Action> {
        let global = || {
            json!({
                "type": "boolean",
                "description": "Use the global tier (<runtime>/extensions) instead of the personal one",
            })
        };
        let id = |what: &str| json!({"type": "string", "minLength": 1, "description": what});
        vec![
            Action {
                name: "list",
                summary: "List installed mini tools with version, tier, enabled state, install source, declared permissions and problems",
                params: json!({
                    "type": "object",
                    "properties": {
                        "global": global(),
                        "allTiers": {"type": "boolean", "description": "List both tiers (personal first)"},
                    },
                    "additionalProperties": false,
                }),
                example: json!({"action": "list", "allTiers": true}),
            },
            Action {
                name: "add",
                summary: "Install mini tools from an npm package, a directory, a .tgz/.zip file, or an http(s) URL of one; installs only, never enables",
                params: json!({
                    "type": "object",
                    "properties": {
                        "source": {
                            "type": "string",
                            "minLength": 1,
                            "description": "npm spec (name[@version|@range|@tag]), a path (relative to the session's working directory), or a .zip/.tgz URL",
                        },
                        "global": global(),
                        "dev": {"type": "boolean", "description": "Link a source directory instead of copying it (development install)"},
                        "registry": {"type": "string", "minLength": 1, "description": "npm registry URL to use instead of the configured one"},
                    },
                    "required": ["source"],
                    "additionalProperties": false,
                }),
                example: json!({"action": "add", "source": "hello-minitool@^1"}),
            },
            Action {
                name: "update",
                summary: "Update one mini tool (id) or every one in the tier (all) from where it was installed",
                params: json!({
                    "type": "object",
                    "properties": {
                        "id": id("The mini tool to update (give id or all)"),
                        "all": {"type": "boolean", "description": "Update every mini tool in the tier, continuing past failures"},
                        "global": global(),
                        "dryRun": {"type": "boolean", "description": "Report what would change without changing anything"},
                        "registry": {"type": "string", "minLength": 1, "description": "npm registry URL to use instead of the configured one"},
                    },
                    "additionalProperties": false,
                }),
                example: json!({"action": "update", "id": "hello-minitool", "dryRun": true}),
            },
            Action {
                name: "remove",
                summary: "Remove an installed mini tool (a development link: only the link); its private data is kept",
                params: json!({
                    "type": "object",
                    "properties": {"id": id("The mini tool to remove"), "global": global()},
                    "required": ["id"],
                    "additionalProperties": false,
                }),
                example: json!({"action": "remove", "id": "hello-minitool"}),
            },
            Action {
                name: "enable",
                summary: "Enable a mini tool (grants no permissions; the user reviews them in Finch)",
                params: json!({
                    "type": "object",
                    "properties": {"id": id("The mini tool to enable")},
                    "required": ["id"],
                    "additionalProperties": false,
                }),
                example: json!({"action": "enable", "id": "hello-minitool"}),
            },
            Action {
                name: "disable",
                summary: "Disable a mini tool",
                params: json!({
                    "type": "object",
                    "properties": {"id": id("The mini tool to disable")},
                    "required": ["id"],
                    "additionalProperties": false,
                }),
                example: json!({"action": "disable", "id": "hello-minitool"}),
            },
            Action {
                name: "reload",
                summary: "Re-scan both tiers and check each installed mini tool's manifest and enabled state (starting mini tools arrives with the mini tool runtime)",
                params: json!({
                    "type": "object",
                    "properties": {"id": id("Check only this mini tool")},
                    "additionalProperties": false,
                }),
                example: json!({"action": "reload"}),
            },
        ]
    }

    fn run(
        &mut self,
        action: &str,
        args: &Map<String, Value>,
        cx: &mut CallCx,
    ) -> Result<ToolOutput, ActionError> {
        match action {
            "list" => list(args, cx),
            "add" => add(args, cx),
            "update" => update(args, cx),
            "remove" => remove(args, cx),
            "enable" => set_enabled(args, cx, true),
            "disable" => set_enabled(args, cx, false),
            "reload" => reload(args, cx),
            other => Err(ActionError::new(format!("MiniTool has no action {other}"))),
        }
    }
}

fn flag(args: &Map<String, Value>, key: &str) -> bool {
    args.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// The domain's errors become the CLI's messages and hints.
fn err(e: Error) -> ActionError {
    CommandError::from(e).into()
}

/// A JSON result after lines for the model to read.
fn json_with(lines: Vec<String>, value: Value) -> ToolOutput {
    let mut out = ToolOutput::json(value);
    if !lines.is_empty() {
        out.content.insert(0, Content::Text(lines.join("\n")));
    }
    out
}

fn installer<'a>(cx: &'a CallCx, global: bool) -> Installer<'a> {
    Installer {
        homes: &cx.env.homes,
        tier: Tier::from_global_flag(global),
        lock_timeout: cx.env.settings.lock_timeout,
        now: cx
            .env
            .now_utc()
            .to_rfc3339_opts(SecondsFormat::Millis, true),
    }
}

/// Connects to the registry on first use, as `add` and `update` do.
fn network<'a>(cx: &'a CallCx, registry: Option<&'a str>) -> LazyNetwork<'a> {
    LazyNetwork::new(move || {
        let setup = NetworkSetup {
            env: &cx.env.env,
            cwd: &cx.session.cwd,
            settings: &cx.env.settings,
            homes: &cx.env.homes,
            registry_flag: registry,
            show_progress: false,
        };
        // Which registry was chosen is verbose detail in the CLI; the model gets the outcome.
        Network::open(&setup, &|_| {})
    })
}

fn list(args: &Map<String, Value>, cx: &mut CallCx) -> Result<ToolOutput, ActionError> {
    let (global, all) = (flag(args, "global"), flag(args, "allTiers"));
    if global && all {
        return Err(ActionError::new(
            "`global` and `allTiers` exclude each other: allTiers already lists the global tier",
        ));
    }
    let tiers = if all {
        vec![Tier::Personal, Tier::Global]
    } else {
        vec![Tier::from_global_flag(global)]
    };
    let listing = listing::list(&cx.env.homes, &tiers, true).map_err(err)?;
    let count: usize = listing.tiers.iter().map(|t| t.entries.len()).sum();
    let places: Vec<String> = listing
        .tiers
        .iter()
        .map(|t| t.dir.display().to_string())
        .collect();
    let line = match count {
        0 => format!("No mini tools installed in {}.", places.join(" or ")),
        1 => format!("1 mini tool installed ({}).", places.join(", ")),
        n => format!("{n} mini tools installed ({}).", places.join(", ")),
    };
    Ok(json_with(vec![line], listing.to_json()))
}

fn add(args: &Map<String, Value>, cx: &mut CallCx) -> Result<ToolOutput, ActionError> {
    let raw = text(args, "source").unwrap_or_default();
    let dev = flag(args, "dev");
    let home = cx.env.env.home_dir();
    let source =
        source::classify(raw, &cx.session.cwd, home.as_deref()).map_err(|e| err(e.into()))?;
    if dev && !matches!(source, Source::Directory(_)) {
        return Err(
            ActionError::new("`dev` links a directory, and the source is not one")
                .with_hint("give a directory as source, or drop `dev` to install a copy"),
        );
    }
    let notes = RefCell::new(Vec::new());
    let report = {
        let installer = installer(cx, flag(args, "global"));
        let network = network(cx, text(args, "registry"));
        add::add(&installer, &source, dev, &network).map_err(err)?
    };
    if !report.installed.is_empty() {
        cx.events.push(HostEvent::MiniToolsChanged);
    }
    let mut lines = notes.into_inner();
    for i in &report.installed {
        let verb = if i.linked { "Linked" } else { "Added" };
        lines.push(format!(
            "{verb} \"{}\" ({}) → {}. Installed only: it is disabled until enabled ({{\"action\": \"enable\", \"id\": \"{}\"}}), and the user reviews its permissions in Finch.",
            i.display_name,
            i.id,
            i.path.display(),
            i.id
        ));
    }
    for (place, e) in &report.skipped {
        lines.push(format!("Skipped {place}: {e}"));
    }
    Ok(json_with(lines, report.to_json()))
}

fn update(args: &Map<String, Value>, cx: &mut CallCx) -> Result<ToolOutput, ActionError> {
    let dry_run = flag(args, "dryRun");
    let id = text(args, "id");
    let all = flag(args, "all");
    let notes = RefCell::new(Vec::new());
    let note = |text: String| notes.borrow_mut().push(text);
    match (id, all) {
        (Some(_), true) => Err(ActionError::new(
            "give either `id` or `all: true`, not both",
        )),
        (None, false) => Err(ActionError::new(
            "update needs the `id` of a mini tool, or `all: true` for every one in the tier",
        )
        .with_hint("see what is installed with {\"action\": \"list\", \"allTiers\": true}")),
        (Some(id), false) => {
            let outcome = {
                let installer = installer(cx, flag(args, "global"));
                let network = network(cx, text(args, "registry"));
                update::update_one(&installer, id, dry_run, &network, &note).map_err(err)?
            };
            if outcome.changed && !dry_run {
                cx.events.push(HostEvent::MiniToolsChanged);
            }
            let v = |v: &Option<String>| {
                v.as_deref()
                    .map(|v| format!("v{v}"))
                    .unwrap_or_else(|| "unknown".into())
            };
            let line = match (outcome.changed, dry_run) {
                (true, false) => format!(
                    "Updated \"{}\" ({}) {} → {}.",
                    outcome.display_name,
                    outcome.id,
                    v(&outcome.previous_version),
                    v(&outcome.version)
                ),
                (true, true) => format!(
                    "Would update \"{}\" ({}) {} → {} (dry run: nothing changed).",
                    outcome.display_name,
                    outcome.id,
                    v(&outcome.previous_version),
                    v(&outcome.version)
                ),
                (false, _) => format!(
                    "\"{}\" ({}) is already up to date ({}).",
                    outcome.display_name,
                    outcome.id,
                    v(&outcome.version)
                ),
            };
            let mut lines = notes.into_inner();
            lines.push(line);
            Ok(json_with(lines, outcome.to_json(dry_run)))
        }
        (None, true) => {
            let mut items = Vec::new();
            let mut links = Vec::new();
            let summary = {
                let installer = installer(cx, flag(args, "global"));
                let network = network(cx, text(args, "registry"));
                update::update_all(
                    &installer,
                    dry_run,
                    &network,
                    &note,
                    |item| -> Result<(), Error> {
                        match item {
                            BatchItem::Link { id } => links.push(id),
                            BatchItem::Done(o) => items.push(o.to_json(dry_run)),
                            BatchItem::Failed { id, error } => {
                                let e = CommandError::from(error);
                                items.push(json!({"id": id, "error": e.to_json()["error"]}));
                            }
                        }
                        Ok(())
                    },
                )
                .map_err(err)?
            };
            if summary.updated > 0 && !dry_run {
                cx.events.push(HostEvent::MiniToolsChanged);
            }
            let mut lines = notes.into_inner();
            lines.push(if dry_run {
                format!(
                    "Dry run, nothing changed: {} would be updated, {} already up to date, {} failed.",
                    summary.updated, summary.current, summary.failed
                )
            } else {
                format!("{}.", summary.describe())
            });
            if !links.is_empty() {
                lines.push(format!(
                    "Skipped development links (edit or build their source instead): {}.",
                    links.join(", ")
                ));
            }
            let mut out = json_with(lines, Value::Array(items));
            out.is_error = summary.failed > 0;
            Ok(out)
        }
    }
}

fn remove(args: &Map<String, Value>, cx: &mut CallCx) -> Result<ToolOutput, ActionError> {
    let id = text(args, "id").unwrap_or_default();
    let removed = {
        let installer = installer(cx, flag(args, "global"));
        remove::remove(&installer, id).map_err(err)?
    };
    cx.events.push(HostEvent::MiniToolsChanged);
    let line = format!(
        "Removed {} ({}); its data in {} is kept.",
        removed.id,
        removed.path.display(),
        cx.env.homes.extension_data(&removed.id).display()
    );
    Ok(json_with(vec![line], removed.to_json()))
}

fn set_enabled(
    args: &Map<String, Value>,
    cx: &mut CallCx,
    enable: bool,
) -> Result<ToolOutput, ActionError> {
    let id = text(args, "id").unwrap_or_default().to_string();
    let changes = enabled::change(
        &cx.env.homes,
        std::slice::from_ref(&id),
        enable,
        cx.env.settings.lock_timeout,
    )
    .map_err(err)?;
    cx.events.push(HostEvent::MiniToolsChanged);
    let mut lines = Vec::new();
    for c in &changes {
        if enable && !c.installed {
            lines.push(format!(
                "Warning: \"{}\" is not installed in either tier; enabled it anyway.",
                c.id
            ));
        }
        lines.push(if enable {
            format!(
                "Enabled {}. This grants no fine-grained permissions: the user reviews them in Finch.",
                c.id
            )
        } else {
            format!("Disabled {}.", c.id)
        });
    }
    let items = changes.iter().map(|c| c.to_json()).collect();
    Ok(json_with(lines, Value::Array(items)))
}

fn reload(args: &Map<String, Value>, cx: &mut CallCx) -> Result<ToolOutput, ActionError> {
    let only = text(args, "id");
    let listing =
        listing::list(&cx.env.homes, &[Tier::Personal, Tier::Global], false).map_err(err)?;
    let mut items = Vec::new();
    let mut lines = Vec::new();
    for t in &listing.tiers {
        for e in &t.entries {
            if only.is_some_and(|id| id != e.dir_name) {
                continue;
            }
            let problems = listing::problems(e);
            let enabled = listing.state.is_enabled(&e.dir_name);
            let version = e.manifest.as_ref().ok().and_then(|m| m.version.clone());
            lines.push(format!(
                "{} {} ({}, {}): manifest {}{}",
                if problems.is_empty() { "✓" } else { "✖" },
                e.dir_name,
                t.tier.name(),
                if enabled { "enabled" } else { "disabled" },
                if problems.is_empty() {
                    "valid"
                } else {
                    "invalid"
                },
                if problems.is_empty() {
                    String::new()
                } else {
                    format!(": {}", problems.join("; "))
                }
            ));
            items.push(json!({
                "id": e.dir_name,
                "tier": t.tier.name(),
                "version": version,
                "enabled": enabled,
                "valid": problems.is_empty(),
                "problems": problems,
                "linked": e.link.is_some(),
                "path": e.path,
                "started": false,
            }));
        }
    }
    if let Some(id) = only
        && items.is_empty()
    {
        return Err(
            ActionError::new(format!("\"{id}\" is not installed in either tier"))
                .with_hint("see what is installed with {\"action\": \"list\", \"allTiers\": true}"),
        );
    }
    let note = "The mini tool runtime is not part of this build yet: reload re-scanned both tiers and checked each manifest, but started no mini tool and registered no tools. Starting mini tools arrives with the runtime.";
    if items.is_empty() {
        lines.push("No mini tools installed in either tier.".into());
    }
    lines.push(note.into());
    Ok(json_with(
        lines,
        json!({"miniTools": items, "runtime": "unavailable", "note": note}),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_has_a_schema_that_accepts_its_example() {
        for action in MiniToolSuite.actions() {
            let schema = crate::host::schema::Schema::compile(&action.params);
            let mut example = action.example.as_object().cloned().unwrap();
            assert_eq!(example.remove("action"), Some(Value::from(action.name)));
            assert!(
                schema.check(&Value::Object(example)).is_ok(),
                "{}",
                action.name
            );
        }
    }

    #[test]
    fn schemas_reject_unknown_and_missing_parameters() {
        let actions = MiniToolSuite.actions();
        let schema = |name: &str| {
            let a = actions.iter().find(|a| a.name == name).unwrap();
            crate::host::schema::Schema::compile(&a.params)
        };
        let cases = [
            ("add", json!({}), false),
            ("add", json!({"source": ""}), false),
            ("add", json!({"source": "x", "force": true}), false),
            ("remove", json!({"id": "x", "global": true}), true),
            ("remove", json!({"id": "x", "dev": true}), false),
            ("enable", json!({"id": "x", "global": true}), false),
            ("update", json!({"all": true, "dryRun": true}), true),
            ("reload", json!({}), true),
        ];
        for (action, params, accepted) in cases {
            assert_eq!(
                schema(action).check(&params).is_ok(),
                accepted,
                "{action} {params}"
            );
        }
    }
}
