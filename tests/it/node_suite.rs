//! The drop-in check in CI: `tests/node/*.node-test.mjs` (node:test files written for finch, in
//! the manner of the official CLI's own suite) run with `node --test` against this build's
//! binary, named by `FINCH_BIN`. They exercise what callers of the official CLI rely on; this
//! test only asserts that every one of them passes. Nothing is installed, nothing downloaded.

use std::path::Path;

#[test]
fn the_node_test_suite_passes_against_the_finch_binary() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/node");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/node exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".node-test.mjs"))
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no node:test files in {}", dir.display());
    let out = std::process::Command::new("node")
        .arg("--test")
        .args(&files)
        .env("FINCH_BIN", env!("CARGO_BIN_EXE_finch"))
        .env("NO_COLOR", "1")
        .current_dir(&dir)
        .output()
        .expect("node runs (the runtime tests need it too)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("\n# fail 0\n"),
        "node --test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
