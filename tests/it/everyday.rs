//! Everyday approved work behaves inside the wall as it does run directly (issue 40): `git
//! commit`, `checkout`, `merge` and `stash` in a repository whose `.git` the wall holds,
//! `npm install` from the loopback registry, `cargo build` offline. Each runs as an approved
//! Bash call (workspace-write, its protected paths bound read-only and watched) and, for the
//! comparison, directly in a twin directory; the outcomes are compared, and the call reports
//! nothing the guard refused.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::common::fixtures::MiniTool;
use crate::common::registry::TestRegistry;
use crate::common::{Run, TestContext};

/// A workspace and its twin outside the wall.
struct Twins {
    ctx: TestContext,
    direct: PathBuf,
}

impl Twins {
    fn new() -> Twins {
        let ctx = TestContext::new();
        std::fs::write(
            ctx.home.join(".gitconfig"),
            "[user]\n\tname = Person\n\temail = person@example.com\n[init]\n\tdefaultBranch = main\n",
        )
        .unwrap();
        let direct = ctx.base().join("direct");
        std::fs::create_dir_all(&direct).unwrap();
        Twins { ctx, direct }
    }

    /// Runs `script` in both: as an approved call in the workspace, and with `bash -c` in the
    /// twin. Returns (the call's stdout and exit code, the direct run's).
    #[track_caller]
    fn both(&self, script: &str) -> ((String, i64), (String, i64)) {
        let out = Run(self
            .ctx
            .cmd()
            .args([
                "tool",
                "call",
                "Bash",
                &json!({"command": script, "timeout": 300000}).to_string(),
                "--approve",
                "Bash",
                "--json",
            ])
            .output()
            .unwrap());
        out.success();
        let record: Value = out.json();
        assert_eq!(record["sandbox"], "workspace-write", "{record}");
        assert!(
            record["structuredContent"].get("protected").is_none(),
            "the guard refused something: {record}"
        );
        assert_eq!(
            record["structuredContent"]["stderr"], "",
            "it complained inside the wall: {record}"
        );
        let inside = (
            record["structuredContent"]["stdout"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            record["structuredContent"]["exitCode"]
                .as_i64()
                .unwrap_or(-1),
        );
        let direct = Command::new("bash")
            .args(["-c", script])
            .current_dir(&self.direct)
            .env_clear()
            .env("HOME", &self.ctx.home)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .output()
            .unwrap();
        let outside = (
            String::from_utf8_lossy(&direct.stdout).into_owned(),
            i64::from(direct.status.code().unwrap_or(-1)),
        );
        (inside, outside)
    }

    fn each(&self, f: impl Fn(&Path)) {
        f(&self.ctx.work);
        f(&self.direct);
    }
}

#[test]
fn approved_git_commit_checkout_merge_and_stash_work_as_they_do_directly() {
    let t = Twins::new();
    t.each(|dir| {
        let git = |args: &[&str]| {
            let out = Command::new("git")
                .args(args)
                .current_dir(dir)
                .env("HOME", &t.ctx.home)
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
        };
        git(&["init", "-q"]);
        std::fs::write(dir.join("f.txt"), "one\n").unwrap();
        std::fs::write(dir.join(".envrc"), "export A=1\n").unwrap();
        git(&["add", "."]);
        git(&["commit", "-qm", "first"]);
    });
    let script = "set -e
        echo two >> f.txt && git commit -qam second
        git checkout -qb feature && echo three > g.txt && git add g.txt && git commit -qm third
        git checkout -q main && git merge -q --no-edit feature
        echo dirty >> f.txt && git stash -q && git stash list | wc -l && git stash pop -q
        git log --format=%s && git status --porcelain && cat f.txt";
    let (inside, direct) = t.both(script);
    assert_eq!(inside, direct);
    assert_eq!(inside.1, 0, "{}", inside.0);
    assert!(inside.0.contains("third\nsecond\nfirst\n"), "{}", inside.0);
}

#[test]
fn approved_npm_install_from_the_loopback_registry_works_as_it_does_directly() {
    let t = Twins::new();
    let registry = TestRegistry::start();
    registry.publish_tool(
        &MiniTool::new("left-pad-local", "1.3.0").file("index.js", "module.exports = 1;\n"),
    );
    t.each(|dir| {
        std::fs::write(
            dir.join("package.json"),
            "{\"name\": \"app\", \"version\": \"1.0.0\", \"private\": true}\n",
        )
        .unwrap();
        std::fs::write(
            dir.join(".npmrc"),
            format!("registry={}\nfund=false\naudit=false\n", registry.url()),
        )
        .unwrap();
    });
    let script = "npm install --no-progress --silent left-pad-local@1.3.0 && node -p \"require('left-pad-local/package.json').version\" && ls node_modules";
    let (inside, direct) = t.both(script);
    assert_eq!(inside, direct);
    assert_eq!(inside, ("1.3.0\nleft-pad-local\n".to_string(), 0));
}

#[test]
fn approved_cargo_build_offline_works_as_it_does_directly() {
    let t = Twins::new();
    t.each(|dir| {
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"hello\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("src/main.rs"),
            "fn main() { println!(\"built\"); }\n",
        )
        .unwrap();
    });
    // The toolchain is found where this test's own cargo found it.
    let rustup = std::env::var("RUSTUP_HOME")
        .unwrap_or_else(|_| format!("{}/.rustup", std::env::var("HOME").unwrap_or_default()));
    let cargo_home = std::env::var("CARGO_HOME")
        .unwrap_or_else(|_| format!("{}/.cargo", std::env::var("HOME").unwrap_or_default()));
    // It lies outside this test's home, so the wall is told to read it (`[sandbox] read`),
    // as a person with a toolchain elsewhere would.
    t.ctx.write_config(&format!(
        "[sandbox]\nread = [{:?}, {:?}]\n",
        rustup, cargo_home
    ));
    let script = format!(
        "export RUSTUP_HOME={rustup} CARGO_HOME={cargo_home}; cargo build --offline --quiet && ./target/debug/hello"
    );
    let (inside, direct) = t.both(&script);
    assert_eq!(inside, direct);
    assert_eq!(inside, ("built\n".to_string(), 0));
}
