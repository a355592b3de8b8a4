//! The Linux backend of the kernel wall: namespaces, Landlock, seccomp and capabilities,
//! prepared in the parent and laid on the first process of a confined tree between its
//! `clone` and its `exec` (see the parent module for the order and why).
//!
//! Two ways in, one set of steps (`Plan::enter`):
//! - `spawn.rs` clones the child straight into its namespaces, borrowing the parent's memory
//!   until `exec` (`CLONE_VM | CLONE_VFORK`): the program is the first process of its PID
//!   namespace.
//! - `Plan::apply` is a `pre_exec` hook of a `std::process::Command`, which runs in a `fork` of
//!   the parent. A process cannot move itself into a new PID namespace, so that fork clones
//!   once more into the namespaces (a copy, not a borrow: it is single-threaded) and the copy
//!   goes on to `exec` the program as the first process there; the fork itself becomes the
//!   program's stand-in for the caller (`reaper.rs`: it waits and passes the exit status on),
//!   after `exec`ing finch's own binary so that it holds none of the parent's memory.
//!
//! Everything that allocates happens in the parent; the children only make system calls.

use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

use landlock::{
    ABI, Access as _, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreated, Scope,
};

use super::{Access, PROCESS_LIMIT, SandboxError};

/// The file system rights finch handles: everything up to ABI 5 (`IoctlDev`). A right that
/// is handled and not granted beneath a path is denied there.
const FS_ABI: ABI = ABI::V5;

/// Everything the first process of a tree does before `exec`, prepared.
pub(super) struct Plan {
    /// The Landlock ruleset, built in the parent; the child only enforces it.
    ruleset: OwnedFd,
    filter: &'static Filter,
    tree: Tree,
    /// The highest capability number of this kernel: the bounding set is emptied up to it.
    last_cap: libc::c_ulong,
    /// The lowest descriptor closed at `exec`: 3, or 4 when descriptor 3 is passed on.
    close_from: libc::c_uint,
    /// With a network namespace of its own (`Access::proxied`): the child's end of the
    /// socket pair the tree's proxy listener is handed to the caller through (`-1`: none).
    handoff: libc::c_int,
}

/// The seccomp program and the `sock_fprog` that points at it, ready for the raw call.
struct Filter {
    _program: Vec<libc::sock_filter>,
    prog: libc::sock_fprog,
}

// SAFETY: `prog` points into `_program`, which it owns and never changes; both are read-only
// after construction.
unsafe impl Send for Filter {}
unsafe impl Sync for Filter {}

/// The namespaces of a confined tree and what its first process lays in them.
struct Tree {
    /// `CLONE_NEWNS | CLONE_NEWPID`, with `CLONE_NEWUSER` where user namespaces work.
    flags: libc::c_int,
    /// `/proc/self/uid_map` and `gid_map` (the caller's own ids), with `CLONE_NEWUSER`.
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    mounts: Vec<Mount>,
    /// Landlock rules for what the tree mounts itself (its `/proc`, the layers over caches),
    /// added once mounted: a rule holds for the files it was opened on, and these are not the
    /// ones the parent could open (nor does Landlock look through the mount they cover).
    mounted_rules: Vec<(CString, u64)>,
    /// This kernel keeps `pid_max` per PID namespace (Linux 6.14): the tree's is lowered to
    /// `PROCESS_LIMIT`.
    pid_max: bool,
}

/// One mount in the tree's private mount namespace.
enum Mount {
    /// `source` bound over `target` (itself, when `source` is `None`), then remounted with
    /// `remount` when given: `MS_RDONLY` (a protected path), `MS_NOEXEC` (a writable directory
    /// whose files may not run), or, over a secret, `/dev/null` made unopenable. A directory
    /// bound over itself is a mount point: it can be neither renamed nor removed, which is what
    /// keeps the protected paths below it where they are.
    Bind {
        source: Option<CString>,
        target: CString,
        remount: Option<libc::c_ulong>,
    },
    /// An empty read-only tmpfs over a directory of secrets.
    Empty { target: CString },
    /// An overlay over a directory: the tree writes to a layer of its own (`layer`).
    Layer { target: CString, options: CString },
}

/// A step of the confinement that failed in the child, and the error the kernel gave.
#[derive(Debug, Clone, Copy)]
pub(super) struct Refused {
    pub(super) step: Step,
    pub(super) errno: i32,
}

/// The steps a child takes between `clone` and `exec`, named for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Step {
    UserNamespace = 1,
    Mounts = 2,
    Limits = 3,
    NoNewPrivs = 4,
    Landlock = 5,
    Seccomp = 6,
    /// The caller ended before the child could be tied to it.
    Orphaned = 7,
    /// The spawner's own steps (`spawn`): standard streams, working directory, group, exec.
    Start = 8,
    /// The network namespace's loopback and the proxy's listener in it.
    Network = 9,
}

impl Step {
    pub(super) fn from_u8(n: u8) -> Step {
        match n {
            1 => Step::UserNamespace,
            2 => Step::Mounts,
            3 => Step::Limits,
            4 => Step::NoNewPrivs,
            5 => Step::Landlock,
            6 => Step::Seccomp,
            7 => Step::Orphaned,
            9 => Step::Network,
            _ => Step::Start,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Step::UserNamespace => "user namespace",
            Step::Mounts => "private mount namespace",
            Step::Limits => "process limit",
            Step::NoNewPrivs => "no_new_privs",
            Step::Landlock => "landlock_restrict_self",
            Step::Seccomp => "seccomp filter",
            Step::Orphaned => "the caller ended",
            Step::Start => "start",
            Step::Network => "private network namespace",
        }
    }
}

impl Refused {
    pub(super) fn into_io(self) -> io::Error {
        let os = io::Error::from_raw_os_error(self.errno);
        io::Error::new(os.kind(), format!("{}: {os}", self.step.describe()))
    }
}

/// The last `errno`, for a `Refused`.
fn errno() -> i32 {
    io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EPERM)
}

impl Plan {
    /// Prepares `access` for a tree in `namespaces`. `fresh` is a path named only by this plan
    /// (the call's private TMPDIR): it is opened for its rule and not kept in the process's
    /// cache.
    pub(super) fn new(
        access: &Access,
        fresh: Option<&Path>,
        namespaces: super::Namespaces,
        handoff: Option<libc::c_int>,
    ) -> Result<Plan, SandboxError> {
        let hidden = super::secrets::hidden(access);
        // A file bound in place of a secret is read through the bind, whose root is that
        // file: it needs a rule of its own (Landlock does not look through the mount).
        let replacements: Vec<PathBuf> = hidden
            .iter()
            .filter_map(|h| match &h.replacement {
                super::secrets::Replacement::File(source) => Some(source.clone()),
                _ => None,
            })
            .collect();
        let ruleset = ruleset(access, fresh, &replacements).map_err(SandboxError::Unavailable)?;
        let (mounts, layers) = mounts(access, hidden, fresh);
        let mut mounted_rules: Vec<(CString, u64)> = proc_rights(access)
            .map(|r| (c"/proc".to_owned(), r))
            .into_iter()
            .collect();
        // What a call may write through a layer it may run, as in the workspace: `npx -y <pkg>`
        // unpacks the package into `~/.npm/_npx` and runs its bin from there. The layer is the
        // call's own, so nothing it runs there was planted by another.
        let layer_rights =
            (AccessFs::from_all(FS_ABI) & !(AccessFs::MakeChar | AccessFs::MakeBlock)).bits();
        mounted_rules.extend(layers.into_iter().map(|l| (l, layer_rights)));
        // A tree with a network namespace of its own opens sockets freely: the namespace
        // has nothing but its loopback, and the proxy's listener on it.
        let filter = filter(
            access.network || access.proxied,
            access.noexec,
            !access.unix_sockets.is_empty(),
        )?;
        let mut flags = libc::CLONE_NEWNS | libc::CLONE_NEWPID;
        if namespaces.user {
            flags |= libc::CLONE_NEWUSER;
        }
        if handoff.is_some() {
            flags |= libc::CLONE_NEWNET;
        }
        // SAFETY: getuid and getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        Ok(Plan {
            ruleset,
            filter,
            tree: Tree {
                flags,
                uid_map: format!("{uid} {uid} 1").into_bytes(),
                gid_map: format!("{gid} {gid} 1").into_bytes(),
                mounts,
                mounted_rules,
                pid_max: namespaces.pid_max,
            },
            last_cap: last_capability(),
            close_from: if access.keep_fd3 { 4 } else { 3 },
            handoff: handoff.unwrap_or(-1),
        })
    }

    /// The `clone` flags of the tree's namespaces.
    pub(super) fn clone_flags(&self) -> libc::c_int {
        self.tree.flags
    }

    /// In the first process of the tree, already in its namespaces: the user namespace's
    /// maps, the mounts, the process limit, and the tie to the caller (`alive` is the read end
    /// of a pipe whose write end only the caller holds: at its end-of-file the caller is gone).
    /// Makes system calls on prepared data only, so it may run in a child that borrows the
    /// caller's memory.
    ///
    /// # Safety
    /// Irreversible for the calling process: call it only in the child that will `exec`.
    pub(super) unsafe fn enter_tree(&self, alive: libc::c_int) -> Result<(), Refused> {
        let tree = &self.tree;
        // SAFETY: system calls on prepared, NUL-terminated data and descriptors this child
        // owns.
        unsafe {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(Refused {
                    step: Step::Orphaned,
                    errno: errno(),
                });
            }
            // The caller may have ended before the signal was armed.
            let mut byte = 0u8;
            if libc::read(alive, (&mut byte as *mut u8).cast(), 1) == 0 {
                return Err(Refused {
                    step: Step::Orphaned,
                    errno: libc::ESRCH,
                });
            }
            if tree.flags & libc::CLONE_NEWUSER != 0 {
                let maps = write_proc(c"/proc/self/setgroups", b"deny")
                    .and_then(|()| write_proc(c"/proc/self/uid_map", &tree.uid_map))
                    .and_then(|()| write_proc(c"/proc/self/gid_map", &tree.gid_map));
                if maps.is_err() {
                    return Err(Refused {
                        step: Step::UserNamespace,
                        errno: errno(),
                    });
                }
            }
            if self.handoff >= 0 {
                open_network(self.handoff).map_err(|errno| Refused {
                    step: Step::Network,
                    errno,
                })?;
            }
            mount_all(&tree.mounts).map_err(|errno| Refused {
                step: Step::Mounts,
                errno,
            })?;
            for (path, rights) in &tree.mounted_rules {
                let dir = libc::open(
                    path.as_ptr(),
                    libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
                );
                let added = dir >= 0 && add_rule_fd(&self.ruleset, dir, *rights).is_ok();
                let error = errno();
                if dir >= 0 {
                    libc::close(dir);
                }
                if !added {
                    return Err(Refused {
                        step: Step::Landlock,
                        errno: error,
                    });
                }
            }
            if tree.pid_max {
                write_proc(c"/proc/sys/kernel/pid_max", PROCESS_LIMIT_TEXT).map_err(|_| {
                    Refused {
                        step: Step::Limits,
                        errno: errno(),
                    }
                })?;
            }
            if tree.flags & libc::CLONE_NEWUSER != 0 {
                // Counted per user namespace: this tree's processes, not the user's others.
                // (A root caller is not held to it; `pid_max` above holds it.)
                let limit = libc::rlimit {
                    rlim_cur: libc::rlim_t::from(PROCESS_LIMIT),
                    rlim_max: libc::rlim_t::from(PROCESS_LIMIT),
                };
                if libc::setrlimit(libc::RLIMIT_NPROC, &limit) != 0 {
                    return Err(Refused {
                        step: Step::Limits,
                        errno: errno(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The rest of the steps, after `enter_tree` and the working directory: descriptors,
    /// capabilities, `no_new_privs`, Landlock, seccomp. System calls only.
    ///
    /// # Safety
    /// As `enter_tree`.
    pub(super) unsafe fn enter(&self) -> Result<(), Refused> {
        let refused = |step| Refused {
            step,
            errno: errno(),
        };
        // SAFETY: plain system calls with valid arguments: flags, a ruleset fd this plan owns,
        // filters that live as long as the process.
        unsafe {
            // Whatever the caller inherited and did not mark close-on-exec (a socket finch's
            // own parent passed it) closes at exec.
            libc::syscall(
                libc::SYS_close_range,
                self.close_from,
                libc::c_uint::MAX,
                libc::CLOSE_RANGE_CLOEXEC,
            );
            drop_capabilities(self.last_cap);
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(refused(Step::NoNewPrivs));
            }
            if libc::syscall(
                libc::SYS_landlock_restrict_self,
                self.ruleset.as_raw_fd(),
                0u32,
            ) != 0
            {
                return Err(refused(Step::Landlock));
            }
            if libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                0u32,
                &self.filter.prog as *const libc::sock_fprog,
            ) != 0
            {
                return Err(refused(Step::Seccomp));
            }
        }
        Ok(())
    }

    /// Lays the plan on `cmd` (see the module docs): its `fork` clones the program's process
    /// into the tree and becomes the reaper. `cwd` is where the program starts (taken again
    /// after the mounts, which a directory entered before them would not see).
    pub(super) fn apply(self, cmd: &mut Command, cwd: &Path, reaper: Reaper) {
        let cwd = CString::new(cwd.as_os_str().as_bytes()).unwrap_or_else(|_| c"/".to_owned());
        // SAFETY: the closure runs in the child between fork and exec; `fork_tree` only makes
        // system calls on data prepared here.
        unsafe {
            cmd.pre_exec(move || self.fork_tree(&cwd, &reaper));
        }
    }

    /// In the `fork` of `apply` (F): clone the tree's first process into its namespaces (C,
    /// pid 1), which forks the program's process (D) and becomes the tree's init; F becomes
    /// the reaper. Only D returns (and `exec`s the program); C and F never do.
    unsafe fn fork_tree(&self, cwd: &CStr, reaper: &Reaper) -> io::Result<()> {
        // SAFETY: system calls only, in single-threaded copies of the caller; each clone has
        // no new stack and returns in both processes, as fork does.
        unsafe {
            let mut alive = [0; 2];
            if libc::pipe2(alive.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) != 0 {
                return Err(io::Error::last_os_error());
            }
            let first = fork_into(self.tree.flags)?;
            if first != 0 {
                libc::close(alive[0]);
                reaper.become_reaper(super::reaper::Mode::Reaper, first, alive[1]);
            }
            libc::close(alive[1]);
            self.enter_tree(alive[0]).map_err(Refused::into_io)?;
            let program = fork_into(0)?;
            if program == 0 {
                // The program's process: the rest of the steps, then std's `exec`. (Its tie
                // to the caller is the tree: when the init ends, the kernel ends it.)
                if libc::chdir(cwd.as_ptr()) != 0 {
                    return Err(io::Error::last_os_error());
                }
                return self.enter().map_err(Refused::into_io);
            }
            drop_capabilities(self.last_cap);
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
            reaper.become_reaper(super::reaper::Mode::Init, program, -1)
        }
    }
}

/// In a tree's new network namespace: its loopback up, a TCP listener on
/// `127.0.0.1:PROXY_PORT` (`proxy.rs`), and that listener handed to the caller over
/// `handoff` (`SCM_RIGHTS`), which serves the proxy on it from outside. The tree keeps no copy
/// of it (closed here, and close-on-exec meanwhile). System calls on the stack only.
unsafe fn open_network(handoff: libc::c_int) -> Result<(), i32> {
    // SAFETY: plain system calls on stack data and descriptors this process owns.
    unsafe {
        let s = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if s < 0 {
            return Err(errno());
        }
        let mut req: libc::ifreq = std::mem::zeroed();
        req.ifr_name[0] = b'l' as libc::c_char;
        req.ifr_name[1] = b'o' as libc::c_char;
        let up = libc::ioctl(s, libc::SIOCGIFFLAGS as _, &mut req) == 0 && {
            req.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            libc::ioctl(s, libc::SIOCSIFFLAGS as _, &req) == 0
        };
        let error = errno();
        libc::close(s);
        if !up {
            return Err(error);
        }
        let listener = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        if listener < 0 {
            return Err(errno());
        }
        let mut addr: libc::sockaddr_in = std::mem::zeroed();
        addr.sin_family = libc::AF_INET as libc::sa_family_t;
        addr.sin_port = super::proxy::PROXY_PORT.to_be();
        addr.sin_addr.s_addr = u32::from(std::net::Ipv4Addr::LOCALHOST).to_be();
        let listening = libc::bind(
            listener,
            (&addr as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        ) == 0
            && libc::listen(listener, 128) == 0;
        if !listening {
            let error = errno();
            libc::close(listener);
            return Err(error);
        }
        let mut byte = 0u8;
        let mut iov = libc::iovec {
            iov_base: (&mut byte as *mut u8).cast(),
            iov_len: 1,
        };
        let mut control = [0u64; 4];
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = libc::CMSG_SPACE(std::mem::size_of::<libc::c_int>() as u32) as _;
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<libc::c_int>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<libc::c_int>(), listener);
        let sent = libc::sendmsg(handoff, &msg, libc::MSG_NOSIGNAL) == 1;
        let error = errno();
        libc::close(listener);
        if sent { Ok(()) } else { Err(error) }
    }
}

/// The listener a tree's first process handed over `host` (`open_network`), waiting at most
/// `timeout`; `None` when the tree ended (or failed) without handing one.
pub(super) fn receive_listener(
    host: &OwnedFd,
    timeout: std::time::Duration,
) -> io::Result<Option<OwnedFd>> {
    use std::os::fd::FromRawFd;
    let mut poll = libc::pollfd {
        fd: host.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let millis = libc::c_int::try_from(timeout.as_millis()).unwrap_or(libc::c_int::MAX);
    // SAFETY: polling one descriptor this process owns, then receiving into stack buffers.
    unsafe {
        loop {
            let ready = libc::poll(&mut poll, 1, millis);
            if ready > 0 {
                break;
            }
            if ready == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the sandboxed tree did not open its network",
                ));
            }
            if errno() != libc::EINTR {
                return Err(io::Error::last_os_error());
            }
        }
        let mut byte = 0u8;
        let mut iov = libc::iovec {
            iov_base: (&mut byte as *mut u8).cast(),
            iov_len: 1,
        };
        let mut control = [0u64; 4];
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = std::mem::size_of_val(&control) as _;
        let got = libc::recvmsg(host.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC);
        if got < 0 {
            return Err(io::Error::last_os_error());
        }
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        if got == 0 || cmsg.is_null() {
            return Ok(None);
        }
        if (*cmsg).cmsg_level != libc::SOL_SOCKET || (*cmsg).cmsg_type != libc::SCM_RIGHTS {
            return Ok(None);
        }
        let fd = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<libc::c_int>());
        Ok((fd >= 0).then(|| OwnedFd::from_raw_fd(fd)))
    }
}

/// A close-on-exec socket pair for a listener's handoff: (the caller's end, the tree's end).
pub(super) fn handoff_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors socketpair writes.
    if unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    } != 0
    {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: socketpair returned two new descriptors this process owns.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// `clone` as `fork` does (no new stack), into the namespaces of `flags`: the child's 0 or
/// the child's pid.
unsafe fn fork_into(flags: libc::c_int) -> io::Result<libc::pid_t> {
    let flags = (flags | libc::SIGCHLD) as libc::c_ulong;
    // SAFETY: a fork-like clone; the caller is single-threaded.
    let pid = unsafe { libc::syscall(libc::SYS_clone, flags, 0usize, 0usize, 0usize, 0usize) };
    if pid < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(pid as libc::pid_t)
    }
}

/// `pid_max` of a tree, as written to `/proc/sys/kernel/pid_max`.
const PROCESS_LIMIT_TEXT: &[u8] = b"1024";
const _: () = assert!(PROCESS_LIMIT == 1024, "PROCESS_LIMIT_TEXT says 1024");

/// What `Plan::apply`'s fork `exec`s to wait for the program: finch's own binary, in the
/// reaper mode of `reaper.rs`. Prepared in the parent.
pub(super) struct Reaper {
    exe: CString,
}

impl Reaper {
    pub(super) fn new() -> Reaper {
        Reaper {
            exe: c"/proc/self/exe".to_owned(),
        }
    }

    /// A process of `apply` once the process it waits for exists: standard streams to
    /// `/dev/null` (so that it keeps no pipe of the caller's open), every other descriptor
    /// closed but `keep` (the tie of the tree to it, or -1), and `exec` of the reaper in
    /// `mode`. Never returns.
    unsafe fn become_reaper(
        &self,
        mode: super::reaper::Mode,
        pid: libc::pid_t,
        keep: libc::c_int,
    ) -> ! {
        // SAFETY: system calls on descriptors of this process and prepared strings; the pid
        // is written into a stack buffer.
        unsafe {
            let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
            if null >= 0 {
                for fd in 0..3 {
                    libc::dup2(null, fd);
                }
            }
            let kept = if keep >= 0 {
                libc::fcntl(keep, libc::F_DUPFD, 3)
            } else {
                -1
            };
            if kept >= 3 {
                libc::fcntl(kept, libc::F_SETFD, 0);
                if kept > 3 {
                    libc::syscall(
                        libc::SYS_close_range,
                        3u32,
                        (kept - 1) as libc::c_uint,
                        0u32,
                    );
                }
                libc::syscall(
                    libc::SYS_close_range,
                    (kept + 1) as libc::c_uint,
                    libc::c_uint::MAX,
                    0u32,
                );
            } else {
                libc::syscall(libc::SYS_close_range, 3u32, libc::c_uint::MAX, 0u32);
            }
            let mut digits = [0u8; 24];
            let pid_arg = super::reaper::write_pid(pid, &mut digits);
            let argv = [mode.arg0().as_ptr(), pid_arg.as_ptr(), std::ptr::null()];
            let envp = [std::ptr::null()];
            libc::execve(self.exe.as_ptr(), argv.as_ptr(), envp.as_ptr());
            // Without a reaper the tree must not run on: it dies with this process (the
            // parent-death signal, or the end of its PID namespace's first process).
            libc::_exit(127)
        }
    }
}

/// The mounts of a tree, in order: writable directories made `noexec`, every directory
/// between a writable root and a protected path bound over itself (so that none of them can
/// be renamed or removed), the protected paths read-only, the private layers over caches
/// (`Access::layered`), then the secrets hidden. Also the mount points of the layers, which
/// need rules of their own.
fn mounts(
    access: &Access,
    hidden: Vec<super::secrets::Hidden>,
    scratch: Option<&Path>,
) -> (Vec<Mount>, Vec<CString>) {
    let mut mounts = Vec::new();
    let mut layer_points = Vec::new();
    let writable: Vec<&PathBuf> = access.write.iter().chain(&access.write_exec).collect();
    let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).ok();
    if access.noexec {
        mounts.extend(writable.iter().filter_map(|p| {
            Some(Mount::Bind {
                source: None,
                target: c(p)?,
                remount: Some(mount_flags(p)? | libc::MS_NOEXEC),
            })
        }));
    }
    let mut between: Vec<&Path> = Vec::new();
    for protected in &access.protected {
        let Some(root) = writable.iter().find(|r| protected.starts_with(r)) else {
            continue;
        };
        between.extend(
            protected
                .ancestors()
                .skip(1)
                .take_while(|a| a != root && a.starts_with(root)),
        );
    }
    between.sort_by_key(|p| (p.components().count(), p.to_path_buf()));
    between.dedup();
    mounts.extend(between.iter().filter_map(|p| {
        Some(Mount::Bind {
            source: None,
            target: c(p)?,
            remount: None,
        })
    }));
    let mut protected: Vec<&PathBuf> = access.protected.iter().collect();
    protected.sort_by_key(|p| p.components().count());
    mounts.extend(protected.iter().filter_map(|p| {
        Some(Mount::Bind {
            source: None,
            target: c(p)?,
            remount: Some(mount_flags(p)? | libc::MS_RDONLY),
        })
    }));
    if let Some(scratch) = scratch {
        for (n, dir) in access.layered.iter().enumerate() {
            let Some(layer) = layer(dir, &scratch.join(format!(".layer-{n}"))) else {
                continue;
            };
            mounts.push(layer);
            layer_points.extend(c(dir));
        }
    }
    for hidden in hidden {
        let Some(target) = c(&hidden.path) else {
            continue;
        };
        mounts.push(match hidden.replacement {
            super::secrets::Replacement::Empty => Mount::Empty { target },
            super::secrets::Replacement::Unopenable => Mount::Bind {
                source: Some(c"/dev/null".to_owned()),
                target,
                remount: mount_flags(Path::new("/dev/null")).map(|f| {
                    f | libc::MS_RDONLY | libc::MS_NODEV | libc::MS_NOSUID | libc::MS_NOEXEC
                }),
            },
            super::secrets::Replacement::File(source) => {
                let Some(source) = c(&source) else {
                    continue;
                };
                Mount::Bind {
                    source: Some(source),
                    target,
                    remount: Some(mount_flags(&hidden.path).unwrap_or(0) | libc::MS_RDONLY),
                }
            }
        });
    }
    (mounts, layer_points)
}

/// A private layer over the directory `dir`: an overlay whose writes go to `scratch` (in the
/// tree's TMPDIR) and end with it. `~/.npm` and `~/.cache` are made when missing (npm and
/// most tools would make them on first use, which the tree could not); the other caches are
/// layered only where they exist. `None` when it cannot be prepared, or `dir` is not one an
/// overlay can name.
fn layer(dir: &Path, scratch: &Path) -> Option<Mount> {
    let text = dir.to_str()?;
    if text.contains([',', ':', '\\']) {
        return None;
    }
    let made_on_first_use = dir
        .file_name()
        .is_some_and(|n| n == ".npm" || n == ".cache");
    if made_on_first_use && !dir.exists() && dir.parent().is_some_and(Path::is_dir) {
        let _ = std::fs::create_dir(dir);
    }
    if !dir.is_dir() {
        return None;
    }
    let (upper, work) = (scratch.join("upper"), scratch.join("work"));
    std::fs::create_dir_all(&upper).ok()?;
    std::fs::create_dir_all(&work).ok()?;
    let options = format!(
        "lowerdir={text},upperdir={},workdir={},userxattr",
        upper.to_str()?,
        work.to_str()?
    );
    Some(Mount::Layer {
        target: CString::new(text).ok()?,
        options: CString::new(options).ok()?,
    })
}

/// In the child: the tree's mount namespace made private, its own `/proc` (the tree's PID
/// namespace: no other process shows), then `mounts`. A target that is gone meanwhile is
/// skipped: what does not exist needs no cover (and a protected path created in its place is
/// the guard's to find after the call). Returns the `errno` of the mount that failed.
unsafe fn mount_all(mounts: &[Mount]) -> Result<(), i32> {
    let none = std::ptr::null();
    let fail = || -> Result<(), i32> { Err(errno()) };
    // SAFETY: mount system calls on prepared, NUL-terminated strings.
    unsafe {
        if libc::mount(
            none,
            c"/".as_ptr(),
            none,
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        ) != 0
        {
            return fail();
        }
        let proc_flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
        if libc::mount(
            c"proc".as_ptr(),
            c"/proc".as_ptr(),
            c"proc".as_ptr(),
            proc_flags,
            std::ptr::null(),
        ) != 0
        {
            return fail();
        }
        for mount in mounts {
            match mount {
                Mount::Bind {
                    source,
                    target,
                    remount,
                } => {
                    let t = target.as_ptr();
                    let s = source.as_ref().map_or(t, |s| s.as_ptr());
                    let flags = libc::MS_BIND | libc::MS_REC;
                    if libc::mount(s, t, none, flags, std::ptr::null()) != 0 {
                        if errno() == libc::ENOENT {
                            continue;
                        }
                        return fail();
                    }
                    if let Some(remount) = remount {
                        let flags = libc::MS_BIND | libc::MS_REMOUNT | remount;
                        if libc::mount(none, t, none, flags, std::ptr::null()) != 0 {
                            return fail();
                        }
                    }
                }
                Mount::Layer { target, options } => {
                    let t = target.as_ptr();
                    let flags = libc::MS_NOSUID | libc::MS_NODEV;
                    if libc::mount(
                        c"overlay".as_ptr(),
                        t,
                        c"overlay".as_ptr(),
                        flags,
                        options.as_ptr().cast(),
                    ) != 0
                    {
                        return fail();
                    }
                }
                Mount::Empty { target } => {
                    let flags =
                        libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
                    let t = target.as_ptr();
                    if libc::mount(
                        c"tmpfs".as_ptr(),
                        t,
                        c"tmpfs".as_ptr(),
                        flags,
                        c"size=0,mode=0500".as_ptr().cast(),
                    ) != 0
                    {
                        if errno() == libc::ENOENT {
                            continue;
                        }
                        return fail();
                    }
                }
            }
        }
    }
    Ok(())
}

/// The Landlock ruleset for `access`, built in full or not at all: a kernel that cannot
/// enforce a right finch asks for (ABI < 6) is an error, never a quieter sandbox.
///
/// The ruleset is created with the `landlock` crate (rights by ABI, scopes, compatibility);
/// its rules are added with the raw system call, because the crate looks each rule's file up
/// again (`fstat`) to tell a directory from a file, which the cache below already knows: on
/// a call that names ~40 paths that halved the system calls of building the ruleset.
fn ruleset(access: &Access, fresh: Option<&Path>, read_too: &[PathBuf]) -> Result<OwnedFd, String> {
    let all = AccessFs::from_all(FS_ABI);
    let read = AccessFs::ReadFile | AccessFs::ReadDir;
    let read_exec = read | AccessFs::Execute;
    let no_devices = all & !(AccessFs::MakeChar | AccessFs::MakeBlock);
    let write_exec = no_devices;
    let write = no_devices & !AccessFs::Execute;
    let write_file = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate;

    let created = (|| -> Result<RulesetCreated, landlock::RulesetError> {
        let mut base = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(all)?
            .scope(Scope::AbstractUnixSocket | Scope::Signal)?;
        if !access.network && !access.proxied {
            base = base.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
        }
        base.create()
    })()
    .map_err(|e| e.to_string())?;
    let ruleset = Option::<OwnedFd>::from(created)
        .ok_or_else(|| "Landlock gave no ruleset on this kernel".to_string())?;
    let groups: [(&[PathBuf], BitFlags<AccessFs>); 7] = [
        (&access.read_exec, read_exec),
        (&access.exec_files, read_exec),
        (&access.read, read),
        (read_too, read),
        (&access.write_exec, write_exec),
        (&access.write, write),
        (&access.write_files, write_file),
    ];
    for (paths, rights) in groups {
        for path in paths {
            let opened = if fresh == Some(path.as_path()) {
                open(path).map(Arc::new)
            } else {
                opened(path)
            };
            let Some(opened) = opened else {
                continue; // what does not exist needs no right
            };
            // Rights that only make sense on a directory are refused on a file.
            let rights = if opened.is_dir {
                rights
            } else {
                rights & AccessFs::from_file(FS_ABI)
            };
            add_rule(&ruleset, &opened.file, rights)
                .map_err(|e| format!("cannot add the Landlock rule for {}: {e}", path.display()))?;
        }
    }
    Ok(ruleset)
}

/// The rights `access` gives `/proc` (the union of its rules naming it), if any.
fn proc_rights(access: &Access) -> Option<u64> {
    let proc = Path::new("/proc");
    let read = (AccessFs::ReadFile | AccessFs::ReadDir).bits();
    let exec = BitFlags::from(AccessFs::Execute).bits();
    let named = |paths: &[PathBuf]| paths.iter().any(|p| p == proc);
    let mut rights = 0;
    if named(&access.read) {
        rights |= read;
    }
    if named(&access.read_exec) {
        rights |= read | exec;
    }
    (rights != 0).then_some(rights)
}

/// `landlock_add_rule(LANDLOCK_RULE_PATH_BENEATH)`: `rights` beneath `file`.
fn add_rule(ruleset: &OwnedFd, file: &std::fs::File, rights: BitFlags<AccessFs>) -> io::Result<()> {
    add_rule_fd(ruleset, file.as_raw_fd(), rights.bits())
}

/// `add_rule` on a raw descriptor and rights: a system call only (it runs in the child too).
fn add_rule_fd(ruleset: &OwnedFd, file: libc::c_int, rights: u64) -> io::Result<()> {
    /// `struct landlock_path_beneath_attr` of the kernel's UAPI (packed).
    #[repr(C, packed)]
    struct PathBeneathAttr {
        allowed_access: u64,
        parent_fd: i32,
    }
    const LANDLOCK_RULE_PATH_BENEATH: libc::c_int = 1;
    let attr = PathBeneathAttr {
        allowed_access: rights,
        parent_fd: file,
    };
    // SAFETY: a valid ruleset fd, the rule type the attribute's layout belongs to, and a
    // pointer to an attribute that lives across the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset.as_raw_fd(),
            LANDLOCK_RULE_PATH_BENEATH,
            &attr as *const PathBeneathAttr,
            0u32,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// A path opened for a Landlock rule (`O_PATH`).
struct Opened {
    file: std::fs::File,
    is_dir: bool,
}

/// What the cache knows of a path: opened, or missing when it was last looked at.
#[derive(Clone)]
enum Cached {
    Opened(Arc<Opened>),
    Missing(std::time::Instant),
}

/// How long "this path does not exist" is believed: a directory created meanwhile (a first
/// `~/.cache`) gets its rule from the next call after this.
const MISSING_FOR: std::time::Duration = std::time::Duration::from_secs(2);

/// At most this many paths are kept (each holds a descriptor); past it the cache starts over.
const CACHE_MAX: usize = 512;

/// `path` opened for a rule, from the process's cache when an earlier call opened it: the
/// same few dozen system directories are named by every call, and looking each up again cost
/// more than the rest of the sandbox. A cached entry whose file was removed since (no links
/// left) is opened again, so a re-created workspace gets its rights; a path found missing is
/// believed missing for `MISSING_FOR`.
fn opened(path: &Path) -> Option<Arc<Opened>> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Cached>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let cached = cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(path)
        .cloned();
    match cached {
        Some(Cached::Opened(opened)) if opened.file.metadata().is_ok_and(|m| m.nlink() > 0) => {
            return Some(opened);
        }
        Some(Cached::Missing(seen)) if seen.elapsed() < MISSING_FOR => return None,
        _ => {}
    }
    let found = open(path).map(Arc::new);
    let entry = match &found {
        Some(opened) => Cached::Opened(Arc::clone(opened)),
        None => Cached::Missing(std::time::Instant::now()),
    };
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() >= CACHE_MAX {
        cache.clear();
    }
    cache.insert(path.to_path_buf(), entry);
    found
}

/// `path` opened `O_PATH`, or `None` when it cannot be (it does not exist).
fn open(path: &Path) -> Option<Opened> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH)
        .open(path)
        .ok()?;
    let is_dir = file.metadata().ok()?.is_dir();
    Some(Opened { file, is_dir })
}

/// The seccomp filter for a process with or without the network, `memfd_create` and Unix
/// sockets (`seccomp.rs`), built once per process.
fn filter(network: bool, noexec: bool, unix: bool) -> Result<&'static Filter, SandboxError> {
    static BUILT: [OnceLock<Result<Filter, String>>; 8] = [const { OnceLock::new() }; 8];
    let index = usize::from(network) * 4 + usize::from(noexec) * 2 + usize::from(unix);
    let built = BUILT[index].get_or_init(|| {
        let program = super::seccomp::filter(network, noexec, unix)
            .ok_or_else(|| format!("no seccomp filter for {}", std::env::consts::ARCH))?;
        let prog = libc::sock_fprog {
            len: program.len() as libc::c_ushort,
            filter: program.as_ptr().cast_mut(),
        };
        Ok(Filter {
            _program: program,
            prog,
        })
    });
    built
        .as_ref()
        .map_err(|e| SandboxError::Unavailable(e.clone()))
}

/// The mount flags `path`'s mount has that a bind remount must keep.
fn mount_flags(path: &Path) -> Option<libc::c_ulong> {
    let c = CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: `c` is a valid C string and `stat` a valid out-pointer.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut stat) } != 0 {
        return None;
    }
    let pairs = [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ];
    Some(
        pairs
            .iter()
            .filter(|(st, _)| stat.f_flag & *st != 0)
            .fold(0, |flags, (_, ms)| flags | ms),
    )
}

/// Writes `bytes` to a file of `/proc` (in the child: open, write, close).
unsafe fn write_proc(path: &CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: the caller passes a valid path; the buffer outlives the call.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let error = io::Error::last_os_error();
        libc::close(fd);
        if written != bytes.len() as isize {
            return Err(error);
        }
    }
    Ok(())
}

/// In the child: no capabilities in any set. A root caller keeps its uid (and so the files it
/// owns) but loses what lets root pass permission checks, load modules or change the system;
/// errors are ignored because an unprivileged caller has nothing to drop.
fn drop_capabilities(last_cap: libc::c_ulong) {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: libc::c_int,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;
    // SAFETY: prctl and capset with valid, fully initialised arguments.
    unsafe {
        for cap in 0..=last_cap {
            libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        let header = Header {
            version: LINUX_CAPABILITY_VERSION_3,
            pid: 0,
        };
        let data = [Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        libc::syscall(libc::SYS_capset, &header as *const Header, data.as_ptr());
    }
}

/// The highest capability number this kernel knows (`/proc/sys/kernel/cap_last_cap`), read
/// once; 63 when it cannot be read, so that every capability is dropped either way.
fn last_capability() -> libc::c_ulong {
    static LAST: OnceLock<libc::c_ulong> = OnceLock::new();
    *LAST.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(63)
    })
}

/// The Landlock ABI of the running kernel, `None` when Landlock is missing or disabled.
pub(super) fn landlock_abi() -> Option<i32> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: the version query takes no ruleset and writes nothing.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    (v > 0).then_some(v as i32)
}

/// Whether this kernel has seccomp filters.
pub(super) fn seccomp_available() -> bool {
    // SAFETY: PR_GET_SECCOMP reads the calling thread's mode.
    unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 }
}

/// Whether the kernel's release is at least `major.minor` (`uname`).
pub(super) fn kernel_at_least(major: u32, minor: u32) -> bool {
    // SAFETY: `uname` fills the zeroed struct; its fields are NUL-terminated.
    let release = unsafe {
        let mut name: libc::utsname = std::mem::zeroed();
        if libc::uname(&mut name) != 0 {
            return false;
        }
        CStr::from_ptr(name.release.as_ptr())
            .to_string_lossy()
            .into_owned()
    };
    let mut numbers = release
        .split(|c: char| !c.is_ascii_digit())
        .map(|n| n.parse::<u32>().unwrap_or(0));
    let found = (numbers.next().unwrap_or(0), numbers.next().unwrap_or(0));
    found >= (major, minor)
}

/// Whether a child gets the tree's namespaces here: tried once with `true`, in a user
/// namespace (`user`) or, as root, without one. The child of the probe's fork clones into
/// the namespaces as `Plan::apply` does and mounts its `/proc`.
pub(super) fn namespaces_work(user: bool, extra: libc::c_int) -> bool {
    let Some(program) = ["/bin/true", "/usr/bin/true"]
        .into_iter()
        .find(|p| Path::new(p).exists())
    else {
        return false;
    };
    let mut flags = libc::CLONE_NEWNS | libc::CLONE_NEWPID | extra;
    if user {
        flags |= libc::CLONE_NEWUSER;
    }
    // SAFETY: getuid and getgid cannot fail.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    let uid_map = format!("{uid} {uid} 1").into_bytes();
    let gid_map = format!("{gid} {gid} 1").into_bytes();
    let mut cmd = Command::new(program);
    // SAFETY: system calls only between fork and exec (see `Plan::fork_tree`).
    unsafe {
        cmd.pre_exec(move || {
            let clone_flags = (flags | libc::SIGCHLD) as libc::c_ulong;
            let pid = libc::syscall(libc::SYS_clone, clone_flags, 0usize, 0usize, 0usize, 0usize);
            if pid < 0 {
                return Err(io::Error::last_os_error());
            }
            if pid == 0 {
                let maps = flags & libc::CLONE_NEWUSER == 0
                    || (write_proc(c"/proc/self/setgroups", b"deny").is_ok()
                        && write_proc(c"/proc/self/uid_map", &uid_map).is_ok()
                        && write_proc(c"/proc/self/gid_map", &gid_map).is_ok());
                let ok = maps && mount_all(&[]).is_ok();
                libc::_exit(if ok { 0 } else { 1 });
            }
            let mut status = 0;
            while libc::waitpid(pid as libc::pid_t, &mut status, 0) < 0 {
                if errno() != libc::EINTR {
                    return Err(io::Error::last_os_error());
                }
            }
            if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
                Ok(())
            } else {
                Err(io::Error::other("the namespaces' child failed"))
            }
        });
    }
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
