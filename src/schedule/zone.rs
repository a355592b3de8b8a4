//! Time zones for schedules: `Zone`, an IANA zone usable with chrono (and so with croner), and
//! the local zone as an IANA name for tasks created without `--tz`.
//!
//! The zone rules come from the system's time zone database (`/usr/share/zoneinfo`, through
//! jiff; on Windows jiff's bundled copy), read once per zone and process. A copy compiled into
//! the binary (chrono-tz) would cost every finch command its relocation at start-up, which was
//! most of the start-up time of `finch list`.
//!
//! The local zone: the `TZ` variable when it names a zone (`Europe/Berlin`, `:Europe/Berlin`, or
//! a path into a zoneinfo directory), else the zone `/etc/localtime` links to, else
//! `/etc/timezone` (Debian), else `UTC`. A zone name is stored rather than an offset so that the
//! task follows daylight saving time.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::{Mutex, OnceLock};

use chrono::{FixedOffset, LocalResult, NaiveDate, NaiveDateTime, Offset, TimeZone};

/// An IANA time zone. Cheap to copy: the rules are loaded once per name and kept for the life of
/// the process (a run touches a handful of zones).
#[derive(Clone, Copy)]
pub struct Zone(&'static ZoneData);

struct ZoneData {
    name: &'static str,
    rules: jiff::tz::TimeZone,
}

static UTC_DATA: ZoneData = ZoneData {
    name: "UTC",
    rules: jiff::tz::TimeZone::UTC,
};

impl Zone {
    pub const UTC: Zone = Zone(&UTC_DATA);

    /// The zone's IANA name.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// Loads a zone by IANA name (`Europe/Berlin`); `None` for an unknown name.
    pub fn named(name: &str) -> Option<Zone> {
        let name = name.trim();
        if name.eq_ignore_ascii_case("UTC") {
            return Some(Zone::UTC);
        }
        static LOADED: OnceLock<Mutex<HashMap<String, Zone>>> = OnceLock::new();
        let mut loaded = LOADED
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(zone) = loaded.get(name) {
            return Some(*zone);
        }
        let rules = jiff::tz::TimeZone::get(name).ok()?;
        // Keep the database's spelling of the name (`europe/berlin` → `Europe/Berlin`).
        let canonical = rules.iana_name().unwrap_or(name).to_string();
        let data: &'static ZoneData = Box::leak(Box::new(ZoneData {
            name: Box::leak(canonical.into_boxed_str()),
            rules,
        }));
        loaded.insert(name.to_string(), Zone(data));
        Some(Zone(data))
    }

    /// The offset (and its abbreviation) in force at a UTC time.
    fn offset_at(self, utc: &NaiveDateTime) -> ZoneOffset {
        let at = jiff::Timestamp::new(utc.and_utc().timestamp(), 0)
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
        let info = self.0.rules.to_offset_info(at);
        let mut abbreviation = [0u8; ABBREVIATION_MAX];
        let text = info.abbreviation().as_bytes();
        let len = text.len().min(ABBREVIATION_MAX);
        abbreviation[..len].copy_from_slice(&text[..len]);
        ZoneOffset {
            zone: self,
            fixed: FixedOffset::east_opt(info.offset().seconds()).unwrap_or(UTC_OFFSET),
            abbreviation,
            abbreviation_len: len as u8,
        }
    }

    /// The offset of a local time that maps to the UTC time `local - seconds`.
    fn offset_of_local(self, local: &NaiveDateTime, seconds: i32) -> ZoneOffset {
        self.offset_at(&(*local - chrono::TimeDelta::seconds(i64::from(seconds))))
    }
}

/// Longest zone abbreviation kept (TZif abbreviations are 3 to 6 characters in practice).
const ABBREVIATION_MAX: usize = 16;

const UTC_OFFSET: FixedOffset = match FixedOffset::east_opt(0) {
    Some(o) => o,
    None => unreachable!(),
};

impl PartialEq for Zone {
    fn eq(&self, other: &Zone) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Zone {}

impl fmt::Debug for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing an unknown zone name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownZone;

impl FromStr for Zone {
    type Err = UnknownZone;

    fn from_str(name: &str) -> Result<Zone, UnknownZone> {
        Zone::named(name).ok_or(UnknownZone)
    }
}

/// The offset of a `Zone` at one instant, with the zone's abbreviation there.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ZoneOffset {
    zone: Zone,
    fixed: FixedOffset,
    abbreviation: [u8; ABBREVIATION_MAX],
    abbreviation_len: u8,
}

impl Offset for ZoneOffset {
    fn fix(&self) -> FixedOffset {
        self.fixed
    }
}

impl fmt::Debug for ZoneOffset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.fixed)
    }
}

/// The zone's abbreviation at that instant (`CET`, `EDT`), as `%Z` prints it.
impl fmt::Display for ZoneOffset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = &self.abbreviation[..usize::from(self.abbreviation_len)];
        match std::str::from_utf8(text) {
            Ok(abbreviation) if !abbreviation.is_empty() => f.write_str(abbreviation),
            _ => write!(f, "{}", self.fixed),
        }
    }
}

impl TimeZone for Zone {
    type Offset = ZoneOffset;

    fn from_offset(offset: &ZoneOffset) -> Zone {
        offset.zone
    }

    fn offset_from_local_date(&self, local: &NaiveDate) -> LocalResult<ZoneOffset> {
        match local.and_hms_opt(0, 0, 0) {
            Some(midnight) => self.offset_from_local_datetime(&midnight),
            None => LocalResult::None,
        }
    }

    fn offset_from_local_datetime(&self, local: &NaiveDateTime) -> LocalResult<ZoneOffset> {
        use chrono::{Datelike, Timelike};
        use jiff::tz::AmbiguousOffset;
        let civil = jiff::civil::DateTime::new(
            local.year() as i16,
            local.month() as i8,
            local.day() as i8,
            local.hour() as i8,
            local.minute() as i8,
            local.second() as i8,
            local.nanosecond().min(999_999_999) as i32,
        );
        let Ok(civil) = civil else {
            return LocalResult::None;
        };
        match self.0.rules.to_ambiguous_timestamp(civil).offset() {
            AmbiguousOffset::Unambiguous { offset } => {
                LocalResult::Single(self.offset_of_local(local, offset.seconds()))
            }
            AmbiguousOffset::Gap { .. } => LocalResult::None,
            AmbiguousOffset::Fold { before, after } => LocalResult::Ambiguous(
                self.offset_of_local(local, before.seconds()),
                self.offset_of_local(local, after.seconds()),
            ),
        }
    }

    fn offset_from_utc_date(&self, utc: &NaiveDate) -> ZoneOffset {
        self.offset_at(&utc.and_hms_opt(0, 0, 0).unwrap_or_default())
    }

    fn offset_from_utc_datetime(&self, utc: &NaiveDateTime) -> ZoneOffset {
        self.offset_at(utc)
    }
}

/// Resolves the local zone from the value of `TZ` and the system's files.
pub fn local_zone(tz_var: Option<&str>, localtime: &Path, timezone_file: &Path) -> Zone {
    let from_var = tz_var.and_then(|v| {
        let v = v.trim().trim_start_matches(':');
        zone_name(v).or_else(|| zone_in_path(v))
    });
    from_var
        .or_else(|| {
            let target = std::fs::read_link(localtime).ok()?;
            zone_in_path(&target.to_string_lossy())
        })
        .or_else(|| zone_name(std::fs::read_to_string(timezone_file).ok()?.trim()))
        .unwrap_or(Zone::UTC)
}

fn zone_name(name: &str) -> Option<Zone> {
    Zone::named(name)
}

/// `/usr/share/zoneinfo/Europe/Berlin` → `Europe/Berlin` (also `…/zoneinfo/posix/…`).
fn zone_in_path(path: &str) -> Option<Zone> {
    let (_, rest) = path.rsplit_once("zoneinfo/")?;
    let rest = rest
        .strip_prefix("posix/")
        .or_else(|| rest.strip_prefix("right/"))
        .unwrap_or(rest);
    zone_name(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tz_variable_then_localtime_link_then_utc() {
        let dir = tempfile::tempdir().unwrap();
        let none = dir.path().join("none");
        let zone = |var: Option<&str>, link: &Path| local_zone(var, link, &none).name().to_string();
        assert_eq!(zone(Some("Europe/Berlin"), &none), "Europe/Berlin");
        assert_eq!(zone(Some(":Asia/Tokyo"), &none), "Asia/Tokyo");
        assert_eq!(
            zone(Some("/usr/share/zoneinfo/America/New_York"), &none),
            "America/New_York"
        );
        assert_eq!(zone(Some("Not/AZone"), &none), "UTC");
        assert_eq!(zone(None, &none), "UTC");
        #[cfg(unix)]
        {
            let link = dir.path().join("localtime");
            std::os::unix::fs::symlink("/usr/share/zoneinfo/Europe/Paris", &link).unwrap();
            assert_eq!(zone(None, &link), "Europe/Paris");
            assert_eq!(zone(Some("Asia/Tokyo"), &link), "Asia/Tokyo");
        }
        let file = dir.path().join("timezone");
        std::fs::write(&file, "Australia/Sydney\n").unwrap();
        assert_eq!(local_zone(None, &none, &file).name(), "Australia/Sydney");
    }
}
