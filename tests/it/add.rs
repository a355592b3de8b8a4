//! `finch add` from directories, dev links and archive files: output lines, install layout,
//! lock records, identity guard, and what is carried across a reinstall.

use std::path::Path;

use serde_json::json;

use crate::common::fixtures::MiniTool;
use crate::common::{TestContext, added_lines};

fn tool(name: &str, version: &str) -> MiniTool {
    MiniTool::new(name, version).display_name(&format!("{name} tool"))
}

#[test]
fn add_directory_prints_the_app_lines_and_installs_a_copy() {
    let ctx = TestContext::new();
    let src = ctx.work.join("weather");
    tool("weather", "1.2.0").write_to(&src);
    let out = ctx.run(&["add", src.to_str().unwrap()]);
    out.success();
    let dest = ctx.personal_tier().join("weather");
    assert_eq!(out.stdout(), added_lines("weather tool", "weather", &dest));
    assert!(dest.join("dist/index.js").is_file());
    assert!(
        !std::fs::symlink_metadata(&dest)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(dest.join(".finch-id")).unwrap(),
        "weather"
    );
    let records = ctx.read_json(&ctx.personal_tier().join(".plugins-lock.json"));
    let record = &records["weather"];
    assert_eq!(record["type"], "local");
    assert_eq!(record["localPath"], src.display().to_string());
    assert_eq!(record["version"], "1.2.0");
    assert!(record["installedAt"].as_str().unwrap().ends_with('Z'));
    // add never enables
    assert!(!ctx.runtime.join("extensions.json").exists());
}

#[test]
fn add_dot_and_dotdot_resolve_against_the_working_directory() {
    let ctx = TestContext::new();
    let src = ctx.work.join("pkg");
    tool("dotted", "1.0.0").write_to(&src);
    ctx.cmd()
        .current_dir(&src)
        .arg("add")
        .arg(".")
        .assert()
        .success();
    assert!(ctx.personal_tier().join("dotted/package.json").is_file());
    let inner = src.join("sub");
    std::fs::create_dir_all(&inner).unwrap();
    let out = ctx
        .cmd()
        .current_dir(&inner)
        .args(["add", ".."])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn add_global_installs_into_the_runtime_tier() {
    let ctx = TestContext::new();
    let src = ctx.work.join("g");
    tool("globaltool", "1.0.0").write_to(&src);
    ctx.run(&["add", "-g", src.to_str().unwrap()]).success();
    assert!(ctx.global_tier().join("globaltool/package.json").is_file());
    assert!(ctx.global_tier().join(".plugins-lock.json").is_file());
    assert!(!ctx.personal_tier().join("globaltool").exists());
}

#[test]
fn a_directory_of_several_mini_tools_installs_each_valid_one() {
    let ctx = TestContext::new();
    let src = ctx.work.join("collection");
    tool("alpha", "1.0.0").write_to(&src.join("alpha"));
    tool("beta", "1.0.0").write_to(&src.join("nested/beta"));
    tool("broken", "1.0.0")
        .no_entry()
        .write_to(&src.join("broken"));
    tool("too-deep", "1.0.0").write_to(&src.join("a/b/c/d"));
    let out = ctx.run(&["add", src.to_str().unwrap()]);
    out.success()
        .stderr_has("skipped")
        .stderr_has("entry file not found: dist/index.js");
    assert_eq!(out.stdout().matches("✓ Added").count(), 2, "{out}");
    assert!(ctx.personal_tier().join("alpha").is_dir());
    assert!(ctx.personal_tier().join("beta").is_dir());
    assert!(!ctx.personal_tier().join("broken").exists());
    assert!(!ctx.personal_tier().join("too-deep").exists());
}

#[test]
fn a_directory_without_mini_tools_is_an_error() {
    let ctx = TestContext::new();
    let src = ctx.work.join("empty");
    std::fs::create_dir_all(src.join("x")).unwrap();
    std::fs::write(src.join("package.json"), r#"{"name":"plain"}"#).unwrap();
    ctx.run(&["add", src.to_str().unwrap()])
        .failure(1)
        .stderr_has(&format!(
            "Error: No Finch extension found in {}",
            src.display()
        ));
    assert!(!ctx.personal_tier().join("plain").exists());
}

#[test]
fn a_manifest_without_manifest_version_installs_as_with_the_official_cli() {
    let ctx = TestContext::new();
    let src = ctx.work.join("noversion");
    tool("noversion", "1.0.0")
        .remove_finch_field("manifestVersion")
        .write_to(&src);
    let out = ctx.run(&["add", src.to_str().unwrap()]);
    out.success();
    let dest = ctx.personal_tier().join("noversion");
    assert_eq!(
        out.stdout(),
        added_lines("noversion tool", "noversion", &dest)
    );
    assert_eq!(out.stderr(), "", "{out}");
    assert!(dest.join("dist/index.js").is_file());
}

#[test]
fn an_invalid_mini_tool_is_refused_with_its_problems_and_nothing_changes() {
    let ctx = TestContext::new();
    let src = ctx.work.join("bad");
    tool("bad", "1.0.0")
        .finch_field("manifestVersion", json!(3))
        .no_entry()
        .write_to(&src);
    let out = ctx.run(&["add", src.to_str().unwrap()]);
    out.failure(1)
        .stderr_has("manifestVersion must be 1")
        .stderr_has("entry file not found: dist/index.js (build the mini tool first)")
        .stderr_has("hint: run `finch doctor <path>`");
    let left: Vec<String> = ctx
        .tree(&ctx.personal_tier())
        .into_iter()
        .filter(|p| !p.starts_with(".lock"))
        .collect();
    assert!(left.is_empty(), "the tier holds {left:?}");
}

#[test]
fn missing_paths_and_unsupported_files_are_clear_errors() {
    let ctx = TestContext::new();
    ctx.run(&["add", "./nope"])
        .failure(3)
        .stderr_has("no such file or directory");
    std::fs::write(ctx.work.join("notes.txt"), "x").unwrap();
    ctx.run(&["add", "notes.txt"])
        .failure(1)
        .stderr_has("neither a directory, a .zip nor a .tgz");
    ctx.run(&["add", "https://example.invalid/tool.txt"])
        .failure(1)
        .stderr_has("does not name a .zip, .tgz or .tar.gz");
    ctx.run(&["add", "Not A Package!"])
        .failure(1)
        .stderr_has("invalid package spec");
}

#[test]
fn dev_link_points_at_the_source_and_writes_nothing_into_it() {
    let ctx = TestContext::new();
    let src = ctx.work.join("devtool");
    tool("devtool", "0.1.0").write_to(&src);
    let before = ctx.tree(&src);
    let out = ctx.run(&["add", "-d", src.to_str().unwrap()]);
    out.success();
    assert_eq!(
        out.stdout(),
        format!(
            "✓ Linked \"devtool tool\" (devtool) → {}\n  Development install: source changes are used directly; update will not overwrite this link.\n",
            src.display()
        )
    );
    let link = ctx.personal_tier().join("devtool");
    assert_eq!(std::fs::read_link(&link).unwrap(), src);
    assert_eq!(ctx.tree(&src), before, "nothing written into the source");
    let records = ctx.read_json(&ctx.personal_tier().join(".plugins-lock.json"));
    let mut record = records["devtool"].clone();
    record.as_object_mut().unwrap().remove("installedAt");
    assert_eq!(
        record,
        json!({"type":"dev","mode":"development","linked":true,"localPath":src.display().to_string()})
    );
}

#[test]
fn dev_link_refuses_overlapping_source_and_non_directories() {
    let ctx = TestContext::new();
    // The agent home inside the source directory: the link would contain itself.
    let src = ctx.work.join("overlap");
    tool("overlap", "1.0.0").write_to(&src);
    ctx.cmd()
        .env("FINCH_AGENT_HOME", src.join("agent"))
        .args(["add", "-d", src.to_str().unwrap()])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("overlap"));
    assert!(!src.join("agent/.finch/extensions/overlap").exists());
    let tgz = ctx.work.join("t.tgz");
    std::fs::write(&tgz, tool("t", "1.0.0").npm_tarball()).unwrap();
    let out = ctx.run(&["add", "-d", tgz.to_str().unwrap()]);
    out.failure(1);
    assert_eq!(
        out.stderr(),
        format!(
            "Error: --dev requires a directory, not an archive: {}\n\
             hint: use `finch add <dir> -d`, or drop -d to install a copy\n",
            tgz.display()
        )
    );
    let out = ctx.run(&["add", "@scope/dev-tool", "--dev"]);
    out.failure(1);
    assert_eq!(
        out.stderr(),
        "Error: --dev only supports a local extension directory; \"@scope/dev-tool\" is an npm package\n\
         hint: use `finch add <dir> -d`, or drop -d to install a copy\n"
    );
    assert!(ctx.tree(&ctx.personal_tier()).is_empty());
}

#[test]
fn tgz_and_zip_files_install_and_record_their_path() {
    let ctx = TestContext::new();
    let tgz = ctx.work.join("from-tgz-1.0.0.tgz");
    std::fs::write(&tgz, tool("from-tgz", "1.0.0").npm_tarball()).unwrap();
    ctx.run(&["add", tgz.to_str().unwrap()])
        .success()
        .stdout_has("✓ Added \"from-tgz tool\" (from-tgz)");
    let zip = ctx.work.join("bundle.zip");
    std::fs::write(&zip, tool("from-zip", "2.0.0").zip("from-zip/")).unwrap();
    ctx.run(&["add", zip.to_str().unwrap()]).success();
    let targz = ctx.work.join("other.tar.gz");
    std::fs::write(&targz, tool("from-targz", "1.0.0").npm_tarball()).unwrap();
    ctx.run(&["add", targz.to_str().unwrap()]).success();
    let records = ctx.read_json(&ctx.personal_tier().join(".plugins-lock.json"));
    assert_eq!(records["from-tgz"]["type"], "tgz");
    assert_eq!(records["from-tgz"]["localPath"], tgz.display().to_string());
    assert_eq!(records["from-zip"]["type"], "zip");
    assert_eq!(records["from-zip"]["version"], "2.0.0");
    assert_eq!(records["from-targz"]["type"], "tgz");
    for id in ["from-tgz", "from-zip", "from-targz"] {
        assert!(
            ctx.personal_tier().join(id).join("dist/index.js").is_file(),
            "{id}"
        );
    }
    // No staging directories are left behind.
    let leftovers = ctx.install_leftovers();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn an_archive_without_a_mini_tool_names_the_archive() {
    let ctx = TestContext::new();
    let tgz = ctx.work.join("plain.tgz");
    let plain = MiniTool::new("plain", "1.0.0").remove_package_field("finch");
    std::fs::write(&tgz, plain.npm_tarball()).unwrap();
    ctx.run(&["add", tgz.to_str().unwrap()])
        .failure(1)
        .stderr_has(&format!("No Finch extension found in {}", tgz.display()));
}

#[test]
fn scoped_packages_without_finch_id_install_as_scope_at_name() {
    let ctx = TestContext::new();
    let src = ctx.work.join("scoped");
    MiniTool::new("@acme/weather", "1.0.0").write_to(&src);
    ctx.run(&["add", src.to_str().unwrap()])
        .success()
        .stdout_has("(acme@weather)");
    let dest = ctx.personal_tier().join("acme@weather");
    assert!(dest.is_dir());
    assert_eq!(
        std::fs::read_to_string(dest.join(".finch-id")).unwrap(),
        "acme@weather"
    );
}

#[test]
fn finch_json_manifest_with_finch_id_and_no_package_name() {
    let ctx = TestContext::new();
    let src = ctx.work.join("manifest-only");
    std::fs::create_dir_all(src.join("dist")).unwrap();
    std::fs::write(
        src.join("finch.json"),
        r#"{"manifestVersion":1,"id":"manifest-only","name":"Only Manifest"}"#,
    )
    .unwrap();
    std::fs::write(src.join("dist/index.js"), "export function activate() {}\n").unwrap();
    ctx.run(&["add", src.to_str().unwrap()])
        .success()
        .stdout_has("✓ Added \"Only Manifest\" (manifest-only)");
    // No package name: the id is not derived from one, so no .finch-id marker.
    assert!(!ctx.personal_tier().join("manifest-only/.finch-id").exists());
}

#[test]
fn another_package_cannot_take_an_installed_id() {
    let ctx = TestContext::new();
    let first = ctx.work.join("first");
    MiniTool::new("shared-name", "1.0.0").write_to(&first);
    ctx.run(&["add", first.to_str().unwrap()]).success();
    // A different package whose sanitized name collides: "shared name" → "shared-name".
    let second = ctx.work.join("second");
    MiniTool::new("shared name", "9.0.0").write_to(&second);
    let before = std::fs::read(ctx.personal_tier().join("shared-name/package.json")).unwrap();
    ctx.run(&["add", second.to_str().unwrap()])
        .failure(1)
        .stderr_has("is already installed from package \"shared-name\"");
    assert_eq!(
        std::fs::read(ctx.personal_tier().join("shared-name/package.json")).unwrap(),
        before
    );
    // The same package under different case is the same owner.
    let third = ctx.work.join("third");
    MiniTool::new("Shared-Name", "2.0.0").write_to(&third);
    ctx.run(&["add", third.to_str().unwrap()]).success();
}

#[test]
fn reinstall_keeps_the_apps_enabled_marker_and_replaces_files() {
    let ctx = TestContext::new();
    let src = ctx.work.join("keep");
    tool("keep", "1.0.0").file("old.txt", "old").write_to(&src);
    ctx.run(&["add", src.to_str().unwrap()]).success();
    let dest = ctx.personal_tier().join("keep");
    std::fs::write(dest.join(".enabled"), "app state").unwrap();
    std::fs::remove_dir_all(&src).unwrap();
    tool("keep", "1.1.0").file("new.txt", "new").write_to(&src);
    ctx.run(&["add", src.to_str().unwrap()]).success();
    assert_eq!(
        std::fs::read_to_string(dest.join(".enabled")).unwrap(),
        "app state"
    );
    assert_eq!(
        std::fs::read_to_string(dest.join(".finch-id")).unwrap(),
        "keep"
    );
    assert!(dest.join("new.txt").is_file());
    assert!(!dest.join("old.txt").exists(), "old files do not linger");
    assert_eq!(
        ctx.read_json(&dest.join("package.json"))["version"],
        "1.1.0"
    );
}

#[test]
fn links_leaving_a_source_directory_are_refused() {
    let ctx = TestContext::new();
    let src = ctx.work.join("linky");
    tool("linky", "1.0.0").write_to(&src);
    std::os::unix::fs::symlink("/etc/hostname", src.join("dist/host")).unwrap();
    ctx.run(&["add", src.to_str().unwrap()])
        .failure(1)
        .stderr_has("package entry \"dist/host\" is a link to /etc/hostname outside the package");
    assert!(!ctx.personal_tier().join("linky").exists());
    // A link that stays inside is copied as a link.
    std::fs::remove_file(src.join("dist/host")).unwrap();
    std::os::unix::fs::symlink("index.js", src.join("dist/alias.js")).unwrap();
    ctx.run(&["add", src.to_str().unwrap()]).success();
    let alias = ctx.personal_tier().join("linky/dist/alias.js");
    assert_eq!(std::fs::read_link(alias).unwrap(), Path::new("index.js"));
}

#[test]
fn json_output_lists_what_was_installed() {
    let ctx = TestContext::new();
    let src = ctx.work.join("j");
    tool("jsontool", "3.1.4").write_to(&src);
    let out = ctx.run(&["--json", "add", src.to_str().unwrap()]);
    out.success();
    let doc = out.json();
    assert_eq!(doc["installed"][0]["id"], "jsontool");
    assert_eq!(doc["installed"][0]["version"], "3.1.4");
    assert_eq!(doc["installed"][0]["linked"], false);
    assert_eq!(doc["skipped"], json!([]));
}

#[test]
fn a_corrupt_lock_file_is_reported_and_nothing_changes() {
    let ctx = TestContext::new();
    let src = ctx.work.join("v1");
    tool("corrupt", "1.0.0").write_to(&src);
    ctx.run(&["add", src.to_str().unwrap()]).success();
    let records = ctx.personal_tier().join(".plugins-lock.json");
    std::fs::write(
        &records,
        "{\n  \"corrupt\": {\"type\": \"local\",\n  oops\n}\n",
    )
    .unwrap();
    let bytes = std::fs::read(&records).unwrap();
    let installed = ctx.personal_tier().join("corrupt");
    let before = ctx.tree(&installed);
    let next = ctx.work.join("v2");
    tool("corrupt", "2.0.0")
        .file("new.txt", "new")
        .write_to(&next);
    for args in [
        vec!["add", next.to_str().unwrap()],
        vec!["remove", "corrupt"],
        vec!["add", "-d", next.to_str().unwrap()],
    ] {
        let out = ctx.run(&args);
        out.failure(1)
            .stderr_has(&format!(
                "{} is not valid JSON (line 3, column 3)",
                records.display()
            ))
            .stderr_has("finch doctor --state");
        assert_eq!(std::fs::read(&records).unwrap(), bytes, "{args:?}");
        assert_eq!(ctx.tree(&installed), before, "{args:?}");
        assert_eq!(
            ctx.read_json(&installed.join("package.json"))["version"],
            "1.0.0"
        );
    }
}
