//! `finch doctor` output: the package report (SPEC §3.8 layout, exit 1 on any fatal issue), the
//! environment check, and `--state`, which moves corrupt state files aside after asking.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::Context;
use crate::error::{CommandError, Result};
use crate::homes::{Homes, Tier, absolutize};
use crate::minitool::doctor::{self, PackageReport};
use crate::minitool::net::Network;
use crate::minitool::{Error, tier};
use crate::node;
use crate::store::DirLock;

pub fn package(ctx: &Context, path: &Path) -> Result<()> {
    let dir = absolutize(path, &ctx.cwd);
    if dir.is_file() {
        return Err(CommandError::failed(format!(
            "{} is a file; give the mini tool's directory",
            dir.display()
        )));
    }
    if !dir.is_dir() {
        return Err(CommandError::not_found(format!(
            "no such directory: {}",
            dir.display()
        )));
    }
    let report = doctor::check_package(&dir).map_err(CommandError::from)?;
    let fatal = report.fatal().count();
    if ctx.ui.json {
        ctx.ui.json(&package_json(&report, &dir))?;
    } else {
        print_package(ctx, &report)?;
    }
    if fatal > 0 {
        let err = CommandError::failed(format!("{} has {fatal} fatal issue(s)", dir.display()));
        return Err(if ctx.ui.json {
            err.json_reported()
        } else {
            err
        });
    }
    Ok(())
}

fn print_package(ctx: &Context, r: &PackageReport) -> Result<()> {
    let m = &r.manifest;
    let ui = &ctx.ui;
    ui.line(ui.bold(&m.display_name()))?;
    let rows = [
        ("id", r.id.clone().unwrap_or_else(|| "(invalid)".into())),
        (
            "package",
            m.package_name.clone().unwrap_or_else(|| "(none)".into()),
        ),
        (
            "version",
            m.version.clone().unwrap_or_else(|| "(none)".into()),
        ),
        ("main", m.main()),
        ("permissions", doctor::permissions_summary(m)),
    ];
    for (label, value) in rows {
        ui.line(format!("  {label:<12} {value}"))?;
    }
    let fatal: Vec<_> = r.fatal().collect();
    let warnings: Vec<_> = r.warnings().collect();
    if !fatal.is_empty() {
        ui.line(format!("{} {} fatal issue(s):", ui.red("✖"), fatal.len()))?;
        for i in fatal {
            ui.line(format!("  - {}", i.text()))?;
        }
    }
    if !warnings.is_empty() {
        ui.line(format!("{} {} warning(s):", ui.yellow("⚠"), warnings.len()))?;
        for i in warnings {
            ui.line(format!("  - {}", i.text()))?;
        }
    }
    if r.issues.is_empty() {
        ui.line(format!("{} No issues found.", ui.green("✓")))?;
    }
    Ok(())
}

fn package_json(r: &PackageReport, dir: &Path) -> Value {
    let m = &r.manifest;
    json!({
        "path": dir,
        "id": r.id,
        "name": m.display_name(),
        "package": m.package_name,
        "version": m.version,
        "main": m.main(),
        "permissions": m.permissions().cloned().map(Value::Object).unwrap_or(json!({})),
        "fatal": r.fatal().map(|i| i.message.clone()).collect::<Vec<_>>(),
        "warnings": r.warnings().map(|i| i.message.clone()).collect::<Vec<_>>(),
        "ok": r.fatal().next().is_none(),
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Ok,
    Warning,
    Error,
}

struct Check {
    name: String,
    status: Status,
    detail: String,
}

fn check(name: &str, status: Status, detail: impl Into<String>) -> Check {
    Check {
        name: name.to_string(),
        status,
        detail: detail.into(),
    }
}

pub fn environment(ctx: &Context) -> Result<()> {
    let homes = ctx.homes()?;
    let mut checks = vec![
        check(
            "runtime home",
            Status::Ok,
            homes.runtime.display().to_string(),
        ),
        check(
            "agent home",
            Status::Ok,
            format!(
                "{} ({})",
                homes.agent.display(),
                homes.agent_source.describe()
            ),
        ),
    ];
    checks.extend(state_checks(homes));
    match ctx.settings() {
        Ok(settings) => {
            checks.push(node_check(ctx, settings));
            checks.push(keyring_check(settings));
            checks.push(registry_check(ctx, settings, homes));
        }
        Err(e) => checks.push(check("finch.toml", Status::Error, e.message)),
    }
    checks.extend(installed_checks(homes));
    for (name, state, detail) in crate::cli::sandbox::status_lines(crate::sandbox::Support::get()) {
        let status = match state {
            crate::cli::sandbox::LineState::Ok => Status::Ok,
            // A missing wall is not a broken environment: Bash calls then take cards.
            crate::cli::sandbox::LineState::Warn => Status::Warning,
        };
        checks.push(check(&name, status, detail));
    }
    let failed = checks.iter().filter(|c| c.status == Status::Error).count();
    if ctx.ui.json {
        let items: Vec<Value> = checks
            .iter()
            .map(|c| {
                let status = match c.status {
                    Status::Ok => "ok",
                    Status::Warning => "warning",
                    Status::Error => "error",
                };
                json!({"check": c.name, "status": status, "detail": c.detail})
            })
            .collect();
        ctx.ui.json(&json!({"checks": items, "ok": failed == 0}))?;
    } else {
        let width = checks
            .iter()
            .map(|c| c.name.chars().count())
            .max()
            .unwrap_or(0);
        let mut lines = Vec::new();
        for c in &checks {
            let mark = match c.status {
                Status::Ok => ctx.ui.green("✓"),
                Status::Warning => ctx.ui.yellow("⚠"),
                Status::Error => ctx.ui.red("✖"),
            };
            // Wrapped at spaces on a terminal, each detail under its column.
            let head = format!("{mark} {:<width$}  ", c.name);
            lines.extend(ctx.ui.hanging(&head, width + 4, &c.detail));
        }
        ctx.ui.lines(lines)?;
    }
    if failed > 0 {
        let err = CommandError::failed(format!("{failed} check(s) failed"));
        return Err(if ctx.ui.json {
            err.json_reported()
        } else {
            err
        });
    }
    Ok(())
}

fn state_checks(homes: &Homes) -> Vec<Check> {
    let files = doctor::json_state_files(homes);
    let mut out: Vec<Check> = files
        .iter()
        .filter_map(|f| doctor::state_file_problem(f))
        .map(|p| {
            check(
                "state file",
                Status::Error,
                format!("{p} (run `finch doctor --state`)"),
            )
        })
        .collect();
    if out.is_empty() {
        out.push(check(
            "state files",
            Status::Ok,
            format!("{} read, all valid", files.len()),
        ));
    }
    out
}

/// The OS keyring behind mini tools' `ctx.secrets`: a warning when none opens (only mini tools
/// that keep secrets need one).
fn keyring_check(settings: &crate::config::Settings) -> Check {
    match crate::host::runtime::secrets::probe(settings.runtime.keyring) {
        Ok(store) => check("keyring", Status::Ok, store),
        Err(why) => check("keyring", Status::Warning, why),
    }
}

fn node_check(ctx: &Context, settings: &crate::config::Settings) -> Check {
    let Some((path, how)) = node::find_node(settings, &ctx.env) else {
        return check(
            "node",
            Status::Warning,
            "not found (mini tools need node ≥ 18: install it, or set `node` in finch.toml or FINCH_NODE)",
        );
    };
    match node::node_version(&path) {
        Ok(v) if node::major(&v).is_some_and(|m| m >= node::MIN_NODE_MAJOR) => check(
            "node",
            Status::Ok,
            format!("{} {v} (from {how})", path.display()),
        ),
        Ok(v) => check(
            "node",
            Status::Error,
            format!(
                "{} is {v}; mini tools need node ≥ {}",
                path.display(),
                node::MIN_NODE_MAJOR
            ),
        ),
        Err(e) => check("node", Status::Error, e),
    }
}

fn registry_check(ctx: &Context, settings: &crate::config::Settings, homes: &Homes) -> Check {
    let net = match Network::connect(ctx, settings, homes, None) {
        Ok(n) => n,
        Err(e) => return check("registry", Status::Warning, e.to_string()),
    };
    match net.ping(Duration::from_secs(3)) {
        Ok(()) => check(
            "registry",
            Status::Ok,
            format!("{} reachable", net.registry()),
        ),
        Err(e) => check(
            "registry",
            Status::Warning,
            format!("{} not reachable: {e}", net.registry()),
        ),
    }
}

fn installed_checks(homes: &Homes) -> Vec<Check> {
    let mut out = Vec::new();
    let mut count = 0;
    for t in [Tier::Personal, Tier::Global] {
        let Ok(entries) = tier::scan(&homes.tier_dir(t)) else {
            continue;
        };
        for e in entries {
            count += 1;
            let problem = match &e.manifest {
                Err(p) => Some(p.clone()),
                Ok(m) => m
                    .check()
                    .into_iter()
                    .find(|i| i.severity == crate::minitool::manifest::Severity::Fatal)
                    .map(|i| i.message),
            };
            if let Some(p) = problem {
                out.push(check(
                    "mini tool",
                    Status::Error,
                    format!("{} ({}): {p}", e.dir_name, t.name()),
                ));
            }
        }
    }
    if out.is_empty() {
        out.push(check(
            "mini tools",
            Status::Ok,
            format!("{count} installed, all valid"),
        ));
    }
    out
}

pub fn state(ctx: &Context) -> Result<()> {
    let homes = ctx.homes()?;
    let lock_timeout = ctx
        .settings()
        .map(|s| s.lock_timeout)
        .unwrap_or(Duration::from_secs(10));
    let mut files = doctor::json_state_files(homes);
    if homes.finch_toml().exists() {
        files.push(homes.finch_toml());
    }
    let mut moved = Vec::new();
    let mut remaining = 0;
    for file in &files {
        let problem = if file.extension().is_some_and(|e| e == "toml") {
            crate::config::Config::load(file)
                .err()
                .map(|e| e.to_string())
        } else {
            doctor::state_file_problem(file)
        };
        let Some(problem) = problem else {
            if !ctx.ui.json {
                ctx.ui
                    .line(format!("{} {}", ctx.ui.green("✓"), file.display()))?;
            }
            continue;
        };
        if !ctx.ui.json {
            ctx.ui.line(format!("{} {problem}", ctx.ui.red("✖")))?;
        }
        if !ctx.ui.confirm(&format!("Move {} aside?", file.display()))? {
            remaining += 1;
            continue;
        }
        let aside = move_aside(file, lock_timeout)?;
        if !ctx.ui.json {
            ctx.ui.line(format!(
                "{} Moved {} → {}",
                ctx.ui.green("✓"),
                file.display(),
                aside.display()
            ))?;
        }
        moved.push(json!({"path": file, "movedTo": aside, "problem": problem}));
    }
    if ctx.ui.json {
        ctx.ui
            .json(&json!({"checked": files, "movedAside": moved, "remaining": remaining}))?;
    }
    if remaining > 0 {
        return Err(CommandError::failed(format!(
            "{remaining} corrupt state file(s) left in place"
        )));
    }
    Ok(())
}

/// Renames a corrupt file to `<name>.corrupt-<timestamp>` under its directory's lock.
fn move_aside(file: &Path, lock_timeout: Duration) -> Result<std::path::PathBuf> {
    let dir = file.parent().unwrap_or(Path::new("."));
    let _lock =
        DirLock::acquire(dir, &file.display().to_string(), lock_timeout).map_err(Error::from)?;
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Never overwrite an earlier copy moved aside in the same second.
    let aside = (0u32..)
        .map(|n| match n {
            0 => dir.join(format!("{name}.corrupt-{stamp}")),
            n => dir.join(format!("{name}.corrupt-{stamp}-{n}")),
        })
        .find(|p| std::fs::symlink_metadata(p).is_err())
        .unwrap_or_else(|| dir.join(format!("{name}.corrupt-{stamp}")));
    std::fs::rename(file, &aside).map_err(|e| crate::error::io_error("move", file, &e))?;
    Ok(aside)
}
