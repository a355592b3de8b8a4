//! The query sets that hold ToolSearch to what users type: English and Chinese (simplified
//! and traditional) queries over the real built-ins and dispatchers, a few dozen mini tool
//! tools described in English, Chinese or both, and generated tools as noise. Each query
//! names the tools that answer it; a set passes when enough of them put an answer in the top 3.

use super::*;
use crate::host::Provider;
use crate::host::builtins::Builtins;
use crate::host::catalog::{Catalog, Exposure, ToolDef};
use crate::host::suites::Suites;
use serde_json::json;

/// Mini tools as people publish them: (id, tool, description).
const MINI_TOOLS: &[(&str, &str, &str)] = &[
    (
        "weather",
        "getForecast",
        "Weather forecast for a city: temperature, rain and wind for the next days. 查询城市天气预报",
    ),
    (
        "translator",
        "translateText",
        "Translate text between languages. 翻译文本，支持中英日韩",
    ),
    (
        "mailer",
        "sendEmail",
        "Send an email message through your mail account. 发送电子邮件",
    ),
    (
        "calendar",
        "createEvent",
        "Add an event or meeting to the calendar. 在日历中添加日程或会议",
    ),
    ("notes", "createNote", "新建一条笔记，保存到笔记本"),
    ("notes", "searchNotes", "在笔记中搜索关键词"),
    (
        "pdftools",
        "mergePdf",
        "Merge several PDF documents into one. 合并多个PDF文档",
    ),
    (
        "imagekit",
        "resizeImage",
        "Resize, crop or compress an image. 调整图片尺寸、裁剪或压缩图片",
    ),
    (
        "music",
        "playSong",
        "Play a song, an album or a playlist on the speaker",
    ),
    ("stocks", "getQuote", "股票行情：查询股票的实时价格和涨跌"),
    (
        "maps",
        "planRoute",
        "Directions between two places by car, bike or on foot. 路线规划与导航",
    ),
    (
        "github",
        "createPullRequest",
        "Open a pull request on GitHub from a branch",
    ),
    ("timer", "startPomodoro", "开始一个番茄钟专注计时"),
    (
        "currency",
        "convertCurrency",
        "Convert an amount between currencies at today's exchange rate. 汇率换算",
    ),
    (
        "clipboard",
        "copyToClipboard",
        "Copy text to the system clipboard. 复制文本到剪贴板",
    ),
    (
        "screenshot",
        "captureScreen",
        "Take a screenshot of the screen or a window",
    ),
    ("reminders", "addReminder", "添加提醒事项，到时间通知我"),
    (
        "rss",
        "fetchFeed",
        "Read the latest items of an RSS or Atom feed. 订阅源",
    ),
];

/// The catalog the query sets search: built-ins, dispatchers, the mini tools above, and 600
/// generated tools whose words (search, file, create, 文件, 搜索 …) compete with them.
fn catalog() -> Catalog {
    let mut defs = Builtins.defs();
    defs.extend(Suites::default().defs());
    for (id, raw, description) in MINI_TOOLS {
        defs.push(ToolDef {
            raw_name: (*raw).into(),
            wanted_name: crate::host::naming::minitool_tool(id, raw),
            title: (*raw).into(),
            description: (*description).into(),
            layer: Layer::MiniTool,
            source: format!("minitool:{id}"),
            owner: None,
            risk: None,
            input_schema: json!({"type": "object"}),
            exposure: Exposure::Dynamic,
            keywords: String::new(),
            annotations: None,
        });
    }
    defs.extend(super::tests::generated_catalog(600));
    Catalog::build(defs)
}

/// (query, the tools that answer it).
const ENGLISH: &[(&str, &[&str])] = &[
    ("read a file", &["Read"]),
    ("show the lines of a source file", &["Read"]),
    ("open a PDF document", &["Read"]),
    ("create a new file with some content", &["Write"]),
    ("replace text in a file", &["Edit"]),
    ("search file contents for a regex", &["Grep"]),
    ("find where a function is used in the code", &["Grep"]),
    ("find files matching a pattern", &["Glob"]),
    ("run a shell command", &["Bash"]),
    ("search the web", &["WebSearch"]),
    ("fetch a web page as markdown", &["WebFetch"]),
    (
        "ask the user a multiple choice question",
        &["AskUserQuestion"],
    ),
    ("track progress with a todo list", &["TodoWrite"]),
    ("load a skill", &["Skill", "Skills"]),
    ("remember a fact for later", &["Memory"]),
    ("forget a memory entry", &["Memory"]),
    ("search past sessions", &["Session"]),
    ("trust another directory", &["Session"]),
    ("rename this conversation", &["Session"]),
    ("create a new space for a project", &["AppCall"]),
    ("switch to dark theme", &["AppCall"]),
    ("check for app updates", &["AppCall"]),
    ("list available models", &["AppCall"]),
    ("install a mini tool", &["MiniTool"]),
    ("disable an extension", &["MiniTool"]),
    ("schedule a daily task", &["Schedule"]),
    ("history of scheduled runs", &["Schedule"]),
    ("discover more tools", &["ToolSearch"]),
    ("weather forecast for tomorrow", &["weather_getForecast"]),
    ("translate text to french", &["translator_translateText"]),
    ("send an email", &["mailer_sendEmail"]),
    ("add a meeting to my calendar", &["calendar_createEvent"]),
    ("merge pdf files", &["pdftools_mergePdf"]),
    ("play a playlist", &["music_playSong"]),
];

const CHINESE: &[(&str, &[&str])] = &[
    ("读取文件", &["Read"]),
    ("讀取檔案", &["Read"]),
    ("打开PDF看看内容", &["Read"]),
    ("新建文件并写入内容", &["Write"]),
    ("修改文件里的一段文字", &["Edit"]),
    ("查找文件内容", &["Grep"]),
    ("在代码里搜索关键字", &["Grep"]),
    ("按文件名查找文件", &["Glob"]),
    ("执行命令", &["Bash"]),
    ("執行終端指令", &["Bash"]),
    ("网上搜索资料", &["WebSearch"]),
    ("抓取网页内容", &["WebFetch"]),
    ("向用户提问让他选择", &["AskUserQuestion"]),
    ("待办清单", &["TodoWrite"]),
    ("調用技能", &["Skill", "Skills"]),
    ("记住这件事", &["Memory"]),
    ("記住我的偏好", &["Memory"]),
    ("搜索历史会话", &["Session"]),
    ("信任新目录", &["Session"]),
    ("给会话改个名字", &["Session"]),
    ("创建新空间", &["AppCall"]),
    ("為專案建立一個新空間", &["AppCall"]),
    ("切换深色模式", &["AppCall"]),
    ("檢查更新", &["AppCall"]),
    ("安装小工具", &["MiniTool"]),
    ("停用擴充功能", &["MiniTool"]),
    ("每天定时执行任务", &["Schedule"]),
    ("定時任務", &["Schedule"]),
    ("查找更多工具", &["ToolSearch"]),
    ("明天天气怎么样", &["weather_getForecast"]),
    ("翻译成英文", &["translator_translateText"]),
    ("发送邮件", &["mailer_sendEmail"]),
    ("新建笔记", &["notes_createNote"]),
    ("股票价格", &["stocks_getQuote"]),
    ("汇率换算", &["currency_convertCurrency"]),
];

/// Every query of both sets (the index's equivalence test runs them too).
pub(super) fn all_queries() -> Vec<&'static str> {
    ENGLISH.iter().chain(CHINESE).map(|(q, _)| *q).collect()
}

/// Runs a query set; returns the share that put an answer in the top 3, and the misses.
fn run(catalog: &Catalog, set: &[(&str, &[&str])]) -> (f64, Vec<String>) {
    let mut misses = Vec::new();
    for (query, answers) in set {
        let top: Vec<&str> = catalog
            .index()
            .search(catalog.tools(), query, &SourceFilter::Any, 3)
            .iter()
            .map(|h| catalog.get(h.index).name.as_str())
            .collect();
        if !top.iter().any(|t| answers.contains(t)) {
            misses.push(format!("{query:?} → {top:?} (wanted {answers:?})"));
        }
    }
    let share = 1.0 - misses.len() as f64 / set.len() as f64;
    (share, misses)
}

#[test]
fn query_sets_find_the_right_tool_in_the_top_3() {
    let catalog = catalog();
    let (english, english_misses) = run(&catalog, ENGLISH);
    let (chinese, chinese_misses) = run(&catalog, CHINESE);
    let all = ENGLISH.len() + CHINESE.len();
    let both = 1.0 - (english_misses.len() + chinese_misses.len()) as f64 / all as f64;
    println!(
        "toolsearch queries: English {:.1}% of {}, Chinese {:.1}% of {}, both {:.1}% of {all}",
        english * 100.0,
        ENGLISH.len(),
        chinese * 100.0,
        CHINESE.len(),
        both * 100.0
    );
    for miss in english_misses.iter().chain(&chinese_misses) {
        println!("  miss: {miss}");
    }
    assert!(both >= 0.9, "{both}");
    assert!(english >= 0.9, "{english}");
    assert!(chinese >= 0.9, "{chinese}");
}
