//! The local time zone as an IANA name, for tasks created without `--tz`: the `TZ` variable when
//! it names a zone (`Europe/Berlin`, `:Europe/Berlin`, or a path into a zoneinfo directory), else
//! the zone `/etc/localtime` links to, else `/etc/timezone` (Debian), else `UTC`. A zone name is
//! stored rather than an offset so that the task follows daylight saving time.

use std::path::Path;

use chrono_tz::Tz;

/// Resolves the local zone from the value of `TZ` and the system's files.
pub fn local_zone(tz_var: Option<&str>, localtime: &Path, timezone_file: &Path) -> Tz {
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
        .unwrap_or(Tz::UTC)
}

fn zone_name(name: &str) -> Option<Tz> {
    name.parse().ok()
}

/// `/usr/share/zoneinfo/Europe/Berlin` → `Europe/Berlin` (also `…/zoneinfo/posix/…`).
fn zone_in_path(path: &str) -> Option<Tz> {
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
