//! `session search`: ranked hits over message text and tool names of every transcript, with the
//! ranking of `crate::search` (BM25 over entries, plus an exact-phrase boost).
//!
//! Transcripts can add up to hundreds of megabytes, so the scan is built like a grep: each file
//! is read in large blocks, and only lines that can contain a query term are parsed as JSON.
//! A line is a candidate when an ASCII term occurs in it ignoring ASCII case (a `regex` over the
//! block, which finds literals with SIMD), when it holds a `\uXXXX` escape of a printable
//! character, or when it holds non-ASCII text whose folded form contains a term (so `creme`
//! finds `crème`). Every entry that holds a term is a candidate, so skipping the rest changes no
//! result. Candidates are read by `entry_text` and counted by `search::TermCounter` without a string per
//! word. Files are spread over threads; only the best hits are read a second time to cut their
//! snippets.
//!
//! BM25 needs the collection's size: every line counts as a document, candidates give the
//! document frequencies and the average length.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use regex::bytes::Regex;
use serde_json::{Value, json};

use super::entry_text::{self, EntryText};
use super::locate::{instant, transcript_files};
use super::transcript::{self, Header};
use super::{SessionError, Warning, par_map_with};
use crate::homes::Homes;
use crate::search::{Bm25, Query, Snippet, TermCounts, fold, snippet};
use crate::search::{TermCounter, find_byte, next_non_ascii, rfind_byte, word_around};

/// Bytes read from a transcript at a time; a longer line grows the buffer.
const BLOCK: usize = 1 << 20;
/// Characters of text around the first match shown per hit.
const SNIPPET_CHARS: usize = 160;
/// How much an entry holding the whole query as written outranks one with scattered words.
const PHRASE_BOOST: f64 = 2.0;

#[derive(Debug, Clone)]
pub struct SearchOptions {
    pub query: String,
    /// At most this many hits; 0 is no limit.
    pub limit: usize,
    /// Only entries written at or after this instant.
    pub since: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone)]
pub struct SearchHit {
    pub session: String,
    pub path: PathBuf,
    pub workspace: Option<String>,
    pub entry: Option<String>,
    pub role: String,
    pub timestamp: Option<String>,
    pub score: f64,
    pub snippet: Snippet,
}

impl SearchHit {
    pub fn to_json(&self) -> Value {
        let matches: Vec<[usize; 2]> = self
            .snippet
            .matches
            .iter()
            .map(|m| [m.start, m.end])
            .collect();
        json!({
            "session": self.session,
            "entry": self.entry,
            "role": self.role,
            "timestamp": self.timestamp,
            "workspace": self.workspace,
            "path": self.path,
            "score": (self.score * 1000.0).round() / 1000.0,
            "snippet": self.snippet.text,
            "matches": matches,
        })
    }
}

#[derive(Debug, Clone, Default)]
pub struct SearchResults {
    pub hits: Vec<SearchHit>,
    pub sessions_searched: usize,
    pub warnings: Vec<Warning>,
}

/// Searches every transcript under the runtime home.
pub fn search(homes: &Homes, options: &SearchOptions) -> Result<SearchResults, SessionError> {
    let files = transcript_files(&homes.sessions_dir())?;
    search_files(&files, options)
}

/// Searches the given transcript files.
pub fn search_files(
    files: &[PathBuf],
    options: &SearchOptions,
) -> Result<SearchResults, SessionError> {
    let query = Query::new(&options.query);
    if query.is_empty() {
        return Err(SessionError::EmptyQuery);
    }
    let matcher = Matcher::new(&query)?;
    let scans = par_map_with(files, Buffers::default, |buffers, path| {
        scan_file(path, &matcher, options.since, buffers)
    });

    let mut warnings = Vec::new();
    let mut documents = 0usize;
    let mut candidates: Vec<(usize, Candidate)> = Vec::new();
    let mut sessions: Vec<Option<Header>> = Vec::with_capacity(files.len());
    for (i, scan) in scans.into_iter().enumerate() {
        match scan {
            Ok(scan) => {
                documents += scan.lines;
                warnings.extend(scan.warnings);
                candidates.extend(scan.candidates.into_iter().map(|c| (i, c)));
                sessions.push(scan.header);
            }
            Err(e) => {
                warnings.push(format!("{e}; not searched"));
                sessions.push(None);
            }
        }
    }

    let scores = score(&candidates, documents, query.terms.len());
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    let best_first = |&a: &usize, &b: &usize| {
        scores[b]
            .total_cmp(&scores[a])
            .then_with(|| candidates[b].1.time.cmp(&candidates[a].1.time))
            .then_with(|| candidates[a].0.cmp(&candidates[b].0))
            .then_with(|| candidates[a].1.offset.cmp(&candidates[b].1.offset))
    };
    if options.limit > 0 && options.limit < order.len() {
        order.select_nth_unstable_by(options.limit, best_first);
        order.truncate(options.limit);
    }
    order.sort_by(best_first);

    let mut hits = Vec::with_capacity(order.len());
    for i in order {
        let (file, candidate) = &candidates[i];
        let path = &files[*file];
        let header = sessions[*file].as_ref();
        // The line is read again only for the hits shown; a file changed in between (appends
        // leave earlier lines where they were) at worst loses this hit.
        let Some((entry, role, text)) = reread(path, candidate) else {
            continue;
        };
        hits.push(SearchHit {
            session: header
                .map(|h| h.id.clone())
                .unwrap_or_else(|| transcript::id_from_file_name(path)),
            path: path.clone(),
            workspace: header.and_then(|h| h.cwd.clone()),
            entry: entry.get("id").and_then(Value::as_str).map(str::to_string),
            role,
            timestamp: entry
                .get("timestamp")
                .and_then(Value::as_str)
                .map(str::to_string),
            score: scores[i],
            snippet: snippet(&text, &query, SNIPPET_CHARS),
        });
    }
    Ok(SearchResults {
        hits,
        sessions_searched: files.len(),
        warnings,
    })
}

/// BM25 with the collection's size and document frequencies, times the phrase boost.
fn score(candidates: &[(usize, Candidate)], documents: usize, terms: usize) -> Vec<f64> {
    if candidates.is_empty() {
        return Vec::new();
    }
    let n = documents.max(candidates.len()) as f64;
    let idf: Vec<f64> = (0..terms)
        .map(|t| {
            let df = candidates.iter().filter(|(_, c)| c.tf.tf[t] > 0).count() as f64;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    let avg_len =
        candidates.iter().map(|(_, c)| c.tf.len as f64).sum::<f64>() / candidates.len() as f64;
    let bm25 = Bm25::default();
    candidates
        .iter()
        .map(|(_, c)| {
            let s = bm25.score(&c.tf, &idf, avg_len.max(1.0));
            if c.phrase { s * PHRASE_BOOST } else { s }
        })
        .collect()
}

/// Decides cheaply which lines of a block may hold a query term.
struct Matcher {
    query: Query,
    /// The ASCII terms, ignoring ASCII case; `None` when there are none.
    ascii: Option<Regex>,
    /// `\uXXXX` escapes of anything but control characters: they may hide any letter.
    escape: Regex,
    /// The whole query ignoring ASCII case, when it is ASCII: the phrase test for ASCII text.
    phrase: Option<Regex>,
    counter: TermCounter,
}

/// JSON escapes of U+0020 and above. Kept apart from the terms' pattern so that the terms are
/// found by the fastest literal search the `regex` crate has.
const ESCAPE: &str =
    r"\\u(?:00[2-9A-Fa-f][0-9A-Fa-f]|0[1-9A-Fa-f][0-9A-Fa-f]{2}|[1-9A-Fa-f][0-9A-Fa-f]{3})";

impl Matcher {
    fn new(query: &Query) -> Result<Matcher, SessionError> {
        // Escaped literals always parse; only a huge query can exceed the size limit.
        let compile =
            |pattern: &str| Regex::new(pattern).map_err(|e| SessionError::Query(e.to_string()));
        let alternatives: Vec<String> = query
            .terms
            .iter()
            .filter(|t| t.is_ascii())
            .map(|t| regex::escape(t))
            .collect();
        let ascii = match alternatives.is_empty() {
            true => None,
            false => Some(compile(&format!("(?i-u:{})", alternatives.join("|")))?),
        };
        let phrase = match query.phrase.is_ascii() {
            true => Some(compile(&format!(
                "(?i-u:{})",
                regex::escape(&query.phrase)
            ))?),
            false => None,
        };
        Ok(Matcher {
            query: query.clone(),
            ascii,
            escape: compile(ESCAPE)?,
            phrase,
            counter: TermCounter::new(query).map_err(|e| SessionError::Query(e.to_string()))?,
        })
    }

    /// Line ranges of `block` (lines without their newline) that may hold a term, in order.
    fn candidate_lines(&self, block: &[u8], out: &mut Vec<Range<usize>>) {
        out.clear();
        for regex in self.ascii.iter().chain([&self.escape]) {
            let mut at = 0;
            while let Some(found) = regex.find_at(block, at) {
                let line = line_around(block, found.start());
                at = line.end + 1;
                out.push(line);
                if at >= block.len() {
                    break;
                }
            }
        }
        out.sort_by_key(|r| r.start);
        out.dedup();
        // A term can match folded non-ASCII text only inside a word that holds it: fold just the
        // run of letters and digits around each non-ASCII byte, outside lines already chosen.
        let chosen = out.len();
        let mut next_chosen = 0;
        let mut at = 0;
        while let Some(p) = next_non_ascii(block, at) {
            while next_chosen < chosen && out[next_chosen].end < p {
                next_chosen += 1;
            }
            if next_chosen < chosen && out[next_chosen].start <= p {
                at = out[next_chosen].end + 1;
                continue;
            }
            let run = word_around(block, p);
            at = run.end;
            if self.folded_holds_a_term(&block[run]) {
                let line = line_around(block, p);
                at = line.end + 1;
                out.push(line);
            }
        }
        if out.len() > chosen {
            out.sort_by_key(|r| r.start);
        }
    }

    fn folded_holds_a_term(&self, word: &[u8]) -> bool {
        let folded = fold(&String::from_utf8_lossy(word));
        self.query.terms.iter().any(|t| folded.contains(t.as_str()))
    }
}

/// The line of `block` holding byte `at`, without its newline.
fn line_around(block: &[u8], at: usize) -> Range<usize> {
    let start = rfind_byte(block, at, b'\n').map_or(0, |i| i + 1);
    let end = find_byte(block, at, b'\n').unwrap_or(block.len());
    start..end
}

/// Newlines in `bytes`, counted in byte-wide lanes so the compiler can use vector instructions.
fn count_newlines(bytes: &[u8]) -> usize {
    let (chunks, tail) = bytes.as_chunks::<64>();
    let mut total = 0;
    // A lane counts at most 255 before it is added up.
    for group in chunks.chunks(255) {
        let mut lanes = [0u8; 64];
        for chunk in group {
            for (lane, &b) in lanes.iter_mut().zip(chunk) {
                *lane += u8::from(b == b'\n');
            }
        }
        total += lanes.iter().map(|&n| usize::from(n)).sum::<usize>();
    }
    total + tail.iter().filter(|&&b| b == b'\n').count()
}

/// An entry that holds at least one query term.
struct Candidate {
    /// Byte offset and length of its line in the file.
    offset: u64,
    len: usize,
    tf: TermCounts,
    phrase: bool,
    time: Option<DateTime<Utc>>,
}

struct FileScan {
    header: Option<Header>,
    /// Lines in the file, each a document for BM25.
    lines: usize,
    candidates: Vec<Candidate>,
    warnings: Vec<Warning>,
}

/// A thread's read buffer and candidate list, kept from one file to the next.
#[derive(Default)]
struct Buffers {
    block: Vec<u8>,
    lines: Vec<Range<usize>>,
}

/// Reads one transcript block by block and keeps the entries that hold a query term.
fn scan_file(
    path: &Path,
    matcher: &Matcher,
    since: Option<DateTime<Utc>>,
    buffers: &mut Buffers,
) -> Result<FileScan, SessionError> {
    let mut file = File::open(path).map_err(|e| SessionError::read(path, e))?;
    let mut scan = FileScan {
        header: None,
        lines: 0,
        candidates: Vec::new(),
        warnings: Vec::new(),
    };
    let Buffers { block: buf, lines } = buffers;
    // The buffer stays allocated (and initialized) from file to file: `buf[..filled]` holds
    // data, `base` is the file offset of `buf[0]`.
    if buf.len() < BLOCK {
        buf.resize(BLOCK, 0);
    }
    let mut filled = 0;
    let mut base: u64 = 0;
    let mut first_block = true;
    loop {
        let eof = fill(&mut file, buf, &mut filled).map_err(|e| SessionError::read(path, e))?;
        let end = if eof {
            filled
        } else {
            match rfind_byte(buf, filled, b'\n') {
                Some(i) => i + 1,
                None => {
                    // One line longer than the buffer: make room and read on until it ends.
                    buf.resize(buf.len() * 2, 0);
                    continue;
                }
            }
        };
        let block = &buf[..end];
        let mut skip_to = 0;
        if first_block {
            first_block = false;
            let header_end = find_byte(block, 0, b'\n').unwrap_or(block.len());
            scan.header = transcript::parse_line(transcript::trim_line(&block[..header_end]))
                .ok()
                .and_then(|v| Header::from_value(&v));
            if scan.header.is_some() {
                skip_to = header_end;
            }
        }
        let newlines = count_newlines(block);
        let unterminated = usize::from(eof && block.last().is_some_and(|&b| b != b'\n'));
        matcher.candidate_lines(block, lines);
        for line in lines.iter().filter(|l| l.start >= skip_to) {
            let text = &block[line.clone()];
            let offset = base + line.start as u64;
            match candidate(text, matcher, since) {
                Ok(Some((tf, phrase, time))) => scan.candidates.push(Candidate {
                    offset,
                    len: line.len(),
                    tf,
                    phrase,
                    time,
                }),
                Ok(None) => {}
                Err(why) => {
                    let number = scan.lines
                        + block[..line.start].iter().filter(|&&b| b == b'\n').count()
                        + 1;
                    scan.warnings.push(if line.end == block.len() && eof {
                        format!(
                            "{}:{number}: skipped a truncated last line (it is left as it is)",
                            path.display()
                        )
                    } else {
                        format!("{}:{number}: skipped a line: {why}", path.display())
                    });
                }
            }
        }
        scan.lines += newlines + unterminated;
        base += end as u64;
        buf.copy_within(end..filled, 0);
        filled -= end;
        if eof {
            break;
        }
    }
    Ok(scan)
}

/// Reads into `buf[*filled..]` until it is full or the file ends; `true` at the end.
fn fill(file: &mut File, buf: &mut [u8], filled: &mut usize) -> std::io::Result<bool> {
    while *filled < buf.len() {
        match file.read(&mut buf[*filled..]) {
            Ok(0) => return Ok(true),
            Ok(n) => *filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(false)
}

type Scored = (TermCounts, bool, Option<DateTime<Utc>>);

/// Term counts, phrase flag and time of a candidate line, or `None` when its searchable text
/// holds no term (the match was in another field) or it is older than `since`.
fn candidate(
    line: &[u8],
    matcher: &Matcher,
    since: Option<DateTime<Utc>>,
) -> Result<Option<Scored>, String> {
    let Some(EntryText {
        pieces, timestamp, ..
    }) = entry_text::of_line(transcript::trim_line(line))?
    else {
        return Ok(None);
    };
    let time = instant(timestamp.as_deref());
    if let Some(since) = since
        && time.is_none_or(|t| t < since)
    {
        return Ok(None);
    }
    let query = &matcher.query;
    let tf = matcher.counter.count(&pieces);
    if !tf.matches_any() {
        return Ok(None);
    }
    // Pieces are joined by newlines, which no phrase holds: look for it in each.
    let phrase = query.terms.len() > 1
        && pieces.iter().any(|piece| match &matcher.phrase {
            Some(ascii) if piece.is_ascii() => ascii.is_match(piece.as_bytes()),
            _ => query.phrase_in(&fold(piece)),
        });
    Ok(Some((tf, phrase, time)))
}

/// The entry of a candidate line, read again from its file.
fn reread(path: &Path, candidate: &Candidate) -> Option<(Value, String, String)> {
    let mut file = File::open(path).ok()?;
    file.seek(SeekFrom::Start(candidate.offset)).ok()?;
    let mut line = vec![0; candidate.len];
    file.read_exact(&mut line).ok()?;
    let entry = transcript::parse_line(transcript::trim_line(&line)).ok()?;
    let found = entry_text::of_value(&entry)?;
    let (role, text) = (found.role.into_owned(), found.pieces.join("\n"));
    Some((entry, role, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(id: &str, role: &str, text: &str) -> String {
        json!({"type": "message", "id": id, "parentId": null,
            "timestamp": "2026-01-01T00:00:00.000Z",
            "message": {"role": role, "content": [{"type": "text", "text": text}]}})
        .to_string()
    }

    fn search_in(files: &[PathBuf], query: &str) -> SearchResults {
        let options = SearchOptions {
            query: query.into(),
            limit: 0,
            since: None,
        };
        search_files(files, &options).unwrap()
    }

    #[test]
    fn lines_longer_than_a_block_and_unterminated_last_lines_are_searched() {
        let dir = tempfile::tempdir().unwrap();
        let header = r#"{"type":"session","version":3,"id":"s-1","timestamp":"T","cwd":"/w"}"#;
        let long = message(
            "aaaa0001",
            "toolResult",
            &format!("{} needle", "x ".repeat(BLOCK)),
        );
        let last = message("aaaa0002", "user", "needle at the very end");
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, format!("{header}\n{long}\n{last}")).unwrap();
        let found = search_in(std::slice::from_ref(&path), "needle");
        let mut entries: Vec<_> = found.hits.iter().map(|h| h.entry.clone()).collect();
        entries.sort();
        assert_eq!(
            entries,
            [Some("aaaa0001".to_string()), Some("aaaa0002".to_string())]
        );
        assert_eq!(found.hits[0].session, "s-1");
        assert!(found.warnings.is_empty(), "{:?}", found.warnings);
    }

    #[test]
    fn broken_candidate_lines_are_warnings_and_other_lines_are_not_looked_at() {
        let dir = tempfile::tempdir().unwrap();
        let header = r#"{"type":"session","version":3,"id":"s-2","timestamp":"T","cwd":"/w"}"#;
        let good = message("bbbb0001", "user", "a needle here");
        let path = dir.path().join("t.jsonl");
        let text = format!(
            "{header}\n{{broken needle line\n{{broken line without the word\n{good}\n{{\"cut needle"
        );
        std::fs::write(&path, text).unwrap();
        let found = search_in(std::slice::from_ref(&path), "needle");
        assert_eq!(found.hits.len(), 1);
        assert_eq!(found.hits[0].entry.as_deref(), Some("bbbb0001"));
        let shown = path.display();
        assert_eq!(
            found.warnings,
            [
                format!(
                    "{shown}:2: skipped a line: not valid JSON (column 2): key must be a string at line 1 column 2"
                ),
                format!("{shown}:5: skipped a truncated last line (it is left as it is)"),
            ]
        );
    }

    fn lines_of(block: &str, query: &str) -> Vec<String> {
        let m = Matcher::new(&Query::new(query)).unwrap();
        let mut out = Vec::new();
        m.candidate_lines(block.as_bytes(), &mut out);
        out.into_iter().map(|r| block[r].to_string()).collect()
    }

    #[test]
    fn candidates_ignore_case_accents_and_escapes() {
        let block = "one Deploy\ntwo nothing\nthree crème\nfour caf\\u00e9\nfive 天气好\nsix DEPLOY deploy\nseven \\u001b[0m";
        // An escape may hide any letter, so its line is always looked at; one of a control
        // character (`\\u001b`) cannot.
        let escaped = "four caf\\u00e9";
        assert_eq!(
            lines_of(block, "deploy"),
            ["one Deploy", escaped, "six DEPLOY deploy"]
        );
        assert_eq!(lines_of(block, "creme"), ["three crème", escaped]);
        assert_eq!(lines_of(block, "zzz"), [escaped]);
        assert_eq!(lines_of(block, "天气"), ["four caf\\u00e9", "five 天气好"]);
    }

    #[test]
    fn lines_around_a_byte() {
        let block = b"ab\ncd\nef";
        assert_eq!(line_around(block, 0), 0..2);
        assert_eq!(line_around(block, 4), 3..5);
        assert_eq!(line_around(block, 7), 6..8);
    }
}
