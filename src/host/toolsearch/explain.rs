//! `finch tool search --explain`: why each hit ranked as it did, from the same statistics the
//! ranking used, walked again with the fields kept apart.

use super::{
    ALL_TERMS_IN_NAME_BOOST, DESCRIPTION_WEIGHT, EXACT_NAME_BOOST, Hit, KEYWORDS_WEIGHT,
    NAME_WEIGHT, NameTerms, Searchable, TITLE_WEIGHT, avg_len, bm25, folded_query,
    for_each_tool_term, idf, name_boost, query_terms, stem,
};
use crate::search::for_each_term;

/// Why one tool ranked as it did (`finch tool search --explain`): each query term it matched,
/// in which fields and for how much of the score, and the name boosts.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    pub terms: Vec<TermMatch>,
    /// `exact name` or `name prefix`, with what it added.
    pub name_boost: Option<(&'static str, f64)>,
    /// Every query term is in the tool's names (adds `ALL_TERMS_IN_NAME_BOOST`).
    pub all_terms_in_name: Option<f64>,
}

/// One query term in one tool.
#[derive(Debug, Clone, PartialEq)]
pub struct TermMatch {
    /// The term as the index holds it (folded and stemmed).
    pub term: String,
    /// The fields it occurs in: `name`, `title`, `description`, `search text`.
    pub fields: Vec<&'static str>,
    /// Its BM25 share of the score.
    pub score: f64,
}

/// Explains each of `hits` (from `search_once` or `SearchIndex::search` over the same `tools`
/// and `query`): the same statistics, walked again with the fields kept apart. One more pass
/// over the catalog, which only `--explain` pays for.
pub fn explain<T: Searchable>(tools: &[T], query: &str, hits: &[Hit]) -> Vec<Explanation> {
    let terms = query_terms(query);
    let n = tools.len();
    let width = terms.len();
    let mut df = vec![0usize; width];
    let mut doc_len = vec![0u32; n];
    let mut scratch = NameTerms::default();
    for (doc, tool) in tools.iter().enumerate() {
        let mut seen = vec![false; width];
        for_each_tool_term(tool, &mut scratch, |term, weight, _| {
            doc_len[doc] += weight;
            if let Some(q) = terms.iter().position(|t| t == term) {
                seen[q] = true;
            }
        });
        for (q, s) in seen.into_iter().enumerate() {
            df[q] += usize::from(s);
        }
    }
    let avg_len = avg_len(doc_len.iter().map(|&l| u64::from(l)).sum(), n);
    let (folded, squashed) = folded_query(query);
    hits.iter()
        .map(|hit| {
            let tool = &tools[hit.index];
            let mut tf = vec![0u32; width];
            let mut fields: Vec<Vec<&'static str>> = vec![Vec::new(); width];
            let mut in_name = vec![false; width];
            let mut note = |q: usize, weight: u32, field: &'static str| {
                tf[q] += weight;
                if !fields[q].contains(&field) {
                    fields[q].push(field);
                }
            };
            scratch.each(tool, |t| {
                if let Some(q) = terms.iter().position(|x| x == t) {
                    in_name[q] = true;
                    note(q, NAME_WEIGHT, "name");
                }
            });
            for (text, weight, field) in [
                (tool.title(), TITLE_WEIGHT, "title"),
                (tool.description(), DESCRIPTION_WEIGHT, "description"),
                (tool.keywords(), KEYWORDS_WEIGHT, "search text"),
            ] {
                for_each_term(text, |t| {
                    if let Some(q) = terms.iter().position(|x| **x == *stem(t)) {
                        note(q, weight, field);
                    }
                });
            }
            let matched = (0..width)
                .filter(|&q| tf[q] > 0)
                .map(|q| TermMatch {
                    term: terms[q].clone(),
                    fields: std::mem::take(&mut fields[q]),
                    score: bm25(idf(n, df[q]), tf[q], doc_len[hit.index], avg_len),
                })
                .collect();
            let boost = name_boost(tool, &folded, &squashed);
            let name_boost = match boost {
                b if b == EXACT_NAME_BOOST => Some(("exact name", b)),
                b if b > 0.0 => Some(("name prefix", b)),
                _ => None,
            };
            Explanation {
                terms: matched,
                name_boost,
                all_terms_in_name: (width > 0 && in_name.iter().all(|&b| b))
                    .then_some(ALL_TERMS_IN_NAME_BOOST),
            }
        })
        .collect()
}
