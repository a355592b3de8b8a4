//! `finch test`'s reports as text: the expected/actual diff of a failed expectation (the
//! `similar` crate, line by line), TAP version 13, JUnit XML (what CI systems read), and the
//! `--json` document. Pure functions of the results; the command prints them.

use std::path::Path;

use serde_json::{Value, json};
use similar::{ChangeTag, TextDiff};

use super::runner::CaseResult;
use super::testfile::Mismatch;

/// A failed expectation as lines: a header, then `-` expected and `+` actual lines (a
/// `contains` or `matches` shows what was looked for and the whole actual text).
pub fn mismatch_lines(m: &Mismatch) -> Vec<String> {
    match m.check {
        "contains" | "matches" => {
            let mut lines = vec![format!(
                "{}: {:?} not found in the answer:",
                m.check, m.expected
            )];
            lines.extend(m.actual.lines().map(|l| format!("  {l}")));
            lines
        }
        "isError" | "permission" => vec![format!(
            "{}: expected {}, got {}",
            m.check, m.expected, m.actual
        )],
        _ => {
            let mut lines = vec![format!("{}: - expected, + actual", m.check)];
            lines.extend(diff_lines(&m.expected, &m.actual));
            lines
        }
    }
}

/// A line diff: `-` lines only in `expected`, `+` lines only in `actual`, ` ` lines in both.
pub fn diff_lines(expected: &str, actual: &str) -> Vec<String> {
    let diff = TextDiff::from_lines(expected, actual);
    // Only worth saying when one side ends with a newline and the other does not.
    let mark = expected.ends_with('\n') != actual.ends_with('\n');
    let mut out = Vec::new();
    for change in diff.iter_all_changes() {
        let sign = match change.tag() {
            ChangeTag::Delete => '-',
            ChangeTag::Insert => '+',
            ChangeTag::Equal => ' ',
        };
        let text = change.value();
        let text = text.strip_suffix('\n').unwrap_or(text);
        out.push(format!("{sign} {text}"));
        if mark && change.missing_newline() {
            out.push("\\ no newline at the end".into());
        }
    }
    out
}

/// A case's name as reports show it: `file › name` when there are several files.
pub fn label(result: &CaseResult, base: &Path, several_files: bool) -> String {
    if several_files {
        format!("{} › {}", relative(&result.file, base), result.case.name)
    } else {
        result.case.name.clone()
    }
}

fn relative(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// TAP version 13: a plan, `ok`/`not ok` per case, and the failures as YAML blocks.
pub fn tap(results: &[CaseResult], base: &Path, several_files: bool) -> Vec<String> {
    let mut lines = vec![
        "TAP version 13".to_string(),
        format!("1..{}", results.len()),
    ];
    for (i, r) in results.iter().enumerate() {
        let name = label(r, base, several_files).replace('#', "\\#");
        if r.passed() {
            lines.push(format!("ok {} - {name}", i + 1));
            continue;
        }
        lines.push(format!("not ok {} - {name}", i + 1));
        lines.push("  ---".into());
        lines.push(format!("  file: {}", relative(&r.file, base)));
        lines.push("  failures: |".into());
        for m in &r.mismatches {
            lines.extend(mismatch_lines(m).iter().map(|l| format!("    {l}")));
        }
        lines.push("  ...".into());
    }
    lines
}

/// JUnit XML: one `testsuite` per test file, one `testcase` per case, a `failure` holding the
/// diff for each failed one.
pub fn junit(results: &[CaseResult], base: &Path, package: &str) -> String {
    let mut files: Vec<&Path> = Vec::new();
    for r in results {
        if !files.contains(&r.file.as_path()) {
            files.push(&r.file);
        }
    }
    let failures = results.iter().filter(|r| !r.passed()).count();
    let total: f64 = results.iter().map(|r| r.duration.as_secs_f64()).sum();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    xml.push_str(&format!(
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" time=\"{total:.3}\">\n",
        escape(package),
        results.len()
    ));
    for file in files {
        let cases: Vec<&CaseResult> = results.iter().filter(|r| r.file == file).collect();
        let failed = cases.iter().filter(|r| !r.passed()).count();
        let time: f64 = cases.iter().map(|r| r.duration.as_secs_f64()).sum();
        let suite = relative(file, base);
        xml.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failed}\" errors=\"0\" skipped=\"0\" time=\"{time:.3}\">\n",
            escape(&suite),
            cases.len()
        ));
        for r in cases {
            xml.push_str(&format!(
                "    <testcase name=\"{}\" classname=\"{}\" time=\"{:.3}\"",
                escape(&r.case.name),
                escape(&format!("{package}.{}", r.case.tool)),
                r.duration.as_secs_f64()
            ));
            if r.passed() {
                xml.push_str("/>\n");
                continue;
            }
            let summary: Vec<&str> = r.mismatches.iter().map(|m| m.check).collect();
            let body: Vec<String> = r.mismatches.iter().flat_map(mismatch_lines).collect();
            xml.push_str(&format!(
                ">\n      <failure message=\"{}\" type=\"AssertionError\">{}</failure>\n    </testcase>\n",
                escape(&format!("failed: {}", summary.join(", "))),
                escape(&body.join("\n"))
            ));
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

/// Text for an XML attribute or element: the five special characters escaped, and the
/// characters XML 1.0 cannot hold at all (control characters but tab, newline and return)
/// replaced by U+FFFD.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// `finch test --json` (docs/json.md).
pub fn to_json(results: &[CaseResult], base: &Path) -> Value {
    let passed = results.iter().filter(|r| r.passed()).count();
    let cases: Vec<Value> = results
        .iter()
        .map(|r| {
            json!({
                "file": relative(&r.file, base),
                "name": r.case.name,
                "tool": r.case.tool,
                "passed": r.passed(),
                "failures": r.mismatches.iter().map(|m| json!({
                    "check": m.check,
                    "expected": m.expected,
                    "actual": m.actual,
                })).collect::<Vec<_>>(),
                "actual": r.actual.to_json(),
            })
        })
        .collect();
    json!({
        "passed": passed,
        "failed": results.len() - passed,
        "cases": cases,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffs_line_by_line() {
        assert_eq!(
            diff_lines("a\nb\nc", "a\nB\nc"),
            ["  a", "- b", "+ B", "  c"]
        );
    }

    #[test]
    fn escapes_what_xml_cannot_hold() {
        assert_eq!(
            escape("<a & \"b\">'\u{1}\n"),
            "&lt;a &amp; &quot;b&quot;&gt;&apos;\u{FFFD}\n"
        );
    }

    #[test]
    fn shows_each_kind_of_mismatch() {
        let m = |check, expected: &str, actual: &str| Mismatch {
            check,
            expected: expected.into(),
            actual: actual.into(),
        };
        assert_eq!(
            mismatch_lines(&m("contains", "Bye", "Hello\nthere")),
            [
                "contains: \"Bye\" not found in the answer:",
                "  Hello",
                "  there"
            ]
        );
        assert_eq!(
            mismatch_lines(&m("isError", "true", "false")),
            ["isError: expected true, got false"]
        );
        assert_eq!(
            mismatch_lines(&m("equals", "Hello, Bob!", "Hello, Ada!")),
            [
                "equals: - expected, + actual",
                "- Hello, Bob!",
                "+ Hello, Ada!"
            ]
        );
    }
}
