//! What the console's line editor knows of finch: completion of `/commands`, tool names and a
//! tool's argument names, and when an entry is not finished yet (an open JSON object goes on
//! on the next line). Pure functions of the line, tested beside the code; the editor itself is
//! `rustyline`.

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

/// A tool the console can complete: its name and the names of its arguments.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolNames {
    pub name: String,
    pub args: Vec<String>,
}

/// The editor's helper; the console refreshes `tools` before each line.
#[derive(Default)]
pub struct ConsoleHelper {
    pub tools: Vec<ToolNames>,
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
        } else if word.contains('=') {
            Vec::new()
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
                },
                ToolNames {
                    name: "ReadMcpResource".into(),
                    args: vec![],
                },
                ToolNames {
                    name: "Bash".into(),
                    args: vec!["command".into()],
                },
            ],
        }
    }

    fn complete(line: &str) -> (usize, Vec<String>) {
        helper().candidates(line, line.len())
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
