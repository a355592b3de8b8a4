//! `finch daemon`: one long-lived host per user that keeps the enabled mini tools running
//! (each confined as in every host, each restarted with backoff when its process dies) and runs
//! the scheduled tasks, for a service manager to start (`service`). It is controlled over a
//! Unix socket in the runtime home, never over TCP: `<runtime>/daemon/daemon.sock`, in a
//! directory only the user can enter, the socket itself mode 0600; one daemon at a time, held
//! by `<runtime>/daemon/daemon.lock`.
//!
//! Where things are: `host` (the running daemon: lock, socket, supervision loop, the schedule
//! runner beside it), `client` (what `status` and `stop` ask a running daemon), `protocol`
//! (the messages on the socket), `logs` (rotation and reading of the logs it keeps),
//! `procs` (a process tree's resident memory), `service` (the systemd unit and the launchd
//! agent `finch daemon install` writes).
//!
//! This module knows nothing of clap or of how its answers are printed (`cli::daemon`).

pub mod client;
pub mod host;
pub mod logs;
pub mod procs;
pub mod protocol;
pub mod service;

use std::path::PathBuf;

use crate::homes::Homes;

/// Where a daemon keeps its lock and its socket, and writes its own log.
#[derive(Debug, Clone)]
pub struct DaemonPaths {
    /// `<runtime>/daemon`, mode 0700.
    pub dir: PathBuf,
    pub socket: PathBuf,
    pub lock: PathBuf,
    /// `<runtime>/logs/daemon.log`: the daemon's own lines (what it prints on stderr).
    pub log: PathBuf,
    /// `<runtime>/logs/minitools`: one log per mini tool (its node's output and the host's
    /// notes about it).
    pub minitool_logs: PathBuf,
}

impl DaemonPaths {
    pub fn of(homes: &Homes) -> DaemonPaths {
        let dir = homes.runtime.join("daemon");
        DaemonPaths {
            socket: dir.join("daemon.sock"),
            lock: dir.join("daemon.lock"),
            dir,
            log: homes.logs_dir().join("daemon.log"),
            minitool_logs: homes.logs_dir().join("minitools"),
        }
    }

    /// The log of mini tool `id`.
    pub fn minitool_log(&self, id: &str) -> PathBuf {
        self.minitool_logs.join(format!("{id}.log"))
    }
}

/// Why a daemon could not start, or could not be reached.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error("another finch daemon is running (pid {})", pid.map_or_else(|| "unknown".to_string(), |p| p.to_string()))]
    Running { pid: Option<u32>, lock: PathBuf },
    #[error("no finch daemon is running (nothing listens on {})", socket.display())]
    NotRunning { socket: PathBuf },
    #[error("the socket path {} is longer than a Unix socket address can be ({len} bytes, at most {max})", path.display())]
    SocketPathTooLong {
        path: PathBuf,
        len: usize,
        max: usize,
    },
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the finch daemon answered something finch does not understand: {0}")]
    Protocol(String),
    #[error("cannot start the mini tools: {0}")]
    Start(String),
}

impl DaemonError {
    pub(crate) fn io(action: &'static str, path: &std::path::Path, source: std::io::Error) -> Self {
        DaemonError::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The longest path a `sockaddr_un` holds (with its terminating NUL): 108 bytes on Linux, 104
/// on macOS and the BSDs.
#[cfg(target_os = "linux")]
pub const SOCKET_PATH_MAX: usize = 107;
#[cfg(not(target_os = "linux"))]
pub const SOCKET_PATH_MAX: usize = 103;

/// The socket path, refused when the kernel could not bind it.
pub(crate) fn checked_socket(paths: &DaemonPaths) -> Result<&std::path::Path, DaemonError> {
    let len = paths.socket.as_os_str().len();
    if len > SOCKET_PATH_MAX {
        return Err(DaemonError::SocketPathTooLong {
            path: paths.socket.clone(),
            len,
            max: SOCKET_PATH_MAX,
        });
    }
    Ok(&paths.socket)
}
