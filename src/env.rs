//! A snapshot of the process environment taken once at start-up. Everything below `lib.rs` reads
//! variables from this value, never from `std::env`, so that resolution is testable and visible.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;

#[derive(Debug, Clone, Default)]
pub struct Env {
    vars: BTreeMap<String, OsString>,
}

impl Env {
    pub fn from_process() -> Env {
        Env {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v)))
                .collect(),
        }
    }

    #[cfg(test)]
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Env {
        Env {
            vars: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), OsString::from(v)))
                .collect(),
        }
    }

    /// Every variable, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &OsString)> {
        self.vars.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// A variable that is set to something non-empty and valid UTF-8.
    pub fn get(&self, key: &str) -> Option<String> {
        self.vars
            .get(key)
            .and_then(|v| v.to_str())
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    }

    pub fn get_path(&self, key: &str) -> Option<PathBuf> {
        self.vars
            .get(key)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    }

    /// The user's home directory: `HOME` (or `USERPROFILE` on Windows).
    pub fn home_dir(&self) -> Option<PathBuf> {
        self.get_path("HOME")
            .or_else(|| self.get_path("USERPROFILE"))
            .or_else(|| directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf()))
    }
}
