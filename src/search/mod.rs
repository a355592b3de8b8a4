//! Text ranking shared by every search in finch (memory, sessions, and later the tool catalog):
//! folding text so that case, accents and full-width forms do not matter, splitting it into
//! terms (words split on punctuation, `snake_case`, `kebab-case` and `camelCase`; Chinese,
//! Japanese and Korean text as single characters and adjacent pairs, so it is found by
//! substring), BM25 scoring, and snippets with the matches marked. `Query::count_in` counts a
//! query's terms in any text; `TermCounter` gives the same counts for large ASCII texts at
//! bitmask speed (the session search reads hundreds of megabytes).
//!
//! Nothing here reads files or knows what a document is; callers feed text and get numbers.

mod term_count;

use std::ops::Range;

use caseless::Caseless;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

pub use term_count::{TermCounter, find_byte, next_non_ascii, rfind_byte, word_around};

/// Folds text for matching: Unicode full case folding (`ß` and `ẞ` → `ss`, `Σ`/`ς` → `σ`),
/// accents removed (`é` → `e`), compatibility forms unified (full-width `Ａ` → `a`, `ﬁ` → `fi`).
pub fn fold(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        fold_char(c, &mut out);
    }
    out
}

fn fold_char(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return;
    }
    // CJK unified ideographs have neither decompositions nor case: they fold to themselves.
    if matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF) {
        out.push(c);
        return;
    }
    // Compatibility decomposition, then Unicode full case folding (`ß` → `ss`, `ﬃ` → `ffi`,
    // `ς` → `σ`, Cherokee to its folded form), with accents dropped before and after: a folded
    // character may decompose again (`ΐ` folds to `ι` with two marks).
    for d in std::iter::once(c).nfkd() {
        if is_combining_mark(d) {
            continue;
        }
        for f in std::iter::once(d).default_case_fold() {
            if !is_combining_mark(f) {
                out.push(f);
            }
        }
    }
}

/// Folded text that remembers where each folded byte came from, to mark matches in the original.
pub struct Folded {
    pub text: String,
    /// For each byte of `text`, the byte offset of the original character it came from.
    origin: Vec<usize>,
}

impl Folded {
    pub fn new(original: &str) -> Folded {
        let mut text = String::with_capacity(original.len());
        let mut origin = Vec::with_capacity(original.len());
        for (at, c) in original.char_indices() {
            let before = text.len();
            fold_char(c, &mut text);
            origin.extend(std::iter::repeat_n(at, text.len() - before));
        }
        Folded { text, origin }
    }

    /// The original byte range of a folded byte range.
    pub fn original_range(&self, folded: Range<usize>, original: &str) -> Range<usize> {
        let start = self
            .origin
            .get(folded.start)
            .copied()
            .unwrap_or(original.len());
        let end = match folded.end.checked_sub(1).and_then(|i| self.origin.get(i)) {
            Some(&last) => last + original[last..].chars().next().map_or(0, char::len_utf8),
            None => start,
        };
        start..end.max(start)
    }
}

/// Chinese, Japanese and Korean characters, which are matched one by one rather than as words.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0x20000..=0x2FA1F  // CJK Extensions B–F, compatibility supplement
    )
}

/// Splits text into folded terms. `parseHTTPResponse_v2` → `parse`, `http`, `response`, `v2`;
/// `天气预报` → `天`, `气`, `预`, `报`, `天气`, `气预`, `预报`.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut terms = Vec::new();
    for_each_term(text, |t| terms.push(t.to_string()));
    terms
}

/// Calls `each` with every term `tokenize` returns, in the same order, reusing one buffer instead
/// of allocating a string per term (for counting terms over many documents).
pub fn for_each_term(text: &str, mut each: impl FnMut(&str)) {
    if text.is_ascii() {
        return for_each_ascii_term(text.as_bytes(), each);
    }
    // ASCII characters that are neither letters nor digits end every word and CJK pair, so the
    // runs between them are tokenized on their own: the all-ASCII ones on bytes.
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let mut ascii = true;
        while i < bytes.len() && (bytes[i] >= 0x80 || bytes[i].is_ascii_alphanumeric()) {
            ascii &= bytes[i] < 0x80;
            i += 1;
        }
        if start < i {
            if ascii {
                for_each_ascii_term(&bytes[start..i], &mut each);
            } else {
                for_each_mixed_term(&text[start..i], &mut each);
            }
        }
        i += 1;
    }
}

/// `for_each_term` for text with non-ASCII characters, decoded character by character.
fn for_each_mixed_term(text: &str, mut each: impl FnMut(&str)) {
    let mut word = String::new();
    let mut cjk = String::new();
    let mut cjk_prev: Option<char> = None;
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let before = prev.replace(c);
        if is_cjk(c) {
            flush(&mut word, &mut each);
            cjk.clear();
            match cjk_prev {
                Some(p) => {
                    fold_char(p, &mut cjk);
                    let single = cjk.len();
                    fold_char(c, &mut cjk);
                    each(&cjk);
                    each(&cjk[single..]);
                }
                None => {
                    fold_char(c, &mut cjk);
                    each(&cjk);
                }
            }
            cjk_prev = Some(c);
            continue;
        }
        cjk_prev = None;
        if !c.is_alphanumeric() {
            flush(&mut word, &mut each);
            continue;
        }
        // camelCase: a capital after a lowercase letter, or the last capital of an acronym
        // followed by a lowercase letter (`HTTPServer` → `http` `server`), starts a new word.
        if c.is_uppercase()
            && !word.is_empty()
            && let Some(p) = before
        {
            let next_lower = chars.peek().is_some_and(|n| n.is_lowercase());
            if p.is_lowercase() || (p.is_uppercase() && next_lower) {
                flush(&mut word, &mut each);
            }
        }
        fold_char(c, &mut word);
    }
    flush(&mut word, &mut each);
}

/// `for_each_term` for ASCII text: the same rules on bytes, without decoding characters.
fn for_each_ascii_term(text: &[u8], mut each: impl FnMut(&str)) {
    let mut word = String::new();
    ascii_words(text, |w| {
        word.clear();
        word.extend(w.iter().map(|b| b.to_ascii_lowercase() as char));
        each(&word);
    });
}

/// The words of ASCII text as slices (not yet lowercased): runs of letters and digits, split
/// before a capital that follows a lowercase letter and before the last capital of an acronym
/// followed by a lowercase letter (`HTTPServer` → `HTTP`, `Server`).
fn ascii_words<'a>(text: &'a [u8], mut each: impl FnMut(&'a [u8])) {
    let mut start: Option<usize> = None;
    for (i, &b) in text.iter().enumerate() {
        if !b.is_ascii_alphanumeric() {
            if let Some(s) = start.take() {
                each(&text[s..i]);
            }
            continue;
        }
        match start {
            None => start = Some(i),
            Some(s) if b.is_ascii_uppercase() => {
                let prev = text[i - 1];
                let next_lower = text.get(i + 1).is_some_and(u8::is_ascii_lowercase);
                if prev.is_ascii_lowercase() || (prev.is_ascii_uppercase() && next_lower) {
                    each(&text[s..i]);
                    start = Some(i);
                }
            }
            Some(_) => {}
        }
    }
    if let Some(s) = start {
        each(&text[s..]);
    }
}

fn flush(word: &mut String, each: &mut impl FnMut(&str)) {
    if !word.is_empty() {
        each(word);
        word.clear();
    }
}

/// A parsed query: its distinct terms and its folded text (for the exact-phrase boost).
#[derive(Debug, Clone)]
pub struct Query {
    pub terms: Vec<String>,
    pub phrase: String,
}

impl Query {
    pub fn new(text: &str) -> Query {
        let mut terms = Vec::new();
        for t in tokenize(text) {
            if !terms.contains(&t) {
                terms.push(t);
            }
        }
        Query {
            terms,
            phrase: fold(text.trim()),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// How often each query term occurs in `doc_terms`, and the document's length in terms.
    pub fn frequencies(&self, doc_terms: &[String]) -> TermCounts {
        let mut tf = vec![0u32; self.terms.len()];
        for t in doc_terms {
            if let Some(i) = self.terms.iter().position(|q| q == t) {
                tf[i] += 1;
            }
        }
        TermCounts {
            tf,
            len: doc_terms.len() as u32,
        }
    }

    /// The same as `frequencies(&tokenize(text))`, without building the list of terms.
    pub fn count_in(&self, text: &str) -> TermCounts {
        let mut counts = TermCounts {
            tf: vec![0; self.terms.len()],
            len: 0,
        };
        // Runs between ASCII characters that are neither letters nor digits (which end every
        // word and pair) are tokenized on their own: all-ASCII runs on bytes, compared in place.
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let start = i;
            let mut ascii = true;
            while i < bytes.len() && (bytes[i] >= 0x80 || bytes[i].is_ascii_alphanumeric()) {
                ascii &= bytes[i] < 0x80;
                i += 1;
            }
            if start < i && ascii {
                ascii_words(&bytes[start..i], |w| {
                    counts.len += 1;
                    let hit = self
                        .terms
                        .iter()
                        .position(|q| q.as_bytes().eq_ignore_ascii_case(w));
                    if let Some(t) = hit {
                        counts.tf[t] += 1;
                    }
                });
            } else if start < i {
                for_each_term(&text[start..i], |w| {
                    counts.len += 1;
                    if let Some(t) = self.terms.iter().position(|q| q == w) {
                        counts.tf[t] += 1;
                    }
                });
            }
            i += 1;
        }
        counts
    }

    /// Whether the folded document holds the whole query as written (after folding).
    pub fn phrase_in(&self, folded_doc: &str) -> bool {
        !self.phrase.is_empty() && folded_doc.contains(&self.phrase)
    }
}

/// Term frequencies of one document for one query.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TermCounts {
    pub tf: Vec<u32>,
    pub len: u32,
}

impl TermCounts {
    pub fn matches_any(&self) -> bool {
        self.tf.iter().any(|&n| n > 0)
    }
}

/// Okapi BM25 with the usual parameters.
#[derive(Debug, Clone, Copy)]
pub struct Bm25 {
    pub k1: f64,
    pub b: f64,
}

impl Default for Bm25 {
    fn default() -> Self {
        Bm25 { k1: 1.2, b: 0.75 }
    }
}

impl Bm25 {
    /// Scores every document of a collection; documents that match no term score 0.
    pub fn score_all(&self, docs: &[TermCounts]) -> Vec<f64> {
        let n = docs.len();
        if n == 0 {
            return Vec::new();
        }
        let terms = docs[0].tf.len();
        let avg_len = docs.iter().map(|d| d.len as f64).sum::<f64>() / n as f64;
        let idf: Vec<f64> = (0..terms)
            .map(|t| {
                let df = docs.iter().filter(|d| d.tf[t] > 0).count() as f64;
                (1.0 + (n as f64 - df + 0.5) / (df + 0.5)).ln()
            })
            .collect();
        docs.iter()
            .map(|d| self.score(d, &idf, avg_len.max(1.0)))
            .collect()
    }

    /// The score of one document given each term's idf and the average length.
    pub fn score(&self, doc: &TermCounts, idf: &[f64], avg_len: f64) -> f64 {
        let norm = self.k1 * (1.0 - self.b + self.b * doc.len as f64 / avg_len);
        doc.tf
            .iter()
            .zip(idf)
            .filter(|(tf, _)| **tf > 0)
            .map(|(&tf, idf)| {
                let tf = tf as f64;
                idf * tf * (self.k1 + 1.0) / (tf + norm)
            })
            .sum()
    }
}

/// A short piece of a document around its first match, with the matched ranges (byte ranges of
/// `text`) for highlighting.
#[derive(Debug, Clone, PartialEq)]
pub struct Snippet {
    pub text: String,
    pub matches: Vec<Range<usize>>,
}

impl Snippet {
    /// The snippet with each match wrapped in `open`/`close` (e.g. ANSI bold, or `**`).
    pub fn marked(&self, open: &str, close: &str) -> String {
        let mut out = String::with_capacity(self.text.len() + 8 * self.matches.len());
        let mut at = 0;
        for m in &self.matches {
            out.push_str(&self.text[at..m.start]);
            out.push_str(open);
            out.push_str(&self.text[m.clone()]);
            out.push_str(close);
            at = m.end;
        }
        out.push_str(&self.text[at..]);
        out
    }
}

/// Cuts `text` (one line: newlines become spaces) to about `width` characters around the first
/// occurrence of a query term, marking every occurrence inside the cut.
pub fn snippet(text: &str, query: &Query, width: usize) -> Snippet {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let folded = Folded::new(&line);
    let mut hits: Vec<Range<usize>> = Vec::new();
    let needles: Vec<&str> = if query.phrase_in(&folded.text) {
        vec![query.phrase.as_str()]
    } else {
        query.terms.iter().map(String::as_str).collect()
    };
    for needle in needles.iter().filter(|n| !n.is_empty()) {
        for (at, _) in folded.text.match_indices(needle) {
            hits.push(folded.original_range(at..at + needle.len(), &line));
        }
    }
    hits.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let mut merged: Vec<Range<usize>> = Vec::new();
    for h in hits {
        match merged.last_mut() {
            Some(last) if h.start <= last.end => last.end = last.end.max(h.end),
            _ => merged.push(h),
        }
    }
    let total = line.chars().count();
    if total <= width {
        return Snippet {
            text: line,
            matches: merged,
        };
    }
    // Start a little before the first match, on a character boundary.
    let first = merged.first().map_or(0, |m| m.start);
    let first_char = line[..first].chars().count();
    let start_char = first_char.saturating_sub(width / 4);
    let start = line
        .char_indices()
        .nth(start_char)
        .map_or(line.len(), |(i, _)| i);
    let end = line[start..]
        .char_indices()
        .nth(width)
        .map_or(line.len(), |(i, _)| start + i);
    let (prefix, suffix) = (
        if start > 0 { "…" } else { "" },
        if end < line.len() { "…" } else { "" },
    );
    let text = format!("{prefix}{}{suffix}", &line[start..end]);
    let shift = prefix.len();
    let matches = merged
        .into_iter()
        .filter(|m| m.start >= start && m.end <= end)
        .map(|m| m.start - start + shift..m.end - start + shift)
        .collect();
    Snippet { text, matches }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding() {
        let cases = [
            ("Café CRÈME", "cafe creme"),
            ("Ｆｉｎｃｈ１２", "finch12"),
            ("Straße", "strasse"),
            ("STRASSE ẞ", "strasse ss"),
            ("ΌΣΟΣ όσος", "οσοσ οσοσ"),
            ("ﬃ ŉ", "ffi ʼn"),
            ("天气 Überall", "天气 uberall"),
            ("plain ascii", "plain ascii"),
        ];
        for (text, want) in cases {
            assert_eq!(fold(text), want, "{text}");
        }
    }

    #[test]
    fn tokenizing() {
        let cases: [(&str, &[&str]); 6] = [
            ("parseHTTPResponse_v2", &["parse", "http", "response", "v2"]),
            (
                "mcp__github__create_issue",
                &["mcp", "github", "create", "issue"],
            ),
            ("kebab-case words", &["kebab", "case", "words"]),
            ("Résumé-Builder", &["resume", "builder"]),
            (
                "天气预报",
                &["天", "天气", "气", "气预", "预", "预报", "报"],
            ),
            ("用Finch记忆", &["用", "finch", "记", "记忆", "忆"]),
        ];
        for (text, want) in cases {
            assert_eq!(tokenize(text), want, "{text}");
            let q = Query::new("http 天气 case finch v2 words response");
            assert_eq!(q.count_in(text), q.frequencies(&tokenize(text)), "{text}");
        }
        let q = Query::new("chloe s cafe bar 天气 气 http server a e ＡＢ ab");
        for text in [
            "Chloé's caféBar 天气, HTTPServer éA",
            "天气天气 x天气y ÉtudeAB ＡＢc (café)",
            "naïveHTTP天 — “quoted” ｅ",
        ] {
            assert_eq!(q.count_in(text), q.frequencies(&tokenize(text)), "{text}");
        }
    }

    #[test]
    fn bm25_prefers_rarer_terms_and_shorter_documents() {
        let q = Query::new("deploy kubernetes");
        let docs: Vec<TermCounts> = [
            "deploy the app",
            "kubernetes cluster notes about many many other unrelated things here",
            "kubernetes deploy",
            "lunch plans",
        ]
        .iter()
        .map(|d| q.frequencies(&tokenize(d)))
        .collect();
        let s = Bm25::default().score_all(&docs);
        assert!(s[2] > s[0] && s[2] > s[1], "{s:?}");
        assert_eq!(s[3], 0.0);
        assert!(!docs[3].matches_any());
    }

    #[test]
    fn snippets_mark_matches_in_the_original_text() {
        let q = Query::new("creme");
        let s = snippet("Buy CRÈME fraîche and crème brûlée", &q, 80);
        assert_eq!(s.marked("[", "]"), "Buy [CRÈME] fraîche and [crème] brûlée");
        let q = Query::new("天气");
        let s = snippet("明天的天气很好", &q, 80);
        assert_eq!(s.marked("[", "]"), "明天的[天气]很好");
        let long = format!("{} needle {}", "x ".repeat(100), "y ".repeat(100));
        let s = snippet(&long, &Query::new("needle"), 40);
        assert!(
            s.text.starts_with('…') && s.text.ends_with('…'),
            "{}",
            s.text
        );
        assert!(s.marked("[", "]").contains("[needle]"));
        assert!(s.text.chars().count() <= 42);
    }

    #[test]
    fn phrases() {
        let q = Query::new("Red Apple");
        assert!(q.phrase_in(&fold("a red apple pie")));
        assert!(!q.phrase_in(&fold("an apple that is red")));
    }
}
