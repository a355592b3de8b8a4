//! Mini tools on disk (SPEC §3): manifests and ids, where installs come from, the registry client,
//! archive extraction, installing into a tier, install records, enabled state, updating and
//! checking. Nothing here prints; commands in `cli::minitool` turn results into output.

pub mod add;
pub mod archive;
pub mod confine;
pub mod doctor;
pub mod enabled;
pub mod headless;
pub mod id;
pub mod install;
pub mod listing;
pub mod manifest;
pub mod net;
pub mod records;
pub mod registry;
pub mod remove;
pub mod source;
pub mod tier;
pub mod update;

use std::path::PathBuf;

use crate::error::{CommandError, ErrorKind};
use crate::store::{JsonError, LockError};

/// One mini tool put into a tier.
#[derive(Debug, Clone)]
pub struct Installed {
    pub id: String,
    pub display_name: String,
    pub version: Option<String>,
    pub package: Option<String>,
    pub path: PathBuf,
    pub linked: bool,
}

impl Installed {
    /// One item of `installed` in `add --json` (docs/json.md).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "id": self.id,
            "name": self.display_name,
            "package": self.package,
            "version": self.version,
            "path": self.path,
            "linked": self.linked,
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("No Finch extension found in {place}")]
    NoMiniTool { place: String },
    #[error("{place} is not a valid mini tool:\n  ✖ {}", problems.join("\n  ✖ "))]
    Invalid {
        place: String,
        problems: Vec<String>,
    },
    #[error(transparent)]
    Id(#[from] id::IdError),
    #[error(
        "\"{id}\" is already installed from package \"{existing}\"; refusing to replace it with package \"{incoming}\""
    )]
    Identity {
        id: String,
        existing: String,
        incoming: String,
    },
    #[error("refusing to install: the source {} and the install location {} overlap", from.display(), target.display())]
    Overlap { from: PathBuf, target: PathBuf },
    #[error("package entry \"{entry}\" {reason}; refusing to install")]
    UnsafeEntry { entry: String, reason: String },
    #[error("\"{id}\" is not installed in the {tier} tier")]
    NotInstalled { id: String, tier: &'static str },
    #[error(
        "\"{id}\" is a development link and cannot be updated; edit or build the source directory instead."
    )]
    DevLink { id: String },
    #[error("\"{id}\" has no install record and no package name to update from")]
    NoOrigin { id: String },
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error(transparent)]
    Json(#[from] JsonError),
    #[error(transparent)]
    Archive(#[from] archive::ArchiveError),
    #[error(transparent)]
    Registry(#[from] registry::RegistryError),
    #[error(transparent)]
    Source(#[from] source::SourceError),
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

impl Error {
    pub fn io(action: &'static str, path: &std::path::Path, source: std::io::Error) -> Error {
        Error::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    }
}

impl From<Error> for CommandError {
    fn from(err: Error) -> CommandError {
        let message = err.to_string();
        match err {
            Error::NoMiniTool { .. } => CommandError::failed(message)
                .with_code("no_minitool")
                .with_hint(
                    "a mini tool has a finch.json, or a package.json with a \"finch\" object",
                ),
            Error::Invalid { .. } => CommandError::failed(message)
                .with_code("invalid_manifest")
                .with_hint("run `finch doctor <path>` for the full report"),
            Error::Identity { .. } => CommandError::failed(message)
                .with_code("id_taken")
                .with_hint("remove the installed one first with `finch remove <id>`"),
            Error::NotInstalled { .. } => CommandError::not_found(message)
                .with_hint("run `finch list --all-tiers` to see what is installed"),
            Error::DevLink { .. } => CommandError::failed(message).with_code("dev_link"),
            Error::NoOrigin { id } => CommandError::failed(message).with_hint(format!(
                "reinstall it with `finch add <source>` (then `finch update {id}` works)"
            )),
            Error::Lock(LockError::Held { .. }) => CommandError::new(ErrorKind::Locked, message)
                .with_hint("wait for the other finch to finish, then try again"),
            Error::Json(j) if j.is_corrupt() => CommandError::failed(message)
                .with_code("corrupt_state")
                .with_hint("fix the file by hand, or run `finch doctor --state` to move it aside"),
            Error::Source(source::SourceError::MissingPath(_)) => CommandError::not_found(message),
            Error::Source(source::SourceError::Spec(ref r)) | Error::Registry(ref r) => {
                let code = registry_code(r);
                let hint = r.hint();
                let kind = match r {
                    registry::RegistryError::PackageNotFound { .. } => ErrorKind::NotFound,
                    _ => ErrorKind::Failed,
                };
                CommandError::new(kind, message)
                    .with_code(code)
                    .with_hints(hint)
            }
            Error::Archive(_) => CommandError::failed(message).with_code("unsafe_archive"),
            Error::UnsafeEntry { .. } => CommandError::failed(message).with_code("unsafe_package"),
            _ => CommandError::failed(message),
        }
    }
}

fn registry_code(err: &registry::RegistryError) -> &'static str {
    use registry::RegistryError as R;
    match err {
        R::InvalidSpec { .. } => "invalid_spec",
        R::NoRegistry => "no_registry",
        R::PackageNotFound { .. } => "package_not_found",
        R::UnknownTag { .. } | R::NoMatchingVersion { .. } | R::DanglingTag { .. } => {
            "no_matching_version"
        }
        R::IntegrityMismatch { .. } | R::MissingIntegrity { .. } | R::InvalidIntegrity { .. } => {
            "integrity"
        }
        R::Unauthorized { .. } => "unauthorized",
        R::Unreachable { .. } | R::Network { .. } | R::HttpStatus { .. } => "network",
        _ => "registry",
    }
}
