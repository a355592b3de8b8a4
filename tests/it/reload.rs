//! `finch reload` (SPEC §3.7): the report per mini tool, the catalog cache that `finch tool
//! list|search|info` read without starting anything, the exit codes, and a running
//! `finch run` reloading in place when `finch reload` signals it.

use serde_json::{Value, json};

use crate::common::TestContext;
use crate::common::fixtures::MiniTool;

const FAST: &str = "[runtime]\nactivate_timeout = \"1500ms\"\nshutdown_timeout = \"2s\"\n";

/// A mini tool that registers one tool per name in `tools`, each echoing its `text`.
fn registering(id: &str, tools: &[&str]) -> MiniTool {
    let registrations: String = tools
        .iter()
        .map(|t| {
            format!(
                "  ctx.tools.register({{ name: {t:?}, description: \"Echo back the text ({t})\", \
                 inputSchema: {{type: \"object\", properties: {{text: {{type: \"string\"}}}}}}, \
                 execute: async (input) => ({{ content: [{{type: \"text\", text: `{t}: ${{input.text}}`}}] }}) }});\n"
            )
        })
        .collect();
    MiniTool::new(id, "1.0.0").entry_source(&format!(
        "export function activate(ctx) {{\n{registrations}}}\n"
    ))
}

fn install(ctx: &TestContext, pkg: &MiniTool) {
    let id = pkg.package_json()["name"].as_str().unwrap().to_string();
    let dir = ctx.base().join("src").join(&id);
    pkg.write_to(&dir);
    ctx.run(&["add", dir.to_str().unwrap()]).success();
    ctx.run(&["enable", &id]).success();
}

#[test]
fn reload_reports_each_minitool_and_writes_the_catalog() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    let empty = ctx.run(&["reload"]);
    empty.success().stdout_has("No enabled mini tools.");
    let cache = ctx.runtime.join("cache/catalog.json");
    assert_eq!(ctx.read_json(&cache)["tools"], json!([]));

    install(&ctx, &registering("echoes", &["shout", "whisper"]));
    install(
        &ctx,
        &MiniTool::new("broken", "1.0.0")
            .entry_source("export function activate() { throw new Error('no config'); }\n"),
    );
    let out = ctx.run(&["reload", "--json"]);
    out.failure(1);
    let report = out.json();
    let by_id = |id: &str| -> Value {
        report["minitools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id} in {report}"))
    };
    assert_eq!(by_id("echoes")["status"], "activated");
    assert_eq!(by_id("echoes")["tools"], 2);
    assert_eq!(by_id("broken")["status"], "failed");
    assert!(
        by_id("broken")["error"]
            .as_str()
            .unwrap()
            .contains("no config")
    );
    assert!(
        by_id("broken")["log"]
            .as_str()
            .unwrap()
            .ends_with("broken.log")
    );
    assert_eq!(report["catalog"]["tools"], 2);

    // The listing reads the cache: nothing starts.
    let list = ctx
        .run(&["tool", "list", "--source", "minitool", "--json"])
        .json();
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["echoes_shout", "echoes_whisper"]);
    let hits = ctx.run(&["tool", "search", "whisper", "--json"]).json();
    assert_eq!(hits[0]["name"], "echoes_whisper");
    let info = ctx.run(&["tool", "info", "echoes_shout", "--json"]).json();
    assert_eq!(info["inputSchema"]["properties"]["text"]["type"], "string");
    assert_eq!(info["owner"], "echoes");

    // One mini tool's report; the catalog is still whole.
    let one = ctx.run(&["reload", "echoes", "--json"]);
    one.success();
    assert_eq!(one.json()["minitools"].as_array().unwrap().len(), 1);
    assert_eq!(one.json()["catalog"]["tools"], 2);
    ctx.run(&["reload", "nope"])
        .failure(3)
        .stderr_has("\"nope\" is not an enabled mini tool");

    // Disabled mini tools leave the catalog at the next reload.
    ctx.run(&["disable", "echoes"]).success();
    ctx.run(&["disable", "broken"]).success();
    ctx.run(&["reload"]).success();
    assert_eq!(ctx.read_json(&cache)["tools"], json!([]));
}

#[test]
fn a_running_run_reloads_in_place_and_keeps_its_session() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    let mut live = ctx.live_run(&["--approve", "later_ping"]);
    let before = live.call("later_ping", json!({"text": "x"}));
    assert_eq!(before["failure"], "unknownTool", "{before}");

    install(&ctx, &registering("later", &["ping"]));
    let out = ctx.run(&["reload", "--json"]);
    out.success();
    assert_eq!(out.json()["signalled"], json!([live.pid()]));

    // The run reloads before its next call: the new mini tool answers, in the same session.
    let after = live.call("later_ping", json!({"text": "hi"}));
    assert_eq!(after["content"][0]["text"], "ping: hi", "{after}");
    let (code, stderr) = live.finish();
    assert_eq!(code, 1, "the first call named no tool: {stderr}");
    assert!(stderr.contains("reloaded"), "{stderr}");
    let transcripts = ctx.transcripts();
    assert_eq!(transcripts.len(), 1);
    let calls = ctx.tool_calls(&transcripts[0]);
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1]["decidedBy"], "approveFlag");

    // A run that ended is not signalled again, and its registration is gone.
    let again = ctx.run(&["reload", "--json"]);
    assert_eq!(again.json()["signalled"], json!([]));
}

/// Issue 31: `tool call` of a disabled mini tool's tool says so, with the command that
/// enables it; an unknown name points at `finch tool search`, in the CLI's words (the
/// record the model reads keeps its own).
#[test]
fn tool_call_of_a_disabled_mini_tools_tool_says_how_to_enable_it() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    let dir = ctx.base().join("src/toggled");
    registering("toggled", &["echo"]).write_to(&dir);
    ctx.run(&["add", dir.to_str().unwrap()]).success();
    let out = ctx.run(&["tool", "call", "toggled_echo", "text=a"]);
    out.failure(3);
    assert_eq!(
        out.stderr(),
        "Error: `toggled_echo` is a tool of the mini tool toggled, which is disabled\n\
         hint: enable it with `finch enable toggled`\n"
    );
    let out = ctx.run(&["tool", "call", "Nope"]);
    out.failure(3);
    assert_eq!(
        out.stderr(),
        "Error: there is no tool named `Nope`\n\
         hint: find one by what it does with `finch tool search <words>`, or list them with \
         `finch tool list`\n"
    );
    let record = ctx.call("Nope", json!({}));
    record.failure(3);
    assert!(
        record.json()["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("ToolSearch")
    );
}

#[test]
fn a_minitool_call_that_enables_a_mini_tool_reloads_the_run() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    let pkg = registering("toggled", &["echo"]);
    let dir = ctx.base().join("src/toggled");
    pkg.write_to(&dir);
    ctx.run(&["add", dir.to_str().unwrap()]).success();
    let mut live = ctx.live_run(&["--approve", "MiniTool", "--approve", "toggled_echo"]);
    assert_eq!(
        live.call("toggled_echo", json!({"text": "a"}))["failure"],
        "unknownTool"
    );
    let enabled = live.call("MiniTool", json!({"action": "enable", "id": "toggled"}));
    assert_eq!(enabled["isError"], false, "{enabled}");
    let echoed = live.call("toggled_echo", json!({"text": "b"}));
    assert_eq!(echoed["content"][0]["text"], "echo: b", "{echoed}");
    let (code, stderr) = live.finish();
    assert_eq!(code, 1, "the first call named no tool: {stderr}");
}

/// Issue 18: a mini tool that registers its tool in English (through `ctx.i18n.t`) is found
/// by a Chinese query, from the other locale files it ships, and by its own names.
#[test]
fn a_mini_tools_other_locales_are_search_text_for_its_tools() {
    let ctx = TestContext::new();
    ctx.write_config(&format!("{FAST}locale = \"en-US\"\n"));
    let en = json!({
        "name": "Todos", "description": "A personal to-do list",
        "tool": {"add": {"title": "Add a to-do", "description": "Add an item to the list"}}
    });
    let zh = json!({
        "name": "待办清单", "description": "个人待办事项",
        "tool.add.title": "新增待办", "tool.add.description": "向待办清单新增一项任务"
    });
    let pkg = MiniTool::new("todos", "1.0.0")
        .file("i18n/en-US.json", &en.to_string())
        .file("i18n/zh-CN.json", &zh.to_string())
        .entry_source(
            "export function activate(ctx) {\n  ctx.tools.register({ name: 'todos_add', \
             title: ctx.i18n.t('tool.add.title'), description: ctx.i18n.t('tool.add.description'), \
             inputSchema: {type: 'object'}, execute: async () => ({ content: [] }) });\n}\n",
        );
    install(&ctx, &pkg);
    ctx.run(&["reload"]).success();
    for query in ["新增任务", "待办清单", "add a to-do"] {
        let hits = ctx.run(&["tool", "search", query, "--json"]).json();
        assert_eq!(hits[0]["source"], "minitool:todos", "{query}: {hits}");
        assert_eq!(hits[0]["description"], "Add an item to the list", "{hits}");
    }
    let why = ctx
        .run(&[
            "tool",
            "search",
            "新增任务",
            "--explain",
            "--json",
            "--limit",
            "1",
        ])
        .json();
    let fields = &why[0]["why"]["terms"][0]["fields"];
    assert_eq!(fields, &json!(["search text"]), "{why}");
}

/// Issue 18: `finch reload` writes the catalog's search index beside the cache; `tool search`
/// answers from it (parsing only the hits' entries of the cache), and gives what the one-pass
/// search over the cache gives; a cache changed since (a stale index) and a broken index are
/// searched without the index, with the same results as no index at all.
#[test]
fn reload_writes_the_search_index_and_tool_search_uses_it_or_falls_back() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &registering("echoes", &["shout", "whisper"]));
    ctx.run(&["reload"]).success();
    let cache = ctx.runtime.join("cache/catalog.json");
    let index = ctx.runtime.join("cache/catalog.index");
    let bytes = std::fs::read(&index).expect("reload writes catalog.index");
    assert_eq!(&bytes[..8], b"finchtsx");
    let search = |query: &str| -> Value {
        let out = ctx.run(&["tool", "search", query, "--json"]);
        out.success();
        out.json()
    };
    let with_index = search("whisper");
    assert_eq!(with_index[0]["name"], "echoes_whisper", "{with_index}");
    assert_eq!(with_index[0]["description"], "Echo back the text (whisper)");
    assert_eq!(with_index[0]["owner"], "echoes", "{with_index}");
    let mixed = search("read a text file");
    assert_eq!(mixed[0]["name"], "Read", "{mixed}");

    // The same hits, scores and fields as the one-pass search (no index).
    std::fs::rename(&index, ctx.base().join("saved.index")).unwrap();
    assert_eq!(search("whisper"), with_index);
    assert_eq!(search("read a text file"), mixed);
    std::fs::rename(ctx.base().join("saved.index"), &index).unwrap();

    // The index is what answers: a cache broken outside the hits' entries, in place (same
    // length, inode and modification time, so the index still matches it), is still searched
    // through the index, and fails the one-pass search, which parses the whole file.
    let original = std::fs::read(&cache).unwrap();
    let modified = std::fs::metadata(&cache).unwrap().modified().unwrap();
    let mut broken = original.clone();
    let end = broken.len() - 2;
    assert_eq!(&broken[end..], b"}\n");
    broken[end] = b']';
    let write_in_place = |bytes: &[u8]| {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(&cache)
            .unwrap();
        file.write_all(bytes).unwrap();
        file.set_modified(modified).unwrap();
    };
    write_in_place(&broken);
    assert_eq!(search("whisper"), with_index);
    ctx.run(&["tool", "search", "whisper", "--explain"])
        .failure(1)
        .stderr_has("catalog.json");
    write_in_place(&original);

    // A broken index (garbage, truncated, another version) is the same as none.
    for bad in [
        b"not an index at all".to_vec(),
        bytes[..bytes.len() / 2].to_vec(),
        [&b"finchtsx\x02"[..], &bytes[9..]].concat(),
    ] {
        std::fs::write(&index, &bad).unwrap();
        assert_eq!(search("whisper"), with_index);
        assert_eq!(search("read a text file"), mixed);
    }
    std::fs::write(&index, &bytes).unwrap();
    assert_eq!(search("whisper"), with_index);

    // The cache changed without a new index (a tool added by hand): the index is stale and
    // the new tool is still found.
    let mut file: Value = serde_json::from_slice(&original).unwrap();
    let mut murmur = file["tools"][1].clone();
    murmur["rawName"] = json!("murmur");
    murmur["wantedName"] = json!("echoes_murmur");
    murmur["title"] = json!("murmur");
    murmur["description"] = json!("Murmur the text back softly");
    file["tools"].as_array_mut().unwrap().push(murmur);
    std::fs::write(&cache, file.to_string()).unwrap();
    assert_eq!(
        std::fs::read(&index).unwrap(),
        bytes,
        "the index is left stale"
    );
    let hits = search("murmur softly");
    assert_eq!(hits[0]["name"], "echoes_murmur", "{hits}");
    assert_eq!(search("whisper")[0]["name"], "echoes_whisper");

    // The next reload writes both again, and the index matches once more.
    ctx.run(&["reload"]).success();
    assert_ne!(std::fs::read(&index).unwrap(), bytes);
    assert_eq!(search("whisper"), with_index);
    assert!(
        search("murmur softly")
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["name"] != "echoes_murmur")
    );
}

/// The README's quick start, then the catalog commands: no `finch reload` in between.
#[test]
fn the_catalog_follows_add_enable_disable_and_remove_without_a_reload() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    let dir = ctx.base().join("src").join("hello-minitool");
    registering("hello-minitool", &["greet"]).write_to(&dir);
    ctx.run(&["add", dir.to_str().unwrap()]).success();
    ctx.run(&["enable", "hello-minitool"]).success();
    ctx.run(&["tool", "info", "hello-minitool_greet"])
        .success()
        .stdout_has("hello-minitool_greet")
        .stderr_has("changed since the tool catalog was built: refreshing it");
    let info = ctx.run(&["tool", "info", "hello-minitool_greet", "--json"]);
    assert_eq!(info.json()["name"], "hello-minitool_greet", "{info}");
    let hits = ctx.run(&["tool", "search", "greet", "--json"]).json();
    assert_eq!(hits[0]["name"], "hello-minitool_greet", "{hits}");
    let list = ctx.run(&["tool", "list", "--source", "minitool"]);
    list.success().stdout_has("hello-minitool_greet");
    assert!(!list.stderr().contains("refreshing"), "{list}");

    ctx.run(&["disable", "hello-minitool"]).success();
    let list = ctx.run(&["tool", "list", "--source", "minitool"]);
    list.success().stderr_has("refreshing it");
    assert!(!list.stdout().contains("hello-minitool_greet"), "{list}");
    ctx.run(&["enable", "hello-minitool"]).success();
    ctx.run(&["tool", "list", "--source", "minitool"])
        .success()
        .stdout_has("hello-minitool_greet");
    ctx.run(&["remove", "hello-minitool"]).success();
    ctx.run(&["tool", "info", "hello-minitool_greet"])
        .failure(3)
        .stderr_has("no tool named");
}

/// Issue 31: `-q` leaves only errors and warnings: `add`, `enable`, `disable`, `reload`,
/// `remove` and `memory remember` print nothing when they succeed (without `-q` they print
/// their lines).
#[test]
fn quiet_leaves_only_errors_and_warnings() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    let dir = ctx.base().join("src/hushed");
    registering("hushed", &["echo"]).write_to(&dir);
    let quiet = |args: &[&str]| {
        let mut argv = vec!["-q"];
        argv.extend_from_slice(args);
        let out = ctx.run(&argv);
        out.success();
        assert_eq!(
            (out.stdout(), out.stderr()),
            (String::new(), String::new()),
            "{args:?}"
        );
    };
    quiet(&["add", dir.to_str().unwrap()]);
    quiet(&["enable", "hushed"]);
    quiet(&["reload"]);
    quiet(&["disable", "hushed"]);
    quiet(&["memory", "remember", "quiet please"]);
    quiet(&["remove", "hushed"]);
    // Without -q the same commands report.
    ctx.run(&["add", dir.to_str().unwrap()])
        .success()
        .stdout_has("Added");
    ctx.run(&["enable", "hushed"])
        .success()
        .stdout_has("Enabled hushed");
    ctx.run(&["memory", "remember", "loud"])
        .success()
        .stdout_has("Remembered in");
    // A warning stays.
    let out = ctx.run(&["-q", "enable", "never-installed"]);
    out.success();
    assert_eq!(out.stdout(), "");
    out.stderr_has("warning: \"never-installed\" is not installed");
}

/// Issue 31: re-adding an installed, enabled mini tool on a terminal says it is enabled;
/// on a pipe the official line stays, word for word.
#[test]
fn re_adding_an_enabled_mini_tool_says_so_on_a_terminal() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    let dir = ctx.base().join("src/again");
    registering("again", &["echo"]).write_to(&dir);
    ctx.run(&["add", dir.to_str().unwrap()]).success();
    ctx.run(&["enable", "again"]).success();
    ctx.run(&["add", dir.to_str().unwrap()])
        .success()
        .stdout_has("  Installed only. Open Finch → Toolcase → Mini Tools to review permissions and enable.");
    let mut pty = crate::cards::Pty::spawn(&ctx, &["add", dir.to_str().unwrap()]);
    pty.expect("Added \"");
    // Wrapped at spaces to the terminal's width.
    let shown = pty.expect("turns it off.");
    assert!(shown.contains("disable again` turns it off."), "{shown}");
    assert!(shown.contains("Already enabled"), "{shown}");
    assert!(!shown.contains("Installed only"), "{shown}");
    let (code, tail) = pty.finish();
    assert_eq!(code, 0, "{tail}");
}
