//! When a task fires: the schedule kinds of SPEC §6, their stored text form, and the next fire
//! time as a pure function of (schedule, time zone, instant). Nothing here reads a clock.
//!
//! Daylight saving time follows the vixie-cron rules, which croner implements for `cron`
//! schedules and this module for the others (so that a `list` of a thousand tasks does not parse
//! a thousand cron patterns): a time with a fixed minute and hour (`daily`, `weekdays`, `weekly`,
//! a cron pattern with single-number minute and hour fields) that falls into a spring-forward gap
//! fires once, at the first instant after the gap; on a fall-back day it fires once, at the earlier
//! of the two instants. `hourly`, and cron patterns with a wildcard, step or list in the minute or
//! hour field, skip wall-clock times that do not exist and fire on both instants of a repeated
//! one, so they keep their real-time rhythm.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::schedule::zone::Zone;
use chrono::{
    DateTime, Datelike, FixedOffset, LocalResult, NaiveDateTime, TimeZone, Timelike, Utc,
};
use croner::Cron;

/// A field of a schedule that did not parse: which one and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The field as the user spelled it: `daily`, `weekly`, `cron`, `once`, `tz`, …
    pub field: &'static str,
    pub value: String,
    pub reason: String,
}

impl FieldError {
    pub fn new(field: &'static str, value: &str, reason: impl Into<String>) -> FieldError {
        FieldError {
            field,
            value: value.to_string(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {:?}: {}", self.field, self.value, self.reason)
    }
}

impl std::error::Error for FieldError {}

/// A wall-clock time of day, minute precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockTime {
    pub hour: u32,
    pub minute: u32,
}

impl fmt::Display for ClockTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}:{:02}", self.hour, self.minute)
    }
}

/// Days of the week, Sunday = 0 as in cron.
const DAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

#[derive(Debug, Clone)]
enum Kind {
    Hourly { minute: u32 },
    Daily(ClockTime),
    Weekdays(ClockTime),
    Weekly { day: usize, at: ClockTime },
    Cron(String, Arc<Cron>),
    Once(DateTime<FixedOffset>),
}

/// A parsed schedule.
#[derive(Debug, Clone)]
pub struct Schedule {
    kind: Kind,
}

impl PartialEq for Schedule {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

impl Schedule {
    /// `hourly` at minute `:MM` (`":15"`, `"15"`; empty means `:00`).
    pub fn hourly(minute: &str) -> Result<Schedule, FieldError> {
        let digits = minute.trim().trim_start_matches(':');
        let minute_value = if digits.is_empty() {
            0
        } else {
            parse_number(digits, 59).ok_or_else(|| {
                FieldError::new(
                    "hourly",
                    minute,
                    "write the minute as :MM, from :00 to :59 (e.g. :15)",
                )
            })?
        };
        Ok(Schedule {
            kind: Kind::Hourly {
                minute: minute_value,
            },
        })
    }

    pub fn daily(at: &str) -> Result<Schedule, FieldError> {
        Ok(Schedule {
            kind: Kind::Daily(parse_clock("daily", at)?),
        })
    }

    pub fn weekdays(at: &str) -> Result<Schedule, FieldError> {
        Ok(Schedule {
            kind: Kind::Weekdays(parse_clock("weekdays", at)?),
        })
    }

    pub fn weekly(day: &str, at: &str) -> Result<Schedule, FieldError> {
        let day = parse_weekday(day)?;
        Ok(Schedule {
            kind: Kind::Weekly {
                day,
                at: parse_clock("weekly", at)?,
            },
        })
    }

    /// A five-field cron expression (minute hour day-of-month month day-of-week), or one of the
    /// `@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly` nicknames.
    pub fn cron(expr: &str) -> Result<Schedule, FieldError> {
        let expr = expr.split_whitespace().collect::<Vec<_>>().join(" ");
        // Parsing a pattern costs more than all the rest of reading a task (croner builds a bit
        // set for every year to 5000), and tasks tend to share patterns: keep them per process.
        thread_local! {
            static PARSED: RefCell<HashMap<String, Arc<Cron>>> = RefCell::new(HashMap::new());
        }
        if let Some(cron) = PARSED.with(|p| p.borrow().get(&expr).cloned()) {
            return Ok(Schedule {
                kind: Kind::Cron(expr, cron),
            });
        }
        let cron = Arc::new(parse_cron(&expr)?);
        PARSED.with(|p| p.borrow_mut().insert(expr.clone(), Arc::clone(&cron)));
        Ok(Schedule {
            kind: Kind::Cron(expr, cron),
        })
    }

    /// An ISO date-time: with an offset (`2026-05-01T09:00:00+02:00`, `…Z`) it is that instant;
    /// without one (`2026-05-01T09:00`, `2026-05-01 09:00:00`) it is a wall-clock time in `tz`
    /// (a time in a spring-forward gap moves to the end of the gap; a repeated one takes the
    /// earlier instant). Stored as RFC 3339 with the zone's offset.
    pub fn once(text: &str, tz: Zone) -> Result<Schedule, FieldError> {
        let trimmed = text.trim();
        let at = if let Some(at) = parse_with_offset(trimmed) {
            at.with_timezone(&tz).fixed_offset()
        } else {
            let naive = parse_naive(trimmed).ok_or_else(|| {
                FieldError::new(
                    "once",
                    text,
                    "not an ISO date-time (write e.g. 2026-05-01T09:00 or 2026-05-01T09:00:00+02:00)",
                )
            })?;
            resolve_local(tz, naive).fixed_offset()
        };
        Ok(Schedule {
            kind: Kind::Once(at),
        })
    }

    /// Parses the stored text form (`daily 09:00`, `cron "0 9 * * 1-5"`, …; see `Display`).
    pub fn parse(text: &str, tz: Zone) -> Result<Schedule, FieldError> {
        let text = text.trim();
        let (word, rest) = text.split_once(' ').unwrap_or((text, ""));
        let rest = rest.trim();
        let wrong = || {
            FieldError::new(
                "schedule",
                text,
                "expected hourly [at :MM], daily HH:MM, weekdays HH:MM, weekly DAY HH:MM, \
                 cron \"EXPR\" or once DATETIME",
            )
        };
        match word {
            "hourly" => match rest {
                "" => Schedule::hourly(""),
                _ => Schedule::hourly(rest.strip_prefix("at").ok_or_else(wrong)?),
            },
            "daily" => Schedule::daily(rest),
            "weekdays" => Schedule::weekdays(rest),
            "weekly" => {
                let (day, at) = rest.split_once(' ').ok_or_else(wrong)?;
                Schedule::weekly(day, at.trim())
            }
            "cron" => {
                let expr = rest
                    .strip_prefix('"')
                    .and_then(|r| r.strip_suffix('"'))
                    .unwrap_or(rest);
                Schedule::cron(expr)
            }
            "once" => Schedule::once(rest, tz),
            _ => Err(wrong()),
        }
    }

    /// The one-word kind: `hourly`, `daily`, `weekdays`, `weekly`, `cron` or `once`.
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            Kind::Hourly { .. } => "hourly",
            Kind::Daily(_) => "daily",
            Kind::Weekdays(_) => "weekdays",
            Kind::Weekly { .. } => "weekly",
            Kind::Cron(..) => "cron",
            Kind::Once(_) => "once",
        }
    }

    /// The schedule's value without its kind: `09:00`, `mon 07:15`, the cron expression, the
    /// date-time of `once`.
    pub fn value(&self) -> String {
        match &self.kind {
            Kind::Cron(expr, _) => expr.clone(),
            _ => {
                let text = self.to_string();
                let value = text.split_once(' ').map_or("", |(_, v)| v);
                value.strip_prefix("at ").unwrap_or(value).to_string()
            }
        }
    }

    /// The first fire time strictly after `after` (at whole-second precision), or `None` when
    /// the schedule never fires again (a `once` in the past, a cron pattern with no date left).
    pub fn next_after(&self, tz: Zone, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        match &self.kind {
            Kind::Once(at) => {
                let at = at.with_timezone(&Utc);
                (at > after).then_some(at)
            }
            Kind::Hourly { minute } => next_hourly(tz, after, *minute),
            Kind::Daily(at) => next_fixed(tz, after, *at, |_| true),
            Kind::Weekdays(at) => next_fixed(tz, after, *at, |d| (1..=5).contains(&d)),
            Kind::Weekly { day, at } => next_fixed(tz, after, *at, |d| d == *day),
            Kind::Cron(_, cron) => cron
                .find_next_occurrence(&after.with_timezone(&tz), false)
                .ok()
                .map(|t| t.with_timezone(&Utc)),
        }
    }

    /// Up to `count` fire times after `after`, in order.
    pub fn upcoming(&self, tz: Zone, after: DateTime<Utc>, count: usize) -> Vec<DateTime<Utc>> {
        let mut out = Vec::with_capacity(count);
        let mut cursor = after;
        while out.len() < count {
            match self.next_after(tz, cursor) {
                Some(next) => {
                    out.push(next);
                    cursor = next;
                }
                None => break,
            }
        }
        out
    }
}

/// The stored text form, which `Schedule::parse` reads back.
impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Hourly { minute: 0 } => f.write_str("hourly"),
            Kind::Hourly { minute } => write!(f, "hourly at :{minute:02}"),
            Kind::Daily(t) => write!(f, "daily {t}"),
            Kind::Weekdays(t) => write!(f, "weekdays {t}"),
            Kind::Weekly { day, at } => write!(f, "weekly {} {at}", DAYS[*day]),
            Kind::Cron(expr, _) => write!(f, "cron \"{expr}\""),
            Kind::Once(at) => write!(
                f,
                "once {}",
                at.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
            ),
        }
    }
}

/// The first `HH:MM` on a day whose weekday (Sunday = 0) `day_ok` accepts, after `after`: a fixed
/// time, so a gap moves it to the gap's end and a repeated time takes its earlier instant.
fn next_fixed(
    tz: Zone,
    after: DateTime<Utc>,
    at: ClockTime,
    day_ok: impl Fn(usize) -> bool,
) -> Option<DateTime<Utc>> {
    // From the day before `after`'s local date: a time late in the previous local day can
    // still be ahead of `after` in zones whose offset just moved back.
    let first = after.with_timezone(&tz).date_naive().pred_opt()?;
    first
        .iter_days()
        .take(10)
        .filter(|d| day_ok(d.weekday().num_days_from_sunday() as usize))
        .filter_map(|d| d.and_hms_opt(at.hour, at.minute, 0))
        .map(|naive| resolve_local(tz, naive).with_timezone(&Utc))
        .find(|t| *t > after)
}

/// The first `:MM` of a wall-clock hour after `after`: an interval, so a time in a gap is
/// skipped and a repeated one fires on both of its instants.
fn next_hourly(tz: Zone, after: DateTime<Utc>, minute: u32) -> Option<DateTime<Utc>> {
    let local = after.with_timezone(&tz).naive_local();
    // Back three hours so that the second pass of a repeated hour is not missed.
    let start = local.date().and_hms_opt(local.hour(), minute, 0)? - chrono::TimeDelta::hours(3);
    (0..30)
        .map(|h| start + chrono::TimeDelta::hours(h))
        .flat_map(|naive| match tz.from_local_datetime(&naive) {
            LocalResult::Single(t) => [Some(t), None],
            LocalResult::Ambiguous(a, b) => [Some(a), Some(b)],
            LocalResult::None => [None, None],
        })
        .flatten()
        .map(|t| t.with_timezone(&Utc))
        .filter(|t| *t > after)
        .min()
}

/// Maps a wall-clock time in `tz` to an instant: a time in a gap moves to the end of the gap, a
/// repeated time takes the earlier instant.
/// An ISO 8601 date-time with an offset: RFC 3339 (`2026-12-24T10:00:00+05:00`), and the forms
/// ISO 8601 also allows — no seconds (`2026-12-24T10:00+05:00`), a space for `T`, `Z`, an
/// offset without a colon or without minutes (`+0500`, `+05`).
fn parse_with_offset(text: &str) -> Option<DateTime<chrono::FixedOffset>> {
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Some(at);
    }
    let mut text = text.replacen(' ', "T", 1);
    if let Some(rest) = text.strip_suffix(['Z', 'z']) {
        text = format!("{rest}+00:00");
    }
    [
        "%Y-%m-%dT%H:%M%#z",
        "%Y-%m-%dT%H:%M:%S%#z",
        "%Y-%m-%dT%H:%M:%S%.f%#z",
    ]
    .iter()
    .find_map(|format| DateTime::parse_from_str(&text, format).ok())
}

pub fn resolve_local(tz: Zone, naive: NaiveDateTime) -> DateTime<Zone> {
    match tz.from_local_datetime(&naive) {
        LocalResult::Single(t) | LocalResult::Ambiguous(t, _) => t,
        LocalResult::None => {
            // Gaps are whole minutes and at most a day long (Samoa skipped 2011-12-30).
            let mut probe = naive;
            for _ in 0..(48 * 60) {
                probe += chrono::TimeDelta::minutes(1);
                let start = probe
                    .with_second(0)
                    .and_then(|p| p.with_nanosecond(0))
                    .unwrap_or(probe);
                if let Some(t) = tz.from_local_datetime(&start).earliest() {
                    return t;
                }
            }
            // No real zone has a longer gap; fall back to reading the time as UTC.
            Utc.from_utc_datetime(&naive).with_timezone(&tz)
        }
    }
}

fn parse_number(text: &str, max: u32) -> Option<u32> {
    if text.is_empty() || text.len() > 2 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok().filter(|n| *n <= max)
}

/// `HH:MM` or `H:MM`, 00:00 to 23:59.
pub fn parse_clock(field: &'static str, text: &str) -> Result<ClockTime, FieldError> {
    let err = |reason: String| FieldError::new(field, text, reason);
    let Some((h, m)) = text.trim().split_once(':') else {
        return Err(err(
            "not a time of day (write HH:MM, e.g. 09:30)".to_string()
        ));
    };
    let all_digits =
        |s: &str| !s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(h) || !all_digits(m) || m.len() != 2 {
        return Err(err(
            "not a time of day (write HH:MM, e.g. 09:30)".to_string()
        ));
    }
    let hour: u32 = h.parse().unwrap_or(99);
    let minute: u32 = m.parse().unwrap_or(99);
    if hour > 23 {
        return Err(err(format!("hour {hour} is out of range (00-23)")));
    }
    if minute > 59 {
        return Err(err(format!("minute {minute} is out of range (00-59)")));
    }
    Ok(ClockTime { hour, minute })
}

/// `mon`, `Monday`, `TUE`, …; Sunday = 0.
pub fn parse_weekday(text: &str) -> Result<usize, FieldError> {
    let lower = text.trim().to_lowercase();
    let full = [
        "sunday",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
    ];
    full.iter()
        .position(|d| lower.len() >= 3 && d.starts_with(&lower))
        .ok_or_else(|| {
            FieldError::new(
                "weekly",
                text,
                "unknown weekday (use mon, tue, wed, thu, fri, sat or sun)",
            )
        })
}

/// The years a cron pattern can fire in.
const LAST_YEARS: &str = "1970-2399";

const CRON_FIELDS: [(&str, &str); 5] = [
    ("minute", "0-59"),
    ("hour", "0-23"),
    ("day-of-month", "1-31"),
    ("month", "1-12 or JAN-DEC"),
    ("day-of-week", "0-7 or SUN-SAT, 0 and 7 are Sunday"),
];

fn parse_cron(expr: &str) -> Result<Cron, FieldError> {
    let err = |reason: String| FieldError::new("cron", expr, reason);
    if expr.is_empty() {
        return Err(err("the expression is empty".to_string()));
    }
    let fields: Vec<&str> = expr.split(' ').collect();
    if expr.starts_with('@') {
        let known = [
            "@yearly",
            "@annually",
            "@monthly",
            "@weekly",
            "@daily",
            "@midnight",
            "@hourly",
        ];
        if fields.len() != 1 || !known.contains(&expr.to_lowercase().as_str()) {
            return Err(err(format!(
                "unknown nickname (use one of {})",
                known.join(", ")
            )));
        }
    } else if fields.len() != 5 {
        return Err(err(format!(
            "a cron expression has 5 fields (minute hour day-of-month month day-of-week), this one has {}",
            fields.len()
        )));
    }
    // Croner sets a bit for every year to 5000 when the year field is left out, which makes a
    // parse cost as much as reading a hundred tasks; a pattern ends its years in 2399 instead.
    let whole = if fields.len() == 5 {
        format!("0 {expr} {LAST_YEARS}").parse::<Cron>()
    } else {
        expr.parse::<Cron>()
    };
    match whole {
        Ok(cron) => Ok(cron),
        Err(whole_error) => {
            // Check each field on its own so the message can say which one is wrong.
            for (i, field) in fields.iter().enumerate().filter(|_| fields.len() == 5) {
                let mut probe = ["0", "0", "1", "*", "*"];
                if i >= 2 {
                    probe[2] = "*";
                }
                probe[i] = field;
                if let Err(e) = probe.join(" ").parse::<Cron>() {
                    let (name, range) = CRON_FIELDS[i];
                    return Err(err(format!(
                        "field {} ({name}) \"{field}\" is not valid: {} (allowed: {range})",
                        i + 1,
                        cron_reason(&e)
                    )));
                }
            }
            Err(err(cron_reason(&whole_error)))
        }
    }
}

fn cron_reason(e: &croner::errors::CronError) -> String {
    e.to_string()
        .trim_end_matches('.')
        .replace("Component error: ", "")
        .replace("Invalid pattern: ", "")
}

/// `YYYY-MM-DDTHH:MM[:SS]`, with `T` or a space.
fn parse_naive(text: &str) -> Option<NaiveDateTime> {
    [
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%d %H:%M",
    ]
    .iter()
    .find_map(|f| NaiveDateTime::parse_from_str(text, f).ok())
}

/// Parses an IANA time zone name.
pub fn parse_zone(name: &str) -> Result<Zone, FieldError> {
    name.trim().parse::<Zone>().map_err(|_| {
        FieldError::new(
            "tz",
            name,
            "unknown time zone (use an IANA name such as Europe/Berlin or America/New_York)",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Offset;

    fn utc(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .with_timezone(&Utc)
    }

    fn zone(name: &str) -> Zone {
        parse_zone(name).unwrap()
    }

    fn schedule(text: &str, tz: Zone) -> Schedule {
        Schedule::parse(text, tz).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn iso(t: DateTime<Utc>) -> String {
        t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    }

    /// (schedule, zone, now, the next fire times after now in UTC)
    const NEXT: &[(&str, &str, &str, &[&str])] = &[
        // hourly
        (
            "hourly",
            "UTC",
            "2026-01-01T10:20:00Z",
            &["2026-01-01T11:00:00Z", "2026-01-01T12:00:00Z"],
        ),
        (
            "hourly at :15",
            "UTC",
            "2026-01-01T10:20:00Z",
            &["2026-01-01T11:15:00Z", "2026-01-01T12:15:00Z"],
        ),
        (
            "hourly at :15",
            "UTC",
            "2026-01-01T10:15:00Z",
            &["2026-01-01T11:15:00Z"],
        ),
        (
            "hourly at :15",
            "UTC",
            "2026-01-01T10:14:59.900Z",
            &["2026-01-01T10:15:00Z"],
        ),
        (
            "hourly at :45",
            "Asia/Kolkata",
            "2026-01-01T10:00:00Z",
            &["2026-01-01T10:15:00Z", "2026-01-01T11:15:00Z"],
        ),
        // daily, in winter and summer
        (
            "daily 09:00",
            "Europe/Berlin",
            "2026-01-10T07:59:59Z",
            &["2026-01-10T08:00:00Z", "2026-01-11T08:00:00Z"],
        ),
        (
            "daily 09:00",
            "Europe/Berlin",
            "2026-07-10T06:00:00Z",
            &["2026-07-10T07:00:00Z"],
        ),
        (
            "daily 00:00",
            "UTC",
            "2026-12-31T23:59:00Z",
            &["2027-01-01T00:00:00Z"],
        ),
        (
            "daily 23:59",
            "Pacific/Auckland",
            "2026-01-01T00:00:00Z",
            &["2026-01-01T10:59:00Z"],
        ),
        // weekdays skip the weekend (2026-01-09 is a Friday)
        (
            "weekdays 09:00",
            "UTC",
            "2026-01-09T10:00:00Z",
            &["2026-01-12T09:00:00Z", "2026-01-13T09:00:00Z"],
        ),
        (
            "weekdays 09:00",
            "UTC",
            "2026-01-09T08:00:00Z",
            &["2026-01-09T09:00:00Z", "2026-01-12T09:00:00Z"],
        ),
        // weekly
        (
            "weekly mon 08:30",
            "UTC",
            "2026-01-09T10:00:00Z",
            &["2026-01-12T08:30:00Z", "2026-01-19T08:30:00Z"],
        ),
        (
            "weekly sun 12:00",
            "America/New_York",
            "2026-01-09T10:00:00Z",
            &["2026-01-11T17:00:00Z"],
        ),
        // cron
        (
            "cron \"*/15 * * * *\"",
            "UTC",
            "2026-01-01T10:07:00Z",
            &["2026-01-01T10:15:00Z", "2026-01-01T10:30:00Z"],
        ),
        (
            "cron \"0 9 1 * *\"",
            "UTC",
            "2026-01-15T00:00:00Z",
            &["2026-02-01T09:00:00Z", "2026-03-01T09:00:00Z"],
        ),
        (
            "cron \"0 0 29 2 *\"",
            "UTC",
            "2026-01-01T00:00:00Z",
            &["2028-02-29T00:00:00Z"],
        ),
        (
            "cron \"0 12 * * MON-FRI\"",
            "UTC",
            "2026-01-10T00:00:00Z",
            &["2026-01-12T12:00:00Z"],
        ),
        (
            "cron \"@daily\"",
            "UTC",
            "2026-01-10T05:00:00Z",
            &["2026-01-11T00:00:00Z"],
        ),
        // once: with an offset it is that instant; it fires once and never again
        (
            "once 2026-05-01T09:00:00+02:00",
            "UTC",
            "2026-04-01T00:00:00Z",
            &["2026-05-01T07:00:00Z"],
        ),
        (
            "once 2026-05-01T09:00:00+02:00",
            "UTC",
            "2026-05-01T07:00:00Z",
            &[],
        ),
        // New York springs forward on 2026-03-08 (02:00 EST → 03:00 EDT): a fixed 02:30 fires
        // once, at 03:00 EDT, then at 02:30 again the next day.
        (
            "daily 02:30",
            "America/New_York",
            "2026-03-07T12:00:00Z",
            &["2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z"],
        ),
        (
            "weekly sun 02:30",
            "America/New_York",
            "2026-03-07T12:00:00Z",
            &["2026-03-08T07:00:00Z", "2026-03-15T06:30:00Z"],
        ),
        (
            "cron \"30 2 * * *\"",
            "America/New_York",
            "2026-03-07T12:00:00Z",
            &["2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z"],
        ),
        (
            "daily 03:00",
            "America/New_York",
            "2026-03-08T05:00:00Z",
            &["2026-03-08T07:00:00Z", "2026-03-09T07:00:00Z"],
        ),
        // … and falls back on 2026-11-01 (02:00 EDT → 01:00 EST): a fixed 01:30 fires once, at
        // the earlier 01:30 (EDT).
        (
            "daily 01:30",
            "America/New_York",
            "2026-10-31T12:00:00Z",
            &["2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"],
        ),
        (
            "weekly sun 01:30",
            "America/New_York",
            "2026-10-31T12:00:00Z",
            &["2026-11-01T05:30:00Z", "2026-11-08T06:30:00Z"],
        ),
        (
            "cron \"30 1 * * *\"",
            "America/New_York",
            "2026-10-31T12:00:00Z",
            &["2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"],
        ),
        (
            "daily 02:30",
            "America/New_York",
            "2026-10-31T12:00:00Z",
            &["2026-11-01T07:30:00Z", "2026-11-02T07:30:00Z"],
        ),
        // Interval patterns keep real time: the missing hour is skipped, the repeated one runs twice.
        (
            "cron \"*/30 * * * *\"",
            "America/New_York",
            "2026-03-08T06:30:00Z",
            &["2026-03-08T07:00:00Z", "2026-03-08T07:30:00Z"],
        ),
        (
            "cron \"*/30 * * * *\"",
            "America/New_York",
            "2026-11-01T05:30:00Z",
            &[
                "2026-11-01T06:00:00Z",
                "2026-11-01T06:30:00Z",
                "2026-11-01T07:00:00Z",
            ],
        ),
        (
            "hourly",
            "America/New_York",
            "2026-11-01T05:00:00Z",
            &["2026-11-01T06:00:00Z", "2026-11-01T07:00:00Z"],
        ),
        // Berlin springs forward on 2026-03-29 (02:00 CET → 03:00 CEST) and falls back on
        // 2026-10-25 (03:00 CEST → 02:00 CET).
        (
            "daily 02:30",
            "Europe/Berlin",
            "2026-03-28T12:00:00Z",
            &["2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"],
        ),
        (
            "weekly sun 02:30",
            "Europe/Berlin",
            "2026-03-28T12:00:00Z",
            &["2026-03-29T01:00:00Z", "2026-04-05T00:30:00Z"],
        ),
        (
            "cron \"30 2 * * 0\"",
            "Europe/Berlin",
            "2026-03-28T12:00:00Z",
            &["2026-03-29T01:00:00Z", "2026-04-05T00:30:00Z"],
        ),
        (
            "daily 02:30",
            "Europe/Berlin",
            "2026-10-24T12:00:00Z",
            &["2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"],
        ),
        (
            "weekly sun 02:30",
            "Europe/Berlin",
            "2026-10-24T12:00:00Z",
            &["2026-10-25T00:30:00Z", "2026-11-01T01:30:00Z"],
        ),
        (
            "cron \"30 2 * * *\"",
            "Europe/Berlin",
            "2026-10-24T12:00:00Z",
            &["2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"],
        ),
    ];

    #[test]
    fn next_fire_times() {
        for (text, tz, now, want) in NEXT {
            let tz = zone(tz);
            let got: Vec<String> = schedule(text, tz)
                .upcoming(tz, utc(now), want.len().max(1))
                .into_iter()
                .map(iso)
                .take(want.len())
                .collect();
            assert_eq!(got, *want, "{text} in {tz} after {now}");
            if want.is_empty() {
                assert_eq!(schedule(text, tz).next_after(tz, utc(now)), None, "{text}");
            }
        }
    }

    /// Fires of `text` whose local date in `tz` is `day`.
    fn fires_on(text: &str, tz: &str, day: &str) -> usize {
        let tz = zone(tz);
        let start = utc(&format!("{day}T00:00:00Z")) - chrono::TimeDelta::days(1);
        schedule(text, tz)
            .upcoming(tz, start, 100)
            .into_iter()
            .filter(|t| t.with_timezone(&tz).format("%Y-%m-%d").to_string() == day)
            .count()
    }

    #[test]
    fn fixed_times_fire_once_on_dst_days() {
        for (tz, day) in [
            ("America/New_York", "2026-03-08"),
            ("America/New_York", "2026-11-01"),
            ("Europe/Berlin", "2026-03-29"),
            ("Europe/Berlin", "2026-10-25"),
        ] {
            for text in [
                "daily 02:30",
                "daily 01:30",
                "weekly sun 02:30",
                "cron \"30 2 * * *\"",
                "cron \"0 2 * * 0\"",
            ] {
                assert_eq!(fires_on(text, tz, day), 1, "{text} in {tz} on {day}");
            }
        }
        // An hourly task runs every real hour: 23 on a short day, 25 on a long one.
        assert_eq!(fires_on("hourly", "America/New_York", "2026-03-08"), 23);
        assert_eq!(fires_on("hourly", "America/New_York", "2026-11-01"), 25);
        assert_eq!(fires_on("hourly at :30", "Europe/Berlin", "2026-10-25"), 25);
    }

    /// The kinds computed here and croner's answer for their cron patterns agree, around every
    /// clock change of 2026 in zones with hour, half-hour and midnight transitions.
    #[test]
    fn simple_kinds_agree_with_their_cron_patterns() {
        let kinds = [
            ("hourly", "0 * * * *"),
            ("hourly at :30", "30 * * * *"),
            ("daily 00:00", "0 0 * * *"),
            ("daily 00:30", "30 0 * * *"),
            ("daily 01:30", "30 1 * * *"),
            ("daily 02:00", "0 2 * * *"),
            ("daily 02:30", "30 2 * * *"),
            ("daily 03:00", "0 3 * * *"),
            ("weekdays 02:15", "15 2 * * 1-5"),
            ("weekly sun 02:30", "30 2 * * 0"),
        ];
        let kinds: Vec<(Schedule, Schedule)> = kinds
            .iter()
            .map(|(text, pattern)| (schedule(text, Zone::UTC), Schedule::cron(pattern).unwrap()))
            .collect();
        for zone_name in [
            "America/New_York",
            "Europe/Berlin",
            "Australia/Lord_Howe",
            "America/Santiago",
            "America/Havana",
        ] {
            let tz = zone(zone_name);
            let mut noon = utc("2026-01-01T12:00:00Z");
            let mut changes = Vec::new();
            for _ in 0..365 {
                let next = noon + chrono::TimeDelta::days(1);
                let offset = |t: DateTime<Utc>| t.with_timezone(&tz).offset().fix();
                if offset(noon) != offset(next) {
                    changes.push(noon);
                }
                noon = next;
            }
            assert_eq!(changes.len(), 2, "{zone_name}");
            for change in changes {
                let mut start = change - chrono::TimeDelta::hours(30);
                while start < change + chrono::TimeDelta::hours(30) {
                    for (ours, theirs) in &kinds {
                        assert_eq!(
                            ours.upcoming(tz, start, 2),
                            theirs.upcoming(tz, start, 2),
                            "{ours} in {zone_name} after {start}"
                        );
                    }
                    start += chrono::TimeDelta::minutes(37);
                }
            }
        }
    }

    #[test]
    fn stored_form_round_trips() {
        let tz = zone("Europe/Berlin");
        for (input, stored) in [
            ("hourly", "hourly"),
            ("hourly at :05", "hourly at :05"),
            ("daily 9:05", "daily 09:05"),
            ("weekdays 18:00", "weekdays 18:00"),
            ("weekly Monday 07:15", "weekly mon 07:15"),
            ("weekly SAT 07:15", "weekly sat 07:15"),
            ("cron \"0  9 * *   1-5\"", "cron \"0 9 * * 1-5\""),
            ("cron 0 9 * * 1-5", "cron \"0 9 * * 1-5\""),
            ("once 2026-05-01T09:00", "once 2026-05-01T09:00:00+02:00"),
            ("once 2026-05-01 09:00:30", "once 2026-05-01T09:00:30+02:00"),
            (
                "once 2026-05-01T07:00:00Z",
                "once 2026-05-01T09:00:00+02:00",
            ),
            // A wall-clock time in the spring-forward gap moves to its end.
            ("once 2026-03-29T02:30", "once 2026-03-29T03:00:00+02:00"),
        ] {
            let parsed = schedule(input, tz);
            assert_eq!(parsed.to_string(), stored, "{input}");
            assert_eq!(schedule(stored, tz), parsed, "{stored}");
        }
        assert_eq!(
            Schedule::hourly(":07").unwrap().to_string(),
            "hourly at :07"
        );
        assert_eq!(Schedule::hourly("7").unwrap().to_string(), "hourly at :07");
        assert_eq!(Schedule::hourly("").unwrap().to_string(), "hourly");
    }

    #[test]
    fn bad_fields_are_named() {
        let tz = zone("UTC");
        let cases: &[(Result<Schedule, FieldError>, &str, &str)] = &[
            (
                Schedule::daily("25:00"),
                "daily",
                "hour 25 is out of range (00-23)",
            ),
            (
                Schedule::daily("12:60"),
                "daily",
                "minute 60 is out of range (00-59)",
            ),
            (Schedule::daily("9"), "daily", "not a time of day"),
            (Schedule::daily("9:5"), "daily", "not a time of day"),
            (Schedule::weekdays("noon"), "weekdays", "not a time of day"),
            (
                Schedule::weekly("funday", "09:00"),
                "weekly",
                "unknown weekday",
            ),
            (Schedule::weekly("mo", "09:00"), "weekly", "unknown weekday"),
            (Schedule::weekly("mon", "24:00"), "weekly", "hour 24"),
            (Schedule::hourly(":60"), "hourly", "from :00 to :59"),
            (Schedule::hourly("x"), "hourly", "from :00 to :59"),
            (
                Schedule::cron("61 * * * *"),
                "cron",
                "field 1 (minute) \"61\"",
            ),
            (
                Schedule::cron("0 24 * * *"),
                "cron",
                "field 2 (hour) \"24\"",
            ),
            (
                Schedule::cron("0 0 32 * *"),
                "cron",
                "field 3 (day-of-month) \"32\"",
            ),
            (
                Schedule::cron("0 0 * 13 *"),
                "cron",
                "field 4 (month) \"13\"",
            ),
            (
                Schedule::cron("0 0 * * 9"),
                "cron",
                "field 5 (day-of-week) \"9\"",
            ),
            (
                Schedule::cron("0 0 * * bogus"),
                "cron",
                "field 5 (day-of-week)",
            ),
            (Schedule::cron("0 0 * *"), "cron", "5 fields"),
            (Schedule::cron("0 0 0 * * *"), "cron", "5 fields"),
            (Schedule::cron(""), "cron", "empty"),
            (Schedule::cron("@reboot"), "cron", "unknown nickname"),
            (
                Schedule::once("tomorrow", tz),
                "once",
                "not an ISO date-time",
            ),
            (
                Schedule::once("2026-13-01T00:00", tz),
                "once",
                "not an ISO date-time",
            ),
            (
                parse_zone("Mars/Base").map(|_| Schedule::hourly("").unwrap()),
                "tz",
                "unknown time zone",
            ),
            (
                Schedule::parse("fortnightly", tz),
                "schedule",
                "expected hourly",
            ),
        ];
        for (result, field, reason) in cases {
            let err = result.as_ref().expect_err(reason);
            assert_eq!(err.field, *field, "{err}");
            assert!(err.reason.contains(reason), "{err} lacks {reason:?}");
        }
    }

    #[test]
    fn a_pattern_with_no_date_left_never_fires() {
        let tz = zone("UTC");
        let started = std::time::Instant::now();
        let never = Schedule::cron("0 0 30 2 *").unwrap();
        assert_eq!(never.next_after(tz, utc("2026-01-01T00:00:00Z")), None);
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn once_takes_every_iso_8601_form_with_an_offset() {
        let tz = parse_zone("Europe/Berlin").unwrap();
        let want = "2026-12-24T05:00:00Z";
        for text in [
            "2026-12-24T10:00+05:00",
            "2026-12-24T10:00:00+05:00",
            "2026-12-24T10:00:00.000+05:00",
            "2026-12-24 10:00+05:00",
            "2026-12-24T10:00+0500",
            "2026-12-24T10:00+05",
            "2026-12-24T05:00Z",
        ] {
            let schedule = Schedule::once(text, tz).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            let after = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
                .unwrap()
                .with_timezone(&Utc);
            let next = schedule.next_after(tz, after).expect("it fires");
            assert_eq!(
                next.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                want,
                "{text}"
            );
        }
        assert!(Schedule::once("2026-12-24T10:00+25:00", tz).is_err());
    }
}
