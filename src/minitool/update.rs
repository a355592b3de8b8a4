//! `finch update`: refresh installed mini tools from where they came from (SPEC §3.4). The plan
//! follows the install record: npm → the newest version matching the recorded request; a local
//! directory or an archive → npm when it has a strictly newer version, else the recorded path or
//! URL again; no record → npm by the installed package name. A refresh whose files are identical
//! to the installed ones changes nothing and reports "already up to date".

use std::path::{Path, PathBuf};

use super::add::{new_staging, request_text, stage_archive};
use super::archive::ArchiveFormat;
use super::enabled::EnabledState;
use super::install::{self, Installer};
use super::manifest::{self, Manifest};
use super::net::{LazyNetwork, Network};
use super::records::{Location, LockRecords, Origin};
use super::registry::{PackageSpec, VersionRequest};
use super::source::SourceError;
use super::tier::{self, ENABLED_FILE, FINCH_ID_FILE, Staging};
use super::{Error, Installed};
use crate::store::DirLock;

/// The result of updating one mini tool, as printed and as `FINCH_CLI_RESULT_JSON`.
#[derive(Debug, Clone)]
pub struct UpdateOutcome {
    pub id: String,
    pub previous_id: Option<String>,
    pub display_name: String,
    pub previous_version: Option<String>,
    pub version: Option<String>,
    pub changed: bool,
    pub source: &'static str,
    /// The registry's `latest` when it is strictly newer than what the recorded range or tag
    /// allows: the install is held back, and saying "up to date" would be wrong.
    pub held_back: Option<HeldBack>,
}

/// A newer version outside the range or tag an npm install was made with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldBack {
    pub package: String,
    /// The recorded request, e.g. `^1` or `beta`.
    pub spec: String,
    pub latest: String,
}

impl UpdateOutcome {
    pub fn to_json(&self, dry_run: bool) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        // The official CLI's key order, so that the machine line is byte-identical.
        m.insert("id".into(), self.id.clone().into());
        if let Some(p) = &self.previous_id {
            m.insert("previousId".into(), p.clone().into());
        }
        m.insert("changed".into(), self.changed.into());
        m.insert(
            "previousVersion".into(),
            self.previous_version.clone().into(),
        );
        m.insert("version".into(), self.version.clone().into());
        m.insert("source".into(), self.source.into());
        if let Some(h) = &self.held_back {
            m.insert("pinned".into(), h.spec.clone().into());
            m.insert("latestVersion".into(), h.latest.clone().into());
        }
        if dry_run {
            m.insert("dryRun".into(), true.into());
        }
        serde_json::Value::Object(m)
    }
}

/// A new version, staged and checked, not yet swapped in.
struct Candidate {
    _staging: Staging,
    root: PathBuf,
    origin: Origin,
    held_back: Option<HeldBack>,
}

/// Updates `id` in the installer's tier. `network` is asked for only when npm is consulted.
pub fn update_one(
    installer: &Installer,
    id: &str,
    dry_run: bool,
    network: &LazyNetwork,
    note: &dyn Fn(String),
) -> Result<UpdateOutcome, Error> {
    let tier_dir = installer.tier_dir();
    let path = tier_dir.join(id);
    let meta = std::fs::symlink_metadata(&path).map_err(|_| Error::NotInstalled {
        id: id.to_string(),
        tier: installer.tier.name(),
    })?;
    let origin = LockRecords::load(&tier_dir)?.origin(id);
    if meta.file_type().is_symlink() || matches!(origin, Some(Origin::Dev { .. })) {
        return Err(Error::DevLink { id: id.to_string() });
    }
    let current = manifest::load(&path)?.ok_or_else(|| Error::NoMiniTool {
        place: path.display().to_string(),
    })?;
    let plan = match &origin {
        Some(Origin::Dev { .. }) => return Err(Error::DevLink { id: id.to_string() }),
        Some(Origin::Npm { package, spec, .. }) => {
            let request = match spec {
                Some(s) => PackageSpec::parse(&format!("{package}@{s}"))?.request,
                None => VersionRequest::Latest,
            };
            // An exact version says what was installed, not what to stay at: like the official
            // CLI, `update` moves it to `latest`. Ranges and tags are kept (README).
            let request = match request {
                VersionRequest::Exact(_) => VersionRequest::Latest,
                other => other,
            };
            let spec = PackageSpec {
                name: package.clone(),
                request,
            };
            npm_plan(installer, network.get()?, spec, &current, id, dry_run)?
        }
        Some(local @ Origin::Local { path: src }) => match newer_on_npm(&current, network, note) {
            Some((net, spec)) => npm_plan(installer, net, spec, &current, id, dry_run)?,
            None => {
                if !src.is_dir() {
                    return Err(Error::Source(SourceError::MissingPath(src.clone())));
                }
                let staging = new_staging(installer)?;
                let root = staging.path().join("package");
                install::copy_package(src, &root, &tier_dir)?;
                Plan::Stage(Candidate {
                    _staging: staging,
                    root,
                    origin: local.clone(),
                    held_back: None,
                })
            }
        },
        Some(archive @ (Origin::Zip { location } | Origin::Tgz { location })) => {
            match newer_on_npm(&current, network, note) {
                Some((net, spec)) => npm_plan(installer, net, spec, &current, id, dry_run)?,
                None => {
                    let format = match archive {
                        Origin::Zip { .. } => ArchiveFormat::Zip,
                        _ => ArchiveFormat::Tgz,
                    };
                    Plan::Stage(from_location(
                        installer,
                        format,
                        location,
                        network,
                        id,
                        archive.clone(),
                    )?)
                }
            }
        }
        None => {
            let Some(package) = current.package_name.clone() else {
                return Err(Error::NoOrigin { id: id.to_string() });
            };
            let spec = PackageSpec {
                name: package,
                request: VersionRequest::Latest,
            };
            npm_plan(installer, network.get()?, spec, &current, id, dry_run)?
        }
    };
    match plan {
        Plan::Done(outcome) => Ok(outcome),
        Plan::Stage(candidate) => finish(installer, &current, id, candidate, dry_run),
    }
}

/// One mini tool's part in updating a whole tier.
#[derive(Debug)]
pub enum BatchItem {
    /// A development link, skipped.
    Link {
        id: String,
    },
    Done(UpdateOutcome),
    Failed {
        id: String,
        error: Error,
    },
}

/// How a whole-tier update went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BatchSummary {
    pub updated: usize,
    pub current: usize,
    /// Unchanged, but a newer version is outside their recorded range or tag (not counted in
    /// `current`).
    pub held_back: usize,
    pub failed: usize,
}

impl BatchSummary {
    pub fn describe(&self) -> String {
        let held = if self.held_back > 0 {
            format!(", {} pinned behind a newer version", self.held_back)
        } else {
            String::new()
        };
        format!(
            "{} updated, {} already up to date{held}, {} failed",
            self.updated, self.current, self.failed
        )
    }
}

/// Updates every mini tool of the installer's tier (`update --all`), continuing past failures.
/// `each` hears every item as it is done; an error it returns stops the batch.
pub fn update_all<E: From<Error>>(
    installer: &Installer,
    dry_run: bool,
    network: &LazyNetwork,
    note: &dyn Fn(String),
    mut each: impl FnMut(BatchItem) -> Result<(), E>,
) -> Result<BatchSummary, E> {
    let tier_dir = installer.tier_dir();
    let entries = tier::scan(&tier_dir).map_err(|e| Error::io("read", &tier_dir, e))?;
    let mut summary = BatchSummary::default();
    for entry in entries {
        if entry.link.is_some() {
            each(BatchItem::Link { id: entry.dir_name })?;
            continue;
        }
        match update_one(installer, &entry.dir_name, dry_run, network, note) {
            Ok(o) => {
                if o.changed {
                    summary.updated += 1
                } else if o.held_back.is_some() {
                    summary.held_back += 1
                } else {
                    summary.current += 1
                }
                each(BatchItem::Done(o))?;
            }
            Err(error) => {
                summary.failed += 1;
                each(BatchItem::Failed {
                    id: entry.dir_name,
                    error,
                })?;
            }
        }
    }
    Ok(summary)
}

enum Plan {
    /// Nothing to download: up to date, or a dry run that knows the new version already.
    Done(UpdateOutcome),
    Stage(Candidate),
}

/// Resolves the npm version; downloads and stages it only when it differs and this is no dry run.
fn npm_plan(
    installer: &Installer,
    net: &Network,
    spec: PackageSpec,
    current: &Manifest,
    id: &str,
    dry_run: bool,
) -> Result<Plan, Error> {
    let newest = net.select_version(&spec.name, &spec.request)?;
    let held_back = match &spec.request {
        VersionRequest::Latest => None,
        request => held_back(net, &spec.name, request, &newest),
    };
    let outcome = UpdateOutcome {
        id: id.to_string(),
        previous_id: None,
        display_name: current.display_name(),
        previous_version: current.version.clone(),
        changed: current.version.as_deref() != Some(newest.as_str()),
        version: Some(newest),
        source: "npm",
        held_back,
    };
    if !outcome.changed || dry_run {
        return Ok(Plan::Done(outcome));
    }
    let mut candidate = from_npm(installer, net, &spec, id)?;
    candidate.held_back = outcome.held_back;
    Ok(Plan::Stage(candidate))
}

/// The registry's `latest` when it is strictly newer than `selected`, the best version
/// `request` allows. A registry that cannot say is no reason to fail the update.
fn held_back(
    net: &Network,
    package: &str,
    request: &VersionRequest,
    selected: &str,
) -> Option<HeldBack> {
    let latest = net.select_version(package, &VersionRequest::Latest).ok()?;
    let newer = match (
        nodejs_semver::Version::parse(&latest),
        nodejs_semver::Version::parse(selected),
    ) {
        (Ok(l), Ok(s)) => l > s,
        _ => false,
    };
    Some(HeldBack {
        package: package.to_string(),
        spec: request_text(request)?,
        latest,
    })
    .filter(|_| newer)
}

/// Asks npm whether it has a strictly newer version of the installed package. Any failure
/// (no registry configured, unreachable, unknown package) means "no" and is only noted.
fn newer_on_npm<'n>(
    current: &Manifest,
    network: &'n LazyNetwork,
    note: &dyn Fn(String),
) -> Option<(&'n Network, PackageSpec)> {
    let package = current.package_name.clone()?;
    let installed = nodejs_semver::Version::parse(current.version.as_deref()?).ok()?;
    let net = match network.get() {
        Ok(n) => n,
        Err(e) => {
            note(format!("not checking npm for {package}: {e}"));
            return None;
        }
    };
    match net.select_version(&package, &VersionRequest::Latest) {
        Ok(v) => {
            let newer = nodejs_semver::Version::parse(&v).is_ok_and(|v| v > installed);
            newer.then(|| {
                (
                    net,
                    PackageSpec {
                        name: package,
                        request: VersionRequest::Latest,
                    },
                )
            })
        }
        Err(e) => {
            note(format!("not checking npm for {package}: {e}"));
            None
        }
    }
}

fn from_npm(
    installer: &Installer,
    net: &Network,
    spec: &PackageSpec,
    id: &str,
) -> Result<Candidate, Error> {
    let fetched = net.fetch_npm(spec)?;
    let (staging, roots) = stage_archive(installer, ArchiveFormat::Tgz, &fetched.tarball)?;
    let root = pick_root(roots, id, &fetched.name)?;
    Ok(Candidate {
        _staging: staging,
        root,
        origin: Origin::Npm {
            package: fetched.name.clone(),
            version: fetched.version.clone(),
            integrity: fetched.integrity.clone(),
            spec: request_text(&spec.request),
        },
        held_back: None,
    })
}

fn from_location(
    installer: &Installer,
    format: ArchiveFormat,
    location: &Location,
    network: &LazyNetwork,
    id: &str,
    origin: Origin,
) -> Result<Candidate, Error> {
    let (download, file) = match location {
        Location::File(p) => {
            if !p.is_file() {
                return Err(Error::Source(SourceError::MissingPath(p.clone())));
            }
            (None, p.clone())
        }
        Location::Url(url) => {
            let staging = new_staging(installer)?;
            let file = staging.path().join("download");
            network.get()?.download_url(url, &file)?;
            (Some(staging), file)
        }
    };
    let (staging, roots) = stage_archive(installer, format, &file)?;
    drop(download);
    let root = pick_root(roots, id, "")?;
    Ok(Candidate {
        _staging: staging,
        root,
        origin,
        held_back: None,
    })
}

/// The staged package that is the installed one: the only one, or the one with the same id.
fn pick_root(roots: Vec<PathBuf>, id: &str, label: &str) -> Result<PathBuf, Error> {
    if roots.len() == 1 {
        return Ok(roots.into_iter().next().unwrap_or_default());
    }
    let matching = roots.iter().find(|r| {
        manifest::load(r)
            .ok()
            .flatten()
            .and_then(|m| m.runtime_id().ok())
            .is_some_and(|rid| rid == id)
    });
    matching.cloned().ok_or_else(|| Error::NoMiniTool {
        place: if label.is_empty() {
            format!("the source of {id}")
        } else {
            label.to_string()
        },
    })
}

/// Compares, then swaps the candidate in (unless identical, or a dry run).
fn finish(
    installer: &Installer,
    current: &Manifest,
    id: &str,
    c: Candidate,
    dry_run: bool,
) -> Result<UpdateOutcome, Error> {
    let next = install::load_valid(&c.root)?;
    let new_id = next.runtime_id()?;
    let same_files = same_tree(&current.dir, &c.root);
    let identical = new_id == id && same_files;
    let mut outcome = UpdateOutcome {
        id: new_id.clone(),
        previous_id: (new_id != id).then(|| id.to_string()),
        display_name: next.display_name(),
        previous_version: current.version.clone(),
        version: next.version.clone(),
        // An id migration with the same files still moves them, but the package did not change:
        // "already up to date" with `previousId`, as the official CLI reports it.
        changed: !same_files,
        source: c.origin.kind(),
        held_back: c.held_back.clone(),
    };
    if identical || dry_run {
        if identical {
            outcome.display_name = current.display_name();
        }
        return Ok(outcome);
    }
    let installed: Installed = installer.install_staged(&c.root, &c.origin)?;
    if installed.id != id {
        retire_old_id(installer, id, &installed.id)?;
    }
    Ok(outcome)
}

/// After an id migration: the old directory and record go; the mini tool's data directory and
/// its `extensions.json` record (enabled state, `grantedPermissions`, every other key) move
/// to the new id, as the official CLI moves them.
fn retire_old_id(installer: &Installer, old_id: &str, new_id: &str) -> Result<(), Error> {
    let tier_dir = installer.tier_dir();
    {
        let _lock = installer.lock_tier()?;
        let old = tier_dir.join(old_id);
        tier::remove_entry(&old).map_err(|e| Error::io("remove", &old, e))?;
        let mut records = LockRecords::load(&tier_dir)?;
        if records.remove(old_id) {
            records.save()?;
        }
    }
    let homes = installer.homes;
    let what = homes.extensions_json().display().to_string();
    let _lock = DirLock::acquire(&homes.runtime, &what, installer.lock_timeout)?;
    move_extension_data(&homes.extension_data(old_id), &homes.extension_data(new_id))?;
    let mut state = EnabledState::load(&homes.extensions_json())?;
    if state.migrate(old_id, new_id) {
        state.save()?;
    }
    Ok(())
}

/// Moves a mini tool's data directory to its new id: a rename when the new one does not exist,
/// else the files the new one lacks are moved in (its own files win) and the old one is
/// removed. Nothing to move is fine.
fn move_extension_data(old: &Path, new: &Path) -> Result<(), Error> {
    if std::fs::symlink_metadata(old).is_err() {
        return Ok(());
    }
    if std::fs::symlink_metadata(new).is_err() {
        if let Some(parent) = new.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
        }
        return std::fs::rename(old, new).map_err(|e| Error::io("move", old, e));
    }
    merge_missing(old, new)?;
    std::fs::remove_dir_all(old).map_err(|e| Error::io("remove", old, e))
}

/// Moves every entry of `from` that `into` lacks, descending into directories both have.
fn merge_missing(from: &Path, into: &Path) -> Result<(), Error> {
    let read = std::fs::read_dir(from).map_err(|e| Error::io("read", from, e))?;
    for item in read {
        let item = item.map_err(|e| Error::io("read", from, e))?;
        let (src, dst) = (item.path(), into.join(item.file_name()));
        match std::fs::symlink_metadata(&dst) {
            Err(_) => std::fs::rename(&src, &dst).map_err(|e| Error::io("move", &src, e))?,
            Ok(meta) if meta.is_dir() && item.file_type().is_ok_and(|t| t.is_dir()) => {
                merge_missing(&src, &dst)?
            }
            Ok(_) => {}
        }
    }
    Ok(())
}

/// Whether two package trees hold the same files, links and bytes (finch's and the app's
/// markers aside).
fn same_tree(a: &Path, b: &Path) -> bool {
    fn listing(root: &Path) -> Option<Vec<(PathBuf, Vec<u8>)>> {
        let mut out = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for item in std::fs::read_dir(&dir).ok()? {
                let item = item.ok()?;
                let path = item.path();
                let rel = path.strip_prefix(root).ok()?.to_path_buf();
                if rel == Path::new(ENABLED_FILE) || rel == Path::new(FINCH_ID_FILE) {
                    continue;
                }
                let meta = std::fs::symlink_metadata(&path).ok()?;
                if meta.is_dir() {
                    out.push((rel, b"/".to_vec()));
                    stack.push(path);
                } else if meta.file_type().is_symlink() {
                    let target = std::fs::read_link(&path).ok()?;
                    out.push((rel, format!("->{}", target.display()).into_bytes()));
                } else {
                    out.push((rel, std::fs::read(&path).ok()?));
                }
            }
        }
        out.sort();
        Some(out)
    }
    match (listing(a), listing(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}
