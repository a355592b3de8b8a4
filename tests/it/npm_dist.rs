//! finch through npm (issue 17): `scripts/package-npm` packs the test build's binary, the
//! tarballs are published with `npm publish` to a loopback verdaccio, installed with
//! `npm install -g --prefix <tmp>` and run with `npx`, with no cargo on `PATH`; the launcher
//! (`npm/bin/finch.js`) passes arguments, output, a terminal, exit codes and SIGINT through.
//!
//! The installing test needs verdaccio, so it is ignored by default like the verdaccio suite
//! (`scripts/test` runs it). The launcher's own errors are checked without a registry, by
//! running `npm/bin/finch.js` from the checkout.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::fixtures::MiniTool;
use crate::common::{TestContext, added_lines};
use crate::verdaccio::{Access, Verdaccio};

const MAIN: &str = "finch-minitools";
const VERSION: &str = env!("CARGO_PKG_VERSION");
const PLATFORMS: [&str; 5] = [
    "linux-x64",
    "linux-arm64",
    "darwin-arm64",
    "darwin-x64",
    "win32-x64",
];
/// How long one shim-run finch may take to answer or to end after a signal.
const WAIT: Duration = Duration::from_secs(60);

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// npm's `<os>-<cpu>` name of this machine.
fn host_platform() -> String {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    };
    let cpu = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{os}-{cpu}")
}

/// The inherited `PATH` without any directory that holds cargo, rustc or rustup.
fn path_without_cargo() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|dir| {
            !["cargo", "rustc", "rustup"]
                .iter()
                .any(|tool| dir.join(tool).exists())
        })
        .collect();
    std::env::join_paths(kept)
        .expect("join PATH")
        .into_string()
        .expect("PATH is UTF-8")
}

/// The package.json inside an npm tarball, and the mode of each file in it.
fn tarball_manifest(tgz: &Path) -> (Value, Vec<(String, u32)>) {
    let file = fs::File::open(tgz).unwrap_or_else(|e| panic!("open {}: {e}", tgz.display()));
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut manifest = None;
    let mut files = Vec::new();
    for entry in archive.entries().expect("tar entries") {
        let mut entry = entry.expect("tar entry");
        let path = entry.path().expect("entry path").display().to_string();
        files.push((path.clone(), entry.header().mode().expect("mode") & 0o777));
        if path == "package/package.json" {
            let mut text = String::new();
            entry.read_to_string(&mut text).expect("read package.json");
            manifest = Some(serde_json::from_str(&text).expect("package.json is JSON"));
        }
    }
    files.sort();
    (
        manifest.unwrap_or_else(|| panic!("{} has no package/package.json", tgz.display())),
        files,
    )
}

#[track_caller]
fn ok(what: &str, out: &Output) {
    assert!(
        out.status.success(),
        "{what} failed ({}):\n--- stdout\n{}--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The sealed environment of `ctx` for a command that is not the test's finch: npm's config,
/// cache and global prefix under the test's temp dir, and no cargo on `PATH`.
struct NpmEnv<'a> {
    ctx: &'a TestContext,
    path: String,
    npmrc: PathBuf,
}

impl NpmEnv<'_> {
    fn cmd(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new(program);
        cmd.env_clear()
            .env("HOME", &self.ctx.home)
            .env("PATH", &self.path)
            .env("FINCH_RUNTIME_HOME", &self.ctx.runtime)
            .env("FINCH_AGENT_HOME", &self.ctx.agent)
            .env("NO_COLOR", "1")
            .env("COLUMNS", "100")
            .env("npm_config_userconfig", &self.npmrc)
            .env("npm_config_cache", self.ctx.base().join("npm-cache"))
            .env("npm_config_update_notifier", "false")
            .env("npm_config_fund", "false")
            .env("npm_config_audit", "false")
            .current_dir(&self.ctx.work)
            .stdin(Stdio::null());
        cmd
    }
}

/// The direct run and the shim run of the same arguments: the same exit code, stdout and
/// stderr.
#[track_caller]
fn same_through_shim(ctx: &TestContext, env: &NpmEnv, shim: &Path, args: &[&str], code: i32) {
    let direct = ctx.run(args);
    let through = env.cmd(shim).args(args).output().expect("run the shim");
    assert_eq!(direct.code(), code, "finch {args:?} directly:\n{direct}");
    assert_eq!(
        through.status.code(),
        Some(code),
        "finch {args:?} through the shim: {}\n{}",
        through.status,
        String::from_utf8_lossy(&through.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&through.stdout), direct.stdout());
    assert_eq!(String::from_utf8_lossy(&through.stderr), direct.stderr());
}

/// The child processes of `pid` (Linux `/proc`).
fn children(pid: u32) -> Vec<u32> {
    fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// Starts `<shim> run --jsonl` in a process group of its own, proves the binary answers,
/// sends SIGINT (to the group, as a terminal's Ctrl-C does, or to the shim alone) and checks
/// that the binary died of it and the shim died of SIGINT too.
fn sigint_passes_through(env: &NpmEnv, shim: &Path, to_group: bool) {
    let mut cmd = env.cmd(shim);
    cmd.args(["run", "--jsonl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut shim_run = cmd.spawn().expect("start the shim");
    let shim_pid = shim_run.id();
    let mut stdin = shim_run.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(shim_run.stdout.take().expect("stdout"));
    let request = json!({"id": 1, "tool": "ToolSearch", "arguments": {"query": "read"}});
    writeln!(stdin, "{request}").expect("write a request");
    stdin.flush().expect("flush");
    let mut line = String::new();
    stdout.read_line(&mut line).expect("read an answer");
    let answer: Value =
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not a JSON answer ({e}): {line:?}"));
    assert!(answer["content"].is_array(), "{answer}");

    let binaries = children(shim_pid);
    assert_eq!(binaries.len(), 1, "the shim runs one finch: {binaries:?}");
    let binary = binaries[0];
    let exe = fs::read_link(format!("/proc/{binary}/exe")).expect("the binary's exe");
    assert!(
        exe.ends_with("bin/finch"),
        "the shim's child is {}",
        exe.display()
    );

    let target = if to_group {
        -(shim_pid as i32)
    } else {
        shim_pid as i32
    };
    // SAFETY: kill(2) of a process (group) this test started.
    assert_eq!(unsafe { libc::kill(target, libc::SIGINT) }, 0);
    let deadline = Instant::now() + WAIT;
    let status = loop {
        if let Some(status) = shim_run.try_wait().expect("poll the shim") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = shim_run.kill();
            // SAFETY: kill(2) of the binary this test's shim started.
            unsafe { libc::kill(binary as i32, libc::SIGKILL) };
            panic!("the shim did not end within {WAIT:?} of SIGINT");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    shim_run
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    assert_eq!(
        status.signal(),
        Some(libc::SIGINT),
        "the shim ended with {status}, not by SIGINT (to the group: {to_group}):\n{stderr}"
    );
    // The shim waits for its child and ends after it: the binary is gone (reaped).
    assert!(
        !Path::new(&format!("/proc/{binary}")).exists(),
        "finch {binary} outlived the shim"
    );
}

/// Reads the terminal of `pty` until `needle` shows, adding what it read to `seen`.
#[track_caller]
fn pty_expect(pty: &mut expectrl::session::OsSession, needle: &str, seen: &mut String) {
    use expectrl::Expect as _;
    let deadline = Instant::now() + WAIT;
    loop {
        match pty.check(needle) {
            Ok(found) if !found.is_empty() => {
                seen.push_str(&String::from_utf8_lossy(found.as_bytes()));
                return;
            }
            Ok(_) => {}
            Err(e) => panic!("reading the terminal before {needle:?}: {e}\n{seen}"),
        }
        assert!(
            Instant::now() < deadline,
            "no {needle:?} on the terminal within {WAIT:?}:\n{seen}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A permission card through the shim: finch, started by node in a pseudo-terminal, opens the
/// terminal, shows its card and reads the answer typed there.
fn a_card_works_through_the_shim(ctx: &TestContext, env: &NpmEnv, shim: &Path) {
    use expectrl::Expect as _;
    let mut cmd = env.cmd(shim);
    cmd.args([
        "tool",
        "call",
        "Bash",
        r#"{"command":"touch made-through-npm"}"#,
    ]);
    let mut pty = expectrl::Session::spawn(cmd).expect("spawn the shim in a pty");
    let mut seen = String::new();
    pty_expect(&mut pty, "Esc denies.", &mut seen);
    assert!(seen.contains("Permission needed: Bash"), "{seen}");
    pty.send("1").expect("type on the terminal");
    pty_expect(&mut pty, "Allowed once", &mut seen);
    let status = pty.get_process().wait().expect("wait for the shim");
    assert!(
        matches!(status, expectrl::process::unix::WaitStatus::Exited(_, 0)),
        "{status:?}\n{seen}"
    );
    assert!(ctx.work.join("made-through-npm").exists(), "{seen}");
}

#[test]
#[ignore = "needs verdaccio: run scripts/install-test-peers (scripts/test does)"]
fn npm_packages_install_from_a_registry_and_run_finch_without_cargo() {
    let ctx = TestContext::new();
    let platform = host_platform();
    let platform_package = format!("{MAIN}-{platform}");
    assert!(
        PLATFORMS.contains(&platform.as_str()),
        "no npm package for {platform}"
    );

    // Pack the binary this test build made.
    let out_dir = ctx.base().join("tarballs");
    let packed = Command::new(repo().join("scripts/package-npm"))
        .arg("--binary")
        .arg(env!("CARGO_BIN_EXE_finch"))
        .arg("--out")
        .arg(&out_dir)
        .output()
        .expect("run scripts/package-npm");
    ok("scripts/package-npm", &packed);
    let main_tgz = out_dir.join(format!("{MAIN}-{VERSION}.tgz"));
    let platform_tgz = out_dir.join(format!("{platform_package}-{VERSION}.tgz"));
    assert_eq!(
        String::from_utf8_lossy(&packed.stdout),
        format!("{}\n{}\n", platform_tgz.display(), main_tgz.display())
    );
    let mut written: Vec<String> = fs::read_dir(&out_dir)
        .expect("read the tarball dir")
        .map(|e| e.expect("dir entry").file_name().to_string_lossy().into())
        .collect();
    written.sort();
    assert_eq!(
        written,
        [
            format!("{MAIN}-{VERSION}.tgz"),
            format!("{platform_package}-{VERSION}.tgz")
        ],
        "only the tarballs are left (no staging directory)"
    );

    let (main, main_files) = tarball_manifest(&main_tgz);
    assert_eq!(main["name"], MAIN);
    assert_eq!(main["version"], VERSION);
    assert_eq!(
        main["bin"],
        json!({"finch": "bin/finch.js", "finch-minitools": "bin/finch.js"})
    );
    let optional: Value = PLATFORMS
        .iter()
        .map(|p| (format!("{MAIN}-{p}"), Value::from(VERSION)))
        .collect::<serde_json::Map<_, _>>()
        .into();
    assert_eq!(main["optionalDependencies"], optional);
    assert!(main.get("dependencies").is_none(), "{main:#}");
    assert!(
        main_files.contains(&("package/bin/finch.js".into(), 0o755)),
        "{main_files:?}"
    );
    let (plat, plat_files) = tarball_manifest(&platform_tgz);
    assert_eq!(plat["name"], platform_package.as_str());
    assert_eq!(plat["version"], VERSION);
    let (os, cpu) = platform.split_once('-').expect("os-cpu");
    assert_eq!(plat["os"], json!([os]));
    assert_eq!(plat["cpu"], json!([cpu]));
    assert!(plat.get("bin").is_none(), "only the main package has bins");
    assert!(
        plat_files.contains(&("package/bin/finch".into(), 0o755)),
        "{plat_files:?}"
    );

    // Publish both with npm itself.
    let registry = Verdaccio::start(Access::Public);
    let token = registry.add_user("finch-release");
    let url = registry.url();
    let host = url.trim_start_matches("http:");
    let npmrc = ctx.base().join("npmrc");
    fs::write(
        &npmrc,
        format!("registry={url}\n{host}:_authToken={token}\n"),
    )
    .expect("write npmrc");
    let path = path_without_cargo();
    let env = NpmEnv {
        ctx: &ctx,
        path,
        npmrc,
    };
    let which_cargo = env
        .cmd("sh")
        .args(["-c", "command -v cargo rustc || true"])
        .output()
        .expect("sh");
    assert_eq!(
        String::from_utf8_lossy(&which_cargo.stdout),
        "",
        "cargo is on the test's PATH"
    );
    for tgz in [&platform_tgz, &main_tgz] {
        let published = env
            .cmd("npm")
            .arg("publish")
            .arg(tgz)
            .output()
            .expect("npm publish");
        ok(&format!("npm publish {}", tgz.display()), &published);
    }

    // Install globally into a prefix of our own; npm skips the four platforms it may not use
    // (and which this registry does not even have).
    let prefix = ctx.base().join("prefix");
    let installed = env
        .cmd("npm")
        .args(["install", "-g", "--prefix"])
        .arg(&prefix)
        .arg(MAIN)
        .output()
        .expect("npm install -g");
    ok("npm install -g", &installed);
    let finch = prefix.join("bin/finch");
    let finch_minitools = prefix.join("bin/finch-minitools");
    assert!(finch.exists() && finch_minitools.exists());
    let lib = prefix.join("lib/node_modules");
    let nested = lib.join(MAIN).join("node_modules").join(&platform_package);
    let hoisted = lib.join(&platform_package);
    let binary_dir = if nested.exists() { nested } else { hoisted };
    let binary = binary_dir.join("bin/finch");
    assert_eq!(
        fs::metadata(&binary)
            .unwrap_or_else(|e| panic!("{}: {e}", binary.display()))
            .len(),
        fs::metadata(env!("CARGO_BIN_EXE_finch"))
            .expect("test binary")
            .len(),
        "the installed binary is the packaged one"
    );
    for other in PLATFORMS.iter().filter(|p| **p != platform) {
        let name = format!("{MAIN}-{other}");
        assert!(
            !lib.join(&name).exists() && !lib.join(MAIN).join("node_modules").join(&name).exists()
        );
    }

    // --version, add (the official CLI's lines) through the two bins.
    same_through_shim(&ctx, &env, &finch, &["--version"], 0);
    let version = env.cmd(&finch).arg("--version").output().expect("finch");
    assert_eq!(
        String::from_utf8_lossy(&version.stdout),
        format!("finch {VERSION}\n")
    );
    let src = ctx.work.join("npm-demo");
    MiniTool::new("npm-demo", "1.0.0")
        .display_name("npm demo")
        .write_to(&src);
    let added = env
        .cmd(&finch_minitools)
        .arg("add")
        .arg(&src)
        .output()
        .expect("finch-minitools add");
    ok("finch-minitools add", &added);
    assert_eq!(
        String::from_utf8_lossy(&added.stdout),
        added_lines(
            "npm demo",
            "npm-demo",
            &ctx.personal_tier().join("npm-demo")
        )
    );
    assert_eq!(String::from_utf8_lossy(&added.stderr), "");

    // npx fetches the packages into its own cache and lists what `finch list` lists.
    let npx = env
        .cmd("npx")
        .args(["--yes", MAIN, "list"])
        .output()
        .expect("npx");
    ok("npx finch-minitools list", &npx);
    let direct = ctx.run(&["list"]);
    direct.success();
    assert!(direct.stdout().contains("npm-demo"), "{direct}");
    assert_eq!(String::from_utf8_lossy(&npx.stdout), direct.stdout());

    // Exit codes 1 (error), 3 (not found), 4 (needs a person) pass through with the messages.
    fs::write(ctx.work.join("notes.txt"), "x").expect("write notes.txt");
    same_through_shim(&ctx, &env, &finch, &["add", "notes.txt"], 1);
    same_through_shim(&ctx, &env, &finch, &["add", "./nope"], 3);
    same_through_shim(
        &ctx,
        &env,
        &finch,
        &["tool", "call", "Bash", r#"{"command":"rm -rf build"}"#],
        4,
    );

    // A terminal stays a terminal: a permission card is shown and answered through the shim.
    a_card_works_through_the_shim(&ctx, &env, &finch);

    // SIGINT: from a terminal (the whole group) and to the shim alone.
    sigint_passes_through(&env, &finch, true);
    sigint_passes_through(&env, &finch, false);
}

/// `node npm/bin/finch.js args…` from the checkout, with `env` set and nothing else but PATH.
fn checkout_shim(ctx: &TestContext, preload: Option<&Path>, env: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new("node");
    if let Some(preload) = preload {
        cmd.arg("--require").arg(preload);
    }
    cmd.arg(repo().join("npm/bin/finch.js"))
        .arg("--version")
        .env_clear()
        .env("HOME", &ctx.home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .current_dir(&ctx.work)
        .stdin(Stdio::null());
    for (key, value) in env {
        cmd.env(key, value);
    }
    cmd.output().expect("run node")
}

#[test]
fn the_launcher_runs_finch_binary_and_says_what_to_do_when_it_has_none() {
    let ctx = TestContext::new();
    let stderr = |out: &Output| String::from_utf8_lossy(&out.stderr).into_owned();

    // FINCH_BINARY: a finch built elsewhere runs as is.
    let own = checkout_shim(
        &ctx,
        None,
        &[("FINCH_BINARY", Path::new(env!("CARGO_BIN_EXE_finch")))],
    );
    ok("the launcher with FINCH_BINARY", &own);
    assert_eq!(
        String::from_utf8_lossy(&own.stdout),
        format!("finch {VERSION}\n")
    );

    // FINCH_BINARY naming nothing.
    let missing = ctx.work.join("no-such-finch");
    let bad = checkout_shim(&ctx, None, &[("FINCH_BINARY", &missing)]);
    assert_eq!(bad.status.code(), Some(1), "{}", stderr(&bad));
    assert_eq!(
        stderr(&bad),
        format!(
            "Error: FINCH_BINARY is set to {}, which is not a file.\n  Unset FINCH_BINARY to use the finch this package installed, or point it at a finch executable.\n",
            missing.display()
        )
    );
    assert!(bad.stdout.is_empty());

    // The checkout has no platform package beside the launcher: what npm leaves out with
    // --omit=optional.
    let platform = host_platform();
    let absent = checkout_shim(&ctx, None, &[]);
    assert_eq!(absent.status.code(), Some(1), "{}", stderr(&absent));
    let text = stderr(&absent);
    assert!(
        text.starts_with(&format!(
            "Error: the package {MAIN}-{platform}, which holds finch for {platform}, is not installed.\n"
        )),
        "{text}"
    );
    for hint in [
        "--omit=optional",
        "--include=optional",
        "cargo install --locked --path .",
        "FINCH_BINARY",
    ] {
        assert!(text.contains(hint), "no {hint:?} in {text}");
    }

    // A platform no package is built for (node told it runs on s390x).
    let preload = ctx.base().join("s390x.js");
    fs::write(
        &preload,
        "Object.defineProperty(process, 'arch', { value: 's390x' });\n",
    )
    .expect("write the preload");
    let exotic = checkout_shim(&ctx, Some(&preload), &[]);
    assert_eq!(exotic.status.code(), Some(1), "{}", stderr(&exotic));
    let os = platform.split_once('-').expect("os-cpu").0;
    assert_eq!(
        stderr(&exotic),
        format!(
            "Error: {MAIN} has no finch binary for this platform ({os}-s390x).\n  Binaries are published for: {}.\n  To use finch here, build finch from source (https://rustup.rs, then `cargo install --locked --path .` in a checkout of finch) and point FINCH_BINARY at the executable it installs.\n",
            PLATFORMS.join(", ")
        )
    );
}

#[test]
fn package_npm_refuses_bad_arguments_and_writes_nothing() {
    let ctx = TestContext::new();
    let out = ctx.base().join("tarballs");
    let finch = env!("CARGO_BIN_EXE_finch");
    let run = |args: &[&str]| {
        Command::new(repo().join("scripts/package-npm"))
            .args(args)
            .arg("--out")
            .arg(&out)
            .stdin(Stdio::null())
            .output()
            .expect("run scripts/package-npm")
    };
    let cases: [(&[&str], i32, &str); 5] = [
        (
            &["--binary", finch, "--platform", "linux-s390x"],
            1,
            "package-npm: error: unknown platform linux-s390x (npm/platforms.json has linux-x64, linux-arm64, darwin-arm64, darwin-x64, win32-x64)\n",
        ),
        (
            &["--binary", "/no/such/finch"],
            1,
            "package-npm: error: no finch executable at /no/such/finch\n",
        ),
        (
            &["--binary", finch, "--target", "x86_64-apple-darwin"],
            1,
            "package-npm: error: --binary and --target exclude each other\n",
        ),
        (
            &["--target", "riscv64gc-unknown-linux-gnu"],
            1,
            "package-npm: error: no platform in npm/platforms.json has rustTarget riscv64gc-unknown-linux-gnu\n",
        ),
        (
            &["--no-main", "--no-platform"],
            1,
            "package-npm: error: --no-main and --no-platform together leave nothing to do\n",
        ),
    ];
    for (args, code, message) in cases {
        let done = run(args);
        assert_eq!(done.status.code(), Some(code), "{args:?}: {done:?}");
        assert_eq!(String::from_utf8_lossy(&done.stderr), message, "{args:?}");
        assert!(done.stdout.is_empty(), "{args:?}: {done:?}");
    }
    let unknown = run(&["--bogus"]);
    assert_eq!(unknown.status.code(), Some(2));
    let text = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        text.starts_with("package-npm: unknown argument '--bogus'\n")
            && text.contains("--binary PATH"),
        "{text}"
    );
    assert!(!out.exists(), "an argument error wrote {}", out.display());
}
