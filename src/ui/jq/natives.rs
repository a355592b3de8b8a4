//! The native filters behind jaq-std's regex, `@base64`, `@html`, `@uri` and date definitions,
//! written here on the crates finch already has (`regex`, `base64`, `jiff`): jaq-std offers its
//! own only with every one of its features, which bring second majors of `jiff` and `base64`.
//! Each native keeps the name and arguments jaq-std's definitions call it by (`matches`,
//! `encode_base64`, `strftime`, …), so `test`, `match`, `capture`, `sub`, `gsub`, `@base64d`,
//! `todate`, … are jaq-std's own definitions over these. `@csv` and `@tsv`, which jaq-std
//! does not define, are natives of their own here (gh users write `--jq '.[] | [.a, .b] | @tsv'`).
//!
//! What they do follows jq 1.7's manual: match objects carry offsets and lengths in characters,
//! an unnamed capture has `"name": null` and one that took no part `"offset": -1` and
//! `"string": null`; broken-down times are `[year, month (0-11), day, hours, minutes, seconds,
//! weekday (0 = Sunday), day of the year (0-365)]`. Two differences, both wider than jq:
//! `fromdate` takes any RFC 3339 time (an offset, fractions of a second — the times finch
//! prints have milliseconds), and `@base64d` takes input with or without its padding.

use std::borrow::Cow;

use base64::Engine as _;
use jaq_core::native::{Filter, Fun, bome, run, v};
use jaq_core::{Bind, Error, RunPtr, ValR, ValT as _};
use jaq_json::Val;
use jaq_std::ValT as _;
use jiff::tz::TimeZone;
use jiff::{Timestamp, civil};

use super::Data;

/// Every native of this module, for `Compiler::with_funs`.
pub(super) fn funs() -> impl Iterator<Item = Fun<Data>> {
    let two = || -> Box<[Bind]> { [Bind::Var(()), Bind::Var(())].into() };
    let filters: Vec<Filter<RunPtr<Data>>> = vec![
        // Regular expressions: `matches($re; $flags)` and its two splitting kin.
        ("matches", two(), |cv| bome(regex(cv, Keep::Matches))),
        ("split_matches", two(), |cv| bome(regex(cv, Keep::Both))),
        ("split_", two(), |cv| bome(regex(cv, Keep::Between))),
        // Text formats.
        ("encode_base64", v(0), |cv| {
            bome(text(&cv.1).map(|s| Val::from(BASE64.encode(s.as_bytes()))))
        }),
        ("decode_base64", v(0), |cv| bome(decode_base64(&cv.1))),
        ("escape_html", v(0), |cv| {
            bome(text(&cv.1).map(|s| Val::from(escape_html(&s))))
        }),
        ("unescape_html", v(0), |cv| {
            bome(text(&cv.1).map(|s| Val::from(unescape_html(&s))))
        }),
        ("encode_uri", v(0), |cv| {
            bome(text(&cv.1).map(|s| Val::from(encode_uri(&s))))
        }),
        ("decode_uri", v(0), |cv| {
            bome(text(&cv.1).map(|s| Val::from_utf8_bytes(decode_uri(&s))))
        }),
        // `@csv` and `@tsv` (jaq-std has neither): an array as one row.
        ("@csv", v(0), |cv| bome(row(&cv.1, Row::Csv))),
        ("@tsv", v(0), |cv| bome(row(&cv.1, Row::Tsv))),
        // Dates.
        ("now", v(0), |_| bome(now())),
        ("fromdateiso8601", v(0), |cv| bome(from_iso8601(&cv.1))),
        ("todateiso8601", v(0), |cv| {
            bome(format_time(&cv.1, "%Y-%m-%dT%H:%M:%SZ", TimeZone::UTC))
        }),
        ("strftime", v(1), |mut cv| {
            let format = cv.0.pop_var();
            bome(text(&format).and_then(|f| format_time(&cv.1, &f, TimeZone::UTC)))
        }),
        ("strflocaltime", v(1), |mut cv| {
            let format = cv.0.pop_var();
            bome(text(&format).and_then(|f| format_time(&cv.1, &f, TimeZone::system())))
        }),
        ("gmtime", v(0), |cv| {
            bome(instant(&cv.1).map(|t| broken_down(t, TimeZone::UTC)))
        }),
        ("localtime", v(0), |cv| {
            bome(instant(&cv.1).map(|t| broken_down(t, TimeZone::system())))
        }),
        ("mktime", v(0), |cv| {
            bome(from_broken_down(&cv.1).map(|t| Val::from(t.as_second() as isize)))
        }),
        ("strptime", v(1), |mut cv| {
            let format = cv.0.pop_var();
            bome(text(&format).and_then(|f| parse_time(&cv.1, &f)))
        }),
    ];
    filters.into_iter().map(run::<Data>)
}

/// The text of a string value (a person's JSON is UTF-8; anything else is replaced).
fn text(value: &Val) -> ValR<Cow<'_, str>, Val> {
    value.try_as_utf8_bytes().map(String::from_utf8_lossy)
}

fn fail(message: String) -> Error<Val> {
    Error::str(message)
}

// ---------------------------------------------------------------------------------------------
// regular expressions

/// What a regex native returns: the matches, the text between them, or both in turn.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    Matches,
    Between,
    Both,
}

/// jq's regex flags (jaq's meanings where jq's are Oniguruma's own).
struct Flags {
    /// `g`: every match, not only the first.
    global: bool,
    /// `n`: empty matches are skipped.
    skip_empty: bool,
    regex: regex::RegexBuilder,
}

impl Flags {
    fn new(pattern: &str, flags: &str) -> ValR<Flags, Val> {
        let mut out = Flags {
            global: false,
            skip_empty: false,
            regex: regex::RegexBuilder::new(pattern),
        };
        for flag in flags.chars() {
            match flag {
                'g' => out.global = true,
                'n' => out.skip_empty = true,
                'i' => _ = out.regex.case_insensitive(true),
                'x' => _ = out.regex.ignore_whitespace(true),
                // `^` and `$` at every line.
                'm' => _ = out.regex.multi_line(true),
                // `.` matches a line break too.
                's' => _ = out.regex.dot_matches_new_line(true),
                'p' => _ = out.regex.multi_line(true).dot_matches_new_line(true),
                // As jaq: greed swapped (`a+` lazy, `a+?` greedy). Oniguruma's longest-match
                // mode, jq's `l`, has no counterpart in the regex crate.
                'l' => _ = out.regex.swap_greed(true),
                other => {
                    return Err(fail(format!(
                        "{other} is not a regex flag (g, n, i, x, m, s, p or l)"
                    )));
                }
            }
        }
        Ok(out)
    }
}

fn regex(mut cv: jaq_core::Cv<'_, Data>, keep: Keep) -> ValR<Val> {
    let flags = cv.0.pop_var();
    let pattern = cv.0.pop_var();
    let pattern = text(&pattern)?;
    let flags = Flags::new(&pattern, &text(&flags)?)?;
    let re = flags.regex.build().map_err(|e| {
        // A syntax error's text draws the pattern and a caret over three lines: its last line
        // says what is wrong.
        let why = e.to_string();
        let why = why.lines().last().unwrap_or_default();
        fail(format!(
            "invalid regex {pattern:?}: {}",
            why.trim_start_matches("error: ")
        ))
    })?;
    let input = text(&cv.1)?;
    let mut out = Vec::new();
    let mut after_last = 0;
    for captures in re.captures_iter(&input) {
        let Some(whole) = captures.get(0) else {
            continue;
        };
        if flags.skip_empty && whole.is_empty() {
            continue;
        }
        if keep != Keep::Matches {
            out.push(Val::from(input[after_last..whole.start()].to_string()));
            after_last = whole.end();
        }
        if keep != Keep::Between {
            let groups = captures
                .iter()
                .zip(re.capture_names())
                .enumerate()
                .map(|(i, (group, name))| match_object(&input, group, (i > 0).then_some(name)));
            out.push(groups.collect::<ValR<Val>>()?);
        }
        if !flags.global {
            break;
        }
    }
    if keep != Keep::Matches {
        out.push(Val::from(input[after_last..].to_string()));
    }
    Ok(out.into_iter().collect())
}

/// `{offset, length, string}` of a match, and `name` for a capture group (`Some`: `null` when
/// it has none).
fn match_object(
    input: &str,
    group: Option<regex::Match<'_>>,
    name: Option<Option<&str>>,
) -> ValR<Val> {
    let chars = |s: &str| s.chars().count() as isize;
    let (offset, length, string) = match group {
        Some(m) => (
            chars(&input[..m.start()]),
            chars(m.as_str()),
            Val::from(m.as_str().to_string()),
        ),
        None => (-1, 0, Val::Null),
    };
    let mut fields = vec![
        (key("offset"), Val::from(offset)),
        (key("length"), Val::from(length)),
        (key("string"), string),
    ];
    if let Some(name) = name {
        fields.push((
            key("name"),
            name.map_or(Val::Null, |n| Val::from(n.to_string())),
        ));
    }
    Val::from_map(fields)
}

fn key(name: &str) -> Val {
    Val::from(name.to_string())
}

// ---------------------------------------------------------------------------------------------
// text formats

/// The standard alphabet, padded on output, padding optional on input.
const BASE64: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    base64::engine::GeneralPurposeConfig::new()
        .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
);

fn decode_base64(value: &Val) -> ValR<Val> {
    let input = text(value)?;
    let bytes = BASE64
        .decode(input.trim_end().as_bytes())
        .map_err(|e| fail(format!("{input:?} is not valid base64 data: {e}")))?;
    Ok(Val::from_utf8_bytes(bytes))
}

fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\'' => out.push_str("&#39;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

fn unescape_html(text: &str) -> String {
    const ENTITIES: [(&str, char); 6] = [
        ("&amp;", '&'),
        ("&lt;", '<'),
        ("&gt;", '>'),
        ("&#39;", '\''),
        ("&apos;", '\''),
        ("&quot;", '"'),
    ];
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match ENTITIES.iter().find(|(entity, _)| rest.starts_with(entity)) {
            Some((entity, c)) => {
                out.push(*c);
                rest = &rest[entity.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Percent-encoding of every byte but the unreserved characters of RFC 3986, as jq's `@uri`.
fn encode_uri(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `%XX` sequences back to bytes; a `%` not followed by two hex digits stays as it is.
fn decode_uri(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((hi * 16 + lo) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

/// The two row formats of jq's `@csv` and `@tsv`.
#[derive(Clone, Copy)]
enum Row {
    /// Comma-separated; strings in double quotes, a quote inside doubled.
    Csv,
    /// Tab-separated; a tab, line break, carriage return or backslash inside a string written
    /// as `\t`, `\n`, `\r`, `\\`.
    Tsv,
}

/// An array as one row of `format`, as jq 1.7 writes it: numbers and booleans as JSON writes
/// them, `null` as an empty field; an array or object inside is an error, as in jq.
fn row(value: &Val, format: Row) -> ValR<Val> {
    let Val::Arr(items) = value else {
        return Err(fail(format!(
            "{value} cannot be {} formatted, only an array can be",
            format.name()
        )));
    };
    let mut fields = Vec::with_capacity(items.len());
    for item in items.iter() {
        fields.push(match item {
            Val::Null => String::new(),
            Val::Bool(_) | Val::Num(_) => item.to_string(),
            Val::TStr(_) | Val::BStr(_) => {
                let text = text(item)?;
                match format {
                    Row::Csv => format!("\"{}\"", text.replace('"', "\"\"")),
                    Row::Tsv => text
                        .replace('\\', "\\\\")
                        .replace('\t', "\\t")
                        .replace('\n', "\\n")
                        .replace('\r', "\\r"),
                }
            }
            Val::Arr(_) | Val::Obj(_) => {
                return Err(fail(format!(
                    "{item} is not valid in a {} row",
                    format.name()
                )));
            }
        });
    }
    let separator = match format {
        Row::Csv => ",",
        Row::Tsv => "\t",
    };
    Ok(Val::from(fields.join(separator)))
}

impl Row {
    fn name(self) -> &'static str {
        match self {
            Row::Csv => "csv",
            Row::Tsv => "tsv",
        }
    }
}

// ---------------------------------------------------------------------------------------------
// dates

fn now() -> ValR<Val> {
    let t = Timestamp::now();
    Ok(seconds(t))
}

/// A timestamp as jq's number of seconds: whole when it has no fraction.
fn seconds(t: Timestamp) -> Val {
    if t.subsec_nanosecond() == 0 {
        Val::from(t.as_second() as isize)
    } else {
        Val::from(t.as_nanosecond() as f64 / 1e9)
    }
}

fn from_iso8601(value: &Val) -> ValR<Val> {
    let input = text(value)?;
    let t: Timestamp = input.parse().map_err(|e| {
        fail(format!(
            "{input:?} is not an ISO 8601 time with an offset (2026-03-07T02:30:00Z): {e}"
        ))
    })?;
    Ok(seconds(t))
}

/// A number of seconds, or a broken-down time (read as UTC).
fn instant(value: &Val) -> ValR<Timestamp, Val> {
    if let Val::Arr(_) = value {
        return from_broken_down(value);
    }
    let secs = value.as_f64().ok_or_else(|| {
        fail(format!(
            "{value} is not a number of seconds or a broken-down time"
        ))
    })?;
    let nanos = (secs * 1e9).round();
    if !nanos.is_finite() || nanos.abs() > 1e30 {
        return Err(fail(format!("{value} seconds is not a time")));
    }
    Timestamp::from_nanosecond(nanos as i128).map_err(|e| fail(format!("{value} seconds: {e}")))
}

fn broken_down(t: Timestamp, zone: TimeZone) -> Val {
    let dt = t.to_zoned_datetime(zone).datetime();
    let second = f64::from(dt.second()) + f64::from(dt.subsec_nanosecond()) / 1e9;
    let second = if dt.subsec_nanosecond() == 0 {
        Val::from(dt.second() as isize)
    } else {
        Val::from(second)
    };
    [
        Val::from(dt.year() as isize),
        Val::from(dt.month() as isize - 1),
        Val::from(dt.day() as isize),
        Val::from(dt.hour() as isize),
        Val::from(dt.minute() as isize),
        second,
        Val::from(dt.weekday().to_sunday_zero_offset() as isize),
        Val::from(dt.day_of_year() as isize - 1),
    ]
    .into_iter()
    .collect()
}

/// `[year, month (0-11), day, hours, minutes, seconds, …]` in UTC, as `mktime` takes it.
fn from_broken_down(value: &Val) -> ValR<Timestamp, Val> {
    let wrong = || {
        fail(format!(
            "{value} is not a broken-down time ([year, month 0-11, day, hours, minutes, seconds, …])"
        ))
    };
    let Val::Arr(parts) = value else {
        return Err(wrong());
    };
    if parts.len() < 6 {
        return Err(wrong());
    }
    let number = |i: usize| parts[i].as_f64().ok_or_else(wrong);
    let int = |i: usize| -> ValR<i64, Val> {
        let n = number(i)?;
        if n.fract() != 0.0 || n.abs() > 1e6 {
            return Err(wrong());
        }
        Ok(n as i64)
    };
    let second = number(5)?;
    if !(0.0..61.0).contains(&second) {
        return Err(wrong());
    }
    let small = |n: i64| i8::try_from(n).map_err(|_| wrong());
    let dt = civil::DateTime::new(
        i16::try_from(int(0)?).map_err(|_| wrong())?,
        small(int(1)? + 1)?,
        small(int(2)?)?,
        small(int(3)?)?,
        small(int(4)?)?,
        // A leap second is the last second of its minute.
        (second.trunc() as i8).min(59),
        ((second.fract() * 1e9) as i32).clamp(0, 999_999_999),
    )
    .map_err(|e| fail(format!("{value}: {e}")))?;
    dt.to_zoned_datetime(TimeZone::UTC)
        .map(|z| z.timestamp())
        .map_err(|e| fail(format!("{value}: {e}")))
}

fn format_time(value: &Val, format: &str, zone: TimeZone) -> ValR<Val> {
    let t = instant(value)?;
    let zoned = t.to_zoned_datetime(zone);
    jiff::fmt::strtime::format(format, &zoned)
        .map(Val::from)
        .map_err(|e| fail(format!("cannot format {value} with {format:?}: {e}")))
}

/// The broken-down time `format` reads in the input: in UTC when the text has an offset, as
/// written when it has none.
fn parse_time(value: &Val, format: &str) -> ValR<Val> {
    let input = text(value)?;
    let parsed = jiff::fmt::strtime::parse(format, input.as_bytes())
        .map_err(|e| fail(format!("{input:?} does not match {format:?}: {e}")))?;
    let t = match parsed.to_timestamp() {
        Ok(t) => t,
        Err(_) => parsed
            .to_datetime()
            .and_then(|dt| dt.to_zoned_datetime(TimeZone::UTC))
            .map(|z| z.timestamp())
            .map_err(|e| fail(format!("{input:?} read with {format:?}: {e}")))?,
    };
    Ok(broken_down(t, TimeZone::UTC))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_and_uri_round_trip() {
        let text = r#"<a href="x">Tom & 'Jerry'</a>"#;
        let escaped = escape_html(text);
        assert_eq!(
            escaped,
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;"
        );
        assert_eq!(unescape_html(&escaped), text);
        assert_eq!(unescape_html("a & b &bogus;"), "a & b &bogus;");
        assert_eq!(encode_uri("a b/ü~"), "a%20b%2F%C3%BC~");
        assert_eq!(decode_uri("a%20b%2F%C3%BC~"), "a b/ü~".as_bytes());
        assert_eq!(decode_uri("100%"), b"100%");
        assert_eq!(decode_uri("%zz%4"), b"%zz%4");
    }

    fn formatted(value: serde_json::Value, format: Row) -> Result<String, String> {
        let value = jaq_json::read::parse_single(value.to_string().as_bytes()).unwrap();
        match row(&value, format) {
            Ok(Val::TStr(text)) => Ok(String::from_utf8_lossy(&text).into_owned()),
            Ok(other) => panic!("not a string: {other}"),
            Err(e) => Err(e.into_val().to_string()),
        }
    }

    #[test]
    fn csv_and_tsv_rows_as_jq_writes_them() {
        let row_of_each = serde_json::json!(["a \"q\", b", 1.5, 2, true, null, "t\tn\nr\rb\\"]);
        assert_eq!(
            formatted(row_of_each.clone(), Row::Csv).unwrap(),
            "\"a \"\"q\"\", b\",1.5,2,true,,\"t\tn\nr\rb\\\""
        );
        assert_eq!(
            formatted(row_of_each, Row::Tsv).unwrap(),
            "a \"q\", b\t1.5\t2\ttrue\t\tt\\tn\\nr\\rb\\\\"
        );
        assert_eq!(formatted(serde_json::json!([]), Row::Tsv).unwrap(), "");
        let err = formatted(serde_json::json!([[1]]), Row::Csv).unwrap_err();
        assert!(err.contains("[1] is not valid in a csv row"), "{err}");
        let err = formatted(serde_json::json!({"a": 1}), Row::Tsv).unwrap_err();
        assert!(err.contains("cannot be tsv formatted"), "{err}");
    }
}
