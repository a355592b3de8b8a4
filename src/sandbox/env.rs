//! The environment of a fast-lane command: the few variables programs need to find themselves
//! and speak the user's language, and nothing that may hold a secret (tokens, keys, cloud
//! credentials). Names the user lists in `[sandbox] env` are added.

use std::ffi::OsString;

/// Variables kept by name.
pub const KEPT: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TZ",
];

/// Whether `name` is kept in a minimal environment (`extra`: `[sandbox] env`).
pub fn kept(name: &str, extra: &[String]) -> bool {
    KEPT.contains(&name) || name.starts_with("LC_") || extra.iter().any(|e| e == name)
}

/// The minimal environment drawn from `vars` (TMPDIR is set by the confinement itself).
pub fn minimal<'a>(
    vars: impl Iterator<Item = (&'a str, &'a OsString)>,
    extra: &[String],
) -> Vec<(String, OsString)> {
    vars.filter(|(name, _)| kept(name, extra))
        .map(|(name, value)| (name.to_string(), value.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_stay_out_and_named_variables_come_in() {
        let vars: Vec<(String, OsString)> = [
            ("PATH", "/usr/bin"),
            ("HOME", "/home/u"),
            ("LC_ALL", "C.UTF-8"),
            ("API_KEY", "s3cret"),
            ("AWS_SECRET_ACCESS_KEY", "x"),
            ("GITHUB_TOKEN", "y"),
            ("CARGO_HOME", "/opt/cargo"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), OsString::from(v)))
        .collect();
        let iter = || vars.iter().map(|(k, v)| (k.as_str(), v));
        let names =
            |env: Vec<(String, OsString)>| env.into_iter().map(|(k, _)| k).collect::<Vec<_>>();
        assert_eq!(names(minimal(iter(), &[])), ["PATH", "HOME", "LC_ALL"]);
        assert_eq!(
            names(minimal(iter(), &["CARGO_HOME".to_string()])),
            ["PATH", "HOME", "LC_ALL", "CARGO_HOME"]
        );
    }
}
