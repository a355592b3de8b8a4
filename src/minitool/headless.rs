//! The `ctx` members a headless host cannot honour, and what finch does with each: the one
//! table both `finch doctor` (which warns about packages that use them) and the runtime's node
//! bootstrap (which is handed this table as JSON when it is written, `host::runtime::protocol`)
//! go by, so the two cannot drift apart. "records" members are accepted and recorded as
//! contributions finch cannot show; "rejects" members return a promise that rejects; "shows"
//! members are shown as text where a person is and recorded where nobody is.
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
    /// Shown as text instead of the app's window (a unified diff on the terminal, or in the
    /// call's result for an MCP client), and only recorded when nobody is there to see it.
    Shows,
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
            Treatment::Shows => {
                "finch shows it as text (a unified diff on the terminal, or in the call's result for an MCP client) and only records it where nobody is there to see it (outside a call with no terminal: the mini tool's log)"
            }
        }
    }

    /// `finch doctor`'s warning about `file` using it.
    pub fn warning(&self, file: &str) -> String {
        match self.treatment {
            Treatment::Records | Treatment::Rejects => format!(
                "{file} uses ctx.{}, which finch cannot honour: {}",
                self.member,
                self.meaning()
            ),
            Treatment::Shows => format!(
                "{file} uses ctx.{}, which has no window under finch: {}",
                self.member,
                self.meaning()
            ),
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

const fn shows(member: &'static str, needle: &'static str) -> HeadlessMember {
    HeadlessMember {
        member,
        needle,
        treatment: Treatment::Shows,
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
    // The app's permission and question waits, newer than the published finch.d.ts (the public
    // finch-chan subscribes in activate()). finch's approvals are cards on its own terminal or
    // MCP client, not session waits: it has none to send.
    records("events.onInteractionWait", "onInteractionWait("),
    shows("ui.openDiff", "openDiff("),
    rejects("oauth", ".oauth."),
    rejects("navigation.openSession", "openSession("),
    rejects("browser.open", ".browser.open("),
];

/// The members of the table.
pub fn members() -> &'static [HeadlessMember] {
    MEMBERS
}

/// The table as the bootstrap takes it: `{"records": [{member, needle}], "rejects": [...],
/// "shows": [...]}`.
pub fn to_json() -> Value {
    let of = |t: Treatment| -> Vec<Value> {
        MEMBERS
            .iter()
            .filter(|m| m.treatment == t)
            .map(|m| json!({"member": m.member, "needle": m.needle}))
            .collect()
    };
    json!({
        "records": of(Treatment::Records),
        "rejects": of(Treatment::Rejects),
        "shows": of(Treatment::Shows),
    })
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
        assert_eq!(
            count("records") + count("rejects") + count("shows"),
            MEMBERS.len()
        );
        assert_eq!(
            doc["rejects"][0],
            json!({"member": "oauth", "needle": ".oauth."})
        );
    }
}
