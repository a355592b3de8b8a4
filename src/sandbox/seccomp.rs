//! The seccomp filter of the kernel wall: one short classic-BPF program (Linux).
//!
//! What it says: a process of another architecture is killed (as `seccompiler` does); an x32
//! system call number (x86_64) and every call of `DENIED` fail with `EPERM`; so does
//! `memfd_create` for a process whose written files must never run (`Access::noexec`: a file
//! made in memory is on no path Landlock or a `noexec` mount holds, and `dlopen` of
//! `/proc/self/fd/N` maps it executable); `socket()` fails with `EPERM` unless its family is
//! one of `NETWORK_FAMILIES` and the network is on, or `AF_UNIX` and Unix sockets are allowed
//! (`Access::unix_sockets`); everything else is allowed. `socketpair` is never refused: a pair
//! reaches nothing but itself.
//!
//! Unix sockets are refused at `socket()` because nothing else can tell a connection to the
//! caller's own socket from one to `/var/run/docker.sock`: Landlock controls `connect` to a
//! pathname socket only from ABI 9 (`LANDLOCK_ACCESS_FS_RESOLVE_UNIX`), and a seccomp filter
//! cannot read the path `connect` is given.
//!
//! Why not `seccompiler`, which finch used first: installing a filter costs the kernel time in
//! proportion to its length, once for every system call number (it precomputes which calls a
//! filter always allows), and again for each filter. `seccompiler` emits about five
//! instructions a rule and cannot test the x32 bit, so the wall needed 185 instructions in two
//! filters — measured, installing them was the largest part of what confining a short Bash
//! call cost (`benches/sandbox.sh`). This program is one filter of about 45 instructions,
//! one comparison a denied call, and is small enough to read whole.

use libc::{BPF_ABS, BPF_JEQ, BPF_JMP, BPF_JSET, BPF_K, BPF_LD, BPF_RET, BPF_W, sock_filter};

/// System calls no confined process may make: another process's memory (`ptrace`,
/// `process_vm_*`), the kernel's asynchronous I/O that bypasses the filter (`io_uring_*`),
/// kernel programs and counters, the kernel keyrings (secrets of `ctx.secrets` live there),
/// mounts and namespaces (a way around the read-only binds), handles that skip path lookup,
/// modules, kexec, swap and reboot.
pub(super) const DENIED: &[libc::c_long] = &[
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
pub(super) const NETWORK_FAMILIES: &[libc::c_int] =
    &[libc::AF_INET, libc::AF_INET6, libc::AF_NETLINK];

/// The `AUDIT_ARCH_*` value of the architecture finch was built for, `None` where the wall has
/// no filter.
fn audit_arch() -> Option<u32> {
    const EM_X86_64: u32 = 62;
    const EM_AARCH64: u32 = 183;
    const EM_RISCV: u32 = 243;
    const ARCH_64BIT: u32 = 0x8000_0000;
    const ARCH_LE: u32 = 0x4000_0000;
    let machine = match std::env::consts::ARCH {
        "x86_64" => EM_X86_64,
        "aarch64" => EM_AARCH64,
        "riscv64" => EM_RISCV,
        _ => return None,
    };
    Some(machine | ARCH_64BIT | ARCH_LE)
}

/// Offsets in `struct seccomp_data`: the call's number, its architecture, the low 32 bits of
/// its first argument.
const NR: u32 = 0;
const ARCH: u32 = 4;
const ARG0_LOW: u32 = if cfg!(target_endian = "little") {
    16
} else {
    20
};

/// The x32 ABI's bit in a system call number (x86_64).
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// One instruction of the program, its jumps still named by target.
#[derive(Clone, Copy)]
enum Op {
    Load(u32),
    /// `if A == k goto then else otherwise`.
    Eq(u32, Target, Target),
    /// `if A & k goto then else otherwise`.
    Set(u32, Target, Target),
    Ret(u32),
}

/// Where a jump goes: on to the next instruction, or to one of the program's ends.
#[derive(Clone, Copy)]
enum Target {
    Next,
    Deny,
    Allow,
    Kill,
    /// The check of `socket()`'s family.
    Socket,
}

/// The filter for a process with or without the network, with or without `memfd_create`
/// (`noexec`: nothing it writes may run), and with or without Unix sockets (`unix`). `None`
/// for an architecture the wall has no filter for.
pub(super) fn filter(network: bool, noexec: bool, unix: bool) -> Option<Vec<sock_filter>> {
    use Target::{Allow, Deny, Kill, Next, Socket};
    let mut ops = vec![
        Op::Load(ARCH),
        Op::Eq(audit_arch()?, Next, Kill),
        Op::Load(NR),
    ];
    if cfg!(target_arch = "x86_64") {
        ops.push(Op::Set(X32_SYSCALL_BIT, Deny, Next));
    }
    ops.extend(DENIED.iter().map(|&nr| Op::Eq(nr as u32, Deny, Next)));
    if noexec {
        ops.push(Op::Eq(libc::SYS_memfd_create as u32, Deny, Next));
    }
    ops.push(Op::Eq(libc::SYS_socket as u32, Socket, Allow));
    // `socket()`: only the network's families with the network, `AF_UNIX` when allowed.
    let socket = ops.len();
    let families = NETWORK_FAMILIES
        .iter()
        .filter(|_| network)
        .chain(unix.then_some(&libc::AF_UNIX));
    let mut families = families.peekable();
    if families.peek().is_some() {
        ops.push(Op::Load(ARG0_LOW));
        ops.extend(families.map(|&family| Op::Eq(family as u32, Allow, Next)));
    }
    let ends = [
        libc::SECCOMP_RET_ERRNO | libc::EPERM as u32,
        libc::SECCOMP_RET_ALLOW,
        libc::SECCOMP_RET_KILL_PROCESS,
    ];
    let deny = ops.len();
    ops.extend(ends.map(Op::Ret));
    let offset = |at: usize, target: Target| -> Option<u8> {
        let to = match target {
            Next => return Some(0),
            Deny => deny,
            Allow => deny + 1,
            Kill => deny + 2,
            Socket => socket,
        };
        u8::try_from(to.checked_sub(at + 1)?).ok()
    };
    let instruction = |code: u32, jt: u8, jf: u8, k: u32| sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    };
    ops.iter()
        .enumerate()
        .map(|(at, op)| {
            Some(match *op {
                Op::Load(offset) => instruction(BPF_LD | BPF_W | BPF_ABS, 0, 0, offset),
                Op::Ret(action) => instruction(BPF_RET | BPF_K, 0, 0, action),
                Op::Eq(k, then, otherwise) => instruction(
                    BPF_JMP | BPF_JEQ | BPF_K,
                    offset(at, then)?,
                    offset(at, otherwise)?,
                    k,
                ),
                Op::Set(k, then, otherwise) => instruction(
                    BPF_JMP | BPF_JSET | BPF_K,
                    offset(at, then)?,
                    offset(at, otherwise)?,
                    k,
                ),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `program` over one system call as the kernel would (the few instructions it uses).
    fn run(program: &[sock_filter], arch: u32, nr: u32, arg0: u32) -> u32 {
        let mut pc = 0;
        let mut a = 0;
        loop {
            let ins = program[pc];
            let code = u32::from(ins.code);
            pc += 1;
            if code == BPF_LD | BPF_W | BPF_ABS {
                a = match ins.k {
                    NR => nr,
                    ARCH => arch,
                    ARG0_LOW => arg0,
                    other => panic!("load of offset {other}"),
                };
            } else if code == BPF_RET | BPF_K {
                return ins.k;
            } else {
                let taken = if code == BPF_JMP | BPF_JEQ | BPF_K {
                    a == ins.k
                } else if code == BPF_JMP | BPF_JSET | BPF_K {
                    a & ins.k != 0
                } else {
                    panic!("instruction {code:#x}")
                };
                pc += usize::from(if taken { ins.jt } else { ins.jf });
            }
        }
    }

    const DENY: u32 = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;

    #[test]
    fn the_filter_denies_what_it_lists_and_allows_the_rest() {
        let arch = audit_arch().unwrap();
        for bits in 0..8 {
            let (network, noexec, unix) = (bits & 4 != 0, bits & 2 != 0, bits & 1 != 0);
            let program = filter(network, noexec, unix).unwrap();
            assert!(program.len() < 50, "{} instructions", program.len());
            for &nr in DENIED {
                assert_eq!(run(&program, arch, nr as u32, 0), DENY, "{nr}");
            }
            for nr in [
                libc::SYS_read,
                libc::SYS_openat,
                libc::SYS_execve,
                libc::SYS_clone,
            ] {
                assert_eq!(run(&program, arch, nr as u32, 0), libc::SECCOMP_RET_ALLOW);
            }
            let memfd = run(&program, arch, libc::SYS_memfd_create as u32, 0);
            let expected = if noexec {
                DENY
            } else {
                libc::SECCOMP_RET_ALLOW
            };
            assert_eq!(memfd, expected, "memfd_create with noexec {noexec}");
            let socket = libc::SYS_socket as u32;
            let allowed = |yes: bool| if yes { libc::SECCOMP_RET_ALLOW } else { DENY };
            for family in [libc::AF_INET, libc::AF_INET6, libc::AF_NETLINK] {
                let got = run(&program, arch, socket, family as u32);
                assert_eq!(got, allowed(network), "family {family}, network {network}");
            }
            let got = run(&program, arch, socket, libc::AF_UNIX as u32);
            assert_eq!(
                got,
                allowed(unix),
                "AF_UNIX, unix {unix}, network {network}"
            );
            assert_eq!(
                run(
                    &program,
                    arch,
                    libc::SYS_socketpair as u32,
                    libc::AF_UNIX as u32
                ),
                libc::SECCOMP_RET_ALLOW,
                "socketpair reaches nothing but itself"
            );
            assert_eq!(run(&program, arch, socket, libc::AF_PACKET as u32), DENY);
            assert_eq!(
                run(&program, arch, 0x1234, 0),
                libc::SECCOMP_RET_ALLOW,
                "a number the filter does not list is allowed"
            );
            assert_eq!(
                run(&program, 0x4000_0003, libc::SYS_read as u32, 0),
                libc::SECCOMP_RET_KILL_PROCESS,
                "another architecture is killed"
            );
            if cfg!(target_arch = "x86_64") {
                let x32_read = X32_SYSCALL_BIT | libc::SYS_read as u32;
                assert_eq!(run(&program, arch, x32_read, 0), DENY, "x32 numbers");
            }
        }
    }
}
