//! The permission rules files of SPEC §8.4: `<project>/.finch/permissions.json` and
//! `<runtime>/config/permissions.json`, both read, neither written. A rule names tools
//! (`toolName`, optionally ending in `*`) and a `key` whose meaning depends on the tool: a
//! command prefix for `Bash`, a path glob for the file tools, a host for `WebFetch`, `*` for
//! anything. This module parses the files and answers "does this rule reach this call"; which
//! rule wins is the gateway's business (`super::decide`).
//!
//! The project is the top level of the git work tree the working directory is in, else the
//! working directory itself (`project_root`); no other directory's rules file counts. A
//! project's file grants nothing until a person trusted its exact contents (`super::trust`):
//! until then its `allow` rules are dropped and `Rules::untrusted` says so.

use std::fmt;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use serde::Deserialize;

use super::bash::Classification;

/// The three lists of a rules file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleList {
    Allow,
    Ask,
    Deny,
}

impl RuleList {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleList::Allow => "allow",
            RuleList::Ask => "ask",
            RuleList::Deny => "deny",
        }
    }
}

/// The tools whose key is a path glob.
pub const FILE_TOOLS: &[&str] = &["Read", "Write", "Edit", "Grep", "Glob"];

/// One rule, with where it came from.
#[derive(Debug, Clone)]
pub struct Rule {
    pub list: RuleList,
    pub tool_name: String,
    pub key: String,
    /// The file it was read from (empty for rules built in code).
    pub file: PathBuf,
    /// Its position in its list, from 0.
    pub index: usize,
    /// The key as a command prefix, word by word (`npm test` → `npm`, `test`).
    words: Vec<String>,
    /// The key as a path glob, when it is one.
    glob: Option<GlobMatcher>,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} rule {{\"toolName\": {:?}, \"key\": {:?}}}",
            self.list.as_str(),
            self.tool_name,
            self.key
        )?;
        if !self.file.as_os_str().is_empty() {
            write!(f, " in {}", self.file.display())?;
        }
        Ok(())
    }
}

/// What a call offers a rule's key to match against.
#[derive(Debug, Clone, Copy)]
pub enum Subject<'a> {
    /// A Bash command: its text and classification.
    Command {
        text: &'a str,
        classification: &'a Classification,
    },
    /// A file tool's path: absolute, and relative to the project root when inside it.
    Path {
        absolute: &'a Path,
        in_project: Option<&'a Path>,
    },
    /// WebFetch's host.
    Host(&'a str),
    /// Tools without a key: only `*` matches.
    Nothing,
}

impl Rule {
    /// Builds a rule in code (tests, `--approve`-like callers).
    pub fn new(list: RuleList, tool_name: &str, key: &str) -> Result<Rule, String> {
        Rule::build(list, tool_name, key, None, Path::new(""), 0)
    }

    fn build(
        list: RuleList,
        tool_name: &str,
        key: &str,
        home: Option<&Path>,
        file: &Path,
        index: usize,
    ) -> Result<Rule, String> {
        if tool_name.trim().is_empty() {
            return Err("`toolName` must not be empty".into());
        }
        if tool_name.trim_end_matches('*').contains('*') {
            return Err(format!(
                "`toolName` {tool_name:?}: `*` may only end the name"
            ));
        }
        if key.trim().is_empty() {
            return Err("`key` must not be empty (use \"*\" for anything)".into());
        }
        let mut words: Vec<String> = key.split_whitespace().map(str::to_string).collect();
        // `npm test *` and `npm test:*` say what a prefix already means.
        if words.len() > 1 && words.last().is_some_and(|w| w == "*") {
            words.pop();
        }
        if let Some(last) = words.last_mut()
            && let Some(stripped) = last.strip_suffix(":*")
        {
            *last = stripped.to_string();
        }
        let pattern = match (key.strip_prefix("~/"), home) {
            (Some(rest), Some(home)) => home.join(rest).display().to_string(),
            _ => key.to_string(),
        };
        let glob = match GlobBuilder::new(&pattern).literal_separator(true).build() {
            Ok(g) => Some(g.compile_matcher()),
            // A key that is no glob is fine for Bash or WebFetch, not for a file tool.
            Err(e) if FILE_TOOLS.contains(&tool_name) => {
                return Err(format!("`key` {key:?} is not a valid path glob: {e}"));
            }
            Err(_) => None,
        };
        Ok(Rule {
            list,
            tool_name: tool_name.to_string(),
            key: key.to_string(),
            file: file.to_path_buf(),
            index,
            words,
            glob,
        })
    }

    /// The rule's `toolName` names this tool (`*` at the end matches any rest).
    pub fn names(&self, tool: &str) -> bool {
        match self.tool_name.strip_suffix('*') {
            Some(prefix) => tool.starts_with(prefix),
            None => self.tool_name == tool,
        }
    }

    /// The key is `*`: anything.
    pub fn key_is_any(&self) -> bool {
        self.key.trim() == "*"
    }

    /// The rule reaches the call somewhere: for a command, any segment (or any rough piece of
    /// the text) starts with the key. This is how `deny` and `ask` rules match: generously.
    pub fn reaches(&self, subject: &Subject) -> bool {
        if self.key_is_any() {
            return true;
        }
        match *subject {
            Subject::Command {
                text,
                classification,
            } => {
                classification
                    .segments
                    .iter()
                    .any(|s| self.prefixes(&s.words, true))
                    || rough_commands(text).any(|words| self.prefixes(&words, true))
            }
            Subject::Path {
                absolute,
                in_project,
            } => self.matches_path(absolute, in_project),
            Subject::Host(host) => self.matches_host(host),
            Subject::Nothing => false,
        }
    }

    /// An allow rule covers one segment: its words start with the key's words, exactly.
    pub fn covers(&self, words: &[String]) -> bool {
        self.key_is_any() || self.prefixes(words, false)
    }

    fn prefixes(&self, words: &[String], loose_program: bool) -> bool {
        if self.words.is_empty() || words.len() < self.words.len() {
            return false;
        }
        self.words.iter().zip(words).enumerate().all(|(i, (k, w))| {
            k == w || (loose_program && i == 0 && w.rsplit('/').next() == Some(k.as_str()))
        })
    }

    fn matches_path(&self, absolute: &Path, in_project: Option<&Path>) -> bool {
        let Some(glob) = &self.glob else {
            return false;
        };
        let pattern = glob.glob().glob();
        if pattern.starts_with('/') {
            glob.is_match(absolute)
        } else {
            in_project.is_some_and(|p| glob.is_match(p))
        }
    }

    fn matches_host(&self, host: &str) -> bool {
        let key = self.key.trim().to_ascii_lowercase();
        let host = host.to_ascii_lowercase();
        match key.strip_prefix("*.") {
            Some(domain) => host
                .strip_suffix(domain)
                .is_some_and(|rest| rest.ends_with('.')),
            None => host == key,
        }
    }
}

/// The command text cut at operators into whitespace-separated words, quotes dropped: a net for
/// `deny` rules under whatever the parser made of the text.
fn rough_commands(text: &str) -> impl Iterator<Item = Vec<String>> + '_ {
    text.split([';', '&', '|', '\n', '(', ')', '`', '{', '}'])
        .map(|chunk| {
            chunk
                .split_whitespace()
                .map(|w| w.replace(['\'', '"', '\\'], ""))
                .collect::<Vec<_>>()
        })
        .filter(|w| !w.is_empty())
}

/// All rules in force: the project's file first, then the runtime's.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    rules: Vec<Rule>,
    /// The files that were looked for, for messages.
    pub files: Vec<PathBuf>,
    /// The project's rules file when nobody trusted its contents: its `allow` rules were
    /// dropped (its `deny` and `ask` rules apply).
    pub untrusted: Option<Untrusted>,
}

/// A project rules file whose contents no person trusted (`finch policy trust`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untrusted {
    pub file: PathBuf,
    /// The SHA-256 of the contents read.
    pub sha256: String,
    /// How many `allow` rules were ignored.
    pub ignored_allow: usize,
    /// Other contents of the file were trusted once: it changed since.
    pub changed: bool,
    /// The directory to name in `finch policy trust DIR`.
    pub project: PathBuf,
}

impl Untrusted {
    /// The warning shown once per run (and by `finch policy check`) when allow rules were
    /// ignored.
    pub fn warning(&self) -> String {
        let what = if self.changed {
            "changed since it was trusted"
        } else {
            "not trusted"
        };
        format!(
            "{} is {what}: its {} allow rule{} {} ignored (its deny and ask rules apply); trust \
             it with `finch policy trust {}`",
            self.file.display(),
            self.ignored_allow,
            if self.ignored_allow == 1 { "" } else { "s" },
            if self.ignored_allow == 1 { "is" } else { "are" },
            self.project.display()
        )
    }
}

impl Rules {
    pub fn new(rules: Vec<Rule>) -> Rules {
        Rules {
            rules,
            files: Vec::new(),
            untrusted: None,
        }
    }

    /// Reads the project's rules file and the runtime's; a missing file has no rules. The
    /// project's `allow` rules count only when `trusted` holds its exact contents.
    pub fn load(
        project: &Path,
        runtime_home: &Path,
        home: Option<&Path>,
        trusted: &[super::trust::Trusted],
    ) -> Result<Rules, RulesError> {
        let files = rules_files(project, runtime_home);
        let mut rules = Vec::new();
        let mut untrusted = None;
        for (i, file) in files.iter().enumerate() {
            let bytes = match crate::store::read_regular(file) {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(source) => {
                    return Err(RulesError::Read {
                        path: file.clone(),
                        source,
                    });
                }
            };
            let text = String::from_utf8(bytes).map_err(|e| RulesError::Read {
                path: file.clone(),
                source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
            })?;
            let mut parsed = parse(&text, file, home)?;
            let sha256 = super::trust::sha256_hex(text.as_bytes());
            let is_project = files.len() == 2 && i == 0;
            if is_project && !super::trust::is_trusted(trusted, file, &sha256) {
                let before = parsed.len();
                parsed.retain(|r| r.list != RuleList::Allow);
                untrusted = Some(Untrusted {
                    file: file.clone(),
                    sha256,
                    ignored_allow: before - parsed.len(),
                    changed: super::trust::was_trusted(trusted, file),
                    project: project.to_path_buf(),
                });
            }
            rules.extend(parsed);
        }
        Ok(Rules {
            rules,
            files,
            untrusted,
        })
    }

    pub fn iter(&self, list: RuleList) -> impl Iterator<Item = &Rule> {
        self.rules.iter().filter(move |r| r.list == list)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    #[error(
        "{} is not a valid permission rules file (line {line}, column {column}): {message}",
        path.display()
    )]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
}

#[derive(Deserialize)]
struct RulesFile {
    #[serde(default)]
    allow: Vec<RawRule>,
    #[serde(default)]
    ask: Vec<RawRule>,
    #[serde(default)]
    deny: Vec<RawRule>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawRule {
    tool_name: String,
    key: String,
}

/// Parses one rules file. Errors carry the line and column (of the rule, for a rule that is
/// well-formed JSON but not a valid rule).
pub fn parse(text: &str, file: &Path, home: Option<&Path>) -> Result<Vec<Rule>, RulesError> {
    let invalid = |e: serde_json::Error| {
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let message = e.to_string();
        RulesError::Invalid {
            path: file.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: message
                .strip_suffix(&suffix)
                .unwrap_or(&message)
                .to_string(),
        }
    };
    // Read once as a plain value for the shape serde's derive would let through (`[]` as an
    // empty struct, `["Bash", "x"]` as a rule), then typed for errors at the exact position.
    let value: serde_json::Value = serde_json::from_str(text).map_err(invalid)?;
    let shape_error = |at: usize, message: String| {
        let (line, column) = line_column(text, at);
        RulesError::Invalid {
            path: file.to_path_buf(),
            line,
            column,
            message,
        }
    };
    let Some(object) = value.as_object() else {
        let at = text.len() - text.trim_start().len();
        return Err(shape_error(
            at,
            "the file must hold a JSON object: {\"allow\": [...], \"ask\": [...], \"deny\": [...]}"
                .into(),
        ));
    };
    for list in [RuleList::Allow, RuleList::Ask, RuleList::Deny] {
        let Some(serde_json::Value::Array(items)) = object.get(list.as_str()) else {
            continue;
        };
        if let Some(i) = items.iter().position(|item| !item.is_object()) {
            let at = text.find(&format!("\"{}\"", list.as_str())).unwrap_or(0);
            return Err(shape_error(
                at,
                format!(
                    "{} rule {} must be an object with `toolName` and `key`",
                    list.as_str(),
                    i + 1
                ),
            ));
        }
    }
    let parsed: RulesFile = serde_json::from_str(text).map_err(invalid)?;
    let mut rules = Vec::new();
    for (list, raw) in [
        (RuleList::Allow, parsed.allow),
        (RuleList::Ask, parsed.ask),
        (RuleList::Deny, parsed.deny),
    ] {
        for (index, r) in raw.into_iter().enumerate() {
            let rule =
                Rule::build(list, &r.tool_name, &r.key, home, file, index).map_err(|message| {
                    let (line, column) = locate_rule(text, list, index);
                    RulesError::Invalid {
                        path: file.to_path_buf(),
                        line,
                        column,
                        message: format!("{} rule {}: {message}", list.as_str(), index + 1),
                    }
                })?;
            rules.push(rule);
        }
    }
    Ok(rules)
}

/// Where rule `index` of `list` starts in the text: found by reading the document again with a
/// visitor that counts positions. Only used for error messages, so a plain scan is enough.
fn locate_rule(text: &str, list: RuleList, index: usize) -> (usize, usize) {
    let needle = format!("\"{}\"", list.as_str());
    let offset = text
        .find(&needle)
        .and_then(|at| {
            let after = at + needle.len();
            let open = after + text[after..].find('[')?;
            nth_object_start(text, open + 1, index)
        })
        .unwrap_or(0);
    line_column(text, offset)
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// The byte offset of the `index`-th top-level `{` of the array starting at `from`.
fn nth_object_start(text: &str, from: usize, index: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut seen = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text[from..].char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => {
                if depth == 0 && c == '{' {
                    if seen == index {
                        return Some(from + i);
                    }
                    seen += 1;
                }
                depth += 1;
            }
            '}' | ']' => {
                if depth == 0 {
                    return None;
                }
                depth -= 1;
            }
            _ => {}
        }
    }
    None
}

/// The project of a working directory: the top level of the git work tree it is in, else the
/// directory itself. Only this directory's `.finch/permissions.json` counts, never one in a
/// directory above it (issue 28: `/tmp/.finch` must not govern `/tmp/some/project`).
pub fn project_root(cwd: &Path, _runtime_home: &Path) -> PathBuf {
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(cwd)
        .to_path_buf()
}

/// The rules files in force for a project, in the order they are read: the project's (none
/// when its `.finch` is the runtime home, as for a project at `~` with the runtime at
/// `~/.finch`), then the runtime's.
pub fn rules_files(project: &Path, runtime_home: &Path) -> Vec<PathBuf> {
    let marker = project.join(".finch");
    let mut files = Vec::new();
    if marker != runtime_home {
        files.push(marker.join("permissions.json"));
    }
    files.push(runtime_home.join("config").join("permissions.json"));
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::policy::bash::classify;

    fn rule(tool: &str, key: &str) -> Rule {
        Rule::new(RuleList::Allow, tool, key).unwrap()
    }

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn tool_names_match_exactly_or_by_prefix() {
        assert!(rule("Bash", "*").names("Bash"));
        assert!(!rule("Bash", "*").names("BashX"));
        assert!(rule("mcp__github__*", "*").names("mcp__github__create_issue"));
        assert!(!rule("mcp__github__*", "*").names("mcp__gitlab__x"));
        assert!(rule("*", "*").names("anything"));
        assert!(rule("weather_*", "*").names("weather_forecast"));
    }

    #[test]
    fn command_keys_match_whole_words() {
        let r = rule("Bash", "npm test");
        assert!(r.covers(&words("npm test")));
        assert!(r.covers(&words("npm test -- --watch")));
        assert!(!r.covers(&words("npm testing")));
        assert!(!r.covers(&words("npm")));
        assert!(!r.covers(&words("pnpm test")));
        assert!(!r.covers(&words("/usr/bin/npm test")));
        assert!(rule("Bash", "npm test:*").covers(&words("npm test x")));
        assert!(rule("Bash", "npm test *").covers(&words("npm test")));
        assert!(rule("Bash", "*").covers(&words("anything at all")));
    }

    #[test]
    fn deny_keys_reach_any_segment_and_wrapped_commands() {
        let r = Rule::new(RuleList::Deny, "Bash", "rm").unwrap();
        for command in [
            "rm x",
            "ls && rm x",
            "sudo rm x",
            "/bin/rm x",
            "echo $(rm x)",
            "bash -lc 'rm x'",
        ] {
            let c = classify(command);
            let subject = Subject::Command {
                text: command,
                classification: &c,
            };
            assert!(r.reaches(&subject), "{command}");
        }
        let c = classify("ls -rm");
        assert!(!r.reaches(&Subject::Command {
            text: "ls -rm",
            classification: &c
        }));
    }

    #[test]
    fn path_keys_are_globs() {
        let abs = |p: &'static str| Subject::Path {
            absolute: Path::new(p),
            in_project: Path::new(p).strip_prefix("/p").ok(),
        };
        assert!(rule("Read", "src/**").reaches(&abs("/p/src/a/b.rs")));
        assert!(!rule("Read", "src/*").reaches(&abs("/p/src/a/b.rs")));
        assert!(rule("Read", "*.md").reaches(&abs("/p/README.md")));
        assert!(!rule("Read", "*.md").reaches(&abs("/p/docs/x.md")));
        assert!(rule("Read", "**/*.md").reaches(&abs("/p/docs/x.md")));
        assert!(rule("Read", "/etc/hosts").reaches(&abs("/etc/hosts")));
        assert!(!rule("Read", "src/**").reaches(&abs("/elsewhere/src/x")));
        assert!(rule("Read", "*").reaches(&abs("/anywhere")));
        let home = Rule::build(
            RuleList::Allow,
            "Read",
            "~/notes/**",
            Some(Path::new("/home/u")),
            Path::new(""),
            0,
        )
        .unwrap();
        assert!(home.reaches(&abs("/home/u/notes/a.md")));
    }

    #[test]
    fn host_keys_match_hosts_and_subdomains() {
        assert!(rule("WebFetch", "docs.rs").reaches(&Subject::Host("docs.rs")));
        assert!(rule("WebFetch", "docs.rs").reaches(&Subject::Host("DOCS.rs")));
        assert!(!rule("WebFetch", "docs.rs").reaches(&Subject::Host("evil-docs.rs")));
        assert!(rule("WebFetch", "*.github.com").reaches(&Subject::Host("api.github.com")));
        assert!(!rule("WebFetch", "*.github.com").reaches(&Subject::Host("github.com")));
        assert!(!rule("WebFetch", "*.github.com").reaches(&Subject::Host("evilgithub.com")));
    }

    #[test]
    fn keyless_tools_match_only_star() {
        assert!(rule("Memory", "*").reaches(&Subject::Nothing));
        assert!(!rule("Memory", "remember").reaches(&Subject::Nothing));
    }

    #[test]
    fn parses_the_spec_example() {
        let text = r#"{"allow":[{"toolName":"Bash","key":"npm test"}],"ask":[],"deny":[{"toolName":"mcp__github__*","key":"*"}],"$comment":"kept"}"#;
        let rules = parse(text, Path::new("p.json"), None).unwrap();
        let listed: Vec<(RuleList, &str, &str)> = rules
            .iter()
            .map(|r| (r.list, r.tool_name.as_str(), r.key.as_str()))
            .collect();
        assert_eq!(
            listed,
            [
                (RuleList::Allow, "Bash", "npm test"),
                (RuleList::Deny, "mcp__github__*", "*")
            ]
        );
    }

    #[test]
    fn rejects_broken_files_with_line_and_column() {
        let cases = [
            (
                "{\n  \"allow\": [\n    {\"toolName\": \"Bash\",}\n  ]\n}",
                3,
                "trailing comma",
            ),
            (
                "{\"allow\": [{\"toolName\": \"Bash\"}]}",
                1,
                "missing field `key`",
            ),
            ("{\"allow\": {}}", 1, "invalid type"),
            ("[]", 1, "must hold a JSON object"),
            ("\n\n  \"x\"", 3, "must hold a JSON object"),
            (
                "{\"ask\": [[\"Bash\", \"x\"]]}",
                1,
                "ask rule 1 must be an object",
            ),
            (
                "{\"allow\": [{\"toolName\": 3, \"key\": \"*\"}]}",
                1,
                "invalid type: integer",
            ),
            ("", 1, "EOF"),
            (
                "{\n  \"deny\": [\n    {\"toolName\": \"a\", \"key\": \"*\"},\n    {\"toolName\": \"a*b\", \"key\": \"*\"}\n  ]\n}",
                4,
                "deny rule 2: `toolName` \"a*b\"",
            ),
            (
                "{\"allow\": [{\"toolName\": \"Read\", \"key\": \"  \"}]}",
                1,
                "must not be empty",
            ),
            (
                "{\"allow\": [{\"toolName\": \"Read\", \"key\": \"src/[\"}]}",
                1,
                "not a valid path glob",
            ),
        ];
        for (text, want_line, want) in cases {
            match parse(text, Path::new("/p/.finch/permissions.json"), None) {
                Err(RulesError::Invalid { line, message, .. }) => {
                    assert_eq!(line, want_line, "{text}: {message}");
                    assert!(message.contains(want), "{text}: {message}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        let err = parse("{\n  oops\n}", Path::new("/p/x.json"), None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "/p/x.json is not a valid permission rules file (line 2, column 3): key must be a string"
        );
    }

    #[test]
    fn the_project_is_the_git_top_level_or_the_directory_itself() {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        let runtime = home.join(".finch");
        let project = home.join("proj");
        let deep = project.join("src/deep");
        std::fs::create_dir_all(&runtime).unwrap();
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::create_dir_all(deep.join(".finch")).unwrap();
        // A `.finch` between the directory and the top level does not make a project.
        assert_eq!(project_root(&deep, &runtime), project);
        let other = home.join("other/sub");
        std::fs::create_dir_all(home.join("other/.finch")).unwrap();
        std::fs::create_dir_all(&other).unwrap();
        // No git work tree: the directory itself, never an ancestor with a `.finch`.
        assert_eq!(project_root(&other, &runtime), other);
        // `~/.finch` is the runtime home: a project at `~` has no rules file of its own.
        assert_eq!(
            rules_files(&home, &runtime),
            vec![runtime.join("config/permissions.json")]
        );
    }
}
