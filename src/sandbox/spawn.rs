//! Starting a confined child without copying the parent (Linux).
//!
//! `std::process::Command` with a `pre_exec` hook must `fork`: the kernel copies the page
//! tables of the whole host (a multi-threaded process with its caches) only for the child to
//! throw them away at `exec`, and every page the host then writes faults once. For a short
//! command that was most of what the sandbox cost. This spawner does what `posix_spawn` does
//! for unconfined children — `clone(CLONE_VM | CLONE_VFORK)`: the child borrows the parent's
//! memory and the calling thread waits until it has `exec`ed — and runs the sandbox's steps
//! (`Plan::enter`) in between.
//!
//! A child that shares the parent's memory may not allocate or take a lock (another thread of
//! the parent may hold it): everything it touches — the program's path, `argv`, `envp`, the
//! working directory, the pipes, the plan — is prepared before the `clone`, and the child only
//! makes system calls. Signals are blocked around the `clone` so that no handler of the parent
//! runs on the child's stack; the child resets every handled signal to its default and
//! unblocks them all before `exec`, as `std` does for its children.
//!
//! A step that fails is reported through a close-on-exec pipe (the step and its `errno`); the
//! child then exits with 127 and the spawn returns the error: nothing runs unconfined.

use std::collections::HashMap;
use std::ffi::{CString, OsStr, OsString};
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::{Mutex, OnceLock};

use super::linux::{Plan, Refused, Step};

/// The child's stack: the sandbox steps and `execve` need little; debug builds need more.
const STACK_SIZE: usize = 256 * 1024;

/// What to start: a program looked up on the child's own `PATH` (as `execvp` would), its
/// arguments, working directory and whole environment. Standard input is `/dev/null`; standard
/// output and error are pipes; the child leads a process group of its own.
pub struct Spawn<'a> {
    pub program: &'a OsStr,
    pub args: &'a [&'a OsStr],
    pub cwd: &'a Path,
    pub env: &'a [(OsString, OsString)],
}

/// A started, confined child.
#[derive(Debug)]
pub struct Child {
    pid: libc::pid_t,
    pub stdout: Option<File>,
    pub stderr: Option<File>,
    status: Option<ExitStatus>,
    /// The tree's mount namespace, held so that its teardown happens on the sandbox's worker
    /// when this is dropped, not in the child's exit (see `tmp.rs`).
    namespace: Option<OwnedFd>,
}

impl Drop for Child {
    fn drop(&mut self) {
        if let Some(handle) = self.namespace.take() {
            super::tmp::release_later(handle);
        }
    }
}

impl Child {
    /// The child's process id (and the id of its process group).
    pub fn id(&self) -> u32 {
        self.pid as u32
    }

    /// Waits for the child to end (once; later calls give the same status).
    pub fn wait(&mut self) -> io::Result<ExitStatus> {
        if let Some(status) = self.status {
            return Ok(status);
        }
        let status = reap(self.pid)?;
        self.status = Some(status);
        Ok(status)
    }
}

/// Waits for `pid`, retrying when a signal interrupts the wait.
fn reap(pid: libc::pid_t) -> io::Result<ExitStatus> {
    let mut status = 0;
    loop {
        // SAFETY: waiting for a child this process started, with a valid out-pointer.
        if unsafe { libc::waitpid(pid, &mut status, 0) } == pid {
            return Ok(ExitStatus::from_raw(status));
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// Everything the child reads, prepared by the parent.
struct Prepared<'a> {
    plan: &'a Plan,
    program: CString,
    argv: Vec<*const libc::c_char>,
    envp: Vec<*const libc::c_char>,
    cwd: CString,
    stdin: RawFd,
    stdout: RawFd,
    stderr: RawFd,
    /// Where a failed step is reported: `[step, errno (4 bytes, native order)]`.
    report: RawFd,
    /// The pipe that ends when the parent does: the child reads the first, closes the second.
    alive: [RawFd; 2],
}

/// Starts `spawn` confined by `plan`.
pub(super) fn spawn(plan: &Plan, spawn: &Spawn) -> io::Result<Child> {
    let path = spawn
        .env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.as_os_str());
    let program = resolve(spawn.program, path, spawn.cwd).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::NotFound,
            format!("{} not found on PATH", spawn.program.to_string_lossy()),
        )
    })?;
    let program = c_string(program.as_os_str())?;
    let argv_owned: Vec<CString> = std::iter::once(spawn.program)
        .chain(spawn.args.iter().copied())
        .map(c_string)
        .collect::<io::Result<_>>()?;
    let env_owned: Vec<CString> = spawn
        .env
        .iter()
        .map(|(k, v)| {
            let mut pair = k.clone();
            pair.push("=");
            pair.push(v);
            c_string(&pair)
        })
        .collect::<io::Result<_>>()?;
    let cwd = c_string(spawn.cwd.as_os_str())?;

    let stdin = File::open("/dev/null")?;
    let (out_read, out_write) = pipe()?;
    let (err_read, err_write) = pipe()?;
    let (report_read, report_write) = pipe()?;
    let (alive_read, alive_write) = pipe_with(libc::O_NONBLOCK)?;
    let prepared = Prepared {
        plan,
        program,
        argv: pointers(&argv_owned),
        envp: pointers(&env_owned),
        cwd,
        stdin: stdin.as_raw_fd(),
        stdout: out_write.as_raw_fd(),
        stderr: err_write.as_raw_fd(),
        report: report_write.as_raw_fd(),
        alive: [alive_read.as_raw_fd(), alive_write.as_raw_fd()],
    };

    let pid = clone_vfork(&prepared, plan.clone_flags())?;
    drop((
        stdin,
        out_write,
        err_write,
        report_write,
        alive_read,
        alive_write,
    ));
    drop(prepared);

    // The child has exec'd (the pipe closed with it) or reported why it could not.
    let mut report = [0u8; 5];
    let mut read = 0;
    let mut reader = File::from(report_read);
    while read < report.len() {
        match reader.read(&mut report[read..]) {
            Ok(0) => break,
            Ok(n) => read += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    if read == 0 {
        let namespace = File::open(format!("/proc/{pid}/ns/mnt"))
            .ok()
            .map(OwnedFd::from);
        return Ok(Child {
            pid,
            stdout: Some(File::from(out_read)),
            stderr: Some(File::from(err_read)),
            status: None,
            namespace,
        });
    }
    let _ = reap(pid);
    if read < report.len() {
        return Err(io::Error::other("the sandboxed child ended before exec"));
    }
    let step = Step::from_u8(report[0]);
    let errno = i32::from_ne_bytes([report[1], report[2], report[3], report[4]]);
    let error = Refused { step, errno }.into_io();
    Err(match step {
        // Not the sandbox's: the program, its directory or the streams.
        Step::Start => io::Error::from_raw_os_error(errno),
        _ => error,
    })
}

/// `clone(CLONE_VM | CLONE_VFORK)` into the namespaces of `flags`, with every signal blocked
/// around it; returns the child's pid once it has exec'd or exited.
fn clone_vfork(prepared: &Prepared, flags: libc::c_int) -> io::Result<libc::pid_t> {
    // SAFETY: an anonymous private mapping for the child's stack, unmapped below.
    let stack = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            STACK_SIZE,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if stack == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: sigset_t is plain data; the calls fill it.
    let (mut all, mut old): (libc::sigset_t, libc::sigset_t) =
        unsafe { (std::mem::zeroed(), std::mem::zeroed()) };
    // SAFETY: the child runs `child` on its own stack with `prepared`, which outlives it: with
    // CLONE_VFORK this thread is suspended until the child has exec'd or exited. Signals are
    // blocked meanwhile so no handler of the parent runs on the child's stack.
    let pid = unsafe {
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        let top = (stack as *mut u8).add(STACK_SIZE);
        let pid = libc::clone(
            child,
            top.cast(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD | flags,
            prepared as *const Prepared as *mut libc::c_void,
        );
        let error = io::Error::last_os_error();
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        libc::munmap(stack, STACK_SIZE);
        if pid < 0 { Err(error) } else { Ok(pid) }
    }?;
    Ok(pid)
}

/// The child: streams, the tree, directory, group, signals, the sandbox, `exec`. System calls
/// only. The directory is entered after the tree's mounts: a directory entered before them
/// would be looked up beneath a directory bound over itself, where a protected path's bind
/// does not show.
extern "C" fn child(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the `Prepared` of `clone_vfork`, alive while the parent waits.
    let p = unsafe { &*(arg as *const Prepared) };
    let fail = |step: Step, errno: i32| -> libc::c_int {
        let mut report = [0u8; 5];
        report[0] = step as u8;
        report[1..].copy_from_slice(&errno.to_ne_bytes());
        // SAFETY: writing a stack buffer to the report pipe, then leaving without unwinding.
        unsafe {
            libc::write(p.report, report.as_ptr().cast(), report.len());
            libc::_exit(127)
        }
    };
    let errno = || {
        io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO)
    };
    // SAFETY: system calls on descriptors and strings the parent prepared.
    unsafe {
        for (from, to) in [(p.stdin, 0), (p.stdout, 1), (p.stderr, 2)] {
            let ok = if from == to {
                libc::fcntl(to, libc::F_SETFD, 0) == 0
            } else {
                libc::dup2(from, to) == to
            };
            if !ok {
                return fail(Step::Start, errno());
            }
        }
        libc::close(p.alive[1]);
        if let Err(refused) = p.plan.enter_tree(p.alive[0]) {
            return fail(refused.step, refused.errno);
        }
        if libc::chdir(p.cwd.as_ptr()) != 0 || libc::setpgid(0, 0) != 0 {
            return fail(Step::Start, errno());
        }
        // Signals: what the parent handles starts at its default; `SIGPIPE` too (Rust ignores
        // it); what the parent ignores stays ignored, as with `std`.
        let mut action: libc::sigaction = std::mem::zeroed();
        for signal in 1..=libc::SIGRTMAX() {
            if signal == libc::SIGKILL || signal == libc::SIGSTOP {
                continue;
            }
            if libc::sigaction(signal, std::ptr::null(), &mut action) != 0 {
                continue;
            }
            if action.sa_sigaction != libc::SIG_DFL
                && (action.sa_sigaction != libc::SIG_IGN || signal == libc::SIGPIPE)
            {
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(signal, &default, std::ptr::null_mut());
            }
        }
        if let Err(refused) = p.plan.enter() {
            return fail(refused.step, refused.errno);
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::pthread_sigmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        libc::execve(p.program.as_ptr(), p.argv.as_ptr(), p.envp.as_ptr());
        fail(Step::Start, errno())
    }
}

/// The first executable file named `program` on `path` (or `program` itself when it names a
/// path), as `execvp` looks it up; relative entries are taken from `cwd`.
///
/// Found paths are remembered per (`program`, `path`) for the process, as a shell's hash table
/// remembers them: a remembered file is used while it is still an executable file, and looked
/// up again when it is not. (Every Bash call looks up `bash`; on a `PATH` of 15 directories
/// that was 15 `stat`s per call.) A `path` with relative entries is never remembered.
fn resolve(program: &OsStr, path: Option<&OsStr>, cwd: &Path) -> Option<PathBuf> {
    type Key = (OsString, OsString);
    static FOUND: OnceLock<Mutex<HashMap<Key, PathBuf>>> = OnceLock::new();
    let executable = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| {
            use std::os::unix::fs::PermissionsExt;
            m.is_file() && m.permissions().mode() & 0o111 != 0
        })
    };
    if program.as_bytes().contains(&b'/') {
        let p = cwd.join(program);
        return executable(&p).then_some(p);
    }
    let path = path.unwrap_or(OsStr::new("/usr/local/bin:/usr/bin:/bin"));
    let absolute = std::env::split_paths(path).all(|dir| dir.is_absolute());
    let key = (program.to_os_string(), path.to_os_string());
    let found = FOUND.get_or_init(Default::default);
    if absolute {
        let remembered = found
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .cloned();
        if let Some(p) = remembered.filter(|p| executable(p)) {
            return Some(p);
        }
    }
    let p = std::env::split_paths(path)
        .map(|dir| cwd.join(dir).join(program))
        .find(|p| executable(p))?;
    if absolute {
        let mut found = found.lock().unwrap_or_else(|e| e.into_inner());
        if found.len() >= 64 {
            found.clear();
        }
        found.insert(key, p.clone());
    }
    Some(p)
}

fn c_string(s: &OsStr) -> io::Result<CString> {
    CString::new(s.as_bytes()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "an argument or variable holds a NUL byte",
        )
    })
}

/// Null-terminated pointers to `strings` (which must outlive them).
fn pointers(strings: &[CString]) -> Vec<*const libc::c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}

/// A close-on-exec pipe: (read end, write end).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    pipe_with(0)
}

/// A close-on-exec pipe with more `flags` of `pipe2`.
fn pipe_with(flags: libc::c_int) -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | flags) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: pipe2 returned two new descriptors this process owns.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

#[cfg(test)]
mod tests {
    use super::super::{Access, Confinement, Places, Profile, Support};
    use super::*;

    /// The read-only confinement of a call in `dir`. Like the escape tests, these fail (not
    /// skip) on a kernel without the wall.
    fn confinement(dir: &Path) -> Confinement {
        let state = Support::get().profile(Profile::ReadOnly);
        assert!(
            state.is_enforced(),
            "no kernel wall here: {:?}",
            state.why()
        );
        let places = Places {
            roots: vec![dir.to_path_buf()],
            path: std::env::var_os("PATH"),
            ..Places::default()
        };
        Confinement::prepare(Access::for_profile(Profile::ReadOnly, &places)).unwrap()
    }

    fn run(confinement: &Confinement, dir: &Path, script: &str) -> (ExitStatus, String) {
        let env = [("PATH".into(), std::env::var_os("PATH").unwrap_or_default())];
        let args = [OsStr::new("-c"), OsStr::new(script)];
        let spawn = Spawn {
            program: OsStr::new("sh"),
            args: &args,
            cwd: dir,
            env: &env,
        };
        let mut child = confinement.spawn(&spawn).unwrap();
        let mut out = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        (child.wait().unwrap(), out)
    }

    #[test]
    fn a_confined_child_runs_in_its_directory_with_its_tmpdir_and_is_held_by_the_wall() {
        let dir = tempfile::tempdir().unwrap();
        let confinement = confinement(dir.path());
        let outside = tempfile::tempdir().unwrap();
        let script = format!(
            "pwd; echo \"$TMPDIR\"; touch \"$TMPDIR/ok\" && echo wrote-tmp; \
             touch {}/x 2>/dev/null || echo refused; trap; exit 3",
            outside.path().display()
        );
        let (status, out) = run(&confinement, dir.path(), &script);
        assert_eq!(status.code(), Some(3), "{out}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            dir.path().canonicalize().unwrap().to_str().unwrap()
        );
        assert_eq!(lines[1], confinement.tmpdir().to_str().unwrap());
        assert_eq!(lines[2], "wrote-tmp");
        assert_eq!(lines[3], "refused");
        assert_eq!(lines.len(), 4, "no signal trap was inherited: {out}");
        assert!(!outside.path().join("x").exists());
    }

    #[test]
    fn with_noexec_no_file_can_be_made_in_memory_to_run_and_without_it_one_can() {
        // A file made with `memfd_create` is on no path the wall holds; where nothing written
        // may run (`Access::noexec`, a mini tool without `shell`) it cannot be made at all.
        let dir = tempfile::tempdir().unwrap();
        let script = "python3 -c 'import os; os.memfd_create(\"x\"); print(\"made\")' 2>&1";
        for noexec in [true, false] {
            let places = Places {
                roots: vec![dir.path().to_path_buf()],
                path: std::env::var_os("PATH"),
                ..Places::default()
            };
            let mut access = Access::for_profile(Profile::ReadOnly, &places);
            access.noexec = noexec;
            let confinement = Confinement::prepare(access).unwrap();
            let (status, out) = run(&confinement, dir.path(), script);
            if noexec {
                assert!(!status.success(), "{out}");
                assert!(out.contains("PermissionError"), "{out}");
            } else {
                assert!(status.success(), "{out}");
                assert_eq!(out.trim(), "made");
            }
        }
    }

    #[test]
    fn confined_calls_leave_no_descriptor_behind() {
        // The rule paths are cached with their descriptors; the per-call TMPDIR must not be,
        // or a long session runs out of descriptors (one leaked per call). Calls that may
        // write the workspace get a new TMPDIR each (`tmp::Reuse::Never`).
        let dir = tempfile::tempdir().unwrap();
        let writing = || {
            let places = Places {
                roots: vec![dir.path().to_path_buf()],
                path: std::env::var_os("PATH"),
                ..Places::default()
            };
            let mut access = Access::for_profile(Profile::ReadOnly, &places);
            access.write.push(dir.path().to_path_buf());
            Confinement::prepare(access).unwrap()
        };
        let open_fds = || std::fs::read_dir("/proc/self/fd").unwrap().count();
        drop(writing()); // the cache and the TMPDIR worker are set up
        let before = open_fds();
        let mut tmpdirs = std::collections::HashSet::new();
        for _ in 0..40 {
            let confinement = writing();
            tmpdirs.insert(confinement.tmpdir().to_path_buf());
            let (status, _) = run(&confinement, dir.path(), "true");
            assert!(status.success());
        }
        assert_eq!(
            tmpdirs.len(),
            40,
            "each writing call had a TMPDIR of its own"
        );
        let after = open_fds();
        assert!(
            after < before + 10,
            "{before} descriptors before, {after} after 40 calls"
        );
    }

    #[test]
    fn a_program_not_on_path_is_an_error_and_nothing_runs() {
        let dir = tempfile::tempdir().unwrap();
        let confinement = confinement(dir.path());
        let env = [("PATH".into(), dir.path().as_os_str().to_owned())];
        let spawn = Spawn {
            program: OsStr::new("no-such-program-here"),
            args: &[],
            cwd: dir.path(),
            env: &env,
        };
        let error = confinement.spawn(&spawn).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound, "{error}");
    }

    #[test]
    fn a_missing_directory_is_reported_by_the_child() {
        let dir = tempfile::tempdir().unwrap();
        let confinement = confinement(dir.path());
        let gone = dir.path().join("gone");
        let env = [("PATH".into(), std::env::var_os("PATH").unwrap_or_default())];
        let spawn = Spawn {
            program: OsStr::new("/bin/sh"),
            args: &[],
            cwd: &gone,
            env: &env,
        };
        let error = confinement.spawn(&spawn).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound, "{error}");
    }
}
