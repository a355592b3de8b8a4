//! `shell: true` works in the workspace as an approved Bash call would.

use std::path::Path;

use serde_json::json;

use super::{Doors, text_of};

#[test]
fn shell_lets_a_mini_tool_run_git_in_the_workspace() {
    let d = Doors::new();
    let dir = d.package(
        "git-branch",
        json!({"filesystem": "none", "shell": true}),
        json!({}),
        &[],
    );
    let dir = dir.display().to_string();
    let work = d.ctx.work.display().to_string();
    let record = d
        .call(
            "git-branch_try",
            json!({"what": "git", "cwd": work}),
            &["--minitool", &dir, "--approve", "git-branch_try"],
        )
        .json();
    assert_eq!(record["isError"], false, "{record}");
    assert_eq!(text_of(&record), "feature/doors", "{record}");
    assert!(d.ctx.work.join(".git/refs/heads/feature/doors").exists());
    // The protected paths stay read-only, and the rest of the disk stays closed.
    assert!(!d.marked());
    // tool info says what it may do and why.
    d.install(Path::new(&dir), "git-branch");
    let info = d.ctx.run(&["tool", "info", "git-branch_try", "--json"]);
    info.success();
    let sandbox = &info.json()["sandbox"];
    assert_eq!(sandbox["workspace"], "write", "{sandbox}");
    assert!(
        sandbox["workspaceWhy"]
            .as_str()
            .is_some_and(|w| w.contains("shell: true") && w.contains("inherited")),
        "{sandbox}"
    );
}
