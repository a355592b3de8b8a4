//! Term counts of a text for BM25 — exactly `query.frequencies(&tokenize(text))` of
//! `crate::search`, computed without making a string per word. A search with many hits reads
//! over a hundred megabytes of message text, and allocating every word was most of its time.
//!
//! `tokenize` treats ASCII punctuation and spaces as separators and splits runs of ASCII
//! letters and digits only by its camelCase rule. So for ASCII text, the number of words is the
//! number of run starts plus camelCase splits, counted 64 bytes at a time with bit masks, and a
//! query term occurs as a word where a case-insensitive match of it starts and ends at word
//! boundaries with no boundary inside. Text holding other characters is split into runs at ASCII
//! separators; runs with non-ASCII characters are counted by `Query::count_in`. Tests check
//! that the result is always that of `tokenize`.

use std::ops::Range;

use regex::bytes::Regex;

use super::{Query, TermCounts};

/// Counts query terms in texts.
pub struct TermCounter {
    query: Query,
    /// A case-insensitive finder of each ASCII term (`None` for other terms, which cannot occur
    /// in ASCII text).
    finders: Vec<Option<Regex>>,
}

impl TermCounter {
    pub fn new(query: &Query) -> Result<TermCounter, regex::Error> {
        let finders = query
            .terms
            .iter()
            .map(|t| {
                t.is_ascii()
                    .then(|| Regex::new(&format!("(?i-u:{})", regex::escape(t))))
                    .transpose()
            })
            .collect::<Result<_, _>>()?;
        Ok(TermCounter {
            query: query.clone(),
            finders,
        })
    }

    /// The counts of the pieces of one document.
    pub fn count<S: AsRef<str>>(&self, pieces: &[S]) -> TermCounts {
        let mut counts = TermCounts {
            tf: vec![0; self.query.terms.len()],
            len: 0,
        };
        for piece in pieces {
            self.add(piece.as_ref(), &mut counts);
        }
        counts
    }

    /// ASCII stretches are counted here; each run of letters and digits that holds other
    /// characters goes through `Query::count_in`. Such a run ends at ASCII separators (or the
    /// text's ends), which split words for `tokenize` too, so the stretches between runs can be
    /// counted on their own.
    fn add(&self, text: &str, counts: &mut TermCounts) {
        let bytes = text.as_bytes();
        if let Some(words) = count_ascii_words(bytes) {
            counts.len += words;
            self.add_ascii_terms(bytes, counts);
            return;
        }
        let mut at = 0;
        while let Some(p) = next_non_ascii(bytes, at) {
            let run = word_around(bytes, p);
            self.add_ascii(&bytes[at..run.start], counts);
            let other = self.query.count_in(&text[run.clone()]);
            counts.len += other.len;
            for (n, m) in counts.tf.iter_mut().zip(other.tf) {
                *n += m;
            }
            at = run.end;
        }
        self.add_ascii(&bytes[at..], counts);
    }

    fn add_ascii(&self, text: &[u8], counts: &mut TermCounts) {
        counts.len += count_ascii_words(text).unwrap_or(0);
        self.add_ascii_terms(text, counts);
    }

    /// Adds the occurrences of each ASCII term as a whole word of ASCII `text`.
    fn add_ascii_terms(&self, text: &[u8], counts: &mut TermCounts) {
        for (tf, finder) in counts.tf.iter_mut().zip(&self.finders) {
            let Some(finder) = finder else { continue };
            let mut at = 0;
            while let Some(m) = finder.find_at(text, at) {
                if is_word(text, m.start(), m.end()) {
                    *tf += 1;
                    at = m.end();
                } else {
                    // A word may start inside this match (`aAa` holds the word `aa` at 1).
                    at = m.start() + 1;
                }
            }
        }
    }
}

/// The run of ASCII letters, digits and non-ASCII bytes around byte `at`: the only place a word
/// holding that byte can be. Its ends are character boundaries.
pub fn word_around(text: &[u8], at: usize) -> Range<usize> {
    let part = |b: &u8| *b >= 0x80 || b.is_ascii_alphanumeric();
    let start = text[..at]
        .iter()
        .rposition(|b| !part(b))
        .map_or(0, |i| i + 1);
    let end = text[at..]
        .iter()
        .position(|b| !part(b))
        .map_or(text.len(), |i| at + i);
    start..end
}

/// Whether `tokenize` starts a new word at `i` inside a run of letters and digits: a capital
/// after a lowercase letter, or the last capital of an acronym before a lowercase letter.
fn camel_split(text: &[u8], i: usize) -> bool {
    let upper = |j: usize| text.get(j).is_some_and(u8::is_ascii_uppercase);
    let lower = |j: usize| text.get(j).is_some_and(u8::is_ascii_lowercase);
    i > 0 && upper(i) && (lower(i - 1) || (upper(i - 1) && lower(i + 1)))
}

/// Whether `text[start..end]` (letters and digits) is one whole word of ASCII `text`.
fn is_word(text: &[u8], start: usize, end: usize) -> bool {
    let separator = |i: usize| !text[i].is_ascii_alphanumeric();
    let starts = start == 0 || separator(start - 1) || camel_split(text, start);
    let ends = end == text.len() || separator(end) || camel_split(text, end);
    starts && ends && !(start + 1..end).any(|i| camel_split(text, i))
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `x` (all ASCII) set where the byte is at least `c`.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn at_least(x: u64, c: u8) -> u64 {
    x.wrapping_add(ONES * u64::from(0x80 - c)) & HIGH
}

/// The high bits of the 8 bytes of `m` gathered into one byte, byte `j` giving bit `j`.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn gather(m: u64) -> u64 {
    m.wrapping_mul(0x0002_0408_1020_4081) >> 56
}

/// Letter-or-digit, lowercase and uppercase bit masks of 64 bytes (bit `j` for byte `j`), or
/// `None` when one of them is not ASCII.
#[cfg(target_arch = "x86_64")]
fn masks(block: &[u8; 64]) -> Option<(u64, u64, u64)> {
    // SAFETY: SSE2 is part of the x86-64 baseline, so every CPU this runs on has it.
    unsafe { masks_sse2(block) }
}

/// `masks` with SSE2: 16 bytes per step.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn masks_sse2(block: &[u8; 64]) -> Option<(u64, u64, u64)> {
    use std::arch::x86_64::{
        _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8,
        _mm_movemask_epi8, _mm_or_si128, _mm_set_epi64x, _mm_set1_epi8,
    };
    let (mut alnum, mut lower, mut upper) = (0u64, 0u64, 0u64);
    let (chunks, _) = block.as_chunks::<16>();
    // Letters of either case are one range once bit 0x20 is set; that bit tells the case.
    let case_bit = _mm_set1_epi8(0x20);
    let (before_a, after_z) = (_mm_set1_epi8(b'a' as i8 - 1), _mm_set1_epi8(b'z' as i8 + 1));
    let (before_0, after_9) = (_mm_set1_epi8(b'0' as i8 - 1), _mm_set1_epi8(b'9' as i8 + 1));
    for (k, chunk) in chunks.iter().enumerate() {
        let (lo, hi) = chunk.as_chunks::<8>().0.split_at(1);
        let x = _mm_set_epi64x(i64::from_le_bytes(hi[0]), i64::from_le_bytes(lo[0]));
        if _mm_movemask_epi8(x) != 0 {
            return None;
        }
        let folded = _mm_or_si128(x, case_bit);
        let letter = _mm_and_si128(
            _mm_cmpgt_epi8(folded, before_a),
            _mm_cmplt_epi8(folded, after_z),
        );
        let digit = _mm_and_si128(_mm_cmpgt_epi8(x, before_0), _mm_cmplt_epi8(x, after_9));
        let is_lower = _mm_cmpeq_epi8(_mm_and_si128(x, case_bit), case_bit);
        let shift = 16 * k;
        alnum |= u64::from(_mm_movemask_epi8(_mm_or_si128(letter, digit)) as u16) << shift;
        lower |= u64::from(_mm_movemask_epi8(_mm_and_si128(letter, is_lower)) as u16) << shift;
        upper |= u64::from(_mm_movemask_epi8(_mm_andnot_si128(is_lower, letter)) as u16) << shift;
    }
    Some((alnum, lower, upper))
}

#[cfg(not(target_arch = "x86_64"))]
fn masks(block: &[u8; 64]) -> Option<(u64, u64, u64)> {
    masks_swar(block)
}

/// `masks` eight bytes at a time in plain integers: where SSE2 is not at hand, and in the tests
/// as a second opinion on the SSE2 form.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn masks_swar(block: &[u8; 64]) -> Option<(u64, u64, u64)> {
    let (mut alnum, mut lower, mut upper) = (0, 0, 0);
    let (words, _) = block.as_chunks::<8>();
    let mut high = 0;
    for (k, word) in words.iter().enumerate() {
        let x = u64::from_le_bytes(*word);
        high |= x;
        // Letters of either case are one range once bit 0x20 is set; that bit tells the case.
        let folded = x | (ONES * 0x20);
        let letter = at_least(folded, b'a') & !at_least(folded, b'z' + 1);
        let digit = at_least(x, b'0') & !at_least(x, b'9' + 1);
        let lower_bit = (x << 2) & HIGH;
        let shift = 8 * k;
        alnum |= gather(letter | digit) << shift;
        lower |= gather(letter & lower_bit) << shift;
        upper |= gather(letter & !lower_bit) << shift;
    }
    (high & HIGH == 0).then_some((alnum, lower, upper))
}

/// How many words `tokenize` makes of `text`: starts of letter-and-digit runs plus camelCase
/// splits; `None` when `text` is not all ASCII.
fn count_ascii_words(text: &[u8]) -> Option<u32> {
    let (blocks, tail) = text.as_chunks::<64>();
    let mut padded = [0u8; 64];
    padded[..tail.len()].copy_from_slice(tail);
    let mut words = 0;
    // Bits of the byte before the current block.
    let (mut prev_alnum, mut prev_lower, mut prev_upper) = (0, 0, 0);
    let all = blocks.iter().chain((!tail.is_empty()).then_some(&padded));
    for (n, block) in all.enumerate() {
        let (alnum, lower, upper) = masks(block)?;
        let next_lower = text.get((n + 1) * 64).is_some_and(u8::is_ascii_lowercase);
        let before_alnum = (alnum << 1) | prev_alnum;
        let before_lower = (lower << 1) | prev_lower;
        let before_upper = (upper << 1) | prev_upper;
        let after_lower = (lower >> 1) | (u64::from(next_lower) << 63);
        let starts = alnum & !before_alnum;
        let camel = upper & (before_lower | (before_upper & after_lower));
        words += starts.count_ones() + camel.count_ones();
        (prev_alnum, prev_lower, prev_upper) = (alnum >> 63, lower >> 63, upper >> 63);
    }
    Some(words)
}

/// Where the first `byte` at or after `from` is, looking at 8 bytes at a time.
pub fn find_byte(text: &[u8], from: usize, byte: u8) -> Option<usize> {
    let rest = text.get(from..)?;
    let (words, _) = rest.as_chunks::<8>();
    let mut skipped = 0;
    for word in words {
        if has_byte(u64::from_ne_bytes(*word), byte) {
            break;
        }
        skipped += 8;
    }
    rest[skipped..]
        .iter()
        .position(|&b| b == byte)
        .map(|i| from + skipped + i)
}

/// Where the last `byte` before `end` is, looking at 8 bytes at a time.
pub fn rfind_byte(text: &[u8], end: usize, byte: u8) -> Option<usize> {
    let head = &text[..end];
    let (_, words) = head.as_rchunks::<8>();
    let mut kept = head.len();
    for word in words.iter().rev() {
        if has_byte(u64::from_ne_bytes(*word), byte) {
            break;
        }
        kept -= 8;
    }
    head[..kept].iter().rposition(|&b| b == byte)
}

/// Whether one of the 8 bytes of `x` is `byte` (the classic zero-byte test on `x ^ byte…`).
fn has_byte(x: u64, byte: u8) -> bool {
    let y = x ^ (ONES * u64::from(byte));
    y.wrapping_sub(ONES) & !y & HIGH != 0
}

/// The first byte at or after `from` that is not ASCII. Tests 32 bytes at a time as four
/// machine words.
pub fn next_non_ascii(block: &[u8], from: usize) -> Option<usize> {
    let rest = block.get(from..)?;
    let (chunks, _) = rest.as_chunks::<32>();
    let mut skipped = 0;
    for chunk in chunks {
        let (words, _) = chunk.as_chunks::<8>();
        let any = words
            .iter()
            .fold(0u64, |acc, w| acc | u64::from_ne_bytes(*w));
        if any & HIGH != 0 {
            break;
        }
        skipped += 32;
    }
    rest[skipped..]
        .iter()
        .position(|&b| b >= 0x80)
        .map(|i| from + skipped + i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tokenize;

    fn check(counter: &TermCounter, text: &str) {
        assert_eq!(
            counter.count(&[text]),
            counter.query.frequencies(&tokenize(text)),
            "{:?} in {text:?}",
            counter.query.terms
        );
    }

    fn counter(query: &str) -> TermCounter {
        TermCounter::new(&Query::new(query)).unwrap()
    }

    #[test]
    fn counts_agree_with_tokenize() {
        let texts = [
            "parseHTTPResponse_v2 and HTTPServer",
            "read_file readFile READ-FILE ReadFile x",
            "",
            "  ",
            "ABC abc aBC AbC abcDEF DEFabc aAa",
            "mcp__github__create_issue 42 v2 2v",
            "café Crème 天气预报 Straße naïveFaçade ｆｕｌｌ",
            "end",
        ];
        let queries = [
            "read file",
            "http",
            "abc def",
            "aa",
            "v2",
            "cafe creme",
            "天气",
            "zzz",
        ];
        for query in queries {
            let counter = counter(query);
            for text in texts {
                check(&counter, text);
            }
        }
    }

    #[test]
    fn counts_agree_with_tokenize_on_generated_text() {
        // Every short string over a small alphabet, to cover each transition of the word rule.
        let alphabet = ['a', 'B', 'c', 'D', '1', '_', ' ', 'é', '天'];
        let short = counter("ab bc cd a b c d 1 b1 d1 e 天 天天 bcd");
        let mut text = String::new();
        for n in 0..alphabet.len().pow(5) {
            text.clear();
            let mut k = n;
            for _ in 0..5 {
                text.push(alphabet[k % alphabet.len()]);
                k /= alphabet.len();
            }
            check(&short, &text);
        }
        // Long ASCII texts, so words cross the 64-byte blocks of the word count.
        let long = counter("ab a b ba abc 1 b1 c");
        let ascii = [b'a', b'b', b'A', b'B', b'1', b' ', b'-', b'c'];
        let mut seed = 0x2545_f491_u32;
        for _ in 0..3000 {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            let len = (seed % 300) as usize;
            let text: String = (0..len)
                .map(|i| {
                    let r = seed.wrapping_mul(2_654_435_761).rotate_left(i as u32 % 31);
                    char::from(ascii[(r as usize + i * 7) % ascii.len()])
                })
                .collect();
            check(&long, &text);
        }
    }

    #[test]
    fn both_mask_forms_agree_on_every_byte() {
        for b in 0..=255u8 {
            for at in [0, 15, 16, 63] {
                let mut block = [b' '; 64];
                block[at] = b;
                block[(at + 1) % 64] = b'q';
                assert_eq!(masks(&block), masks_swar(&block), "{b:#x} at {at}");
                let want = (b < 0x80).then(|| {
                    let bit = |yes: bool| u64::from(yes) << at;
                    (
                        bit(b.is_ascii_alphanumeric()) | 1 << ((at + 1) % 64),
                        bit(b.is_ascii_lowercase()) | 1 << ((at + 1) % 64),
                        bit(b.is_ascii_uppercase()),
                    )
                });
                assert_eq!(masks(&block), want, "{b:#x} at {at}");
            }
        }
    }

    #[test]
    fn gathering_high_bits() {
        for pattern in 0u32..256 {
            let mut m = 0u64;
            for j in 0..8 {
                if pattern & (1 << j) != 0 {
                    m |= 0x80 << (8 * j);
                }
            }
            assert_eq!(gather(m), u64::from(pattern), "{pattern:08b}");
        }
    }

    #[test]
    fn bytes_are_found_from_both_ends() {
        let text = b"0123456789\nabcdefghijklmnopqrstuvwxyz\n0123456789abcdef";
        for from in 0..text.len() {
            let want = text[from..]
                .iter()
                .position(|&b| b == b'\n')
                .map(|i| from + i);
            assert_eq!(find_byte(text, from, b'\n'), want, "{from}");
            let want = text[..from].iter().rposition(|&b| b == b'\n');
            assert_eq!(rfind_byte(text, from, b'\n'), want, "{from}");
        }
        assert_eq!(find_byte(text, text.len() + 1, b'\n'), None);
    }

    #[test]
    fn non_ascii_bytes_are_found_past_chunk_edges() {
        for at in [0, 5, 31, 32, 33, 64, 70] {
            let mut bytes = vec![b'a'; 80];
            bytes[at] = 0xC3;
            assert_eq!(next_non_ascii(&bytes, 0), Some(at), "{at}");
            assert_eq!(next_non_ascii(&bytes, at + 1), None, "{at}");
        }
        assert_eq!(next_non_ascii(b"abc", 3), None);
    }
}
