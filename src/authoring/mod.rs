//! The mini tool author's loop (issue 32): `finch new` (`scaffold`), `finch test` (`testfile`
//! parses and checks cases, `runner` runs them through the host, `report` renders TAP and
//! JUnit), `finch pack` (`packlist`: the file list rules of `npm pack`, and the tarball), and
//! `finch dev` (`build` runs the package's build script, `watch` notices source changes,
//! `sourcemap` maps a bundle position back to the source).
//!
//! Nothing here parses a command line or prints: the commands in `cli/` do, through `ui`.
//! Errors are `AuthoringError`; its `From` impl below says how each becomes a `CommandError`
//! (exit code, `--json` code, hint).

pub mod build;
pub mod packlist;
pub mod report;
pub mod runner;
pub mod scaffold;
pub mod sourcemap;
pub mod testfile;
pub mod watch;

use std::path::PathBuf;

use crate::error::CommandError;

/// What can go wrong in the author's loop.
#[derive(Debug, thiserror::Error)]
pub enum AuthoringError {
    #[error("{} is not empty", .0.display())]
    NotEmpty(PathBuf),
    #[error("\"{id}\" cannot be a mini tool id: {why}")]
    BadId { id: String, why: String },
    #[error("no mini tool in {}: no finch.json, and no package.json with a \"finch\" object", .0.display())]
    NoManifest(PathBuf),
    #[error("{}: {message}", dir.display())]
    InvalidPackage { dir: PathBuf, message: String },
    #[error("no test file in {}: no finch.test.json and no tests/*.finch.json", .0.display())]
    NoTestFile(PathBuf),
    #[error("{}: {why}", path.display())]
    MalformedTestFile { path: PathBuf, why: String },
    #[error("{}: case \"{case}\" calls `{tool}`, which the mini tool does not register (it registers: {known})", path.display())]
    UnknownTool {
        path: PathBuf,
        case: String,
        tool: String,
        known: String,
    },
    #[error("the mini tool registered no tools (did activate() fail? the warning above says why)")]
    NoTools,
    #[error("the build failed: `npm run build` exited with {status}")]
    BuildFailed { status: String, output: String },
    #[error("`npm install` failed (exited with {status}), so the package cannot build")]
    InstallFailed { status: String, output: String },
    #[error("cannot run npm: {0}")]
    NoNpm(std::io::Error),
    #[error("cannot {what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
}

impl From<AuthoringError> for CommandError {
    fn from(e: AuthoringError) -> CommandError {
        let message = e.to_string();
        match e {
            AuthoringError::NotEmpty(dir) => CommandError::usage(message)
                .with_code("not_empty")
                .with_hint(format!(
                    "pick a new directory, e.g. finch new {}-2",
                    dir.display()
                )),
            AuthoringError::BadId { .. } => CommandError::usage(message)
                .with_code("invalid_id")
                .with_hint("use lower-case letters, digits, '.', '_', '-' (scope@name for a scoped package), e.g. --id acme@weather"),
            AuthoringError::NoManifest(_) => CommandError::failed(message)
                .with_code("no_manifest")
                .with_hint("run it in a mini tool's directory, or make one with `finch new <dir>`"),
            AuthoringError::InvalidPackage { dir, .. } => CommandError::failed(message)
                .with_code("invalid_minitool")
                .with_hint(format!("run `finch doctor {}` for the full report", dir.display())),
            AuthoringError::NoTestFile(_) => CommandError::failed(message)
                .with_code("no_test_file")
                .with_hint("write finch.test.json: {\"cases\": [{\"tool\": \"<name>\", \"args\": {}, \"expect\": {\"contains\": \"…\"}}]} (docs/authoring.md)"),
            AuthoringError::MalformedTestFile { .. } => CommandError::usage(message)
                .with_code("malformed_test_file")
                .with_hint("the test file's format is in docs/authoring.md"),
            AuthoringError::UnknownTool { .. } => CommandError::usage(message)
                .with_code("unknown_tool")
                .with_hint("name a tool by the name its ctx.tools.register() gives it"),
            AuthoringError::NoTools => CommandError::failed(message)
                .with_code("no_tools")
                .with_hint("check the mini tool with `finch doctor`, or call it with `finch tool call --minitool . <tool>`"),
            AuthoringError::BuildFailed { .. } => CommandError::failed(message)
                .with_code("build_failed")
                .with_hint("the build's output is above; fix it and run the command again"),
            AuthoringError::InstallFailed { .. } => CommandError::failed(message)
                .with_code("install_failed")
                .with_hint("npm's output is above; check that the npm registry is reachable, or run `npm install` in the package yourself"),
            AuthoringError::NoNpm(_) => CommandError::failed(message)
                .with_code("no_npm")
                .with_hint("install node and npm (node 20 or later), or build the package yourself first"),
            AuthoringError::Io { .. } => CommandError::failed(message),
        }
    }
}

/// The mini tool package at `dir`: its manifest and runtime id. The entry need not exist yet
/// (a build makes it); `check_fatal` says whether the package can run.
pub fn load_package(
    dir: &std::path::Path,
) -> Result<(crate::minitool::manifest::Manifest, String), AuthoringError> {
    let invalid = |message: String| AuthoringError::InvalidPackage {
        dir: dir.to_path_buf(),
        message,
    };
    let manifest = crate::minitool::manifest::load(dir)
        .map_err(|e| invalid(e.to_string()))?
        .ok_or_else(|| AuthoringError::NoManifest(dir.to_path_buf()))?;
    let id = manifest.runtime_id().map_err(|e| invalid(e.to_string()))?;
    Ok((manifest, id))
}

/// The first fatal problem `finch doctor` finds in the package (manifest and entry module).
pub fn check_fatal(dir: &std::path::Path) -> Result<(), AuthoringError> {
    let report = crate::minitool::doctor::check_package(dir).map_err(|e| {
        AuthoringError::InvalidPackage {
            dir: dir.to_path_buf(),
            message: e.to_string(),
        }
    })?;
    match report.fatal().next() {
        Some(issue) => Err(AuthoringError::InvalidPackage {
            dir: dir.to_path_buf(),
            message: issue.text(),
        }),
        None => Ok(()),
    }
}
