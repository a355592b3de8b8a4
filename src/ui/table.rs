//! Aligned tables for terminals: columns padded to the widest cell and the widest column cut to
//! fit the terminal width, with `…` marking a cut. Plain text, so colour is never needed to read it.

pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Renders the table to lines no wider than `width` (when it can be done by cutting cells).
    pub fn render(&self, width: usize) -> Vec<String> {
        let cols = self.header.len();
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate().take(cols) {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
        let gaps = 2 * cols.saturating_sub(1);
        let mut total: usize = widths.iter().sum::<usize>() + gaps;
        // Shrink the widest column until the table fits, keeping every column at least 6 wide.
        while total > width {
            let Some((i, &w)) = widths.iter().enumerate().max_by_key(|(_, w)| **w) else {
                break;
            };
            if w <= 6 {
                break;
            }
            widths[i] -= 1;
            total -= 1;
        }
        let render_row = |cells: &[String]| {
            let mut line = String::new();
            for (i, w) in widths.iter().enumerate() {
                let cell = cells.get(i).map(String::as_str).unwrap_or("");
                let cut = cut_to(cell, *w);
                line.push_str(&cut);
                if i + 1 < cols {
                    let pad = w - cut.chars().count() + 2;
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
            line.trim_end().to_string()
        };
        std::iter::once(render_row(&self.header))
            .chain(self.rows.iter().map(|r| render_row(r)))
            .collect()
    }
}

fn cut_to(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut out: String = text.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
