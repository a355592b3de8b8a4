//! Fresh identifiers and randomness for every part of finch: task ids (`t-` + 6 hex), run ids
//! (`r-` + 10 hex), space ids (`sp-` + 8 hex), transcript entry ids (8 hex, as pi writes them),
//! session ids (UUID version 4), and jitter. Randomness comes from the kernel (`/dev/urandom`);
//! where that cannot be read, from a hash of the time, the process id and a counter, which is
//! unique enough for ids that are also checked against the ids already in use.
//!
//! Also the one way finch turns what a person typed for an id — the id, an unambiguous
//! beginning of it, or a name — into the thing it names (`pick`), used by sessions and tasks.

use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

/// `n` random bytes.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut out = [0u8; N];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut out));
    if read.is_err() {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let seed = format!(
            "{nanos}\0{}\0{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let digest = Sha256::digest(seed);
        for (o, d) in out.iter_mut().zip(digest.iter().cycle()) {
            *o = *d;
        }
    }
    out
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `t-` and 6 hex digits, not one of `taken`.
pub fn new_task_id(taken: &[&str]) -> String {
    loop {
        let id = format!("t-{}", hex(&random_bytes::<3>()));
        if !taken.contains(&id.as_str()) {
            return id;
        }
    }
}

/// `sp-` and 8 hex digits, not one of `taken`.
pub fn new_space_id(taken: &[&str]) -> String {
    loop {
        let id = format!("sp-{}", hex(&random_bytes::<4>()));
        if !taken.contains(&id.as_str()) {
            return id;
        }
    }
}

/// 8 hex digits, the form of pi's transcript entry ids. Drawn from a generator seeded once per
/// process from the kernel (splitmix64): a run writes an entry per call, and entry ids must
/// differ, not be secret — a read of `/dev/urandom` per call was a measurable part of a call.
pub fn new_entry_id() -> String {
    static SEED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    static STEP: AtomicU64 = AtomicU64::new(0);
    let seed = *SEED.get_or_init(|| u64::from_le_bytes(random_bytes::<8>()));
    let step = STEP.fetch_add(1, Ordering::Relaxed);
    let mut z = seed.wrapping_add(step.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    format!("{:08x}", z as u32)
}

/// A number in [0, 1), for jitter.
pub fn random_unit() -> f64 {
    (u64::from_le_bytes(random_bytes::<8>()) >> 11) as f64 / (1u64 << 53) as f64
}

/// `r-` and 10 hex digits.
pub fn new_run_id() -> String {
    format!("r-{}", hex(&random_bytes::<5>()))
}

/// A random (version 4) UUID in its usual lowercase text form.
pub fn new_session_id() -> String {
    let mut b = random_bytes::<16>();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    format!(
        "{}-{}-{}-{}-{}",
        hex(&b[0..4]),
        hex(&b[4..6]),
        hex(&b[6..8]),
        hex(&b[8..10]),
        hex(&b[10..16])
    )
}

/// What a typed id or name picked out of a list (`pick`).
#[derive(Debug, Clone, PartialEq)]
pub enum Picked<T> {
    One(T),
    Nothing,
    /// Several items match in the first way of naming that matched any.
    Several(Vec<T>),
}

/// The one item of `items` that a person's words name. Each of `ways` is one way of naming an
/// item (the whole id, a name, the beginning of an id), tried in order: the first way that
/// matches any item decides, so an exact id wins over a longer id it begins, and a name over an
/// id it happens to begin.
pub fn pick<T>(items: Vec<T>, ways: &[&dyn Fn(&T) -> bool]) -> Picked<T> {
    for way in ways {
        let hits: Vec<bool> = items.iter().map(way).collect();
        if !hits.contains(&true) {
            continue;
        }
        let mut chosen: Vec<T> = items
            .into_iter()
            .zip(hits)
            .filter_map(|(item, hit)| hit.then_some(item))
            .collect();
        return match chosen.len() {
            1 => chosen.pop().map_or(Picked::Nothing, Picked::One),
            _ => Picked::Several(chosen),
        };
    }
    Picked::Nothing
}

/// Whether `text` equals `query`, ignoring case.
pub fn same(text: &str, query: &str) -> bool {
    text.to_lowercase() == query.to_lowercase()
}

/// Whether `text` begins with `query`, ignoring case.
pub fn begins(text: &str, query: &str) -> bool {
    text.to_lowercase().starts_with(&query.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pick_tries_each_way_in_order() {
        let items = vec![
            ("t-abc123", "daily"),
            ("t-abd456", "t-abc"),
            ("t-ff0000", "Daily"),
        ];
        let id = |q: &'static str| move |t: &(&str, &str)| same(t.0, q);
        let name = |q: &'static str| move |t: &(&str, &str)| same(t.1, q);
        let begins = |q: &'static str| move |t: &(&str, &str)| begins(t.0, q);
        let by = |q: &'static str| pick(items.clone(), &[&id(q), &name(q), &begins(q)]);
        assert_eq!(by("T-ABD456"), Picked::One(("t-abd456", "t-abc")));
        // A name wins over an id it begins.
        assert_eq!(by("t-abc"), Picked::One(("t-abd456", "t-abc")));
        assert_eq!(by("t-f"), Picked::One(("t-ff0000", "Daily")));
        assert_eq!(
            by("daily"),
            Picked::Several(vec![("t-abc123", "daily"), ("t-ff0000", "Daily")])
        );
        assert_eq!(
            by("t-ab").clone(),
            Picked::Several(vec![items[0], items[1]])
        );
        assert_eq!(by("x"), Picked::Nothing);
    }

    #[test]
    fn ids_have_their_shapes() {
        let task = new_task_id(&[]);
        assert!(task.starts_with("t-") && task.len() == 8, "{task}");
        let run = new_run_id();
        assert!(run.starts_with("r-") && run.len() == 12, "{run}");
        let session = new_session_id();
        let parts: Vec<&str> = session.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('4'), "{session}");
        assert!(matches!(&parts[3][..1], "8" | "9" | "a" | "b"), "{session}");
        assert_ne!(new_session_id(), session);
        let space = new_space_id(&[]);
        assert!(space.starts_with("sp-") && space.len() == 11, "{space}");
        let entry = new_entry_id();
        assert!(
            entry.len() == 8 && entry.chars().all(|c| c.is_ascii_hexdigit()),
            "{entry}"
        );
        let unit = random_unit();
        assert!((0.0..1.0).contains(&unit), "{unit}");
    }

    #[test]
    fn entry_ids_differ_within_a_run() {
        let ids: std::collections::HashSet<String> = (0..1000).map(|_| new_entry_id()).collect();
        assert_eq!(ids.len(), 1000);
        assert!(
            ids.iter()
                .all(|id| id.len() == 8 && id.chars().all(|c| c.is_ascii_hexdigit()))
        );
    }
}
