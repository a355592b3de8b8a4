//! The `ctx` members this headless host cannot honour, read from the bootstrap's own `HEADLESS`
//! object (the one line after `// finch:headless` in `bootstrap.mjs`), so that `finch doctor`
//! and the bootstrap cannot drift apart. "records" members are accepted and recorded as
//! contributions finch cannot show; "rejects" members return a promise that rejects.

use std::sync::LazyLock;

use serde_json::Value;

use super::process::BOOTSTRAP;

/// What finch does with a member it cannot honour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Treatment {
    /// Accepted, recorded, and listed as a contribution finch cannot show.
    Records,
    /// Its promise rejects with an error saying finch is headless.
    Rejects,
}

/// One member of `ctx` finch cannot honour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadlessMember {
    /// `ui.createPanel`, `oauth`, …
    pub member: String,
    /// Text whose presence in a bundle shows the package uses it (`createPanel(`).
    pub needle: String,
    pub treatment: Treatment,
}

impl HeadlessMember {
    /// What it comes to under finch, for a person.
    pub fn meaning(&self) -> &'static str {
        match self.treatment {
            Treatment::Records => {
                "finch accepts it and shows nothing (a headless host has no window); `finch reload` lists it"
            }
            Treatment::Rejects => "it rejects under finch, a headless host",
        }
    }
}

static MEMBERS: LazyLock<Vec<HeadlessMember>> = LazyLock::new(|| parse(BOOTSTRAP));

/// The members of the shipped bootstrap.
pub fn members() -> &'static [HeadlessMember] {
    &MEMBERS
}

/// Reads the `HEADLESS` object of a bootstrap text; nothing when it is missing or malformed
/// (the unit test below keeps the shipped one well-formed).
fn parse(bootstrap: &str) -> Vec<HeadlessMember> {
    let Some(line) = bootstrap
        .split_once("// finch:headless\n")
        .and_then(|(_, rest)| rest.lines().next())
    else {
        return Vec::new();
    };
    let json = line
        .trim()
        .trim_start_matches("const HEADLESS =")
        .trim()
        .trim_end_matches(';');
    let Ok(doc) = serde_json::from_str::<Value>(json) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (key, treatment) in [
        ("records", Treatment::Records),
        ("rejects", Treatment::Rejects),
    ] {
        for item in doc.get(key).and_then(Value::as_array).into_iter().flatten() {
            if let (Some(member), Some(needle)) = (
                item.get("member").and_then(Value::as_str),
                item.get("needle").and_then(Value::as_str),
            ) {
                out.push(HeadlessMember {
                    member: member.to_string(),
                    needle: needle.to_string(),
                    treatment,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_list_parses_and_names_what_the_bootstrap_does() {
        let members = members();
        assert!(members.len() >= 12, "{members:?}");
        let (_, code) = BOOTSTRAP
            .split_once("// finch:headless\n")
            .and_then(|(_, rest)| rest.split_once('\n'))
            .unwrap();
        for m in members {
            // Each is treated as listed: recorded by that name, or rejecting under it.
            let used = match m.treatment {
                Treatment::Records => code.contains(&format!("\"{}\"", m.member)),
                Treatment::Rejects => {
                    code.contains(&format!("cannot(\"{}", m.member))
                        || code.contains(&format!("cannot(`{}.", m.member))
                }
            };
            assert!(
                used,
                "{} is not {:?} by the bootstrap",
                m.member, m.treatment
            );
        }
        for member in [
            "ui.createPanel",
            "ui.createCanvasWindow",
            "oauth",
            "browser.open",
        ] {
            assert!(members.iter().any(|m| m.member == member), "{member}");
        }
    }

    #[test]
    fn a_missing_or_broken_list_is_empty() {
        assert!(parse("no marker").is_empty());
        assert!(parse("// finch:headless\nconst HEADLESS = {oops;\n").is_empty());
    }
}
