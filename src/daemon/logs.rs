//! The logs a daemon keeps, rotated so that a bot running for months does not fill the disk:
//! a log over `LOG_MAX` is copied to `<log>.1` (the older `.1` moved to `.2`, the oldest
//! dropped) and emptied in place. Emptied, not renamed: a mini tool's `node` holds its log
//! open in append mode, so its next line lands at the start of the emptied file, as logrotate's
//! `copytruncate` does; a line written between the copy and the emptying is lost, the price of
//! not restarting the mini tool.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A log grows to this before it is rotated.
pub const LOG_MAX: u64 = 1024 * 1024;
/// Rotated generations kept (`.1`, `.2`).
pub const KEPT: u32 = 2;

fn generation(path: &Path, n: u32) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(format!(".{n}"));
    PathBuf::from(name)
}

/// Rotates `path` when it is larger than `max`; whether it did.
pub fn rotate_if_big(path: &Path, max: u64) -> std::io::Result<bool> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(false);
    };
    if meta.len() <= max {
        return Ok(false);
    }
    for n in (1..KEPT).rev() {
        let from = generation(path, n);
        if from.exists() {
            std::fs::rename(&from, generation(path, n + 1))?;
        }
    }
    std::fs::copy(path, generation(path, 1))?;
    OpenOptions::new().write(true).open(path)?.set_len(0)?;
    Ok(true)
}

/// The last `lines` lines of `path`, reaching back into its rotated generations when the
/// current file has fewer. `None` when neither the log nor a generation exists.
pub fn tail(path: &Path, lines: usize) -> Option<Vec<String>> {
    let mut files: Vec<PathBuf> = (1..=KEPT).rev().map(|n| generation(path, n)).collect();
    files.push(path.to_path_buf());
    let existing: Vec<PathBuf> = files.into_iter().filter(|f| f.exists()).collect();
    if existing.is_empty() {
        return None;
    }
    let mut out: Vec<String> = Vec::new();
    for file in existing.iter().rev() {
        let text = std::fs::read(file).unwrap_or_default();
        let text = String::from_utf8_lossy(&text);
        let mut these: Vec<String> = text.lines().map(str::to_string).collect();
        these.append(&mut out);
        out = these;
        if out.len() >= lines {
            break;
        }
    }
    let skip = out.len().saturating_sub(lines);
    Some(out.split_off(skip))
}

/// Appends one line to the daemon's own log.
pub fn append(path: &Path, line: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    writeln!(file, "{line}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_big_log_is_copied_aside_and_emptied_keeping_two_generations() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("bot.log");
        std::fs::write(&log, "first\n").unwrap();
        assert!(!rotate_if_big(&log, 100).unwrap(), "small logs stay");
        for round in ["one", "two", "three"] {
            std::fs::write(&log, format!("{round}\n").repeat(30)).unwrap();
            assert!(rotate_if_big(&log, 100).unwrap());
            assert_eq!(std::fs::metadata(&log).unwrap().len(), 0);
        }
        let read = |p: PathBuf| std::fs::read_to_string(p).unwrap();
        assert!(read(generation(&log, 1)).starts_with("three\n"));
        assert!(read(generation(&log, 2)).starts_with("two\n"));
        assert!(!generation(&log, 3).exists());
    }

    #[test]
    fn tail_reaches_into_the_rotated_generation() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("bot.log");
        assert_eq!(tail(&log, 5), None);
        std::fs::write(generation(&log, 1), "a\nb\nc\n").unwrap();
        std::fs::write(&log, "d\ne\n").unwrap();
        assert_eq!(tail(&log, 3).unwrap(), vec!["c", "d", "e"]);
        assert_eq!(tail(&log, 1).unwrap(), vec!["e"]);
        assert_eq!(tail(&log, 10).unwrap(), vec!["a", "b", "c", "d", "e"]);
    }
}
