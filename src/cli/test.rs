//! `finch test [dir]`: builds the package when its bundle is missing or older than a source,
//! runs the cases of `finch.test.json` and `tests/*.finch.json` through the host
//! (`authoring::runner`), and reports them: `pretty` (a line per case, a diff per failed
//! expectation), `tap` or `junit` on stdout, or the `--json` document. Exit 0 when every case
//! passed, 1 when one failed; 2 for a malformed test file or a case naming an unknown tool,
//! found before any case runs. `--update` rewrites the expectations of the cases that failed
//! (and of cases with none) from their actual answers, and exits 0.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use crate::Context;
use crate::authoring::runner::{self, CaseResult, Planned, RunOptions};
use crate::authoring::{self, AuthoringError, build, report, testfile};
use crate::error::{CommandError, Result};
use crate::homes::absolutize;

#[derive(Debug, Args)]
pub struct TestArgs {
    /// The package directory (default: the current directory)
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Run only the cases whose name contains PAT
    #[arg(long, value_name = "PAT")]
    pub filter: Option<String>,
    /// Write the actual answers as the expectations of the cases that failed
    #[arg(long)]
    pub update: bool,
    /// How to report: a line per case, TAP, or JUnit XML
    #[arg(long, value_enum, default_value_t = Reporter::Pretty)]
    pub reporter: Reporter,
    /// How many node processes run cases side by side (each activates the mini tool once)
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub jobs: u16,
    /// Do not run the package's build script, even when the bundle is older than a source
    #[arg(long)]
    pub no_build: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Reporter {
    /// A line per case and a diff per failed expectation
    Pretty,
    /// TAP version 13
    Tap,
    /// JUnit XML, as CI systems read it
    Junit,
}

pub fn cmd_test(ctx: &Context, args: &TestArgs) -> Result<()> {
    let dir = absolutize(args.dir.as_deref().unwrap_or(&ctx.cwd), &ctx.cwd);
    let (manifest, id) = authoring::load_package(&dir)?;
    let paths = testfile::discover(&dir);
    if paths.is_empty() {
        return Err(AuthoringError::NoTestFile(dir).into());
    }
    let mut files = Vec::with_capacity(paths.len());
    for path in &paths {
        files.push(testfile::load(path)?);
    }
    let planned: Vec<Planned> = files
        .iter()
        .flat_map(|f| {
            f.cases
                .iter()
                .filter(|c| testfile::selected(c, args.filter.as_deref()))
                .map(|c| Planned {
                    file: f.path.clone(),
                    case: c.clone(),
                })
        })
        .collect();
    if planned.is_empty() {
        let what = match &args.filter {
            Some(f) => format!("no case's name contains \"{f}\""),
            None => "the test files hold no cases".to_string(),
        };
        return Err(CommandError::failed(what)
            .with_code("no_cases")
            .with_hint("`finch test` without --filter runs every case"));
    }
    build_if_stale(ctx, &dir, &dir.join(manifest.main()), args.no_build)?;
    authoring::check_fatal(&dir)?;
    let env = ctx.host_env()?;
    let options = RunOptions {
        package: &dir,
        id: &id,
        env: &env,
        jobs: usize::from(args.jobs),
        ui: &ctx.ui,
    };
    let results = runner::run(&options, &planned)?;
    let failed = results.iter().filter(|r| !r.passed()).count();
    let several = paths.len() > 1;
    if args.update {
        return update(ctx, files, &results, several, &dir);
    }
    if ctx.ui.json {
        ctx.ui.json(&report::to_json(&results, &dir))?;
    } else {
        match args.reporter {
            Reporter::Pretty => pretty(ctx, &results, &dir, several)?,
            Reporter::Tap => ctx.ui.lines(report::tap(&results, &dir, several))?,
            Reporter::Junit => ctx
                .ui
                .lines([report::junit(&results, &dir, &id).trim_end()])?,
        }
    }
    if failed == 0 {
        return Ok(());
    }
    let err = CommandError::failed(format!("{failed} of {} cases failed", results.len()))
        .with_code("tests_failed")
        .with_hint("`finch test --update` takes the actual answers as the new expectations");
    Err(if ctx.ui.json {
        err.json_reported()
    } else {
        err
    })
}

/// Builds with the package's build script when the entry is missing or older than a source.
pub(crate) fn build_if_stale(
    ctx: &Context,
    dir: &Path,
    entry: &Path,
    no_build: bool,
) -> Result<()> {
    if no_build || !build::has_build_script(dir) || !build::is_stale(dir, entry) {
        return Ok(());
    }
    run_build(ctx, dir)
}

/// `npm run build`, its output shown when it fails (and with --verbose); first `npm install`
/// when `node_modules` lacks what the package declares (`install_missing`).
pub(crate) fn run_build(ctx: &Context, dir: &Path) -> Result<()> {
    install_missing(&ctx.ui, dir)?;
    ctx.ui.status("Building: npm run build");
    match build::run(dir) {
        Ok(output) => {
            ctx.ui.detail(output.trim_end());
            Ok(())
        }
        Err(e) => {
            if let AuthoringError::BuildFailed { output, .. } = &e {
                crate::eline!("{}", output.trim_end());
            }
            Err(e.into())
        }
    }
}

/// `npm install` when `node_modules` lacks a dependency `package.json` declares, saying so
/// first (as cargo and uv fetch what a build needs, never a bare `esbuild: not found`); npm's
/// output shown when it fails (and with --verbose).
pub(crate) fn install_missing(ui: &crate::ui::Ui, dir: &Path) -> Result<()> {
    let missing = build::missing_dependencies(dir);
    if missing.is_empty() {
        return Ok(());
    }
    ui.status(format!(
        "Installing: npm install (node_modules lacks {})",
        listed(&missing)
    ));
    match build::install(dir) {
        Ok(output) => {
            ui.detail(output.trim_end());
            Ok(())
        }
        Err(e) => {
            if let AuthoringError::InstallFailed { output, .. } = &e {
                crate::eline!("{}", output.trim_end());
            }
            Err(e.into())
        }
    }
}

/// `a`, `a and b`, `a, b and c`, `a, b and 3 more`.
fn listed(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [a, b] => format!("{a} and {b}"),
        [a, b, c] => format!("{a}, {b} and {c}"),
        [a, b, rest @ ..] => format!("{a}, {b} and {} more", rest.len()),
    }
}

fn pretty(ctx: &Context, results: &[CaseResult], dir: &Path, several: bool) -> Result<()> {
    let ui = &ctx.ui;
    let mut lines = Vec::new();
    for r in results {
        let name = report::label(r, dir, several);
        let time = if ui.verbose {
            format!(" ({} ms)", r.duration.as_millis())
        } else {
            String::new()
        };
        if r.passed() {
            lines.push(format!("{} {name}{time}", ui.green("✓")));
            continue;
        }
        lines.push(format!("{} {name}{time}", ui.red("✗")));
        for m in &r.mismatches {
            for line in report::mismatch_lines(m) {
                let line = match line.chars().next() {
                    Some('-') => ui.red(&line),
                    Some('+') => ui.green(&line),
                    _ => line,
                };
                lines.push(format!("    {line}"));
            }
        }
    }
    let failed = results.iter().filter(|r| !r.passed()).count();
    lines.push(String::new());
    lines.push(format!(
        "{} cases: {} passed, {failed} failed",
        results.len(),
        results.len() - failed
    ));
    ui.lines(lines)
}

/// `--update`: the failed cases' (and expectation-less cases') expectations from their
/// actual answers, each changed file written atomically.
fn update(
    ctx: &Context,
    mut files: Vec<testfile::TestFile>,
    results: &[CaseResult],
    several: bool,
    dir: &Path,
) -> Result<()> {
    let mut updated = Vec::new();
    for file in &mut files {
        let mut changed = false;
        for r in results.iter().filter(|r| r.file == file.path) {
            let bare = file.document["cases"][r.case.index]
                .get("expect")
                .and_then(|e| e.as_object())
                .is_none_or(|e| e.is_empty());
            if (r.passed() && !bare)
                || !testfile::update(&mut file.document, &r.case, &r.actual, &r.mismatches)
            {
                continue;
            }
            changed = true;
            updated.push(report::label(r, dir, several));
        }
        if changed {
            let text = crate::store::to_pretty_json(&file.document);
            crate::store::write_atomic(&file.path, text.as_bytes())
                .map_err(|e| crate::error::io_error("write", &file.path, &e))?;
        }
    }
    if ctx.ui.json {
        return ctx.ui.json(&serde_json::json!({
            "updated": updated,
            "cases": report::to_json(results, dir)["cases"],
        }));
    }
    if updated.is_empty() {
        ctx.ui
            .status(format!("{} cases passed; nothing to update", results.len()));
    } else {
        for name in &updated {
            ctx.ui.status(format!("updated: {name}"));
        }
        ctx.ui.status(format!(
            "{} of {} cases updated from their actual answers",
            updated.len(),
            results.len()
        ));
    }
    Ok(())
}
