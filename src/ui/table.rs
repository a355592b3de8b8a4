//! Aligned tables for terminals, measured in display columns (`unicode-width`: a CJK character
//! is two columns), and the same listing as tab-separated values on a pipe (`Ui::table` picks
//! one): every list of the CLI goes through here, so that `finch … | cut -f1` works on each.
//! Plain text, so colour is never needed to read it.
//!
//! Only the columns declared free text (`cut`: descriptions, titles, output) are ever cut, `…`
//! marking each cut; ids, paths, names, timestamps and states stand whole. When a table is wider
//! than the terminal it gives way in this order:
//! 1. the free-text columns shrink to at most [`SOFT_MIN`] columns;
//! 2. the columns marked `optional` are dropped whole, the first named first;
//! 3. the free-text columns take back what the dropped columns left, and shrink further where
//!    they must, to [`HARD_MIN`] columns.
//!
//! A table with nothing left to give prints lines wider than the terminal rather than an id that
//! cannot be copied.
//!
//! On a pipe each row is one line of whole values separated by tabs (tabs and line breaks inside
//! a value become spaces), without the header unless `--header` ([`TableArgs`]) asks for it: a
//! row's piped values can differ from what the terminal shows (a full id where the table shows a
//! short one, RFC 3339 where it shows local time, columns of their own), given with
//! [`Table::row_piped`] each beside the name of its column, so that the piped header is read off
//! the values themselves and never kept in step with them by hand.
/// How narrow a cuttable column gets before optional columns are dropped.
const SOFT_MIN: usize = 16;
/// How narrow a cuttable column gets at most.
const HARD_MIN: usize = 6;

/// The options every list command shares.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct TableArgs {
    /// On a pipe, print the column names first, as one more line of tab-separated values (a
    /// terminal's table always has them)
    #[arg(long)]
    pub header: bool,
}

pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    /// The rows as they go down a pipe.
    piped: Vec<Vec<String>>,
    /// The names of the piped columns when they are not `header`'s: those of the values given
    /// to `row_piped`.
    piped_header: Option<Vec<&'static str>>,
    /// Free-text columns, the only ones ever cut.
    cut: Vec<bool>,
    /// Column indexes in the order they are dropped.
    optional: Vec<usize>,
}

impl Table {
    pub fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            piped: Vec::new(),
            piped_header: None,
            cut: vec![false; header.len()],
            optional: Vec::new(),
        }
    }

    fn index(&self, name: &str) -> Option<usize> {
        let found = self.header.iter().position(|h| h == name);
        // A name that is not a header is a slip in the table's own code.
        debug_assert!(found.is_some(), "no column {name} in {:?}", self.header);
        found
    }

    /// These columns are free text (descriptions, titles): they may be cut to fit.
    pub fn cut(mut self, columns: &[&str]) -> Table {
        for c in columns {
            if let Some(i) = self.index(c) {
                self.cut[i] = true;
            }
        }
        self
    }

    /// These columns are dropped when the table does not fit, the first named first.
    pub fn optional(mut self, columns: &[&str]) -> Table {
        self.optional = columns.iter().filter_map(|c| self.index(c)).collect();
        self
    }

    /// A row, the same on a terminal and on a pipe.
    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert!(
            self.piped_header.is_none(),
            "a table's rows are all `row` or all `row_piped`"
        );
        self.piped.push(cells.clone());
        self.rows.push(cells);
    }

    /// A row whose values on a pipe are not the ones a person reads (whole ids, RFC 3339
    /// times, other columns): each piped value with the name of its column, the same names in
    /// the same order on every row.
    pub fn row_piped(&mut self, cells: Vec<String>, piped: Vec<(&'static str, String)>) {
        let (names, values): (Vec<&'static str>, Vec<String>) = piped.into_iter().unzip();
        match &self.piped_header {
            None => {
                debug_assert!(
                    self.rows.is_empty(),
                    "a table's rows are all `row` or all `row_piped`"
                );
                self.piped_header = Some(names);
            }
            Some(known) => {
                debug_assert_eq!(known, &names, "every piped row names its columns alike")
            }
        }
        self.rows.push(cells);
        self.piped.push(values);
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The rows as tab-separated lines, whole; with `header`, the names of the piped columns
    /// first (when there is a row to name).
    pub fn tsv(&self, header: bool) -> Vec<String> {
        let header = (header && !self.piped.is_empty()).then(|| self.header_tsv());
        header
            .into_iter()
            .chain(self.piped.iter().map(|row| {
                row.iter()
                    .map(|v| one_field(v))
                    .collect::<Vec<_>>()
                    .join("\t")
            }))
            .collect()
    }

    /// The names of the columns on a pipe as one tab-separated line.
    pub fn header_tsv(&self) -> String {
        match &self.piped_header {
            Some(names) => names.join("\t"),
            None => self.header.join("\t"),
        }
    }

    /// Renders the table to lines no wider than `width` where it can be done by cutting free
    /// text and dropping optional columns (see the module docs).
    pub fn render(&self, width: usize) -> Vec<String> {
        let cols = self.header.len();
        let mut widths: Vec<usize> = self
            .header
            .iter()
            .map(|h| super::display_width(h))
            .collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate().take(cols) {
                widths[i] = widths[i].max(super::display_width(cell));
            }
        }
        let natural = widths.clone();
        let mut shown = vec![true; cols];
        let total = |widths: &[usize], shown: &[bool]| {
            let n = shown.iter().filter(|s| **s).count();
            let sum: usize = (0..cols).filter(|&i| shown[i]).map(|i| widths[i]).sum();
            sum + 2 * n.saturating_sub(1)
        };
        self.shrink(&mut widths, &shown, width, SOFT_MIN, total);
        for &drop in &self.optional {
            if total(&widths, &shown) <= width {
                break;
            }
            // The last column standing is kept.
            if shown.iter().filter(|s| **s).count() > 1 {
                shown[drop] = false;
            }
        }
        // The room a dropped column leaves goes back to the free text: from its whole width,
        // cut again only as far as the columns still shown need.
        for i in (0..cols).filter(|&i| self.cut[i]) {
            widths[i] = natural[i];
        }
        self.shrink(&mut widths, &shown, width, HARD_MIN, total);

        let visible: Vec<usize> = (0..cols).filter(|&i| shown[i]).collect();
        let render_row = |cells: &[String]| {
            let mut line = String::new();
            for (n, &i) in visible.iter().enumerate() {
                let cell = cells.get(i).map(String::as_str).unwrap_or("");
                let cut = cut_to(cell, widths[i]);
                line.push_str(&cut);
                if n + 1 < visible.len() {
                    let pad = widths[i].saturating_sub(super::display_width(&cut)) + 2;
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
            line.trim_end().to_string()
        };
        std::iter::once(render_row(&self.header))
            .chain(self.rows.iter().map(|r| render_row(r)))
            .collect()
    }

    /// Narrows the widest cuttable shown column, one column at a time, down to `floor`, until
    /// the table fits.
    fn shrink(
        &self,
        widths: &mut [usize],
        shown: &[bool],
        width: usize,
        floor: usize,
        total: impl Fn(&[usize], &[bool]) -> usize,
    ) {
        let mut over = total(widths, shown).saturating_sub(width);
        while over > 0 {
            let widest = (0..widths.len())
                .filter(|&i| shown[i] && self.cut[i] && widths[i] > floor)
                .max_by_key(|&i| widths[i]);
            let Some(i) = widest else {
                return;
            };
            widths[i] -= 1;
            over -= 1;
        }
    }
}

/// A value for a tab-separated line: tabs, line breaks and other control characters become
/// spaces.
fn one_field(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains(char::is_control) {
        text.chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect::<String>()
            .into()
    } else {
        text.into()
    }
}

/// `text` cut to `width` columns, `…` marking the cut.
pub(crate) fn cut_to(text: &str, width: usize) -> String {
    if super::display_width(text) <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    // "wrote the…", not "wrote the …".
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::display_width;

    #[test]
    fn aligns_and_cuts_the_widest_column() {
        let mut t = Table::new(&["ID", "PATH"]).cut(&["PATH"]);
        t.row(vec!["a".into(), "/very/long/path/to/something".into()]);
        t.row(vec!["longer-id".into(), "/p".into()]);
        assert_eq!(
            t.render(80),
            vec![
                "ID         PATH",
                "a          /very/long/path/to/something",
                "longer-id  /p"
            ]
        );
        let narrow = t.render(25);
        assert_eq!(narrow[1], "a          /very/long/pa…");
        assert!(narrow.iter().all(|l| l.chars().count() <= 25));
    }

    #[test]
    fn wide_characters_take_two_columns() {
        let mut t = Table::new(&["ID", "TEXT"]).cut(&["TEXT"]);
        t.row(vec!["m1".into(), "日本語のメモ".into()]);
        t.row(vec!["m2".into(), "plain".into()]);
        let lines = t.render(80);
        assert_eq!(lines[0], "ID  TEXT");
        assert_eq!(lines[1], "m1  日本語のメモ");
        // Cut by columns: 12 columns of CJK into 9 leaves four characters and the mark.
        let mut t = Table::new(&["ID", "TEXT"]).cut(&["TEXT"]);
        t.row(vec![
            "m1".into(),
            "日本語のメモ 日本語のメモ 日本語のメモ".into(),
        ]);
        for line in t.render(20) {
            assert!(display_width(&line) <= 20, "{line}");
        }
    }

    #[test]
    fn whole_columns_are_never_cut_and_optional_ones_go_first() {
        let id = "a-very-long-mini-tool-name-that-must-be-copied";
        let mut t = Table::new(&["ID", "VERSION", "NAME", "PATH"])
            .cut(&["NAME"])
            .optional(&["PATH", "VERSION"]);
        t.row(vec![
            id.into(),
            "1.0.0".into(),
            "A name that is rather long for a table".into(),
            "/home/someone/.finch/extensions/a-very-long-mini-tool-name".into(),
        ]);
        let wide = t.render(200);
        assert!(wide[0].contains("PATH") && wide[0].contains("VERSION"));
        let narrow = t.render(60);
        assert!(narrow[0].starts_with("ID"), "{narrow:?}");
        assert!(
            !narrow[0].contains("PATH"),
            "PATH is dropped first: {narrow:?}"
        );
        assert!(narrow[1].starts_with(id), "the id is whole: {narrow:?}");
        assert!(narrow.iter().all(|l| display_width(l) <= 60), "{narrow:?}");
        // Narrower than the id itself: the id still stands whole.
        let tiny = t.render(30);
        assert!(tiny[1].starts_with(id), "{tiny:?}");
    }

    #[test]
    fn free_text_takes_back_the_room_of_a_dropped_column() {
        let mut t = Table::new(&["NAME", "DESCRIPTION", "PATH"])
            .cut(&["DESCRIPTION"])
            .optional(&["PATH"]);
        t.row(vec![
            "notes".into(),
            "The steps of a release, in order".into(),
            "/a/path/long/enough/that/it/cannot/stay/in/sixty/columns".into(),
        ]);
        // Before: the description stayed cut at 16 columns once PATH was gone.
        assert_eq!(
            t.render(60),
            vec![
                "NAME   DESCRIPTION",
                "notes  The steps of a release, in order"
            ]
        );
    }

    #[test]
    fn only_free_text_is_cut_and_timestamps_stand_whole() {
        let mut t = Table::new(&["ID", "STARTED", "STATUS", "TITLE"])
            .cut(&["TITLE"])
            .optional(&["STATUS"]);
        t.row(vec![
            "s-1".into(),
            "2026-12-01 16:52:10".into(),
            "succeeded".into(),
            "A title long enough to be cut at a narrow width".into(),
        ]);
        let narrow = t.render(40);
        assert_eq!(
            narrow,
            vec![
                "ID   STARTED              TITLE",
                "s-1  2026-12-01 16:52:10  A title long…",
            ]
        );
        // Nothing left to cut or drop: the line is wider than asked, the values whole.
        let tiny = t.render(20);
        assert!(
            tiny[1].starts_with("s-1  2026-12-01 16:52:10  "),
            "{tiny:?}"
        );
    }

    #[test]
    fn piped_rows_are_whole_tab_separated_values_without_header() {
        let mut t = Table::new(&["ID", "TEXT"]).cut(&["TEXT"]);
        t.row(vec!["a".into(), "tab\there and\nline".into()]);
        t.row(vec!["b".into(), "x".into()]);
        assert_eq!(t.tsv(false), vec!["a\ttab here and line", "b\tx"]);
        assert_eq!(
            t.tsv(true),
            vec!["ID\tTEXT", "a\ttab here and line", "b\tx"]
        );
    }

    #[test]
    fn the_piped_header_names_the_piped_columns() {
        let mut t = Table::new(&["ID", "TEXT"]).cut(&["TEXT"]);
        t.row_piped(
            vec!["short".into(), "x".into()],
            vec![
                ("ID", "full-id".into()),
                ("TEXT", "x".into()),
                ("MORE", "more".into()),
            ],
        );
        assert_eq!(t.tsv(false), vec!["full-id\tx\tmore"]);
        assert_eq!(t.tsv(true), vec!["ID\tTEXT\tMORE", "full-id\tx\tmore"]);
        // The terminal keeps its own columns.
        assert_eq!(t.render(80), vec!["ID     TEXT", "short  x"]);
    }

    #[test]
    fn an_empty_table_has_no_piped_header() {
        let t = Table::new(&["ID", "TEXT"]);
        assert!(t.tsv(true).is_empty());
    }
}
