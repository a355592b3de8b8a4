//! Word-level text of the classifier: quote removal, ANSI-C strings, brace expansion, the
//! scripts a text would run if evaluated again, and which words may name files. Pure text
//! functions; nothing here knows a program.

/// Whether here-document text expands anything: a backtick, or `$` followed by a name,
/// a digit, a special parameter or an opening bracket.
pub(super) fn expands(body: &str) -> bool {
    let b = body.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        c == b'`'
            || (c == b'$'
                && b.get(i + 1)
                    .is_some_and(|n| n.is_ascii_alphanumeric() || b"_({[@*#?-$!'\"".contains(n)))
    })
}

/// The scripts of every `$(…)` and `` `…` `` in `text`, quotes ignored: what bash runs when
/// it evaluates the text again (a here-document body, an array subscript). Nested ones are
/// found by classifying each script in turn.
pub(super) fn embedded_scripts(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut scripts = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'`' => {
                let start = i + 1;
                let mut j = start;
                while j < b.len() && b[j] != b'`' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                scripts.push(text.get(start..j.min(b.len())).unwrap_or("").to_string());
                i = j + 1;
            }
            b'$' if b.get(i + 1) == Some(&b'(') && b.get(i + 2) != Some(&b'(') => {
                let start = i + 2;
                let mut depth = 1usize;
                let mut j = start;
                while j < b.len() {
                    match b[j] {
                        b'\\' => j += 1,
                        b'(' => depth += 1,
                        b')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                scripts.push(text.get(start..j.min(b.len())).unwrap_or("").to_string());
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    scripts.retain(|s| !s.trim().is_empty());
    scripts
}

/// An unquoted `*`, `?` or `[…]` in the source text of a word (quotes and backslashes
/// followed as bash reads them).
pub(super) fn has_glob(raw: &str) -> bool {
    let b = raw.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < b.len() {
        match (quote, b[i]) {
            (Some(b'\''), b'\'') | (Some(b'"'), b'"') => quote = None,
            (Some(b'\''), _) => {}
            (_, b'\\') => i += 1,
            (Some(_), _) => {}
            (None, b'\'' | b'"') => quote = Some(b[i]),
            (None, b'*' | b'?') => return true,
            (None, b'[') if b[i + 1..].contains(&b']') => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

/// A text cut to one short line for a reason.
pub(super) fn one_line_short(text: &str) -> String {
    let flat = text.trim().replace('\n', " ⏎ ");
    if flat.chars().count() > 60 {
        let cut: String = flat.chars().take(57).collect();
        format!("{cut}…")
    } else {
        flat
    }
}

/// The words of a simple command that may name a file or directory it reads. Generous on
/// purpose: a word that is no path (`grep`'s pattern aside) resolves inside the working
/// directory and costs nothing, while a missed one would let `cat ~/.ssh/id_rsa` through.
/// Skipped: programs that open no file (`echo`, `printf`, `pwd`, …), the pattern of
/// `grep`/`rg`, the script of `sed`/`awk`, the filter of `jq`, `date`'s format. Options give the
/// value after `=`, or what follows a `/` or `~` inside them (`-f/etc/x`).
pub(super) fn path_words(words: &[String]) -> Vec<String> {
    let program = basename(&words[0]);
    let args = &words[1..];
    match program {
        "echo" | "printf" | "pwd" | "which" | "type" | "true" | "false" | "seq" | "whoami"
        | "id" | "uname" | "groups" | "nproc" | "uptime" | "sleep" | "hostname" | "basename"
        | "dirname" | "ps" | "command" => return Vec::new(),
        "cd" => {
            return match args
                .iter()
                .find(|a| !a.starts_with('-') || a.as_str() == "-")
            {
                // `cd -` goes wherever OLDPWD says: treat it as the root, outside.
                Some(a) if a == "-" => vec!["/".to_string()],
                Some(a) => vec![a.clone()],
                None => vec!["~".to_string()],
            };
        }
        _ => {}
    }
    // The operand that is a pattern or a program, not a file.
    let skips_first_operand = match program {
        "grep" | "egrep" | "fgrep" | "rg" | "sed" => !args.iter().any(|a| {
            matches!(a.as_str(), "-e" | "-f" | "--regexp" | "--file")
                || a.starts_with("--regexp=")
                || a.starts_with("--file=")
                || a.starts_with("--expression")
                || (a.starts_with("-e") && !a.starts_with("--"))
        }),
        "awk" | "gawk" | "mawk" | "nawk" | "jq" | "gojq" | "jaq" | "yq" => true,
        "date" => false,
        _ => false,
    };
    // Options whose value is a pattern, a script or a format, not a file.
    let text_value: &[&str] = match program {
        "grep" | "egrep" | "fgrep" | "rg" => &["-e", "--regexp", "-m", "-A", "-B", "-C"],
        "sed" => &["-e", "--expression"],
        "awk" | "gawk" | "mawk" | "nawk" => &["-F", "-v"],
        _ => &[],
    };
    let mut out = Vec::new();
    let mut first_operand_seen = false;
    let mut options_done = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        if !options_done && a == "--" {
            options_done = true;
            continue;
        }
        if !options_done && a.starts_with('-') && a.len() > 1 {
            if text_value.contains(&a.as_str()) {
                i += 1;
            } else if let Some((_, value)) = a.split_once('=') {
                out.push(value.to_string());
            } else if let Some(at) = a.find(['/', '~']) {
                out.push(a[at..].to_string());
            }
            continue;
        }
        if program == "date" && a.starts_with('+') {
            continue;
        }
        if skips_first_operand && !first_operand_seen {
            first_operand_seen = true;
            continue;
        }
        out.push(a.clone());
    }
    out
}

pub(super) fn first_word(text: &str) -> &str {
    text.split_whitespace().next().unwrap_or("")
}

pub(super) fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

pub(super) fn strip_quotes(raw: &str, quote: char) -> &str {
    raw.strip_prefix(quote)
        .and_then(|r| r.strip_suffix(quote))
        .unwrap_or(raw)
}

/// Quote removal for an unquoted word: a backslash keeps the next character, a
/// backslash-newline disappears.
pub(super) fn unescape_unquoted(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(next) => out.push(next),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Inside double quotes a backslash only escapes `$`, `` ` ``, `"`, `\` and newline.
pub(super) fn unescape_double_quoted(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => out.extend(chars.next()),
                Some('\n') => {
                    chars.next();
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `$'…'` decoded well enough to spot `rm $'-rf'`; the word stays "not literal" anyway.
pub(super) fn decode_ansi_c(raw: &str) -> String {
    let body = raw
        .strip_prefix("$'")
        .and_then(|r| r.strip_suffix('\''))
        .unwrap_or(raw);
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(next) = chars.next() else { break };
        let mut number = |first: Option<char>, radix: u32, max: usize| {
            let mut digits: String = first.into_iter().collect();
            while digits.len() < max {
                match chars.clone().next() {
                    Some(d) if d.is_digit(radix) => {
                        digits.push(d);
                        chars.next();
                    }
                    _ => break,
                }
            }
            u32::from_str_radix(&digits, radix)
                .ok()
                .and_then(char::from_u32)
        };
        let decoded = match next {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'v' => Some('\u{b}'),
            'x' => number(None, 16, 2),
            'u' => number(None, 16, 4),
            'U' => number(None, 16, 8),
            d @ '0'..='7' => number(Some(d), 8, 3),
            'c' => chars.next().map(|c| char::from((c as u8) & 0x1f)),
            other => Some(other),
        };
        out.extend(decoded);
    }
    out
}

/// Unquoted `{a,b}` or `{1..3}` in the shape of a word (quoted parts already blanked out).
pub(super) fn has_brace_expansion(shape: &str) -> bool {
    let bytes = shape.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'{' => {
                let mut depth = 0usize;
                let mut j = i;
                while j < bytes.len() {
                    match bytes[j] {
                        b'\\' => j += 1,
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                let inside = &shape[i + 1..j];
                                if inside.contains(',') || inside.contains("..") {
                                    return true;
                                }
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    false
}

/// Expands `{a,b}` alternatives (and the ends of `{x..y}`) the way bash would, enough for the
/// destructive check: `-{r,f}` → `-r`, `-f`. Capped so a hostile word cannot explode.
pub(super) fn expand_braces(word: &str) -> Vec<String> {
    const CAP: usize = 64;
    let mut done = Vec::new();
    let mut work = vec![word.to_string()];
    while let Some(w) = work.pop() {
        match split_first_brace(&w) {
            Some((prefix, alternatives, suffix))
                if done.len() + work.len() + alternatives.len() <= CAP =>
            {
                // Pushed in reverse so they come out in bash's order.
                for alt in alternatives.iter().rev() {
                    work.push(format!("{prefix}{alt}{suffix}"));
                }
            }
            _ => done.push(w),
        }
    }
    done
}

pub(super) fn split_first_brace(word: &str) -> Option<(&str, Vec<String>, &str)> {
    let bytes = word.as_bytes();
    let mut start = 0;
    while let Some(offset) = word[start..].find('{') {
        let open = start + offset;
        let mut depth = 0usize;
        let mut commas = Vec::new();
        for (j, &b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b',' if depth == 1 => commas.push(j),
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        let inside = &word[open + 1..j];
                        let alternatives: Vec<String> = if !commas.is_empty() {
                            let mut parts = Vec::new();
                            let mut from = open + 1;
                            for &c in &commas {
                                parts.push(word[from..c].to_string());
                                from = c + 1;
                            }
                            parts.push(word[from..j].to_string());
                            parts
                        } else if let Some((a, b)) = inside.split_once("..") {
                            vec![a.to_string(), b.to_string()]
                        } else {
                            break;
                        };
                        return Some((&word[..open], alternatives, &word[j + 1..]));
                    }
                }
                _ => {}
            }
        }
        start = open + 1;
    }
    None
}
