//! A unified diff of two texts for a person (`similar`'s line diff): hunks with three lines
//! of context, `-` removed, `+` added, `@@ -a,b +c,d @@` headers, coloured where the terminal
//! takes colour. Pure: the Edit card draws it (`ui::card`); anything else that shows a change
//! to a person can. Lines are returned whole; the caller fits and cuts them.

use owo_colors::OwoColorize;
use similar::{ChangeTag, TextDiff};

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// One line of a unified diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffLine {
    /// `@@ -1,4 +1,5 @@`
    Hunk(String),
    Context(String),
    Removed(String),
    Added(String),
}

impl DiffLine {
    /// The line as printed: its mark, then the text; red, green and cyan with `color`.
    pub fn render(&self, color: bool) -> String {
        let paint = |text: String, style: fn(&str) -> String| {
            if color { style(&text) } else { text }
        };
        match self {
            DiffLine::Hunk(h) => paint(h.clone(), |t| t.cyan().to_string()),
            DiffLine::Context(t) => format!(" {t}"),
            DiffLine::Removed(t) => paint(format!("-{t}"), |t| t.red().to_string()),
            DiffLine::Added(t) => paint(format!("+{t}"), |t| t.green().to_string()),
        }
    }
}

/// The unified diff that turns `before` into `after` (empty when they are equal).
pub fn unified(before: &str, after: &str) -> Vec<DiffLine> {
    let diff = TextDiff::from_lines(before, after);
    let mut out = Vec::new();
    for group in diff.grouped_ops(CONTEXT) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old = first.old_range().start..last.old_range().end;
        let new = first.new_range().start..last.new_range().end;
        out.push(DiffLine::Hunk(format!(
            "@@ -{} +{} @@",
            range(old.start, old.len()),
            range(new.start, new.len())
        )));
        for op in &group {
            for change in diff.iter_changes(op) {
                let text = change.value().trim_end_matches(['\n', '\r']).to_string();
                out.push(match change.tag() {
                    ChangeTag::Equal => DiffLine::Context(text),
                    ChangeTag::Delete => DiffLine::Removed(text),
                    ChangeTag::Insert => DiffLine::Added(text),
                });
            }
        }
    }
    out
}

/// `start,len` of a hunk header, 1-based (`0,0` for nothing before line 1).
fn range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{len}", start + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_shows_with_its_context_and_a_header() {
        let before = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let after = "a\nb\nc\nd\nE\nf\ng\nh\n";
        let lines: Vec<String> = unified(before, after)
            .iter()
            .map(|l| l.render(false))
            .collect();
        assert_eq!(
            lines,
            [
                "@@ -2,7 +2,7 @@",
                " b",
                " c",
                " d",
                "-e",
                "+E",
                " f",
                " g",
                " h"
            ]
        );
    }

    #[test]
    fn additions_removals_and_no_change() {
        assert_eq!(
            unified("", "one\n"),
            [
                DiffLine::Hunk("@@ -0,0 +1 @@".into()),
                DiffLine::Added("one".into())
            ]
        );
        assert_eq!(
            unified("x\ny\n", "x\n"),
            [
                DiffLine::Hunk("@@ -1,2 +1 @@".into()),
                DiffLine::Context("x".into()),
                DiffLine::Removed("y".into())
            ]
        );
        assert!(unified("same\n", "same\n").is_empty());
    }

    #[test]
    fn colour_marks_removed_and_added_lines() {
        assert!(
            DiffLine::Removed("x".into())
                .render(true)
                .contains("\x1b[31m-x")
        );
        assert!(
            DiffLine::Added("x".into())
                .render(true)
                .contains("\x1b[32m+x")
        );
        assert_eq!(DiffLine::Context("x".into()).render(true), " x");
    }
}
