//! Plain aligned tables for people (`verdict stats`, `verdict fleet stats` and `status`), and the
//! text helpers their cells and other pages for people share: clipping, plurals, durations, dates.

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

/// The UTC date and time of day of a time in ms since the Unix epoch: (year, month, day, hour,
/// minute, second), by the proleptic Gregorian calendar.
pub fn civil(ms: i64) -> (i64, i64, i64, i64, i64, i64) {
    let seconds = ms.div_euclid(1_000);
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400);
    // Howard Hinnant's `civil_from_days`: days since 1970-01-01 to a date.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        year,
        month,
        day,
        of_day / 3_600,
        of_day % 3_600 / 60,
        of_day % 60,
    )
}

#[cfg(test)]
mod tests {
    use super::civil;

    #[test]
    fn dates_are_utc_through_leap_days_and_before_1970() {
        assert_eq!(civil(0), (1970, 1, 1, 0, 0, 0));
        assert_eq!(civil(951_782_400_000), (2000, 2, 29, 0, 0, 0));
        assert_eq!(civil(1_767_225_599_999), (2025, 12, 31, 23, 59, 59));
        assert_eq!(civil(-1), (1969, 12, 31, 23, 59, 59));
    }
}
