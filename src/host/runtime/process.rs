//! Starting and stopping mini tool processes: `node <bootstrap> ` with the RPC socket as fd 3,
//! stdin from /dev/null, stdout and stderr appended to the mini tool's log, in a process group
//! of its own (so a stop kills everything it started). The bootstrap script (its tables filled
//! in from `protocol`) is written once per version to `<runtime>/cache/runtime/bootstrap-<hash>.mjs`, atomically.
//!
//! A confined mini tool (`SpawnSpec::confine`, `minitool::confine`) gets the kernel wall's
//! steps after those below, and only the environment it is given.
//!
//! No orphans: the bootstrap exits when fd 3 closes (the host ended or died), and on Linux the
//! child also gets SIGKILL when its parent dies (`PR_SET_PDEATHSIG`), which covers a mini tool
//! whose event loop is stuck. The kernel ties that signal to the *thread* that forked, so every
//! child is spawned by one thread that lives as long as the runtime (`Spawner`).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc::{self, Sender};

use sha2::{Digest, Sha256};

/// The bootstrap as shipped inside the binary, with the host's tables still to fill in.
pub(crate) const BOOTSTRAP_SOURCE: &str = include_str!("bootstrap.mjs");

/// The bootstrap node runs: the source with the method names and the headless table filled
/// in (`protocol::bootstrap_text`).
static BOOTSTRAP: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| super::protocol::bootstrap_text(BOOTSTRAP_SOURCE));

/// The host's end of a channel.
#[cfg(unix)]
pub(crate) type Stream = std::os::unix::net::UnixStream;
#[cfg(not(unix))]
pub(crate) type Stream = std::net::TcpStream;

/// A connected pair: the host's end and the child's.
#[cfg(unix)]
pub(crate) fn pair() -> std::io::Result<(Stream, Stream)> {
    Stream::pair()
}

#[cfg(not(unix))]
pub(crate) fn pair() -> std::io::Result<(Stream, Stream)> {
    Err(std::io::Error::other(
        "the mini tool runtime needs a Unix-like system (it passes the channel as fd 3)",
    ))
}

/// What one child needs.
pub(crate) struct SpawnSpec {
    pub node: PathBuf,
    pub bootstrap: PathBuf,
    /// The mini tool's directory (the child's working directory).
    pub cwd: PathBuf,
    pub log: File,
    /// The child's end of the RPC socket, to become its fd 3.
    pub channel: Stream,
    /// What the kernel lets the mini tool reach and the environment it starts with
    /// (`minitool::confine`); `None` runs it with finch's environment and every right of the
    /// user (`[sandbox] minitools = "off"`, or a person agreed).
    pub confine: Option<Box<crate::minitool::confine::Spawn>>,
}

/// A started child and its confinement (whose private TMPDIR lives as long as this value:
/// keep it until the process has ended).
pub(crate) type Spawned = (Child, Option<crate::sandbox::Confinement>);

struct Job {
    spec: SpawnSpec,
    reply: Sender<std::io::Result<Spawned>>,
}

/// The one thread that forks every child (see the module comment).
pub(crate) struct Spawner {
    jobs: Mutex<Option<Sender<Job>>>,
}

impl Spawner {
    pub fn new() -> Spawner {
        let (tx, rx) = mpsc::channel::<Job>();
        let started = std::thread::Builder::new()
            .name("finch-minitool-spawner".into())
            .spawn(move || {
                for job in rx {
                    let _ = job.reply.send(spawn(job.spec));
                }
            });
        Spawner {
            jobs: Mutex::new(started.ok().map(|_| tx)),
        }
    }

    pub fn spawn(&self, spec: SpawnSpec) -> std::io::Result<Spawned> {
        let (reply, answer) = mpsc::channel();
        let sent = self
            .jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|jobs| jobs.send(Job { spec, reply }));
        match sent {
            Some(Ok(())) => answer
                .recv()
                .unwrap_or_else(|_| Err(std::io::Error::other("the spawner thread ended"))),
            _ => Err(std::io::Error::other(
                "cannot start a thread to spawn mini tools",
            )),
        }
    }

    /// Ends the spawner thread. On Linux this is the parent-death signal of every child still
    /// running, so call it only once they are meant to go.
    pub fn close(&self) {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

#[cfg(unix)]
fn spawn(spec: SpawnSpec) -> std::io::Result<Spawned> {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::process::CommandExt;
    // Move the channel above the standard descriptors first: were this process started with fd
    // 0, 1 or 2 closed, the socket could sit there and be replaced by the child's stdio.
    // SAFETY: F_DUPFD_CLOEXEC returns a new descriptor this function then owns.
    let high = unsafe { libc::fcntl(spec.channel.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 10) };
    if high < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `high` is a fresh descriptor owned by nothing else.
    let channel = unsafe { OwnedFd::from_raw_fd(high) };
    drop(spec.channel);
    let fd = channel.as_raw_fd();
    let parent = std::process::id();
    let mut cmd = Command::new(&spec.node);
    cmd.arg(&spec.bootstrap)
        .current_dir(&spec.cwd)
        .stdin(Stdio::null())
        .stdout(spec.log.try_clone()?)
        .stderr(spec.log)
        .process_group(0);
    // SAFETY: only async-signal-safe calls (dup2, prctl, getppid, _exit) between fork and exec,
    // on a descriptor that stays open in the parent until spawn returns.
    unsafe {
        cmd.pre_exec(move || {
            // dup2 gives fd 3 without close-on-exec; `fd` (≥ 10) closes at exec.
            if libc::dup2(fd, 3) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            #[cfg(target_os = "linux")]
            {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                // The parent may have died before the signal was armed.
                if libc::getppid() as u32 != parent {
                    libc::_exit(0);
                }
            }
            #[cfg(not(target_os = "linux"))]
            let _ = parent;
            Ok(())
        });
    }
    let mut proxy = false;
    let confinement = match spec.confine {
        Some(confine) => {
            let crate::minitool::confine::Spawn {
                mut access,
                env,
                proxy: policy,
            } = *confine;
            access.keep_fd3 = true; // the RPC channel
            let mut confinement =
                crate::sandbox::Confinement::prepare(access).map_err(std::io::Error::other)?;
            cmd.env_clear().envs(env);
            if let Some(policy) = policy {
                confinement.set_proxy(policy);
                proxy = true;
            }
            confinement.apply(&mut cmd);
            Some(confinement)
        }
        None => None,
    };
    let child = cmd.spawn();
    drop(cmd);
    drop(channel);
    let mut child = child?;
    if let (true, Some(confinement)) = (proxy, confinement.as_ref())
        && let Err(e) = confinement.serve_proxy()
    {
        let _ = child.kill();
        let _ = child.wait();
        return Err(e);
    }
    Ok((child, confinement))
}

#[cfg(not(unix))]
fn spawn(_spec: SpawnSpec) -> std::io::Result<Spawned> {
    Err(std::io::Error::other(
        "the mini tool runtime needs a Unix-like system (it passes the channel as fd 3)",
    ))
}

/// Kills a child's whole process group at once.
#[cfg(unix)]
pub(crate) fn kill_group(pid: u32) {
    // SAFETY: killpg only sends a signal; the group is the child's own (process_group(0)).
    unsafe {
        libc::killpg(pid as libc::pid_t, libc::SIGKILL);
    }
}

#[cfg(not(unix))]
pub(crate) fn kill_group(_pid: u32) {}

/// Waits up to `limit` for the child `pid` to end, without reaping it (its pid, and so its
/// process group, stay its own until it is waited for). A confined node is not the host's
/// child itself: the sandbox's waiting processes (`sandbox::reaper`) pass its exit status up
/// a moment after its channel closed, and killing them first would hide that status.
#[cfg(unix)]
pub(crate) fn await_end(pid: u32, limit: std::time::Duration) {
    let until = std::time::Instant::now() + limit;
    loop {
        // SAFETY: siginfo_t is plain data that waitid fills; WNOWAIT leaves the child
        // unreaped and WNOHANG returns at once.
        let ended = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
            libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) != 0
                || info.si_pid() != 0
        };
        if ended || std::time::Instant::now() >= until {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

#[cfg(not(unix))]
pub(crate) fn await_end(_pid: u32, _limit: std::time::Duration) {}

/// Writes the bootstrap where node can import it, once per version: the file name carries the
/// hash of its content, and it is written to a temp file then renamed, so concurrent hosts
/// never see half of it.
pub(crate) fn ensure_bootstrap(runtime_home: &Path) -> std::io::Result<PathBuf> {
    let hash = Sha256::digest(BOOTSTRAP.as_bytes());
    let hex: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let dir = runtime_home.join("cache").join("runtime");
    let path = dir.join(format!("bootstrap-{hex}.mjs"));
    if std::fs::metadata(&path).is_ok_and(|m| m.len() == BOOTSTRAP.len() as u64) {
        return Ok(path);
    }
    std::fs::create_dir_all(&dir)?;
    crate::store::write_atomic(&path, BOOTSTRAP.as_bytes())?;
    Ok(path)
}

/// How the host's line at each start of a mini tool begins.
pub(crate) const LOG_HEADER: &str = "--- ";

/// Opens (appending) the log of a mini tool and writes a header line for this start.
pub(crate) fn open_log(path: &Path, header: &str) -> std::io::Result<File> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    writeln!(file, "{header}")?;
    Ok(file)
}

/// The last lines this start wrote to a log (after its `--- ` header; at most `lines` lines and
/// 2 KiB), to put in an error message.
pub(crate) fn log_tail(path: &Path, lines: usize) -> String {
    use std::io::{Read, Seek, SeekFrom};
    const MAX: u64 = 2048;
    let Ok(mut file) = File::open(path) else {
        return String::new();
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if file.seek(SeekFrom::Start(len.saturating_sub(MAX))).is_err() {
        return String::new();
    }
    let mut bytes = Vec::new();
    if file.read_to_end(&mut bytes).is_err() {
        return String::new();
    }
    let text = String::from_utf8_lossy(&bytes);
    let header = text
        .rfind(&format!("\n{LOG_HEADER}"))
        .map(|at| at + 1)
        .or_else(|| text.starts_with(LOG_HEADER).then_some(0));
    let since_start = match header {
        Some(at) => text[at..].split_once('\n').map_or("", |(_, rest)| rest),
        None => &text,
    };
    let all: Vec<&str> = since_start
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    let keep = &all[all.len().saturating_sub(lines)..];
    keep.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bootstrap_is_written_once_under_its_hash() {
        let dir = tempfile::tempdir().unwrap();
        let first = ensure_bootstrap(dir.path()).unwrap();
        let name = first.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("bootstrap-") && name.ends_with(".mjs"),
            "{name}"
        );
        assert_eq!(std::fs::read_to_string(&first).unwrap(), *BOOTSTRAP);
        let modified = std::fs::metadata(&first).unwrap().modified().unwrap();
        assert_eq!(ensure_bootstrap(dir.path()).unwrap(), first);
        assert_eq!(
            std::fs::metadata(&first).unwrap().modified().unwrap(),
            modified
        );
    }

    #[test]
    fn log_tails_keep_the_last_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.log");
        std::fs::write(&path, "a\nb\n\nc\nd\n").unwrap();
        assert_eq!(log_tail(&path, 2), "c\nd");
        std::fs::write(&path, "--- one\nold\n--- two\nnew\n").unwrap();
        assert_eq!(log_tail(&path, 5), "new");
        std::fs::write(&path, "--- three\n").unwrap();
        assert_eq!(log_tail(&path, 5), "");
        assert_eq!(log_tail(&dir.path().join("none"), 2), "");
    }
}
