//! What a person sees on a terminal: the bytes a program wrote, played through a terminal
//! emulator (`vt100`) of a given size, cursor moves and redraws included, as rows of text for
//! whole-screen snapshots.

/// The visible rows of a `cols`×`rows` terminal after `output`, trailing blank rows left out.
pub(crate) fn rows(output: &str, cols: u16, rows: u16) -> Vec<String> {
    let size = |n: u16| std::num::NonZeroU16::new(n).expect("a terminal has a size");
    let mut parser = vt100::Parser::new(size(rows), size(cols), 0);
    parser.process(output.as_bytes());
    let mut shown: Vec<String> = parser.screen().rows(0, cols).collect();
    while shown.last().is_some_and(|r| r.trim().is_empty()) {
        shown.pop();
    }
    shown
}

/// `rows` from the first that starts with `from` on, each padded to `cols` and ended with `|`
/// (so a snapshot shows where the terminal's edge is): a whole screen below what varies per
/// machine (a banner's temp paths).
pub(crate) fn from(rows: &[String], from: &str, cols: usize) -> String {
    let start = rows
        .iter()
        .position(|r| r.starts_with(from))
        .unwrap_or_else(|| panic!("no row starts with {from:?}:\n{}", rows.join("\n")));
    rows[start..]
        .iter()
        .map(|r| format!("{r:cols$}|"))
        .collect::<Vec<_>>()
        .join("\n")
}
