//! The edges of the wall (issue 40, SPEC §8.5a "The whole process tree is the unit"): one
//! test per reproduction of the issue, through the real binary, judged by effects — a
//! sentinel file the later ordinary action (`git commit`, `git status`, `npm test`,
//! `cargo build`, `bash -l`) would touch, a listener's connections, a victim process's
//! limits and liveness, a secret in what a command printed — never by finch's reply. Each
//! had its effect before the change; none has one after. They fail, never skip, on a kernel
//! with Landlock and user namespaces (this machine and CI).

use std::io::Read;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::fixtures::MiniTool;
use crate::common::{Run, TestContext};

const WALL: &str = include_str!("fixtures/minitools/wall.mjs");

struct Scene {
    ctx: TestContext,
}

impl Scene {
    fn new() -> Scene {
        let ctx = TestContext::new();
        std::fs::write(
            ctx.home.join(".gitconfig"),
            "[user]\n\tname = Person\n\temail = person@example.com\n[init]\n\tdefaultBranch = main\n",
        )
        .unwrap();
        Scene { ctx }
    }

    fn work(&self) -> &Path {
        &self.ctx.work
    }

    /// Where an attack leaves its mark (outside the workspace).
    fn sentinel(&self, name: &str) -> PathBuf {
        self.ctx.base().join(format!("pwned-{name}"))
    }

    /// A program run as the person runs it, unconfined, in `dir`: the later ordinary action.
    fn person(&self, dir: &Path, program: &str, args: &[&str]) -> Output {
        Command::new(program)
            .args(args)
            .current_dir(dir)
            .env_clear()
            .env("HOME", &self.ctx.home)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .output()
            .unwrap_or_else(|e| panic!("{program}: {e}"))
    }

    /// The person's `git` in `dir`, which must succeed.
    #[track_caller]
    fn git(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.person(dir, "git", args);
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A repository with one commit in `dir`.
    fn repo(&self, dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        self.git(dir, &["init", "-q"]);
        std::fs::write(dir.join("f.txt"), "hello\n").unwrap();
        self.git(dir, &["add", "f.txt"]);
        self.git(dir, &["commit", "-qm", "first"]);
    }

    /// An approved Bash call (`--approve Bash`): the call record.
    fn approved(&self, command: &str) -> Value {
        self.approved_in(self.work(), command)
    }

    fn approved_in(&self, dir: &Path, command: &str) -> Value {
        let out = Run(self
            .ctx
            .cmd()
            .current_dir(dir)
            .args([
                "tool",
                "call",
                "Bash",
                &json!({ "command": command }).to_string(),
                "--approve",
                "Bash",
                "--json",
            ])
            .output()
            .unwrap());
        ran(&out)
    }

    /// A fast-lane Bash call (`--mode acceptCalls`), which must run without a card.
    fn fast(&self, dir: &Path, command: &str) -> Value {
        let out = Run(self
            .ctx
            .cmd()
            .current_dir(dir)
            .args([
                "tool",
                "call",
                "Bash",
                &json!({ "command": command }).to_string(),
                "--mode",
                "acceptCalls",
                "--json",
            ])
            .output()
            .unwrap());
        let record = ran(&out);
        assert_eq!(record["decidedBy"], "fastLane", "{command}: {record}");
        record
    }

    /// The wall fixture as a mini tool with `permissions`, loaded with `--minitool`.
    fn minitool(&self, id: &str, permissions: Value) -> PathBuf {
        let dir = self.ctx.base().join("src").join(id);
        MiniTool::new(id, "1.0.0")
            .entry_source(WALL)
            .finch_field("contributes", json!({"tools": true}))
            .finch_field("permissions", permissions)
            .write_to(&dir);
        dir
    }

    /// One call of the fixture's `try` tool: the call record.
    fn try_in_minitool(&self, dir: &Path, id: &str, what: &str, args: Value) -> Value {
        let tool = format!("{id}_try");
        let out = Run(self
            .ctx
            .cmd()
            .args([
                "tool",
                "call",
                &tool,
                &json!({"what": what, "args": args}).to_string(),
                "--json",
                "--approve",
                &tool,
                "--minitool",
                &dir.display().to_string(),
            ])
            .output()
            .unwrap());
        out.json()
    }
}

/// Whether `path` appears within `limit` (for marks left by something still running).
fn appears(path: &Path, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if path.exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    path.exists()
}

fn output_of(record: &Value) -> String {
    format!(
        "{}{}",
        record["structuredContent"]["stdout"].as_str().unwrap_or(""),
        record["structuredContent"]["stderr"].as_str().unwrap_or("")
    )
}

/// What a hostile approved call plants in `.git/hooks/pre-commit` after moving `.git` away.
fn move_git_and_plant_a_hook(sentinel: &Path) -> String {
    format!(
        "mv .git .git-orig && cp -a .git-orig .git && printf '#!/bin/sh\\ntouch {}\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
        sentinel.display()
    )
}

// 1. Protected paths move away.

/// The record of a Bash call that ran: done (exit 0), or refused by the wall with nobody to
/// allow more (exit 4, `failure: blocked`); judged by its effects, not by this.
#[track_caller]
fn ran(out: &Run) -> Value {
    let record: Value = out.json();
    if out.code() != 0 {
        out.failure(4);
        assert_eq!(record["failure"], "blocked", "{out}");
    }
    record
}
#[test]
fn moving_git_away_and_planting_a_hook_runs_nothing_at_the_next_commit() {
    let s = Scene::new();
    s.repo(s.work());
    let pwn = s.sentinel("hook");
    s.approved(&move_git_and_plant_a_hook(&pwn));
    s.git(s.work(), &["commit", "-q", "--allow-empty", "-m", "next"]);
    assert!(!pwn.exists(), "the planted hook ran at the person's commit");
    assert!(!s.work().join(".git-orig").exists());
}

#[test]
fn moving_git_away_and_setting_fsmonitor_runs_nothing_at_the_next_status() {
    let s = Scene::new();
    s.repo(s.work());
    let pwn = s.sentinel("fsmonitor");
    s.approved(&format!(
        "mv .git .g && cp -a .g .git && git config core.fsmonitor 'touch {}'",
        pwn.display()
    ));
    s.git(s.work(), &["status", "--porcelain"]);
    assert!(
        !pwn.exists(),
        "the planted fsmonitor ran at the person's git status"
    );
}

#[test]
fn replacing_git_with_a_gitfile_runs_nothing_at_the_next_status() {
    let s = Scene::new();
    s.repo(s.work());
    let pwn = s.sentinel("gitfile");
    s.approved(&format!(
        "git init -q evil && git -C evil config core.fsmonitor 'touch {}' && mv .git .real && printf 'gitdir: evil/.git\\n' > .git",
        pwn.display()
    ));
    s.person(s.work(), "git", &["status", "--porcelain"]);
    assert!(!pwn.exists(), "the gitfile's repository ran its fsmonitor");
    assert!(
        s.work().join(".git").is_dir(),
        "the repository is still there"
    );
}

#[test]
fn moving_a_directory_keeps_its_envrc() {
    let s = Scene::new();
    std::fs::create_dir_all(s.work().join("sub")).unwrap();
    std::fs::write(s.work().join("sub/.envrc"), "export A=1\n").unwrap();
    let pwn = s.sentinel("envrc");
    s.approved(&format!(
        "mv sub sub2 && mkdir sub && echo 'touch {}' > sub/.envrc",
        pwn.display()
    ));
    // What direnv does on `cd sub`.
    s.person(&s.work().join("sub"), "bash", &["-c", "source .envrc"]);
    assert!(!pwn.exists(), "the planted .envrc ran");
    assert_eq!(
        std::fs::read_to_string(s.work().join("sub/.envrc")).unwrap(),
        "export A=1\n"
    );
}

#[test]
fn moving_vscode_keeps_its_tasks() {
    let s = Scene::new();
    std::fs::create_dir_all(s.work().join(".vscode")).unwrap();
    let tasks = "{\"version\": \"2.0.0\", \"tasks\": []}\n";
    std::fs::write(s.work().join(".vscode/tasks.json"), tasks).unwrap();
    s.approved(
        "mv .vscode .vs2 && mkdir .vscode && echo '{\"tasks\": [{\"label\": \"x\", \"command\": \"evil\", \"runOptions\": {\"runOn\": \"folderOpen\"}}]}' > .vscode/tasks.json",
    );
    assert_eq!(
        std::fs::read_to_string(s.work().join(".vscode/tasks.json")).unwrap(),
        tasks,
        "the editor would run the planted task"
    );
}

#[test]
fn a_readwrite_mini_tool_cannot_move_git_away() {
    let s = Scene::new();
    s.repo(s.work());
    let dir = s.minitool("walls", json!({"filesystem": "readwrite"}));
    let pwn = s.sentinel("minitool-hook");
    s.try_in_minitool(
        &dir,
        "walls",
        "moveGit",
        json!({"workspace": s.work(), "sentinel": pwn}),
    );
    s.git(s.work(), &["commit", "-q", "--allow-empty", "-m", "next"]);
    assert!(
        !pwn.exists(),
        "the mini tool's hook ran at the person's commit"
    );
}

#[test]
fn through_serve_mcp_git_cannot_be_moved_away() {
    let s = Scene::new();
    s.repo(s.work());
    let pwn = s.sentinel("mcp-hook");
    let plan = json!({
        "elicitation": null,
        "steps": [crate::serve_mcp::call("Bash", json!({"command": move_git_and_plant_a_hook(&pwn)}))],
    });
    crate::serve_mcp::serve(&s.ctx, plan, &["--approve", "Bash"]);
    s.git(s.work(), &["commit", "-q", "--allow-empty", "-m", "next"]);
    assert!(!pwn.exists(), "the hook planted through --serve mcp ran");
}

#[test]
fn a_new_commondir_runs_nothing_at_the_next_status() {
    let s = Scene::new();
    s.repo(s.work());
    let pwn = s.sentinel("commondir");
    s.approved(&format!(
        "mkdir evil && cp -r .git/objects .git/refs .git/config evil/ && git config -f evil/config core.fsmonitor 'touch {}' && echo ../evil > .git/commondir",
        pwn.display()
    ));
    s.person(s.work(), "git", &["status", "--porcelain"]);
    assert!(!pwn.exists(), "git read the planted common directory");
    assert!(!s.work().join(".git/commondir").exists());
}

#[test]
fn new_alternates_are_removed() {
    let s = Scene::new();
    s.repo(s.work());
    let record = s.approved("echo /elsewhere/objects > .git/objects/info/alternates");
    assert!(
        !s.work().join(".git/objects/info/alternates").exists(),
        "{record}"
    );
    assert!(
        record["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("blocked: the call created "),
        "{record}"
    );
}

// 2. Protected paths that do not exist yet, or lie deeper than the walk went.

#[test]
fn a_new_npmrc_runs_nothing_at_the_next_npm_test() {
    let s = Scene::new();
    std::fs::write(
        s.work().join("package.json"),
        "{\"name\": \"p\", \"version\": \"1.0.0\", \"scripts\": {\"test\": \"node -e 0\"}}\n",
    )
    .unwrap();
    let pwn = s.sentinel("npmrc");
    s.approved(&format!(
        "printf 'node-options=--require ./evil.cjs\\n' > .npmrc && printf 'require(\"fs\").writeFileSync(\"{}\", \"\")\\n' > evil.cjs",
        pwn.display()
    ));
    let out = s.person(s.work(), "npm", &["test", "--silent"]);
    assert!(out.status.success(), "{out:?}");
    assert!(!pwn.exists(), "the planted .npmrc ran at npm test");
}

#[test]
fn a_nested_repository_seven_levels_down_keeps_its_hooks() {
    let s = Scene::new();
    let deep = s.work().join("a/b/c/d/e/f/g");
    s.repo(&deep);
    let pwn = s.sentinel("deep-hook");
    s.approved(&format!(
        "printf '#!/bin/sh\\ntouch {}\\n' > a/b/c/d/e/f/g/.git/hooks/pre-commit; chmod +x a/b/c/d/e/f/g/.git/hooks/pre-commit",
        pwn.display()
    ));
    s.git(&deep, &["commit", "-q", "--allow-empty", "-m", "next"]);
    assert!(!pwn.exists(), "the deep repository's planted hook ran");
}

#[test]
fn a_repository_under_node_modules_keeps_its_hooks() {
    let s = Scene::new();
    let pkg = s.work().join("node_modules/pkg");
    s.repo(&pkg);
    let pwn = s.sentinel("node-modules-hook");
    let record = s.approved(&format!(
        "printf '#!/bin/sh\\ntouch {}\\n' > node_modules/pkg/.git/hooks/pre-commit; chmod +x node_modules/pkg/.git/hooks/pre-commit",
        pwn.display()
    ));
    s.git(&pkg, &["commit", "-q", "--allow-empty", "-m", "next"]);
    assert!(
        !pwn.exists(),
        "the planted hook under node_modules ran: {record}"
    );
}

#[test]
fn a_hard_link_to_git_config_made_at_init_cannot_write_it_later() {
    let s = Scene::new();
    let pwn = s.sentinel("linked-config");
    s.approved("git init -q sub && ln sub/.git/config sub/innocent.txt");
    s.approved(&format!(
        "printf '[core]\\n\\tfsmonitor = touch {}\\n' >> sub/innocent.txt",
        pwn.display()
    ));
    s.person(&s.work().join("sub"), "git", &["status", "--porcelain"]);
    assert!(
        !pwn.exists(),
        "the config written through its hard link ran"
    );
}

#[test]
fn a_new_cargo_config_runs_no_wrapper_at_the_next_build() {
    let s = Scene::new();
    std::fs::create_dir_all(s.work().join("src")).unwrap();
    std::fs::write(
        s.work().join("Cargo.toml"),
        "[package]\nname = \"hello\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::write(s.work().join("src/main.rs"), "fn main() {}\n").unwrap();
    let pwn = s.sentinel("rustc-wrapper");
    s.approved(&format!(
        "mkdir -p .cargo && printf '[build]\\nrustc-wrapper = \"{}/wrap.sh\"\\n' > .cargo/config.toml && printf '#!/bin/sh\\ntouch {}\\nexec \"$@\"\\n' > wrap.sh && chmod +x wrap.sh",
        s.work().display(),
        pwn.display()
    ));
    let out = Command::new("cargo")
        .args(["build", "--offline", "--quiet"])
        .current_dir(s.work())
        .env("CARGO_TARGET_DIR", s.work().join("target"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        !pwn.exists(),
        "the planted rustc-wrapper ran at cargo build"
    );
}

#[test]
fn started_in_the_home_no_login_autostart_or_path_file_is_left_behind() {
    let s = Scene::new();
    let home = s.ctx.home.clone();
    let login = s.sentinel("bash-profile");
    let git = s.sentinel("local-bin-git");
    let record = s.approved_in(
        &home,
        &format!(
            "printf 'touch {}\\n' >> .bash_profile; mkdir -p .config/autostart .config/systemd/user .local/bin; echo '[Desktop Entry]' > .config/autostart/evil.desktop; echo '[Service]' > .config/systemd/user/evil.service; printf '#!/bin/sh\\ntouch {}\\n' > .local/bin/git; chmod +x .local/bin/git",
            login.display(),
            git.display()
        ),
    );
    s.person(&home, "bash", &["-l", "-c", "true"]);
    let path = format!(
        "{}:{}",
        home.join(".local/bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let _ = Command::new("git")
        .arg("--version")
        .env("PATH", path)
        .env("HOME", &home)
        .output();
    assert!(
        !login.exists(),
        "bash -l ran the planted .bash_profile: {record}"
    );
    assert!(!git.exists(), "the planted ~/.local/bin/git ran");
    for left in [
        ".config/autostart/evil.desktop",
        ".config/systemd/user/evil.service",
    ] {
        assert!(!home.join(left).exists(), "{left} was left: {record}");
    }
}

#[test]
fn a_hard_link_to_an_existing_git_config_cannot_write_it() {
    let s = Scene::new();
    s.repo(s.work());
    let pwn = s.sentinel("linked-existing-config");
    s.approved(&format!(
        "ln .git/config innocent.txt; printf '[core]\\n\\tfsmonitor = touch {}\\n' >> innocent.txt",
        pwn.display()
    ));
    s.person(s.work(), "git", &["status", "--porcelain"]);
    assert!(
        !pwn.exists(),
        "the config written through a new hard link ran"
    );
}

#[test]
fn a_new_config_worktree_runs_nothing_at_the_next_status() {
    let s = Scene::new();
    s.repo(s.work());
    // The person's own setting, which makes git read `.git/config.worktree`.
    s.git(s.work(), &["config", "extensions.worktreeConfig", "true"]);
    let pwn = s.sentinel("config-worktree");
    s.approved(&format!(
        "printf '[core]\\n\\tfsmonitor = touch {}\\n' > .git/config.worktree",
        pwn.display()
    ));
    s.person(s.work(), "git", &["status", "--porcelain"]);
    assert!(!pwn.exists(), "git obeyed the planted config.worktree");
    assert!(!s.work().join(".git/config.worktree").exists());
}

#[test]
fn a_linked_worktree_keeps_its_gitdir_file_and_its_commondir() {
    let s = Scene::new();
    s.repo(s.work());
    s.git(s.work(), &["worktree", "add", "-q", "wt"]);
    let pwn = s.sentinel("worktree");
    s.approved(&format!(
        "git init -q evil && git -C evil config core.fsmonitor 'touch {}'; \
         printf 'gitdir: ../evil/.git\\n' > wt/.git; \
         echo ../../../evil/.git > .git/worktrees/wt/commondir; \
         mv wt wt2 && mkdir wt && printf 'gitdir: ../evil/.git\\n' > wt/.git",
        pwn.display()
    ));
    s.person(&s.work().join("wt"), "git", &["status", "--porcelain"]);
    assert!(
        !pwn.exists(),
        "the worktree's git read the planted repository"
    );
    let common = s.git(&s.work().join("wt"), &["rev-parse", "--git-common-dir"]);
    assert!(!common.contains("evil"), "the worktree now uses {common}");
}

#[test]
fn a_submodules_configuration_under_git_modules_holds() {
    let s = Scene::new();
    let lib = s.ctx.base().join("lib");
    s.repo(&lib);
    s.repo(s.work());
    s.git(
        s.work(),
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            &lib.display().to_string(),
            "sub",
        ],
    );
    s.git(s.work(), &["commit", "-qm", "submodule"]);
    let pwn = s.sentinel("submodule");
    s.approved(&format!(
        "git config -f .git/modules/sub/config core.fsmonitor 'touch {0}'; \
         printf '#!/bin/sh\\ntouch {0}\\n' > .git/modules/sub/hooks/pre-commit; chmod +x .git/modules/sub/hooks/pre-commit",
        pwn.display()
    ));
    let sub = s.work().join("sub");
    s.person(&sub, "git", &["status", "--porcelain"]);
    s.git(&sub, &["commit", "-q", "--allow-empty", "-m", "next"]);
    assert!(
        !pwn.exists(),
        "the submodule ran what was planted in .git/modules"
    );
}

#[test]
fn new_husky_hooks_and_sitecustomize_run_nothing_and_new_yarnrc_and_gitmodules_are_removed() {
    let s = Scene::new();
    s.repo(s.work());
    // What husky sets up: git runs the hooks under `.husky`.
    s.git(s.work(), &["config", "core.hooksPath", ".husky"]);
    let venv = s.person(
        s.work(),
        "python3",
        &["-m", "venv", "--without-pip", ".venv"],
    );
    assert!(venv.status.success(), "{venv:?}");
    let husky = s.sentinel("husky");
    let site = s.sentinel("sitecustomize");
    let record = s.approved(&format!(
        "mkdir -p .husky && printf '#!/bin/sh\\ntouch {}\\n' > .husky/pre-commit && chmod +x .husky/pre-commit; \
         for d in .venv/lib/python3*/site-packages; do printf 'open(\"{}\", \"w\")\\n' > $d/sitecustomize.py; done; \
         printf 'yarnPath: ./evil.cjs\\n' > .yarnrc.yml; \
         printf '[submodule \"x\"]\\n\\tpath = x\\n\\turl = ../evil\\n' > .gitmodules",
        husky.display(),
        site.display()
    ));
    s.git(s.work(), &["commit", "-q", "--allow-empty", "-m", "next"]);
    let python = s.person(s.work(), ".venv/bin/python", &["-c", "0"]);
    assert!(python.status.success(), "{python:?}");
    assert!(!husky.exists(), "the planted husky hook ran: {record}");
    assert!(!site.exists(), "the planted sitecustomize.py ran: {record}");
    for name in [".yarnrc.yml", ".gitmodules"] {
        assert!(!s.work().join(name).exists(), "{name} was left: {record}");
    }
}

// 3. The host is addressable.

#[test]
fn prlimit_on_finch_or_a_victim_changes_nothing_and_the_session_keeps_working() {
    let s = Scene::new();
    let mut victim = Command::new("sleep").arg("60").spawn().unwrap();
    let limits = || std::fs::read_to_string(format!("/proc/{}/limits", victim.id())).unwrap();
    let before = limits();
    let requests = [
        json!({"id": 1, "tool": "Bash", "arguments": {"command": "prlimit --pid $PPID --as=20000000:20000000"}}),
        json!({"id": 2, "tool": "Bash", "arguments": {"command": format!("prlimit --pid {} --cpu=0:0 --as=20000000:20000000", victim.id())}}),
        json!({"id": 3, "tool": "Bash", "arguments": {"command": "echo still working; head -c 64000000 /dev/zero | wc -c"}}),
    ];
    let (lines, run) = s
        .ctx
        .jsonl(&["--mode", "ask", "--approve", "Bash"], &requests);
    assert_eq!(lines.len(), 3, "finch did not answer every call:\n{run}");
    let last = &lines[2];
    assert_eq!(last["isError"], false, "{last}");
    assert_eq!(
        last["structuredContent"]["stdout"], "still working\n64000000\n",
        "{last}"
    );
    assert_eq!(limits(), before, "the victim's limits changed");
    assert!(victim.try_wait().unwrap().is_none(), "the victim ended");
    victim.kill().unwrap();
    let _ = victim.wait();
}

#[test]
fn a_shell_mini_tool_cannot_limit_the_host() {
    let s = Scene::new();
    let dir = s.minitool("limits", json!({"shell": true}));
    let minitool = dir.display().to_string();
    let mut run = s.ctx.live_run(&[
        "--mode",
        "ask",
        "--approve",
        "limits_try",
        "--minitool",
        &minitool,
    ]);
    let host = run.pid();
    let before = std::fs::read_to_string(format!("/proc/{host}/limits")).unwrap();
    run.call(
        "limits_try",
        json!({"what": "prlimit", "args": {"pid": host}}),
    );
    std::thread::sleep(Duration::from_millis(300));
    let after = std::fs::read_to_string(format!("/proc/{host}/limits"))
        .unwrap_or_else(|e| panic!("finch is gone: {e}"));
    assert_eq!(after, before, "the mini tool changed finch's limits");
    let answer = run.call("ToolSearch", json!({"query": "limits"}));
    assert_eq!(answer["isError"], false, "{answer}");
}

#[test]
fn an_approved_call_can_neither_kill_nor_read_a_victim() {
    let s = Scene::new();
    let secret = "--token=VICTIM-SECRET-4c2";
    let mut victim = Command::new("sh")
        .args(["-c", "sleep 60", secret])
        .spawn()
        .unwrap();
    let pid = victim.id();
    let record = s.approved(&format!(
        "kill -9 {pid}; kill -STOP {pid}; cat /proc/{pid}/cmdline; cat /proc/{pid}/environ; ls /proc | grep -c '^[0-9]'"
    ));
    std::thread::sleep(Duration::from_millis(200));
    let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let alive = victim.try_wait().unwrap().is_none();
    victim.kill().unwrap();
    let _ = victim.wait();
    assert!(alive, "the approved call killed the victim: {record}");
    assert!(
        !state.contains(") T "),
        "the approved call stopped the victim: {state}"
    );
    assert!(
        !output_of(&record).contains("VICTIM-SECRET"),
        "the approved call read the victim's command line: {record}"
    );
}

// 4. Processes outlive the call.

#[test]
fn nothing_an_approved_call_started_outlives_it() {
    let s = Scene::new();
    let marks: Vec<PathBuf> = (1..=6)
        .map(|i| s.work().join(format!("outlived-{i}")))
        .collect();
    let m: Vec<String> = marks.iter().map(|p| p.display().to_string()).collect();
    let command = format!(
        "(setsid sh -c 'sleep 1.5; touch {0}' >/dev/null 2>&1 &); \
         nohup sh -c 'sleep 1.5; touch {1}' >/dev/null 2>&1 & \
         sh -c 'sleep 1.5; touch {2}' >/dev/null 2>&1 & disown; \
         setsid -f sh -c 'sleep 1.5; touch {3}' >/dev/null 2>&1; \
         sh -c '(sh -c \"sleep 1.5; touch {4}\" >/dev/null 2>&1 &) &'; \
         ( ( sleep 1.5; touch {5} ) >/dev/null 2>&1 & ); echo started",
        m[0], m[1], m[2], m[3], m[4], m[5]
    );
    let record = s.approved(&command);
    assert_eq!(
        record["structuredContent"]["stdout"], "started\n",
        "{record}"
    );
    std::thread::sleep(Duration::from_secs(3));
    for mark in &marks {
        assert!(
            !mark.exists(),
            "{} was touched after the call ended",
            mark.display()
        );
    }
}

#[test]
fn a_detached_child_of_a_mini_tool_ends_with_it() {
    let s = Scene::new();
    let dir = s.minitool("detach", json!({"shell": true, "filesystem": "readwrite"}));
    // In the workspace, which the mini tool may write: only outliving it stops the mark.
    let pwn = s.work().join("detached-mark");
    let record = s.try_in_minitool(
        &dir,
        "detach",
        "detach",
        json!({"sentinel": pwn, "seconds": 2}),
    );
    assert_eq!(record["isError"], false, "{record}");
    assert!(
        !appears(&pwn, Duration::from_secs(4)),
        "the mini tool's detached child outlived it"
    );
}

#[test]
fn nothing_outlives_a_call_that_timed_out() {
    let s = Scene::new();
    let mark = s.work().join("outlived-timeout");
    let out = Run(s
        .ctx
        .cmd()
        .args([
            "tool",
            "call",
            "Bash",
            &json!({
                "command": format!("setsid sh -c 'sleep 1.5; touch {}' >/dev/null 2>&1 & sleep 30", mark.display()),
                "timeout": 500,
            })
            .to_string(),
            "--approve",
            "Bash",
            "--json",
        ])
        .output()
        .unwrap());
    let record = out.json();
    assert!(
        !appears(&mark, Duration::from_secs(3)),
        "a process of the timed-out call outlived it: {record}"
    );
}

#[test]
fn nothing_outlives_a_cancelled_call() {
    let s = Scene::new();
    let mark = s.work().join("outlived-cancel");
    let plan = json!({
        "elicitation": null,
        "timeout": 45,
        "steps": [
            {"op": "spawn", "id": "bash", "name": "Bash", "arguments": {"command": format!(
                "setsid sh -c 'sleep 1.5; touch {}' >/dev/null 2>&1 & touch started; sleep 30",
                mark.display()
            )}},
            {"op": "wait_file", "path": "started"},
            {"op": "cancel", "id": "bash"},
            {"op": "sleep", "seconds": 3},
        ],
    });
    crate::serve_mcp::serve(&s.ctx, plan, &["--approve", "Bash"]);
    assert!(s.work().join("started").exists(), "the call never started");
    assert!(
        !mark.exists(),
        "a process of the cancelled call outlived it"
    );
}

// 5. Descriptors and sockets.

#[test]
fn a_descriptor_finch_inherited_does_not_reach_a_command() {
    use std::os::fd::AsRawFd;
    use std::os::unix::net::UnixStream;
    use std::os::unix::process::CommandExt;
    let s = Scene::new();
    s.ctx.write_config("[sandbox]\nnetwork = false\n");
    let (ours, theirs) = UnixStream::pair().unwrap();
    let fd = theirs.as_raw_fd();
    let mut cmd = s.ctx.std_cmd();
    cmd.args([
        "tool",
        "call",
        "Bash",
        &json!({"command": "echo PWN >&3"}).to_string(),
        "--approve",
        "Bash",
        "--json",
    ]);
    // SAFETY: dup2 is async-signal-safe; `fd` stays open in this process until spawn returns.
    unsafe {
        cmd.pre_exec(move || {
            if libc::dup2(fd, 3) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = Run(cmd.output().unwrap());
    drop(theirs);
    out.success();
    let mut got = String::new();
    ours.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let _ = (&ours).read_to_string(&mut got);
    assert!(
        !got.contains("PWN"),
        "the command wrote to finch's inherited socket: {out}"
    );
}

#[test]
fn a_unix_socket_outside_is_unreachable_from_approved_calls_and_network_mini_tools() {
    let s = Scene::new();
    let outside = s.ctx.base().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let path = outside.join("docker.sock");
    let listener = UnixListener::bind(&path).unwrap();
    listener.set_nonblocking(true).unwrap();
    let record = s.approved(&format!(
        "python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"{}\"); s.send(b\"PWN\")'",
        path.display()
    ));
    let dir = s.minitool("net", json!({"network": true}));
    let tried = s.try_in_minitool(&dir, "net", "unix", json!({"socket": path}));
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        listener.accept().is_err(),
        "the socket was reached: {record}\n{tried}"
    );
}

#[test]
fn a_unix_socket_named_in_the_settings_is_reachable_from_approved_calls() {
    let s = Scene::new();
    let outside = s.ctx.base().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let path = outside.join("allowed.sock");
    let listener = UnixListener::bind(&path).unwrap();
    s.ctx.write_config(&format!(
        "[sandbox]\nunix_sockets = [{}]\n",
        json!(path.display().to_string())
    ));
    let record = s.approved(&format!(
        "python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"{}\"); s.send(b\"HELLO\")'",
        path.display()
    ));
    listener.set_nonblocking(true).unwrap();
    let (mut conn, _) = listener
        .accept()
        .unwrap_or_else(|e| panic!("the allowed socket was not reached ({e}): {record}"));
    conn.set_nonblocking(false).unwrap();
    let mut got = String::new();
    conn.read_to_string(&mut got).unwrap();
    assert_eq!(got, "HELLO", "{record}");
}

#[test]
fn an_abstract_unix_socket_outside_is_unreachable_even_with_unix_sockets_allowed() {
    use std::os::linux::net::SocketAddrExt;
    let s = Scene::new();
    let name = format!("finch-escape-{}", std::process::id());
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let listener = UnixListener::bind_addr(&addr).unwrap();
    listener.set_nonblocking(true).unwrap();
    let allowed = s.ctx.base().join("allowed.sock");
    let command = format!(
        "python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"\\0{name}\"); s.send(b\"PWN\")'"
    );
    let mut records = vec![s.approved(&command)];
    s.ctx.write_config(&format!(
        "[sandbox]\nunix_sockets = [{}]\n",
        json!(allowed.display().to_string())
    ));
    records.push(s.approved(&command));
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        listener.accept().is_err(),
        "the abstract socket was reached: {records:?}"
    );
}

// 6. Whole-machine views.

#[test]
fn the_fast_lane_and_a_mini_tool_see_no_other_process() {
    let s = Scene::new();
    let secret = "--token=PROCESS-SECRET-7b1";
    let mut victim = Command::new("sh")
        .args(["-c", "sleep 60", secret])
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let record = s.fast(s.work(), "ps aux");
    let ps = output_of(&record);
    assert!(ps.contains("ps aux"), "ps saw nothing at all: {record}");
    let dir = s.minitool("views", json!({}));
    let seen = s.try_in_minitool(&dir, "views", "cmdlines", json!({}));
    victim.kill().unwrap();
    let _ = victim.wait();
    assert!(
        !ps.contains("PROCESS-SECRET"),
        "ps aux showed the victim: {ps}"
    );
    assert!(
        !seen.to_string().contains("PROCESS-SECRET"),
        "the mini tool read the victim's command line: {seen}"
    );
}

// 7. Secrets in readable places.

#[test]
fn credential_stores_beside_readable_configuration_are_unreadable() {
    let s = Scene::new();
    let home = &s.ctx.home;
    for (rel, text) in [
        (
            ".config/git/credentials",
            "https://me:GITCRED-secret-1@github.com\n",
        ),
        (".cache/huggingface/token", "hf_HFTOKEN-secret-2\n"),
    ] {
        let p = home.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    std::fs::write(
        home.join(".gitconfig"),
        "[user]\n\tname = Person\n[url \"https://ghp_URLTOKENsecret3abcdefghijklmnopqrstu@github.com/\"]\n\tinsteadOf = https://github.com/\n",
    )
    .unwrap();
    let mut printed = String::new();
    for command in [
        "grep -h secret \"$HOME/.config/git/credentials\"",
        "cat \"$HOME/.cache/huggingface/token\"",
        "cat \"$HOME/.gitconfig\"",
    ] {
        printed.push_str(&output_of(&s.fast(s.work(), command)));
    }
    printed.push_str(&output_of(&s.approved(
        "cat \"$HOME/.config/git/credentials\" \"$HOME/.cache/huggingface/token\" \"$HOME/.gitconfig\"; git config --global --get-regexp url",
    )));
    for secret in ["GITCRED-secret-1", "HFTOKEN-secret-2", "URLTOKENsecret3"] {
        assert!(
            !printed.contains(secret),
            "{secret} was printed:\n{printed}"
        );
    }
    // git still reads the rest of its configuration.
    let name = s.approved("git config --global user.name");
    assert_eq!(name["structuredContent"]["stdout"], "Person\n", "{name}");
}

#[test]
fn with_the_workspace_at_home_its_secrets_are_unreadable_in_every_profile() {
    let s = Scene::new();
    let home = s.ctx.home.clone();
    let files = [
        (".ssh/id_rsa", "SSH-secret-a"),
        (".aws/credentials", "AWS-secret-b"),
        (".netrc", "NETRC-secret-c"),
        (".npmrc", "NPMRC-secret-d"),
        (".docker/config.json", "DOCKER-secret-e"),
        (".cargo/credentials.toml", "CARGO-secret-f"),
        (".pypirc", "PYPI-secret-g"),
        (".bash_history", "HISTORY-secret-h"),
    ];
    for (rel, secret) in files {
        let p = home.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, format!("{secret}\n")).unwrap();
    }
    let list = files.map(|(rel, _)| rel).join(" ");
    let command = format!("cat {list}");
    let mut printed = output_of(&s.fast(&home, &command));
    printed.push_str(&output_of(&s.approved_in(&home, &command)));
    for (_, secret) in files {
        assert!(
            !printed.contains(secret),
            "{secret} was printed:\n{printed}"
        );
    }
    for (rel, secret) in files {
        assert_eq!(
            std::fs::read_to_string(home.join(rel)).unwrap(),
            format!("{secret}\n"),
            "{rel} changed"
        );
    }
}

// 8. The approved environment, and fan-out.

#[test]
fn an_approved_npm_test_sees_no_secret_variable_and_the_card_says_which_were_dropped() {
    let s = Scene::new();
    std::fs::write(
        s.work().join("package.json"),
        "{\"name\": \"p\", \"version\": \"1.0.0\", \"scripts\": {\"test\": \"node -e \\\"console.log(JSON.stringify(process.env))\\\"\"}}\n",
    )
    .unwrap();
    let secrets = [
        ("GITHUB_TOKEN", "ghp_ENV-secret-1"),
        ("OPENAI_API_KEY", "sk-ENV-secret-2"),
        ("DB_PASSWORD", "ENV-secret-3"),
    ];
    let out = Run(s
        .ctx
        .cmd()
        .envs(secrets)
        .args([
            "tool",
            "call",
            "Bash",
            &json!({"command": "npm test --silent"}).to_string(),
            "--approve",
            "Bash",
            "--json",
        ])
        .output()
        .unwrap());
    out.success();
    let printed = output_of(&out.json());
    assert!(
        printed.contains("\"PATH\""),
        "npm test printed no environment: {out}"
    );
    for (_, value) in secrets {
        assert!(
            !printed.contains(value),
            "{value} reached npm test:\n{printed}"
        );
    }
    let check = Run(s
        .ctx
        .cmd()
        .envs(secrets)
        .args([
            "policy",
            "check",
            "Bash",
            &json!({"command": "npm test"}).to_string(),
        ])
        .output()
        .unwrap());
    check.stderr_has(
        "without the variables DB_PASSWORD, GITHUB_TOKEN, OPENAI_API_KEY ([sandbox] approved_env)",
    );
}

/// `printenv` of a token and of a plain variable in an approved call under `approved_env`,
/// and the card's line from `policy check`.
fn approved_env(mode: &str) -> (String, String) {
    let s = Scene::new();
    s.ctx
        .write_config(&format!("[sandbox]\napproved_env = \"{mode}\"\n"));
    let vars = [
        ("GITHUB_TOKEN", "ghp_MODE-secret"),
        ("PLAIN_SETTING", "plain-value"),
    ];
    let out = Run(s
        .ctx
        .cmd()
        .envs(vars)
        .args([
            "tool",
            "call",
            "Bash",
            &json!({"command": "printenv GITHUB_TOKEN PLAIN_SETTING PATH; true"}).to_string(),
            "--approve",
            "Bash",
            "--json",
        ])
        .output()
        .unwrap());
    out.success();
    let check = Run(s
        .ctx
        .cmd()
        .envs(vars)
        .args([
            "policy",
            "check",
            "Bash",
            &json!({"command": "npm test"}).to_string(),
        ])
        .output()
        .unwrap());
    (output_of(&out.json()), check.stderr())
}

#[test]
fn approved_env_inherit_passes_every_variable_and_minimal_only_the_fast_lanes() {
    let (printed, card) = approved_env("inherit");
    assert!(printed.contains("ghp_MODE-secret"), "{printed}");
    assert!(printed.contains("plain-value"), "{printed}");
    assert!(!card.contains("without the variables"), "{card}");

    let (printed, card) = approved_env("minimal");
    assert!(!printed.contains("ghp_MODE-secret"), "{printed}");
    assert!(!printed.contains("plain-value"), "{printed}");
    assert!(printed.contains("/usr/bin"), "PATH is kept: {printed}");
    assert!(
        card.contains("with the minimal environment of the fast lane"),
        "{card}"
    );

    let (printed, _) = approved_env("strip-secrets");
    assert!(!printed.contains("ghp_MODE-secret"), "{printed}");
    assert!(printed.contains("plain-value"), "{printed}");
}

#[test]
fn an_unknown_approved_env_is_refused_and_runs_nothing() {
    let s = Scene::new();
    s.ctx
        .write_config("[sandbox]\napproved_env = \"everything\"\n");
    let mark = s.work().join("ran");
    let out = Run(s
        .ctx
        .cmd()
        .args([
            "tool",
            "call",
            "Bash",
            &json!({"command": format!("touch {}", mark.display())}).to_string(),
            "--approve",
            "Bash",
        ])
        .output()
        .unwrap());
    assert_ne!(out.code(), 0, "{out}");
    out.stderr_has("approved_env");
    assert!(!mark.exists(), "the command ran: {out}");
}

#[test]
fn a_fast_lane_fan_out_is_held_to_the_process_limit() {
    let s = Scene::new();
    let peak = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = {
        let (peak, done) = (peak.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                let n = std::fs::read_dir("/proc")
                    .into_iter()
                    .flatten()
                    .flatten()
                    .filter(|e| {
                        std::fs::read(e.path().join("cmdline"))
                            .is_ok_and(|c| c.starts_with(b"sleep\x004.9"))
                    })
                    .count();
                peak.fetch_max(n, std::sync::atomic::Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(100));
            }
        })
    };
    let record = s.fast(s.work(), "seq 1 1500 | xargs -P 0 -I{} sleep 4.9{}");
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    watcher.join().unwrap();
    let peak = peak.load(std::sync::atomic::Ordering::SeqCst);
    assert!(peak > 100, "the fan-out never started ({peak}): {record}");
    assert!(
        peak <= 1024,
        "{peak} processes of one fast-lane call ran at once"
    );
}
