//! Plain aligned tables for people: `verdict stats`, `verdict fleet stats` and `status`.

/// How a column's cells line up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text.
    Left,
    /// Numbers.
    Right,
}

/// A header line and one line per row, columns two spaces apart, each as wide as its widest cell
/// (in characters); the last column is not padded.
pub fn table(columns: &[(&str, Align)], rows: &[Vec<String>]) -> String {
    let width = |i: usize| {
        rows.iter()
            .filter_map(|row| row.get(i))
            .map(|cell| cell.chars().count())
            .chain([columns[i].0.chars().count()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..columns.len()).map(width).collect();
    let mut out = String::new();
    let header: Vec<String> = columns.iter().map(|(name, _)| (*name).to_owned()).collect();
    for row in std::iter::once(&header).chain(rows) {
        let mut text = String::new();
        for (i, (cell, (_, align))) in row.iter().zip(columns).enumerate() {
            if i > 0 {
                text.push_str("  ");
            }
            let pad = widths[i].saturating_sub(cell.chars().count());
            let last = i + 1 == columns.len();
            match align {
                Align::Right => {
                    text.push_str(&" ".repeat(pad));
                    text.push_str(cell);
                }
                Align::Left => {
                    text.push_str(cell);
                    if !last {
                        text.push_str(&" ".repeat(pad));
                    }
                }
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    }
    out
}
