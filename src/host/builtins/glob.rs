//! `Glob` (SPEC §8.6): files whose path matches a glob pattern, newest first. The walk is
//! ripgrep's (`ignore`: `.gitignore`/`.ignore` honoured in a git repository or not, hidden
//! files skipped unless the pattern names them, `.git` never listed) and the match is
//! `globset`'s with `*` staying inside one directory and `**` crossing them. The list is
//! capped and says so.

use std::cmp::Reverse;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkBuilder;
use serde_json::{Value, json};

use super::super::catalog::ToolDef;
use super::super::output::ToolOutput;
use super::Cx;
use super::read::{display_path, real_target};
use super::{resolve_path, str_arg};

/// The most paths one Glob returns.
const MAX_RESULTS: usize = 200;

/// What people type when they want this tool (ToolSearch ranks it beside the description).
pub const KEYWORDS: &str = "find list files by name path pattern extension wildcard directory tree locate. 按文件名查找 查找文件 列出文件 文件名匹配 通配符 找文件 目录下有哪些文件 依檔名尋找 尋找檔案 列出檔案 萬用字元";

pub fn def() -> ToolDef {
    super::def(
        "Glob",
        "Find files by name",
        "Find files whose path matches a glob pattern, such as `**/*.rs`, `src/**/*.{ts,tsx}` \
         or `*.md`. `*` and `?` match within one directory level and `**` matches any number of \
         levels, so `*.md` only looks in the search directory itself — use `**/*.md` to look \
         in subdirectories too. The pattern is matched relative to `path` (default: the \
         working directory) and may also be absolute. Files excluded by `.gitignore`/`.ignore` \
         are left out, and hidden files too unless the pattern names them (like `.github/**` or \
         `**/.env`). Lists files only, newest modification first, at most 200 (the answer says \
         when there were more). Paths are relative to the working directory when inside it.",
        json!({
            "type": "object",
            "properties": {
                "pattern": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The glob to match file paths against, e.g. `**/*.rs`"
                },
                "path": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The directory to search in (default: the working directory)"
                }
            },
            "required": ["pattern"],
            "additionalProperties": false
        }),
    )
}

pub fn call(args: &Value, cx: &Cx) -> ToolOutput {
    let Some(pattern) = str_arg(args, "pattern") else {
        return ToolOutput::error("Glob needs `pattern`, for example `**/*.rs`.");
    };
    let base = resolve_path(cx, str_arg(args, "path").unwrap_or("."));
    let (literal, rest) = split_pattern(pattern);
    let root = match literal {
        "" => base.clone(),
        literal => {
            let literal = match crate::homes::expand_tilde(
                Path::new(literal),
                cx.session.home.as_deref(),
            ) {
                Ok(p) => p,
                Err(_) => {
                    return ToolOutput::error(format!(
                        "`{pattern}` starts with `~` but the home directory is unknown; give an \
                         absolute pattern."
                    ));
                }
            };
            crate::homes::absolutize(&literal, &base)
        }
    };
    if let Err(message) = real_target(cx, "Glob", "path", &root) {
        return ToolOutput::error(message);
    }
    let shown_root = display_path(cx, &root);
    if rest.is_empty() {
        // No wildcard: the pattern names one file.
        return match std::fs::metadata(&root) {
            Ok(meta) if meta.is_file() => ToolOutput::text(shown_root),
            Ok(_) => ToolOutput::text(format!(
                "`{shown_root}` is a directory, and Glob lists files. Use pattern \
                 `{pattern}/**/*` to list the files under it."
            )),
            Err(_) => ToolOutput::text(format!("No files match `{pattern}`.")),
        };
    }
    match std::fs::metadata(&root) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return ToolOutput::error(format!(
                "`{shown_root}` is a file, not a directory to search. Use Read to read it, or \
                 give a directory as `path`."
            ));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return ToolOutput::error(format!(
                "`{shown_root}` does not exist, so there is nothing to search. Give an existing \
                 directory as `path` or at the start of the pattern."
            ));
        }
        Err(e) => return ToolOutput::error(format!("Cannot search `{shown_root}`: {e}.")),
    }
    let matcher = match GlobBuilder::new(rest).literal_separator(true).build() {
        Ok(glob) => glob.compile_matcher(),
        Err(e) => {
            return ToolOutput::error(format!(
                "Invalid glob pattern `{pattern}`: {e}. Use `*`, `?`, `**`, `[abc]` and `{{a,b}}`."
            ));
        }
    };
    let (found, unreadable) = find(&root, rest, &matcher);
    let total = found.len();
    let mut lines: Vec<String> = found
        .into_iter()
        .take(MAX_RESULTS)
        .map(|(_, path)| display_path(cx, &path))
        .collect();
    if lines.is_empty() {
        let mut text = format!("No files match `{pattern}` in `{shown_root}`.");
        if !rest.contains('/') && !rest.starts_with("**") {
            text.push_str(&format!(
                " `*` does not cross directories: use `**/{rest}` to search subdirectories too."
            ));
        }
        lines.push(text);
    }
    if total > MAX_RESULTS {
        lines.push(format!(
            "\n(Showing the {MAX_RESULTS} most recently modified of {total} files; narrow the \
             pattern or path to see the rest.)"
        ));
    }
    match unreadable {
        0 => {}
        1 => lines.push("\n(1 path could not be read.)".into()),
        n => lines.push(format!("\n({n} paths could not be read.)")),
    }
    ToolOutput::text(lines.join("\n"))
}

/// Splits a pattern at its last literal directory before the first wildcard: the directory
/// to walk and the glob below it. `src/**/*.rs` → (`src`, `**/*.rs`); `*.rs` → (``, `*.rs`);
/// `/etc/*` → (`/etc`, `*`); `a/b.txt` (no wildcard) → (`a/b.txt`, ``).
fn split_pattern(pattern: &str) -> (&str, &str) {
    let Some(wild) = pattern.find(['*', '?', '[', '{']) else {
        return (pattern, "");
    };
    match pattern[..wild].rfind('/') {
        Some(0) => ("/", &pattern[1..]),
        Some(slash) => (&pattern[..slash], &pattern[slash + 1..]),
        None => ("", pattern),
    }
}

/// Every file under `root` whose path relative to `root` matches, newest first (by path on
/// ties), and how many paths could not be read.
fn find(root: &Path, rest: &str, matcher: &GlobMatcher) -> (Vec<(SystemTime, PathBuf)>, usize) {
    let mut walk = WalkBuilder::new(root);
    walk.require_git(false)
        .follow_links(false)
        .hidden(!names_hidden(rest))
        .filter_entry(|entry| entry.file_name() != ".git");
    if !rest.contains("**") {
        walk.max_depth(Some(rest.split('/').count()));
    }
    let mut found = Vec::new();
    let mut unreadable = 0;
    for entry in walk.build() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(_) => {
                unreadable += 1;
                continue;
            }
        };
        if entry.file_type().is_none_or(|t| t.is_dir()) {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(root) else {
            continue;
        };
        if matcher.is_match(relative) {
            let modified = entry
                .metadata()
                .ok()
                .and_then(|m| m.modified().ok())
                .unwrap_or(SystemTime::UNIX_EPOCH);
            found.push((modified, entry.into_path()));
        }
    }
    found.sort_by(|a, b| (Reverse(a.0), &a.1).cmp(&(Reverse(b.0), &b.1)));
    (found, unreadable)
}

/// Whether the glob names a hidden file or directory itself (`.github/**`, `**/.env`): then
/// hidden entries are walked too.
fn names_hidden(rest: &str) -> bool {
    rest.split('/').any(|part| part.starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_the_literal_directory_from_the_glob() {
        let cases = [
            ("**/*.rs", ("", "**/*.rs")),
            ("*.rs", ("", "*.rs")),
            ("src/**/*.rs", ("src", "**/*.rs")),
            ("src/a/*.rs", ("src/a", "*.rs")),
            ("/etc/*", ("/etc", "*")),
            ("/*", ("/", "*")),
            ("../x/{a,b}.rs", ("../x", "{a,b}.rs")),
            ("~/notes/*.md", ("~/notes", "*.md")),
            ("src/main.rs", ("src/main.rs", "")),
            ("src/[ab].rs", ("src", "[ab].rs")),
        ];
        for (pattern, want) in cases {
            assert_eq!(split_pattern(pattern), want, "{pattern}");
        }
    }

    #[test]
    fn walks_hidden_entries_only_when_the_pattern_names_them() {
        let cases = [
            ("**/*.rs", false),
            (".github/**/*.yml", true),
            ("**/.env", true),
            ("*.rs", false),
            ("**/.*", true),
        ];
        for (rest, want) in cases {
            assert_eq!(names_hidden(rest), want, "{rest}");
        }
    }

    #[test]
    fn finds_newest_first_and_honours_ignore_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |rel: &str, age_secs: u64| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, rel).unwrap();
            let when = SystemTime::now() - std::time::Duration::from_secs(age_secs);
            std::fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(when)
                .unwrap();
        };
        write("old.rs", 300);
        write("src/new.rs", 10);
        write("src/mid.rs", 100);
        write("target/gen.rs", 1);
        write(".hidden/x.rs", 1);
        write("notes.md", 1);
        std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
        let names = |rest: &str| {
            let matcher = GlobBuilder::new(rest)
                .literal_separator(true)
                .build()
                .unwrap()
                .compile_matcher();
            let (found, _) = find(root, rest, &matcher);
            found
                .into_iter()
                .map(|(_, p)| p.strip_prefix(root).unwrap().display().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(names("**/*.rs"), ["src/new.rs", "src/mid.rs", "old.rs"]);
        assert_eq!(names("*.rs"), ["old.rs"]);
        assert_eq!(names(".hidden/*.rs"), [".hidden/x.rs"]);
        assert_eq!(names("**/.gitignore"), [".gitignore"]);
    }
}
