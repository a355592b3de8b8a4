//! The catalog of SPEC §8.1: every tool of the four layers under its model-facing name, with
//! its layer, raw name, owner, risk, schema and exposure. Providers (built-ins, suites, mini
//! tools, MCP servers) declare `ToolDef`s; the catalog gives them final names through
//! `naming::assign`, so a collision between layers is found and reported in one place.
//!
//! The catalog also reads and writes its cache, `<runtime>/cache/catalog.json`, which holds the
//! mini tool and MCP layers as the last `reload` saw them, so `finch tool list|search|info` can
//! answer without starting anything. Built-ins and suites are never cached: they come from the
//! binary. Beside it `write_cache` writes `catalog.index` (`index_path`), the search index of
//! the cached tools that `finch tool search` ranks through (`toolsearch::index`); the cache is
//! written tool by tool so the index can record each tool's byte range in it.

use std::borrow::Cow;
use std::path::Path;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::naming::{self, Collision};
pub use super::tool::{Exposure, ToolDef, ToolSpec};
use super::tool::{Layer, Risk};
use super::toolsearch::{self, SearchIndex};
use crate::store::JsonError;

/// How a name given by a caller resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// The index of the tool.
    Found(usize),
    /// No tool has this name or raw name.
    Unknown,
    /// Several tools registered this raw name: the caller must use a model-facing name.
    Ambiguous,
}

/// Every tool of a run, by model-facing name.
#[derive(Debug, Default)]
pub struct Catalog {
    tools: Vec<ToolSpec>,
    /// Indices of `tools`, sorted by name (looked up by binary search: no copies of names).
    by_name: Vec<u32>,
    /// Indices of the tools whose raw name differs from their name, sorted by raw name.
    by_raw: Vec<u32>,
    collisions: Vec<Collision>,
    index: OnceLock<SearchIndex>,
}

impl Catalog {
    /// Names every definition. Order is kept: providers come in layer order, so listings are
    /// built-ins, suites, mini tools, MCP.
    pub fn build(defs: Vec<ToolDef>) -> Catalog {
        let wanted = defs
            .iter()
            .map(|d| {
                if naming::is_valid(&d.wanted_name) {
                    d.wanted_name.clone()
                } else {
                    naming::sanitize(&d.wanted_name)
                }
            })
            .collect();
        let (names, collisions) = naming::assign(wanted, |i| defs[i].key());
        let tools: Vec<ToolSpec> = names
            .into_iter()
            .zip(defs)
            .map(|(name, def)| ToolSpec { name, def })
            .collect();
        let mut by_name: Vec<u32> = (0..tools.len() as u32).collect();
        by_name.sort_unstable_by(|&a, &b| tools[a as usize].name.cmp(&tools[b as usize].name));
        let mut by_raw: Vec<u32> = (0..tools.len() as u32)
            .filter(|&i| tools[i as usize].def.raw_name != tools[i as usize].name)
            .collect();
        by_raw.sort_by(|&a, &b| {
            tools[a as usize]
                .def
                .raw_name
                .cmp(&tools[b as usize].def.raw_name)
        });
        Catalog {
            tools,
            by_name,
            by_raw,
            collisions,
            index: OnceLock::new(),
        }
    }

    pub fn tools(&self) -> &[ToolSpec] {
        &self.tools
    }

    pub fn get(&self, index: usize) -> &ToolSpec {
        &self.tools[index]
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Names that had to be changed because several tools wanted them.
    pub fn collisions(&self) -> &[Collision] {
        &self.collisions
    }

    /// Resolves a model-facing name, else a raw registered name that exactly one tool has.
    pub fn lookup(&self, name: &str) -> Lookup {
        if let Ok(at) = self
            .by_name
            .binary_search_by(|&i| self.tools[i as usize].name.as_str().cmp(name))
        {
            return Lookup::Found(self.by_name[at] as usize);
        }
        match self.with_raw(name) {
            [] => Lookup::Unknown,
            [i] => Lookup::Found(*i as usize),
            _ => Lookup::Ambiguous,
        }
    }

    /// The tools (indices) registered under a raw name different from their model-facing one.
    fn with_raw(&self, raw: &str) -> &[u32] {
        let key = |i: &u32| self.tools[*i as usize].def.raw_name.as_str();
        let start = self.by_raw.partition_point(|i| key(i) < raw);
        let end = start + self.by_raw[start..].partition_point(|i| key(i) == raw);
        &self.by_raw[start..end]
    }

    /// The model-facing names a raw name could mean (for the error of an ambiguous call).
    pub fn candidates(&self, raw: &str) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .with_raw(raw)
            .iter()
            .map(|&i| self.tools[i as usize].name.as_str())
            .collect();
        names.sort_unstable();
        names
    }

    /// The ranking index over every tool, built on first use.
    pub fn index(&self) -> &SearchIndex {
        self.index.get_or_init(|| SearchIndex::build(&self.tools))
    }
}

/// Version of the cache format; a cache of another version is ignored (and rewritten by the
/// next `reload`).
pub const CACHE_VERSION: u32 = 1;

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CacheFile {
    version: u32,
    #[serde(default)]
    generated_at: Option<String>,
    #[serde(default)]
    tools: Vec<ToolDef>,
}

/// The mini tool and MCP definitions saved by the last `reload`; none when there is no cache
/// or it is of another version. A cache that does not parse is an error naming the file.
pub fn read_cache(path: &Path) -> Result<Vec<ToolDef>, JsonError> {
    let Some(file) = crate::store::read_json_as::<CacheFile>(path)? else {
        return Ok(Vec::new());
    };
    if file.version != CACHE_VERSION {
        return Ok(Vec::new());
    }
    Ok(file
        .tools
        .into_iter()
        .filter(|d| matches!(d.layer, Layer::MiniTool | Layer::Mcp))
        .collect())
}

/// The same definitions without their input schemas (`Value::Null`): what listings and
/// searches need. Skipping the schemas — most of the file — keeps `finch tool search` over
/// thousands of cached tools fast.
pub fn read_cache_listing(path: &Path) -> Result<Vec<ToolDef>, JsonError> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Listed {
        raw_name: String,
        wanted_name: String,
        title: String,
        description: String,
        layer: Layer,
        source: String,
        #[serde(default)]
        owner: Option<String>,
        #[serde(default)]
        risk: Option<Risk>,
        #[serde(default)]
        exposure: Exposure,
        #[serde(default)]
        annotations: Option<Value>,
        #[serde(default, rename = "inputSchema")]
        _input_schema: serde::de::IgnoredAny,
    }
    #[derive(Deserialize)]
    struct Listing {
        version: u32,
        #[serde(default)]
        tools: Vec<Listed>,
    }
    let Some(file) = read_mapped::<Listing>(path)? else {
        return Ok(Vec::new());
    };
    if file.version != CACHE_VERSION {
        return Ok(Vec::new());
    }
    Ok(file
        .tools
        .into_iter()
        .filter(|d| matches!(d.layer, Layer::MiniTool | Layer::Mcp))
        .map(|d| ToolDef {
            raw_name: d.raw_name,
            wanted_name: d.wanted_name,
            title: d.title,
            description: d.description,
            layer: d.layer,
            source: d.source,
            owner: d.owner,
            risk: d.risk,
            input_schema: Value::Null,
            exposure: d.exposure,
            keywords: String::new(),
            annotations: d.annotations,
        })
        .collect())
}

/// Parses a JSON file through a read-only memory map: the page cache is parsed in place, with
/// no copy of a file that can be megabytes. The cache is replaced by rename, never rewritten
/// in place, so the mapped file does not change under the parser.
fn read_mapped<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>, JsonError> {
    with_mapped(path, |text| serde_json::from_str(text))
}

/// Calls `parse` with the text of the mapped file (`None` when there is no file).
fn with_mapped<R>(
    path: &Path,
    parse: impl FnOnce(&str) -> Result<R, serde_json::Error>,
) -> Result<Option<R>, JsonError> {
    let read_error = |source| JsonError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(read_error(e)),
    };
    let corrupt = |e: serde_json::Error| JsonError::Corrupt {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    };
    if file.metadata().map_err(read_error)?.len() == 0 {
        return Err(corrupt(serde_json::from_str::<Value>("").unwrap_err()));
    }
    // SAFETY: the map is read-only and private to this function; finch replaces the cache by
    // rename (the mapped inode stays as it was), and a truncation by another program could only
    // make this process fail, which is what reading a file being destroyed does anyway.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(read_error)?;
    match std::str::from_utf8(&map) {
        Ok(text) => parse(text).map(Some).map_err(corrupt),
        // Not UTF-8: the ordinary reader says where.
        Err(_) => match crate::store::read_json_as::<serde::de::IgnoredAny>(path) {
            Err(e) => Err(e),
            Ok(_) => Err(corrupt(serde::de::Error::custom("the file is not UTF-8"))),
        },
    }
}

/// A cached tool as `finch tool search` ranks it: its text borrowed from the mapped cache, its
/// schema skipped. Thousands of them cost no allocation per field.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CachedTool<'a> {
    #[serde(borrow)]
    pub raw_name: Cow<'a, str>,
    #[serde(borrow)]
    pub wanted_name: Cow<'a, str>,
    #[serde(borrow)]
    pub title: Cow<'a, str>,
    #[serde(borrow)]
    pub description: Cow<'a, str>,
    pub layer: Layer,
    #[serde(borrow)]
    pub source: Cow<'a, str>,
    #[serde(default, borrow)]
    pub owner: Option<Cow<'a, str>>,
    #[serde(default)]
    pub exposure: Exposure,
    #[serde(default, borrow)]
    pub keywords: Cow<'a, str>,
    #[serde(default, rename = "inputSchema")]
    _input_schema: serde::de::IgnoredAny,
}

/// Calls `each` with the cached mini tool and MCP tools, borrowed (none when there is no cache
/// or it is of another version).
pub fn with_cache_listing<R>(
    path: &Path,
    each: impl FnOnce(&[CachedTool<'_>]) -> R,
) -> Result<R, JsonError> {
    #[derive(Deserialize)]
    struct Listing<'a> {
        version: u32,
        #[serde(default, borrow)]
        tools: Vec<CachedTool<'a>>,
    }
    let mut each = Some(each);
    let mut call = |tools: &[CachedTool<'_>]| each.take().map(|f| f(tools));
    let answered = with_mapped(path, |text| {
        let listing: Listing = serde_json::from_str(text)?;
        let tools: Vec<CachedTool> = if listing.version == CACHE_VERSION {
            listing
                .tools
                .into_iter()
                .filter(|t| matches!(t.layer, Layer::MiniTool | Layer::Mcp))
                .collect()
        } else {
            Vec::new()
        };
        Ok(call(&tools))
    })?;
    match answered.flatten() {
        Some(r) => Ok(r),
        None => Ok(call(&[]).expect("`each` runs once")),
    }
}

/// Where the search index of a catalog cache lies: `catalog.index` beside `catalog.json`
/// (`toolsearch::index`).
pub fn index_path(cache: &Path) -> std::path::PathBuf {
    cache.with_extension("index")
}

/// Writes the cache atomically: the definitions of the mini tool and MCP layers among `defs`;
/// then its search index beside it (`index_path`), also atomically, over those and the
/// built-ins and suites among `defs` (in their order: the index names them by position). The
/// index is an optimization: a failure to write it does not fail the cache (a leftover index
/// no longer matches the new cache, so `finch tool search` ranks the cache itself).
pub fn write_cache(path: &Path, defs: &[ToolDef], generated_at: &str) -> std::io::Result<()> {
    let tools: Vec<ToolDef> = defs
        .iter()
        .filter(|d| matches!(d.layer, Layer::MiniTool | Layer::Mcp))
        .cloned()
        .collect();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    // Compact, unlike the state files people read: the cache is for finch, and thousands of
    // tools make indentation a third of the bytes every `tool search` parses. Written tool by
    // tool so the index can record where each one lies.
    let mut bytes = format!("{{\"version\":{CACHE_VERSION},\"generatedAt\":").into_bytes();
    serde_json::to_writer(&mut bytes, generated_at).map_err(std::io::Error::other)?;
    bytes.extend_from_slice(b",\"tools\":[");
    let mut entries = Vec::with_capacity(tools.len());
    for (i, tool) in tools.iter().enumerate() {
        if i > 0 {
            bytes.push(b',');
        }
        let start = bytes.len();
        serde_json::to_writer(&mut bytes, tool).map_err(std::io::Error::other)?;
        entries.push((start as u64, (bytes.len() - start) as u64));
    }
    bytes.extend_from_slice(b"]}\n");
    let written = crate::store::write_atomic_meta(path, &bytes)?;
    let index = index_path(path);
    let builtins: Vec<ToolDef> = defs
        .iter()
        .filter(|d| matches!(d.layer, Layer::Builtin | Layer::Suite))
        .cloned()
        .collect();
    let fingerprint = toolsearch::index::Fingerprint::of(&written);
    let indexed = toolsearch::index::build(&tools, &entries, &builtins, fingerprint)
        .and_then(|bytes| crate::store::write_atomic(&index, &bytes));
    if indexed.is_err() {
        let _ = std::fs::remove_file(&index);
    }
    Ok(())
}

/// Brings the cache at `path` up to date with `started`, the mini tool and MCP tools of the
/// providers a run started (`finch tool call`, `finch enable`): each of their sources
/// (`minitool:<id>`, `mcp:<server>`) replaces that source's cached tools, the other sources'
/// are kept — so completion, which never starts anything, knows a mini tool's arguments once
/// any run started it. `builtins` are the built-ins and suites, for the search index. Leaves
/// `catalog.state` alone: a cache `reload` did not build from everything stays stale for the
/// listings. A cache no run can read is rewritten. Nothing is written when nothing changed.
/// Not under a lock: it is a cache, and an update lost to a concurrent one costs only what the
/// next run writes again.
pub fn update_cache(
    path: &Path,
    builtins: &[ToolDef],
    started: &[ToolDef],
    generated_at: &str,
) -> std::io::Result<()> {
    let started: Vec<&ToolDef> = started
        .iter()
        .filter(|d| matches!(d.layer, Layer::MiniTool | Layer::Mcp))
        .collect();
    if started.is_empty() {
        return Ok(());
    }
    let cached = read_cache(path).unwrap_or_default();
    let sources: std::collections::HashSet<&str> =
        started.iter().map(|d| d.source.as_str()).collect();
    let mut tools: Vec<ToolDef> = cached
        .iter()
        .filter(|d| !sources.contains(d.source.as_str()))
        .cloned()
        .collect();
    tools.extend(started.into_iter().cloned());
    if path.exists() && cached == tools {
        return Ok(());
    }
    let mut every = builtins.to_vec();
    every.extend(tools);
    write_cache(path, &every, generated_at)
}

/// `<runtime>/cache/catalog.state`: the fingerprint (`sources_fingerprint`) of what the catalog
/// cache was built from, written with it. A cache whose fingerprint no longer matches is stale.
pub fn state_path(homes: &crate::homes::Homes) -> std::path::PathBuf {
    homes.catalog_cache().with_file_name("catalog.state")
}

/// A fingerprint of everything the cached layers come from: the enabled state
/// (`extensions.json`), the user's `servers.json`, and each entry of both tiers — its name and
/// the size and modification time of the entry and of its manifest files, so `add`, `remove`,
/// `update`, `enable`, `disable`, `mcp add|remove` and an edit of `servers.json` by anyone (the
/// app too) all change it. A mini tool's own sources are not part of it: editing a dev link's
/// code takes a `finch reload`, as its tools may change only when it runs.
pub fn sources_fingerprint(homes: &crate::homes::Homes) -> String {
    use sha2::{Digest, Sha256};
    use std::time::UNIX_EPOCH;
    let mut hash = Sha256::new();
    let stamp = |hash: &mut Sha256, path: &Path| match std::fs::metadata(path) {
        Ok(m) => {
            let modified = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            hash.update(format!("{}:{}:{modified}\n", path.display(), m.len()));
        }
        Err(_) => hash.update(format!("{}:-\n", path.display())),
    };
    for file in [homes.extensions_json(), homes.mcp_servers_json()] {
        hash.update(std::fs::read(&file).unwrap_or_default());
        hash.update(b"\n");
    }
    for tier in [crate::homes::Tier::Personal, crate::homes::Tier::Global] {
        let dir = homes.tier_dir(tier);
        let mut entries: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for entry in entries {
            stamp(&mut hash, &entry);
            for file in ["package.json", "finch.json", ".finch-id"] {
                stamp(&mut hash, &entry.join(file));
            }
        }
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether the catalog cache was built from what is installed and configured now.
pub fn cache_is_current(homes: &crate::homes::Homes) -> bool {
    std::fs::read_to_string(state_path(homes))
        .is_ok_and(|written| written.trim() == sources_fingerprint(homes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn def(raw: &str, wanted: &str, layer: Layer, source: &str) -> ToolDef {
        ToolDef {
            raw_name: raw.into(),
            wanted_name: wanted.into(),
            title: raw.into(),
            description: String::new(),
            layer,
            source: source.into(),
            owner: None,
            risk: None,
            input_schema: json!({"type": "object"}),
            exposure: Exposure::Startup,
            keywords: String::new(),
            annotations: None,
        }
    }

    #[test]
    fn raw_names_resolve_only_when_unique() {
        let catalog = Catalog::build(vec![
            def("Read", "Read", Layer::Builtin, "builtin"),
            def(
                "forecast",
                "acme_forecast",
                Layer::MiniTool,
                "minitool:acme",
            ),
            def("search", "a_search", Layer::MiniTool, "minitool:a"),
            def("search", "b_search", Layer::MiniTool, "minitool:b"),
        ]);
        assert_eq!(catalog.lookup("Read"), Lookup::Found(0));
        assert_eq!(catalog.lookup("acme_forecast"), Lookup::Found(1));
        assert_eq!(catalog.lookup("forecast"), Lookup::Found(1));
        assert_eq!(catalog.lookup("search"), Lookup::Ambiguous);
        assert_eq!(catalog.candidates("search"), ["a_search", "b_search"]);
        assert_eq!(catalog.lookup("nope"), Lookup::Unknown);
    }

    #[test]
    fn scoped_ids_are_sanitized_and_collisions_reported() {
        let catalog = Catalog::build(vec![
            def("x", "scope@tool_x", Layer::MiniTool, "minitool:scope@tool"),
            def("tool_x", "scope_tool_x", Layer::MiniTool, "minitool:scope"),
        ]);
        assert_eq!(catalog.collisions().len(), 1);
        assert_eq!(catalog.collisions()[0].name, "scope_tool_x");
        for tool in catalog.tools() {
            assert!(naming::is_valid(&tool.name), "{}", tool.name);
            assert!(tool.name.starts_with("scope_tool_x_"), "{}", tool.name);
        }
    }

    #[test]
    fn the_cache_round_trips_and_keeps_only_dynamic_layers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache").join("catalog.json");
        assert!(read_cache(&path).unwrap().is_empty());
        let defs = vec![
            def("Read", "Read", Layer::Builtin, "builtin"),
            def("echo", "mcp__e__echo", Layer::Mcp, "mcp:e"),
        ];
        write_cache(&path, &defs, "2026-11-30T00:00:00Z").unwrap();
        assert_eq!(read_cache(&path).unwrap(), defs[1..].to_vec());
        let mut listed = defs[1].clone();
        listed.input_schema = Value::Null;
        assert_eq!(read_cache_listing(&path).unwrap(), vec![listed]);
        std::fs::write(&path, "{\"version\":99,\"tools\":[]}").unwrap();
        assert!(read_cache(&path).unwrap().is_empty());
        std::fs::write(&path, "{").unwrap();
        assert!(read_cache(&path).is_err());
    }
}
