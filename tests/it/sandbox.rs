//! The kernel wall (issue 27, SPEC §8.5a) through the real binary: escape attempts that must
//! have no effect, on a kernel with Landlock ABI ≥ 6 (this machine and CI). They fail, never
//! skip, where the wall is missing: `the_kernel_here_enforces_both_profiles` says so first.
//!
//! Two kinds of attempt: the escape primitives themselves under `finch sandbox run` (the same
//! profile the fast lane gets), and the attack classes a hostile model used against the text
//! classifier, through `finch tool call`, `finch run --jsonl` and `finch run --serve mcp` in
//! `acceptCalls`. Every effect is checked where it would land: files on disk, a TCP and a UDP
//! listener the test started, a Unix socket, a process outside, the output the model reads.

use std::io::Read;
use std::net::{TcpListener, UdpSocket};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Run, TestContext};

const SECRET: &str = "TOP-SECRET-42";
const API_KEY: &str = "s3cret-api-key-value";

/// A workspace with a file and a subdirectory, and a directory beside it holding a secret.
struct Scene {
    ctx: TestContext,
    outside: PathBuf,
}

impl Scene {
    fn new() -> Scene {
        let ctx = TestContext::new();
        let outside = ctx.base().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret.txt"), format!("{SECRET}\n")).unwrap();
        std::fs::write(ctx.work.join("f.txt"), "hello\nworld\n").unwrap();
        std::fs::create_dir_all(ctx.work.join("sub")).unwrap();
        Scene { ctx, outside }
    }

    fn ws(&self) -> &Path {
        &self.ctx.work
    }

    /// `finch sandbox run [extra…] -- bash -c <script>` in the workspace.
    fn sandboxed(&self, extra: &[&str], script: &str) -> Run {
        let mut args = vec!["sandbox", "run"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--", "bash", "-c", script]);
        self.ctx.run(&args)
    }

    /// `finch tool call Bash <command> --mode acceptCalls --json` with a secret in finch's
    /// environment.
    fn fast_lane(&self, command: &str) -> Run {
        Run(self
            .ctx
            .cmd()
            .env("API_KEY", API_KEY)
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
            .unwrap())
    }
}

/// Accepts on `listener` for a moment: whether anything connected.
fn connected(listener: &TcpListener) -> bool {
    listener.set_nonblocking(true).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    listener.accept().is_ok()
}

/// Whether `socket` received a datagram.
fn received(socket: &UdpSocket) -> bool {
    socket
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let mut buf = [0u8; 64];
    socket.recv(&mut buf).is_ok()
}

#[test]
fn the_kernel_here_enforces_both_profiles() {
    let ctx = TestContext::new();
    let out = ctx.run(&["sandbox", "status", "--json"]);
    out.success();
    let status = out.json();
    assert!(
        status["landlock"]["abi"].as_i64().unwrap_or(0) >= 6,
        "this kernel lacks Landlock ABI 6, which these tests need: {status}"
    );
    assert_eq!(status["landlock"]["status"], "enforced", "{status}");
    assert_eq!(status["seccomp"], true, "{status}");
    assert_eq!(status["pidns"], true, "{status}");
    assert_eq!(status["processLimit"], 1024, "{status}");
    // Root needs no user namespace for the others; everyone else gets one.
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    assert_eq!(status["userns"], !root, "{status}");
    assert_eq!(
        status["profiles"],
        json!({"read-only": "enforced", "workspace-write": "enforced"})
    );
    assert_eq!(
        status["minitools"],
        json!({"setting": "manifest", "status": "enforced", "unconfined": []})
    );
    assert_eq!(status["hosts"], "enforced", "{status}");
    let text = ctx.run(&["sandbox", "status"]);
    text.success();
    assert_eq!(
        text.stdout(),
        "✓ Landlock ABI 7, enforced\n\
         ✓ seccomp  yes\n\
         ✓ trees    each confined tree in a PID and mount namespace of its own, with its own /proc; at most 1024 processes\n\
         ✓ sandbox  read-only enforced; workspace-write enforced\n\
         ✓ hosts    enforced: a tree with a host list gets a network namespace of its own whose only way out is finch's proxy\n\
         ✓ sockets  pathname Unix sockets refused unless [sandbox] unix_sockets names one (Landlock cannot tell them apart before ABI 9, so naming one opens them all)\n\
         ✓ minitool each mini tool confined to what its manifest declares\n"
            .replace("ABI 7", &format!("ABI {}", status["landlock"]["abi"])),
        "{text}"
    );
    // `finch doctor --env` carries the same lines.
    let doctor = ctx.run(&["doctor", "--env"]);
    doctor
        .stdout_has("sandbox")
        .stdout_has("read-only enforced; workspace-write enforced")
        .stdout_has("Landlock");
}

#[test]
fn read_only_writes_nothing_outside_its_tmpdir() {
    let s = Scene::new();
    let outside = s.outside.display().to_string();
    std::os::unix::fs::symlink(&s.outside, s.ws().join("link")).unwrap();
    let before_outside = s.ctx.tree(&s.outside);
    let before_ws = s.ctx.tree(s.ws());
    let attempts = [
        format!("touch {outside}/direct"),
        "touch link/through-a-link".to_string(),
        format!("mv {outside}/secret.txt {outside}/moved"),
        format!("ln {outside}/secret.txt hard"),
        "touch in-the-workspace".to_string(),
        "mv f.txt g.txt".to_string(),
        "echo x >> f.txt".to_string(),
        "mkdir newdir".to_string(),
        "rm f.txt".to_string(),
        format!("cp f.txt {outside}/copied"),
    ];
    for script in &attempts {
        let out = s.sandboxed(&[], script);
        assert_ne!(out.code(), 0, "`{script}` succeeded in read-only:\n{out}");
    }
    assert_eq!(s.ctx.tree(&s.outside), before_outside, "outside changed");
    assert_eq!(s.ctx.tree(s.ws()), before_ws, "the workspace changed");
    assert_eq!(
        std::fs::read_to_string(s.ws().join("f.txt")).unwrap(),
        "hello\nworld\n"
    );
    // The private TMPDIR is writable, and gone afterwards.
    let out = s.sandboxed(
        &[],
        "echo kept > $TMPDIR/x && cat $TMPDIR/x && echo $TMPDIR",
    );
    out.success().stdout_has("kept");
    let tmpdir = out.stdout().lines().last().unwrap().to_string();
    assert!(
        !Path::new(&tmpdir).exists(),
        "the call's TMPDIR {tmpdir} outlived it"
    );
}

#[test]
fn read_only_executes_nothing_it_wrote_and_reads_nothing_outside() {
    let s = Scene::new();
    let outside = s.outside.display().to_string();
    // A script written to TMPDIR cannot be executed, there or after a copy.
    let out = s.sandboxed(
        &[],
        "printf '#!/bin/sh\\necho RAN-IT\\n' > $TMPDIR/x.sh; chmod +x $TMPDIR/x.sh; $TMPDIR/x.sh",
    );
    assert_ne!(out.code(), 0, "{out}");
    assert!(!out.stdout().contains("RAN-IT"), "{out}");
    assert!(out.stderr().contains("Permission denied"), "{out}");
    // Reads outside the workspace and the system's directories are refused.
    for script in [
        format!("cat {outside}/secret.txt"),
        format!("cat < {outside}/secret.txt"),
        format!("grep -r {SECRET} {outside}"),
        "cat ./sub/../../outside/secret.txt".to_string(),
        "cat link-free-path/../../outside/secret.txt 2>/dev/null; cat ~+/../outside/secret.txt"
            .to_string(),
    ] {
        let out = s.sandboxed(&[], &script);
        assert!(
            !out.stdout().contains(SECRET),
            "`{script}` read the secret:\n{out}"
        );
    }
    // Another process's environment (finch's own holds the user's secrets).
    let out = Run(s
        .ctx
        .cmd()
        .env("API_KEY", API_KEY)
        .args([
            "sandbox",
            "run",
            "--",
            "bash",
            "-c",
            "cat /proc/$PPID/environ",
        ])
        .output()
        .unwrap());
    assert_ne!(out.code(), 0, "{out}");
    assert!(!out.stdout().contains(API_KEY), "{out}");
    // The wall is there: no new privileges, a seccomp filter, no capabilities.
    let out = s.sandboxed(
        &[],
        "grep -E '^(NoNewPrivs|Seccomp|CapEff):' /proc/self/status",
    );
    out.success();
    let status = out.stdout();
    assert!(status.contains("NoNewPrivs:\t1"), "{status}");
    assert!(status.contains("Seccomp:\t2"), "{status}");
    assert!(status.contains("CapEff:\t0000000000000000"), "{status}");
}

#[test]
fn read_only_reaches_no_network_no_socket_and_no_process_outside() {
    let s = Scene::new();
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    let tcp_port = tcp.local_addr().unwrap().port();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    let udp_port = udp.local_addr().unwrap().port();
    let sock_path = s.outside.join("agent.sock");
    let unix = UnixListener::bind(&sock_path).unwrap();
    unix.set_nonblocking(true).unwrap();
    let mut victim = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();

    let attempts = [
        format!("exec 3<>/dev/tcp/127.0.0.1/{tcp_port} && echo CONNECTED"),
        format!("head -1 < /dev/tcp/127.0.0.1/{tcp_port}"),
        format!(
            "python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b\"x\", (\"127.0.0.1\", {udp_port})); print(\"SENT\")'"
        ),
        format!(
            "python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"{}\"); print(\"CONNECTED\")'",
            sock_path.display()
        ),
        format!("kill -TERM {}", victim.id()),
        // ptrace(PTRACE_ATTACH) of a process outside.
        format!(
            "python3 -c 'import ctypes,sys; r=ctypes.CDLL(None, use_errno=True).ptrace(16, {}, 0, 0); print(\"ATTACHED\" if r == 0 else \"refused\"); sys.exit(0 if r == 0 else 1)'",
            victim.id()
        ),
    ];
    for script in &attempts {
        let out = s.sandboxed(&[], script);
        assert_ne!(out.code(), 0, "`{script}` succeeded in read-only:\n{out}");
        assert!(
            !out.stdout().contains("CONNECTED")
                && !out.stdout().contains("SENT")
                && !out.stdout().contains("ATTACHED"),
            "{out}"
        );
    }
    assert!(!connected(&tcp), "the TCP listener saw a connection");
    assert!(!received(&udp), "the UDP socket received a datagram");
    assert!(unix.accept().is_err(), "the Unix socket saw a connection");
    assert!(
        victim.try_wait().unwrap().is_none(),
        "the process outside was signalled"
    );
    victim.kill().unwrap();
    let _ = victim.wait();

    // `--network` opens TCP (the listener sees it): the refusal above was the wall's.
    let out = s.sandboxed(
        &["--network"],
        &format!("exec 3<>/dev/tcp/127.0.0.1/{tcp_port} && echo CONNECTED"),
    );
    out.success().stdout_has("CONNECTED");
    assert!(connected(&tcp), "with --network the listener saw nothing");
}

#[test]
fn workspace_write_writes_the_workspace_but_not_its_protected_paths_nor_outside() {
    let s = Scene::new();
    let git = |args: &[&str]| {
        assert!(
            std::process::Command::new("git")
                .args(args)
                .current_dir(s.ws())
                .output()
                .unwrap()
                .status
                .success()
        );
    };
    git(&["init", "-q"]);
    let config_before = std::fs::read_to_string(s.ws().join(".git/config")).unwrap();
    std::fs::write(s.ws().join(".envrc"), "export A=1\n").unwrap();
    let outside = s.outside.display().to_string();
    // An approved call (here by --approve) runs in workspace-write.
    let call = |command: &str| {
        s.ctx.run(&[
            "tool",
            "call",
            "Bash",
            &json!({ "command": command }).to_string(),
            "--approve",
            "Bash",
            "--json",
        ])
    };
    let out = call("echo made > made.txt && mkdir -p d/e && mv made.txt d/e/ && echo ok");
    out.success();
    assert_eq!(out.json()["sandbox"], "workspace-write");
    assert_eq!(out.json()["structuredContent"]["exitCode"], 0, "{out}");
    assert_eq!(
        std::fs::read_to_string(s.ws().join("d/e/made.txt")).unwrap(),
        "made\n"
    );
    for command in [
        "echo '#!/bin/sh' > .git/hooks/pre-commit".to_string(),
        "printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> .git/config".to_string(),
        "echo 'export EVIL=1' >> .envrc".to_string(),
        format!("touch {outside}/from-workspace-write"),
    ] {
        // Refused by the wall, which the record says; nobody is there to allow more.
        let out = call(&command);
        out.failure(4);
        let record = out.json();
        assert_ne!(
            record["structuredContent"]["exitCode"], 0,
            "`{command}` succeeded:\n{out}"
        );
        assert_eq!(record["failure"], "blocked", "`{command}`:\n{out}");
        assert_eq!(record["blocked"]["access"], "write", "`{command}`:\n{out}");
        assert_eq!(
            record["blocked"]["profile"], "workspace-write",
            "`{command}`:\n{out}"
        );
    }
    assert!(!s.ws().join(".git/hooks/pre-commit").exists());
    assert_eq!(
        std::fs::read_to_string(s.ws().join(".git/config")).unwrap(),
        config_before
    );
    assert_eq!(
        std::fs::read_to_string(s.ws().join(".envrc")).unwrap(),
        "export A=1\n"
    );
    assert!(!s.outside.join("from-workspace-write").exists());
    // git itself still works there: an approved commit writes objects and refs.
    let out = call(
        "git -c user.email=a@b -c user.name=a add f.txt && git -c user.email=a@b -c user.name=a commit -qm one && git log --oneline | wc -l",
    );
    out.success();
    assert_eq!(out.json()["structuredContent"]["stdout"], "1\n", "{out}");
}

/// The attack classes of issue 27, each with what it would leave behind.
fn attacks(s: &Scene, tcp_port: u16) -> Vec<String> {
    let ws = s.ws().display().to_string();
    vec![
        // GNU getopt takes `--co` for `--compress-program`: sort runs `sh` on its temp data.
        format!("seq -f 'touch {ws}/pwn-sort;#%0900g' 1 400 | sort --co=sh -S 64K"),
        // sed's `e` command behind a bracket the classifier ends elsewhere.
        format!("sed -n '/[\\]*/e touch {ws}/pwn-sed\n/]/p' f.txt"),
        "cat < ../outside/secret.txt".to_string(),
        format!("head -1 < /dev/tcp/127.0.0.1/{tcp_port}"),
        "cat ~+/../outside/secret.txt".to_string(),
        "cat ./*/../../outside/secret.txt".to_string(),
        format!("grep --regex={SECRET} ../outside/secret.txt"),
        "awk 'BEGIN{print ENVIRON[\"API_KEY\"]}'".to_string(),
        "printenv API_KEY".to_string(),
        "cat /proc/self/environ".to_string(),
        "cat /proc/$PPID/environ".to_string(),
        // A git directory written through the fast lane, whose config runs a command.
        "git --git-dir=evil diff --no-index f.txt sub/g.txt".to_string(),
    ]
}

/// Fast-lane Writes of a hostile git directory for the last attack.
fn evil_git_writes(s: &Scene) -> Vec<(&'static str, Value)> {
    let ws = s.ws().display().to_string();
    let write = |path: &str, content: String| json!({"file_path": format!("{ws}/{path}"), "content": content});
    vec![
        ("Write", write("evil/HEAD", "ref: refs/heads/main\n".into())),
        ("Write", write("evil/objects/.keep", String::new())),
        ("Write", write("evil/refs/.keep", String::new())),
        (
            "Write",
            write(
                "evil/config",
                format!(
                    "[core]\n\trepositoryformatversion = 0\n[diff]\n\texternal = touch {ws}/pwn-git #\n"
                ),
            ),
        ),
        ("Write", write("sub/g.txt", "other\n".into())),
    ]
}

/// What the attacks must not have done.
#[track_caller]
fn assert_no_effect(s: &Scene, tcp: &TcpListener, outputs: &[String]) {
    for marker in ["pwn-sort", "pwn-sed", "pwn-git"] {
        assert!(
            !s.ws().join(marker).exists(),
            "an attack wrote {marker} in the workspace"
        );
    }
    assert!(!connected(tcp), "an attack opened a TCP connection");
    for out in outputs {
        assert!(!out.contains(SECRET), "a secret file was printed:\n{out}");
        assert!(!out.contains(API_KEY), "the environment leaked:\n{out}");
    }
}

#[test]
fn the_attack_classes_have_no_effect_through_tool_call() {
    let s = Scene::new();
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = tcp.local_addr().unwrap().port();
    for (tool, args) in evil_git_writes(&s) {
        s.ctx
            .run(&[
                "tool",
                "call",
                tool,
                &args.to_string(),
                "--mode",
                "acceptCalls",
            ])
            .success();
    }
    let mut outputs = Vec::new();
    let mut fast = 0;
    for command in attacks(&s, port) {
        let out = s.fast_lane(&command);
        let failure = (out.code() == 4).then(|| out.json()["failure"].clone());
        match (out.code(), failure.as_ref().and_then(Value::as_str)) {
            // Refused for want of a person: nothing ran.
            (4, Some("refused")) => {}
            // It ran in the fast lane: done, or refused by the wall with nobody to allow more.
            (0, _) | (4, Some("blocked")) => {
                let record = out.json();
                assert_eq!(record["decidedBy"], "fastLane", "{command}: {out}");
                assert_eq!(record["sandbox"], "read-only", "{command}: {out}");
                fast += 1;
            }
            _ => panic!("`{command}`:\n{out}"),
        }
        outputs.push(out.stdout());
    }
    assert_no_effect(&s, &tcp, &outputs);
    assert!(
        fast >= 6,
        "only {fast} attacks reached the fast lane: the wall was barely tested"
    );
}

#[test]
fn the_attack_classes_have_no_effect_through_run_jsonl() {
    let s = Scene::new();
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = tcp.local_addr().unwrap().port();
    let mut requests: Vec<Value> = evil_git_writes(&s)
        .into_iter()
        .enumerate()
        .map(|(i, (tool, args))| json!({"id": format!("w{i}"), "tool": tool, "arguments": args}))
        .collect();
    let attacks = attacks(&s, port);
    requests.extend(attacks.iter().enumerate().map(|(i, command)| {
        json!({"id": format!("a{i}"), "tool": "Bash", "arguments": {"command": command}})
    }));
    let mut input = String::new();
    for r in &requests {
        input.push_str(&r.to_string());
        input.push('\n');
    }
    let out = Run(s
        .ctx
        .cmd()
        .env("API_KEY", API_KEY)
        .args(["run", "--jsonl", "--mode", "acceptCalls"])
        .write_stdin(input)
        .output()
        .unwrap());
    let responses: Vec<Value> = out
        .stdout()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert_eq!(responses.len(), requests.len(), "{out}");
    let bash: Vec<&Value> = responses
        .iter()
        .filter(|r| r["id"].as_str().is_some_and(|id| id.starts_with('a')))
        .collect();
    for r in &bash {
        let ran = r["decision"] == "allow";
        if ran {
            assert_eq!(r["sandbox"], "read-only", "{r}");
        }
    }
    assert!(
        bash.iter().filter(|r| r["decision"] == "allow").count() >= 6,
        "{out}"
    );
    assert_no_effect(&s, &tcp, &[out.stdout()]);
}

#[test]
fn the_attack_classes_have_no_effect_through_serve_mcp() {
    let s = Scene::new();
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = tcp.local_addr().unwrap().port();
    let mut steps: Vec<Value> = evil_git_writes(&s)
        .into_iter()
        .map(|(tool, args)| crate::serve_mcp::call(tool, args))
        .collect();
    let writes = steps.len();
    let attacks = attacks(&s, port);
    steps.extend(
        attacks
            .iter()
            .map(|c| crate::serve_mcp::call("Bash", json!({ "command": c }))),
    );
    // The client passes finch its own environment: the secret is in finch's.
    let plan = json!({"elicitation": null, "steps": steps});
    let report = crate::serve_mcp::serve_with_env(
        &s.ctx,
        plan,
        &["--mode", "acceptCalls"],
        &[("API_KEY", API_KEY)],
    );
    let mut outputs = Vec::new();
    let mut fast = 0;
    for i in 0..attacks.len() {
        let step = writes + i;
        outputs.push(report.text(step));
        if report.decided_by(step) == "fastLane" {
            assert_eq!(
                report.result(step)["_meta"]["finch/sandbox"],
                "read-only",
                "{}",
                report.result(step)
            );
            fast += 1;
        }
    }
    assert!(fast >= 6, "only {fast} attacks reached the fast lane");
    assert_no_effect(&s, &tcp, &outputs);
}

#[test]
fn a_fast_lane_command_gets_a_minimal_environment_and_is_told_what_the_wall_holds() {
    let s = Scene::new();
    let out = s.fast_lane("env");
    out.success();
    let record = out.json();
    let env = record["structuredContent"]["stdout"].as_str().unwrap();
    let names: Vec<&str> = env
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k))
        .collect();
    for name in &names {
        assert!(
            ["PATH", "HOME", "TMPDIR", "PWD", "SHLVL", "_", "OLDPWD"].contains(name)
                || name.starts_with("GIT_CONFIG")
                || name.starts_with("GIT_PAGER")
                || name.starts_with("LC_")
                || name.starts_with("LANG"),
            "{name} reached a fast-lane command:\n{env}"
        );
    }
    // `[sandbox] env` lets a named variable in.
    s.ctx.write_config("[sandbox]\nenv = [\"API_KEY\"]\n");
    let out = s.fast_lane("printenv API_KEY");
    out.success();
    assert_eq!(
        out.json()["structuredContent"]["stdout"],
        format!("{API_KEY}\n")
    );

    // A command the wall stops says so, and which flag would let it (nobody to ask here).
    // (`$PWD` hides the path from the classifier: the fast lane runs it.)
    let out = s.fast_lane("cat $PWD/../outside/secret.txt");
    out.failure(4);
    let record = out.json();
    assert_eq!(record["failure"], "blocked", "{out}");
    assert_eq!(record["blocked"]["access"], "read", "{out}");
    assert_eq!(record["blocked"]["profile"], "read-only", "{out}");
    let outside = std::fs::canonicalize(&s.outside).unwrap();
    assert_eq!(
        record["blocked"]["path"],
        outside.join("secret.txt").display().to_string(),
        "{out}"
    );
    let note = record["content"][1]["text"].as_str().unwrap();
    assert!(note.contains("read-only sandbox refused to read"), "{note}");
    let flag = format!("--allow-read {}", outside.display());
    assert!(note.contains(&flag), "{note}");
    assert!(out.stderr().contains(&flag), "{out}");
    // Run again with that flag, it reads the file, in the read-only sandbox still.
    let out = s.ctx.run(&[
        "tool",
        "call",
        "Bash",
        &json!({"command": "cat $PWD/../outside/secret.txt"}).to_string(),
        "--mode",
        "acceptCalls",
        "--allow-read",
        &outside.display().to_string(),
        "--json",
    ]);
    out.success();
    let record = out.json();
    assert_eq!(
        record["structuredContent"]["stdout"],
        format!("{SECRET}\n"),
        "{out}"
    );
    assert_eq!(record["sandbox"], "read-only", "{out}");
    assert!(record.get("blocked").is_none(), "{out}");
    // Escalating takes a card (refused here: nobody to ask), and approved runs with write access.
    let escalate = json!({"command": "sed -n p f.txt", "escalate": true}).to_string();
    let out = s.ctx.run(&[
        "tool",
        "call",
        "Bash",
        &escalate,
        "--mode",
        "acceptCalls",
        "--json",
    ]);
    out.failure(4);
    assert!(
        out.stdout()
            .contains("asked for a person to run it with write access"),
        "{out}"
    );
    let check = s.ctx.run(&[
        "policy",
        "check",
        "Bash",
        &escalate,
        "--mode",
        "acceptCalls",
        "--json",
    ]);
    assert_eq!(check.json()["decidedBy"], "escalated", "{check}");
    assert_eq!(check.json()["sandbox"], "workspace-write", "{check}");
    // Approved, it runs in workspace-write.
    let out = s.ctx.run(&[
        "tool",
        "call",
        "Bash",
        &escalate,
        "--mode",
        "acceptCalls",
        "--approve",
        "Bash",
        "--json",
    ]);
    out.success();
    assert_eq!(out.json()["sandbox"], "workspace-write", "{out}");
}

#[test]
fn everyday_commands_give_the_same_answer_inside_the_wall() {
    let s = Scene::new();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(s.ws())
            .env("HOME", &s.ctx.home)
            .output()
            .unwrap()
    };
    git(&["init", "-q"]);
    git(&["-c", "user.email=a@b", "-c", "user.name=a", "add", "f.txt"]);
    git(&[
        "-c",
        "user.email=a@b",
        "-c",
        "user.name=a",
        "commit",
        "-qm",
        "first",
    ]);
    for command in [
        "ls",
        "cat f.txt | sort | uniq -c",
        "grep -rn hello .",
        "wc -l f.txt",
        "git status --porcelain",
        "git log --format=%s",
        "git diff HEAD --stat",
        "head -1 f.txt",
        "find . -name '*.txt' -not -path './.git/*'",
        "python3 --version",
        "node --version",
        "uname -s",
    ] {
        let inside = s.fast_lane(command);
        inside.success();
        let record = inside.json();
        assert_eq!(record["decidedBy"], "fastLane", "{command}: {inside}");
        let outside = std::process::Command::new("bash")
            .args(["-c", command])
            .current_dir(s.ws())
            .env_clear()
            .env("HOME", &s.ctx.home)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .output()
            .unwrap();
        assert_eq!(
            record["structuredContent"]["stdout"],
            String::from_utf8_lossy(&outside.stdout).as_ref(),
            "`{command}` answered differently inside the wall:\n{inside}"
        );
        assert_eq!(
            record["structuredContent"]["exitCode"],
            outside.status.code().unwrap(),
            "{command}"
        );
    }
}

#[test]
fn with_the_wall_off_every_bash_call_takes_a_card_and_runs_unconfined() {
    let s = Scene::new();
    s.ctx.write_config("[sandbox]\nbash = \"off\"\n");
    let out = s.fast_lane("ls");
    out.failure(4);
    assert!(
        out.stdout().contains("kernel wall does not hold here"),
        "{out}"
    );
    // The run says why once, on stderr.
    assert_eq!(
        out.stderr()
            .matches("warning: finch's kernel wall does not hold here ([sandbox] bash = \"off\" in finch.toml)")
            .count(),
        1,
        "{out}"
    );
    let check = s.ctx.run(&[
        "policy",
        "check",
        "Bash",
        r#"{"command":"ls"}"#,
        "--mode",
        "acceptCalls",
        "--json",
    ]);
    check.success();
    assert_eq!(check.json()["decision"], "ask");
    assert_eq!(check.json()["decidedBy"], "noSandbox");
    assert!(
        check.json()["reason"]
            .as_str()
            .unwrap()
            .contains("bash = \"off\""),
        "{check}"
    );
    let approved = s.ctx.run(&[
        "tool",
        "call",
        "Bash",
        r#"{"command":"touch made-unconfined"}"#,
        "--approve",
        "Bash",
        "--json",
    ]);
    approved.success();
    assert_eq!(approved.json()["sandbox"], "none");
    assert!(s.ws().join("made-unconfined").exists());
}

#[test]
fn policy_check_and_the_transcript_name_the_sandbox() {
    let s = Scene::new();
    let check = |command: &str, mode: &str| {
        let out = s.ctx.run(&[
            "policy",
            "check",
            "Bash",
            &json!({ "command": command }).to_string(),
            "--mode",
            mode,
            "--json",
        ]);
        out.success();
        out.json()
    };
    assert_eq!(check("ls", "acceptCalls")["sandbox"], "read-only");
    assert_eq!(
        check("touch x", "acceptCalls")["sandbox"],
        "workspace-write"
    );
    assert_eq!(check("ls", "ask")["sandbox"], "workspace-write");
    let text = s.ctx.run(&[
        "policy",
        "check",
        "Bash",
        r#"{"command":"ls"}"#,
        "--mode",
        "acceptCalls",
    ]);
    text.success()
        .stderr_has("sandbox: runs in finch's read-only sandbox");
    assert_eq!(text.stdout().lines().count(), 2, "{text}");
    // pi runs its own bash: finch's fast lane cannot hold it.
    let pi = s.ctx.run(&[
        "policy",
        "check",
        "--agent",
        "pi",
        "bash",
        r#"{"command":"ls"}"#,
        "--mode",
        "acceptCalls",
        "--json",
    ]);
    pi.success();
    assert_eq!(pi.json()["decision"], "ask", "{pi}");
    assert_eq!(pi.json()["sandbox"], "none", "{pi}");

    s.fast_lane("ls").success();
    let transcripts = s.ctx.transcripts();
    let calls = s.ctx.tool_calls(transcripts.last().unwrap());
    assert_eq!(calls.last().unwrap()["sandbox"], "read-only");
}

#[test]
fn sandbox_run_passes_the_exit_status_through_and_refuses_what_it_cannot_run() {
    let s = Scene::new();
    s.sandboxed(&[], "exit 7").failure(7);
    s.sandboxed(&[], "kill -9 $$").failure(137);
    let missing = s.ctx.run(&["sandbox", "run", "--", "no-such-program-here"]);
    missing
        .failure(1)
        .stderr_has("cannot run `no-such-program-here` in the sandbox");
    let bad_cwd = s
        .ctx
        .run(&["sandbox", "run", "--cwd", "/no/such/dir", "--", "true"]);
    bad_cwd.failure(1).stderr_has("/no/such/dir");
    let usage = s.ctx.run(&["sandbox", "run"]);
    usage.failure(2);
    // --writable opens one more directory to a read-only run.
    let extra = s.ctx.base().join("extra");
    std::fs::create_dir_all(&extra).unwrap();
    s.sandboxed(
        &[
            "--profile",
            "workspace-write",
            "--writable",
            extra.to_str().unwrap(),
        ],
        &format!("touch {}/ok", extra.display()),
    )
    .success();
    assert!(extra.join("ok").exists());
    let mut out = String::new();
    std::fs::File::open(extra.join("ok"))
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(out.is_empty());
}

/// `--writable` belongs to workspace-write: with the read-only profile it is refused before
/// anything runs, naming the flag to add, instead of being dropped so that the write fails
/// later with a bare `Permission denied`.
#[test]
fn sandbox_run_refuses_writable_without_workspace_write() {
    let s = Scene::new();
    let extra = s.ctx.base().join("extra");
    std::fs::create_dir_all(&extra).unwrap();
    let dir = extra.to_str().unwrap();
    let run = s.sandboxed(&["--writable", dir], &format!("touch {dir}/ran"));
    run.failure(2);
    assert_eq!(
        run.stderr(),
        format!(
            "Error: --writable {dir} needs --profile workspace-write: the read-only profile writes nowhere but its private TMPDIR\nhint: run `finch sandbox run --profile workspace-write --writable {dir} -- …` (the working directory becomes writable too; pass --cwd to choose it)\n"
        )
    );
    assert_eq!(run.stdout(), "");
    assert!(!extra.join("ran").exists(), "nothing ran");
}

/// `npx -y <package>` in workspace-write (an approved Bash call, a mini tool with `shell: true`
/// and the MCP servers it brings): npm unpacks the package into `~/.npm/_npx`, the cache's
/// private layer, and runs its bin from there. What a call may write there it may run, as in
/// the workspace, and what it wrote ends with the call.
#[test]
fn workspace_write_runs_what_it_unpacked_into_a_cache_layer_and_keeps_none_of_it() {
    let s = Scene::new();
    std::fs::create_dir_all(s.ctx.home.join(".npm")).unwrap();
    let bin = "~/.npm/_npx/t/node_modules/.bin";
    let out = s.sandboxed(
        &["--profile", "workspace-write"],
        &format!(
            "mkdir -p {bin} && printf '#!/bin/sh\\necho ran from the cache\\n' > {bin}/tool \\
             && chmod +x {bin}/tool && {bin}/tool"
        ),
    );
    out.success().stdout_has("ran from the cache");
    assert!(
        !s.ctx.home.join(".npm/_npx").exists(),
        "what the call unpacked outlived it"
    );
}
