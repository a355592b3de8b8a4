//! One memory file read as Markdown: where its entries and headings are, what each entry says,
//! its derived id, and the byte-exact edits finch makes (insert, replace or remove one entry, add
//! a heading). Pure text in, text out: no I/O here.
//!
//! The model, kept deliberately small so that every byte finch does not mean to change stays put:
//! - A line ends at `\n` (a `\r` before it belongs to the line ending). A UTF-8 byte order mark is
//!   kept and is not part of the first line.
//! - An *entry* starts at a list item `- ` or `* ` indented at most three spaces (a sibling of the
//!   open entry when it is indented less than the open entry's text). It goes on over every
//!   following line that is indented (nested lists, continued paragraphs) and over blank lines that
//!   are followed by such an indented line. An unindented line ends it.
//! - A *heading* is an ATX heading (`#` to `######`) outside an entry.
//! - Three kinds of block hold neither entries nor headings, and `remember` never writes inside
//!   one: YAML front matter (a first line `---` up to the next `---` or `...` line; without that
//!   closing line the file has no front matter), HTML comments (from a line starting with `<!--`
//!   outside an entry up to the line holding `-->`, or to the end of the file), and fenced code
//!   (```` ``` ```` or `~~~`, up to its closing fence or the end of the file). An entry appended
//!   to a file (or section) that ends inside an unclosed comment or fence goes right before it.
//! - A *sub-item* is a list item nested inside an entry. Each is an item of its own for `replace`
//!   and `forget` (`Document::items`), with its own id: its text is its own lines and the items
//!   nested in it. Replacing an item rewrites its own lines and keeps the items nested in it;
//!   forgetting an item removes it with the items nested in it.
//! - Anything else (paragraphs, numbered lists, tables, thematic breaks) is text finch never edits.

use std::ops::Range;

use sha2::{Digest, Sha256};

/// One line of the file: `start..end` is its text without the line ending, `next` where the
/// following line starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    pub start: usize,
    pub end: usize,
    pub next: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    /// Index into `Document::lines`.
    pub line: usize,
    pub level: usize,
    pub title: String,
}

/// Where one entry is; its text is computed on demand (`Document::entry_text`) because a search
/// looks at only a few entries of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntrySpan {
    pub first_line: usize,
    /// The last line that belongs to the entry (inclusive).
    pub last_line: usize,
    pub marker: char,
    /// Spaces before the marker.
    pub indent: usize,
    /// Index into `Document::headings` of the heading the entry sits under.
    pub section: Option<usize>,
}

/// Lines that hold neither entries nor headings: front matter, an HTML comment, fenced code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opaque {
    pub first_line: usize,
    /// The last line of the block (inclusive).
    pub last_line: usize,
    /// Whether the block has its closing line; an unclosed one runs to the end of the file.
    pub closed: bool,
}

/// An entry or a sub-item nested in one, as `Document::items` lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub span: EntrySpan,
    /// Index into `Document::entries` of the entry the item is (or is nested in).
    pub top: usize,
    /// Index into the item list of the item this one is nested in; `None` for an entry.
    pub parent: Option<usize>,
}

/// A parsed memory file, borrowing its text.
#[derive(Debug)]
pub struct Document<'a> {
    pub text: &'a str,
    pub lines: Vec<Line>,
    pub headings: Vec<Heading>,
    pub entries: Vec<EntrySpan>,
    /// Front matter, comments and fenced code, in file order.
    pub opaque: Vec<Opaque>,
}

impl<'a> Document<'a> {
    pub fn parse(text: &'a str) -> Document<'a> {
        Document::parse_window(text, body_start(text)..text.len())
    }

    /// Parses only the lines in `window` (from `window_around`), as a parse of the whole file
    /// would read them when the file has no fenced code, HTML comment or front matter (callers
    /// parse such files whole). Line indices count from the window.
    pub fn parse_window(text: &'a str, window: Range<usize>) -> Document<'a> {
        let lines = split_lines(text, window);
        let mut doc = Document {
            text,
            lines,
            headings: Vec::new(),
            entries: Vec::new(),
            opaque: Vec::new(),
        };
        doc.find_blocks();
        doc
    }

    /// The text of line `i`, without its line ending.
    pub fn line(&self, i: usize) -> &'a str {
        let l = self.lines[i];
        &self.text[l.start..l.end]
    }

    /// The line ending new lines should use: the file's first one, `\n` for a file without any.
    pub fn eol(&self) -> &'static str {
        match self.lines.iter().find(|l| l.next > l.end) {
            Some(l) if self.text[l.end..l.next].starts_with('\r') => "\r\n",
            _ => "\n",
        }
    }

    /// The bytes of entry `i`, from the start of its first line to after its last line ending.
    pub fn entry_range(&self, i: usize) -> Range<usize> {
        let e = &self.entries[i];
        self.lines[e.first_line].start..self.lines[e.last_line].next
    }

    /// The entry's text as one line: the list marker removed, every run of white space (line
    /// breaks and indentation included) collapsed to one space, trimmed.
    pub fn entry_text(&self, i: usize) -> String {
        self.span_text(&self.entries[i])
    }

    /// `entry_text` of any item's span.
    pub fn span_text(&self, e: &EntrySpan) -> String {
        let first = self.line(e.first_line)[e.indent + 1..].trim_start();
        if e.last_line == e.first_line {
            return collapse(first);
        }
        let mut parts = vec![first];
        parts.extend((e.first_line + 1..=e.last_line).map(|l| self.line(l)));
        collapse(&parts.join(" "))
    }

    /// The entry's raw text after its list marker, line breaks and indentation included. It has
    /// the same words as `entry_text`, without a copy.
    pub fn entry_source(&self, i: usize) -> &'a str {
        let e = &self.entries[i];
        let first = self.lines[e.first_line];
        &self.text[first.start + e.indent + 1..self.lines[e.last_line].end]
    }

    /// The title of the heading entry `i` sits under.
    pub fn entry_section(&self, i: usize) -> Option<&str> {
        self.entries[i]
            .section
            .map(|h| self.headings[h].title.as_str())
    }

    /// The entry whose first line is line `line` (0-based).
    pub fn entry_at_line(&self, line: usize) -> Option<usize> {
        self.entries
            .binary_search_by_key(&line, |e| e.first_line)
            .ok()
    }

    /// The entry that holds byte `at`, if any (entries are in file order).
    pub fn entry_holding(&self, at: usize) -> Option<usize> {
        let i = self
            .entries
            .partition_point(|e| self.lines[e.first_line].start <= at);
        let i = i.checked_sub(1)?;
        self.entry_range(i).contains(&at).then_some(i)
    }

    /// The first heading whose title equals `title` (white space collapsed, case ignored).
    pub fn find_heading(&self, title: &str) -> Option<usize> {
        let want = collapse(title).to_lowercase();
        self.headings
            .iter()
            .position(|h| collapse(&h.title).to_lowercase() == want)
    }

    /// The 0-based line index of byte offset `at`.
    pub fn line_of(&self, at: usize) -> usize {
        self.lines
            .partition_point(|l| l.next <= at)
            .min(self.lines.len().saturating_sub(1))
    }

    /// The list marker new entries use: the one of the file's last entry, `-` when there is none.
    pub fn marker(&self) -> char {
        self.entries.last().map_or('-', |e| e.marker)
    }

    fn find_blocks(&mut self) {
        let n = self.lines.len();
        let mut fence: Option<(char, usize)> = None;
        let mut open: Option<usize> = None;
        let mut section: Option<usize> = None;
        let mut i = self.front_matter_end();
        while i < n {
            let line = self.line(i);
            if let Some(f) = fence {
                if closes_fence(line, f) {
                    fence = None;
                    self.close_opaque(i);
                }
                i += 1;
                continue;
            }
            if let Some(e) = open {
                let indent = self.entries[e].indent;
                if continues(line, indent) {
                    self.entries[e].last_line = i;
                    i += 1;
                    continue;
                }
                if is_blank(line) {
                    let mut j = i + 1;
                    while j < n && is_blank(self.line(j)) {
                        j += 1;
                    }
                    if j < n && continues(self.line(j), indent) {
                        self.entries[e].last_line = j;
                        i = j + 1;
                        continue;
                    }
                }
                open = None;
            }
            if let Some((indent, marker)) = list_marker(line).filter(|(indent, _)| *indent <= 3) {
                self.entries.push(EntrySpan {
                    first_line: i,
                    last_line: i,
                    marker,
                    indent,
                    section,
                });
                open = Some(self.entries.len() - 1);
            } else if let Some((level, title)) = heading(line) {
                self.headings.push(Heading {
                    line: i,
                    level,
                    title,
                });
                section = Some(self.headings.len() - 1);
            } else if let Some(after) = opens_comment(line) {
                let end = if after.contains("-->") {
                    Some(i)
                } else {
                    (i + 1..n).find(|&j| self.line(j).contains("-->"))
                };
                self.opaque.push(Opaque {
                    first_line: i,
                    last_line: end.unwrap_or(n - 1),
                    closed: end.is_some(),
                });
                i = end.unwrap_or(n);
            } else if let Some(f) = opens_fence(line) {
                fence = Some(f);
                self.opaque.push(Opaque {
                    first_line: i,
                    last_line: n - 1,
                    closed: false,
                });
            }
            i += 1;
        }
    }

    /// The first line after YAML front matter (0 without any). Front matter is recognised only
    /// where the document starts at the file's first line.
    fn front_matter_end(&mut self) -> usize {
        let starts_file = self
            .lines
            .first()
            .is_some_and(|l| l.start == body_start(self.text));
        if !starts_file || self.line(0).trim_end() != "---" {
            return 0;
        }
        let close =
            (1..self.lines.len()).find(|&j| matches!(self.line(j).trim_end(), "---" | "..."));
        match close {
            Some(j) => {
                self.opaque.push(Opaque {
                    first_line: 0,
                    last_line: j,
                    closed: true,
                });
                j + 1
            }
            None => 0,
        }
    }

    fn close_opaque(&mut self, line: usize) {
        if let Some(o) = self.opaque.last_mut() {
            o.last_line = line;
            o.closed = true;
        }
    }

    /// The unclosed comment or fence line `line` is in, if any.
    fn unclosed_at(&self, line: usize) -> Option<&Opaque> {
        self.opaque
            .iter()
            .find(|o| !o.closed && o.first_line <= line && line <= o.last_line)
    }

    /// Every entry and every sub-item nested in one, in file order; an entry comes before the
    /// items nested in it. A sub-item is a list item inside an entry, indented more than the
    /// entry's marker; it goes on over the following lines indented more than its own marker
    /// (and blank lines followed by such a line).
    pub fn items(&self) -> Vec<Item> {
        let mut items = Vec::with_capacity(self.entries.len());
        for (top, e) in self.entries.iter().enumerate() {
            let base = items.len();
            items.push(Item {
                span: e.clone(),
                top,
                parent: None,
            });
            let mut l = e.first_line + 1;
            while l <= e.last_line {
                let Some((indent, marker)) = list_marker(self.line(l)) else {
                    l += 1;
                    continue;
                };
                let mut last = l;
                let mut k = l + 1;
                while k <= e.last_line {
                    let line = self.line(k);
                    if is_blank(line) {
                        k += 1;
                        continue;
                    }
                    if indent_of(line) <= indent {
                        break;
                    }
                    last = k;
                    k += 1;
                }
                // Nested in the closest item above that still holds this line.
                let parent = (base..items.len())
                    .rev()
                    .find(|&p| items[p].span.last_line >= l && items[p].span.indent < indent)
                    .unwrap_or(base);
                items.push(Item {
                    span: EntrySpan {
                        first_line: l,
                        last_line: last,
                        marker,
                        indent,
                        section: e.section,
                    },
                    top,
                    parent: Some(parent),
                });
                l += 1;
            }
        }
        items
    }

    /// The text of item `k`'s own lines: without the items nested in it, collapsed.
    pub fn own_text(&self, items: &[Item], k: usize) -> String {
        let span = &items[k].span;
        let children: Vec<&EntrySpan> = items
            .iter()
            .filter(|c| c.parent == Some(k))
            .map(|c| &c.span)
            .collect();
        let first = self.line(span.first_line)[span.indent + 1..].trim_start();
        let mut parts = vec![first];
        parts.extend(
            (span.first_line + 1..=span.last_line)
                .filter(|l| {
                    !children
                        .iter()
                        .any(|c| (c.first_line..=c.last_line).contains(l))
                })
                .map(|l| self.line(l)),
        );
        collapse(&parts.join(" "))
    }

    /// The bytes of an item's span.
    pub fn span_range(&self, e: &EntrySpan) -> Range<usize> {
        self.lines[e.first_line].start..self.lines[e.last_line].next
    }

    /// Where an entry appended to the region of lines `from..to` goes: after the region's last
    /// entry (keeping the list together), else after its last non-blank line (so trailing blank
    /// lines stay trailing), else at `from`. The flag says the line before has no line ending
    /// yet (end of a file without a final newline).
    fn append_point(&self, from: usize, to: usize) -> (usize, bool) {
        let last_entry = self
            .entries
            .iter()
            .rev()
            .find(|e| e.first_line >= from && e.last_line < to)
            .map(|e| e.last_line);
        let last = last_entry.or_else(|| (from..to).rev().find(|&i| !is_blank(self.line(i))));
        // Never inside an unclosed comment or fence: right before it instead.
        if let Some(o) = last.and_then(|l| self.unclosed_at(l)) {
            return match (from..o.first_line)
                .rev()
                .find(|&i| !is_blank(self.line(i)))
            {
                Some(before) if last_entry.is_none() && before >= from => {
                    let l = self.lines[before];
                    (l.next, l.next == l.end)
                }
                _ => (self.lines[o.first_line].start, false),
            };
        }
        match last {
            Some(last) => {
                let l = self.lines[last];
                (l.next, l.next == l.end)
            }
            None => match self.lines.get(from) {
                Some(l) => (l.start, false),
                None => (self.text.len(), self.needs_eol_at_end()),
            },
        }
    }

    fn needs_eol_at_end(&self) -> bool {
        self.lines.last().is_some_and(|l| l.next == l.end)
    }

    /// The lines directly under heading `h`: up to the next heading of any level.
    fn section_lines(&self, h: usize) -> Range<usize> {
        let from = self.headings[h].line + 1;
        let to = self
            .headings
            .get(h + 1)
            .map_or(self.lines.len(), |next| next.line);
        from..to
    }
}

/// An edit planned on a document: the new text and where the changed entry starts in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub text: String,
    /// Byte offset of the new entry's first line in `text`.
    pub entry_at: usize,
    /// Whether a heading was added.
    pub created_heading: bool,
}

/// Appends an entry with `lines` (the first after the marker, the rest indented under it) at the
/// end of the file, or at the end of the text directly under heading `section`, adding that
/// heading at the end of the file when the file has none by that title. `section` may start with
/// `#`s to choose the level of a new heading (default `##`).
pub fn append_entry(doc: &Document, lines: &[String], section: Option<&str>) -> Edit {
    let eol = doc.eol();
    let marker = doc.marker();
    let entry = format_entry(marker, 0, lines, eol, true);
    let (at, eol_first, heading_line) = match section {
        None => {
            let (at, eol_first) = doc.append_point(0, doc.lines.len());
            (at, eol_first, None)
        }
        Some(title) => {
            let (level, title) = heading_request(title);
            match doc.find_heading(&title) {
                Some(h) => {
                    let r = doc.section_lines(h);
                    let (at, eol_first) = doc.append_point(r.start, r.end);
                    (at, eol_first, None)
                }
                None => {
                    // At the end of the file, or right before an unclosed comment or fence
                    // that the file ends in.
                    let end = doc
                        .lines
                        .len()
                        .checked_sub(1)
                        .and_then(|l| doc.unclosed_at(l));
                    let (at, lines_before) = match end {
                        Some(o) => (doc.lines[o.first_line].start, o.first_line),
                        None => (doc.text.len(), doc.lines.len()),
                    };
                    let last_blank =
                        (lines_before.checked_sub(1)).is_none_or(|i| is_blank(doc.line(i)));
                    let mut before = String::new();
                    if end.is_none() && doc.needs_eol_at_end() {
                        before.push_str(eol);
                    }
                    if !last_blank {
                        before.push_str(eol);
                    }
                    let heading = format!("{before}{} {title}{eol}", "#".repeat(level));
                    (at, false, Some(heading))
                }
            }
        }
    };
    let mut text = String::with_capacity(doc.text.len() + entry.len() + 64);
    text.push_str(&doc.text[..at]);
    if eol_first {
        text.push_str(eol);
    }
    let created_heading = heading_line.is_some();
    if let Some(h) = heading_line {
        text.push_str(&h);
    }
    let entry_at = text.len();
    text.push_str(&entry);
    text.push_str(&doc.text[at..]);
    Edit {
        text,
        entry_at,
        created_heading,
    }
}

/// Replaces entry `i` with a new one made of `lines`, keeping its marker, its indentation and
/// whether it ended with a line ending.
pub fn replace_entry(doc: &Document, i: usize, lines: &[String]) -> Edit {
    let e = &doc.entries[i];
    let range = doc.entry_range(i);
    let last = doc.lines[e.last_line];
    let entry = format_entry(e.marker, e.indent, lines, doc.eol(), last.next > last.end);
    let mut text = String::with_capacity(doc.text.len() + entry.len());
    text.push_str(&doc.text[..range.start]);
    text.push_str(&entry);
    text.push_str(&doc.text[range.end..]);
    Edit {
        text,
        entry_at: range.start,
        created_heading: false,
    }
}

/// Replaces the own lines of item `k` (see `Document::items`) with a new item made of `lines`,
/// keeping its marker and indentation and the items nested in it: the new text takes the place
/// of the lines before its first nested item, and its own lines after a nested item go (they were
/// part of the text being replaced). Every other byte stays.
pub fn replace_item(doc: &Document, items: &[Item], k: usize, lines: &[String]) -> Edit {
    let e = &items[k].span;
    let children: Vec<&EntrySpan> = items
        .iter()
        .filter(|c| c.parent == Some(k))
        .map(|c| &c.span)
        .collect();
    let range = doc.span_range(e);
    let last = doc.lines[e.last_line];
    let end_eol = !children.is_empty() || last.next > last.end;
    let mut item = format_entry(e.marker, e.indent, lines, doc.eol(), end_eol);
    let mut prev_end = children.first().map_or(e.last_line, |c| {
        (e.first_line..c.first_line)
            .rev()
            .find(|&l| !is_blank(doc.line(l)))
            .unwrap_or(e.first_line)
    });
    for c in children {
        // The blank lines right before a nested item stay with it.
        let mut from = c.first_line;
        while from > prev_end + 1 && is_blank(doc.line(from - 1)) {
            from -= 1;
        }
        item.push_str(&doc.text[doc.lines[from].start..doc.lines[c.last_line].next]);
        prev_end = c.last_line;
    }
    let mut text = String::with_capacity(doc.text.len() + item.len());
    text.push_str(&doc.text[..range.start]);
    text.push_str(&item);
    text.push_str(&doc.text[range.end..]);
    Edit {
        text,
        entry_at: range.start,
        created_heading: false,
    }
}

/// Removes the entries with the given indices; every other byte stays.
pub fn remove_entries(doc: &Document, indices: &[usize]) -> String {
    let spans: Vec<&EntrySpan> = indices.iter().map(|&i| &doc.entries[i]).collect();
    remove_spans(doc, &spans)
}

/// Removes the given items (entries or sub-items, each with the items nested in it); a span
/// inside another one goes with it. Every other byte stays.
pub fn remove_spans(doc: &Document, spans: &[&EntrySpan]) -> String {
    let mut ranges: Vec<Range<usize>> = spans.iter().map(|e| doc.span_range(e)).collect();
    ranges.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let mut text = String::with_capacity(doc.text.len());
    let mut at = 0;
    for r in ranges {
        if r.start < at {
            continue;
        }
        text.push_str(&doc.text[at..r.start]);
        at = r.end;
    }
    text.push_str(&doc.text[at..]);
    text
}

/// Splits entry text given by a person or the agent into the lines of an entry: line breaks kept,
/// trailing white space and blank lines dropped, and a `- ` or `* ` the text starts with taken as
/// the list marker it already is. Empty when there is no text at all.
pub fn entry_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    if let Some(first) = lines.first_mut() {
        let trimmed = first.trim_start();
        let trimmed = match trimmed.strip_prefix(['-', '*']) {
            Some(rest) if rest.starts_with([' ', '\t']) && !rest.trim().is_empty() => rest,
            _ => trimmed,
        };
        *first = trimmed.trim_start().to_string();
    }
    lines
}

/// The text of an entry built from `lines`, collapsed as `Document::entry_text` would read it.
pub fn lines_text(lines: &[String]) -> String {
    collapse(&lines.join(" "))
}

fn format_entry(marker: char, indent: usize, lines: &[String], eol: &str, end_eol: bool) -> String {
    let pad = " ".repeat(indent);
    let mut out = String::new();
    for (n, line) in lines.iter().enumerate() {
        if n == 0 {
            out.push_str(&format!("{pad}{marker} {line}"));
        } else {
            out.push_str(eol);
            out.push_str(&format!("{pad}  {line}"));
        }
    }
    if end_eol {
        out.push_str(eol);
    }
    out
}

/// Collapses every run of white space to one space and trims.
pub fn collapse(text: &str) -> String {
    if is_collapsed(text) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// A quick check that `collapse` would return `text` unchanged: no white space but single spaces
/// between words. Only bytes that may start a non-ASCII white space character (U+0085, U+00A0,
/// U+1680, U+2000–U+205F, U+3000) need the character decoded.
fn is_collapsed(text: &str) -> bool {
    let b = text.as_bytes();
    if b.first() == Some(&b' ') || b.last() == Some(&b' ') {
        return false;
    }
    let mut prev_space = false;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b' ' if prev_space => return false,
            b' ' => prev_space = true,
            b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => return false,
            0xc2 | 0xe1 | 0xe2 | 0xe3 => {
                if text[i..].chars().next().is_some_and(char::is_whitespace) {
                    return false;
                }
                prev_space = false;
            }
            _ => prev_space = false,
        }
    }
    true
}

/// `HH:MM ` at the start of a daily entry.
pub fn time_prefix(text: &str) -> Option<&str> {
    let b = text.as_bytes();
    let ok = b.len() >= 6
        && b[0].is_ascii_digit()
        && b[1].is_ascii_digit()
        && b[2] == b':'
        && b[3].is_ascii_digit()
        && b[4].is_ascii_digit()
        && b[5] == b' ';
    ok.then(|| &text[..6])
}

/// The text an entry's id and duplicate check are made of: the collapsed entry text, and for a
/// daily log without its `HH:MM ` time.
pub fn normalize(text: &str, daily: bool) -> &str {
    match time_prefix(text) {
        Some(p) if daily => &text[p.len()..],
        _ => text,
    }
}

/// The derived id: the first 8 hex digits of the SHA-256 of the normalized text.
pub fn entry_id(normalized: &str) -> String {
    let digest = Sha256::digest(normalized.as_bytes());
    digest.iter().take(4).map(|b| format!("{b:02x}")).collect()
}

fn split_lines(text: &str, window: Range<usize>) -> Vec<Line> {
    let mut lines = Vec::with_capacity(window.len() / 40 + 1);
    let mut start = window.start;
    let bytes = text.as_bytes();
    while start < window.end {
        let (end, next) = match find_newline(bytes, start) {
            Some(nl) => {
                let end = if nl > start && bytes[nl - 1] == b'\r' {
                    nl - 1
                } else {
                    nl
                };
                (end, nl + 1)
            }
            None => (text.len(), text.len()),
        };
        lines.push(Line { start, end, next });
        start = next;
    }
    lines
}

/// Where the first line starts: after a byte order mark, if any.
fn body_start(text: &str) -> usize {
    if text.starts_with('\u{feff}') { 3 } else { 0 }
}

/// The lines around byte `at` that `Document::parse_window` can read on their own: from the
/// nearest line at or above `at` that is neither blank nor indented (no entry goes on over such a
/// line, so a parse is in a known state there, fences, comments and front matter aside) down to
/// the next such line after the line of `at`. The entry holding `at`, if any, lies inside.
pub fn window_around(text: &str, at: usize) -> Range<usize> {
    let bytes = text.as_bytes();
    let body = body_start(text);
    let at = at.clamp(body, text.len());
    let line_start = |pos: usize| text[..pos].rfind('\n').map_or(body, |nl| nl + 1).max(body);
    let line_end = |start: usize| find_newline(bytes, start).unwrap_or(text.len());
    let anchor = |start: usize| {
        let line = &text[start..line_end(start)];
        let line = line.strip_suffix('\r').unwrap_or(line);
        !is_blank(line) && !line.starts_with([' ', '\t'])
    };
    let mut from = line_start(at);
    while from > body && !anchor(from) {
        from = line_start(from - 1);
    }
    let mut to = line_start(at);
    loop {
        let end = line_end(to);
        if end >= text.len() {
            to = text.len();
            break;
        }
        to = end + 1;
        if to >= text.len() || anchor(to) {
            break;
        }
    }
    from..to.min(text.len())
}

/// The first `\n` at or after `from`, eight bytes at a time.
fn find_newline(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = from;
    while i + 8 <= bytes.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[i..i + 8]);
        let x = u64::from_le_bytes(word) ^ (ONES * u64::from(b'\n'));
        // A byte of `x` is zero where the text has a newline; the lowest flagged byte is exact.
        let zero = x.wrapping_sub(ONES) & !x & HIGH;
        if zero != 0 {
            return Some(i + zero.trailing_zeros() as usize / 8);
        }
        i += 8;
    }
    bytes[i..].iter().position(|&b| b == b'\n').map(|p| i + p)
}

fn is_blank(line: &str) -> bool {
    line.bytes().all(|b| b == b' ' || b == b'\t')
}

fn indent_of(line: &str) -> usize {
    let mut n = 0;
    for b in line.bytes() {
        match b {
            b' ' => n += 1,
            b'\t' => n += 4 - n % 4,
            _ => break,
        }
    }
    n
}

/// A list item line: its indentation and marker. Thematic breaks (`* * *`) are not items.
fn list_marker(line: &str) -> Option<(usize, char)> {
    let rest = line.trim_start_matches([' ', '\t']);
    let mut chars = rest.chars();
    let marker = chars.next().filter(|c| *c == '-' || *c == '*')?;
    if !matches!(chars.next(), Some(' ' | '\t')) || chars.as_str().trim().is_empty() {
        return None;
    }
    // `all` stops at the first letter, so ordinary items cost a few characters here.
    let thematic = rest.chars().all(|c| c == marker || c == ' ' || c == '\t')
        && rest.chars().filter(|c| *c == marker).count() >= 3;
    (!thematic).then_some((indent_of(line), marker))
}

/// Whether `line` continues an entry whose marker is indented `indent`: it is indented, not blank,
/// and not a sibling list item.
fn continues(line: &str, indent: usize) -> bool {
    let starts_indented = line.starts_with([' ', '\t']);
    if !starts_indented || is_blank(line) {
        return false;
    }
    match list_marker(line) {
        Some((i, _)) => i >= indent + 2,
        None => true,
    }
}

fn heading(line: &str) -> Option<(usize, String)> {
    if indent_of(line) > 3 {
        return None;
    }
    let rest = line.trim_start_matches(' ');
    let level = rest.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let after = &rest[level..];
    if !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    let mut title = after.trim();
    // A closing run of `#`s preceded by a space is not part of the title.
    let stripped = title.trim_end_matches('#');
    if stripped.len() < title.len() && (stripped.is_empty() || stripped.ends_with([' ', '\t'])) {
        title = stripped.trim_end();
    }
    Some((level, title.to_string()))
}

/// A heading level and title asked for with `--section` (`## Tools` or `Tools`).
fn heading_request(section: &str) -> (usize, String) {
    let trimmed = section.trim();
    let level = trimmed.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&level) && trimmed[level..].starts_with([' ', '\t']) {
        (level, collapse(&trimmed[level..]))
    } else {
        (2, collapse(trimmed))
    }
}

/// A line that opens an HTML comment block: what follows its `<!--`.
fn opens_comment(line: &str) -> Option<&str> {
    if indent_of(line) > 3 {
        return None;
    }
    line.trim_start_matches(' ').strip_prefix("<!--")
}

fn opens_fence(line: &str) -> Option<(char, usize)> {
    if indent_of(line) > 3 {
        return None;
    }
    let rest = line.trim_start_matches(' ');
    let c = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = rest.chars().take_while(|x| *x == c).count();
    (n >= 3).then_some((c, n))
}

fn closes_fence(line: &str, (c, n): (char, usize)) -> bool {
    if indent_of(line) > 3 {
        return false;
    }
    let rest = line.trim_start_matches(' ');
    let run = rest.chars().take_while(|x| *x == c).count();
    run >= n && rest[run * c.len_utf8()..].trim().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ODD: &str = "# Memory\r\n\r\nIntro paragraph, not an entry.\r\n- first entry\r\n  continued here\r\n    - nested child\r\n\r\n  after a blank line, still first\r\n* second   entry  \r\n\r\nA paragraph.\r\n\r\n## Tools\r\n  - indented sibling\r\n1. numbered, not an entry\r\n```\r\n- fenced, not an entry\r\n# not a heading\r\n```\r\n* * *\r\n- last";

    fn texts(doc: &Document) -> Vec<String> {
        (0..doc.entries.len()).map(|i| doc.entry_text(i)).collect()
    }

    #[test]
    fn finds_entries_headings_and_their_extent() {
        let doc = Document::parse(ODD);
        assert_eq!(
            texts(&doc),
            [
                "first entry continued here - nested child after a blank line, still first",
                "second entry",
                "indented sibling",
                "last"
            ]
        );
        let titles: Vec<_> = doc
            .headings
            .iter()
            .map(|h| (h.level, h.title.as_str()))
            .collect();
        assert_eq!(titles, [(1, "Memory"), (2, "Tools")]);
        assert_eq!(doc.entry_section(0), Some("Memory"));
        assert_eq!(doc.entry_section(3), Some("Tools"));
        assert_eq!(doc.eol(), "\r\n");
        assert_eq!(&ODD[doc.entry_range(1)], "* second   entry  \r\n");
        assert_eq!(&ODD[doc.entry_range(3)], "- last");
        // The raw source has the words of the collapsed text, so searches count on it.
        for i in 0..doc.entries.len() {
            assert_eq!(
                crate::search::tokenize(doc.entry_source(i)),
                crate::search::tokenize(&doc.entry_text(i))
            );
        }
    }

    #[test]
    fn nested_items_belong_to_their_parent_and_siblings_split() {
        let text = "- a\n  - a1\n    - a2\n - b\n-c\n- \n";
        let doc = Document::parse(text);
        assert_eq!(texts(&doc), ["a - a1 - a2", "b"]);
    }

    #[test]
    fn appends_after_the_last_entry_and_keeps_trailing_text() {
        let text = "# T\n- a\n  more\n\nA note.\n";
        let doc = Document::parse(text);
        let e = append_entry(&doc, &["b".into()], None);
        assert_eq!(e.text, "# T\n- a\n  more\n- b\n\nA note.\n");
        let text = "# T\n- a\n\n\n";
        let doc = Document::parse(text);
        let e = append_entry(&doc, &["b".into()], None);
        assert_eq!(e.text, "# T\n- a\n- b\n\n\n");
        assert_eq!(&e.text[e.entry_at..], "- b\n\n\n");
        let doc = Document::parse("- a");
        assert_eq!(append_entry(&doc, &["b".into()], None).text, "- a\n- b\n");
        let doc = Document::parse("");
        assert_eq!(append_entry(&doc, &["b".into()], None).text, "- b\n");
    }

    #[test]
    fn appends_into_a_section_or_creates_it() {
        let text = "# M\r\n\r\n## Tools\r\n* hammer\r\n\r\n## People\r\n- Ann\r\n";
        let doc = Document::parse(text);
        let e = append_entry(&doc, &["saw".into(), "- sharp".into()], Some("tools"));
        assert_eq!(
            e.text,
            "# M\r\n\r\n## Tools\r\n* hammer\r\n- saw\r\n  - sharp\r\n\r\n## People\r\n- Ann\r\n"
        );
        let e = append_entry(&doc, &["x".into()], Some("### New"));
        assert!(e.created_heading);
        assert_eq!(
            e.text,
            "# M\r\n\r\n## Tools\r\n* hammer\r\n\r\n## People\r\n- Ann\r\n\r\n### New\r\n- x\r\n"
        );
        let doc = Document::parse("## Empty\n\n## Next\n");
        let e = append_entry(&doc, &["x".into()], Some("Empty"));
        assert_eq!(e.text, "## Empty\n- x\n\n## Next\n");
        let doc = Document::parse("text");
        let e = append_entry(&doc, &["x".into()], Some("S"));
        assert_eq!(e.text, "text\n\n## S\n- x\n");
    }

    #[test]
    fn replaces_and_removes_only_the_entry() {
        let doc = Document::parse(ODD);
        let e = replace_entry(&doc, 1, &["new".into(), "two".into()]);
        assert_eq!(
            e.text,
            ODD.replace("* second   entry  \r\n", "* new\r\n  two\r\n")
        );
        let e = replace_entry(&doc, 2, &["x".into()]);
        assert_eq!(e.text, ODD.replace("  - indented sibling", "  - x"));
        let e = replace_entry(&doc, 3, &["end".into()]);
        assert!(e.text.ends_with("* * *\r\n- end"));
        let removed = remove_entries(&doc, &[3, 0]);
        assert_eq!(
            removed,
            ODD.replace(
                "- first entry\r\n  continued here\r\n    - nested child\r\n\r\n  after a blank line, still first\r\n",
                ""
            )
            .replace("- last", "")
        );
    }

    #[test]
    fn front_matter_comments_and_fences_hold_no_entries() {
        let text = "---\ntags:\n- yaml\n...\n- a\n<!-- one line -->\n<!--\n- hidden\n# not a heading\n-->\n- b\n~~~\n- code\n~~~\n<!-- open\n- hidden too\n";
        let doc = Document::parse(text);
        assert_eq!(texts(&doc), ["a", "b"]);
        assert!(doc.headings.is_empty());
        let spans: Vec<_> = doc
            .opaque
            .iter()
            .map(|o| (o.first_line, o.last_line, o.closed))
            .collect();
        assert_eq!(
            spans,
            [
                (0, 3, true),
                (5, 5, true),
                (6, 9, true),
                (11, 13, true),
                (14, 15, false)
            ]
        );
        // Appends go after the last entry, or before an unclosed block at the end.
        let e = append_entry(&doc, &["c".into()], None);
        assert!(e.text.contains("- b\n- c\n~~~"), "{}", e.text);
        let doc = Document::parse("intro\n\n<!--\n- draft\n");
        let e = append_entry(&doc, &["c".into()], None);
        assert_eq!(e.text, "intro\n- c\n\n<!--\n- draft\n");
        let e = append_entry(&doc, &["c".into()], Some("New"));
        assert_eq!(e.text, "intro\n\n## New\n- c\n<!--\n- draft\n");
        // A `---` first line without a closing one is no front matter; not at the start neither.
        let doc = Document::parse("---\n- a\n");
        assert_eq!(texts(&doc), ["a"]);
        let doc = Document::parse("\u{feff}---\nx: 1\n---\n- a\n");
        assert_eq!(texts(&doc), ["a"]);
    }

    #[test]
    fn sub_items_nest_and_are_replaced_and_removed_alone() {
        let text = "- a\n  - a1\n    - a2\n\n  - a3\n  more a\n- b\n";
        let doc = Document::parse(text);
        let items = doc.items();
        let shape: Vec<_> = items
            .iter()
            .map(|i| (doc.span_text(&i.span), i.parent))
            .collect();
        assert_eq!(
            shape,
            [
                ("a - a1 - a2 - a3 more a".to_string(), None),
                ("a1 - a2".to_string(), Some(0)),
                ("a2".to_string(), Some(1)),
                ("a3".to_string(), Some(0)),
                ("b".to_string(), None),
            ]
        );
        assert_eq!(doc.own_text(&items, 0), "a more a");
        assert_eq!(doc.own_text(&items, 1), "a1");
        let e = replace_item(&doc, &items, 1, &["x".into()]);
        assert_eq!(e.text, "- a\n  - x\n    - a2\n\n  - a3\n  more a\n- b\n");
        let e = replace_item(&doc, &items, 0, &["new".into(), "two".into()]);
        assert_eq!(e.text, "- new\n  two\n  - a1\n    - a2\n\n  - a3\n- b\n");
        let e = replace_item(&doc, &items, 4, &["c".into()]);
        assert_eq!(e.text, text.replace("- b", "- c"));
        let removed = remove_spans(&doc, &[&items[1].span, &items[2].span]);
        assert_eq!(removed, "- a\n\n  - a3\n  more a\n- b\n");
    }

    #[test]
    fn ids_ignore_spacing_and_the_daily_time() {
        let a = Document::parse("-   buy   milk\n");
        let b = Document::parse("* buy\n  milk\n");
        assert_eq!(a.entry_text(0), b.entry_text(0));
        assert_eq!(normalize("09:15 buy milk", true), "buy milk");
        assert_eq!(normalize("09:15 buy milk", false), "09:15 buy milk");
        let id = entry_id("buy milk");
        assert_eq!(id.len(), 8);
        assert_eq!(id, entry_id(normalize("23:59 buy milk", true)));
    }

    #[test]
    fn windows_parse_like_the_whole_file() {
        let texts = [
            ODD.replace("```", "")
                .replace("- fenced, not an entry", "fenced"),
            "- a\n  - a1\n\n  more a\n\n- b\n - c\ntext\n\n   - d\n\n".to_string(),
            "\u{feff}  indented first\n- x\n".to_string(),
            "no entries\n".to_string(),
            "- last without newline".to_string(),
        ];
        for text in &texts {
            let whole = Document::parse(text);
            for at in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
                let w = window_around(text, at);
                assert!(
                    w.start <= at.max(body_start(text)) && w.end >= at,
                    "{w:?} {at}"
                );
                let part = Document::parse_window(text, w.clone());
                let base = text[..w.start].matches('\n').count();
                let got = part.entry_holding(at).map(|i| {
                    (
                        part.entry_range(i),
                        base + part.entries[i].first_line,
                        part.entry_text(i),
                    )
                });
                let want = whole.entry_holding(at).map(|i| {
                    (
                        whole.entry_range(i),
                        whole.entries[i].first_line,
                        whole.entry_text(i),
                    )
                });
                assert_eq!(got, want, "{text:?} at {at}");
            }
        }
    }

    #[test]
    fn newlines_are_found_in_every_position() {
        for len in 0..20 {
            for at in 0..len {
                let mut text = vec![b'x'; len];
                text[at] = b'\n';
                for from in 0..=at {
                    assert_eq!(find_newline(&text, from), Some(at), "{len} {at} {from}");
                }
                assert_eq!(find_newline(&text, at + 1), None);
            }
        }
        assert_eq!(find_newline("é\n".as_bytes(), 0), Some(2));
    }

    #[test]
    fn collapsing_white_space() {
        for (text, want) in [
            ("a b", "a b"),
            ("  a \t b\r\n c ", "a b c"),
            ("a\u{3000}b\u{a0}c", "a b c"),
            ("天气，很好。ok — “fine”", "天气，很好。ok — “fine”"),
            ("a\u{2003} b", "a b"),
            ("", ""),
            (" ", ""),
        ] {
            assert_eq!(collapse(text), want, "{text:?}");
        }
    }

    #[test]
    fn byte_order_mark_and_lines() {
        let doc = Document::parse("\u{feff}- a\n");
        assert_eq!(texts(&doc), ["a"]);
        let e = append_entry(&doc, &["b".into()], None);
        assert_eq!(e.text, "\u{feff}- a\n- b\n");
        assert_eq!(doc.line_of(3), 0);
        assert_eq!(entry_lines("  one  \n\n   two\n"), ["one", "   two"]);
        assert_eq!(entry_lines("- one\n  - two"), ["one", "  - two"]);
        assert_eq!(entry_lines("* * *"), ["* *"]);
        assert_eq!(entry_lines("-1 °C"), ["-1 °C"]);
        assert_eq!(entry_lines("- "), ["-"]);
    }
}
