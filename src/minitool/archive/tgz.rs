//! `.tgz` entries: the decompressed stream is metered so no part of it expands without bound,
//! and each tar entry type is written, skipped or refused.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;
use std::rc::Rc;

use flate2::read::GzDecoder;

use super::names::{parse_name, utf8_name};
use super::{ArchiveError, Extractor, Limits, TAR_STREAM_SLACK, check_ratio, corrupt, io_error};

/// Counts the decompressed tar stream (headers, long names and pax records included, which the
/// `tar` crate buffers in memory) and cuts it off when it grows past the limits, so that no part
/// of a `.tgz` can expand without bound. The breach is parked in `breach` for the caller.
pub(super) struct StreamMeter<R> {
    pub(super) inner: R,
    pub(super) read: u64,
    pub(super) cap: u64,
    pub(super) limits: Limits,
    pub(super) archive_len: u64,
    pub(super) breach: Rc<RefCell<Option<ArchiveError>>>,
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

impl Extractor<'_> {
    pub(super) fn extract_tgz(&mut self, archive: &Path) -> Result<(), ArchiveError> {
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
}
