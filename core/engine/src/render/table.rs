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

/// `1` or `1.5`: a median is a whole number or a half.
pub fn trim_float(value: f64) -> String {
    if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        format!("{value:.1}")
    }
}

/// `1 passed task`, `2 passed tasks`.
pub fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The first `width` characters of `text`, with `…` when cut.
pub fn clip(text: &str, width: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut clipped: String = text.chars().take(width.saturating_sub(1)).collect();
    clipped.push('…');
    clipped
}

/// A span of milliseconds for people: `850ms`, `12.3s`, `4m 05s`, `2h 03m`.
pub fn duration(ms: u64) -> String {
    if ms < 1_000 {
        return format!("{ms}ms");
    }
    if ms < 60_000 {
        return format!("{:.1}s", ms as f64 / 1_000.0);
    }
    let seconds = ms / 1_000;
    if seconds < 3_600 {
        return format!("{}m {:02}s", seconds / 60, seconds % 60);
    }
    format!("{}h {:02}m", seconds / 3_600, seconds % 3_600 / 60)
}
