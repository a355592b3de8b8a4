//! Asking a running daemon over its socket (`finch daemon status`, `finch daemon stop`), and
//! waiting for one to end.

use std::io::{BufRead, BufReader, Write};
use std::time::{Duration, Instant};

use super::protocol::{Reply, Request};
use super::{DaemonError, DaemonPaths, checked_socket};
use crate::store::{PidLock, TryLock};

/// How long a reply may take: a status is read from memory and `/proc`.
const REPLY_TIMEOUT: Duration = Duration::from_secs(10);

/// Sends `request` and reads the reply.
#[cfg(unix)]
pub fn ask(paths: &DaemonPaths, request: Request) -> Result<Reply, DaemonError> {
    use std::os::unix::net::UnixStream;
    let socket = checked_socket(paths)?;
    let mut stream = UnixStream::connect(socket).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused => {
            DaemonError::NotRunning {
                socket: socket.to_path_buf(),
            }
        }
        _ => DaemonError::io("connect to", socket, e),
    })?;
    let io = |e| DaemonError::io("talk to the daemon on", socket, e);
    stream.set_read_timeout(Some(REPLY_TIMEOUT)).map_err(io)?;
    stream.set_write_timeout(Some(REPLY_TIMEOUT)).map_err(io)?;
    let mut line =
        serde_json::to_string(&request).map_err(|e| DaemonError::Protocol(e.to_string()))?;
    line.push('\n');
    stream.write_all(line.as_bytes()).map_err(io)?;
    let mut reply = String::new();
    BufReader::new(&stream).read_line(&mut reply).map_err(io)?;
    serde_json::from_str(&reply)
        .map_err(|e| DaemonError::Protocol(format!("{e} in {:?}", reply.trim_end())))
}

#[cfg(not(unix))]
pub fn ask(paths: &DaemonPaths, _request: Request) -> Result<Reply, DaemonError> {
    Err(DaemonError::NotRunning {
        socket: paths.socket.clone(),
    })
}

/// The pid in the daemon lock while a daemon holds it, else `None` (no daemon runs).
pub fn holder(paths: &DaemonPaths) -> Option<Option<u32>> {
    if !paths.lock.exists() {
        return None;
    }
    match PidLock::try_acquire(&paths.lock) {
        Ok(_free) => None,
        Err(TryLock::Held { pid }) => Some(pid),
        Err(TryLock::Io(_)) => None,
    }
}

/// Waits until no daemon holds the lock; whether that happened within `limit`.
pub fn await_exit(paths: &DaemonPaths, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if holder(paths).is_none() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
