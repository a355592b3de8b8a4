//! Skills (SPEC §1): a directory holding a `SKILL.md` whose YAML front matter names the skill
//! and says what it is for. They are found in four places; when two share a name, the first of
//! this order wins and the others are shadowed:
//!
//! 1. project   — `<cwd>/.finch/skills/<name>/SKILL.md`
//! 2. personal  — `<agent>/skills/<name>/SKILL.md`
//! 3. global    — `<runtime>/skills/<name>/SKILL.md`
//! 4. mini tool — `<ext>/skills/<name>/SKILL.md` of every enabled mini tool, personal tier before
//!    global tier, then by id
//!
//! The nearer a skill is to the work, the more specific it is, so it wins; a mini tool's bundled
//! skill is a default that the user can override by writing one of the same name. A skill's name
//! is its front matter `name`, else its directory name. Only the simple `key: value` front matter
//! is read (plain, quoted and block scalars), by hand. Nothing here prints.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::homes::{Homes, Tier};
use crate::minitool::enabled::EnabledState;
use crate::minitool::tier;

/// The file that makes a directory a skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// Where a skill comes from; the order of the variants is the precedence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Project,
    Personal,
    Global,
    MiniTool { id: String, tier: Tier },
}

impl Source {
    /// `project`, `personal`, `global` or `minitool`.
    pub fn kind(&self) -> &'static str {
        match self {
            Source::Project => "project",
            Source::Personal => "personal",
            Source::Global => "global",
            Source::MiniTool { .. } => "minitool",
        }
    }

    /// The kind, with the mini tool's id: `minitool:<id>`.
    pub fn label(&self) -> String {
        match self {
            Source::MiniTool { id, .. } => format!("minitool:{id}"),
            other => other.kind().to_string(),
        }
    }

    fn precedence(&self, other: &Source) -> Ordering {
        let rank = |s: &Source| match s {
            Source::Project => 0,
            Source::Personal => 1,
            Source::Global => 2,
            Source::MiniTool {
                tier: Tier::Personal,
                ..
            } => 3,
            Source::MiniTool {
                tier: Tier::Global, ..
            } => 4,
        };
        let id = |s: &Source| match s {
            Source::MiniTool { id, .. } => id.clone(),
            _ => String::new(),
        };
        rank(self)
            .cmp(&rank(other))
            .then_with(|| id(self).cmp(&id(other)))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Skill {
    pub name: String,
    pub description: Option<String>,
    pub source: Source,
    /// The `SKILL.md` file.
    pub path: PathBuf,
    /// The source of the skill of the same name that wins over this one.
    pub shadowed_by: Option<Source>,
}

impl Skill {
    pub fn to_json(&self) -> Value {
        let minitool = match &self.source {
            Source::MiniTool { id, tier } => json!({"id": id, "tier": tier.name()}),
            _ => Value::Null,
        };
        json!({
            "name": self.name,
            "description": self.description,
            "source": self.source.kind(),
            "minitool": minitool,
            "path": self.path,
            "active": self.shadowed_by.is_none(),
            "shadowedBy": self.shadowed_by.as_ref().map(Source::label),
        })
    }
}

/// Every skill of every source, sorted by name and then precedence, with the losers of a name
/// clash marked. Unreadable places are skipped with a warning.
pub fn discover(homes: &Homes, cwd: &Path) -> (Vec<Skill>, Vec<String>) {
    let mut warnings = Vec::new();
    let mut skills = Vec::new();
    let roots = [
        (Source::Project, cwd.join(".finch").join("skills")),
        (Source::Personal, homes.agent.join("skills")),
        (Source::Global, homes.runtime.join("skills")),
    ];
    for (source, dir) in roots {
        scan_dir(&dir, &source, &mut skills, &mut warnings);
    }
    match EnabledState::load(&homes.extensions_json()) {
        Ok(state) => {
            for t in [Tier::Personal, Tier::Global] {
                let dir = homes.tier_dir(t);
                let entries = match tier::scan(&dir) {
                    Ok(e) => e,
                    Err(e) => {
                        warnings.push(format!("cannot read {}: {e}", dir.display()));
                        continue;
                    }
                };
                for entry in entries {
                    if entry.manifest.is_err() || !state.is_enabled(&entry.dir_name) {
                        continue;
                    }
                    let source = Source::MiniTool {
                        id: entry.dir_name.clone(),
                        tier: t,
                    };
                    scan_dir(
                        &entry.path.join("skills"),
                        &source,
                        &mut skills,
                        &mut warnings,
                    );
                }
            }
        }
        Err(e) => warnings.push(format!("{e}; skills of mini tools are left out")),
    }
    skills.sort_by(|a, b| {
        a.name
            .cmp(&b.name)
            .then_with(|| a.source.precedence(&b.source))
    });
    let mut winner: Option<(String, Source)> = None;
    for skill in &mut skills {
        match &winner {
            Some((name, source)) if *name == skill.name => {
                skill.shadowed_by = Some(source.clone());
            }
            _ => winner = Some((skill.name.clone(), skill.source.clone())),
        }
    }
    (skills, warnings)
}

/// The skill that wins for `name`.
pub fn find<'a>(skills: &'a [Skill], name: &str) -> Option<&'a Skill> {
    skills
        .iter()
        .find(|s| s.name == name && s.shadowed_by.is_none())
}

/// Reads the skills of one `skills/` directory: each subdirectory with a `SKILL.md`.
fn scan_dir(dir: &Path, source: &Source, skills: &mut Vec<Skill>, warnings: &mut Vec<String>) {
    let read = match std::fs::read_dir(dir) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => return,
        Err(e) => {
            warnings.push(format!("cannot read {}: {e}", dir.display()));
            return;
        }
    };
    let mut found: Vec<PathBuf> = read
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path().join(SKILL_FILE))
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    for path in found {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                warnings.push(format!("cannot read {}: {e}", path.display()));
                continue;
            }
        };
        let front = FrontMatter::parse(&text);
        let dir_name = path
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        skills.push(Skill {
            name: front
                .get("name")
                .filter(|n| !n.is_empty())
                .unwrap_or(dir_name),
            description: front.get("description").filter(|d| !d.is_empty()),
            source: source.clone(),
            path,
            shadowed_by: None,
        });
    }
}

/// The top-level `key: value` pairs of a Markdown file's YAML front matter.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrontMatter {
    pairs: Vec<(String, String)>,
}

impl FrontMatter {
    /// Reads the block between a first line `---` and the next `---` (or `...`). A file without
    /// one, or with one that never closes, has no front matter.
    pub fn parse(text: &str) -> FrontMatter {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut lines = text.lines();
        if lines.next().map(str::trim_end) != Some("---") {
            return FrontMatter::default();
        }
        let mut block = Vec::new();
        let mut closed = false;
        for line in lines {
            if matches!(line.trim_end(), "---" | "...") {
                closed = true;
                break;
            }
            block.push(line);
        }
        if !closed {
            return FrontMatter::default();
        }
        FrontMatter {
            pairs: parse_pairs(&block),
        }
    }

    /// The value of `key`, the last one when it occurs twice.
    pub fn get(&self, key: &str) -> Option<String> {
        self.pairs
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    }
}

/// The Markdown after the front matter (the instructions a skill gives), found by the rule of
/// `FrontMatter::parse`; all of `text` when it has no front matter.
pub fn body(text: &str) -> &str {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return text;
    }
    let mut at = text.find('\n').map_or(text.len(), |i| i + 1);
    for line in lines {
        at += line.len();
        if matches!(line.trim_end(), "---" | "...") {
            return text[at..].trim_start_matches(['\n', '\r']);
        }
    }
    text
}

fn parse_pairs(block: &[&str]) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    let mut i = 0;
    while i < block.len() {
        let line = block[i];
        i += 1;
        if line.starts_with([' ', '\t', '#']) || line.trim().is_empty() {
            continue;
        }
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim().trim_matches(['"', '\'']).to_string();
        let rest = rest.trim();
        // The lines indented under this key: a block scalar's body or a plain scalar's
        // continuation.
        let start = i;
        while i < block.len() && (block[i].starts_with([' ', '\t']) || block[i].trim().is_empty()) {
            i += 1;
        }
        let more = &block[start..i];
        let value = if let Some(indicator) = rest.strip_prefix(['|', '>']) {
            let literal = rest.starts_with('|');
            if !indicator
                .trim()
                .chars()
                .all(|c| matches!(c, '+' | '-' | '0'..='9'))
            {
                continue;
            }
            block_scalar(more, literal)
        } else if let Some(body) = rest.strip_prefix('"') {
            double_quoted(body)
        } else if let Some(body) = rest.strip_prefix('\'') {
            single_quoted(body)
        } else if rest.is_empty() {
            // A nested mapping or list: not a simple value.
            continue;
        } else {
            let plain = strip_comment(rest);
            let mut words = vec![plain.to_string()];
            words.extend(
                more.iter()
                    .map(|l| strip_comment(l.trim()).to_string())
                    .filter(|l| !l.is_empty()),
            );
            words.join(" ")
        };
        pairs.push((key, value));
    }
    pairs
}

/// A plain scalar without its ` # comment`.
fn strip_comment(text: &str) -> &str {
    match text.find(" #") {
        Some(at) => text[..at].trim_end(),
        None if text.starts_with('#') => "",
        None => text,
    }
}

/// `|` keeps line breaks, `>` folds lines into spaces (blank lines stay breaks).
fn block_scalar(lines: &[&str], literal: bool) -> String {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let body: Vec<&str> = lines
        .iter()
        .map(|l| {
            if l.trim().is_empty() {
                ""
            } else {
                &l[indent..]
            }
        })
        .collect();
    let text = if literal {
        body.join("\n")
    } else {
        let mut out = String::new();
        for line in body {
            if line.is_empty() {
                out.push('\n');
            } else {
                if !out.is_empty() && !out.ends_with('\n') {
                    out.push(' ');
                }
                out.push_str(line);
            }
        }
        out
    };
    text.trim_end().to_string()
}

/// The body of a `"…"` value (after the opening quote), with its escapes; text after the closing
/// quote is ignored.
fn double_quoted(body: &str) -> String {
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => break,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('0') => out.push('\0'),
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        Some(ch) => out.push(ch),
                        None => {
                            out.push_str("\\u");
                            out.push_str(&hex);
                        }
                    }
                }
                Some(other) => out.push(other),
                None => out.push('\\'),
            },
            other => out.push(other),
        }
    }
    out
}

/// The body of a `'…'` value (after the opening quote): `''` is a quote.
fn single_quoted(body: &str) -> String {
    let mut out = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\'' {
            if chars.peek() == Some(&'\'') {
                chars.next();
                out.push('\'');
            } else {
                break;
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_is_what_follows_the_front_matter() {
        for (text, want) in [
            ("---\nname: a\n---\n\n# Do it\n", "# Do it\n"),
            ("\u{feff}---\r\nname: a\r\n...\r\nSteps\r\n", "Steps\r\n"),
            ("# No front matter\n", "# No front matter\n"),
            ("---\nname: never closed\n", "---\nname: never closed\n"),
            ("---\n---\n", ""),
        ] {
            assert_eq!(body(text), want, "{text:?}");
        }
    }

    fn fm(text: &str) -> (Option<String>, Option<String>) {
        let f = FrontMatter::parse(text);
        (f.get("name"), f.get("description"))
    }

    fn some(name: &str, description: &str) -> (Option<String>, Option<String>) {
        (Some(name.into()), Some(description.into()))
    }

    #[test]
    fn front_matter_forms() {
        let cases = [
            (
                "---\nname: pdf\ndescription: Fill PDF forms\n---\n# Body",
                some("pdf", "Fill PDF forms"),
            ),
            (
                "---\nname: \"quoted: yes\"\ndescription: \"say \\\"hi\\\"\\n\" # c\n---\n",
                some("quoted: yes", "say \"hi\"\n"),
            ),
            (
                "---\nname: 'it''s'\ndescription: plain # a comment\n---\n",
                some("it's", "plain"),
            ),
            (
                "\u{feff}---\r\nname: crlf\r\ndescription: windows\r\n---\r\n",
                some("crlf", "windows"),
            ),
            (
                "---\nname: folded\ndescription: >\n  one\n  two\n\n  three\nlicense: MIT\n---\n",
                some("folded", "one two\nthree"),
            ),
            (
                "---\nname: literal\ndescription: |-\n  line one\n    indented\n---\n",
                some("literal", "line one\n  indented"),
            ),
            (
                "---\nname: plain-multi\ndescription: starts here\n  and goes on\n---\n",
                some("plain-multi", "starts here and goes on"),
            ),
            (
                "---\nname: nested\nmetadata:\n  description: not top level\n---\n",
                (Some("nested".into()), None),
            ),
            (
                "---\nname: no-description\n---\n",
                (Some("no-description".into()), None),
            ),
            ("# No front matter\nname: x\n", (None, None)),
            ("---\nname: never closed\n", (None, None)),
        ];
        for (text, want) in cases {
            assert_eq!(fm(text), want, "{text:?}");
        }
    }

    #[test]
    fn precedence_order() {
        let mt = |id: &str, tier| Source::MiniTool {
            id: id.into(),
            tier,
        };
        let mut sources = [
            mt("b", Tier::Global),
            mt("z", Tier::Personal),
            Source::Global,
            mt("a", Tier::Personal),
            Source::Project,
            Source::Personal,
        ];
        sources.sort_by(|a, b| a.precedence(b));
        let labels: Vec<String> = sources.iter().map(Source::label).collect();
        assert_eq!(
            labels,
            [
                "project",
                "personal",
                "global",
                "minitool:a",
                "minitool:z",
                "minitool:b"
            ]
        );
    }
}
