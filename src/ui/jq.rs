//! `--jq EXPR`: a jq filter over the JSON a command prints, as `gh --jq` does. The expression
//! is compiled once, before the command runs (a bad one is a usage error, exit 2, with jaq's
//! own words and where in the expression it went wrong); each JSON document, or each line of
//! JSON Lines, goes through it, and every output is one line: a string raw, anything else as
//! compact JSON. The jq language is jaq's (`jaq-core`, `jaq-json`, and `jaq-std`'s definitions
//! with its base native filters); the natives behind its regex, date, `@base64`, `@html` and
//! `@uri` definitions are finch's own (`natives`), on the crates finch has, because jaq-std's
//! bring second majors of them. Its math filters, `debug`, `stderr` and `halt_error` are left
//! out.

mod natives;

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data};
use jaq_json::Val;

type Data = data::JustLut<Val>;

/// jaq-std's definitions built on native filters it only offers with all of its features and
/// `natives` does not give (math, debug output): left out, by name and arity, so the rest
/// compiles. Using one is an "undefined filter" error like any unknown name.
const LEFT_OUT: &[(&str, usize)] = &[
    ("stderr", 0),
    ("debug", 0),
    ("debug", 1),
    ("halt_error", 0),
    ("halt_error", 1),
    ("logb", 0),
    ("significand", 0),
    ("pow10", 0),
    ("drem", 2),
    ("nexttoward", 2),
    ("scalb", 2),
    ("gamma", 0),
];

/// A compiled `--jq` expression.
pub struct JqFilter {
    filter: jaq_core::Filter<Data>,
}

impl std::fmt::Debug for JqFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JqFilter")
    }
}

impl JqFilter {
    /// Parses and compiles `expr`; the error is the message for a person (what jaq expected or
    /// did not know, and at which column).
    pub fn compile(expr: &str) -> Result<JqFilter, String> {
        let defs = jaq_core::defs()
            .chain(jaq_std::defs().filter(|d| !LEFT_OUT.contains(&(d.name, d.args.len()))))
            .chain(jaq_json::defs());
        let funs = jaq_core::funs()
            .chain(jaq_std::base_funs())
            .chain(natives::funs())
            .chain(jaq_json::funs());
        let arena = Arena::default();
        let loader = Loader::new(defs);
        let modules = loader
            .load(
                &arena,
                File {
                    code: expr,
                    path: (),
                },
            )
            .map_err(|errors| load_message(expr, errors))?;
        let filter = Compiler::default()
            .with_funs(funs)
            .compile(modules)
            .map_err(|errors| compile_message(expr, errors))?;
        Ok(JqFilter { filter })
    }

    /// The lines `value | expr` prints, or the message of the error it ran into.
    pub fn run(&self, value: &serde_json::Value) -> Result<Vec<String>, String> {
        let input = jaq_json::read::parse_single(value.to_string().as_bytes())
            .map_err(|e| format!("cannot read the JSON: {e}"))?;
        let ctx = Ctx::<Data>::new(&self.filter.lut, Vars::new([]));
        let mut lines = Vec::new();
        for out in self.filter.id.run((ctx, input)) {
            match out {
                Ok(value) => lines.push(raw(value)),
                Err(exn) => {
                    return Err(match exn.get_err() {
                        // `error("…")`'s message without its quotes.
                        Ok(err) => raw(err.into_val()),
                        Err(_) => "the expression halted".to_string(),
                    });
                }
            }
        }
        Ok(lines)
    }
}

/// A value as `gh --jq` prints it: a string raw, anything else as compact JSON.
fn raw(value: Val) -> String {
    match value {
        Val::TStr(text) => String::from_utf8_lossy(&text).into_owned(),
        other => other.to_string(),
    }
}

/// Column (1-based, in characters) of `part`, a slice of `expr`, within `expr`.
fn column(expr: &str, part: &str) -> usize {
    let start = (part.as_ptr() as usize).saturating_sub(expr.as_ptr() as usize);
    let start = start.min(expr.len());
    expr.get(..start).map_or(0, |s| s.chars().count()) + 1
}

/// What `found` reads as in a message: the start of the unexpected text, or the end.
/// "expected X at column N (near …)": what the lexer or the parser wanted where `found` begins.
fn unexpected(expr: &str, expected: &str, found: &str) -> String {
    format!(
        "expected {expected} at column {} ({})",
        column(expr, found),
        near(found)
    )
}

fn near(found: &str) -> String {
    let word: String = found.chars().take(12).collect();
    if word.is_empty() {
        "at the end".to_string()
    } else {
        format!("before `{word}`")
    }
}

fn load_message(expr: &str, errors: jaq_core::load::Errors<&str, ()>) -> String {
    use jaq_core::load::Error;
    let mut messages = Vec::new();
    for (_, error) in errors {
        match error {
            Error::Io(list) => {
                for (path, why) in list {
                    messages.push(format!("cannot load module {path}: {why}"));
                }
            }
            Error::Lex(list) => {
                for (expected, found) in list {
                    messages.push(unexpected(expr, expected.as_str(), found));
                }
            }
            Error::Parse(list) => {
                for (expected, found) in list {
                    messages.push(unexpected(expr, expected.as_str(), found));
                }
            }
        }
    }
    joined(messages)
}

fn compile_message(expr: &str, errors: jaq_core::compile::Errors<&str, ()>) -> String {
    use jaq_core::compile::Undefined;
    let mut messages = Vec::new();
    for (_, list) in errors {
        for (name, undefined) in list {
            let what = match undefined {
                Undefined::Filter(arity) => format!("filter `{name}/{arity}`"),
                other => format!("{} `{name}`", other.as_str()),
            };
            messages.push(format!("undefined {what} at column {}", column(expr, name)));
        }
    }
    joined(messages)
}

fn joined(messages: Vec<String>) -> String {
    if messages.is_empty() {
        "the expression does not compile".to_string()
    } else {
        messages.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lines(expr: &str, value: serde_json::Value) -> Vec<String> {
        JqFilter::compile(expr).unwrap().run(&value).unwrap()
    }

    #[test]
    fn strings_are_raw_and_other_values_compact_one_a_line() {
        let v = json!([{"id": "a", "n": 1, "tags": ["x"]}, {"id": "b", "n": 2, "tags": []}]);
        assert_eq!(lines(".[].id", v.clone()), ["a", "b"]);
        assert_eq!(
            lines(".[0]", v.clone()),
            [r#"{"id":"a","n":1,"tags":["x"]}"#]
        );
        assert_eq!(lines("map(.n) | add", v.clone()), ["3"]);
        assert_eq!(lines(".[] | select(.n > 1) | .tags", v.clone()), ["[]"]);
        assert_eq!(lines("length", v.clone()), ["2"]);
        assert_eq!(lines("[.[].id] | join(\",\")", v.clone()), ["a,b"]);
        assert_eq!(lines(".[0] | keys", v.clone()), [r#"["id","n","tags"]"#]);
        assert_eq!(lines("map(.n) | max", v.clone()), ["2"]);
        assert_eq!(
            lines(".[] | select(.id | startswith(\"b\")) | .n", v.clone()),
            ["2"]
        );
        // A string with a line break is printed raw, as `gh --jq` does.
        assert_eq!(lines(".", json!("two\nlines")), ["two\nlines"]);
        assert_eq!(lines("empty", v), Vec::<String>::new());
    }

    #[test]
    fn bad_expressions_say_what_and_where() {
        let err = JqFilter::compile(".[").unwrap_err();
        assert!(err.contains("expected") && err.contains("column"), "{err}");
        let err = JqFilter::compile(".id | nosuchfilter").unwrap_err();
        assert_eq!(err, "undefined filter `nosuchfilter/0` at column 7");
        let err = JqFilter::compile("$nope").unwrap_err();
        assert!(err.contains("undefined variable"), "{err}");
        // Math filters are not built in (module docs).
        let err = JqFilter::compile(".[] | significand").unwrap_err();
        assert_eq!(err, "undefined filter `significand/0` at column 7");
    }

    #[test]
    fn errors_while_running_are_reported_not_panicked() {
        let f = JqFilter::compile(".a").unwrap();
        let err = f.run(&json!([1])).unwrap_err();
        assert!(err.contains("cannot index"), "{err}");
        let f = JqFilter::compile("error(\"boom\")").unwrap();
        assert_eq!(f.run(&json!(null)).unwrap_err(), "boom");
    }
}
