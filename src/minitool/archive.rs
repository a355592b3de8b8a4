//! Safe extraction of mini tool package archives (`.tgz`/`.tar.gz`, as npm publishes them with the
//! package under `package/`, and `.zip`) into an existing, empty destination directory.
//!
//! This module owns every rule of SPEC §3.3 "Archive safety": it decides which entries may be
//! written, writes them itself (it never calls `tar`'s or `zip`'s own unpack helpers), and counts
//! the bytes it actually writes against [`Limits`]. It must never write outside the destination,
//! never follow a link while writing, never create a link whose target leaves the destination,
//! never create hard links, device files, fifos or sockets, never set setuid/setgid/sticky bits,
//! and never restore owners or mtimes. On the first violation it stops and returns an
//! [`ArchiveError`] naming the offending entry exactly as written in the archive. It does not
//! clean up after itself: whatever it wrote stays inside the destination, and the caller, which
//! extracts into a fresh temporary directory, deletes that directory on error.

use std::cell::RefCell;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

use flate2::read::GzDecoder;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;
const GIB: u64 = 1024 * MIB;
/// Size of the buffer used to copy one entry to disk.
const COPY_BUFFER: usize = 64 * 1024;
/// Longest symlink target accepted (the usual `PATH_MAX`).
const MAX_LINK_TARGET: usize = 4096;
/// Room for tar headers and padding on top of `max_total_bytes` in the decompressed tar stream.
const TAR_STREAM_SLACK: u64 = 64 * MIB;
/// Mode of every directory and of executable files.
const MODE_EXEC: u32 = 0o755;
/// Mode of non-executable files.
const MODE_PLAIN: u32 = 0o644;

/// The two archive formats a mini tool package can come in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveFormat {
    /// A gzip-compressed tar archive (`.tgz`, `.tar.gz`), e.g. an npm tarball.
    Tgz,
    /// A zip archive (`.zip`).
    Zip,
}

impl ArchiveFormat {
    /// Picks the format from the file name's extension: `.tgz` and `.tar.gz` are [`Self::Tgz`],
    /// `.zip` is [`Self::Zip`], compared case-insensitively; anything else is `None`.
    pub fn from_path(path: &Path) -> Option<Self> {
        let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
        if name.ends_with(".tgz") || name.ends_with(".tar.gz") {
            Some(Self::Tgz)
        } else if name.ends_with(".zip") {
            Some(Self::Zip)
        } else {
            None
        }
    }
}

/// Size limits enforced while extracting, on the bytes actually written (not on header claims).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Cap on the total bytes of all extracted files. For `.tgz`, the decompressed tar stream
    /// (headers, long names and padding included) is also capped, at twice this plus 64 MiB.
    pub max_total_bytes: u64,
    /// Cap on the bytes of any single extracted file.
    pub max_file_bytes: u64,
    /// Cap on unpacked bytes divided by the archive file's size (a zip-bomb guard).
    pub max_ratio: u64,
    /// The ratio is only checked once the unpacked total exceeds this many bytes.
    pub ratio_floor_bytes: u64,
}

impl Default for Limits {
    /// 512 MiB in total, 2 GiB per file, a ratio of 100 checked once 8 MiB have been unpacked.
    fn default() -> Self {
        Self {
            max_total_bytes: 512 * MIB,
            max_file_bytes: 2 * GIB,
            max_ratio: 100,
            ratio_floor_bytes: 8 * MIB,
        }
    }
}

/// What an extraction created.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExtractStats {
    /// Regular files written.
    pub files: u64,
    /// Directories created, whether listed in the archive or implied by a file's path.
    pub dirs: u64,
    /// Symbolic links created.
    pub links: u64,
    /// Bytes written to regular files.
    pub bytes: u64,
}

/// Why an archive was refused or could not be extracted. Entry names are quoted exactly as they
/// appear in the archive; messages are lowercase sentences meant to follow `Error: `.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// The entry's path is absolute (leading `/`, or a Windows drive prefix such as `C:`).
    #[error("archive entry {entry:?} has an absolute path; refusing to extract")]
    AbsolutePath { entry: String },
    /// The entry's path has a `..` component.
    #[error("archive entry {entry:?} has a \"..\" component; refusing to extract")]
    ParentComponent { entry: String },
    /// A symbolic link whose target is absolute or, resolved from the link's own directory,
    /// leaves the package (or can only be proven inside by following another link).
    #[error(
        "archive entry {entry:?} is a link to {target:?}, which points outside the package; \
         refusing to extract"
    )]
    EscapingLink { entry: String, target: String },
    /// The entry would have to be written through a symbolic link created by an earlier entry.
    #[error(
        "archive entry {entry:?} would be written through the link {link:?}; refusing to extract"
    )]
    ThroughLink { entry: String, link: String },
    /// A hard link entry (never extracted).
    #[error("archive entry {entry:?} is a hard link; refusing to extract")]
    HardLink { entry: String },
    /// A device, fifo, socket or any other entry that is not a file, directory or symlink.
    #[error(
        "archive entry {entry:?} is a {kind}; only files, directories and symbolic links can be \
         extracted"
    )]
    SpecialFile { entry: String, kind: String },
    /// A symbolic link on a platform where finch does not create them.
    #[error(
        "archive entry {entry:?} is a symbolic link, which cannot be created on this platform; \
         refusing to extract"
    )]
    UnsupportedLink { entry: String },
    /// An encrypted zip entry.
    #[error("archive entry {entry:?} is encrypted; refusing to extract")]
    Encrypted { entry: String },
    /// The same normalized path twice as a file or link, or a file where a directory is (or the
    /// other way round).
    #[error(
        "archive entry {entry:?} repeats or conflicts with an earlier entry at the same path; \
         refusing to extract"
    )]
    Duplicate { entry: String },
    /// The unpacked total went over [`Limits::max_total_bytes`].
    #[error("archive unpacks to more than {}; refusing to extract", human_bytes(*.limit))]
    TooLarge { limit: u64 },
    /// One file went over [`Limits::max_file_bytes`].
    #[error("archive entry {entry:?} is larger than {}; refusing to extract", human_bytes(*.limit))]
    FileTooLarge { entry: String, limit: u64 },
    /// Unpacked bytes per archive byte went over [`Limits::max_ratio`].
    #[error(
        "archive expands to {ratio} times its own size, over the limit of {limit}; refusing to \
         extract a possible zip bomb"
    )]
    RatioExceeded { ratio: u64, limit: u64 },
    /// The gzip, tar or zip data could not be read.
    #[error("archive is corrupt or unreadable: {message}")]
    Corrupt { message: String },
    /// The destination is not a directory, or not empty.
    #[error("extraction directory {} is not an empty directory", .path.display())]
    DestinationNotEmpty { path: PathBuf },
    /// A file system operation failed.
    #[error("file system error at {}: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
}

/// Formats a byte count for messages: whole GiB/MiB/KiB when exact, else bytes.
fn human_bytes(n: u64) -> String {
    for (unit, name) in [(GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")] {
        if n >= unit && n.is_multiple_of(unit) {
            return format!("{} {name}", n / unit);
        }
    }
    format!("{n} bytes")
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> ArchiveError + '_ {
    move |source| ArchiveError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn corrupt(message: impl Into<String>) -> ArchiveError {
    ArchiveError::Corrupt {
        message: message.into(),
    }
}

/// Extracts `archive` (in `format`) into `dest`, which must be an existing, empty directory.
///
/// Every entry is checked before anything is written for it, and sizes are enforced on the bytes
/// actually written. On error, extraction stops immediately and files written so far are left
/// in `dest` (always inside it): the caller must delete `dest`.
pub fn extract(
    format: ArchiveFormat,
    archive: &Path,
    dest: &Path,
    limits: &Limits,
) -> Result<ExtractStats, ArchiveError> {
    let meta = fs::metadata(dest).map_err(io_error(dest))?;
    if !meta.is_dir() || fs::read_dir(dest).map_err(io_error(dest))?.next().is_some() {
        return Err(ArchiveError::DestinationNotEmpty {
            path: dest.to_path_buf(),
        });
    }
    let archive_len = fs::metadata(archive).map_err(io_error(archive))?.len();
    let mut extractor = Extractor {
        dest,
        limits: *limits,
        archive_len,
        stats: ExtractStats::default(),
    };
    match format {
        ArchiveFormat::Tgz => extractor.extract_tgz(archive)?,
        ArchiveFormat::Zip => extractor.extract_zip(archive)?,
    }
    Ok(extractor.stats)
}

/// Fails with [`ArchiveError::RatioExceeded`] when `bytes` is past the floor and over the ratio.
fn check_ratio(bytes: u64, limits: &Limits, archive_len: u64) -> Result<(), ArchiveError> {
    if bytes > limits.ratio_floor_bytes && bytes > limits.max_ratio.saturating_mul(archive_len) {
        return Err(ArchiveError::RatioExceeded {
            ratio: bytes / archive_len.max(1),
            limit: limits.max_ratio,
        });
    }
    Ok(())
}

/// Counts the decompressed tar stream (headers, long names and pax records included, which the
/// `tar` crate buffers in memory) and cuts it off when it grows past the limits, so that no part
/// of a `.tgz` can expand without bound. The breach is parked in `breach` for the caller.
struct StreamMeter<R> {
    inner: R,
    read: u64,
    cap: u64,
    limits: Limits,
    archive_len: u64,
    breach: Rc<RefCell<Option<ArchiveError>>>,
}

impl<R: Read> Read for StreamMeter<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.breach.borrow().is_some() {
            return Err(io::Error::other("archive limit exceeded"));
        }
        let n = self.inner.read(buf)?;
        self.read = self.read.saturating_add(n as u64);
        let verdict = if self.read > self.cap {
            Err(ArchiveError::TooLarge {
                limit: self.limits.max_total_bytes,
            })
        } else {
            check_ratio(self.read, &self.limits, self.archive_len)
        };
        if let Err(err) = verdict {
            *self.breach.borrow_mut() = Some(err);
            return Err(io::Error::other("archive limit exceeded"));
        }
        Ok(n)
    }
}

/// An entry's path, normalized into plain components.
struct EntryPath {
    /// Non-empty; none is empty, `.` or `..`.
    comps: Vec<String>,
    /// The name ended with a separator (a directory in zip and old tar archives).
    trailing_slash: bool,
}

/// True for names starting with a Windows drive prefix such as `C:`.
/// Reads every name of a zip's central directory and fails on the first name seen twice.
fn reject_duplicate_zip_names(file: &mut File, archive: &Path) -> Result<(), ArchiveError> {
    use std::io::{Seek, SeekFrom};
    const EOCD: [u8; 4] = [0x50, 0x4b, 0x05, 0x06];
    const ZIP64_LOCATOR: [u8; 4] = [0x50, 0x4b, 0x06, 0x07];
    const ZIP64_EOCD: [u8; 4] = [0x50, 0x4b, 0x06, 0x06];
    const CENTRAL: [u8; 4] = [0x50, 0x4b, 0x01, 0x02];
    let len = file.metadata().map_err(io_error(archive))?.len();
    let tail_len = len.min(22 + 65_535 + 20);
    let mut tail = vec![0u8; tail_len as usize];
    file.seek(SeekFrom::Start(len - tail_len))
        .and_then(|_| file.read_exact(&mut tail))
        .map_err(io_error(archive))?;
    let bad = || corrupt("the zip's end of central directory is unreadable");
    let at = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|&i| tail[i..i + 4] == EOCD)
        .ok_or_else(bad)?;
    let u16_at = |b: &[u8], i: usize| u16::from_le_bytes([b[i], b[i + 1]]) as u64;
    let u32_at =
        |b: &[u8], i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]) as u64;
    let u64_at = |b: &[u8], i: usize| {
        let mut x = [0u8; 8];
        x.copy_from_slice(&b[i..i + 8]);
        u64::from_le_bytes(x)
    };
    let (mut cd_size, mut cd_offset) = (u32_at(&tail, at + 12), u32_at(&tail, at + 16));
    if (cd_size == 0xFFFF_FFFF || cd_offset == 0xFFFF_FFFF)
        && at >= 20
        && tail[at - 20..at - 16] == ZIP64_LOCATOR
    {
        let record_at = u64_at(&tail, at - 12);
        let mut record = [0u8; 56];
        file.seek(SeekFrom::Start(record_at))
            .and_then(|_| file.read_exact(&mut record))
            .map_err(io_error(archive))?;
        if record[..4] != ZIP64_EOCD {
            return Err(bad());
        }
        cd_size = u64_at(&record, 40);
        cd_offset = u64_at(&record, 48);
    }
    if cd_offset.checked_add(cd_size).is_none_or(|end| end > len) || cd_size > 256 * 1024 * 1024 {
        return Err(bad());
    }
    let mut cd = vec![0u8; cd_size as usize];
    file.seek(SeekFrom::Start(cd_offset))
        .and_then(|_| file.read_exact(&mut cd))
        .map_err(io_error(archive))?;
    file.seek(SeekFrom::Start(0)).map_err(io_error(archive))?;
    let mut seen = std::collections::HashSet::new();
    let mut i = 0usize;
    while i + 46 <= cd.len() && cd[i..i + 4] == CENTRAL {
        let name_len = u16_at(&cd, i + 28) as usize;
        let extra_len = u16_at(&cd, i + 30) as usize;
        let comment_len = u16_at(&cd, i + 32) as usize;
        let name = cd.get(i + 46..i + 46 + name_len).ok_or_else(bad)?;
        if !seen.insert(name.to_vec()) {
            return Err(ArchiveError::Duplicate {
                entry: String::from_utf8_lossy(name).into_owned(),
            });
        }
        i += 46 + name_len + extra_len + comment_len;
    }
    Ok(())
}

fn has_drive_prefix(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

/// True when `s` is exactly one normal path component on this platform.
fn is_plain_component(s: &str) -> bool {
    let mut parts = Path::new(s).components();
    matches!(
        (parts.next(), parts.next()),
        (Some(Component::Normal(c)), None) if c == std::ffi::OsStr::new(s)
    )
}

/// Normalizes an entry name: `/` (and `\` when `backslash_is_separator`) separate components,
/// empty and `.` components are dropped. Returns `None` for names with nothing left (skipped).
fn parse_name(
    entry: &str,
    backslash_is_separator: bool,
) -> Result<Option<EntryPath>, ArchiveError> {
    if entry.contains('\0') {
        return Err(corrupt(format!(
            "archive entry {entry:?} has a NUL byte in its name"
        )));
    }
    let name = if backslash_is_separator {
        entry.replace('\\', "/")
    } else {
        entry.to_owned()
    };
    if name.starts_with('/') {
        return Err(ArchiveError::AbsolutePath {
            entry: entry.to_owned(),
        });
    }
    let mut comps = Vec::new();
    for comp in name.split('/') {
        match comp {
            "" | "." => {}
            ".." => {
                return Err(ArchiveError::ParentComponent {
                    entry: entry.to_owned(),
                });
            }
            _ => comps.push(comp.to_owned()),
        }
    }
    let absolute = comps.first().is_some_and(|c| has_drive_prefix(c))
        || comps.iter().any(|c| !is_plain_component(c));
    if absolute {
        return Err(ArchiveError::AbsolutePath {
            entry: entry.to_owned(),
        });
    }
    if comps.is_empty() {
        return Ok(None);
    }
    Ok(Some(EntryPath {
        comps,
        trailing_slash: name.ends_with('/'),
    }))
}

/// Turns raw name bytes from a tar header into a string, refusing non-UTF-8.
fn utf8_name(raw: &[u8], what: &str) -> Result<String, ArchiveError> {
    String::from_utf8(raw.to_vec()).map_err(|_| {
        corrupt(format!(
            "{what} {:?} is not valid UTF-8",
            String::from_utf8_lossy(raw)
        ))
    })
}

/// What a zip entry is, from its name and unix mode.
enum ZipKind {
    Dir,
    File { executable: bool },
    Symlink,
    Special(&'static str),
}

fn classify_zip(trailing_slash: bool, unix_mode: Option<u32>) -> ZipKind {
    if trailing_slash {
        return ZipKind::Dir;
    }
    let mode = unix_mode.unwrap_or(0);
    match mode & 0o170_000 {
        0 | 0o100_000 => ZipKind::File {
            executable: mode & 0o111 != 0,
        },
        0o040_000 => ZipKind::Dir,
        0o120_000 => ZipKind::Symlink,
        0o020_000 => ZipKind::Special("character device"),
        0o060_000 => ZipKind::Special("block device"),
        0o010_000 => ZipKind::Special("fifo"),
        0o140_000 => ZipKind::Special("socket"),
        _ => ZipKind::Special("file of unknown type"),
    }
}

/// Sets `mode` on an open file (never following a path).
fn set_file_mode(file: &File, path: &Path, mode: u32) -> Result<(), ArchiveError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(fs::Permissions::from_mode(mode))
            .map_err(io_error(path))?;
    }
    #[cfg(not(unix))]
    let _ = (file, path, mode);
    Ok(())
}

struct Extractor<'a> {
    dest: &'a Path,
    limits: Limits,
    archive_len: u64,
    stats: ExtractStats,
}

impl Extractor<'_> {
    fn extract_tgz(&mut self, archive: &Path) -> Result<(), ArchiveError> {
        let file = File::open(archive).map_err(io_error(archive))?;
        let breach = Rc::new(RefCell::new(None));
        let stream = StreamMeter {
            inner: GzDecoder::new(BufReader::new(file)),
            read: 0,
            cap: self
                .limits
                .max_total_bytes
                .saturating_mul(2)
                .saturating_add(TAR_STREAM_SLACK),
            limits: self.limits,
            archive_len: self.archive_len,
            breach: Rc::clone(&breach),
        };
        let fail = |err: io::Error| -> ArchiveError {
            breach
                .borrow_mut()
                .take()
                .unwrap_or_else(|| corrupt(err.to_string()))
        };
        let mut tar = tar::Archive::new(stream);
        for entry in tar.entries().map_err(fail)? {
            let mut entry = entry.map_err(fail)?;
            self.tar_entry(&mut entry, &fail)?;
        }
        // Read the rest of the gzip stream so that its checksum is verified.
        io::copy(&mut tar.into_inner(), &mut io::sink()).map_err(fail)?;
        Ok(())
    }

    fn tar_entry<R: Read>(
        &mut self,
        entry: &mut tar::Entry<'_, R>,
        fail: &dyn Fn(io::Error) -> ArchiveError,
    ) -> Result<(), ArchiveError> {
        use tar::EntryType;
        let kind = entry.header().entry_type();
        if matches!(
            kind,
            EntryType::XGlobalHeader
                | EntryType::XHeader
                | EntryType::GNULongName
                | EntryType::GNULongLink
        ) {
            return Ok(());
        }
        let name = utf8_name(&entry.path_bytes(), "archive entry name")?;
        let special = match kind {
            EntryType::Link => return Err(ArchiveError::HardLink { entry: name }),
            EntryType::Regular
            | EntryType::Continuous
            | EntryType::Directory
            | EntryType::Symlink => None,
            EntryType::Char => Some("character device".to_owned()),
            EntryType::Block => Some("block device".to_owned()),
            EntryType::Fifo => Some("fifo".to_owned()),
            EntryType::GNUSparse => Some("sparse file".to_owned()),
            other => Some(format!(
                "entry of unknown type {:?}",
                char::from(other.as_byte())
            )),
        };
        if let Some(kind) = special {
            return Err(ArchiveError::SpecialFile { entry: name, kind });
        }
        let Some(path) = parse_name(&name, cfg!(windows))? else {
            return Ok(());
        };
        match kind {
            EntryType::Directory => self.make_dir(&name, &path.comps),
            // Old (v7) archives mark directories by a trailing slash on a regular entry.
            EntryType::Regular | EntryType::Continuous if path.trailing_slash => {
                self.make_dir(&name, &path.comps)
            }
            EntryType::Symlink => {
                let target = match entry.link_name_bytes() {
                    Some(raw) => utf8_name(&raw, "link target")?,
                    None => String::new(),
                };
                self.make_link(&name, &path.comps, &target, cfg!(windows))
            }
            _ => {
                let mode = entry
                    .header()
                    .mode()
                    .map_err(|e| corrupt(format!("archive entry {name:?}: {e}")))?;
                self.check_declared(&name, entry.size())?;
                self.write_file(&name, &path.comps, mode & 0o111 != 0, entry, fail)
            }
        }
    }

    fn extract_zip(&mut self, archive: &Path) -> Result<(), ArchiveError> {
        let mut file = File::open(archive).map_err(io_error(archive))?;
        // The zip crate indexes entries by name and silently keeps one of two equal names, so
        // duplicates are found in the central directory itself before anything is read.
        reject_duplicate_zip_names(&mut file, archive)?;
        let mut zip =
            zip::ZipArchive::new(BufReader::new(file)).map_err(|e| corrupt(e.to_string()))?;
        for index in 0..zip.len() {
            let (name, encrypted, unix_mode, declared) = {
                let f = zip
                    .by_index_raw(index)
                    .map_err(|e| corrupt(e.to_string()))?;
                (f.name().to_owned(), f.encrypted(), f.unix_mode(), f.size())
            };
            let Some(path) = parse_name(&name, true)? else {
                continue;
            };
            if encrypted {
                return Err(ArchiveError::Encrypted { entry: name });
            }
            let entry_corrupt =
                |e: &dyn std::fmt::Display| corrupt(format!("archive entry {name:?}: {e}"));
            match classify_zip(path.trailing_slash, unix_mode) {
                ZipKind::Special(kind) => {
                    return Err(ArchiveError::SpecialFile {
                        entry: name,
                        kind: kind.to_owned(),
                    });
                }
                ZipKind::Dir => self.make_dir(&name, &path.comps)?,
                ZipKind::File { executable } => {
                    self.check_declared(&name, declared)?;
                    let mut reader = zip.by_index(index).map_err(|e| entry_corrupt(&e))?;
                    self.write_file(&name, &path.comps, executable, &mut reader, &|e| {
                        entry_corrupt(&e)
                    })?;
                }
                ZipKind::Symlink => {
                    let reader = zip.by_index(index).map_err(|e| entry_corrupt(&e))?;
                    let mut raw = Vec::new();
                    reader
                        .take(MAX_LINK_TARGET as u64 + 1)
                        .read_to_end(&mut raw)
                        .map_err(|e| entry_corrupt(&e))?;
                    if raw.len() > MAX_LINK_TARGET {
                        return Err(corrupt(format!(
                            "archive entry {name:?} is a link with a target longer than \
                             {MAX_LINK_TARGET} bytes"
                        )));
                    }
                    let target = utf8_name(&raw, "link target")?;
                    self.make_link(&name, &path.comps, &target, true)?;
                }
            }
        }
        Ok(())
    }

    /// Rejects an entry up front when its header already claims more than the limits allow.
    fn check_declared(&self, entry: &str, size: u64) -> Result<(), ArchiveError> {
        if size > self.limits.max_file_bytes {
            return Err(ArchiveError::FileTooLarge {
                entry: entry.to_owned(),
                limit: self.limits.max_file_bytes,
            });
        }
        if self.stats.bytes.saturating_add(size) > self.limits.max_total_bytes {
            return Err(ArchiveError::TooLarge {
                limit: self.limits.max_total_bytes,
            });
        }
        Ok(())
    }

    /// Creates one directory with mode 0o755.
    fn create_dir(&mut self, path: &Path) -> Result<(), ArchiveError> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
            fs::DirBuilder::new()
                .mode(MODE_EXEC)
                .create(path)
                .map_err(io_error(path))?;
            // The builder's mode is filtered by the umask; set it exactly.
            fs::set_permissions(path, fs::Permissions::from_mode(MODE_EXEC))
                .map_err(io_error(path))?;
        }
        #[cfg(not(unix))]
        fs::create_dir(path).map_err(io_error(path))?;
        self.stats.dirs += 1;
        Ok(())
    }

    /// Makes sure every ancestor of `comps` inside `dest` is a real directory (creating missing
    /// ones), refusing symlinks and non-directories, and returns the entry's full path.
    fn prepare_parents(&mut self, entry: &str, comps: &[String]) -> Result<PathBuf, ArchiveError> {
        let Some((last, parents)) = comps.split_last() else {
            return Err(corrupt(format!(
                "archive entry {entry:?} has an empty name"
            )));
        };
        let mut path = self.dest.to_path_buf();
        for (i, comp) in parents.iter().enumerate() {
            path.push(comp);
            match fs::symlink_metadata(&path) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    return Err(ArchiveError::ThroughLink {
                        entry: entry.to_owned(),
                        link: comps[..=i].join("/"),
                    });
                }
                Ok(meta) if meta.is_dir() => {}
                Ok(_) => {
                    return Err(ArchiveError::Duplicate {
                        entry: entry.to_owned(),
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => self.create_dir(&path)?,
                Err(e) => return Err(io_error(&path)(e)),
            }
        }
        path.push(last);
        Ok(path)
    }

    /// Refuses when anything (even a dangling link) already exists at `path`.
    fn ensure_absent(entry: &str, path: &Path) -> Result<(), ArchiveError> {
        match fs::symlink_metadata(path) {
            Ok(_) => Err(ArchiveError::Duplicate {
                entry: entry.to_owned(),
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io_error(path)(e)),
        }
    }

    fn make_dir(&mut self, entry: &str, comps: &[String]) -> Result<(), ArchiveError> {
        let path = self.prepare_parents(entry, comps)?;
        match fs::symlink_metadata(&path) {
            // `symlink_metadata` reports a link as a link, never as a directory.
            Ok(meta) if meta.is_dir() => Ok(()),
            Ok(_) => Err(ArchiveError::Duplicate {
                entry: entry.to_owned(),
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => self.create_dir(&path),
            Err(e) => Err(io_error(&path)(e)),
        }
    }

    fn write_file(
        &mut self,
        entry: &str,
        comps: &[String],
        executable: bool,
        reader: &mut dyn Read,
        read_failed: &dyn Fn(io::Error) -> ArchiveError,
    ) -> Result<(), ArchiveError> {
        let path = self.prepare_parents(entry, comps)?;
        Self::ensure_absent(entry, &path)?;
        let mode = if executable { MODE_EXEC } else { MODE_PLAIN };
        let mut options = OpenOptions::new();
        // `create_new` fails on anything existing, dangling links included: nothing is followed.
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(mode);
        }
        let mut file = options.open(&path).map_err(|e| {
            if e.kind() == io::ErrorKind::AlreadyExists {
                ArchiveError::Duplicate {
                    entry: entry.to_owned(),
                }
            } else {
                io_error(&path)(e)
            }
        })?;
        self.stats.files += 1;
        let mut buf = vec![0u8; COPY_BUFFER];
        let mut written: u64 = 0;
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(read_failed(e)),
            };
            written = written.saturating_add(n as u64);
            self.stats.bytes = self.stats.bytes.saturating_add(n as u64);
            if written > self.limits.max_file_bytes {
                return Err(ArchiveError::FileTooLarge {
                    entry: entry.to_owned(),
                    limit: self.limits.max_file_bytes,
                });
            }
            if self.stats.bytes > self.limits.max_total_bytes {
                return Err(ArchiveError::TooLarge {
                    limit: self.limits.max_total_bytes,
                });
            }
            check_ratio(self.stats.bytes, &self.limits, self.archive_len)?;
            file.write_all(&buf[..n]).map_err(io_error(&path))?;
        }
        set_file_mode(&file, &path, mode)
    }

    fn make_link(
        &mut self,
        entry: &str,
        comps: &[String],
        target: &str,
        backslash_is_separator: bool,
    ) -> Result<(), ArchiveError> {
        #[cfg(unix)]
        {
            let path = self.prepare_parents(entry, comps)?;
            Self::ensure_absent(entry, &path)?;
            let target = self.check_link_target(entry, comps, target, backslash_is_separator)?;
            std::os::unix::fs::symlink(&target, &path).map_err(io_error(&path))?;
            self.stats.links += 1;
            Ok(())
        }
        #[cfg(not(unix))]
        {
            let _ = (comps, target, backslash_is_separator);
            Err(ArchiveError::UnsupportedLink {
                entry: entry.to_owned(),
            })
        }
    }

    /// Resolves a link target from the link's own directory and returns it normalized (`/`
    /// separators, no empty or `.` components), or fails if it is absolute or leaves `dest`.
    ///
    /// The link's parent directories are real directories (checked by `prepare_parents`). A `..`
    /// that follows components taken from the target itself is only accepted when those
    /// components are, right now, real directories: `x/..` through a link `x` would resolve
    /// relative to the link's target, not lexically. A real directory can never later be
    /// replaced by a link (that would be a duplicate), so the check stays true.
    #[cfg_attr(not(unix), allow(dead_code))]
    fn check_link_target(
        &self,
        entry: &str,
        comps: &[String],
        target: &str,
        backslash_is_separator: bool,
    ) -> Result<String, ArchiveError> {
        let escaping = || ArchiveError::EscapingLink {
            entry: entry.to_owned(),
            target: target.to_owned(),
        };
        if target.is_empty() {
            return Err(corrupt(format!(
                "archive entry {entry:?} is a link with an empty target"
            )));
        }
        if target.contains('\0') {
            return Err(corrupt(format!(
                "archive entry {entry:?} has a NUL byte in its link target"
            )));
        }
        let normalized = if backslash_is_separator {
            target.replace('\\', "/")
        } else {
            target.to_owned()
        };
        if normalized.starts_with('/') {
            return Err(escaping());
        }
        let parts: Vec<&str> = normalized
            .split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .collect();
        if parts.first().is_some_and(|p| has_drive_prefix(p)) {
            return Err(escaping());
        }
        let parent_len = comps.len().saturating_sub(1);
        let mut stack: Vec<&str> = comps[..parent_len].iter().map(String::as_str).collect();
        let mut verified = stack.len();
        for part in &parts {
            if *part == ".." {
                if stack.is_empty() {
                    return Err(escaping());
                }
                if stack.len() > verified && !self.is_real_dir_chain(&stack) {
                    return Err(escaping());
                }
                stack.pop();
                verified = stack.len();
            } else if is_plain_component(part) {
                stack.push(part);
            } else {
                return Err(escaping());
            }
        }
        Ok(if parts.is_empty() {
            ".".to_owned()
        } else {
            parts.join("/")
        })
    }

    /// True when every prefix of `comps` inside `dest` is an existing directory, not a link.
    #[cfg_attr(not(unix), allow(dead_code))]
    fn is_real_dir_chain(&self, comps: &[&str]) -> bool {
        let mut path = self.dest.to_path_buf();
        comps.iter().all(|comp| {
            path.push(comp);
            fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::Compression;
    use flate2::write::GzEncoder;
    use std::io::Cursor;
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
}
