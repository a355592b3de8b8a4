//! The Linux backend of the kernel wall: Landlock, seccomp, capabilities and a private mount
//! namespace, prepared in the parent and laid on the child between `fork` (or `spawn.rs`'s
//! `vfork`) and `exec` by `Plan::enter` (see the parent module for the order and why).

use std::collections::HashMap;
use std::ffi::CString;
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

use super::{Access, SandboxError};

/// The file system rights finch handles: everything up to ABI 5 (`IoctlDev`). A right that
/// is handled and not granted beneath a path is denied there.
const FS_ABI: ABI = ABI::V5;

/// Everything the child does before `exec`, prepared.
pub(super) struct Plan {
    /// The Landlock ruleset, built in the parent; the child only enforces it.
    ruleset: OwnedFd,
    filter: &'static Filter,
    mounts: Option<Mounts>,
    /// The highest capability number of this kernel: the bounding set is emptied up to it.
    last_cap: libc::c_ulong,
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

/// The private mount namespace: paths to bind over themselves read-only (protected paths of
/// workspace-write) or `noexec` (writable directories, `Access::noexec`), with the flags their
/// mount already has (a user namespace may not clear them).
struct Mounts {
    targets: Vec<(CString, libc::c_ulong)>,
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
}

/// A step of the confinement that failed in the child, and the error the kernel gave.
#[derive(Debug, Clone, Copy)]
pub(super) struct Refused {
    pub(super) step: Step,
    pub(super) errno: i32,
}

/// The steps a child takes between `fork` and `exec`, named for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Step {
    MountNamespace = 1,
    NoNewPrivs = 2,
    Landlock = 3,
    Seccomp = 4,
    /// The spawner's own steps (`spawn`): standard streams, working directory, group, exec.
    Start = 5,
}

impl Step {
    pub(super) fn from_u8(n: u8) -> Step {
        match n {
            1 => Step::MountNamespace,
            2 => Step::NoNewPrivs,
            3 => Step::Landlock,
            4 => Step::Seccomp,
            _ => Step::Start,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Step::MountNamespace => "private mount namespace",
            Step::NoNewPrivs => "no_new_privs",
            Step::Landlock => "landlock_restrict_self",
            Step::Seccomp => "seccomp filter",
            Step::Start => "start",
        }
    }
}

impl Refused {
    pub(super) fn into_io(self) -> io::Error {
        let os = io::Error::from_raw_os_error(self.errno);
        io::Error::new(os.kind(), format!("{}: {os}", self.step.describe()))
    }
}

impl Plan {
    /// Prepares `access`. `fresh` is a path named only by this plan (the call's private
    /// TMPDIR): it is opened for its rule and not kept in the process's cache.
    pub(super) fn new(access: &Access, fresh: Option<&Path>) -> Result<Plan, SandboxError> {
        let ruleset = ruleset(access, fresh).map_err(SandboxError::Unavailable)?;
        let filter = filter(access.network, access.noexec)?;
        // Writable directories first (`noexec`), then the protected paths inside them.
        let noexec = access.write.iter().chain(&access.write_exec);
        let targets: Vec<(CString, libc::c_ulong)> = (noexec.filter(|_| access.noexec))
            .map(|p| (p, libc::MS_NOEXEC))
            .chain(access.protected.iter().map(|p| (p, libc::MS_RDONLY)))
            .filter_map(|(p, flag)| {
                Some((
                    CString::new(p.as_os_str().as_bytes()).ok()?,
                    mount_flags(p)? | flag,
                ))
            })
            .collect();
        let mounts = (!targets.is_empty() && super::Support::get().mount_namespace()).then(|| {
            // SAFETY: getuid and getgid cannot fail.
            let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
            Mounts {
                targets,
                uid_map: format!("{uid} {uid} 1").into_bytes(),
                gid_map: format!("{gid} {gid} 1").into_bytes(),
            }
        });
        Ok(Plan {
            ruleset,
            filter,
            mounts,
            last_cap: last_capability(),
        })
    }

    /// Confines the calling process: the steps of the module docs, in order. Makes system
    /// calls on prepared data only — no allocation, no lock — so it may run in a child between
    /// `fork` (or `vfork`) and `exec`.
    ///
    /// # Safety
    /// Irreversible for the calling process: call it only in the child that will `exec`.
    pub(super) unsafe fn enter(&self) -> Result<(), Refused> {
        let refused = |step| Refused {
            step,
            errno: io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EPERM),
        };
        if let Some(mounts) = &self.mounts {
            enter_mount_namespace(mounts).map_err(|_| refused(Step::MountNamespace))?;
        }
        drop_capabilities(self.last_cap);
        // SAFETY: plain system calls with valid arguments: a flag, a ruleset fd this plan owns,
        // filters that live as long as the process.
        unsafe {
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

    /// Lays the plan on `cmd`: its steps run in the child, after `fork`, before `exec`.
    pub(super) fn apply(self, cmd: &mut Command) {
        // SAFETY: the closure runs in the child between fork and exec; `enter` only makes
        // system calls on data prepared above.
        unsafe {
            cmd.pre_exec(move || self.enter().map_err(Refused::into_io));
        }
    }
}

/// The Landlock ruleset for `access`, built in full or not at all: a kernel that cannot
/// enforce a right finch asks for (ABI < 6) is an error, never a quieter sandbox.
///
/// The ruleset is created with the `landlock` crate (rights by ABI, scopes, compatibility);
/// its rules are added with the raw system call, because the crate looks each rule's file up
/// again (`fstat`) to tell a directory from a file, which the cache below already knows: on
/// a call that names ~40 paths that halved the system calls of building the ruleset.
fn ruleset(access: &Access, fresh: Option<&Path>) -> Result<OwnedFd, String> {
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
        if !access.network {
            base = base.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
        }
        base.create()
    })()
    .map_err(|e| e.to_string())?;
    let ruleset = Option::<OwnedFd>::from(created)
        .ok_or_else(|| "Landlock gave no ruleset on this kernel".to_string())?;
    let groups: [(&[PathBuf], BitFlags<AccessFs>); 6] = [
        (&access.read_exec, read_exec),
        (&access.exec_files, read_exec),
        (&access.read, read),
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

/// `landlock_add_rule(LANDLOCK_RULE_PATH_BENEATH)`: `rights` beneath `file`.
fn add_rule(ruleset: &OwnedFd, file: &std::fs::File, rights: BitFlags<AccessFs>) -> io::Result<()> {
    /// `struct landlock_path_beneath_attr` of the kernel's UAPI (packed).
    #[repr(C, packed)]
    struct PathBeneathAttr {
        allowed_access: u64,
        parent_fd: i32,
    }
    const LANDLOCK_RULE_PATH_BENEATH: libc::c_int = 1;
    let attr = PathBeneathAttr {
        allowed_access: rights.bits(),
        parent_fd: file.as_raw_fd(),
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

/// The seccomp filter for a process with or without the network and `memfd_create`
/// (`seccomp.rs`), built once per process.
fn filter(network: bool, noexec: bool) -> Result<&'static Filter, SandboxError> {
    static BUILT: [OnceLock<Result<Filter, String>>; 4] = [const { OnceLock::new() }; 4];
    let built = BUILT[usize::from(network) * 2 + usize::from(noexec)].get_or_init(|| {
        let program = super::seccomp::filter(network, noexec)
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

/// In the child: a private mount namespace (in a user namespace of its own when it can get
/// one, else — as root — directly) with each target bound read-only over itself.
fn enter_mount_namespace(mounts: &Mounts) -> io::Result<()> {
    // SAFETY: plain system calls on prepared, NUL-terminated data.
    unsafe {
        if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) == 0 {
            write_proc(c"/proc/self/setgroups", b"deny")?;
            write_proc(c"/proc/self/uid_map", &mounts.uid_map)?;
            write_proc(c"/proc/self/gid_map", &mounts.gid_map)?;
        } else if libc::unshare(libc::CLONE_NEWNS) != 0 {
            return Err(io::Error::last_os_error());
        }
        let none = std::ptr::null();
        if libc::mount(
            none,
            c"/".as_ptr(),
            none,
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        ) != 0
        {
            return Err(io::Error::last_os_error());
        }
        for (target, flags) in &mounts.targets {
            let t = target.as_ptr();
            if libc::mount(t, t, none, libc::MS_BIND | libc::MS_REC, std::ptr::null()) != 0 {
                return Err(io::Error::last_os_error());
            }
            let remount = libc::MS_BIND | libc::MS_REMOUNT | flags;
            if libc::mount(none, t, none, remount, std::ptr::null()) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

/// Writes `bytes` to a file of `/proc/self` (in the child: open, write, close).
unsafe fn write_proc(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: the caller passes a valid path; the buffer outlives the call.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        libc::close(fd);
        if written != bytes.len() as isize {
            return Err(io::Error::last_os_error());
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

/// Whether a child can get a private mount namespace (through a user namespace, or as root):
/// tried once with `true`.
pub(super) fn mount_namespace_works() -> bool {
    let Some(program) = ["/bin/true", "/usr/bin/true"]
        .into_iter()
        .find(|p| Path::new(p).exists())
    else {
        return false;
    };
    // SAFETY: getuid and getgid cannot fail.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    let mounts = Mounts {
        targets: Vec::new(),
        uid_map: format!("{uid} {uid} 1").into_bytes(),
        gid_map: format!("{gid} {gid} 1").into_bytes(),
    };
    let mut cmd = Command::new(program);
    // SAFETY: see `Plan::apply`: system calls on prepared data only.
    unsafe {
        cmd.pre_exec(move || enter_mount_namespace(&mounts));
    }
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
