//! The protocol between the host and the node bootstrap, in one place: every JSON-RPC method
//! either side sends is a variant of one of the four enums below (what the host asks and
//! pushes; what the bootstrap asks and tells), with its wire name. A message from the
//! bootstrap is decoded once, where it is read (`rpc::read_message`), into a `FromChild`: the
//! method as a variant and the parameters its handler reads, so nothing past the reader
//! matches method strings.
//!
//! The bootstrap gets its names from here, never the other way round: `bootstrap.mjs` holds
//! placeholders (`/*finch:methods*/`, `/*finch:headless*/`) that `bootstrap_text` fills with
//! these tables and with `minitool::headless`'s, when the bootstrap is written for node
//! (`process::ensure_bootstrap`). The bootstrap refuses a name it was not given, and the test
//! below fails when it uses a method Rust does not have, or Rust has one it never uses.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// One direction's methods: each variant has a wire name.
pub(crate) trait Method: Copy + 'static {
    /// Every method, in declaration order.
    const ALL: &'static [Self];

    /// The name on the wire.
    fn wire(self) -> &'static str;

    /// The method of a wire name.
    fn from_wire(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|m| m.wire() == name)
    }
}

/// Declares a method enum: its variants and their wire names. The bootstrap knows each by a
/// key made from the wire name (`key`: `storage.get` → `storageGet`, `$/cancel` → `cancel`).
macro_rules! methods {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $wire:literal,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) enum $name {
            $($(#[$vdoc])* $variant,)*
        }

        impl Method for $name {
            const ALL: &'static [$name] = &[$($name::$variant,)*];

            fn wire(self) -> &'static str {
                match self {
                    $($name::$variant => $wire,)*
                }
            }
        }
    };
}

methods! {
    /// What the host asks the bootstrap (requests; each gets an answer).
    HostRequest {
        Activate = "activate",
        Execute = "execute",
        Deactivate = "deactivate",
        /// A capability call of another mini tool, to the process providing it.
        CapabilityInvoke = "capability.invoke",
        Discover = "discover",
    }
}

methods! {
    /// What the host pushes to the bootstrap (notifications).
    HostPush {
        /// Abort the signal of a running `execute` (`{id, reason}`).
        Cancel = "$/cancel",
        Capabilities = "$/capabilities",
        AgentEvent = "$/agentEvent",
        Status = "$/status",
        Notification = "$/notification",
        SessionEvent = "$/sessionEvent",
    }
}

methods! {
    /// What the bootstrap asks the host (requests).
    ChildRequest {
        ToolsRegister = "tools.register",
        StorageGet = "storage.get",
        StorageSet = "storage.set",
        StorageDelete = "storage.delete",
        StorageClear = "storage.clear",
        StorageKeys = "storage.keys",
        SecretsGet = "secrets.get",
        SecretsSet = "secrets.set",
        SecretsDelete = "secrets.delete",
        CapabilitiesProvide = "capabilities.provide",
        CapabilitiesGetVersion = "capabilities.getVersion",
        CapabilitiesInvoke = "capabilities.invoke",
        MinitoolsList = "minitools.list",
        UiConfirm = "ui.confirm",
        UiModal = "ui.modal",
        UiForm = "ui.form",
        /// `ctx.ui.openDiff`: two texts the mini tool's process read, to show as a diff.
        UiOpenDiff = "ui.openDiff",
        StatusGet = "status.get",
        SpacesList = "spaces.list",
        SessionsCreate = "sessions.create",
        SessionsGet = "sessions.get",
        SessionsList = "sessions.list",
        SessionsSend = "sessions.send",
        SessionsWaitForTurn = "sessions.waitForTurn",
        SessionsListEvents = "sessions.listEvents",
        SessionsListWaits = "sessions.listWaits",
        SessionsRespondToWait = "sessions.respondToWait",
        SessionsWaitForWait = "sessions.waitForWait",
        AppearanceGet = "appearance.get",
        AppearanceSetTheme = "appearance.setTheme",
        AppearanceSetHomeBackground = "appearance.setHomeBackground",
    }
}

methods! {
    /// What the bootstrap tells the host (notifications).
    ChildNotification {
        ToolsUnregister = "tools.unregister",
        ToolsDiscovery = "tools.discovery",
        EventsListen = "events.listen",
        CapabilitiesRevoke = "capabilities.revoke",
        UiNotify = "ui.notify",
        UiUnsupported = "ui.unsupported",
        Progress = "progress",
        /// The mini tool's listeners got the durable session event `{sequence}`.
        SessionsAck = "sessions.ack",
    }
}

/// What a notification from the bootstrap says, decoded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Note {
    ToolsUnregister {
        name: String,
    },
    ToolsDiscovery {
        count: usize,
    },
    EventsListen {
        stream: String,
        on: bool,
    },
    CapabilitiesRevoke {
        name: String,
    },
    UiNotify(Notice),
    UiUnsupported {
        kind: String,
        detail: Option<String>,
    },
    /// `exec.progress.report(update)`; kept whole, since `ProgressState` reads several numbers.
    Progress(Value),
    SessionsAck {
        sequence: u64,
    },
}

/// `ctx.ui.showToast`/`notify`/`showMessage`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Notice {
    pub level: Option<String>,
    pub title: Option<String>,
    pub message: String,
}

/// The params of `ui.openDiff`: what `ctx.ui.openDiff({type: "files", leftPath, rightPath,
/// title})` read. The bootstrap reads both files in the mini tool's own process (under its own
/// confinement), so the host never reads a path on a mini tool's behalf.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct OpenDiff {
    #[serde(default)]
    pub title: Option<String>,
    pub left: DiffSide,
    pub right: DiffSide,
    /// The call it was asked in, when it was (see `Inner::dialog_route`).
    #[serde(default)]
    pub tool_call_id: Option<String>,
}

/// One side of `OpenDiff`: its path as the mini tool gave it, and its text (`None` when it was
/// larger than the bootstrap sends: `size` says how large).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub(crate) struct DiffSide {
    pub path: String,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub size: u64,
}

/// The most of one side's text the bootstrap sends with `ui.openDiff`.
pub(crate) const DIFF_SIDE_MAX: u64 = 1024 * 1024;

/// The params of `execute`, serialized straight onto the wire (no `Value` tree is built for a
/// call). `session` and `workspace` are sent when they changed since the process was last
/// told: its `ctx.session` and `ctx.workspace` keep them (`Inner::execute`).
#[derive(Debug, serde::Serialize)]
pub(crate) struct Execute<'a> {
    pub name: &'a str,
    pub input: &'a Value,
    pub exec: ExecInfo<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<WorkspaceView<'a>>,
}

/// `execute`'s `exec`: what the tool's second argument carries besides the host's objects.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExecInfo<'a> {
    pub tool_call_id: &'a str,
    pub session_id: &'a str,
    /// finch runs outside the app's spaces: always `null`.
    pub space_id: Option<&'a str>,
    #[serde(serialize_with = "lossy")]
    pub cwd: &'a Path,
}

/// `ctx.session` (`SessionInfo`): finch sessions have no title, space or known model.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SessionView<'a> {
    pub id: &'a str,
    pub title: Option<&'a str>,
    pub space_id: Option<&'a str>,
    #[serde(serialize_with = "lossy")]
    pub cwd: &'a Path,
    pub model: &'a str,
}

/// `ctx.workspace` (`WorkspaceInfo`, with finch's own `cwd`, `root` and `trustedDirs`): the
/// project is the root.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WorkspaceView<'a> {
    pub space_id: Option<&'a str>,
    pub space_name: Option<&'a str>,
    pub directory_path: Option<&'a str>,
    #[serde(serialize_with = "lossy")]
    pub project_path: &'a Path,
    #[serde(serialize_with = "lossy")]
    pub cwd: &'a Path,
    #[serde(serialize_with = "lossy")]
    pub root: &'a Path,
    #[serde(serialize_with = "lossy")]
    pub root_path: &'a Path,
    #[serde(serialize_with = "lossy_all")]
    pub trusted_dirs: &'a [PathBuf],
}

/// A path as text (a name that is not UTF-8 is shown with U+FFFD, never a serializing error).
fn lossy<S: serde::Serializer>(path: &&Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&path.to_string_lossy())
}

fn lossy_all<S: serde::Serializer>(paths: &&[PathBuf], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(paths.iter().map(|p| p.to_string_lossy()))
}

/// A message the bootstrap sent, decoded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FromChild {
    Request {
        id: Value,
        method: ChildRequest,
        params: Value,
    },
    /// A request naming a method the host does not have (answered "method not found").
    Unknown {
        id: Value,
        method: String,
    },
    Notification(Note),
}

impl FromChild {
    /// Decodes a request (`id` set) or a notification. A notification whose method or
    /// parameters the host does not know is `None`: it is dropped, as JSON-RPC allows.
    pub(crate) fn decode(id: Option<Value>, method: String, params: Value) -> Option<FromChild> {
        if let Some(id) = id {
            return Some(match ChildRequest::from_wire(&method) {
                Some(method) => FromChild::Request { id, method, params },
                None => FromChild::Unknown { id, method },
            });
        }
        let text = |k: &str| params.get(k).and_then(Value::as_str).map(str::to_string);
        let note = match ChildNotification::from_wire(&method)? {
            ChildNotification::ToolsUnregister => Note::ToolsUnregister {
                name: text("name")?,
            },
            ChildNotification::ToolsDiscovery => Note::ToolsDiscovery {
                count: params.get("count").and_then(Value::as_u64).unwrap_or(0) as usize,
            },
            ChildNotification::EventsListen => Note::EventsListen {
                stream: text("stream")?,
                on: params.get("on").and_then(Value::as_bool).unwrap_or(false),
            },
            ChildNotification::CapabilitiesRevoke => Note::CapabilitiesRevoke {
                name: text("name")?,
            },
            ChildNotification::UiNotify => Note::UiNotify(Notice {
                level: text("level"),
                title: text("title"),
                message: text("message").unwrap_or_default(),
            }),
            ChildNotification::UiUnsupported => Note::UiUnsupported {
                kind: text("kind").unwrap_or_else(|| "unknown".into()),
                detail: text("detail"),
            },
            ChildNotification::Progress => Note::Progress(params),
            ChildNotification::SessionsAck => Note::SessionsAck {
                sequence: params.get("sequence").and_then(Value::as_u64)?,
            },
        };
        Some(FromChild::Notification(note))
    }
}

/// The bootstrap's key for a wire name: `storage.get` → `storageGet`, `$/cancel` → `cancel`.
fn key(wire: &str) -> String {
    let mut out = String::new();
    for (i, part) in wire.trim_start_matches("$/").split('.').enumerate() {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            if i == 0 {
                out.push(first);
            } else {
                out.extend(first.to_uppercase());
            }
            out.extend(chars);
        }
    }
    out
}

fn table<'a>(names: impl Iterator<Item = &'a str>) -> Value {
    Value::Object(names.map(|w| (key(w), json!(w))).collect())
}

/// The methods as the bootstrap takes them: `{"host": {...}, "push": {...}, "request": {...},
/// "notify": {...}}`, each from its key to its wire name.
pub(crate) fn methods_json() -> Value {
    json!({
        "host": table(HostRequest::ALL.iter().map(|m| m.wire())),
        "push": table(HostPush::ALL.iter().map(|m| m.wire())),
        "request": table(ChildRequest::ALL.iter().map(|m| m.wire())),
        "notify": table(ChildNotification::ALL.iter().map(|m| m.wire())),
    })
}

/// Where the method tables go in `bootstrap.mjs`.
pub(crate) const METHODS_PLACEHOLDER: &str = "/*finch:methods*/null";
/// Where the headless table goes in `bootstrap.mjs`.
pub(crate) const HEADLESS_PLACEHOLDER: &str = "/*finch:headless*/null";

/// The bootstrap as node runs it: `source` with both tables filled in.
pub(crate) fn bootstrap_text(source: &str) -> String {
    source
        .replacen(METHODS_PLACEHOLDER, &methods_json().to_string(), 1)
        .replacen(
            HEADLESS_PLACEHOLDER,
            &crate::minitool::headless::to_json().to_string(),
            1,
        )
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::host::runtime::process::BOOTSTRAP_SOURCE;
    use crate::minitool::headless::{MEMBERS, Treatment};

    /// The keys the bootstrap's code uses of one of its tables (`M.request.storageGet`).
    fn used(table: &str) -> BTreeSet<String> {
        let needle = format!("M.{table}.");
        let mut out = BTreeSet::new();
        let mut rest = BOOTSTRAP_SOURCE;
        while let Some(at) = rest.find(&needle) {
            rest = &rest[at + needle.len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            out.insert(name);
        }
        out
    }

    fn keys(table: &str) -> BTreeSet<String> {
        methods_json()[table]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    }

    #[test]
    fn the_bootstrap_uses_exactly_the_methods_rust_has() {
        for table in ["host", "push", "request", "notify"] {
            assert_eq!(
                used(table),
                keys(table),
                "M.{table}: the bootstrap (left) and protocol.rs (right) disagree"
            );
        }
    }

    #[test]
    fn the_bootstrap_names_no_method_as_a_string() {
        for wire in ChildRequest::ALL
            .iter()
            .map(|m| m.wire())
            .chain(ChildNotification::ALL.iter().map(|m| m.wire()))
            .chain(HostRequest::ALL.iter().map(|m| m.wire()))
            .chain(HostPush::ALL.iter().map(|m| m.wire()))
        {
            // One-word names (`activate`, `discover`) are also ordinary words of the code.
            if !wire.contains(['.', '/']) {
                continue;
            }
            assert!(
                !BOOTSTRAP_SOURCE.contains(&format!("\"{wire}\"")),
                "bootstrap.mjs spells \"{wire}\" itself; use its M table"
            );
        }
    }

    #[test]
    fn the_filled_bootstrap_has_both_tables_and_no_placeholder() {
        assert!(BOOTSTRAP_SOURCE.contains(METHODS_PLACEHOLDER));
        assert!(BOOTSTRAP_SOURCE.contains(HEADLESS_PLACEHOLDER));
        let text = bootstrap_text(BOOTSTRAP_SOURCE);
        assert!(!text.contains("/*finch:"), "a placeholder is left");
        assert!(text.contains("\"storageGet\":\"storage.get\""));
        // Each headless member is treated as the table says: recorded by that name,
        // rejecting under it, or shown (a member of the bootstrap's ui that asks the host).
        for m in MEMBERS {
            let handled = match m.treatment {
                Treatment::Records => BOOTSTRAP_SOURCE.contains(&format!("\"{}\"", m.member)),
                Treatment::Rejects => {
                    BOOTSTRAP_SOURCE.contains(&format!("cannot(\"{}", m.member))
                        || BOOTSTRAP_SOURCE.contains(&format!("cannot(`{}.", m.member))
                }
                Treatment::Shows => m.member.strip_prefix("ui.").is_some_and(|name| {
                    BOOTSTRAP_SOURCE.contains(&format!("    {name}: (options) => {name}("))
                }),
            };
            assert!(
                handled,
                "{} is not {:?} by the bootstrap",
                m.member, m.treatment
            );
        }
    }

    #[test]
    fn keys_are_camel_case_wire_names() {
        assert_eq!(key("storage.get"), "storageGet");
        assert_eq!(key("sessions.waitForTurn"), "sessionsWaitForTurn");
        assert_eq!(key("$/agentEvent"), "agentEvent");
        assert_eq!(key("progress"), "progress");
    }

    #[test]
    fn notifications_decode_to_typed_notes() {
        let note = |m: &str, p: Value| FromChild::decode(None, m.into(), p);
        assert_eq!(
            note("events.listen", json!({"stream": "status", "on": true})),
            Some(FromChild::Notification(Note::EventsListen {
                stream: "status".into(),
                on: true
            }))
        );
        assert_eq!(note("tools.unregister", json!({})), None);
        assert_eq!(note("no.such", json!({})), None);
        assert_eq!(
            FromChild::decode(Some(json!(3)), "no.such".into(), Value::Null),
            Some(FromChild::Unknown {
                id: json!(3),
                method: "no.such".into()
            })
        );
        assert!(matches!(
            FromChild::decode(Some(json!(4)), "storage.get".into(), json!({"key": "k"})),
            Some(FromChild::Request {
                method: ChildRequest::StorageGet,
                ..
            })
        ));
    }
}
