//! Dynamic completions (clap_complete's engine): the script `finch completions bash` prints is
//! sourced into a real bash, and the same protocol is asked as zsh and fish ask it, for each
//! kind of value that depends on what is installed.

use std::process::Command;

use serde_json::json;

use crate::common::TestContext;

/// What `COMPLETE=<shell> finch -- <words>` answers, as the shell's script asks it: the
/// values, one per line (zsh and fish add `:help` / `\thelp`, dropped here).
fn ask(ctx: &TestContext, shell: &str, words: &[&str]) -> Vec<String> {
    let mut cmd = ctx.std_cmd();
    cmd.env("COMPLETE", shell)
        .env("_CLAP_COMPLETE_INDEX", (words.len() - 1).to_string())
        .env("_CLAP_IFS", "\n")
        .arg("--")
        .args(words);
    let out = cmd.output().expect("finch runs");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .split(['\n', '\u{b}'])
        .filter(|l| !l.is_empty())
        .map(|l| {
            let value = match shell {
                "fish" => l.split('\t').next().unwrap_or(l),
                // zsh's `value:help`, a colon in the value written `\:`.
                "zsh" => {
                    let end = l
                        .char_indices()
                        .find(|&(i, c)| c == ':' && !l[..i].ends_with('\\'))
                        .map_or(l.len(), |(i, _)| i);
                    return l[..end].replace("\\:", ":");
                }
                _ => l,
            };
            value.to_string()
        })
        .collect()
}

/// A mini tool, a task, a session and a space, so every kind has something to offer.
fn state() -> (TestContext, String, String) {
    let ctx = TestContext::new();
    let src = ctx.work.join("weather-src");
    crate::common::fixtures::MiniTool::new("weather", "1.0.0").write_to(&src);
    ctx.run(&["add", src.to_str().unwrap()]).success();
    let task = ctx
        .run(&[
            "--json", "schedule", "create", "--name", "Digest", "--prompt", "p", "--daily", "08:00",
        ])
        .success()
        .json();
    let task = task["id"].as_str().unwrap().to_string();
    ctx.call("ToolSearch", json!({"query": "files"})).success();
    let sessions = ctx.run(&["--json", "session", "list"]).success().json();
    let session = sessions[0]["shortId"].as_str().unwrap().to_string();
    ctx.run(&["space", "create", "Travel"]).success();
    (ctx, task, session)
}

#[test]
fn the_engine_offers_what_is_there_to_zsh_and_fish() {
    let (ctx, task, session) = state();
    for shell in ["zsh", "fish", "bash"] {
        let cases: [(&[&str], &str); 6] = [
            (&["finch", "enable", ""], "weather"),
            (&["finch", "remove", "wea"], "weather"),
            (&["finch", "schedule", "run", ""], task.as_str()),
            (&["finch", "session", "show", ""], session.as_str()),
            (&["finch", "tool", "call", "Re"], "Read"),
            (
                &["finch", "memory", "remember", "x", "--to", ""],
                "space:Travel",
            ),
        ];
        for (words, want) in cases {
            let offered = ask(&ctx, shell, words);
            assert!(
                offered.iter().any(|o| o == want),
                "{shell}: {words:?} offers {offered:?}, not {want}"
            );
        }
        // Commands and their aliases still complete.
        assert!(ask(&ctx, shell, &["finch", "ins"]).contains(&"install".to_string()));
    }
}

#[test]
fn bash_completes_installed_ids_through_the_printed_script() {
    let (ctx, _, _) = state();
    let script = ctx.run(&["completions", "bash"]).success().stdout();
    assert!(script.contains("COMPLETE"), "a dynamic script:\n{script}");
    let script_path = ctx.base().join("finch.bash");
    std::fs::write(&script_path, script).unwrap();
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_finch"))
        .parent()
        .unwrap();
    // What bash does on Tab after `finch enable `: the registered function fills COMPREPLY.
    let probe = format!(
        "source {}; COMP_LINE='finch enable '; COMP_POINT=13; COMP_WORDS=(finch enable ''); COMP_CWORD=2; COMP_TYPE=9; \
         _clap_complete_finch finch '' enable; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script_path.display()
    );
    let out = Command::new("bash")
        .arg("--norc")
        .arg("-c")
        .arg(&probe)
        .env_clear()
        .env("HOME", &ctx.home)
        .env("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()))
        .env("FINCH_RUNTIME_HOME", &ctx.runtime)
        .env("FINCH_AGENT_HOME", &ctx.agent)
        .current_dir(&ctx.work)
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout.lines().any(|l| l.trim() == "weather"),
        "bash offers: {stdout:?} ({})",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_completion_with_unreadable_state_offers_nothing_and_no_error() {
    let ctx = TestContext::new();
    std::fs::create_dir_all(ctx.runtime.join("automation")).unwrap();
    std::fs::write(ctx.runtime.join("automation/tasks.json"), "{ not json").unwrap();
    let mut cmd = ctx.std_cmd();
    let out = cmd
        .env("COMPLETE", "fish")
        .args(["--", "finch", "schedule", "run", ""])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
}

/// Issue 31, item 7: where a path goes (`add`, `doctor`, `--minitool`), Tab offers paths.
#[test]
fn paths_complete_for_add_doctor_and_minitool() {
    let ctx = TestContext::new();
    std::fs::create_dir_all(ctx.work.join("example-tool")).unwrap();
    std::fs::write(ctx.work.join("example.tgz"), b"").unwrap();
    for shell in ["zsh", "fish", "bash"] {
        let cases: [(&[&str], &[&str]); 4] = [
            (
                &["finch", "add", "./exa"],
                &["./example-tool/", "./example.tgz"],
            ),
            (&["finch", "doctor", "exa"], &["example-tool/"]),
            (&["finch", "run", "--minitool", "exa"], &["example-tool/"]),
            (
                &["finch", "tool", "call", "--minitool", "exa"],
                &["example-tool/"],
            ),
        ];
        for (words, want) in cases {
            let mut offered = ask(&ctx, shell, words);
            offered.sort();
            assert_eq!(offered, want.to_vec(), "{shell}: {words:?}");
        }
    }
}

/// Issue 31, item 7: flags are offered once a `-` is typed, not before: an empty word offers
/// the values and subcommands that go there.
#[test]
fn flags_are_offered_only_after_a_dash() {
    let (ctx, task, _) = state();
    for shell in ["zsh", "fish", "bash"] {
        let offered = ask(&ctx, shell, &["finch", "schedule", "run", ""]);
        assert_eq!(offered, [task.as_str(), "Digest"], "{shell}");
        let offered = ask(&ctx, shell, &["finch", "schedule", ""]);
        assert!(
            offered.contains(&"create".to_string()),
            "{shell}: {offered:?}"
        );
        assert!(
            !offered.iter().any(|o| o.starts_with('-')),
            "{shell}: {offered:?}"
        );
        let offered = ask(&ctx, shell, &["finch", "schedule", "run", "-"]);
        for flag in ["--json", "-h"] {
            assert!(offered.contains(&flag.to_string()), "{shell}: {offered:?}");
        }
        let offered = ask(&ctx, shell, &["finch", "tool", "call", "Read", "--ap"]);
        assert_eq!(offered, ["--approve", "--approve-unconfined"], "{shell}");
    }
}

/// Where only flags could follow (`finch where`, a list without arguments), Tab offers nothing
/// until a `-` is typed. Before: clap's engine offered the hidden flags, `--version` among
/// them, where it had nothing else.
#[test]
fn where_only_flags_fit_nothing_is_offered_before_a_dash() {
    let (ctx, _, _) = state();
    for shell in ["zsh", "fish", "bash"] {
        for words in [
            &["finch", "where", ""][..],
            &["finch", "space", "list", ""],
            &["finch", "memory", "list", "--scope", "all", ""],
        ] {
            assert_eq!(
                ask(&ctx, shell, words),
                Vec::<String>::new(),
                "{shell} {words:?}"
            );
        }
        let offered = ask(&ctx, shell, &["finch", "where", "-"]);
        assert!(
            offered.contains(&"--json".to_string()),
            "{shell}: {offered:?}"
        );
        let offered = ask(&ctx, shell, &["finch", "space", "list", "--hea"]);
        assert_eq!(offered, ["--header"], "{shell}");
    }
}

/// Issue 31, item 7: after the tool of `tool call`, Tab offers the tool's argument names from
/// its schema (`key=`, required first, those given left out), and an enum's values after
/// `key=`; flags before the tool are skipped.
#[test]
fn tool_call_offers_the_tools_argument_names() {
    let ctx = TestContext::new();
    for shell in ["zsh", "fish", "bash"] {
        let offered = ask(&ctx, shell, &["finch", "tool", "call", "Read", ""]);
        assert_eq!(
            offered,
            ["file_path=", "offset=", "limit=", "pages="],
            "{shell}"
        );
        let offered = ask(
            &ctx,
            shell,
            &[
                "finch",
                "tool",
                "call",
                "--mode",
                "ask",
                "Read",
                "file_path=a",
                "o",
            ],
        );
        assert_eq!(offered, ["offset="], "{shell}");
        let offered = ask(
            &ctx,
            shell,
            &["finch", "tool", "call", "Memory", "action=s"],
        );
        assert_eq!(offered, ["action=search", "action=show"], "{shell}");
        let offered = ask(&ctx, shell, &["finch", "tool", "call", "NoSuchTool", ""]);
        assert!(
            offered.iter().all(|o| o.starts_with('-')),
            "{shell}: {offered:?}"
        );
    }
}

/// `bash -i` in a terminal `cols` wide, the script `finch completions bash` prints sourced from
/// its rc file, finch on its PATH: a person's shell.
fn bash_in_a_terminal(ctx: &TestContext, cols: u16) -> crate::cards::Pty {
    let script = ctx.run(&["completions", "bash"]).success().stdout();
    let script_path = ctx.base().join("finch.bash");
    std::fs::write(&script_path, script).unwrap();
    let rc = ctx.base().join("bashrc");
    std::fs::write(
        &rc,
        // The pseudo-terminal starts without echo, and readline shows what is typed only on
        // a terminal that echoes.
        format!("stty echo\nPS1='$ '\nsource {}\n", script_path.display()),
    )
    .unwrap();
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_finch"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let args: Vec<std::ffi::OsString> = vec![
        "--noprofile".into(),
        "--rcfile".into(),
        rc.into_os_string(),
        "-i".into(),
    ];
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let width = cols.to_string();
    let mut pty = crate::cards::Pty::spawn_program(
        ctx,
        "bash".as_ref(),
        &args,
        &[("PATH", &path), ("TERM", "xterm"), ("COLUMNS", &width)],
    );
    pty.resize(cols, 24);
    pty.expect("$ ");
    pty
}

/// Types `line`, then Tab Tab; the screen once bash has listed what it offers and drawn the
/// line again.
fn tab_tab(ctx: &TestContext, cols: u16, line: &str) -> String {
    let mut pty = bash_in_a_terminal(ctx, cols);
    pty.send(line);
    pty.send("\t\t");
    // The line as typed (after the prompt already seen), then again under the list.
    pty.expect(line);
    pty.expect(&format!("$ {line}"));
    let rows = crate::screen::rows(pty.seen(), cols, 24);
    pty.send("\x15exit\r");
    rows.iter()
        .map(|r| format!("{r:w$}|", w = usize::from(cols)))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn bash_tab_tab_completes_where_you_type() {
    let (ctx, _, _) = state();
    for id in ["alpha", "beta"] {
        let src = ctx.work.join(format!("{id}-src"));
        crate::common::fixtures::MiniTool::new(id, "1.0.0").write_to(&src);
        ctx.run(&["add", src.to_str().unwrap()]).success();
    }
    for cols in [60u16, 100] {
        // bash splits `action=` at `=` (COMP_WORDBREAKS): the values still come.
        insta::assert_snapshot!(
            format!("bash_enum_values_{cols}"),
            tab_tab(&ctx, cols, "finch tool call Memory action=")
        );
        insta::assert_snapshot!(
            format!("bash_enum_values_begun_{cols}"),
            tab_tab(&ctx, cols, "finch tool call Memory action=s")
        );
        insta::assert_snapshot!(
            format!("bash_argument_names_{cols}"),
            tab_tab(&ctx, cols, "finch tool call Read ")
        );
        // An id typed already is not offered again.
        insta::assert_snapshot!(
            format!("bash_ids_not_typed_{cols}"),
            tab_tab(&ctx, cols, "finch enable weather ")
        );
    }
    // A task by its name: one candidate, completed in place.
    let mut pty = bash_in_a_terminal(&ctx, 100);
    pty.send("finch schedule run Dig\t");
    pty.expect("run Digest ");
    pty.send("\x15exit\r");
}

#[test]
fn task_names_are_offered_beside_their_ids() {
    let (ctx, task, _) = state();
    for shell in ["zsh", "fish", "bash"] {
        let offered = ask(&ctx, shell, &["finch", "schedule", "run", ""]);
        assert_eq!(offered, [task.as_str(), "Digest"], "{shell}");
    }
}

/// A mini tool whose one tool, `greeter_greet`, takes `name` (required) and `loud`.
fn greeter(ctx: &TestContext) {
    let src = ctx.work.join("greeter-src");
    crate::common::fixtures::MiniTool::new("greeter", "1.0.0")
        .entry_source(
            "export async function activate(ctx) {\n  ctx.tools.register({ name: \"greet\", \
             description: \"Greets\", inputSchema: { type: \"object\", properties: { name: \
             { type: \"string\", description: \"Who to greet\" }, loud: { type: \"boolean\" } }, \
             required: [\"name\"] }, execute: async (i) => `Hello, ${i.name}!` });\n}\n",
        )
        .write_to(&src);
    ctx.run(&["add", src.to_str().unwrap()]).success();
}

/// Issue 43, item 4: a mini tool's argument names complete though no `finch reload` ever wrote
/// the catalog cache: `enable` and `tool call` write the tools they start into it, and
/// completion, which never starts anything, reads it. Through bash's real script, Tab.
#[test]
fn a_mini_tools_arguments_complete_once_reload_or_a_call_started_it() {
    let ctx = TestContext::new();
    greeter(&ctx);
    let cache = ctx.runtime.join("cache").join("catalog.json");
    let line = ["finch", "tool", "call", "greeter_greet", ""];
    // Installed, never started: nothing knows its schema.
    let flags_only = |offered: Vec<String>| offered.iter().all(|o| o.starts_with('-'));
    assert!(flags_only(ask(&ctx, "bash", &line)));
    // Enabling runs no package code, so it learns nothing; a reload starts it.
    ctx.run(&["enable", "greeter"]).success();
    assert!(flags_only(ask(&ctx, "bash", &line)));
    ctx.run(&["reload"]).success();
    assert!(cache.is_file(), "reload wrote no catalog cache");
    for shell in ["zsh", "fish", "bash"] {
        assert_eq!(ask(&ctx, shell, &line), ["name=", "loud="], "{shell}");
    }
    for cols in [60u16, 100] {
        insta::assert_snapshot!(
            format!("bash_minitool_argument_names_{cols}"),
            tab_tab(&ctx, cols, "finch tool call greeter_greet ")
        );
    }
    let mut pty = bash_in_a_terminal(&ctx, 60);
    pty.send("finch tool call greeter_greet n\t");
    pty.expect("greeter_greet name=");
    pty.send("Ada l\t");
    pty.expect("loud=");
    pty.send("t\t");
    pty.expect("true ");
    pty.send("\x15exit\r");

    // Without the cache, a call writes it.
    std::fs::remove_file(&cache).unwrap();
    assert!(flags_only(ask(&ctx, "bash", &line)));
    ctx.run(&[
        "tool",
        "call",
        "greeter_greet",
        "name=Ada",
        "--approve",
        "greeter_greet",
    ])
    .success()
    .stdout_has("Hello, Ada!");
    assert_eq!(ask(&ctx, "bash", &line), ["name=", "loud="]);
}
