//! Tests of `finch list | enable | disable | remove` (SPEC §3.6): the tab-separated listing the app
//! parses, the table and `--json` forms, listings that survive broken entries, `extensions.json`
//! as the app writes it, the runtime home's lock, and what `remove` deletes and keeps.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::{Value, json};

use crate::common::fixtures::MiniTool;
use crate::common::{Run, TestContext};

/// finch's own line after the official note, for an installed mini tool.
fn finch_note(id: &str) -> String {
    format!(
        "  finch runs it held by the kernel to the permissions its manifest declares; `finch sandbox grant {id}` gives it more."
    )
}

const ENABLE_NOTE: &str = "  Note: CLI enable does not grant fine-grained permissions yet. Review extension permissions in Finch when available.";

/// Writes a mini tool source directory at `<work>/src/<package>` and returns it.
fn source(ctx: &TestContext, tool: MiniTool, package: &str) -> PathBuf {
    let dir = ctx.work.join("src").join(package);
    tool.write_to(&dir);
    dir
}

/// Writes `<work>/src/<package>` and runs `finch add <dir> <extra…>`, which must succeed.
fn add(ctx: &TestContext, package: &str, version: &str, name: &str, extra: &[&str]) -> PathBuf {
    let tool = MiniTool::new(package, version).display_name(name);
    let dir = source(ctx, tool, package);
    let mut args = vec!["add", path_str(&dir)];
    args.extend_from_slice(extra);
    ctx.run(&args).success();
    dir
}

/// `finch list --long` on a terminal wide enough that no column is cut.
/// `finch list --long` on a terminal 300 columns wide: what it shows (stdout and stderr, as a
/// terminal shows them), its temp paths as `[BASE]`.
fn long_list(ctx: &TestContext) -> String {
    list_at(ctx, 300)
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("test paths are UTF-8")
}

fn extensions_json(ctx: &TestContext) -> PathBuf {
    ctx.runtime.join("extensions.json")
}

fn read_text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// A `std::process::Command` for `program` with the sealed environment and working directory of
/// `ctx.cmd()`, for tests that spawn processes instead of running them one at a time.
fn sealed_command(ctx: &TestContext, program: impl AsRef<OsStr>) -> std::process::Command {
    let template = ctx.cmd();
    let mut cmd = std::process::Command::new(program);
    cmd.env_clear();
    for (key, value) in template.get_envs() {
        match value {
            Some(value) => cmd.env(key, value),
            None => cmd.env_remove(key),
        };
    }
    if let Some(dir) = template.get_current_dir() {
        cmd.current_dir(dir);
    }
    cmd
}

// ---------------------------------------------------------------------------------------------
// list

#[test]
fn list_of_an_empty_tier_says_so_on_stdout() {
    let ctx = TestContext::new();
    let out = ctx.run(&["list"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!(
            "No extensions installed in {}\n",
            ctx.personal_tier().display()
        ),
        "{out}"
    );
    assert_eq!(out.stderr(), "", "{out}");

    let out = ctx.run(&["list", "-g"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!(
            "No extensions installed in {}\n",
            ctx.global_tier().display()
        ),
        "{out}"
    );
}

#[test]
fn list_prints_one_tab_separated_line_per_tool() {
    let ctx = TestContext::new();
    add(&ctx, "weather", "1.0.0", "Weather", &[]);
    add(&ctx, "devtool", "0.3.1", "Dev Tool", &["-d"]);
    add(&ctx, "globe", "2.1.0", "Globe", &["-g"]);
    ctx.run(&["enable", "weather"]).success();

    let personal = ctx.personal_tier();
    let global = ctx.global_tier();
    let out = ctx.run(&["list"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!(
            "devtool\t0.3.1\tdisabled,linked\tDev Tool\t{}\n\
             weather\t1.0.0\tenabled\tWeather\t{}\n",
            personal.join("devtool").display(),
            personal.join("weather").display(),
        ),
        "{out}"
    );
    assert_eq!(out.stderr(), "", "{out}");

    let out = ctx.run(&["ls", "-g"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!(
            "globe\t2.1.0\tdisabled\tGlobe\t{}\n",
            global.join("globe").display()
        ),
        "{out}"
    );

    let out = ctx.run(&["list", "--all-tiers"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!(
            "devtool\t0.3.1\tdisabled,linked\tDev Tool\t{}\n\
             weather\t1.0.0\tenabled\tWeather\t{}\n\
             globe\t2.1.0\tdisabled\tGlobe\t{}\n",
            personal.join("devtool").display(),
            personal.join("weather").display(),
            global.join("globe").display(),
        ),
        "{out}"
    );

    // -g and --all-tiers contradict each other.
    ctx.run(&["list", "-g", "--all-tiers"]).failure(2);
}

#[test]
fn list_long_renders_an_aligned_table() {
    let ctx = TestContext::new();
    add(&ctx, "weather", "1.0.0", "Weather", &[]);
    add(&ctx, "devtool", "0.3.1", "Dev Tool", &["-d"]);
    ctx.run(&["enable", "devtool"]).success();

    // Wide enough that no cell is cut, whatever the temp dir is called.
    insta::assert_snapshot!(long_list(&ctx), @r"
    ID       VERSION  STATUS          NAME      PATH
    devtool  0.3.1    enabled,linked  Dev Tool  [BASE]/home/finchnest/.finch/extensions/devtool
    weather  1.0.0    disabled        Weather   [BASE]/home/finchnest/.finch/extensions/weather
    ");

    // Narrow: every line fits; the path, which must not be cut, is left out whole.
    let shown = list_at(&ctx, 60);
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines.len(), 3, "{shown}");
    assert!(lines.iter().all(|l| l.chars().count() <= 60), "{shown}");
    assert!(!shown.contains("PATH") && !shown.contains('…'), "{shown}");

    // On a pipe --long is tab-separated values, whole, without the header (issue 31).
    let out = ctx.run(&["list", "--long"]);
    out.success();
    assert_eq!(
        ctx.filter(&out.stdout()),
        "devtool\t0.3.1\tenabled,linked\tDev Tool\t[BASE]/home/finchnest/.finch/extensions/devtool\n\
         weather\t1.0.0\tdisabled\tWeather\t[BASE]/home/finchnest/.finch/extensions/weather\n",
        "{out}"
    );
}

/// Issue 31: `--all-tiers` with one tier empty said "No extensions installed in <global dir>"
/// above a table listing a personal tool, as if it spoke of that one. It names the tier now,
/// after the table; on a pipe the empty tier's line stays off stdout.
#[test]
fn all_tiers_names_the_empty_tier_after_the_table() {
    let ctx = TestContext::new();
    add(&ctx, "weather", "1.0.0", "Weather", &[]);
    let pty = crate::cards::Pty::spawn_env(&ctx, &["list", "--all-tiers"], &[("COLUMNS", "300")]);
    let (code, shown) = pty.finish();
    assert_eq!(code, 0, "{shown}");
    insta::assert_snapshot!(ctx.filter(&shown.replace('\r', "")), @r"
    ID       VERSION  STATUS    NAME     PATH
    weather  1.0.0    disabled  Weather  [BASE]/home/finchnest/.finch/extensions/weather
    No extensions installed in the global tier ([BASE]/home/.finch/extensions)
    ");
    let out = ctx.run(&["list", "--all-tiers"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!(
            "weather\t1.0.0\tdisabled\tWeather\t{}\n",
            ctx.personal_tier().join("weather").display()
        ),
        "{out}"
    );
    out.stderr_has("No extensions installed in the global tier (");
}

/// `finch list --long` on a terminal `columns` wide, as `long_list`.
fn list_at(ctx: &TestContext, columns: usize) -> String {
    let pty = crate::cards::Pty::spawn_env(
        ctx,
        &["list", "--long"],
        &[("COLUMNS", &columns.to_string())],
    );
    let (code, shown) = pty.finish();
    assert_eq!(code, 0, "{shown}");
    ctx.filter(&shown.replace('\r', ""))
}

/// A CJK name is measured in columns, a long id is never cut (it is what `enable` takes), and
/// on a narrow terminal whole columns go first: the path, then the version.
#[test]
fn list_long_at_60_and_120_columns_keeps_ids_whole() {
    let ctx = TestContext::new();
    let id = "a-very-long-mini-tool-name-for-copying";
    add(&ctx, id, "1.0.0", "天气预报 Weather", &[]);
    add(&ctx, "devtool", "0.3.1", "Dev Tool", &[]);
    insta::assert_snapshot!(list_at(&ctx, 120), @r"
    ID                                      VERSION  STATUS    NAME
    a-very-long-mini-tool-name-for-copying  1.0.0    disabled  天气预报 Weather
    devtool                                 0.3.1    disabled  Dev Tool
    ");
    insta::assert_snapshot!(list_at(&ctx, 60), @r"
    ID                                      STATUS    NAME
    a-very-long-mini-tool-name-for-copying  disabled  天气预报…
    devtool                                 disabled  Dev Tool
    ");
    // The id as shown is the id `enable` takes.
    ctx.run(&["enable", id]).success();
}

/// Replaces the lock record's `installedAt` (checked to be an ISO-8601 UTC time) with a marker.
fn mask_installed_at(item: &mut Value) {
    let source = item["source"].as_object_mut().expect("a lock record");
    let at = source["installedAt"]
        .as_str()
        .expect("installedAt is a string");
    assert!(
        chrono::DateTime::parse_from_rfc3339(at).is_ok() && at.ends_with('Z'),
        "installedAt {at:?} is not an ISO-8601 UTC time"
    );
    source.insert("installedAt".into(), "[TIME]".into());
}

#[test]
fn list_json_gives_the_full_records() {
    let ctx = TestContext::new();
    let tool = MiniTool::new("weather", "1.0.0")
        .display_name("Weather")
        .finch_field("contributes", json!({"tools": true}))
        .finch_field(
            "permissions",
            json!({"network": true, "filesystem": "read"}),
        );
    let weather_src = source(&ctx, tool, "weather");
    ctx.run(&["add", path_str(&weather_src)]).success();
    let dev_src = add(&ctx, "devtool", "0.3.1", "Dev Tool", &["-d"]);
    let globe_src = add(&ctx, "globe", "2.1.0", "Globe", &["-g"]);
    ctx.run(&["enable", "devtool", "globe"]).success();

    let personal = ctx.personal_tier();
    let global = ctx.global_tier();
    let out = ctx.run(&["list", "--json", "--all-tiers"]);
    out.success();
    assert_eq!(out.stderr(), "", "{out}");
    let mut items = out.json();
    for item in items.as_array_mut().expect("an array") {
        mask_installed_at(item);
    }
    assert_eq!(
        items,
        json!([
            {
                "id": "devtool",
                "name": "Dev Tool",
                "package": "devtool",
                "version": "0.3.1",
                "tier": "personal",
                "enabled": true,
                "linked": true,
                "linkTarget": dev_src,
                "source": {
                    "type": "dev",
                    "mode": "development",
                    "linked": true,
                    "localPath": dev_src,
                    "installedAt": "[TIME]",
                },
                "toolsDeclared": false,
                "permissions": {},
                "path": personal.join("devtool"),
                "problems": [],
            },
            {
                "id": "weather",
                "name": "Weather",
                "package": "weather",
                "version": "1.0.0",
                "tier": "personal",
                "enabled": false,
                "linked": false,
                "linkTarget": null,
                "source": {
                    "type": "local",
                    "localPath": weather_src,
                    "package": "weather",
                    "version": "1.0.0",
                    "installedAt": "[TIME]",
                },
                "toolsDeclared": true,
                "permissions": {"network": true, "filesystem": "read"},
                "path": personal.join("weather"),
                "problems": [],
            },
            {
                "id": "globe",
                "name": "Globe",
                "package": "globe",
                "version": "2.1.0",
                "tier": "global",
                "enabled": true,
                "linked": false,
                "linkTarget": null,
                "source": {
                    "type": "local",
                    "localPath": globe_src,
                    "package": "globe",
                    "version": "2.1.0",
                    "installedAt": "[TIME]",
                },
                "toolsDeclared": false,
                "permissions": {},
                "path": global.join("globe"),
                "problems": [],
            },
        ]),
        "{out}"
    );

    // An empty tier is an empty array, not a message.
    let empty = TestContext::new();
    let out = empty.run(&["--json", "list"]);
    out.success();
    assert_eq!(out.json(), json!([]), "{out}");
}

#[test]
fn a_broken_dev_link_lists_as_linked_broken_and_the_rest_still_list() {
    let ctx = TestContext::new();
    let dev_src = add(&ctx, "devtool", "0.3.1", "Dev Tool", &["-d"]);
    add(&ctx, "weather", "1.0.0", "Weather", &[]);
    std::fs::remove_dir_all(&dev_src).unwrap();

    let personal = ctx.personal_tier();
    let out = ctx.run(&["list"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!(
            "devtool\tunknown\tlinked-broken\tdevtool\t{}\n\
             weather\t1.0.0\tdisabled\tWeather\t{}\n",
            personal.join("devtool").display(),
            personal.join("weather").display(),
        ),
        "{out}"
    );
    out.stderr_has(&format!(
        "warning: {}: the link's target does not exist",
        personal.join("devtool").display()
    ));

    let out = ctx.run(&["list", "--json"]);
    out.success();
    let items = out.json();
    assert_eq!(items[0]["id"], "devtool", "{out}");
    assert_eq!(items[0]["linked"], true, "{out}");
    assert_eq!(items[0]["version"], Value::Null, "{out}");
    assert_eq!(
        items[0]["problems"],
        json!(["the link's target does not exist"]),
        "{out}"
    );
    assert_eq!(items[1]["id"], "weather", "{out}");
    assert_eq!(items[1]["problems"], json!([]), "{out}");
}

#[test]
fn a_corrupt_package_json_is_left_out_of_the_pipe_format_and_warns() {
    let ctx = TestContext::new();
    add(&ctx, "weather", "1.0.0", "Weather", &[]);
    add(&ctx, "zephyr", "4.0.0", "Zephyr", &[]);
    let broken = ctx.personal_tier().join("weather");
    std::fs::write(broken.join("package.json"), "{\"name\": \"weather\",\n").unwrap();

    // The app's format carries only valid mini tools, as the official CLI prints it.
    let out = ctx.run(&["list"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!(
            "zephyr\t4.0.0\tdisabled\tZephyr\t{}\n",
            ctx.personal_tier().join("zephyr").display(),
        ),
        "{out}"
    );
    out.stderr_has(&format!("warning: {}: ", broken.display()))
        .stderr_has(&format!(
            "{} is not valid JSON",
            broken.join("package.json").display()
        ))
        .stderr_has("; not listed (reinstall it with `finch add`, or remove it with `finch remove weather`)");

    // The table and --json show it, with its problem.
    let shown = long_list(&ctx);
    assert!(!shown.contains("not listed"), "{shown}");
    let table: String = shown
        .lines()
        // The warning, wrapped at spaces under its text.
        .filter(|l| !l.starts_with("warning:") && !l.starts_with("         "))
        .map(|l| format!("{l}\n"))
        .collect();
    insta::assert_snapshot!(table, @r"
    ID       VERSION  STATUS            NAME     PATH
    weather  unknown  disabled,invalid  weather  [BASE]/home/finchnest/.finch/extensions/weather
    zephyr   4.0.0    disabled          Zephyr   [BASE]/home/finchnest/.finch/extensions/zephyr
    ");
    ctx.run(&["list", "--all-tiers"])
        .success()
        .stdout_has("zephyr");
    let out = ctx.run(&["list", "--json"]);
    out.success();
    assert_eq!(out.json()[0]["id"], "weather", "{out}");
    let problems = &out.json()[0]["problems"];
    assert!(
        problems[0]
            .as_str()
            .is_some_and(|p| p.contains("is not valid JSON")),
        "{out}"
    );
}

#[test]
fn the_pipe_format_leaves_out_what_is_not_a_valid_mini_tool() {
    let ctx = TestContext::new();
    add(&ctx, "weather", "1.0.0", "Weather", &[]);
    let tier = ctx.personal_tier();
    // No manifest, npm's folder, and a manifest with a fatal problem (no entry file).
    std::fs::create_dir_all(tier.join("stray")).unwrap();
    std::fs::create_dir_all(tier.join("node_modules/left-pad")).unwrap();
    MiniTool::new("unbuilt", "0.2.0")
        .display_name("Unbuilt")
        .no_entry()
        .write_to(&tier.join("unbuilt"));

    let out = ctx.run(&["list"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!(
            "weather\t1.0.0\tdisabled\tWeather\t{}\n",
            tier.join("weather").display()
        ),
        "{out}"
    );
    for (dir, problem) in [
        (
            "node_modules",
            "node_modules is npm's dependency folder, not a mini tool",
        ),
        ("stray", "no finch.json or package.json#finch"),
        (
            "unbuilt",
            "entry file not found: dist/index.js (build the mini tool first)",
        ),
    ] {
        out.stderr_has(&format!(
            "warning: {}: {problem}; not listed",
            tier.join(dir).display()
        ));
    }

    let table: String = long_list(&ctx)
        .lines()
        .filter(|l| !l.starts_with("warning:"))
        .map(|l| format!("{l}\n"))
        .collect();
    insta::assert_snapshot!(table, @r"
    ID            VERSION  STATUS            NAME          PATH
    node_modules  unknown  disabled,invalid  node_modules  [BASE]/home/finchnest/.finch/extensions/node_modules
    stray         unknown  disabled,invalid  stray         [BASE]/home/finchnest/.finch/extensions/stray
    unbuilt       0.2.0    disabled,invalid  Unbuilt       [BASE]/home/finchnest/.finch/extensions/unbuilt
    weather       1.0.0    disabled          Weather       [BASE]/home/finchnest/.finch/extensions/weather
    ");

    let out = ctx.run(&["list", "--json"]);
    out.success();
    let problems: Vec<(String, Value)> = out
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["id"].as_str().unwrap().to_string(), i["problems"].clone()))
        .collect();
    assert_eq!(
        problems,
        vec![
            (
                "node_modules".into(),
                json!(["node_modules is npm's dependency folder, not a mini tool"])
            ),
            (
                "stray".into(),
                json!(["no finch.json or package.json#finch"])
            ),
            (
                "unbuilt".into(),
                json!(["entry file not found: dist/index.js (build the mini tool first)"])
            ),
            ("weather".into(), json!([])),
        ],
        "{out}"
    );

    // A tier holding only such entries is empty to the app.
    std::fs::remove_dir_all(tier.join("weather")).unwrap();
    let out = ctx.run(&["list"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!("No extensions installed in {}\n", tier.display()),
        "{out}"
    );
}

#[test]
fn a_corrupt_extensions_json_still_lists_every_tool_and_changes_nothing() {
    let ctx = TestContext::new();
    add(&ctx, "weather", "1.0.0", "Weather", &[]);
    add(&ctx, "zephyr", "4.0.0", "Zephyr", &[]);
    let state = extensions_json(&ctx);
    let corrupt = b"{\"enabled\": [\"weather\"\n";
    std::fs::create_dir_all(&ctx.runtime).unwrap();
    std::fs::write(&state, corrupt).unwrap();
    let before = ctx.tree(&ctx.runtime);

    let out = ctx.run(&["list"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!(
            "weather\t1.0.0\tdisabled\tWeather\t{}\nzephyr\t4.0.0\tdisabled\tZephyr\t{}\n",
            ctx.personal_tier().join("weather").display(),
            ctx.personal_tier().join("zephyr").display(),
        ),
        "{out}"
    );
    assert!(
        out.stderr()
            .starts_with(&format!("warning: {}", state.display())),
        "{out}"
    );
    out.stderr_has("enabled state unknown, every tool shown as disabled (fix the file by hand, or run `finch doctor --state` to move it aside)");

    let table: String = long_list(&ctx)
        .lines()
        .filter(|l| !l.starts_with("warning:"))
        .map(|l| format!("{l}\n"))
        .collect();
    insta::assert_snapshot!(table, @r"
    ID       VERSION  STATUS   NAME     PATH
    weather  1.0.0    unknown  Weather  [BASE]/home/finchnest/.finch/extensions/weather
    zephyr   4.0.0    unknown  Zephyr   [BASE]/home/finchnest/.finch/extensions/zephyr
    ");

    let out = ctx.run(&["list", "--json"]);
    out.success();
    assert_eq!(out.json()[0]["enabled"], Value::Null, "{out}");
    assert_eq!(out.json()[1]["id"], "zephyr", "{out}");

    assert_eq!(std::fs::read(&state).unwrap(), corrupt);
    assert_eq!(ctx.tree(&ctx.runtime), before);
}

#[test]
fn list_into_a_closed_pipe_exits_0_quietly() {
    let ctx = TestContext::new();
    // Far more output than a pipe buffer holds, so finch is still writing when `head` leaves.
    let tier = ctx.personal_tier();
    for i in 0..1000 {
        let name = format!("tool-{i:04}");
        MiniTool::new(&name, "1.0.0")
            .display_name(&format!("Tool {i}"))
            .write_to(&tier.join(&name));
    }
    for list in ["list", "list --long"] {
        let script =
            format!(r#""$FINCH" {list} | head -1; echo "finch exit: ${{PIPESTATUS[0]}}" >&2"#);
        let out = sealed_command(&ctx, "bash")
            .args(["-c", &script])
            .env("FINCH", env!("CARGO_BIN_EXE_finch"))
            .stdin(Stdio::null())
            .output()
            .expect("bash runs");
        let out = Run(out);
        out.success();
        assert_eq!(out.stdout().lines().count(), 1, "{list}: {out}");
        assert_eq!(out.stderr(), "finch exit: 0\n", "{list}: {out}");
    }
}

// ---------------------------------------------------------------------------------------------
// enable / disable

#[test]
fn enable_and_disable_print_the_app_lines_and_write_extensions_json() {
    let ctx = TestContext::new();
    add(&ctx, "weather", "1.0.0", "Weather", &[]);
    add(&ctx, "globe", "2.1.0", "Globe", &["-g"]);
    // The file as the app first writes it; finch keeps the key order.
    let state = extensions_json(&ctx);
    std::fs::write(
        &state,
        "{\"enabled\":[],\"extensions\":{},\"autoUpdate\":false}",
    )
    .unwrap();

    let out = ctx.run(&["enable", "weather", "globe"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!(
            "✓ Enabled weather\n{ENABLE_NOTE}\n{}\n✓ Enabled globe\n{ENABLE_NOTE}\n{}\n",
            finch_note("weather"),
            finch_note("globe")
        ),
        "{out}"
    );
    assert_eq!(out.stderr(), "", "{out}");
    assert_eq!(
        read_text(&state),
        r#"{
  "enabled": [
    "globe",
    "weather"
  ],
  "extensions": {
    "weather": {
      "enabled": true
    },
    "globe": {
      "enabled": true
    }
  },
  "autoUpdate": false
}
"#
    );

    let out = ctx.run(&["disable", "weather"]);
    out.success();
    assert_eq!(out.stdout(), "✓ Disabled weather\n", "{out}");
    assert_eq!(out.stderr(), "", "{out}");
    assert_eq!(
        read_text(&state),
        r#"{
  "enabled": [
    "globe"
  ],
  "extensions": {
    "weather": {
      "enabled": false
    },
    "globe": {
      "enabled": true
    }
  },
  "autoUpdate": false
}
"#
    );

    // Enabling twice changes nothing.
    let before = read_text(&state);
    ctx.run(&["enable", "globe"]).success();
    assert_eq!(read_text(&state), before);

    let out = ctx.run(&["--json", "enable", "weather", "ghost"]);
    out.success();
    assert_eq!(
        out.json(),
        json!([
            {"id": "weather", "enabled": true, "installed": true},
            {"id": "ghost", "enabled": true, "installed": false},
        ]),
        "{out}"
    );
}

#[test]
fn a_new_extensions_json_has_the_documented_key_order() {
    let ctx = TestContext::new();
    add(&ctx, "weather", "1.0.0", "Weather", &[]);
    ctx.run(&["enable", "weather"]).success();
    assert_eq!(
        read_text(&extensions_json(&ctx)),
        r#"{
  "enabled": [
    "weather"
  ],
  "extensions": {
    "weather": {
      "enabled": true
    }
  },
  "autoUpdate": false
}
"#
    );
}

#[test]
fn a_new_extensions_json_holds_the_documented_document() {
    let ctx = TestContext::new();
    add(&ctx, "weather", "1.0.0", "Weather", &[]);
    ctx.run(&["enable", "weather"]).success();
    let text = read_text(&extensions_json(&ctx));
    assert_eq!(
        ctx.read_json(&extensions_json(&ctx)),
        json!({"enabled": ["weather"], "extensions": {"weather": {"enabled": true}}, "autoUpdate": false})
    );
    assert!(
        text.ends_with("}\n") && text.contains("\n  \"autoUpdate\": false\n"),
        "{text}"
    );
}

#[test]
fn enable_keeps_unknown_keys_and_granted_permissions() {
    let ctx = TestContext::new();
    let state = extensions_json(&ctx);
    std::fs::create_dir_all(&ctx.runtime).unwrap();
    std::fs::write(
        &state,
        r#"{"enabled":["zeta"],"extensions":{"zeta":{"enabled":true,"grantedPermissions":["network","secrets:api.*"],"pinned":1}},"autoUpdate":true,"theme":{"accent":"teal"}}"#,
    )
    .unwrap();

    ctx.run(&["enable", "alpha"]).success();
    ctx.run(&["disable", "zeta"]).success();
    assert_eq!(
        read_text(&state),
        r#"{
  "enabled": [
    "alpha"
  ],
  "extensions": {
    "zeta": {
      "enabled": false,
      "grantedPermissions": [
        "network",
        "secrets:api.*"
      ],
      "pinned": 1
    },
    "alpha": {
      "enabled": true
    }
  },
  "autoUpdate": true,
  "theme": {
    "accent": "teal"
  }
}
"#
    );
}

#[test]
fn a_legacy_plugins_map_is_folded_into_extensions_and_dropped() {
    let ctx = TestContext::new();
    let state = extensions_json(&ctx);
    std::fs::create_dir_all(&ctx.runtime).unwrap();
    std::fs::write(
        &state,
        r#"{"plugins":{"old":{"enabled":true,"note":1},"both":{"enabled":true,"extra":2}},"extensions":{"both":{"enabled":false}},"autoUpdate":false}"#,
    )
    .unwrap();

    // A legacy entry is read: the app's old file already says "old" is enabled.
    add(&ctx, "old", "1.0.0", "Old", &[]);
    let out = ctx.run(&["list"]);
    out.success().stdout_has("old\t1.0.0\tenabled\tOld\t");
    assert!(
        read_text(&state).contains("\"plugins\""),
        "list wrote the state file"
    );

    ctx.run(&["enable", "new"]).success();
    let doc = ctx.read_json(&state);
    assert_eq!(
        doc,
        json!({
            "extensions": {
                "both": {"enabled": false, "extra": 2},
                "old": {"enabled": true, "note": 1},
                "new": {"enabled": true},
            },
            "autoUpdate": false,
            "enabled": ["new", "old"],
        })
    );
    assert!(doc.get("plugins").is_none());
}

#[test]
fn enabling_an_id_that_is_not_installed_warns_but_succeeds() {
    let ctx = TestContext::new();
    let out = ctx.run(&["enable", "ghost"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!("✓ Enabled ghost\n{ENABLE_NOTE}\n"),
        "{out}"
    );
    assert_eq!(
        out.stderr(),
        "warning: \"ghost\" is not installed in either tier; enabled it anyway\n",
        "{out}"
    );
    assert_eq!(
        ctx.read_json(&extensions_json(&ctx))["enabled"],
        json!(["ghost"])
    );

    // An id installed only in the global tier is installed.
    add(&ctx, "globe", "2.1.0", "Globe", &["-g"]);
    let out = ctx.run(&["enable", "globe"]);
    out.success();
    assert_eq!(out.stderr(), "", "{out}");
}

#[test]
fn eight_concurrent_enables_all_land() {
    let ctx = TestContext::new();
    let ids: Vec<String> = (0..8).map(|n| format!("id-{n}")).collect();
    for round in 0..5 {
        let _ = std::fs::remove_file(extensions_json(&ctx));
        // Spawn all eight before waiting for any, so that they race for the lock.
        let children: Vec<_> = ids
            .iter()
            .map(|id| {
                sealed_command(&ctx, env!("CARGO_BIN_EXE_finch"))
                    .args(["enable", id])
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("spawn finch")
            })
            .collect();
        for (id, child) in ids.iter().zip(children) {
            let out = Run(child.wait_with_output().expect("wait for finch"));
            out.success();
            assert!(
                out.stdout().starts_with(&format!("✓ Enabled {id}\n")),
                "round {round}: {out}"
            );
        }
        let doc = ctx.read_json(&extensions_json(&ctx));
        assert_eq!(doc["enabled"], json!(ids), "round {round}: {doc}");
        for id in &ids {
            assert_eq!(
                doc["extensions"][id],
                json!({"enabled": true}),
                "round {round}: {doc}"
            );
        }
    }
}

#[test]
fn a_corrupt_extensions_json_stops_enable_and_is_left_as_it_was() {
    let ctx = TestContext::new();
    let state = extensions_json(&ctx);
    std::fs::create_dir_all(&ctx.runtime).unwrap();
    let corrupt = b"{\"enabled\": [\n";
    std::fs::write(&state, corrupt).unwrap();

    for args in [&["enable", "x"][..], &["disable", "x"]] {
        let out = ctx.run(args);
        out.failure(1);
        assert_eq!(out.stdout(), "", "{out}");
        out.stderr_has(&format!(
            "Error: {} is not valid JSON (line ",
            state.display()
        ))
        .stderr_has(", column ")
        .stderr_has("finch doctor --state");
        assert_eq!(
            std::fs::read(&state).unwrap(),
            corrupt,
            "{args:?} changed the file"
        );
    }

    let out = ctx.run(&["--json", "enable", "x"]);
    out.failure(1);
    assert_eq!(out.json()["error"]["code"], "corrupt_state", "{out}");
    assert_eq!(std::fs::read(&state).unwrap(), corrupt);
    // No temp file is left next to it.
    assert_eq!(ctx.tree(&ctx.runtime), vec![".lock", "extensions.json"]);
}

/// Issue 31: a wait for a held lock longer than about a second says whom it waits for,
/// once, before it gives up with exit 5 (a 300 ms wait stays silent).
#[test]
fn a_long_wait_for_a_lock_says_whom_it_waits_for() {
    let ctx = TestContext::new();
    ctx.write_config("[state]\nlock_timeout = \"1500ms\"\n");
    let lock_path = ctx.runtime.join(".lock");
    let mut lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(&lock_path)
        .unwrap();
    std::io::Write::write_all(&mut lock, std::process::id().to_string().as_bytes()).unwrap();
    lock.lock().unwrap();
    let out = ctx.run(&["enable", "x"]);
    out.failure(5);
    let waiting = format!(
        "waiting for {} (held by pid {})…\n",
        extensions_json(&ctx).display(),
        std::process::id()
    );
    assert!(out.stderr().starts_with(&waiting), "{out}");
    assert_eq!(out.stderr().matches("waiting for").count(), 1, "{out}");

    ctx.write_config("[state]\nlock_timeout = \"300ms\"\n");
    let out = ctx.run(&["enable", "x"]);
    out.failure(5);
    assert!(!out.stderr().contains("waiting for"), "{out}");
}

#[test]
fn a_held_lock_makes_enable_exit_5_without_writing() {
    let ctx = TestContext::new();
    ctx.write_config("[state]\nlock_timeout = \"300ms\"\n");
    let lock_path = ctx.runtime.join(".lock");
    let mut lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(&lock_path)
        .unwrap();
    std::io::Write::write_all(&mut lock, std::process::id().to_string().as_bytes()).unwrap();
    lock.lock().unwrap();

    let started = std::time::Instant::now();
    let out = ctx.run(&["enable", "x"]);
    out.failure(5);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "waited past the timeout"
    );
    assert_eq!(out.stdout(), "", "{out}");
    out.stderr_has(&format!(
        "Error: another finch is changing {} (held by pid {})",
        extensions_json(&ctx).display(),
        std::process::id()
    ));
    assert!(!extensions_json(&ctx).exists());
    // A lock file that names no pid: who holds it is not known, and the message says so.
    lock.set_len(0).unwrap();
    ctx.run(&["enable", "x"]).failure(5).stderr_has(&format!(
        "Error: another finch is changing {} (held by another process)\n",
        extensions_json(&ctx).display()
    ));

    let out = ctx.run(&["--json", "disable", "x"]);
    out.failure(5);
    assert_eq!(out.json()["error"]["code"], "locked", "{out}");
    out.stderr_has("another finch is changing");
    assert!(!extensions_json(&ctx).exists());

    lock.unlock().unwrap();
    ctx.run(&["enable", "x"]).success();
    assert!(extensions_json(&ctx).exists());
}

// ---------------------------------------------------------------------------------------------
// remove

#[test]
fn remove_deletes_the_install_and_its_record_but_keeps_its_data() {
    let ctx = TestContext::new();
    add(&ctx, "weather", "1.0.0", "Weather", &[]);
    add(&ctx, "zephyr", "4.0.0", "Zephyr", &[]);
    ctx.run(&["enable", "weather", "zephyr"]).success();
    let data = ctx.runtime.join("extension-data/weather");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("storage.json"), "{\"k\":1}\n").unwrap();
    let records = ctx.personal_tier().join(".plugins-lock.json");
    let zephyr_record = ctx.read_json(&records)["zephyr"].clone();

    let out = ctx.run(&["remove", "weather"]);
    out.success();
    assert_eq!(out.stdout(), "✓ Removed weather\n", "{out}");
    assert_eq!(out.stderr(), "", "{out}");
    assert!(std::fs::symlink_metadata(ctx.personal_tier().join("weather")).is_err());
    assert!(ctx.personal_tier().join("zephyr/package.json").is_file());
    assert_eq!(ctx.read_json(&records), json!({"zephyr": zephyr_record}));
    assert_eq!(
        ctx.read_json(&extensions_json(&ctx)),
        json!({
            "enabled": ["zephyr"],
            "extensions": {"weather": {"enabled": false}, "zephyr": {"enabled": true}},
            "autoUpdate": false,
        })
    );
    assert_eq!(read_text(&data.join("storage.json")), "{\"k\":1}\n");
    let out = ctx.run(&["list"]);
    assert!(!out.stdout().contains("weather"), "{out}");

    // `rm` is the same command; the last install leaves an empty record file.
    let out = ctx.run(&["rm", "zephyr"]);
    out.success();
    assert_eq!(out.stdout(), "✓ Removed zephyr\n", "{out}");
    assert_eq!(ctx.read_json(&records), json!({}));
}

#[test]
fn removing_a_dev_link_removes_only_the_link() {
    let ctx = TestContext::new();
    let src = add(&ctx, "devtool", "0.3.1", "Dev Tool", &["-d"]);
    std::fs::write(src.join("notes.txt"), "keep me\n").unwrap();
    let before = ctx.tree(&src);

    let out = ctx.run(&["remove", "devtool"]);
    out.success();
    assert_eq!(out.stdout(), "✓ Removed devtool\n", "{out}");
    assert!(std::fs::symlink_metadata(ctx.personal_tier().join("devtool")).is_err());
    assert_eq!(ctx.tree(&src), before);
    assert_eq!(read_text(&src.join("notes.txt")), "keep me\n");
    assert_eq!(
        ctx.read_json(&ctx.personal_tier().join(".plugins-lock.json")),
        json!({})
    );
}

#[test]
fn removing_a_broken_dev_link_works() {
    let ctx = TestContext::new();
    let src = add(&ctx, "devtool", "0.3.1", "Dev Tool", &["-d"]);
    std::fs::remove_dir_all(&src).unwrap();
    let out = ctx.run(&["remove", "devtool"]);
    out.success();
    assert_eq!(out.stdout(), "✓ Removed devtool\n", "{out}");
    assert!(std::fs::symlink_metadata(ctx.personal_tier().join("devtool")).is_err());
}

#[test]
fn removing_an_unknown_id_exits_3() {
    let ctx = TestContext::new();
    add(&ctx, "globe", "2.1.0", "Globe", &["-g"]);
    for id in ["nope", "globe", "..", ".plugins-lock.json"] {
        let out = ctx.run(&["remove", id]);
        out.failure(3);
        assert_eq!(out.stdout(), "", "{out}");
        out.stderr_has(&format!(
            "Error: \"{id}\" is not installed in the personal tier"
        ))
        .stderr_has("hint: run `finch list --all-tiers`");
    }
    assert!(ctx.global_tier().join("globe/package.json").is_file());
    // Nothing was written into the personal tier but (at most) its lock file.
    let written = ctx.tree(&ctx.personal_tier());
    assert!(written.iter().all(|p| p == ".lock"), "{written:?}");
    assert!(!extensions_json(&ctx).exists());
}

#[test]
fn remove_g_works_on_the_global_tier() {
    let ctx = TestContext::new();
    add(&ctx, "globe", "2.1.0", "Globe", &["-g"]);
    add(&ctx, "globe", "2.1.0", "Globe", &[]);
    let out = ctx.run(&["remove", "-g", "globe"]);
    out.success();
    assert_eq!(out.stdout(), "✓ Removed globe\n", "{out}");
    assert!(std::fs::symlink_metadata(ctx.global_tier().join("globe")).is_err());
    assert_eq!(
        ctx.read_json(&ctx.global_tier().join(".plugins-lock.json")),
        json!({})
    );
    // The personal install of the same id is untouched.
    assert!(ctx.personal_tier().join("globe/package.json").is_file());
    assert!(ctx.read_json(&ctx.personal_tier().join(".plugins-lock.json"))["globe"].is_object());

    let out = ctx.run(&["--json", "remove", "--global", "globe"]);
    out.failure(3);
    assert_eq!(out.json()["error"]["code"], "not_found", "{out}");
}

#[test]
fn remove_with_a_corrupt_extensions_json_changes_nothing() {
    let ctx = TestContext::new();
    add(&ctx, "weather", "1.0.0", "Weather", &[]);
    let state = extensions_json(&ctx);
    std::fs::create_dir_all(&ctx.runtime).unwrap();
    std::fs::write(&state, "{\"enabled\": [\"weather\"\n").unwrap();
    let records = ctx.personal_tier().join(".plugins-lock.json");
    let records_before = read_text(&records);

    let out = ctx.run(&["remove", "weather"]);
    out.failure(1);
    out.stderr_has(&format!("{} is not valid JSON", state.display()));
    assert!(
        ctx.personal_tier().join("weather/package.json").is_file(),
        "the install was deleted although the command failed:\n{out}"
    );
    assert_eq!(read_text(&records), records_before);
}

#[test]
fn remove_waits_for_the_tier_lock_and_exits_5() {
    let ctx = TestContext::new();
    ctx.write_config("[state]\nlock_timeout = \"200ms\"\n");
    add(&ctx, "globe", "2.1.0", "Globe", &["-g"]);
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(ctx.global_tier().join(".lock"))
        .unwrap();
    lock.lock().unwrap();
    let out = ctx.run(&["remove", "-g", "globe"]);
    out.failure(5);
    out.stderr_has("Error: another finch is changing the global mini tools in");
    assert!(ctx.global_tier().join("globe/package.json").is_file());
    assert!(ctx.read_json(&ctx.global_tier().join(".plugins-lock.json"))["globe"].is_object());
}

/// On a terminal `enable`'s notes wrap at spaces, under their indentation (the official note
/// stays one line on a pipe, where the app reads it).
#[test]
fn enable_notes_wrap_at_spaces_on_a_terminal() {
    let ctx = TestContext::new();
    let src = ctx.work.join("weather-src");
    crate::common::fixtures::MiniTool::new("weather", "1.0.0").write_to(&src);
    ctx.run(&["add", src.to_str().unwrap()]).success();
    for cols in [60u16, 100] {
        let width = cols.to_string();
        let mut pty =
            crate::cards::Pty::spawn_env(&ctx, &["enable", "weather"], &[("COLUMNS", &width)]);
        pty.resize(cols, 24);
        let (code, shown) = pty.finish();
        assert_eq!(code, 0, "{shown}");
        let rows = crate::screen::rows(&shown, cols, 24);
        let screen: Vec<String> = rows
            .iter()
            .map(|r| format!("{r:w$}|", w = usize::from(cols)))
            .collect();
        insta::assert_snapshot!(format!("enable_notes_{cols}"), screen.join("\n"));
    }
}
