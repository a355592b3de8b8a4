//! The kernel wall (SPEC §8.5a): confines a process tree before its first program `exec`s,
//! so that what the permission gateway judged from a command's text is also what the kernel
//! lets it do. The gateway decides whether a person is asked; this module decides what can
//! happen. It never decides policy itself: callers say what a tree may reach (`Access`),
//! usually through one of the two Bash profiles (`Profile`), and this module makes the kernel
//! hold it to that.
//!
//! # The whole process tree is the unit
//!
//! Every confined tree (a Bash call, a mini tool's node, a confined MCP server, an agent
//! session a mini tool starts) gets, between `clone` and `exec` of its first process:
//! 1. namespaces of its own: a PID namespace with its own `/proc` (the host and other programs
//!    cannot be addressed by `kill`, `prlimit`, `ptrace` or `/proc/<pid>`, and when its first
//!    process ends the kernel ends every other one), a mount namespace, and — for a caller other
//!    than root — a user namespace; at most `PROCESS_LIMIT` processes (the namespace's
//!    `pid_max`, and `RLIMIT_NPROC` counted per user namespace); a parent-death signal, so a
//!    tree whose caller died ends too;
//! 2. in its mount namespace: every directory between a writable root and a protected path
//!    bound over itself (a mount point can be neither renamed nor removed), the protected paths
//!    read-only (Landlock's rights are a union of allows, so "write the workspace but not
//!    `.git/hooks`" needs the mount table), writable directories `noexec` where nothing written
//!    may run (`Access::noexec`), the package managers' caches under an overlay of the tree's
//!    own (`Access::layered`), and the home's secrets covered (`secrets`);
//! 3. every descriptor above the standard three closed at `exec` (a mini tool's RPC channel
//!    excepted, `Access::keep_fd3`);
//! 4. no capabilities (a root caller's bounding, ambient, effective, permitted and inheritable
//!    sets are emptied);
//! 5. a Landlock ruleset (`landlock` crate): file system rights per directory, TCP connect and
//!    bind denied when the network is off (ABI ≥ 4), signals and abstract Unix sockets scoped
//!    to the sandbox (ABI ≥ 6); `no_new_privs`;
//! 6. a seccomp filter (`seccomp.rs`) for what Landlock cannot say, Unix sockets among it.
//!
//! What the kernel cannot stop — a protected path created, or changed where it is only
//! watched — the guard finds after a call that may write and puts back (`guard`).
//!
//! # Two ways to start a tree, and why
//!
//! `Confinement::spawn` (`spawn.rs`), what the host uses for each Bash call, clones the child
//! straight into its namespaces with `CLONE_VM | CLONE_VFORK`, borrowing the parent's memory
//! until `exec` as `posix_spawn` does: the program is the first process of its PID namespace.
//! `Confinement::apply` is a `pre_exec` hook on a `std::process::Command` for callers that need
//! the whole `Command` (a mini tool's node, MCP servers, `finch sandbox run`): its `fork` of
//! the caller clones the tree's first process, which forks the program; the first becomes the
//! tree's init and the fork its reaper, each by `exec`ing finch itself (`reaper.rs`).
//!
//! The issue left open whether to confine between `fork` and `exec` of the multi-threaded host
//! or in a single-threaded helper (finch re-executed, as codex-rs's `linux-sandbox` does).
//! Measured here (`benches/sandbox.sh`, and an `exec` of the release binary that returns at
//! once: about 2.5 ms more than `exec` of `/bin/true`), a helper per Bash call would cost more
//! than the whole fast lane may add (30 %), so Bash calls keep the borrowed-memory child and
//! its program is the first process of its namespace (`kill $$` is ignored there; a timeout's
//! SIGTERM is followed by SIGKILL). The long-lived trees, started rarely, take the helper: an
//! init that reaps what is orphaned in them (a mini tool that never waits would otherwise fill
//! its process limit with zombies) and passes signals on, and a reaper that holds none of the
//! host's memory. The `unsafe` code stays in three files: `linux.rs` (the steps), `spawn.rs`
//! (the borrowed-memory child) and `reaper.rs` (waiting).
//!
//! Everything that allocates (opening the directories, building the ruleset and the filter,
//! the strings written to `/proc/self/*_map`) happens in the parent; the children only make
//! system calls. A step that fails makes the spawn fail: nothing runs unconfined by accident.
//! The directories' handles and the compiled filters are kept for the life of the process, and
//! a tree's mount namespace is torn down on a worker thread (`tmp.rs`), so a call pays only
//! for its ruleset, its namespaces and its TMPDIR.
//!
//! # The Bash profiles
//!
//! | | read-only | workspace-write |
//! |---|---|---|
//! | read + execute | the workspace, the trusted directories (`Session extendDir`), the system's directories (`SYSTEM_READ_EXEC`), the directories on `PATH`, the toolchains under `$HOME` (`HOME_READ_EXEC`), `[sandbox] read` | the same |
//! | read only | `/etc`, its own `/proc`, `/sys`, `/dev/random`, `/dev/urandom` (never the disks of `/dev`), the user's git configuration (without tokens) and caches (`HOME_READ`) | the same |
//! | never | the home's secrets where the tree could read them (`secrets::HOME_SECRETS`) | the same |
//! | write | `/dev/null` (and `/dev/zero`, `/dev/full`, `/dev/tty`), a private per-call `TMPDIR` (no execute) | also the workspace, the trusted directories and `--writable` directories, except the protected paths inside them; the caches of `HOME_CACHES` through a private layer |
//! | network | none: no socket of any family (`socketpair` stays), no TCP | TCP unless `[sandbox] network = false`; Unix sockets only with `[sandbox] unix_sockets` |
//! | always | its own PID namespace and `/proc`, at most `PROCESS_LIMIT` processes, nothing outlives it; no `ptrace`, `process_vm_*`, `io_uring_*`, `bpf`, `keyctl`, mounts, namespaces, module or kexec calls; `no_new_privs`; signals and abstract sockets only inside the sandbox; no capabilities; no inherited descriptor | the same |
//!
//! What the wall does not hold: the metadata of paths outside (`stat`, `ls -d`) — Landlock
//! checks opens, not lookups; what a program prints of its own environment (which is why the
//! fast lane gets a minimal one, `env`); a pathname Unix socket's path once Unix sockets are
//! allowed at all (Landlock holds one only from ABI 9); and anything on macOS and Windows,
//! which have no backend yet: there, `Support::profile` says `unavailable` and every Bash call
//! takes a card.

pub mod env;
#[cfg(unix)]
pub mod guard;
pub mod hosts;
#[cfg(target_os = "linux")]
mod linux;
pub mod netlog;
pub mod proxy;
#[cfg(target_os = "linux")]
pub mod reaper;
#[cfg(target_os = "linux")]
mod seccomp;
pub mod secrets;
#[cfg(target_os = "linux")]
mod spawn;
mod support;
mod tmp;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;

#[cfg(target_os = "linux")]
pub use spawn::{Child, Spawn};
pub use support::{LandlockState, NO_NAMESPACES, Namespaces, ProfileState, Support};

/// The two confinements a Bash call can run in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Profile {
    /// The fast lane: read the workspace and the system, write nothing that lasts, no network.
    ReadOnly,
    /// Approved calls: read-only plus writing the workspace and the trusted directories.
    WorkspaceWrite,
}

impl Profile {
    pub const ALL: [Profile; 2] = [Profile::ReadOnly, Profile::WorkspaceWrite];

    pub fn as_str(self) -> &'static str {
        match self {
            Profile::ReadOnly => "read-only",
            Profile::WorkspaceWrite => "workspace-write",
        }
    }

    pub fn parse(text: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.as_str() == text)
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How one call is confined: what the host hands the Bash built-in, and what the transcript
/// records as the call's `sandbox`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confine {
    /// No wall: the wall is off, not available here, or a person chose to run without it.
    Unconfined,
    /// The fast lane.
    ReadOnly,
    /// An approved call; `network` as `[sandbox] network` says, its environment as
    /// `[sandbox] approved_env` does.
    WorkspaceWrite {
        network: bool,
        env: env::ApprovedEnv,
    },
}

impl Confine {
    /// `none`, `read-only` or `workspace-write` (the transcript's `sandbox`).
    pub fn as_str(self) -> &'static str {
        match self {
            Confine::Unconfined => "none",
            Confine::ReadOnly => Profile::ReadOnly.as_str(),
            Confine::WorkspaceWrite { .. } => Profile::WorkspaceWrite.as_str(),
        }
    }

    pub fn profile(self) -> Option<Profile> {
        match self {
            Confine::Unconfined => None,
            Confine::ReadOnly => Some(Profile::ReadOnly),
            Confine::WorkspaceWrite { .. } => Some(Profile::WorkspaceWrite),
        }
    }

    /// One line for a permission card: where the approved call will run, and which of
    /// finch's variables its environment leaves out (`[sandbox] approved_env`).
    pub fn describe(self) -> String {
        match self {
            Confine::Unconfined => "runs without finch's sandbox".to_string(),
            Confine::ReadOnly => {
                "runs in finch's read-only sandbox: no writes outside a private TMPDIR, no network"
                    .to_string()
            }
            Confine::WorkspaceWrite { network, env } => {
                let mut line = format!(
                    "runs in finch's workspace-write sandbox: writes only the workspace and \
                     trusted directories (protected paths stay read-only), network {}",
                    if network { "on" } else { "off" }
                );
                let names: Vec<std::ffi::OsString> = std::env::vars_os().map(|(k, _)| k).collect();
                let dropped = env.dropped(names.iter().map(|n| n.as_os_str()));
                if env == env::ApprovedEnv::Minimal {
                    line.push_str("; with the minimal environment of the fast lane");
                } else if !dropped.is_empty() {
                    line.push_str(&format!(
                        "; without the variables {} ([sandbox] approved_env)",
                        dropped.join(", ")
                    ));
                }
                line
            }
        }
    }
}

/// The system directories every confined program may read and execute from (those that
/// exist): programs, their libraries and their data.
pub const SYSTEM_READ_EXEC: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/nix", "/snap",
];

/// System directories that are read, never executed from: configuration, process and device
/// information, and the devices programs read (never the whole of `/dev`: a root caller owns
/// the disks' device files, and reading one would read every file on it).
pub const SYSTEM_READ: &[&str] = &["/etc", "/proc", "/sys", "/dev/random", "/dev/urandom"];

/// Device files that may be opened for writing.
pub const DEVICE_WRITE: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];

/// Toolchains people install under their home, read and executed in place (`rustup`, `pyenv`,
/// `nvm`, …). Secrets that live beside them stay out: `~/.cargo/credentials.toml` is not
/// below `~/.cargo/bin` or `~/.cargo/registry`.
pub const HOME_READ_EXEC: &[&str] = &[
    ".cargo/bin",
    ".cargo/registry",
    ".cargo/git",
    ".rustup",
    ".pyenv",
    ".nvm",
    ".volta",
    ".fnm",
    ".local/bin",
    ".local/lib",
    ".bun/bin",
    ".deno/bin",
    ".sdkman/candidates",
    "go/bin",
    "go/pkg/mod",
];

/// Version managers whose `PATH` entries (`~/.pyenv/shims`, `~/.nvm/versions/node/v20/bin`)
/// run programs from elsewhere under the same root: a `PATH` directory below one of these makes
/// the whole root readable and executable, wherever it is.
pub const TOOLCHAIN_ROOTS: &[&str] = &[
    ".pyenv", ".rbenv", ".nodenv", ".goenv", ".jenv", ".plenv", ".phpenv", ".nvm", ".volta",
    ".fnm", ".asdf", ".rustup", ".sdkman", ".bun", ".deno", ".pixi", "mise",
];

/// What tools read under the home to behave as they do outside the wall: git's configuration
/// and the caches of package managers and build tools. Keys and tokens (`.ssh`, `.gnupg`,
/// `.npmrc`, `.netrc`, `.config/gh`, `.aws`, `.docker/config.json`, keyrings) are not here.
pub const HOME_READ: &[&str] = &[
    ".gitconfig",
    ".gitignore_global",
    ".config/git",
    ".cache",
    ".inputrc",
];

/// What one confined process may reach. Paths that do not exist are skipped.
#[derive(Debug, Clone, Default)]
pub struct Access {
    /// Read and execute, beneath each.
    pub read_exec: Vec<PathBuf>,
    /// Read only, beneath each.
    pub read: Vec<PathBuf>,
    /// Read, write and execute, beneath each.
    pub write_exec: Vec<PathBuf>,
    /// Read and write, never execute (the private TMPDIR).
    pub write: Vec<PathBuf>,
    /// Files opened for writing without other rights (devices).
    pub write_files: Vec<PathBuf>,
    /// Inside the writable directories, still read-only (bound read-only in a mount namespace).
    pub protected: Vec<PathBuf>,
    /// TCP and sockets of every family; `false` leaves `socketpair` only.
    pub network: bool,
    /// Files that may be read and executed, nothing else in their directories: the one program
    /// a mini tool may start (node) and its ELF interpreter.
    pub exec_files: Vec<PathBuf>,
    /// The writable directories (`write`, `write_exec`, the private TMPDIR) are bound `noexec`
    /// over themselves in a private mount namespace: nothing written can be mapped executable
    /// (`dlopen`), which Landlock alone does not hold.
    pub noexec: bool,
    /// Pathname Unix sockets the tree may connect to. Empty (the default): no Unix socket can
    /// be opened at all (`socketpair` stays). Landlock holds a connection to one path only from
    /// ABI 9; before it a non-empty list opens Unix sockets as a whole (`Support::unix_sockets`).
    pub unix_sockets: Vec<PathBuf>,
    /// Descriptor 3 stays open across `exec` (a mini tool's RPC channel); every other
    /// descriptor above the standard three is closed.
    pub keep_fd3: bool,
    /// The user's home: its secrets are covered where the tree could read them (`secrets`).
    /// `None`: `HOME` of this process.
    pub home: Option<PathBuf>,
    /// Directories the tree writes through a private layer (an overlay in its TMPDIR): it
    /// reads what is there, writes as it likes and runs what it wrote (workspace-write runs
    /// what it may write: `npx` runs the package it unpacked into `~/.npm/_npx`), and what it
    /// wrote ends with it. The caches
    /// of package managers for workspace-write (`HOME_CACHES`), so that an approved `npm
    /// install` works without letting it plant anything in a cache the person's next
    /// install would trust.
    pub layered: Vec<PathBuf>,
    /// The tree's network is a namespace of its own with nothing but its loopback, and its
    /// only way out is finch's proxy (`proxy.rs`), which holds it to a host list: sockets of
    /// the network families open as with `network`, and reach `127.0.0.1:PROXY_PORT`.
    pub proxied: bool,
}

/// The package managers' and build tools' caches under the home that workspace-write may
/// write through a private layer (`Access::layered`).
pub const HOME_CACHES: &[&str] = &[
    ".npm",
    ".cache",
    ".yarn",
    ".pnpm-store",
    ".local/share/pnpm",
    ".cargo/registry",
    ".cargo/git",
    "go/pkg/mod",
    ".m2/repository",
    ".gradle/caches",
];

/// The most processes (and threads) a confined tree may have at once: its PID namespace's
/// `pid_max` (Linux 6.14), and for a caller other than root also `RLIMIT_NPROC`, which a user
/// namespace counts per tree. A fan-out past it fails to fork (`EAGAIN`) instead of filling
/// the machine.
pub const PROCESS_LIMIT: u32 = 1024;

impl Access {
    /// The rights of `profile` for a call in `workspace` (its working directory and trusted
    /// directories) with the user's `home`, the `PATH` it will see and the extra directories
    /// the settings name (`[sandbox] read`) or a person added (`--writable`).
    pub fn for_profile(profile: Profile, places: &Places) -> Access {
        let mut access = Access::default();
        access
            .read_exec
            .extend(SYSTEM_READ_EXEC.iter().map(PathBuf::from));
        access.read.extend(SYSTEM_READ.iter().map(PathBuf::from));
        access
            .write_files
            .extend(DEVICE_WRITE.iter().map(PathBuf::from));
        if let Some(path) = &places.path {
            for dir in
                std::env::split_paths(path).filter(|p| p.is_absolute() && p.as_os_str().len() > 1)
            {
                if let Some(root) = dir.ancestors().find(|a| {
                    a.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| TOOLCHAIN_ROOTS.contains(&n))
                }) {
                    access.read_exec.push(root.to_path_buf());
                }
                access.read_exec.push(dir);
            }
        }
        if let Some(home) = &places.home {
            access
                .read_exec
                .extend(HOME_READ_EXEC.iter().map(|p| home.join(p)));
            access.read.extend(HOME_READ.iter().map(|p| home.join(p)));
            access.home = Some(home.clone());
        }
        access.read_exec.extend(places.extra_read.iter().cloned());
        match profile {
            Profile::ReadOnly => {
                access.read_exec.extend(places.roots.iter().cloned());
                access.read_exec.extend(places.extra_write.iter().cloned());
                access.network = false;
            }
            Profile::WorkspaceWrite => {
                access.write_exec.extend(places.roots.iter().cloned());
                access.write_exec.extend(places.extra_write.iter().cloned());
                access.protected = places.protected.clone();
                access.network = places.network;
                access.unix_sockets = places.unix_sockets.clone();
                if let Some(home) = &places.home {
                    access.layered = HOME_CACHES
                        .iter()
                        .map(|c| home.join(c))
                        .filter(|c| !places.roots.iter().any(|r| c.starts_with(r)))
                        .collect();
                }
            }
        }
        access
    }
}

/// The places a profile is laid over.
#[derive(Debug, Clone, Default)]
pub struct Places {
    /// The working directory and the trusted directories.
    pub roots: Vec<PathBuf>,
    /// Protected paths that exist inside `roots` (kept read-only in workspace-write).
    pub protected: Vec<PathBuf>,
    pub home: Option<PathBuf>,
    /// The `PATH` the confined program gets: its directories are readable and executable.
    pub path: Option<std::ffi::OsString>,
    /// `[sandbox] read`: more directories to read and execute.
    pub extra_read: Vec<PathBuf>,
    /// `--writable`: more directories to write (read-only profile: read).
    pub extra_write: Vec<PathBuf>,
    /// Network for workspace-write (`[sandbox] network`, a grant).
    pub network: bool,
    /// Pathname Unix sockets workspace-write may connect to (`[sandbox] unix_sockets`).
    pub unix_sockets: Vec<PathBuf>,
}

/// Why a confinement could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("the kernel wall is not available here: {0}")]
    Unavailable(String),
    #[error("cannot create the call's private TMPDIR: {0}")]
    TempDir(std::io::Error),
    #[error("cannot set up the sandbox: {0}")]
    Setup(String),
}

/// A confinement ready to be laid on a `Command`: the private TMPDIR (removed after this is
/// dropped, so keep it until the process has ended; `tmp.rs`) and, on Linux, the prepared
/// kernel rules.
pub struct Confinement {
    /// The private TMPDIR; `None` only while dropping.
    tmp: Option<tempfile::TempDir>,
    tmp_path: PathBuf,
    /// Whether the TMPDIR may serve a later call (`tmp::Reuse`).
    reuse: tmp::Reuse,
    #[cfg(target_os = "linux")]
    plan: Option<linux::Plan>,
    /// `Access::proxied`: the socket pair the tree hands its proxy listener over (the
    /// caller's end, the tree's end), until `serve_proxy` takes it.
    #[cfg(target_os = "linux")]
    handoff: std::sync::Mutex<Option<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)>>,
    /// What the proxy holds the tree to (`set_proxy`).
    policy: Option<std::sync::Arc<proxy::Policy>>,
    /// The proxy serving the tree, for as long as this lives.
    proxy: std::sync::Mutex<Option<proxy::Serving>>,
    proxied: bool,
}

impl Drop for Confinement {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            tmp::remove_later(tmp, self.reuse);
        }
    }
}

impl Confinement {
    /// Prepares `access`, adding a private TMPDIR it may write. Fails where the kernel cannot
    /// confine (see `Support`).
    pub fn prepare(mut access: Access) -> Result<Confinement, SandboxError> {
        if access.home.is_none() {
            access.home = std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|h| h.is_absolute());
        }
        // A call that may write no directory but its TMPDIR (devices such as /dev/null hold
        // nothing) can take a TMPDIR an earlier such call left empty.
        let writes_elsewhere = !(access.write.is_empty() && access.write_exec.is_empty());
        let reuse = if writes_elsewhere {
            tmp::Reuse::Never
        } else {
            tmp::Reuse::WriteNothingElse
        };
        let tmp = tmp::take(reuse).map_err(SandboxError::TempDir)?;
        let tmp_path = tmp.path().to_path_buf();
        access.write.push(tmp_path.clone());
        #[cfg(target_os = "linux")]
        {
            let namespaces = Support::get()
                .namespaces()
                .ok_or_else(|| SandboxError::Unavailable(NO_NAMESPACES.to_string()))?;
            let handoff = if access.proxied {
                if !Support::get().network_namespace() {
                    return Err(SandboxError::Unavailable(NO_NETWORK_NAMESPACES.to_string()));
                }
                Some(linux::handoff_pair().map_err(|e| SandboxError::Setup(e.to_string()))?)
            } else {
                None
            };
            let plan = linux::Plan::new(
                &access,
                Some(&tmp_path),
                namespaces,
                handoff.as_ref().map(|(_, tree)| {
                    use std::os::fd::AsRawFd;
                    tree.as_raw_fd()
                }),
            )?;
            Ok(Confinement {
                tmp: Some(tmp),
                tmp_path,
                reuse,
                plan: Some(plan),
                handoff: std::sync::Mutex::new(handoff),
                policy: None,
                proxy: std::sync::Mutex::new(None),
                proxied: access.proxied,
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (tmp, tmp_path);
            Err(SandboxError::Unavailable(
                "finch's kernel wall exists only on Linux (Landlock) so far".into(),
            ))
        }
    }

    /// The call's private TMPDIR.
    pub fn tmpdir(&self) -> &Path {
        &self.tmp_path
    }

    /// Starts a confined child without copying this process (see `spawn`): the cheap way for
    /// a host that starts many short commands. `spawn.env` is the child's whole environment;
    /// `TMPDIR` is set to the private one. Fails when the confinement was already laid on a
    /// `Command` with `apply`.
    #[cfg(target_os = "linux")]
    pub fn spawn(&self, spawn: &Spawn) -> std::io::Result<Child> {
        let plan = self
            .plan
            .as_ref()
            .ok_or_else(|| std::io::Error::other("the sandbox was already used"))?;
        let mut env: Vec<_> = spawn
            .env
            .iter()
            .filter(|(k, _)| {
                k != "TMPDIR" && !(self.proxied && k.to_str().is_some_and(proxy::is_proxy_var))
            })
            .cloned()
            .collect();
        env.push(("TMPDIR".into(), self.tmp_path.clone().into()));
        if self.proxied {
            env.extend(proxy::env().map(|(k, v)| (k.into(), v.into())));
        }
        let child = spawn::spawn(
            plan,
            &Spawn {
                env: &env,
                ..*spawn
            },
        )?;
        // The tree has handed its listener over before its program's `exec`.
        self.serve_proxy()?;
        Ok(child)
    }

    /// Lays the confinement on `cmd`: `TMPDIR` and the steps that run in the child before
    /// `exec` (after a `fork` of this process). The child the `Command` starts is the tree's
    /// reaper (`reaper`): it ends as the program ends, and killing it ends the whole tree.
    /// Set `cmd`'s working directory before; call once, as the last `pre_exec` hook.
    pub fn apply(&mut self, cmd: &mut Command) {
        cmd.env("TMPDIR", &self.tmp_path);
        if self.proxied {
            for name in proxy::PROXY_VARS {
                cmd.env_remove(name);
            }
            cmd.envs(proxy::env());
        }
        #[cfg(target_os = "linux")]
        if let Some(plan) = self.plan.take() {
            let cwd = cmd
                .get_current_dir()
                .map(Path::to_path_buf)
                .or_else(|| std::env::current_dir().ok())
                .map(|d| std::path::absolute(&d).unwrap_or(d))
                .unwrap_or_else(|| PathBuf::from("/"));
            plan.apply(cmd, &cwd, linux::Reaper::new());
        }
    }
}

impl Confinement {
    /// With `Access::proxied`: what finch's proxy holds the tree to. Set it before the tree
    /// starts.
    pub fn set_proxy(&mut self, policy: std::sync::Arc<proxy::Policy>) {
        self.policy = Some(policy);
    }

    /// With `Access::proxied`, once the tree has started (`spawn` does it itself; after
    /// `apply`, call it once the `Command` has spawned): takes the listener the tree opened in
    /// its network namespace and serves finch's proxy on it, under the policy of `set_proxy`,
    /// for as long as this confinement lives. Nothing to do without `proxied`, or once served.
    pub fn serve_proxy(&self) -> std::io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            let handoff = self
                .handoff
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take();
            let Some((host, tree)) = handoff else {
                return Ok(());
            };
            // The tree holds its own copies until it has handed the listener over.
            drop(tree);
            let policy = self
                .policy
                .clone()
                .ok_or_else(|| std::io::Error::other("a proxied tree without a host policy"))?;
            let listener = linux::receive_listener(&host, std::time::Duration::from_secs(10))?
                .ok_or_else(|| {
                    std::io::Error::other("the sandboxed tree ended before it opened its network")
                })?;
            *self.proxy.lock().unwrap_or_else(|e| e.into_inner()) =
                Some(proxy::serve(listener, policy)?);
        }
        Ok(())
    }
}

/// Why a host list cannot be held here: `sandbox status` says it, and a tree that has one
/// gets no network at all instead.
pub const NO_NETWORK_NAMESPACES: &str = "host lists need network namespaces";

/// What a kernel refusal looks like in a program's error output: the words `strerror` gives
/// `EACCES` and `EPERM` (and `EROFS` for a read-only bind). A hint, not a proof: a command that
/// failed for its own reasons may say the same.
pub fn looks_blocked(stderr: &str) -> bool {
    const SIGNS: &[&str] = &[
        "Permission denied",
        "Operation not permitted",
        "Read-only file system",
        "permission denied",
        "operation not permitted",
        "EACCES",
        "EPERM",
    ];
    SIGNS.iter().any(|s| stderr.contains(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_round_trip_their_names() {
        for p in Profile::ALL {
            assert_eq!(Profile::parse(p.as_str()), Some(p));
        }
        assert_eq!(Profile::parse("none"), None);
    }

    #[test]
    fn read_only_writes_nothing_of_the_workspace_and_has_no_network() {
        let places = Places {
            roots: vec!["/w".into()],
            protected: vec!["/w/.git/hooks".into()],
            home: Some("/home/u".into()),
            path: Some("/usr/bin:/home/u/.cargo/bin:/opt/u/.pyenv/shims:relative".into()),
            extra_read: vec!["/data".into()],
            extra_write: vec![],
            network: true,
            unix_sockets: vec!["/run/db.sock".into()],
        };
        let ro = Access::for_profile(Profile::ReadOnly, &places);
        assert!(ro.read_exec.contains(&"/w".into()));
        assert!(ro.write_exec.is_empty() && ro.write.is_empty());
        assert!(!ro.network, "read-only never has the network");
        assert!(ro.read_exec.contains(&"/home/u/.cargo/bin".into()));
        assert!(
            ro.read_exec.contains(&"/opt/u/.pyenv".into()),
            "a version manager's root"
        );
        assert!(
            !ro.read_exec.contains(&"/home/u/.cargo".into()),
            "not ~/.cargo itself"
        );
        assert!(ro.read_exec.contains(&"/data".into()));
        assert!(!ro.read_exec.iter().any(|p| p == Path::new("relative")));
        assert!(ro.read.contains(&"/home/u/.gitconfig".into()));
        // Devices one by one: a disk's device file would hand over every file on it.
        assert!(ro.read.contains(&"/dev/urandom".into()));
        assert!(ro.write_files.contains(&"/dev/null".into()));
        let everything = ro.read.iter().chain(&ro.read_exec).chain(&ro.write_files);
        assert!(!everything.clone().any(|p| p == Path::new("/dev")));
        assert!(!everything.clone().any(|p| p == Path::new("/")));
        assert!(
            !ro.read
                .iter()
                .chain(&ro.read_exec)
                .any(|p| p.ends_with(".ssh"))
        );

        assert!(ro.unix_sockets.is_empty(), "read-only opens no Unix socket");
        assert_eq!(ro.home, Some(PathBuf::from("/home/u")));

        let ww = Access::for_profile(Profile::WorkspaceWrite, &places);
        assert_eq!(ww.write_exec, vec![PathBuf::from("/w")]);
        assert_eq!(ww.protected, vec![PathBuf::from("/w/.git/hooks")]);
        assert!(ww.network);
        assert_eq!(ww.unix_sockets, vec![PathBuf::from("/run/db.sock")]);
    }

    #[test]
    fn refusals_are_recognised_in_error_output() {
        assert!(looks_blocked("touch: cannot touch 'x': Permission denied"));
        assert!(looks_blocked("bash: x: Read-only file system"));
        assert!(!looks_blocked("grep: x: No such file or directory"));
    }
}
