//! All terminal output goes through `Ui`: data on stdout (text or one JSON document), status,
//! warnings and errors on stderr, colour only where the stream is a terminal and the user has
//! not asked for none, progress bars only on a terminal. Questions are never asked without a
//! terminal: they are answered by `--yes` or fail with exit code 4.

pub mod activity;
pub mod card;
pub mod diff;
pub mod fields;
mod hidden;
pub mod jq;
pub mod params;
mod table;

/// `eprintln!` that cannot panic: on a closed or full stderr (`2>&-`, `2>/dev/full`) the line
/// is lost and the command goes on to its own exit code.
#[macro_export]
macro_rules! eline {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = ::std::writeln!(::std::io::stderr().lock(), $($arg)*);
    }};
}

/// `eprint!` that cannot panic, flushed (a prompt that waits for input on the same line).
#[macro_export]
macro_rules! epart {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let mut err = ::std::io::stderr().lock();
        let _ = ::std::write!(err, $($arg)*);
        let _ = err.flush();
    }};
}

use std::io::{IsTerminal, Write};
use std::sync::Mutex;

use owo_colors::OwoColorize;

use crate::env::Env;
use crate::error::{CommandError, Result};

pub use hidden::read_hidden;
pub use table::{Table, TableArgs};

/// Prints text above a line editor's prompt and draws the prompt again (rustyline's external
/// printer); `false` when it could not.
type NoticeFn = Box<dyn FnMut(&str) -> bool + Send>;

/// Where `notice` goes while a line editor reads the terminal.
static NOTICE_SINK: Mutex<Option<NoticeFn>> = Mutex::new(None);

/// A line editor's printer, installed for `notice` until this is dropped.
pub struct NoticeSink(());

impl NoticeSink {
    pub fn install(print: NoticeFn) -> NoticeSink {
        *NOTICE_SINK
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(print);
        NoticeSink(())
    }
}

impl Drop for NoticeSink {
    fn drop(&mut self) {
        *NOTICE_SINK
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
    }
}

/// Lines another thread prints while the console may be reading a line (`finch dev`'s
/// rebuilds): above the prompt, which is drawn again with what was typed, while a line editor
/// reads; else on stderr.
pub fn notice(text: &str) {
    let mut sink = NOTICE_SINK
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(print) = sink.as_mut()
        && print(text)
    {
        return;
    }
    drop(sink);
    crate::eline!("{text}");
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

#[derive(Debug, Clone)]
pub struct Ui {
    pub json: bool,
    pub quiet: bool,
    pub verbose: bool,
    pub assume_yes: bool,
    pub stdout_tty: bool,
    pub stderr_tty: bool,
    pub stdin_tty: bool,
    color_out: bool,
    color_err: bool,
    width: usize,
    /// `--jq`: what every JSON document and JSON line goes through on its way to stdout.
    jq: Option<std::sync::Arc<jq::JqFilter>>,
    /// `--json FIELDS`: the fields kept of every JSON document and line, before `--jq`.
    fields: Option<fields::JsonFields>,
}

impl Ui {
    pub fn new(
        json: bool,
        quiet: bool,
        verbose: bool,
        yes: bool,
        color: ColorChoice,
        env: &Env,
    ) -> Ui {
        let stdout_tty = std::io::stdout().is_terminal();
        let stderr_tty = std::io::stderr().is_terminal();
        let stdin_tty = std::io::stdin().is_terminal();
        let no_color = env.get("NO_COLOR").is_some() || env.get("TERM").as_deref() == Some("dumb");
        let colored = |tty: bool| match color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => tty && !no_color,
        };
        let width = env
            .get("COLUMNS")
            .and_then(|c| c.parse().ok())
            .or_else(terminal_width)
            .unwrap_or(100);
        Ui {
            json,
            quiet,
            verbose,
            assume_yes: yes,
            stdout_tty,
            stderr_tty,
            stdin_tty,
            color_out: colored(stdout_tty),
            color_err: colored(stderr_tty),
            width,
            jq: None,
            fields: None,
        }
    }

    /// Filters every JSON document and line through `jq` (`--jq`).
    pub fn with_jq(mut self, jq: Option<jq::JqFilter>) -> Ui {
        self.jq = jq.map(std::sync::Arc::new);
        self
    }

    /// Keeps only `fields` of every JSON document and line (`--json FIELDS`).
    pub fn with_fields(mut self, fields: Option<fields::JsonFields>) -> Ui {
        self.fields = fields;
        self
    }

    /// `value` with only the `--json FIELDS` kept (all of it without them).
    fn selected<'v>(
        &self,
        value: &'v serde_json::Value,
    ) -> Result<std::borrow::Cow<'v, serde_json::Value>> {
        match &self.fields {
            Some(fields) => fields.select(value).map(std::borrow::Cow::Owned),
            None => Ok(std::borrow::Cow::Borrowed(value)),
        }
    }

    /// `value` through the `--jq` filter: its outputs, one a line.
    fn filtered(&self, filter: &jq::JqFilter, value: &serde_json::Value) -> Result<()> {
        let lines = filter
            .run(value)
            .map_err(|why| CommandError::failed(format!("--jq: {why}")))?;
        self.lines(lines)
    }

    pub fn width(&self) -> usize {
        self.width
    }

    /// One line of data on stdout.
    pub fn line(&self, text: impl AsRef<str>) -> Result<()> {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{}", text.as_ref()).map_err(stdout_error)
    }

    /// The report of a change done (`✓ Enabled x`, `✓ Remembered in …`) on stdout: the lines
    /// scripts and the app read, which `-q` silences (issue 31: `-q` leaves only errors and
    /// warnings). Data a command was asked for (a listing) goes through `line`/`lines`.
    pub fn done<I, S>(&self, lines: I) -> Result<()>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        if self.quiet {
            return Ok(());
        }
        self.lines(lines)
    }

    /// One line of `done`.
    pub fn done_line(&self, text: impl AsRef<str>) -> Result<()> {
        self.done([text])
    }

    /// Many lines of data on stdout in one write (a listing is one syscall, not one per line).
    pub fn lines<I, S>(&self, lines: I) -> Result<()>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut text = String::new();
        for line in lines {
            text.push_str(line.as_ref());
            text.push('\n');
        }
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())
            .and_then(|_| out.flush())
            .map_err(stdout_error)
    }

    /// A listing: an aligned table fitted to the width on a terminal, whole tab-separated values
    /// on a pipe, with the column names first only when `--header` asks (`table`'s module docs).
    /// Every list of the CLI prints here.
    pub fn table(&self, table: &Table, args: TableArgs) -> Result<()> {
        if self.stdout_tty {
            self.lines(table.render(self.width))
        } else {
            self.lines(table.tsv(args.header))
        }
    }

    /// Prose for stdout (a description, a summary line): wrapped at spaces to the terminal's
    /// width on a terminal, as it is on a pipe.
    pub fn prose(&self, text: &str) -> Vec<String> {
        if self.stdout_tty {
            wrap(text, self.width)
        } else {
            text.split('\n').map(str::to_string).collect()
        }
    }

    /// `prose` for stderr (the console's banner, errors): wrapped where stderr is a terminal.
    pub fn prose_err(&self, text: &str) -> Vec<String> {
        if self.stderr_tty {
            wrap(text, self.width)
        } else {
            text.split('\n').map(str::to_string).collect()
        }
    }

    /// The one JSON document of a `--json` command.
    pub fn json(&self, value: &serde_json::Value) -> Result<()> {
        let value = self.selected(value)?;
        if let Some(filter) = &self.jq {
            return self.filtered(filter, &value);
        }
        self.line(crate::store::to_pretty_json(&value).trim_end())
    }

    /// One compact JSON document on one line (JSON Lines output of `run` and the daemon).
    pub fn json_line(&self, value: &serde_json::Value) -> Result<()> {
        let value = self.selected(value)?;
        if let Some(filter) = &self.jq {
            return self.filtered(filter, &value);
        }
        self.line(value.to_string())
    }

    /// Status on stderr; silenced by `--quiet` and `--json`. Every stderr line here has the
    /// user info of its URLs redacted (`crate::redact`).
    pub fn status(&self, text: impl AsRef<str>) {
        if !self.quiet && !self.json {
            // Wrapped at spaces where stderr is a terminal.
            for line in self.prose_err(&crate::redact::userinfo(text.as_ref())) {
                crate::eline!("{line}");
            }
        }
    }

    /// Detail shown only with `--verbose`.
    pub fn detail(&self, text: impl AsRef<str>) {
        if self.verbose {
            crate::eline!("{}", crate::redact::userinfo(text.as_ref()));
        }
    }

    /// A warning on stderr; shown even with `--json` (stdout stays one document) and with
    /// `-q`, which leaves errors and warnings.
    pub fn warn(&self, text: impl AsRef<str>) {
        crate::eline!("{}", self.warning(text));
    }

    /// What `warn` prints, for output gathered before it is printed (`notice`): on a terminal
    /// wrapped at spaces, the lines after the first under the text, not under the label.
    pub fn warning(&self, text: impl AsRef<str>) -> String {
        let label = if self.color_err {
            "warning:".yellow().bold().to_string()
        } else {
            "warning:".to_string()
        };
        let text = crate::redact::userinfo(text.as_ref());
        if !self.stderr_tty {
            return format!("{label} {text}");
        }
        let pad = display_width("warning: ");
        let lines = wrap(&text, self.width.saturating_sub(pad));
        let mut out = format!("{label} {}", lines[0]);
        for line in &lines[1..] {
            out.push('\n');
            if !line.is_empty() {
                out.push_str(&" ".repeat(pad));
                out.push_str(line);
            }
        }
        out
    }

    /// Reports a failed command: JSON on stdout with `--json`, `Error:`/`hint:` on stderr always.
    pub fn error(&self, err: &CommandError) {
        // With `--jq` stdout carries only what the filter printed: the error is on stderr.
        if self.json && !err.json_reported && self.jq.is_none() {
            // Whole, whatever `--json FIELDS` selects. A closed stdout leaves stderr as the
            // only channel, which follows anyway.
            let _ = self.line(crate::store::to_pretty_json(&err.to_json()).trim_end());
        }
        let label = if self.color_err {
            "Error:".red().bold().to_string()
        } else {
            "Error:".to_string()
        };
        // Wrapped at spaces on a terminal (a refusal runs to 300 characters), the lines after
        // the first under the text, not under the label.
        let say = |label: &str, painted: String, text: &str| {
            let text = crate::redact::userinfo(text);
            let pad = display_width(label) + 1;
            let lines = if self.stderr_tty {
                wrap(&text, self.width.saturating_sub(pad))
            } else {
                vec![text.to_string()]
            };
            for (i, line) in lines.iter().enumerate() {
                if i == 0 {
                    crate::eline!("{painted} {line}");
                } else if line.is_empty() {
                    crate::eline!();
                } else {
                    crate::eline!("{:pad$}{line}", "");
                }
            }
        };
        say("Error:", label, &err.message);
        for hint in &err.hints {
            let label = if self.color_err {
                "hint:".cyan().to_string()
            } else {
                "hint:".to_string()
            };
            say("hint:", label, hint);
        }
    }

    pub fn green(&self, text: &str) -> String {
        paint(self.color_out, text, |t| t.green().to_string())
    }

    pub fn yellow(&self, text: &str) -> String {
        paint(self.color_out, text, |t| t.yellow().to_string())
    }

    pub fn red(&self, text: &str) -> String {
        paint(self.color_out, text, |t| t.red().to_string())
    }

    pub fn dim(&self, text: &str) -> String {
        paint(self.color_out, text, |t| t.dimmed().to_string())
    }

    pub fn bold(&self, text: &str) -> String {
        paint(self.color_out, text, |t| t.bold().to_string())
    }

    /// A byte-count progress bar on stderr, hidden unless stderr is a terminal.
    /// Whether messages on stderr (and the terminal cards beside them) use colour.
    pub fn color_stderr(&self) -> bool {
        self.color_err
    }

    pub fn progress_enabled(&self) -> bool {
        self.stderr_tty && !self.quiet && !self.json
    }

    /// Asks a yes/no question on the terminal. `--yes` answers yes; without a terminal the
    /// command fails with exit code 4 and names the flag.
    pub fn confirm(&self, question: &str) -> Result<bool> {
        if self.assume_yes {
            return Ok(true);
        }
        if !(self.stdin_tty && self.stderr_tty) {
            return Err(CommandError::needs_person(format!(
                "{question} needs an answer, and there is no terminal to ask on"
            ))
            .with_hint("pass --yes to answer yes"));
        }
        crate::epart!("{question} [y/N] ");
        let mut answer = String::new();
        std::io::stdin()
            .read_line(&mut answer)
            .map_err(|e| CommandError::failed(format!("cannot read the answer: {e}")))?;
        Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes" | "YES"))
    }
}

fn paint(enabled: bool, text: &str, f: impl Fn(&str) -> String) -> String {
    if enabled { f(text) } else { text.to_string() }
}

fn stdout_error(err: std::io::Error) -> CommandError {
    if err.kind() == std::io::ErrorKind::BrokenPipe {
        CommandError::broken_pipe()
    } else {
        CommandError::failed(format!("cannot write to stdout: {err}"))
    }
}

#[cfg(unix)]
fn terminal_width() -> Option<usize> {
    // SAFETY: TIOCGWINSZ fills a plain struct we own; a failing call leaves it zeroed.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    (ok && size.ws_col > 0).then_some(size.ws_col as usize)
}

#[cfg(not(unix))]
fn terminal_width() -> Option<usize> {
    None
}

/// The first line of a description, for tables.
pub fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_string()
}

/// The display width of `text` in terminal columns (CJK and emoji count two, combining marks
/// none).
pub fn display_width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// `text` wrapped to lines of at most `width` columns, broken at spaces only: a word wider
/// than the line (a path, a URL, an id) stays whole on a line of its own, so it can still be
/// copied. Each line's leading indentation is kept on the lines it wraps into; line breaks
/// in `text` are kept.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(10);
    let mut out = Vec::new();
    for line in text.split('\n') {
        let line = line.trim_end();
        if display_width(line) <= width {
            out.push(line.to_string());
            continue;
        }
        let body = line.trim_start();
        let indent = &line[..line.len() - body.len()];
        // An indentation that leaves no room for text is not repeated.
        let indent = if display_width(indent) * 2 > width {
            ""
        } else {
            indent
        };
        let mut current = String::from(&line[..line.len() - body.len()]);
        let mut current_width = display_width(&current);
        let mut has_word = false;
        for word in body.split(' ').filter(|w| !w.is_empty()) {
            let w = display_width(word);
            if has_word && current_width + 1 + w > width {
                out.push(std::mem::take(&mut current));
                current.push_str(indent);
                current_width = display_width(indent);
                has_word = false;
            }
            if has_word {
                current.push(' ');
                current_width += 1;
            }
            current.push_str(word);
            current_width += w;
            has_word = true;
        }
        out.push(current);
    }
    out
}

#[cfg(test)]
mod wrap_tests {
    use super::*;

    #[test]
    fn wraps_at_spaces_by_display_width() {
        assert_eq!(
            wrap("one two three four five six", 13),
            ["one two three", "four five six"]
        );
        // Five CJK characters are ten columns.
        assert_eq!(display_width("日本語です"), 10);
        assert_eq!(
            wrap("日本語です 日本語です", 12),
            ["日本語です", "日本語です"]
        );
        assert_eq!(
            wrap("  indented words that wrap here", 16),
            ["  indented words", "  that wrap here"]
        );
    }

    #[test]
    fn a_long_word_stays_whole_and_line_breaks_stay() {
        let path = "/a/very/long/path/that/cannot/be/broken.txt";
        assert_eq!(wrap(&format!("see {path} now"), 20), ["see", path, "now"]);
        assert_eq!(wrap("a\n\nb", 20), ["a", "", "b"]);
    }
}
