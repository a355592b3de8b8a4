//! `finch add`: turn any source of SPEC §3.3 into staged packages and install each of them.
//! A directory or archive that is not itself a mini tool is searched (directories 3 levels deep,
//! archives 5) and every valid mini tool found is installed; invalid ones are reported, not fatal,
//! unless nothing could be installed at all.

use std::path::{Path, PathBuf};

use super::archive::{self, ArchiveFormat, Limits};
use super::install::{self, Installer};
use super::manifest;
use super::net::LazyNetwork;
use super::records::{Location, Origin};
use super::registry::VersionRequest;
use super::source::Source;
use super::tier::Staging;
use super::{Error, Installed};

const DIRECTORY_SEARCH_DEPTH: usize = 3;
const ARCHIVE_SEARCH_DEPTH: usize = 5;

/// What one `add` did.
#[derive(Debug, Default)]
pub struct AddReport {
    pub installed: Vec<Installed>,
    /// Packages found but not installed, with why.
    pub skipped: Vec<(String, Error)>,
}

impl AddReport {
    /// The document of `add --json` (docs/json.md).
    pub fn to_json(&self) -> serde_json::Value {
        let installed: Vec<serde_json::Value> =
            self.installed.iter().map(Installed::to_json).collect();
        let skipped: Vec<serde_json::Value> = self
            .skipped
            .iter()
            .map(|(place, e)| serde_json::json!({"place": place, "error": e.to_string()}))
            .collect();
        serde_json::json!({"installed": installed, "skipped": skipped})
    }
}

/// Installs everything `source` holds. `network` is asked for only when the source needs it.
pub fn add(
    installer: &Installer,
    source: &Source,
    dev: bool,
    network: &LazyNetwork,
) -> Result<AddReport, Error> {
    match source {
        Source::Directory(dir) if dev => {
            each_root(dir, DIRECTORY_SEARCH_DEPTH, |root| installer.link_dev(root))
        }
        Source::Directory(dir) => each_root(dir, DIRECTORY_SEARCH_DEPTH, |root| {
            // Refuse an invalid package before copying anything into the tier.
            install::load_valid(root)?;
            let staging = new_staging(installer)?;
            let staged = staging.path().join("package");
            install::copy_package(root, &staged, &installer.tier_dir())?;
            installer.install_staged(
                &staged,
                &Origin::Local {
                    path: root.to_path_buf(),
                },
            )
        }),
        Source::ZipFile(path) => from_archive(installer, ArchiveFormat::Zip, path, path, &|_| {
            Origin::Zip {
                location: Location::File(path.clone()),
            }
        }),
        Source::TgzFile(path) => from_archive(installer, ArchiveFormat::Tgz, path, path, &|_| {
            Origin::Tgz {
                location: Location::File(path.clone()),
            }
        }),
        Source::ZipUrl(url) | Source::TgzUrl(url) => {
            let (format, ext) = match source {
                Source::ZipUrl(_) => (ArchiveFormat::Zip, "zip"),
                _ => (ArchiveFormat::Tgz, "tgz"),
            };
            let download = new_staging(installer)?;
            let file = download.path().join(format!("download.{ext}"));
            network.get()?.download_url(url, &file)?;
            let location = Location::Url(url.clone());
            let origin = |_: &Path| match format {
                ArchiveFormat::Zip => Origin::Zip {
                    location: location.clone(),
                },
                ArchiveFormat::Tgz => Origin::Tgz {
                    location: location.clone(),
                },
            };
            from_archive(installer, format, &file, Path::new(url), &origin)
        }
        Source::Npm(spec) => {
            let fetched = network.get()?.fetch_npm(spec)?;
            let origin = |_: &Path| Origin::Npm {
                package: fetched.name.clone(),
                version: fetched.version.clone(),
                integrity: fetched.integrity.clone(),
                spec: request_text(&spec.request),
            };
            let label = format!("{}@{}", fetched.name, fetched.version);
            from_archive(
                installer,
                ArchiveFormat::Tgz,
                &fetched.tarball,
                Path::new(&label),
                &origin,
            )
        }
    }
}

/// The version request as recorded in the install record; a bare name records nothing.
pub fn request_text(request: &VersionRequest) -> Option<String> {
    match request {
        VersionRequest::Latest => None,
        VersionRequest::Exact(v) => Some(v.to_string()),
        VersionRequest::Range(_, text) => Some(text.clone()),
        VersionRequest::Tag(tag) => Some(tag.clone()),
    }
}

pub fn new_staging(installer: &Installer) -> Result<Staging, Error> {
    let tier = installer.tier_dir();
    Staging::new(&tier).map_err(|e| Error::io("create a staging directory in", &tier, e))
}

/// Extracts an archive into a staging directory and finds the mini tools in it.
pub fn stage_archive(
    installer: &Installer,
    format: ArchiveFormat,
    file: &Path,
) -> Result<(Staging, Vec<PathBuf>), Error> {
    let staging = new_staging(installer)?;
    let root = staging.path().join("x");
    std::fs::create_dir(&root).map_err(|e| Error::io("create", &root, e))?;
    archive::extract(format, file, &root, &Limits::default())?;
    let roots = install::find_minitools(&root, ARCHIVE_SEARCH_DEPTH);
    Ok((staging, roots))
}

/// Extracts an archive into staging and installs every mini tool in it.
fn from_archive(
    installer: &Installer,
    format: ArchiveFormat,
    file: &Path,
    label: &Path,
    origin: &dyn Fn(&Path) -> Origin,
) -> Result<AddReport, Error> {
    let (staging, roots) = stage_archive(installer, format, file)?;
    if roots.is_empty() {
        return Err(Error::NoMiniTool {
            place: label.display().to_string(),
        });
    }
    let base = staging.path().join("x");
    collect(
        &roots,
        |r| installer.install_staged(r, &origin(r)),
        |r| {
            r.strip_prefix(&base)
                .map(|p| format!("{}/{}", label.display(), p.display()))
                .unwrap_or_default()
        },
    )
}

/// Finds the mini tools of a directory source and installs each.
fn each_root(
    dir: &Path,
    depth: usize,
    install: impl Fn(&Path) -> Result<Installed, Error>,
) -> Result<AddReport, Error> {
    let roots = if manifest::is_minitool_dir(dir) {
        vec![dir.to_path_buf()]
    } else {
        install::find_minitools(dir, depth)
    };
    if roots.is_empty() {
        return Err(Error::NoMiniTool {
            place: dir.display().to_string(),
        });
    }
    collect(&roots, install, |r| r.display().to_string())
}

/// One root: its error is the command's error. Several: install what can be, report the rest.
fn collect(
    roots: &[PathBuf],
    install: impl Fn(&Path) -> Result<Installed, Error>,
    describe: impl Fn(&Path) -> String,
) -> Result<AddReport, Error> {
    if let [only] = roots {
        return Ok(AddReport {
            installed: vec![install(only)?],
            skipped: Vec::new(),
        });
    }
    let mut report = AddReport::default();
    for root in roots {
        match install(root) {
            Ok(i) => report.installed.push(i),
            // A lock held by another finch stops the whole batch: retrying is the answer.
            Err(e @ Error::Lock(_)) => return Err(e),
            Err(e) => report.skipped.push((describe(root), e)),
        }
    }
    if report.installed.is_empty()
        && let Some((_, first)) = report.skipped.drain(..).next()
    {
        return Err(first);
    }
    Ok(report)
}
