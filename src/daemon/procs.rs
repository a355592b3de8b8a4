//! The resident memory of a process and everything it started, from `/proc` (Linux; elsewhere
//! there is no number). A mini tool's tree is its `node` and whatever that node runs; the
//! daemon's own figure leaves its children out.

/// `VmRSS` of `pid`, in bytes.
pub fn rss(pid: u32) -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    vm_kib(line).map(|kib| kib * 1024)
}

/// `VmRSS` summed over `pid` and its descendants, in bytes.
pub fn tree_rss(pid: u32) -> Option<u64> {
    let own = rss(pid)?;
    Some(own + descendants(pid).into_iter().filter_map(rss).sum::<u64>())
}

/// Every live descendant of `pid` (children first, then theirs).
pub fn descendants(pid: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|p| Some((p, parent_of(p)?)))
        .collect();
    let mut out = Vec::new();
    let mut frontier = vec![pid];
    while let Some(parent) = frontier.pop() {
        for (child, _) in parents.iter().filter(|(_, pp)| *pp == parent) {
            if !out.contains(child) {
                out.push(*child);
                frontier.push(*child);
            }
        }
    }
    out
}

/// The parent pid from `/proc/<pid>/stat` (the field after the command's closing paren: a
/// command may contain spaces and parens).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_ppid(&stat)
}

fn parse_ppid(stat: &str) -> Option<u32> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// `VmRSS:   12345 kB` → 12345.
fn vm_kib(line: &str) -> Option<u64> {
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_parent_after_a_command_with_parens_and_spaces() {
        assert_eq!(parse_ppid("42 (my (odd) cmd) S 7 42 42 0"), Some(7));
        assert_eq!(parse_ppid("42 (node) R 1 42"), Some(1));
        assert_eq!(parse_ppid("garbage"), None);
    }

    #[test]
    fn reads_kib_from_a_status_line() {
        assert_eq!(vm_kib("VmRSS:\t   51200 kB"), Some(51200));
        assert_eq!(vm_kib("VmRSS:"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_has_resident_memory() {
        assert!(rss(std::process::id()).is_some_and(|b| b > 0));
    }
}
