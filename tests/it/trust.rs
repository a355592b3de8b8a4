//! Issue 28, "Trust that a person gave", through the real binary: a repository's rules file is
//! ignored until `finch policy trust` (and again after it changes), an ancestor's never counts;
//! an auto-allowed dispatcher cannot set more than the session has; a directory install with a
//! link chain writes nothing outside; protected names in any case take a card; an "Allow for
//! this session" stops at its directory; the destructive commands of the issue are HIGH; the
//! tail of a long command is on the card.

use std::path::Path;

use serde_json::{Value, json};

use crate::cards::Pty;
use crate::common::TestContext;

fn check_json(ctx: &TestContext, args: &[&str]) -> Value {
    let mut all = vec!["--json", "policy", "check"];
    all.extend_from_slice(args);
    let out = ctx.run(&all);
    out.success();
    out.json()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const ALLOW_ALL: &str = r#"{"allow":[{"toolName":"*","key":"*"}]}"#;

/// A Read outside the working directory: what an allow-everything rule would let through.
fn outside_read(ctx: &TestContext) -> String {
    let secret = ctx.base().join("secret.txt");
    std::fs::write(&secret, "s").unwrap();
    json!({"file_path": secret}).to_string()
}

#[test]
fn a_repositorys_rules_are_ignored_until_trusted_and_again_after_a_change() {
    let ctx = TestContext::new();
    let rules = ctx.work.join(".finch/permissions.json");
    write(&rules, ALLOW_ALL);
    let read = outside_read(&ctx);

    // Untrusted: the allow rule is ignored, and the verdict names the file and the command.
    let doc = check_json(&ctx, &["Read", &read]);
    assert_eq!(doc["decision"], "ask", "{doc}");
    assert_eq!(doc["decidedBy"], "outsideWorkspace", "{doc}");
    let untrusted = &doc["untrustedRules"];
    assert_eq!(untrusted["file"], json!(rules), "{doc}");
    assert_eq!(untrusted["ignoredAllowRules"], 1, "{doc}");
    assert_eq!(untrusted["changed"], false, "{doc}");
    assert_eq!(
        untrusted["trustCommand"],
        format!("finch policy trust {}", ctx.work.display()),
        "{doc}"
    );
    // The text answer warns once, naming the command.
    let out = ctx.run(&["policy", "check", "Read", &read]);
    out.success();
    assert_eq!(
        ctx.filter(&out.stderr()),
        "warning: [BASE]/work/.finch/permissions.json is not trusted: its 1 allow rule is \
         ignored (its deny and ask rules apply); trust it with `finch policy trust [BASE]/work`\n"
    );
    // The host obeys the same: no card on a terminal-less run means refused, file unread.
    let call = ctx.call("Bash", json!({"command": "touch made-by-rule"}));
    call.failure(4);
    assert!(!ctx.work.join("made-by-rule").exists());
    call.stderr_has("is not trusted: its 1 allow rule is ignored");

    // Without a terminal, trusting allow rules needs --yes: exit 4, nothing recorded, and
    // the words say what it would have turned on.
    let out = ctx.run(&["policy", "trust"]);
    out.failure(4);
    assert_eq!(out.stdout(), "");
    assert_eq!(
        ctx.filter(&out.stderr()),
        "Trusting [BASE]/work/.finch/permissions.json lets the model, without asking:\n  • call \
         any tool with any arguments (every right of your user) (* *)\nError: Trust \
         [BASE]/work/.finch/permissions.json? needs an answer, and there is no terminal to ask \
         on\nhint: pass --yes to answer yes\n"
    );
    assert!(!ctx.runtime.join("trusted-rules.json").exists());

    // Trusted: the rule applies, and the trust file records the hash.
    let out = ctx.run(&["policy", "trust", "--yes"]);
    out.success();
    assert_eq!(
        ctx.filter(&out.stdout()),
        "✓ Trusted [BASE]/work/.finch/permissions.json\n"
    );
    assert_eq!(
        ctx.filter(&out.stderr()),
        "Trusting [BASE]/work/.finch/permissions.json lets the model, without asking:\n  • call \
         any tool with any arguments (every right of your user) (* *)\n"
    );
    let recorded = ctx.read_json(&ctx.runtime.join("trusted-rules.json"));
    let sha = recorded["rules"][0]["sha256"].as_str().unwrap().to_string();
    assert_eq!(recorded["rules"][0]["file"], json!(rules));
    assert_eq!(sha.len(), 64);
    let doc = check_json(&ctx, &["Read", &read]);
    assert_eq!(
        (doc["decision"].as_str(), doc["decidedBy"].as_str()),
        (Some("allow"), Some("allowRule")),
        "{doc}"
    );
    assert!(doc.get("untrustedRules").is_none(), "{doc}");
    ctx.call("Bash", json!({"command": "touch made-by-rule"}))
        .success();
    assert!(ctx.work.join("made-by-rule").exists());

    // Changed: untrusted again until trusted anew.
    write(
        &rules,
        r#"{"allow":[{"toolName":"*","key":"*"}],"deny":[]}"#,
    );
    let doc = check_json(&ctx, &["Read", &read]);
    assert_eq!(doc["decision"], "ask", "{doc}");
    assert_eq!(doc["untrustedRules"]["changed"], true, "{doc}");
    let out = ctx.run(&["policy", "trust", "--list"]);
    out.success();
    assert_eq!(
        ctx.filter(&out.stdout()).split('\t').next(),
        Some("changed"),
        "{out}"
    );
    let out = ctx.run(&["policy", "trust", "--yes", ctx.work.to_str().unwrap()]);
    out.success();
    assert!(
        out.stdout().starts_with("✓ Trusted the new contents of"),
        "{out}"
    );
    assert_eq!(check_json(&ctx, &["Read", &read])["decision"], "allow");
    let listed = ctx.run(&["--json", "policy", "trust", "--list"]);
    listed.success();
    assert_eq!(listed.json()[0]["state"], "trusted", "{listed}");
    // The text listing shortens the sum as git shortens a commit; --json keeps all 64.
    let full = listed.json()[0]["sha256"].as_str().unwrap().to_string();
    assert_eq!(full.len(), 64);
    let out = ctx.run(&["policy", "trust", "--list"]);
    assert_eq!(
        ctx.filter(&out.stdout()),
        format!(
            "trusted\t[BASE]/work/.finch/permissions.json\t{}\t{}\n",
            &full[..12],
            listed.json()[0]["trustedAt"].as_str().unwrap()
        )
    );

    // Revoked: untrusted again; revoking twice is "not found".
    ctx.run(&["policy", "trust", "--revoke"]).success();
    assert_eq!(check_json(&ctx, &["Read", &read])["decision"], "ask");
    let again = ctx.run(&["policy", "trust", "--revoke"]);
    again.failure(3);
    again.stderr_has("is not trusted");
}

#[test]
fn untrusted_deny_and_ask_rules_still_apply() {
    let ctx = TestContext::new();
    write(
        &ctx.work.join(".finch/permissions.json"),
        r#"{"allow":[{"toolName":"Bash","key":"*"}],"deny":[{"toolName":"Bash","key":"touch"}],
            "ask":[{"toolName":"Read","key":"*.md"}]}"#,
    );
    let doc = check_json(&ctx, &["Bash", r#"{"command":"touch x"}"#]);
    assert_eq!(doc["decidedBy"], "denyRule", "{doc}");
    let doc = check_json(
        &ctx,
        &["Read", r#"{"file_path":"a.md"}"#, "--mode", "acceptCalls"],
    );
    assert_eq!(doc["decidedBy"], "askRule", "{doc}");
    assert_eq!(doc["untrustedRules"]["ignoredAllowRules"], 1, "{doc}");
}

#[test]
fn an_ancestors_rules_never_apply() {
    let ctx = TestContext::new();
    // `/tmp/.finch/…` governing `/tmp/some/project`.
    write(&ctx.work.join(".finch/permissions.json"), ALLOW_ALL);
    let project = ctx.work.join("some/project");
    std::fs::create_dir_all(&project).unwrap();
    ctx.run(&["policy", "trust", "--yes"]).success();
    let doc = check_json(
        &ctx,
        &[
            "Bash",
            r#"{"command":"touch x"}"#,
            "--cwd",
            project.to_str().unwrap(),
        ],
    );
    assert_eq!(doc["decision"], "ask", "{doc}");
    assert!(doc.get("untrustedRules").is_none(), "{doc}");
    // Inside a git work tree the top level is the project, wherever the rules sit below it.
    std::fs::create_dir_all(project.join(".git")).unwrap();
    write(&project.join("src/.finch/permissions.json"), ALLOW_ALL);
    let out = ctx.run(&["policy", "trust", project.join("src").to_str().unwrap()]);
    out.failure(3);
    out.stderr_has("some/project has no rules file");
}

#[test]
fn trust_refuses_what_it_cannot_trust() {
    let ctx = TestContext::new();
    let out = ctx.run(&["policy", "trust", "nowhere"]);
    out.failure(3);
    out.stderr_has("no such directory");
    write(&ctx.work.join(".finch/permissions.json"), "{\"allow\": [");
    let out = ctx.run(&["policy", "trust"]);
    out.failure(1);
    out.stderr_has("is not a valid permission rules file");
    assert!(!ctx.runtime.join("trusted-rules.json").exists());
    let out = ctx.run(&["policy", "trust", "--list"]);
    out.success();
    out.stderr_has("No trusted rules files");
    std::fs::create_dir_all(&ctx.runtime).unwrap();
    std::fs::write(ctx.runtime.join("trusted-rules.json"), "{\"rules\": 3}").unwrap();
    let out = ctx.run(&["--json", "policy", "trust", "--list"]);
    out.failure(1);
    assert_eq!(out.json()["error"]["code"], "corrupt_state", "{out}");
}

/// Each field an auto-allowed dispatcher could widen the session with, through
/// `finch policy check`, against tasks and a space a person made with the CLI:
/// `(tool, args, mode, widens)`.
#[test]
fn dispatcher_fields_that_widen_the_session_take_a_card() {
    let ctx = TestContext::new();
    let made = |args: &[&str]| {
        let out = ctx.run(args);
        out.success();
        out.json()["id"].as_str().unwrap().to_string()
    };
    let work = ctx.work.to_str().unwrap();
    let wide = made(&[
        "--json",
        "schedule",
        "create",
        "--name",
        "wide",
        "--prompt",
        "p",
        "--daily",
        "09:00",
        "--cwd",
        "/",
        "--mode",
        "acceptCalls",
    ]);
    let narrow = made(&[
        "--json", "schedule", "create", "--name", "narrow", "--prompt", "p", "--daily", "09:00",
        "--cwd", work, "--mode", "ask",
    ]);
    ctx.run(&["space", "create", "Inbox"]).success();
    let cases = [
        (
            "Schedule",
            json!({"action": "create", "name": "n", "prompt": "p", "daily": "09:00", "cwd": "/", "mode": "acceptCalls"}),
            "ask",
            true,
        ),
        (
            "Schedule",
            json!({"action": "create", "daily": "09:00", "cwd": ".", "mode": "acceptCalls"}),
            "ask",
            true,
        ),
        (
            "Schedule",
            json!({"action": "create", "daily": "09:00", "cwd": "."}),
            "ask",
            true,
        ),
        (
            "Schedule",
            json!({"action": "create", "daily": "09:00", "cwd": ".", "mode": "ask"}),
            "ask",
            false,
        ),
        (
            "Schedule",
            json!({"action": "create", "daily": "09:00", "cwd": "/", "mode": "ask"}),
            "acceptCalls",
            true,
        ),
        (
            "Schedule",
            json!({"action": "create", "daily": "09:00", "space": "Inbox", "mode": "ask"}),
            "ask",
            true,
        ),
        (
            "Schedule",
            json!({"action": "create", "daily": "09:00", "mode": "ask"}),
            "ask",
            true,
        ),
        (
            "Schedule",
            json!({"action": "update", "id": narrow, "mode": "acceptCalls"}),
            "ask",
            true,
        ),
        (
            "Schedule",
            json!({"action": "update", "id": narrow, "cwd": "/"}),
            "acceptCalls",
            true,
        ),
        (
            "Schedule",
            json!({"action": "update", "id": narrow, "space": "Inbox"}),
            "acceptCalls",
            true,
        ),
        (
            "Schedule",
            json!({"action": "update", "id": narrow, "prompt": "x"}),
            "ask",
            false,
        ),
        (
            "Schedule",
            json!({"action": "update", "id": narrow, "daily": "10:00"}),
            "ask",
            false,
        ),
        (
            "Schedule",
            json!({"action": "update", "id": wide, "prompt": "x"}),
            "acceptCalls",
            true,
        ),
        (
            "Schedule",
            json!({"action": "update", "id": wide, "daily": "10:00"}),
            "ask",
            false,
        ),
        (
            "Schedule",
            json!({"action": "run", "id": wide}),
            "ask",
            true,
        ),
        (
            "Schedule",
            json!({"action": "run", "id": wide}),
            "acceptCalls",
            true,
        ),
        (
            "Schedule",
            json!({"action": "enable", "id": wide}),
            "ask",
            true,
        ),
        (
            "Schedule",
            json!({"action": "run", "id": narrow}),
            "ask",
            false,
        ),
        (
            "Schedule",
            json!({"action": "disable", "id": wide}),
            "ask",
            false,
        ),
        ("Schedule", json!({"action": "list"}), "ask", false),
        (
            "AppCall",
            json!({"action": "createSpace", "name": "x", "dir": "/"}),
            "ask",
            true,
        ),
        (
            "AppCall",
            json!({"action": "createSpace", "name": "x", "dir": "."}),
            "ask",
            false,
        ),
        (
            "Skills",
            json!({"action": "invoke", "name": "x"}),
            "ask",
            false,
        ),
    ];
    let mut failures = Vec::new();
    for (tool, args, mode, widens) in cases {
        let doc = check_json(&ctx, &[tool, &args.to_string(), "--mode", mode]);
        let got = (doc["decision"].as_str(), doc["decidedBy"].as_str());
        let want = if widens {
            (Some("ask"), Some("dispatcherWidens"))
        } else {
            (Some("allow"), Some("autoAllow"))
        };
        if got != want || (widens && doc["sessionAllowOffered"] != false) {
            failures.push(format!("{tool} {args} {mode}: {doc}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn the_schedule_escalation_takes_a_card_and_creates_nothing() {
    let ctx = TestContext::new();
    let out = ctx.call(
        "Schedule",
        json!({"action": "create", "name": "x", "prompt": "do it", "daily": "09:00", "cwd": "/", "mode": "acceptCalls"}),
    );
    out.failure(4);
    let record = out.json();
    assert_eq!(record["decision"], "deny", "{out}");
    assert!(
        record["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .contains("acceptCalls"),
        "{out}"
    );
    assert!(!ctx.runtime.join("automation/tasks.json").exists());
    // A task in the session's own mode and directory still needs no card.
    let out = ctx.call(
        "Schedule",
        json!({"action": "create", "name": "x", "prompt": "do it", "daily": "09:00", "cwd": ".", "mode": "ask"}),
    );
    out.success();
    assert_eq!(out.json()["decidedBy"], "autoAllow", "{out}");
}

#[cfg(unix)]
#[test]
fn a_directory_install_with_a_link_chain_writes_nothing_outside() {
    use std::os::unix::fs::symlink;
    let ctx = TestContext::new();
    // The victim sits beside the package's parent, where the chain leads.
    let victim = ctx.base().join("victim");
    std::fs::write(&victim, "precious\n").unwrap();
    let pkg = ctx.base().join("pkgs/evil");
    std::fs::create_dir_all(pkg.join("x/y")).unwrap();
    crate::common::fixtures::MiniTool::new("evil", "1.0.0").write_to(&pkg);
    // x/y/s -> ../.. (the package root); t1 -> s/.. (above it); tN -> t(N-1)/.. …
    symlink("../..", pkg.join("x/y/s")).unwrap();
    symlink("s/..", pkg.join("x/y/t1")).unwrap();
    for n in 2..=30 {
        symlink(format!("t{}/..", n - 1), pkg.join(format!("x/y/t{n}"))).unwrap();
    }
    // Deep enough that `t30` really is `/`: the marker would land on the victim.
    let rel_victim = victim.strip_prefix("/").unwrap();
    symlink(Path::new("x/y/t30").join(rel_victim), pkg.join(".finch-id")).unwrap();
    let out = ctx.run(&["add", pkg.to_str().unwrap()]);
    out.failure(1);
    out.stderr_has("package entry \"x/y/t");
    out.stderr_has("outside the package");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    let tier = ctx.agent.join(".finch/extensions");
    let left: Vec<_> = std::fs::read_dir(&tier)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        left.iter().all(|n| n.to_string_lossy().starts_with('.')),
        "nothing installed: {left:?}"
    );
}

#[cfg(unix)]
#[test]
fn finch_never_writes_its_marker_through_a_link_in_the_package() {
    let ctx = TestContext::new();
    let pkg = ctx.base().join("pkgs/marker");
    crate::common::fixtures::MiniTool::new("marker", "1.0.0").write_to(&pkg);
    std::fs::write(pkg.join("notes.txt"), "mine\n").unwrap();
    // A link that stays inside: finch's own write of `.finch-id` still must not follow it.
    std::os::unix::fs::symlink("notes.txt", pkg.join(".finch-id")).unwrap();
    let out = ctx.run(&["add", pkg.to_str().unwrap()]);
    out.failure(1);
    out.stderr_has("package entry \".finch-id\" is a link or not a regular file");
    assert_eq!(
        std::fs::read_to_string(pkg.join("notes.txt")).unwrap(),
        "mine\n"
    );
}

#[test]
fn protected_names_in_any_case_take_a_card_under_an_allow_everything_rule() {
    let ctx = TestContext::new();
    // The workspace is $HOME: the user's persistence points are inside it. The user's own
    // rules (trusted as they are) allow everything.
    write(
        &ctx.home.join(".git/config"),
        "[core]\n\thooksPath = tools/hooks\n",
    );
    write(&ctx.runtime.join("config/permissions.json"), ALLOW_ALL);
    let home = ctx.home.to_str().unwrap();
    let mut failures = Vec::new();
    for path in [
        ".GIT/config",
        ".FINCH/permissions.json",
        ".Bashrc",
        ".githooks/pre-commit",
        ".Husky/pre-commit",
        "tools/hooks/pre-commit",
        "Tools/Hooks/post-checkout",
        ".hg/hgrc",
        ".vscode/tasks.json",
        ".vscode/settings.json",
        ".envrc",
        ".yarnrc.yml",
        ".bash_aliases",
        ".bashrc.d/10-x.sh",
        ".ssh/authorized_keys",
        ".ssh/rc",
        ".local/bin/ls",
        ".local/lib/python3.12/site-packages/usercustomize.py",
        ".config/autostart/x.desktop",
        ".config/systemd/user/x.service",
        ".gnupg/gpg.conf",
    ] {
        let args = json!({"file_path": path, "content": "x"}).to_string();
        for tool in ["Write", "Edit"] {
            let doc = check_json(&ctx, &[tool, &args, "--mode", "acceptCalls", "--cwd", home]);
            if doc["decidedBy"] != "protectedPath"
                || doc["risk"] != "high"
                || doc["sessionAllowOffered"] != false
            {
                failures.push(format!("{tool} {path}: {doc}"));
            }
        }
    }
    // The same rule lets an ordinary file through.
    let doc = check_json(
        &ctx,
        &["Write", r#"{"file_path":"notes.txt"}"#, "--cwd", home],
    );
    assert_eq!(doc["decision"], "allow", "{doc}");
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn the_destructive_commands_of_the_issue_are_high() {
    let ctx = TestContext::new();
    let mut failures = Vec::new();
    for command in ISSUE_COMMANDS {
        let doc = check_json(&ctx, &["Bash", &json!({ "command": command }).to_string()]);
        if doc["risk"] != "high"
            || doc["destructive"] != true
            || doc["sessionAllowOffered"] != false
            || doc["decision"] != "ask"
        {
            failures.push(format!("{command}: {doc}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The commands of the issue's "Risk labels" bullet, every family in the spellings it names.
const ISSUE_COMMANDS: &[&str] = &[
    "rm victim/*",
    "unlink victim/f",
    "find victim -type f -exec rm {} +",
    "ls victim | xargs rm",
    "> victim/f",
    "cp /dev/null victim/f",
    "sed -i d victim/f",
    "ln -sf /dev/null victim/f",
    "mv -f a victim/f",
    "git checkout HEAD victim/f",
    "git reset --keep HEAD~1",
    "git update-ref -d refs/heads/main",
    "git reflog expire --expire=now --all",
    "git gc --prune=now",
    "git commit --amend -m x",
    "git filter-branch --index-filter 'git rm --cached x' HEAD",
    "busybox rm -rf victim",
    "taskset 1 rm -rf victim",
    "chrt 0 rm -rf victim",
    "unshare rm -rf victim",
    "setpriv --reuid=1000 rm -rf victim",
    "script -c 'rm -rf victim'",
    "python3 -c \"import shutil; shutil.rmtree('victim')\"",
    "node -e \"require('fs').rmSync('victim', {recursive: true})\"",
    "git -c alias.x='!rm -rf victim' x",
    "crontab -r",
    "kill -9 -1",
    "shutdown now",
    "docker system prune -af",
    "kubectl delete ns prod",
    "terraform destroy",
    "aws s3 rm s3://bucket --recursive",
    "psql -c 'DROP DATABASE prod'",
    "redis-cli FLUSHALL",
];

/// `finch tool call` in a terminal.
fn card_for(ctx: &TestContext, tool: &str, args: Value) -> Pty {
    Pty::spawn(ctx, &["tool", "call", tool, &args.to_string(), "--json"])
}

#[test]
fn the_tail_of_a_long_command_is_on_the_card() {
    let ctx = TestContext::new();
    let command = format!(
        "make -n test; echo '{}'; python3 -c 'open(\"pwned\", \"w\")'",
        "x".repeat(150)
    );
    let mut pty = card_for(&ctx, "Bash", json!({ "command": command }));
    // The whole card, up to the end of its footer, before a key is typed.
    let card = pty.expect("5m.");
    let flat: String = card
        .lines()
        .map(|l| l.trim_end_matches('\r').trim())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(flat.contains("pwned"), "the tail is shown:\n{card}");
    assert!(
        flat.contains("characters"),
        "the card says how long it is:\n{card}"
    );
    pty.send("n");
    assert_eq!(pty.finish().0, 4);
    assert!(!ctx.work.join("pwned").exists());
}

#[test]
fn a_very_long_command_is_paged_to_its_last_character() {
    let ctx = TestContext::new();
    let command = format!("true {}; touch TAILMARK", "word ".repeat(700));
    let mut pty = card_for(&ctx, "Bash", json!({ "command": command }));
    let first = pty.expect("to page through the command.");
    let length = format!("{} characters", command.chars().count());
    assert!(first.contains(&length), "{first}");
    assert!(first.contains("page 1 of"), "{first}");
    assert!(!first.contains("TAILMARK"), "one page at a time:\n{first}");
    let pages: usize = first
        .split("page 1 of ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("page count");
    for _ in 1..pages {
        pty.send(">");
    }
    let last = pty.expect("TAILMARK");
    assert!(last.contains(&format!("page {pages} of {pages}")), "{last}");
    pty.expect("to page through the command.");
    pty.send("n");
    assert_eq!(pty.finish().0, 4);
    assert!(!ctx.work.join("TAILMARK").exists());
}

#[test]
fn a_session_allow_stops_at_its_directory() {
    let ctx = TestContext::new();
    for d in ["a/b", "c"] {
        std::fs::create_dir_all(ctx.work.join(d)).unwrap();
    }
    let mut pty = Pty::spawn(&ctx, &["run"]);
    pty.send("Write {\"file_path\":\"a/x.txt\",\"content\":\"1\"}\n");
    let card = pty.expect("5m.");
    assert!(card.contains("Write in a and below"), "{card}");
    pty.send("s");
    pty.expect("Allowed for this session");
    pty.send("Write {\"file_path\":\"a/b/y.txt\",\"content\":\"2\"}\n");
    pty.send("Write {\"file_path\":\"c/z.txt\",\"content\":\"3\"}\n");
    pty.expect("Write in c and below");
    pty.expect("5m.");
    pty.send("n");
    pty.expect("finch> ");
    pty.send("/quit\n");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
    assert!(ctx.work.join("a/x.txt").exists() && ctx.work.join("a/b/y.txt").exists());
    assert!(!ctx.work.join("c/z.txt").exists());
    let transcripts = ctx.transcripts();
    let decided: Vec<String> = ctx
        .tool_calls(&transcripts[0])
        .iter()
        .map(|c| c["decidedBy"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        decided,
        ["card:allowForSession", "sessionAllow", "card:deny"]
    );
}

#[test]
fn a_high_risk_card_never_offers_a_session_allow() {
    let ctx = TestContext::new();
    let outside = ctx.base().join("outside.txt");
    let doc = check_json(
        &ctx,
        &[
            "Write",
            &json!({"file_path": outside, "content": "x"}).to_string(),
        ],
    );
    assert_eq!(
        (doc["risk"].as_str(), doc["sessionAllowOffered"].as_bool()),
        (Some("high"), Some(false)),
        "{doc}"
    );
}

/// On a terminal, trusting names what the rules turn on and asks: "n" records nothing and
/// exits 1, "y" trusts; the broad Bash rule of the issue is said in words.
#[test]
fn trust_on_a_terminal_shows_the_rules_and_asks() {
    let ctx = TestContext::new();
    write(
        &ctx.work.join(".finch/permissions.json"),
        r#"{"allow":[{"toolName":"Bash","key":"*"},{"toolName":"Read","key":"src/**"},{"toolName":"Bash","key":"npm test"}]}"#,
    );
    let question = format!(
        "Trust {}? [y/N] ",
        ctx.work.join(".finch/permissions.json").display()
    );
    let mut pty = Pty::spawn(&ctx, &["policy", "trust"]);
    let shown = pty.expect(&question);
    let shown = ctx.filter(&shown.replace("\r\n", "\n"));
    assert_eq!(
        shown,
        "Trusting [BASE]/work/.finch/permissions.json lets the model, without asking:\n  • run any \
         shell command (Bash *)\n  • read files matching `src/**` (Read src/**)\n  • run shell \
         commands that start with `npm test` (Bash npm test)\nTrust \
         [BASE]/work/.finch/permissions.json? [y/N] "
    );
    pty.send("n\r");
    let (code, rest) = pty.finish();
    assert_eq!(code, 1, "{rest}");
    // The terminal may echo the answer before or after the question was read.
    assert_eq!(
        rest.replace("\r\n", "\n").trim_start_matches("n\n"),
        "Error: not trusted: nothing was recorded, and its allow rules stay ignored\n"
    );
    assert!(!ctx.runtime.join("trusted-rules.json").exists());

    let mut pty = Pty::spawn(&ctx, &["policy", "trust"]);
    pty.expect(&question);
    pty.send("y\r");
    let (code, rest) = pty.finish();
    assert_eq!(code, 0, "{rest}");
    assert!(rest.contains("✓ Trusted "), "{rest}");
    let recorded = ctx.read_json(&ctx.runtime.join("trusted-rules.json"));
    assert_eq!(recorded["rules"].as_array().map(Vec::len), Some(1));
    // Trusting the same contents again asks nothing.
    let out = ctx.run(&["policy", "trust"]);
    out.success();
    assert_eq!(out.stderr(), "");
}
