//! npm package specs (`name[@version|@range|@tag]`) and the registry path of a package name.
//!
//! Parsing follows npm's own rules (npm-package-arg, validate-npm-package-name for names that may
//! already exist) so a spec that works with `npm install` works here. It never touches the network
//! and never accepts the non-registry forms (git URLs, aliases, paths): the caller classifies those
//! before it gets here.

use std::fmt;

use nodejs_semver::{Range, Version};

use super::RegistryError;

/// The longest package name npm accepts.
const MAX_NAME_LEN: usize = 214;

/// A registry package and which of its versions is wanted.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageSpec {
    pub name: String,
    pub request: VersionRequest,
}

/// Which version of a package is wanted.
#[derive(Debug, Clone, PartialEq)]
pub enum VersionRequest {
    /// A bare name (or `@latest`): the `latest` dist-tag.
    Latest,
    /// One exact version, e.g. `1.2.3`.
    Exact(Version),
    /// A semver range, with its text as the user wrote it.
    Range(Range, String),
    /// A dist-tag other than `latest`, e.g. `next`.
    Tag(String),
}

impl PackageSpec {
    /// Parse `name`, `name@1.2.3`, `name@^1.2`, `name@next`, `@scope/name@~1.0`.
    pub fn parse(input: &str) -> Result<Self, RegistryError> {
        let spec = input.trim();
        let invalid = |reason: String| RegistryError::InvalidSpec {
            spec: spec.to_owned(),
            reason,
        };
        // A scoped name has its own leading `@`; the version part starts at the next one.
        let search_from = usize::from(spec.starts_with('@'));
        let (name, request) = match spec[search_from..].find('@') {
            Some(at) => spec.split_at(search_from + at),
            None => (spec, ""),
        };
        validate_name(name).map_err(invalid)?;
        let request =
            parse_request(request.strip_prefix('@').unwrap_or(request).trim()).map_err(invalid)?;
        Ok(Self {
            name: name.to_owned(),
            request,
        })
    }
}

impl fmt::Display for PackageSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.request {
            VersionRequest::Latest => f.write_str(&self.name),
            _ => write!(f, "{}@{}", self.name, self.request),
        }
    }
}

impl fmt::Display for VersionRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Latest => f.write_str("latest"),
            Self::Exact(version) => write!(f, "{version}"),
            Self::Range(_, written) => f.write_str(written),
            Self::Tag(tag) => f.write_str(tag),
        }
    }
}

/// Same order as npm-package-arg: an exact version, else a range, else a dist-tag.
fn parse_request(text: &str) -> Result<VersionRequest, String> {
    if text.is_empty() || text == "latest" {
        return Ok(VersionRequest::Latest);
    }
    if let Ok(version) = Version::parse(text) {
        return Ok(VersionRequest::Exact(version));
    }
    if let Ok(range) = Range::parse(text) {
        return Ok(VersionRequest::Range(range, text.to_owned()));
    }
    if text.chars().all(is_url_safe) {
        return Ok(VersionRequest::Tag(text.to_owned()));
    }
    Err(format!("`{text}` is not a version, a range or a dist-tag"))
}

/// What `encodeURIComponent` leaves alone; npm requires names and tags to survive it unchanged.
fn is_url_safe(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-_.!~*'()".contains(c)
}

/// validate-npm-package-name's rules for names that may exist in a registry (uppercase and the
/// legacy special characters are accepted, as npm does when installing).
fn validate_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the package name is empty".to_owned());
    }
    if name.len() > MAX_NAME_LEN {
        return Err(format!(
            "the package name is longer than {MAX_NAME_LEN} characters"
        ));
    }
    let bare = match name.strip_prefix('@') {
        Some(scoped) => {
            let Some((scope, bare)) = scoped.split_once('/') else {
                return Err("a scoped name looks like `@scope/name`".to_owned());
            };
            check_part(scope, "scope")?;
            bare
        }
        None => name,
    };
    check_part(bare, "name")?;
    if name.starts_with('.') || name.starts_with('_') {
        return Err("a package name cannot start with `.` or `_`".to_owned());
    }
    if ["node_modules", "favicon.ico"].contains(&name.to_ascii_lowercase().as_str()) {
        return Err(format!("`{name}` is not a valid package name"));
    }
    Ok(())
}

fn check_part(part: &str, what: &str) -> Result<(), String> {
    if part.is_empty() {
        return Err(format!("the package {what} is empty"));
    }
    match part.chars().find(|c| !is_url_safe(*c)) {
        Some(c) if c.is_whitespace() => Err("a package name cannot contain spaces".to_owned()),
        Some(c) => Err(format!("a package {what} cannot contain `{c}`")),
        None => Ok(()),
    }
}

/// The path of a package's packument below the registry root: `@scope/name` → `@scope%2fname`.
pub fn packument_path(name: &str) -> String {
    name.replacen('/', "%2f", 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(text: &str) -> VersionRequest {
        VersionRequest::Range(Range::parse(text).unwrap(), text.to_owned())
    }

    fn exact(text: &str) -> VersionRequest {
        VersionRequest::Exact(Version::parse(text).unwrap())
    }

    #[test]
    fn accepts_registry_specs() {
        let cases: &[(&str, &str, VersionRequest)] = &[
            ("left-pad", "left-pad", VersionRequest::Latest),
            ("left-pad@", "left-pad", VersionRequest::Latest),
            ("left-pad@latest", "left-pad", VersionRequest::Latest),
            ("  left-pad@1.3.0 ", "left-pad", exact("1.3.0")),
            ("left-pad@v1.3.0", "left-pad", exact("1.3.0")),
            ("a@1.0.0-beta.2", "a", exact("1.0.0-beta.2")),
            ("a@^1.2", "a", range("^1.2")),
            ("a@~1.2.0", "a", range("~1.2.0")),
            ("a@>=1.0.0 <2.0.0", "a", range(">=1.0.0 <2.0.0")),
            ("a@1.x || 3.x", "a", range("1.x || 3.x")),
            ("a@*", "a", range("*")),
            ("a@=1.2.3", "a", range("=1.2.3")),
            ("a@next", "a", VersionRequest::Tag("next".into())),
            ("@scope/name", "@scope/name", VersionRequest::Latest),
            ("@scope/name@^1.2", "@scope/name", range("^1.2")),
            (
                "@scope/name@beta",
                "@scope/name",
                VersionRequest::Tag("beta".into()),
            ),
            (
                "@finchtoys/minitool-api@2.0.1",
                "@finchtoys/minitool-api",
                exact("2.0.1"),
            ),
            ("JSONStream", "JSONStream", VersionRequest::Latest),
            ("a.b_c-d", "a.b_c-d", VersionRequest::Latest),
        ];
        for (input, name, request) in cases {
            let spec = PackageSpec::parse(input).unwrap_or_else(|err| panic!("{input}: {err}"));
            assert_eq!(&spec.name, name, "{input}");
            assert_eq!(&spec.request, request, "{input}");
        }
    }

    #[test]
    fn rejects_what_npm_rejects() {
        let cases: &[(&str, &str)] = &[
            ("", "empty"),
            ("@", "`@scope/name`"),
            ("@scope", "`@scope/name`"),
            ("@/name", "scope is empty"),
            ("@scope/", "name is empty"),
            ("a b", "spaces"),
            ("a/b", "cannot contain `/`"),
            ("@s/a/b", "cannot contain `/`"),
            (".hidden", "cannot start with"),
            ("_private", "cannot start with"),
            ("node_modules", "not a valid package name"),
            ("a@npm:b@1", "not a version, a range or a dist-tag"),
            ("a@git+https://x", "not a version, a range or a dist-tag"),
            ("a@some tag", "not a version, a range or a dist-tag"),
        ];
        for (input, needle) in cases {
            let err = PackageSpec::parse(input).expect_err(input).to_string();
            assert!(err.contains(needle), "{input}: {err}");
        }
        let long = "a".repeat(215);
        assert!(PackageSpec::parse(&long).is_err());
        assert!(PackageSpec::parse(&"a".repeat(214)).is_ok());
    }

    #[test]
    fn displays_as_written() {
        for input in ["a", "a@1.2.3", "a@^1.2", "@s/a@next", "a@1.x || 3.x"] {
            assert_eq!(PackageSpec::parse(input).unwrap().to_string(), input);
        }
    }

    #[test]
    fn escapes_scoped_packument_paths() {
        assert_eq!(packument_path("left-pad"), "left-pad");
        assert_eq!(packument_path("@scope/name"), "@scope%2fname");
    }
}
