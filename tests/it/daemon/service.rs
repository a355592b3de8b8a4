//! `finch daemon install`: the file it writes under the sealed HOME, never the real user's
//! service manager (no test passes `--start` where `systemctl` could be reached).

use crate::common::TestContext;

fn unit_path(ctx: &TestContext) -> std::path::PathBuf {
    ctx.home.join(".config/systemd/user/finch.service")
}

/// The unit runs this binary with the homes and PATH of the install; the output says what
/// was written, how to start it and how to undo it; a second install changes nothing.
#[test]
fn install_writes_a_systemd_user_unit_and_says_how_to_start_and_undo_it() {
    let ctx = TestContext::new();
    let out = ctx.run(&["daemon", "install", "--manager", "systemd"]);
    out.success();
    let path = unit_path(&ctx);
    let unit = std::fs::read_to_string(&path).expect("the unit is written");
    let exe = std::path::Path::new(env!("CARGO_BIN_EXE_finch"));
    let path_env = std::env::var("PATH").unwrap_or_default();
    assert_eq!(
        unit,
        format!(
            "# Written by `finch daemon install` (finch {version}).\n\
             # Undo: systemctl --user disable --now finch.service, then delete this file.\n\
             [Unit]\n\
             Description=finch daemon: mini tools and scheduled tasks\n\
             After=network-online.target\n\
             Wants=network-online.target\n\
             \n\
             [Service]\n\
             Type=simple\n\
             ExecStart=\"{exe}\" daemon\n\
             Environment=\"FINCH_RUNTIME_HOME={runtime}\"\n\
             Environment=\"FINCH_AGENT_HOME={agent}\"\n\
             Environment=\"PATH={path_env}\"\n\
             Restart=on-failure\n\
             RestartSec=5\n\
             # Exit 5: another finch daemon already runs; restarting would not help.\n\
             RestartPreventExitStatus=5\n\
             # SIGTERM stops the mini tools and the scheduled runs within seconds; leave room.\n\
             TimeoutStopSec=30\n\
             \n\
             [Install]\n\
             WantedBy=default.target\n",
            version = env!("CARGO_PKG_VERSION"),
            exe = exe.display(),
            runtime = ctx.runtime.display(),
            agent = ctx.agent.display(),
        )
    );
    assert_eq!(
        out.stdout(),
        format!("✓ Wrote {} (systemd user unit)\n", path.display())
    );
    let stderr = out.stderr();
    assert!(
        stderr.contains(
            "start it now and at every login:\n  systemctl --user daemon-reload\n  systemctl --user enable --now finch.service\n"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "undo:\n  systemctl --user disable --now finch.service\n  rm {}\n  systemctl --user daemon-reload\n",
            path.display()
        )),
        "{stderr}"
    );

    let again = ctx.run(&["daemon", "install", "--manager", "systemd"]);
    again.success();
    assert_eq!(
        again.stdout(),
        format!("✓ {} is already installed, unchanged\n", path.display())
    );
}

/// A unit that says something else is not replaced without `--force` (exit 1, the file as it
/// was); `--dry-run` writes nothing and prints the text on stdout.
#[test]
fn install_keeps_a_different_unit_without_force_and_dry_run_writes_nothing() {
    let ctx = TestContext::new();
    let dry = ctx.run(&["daemon", "install", "--manager", "systemd", "--dry-run"]);
    dry.success();
    assert!(!unit_path(&ctx).exists(), "--dry-run writes nothing");
    assert!(dry.stdout().contains("ExecStart="), "{}", dry.stdout());
    assert_eq!(
        dry.stderr(),
        format!("would write {} (systemd):\n", unit_path(&ctx).display())
    );

    let path = unit_path(&ctx);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "[Service]\nExecStart=/my/own\n").unwrap();
    let out = ctx.run(&["daemon", "install", "--manager", "systemd"]);
    out.failure(1);
    assert_eq!(
        out.stderr(),
        format!(
            "Error: {} already exists and says something else\nhint: --force replaces it; --dry-run shows what would be written\n",
            path.display()
        )
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "[Service]\nExecStart=/my/own\n"
    );
    ctx.run(&["daemon", "install", "--manager", "systemd", "--force"])
        .success();
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains(" daemon\n")
    );
}

/// Without `systemctl` on PATH the install still writes the unit and says how to go on;
/// `--start` then fails (exit 1) saying why, the unit written.
#[test]
fn install_needs_no_systemctl_and_start_without_it_says_so() {
    let ctx = TestContext::new();
    let empty = ctx.base().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    let out = ctx
        .cmd()
        .env("PATH", &empty)
        .args(["daemon", "install", "--manager", "systemd"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("(systemctl is not on PATH here: start the file with your service manager, or run `finch daemon` yourself)"),
        "{stderr}"
    );
    std::fs::remove_file(unit_path(&ctx)).unwrap();
    let start = ctx
        .cmd()
        .env("PATH", &empty)
        .args(["daemon", "install", "--manager", "systemd", "--start"])
        .output()
        .unwrap();
    assert_eq!(start.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&start.stderr),
        format!(
            "Error: systemctl was not found on PATH, so the service cannot be started; {} is written\nhint: run `finch daemon` yourself, or start the file with your service manager\n",
            unit_path(&ctx).display()
        )
    );
    assert!(unit_path(&ctx).exists());
}

/// The launchd agent (macOS) as `--dry-run --json` shows it: label, program, homes, restart
/// unless it exited cleanly, and how to load and unload it.
#[test]
fn install_describes_a_launchd_agent() {
    let ctx = TestContext::new();
    let out = ctx.run(&[
        "daemon",
        "install",
        "--manager",
        "launchd",
        "--dry-run",
        "--json",
    ]);
    out.success();
    let doc = out.json();
    let plist_path = ctx.home.join("Library/LaunchAgents/dev.finch.daemon.plist");
    assert_eq!(doc["manager"], "launchd");
    assert_eq!(doc["path"], plist_path.display().to_string());
    assert_eq!(doc["written"], false);
    assert!(!plist_path.exists());
    let text = doc["text"].as_str().unwrap();
    for needle in [
        "<key>Label</key>\n\t<string>dev.finch.daemon</string>".to_string(),
        format!(
            "\t\t<string>{}</string>\n\t\t<string>daemon</string>",
            env!("CARGO_BIN_EXE_finch")
        ),
        format!(
            "\t\t<key>FINCH_RUNTIME_HOME</key>\n\t\t<string>{}</string>",
            ctx.runtime.display()
        ),
        "<key>SuccessfulExit</key>\n\t\t<false/>".to_string(),
    ] {
        assert!(text.contains(&needle), "{needle} not in\n{text}");
    }
    let start = doc["start"][0].as_array().unwrap();
    assert_eq!(start[0], "launchctl");
    assert_eq!(start[1], "bootstrap");
    assert_eq!(doc["undo"][0][1], "bootout");
}
