//! `.zip` entries: duplicate names are refused from the central directory before anything is
//! written, and each entry is classified from its unix mode.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use super::names::{parse_name, utf8_name};
use super::{ArchiveError, Extractor, MAX_LINK_TARGET, corrupt, io_error};

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

impl Extractor<'_> {
    pub(super) fn extract_zip(&mut self, archive: &Path) -> Result<(), ArchiveError> {
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
}
