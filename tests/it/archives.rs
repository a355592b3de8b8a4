//! Archive safety through the real binary: every hostile archive kind is refused, the message
//! names the hostile entry, and nothing is written to the tier or outside it.

use crate::common::TestContext;
use crate::common::fixtures::evil;

fn refuse(name: &str, bytes: Vec<u8>, needle: &str) {
    let ctx = TestContext::new();
    let file = ctx.work.join(name);
    std::fs::write(&file, bytes).unwrap();
    let before_base = ctx.tree(&ctx.base());
    let out = ctx.run(&["add", file.to_str().unwrap()]);
    out.failure(1).stderr_has(needle);
    let tier = ctx.personal_tier();
    let left: Vec<String> = ctx
        .tree(&tier)
        .into_iter()
        .filter(|p| !p.starts_with(".lock"))
        .collect();
    assert!(left.is_empty(), "{name}: the tier holds {left:?}\n{out}");
    // Nothing appeared anywhere else under the test's root except the tier's lock file.
    let after_base: Vec<String> = ctx
        .tree(&ctx.base())
        .into_iter()
        .filter(|p| !before_base.contains(p) && !p.contains(".finch/extensions"))
        .filter(|p| !p.ends_with("finchnest") && !p.ends_with("finchnest/.finch"))
        .collect();
    assert!(after_base.is_empty(), "{name}: new paths {after_base:?}");
    for outside in [
        "/tmp/finch-evil-absolute.txt",
        "/tmp/finch-evil-through-symlink.txt",
    ] {
        assert!(
            !std::path::Path::new(outside).exists(),
            "{outside} was written"
        );
    }
}

#[test]
fn tgz_absolute_path() {
    refuse("abs.tgz", evil::tgz_absolute_path(), evil::ABSOLUTE_ENTRY);
}

#[test]
fn tgz_parent_dir() {
    refuse("parent.tgz", evil::tgz_parent_dir(), evil::PARENT_DIR_ENTRY);
}

#[test]
fn tgz_escaping_symlink() {
    refuse(
        "link.tgz",
        evil::tgz_escaping_symlink(),
        evil::ESCAPING_SYMLINK_ENTRY,
    );
}

#[test]
fn tgz_file_through_a_symlink() {
    refuse(
        "through.tgz",
        evil::tgz_symlink_then_file_through_it(),
        evil::THROUGH_SYMLINK_LINK,
    );
}

#[test]
fn tgz_hard_link() {
    refuse("hard.tgz", evil::tgz_hard_link(), evil::HARD_LINK_ENTRY);
}

#[test]
fn tgz_char_device() {
    refuse("dev.tgz", evil::tgz_char_device(), evil::CHAR_DEVICE_ENTRY);
}

#[test]
fn tgz_fifo() {
    refuse("fifo.tgz", evil::tgz_fifo(), evil::FIFO_ENTRY);
}

#[test]
fn tgz_duplicate_entry() {
    refuse(
        "dup.tgz",
        evil::tgz_duplicate_entry(),
        evil::DUPLICATE_ENTRY,
    );
}

#[test]
fn tgz_bomb() {
    refuse("bomb.tgz", evil::tgz_bomb(), "possible zip bomb");
}

#[test]
fn zip_parent_dir() {
    refuse("parent.zip", evil::zip_parent_dir(), "..");
}

#[test]
fn zip_absolute_path() {
    refuse("abs.zip", evil::zip_absolute_path(), evil::ABSOLUTE_ENTRY);
}

#[test]
fn zip_escaping_symlink() {
    refuse(
        "link.zip",
        evil::zip_escaping_symlink(),
        evil::ESCAPING_SYMLINK_ENTRY,
    );
}

#[test]
fn zip_duplicate_entry() {
    refuse(
        "dup.zip",
        evil::zip_duplicate_entry(),
        evil::DUPLICATE_ENTRY,
    );
}

#[test]
fn zip_bomb() {
    refuse("bomb.zip", evil::zip_bomb(), "possible zip bomb");
}

#[test]
fn corrupt_archives_are_errors_not_panics() {
    refuse("garbage.tgz", b"definitely not gzip".to_vec(), "Error:");
    refuse("garbage.zip", b"PK\x03\x04 not really".to_vec(), "Error:");
}
