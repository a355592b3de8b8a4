//! `Read` of a PDF (SPEC §8.6, issue 18): the text layer of its pages, page by page, with a
//! `--- page N ---` marker before each, at most `PAGES_PER_CALL` pages and `OUTPUT_CAP` of text
//! a call, and the `pages` argument that continues. Parsing is lopdf's (pure Rust).
//!
//! A file can make a parser misbehave, so the parse never runs on the caller's thread: it runs
//! on its own thread under `catch_unwind`, with a size cap before it starts, a cap on each
//! page's decompressed content, and a time limit after which the call answers and the thread
//! is left to finish on its own. Encrypted, image-only and damaged files get a message that
//! says what is wrong and what to do; nothing here panics or waits forever.

use std::fs::File;
use std::io::Read;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

use super::super::output::{Content, ToolOutput};
use super::str_arg;

/// The largest PDF Read parses.
const MAX_PDF_BYTES: u64 = 64 * 1024 * 1024;
/// Pages one Read returns; the answer says which `pages` continue.
pub(super) const PAGES_PER_CALL: u32 = 20;
/// The most text one Read of a PDF returns (as for text files).
const OUTPUT_CAP: usize = 256 * 1024;
/// The decompressed content one page may have (a small stream must not inflate without end).
const PAGE_CONTENT_CAP: usize = 32 * 1024 * 1024;
/// How long a parse may take before the call gives up on it.
const TIME_LIMIT: Duration = Duration::from_secs(30);

/// The largest PDF whose original a Read also returns as an embedded resource.
pub(super) const MAX_EMBEDDED_BYTES: usize = 8 * 1024 * 1024;

/// Reads the PDF whose first bytes are `head` and the rest of which is in `file`. With
/// `original` (the file's path; `finch run --serve mcp`), a PDF of up to `MAX_EMBEDDED_BYTES`
/// whose text was read also comes back whole, as an embedded resource (`file://` URI,
/// `application/pdf`, base64 blob), for clients that hand documents to the model themselves.
pub(super) fn read(
    args: &Value,
    shown: &str,
    head: Vec<u8>,
    file: &mut File,
    size: u64,
    original: Option<&std::path::Path>,
) -> ToolOutput {
    if size > MAX_PDF_BYTES {
        return ToolOutput::error(format!(
            "`{shown}` is a PDF of {} MiB; Read parses PDFs of up to {} MiB. Use Bash with a \
             PDF tool (such as `pdftotext -f 1 -l 5`) for a file this large.",
            size / (1024 * 1024),
            MAX_PDF_BYTES / (1024 * 1024)
        ));
    }
    let mut bytes = head;
    if let Err(e) = file.take(MAX_PDF_BYTES + 1).read_to_end(&mut bytes) {
        return ToolOutput::error(format!("Cannot read `{shown}`: {e}."));
    }
    let pages = str_arg(args, "pages").map(str::to_string);
    let embedded = original
        .filter(|_| bytes.len() <= MAX_EMBEDDED_BYTES)
        .map(|path| embedded_resource(path, &bytes));
    let (send, receive) = mpsc::channel();
    let owned = shown.to_string();
    let spawned = std::thread::Builder::new()
        .name("read-pdf".into())
        .spawn(move || {
            let answer = std::panic::catch_unwind(|| extract(&owned, &bytes, pages.as_deref()))
                .unwrap_or_else(|_| Err(damaged(&owned, "the parser failed on it")));
            // The caller may have stopped waiting; then nobody needs the answer.
            let _ = send.send(answer);
        });
    if let Err(e) = spawned {
        return ToolOutput::error(format!("Cannot read `{shown}`: {e}."));
    }
    match receive.recv_timeout(TIME_LIMIT) {
        Ok(Ok(text)) => {
            let mut output = ToolOutput::text(text);
            output.content.extend(embedded);
            output
        }
        Ok(Err(message)) => ToolOutput::error(message),
        Err(mpsc::RecvTimeoutError::Timeout) => ToolOutput::error(format!(
            "Reading the text of `{shown}` took longer than {} s, so Read stopped. Ask for fewer \
             pages (`pages`, such as \"1-3\"), or use Bash with a PDF tool such as `pdftotext`.",
            TIME_LIMIT.as_secs()
        )),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            ToolOutput::error(damaged(shown, "the parser stopped without an answer"))
        }
    }
}

/// `{"type": "resource", "resource": {"uri": "file:///…", "mimeType": "application/pdf",
/// "blob": <base64>}}`, MCP's embedded resource.
fn embedded_resource(path: &std::path::Path, bytes: &[u8]) -> Content {
    use base64::Engine as _;
    let uri = reqwest::Url::from_file_path(path)
        .map(String::from)
        .unwrap_or_else(|()| format!("file://{}", path.display()));
    Content::Block(serde_json::json!({
        "type": "resource",
        "resource": {
            "uri": uri,
            "mimeType": "application/pdf",
            "blob": base64::engine::general_purpose::STANDARD.encode(bytes),
        },
    }))
}

fn damaged(shown: &str, why: &str) -> String {
    format!(
        "`{shown}` starts like a PDF but cannot be read ({why}): it is damaged or incomplete. \
         If it opens elsewhere, use Bash with a PDF tool such as `pdftotext` to extract its text."
    )
}

fn encrypted(shown: &str) -> String {
    format!(
        "`{shown}` is an encrypted (password-protected) PDF; Read cannot open it. Ask the user \
         for a copy without the password, or for the text you need."
    )
}

/// The answer for one PDF: its text, or the message of why there is none.
fn extract(shown: &str, bytes: &[u8], pages: Option<&str>) -> Result<String, String> {
    use lopdf::Error;
    let doc = match lopdf::Document::load_mem(bytes) {
        Ok(doc) => doc,
        Err(
            Error::Decryption(_)
            | Error::InvalidPassword
            | Error::UnsupportedSecurityHandler(_)
            | Error::AlreadyEncrypted,
        ) => return Err(encrypted(shown)),
        Err(e) => return Err(damaged(shown, &e.to_string())),
    };
    // lopdf opens a file whose user password is empty by itself; one that is still locked
    // needs a password nobody gave.
    if doc.trailer.has(b"Encrypt") && doc.encryption_state.is_none() {
        return Err(encrypted(shown));
    }
    let count = u32::try_from(doc.get_pages().len()).unwrap_or(u32::MAX);
    if count == 0 {
        return Err(damaged(shown, "it has no pages"));
    }
    let wanted = match pages {
        Some(text) => parse_pages(text, count).map_err(|e| format!("`pages` {e}"))?,
        None => (1..=count).collect(),
    };
    let mut out = String::new();
    let mut shown_pages: Vec<u32> = Vec::new();
    let mut empty: Vec<u32> = Vec::new();
    let mut missing: Vec<u32> = Vec::new();
    let mut cut = false;
    let ids = doc.get_pages();
    for &page in wanted.iter().take(PAGES_PER_CALL as usize) {
        // A file cut short can keep its page tree and lose the pages' content: damage, not a
        // scan.
        let lost = ids.get(&page).is_some_and(|&id| {
            doc.get_page_contents(id)
                .iter()
                .any(|c| !doc.objects.contains_key(c))
        });
        if lost {
            missing.push(page);
        }
        let text = match doc.extract_text_with_limit(&[page], PAGE_CONTENT_CAP) {
            Ok(text) => text,
            Err(Error::Decryption(_) | Error::InvalidPassword) => return Err(encrypted(shown)),
            Err(e) => format!("(the text of this page cannot be read: {e})"),
        };
        let text = text.trim();
        let body = if lost {
            "(the content of this page is missing: the file is damaged or cut short)"
        } else if text.is_empty() {
            empty.push(page);
            "(no text on this page: it holds only images, such as a scan; Read does not read \
             text in images)"
        } else {
            text
        };
        if !shown_pages.is_empty() && out.len() + body.len() > OUTPUT_CAP {
            cut = true;
            break;
        }
        out.push_str(&format!("--- page {page} ---\n"));
        if body.len() > OUTPUT_CAP {
            let mut end = OUTPUT_CAP;
            while !body.is_char_boundary(end) {
                end -= 1;
            }
            out.push_str(&body[..end]);
            out.push_str(&format!(
                "\n(page {page} is cut at {} KiB of text)",
                OUTPUT_CAP / 1024
            ));
        } else {
            out.push_str(body);
        }
        out.push('\n');
        shown_pages.push(page);
    }
    if missing.len() == shown_pages.len() {
        return Err(damaged(shown, "the content of its pages is missing"));
    }
    let tail = &bytes[bytes.len().saturating_sub(1024)..];
    let ends = tail.windows(5).any(|w| w == b"%%EOF");
    if empty.len() == shown_pages.len() && !ends {
        return Err(damaged(shown, "it is cut short: no `%%EOF` at its end"));
    }
    if empty.len() == shown_pages.len() {
        return Err(format!(
            "`{shown}` has no text layer on {} (a scanned or image-only PDF): Read returns a \
             PDF's text, and does not recognise text in images. Use an OCR tool through Bash \
             (such as `ocrmypdf` or `tesseract`) if one is installed.",
            describe(&shown_pages)
        ));
    }
    let rest: Vec<u32> = wanted[shown_pages.len()..].to_vec();
    let mut header = format!(
        "`{shown}`: a PDF of {count} page{}; the text of {} follows.\n",
        if count == 1 { "" } else { "s" },
        describe(&shown_pages)
    );
    if let (Some(first), Some(last)) = (rest.first(), rest.last()) {
        let why = if cut {
            format!("one answer holds at most {} KiB of text", OUTPUT_CAP / 1024)
        } else {
            format!("one answer holds at most {PAGES_PER_CALL} pages")
        };
        let next_last = rest
            .get(PAGES_PER_CALL as usize - 1)
            .copied()
            .unwrap_or(*last);
        out.push_str(&format!(
            "\n({} not shown: {why}. Call Read again with `pages` \"{first}-{next_last}\" to continue.)\n",
            describe(&rest)
        ));
        header.push('\n');
    } else {
        header.push('\n');
    }
    Ok(header + &out)
}

/// `page 3`, `pages 1-5`, `pages 1-3, 7`.
fn describe(pages: &[u32]) -> String {
    let mut runs: Vec<String> = Vec::new();
    let mut i = 0;
    while i < pages.len() {
        let start = pages[i];
        let mut end = start;
        while i + 1 < pages.len() && pages[i + 1] == end + 1 {
            i += 1;
            end = pages[i];
        }
        runs.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    let word = if pages.len() == 1 { "page" } else { "pages" };
    format!("{word} {}", runs.join(", "))
}

/// `"3"`, `"1-5"`, `"4-"` (to the end), `"1-3,7"` → the page numbers, in order, each once.
pub(super) fn parse_pages(text: &str, count: u32) -> Result<Vec<u32>, String> {
    let bad = || {
        format!(
            "\"{text}\" is not a page range: use a page (\"3\"), a range (\"1-5\", \"4-\" for the \
             rest) or a list (\"1-3,7\"); the PDF has {count} page{}",
            if count == 1 { "" } else { "s" }
        )
    };
    let number = |s: &str| s.trim().parse::<u32>().ok().filter(|&n| n >= 1);
    let mut pages: Vec<u32> = Vec::new();
    for part in text.split(',') {
        let (start, end) = match part.split_once('-') {
            Some((a, b)) if b.trim().is_empty() => (number(a).ok_or_else(bad)?, count),
            Some((a, b)) => (number(a).ok_or_else(bad)?, number(b).ok_or_else(bad)?),
            None => {
                let n = number(part).ok_or_else(bad)?;
                (n, n)
            }
        };
        if start > end {
            return Err(bad());
        }
        if start > count {
            return Err(format!(
                "asks for page {start}, but the PDF has {count} page{}",
                if count == 1 { "" } else { "s" }
            ));
        }
        for page in start..=end.min(count) {
            if !pages.contains(&page) {
                pages.push(page);
            }
        }
    }
    Ok(pages)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_pages_ranges_and_lists() {
        assert_eq!(parse_pages("3", 10).unwrap(), [3]);
        assert_eq!(parse_pages("1-5", 10).unwrap(), [1, 2, 3, 4, 5]);
        assert_eq!(parse_pages("8-", 10).unwrap(), [8, 9, 10]);
        assert_eq!(parse_pages(" 1-2 , 7,2", 10).unwrap(), [1, 2, 7]);
        assert_eq!(parse_pages("9-40", 10).unwrap(), [9, 10]);
    }

    #[test]
    fn rejects_what_is_no_page_range() {
        for text in ["", "0", "a", "5-2", "-3", "1--2", "1-x"] {
            assert!(parse_pages(text, 10).is_err(), "{text:?}");
        }
        assert!(parse_pages("11", 10).unwrap_err().contains("has 10 pages"));
    }

    #[test]
    fn describes_runs() {
        assert_eq!(describe(&[3]), "page 3");
        assert_eq!(describe(&[1, 2, 3, 7, 9, 10]), "pages 1-3, 7, 9-10");
    }

    #[test]
    fn garbage_after_the_header_is_a_message_not_a_panic() {
        for bytes in [
            &b"%PDF-1.4\n"[..],
            b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer << /Root 1 0 R >>",
            b"%PDF-1.7\n\xff\xfe\x00\x01 obj obj endobj stream endstream xref 0 99999999999",
        ] {
            let err = extract("x.pdf", bytes, None).unwrap_err();
            assert!(err.contains("cannot be read") || err.contains("no text"), "{err}");
        }
    }
}
