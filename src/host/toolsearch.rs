//! ToolSearch ranking (SPEC §8.2): BM25 over each tool's name, title, description and search
//! text (the built-ins' and dispatchers' `keywords`: English and Chinese words people type for
//! them, and a dispatcher's actions with their parameters — one index, one ranking), split the
//! way `crate::search` splits text (`_`, `-`, `__`, camelCase, CJK characters and pairs), with
//! English word endings folded (`searching`, `searches` → `search`) and boosts for an exact or
//! prefix name match. The index is built once per catalog; a query only walks the postings of
//! its terms, so it costs microseconds over thousands of tools.
//!
//! Three ways to the same ranking: `SearchIndex` (in memory, for sessions that search again and
//! again), `search_once` (one pass over the catalog's text, for one query), and
//! `index::Index`, the file `catalog.index` that `catalog::write_cache` writes beside the cache
//! so `finch tool search` looks up only the query's terms of the cached tools. All three count
//! with `for_each_tool_term`'s terms and weights and score and rank through the same `bm25`,
//! `idf`, name boosts and `rank`; the tests hold them to the same hits and scores.

mod explain;
pub mod index;
#[cfg(test)]
mod queries;
#[cfg(test)]
mod tests;

pub use explain::{Explanation, TermMatch, explain};

use std::borrow::Cow;
use std::collections::HashMap;

use super::tool::Layer;
use super::tool::ToolSpec;
use crate::search::{fold, for_each_term};

/// What ranking needs of a tool: the catalog's `ToolSpec`, or a lighter view of a cached tool
/// (`finch tool search` ranks thousands of cached tools without building their definitions).
pub trait Searchable {
    fn name(&self) -> &str;
    fn raw_name(&self) -> &str;
    fn title(&self) -> &str;
    fn description(&self) -> &str;
    /// Search text beside the description: what users type for the tool, in English and
    /// Chinese (simplified and traditional), and for a dispatcher its actions and their
    /// parameters. Ranked, never shown.
    fn keywords(&self) -> &str;
    fn layer(&self) -> Layer;
    fn source(&self) -> &str;
}

impl Searchable for ToolSpec {
    fn name(&self) -> &str {
        &self.name
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
        // Its own (`ToolDef::keywords`): a built-in's or dispatcher's words come with its
        // definition, so a mini tool that registers `Read` does not borrow the built-in's.
        &self.def.keywords
    }
    fn layer(&self) -> Layer {
        self.def.layer
    }
    fn source(&self) -> &str {
        &self.def.source
    }
}

/// Which tools a search looks at (`source` of ToolSearch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceFilter {
    Any,
    Builtin,
    Suite,
    /// Mini tool tools, of one mini tool when given.
    MiniTool(Option<String>),
    /// MCP tools, of one server when given.
    Mcp(Option<String>),
}

impl SourceFilter {
    /// `builtin`, `suite`, `minitool`, `minitool:<id>`, `mcp`, `mcp:<server>`.
    pub fn parse(text: &str) -> Result<SourceFilter, String> {
        let (kind, arg) = match text.split_once(':') {
            Some((k, a)) => (k, Some(a.trim())),
            None => (text, None),
        };
        let arg = arg.map(str::to_string);
        match (kind.trim(), arg) {
            ("" | "all" | "any", None) => Ok(SourceFilter::Any),
            ("builtin", None) => Ok(SourceFilter::Builtin),
            ("suite", None) => Ok(SourceFilter::Suite),
            ("minitool", a) if a.as_deref() != Some("") => Ok(SourceFilter::MiniTool(a)),
            ("mcp", a) if a.as_deref() != Some("") => Ok(SourceFilter::Mcp(a)),
            _ => Err(format!(
                "unknown source \"{text}\": use builtin, suite, minitool, minitool:<id>, mcp or mcp:<server>"
            )),
        }
    }

    pub fn admits(&self, tool: &impl Searchable) -> bool {
        self.admits_source(tool.layer(), tool.source())
    }

    /// `admits` of a tool known by its layer and source only (`index::Index`'s tools).
    pub fn admits_source(&self, layer: Layer, source: &str) -> bool {
        match self {
            SourceFilter::Any => true,
            SourceFilter::Builtin => layer == Layer::Builtin,
            SourceFilter::Suite => layer == Layer::Suite,
            SourceFilter::MiniTool(None) => layer == Layer::MiniTool,
            SourceFilter::MiniTool(Some(id)) => {
                layer == Layer::MiniTool
                    && source.strip_prefix("minitool:").is_some_and(|s| s == id)
            }
            SourceFilter::Mcp(None) => layer == Layer::Mcp,
            SourceFilter::Mcp(Some(server)) => {
                layer == Layer::Mcp
                    && source
                        .strip_prefix("mcp:")
                        .is_some_and(|s| normalize_server(s) == normalize_server(server))
            }
        }
    }
}

/// Server names compare as SPEC §9.2 merges them: lowercase, anything else `_`.
fn normalize_server(name: &str) -> String {
    name.chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_alphanumeric() { c } else { '_' }
        })
        .collect()
}

/// One ranked tool.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Its index in the catalog.
    pub index: usize,
    pub score: f64,
}

/// How often a field's terms count: a word in the name says more than one in the description.
const NAME_WEIGHT: u32 = 3;
const TITLE_WEIGHT: u32 = 2;
const DESCRIPTION_WEIGHT: u32 = 1;
const KEYWORDS_WEIGHT: u32 = 1;
const EXACT_NAME_BOOST: f64 = 20.0;
const NAME_PREFIX_BOOST: f64 = 6.0;
const ALL_TERMS_IN_NAME_BOOST: f64 = 4.0;
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// The folded names of a tool, for the exact-name and prefix boosts.
#[derive(Debug, Default)]
struct Names {
    name: String,
    raw: String,
    /// The same without `_` and `-`.
    name_squashed: String,
    raw_squashed: String,
}

impl Names {
    fn of(tool: &impl Searchable) -> Names {
        let name = fold(tool.name());
        let raw = fold(tool.raw_name());
        Names {
            name_squashed: squash(&name),
            raw_squashed: squash(&raw),
            name,
            raw,
        }
    }

    fn boost(&self, folded_query: &str, squashed_query: &str) -> f64 {
        if self.name == folded_query || self.raw == folded_query {
            EXACT_NAME_BOOST
        } else if !squashed_query.is_empty()
            && (self.name_squashed.starts_with(squashed_query)
                || self.raw_squashed.starts_with(squashed_query))
        {
            NAME_PREFIX_BOOST
        } else {
            0.0
        }
    }
}

/// Scratch space for the distinct terms of one tool's names, reused from tool to tool so a pass
/// over thousands of tools allocates nothing per tool.
#[derive(Default)]
struct NameTerms {
    text: String,
    spans: Vec<(usize, usize)>,
}

impl NameTerms {
    /// Calls `each` with every distinct stemmed term of a tool's names (model-facing and raw).
    fn each(&mut self, tool: &impl Searchable, mut each: impl FnMut(&str)) {
        self.text.clear();
        self.spans.clear();
        for name in [tool.name(), tool.raw_name()] {
            for_each_term(name, |t| {
                let t = stem(t);
                let seen = self.spans.iter().any(|&(a, b)| self.text[a..b] == *t);
                if !seen {
                    let start = self.text.len();
                    self.text.push_str(&t);
                    self.spans.push((start, self.text.len()));
                }
            });
        }
        for &(a, b) in &self.spans {
            each(&self.text[a..b]);
        }
    }
}

/// Calls `each(term, weight, in_name)` for every term of a tool's searchable text: the terms
/// of its names (each distinct term once), its title and its description, stemmed.
fn for_each_tool_term(
    tool: &impl Searchable,
    scratch: &mut NameTerms,
    mut each: impl FnMut(&str, u32, bool),
) {
    scratch.each(tool, |t| each(t, NAME_WEIGHT, true));
    for (text, weight) in [
        (tool.title(), TITLE_WEIGHT),
        (tool.description(), DESCRIPTION_WEIGHT),
        (tool.keywords(), KEYWORDS_WEIGHT),
    ] {
        for_each_term(text, |t| each(&stem(t), weight, false));
    }
}

/// The distinct stemmed terms of a query.
fn query_terms(query: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for_each_term(query, |t| {
        let t = stem(t);
        if !terms.iter().any(|q| *q == *t) {
            terms.push(t.into_owned());
        }
    });
    terms
}

/// BM25 of one term in one document.
fn bm25(idf: f64, tf: u32, doc_len: u32, avg_len: f64) -> f64 {
    let tf = tf as f64;
    let norm = K1 * (1.0 - B + B * doc_len as f64 / avg_len);
    idf * tf * (K1 + 1.0) / (tf + norm)
}

fn idf(n: usize, df: usize) -> f64 {
    let (n, df) = (n as f64, df as f64);
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// The inverted index of a catalog, for sessions that search it again and again.
#[derive(Debug, Default)]
pub struct SearchIndex {
    term_ids: HashMap<Box<str>, u32>,
    /// For each term id: (tool, weighted term frequency).
    postings: Vec<Vec<(u32, u32)>>,
    /// For each tool: the ids of its names' terms, sorted.
    name_terms: Vec<Vec<u32>>,
    names: Vec<Names>,
    doc_len: Vec<u32>,
    avg_len: f64,
}

impl SearchIndex {
    pub fn build(tools: &[ToolSpec]) -> SearchIndex {
        let mut index = SearchIndex::default();
        let mut doc: Vec<(u32, u32)> = Vec::new();
        let mut scratch = NameTerms::default();
        for (i, tool) in tools.iter().enumerate() {
            doc.clear();
            let mut len = 0u32;
            let mut name_terms = Vec::new();
            for_each_tool_term(tool, &mut scratch, |term, weight, in_name| {
                let id = index.term_id(term);
                match doc.iter_mut().find(|(t, _)| *t == id) {
                    Some((_, tf)) => *tf += weight,
                    None => doc.push((id, weight)),
                }
                if in_name {
                    name_terms.push(id);
                }
                len += weight;
            });
            for &(term, tf) in &doc {
                index.postings[term as usize].push((i as u32, tf));
            }
            name_terms.sort_unstable();
            index.name_terms.push(name_terms);
            index.names.push(Names::of(tool));
            index.doc_len.push(len);
        }
        let total = index.doc_len.iter().map(|&l| u64::from(l)).sum();
        index.avg_len = avg_len(total, index.doc_len.len());
        index
    }

    fn term_id(&mut self, term: &str) -> u32 {
        if let Some(&id) = self.term_ids.get(term) {
            return id;
        }
        let id = self.postings.len() as u32;
        self.term_ids.insert(term.into(), id);
        self.postings.push(Vec::new());
        id
    }

    /// The best `limit` tools for `query` among those `filter` admits (`limit` 0 = all). An
    /// empty query lists the admitted tools by name.
    pub fn search(
        &self,
        tools: &[ToolSpec],
        query: &str,
        filter: &SourceFilter,
        limit: usize,
    ) -> Vec<Hit> {
        let terms = query_terms(query);
        if terms.is_empty() {
            return by_name(tools, filter, limit);
        }
        let n = self.doc_len.len();
        let mut scores = vec![0.0f64; n];
        let ids: Vec<Option<u32>> = terms
            .iter()
            .map(|t| self.term_ids.get(t.as_str()).copied())
            .collect();
        for id in ids.iter().flatten() {
            let postings = &self.postings[*id as usize];
            let idf = idf(n, postings.len());
            for &(doc, tf) in postings {
                scores[doc as usize] += bm25(idf, tf, self.doc_len[doc as usize], self.avg_len);
            }
        }
        let all_in_name = |doc: usize| {
            ids.iter()
                .all(|id| id.is_some_and(|id| self.name_terms[doc].binary_search(&id).is_ok()))
        };
        let (folded, squashed) = folded_query(query);
        rank(
            n,
            &scores,
            |doc| self.names[doc].boost(&folded, &squashed),
            all_in_name,
            |doc| filter.admits(&tools[doc]),
            |doc| tools[doc].name().as_bytes(),
            limit,
        )
    }
}

/// Ranks the catalog for one query without building an index: one pass over every tool,
/// counting only the query's terms (what `finch tool search` needs, once per process, when it
/// has no `catalog.index`).
pub fn search_once<T: Searchable>(
    tools: &[T],
    query: &str,
    filter: &SourceFilter,
    limit: usize,
) -> Vec<Hit> {
    let terms = query_terms(query);
    if terms.is_empty() {
        return by_name(tools, filter, limit);
    }
    let counts = TermCounts::of(tools, &terms);
    let n = tools.len();
    let avg_len = avg_len(counts.total_len(), n);
    let mut scores = vec![0.0f64; n];
    for q in 0..counts.width {
        let idf = idf(n, counts.df(q));
        counts.add_bm25(q, idf, avg_len, &mut scores);
    }
    let (folded, squashed) = folded_query(query);
    rank(
        n,
        &scores,
        |doc| name_boost(&tools[doc], &folded, &squashed),
        |doc| counts.all_in_name(doc),
        |doc| filter.admits(&tools[doc]),
        |doc| tools[doc].name().as_bytes(),
        limit,
    )
}

/// The average document length BM25 normalizes by (at least 1). The lengths are integers, so
/// their sum is exact in any order and both search paths get the same bits.
fn avg_len(total_len: u64, n: usize) -> f64 {
    (total_len as f64 / n.max(1) as f64).max(1.0)
}

/// The query's terms counted in every tool of a list (one walk over their text): for each
/// tool and query term the weighted term frequency and whether it is in the names, and each
/// tool's length. `search_once` counts the whole catalog so; the indexed search only the
/// built-ins and suites, whose text is in the binary.
pub(crate) struct TermCounts {
    width: usize,
    tf: Vec<u32>,
    in_name: Vec<bool>,
    doc_len: Vec<u32>,
}

impl TermCounts {
    fn of<T: Searchable>(tools: &[T], terms: &[String]) -> TermCounts {
        let n = tools.len();
        let width = terms.len();
        let mut tf = vec![0u32; n * width];
        let mut in_name = vec![false; n * width];
        let mut doc_len = vec![0u32; n];
        // A stem is a prefix of its word (but for `-ies` → `-y`), so a word can only meet a
        // query term it starts with: most words are counted without being stemmed.
        let heads: Vec<&str> = terms
            .iter()
            .map(|t| t.strip_suffix('y').unwrap_or(t))
            .collect();
        let mut scratch = NameTerms::default();
        for (doc, tool) in tools.iter().enumerate() {
            let row = &mut tf[doc * width..(doc + 1) * width];
            let names = &mut in_name[doc * width..(doc + 1) * width];
            let mut len = 0u32;
            scratch.each(tool, |term| {
                len += NAME_WEIGHT;
                if let Some(q) = terms.iter().position(|q| q == term) {
                    row[q] += NAME_WEIGHT;
                    names[q] = true;
                }
            });
            for (text, weight) in [
                (tool.title(), TITLE_WEIGHT),
                (tool.description(), DESCRIPTION_WEIGHT),
                (tool.keywords(), KEYWORDS_WEIGHT),
            ] {
                for_each_term(text, |word| {
                    len += weight;
                    if heads.iter().any(|h| word.starts_with(h)) {
                        let word = stem(word);
                        if let Some(q) = terms.iter().position(|q| *q == *word) {
                            row[q] += weight;
                        }
                    }
                });
            }
            doc_len[doc] = len;
        }
        TermCounts {
            width,
            tf,
            in_name,
            doc_len,
        }
    }

    fn total_len(&self) -> u64 {
        self.doc_len.iter().map(|&l| u64::from(l)).sum()
    }

    /// How many of the tools hold query term `q`.
    fn df(&self, q: usize) -> usize {
        (0..self.doc_len.len())
            .filter(|d| self.tf[d * self.width + q] > 0)
            .count()
    }

    /// Adds query term `q`'s BM25 to the score of each tool holding it (`scores[doc]`).
    fn add_bm25(&self, q: usize, idf: f64, avg_len: f64, scores: &mut [f64]) {
        for (doc, score) in scores.iter_mut().enumerate().take(self.doc_len.len()) {
            let t = self.tf[doc * self.width + q];
            if t > 0 {
                *score += bm25(idf, t, self.doc_len[doc], avg_len);
            }
        }
    }

    fn all_in_name(&self, doc: usize) -> bool {
        self.in_name[doc * self.width..(doc + 1) * self.width]
            .iter()
            .all(|&b| b)
    }
}

/// The query folded, and folded without spaces, `_` and `-` (for name prefixes).
fn folded_query(query: &str) -> (String, String) {
    let folded = fold(query.trim());
    let squashed = folded
        .chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-'))
        .collect();
    (folded, squashed)
}

/// `Names::boost` without building `Names`: ASCII names (nearly all) are compared in place.
fn name_boost(tool: &impl Searchable, folded: &str, squashed: &str) -> f64 {
    let (name, raw) = (tool.name(), tool.raw_name());
    if !name.is_ascii() || !raw.is_ascii() {
        return Names::of(tool).boost(folded, squashed);
    }
    if name.eq_ignore_ascii_case(folded) || raw.eq_ignore_ascii_case(folded) {
        return EXACT_NAME_BOOST;
    }
    let starts = |name: &str| {
        let mut letters = name
            .bytes()
            .filter(|b| !matches!(b, b'_' | b'-'))
            .map(|b| b.to_ascii_lowercase());
        squashed.bytes().all(|q| letters.next() == Some(q))
    };
    if !squashed.is_empty() && (starts(name) || starts(raw)) {
        NAME_PREFIX_BOOST
    } else {
        0.0
    }
}

/// Adds the name boosts to the BM25 scores (`scores[doc]` for each of the `n` tools) and
/// returns the admitted tools that scored, best first (ties by name, compared as bytes — the
/// order of `str` — then by index). Both search paths rank here; they differ only in where the
/// statistics come from. With a limit only the best `limit` are sorted.
fn rank<'a>(
    n: usize,
    scores: &[f64],
    boost: impl Fn(usize) -> f64,
    all_terms_in_name: impl Fn(usize) -> bool,
    admits: impl Fn(usize) -> bool,
    name: impl Fn(usize) -> &'a [u8],
    limit: usize,
) -> Vec<Hit> {
    let mut hits = Vec::new();
    for (doc, &bm25) in scores.iter().enumerate().take(n) {
        let mut score = bm25 + boost(doc);
        if score <= 0.0 {
            continue;
        }
        if all_terms_in_name(doc) {
            score += ALL_TERMS_IN_NAME_BOOST;
        }
        if admits(doc) {
            hits.push(Hit { index: doc, score });
        }
    }
    // A total order, so selecting the best `limit` first and sorting only them gives what
    // sorting everything would.
    let order = |a: &Hit, b: &Hit| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| name(a.index).cmp(name(b.index)))
            .then(a.index.cmp(&b.index))
    };
    if limit > 0 && hits.len() > limit {
        hits.select_nth_unstable_by(limit - 1, order);
        hits.truncate(limit);
    }
    hits.sort_unstable_by(order);
    hits
}

/// Every admitted tool, by name (an empty query).
fn by_name<T: Searchable>(tools: &[T], filter: &SourceFilter, limit: usize) -> Vec<Hit> {
    let mut all: Vec<Hit> = (0..tools.len())
        .filter(|&i| filter.admits(&tools[i]))
        .map(|index| Hit { index, score: 0.0 })
        .collect();
    all.sort_by(|a, b| tools[a.index].name().cmp(tools[b.index].name()));
    if limit > 0 {
        all.truncate(limit);
    }
    all
}

fn squash(name: &str) -> String {
    name.chars().filter(|c| !matches!(c, '_' | '-')).collect()
}

/// Folds common English endings so `searching`, `searched`, `searches` meet `search`,
/// `queries` meets `query`, and `create`, `creating`, `created` all meet `creat`. Deliberately
/// light: a wrong merge costs ranking, never a miss of an exact word (both sides are stemmed
/// alike). Borrowed when the term has no ending to fold.
pub fn stem(term: &str) -> Cow<'_, str> {
    if !term.is_ascii() || term.len() <= 3 {
        return Cow::Borrowed(term);
    }
    let base = strip_suffix(term);
    match base.strip_suffix('e') {
        Some(stem) if base.len() > 4 => Cow::Owned(stem.to_string()),
        _ => base,
    }
}

fn strip_suffix(t: &str) -> Cow<'_, str> {
    let cut = |n: usize| Cow::Borrowed(&t[..t.len() - n]);
    if let Some(stem) = t.strip_suffix("ies").filter(|s| s.len() >= 2) {
        return Cow::Owned(format!("{stem}y"));
    }
    if t.ends_with("sses") || t.ends_with("ches") || t.ends_with("shes") || t.ends_with("xes") {
        return cut(2);
    }
    if t.ends_with('s') && !t.ends_with("ss") && !t.ends_with("us") && !t.ends_with("is") {
        return cut(1);
    }
    if t.len() > 5 && t.ends_with("ing") {
        return undouble(&t[..t.len() - 3]);
    }
    if t.len() > 4 && t.ends_with("ed") {
        return undouble(&t[..t.len() - 2]);
    }
    Cow::Borrowed(t)
}

/// `runn` → `run`, `stopp` → `stop` (a doubled final consonant left by `-ing`/`-ed`).
fn undouble(stem: &str) -> Cow<'_, str> {
    let b = stem.as_bytes();
    let n = b.len();
    if n >= 3 && b[n - 1] == b[n - 2] && !matches!(b[n - 1], b'l' | b's' | b'z' | b'e') {
        return Cow::Borrowed(&stem[..n - 1]);
    }
    Cow::Borrowed(stem)
}
