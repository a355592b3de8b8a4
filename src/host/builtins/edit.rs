//! `Edit` (SPEC §8.6): exact text replacement in an existing file. The old text must occur
//! exactly once unless every occurrence is to be replaced, so an edit never lands somewhere the
//! model did not mean; the file is rewritten atomically and keeps its permissions. The answer
//! shows the changed lines, numbered, so the model can check its work without a new Read.

use serde_json::{Value, json};

use super::super::catalog::ToolDef;
use super::super::output::{Content, ToolOutput};
use super::Cx;
use super::read::{cut_line, real_target};
use super::{resolve_path, str_arg};

/// Lines of the changed region shown in the answer, before and after the new text.
const SNIPPET_CONTEXT: usize = 3;
/// The most lines the answer shows of the changed region.
const SNIPPET_MAX_LINES: usize = 40;

/// What people type when they want this tool (ToolSearch ranks it beside the description).
pub const KEYWORDS: &str = "modify change update replace fix patch rewrite text code in a file rename a variable. 修改文件 编辑文件 替换文字 改代码 修复代码 更改内容 修改檔案 編輯檔案 替換文字 修改程式碼";

pub fn def() -> ToolDef {
    super::def(
        "Edit",
        "Edit a file",
        "Replace exact text in an existing file: `old_string` becomes `new_string`. `old_string` \
         must match the file exactly — whitespace and indentation included (copy it from Read's \
         output without the line-number prefix) — and must occur exactly once, so include enough \
         surrounding lines to make it unique. Set `replace_all` (also accepted as `replaceAll`) \
         to true to replace every occurrence instead, for example to rename a variable. In a \
         file with CRLF line endings, plain newlines in both strings stand for CRLF. To create a \
         file or replace all of it, use Write. The answer shows the changed lines, numbered.",
        json!({
            "type": "object",
            "properties": {
                "file_path": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The file to change: absolute, relative to the working directory, or starting with `~`"
                },
                "old_string": {
                    "type": "string",
                    "description": "The exact text to replace"
                },
                "new_string": {
                    "type": "string",
                    "description": "The text to put in its place (must differ from old_string)"
                },
                "replace_all": {
                    "type": "boolean",
                    "description": "Replace every occurrence of old_string (default false: it must occur exactly once)"
                },
                "replaceAll": {
                    "type": "boolean",
                    "description": "Same as replace_all"
                }
            },
            "required": ["file_path", "old_string", "new_string"],
            "additionalProperties": false
        }),
    )
}

pub fn call(args: &Value, cx: &Cx) -> ToolOutput {
    let (Some(raw), Some(old), Some(new)) = (
        str_arg(args, "file_path"),
        str_arg(args, "old_string"),
        str_arg(args, "new_string"),
    ) else {
        return ToolOutput::error("Edit needs `file_path`, `old_string` and `new_string`.");
    };
    let flag = |key: &str| args.get(key).and_then(Value::as_bool);
    let replace_all = match (flag("replace_all"), flag("replaceAll")) {
        (Some(a), Some(b)) if a != b => {
            return ToolOutput::error(
                "`replace_all` and `replaceAll` disagree; they are the same option. Give only one.",
            );
        }
        (a, b) => a.or(b).unwrap_or(false),
    };
    if old.is_empty() {
        return ToolOutput::error(
            "`old_string` is empty: Edit replaces text that is already in the file. Use Write to \
             create a file or to replace all of it.",
        );
    }
    if old == new {
        return ToolOutput::error(
            "`old_string` and `new_string` are the same, so nothing would change. Give the new \
             text in `new_string`.",
        );
    }
    let path = resolve_path(cx, raw);
    let real = match real_target(cx, "Edit", "file_path", &path) {
        Ok(real) => real,
        Err(message) => return ToolOutput::error(message),
    };
    let shown = path.display();
    let bytes = match std::fs::read(&real) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return ToolOutput::error(format!(
                "`{shown}` does not exist. Edit changes existing files: use Write to create it, \
                 or Glob to find the file you meant."
            ));
        }
        Err(_) if real.is_dir() => {
            return ToolOutput::error(format!(
                "`{shown}` is a directory; Edit changes files. Use Glob to find the file inside it."
            ));
        }
        Err(e) => return ToolOutput::error(format!("Cannot read `{shown}`: {e}.")),
    };
    let Ok(content) = String::from_utf8(bytes) else {
        return ToolOutput::error(format!(
            "`{shown}` is not UTF-8 text, so Edit cannot change it safely. Use Write to replace \
             it whole, or Bash with a tool made for its format."
        ));
    };
    let replaced = match replace(&content, old, new, replace_all) {
        Ok(replaced) => replaced,
        Err(Miss::NotFound) => {
            return ToolOutput::error(format!(
                "`old_string` was not found in `{shown}`. It must match the file exactly, \
                 whitespace and indentation included: Read the file and copy the text (without \
                 the line-number prefix)."
            ));
        }
        Err(Miss::Ambiguous(count)) => {
            return ToolOutput::error(format!(
                "`old_string` occurs {count} times in `{shown}`. Include more surrounding lines \
                 so it matches exactly one place, or set replace_all to true to replace all \
                 {count}."
            ));
        }
    };
    if let Err(e) = crate::store::write_atomic(&real, replaced.content.as_bytes()) {
        return ToolOutput::error(format!("Cannot write `{shown}`: {e}."));
    }
    let what = match replaced.count {
        1 => "1 occurrence".to_string(),
        n => format!("{n} occurrences (the first is shown)"),
    };
    let text = format!(
        "Edited `{shown}`: replaced {what}.\n\n{}",
        snippet(&replaced.content, replaced.first, &replaced.new)
    );
    ToolOutput {
        content: vec![Content::Text(text)],
        structured: Some(json!({"path": path, "replacements": replaced.count})),
        is_error: false,
    }
}

/// A successful replacement.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Replaced {
    pub(super) content: String,
    count: usize,
    /// Byte offset of the first replacement in `content`.
    first: usize,
    /// The replacement text as written (CRLF when the file's line endings asked for it).
    new: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Miss {
    NotFound,
    /// Occurs this many times and `replace_all` was not set.
    Ambiguous(usize),
}

/// Replaces `old` with `new` in `content`. When `old` is not found as given but the file uses
/// CRLF line endings, `old` and `new` are tried again with CRLF: models write `\n`.
pub(super) fn replace(content: &str, old: &str, new: &str, all: bool) -> Result<Replaced, Miss> {
    let crlf = |s: &str| s.replace("\r\n", "\n").replace('\n', "\r\n");
    let (old, new) = if !content.contains(old) && old.contains('\n') && content.contains("\r\n") {
        (crlf(old), crlf(new))
    } else {
        (old.to_string(), new.to_string())
    };
    let count = content.matches(old.as_str()).count();
    let first = content.find(old.as_str()).ok_or(Miss::NotFound)?;
    if count > 1 && !all {
        return Err(Miss::Ambiguous(count));
    }
    Ok(Replaced {
        content: content.replace(old.as_str(), &new),
        count,
        first,
        new,
    })
}

/// The lines around the first replacement, numbered like Read's output.
fn snippet(content: &str, first: usize, new: &str) -> String {
    let start_line = content[..first].matches('\n').count();
    let new_lines = new.matches('\n').count() + 1;
    let from = start_line.saturating_sub(SNIPPET_CONTEXT);
    let to = start_line + new_lines + SNIPPET_CONTEXT;
    let mut out = String::new();
    for (i, line) in content
        .lines()
        .enumerate()
        .skip(from)
        .take((to - from).min(SNIPPET_MAX_LINES))
    {
        out.push_str(&format!("{:>6}\t{}\n", i + 1, cut_line(line, false)));
    }
    if to - from > SNIPPET_MAX_LINES {
        out.push_str("   …\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Content, old, new, replace all → the new content and the count, or the miss.
    type Case = (
        &'static str,
        &'static str,
        &'static str,
        bool,
        Result<(&'static str, usize), Miss>,
    );

    #[test]
    fn replaces_exact_text() {
        let cases: &[Case] = &[
            ("a b c", "b", "B", false, Ok(("a B c", 1))),
            ("a b b", "b", "B", false, Err(Miss::Ambiguous(2))),
            ("a b b", "b", "B", true, Ok(("a B B", 2))),
            ("a b c", "x", "X", false, Err(Miss::NotFound)),
            ("a b c", "x", "X", true, Err(Miss::NotFound)),
            ("aaa", "aa", "b", false, Ok(("ba", 1))),
            ("  x\n", " x", "y", false, Ok((" y\n", 1))),
            (
                "x\r\ny\r\nz\r\n",
                "x\ny",
                "1\n2",
                false,
                Ok(("1\r\n2\r\nz\r\n", 1)),
            ),
            ("x\r\ny\r\n", "x\r\ny", "q", false, Ok(("q\r\n", 1))),
            ("x\ny\n", "x\r\ny", "q", false, Err(Miss::NotFound)),
        ];
        for (content, old, new, all, want) in cases {
            let got = replace(content, old, new, *all).map(|r| (r.content, r.count));
            let want = want.map(|(c, n)| (c.to_string(), n));
            assert_eq!(got, want, "{content:?} {old:?}");
        }
    }

    #[test]
    fn shows_the_changed_lines_numbered() {
        let content = "1\n2\n3\n4\nNEW\nLINES\n7\n8\n9\n10\n11\n";
        let first = content.find("NEW").unwrap();
        assert_eq!(
            snippet(content, first, "NEW\nLINES"),
            "     2\t2\n     3\t3\n     4\t4\n     5\tNEW\n     6\tLINES\n     7\t7\n     8\t8\n     9\t9\n"
        );
        assert_eq!(snippet("x\n", 0, "x"), "     1\tx\n");
        let long: String = (1..=100).map(|i| format!("{i}\n")).collect();
        let shown = snippet(&long, 0, &long);
        assert_eq!(shown.lines().count(), SNIPPET_MAX_LINES + 1);
        assert!(shown.ends_with("   …\n"));
    }
}
