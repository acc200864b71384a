//! Times as a person reads them: absolute in UTC inside `<time datetime>`, plus a relative
//! span ("in 42 s", "3 min ago") from the server's clock. The script (`app.js`) keeps the
//! relative ones ticking with the same wording, so both sides must agree on [`span`].

use maud::{Markup, html};
use verdict_core::render::table::civil;

/// `2026-11-29 14:03:20 UTC`.
pub(crate) fn utc(ms: i64) -> String {
    let (y, mo, d, h, mi, s) = civil(ms);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02} UTC")
}

/// `14:03:20 UTC`: the time of day alone, for a time within the next day.
pub(crate) fn utc_clock(ms: i64) -> String {
    let (_, _, _, h, mi, s) = civil(ms);
    format!("{h:02}:{mi:02}:{s:02} UTC")
}

/// `2026-11-29T14:03:20Z`, for `<time datetime>`.
pub(crate) fn iso(ms: i64) -> String {
    let (y, mo, d, h, mi, s) = civil(ms);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

/// A span of milliseconds in at most two units: `42 s`, `3 min 5 s`, `2 h 3 min`, `4 d 1 h`.
/// `app.js` words spans the same way.
pub(crate) fn span(ms: i64) -> String {
    let s = ms.max(0) / 1_000;
    match s {
        0..60 => format!("{s} s"),
        60..3_600 => two(s / 60, "min", s % 60, "s"),
        3_600..86_400 => two(s / 3_600, "h", s % 3_600 / 60, "min"),
        _ => two(s / 86_400, "d", s % 86_400 / 3_600, "h"),
    }
}

fn two(major: i64, major_unit: &str, minor: i64, minor_unit: &str) -> String {
    if minor == 0 {
        format!("{major} {major_unit}")
    } else {
        format!("{major} {major_unit} {minor} {minor_unit}")
    }
}

/// How long something took: `850 ms`, `12.3 s`, then as [`span`] (`4 min 5 s`).
pub(crate) fn duration(ms: i64) -> String {
    match ms.max(0) {
        ms @ 0..1_000 => format!("{ms} ms"),
        ms @ 1_000..60_000 => format!("{:.1} s", ms as f64 / 1_000.0),
        ms => span(ms),
    }
}

/// `in 42 s` or `3 min ago`, from `now`; `now` itself is `now`.
pub(crate) fn relative(at: i64, now: i64) -> String {
    let delta = at - now;
    if delta.abs() < 1_000 {
        "now".to_owned()
    } else if delta > 0 {
        format!("in {}", span(delta))
    } else {
        format!("{} ago", span(-delta))
    }
}

/// The countdown's text: `in 42 s` until the time comes, then `due`.
pub(crate) fn due(at: i64, now: i64) -> String {
    if at - now < 1_000 {
        "due".to_owned()
    } else {
        format!("in {}", span(at - now))
    }
}

/// `<time>` with the absolute time as its text.
pub(crate) fn absolute(ms: i64) -> Markup {
    html! { time datetime=(iso(ms)) { (utc(ms)) } }
}

/// An absolute time followed by its relative one in brackets, both `<time>`.
pub(crate) fn absolute_and_relative(ms: i64, now: i64) -> Markup {
    html! {
        (absolute(ms)) " ("
        time datetime=(iso(ms)) data-rel=(ms) { (relative(ms, now)) }
        ")"
    }
}

/// A countdown to `ms` that the script ticks each second: `in 41 s`, then `due`.
pub(crate) fn countdown(ms: i64, now: i64) -> Markup {
    html! { time datetime=(iso(ms)) data-due=(ms) { (due(ms, now)) } }
}

/// Time elapsed since `ms` that the script ticks each second: `3 min 5 s`.
pub(crate) fn elapsed(ms: i64, now: i64) -> Markup {
    html! { time datetime=(iso(ms)) data-since=(ms) { (span(now - ms)) } }
}

#[cfg(test)]
mod tests {
    use super::*;

    // 2026-11-29 14:03:20 UTC.
    const AT: i64 = 1_795_961_000_000;

    #[test]
    fn times_are_utc() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(AT), "2026-11-29 14:03:20 UTC");
        assert_eq!(iso(AT), "2026-11-29T14:03:20Z");
        assert_eq!(utc_clock(AT + 999), "14:03:20 UTC");
        // A leap day, the last second of a year, and before the epoch.
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc(1_767_225_599_999), "2025-12-31 23:59:59 UTC");
        assert_eq!(utc(-1), "1969-12-31 23:59:59 UTC");
    }

    #[test]
    fn spans_use_at_most_two_units() {
        assert_eq!(span(-5), "0 s");
        assert_eq!(span(42_900), "42 s");
        assert_eq!(span(180_000), "3 min");
        assert_eq!(span(185_000), "3 min 5 s");
        assert_eq!(span(7_380_000), "2 h 3 min");
        assert_eq!(span(4 * 86_400_000 + 3_600_000), "4 d 1 h");
    }

    #[test]
    fn durations_keep_precision_under_a_minute() {
        assert_eq!(duration(850), "850 ms");
        assert_eq!(duration(12_345), "12.3 s");
        assert_eq!(duration(245_000), "4 min 5 s");
    }

    #[test]
    fn relative_times_read_both_ways() {
        assert_eq!(relative(AT + 42_000, AT), "in 42 s");
        assert_eq!(relative(AT - 180_000, AT), "3 min ago");
        assert_eq!(relative(AT + 500, AT), "now");
        assert_eq!(due(AT + 42_000, AT), "in 42 s");
        assert_eq!(due(AT - 5_000, AT), "due");
    }

    #[test]
    fn countdowns_carry_their_time_for_the_script() {
        let html = countdown(AT + 42_000, AT).into_string();
        assert_eq!(
            html,
            r#"<time datetime="2026-11-29T14:04:02Z" data-due="1795961042000">in 42 s</time>"#
        );
        let html = elapsed(AT - 65_000, AT).into_string();
        assert!(
            html.contains(r#"data-since="1795960935000">1 min 5 s</time>"#),
            "{html}"
        );
    }
}
