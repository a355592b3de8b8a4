//! HTTP against an npm registry: packument requests and tarball downloads, with timeouts, retries
//! and bearer tokens (SPEC §4).
//!
//! A download streams to `<dest>.partial` while hashing and is renamed into place only once its
//! integrity checks out, so `dest` is either absent or verified. This module never sends a token to
//! a URL outside the token's `//host/path/` prefix, never puts one in an error, and never prints
//! except the progress bar it is asked for.

use std::error::Error as _;

use std::path::{Path, PathBuf};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use reqwest::header::{ACCEPT, ACCEPT_ENCODING, RETRY_AFTER};
use reqwest::{StatusCode, Url};
use tokio::io::AsyncWriteExt as _;

use super::RegistryError;
use super::integrity::Verifier;
use super::npmrc::RegistryConfig;
use super::packument::{Packument, VersionMeta};
use super::spec::packument_path;

/// The abbreviated-metadata request; a registry may still answer the full document as JSON.
const PACKUMENT_ACCEPT: &str =
    "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*";

/// No wait between attempts is longer than this, whatever `Retry-After` says.
const MAX_RETRY_DELAY: Duration = Duration::from_secs(30);

/// Timeouts and retry policy, resolved by the caller from flags and config.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    pub connect_timeout: Duration,
    /// Longest silence while waiting for response bytes.
    pub read_timeout: Duration,
    /// Extra attempts after the first, for transient failures only.
    pub retries: u32,
    /// First backoff delay; each retry doubles it, with jitter.
    pub backoff_base: Duration,
    /// Draw a download progress bar on stderr.
    pub show_progress: bool,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(30),
            retries: 3,
            backoff_base: Duration::from_millis(250),
            show_progress: false,
        }
    }
}

/// A verified tarball written by [`RegistryClient::download`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DownloadInfo {
    pub path: PathBuf,
    /// The SRI string of the bytes written (same algorithm as the expected one).
    pub integrity: String,
    pub size: u64,
}

/// The registry client: one connection pool for the whole process.
#[derive(Debug, Clone)]
pub struct RegistryClient {
    http: reqwest::Client,
    options: ClientOptions,
}

/// The outcome of one failed attempt: worth another try or not.
enum Failure {
    Transient {
        error: RegistryError,
        retry_after: Option<Duration>,
    },
    Fatal(RegistryError),
}

impl From<RegistryError> for Failure {
    fn from(error: RegistryError) -> Self {
        Self::Fatal(error)
    }
}

impl RegistryClient {
    /// Build the client. The caller must have installed a rustls crypto provider.
    pub fn new(options: ClientOptions) -> Result<Self, RegistryError> {
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            // reqwest would panic; say what is missing instead.
            return Err(RegistryError::Client {
                detail: "no TLS crypto provider is installed".to_owned(),
            });
        }
        let http = reqwest::Client::builder()
            .user_agent(concat!("finch/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(options.connect_timeout)
            .read_timeout(options.read_timeout)
            .gzip(true)
            .build()
            .map_err(|err| RegistryError::Client {
                detail: describe(err),
            })?;
        Ok(Self { http, options })
    }

    /// Fetch and parse the packument of `name` from the registry `cfg` assigns to it.
    pub async fn fetch_packument(
        &self,
        cfg: &RegistryConfig,
        name: &str,
    ) -> Result<Packument, RegistryError> {
        let registry = cfg.registry_for(name);
        let url = format!("{registry}{}", packument_path(name));
        let url = Url::parse(&url).map_err(|_| RegistryError::InvalidRegistryUrl {
            url: url.clone(),
            origin: cfg.source.to_string(),
        })?;
        let token = cfg.token_for(url.as_str());
        let body = self
            .with_retries(async || {
                let response = self.send(&url, token, PACKUMENT_ACCEPT, false).await?;
                let response = match response.status() {
                    StatusCode::NOT_FOUND => {
                        return Err(Failure::Fatal(RegistryError::PackageNotFound {
                            name: name.to_owned(),
                            registry: shown_str(registry),
                        }));
                    }
                    _ => check_status(response, token.is_some())?,
                };
                response
                    .bytes()
                    .await
                    .map_err(|err| network_failure(err, &url))
            })
            .await?;
        Packument::from_json(&body, name).map_err(|err| RegistryError::InvalidPackument {
            name: name.to_owned(),
            url: shown(&url),
            detail: err.to_string(),
        })
    }

    /// Download `meta`'s tarball to `dest`, verified against its published integrity.
    ///
    /// Bytes go to `<dest>.partial` first; on any failure that file is removed and `dest` is left
    /// as it was.
    pub async fn download(
        &self,
        cfg: &RegistryConfig,
        meta: &VersionMeta,
        dest: &Path,
    ) -> Result<DownloadInfo, RegistryError> {
        let expected = meta.expected_integrity()?;
        let url = tarball_url(cfg, meta)?;
        let label = format!("{}@{}", meta.name, meta.version);
        self.fetch_to_file(cfg, &url, dest, &label, || expected.verifier())
            .await
    }

    /// Download an archive URL (`finch add https://…/tool.tgz`) to `dest`. Such URLs publish no
    /// integrity, so the SRI returned is the sha512 of what arrived.
    pub async fn download_url(
        &self,
        cfg: &RegistryConfig,
        url: &str,
        dest: &Path,
    ) -> Result<DownloadInfo, RegistryError> {
        let parsed = Url::parse(url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .ok_or_else(|| RegistryError::Network {
                url: url.to_owned(),
                detail: "not an http(s) URL".to_owned(),
            })?;
        let label = parsed
            .path_segments()
            .and_then(|mut s| s.next_back().map(str::to_owned))
            .unwrap_or_default();
        self.fetch_to_file(cfg, &parsed, dest, &label, Verifier::recorder)
            .await
    }

    /// Asks the registry for `-/ping` once, bounded by `timeout`: whether it can be reached.
    pub async fn ping(&self, cfg: &RegistryConfig, timeout: Duration) -> Result<(), RegistryError> {
        let url = format!("{}-/ping", cfg.default);
        let url = Url::parse(&url).map_err(|_| RegistryError::InvalidRegistryUrl {
            url: url.clone(),
            origin: cfg.source.to_string(),
        })?;
        let mut request = self.http.get(url.clone()).timeout(timeout);
        if let Some(token) = cfg.token_for(url.as_str()) {
            request = request.bearer_auth(token);
        }
        let response = request
            .send()
            .await
            .map_err(|err| match network_failure(err, &url) {
                Failure::Transient { error, .. } | Failure::Fatal(error) => error,
            })?;
        let status = response.status();
        // Any HTTP answer means the registry is there; some mirrors have no ping route.
        if status.is_server_error() {
            return Err(RegistryError::HttpStatus {
                url: shown(&url),
                status: status.as_u16(),
            });
        }
        Ok(())
    }

    /// Streams `url` into `<dest>.partial` while hashing, checks the hash, then renames.
    async fn fetch_to_file(
        &self,
        cfg: &RegistryConfig,
        url: &Url,
        dest: &Path,
        label: &str,
        new_verifier: impl Fn() -> Verifier,
    ) -> Result<DownloadInfo, RegistryError> {
        let token = cfg.token_for(url.as_str());
        let partial = partial_path(dest);
        if let Some(dir) = dest.parent() {
            tokio::fs::create_dir_all(dir)
                .await
                .map_err(|source| io_error("create", dir, source))?;
        }
        let progress = self.progress_bar(label);
        let result = self
            .with_retries(async || {
                progress.set_position(0);
                let response = self.send(url, token, "*/*", true).await?;
                let mut response = check_status(response, token.is_some())?;
                let total = response.content_length();
                progress.set_style(progress_style(total));
                if let Some(total) = total {
                    progress.set_length(total);
                }
                let mut file = tokio::fs::File::create(&partial)
                    .await
                    .map_err(|source| io_error("create", &partial, source))?;
                let mut verifier = new_verifier();
                let mut size = 0u64;
                while let Some(chunk) = response
                    .chunk()
                    .await
                    .map_err(|err| network_failure(err, url))?
                {
                    file.write_all(&chunk)
                        .await
                        .map_err(|source| io_error("write", &partial, source))?;
                    verifier.update(&chunk);
                    size += chunk.len() as u64;
                    progress.inc(chunk.len() as u64);
                }
                file.sync_all()
                    .await
                    .map_err(|source| io_error("write", &partial, source))?;
                let integrity = verifier.finish()?;
                Ok((integrity, size))
            })
            .await;
        progress.finish_and_clear();
        let renamed = match result {
            Ok(done) => tokio::fs::rename(&partial, dest)
                .await
                .map(|()| done)
                .map_err(|source| io_error("move into place", dest, source)),
            Err(err) => Err(err),
        };
        match renamed {
            Ok((integrity, size)) => Ok(DownloadInfo {
                path: dest.to_owned(),
                integrity,
                size,
            }),
            Err(err) => {
                // Best effort: the partial file may never have been created.
                let _ = tokio::fs::remove_file(&partial).await;
                Err(err)
            }
        }
    }

    /// One GET, with the token attached only when the caller found one for this URL.
    async fn send(
        &self,
        url: &Url,
        token: Option<&str>,
        accept: &str,
        raw_bytes: bool,
    ) -> Result<reqwest::Response, Failure> {
        let mut request = self.http.get(url.clone()).header(ACCEPT, accept);
        if raw_bytes {
            // The tarball's integrity covers its bytes as published, not a re-encoding of them.
            request = request.header(ACCEPT_ENCODING, "identity");
        }
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request
            .send()
            .await
            .map_err(|err| network_failure(err, url))
    }

    /// Run `attempt` until it succeeds, fails for good, or the retries are spent.
    async fn with_retries<T>(
        &self,
        mut attempt: impl AsyncFnMut() -> Result<T, Failure>,
    ) -> Result<T, RegistryError> {
        let mut retried = 0;
        loop {
            match attempt().await {
                Ok(value) => return Ok(value),
                Err(Failure::Transient { error, retry_after }) => {
                    if retried >= self.options.retries {
                        return Err(error);
                    }
                    let delay = retry_after
                        .unwrap_or_else(|| backoff(self.options.backoff_base, retried))
                        .min(MAX_RETRY_DELAY);
                    tokio::time::sleep(delay).await;
                    retried += 1;
                }
                Err(Failure::Fatal(error)) => return Err(error),
            }
        }
    }

    fn progress_bar(&self, label: &str) -> ProgressBar {
        if !self.options.show_progress {
            return ProgressBar::hidden();
        }
        ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
            .with_style(progress_style(None))
            .with_message(label.to_owned())
    }
}

/// A bar when the size is known, a byte counter otherwise.
fn progress_style(total: Option<u64>) -> ProgressStyle {
    let template = match total {
        Some(_) => "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}",
        None => "{msg} {spinner} {bytes} {bytes_per_sec}",
    };
    ProgressStyle::with_template(template).map_or_else(
        |_| ProgressStyle::default_bar(),
        |style| style.progress_chars("=> "),
    )
}

/// Accept 2xx; classify the rest as transient (429, 5xx) or final.
fn check_status(
    response: reqwest::Response,
    token_sent: bool,
) -> Result<reqwest::Response, Failure> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let url = shown(response.url());
    match status {
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
            Err(Failure::Fatal(RegistryError::Unauthorized {
                url,
                status: status.as_u16(),
                token_sent,
            }))
        }
        _ if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() => {
            Err(Failure::Transient {
                retry_after: retry_after(&response),
                error: RegistryError::HttpStatus {
                    url,
                    status: status.as_u16(),
                },
            })
        }
        _ => Err(Failure::Fatal(RegistryError::HttpStatus {
            url,
            status: status.as_u16(),
        })),
    }
}

/// `Retry-After: <seconds>`; the HTTP-date form is rare from registries and falls back to backoff.
fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    let seconds: u64 = response
        .headers()
        .get(RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(Duration::from_secs(seconds).min(MAX_RETRY_DELAY))
}

/// Transport errors: unreachable (connect, timeout) or cut short, all worth another try except
/// those that would fail the same way again.
fn network_failure(err: reqwest::Error, url: &Url) -> Failure {
    let url = shown(url);
    let permanent = err.is_builder() || err.is_redirect();
    let unreachable = err.is_connect() || err.is_timeout();
    let detail = describe(err);
    let error = if unreachable {
        RegistryError::Unreachable { url, detail }
    } else {
        RegistryError::Network { url, detail }
    };
    if permanent {
        Failure::Fatal(error)
    } else {
        Failure::Transient {
            error,
            retry_after: None,
        }
    }
}

/// A URL fit for a message: any `user:password@` removed.
fn shown(url: &Url) -> String {
    let mut url = url.clone();
    // These fail only for URLs that cannot carry credentials in the first place.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.to_string()
}

fn shown_str(url: &str) -> String {
    Url::parse(url).map_or_else(|_| url.to_owned(), |url| shown(&url))
}

/// The error and its causes on one line, without the URL (the caller names it once).
fn describe(err: reqwest::Error) -> String {
    let err = err.without_url();
    let mut parts = vec![err.to_string()];
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if parts.last() != Some(&text) {
            parts.push(text);
        }
        source = cause.source();
    }
    parts.join(": ")
}

/// `dist.tarball`, resolved against the package's registry when relative; http(s) only.
fn tarball_url(cfg: &RegistryConfig, meta: &VersionMeta) -> Result<Url, RegistryError> {
    let invalid = || RegistryError::InvalidTarballUrl {
        name: meta.name.clone(),
        version: meta.version.clone(),
        url: meta.dist.tarball.clone(),
    };
    let base = Url::parse(cfg.registry_for(&meta.name)).map_err(|_| invalid())?;
    let url = base.join(&meta.dist.tarball).map_err(|_| invalid())?;
    if matches!(url.scheme(), "http" | "https") {
        Ok(url)
    } else {
        Err(invalid())
    }
}

fn partial_path(dest: &Path) -> PathBuf {
    let mut name = dest.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

fn io_error(action: &'static str, path: &Path, source: std::io::Error) -> RegistryError {
    RegistryError::Io {
        action,
        path: path.to_owned(),
        source,
    }
}

/// `base · 2^attempt`, scaled by a random factor in [0.5, 1) so clients do not retry in lockstep.
fn backoff(base: Duration, attempt: u32) -> Duration {
    let exponential = base.saturating_mul(2u32.saturating_pow(attempt));
    exponential.mul_f64(0.5 + crate::ids::random_unit() / 2.0)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{HELLO_SHA512, Reply, Server, block_on, config, packument_json};
    use super::*;

    fn client(retries: u32) -> RegistryClient {
        let _ = rustls::crypto::ring::default_provider().install_default();
        RegistryClient::new(ClientOptions {
            connect_timeout: Duration::from_secs(5),
            read_timeout: Duration::from_secs(5),
            retries,
            backoff_base: Duration::from_millis(5),
            // Drawn only on a terminal; exercised here so the bar code runs in every test.
            show_progress: true,
        })
        .unwrap()
    }

    fn meta(name: &str, tarball: &str, integrity: &str) -> VersionMeta {
        let body = packument_json(name, tarball, integrity);
        Packument::from_json(body.as_bytes(), name)
            .unwrap()
            .versions
            .remove("1.0.0")
            .unwrap()
    }

    #[test]
    fn retries_a_500_then_reads_the_packument() {
        let dir = tempfile::tempdir().unwrap();
        let server = Server::start(|url| {
            vec![
                Reply::new(500, "boom"),
                Reply::new(
                    200,
                    packument_json("@s/pkg", &format!("{url}t.tgz"), HELLO_SHA512),
                )
                .header("Content-Type", "application/json"),
            ]
        });
        let cfg = config(&server.url, dir.path(), "");
        let doc = block_on(client(3).fetch_packument(&cfg, "@s/pkg")).unwrap();
        assert_eq!(
            doc.dist_tags.get("latest").map(String::as_str),
            Some("1.0.0")
        );
        let seen = server.finish();
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[1].path, "/@s%2fpkg");
        assert_eq!(seen[1].header("accept"), Some(PACKUMENT_ACCEPT));
        assert_eq!(
            seen[1].header("user-agent"),
            Some(concat!("finch/", env!("CARGO_PKG_VERSION")))
        );
        assert_eq!(seen[1].header("authorization"), None);
    }

    #[test]
    fn not_found_is_final_and_names_the_registry() {
        let dir = tempfile::tempdir().unwrap();
        let server = Server::start(|_| vec![Reply::new(404, "{}")]);
        let cfg = config(&server.url, dir.path(), "");
        let err = block_on(client(3).fetch_packument(&cfg, "nope")).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "package `nope` was not found in the registry {}",
                server.url
            )
        );
        assert_eq!(server.finish().len(), 1);
    }

    #[test]
    fn honours_retry_after_then_gives_up_after_the_retries() {
        let dir = tempfile::tempdir().unwrap();
        let server = Server::start(|_| {
            vec![
                Reply::new(429, "").header("Retry-After", "0"),
                Reply::new(503, ""),
                Reply::new(502, ""),
            ]
        });
        let cfg = config(&server.url, dir.path(), "");
        let err = block_on(client(2).fetch_packument(&cfg, "busy")).unwrap_err();
        assert!(
            matches!(err, RegistryError::HttpStatus { status: 502, .. }),
            "{err}"
        );
        assert!(err.hint().is_some());
        assert_eq!(server.finish().len(), 3);
    }

    #[test]
    fn unreadable_packument_and_refused_access_are_final() {
        let dir = tempfile::tempdir().unwrap();
        let server = Server::start(|_| vec![Reply::new(200, "<html>"), Reply::new(401, "")]);
        let cfg = config(&server.url, dir.path(), "");
        let err = block_on(client(3).fetch_packument(&cfg, "a")).unwrap_err();
        assert!(
            matches!(err, RegistryError::InvalidPackument { .. }),
            "{err}"
        );
        let err = block_on(client(3).fetch_packument(&cfg, "a")).unwrap_err();
        assert!(
            matches!(
                err,
                RegistryError::Unauthorized {
                    status: 401,
                    token_sent: false,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(server.finish().len(), 2);
    }

    #[test]
    fn downloads_verified_after_a_body_cut_short() {
        let dir = tempfile::tempdir().unwrap();
        let server =
            Server::start(|_| vec![Reply::new(200, "hello").cut_at(2), Reply::new(200, "hello")]);
        let cfg = config(&server.url, dir.path(), "");
        let dest = dir.path().join("cache").join("pkg").join("1.0.0.tgz");
        let meta = meta("pkg", "pkg/-/pkg-1.0.0.tgz", HELLO_SHA512);
        let info = block_on(client(3).download(&cfg, &meta, &dest)).unwrap();
        assert_eq!(
            info,
            DownloadInfo {
                path: dest.clone(),
                integrity: HELLO_SHA512.to_owned(),
                size: 5
            }
        );
        assert_eq!(std::fs::read(&dest).unwrap(), b"hello");
        assert!(!partial_path(&dest).exists());
        let seen = server.finish();
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[1].path, "/pkg/-/pkg-1.0.0.tgz");
        assert_eq!(seen[1].header("accept-encoding"), Some("identity"));
    }

    #[test]
    fn a_mismatch_leaves_neither_file() {
        let dir = tempfile::tempdir().unwrap();
        let server = Server::start(|_| vec![Reply::new(200, "hellO")]);
        let cfg = config(&server.url, dir.path(), "");
        let dest = dir.path().join("1.0.0.tgz");
        let meta = meta("pkg", &format!("{}x.tgz", server.url), HELLO_SHA512);
        let err = block_on(client(3).download(&cfg, &meta, &dest)).unwrap_err();
        assert!(
            matches!(&err, RegistryError::IntegrityMismatch { expected, .. } if expected == HELLO_SHA512),
            "{err}"
        );
        assert!(!dest.exists());
        assert!(!partial_path(&dest).exists());
        assert_eq!(server.finish().len(), 1, "a mismatch is not retried");
    }

    #[test]
    fn tokens_go_only_to_their_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let other = Server::start(|_| vec![Reply::new(200, "hello")]);
        let registry = Server::start(|_| {
            vec![
                Reply::new(200, packument_json("a", "x", HELLO_SHA512)),
                Reply::new(200, "hello"),
            ]
        });
        let prefix = registry.url.trim_start_matches("http:");
        let cfg = config(
            &registry.url,
            dir.path(),
            &format!("{prefix}:_authToken=SECRET\n"),
        );
        let client = client(0);
        block_on(client.fetch_packument(&cfg, "a")).unwrap();
        let same_host = meta("a", "a/-/a-1.0.0.tgz", HELLO_SHA512);
        block_on(client.download(&cfg, &same_host, &dir.path().join("1.tgz"))).unwrap();
        let elsewhere = meta("a", &format!("{}a.tgz", other.url), HELLO_SHA512);
        block_on(client.download(&cfg, &elsewhere, &dir.path().join("2.tgz"))).unwrap();
        let seen = registry.finish();
        assert_eq!(seen[0].header("authorization"), Some("Bearer SECRET"));
        assert_eq!(seen[1].header("authorization"), Some("Bearer SECRET"));
        assert_eq!(other.finish()[0].header("authorization"), None);
    }

    #[test]
    fn refuses_tarball_urls_that_are_not_http() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = config("http://127.0.0.1:9/", dir.path(), "");
        let meta = meta("a", "file:///etc/passwd", HELLO_SHA512);
        let err = block_on(client(0).download(&cfg, &meta, &dir.path().join("a.tgz"))).unwrap_err();
        assert!(
            matches!(err, RegistryError::InvalidTarballUrl { .. }),
            "{err}"
        );
    }

    #[test]
    fn messages_hide_url_credentials() {
        let url = Url::parse("https://user:pw@r.test/a").unwrap();
        assert_eq!(shown(&url), "https://r.test/a");
        assert_eq!(shown_str("https://user@r.test/"), "https://r.test/");
        assert_eq!(shown_str("not a url"), "not a url");
    }

    #[test]
    fn backoff_grows_with_jitter() {
        let base = Duration::from_millis(100);
        for attempt in 0..4 {
            let full = base * 2u32.pow(attempt);
            let delay = backoff(base, attempt);
            assert!(delay >= full / 2 && delay <= full, "{attempt}: {delay:?}");
        }
        assert!(backoff(Duration::from_secs(1), 40) >= MAX_RETRY_DELAY);
    }
}
