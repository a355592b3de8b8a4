//! `Grep` (SPEC §8.6): a regex search over a file or a directory tree with the ripgrep crates —
//! `ignore` walks (honouring `.gitignore`, `.ignore` and hidden files as ripgrep does, in a git
//! repository or not), `grep-regex` matches and `grep-searcher` reads (binary files skipped).
//! Three output modes: matching files (the default), matching lines with optional context, and
//! per-file counts. Output is capped and says so, so a broad search cannot flood the model.

use std::path::Path;

use grep_matcher::LineTerminator;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};
use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use serde_json::{Value, json};

use super::super::catalog::ToolDef;
use super::super::output::ToolOutput;
use super::Cx;
use super::read::{MAX_LINE_CHARS, cut_line, display_path, real_target, uint_arg};
use super::{resolve_path, str_arg};

/// The most text one Grep returns.
const OUTPUT_CAP: usize = 64 * 1024;

/// What people type when they want this tool (ToolSearch ranks it beside the description).
pub const KEYWORDS: &str = "find search text string keyword pattern regex in files code usages where used ripgrep content. 查找文件内容 搜索文件内容 在文件中搜索 搜索代码 查找关键字 搜索关键词 正则 全文搜索 查找用法 搜尋檔案內容 在檔案中搜尋 搜尋程式碼 尋找關鍵字 正規表達式";

pub fn def() -> ToolDef {
    super::def(
        "Grep",
        "Search file contents",
        "Search file contents with a regular expression (ripgrep: Rust regex syntax — escape \
         literal `(`, `{`, `.`, `*` with a backslash; no look-around or backreferences). \
         Searches `path` (a file or a directory, default the working directory) recursively, \
         skipping hidden files, binary files and whatever `.gitignore`/`.ignore` exclude. \
         Narrow it with `glob` (for example `*.rs`, `src/**/*.{ts,tsx}`; several separated by \
         spaces; a leading `!` excludes) or `type` (ripgrep type names: rust, py, js, ts, go, \
         java, md, …). `output_mode`: `files_with_matches` (default) lists matching files, \
         `content` shows matching lines (`path:line:text`; `-n` line numbers on by default, \
         `-A`/`-B`/`-C` context lines, context lines use `-`), `count` shows matching lines per \
         file. `-i` ignores case; `multiline` lets a pattern span lines (`.` then matches \
         newlines). `head_limit` keeps the first N lines or entries. Paths in the answer are \
         relative to the working directory when inside it; the answer holds at most 64 KiB and \
         says when it was cut.",
        json!({
            "type": "object",
            "properties": {
                "pattern": {
                    "type": "string",
                    "description": "The regular expression to search for (Rust regex syntax, as ripgrep)"
                },
                "path": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The file or directory to search (default: the working directory)"
                },
                "glob": {
                    "type": "string",
                    "description": "Only search files matching this glob, e.g. `*.rs` or `src/**/*.{ts,tsx}`; several separated by spaces; `!` excludes"
                },
                "type": {
                    "type": "string",
                    "description": "Only search files of this ripgrep type, e.g. rust, py, js, ts, go, java, md"
                },
                "output_mode": {
                    "type": "string",
                    "enum": ["files_with_matches", "content", "count", "files"],
                    "description": "files_with_matches (default; `files` is the same): matching file paths; content: matching lines; count: matching lines per file"
                },
                "-i": {"type": "boolean", "description": "Ignore case"},
                "-n": {"type": "boolean", "description": "Show line numbers in content mode (default true)"},
                "-A": {"type": "integer", "minimum": 0, "maximum": 1000, "description": "Lines of context after each match (content mode)"},
                "-B": {"type": "integer", "minimum": 0, "maximum": 1000, "description": "Lines of context before each match (content mode)"},
                "-C": {"type": "integer", "minimum": 0, "maximum": 1000, "description": "Lines of context before and after each match (content mode)"},
                "multiline": {"type": "boolean", "description": "Let the pattern match across lines; `.` matches newlines too (default false)"},
                "head_limit": {"type": "integer", "minimum": 1, "description": "Keep only the first N output lines (content) or entries (files, counts)"}
            },
            "required": ["pattern"],
            "additionalProperties": false
        }),
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Files,
    Content,
    Count,
}

/// The search as the arguments describe it.
#[derive(Debug)]
struct Options {
    mode: Mode,
    ignore_case: bool,
    line_numbers: bool,
    after: usize,
    before: usize,
    multiline: bool,
    head_limit: Option<usize>,
}

impl Options {
    fn from_args(args: &Value) -> Options {
        let flag = |key: &str| args.get(key).and_then(Value::as_bool);
        let lines = |key: &str| uint_arg(args, key).map(|n| n as usize);
        let mode = match str_arg(args, "output_mode") {
            Some("content") => Mode::Content,
            Some("count") => Mode::Count,
            _ => Mode::Files,
        };
        let context = lines("-C").unwrap_or(0);
        let (after, before) = if mode == Mode::Content {
            (
                lines("-A").unwrap_or(context),
                lines("-B").unwrap_or(context),
            )
        } else {
            (0, 0)
        };
        Options {
            mode,
            ignore_case: flag("-i").unwrap_or(false),
            line_numbers: flag("-n").unwrap_or(true),
            after,
            before,
            multiline: flag("multiline").unwrap_or(false),
            head_limit: lines("head_limit"),
        }
    }

    fn context(&self) -> bool {
        self.after > 0 || self.before > 0
    }
}

pub fn call(args: &Value, cx: &Cx) -> ToolOutput {
    let Some(pattern) = str_arg(args, "pattern") else {
        return ToolOutput::error("Grep needs `pattern`: the regular expression to search for.");
    };
    let options = Options::from_args(args);
    let root = resolve_path(cx, str_arg(args, "path").unwrap_or("."));
    if let Err(message) = real_target(cx, "Grep", "path", &root) {
        return ToolOutput::error(message);
    }
    let shown_root = display_path(cx, &root);
    let meta = match std::fs::metadata(&root) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return ToolOutput::error(format!(
                "`{shown_root}` does not exist. Give an existing file or directory as `path`, or \
                 leave it out to search the working directory."
            ));
        }
        Err(e) => return ToolOutput::error(format!("Cannot search `{shown_root}`: {e}.")),
    };
    let matcher = match build_matcher(pattern, &options) {
        Ok(m) => m,
        Err(message) => return ToolOutput::error(message),
    };
    let mut searcher = searcher(&options);
    let mut report = Report::new(&options);
    if meta.is_file() {
        // Like ripgrep: a single file's lines carry no file name.
        let prefix = (options.mode != Mode::Content).then(|| shown_root.clone());
        report.search(&mut searcher, &matcher, &root, prefix);
    } else {
        let walker = match walker(&root, args) {
            Ok(w) => w,
            Err(message) => return ToolOutput::error(message),
        };
        for entry in walker.build() {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    report.note_unreadable(e.to_string());
                    continue;
                }
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let prefix = display_path(cx, entry.path());
            report.search(&mut searcher, &matcher, entry.path(), Some(prefix));
            if report.stopped.is_some() {
                break;
            }
        }
    }
    report.finish(pattern, &shown_root)
}

fn build_matcher(pattern: &str, options: &Options) -> Result<RegexMatcher, String> {
    let mut builder = RegexMatcherBuilder::new();
    builder.case_insensitive(options.ignore_case);
    if options.multiline {
        builder.multi_line(true).dot_matches_new_line(true);
    } else {
        // Lines are matched one at a time; `$` also before `\r\n`.
        builder.line_terminator(Some(b'\n')).crlf(true);
    }
    builder.build(pattern).map_err(|e| {
        let mut message = format!(
            "Invalid regular expression `{pattern}`: {e}\nGrep uses Rust regex syntax (as \
             ripgrep): escape literal `(`, `)`, `[`, `{{`, `.`, `*`, `+`, `?` with a backslash; \
             look-around and backreferences are not supported."
        );
        if !options.multiline && (pattern.contains("\\n") || pattern.contains('\n')) {
            message.push_str(" To match across lines, set `multiline` to true.");
        }
        message
    })
}

/// Reads files for the matcher: line numbers only where shown, binary files (a NUL byte)
/// abandoned, CRLF lines when matching line by line (as the matcher expects).
fn searcher(options: &Options) -> Searcher {
    let mut builder = SearcherBuilder::new();
    builder
        .line_number(options.mode == Mode::Content && options.line_numbers)
        .multi_line(options.multiline)
        .before_context(options.before)
        .after_context(options.after)
        .binary_detection(BinaryDetection::quit(b'\0'));
    if !options.multiline {
        builder.line_terminator(LineTerminator::crlf());
    }
    builder.build()
}

/// The directory walk: ripgrep's filters (hidden files, ignore files even outside a git
/// repository), sorted by name so answers are stable, narrowed by `glob` and `type`.
fn walker(root: &Path, args: &Value) -> Result<WalkBuilder, String> {
    let mut walk = WalkBuilder::new(root);
    walk.require_git(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b));
    if let Some(globs) = str_arg(args, "glob").filter(|g| !g.trim().is_empty()) {
        let mut overrides = OverrideBuilder::new(root);
        for glob in globs.split_whitespace() {
            overrides
                .add(glob)
                .map_err(|e| format!("Invalid glob `{glob}`: {e}"))?;
        }
        let overrides = overrides
            .build()
            .map_err(|e| format!("Invalid glob `{globs}`: {e}"))?;
        walk.overrides(overrides);
    }
    if let Some(name) = str_arg(args, "type").filter(|t| !t.trim().is_empty()) {
        let mut types = TypesBuilder::new();
        types.add_defaults().select(name);
        let types = types.build().map_err(|_| {
            format!(
                "Unknown file type `{name}`. Use a ripgrep type name such as rust, py, js, ts, \
                 go, java, c, cpp, md, json, yaml, or filter with `glob` instead."
            )
        })?;
        walk.types(types);
    }
    Ok(walk)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    HeadLimit,
    Cap,
}

/// The answer being built, file by file.
struct Report<'o> {
    options: &'o Options,
    lines: Vec<String>,
    bytes: usize,
    files: usize,
    matched_lines: u64,
    binary: usize,
    unreadable: Vec<String>,
    stopped: Option<Stop>,
}

impl<'o> Report<'o> {
    fn new(options: &'o Options) -> Report<'o> {
        Report {
            options,
            lines: Vec::new(),
            bytes: 0,
            files: 0,
            matched_lines: 0,
            binary: 0,
            unreadable: Vec::new(),
            stopped: None,
        }
    }

    fn note_unreadable(&mut self, error: String) {
        self.unreadable.push(error);
    }

    /// Searches one file and adds what it found.
    fn search(
        &mut self,
        searcher: &mut Searcher,
        matcher: &RegexMatcher,
        path: &Path,
        prefix: Option<String>,
    ) {
        let limit = self.options.head_limit.unwrap_or(usize::MAX);
        let mut sink = FileSink {
            mode: self.options.mode,
            prefix: prefix.as_deref(),
            lines: Vec::new(),
            bytes: 0,
            max_lines: limit.saturating_sub(self.lines.len()),
            max_bytes: OUTPUT_CAP.saturating_sub(self.bytes),
            matched_lines: 0,
            binary: false,
            full: None,
        };
        if let Err(e) = searcher.search_path(matcher, path, &mut sink) {
            self.unreadable.push(format!("{}: {e}", path.display()));
            return;
        }
        if sink.binary {
            self.binary += 1;
            return;
        }
        if sink.matched_lines == 0 {
            return;
        }
        self.files += 1;
        self.matched_lines += sink.matched_lines;
        let (count, full) = (sink.matched_lines, sink.full);
        let mut add = match self.options.mode {
            Mode::Content => sink.lines,
            Mode::Files => prefix.into_iter().collect(),
            Mode::Count => vec![match prefix {
                Some(p) => format!("{p}:{count}"),
                None => count.to_string(),
            }],
        };
        if self.options.mode == Mode::Content && self.options.context() && !self.lines.is_empty() {
            add.insert(0, "--".into());
        }
        for line in add {
            if self.lines.len() >= limit {
                self.stopped = Some(Stop::HeadLimit);
                return;
            }
            if self.bytes + line.len() + 1 > OUTPUT_CAP {
                self.stopped = Some(Stop::Cap);
                return;
            }
            self.bytes += line.len() + 1;
            self.lines.push(line);
        }
        if full.is_some() {
            self.stopped = full;
        }
    }

    fn finish(self, pattern: &str, root: &str) -> ToolOutput {
        let mut text = if self.lines.is_empty() {
            format!("No matches for `{pattern}` in `{root}`.")
        } else {
            self.lines.join("\n")
        };
        let mut notes = Vec::new();
        if self.options.mode == Mode::Count && self.files > 1 && self.stopped.is_none() {
            notes.push(format!(
                "{} matching lines in {} files.",
                self.matched_lines, self.files
            ));
        }
        match self.stopped {
            Some(Stop::HeadLimit) => notes.push(format!(
                "Stopped at head_limit {}; there is more. Raise head_limit or narrow the \
                 search to see the rest.",
                self.options.head_limit.unwrap_or(0)
            )),
            Some(Stop::Cap) => notes.push(
                "Output cut at 64 KiB; there is more. Narrow the search with `path`, `glob`, \
                 `type` or `head_limit`, or use output_mode files_with_matches."
                    .into(),
            ),
            None => {}
        }
        // Said only when nothing matched: then it may be why.
        if self.binary > 0 && self.lines.is_empty() {
            notes.push(match self.binary {
                1 => "1 binary file was skipped.".to_string(),
                n => format!("{n} binary files were skipped."),
            });
        }
        if let Some(first) = self.unreadable.first() {
            notes.push(match self.unreadable.len() {
                1 => format!("1 path could not be read: {first}."),
                n => format!("{n} paths could not be read (first: {first})."),
            });
        }
        if !notes.is_empty() {
            text.push_str("\n\n");
            text.push_str(
                &notes
                    .iter()
                    .map(|n| format!("({n})"))
                    .collect::<Vec<_>>()
                    .join("\n"),
            );
        }
        ToolOutput::text(text)
    }
}

/// Collects one file's results; stops the search as soon as nothing more would be shown.
struct FileSink<'p> {
    mode: Mode,
    /// The file's path as shown, when lines carry it.
    prefix: Option<&'p str>,
    lines: Vec<String>,
    bytes: usize,
    max_lines: usize,
    max_bytes: usize,
    matched_lines: u64,
    binary: bool,
    /// Why the file's search stopped before its end, if it did.
    full: Option<Stop>,
}

impl FileSink<'_> {
    /// Adds one output line; `false` (and why) when it does not fit the file's share of the
    /// answer, so a stop always means something was left out.
    fn push(&mut self, number: Option<u64>, separator: char, bytes: &[u8]) -> bool {
        let text = String::from_utf8_lossy(bytes);
        let text = cut_line(text.trim_end_matches(['\n', '\r']), false);
        let line = format_line(self.prefix, number, separator, &text);
        if self.lines.len() >= self.max_lines {
            self.full = Some(Stop::HeadLimit);
        } else if self.bytes + line.len() + 1 > self.max_bytes {
            self.full = Some(Stop::Cap);
        } else {
            self.bytes += line.len() + 1;
            self.lines.push(line);
        }
        self.full.is_none()
    }
}

impl Sink for FileSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        match self.mode {
            Mode::Files => {
                self.matched_lines += 1;
                Ok(false)
            }
            Mode::Count => {
                self.matched_lines += mat.lines().count() as u64;
                Ok(true)
            }
            Mode::Content => {
                let first = mat.line_number();
                for (i, line) in mat.lines().enumerate() {
                    self.matched_lines += 1;
                    let number = first.map(|n| n + i as u64);
                    if !self.push(number, ':', line) {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
        }
    }

    fn context(&mut self, _: &Searcher, context: &SinkContext<'_>) -> Result<bool, std::io::Error> {
        if self.mode != Mode::Content || matches!(context.kind(), SinkContextKind::Other) {
            return Ok(true);
        }
        Ok(self.push(context.line_number(), '-', context.bytes()))
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, std::io::Error> {
        if self.mode == Mode::Content {
            self.lines.push("--".into());
            self.bytes += 3;
        }
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _offset: u64) -> Result<bool, std::io::Error> {
        self.binary = true;
        Ok(false)
    }
}

/// One output line as ripgrep prints it: `path:12:text` for a match, `path-13-text` for
/// context; without the path for a single file, without the number when `-n` is off.
fn format_line(prefix: Option<&str>, number: Option<u64>, separator: char, text: &str) -> String {
    let mut line = String::with_capacity(text.len().min(MAX_LINE_CHARS) + 16);
    if let Some(p) = prefix {
        line.push_str(p);
        line.push(separator);
    }
    if let Some(n) = number {
        line.push_str(&n.to_string());
        line.push(separator);
    }
    line.push_str(text);
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(args: Value) -> Options {
        Options::from_args(&args)
    }

    /// Searches `text` as one file with `args` and returns the lines found.
    fn search(text: &str, pattern: &str, args: Value) -> Result<FileSink<'static>, String> {
        let options = options(args);
        let matcher = build_matcher(pattern, &options)?;
        let mut searcher = searcher(&options);
        let mut sink = FileSink {
            mode: options.mode,
            prefix: None,
            lines: Vec::new(),
            bytes: 0,
            max_lines: usize::MAX,
            max_bytes: OUTPUT_CAP,
            matched_lines: 0,
            binary: false,
            full: None,
        };
        searcher
            .search_slice(&matcher, text.as_bytes(), &mut sink)
            .map_err(|e| e.to_string())?;
        Ok(sink)
    }

    fn lines(text: &str, pattern: &str, args: Value) -> Vec<String> {
        search(text, pattern, args).unwrap().lines
    }

    #[test]
    fn reads_options_with_their_defaults() {
        let o = options(json!({}));
        assert_eq!(o.mode, Mode::Files);
        assert!(o.line_numbers && !o.ignore_case && !o.multiline);
        assert_eq!((o.before, o.after, o.head_limit), (0, 0, None));
        let o = options(json!({"output_mode": "content", "-C": 2, "-A": 5}));
        assert_eq!((o.before, o.after), (2, 5));
        let o = options(json!({"output_mode": "files", "-C": 2}));
        assert_eq!((o.mode, o.before, o.after), (Mode::Files, 0, 0));
        let o = options(json!({"output_mode": "count", "-i": true, "head_limit": 3}));
        assert_eq!(
            (o.mode, o.ignore_case, o.head_limit),
            (Mode::Count, true, Some(3))
        );
    }

    #[test]
    fn formats_lines_like_ripgrep() {
        let cases = [
            (Some("src/a.rs"), Some(12), ':', "src/a.rs:12:text"),
            (Some("src/a.rs"), Some(13), '-', "src/a.rs-13-text"),
            (Some("src/a.rs"), None, ':', "src/a.rs:text"),
            (None, Some(4), ':', "4:text"),
            (None, None, '-', "text"),
        ];
        for (prefix, number, sep, want) in cases {
            assert_eq!(format_line(prefix, number, sep, "text"), want);
        }
    }

    #[test]
    fn finds_lines_with_context_and_breaks() {
        let text = "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\n";
        let content = json!({"output_mode": "content"});
        assert_eq!(lines(text, "beta|theta", content), ["2:beta", "8:theta"]);
        let before = json!({"output_mode": "content", "-B": 1});
        assert_eq!(
            lines(text, "beta|theta", before),
            ["1-alpha", "2:beta", "--", "7-eta", "8:theta"]
        );
        let around = json!({"output_mode": "content", "-C": 1, "-n": false});
        assert_eq!(lines(text, "gamma", around), ["beta", "gamma", "delta"]);
    }

    #[test]
    fn ignores_case_and_matches_across_lines_when_asked() {
        let text = "fn Main() {\n    body\n}\n";
        assert!(lines(text, "main", json!({"output_mode": "content"})).is_empty());
        let nocase = json!({"output_mode": "content", "-i": true});
        assert_eq!(lines(text, "main", nocase), ["1:fn Main() {"]);
        let multi = json!({"output_mode": "content", "multiline": true});
        let sink = search(text, r"Main\(\) \{.*body", multi).unwrap();
        assert_eq!(sink.lines, ["1:fn Main() {", "2:    body"]);
        assert_eq!(sink.matched_lines, 2);
    }

    #[test]
    fn counts_matching_lines() {
        let sink = search("a\nb\na\na\n", "a", json!({"output_mode": "count"})).unwrap();
        assert!(sink.lines.is_empty());
        assert_eq!(sink.matched_lines, 3);
    }

    #[test]
    fn binary_data_ends_the_search() {
        let sink = search("x\nx\0x\n", "x", json!({"output_mode": "content"})).unwrap();
        assert!(sink.binary);
    }

    #[test]
    fn a_full_sink_says_why_it_stopped() {
        let text = "x\n".repeat(10);
        let mut sink = search(&text, "x", json!({"output_mode": "content"})).unwrap();
        assert_eq!((sink.lines.len(), sink.full), (10, None));
        sink.max_lines = 1;
        sink.full = None;
        assert!(!sink.push(Some(1), ':', b"x\n"));
        assert_eq!(sink.full, Some(Stop::HeadLimit));
        sink.max_lines = usize::MAX;
        sink.max_bytes = 0;
        sink.full = None;
        assert!(!sink.push(Some(1), ':', b"x\n"));
        assert_eq!(sink.full, Some(Stop::Cap));
    }

    #[test]
    fn rejects_bad_patterns_with_a_hint() {
        let err = search("x", "(unclosed", json!({})).err().unwrap();
        assert!(
            err.starts_with("Invalid regular expression `(unclosed`"),
            "{err}"
        );
        assert!(err.contains("escape literal"), "{err}");
        let err = search("x", r"a\nb", json!({})).err().unwrap();
        assert!(err.contains("set `multiline` to true"), "{err}");
        assert!(search("a\nb\n", r"a\nb", json!({"multiline": true})).is_ok());
    }

    #[test]
    fn cuts_long_matching_lines() {
        let text = format!("{}needle\n", "x".repeat(MAX_LINE_CHARS * 2));
        let found = lines(&text, "needle", json!({"output_mode": "content"}));
        assert!(found[0].ends_with("… [line cut at 2000 characters]"));
    }
}
