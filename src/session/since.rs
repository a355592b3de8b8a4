//! The `--since` value of `session search`: a date (`2026-03-01`, local midnight), a local or
//! zoned date-time (`2026-03-01T09:30`, `2026-03-01T09:30:00Z`), or an age (`90m`, `12h`, `7d`,
//! `2w`) counted back from `now`.

use chrono::{DateTime, Local, NaiveDate, NaiveDateTime, TimeZone, Utc};

/// `--since` (and the `Session` tool's `since`): the instant `text` names, or the error that
/// says which forms it takes.
pub fn parse_since_arg(
    text: &str,
    now: DateTime<Utc>,
) -> Result<DateTime<Utc>, super::SessionError> {
    parse_since(text, now).ok_or_else(|| super::SessionError::BadSince(text.to_string()))
}

/// The instant `text` names, or `None` when it is none of the accepted forms.
pub fn parse_since(text: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let text = text.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Some(t.with_timezone(&Utc));
    }
    for format in ["%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"] {
        if let Ok(naive) = NaiveDateTime::parse_from_str(text, format) {
            return local(naive);
        }
    }
    if let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return local(date.and_hms_opt(0, 0, 0)?);
    }
    age(text).and_then(|d| now.checked_sub_signed(d))
}

/// A local wall-clock time; in a DST gap the first valid instant after it.
fn local(naive: NaiveDateTime) -> Option<DateTime<Utc>> {
    match Local.from_local_datetime(&naive) {
        chrono::LocalResult::Single(t) | chrono::LocalResult::Ambiguous(t, _) => {
            Some(t.with_timezone(&Utc))
        }
        chrono::LocalResult::None => {
            local(naive.checked_add_signed(chrono::TimeDelta::try_hours(1)?)?)
        }
    }
}

/// `30m`, `12h`, `7d`, `2w`; a bare number is refused (minutes or days?).
fn age(text: &str) -> Option<chrono::TimeDelta> {
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (number, unit) = text.split_at(split);
    let n: i64 = number.parse().ok()?;
    match unit {
        "m" | "min" => chrono::TimeDelta::try_minutes(n),
        "h" => chrono::TimeDelta::try_hours(n),
        "d" => chrono::TimeDelta::try_days(n),
        "w" => chrono::TimeDelta::try_weeks(n),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        let now = DateTime::parse_from_rfc3339("2026-03-10T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let at = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc);
        assert_eq!(parse_since("7d", now), Some(at("2026-03-03T12:00:00Z")));
        assert_eq!(parse_since("2w", now), Some(at("2026-02-24T12:00:00Z")));
        assert_eq!(parse_since("90m", now), Some(at("2026-03-10T10:30:00Z")));
        assert_eq!(
            parse_since("2026-03-01T09:30:00+01:00", now),
            Some(at("2026-03-01T08:30:00Z"))
        );
        assert!(parse_since("2026-03-01", now).is_some());
        assert!(parse_since("2026-03-01T09:30", now).is_some());
        for bad in ["", "7", "soon", "7 parsecs", "2026-13-01"] {
            assert_eq!(parse_since(bad, now), None, "{bad}");
        }
    }
}
