//! The `ctx` members a headless host cannot honour, and what finch does with each: the one
//! table both `finch doctor` (which warns about packages that use them) and the runtime's node
//! bootstrap (which is handed this table as JSON when it is written, `host::runtime::protocol`)
//! go by, so the two cannot drift apart. "records" members are accepted and recorded as
//! contributions finch cannot show; "rejects" members return a promise that rejects.
//!
//! It must stay data: no I/O, nothing of the host.

use serde_json::{Value, json};

/// What finch does with a member it cannot honour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Treatment {
    /// Accepted, recorded, and listed as a contribution finch cannot show.
    Records,
    /// Its promise rejects with an error saying finch is headless.
    Rejects,
}

/// One member of `ctx` finch cannot honour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeadlessMember {
    /// `ui.createPanel`, `oauth`, …
    pub member: &'static str,
    /// Text whose presence in a bundle shows the package uses it (`createPanel(`).
    pub needle: &'static str,
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

const fn records(member: &'static str, needle: &'static str) -> HeadlessMember {
    HeadlessMember {
        member,
        needle,
        treatment: Treatment::Records,
    }
}

const fn rejects(member: &'static str, needle: &'static str) -> HeadlessMember {
    HeadlessMember {
        member,
        needle,
        treatment: Treatment::Rejects,
    }
}

/// Every member finch cannot honour.
pub const MEMBERS: &[HeadlessMember] = &[
    records("ui.openFilePreview", "openFilePreview("),
    records("ui.createPanel", "createPanel("),
    records("ui.onDidOpenPanel", "onDidOpenPanel("),
    records("ui.createCanvasWindow", "createCanvasWindow("),
    records("ui.delivery", "delivery.set("),
    records("composerActions.register", "composerActions.register("),
    records("settingsMenu.register", "settingsMenu.register("),
    records(
        "sessionContainers.registerSettingsMenu",
        "registerSettingsMenu(",
    ),
    records("icons.register", "icons.register("),
    rejects("oauth", ".oauth."),
    rejects("navigation.openSession", "openSession("),
    rejects("browser.open", ".browser.open("),
];

/// The members of the table.
pub fn members() -> &'static [HeadlessMember] {
    MEMBERS
}

/// The table as the bootstrap takes it: `{"records": [{member, needle}], "rejects": [...]}`.
pub fn to_json() -> Value {
    let of = |t: Treatment| -> Vec<Value> {
        MEMBERS
            .iter()
            .filter(|m| m.treatment == t)
            .map(|m| json!({"member": m.member, "needle": m.needle}))
            .collect()
    };
    json!({"records": of(Treatment::Records), "rejects": of(Treatment::Rejects)})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_member_is_named_once_and_has_a_needle() {
        for (i, m) in MEMBERS.iter().enumerate() {
            assert!(!m.needle.is_empty(), "{m:?}");
            assert!(
                MEMBERS[i + 1..].iter().all(|o| o.member != m.member),
                "{} twice",
                m.member
            );
        }
    }

    #[test]
    fn the_json_keeps_every_member_under_its_treatment() {
        let doc = to_json();
        let count = |k: &str| doc[k].as_array().map_or(0, Vec::len);
        assert_eq!(count("records") + count("rejects"), MEMBERS.len());
        assert_eq!(
            doc["rejects"][0],
            json!({"member": "oauth", "needle": ".oauth."})
        );
    }
}
