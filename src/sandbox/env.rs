//! The environments of confined commands. A fast-lane command gets a minimal one: the few
//! variables programs need to find themselves and speak the user's language, and nothing that
//! may hold a secret (tokens, keys, cloud credentials); names the user lists in
//! `[sandbox] env` are added. An approved command gets finch's own environment as
//! `[sandbox] approved_env` says (`ApprovedEnv`): by default without the variables whose names
//! say they hold a secret (`secret_name`), so that one approved `npm test` of a hostile
//! package does not see every token finch was started with.

use std::ffi::{OsStr, OsString};

/// Variables kept by name.
pub const KEPT: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TZ",
];

/// The words that make a variable's name a secret's (compared without regard to case).
pub const SECRET_WORDS: &[&str] = &["KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL"];

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

/// `[sandbox] approved_env`: what an approved command's environment is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ApprovedEnv {
    /// finch's own, without the variables whose names say they hold a secret (the default).
    #[default]
    StripSecrets,
    /// finch's own, whole.
    Inherit,
    /// The fast lane's minimal one.
    Minimal,
}

impl ApprovedEnv {
    pub const ALL: [ApprovedEnv; 3] = [
        ApprovedEnv::StripSecrets,
        ApprovedEnv::Inherit,
        ApprovedEnv::Minimal,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ApprovedEnv::StripSecrets => "strip-secrets",
            ApprovedEnv::Inherit => "inherit",
            ApprovedEnv::Minimal => "minimal",
        }
    }

    pub fn parse(text: &str) -> Option<ApprovedEnv> {
        ApprovedEnv::ALL.into_iter().find(|a| a.as_str() == text)
    }

    /// The environment an approved command starts with, drawn from finch's own `vars`
    /// (`extra`: `[sandbox] env`, which the minimal one adds).
    pub fn environment(
        self,
        vars: impl Iterator<Item = (OsString, OsString)>,
        extra: &[String],
    ) -> Vec<(OsString, OsString)> {
        vars.filter(|(name, _)| match self {
            ApprovedEnv::Inherit => true,
            ApprovedEnv::StripSecrets => !name.to_str().is_some_and(secret_name),
            ApprovedEnv::Minimal => name.to_str().is_some_and(|n| kept(n, extra)),
        })
        .collect()
    }

    /// The names among `vars` that `StripSecrets` leaves out, sorted: what a card says.
    /// Empty for the other two (a card says "minimal" or nothing).
    pub fn dropped<'a>(self, vars: impl Iterator<Item = &'a OsStr>) -> Vec<String> {
        if self != ApprovedEnv::StripSecrets {
            return Vec::new();
        }
        let mut names: Vec<String> = vars
            .filter_map(OsStr::to_str)
            .filter(|name| secret_name(name))
            .map(str::to_string)
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

/// Whether a variable's name says it holds a secret: it contains one of `SECRET_WORDS`
/// (`GITHUB_TOKEN`, `OPENAI_API_KEY`, `AWS_SECRET_ACCESS_KEY`, `PGPASSWORD`, `npm_config__authToken`).
pub fn secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_WORDS.iter().any(|w| upper.contains(w))
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

    #[test]
    fn approved_commands_lose_the_variables_that_name_a_secret() {
        let names = [
            "PATH",
            "GITHUB_TOKEN",
            "OPENAI_API_KEY",
            "AWS_SECRET_ACCESS_KEY",
            "PGPASSWORD",
            "npm_config__authToken",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "KEYBOARD_LAYOUT",
            "CARGO_HOME",
            "EDITOR",
        ];
        let os = || names.iter().map(OsStr::new);
        assert_eq!(
            ApprovedEnv::StripSecrets.dropped(os()),
            [
                "AWS_SECRET_ACCESS_KEY",
                "GITHUB_TOKEN",
                "GOOGLE_APPLICATION_CREDENTIALS",
                "KEYBOARD_LAYOUT",
                "OPENAI_API_KEY",
                "PGPASSWORD",
                "npm_config__authToken",
            ]
        );
        assert!(ApprovedEnv::Inherit.dropped(os()).is_empty());
        let vars = || {
            names
                .iter()
                .map(|n| (OsString::from(n), OsString::from("v")))
        };
        let kept = |mode: ApprovedEnv, extra: &[String]| -> Vec<String> {
            mode.environment(vars(), extra)
                .into_iter()
                .map(|(k, _)| k.to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(
            kept(ApprovedEnv::StripSecrets, &[]),
            ["PATH", "CARGO_HOME", "EDITOR"]
        );
        assert_eq!(kept(ApprovedEnv::Inherit, &[]).len(), names.len());
        assert_eq!(
            kept(ApprovedEnv::Minimal, &["EDITOR".to_string()]),
            ["PATH", "EDITOR"]
        );
        for a in ApprovedEnv::ALL {
            assert_eq!(ApprovedEnv::parse(a.as_str()), Some(a));
        }
        assert_eq!(ApprovedEnv::parse("none"), None);
    }
}
