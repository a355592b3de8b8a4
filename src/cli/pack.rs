//! `finch pack [dir]`: builds the package (its `build` script), checks it as `finch doctor`
//! does, writes the tarball `npm pack` would write (`authoring::packlist`: the same file list,
//! `package/` prefix), and before the tarball lands in the package directory, installs it into
//! a scratch home the way `finch add x.tgz` does and starts it there: what is published is
//! what was tested. `--json`: `{"tarball", "name", "version", "size", "unpackedSize", "tools",
//! "files": [{"path", "size"}]}`.

use std::path::PathBuf;

use clap::Args;
use serde_json::json;

use crate::Context;
use crate::authoring::{self, AuthoringError, build, packlist};
use crate::error::{CommandError, Result};
use crate::homes::{AgentHomeSource, Homes, Tier, absolutize};
use crate::host::runtime::Outcome;
use crate::minitool::install::Installer;
use crate::minitool::net::LazyNetwork;
use crate::minitool::source::Source;

#[derive(Debug, Args)]
pub struct PackArgs {
    /// The package directory (default: the current directory)
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Do not run the package's build script (pack what is built)
    #[arg(long)]
    pub no_build: bool,
}

pub fn cmd_pack(ctx: &Context, args: &PackArgs) -> Result<()> {
    let dir = absolutize(args.dir.as_deref().unwrap_or(&ctx.cwd), &ctx.cwd);
    let (manifest, id) = authoring::load_package(&dir)?;
    let (Some(name), Some(version)) = (manifest.package_name.clone(), manifest.version.clone())
    else {
        return Err(AuthoringError::InvalidPackage {
            dir: dir.clone(),
            message: "package.json needs a \"name\" and a \"version\" to be packed".into(),
        }
        .into());
    };
    if !args.no_build && build::has_build_script(&dir) {
        super::test::run_build(ctx, &dir)?;
    }
    let report = crate::minitool::doctor::check_package(&dir).map_err(|e| {
        CommandError::from(AuthoringError::InvalidPackage {
            dir: dir.clone(),
            message: e.to_string(),
        })
    })?;
    for issue in report.warnings() {
        ctx.ui.warn(issue.text());
    }
    authoring::check_fatal(&dir)?;
    let list = packlist::file_list(&dir)?;
    let scratch = tempfile::Builder::new()
        .prefix("finch-pack-")
        .tempdir()
        .map_err(|e| CommandError::failed(format!("cannot create a scratch directory: {e}")))?;
    let staged = scratch.path().join(packlist::tarball_name(&name, &version));
    packlist::write_tarball(&dir, &list, &staged)?;
    let tools = check_install(ctx, &staged, scratch.path(), &id)?;
    let tarball = packlist::tarball_path(&dir, &name, &version);
    let size = std::fs::metadata(&staged)
        .map(|m| m.len())
        .map_err(|e| crate::error::io_error("read", &staged, &e))?;
    std::fs::copy(&staged, &tarball).map_err(|e| crate::error::io_error("write", &tarball, &e))?;
    let unpacked: u64 = list.iter().map(|f| f.size).sum();
    if ctx.ui.json {
        return ctx.ui.json(&json!({
            "tarball": tarball,
            "name": name,
            "version": version,
            "size": size,
            "unpackedSize": unpacked,
            "tools": tools,
            "files": list.iter().map(|f| json!({"path": f.path, "size": f.size})).collect::<Vec<_>>(),
        }));
    }
    let width = list.iter().map(|f| human(f.size).len()).max().unwrap_or(0);
    let mut lines: Vec<String> = list
        .iter()
        .map(|f| format!("{:>width$}  {}", human(f.size), f.path))
        .collect();
    lines.push(String::new());
    // The summary wrapped at spaces on a terminal (the tarball's path stays whole).
    lines.extend(ctx.ui.prose(&format!(
        "{}: {name}@{version}, {} files, {} ({} unpacked); installed and activated in a scratch home with {tools} tool{}",
        tarball.display(),
        list.len(),
        human(size),
        human(unpacked),
        if tools == 1 { "" } else { "s" }
    )));
    ctx.ui.lines(lines)
}

/// Installs the tarball into a scratch home as `finch add x.tgz` does and starts it there;
/// the number of tools it registered.
fn check_install(
    ctx: &Context,
    tarball: &std::path::Path,
    scratch: &std::path::Path,
    id: &str,
) -> Result<usize> {
    let homes = Homes {
        runtime: scratch.join("runtime"),
        agent: scratch.join("agent"),
        agent_source: AgentHomeSource::Flag,
    };
    let settings = ctx.settings()?.clone();
    let installer = Installer {
        homes: &homes,
        tier: Tier::Personal,
        lock_timeout: settings.lock_timeout,
        now: ctx.now()?.to_rfc3339(),
    };
    let network = LazyNetwork::new(|| {
        Err(crate::minitool::Error::io(
            "reach the network for",
            tarball,
            std::io::Error::other("a local tarball needs none"),
        ))
    });
    crate::minitool::add::add(
        &installer,
        &Source::TgzFile(tarball.to_path_buf()),
        false,
        &network,
    )
    .map_err(|e| {
        CommandError::failed(format!("the packed tarball does not install: {e}"))
            .with_code("pack_check_failed")
    })?;
    // As `finch enable <id>` after the add.
    crate::minitool::enabled::change(&homes, &[id.to_string()], true, settings.lock_timeout)
        .map_err(|e| CommandError::failed(e.to_string()))?;
    let env = crate::host::HostEnv {
        homes: homes.clone(),
        settings,
        env: ctx.env.clone(),
        fixed_now: None,
        embed_resources: false,
    };
    // The scratch start's own report lines would only repeat what the outcome says.
    let mut quiet = ctx.ui.clone();
    quiet.quiet = true;
    let survey = crate::host::assembly::survey(&env, scratch, &quiet, Some(id), None)?;
    let outcome = survey
        .report
        .tools
        .iter()
        .find(|r| r.id == id)
        .map(|r| r.outcome.clone());
    match outcome {
        Some(Outcome::Activated { tools }) if tools > 0 => Ok(tools),
        Some(Outcome::Activated { .. }) => Err(CommandError::failed(
            "the packed tarball installs and activates, but registers no tools",
        )
        .with_code("pack_check_failed")
        .with_hint("is the tool registration in a file `files` leaves out?")),
        Some(Outcome::Failed { error }) => Err(CommandError::failed(format!(
            "the packed tarball installs, but does not activate: {error}"
        ))
        .with_code("pack_check_failed")
        .with_hint("a file the bundle needs may be missing from the tarball: check \"files\" in package.json")),
        Some(Outcome::Refused { error }) => Err(CommandError::failed(format!(
            "the packed tarball installs, but does not start: {error}"
        ))
        .with_code("pack_check_failed")),
        _ => Err(CommandError::failed("the packed tarball installs, but does not start")
            .with_code("pack_check_failed")),
    }
}

/// A size as npm prints it: `812 B`, `1.2 kB`, `3.4 MB`.
fn human(bytes: u64) -> String {
    match bytes {
        b if b < 1000 => format!("{b} B"),
        b if b < 1_000_000 => format!("{:.1} kB", b as f64 / 1000.0),
        b => format!("{:.1} MB", b as f64 / 1_000_000.0),
    }
}
