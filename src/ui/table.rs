//! Aligned tables for terminals, measured in display columns (`unicode-width`: a CJK character
//! is two columns). Plain text, so colour is never needed to read it.
//!
//! When a table is wider than the terminal it gives way in this order, as `gh` does:
//! 1. the cuttable columns (descriptions, names) shrink to at most [`SOFT_MIN`] columns, `…`
//!    marking each cut;
//! 2. the columns marked `optional` are dropped whole, the first named first;
//! 3. the cuttable columns shrink further, to 6 columns.
//!
//! A column marked `whole` (an id or a path the user copies into the next command) is never
//! cut: a line too wide for the terminal rather than an id that cannot be copied.

/// How narrow a cuttable column gets before optional columns are dropped.
const SOFT_MIN: usize = 16;
/// How narrow a cuttable column gets at most.
const HARD_MIN: usize = 6;

pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    whole: Vec<bool>,
    /// Column indexes in the order they are dropped.
    optional: Vec<usize>,
}

impl Table {
    pub fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            whole: vec![false; header.len()],
            optional: Vec::new(),
        }
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// These columns are never cut (ids, paths).
    pub fn whole(mut self, columns: &[&str]) -> Table {
        for c in columns {
            if let Some(i) = self.index(c) {
                self.whole[i] = true;
            }
        }
        self
    }

    /// These columns are dropped when the table does not fit, the first named first.
    pub fn optional(mut self, columns: &[&str]) -> Table {
        self.optional = columns.iter().filter_map(|c| self.index(c)).collect();
        self
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Renders the table to lines no wider than `width` where it can be done without cutting
    /// a `whole` column (see the module docs).
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
                .filter(|&i| shown[i] && !self.whole[i] && widths[i] > floor)
                .max_by_key(|&i| widths[i]);
            let Some(i) = widest else {
                return;
            };
            widths[i] -= 1;
            over -= 1;
        }
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
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::display_width;

    #[test]
    fn aligns_and_cuts_the_widest_column() {
        let mut t = Table::new(&["ID", "PATH"]);
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
        let mut t = Table::new(&["ID", "TEXT"]);
        t.row(vec!["m1".into(), "日本語のメモ".into()]);
        t.row(vec!["m2".into(), "plain".into()]);
        let lines = t.render(80);
        assert_eq!(lines[0], "ID  TEXT");
        assert_eq!(lines[1], "m1  日本語のメモ");
        // Cut by columns: 12 columns of CJK into 9 leaves four characters and the mark.
        let mut t = Table::new(&["ID", "TEXT"]);
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
            .whole(&["ID", "PATH"])
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
}
