//! Tests of the command line as a whole (SPEC §1, §2): help, version and usage errors, the
//! command groups that have not landed yet, `--json` errors, `finch where` and the order in
//! which the homes are resolved, and the generated completions and man pages being current.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::common::{Run, TestContext};

/// Runs `finch where --json` with `configure` applied to the command.
fn where_json(ctx: &TestContext, configure: impl FnOnce(&mut assert_cmd::Command)) -> Run {
    let mut cmd = ctx.cmd();
    cmd.args(["--json", "where"]);
    configure(&mut cmd);
    Run(cmd.output().expect("finch runs"))
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).unwrap();
    std::fs::write(path, text).unwrap();
}

// ---------------------------------------------------------------------------------------------
// help, version, usage

#[test]
fn help_and_version_exit_0() {
    let ctx = TestContext::new();
    let out = ctx.run(&["--version"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!("finch {}\n", env!("CARGO_PKG_VERSION")),
        "{out}"
    );

    for args in [
        &["--help"][..],
        &["-h"],
        &["help"],
        &["list", "--help"],
        &["help", "doctor"],
    ] {
        let out = ctx.run(args);
        out.success();
        out.stdout_has("Usage: finch");
        assert_eq!(out.stderr(), "", "{args:?}: {out}");
    }
    ctx.run(&["--help"])
        .stdout_has("Mini tool manager, state toolkit and tool host for the Finch desktop agent");
}

#[test]
fn unknown_subcommands_and_flags_exit_2() {
    let ctx = TestContext::new();
    for args in [
        &["frobnicate"][..],
        &["--frobnicate", "list"],
        &["list", "--frobnicate"],
        &["remove"],
        &["enable"],
        &["memory", "frobnicate"],
        &["completions", "tcsh"],
        &["list", "-g", "--all-tiers"],
        &["--color", "purple", "list"],
    ] {
        let out = ctx.run(args);
        out.failure(2);
        assert_eq!(out.stdout(), "", "{args:?}: {out}");
        assert!(out.stderr().starts_with("Error: "), "{args:?}: {out}");
        assert!(!out.stderr().contains("error:"), "{args:?}: {out}");
    }
    let out = ctx.run(&["list", "--frobnicate"]);
    assert_eq!(
        out.stderr(),
        "Error: unexpected argument '--frobnicate' found\n\n\
         Usage: finch list [OPTIONS]\n\n\
         hint: run the command with --help for its options and examples\n",
        "{out}"
    );
    // No command at all is a usage error too, with the help on stderr.
    let out = ctx.run(&[]);
    out.failure(2);
    assert!(
        out.stderr().starts_with("Error: a command is required\n\n"),
        "{out}"
    );
    out.stderr_has("Usage: finch");
}

// ---------------------------------------------------------------------------------------------
// --json errors

#[test]
fn json_errors_are_one_object_on_stdout() {
    let ctx = TestContext::new();
    let out = ctx.run(&["--json", "remove", "nope"]);
    out.failure(3);
    assert_eq!(
        out.json(),
        json!({"error": {
            "code": "not_found",
            "message": "\"nope\" is not installed in the personal tier",
            "hint": "run `finch list --all-tiers` to see what is installed",
        }}),
        "{out}"
    );
    // stderr still carries the message the app looks for.
    assert_eq!(
        out.stderr(),
        "Error: \"nope\" is not installed in the personal tier\nhint: run `finch list --all-tiers` to see what is installed\n",
        "{out}"
    );

    // The flag works after the subcommand too.
    let out = ctx.run(&["remove", "nope", "--json"]);
    out.failure(3);
    assert_eq!(out.json()["error"]["code"], "not_found", "{out}");
}

#[test]
fn json_usage_errors_are_json_too() {
    let ctx = TestContext::new();
    let out = ctx.run(&["--json", "remove"]);
    out.failure(2);
    assert_eq!(out.json()["error"]["code"], "usage", "{out}");
}

// ---------------------------------------------------------------------------------------------
// where

#[test]
fn where_prints_both_homes_and_every_state_file() {
    let ctx = TestContext::new();
    let out = ctx.run(&["where"]);
    out.success();
    assert_eq!(out.stderr(), "", "{out}");
    insta::assert_snapshot!(ctx.filter(&out.stdout()), @r"
    Personal: [BASE]/home/finchnest/.finch/extensions
    Global:   [BASE]/home/.finch/extensions
    State:    [BASE]/home/.finch/extensions.json
    runtime home            [BASE]/home/.finch
    agent home              [BASE]/home/finchnest  (FINCH_AGENT_HOME)
    install records         [BASE]/home/finchnest/.finch/extensions/.plugins-lock.json
    global install records  [BASE]/home/.finch/extensions/.plugins-lock.json
    download cache          [BASE]/home/.finch/cache/minitools
    tool catalog            [BASE]/home/.finch/cache/catalog.json
    mini tool data          [BASE]/home/.finch/extension-data
    mcp servers             [BASE]/home/.finch/extension-data/mcp/servers.json
    app settings            [BASE]/home/.finch/config/settings.json
    finch settings          [BASE]/home/.finch/config/finch.toml
    tasks                   [BASE]/home/.finch/automation/tasks.json
    run history             [BASE]/home/.finch/automation/runs
    sessions                [BASE]/home/.finch/pi/sessions
    spaces                  [BASE]/home/.finch/spaces.json
    trusted rules           [BASE]/home/.finch/trusted-rules.json
    logs                    [BASE]/home/.finch/logs
    memory                  [BASE]/home/finchnest/MEMORY.md
    daily logs              [BASE]/home/finchnest/memory
    lessons                 [BASE]/home/finchnest/memory/lessons.md
    space memory            [BASE]/home/finchnest/memory/spaces
    profile                 [BASE]/home/finchnest/USER.md
    personal skills         [BASE]/home/finchnest/skills
    global skills           [BASE]/home/.finch/skills
    ");
    // `where` only reports; it creates nothing.
    assert!(!ctx.runtime.exists() && !ctx.agent.exists());

    let out = ctx.run(&["--json", "where"]);
    out.success();
    let doc = out.json();
    assert_eq!(doc["runtimeHome"], json!(ctx.runtime), "{out}");
    assert_eq!(doc["agentHome"], json!(ctx.agent), "{out}");
    assert_eq!(doc["agentHomeSource"], "FINCH_AGENT_HOME", "{out}");
    assert_eq!(doc["personalTier"], json!(ctx.personal_tier()), "{out}");
    assert_eq!(doc["globalTier"], json!(ctx.global_tier()), "{out}");
    assert_eq!(
        doc["enabledState"],
        json!(ctx.runtime.join("extensions.json")),
        "{out}"
    );
}

/// `(agentHome, agentHomeSource)` of `finch --json where`.
fn agent_home(out: &Run) -> (PathBuf, String) {
    out.success();
    let doc = out.json();
    let home = doc["agentHome"].as_str().unwrap_or_else(|| panic!("{out}"));
    let source = doc["agentHomeSource"]
        .as_str()
        .unwrap_or_else(|| panic!("{out}"));
    (PathBuf::from(home), source.to_string())
}

#[test]
fn the_agent_home_follows_the_documented_order() {
    let ctx = TestContext::new();
    let settings = ctx.runtime.join("config/settings.json");
    let workspace = ctx.runtime.join("workspace.json");
    write(
        &settings,
        r#"{"general":{"finchHomeDir":"~/from-settings","theme":"dark"},"other":1}"#,
    );
    write(&workspace, r#"{"finchHomeDir":"/from/workspace"}"#);
    let flag = ctx.base().join("from-flag");

    // 1. --agent-home beats everything.
    let out = where_json(&ctx, |c| {
        c.args(["--agent-home", flag.to_str().unwrap()]);
    });
    assert_eq!(agent_home(&out), (flag.clone(), "--agent-home".into()));

    // 2. FINCH_AGENT_HOME beats the app's files.
    let out = where_json(&ctx, |_| {});
    assert_eq!(
        agent_home(&out),
        (ctx.agent.clone(), "FINCH_AGENT_HOME".into())
    );

    // 3. settings.json general.finchHomeDir, with ~ expanded.
    let out = where_json(&ctx, |c| {
        c.env_remove("FINCH_AGENT_HOME");
    });
    assert_eq!(
        agent_home(&out),
        (
            ctx.home.join("from-settings"),
            format!("general.finchHomeDir in {}", settings.display())
        )
    );

    // 4. workspace.json finchHomeDir when settings.json does not name one.
    write(&settings, r#"{"general":{"theme":"dark"}}"#);
    let out = where_json(&ctx, |c| {
        c.env_remove("FINCH_AGENT_HOME");
    });
    assert_eq!(
        agent_home(&out),
        (
            PathBuf::from("/from/workspace"),
            format!("finchHomeDir in {}", workspace.display())
        )
    );
    // An empty setting counts as none.
    write(&settings, r#"{"general":{"finchHomeDir":"  "}}"#);
    let out = where_json(&ctx, |c| {
        c.env_remove("FINCH_AGENT_HOME");
    });
    assert_eq!(agent_home(&out).0, PathBuf::from("/from/workspace"));

    // 5. ~/finchnest by default.
    std::fs::remove_file(&workspace).unwrap();
    let out = where_json(&ctx, |c| {
        c.env_remove("FINCH_AGENT_HOME");
    });
    assert_eq!(
        agent_home(&out),
        (ctx.home.join("finchnest"), "default".into())
    );

    // An empty variable is the same as an unset one.
    let out = where_json(&ctx, |c| {
        c.env("FINCH_AGENT_HOME", "");
    });
    assert_eq!(
        agent_home(&out),
        (ctx.home.join("finchnest"), "default".into())
    );
}

#[test]
fn a_dev_runtime_home_gets_a_dev_agent_home() {
    let ctx = TestContext::new();
    let dev = ctx.home.join(".finch-dev");

    let out = where_json(&ctx, |c| {
        c.env("FINCH_RUNTIME_HOME", &dev)
            .env_remove("FINCH_AGENT_HOME");
    });
    out.success();
    assert_eq!(out.json()["runtimeHome"], json!(dev), "{out}");
    assert_eq!(
        agent_home(&out),
        (ctx.home.join("finchnest-dev"), "default".into())
    );

    // The same through the flag, with ~ expanded by finch.
    let out = where_json(&ctx, |c| {
        c.args(["--runtime-home", "~/.finch-dev"])
            .env_remove("FINCH_RUNTIME_HOME")
            .env_remove("FINCH_AGENT_HOME");
    });
    assert_eq!(out.json()["runtimeHome"], json!(dev), "{out}");
    assert_eq!(agent_home(&out).0, ctx.home.join("finchnest-dev"));
}

#[test]
fn the_runtime_home_follows_flag_then_env_then_home() {
    let ctx = TestContext::new();
    let out = where_json(&ctx, |c| {
        c.env_remove("FINCH_RUNTIME_HOME");
    });
    out.success();
    assert_eq!(
        out.json()["runtimeHome"],
        json!(ctx.home.join(".finch")),
        "{out}"
    );

    let flag = ctx.base().join("rt-flag");
    let out = where_json(&ctx, |c| {
        c.args(["--runtime-home", flag.to_str().unwrap()]);
    });
    assert_eq!(out.json()["runtimeHome"], json!(flag), "{out}");

    // Relative paths resolve against the working directory.
    let out = where_json(&ctx, |c| {
        c.env("FINCH_RUNTIME_HOME", "rel/rt")
            .args(["--agent-home", "../nest"]);
    });
    assert_eq!(
        out.json()["runtimeHome"],
        json!(ctx.work.join("rel/rt")),
        "{out}"
    );
    assert_eq!(
        out.json()["agentHome"],
        json!(ctx.base().join("nest")),
        "{out}"
    );
}

#[test]
fn a_corrupt_settings_json_is_an_error_naming_the_file() {
    let ctx = TestContext::new();
    let settings = ctx.runtime.join("config/settings.json");
    write(&settings, "{\"general\": {\"finchHomeDir\": \n");

    let out = where_json(&ctx, |c| {
        c.env_remove("FINCH_AGENT_HOME");
    });
    out.failure(1);
    let error = &out.json()["error"];
    assert_eq!(error["code"], "corrupt_state", "{out}");
    out.stderr_has(&format!(
        "Error: {} is not valid JSON (line ",
        settings.display()
    ))
    .stderr_has("column")
    .stderr_has("hint: fix the file, or run `finch doctor --state` to move it aside");

    // Every command that needs the homes fails the same way; the file is left alone.
    let out = Run(ctx
        .cmd()
        .arg("list")
        .env_remove("FINCH_AGENT_HOME")
        .output()
        .unwrap());
    out.failure(1);
    out.stderr_has(&settings.display().to_string());
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        "{\"general\": {\"finchHomeDir\": \n"
    );

    // A corrupt workspace.json too.
    std::fs::remove_file(&settings).unwrap();
    let workspace = ctx.runtime.join("workspace.json");
    write(&workspace, "[1,");
    let out = where_json(&ctx, |c| {
        c.env_remove("FINCH_AGENT_HOME");
    });
    out.failure(1);
    out.stderr_has(&format!("Error: {} is not valid JSON", workspace.display()));
}

// ---------------------------------------------------------------------------------------------
// generated files

const STALE_HINT: &str = "run `scripts/generate` and commit the result";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn committed_completions_are_current() {
    let ctx = TestContext::new();
    for (shell, file) in [
        ("bash", "finch.bash"),
        ("zsh", "_finch"),
        ("fish", "finch.fish"),
        ("powershell", "_finch.ps1"),
        ("elvish", "finch.elv"),
    ] {
        let out = ctx.run(&["completions", shell]);
        out.success();
        assert!(!out.0.stdout.is_empty(), "{shell}: {out}");
        let path = repo().join("completions").join(file);
        let committed = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("completions/{file} cannot be read ({e}): {STALE_HINT}"));
        assert!(
            committed == out.0.stdout,
            "completions/{file} is stale (it differs from `finch completions {shell}`): {STALE_HINT}"
        );
    }
}

/// Every file of `dir`, by name.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{} cannot be read ({e}): {STALE_HINT}", dir.display()))
        .flatten()
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

#[test]
fn committed_man_pages_are_current() {
    let ctx = TestContext::new();
    let out_dir = ctx.work.join("man");
    let out = ctx.run(&["man", "--out-dir", out_dir.to_str().unwrap()]);
    out.success();
    assert_eq!(out.stdout(), "", "{out}");
    let generated = files(&out_dir);
    let committed = files(&repo().join("man"));
    assert!(generated.contains_key("finch.1") && generated.contains_key("finch-add.1"));
    let names = |m: &BTreeMap<String, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&committed),
        names(&generated),
        "man/ does not hold one page per command: {STALE_HINT}"
    );
    for (name, bytes) in &generated {
        assert!(
            committed[name] == *bytes,
            "man/{name} is stale (it differs from `finch man --out-dir`): {STALE_HINT}"
        );
    }

    // Without --out-dir, the top page goes to stdout.
    let out = ctx.run(&["man"]);
    out.success();
    assert_eq!(out.0.stdout, generated["finch.1"], "{out}");
}

/// `finch args…` with its stderr closed (`2>&-`) or full (`2>/dev/full`): the exit code.
#[cfg(target_os = "linux")]
fn exit_with_stderr(ctx: &TestContext, args: &[&str], closed: bool) -> i32 {
    use std::os::unix::process::CommandExt;
    let mut cmd = ctx.std_cmd();
    cmd.args(args).stdout(std::process::Stdio::null());
    if closed {
        // SAFETY: close(2) is async-signal-safe; nothing else runs between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                libc::close(2);
                Ok(())
            });
        }
    } else {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        cmd.stderr(full);
    }
    cmd.status().expect("finch runs").code().unwrap_or(-1)
}

#[cfg(target_os = "linux")]
#[test]
fn a_closed_or_full_stderr_never_panics() {
    let ctx = TestContext::new();
    for closed in [true, false] {
        // Not found (3) with its error message lost, not a panic (101).
        assert_eq!(
            exit_with_stderr(&ctx, &["memory", "forget", "zzz"], closed),
            3,
            "closed: {closed}"
        );
        // A usage error (2) prints clap's text to stderr.
        assert_eq!(exit_with_stderr(&ctx, &["frobnicate"], closed), 2);
        // A warning and a status line on the way of a successful command.
        assert_eq!(
            exit_with_stderr(&ctx, &["enable", "not-installed"], closed),
            0
        );
    }
}

#[test]
fn add_help_lists_its_own_options_apart_from_the_global_ones_and_shows_examples() {
    let ctx = TestContext::new();
    let out = ctx
        .cmd()
        .args(["add", "--help"])
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    let out = Run(out);
    out.success();
    insta::assert_snapshot!(out.stdout(), @r"
    Install a mini tool from npm, a directory, a .tgz/.zip file or URL

    Usage: finch add [OPTIONS] <SOURCE>

    Arguments:
      <SOURCE>  npm package (name[@version|@range|@tag]), directory, .tgz/.zip file, or http(s) URL of
                one

    Options:
      -g, --global          Install into the global tier (<runtime>/extensions)
      -d, --dev             Link a source directory instead of copying it (development install)
          --registry <URL>  npm registry to use instead of the configured one
      -h, --help            Print help
      -V, --version         Print version

    Global options:
          --json[=<FIELDS>]     Print machine-readable JSON on stdout (JSON Lines for `run` and
                                `schedule daemon`), only FIELDS if named (`--json id,name`)
          --jq <EXPR>           Filter the JSON output with a jq expression (implies --json)
          --runtime-home <DIR>  Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)
          --agent-home <DIR>    Agent home (default: $FINCH_AGENT_HOME, else the app's setting, else
                                ~/finchnest)
      -q, --quiet               Print only data, errors and warnings
      -v, --verbose             Print more detail on stderr
          --color <WHEN>        When to use colour (NO_COLOR is honoured with `auto`) [default: auto]
                                [possible values: auto, always, never]
          --yes                 Answer yes to confirmations (never to permission cards)

    Examples:
      # the latest version from npm
      finch add @acme/weather
      # a range, into the global tier
      finch add @acme/weather@^2 -g
      # link a source directory while you develop it
      finch add ./my-tool -d
    ");
}

#[test]
fn every_list_answers_to_ls_and_add_and_remove_to_their_other_names() {
    let ctx = TestContext::new();
    for group in [
        &[][..],
        &["memory"],
        &["schedule"],
        &["session"],
        &["space"],
        &["skill"],
        &["mcp"],
        &["tool"],
    ] {
        let mut args = group.to_vec();
        args.extend(["ls", "--help"]);
        ctx.run(&args).success().stdout_has("Usage: finch");
    }
    for alias in ["install", "i"] {
        ctx.run(&[alias, "--help"])
            .success()
            .stdout_has("Install a mini tool");
    }
    ctx.run(&["uninstall", "--help"])
        .success()
        .stdout_has("Uninstall a mini tool");
    // An alias runs the command: the error is `add`'s own.
    ctx.run(&["install", "./no-such-dir"])
        .failure(3)
        .stderr_has("Error: ");
}

#[test]
fn usage_errors_read_as_finch_errors_with_hints() {
    let ctx = TestContext::new();
    let out = ctx.run(&["lst"]);
    out.failure(2);
    let stderr = out.stderr();
    assert!(stderr.starts_with("Error: "), "{out}");
    assert!(stderr.contains("hint: "), "{out}");
    assert!(
        !stderr.contains("tip:") && !stderr.contains("error:"),
        "{out}"
    );
}

#[test]
fn every_man_page_has_examples_exit_status_environment_and_files() {
    let ctx = TestContext::new();
    let dir = ctx.base().join("man-pages");
    ctx.run(&["man", "--out-dir", dir.to_str().unwrap()])
        .success();
    let pages = files(&dir);
    assert!(pages.len() > 50, "{:?}", pages.keys());
    for (name, page) in pages {
        let page = String::from_utf8(page).unwrap();
        for section in [
            ".SH EXAMPLES",
            ".SH \"EXIT STATUS\"",
            ".SH \"ENVIRONMENT\"",
            ".SH \"FILES\"",
        ] {
            assert!(page.contains(section), "{name} has no {section}");
        }
    }
}

#[test]
fn verbose_output_names_where_the_registry_came_from_in_words() {
    let ctx = TestContext::new();
    let out = ctx.run(&[
        "-v",
        "add",
        "some-mini-tool",
        "--registry",
        "http://127.0.0.1:9/",
    ]);
    out.failure(1);
    out.stderr_has("(from --registry)");
    assert!(!out.stderr().contains("Flag)"), "{out}");
}

#[test]
fn an_unknown_tool_is_reported_in_words() {
    let ctx = TestContext::new();
    let out = ctx
        .cmd()
        .arg("run")
        .write_stdin("Nope {}\n")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Nope — not run (no such tool)"), "{stderr}");
    assert!(
        !stderr.contains("unknownTool") && !stderr.contains("none ("),
        "{stderr}"
    );
}
