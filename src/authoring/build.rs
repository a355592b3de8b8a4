//! Building a package the way its author does: `npm run build` when `package.json` has a
//! `build` script. `finch test` builds only when the entry is missing or older than a source
//! (`is_stale`); `finch dev` and `finch pack` always build.
//!
//! Before a build, what the package declares and `node_modules` lacks is installed, as cargo
//! and uv fetch what a build needs: `npm install` (`missing_dependencies`, `install`), said on
//! stderr by the command. A fresh `finch new X && cd X && finch test` then builds instead of
//! failing with `esbuild: not found`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::SystemTime;

use serde_json::Value;

use super::AuthoringError;

/// Directories whose files never count as sources of the bundle.
const NOT_SOURCES: [&str; 4] = ["node_modules", ".git", "dist", "tests"];

/// Whether the package's `package.json` has a `build` script.
pub fn has_build_script(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .is_some_and(|p| p["scripts"]["build"].is_string())
}

/// Whether `entry` is missing or older than `package.json` or a file under `src/`.
pub fn is_stale(dir: &Path, entry: &Path) -> bool {
    let Some(built) = modified(entry) else {
        return true;
    };
    let newer = |p: &Path| modified(p).is_some_and(|m| m > built);
    if newer(&dir.join("package.json")) {
        return true;
    }
    let mut stack = vec![dir.join("src")];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let skip = e
                .file_name()
                .to_str()
                .is_some_and(|n| NOT_SOURCES.contains(&n));
            match e.file_type() {
                Ok(t) if t.is_dir() && !skip => stack.push(path),
                Ok(t) if t.is_file() && newer(&path) => return true,
                _ => {}
            }
        }
    }
    false
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The dependencies `package.json` declares (`dependencies`, `devDependencies`) that are not
/// installed in the package's own `node_modules`, in the order declared.
pub fn missing_dependencies(dir: &Path) -> Vec<String> {
    let Some(package) = std::fs::read_to_string(dir.join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
    else {
        return Vec::new();
    };
    let modules = dir.join("node_modules");
    ["dependencies", "devDependencies"]
        .iter()
        .filter_map(|field| package[field].as_object())
        .flat_map(|deps| deps.keys())
        // A name with a path in it would look outside node_modules: not a name npm installs.
        .filter(|name| !name.contains("..") && !name.starts_with('/'))
        .filter(|name| !modules.join(name).join("package.json").is_file())
        .cloned()
        .collect()
}

/// Runs `npm install` in `dir`; its output on success, and in the error on failure.
pub fn install(dir: &Path) -> Result<String, AuthoringError> {
    npm(
        dir,
        &["install", "--no-audit", "--no-fund"],
        |status, output| AuthoringError::InstallFailed { status, output },
    )
}

/// Runs `npm <args>` in `dir` without input: its output (stdout, then stderr) on success, and
/// `failed(how it ended, output)` otherwise.
fn npm(
    dir: &Path,
    args: &[&str],
    failed: impl FnOnce(String, String) -> AuthoringError,
) -> Result<String, AuthoringError> {
    let out = Command::new("npm")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(AuthoringError::NoNpm)?;
    let mut output = String::from_utf8_lossy(&out.stdout).into_owned();
    output.push_str(&String::from_utf8_lossy(&out.stderr));
    if out.status.success() {
        Ok(output)
    } else {
        Err(failed(exit_status(out.status), output))
    }
}

/// `code 3`, or `a signal`: how a child ended, for a message.
fn exit_status(status: std::process::ExitStatus) -> String {
    match status.code() {
        Some(code) => format!("code {code}"),
        None => "a signal".to_string(),
    }
}

/// Runs `npm run build` in `dir`; its output (stdout and stderr) on success, and in the error
/// on failure.
pub fn run(dir: &Path) -> Result<String, AuthoringError> {
    npm(dir, &["run", "build", "--silent"], |status, output| {
        AuthoringError::BuildFailed { status, output }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_when_missing_or_older_than_a_source() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::create_dir_all(root.join("dist")).unwrap();
        std::fs::write(root.join("package.json"), "{}").unwrap();
        std::fs::write(root.join("src/deep/a.ts"), "x").unwrap();
        let entry = root.join("dist/index.js");
        assert!(is_stale(root, &entry));
        std::fs::write(&entry, "built").unwrap();
        let past = SystemTime::now() - std::time::Duration::from_secs(60);
        for p in ["package.json", "src/deep/a.ts"] {
            std::fs::File::options()
                .write(true)
                .open(root.join(p))
                .unwrap()
                .set_modified(past)
                .unwrap();
        }
        assert!(!is_stale(root, &entry));
        std::fs::write(root.join("src/deep/a.ts"), "changed").unwrap();
        assert!(is_stale(root, &entry));
    }

    #[test]
    fn missing_dependencies_are_the_declared_ones_node_modules_lacks() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert!(missing_dependencies(root).is_empty());
        std::fs::write(
            root.join("package.json"),
            r#"{"dependencies":{"a":"1"},"devDependencies":{"esbuild":"0.28.2","@s/b":"1","../x":"1"}}"#,
        )
        .unwrap();
        assert_eq!(missing_dependencies(root), ["a", "esbuild", "@s/b"]);
        for name in ["a", "@s/b"] {
            let p = root.join("node_modules").join(name);
            std::fs::create_dir_all(&p).unwrap();
            std::fs::write(p.join("package.json"), "{}").unwrap();
        }
        // A directory without its package.json is an install cut short: still missing.
        std::fs::create_dir_all(root.join("node_modules/esbuild")).unwrap();
        assert_eq!(missing_dependencies(root), ["esbuild"]);
    }

    #[test]
    fn knows_a_build_script() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!has_build_script(dir.path()));
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"scripts":{"build":"x"}}"#,
        )
        .unwrap();
        assert!(has_build_script(dir.path()));
    }
}
