//! `finch dev [dir]`: the author's inner loop. Builds the package (its `build` script), checks
//! that it activates, and opens `finch run`'s console with the mini tool loaded as `--minitool`
//! loads it (with the built-ins). A thread watches the sources (`authoring::watch`); on every
//! change it rebuilds, activates the new bundle once in a scratch home, and — when that works —
//! asks the console to reload in place (the `/reload` path: the session is kept, the reload
//! happens before the next line runs). A failed build or activation is printed, with each
//! bundle position followed by its source position from the bundle's source map
//! (`authoring::sourcemap`), and the last good version stays loaded. Ctrl-C twice at the
//! prompt, Ctrl-D or `/quit` end it; the watcher and the mini tool stop with it.
//!
//! Where the kernel cannot confine the package (`minitool::confine`), the first check start
//! asks the person (its card, or `--approve-unconfined <id>`) and records the answer in the
//! runtime home, so the console's start and every rebuild's check run it unconfined without
//! asking again.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::Context;
use crate::authoring::sourcemap::{self, SourceMap};
use crate::authoring::watch::Watcher;
use crate::authoring::{self, AuthoringError, build};
use crate::error::{CommandError, Result};
use crate::homes::{AgentHomeSource, Homes, absolutize};
use crate::host::HostEnv;
use crate::host::assembly::{Agreement, Assembly, External, HostOptions, Layers};
use crate::host::runtime::{self, MiniToolRuntime, Outcome, StartOptions};
use crate::minitool::confine::{Consent, Unconfined};

#[derive(Debug, Args)]
pub struct DevArgs {
    /// The package directory (default: the current directory)
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The console's session, as `finch run` takes it (the package is added to --minitool)
    #[command(flatten)]
    pub session: super::run::SessionArgs,
}

pub fn cmd_dev(ctx: &Context, args: &DevArgs) -> Result<()> {
    let dir = absolutize(args.dir.as_deref().unwrap_or(&ctx.cwd), &ctx.cwd);
    let (manifest, id) = authoring::load_package(&dir)?;
    let bundle = dir.join(manifest.main());
    let env = ctx.host_env()?;
    if build::has_build_script(&dir) {
        super::test::run_build(ctx, &dir)?;
    }
    authoring::check_fatal(&dir)?;
    let approved = args.session.approve_unconfined.clone();
    // The check start is the first start: where the kernel cannot confine the package, its
    // card (or --approve-unconfined) is answered here, and recorded for the console's start.
    let first = Agreement {
        env: &env,
        ui: &ctx.ui,
        approved: &approved,
        card: true,
        denied: None,
    };
    if let Err(error) = activation(&env, &dir, &first) {
        return Err(CommandError::failed(format!(
            "the mini tool does not activate: {}",
            annotated(&error, &bundle, &dir)
        ))
        .with_code("activation_failed")
        .with_hint("fix it and run `finch dev` again"));
    }
    let watcher = Watcher::new(&dir)
        .map_err(|e| CommandError::failed(format!("cannot watch {}: {e}", dir.display())))?;
    let layers = Layers {
        builtins: true,
        external: External::MiniTools(Vec::new()),
        background: false,
    };
    let mut options: HostOptions = super::run::host_options(ctx, &args.session, layers);
    options.minitools.push(dir.clone());
    options.command = "finch dev";
    // Its author is at the terminal: "Allow for this session" on its tools' cards, so that
    // trying it out is not a `y` for every call.
    options.session_allow_owners.push(id.to_string());
    ctx.ui.status(format!(
        "finch dev: watching {} — every change rebuilds and reloads it before your next line",
        dir.display()
    ));
    let assembly = Assembly::new(options, &ctx.ui);
    let ui = ctx.ui.clone();
    let watch_env = env.clone();
    // The watcher thread lives as long as the process: it ends with it, after the console.
    std::thread::spawn(move || {
        let later = Agreement {
            env: &watch_env,
            ui: &ui,
            approved: &approved,
            card: false,
            denied: None,
        };
        while let Some(changed) = watcher.next_change() {
            rebuild(&ui, &watch_env, &dir, &bundle, &changed, &later);
        }
    });
    crate::host::frontend::console::run(env, &assembly)
}

/// One change: build, activate once, reload the console when both worked. What it says is
/// printed at once, above the console's prompt (`ui::notice`), which is drawn again.
fn rebuild(
    ui: &crate::ui::Ui,
    env: &HostEnv,
    dir: &Path,
    bundle: &Path,
    changed: &[PathBuf],
    consent: &Agreement,
) {
    let lines = rebuilt(ui, env, dir, bundle, changed, consent);
    crate::ui::notice(&lines.join("\n"));
}

/// `rebuild`'s work, and the lines that say how it went.
fn rebuilt(
    ui: &crate::ui::Ui,
    env: &HostEnv,
    dir: &Path,
    bundle: &Path,
    changed: &[PathBuf],
    consent: &Agreement,
) -> Vec<String> {
    let names: Vec<String> = changed.iter().map(|p| p.display().to_string()).collect();
    let mut lines = vec![String::new()];
    lines.extend(ui.prose_err(&format!("changed: {}", names.join(", "))));
    if build::has_build_script(dir) {
        match build::run(dir) {
            Ok(output) if ui.verbose => lines.push(output.trim_end().to_string()),
            Ok(_) => {}
            Err(AuthoringError::BuildFailed { output, status }) => {
                lines.push(annotated(output.trim_end(), bundle, dir));
                lines.push(ui.warning(format!(
                    "the build failed (npm run build exited with {status}); the last good version stays loaded"
                )));
                return lines;
            }
            Err(e) => {
                lines.push(ui.warning(format!("{e}; the last good version stays loaded")));
                return lines;
            }
        }
    }
    match activation(env, dir, consent) {
        Ok(tools) => {
            crate::host::control::request_reload();
            lines.extend(ui.prose_err(&format!(
                "rebuilt: {tools} tool{} — reloaded before your next line",
                if tools == 1 { "" } else { "s" }
            )));
        }
        Err(error) => lines.push(ui.warning(format!(
            "the new version does not activate: {}; the last good version stays loaded",
            annotated(&error, bundle, dir)
        ))),
    }
    lines
}

/// How the scratch start of `activation` agrees that the package runs unconfined where the
/// kernel cannot confine it: when the real runtime home records that a person agreed, else as
/// `agreement` says (which records it there).
struct ScratchConsent<'a> {
    agreement: &'a Agreement<'a>,
}

impl Consent for ScratchConsent<'_> {
    fn agree(&self, request: &Unconfined) -> bool {
        crate::minitool::confine::grant_for(&self.agreement.env.homes, &request.id).unconfined
            || self.agreement.agree(request)
    }
}

/// Starts the package once in a scratch home, as `--minitool` does; its tool count, or the
/// activation error.
fn activation(
    env: &HostEnv,
    dir: &Path,
    agreement: &Agreement,
) -> std::result::Result<usize, String> {
    let scratch = tempfile::Builder::new()
        .prefix("finch-dev-")
        .tempdir()
        .map_err(|e| format!("cannot create a scratch directory: {e}"))?;
    let homes = Homes {
        runtime: scratch.path().join("runtime"),
        agent: scratch.path().join("agent"),
        agent_source: AgentHomeSource::Flag,
    };
    let dirs = [dir.to_path_buf()];
    let only: [String; 0] = [];
    let options = StartOptions {
        homes: &homes,
        settings: &env.settings,
        env: &env.env,
        dirs: &dirs,
        session: None,
        hook: Some(runtime::stderr_hook(true)),
        only: Some(&only),
        background: None,
        consent: Some(&ScratchConsent { agreement }),
    };
    let (rt, report) = MiniToolRuntime::start(options).map_err(|e| e.to_string())?;
    rt.shutdown();
    let Some(tool) = report.tools.into_iter().next() else {
        return Err("it did not start".into());
    };
    match tool.outcome {
        Outcome::Activated { tools } => Ok(tools),
        Outcome::Failed { error } => {
            // The stack is in the log: its first frame in the bundle says where.
            let frame = std::fs::read_to_string(&tool.log)
                .ok()
                .and_then(|log| first_bundle_frame(&log, &dir.join(manifest_main(dir))));
            Err(match frame {
                Some(frame) => format!("{error}\n    {frame}"),
                None => error,
            })
        }
        Outcome::Refused { error } => Err(error),
        _ => Err("it did not start".into()),
    }
}

/// The package's entry, as its manifest names it.
fn manifest_main(dir: &Path) -> String {
    authoring::load_package(dir)
        .map(|(m, _)| m.main())
        .unwrap_or_else(|_| "dist/index.js".into())
}

/// The first `at …` line of the last `activate failed:` stack in a mini tool's log that
/// points into the bundle.
fn first_bundle_frame(log: &str, bundle: &Path) -> Option<String> {
    let start = log.rfind("activate failed: ")?;
    let bundle = bundle.display().to_string();
    log[start..]
        .lines()
        .skip(1)
        .map(str::trim)
        .take_while(|l| l.starts_with("at "))
        .find(|l| l.contains(&bundle))
        .map(str::to_string)
}

/// `text` with the bundle's positions followed by their source positions, when the bundle
/// has a readable source map beside it (`<bundle>.map`).
fn annotated(text: &str, bundle: &Path, dir: &Path) -> String {
    let mut map_path = bundle.as_os_str().to_owned();
    map_path.push(".map");
    let Some(map) = std::fs::read_to_string(PathBuf::from(map_path))
        .ok()
        .and_then(|t| SourceMap::parse(&t).ok())
    else {
        return text.to_string();
    };
    sourcemap::annotate(text, bundle, dir, &map)
}
