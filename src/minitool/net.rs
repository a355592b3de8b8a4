//! The network side of `add` and `update`, built only when a command needs it: the registry
//! settings resolved in the order of SPEC §3.3, one HTTP client, and a single-threaded async
//! runtime that the blocking commands drive. Commands that never touch the network never pay
//! for any of this.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::Error;
use super::registry::{
    self, Cache, ClientOptions, Fetched, PackageSpec, RegistryClient, RegistryConfig,
    RegistryInputs, VersionRequest,
};
use crate::Context;
use crate::config::Settings;
use crate::env::Env;
use crate::homes::Homes;

pub struct Network {
    runtime: tokio::runtime::Runtime,
    client: RegistryClient,
    config: RegistryConfig,
    cache: Cache,
}

/// What resolving the registry needs from the process: its environment and working directory
/// (for `.npmrc` and `npm config`), finch's settings, the homes (for the download cache), the
/// `--registry` flag, and whether a progress bar may be drawn.
pub struct NetworkSetup<'a> {
    pub env: &'a Env,
    pub cwd: &'a Path,
    pub settings: &'a Settings,
    pub homes: &'a Homes,
    pub registry_flag: Option<&'a str>,
    pub show_progress: bool,
}

impl Network {
    /// Resolves the registry and builds the client for a command. `flag` is `--registry`.
    pub fn connect(
        ctx: &Context,
        settings: &Settings,
        homes: &Homes,
        flag: Option<&str>,
    ) -> Result<Network, Error> {
        let setup = NetworkSetup {
            env: &ctx.env,
            cwd: &ctx.cwd,
            settings,
            homes,
            registry_flag: flag,
            show_progress: ctx.ui.progress_enabled(),
        };
        Network::open(&setup, &|text| ctx.ui.detail(text))
    }

    /// Resolves the registry and builds the client; `note` hears which registry was chosen.
    pub fn open(setup: &NetworkSetup, note: &dyn Fn(String)) -> Result<Network, Error> {
        let env = |key: &str| setup.env.get(key);
        let home = setup.env.home_dir();
        let npm = find_program("npm", setup.env.get("PATH").as_deref());
        let config = registry::resolve(&RegistryInputs {
            flag: setup.registry_flag,
            finch_toml: setup.settings.registry.as_deref(),
            env: &env,
            cwd: setup.cwd,
            home: home.as_deref(),
            npm_command: npm.as_deref(),
        })?;
        note(format!(
            "registry: {} (from {})",
            config.default, config.source
        ));
        install_crypto_provider();
        let client = RegistryClient::new(ClientOptions {
            connect_timeout: setup.settings.connect_timeout,
            read_timeout: setup.settings.read_timeout,
            retries: 3,
            backoff_base: Duration::from_millis(200),
            show_progress: setup.show_progress,
        })?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::io("start the network runtime for", &setup.homes.runtime, e))?;
        Ok(Network {
            runtime,
            client,
            config,
            cache: Cache::new(setup.homes.minitool_cache()),
        })
    }

    /// Resolves `spec` and leaves its verified tarball in the download cache.
    pub fn fetch_npm(&self, spec: &PackageSpec) -> Result<Fetched, Error> {
        let fetched = self.runtime.block_on(registry::resolve_and_fetch(
            &self.client,
            &self.config,
            &self.cache,
            spec,
        ))?;
        Ok(fetched)
    }

    /// The version the registry offers for `request`, without downloading it.
    pub fn select_version(&self, name: &str, request: &VersionRequest) -> Result<String, Error> {
        let packument = match self
            .runtime
            .block_on(self.client.fetch_packument(&self.config, name))
        {
            Ok(p) => {
                // The copy is only an offline fallback; failing to store it changes nothing now.
                let _ = self.cache.store_packument(name, &p);
                p
            }
            Err(e) if e.is_unreachable() => self.cache.load_packument(name).ok_or(e)?,
            Err(e) => return Err(e.into()),
        };
        Ok(packument.select(request)?.version.clone())
    }

    /// The registry in use, for messages: its user info (a token) redacted.
    pub fn registry(&self) -> String {
        crate::redact::userinfo(&self.config.default).into_owned()
    }

    /// Whether the registry answers within `timeout`.
    pub fn ping(&self, timeout: Duration) -> Result<(), Error> {
        self.runtime
            .block_on(self.client.ping(&self.config, timeout))?;
        Ok(())
    }

    /// Downloads an archive URL to `dest` (no integrity is published for those).
    pub fn download_url(&self, url: &str, dest: &Path) -> Result<(), Error> {
        self.runtime
            .block_on(self.client.download_url(&self.config, url, dest))?;
        Ok(())
    }
}

/// A `Network` built on first use and then shared, so commands that never need the registry
/// never resolve it, and batch commands resolve it once.
pub struct LazyNetwork<'a> {
    connect: Box<dyn Fn() -> Result<Network, Error> + 'a>,
    cell: std::cell::OnceCell<Network>,
}

impl<'a> LazyNetwork<'a> {
    pub fn new(connect: impl Fn() -> Result<Network, Error> + 'a) -> Self {
        LazyNetwork {
            connect: Box::new(connect),
            cell: std::cell::OnceCell::new(),
        }
    }

    pub fn get(&self) -> Result<&Network, Error> {
        if let Some(n) = self.cell.get() {
            return Ok(n);
        }
        let n = (self.connect)()?;
        Ok(self.cell.get_or_init(|| n))
    }
}

/// rustls needs one process-wide crypto provider; installing it twice is harmless. Every HTTP
/// client finch builds (registry, `WebFetch`, `WebSearch`) calls this first.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Finds an executable on `PATH`.
pub fn find_program(name: &str, path: Option<&str>) -> Option<PathBuf> {
    let path = path?;
    std::env::split_paths(path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}
