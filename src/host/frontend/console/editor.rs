//! What the console's line editor knows of finch: completion of `/commands`, tool names, a
//! tool's argument names, paths in the value of a path parameter (`file_path=REA⇥`) and after
//! `@` (`@REA⇥`: a file for the tool's path parameter, `console::key_values`), and when an
//! entry is not finished yet (an open JSON object goes on on the next line). Functions of the
//! line (and, for paths, of the directory listed), tested beside the code; the editor itself
//! is `rustyline`.

use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

/// The console's commands, with what `/help` says of them.
pub const COMMANDS: &[(&str, &str)] = &[
    ("/tools", "the tools active in this session"),
    ("/search", "ToolSearch: find (and activate) tools"),
    ("/mode", "show or change the permission mode"),
    ("/session", "this session's id, transcript and directories"),
    (
        "/reload",
        "re-read the rules, restart mini tools and MCP servers",
    ),
    ("/help", "what the console understands"),
    ("/quit", "end the session (also Ctrl-D, or Ctrl-C twice)"),
];

const MODES: &[&str] = &["ask", "acceptCalls"];

/// A tool the console can complete: its name, the names of its arguments, and those of them
/// that take a path (`is_path_param`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolNames {
    pub name: String,
    pub args: Vec<String>,
    pub paths: Vec<String>,
}

/// The editor's helper; the console refreshes `tools` before each line. Paths complete
/// relative to `cwd`, the session's directory.
#[derive(Default)]
pub struct ConsoleHelper {
    pub tools: Vec<ToolNames>,
    pub cwd: std::path::PathBuf,
}

/// Whether a parameter takes a path, by its name: `path`, `file_path`, `notebook_path`,
/// `filePath` — the built-ins' names and the usual ones of mini tool and MCP tools.
pub fn is_path_param(name: &str) -> bool {
    name == "path" || name.ends_with("_path") || name.ends_with("Path")
}

/// At most this many paths are offered (a directory of thousands lists nothing useful).
const MAX_PATHS: usize = 200;

/// The entries of the directory `typed` names, that start as its last part does, as `typed`
/// would become: `src/ma` → `src/main.rs `, `sr` → `src/`. A directory ends with `/` (so
/// Tab goes on into it), a lone file with a space. Hidden entries only when the part begins
/// with `.`; the exact case first, any case when that finds nothing (`rea` → `README.md`).
/// Relative to `cwd`; `~/` is the home directory.
pub fn paths(cwd: &std::path::Path, typed: &str) -> Vec<String> {
    let (dir, part) = match typed.rfind('/') {
        Some(i) => (&typed[..=i], &typed[i + 1..]),
        None => ("", typed),
    };
    let listed = if let Some(rest) = dir.strip_prefix("~/") {
        match std::env::var_os("HOME") {
            Some(home) => std::path::Path::new(&home).join(rest),
            None => return Vec::new(),
        }
    } else {
        cwd.join(dir)
    };
    let Ok(entries) = std::fs::read_dir(&listed) else {
        return Vec::new();
    };
    let mut names: Vec<(String, bool)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let is_dir = std::fs::metadata(e.path()).is_ok_and(|m| m.is_dir());
            Some((name, is_dir))
        })
        .filter(|(name, _)| part.starts_with('.') || !name.starts_with('.'))
        .collect();
    names.sort();
    let exact: Vec<&(String, bool)> = names.iter().filter(|(n, _)| n.starts_with(part)).collect();
    let found = if exact.is_empty() {
        let lower = part.to_lowercase();
        names
            .iter()
            .filter(|(n, _)| n.to_lowercase().starts_with(&lower))
            .collect()
    } else {
        exact
    };
    let lone = found.len() == 1;
    found
        .into_iter()
        .take(MAX_PATHS)
        .map(|(name, is_dir)| match (is_dir, lone) {
            (true, _) => format!("{dir}{name}/"),
            (false, true) => format!("{dir}{name} "),
            (false, false) => format!("{dir}{name}"),
        })
        .collect()
}

impl ConsoleHelper {
    /// Where the word being completed starts and what it may become.
    pub fn candidates(&self, line: &str, pos: usize) -> (usize, Vec<String>) {
        let head = line.get(..pos).unwrap_or(line);
        let Some(space) = head.find(char::is_whitespace) else {
            // The first word: a command or a tool.
            let found: Vec<String> = if head.starts_with('/') {
                COMMANDS
                    .iter()
                    .map(|(c, _)| c.to_string())
                    .filter(|c| c.starts_with(head))
                    .collect()
            } else {
                let lower = head.to_lowercase();
                self.tools
                    .iter()
                    .map(|t| t.name.clone())
                    .filter(|n| n.to_lowercase().starts_with(&lower))
                    .collect()
            };
            let exact = found.len() == 1;
            return (0, with_space(found, exact));
        };
        let first = &head[..space];
        let start = head
            .rfind(|c: char| c.is_whitespace() || c == '{' || c == ',')
            .map_or(0, |i| {
                i + head[i..].chars().next().map_or(1, char::len_utf8)
            });
        let word = &head[start..];
        if first == "/mode" {
            let found = MODES
                .iter()
                .filter(|m| m.starts_with(word))
                .map(|m| m.to_string())
                .collect();
            return (start, found);
        }
        let Some(tool) = self.tools.iter().find(|t| t.name == first) else {
            return (start, Vec::new());
        };
        let rest = &head[space..];
        // `@REA`: a file, for the tool's path parameter.
        if let Some(typed) = word.strip_prefix('@')
            && !tool.paths.is_empty()
        {
            let found = paths(&self.cwd, typed)
                .into_iter()
                .map(|p| format!("@{p}"))
                .collect();
            return (start, found);
        }
        let json = rest.trim_start().starts_with('{');
        let unused = tool
            .args
            .iter()
            .filter(|a| !rest.contains(&format!("{a}=")) && !rest.contains(&format!("\"{a}\"")));
        let found = if json {
            let Some(partial) = word.strip_prefix('"') else {
                return (start, Vec::new());
            };
            unused
                .filter(|a| a.starts_with(partial))
                .map(|a| format!("\"{a}\": "))
                .collect()
        } else if let Some((key, typed)) = word.split_once('=') {
            // `file_path=REA`: the value of a path parameter is a path.
            if !tool.paths.iter().any(|p| p == key) {
                return (start, Vec::new());
            }
            let start = start + key.len() + 1;
            return (start, paths(&self.cwd, typed));
        } else {
            unused
                .filter(|a| a.starts_with(word))
                .map(|a| format!("{a}="))
                .collect()
        };
        (start, found)
    }
}

/// A lone completion of a first word gets the space that follows it.
fn with_space(found: Vec<String>, exact: bool) -> Vec<String> {
    if exact {
        found.into_iter().map(|f| f + " ").collect()
    } else {
        found
    }
}

/// Whether a line is finished: not while a JSON object (outside strings) is still open.
pub fn is_complete(text: &str) -> bool {
    let Some(brace) = text.find('{') else {
        return true;
    };
    let mut depth = 0i64;
    let mut in_string = false;
    let mut escaped = false;
    for c in text[brace..].chars() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            _ => {}
        }
    }
    depth <= 0
}

impl Completer for ConsoleHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let (start, found) = self.candidates(line, pos);
        let pairs = found
            .into_iter()
            .map(|f| Pair {
                display: f.trim_end().to_string(),
                replacement: f,
            })
            .collect();
        Ok((start, pairs))
    }
}

/// Every line is sent as typed: the console itself goes on an open JSON object on the next
/// line, with a prompt of its own (rustyline draws none on a line it keeps open).
impl Validator for ConsoleHelper {}

impl Hinter for ConsoleHelper {
    type Hint = String;
}

impl Highlighter for ConsoleHelper {}

impl Helper for ConsoleHelper {}

#[cfg(test)]
mod tests {
    use super::*;

    fn helper() -> ConsoleHelper {
        ConsoleHelper {
            tools: vec![
                ToolNames {
                    name: "Read".into(),
                    args: vec!["file_path".into(), "offset".into(), "limit".into()],
                    paths: vec!["file_path".into()],
                },
                ToolNames {
                    name: "ReadMcpResource".into(),
                    args: vec![],
                    paths: vec![],
                },
                ToolNames {
                    name: "Bash".into(),
                    args: vec!["command".into()],
                    paths: vec![],
                },
            ],
            cwd: std::path::PathBuf::from("/nonexistent-finch-test-dir"),
        }
    }

    fn complete(line: &str) -> (usize, Vec<String>) {
        helper().candidates(line, line.len())
    }

    /// A directory holding `README.md`, `Cargo.toml`, `.env` and `src/main.rs`.
    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("README.md"), "").unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "").unwrap();
        std::fs::write(dir.path().join(".env"), "").unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/main.rs"), "").unwrap();
        dir
    }

    #[test]
    fn a_path_parameters_value_and_an_at_word_complete_to_paths() {
        let dir = tree();
        let mut helper = helper();
        helper.cwd = dir.path().to_path_buf();
        let complete = |line: &str| helper.candidates(line, line.len());
        assert_eq!(
            complete("Read file_path=REA"),
            (15, vec!["README.md ".into()])
        );
        assert_eq!(
            complete("Read file_path=rea"),
            (15, vec!["README.md ".into()])
        );
        assert_eq!(complete("Read file_path=s"), (15, vec!["src/".into()]));
        assert_eq!(
            complete("Read file_path=src/m"),
            (15, vec!["src/main.rs ".into()])
        );
        assert_eq!(
            complete("Read file_path="),
            (
                15,
                vec!["Cargo.toml".into(), "README.md".into(), "src/".into()]
            )
        );
        assert_eq!(complete("Read file_path=.e"), (15, vec![".env ".into()]));
        // Not a path parameter: nothing.
        assert_eq!(complete("Read offset=R").1, Vec::<String>::new());
        assert_eq!(complete("Read @RE"), (5, vec!["@README.md ".into()]));
        assert_eq!(complete("Read @src/"), (5, vec!["@src/main.rs ".into()]));
        // A tool without a path parameter takes no `@file`.
        assert_eq!(complete("Bash @RE").1, Vec::<String>::new());
    }

    #[test]
    fn path_parameters_are_known_by_name() {
        for yes in ["path", "file_path", "notebook_path", "filePath"] {
            assert!(is_path_param(yes), "{yes}");
        }
        for no in ["command", "pattern", "paths_count", "url"] {
            assert!(!is_path_param(no), "{no}");
        }
    }

    #[test]
    fn the_first_word_completes_to_a_tool_or_a_command() {
        assert_eq!(complete("ba"), (0, vec!["Bash ".to_string()]));
        assert_eq!(
            complete("Rea"),
            (0, vec!["Read".to_string(), "ReadMcpResource".to_string()])
        );
        assert_eq!(complete("/qu"), (0, vec!["/quit ".to_string()]));
        assert_eq!(complete("/s").1, ["/search", "/session"]);
        assert_eq!(complete("Nope").1, Vec::<String>::new());
    }

    #[test]
    fn later_words_complete_to_unused_argument_names() {
        assert_eq!(complete("Read fi"), (5, vec!["file_path=".to_string()]));
        assert_eq!(
            complete("Read file_path=a "),
            (17, vec!["offset=".to_string(), "limit=".to_string()])
        );
        assert_eq!(complete("Read file_path=a").1, Vec::<String>::new());
        assert_eq!(
            complete("Read {\"fi"),
            (6, vec!["\"file_path\": ".to_string()])
        );
        assert_eq!(
            complete("Read {\"file_path\": \"a\", \"l"),
            (24, vec!["\"limit\": ".to_string()])
        );
        assert_eq!(complete("/mode a").1, ["ask", "acceptCalls"]);
        assert_eq!(complete("Unknown x").1, Vec::<String>::new());
    }

    #[test]
    fn an_open_json_object_goes_on_on_the_next_line() {
        assert!(is_complete("Read file_path=a"));
        assert!(is_complete("Read {\"file_path\": \"a\"}"));
        assert!(!is_complete("Read {\"file_path\": \"a\","));
        assert!(!is_complete("Bash {\"command\": \"echo }\""));
        assert!(is_complete("Bash {\"command\": \"echo \\\"}\\\"\"}"));
        assert!(!is_complete("Write {\"content\": [1, 2"));
    }
}
