use super::*;
use crate::host::catalog::{Catalog, Exposure, ToolDef};
use serde_json::json;

fn def(wanted: &str, raw: &str, layer: Layer, source: &str, description: &str) -> ToolDef {
    ToolDef {
        raw_name: raw.into(),
        wanted_name: wanted.into(),
        title: raw.into(),
        description: description.into(),
        layer,
        source: source.into(),
        owner: None,
        risk: None,
        input_schema: json!({"type": "object"}),
        exposure: Exposure::Startup,
        keywords: String::new(),
        annotations: None,
    }
}

fn catalog() -> Catalog {
    Catalog::build(vec![
        def(
            "Read",
            "Read",
            Layer::Builtin,
            "builtin",
            "Read a file from disk",
        ),
        def(
            "Grep",
            "Grep",
            Layer::Builtin,
            "builtin",
            "Search file contents with a regular expression",
        ),
        def(
            "Memory",
            "Memory",
            Layer::Suite,
            "suite",
            "Remember, replace, forget and search memory entries",
        ),
        def(
            "weather_getForecast",
            "getForecast",
            Layer::MiniTool,
            "minitool:weather",
            "Weather forecast for a city",
        ),
        def(
            "mcp__github__create_issue",
            "create_issue",
            Layer::Mcp,
            "mcp:github",
            "Create an issue in a GitHub repository",
        ),
        def(
            "mcp__github__search_issues",
            "search_issues",
            Layer::Mcp,
            "mcp:github",
            "Search issues and pull requests",
        ),
        def(
            "translate_zh",
            "translate",
            Layer::MiniTool,
            "minitool:translate",
            "翻译文本到中文",
        ),
    ])
}

fn names(catalog: &Catalog, query: &str, filter: &SourceFilter) -> Vec<String> {
    catalog
        .index()
        .search(catalog.tools(), query, filter, 8)
        .iter()
        .map(|h| catalog.get(h.index).name.clone())
        .collect()
}

#[test]
fn ranks_by_name_split_and_morphology() {
    let c = catalog();
    let any = SourceFilter::Any;
    assert_eq!(names(&c, "forecast", &any)[0], "weather_getForecast");
    assert_eq!(names(&c, "get forecast", &any)[0], "weather_getForecast");
    assert_eq!(
        names(&c, "creating issues", &any)[0],
        "mcp__github__create_issue"
    );
    assert_eq!(
        names(&c, "searching", &any)[0],
        "mcp__github__search_issues"
    );
    assert_eq!(names(&c, "Read", &any)[0], "Read");
    assert_eq!(names(&c, "翻译", &any), ["translate_zh"]);
    assert!(names(&c, "xylophone", &any).is_empty());
}

#[test]
fn an_explanation_adds_up_to_the_score() {
    let c = catalog();
    let big = Catalog::build(generated_catalog(300));
    for (catalog, query) in [
        (&c, "creating issues"),
        (&c, "memory"),
        (&c, "mcp__github__create"),
        (&c, "翻译"),
        (&big, "weather forecast"),
        (&big, "send a message"),
    ] {
        let tools = catalog.tools();
        let hits = search_once(tools, query, &SourceFilter::Any, 5);
        assert!(!hits.is_empty(), "{query}");
        for (hit, why) in hits.iter().zip(explain(tools, query, &hits)) {
            let sum = why.terms.iter().map(|t| t.score).sum::<f64>()
                + why.name_boost.map_or(0.0, |b| b.1)
                + why.all_terms_in_name.unwrap_or(0.0);
            assert!(
                (sum - hit.score).abs() < 1e-9,
                "{query}: {} scored {} but its explanation adds up to {sum}: {why:?}",
                tools[hit.index].name,
                hit.score
            );
            assert!(why.terms.iter().all(|t| !t.fields.is_empty()));
        }
    }
    let tools = c.tools();
    let hits = search_once(tools, "creating issues", &SourceFilter::Any, 1);
    let why = &explain(tools, "creating issues", &hits)[0];
    let fields: Vec<(&str, &[&str])> = why
        .terms
        .iter()
        .map(|t| (t.term.as_str(), t.fields.as_slice()))
        .collect();
    assert_eq!(
        fields,
        [
            ("creat", &["name", "title", "description"][..]),
            ("issu", &["name", "title", "description"][..])
        ]
    );
    assert_eq!(why.all_terms_in_name, Some(ALL_TERMS_IN_NAME_BOOST));
}

#[test]
fn exact_and_prefix_names_win() {
    let c = catalog();
    let any = SourceFilter::Any;
    assert_eq!(names(&c, "memory", &any)[0], "Memory");
    assert_eq!(
        names(&c, "mcp__github__create", &any)[0],
        "mcp__github__create_issue"
    );
}

#[test]
fn sources_filter() {
    let c = catalog();
    let only = |f: &str| names(&c, "search", &SourceFilter::parse(f).unwrap());
    assert_eq!(only("mcp:github"), ["mcp__github__search_issues"]);
    assert_eq!(only("mcp:GitHub"), ["mcp__github__search_issues"]);
    assert_eq!(only("builtin"), ["Grep"]);
    assert_eq!(only("suite"), ["Memory"]);
    assert!(only("minitool:weather").is_empty());
    assert_eq!(
        names(&c, "", &SourceFilter::parse("minitool").unwrap()),
        ["translate_zh", "weather_getForecast"]
    );
    assert!(SourceFilter::parse("plugins").is_err());
    assert!(SourceFilter::parse("mcp:").is_err());
}

#[test]
fn one_pass_search_ranks_exactly_like_the_index() {
    let small = catalog();
    let big = Catalog::build(generated_catalog(600));
    let queries = [
        "forecast",
        "get forecast",
        "creating issues",
        "searching",
        "Read",
        "翻译",
        "memory",
        "mcp__github__create",
        "send email",
        "天气 report",
        "",
        "zzz",
    ];
    for c in [&small, &big] {
        for q in queries {
            for filter in [SourceFilter::Any, SourceFilter::Mcp(None)] {
                let indexed = c.index().search(c.tools(), q, &filter, 10);
                let once = search_once(c.tools(), q, &filter, 10);
                let key = |hits: &[Hit]| -> Vec<(usize, i64)> {
                    hits.iter()
                        .map(|h| (h.index, (h.score * 1e6) as i64))
                        .collect()
                };
                assert_eq!(key(&indexed), key(&once), "{q:?} {filter:?}");
            }
        }
    }
}

#[test]
fn stems() {
    for (word, stem_) in [
        ("searches", "search"),
        ("searching", "search"),
        ("searched", "search"),
        ("queries", "query"),
        ("running", "run"),
        ("issues", "issu"),
        ("issue", "issu"),
        ("creating", "creat"),
        ("created", "creat"),
        ("create", "creat"),
        ("write", "writ"),
        ("writing", "writ"),
        ("status", "status"),
        ("class", "class"),
        ("files", "file"),
        ("gas", "gas"),
    ] {
        assert_eq!(stem(word), stem_, "{word}");
    }
}

/// A generated catalog of 5,000 tools: 250 mini tools × 12 tools + 40 MCP servers × 50 tools,
/// named and described from a fixed vocabulary (a deterministic generator, no randomness).
pub fn generated_catalog(size: usize) -> Vec<ToolDef> {
    const VERBS: &[&str] = &[
        "get",
        "list",
        "create",
        "update",
        "delete",
        "search",
        "find",
        "send",
        "read",
        "write",
        "fetch",
        "sync",
        "export",
        "import",
        "convert",
        "translate",
        "summarize",
        "schedule",
        "cancel",
        "archive",
        "share",
        "upload",
        "download",
        "render",
        "check",
    ];
    const NOUNS: &[&str] = &[
        "issue",
        "pullRequest",
        "file",
        "folder",
        "message",
        "email",
        "event",
        "calendar",
        "contact",
        "task",
        "note",
        "page",
        "image",
        "video",
        "invoice",
        "payment",
        "order",
        "customer",
        "ticket",
        "report",
        "chart",
        "table",
        "record",
        "comment",
        "repo",
        "branch",
        "commit",
        "release",
        "forecast",
        "weather",
        "route",
        "map",
        "song",
        "playlist",
        "document",
        "sheet",
        "slide",
        "channel",
        "thread",
        "user",
    ];
    const WORDS: &[&str] = &[
        "quickly",
        "the",
        "a",
        "for",
        "with",
        "from",
        "into",
        "your",
        "team",
        "project",
        "account",
        "workspace",
        "given",
        "by",
        "id",
        "name",
        "date",
        "range",
        "status",
        "filter",
        "query",
        "results",
        "latest",
        "all",
        "selected",
        "remote",
        "local",
        "cloud",
        "server",
        "service",
        "天气",
        "日历",
        "文件",
        "翻译",
        "搜索",
        "报告",
    ];
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    (0..size)
        .map(|i| {
            let verb = VERBS[next(VERBS.len())];
            let noun = NOUNS[next(NOUNS.len())];
            let raw = format!("{verb}{}{}", &noun[..1].to_uppercase(), &noun[1..]);
            let words: Vec<&str> = (0..12 + next(20))
                .map(|_| WORDS[next(WORDS.len())])
                .collect();
            let description = format!("{} {} {}", verb, noun, words.join(" "));
            let (layer, source, wanted, exposure) = if i % 5 < 3 {
                let id = format!("tools{}", i / 12);
                let wanted = crate::host::naming::minitool_tool(&id, &raw);
                (
                    Layer::MiniTool,
                    format!("minitool:{id}"),
                    wanted,
                    Exposure::Startup,
                )
            } else {
                let server = format!("server{}", i % 40);
                let wanted = crate::host::naming::mcp_tool(&server, &raw);
                (
                    Layer::Mcp,
                    format!("mcp:{server}"),
                    wanted,
                    Exposure::Dynamic,
                )
            };
            ToolDef {
                raw_name: raw.clone(),
                wanted_name: wanted,
                title: raw,
                description,
                layer,
                source,
                owner: None,
                risk: None,
                input_schema: json!({
                    "type": "object",
                    "properties": {"id": {"type": "string"}, "query": {"type": "string"}},
                }),
                exposure,
                keywords: String::new(),
                annotations: None,
            }
        })
        .collect()
}

/// The in-process ToolSearch benchmark (`benches/host.sh`): median and 95th percentile of
/// one query over a 5,000-tool catalog. With `FINCH_BENCH_CATALOG=<path>` it also writes the
/// generated tools as a catalog cache for the whole-process `finch tool search` benchmark.
#[test]
#[ignore = "a benchmark: run by benches/host.sh in a release build"]
fn toolsearch_throughput() {
    let defs = generated_catalog(5000);
    // What `finch reload` adds by writing the index: the cache written with it, and the
    // index alone (median of 5 each).
    let scratch = tempfile::tempdir().unwrap();
    let cache_path = match std::env::var("FINCH_BENCH_CATALOG") {
        Ok(path) => std::path::PathBuf::from(path),
        Err(_) => scratch.path().join("catalog.json"),
    };
    let median_ms = |f: &mut dyn FnMut()| {
        let mut runs: Vec<f64> = (0..5)
            .map(|_| {
                let t = std::time::Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        runs.sort_by(f64::total_cmp);
        runs[2]
    };
    let write_ms = median_ms(&mut || {
        crate::host::catalog::write_cache(&cache_path, &defs, "bench").unwrap();
    });
    let builtins = {
        use crate::host::Provider;
        let mut b = crate::host::builtins::Builtins.defs();
        b.extend(crate::host::suites::Suites::default().defs());
        b
    };
    let entries = vec![(0, 0); defs.len()];
    let index_ms = median_ms(&mut || {
        let fingerprint = index::Fingerprint::default();
        index::build(&defs, &entries, &builtins, fingerprint).unwrap();
    });
    assert!(crate::host::catalog::index_path(&cache_path).exists());
    println!(
        "catalog cache: {} tools written in {write_ms:.1} ms with its index, the index built in {index_ms:.1} ms of it",
        defs.len()
    );
    let started = std::time::Instant::now();
    let catalog = Catalog::build(defs);
    catalog.index();
    let build = started.elapsed();
    let queries = [
        "create issue",
        "search files",
        "weather forecast",
        "send email to customer",
        "translate document",
        "list pull requests",
        "天气",
        "export report chart",
        "getForecast",
        "delete",
        "sync calendar events",
        "upload image",
    ];
    let mut times = Vec::new();
    let mut found = 0;
    for _ in 0..50 {
        for q in queries {
            let t = std::time::Instant::now();
            let hits = catalog
                .index()
                .search(catalog.tools(), q, &SourceFilter::Any, 8);
            times.push(t.elapsed().as_secs_f64() * 1e6);
            found += hits.len();
        }
    }
    assert!(found > 0);
    times.sort_by(f64::total_cmp);
    println!(
        "toolsearch: {} tools, index built in {:.2} ms, query median {:.1} µs, p95 {:.1} µs ({} queries)",
        catalog.len(),
        build.as_secs_f64() * 1000.0,
        times[times.len() / 2],
        times[times.len() * 95 / 100],
        times.len()
    );
}
