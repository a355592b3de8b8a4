//! The sealed test context: every test gets its own HOME, runtime home, agent home and working
//! directory under one temp dir, no colour, a fixed terminal width, and an environment with
//! nothing inherited but `PATH`.
#![allow(dead_code)]

pub mod fixtures;
pub mod model;
pub mod procs;
pub mod registry;

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;

pub struct TestContext {
    pub root: tempfile::TempDir,
    pub home: PathBuf,
    pub runtime: PathBuf,
    pub agent: PathBuf,
    pub work: PathBuf,
}

impl TestContext {
    pub fn new() -> TestContext {
        let root = tempfile::Builder::new()
            .prefix("finch-test-")
            .tempdir()
            .expect("temp dir");
        let base = root.path().canonicalize().expect("canonical temp dir");
        let ctx = TestContext {
            home: base.join("home"),
            runtime: base.join("home/.finch"),
            agent: base.join("home/finchnest"),
            work: base.join("work"),
            root,
        };
        for dir in [&ctx.home, &ctx.work] {
            std::fs::create_dir_all(dir).expect("create test dirs");
        }
        ctx
    }

    pub fn base(&self) -> PathBuf {
        self.home.parent().expect("home has a parent").to_path_buf()
    }

    /// `finch` with the sealed environment, run in the work directory, in a session of its own:
    /// without a controlling terminal, as in CI, even when the tests run from one (a permission
    /// card must never open on the developer's screen).
    pub fn std_cmd(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_finch"));
        // SAFETY: setsid is async-signal-safe and touches no memory of this process.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
                libc::setsid();
                Ok(())
            });
        }
        cmd.env_clear()
            .env("HOME", &self.home)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("FINCH_RUNTIME_HOME", &self.runtime)
            .env("FINCH_AGENT_HOME", &self.agent)
            .env("NO_COLOR", "1")
            .env("COLUMNS", "100")
            .current_dir(&self.work);
        cmd
    }

    /// `std_cmd` for assert_cmd.
    pub fn cmd(&self) -> Command {
        Command::from_std(self.std_cmd())
    }

    /// `finch run --jsonl extra…` kept open, one request at a time.
    pub fn live_run(&self, extra: &[&str]) -> LiveRun {
        LiveRun::start(self, extra)
    }

    /// Runs `finch args…` and returns the output.
    pub fn run(&self, args: &[&str]) -> Run {
        Run(self.cmd().args(args).output().expect("finch runs"))
    }

    /// `finch tool call <tool> <json> --json` (exit code and the call record on stdout).
    pub fn call(&self, tool: &str, args: Value) -> Run {
        self.run(&["tool", "call", tool, &args.to_string(), "--json"])
    }

    /// `finch run --jsonl` fed `requests` (one JSON value per line); returns one response per
    /// request, in order, and the run's output.
    pub fn jsonl(&self, extra: &[&str], requests: &[Value]) -> (Vec<Value>, Run) {
        let mut input = String::new();
        for r in requests {
            input.push_str(&r.to_string());
            input.push('\n');
        }
        let mut args = vec!["run", "--jsonl"];
        args.extend_from_slice(extra);
        let out = Run(self
            .cmd()
            .args(&args)
            .write_stdin(input)
            .output()
            .expect("finch runs"));
        let responses = out
            .stdout()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l:?}: {e}")))
            .collect();
        (responses, out)
    }

    /// Every transcript under `<runtime>/pi/sessions`, oldest first by file name.
    pub fn transcripts(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        let dir = self.runtime.join("pi/sessions");
        for slug in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            for f in std::fs::read_dir(slug.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                if f.path().extension().is_some_and(|e| e == "jsonl") {
                    files.push(f.path());
                }
            }
        }
        files.sort_by_key(|p| p.file_name().map(|n| n.to_os_string()));
        files
    }

    /// The `finch.toolCall` entries' data of one transcript.
    pub fn tool_calls(&self, transcript: &Path) -> Vec<Value> {
        std::fs::read_to_string(transcript)
            .expect("read transcript")
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["customType"] == "finch.toolCall")
            .map(|v| v["data"].clone())
            .collect()
    }

    pub fn personal_tier(&self) -> PathBuf {
        self.agent.join(".finch/extensions")
    }

    pub fn global_tier(&self) -> PathBuf {
        self.runtime.join("extensions")
    }

    /// Writes `<runtime>/config/finch.toml`.
    pub fn write_config(&self, toml: &str) {
        let dir = self.runtime.join("config");
        std::fs::create_dir_all(&dir).expect("config dir");
        std::fs::write(dir.join("finch.toml"), toml).expect("write finch.toml");
    }

    /// Replaces the test's temp paths with `[BASE]` for snapshots.
    pub fn filter(&self, text: &str) -> String {
        text.replace(&self.base().display().to_string(), "[BASE]")
    }

    pub fn read_json(&self, path: &Path) -> Value {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {}: {e}", path.display()))
    }

    /// What a finished or killed install left in the personal tier: staging and aside
    /// directories (`.finch-*`) that should never outlive the command that made them.
    pub fn install_leftovers(&self) -> Vec<String> {
        self.tree(&self.personal_tier())
            .into_iter()
            .filter(|p| p.starts_with(".finch-"))
            .collect()
    }

    /// Every path under `dir`, relative, sorted: to check that nothing changed.
    pub fn tree(&self, dir: &Path) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            let Ok(read) = std::fs::read_dir(&d) else {
                continue;
            };
            for item in read.flatten() {
                let p = item.path();
                out.push(p.strip_prefix(dir).unwrap_or(&p).display().to_string());
                if item.file_type().is_ok_and(|t| t.is_dir()) {
                    stack.push(p);
                }
            }
        }
        out.sort();
        out
    }
}

/// The two lines `finch add` prints for one installed mini tool (the app parses them).
pub fn added_lines(display_name: &str, id: &str, path: &Path) -> String {
    format!(
        "✓ Added \"{display_name}\" ({id}) → {}\n  Installed only. Open Finch → Toolcase → Mini Tools to review permissions and enable.\n",
        path.display()
    )
}

/// The output of one run, with helpers that print everything when an assertion fails.
pub struct Run(pub Output);

impl Run {
    pub fn code(&self) -> i32 {
        self.0.status.code().unwrap_or(-1)
    }

    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.0.stdout).into_owned()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.0.stderr).into_owned()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.0.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{self}"))
    }

    #[track_caller]
    pub fn success(&self) -> &Self {
        assert_eq!(self.code(), 0, "expected success:\n{self}");
        self
    }

    #[track_caller]
    pub fn failure(&self, code: i32) -> &Self {
        assert_eq!(self.code(), code, "expected exit {code}:\n{self}");
        self
    }

    #[track_caller]
    pub fn stderr_has(&self, needle: &str) -> &Self {
        assert!(
            self.stderr().contains(needle),
            "stderr lacks {needle:?}:\n{self}"
        );
        self
    }

    #[track_caller]
    pub fn stdout_has(&self, needle: &str) -> &Self {
        assert!(
            self.stdout().contains(needle),
            "stdout lacks {needle:?}:\n{self}"
        );
        self
    }
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {}\n--- stdout\n{}--- stderr\n{}",
            self.code(),
            self.stdout(),
            self.stderr()
        )
    }
}

/// `finch run --jsonl` kept open: one request at a time, answers read as they come.
pub struct LiveRun {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    stdout: std::io::BufReader<std::process::ChildStdout>,
    next: u64,
}

impl LiveRun {
    fn start(ctx: &TestContext, extra: &[&str]) -> LiveRun {
        use std::process::Stdio;
        let mut cmd = ctx.std_cmd();
        cmd.args(["run", "--jsonl"])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("start finch run --jsonl");
        let stdin = child.stdin.take();
        let stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        LiveRun {
            child,
            stdin,
            stdout,
            next: 1,
        }
    }

    /// The process id of the run.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends one request without reading its answer.
    pub fn send(&mut self, tool: &str, args: Value) {
        use std::io::Write;
        let request = serde_json::json!({"id": self.next, "tool": tool, "arguments": args});
        self.next += 1;
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{request}").expect("write a request");
        stdin.flush().expect("flush");
    }

    /// Sends one request and reads its answer.
    #[track_caller]
    pub fn call(&mut self, tool: &str, args: Value) -> Value {
        use std::io::BufRead;
        self.send(tool, args);
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read an answer");
        assert!(!line.is_empty(), "finch ended without answering {tool}");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("bad answer {line:?}: {e}"))
    }

    /// Waits for the process to end (after it was killed).
    pub fn wait(&mut self) {
        let _ = self.child.wait();
    }

    /// Closes stdin and returns the exit code and stderr.
    pub fn finish(mut self) -> (i32, String) {
        drop(self.stdin.take());
        let out = self.child.wait_with_output().expect("finch ends");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}
