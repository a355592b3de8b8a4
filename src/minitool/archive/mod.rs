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
//!
//! The rules are split by what they check: `names` (an entry's name, before anything is
//! written), `tgz` and `zipfile` (each format's entries, and the limits on its stream), and this
//! file (the writing: parents, files, links, modes).

mod names;
#[cfg(test)]
mod tests;
mod tgz;
mod zipfile;

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use names::{has_drive_prefix, is_plain_component};

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
