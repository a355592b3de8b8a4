//! Noticing that a package's sources changed (`finch dev`): a `notify` watcher on the package
//! directory, its events debounced — a burst of saves (an editor's write-and-rename, a `git
//! checkout`) is one change, reported once the package has been quiet for `QUIET`. Files the
//! build writes and what npm installs (`dist/`, `node_modules/`, `.git/`, `*.tgz`) are not
//! changes, so a rebuild never triggers itself; nor are an editor's scratch files or the temp
//! file of finch's own atomic writes (`is_scratch`).

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use notify::{Event, RecursiveMode, Watcher as _};

/// How long the package must be quiet before a change is reported.
const QUIET: Duration = Duration::from_millis(200);
/// Directories whose changes are not the author's.
const IGNORED_DIRS: [&str; 3] = ["dist", "node_modules", ".git"];

/// A watcher of one package directory.
pub struct Watcher {
    dir: PathBuf,
    events: Receiver<notify::Result<Event>>,
    _watcher: notify::RecommendedWatcher,
}

impl Watcher {
    pub fn new(dir: &Path) -> notify::Result<Watcher> {
        let (tx, events) = channel();
        let mut watcher = notify::recommended_watcher(move |e| {
            // The receiver is gone only when the watcher is being dropped.
            let _ = tx.send(e);
        })?;
        watcher.watch(dir, RecursiveMode::Recursive)?;
        Ok(Watcher {
            dir: dir.to_path_buf(),
            events,
            _watcher: watcher,
        })
    }

    /// Blocks until the sources change, then until they have been quiet for a moment; the
    /// changed files (relative to the package). `None` when the watcher stopped.
    pub fn next_change(&self) -> Option<Vec<PathBuf>> {
        let mut changed: Vec<PathBuf> = Vec::new();
        loop {
            let event = if changed.is_empty() {
                self.events.recv().ok()?
            } else {
                match self.events.recv_timeout(QUIET) {
                    Ok(e) => e,
                    Err(RecvTimeoutError::Timeout) => return Some(changed),
                    Err(RecvTimeoutError::Disconnected) => return None,
                }
            };
            let Ok(event) = event else {
                continue;
            };
            if event.kind.is_access() {
                continue;
            }
            for path in event.paths {
                if let Some(rel) = self.source(&path)
                    && !changed.contains(&rel)
                {
                    changed.push(rel);
                }
            }
        }
    }

    /// `path` relative to the package when it is one of the author's files.
    fn source(&self, path: &Path) -> Option<PathBuf> {
        let rel = path.strip_prefix(&self.dir).ok()?;
        let first = rel.components().next()?.as_os_str().to_str()?;
        if IGNORED_DIRS.contains(&first) {
            return None;
        }
        let name = rel.file_name()?.to_str()?;
        if name.ends_with(".tgz") || is_scratch(name) {
            return None;
        }
        Some(rel.to_path_buf())
    }
}

/// Whether a file name is an editor's or a tool's scratch file rather than a source: backups
/// (`x~`), vim's swap files (`.x.swp`, `.swo`, …) and the file it writes to test a directory
/// (`4913`), emacs' lock and autosave files (`.#x`, `#x#`), JetBrains' and Kate's temporaries,
/// and the temp file of an atomic write (`*.tmp`: finch's own `.finch.test.json.XXXX.tmp` when
/// `finch test --update` writes the cases).
fn is_scratch(name: &str) -> bool {
    let vim_swap = name.starts_with('.')
        && name
            .rsplit_once('.')
            .is_some_and(|(_, ext)| ext.len() == 3 && ext.starts_with("sw"));
    name.ends_with('~')
        || name.starts_with(".#")
        || (name.len() > 1 && name.starts_with('#') && name.ends_with('#'))
        || vim_swap
        || name == "4913"
        || name.ends_with("___jb_tmp___")
        || name.ends_with("___jb_old___")
        || name.ends_with(".kate-swp")
        || name.ends_with(".tmp")
        || name == ".DS_Store"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_files_of_editors_and_of_finch_are_not_sources() {
        for name in [
            "index.ts~",
            ".index.ts.swp",
            ".index.ts.swo",
            ".index.ts.swx",
            "4913",
            ".#index.ts",
            "#index.ts#",
            "index.ts___jb_tmp___",
            "index.ts___jb_old___",
            ".index.ts.kate-swp",
            ".finch.test.json.aB3xYz.tmp",
            ".DS_Store",
        ] {
            assert!(is_scratch(name), "{name}");
        }
        for name in [
            "index.ts",
            "finch.test.json",
            ".gitignore",
            "#",
            "notes.swift",
            ".eslintrc.json",
            "4914",
        ] {
            assert!(!is_scratch(name), "{name}");
        }
    }

    #[test]
    fn a_burst_of_writes_is_one_change_and_dist_is_no_change() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("dist")).unwrap();
        let w = Watcher::new(&root).unwrap();
        std::fs::write(root.join("dist/index.js"), "built").unwrap();
        std::fs::write(root.join("src/a.ts"), "1").unwrap();
        std::fs::write(root.join("src/a.ts"), "2").unwrap();
        std::fs::write(root.join("src/b.ts"), "3").unwrap();
        let mut changed = w.next_change().unwrap();
        changed.sort();
        assert_eq!(
            changed,
            [PathBuf::from("src/a.ts"), PathBuf::from("src/b.ts")]
        );
    }
}
