//! SIGKILL at any moment leaves the old install or the new one, never a mix, and the next finch
//! recovers: a kill while a download is stalled mid-tarball, and kills at many points of a large
//! directory install.

use std::process::{Child, Stdio};
use std::time::Duration;

use crate::common::TestContext;
use crate::common::fixtures::MiniTool;
use crate::common::registry::{Fault, TestRegistry};

fn spawn(ctx: &TestContext, args: &[&str]) -> Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_finch"))
        .env_clear()
        .env("HOME", &ctx.home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("FINCH_RUNTIME_HOME", &ctx.runtime)
        .env("FINCH_AGENT_HOME", &ctx.agent)
        .current_dir(&ctx.work)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn finch")
}

fn kill(mut child: Child) {
    // SIGKILL: no destructor, no cleanup, exactly what a crash looks like.
    let _ = child.kill();
    let _ = child.wait();
}

fn big(version: &str) -> MiniTool {
    MiniTool::new("demo", version).file_bytes("dist/blob.bin", &vec![9u8; 256 * 1024])
}

#[test]
fn killing_a_stalled_update_keeps_the_old_install() {
    let reg = TestRegistry::start();
    reg.publish_tool(&big("1.0.0"));
    let ctx = TestContext::new();
    ctx.run(&["add", "demo", "--registry", &reg.url()])
        .success();
    let installed = ctx.personal_tier().join("demo");
    let before = ctx.tree(&installed);
    reg.publish_tool(&big("2.0.0"));
    reg.set_fault("demo-2.0.0.tgz", Fault::Stall { after: 10_000 });
    let child = spawn(&ctx, &["update", "demo", "--registry", &reg.url()]);
    assert!(
        reg.wait_for_stall(Duration::from_secs(20)),
        "the download never started"
    );
    kill(child);
    assert_eq!(ctx.tree(&installed), before);
    assert_eq!(
        ctx.read_json(&installed.join("package.json"))["version"],
        "1.0.0"
    );
    let names: Vec<String> = ctx
        .tree(&ctx.personal_tier())
        .into_iter()
        .filter(|p| !p.contains('/'))
        .collect();
    assert!(
        names
            .iter()
            .all(|n| n == "demo" || n == ".lock" || n == ".plugins-lock.json"),
        "{names:?}"
    );
    reg.clear_faults();
    reg.release_stalls();
    ctx.run(&["update", "demo", "--registry", &reg.url()])
        .success()
        .stdout_has("v1.0.0 → v2.0.0");
    assert_eq!(
        ctx.read_json(&installed.join("package.json"))["version"],
        "2.0.0"
    );
}

#[test]
fn killing_a_stalled_add_leaves_nothing_and_the_next_add_succeeds() {
    let reg = TestRegistry::start();
    reg.publish_tool(&big("1.0.0"));
    reg.set_fault(".tgz", Fault::Stall { after: 5_000 });
    let ctx = TestContext::new();
    let child = spawn(&ctx, &["add", "demo", "--registry", &reg.url()]);
    assert!(
        reg.wait_for_stall(Duration::from_secs(20)),
        "the download never started"
    );
    kill(child);
    assert!(!ctx.personal_tier().join("demo").exists());
    reg.clear_faults();
    reg.release_stalls();
    ctx.run(&["add", "demo", "--registry", &reg.url()])
        .success();
    assert!(ctx.personal_tier().join("demo/dist/blob.bin").is_file());
    let cache = ctx.tree(&ctx.runtime.join("cache/minitools"));
    assert!(!cache.iter().any(|f| f.ends_with(".partial")), "{cache:?}");
}

/// A package of many small files, so copying it takes long enough to be interrupted.
fn many_files(version: &str, marker: &str) -> MiniTool {
    let mut tool = MiniTool::new("demo", version).file(marker, marker);
    for i in 0..1500 {
        tool = tool.file(&format!("dist/files/f{i:04}.js"), "export const x = 1;\n");
    }
    tool
}

#[test]
fn kills_at_any_moment_of_a_directory_install_leave_old_or_new() {
    let ctx = TestContext::new();
    let old_src = ctx.work.join("old");
    let new_src = ctx.work.join("new");
    many_files("1.0.0", "old.txt").write_to(&old_src);
    many_files("2.0.0", "new.txt").write_to(&new_src);
    ctx.run(&["add", old_src.to_str().unwrap()]).success();
    let installed = ctx.personal_tier().join("demo");
    let old_tree = ctx.tree(&installed);
    let new_tree: Vec<String> = {
        let probe = TestContext::new();
        probe.run(&["add", new_src.to_str().unwrap()]).success();
        probe.tree(&probe.personal_tier().join("demo"))
    };
    assert_ne!(old_tree, new_tree);
    let (mut saw_old, mut saw_new) = (0, 0);
    for step in 0..24u64 {
        let child = spawn(&ctx, &["add", new_src.to_str().unwrap()]);
        std::thread::sleep(Duration::from_millis(step * 4));
        kill(child);
        // Whatever the kill interrupted, the listing still works and the install is whole.
        ctx.run(&["list"]).success();
        let now = ctx.tree(&installed);
        if now == old_tree {
            saw_old += 1;
        } else if now == new_tree {
            saw_new += 1;
        } else {
            panic!(
                "step {step}: the install is a mix of old and new ({} paths)",
                now.len()
            );
        }
        // Put the old one back for the next round once the new one landed.
        if now == new_tree {
            ctx.run(&["add", old_src.to_str().unwrap()]).success();
        }
    }
    // Where each kill lands depends on timing; the early ones always land before the swap.
    assert!(saw_old > 0, "no kill landed before the swap");
    eprintln!("kills that left the old install: {saw_old}, the new one: {saw_new}");
    ctx.run(&["add", new_src.to_str().unwrap()]).success();
    assert_eq!(ctx.tree(&installed), new_tree);
    let leftovers = ctx.install_leftovers();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
