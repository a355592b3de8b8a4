//! Builders for mini tool packages and archives (`.tgz` as `npm pack` writes
//! them, `.zip`), digests, and hostile archives for the archive-safety tests.
#![allow(dead_code)] // each test binary uses a different subset of the harness

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Cursor, Read, Write};
use std::path::Path;

use base64::Engine as _;
use flate2::Compression;
use flate2::write::GzEncoder;
use serde_json::{Map, Value};
use sha1::Sha1;
use sha2::{Digest, Sha512};
use tar::{EntryType, Header};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

/// The entry module written to `dist/index.js` unless replaced.
pub const DEFAULT_ENTRY_SOURCE: &str =
    "export async function activate(ctx) {}\nexport function deactivate() {}\n";

/// The mtime `npm pack` stamps on every entry (1985-10-26T08:15:00Z).
const NPM_PACK_MTIME: u64 = 499_162_500;

/// A mini tool package, rendered to a directory, an npm tarball or a zip.
///
/// `package.json` is `{name, version, type: "module", main: "dist/index.js",
/// finch: {manifestVersion: 1, …}}` (`type: "module"` so that node loads the
/// ES module entry; override or remove it with the field methods).
#[derive(Clone, Debug)]
pub struct MiniTool {
    package: Map<String, Value>,
    finch: Map<String, Value>,
    entry: Option<String>,
    extra_files: Vec<(String, Vec<u8>)>,
    finch_json: bool,
}

impl MiniTool {
    pub fn new(package_name: &str, version: &str) -> Self {
        let mut package = Map::new();
        package.insert("name".into(), package_name.into());
        package.insert("version".into(), version.into());
        package.insert("type".into(), "module".into());
        package.insert("main".into(), "dist/index.js".into());
        let mut finch = Map::new();
        finch.insert("manifestVersion".into(), 1.into());
        MiniTool {
            package,
            finch,
            entry: Some(DEFAULT_ENTRY_SOURCE.to_string()),
            extra_files: Vec::new(),
            finch_json: false,
        }
    }

    /// `finch.displayName`.
    pub fn display_name(self, s: &str) -> Self {
        self.finch_field("displayName", s.into())
    }

    /// `finch.id`.
    pub fn finch_id(self, id: &str) -> Self {
        self.finch_field("id", id.into())
    }

    /// Sets any field of the `finch` object (replacing `manifestVersion` too).
    pub fn finch_field(mut self, key: &str, value: Value) -> Self {
        self.finch.insert(key.into(), value);
        self
    }

    /// Removes a field of the `finch` object (e.g. `manifestVersion`).
    pub fn remove_finch_field(mut self, key: &str) -> Self {
        self.finch.shift_remove(key);
        self
    }

    /// Sets any top-level `package.json` field. `"finch"` replaces the whole
    /// `finch` object when `value` is an object, else writes `value` as is (a
    /// `finch` that is not an object).
    pub fn package_field(mut self, key: &str, value: Value) -> Self {
        match (key, value) {
            ("finch", Value::Object(map)) => {
                self.finch = map;
                self.package.shift_remove("finch");
            }
            (key, value) => {
                self.package.insert(key.into(), value);
            }
        }
        self
    }

    /// Removes a top-level `package.json` field (e.g. `name`, `main`, `type`;
    /// `"finch"` removes the `finch` object, making this not a mini tool unless
    /// [`MiniTool::manifest_as_finch_json`] is set).
    pub fn remove_package_field(mut self, key: &str) -> Self {
        if key == "finch" {
            self.package.insert("finch".into(), Value::Null);
        } else {
            self.package.shift_remove(key);
        }
        self
    }

    /// An extra file (path relative to the package root, `/`-separated).
    /// A later call with the same path replaces it; a path the builder
    /// generates (`package.json`, `finch.json`, `dist/index.js`) is replaced
    /// by these contents verbatim.
    pub fn file(self, rel: &str, contents: &str) -> Self {
        self.file_bytes(rel, contents.as_bytes())
    }

    /// [`MiniTool::file`] with binary contents.
    pub fn file_bytes(mut self, rel: &str, contents: &[u8]) -> Self {
        self.extra_files.retain(|(path, _)| path != rel);
        self.extra_files.push((rel.to_string(), contents.to_vec()));
        self
    }

    /// Omits `dist/index.js` (`main` still names it).
    pub fn no_entry(mut self) -> Self {
        self.entry = None;
        self
    }

    /// Replaces the source of `dist/index.js`.
    pub fn entry_source(mut self, js: &str) -> Self {
        self.entry = Some(js.to_string());
        self
    }

    /// Writes the `finch` object as `finch.json` instead of `package.json#finch`.
    pub fn manifest_as_finch_json(mut self) -> Self {
        self.finch_json = true;
        self
    }

    /// The rendered `package.json`.
    pub fn package_json(&self) -> Value {
        let mut package = self.package.clone();
        match package.get("finch") {
            // Removed with `remove_package_field("finch")`.
            Some(Value::Null) => {
                package.shift_remove("finch");
            }
            // Set to a non-object with `package_field("finch", …)`.
            Some(_) => {}
            None if !self.finch_json => {
                package.insert("finch".into(), Value::Object(self.finch.clone()));
            }
            None => {}
        }
        Value::Object(package)
    }

    /// Every file of the package, relative to its root, in archive order:
    /// `package.json`, `finch.json` (if any), `dist/index.js` (if any), then
    /// the extra files in the order they were added.
    pub fn files(&self) -> Vec<(String, Vec<u8>)> {
        let mut files = vec![("package.json".to_string(), pretty(&self.package_json()))];
        if self.finch_json {
            let finch = Value::Object(self.finch.clone());
            files.push(("finch.json".to_string(), pretty(&finch)));
        }
        if let Some(entry) = &self.entry {
            files.push(("dist/index.js".to_string(), entry.clone().into_bytes()));
        }
        for (rel, contents) in &self.extra_files {
            match files.iter_mut().find(|(path, _)| path == rel) {
                Some(existing) => existing.1 = contents.clone(),
                None => files.push((rel.clone(), contents.clone())),
            }
        }
        files
    }

    /// Writes the package into `dir` (created, parents too).
    pub fn write_to(&self, dir: &Path) {
        fs::create_dir_all(dir).expect("create the mini tool directory");
        for (rel, contents) in self.files() {
            let path = dir.join(&rel);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).expect("create a mini tool subdirectory");
            }
            fs::write(&path, contents).expect("write a mini tool file");
        }
    }

    /// A `.tgz` laid out as `npm pack` does: every file under `package/`, no
    /// directory entries, ustar headers, mode 0644, uid/gid 0, mtime 1985-10-26.
    pub fn npm_tarball(&self) -> Vec<u8> {
        let mut tgz = Tgz::new();
        self.append_to_tgz(&mut tgz);
        tgz.finish()
    }

    /// A `.zip` with directory entries and the files under `prefix` (`""` for
    /// none; a missing trailing `/` is added), deflated, timestamps 1980-01-01.
    pub fn zip(&self, prefix: &str) -> Vec<u8> {
        let prefix = zip_prefix(prefix);
        let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
        self.append_to_zip(&mut zip, &prefix);
        finish_zip(zip)
    }

    fn append_to_tgz(&self, tgz: &mut Tgz) {
        for (rel, contents) in self.files() {
            tgz.file(format!("package/{rel}").as_bytes(), &contents);
        }
    }

    fn append_to_zip(&self, zip: &mut ZipWriter<Cursor<Vec<u8>>>, prefix: &str) {
        let files = self.files();
        let mut dirs = BTreeSet::new();
        if !prefix.is_empty() {
            dirs.insert(prefix.to_string());
        }
        for (rel, _) in &files {
            let mut end = 0;
            while let Some(slash) = rel[end..].find('/') {
                end += slash + 1;
                dirs.insert(format!("{prefix}{}", &rel[..end]));
            }
        }
        for dir in dirs {
            zip.add_directory(dir, zip_options().unix_permissions(0o755))
                .expect("add a zip directory");
        }
        for (rel, contents) in files {
            zip.start_file(format!("{prefix}{rel}"), zip_options())
                .expect("start a zip entry");
            zip.write_all(&contents).expect("write a zip entry");
        }
    }
}

/// `sha512-<base64>`, the form of npm's `dist.integrity`.
pub fn sri_sha512(bytes: &[u8]) -> String {
    let digest = Sha512::digest(bytes);
    format!(
        "sha512-{}",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// Lowercase hex sha1, the form of npm's `dist.shasum`.
pub fn sha1_hex(bytes: &[u8]) -> String {
    Sha1::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn pretty(value: &Value) -> Vec<u8> {
    let mut text = serde_json::to_vec_pretty(value).expect("serialize JSON");
    text.push(b'\n');
    text
}

fn zip_prefix(prefix: &str) -> String {
    if prefix.is_empty() || prefix.ends_with('/') {
        prefix.to_string()
    } else {
        format!("{prefix}/")
    }
}

fn zip_options() -> SimpleFileOptions {
    SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .unix_permissions(0o644)
        .last_modified_time(DateTime::default())
}

fn finish_zip(zip: ZipWriter<Cursor<Vec<u8>>>) -> Vec<u8> {
    zip.finish().expect("finish the zip").into_inner()
}

/// A gzipped tar written header by header, so that names the `tar` crate
/// refuses (absolute, `..`) can be written as raw bytes.
struct Tgz {
    builder: tar::Builder<GzEncoder<Vec<u8>>>,
}

impl Tgz {
    fn new() -> Self {
        Tgz {
            builder: tar::Builder::new(GzEncoder::new(Vec::new(), Compression::default())),
        }
    }

    fn header(name: &[u8], kind: EntryType, size: u64, mode: u32) -> Header {
        let mut header = Header::new_ustar();
        header.set_entry_type(kind);
        header.set_size(size);
        header.set_mode(mode);
        header.set_mtime(NPM_PACK_MTIME);
        header.set_uid(0);
        header.set_gid(0);
        set_raw_name(&mut header, name);
        header
    }

    fn append(&mut self, mut header: Header, data: impl Read) {
        header.set_cksum();
        self.builder
            .append(&header, data)
            .expect("append a tar entry");
    }

    fn file(&mut self, name: &[u8], contents: &[u8]) {
        let header = Self::header(name, EntryType::Regular, contents.len() as u64, 0o644);
        self.append(header, contents);
    }

    fn link(&mut self, name: &[u8], kind: EntryType, target: &[u8]) {
        let mut header = Self::header(name, kind, 0, 0o777);
        header
            .set_link_name_literal(target)
            .expect("tar link name fits");
        self.append(header, io::empty());
    }

    fn finish(self) -> Vec<u8> {
        self.builder
            .into_inner()
            .expect("finish the tar")
            .finish()
            .expect("finish the gzip stream")
    }
}

/// Writes `name` verbatim into the ustar `name` (and, past 100 bytes,
/// `prefix`) fields; no normalisation, no checks.
fn set_raw_name(header: &mut Header, name: &[u8]) {
    let (prefix, rest): (&[u8], &[u8]) = if name.len() <= 100 {
        (b"", name)
    } else {
        let split = name
            .iter()
            .enumerate()
            .filter(|&(i, &b)| b == b'/' && i <= 155 && name.len() - i - 1 <= 100)
            .map(|(i, _)| i)
            .next()
            .expect("tar name too long for ustar");
        (&name[..split], &name[split + 1..])
    };
    let old = header.as_old_mut();
    old.name = [0; 100];
    old.name[..rest.len()].copy_from_slice(rest);
    let ustar = header.as_ustar_mut().expect("ustar header");
    ustar.prefix = [0; 155];
    ustar.prefix[..prefix.len()].copy_from_slice(prefix);
}

/// Hostile archives for the archive-safety tests. Each one holds a valid mini
/// tool under `package/` (`package/package.json` with a `finch` object, and
/// `package/dist/index.js`) plus the hostile entry named in its doc comment,
/// so that the hostile entry is the only reason to reject it. All are built
/// in memory and deterministic.
pub mod evil {
    use std::io;
    use std::sync::OnceLock;

    use serde_json::json;
    use tar::EntryType;
    use zip::ZipWriter;

    use super::{MiniTool, Tgz, finish_zip, zip_options};

    /// Package name of the valid tool inside every hostile archive.
    pub const TOOL_NAME: &str = "evil-tool";
    /// Uncompressed size of the bomb entry: 20 MiB of zeros (well under the
    /// 512 MiB total cap, so only the compression-ratio check catches it
    /// unless a test lowers the cap).
    pub const BOMB_SIZE: u64 = 20 * 1024 * 1024;

    /// Entry names (tgz and zip) of the hostile entries.
    pub const ABSOLUTE_ENTRY: &str = "/tmp/finch-evil-absolute.txt";
    pub const PARENT_DIR_ENTRY: &str = "package/../../finch-evil-parent.txt";
    pub const ESCAPING_SYMLINK_ENTRY: &str = "package/dist/evil-link";
    pub const ESCAPING_SYMLINK_TARGET: &str = "../../../../../../../../../../etc/passwd";
    pub const THROUGH_SYMLINK_LINK: &str = "package/dist/up";
    pub const THROUGH_SYMLINK_TARGET: &str = "../../../../../../../../../../tmp";
    pub const THROUGH_SYMLINK_FILE: &str = "package/dist/up/finch-evil-through-symlink.txt";
    pub const HARD_LINK_ENTRY: &str = "package/dist/hard-link";
    pub const HARD_LINK_TARGET: &str = "package/package.json";
    pub const CHAR_DEVICE_ENTRY: &str = "package/dist/null-device";
    pub const FIFO_ENTRY: &str = "package/dist/pipe";
    pub const DUPLICATE_ENTRY: &str = "package/package.json";
    pub const BOMB_ENTRY: &str = "package/dist/zeros.bin";

    fn tool() -> MiniTool {
        MiniTool::new(TOOL_NAME, "1.0.0").display_name("Evil Tool")
    }

    /// The second `package/package.json`: also valid, but a different manifest.
    fn duplicate_manifest() -> Vec<u8> {
        let mut text = serde_json::to_vec_pretty(&json!({
            "name": TOOL_NAME,
            "version": "6.6.6",
            "type": "module",
            "main": "dist/index.js",
            "description": "replaced by a duplicate archive entry",
            "finch": {"manifestVersion": 1, "displayName": "Evil Tool (duplicate)"},
        }))
        .expect("serialize JSON");
        text.push(b'\n');
        text
    }

    fn tgz_with(hostile: impl FnOnce(&mut Tgz)) -> Vec<u8> {
        let mut tgz = Tgz::new();
        tool().append_to_tgz(&mut tgz);
        hostile(&mut tgz);
        tgz.finish()
    }

    fn zip_with(hostile: impl FnOnce(&mut ZipWriter<io::Cursor<Vec<u8>>>)) -> Vec<u8> {
        let mut zip = ZipWriter::new(io::Cursor::new(Vec::new()));
        tool().append_to_zip(&mut zip, "package/");
        hostile(&mut zip);
        finish_zip(zip)
    }

    /// Hostile entry: `/tmp/finch-evil-absolute.txt` (absolute path), a
    /// regular file.
    pub fn tgz_absolute_path() -> Vec<u8> {
        tgz_with(|t| t.file(ABSOLUTE_ENTRY.as_bytes(), b"absolute\n"))
    }

    /// Hostile entry: `package/../../finch-evil-parent.txt` (`..` components),
    /// a regular file.
    pub fn tgz_parent_dir() -> Vec<u8> {
        tgz_with(|t| t.file(PARENT_DIR_ENTRY.as_bytes(), b"parent\n"))
    }

    /// Hostile entry: `package/dist/evil-link`, a symlink to
    /// `../../../../../../../../../../etc/passwd` (leaves the package).
    pub fn tgz_escaping_symlink() -> Vec<u8> {
        tgz_with(|t| {
            t.link(
                ESCAPING_SYMLINK_ENTRY.as_bytes(),
                EntryType::Symlink,
                ESCAPING_SYMLINK_TARGET.as_bytes(),
            )
        })
    }

    /// Hostile entries, in order: `package/dist/up`, a symlink to
    /// `../../../../../../../../../../tmp` (leaves the package; the first
    /// offending entry, so the one a rejection names), then the regular file
    /// `package/dist/up/finch-evil-through-symlink.txt`, which an extractor
    /// following the link would write as `/tmp/finch-evil-through-symlink.txt`.
    pub fn tgz_symlink_then_file_through_it() -> Vec<u8> {
        tgz_with(|t| {
            t.link(
                THROUGH_SYMLINK_LINK.as_bytes(),
                EntryType::Symlink,
                THROUGH_SYMLINK_TARGET.as_bytes(),
            );
            t.file(THROUGH_SYMLINK_FILE.as_bytes(), b"through the link\n");
        })
    }

    /// Hostile entry: `package/dist/hard-link`, a hard link to
    /// `package/package.json` (inside the package: hard links are refused
    /// whatever their target).
    pub fn tgz_hard_link() -> Vec<u8> {
        tgz_with(|t| {
            t.link(
                HARD_LINK_ENTRY.as_bytes(),
                EntryType::Link,
                HARD_LINK_TARGET.as_bytes(),
            )
        })
    }

    /// Hostile entry: `package/dist/null-device`, a character device (1, 3).
    pub fn tgz_char_device() -> Vec<u8> {
        tgz_with(|t| {
            let mut header = Tgz::header(CHAR_DEVICE_ENTRY.as_bytes(), EntryType::Char, 0, 0o666);
            header.set_device_major(1).expect("device major");
            header.set_device_minor(3).expect("device minor");
            t.append(header, io::empty());
        })
    }

    /// Hostile entry: `package/dist/pipe`, a FIFO.
    pub fn tgz_fifo() -> Vec<u8> {
        tgz_with(|t| {
            let header = Tgz::header(FIFO_ENTRY.as_bytes(), EntryType::Fifo, 0, 0o644);
            t.append(header, io::empty());
        })
    }

    /// Hostile entry: the second `package/package.json` (last entry; also a
    /// valid manifest, version 6.6.6, so only the duplication is wrong).
    pub fn tgz_duplicate_entry() -> Vec<u8> {
        tgz_with(|t| t.file(DUPLICATE_ENTRY.as_bytes(), &duplicate_manifest()))
    }

    /// Hostile entry: `package/dist/zeros.bin`, 20 MiB of zeros (compression
    /// ratio ≈ 1000:1). Built once per test binary.
    pub fn tgz_bomb() -> Vec<u8> {
        static BOMB: OnceLock<Vec<u8>> = OnceLock::new();
        BOMB.get_or_init(|| {
            tgz_with(|t| {
                let header =
                    Tgz::header(BOMB_ENTRY.as_bytes(), EntryType::Regular, BOMB_SIZE, 0o644);
                t.append(header, io::Read::take(io::repeat(0), BOMB_SIZE));
            })
        })
        .clone()
    }

    /// Hostile entry: `package/../../finch-evil-parent.txt` (`..` components),
    /// a regular file.
    pub fn zip_parent_dir() -> Vec<u8> {
        zip_with(|z| {
            z.start_file(PARENT_DIR_ENTRY, zip_options())
                .expect("start a zip entry");
            io::Write::write_all(z, b"parent\n").expect("write a zip entry");
        })
    }

    /// Hostile entry: `/tmp/finch-evil-absolute.txt` (absolute path), a
    /// regular file.
    pub fn zip_absolute_path() -> Vec<u8> {
        zip_with(|z| {
            z.start_file(ABSOLUTE_ENTRY, zip_options())
                .expect("start a zip entry");
            io::Write::write_all(z, b"absolute\n").expect("write a zip entry");
        })
    }

    /// Hostile entry: `package/dist/evil-link`, a symlink (unix mode
    /// `0o120777`, target stored as the entry's data) to
    /// `../../../../../../../../../../etc/passwd`.
    pub fn zip_escaping_symlink() -> Vec<u8> {
        zip_with(|z| {
            z.add_symlink(
                ESCAPING_SYMLINK_ENTRY,
                ESCAPING_SYMLINK_TARGET,
                zip_options(),
            )
            .expect("add a zip symlink");
        })
    }

    /// Hostile entry: the second `package/package.json` (last entry; also a
    /// valid manifest, version 6.6.6). Both copies are in the local headers
    /// and the central directory. Note that `zip::ZipArchive` keys entries by
    /// name, so it shows one of them (`len()` is one less than the central
    /// directory's entry count); `zip::read::read_zipfile_from_stream` sees both.
    pub fn zip_duplicate_entry() -> Vec<u8> {
        // ZipWriter refuses duplicate names: write a same-length placeholder
        // (stored, so it appears verbatim only in the two headers) and patch it.
        const PLACEHOLDER: &str = "package/package.@@@@";
        assert_eq!(PLACEHOLDER.len(), DUPLICATE_ENTRY.len());
        let mut bytes = zip_with(|z| {
            let options = zip_options().compression_method(zip::CompressionMethod::Stored);
            z.start_file(PLACEHOLDER, options)
                .expect("start a zip entry");
            io::Write::write_all(z, &duplicate_manifest()).expect("write a zip entry");
        });
        let mut patched = 0;
        let mut i = 0;
        while i + PLACEHOLDER.len() <= bytes.len() {
            if &bytes[i..i + PLACEHOLDER.len()] == PLACEHOLDER.as_bytes() {
                bytes[i..i + PLACEHOLDER.len()].copy_from_slice(DUPLICATE_ENTRY.as_bytes());
                patched += 1;
                i += PLACEHOLDER.len();
            } else {
                i += 1;
            }
        }
        assert_eq!(patched, 2, "placeholder in the local and central headers");
        bytes
    }

    /// Hostile entry: `package/dist/zeros.bin`, 20 MiB of zeros, deflated
    /// (ratio ≈ 1000:1). Built once per test binary.
    pub fn zip_bomb() -> Vec<u8> {
        static BOMB: OnceLock<Vec<u8>> = OnceLock::new();
        BOMB.get_or_init(|| {
            zip_with(|z| {
                z.start_file(BOMB_ENTRY, zip_options())
                    .expect("start a zip entry");
                io::copy(&mut io::Read::take(io::repeat(0), BOMB_SIZE), z)
                    .expect("write a zip entry");
            })
        })
        .clone()
    }
}
