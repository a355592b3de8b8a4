//! Model-facing tool names (SPEC §8.1): every name sent to a model matches
//! `^[A-Za-z0-9_-]{1,64}$`. Characters outside the set become `_` (a scoped mini tool id
//! `scope@name` becomes `scope_name`); a name over 64 characters is cut and given a short stable
//! hash suffix; names that would collide all get hash suffixes, and the collision is reported.
//! Pure functions: the catalog feeds the raw names of every layer and keeps the result.

use sha2::{Digest, Sha256};

/// The longest name a model accepts.
pub const MAX_NAME_LEN: usize = 64;
/// Hex digits of the stable suffix added to cut or colliding names.
const SUFFIX_HEX: usize = 8;

/// `raw` with every character outside `[A-Za-z0-9_-]` replaced by `_`.
pub fn sanitize(raw: &str) -> String {
    raw.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `<mini-tool-id>_<name>`, the name of a tool a mini tool registers.
pub fn minitool_tool(minitool_id: &str, tool: &str) -> String {
    sanitize(&format!("{minitool_id}_{tool}"))
}

/// `mcp__<server>__<tool>`, with the server normalized as SPEC §9.2 merges servers (lowercase,
/// anything outside `[a-z0-9]` → `_`).
pub fn mcp_tool(server: &str, tool: &str) -> String {
    let server: String = server
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_lowercase() || c.is_ascii_digit() {
                c
            } else {
                '_'
            }
        })
        .collect();
    sanitize(&format!("mcp__{server}__{tool}"))
}

/// `name` cut to fit with a suffix `_<8 hex>` derived from `key` (the tool's full identity, so
/// the suffix is stable across runs and differs between tools that share a prefix).
fn with_suffix(name: &str, key: &str) -> String {
    let digest = Sha256::digest(key.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    let keep = MAX_NAME_LEN - SUFFIX_HEX - 1;
    let head: String = name.chars().take(keep).collect();
    format!("{head}_{}", &hex[..SUFFIX_HEX])
}

/// A model-facing name that had to be changed to stay unique.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collision {
    /// The name the tools would have shared.
    pub name: String,
    /// The identities (`key`s) of the tools that wanted it.
    pub keys: Vec<String>,
}

/// Assigns final names. `wanted[i]` is the sanitized name tool `i` asks for; `key(i)` is its
/// full identity (e.g. `minitool:acme@weather/search`), asked for only when a suffix is needed.
/// Names over 64 characters are cut with a suffix; names wanted by more than one tool all get
/// suffixes. The result is in request order.
pub fn assign(
    mut names: Vec<String>,
    key: impl Fn(usize) -> String,
) -> (Vec<String>, Vec<Collision>) {
    for (i, name) in names.iter_mut().enumerate() {
        if name.is_empty() {
            *name = with_suffix("tool", &key(i));
        } else if name.len() > MAX_NAME_LEN && name.chars().count() > MAX_NAME_LEN {
            *name = with_suffix(name, &key(i));
        }
    }
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_unstable_by(|&a, &b| names[a].cmp(&names[b]));
    let groups: Vec<&[usize]> = order
        .chunk_by(|&a, &b| names[a] == names[b])
        .filter(|g| g.len() > 1)
        .collect();
    let mut collisions = Vec::with_capacity(groups.len());
    for group in &groups {
        collisions.push(Collision {
            name: names[group[0]].clone(),
            keys: group.iter().map(|&i| key(i)).collect(),
        });
    }
    for (group, collision) in groups.iter().zip(&mut collisions) {
        for (&i, k) in group.iter().zip(&collision.keys) {
            names[i] = with_suffix(&collision.name, k);
        }
        collision.keys.sort();
    }
    (names, collisions)
}

/// Whether `name` is acceptable to a model as it is.
pub fn is_valid(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitizing_and_layer_names() {
        let cases = [
            (
                minitool_tool("acme@weather", "search"),
                "acme_weather_search",
            ),
            (
                minitool_tool("myextension", "search_docs"),
                "myextension_search_docs",
            ),
            (minitool_tool("tool.v2", "go"), "tool_v2_go"),
            (minitool_tool("天气", "查"), "____"),
            (
                mcp_tool("GitHub", "create_issue"),
                "mcp__github__create_issue",
            ),
            (
                mcp_tool("my-server.io", "do it"),
                "mcp__my_server_io__do_it",
            ),
            (sanitize("Read"), "Read"),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
            assert!(is_valid(&got), "{got}");
        }
    }

    fn assign_pairs(requests: &[(String, String)]) -> (Vec<String>, Vec<Collision>) {
        let wanted = requests.iter().map(|(_, w)| w.clone()).collect();
        assign(wanted, |i| requests[i].0.clone())
    }

    #[test]
    fn long_names_are_cut_with_a_stable_suffix() {
        let long = "a".repeat(100);
        let (names, collisions) = assign_pairs(&[("k1".into(), long.clone())]);
        assert_eq!(names[0].len(), MAX_NAME_LEN);
        assert!(names[0].starts_with(&"a".repeat(55)) && names[0].as_bytes()[55] == b'_');
        assert!(is_valid(&names[0]));
        assert!(collisions.is_empty());
        let (again, _) = assign_pairs(&[("k1".into(), long.clone())]);
        assert_eq!(names, again, "stable across runs");
        let (other, _) = assign_pairs(&[("k2".into(), long)]);
        assert_ne!(names, other, "the suffix follows the tool's identity");
    }

    #[test]
    fn collisions_all_get_suffixes_and_are_reported() {
        let requests = vec![
            ("minitool:a.b/c".to_string(), minitool_tool("a.b", "c")),
            ("minitool:a@b/c".to_string(), minitool_tool("a@b", "c")),
            ("builtin:Read".to_string(), "Read".to_string()),
        ];
        let (names, collisions) = assign_pairs(&requests);
        assert_eq!(names[2], "Read");
        assert_ne!(names[0], names[1]);
        assert!(names[0].starts_with("a_b_c_") && names[1].starts_with("a_b_c_"));
        assert!(names.iter().all(|n| is_valid(n)));
        assert_eq!(
            collisions,
            vec![Collision {
                name: "a_b_c".into(),
                keys: vec!["minitool:a.b/c".into(), "minitool:a@b/c".into()],
            }]
        );
    }

    #[test]
    fn an_empty_name_still_gets_a_valid_one() {
        let (names, _) = assign_pairs(&[("k".into(), String::new())]);
        assert!(is_valid(&names[0]) && names[0].starts_with("tool_"));
    }

    #[test]
    fn validity() {
        for ok in ["Read", "mcp__x__y", "a-b_c9"] {
            assert!(is_valid(ok), "{ok}");
        }
        for bad in ["", "a b", "a.b", &"x".repeat(65), "é"] {
            assert!(!is_valid(bad), "{bad}");
        }
    }
}
