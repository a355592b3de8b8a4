//! The walk of a parsed command: which node kinds may appear, what each simple command's words
//! are after quote removal, which redirections leave it read-only, and what nested scripts,
//! substitutions and wrappers run. It builds the `Classification`.

use std::cell::RefCell;

use tree_sitter::{Node, Parser, Tree};

use super::damage::*;
use super::programs::*;
use super::words::*;
use super::wrappers::*;

/// How deep `bash -lc '…'`, `sh -c '…'` and `eval '…'` scripts are followed. Deeper nesting is
/// treated as destructive: nobody writes it by accident.
pub(super) const MAX_DEPTH: usize = 4;

/// What the classifier found out about one command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classification {
    /// Every simple command only reads (§8.5): the fast lane may run it in `acceptCalls` mode.
    pub read_only: bool,
    /// It deletes, overwrites or formats things, or runs a downloaded script: always a card,
    /// shown as high risk, and no allow rule spares it.
    pub destructive: bool,
    /// The command is a plain list of simple commands with literal words and no output to
    /// files, so an allow rule keyed on a command prefix may cover it segment by segment.
    pub prefix_coverable: bool,
    /// tree-sitter parsed the whole command without errors.
    pub parsed: bool,
    /// The simple commands it runs, in order, including those inside substitutions, behind
    /// wrappers (`sudo rm x` gives `sudo rm x` and `rm x`) and in `bash -c` scripts. A literal
    /// `bash -lc '<script>'` is replaced by the segments of its script.
    pub segments: Vec<Segment>,
    /// Why it is read-only, or the first reason it is not.
    pub reason: String,
    /// Why it is destructive.
    pub destructive_reason: Option<String>,
}

/// One simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The source text of the command (without redirections attached around it).
    pub text: String,
    /// Its words after quote removal; a word with an expansion keeps its source text.
    pub words: Vec<String>,
    /// The first word.
    pub program: String,
    /// This command alone only reads.
    pub read_only: bool,
    /// Why (not).
    pub reason: String,
    /// The words that may name files it reads, as written (`~` unexpanded); for `cd`, the
    /// directory it changes to (`~` when none). The gateway checks them against the working
    /// directory and the trusted directories (see `path_words`).
    pub paths: Vec<String>,
}

pub(super) fn classify_at(command: &str, depth: usize) -> Classification {
    let mut walk = Walk::new(command, depth);
    if depth > MAX_DEPTH {
        walk.structure("shell scripts nested too deep to check");
        walk.set_destructive("shell scripts nested too deep to check".into());
        walk.parsed = false;
        return walk.finish();
    }
    if command.trim().is_empty() {
        walk.structure("empty command");
        return walk.finish();
    }
    if let Some(reason) = continuation_inside_word(command) {
        // tree-sitter splits `-r\<newline>f` into two words where bash joins them; classify
        // the joined text for the destructive flag and refuse read-only.
        walk.structure(reason);
        let joined = command.replace("\\\n", "");
        let inner = classify_at(&joined, depth + 1);
        if let Some(reason) = inner.destructive_reason {
            walk.set_destructive(reason);
        }
    }
    let Some(tree) = parse(command) else {
        walk.structure("the command cannot be parsed");
        walk.parsed = false;
        return walk.finish();
    };
    let root = tree.root_node();
    if root.has_error() {
        walk.structure("cannot parse the command as bash");
        walk.parsed = false;
    }
    walk.statements(root);
    if !walk.parsed {
        walk.crude_damage();
    }
    walk.finish()
}

thread_local! {
    // A parser is cheap to keep and costly to build; one per thread keeps `classify` pure.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

fn parse(command: &str) -> Option<Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .ok()?;
            *slot = Some(parser);
        }
        slot.as_mut()?.parse(command, None)
    })
}

/// A backslash-newline glued to the word before it: bash joins the two lines into one word,
/// tree-sitter does not.
fn continuation_inside_word(command: &str) -> Option<&'static str> {
    let bytes = command.as_bytes();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'\\' {
            if bytes[i + 1] == b'\n' && i > 0 && !matches!(bytes[i - 1], b' ' | b'\t' | b'\n') {
                return Some("a line continuation inside a word");
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    None
}

/// A word of a command after quote removal.
#[derive(Debug, Clone)]
struct Word {
    /// The value, or the source text where it holds an expansion.
    text: String,
    /// No expansion, substitution or brace expansion: `text` is what the program receives.
    literal: bool,
    /// Unquoted `{a,b}` or `{1..3}`: bash turns it into several words.
    brace: bool,
    /// Why it is not literal.
    problem: Option<String>,
    /// Not literal, but only through what the kernel wall contains as an argument: a plain
    /// variable (`$X`, `${X}`: the fast lane's environment is minimal) or a command
    /// substitution whose own commands are classified as segments. Such a word may stand as an
    /// argument of a read-only command; it never makes a command prefix-coverable.
    tolerated: bool,
}

impl Word {
    fn known(text: String) -> Word {
        Word {
            text,
            literal: true,
            brace: false,
            problem: None,
            tolerated: false,
        }
    }

    fn unknown(text: &str, problem: String) -> Word {
        Word {
            text: text.to_string(),
            literal: false,
            brace: false,
            problem: Some(problem),
            tolerated: false,
        }
    }

    /// `unknown`, but tolerated as an argument (see `tolerated`).
    fn tolerated(text: &str, problem: String) -> Word {
        Word {
            tolerated: true,
            ..Word::unknown(text, problem)
        }
    }

    /// An argument the wall contains: literal, or only tolerated expansions.
    fn containable(&self) -> bool {
        self.literal || (self.tolerated && !self.brace)
    }
}

/// `$NAME`, `$1`, `$?`, or `${NAME}`: a variable read as it is, with no operator that assigns,
/// runs or re-evaluates anything (`${X:=v}`, `${X@P}`, `${!X}` are not).
fn plain_variable(raw: &str) -> bool {
    let name = match raw.strip_prefix("${").and_then(|r| r.strip_suffix('}')) {
        Some(inner) => inner,
        None => match raw.strip_prefix('$') {
            Some(rest) => rest,
            None => return false,
        },
    };
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {
            chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        Some(c) if c.is_ascii_digit() => name.len() == 1,
        Some('?' | '#' | '$') => name.len() == 1,
        _ => false,
    }
}

struct Walk<'s> {
    src: &'s str,
    depth: usize,
    not_read_only: Option<String>,
    not_coverable: Option<String>,
    destructive: Option<String>,
    segments: Vec<Segment>,
    parsed: bool,
}

impl<'s> Walk<'s> {
    fn new(src: &'s str, depth: usize) -> Walk<'s> {
        Walk {
            src,
            depth,
            not_read_only: None,
            not_coverable: None,
            destructive: None,
            segments: Vec::new(),
            parsed: true,
        }
    }

    fn finish(self) -> Classification {
        let read_only = self.not_read_only.is_none() && !self.segments.is_empty();
        let reason = match (&self.not_read_only, read_only) {
            (Some(r), _) => r.clone(),
            (None, true) => {
                let mut programs: Vec<&str> = Vec::new();
                for s in &self.segments {
                    if !programs.contains(&s.program.as_str()) {
                        programs.push(&s.program);
                    }
                }
                let verb = if programs.len() == 1 { "reads" } else { "read" };
                format!("read-only: {} only {verb}", programs.join(", "))
            }
            (None, false) => "no command to run".to_string(),
        };
        Classification {
            read_only,
            destructive: self.destructive.is_some(),
            prefix_coverable: self.not_coverable.is_none() && self.parsed,
            parsed: self.parsed,
            segments: self.segments,
            reason,
            destructive_reason: self.destructive,
        }
    }

    fn text(&self, node: Node) -> &'s str {
        self.src.get(node.byte_range()).unwrap_or("")
    }

    /// Not read-only because of the program or its arguments; an allow rule may still cover it.
    fn program_problem(&mut self, reason: String) {
        if self.not_read_only.is_none() {
            self.not_read_only = Some(reason);
        }
    }

    /// Read-only may still hold, but no command-prefix rule covers it (an argument that is an
    /// expansion: the rule's words cannot be matched against it).
    fn uncoverable(&mut self, reason: String) {
        if self.not_coverable.is_none() {
            self.not_coverable = Some(reason);
        }
    }

    /// Not read-only because of the shape of the command: no prefix rule covers it either.
    fn structure(&mut self, reason: impl Into<String>) {
        let reason = reason.into();
        if self.not_coverable.is_none() {
            self.not_coverable = Some(reason.clone());
        }
        if self.not_read_only.is_none() {
            self.not_read_only = Some(reason);
        }
    }

    fn set_destructive(&mut self, reason: String) {
        if self.destructive.is_none() {
            self.destructive = Some(reason);
        }
    }

    /// For text tree-sitter could not parse: split it roughly into commands and words
    /// (brace-expanded, quotes dropped) and look for damage there too. Never makes anything
    /// read-only; it only adds the destructive flag the broken tree may have hidden.
    fn crude_damage(&mut self) {
        let mut scratch = Walk::new(self.src, self.depth + 1);
        for chunk in self.src.split([';', '&', '|', '\n', '(', ')', '`']) {
            let words: Vec<String> = chunk
                .split_whitespace()
                .map(|w| w.replace(['\'', '"', '\\', '$'], ""))
                .flat_map(|w| expand_braces(&w))
                .collect();
            if !words.is_empty() {
                scratch.damage(&words, 0);
            }
        }
        if let Some(reason) = scratch.destructive {
            self.set_destructive(reason);
        }
    }

    /// The children of a program or list: statements joined by `;`, newlines, `&&`, `||`.
    fn statements(&mut self, node: Node) {
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.is_named() {
                self.statement(child);
            } else {
                self.operator(child);
            }
        }
    }

    fn operator(&mut self, token: Node) {
        match token.kind() {
            ";" | "&&" | "||" | "|" => {}
            "&" => self.structure("runs in the background (`&`)"),
            "|&" => self.structure("`|&` (only `&&`, `||`, `;`, `|` and newlines join commands)"),
            other => self.structure(format!("unexpected `{other}`")),
        }
    }

    /// Walks one statement; returns the program it runs (after wrappers) when it is one command.
    fn statement(&mut self, node: Node) -> Option<String> {
        if node.is_missing() {
            self.structure(format!("missing `{}`", node.kind()));
            self.parsed = false;
            return None;
        }
        let reason = match node.kind() {
            "command" => return self.command(node),
            // `[ … ]` is the `test` builtin with a closing bracket (`[[ … ]]` is not: it
            // evaluates arithmetic and subscripts): classified as `test …`.
            "test_command" if single_bracket_test(self.text(node)).is_some() => {
                let inner = single_bracket_test(self.text(node)).unwrap_or_default();
                let inner = classify_at(&format!("test {inner}"), self.depth + 1);
                if !inner.parsed {
                    self.parsed = false;
                }
                if let Some(reason) = inner.destructive_reason {
                    self.set_destructive(reason);
                }
                if !inner.read_only {
                    self.structure(format!("in `[ … ]`: {}", inner.reason));
                }
                self.segments.extend(inner.segments);
                return Some("[".to_string());
            }
            "redirected_statement" => return self.redirected(node),
            "pipeline" => {
                self.pipeline(node);
                return None;
            }
            "list" => {
                self.statements(node);
                return None;
            }
            "comment" => return None,
            "subshell" => "a subshell `( … )`".to_string(),
            "compound_statement" => "a group `{ …; }`".to_string(),
            "function_definition" => "a function definition".to_string(),
            "for_statement" | "c_style_for_statement" | "while_statement" => "a loop".to_string(),
            "if_statement" | "case_statement" | "test_command" | "negated_command" => {
                "a conditional".to_string()
            }
            "variable_assignment" | "variable_assignments" => {
                format!("a variable assignment `{}`", self.text(node))
            }
            "declaration_command" | "unset_command" => {
                format!("`{}` changes shell variables", first_word(self.text(node)))
            }
            "command_substitution" => {
                format!("command substitution `{}`", self.text(node))
            }
            "process_substitution" => {
                format!("process substitution `{}`", self.text(node))
            }
            "ERROR" => {
                self.parsed = false;
                format!("cannot parse `{}`", self.text(node))
            }
            other => format!("`{other}` is not a plain command"),
        };
        self.structure(reason);
        if matches!(
            node.kind(),
            "declaration_command" | "unset_command" | "test_command" | "variable_assignment"
        ) {
            // `declare 'a[$(rm -rf x)]'`, `[[ 'a[$(…)]' -eq 1 ]]`: bash evaluates array
            // subscripts inside quoted words too, so the quotes hide nothing here.
            let text = self.text(node).to_string();
            for script in embedded_scripts(&text) {
                self.script_for_damage(&script);
            }
        }
        // Keep walking: segments and destructive commands hide inside too.
        self.nested(node);
        None
    }

    /// Walks every statement below a node this module does not take apart itself.
    fn nested(&mut self, node: Node) {
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "command"
                | "redirected_statement"
                | "pipeline"
                | "list"
                | "subshell"
                | "compound_statement"
                | "function_definition"
                | "for_statement"
                | "c_style_for_statement"
                | "while_statement"
                | "if_statement"
                | "case_statement"
                | "negated_command"
                | "command_substitution"
                | "process_substitution"
                | "declaration_command" => {
                    self.statement(child);
                }
                _ => self.nested(child),
            }
        }
    }

    fn pipeline(&mut self, node: Node) {
        let mut stages: Vec<Option<String>> = Vec::new();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.is_named() {
                stages.push(self.statement(child));
            } else {
                self.operator(child);
            }
        }
        let downloader = stages
            .iter()
            .position(|p| p.as_deref().is_some_and(is_downloader));
        if let Some(i) = downloader
            && let Some(sink) = stages[i + 1..]
                .iter()
                .flatten()
                .find(|p| is_script_runner(p))
        {
            let source = stages[i].clone().unwrap_or_default();
            self.set_destructive(format!("runs a downloaded script (`{source} … | {sink}`)"));
        }
    }

    fn redirected(&mut self, node: Node) -> Option<String> {
        let mut program = None;
        let mut outputs = Vec::new();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "file_redirect" => outputs.extend(self.file_redirect(child)),
                "heredoc_redirect" => self.heredoc(child, program.as_deref()),
                "herestring_redirect" => self.herestring(child, program.as_deref()),
                _ if child.is_named() => program = self.statement(child),
                _ => self.operator(child),
            }
        }
        for (op, target) in outputs {
            if let Some(reason) = crate::host::policy::destructive::emptying_redirect(
                program.as_deref(),
                &op,
                &target,
            ) {
                self.set_destructive(reason);
            }
        }
        program
    }

    /// Checks one redirection; returns an output one's operator and literal target.
    fn file_redirect(&mut self, node: Node) -> Option<(String, String)> {
        let mut fd: Option<&str> = None;
        let mut op = "";
        let mut target: Option<Word> = None;
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.kind() == "file_descriptor" {
                fd = Some(self.text(child));
            } else if !child.is_named() {
                op = child.kind();
            } else {
                target = Some(self.word(child));
            }
        }
        let text = self.text(node);
        let Some(target) = target else {
            self.structure(format!("redirection `{text}`"));
            return None;
        };
        if let Some(problem) = &target.problem {
            self.structure(format!("{problem} in redirection `{text}`"));
            return None;
        }
        let std_fd = matches!(fd, None | Some("1") | Some("2"));
        let safe = match op {
            // `2>&1`, `1>&2`, `>&2`: one standard stream into the other.
            ">&" => std_fd && matches!(target.text.as_str(), "1" | "2"),
            // Output thrown away.
            ">" | ">>" | ">|" | "&>" | "&>>" => std_fd && target.text == "/dev/null",
            // Reading a file is reading.
            "<" => matches!(fd, None | Some("0")),
            _ => false,
        };
        if !safe {
            let reason = if op.starts_with('<') {
                format!("redirection `{text}`")
            } else {
                format!("output redirection `{text}` writes a file")
            };
            self.structure(reason);
        }
        (std_fd && op.starts_with(['>', '&'])).then(|| (op.to_string(), target.text))
    }

    fn heredoc(&mut self, node: Node, program: Option<&str>) {
        // `<<EOF` (no quote in the delimiter) expands its body as a double-quoted string
        // would: backticks, `$(…)`, `${…}`, `$((…))` and `$name` all run or read variables.
        let mut quoted_delimiter = false;
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.kind() == "heredoc_start" {
                quoted_delimiter = self.text(child).contains(['\'', '"', '\\']);
            }
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "<<" | "<<-" | "heredoc_start" | "heredoc_end" => {}
                "heredoc_body" if !quoted_delimiter && expands(self.text(child)) => {
                    let body = self.text(child).to_string();
                    self.structure(format!(
                        "an expansion inside the unquoted here-document `{}`",
                        one_line_short(&body)
                    ));
                    for script in embedded_scripts(&body) {
                        self.script_for_damage(&script);
                    }
                    self.nested_word_parts(child);
                    if program.is_some_and(is_script_runner) {
                        self.script_for_damage(&body);
                    }
                }
                "heredoc_body" => {
                    let mut inner = child.walk();
                    for part in child.named_children(&mut inner) {
                        if part.kind() != "heredoc_content" {
                            self.structure(format!(
                                "expansion `{}` inside a here-document",
                                self.text(part)
                            ));
                            self.nested_word_parts(part);
                        }
                    }
                    if program.is_some_and(is_script_runner) {
                        // A here-document feeding a shell is a script: look for damage in it.
                        let body = self.text(child).to_string();
                        self.script_for_damage(&body);
                    }
                }
                // `cat <<EOF | grep x`: the rest of the line hangs below the redirect.
                _ if child.is_named() => {
                    self.statement(child);
                }
                _ => self.operator(child),
            }
        }
    }

    fn herestring(&mut self, node: Node, program: Option<&str>) {
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            let word = self.word(child);
            if let Some(problem) = word.problem {
                self.structure(format!("{problem} in a here-string"));
            } else if program.is_some_and(is_script_runner) {
                self.script_for_damage(&word.text);
            }
        }
    }

    /// Substitutions inside words: walked for their segments and damage.
    fn nested_word_parts(&mut self, node: Node) {
        match node.kind() {
            "command_substitution" | "process_substitution" => {
                self.nested(node);
            }
            _ => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    self.nested_word_parts(child);
                }
            }
        }
    }

    /// The value of one argument-like node.
    fn word(&mut self, node: Node) -> Word {
        let raw = self.text(node);
        match node.kind() {
            "word" => {
                let mut w = Word::known(unescape_unquoted(raw));
                if has_brace_expansion(raw) {
                    w.literal = false;
                    w.brace = true;
                    w.problem = Some(format!("brace expansion `{raw}`"));
                }
                w
            }
            "number" => Word::known(raw.to_string()),
            "raw_string" => Word::known(strip_quotes(raw, '\'').to_string()),
            "string" => self.double_quoted(node),
            "concatenation" => {
                let mut text = String::new();
                let mut shape = String::new();
                let mut literal = true;
                let mut tolerated = true;
                let mut problem = None;
                let mut cursor = node.walk();
                for child in node.children(&mut cursor) {
                    let part = self.word(child);
                    text.push_str(&part.text);
                    if child.kind() == "word" {
                        shape.push_str(self.text(child));
                    } else {
                        shape.push('_');
                    }
                    if !part.literal {
                        literal = false;
                        tolerated &= part.containable();
                        if problem.is_none() {
                            problem = part.problem;
                        }
                    }
                }
                let brace = has_brace_expansion(&shape);
                if brace {
                    literal = false;
                    problem.get_or_insert_with(|| format!("brace expansion `{raw}`"));
                }
                Word {
                    text,
                    literal,
                    brace,
                    problem,
                    tolerated: tolerated && !literal,
                }
            }
            "simple_expansion" | "expansion" => {
                self.nested_word_parts(node);
                let problem = format!("variable expansion `{raw}`");
                if plain_variable(raw) {
                    Word::tolerated(raw, problem)
                } else {
                    Word::unknown(raw, problem)
                }
            }
            "command_substitution" => {
                self.nested(node);
                Word::tolerated(raw, format!("command substitution `{raw}`"))
            }
            "process_substitution" => {
                self.nested(node);
                Word::unknown(raw, format!("process substitution `{raw}`"))
            }
            "arithmetic_expansion" => {
                self.nested_word_parts(node);
                Word::unknown(raw, format!("arithmetic expansion `{raw}`"))
            }
            "brace_expression" => {
                let mut w = Word::unknown(raw, format!("brace expansion `{raw}`"));
                w.brace = true;
                w
            }
            "ansi_c_string" => {
                Word::unknown(&decode_ansi_c(raw), format!("ANSI-C quoting `{raw}`"))
            }
            "translated_string" => Word::unknown(
                strip_quotes(raw.trim_start_matches('$'), '"'),
                format!("locale quoting `{raw}`"),
            ),
            other => {
                self.nested_word_parts(node);
                Word::unknown(raw, format!("`{other}` `{raw}`"))
            }
        }
    }

    fn double_quoted(&mut self, node: Node) -> Word {
        let mut text = String::new();
        let mut problem = None;
        let mut tolerated = true;
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "\"" => {}
                "string_content" => text.push_str(&unescape_double_quoted(self.text(child))),
                _ => {
                    let part = self.word(child);
                    text.push_str(&part.text);
                    tolerated &= part.containable() && !part.literal;
                    if problem.is_none() {
                        problem = part
                            .problem
                            .or_else(|| Some(format!("`{}` in a string", child.kind())));
                    }
                }
            }
        }
        Word {
            text,
            literal: problem.is_none(),
            brace: false,
            tolerated: tolerated && problem.is_some(),
            problem,
        }
    }

    /// One simple command: words, prefix assignments, redirections.
    fn command(&mut self, node: Node) -> Option<String> {
        // Segments found from here until this command's own are its substitutions.
        let first_nested = self.segments.len();
        let mut words: Vec<Word> = Vec::new();
        let mut herestrings = Vec::new();
        let mut outputs = Vec::new();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "variable_assignment" => {
                    self.structure(format!(
                        "environment assignment `{}` before the command",
                        self.text(child)
                    ));
                    self.nested_word_parts(child);
                }
                "command_name" => {
                    let Some(name) = child.named_child(0) else {
                        continue;
                    };
                    let word = self.word(name);
                    // A command word that is not a plain name after quote removal hides the
                    // program from finch: it could be `rm` (`$'\x72m'`, `/bin/r[m]`, `$X`).
                    // Nothing can say what runs, so it counts as destructive.
                    let problem = word.problem.clone().or_else(|| {
                        (has_glob(self.text(name)) && word.text != "[")
                            .then(|| format!("the file name pattern `{}`", self.text(name)))
                    });
                    if let Some(problem) = problem {
                        let shown = self.text(child);
                        self.structure(format!("{problem} in command position (`{shown}`)"));
                        self.set_destructive(format!(
                            "the command word `{shown}` is not a plain name ({problem}): finch \
                             cannot tell which program runs"
                        ));
                    }
                    words.push(word);
                }
                "file_redirect" => outputs.extend(self.file_redirect(child)),
                "herestring_redirect" => herestrings.push(child),
                _ if child.is_named() => {
                    let word = self.word(child);
                    if let Some(problem) = &word.problem {
                        if word.containable() {
                            self.uncoverable(problem.clone());
                        } else {
                            self.structure(problem.clone());
                        }
                    }
                    words.push(word);
                }
                other => self.structure(format!("unexpected `{other}` in `{}`", self.text(node))),
            }
        }
        let program = words.first().map(|w| w.text.clone());
        for (op, target) in outputs {
            if let Some(reason) = crate::host::policy::destructive::emptying_redirect(
                program.as_deref(),
                &op,
                &target,
            ) {
                self.set_destructive(reason);
            }
        }
        for h in herestrings {
            self.herestring(h, program.as_deref().map(basename));
        }
        let downloads_inside = self.segments[first_nested..]
            .iter()
            .any(|s| is_downloader(basename(&s.program)));
        if words.is_empty() {
            return None;
        }
        let texts: Vec<String> = words.iter().map(|w| w.text.clone()).collect();
        let all_literal = words.iter().all(|w| w.literal);
        // Arguments the wall contains still let the program's own rules decide.
        let readable = words[0].literal && words[1..].iter().all(Word::containable);
        self.late_evaluation(&texts);

        // `bash -lc '<literal script>'` is its script (§8.5).
        if all_literal && texts.len() == 3 && texts[0] == "bash" && texts[1] == "-lc" {
            self.login_shell_script(&texts[2]);
            return Some("bash".to_string());
        }

        let (read_only, reason) = if readable {
            match read_only_program(&texts) {
                Ok(why) => (true, why),
                Err(why) => (false, why),
            }
        } else {
            let why = words
                .iter()
                .find_map(|w| w.problem.clone())
                .unwrap_or_else(|| "an argument finch cannot read".into());
            (false, why)
        };
        if !read_only {
            self.program_problem(reason.clone());
        }
        self.segments.push(Segment {
            text: self.text(node).to_string(),
            words: texts.clone(),
            program: texts[0].clone(),
            read_only,
            reason,
            paths: path_words(&texts),
        });

        // Destructive checks see the words bash would produce from brace expansions.
        let expanded: Vec<String> = if words.iter().any(|w| w.brace) {
            words
                .iter()
                .flat_map(|w| {
                    if w.brace {
                        expand_braces(&w.text)
                    } else {
                        vec![w.text.clone()]
                    }
                })
                .collect()
        } else {
            texts
        };
        let effective = self.damage(&expanded, 0);
        // `bash <(curl …)`, `sh -c "$(wget -O- …)"`: a shell fed by a download.
        if downloads_inside && is_script_runner(&effective) {
            self.set_destructive(format!("runs a downloaded script (`{}`)", self.text(node)));
        }
        Some(effective)
    }

    /// Builtins that evaluate their arguments again after quote removal: `printf -v NAME`,
    /// `read NAME`, `test -v NAME` and friends evaluate an array subscript in NAME
    /// (`printf -v 'a[$(touch x)]' y` runs `touch`), and `printf -v` may rewrite `HOME` or
    /// `PATH` for the rest of the line. None of them is read-only, no command-prefix rule
    /// covers them, and the substitutions inside count for the destructive check.
    fn late_evaluation(&mut self, texts: &[String]) {
        let program = basename(&texts[0]);
        let args = &texts[1..];
        let subscripted = || args.iter().any(|a| a.contains('['));
        let reason = match program {
            "printf" if args.iter().any(|a| a.starts_with("-v")) => {
                Some("`printf -v` assigns a shell variable".to_string())
            }
            "let" => Some("`let` evaluates arithmetic".to_string()),
            "read" | "mapfile" | "readarray" | "getopts" | "wait" | "declare" | "typeset"
            | "local" | "export" | "readonly" | "unset"
                if subscripted() =>
            {
                Some(format!("`{program}` evaluates an array subscript"))
            }
            "test" | "[" if args.iter().any(|a| a == "-v" || a == "-R") => {
                Some(format!("`{program} -v` evaluates an array subscript"))
            }
            _ => None,
        };
        let Some(reason) = reason else { return };
        self.structure(reason);
        for a in args {
            for script in embedded_scripts(a) {
                self.script_for_damage(&script);
            }
        }
    }

    /// The script of `bash -lc`: classified as if typed directly.
    fn login_shell_script(&mut self, script: &str) {
        let inner = classify_at(script, self.depth + 1);
        if !inner.parsed {
            self.parsed = false;
        }
        if let Some(reason) = inner.destructive_reason {
            self.set_destructive(reason);
        }
        if !inner.read_only {
            let reason = format!("in `bash -lc`: {}", inner.reason);
            if inner.prefix_coverable {
                self.program_problem(reason);
            } else {
                self.structure(reason);
            }
        }
        self.segments.extend(inner.segments);
    }

    /// A script run by `sh -c`, `eval`, a here-document fed to a shell…: its segments are
    /// recorded and its damage counts; it is never read-only (the caller already said why).
    fn script_for_damage(&mut self, script: &str) {
        let inner = classify_at(script, self.depth + 1);
        if let Some(reason) = inner.destructive_reason {
            self.set_destructive(reason);
        }
        self.segments.extend(inner.segments);
    }

    /// Looks for destructive commands in `words`, following wrappers. Returns the program that
    /// finally runs (`sudo env rm` → `rm`).
    fn damage(&mut self, words: &[String], level: usize) -> String {
        let program = basename(&words[0]).to_string();
        let scripts = |script: &str| classify_at(script, self.depth + 1).destructive;
        if let Some(reason) = destructive_words(words, &scripts) {
            self.set_destructive(reason);
        }
        if level > MAX_DEPTH {
            return program;
        }
        let mut effective = program.clone();
        for inner in unwrap(words) {
            match inner {
                Inner::Command(inner) if !inner.is_empty() => {
                    let (read_only, reason) = match read_only_program(&inner) {
                        Ok(why) => (true, why),
                        Err(why) => (false, why),
                    };
                    self.segments.push(Segment {
                        text: inner.join(" "),
                        words: inner.clone(),
                        program: inner[0].clone(),
                        read_only,
                        reason,
                        paths: path_words(&inner),
                    });
                    effective = self.damage(&inner, level + 1);
                }
                Inner::Command(_) => {}
                Inner::Script(script) => self.script_for_damage(&script),
            }
        }
        effective
    }
}
