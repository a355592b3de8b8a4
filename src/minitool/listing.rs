//! What is installed, tier by tier, with each entry's enabled state and (when asked for) its
//! install record: the data behind `finch list` and the `MiniTool` tool's `list` and `reload`.
//! One broken entry never breaks a listing; it carries its problem instead.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::Error;
use super::enabled::EnabledState;
use super::manifest::Severity;
use super::records::LockRecords;
use super::tier::{self, TierEntry};
use crate::homes::{Homes, Tier};
use crate::store::JsonError;

/// npm's dependency folder, which an `npm install` run in a tier leaves there.
const NODE_MODULES: &str = "node_modules";

/// The entries of one tier.
#[derive(Debug)]
pub struct TierListing {
    pub tier: Tier,
    pub dir: PathBuf,
    pub entries: Vec<TierEntry>,
    /// The tier's install records; `None` when not asked for, or when the file is unreadable
    /// (a listing never fails on it).
    pub records: Option<LockRecords>,
}

/// The entries of some tiers and the enabled state they are shown with.
#[derive(Debug)]
pub struct Listing {
    pub state: EnabledState,
    /// Why `extensions.json` could not be read, when the listing went on without it: every
    /// entry is then shown as disabled (state unknown). Only [`list_despite_corrupt_state`]
    /// sets it.
    pub state_problem: Option<JsonError>,
    pub tiers: Vec<TierListing>,
}

impl Listing {
    /// `list --json`: one object per entry, tiers in the order listed (docs/json.md).
    pub fn to_json(&self) -> Value {
        let mut items = Vec::new();
        for t in &self.tiers {
            for e in &t.entries {
                let mut item = entry_json(e, t.tier, &self.state, t.records.as_ref());
                if self.state_problem.is_some() {
                    item["enabled"] = Value::Null;
                }
                items.push(item);
            }
        }
        Value::Array(items)
    }
}

/// Reads `extensions.json`, then scans each tier. A corrupt `extensions.json` or an unreadable
/// tier directory is an error; a broken entry is not.
pub fn list(homes: &Homes, tiers: &[Tier], with_records: bool) -> Result<Listing, Error> {
    let state = EnabledState::load(&homes.extensions_json())?;
    scan_tiers(homes, tiers, with_records, state, None)
}

/// [`list`] for `finch list`, which, like the official CLI, still lists every tool when
/// `extensions.json` is corrupt: the state is then unknown (shown as disabled) and the problem
/// is in `state_problem` for the caller to report. Nothing is written either way.
pub fn list_despite_corrupt_state(
    homes: &Homes,
    tiers: &[Tier],
    with_records: bool,
) -> Result<Listing, Error> {
    let path = homes.extensions_json();
    match EnabledState::load(&path) {
        Ok(state) => scan_tiers(homes, tiers, with_records, state, None),
        Err(e) if e.is_corrupt() => scan_tiers(
            homes,
            tiers,
            with_records,
            EnabledState::unknown(&path),
            Some(e),
        ),
        Err(e) => Err(e.into()),
    }
}

fn scan_tiers(
    homes: &Homes,
    tiers: &[Tier],
    with_records: bool,
    state: EnabledState,
    state_problem: Option<JsonError>,
) -> Result<Listing, Error> {
    let mut listed = Vec::new();
    for tier in tiers {
        let dir = homes.tier_dir(*tier);
        let entries = tier::scan(&dir).map_err(|e| Error::io("read", &dir, e))?;
        let records = if with_records {
            LockRecords::load(&dir).ok()
        } else {
            None
        };
        listed.push(TierListing {
            tier: *tier,
            dir,
            entries,
            records,
        });
    }
    Ok(Listing {
        state,
        state_problem,
        tiers: listed,
    })
}

/// Whether the app's tab-separated `list` format carries `e`. Like the official CLI, it leaves
/// out entries that are not valid mini tools (no manifest, fatal problems, `node_modules`); a
/// broken dev link stays, as its `linked-broken` line (SPEC §3.6). The table and `--json`
/// show every entry with its problems.
pub fn in_app_format(e: &TierEntry) -> bool {
    e.is_broken_link() || problems(e).is_empty()
}

/// The fatal problems of an entry: its manifest's, why it could not be read, or a broken link.
pub fn problems(e: &TierEntry) -> Vec<String> {
    if e.dir_name == NODE_MODULES {
        return vec!["node_modules is npm's dependency folder, not a mini tool".into()];
    }
    let mut problems = match &e.manifest {
        Ok(m) => m
            .check()
            .into_iter()
            .filter(|i| i.severity == Severity::Fatal)
            .map(|i| i.message)
            .collect(),
        Err(p) => vec![p.clone()],
    };
    if e.is_broken_link() && problems.is_empty() {
        problems.push("the link's target does not exist".into());
    }
    problems
}

/// One entry of `list --json`.
pub fn entry_json(
    e: &TierEntry,
    tier: Tier,
    state: &EnabledState,
    records: Option<&LockRecords>,
) -> Value {
    let record = records
        .and_then(|r| r.get(&e.dir_name))
        .cloned()
        .map(Value::Object);
    let (package, version, name, tools, permissions) = match &e.manifest {
        Ok(m) => (
            m.package_name.clone(),
            m.version.clone(),
            m.display_name(),
            m.declares_tools(),
            m.permissions()
                .cloned()
                .map(Value::Object)
                .unwrap_or(json!({})),
        ),
        Err(_) => (None, None, e.dir_name.clone(), false, json!({})),
    };
    json!({
        "id": e.dir_name,
        "name": name,
        "package": package,
        "version": version,
        "tier": tier.name(),
        "enabled": state.is_enabled(&e.dir_name),
        "linked": e.link.is_some(),
        "linkTarget": e.link,
        "source": record,
        "toolsDeclared": tools,
        "permissions": permissions,
        "path": e.path,
        "problems": problems(e),
    })
}
