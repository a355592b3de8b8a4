//! The search index of the catalog cache, `<runtime>/cache/catalog.index`: what `finch tool
//! search` needs to rank the cached mini tool and MCP tools without parsing `catalog.json`.
//! `catalog::write_cache` writes it beside the cache (atomically, after the cache); a failure
//! to write it is ignored, since the search then ranks the cache itself.
//!
//! It holds the statistics of the one BM25 of this module — the stemmed terms exactly as
//! `for_each_tool_term` yields them, with their weights and the name flag — for the cached
//! tools only: the built-ins and suites come from the binary and are counted at search time,
//! and `n`, the document frequencies and the average length are taken over both, so a score
//! is the one `search_once` gives, to the bit. The hits' display fields are then parsed from
//! their own bytes of `catalog.json`, whose byte range the index records.
//!
//! ## Format (version 1, every integer little-endian)
//!
//! A header of `HEADER_LEN` bytes: the magic `finchtsx`, the format version (u32), the section
//! count (u32), the index's own length (u64), the fingerprint of the `catalog.json` it was
//! built from (length u64, modification time as seconds i64 and nanoseconds u32, 4 bytes of
//! padding, inode u64 — 0 where there is none), a hash (FNV-1a, u64) of the built-ins' and
//! suites' names and sources (their final names depend on the cached tools' and back), the sum
//! of the cached tools' lengths (u64), and the sections as (offset u32, length u32):
//!
//! | section  | records                                                                      |
//! |----------|------------------------------------------------------------------------------|
//! | strings  | UTF-8 bytes the other sections point into (offset, length)                    |
//! | terms    | term string, first posting, posting count — sorted by the term's bytes       |
//! | postings | tool, weighted tf with bit 31 set when the term is in the tool's names        |
//! | tools    | final name, raw name, source (index into sources), layer, length, byte range |
//! |          | of its entry in `catalog.json` (offset, length)                              |
//! | sources  | each distinct `source` string                                                |
//! | builtins | the final names of the built-ins and suites, in `Provider` order              |
//! | exact    | folded name or raw name, tool — sorted (the exact-name boost)                 |
//! | prefix   | the same without `_`/`-`, tool — sorted (the name-prefix boost)               |
//!
//! An index is used only when its magic, version and length are right, every section lies
//! inside the file in whole records, its fingerprint is the `catalog.json` just opened (`fstat`
//! of the same handle the entries are then read from) and its built-in hash is this binary's;
//! a record that points outside its section, or a hit whose entry does not parse back to the
//! tool (name, source, layer) the index names, drops the index too. Anything else — missing,
//! stale, another version, truncated, garbage — and `finch tool search` ranks the cache
//! itself, silently, with the same results. Every read is bounds-checked: no byte content can
//! panic. (Bytes changed inside a well-formed index, by hand, can only mis-rank: there is no
//! checksum, which would cost a read of the whole file per search.)

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::{
    EXACT_NAME_BOOST, Hit, NAME_PREFIX_BOOST, NameTerms, Names, Searchable, SourceFilter,
    TermCounts, avg_len, bm25, folded_query, for_each_tool_term, idf, name_boost, query_terms,
    rank,
};
use crate::host::naming;
use crate::host::tool::Layer;
use crate::host::tool::ToolDef;

const MAGIC: &[u8; 8] = b"finchtsx";
/// The format version; an index of another version is not read.
pub const VERSION: u32 = 1;
const SECTIONS: usize = 8;
const HEADER_LEN: usize = 72 + SECTIONS * 8;

const S_STRINGS: usize = 0;
const S_TERMS: usize = 1;
const S_POSTINGS: usize = 2;
const S_TOOLS: usize = 3;
const S_SOURCES: usize = 4;
const S_BUILTINS: usize = 5;
const S_EXACT: usize = 6;
const S_PREFIX: usize = 7;
/// The size of a section's records, in u32 words (the strings are bytes).
const WORDS: [usize; SECTIONS] = [0, 4, 2, 9, 2, 2, 3, 3];
const IN_NAME: u32 = 1 << 31;

/// What ties an index to the `catalog.json` it was built from: the file's length, modification
/// time and inode, taken from the written temp file before it was renamed into place (rename
/// keeps all three), so two `reload`s racing cannot pair one's index with the other's cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Fingerprint {
    pub len: u64,
    pub mtime_s: i64,
    pub mtime_ns: u32,
    pub ino: u64,
}

impl Fingerprint {
    pub fn of(meta: &std::fs::Metadata) -> Fingerprint {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Fingerprint {
                len: meta.len(),
                mtime_s: meta.mtime(),
                mtime_ns: meta.mtime_nsec() as u32,
                ino: meta.ino(),
            }
        }
        #[cfg(not(unix))]
        {
            let since = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .unwrap_or_default();
            Fingerprint {
                len: meta.len(),
                mtime_s: since.as_secs() as i64,
                mtime_ns: since.subsec_nanos(),
                ino: 0,
            }
        }
    }
}

/// FNV-1a over what the final names of the built-ins and suites depend on (the cached tools'
/// final names depend on them too).
fn builtins_hash(builtins: &[ToolDef]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes.iter().chain(&[0xff]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(&(builtins.len() as u64).to_le_bytes());
    for d in builtins {
        eat(d.wanted_name.as_bytes());
        eat(d.source.as_bytes());
        eat(d.raw_name.as_bytes());
    }
    h
}

/// The final names of the built-ins and suites, then of the cached tools, exactly as
/// `Catalog::build` (and `finch tool search`) names them.
pub fn final_names(builtins: &[ToolDef], cached: &[ToolDef]) -> Vec<String> {
    let all: Vec<&ToolDef> = builtins.iter().chain(cached).collect();
    let wanted = all
        .iter()
        .map(|d| {
            if naming::is_valid(&d.wanted_name) {
                d.wanted_name.clone()
            } else {
                naming::sanitize(&d.wanted_name)
            }
        })
        .collect();
    naming::assign(wanted, |i| format!("{}/{}", all[i].source, all[i].raw_name)).0
}

/// A definition under its final name, as ranking sees it.
pub struct Named<'a> {
    pub name: &'a str,
    pub def: &'a ToolDef,
}

impl Searchable for Named<'_> {
    fn name(&self) -> &str {
        self.name
    }
    fn raw_name(&self) -> &str {
        &self.def.raw_name
    }
    fn title(&self) -> &str {
        &self.def.title
    }
    fn description(&self) -> &str {
        &self.def.description
    }
    fn keywords(&self) -> &str {
        &self.def.keywords
    }
    fn layer(&self) -> Layer {
        self.def.layer
    }
    fn source(&self) -> &str {
        &self.def.source
    }
}

fn layer_code(layer: Layer) -> u32 {
    match layer {
        Layer::Builtin => 0,
        Layer::Suite => 1,
        Layer::MiniTool => 2,
        Layer::Mcp => 3,
    }
}

fn cached_layer(code: u32) -> Option<Layer> {
    match code {
        2 => Some(Layer::MiniTool),
        3 => Some(Layer::Mcp),
        _ => None,
    }
}

/// Strings written once each, pointed at by (offset, length).
#[derive(Default)]
struct Strings {
    bytes: Vec<u8>,
    seen: HashMap<String, (u32, u32)>,
}

impl Strings {
    fn add(&mut self, s: &str) -> std::io::Result<(u32, u32)> {
        if let Some(&at) = self.seen.get(s) {
            return Ok(at);
        }
        let at = (to_u32(self.bytes.len())?, to_u32(s.len())?);
        self.bytes.extend_from_slice(s.as_bytes());
        self.seen.insert(s.to_string(), at);
        Ok(at)
    }
}

fn to_u32(n: usize) -> std::io::Result<u32> {
    u32::try_from(n).map_err(|_| std::io::Error::other("the catalog is too large to index"))
}

fn to_u32_64(n: u64) -> std::io::Result<u32> {
    u32::try_from(n).map_err(|_| std::io::Error::other("the catalog is too large to index"))
}

/// Builds the index of `cached` (the mini tool and MCP tools in `catalog.json`'s order;
/// `entries[i]` is the byte range of tool `i`'s object there), with `builtins` the built-ins and
/// suites the names were assigned beside, and `catalog` the fingerprint of the cache file.
pub fn build(
    cached: &[ToolDef],
    entries: &[(u64, u64)],
    builtins: &[ToolDef],
    catalog: Fingerprint,
) -> std::io::Result<Vec<u8>> {
    if entries.len() != cached.len() {
        return Err(std::io::Error::other("one byte range per cached tool"));
    }
    let names = final_names(builtins, cached);
    let (builtin_names, cached_names) = names.split_at(builtins.len());
    let mut strings = Strings::default();

    // Terms and postings, in tool order.
    let mut term_ids: HashMap<String, u32> = HashMap::new();
    let mut postings: Vec<Vec<(u32, u32)>> = Vec::new();
    let mut tools: Vec<u32> = Vec::with_capacity(cached.len() * WORDS[S_TOOLS]);
    let mut sources: Vec<(u32, u32)> = Vec::new();
    let mut source_ids: HashMap<&str, u32> = HashMap::new();
    let mut exact: Vec<(String, u32)> = Vec::new();
    let mut prefix: Vec<(String, u32)> = Vec::new();
    let mut scratch = NameTerms::default();
    let mut doc: Vec<(u32, u32)> = Vec::new();
    let mut total_len: u64 = 0;
    for (i, (def, name)) in cached.iter().zip(cached_names).enumerate() {
        let tool = Named { name, def };
        let i = to_u32(i)?;
        doc.clear();
        let mut len = 0u32;
        for_each_tool_term(&tool, &mut scratch, |term, weight, in_name| {
            let id = match term_ids.get(term) {
                Some(&id) => id,
                None => {
                    let id = term_ids.len() as u32;
                    term_ids.insert(term.to_string(), id);
                    postings.push(Vec::new());
                    id
                }
            };
            let flag = if in_name { IN_NAME } else { 0 };
            match doc.iter_mut().find(|(t, _)| *t == id) {
                Some((_, tf)) => *tf = (*tf + weight) | flag,
                None => doc.push((id, weight | flag)),
            }
            len += weight;
        });
        for &(term, tf) in &doc {
            postings[term as usize].push((i, tf));
        }
        total_len += u64::from(len);
        let source = match source_ids.get(def.source.as_str()) {
            Some(&id) => id,
            None => {
                let id = to_u32(sources.len())?;
                sources.push(strings.add(&def.source)?);
                source_ids.insert(&def.source, id);
                id
            }
        };
        let layer = layer_code(def.layer);
        if cached_layer(layer).is_none() {
            return Err(std::io::Error::other(
                "only mini tool and MCP tools are cached",
            ));
        }
        let (name_at, raw_at) = (strings.add(name)?, strings.add(&def.raw_name)?);
        let (entry_at, entry_len) = entries[i as usize];
        tools.extend([
            name_at.0,
            name_at.1,
            raw_at.0,
            raw_at.1,
            source,
            layer,
            len,
            to_u32_64(entry_at)?,
            to_u32_64(entry_len)?,
        ]);
        let folded = Names::of(&tool);
        exact.push((folded.name, i));
        if folded.raw != exact[exact.len() - 1].0 {
            exact.push((folded.raw, i));
        }
        prefix.push((folded.name_squashed, i));
        if folded.raw_squashed != prefix[prefix.len() - 1].0 {
            prefix.push((folded.raw_squashed, i));
        }
    }

    let mut by_term: Vec<(&str, u32)> = term_ids.iter().map(|(t, &id)| (t.as_str(), id)).collect();
    by_term.sort_unstable();
    let mut terms: Vec<u32> = Vec::with_capacity(by_term.len() * WORDS[S_TERMS]);
    let mut posting_words: Vec<u32> = Vec::new();
    for (term, id) in by_term {
        let list = &postings[id as usize];
        let at = strings.add(term)?;
        terms.extend([
            at.0,
            at.1,
            to_u32(posting_words.len() / 2)?,
            to_u32(list.len())?,
        ]);
        for &(tool, tf) in list {
            posting_words.extend([tool, tf]);
        }
    }
    let mut builtin_words = Vec::with_capacity(builtin_names.len() * 2);
    for name in builtin_names {
        let at = strings.add(name)?;
        builtin_words.extend([at.0, at.1]);
    }
    let mut table = |mut rows: Vec<(String, u32)>| -> std::io::Result<Vec<u32>> {
        rows.sort_unstable();
        let mut words = Vec::with_capacity(rows.len() * 3);
        for (s, tool) in rows {
            let at = strings.add(&s)?;
            words.extend([at.0, at.1, tool]);
        }
        Ok(words)
    };
    let exact = table(exact)?;
    let prefix = table(prefix)?;
    let source_words: Vec<u32> = sources.iter().flat_map(|&(a, b)| [a, b]).collect();

    let words: [&[u32]; SECTIONS] = [
        &[],
        &terms,
        &posting_words,
        &tools,
        &source_words,
        &builtin_words,
        &exact,
        &prefix,
    ];
    let mut body: Vec<u8> = Vec::new();
    let mut table_of = [(0u32, 0u32); SECTIONS];
    for (s, section) in words.iter().enumerate() {
        let start = HEADER_LEN + body.len();
        if s == S_STRINGS {
            body.extend_from_slice(&strings.bytes);
            // Keep the u32 sections 4-aligned (not needed to read them, but tidy).
            while !body.len().is_multiple_of(4) {
                body.push(0);
            }
        } else {
            for w in *section {
                body.extend_from_slice(&w.to_le_bytes());
            }
        }
        let len = if s == S_STRINGS {
            strings.bytes.len()
        } else {
            section.len() * 4
        };
        table_of[s] = (to_u32(start)?, to_u32(len)?);
    }
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(SECTIONS as u32).to_le_bytes());
    out.extend_from_slice(&((HEADER_LEN + body.len()) as u64).to_le_bytes());
    out.extend_from_slice(&catalog.len.to_le_bytes());
    out.extend_from_slice(&catalog.mtime_s.to_le_bytes());
    out.extend_from_slice(&catalog.mtime_ns.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&catalog.ino.to_le_bytes());
    out.extend_from_slice(&builtins_hash(builtins).to_le_bytes());
    out.extend_from_slice(&total_len.to_le_bytes());
    for (off, len) in table_of {
        out.extend_from_slice(&off.to_le_bytes());
        out.extend_from_slice(&len.to_le_bytes());
    }
    debug_assert_eq!(out.len(), HEADER_LEN);
    out.extend_from_slice(&body);
    Ok(out)
}

enum Bytes {
    Mapped(memmap2::Mmap),
    #[cfg_attr(not(test), allow(dead_code))]
    Owned(Vec<u8>),
}

/// A read index. Every accessor is bounds-checked; `open` checked the structure.
pub struct Index {
    bytes: Bytes,
    sections: [(usize, usize); SECTIONS],
    catalog: Fingerprint,
    builtins_hash: u64,
    total_len: u64,
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    let word = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(word.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    let word = b.get(at..at.checked_add(8)?)?;
    Some(u64::from_le_bytes(word.try_into().ok()?))
}

impl Index {
    /// Maps and checks the index file; `None` when there is none or it cannot be used.
    pub fn open(path: &Path) -> Option<Index> {
        let file = std::fs::File::open(path).ok()?;
        let len = file.metadata().ok()?.len();
        if len < HEADER_LEN as u64 {
            return None;
        }
        // SAFETY: read-only and private; the index is replaced by rename, never rewritten in
        // place (the same argument as `catalog::with_mapped`), and every read is bounds-checked.
        let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
        Index::parse(Bytes::Mapped(map))
    }

    #[cfg(test)]
    pub fn from_bytes(bytes: Vec<u8>) -> Option<Index> {
        Index::parse(Bytes::Owned(bytes))
    }

    fn parse(bytes: Bytes) -> Option<Index> {
        let b: &[u8] = match &bytes {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        };
        if b.get(..8)? != MAGIC
            || u32_at(b, 8)? != VERSION
            || u32_at(b, 12)? as usize != SECTIONS
            || u64_at(b, 16)? != b.len() as u64
        {
            return None;
        }
        let catalog = Fingerprint {
            len: u64_at(b, 24)?,
            mtime_s: u64_at(b, 32)? as i64,
            mtime_ns: u32_at(b, 40)?,
            ino: u64_at(b, 48)?,
        };
        let mut sections = [(0usize, 0usize); SECTIONS];
        for (s, section) in sections.iter_mut().enumerate() {
            let off = u32_at(b, 72 + s * 8)? as usize;
            let len = u32_at(b, 76 + s * 8)? as usize;
            if off < HEADER_LEN || off.checked_add(len)? > b.len() {
                return None;
            }
            if WORDS[s] > 0 && !len.is_multiple_of(WORDS[s] * 4) {
                return None;
            }
            *section = (off, len);
        }
        let index = Index {
            catalog,
            builtins_hash: u64_at(b, 56)?,
            total_len: u64_at(b, 64)?,
            sections,
            bytes,
        };
        index.check().then_some(index)
    }

    /// Every source and built-in name is a string. (The tools' records are read checked when
    /// used: ranking compares name bytes, a bad source or layer admits nothing, and a hit
    /// whose name, raw name, source or layer is not what its entry in `catalog.json` says
    /// drops the index.)
    fn check(&self) -> bool {
        (0..self.count(S_SOURCES)).all(|s| self.pair_str(S_SOURCES, s).is_some())
            && (0..self.count(S_BUILTINS)).all(|s| self.pair_str(S_BUILTINS, s).is_some())
    }

    fn bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }

    fn count(&self, s: usize) -> usize {
        self.sections[s].1 / (WORDS[s] * 4)
    }

    /// Word `field` of record `i` of section `s`.
    fn word(&self, s: usize, i: usize, field: usize) -> Option<u32> {
        if i >= self.count(s) || field >= WORDS[s] {
            return None;
        }
        u32_at(
            self.bytes(),
            self.sections[s].0 + (i * WORDS[s] + field) * 4,
        )
    }

    fn string_bytes(&self, off: u32, len: u32) -> Option<&[u8]> {
        let (start, size) = self.sections[S_STRINGS];
        let strings = self.bytes().get(start..start + size)?;
        strings.get(off as usize..(off as usize).checked_add(len as usize)?)
    }

    fn string(&self, off: u32, len: u32) -> Option<&str> {
        std::str::from_utf8(self.string_bytes(off, len)?).ok()
    }

    /// The string of words `field`, `field + 1` of record `i` of section `s`.
    fn str_field(&self, s: usize, i: usize, field: usize) -> Option<&[u8]> {
        self.string_bytes(self.word(s, i, field)?, self.word(s, i, field + 1)?)
    }

    fn tool_str(&self, tool: usize, field: usize) -> Option<&str> {
        self.string(
            self.word(S_TOOLS, tool, field)?,
            self.word(S_TOOLS, tool, field + 1)?,
        )
    }

    fn pair_str(&self, s: usize, i: usize) -> Option<&str> {
        self.string(self.word(s, i, 0)?, self.word(s, i, 1)?)
    }

    /// How many cached tools the index holds.
    pub fn tool_count(&self) -> usize {
        self.count(S_TOOLS)
    }

    /// A cached tool's final name.
    pub fn name(&self, tool: usize) -> Option<&str> {
        self.tool_str(tool, 0)
    }

    /// The same as bytes, unchecked (what ranking compares).
    fn name_bytes(&self, tool: usize) -> &[u8] {
        self.str_field(S_TOOLS, tool, 0).unwrap_or_default()
    }

    pub fn raw_name(&self, tool: usize) -> Option<&str> {
        self.tool_str(tool, 2)
    }

    pub fn source(&self, tool: usize) -> &str {
        self.word(S_TOOLS, tool, 4)
            .and_then(|s| self.pair_str(S_SOURCES, s as usize))
            .unwrap_or_default()
    }

    /// A cached tool's layer (`None` in a broken index).
    pub fn layer(&self, tool: usize) -> Option<Layer> {
        self.word(S_TOOLS, tool, 5).and_then(cached_layer)
    }

    /// The byte range of the tool's object in `catalog.json`.
    pub fn entry(&self, tool: usize) -> Option<(u64, u64)> {
        Some((
            u64::from(self.word(S_TOOLS, tool, 7)?),
            u64::from(self.word(S_TOOLS, tool, 8)?),
        ))
    }

    /// The distinct sources of the cached tools (`mcp:<server>`, `minitool:<id>`).
    pub fn sources(&self) -> impl Iterator<Item = &str> {
        (0..self.count(S_SOURCES)).filter_map(|s| self.pair_str(S_SOURCES, s))
    }

    /// The final name of built-in or suite `i`.
    pub fn builtin_name(&self, i: usize) -> Option<&str> {
        self.pair_str(S_BUILTINS, i)
    }

    /// Whether the index was built from this catalog file beside these built-ins.
    pub fn matches(&self, catalog: Fingerprint, builtins: &[ToolDef]) -> bool {
        self.catalog == catalog
            && self.count(S_BUILTINS) == builtins.len()
            && self.builtins_hash == builtins_hash(builtins)
    }

    /// The postings of a term: (first, count); `Some(None)` when no cached tool has it.
    fn find_term(&self, term: &str) -> Option<Option<(usize, usize)>> {
        let key = term.as_bytes();
        let (mut lo, mut hi) = (0, self.count(S_TERMS));
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.str_field(S_TERMS, mid, 0)?.cmp(key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let first = self.word(S_TERMS, mid, 2)? as usize;
                    let count = self.word(S_TERMS, mid, 3)? as usize;
                    if first.checked_add(count)? > self.count(S_POSTINGS) {
                        return None;
                    }
                    return Some(Some((first, count)));
                }
            }
        }
        Some(None)
    }

    /// Calls `each(tool)` for the tools whose key in `table` (`S_EXACT` or `S_PREFIX`) equals
    /// `key`, or starts with it when `prefix`.
    fn each_name(
        &self,
        table: usize,
        key: &str,
        prefix: bool,
        mut each: impl FnMut(usize),
    ) -> Option<()> {
        let key = key.as_bytes();
        let (mut lo, mut hi) = (0, self.count(table));
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.str_field(table, mid, 0)? < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        for row in lo..self.count(table) {
            let name = self.str_field(table, row, 0)?;
            let hit = if prefix {
                name.starts_with(key)
            } else {
                name == key
            };
            if !hit {
                break;
            }
            each(self.word(table, row, 2)? as usize);
        }
        Some(())
    }

    /// Ranks `builtins` (the built-ins and suites under their final names, `builtin_name`)
    /// followed by the index's cached tools: the hits' `index` counts the built-ins first, then
    /// the cached tools in the cache's order, as `search_once` over both does, and the hits are
    /// the same. `None` when the query has no terms (the listing by name is `search_once`'s)
    /// or the index turns out unusable.
    pub fn search<T: Searchable>(
        &self,
        builtins: &[T],
        query: &str,
        filter: &SourceFilter,
        limit: usize,
    ) -> Option<Vec<Hit>> {
        let terms = query_terms(query);
        if terms.is_empty() || builtins.len() != self.count(S_BUILTINS) {
            return None;
        }
        let (nb, nc) = (builtins.len(), self.tool_count());
        let n = nb + nc;
        let counts = TermCounts::of(builtins, &terms);
        let found: Vec<Option<(usize, usize)>> = terms
            .iter()
            .map(|t| self.find_term(t))
            .collect::<Option<_>>()?;
        let avg_len = avg_len(counts.total_len().checked_add(self.total_len)?, n);
        let mut scores = vec![0.0f64; n];
        let mut in_name = vec![0usize; nc];
        let (cached_start, postings_len) = self.sections[S_POSTINGS];
        let postings = self
            .bytes()
            .get(cached_start..cached_start + postings_len)?;
        for (q, found) in found.iter().enumerate() {
            let (first, count) = found.unwrap_or((0, 0));
            let idf = idf(n, counts.df(q) + count);
            counts.add_bm25(q, idf, avg_len, &mut scores[..nb]);
            for k in first..first + count {
                let tool = u32_at(postings, k * 8)? as usize;
                let tf = u32_at(postings, k * 8 + 4)?;
                if tool >= nc {
                    return None;
                }
                let doc_len = self.word(S_TOOLS, tool, 6)?;
                scores[nb + tool] += bm25(idf, tf & !IN_NAME, doc_len, avg_len);
                if tf & IN_NAME != 0 {
                    in_name[tool] += 1;
                }
            }
        }
        let (folded, squashed) = folded_query(query);
        let mut boost = vec![0.0f64; nc];
        // Prefix first: an exact match overrides it, as in `Names::boost`.
        if !squashed.is_empty() {
            self.each_name(S_PREFIX, &squashed, true, |tool| {
                if let Some(b) = boost.get_mut(tool) {
                    *b = NAME_PREFIX_BOOST;
                }
            })?;
        }
        self.each_name(S_EXACT, &folded, false, |tool| {
            if let Some(b) = boost.get_mut(tool) {
                *b = EXACT_NAME_BOOST;
            }
        })?;
        let width = terms.len();
        Some(rank(
            n,
            &scores,
            |doc| match doc.checked_sub(nb) {
                None => name_boost(&builtins[doc], &folded, &squashed),
                Some(tool) => boost[tool],
            },
            |doc| match doc.checked_sub(nb) {
                None => counts.all_in_name(doc),
                Some(tool) => in_name[tool] == width,
            },
            |doc| match doc.checked_sub(nb) {
                None => filter.admits(&builtins[doc]),
                Some(_) if *filter == SourceFilter::Any => true,
                Some(tool) => self
                    .layer(tool)
                    .is_some_and(|layer| filter.admits_source(layer, self.source(tool))),
            },
            |doc| match doc.checked_sub(nb) {
                None => builtins[doc].name().as_bytes(),
                Some(tool) => self.name_bytes(tool),
            },
            limit,
        ))
    }
}

/// An index that matches the catalog file it was opened with, and that file (the entries of
/// the hits are read from the handle whose metadata was checked).
pub struct Indexed {
    pub index: Index,
    catalog: std::fs::File,
    catalog_len: u64,
}

impl Indexed {
    /// The index at `index_path` when it was built from the `catalog_path` there is now,
    /// beside these built-ins and suites; `None` otherwise.
    pub fn open(index_path: &Path, catalog_path: &Path, builtins: &[ToolDef]) -> Option<Indexed> {
        let index = Index::open(index_path)?;
        let catalog = std::fs::File::open(catalog_path).ok()?;
        let meta = catalog.metadata().ok()?;
        let fingerprint = Fingerprint::of(&meta);
        index.matches(fingerprint, builtins).then_some(Indexed {
            index,
            catalog,
            catalog_len: fingerprint.len,
        })
    }

    /// The bytes of cached tool `tool`'s object in `catalog.json`.
    pub fn entry(&self, tool: usize) -> Option<Vec<u8>> {
        let (at, len) = self.index.entry(tool)?;
        if at.checked_add(len)? > self.catalog_len {
            return None;
        }
        let mut bytes = vec![0u8; usize::try_from(len).ok()?];
        let mut file = &self.catalog;
        file.seek(SeekFrom::Start(at)).ok()?;
        file.read_exact(&mut bytes).ok()?;
        Some(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::generated_catalog;
    use super::*;
    use crate::host::Provider;
    use crate::host::builtins::Builtins;
    use crate::host::suites::Suites;

    fn builtins() -> Vec<ToolDef> {
        let mut defs = Builtins.defs();
        defs.extend(Suites::default().defs());
        defs
    }

    /// The index of `cached` beside the real built-ins, and every tool under its final name.
    fn indexed(cached: &[ToolDef]) -> (Vec<ToolDef>, Vec<String>, Vec<u8>) {
        let builtins = builtins();
        let entries = vec![(0, 0); cached.len()];
        let bytes = build(cached, &entries, &builtins, Fingerprint::default()).unwrap();
        let names = final_names(&builtins, cached);
        (builtins, names, bytes)
    }

    fn key(hits: &[Hit]) -> Vec<usize> {
        hits.iter().map(|h| h.index).collect()
    }

    fn same(index_hits: &[Hit], once: &[Hit], what: &str) {
        assert_eq!(key(index_hits), key(once), "{what}");
        for (a, b) in index_hits.iter().zip(once) {
            assert!((a.score - b.score).abs() < 1e-9, "{what}: {a:?} vs {b:?}");
        }
    }

    #[test]
    fn the_index_ranks_exactly_like_the_one_pass_search() {
        let mut cached = generated_catalog(5000);
        // A few names that collide with a built-in and with each other, a non-ASCII name and
        // search text, so the naming and folding paths are covered too.
        let mut odd = cached[0].clone();
        odd.wanted_name = "Read".into();
        odd.raw_name = "Read".into();
        cached.push(odd.clone());
        odd.source = "minitool:other".into();
        cached.push(odd);
        let mut cjk = cached[1].clone();
        cjk.wanted_name = "天气_Überblick".into();
        cjk.raw_name = "Überblick".into();
        cjk.keywords = "查询天气 weather overview".into();
        cached.push(cjk);
        let (builtins, names, bytes) = indexed(&cached);
        let index = Index::from_bytes(bytes).expect("a good index");
        let all: Vec<&ToolDef> = builtins.iter().chain(&cached).collect();
        let items: Vec<Named> = all
            .iter()
            .zip(&names)
            .map(|(def, name)| Named { name, def })
            .collect();
        let nb = builtins.len();
        for (i, name) in names[..nb].iter().enumerate() {
            assert_eq!(index.builtin_name(i), Some(name.as_str()));
        }
        assert_eq!(index.tool_count(), cached.len());
        for (t, def) in cached.iter().enumerate() {
            assert_eq!(index.name(t), Some(names[nb + t].as_str()));
            assert_eq!(index.raw_name(t), Some(def.raw_name.as_str()));
            assert_eq!(index.source(t), def.source);
            assert_eq!(index.layer(t), Some(def.layer));
        }
        // The colliding "Read"s were all renamed, the built-in too, and the index holds that.
        assert!(names[nb + cached.len() - 3].starts_with("Read_"));
        assert!(names[..nb].iter().all(|n| n != "Read"));
        let mut queries: Vec<&str> = vec![
            "create issue",
            "search files",
            "weather forecast",
            "send email to customer",
            "translate document",
            "list pull requests",
            "天气",
            "export report chart",
            "getForecast",
            "delete",
            "sync calendar events",
            "upload image",
            "send a message to a channel",
            "read",
            "Read",
            "überblick",
            "mcp__server3",
            "tools1",
            "g",
            "xylophone quasar",
            "zzz",
        ];
        queries.extend(super::super::queries::all_queries());
        assert!(queries.len() >= 60, "{}", queries.len());
        let filters = [
            SourceFilter::Any,
            SourceFilter::Builtin,
            SourceFilter::Mcp(None),
            SourceFilter::Mcp(Some("Server3".into())),
            SourceFilter::MiniTool(Some("tools7".into())),
        ];
        let mut nonempty = 0;
        for query in &queries {
            for (f, filter) in filters.iter().enumerate() {
                // Every filter over the first queries; the rest with and without one (the
                // one-pass search walks all 5,000 tools, slow in a debug build).
                if f > 1 && !queries[..21].contains(query) {
                    continue;
                }
                for limit in [8, 0] {
                    let once = super::super::search_once(&items, query, filter, limit);
                    let fast = index
                        .search(&items[..nb], query, filter, limit)
                        .expect("the index answers");
                    same(&fast, &once, &format!("{query:?} {filter:?} {limit}"));
                    nonempty += usize::from(!once.is_empty());
                }
            }
        }
        assert!(nonempty > queries.len() * 3, "{nonempty}");
        for nothing in ["zzz", "xylophone quasar"] {
            assert!(
                index
                    .search(&items[..nb], nothing, &SourceFilter::Any, 8)
                    .unwrap()
                    .is_empty()
            );
        }
        // An empty query is a listing: the one-pass search gives it.
        assert!(
            index
                .search(&items[..nb], " ", &SourceFilter::Any, 8)
                .is_none()
        );
    }

    #[test]
    fn an_index_of_no_cached_tools_works() {
        let (builtins, names, bytes) = indexed(&[]);
        let index = Index::from_bytes(bytes).unwrap();
        let items: Vec<Named> = builtins
            .iter()
            .zip(&names)
            .map(|(def, name)| Named { name, def })
            .collect();
        let once = super::super::search_once(&items, "read a file", &SourceFilter::Any, 5);
        let fast = index
            .search(&items, "read a file", &SourceFilter::Any, 5)
            .unwrap();
        same(&fast, &once, "no cached tools");
        assert_eq!(items[once[0].index].name, "Read");
    }

    #[test]
    fn truncated_and_random_bytes_are_refused_without_a_panic() {
        let (builtins, names, bytes) = indexed(&generated_catalog(200));
        let items: Vec<Named> = builtins
            .iter()
            .zip(&names)
            .map(|(def, name)| Named { name, def })
            .collect();
        assert!(Index::from_bytes(bytes.clone()).is_some());
        // Every truncation is refused (the header holds the length).
        for cut in (0..bytes.len()).step_by(7).chain([bytes.len() - 1]) {
            assert!(Index::from_bytes(bytes[..cut].to_vec()).is_none(), "{cut}");
        }
        // Random bytes, and the right header over random bytes.
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for len in [0, 1, 8, HEADER_LEN, 1000, 50_000] {
            let random: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            assert!(Index::from_bytes(random).is_none());
        }
        // Flipped bytes anywhere: opening and searching must not panic (a flip inside the
        // body can go unnoticed; it then ranks oddly, which only a deliberately broken file
        // can cause).
        for round in 0..1000 {
            let mut broken = bytes.clone();
            for _ in 0..1 + round % 4 {
                let at = (next() as usize) % broken.len();
                broken[at] = next() as u8;
            }
            if round % 2 == 0 {
                // Keep the header's checks passing more often, to reach the sections.
                broken[..HEADER_LEN].copy_from_slice(&bytes[..HEADER_LEN]);
            }
            if let Some(index) = Index::from_bytes(broken) {
                for q in ["send a message", "create issue", "g", "天气"] {
                    let _ = index.search(&items, q, &SourceFilter::Any, 8);
                    let _ = index.search(&items, q, &SourceFilter::Mcp(None), 0);
                }
                let _ = index.sources().count();
                for t in 0..index.tool_count() + 2 {
                    let _ = (
                        index.entry(t),
                        index.name(t),
                        index.source(t),
                        index.layer(t),
                    );
                }
            }
        }
    }

    #[test]
    fn another_catalog_or_builtin_set_does_not_match() {
        let (builtins, _, bytes) = indexed(&generated_catalog(10));
        let index = Index::from_bytes(bytes).unwrap();
        assert!(index.matches(Fingerprint::default(), &builtins));
        let other = Fingerprint {
            len: 1,
            ..Fingerprint::default()
        };
        assert!(!index.matches(other, &builtins));
        assert!(!index.matches(Fingerprint::default(), &builtins[1..]));
        let mut renamed = builtins.clone();
        renamed[0].wanted_name = "Reader".into();
        assert!(!index.matches(Fingerprint::default(), &renamed));
        let mut version = build(&[], &[], &builtins, Fingerprint::default()).unwrap();
        version[8] = 2;
        assert!(Index::from_bytes(version).is_none());
    }
}
