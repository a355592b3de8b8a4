//! The Linux backend of the kernel wall: Landlock, seccomp, capabilities and a private mount
//! namespace, prepared in the parent and laid on the child between `fork` and `exec` (see the
//! parent module for the order and why).

use std::collections::BTreeMap;
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use landlock::{
    ABI, Access as _, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch, sock_filter,
};

use super::{Access, SandboxError};

/// The file system rights finch handles: everything up to ABI 5 (`IoctlDev`). A right that
/// is handled and not granted beneath a path is denied there.
const FS_ABI: ABI = ABI::V5;

/// System calls no confined process may make: another process's memory (`ptrace`,
/// `process_vm_*`), the kernel's asynchronous I/O that bypasses the filter (`io_uring_*`),
/// kernel programs and counters, the kernel keyrings (secrets of `ctx.secrets` live there),
/// mounts and namespaces (a way around the read-only binds), handles that skip path lookup,
/// modules, kexec, swap and reboot.
const DENIED: &[libc::c_long] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_fsopen,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_mount_setattr,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_reboot,
    libc::SYS_acct,
];

/// Socket families a process with the network may open.
const NETWORK_FAMILIES: &[libc::c_int] = &[
    libc::AF_UNIX,
    libc::AF_INET,
    libc::AF_INET6,
    libc::AF_NETLINK,
];

/// Everything the child does before `exec`, prepared.
pub(super) struct Plan {
    ruleset: RulesetCreated,
    filters: Vec<BpfProgram>,
    mounts: Option<Mounts>,
}

/// The private mount namespace: paths to bind over themselves read-only (protected paths of
/// workspace-write) or `noexec` (writable directories, `Access::noexec`), with the flags their
/// mount already has (a user namespace may not clear them).
struct Mounts {
    targets: Vec<(CString, libc::c_ulong)>,
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
}

impl Plan {
    pub(super) fn new(access: &Access) -> Result<Plan, SandboxError> {
        let ruleset = ruleset(access).map_err(|e| SandboxError::Unavailable(e.to_string()))?;
        let filters = filters(access.network)?;
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
            filters,
            mounts,
        })
    }

    /// Lays the plan on `cmd`: its steps run in the child, after `fork`, before `exec`.
    pub(super) fn apply(self, cmd: &mut Command) {
        let mut plan = Some(self);
        // SAFETY: the closure runs in the child between fork and exec. It only makes system
        // calls on values prepared above (no allocation, no lock): `restrict_self` and
        // `apply_filter` are prctl/landlock/seccomp calls on data that already exists.
        unsafe {
            cmd.pre_exec(move || {
                let Some(Plan {
                    ruleset,
                    filters,
                    mounts,
                }) = plan.take()
                else {
                    return Ok(());
                };
                if let Some(mounts) = &mounts {
                    enter_mount_namespace(mounts)?;
                }
                drop_capabilities();
                ruleset
                    .restrict_self()
                    .map_err(|_| io::Error::other("landlock_restrict_self failed"))?;
                for filter in &filters {
                    seccompiler::apply_filter(filter)
                        .map_err(|_| io::Error::other("seccomp filter refused"))?;
                }
                // exec replaces this memory; freeing it here would only cost time.
                std::mem::forget(filters);
                std::mem::forget(mounts);
                Ok(())
            });
        }
    }
}

/// The Landlock ruleset for `access`, built in full or not at all: a kernel that cannot
/// enforce a right finch asks for (ABI < 6) is an error, never a quieter sandbox.
fn ruleset(access: &Access) -> Result<RulesetCreated, landlock::RulesetError> {
    let all = AccessFs::from_all(FS_ABI);
    let read = AccessFs::ReadFile | AccessFs::ReadDir;
    let read_exec = read | AccessFs::Execute;
    let no_devices = all & !(AccessFs::MakeChar | AccessFs::MakeBlock);
    let write_exec = no_devices;
    let write = no_devices & !AccessFs::Execute;
    let write_file = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate;

    let mut base = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(all)?
        .scope(Scope::AbstractUnixSocket | Scope::Signal)?;
    if !access.network {
        base = base.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
    }
    let mut created = base.create()?;
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
            let Ok(meta) = std::fs::metadata(path) else {
                continue; // what does not exist needs no right
            };
            let Ok(fd) = PathFd::new(path) else {
                continue;
            };
            // Rights that only make sense on a directory are refused on a file.
            let rights = if meta.is_dir() {
                rights
            } else {
                rights & AccessFs::from_file(FS_ABI)
            };
            created = created.add_rule(PathBeneath::new(fd, rights))?;
        }
    }
    Ok(created)
}

/// The seccomp filters: the denied calls (and `socket()` as the network allows), then on
/// x86_64 one that refuses the x32 system call numbers, which the first does not list.
fn filters(network: bool) -> Result<Vec<BpfProgram>, SandboxError> {
    let setup = |e: seccompiler::BackendError| SandboxError::Setup(format!("seccomp: {e}"));
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|_| {
        SandboxError::Unavailable(format!("no seccomp filter for {}", std::env::consts::ARCH))
    })?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        DENIED.iter().map(|&nr| (nr, Vec::new())).collect();
    let socket = if network {
        let conditions = NETWORK_FAMILIES
            .iter()
            .map(|&family| {
                SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, family as u64)
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(setup)?;
        vec![SeccompRule::new(conditions).map_err(setup)?]
    } else {
        Vec::new()
    };
    rules.insert(libc::SYS_socket, socket);
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(setup)?;
    let mut programs = vec![BpfProgram::try_from(filter).map_err(setup)?];
    if cfg!(target_arch = "x86_64") {
        programs.push(x32_filter());
    }
    Ok(programs)
}

/// Refuses every system call whose number carries the x32 bit.
fn x32_filter() -> BpfProgram {
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;
    let stmt = |code: u16, k: u32| sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    };
    vec![
        // Load the system call number (offset 0 of `struct seccomp_data`).
        stmt((libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16, 0),
        sock_filter {
            code: (libc::BPF_JMP | libc::BPF_JSET | libc::BPF_K) as u16,
            jt: 0,
            jf: 1,
            k: X32_SYSCALL_BIT,
        },
        stmt(
            (libc::BPF_RET | libc::BPF_K) as u16,
            libc::SECCOMP_RET_ERRNO | libc::EPERM as u32,
        ),
        stmt(
            (libc::BPF_RET | libc::BPF_K) as u16,
            libc::SECCOMP_RET_ALLOW,
        ),
    ]
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
fn drop_capabilities() {
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
        for cap in 0..64 {
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
