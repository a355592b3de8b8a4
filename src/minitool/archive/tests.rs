use super::tgz::StreamMeter;
use super::*;
use flate2::Compression;
use flate2::write::GzEncoder;
use std::cell::RefCell;
use std::io::Cursor;
use std::rc::Rc;
use tar::{EntryType, Header};
use tempfile::TempDir;
use zip::write::{SimpleFileOptions, ZipWriter};

/// A tar entry; names and link targets are written into the header byte for byte.
enum T<'a> {
    File(&'a str, &'a [u8], u32),
    Dir(&'a str),
    Sym(&'a str, &'a str),
    Hard(&'a str, &'a str),
    Special(&'a str, EntryType),
    Raw(&'a str, EntryType, &'a [u8]),
    /// Appended with `append_data`, which writes a GNU long-name entry when needed.
    Long(&'a str, &'a [u8]),
}

fn raw_header(name: &str, ty: EntryType, size: u64, mode: u32) -> Header {
    let mut h = Header::new_gnu();
    let bytes = name.as_bytes();
    assert!(bytes.len() <= 100, "use T::Long for long names");
    h.as_old_mut().name[..bytes.len()].copy_from_slice(bytes);
    h.set_entry_type(ty);
    h.set_size(size);
    h.set_mode(mode);
    h.set_mtime(0);
    h
}

fn tgz(entries: &[T<'_>]) -> Vec<u8> {
    let mut b = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::default()));
    for e in entries {
        let (mut h, data): (Header, &[u8]) = match e {
            T::File(n, d, m) => (raw_header(n, EntryType::Regular, d.len() as u64, *m), d),
            T::Dir(n) => (raw_header(n, EntryType::Directory, 0, 0o755), b""),
            T::Sym(n, t) | T::Hard(n, t) => {
                let ty = if matches!(e, T::Sym(..)) {
                    EntryType::Symlink
                } else {
                    EntryType::Link
                };
                let mut h = raw_header(n, ty, 0, 0o777);
                h.set_link_name_literal(t.as_bytes()).unwrap();
                (h, b"")
            }
            T::Special(n, ty) => (raw_header(n, *ty, 0, 0o644), b""),
            T::Raw(n, ty, d) => (raw_header(n, *ty, d.len() as u64, 0o644), d),
            T::Long(n, d) => {
                let mut h = Header::new_gnu();
                h.set_size(d.len() as u64);
                h.set_mode(0o644);
                b.append_data(&mut h, n, *d).unwrap();
                continue;
            }
        };
        h.set_cksum();
        b.append(&h, data).unwrap();
    }
    b.into_inner().unwrap().finish().unwrap()
}

#[cfg_attr(not(unix), allow(dead_code))]
enum Z<'a> {
    File(&'a str, &'a [u8], u32),
    Dir(&'a str),
    Sym(&'a str, &'a str),
    /// A file whose unix mode (type bits included) is patched into the central directory.
    Mode(&'a str, u32),
    /// A file whose central-directory record is patched to claim encryption.
    Encrypted(&'a str, &'a [u8]),
    /// A file whose central-directory record claims an uncompressed size of 1 byte.
    Lying(&'a str, &'a [u8]),
}

fn zip_bytes(entries: &[Z<'_>]) -> Vec<u8> {
    let mut w = ZipWriter::new(Cursor::new(Vec::new()));
    let opts = SimpleFileOptions::default();
    for e in entries {
        match e {
            Z::File(n, d, m) => {
                w.start_file(*n, opts.unix_permissions(*m)).unwrap();
                w.write_all(d).unwrap();
            }
            Z::Dir(n) => w.add_directory(*n, opts).unwrap(),
            Z::Sym(n, t) => w.add_symlink(*n, *t, opts).unwrap(),
            Z::Mode(n, _) => w.start_file(*n, opts).unwrap(),
            Z::Encrypted(n, d) | Z::Lying(n, d) => {
                w.start_file(*n, opts).unwrap();
                w.write_all(d).unwrap();
            }
        }
    }
    let mut bytes = w.finish().unwrap().into_inner();
    for e in entries {
        match e {
            Z::Mode(n, m) => patch_central(&mut bytes, n, |h| {
                h[38..42].copy_from_slice(&(m << 16).to_le_bytes());
            }),
            Z::Encrypted(n, _) => patch_central(&mut bytes, n, |h| h[8] |= 1),
            Z::Lying(n, _) => patch_central(&mut bytes, n, |h| {
                h[24..28].copy_from_slice(&1u32.to_le_bytes());
            }),
            _ => {}
        }
    }
    bytes
}

/// Patches the fixed part of the central-directory record of `name`.
fn patch_central(bytes: &mut [u8], name: &str, patch: impl Fn(&mut [u8])) {
    let mut i = 0;
    while i + 46 <= bytes.len() {
        if bytes[i..i + 4] == [0x50, 0x4b, 0x01, 0x02] {
            let n = u16::from_le_bytes([bytes[i + 28], bytes[i + 29]]) as usize;
            if bytes.get(i + 46..i + 46 + n) == Some(name.as_bytes()) {
                patch(&mut bytes[i..i + 46]);
                return;
            }
        }
        i += 1;
    }
    panic!("no central directory record for {name}");
}

/// An archive file in its own tempdir and `dest` as the only child of another tempdir.
struct Fixture {
    _src: TempDir,
    root: TempDir,
    archive: PathBuf,
    dest: PathBuf,
}

fn fixture(bytes: &[u8], file_name: &str) -> Fixture {
    let src = TempDir::new().unwrap();
    let archive = src.path().join(file_name);
    fs::write(&archive, bytes).unwrap();
    let root = TempDir::new().unwrap();
    let dest = root.path().join("dest");
    fs::create_dir(&dest).unwrap();
    Fixture {
        _src: src,
        root,
        archive,
        dest,
    }
}

impl Fixture {
    fn run(&self, limits: &Limits) -> Result<ExtractStats, ArchiveError> {
        let format = ArchiveFormat::from_path(&self.archive).unwrap();
        extract(format, &self.archive, &self.dest, limits)
    }

    /// The parent of `dest` holds nothing but `dest`.
    fn assert_contained(&self) {
        let names: Vec<_> = fs::read_dir(self.root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("dest")]);
    }
}

fn reject(bytes: &[u8], file_name: &str, limits: &Limits) -> ArchiveError {
    let fx = fixture(bytes, file_name);
    let err = fx.run(limits).expect_err("archive should be rejected");
    fx.assert_contained();
    err
}

fn reject_tgz(entries: &[T<'_>]) -> ArchiveError {
    reject(&tgz(entries), "pkg.tgz", &Limits::default())
}

fn reject_zip(entries: &[Z<'_>]) -> ArchiveError {
    reject(&zip_bytes(entries), "pkg.zip", &Limits::default())
}

fn mode_of(path: &Path) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        0
    }
}

// ---- format detection -------------------------------------------------------------

#[test]
fn format_from_extension() {
    let f = |s: &str| ArchiveFormat::from_path(Path::new(s));
    assert_eq!(f("a/pkg.tgz"), Some(ArchiveFormat::Tgz));
    assert_eq!(f("pkg-1.0.0.TAR.GZ"), Some(ArchiveFormat::Tgz));
    assert_eq!(f("C:/x/Pkg.Zip"), Some(ArchiveFormat::Zip));
    assert_eq!(f("pkg.tar"), None);
    assert_eq!(f("pkg.gz"), None);
    assert_eq!(f("zip"), None);
}

#[test]
fn default_limits() {
    let l = Limits::default();
    assert_eq!(l.max_total_bytes, 512 * MIB);
    assert_eq!(l.max_file_bytes, 2 * GIB);
    assert_eq!(l.max_ratio, 100);
    assert_eq!(l.ratio_floor_bytes, 8 * MIB);
}

// ---- happy paths ---------------------------------------------------------------------

#[test]
fn tgz_npm_package_with_nested_dirs() {
    let long = format!("package/{}/deep.txt", "d".repeat(120));
    let bytes = tgz(&[
        T::Raw(
            "pax_global_header",
            EntryType::XGlobalHeader,
            b"52 comment=abc\n",
        ),
        T::Dir("package/"),
        T::File("package/package.json", b"{\"name\":\"x\"}", 0o644),
        T::File("./package/lib/util/deep.js", b"deep", 0o644),
        T::File("package/lib/index.js", b"index", 0o600),
        T::Dir("package/lib/"),
        T::Dir("./"),
        T::File(".", b"", 0o644),
        T::Long(&long, b"long"),
    ]);
    let fx = fixture(&bytes, "pkg.tgz");
    let stats = fx.run(&Limits::default()).unwrap();
    let p = fx.dest.join("package");
    assert_eq!(
        fs::read(p.join("package.json")).unwrap(),
        b"{\"name\":\"x\"}"
    );
    assert_eq!(fs::read(p.join("lib/util/deep.js")).unwrap(), b"deep");
    assert_eq!(fs::read(p.join("lib/index.js")).unwrap(), b"index");
    assert_eq!(fs::read(fx.dest.join(&long)).unwrap(), b"long");
    assert_eq!(
        stats,
        ExtractStats {
            files: 4,
            dirs: 4,
            links: 0,
            bytes: 12 + 4 + 5 + 4,
        }
    );
    fx.assert_contained();
    if cfg!(unix) {
        assert_eq!(mode_of(&p.join("lib/index.js")), 0o644);
        assert_eq!(mode_of(&p.join("lib/util")), 0o755);
        assert_eq!(mode_of(&p), 0o755);
    }
}

#[cfg(unix)]
#[test]
fn tgz_modes_are_normalized() {
    let bytes = tgz(&[
        T::File("package/bin/cli.js", b"#!/usr/bin/env node", 0o755),
        T::File("package/owner-exec", b"x", 0o700),
        T::File("package/setuid", b"x", 0o4755),
        T::File("package/sticky", b"x", 0o1666),
        T::File("package/plain", b"x", 0o666),
    ]);
    let fx = fixture(&bytes, "pkg.tgz");
    fx.run(&Limits::default()).unwrap();
    let p = fx.dest.join("package");
    assert_eq!(mode_of(&p.join("bin/cli.js")), 0o755);
    assert_eq!(mode_of(&p.join("owner-exec")), 0o755);
    assert_eq!(mode_of(&p.join("setuid")), 0o755);
    assert_eq!(mode_of(&p.join("sticky")), 0o644);
    assert_eq!(mode_of(&p.join("plain")), 0o644);
}

#[cfg(unix)]
#[test]
fn tgz_inside_symlinks_are_kept() {
    let bytes = tgz(&[
        T::File("package/lib/util/deep.js", b"deep", 0o644),
        T::File("package/README.md", b"readme", 0o644),
        T::Sym("package/lib/current.js", "./util//deep.js"),
        T::Sym("package/alias", "lib"),
        T::Sym("package/lib/readme", "../README.md"),
        T::Sym("package/lib/up", "util/../../README.md"),
        T::Sym("package/self", "."),
    ]);
    let fx = fixture(&bytes, "pkg.tgz");
    let stats = fx.run(&Limits::default()).unwrap();
    let p = fx.dest.join("package");
    assert_eq!(stats.links, 5);
    assert_eq!(
        fs::read_link(p.join("lib/current.js")).unwrap(),
        Path::new("util/deep.js")
    );
    assert_eq!(fs::read(p.join("lib/current.js")).unwrap(), b"deep");
    assert_eq!(fs::read(p.join("alias/util/deep.js")).unwrap(), b"deep");
    assert_eq!(fs::read(p.join("lib/readme")).unwrap(), b"readme");
    assert_eq!(fs::read(p.join("lib/up")).unwrap(), b"readme");
    assert_eq!(fs::read_link(p.join("self")).unwrap(), Path::new("."));
    fx.assert_contained();
}

#[test]
fn zip_with_backslash_separators_and_modes() {
    let bytes = zip_bytes(&[
        Z::File("pkg\\lib\\a.js", b"a", 0o644),
        Z::File("pkg/bin\\run", b"run", 0o755),
        Z::Dir("pkg/empty"),
        Z::File("./pkg/manifest.json", b"{}", 0o664),
    ]);
    let fx = fixture(&bytes, "pkg.zip");
    let stats = fx.run(&Limits::default()).unwrap();
    assert_eq!(fs::read(fx.dest.join("pkg/lib/a.js")).unwrap(), b"a");
    assert_eq!(fs::read(fx.dest.join("pkg/bin/run")).unwrap(), b"run");
    assert!(fx.dest.join("pkg/empty").is_dir());
    assert_eq!(
        stats,
        ExtractStats {
            files: 3,
            dirs: 4,
            links: 0,
            bytes: 6,
        }
    );
    fx.assert_contained();
    if cfg!(unix) {
        assert_eq!(mode_of(&fx.dest.join("pkg/bin/run")), 0o755);
        assert_eq!(mode_of(&fx.dest.join("pkg/lib/a.js")), 0o644);
        assert_eq!(mode_of(&fx.dest.join("pkg/manifest.json")), 0o644);
    }
}

#[cfg(unix)]
#[test]
fn zip_inside_symlink_is_kept() {
    let bytes = zip_bytes(&[
        Z::File("pkg/lib/a.js", b"a", 0o644),
        Z::Sym("pkg/current.js", "lib\\a.js"),
    ]);
    let fx = fixture(&bytes, "pkg.zip");
    let stats = fx.run(&Limits::default()).unwrap();
    assert_eq!(stats.links, 1);
    assert_eq!(
        fs::read_link(fx.dest.join("pkg/current.js")).unwrap(),
        Path::new("lib/a.js")
    );
    assert_eq!(fs::read(fx.dest.join("pkg/current.js")).unwrap(), b"a");
}

#[test]
fn repeated_directory_entries_are_fine() {
    let bytes = tgz(&[
        T::Dir("package/lib/"),
        T::File("package/lib/a", b"a", 0o644),
        T::Dir("package/lib"),
        T::Dir("./package/lib/"),
    ]);
    let fx = fixture(&bytes, "pkg.tgz");
    let stats = fx.run(&Limits::default()).unwrap();
    assert_eq!(stats.dirs, 2);
    assert_eq!(stats.files, 1);
}

#[test]
fn destination_must_be_empty() {
    let fx = fixture(&tgz(&[T::File("a", b"a", 0o644)]), "pkg.tgz");
    fs::write(fx.dest.join("existing"), b"x").unwrap();
    let err = fx.run(&Limits::default()).unwrap_err();
    assert!(
        matches!(err, ArchiveError::DestinationNotEmpty { .. }),
        "{err}"
    );
}

// ---- rejections: names -----------------------------------------------------------

#[test]
fn tgz_absolute_path() {
    let err = reject_tgz(&[T::File("/tmp/finch-evil", b"x", 0o644)]);
    assert!(matches!(&err, ArchiveError::AbsolutePath { entry } if entry == "/tmp/finch-evil"));
    assert_eq!(
        err.to_string(),
        "archive entry \"/tmp/finch-evil\" has an absolute path; refusing to extract"
    );
}

#[test]
fn tgz_windows_drive_is_absolute() {
    let err = reject_tgz(&[T::File("C:/evil", b"x", 0o644)]);
    assert!(matches!(&err, ArchiveError::AbsolutePath { entry } if entry == "C:/evil"));
}

#[test]
fn zip_absolute_path() {
    let err = reject_zip(&[Z::File("/tmp/finch-evil", b"x", 0o644)]);
    assert!(matches!(&err, ArchiveError::AbsolutePath { entry } if entry == "/tmp/finch-evil"));
    let err = reject_zip(&[Z::File("C:\\evil", b"x", 0o644)]);
    assert!(matches!(&err, ArchiveError::AbsolutePath { entry } if entry == "C:\\evil"));
    let err = reject_zip(&[Z::File("\\\\server\\share\\evil", b"x", 0o644)]);
    assert!(matches!(err, ArchiveError::AbsolutePath { .. }));
}

#[test]
fn tgz_parent_component() {
    let err = reject_tgz(&[T::File("../evil", b"x", 0o644)]);
    assert!(matches!(&err, ArchiveError::ParentComponent { entry } if entry == "../evil"));
    assert_eq!(
        err.to_string(),
        "archive entry \"../evil\" has a \"..\" component; refusing to extract"
    );
    let err = reject_tgz(&[
        T::File("package/ok", b"x", 0o644),
        T::File("package/../../evil", b"x", 0o644),
    ]);
    assert!(
        matches!(&err, ArchiveError::ParentComponent { entry } if entry == "package/../../evil")
    );
}

#[test]
fn zip_parent_component() {
    let err = reject_zip(&[Z::File("..\\evil", b"x", 0o644)]);
    assert!(matches!(&err, ArchiveError::ParentComponent { entry } if entry == "..\\evil"));
    let err = reject_zip(&[Z::File("pkg/../../evil", b"x", 0o644)]);
    assert!(matches!(err, ArchiveError::ParentComponent { .. }));
}

// ---- rejections: links ------------------------------------------------------------

#[cfg(unix)]
#[test]
fn tgz_symlink_absolute_target() {
    let err = reject_tgz(&[T::Sym("package/passwd", "/etc/passwd")]);
    assert!(matches!(
        &err,
        ArchiveError::EscapingLink { entry, target }
            if entry == "package/passwd" && target == "/etc/passwd"
    ));
    assert_eq!(
        err.to_string(),
        "archive entry \"package/passwd\" is a link to \"/etc/passwd\", which points outside \
         the package; refusing to extract"
    );
}

#[cfg(unix)]
#[test]
fn tgz_symlink_relative_escape() {
    let err = reject_tgz(&[T::Sym("package/up", "../../x")]);
    assert!(matches!(&err, ArchiveError::EscapingLink { target, .. } if target == "../../x"));
    // Leaving and coming back is still leaving.
    let err = reject_tgz(&[T::Sym("package/l", "../../dest/package")]);
    assert!(matches!(err, ArchiveError::EscapingLink { .. }));
}

#[cfg(unix)]
#[test]
fn tgz_symlink_dotdot_through_another_link() {
    // `a/s` -> `..` is inside, and `a/l` -> `s/../../x` looks inside lexically, but the
    // kernel resolves `s/..` through `s` (to the package's parent): refuse.
    let err = reject_tgz(&[
        T::Sym("package/a/s", ".."),
        T::Sym("package/a/l", "s/../../x"),
    ]);
    assert!(matches!(&err, ArchiveError::EscapingLink { entry, .. } if entry == "package/a/l"));
}

#[cfg(unix)]
#[test]
fn zip_symlink_escapes() {
    let err = reject_zip(&[Z::Sym("pkg/passwd", "/etc/passwd")]);
    assert!(matches!(&err, ArchiveError::EscapingLink { entry, .. } if entry == "pkg/passwd"));
    let err = reject_zip(&[Z::Sym("pkg/up", "..\\..\\x")]);
    assert!(matches!(&err, ArchiveError::EscapingLink { target, .. } if target == "..\\..\\x"));
    let err = reject_zip(&[Z::Sym("pkg/c", "C:\\Windows")]);
    assert!(matches!(err, ArchiveError::EscapingLink { .. }));
}

#[cfg(unix)]
#[test]
fn tgz_file_through_link() {
    let err = reject_tgz(&[
        T::Dir("package/sub/"),
        T::Sym("package/l", "sub"),
        T::File("package/l/f", b"x", 0o644),
    ]);
    assert!(matches!(
        &err,
        ArchiveError::ThroughLink { entry, link } if entry == "package/l/f" && link == "package/l"
    ));
}

#[cfg(unix)]
#[test]
fn zip_file_through_link() {
    let err = reject_zip(&[Z::Sym("pkg/l", "."), Z::File("pkg/l/f", b"x", 0o644)]);
    assert!(matches!(&err, ArchiveError::ThroughLink { entry, .. } if entry == "pkg/l/f"));
    let err = reject_zip(&[Z::Sym("pkg/l", "."), Z::Dir("pkg/l/d")]);
    assert!(matches!(err, ArchiveError::ThroughLink { .. }));
}

#[cfg(not(unix))]
#[test]
fn links_are_refused_without_unix() {
    let err = reject_tgz(&[T::Sym("package/l", "x")]);
    assert!(matches!(err, ArchiveError::UnsupportedLink { .. }));
}

#[test]
fn tgz_hard_link() {
    let err = reject_tgz(&[
        T::File("package/a", b"x", 0o644),
        T::Hard("package/h", "package/a"),
    ]);
    assert!(matches!(&err, ArchiveError::HardLink { entry } if entry == "package/h"));
}

// ---- rejections: special files ----------------------------------------------------

#[test]
fn tgz_devices_and_fifo() {
    for (ty, kind) in [
        (EntryType::Char, "character device"),
        (EntryType::Block, "block device"),
        (EntryType::Fifo, "fifo"),
    ] {
        let err = reject_tgz(&[T::Special("package/dev", ty)]);
        assert!(
            matches!(&err, ArchiveError::SpecialFile { entry, kind: k }
                if entry == "package/dev" && k == kind),
            "{err}"
        );
    }
    let err = reject_tgz(&[T::Special("package/odd", EntryType::new(b'V'))]);
    assert!(matches!(err, ArchiveError::SpecialFile { .. }));
}

#[test]
fn zip_devices_and_fifo() {
    for (mode, kind) in [
        (0o020_644, "character device"),
        (0o060_644, "block device"),
        (0o010_644, "fifo"),
        (0o140_644, "socket"),
    ] {
        let err = reject_zip(&[Z::Mode("pkg/dev", mode)]);
        assert!(
            matches!(&err, ArchiveError::SpecialFile { entry, kind: k }
                if entry == "pkg/dev" && k == kind),
            "{err}"
        );
    }
}

// ---- rejections: duplicates ---------------------------------------------------------

#[test]
fn tgz_duplicates() {
    let err = reject_tgz(&[
        T::File("package/a", b"1", 0o644),
        T::File("package/a", b"2", 0o644),
    ]);
    assert!(matches!(&err, ArchiveError::Duplicate { entry } if entry == "package/a"));
    let err = reject_tgz(&[T::File("package/a", b"1", 0o644), T::Dir("package/a/")]);
    assert!(matches!(err, ArchiveError::Duplicate { .. }));
    let err = reject_tgz(&[T::Dir("package/a/"), T::File("./package/a", b"1", 0o644)]);
    assert!(matches!(&err, ArchiveError::Duplicate { entry } if entry == "./package/a"));
    let err = reject_tgz(&[
        T::File("package/a", b"1", 0o644),
        T::File("package/a/b", b"2", 0o644),
    ]);
    assert!(matches!(err, ArchiveError::Duplicate { .. }));
}

#[cfg(unix)]
#[test]
fn tgz_duplicate_link() {
    let err = reject_tgz(&[T::File("package/a", b"1", 0o644), T::Sym("package/a", "b")]);
    assert!(matches!(err, ArchiveError::Duplicate { .. }));
    let err = reject_tgz(&[T::Sym("package/a", "b"), T::File("package/a", b"1", 0o644)]);
    assert!(matches!(err, ArchiveError::Duplicate { .. }));
}

#[test]
fn zip_exact_duplicate_names() {
    let mut bytes = zip_bytes(&[Z::File("pkg/x", b"1", 0o644), Z::File("pkg/y", b"2", 0o644)]);
    // Rename "pkg/y" to "pkg/x" in both headers: the zip crate would keep only one.
    for i in 0..bytes.len() - 5 {
        if &bytes[i..i + 5] == b"pkg/y" {
            bytes[i + 4] = b'x';
        }
    }
    let err = reject(&bytes, "dup.zip", &Limits::default());
    assert!(
        matches!(&err, ArchiveError::Duplicate { entry } if entry == "pkg/x"),
        "{err:?}"
    );
}

#[test]
fn zip_duplicates() {
    let err = reject_zip(&[
        Z::File("pkg/x", b"1", 0o644),
        Z::File("./pkg/x", b"2", 0o644),
    ]);
    assert!(matches!(&err, ArchiveError::Duplicate { entry } if entry == "./pkg/x"));
    let err = reject_zip(&[
        Z::File("pkg/a/b", b"1", 0o644),
        Z::File("pkg\\a\\b", b"2", 0o644),
    ]);
    assert!(matches!(err, ArchiveError::Duplicate { .. }));
    let err = reject_zip(&[Z::Dir("pkg/a"), Z::File("pkg/a", b"1", 0o644)]);
    assert!(matches!(err, ArchiveError::Duplicate { .. }));
}

// ---- rejections: sizes -------------------------------------------------------------

fn small_total() -> Limits {
    Limits {
        max_total_bytes: 100,
        ..Limits::default()
    }
}

fn small_file() -> Limits {
    Limits {
        max_file_bytes: 10,
        ..Limits::default()
    }
}

#[test]
fn tgz_total_cap() {
    let bytes = tgz(&[
        T::File("package/a", &[b'a'; 60], 0o644),
        T::File("package/b", &[b'b'; 60], 0o644),
    ]);
    let err = reject(&bytes, "pkg.tgz", &small_total());
    assert!(matches!(err, ArchiveError::TooLarge { limit: 100 }));
    assert_eq!(
        err.to_string(),
        "archive unpacks to more than 100 bytes; refusing to extract"
    );
}

#[test]
fn zip_total_cap() {
    let bytes = zip_bytes(&[
        Z::File("pkg/a", &[b'a'; 60], 0o644),
        Z::File("pkg/b", &[b'b'; 60], 0o644),
    ]);
    let err = reject(&bytes, "pkg.zip", &small_total());
    assert!(matches!(err, ArchiveError::TooLarge { limit: 100 }));
}

#[test]
fn tgz_file_cap() {
    let bytes = tgz(&[T::File("package/big", &[b'x'; 11], 0o644)]);
    let err = reject(&bytes, "pkg.tgz", &small_file());
    assert!(
        matches!(&err, ArchiveError::FileTooLarge { entry, limit: 10 } if entry == "package/big")
    );
}

#[test]
fn zip_file_cap() {
    let bytes = zip_bytes(&[Z::File("pkg/big", &[b'x'; 11], 0o644)]);
    let err = reject(&bytes, "pkg.zip", &small_file());
    assert!(matches!(&err, ArchiveError::FileTooLarge { entry, .. } if entry == "pkg/big"));
}

#[test]
fn zip_file_cap_counts_bytes_not_headers() {
    // The central directory claims 1 byte; the data really holds 64.
    let bytes = zip_bytes(&[Z::Lying("pkg/liar", &[b'x'; 64])]);
    let err = reject(&bytes, "pkg.zip", &small_file());
    assert!(
        matches!(&err, ArchiveError::FileTooLarge { entry, .. } if entry == "pkg/liar"),
        "{err}"
    );
}

#[test]
fn tgz_ratio_bomb() {
    let zeros = vec![0u8; 20 * MIB as usize];
    let bytes = tgz(&[T::File("package/zeros", &zeros, 0o644)]);
    let err = reject(&bytes, "pkg.tgz", &Limits::default());
    assert!(
        matches!(err, ArchiveError::RatioExceeded { limit: 100, .. }),
        "{err}"
    );
}

#[test]
fn tgz_long_name_bomb_is_cut_off() {
    // The tar crate buffers GNU long names in memory; the stream meter must stop them.
    let zeros = vec![b'a'; 20 * MIB as usize];
    let bytes = tgz(&[
        T::Raw("././@LongLink", EntryType::GNULongName, &zeros),
        T::File("package/a", b"a", 0o644),
    ]);
    let err = reject(&bytes, "pkg.tgz", &Limits::default());
    assert!(matches!(err, ArchiveError::RatioExceeded { .. }), "{err}");
}

#[test]
fn stream_meter_caps_the_tar_stream() {
    let breach = Rc::new(RefCell::new(None));
    let limits = Limits {
        max_total_bytes: 1024,
        ..Limits::default()
    };
    let mut meter = StreamMeter {
        inner: io::repeat(b'a').take(1 << 20),
        read: 0,
        cap: 4096,
        limits,
        archive_len: 1 << 20,
        breach: Rc::clone(&breach),
    };
    assert!(io::copy(&mut meter, &mut io::sink()).is_err());
    assert!(meter.read <= 4096 + 8192, "stopped late: {}", meter.read);
    let err = breach.borrow_mut().take();
    assert!(
        matches!(err, Some(ArchiveError::TooLarge { limit: 1024 })),
        "{err:?}"
    );
}

#[test]
fn zip_ratio_bomb() {
    let zeros = vec![0u8; 20 * MIB as usize];
    let bytes = zip_bytes(&[Z::File("pkg/zeros", &zeros, 0o644)]);
    let err = reject(&bytes, "pkg.zip", &Limits::default());
    assert!(
        matches!(err, ArchiveError::RatioExceeded { limit: 100, .. }),
        "{err}"
    );
}

// ---- rejections: unreadable archives --------------------------------------------------

#[test]
fn tgz_corrupt_gzip() {
    let err = reject(
        b"this is not gzip data at all",
        "pkg.tgz",
        &Limits::default(),
    );
    assert!(matches!(err, ArchiveError::Corrupt { .. }), "{err}");
    let good = tgz(&[T::File("package/a", &[b'a'; 4096], 0o644)]);
    let err = reject(&good[..good.len() / 2], "pkg.tgz", &Limits::default());
    assert!(matches!(err, ArchiveError::Corrupt { .. }), "{err}");
    let mut flipped = good.clone();
    let n = flipped.len();
    flipped[n - 6] ^= 0xff; // gzip CRC trailer
    let err = reject(&flipped, "pkg.tgz", &Limits::default());
    assert!(matches!(err, ArchiveError::Corrupt { .. }), "{err}");
}

#[test]
fn zip_corrupt() {
    let err = reject(b"PK\x03\x04 truncated", "pkg.zip", &Limits::default());
    assert!(matches!(err, ArchiveError::Corrupt { .. }), "{err}");
}

#[test]
fn zip_encrypted_entry() {
    let err = reject_zip(&[Z::Encrypted("pkg/secret", b"data")]);
    assert!(
        matches!(&err, ArchiveError::Encrypted { entry } if entry == "pkg/secret"),
        "{err}"
    );
}
