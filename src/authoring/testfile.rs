//! The test files of `finch test`: `finch.test.json` and `tests/*.finch.json` in a package,
//! each `{"cases": [...]}`. A case names a tool, its arguments, what the answer must hold
//! (`expect`), files to put in its scratch workspace (`setup`), how its permission card is
//! answered (`card`) and the answers to the dialogs it opens (`dialogs`). This module parses
//! them (every mistake named with its file and case), picks cases (`--filter`), checks an
//! answer against a case (`check`, pure), and rewrites expectations from actual answers
//! (`update`, snapshot style). It runs nothing.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use regex::Regex;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::AuthoringError;

/// The main test file of a package.
pub const TEST_FILE: &str = "finch.test.json";
/// More test files: `tests/<anything>.finch.json`.
const TESTS_DIR: &str = "tests";
const TESTS_SUFFIX: &str = ".finch.json";

/// One test file as read: its cases, and the document itself (kept for `update`, which
/// changes only the expectations and keeps every other key and its order).
#[derive(Debug, Clone)]
pub struct TestFile {
    pub path: PathBuf,
    pub document: Value,
    pub cases: Vec<Case>,
}

/// One case.
#[derive(Debug, Clone)]
pub struct Case {
    /// Its position in the file's `cases`.
    pub index: usize,
    pub name: String,
    pub tool: String,
    pub args: Value,
    pub expect: Expect,
    /// Files of the scratch workspace: relative path → contents.
    pub setup: BTreeMap<String, String>,
    pub card: CardScript,
    pub dialogs: Vec<DialogAnswer>,
}

/// What an answer must hold. Every given field must hold; none given holds for any answer.
#[derive(Debug, Clone, Default)]
pub struct Expect {
    /// Each of these is in the text.
    pub contains: Vec<String>,
    /// The whole text.
    pub equals: Option<String>,
    /// A regex the text matches (anywhere).
    pub matches: Option<Regex>,
    /// A JSON subset of `structuredContent`.
    pub structured: Option<Value>,
    pub is_error: Option<bool>,
    /// The gateway's verdict on the call.
    pub permission: Option<Verdict>,
}

/// The gateway's verdict on a call, as a case expects it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    /// Allowed without a card (a rule or the mode).
    Allow,
    /// A permission card was shown (and answered by the case's `card`).
    Ask,
    /// Denied without a card (a deny rule).
    Deny,
    /// The call never reached the gateway (unknown arguments, say).
    None,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Ask => "ask",
            Verdict::Deny => "deny",
            Verdict::None => "none",
        }
    }
}

/// How a case answers its permission card (mini tool tools always get one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CardScript {
    #[default]
    Allow,
    AllowForSession,
    Deny,
}

/// The scripted answer to one dialog (`ui.showConfirmDialog` and friends, which reach the
/// host as questions), in the order they open: a label, several labels, `{"other": text}`,
/// or `null` (dismissed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DialogAnswer {
    Choose(Vec<String>),
    Other(String),
    Dismiss,
}

/// What a call answered, as a case sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Actual {
    pub text: String,
    pub structured: Option<Value>,
    pub is_error: bool,
    pub permission: Verdict,
}

impl Actual {
    pub fn to_json(&self) -> Value {
        json!({
            "text": self.text,
            "structuredContent": self.structured,
            "isError": self.is_error,
            "permission": self.permission.as_str(),
        })
    }
}

/// One expectation that did not hold: what was expected, what came, both as text to diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// `equals`, `contains`, `matches`, `structuredContent`, `isError`, `permission`.
    pub check: &'static str,
    pub expected: String,
    pub actual: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawCase {
    name: Option<String>,
    /// Words for the reader of the file; finch ignores them.
    #[serde(default, rename = "description")]
    _description: Option<String>,
    tool: String,
    #[serde(default)]
    args: Option<Value>,
    #[serde(default)]
    expect: RawExpect,
    #[serde(default)]
    setup: BTreeMap<String, Value>,
    #[serde(default)]
    card: CardScript,
    #[serde(default)]
    dialogs: Vec<Value>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawExpect {
    contains: Option<OneOrMany>,
    equals: Option<String>,
    matches: Option<String>,
    structured_content: Option<Value>,
    is_error: Option<bool>,
    permission: Option<Verdict>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

/// The test files of the package at `dir`, in order: `finch.test.json`, then
/// `tests/*.finch.json` by name.
pub fn discover(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let main = dir.join(TEST_FILE);
    if main.is_file() {
        found.push(main);
    }
    if let Ok(entries) = std::fs::read_dir(dir.join(TESTS_DIR)) {
        let mut more: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| {
                p.is_file()
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.ends_with(TESTS_SUFFIX))
            })
            .collect();
        more.sort();
        found.extend(more);
    }
    found
}

/// Reads and checks one test file.
pub fn load(path: &Path) -> Result<TestFile, AuthoringError> {
    let malformed = |why: String| AuthoringError::MalformedTestFile {
        path: path.to_path_buf(),
        why,
    };
    let text = std::fs::read_to_string(path).map_err(|e| AuthoringError::Io {
        what: format!("read {}", path.display()),
        source: e,
    })?;
    let document: Value = serde_json::from_str(&text).map_err(|e| malformed(e.to_string()))?;
    let Some(list) = document.get("cases").and_then(Value::as_array) else {
        return Err(malformed(
            "it must be an object with a \"cases\" array".into(),
        ));
    };
    let mut cases = Vec::with_capacity(list.len());
    for (index, value) in list.iter().enumerate() {
        let label = match value.get("name").and_then(Value::as_str) {
            Some(name) => format!("case {} (\"{name}\")", index + 1),
            None => format!("case {}", index + 1),
        };
        let raw: RawCase = serde_json::from_value(value.clone())
            .map_err(|e| malformed(format!("{label}: {e}")))?;
        cases.push(case(index, raw).map_err(|why| malformed(format!("{label}: {why}")))?);
    }
    let mut seen = std::collections::HashSet::new();
    for c in &cases {
        if !seen.insert(c.name.as_str()) {
            return Err(malformed(format!(
                "two cases are named \"{}\"; give each its own name",
                c.name
            )));
        }
    }
    Ok(TestFile {
        path: path.to_path_buf(),
        document,
        cases,
    })
}

fn case(index: usize, raw: RawCase) -> Result<Case, String> {
    let args = match raw.args {
        None | Some(Value::Null) => json!({}),
        Some(v @ Value::Object(_)) => v,
        Some(other) => return Err(format!("\"args\" must be an object, not {other}")),
    };
    if raw.tool.trim().is_empty() {
        return Err("\"tool\" is empty".into());
    }
    let e = raw.expect;
    let matches = match e.matches {
        Some(pattern) => Some(
            Regex::new(&pattern)
                .map_err(|err| format!("\"matches\" is not a valid regex: {err}"))?,
        ),
        None => None,
    };
    let mut setup = BTreeMap::new();
    for (path, value) in raw.setup {
        if !is_relative_inside(&path) {
            return Err(format!(
                "setup file \"{path}\" must be a relative path inside the workspace"
            ));
        }
        let text = match value {
            Value::String(s) => s,
            other => crate::store::to_pretty_json(&other),
        };
        setup.insert(path, text);
    }
    let dialogs = raw
        .dialogs
        .into_iter()
        .map(dialog_answer)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Case {
        index,
        name: raw
            .name
            .unwrap_or_else(|| format!("{} #{}", raw.tool, index + 1)),
        tool: raw.tool,
        args,
        expect: Expect {
            contains: match e.contains {
                None => Vec::new(),
                Some(OneOrMany::One(s)) => vec![s],
                Some(OneOrMany::Many(v)) => v,
            },
            equals: e.equals,
            matches,
            structured: e.structured_content,
            is_error: e.is_error,
            permission: e.permission,
        },
        setup,
        card: raw.card,
        dialogs,
    })
}

fn dialog_answer(value: Value) -> Result<DialogAnswer, String> {
    match value {
        Value::Null => Ok(DialogAnswer::Dismiss),
        Value::String(label) => Ok(DialogAnswer::Choose(vec![label])),
        Value::Array(items) => items
            .into_iter()
            .map(|i| match i {
                Value::String(s) => Ok(s),
                other => Err(format!(
                    "a dialog answer's labels must be strings, not {other}"
                )),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(DialogAnswer::Choose),
        Value::Object(map) => match map.get("other").and_then(Value::as_str) {
            Some(text) if map.len() == 1 => Ok(DialogAnswer::Other(text.to_string())),
            _ => Err("a dialog answer object must be {\"other\": \"text\"}".into()),
        },
        other => Err(format!(
            "a dialog answer is a label, a list of labels, {{\"other\": text}} or null, not {other}"
        )),
    }
}

fn is_relative_inside(path: &str) -> bool {
    let p = Path::new(path);
    !path.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_)))
}

/// Whether a case runs under `--filter`: its name contains the pattern.
pub fn selected(case: &Case, filter: Option<&str>) -> bool {
    filter.is_none_or(|f| case.name.contains(f))
}

/// Every expectation of `expect` that `actual` does not hold.
pub fn check(expect: &Expect, actual: &Actual) -> Vec<Mismatch> {
    let mut out = Vec::new();
    if let Some(want) = expect.is_error
        && want != actual.is_error
    {
        out.push(Mismatch {
            check: "isError",
            expected: want.to_string(),
            actual: actual.is_error.to_string(),
        });
    }
    if let Some(want) = expect.permission
        && want != actual.permission
    {
        out.push(Mismatch {
            check: "permission",
            expected: want.as_str().into(),
            actual: actual.permission.as_str().into(),
        });
    }
    if let Some(want) = &expect.equals
        && want != &actual.text
    {
        out.push(Mismatch {
            check: "equals",
            expected: want.clone(),
            actual: actual.text.clone(),
        });
    }
    for part in &expect.contains {
        if !actual.text.contains(part.as_str()) {
            out.push(Mismatch {
                check: "contains",
                expected: part.clone(),
                actual: actual.text.clone(),
            });
        }
    }
    if let Some(re) = &expect.matches
        && !re.is_match(&actual.text)
    {
        out.push(Mismatch {
            check: "matches",
            expected: re.as_str().to_string(),
            actual: actual.text.clone(),
        });
    }
    if let Some(want) = &expect.structured {
        let got = actual.structured.clone().unwrap_or(Value::Null);
        if !is_subset(want, &got) {
            out.push(Mismatch {
                check: "structuredContent",
                expected: crate::store::to_pretty_json(want),
                actual: crate::store::to_pretty_json(&got),
            });
        }
    }
    out
}

/// Whether `want` is a subset of `got`: every key of an object is there with a subset of
/// its value; arrays have the same length and each item is a subset; anything else is equal.
pub fn is_subset(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w
            .iter()
            .all(|(k, v)| g.get(k).is_some_and(|gv| is_subset(v, gv))),
        (Value::Array(w), Value::Array(g)) => {
            w.len() == g.len() && w.iter().zip(g).all(|(a, b)| is_subset(a, b))
        }
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => want == got,
    }
}

/// Rewrites the expectations of one case in `document` from its actual answer (`--update`):
/// what held is kept; a failed `equals`, `contains` or `matches` becomes `equals` of the
/// actual text (the other two are removed); `structuredContent`, `isError` and `permission`
/// take the actual values. A case with no expectations at all gets `equals`, `isError` and
/// (when there is one) `structuredContent`. Whether anything changed.
pub fn update(document: &mut Value, case: &Case, actual: &Actual, failed: &[Mismatch]) -> bool {
    let Some(entry) = document
        .get_mut("cases")
        .and_then(Value::as_array_mut)
        .and_then(|cases| cases.get_mut(case.index))
        .and_then(Value::as_object_mut)
    else {
        return false;
    };
    let expect = entry
        .entry("expect")
        .or_insert_with(|| Value::Object(Map::new()));
    if !expect.is_object() {
        *expect = Value::Object(Map::new());
    }
    let Some(expect) = expect.as_object_mut() else {
        return false;
    };
    let before = expect.clone();
    if expect.is_empty() {
        expect.insert("equals".into(), actual.text.clone().into());
        expect.insert("isError".into(), actual.is_error.into());
        if let Some(s) = &actual.structured {
            expect.insert("structuredContent".into(), s.clone());
        }
        return true;
    }
    let failed_check = |name: &str| failed.iter().any(|m| m.check == name);
    if failed_check("equals") || failed_check("contains") || failed_check("matches") {
        expect.shift_remove("contains");
        expect.shift_remove("matches");
        expect.insert("equals".into(), actual.text.clone().into());
    }
    if failed_check("structuredContent") {
        expect.insert(
            "structuredContent".into(),
            actual.structured.clone().unwrap_or(Value::Null),
        );
    }
    if failed_check("isError") {
        expect.insert("isError".into(), actual.is_error.into());
    }
    if failed_check("permission") {
        expect.insert("permission".into(), actual.permission.as_str().into());
    }
    *expect != before
}

#[cfg(test)]
mod tests {
    use super::*;

    fn actual(text: &str) -> Actual {
        Actual {
            text: text.into(),
            structured: Some(json!({"greeting": text, "n": 3, "tags": ["a", {"k": 1, "x": 2}]})),
            is_error: false,
            permission: Verdict::Ask,
        }
    }

    fn parse(doc: Value) -> Result<TestFile, AuthoringError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(TEST_FILE);
        std::fs::write(&path, doc.to_string()).unwrap();
        load(&path)
    }

    #[test]
    fn accepts_every_field() {
        let file = parse(json!({"cases": [{
            "name": "all", "tool": "greet", "args": {"name": "Ada"},
            "expect": {"contains": ["Hello", "Ada"], "equals": "Hello, Ada!", "matches": "^Hello",
                       "structuredContent": {"n": 3}, "isError": false, "permission": "ask"},
            "setup": {"notes/a.txt": "hi", "data.json": {"k": 1}},
            "card": "allowForSession",
            "dialogs": ["Yes", ["a", "b"], {"other": "typed"}, null]
        }]}))
        .unwrap();
        let c = &file.cases[0];
        assert_eq!(c.expect.contains, vec!["Hello", "Ada"]);
        assert_eq!(c.card, CardScript::AllowForSession);
        assert_eq!(c.setup["data.json"], "{\n  \"k\": 1\n}\n");
        assert_eq!(
            c.dialogs,
            vec![
                DialogAnswer::Choose(vec!["Yes".into()]),
                DialogAnswer::Choose(vec!["a".into(), "b".into()]),
                DialogAnswer::Other("typed".into()),
                DialogAnswer::Dismiss
            ]
        );
        assert!(check(&c.expect, &actual("Hello, Ada!")).is_empty());
    }

    #[test]
    fn rejects_malformed_files_naming_the_case() {
        let cases = [
            (json!([]), "\"cases\" array"),
            (
                json!({"cases": [{"tool": "t", "expcet": {}}]}),
                "case 1: unknown field `expcet`",
            ),
            (
                json!({"cases": [{"name": "n"}]}),
                "case 1 (\"n\"): missing field `tool`",
            ),
            (
                json!({"cases": [{"tool": "t", "args": [1]}]}),
                "\"args\" must be an object",
            ),
            (
                json!({"cases": [{"tool": "t", "expect": {"matches": "("}}]}),
                "not a valid regex",
            ),
            (
                json!({"cases": [{"tool": "t", "setup": {"../x": ""}}]}),
                "relative path inside",
            ),
            (
                json!({"cases": [{"tool": "t", "card": "maybe"}]}),
                "unknown variant `maybe`",
            ),
            (
                json!({"cases": [{"tool": "t", "dialogs": [1]}]}),
                "a dialog answer is",
            ),
            (
                json!({"cases": [{"tool": "t", "name": "x"}, {"tool": "u", "name": "x"}]}),
                "two cases are named \"x\"",
            ),
        ];
        for (doc, want) in cases {
            let err = parse(doc.clone()).unwrap_err().to_string();
            assert!(err.contains(want), "{doc}: {err}");
        }
    }

    #[test]
    fn reports_each_expectation_that_fails() {
        let file = parse(json!({"cases": [{"tool": "t", "expect": {
            "contains": ["Bye"], "equals": "Bye", "matches": "^B", "isError": true,
            "permission": "allow", "structuredContent": {"n": 4}
        }}]}))
        .unwrap();
        let checks: Vec<&str> = check(&file.cases[0].expect, &actual("Hello"))
            .iter()
            .map(|m| m.check)
            .collect();
        assert_eq!(
            checks,
            [
                "isError",
                "permission",
                "equals",
                "contains",
                "matches",
                "structuredContent"
            ]
        );
    }

    #[test]
    fn structured_subsets() {
        let got = json!({"a": 1, "b": {"c": [1, {"d": 2, "e": 3}]}});
        assert!(is_subset(&json!({}), &got));
        assert!(is_subset(&json!({"b": {"c": [1, {"d": 2}]}}), &got));
        assert!(is_subset(&json!({"a": 1.0}), &got));
        assert!(!is_subset(&json!({"b": {"c": [1]}}), &got));
        assert!(!is_subset(&json!({"z": null}), &got));
        assert!(!is_subset(&json!({"a": "1"}), &got));
    }

    #[test]
    fn update_rewrites_what_failed_and_keeps_the_rest() {
        let mut file = parse(json!({"cases": [
            {"name": "a", "tool": "t", "description": "kept", "expect": {"contains": "Bye", "isError": false}},
            {"name": "b", "tool": "t"}
        ]}))
        .unwrap();
        let got = actual("Hello");
        let failed = check(&file.cases[0].expect, &got);
        let case0 = file.cases[0].clone();
        assert!(update(&mut file.document, &case0, &got, &failed));
        let case1 = file.cases[1].clone();
        assert!(update(&mut file.document, &case1, &got, &[]));
        assert_eq!(
            file.document,
            json!({"cases": [
                {"name": "a", "tool": "t", "description": "kept", "expect": {"isError": false, "equals": "Hello"}},
                {"name": "b", "tool": "t", "expect": {"equals": "Hello", "isError": false,
                    "structuredContent": got.structured}}
            ]})
        );
    }

    #[test]
    fn filter_matches_part_of_the_name() {
        let file =
            parse(json!({"cases": [{"name": "greets Ada", "tool": "t"}, {"tool": "t"}]})).unwrap();
        assert!(selected(&file.cases[0], Some("Ada")));
        assert!(!selected(&file.cases[0], Some("ada")));
        assert!(selected(&file.cases[1], Some("t #2")));
        assert!(selected(&file.cases[1], None));
    }
}
