//! A card, a question and their menus drawn into any `Write`: fields wrapped at word
//! boundaries to the terminal's width, long commands paged, a Write's content and an Edit's
//! diff, and nothing a model or a mini tool wrote can move the cursor (control characters are
//! shown escaped). Pure, so it is tested beside the code.

use super::*;

/// Characters that must never reach the terminal as they are: control characters (they move
/// the cursor, recolour, or retitle the window) and the invisible ones that reorder or hide
/// text (bidi overrides, zero-width characters), which could make a command read as another.
pub(super) fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}'
        )
}

/// `text` on one line, with every hidden character written as its escape (`\u{1b}`).
pub(super) fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(' '),
            c if hidden(c) => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out
}

/// `text` cut to `width` columns, `…` marking the cut: for menu labels only (a question's
/// option that does not fit), never for what the call would do.
pub(super) fn fit(text: &str, width: usize) -> String {
    let width = width.max(10);
    if display_width(text) <= width {
        return text.to_string();
    }
    let mut cut = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > width - 1 {
            break;
        }
        used += w;
        cut.push(c);
    }
    cut.push('…');
    cut
}

/// `text` in lines of at most `width` columns: broken at spaces, and a word wider than a line
/// broken inside (a command is shown whole, never cut).
pub(super) fn wrap_whole(text: &str, width: usize) -> Vec<String> {
    let width = width.max(10);
    let mut out = Vec::new();
    for line in crate::ui::wrap(text, width) {
        if display_width(&line) <= width {
            out.push(line);
            continue;
        }
        let mut piece = String::new();
        let mut used = 0;
        for c in line.chars() {
            let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            if used + w > width {
                out.push(std::mem::take(&mut piece));
                used = 0;
            }
            used += w;
            piece.push(c);
        }
        out.push(piece);
    }
    out
}

pub(super) fn paint(color: bool, text: &str, style: impl Fn(&str) -> String) -> String {
    if color { style(text) } else { text.to_string() }
}

/// The label of a card's one-line summary, after what the host put there.
pub(super) fn summary_label(tool: &str) -> &'static str {
    match tool {
        "Bash" => "command",
        "Read" | "Write" | "Edit" => "path",
        "Grep" | "Glob" => "pattern",
        "WebFetch" => "url",
        "WebSearch" => "query",
        _ => "arguments",
    }
}

/// How many lines of a long summary one page of the card shows.
pub(super) const PAGE_LINES: usize = 12;

/// The width of a field's label column (`  label     `).
pub(super) const FIELD_INDENT: usize = 12;

/// The summary's lines as the card wraps them within `width` columns (the card's own width,
/// one less than the terminal's), like any other field.
pub(super) fn summary_lines(card: &Card, width: usize) -> Vec<String> {
    wrap_whole(&visible(&card.summary), width.saturating_sub(FIELD_INDENT))
}

/// How many pages the summary takes on a terminal this wide (1 when it fits one page).
pub(super) fn summary_pages(card: &Card, terminal_width: usize) -> usize {
    summary_lines(card, terminal_width.saturating_sub(1))
        .len()
        .div_ceil(PAGE_LINES)
        .max(1)
}

/// The card above its choices: who asks, how risky, what exactly, and why.
#[cfg(test)]
pub(super) fn render_card(
    out: &mut impl Write,
    card: &Card,
    width: usize,
    color: bool,
) -> io::Result<()> {
    render_card_page(out, card, width, color, 0)
}

/// The card with page `page` of its summary: a summary longer than `LONG_SUMMARY` characters
/// says how long it is, and one longer than a page is shown a page at a time (never cut: `>`
/// and `<` turn the pages).
pub(super) fn render_card_page(
    out: &mut impl Write,
    card: &Card,
    width: usize,
    color: bool,
    page: usize,
) -> io::Result<()> {
    let tool = visible(&card.tool);
    let title = visible(&card.title);
    let heading = if title.is_empty() || title == tool {
        format!("Permission needed: {tool}")
    } else {
        format!("Permission needed: {tool} — {title}")
    };
    let width = width.saturating_sub(1);
    write_heading(out, &heading, width, color)?;
    field(out, "layer", card.layer, width)?;
    if let Some(owner) = &card.owner {
        field(out, "owner", &visible(owner), width)?;
    }
    // The word carries the risk; colour only repeats it.
    let risk = match card.risk {
        Risk::Low => "low".to_string(),
        Risk::Medium => paint(color, "medium", |t| t.yellow().to_string()),
        Risk::High => paint(color, "HIGH", |t| t.red().bold().to_string()),
    };
    field(out, "risk", &risk, width)?;
    let lines = summary_lines(card, width);
    let pages = lines.len().div_ceil(PAGE_LINES).max(1);
    let chars = card.summary.chars().count();
    if chars > crate::host::prompt::LONG_SUMMARY || pages > 1 {
        let mut length = format!(
            "{chars} characters, {} line{} on this card",
            lines.len(),
            if lines.len() == 1 { "" } else { "s" }
        );
        if pages > 1 {
            length.push_str(&format!(
                "; page {} of {pages} (> next, < previous)",
                page.min(pages - 1) + 1
            ));
        }
        field(out, "length", &length, width)?;
    }
    let label = summary_label(&card.tool);
    let first = page.min(pages - 1) * PAGE_LINES;
    for (i, line) in lines.iter().skip(first).take(PAGE_LINES).enumerate() {
        if i == 0 {
            writeln!(out, "  {label:<10}{line}")?;
        } else {
            writeln!(out, "{:FIELD_INDENT$}{line}", "")?;
        }
    }
    if let Some(change) = &card.change {
        for line in change_lines(change, width, color) {
            writeln!(out, "{line}")?;
        }
    }
    field(out, "reason", &visible(&card.reason), width)?;
    if let Some(sandbox) = &card.sandbox {
        field(out, "sandbox", &visible(sandbox), width)?;
    }
    writeln!(out)
}

/// A blank line, then `heading` in bold, wrapped whole to `width`: how every card begins.
pub(super) fn write_heading(
    out: &mut impl Write,
    heading: &str,
    width: usize,
    color: bool,
) -> io::Result<()> {
    writeln!(out)?;
    for line in wrap_whole(heading, width) {
        writeln!(out, "{}", paint(color, &line, |t| t.bold().to_string()))?;
    }
    Ok(())
}

/// The card of a mini tool the kernel cannot confine, above its choices.
pub(super) fn render_unconfined(
    out: &mut impl Write,
    request: &Unconfined,
    width: usize,
    color: bool,
) -> io::Result<()> {
    let id = visible(&request.id);
    let name = visible(&request.display_name);
    let heading = if name.is_empty() || name == id {
        format!("Run mini tool {id} without confinement?")
    } else {
        format!("Run mini tool {id} ({name}) without confinement?")
    };
    let width = width.saturating_sub(1);
    write_heading(out, &heading, width, color)?;
    field(out, "declares", &request.declares(), width)?;
    field(
        out,
        "why",
        &format!(
            "finch cannot hold it to that here: {}",
            visible(&request.why)
        ),
        width,
    )?;
    let risk = paint(color, "HIGH", |t| t.red().bold().to_string());
    field(
        out,
        "risk",
        &format!(
            "{risk}: its code could read, change and send anything your user can, whatever it declares"
        ),
        width,
    )?;
    field(
        out,
        "recorded",
        &format!("Allow is kept; `finch sandbox revoke {id} unconfined` takes it back"),
        width,
    )?;
    writeln!(out)
}

pub(super) fn unconfined_outcome(answer: &CardAnswer, id: &str, color: bool) -> Option<String> {
    let id = visible(id);
    Some(match answer {
        CardAnswer::AllowOnce => paint(
            color,
            &format!("✓ Allowed: {id} runs unconfined (recorded)"),
            |t| t.yellow().to_string(),
        ),
        CardAnswer::TimedOut => paint(
            color,
            &format!("timed out — denied: {id} does not start"),
            |t| t.red().to_string(),
        ),
        _ => paint(color, &format!("✗ Denied: {id} does not start"), |t| {
            t.red().to_string()
        }),
    })
}

/// The most lines of a Write's content or an Edit's diff a card shows.
pub(super) const CHANGE_LINES: usize = 12;

/// What a Write or Edit would change: a line that says how much, then the first lines of the
/// content (Write) or of the unified diff (Edit), each within `width`, and how many more are
/// hidden.
pub(super) fn change_lines(change: &Change, width: usize, color: bool) -> Vec<String> {
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let (what, body): (String, Vec<String>) = match change {
        Change::Write { content, replaces } => {
            let lines = content.lines().count();
            let target = match replaces {
                Some(old) => format!("replaces a file of {}", plural(*old as usize, "byte")),
                None => "a new file".to_string(),
            };
            (
                format!(
                    "{}, {}; {target}",
                    plural(content.len(), "byte"),
                    plural(lines, "line")
                ),
                content
                    .lines()
                    .map(|l| format!("  {}", visible(l)))
                    .collect(),
            )
        }
        Change::Edit { before, after } => {
            let diff = crate::ui::diff::unified(before, after);
            let count = |f: fn(&DiffLine) -> bool| diff.iter().filter(|l| f(l)).count();
            let added = count(|l| matches!(l, DiffLine::Added(_)));
            let removed = count(|l| matches!(l, DiffLine::Removed(_)));
            (
                format!("+{added} −{removed} lines"),
                diff.iter()
                    .map(|line| {
                        // Cut before colour, so no escape sequence is ever cut in two.
                        let cut = cut_to(&visible(&line.render(false)), width.saturating_sub(2));
                        let painted = match line {
                            _ if !color => cut,
                            DiffLine::Hunk(_) => cut.cyan().to_string(),
                            DiffLine::Removed(_) => cut.red().to_string(),
                            DiffLine::Added(_) => cut.green().to_string(),
                            DiffLine::Context(_) => cut,
                        };
                        format!("  {painted}")
                    })
                    .collect(),
            )
        }
    };
    let label = match change {
        Change::Write { .. } => "content",
        Change::Edit { .. } => "change",
    };
    let mut out = Vec::new();
    for (i, line) in wrap_whole(&what, width.saturating_sub(FIELD_INDENT))
        .into_iter()
        .enumerate()
    {
        let label = if i == 0 { label } else { "" };
        out.push(format!("  {label:<10}{line}"));
    }
    let hidden = body.len().saturating_sub(CHANGE_LINES);
    out.extend(body.into_iter().take(CHANGE_LINES).map(|l| match change {
        // Write's lines are plain: cut here (the diff's were cut before their colour).
        Change::Write { .. } => cut_to(&l, width),
        Change::Edit { .. } => l,
    }));
    if hidden > 0 {
        out.push(format!(
            "  … {hidden} more {} not shown",
            if hidden == 1 { "line" } else { "lines" }
        ));
    }
    out
}

/// `  label     value`, the value wrapped under itself within `width`.
pub(super) fn field(
    out: &mut impl Write,
    label: &str,
    value: &str,
    width: usize,
) -> io::Result<()> {
    for (i, line) in wrap_whole(value, width.saturating_sub(FIELD_INDENT))
        .iter()
        .enumerate()
    {
        if i == 0 {
            writeln!(out, "  {label:<10}{line}")?;
        } else {
            writeln!(out, "{:FIELD_INDENT$}{line}", "")?;
        }
    }
    Ok(())
}

pub(super) fn render_question(
    out: &mut impl Write,
    question: &Question,
    width: usize,
    color: bool,
) -> io::Result<()> {
    let heading = match &question.header {
        Some(header) => format!("Question: {}", visible(header)),
        None => "Question".to_string(),
    };
    let width = width.saturating_sub(1);
    write_heading(out, &heading, width, color)?;
    for line in question.question.lines() {
        for part in wrap_whole(&visible(line), width.saturating_sub(2)) {
            writeln!(out, "  {part}")?;
        }
    }
    writeln!(out)
}

/// The rows of the menu: per item its cursor, number, check box in multi-select, label,
/// mnemonic letter and description, the description wrapping under the label when the line is
/// too narrow. Each row fits `width - 1` columns, so the terminal never wraps one on its own
/// (the redraw counts rows).
pub(super) fn menu_lines(items: &[Item], menu: &Menu, width: usize) -> Vec<(usize, String)> {
    let width = width.saturating_sub(1).max(10);
    let label_width = items
        .iter()
        .map(|i| display_width(&visible(&i.label)))
        .max()
        .unwrap_or(0);
    let mut rows = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let pointer = if index == menu.cursor { '›' } else { ' ' };
        let number = match item.number {
            Some(n) => format!("{n})"),
            None => "  ".to_string(),
        };
        let check = match (menu.multi, Some(index) == menu.other) {
            (true, false) if menu.checked[index] => "[x] ",
            (true, false) => "[ ] ",
            _ => "",
        };
        let label = visible(&item.label);
        let mut line = format!("{pointer} {number} {check}{label}");
        if let Some(letter) = item.letter {
            let pad = label_width.saturating_sub(display_width(&label));
            line.push_str(&format!("{:pad$}  [{letter}]", ""));
        }
        let line = fit(&line, width);
        let Some(detail) = &item.detail else {
            rows.push((index, line));
            continue;
        };
        let detail = format!("— {}", visible(detail));
        if display_width(&line) + 1 + display_width(&detail) <= width {
            rows.push((index, format!("{line} {detail}")));
        } else {
            rows.push((index, line));
            for part in wrap_whole(&detail, width - 6) {
                rows.push((index, format!("      {part}")));
            }
        }
    }
    rows
}

pub(super) fn render_menu(
    out: &mut impl Write,
    items: &[Item],
    menu: &Menu,
    width: usize,
    color: bool,
) -> io::Result<()> {
    for (index, line) in menu_lines(items, menu, width) {
        if index == menu.cursor {
            writeln!(out, "{}", paint(color, &line, |t| t.bold().to_string()))?;
        } else {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// The help under the menu, wrapped: never cut, at any width.
pub(super) fn help_lines(help: &str, width: usize) -> Vec<String> {
    wrap_whole(help, width.saturating_sub(1))
}

/// The last lines; the cursor waits at the end of the last one.
pub(super) fn render_help(
    out: &mut impl Write,
    help: &str,
    width: usize,
    color: bool,
) -> io::Result<()> {
    let lines = help_lines(help, width);
    let last = lines.len().saturating_sub(1);
    for (i, line) in lines.iter().enumerate() {
        let line = paint(color, line, |t| t.dimmed().to_string());
        if i == last {
            write!(out, "{line}")?;
        } else {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// The line printed under a card once it is answered.
pub(super) fn card_outcome(answer: &CardAnswer, color: bool) -> Option<String> {
    let line = match answer {
        CardAnswer::AllowOnce => paint(color, "✓ Allowed once", |t| t.green().to_string()),
        CardAnswer::AllowForSession => paint(color, "✓ Allowed for this session", |t| {
            t.green().to_string()
        }),
        CardAnswer::AllowUnsandboxed => {
            paint(color, "✓ Allowed once, without the sandbox", |t| {
                t.yellow().to_string()
            })
        }
        CardAnswer::Deny => paint(color, "✗ Denied", |t| t.red().to_string()),
        CardAnswer::DenyWithReason(reason) => {
            let text = format!("✗ Denied; the model is told: {}", visible(reason));
            paint(color, &text, |t| t.red().to_string())
        }
        CardAnswer::TimedOut => paint(color, "timed out — denied", |t| t.red().to_string()),
        CardAnswer::Unavailable
        | CardAnswer::Declined
        | CardAnswer::Cancelled
        | CardAnswer::NoElicitation => return None,
        CardAnswer::Withdrawn => paint(color, "withdrawn — the caller cancelled the call", |t| {
            t.yellow().to_string()
        }),
    };
    Some(line)
}

/// The line printed under a question once it is answered.
pub(super) fn question_outcome(answer: &QuestionAnswer, color: bool) -> Option<String> {
    let line = match answer {
        QuestionAnswer::Chosen(labels) => {
            let labels: Vec<String> = labels.iter().map(|l| visible(l)).collect();
            paint(color, &format!("✓ {}", labels.join(", ")), |t| {
                t.green().to_string()
            })
        }
        QuestionAnswer::Other(text) => paint(color, &format!("✓ {}", visible(text)), |t| {
            t.green().to_string()
        }),
        QuestionAnswer::TimedOut => "timed out — no answer".to_string(),
        QuestionAnswer::Unavailable | QuestionAnswer::Dismissed => "✗ No answer".to_string(),
    };
    Some(line)
}
