//! Runtime ids of mini tools (SPEC §3.2): derived from `package.json#name` when there is one
//! (`@scope/name` → `scope@name`, other characters outside `[a-zA-Z0-9._-]` → `-`), else taken
//! from `finch.id`. The id names the install directory, so it must be a safe single path segment.

/// The longest id accepted (npm's limit on package names).
const MAX_ID_LEN: usize = 214;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    #[error("the mini tool has no id: give package.json a \"name\" or the manifest an \"id\"")]
    Missing,
    #[error(
        "\"{0}\" is not a valid mini tool id (letters, digits, '.', '_', '-', starting with a letter or digit)"
    )]
    Invalid(String),
}

/// Derives the runtime id from the package name, falling back to `finch.id`.
pub fn derive_id(package_name: Option<&str>, finch_id: Option<&str>) -> Result<String, IdError> {
    let id = match package_name.map(str::trim).filter(|n| !n.is_empty()) {
        Some(name) => match name.strip_prefix('@').and_then(|s| s.split_once('/')) {
            Some((scope, rest)) => format!("{}@{}", sanitize(scope), sanitize(rest)),
            None => sanitize(name),
        },
        None => finch_id
            .map(str::trim)
            .filter(|i| !i.is_empty())
            .ok_or(IdError::Missing)?
            .to_string(),
    };
    validate_runtime_id(&id)?;
    Ok(id)
}

fn sanitize(part: &str) -> String {
    part.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// The `finch.id` manifest field: `^[a-zA-Z0-9][a-zA-Z0-9._-]*$`.
pub fn is_valid_manifest_id(id: &str) -> bool {
    is_segment(id)
}

/// A runtime id: a manifest-style id, or `scope@name` made of two of them.
pub fn validate_runtime_id(id: &str) -> Result<(), IdError> {
    let ok = id.len() <= MAX_ID_LEN
        && match id.split_once('@') {
            Some((scope, name)) => is_segment(scope) && is_segment(name),
            None => is_segment(id),
        };
    if ok {
        Ok(())
    } else {
        Err(IdError::Invalid(id.to_string()))
    }
}

fn is_segment(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivation_table() {
        type Case<'a> = (Option<&'a str>, Option<&'a str>, Result<&'a str, IdError>);
        let cases: &[Case] = &[
            (Some("weather"), None, Ok("weather")),
            (Some("weather"), Some("other"), Ok("weather")),
            (Some("@acme/weather"), None, Ok("acme@weather")),
            (Some("@acme/weather.v2"), Some("x"), Ok("acme@weather.v2")),
            (Some("my tool!"), None, Ok("my-tool-")),
            (None, Some("from-manifest"), Ok("from-manifest")),
            (Some("  "), Some("fallback"), Ok("fallback")),
            (None, None, Err(IdError::Missing)),
            (None, Some("-bad"), Err(IdError::Invalid("-bad".into()))),
            (
                Some("_private"),
                None,
                Err(IdError::Invalid("_private".into())),
            ),
            (Some("@/x"), None, Err(IdError::Invalid("@x".into()))),
        ];
        for (name, id, want) in cases {
            let got = derive_id(*name, *id);
            assert_eq!(got, want.clone().map(String::from), "{name:?} {id:?}");
        }
    }

    #[test]
    fn manifest_ids() {
        assert!(is_valid_manifest_id("a.b_c-1"));
        for bad in ["", ".a", "a/b", "a@b", "a b", "ü"] {
            assert!(!is_valid_manifest_id(bad), "{bad}");
        }
    }
}
