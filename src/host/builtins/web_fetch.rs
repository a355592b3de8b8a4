//! `WebFetch` (SPEC §8.6): fetches one http(s) URL and returns it as text a model reads well.
//! HTML becomes Markdown — the main content found by `dom_smoothie` (Mozilla's Readability),
//! else the whole page — through `htmd`; plain text, JSON and other textual types come back as
//! they are; images, PDFs and other binary types are refused.
//!
//! Limits: connect and read timeouts from `[network]` settings, at most 10 redirects (each one
//! http or https too), at most 5 MiB of body, at most 100,000 characters of result. Bodies are
//! read as UTF-8 (invalid bytes replaced). finch runs no model of its own, so `prompt` is not
//! applied: the whole content is returned for the calling model to read with its question.
//!
//! This file also holds the HTTP plumbing `WebSearch` shares: the client and the runtime.

use std::error::Error as _;

use reqwest::Url;
use serde_json::{Value, json};

use super::super::catalog::ToolDef;
use super::super::output::{Content, ToolOutput};
use super::Cx;
use crate::config::Settings;

/// The most bytes of body read.
const MAX_BODY: usize = 5 * 1024 * 1024;
/// The most redirects followed.
const MAX_REDIRECTS: usize = 10;
/// The most characters of result returned.
const MAX_CHARS: usize = 100_000;

const DESCRIPTION: &str = "Fetch a web page or file by http(s) URL and return its content: HTML \
as Markdown (the page's main content when one can be found, else the whole page), plain text \
and JSON as they are. Binary content (images, PDFs, archives) is refused, as are bodies over 5 \
MiB; results over 100000 characters are cut. Redirects are followed (at most 10). `prompt` says \
what you are looking for; the whole content is returned, so read it with that in mind. Use \
WebSearch to find URLs.";

/// What people type when they want this tool (ToolSearch ranks it beside the description).
pub const KEYWORDS: &str = "fetch download open read a web page url website link html markdown. 抓取网页 打开网址 读取网页 获取网页内容 下载网页 网页转文字 擷取網頁 打開網址 讀取網頁 網頁內容";

pub fn def() -> ToolDef {
    super::def(
        "WebFetch",
        "Fetch a web page",
        DESCRIPTION,
        json!({
            "type": "object",
            "properties": {
                "url": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The full http:// or https:// URL."
                },
                "prompt": {
                    "type": "string",
                    "description": "What you want to learn from the page."
                }
            },
            "required": ["url"],
            "additionalProperties": false
        }),
    )
}

pub fn call(args: &Value, cx: &Cx) -> ToolOutput {
    let url = super::str_arg(args, "url").unwrap_or_default();
    fetch_page(url.trim(), &cx.env.settings)
}

/// A fetched response: where it ended up, its status, type and body.
pub(super) struct Fetched {
    pub url: Url,
    pub status: reqwest::StatusCode,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

/// Builds the client the web tools use: settings' timeouts, http(s)-only redirects, a cap on
/// how many.
pub(super) fn client(settings: &Settings) -> Result<reqwest::Client, String> {
    crate::minitool::net::install_crypto_provider();
    let policy = reqwest::redirect::Policy::custom(|attempt| {
        if attempt.previous().len() > MAX_REDIRECTS {
            let message = format!("more than {MAX_REDIRECTS} redirects");
            attempt.error(message)
        } else if !matches!(attempt.url().scheme(), "http" | "https") {
            let message = format!(
                "a redirect to {}, which is not an http(s) URL",
                attempt.url()
            );
            attempt.error(message)
        } else {
            attempt.follow()
        }
    });
    reqwest::Client::builder()
        .user_agent(concat!("finch/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(settings.connect_timeout)
        .read_timeout(settings.read_timeout)
        .redirect(policy)
        .gzip(true)
        .build()
        .map_err(|e| format!("cannot set up the HTTP client: {}", describe(&e)))
}

/// Runs one request to the end on a runtime of its own (the host is synchronous).
pub(super) fn send(request: reqwest::RequestBuilder) -> Result<Fetched, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the network runtime: {e}"))?;
    runtime.block_on(async {
        let mut response = request.send().await.map_err(|e| describe(&e))?;
        if let Some(length) = response.content_length()
            && length > MAX_BODY as u64
        {
            return Err(too_large(response.url(), Some(length)));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| describe(&e))? {
            if body.len() + chunk.len() > MAX_BODY {
                return Err(too_large(response.url(), None));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Fetched {
            url: response.url().clone(),
            status: response.status(),
            content_type: response
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string),
            body,
        })
    })
}

fn too_large(url: &Url, length: Option<u64>) -> String {
    let size = match length {
        Some(n) => format!("{n} bytes"),
        None => "more than that".to_string(),
    };
    format!(
        "{url} is too large: WebFetch reads at most {} MiB and this body is {size}. Look for a \
         smaller page (an API, a raw file, a section of the site).",
        MAX_BODY / (1024 * 1024)
    )
}

/// A transport error with its causes (reqwest's own message leaves out the useful part).
pub(super) fn describe(err: &reqwest::Error) -> String {
    let mut parts = vec![err.to_string()];
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = cause.source();
    }
    parts.join(": ")
}

/// What a body is, by its declared type, else by a look at its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Html,
    Text,
    Binary,
}

fn kind(content_type: Option<&str>, body: &[u8]) -> Kind {
    let mime = content_type
        .and_then(|t| t.split(';').next())
        .map(|t| t.trim().to_ascii_lowercase())
        .unwrap_or_default();
    match mime.as_str() {
        "text/html" | "application/xhtml+xml" => Kind::Html,
        m if m.starts_with("text/") => Kind::Text,
        "application/json"
        | "application/xml"
        | "application/javascript"
        | "application/x-javascript"
        | "application/ecmascript"
        | "application/x-ndjson"
        | "application/yaml"
        | "application/x-yaml"
        | "application/toml"
        | "application/x-sh" => Kind::Text,
        m if m.ends_with("+json") || m.ends_with("+xml") => Kind::Text,
        // Servers often say nothing useful about raw files: look at them.
        "" | "application/octet-stream" | "binary/octet-stream" => sniff(body),
        _ => Kind::Binary,
    }
}

fn sniff(body: &[u8]) -> Kind {
    let head = &body[..body.len().min(8192)];
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        // Only the last character was cut short by the 8 KiB window.
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return Kind::Binary,
    };
    if text.contains('\0') {
        return Kind::Binary;
    }
    let start = text.trim_start().to_ascii_lowercase();
    if start.starts_with("<!doctype html") || start.starts_with("<html") {
        Kind::Html
    } else {
        Kind::Text
    }
}

/// Fetches `url` and renders the result the model gets.
fn fetch_page(url: &str, settings: &Settings) -> ToolOutput {
    let parsed = match Url::parse(url) {
        Ok(u) => u,
        Err(e) => {
            return ToolOutput::error(format!(
                "`{url}` is not a URL ({e}). Give a full URL starting with https:// or http://."
            ));
        }
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        return ToolOutput::error(format!(
            "WebFetch fetches http and https URLs only, and `{url}` is a {}: URL. Use Read for \
             local files.",
            parsed.scheme()
        ));
    }
    let client = match client(settings) {
        Ok(c) => c,
        Err(e) => return ToolOutput::error(e),
    };
    let request = client.get(parsed.clone()).header(
        reqwest::header::ACCEPT,
        "text/html, application/xhtml+xml, text/markdown;q=0.9, text/plain;q=0.9, application/json;q=0.9, */*;q=0.5",
    );
    let fetched = match send(request) {
        Ok(f) => f,
        Err(e) => return ToolOutput::error(format!("Cannot fetch {parsed}: {e}")),
    };
    let kind = kind(fetched.content_type.as_deref(), &fetched.body);
    let shown_type = fetched
        .content_type
        .clone()
        .unwrap_or_else(|| "no content type".into());
    if !fetched.status.is_success() {
        let mut message = format!("HTTP {} from {}.", fetched.status, fetched.url);
        if kind != Kind::Binary {
            let raw = String::from_utf8_lossy(&fetched.body);
            let said = match kind {
                Kind::Html => html_to_markdown(&raw, fetched.url.as_str()).markdown,
                _ => raw.into_owned(),
            };
            let excerpt = cap(said.trim(), 1000).0;
            if !excerpt.is_empty() {
                message.push_str(&format!("\nThe server said:\n{excerpt}"));
            }
        }
        return ToolOutput::error(message);
    }
    if kind == Kind::Binary {
        return ToolOutput::error(format!(
            "{} is {shown_type} ({} bytes), not text: WebFetch returns web pages, plain text and \
             JSON only.",
            fetched.url,
            fetched.body.len()
        ));
    }
    let raw = String::from_utf8_lossy(&fetched.body);
    let (title, body, form) = match kind {
        Kind::Html => {
            let page = html_to_markdown(&raw, fetched.url.as_str());
            let form = if page.main_content {
                "main content as Markdown"
            } else {
                "whole page as Markdown"
            };
            (page.title, page.markdown, form)
        }
        _ => (None, raw.into_owned(), "as served"),
    };
    let (body, cut) = cap(&body, MAX_CHARS);

    let mut text = format!("URL: {}\n", fetched.url);
    let without_fragment = |u: &Url| {
        let mut u = u.clone();
        u.set_fragment(None);
        u
    };
    if without_fragment(&fetched.url) != without_fragment(&parsed) {
        text.push_str(&format!("Redirected from: {parsed}\n"));
    }
    if let Some(t) = &title {
        text.push_str(&format!("Title: {t}\n"));
    }
    text.push_str(&format!("Content: {shown_type}, {form}\n"));
    if let Some(total) = cut {
        text.push_str(&format!(
            "Cut: the content is {total} characters; the first {MAX_CHARS} are shown.\n"
        ));
    }
    text.push('\n');
    text.push_str(&body);
    ToolOutput {
        content: vec![Content::Text(text)],
        structured: Some(json!({
            "url": parsed.as_str(),
            "finalUrl": fetched.url.as_str(),
            "status": fetched.status.as_u16(),
            "contentType": fetched.content_type,
            "title": title,
            "format": if kind == Kind::Html { "markdown" } else { "text" },
            "mainContent": form == "main content as Markdown",
            "truncated": cut.is_some(),
        })),
        is_error: false,
    }
}

/// `text` cut to `max` characters, and its full length when it was cut.
fn cap(text: &str, max: usize) -> (String, Option<usize>) {
    match text.char_indices().nth(max) {
        Some((at, _)) => (text[..at].to_string(), Some(text.chars().count())),
        None => (text.to_string(), None),
    }
}

struct Page {
    title: Option<String>,
    markdown: String,
    /// Whether `markdown` is the main content rather than the whole page.
    main_content: bool,
}

/// The page's main content as Markdown when Readability finds one, else the whole page.
fn html_to_markdown(html: &str, url: &str) -> Page {
    let options = htmd::options::Options {
        bullet_list_marker: htmd::options::BulletListMarker::Dash,
        ul_bullet_spacing: 1,
        ol_number_spacing: 1,
        hr_style: htmd::options::HrStyle::Dashes,
        ..Default::default()
    };
    let converter = htmd::HtmlToMarkdown::builder()
        .options(options)
        .skip_tags(vec![
            "script", "style", "noscript", "template", "svg", "canvas", "iframe", "head",
        ])
        .build();
    let readability = dom_smoothie::Readability::new(html, Some(url), None).ok();
    let mut title = readability
        .as_ref()
        .map(|r| r.get_article_title().trim().to_string())
        .filter(|t| !t.is_empty());
    if let Some(mut r) = readability
        && r.is_probably_readable()
        && let Ok(article) = r.parse()
        && !article.text_content.trim().is_empty()
        && let Ok(markdown) = converter.convert(&article.content)
        && !markdown.trim().is_empty()
    {
        if !article.title.trim().is_empty() {
            title = Some(article.title.trim().to_string());
        }
        return Page {
            title,
            markdown: tidy(&markdown),
            main_content: true,
        };
    }
    let markdown = converter.convert(html).unwrap_or_else(|_| html.to_string());
    Page {
        title,
        markdown: tidy(&markdown),
        main_content: false,
    }
}

/// Markdown without what only costs the reader: table cells padded to align columns, trailing
/// spaces, runs of blank lines. Code blocks are left as they are.
fn tidy(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    let mut blank_run = 0;
    let mut in_code = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if in_code {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let line = line.trim_end();
        if line.is_empty() {
            blank_run += 1;
            if blank_run > 1 {
                continue;
            }
        } else {
            blank_run = 0;
        }
        let trimmed = line.trim_start();
        if trimmed.len() > 1 && trimmed.starts_with('|') && trimmed.ends_with('|') {
            out.push_str(&table_row(trimmed));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out.trim().to_string()
}

/// A table row with single spaces; a separator row's dashes shortened to three.
fn table_row(row: &str) -> String {
    let squeezed = row.split_whitespace().collect::<Vec<_>>().join(" ");
    let separator = squeezed.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '));
    if !separator {
        return squeezed;
    }
    squeezed
        .split('|')
        .map(|cell| {
            let cell = cell.trim();
            if cell.is_empty() {
                return cell.to_string();
            }
            let left = if cell.starts_with(':') { ":" } else { "" };
            let right = if cell.len() > 1 && cell.ends_with(':') {
                ":"
            } else {
                ""
            };
            format!(" {left}---{right} ")
        })
        .collect::<Vec<_>>()
        .join("|")
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        let cases: &[(Option<&str>, &[u8], Kind)] = &[
            (Some("text/html; charset=utf-8"), b"<p>x", Kind::Html),
            (Some("application/xhtml+xml"), b"<p>x", Kind::Html),
            (Some("text/plain"), b"x", Kind::Text),
            (Some("text/markdown"), b"# x", Kind::Text),
            (Some("application/json"), b"{}", Kind::Text),
            (Some("application/ld+json"), b"{}", Kind::Text),
            (Some("image/png"), b"\x89PNG", Kind::Binary),
            (Some("application/pdf"), b"%PDF", Kind::Binary),
            (None, b"<!DOCTYPE html><p>x", Kind::Html),
            (
                Some("application/octet-stream"),
                b"  <html><p>x",
                Kind::Html,
            ),
            (None, b"just words", Kind::Text),
            (None, b"bin\0ary", Kind::Binary),
            (None, b"\xff\xfe\x00", Kind::Binary),
        ];
        for (content_type, body, want) in cases {
            assert_eq!(
                kind(*content_type, body),
                *want,
                "{content_type:?} {body:?}"
            );
        }
    }

    #[test]
    fn schema_compiles() {
        assert!(jsonschema::validator_for(&def().input_schema).is_ok());
    }

    #[test]
    fn caps_on_characters() {
        assert_eq!(cap("héllo", 10), ("héllo".to_string(), None));
        assert_eq!(cap("héllo", 2), ("hé".to_string(), Some(5)));
    }

    #[test]
    fn main_content_else_whole_page() {
        let para = "Finch hosts tools behind one permission gateway, and every call is recorded \
                    in a transcript so a person can see what ran and why it was allowed. ";
        let article = format!(
            "<html><head><title>Finch notes</title><script>var x = 1;</script></head><body>\
             <nav><a href=\"/a\">Home</a> <a href=\"/b\">Menu link</a></nav>\
             <article><h1>Finch notes</h1><p>{}</p><p>{}</p><p>See <a href=\"/docs\">the docs</a>.</p></article>\
             <footer>Copyright footer</footer></body></html>",
            para.repeat(4),
            para.repeat(3)
        );
        let page = html_to_markdown(&article, "http://example.test/post");
        assert!(page.main_content);
        assert_eq!(page.title.as_deref(), Some("Finch notes"));
        assert!(page.markdown.contains("Finch hosts tools"));
        assert!(
            page.markdown
                .contains("[the docs](http://example.test/docs)"),
            "{}",
            page.markdown
        );
        assert!(!page.markdown.contains("Menu link"));
        assert!(!page.markdown.contains("var x"));

        let small = "<html><head><title>Tiny</title></head><body><h1>Hi</h1><ul><li>one</li><li>two</li></ul></body></html>";
        let page = html_to_markdown(small, "http://example.test/");
        assert!(!page.main_content);
        assert_eq!(page.title.as_deref(), Some("Tiny"));
        assert_eq!(page.markdown, "# Hi\n\n- one\n- two");
    }

    #[test]
    fn tidies_tables_and_blank_lines() {
        let cases = [
            (
                "| a    | bb   |\n| ---- | :--: |\n| 1    | 2    |",
                "| a | bb |\n| --- | :---: |\n| 1 | 2 |",
            ),
            ("text   \n\n\n\nmore  ", "text\n\nmore"),
            ("a  b | not a table", "a  b | not a table"),
            (
                "```\n| kept    |\n\n\n```\n| x   |",
                "```\n| kept    |\n\n\n```\n| x |",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(tidy(input), want, "{input:?}");
        }
    }

    #[test]
    fn refuses_other_schemes_before_any_request() {
        let settings = crate::config::Config::default()
            .settings(std::path::Path::new("/x/finch.toml"))
            .unwrap();
        let cases = [
            (
                "file:///etc/passwd",
                "http and https URLs only, and `file:///etc/passwd` is a file: URL",
            ),
            ("ftp://example.com/x", "is a ftp: URL"),
            ("example.com/page", "is not a URL"),
        ];
        for (url, want) in cases {
            let out = fetch_page(url, &settings);
            assert!(out.is_error);
            assert!(out.text_content().contains(want), "{}", out.text_content());
        }
    }
}
