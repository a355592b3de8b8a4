//! Ranked search over memory entries: BM25 (from `crate::search`) over the entries that hold a
//! query term, times an exact-phrase boost and a recency boost.
//!
//! Ten years of daily logs are tens of megabytes, so most of the text must be passed over without
//! being folded or tokenized. Each file is read with one allocation (a buffer reused per thread)
//! and searched as raw bytes with one case-insensitive regex of the folded query terms. Only the
//! entries that regex hits, plus the entries with a word that holds a character folding changes
//! into something a term could match (an accented letter, a full-width digit) and that holds a
//! term once folded, are tokenized and scored. That pre-filter never drops an entry the full
//! comparison would keep: outside such words an entry folds to its ASCII-lowercased self. Of a
//! file with hits only the lines around them are parsed (`doc::window_around`), unless it has
//! fenced code, an HTML comment or front matter (blocks that hide what a line is from a parse
//! starting in the middle); a file without hits is not parsed at all.
//!
//! Collection statistics are estimated where exact ones would mean tokenizing everything: the
//! number of entries from the entries per byte of a sample of the files (every file of a home
//! with at most 64, else every eighth), document frequency exactly (every entry holding a term is
//! a candidate), and the average entry length over the candidates. Files are scanned on up to 8
//! threads; only the candidates' numbers are kept, and the text and snippet of the best hits are
//! read again at the end, so memory stays small.

use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};

use chrono::NaiveDate;

use super::doc::{self, Document};
use super::files::{Selected, select};
use super::{Entry, MemoryError, MemoryHome, Selection, Skipped};
use crate::search::{Bm25, Query, Snippet, TermCounts, fold, snippet};

/// An entry holding the exact query phrase scores this many times more.
const PHRASE_FACTOR: f64 = 2.0;
/// An entry dated today scores up to this fraction more; the bonus halves every
/// `RECENCY_HALF_LIFE_DAYS` days of age.
const RECENCY_WEIGHT: f64 = 0.25;
const RECENCY_HALF_LIFE_DAYS: f64 = 30.0;
/// Files a thread takes at a time.
const CHUNK: usize = 16;

#[derive(Debug, Clone)]
pub struct SearchRequest<'a> {
    pub query: &'a str,
    pub selection: Selection,
    /// At most this many hits; 0 for all.
    pub limit: usize,
    /// Width of each hit's snippet, in characters.
    pub snippet_width: usize,
    /// The local date, for the recency boost.
    pub today: NaiveDate,
}

#[derive(Debug, Clone)]
pub struct Hit {
    pub entry: Entry,
    pub score: f64,
    pub snippet: Snippet,
}

#[derive(Debug)]
pub struct SearchResults {
    /// Best first.
    pub hits: Vec<Hit>,
    /// Files passed over (not UTF-8, unreadable).
    pub skipped: Vec<Skipped>,
    /// How many files were searched.
    pub files: usize,
}

/// Searches the selected memory files for `request.query`.
pub fn search(home: &MemoryHome, request: &SearchRequest) -> Result<SearchResults, MemoryError> {
    let query = Query::new(request.query);
    if query.is_empty() {
        return Err(MemoryError::EmptyQuery);
    }
    let files = select(home, &request.selection)?;
    let matcher = Matcher::new(query, files.len());
    let mut scan = Scan::default();
    for s in scan_all(&files, &matcher) {
        scan.merge(s);
    }
    scan.skipped.sort_by_key(|(i, _)| *i);
    let ranked = rank(&scan, &files, matcher.query.terms.len(), request);
    let hits = read_hits(
        &files,
        &scan.cands,
        &ranked,
        &matcher.query,
        request.snippet_width,
    );
    let skipped = scan
        .skipped
        .into_iter()
        .map(|(i, error)| Skipped {
            file: (*files[i].file).clone(),
            error,
        })
        .collect();
    Ok(SearchResults {
        hits,
        skipped,
        files: files.len(),
    })
}

/// Scores every candidate and returns the best `request.limit` (score, candidate index), best
/// first; ties go to the newer date, then to file order.
fn rank(
    scan: &Scan,
    files: &[Selected],
    terms: usize,
    request: &SearchRequest,
) -> Vec<(f64, usize)> {
    let cands = &scan.cands;
    // Collection statistics (see the module comment).
    let n = if scan.parsed_bytes > 0 {
        let per_byte = scan.parsed_entries as f64 / scan.parsed_bytes as f64;
        scan.parsed_entries as f64 + scan.unparsed_bytes as f64 * per_byte
    } else {
        0.0
    }
    .max(cands.len() as f64);
    let idf: Vec<f64> = (0..terms)
        .map(|t| {
            let df = (0..cands.len())
                .filter(|&c| scan.tf[c * terms + t] > 0)
                .count() as f64;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    let avg_len = if cands.is_empty() {
        1.0
    } else {
        (cands.iter().map(|c| c.len as f64).sum::<f64>() / cands.len() as f64).max(1.0)
    };
    let bm25 = Bm25::default();
    let mut counts = TermCounts {
        tf: vec![0; terms],
        len: 0,
    };
    let mut ranked: Vec<(f64, usize)> = cands
        .iter()
        .enumerate()
        .map(|(c, cand)| {
            counts
                .tf
                .copy_from_slice(&scan.tf[c * terms..(c + 1) * terms]);
            counts.len = cand.len;
            let mut score = bm25.score(&counts, &idf, avg_len);
            if cand.phrase {
                score *= PHRASE_FACTOR;
            }
            if let Some(date) = files[cand.file as usize].date {
                let age = (request.today - date).num_days().max(0) as f64;
                score *= 1.0 + RECENCY_WEIGHT * 0.5f64.powf(age / RECENCY_HALF_LIFE_DAYS);
            }
            (score, c)
        })
        .collect();
    let date = |c: usize| files[cands[c].file as usize].date;
    let order = |a: &(f64, usize), b: &(f64, usize)| {
        b.0.total_cmp(&a.0)
            .then_with(|| date(b.1).cmp(&date(a.1)))
            .then_with(|| cands[a.1].file.cmp(&cands[b.1].file))
            .then_with(|| cands[a.1].line.cmp(&cands[b.1].line))
    };
    if request.limit > 0 && ranked.len() > request.limit {
        ranked.select_nth_unstable_by(request.limit - 1, order);
        ranked.truncate(request.limit);
    }
    ranked.sort_unstable_by(order);
    ranked
}

/// The query and its byte-level pre-filter.
struct Matcher {
    query: Query,
    /// The terms, and code fences (```` ``` ````, `~~~`) and comment openers (`<!--`) so that
    /// files with them are known.
    prefilter: regex::bytes::Regex,
    /// The query is one term: every entry that holds it holds the phrase.
    phrase_is_term: bool,
    /// Every this many files one is parsed whole for the collection statistics.
    sample_every: usize,
}

impl Matcher {
    fn new(query: Query, files: usize) -> Matcher {
        let pattern = query
            .terms
            .iter()
            .map(|t| regex::escape(t))
            .chain(["```".to_string(), "~~~".to_string(), "<!--".to_string()])
            .collect::<Vec<_>>()
            .join("|");
        // Escaped literals always compile; the fallback matches everywhere, which is only slower.
        let prefilter = regex::bytes::RegexBuilder::new(&pattern)
            .case_insensitive(true)
            .build()
            .unwrap_or_else(|_| regex::bytes::Regex::new("").expect("the empty regex compiles"));
        let phrase_is_term = query.terms.len() == 1 && query.terms[0] == query.phrase;
        Matcher {
            query,
            prefilter,
            phrase_is_term,
            // Small homes get exact statistics.
            sample_every: if files <= 64 { 1 } else { 8 },
        }
    }
}

/// An entry that holds a query term: which file, which line, its length in terms, whether it
/// holds the whole phrase. Its term frequencies are in the scan's flat `tf`.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    file: u32,
    /// 0-based line of the entry's marker.
    line: u32,
    len: u32,
    phrase: bool,
}

/// What scanning files found: the candidates, their term frequencies (`terms` numbers per
/// candidate, flat), the sizes behind the collection statistics, and the files passed over.
#[derive(Default)]
struct Scan {
    cands: Vec<Candidate>,
    tf: Vec<u32>,
    parsed_entries: u64,
    parsed_bytes: u64,
    unparsed_bytes: u64,
    skipped: Vec<(usize, MemoryError)>,
}

impl Scan {
    fn merge(&mut self, other: Scan) {
        self.cands.extend(other.cands);
        self.tf.extend(other.tf);
        self.parsed_entries += other.parsed_entries;
        self.parsed_bytes += other.parsed_bytes;
        self.unparsed_bytes += other.unparsed_bytes;
        self.skipped.extend(other.skipped);
    }
}

fn scan_all(files: &[Selected], matcher: &Matcher) -> Vec<Scan> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8)
        .min(files.len().div_ceil(CHUNK))
        .max(1);
    let next = AtomicUsize::new(0);
    let work = || {
        let mut scan = Scan::default();
        let mut worker = Worker::default();
        loop {
            let start = next.fetch_add(CHUNK, Ordering::Relaxed);
            if start >= files.len() {
                break;
            }
            let end = (start + CHUNK).min(files.len());
            for (i, file) in files[start..end].iter().enumerate() {
                if let Err(e) = worker.scan_file(start + i, file, matcher, &mut scan) {
                    scan.skipped.push((start + i, e));
                }
            }
        }
        scan
    };
    if threads == 1 {
        return vec![work()];
    }
    std::thread::scope(|s| {
        // A thread that cannot be started leaves its share to the others (and at worst to this
        // thread), so a process limit slows the search down instead of failing it.
        let handles: Vec<_> = (1..threads)
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(s, work).ok())
            .collect();
        let mut scans = vec![work()];
        scans.extend(
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))),
        );
        scans
    })
}

/// What one scanning thread reuses from file to file.
struct Worker {
    buf: Vec<u8>,
    at: Vec<usize>,
    flags: FoldFlags,
}

impl Default for Worker {
    fn default() -> Self {
        Worker {
            buf: Vec::with_capacity(256 * 1024),
            at: Vec::new(),
            flags: FoldFlags::default(),
        }
    }
}

impl Worker {
    fn scan_file(
        &mut self,
        index: usize,
        selected: &Selected,
        m: &Matcher,
        scan: &mut Scan,
    ) -> Result<(), MemoryError> {
        let path = &selected.file.path;
        self.buf.clear();
        match std::fs::File::open(path) {
            // Through `take`, so that the read does not first ask the file's size (two more
            // system calls per file); the buffer keeps its capacity from file to file.
            Ok(f) => {
                f.take(u64::MAX)
                    .read_to_end(&mut self.buf)
                    .map_err(|e| MemoryError::io("read", path, e))?;
            }
            // Removed since the directory was listed: nothing to search.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(MemoryError::io("read", path, e)),
        }
        let text = std::str::from_utf8(&self.buf).map_err(|e| MemoryError::NotUtf8 {
            path: path.clone(),
            offset: e.valid_up_to(),
        })?;
        let bytes = text.as_bytes();
        let len = text.len() as u64;
        self.at.clear();
        self.at
            .extend(m.prefilter.find_iter(text.as_bytes()).map(|x| x.start()));
        if !text.is_ascii() {
            self.flags.collect(text, &m.query.terms, &mut self.at);
        }
        let sampled = index.is_multiple_of(m.sample_every);
        if self.at.is_empty() && !sampled {
            scan.unparsed_bytes += len;
            return Ok(());
        }
        self.at.sort_unstable();
        // Fenced code, comments and front matter can hide what a line is from a parse that
        // starts in the middle, so files with them are parsed whole; so are the files sampled
        // for the collection statistics.
        let fenced = self
            .at
            .iter()
            .any(|&p| matches!(bytes[p], b'`' | b'~' | b'<'))
            || text.trim_start_matches('\u{feff}').starts_with("---");
        if sampled {
            let doc = Document::parse(text);
            scan.parsed_entries += doc.entries.len() as u64;
            scan.parsed_bytes += len;
            consider_hits(&doc, 0, &self.at, index, m, scan);
            return Ok(());
        }
        scan.unparsed_bytes += len;
        if fenced {
            consider_hits(&Document::parse(text), 0, &self.at, index, m, scan);
            return Ok(());
        }
        // Only the lines around the hits, with line numbers counted up to each window.
        let (mut counted, mut lines_before) = (0, 0);
        let mut k = 0;
        while k < self.at.len() {
            let window = doc::window_around(text, self.at[k]);
            lines_before += bytes[counted..window.start]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            counted = window.start;
            let inside = self.at[k..].partition_point(|&p| p < window.end).max(1);
            let doc = Document::parse_window(text, window);
            consider_hits(&doc, lines_before, &self.at[k..k + inside], index, m, scan);
            k += inside;
        }
        Ok(())
    }
}

/// Adds the entries of `doc` holding the byte offsets `at` (sorted) that hold a query term.
/// `lines_before` is the number of file lines before the document's first line.
fn consider_hits(
    doc: &Document,
    lines_before: usize,
    at: &[usize],
    file: usize,
    m: &Matcher,
    scan: &mut Scan,
) {
    let mut last = None;
    for &p in at {
        let Some(i) = doc.entry_holding(p) else {
            continue;
        };
        if last == Some(i) {
            continue;
        }
        last = Some(i);
        // Counted on the raw text: collapsing white space changes no word.
        let counts = m.query.count_in(doc.entry_source(i));
        if !counts.matches_any() {
            continue;
        }
        scan.cands.push(Candidate {
            file: file as u32,
            line: (lines_before + doc.entries[i].first_line) as u32,
            len: counts.len,
            // A phrase counts when the entry holds every term of it as a word, too.
            phrase: m.phrase_is_term
                || (counts.tf.iter().all(|&n| n > 0)
                    && m.query.phrase_in(&fold(&doc.entry_text(i)))),
        });
        scan.tf.extend_from_slice(&counts.tf);
    }
}

/// Remembers, per character, whether folding it can make or break a term match: it changes
/// under folding and either is a letter or digit, folds to one, or folds to nothing (a combining
/// accent, which joins its neighbours). Characters that fold to themselves (Chinese, most
/// punctuation) or only to other punctuation (`，` → `,`) cannot.
struct FoldFlags {
    /// 0 unknown, 1 no, 2 yes, for every character of the Basic Multilingual Plane.
    bmp: Vec<u8>,
}

impl Default for FoldFlags {
    fn default() -> Self {
        FoldFlags {
            bmp: vec![0; 0x10000],
        }
    }
}

impl FoldFlags {
    fn flagged(&mut self, c: char) -> bool {
        let cp = c as usize;
        if cp >= self.bmp.len() {
            return Self::compute(c);
        }
        match self.bmp[cp] {
            1 => false,
            2 => true,
            _ => {
                let f = Self::compute(c);
                self.bmp[cp] = if f { 2 } else { 1 };
                f
            }
        }
    }

    fn compute(c: char) -> bool {
        let mut own = [0u8; 4];
        let own = c.encode_utf8(&mut own);
        let folded = fold(own);
        if folded == *own {
            return false;
        }
        c.is_alphanumeric() || folded.is_empty() || folded.chars().any(char::is_alphanumeric)
    }

    /// Pushes the start of every word of `text` that holds a flagged character and that, folded,
    /// holds one of `terms`. A word here runs between ASCII characters that are neither letters
    /// nor digits, which fold to themselves and so can never be part of a term.
    fn collect(&mut self, text: &str, terms: &[String], out: &mut Vec<usize>) {
        let bytes = text.as_bytes();
        let in_word = |b: u8| b >= 0x80 || b.is_ascii_alphanumeric();
        let mut i = 0;
        loop {
            i = next_non_ascii(bytes, i);
            if i >= bytes.len() {
                break;
            }
            // U+4000–U+9FFF (CJK ideographs, Yijing symbols) fold to themselves.
            if (0xe4..=0xe9).contains(&bytes[i]) {
                i += 3;
                continue;
            }
            let Some(c) = text[i..].chars().next() else {
                break;
            };
            if !self.flagged(c) {
                i += c.len_utf8();
                continue;
            }
            let mut start = i;
            while start > 0 && in_word(bytes[start - 1]) {
                start -= 1;
            }
            let mut end = i;
            while end < bytes.len() && in_word(bytes[end]) {
                end += 1;
            }
            let word = fold(&text[start..end]);
            if terms.iter().any(|t| word.contains(t.as_str())) {
                out.push(start);
            }
            i = end;
        }
    }
}

/// The offset of the first byte at or after `from` that is not ASCII (`bytes.len()` if none),
/// eight bytes at a time.
fn next_non_ascii(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while i + 8 <= bytes.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[i..i + 8]);
        if u64::from_le_bytes(word) & 0x8080_8080_8080_8080 != 0 {
            break;
        }
        i += 8;
    }
    while i < bytes.len() && bytes[i] < 0x80 {
        i += 1;
    }
    i
}

/// Reads the best hits' files again for their text, id and snippet. A hit whose entry changed
/// since the scan is dropped.
fn read_hits(
    files: &[Selected],
    cands: &[Candidate],
    ranked: &[(f64, usize)],
    query: &Query,
    width: usize,
) -> Vec<Hit> {
    // Each file is read once, for all of its hits.
    let mut by_file: Vec<usize> = (0..ranked.len()).collect();
    by_file.sort_by_key(|&slot| cands[ranked[slot].1].file);
    let mut found: Vec<Option<Hit>> = vec![None; ranked.len()];
    for group in by_file.chunk_by(|&a, &b| cands[ranked[a].1].file == cands[ranked[b].1].file) {
        let selected = &files[cands[ranked[group[0]].1].file as usize];
        let Ok(Some(text)) = super::files::read(&selected.file.path) else {
            continue;
        };
        let doc = Document::parse(&text);
        for &slot in group {
            let (score, c) = ranked[slot];
            let Some(i) = doc.entry_at_line(cands[c].line as usize) else {
                continue;
            };
            let entry = Entry::from_doc(&doc, i, &selected.file, selected.date);
            let snippet = snippet(&entry.text, query, width);
            found[slot] = Some(Hit {
                entry,
                score,
                snippet,
            });
        }
    }
    found.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::{FileKind, list};

    /// Every entry the full comparison (tokenizing every listed entry) finds, and where.
    fn expected(home: &MemoryHome, query: &str) -> Vec<(String, usize)> {
        let q = Query::new(query);
        let (entries, _) = list(home, &Selection::default()).unwrap();
        let mut want: Vec<(String, usize)> = entries
            .iter()
            .filter(|e| {
                e.parent.is_none()
                    && q.frequencies(&crate::search::tokenize(&e.text))
                        .matches_any()
            })
            .map(|e| (e.file.name.clone(), e.line))
            .collect();
        want.sort();
        want
    }

    #[test]
    fn the_fast_path_finds_what_tokenizing_everything_finds() {
        let dir = tempfile::tempdir().unwrap();
        let home = MemoryHome::new(dir.path(), std::time::Duration::from_secs(1));
        let start = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
        // More than 64 files, so that most are read around their hits only.
        for d in 0..100u32 {
            let file = home.file(FileKind::Daily(start + chrono::Days::new(d.into())));
            let mut text = format!("# day {d}\n\nIntro about Deploying things.\n");
            for i in 0..(d % 7) {
                text.push_str(&format!("- {i:02}:00 plain entry {i}\n"));
                if (d + i) % 5 == 0 {
                    text.push_str("  continued: the DEPLOY went fine\n    - nested café note\n");
                }
                if (d + i) % 11 == 0 {
                    text.push_str(
                        " - sibling with parseDeployScript\n\n  after a blank, ｄｅｐｌｏｙ\n",
                    );
                }
                if (d * i) % 13 == 1 {
                    text.push_str("- 天气 deploy\u{301}ed 明天\n");
                }
            }
            if d % 17 == 0 {
                text.push_str("```\n- deploy inside a fence\n```\n- deploy after the fence\n");
            }
            if d % 19 == 3 {
                text.insert_str(0, "---\ntags:\n- deploy\n---\n");
            }
            if d % 23 == 4 {
                text.push_str("<!--\n- deploy hidden\n-->\n- deploy after a comment\n");
            }
            std::fs::create_dir_all(file.path.parent().unwrap()).unwrap();
            std::fs::write(&file.path, text).unwrap();
        }
        for query in ["deploy", "café", "天气", "cafe deploy", "script"] {
            let request = SearchRequest {
                query,
                selection: Selection::default(),
                limit: 0,
                snippet_width: 80,
                today: start,
            };
            let found = search(&home, &request).unwrap();
            let mut got: Vec<(String, usize)> = found
                .hits
                .iter()
                .map(|h| (h.entry.file.name.clone(), h.entry.line))
                .collect();
            got.sort();
            assert_eq!(got, expected(&home, query), "{query}");
            assert!(!got.is_empty(), "{query}");
        }
    }

    #[test]
    fn fold_flags_mark_only_characters_that_can_change_a_match() {
        let mut f = FoldFlags::default();
        for c in ['é', 'Ａ', '１', '\u{301}', 'ﬁ', 'É'] {
            assert!(f.flagged(c), "{c}");
        }
        for c in ['天', '，', '。', '—', '’', 'α', '🙂'] {
            assert!(!f.flagged(c), "{c}");
        }
        let mut at = Vec::new();
        let terms = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        f.collect("plain 天气，café x", &terms(&["cafe"]), &mut at);
        assert_eq!(at, ["plain ".len()]);
        at.clear();
        f.collect("plain 天气，café x", &terms(&["x", "plain"]), &mut at);
        assert!(at.is_empty());
        f.collect("e\u{301}tude Ｆinch", &terms(&["etude", "finch"]), &mut at);
        assert_eq!(at, [0, "e\u{301}tude ".len()]);
    }
}
