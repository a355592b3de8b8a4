//! `finch doctor`: the report on one package (manifest problems plus a lint of its sources, which
//! also warns about `ctx` members finch cannot honour — the table in `minitool::headless`, which the
//! runtime's bootstrap is written with), the environment check (homes, state files, node, registry,
//! installed tools), and the list of state files that `doctor --state` can move aside. It only
//! reads; moving files is the command's job.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::Error;
use super::headless::{self, HeadlessMember};
use super::manifest::{self, Issue, Manifest, Severity};
use crate::homes::{Homes, Tier};
use crate::store::read_json_object;

/// The package names whose runtime import is a mistake: they are types only.
const API_PACKAGES: [&str; 2] = ["finch", "@finchtoys/minitool-api"];
/// Source files larger than this are not linted.
const MAX_LINT_BYTES: u64 = 2 * 1024 * 1024;
/// At most this many source files are linted.
const MAX_LINT_FILES: usize = 2000;

/// The report of `finch doctor <path>`.
#[derive(Debug)]
pub struct PackageReport {
    pub manifest: Manifest,
    pub id: Option<String>,
    pub issues: Vec<Issue>,
}

impl PackageReport {
    pub fn fatal(&self) -> impl Iterator<Item = &Issue> {
        self.issues.iter().filter(|i| i.severity == Severity::Fatal)
    }

    pub fn warnings(&self) -> impl Iterator<Item = &Issue> {
        self.issues
            .iter()
            .filter(|i| i.severity == Severity::Warning)
    }
}

/// Whether a bare `finch doctor` in `dir` checks it as a package: it has a `finch.json`, or a
/// `package.json` that has a `finch` key (of any type) or does not parse. A broken package must
/// fail the check rather than pass as "not a package"; a plain npm project is not one.
pub fn is_package_dir(dir: &Path) -> bool {
    if dir.join(manifest::FINCH_JSON).exists() {
        return true;
    }
    let Ok(text) = std::fs::read_to_string(dir.join(manifest::PACKAGE_JSON)) else {
        return false;
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(pkg)) => pkg.contains_key("finch"),
        Ok(_) | Err(_) => true,
    }
}

/// Checks the package at `dir`: its manifest, then its sources.
pub fn check_package(dir: &Path) -> Result<PackageReport, Error> {
    let manifest = manifest::load(dir)?.ok_or_else(|| Error::NoMiniTool {
        place: dir.display().to_string(),
    })?;
    let mut issues = manifest.check();
    issues.extend(lint_sources(&manifest));
    issues.sort_by_key(|i| i.severity);
    Ok(PackageReport {
        id: manifest.runtime_id().ok(),
        manifest,
        issues,
    })
}

static RUNTIME_IMPORT: LazyLock<Regex> = LazyLock::new(|| {
    // `import x from 'm'`, `import {a} from "m"`, `export * from 'm'`, `import 'm'`,
    // `require('m')`, `import('m')` — captured: the statement head and the module name.
    Regex::new(r#"(?m)(^\s*(?:import|export)\b[^;'"]*?(?:\bfrom\s*)?|\brequire\s*\(\s*|\bimport\s*\(\s*)['"]([^'"]+)['"]"#)
        .unwrap_or_else(|e| unreachable!("static regex: {e}"))
});
static ACTIVATE_EXPORT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)\bexport\s+(?:async\s+)?(?:function\s*\*?\s*|const\s+|let\s+|var\s+)activate\b|\bexport\s*\{[^}]*\bactivate\b[^}]*\}")
        .unwrap_or_else(|e| unreachable!("static regex: {e}"))
});

/// Lints the entry module (problems there are fatal: it runs) and the other sources (warnings).
fn lint_sources(m: &Manifest) -> Vec<Issue> {
    let mut issues = Vec::new();
    let entry = m.dir.join(m.main());
    if let Ok(text) = std::fs::read_to_string(&entry) {
        let text = strip_comments(&text);
        issues.extend(import_problems(&text, &m.main(), Severity::Fatal));
        if !ACTIVATE_EXPORT.is_match(&text) {
            issues.push(Issue {
                severity: Severity::Fatal,
                message: format!(
                    "{} does not export a named `activate` function (write `export function activate(ctx) {{ … }}`)",
                    m.main()
                ),
                official: None,
            });
        }
    }
    let mut headless: Vec<(&HeadlessMember, String)> = Vec::new();
    let mut sources: Vec<(String, String, String)> = Vec::new();
    let shipped = shipped_prefixes(&m.dir);
    let main = m.main();
    let main = main.trim_start_matches("./");
    for file in source_files(&m.dir) {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let rel = file
            .strip_prefix(&m.dir)
            .unwrap_or(&file)
            .display()
            .to_string();
        let code = code_only(&text);
        let text = strip_comments(&text);
        if file != entry {
            issues.extend(import_problems(&text, &rel, Severity::Warning));
        }
        // What runs in the mini tool is what ships: a build script the package's `files`
        // leaves out (scripts/build-kb.mjs) never meets finch's sandbox or its headless ctx.
        if !ships(&rel, shipped.as_deref(), main) {
            continue;
        }
        for member in headless::members() {
            if code.contains(member.needle) && !headless.iter().any(|(h, _)| *h == member) {
                headless.push((member, rel.clone()));
            }
        }
        sources.push((rel, text, code));
    }
    let declared = super::confine::Declared::from_permissions(m.permissions());
    issues.extend(undeclared_uses(&declared, &sources));
    issues.extend(downloading_servers(&declared, m.fields.get("contributes")));
    issues.extend(headless.into_iter().map(|(member, file)| Issue {
        severity: Severity::Warning,
        message: member.warning(&file),
        official: None,
    }));
    issues
}

/// The paths package.json's `files` ships, as prefixes (a glob entry up to its first wildcard;
/// negations left out), when it lists any; `None` ships everything, as npm does.
fn shipped_prefixes(dir: &Path) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(dir.join("package.json")).ok()?;
    let package: serde_json::Value = serde_json::from_str(&text).ok()?;
    let files = package.get("files")?.as_array()?;
    Some(
        files
            .iter()
            .filter_map(serde_json::Value::as_str)
            .filter(|f| !f.starts_with('!'))
            .map(|f| {
                let f = f.trim_start_matches("./");
                let f = f.split(['*', '?', '[', '{']).next().unwrap_or("");
                f.trim_end_matches('/').to_string()
            })
            .collect(),
    )
}

/// Whether the source at `rel` ships: the entry always does.
fn ships(rel: &str, shipped: Option<&[String]>, main: &str) -> bool {
    rel == main
        || shipped.is_none_or(|prefixes| {
            prefixes.iter().any(|p| {
                p.is_empty()
                    || rel == p
                    || rel
                        .strip_prefix(p.as_str())
                        .is_some_and(|r| r.starts_with('/'))
            })
        })
}

/// Modules that reach the network, and those that start programs.
const NETWORK_MODULES: &[&str] = &[
    "http",
    "https",
    "http2",
    "net",
    "tls",
    "dgram",
    "undici",
    "axios",
    "node-fetch",
    "ws",
    "got",
    "ky",
];
const SHELL_MODULES: &[&str] = &["child_process", "execa", "cross-spawn", "shelljs", "zx"];

static FETCH_CALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|[^.\w$])(fetch\s*\(|new\s+WebSocket\s*\(|new\s+XMLHttpRequest\b)")
        .unwrap_or_else(|e| unreachable!("static regex: {e}"))
});
static FS_WRITE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(writeFile|writeFileSync|appendFile|appendFileSync|createWriteStream|mkdir|mkdirSync|rename|renameSync|copyFile|copyFileSync|unlink|unlinkSync|rm|rmSync)\s*\(")
        .unwrap_or_else(|e| unreachable!("static regex: {e}"))
});

/// Warnings for what a package plainly uses and its manifest does not declare, which finch's
/// confinement (`minitool::confine`) will refuse it: the network (`fetch`, `http`, …), programs
/// (`child_process`, …), and file writes in a file that never mentions `storagePath` (the one
/// place, with its TMPDIR, it may write without `filesystem: "readwrite"`). `sources` are
/// (file, text without comments, its code: without the text of string literals too, so
/// documentation a bundle carries as strings — a knowledge base that mentions `fetch(` —
/// reads as what it is). Calls and writes are looked for in the code, a native library's
/// name (`engine.node`, a string) in the text. One warning per kind, naming the first file.
pub fn undeclared_uses(
    declared: &super::confine::Declared,
    sources: &[(String, String, String)],
) -> Vec<Issue> {
    let imports = |text: &str, modules: &[&str]| -> Option<String> {
        RUNTIME_IMPORT.captures_iter(text).find_map(|cap| {
            let module = cap.get(2)?.as_str();
            let root = module_root(module.strip_prefix("node:").unwrap_or(module));
            modules.contains(&root).then(|| module.to_string())
        })
    };
    let first = |find: &dyn Fn(&str) -> Option<String>| {
        sources
            .iter()
            .find_map(|(file, _, code)| find(code).map(|what| (file.clone(), what)))
    };
    let mut out = Vec::new();
    let warn = |message: String| Issue {
        severity: Severity::Warning,
        message,
        official: None,
    };
    if !declared.network
        && let Some((file, what)) = first(&|t| {
            imports(t, NETWORK_MODULES).or_else(|| {
                FETCH_CALL
                    .captures(t)
                    .map(|c| c[1].trim_end_matches(['(', ' ']).to_string())
            })
        })
    {
        out.push(warn(format!(
            "{file} uses {what}, but the manifest does not declare \"network\": true: finch's sandbox will refuse it every connection (declare it, or a user runs `finch sandbox grant <id> network`)"
        )));
    }
    // Programs run in the workspace get the warning that names it, not the general one.
    let mut in_workspace = false;
    if !declared.shell
        && declared.filesystem == super::confine::Filesystem::None
        && let Some((file, what)) = first(&|t| {
            WORKSPACE_USE
                .is_match(t)
                .then(|| imports(t, SHELL_MODULES))
                .flatten()
        })
    {
        out.push(warn(format!(
            "{file} runs programs ({what}) in the workspace, but the manifest declares filesystem: \"none\" and no \"shell\": true: finch's sandbox lets neither node nor its programs see the workspace (declare \"shell\": true, which lets its programs work in the workspace as an approved Bash call does, or a user runs `finch sandbox grant <id> shell`)"
        )));
        in_workspace = true;
    }
    if !declared.shell
        && !in_workspace
        && let Some((file, what)) = first(&|t| imports(t, SHELL_MODULES))
    {
        out.push(warn(format!(
            "{file} uses {what}, but the manifest does not declare \"shell\": true: finch's sandbox lets it execute nothing but node (declare it, or a user runs `finch sandbox grant <id> shell`)"
        )));
    }
    if !declared.shell
        && let Some((file, what)) = sources.iter().find_map(|(file, t, code)| {
            let native = code.contains("process.dlopen")
                || (code.contains("createRequire") && t.contains(".node"));
            (native && code.contains("storagePath"))
                .then(|| (file.clone(), "native code (.node)".to_string()))
        })
    {
        out.push(warn(format!(
            "{file} loads {what} and writes under storagePath, but the manifest does not declare \"shell\": true: finch's sandbox maps nothing it wrote as code, so a library it downloads will not load (one shipped in the package does; or a user runs `finch sandbox grant <id> shell`)"
        )));
    }
    if let Some((file, what)) = sources.iter().find_map(|(file, t, code)| {
        (PACKAGE_DIR.is_match(code) && !t.contains("storagePath"))
            .then(|| FS_WRITE.captures(code).map(|c| c[1].to_string()))
            .flatten()
            .map(|what| (file.clone(), what))
    }) {
        out.push(warn(format!(
            "{file} writes files ({what}) beside its own code (__dirname, import.meta): finch keeps the package directory read-only whatever the manifest declares; write under ctx.storagePath"
        )));
    }
    if declared.filesystem != super::confine::Filesystem::ReadWrite
        && let Some((file, what)) = first(&|t| {
            (!t.contains("storagePath") && !t.contains("tmpdir"))
                .then(|| FS_WRITE.captures(t).map(|c| c[1].to_string()))
                .flatten()
        })
    {
        out.push(warn(format!(
            "{file} writes files ({what}) and never mentions storagePath, but the manifest declares filesystem: \"{}\": finch's sandbox lets it write only ctx.storagePath and its TMPDIR (declare \"readwrite\", or a user runs `finch sandbox grant <id> filesystem=readwrite`)",
            declared.filesystem.as_str()
        )));
    }
    out
}

/// Programs that download what they run before running it.
const DOWNLOADERS: &[&str] = &["npx", "uvx", "bunx", "pnpx", "pipx", "dlx"];

static WORKSPACE_USE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bworkspace\b|\bcwd\s*:|['\x22]-C['\x22]")
        .unwrap_or_else(|e| unreachable!("static regex: {e}"))
});
static PACKAGE_DIR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b__dirname\b|\bimport\.meta\.(?:url|dirname|filename)\b")
        .unwrap_or_else(|e| unreachable!("static regex: {e}"))
});

/// Warnings for the MCP servers a package contributes whose command downloads what it runs
/// (`npx -y pkg`, `uvx pkg`) while the manifest does not declare the network: such a server
/// runs confined as its mini tool, and its download fails.
pub fn downloading_servers(
    declared: &super::confine::Declared,
    contributes: Option<&serde_json::Value>,
) -> Vec<Issue> {
    if declared.network {
        return Vec::new();
    }
    let servers = contributes
        .and_then(|c| c.get("mcpServers"))
        .and_then(serde_json::Value::as_array);
    servers
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let command = entry.get("command")?.as_str()?;
            let program = Path::new(command).file_name()?.to_str()?;
            let args: Vec<&str> = entry
                .get("args")
                .and_then(serde_json::Value::as_array)
                .map(|a| a.iter().filter_map(serde_json::Value::as_str).collect())
                .unwrap_or_default();
            let downloads = DOWNLOADERS.contains(&program)
                || (matches!(program, "pnpm" | "yarn" | "bun") && args.first() == Some(&"dlx"))
                || (program == "bun" && args.first() == Some(&"x"));
            downloads.then(|| {
                let name = entry.get("name").and_then(serde_json::Value::as_str).unwrap_or("?");
                let line = std::iter::once(command).chain(args).collect::<Vec<_>>().join(" ");
                Issue {
                    severity: Severity::Warning,
                    message: format!(
                        "contributes.mcpServers \"{name}\" runs `{line}`, which downloads what it runs, but the manifest does not declare \"network\": true: the server runs confined as the mini tool and its download will fail (declare it, or a user runs `finch sandbox grant <id> network`)"
                    ),
                    official: None,
                }
            })
        })
        .collect()
}

fn import_problems(text: &str, file: &str, severity: Severity) -> Vec<Issue> {
    let mut out = Vec::new();
    for cap in RUNTIME_IMPORT.captures_iter(text) {
        let head = cap.get(1).map_or("", |m| m.as_str());
        let module = cap.get(2).map_or("", |m| m.as_str());
        let type_only = head.trim_start().starts_with("import type")
            || head.trim_start().starts_with("export type");
        let root = module_root(module);
        if API_PACKAGES.contains(&root) && !type_only {
            out.push(Issue {
                severity,
                message: format!(
                    "{file} imports \"{module}\" at runtime; it provides types only — use `import type`"
                ),
                official: None,
            });
        } else if root == "electron" {
            out.push(Issue {
                severity,
                message: format!(
                    "{file} imports \"electron\", which is not available to mini tools"
                ),
                official: None,
            });
        }
    }
    out
}

/// `@scope/name/sub` → `@scope/name`; `name/sub` → `name`.
fn module_root(module: &str) -> &str {
    let mut parts = module.splitn(3, '/');
    match (parts.next(), parts.next()) {
        (Some(scope), Some(name)) if scope.starts_with('@') => {
            &module[..scope.len() + 1 + name.len()]
        }
        (Some(first), _) => first,
        _ => module,
    }
}

/// Words after which a `/` starts a regular expression rather than a division.
const REGEX_PRECEDING_WORDS: [&str; 14] = [
    "return",
    "typeof",
    "instanceof",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "case",
    "do",
    "else",
    "yield",
    "await",
];

/// Removes `//` and `/* */` comments outside string, template and regular-expression literals,
/// keeping line breaks. A `/` starts a regular expression where an expression may begin (after
/// an operator, an opening bracket, a comma, or a keyword such as `return`), as JS parsers
/// decide; elsewhere it is a division.
fn strip_comments(text: &str) -> String {
    strip(text, false)
}

/// The code of a source: `strip_comments`, and the text of its string and template literals
/// blanked too (quotes, line breaks and `${…}` expressions kept), except a module's name after
/// `import`, `from`, `require(` or `import(`.
fn code_only(text: &str) -> String {
    strip(text, true)
}

fn strip(text: &str, blank: bool) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    // The last significant character outside comments, and the word it ended, if any.
    let mut prev: Option<char> = None;
    let mut word = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '/' if next == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            '/' if next == Some('*') => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    if chars[i] == '\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
                i += 2;
                continue;
            }
            '"' | '\'' | '`' => {
                let blank = blank && !names_a_module(&out);
                i = copy_literal(&chars, i, c, &mut out, blank);
                prev = Some(c);
                word.clear();
                continue;
            }
            '/' if regex_may_start(prev, &word) => {
                i = copy_regex(&chars, i, &mut out);
                prev = Some('/');
                word.clear();
                continue;
            }
            _ => {}
        }
        out.push(c);
        if c.is_alphanumeric() || c == '_' || c == '$' {
            if !prev.is_some_and(|p| p.is_alphanumeric() || p == '_' || p == '$') {
                word.clear();
            }
            word.push(c);
            prev = Some(c);
        } else if !c.is_whitespace() {
            word.clear();
            prev = Some(c);
        }
        i += 1;
    }
    out
}

fn regex_may_start(prev: Option<char>, word: &str) -> bool {
    match prev {
        None => true,
        Some(p) if p.is_alphanumeric() || p == '_' || p == '$' => {
            REGEX_PRECEDING_WORDS.contains(&word)
        }
        Some(')' | ']' | '}' | '"' | '\'' | '`') => false,
        Some(_) => true,
    }
}

/// Whether a literal starting after `before` is a module's name (`from "x"`, `require("x")`).
fn names_a_module(before: &str) -> bool {
    let t = before.trim_end();
    let word_ends = |w: &str| {
        t.strip_suffix(w).is_some_and(|rest| {
            !rest
                .chars()
                .next_back()
                .is_some_and(|p| p.is_alphanumeric() || p == '_' || p == '$' || p == '.')
        })
    };
    if let Some(call) = t.strip_suffix('(') {
        let call = call.trim_end();
        return ["require", "import"].iter().any(|w| {
            call.strip_suffix(w).is_some_and(|rest| {
                !rest
                    .chars()
                    .next_back()
                    .is_some_and(|p| p.is_alphanumeric() || p == '_' || p == '$')
            })
        });
    }
    word_ends("from") || word_ends("import")
}

/// Copies a quoted literal starting at `start`; a plain string also ends at a line break.
/// With `blank`, its text becomes spaces (line breaks kept), and a template's `${…}`
/// expressions are kept as code.
fn copy_literal(chars: &[char], start: usize, quote: char, out: &mut String, blank: bool) -> usize {
    out.push(quote);
    let mut i = start + 1;
    let keep = |c: char, out: &mut String| out.push(if blank && c != '\n' { ' ' } else { c });
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c == '\\' {
            keep(c, out);
            if let Some(&n) = chars.get(i) {
                keep(n, out);
                i += 1;
            }
        } else if c == quote || (c == '\n' && quote != '`') {
            out.push(c);
            break;
        } else if blank && quote == '`' && c == '$' && chars.get(i) == Some(&'{') {
            // An expression inside a template is code: copy it to its closing brace.
            out.push_str("${");
            i += 1;
            let mut depth = 1;
            while i < chars.len() {
                let e = chars[i];
                i += 1;
                match e {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            out.push('}');
                            break;
                        }
                    }
                    _ => {}
                }
                out.push(e);
            }
        } else {
            keep(c, out);
        }
    }
    i
}

/// Copies a regular-expression literal (`/…/flags`, `[…]` classes may hold a `/`).
fn copy_regex(chars: &[char], start: usize, out: &mut String) -> usize {
    out.push('/');
    let mut i = start + 1;
    let mut in_class = false;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            break;
        }
        out.push(c);
        i += 1;
        match c {
            '\\' => {
                if let Some(&n) = chars.get(i).filter(|n| **n != '\n') {
                    out.push(n);
                    i += 1;
                }
            }
            '[' => in_class = true,
            ']' => in_class = false,
            '/' if !in_class => break,
            _ => {}
        }
    }
    i
}

/// JS and TS sources of a package, outside `node_modules` and hidden directories.
fn source_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        for item in read.flatten() {
            let name = item.file_name();
            let name = name.to_string_lossy();
            let Ok(kind) = item.file_type() else { continue };
            if kind.is_dir() {
                if !name.starts_with('.') && name != "node_modules" {
                    stack.push(item.path());
                }
            } else if kind.is_file()
                && [".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"]
                    .iter()
                    .any(|e| name.ends_with(e))
                && !name.ends_with(".d.ts")
                && item.metadata().is_ok_and(|m| m.len() <= MAX_LINT_BYTES)
            {
                files.push(item.path());
                if files.len() >= MAX_LINT_FILES {
                    return files;
                }
            }
        }
    }
    files.sort();
    files
}

/// A one-line summary of declared permissions: `filesystem=read, network, secrets=[a.*]`.
pub fn permissions_summary(m: &Manifest) -> String {
    let Some(p) = m.permissions() else {
        return "none".into();
    };
    if p.is_empty() {
        return "none".into();
    }
    p.iter()
        .map(|(k, v)| match v {
            Value::Bool(true) => k.clone(),
            Value::Bool(false) => format!("{k}=false"),
            Value::String(s) => format!("{k}={s}"),
            other => format!("{k}={other}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every JSON state file finch reads or writes, for `doctor` and `doctor --state`.
pub fn json_state_files(homes: &Homes) -> Vec<PathBuf> {
    let mut files = vec![
        homes.extensions_json(),
        homes
            .tier_dir(Tier::Personal)
            .join(super::records::LOCK_RECORDS_FILE),
        homes
            .tier_dir(Tier::Global)
            .join(super::records::LOCK_RECORDS_FILE),
        homes.settings_json(),
        homes.workspace_json(),
        homes.spaces_json(),
        homes.tasks_json(),
        homes.mcp_servers_json(),
    ];
    files.retain(|f| f.exists());
    files
}

/// The problem with one state file, if it has one.
pub fn state_file_problem(path: &Path) -> Option<String> {
    read_json_object(path).err().map(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undeclared_network_shell_and_writes_are_warned_once_each() {
        use crate::minitool::confine::Declared;
        let nothing = Declared::from_permissions(None);
        let sources = |pairs: &[(&str, &str)]| -> Vec<(String, String, String)> {
            pairs
                .iter()
                .map(|(f, t)| (f.to_string(), strip_comments(t), code_only(t)))
                .collect()
        };
        let bundle = sources(&[
            (
                "dist/a.js",
                "const r = await fetch(url);\nimport { spawn } from 'node:child_process';",
            ),
            (
                "dist/b.js",
                "import https from 'https';\nfs.writeFileSync('/etc/x', 'y');",
            ),
        ]);
        let warnings: Vec<String> = undeclared_uses(&nothing, &bundle)
            .into_iter()
            .map(|i| i.message)
            .collect();
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(
            warnings[0].starts_with(
                "dist/a.js uses fetch, but the manifest does not declare \"network\": true"
            ),
            "{warnings:?}"
        );
        assert!(warnings[1].starts_with("dist/a.js uses node:child_process, but the manifest does not declare \"shell\": true"), "{warnings:?}");
        assert!(
            warnings[2].starts_with(
                "dist/b.js writes files (writeFileSync) and never mentions storagePath"
            ),
            "{warnings:?}"
        );

        // Declared, or plainly inside its storage, or only in a comment or a method name: none.
        let all = Declared::from_permissions(
            serde_json::json!({"network": true, "shell": true, "filesystem": "readwrite"})
                .as_object(),
        );
        assert!(undeclared_uses(&all, &bundle).is_empty());
        let quiet = sources(&[(
            "dist/c.js",
            "// fetch(x) and require('child_process')\nclient.fetch(q);\nfs.writeFileSync(path.join(ctx.storagePath, 'a'), b);",
        )]);
        assert!(undeclared_uses(&nothing, &quiet).is_empty());
        let native = sources(&[(
            "dist/d.js",
            "const r = createRequire(import.meta.url);\nconst e = r(path.join(ctx.storagePath, 'engine.node'));",
        )]);
        let warnings = undeclared_uses(&nothing, &native);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0]
                .message
                .starts_with("dist/d.js loads native code (.node)")
        );
    }

    #[test]
    fn under_declarations_of_issue_39_are_warned() {
        use crate::minitool::confine::Declared;
        use serde_json::json;
        let perms = |v: serde_json::Value| Declared::from_permissions(v.as_object());
        let sources = |pairs: &[(&str, &str)]| -> Vec<(String, String, String)> {
            pairs
                .iter()
                .map(|(f, t)| (f.to_string(), strip_comments(t), code_only(t)))
                .collect()
        };
        let messages =
            |issues: Vec<Issue>| -> Vec<String> { issues.into_iter().map(|i| i.message).collect() };
        // Programs in the workspace with filesystem none and no shell.
        let git = sources(&[(
            "dist/git.js",
            "import { execFileSync } from 'node:child_process';
execFileSync('git', ['-C', ctx.workspace.rootPath, 'status']);",
        )]);
        let none = messages(undeclared_uses(&perms(json!({"filesystem": "none"})), &git));
        assert!(
            none.iter().any(|m| m.starts_with("dist/git.js runs programs (node:child_process) in the workspace, but the manifest declares filesystem: \"none\" and no \"shell\": true")),
            "{none:?}"
        );
        assert!(
            undeclared_uses(&perms(json!({"filesystem": "none", "shell": true})), &git).is_empty()
        );
        // Writes beside its own code, whatever it declares.
        let beside = sources(&[(
            "dist/cache.js",
            "const here = path.dirname(fileURLToPath(import.meta.url));
fs.writeFileSync(path.join(here, 'cache.json'), s);",
        )]);
        let all = perms(json!({"filesystem": "readwrite", "shell": true, "network": true}));
        assert_eq!(
            messages(undeclared_uses(&all, &beside)),
            [
                "dist/cache.js writes files (writeFileSync) beside its own code (__dirname, import.meta): finch keeps the package directory read-only whatever the manifest declares; write under ctx.storagePath"
            ]
        );
        let storage = sources(&[(
            "dist/ok.js",
            "const here = __dirname;
fs.writeFileSync(path.join(ctx.storagePath, 'a'), s);",
        )]);
        assert!(undeclared_uses(&all, &storage).is_empty());
        // Contributed servers that download without the network.
        let contributes = json!({"mcpServers": [
            {"name": "tavily", "command": "npx", "args": ["-y", "tavily-mcp@latest"]},
            {"name": "py", "command": "/usr/local/bin/uvx", "args": ["srv"]},
            {"name": "dlx", "command": "pnpm", "args": ["dlx", "x"]},
            {"name": "local", "command": "node", "args": ["server.js"]},
        ]});
        let warned = messages(downloading_servers(&perms(json!({})), Some(&contributes)));
        assert_eq!(warned.len(), 3, "{warned:?}");
        assert!(warned[0].starts_with("contributes.mcpServers \"tavily\" runs `npx -y tavily-mcp@latest`, which downloads what it runs, but the manifest does not declare \"network\": true"), "{warned:?}");
        assert!(warned[1].contains("\"py\""), "{warned:?}");
        assert!(warned[2].contains("\"dlx\""), "{warned:?}");
        assert!(
            downloading_servers(&perms(json!({"network": true})), Some(&contributes)).is_empty()
        );
    }

    fn problems(src: &str) -> Vec<String> {
        import_problems(&strip_comments(src), "x.js", Severity::Fatal)
            .into_iter()
            .map(|i| i.message)
            .collect()
    }

    #[test]
    fn import_lint_table() {
        let flagged = [
            "import { defineTool } from '@finchtoys/minitool-api';",
            "import api from \"finch\";",
            "const api = require('@finchtoys/minitool-api/helpers');",
            "const m = await import('finch');",
            "export * from '@finchtoys/minitool-api';",
            "import { BrowserWindow } from 'electron';",
            "import 'electron';",
        ];
        for src in flagged {
            assert_eq!(problems(src).len(), 1, "{src}");
        }
        let fine = [
            "import type { Ctx } from '@finchtoys/minitool-api';",
            "export type { Ctx } from '@finchtoys/minitool-api';",
            "// import x from 'finch';",
            "/* require('electron') */",
            "const s = \"import x from 'finch'\";",
            "import fs from 'node:fs';",
            "import finchy from 'finchy';",
        ];
        for src in fine {
            assert_eq!(problems(src), Vec::<String>::new(), "{src}");
        }
    }

    #[test]
    fn what_ships_is_what_files_lists_and_the_entry() {
        let dir = tempfile::tempdir().unwrap();
        let pkg = |files: serde_json::Value| {
            std::fs::write(
                dir.path().join("package.json"),
                serde_json::json!({"name": "x", "files": files}).to_string(),
            )
            .unwrap();
            shipped_prefixes(dir.path())
        };
        let shipped = pkg(serde_json::json!([
            "dist/",
            "./i18n",
            "icons/**/*.svg",
            "!dist/x.map"
        ]));
        let ships = |rel: &str| ships(rel, shipped.as_deref(), "main.js");
        assert!(ships("dist/index.js") && ships("i18n/a.js") && ships("icons/a/b.js"));
        assert!(ships("main.js"), "the entry always ships");
        assert!(!ships("scripts/build-kb.mjs") && !ships("src/index.ts") && !ships("distant.js"));
        std::fs::write(dir.path().join("package.json"), r#"{"name": "x"}"#).unwrap();
        assert!(
            shipped_prefixes(dir.path()).is_none(),
            "no files: everything ships"
        );
        assert!(super::ships("scripts/a.js", None, "main.js"));
    }

    #[test]
    fn the_text_of_strings_is_not_code() {
        use crate::minitool::confine::Declared;
        let src = "const kb = {\"text\": \"Call fetch(url) or ctx.ui.createPanel({}); require('child_process')\"};\n\
                   const t = `see fetch(x) ${ctx.storagePath} \\` fetch(y)`;\n\
                   import http from 'node:http';\nconst cp = require ( \"child_process\" );\n";
        let code = code_only(src);
        assert!(
            !code.contains("fetch(") && !code.contains("createPanel("),
            "{code}"
        );
        assert!(code.contains("'node:http'"), "{code}");
        assert!(code.contains("\"child_process\""), "{code}");
        assert!(code.contains("${ctx.storagePath}"), "{code}");
        assert_eq!(code.lines().count(), src.lines().count());
        let sources = vec![("kb.js".to_string(), strip_comments(src), code)];
        let warnings: Vec<String> = undeclared_uses(&Declared::from_permissions(None), &sources)
            .into_iter()
            .map(|i| i.message)
            .collect();
        // The imports are real; the calls in the strings are not.
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[0].starts_with("kb.js uses node:http,"),
            "{warnings:?}"
        );
        assert!(
            warnings[1].starts_with("kb.js uses child_process,"),
            "{warnings:?}"
        );
    }

    #[test]
    fn regex_literals_are_not_comments_or_strings() {
        let cases = [
            (
                "var r=/^https?:\\/\\//;export{a as activate};",
                "export{a as activate}",
            ),
            (
                "const q = /'/g;\n// require('finch')\nexport function activate() {}",
                "export function activate",
            ),
            ("x = a / b; // c\ny = 2", "x = a / b; \ny = 2"),
            (
                "if (x) return /[/]/.test(s) // end",
                "return /[/]/.test(s) ",
            ),
            ("const s = `a // b`; /* c */ d", "const s = `a // b`;  d"),
        ];
        for (src, needle) in cases {
            let out = strip_comments(src);
            assert!(out.contains(needle), "{src:?} → {out:?}");
        }
        assert!(!strip_comments("const q = /'/g;\n// require('finch')\n").contains("require"));
    }

    #[test]
    fn activate_export_forms() {
        let found = [
            "export function activate(ctx) {}",
            "export async function activate(ctx) {}",
            "export const activate = async (ctx) => {};",
            "function activate() {}\nexport { activate, deactivate };",
            "const a = 1; export { a as activate };",
        ];
        for src in found {
            assert!(ACTIVATE_EXPORT.is_match(&strip_comments(src)), "{src}");
        }
        let missing = [
            "export default function activate() {}",
            "export function activated() {}",
            "// export function activate() {}",
            "module.exports = { activate }",
        ];
        for src in missing {
            assert!(!ACTIVATE_EXPORT.is_match(&strip_comments(src)), "{src}");
        }
    }

    #[test]
    fn module_roots() {
        assert_eq!(
            module_root("@finchtoys/minitool-api/x/y"),
            "@finchtoys/minitool-api"
        );
        assert_eq!(module_root("finch/sub"), "finch");
        assert_eq!(module_root("electron"), "electron");
    }
}
