//! Tests of `finch space list|create` (`<runtime>/spaces.json`) and `finch skill list|show`
//! (SKILL.md files of the project, personal, global and mini tool sources, with the precedence
//! project > personal > global > mini tool on a name clash).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::TestContext;
use crate::common::fixtures::MiniTool;

// ---------------------------------------------------------------------------------------------
// spaces

fn spaces_json(ctx: &TestContext) -> PathBuf {
    ctx.runtime.join("spaces.json")
}

#[test]
fn space_list_of_nothing() {
    let ctx = TestContext::new();
    let out = ctx.run(&["space", "list"]);
    out.success().stderr_has("No spaces in");
    assert_eq!(out.stdout(), "");
    let out = ctx.run(&["space", "list", "--json"]);
    out.success();
    assert_eq!(out.json(), json!([]));
}

#[test]
fn space_create_then_list_as_text_and_json() {
    let ctx = TestContext::new();
    let project = ctx.work.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let out = ctx.run(&["space", "create", "Work", "--dir", "project"]);
    out.success();
    let stdout = out.stdout();
    let id = stdout
        .strip_prefix("✓ Created space \"Work\" (")
        .and_then(|rest| rest.strip_suffix(")\n"))
        .unwrap_or_else(|| panic!("{out}"))
        .to_string();
    assert!(
        id.starts_with("sp-") && id.len() == 11,
        "ids are sp- and 8 hex: {id}"
    );
    let out = ctx.run(&["space", "create", "Home", "--json"]);
    out.success();
    let home = out.json();
    assert_eq!(home["name"], "Home");
    assert_eq!(home["directory"], Value::Null);
    assert!(home["createdAt"].as_str().unwrap().ends_with('Z'));

    let out = ctx.run(&["space", "list"]);
    out.success();
    let stdout = out.stdout();
    let rows: Vec<Vec<&str>> = stdout.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), 2, "{stdout}");
    assert_eq!(
        rows[0][..3],
        [id.as_str(), "Work", project.to_str().unwrap()]
    );
    assert_eq!(rows[1][..3], [home["id"].as_str().unwrap(), "Home", ""]);

    let out = ctx.run(&["space", "list", "--json"]);
    out.success();
    let list = out.json();
    assert_eq!(list[1], home);
    assert_eq!(list[0]["directory"], project.to_str().unwrap());
    // The file, as the app reads it.
    let file = ctx.read_json(&spaces_json(&ctx));
    assert_eq!(file["spaces"][0]["id"], id.as_str());
    assert_eq!(file["spaces"][0]["directory"], project.to_str().unwrap());
    assert!(file["spaces"][1].get("directory").is_none());
    let text = std::fs::read_to_string(spaces_json(&ctx)).unwrap();
    assert!(text.starts_with("{\n  \"spaces\": [\n") && text.ends_with("}\n"));
}

#[test]
fn space_names_are_unique_ignoring_case() {
    let ctx = TestContext::new();
    ctx.run(&["space", "create", "Work"]).success();
    let before = std::fs::read_to_string(spaces_json(&ctx)).unwrap();
    for name in ["work", "WORK", "Work"] {
        ctx.run(&["space", "create", name])
            .failure(1)
            .stderr_has(&format!("Error: a space named \"{name}\" already exists"))
            .stderr_has("hint: run `finch space list`");
    }
    let out = ctx.run(&["space", "create", "wOrK", "--json"]);
    out.failure(1);
    assert_eq!(out.json()["error"]["code"], "failed");
    assert_eq!(std::fs::read_to_string(spaces_json(&ctx)).unwrap(), before);
    // Non-ASCII names are compared ignoring case too.
    ctx.run(&["space", "create", "Ärger"]).success();
    ctx.run(&["space", "create", "ärger"]).failure(1);
}

#[test]
fn space_names_must_make_file_names() {
    let ctx = TestContext::new();
    let cases = [
        ("", "it is empty"),
        (" padded", "it starts or ends with white space"),
        (".hidden", "it starts with a dot"),
        (
            "a/b",
            "it contains a character that cannot be part of a file name",
        ),
        (
            "tab\there",
            "it contains a character that cannot be part of a file name",
        ),
        (&"x".repeat(65), "it is longer than 64 characters"),
    ];
    for (name, why) in cases {
        ctx.run(&["space", "create", name])
            .failure(1)
            .stderr_has(&format!("is not a usable space name: {why}"));
    }
    assert!(!spaces_json(&ctx).exists());
    ctx.run(&["space", "create", "家庭 & side-project_2"])
        .success();
}

#[test]
fn space_with_a_missing_directory_is_not_found() {
    let ctx = TestContext::new();
    let out = ctx.run(&["space", "create", "Work", "--dir", "nowhere"]);
    out.failure(3).stderr_has("Error: no such directory:");
    let out = ctx.run(&["space", "create", "Work", "--dir", "nowhere", "--json"]);
    out.failure(3);
    assert_eq!(out.json()["error"]["code"], "not_found");
    assert!(!spaces_json(&ctx).exists());
    std::fs::write(ctx.work.join("a-file"), "x").unwrap();
    let out = ctx.run(&["space", "create", "Work", "--dir", "a-file"]);
    out.failure(1).stderr_has("a-file is not a directory");
    assert!(!spaces_json(&ctx).exists());
}

#[test]
fn space_create_keeps_unknown_keys() {
    let ctx = TestContext::new();
    std::fs::create_dir_all(&ctx.runtime).unwrap();
    std::fs::write(
        spaces_json(&ctx),
        r##"{"version":2,"spaces":[{"id":"sp-app","name":"Inbox","color":"#f00","pinned":true}],"order":["sp-app"]}"##,
    )
    .unwrap();
    ctx.run(&["space", "create", "Work"]).success();
    let file = ctx.read_json(&spaces_json(&ctx));
    assert_eq!(file["version"], 2);
    assert_eq!(file["order"], json!(["sp-app"]));
    assert_eq!(
        file["spaces"][0],
        json!({"id": "sp-app", "name": "Inbox", "color": "#f00", "pinned": true})
    );
    assert_eq!(file["spaces"][1]["name"], "Work");
    let keys: Vec<&String> = file.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["version", "spaces", "order"]);
    // The app's entry is listed, its created time empty.
    ctx.run(&["space", "list"])
        .success()
        .stdout_has("sp-app\tInbox\t\t\n");
}

#[test]
fn a_corrupt_spaces_file_is_named_and_kept() {
    let ctx = TestContext::new();
    std::fs::create_dir_all(&ctx.runtime).unwrap();
    std::fs::write(spaces_json(&ctx), "{\"spaces\": [\n").unwrap();
    let out = ctx.run(&["space", "create", "Work", "--json"]);
    out.failure(1);
    assert_eq!(out.json()["error"]["code"], "corrupt_state");
    ctx.run(&["space", "list"])
        .failure(1)
        .stderr_has("spaces.json is not valid JSON (line 2");
    assert_eq!(
        std::fs::read_to_string(spaces_json(&ctx)).unwrap(),
        "{\"spaces\": [\n"
    );
}

// ---------------------------------------------------------------------------------------------
// skills

fn write_skill(dir: &Path, folder: &str, skill_md: &str) -> PathBuf {
    let path = dir.join(folder).join("SKILL.md");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, skill_md).unwrap();
    path
}

fn front(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nBody of {name}.\n")
}

struct Roots {
    project: PathBuf,
    personal: PathBuf,
    global: PathBuf,
}

fn roots(ctx: &TestContext) -> Roots {
    Roots {
        project: ctx.work.join(".finch/skills"),
        personal: ctx.agent.join("skills"),
        global: ctx.runtime.join("skills"),
    }
}

#[test]
fn skills_of_each_source_are_listed() {
    let ctx = TestContext::new();
    let r = roots(&ctx);
    let p = write_skill(&r.project, "deploy", &front("deploy", "Ship the project"));
    let q = write_skill(&r.personal, "notes", &front("notes", "Take notes"));
    let g = write_skill(&r.global, "pdf", &front("pdf", "Fill PDF forms"));
    // A directory without SKILL.md and a hidden one are not skills.
    std::fs::create_dir_all(r.global.join("empty")).unwrap();
    write_skill(&r.global, ".hidden", &front("hidden", "x"));
    let out = ctx.run(&["skill", "list"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!(
            "deploy\tproject\tactive\tShip the project\t{}\n\
             notes\tpersonal\tactive\tTake notes\t{}\n\
             pdf\tglobal\tactive\tFill PDF forms\t{}\n",
            p.display(),
            q.display(),
            g.display()
        ),
        "{out}"
    );
    assert_eq!(out.stderr(), "");
    let out = ctx.run(&["skill", "list", "--json"]);
    out.success();
    assert_eq!(
        out.json()[2],
        json!({"name": "pdf", "description": "Fill PDF forms", "source": "global",
            "minitool": null, "path": g.to_str().unwrap(), "active": true, "shadowedBy": null})
    );
}

#[test]
fn a_name_clash_is_won_by_project_then_personal_then_global() {
    let ctx = TestContext::new();
    let r = roots(&ctx);
    let p = write_skill(&r.project, "review", &front("review", "Project review"));
    write_skill(&r.personal, "review", &front("review", "Personal review"));
    write_skill(&r.global, "review", &front("review", "Global review"));
    // Two personal-vs-global only.
    write_skill(&r.personal, "fmt", &front("fmt", "Personal fmt"));
    write_skill(&r.global, "fmt-dir", &front("fmt", "Global fmt"));
    let out = ctx.run(&["skill", "list"]);
    out.success();
    let rows: Vec<Vec<String>> = out
        .stdout()
        .lines()
        .map(|l| l.split('\t').take(4).map(str::to_string).collect())
        .collect();
    assert_eq!(
        rows,
        [
            ["fmt", "personal", "active", "Personal fmt"],
            ["fmt", "global", "shadowed by personal", "Global fmt"],
            ["review", "project", "active", "Project review"],
            [
                "review",
                "personal",
                "shadowed by project",
                "Personal review"
            ],
            ["review", "global", "shadowed by project", "Global review"],
        ]
    );
    let out = ctx.run(&["skill", "show", "review"]);
    out.success();
    assert_eq!(out.stdout(), front("review", "Project review"));
    let out = ctx.run(&["skill", "show", "review", "--json"]);
    out.success();
    let doc = out.json();
    assert_eq!(doc["source"], "project");
    assert_eq!(doc["path"], p.to_str().unwrap());
    assert_eq!(doc["content"], front("review", "Project review"));
    ctx.run(&["skill", "show", "fmt"])
        .success()
        .stdout_has("Personal fmt");
}

#[test]
fn front_matter_forms() {
    let ctx = TestContext::new();
    let r = roots(&ctx);
    write_skill(
        &r.personal,
        "quoted",
        "---\nname: \"quoted: name\"\ndescription: 'It''s \"quoted\"' # comment\n---\nBody\n",
    );
    write_skill(
        &r.personal,
        "bare",
        "---\nname: bare\n---\nNo description here\n",
    );
    write_skill(&r.personal, "no-front-matter", "# Just Markdown\n");
    write_skill(
        &r.personal,
        "folded",
        "---\r\nname: folded\r\ndescription: >\r\n  Two lines\r\n  folded\r\nlicense: MIT\r\n---\r\n",
    );
    let out = ctx.run(&["skill", "list", "--json"]);
    out.success();
    let skills: Vec<(Value, Value)> = out
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].clone(), s["description"].clone()))
        .collect();
    assert_eq!(
        skills,
        [
            (json!("bare"), Value::Null),
            (json!("folded"), json!("Two lines folded")),
            (json!("no-front-matter"), Value::Null),
            (json!("quoted: name"), json!("It's \"quoted\"")),
        ]
    );
    ctx.run(&["skill", "list"])
        .success()
        .stdout_has("bare\tpersonal\tactive\t\t");
}

#[test]
fn a_mini_tools_skill_counts_only_while_it_is_enabled() {
    let ctx = TestContext::new();
    let src = ctx.work.join("src/skill-tool");
    MiniTool::new("skill-tool", "1.0.0")
        .file("skills/helper/SKILL.md", &front("helper", "Bundled helper"))
        .file("skills/shared/SKILL.md", &front("shared", "Bundled shared"))
        .write_to(&src);
    ctx.run(&["add", src.to_str().unwrap()]).success();
    let out = ctx.run(&["skill", "list"]);
    out.success();
    assert_eq!(out.stdout(), "", "installed but disabled: {out}");

    ctx.run(&["enable", "skill-tool"]).success();
    let installed = ctx.personal_tier().join("skill-tool/skills");
    let out = ctx.run(&["skill", "list"]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!(
            "helper\tminitool:skill-tool\tactive\tBundled helper\t{}\n\
             shared\tminitool:skill-tool\tactive\tBundled shared\t{}\n",
            installed.join("helper/SKILL.md").display(),
            installed.join("shared/SKILL.md").display()
        ),
        "{out}"
    );
    let out = ctx.run(&["skill", "list", "--json"]);
    assert_eq!(
        out.json()[0]["minitool"],
        json!({"id": "skill-tool", "tier": "personal"})
    );
    ctx.run(&["skill", "show", "helper"])
        .success()
        .stdout_has("Body of helper.");

    // The user's own skill of the same name wins over the bundled one.
    write_skill(&roots(&ctx).global, "shared", &front("shared", "Mine"));
    ctx.run(&["skill", "list"])
        .success()
        .stdout_has("shared\tglobal\tactive\tMine\t")
        .stdout_has("shared\tminitool:skill-tool\tshadowed by global\tBundled shared\t");

    ctx.run(&["disable", "skill-tool"]).success();
    let out = ctx.run(&["skill", "list"]);
    assert!(!out.stdout().contains("minitool"), "{out}");
    ctx.run(&["skill", "show", "helper"]).failure(3);
}

#[test]
fn skill_show_of_an_unknown_name_and_missing_homes() {
    let ctx = TestContext::new();
    // No agent home, runtime home or project skills at all.
    let out = ctx.run(&["skill", "list"]);
    out.success().stderr_has("No skills found");
    assert_eq!(out.stdout(), "");
    assert_eq!(ctx.run(&["skill", "list", "--json"]).json(), json!([]));
    ctx.run(&["skill", "show", "nope"])
        .failure(3)
        .stderr_has("Error: no skill named \"nope\"")
        .stderr_has("hint: run `finch skill list`");
    let out = ctx.run(&["skill", "show", "nope", "--json"]);
    out.failure(3);
    assert_eq!(out.json()["error"]["code"], "not_found");
}

#[test]
fn a_corrupt_extensions_json_leaves_out_only_mini_tool_skills() {
    let ctx = TestContext::new();
    write_skill(
        &roots(&ctx).personal,
        "notes",
        &front("notes", "Take notes"),
    );
    std::fs::create_dir_all(&ctx.runtime).unwrap();
    std::fs::write(ctx.runtime.join("extensions.json"), "{oops").unwrap();
    ctx.run(&["skill", "list"])
        .success()
        .stdout_has("notes\tpersonal\tactive")
        .stderr_has("extensions.json is not valid JSON")
        .stderr_has("skills of mini tools are left out");
}
