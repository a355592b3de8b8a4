//! `finch add <npm spec>` against the loopback registry: version selection, where the registry
//! and token come from, the download cache, faults (404, 5xx, 429, slow, truncated, wrong
//! integrity), offline installs from the cache, registry quirks, and archive URLs.

use std::time::Duration;

use crate::common::fixtures::{MiniTool, sri_sha512};
use crate::common::registry::{Fault, Quirks, TestRegistry};
use crate::common::{TestContext, added_lines};

fn publish(reg: &TestRegistry, name: &str, versions: &[&str]) {
    for v in versions {
        reg.publish_tool(&MiniTool::new(name, v).display_name("Demo"));
    }
}

fn installed_version(ctx: &TestContext, id: &str) -> String {
    let pkg = ctx.read_json(&ctx.personal_tier().join(id).join("package.json"));
    pkg["version"].as_str().unwrap().to_string()
}

fn add(ctx: &TestContext, reg: &TestRegistry, spec: &str) -> crate::common::Run {
    ctx.run(&["add", spec, "--registry", &reg.url()])
}

#[test]
fn versions_ranges_and_tags_select_the_right_version() {
    let reg = TestRegistry::start();
    publish(&reg, "demo", &["1.0.0", "1.2.0", "1.2.5", "2.0.0"]);
    reg.publish_tool(&MiniTool::new("demo", "3.0.0-beta.1"));
    reg.set_tag("demo", "beta", "3.0.0-beta.1");
    let ctx = TestContext::new();
    let cases = [
        ("demo", "2.0.0"),
        ("demo@1.2.0", "1.2.0"),
        ("demo@^1.2", "1.2.5"),
        ("demo@~1.2.0", "1.2.5"),
        ("demo@>=1.0.0 <1.2.1", "1.2.0"),
        ("demo@1.x || 3.x", "1.2.5"),
        ("demo@beta", "3.0.0-beta.1"),
        ("demo@latest", "2.0.0"),
    ];
    for (spec, want) in cases {
        add(&ctx, &reg, spec).success();
        assert_eq!(installed_version(&ctx, "demo"), want, "{spec}");
    }
    let record = &ctx.read_json(&ctx.personal_tier().join(".plugins-lock.json"))["demo"];
    assert_eq!(record["type"], "npm");
    assert_eq!(record["package"], "demo");
    assert_eq!(record["version"], "2.0.0");
    assert!(
        record.get("spec").is_none(),
        "a bare name or @latest records no request: {record}"
    );
    assert!(record["integrity"].as_str().unwrap().starts_with("sha512-"));
    add(&ctx, &reg, "demo@^9")
        .failure(1)
        .stderr_has("no version of `demo` matches `^9`");
    add(&ctx, &reg, "demo@nightly")
        .failure(1)
        .stderr_has("has no dist-tag `nightly`");
}

#[test]
fn scoped_packages_install_as_scope_at_name_and_are_cached() {
    let reg = TestRegistry::start();
    let bytes = reg.publish_tool(&MiniTool::new("@acme/weather", "1.4.0").display_name("Weather"));
    let ctx = TestContext::new();
    let out = add(&ctx, &reg, "@acme/weather@^1");
    out.success();
    assert_eq!(
        out.stdout(),
        added_lines(
            "Weather",
            "acme@weather",
            &ctx.personal_tier().join("acme@weather")
        )
    );
    assert_eq!(out.stderr(), "", "no progress or chatter on a pipe");
    let record = &ctx.read_json(&ctx.personal_tier().join(".plugins-lock.json"))["acme@weather"];
    assert_eq!(record["integrity"], sri_sha512(&bytes));
    let cached = ctx.runtime.join("cache/minitools");
    let files = ctx.tree(&cached);
    assert!(files.iter().any(|f| f.ends_with("1.4.0.tgz")), "{files:?}");
    assert!(
        reg.requests()
            .iter()
            .any(|r| r.path.to_ascii_lowercase().contains("@acme%2fweather"))
    );
    let accept = reg.requests()[0].header("accept").unwrap_or("").to_string();
    assert!(
        accept.contains("application/vnd.npm.install-v1+json"),
        "{accept}"
    );
    let ua = reg.requests()[0]
        .header("user-agent")
        .unwrap_or("")
        .to_string();
    assert!(ua.starts_with("finch/"), "{ua}");
}

#[test]
fn the_registry_comes_from_config_env_npmrc_or_npm_itself() {
    let reg = TestRegistry::start();
    publish(&reg, "demo", &["1.0.0"]);

    // finch.toml
    let ctx = TestContext::new();
    ctx.write_config(&format!("registry = \"{}\"\n", reg.url()));
    ctx.run(&["add", "demo"]).success();

    // npm_config_registry
    let ctx = TestContext::new();
    ctx.cmd()
        .env("npm_config_registry", reg.url())
        .args(["add", "demo"])
        .assert()
        .success();

    // project .npmrc (the nearest directory with a package.json)
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("package.json"), "{}").unwrap();
    std::fs::write(ctx.work.join(".npmrc"), format!("registry={}\n", reg.url())).unwrap();
    let sub = ctx.work.join("src");
    std::fs::create_dir(&sub).unwrap();
    ctx.cmd()
        .current_dir(&sub)
        .args(["add", "demo"])
        .assert()
        .success();

    // user ~/.npmrc
    let ctx = TestContext::new();
    std::fs::write(
        ctx.home.join(".npmrc"),
        format!("registry = {}\n", reg.url()),
    )
    .unwrap();
    ctx.run(&["add", "demo"]).success();

    // `npm config get registry`, from a stand-in npm on PATH
    let ctx = TestContext::new();
    let bin = ctx.base().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let npm = bin.join("npm");
    std::fs::write(
        &npm,
        format!(
            "#!/bin/sh\n[ \"$1 $2 $3\" = \"config get registry\" ] && echo {}\n",
            reg.url()
        ),
    )
    .unwrap();
    make_executable(&npm);
    ctx.cmd()
        .env("PATH", &bin)
        .args(["add", "demo"])
        .assert()
        .success();

    // the flag wins over a wrong finch.toml
    let ctx = TestContext::new();
    ctx.write_config("registry = \"http://127.0.0.1:9/\"\n");
    add(&ctx, &reg, "demo").success();
}

#[test]
fn no_registry_anywhere_is_an_error_that_names_the_flag() {
    let ctx = TestContext::new();
    let empty = ctx.base().join("empty-path");
    std::fs::create_dir(&empty).unwrap();
    let out = ctx
        .cmd()
        .env("PATH", &empty)
        .args(["add", "demo"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("Error: no npm registry is configured"),
        "{stderr}"
    );
    assert!(stderr.contains("hint: pass --registry URL"), "{stderr}");
}

#[test]
fn npmrc_tokens_are_sent_and_never_printed() {
    let reg = TestRegistry::start();
    publish(&reg, "private", &["1.0.0"]);
    reg.require_token("s3cret-token");
    let ctx = TestContext::new();
    let out = add(&ctx, &reg, "private");
    out.failure(1)
        .stderr_has("refused access (HTTP 401)")
        .stderr_has(&format!("//{}/:_authToken=", reg.authority()));
    std::fs::write(
        ctx.home.join(".npmrc"),
        format!(
            "registry={}\n//{}/:_authToken=${{MY_TOKEN}}\n",
            reg.url(),
            reg.authority()
        ),
    )
    .unwrap();
    let out = ctx
        .cmd()
        .env("MY_TOKEN", "s3cret-token")
        .args(["-v", "add", "private"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!all.contains("s3cret-token"), "the token leaked: {all}");
    let auth: Vec<_> = reg
        .requests()
        .iter()
        .filter_map(|r| r.header("authorization").map(str::to_string))
        .collect();
    assert!(auth.iter().any(|a| a == "Bearer s3cret-token"), "{auth:?}");
}

#[test]
fn not_found_is_exit_3() {
    let reg = TestRegistry::start();
    let ctx = TestContext::new();
    add(&ctx, &reg, "ghost")
        .failure(3)
        .stderr_has("package `ghost` was not found in the registry");
    reg.set_fault("demo", Fault::NotFound);
    add(&ctx, &reg, "demo").failure(3);
}

#[test]
fn transient_server_errors_and_rate_limits_are_retried() {
    let reg = TestRegistry::start();
    publish(&reg, "demo", &["1.0.0"]);
    let ctx = TestContext::new();
    reg.set_fault("/demo", Fault::ServerErrorTimes(2));
    add(&ctx, &reg, "demo").success();
    let gets = reg.requests().iter().filter(|r| r.path == "/demo").count();
    assert_eq!(gets, 3, "two 500s then a 200");

    let ctx = TestContext::new();
    reg.clear_faults();
    reg.set_fault(
        ".tgz",
        Fault::TooManyRequests {
            times: 1,
            retry_after_secs: 1,
        },
    );
    add(&ctx, &reg, "demo").success();

    let ctx = TestContext::new();
    reg.clear_faults();
    reg.set_fault("/demo", Fault::ServerErrorTimes(10));
    add(&ctx, &reg, "demo")
        .failure(1)
        .stderr_has("answered HTTP 500")
        .stderr_has("hint:");
    assert!(!ctx.personal_tier().join("demo").exists());
}

#[test]
fn slow_bodies_complete_and_cut_bodies_are_retried_or_fail_cleanly() {
    let reg = TestRegistry::start();
    reg.publish_tool(
        &MiniTool::new("demo", "1.0.0").file_bytes("dist/blob.bin", &vec![7u8; 64 * 1024]),
    );
    let ctx = TestContext::new();
    reg.set_fault(
        ".tgz",
        Fault::SlowBody {
            chunk: 256,
            delay: Duration::from_millis(2),
        },
    );
    add(&ctx, &reg, "demo").success();

    let ctx = TestContext::new();
    reg.clear_faults();
    reg.set_fault(
        ".tgz",
        Fault::Truncate {
            after: 100,
            times: Some(1),
        },
    );
    add(&ctx, &reg, "demo").success();

    let ctx = TestContext::new();
    reg.clear_faults();
    reg.set_fault(
        ".tgz",
        Fault::Truncate {
            after: 100,
            times: None,
        },
    );
    add(&ctx, &reg, "demo").failure(1).stderr_has("Error:");
    assert!(!ctx.personal_tier().join("demo").exists());
    let cached = ctx.tree(&ctx.runtime.join("cache/minitools"));
    assert!(
        !cached
            .iter()
            .any(|f| f.ends_with(".tgz") || f.ends_with(".partial")),
        "{cached:?}"
    );
}

#[test]
fn a_stalled_download_times_out() {
    let reg = TestRegistry::start();
    reg.publish_tool(
        &MiniTool::new("demo", "1.0.0").file_bytes("dist/blob.bin", &vec![1u8; 32 * 1024]),
    );
    reg.set_fault(".tgz", Fault::Stall { after: 64 });
    let ctx = TestContext::new();
    ctx.write_config("[network]\ntimeout = \"300ms\"\n");
    add(&ctx, &reg, "demo").failure(1).stderr_has("Error:");
    assert!(!ctx.personal_tier().join("demo").exists());
    reg.release_stalls();
}

#[test]
fn wrong_integrity_is_fatal_names_both_digests_and_extracts_nothing() {
    let reg = TestRegistry::start();
    let bytes = reg.publish_tool(&MiniTool::new("demo", "1.0.0"));
    reg.set_fault("demo", Fault::WrongIntegrity);
    let ctx = TestContext::new();
    let out = add(&ctx, &reg, "demo");
    out.failure(1)
        .stderr_has("integrity mismatch: expected sha512-")
        .stderr_has(&format!("got {}", sri_sha512(&bytes)));
    assert!(!ctx.personal_tier().join("demo").exists());
    let cached = ctx.tree(&ctx.runtime.join("cache/minitools"));
    assert!(!cached.iter().any(|f| f.ends_with(".tgz")), "{cached:?}");
    let staging = ctx.install_leftovers();
    assert!(staging.is_empty(), "{staging:?}");
}

#[test]
fn an_offline_reinstall_succeeds_from_the_cache() {
    let ctx = TestContext::new();
    let url = {
        let reg = TestRegistry::start();
        publish(&reg, "demo", &["1.0.0", "1.1.0"]);
        add(&ctx, &reg, "demo").success();
        reg.url()
    }; // the registry is gone now
    std::fs::remove_dir_all(ctx.personal_tier().join("demo")).unwrap();
    ctx.run(&["add", "demo", "--registry", &url]).success();
    assert_eq!(installed_version(&ctx, "demo"), "1.1.0");
    ctx.run(&["add", "demo@1.0.0", "--registry", &url])
        .failure(1)
        .stderr_has("cannot reach");
}

#[test]
fn registry_quirks_are_tolerated() {
    for quirks in [
        Quirks {
            full_document_as_plain_json: true,
            ..Quirks::default()
        },
        Quirks {
            minimal_fields: true,
            ..Quirks::default()
        },
        Quirks {
            time_plus_offsets: true,
            ..Quirks::default()
        },
        Quirks {
            full_document_as_plain_json: true,
            minimal_fields: true,
            time_plus_offsets: true,
        },
    ] {
        let reg = TestRegistry::start();
        reg.set_quirks(quirks);
        publish(&reg, "demo", &["1.0.0", "1.5.0"]);
        let ctx = TestContext::new();
        add(&ctx, &reg, "demo@^1").success();
        assert_eq!(installed_version(&ctx, "demo"), "1.5.0", "{quirks:?}");
    }
}

#[test]
fn archive_urls_install_and_record_the_url() {
    let reg = TestRegistry::start();
    let tgz_url = reg.serve_file(
        "tool-1.0.0.tgz",
        MiniTool::new("url-tgz", "1.0.0").npm_tarball(),
    );
    let zip_url = reg.serve_file("bundle.zip", MiniTool::new("url-zip", "1.0.0").zip(""));
    let ctx = TestContext::new();
    ctx.run(&["add", &tgz_url])
        .success()
        .stdout_has("(url-tgz)");
    ctx.run(&["add", &zip_url])
        .success()
        .stdout_has("(url-zip)");
    let records = ctx.read_json(&ctx.personal_tier().join(".plugins-lock.json"));
    assert_eq!(records["url-tgz"]["type"], "tgz");
    assert_eq!(records["url-tgz"]["url"], tgz_url);
    assert_eq!(records["url-zip"]["type"], "zip");
    assert_eq!(records["url-zip"]["url"], zip_url);
    let missing = format!("{}files/missing.tgz", reg.url());
    ctx.run(&["add", &missing])
        .failure(1)
        .stderr_has("answered HTTP 404");
}

fn make_executable(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}
