//! `WebSearch` (SPEC §8.6): a web search through the provider configured in `[web_search]` of
//! `<runtime>/config/finch.toml`. Two providers are known:
//!
//! - `searxng`: `GET {url}/search?q=…&format=json` on a SearXNG instance (`url` required; the
//!   instance must allow the json format), results `results[].{title,url,content}`;
//! - `brave`: `GET https://api.search.brave.com/res/v1/web/search?q=…&count=…` (or `url`, the
//!   whole endpoint) with the key from the variable `api_key_env` names (default
//!   `BRAVE_API_KEY`) in `X-Subscription-Token`, results `web.results[].{title,url,description}`.
//!
//! With no provider configured the call fails with a message naming the setting and showing an
//! example, so the model can tell the user exactly what to write. The key never appears in a
//! result or an error.

use std::path::Path;

use reqwest::Url;
use serde_json::{Value, json};

use super::super::catalog::ToolDef;
use super::super::output::{Content, ToolOutput};
use super::Cx;
use super::web_fetch;
use crate::config::{Settings, WebSearchConfig};
use crate::env::Env;

const DEFAULT_LIMIT: u64 = 8;
const MAX_LIMIT: u64 = 20;
const BRAVE_ENDPOINT: &str = "https://api.search.brave.com/res/v1/web/search";
const BRAVE_KEY_ENV: &str = "BRAVE_API_KEY";

const DESCRIPTION: &str = "Search the web and return the top results (title, URL, snippet). Use \
it for current information and to find pages, then WebFetch a result's URL to read it. `limit` \
is how many results to return (default 8, at most 20). The search provider is configured by the \
user; if none is, the call fails with a message saying how to configure one.";

/// What people type when they want this tool (ToolSearch ranks it beside the description).
pub const KEYWORDS: &str = "search the web internet online google look up news latest information. 网上搜索 联网搜索 搜索网页 上网查 查资料 搜索引擎 网络搜索 網路搜尋 上網查 搜尋網頁 查資料";

pub fn def() -> ToolDef {
    super::def(
        "WebSearch",
        "Search the web",
        DESCRIPTION,
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "description": "What to search for."},
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_LIMIT,
                    "description": "How many results to return (default 8)."
                }
            },
            "required": ["query"],
            "additionalProperties": false
        }),
    )
}

pub fn call(args: &Value, cx: &Cx) -> ToolOutput {
    let query = super::str_arg(args, "query").unwrap_or_default().trim();
    let limit = args
        .get("limit")
        .and_then(Value::as_u64)
        .unwrap_or(DEFAULT_LIMIT)
        .clamp(1, MAX_LIMIT);
    let finch_toml = cx.env.homes.finch_toml();
    search(
        &cx.env.settings,
        &cx.env.env,
        &finch_toml,
        query,
        limit as usize,
    )
}

/// The providers finch can search with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Provider {
    Searxng,
    Brave,
}

impl Provider {
    fn name(self) -> &'static str {
        match self {
            Provider::Searxng => "searxng",
            Provider::Brave => "brave",
        }
    }
}

/// One result.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Hit {
    title: String,
    url: String,
    snippet: String,
}

fn search(
    settings: &Settings,
    env: &Env,
    finch_toml: &Path,
    query: &str,
    limit: usize,
) -> ToolOutput {
    let (provider, request) = match plan(&settings.web_search, env, finch_toml, query, limit) {
        Ok(p) => p,
        Err(message) => return ToolOutput::error(message),
    };
    let client = match web_fetch::client(settings) {
        Ok(c) => c,
        Err(e) => return ToolOutput::error(e),
    };
    let mut builder = client
        .get(request.url.clone())
        .header(reqwest::header::ACCEPT, "application/json");
    for (name, value) in &request.headers {
        builder = builder.header(*name, value);
    }
    let fetched = match web_fetch::send(builder) {
        Ok(f) => f,
        Err(e) => {
            return ToolOutput::error(format!(
                "Cannot reach the {} search provider at {}: {e}",
                provider.name(),
                shown(&request.url)
            ));
        }
    };
    if !fetched.status.is_success() {
        return ToolOutput::error(status_error(
            provider,
            fetched.status,
            &request,
            &fetched.body,
        ));
    }
    let body: Value = match serde_json::from_slice(&fetched.body) {
        Ok(v) => v,
        Err(e) => {
            return ToolOutput::error(format!(
                "The {} search provider at {} did not answer JSON ({e}).{}",
                provider.name(),
                shown(&request.url),
                match provider {
                    Provider::Searxng => " Check that `url` points at the SearXNG instance itself.",
                    Provider::Brave => "",
                }
            ));
        }
    };
    let mut hits = parse(provider, &body);
    hits.truncate(limit);
    render(provider, query, &hits)
}

/// The request to send: where, and with which extra headers.
#[derive(Debug)]
struct Request {
    url: Url,
    headers: Vec<(&'static str, String)>,
    /// The variable the key came from (for messages about a rejected key).
    key_env: Option<String>,
}

/// Chooses the provider from the settings and builds its request, or says what to configure.
fn plan(
    cfg: &WebSearchConfig,
    env: &Env,
    finch_toml: &Path,
    query: &str,
    limit: usize,
) -> Result<(Provider, Request), String> {
    let setting = |v: &Option<String>| {
        v.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let Some(name) = setting(&cfg.provider) else {
        return Err(format!(
            "WebSearch has no search provider configured. Set `[web_search] provider` in {} \
             (searxng or brave), for example:\n\n[web_search]\nprovider = \"searxng\"\nurl = \
             \"http://127.0.0.1:8888\"\n\nor\n\n[web_search]\nprovider = \"brave\"\napi_key_env = \
             \"BRAVE_API_KEY\"\n\nUntil then, answer from what you know or WebFetch a URL you \
             know.",
            finch_toml.display()
        ));
    };
    match name.to_ascii_lowercase().as_str() {
        "searxng" => {
            let Some(base) = setting(&cfg.url) else {
                return Err(format!(
                    "`[web_search] provider = \"searxng\"` needs `url`, the address of the \
                     SearXNG instance, in {}: for example url = \"http://127.0.0.1:8888\".",
                    finch_toml.display()
                ));
            };
            let trimmed = base.trim_end_matches('/');
            let endpoint = if trimmed.ends_with("/search") {
                trimmed.to_string()
            } else {
                format!("{trimmed}/search")
            };
            let mut url = parse_url(&endpoint, &base, finch_toml)?;
            url.query_pairs_mut()
                .append_pair("q", query)
                .append_pair("format", "json");
            Ok((
                Provider::Searxng,
                Request {
                    url,
                    headers: Vec::new(),
                    key_env: None,
                },
            ))
        }
        "brave" => {
            let key_env = setting(&cfg.api_key_env).unwrap_or_else(|| BRAVE_KEY_ENV.into());
            let Some(key) = env.get(&key_env) else {
                return Err(format!(
                    "The brave search provider needs an API key in the environment variable \
                     {key_env}, which is not set (the variable is named by `[web_search] \
                     api_key_env` in {}). Set {key_env} to a Brave Search API key and run \
                     finch again.",
                    finch_toml.display()
                ));
            };
            let endpoint = setting(&cfg.url).unwrap_or_else(|| BRAVE_ENDPOINT.into());
            let mut url = parse_url(&endpoint, &endpoint, finch_toml)?;
            url.query_pairs_mut()
                .append_pair("q", query)
                .append_pair("count", &limit.to_string());
            Ok((
                Provider::Brave,
                Request {
                    url,
                    headers: vec![("X-Subscription-Token", key)],
                    key_env: Some(key_env),
                },
            ))
        }
        other => Err(format!(
            "`[web_search] provider = \"{other}\"` in {} is not a search provider finch knows; \
             use \"searxng\" or \"brave\".",
            finch_toml.display()
        )),
    }
}

/// The endpoint `text` built from the configured `setting`, which messages name.
fn parse_url(text: &str, setting: &str, finch_toml: &Path) -> Result<Url, String> {
    match Url::parse(text) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => Ok(u),
        _ => Err(format!(
            "`[web_search] url = \"{setting}\"` in {} is not an http(s) URL.",
            finch_toml.display()
        )),
    }
}

/// The URL without its query (which holds the search words, not worth repeating).
fn shown(url: &Url) -> String {
    let mut u = url.clone();
    u.set_query(None);
    u.to_string()
}

fn status_error(
    provider: Provider,
    status: reqwest::StatusCode,
    request: &Request,
    body: &[u8],
) -> String {
    let at = shown(&request.url);
    let hint = match (provider, status.as_u16()) {
        (Provider::Searxng, 403) => {
            " SearXNG refuses the json format unless its settings.yml allows it: add `json` to \
             `search: formats:` and restart it."
                .to_string()
        }
        (Provider::Brave, 401 | 403 | 422) => format!(
            " Brave Search rejected the API key in {}: check the key.",
            request.key_env.as_deref().unwrap_or(BRAVE_KEY_ENV)
        ),
        (_, 429) => " The provider's rate limit was reached: wait a while before searching again."
            .to_string(),
        _ => String::new(),
    };
    let said = String::from_utf8_lossy(body);
    let said: String = said.trim().chars().take(300).collect();
    let mut message = format!(
        "The {} search provider at {at} answered HTTP {status}.{hint}",
        provider.name()
    );
    if !said.is_empty() {
        message.push_str(&format!("\nIt said: {said}"));
    }
    message
}

/// The results of a provider's answer; entries without a URL are skipped.
fn parse(provider: Provider, body: &Value) -> Vec<Hit> {
    let (list, snippet_key) = match provider {
        Provider::Searxng => (body.get("results"), "content"),
        Provider::Brave => (body.pointer("/web/results"), "description"),
    };
    let text = |v: &Value, k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .map(|s| plain(s.trim()))
            .unwrap_or_default()
    };
    list.and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|r| {
            let url = r.get("url").and_then(Value::as_str)?.to_string();
            Some(Hit {
                title: text(r, "title"),
                url,
                snippet: text(r, snippet_key),
            })
        })
        .collect()
}

/// Snippets may carry highlighting markup (`<strong>`) and entities: plain text for the model.
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
}

fn render(provider: Provider, query: &str, hits: &[Hit]) -> ToolOutput {
    let mut text = if hits.is_empty() {
        format!(
            "No results for \"{query}\" ({}). Try other words.",
            provider.name()
        )
    } else {
        format!(
            "{} result{} for \"{query}\" ({}):",
            hits.len(),
            if hits.len() == 1 { "" } else { "s" },
            provider.name()
        )
    };
    for (i, hit) in hits.iter().enumerate() {
        text.push_str(&format!("\n\n{}. {}\n   {}", i + 1, hit.title, hit.url));
        if !hit.snippet.is_empty() {
            text.push_str(&format!("\n   {}", hit.snippet));
        }
    }
    let results: Vec<Value> = hits
        .iter()
        .map(|h| json!({"title": h.title, "url": h.url, "snippet": h.snippet}))
        .collect();
    ToolOutput {
        content: vec![Content::Text(text)],
        structured: Some(json!({
            "query": query,
            "provider": provider.name(),
            "results": results,
        })),
        is_error: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(provider: Option<&str>, url: Option<&str>, key_env: Option<&str>) -> WebSearchConfig {
        WebSearchConfig {
            provider: provider.map(str::to_string),
            url: url.map(str::to_string),
            api_key_env: key_env.map(str::to_string),
        }
    }

    #[test]
    fn schema_compiles() {
        assert!(jsonschema::validator_for(&def().input_schema).is_ok());
    }

    #[test]
    fn plans() {
        let toml = Path::new("/rt/config/finch.toml");
        let env = Env::from_pairs(&[("MY_KEY", "secret-key")]);
        let (p, r) = plan(
            &cfg(Some("searxng"), Some("http://127.0.0.1:8888/"), None),
            &env,
            toml,
            "rust & tools",
            5,
        )
        .unwrap();
        assert_eq!(p, Provider::Searxng);
        assert_eq!(
            r.url.as_str(),
            "http://127.0.0.1:8888/search?q=rust+%26+tools&format=json"
        );
        assert!(r.headers.is_empty());

        let (p, r) = plan(
            &cfg(Some(" Brave "), None, Some("MY_KEY")),
            &env,
            toml,
            "q",
            5,
        )
        .unwrap();
        assert_eq!(p, Provider::Brave);
        assert_eq!(
            r.url.as_str(),
            "https://api.search.brave.com/res/v1/web/search?q=q&count=5"
        );
        assert_eq!(
            r.headers,
            vec![("X-Subscription-Token", "secret-key".to_string())]
        );
    }

    #[test]
    fn plan_errors() {
        let toml = Path::new("/rt/config/finch.toml");
        let env = Env::from_pairs(&[]);
        let cases = [
            (
                cfg(None, None, None),
                "WebSearch has no search provider configured. Set `[web_search] provider` in /rt/config/finch.toml",
            ),
            (cfg(Some("  "), None, None), "no search provider configured"),
            (
                cfg(Some("searxng"), None, None),
                "`[web_search] provider = \"searxng\"` needs `url`",
            ),
            (
                cfg(Some("searxng"), Some("ftp://x"), None),
                "`[web_search] url = \"ftp://x\"` in /rt/config/finch.toml is not an http(s) URL",
            ),
            (
                cfg(Some("brave"), None, None),
                "needs an API key in the environment variable BRAVE_API_KEY, which is not set",
            ),
            (
                cfg(Some("brave"), None, Some("OTHER_KEY")),
                "environment variable OTHER_KEY",
            ),
            (
                cfg(Some("google"), None, None),
                "`[web_search] provider = \"google\"` in /rt/config/finch.toml is not a search provider finch knows",
            ),
        ];
        for (c, want) in cases {
            let err = plan(&c, &env, toml, "q", 8).unwrap_err();
            assert!(err.contains(want), "{c:?}: {err}");
        }
    }

    #[test]
    fn parses_both_shapes() {
        let searxng = json!({"results": [
            {"title": "Finch", "url": "https://finch.example/", "content": "A <b>tool</b> host &amp; more"},
            {"title": "No url"},
            {"url": "https://bare.example/"}
        ]});
        assert_eq!(
            parse(Provider::Searxng, &searxng),
            vec![
                Hit {
                    title: "Finch".into(),
                    url: "https://finch.example/".into(),
                    snippet: "A tool host & more".into()
                },
                Hit {
                    title: String::new(),
                    url: "https://bare.example/".into(),
                    snippet: String::new()
                },
            ]
        );
        let brave = json!({"web": {"results": [
            {"title": "B", "url": "https://b.example/", "description": "<strong>b</strong> &quot;x&quot;"}
        ]}});
        assert_eq!(
            parse(Provider::Brave, &brave),
            vec![Hit {
                title: "B".into(),
                url: "https://b.example/".into(),
                snippet: "b \"x\"".into()
            }]
        );
        assert!(parse(Provider::Brave, &json!({"type": "search"})).is_empty());
    }

    #[test]
    fn renders_results() {
        let hits = vec![Hit {
            title: "Finch".into(),
            url: "https://finch.example/".into(),
            snippet: "A tool host".into(),
        }];
        let out = render(Provider::Searxng, "finch", &hits);
        assert_eq!(
            out.text_content(),
            "1 result for \"finch\" (searxng):\n\n1. Finch\n   https://finch.example/\n   A tool host"
        );
        let out = render(Provider::Brave, "zzz", &[]);
        assert!(!out.is_error);
        assert_eq!(
            out.text_content(),
            "No results for \"zzz\" (brave). Try other words."
        );
    }
}
