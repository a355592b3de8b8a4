//! The npm registry client: which registry and token to use, what a package spec asks for, which
//! version a packument offers for it, and getting that version's tarball onto disk verified.
//!
//! This module owns everything between an npm spec and a verified `.tgz` in the download cache. It
//! never extracts or installs anything, never prints (status goes to the caller, except the download
//! progress bar it is asked for), never reads the process environment except through the inputs it
//! is given, and never hard-codes a registry host.

mod cache;
mod client;
mod integrity;
mod npmrc;
mod packument;
mod spec;
#[cfg(test)]
mod testing;

use std::path::PathBuf;

pub use cache::Cache;
pub use client::{ClientOptions, DownloadInfo, RegistryClient};
pub use integrity::{Integrity, Verifier};
pub use npmrc::{RegistryConfig, RegistryInputs, RegistrySource, resolve};
pub use packument::{Dist, Packument, VersionMeta};
pub use spec::{PackageSpec, VersionRequest, packument_path};

/// Everything that can go wrong between a package spec and a verified tarball on disk.
///
/// Messages start lowercase so they read well after `Error: `; none of them ever holds a token.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("invalid package spec `{spec}`: {reason}")]
    InvalidSpec { spec: String, reason: String },

    #[error("no npm registry is configured")]
    NoRegistry,

    #[error("registry URL `{url}` (from {origin}) is not an http(s) URL")]
    InvalidRegistryUrl { url: String, origin: String },

    #[error("package `{name}` was not found in the registry {registry}")]
    PackageNotFound { name: String, registry: String },

    #[error(
        "package `{name}` has no dist-tag `{tag}` (known tags: {})",
        list_or_none(known)
    )]
    UnknownTag {
        name: String,
        tag: String,
        known: Vec<String>,
    },

    #[error(
        "no version of `{name}` matches `{request}` (newest available: {})",
        list_or_none(newest)
    )]
    NoMatchingVersion {
        name: String,
        request: String,
        newest: Vec<String>,
    },

    #[error("dist-tag `{tag}` of `{name}` points to {version}, which the registry does not list")]
    DanglingTag {
        name: String,
        tag: String,
        version: String,
    },

    #[error("the registry lists no integrity or shasum for {name}@{version}")]
    MissingIntegrity { name: String, version: String },

    #[error("invalid integrity value `{value}`: {reason}")]
    InvalidIntegrity { value: String, reason: String },

    #[error("integrity mismatch: expected {expected}, got {actual}")]
    IntegrityMismatch { expected: String, actual: String },

    #[error("the tarball URL `{url}` of {name}@{version} is not an http(s) URL")]
    InvalidTarballUrl {
        name: String,
        version: String,
        url: String,
    },

    #[error("the registry answered an unreadable document for `{name}` ({url}): {detail}")]
    InvalidPackument {
        name: String,
        url: String,
        detail: String,
    },

    #[error("{url} answered HTTP {status}")]
    HttpStatus { url: String, status: u16 },

    #[error("{url} refused access (HTTP {status})")]
    Unauthorized {
        url: String,
        status: u16,
        token_sent: bool,
    },

    #[error("cannot reach {url}: {detail}")]
    Unreachable { url: String, detail: String },

    #[error("transfer from {url} failed: {detail}")]
    Network { url: String, detail: String },

    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("cannot set up the HTTP client: {detail}")]
    Client { detail: String },
}

impl RegistryError {
    /// What the user can do about it, when there is something to say.
    pub fn hint(&self) -> Option<String> {
        match self {
            Self::NoRegistry => Some(
                "pass --registry URL or set registry in <runtime>/config/finch.toml".to_owned(),
            ),
            Self::InvalidRegistryUrl { .. } => {
                Some("a registry URL starts with http:// or https://".to_owned())
            }
            Self::PackageNotFound { .. } => Some(
                "check the name; a private package needs a token in .npmrc, and one published \
                 elsewhere needs --registry URL"
                    .to_owned(),
            ),
            Self::UnknownTag { name, .. } | Self::NoMatchingVersion { name, .. } => Some(format!(
                "run `npm view {name} versions` to see every published version"
            )),
            Self::MissingIntegrity { .. } => Some(
                "finch installs only tarballs it can verify; ask the registry owner to publish \
                 dist.integrity"
                    .to_owned(),
            ),
            Self::IntegrityMismatch { .. } => Some(
                "the bytes received differ from what the registry published; retry, and check any \
                 mirror or proxy in between"
                    .to_owned(),
            ),
            Self::Unauthorized {
                url, token_sent, ..
            } => Some(if *token_sent {
                "the token in .npmrc was refused; renew it with `npm login`".to_owned()
            } else {
                format!(
                    "this registry needs a token: add `{}:_authToken=…` to .npmrc",
                    token_prefix_of(url)
                )
            }),
            Self::Unreachable { .. } => Some(
                "check the network or proxy; a package already in the cache installs offline"
                    .to_owned(),
            ),
            Self::HttpStatus { status, .. } if *status >= 500 || *status == 429 => {
                Some("the registry is busy or failing; try again later".to_owned())
            }
            _ => None,
        }
    }

    /// True when the registry could not be reached at all, so a cached packument may stand in.
    pub fn is_unreachable(&self) -> bool {
        matches!(self, Self::Unreachable { .. })
    }
}

fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}

/// `https://host:4873/path/pkg` → `//host:4873/`, the `.npmrc` key a token for that host would use.
fn token_prefix_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let host = rest.split('/').next().unwrap_or(rest);
    format!("//{host}/")
}

/// What [`resolve_and_fetch`] produced: a verified tarball on disk and how it got there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    pub name: String,
    pub version: String,
    pub tarball: PathBuf,
    /// The SRI string the tarball was verified against.
    pub integrity: String,
    /// The tarball came from the cache (no download happened).
    pub from_cache: bool,
    /// The registry was unreachable and the last cached packument was used instead.
    pub used_cached_packument: bool,
}

/// Resolve `spec` against the registry and leave its verified tarball in `cache`.
///
/// The packument is refreshed whenever the registry answers (and stored in the cache); only when
/// the registry cannot be reached at all does the cached copy stand in, so an offline run with
/// everything cached needs no network.
pub async fn resolve_and_fetch(
    client: &RegistryClient,
    cfg: &RegistryConfig,
    cache: &Cache,
    spec: &PackageSpec,
) -> Result<Fetched, RegistryError> {
    let (packument, used_cached_packument) = match client.fetch_packument(cfg, &spec.name).await {
        Ok(packument) => {
            cache.store_packument(&spec.name, &packument)?;
            (packument, false)
        }
        Err(err) if err.is_unreachable() => match cache.load_packument(&spec.name) {
            Some(packument) => (packument, true),
            None => return Err(err),
        },
        Err(err) => return Err(err),
    };
    let meta = packument.select(&spec.request)?;
    let expected = meta.expected_integrity()?;
    let version = meta.version.clone();
    if let Some(tarball) = cache.cached_tarball(&spec.name, &version, &expected) {
        return Ok(Fetched {
            name: spec.name.clone(),
            version,
            tarball,
            integrity: expected.to_string(),
            from_cache: true,
            used_cached_packument,
        });
    }
    let dest = cache.tarball_path(&spec.name, &version);
    let info = client.download(cfg, meta, &dest).await?;
    Ok(Fetched {
        name: spec.name.clone(),
        version,
        tarball: info.path,
        integrity: info.integrity,
        from_cache: false,
        used_cached_packument,
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::testing::{HELLO_SHA512, Reply, Server, block_on, config, packument_json};
    use super::*;

    fn client() -> RegistryClient {
        let _ = rustls::crypto::ring::default_provider().install_default();
        RegistryClient::new(ClientOptions {
            retries: 1,
            backoff_base: Duration::from_millis(5),
            ..ClientOptions::default()
        })
        .unwrap()
    }

    #[test]
    fn fetches_then_serves_everything_from_the_cache_offline() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().join("cache"));
        let spec = PackageSpec::parse("@s/tool@^1").unwrap();
        let server = Server::start(|url| {
            let tarball = format!("{url}@s/tool/-/tool-1.0.0.tgz");
            vec![
                Reply::new(200, packument_json("@s/tool", &tarball, HELLO_SHA512)),
                Reply::new(200, "hello"),
                Reply::new(200, packument_json("@s/tool", &tarball, HELLO_SHA512)),
            ]
        });
        let cfg = config(&server.url, dir.path(), "");
        let client = client();
        let tarball = cache.tarball_path("@s/tool", "1.0.0");
        let expected = |from_cache, used_cached_packument| Fetched {
            name: "@s/tool".into(),
            version: "1.0.0".into(),
            tarball: tarball.clone(),
            integrity: HELLO_SHA512.into(),
            from_cache,
            used_cached_packument,
        };

        let online = block_on(resolve_and_fetch(&client, &cfg, &cache, &spec)).unwrap();
        assert_eq!(online, expected(false, false));
        let cached = block_on(resolve_and_fetch(&client, &cfg, &cache, &spec)).unwrap();
        assert_eq!(cached, expected(true, false));
        assert_eq!(
            server.finish().len(),
            3,
            "the second run fetched only the packument"
        );

        let offline = block_on(resolve_and_fetch(&client, &cfg, &cache, &spec)).unwrap();
        assert_eq!(offline, expected(true, true));
        assert_eq!(std::fs::read(&tarball).unwrap(), b"hello");
    }

    #[test]
    fn offline_without_a_cached_packument_reports_the_network_error() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let closed = Server::start(|_| Vec::new());
        let url = closed.url.clone();
        closed.finish();
        let cfg = config(&url, dir.path(), "");
        let spec = PackageSpec::parse("tool").unwrap();
        let err = block_on(resolve_and_fetch(&client(), &cfg, &cache, &spec)).unwrap_err();
        assert!(err.is_unreachable(), "{err}");
        assert!(
            err.to_string()
                .starts_with(&format!("cannot reach {url}tool: ")),
            "{err}"
        );
    }

    #[test]
    fn messages_start_lowercase_and_hints_exist_where_they_help() {
        let cases = [
            RegistryError::NoRegistry,
            RegistryError::PackageNotFound {
                name: "a".into(),
                registry: "http://r/".into(),
            },
            RegistryError::Unauthorized {
                url: "http://r:8/a".into(),
                status: 401,
                token_sent: false,
            },
        ];
        for err in cases {
            let message = err.to_string();
            assert!(message.starts_with(|c: char| c.is_lowercase()), "{message}");
            assert!(err.hint().is_some(), "{message}");
        }
        let unauthorized = RegistryError::Unauthorized {
            url: "http://r:8/a".into(),
            status: 401,
            token_sent: false,
        };
        assert_eq!(
            unauthorized.hint().as_deref(),
            Some("this registry needs a token: add `//r:8/:_authToken=…` to .npmrc")
        );
    }
}
