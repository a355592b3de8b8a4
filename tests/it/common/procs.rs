//! The host's view of processes that run in a PID namespace of their own (the kernel wall,
//! issue 40): a confined program knows only its namespace's pid, which on the host names some
//! other process, so a test finds it by its namespace or by a command line of its own.

/// What a mini tool fixture reports of itself (`{pid, ns}`: `process.pid` and
/// `readlink /proc/self/ns/pid`): its pid on the host, while it runs.
pub fn host_pid(pid: u64, ns: &str) -> Option<u64> {
    entries().find(|&host| {
        std::fs::read_link(format!("/proc/{host}/ns/pid"))
            .is_ok_and(|link| link.to_str() == Some(ns))
            && namespace_pid(host) == Some(pid)
    })
}

/// The host pids of the running processes whose command line is exactly `argv` (a zombie
/// has none).
pub fn pids_running(argv: &[&str]) -> Vec<u64> {
    let want: Vec<u8> = argv
        .iter()
        .flat_map(|a| [a.as_bytes(), b"\0"].concat())
        .collect();
    entries()
        .filter(|host| std::fs::read(format!("/proc/{host}/cmdline")).is_ok_and(|c| c == want))
        .collect()
}

fn entries() -> impl Iterator<Item = u64> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
}

/// The pid a process has in its own (innermost) PID namespace: the last of `NSpid`.
fn namespace_pid(host: u64) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{host}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("NSpid:"))?;
    line.split_whitespace().last()?.parse().ok()
}
